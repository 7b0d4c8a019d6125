//! The per-transcript collector readers push calls into: applies the universal argument and
//! output rules, links results to calls, and records where each call sits in the file.

use std::collections::{HashMap, VecDeque};

use serde_json::Value;

use crate::source::Span;

use super::spans::{Seg, SpanTree};
use super::{Keep, ReadFinding, ToolCall, ToolDecl};

/// Where a call (or finding) sits: a known span, or a path into the current JSON document.
#[derive(Debug, Clone)]
pub(crate) enum Loc {
    Span(Span),
    Path(Vec<Seg>),
}

/// How a format gives a call's arguments.
pub(crate) enum Args<'a> {
    /// A JSON value; a string is decoded by the argument-string rule.
    Value(&'a Value),
    /// Owned value taken as is (already decoded).
    Owned(Value),
    /// Freeform input (custom tools, `apply_patch`): always the raw string.
    Raw(String),
    /// No arguments recorded: `{}`.
    Empty,
}

/// Collects one transcript's calls.
#[derive(Default)]
pub(crate) struct Sink {
    pub calls: Vec<ToolCall>,
    locs: Vec<Loc>,
    answered: Vec<bool>,
    pub findings: Vec<(ReadFinding, Loc)>,
    pub tools: Vec<ToolDecl>,
    by_id: HashMap<String, usize>,
    /// For calls with an id whose arguments are not kept: a fingerprint of the arguments, so
    /// that a repeated call is still told from a reused id (see [`Self::call`]).
    fingerprints: HashMap<usize, u64>,
    /// Built on first use: only formats without ids link results by name.
    by_name: Option<HashMap<String, VecDeque<usize>>>,
    /// When set, every location is this span (one JSONL line = one record).
    pub line: Option<Span>,
    /// Path of the current record inside the document (prepended to paths given to `at`).
    pub prefix: Vec<Seg>,
    /// What to keep of each call (everything by default).
    pub keep: Keep,
}

impl Sink {
    /// An empty sink that keeps of each call what `keep` asks for.
    pub fn keeping(keep: &Keep) -> Sink {
        Sink {
            keep: keep.clone(),
            ..Sink::default()
        }
    }

    /// A location for the value at `path` in the current document (or the current line).
    pub fn at(&self, path: &[Seg]) -> Loc {
        match self.line {
            Some(s) => Loc::Span(s),
            None => {
                let mut p = Vec::with_capacity(self.prefix.len() + path.len());
                p.extend_from_slice(&self.prefix);
                p.extend_from_slice(path);
                Loc::Path(p)
            }
        }
    }

    /// Whether a call with this id was already recorded.
    pub fn has_id(&self, id: &str) -> bool {
        self.by_id.contains_key(id)
    }

    /// Record a call. A call whose id was already seen, with the same name and arguments, is a
    /// duplicate (history resent, resumed session, provider-raw mirror) and is dropped: returns
    /// the existing call's index. The same id on a different call is a reused id (some
    /// OpenAI-compatible servers number calls per response): a new call, and results with that
    /// id link to it from then on.
    pub fn call(&mut self, name: &str, args: Args<'_>, id: Option<String>, loc: Loc) -> usize {
        if let Some(id) = &id {
            if let Some(&i) = self.by_id.get(id) {
                if self.calls[i].name == name && self.same_args(i, &args) {
                    return i;
                }
            }
        }
        self.call_unique(name, args, id, loc)
    }

    /// Whether `args` decode to the arguments call `i` holds (true when they were not kept, or
    /// this record gives none: nothing to tell them apart by).
    fn same_args(&self, i: usize, args: &Args<'_>) -> bool {
        let known = &self.calls[i].args;
        if !self.keep.args_of(&self.calls[i].name) {
            return matches!(args, Args::Empty)
                || self.fingerprints.get(&i) == Some(&args_fingerprint(args));
        }
        let text = |s: &str| match parse_args_text(s) {
            Ok(v) => v == *known,
            Err(_) => known.as_str() == Some(s),
        };
        match args {
            Args::Value(Value::String(s)) | Args::Owned(Value::String(s)) => text(s),
            Args::Value(v) => *v == known,
            Args::Owned(v) => v == known,
            Args::Raw(s) => known.as_str() == Some(s.as_str()),
            Args::Empty => true,
        }
    }

    /// Record a call without de-duplicating by id.
    pub fn call_unique(
        &mut self,
        name: &str,
        args: Args<'_>,
        id: Option<String>,
        loc: Loc,
    ) -> usize {
        let i = self.calls.len();
        let (args, fp) = self.decode_args(name, args, &loc, id.is_some());
        if let Some(fp) = fp {
            self.fingerprints.insert(i, fp);
        }
        if let Some(id) = &id {
            self.by_id.insert(id.clone(), i);
        }
        if let Some(by_name) = &mut self.by_name {
            by_name.entry(name.to_string()).or_default().push_back(i);
        }
        self.calls.push(ToolCall {
            name: name.to_string(),
            args,
            id,
            output: None,
            is_error: false,
            span: Span::default(),
        });
        self.locs.push(loc);
        self.answered.push(false);
        i
    }

