//! Axion `ToolCorrectness` (ax-foundry/axion `axion/metrics/tool/tool_correctness.py`), at tag
//! `v0.2.2` and at HEAD `7ab96dc` (which adds `scoring` and the `[scoring] ` prefix).
//!
//! Input line: `{id, tools_called[{name, args}], expected_tools[...], options{check_parameters,
//! strict_order, parameter_matching_strategy, fuzzy_threshold, threshold, scoring}, rev}`;
//! `rev` is `v0.2.2` or `head` (default). A missing `args` is `{}`, null lists are empty.

use std::borrow::Cow;

use serde::Deserialize;

use std::cell::Cell;

use super::judge::Judge;
use super::{on_deep_stack, write_head, CaseLine, LineError, Outcome, Peer, Reader, Scratch};
use crate::config::profile::{ProfileSpec, AXION};
use crate::engine::difflib::SequenceMatcher;
use crate::json::keys;
use crate::json::lone;
use crate::json::pyset::StrSet;
use crate::json::read::Runtime;
use crate::json::text::{json_f64, json_str, py_str_list_in, PY312};
use crate::json::value::{depth, py_eq_item};
use num_bigint::{BigInt, BigUint};
use num_traits::{ToPrimitive, Zero};

/// Python `repr` as Axion's CPython 3.12 prints it.
fn py_repr(out: &mut String, v: &Val<'_>) {
    crate::json::text::py_repr_in::<&Val<'_>, PY312>(out, v);
}

/// Python `repr` of a string, as CPython 3.12 prints it.
fn py_str(out: &mut String, s: &str) {
    crate::json::text::py_str_in::<PY312>(out, s);
}

/// Python `repr` of a list of strings, as CPython 3.12 prints it.
fn py_str_list<'s>(out: &mut String, items: impl IntoIterator<Item = &'s str>) {
    py_str_list_in::<PY312>(out, items);
}
use crate::json::value::{py_eq, Val};

/// One Axion `ToolCall`: a name and an args dict.
#[derive(Deserialize)]
pub(crate) struct Tool<'a> {
    #[serde(borrow)]
    pub(crate) name: Cow<'a, str>,
    // `null` kept (`Some(Null)`): it is not a dict, as Axion's validation says; a missing
    // `args` is `{}` (the oracle's default).
    #[serde(borrow, default, deserialize_with = "present")]
    pub(crate) args: Option<Val<'a>>,
}

/// Axion's options, each `None` when absent (Axion's default applies), of any JSON type: Axion
/// does not check their types (a flag is Python truthiness, an unknown strategy is `exact`, a
/// `scoring` other than `recall` and `precision` is F1 and printed with `str()`). `null` given
/// for `fuzzy_threshold` or `scoring` is passed to Axion as `None` (`Some(Null)` here).
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct Options<'a> {
    #[serde(borrow, default)]
    pub(crate) check_parameters: Option<Val<'a>>,
    #[serde(borrow, default)]
    pub(crate) strict_order: Option<Val<'a>>,
    #[serde(borrow, default)]
    pub(crate) parameter_matching_strategy: Option<Val<'a>>,
    #[serde(borrow, default, deserialize_with = "present")]
    pub(crate) fuzzy_threshold: Option<Val<'a>>,
    #[serde(borrow, default)]
    pub(crate) threshold: Option<Val<'a>>,
    #[serde(borrow, default, deserialize_with = "present")]
    pub(crate) scoring: Option<Val<'a>>,
}

/// A member that is there, whatever its value (`null` included).
fn present<'de: 'a, 'a, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Val<'a>>, D::Error> {
    Val::deserialize(d).map(Some)
}

/// A number Python compares with a float (`bool` as 0 or 1), or the `TypeError` of `float >= v`.
fn py_comparable(v: &Val<'_>) -> Result<f64, String> {
    match v {
        Val::Bool(b) => Ok(f64::from(u8::from(*b))),
        Val::Int(i) => Ok(*i as f64),
        Val::UInt(u) => Ok(*u as f64),
        Val::Float(f) => Ok(*f),
        Val::BigInt(d) => Ok(crate::json::value::big_int_f64(d)),
        other => Err(format!(
            "TypeError: '>=' not supported between instances of 'float' and '{}'",
            other.py_type_name()
        )),
    }
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Case<'a> {
    /// Read for its shape; printed back as written ([`CaseLine::raw`]).
    #[serde(borrow, default)]
    id: Option<Val<'a>>,
    #[serde(borrow, default)]
    tools_called: Option<Vec<Tool<'a>>>,
    #[serde(borrow, default)]
    expected_tools: Option<Vec<Tool<'a>>>,
    #[serde(borrow, default)]
    options: Option<Options<'a>>,
    #[serde(borrow, default)]
    rev: Option<Cow<'a, str>>,
}

