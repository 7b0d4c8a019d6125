//! References with an operator, and references that do not apply.
//!
//! Input: a [`Check::Ref`] whose operator is a comparison (`<`, `<=`, `>`, `>=`) or membership
//! (`in`, `not in`), the value at the constrained path, and the calls matched to the referenced
//! expectation. Output: whether the constraint holds, with a message naming both values and where
//! the captured one comes from. Nothing fails: a value that is not a number, a path that does not
//! exist, a captured value that is not a list all give a failure with a message.
//!
//! Numbers compare exactly ([`num_cmp`]). Membership uses the equality of `==` references
//! (`json_eq`): every element is hashed under that equality (numbers by value, object keys in any
//! order), so a test is one look-up whatever the list's length. A list is collected once per (referenced call,
//! part, path) and run, at most [`EACH_BOUND`] elements visiting at most [`VISIT_BOUND`] values;
//! past either, a membership the collected elements cannot settle is treated as failed and marked
//! bounded (`reference-bound-applied`).
//!
//! A reference to an expectation that may match nothing (`optional`, `at_most`, `between 0 and
//! n`), when it matched nothing, makes the constraint that uses it hold: [`not_applied`] lists
//! those constraints as `reference-not-applied` notes.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use serde_json::Value;

use super::checks::{describe, place, Evaluator, Miss, RefMode};
use super::json::{int_of, num_cmp, show, trimmed, type_name};
use super::resolve::{holds_document, step, ParseCache};
use super::text_path::{follow, Collector, Found};
use super::verdict::{Finding, Severity};
use crate::code::Code;
use crate::config::{Check, MatcherConfig, Part, Path, PathSeg, RefOp};
use crate::json::budget::Meter;

/// Elements one `[*]` reference collects from one call, at most.
pub const EACH_BOUND: usize = 10_000;

/// Values one collection visits, at most (elements without the path's tail are visited and
/// skipped: `a[*].b[*]` over a million `a`s with no `b` stops here).
pub const VISIT_BOUND: usize = 100_000;

/// Elements a failed membership names in its message.
const SAMPLE: usize = 5;

/// What reference checks of one run share: which expectations may match nothing, and the lists
/// collected so far.
pub(crate) struct RefCx {
    /// Per expectation: its minimum count is 0, or it is in an `either` branch not chosen.
    optional: Vec<bool>,
    lists: RefCell<HashMap<(usize, bool, Path), Rc<Captured>>>,
}

impl RefCx {
    /// `active`: per expectation, whether it takes part in the arrangement (not in an `either`
    /// branch left out); a missing entry takes part. `always_apply`: no reference is left
    /// unapplied (one to an expectation that matched nothing fails).
    pub(crate) fn new(config: &MatcherConfig, active: &[bool], always_apply: bool) -> RefCx {
        RefCx {
            optional: config
                .expectations
                .iter()
                .enumerate()
                .map(|(j, e)| {
                    !always_apply && (e.repeat.min == 0 || !active.get(j).copied().unwrap_or(true))
                })
                .collect(),
            lists: RefCell::default(),
        }
    }
}

/// What a membership reference finds in one call.
enum Captured {
    /// The path (up to its first `[*]`) does not exist.
    Missing,
    /// It holds this value (cut for messages), which is not an array.
    NotList(Value),
    /// The elements.
    List(Members),
}

/// A collected list, ready for membership tests.
#[derive(Default)]
struct Members {
    keys: HashSet<Key>,
    sample: Vec<Value>,
    len: usize,
    visited: usize,
    truncated: bool,
}

/// A value under `json_eq`: two values have the same key exactly when they are equal. Scalars
/// directly; arrays and objects as a canonical text (numbers by value, keys sorted).
#[derive(PartialEq, Eq, Hash)]
enum Key {
    Null,
    Bool(bool),
    Int(i128),
    Float(u64),
    Str(String),
    Composite(String),
}

/// A number by value: an integral double is the integer it denotes (as `num_eq` has it).
fn num_key(n: &serde_json::Number) -> Key {
    if let Some(i) = int_of(n) {
        return Key::Int(i);
    }
    let f = n.as_f64().unwrap_or(f64::NAN);
    if f.fract() == 0.0 && f.abs() < 1.8e19 {
        #[allow(clippy::cast_possible_truncation)] // integral and in range
        Key::Int(f as i128)
    } else {
        Key::Float(f.to_bits())
    }
}