    /// Replace the arguments of call `i`, for formats that give them after the call starts
    /// (streams: the input arrives in later chunks). Same rules and findings as [`Self::call`].
    pub fn set_args(&mut self, i: usize, args: Args<'_>) {
        if i < self.calls.len() {
            let name = std::mem::take(&mut self.calls[i].name);
            let loc = self.locs[i].clone();
            let wanted = self.calls[i].id.is_some();
            let (decoded, fp) = self.decode_args(&name, args, &loc, wanted);
            self.calls[i].args = decoded;
            self.calls[i].name = name;
            if let Some(fp) = fp {
                self.fingerprints.insert(i, fp);
            }
        }
    }

    /// The argument rules (FORMATS §0): a string is decoded (blank → `{}`, not JSON → kept raw
    /// with an `invalid-arguments` finding), values are taken as is.
    ///
    /// Arguments that are not kept read as `null`; with `fingerprint`, the fingerprint of what
    /// they would have been is returned beside.
    fn decode_args(
        &mut self,
        name: &str,
        args: Args<'_>,
        loc: &Loc,
        fingerprint: bool,
    ) -> (Value, Option<u64>) {
        if !self.keep.args_of(name) {
            // Not needed: nothing is kept or cloned, but arguments that are not valid JSON are
            // still reported, as when they are kept.
            let text = match &args {
                Args::Value(Value::String(s)) | Args::Owned(Value::String(s)) => Some(s.as_str()),
                _ => None,
            };
            let fp = match text {
                Some(s) if fingerprint => Some(match parse_args_text(s) {
                    Ok(v) => fingerprint_of(&v),
                    Err(e) => {
                        self.invalid_args(&e, name, loc);
                        fingerprint_of_str(s)
                    }
                }),
                Some(s) => {
                    self.check_args_text(s, name, loc);
                    None
                }
                None => fingerprint.then(|| args_fingerprint(&args)),
            };
            return (Value::Null, fp);
        }
        let value = match args {
            Args::Value(Value::String(s)) => self.args_text(s, name, loc),
            Args::Value(v) => v.clone(),
            Args::Owned(Value::String(s)) => self.args_text(&s, name, loc),
            Args::Owned(v) => v,
            Args::Raw(s) => Value::String(s),
            Args::Empty => Value::Object(Default::default()),
        };
        (value, None)
    }

    fn args_text(&mut self, s: &str, name: &str, loc: &Loc) -> Value {
        match parse_args_text(s) {
            Ok(v) => v,
            Err(e) => {
                self.invalid_args(&e, name, loc);
                Value::String(s.to_string())
            }
        }
    }

    /// [`Self::args_text`] without keeping the value: only the finding, if any.
    fn check_args_text(&mut self, s: &str, name: &str, loc: &Loc) {
        if s.trim().is_empty() {
            return;
        }
        if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(s) {
            self.invalid_args(&e, name, loc);
        }
    }

    fn invalid_args(&mut self, e: &serde_json::Error, name: &str, loc: &Loc) {
        self.findings.push((
            ReadFinding {
                code: "invalid-arguments",
                message: format!(
                    "arguments of `{name}` are not valid JSON ({e}); kept as the raw string"
                ),
                span: Span::default(),
            },
            loc.clone(),
        ));
    }

    /// Set the result of call `i` (the first result wins; later copies are duplicates). A call
    /// already flagged by [`Self::flag_error`] stays an error.
    pub fn answer(&mut self, i: usize, output: Option<Value>, is_error: bool) {
        if i < self.calls.len() && !self.answered[i] {
            self.answered[i] = true;
            self.calls[i].output = output.filter(|_| self.keep.output_of(&self.calls[i].name));
            self.calls[i].is_error |= is_error;
        }
    }

    /// Mark call `i` as failed without answering it: the call record itself says it failed
    /// (`status: "failed"`), and its output may still follow in a later item.
    pub fn flag_error(&mut self, i: usize) {
        if let Some(c) = self.calls.get_mut(i) {
            c.is_error = true;
        }
    }

    /// Link a result to the call with this id; false if there is none.
    pub fn answer_id(&mut self, id: &str, output: Option<Value>, is_error: bool) -> bool {
        match self.by_id.get(id) {
            Some(&i) => {
                self.answer(i, output, is_error);
                true
            }
            None => false,
        }
    }

