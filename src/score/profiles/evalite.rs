//! Evalite `toolCallAccuracy` (evalite 1.0.0-beta.16, `dist/scorers/tool-call-accuracy.js`).
//!
//! Input line: `{id, actualCalls[{toolName, input?}], expectedCalls[...], mode, weights,
//! threshold?}`; a call without `input` is JavaScript `undefined`, which differs from `null`.
//! `threshold` is a toolspec addition (Evalite has no pass/fail): `passed = score >= threshold`,
//! default 1.
//!
//! Call lists that are not arrays and calls that are not objects are read as the metric's
//! JavaScript reads them ([`evaluate_js`]): through `.length`, `.map`, `for...of`, indexing and
//! property access.

use std::collections::HashMap;

use super::judge::Judge;
use super::read::{self, Raw, TapeProfile};
use super::{write_head, CaseLine, LineError, Outcome, Peer, Reader, Scratch, Work};
use crate::config::profile::{ProfileSpec, EVALITE};
use crate::json::lone;
use crate::json::read::Runtime;
use crate::json::tape::{Tape, V};
use crate::json::text::{js_json, js_number, js_number_string, json_str, push_u64};
use crate::json::value::{js_eq, js_json_eq, js_strict_eq, Val};
use crate::json::view::{Json, Kind};

/// An absent value (`undefined`).
const NONE: u32 = u32::MAX;

/// One call as JavaScript sees it: `toolName` and `input` may be absent (`undefined`,
/// [`NONE`]); the whole call is printed back in the metadata. Its values are nodes of the
/// case's tape. A call that is not an object (`1`, `"a"`, `[]`, `null`) has neither.
#[derive(Clone, Copy)]
pub(crate) struct Call {
    name: u32,
    input: u32,
    /// The call's node, printed back as it was given.
    obj: u32,
    /// Whether JavaScript finds the call falsy (`null`, `false`, `0`, `""`, `undefined`).
    falsy: bool,
    /// For one character of a string iterated as a list of calls: its bytes in the string.
    piece: Option<(u32, u32)>,
}

impl Call {
    /// `undefined`: an index past a list, a member an object list does not have.
    const UNDEFINED: Call = Call {
        name: NONE,
        input: NONE,
        obj: NONE,
        falsy: true,
        piece: None,
    };

    /// The call JavaScript reads from value `v`: an object's `toolName` and `input`, nothing
    /// from any other value.
    fn of(v: V<'_>) -> Call {
        let mut call = Call {
            name: NONE,
            input: NONE,
            obj: v.index(),
            falsy: false,
            piece: None,
        };
        // An object (the usual call) is told by its node's tag.
        if v.is_obj() {
            for (k, x) in v.members() {
                match k {
                    b"toolName" => call.name = x.index(),
                    b"input" => call.input = x.index(),
                    _ => {}
                }
            }
            return call;
        }
        match v.kind() {
            Kind::Obj => {}
            Kind::Null => call.falsy = true,
            Kind::Bool(b) => call.falsy = !b,
            Kind::Str(s) => call.falsy = s.is_empty(),
            Kind::Arr => {}
            _ => call.falsy = v.as_f64().is_some_and(|x| x == 0.0 || x.is_nan()),
        }
        call
    }

    fn name<'t>(&self, t: &'t Tape<'t>) -> Option<V<'t>> {
        (self.name != NONE).then(|| t.at(self.name))
    }

    fn input<'t>(&self, t: &'t Tape<'t>) -> Option<V<'t>> {
        (self.input != NONE).then(|| t.at(self.input))
    }

    /// `JSON.stringify` of the call object as it was given: the text of each value when that
    /// is what `JSON.stringify` prints.
    fn print(&self, t: &Tape<'_>, out: &mut String) {
        if let Some((a, b)) = self.piece {
            let s = t.at(self.obj).as_str().unwrap_or_default();
            json_str(out, s.get(a as usize..b as usize).unwrap_or_default());
            return;
        }
        let value = |out: &mut String, v: V<'_>| match v.js_canonical_raw() {
            Some(raw) => out.push_str(raw),
            None => js_json(out, v),
        };
        value(out, t.at(self.obj));
    }
}

/// A case: its calls (the actual ones first) in its tape.
pub(crate) struct Case<'t> {
    t: &'t Tape<'t>,
    calls: Vec<Call>,
    n_actual: usize,
    mode: Option<V<'t>>,
    weights: Option<V<'t>>,
    threshold: Option<f64>,
    /// The two call lists (actual, expected) when they are not both arrays of objects: read as
    /// JavaScript reads them ([`evaluate_js`]), `calls` left empty.
    shapes: Option<(V<'t>, V<'t>)>,
}

