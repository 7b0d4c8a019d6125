//! Evalite `toolCallAccuracy` (evalite 1.0.0-beta.16, `dist/scorers/tool-call-accuracy.js`).
//!
//! Input line: `{id, actualCalls[{toolName, input?}], expectedCalls[...], mode, weights,
//! threshold?}`; a call without `input` is JavaScript `undefined`, which differs from `null`.
//! `threshold` is a toolspec addition (Evalite has no pass/fail): `passed = score >= threshold`,
//! default 1.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::fast::Parser;
use super::text::{js_json, json_str, push_u64};
use super::value::{from_line, js_eq, js_strict_eq, lazy_js_eq, CowKey, Lazy, Val};
use super::{write_head, LineError, Outcome};

#[derive(serde::Deserialize)]
struct Case<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, rename = "actualCalls")]
    actual: Vec<Call<'a>>,
    #[serde(borrow, rename = "expectedCalls")]
    expected: Vec<Call<'a>>,
    #[serde(borrow, default)]
    mode: Option<Val<'a>>,
    #[serde(borrow, default)]
    weights: Option<Val<'a>>,
    #[serde(default)]
    threshold: Option<f64>,
}

/// A case's fields, from either reader.
struct Parsed<'a> {
    id: Option<&'a str>,
    actual: Vec<Call<'a>>,
    expected: Vec<Call<'a>>,
    mode: Option<Val<'a>>,
    weights: Option<Val<'a>>,
    threshold: Option<f64>,
}

impl<'a> From<Case<'a>> for Parsed<'a> {
    fn from(c: Case<'a>) -> Self {
        Parsed {
            id: c.id.map(RawValue::get),
            actual: c.actual,
            expected: c.expected,
            mode: c.mode,
            weights: c.weights,
            threshold: c.threshold,
        }
    }
}

/// The fast reader (see [`super::fast`]): `None` sends the line to serde_json. Reproduces the
/// derived `Case`: known fields at most once, both call lists required, `null` for an optional
/// field is absent, `threshold` a number.
fn fast_case(line: &str) -> Option<Parsed<'_>> {
    let mut p = Parser::new(line);
    p.eat(b'{')?;
    let mut c = Parsed {
        id: None,
        actual: Vec::new(),
        expected: Vec::new(),
        mode: None,
        weights: None,
        threshold: None,
    };
    let mut seen = [false; 6];
    loop {
        let k = p.string()?;
        p.eat(b':')?;
        let slot = match k {
            "id" => 0,
            "actualCalls" => 1,
            "expectedCalls" => 2,
            "mode" => 3,
            "weights" => 4,
            "threshold" => 5,
            _ => 6,
        };
        if slot < 6 {
            if seen[slot] {
                return None;
            }
            seen[slot] = true;
        }
        match slot {
            0 => c.id = Some(p.raw_value()?),
            1 => c.actual = fast_calls(&mut p)?,
            2 => c.expected = fast_calls(&mut p)?,
            3 => c.mode = non_null(p.value()?),
            4 => c.weights = non_null(p.value()?),
            5 => {
                c.threshold = match p.value()? {
                    Val::Null => None,
                    v => Some(v.as_f64()?),
                }
            }
            _ => {
                p.value()?;
            }
        }
        if !p.comma_or(b'}')? {
            break;
        }
    }
    (seen[1] && seen[2] && p.at_end()).then_some(c)
}