/// Which Axion code to reproduce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rev {
    /// Tag v0.2.2: recall only, no prefix.
    V022,
    /// HEAD 7ab96dc: `scoring` option, `[scoring] ` prefix in flexible mode.
    Head,
}

impl Rev {
    pub(crate) fn parse(s: Option<&str>) -> Result<Rev, String> {
        match s {
            None => Ok(Rev::Head),
            Some("v0.2.2" | "0.2.2" | "478bbb18acdcd3e96f2bc18978159de7ec71c01f") => Ok(Rev::V022),
            Some("head" | "HEAD" | "7ab96dc" | "7ab96dc90cdd0edf3416cc812811d60cf3f4af84") => {
                Ok(Rev::Head)
            }
            Some(other) => Err(format!(
                "ValueError: unknown Axion revision {other:?} (known: v0.2.2, head)"
            )),
        }
    }
}

/// Axion's result.
pub(crate) struct Verdict {
    pub(crate) score: f64,
    pub(crate) passed: bool,
    pub(crate) threshold: f64,
    /// The threshold was given as `true` (printed back as such).
    pub(crate) threshold_true: bool,
    pub(crate) explanation: String,
}

#[derive(Clone, Copy, PartialEq)]
enum Strategy {
    Exact,
    Subset,
    Fuzzy,
}

fn args_of<'v, 'a>(t: &'v Tool<'a>) -> &'v [(Cow<'a, str>, Val<'a>)] {
    match &t.args {
        Some(Val::Obj(e)) => e,
        _ => &[],
    }
}

fn empty_obj() -> Val<'static> {
    Val::Obj(Vec::new())
}

/// `subset`: every expected key is in called; dicts recurse, other values compare with `==`.
fn subset_match(called: &[(Cow<'_, str>, Val<'_>)], expected: &[(Cow<'_, str>, Val<'_>)]) -> bool {
    let called = keys::of_val(called);
    expected.iter().all(|(k, ev)| {
        let Some(cv) = called.get(k.as_bytes()) else {
            return false;
        };
        match (cv, ev) {
            (Val::Obj(c), Val::Obj(e)) => subset_match(c, e),
            _ => py_eq(cv, ev),
        }
    })
}

/// Python `type(v)` identity for the fuzzy similarity.
fn py_type(v: &Val<'_>) -> u8 {
    match v {
        Val::Null => 0,
        Val::Bool(_) => 1,
        Val::Int(_) | Val::UInt(_) | Val::BigInt(_) => 2,
        Val::Float(_) => 3,
        Val::Str(_) => 4,
        Val::Arr(_) => 5,
        Val::Obj(_) => 6,
    }
}

fn int_of(v: &Val<'_>) -> BigInt {
    match v {
        Val::Int(i) => BigInt::from(*i),
        Val::UInt(u) => BigInt::from(*u),
        Val::Bool(b) => BigInt::from(u8::from(*b)),
        Val::BigInt(d) => d.parse().unwrap_or_default(),
        _ => BigInt::default(),
    }
}

