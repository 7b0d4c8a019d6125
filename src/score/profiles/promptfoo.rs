//! promptfoo `tool-call-f1` (promptfoo 0.123.1, `src/assertions/toolCallF1.ts`): F1 over the
//! sets of expected and called tool names.
//!
//! Input line (the tiny oracle's format): `{id, assertion{type: "tool-call-f1" |
//! "not-tool-call-f1", value: [names] | "a, b", threshold?}, output}`; `output` is what the
//! provider returned (an object, an array, or a string that may mix text and JSON).

use std::borrow::Cow;

use serde::Deserialize;

use super::judge::Judge;
use super::{on_deep_stack, write_head, CaseLine, LineError, Outcome, Peer, Reader, Scratch};
use crate::config::profile::{ProfileSpec, PROMPTFOO};
use crate::json::read::Runtime;
use crate::json::text::json_str;
use crate::json::value::Val;

#[derive(Deserialize)]
struct Assertion<'a> {
    #[serde(borrow, rename = "type")]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    value: Option<Val<'a>>,
    // Any JSON value: `f1 >= threshold` converts it with JavaScript's `ToNumber`.
    #[serde(borrow, default)]
    threshold: Option<Val<'a>>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Case<'a> {
    /// Read for its shape; printed back as written ([`CaseLine::raw`]).
    #[serde(borrow, default)]
    id: Option<Val<'a>>,
    #[serde(borrow)]
    assertion: Assertion<'a>,
    #[serde(borrow, default)]
    output: Option<Val<'a>>,
}

/// JavaScript `String(x)`.
fn js_string(v: &Val<'_>) -> String {
    match v {
        Val::Str(s) => s.to_string(),
        Val::Null => "null".into(),
        Val::Bool(b) => b.to_string(),
        Val::Obj(_) => "[object Object]".into(),
        Val::Arr(items) => items
            .iter()
            .map(|x| match x {
                Val::Null => String::new(),
                x => js_string(x),
            })
            .collect::<Vec<_>>()
            .join(","),
        n => {
            let mut s = String::new();
            crate::json::text::js_number_string(&mut s, n.as_f64().unwrap_or(0.0));
            s
        }
    }
}

/// JavaScript whitespace (`\s`, `trim`).
fn js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\x0b' | '\x0c' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// Parse errors that end the assertion with `pass: false, score: 0`.
struct ParseLimit(String);

#[derive(Clone, Copy)]
struct Token {
    ch: char,
    index: usize,
    starts_line: bool,
    ends_line: bool,
}

fn column_width(text: &[char]) -> usize {
    let mut col = 0;
    for &c in text {
        col += if c == '\t' { 4 - col % 4 } else { 1 };
    }
    col
}

/// `^[ \t]*(`{3,}|~{3,})`: (length of the whole match, the fence).
fn fence_marker(s: &[char]) -> Option<(usize, char, usize)> {
    let mut i = 0;
    while i < s.len() && (s[i] == ' ' || s[i] == '\t') {
        i += 1;
    }
    let c = *s.get(i)?;
    if c != '`' && c != '~' {
        return None;
    }
    let mut j = i;
    while j < s.len() && s[j] == c {
        j += 1;
    }
    (j - i >= 3).then_some((j, c, j - i))
}

/// `^[ \t]*(?:[-+*]|\d+[.)])[ \t]+`: length of the match.
fn list_marker(s: &[char]) -> Option<usize> {
    let mut i = 0;
    while i < s.len() && (s[i] == ' ' || s[i] == '\t') {
        i += 1;
    }
    match s.get(i)? {
        '-' | '+' | '*' => i += 1,
        c if c.is_ascii_digit() => {
            while i < s.len() && s[i].is_ascii_digit() {
                i += 1;
            }
            if !matches!(s.get(i), Some('.' | ')')) {
                return None;
            }
            i += 1;
        }
        _ => return None,
    }
    let start = i;
    while i < s.len() && (s[i] == ' ' || s[i] == '\t') {
        i += 1;
    }
    (i > start).then_some(i)
}