fn non_null(v: Val<'_>) -> Option<Val<'_>> {
    (v != Val::Null).then_some(v)
}

/// A list of calls read straight into [`Call`]s, as the `Call` visitor builds them (first
/// position and last value for a repeated key); `input` kept as checked raw text.
fn fast_calls<'a>(p: &mut Parser<'a>) -> Option<Vec<Call<'a>>> {
    p.eat(b'[')?;
    let mut calls = Vec::new();
    p.ws();
    if p.peek()? == b']' {
        p.eat(b']')?;
        return Some(calls);
    }
    loop {
        p.eat(b'{')?;
        let mut c = Call {
            name: None,
            input: None,
            extras: Vec::new(),
            name_pos: usize::MAX,
            input_pos: usize::MAX,
        };
        let mut n = 0;
        p.ws();
        if p.peek()? == b'}' {
            p.eat(b'}')?;
        } else {
            loop {
                let k = p.string()?;
                p.eat(b':')?;
                match k {
                    "toolName" => {
                        c.name = Some(p.value()?);
                        if c.name_pos == usize::MAX {
                            c.name_pos = n;
                            n += 1;
                        }
                    }
                    "input" => {
                        c.input = Some(Lazy::checked(p.skip_value()?));
                        if c.input_pos == usize::MAX {
                            c.input_pos = n;
                            n += 1;
                        }
                    }
                    _ => {
                        let v = p.value()?;
                        if let Some(e) = c.extras.iter_mut().find(|e| e.1 == k) {
                            e.2 = v;
                        } else {
                            if c.extras.len() == 24 {
                                return None;
                            }
                            c.extras.push((n, Cow::Borrowed(k), v));
                            n += 1;
                        }
                    }
                }
                if !p.comma_or(b'}')? {
                    break;
                }
            }
        }
        calls.push(c);
        if !p.comma_or(b']')? {
            break;
        }
    }
    Some(calls)
}

/// One call object as JavaScript sees it: `toolName` and `input` may be absent (`undefined`),
/// other keys are kept only to print the object back in the metadata.
pub(crate) struct Call<'a> {
    pub(crate) name: Option<Val<'a>>,
    pub(crate) input: Option<Lazy<'a>>,
    /// Keys other than `toolName`/`input`, with every key's first position: `(position, key,
    /// value)`; `toolName` and `input` positions in `name_pos` / `input_pos`.
    extras: Vec<(usize, Cow<'a, str>, Val<'a>)>,
    name_pos: usize,
    input_pos: usize,
}

impl<'de: 'a, 'a> Deserialize<'de> for Call<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Call<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a tool call object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Call<'a>, A::Error> {
                let mut c = Call {
                    name: None,
                    input: None,
                    extras: Vec::new(),
                    name_pos: usize::MAX,
                    input_pos: usize::MAX,
                };
                let mut n = 0;
                while let Some(CowKey(k)) = map.next_key()? {
                    match k.as_ref() {
                        "toolName" => {
                            c.name = Some(map.next_value()?);
                            if c.name_pos == usize::MAX {
                                c.name_pos = n;
                                n += 1;
                            }
                        }
                        "input" => {
                            c.input = Some(map.next_value()?);
                            if c.input_pos == usize::MAX {
                                c.input_pos = n;
                                n += 1;
                            }
                        }
                        _ => {
                            let v: Val<'a> = map.next_value()?;
                            if let Some(e) = c.extras.iter_mut().find(|e| e.1 == k) {
                                e.2 = v;
                            } else {
                                c.extras.push((n, k, v));
                                n += 1;
                            }
                        }
                    }
                }
                Ok(c)
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

impl Call<'_> {
    /// `JSON.stringify(call)`.
    fn write_js(&self, out: &mut String) {
        out.push('{');
        let total = self.extras.len()
            + usize::from(self.name.is_some())
            + usize::from(self.input.is_some());
        let mut extras = self.extras.iter();
        let mut first = true;
        for pos in 0..total {
            let (k, v): (&str, &Val<'_>) = if pos == self.name_pos {
                ("toolName", self.name.as_ref().unwrap_or(&Val::Null))
            } else if pos == self.input_pos {
                if !first {
                    out.push(',');
                }
                first = false;
                out.push_str("\"input\":");
                match &self.input {
                    Some(i) if i.is_js_canonical() => out.push_str(i.raw()),
                    Some(i) => js_json(out, i.val()),
                    None => out.push_str("null"),
                }
                continue;
            } else if let Some((_, k, v)) = extras.next() {
                (k, v)
            } else {
                continue;
            };
            if !first {
                out.push(',');
            }
            first = false;
            json_str(out, k);
            out.push(':');
            js_json(out, v);
        }
        out.push('}');
    }
}