/// Reads the case from its tape as the serde reader does (both call lists required, `null` for
/// an optional field is absent, `threshold` a number), or `None` where that reader would
/// fail. The list of calls is the worker's ([`Work`]), which
/// [`Evalite::score`] gives back.
fn case_of<'t>(root: V<'t>, work: &mut Work) -> Option<Case<'t>> {
    if !root.is_obj() {
        return None;
    }
    let (mut actual, mut expected) = (None, None);
    let (mut mode, mut weights, mut threshold) = (None, None, None);
    for (k, v) in root.members() {
        match k {
            b"actualCalls" => actual = Some(v),
            b"expectedCalls" => expected = Some(v),
            b"mode" => mode = (!v.is_null()).then_some(v),
            b"weights" => weights = (!v.is_null()).then_some(v),
            b"threshold" => {
                threshold = match v.kind() {
                    Kind::Null => None,
                    _ => Some(v.as_f64()?),
                }
            }
            _ => {}
        }
    }
    let (actual, expected) = (actual?, expected?);
    let mut calls = std::mem::take(&mut work.calls);
    calls.clear();
    let read = calls_of(actual, &mut calls)
        .map(|()| calls.len())
        .and_then(|n_actual| calls_of(expected, &mut calls).map(|()| n_actual));
    let (n_actual, shapes) = if let Some(n) = read {
        (n, None)
    } else {
        calls.clear();
        (0, Some((actual, expected)))
    };
    Some(Case {
        t: root.tape(),
        calls,
        n_actual,
        mode,
        weights,
        threshold,
        shapes,
    })
}

/// The call objects of list `v` into `calls`; `None` if `v` is not a list of objects.
fn calls_of(v: V<'_>, calls: &mut Vec<Call>) -> Option<()> {
    if !v.is_arr() {
        return None;
    }
    for obj in v.items() {
        if !obj.is_obj() {
            return None;
        }
        calls.push(Call::of(obj));
    }
    Some(())
}

/// The line's shape as serde_json checks it: this reader gives the error of a line the tape
/// reader leaves to it, and the raw id of a line it then reads from a [`Val`] tape.
#[derive(serde::Deserialize)]
#[allow(dead_code)]
struct SerdeCase<'a> {
    #[serde(borrow, default)]
    id: Option<Val<'a>>,
    #[serde(borrow, rename = "actualCalls")]
    actual: Val<'a>,
    #[serde(borrow, rename = "expectedCalls")]
    expected: Val<'a>,
    #[serde(borrow, default)]
    mode: Option<Val<'a>>,
    #[serde(borrow, default)]
    weights: Option<Val<'a>>,
    #[serde(default)]
    threshold: Option<f64>,
}

/// JavaScript `ToNumber` of a weight (as used by `*`): `null` → 0, booleans → 0/1, strings by
/// `StringToNumber`, arrays through their string (`[]` → 0, `["2"]` → 2, `[true]` → NaN),
/// objects NaN.
fn js_to_number(v: V<'_>) -> f64 {
    match v.kind() {
        Kind::Null => 0.0,
        Kind::Bool(b) => f64::from(u8::from(b)),
        Kind::Str(s) => js_string_to_number(s),
        Kind::Arr => js_string_to_number(&js_to_string(v)),
        Kind::Obj => f64::NAN,
        _ => v.as_f64().unwrap_or(f64::NAN),
    }
}

/// `StringToNumber`: JavaScript white space trimmed, empty → 0, `Infinity` with a sign,
/// decimal literals, and unsigned `0x`/`0o`/`0b` integers; anything else NaN.
pub(crate) fn js_string_to_number(s: &str) -> f64 {
    let t = s.trim_matches(|c: char| {
        matches!(c, '\u{9}'..='\u{d}' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'..='\u{200a}'
            | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}')
    });
    if t.is_empty() {
        return 0.0;
    }
    let radix = match t.get(..2) {
        Some("0x" | "0X") => 16,
        Some("0o" | "0O") => 8,
        Some("0b" | "0B") => 2,
        _ => 10,
    };
    if radix != 10 {
        let digits = &t[2..];
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
            return f64::NAN;
        }
        // `as` rounds the exact integer to nearest, as JavaScript does.
        return u128::from_str_radix(digits, radix).map_or_else(
            |_| {
                digits.chars().fold(0.0, |n, c| {
                    n * f64::from(radix) + f64::from(c.to_digit(radix).unwrap_or(0))
                })
            },
            |n| n as f64,
        );
    }
    match t.strip_prefix(['+', '-']).unwrap_or(t) {
        "Infinity" if t.starts_with('-') => f64::NEG_INFINITY,
        "Infinity" => f64::INFINITY,
        // With only these characters Rust's grammar is JavaScript's (no `inf`, `nan`).
        u if u
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-')) =>
        {
            t.parse().unwrap_or(f64::NAN)
        }
        _ => f64::NAN,
    }
}

/// JavaScript `String(v)`: a template literal's rendering of an invalid `mode`, and an array
/// weight's text before `ToNumber`. Numbers print as `Number.prototype.toString` does
/// (`Infinity`, `NaN`, `-0` as `0`, exponents past 1e21 and below 1e-6); arrays join their
/// items' strings with commas, `null` items empty.
fn js_to_string(v: V<'_>) -> String {
    match v.kind() {
        Kind::Str(s) => s.to_string(),
        Kind::Null => "null".into(),
        Kind::Bool(b) => b.to_string(),
        Kind::Obj => "[object Object]".into(),
        Kind::Arr => v
            .items()
            .map(|x| {
                if x.is_null() {
                    String::new()
                } else {
                    js_to_string(x)
                }
            })
            .collect::<Vec<_>>()
            .join(","),
        _ => {
            let mut s = String::new();
            js_number_string(&mut s, v.as_f64().unwrap_or(0.0));
            s
        }
    }
}

/// `Math.max(0, Math.min(1, v))`: NaN stays NaN.
fn clamp01(v: f64) -> f64 {
    if v.is_nan() {
        v
    } else {
        v.clamp(0.0, 1.0)
    }
}