fn key_of(v: &Value) -> Key {
    match v {
        Value::Null => Key::Null,
        Value::Bool(b) => Key::Bool(*b),
        Value::String(s) => Key::Str(s.clone()),
        Value::Number(n) => num_key(n),
        Value::Array(_) | Value::Object(_) => {
            let mut out = String::new();
            canonical(v, &mut out);
            Key::Composite(out)
        }
    }
}

/// `v` as a text that is equal for equal values: strings quoted, numbers by [`num_key`], object
/// members sorted by key.
fn canonical(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push('n'),
        Value::Bool(b) => out.push(if *b { 't' } else { 'f' }),
        Value::String(s) => out.push_str(&Value::String(s.clone()).to_string()),
        Value::Number(n) => match num_key(n) {
            Key::Int(i) => out.push_str(&format!("i{i}")),
            Key::Float(bits) => out.push_str(&format!("x{bits:x}")),
            _ => out.push('?'),
        },
        Value::Array(items) => {
            out.push('[');
            for (k, x) in items.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                canonical(x, out);
            }
            out.push(']');
        }
        Value::Object(m) => {
            let mut members: Vec<(&String, &Value)> = m.iter().collect();
            members.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (k, (key, x)) in members.into_iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                canonical(x, out);
            }
            out.push('}');
        }
    }
}

impl Members {
    fn full(&self) -> bool {
        self.len >= EACH_BOUND || self.visited >= VISIT_BOUND
    }

    fn push(&mut self, v: &Value) {
        if self.len >= EACH_BOUND {
            self.truncated = true;
            return;
        }
        self.len += 1;
        if self.sample.len() < SAMPLE {
            self.sample.push(trimmed(v));
        }
        self.keys.insert(key_of(v));
    }

    fn contains(&self, v: &Value) -> bool {
        self.keys.contains(&key_of(v))
    }

    /// `N elements: a, b, …` for messages.
    fn describe(&self) -> String {
        let items: Vec<String> = self.sample.iter().map(show).collect();
        let more = if self.len > self.sample.len() {
            ", …"
        } else {
            ""
        };
        let count = if self.truncated {
            format!("the first {} elements", self.len)
        } else if self.len == 1 {
            "1 element".to_owned()
        } else {
            format!("{} elements", self.len)
        };
        if self.len == 0 {
            "no elements".to_owned()
        } else {
            format!("{count}: {}{more}", items.join(", "))
        }
    }
}

impl Collector for Members {
    fn visit(&mut self) -> bool {
        if !self.full() {
            self.visited += 1;
            if !self.full() {
                return true;
            }
        }
        self.truncated = true;
        false
    }

    fn take(&mut self, v: &Value) {
        self.push(v);
    }
}

/// The value at `path` (no `[*]` in it) inside `v`, stepping into strings that hold JSON (read
/// along the path, within `meter`). Not through the run's
/// [`ParseCache`](super::resolve::ParseCache) entries: a list is collected once per run, and
/// the values met inside strings are temporaries, which that cache must not see.
fn resolve<'v>(v: &'v Value, path: &[PathSeg], meter: &Meter) -> Option<Cow<'v, Value>> {
    let mut cur = v;
    for (at, seg) in path.iter().enumerate() {
        cur = match cur {
            Value::String(s) => {
                return match follow(s, &path[at..], meter, None) {
                    Found::Value(x) => Some(Cow::Owned(x)),
                    _ => None,
                };
            }
            _ => step(cur, seg)?,
        };
    }
    Some(Cow::Borrowed(cur))
}

/// What a `[*]` path (`path`, the rest of it) finds in the JSON text of `s`, read as the text
/// is read: the elements go to the list as they come; at the `[*]`, something that is not a
/// list (the string itself when it is not JSON).
fn capture_text(s: &str, path: &[PathSeg], meter: &Meter) -> Captured {
    let mut out = Members::default();
    match follow(s, path, meter, Some(&mut out)) {
        Found::List => Captured::List(out),
        Found::NotList(other) => Captured::NotList(trimmed(&other)),
        Found::Missing if path.first() == Some(&PathSeg::Each) => {
            Captured::NotList(trimmed(&Value::String(s.to_owned())))
        }
        Found::Missing | Found::Value(_) | Found::Full => Captured::Missing,
    }
}

