//! Evaluating an expectation's constraints on one call.
//!
//! Two speeds: [`Evaluator::satisfies`] answers yes/no and stops at the first failed constraint
//! (used for every name-compatible (expectation, call) pair); [`Evaluator::failures`] lists every
//! failed constraint with a message (used only for the calls the alignment chose).

use std::borrow::Cow;

use serde_json::Value;

use super::fuzzy::{self, Fuzzy};
use super::json::{has_type, json_eq, show, subset_diff, trimmed, type_name};
use super::refs::RefCx;
use super::resolve::{display_path, ParseCache};
use super::verdict::{Failure, FailurePart};
use super::Calls;
use crate::config::{Check, Expectation, Part, PathSeg, RefOp, ValueMatcher};

/// How reference checks are decided.
#[derive(Clone, Copy)]
pub(crate) enum RefMode<'a> {
    /// Treated as satisfied (the first alignment pass, before partners are known).
    Optimistic,
    /// Against the calls matched to each expectation (indexed by expectation).
    Partners(&'a [Vec<usize>]),
    /// There is nothing to refer to (forbidden-call matchers): reference checks fail.
    Unavailable,
}

/// Evaluates constraints against the calls of one run.
#[derive(Clone, Copy)]
pub(crate) struct Evaluator<'a> {
    pub(crate) calls: &'a dyn Calls,
    pub(crate) cache: &'a ParseCache,
    /// The run's fuzzy decisions and their work budget.
    pub(crate) fuzzy: &'a fuzzy::RunFuzzy,
    pub(crate) refs: RefMode<'a>,
    /// What reference checks of the run share (`refs.rs`).
    pub(crate) refcx: &'a RefCx,
}

/// One failed check, before it is placed at a path.
pub(crate) struct Miss {
    pub(crate) kind: &'static str,
    pub(crate) expected: Value,
    pub(crate) message: String,
    pub(crate) bounded: bool,
}

impl Miss {
    pub(crate) fn new(kind: &'static str, expected: Value, message: String) -> Self {
        Miss {
            kind,
            expected,
            message,
            bounded: false,
        }
    }
}