    /// Link a result to the oldest unanswered call with this name; false if there is none.
    pub fn answer_name(&mut self, name: &str, output: Option<Value>, is_error: bool) -> bool {
        let calls = &self.calls;
        let by_name = self.by_name.get_or_insert_with(|| {
            let mut m: HashMap<String, VecDeque<usize>> = HashMap::new();
            for (i, c) in calls.iter().enumerate() {
                m.entry(c.name.clone()).or_default().push_back(i);
            }
            m
        });
        let Some(q) = by_name.get_mut(name) else {
            return false;
        };
        while let Some(&i) = q.front() {
            if self.answered[i] {
                q.pop_front();
                continue;
            }
            q.pop_front();
            self.answer(i, output, is_error);
            return true;
        }
        false
    }

    /// Add a finding at `loc`.
    pub fn finding(&mut self, code: &'static str, message: String, loc: Loc) {
        self.findings.push((
            ReadFinding {
                code,
                message,
                span: Span::default(),
            },
            loc,
        ));
    }

    /// Declare a tool (from a format's tool list), skipping repeats by name.
    pub fn declare(&mut self, name: &str, description: Option<&Value>, parameters: Option<&Value>) {
        if name.is_empty() || self.tools.iter().any(|t| t.name == name) {
            return;
        }
        self.tools.push(ToolDecl {
            name: name.to_string(),
            description: description.and_then(Value::as_str).map(str::to_string),
            parameters: parameters.filter(|p| !p.is_null()).cloned(),
        });
    }

    /// Resolve path locations against the current document `text` (which starts at file
    /// offset `base`). Calls already located keep their spans.
    pub fn resolve(&mut self, text: &[u8], base: usize) {
        let Some(depth) = self.path_depth() else {
            return;
        };
        let tree = SpanTree::build(text, depth);
        self.resolve_with(&tree, base, Span::new(base, base + text.len()));
    }

    /// The longest path still to resolve, if any.
    pub fn path_depth(&self) -> Option<usize> {
        self.locs
            .iter()
            .chain(self.findings.iter().map(|(_, l)| l))
            .filter_map(|l| match l {
                Loc::Path(p) => Some(p.len()),
                Loc::Span(_) => None,
            })
            .max()
    }

    /// Resolve path locations with an index built once for the document (offsets relative to
    /// file offset `base`; unresolvable paths get `whole`).
    pub fn resolve_with(&mut self, tree: &SpanTree<'_>, base: usize, whole: Span) {
        let fix = |l: &mut Loc| {
            if let Loc::Path(p) = l {
                let span = tree
                    .locate(p)
                    .map(|(s, e)| Span::new(base + s, base + e))
                    .unwrap_or(whole);
                *l = Loc::Span(span);
            }
        };
        self.locs.iter_mut().for_each(fix);
        self.findings.iter_mut().for_each(|(_, l)| fix(l));
    }

    /// Finish: spans copied onto calls and findings (call `resolve` first for documents).
    pub fn finish(mut self) -> (Vec<ToolCall>, Vec<ToolDecl>, Vec<ReadFinding>) {
        for (call, loc) in self.calls.iter_mut().zip(&self.locs) {
            if let Loc::Span(s) = loc {
                call.span = *s;
            }
        }
        let findings = self
            .findings
            .into_iter()
            .map(|(mut f, l)| {
                if let Loc::Span(s) = l {
                    f.span = s;
                }
                f
            })
            .collect();
        (self.calls, self.tools, findings)
    }
}

/// The argument-string rule: blank → `{}`, valid JSON → the value, else an error.
/// The fingerprint of the arguments a call would keep (the argument rules of
/// [`Sink::decode_args`], without their findings).
fn args_fingerprint(args: &Args<'_>) -> u64 {
    match args {
        Args::Value(Value::String(s)) | Args::Owned(Value::String(s)) => match parse_args_text(s) {
            Ok(v) => fingerprint_of(&v),
            Err(_) => fingerprint_of_str(s),
        },
        Args::Value(v) => fingerprint_of(v),
        Args::Owned(v) => fingerprint_of(v),
        Args::Raw(s) => fingerprint_of_str(s),
        Args::Empty => fingerprint_of(&Value::Object(Default::default())),
    }
}

/// A 64-bit fingerprint of a JSON value, equal for values serde_json calls equal (objects
/// compared as maps, whatever their members' order).
fn fingerprint_of(v: &Value) -> u64 {
    use std::hash::{Hash, Hasher};
    fn hash_of(f: impl FnOnce(&mut std::collections::hash_map::DefaultHasher)) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        f(&mut h);
        h.finish()
    }
    match v {
        Value::Null => hash_of(|h| 0u8.hash(h)),
        Value::Bool(b) => hash_of(|h| (1u8, b).hash(h)),
        Value::Number(n) => hash_of(|h| (2u8, n).hash(h)),
        Value::String(s) => fingerprint_of_str(s),
        Value::Array(items) => hash_of(|h| {
            4u8.hash(h);
            for item in items {
                fingerprint_of(item).hash(h);
            }
        }),
        // Member order does not count: the members' hashes are summed.
        Value::Object(members) => {
            let sum = members.iter().fold(0u64, |acc, (k, v)| {
                acc.wrapping_add(hash_of(|h| (k, fingerprint_of(v)).hash(h)))
            });
            hash_of(|h| (5u8, sum, members.len()).hash(h))
        }
    }
}