/// `jsonDelimiters`: brackets outside strings and code fences; `None` resets the stack.
fn json_delimiters(text: &[char]) -> Vec<Option<Token>> {
    let mut out = Vec::new();
    let (mut in_string, mut escaped) = (false, false);
    let mut fence: Option<(char, usize)> = None;
    let mut fence_container = 0usize;
    let mut containers: Vec<usize> = Vec::new();
    let mut line_start = 0;
    while line_start < text.len() {
        let offset = line_start;
        let line_end = text[line_start..]
            .iter()
            .position(|&c| c == '\n')
            .map_or(text.len(), |p| line_start + p);
        let mut content = &text[line_start..line_end];
        while let Some((&last, rest)) = content.split_last() {
            if js_space(last) {
                content = rest;
            } else {
                break;
            }
        }
        line_start = line_end + 1;
        let first_content = content.iter().position(|&c| !js_space(c));
        let indent = column_width(&content[..first_content.unwrap_or(0)]);
        if fence.is_some() && !content.is_empty() && indent < fence_container {
            fence = None;
            out.push(None);
        }
        if let Some((fc, flen)) = fence {
            if let Some((mlen, mc, mcount)) = fence_marker(content) {
                if indent <= fence_container + 3
                    && mc == fc
                    && mcount >= flen
                    && content[mlen..].iter().all(|&c| js_space(c))
                {
                    fence = None;
                }
            }
            continue;
        }
        while !content.is_empty() && containers.last().is_some_and(|&top| indent < top) {
            containers.pop();
        }
        let list = list_marker(content);
        if let Some(l) = list {
            containers.push(column_width(&content[..l]));
        }
        let container = containers.last().copied().unwrap_or(0);
        let fence_text = match list {
            Some(l) => &content[l..],
            None => content,
        };
        if let Some((mlen, mc, mcount)) = fence_marker(fence_text) {
            if (list.is_some() || indent <= container + 3)
                && (mc != '`' || !fence_text[mlen..].contains(&'`'))
            {
                fence = Some((mc, mcount));
                fence_container = container;
                out.push(None);
                continue;
            }
        }
        for (column, &ch) in content.iter().enumerate() {
            if in_string {
                if escaped {
                    escaped = false;
                } else if ch == '\\' {
                    escaped = true;
                } else if ch == '"' {
                    in_string = false;
                }
                continue;
            }
            if ch == '"' {
                in_string = true;
            } else if matches!(ch, '{' | '[' | '}' | ']') {
                out.push(Some(Token {
                    ch,
                    index: offset + column,
                    starts_line: Some(column) == first_content,
                    ends_line: column + 1 == content.len(),
                }));
            }
        }
        if in_string {
            in_string = false;
            escaped = false;
            out.push(None);
        }
    }
    out
}

const MAX_UNMATCHED_DELIMITERS: usize = 65536;

/// `jsonBlocks`: balanced top-level (or second-level) blocks that end a line.
fn json_blocks(text: &[char], skip_root: bool) -> Result<Vec<(Vec<char>, bool)>, ParseLimit> {
    let tokens = json_delimiters(text);
    let mut unmatched: Vec<usize> = Vec::new();
    let mut stack_start = 0;
    for t in &tokens {
        match t {
            None => stack_start = unmatched.len(),
            Some(t) if t.ch == '{' || t.ch == '[' => unmatched.push(t.index),
            Some(t) => {
                let open = if t.ch == '}' { '{' } else { '[' };
                if unmatched.len() > stack_start
                    && unmatched.last().is_some_and(|&i| text[i] == open)
                {
                    unmatched.pop();
                } else {
                    unmatched.push(t.index);
                    stack_start = unmatched.len();
                }
            }
        }
        if unmatched.len() > MAX_UNMATCHED_DELIMITERS {
            return Err(ParseLimit(format!(
                "Tool Call F1 exceeded its delimiter limit ({MAX_UNMATCHED_DELIMITERS})"
            )));
        }
    }
    let mut blocks = Vec::new();
    let mut next_unmatched = 0;
    let mut depth: i64 = 0;
    let mut start: Option<usize> = None;
    let mut start_depth = 0;
    let mut starts_line = false;
    for t in tokens.iter().flatten() {
        if unmatched.get(next_unmatched) == Some(&t.index) {
            next_unmatched += 1;
            continue;
        }
        if t.ch == '{' || t.ch == '[' {
            if start.is_none() && depth == i64::from(skip_root) {
                start = Some(t.index);
                start_depth = depth;
                starts_line = t.starts_line;
            }
            depth += 1;
            continue;
        }
        depth -= 1;
        if let Some(s) = start {
            if depth == start_depth {
                if t.ends_line {
                    blocks.push((text[s..=t.index].to_vec(), starts_line));
                }
                start = None;
            }
        }
    }
    Ok(blocks)
}