/// `n / d` for non-negative integers, correctly rounded to `f64` as Python's `int / int` is
/// (round half to even; a quotient past the double range is Python's `OverflowError`, which the
/// similarity, at most 2 here, never reaches).
fn int_true_div(n: &BigUint, d: &BigUint) -> f64 {
    if d.is_zero() {
        return f64::NAN;
    }
    if n.is_zero() {
        return 0.0;
    }
    if let (Some(a), Some(b)) = (n.to_u64(), d.to_u64()) {
        if a < (1 << 53) && b < (1 << 53) {
            return a as f64 / b as f64;
        }
    }
    // Scale so the quotient has 55 bits or more: 53 for the mantissa, a guard bit, and the
    // remainder (sticky) decides the rest.
    let shift = 55 + i64::try_from(d.bits()).unwrap_or(0) - i64::try_from(n.bits()).unwrap_or(0);
    let (num, den) = if shift >= 0 {
        (n << shift.unsigned_abs(), d.clone())
    } else {
        (n.clone(), d << shift.unsigned_abs())
    };
    let (q, r) = (&num / &den, &num % &den);
    let sticky = !r.is_zero();
    let extra = q.bits().saturating_sub(53);
    let mut mant = (&q >> extra).to_u64().unwrap_or(0);
    if extra > 0 {
        let rest = &q - (BigUint::from(mant) << extra);
        let half = BigUint::from(1u8) << (extra - 1);
        if rest > half || (rest == half && (sticky || mant & 1 == 1)) {
            mant += 1;
        }
    }
    let exp = i64::try_from(extra).unwrap_or(0) - shift;
    mant as f64 * 2f64.powi(i32::try_from(exp).unwrap_or(0))
}

/// The fuzzy work allowed for one case: the sum, over the pairs of unequal strings whose
/// `SequenceMatcher` ratio is computed, of `len(called) × len(expected)` in characters (the
/// ratio's worst-case cost). 16 000 000 is, e.g., four pairs of 2 000-character strings.
pub(crate) const FUZZY_WORK_BUDGET: u64 = 16_000_000;

/// What is left of a case's fuzzy work budget, and the pair that went past it.
pub(crate) struct Work {
    left: Cell<u64>,
    over: Cell<Option<(usize, usize)>>,
    /// Another error that ends the case (Axion's `TypeError` on a `fuzzy_threshold`).
    failed: std::cell::RefCell<Option<String>>,
}

impl Work {
    pub(crate) fn new(budget: u64) -> Work {
        Work {
            left: Cell::new(budget),
            over: Cell::new(None),
            failed: std::cell::RefCell::new(None),
        }
    }

    fn fail(&self, e: String) {
        self.failed.borrow_mut().get_or_insert(e);
    }

    /// The error line's message when the budget ran out.
    fn error(&self, budget: u64) -> Option<String> {
        if let Some(e) = self.failed.borrow_mut().take() {
            return Some(e);
        }
        let (la, lb) = self.over.get()?;
        Some(format!(
            "toolspec: fuzzy matching past its work budget: the ratio of strings of {la} and {lb} \
             characters would take this case past {budget} character pairs (the case is not scored)"
        ))
    }
}

/// `SequenceMatcher(None, a, b).ratio()` within the case's work budget. Equal strings are 1.0
/// exactly (every character matches; two empty strings are 1.0 too) at no cost.
fn ratio(a: &str, b: &str, work: &Work) -> Result<f64, ()> {
    if a == b {
        return Ok(1.0);
    }
    let (la, lb) = (a.chars().count(), b.chars().count());
    let cost = (la as u64).saturating_mul(lb as u64);
    let left = work.left.get();
    if cost > left {
        work.over.set(Some((la, lb)));
        work.left.set(0);
        return Err(());
    }
    work.left.set(left - cost);
    Ok(SequenceMatcher::new(a, b).ratio())
}

