//! Partial credit per argument (`score per_argument`): how much of a name-only call holds.
//!
//! Input: an expectation and the failures of one call matched to it by name only. Output: the
//! [`ArgumentShare`] of that call: its constraint units, how many hold, and the credit that
//! replaces `name_only` in the score. Nothing fails. The units (`docs/scoring.md`):
//!
//! - each argument written with a constraint (`key: C`, `a.b: C`; a path constrained by
//!   several `and`-ed terms is one unit, holding when all hold); a whole-value body
//!   (`exact {…}`, `subset {…}`) is one unit;
//! - in exact mode, one more unit, failing, when the call has arguments the spec does not list
//!   (however many there are);
//! - the same for the output: each constrained output path one unit, unexpected output keys
//!   one failing unit;
//! - `errored` (when written) one unit.
//!
//! A name-only call fails at least one unit, so its share is below 1 and its credit
//! `name_only + (exact_match − name_only) × share` stays below a full match's.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::resolve::display_path;
use super::verdict::{Failure, FailurePart};
use crate::config::{Expectation, ValueMatcher};

/// How much of one name-only call holds, and what it earns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArgumentShare {
    /// The call (0-based position).
    pub call: usize,
    /// Argument units that hold.
    pub args_held: usize,
    /// Argument units.
    pub args: usize,
    /// Output units that hold.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub output_held: usize,
    /// Output units.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub output: usize,
    /// Whether the `errored` flag holds, when the expectation writes one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errored: Option<bool>,
    /// The credit of the call: `weight × (name_only + (exact_match − name_only) × share)`.
    pub credit: f64,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's `skip_serializing_if` passes a reference
fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl ArgumentShare {
    /// Units that hold.
    pub fn held(&self) -> usize {
        self.args_held + self.output_held + usize::from(self.errored == Some(true))
    }

    /// Units in all.
    pub fn total(&self) -> usize {
        self.args + self.output + usize::from(self.errored.is_some())
    }

    /// `held / total` (0 when there is no unit).
    pub fn share(&self) -> f64 {
        match self.total() {
            0 => 0.0,
            t => self.held() as f64 / t as f64,
        }
    }

    /// How findings say it: `2/3 arguments hold`, then the output and the error flag if the
    /// expectation constrains them.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if self.args > 0 || (self.output == 0 && self.errored.is_none()) {
            let noun = if self.args == 1 {
                "argument holds"
            } else {
                "arguments hold"
            };
            parts.push(format!("{}/{} {noun}", self.args_held, self.args));
        }
        if self.output > 0 {
            parts.push(format!(
                "{}/{} output constraints hold",
                self.output_held, self.output
            ));
        }
        match self.errored {
            Some(true) => parts.push("the error flag holds".into()),
            Some(false) => parts.push("the error flag fails".into()),
            None => {}
        }
        parts.join(", ")
    }
}

/// The units of one part (arguments or output) and how many of them fail.
fn units<'f>(
    m: Option<&ValueMatcher>,
    part: FailurePart,
    failures: impl Iterator<Item = &'f Failure>,
) -> (usize, usize) {
    let Some(m) = m else {
        return (0, 0);
    };
    let paths: HashSet<String> = m.checks.iter().map(|pc| display_path(&pc.path)).collect();
    let mut failing: HashSet<&str> = HashSet::new();
    let mut extra = false;
    for f in failures.filter(|f| f.part == part) {
        if f.check == "no_extra_keys" {
            extra = true;
        } else {
            failing.insert(f.path.as_str());
        }
    }
    let total = paths.len() + usize::from(extra);
    let failed = failing.len().min(paths.len()) + usize::from(extra);
    (total, failed)
}

/// The share of call `call`, matched to `e` by name only with `failures` (its own), under the
/// credits `exact` and `name_only` (already made sane) and the expectation's weight `w`.
pub(crate) fn share_of<'f>(
    e: &Expectation,
    call: usize,
    failures: impl Iterator<Item = &'f Failure> + Clone,
    (exact, name_only, w): (f64, f64, f64),
) -> ArgumentShare {
    let (args, args_failed) = units(Some(&e.args), FailurePart::Args, failures.clone());
    let (output, output_failed) = units(e.output.as_ref(), FailurePart::Output, failures.clone());
    let errored = e.errored.map(|_| {
        !failures
            .clone()
            .any(|f| f.part == FailurePart::Call && f.check == "errored")
    });
    let mut s = ArgumentShare {
        call,
        args_held: args - args_failed,
        args,
        output_held: output - output_failed,
        output,
        errored,
        credit: 0.0,
    };
    s.credit = w * (name_only + (exact - name_only) * s.share());
    s
}