fn fingerprint_of_str(s: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (3u8, s).hash(&mut h);
    h.finish()
}

pub(crate) fn parse_args_text(s: &str) -> Result<Value, serde_json::Error> {
    if s.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    serde_json::from_str(s)
}

/// The output rule: strings verbatim; a non-empty list made only of text blocks → the texts
/// joined with `"\n"`; anything else as JSON.
pub(crate) fn norm_output(v: &Value) -> Value {
    if let Value::Array(items) = v {
        if !items.is_empty() && items.iter().all(is_text_block) {
            let texts: Vec<&str> = items
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect();
            return Value::String(texts.join("\n"));
        }
    }
    v.clone()
}

fn is_text_block(b: &Value) -> bool {
    matches!(
        b.get("type").and_then(Value::as_str),
        Some("text" | "input_text" | "output_text")
    ) && b.get("text").is_some_and(Value::is_string)
}

/// A string field of an object.
pub(crate) fn s<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str)
}

/// An id as a string: strings as is, numbers in decimal.
pub(crate) fn id_string(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// An array field (empty slice if absent or not an array).
pub(crate) fn arr<'v>(v: &'v Value, key: &str) -> &'v [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn argument_rule() {
        assert_eq!(parse_args_text("  ").unwrap(), json!({}));
        assert_eq!(parse_args_text("{\"a\":1}").unwrap(), json!({"a": 1}));
        assert!(parse_args_text("{\"a\":").is_err());
    }

    #[test]
    fn output_rule() {
        let blocks = json!([{"type":"text","text":"a"},{"type":"output_text","text":"b"}]);
        assert_eq!(norm_output(&blocks), json!("a\nb"));
        let mixed = json!([{"type":"text","text":"a"},{"type":"image"}]);
        assert_eq!(norm_output(&mixed), mixed);
        assert_eq!(norm_output(&json!([])), json!([]));
        assert_eq!(norm_output(&json!("{\"x\":1}")), json!("{\"x\":1}"));
    }

    #[test]
    fn a_reused_id_on_another_call_is_a_new_call_and_results_link_to_the_latest() {
        let mut s = Sink::default();
        let at = |o| Loc::Span(Span::point(o));
        let a = s.call(
            "f",
            Args::Value(&json!("{\"x\":1}")),
            Some("c0".into()),
            at(0),
        );
        assert!(s.answer_id("c0", Some(json!("one")), false));
        // Same id, same call (resent): the same call.
        let again = s.call("f", Args::Value(&json!({"x": 1})), Some("c0".into()), at(3));
        assert_eq!(a, again);
        // Same id, other arguments or name: new calls.
        let b = s.call(
            "f",
            Args::Value(&json!("{\"x\":2}")),
            Some("c0".into()),
            at(5),
        );
        assert_ne!(a, b);
        assert!(s.answer_id("c0", Some(json!("two")), false));
        let c = s.call(
            "g",
            Args::Value(&json!("{\"x\":2}")),
            Some("c0".into()),
            at(9),
        );
        assert_ne!(b, c);
        let (calls, _, _) = s.finish();
        let got: Vec<_> = calls
            .iter()
            .map(|c| (c.name.as_str(), c.output.clone()))
            .collect();
        assert_eq!(
            got,
            [
                ("f", Some(json!("one"))),
                ("f", Some(json!("two"))),
                ("g", None)
            ]
        );
    }

    #[test]
    fn duplicates_by_id_are_counted_once_and_results_link() {
        let mut s = Sink::default();
        let a = s.call(
            "f",
            Args::Value(&json!("{\"x\":1}")),
            Some("1".into()),
            Loc::Span(Span::point(0)),
        );
        let b = s.call(
            "f",
            Args::Empty,
            Some("1".into()),
            Loc::Span(Span::point(5)),
        );
        assert_eq!(a, b);
        s.call(
            "g",
            Args::Value(&json!("{bad")),
            None,
            Loc::Span(Span::point(9)),
        );
        assert!(s.answer_id("1", Some(json!("ok")), false));
        assert!(s.answer_name("g", Some(json!("no")), true));
        assert!(!s.answer_name("g", None, false));
        let (calls, _, findings) = s.finish();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[1].args, json!("{bad"));
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].span, Span::point(9));
    }
}