/// `_calculate_similarity(v1 = called value, v2 = expected value)`; `Err` past the work budget.
fn similarity(v1: Option<&Val<'_>>, v2: Option<&Val<'_>>, work: &Work) -> Result<f64, ()> {
    let (Some(v1), Some(v2)) = (v1, v2) else {
        return Ok(0.0);
    };
    if matches!(v1, Val::Null) || matches!(v2, Val::Null) || py_type(v1) != py_type(v2) {
        return Ok(0.0);
    }
    Ok(match (v1, v2) {
        (Val::Str(a), Val::Str(b)) => ratio(a, b, work)?,
        (Val::Float(a), Val::Float(b)) => {
            let (a, b) = (*a, *b);
            if a == 0.0 && b == 0.0 {
                1.0
            } else if a == 0.0 || b == 0.0 {
                0.0
            } else {
                1.0 - (a - b).abs() / a.abs().max(b.abs())
            }
        }
        (Val::Obj(a), Val::Obj(b)) => {
            let keyed_a = keys::of_val(a);
            let common = || {
                b.iter()
                    .filter_map(|(k, bv)| Some((keyed_a.get(k.as_bytes())?, bv)))
            };
            let n_common = common().count();
            let union = a.len() + b.len() - n_common;
            if union == 0 {
                return Ok(1.0);
            }
            let key_sim = n_common as f64 / union as f64;
            let value_sim = if n_common == 0 {
                0.0
            } else if n_common < 3 {
                // Two terms add up alike in either order.
                let mut s = 0.0;
                for (av, bv) in common() {
                    s += similarity(Some(av), Some(bv), work)?;
                }
                s / n_common as f64
            } else {
                // `for key in keys1 & keys2`: the terms in the order CPython 3.12 keeps that set
                // with `PYTHONHASHSEED=0` (float addition is not associative).
                let keyed_b = keys::of_val(b);
                let keys1 = StrSet::from_strs(a.iter().map(|(k, _)| k.as_ref()));
                let keys2 = StrSet::from_strs(b.iter().map(|(k, _)| k.as_ref()));
                let mut s = 0.0;
                for k in keys1.intersection(&keys2).iter() {
                    let (Some(av), Some(bv)) =
                        (keyed_a.get(k.as_bytes()), keyed_b.get(k.as_bytes()))
                    else {
                        continue;
                    };
                    s += similarity(Some(av), Some(bv), work)?;
                }
                s / n_common as f64
            };
            f64::midpoint(key_sim, value_sim)
        }
        (Val::Arr(_), Val::Arr(_)) => {
            if py_eq(v1, v2) {
                1.0
            } else {
                0.0
            }
        }
        _ => {
            // ints and bools (same Python type here)
            let (a, b) = (int_of(v1), int_of(v2));
            if a.is_zero() && b.is_zero() {
                1.0
            } else if a.is_zero() || b.is_zero() {
                0.0
            } else {
                let diff = (&a - &b).magnitude().clone();
                1.0 - int_true_div(&diff, a.magnitude().max(b.magnitude()))
            }
        }
    })
}

fn params_match(
    called: &[(Cow<'_, str>, Val<'_>)],
    expected: &[(Cow<'_, str>, Val<'_>)],
    strategy: Strategy,
    fuzzy_threshold: &Result<f64, String>,
    work: &Work,
) -> Result<bool, ()> {
    Ok(match strategy {
        Strategy::Exact => exact_dicts(called, expected),
        Strategy::Subset => subset_match(called, expected),
        Strategy::Fuzzy => {
            if expected.is_empty() {
                return Ok(true);
            }
            let called = keys::of_val(called);
            let mut sum = 0.0;
            for (k, ev) in expected {
                sum += similarity(called.get(k.as_bytes()), Some(ev), work)?;
            }
            match fuzzy_threshold {
                Ok(t) => sum / expected.len() as f64 >= *t,
                Err(e) => {
                    work.fail(e.clone());
                    return Err(());
                }
            }
        }
    })
}

fn exact_dicts(a: &[(Cow<'_, str>, Val<'_>)], b: &[(Cow<'_, str>, Val<'_>)]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let b = keys::of_val(b);
    a.iter()
        .all(|(k, v)| b.get(k.as_bytes()).is_some_and(|v2| py_eq_item(v, v2)))
}