struct Weights {
    name_only: f64,
    extra_penalty: f64,
    wrong_penalty: f64,
}

fn weights(w: Option<V<'_>>) -> Weights {
    let mut out = Weights {
        name_only: 0.5,
        extra_penalty: 0.25,
        wrong_penalty: 0.25,
    };
    if let Some(w) = w {
        for (k, v) in w.entries() {
            match k {
                "nameOnly" => out.name_only = js_to_number(v),
                "extraPenalty" => out.extra_penalty = js_to_number(v),
                "wrongPenalty" => out.wrong_penalty = js_to_number(v),
                _ => {}
            }
        }
    }
    out
}

/// `undefined === undefined`, else JavaScript `===` on the names.
fn same_name(a: Option<V<'_>>, b: Option<V<'_>>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => name_eq(x, y, js_strict_eq),
        _ => false,
    }
}

/// `eq` on two names, names that are plain strings (nearly all) compared by their bytes first.
#[inline]
fn name_eq<'t>(x: V<'t>, y: V<'t>, eq: fn(V<'t>, V<'t>) -> bool) -> bool {
    x.plain_str_eq(y).unwrap_or_else(|| eq(x, y))
}

/// Whether two tool names give the same `JSON.stringify` text (`stringifyToolCall` does not
/// sort a name's keys as it sorts the input's: an object name with its keys in another order is
/// another name).
fn stringified_names_eq(x: V<'_>, y: V<'_>) -> bool {
    if !x.is_container() && !y.is_container() {
        return name_eq(x, y, js_json_eq);
    }
    let (mut a, mut b) = (String::new(), String::new());
    js_json(&mut a, x);
    js_json(&mut b, y);
    a == b
}

/// Deep equality of two values; equal texts are equal at once.
fn same_value(a: V<'_>, b: V<'_>) -> bool {
    a.same_text(b) || js_eq(a, b)
}

/// The `.length` of a call list as JavaScript reads it: an array's or an object list's count,
/// a string's UTF-16 length, an object's own `length` member (any value), or `undefined`.
#[derive(Clone, Copy)]
enum Len<'t> {
    Count(usize),
    Value(V<'t>),
    Undefined,
}

impl<'t> Len<'t> {
    fn of(v: V<'t>) -> Len<'t> {
        match v.kind() {
            Kind::Arr => Len::Count(v.items().count()),
            Kind::Str(s) => Len::Count(lone::utf16_len(s)),
            Kind::Obj => v.get("length").map_or(Len::Undefined, Len::Value),
            _ => Len::Undefined,
        }
    }

    /// `length === 0`.
    fn is_zero(self) -> bool {
        match self {
            Len::Count(n) => n == 0,
            Len::Value(v) => v.is_num() && v.as_f64() == Some(0.0),
            Len::Undefined => false,
        }
    }

    /// The number JavaScript's arithmetic takes (`ToNumber`).
    fn num(self) -> f64 {
        match self {
            Len::Count(n) => n as f64,
            Len::Value(v) => js_to_number(v),
            Len::Undefined => f64::NAN,
        }
    }

    /// `"key":value` as `JSON.stringify` writes the member (nothing for `undefined`), after a
    /// comma unless `first`; whether it wrote one.
    fn member(self, out: &mut String, key: &str, first: bool) -> bool {
        if matches!(self, Len::Undefined) {
            return false;
        }
        if !first {
            out.push(',');
        }
        out.push('"');
        out.push_str(key);
        out.push_str("\":");
        match self {
            Len::Count(n) => push_u64(out, n as u64),
            Len::Value(v) => js_json(out, v),
            Len::Undefined => {}
        }
        true
    }
}

/// `Math.max(a, b)`: NaN if either is NaN.
fn js_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

/// The lengths of the two lists: `o` the actual calls', `r` the expected calls'.
#[derive(Clone, Copy)]
struct Lens<'t> {
    o: Len<'t>,
    r: Len<'t>,
}

impl Lens<'_> {
    /// `calculateDenominator(referenceToolCalls.length)`.
    fn denominator(self) -> f64 {
        js_max(self.r.num(), 1.0)
    }
}

/// `validateToolCallArrays`: the score and metadata of the empty cases, or `None`.
fn validate(lens: Lens<'_>, meta: &mut String) -> Option<f64> {
    let (o, r) = (lens.o, lens.r);
    if r.is_zero() && o.is_zero() {
        meta.push_str("{\"note\":\"Both empty - perfect match\"}");
        return Some(1.0);
    }
    if r.is_zero() {
        meta.push_str("{\"warning\":\"Reference tool calls are empty but predictions exist\"");
        o.member(meta, "outputCount", false);
        meta.push('}');
        return Some(0.0);
    }
    if o.is_zero() {
        meta.push_str("{\"warning\":\"No tool calls found in output\"");
        r.member(meta, "referenceCount", false);
        meta.push('}');
        return Some(0.0);
    }
    None
}

/// Whether `mode` is flexible (else exact), or Evalite's error for another mode.
fn flexible(mode: Option<V<'_>>) -> Result<bool, String> {
    match mode.map(V::kind) {
        None | Some(Kind::Null) => Ok(false),
        Some(Kind::Str("exact")) => Ok(false),
        Some(Kind::Str("flexible")) => Ok(true),
        Some(_) => {
            let m = mode.map(js_to_string).unwrap_or_default();
            Err(format!("Invalid mode: {m}"))
        }
    }
}