/// Collect the values at `path` (with at least one `[*]`) inside `v`; the path up to its first
/// `[*]` must exist and hold an array, else what is there instead. A string holding JSON met on
/// the way is read along the rest of the path, never built whole.
fn collect_each(v: &Value, path: &[PathSeg], meter: &Meter) -> Captured {
    let at = path
        .iter()
        .position(|s| *s == PathSeg::Each)
        .unwrap_or(path.len());
    let mut cur = v;
    for (i, seg) in path[..at].iter().enumerate() {
        cur = match cur {
            Value::String(s) => return capture_text(s, &path[i..], meter),
            _ => match step(cur, seg) {
                Some(x) => x,
                None => return Captured::Missing,
            },
        };
    }
    match cur {
        Value::String(s) if holds_document(s) => capture_text(s, &path[at..], meter),
        Value::Array(items) => {
            let mut out = Members::default();
            for x in items {
                if out.full() {
                    out.truncated = true;
                    break;
                }
                gather(x, &path[at + 1..], &mut out, meter);
            }
            Captured::List(out)
        }
        other => Captured::NotList(trimmed(other)),
    }
}

/// Every value at `path` inside `v` (each `[*]` flattened) into `out`; missing ones skipped.
fn gather(v: &Value, path: &[PathSeg], out: &mut Members, meter: &Meter) {
    out.visited += 1;
    if out.full() {
        out.truncated = true;
        return;
    }
    let Some(at) = path.iter().position(|s| *s == PathSeg::Each) else {
        if let Some(x) = resolve(v, path, meter) {
            out.push(&x);
        }
        return;
    };
    let mut cur = v;
    for (i, seg) in path[..at].iter().enumerate() {
        cur = match cur {
            Value::String(s) => {
                follow(s, &path[i..], meter, Some(out));
                return;
            }
            _ => match step(cur, seg) {
                Some(x) => x,
                None => return,
            },
        };
    }
    match cur {
        Value::String(s) if holds_document(s) => {
            follow(s, &path[at..], meter, Some(out));
        }
        Value::Array(items) => {
            for x in items {
                if out.full() {
                    out.truncated = true;
                    return;
                }
                gather(x, &path[at + 1..], out, meter);
            }
        }
        _ => {}
    }
}

/// What a membership reference finds at `path` inside `root`: without a `[*]`, the elements of
/// the array there (as `path[*]` collects them).
fn capture(root: &Value, path: &[PathSeg], meter: &Meter) -> Captured {
    if path.contains(&PathSeg::Each) {
        return collect_each(root, path, meter);
    }
    let mut each = path.to_vec();
    each.push(PathSeg::Each);
    collect_each(root, &each, meter)
}

/// The outcome of one reference check.
type Outcome = Result<(), Miss>;