/// Evaluate one case.
pub(crate) fn evaluate(
    called: &[Tool<'_>],
    expected: &[Tool<'_>],
    opts: &Options<'_>,
    rev: Rev,
) -> Result<Verdict, String> {
    for t in called.iter().chain(expected) {
        match &t.args {
            None | Some(Val::Obj(_)) => {}
            Some(_) => return Err(
                "CustomValidationError: ValidationError: args: Input should be a valid dictionary"
                    .to_owned(),
            ),
        }
    }
    if rev == Rev::V022 && opts.scoring.is_some() {
        return Err(
            "ValueError: option 'scoring' does not exist at v0.2.2 (Axion would silently ignore it)"
                .to_owned(),
        );
    }
    // `threshold or 0.5`: a falsy threshold (zero, `false`, `""`, `[]`, ...) is the default
    // (NaN is truthy); `true` is 1; a string, list or dict fails `score >= threshold`.
    let (threshold, threshold_true) = match &opts.threshold {
        Some(t) if t.py_truthy() => (py_comparable(t)?, matches!(t, Val::Bool(true))),
        _ => (0.5, false),
    };
    let flag = |v: &Option<Val<'_>>| v.as_ref().is_some_and(Val::py_truthy);
    let check = flag(&opts.check_parameters);
    let strategy = match &opts.parameter_matching_strategy {
        Some(Val::Str(s)) if s == "subset" => Strategy::Subset,
        Some(Val::Str(s)) if s == "fuzzy" => Strategy::Fuzzy,
        _ => Strategy::Exact,
    };
    let fuzzy_threshold = match &opts.fuzzy_threshold {
        None => Ok(0.8),
        Some(v) => py_comparable(v),
    };
    let work = Work::new(FUZZY_WORK_BUDGET);
    let matches = |c: &Tool<'_>, e: &Tool<'_>| {
        c.name == e.name
            && (!check || {
                let (ca, ea) = (args_of(c), args_of(e));
                // Past the budget the case ends in an error line (below), whatever this says.
                params_match(ca, ea, strategy, &fuzzy_threshold, &work).unwrap_or(false)
            })
    };
    let (score, explanation) = if expected.is_empty() && called.is_empty() {
        (
            1.0,
            "Correct: No tools were expected and none were called.".to_owned(),
        )
    } else if expected.is_empty() {
        (
            0.0,
            format!(
                "Incorrect: No tools were expected, but {} were called.",
                called.len()
            ),
        )
    } else if flag(&opts.strict_order) {
        strict(called, expected, check, &matches)
    } else {
        flexible(
            called,
            expected,
            check,
            rev,
            opts.scoring.as_ref(),
            &matches,
        )
    };
    if let Some(e) = work.error(FUZZY_WORK_BUDGET) {
        return Err(e);
    }
    Ok(Verdict {
        score,
        passed: score >= threshold,
        threshold,
        threshold_true,
        explanation,
    })
}

fn strict(
    called: &[Tool<'_>],
    expected: &[Tool<'_>],
    check: bool,
    matches: &dyn Fn(&Tool<'_>, &Tool<'_>) -> bool,
) -> (f64, String) {
    if called.len() != expected.len() {
        return (
            0.0,
            format!(
                "Tool count mismatch: expected {}, got {}",
                expected.len(),
                called.len()
            ),
        );
    }
    for (i, (c, e)) in called.iter().zip(expected).enumerate() {
        if !matches(c, e) {
            let mut s = format!(
                "Tool mismatch at position {i}: expected '{}', got '{}'",
                e.name, c.name
            );
            if check {
                s.push_str(" with args ");
                py_repr(&mut s, c.args.as_ref().unwrap_or(&empty_obj()));
            }
            return (0.0, s);
        }
    }
    (
        1.0,
        format!("All {} tools called correctly in order.", expected.len()),
    )
}

fn flexible(
    called: &[Tool<'_>],
    expected: &[Tool<'_>],
    check: bool,
    rev: Rev,
    scoring: Option<&Val<'_>>,
    matches: &dyn Fn(&Tool<'_>, &Tool<'_>) -> bool,
) -> (f64, String) {
    let mut remaining: Vec<usize> = (0..called.len()).collect();
    let mut matched: Vec<usize> = Vec::new();
    let mut missing: Vec<usize> = Vec::new();
    for (ei, e) in expected.iter().enumerate() {
        match remaining.iter().position(|&ci| matches(&called[ci], e)) {
            Some(pos) => {
                matched.push(ei);
                remaining.remove(pos);
            }
            None => missing.push(ei),
        }
    }
    let (m, ne, nc) = (
        matched.len() as f64,
        expected.len() as f64,
        called.len() as f64,
    );
    let recall = m / ne;
    let precision = if called.is_empty() { 1.0 } else { m / nc };
    // `str(scoring)`: a string as it is, anything else as Python prints it.
    let scoring: Cow<'_, str> = match scoring {
        None => "recall".into(),
        Some(Val::Str(s)) => s.as_ref().into(),
        Some(other) => {
            let mut s = String::new();
            py_repr(&mut s, other);
            s.into()
        }
    };
    let score = match (rev, scoring.as_ref()) {
        (Rev::V022, _) | (Rev::Head, "recall") => recall,
        (Rev::Head, "precision") => precision,
        _ => {
            if recall == 0.0 || precision == 0.0 {
                0.0
            } else {
                2.0 * precision * recall / (precision + recall)
            }
        }
    };
    let mut parts: Vec<String> = Vec::new();
    if !matched.is_empty() {
        let mut s = String::from("Correctly called: ");
        py_str_list(&mut s, matched.iter().map(|&i| expected[i].name.as_ref()));
        parts.push(s);
    }
    if !missing.is_empty() {
        if check {
            let items: Vec<String> = missing
                .iter()
                .map(|&i| {
                    let e = &expected[i];
                    let mut s = format!("{}(", e.name);
                    py_repr(&mut s, e.args.as_ref().unwrap_or(&empty_obj()));
                    s.push(')');
                    s
                })
                .collect();
            let mut s = String::from("Missing/incorrect calls: [");
            for (i, it) in items.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                py_str(&mut s, it);
            }
            s.push(']');
            parts.push(s);
        } else {
            let mut s = String::from("Missing tools: ");
            py_str_list(&mut s, missing.iter().map(|&i| expected[i].name.as_ref()));
            parts.push(s);
        }
    }
    if !remaining.is_empty() {
        let mut s = String::from("Unexpected tools: ");
        py_str_list(&mut s, remaining.iter().map(|&i| called[i].name.as_ref()));
        parts.push(s);
    }
    let body = if parts.is_empty() {
        "All expected tools were called correctly.".to_owned()
    } else {
        parts.join("; ")
    };
    let explanation = match rev {
        Rev::V022 => body,
        Rev::Head => format!("[{scoring}] {body}"),
    };
    (score, explanation)
}

/// pydantic's refusal to serialize a string that holds a lone surrogate (Axion serializes every
/// tool's name and args, the args' own keys aside, and the result's explanation).
fn surrogate_error(s: &str) -> Option<String> {
    if !lone::maybe(s) {
        return None;
    }
    let (pos, unit) = s
        .chars()
        .enumerate()
        .find_map(|(i, c)| lone::unit_of(c).map(|u| (i, u)))?;
    Some(format!(
        "PydanticSerializationError: Error serializing to JSON: UnicodeEncodeError: 'utf-8' \
         codec can't encode character '\\u{unit:04x}' in position {pos}: surrogates not allowed"
    ))
}

/// [`surrogate_error`] of the first string in tool args `args`: the values, and the keys of
/// the dicts inside them (pydantic writes the keys of the args dict itself without the check).
fn surrogate_in_args(args: &Val<'_>) -> Option<String> {
    // Strings to check (`Ok`: a key) and values to walk (`Err`), in the order pydantic writes
    // them.
    let mut stack: Vec<Result<&str, &Val<'_>>> = match args {
        Val::Obj(members) => members.iter().rev().map(|(_, x)| Err(x)).collect(),
        other => vec![Err(other)],
    };
    while let Some(item) = stack.pop() {
        match item {
            Ok(s) => {
                if let Some(e) = surrogate_error(s) {
                    return Some(e);
                }
            }
            Err(Val::Str(s)) => {
                if let Some(e) = surrogate_error(s) {
                    return Some(e);
                }
            }
            Err(Val::Arr(items)) => stack.extend(items.iter().rev().map(Err)),
            Err(Val::Obj(members)) => {
                for (k, x) in members.iter().rev() {
                    stack.push(Err(x));
                    stack.push(Ok(k));
                }
            }
            Err(_) => {}
        }
    }
    None
}

/// Axion's own refusal of a case whose tool args nest past what pydantic serializes, or whose
/// tool names or args values hold a lone surrogate.
fn unreproducible(called: &[Tool<'_>], expected: &[Tool<'_>]) -> Option<String> {
    for t in called.iter().chain(expected) {
        if let Some(e) = surrogate_error(&t.name) {
            return Some(e);
        }
        if let Some(e) = t.args.as_ref().and_then(surrogate_in_args) {
            return Some(e);
        }
    }
    // Axion serializes every tool's args with pydantic, whose recursion guard stops at 255
    // nested containers.
    if called
        .iter()
        .chain(expected)
        .any(|t| t.args.as_ref().is_some_and(|a| depth(a) >= PYDANTIC_DEPTH))
    {
        return Some(
            "PydanticSerializationError: Error serializing to JSON: ValueError: Maximum \
             serialization depth exceeded"
                .to_owned(),
        );
    }
    None
}

/// The nesting of a tool's `args` (the dict itself included) at which pydantic's serializer
/// refuses them.
const PYDANTIC_DEPTH: usize = 255;

/// The Axion peer.
pub(crate) struct Axion;

impl Peer for Axion {
    const PROFILE: &'static ProfileSpec = &AXION;

    fn score<'a>(
        line: &'a str,
        out: &mut String,
        _reader: Reader,
        _scratch: &mut Scratch,
        _judge: Option<&dyn Judge>,
    ) -> Result<Outcome, LineError<'a>> {
        score(line, out)
    }
}

/// Score one Axion input line.
pub(crate) fn score<'a>(line: &'a str, out: &mut String) -> Result<Outcome, LineError<'a>> {
    let c = CaseLine::read(line, RUNTIME)?;
    on_deep_stack(c.shape.depth, || score_case(&c, out))
}

