//! `never` rules: which calls they forbid.
//!
//! Input: the spec's [`Forbidden`] rules, the name id of each, and the calls. Output: per call,
//! the first rule (in spec order) that forbids it. A call is compared with the rules of its name
//! and with the rules of any tool (`never *`) only, not with every rule; a rule forbids a call in
//! its scope (`turn`, `agent` and `after` blocks), with its error flag, whose arguments match. A
//! rule with a reference, or in an `after` block anchored on a label, is *deferred*: it is
//! decided against the calls the first alignment matched to the referenced (anchor)
//! expectations ([`Forbid::deferred_pass`]), and a reference that does not apply (to an
//! expectation that may match nothing, and matched nothing) leaves the rule forbidding nothing.

use super::checks::Evaluator;
use super::scopes::{self, Bound, Turns};
use super::{for_each_matcher_check, of_name, small};
use crate::config::{Anchor, Check, Forbidden, MatcherConfig, Part};

/// The `never` rules of a spec, indexed for the calls.
pub(crate) struct Forbid {
    /// Per name id: the rules of that name, in spec order.
    of_name: Vec<Vec<usize>>,
    /// The rules of any tool (`never *`), in spec order.
    any: Vec<usize>,
    /// Per rule: it has a reference, so it is decided against the pinned calls.
    deferred: Vec<bool>,
    /// Whether any rule is deferred.
    pub(crate) any_deferred: bool,
}

impl Forbid {
    /// Index `config`'s rules; `names` is each rule's name id, `spec_names` how many ids the
    /// spec's names take.
    pub(crate) fn new(config: &MatcherConfig, names: &[usize], spec_names: usize) -> Forbid {
        let mut of_name: Vec<Vec<usize>> = vec![Vec::new(); spec_names];
        let mut any = Vec::new();
        let mut deferred = Vec::with_capacity(config.forbidden.len());
        for (r, f) in config.forbidden.iter().enumerate() {
            if f.any_tool {
                any.push(r);
            } else if let Some(list) = names.get(r).and_then(|&id| of_name.get_mut(id)) {
                list.push(r);
            }
            let mut refs = matches!(
                f.scope
                    .as_ref()
                    .and_then(|s| s.after.as_ref())
                    .map(|a| &a.anchor),
                Some(Anchor::Label { .. })
            );
            if let Some(m) = &f.args {
                for_each_matcher_check(m, &mut |c| refs |= matches!(c, Check::Ref { .. }));
            }
            deferred.push(refs);
        }
        let any_deferred = deferred.iter().any(|&d| d);
        Forbid {
            of_name,
            any,
            deferred,
            any_deferred,
        }
    }

    /// The rules a call of name `id` is compared with, in spec order.
    fn rules(&self, id: u32) -> impl Iterator<Item = usize> + '_ {
        let named = of_name(&self.of_name, id);
        // Both lists ascend: merge them.
        let mut a = named.iter().copied().peekable();
        let mut b = self.any.iter().copied().peekable();
        std::iter::from_fn(move || match (a.peek(), b.peek()) {
            (Some(&x), Some(&y)) if x < y => a.next(),
            (Some(_) | None, Some(_)) => b.next(),
            (Some(_), None) => a.next(),
            (None, None) => None,
        })
    }

    /// Per call (`name`: its name id), the first rule that is not deferred that forbids it
    /// (`bounds`: where each rule's scope starts).
    pub(crate) fn immediate(
        &self,
        config: &MatcherConfig,
        ev: &Evaluator<'_>,
        turns: Turns,
        bounds: &[Bound],
        name: &[u32],
    ) -> Vec<Option<u32>> {
        (0..ev.calls.count())
            .map(|i| {
                self.rules(name[i])
                    .find(|&r| {
                        !self.deferred[r]
                            && bound(bounds, r).admits(i)
                            && holds(&config.forbidden[r], ev, turns, i)
                    })
                    .map(small)
            })
            .collect()
    }

    /// The rules with a reference, against `ev` (an evaluator whose references read the pinned
    /// calls): each call not yet forbidden that one of them forbids gets it in `forbidden_by`;
    /// returns those calls.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn deferred_pass(
        &self,
        config: &MatcherConfig,
        ev: &Evaluator<'_>,
        turns: Turns,
        bounds: &[Bound],
        name: &[u32],
        forbidden_by: &mut [Option<u32>],
    ) -> Vec<usize> {
        let applies: Vec<bool> = config
            .forbidden
            .iter()
            .enumerate()
            .map(|(r, f)| self.deferred[r] && applies(f, ev))
            .collect();
        let mut newly = Vec::new();
        for (i, slot) in forbidden_by.iter_mut().enumerate() {
            if slot.is_some() {
                continue;
            }
            let rule = self.rules(name[i]).find(|&r| {
                applies[r]
                    && bound(bounds, r).admits(i)
                    && holds(&config.forbidden[r], ev, turns, i)
            });
            if let Some(r) = rule {
                *slot = Some(small(r));
                newly.push(i);
            }
        }
        newly
    }
}

/// Where rule `r`'s scope starts (any call, for a rule the list does not reach).
fn bound(bounds: &[Bound], r: usize) -> Bound {
    bounds.get(r).copied().unwrap_or(Bound::Any)
}

/// Whether rule `f` forbids call `i` (its `after` bound aside): in its turn and agent, with its
/// error flag, its arguments matching.
fn holds(f: &Forbidden, ev: &Evaluator<'_>, turns: Turns, i: usize) -> bool {
    scopes::in_scope(f.scope.as_ref(), ev.calls, turns, i)
        && super::of_server(f.namespace.as_deref(), ev.calls, i)
        && f.errored.is_none_or(|e| ev.calls.is_error(i) == e)
        && f.args.as_ref().is_none_or(|a| {
            ev.with_args(i, |ev, args| ev.matcher(a, Some(args), Part::Args, i, None))
        })
}

/// Whether rule `f` applies at all: a reference of its constraints to an expectation that may
/// match nothing, and matched nothing, leaves it without the value it compares with.
fn applies(f: &Forbidden, ev: &Evaluator<'_>) -> bool {
    f.args
        .as_ref()
        .is_none_or(|m| !m.checks.iter().any(|pc| ev.holds_unapplied_ref(&pc.check)))
}