impl Evaluator<'_> {
    /// Whether a reference to expectation `k` does not apply: `k` may match nothing, and the
    /// alignment gave it nothing.
    pub(crate) fn ref_not_applied(&self, k: usize) -> bool {
        match self.refs {
            RefMode::Partners(p) => {
                self.refcx.optional.get(k).copied().unwrap_or(false)
                    && p.get(k).is_none_or(Vec::is_empty)
            }
            RefMode::Optimistic | RefMode::Unavailable => false,
        }
    }

    /// Whether `c` holds a reference that does not apply (see [`Self::ref_not_applied`]).
    pub(crate) fn holds_unapplied_ref(&self, c: &Check) -> bool {
        match c {
            Check::Ref { expectation, .. } => self.ref_not_applied(*expectation),
            Check::Not { check } => self.holds_unapplied_ref(check),
            Check::AllOf { checks } | Check::AnyOf { checks } => {
                checks.iter().any(|c| self.holds_unapplied_ref(c))
            }
            _ => false,
        }
    }

    /// A comparison or membership reference: `actual` (at the constrained path of call `i`)
    /// against the value at `path` in `part` of the calls matched to expectation `k` before
    /// call `i`, the latest first; it holds when one of them satisfies it (`not in`: when none
    /// holds the value).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn check_ref_op(
        &self,
        k: usize,
        label: &str,
        part: Part,
        path: &[PathSeg],
        op: RefOp,
        actual: Option<&Value>,
        i: usize,
        detail: bool,
    ) -> Outcome {
        let Some((earlier, source)) = self.earlier_partners(k, label, part, path, i, detail)?
        else {
            return Ok(());
        };
        if op.is_membership() {
            self.membership(&earlier, part, path, op, &source, actual, detail)
        } else if op == RefOp::Contains {
            self.contains(&earlier, part, path, &source, actual, detail)
        } else {
            self.order(&earlier, part, path, op, &source, actual, detail)
        }
    }

    /// `contains ref`: the value (a string or an array) contains the value captured at `path`
    /// in one of the `earlier` calls, the latest first. A captured number or boolean is looked
    /// for as its JSON text in a string (`"Booking 4417 confirmed"` contains `4417`).
    fn contains(
        &self,
        earlier: &[usize],
        part: Part,
        path: &[PathSeg],
        source: &str,
        actual: Option<&Value>,
        detail: bool,
    ) -> Outcome {
        let msg = |f: &dyn Fn() -> String| if detail { f() } else { String::new() };
        let Some(v) = actual else {
            return Err(Miss::new(
                "ref",
                Value::Null,
                msg(&|| format!("missing; it must contain {source}")),
            ));
        };
        if !matches!(v, Value::String(_) | Value::Array(_)) {
            return Err(Miss::new(
                "ref",
                Value::Null,
                msg(&|| {
                    format!(
                        "expected a string or an array to contain {source}, got {} {}",
                        type_name(v),
                        show(v)
                    )
                }),
            ));
        }
        let mut last: Option<(usize, Value)> = None;
        for &j in earlier.iter().rev() {
            let own = ParseCache::default();
            let (root, cache) = match self.root_of(j, part) {
                Some(Cow::Borrowed(r)) => (Cow::Borrowed(r), self.cache),
                Some(owned @ Cow::Owned(_)) => (owned, &own),
                None => continue,
            };
            let Some(captured) = cache.resolve(&root, path) else {
                continue;
            };
            let holds = match (v, &*captured) {
                (Value::Array(items), c) => items.iter().any(|x| super::json::json_eq(x, c)),
                (Value::String(s), Value::String(sub)) => s.contains(sub.as_str()),
                (Value::String(s), c @ (Value::Number(_) | Value::Bool(_))) => {
                    s.contains(c.to_string().as_str())
                }
                _ => false,
            };
            if holds {
                return Ok(());
            }
            if last.is_none() {
                last = Some((j, captured.into_owned()));
            }
        }
        match last {
            None => {
                let j = earlier.last().copied().unwrap_or(0);
                Err(Miss::new(
                    "ref",
                    Value::Null,
                    msg(&|| format!("{source} does not exist in call #{}", j + 1)),
                ))
            }
            Some((j, captured)) => Err(Miss::new(
                "ref",
                trimmed(&captured),
                msg(&|| match (v, &captured) {
                    (Value::String(_), Value::Array(_) | Value::Object(_) | Value::Null) => {
                        format!(
                            "{source} is {} {} in call #{}, which a string cannot contain",
                            type_name(&captured),
                            show(&captured),
                            j + 1
                        )
                    }
                    (Value::Array(_), _) => format!(
                        "{} has no element equal to {} captured from {source} (call #{})",
                        show(v),
                        show(&captured),
                        j + 1
                    ),
                    _ => format!(
                        "{} does not contain {} captured from {source} (call #{})",
                        show(v),
                        show(&captured),
                        j + 1
                    ),
                }),
            )),
        }
    }

    /// The root of `part` of call `j`, owned when the calls hold it as text.
    fn root_of(&self, j: usize, part: Part) -> Option<Cow<'_, Value>> {
        match part {
            Part::Args => Some(self.calls.args(j)),
            Part::Output => self.calls.output(j).map(Cow::Borrowed),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn order(
        &self,
        earlier: &[usize],
        part: Part,
        path: &[PathSeg],
        op: RefOp,
        source: &str,
        actual: Option<&Value>,
        detail: bool,
    ) -> Outcome {
        let miss = |expected: Value, message: String| Err(Miss::new("ref", expected, message));
        let msg = |f: &dyn Fn() -> String| if detail { f() } else { String::new() };
        let Some(v) = actual else {
            return miss(
                Value::Null,
                msg(&|| format!("missing; it must be {} {source}", op.as_str())),
            );
        };
        let Value::Number(x) = v else {
            return miss(
                Value::Null,
                msg(&|| {
                    format!(
                        "expected a number to compare with {source} (`{}`), got {} {}",
                        op.as_str(),
                        type_name(v),
                        show(v)
                    )
                }),
            );
        };
        // The latest captured value that was found, and whether it was a number.
        let mut last: Option<(usize, Value)> = None;
        for &j in earlier.iter().rev() {
            // Arguments parsed here get a parse cache of their own, which ends with them.
            let own = ParseCache::default();
            let (root, cache) = match self.root_of(j, part) {
                Some(Cow::Borrowed(r)) => (Cow::Borrowed(r), self.cache),
                Some(owned @ Cow::Owned(_)) => (owned, &own),
                None => continue,
            };
            let Some(captured) = cache.resolve(&root, path) else {
                continue;
            };
            if let Value::Number(y) = &*captured {
                let holds = num_cmp(x, y).is_some_and(|o| match op {
                    RefOp::Lt => o.is_lt(),
                    RefOp::Le => o.is_le(),
                    RefOp::Gt => o.is_gt(),
                    RefOp::Ge => o.is_ge(),
                    RefOp::Eq | RefOp::In | RefOp::NotIn | RefOp::Contains => false,
                });
                if holds {
                    return Ok(());
                }
            }
            if last.is_none() {
                last = Some((j, captured.into_owned()));
            }
        }
        match last {
            None => {
                let j = earlier.last().copied().unwrap_or(0);
                miss(
                    Value::Null,
                    msg(&|| format!("{source} does not exist in call #{}", j + 1)),
                )
            }
            Some((j, Value::Number(y))) => {
                let rel = match num_cmp(x, &y) {
                    Some(std::cmp::Ordering::Less) => "<",
                    Some(std::cmp::Ordering::Equal) => "=",
                    _ => ">",
                };
                miss(
                    Value::Number(y.clone()),
                    msg(&|| {
                        format!(
                            "{x} {rel} {source} {y} (call #{}); the spec requires `{}`",
                            j + 1,
                            op.as_str()
                        )
                    }),
                )
            }
            Some((j, other)) => miss(
                trimmed(&other),
                msg(&|| {
                    format!(
                        "{source} is {} {} in call #{}, not a number to compare with",
                        type_name(&other),
                        show(&other),
                        j + 1
                    )
                }),
            ),
        }
    }

    /// The list a membership reference finds in call `j`, collected once per run.
    fn captured(&self, j: usize, part: Part, path: &[PathSeg]) -> Rc<Captured> {
        let key = (j, part == Part::Output, path.to_vec());
        if let Some(hit) = self.refcx.lists.borrow().get(&key) {
            return Rc::clone(hit);
        }
        let got = Rc::new(match self.root_of(j, part) {
            Some(root) => capture(&root, path, self.cache.meter()),
            None => Captured::Missing,
        });
        self.refcx.lists.borrow_mut().insert(key, Rc::clone(&got));
        got
    }

    #[allow(clippy::too_many_arguments)]
    fn membership(
        &self,
        earlier: &[usize],
        part: Part,
        path: &[PathSeg],
        op: RefOp,
        source: &str,
        actual: Option<&Value>,
        detail: bool,
    ) -> Outcome {
        let msg = |f: &dyn Fn() -> String| if detail { f() } else { String::new() };
        let Some(v) = actual else {
            // An absent value is an element of no list.
            return if op == RefOp::NotIn {
                Ok(())
            } else {
                Err(Miss::new(
                    "ref",
                    Value::Null,
                    msg(&|| format!("missing; it must be in {source}")),
                ))
            };
        };
        // The latest first, up to the first list that holds the value.
        let mut lists: Vec<(usize, Rc<Captured>)> = Vec::new();
        let mut found = None;
        for &j in earlier.iter().rev() {
            let c = self.captured(j, part, path);
            if matches!(&*c, Captured::List(m) if m.contains(v)) {
                found = Some((j, Rc::clone(&c)));
            }
            lists.push((j, c));
            if found.is_some() {
                break;
            }
        }
        let truncated = lists
            .iter()
            .any(|(_, c)| matches!(&**c, Captured::List(m) if m.truncated));
        let first_list = lists.iter().find_map(|(j, c)| match &**c {
            Captured::List(m) => Some((*j, m)),
            _ => None,
        });
        if let (RefOp::NotIn, Some((j, c))) = (op, &found) {
            let described = match &**c {
                Captured::List(m) => m.describe(),
                _ => String::new(),
            };
            return Err(Miss::new(
                "ref",
                Value::Null,
                msg(&|| {
                    format!(
                        "{} is in {source} (call #{}, {described}); it must not be",
                        show(v),
                        j + 1
                    )
                }),
            ));
        }
        if op == RefOp::In && found.is_some() || op == RefOp::NotIn && !truncated {
            return Ok(());
        }
        // Not found: a failure for `in`; for `not in`, only when collecting stopped early.
        let message = msg(&|| match first_list {
            Some((j, m)) if truncated => format!(
                "{} is not among the first {} elements collected from {source} (call #{}), \
                 where collecting stops (at most {EACH_BOUND} elements, {VISIT_BOUND} values \
                 visited); treated as failed",
                show(v),
                m.len,
                j + 1
            ),
            Some((j, m)) => format!(
                "{} is not in {source} (call #{}, {})",
                show(v),
                j + 1,
                m.describe()
            ),
            None => match lists.first().map(|(j, c)| (*j, &**c)) {
                Some((j, Captured::NotList(other))) => format!(
                    "{source} is {} {} in call #{}, not a list",
                    type_name(other),
                    show(other),
                    j + 1
                ),
                Some((j, _)) => format!("{source} does not exist in call #{}", j + 1),
                None => format!("cannot compare with {source}"),
            },
        });
        Err(Miss {
            bounded: truncated,
            ..Miss::new("ref", Value::Null, message)
        })
    }
}