/// The metric on two arrays of call objects: score (NaN possible with odd weights) and the
/// metadata object, as JSON text.
fn evaluate<'t>(
    t: &'t Tape<'t>,
    actual: &[Call],
    expected: &[Call],
    mode: Option<V<'t>>,
    w: Option<V<'t>>,
    lists: &mut Lists,
    meta: &mut String,
) -> Result<f64, String> {
    let lens = Lens {
        o: Len::Count(actual.len()),
        r: Len::Count(expected.len()),
    };
    if let Some(score) = validate(lens, meta) {
        return Ok(score);
    }
    let w = weights(w);
    if flexible(mode)? {
        flexible_mode(lists, t, actual, expected, &w, lens, meta)
    } else {
        Ok(exact_mode(t, actual, expected, &w, lens, meta))
    }
}

/// The metric on call lists of any shape, as its JavaScript reads them: `.length` of each
/// (`null` is a `TypeError`), then exact mode's `outputToolCalls.map` and
/// `referenceToolCalls[i]` (a string's UTF-16 units, an object's members `"0"`, `"1"`...), or
/// flexible mode's `for...of` over both (an array's items, a string's characters; a `null`
/// call is a `TypeError`).
fn evaluate_js<'t>(
    t: &'t Tape<'t>,
    (actual, expected): (V<'t>, V<'t>),
    mode: Option<V<'t>>,
    w: Option<V<'t>>,
    work: &mut Work,
) -> Result<f64, String> {
    for v in [expected, actual] {
        if v.is_null() {
            return Err("Cannot read properties of null (reading 'length')".into());
        }
    }
    let lens = Lens {
        o: Len::of(actual),
        r: Len::of(expected),
    };
    let meta = &mut work.text;
    if let Some(score) = validate(lens, meta) {
        return Ok(score);
    }
    let flexible = flexible(mode)?;
    let w = weights(w);
    let (mut outs, mut refs) = (Vec::new(), Vec::new());
    if !flexible {
        if !actual.is_arr() {
            return Err("a.map is not a function".into());
        }
        outs.extend(actual.items().map(Call::of));
        let items: Vec<V<'t>> = match expected.kind() {
            Kind::Arr => expected.items().collect(),
            _ => Vec::new(),
        };
        let units = match expected.kind() {
            Kind::Str(s) => lone::utf16_len(s),
            _ => 0,
        };
        for i in 0..outs.len() {
            refs.push(match expected.kind() {
                Kind::Arr => items.get(i).map_or(Call::UNDEFINED, |&v| Call::of(v)),
                // One UTF-16 unit: a string of length one, truthy, with no properties.
                Kind::Str(_) if i < units => Call {
                    falsy: false,
                    ..Call::UNDEFINED
                },
                Kind::Obj => expected
                    .get(&i.to_string())
                    .map_or(Call::UNDEFINED, Call::of),
                _ => Call::UNDEFINED,
            });
        }
        return Ok(exact_mode(t, &outs, &refs, &w, lens, meta));
    }
    for (v, list, name) in [
        (expected, &mut refs, "referenceToolCalls"),
        (actual, &mut outs, "outputToolCalls"),
    ] {
        match v.kind() {
            Kind::Arr => {
                for x in v.items() {
                    if x.is_null() {
                        return Err("Cannot read properties of null (reading 'toolName')".into());
                    }
                    list.push(Call::of(x));
                }
            }
            Kind::Str(s) => {
                for (at, c) in s.char_indices() {
                    list.push(Call {
                        obj: v.index(),
                        falsy: false,
                        piece: Some((at as u32, (at + c.len_utf8()) as u32)),
                        ..Call::UNDEFINED
                    });
                }
            }
            _ => return Err(format!("{name} is not iterable")),
        }
    }
    flexible_mode(&mut work.lists, t, &outs, &refs, &w, lens, meta)
}

/// Exact mode: positional pairs (`zip` over the actual calls), extra calls counted wrong
/// twice.
fn exact_mode<'t>(
    t: &'t Tape<'t>,
    actual: &[Call],
    expected: &[Call],
    w: &Weights,
    lens: Lens<'_>,
    meta: &mut String,
) -> f64 {
    let (mut e, mut n, mut wrong) = (0usize, 0usize, 0usize);
    for (i, out) in actual.iter().enumerate() {
        let Some(rf) = expected.get(i) else {
            wrong += 1;
            continue;
        };
        if out.falsy || rf.falsy || !same_name(out.name(t), rf.name(t)) {
            wrong += 1;
            continue;
        }
        let exact = match (rf.input(t), out.input(t)) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(ri), Some(oi)) => same_value(oi, ri),
        };
        if exact {
            e += 1;
        } else {
            n += 1;
        }
    }
    let wrong = wrong as f64 + js_max(0.0, lens.o.num() - lens.r.num());
    let d = lens.denominator();
    let score = clamp01((e as f64 + w.name_only * n as f64) / d - w.wrong_penalty * (wrong / d));
    meta.push_str("{\"mode\":\"exact\",\"exactMatches\":");
    push_u64(meta, e as u64);
    meta.push_str(",\"nameOnlyMatches\":");
    push_u64(meta, n as u64);
    meta.push_str(",\"wrongOrMissing\":");
    js_number(meta, wrong);
    totals(meta, lens);
    meta.push('}');
    score
}

