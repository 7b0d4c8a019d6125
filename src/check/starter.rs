//! A starter spec inferred from one transcript (`toolspec init --transcript`).
//!
//! Input: a transcript (its calls and declared tools), the spec's name and its transcript glob.
//! Output: `.toolspec` text (unformatted: the caller runs `fmt` and compiles it) that passes
//! against the transcript it comes from. Nothing fails. What it writes:
//!
//! - one `tool` declaration per tool the transcript declares, from the parameters' JSON Schema:
//!   a required parameter whose type (or `enum`) every recorded call of the tool honours gets
//!   `type T` (or `one_of [...]`), any other parameter `any`; the list ends with `...` unless the
//!   schema closes it (`additionalProperties: false`) and no call passes anything else;
//! - one expectation per call, in order (`order in_order`, `args subset`), with its arguments;
//!   an argument whose value an earlier call passed (in its arguments) or returned (anywhere in
//!   its output) becomes a reference to the latest such call, `label.args.path` or
//!   `label.output.path`, and that call gets the label; otherwise an id-like string (a UUID, `prefix_` + a random-looking tail such as
//!   `call_…` or `cus_…`, a long hexadecimal or mixed letters-and-digits run) becomes an anchored
//!   regex instead of the literal; anything else stays literal;
//! - `errored` on calls the transcript marks as failed.
//!
//! Bounds: each earlier call contributes at most [`VALUES_PER_PART`] values of its arguments
//! and as many of its output (the first ones, depth-first), at most [`MAX_DEPTH`] levels deep, so
//! a call with a megabyte output costs a bounded index; only scalars that identify something are
//! looked up (strings of at least [`MIN_REF_CHARS`] characters with a digit, or twice as many;
//! integers from 1 000; decimals with four digits), never `true`, `1`, `"en"` or `"metric"`.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use serde_json::{Map, Value};

use crate::config::PathSeg;
use crate::transcript::model::{ToolCall, ToolDecl};
use crate::transcript::Transcript;

/// Values indexed per call and part (arguments or output).
pub const VALUES_PER_PART: usize = 10_000;
/// Deepest path indexed inside an argument or output.
pub const MAX_DEPTH: usize = 8;
/// Shortest string an argument may share with an earlier call to become a reference.
pub const MIN_REF_CHARS: usize = 4;

/// The starter spec for `t`: tool declarations and one spec named `name` reading `glob`.
pub fn starter_spec(t: &Transcript, name: &str, glob: &str) -> String {
    let calls = &t.calls;
    let mut out = String::new();
    // A tool declared twice (some formats repeat the list per request) is declared once.
    let mut declared: HashSet<&str> = HashSet::new();
    for decl in t.tools.iter().filter(|d| declared.insert(d.name.as_str())) {
        let _ = writeln!(out, "{}", tool_decl(decl, calls));
    }
    if !t.tools.is_empty() {
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "spec {name} {{\n  transcripts {}\n  order in_order\n  args subset\n",
        quote(glob)
    );

    // Each call's arguments: literal, regex or a reference to an earlier call.
    let mut seen = Seen::default();
    let mut labels: Vec<Option<String>> = vec![None; calls.len()];
    let mut used: HashSet<String> = HashSet::new();
    let mut bodies: Vec<String> = Vec::with_capacity(calls.len());
    for (i, call) in calls.iter().enumerate() {
        let body = match &call.args {
            Value::Object(map) if map.is_empty() => String::new(),
            Value::Object(map) => {
                let parts: Vec<String> = map
                    .iter()
                    .map(|(k, v)| {
                        let c = match seen.find(v) {
                            Some(origin) => {
                                let label = labels[origin.call]
                                    .get_or_insert_with(|| {
                                        fresh_label(&calls[origin.call].name, &mut used)
                                    })
                                    .clone();
                                reference(&label, origin)
                            }
                            None => id_regex(v).unwrap_or_else(|| json(v)),
                        };
                        format!("{}: {c}", key(k))
                    })
                    .collect();
                format!("({})", parts.join(", "))
            }
            other => format!(" exact {}", json(other)),
        };
        bodies.push(body);
        seen.index(i, Part::Args, &call.args);
        if let Some(o) = &call.output {
            seen.index(i, Part::Output, o);
        }
    }
    for (i, call) in calls.iter().enumerate() {
        out.push_str("  ");
        if let Some(l) = &labels[i] {
            let _ = write!(out, "{l}: ");
        }
        let _ = write!(out, "call {}{}", tool_name(&call.name), bodies[i]);
        if call.is_error {
            out.push_str(" errored");
        }
        out.push('\n');
    }
    out.push_str("}\n");
    out
}