/// The constraints that did not apply because a reference names an expectation that may match
/// nothing and matched nothing, one note per constraint of each expectation that matched a call
/// (at its first call).
pub(crate) fn not_applied(
    config: &MatcherConfig,
    assigned: &[Vec<usize>],
    active: &[bool],
) -> Vec<Finding> {
    let mut out = Vec::new();
    for (j, e) in config.expectations.iter().enumerate() {
        let Some(&first) = assigned.get(j).and_then(|c| c.first()) else {
            continue;
        };
        for (part, m) in std::iter::once((Part::Args, &e.args))
            .chain(e.output.as_ref().map(|o| (Part::Output, o)))
        {
            for pc in &m.checks {
                let mut labels: Vec<&str> = Vec::new();
                refs_of(&pc.check, &mut |k, label| {
                    let optional = config.expectations.get(k).is_some_and(|t| {
                        t.repeat.min == 0 || !active.get(k).copied().unwrap_or(true)
                    });
                    let empty = assigned.get(k).is_none_or(Vec::is_empty);
                    if optional && empty && !labels.contains(&label) {
                        labels.push(label);
                    }
                });
                if labels.is_empty() {
                    continue;
                }
                let named: Vec<String> = labels.iter().map(|l| format!("`{l}`")).collect();
                out.push(Finding {
                    code: Code::ReferenceNotApplied.id().into(),
                    severity: Severity::Info,
                    message: format!(
                        "{} of call #{}: \"it must {}\" did not apply, because {} matched no \
                         call (it may match none)",
                        place(part, &pc.path),
                        first + 1,
                        describe(&pc.check),
                        named.join(" and ")
                    ),
                    help: "a reference to an `optional` (or `at_most`) expectation, or to one in \
                           an `either` branch that was not chosen, holds when that expectation \
                           matched nothing; make it required (outside the `either`) if the value \
                           must be checked"
                        .into(),
                    expectation: Some(j),
                    spec_span: Some(pc.span),
                    call: Some(first),
                    // Set by the run when the verdict rests on it (`Run::new`).
                    unverified: false,
                });
            }
        }
    }
    out
}

