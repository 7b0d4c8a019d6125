//! Evalite `toolCallAccuracy` (evalite 1.0.0-beta.16, `dist/scorers/tool-call-accuracy.js`).
//!
//! Input line: `{id, actualCalls[{toolName, input?}], expectedCalls[...], mode, weights,
//! threshold?}`; a call without `input` is JavaScript `undefined`, which differs from `null`.
//! `threshold` is a toolspec addition (Evalite has no pass/fail): `passed = score >= threshold`,
//! default 1.

use std::collections::HashMap;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};

use super::judge::Judge;
use super::read::{self, Raw, TapeProfile};
use super::{write_head, CaseLine, LineError, Outcome, Peer, Reader, Scratch, Work};
use crate::config::profile::{ProfileSpec, EVALITE};
use crate::json::read::Runtime;
use crate::json::tape::{Tape, V};
use crate::json::text::{js_json, json_str, push_u64};
use crate::json::value::{js_eq, js_json_eq, js_strict_eq, CowKey, Val};
use crate::json::view::{Json, Kind};

/// An absent value (`undefined`).
const NONE: u32 = u32::MAX;

/// One call object as JavaScript sees it: `toolName` and `input` may be absent (`undefined`,
/// [`NONE`]); the whole object is printed back in the metadata. Its values are nodes of the
/// case's tape.
#[derive(Clone, Copy)]
pub(crate) struct Call {
    name: u32,
    input: u32,
    /// The call object's node, printed back as it was given.
    obj: u32,
}

impl Call {
    fn name<'t>(&self, t: &'t Tape<'t>) -> Option<V<'t>> {
        (self.name != NONE).then(|| t.at(self.name))
    }

    fn input<'t>(&self, t: &'t Tape<'t>) -> Option<V<'t>> {
        (self.input != NONE).then(|| t.at(self.input))
    }

    /// `JSON.stringify` of the call object as it was given: the text of each value when that
    /// is what `JSON.stringify` prints.
    fn print(&self, t: &Tape<'_>, out: &mut String) {
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
}

/// Reads the case from its tape as the serde reader does (both call lists required, each call
/// an object, `null` for an optional field is absent, `threshold` a number), or `None` where
/// that reader would fail. The list of calls is the worker's ([`Work`]), which
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
    let Some(n_actual) = read else {
        work.calls = calls;
        return None;
    };
    Some(Case {
        t: root.tape(),
        calls,
        n_actual,
        mode,
        weights,
        threshold,
    })
}

/// The call objects of list `v` into `calls`; `None` if `v` is not a list of objects.
fn calls_of(v: V<'_>, calls: &mut Vec<Call>) -> Option<()> {
    if !matches!(v.kind(), Kind::Arr) {
        return None;
    }
    for obj in v.items() {
        if !obj.is_obj() {
            return None;
        }
        let mut call = Call {
            name: NONE,
            input: NONE,
            obj: obj.index(),
        };
        for (k, x) in obj.members() {
            match k {
                b"toolName" => call.name = x.index(),
                b"input" => call.input = x.index(),
                _ => {}
            }
        }
        calls.push(call);
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
    #[serde(rename = "actualCalls")]
    actual: Vec<SerdeCall>,
    #[serde(rename = "expectedCalls")]
    expected: Vec<SerdeCall>,
    #[serde(borrow, default)]
    mode: Option<Val<'a>>,
    #[serde(borrow, default)]
    weights: Option<Val<'a>>,
    #[serde(default)]
    threshold: Option<f64>,
}

/// A call object, checked as the metric reads it.
struct SerdeCall;

impl<'de> Deserialize<'de> for SerdeCall {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct CallVisitor;
        impl<'de> Visitor<'de> for CallVisitor {
            type Value = SerdeCall;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a tool call object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SerdeCall, A::Error> {
                while let Some(CowKey(_)) = map.next_key()? {
                    map.next_value::<Val<'_>>()?;
                }
                Ok(SerdeCall)
            }
        }
        d.deserialize_map(CallVisitor)
    }
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

/// JavaScript template-literal rendering of an invalid `mode`.
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
            crate::json::text::js_number(&mut s, v.as_f64().unwrap_or(0.0));
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

/// The metric: score (NaN possible with odd weights) and the metadata object, as JSON text.
fn evaluate<'t>(
    t: &'t Tape<'t>,
    actual: &[Call],
    expected: &[Call],
    mode: Option<V<'t>>,
    w: Option<V<'t>>,
    lists: &mut Lists,
    meta: &mut String,
) -> Result<f64, String> {
    let (o, r) = (actual.len(), expected.len());
    if r == 0 && o == 0 {
        meta.push_str("{\"note\":\"Both empty - perfect match\"}");
        return Ok(1.0);
    }
    if r == 0 {
        meta.push_str(
            "{\"warning\":\"Reference tool calls are empty but predictions exist\",\"outputCount\":",
        );
        push_u64(meta, o as u64);
        meta.push('}');
        return Ok(0.0);
    }
    if o == 0 {
        meta.push_str("{\"warning\":\"No tool calls found in output\",\"referenceCount\":");
        push_u64(meta, r as u64);
        meta.push('}');
        return Ok(0.0);
    }
    let flexible = match mode.map(V::kind) {
        None | Some(Kind::Null) => false,
        Some(Kind::Str("exact")) => false,
        Some(Kind::Str("flexible")) => true,
        Some(_) => {
            let m = mode.map(js_to_string).unwrap_or_default();
            return Err(format!("Invalid mode: {m}"));
        }
    };
    let w = weights(w);
    let d = r.max(1) as f64;
    if !flexible {
        let (mut e, mut n, mut wrong) = (0usize, 0usize, 0usize);
        for (i, out) in actual.iter().enumerate() {
            let Some(rf) = expected.get(i) else {
                wrong += 1;
                continue;
            };
            if !same_name(out.name(t), rf.name(t)) {
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
        wrong += o.saturating_sub(r);
        let score =
            clamp01((e as f64 + w.name_only * n as f64) / d - w.wrong_penalty * (wrong as f64 / d));
        meta.push_str("{\"mode\":\"exact\",\"exactMatches\":");
        push_u64(meta, e as u64);
        meta.push_str(",\"nameOnlyMatches\":");
        push_u64(meta, n as u64);
        meta.push_str(",\"wrongOrMissing\":");
        push_u64(meta, wrong as u64);
        totals(meta, r, o);
        meta.push('}');
        return Ok(score);
    }
    flexible_mode(lists, t, actual, expected, &w, d, meta)
}

fn totals(meta: &mut String, r: usize, o: usize) {
    meta.push_str(",\"totals\":{\"reference\":");
    push_u64(meta, r as u64);
    meta.push_str(",\"output\":");
    push_u64(meta, o as u64);
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
            sorted.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
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
    d: f64,
    meta: &mut String,
) -> Result<f64, String> {
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
    totals(meta, expected.len(), actual.len());
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
        let meta = &mut work.text;
        meta.clear();
        let (actual, expected) = case.calls.split_at(case.n_actual.min(case.calls.len()));
        let result = evaluate(
            case.t,
            actual,
            expected,
            case.mode,
            case.weights,
            &mut work.lists,
            meta,
        );
        work.calls = case.calls;
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