fn totals(meta: &mut String, lens: Lens<'_>) {
    meta.push_str(",\"totals\":{");
    let wrote = lens.r.member(meta, "reference", true);
    lens.o.member(meta, "output", !wrote);
    meta.push('}');
}

/// `stringifyToolCall`: `JSON.stringify({toolName, input: stableSerialize(input)})`.
fn canonical_key(name: Option<V<'_>>, input: Option<V<'_>>) -> String {
    let mut k = String::from("{");
    let mut first = true;
    if let Some(n) = name {
        k.push_str("\"toolName\":");
        // `JSON.stringify` of the name as it is (only the input is stable-serialized).
        js_json(&mut k, n);
        first = false;
    }
    if let Some(i) = input {
        if !first {
            k.push(',');
        }
        k.push_str("\"input\":");
        stable(&mut k, i);
    }
    k.push('}');
    k
}

/// `JSON.stringify(stableSerialize(v))`: object keys sorted by UTF-16 code units.
fn stable(out: &mut String, v: V<'_>) {
    match v.kind() {
        Kind::Arr => {
            out.push('[');
            for (i, x) in v.items().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                stable(out, x);
            }
            out.push(']');
        }
        Kind::Obj => {
            // `result[key] = ...` with key `__proto__` runs the prototype setter: no own property.
            let mut sorted: Vec<(&str, V<'_>)> =
                v.entries().filter(|(k, _)| *k != "__proto__").collect();
            sorted.sort_by(|a, b| lone::utf16_cmp(a.0, b.0));
            out.push('{');
            for (i, (k, x)) in sorted.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json_str(out, k);
                out.push(':');
                stable(out, x);
            }
            out.push('}');
        }
        _ => js_json(out, v),
    }
}

/// Up to this many calls in a case, flexible mode compares values pairwise instead of hashing.
const SMALL: usize = 32;

/// The index lists of flexible mode, kept by the worker from case to case (no allocation per
/// case).
#[derive(Default)]
pub(crate) struct Lists {
    reps: Vec<usize>,
    group_of: Vec<usize>,
    remaining: Vec<usize>,
    matches: Vec<usize>,
    leftovers: Vec<usize>,
    missing_calls: Vec<usize>,
    name_only: Vec<usize>,
    extras: Vec<usize>,
    /// missingByName: a name's node and its count.
    by_name: Vec<(u32, usize)>,
}

