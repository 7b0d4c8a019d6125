//! Gemini API: REST request bodies (camelCase), python-genai histories (snake_case),
//! `GenerateContentResponse` documents and gemini-cli `{method, response}` replays.
//!
//! Streams with partial arguments (Vertex `streamFunctionCallArguments`): a call opens with
//! `functionCall {name, willContinue: true}`; the `functionCall` parts that follow carry no name,
//! only `partialArgs: [{jsonPath, stringValue | numberValue | boolValue | nullValue,
//! willContinue}]` fragments (a `PartialArg` of the Vertex API: `jsonPath` is an RFC 9535 path
//! such as `$.operations[0].price`; `willContinue` says more of the same path follows, string
//! pieces are concatenated), and an empty `functionCall {}` — or a fragment part without
//! `willContinue` — closes the call. Nameless parts are never calls of their own.

use serde_json::{Map, Value};

use super::super::detect;
use super::super::sink::{Args, Loc, Sink};
use super::super::spans::Seg;
use crate::code::Code;
use crate::json::owned_value;
use crate::json::view::Json;

/// Deepest `jsonPath` of a streamed argument that is followed (segments after `$`); a deeper
/// one is reported and skipped, so no fragment builds an argument tree deeper than this.
pub(crate) const MAX_PARTIAL_PATH_DEPTH: usize = 32;

/// A call whose arguments are still streaming in.
struct Open {
    /// The call's index in the sink.
    index: usize,
    /// Where it opened (for findings).
    loc: Loc,
    /// The arguments assembled so far.
    args: Value,
    /// The path of the last string fragment, when it said more of it follows.
    continuing: Option<Vec<Step>>,
}

/// One step of a `jsonPath`.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

/// State carried across the parts of a Gemini transcript (and across the lines of a response
/// stream): the call still receiving `partialArgs`.
#[derive(Default)]
pub(crate) struct Stream {
    open: Option<Open>,
    /// Google Interactions stream events: the `function_call` steps still open, by index.
    steps: super::blocks::OpenBlocks,
}

impl Stream {
    /// Read a Gemini document (or one line of a Gemini JSONL session).
    pub(crate) fn read<'s, J: Json<'s>>(&mut self, v: J, sink: &mut Sink) -> Result<(), String> {
        read_with(self, v, sink)
    }

    /// End of input: a call still open keeps the arguments received.
    pub(crate) fn finish(&mut self, sink: &mut Sink) {
        self.close(sink);
        self.steps.stop_all(sink);
    }

    /// One Google Interactions stream event (`{event_type, …}`, one per line): a
    /// `function_call` step opens at `step.start` with its `name`, `id` and `arguments`; the
    /// `arguments_delta` pieces of its `index` that follow are its arguments, read by the
    /// argument-string rule at `step.stop`. Other events (the interaction's status, thoughts,
    /// text) hold no call.
    fn interaction_event<'s, J: Json<'s>>(&mut self, v: J, sink: &mut Sink) {
        let index = v.get("index").and_then(J::as_u64).unwrap_or(0);
        match v.str_of("event_type") {
            Some("step.start") => {
                let Some(st) = v
                    .get("step")
                    .filter(|s| s.str_of("type") == Some("function_call"))
                else {
                    return;
                };
                let args = st
                    .get("arguments")
                    .filter(|a| !a.is_null())
                    .map_or(Args::Empty, Args::of);
                let l = sink.at(&[Seg::K("step")]);
                let before = sink.len();
                sink.call(
                    st.str_of("name").unwrap_or(""),
                    args,
                    st.str_of("id")
                        .filter(|i| !i.is_empty())
                        .map(str::to_string),
                    l,
                );
                if sink.len() > before {
                    self.steps.open(index, sink.len() - 1, sink);
                }
            }
            Some("step.delta") => {
                let d = v.get("delta");
                if d.and_then(|d| d.str_of("type")) == Some("arguments_delta") {
                    if let Some(piece) = d.and_then(|d| d.str_of("arguments")) {
                        self.steps.push(index, piece);
                    }
                }
            }
            Some("step.stop") => self.steps.stop(index, sink),
            _ => {}
        }
    }

    fn close(&mut self, sink: &mut Sink) {
        if let Some(o) = self.open.take() {
            sink.set_args(o.index, Args::Owned(o.args));
        }
    }