/// Every reference inside `c`: (expectation, label).
fn refs_of<'c>(c: &'c Check, f: &mut dyn FnMut(usize, &'c str)) {
    match c {
        Check::Ref {
            expectation, label, ..
        } => f(*expectation, label),
        Check::Not { check } => refs_of(check, f),
        Check::AllOf { checks } | Check::AnyOf { checks } => {
            for c in checks {
                refs_of(c, f);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::json::json_eq;
    use serde_json::json;

    /// Keys are equal exactly when `json_eq` says the values are.
    #[test]
    fn keys_follow_json_equality() {
        let values = [
            json!(1),
            json!(1.0),
            json!(1.5),
            json!(-0.0),
            json!(0),
            json!(9_007_199_254_740_993_u64),
            json!(9_007_199_254_740_992.0),
            json!("1"),
            json!(null),
            json!(true),
            json!([1, {"a": 2, "b": [3.0]}]),
            json!([1.0, {"b": [3], "a": 2}]),
            json!([1, {"a": 2}]),
            json!({"a": "x,y"}),
            json!({"a": "x", "y": null}),
            json!([]),
            json!({}),
            json!([[]]),
        ];
        for a in &values {
            for b in &values {
                assert_eq!(key_of(a) == key_of(b), json_eq(a, b), "{a} vs {b}");
            }
        }
    }
}