fn utf16_len(s: &[char]) -> usize {
    s.iter().map(|c| c.len_utf16()).sum()
}

/// `extractJsonBlocks`: parse each block; a block that is not JSON is searched one level down.
fn extract_json_blocks(text: &[char]) -> Result<Vec<Val<'static>>, ParseLimit> {
    let mut found = Vec::new();
    let mut pending: Vec<std::vec::IntoIter<(Vec<char>, bool)>> =
        vec![json_blocks(text, false)?.into_iter()];
    let mut remaining = 4 * utf16_len(text);
    while let Some(top) = pending.last_mut() {
        let Some((block, starts_line)) = top.next() else {
            pending.pop();
            continue;
        };
        let len = utf16_len(&block);
        if len > remaining {
            return Err(ParseLimit(
                "Tool Call F1 could not finish parsing malformed output within its work limit"
                    .to_owned(),
            ));
        }
        remaining -= len;
        let s: String = block.iter().collect();
        match crate::json::read::read(&s, Runtime::JavaScript) {
            Ok((v, _)) => {
                if starts_line {
                    found.push(own(v));
                }
            }
            Err(_) => pending.push(json_blocks(&block, true)?.into_iter()),
        }
    }
    Ok(found)
}

fn own(v: Val<'_>) -> Val<'static> {
    match v {
        Val::Null => Val::Null,
        Val::Bool(b) => Val::Bool(b),
        Val::Int(i) => Val::Int(i),
        Val::UInt(u) => Val::UInt(u),
        Val::Float(f) => Val::Float(f),
        Val::BigInt(d) => Val::BigInt(Cow::Owned(d.into_owned())),
        Val::Str(s) => Val::Str(Cow::Owned(s.into_owned())),
        Val::Arr(a) => Val::Arr(a.into_iter().map(own).collect()),
        Val::Obj(e) => Val::Obj(
            e.into_iter()
                .map(|(k, v)| (Cow::Owned(k.into_owned()), own(v)))
                .collect(),
        ),
    }
}

fn str_of<'v>(v: Option<&'v Val<'_>>) -> Option<&'v str> {
    v.and_then(Val::as_str)
}

fn truthy_obj<'v, 'a>(v: Option<&'v Val<'a>>) -> Option<&'v Val<'a>> {
    v.filter(|x| matches!(x, Val::Obj(_) | Val::Arr(_)))
}

/// `extractToolNames`, in insertion order of a JavaScript `Set`.
fn extract_names(output: &Val<'_>, names: &mut Vec<String>) -> Result<(), ParseLimit> {
    let add = |n: &str, names: &mut Vec<String>| {
        if !names.iter().any(|x| x == n) {
            names.push(n.to_owned());
        }
    };
    match output {
        Val::Null => Ok(()),
        Val::Str(s) => {
            if let Ok((parsed, _)) = crate::json::read::read(s, Runtime::JavaScript) {
                extract_names(&parsed, names)
            } else {
                let chars: Vec<char> = s.chars().collect();
                for block in extract_json_blocks(&chars)? {
                    extract_names(&block, names)?;
                }
                Ok(())
            }
        }
        Val::Obj(_) => {
            if let Some(Val::Arr(tcs)) = output.get("tool_calls") {
                for tc in tcs {
                    if let Val::Obj(_) = tc {
                        if let Some(f @ Val::Obj(_)) = truthy_obj(tc.get("function")) {
                            if let Some(n) = str_of(f.get("name")) {
                                add(n, names);
                            }
                        }
                        if let Some(n) = str_of(tc.get("name")) {
                            add(n, names);
                        }
                    }
                }
                return Ok(());
            }
            let kind = str_of(output.get("type"));
            if let (Some("tool_use" | "function_call"), Some(n)) =
                (kind, str_of(output.get("name")))
            {
                add(n, names);
                return Ok(());
            }
            if let Some(fc) = truthy_obj(output.get("functionCall")) {
                if let Some(n) = str_of(fc.get("name")) {
                    add(n, names);
                }
                return Ok(());
            }
            if let Some(tc) = truthy_obj(output.get("toolCall")) {
                if let Some(Val::Arr(fcs)) = tc.get("functionCalls") {
                    for fc in fcs {
                        if let Some(n) = str_of(fc.get("name")) {
                            add(n, names);
                        }
                    }
                }
            }
            Ok(())
        }
        Val::Arr(items) => {
            for block in items {
                if !matches!(block, Val::Obj(_) | Val::Arr(_)) {
                    continue;
                }
                if str_of(block.get("type")) == Some("tool_use") {
                    if let Some(n) = str_of(block.get("name")) {
                        add(n, names);
                        continue;
                    }
                }
                if let Some(fc) = truthy_obj(block.get("functionCall")) {
                    if let Some(n) = str_of(fc.get("name")) {
                        add(n, names);
                    }
                    continue;
                }
                if let Some(f) = truthy_obj(block.get("function")) {
                    if let Some(n) = str_of(f.get("name")) {
                        add(n, names);
                    }
                    continue;
                }
                if let Some(n) = str_of(block.get("name")) {
                    add(n, names);
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// JavaScript `x.toFixed(3)` for x in [0, 1] (ties round up, on the exact binary value).
fn to_fixed3(x: f64) -> String {
    let scaled = x * 1000.0;
    if scaled.fract() == 0.5 && scaled / 1000.0 == x {
        return format!("{:.3}", scaled.ceil() / 1000.0);
    }
    format!("{x:.3}")
}

/// The metric's result.
pub(crate) struct Verdict {
    pub(crate) score: f64,
    pub(crate) pass: bool,
    pub(crate) reason: String,
}

/// Score expected names against an output.
fn evaluate(a: &Assertion<'_>, output: Option<&Val<'_>>) -> Result<Verdict, String> {
    let inverse = match a.kind.as_ref() {
        "tool-call-f1" => false,
        "not-tool-call-f1" => true,
        other => {
            return Err(format!(
                "unsupported assertion type {other:?} (this profile reproduces tool-call-f1)"
            ))
        }
    };
    // promptfoo renders a string value, and each string of an array value, with Nunjucks
    // (`"a{{ 1+1 }}"` is `a2`), and reads a `file://` value (or runs it: `.js`, `.py`, `.rb`)
    // and loads a `package:` one. toolspec never renders templates or reads what data names.
    let strings: Vec<&str> = match &a.value {
        Some(Val::Str(s)) => vec![s.as_ref()],
        Some(Val::Arr(items)) => items.iter().filter_map(Val::as_str).collect(),
        _ => Vec::new(),
    };
    let whole = matches!(&a.value, Some(Val::Str(_)));
    if let Some(s) = strings.iter().find(|s| {
        s.contains("{{")
            || s.contains("{%")
            || s.contains("{#")
            || s.starts_with("file://")
            || (whole && s.starts_with("package:"))
    }) {
        let mut shown = String::new();
        crate::json::text::py_str(&mut shown, &s.chars().take(60).collect::<String>());
        return Err(format!(
            "toolspec: the expected value {shown} is a Nunjucks template or a file or package \
             reference, which promptfoo renders, reads or runs; toolspec does neither (the case \
             is not scored)"
        ));
    }
    let expected_list: Vec<String> = match &a.value {
        Some(Val::Arr(items)) => items
            .iter()
            .map(|x| js_string(x).trim_matches(js_space).to_owned())
            .filter(|s| !s.is_empty())
            .collect(),
        Some(Val::Str(s)) => s
            .split(',')
            .map(|x| x.trim_matches(js_space).to_owned())
            .filter(|s| !s.is_empty())
            .collect(),
        _ => return Err("Invariant failed: \"tool-call-f1\" assertion requires a value: array of tool names or comma-separated string".to_owned()),
    };
    if expected_list.is_empty() {
        return Err(
            "Invariant failed: \"tool-call-f1\" assertion requires at least one expected tool name"
                .to_owned(),
        );
    }
    let mut expected: Vec<String> = Vec::new();
    for e in expected_list {
        if !expected.contains(&e) {
            expected.push(e);
        }
    }
    let mut actual = Vec::new();
    if let Err(ParseLimit(message)) = extract_names(output.unwrap_or(&Val::Null), &mut actual) {
        return Ok(Verdict {
            score: 0.0,
            pass: false,
            reason: message,
        });
    }
    let inter = expected.iter().filter(|e| actual.contains(e)).count() as f64;
    let precision = if actual.is_empty() {
        0.0
    } else {
        inter / actual.len() as f64
    };
    let recall = inter / expected.len() as f64;
    let f1 = if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    };
    // `assertion.threshold ?? 1`, compared with `>=` (JavaScript `ToNumber`: `"0.5"` is 0.5,
    // `true` 1, `[]` 0, an object NaN) and printed with `String()`.
    let (threshold, threshold_text) = match &a.threshold {
        None | Some(Val::Null) => (1.0, "1".to_owned()),
        Some(v @ (Val::Str(_) | Val::Arr(_))) => {
            let text = js_string(v);
            (super::evalite::js_string_to_number(&text), text)
        }
        Some(Val::Bool(b)) => (f64::from(u8::from(*b)), b.to_string()),
        Some(v @ Val::Obj(_)) => (f64::NAN, js_string(v)),
        Some(v) => {
            let x = v.as_f64().unwrap_or(f64::NAN);
            let mut t = String::new();
            crate::json::text::js_number_string(&mut t, x);
            (x, t)
        }
    };
    let pass = (f1 >= threshold) != inverse;
    // `[...set].sort()` compares UTF-16 code units.
    let sorted = |v: &[String]| {
        let mut s: Vec<&String> = v.iter().collect();
        s.sort_by(|a, b| crate::json::lone::utf16_cmp(a, b));
        s.iter().map(|x| x.as_str()).collect::<Vec<_>>().join(", ")
    };
    let expected_s = sorted(&expected);
    // `... .join(', ') || '(none)'`: a lone empty name prints as none too.
    let actual_s = match sorted(&actual) {
        s if s.is_empty() => "(none)".to_owned(),
        s => s,
    };
    let t = threshold_text;
    let reason = if pass {
        format!(
            "Tool Call F1: {} (precision={}, recall={}). Expected: [{expected_s}], Called: [{actual_s}]",
            to_fixed3(f1),
            to_fixed3(precision),
            to_fixed3(recall)
        )
    } else {
        format!(
            "Tool Call F1 score {} is {} threshold {t}. Expected: [{expected_s}], Called: [{actual_s}]. Precision={}, Recall={}",
            to_fixed3(f1),
            if inverse { "above" } else { "below" },
            to_fixed3(precision),
            to_fixed3(recall)
        )
    };
    Ok(Verdict {
        score: f1,
        pass,
        reason,
    })
}

/// The Promptfoo peer.
pub(crate) struct Promptfoo;

impl Peer for Promptfoo {
    const PROFILE: &'static ProfileSpec = &PROMPTFOO;

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

/// Score one promptfoo input line.
pub(crate) fn score<'a>(line: &'a str, out: &mut String) -> Result<Outcome, LineError<'a>> {
    let c = CaseLine::read(line, RUNTIME)?;
    on_deep_stack(c.shape.depth, || score_case(&c, out))
}

/// How the peer's runtime reads a line.
const RUNTIME: Runtime = Runtime::JavaScript;

/// Score the case of a line read by the peer's runtime.
fn score_case<'a>(c: &CaseLine<'a>, out: &mut String) -> Result<Outcome, LineError<'a>> {
    let case: Case<'_> = c.case()?;
    let id = c.raw("id");
    let v = evaluate(&case.assertion, case.output.as_ref())
        .map_err(|message| LineError::Rejected { id, message })?;
    write_head(out, id.unwrap_or("null"), Some(v.score), Some(v.pass));
    out.push_str(",\"reason\":");
    json_str(out, &v.reason);
    out.push('}');
    Ok(Outcome::of(Some(v.pass)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn to_fixed_rounds_ties_up() {
        assert_eq!(to_fixed3(0.0625), "0.063");
        assert_eq!(to_fixed3(2.0 / 3.0), "0.667");
        assert_eq!(to_fixed3(1.0), "1.000");
    }

    #[test]
    fn names_from_mixed_text() {
        let text = "I will call:\n{\"tool_calls\":[{\"function\":{\"name\":\"a\"}}]}\nand then `x` {\"name\": \"b\"}\n```\n{\"tool_calls\":[{\"name\":\"c\"}]}\n```\n[{\"name\":\"d\"}]";
        let mut names = Vec::new();
        let v = Val::Str(Cow::Borrowed(text));
        assert!(extract_names(&v, &mut names).is_ok());
        assert_eq!(names, vec!["a", "d"]);
    }
}