    /// A `functionCall` part (at `loc`).
    fn function_call<'s, J: Json<'s>>(&mut self, fc: J, loc: Loc, sink: &mut Sink) {
        let continues = fc.get("willContinue").and_then(J::as_bool) == Some(true);
        if let Some(name) = fc.str_of("name").filter(|n| !n.is_empty()) {
            self.close(sink);
            let args = fc
                .get("args")
                .filter(|a| !a.is_null())
                .map_or(Args::Empty, Args::of);
            let first = fc.get("args").filter(|a| a.is_obj()).map(owned_value);
            let id = fc.str_of("id").map(str::to_string);
            let index = sink.call(name, args, id, loc.clone());
            if continues {
                self.open = Some(Open {
                    index,
                    loc,
                    args: first.unwrap_or_else(|| Value::Object(Map::new())),
                    continuing: None,
                });
            }
        } else {
            let Some(open) = &mut self.open else {
                // A fragment of a call that is not in the file: nothing to attach it to.
                if fc.items_of("partialArgs").len() > 0 {
                    sink.finding(
                        Code::OrphanResult,
                        "a `functionCall` part with only `partialArgs` continues a call that is not in the file; it was skipped".to_string(),
                        loc,
                    );
                }
                return;
            };
            for pa in fc.items_of("partialArgs") {
                if let Err(msg) = open.fragment(pa) {
                    let at = open.loc.clone();
                    sink.finding(Code::InvalidArguments, msg, at);
                }
            }
            if !continues {
                self.close(sink);
            }
        }
    }
}

impl Open {
    /// Apply one `PartialArg`.
    fn fragment<'s, J: Json<'s>>(&mut self, pa: J) -> Result<(), String> {
        let raw = pa.str_of("jsonPath").unwrap_or("");
        let path = parse_path(raw).ok_or_else(|| {
            format!("a streamed argument has a `jsonPath` toolspec cannot follow (`{}`); the fragment was skipped", short(raw))
        })?;
        let more = pa.get("willContinue").and_then(J::as_bool) == Some(true);
        let (value, text) = if let Some(t) = pa.str_of("stringValue") {
            (Value::String(t.to_string()), true)
        } else if let Some(n) = pa.get("numberValue").filter(|n| n.is_num()) {
            (owned_value(n), false)
        } else if let Some(b) = pa.get("boolValue").and_then(J::as_bool) {
            (Value::Bool(b), false)
        } else if pa.get("nullValue").is_some() {
            (Value::Null, false)
        } else {
            return Ok(());
        };
        if !fits(&self.args, &path) {
            return Err(format!("a streamed argument's `jsonPath` (`{}`) does not fit the arguments received before it; the fragment was skipped", short(raw)));
        }
        let append = text && self.continuing.as_ref() == Some(&path);
        self.continuing = (text && more).then(|| path.clone());
        let slot = slot(&mut self.args, &path).ok_or_else(|| {
            format!("a streamed argument's `jsonPath` (`{}`) does not fit the arguments received before it; the fragment was skipped", short(raw))
        })?;
        match (append, slot, value) {
            (true, Value::String(have), Value::String(more)) => have.push_str(&more),
            (_, slot, value) => *slot = value,
        }
        Ok(())
    }
}

fn short(s: &str) -> String {
    if s.chars().count() <= 60 {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(57).collect();
        t.push('…');
        t
    }
}

/// The steps of a `jsonPath` in the forms the Vertex API writes (`$.a.b[0]`) and RFC 9535's
/// normalized form (`$['a']['b'][0]`); `None` for anything else (wildcards, filters, slices)
/// or past [`MAX_PARTIAL_PATH_DEPTH`] steps.
fn parse_path(p: &str) -> Option<Vec<Step>> {
    let mut rest = p.strip_prefix('$')?;
    let mut steps = Vec::new();
    while !rest.is_empty() {
        if steps.len() >= MAX_PARTIAL_PATH_DEPTH {
            return None;
        }
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            let name = &r[..end];
            if name.is_empty() || name == "*" {
                return None;
            }
            steps.push(Step::Key(name.to_string()));
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix('[') {
            let close = r.find(']')?;
            let inner = &r[..close];
            if let Some(q) = inner.chars().next().filter(|c| *c == '\'' || *c == '"') {
                // A quoted name (no escapes inside: those are not followed).
                let name = inner.strip_prefix(q)?.strip_suffix(q)?;
                if name.contains(['\\', '\'', '"']) {
                    return None;
                }
                steps.push(Step::Key(name.to_string()));
            } else {
                if inner.is_empty() || !inner.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                steps.push(Step::Index(inner.parse().ok()?));
            }
            rest = &r[close + 1..];
        } else {
            return None;
        }
    }
    Some(steps)
}