impl Evaluator<'_> {
    /// Whether call `i` satisfies every constraint of `e` (the name is compared elsewhere).
    pub(crate) fn satisfies(&self, e: &Expectation, i: usize) -> bool {
        self.evaluate(e, i, None)
    }

    /// Every constraint of `e` that call `i` fails.
    pub(crate) fn failures(&self, e: &Expectation, i: usize) -> Vec<Failure> {
        let mut out = Vec::new();
        self.evaluate(e, i, Some(&mut out));
        out
    }

    /// `f` with call `i`'s arguments and an evaluator whose parse cache may see them: this one
    /// when they are borrowed from the calls (they live for the run), else one with a cache of
    /// its own that ends with them (the cache is keyed by addresses, which a temporary would
    /// hand on to the next value).
    pub(crate) fn with_args<R>(&self, i: usize, f: impl FnOnce(&Evaluator<'_>, &Value) -> R) -> R {
        match self.calls.args(i) {
            Cow::Borrowed(args) => f(self, args),
            Cow::Owned(args) => {
                let cache = ParseCache::default();
                let ev = Evaluator {
                    cache: &cache,
                    ..*self
                };
                f(&ev, &args)
            }
        }
    }

    fn evaluate(&self, e: &Expectation, i: usize, out: Option<&mut Vec<Failure>>) -> bool {
        self.with_args(i, |ev, args| ev.evaluate_with(e, i, args, out))
    }

    fn evaluate_with(
        &self,
        e: &Expectation,
        i: usize,
        args: &Value,
        mut out: Option<&mut Vec<Failure>>,
    ) -> bool {
        let is_error = self.calls.is_error(i);
        let mut ok = true;
        if let Some(want) = e.errored {
            if is_error != want {
                ok = false;
                match out.as_deref_mut() {
                    None => return false,
                    Some(out) => out.push(Failure {
                        call: i,
                        part: FailurePart::Call,
                        path: String::new(),
                        check: "errored".into(),
                        expected: Value::Bool(want),
                        actual: Some(Value::Bool(is_error)),
                        message: if want {
                            "the call succeeded, but the spec expects it to fail".into()
                        } else {
                            "the call failed (the transcript marks it as an error), but the \
                             spec expects it to succeed"
                                .into()
                        },
                        spec_span: Some(e.span),
                        declared: None,
                        bounded: false,
                    }),
                }
            }
        }
        ok &= self.matcher(&e.args, Some(args), Part::Args, i, out.as_deref_mut());
        if !ok && out.is_none() {
            return false;
        }
        if let Some(m) = &e.output {
            ok &= self.matcher(m, self.calls.output(i), Part::Output, i, out);
        }
        ok
    }

    /// Whether `root` (a call's arguments or output; `None` when absent) satisfies `m`.
    pub(crate) fn matcher(
        &self,
        m: &ValueMatcher,
        root: Option<&Value>,
        part: Part,
        i: usize,
        mut out: Option<&mut Vec<Failure>>,
    ) -> bool {
        let mut ok = true;
        for pc in &m.checks {
            let actual = root.and_then(|r| self.cache.resolve(r, &pc.path));
            let detail = out.is_some();
            if let Err(miss) = self.check(&pc.check, actual.as_deref(), i, detail) {
                ok = false;
                let Some(out) = out.as_deref_mut() else {
                    return false;
                };
                let place = place(part, &pc.path);
                out.push(Failure {
                    call: i,
                    part: failure_part(part),
                    path: display_path(&pc.path),
                    check: miss.kind.into(),
                    expected: miss.expected,
                    actual: actual.as_deref().map(trimmed),
                    message: format!("{place}: {}", miss.message),
                    spec_span: Some(pc.span),
                    declared: pc.declared.clone(),
                    bounded: miss.bounded,
                });
            }
        }
        if !m.allow_extra_keys {
            if let Some(root) = root {
                let doc = self.cache.document(root);
                if let Value::Object(map) = &*doc {
                    // The keys the checks name, once (a set: K keys against K checks is
                    // O(K), not K²); a check on the whole value names every key.
                    let whole = m.checks.iter().any(|pc| pc.path.is_empty());
                    let named: std::collections::HashSet<&str> = if whole {
                        std::collections::HashSet::new()
                    } else {
                        m.checks
                            .iter()
                            .filter_map(|pc| match pc.path.first() {
                                Some(PathSeg::Key(k)) => Some(k.as_str()),
                                _ => None,
                            })
                            .collect()
                    };
                    for key in map.keys() {
                        if whole || named.contains(key.as_str()) {
                            continue;
                        }
                        ok = false;
                        let Some(out) = out.as_deref_mut() else {
                            return false;
                        };
                        let what = match part {
                            Part::Args => format!("unexpected argument `{key}`"),
                            Part::Output => format!("unexpected key `{key}` in the output"),
                        };
                        out.push(Failure {
                            call: i,
                            part: failure_part(part),
                            path: display_path(&[PathSeg::Key(key.clone())]),
                            check: "no_extra_keys".into(),
                            expected: Value::Null,
                            actual: map.get(key).map(trimmed),
                            message: format!(
                                "{what} (the spec lists every allowed key: exact mode)"
                            ),
                            spec_span: None,
                            declared: None,
                            bounded: false,
                        });
                    }
                }
            }
        }
        ok
    }

    /// Check `c` on `actual` (`None`: the path does not exist) for call `i`.
    fn check(&self, c: &Check, actual: Option<&Value>, i: usize, detail: bool) -> Result<(), Miss> {
        // Messages are only built when asked for: the fast path runs on every candidate pair.
        let msg = |f: &dyn Fn() -> String| if detail { f() } else { String::new() };
        let expected_of = |v: &Value| if detail { v.clone() } else { Value::Null };
        let spec_of = |c: &Check| {
            if detail {
                serde_json::to_value(c).unwrap_or(Value::Null)
            } else {
                Value::Null
            }
        };
        let missing = |kind: &'static str, expected: Value| {
            Miss::new(
                kind,
                expected,
                msg(&|| format!("missing; it must {}", describe(c))),
            )
        };
        match c {
            Check::Any => Ok(()),
            Check::Present => match actual {
                Some(_) => Ok(()),
                None => Err(Miss::new(
                    "present",
                    Value::Null,
                    msg(&|| "missing; it must be present".into()),
                )),
            },
            Check::Absent => match actual {
                None => Ok(()),
                Some(v) => Err(Miss::new(
                    "absent",
                    Value::Null,
                    msg(&|| format!("must be absent, found {}", show(v))),
                )),
            },
            Check::Equals { value, .. } => {
                let Some(v) = actual else {
                    return Err(missing("equals", expected_of(value)));
                };
                let v = self.as_document(v, value);
                if json_eq(&v, value) {
                    Ok(())
                } else {
                    Err(Miss::new(
                        "equals",
                        expected_of(value),
                        msg(&|| format!("{} ≠ {}", show(&v), show(value))),
                    ))
                }
            }
            Check::Subset { value, .. } => {
                let Some(v) = actual else {
                    return Err(missing("subset", expected_of(value)));
                };
                let v = self.as_document(v, value);
                match subset_diff(&v, value, detail) {
                    None => Ok(()),
                    Some((at, why)) => Err(Miss::new(
                        "subset",
                        expected_of(value),
                        msg(&|| {
                            if at.is_empty() {
                                why.clone()
                            } else {
                                format!("at {}: {why}", at.trim_start_matches('.'))
                            }
                        }),
                    )),
                }
            }
            Check::Fuzzy { value, threshold } | Check::FuzzyTokens { value, threshold } => {
                // The two measures share their bounds, budget and messages.
                let tokens = matches!(c, Check::FuzzyTokens { .. });
                let (kind, measure) = if tokens {
                    ("fuzzy_tokens", "token-set similarity")
                } else {
                    ("fuzzy", "similarity")
                };
                let expected = Value::String(value.clone());
                let Some(v) = actual else {
                    return Err(missing(kind, expected_of(&expected)));
                };
                let Value::String(s) = v else {
                    return Err(Miss::new(
                        kind,
                        expected_of(&expected),
                        msg(&|| format!("expected a string, got {} {}", type_name(v), show(v))),
                    ));
                };
                let decision = if tokens {
                    self.fuzzy.decide_tokens(s, value, *threshold)
                } else {
                    self.fuzzy.decide(s, value, *threshold)
                };
                match decision {
                    Fuzzy::Pass(_) => Ok(()),
                    Fuzzy::Fail(_) | Fuzzy::Below(_) | Fuzzy::Unlike(_) => Err(Miss::new(
                        kind,
                        expected_of(&expected),
                        msg(&|| {
                            // The exact ratio where it is known or, for a failure the lengths
                            // settled, can be computed for the explanation; else its bound.
                            let (r, exact) = match decision {
                                Fuzzy::Fail(r) => (r, true),
                                Fuzzy::Unlike(bound) => self
                                    .fuzzy
                                    .explained_ratio(s, value)
                                    .map_or((bound, false), |r| (r, true)),
                                Fuzzy::Below(r) | Fuzzy::Pass(r) | Fuzzy::Bounded(r) => (r, false),
                            };
                            format!(
                                "{measure} {}{r:.2} < {threshold:.2} (got {}, expected {})",
                                if exact { "" } else { "at most " },
                                show(v),
                                show(&expected)
                            )
                        }),
                    )),
                    Fuzzy::Bounded(bound) => Err(Miss {
                        kind,
                        expected: expected_of(&expected),
                        message: msg(&|| {
                            let (la, lb) = (s.chars().count(), value.chars().count());
                            let work = if tokens {
                                super::tokens::TokenSets::new(s, value).work()
                            } else {
                                (la as u64).saturating_mul(lb as u64)
                            };
                            let why = if work <= fuzzy::WORK_BOUND {
                                "not computed: this check's budget of exact fuzzy comparisons \
                                 is spent"
                            } else {
                                "too costly to compute exactly"
                            };
                            format!(
                                "{measure} of a {la}-character string to a {lb}-character one \
                                 is {why} (upper bound {bound:.2} ≥ {threshold:.2}); treated as \
                                 failed"
                            )
                        }),
                        bounded: true,
                    }),
                }
            }
            Check::Regex { pattern } => {
                let Some(v) = actual else {
                    return Err(missing("regex", spec_of(c)));
                };
                match v {
                    Value::String(s) if pattern.is_match(s) => Ok(()),
                    Value::String(_) => Err(Miss::new(
                        "regex",
                        spec_of(c),
                        msg(&|| format!("{} does not match /{}/", show(v), pattern.as_str())),
                    )),
                    _ => Err(Miss::new(
                        "regex",
                        spec_of(c),
                        msg(&|| format!("expected a string, got {} {}", type_name(v), show(v))),
                    )),
                }
            }
            Check::Range {
                min,
                max,
                min_exclusive,
                max_exclusive,
            } => {
                let Some(v) = actual else {
                    return Err(missing("range", spec_of(c)));
                };
                let Some(x) = v.as_f64() else {
                    return Err(Miss::new(
                        "range",
                        spec_of(c),
                        msg(&|| format!("expected a number, got {} {}", type_name(v), show(v))),
                    ));
                };
                if let Some(lo) = *min {
                    if x < lo || (*min_exclusive && x == lo) {
                        return Err(Miss::new(
                            "range",
                            spec_of(c),
                            msg(&|| {
                                if *min_exclusive {
                                    format!("{v} is not above the exclusive minimum {lo}")
                                } else {
                                    format!("{v} is below the minimum {lo}")
                                }
                            }),
                        ));
                    }
                }
                if let Some(hi) = *max {
                    if x > hi || (*max_exclusive && x == hi) {
                        return Err(Miss::new(
                            "range",
                            spec_of(c),
                            msg(&|| {
                                if *max_exclusive {
                                    format!("{v} is not below the exclusive maximum {hi}")
                                } else {
                                    format!("{v} is above the maximum {hi}")
                                }
                            }),
                        ));
                    }
                }
                Ok(())
            }
            Check::Type { types } => {
                let Some(v) = actual else {
                    return Err(missing("type", spec_of(c)));
                };
                if types.iter().any(|t| has_type(v, *t)) {
                    Ok(())
                } else {
                    Err(Miss::new(
                        "type",
                        spec_of(c),
                        msg(&|| {
                            format!(
                                "expected {}, got {} {}",
                                type_list(types),
                                type_name(v),
                                show(v)
                            )
                        }),
                    ))
                }
            }
            Check::OneOf { values } => {
                let list = Value::Array(values.clone());
                let Some(v) = actual else {
                    return Err(missing("one_of", expected_of(&list)));
                };
                if values.iter().any(|w| json_eq(v, w)) {
                    Ok(())
                } else {
                    Err(Miss::new(
                        "one_of",
                        expected_of(&list),
                        msg(&|| format!("{} is not one of {}", show(v), show(&list))),
                    ))
                }
            }
            Check::Contains { value } => {
                let Some(v) = actual else {
                    return Err(missing("contains", expected_of(value)));
                };
                let ok = match (v, value) {
                    (Value::String(s), Value::String(sub)) => s.contains(sub.as_str()),
                    (Value::Array(items), _) => items.iter().any(|x| json_eq(x, value)),
                    _ => false,
                };
                if ok {
                    Ok(())
                } else {
                    Err(Miss::new(
                        "contains",
                        expected_of(value),
                        msg(&|| match v {
                            Value::Array(_) => {
                                format!("{} has no element equal to {}", show(v), show(value))
                            }
                            Value::String(_) => {
                                format!("{} does not contain {}", show(v), show(value))
                            }
                            _ => format!(
                                "expected a string or an array, got {} {}",
                                type_name(v),
                                show(v)
                            ),
                        }),
                    ))
                }
            }
            Check::Ref { expectation, .. } if self.ref_not_applied(*expectation) => Ok(()),
            Check::Ref {
                expectation,
                label,
                part,
                path,
                op: RefOp::Eq,
            } => self.check_ref(*expectation, label, *part, path, actual, i, detail),
            Check::Ref {
                expectation,
                label,
                part,
                path,
                op,
            } => self.check_ref_op(*expectation, label, *part, path, *op, actual, i, detail),
            // A negated reference that does not apply does not apply either.
            Check::Not { check } if self.holds_unapplied_ref(check) => Ok(()),
            Check::Not { check } => match self.check(check, actual, i, false) {
                Err(_) => Ok(()),
                Ok(()) => Err(Miss::new(
                    "not",
                    spec_of(c),
                    msg(&|| match actual {
                        Some(v) => format!("{} must not {}", show(v), describe(check)),
                        None => format!("the value is absent, and it must not {}", describe(check)),
                    }),
                )),
            },
            Check::AllOf { checks } => {
                for inner in checks {
                    self.check(inner, actual, i, detail)?;
                }
                Ok(())
            }
            Check::AnyOf { checks } => {
                let mut why = Vec::new();
                for inner in checks {
                    match self.check(inner, actual, i, detail) {
                        Ok(()) => return Ok(()),
                        Err(m) if detail => why.push(m.message),
                        Err(_) => {}
                    }
                }
                Err(Miss::new(
                    "any_of",
                    spec_of(c),
                    msg(&|| {
                        // Each alternative's own message, without the value it repeats.
                        format!("no alternative holds: {}", why.join("; or "))
                    }),
                ))
            }
        }
    }

    /// `actual` parsed when it is a string holding JSON and the expectation is structured.
    fn as_document<'v>(&self, actual: &'v Value, expected: &Value) -> Cow<'v, Value> {
        if actual.is_string() && (expected.is_object() || expected.is_array()) {
            self.cache.document(actual)
        } else {
            Cow::Borrowed(actual)
        }
    }

    /// The calls matched to expectation `k` before call `i`, which a reference to it reads, and
    /// how messages name the referenced value (`label.output.path`): `Ok(None)` when references
    /// are taken as satisfied (the first pass), a miss when no earlier call was matched to `k`.
    pub(crate) fn earlier_partners(
        &self,
        k: usize,
        label: &str,
        part: Part,
        path: &[PathSeg],
        i: usize,
        detail: bool,
    ) -> Result<Option<(Vec<usize>, String)>, Miss> {
        let source = format!("{label}.{}", place(part, path));
        let fail = |expected: Value, message: &dyn Fn() -> String| {
            Err(Miss::new(
                "ref",
                expected,
                if detail { message() } else { String::new() },
            ))
        };
        let partners = match self.refs {
            RefMode::Optimistic => return Ok(None),
            RefMode::Unavailable => {
                return fail(Value::Null, &|| {
                    format!("cannot compare with {source}: no call is matched here")
                })
            }
            RefMode::Partners(p) => p.get(k).map_or(&[][..], Vec::as_slice),
        };
        let earlier: Vec<usize> = partners.iter().copied().filter(|&j| j < i).collect();
        if earlier.is_empty() {
            return match partners.first() {
                None => fail(Value::Null, &|| {
                    format!("cannot compare with {source}: `{label}` matched no call")
                }),
                Some(&j) => fail(Value::Null, &|| {
                    format!(
                        "{source} is captured from call #{}, which comes after this call",
                        j + 1
                    )
                }),
            };
        }
        Ok(Some((earlier, source)))
    }

    #[allow(clippy::too_many_arguments)]
    fn check_ref(
        &self,
        k: usize,
        label: &str,
        part: Part,
        path: &[PathSeg],
        actual: Option<&Value>,
        i: usize,
        detail: bool,
    ) -> Result<(), Miss> {
        let Some((earlier, source)) = self.earlier_partners(k, label, part, path, i, detail)?
        else {
            return Ok(());
        };
        let fail = |expected: Value, message: &dyn Fn() -> String| {
            Err(Miss::new(
                "ref",
                expected,
                if detail { message() } else { String::new() },
            ))
        };
        let mut last_seen: Option<(usize, Value)> = None;
        for &j in earlier.iter().rev() {
            // Arguments parsed here get a cache of their own, which ends with them.
            let cache = ParseCache::default();
            let (root, cache) = match part {
                Part::Args => match self.calls.args(j) {
                    Cow::Borrowed(a) => (Some(Cow::Borrowed(a)), self.cache),
                    owned @ Cow::Owned(_) => (Some(owned), &cache),
                },
                Part::Output => (self.calls.output(j).map(Cow::Borrowed), self.cache),
            };
            let Some(captured) = root.as_deref().and_then(|r| cache.resolve(r, path)) else {
                continue;
            };
            if actual.is_some_and(|v| json_eq(v, &captured)) {
                return Ok(());
            }
            if last_seen.is_none() {
                last_seen = Some((j, captured.into_owned()));
            }
        }
        match (last_seen, actual) {
            (None, _) => {
                let j = *earlier.last().unwrap_or(&0);
                fail(Value::Null, &|| {
                    format!("{source} does not exist in call #{}", j + 1)
                })
            }
            (Some((_, captured)), None) => fail(trimmed(&captured), &|| {
                format!(
                    "missing; it must equal {} captured from {source}",
                    show(&captured)
                )
            }),
            (Some((_, captured)), Some(v)) => fail(trimmed(&captured), &|| {
                format!("{} ≠ {} captured from {source}", show(v), show(&captured))
            }),
        }
    }
}