fn flexible_mode<'t>(
    lists: &mut Lists,
    t: &'t Tape<'t>,
    actual: &[Call],
    expected: &[Call],
    w: &Weights,
    lens: Lens<'_>,
    meta: &mut String,
) -> Result<f64, String> {
    let d = lens.denominator();
    let Lists {
        reps,
        group_of,
        remaining,
        matches,
        leftovers,
        missing_calls,
        name_only,
        extras,
        by_name,
    } = lists;
    for l in [
        &mut *reps,
        &mut *group_of,
        &mut *remaining,
        &mut *matches,
        &mut *leftovers,
        &mut *missing_calls,
        &mut *name_only,
        &mut *extras,
    ] {
        l.clear();
    }
    by_name.clear();
    // refMap: canonical key -> expected calls, keys in first-appearance order. Small cases
    // compare values directly (no key strings, no hashing); large ones hash canonical keys so
    // the cost stays linear.
    // Deep equality is the canonical keys' equality, except for `__proto__` keys, which
    // `stableSerialize` drops: a case with one (anywhere in its line) takes the canonical keys.
    let small = expected.len() + actual.len() <= SMALL && !t.has_proto_key();
    let same_key = |an: Option<V<'_>>, ai: Option<V<'_>>, bn: Option<V<'_>>, bi: Option<V<'_>>| {
        let names = match (an, bn) {
            (None, None) => true,
            (Some(x), Some(y)) => stringified_names_eq(x, y),
            _ => false,
        };
        names
            && match (ai, bi) {
                (None, None) => true,
                (Some(x), Some(y)) => x.same_text(y) || js_json_eq(x, y),
                _ => false,
            }
    };
    // `reps`: the first expected index of each group.
    let mut by_key: HashMap<String, usize> = HashMap::new();
    // The group of a call's key, if there is one yet.
    let group = |reps: &[usize], by_key: &HashMap<String, usize>, c: &Call| {
        if small {
            reps.iter().position(|&r| {
                let e = &expected[r];
                same_key(e.name(t), e.input(t), c.name(t), c.input(t))
            })
        } else {
            by_key.get(&canonical_key(c.name(t), c.input(t))).copied()
        }
    };
    for (i, c) in expected.iter().enumerate() {
        let found = group(reps, &by_key, c);
        let g = found.unwrap_or_else(|| {
            if !small {
                by_key.insert(canonical_key(c.name(t), c.input(t)), reps.len());
            }
            reps.push(i);
            reps.len() - 1
        });
        group_of.push(g);
    }
    remaining.resize(reps.len(), 0);
    for &g in group_of.iter() {
        remaining[g] += 1;
    }
    for (i, c) in actual.iter().enumerate() {
        let g = group(reps, &by_key, c);
        match g {
            // `refList.pop()`: the group's last remaining call is the one consumed.
            Some(g) if remaining[g] > 0 => {
                remaining[g] -= 1;
                matches.push(i);
            }
            _ => leftovers.push(i),
        }
    }
    // The first `remaining[g]` calls of each group, groups in first-appearance order.
    if small {
        // A pass per group (at most `SMALL` of them), no list per group.
        for (g, &left) in remaining.iter().enumerate() {
            missing_calls.extend(
                group_of
                    .iter()
                    .enumerate()
                    .filter(|&(_, &h)| h == g)
                    .map(|(i, _)| i)
                    .take(left),
            );
        }
    } else {
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); reps.len()];
        for (i, &g) in group_of.iter().enumerate() {
            if members[g].len() < remaining[g] {
                members[g].push(i);
            }
        }
        for m in &members {
            missing_calls.extend_from_slice(m);
        }
    }
    // missingByName, keyed like a JavaScript Map (SameValueZero on the names): each name's
    // node (`NONE` for `undefined`) and count.
    let mut name_index: HashMap<&str, usize> = HashMap::new();
    let find_name = |by_name: &Vec<(u32, usize)>,
                     name_index: &HashMap<&str, usize>,
                     name: Option<V<'_>>| match name.and_then(V::as_str) {
        Some(s) if !small => name_index.get(s).copied(),
        _ => by_name.iter().position(|&(n, _)| match (n, name) {
            (NONE, None) => true,
            (NONE, Some(_)) | (_, None) => false,
            (x, Some(y)) => name_eq(t.at(x), y, js_strict_eq),
        }),
    };
    for &i in missing_calls.iter() {
        let name = expected[i].name(t);
        if let Some(s) = find_name(by_name, &name_index, name) {
            by_name[s].1 += 1;
        } else {
            if let (Some(s), false) = (name.and_then(V::as_str), small) {
                name_index.insert(s, by_name.len());
            }
            by_name.push((expected[i].name, 1));
        }
    }
    for &i in leftovers.iter() {
        match find_name(by_name, &name_index, actual[i].name(t)) {
            Some(s) if by_name[s].1 > 0 => {
                by_name[s].1 -= 1;
                name_only.push(i);
            }
            _ => extras.push(i),
        }
    }
    let missing: usize = by_name.iter().map(|(_, c)| c).sum();
    let (e, n, x) = (matches.len(), name_only.len(), extras.len());
    let score = clamp01((e as f64 + w.name_only * n as f64) / d - w.extra_penalty * (x as f64 / d));

    meta.push_str("{\"mode\":\"flexible\",\"exactMatches\":");
    push_u64(meta, e as u64);
    meta.push_str(",\"nameOnlyMatches\":");
    push_u64(meta, n as u64);
    meta.push_str(",\"extras\":");
    push_u64(meta, x as u64);
    meta.push_str(",\"missing\":");
    push_u64(meta, missing as u64);
    totals(meta, lens);
    meta.push_str(",\"details\":{");
    let lists: [(&str, &[usize], bool); 4] = [
        ("matches", matches, true),
        ("nameOnlyMatches", name_only, true),
        ("extras", extras, true),
        ("missingToolCalls", missing_calls, false),
    ];
    for (li, (label, idx, is_actual)) in lists.iter().enumerate() {
        if li > 0 {
            meta.push(',');
        }
        meta.push('"');
        meta.push_str(label);
        meta.push_str("\":[");
        for (j, &i) in idx.iter().enumerate() {
            if j > 0 {
                meta.push(',');
            }
            let call = if *is_actual { &actual[i] } else { &expected[i] };
            call.print(t, meta);
        }
        meta.push(']');
    }
    meta.push_str("}}");
    Ok(score)
}

/// Evalite's lines, read into a tape.
pub(crate) struct Evalite;

impl Peer for Evalite {
    const PROFILE: &'static ProfileSpec = &EVALITE;

    fn score<'a>(
        line: &'a str,
        out: &mut String,
        reader: Reader,
        scratch: &mut Scratch,
        judge: Option<&dyn Judge>,
    ) -> Result<Outcome, LineError<'a>> {
        read::score_line::<Evalite>(line, out, reader, scratch, judge)
    }
}

impl TapeProfile for Evalite {
    type Case<'t> = Case<'t>;
    const RUNTIME: Runtime = Runtime::JavaScript;
    const SHAPE: &'static str = "the case does not have Evalite's input shape";

