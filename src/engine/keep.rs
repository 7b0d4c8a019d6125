//! What a run of specs needs of each call of a transcript, so the reader can drop the rest as it
//! goes and hand long transcripts over compact ([`crate::transcript::CallTable`]).

use std::collections::HashSet;
use std::sync::Arc;

use crate::config::{Check, ExtraCalls, MatcherConfig, Normaliser, OrderMode, Part};
use crate::transcript::{Keep, NameFilter, COMPACT_ABOVE};

use super::for_each_spec_check;

/// What `specs` need of each call: the arguments of calls an expectation or a `never` rule may
/// match (by name, under each spec's name rules), the outputs of calls an expectation with an
/// output check or a reference into an output may match; calls compact past
/// [`COMPACT_ABOVE`]. Under a profile everything is kept: the peer's scorer reads every call.
/// A spec that forbids extra calls (`extra forbid`, strict order) keeps every call's arguments:
/// any call may be an offending one, and the report shows its arguments.
pub fn keep_for(specs: &[&MatcherConfig]) -> Keep {
    if specs.iter().any(|c| c.profile.is_some()) {
        return Keep::default();
    }
    let all_args = specs
        .iter()
        .any(|c| c.order == OrderMode::Strict || c.extra_calls == ExtraCalls::Forbid);
    type Wanted = Vec<(Normaliser, HashSet<String>)>;
    let mut args: Wanted = Vec::new();
    let mut outputs: Wanted = Vec::new();
    for c in specs {
        let rules = c.names.normaliser();
        let norm = |tool: &str| rules.normalise(tool);
        let mut a: HashSet<String> = c.expectations.iter().map(|e| norm(&e.tool)).collect();
        a.extend(c.forbidden.iter().map(|f| norm(&f.tool)));
        let mut o: HashSet<String> = HashSet::new();
        for e in &c.expectations {
            if e.output.is_some() {
                o.insert(norm(&e.tool));
            }
        }
        // A reference into an output, wherever it is written (an expectation, a `never` rule,
        // the answer), reads the outputs of the calls the referenced expectation matches.
        for_each_spec_check(c, &mut |check| {
            if let Check::Ref {
                expectation,
                part: Part::Output,
                ..
            } = check
            {
                if let Some(target) = c.expectations.get(*expectation) {
                    o.insert(norm(&target.tool));
                }
            }
        });
        args.push((rules.clone(), a));
        outputs.push((rules, o));
    }
    let filter = |wanted: Wanted| -> NameFilter {
        Arc::new(move |name: &str| {
            wanted
                .iter()
                .any(|(rules, set)| !set.is_empty() && set.contains(&rules.normalise(name)))
        })
    };
    let no_outputs = outputs.iter().all(|(_, set)| set.is_empty());
    Keep {
        args: (!all_args).then(|| filter(args)),
        outputs: Some(filter(outputs)),
        no_outputs,
        compact: Some(COMPACT_ABOVE),
        unplaced: false,
    }
}