fn failure_part(part: Part) -> FailurePart {
    match part {
        Part::Args => FailurePart::Args,
        Part::Output => FailurePart::Output,
    }
}

/// Where a constraint applies, as messages start: `query`, `arguments`, `output.status`.
pub(crate) fn place(part: Part, path: &[PathSeg]) -> String {
    let p = display_path(path);
    match (part, p.is_empty()) {
        (Part::Args, true) => "arguments".into(),
        (Part::Args, false) => p,
        (Part::Output, true) => "output".into(),
        (Part::Output, false) if p.starts_with('[') => format!("output{p}"),
        (Part::Output, false) => format!("output.{p}"),
    }
}

fn type_list(types: &[crate::config::JsonType]) -> String {
    let names: Vec<String> = types
        .iter()
        .map(|t| {
            serde_json::to_value(t)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default()
        })
        .collect();
    names.join(" or ")
}

/// What a check demands, completing "it must …".
pub(crate) fn describe(c: &Check) -> String {
    match c {
        Check::Any => "be anything".into(),
        Check::Present => "be present".into(),
        Check::Absent => "be absent".into(),
        Check::Equals { value, .. } => format!("equal {}", show(value)),
        Check::Subset { value, .. } => format!("contain {}", show(value)),
        Check::Fuzzy { value, threshold } => {
            format!(
                "be similar to {} (≥ {threshold:.2})",
                show(&Value::String(value.clone()))
            )
        }
        Check::FuzzyTokens { value, threshold } => {
            format!(
                "share the words of {} (token-set similarity ≥ {threshold:.2})",
                show(&Value::String(value.clone()))
            )
        }
        Check::Regex { pattern } => format!("match /{}/", pattern.as_str()),
        Check::Range {
            min,
            max,
            min_exclusive,
            max_exclusive,
        } => {
            let lo = min.map(|m| format!("{} {m}", if *min_exclusive { ">" } else { "≥" }));
            let hi = max.map(|m| format!("{} {m}", if *max_exclusive { "<" } else { "≤" }));
            match (lo, hi) {
                (Some(l), Some(h)) => format!("be {l} and {h}"),
                (Some(l), None) => format!("be {l}"),
                (None, Some(h)) => format!("be {h}"),
                (None, None) => "be a number".into(),
            }
        }
        Check::Type { types } => format!("be {}", type_list(types)),
        Check::OneOf { values } => format!("be one of {}", show(&Value::Array(values.clone()))),
        Check::Contains { value } => format!("contain {}", show(value)),
        Check::Ref {
            label,
            part,
            path,
            op,
            ..
        } => {
            let source = format!("{label}.{}", place(*part, path));
            match op {
                RefOp::Eq => format!("equal {source}"),
                RefOp::Lt => format!("be < {source}"),
                RefOp::Le => format!("be ≤ {source}"),
                RefOp::Gt => format!("be > {source}"),
                RefOp::Ge => format!("be ≥ {source}"),
                RefOp::In => format!("be in {source}"),
                RefOp::NotIn => format!("not be in {source}"),
                RefOp::Contains => format!("contain {source}"),
            }
        }
        Check::Not { check } => format!("not {}", describe(check)),
        Check::AllOf { checks } => checks
            .iter()
            .map(describe)
            .collect::<Vec<_>>()
            .join(" and "),
        Check::AnyOf { checks } => checks.iter().map(describe).collect::<Vec<_>>().join(" or "),
    }
}
