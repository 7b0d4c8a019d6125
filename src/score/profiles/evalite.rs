//! Evalite `toolCallAccuracy` (evalite 1.0.0-beta.16, `dist/scorers/tool-call-accuracy.js`).
//!
//! Input line: `{id, actualCalls[{toolName, input?}], expectedCalls[...], mode, weights,
//! threshold?}`; a call without `input` is JavaScript `undefined`, which differs from `null`.
//! `threshold` is a toolspec addition (Evalite has no pass/fail): `passed = score >= threshold`,
//! default 1.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::fmt::Write as _;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::text::{js_json, json_str};
use super::value::{js_eq, js_strict_eq, CowKey, Val};
use super::{raw_id, write_head, LineError, Outcome};

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

/// One call object as JavaScript sees it: `toolName` and `input` may be absent (`undefined`),
/// other keys are kept only to print the object back in the metadata.
pub(crate) struct Call<'a> {
    pub(crate) name: Option<Val<'a>>,
    pub(crate) input: Option<Val<'a>>,
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
    /// `JSON.stringify(call)`, with the input already parsed.
    fn write_js(&self, out: &mut String, input: Option<&Val<'_>>) {
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
                ("input", input.unwrap_or(&Val::Null))
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

/// JavaScript `ToNumber` of a weight (as used by `*`): `null` → 0, booleans → 0/1, numeric
/// strings parsed, anything else NaN.
fn js_to_number(v: &Val<'_>) -> f64 {
    match v {
        Val::Null => 0.0,
        Val::Bool(b) => f64::from(u8::from(*b)),
        Val::Str(s) => {
            let t = s.trim();
            if t.is_empty() {
                0.0
            } else {
                match t {
                    "Infinity" | "+Infinity" => f64::INFINITY,
                    "-Infinity" => f64::NEG_INFINITY,
                    _ if t.contains(|c: char| c.is_ascii_alphabetic() && c != 'e' && c != 'E') => {
                        f64::NAN
                    }
                    _ => t.parse().unwrap_or(f64::NAN),
                }
            }
        }
        Val::Arr(items) => match items.as_slice() {
            [] => 0.0,
            [one] if !matches!(one, Val::Arr(_) | Val::Obj(_)) => js_to_number(one),
            _ => f64::NAN,
        },
        Val::Obj(_) => f64::NAN,
        _ => v.as_f64().unwrap_or(f64::NAN),
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
pub(crate) fn evaluate(
    actual: &[Call<'_>],
    expected: &[Call<'_>],
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
        let _ = write!(meta, "{o}");
        meta.push('}');
        return Ok(0.0);
    }
    if o == 0 {
        meta.push_str("{\"warning\":\"No tool calls found in output\",\"referenceCount\":");
        let _ = write!(meta, "{r}");
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
                (Some(ri), Some(oi)) => js_eq(oi, ri),
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
        let _ = write!(meta, "{e}");
        meta.push_str(",\"nameOnlyMatches\":");
        let _ = write!(meta, "{n}");
        meta.push_str(",\"wrongOrMissing\":");
        let _ = write!(meta, "{wrong}");
        totals(meta, r, o);
        meta.push('}');
        return Ok(score);
    }
    flexible_mode(actual, expected, &w, d, meta)
}

fn totals(meta: &mut String, r: usize, o: usize) {
    meta.push_str(",\"totals\":{\"reference\":");
    let _ = write!(meta, "{r}");
    meta.push_str(",\"output\":");
    let _ = write!(meta, "{o}");
    meta.push('}');
}

/// `stringifyToolCall`: `JSON.stringify({toolName, input: stableSerialize(input)})`.
fn canonical_key(name: &Option<Val<'_>>, input: &Option<Val<'_>>) -> String {
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
        stable(&mut k, i);
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
            let mut sorted: Vec<&(Cow<'_, str>, Val<'_>)> = entries.iter().collect();
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
    let small = expected.len() + actual.len() <= SMALL;
    let same_key =
        |an: &Option<Val<'_>>, ai: &Option<Val<'_>>, bn: &Option<Val<'_>>, bi: &Option<Val<'_>>| {
            let names = match (an, bn) {
                (None, None) => true,
                (Some(x), Some(y)) => js_eq(x, y),
                _ => false,
            };
            names
                && match (ai, bi) {
                    (None, None) => true,
                    (Some(x), Some(y)) => js_eq(x, y),
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
    let _ = write!(meta, "{e}");
    meta.push_str(",\"nameOnlyMatches\":");
    let _ = write!(meta, "{n}");
    meta.push_str(",\"extras\":");
    let _ = write!(meta, "{x}");
    meta.push_str(",\"missing\":");
    let _ = write!(meta, "{missing}");
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
                actual[i].write_js(meta, actual[i].input.as_ref());
            } else {
                expected[i].write_js(meta, expected[i].input.as_ref());
            }
        }
        meta.push(']');
    }
    meta.push_str("}}");
    Ok(score)
}

/// Score one Evalite input line.
pub(crate) fn score<'a>(line: &'a str, out: &mut String) -> Result<Outcome, LineError<'a>> {
    thread_local! {
        // The metadata is built before the head line can be written (the score comes last);
        // reusing one buffer per thread keeps the hot path free of that allocation.
        static META: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    let case: Case<'a> = serde_json::from_str(line)?;
    let id = raw_id(case.id);
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
                id: case.id.map(RawValue::get),
                message,
            }),
        }
    })
}