/// Whether [`slot`] finds a place for `path` in `root` (checked first, so that a path that does
/// not fit changes nothing).
fn fits(root: &Value, path: &[Step]) -> bool {
    let mut cur = Some(root);
    for (k, step) in path.iter().enumerate() {
        // Below the root, a missing or scalar value is replaced by an empty container of the
        // kind the step needs.
        let container = cur.filter(|v| k == 0 || v.is_object() || v.is_array());
        cur = match (step, container) {
            (Step::Key(name), Some(Value::Object(o))) => o.get(name),
            (Step::Index(i), Some(Value::Array(a))) if *i <= a.len() => a.get(*i),
            (Step::Key(_) | Step::Index(0), None) => None,
            _ => return false,
        };
    }
    true
}

/// The value at `path` inside `root`, creating objects and arrays on the way. An array index
/// may be at most the array's length (one past the end appends): fragments arrive in order,
/// and no index makes a large array out of nothing. `None` where the path does not fit.
fn slot<'v>(root: &'v mut Value, path: &[Step]) -> Option<&'v mut Value> {
    let mut cur = root;
    for (k, step) in path.iter().enumerate() {
        let next_is_index = matches!(path.get(k + 1), Some(Step::Index(_)));
        let fresh = || {
            if next_is_index {
                Value::Array(Vec::new())
            } else {
                Value::Object(Map::new())
            }
        };
        let last = k + 1 == path.len();
        cur = match step {
            Step::Key(name) => {
                let obj = cur.as_object_mut()?;
                let v = obj.entry(name.clone()).or_insert_with(|| Value::Null);
                if !(last || v.is_object() || v.is_array()) {
                    *v = fresh();
                }
                v
            }
            Step::Index(i) => {
                let a = cur.as_array_mut()?;
                if *i > a.len() {
                    return None;
                }
                if *i == a.len() {
                    a.push(Value::Null);
                }
                let v = &mut a[*i];
                if !(last || v.is_object() || v.is_array()) {
                    *v = fresh();
                }
                v
            }
        };
    }
    Some(cur)
}

/// Read a Gemini document on its own.
pub(crate) fn read<'s, J: Json<'s>>(v: J, sink: &mut Sink) -> Result<(), String> {
    let mut st = Stream::default();
    let r = st.read(v, sink);
    st.finish(sink);
    r
}

fn read_with<'s, J: Json<'s>>(st: &mut Stream, v: J, sink: &mut Sink) -> Result<(), String> {
    if detect::is_interaction_event(v) {
        st.interaction_event(v, sink);
        return Ok(());
    }
    if detect::is_interaction(v) {
        interaction(v, sink);
        return Ok(());
    }
    if v.get("candidates").is_some() {
        response(st, v, &[], sink);
        return Ok(());
    }
    if let Some(list) = v
        .as_items()
        .filter(|a| detect::is_gemini_response_list(a.clone()))
    {
        // A `streamGenerateContent` body without `alt=sse`: the responses of one stream.
        for (k, r) in list.enumerate() {
            response(st, r, &[Seg::I(k)], sink);
        }
        return Ok(());
    }
    if let Some(r) = v.get("response") {
        if let Some(chunks) = r.as_items() {
            for (k, c) in chunks.enumerate() {
                response(st, c, &[Seg::K("response"), Seg::I(k)], sink);
            }
        } else {
            response(st, r, &[Seg::K("response")], sink);
        }
        return Ok(());
    }
    for t in v.items_of("tools") {
        for key in ["functionDeclarations", "function_declarations"] {
            for d in t.items_of(key) {
                let params = d
                    .get("parameters")
                    .or(d.get("parametersJsonSchema"))
                    .or(d.get("parameters_json_schema"));
                sink.declare(d.str_of("name").unwrap_or(""), d.get("description"), params);
            }
        }
    }
    let (contents, root): (J::Items, &[Seg]) =
        if let Some(c) = v.get("contents").and_then(J::as_items) {
            (c, &[Seg::K("contents")])
        } else if let Some(h) = v.get("history").and_then(J::as_items) {
            (h, &[Seg::K("history")])
        } else if let Some(a) = v.as_items() {
            (a, &[])
        } else {
            return Err(format!(
                "expected `contents`, `candidates` or a `{{role, parts}}` list; found {}",
                detect::describe(v)
            ));
        };
    for (i, c) in contents.enumerate() {
        let mut p = root.to_vec();
        p.push(Seg::I(i));
        content(st, c, &p, sink);
    }
    Ok(())
}

impl Stream {
    /// One Gemini `Content` `{role, parts}` of another format's records (an ADK session
    /// event's), at `path`; [`Stream::finish`] ends the transcript.
    pub(crate) fn content(&mut self, c: &Value, path: &[Seg], sink: &mut Sink) {
        content(self, c, path, sink);
    }
}