/// `tool NAME(key: C, ..., ...)` from a declared tool's parameter schema, loosened where the
/// recorded calls of the tool would not satisfy it.
fn tool_decl(decl: &ToolDecl, calls: &[ToolCall]) -> String {
    let schema = decl.parameters.as_ref().and_then(Value::as_object);
    let props = schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object);
    let required: HashSet<&str> = schema
        .and_then(|s| s.get("required"))
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let closed = schema.and_then(|s| s.get("additionalProperties")) == Some(&Value::Bool(false));
    let of_tool: Vec<&Map<String, Value>> = calls
        .iter()
        .filter(|c| c.name == decl.name)
        .filter_map(|c| c.args.as_object())
        .collect();
    let mut items = Vec::new();
    let empty = Map::new();
    for (k, p) in props.unwrap_or(&empty) {
        let c = if required.contains(k.as_str()) {
            param_constraint(p)
                .filter(|(_, ok)| of_tool.iter().all(|args| args.get(k).is_some_and(ok)))
                .map_or_else(|| "any".to_owned(), |(c, _)| c)
        } else {
            "any".to_owned()
        };
        items.push(format!("{}: {c}", key(k)));
    }
    let unlisted = of_tool.iter().any(|args| {
        args.keys()
            .any(|k| !props.is_some_and(|p| p.contains_key(k)))
    });
    if !closed || unlisted {
        items.push("...".into());
    }
    format!("tool {}({})", tool_name(&decl.name), items.join(", "))
}

/// Whether a value honours a parameter's schema.
type Honours<'a> = Box<dyn Fn(&Value) -> bool + 'a>;

/// The constraint a parameter's schema states (`type T|U` or `one_of [...]`), with the test a
/// value must pass to honour it.
fn param_constraint(p: &Value) -> Option<(String, Honours<'_>)> {
    if let Some(values) = p.get("enum").and_then(Value::as_array) {
        if values.is_empty() {
            return None;
        }
        let c = format!("one_of {}", json(&Value::Array(values.clone())));
        return Some((c, Box::new(move |v: &Value| values.contains(v))));
    }
    let types: Vec<&str> = match p.get("type")? {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => return None,
    };
    const KNOWN: &[&str] = &[
        "null", "boolean", "number", "integer", "string", "array", "object",
    ];
    if types.is_empty() || !types.iter().all(|t| KNOWN.contains(t)) {
        return None;
    }
    let c = format!("type {}", types.join("|"));
    Some((
        c,
        Box::new(move |v: &Value| types.iter().any(|t| has_type(v, t))),
    ))
}

fn has_type(v: &Value, t: &str) -> bool {
    match t {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "number" => v.is_number(),
        "integer" => v.as_f64().is_some_and(|x| x.fract() == 0.0),
        "string" => v.is_string(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        _ => false,
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Part {
    Args,
    Output,
}

/// Where a value was first seen: a call, its arguments or output, a path.
struct Origin {
    call: usize,
    part: Part,
    path: Vec<PathSeg>,
}

/// The identifying scalars seen so far, by their JSON text: for each, the latest call that had
/// it (the nearest source), and in that call its first place, arguments before output.
#[derive(Default)]
struct Seen {
    latest: HashMap<String, Origin>,
}

impl Seen {
    fn find(&self, v: &Value) -> Option<&Origin> {
        identifying(v).then(|| self.latest.get(&v.to_string()))?
    }

    fn index(&mut self, call: usize, part: Part, root: &Value) {
        let mut budget = VALUES_PER_PART;
        let mut path = Vec::new();
        self.walk(call, part, root, &mut path, &mut budget);
    }

    fn walk(
        &mut self,
        call: usize,
        part: Part,
        v: &Value,
        path: &mut Vec<PathSeg>,
        budget: &mut usize,
    ) {
        if *budget == 0 || path.len() > MAX_DEPTH {
            return;
        }
        *budget -= 1;
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    path.push(PathSeg::Key(k.clone()));
                    self.walk(call, part, x, path, budget);
                    path.pop();
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    path.push(PathSeg::Index(i));
                    self.walk(call, part, x, path, budget);
                    path.pop();
                }
            }
            // Outputs are often strings holding JSON; the engine's paths step into them.
            Value::String(s) if looks_like_json(s) => {
                if let Ok(doc) = serde_json::from_str::<Value>(s) {
                    if doc.is_object() || doc.is_array() {
                        self.walk(call, part, &doc, path, budget);
                        return;
                    }
                }
                self.record(call, part, v, path);
            }
            _ => self.record(call, part, v, path),
        }
    }

    fn record(&mut self, call: usize, part: Part, v: &Value, path: &[PathSeg]) {
        if !identifying(v) {
            return;
        }
        let origin = Origin {
            call,
            part,
            path: path.to_vec(),
        };
        match self.latest.entry(v.to_string()) {
            Entry::Occupied(mut e) if e.get().call < call => {
                e.insert(origin);
            }
            Entry::Occupied(_) => {}
            Entry::Vacant(e) => {
                e.insert(origin);
            }
        }
    }
}