/// JavaScript `ToNumber` of a weight (as used by `*`): `null` → 0, booleans → 0/1, strings by
/// `StringToNumber`, arrays through their string (`[]` → 0, `["2"]` → 2, `[true]` → NaN),
/// objects NaN.
fn js_to_number(v: &Val<'_>) -> f64 {
    match v {
        Val::Null => 0.0,
        Val::Bool(b) => f64::from(u8::from(*b)),
        Val::Str(s) => js_string_to_number(s),
        Val::Arr(_) => js_string_to_number(&js_to_string(v)),
        Val::Obj(_) => f64::NAN,
        _ => v.as_f64().unwrap_or(f64::NAN),
    }
}

/// `StringToNumber`: JavaScript white space trimmed, empty → 0, `Infinity` with a sign,
/// decimal literals, and unsigned `0x`/`0o`/`0b` integers; anything else NaN.
fn js_string_to_number(s: &str) -> f64 {
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
fn js_to_string(v: &Val<'_>) -> String {
    match v {
        Val::Str(s) => s.to_string(),
        Val::Null => "null".into(),
        Val::Bool(b) => b.to_string(),
        Val::Obj(_) => "[object Object]".into(),
        Val::Arr(items) => items
            .iter()
            .map(|x| match x {
                Val::Null => String::new(),
                x => js_to_string(x),
            })
            .collect::<Vec<_>>()
            .join(","),
        n => {
            let mut s = String::new();
            super::text::js_number(&mut s, n.as_f64().unwrap_or(0.0));
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

fn weights(w: Option<&Val<'_>>) -> Weights {
    let mut out = Weights {
        name_only: 0.5,
        extra_penalty: 0.25,
        wrong_penalty: 0.25,
    };
    if let Some(Val::Obj(entries)) = w {
        for (k, v) in entries {
            match k.as_ref() {
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
fn same_name(a: &Option<Val<'_>>, b: &Option<Val<'_>>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => js_strict_eq(x, y),
        _ => false,
    }
}

/// The metric: score (NaN possible with odd weights) and the metadata object, as JSON text.
pub(crate) fn evaluate<'a>(
    actual: &[Call<'a>],
    expected: &[Call<'a>],
    mode: Option<&Val<'_>>,
    w: Option<&Val<'_>>,
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
    let flexible = match mode {
        None | Some(Val::Null) => false,
        Some(Val::Str(s)) if s == "exact" => false,
        Some(Val::Str(s)) if s == "flexible" => true,
        Some(m) => return Err(format!("Invalid mode: {}", js_to_string(m))),
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
            if !same_name(&out.name, &rf.name) {
                wrong += 1;
                continue;
            }
            let exact = match (&rf.input, &out.input) {
                (None, _) => true,
                (Some(_), None) => false,
                (Some(ri), Some(oi)) => lazy_js_eq(oi, ri),
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
    flexible_mode(actual, expected, &w, d, meta)
}

fn totals(meta: &mut String, r: usize, o: usize) {
    meta.push_str(",\"totals\":{\"reference\":");
    push_u64(meta, r as u64);
    meta.push_str(",\"output\":");
    push_u64(meta, o as u64);
    meta.push('}');
}

/// `stringifyToolCall`: `JSON.stringify({toolName, input: stableSerialize(input)})`.
fn canonical_key(name: &Option<Val<'_>>, input: &Option<Lazy<'_>>) -> String {
    let mut k = String::from("{");
    let mut first = true;
    if let Some(n) = name {
        k.push_str("\"toolName\":");
        stable(&mut k, n);
        first = false;
    }
    if let Some(i) = input {
        if !first {
            k.push(',');
        }
        k.push_str("\"input\":");
        stable(&mut k, i.val());
    }
    k.push('}');
    k
}

/// `JSON.stringify(stableSerialize(v))`: object keys sorted by UTF-16 code units.
fn stable(out: &mut String, v: &Val<'_>) {
    match v {
        Val::Arr(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                stable(out, x);
            }
            out.push(']');
        }
        Val::Obj(entries) => {
            // `result[key] = ...` with key `__proto__` runs the prototype setter: no own property.
            let mut sorted: Vec<&(Cow<'_, str>, Val<'_>)> =
                entries.iter().filter(|(k, _)| k != "__proto__").collect();
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
        other => js_json(out, other),
    }
}

/// Whether a raw JSON text could spell a `__proto__` key: plainly, or with a `\u` escape of
/// one of its letters (`_`, `p`, `r`, `o`, `t`; other escapes such as `\u00e9` cannot).
fn may_spell_proto(raw: &[u8]) -> bool {
    memchr::memchr2_iter(b'_', b'\\', raw).any(|i| {
        if raw[i] == b'_' {
            raw[i..].starts_with(b"__proto__")
        } else {
            raw.get(i + 1..i + 6).is_some_and(|h| {
                h.starts_with(b"u00")
                    && matches!(
                        &h[3..],
                        b"5f" | b"5F" | b"70" | b"72" | b"6f" | b"6F" | b"74"
                    )
            })
        }
    })
}

/// Whether an input has a `__proto__` key at some depth (the tree is walked only when the raw
/// text could spell one).
fn has_proto_key(input: &Lazy<'_>) -> bool {
    fn walk(v: &Val<'_>) -> bool {
        match v {
            Val::Obj(entries) => entries.iter().any(|(k, x)| k == "__proto__" || walk(x)),
            Val::Arr(items) => items.iter().any(walk),
            _ => false,
        }
    }
    may_spell_proto(input.raw().as_bytes()) && walk(input.val())
}

/// Up to this many calls in a case, flexible mode compares values pairwise instead of hashing.
const SMALL: usize = 32;

fn flexible_mode<'a>(
    actual: &[Call<'a>],
    expected: &[Call<'a>],
    w: &Weights,
    d: f64,
    meta: &mut String,
) -> Result<f64, String> {
    // refMap: canonical key -> expected calls, keys in first-appearance order. Small cases
    // compare values directly (no key strings, no hashing); large ones hash canonical keys so
    // the cost stays linear.
    // Deep equality is the canonical keys' equality, except for `__proto__` keys, which
    // `stableSerialize` drops: inputs with one take the canonical keys.
    let small = expected.len() + actual.len() <= SMALL
        && !actual
            .iter()
            .chain(expected)
            .any(|c| c.input.as_ref().is_some_and(has_proto_key));
    let same_key = |an: &Option<Val<'_>>,
                    ai: &Option<Lazy<'_>>,
                    bn: &Option<Val<'_>>,
                    bi: &Option<Lazy<'_>>| {
        let names = match (an, bn) {
            (None, None) => true,
            (Some(x), Some(y)) => js_eq(x, y),
            _ => false,
        };
        names
            && match (ai, bi) {
                (None, None) => true,
                (Some(x), Some(y)) => lazy_js_eq(x, y),
                _ => false,
            }
    };
    let mut reps: Vec<usize> = Vec::new(); // first expected index of each group
    let mut group_of: Vec<usize> = Vec::with_capacity(expected.len());
    let mut by_key: HashMap<String, usize> = HashMap::new();
    for (i, c) in expected.iter().enumerate() {
        let found = if small {
            reps.iter().position(|&r| {
                same_key(
                    &expected[r].name,
                    &expected[r].input,
                    &c.name,
                    &expected[i].input,
                )
            })
        } else {
            by_key
                .get(&canonical_key(&c.name, &expected[i].input))
                .copied()
        };
        let g = found.unwrap_or_else(|| {
            if !small {
                by_key.insert(canonical_key(&c.name, &expected[i].input), reps.len());
            }
            reps.push(i);
            reps.len() - 1
        });
        group_of.push(g);
    }
    let mut remaining: Vec<usize> = vec![0; reps.len()];
    for &g in &group_of {
        remaining[g] += 1;
    }
    let mut matches = Vec::new();
    let mut leftovers = Vec::new();
    for (i, c) in actual.iter().enumerate() {
        let g = if small {
            reps.iter().position(|&r| {
                same_key(
                    &expected[r].name,
                    &expected[r].input,
                    &c.name,
                    &actual[i].input,
                )
            })
        } else {
            by_key
                .get(&canonical_key(&c.name, &actual[i].input))
                .copied()
        };
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
    let mut missing_calls: Vec<usize> = Vec::new();
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); reps.len()];
    for (i, &g) in group_of.iter().enumerate() {
        if members[g].len() < remaining[g] {
            members[g].push(i);
        }
    }
    for m in &members {
        missing_calls.extend_from_slice(m);
    }
    // missingByName, keyed like a JavaScript Map (SameValueZero on the names).
    let mut by_name: Vec<(Option<&Val<'_>>, usize)> = Vec::new();
    let mut name_index: HashMap<&str, usize> = HashMap::new();
    let find_name = |by_name: &Vec<(Option<&Val<'_>>, usize)>,
                     name_index: &HashMap<&str, usize>,
                     name: Option<&Val<'_>>| match name {
        Some(Val::Str(s)) if !small => name_index.get(s.as_ref()).copied(),
        _ => by_name.iter().position(|(n, _)| match (n, name) {
            (None, None) => true,
            (Some(x), Some(y)) => js_strict_eq(x, y),
            _ => false,
        }),
    };
    for &i in &missing_calls {
        let name = expected[i].name.as_ref();
        match find_name(&by_name, &name_index, name) {
            Some(s) => by_name[s].1 += 1,
            None => {
                if let (Some(Val::Str(s)), false) = (name, small) {
                    name_index.insert(s.as_ref(), by_name.len());
                }
                by_name.push((name, 1));
            }
        }
    }
    let mut name_only = Vec::new();
    let mut extras = Vec::new();
    for &i in &leftovers {
        match find_name(&by_name, &name_index, actual[i].name.as_ref()) {
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
        ("matches", &matches, true),
        ("nameOnlyMatches", &name_only, true),
        ("extras", &extras, true),
        ("missingToolCalls", &missing_calls, false),
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
            if *is_actual {
                actual[i].write_js(meta);
            } else {
                expected[i].write_js(meta);
            }
        }
        meta.push(']');
    }
    meta.push_str("}}");
    Ok(score)
}

/// Score one Evalite input line.
pub(crate) fn score<'a>(line: &'a str, out: &mut String) -> Result<Outcome, LineError<'a>> {
    score_with(line, out, true)
}

fn score_with<'a>(line: &'a str, out: &mut String, fast: bool) -> Result<Outcome, LineError<'a>> {
    thread_local! {
        // The metadata is built before the head line can be written (the score comes last);
        // reusing one buffer per thread keeps the hot path free of that allocation.
        static META: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    let case = match fast.then(|| fast_case(line)).flatten() {
        Some(c) => c,
        None => Parsed::from(from_line::<Case<'a>>(line)?),
    };
    let id = case.id.unwrap_or("null");
    META.with_borrow_mut(|meta| {
        meta.clear();
        match evaluate(
            &case.actual,
            &case.expected,
            case.mode.as_ref(),
            case.weights.as_ref(),
            meta,
        ) {
            Ok(score) => {
                let passed = score >= case.threshold.unwrap_or(1.0);
                write_head(out, id, (!score.is_nan()).then_some(score), Some(passed));
                out.push_str(",\"metadata\":");
                out.push_str(meta);
                out.push('}');
                Ok(Outcome::of(Some(passed)))
            }
            Err(message) => Err(LineError::Rejected {
                id: case.id,
                message,
            }),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufRead;

    fn both(line: &str) -> (String, String) {
        let run = |fast| {
            let mut out = String::new();
            match score_with(line, &mut out, fast) {
                Ok(_) => out,
                Err(LineError::Rejected { id, message }) => format!("{id:?} {message}"),
                Err(LineError::Malformed(m)) => m,
            }
        };
        (run(true), run(false))
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
            fast_lines += usize::from(fast_case(l).is_some());
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
    }
}