fn response<'s, J: Json<'s>>(st: &mut Stream, r: J, path: &[Seg], sink: &mut Sink) {
    for (c, cand) in r.items_of("candidates").enumerate() {
        if let Some(content_v) = cand.get("content") {
            let mut p = path.to_vec();
            p.extend([Seg::K("candidates"), Seg::I(c), Seg::K("content")]);
            content(st, content_v, &p, sink);
        }
    }
}

fn content<'s, J: Json<'s>>(st: &mut Stream, c: J, path: &[Seg], sink: &mut Sink) {
    // A user content with text is a prompt (a turn); a model content's text is the answer so
    // far. (Function responses come in user contents too, without text.)
    let text: Vec<&str> = c
        .items_of("parts")
        .filter(|p| p.get("thought").and_then(J::as_bool) != Some(true))
        .filter_map(|p| p.str_of("text"))
        .collect();
    if !text.is_empty() {
        match c.str_of("role") {
            Some("user") => sink.user_turn(),
            Some("model") => sink.assistant_text(&text.join("")),
            _ => {}
        }
    }
    for (j, part) in c.items_of("parts").enumerate() {
        if let Some(fc) = part
            .get("functionCall")
            .or(part.get("function_call"))
            .filter(|f| f.is_obj())
        {
            let l = sink.at_in(path, &[Seg::K("parts"), Seg::I(j)]);
            st.function_call(fc, l, sink);
        }
        if let Some(fr) = part
            .get("functionResponse")
            .or(part.get("function_response"))
            .filter(|f| f.is_obj())
        {
            let response = fr.get("response");
            let err = response.is_some_and(|o| o.get("error").is_some());
            let out = || response.map(owned_value);
            let linked = match fr.str_of("id") {
                Some(id) if sink.has_id(id) => sink.answer_id_with(id, out, err),
                _ => false,
            };
            if !linked {
                sink.answer_name(fr.str_of("name").unwrap_or(""), out(), err);
            }
        }
    }
}

/// A Google Interactions API response (`object: "interaction"`): its `function_call` steps
/// `{id, name, arguments}` are the calls. Their results are not in the response (the client
/// sends them with the next request).
fn interaction<'s, J: Json<'s>>(v: J, sink: &mut Sink) {
    for (i, st) in v.items_of("steps").enumerate() {
        if st.str_of("type") == Some("function_call") {
            let args = st
                .get("arguments")
                .filter(|a| !a.is_null())
                .map_or(Args::Empty, Args::of);
            let l = sink.at(&[Seg::K("steps"), Seg::I(i)]);
            sink.call(
                st.str_of("name").unwrap_or(""),
                args,
                st.str_of("id").map(str::to_string),
                l,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_argument_paths_in_both_written_forms() {
        let k = |s: &str| Step::Key(s.to_string());
        assert_eq!(parse_path("$"), Some(vec![]));
        assert_eq!(
            parse_path("$.operations[0].price"),
            Some(vec![k("operations"), Step::Index(0), k("price")])
        );
        assert_eq!(
            parse_path("$['a b'][2][\"c\"]"),
            Some(vec![k("a b"), Step::Index(2), k("c")])
        );
        for bad in [
            "",
            "a.b",
            "$..a",
            "$.*",
            "$[*]",
            "$[-1]",
            "$['a",
            "$[1:2]",
            "$['a\\'b']",
        ] {
            assert_eq!(parse_path(bad), None, "{bad}");
        }
        let deep = format!("${}", ".a".repeat(MAX_PARTIAL_PATH_DEPTH));
        assert!(parse_path(&deep).is_some());
        assert_eq!(parse_path(&format!("{deep}.a")), None);
    }

    #[test]
    fn a_path_that_does_not_fit_changes_nothing() {
        let mut args = serde_json::json!({"a": [1], "s": "x"});
        let before = args.clone();
        for p in ["$.a[2]", "$.a.b", "$.n[1]", "$.a[0][1]"] {
            let path = parse_path(p).unwrap();
            assert!(!fits(&args, &path), "{p}");
        }
        assert_eq!(args, before);
        // `fits` says exactly what `slot` does.
        for p in [
            "$.a[2]",
            "$.a.b",
            "$.s[0]",
            "$.s[1]",
            "$.a[1].x",
            "$.a[0][0]",
            "$",
        ] {
            let path = parse_path(p).unwrap();
            let mut copy = before.clone();
            assert_eq!(
                fits(&before, &path),
                slot(&mut copy, &path).is_some(),
                "{p}"
            );
        }
        for p in ["$.a[1]", "$.a[0]", "$.s.t", "$.n[0].m", "$.new"] {
            let path = parse_path(p).unwrap();
            assert!(fits(&args, &path), "{p}");
            assert!(slot(&mut args, &path).is_some(), "{p}");
        }
    }
}