fn looks_like_json(s: &str) -> bool {
    let t = s.trim_start();
    t.starts_with('{') || t.starts_with('[')
}

/// Whether a value identifies something well enough to be taken as copied from an earlier call.
fn identifying(v: &Value) -> bool {
    match v {
        Value::String(s) => {
            let n = s.trim().chars().count();
            n >= 2 * MIN_REF_CHARS || (n >= MIN_REF_CHARS && s.bytes().any(|c| c.is_ascii_digit()))
        }
        Value::Number(n) => n
            .as_f64()
            .is_some_and(|x| x.abs() >= 1000.0 || (x.fract() != 0.0 && n.to_string().len() >= 5)),
        _ => false,
    }
}

fn reference(label: &str, o: &Origin) -> String {
    let mut s = format!(
        "{label}.{}",
        match o.part {
            Part::Args => "args",
            Part::Output => "output",
        }
    );
    for seg in &o.path {
        match seg {
            PathSeg::Index(i) => {
                let _ = write!(s, "[{i}]");
            }
            PathSeg::Key(k) if is_ident(k) => {
                let _ = write!(s, ".{k}");
            }
            PathSeg::Key(k) => {
                let _ = write!(s, "[{}]", quote(k));
            }
            PathSeg::Each => s.push_str("[*]"),
        }
    }
    s
}

/// An anchored regex for an id-like string: a UUID, `prefix_` and a random-looking tail, a long
/// hexadecimal or mixed letters-and-digits run.
fn id_regex(v: &Value) -> Option<String> {
    let s = v.as_str()?;
    let b = s.as_bytes();
    let is_uuid = b.len() == 36
        && b.iter().enumerate().all(|(i, &c)| {
            if matches!(i, 8 | 13 | 18 | 23) {
                c == b'-'
            } else {
                c.is_ascii_hexdigit()
            }
        });
    if is_uuid {
        return Some(
            "/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/"
                .into(),
        );
    }
    // `call_abc123…`, `cus_Q8fN…`, `toolu_01…`: a lowercase prefix, `_`, a random tail.
    if let Some((prefix, tail)) = s.split_once('_') {
        if !prefix.is_empty()
            && prefix.len() <= 12
            && prefix.bytes().all(|c| c.is_ascii_lowercase())
            && tail.len() >= 8
            && tail.bytes().all(|c| c.is_ascii_alphanumeric())
            && random_looking(tail)
        {
            return Some(format!("/^{prefix}_[A-Za-z0-9]+$/"));
        }
    }
    if b.len() >= 16 && b.iter().all(u8::is_ascii_hexdigit) && random_looking(s) {
        return Some(if b.iter().any(u8::is_ascii_uppercase) {
            "/^[0-9A-F]+$/".into()
        } else {
            "/^[0-9a-f]+$/".into()
        });
    }
    if b.len() >= 20 && b.iter().all(u8::is_ascii_alphanumeric) && random_looking(s) {
        return Some("/^[A-Za-z0-9]+$/".into());
    }
    None
}

/// Letters and digits mixed (a word or a number is not an id).
fn random_looking(s: &str) -> bool {
    s.bytes().any(|c| c.is_ascii_digit()) && s.bytes().any(|c| c.is_ascii_alphabetic())
}