    fn case_of<'t>(root: V<'t>, work: &mut Work) -> Option<Case<'t>> {
        case_of(root, work)
    }

    fn check<'a>(line: &CaseLine<'a>) -> Result<(), LineError<'a>> {
        line.case::<SerdeCase<'_>>().map(drop)
    }

    /// `work.text` holds the metadata, built before the head of the line can be written (the
    /// score comes first).
    fn score<'a>(
        case: Case<'_>,
        raw: &Raw<'a, '_>,
        out: &mut String,
        work: &mut Work,
        _judge: Option<&dyn Judge>,
    ) -> Result<Outcome, LineError<'a>> {
        let id = raw.get("id");
        work.text.clear();
        let (actual, expected) = case.calls.split_at(case.n_actual.min(case.calls.len()));
        let result = match case.shapes {
            None => evaluate(
                case.t,
                actual,
                expected,
                case.mode,
                case.weights,
                &mut work.lists,
                &mut work.text,
            ),
            Some(lists) => evaluate_js(case.t, lists, case.mode, case.weights, work),
        };
        work.calls = case.calls;
        let meta = &work.text;
        match result {
            Ok(score) => {
                let passed = score >= case.threshold.unwrap_or(1.0);
                write_head(
                    out,
                    id.unwrap_or("null"),
                    (!score.is_nan()).then_some(score),
                    Some(passed),
                );
                out.push_str(",\"metadata\":");
                out.push_str(meta);
                out.push('}');
                Ok(Outcome::of(Some(passed)))
            }
            Err(message) => Err(LineError::Rejected { id, message }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::profiles::{read, Reader};

    use std::io::BufRead;

    fn reads_fast(line: &str) -> bool {
        read::testing::reads_fast::<Evalite>(line)
    }

    fn run(line: &str, reader: Reader) -> String {
        read::testing::run::<Evalite>(line, reader)
    }

    fn both(line: &str) -> (String, String) {
        (run(line, Reader::Tape), run(line, Reader::Serde))
    }

    /// Numbers in Evalite's text are JavaScript's `String(number)`: an invalid `mode` in its
    /// error and an array weight read through its string. The answers are Evalite's own
    /// (1.0.0-beta.16 on node 20 through the shared oracle).
    #[test]
    fn numbers_in_text_are_javascript_strings() {
        let call = r#""actualCalls":[{"toolName":"a"}],"expectedCalls":[{"toolName":"a"}]"#;
        for (mode, want) in [
            ("1e400", "Infinity"),
            ("-1e400", "-Infinity"),
            ("[1e400,-1e400,null,-0]", "Infinity,-Infinity,,0"),
            ("-0", "0"),
            ("1e21", "1e+21"),
            ("123456789012345678901", "123456789012345680000"),
            ("1e-7", "1e-7"),
            ("0.000001", "0.000001"),
            (
                "[[1.5,[2e-7]],{},true,\"x\"]",
                "1.5,2e-7,[object Object],true,x",
            ),
            ("18446744073709551617", "18446744073709552000"),
            ("5e-324", "5e-324"),
            ("1.7976931348623157e308", "1.7976931348623157e+308"),
        ] {
            let line = format!(r#"{{"id":1,{call},"mode":{mode}}}"#);
            let want = format!(r#"Some("1") Invalid mode: {want}"#);
            for reader in [Reader::Tape, Reader::Serde] {
                assert_eq!(run(&line, reader), want, "{line}");
            }
        }
        // `weights.extraPenalty: [1e400]` is `Infinity` (score 0), `[-0]` is 0 (score 1).
        let calls = r#""actualCalls":[{"toolName":"a"},{"toolName":"b"}],"expectedCalls":[{"toolName":"a"}],"mode":"flexible""#;
        for (w, score) in [("[1e400]", "0"), ("[-0]", "1")] {
            let line = format!(r#"{{"id":1,{calls},"weights":{{"extraPenalty":{w}}}}}"#);
            let (fast, serde) = both(&line);
            assert_eq!(fast, serde);
            assert!(
                fast.starts_with(&format!(r#"{{"id":1,"score":{score},"#)),
                "{line}: {fast}"
            );
        }
    }

    /// The fast reader and serde_json give the same output on every vector and on odd lines.
    #[test]
    fn fast_reader_agrees_with_serde() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/vectors/evalite.jsonl.gz"
        );
        let file = std::fs::File::open(path).unwrap();
        let mut lines: Vec<String> = std::io::BufReader::new(flate2::read::GzDecoder::new(file))
            .lines()
            .map(Result::unwrap)
            .collect();
        let mut fast_lines = 0;
        for l in &lines {
            fast_lines += usize::from(reads_fast(l));
        }
        assert!(
            fast_lines > lines.len() / 2,
            "{fast_lines} of {}",
            lines.len()
        );
        let call = r#"{"toolName":"a","x":1,"input":{"q":1,"q":[2.5,-3]},"x":null,"toolName":"b"}"#;
        for extra in [
            format!(r#"{{"id":{{"k":[1]}},"actualCalls":[{call}],"expectedCalls":[{call}],"mode":"flexible","threshold":0.5}}"#),
            format!(r#"{{"id":1,"actualCalls":[{call}],"expectedCalls":[],"mode":null,"weights":null,"threshold":null,"z":[{{}}]}}"#),
            r#"{"id":1,"actualCalls":[],"expectedCalls":[],"id":2}"#.to_owned(),
            r#"{"id":1,"actualCalls":[1],"expectedCalls":[]}"#.to_owned(),
            r#"{"id":1,"actualCalls":[],"expectedCalls":[],"threshold":"1"}"#.to_owned(),
            r#"{"id":1,"actualCalls":[]}"#.to_owned(),
            r#"{"id":1,"actualCalls":[],"expectedCalls":[]} x"#.to_owned(),
            r#"{"id":-0,"actualCalls":[{"toolName":"a","input":1e2}],"expectedCalls":[{"toolName":"a","input":100}],"mode":"exact"}"#.to_owned(),
            r#"{"actualCalls":[{"toolName":"a","input":{"s":"\n"}}],"expectedCalls":[{"toolName":"a"}],"mode":{"m":1}}"#.to_owned(),
        ] {
            lines.push(extra);
        }
        for l in &lines {
            let (fast, slow) = both(l);
            assert_eq!(fast, slow, "{l}");
        }
        // The same lines as Python's `json.dumps` spaces them.
        for l in &lines {
            let spaced = l.replace("\":", "\": ").replace(",\"", ", \"");
            let (fast, slow) = both(&spaced);
            assert_eq!(fast, slow, "{spaced}");
        }
    }

    /// The usual lines, and what the tape reader leaves to serde_json: each gives the
    /// reference output.
    #[test]
    fn odd_lines_score_alike_with_either_reader() {
        let deep = format!("{}1{}", "[".repeat(70), "]".repeat(70));
        let c = r#"{"toolName":"a","input":{"q":"x","n":1}}"#;
        let taken = [
            format!(r#"{{"id":"x","actualCalls":[{c}],"expectedCalls":[{c}],"mode":"flexible"}}"#),
            // The lists in either order, the id last, other members skipped.
            format!(r#"{{"expectedCalls":[{c},{{"toolName":"b"}}],"z":[{{}}],"actualCalls":[{{"toolName":"b"}},{c}],"mode":"flexible","id":{{"k":[1]}}}}"#),
            format!(r#"{{"expectedCalls":[{c}],"actualCalls":[{c},{{"toolName":"b"}}],"mode":"exact","threshold":0.5}}"#),
            // Calls printed back from their members: input first, odd values, escapes, no
            // members at all.
            r#"{"actualCalls":[{"input":{"b":1,"a":[1.0,"\u00e9",1e2]},"toolName":"a"},{},{"toolName":null,"input":null}],"expectedCalls":[{"toolName":"x\ty","input":"0"}],"mode":"flexible","weights":{"extraPenalty":"0.5"}}"#.to_owned(),
            r#"{ "actualCalls" : [ { "toolName" : "a" , "input" : { "1" : 2 , "a" : 1 } } ] , "expectedCalls" : [ { "toolName" : "a" } ] , "mode" : "flexible" }"#.to_owned(),
            // A mode the metric refuses, a null threshold, null mode and weights.
            format!(r#"{{"actualCalls":[{c}],"expectedCalls":[{c}],"mode":"fuzzy","threshold":null}}"#),
            format!(r#"{{"actualCalls":[{c}],"expectedCalls":[],"mode":null,"weights":null}}"#),
            // A repeated unknown key is ignored, as serde_json ignores it.
            format!(r#"{{"z":1,"z":2,"actualCalls":[{c}],"expectedCalls":[]}}"#),
            // A number beyond 64 bits, as serde_json reads it.
            r#"{"actualCalls":[],"expectedCalls":[],"threshold":123456789012345678901234567890}"#.to_owned(),
        ];
        let left = [
            // Repeated known keys.
            format!(r#"{{"actualCalls":[{c}],"actualCalls":[],"expectedCalls":[]}}"#),
            r#"{"id":1,"id":2,"actualCalls":[],"expectedCalls":[]}"#.to_owned(),
            r#"{"actualCalls":[{"toolName":"a","toolName":"b"}],"expectedCalls":[]}"#.to_owned(),
            r#"{"actualCalls":[{"input":1,"input":2}],"expectedCalls":[]}"#.to_owned(),
            // A call with another member (printed back through its node), escaped keys.
            r#"{"actualCalls":[{"toolName":"a","x":1}],"expectedCalls":[{"toolName":"a"}],"mode":"flexible"}"#.to_owned(),
            r#"{"actualC\u0061lls":[],"expectedCalls":[]}"#.to_owned(),
            r#"{"actualCalls":[{"toolN\u0061me":"a"}],"expectedCalls":[]}"#.to_owned(),
            // Shapes the case does not have.
            r#"{"actualCalls":[]}"#.to_owned(),
            r#"{"actualCalls":null,"expectedCalls":[]}"#.to_owned(),
            r#"{"actualCalls":[1],"expectedCalls":[]}"#.to_owned(),
            r#"{"actualCalls":[],"expectedCalls":[],"threshold":"1"}"#.to_owned(),
            r"[]".to_owned(),
            // What the tape reader leaves to serde_json, in a value.
            r#"{"actualCalls":[{"toolName":"a","input":1e400}],"expectedCalls":[]}"#.to_owned(),
            r#"{"actualCalls":[{"toolName":"\ud83d\ude00"}],"expectedCalls":[]}"#.to_owned(),
            r#"{"actualCalls":[],"expectedCalls":[],"threshold":1e400}"#.to_owned(),
            format!(r#"{{"actualCalls":[{{"toolName":"a","input":{deep}}}],"expectedCalls":[]}}"#),
            // Malformed lines.
            r#"{"actualCalls":[],"expectedCalls":[]} x"#.to_owned(),
            r#"{"actualCalls":[],"expectedCalls":[],}"#.to_owned(),
            r#"{"actualCalls":[{"toolName":"a",}],"expectedCalls":[]}"#.to_owned(),
            r#"{"actualCalls":[{"toolName":"a","input":nul}],"expectedCalls":[]}"#.to_owned(),
            "{\"actualCalls\":[{\"toolName\":\"a\u{1}\"}],\"expectedCalls\":[]}".to_owned(),
            r#"{"actualCalls":[],"expectedCalls":[],"mode":"exact""#.to_owned(),
        ];
        for l in taken.iter().chain(&left) {
            let (fast, slow) = both(l);
            assert_eq!(fast, slow, "{l}");
        }
    }
}