/// How the peer's runtime reads a line.
const RUNTIME: Runtime = Runtime::PY312;

/// Score the case of a line read by the peer's runtime.
fn score_case<'a>(c: &CaseLine<'a>, out: &mut String) -> Result<Outcome, LineError<'a>> {
    let case: Case<'_> = c.case()?;
    let id = c.raw("id");
    let rejected = |message: String| LineError::Rejected { id, message };
    let rev = Rev::parse(case.rev.as_deref()).map_err(rejected)?;
    let opts = case.options.unwrap_or_default();
    let called = case.tools_called.unwrap_or_default();
    let expected = case.expected_tools.unwrap_or_default();
    if let Some(message) = unreproducible(&called, &expected) {
        return Err(rejected(message));
    }
    let v = evaluate(&called, &expected, &opts, rev)
        .map_err(|message| LineError::Rejected { id, message })?;
    // The explanation holds a raw string only through `scoring`'s prefix.
    if let Some(message) = surrogate_error(&v.explanation) {
        return Err(rejected(message));
    }
    write_head(out, id.unwrap_or("null"), Some(v.score), Some(v.passed));
    out.push_str(",\"explanation\":");
    json_str(out, &v.explanation);
    out.push_str(",\"threshold\":");
    if v.threshold_true {
        out.push_str("true");
    } else {
        json_f64(out, v.threshold);
    }
    out.push_str(",\"rev\":");
    out.push_str(match rev {
        Rev::V022 => "\"v0.2.2\"",
        Rev::Head => "\"head\"",
    });
    out.push('}');
    Ok(Outcome::of(Some(v.passed)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_division_is_correctly_rounded() {
        let div = |n: u128, d: u128| int_true_div(&BigUint::from(n), &BigUint::from(d));
        assert_eq!(div(1, 3), 1.0 / 3.0);
        // 2^60+1 over 2^61: exactly 0.5 + 2^-61, rounds to 0.5 (ties and below-half go down).
        assert_eq!(div((1 << 60) + 1, 1 << 61), 0.5);
        let n: u128 = 9_007_199_254_740_993; // 2^53 + 1
        assert_eq!(div(n, 3), 3_002_399_751_580_331.0);
        assert_eq!(
            div(18_446_744_073_709_551_615, 18_446_744_073_709_551_615),
            1.0
        );
        // Python: 1 / (2**64 + 1) and (2**64 + 1) / (2**65 + 3).
        let big = |s: &str| s.parse::<BigUint>().unwrap();
        assert_eq!(
            int_true_div(&big("1"), &big("18446744073709551617")),
            5.421010862427522e-20
        );
        assert_eq!(
            int_true_div(&big("18446744073709551617"), &big("36893488147419103235")),
            0.5
        );
    }

    #[test]
    fn fuzzy_similarity_is_type_strict() {
        fn v(s: &str) -> Val<'_> {
            serde_json::from_str(s).unwrap()
        }
        let w = Work::new(FUZZY_WORK_BUDGET);
        let sim = |a: &str, b: &str| similarity(Some(&v(a)), Some(&v(b)), &w).unwrap();
        assert_eq!(sim("5", "5.0"), 0.0);
        assert_eq!(sim("null", "null"), 0.0);
        assert_eq!(sim("-5", "5"), -1.0);
        assert_eq!(sim("true", "true"), 1.0);
        assert_eq!(sim("[1]", "[1.0]"), 1.0);
    }
}