/// The grammar's words, which a label must not be.
const KEYWORDS: &[&str] = &[
    "include",
    "tool",
    "spec",
    "transcripts",
    "format",
    "order",
    "args",
    "names",
    "strip",
    "threshold",
    "extra",
    "score",
    "binary",
    "profile",
    "never",
    "before",
    "rules",
    "call",
    "optional",
    "at_least",
    "at_most",
    "exactly",
    "between",
    "and",
    "errored",
    "weight",
    "exact",
    "subset",
    "fuzzy",
    "tokens",
    "type",
    "one_of",
    "contains",
    "present",
    "absent",
    "any",
    "not",
    "true",
    "false",
    "null",
    "output",
];

/// A label for a call of `tool`, unique among `used`.
fn fresh_label(tool: &str, used: &mut HashSet<String>) -> String {
    let mut base: String = tool
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if !base.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        base.insert(0, '_');
    }
    // Never a keyword of the language: `order:` and `not.output.x` would read as something else.
    if KEYWORDS.contains(&base.as_str()) {
        base.push_str("_call");
    }
    let mut label = base.clone();
    let mut n = 2;
    while used.contains(&label) {
        label = format!("{base}_{n}");
        n += 1;
    }
    used.insert(label.clone());
    label
}

fn json(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

fn key(k: &str) -> String {
    if is_ident(k) {
        k.to_owned()
    } else {
        quote(k)
    }
}

fn tool_name(n: &str) -> String {
    if is_ident(n) {
        n.to_owned()
    } else {
        quote(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn id_like_values_become_regexes() {
        let r = |s: &str| id_regex(&json!(s));
        assert!(r("3f2b8c1e-9d4a-4e7b-8c2d-1a2b3c4d5e6f").is_some());
        assert_eq!(
            r("call_L2m69I7wDdQGnMo6sFSYnvCe").as_deref(),
            Some("/^call_[A-Za-z0-9]+$/")
        );
        assert_eq!(
            r("cus_Q8fN2kLw7XyR").as_deref(),
            Some("/^cus_[A-Za-z0-9]+$/")
        );
        assert_eq!(
            r("9fceb02d0ae598e95dc970b74767f19372d61af8").as_deref(),
            Some("/^[0-9a-f]+$/")
        );
        // Words, business ids a user types, short values: literal.
        for s in [
            "ORD-58213",
            "ZD-448190",
            "snake_case_name",
            "hello",
            "abc_defghijk",
        ] {
            assert_eq!(r(s), None, "{s}");
        }
    }

    #[test]
    fn only_identifying_values_are_references() {
        assert!(identifying(&json!("ORD-58213")));
        assert!(identifying(&json!(12999)));
        assert!(identifying(&json!(48.8566)));
        assert!(identifying(&json!("dana@example.com")));
        for v in [
            json!(true),
            json!(1),
            json!(365),
            json!("en"),
            json!("metric"),
            json!(null),
            json!(3.5),
        ] {
            assert!(!identifying(&v), "{v}");
        }
    }

    #[test]
    fn a_tool_declared_twice_is_declared_once_and_an_open_schema_ends_with_a_spread() {
        let decl = |name: &str, parameters: Option<Value>| ToolDecl {
            name: name.into(),
            description: None,
            parameters,
        };
        let t = Transcript {
            format: crate::transcript::Format::OpenaiChat,
            record: None,
            calls: Vec::new(),
            compact: None,
            turns: None,
            answer: None,
            agent_runs: None,
            tools: vec![
                decl(
                    "search",
                    Some(json!({"properties": {"q": {"type": "string"}}, "required": ["q"]})),
                ),
                decl("search", None),
                decl("ping", None),
            ],
            answered: Vec::new(),
            findings: Vec::new(),
        };
        let text = starter_spec(&t, "s", "run.json");
        assert_eq!(text.matches("tool search(").count(), 1, "{text}");
        assert!(text.contains("tool search(q: type string, ...)"), "{text}");
        assert!(text.contains("tool ping(...)"), "{text}");
    }

    #[test]
    fn labels_are_unique_identifiers() {
        let mut used = HashSet::new();
        assert_eq!(fresh_label("get_order", &mut used), "get_order");
        assert_eq!(fresh_label("get_order", &mut used), "get_order_2");
        assert_eq!(fresh_label("mcp__gh.search", &mut used), "mcp__gh_search");
        assert_eq!(fresh_label("9lives", &mut used), "_9lives");
        assert_eq!(fresh_label("order", &mut used), "order_call");
    }
}
