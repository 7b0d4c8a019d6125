//! Claude Code session JSONL: one content block per `assistant` line, tool results in `user`
//! lines; resumed sessions repeat lines (de-duplicated by `tool_use.id`).
//!
//! A session line is read one of two ways, to the same calls, results and findings: from its
//! `Value` ([`State::line`]: documents, and the lines read before the format was known), or
//! from its text into [`Line`] ([`State::text`]), which builds only what the reader reads. Most
//! of a session is tool output, each result written twice (the `tool_result` block's `content`
//! and the line's `toolUseResult`); a member not read is checked by serde_json as it skips it
//! (`IgnoredAny`), never built.

use std::borrow::Cow;
use std::collections::HashMap;
use std::marker::PhantomData;
use std::rc::Rc;

use serde::de::value::MapAccessDeserializer;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

use super::super::sink::{content_text, field, is_prompt, norm_output_owned, Args, Sink};
use super::super::spans::Seg;
use super::super::Format;
use super::anthropic;

/// Read a document of Claude Code session lines (an array of them, or one).
pub(crate) fn read(v: &Value, sink: &mut Sink) -> Result<(), String> {
    super::session_doc(Format::ClaudeCode, "Claude Code session", v, sink)
}

/// Claude Code session state (all linking is by tool-use id, kept in the sink; what is kept
/// here names the sub-agents of sidechains).
#[derive(Default)]
pub(crate) struct State {
    /// The prompt of each `Task` (or `Agent`) call → the sub-agent it starts: its
    /// `subagent_type`, else its `description`.
    tasks: HashMap<String, String>,
    /// Each sidechain line read, by `uuid` → its agent: a line's agent is its parent's, and a
    /// sidechain's first line (no parent) names it by its prompt.
    chain: HashMap<String, Rc<str>>,
}

/// What the scopes read of a session line, whichever way it was read.
struct Scoping<'a> {
    user: bool,
    sidechain: bool,
    meta: bool,
    uuid: Option<&'a str>,
    parent: Option<&'a str>,
    agent_id: Option<&'a str>,
    /// The message's text: a string content, or its text blocks joined.
    text: Option<String>,
    /// Whether the message is a prompt (a string, or some block that is not a tool result).
    prompt: bool,
}

impl State {
    /// Before a line's blocks are read: the agent its calls belong to, and whether it starts
    /// a user turn (a prompt on the main chain, not a meta line).
    fn scope(&mut self, l: &Scoping<'_>, sink: &mut Sink) {
        if !l.sidechain {
            sink.set_agent(None);
            if l.user && l.prompt && !l.meta {
                sink.user_turn();
            }
            return;
        }
        let agent: Rc<str> = if let Some(a) = l.parent.and_then(|p| self.chain.get(p)) {
            a.clone()
        } else {
            let by_prompt = l.text.as_ref().and_then(|t| self.tasks.get(t.trim()));
            Rc::from(by_prompt.map_or_else(|| l.agent_id.unwrap_or("subagent"), |a| a.as_str()))
        };
        sink.set_agent(Some(&agent));
        if let Some(u) = l.uuid {
            self.chain.insert(u.to_owned(), agent);
        }
    }

    /// After a line's blocks: the main chain's assistant text is the answer so far.
    fn answer(l: &Scoping<'_>, sink: &mut Sink) {
        if !l.user && !l.sidechain {
            if let Some(t) = &l.text {
                sink.assistant_text(t);
            }
        }
    }

    /// A `Task` call's sub-agent, by its prompt (so that its sidechain is named after it): the
    /// agent's name, which the call starts a run of.
    fn task(&mut self, name: &str, input: Option<&Value>) -> Option<String> {
        if !matches!(name, "Task" | "Agent") {
            return None;
        }
        let input = input?;
        let field = |k: &str| {
            input
                .get(k)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        let agent = field("subagent_type").or_else(|| field("description"))?;
        if let Some(prompt) = field("prompt") {
            self.tasks
                .insert(prompt.trim().to_owned(), agent.to_owned());
        }
        Some(agent.to_owned())
    }

    /// After a line's calls are recorded: each `Task` call of the line that is new (not a
    /// resumed session's repeat) starts a run of its sub-agent, whose calls come after it.
    fn runs(started: Vec<String>, before: usize, sink: &mut Sink) {
        sink.records_runs();
        if sink.len() > before {
            for agent in started {
                sink.agent_run(&agent);
            }
        }
    }
}

impl State {
    /// Feed one session line.
    pub(crate) fn line(&mut self, v: &Value, sink: &mut Sink) {
        match field(v, "type").and_then(Value::as_str) {
            Some("user" | "assistant") => {}
            // `claude -p --output-format stream-json` opens with the tools the session offers
            // (names only).
            Some("system") if field(v, "subtype").and_then(Value::as_str) == Some("init") => {
                for name in v
                    .get("tools")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    sink.declare::<&Value>(name, None, None);
                }
                return;
            }
            _ => return,
        }
        let Some(m) = field(v, "message") else { return };
        let str_of = |k: &str| v.get(k).and_then(Value::as_str);
        let content = field(m, "content");
        let l = Scoping {
            user: str_of("type") == Some("user"),
            sidechain: field(v, "isSidechain").and_then(Value::as_bool) == Some(true),
            meta: field(v, "isMeta").and_then(Value::as_bool) == Some(true),
            uuid: str_of("uuid"),
            parent: str_of("parentUuid"),
            agent_id: str_of("agentId"),
            text: content_text(content),
            prompt: is_prompt(content),
        };
        self.scope(&l, sink);
        let mut started = Vec::new();
        for b in content.and_then(Value::as_array).into_iter().flatten() {
            if field(b, "type").and_then(Value::as_str) == Some("tool_use") {
                started.extend(self.task(
                    field(b, "name").and_then(Value::as_str).unwrap_or(""),
                    field(b, "input"),
                ));
            }
        }
        let before = sink.len();
        anthropic::blocks(m, &[Seg::K("message"), Seg::K("content")], sink);
        Self::runs(started, before, sink);
        Self::answer(&l, sink);
    }

    /// Feed one session line from its text, building only what the reader reads (`outputs`:
    /// whether results' content is kept). False if it declined, having fed nothing: the caller
    /// then parses the line into a `Value` (for its value or its error) and feeds
    /// [`Self::line`]. Declined: a line [`Line`] does not take (not an object, a member of
    /// another type than the reader expects, a repeated member, any JSON error), a `system`
    /// line, a server tool's result (its error is read from its content), a line that may
    /// hold a number too large for an `f64`, which serde_json refuses when it builds it but
    /// not when it skips it, and a call whose arguments may not hold a number as written.
    pub(crate) fn text(&mut self, text: &str, outputs: bool, sink: &mut Sink) -> bool {
        if may_overflow(text.as_bytes()) {
            return false;
        }
        if outputs {
            self.typed::<Value>(text, sink)
        } else {
            self.typed::<IgnoredAny>(text, sink)
        }
    }

    fn typed<'a, C: Output + Deserialize<'a>>(&mut self, text: &'a str, sink: &mut Sink) -> bool {
        let Ok(Obj(line)) = serde_json::from_str::<Obj<Line<'a, C>>>(text) else {
            return false;
        };
        match line.ty.as_ref().map(|t| &*t.0) {
            Some("user" | "assistant") => {}
            Some("system") => return false,
            _ => return true,
        }
        let (blocks, string) = line
            .message
            .map(|m| (m.0.content.0, m.0.content.1))
            .unwrap_or_default();
        let server_result = |b: &Block<'_, C>| {
            b.ty.as_ref().is_some_and(|t| {
                t.0.ends_with("_tool_result") && !matches!(&*t.0, "tool_result" | "mcp_tool_result")
            })
        };
        if blocks.iter().any(server_result) {
            return false;
        }
        // Arguments that may not hold a number as written (an integer past 64 bits, `-0`) are
        // read from the line's value, whose text a profile then reads
        // ([`Sink::keep_written_args`]).
        if blocks
            .iter()
            .any(|b| b.input.as_ref().is_some_and(crate::json::may_be_inexact))
        {
            return false;
        }
        let prompt = string.is_some()
            || blocks
                .iter()
                .any(|b| !b.ty.as_ref().is_some_and(|t| t.0.ends_with("tool_result")));
        let texts: Vec<&str> = blocks
            .iter()
            .filter(|b| {
                b.ty.as_ref()
                    .is_some_and(|t| matches!(&*t.0, "text" | "output_text"))
            })
            .filter_map(|b| b.text.as_ref().map(|t| &*t.0))
            .collect();
        let l = Scoping {
            user: line.ty.as_ref().is_some_and(|t| t.0 == "user"),
            sidechain: line.is_sidechain == Some(true),
            meta: line.is_meta == Some(true),
            uuid: line.uuid.as_ref().map(|u| &*u.0),
            parent: line.parent.as_ref().map(|u| &*u.0),
            agent_id: line.agent_id.as_ref().map(|u| &*u.0),
            text: string.or_else(|| (!texts.is_empty()).then(|| texts.join("\n"))),
            prompt,
        };
        self.scope(&l, sink);
        let mut started = Vec::new();
        let before = sink.len();
        for (index, b) in blocks.into_iter().enumerate() {
            let loc = |sink: &Sink| sink.at(&[Seg::K("message"), Seg::K("content"), Seg::I(index)]);
            let str_of = |s: &Option<Str<'_>>| s.as_ref().map_or("", |s| &*s.0).to_owned();
            match b.ty.as_ref().map(|t| &*t.0) {
                Some(ty @ ("tool_use" | "server_tool_use" | "mcp_tool_use")) => {
                    if ty == "tool_use" {
                        started.extend(self.task(&str_of(&b.name), b.input.as_ref()));
                    }
                    let args = b.input.map_or(Args::Empty, Args::Owned);
                    let l = loc(sink);
                    sink.call(&str_of(&b.name), args, b.id.map(|id| id.0.into_owned()), l);
                }
                Some(ty @ ("tool_result" | "mcp_tool_result")) => {
                    let output = b.content.and_then(Output::value).map(norm_output_owned);
                    let id = str_of(&b.tool_use_id);
                    anthropic::result(sink, ty, &id, output, b.is_error.unwrap_or(false), loc);
                }
                _ => {}
            }
        }
        Self::runs(started, before, sink);
        Self::answer(&l, sink);
        true
    }
}

/// What [`State::text`] reads of a session line; every other member is skipped.
#[derive(Deserialize)]
#[serde(bound(deserialize = "C: Deserialize<'de>"))]
struct Line<'a, C> {
    #[serde(borrow, rename = "type")]
    ty: Option<Str<'a>>,
    #[serde(rename = "isSidechain")]
    is_sidechain: Option<bool>,
    #[serde(rename = "isMeta")]
    is_meta: Option<bool>,
    #[serde(borrow)]
    uuid: Option<Str<'a>>,
    #[serde(borrow, rename = "parentUuid")]
    parent: Option<Str<'a>>,
    #[serde(borrow, rename = "agentId")]
    agent_id: Option<Str<'a>>,
    #[serde(borrow)]
    message: Option<Obj<Message<'a, C>>>,
}

#[derive(Deserialize)]
#[serde(bound(deserialize = "C: Deserialize<'de>"))]
struct Message<'a, C> {
    #[serde(borrow, default = "Blocks::none")]
    content: Blocks<'a, C>,
}

/// A content block: a tool use or result is read, any other block only checked.
#[derive(Deserialize)]
#[serde(bound(deserialize = "C: Deserialize<'de>"))]
struct Block<'a, C> {
    #[serde(borrow, rename = "type")]
    ty: Option<Str<'a>>,
    #[serde(borrow)]
    id: Option<Str<'a>>,
    #[serde(borrow)]
    name: Option<Str<'a>>,
    #[serde(borrow)]
    tool_use_id: Option<Str<'a>>,
    /// A text block's text (the answer, a prompt).
    #[serde(borrow)]
    text: Option<Str<'a>>,
    /// `null` is an input (`Some(Value::Null)`), as in the `Value`.
    #[serde(default, deserialize_with = "some")]
    input: Option<Value>,
    #[serde(default, deserialize_with = "some")]
    content: Option<C>,
    is_error: Option<bool>,
}

/// A string, borrowed from the line unless it has escapes.
#[derive(Deserialize)]
struct Str<'a>(#[serde(borrow)] Cow<'a, str>);

/// A result's content: kept (`Value`) or skipped (`IgnoredAny`).
trait Output {
    fn value(self) -> Option<Value>;
}

impl Output for Value {
    fn value(self) -> Option<Value> {
        Some(self)
    }
}

impl Output for IgnoredAny {
    fn value(self) -> Option<Value> {
        None
    }
}

fn some<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// `T` read from a JSON object only (a derived struct would also take an array).
struct Obj<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = T;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map))
            }
        }
        d.deserialize_map(V(PhantomData)).map(Obj)
    }
}

/// `message.content`: its blocks when it is a list; a string (a prompt) or `null` has none
/// (a string is kept beside).
struct Blocks<'a, C>(Vec<Block<'a, C>>, Option<String>);

impl<C> Blocks<'_, C> {
    fn none() -> Self {
        Blocks(Vec::new(), None)
    }
}

impl<'de: 'a, 'a, C: Deserialize<'de>> Deserialize<'de> for Blocks<'a, C> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a, C>(PhantomData<Blocks<'a, C>>);
        impl<'de: 'a, 'a, C: Deserialize<'de>> Visitor<'de> for V<'a, C> {
            type Value = Blocks<'a, C>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a list of content blocks or a string")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(Obj(b)) = seq.next_element()? {
                    out.push(b);
                }
                Ok(Blocks(out, None))
            }
            fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
                Ok(Blocks(Vec::new(), Some(s.to_owned())))
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(Blocks::none())
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// Whether `b` may hold a number too large for an `f64`: a number (after `:`, `,`, `[` or
/// whitespace) with an exponent of three digits or more, or 64 digits in a row (two-digit
/// exponents reach 10^99, so an overflow needs some 200 digits otherwise). Text in strings can
/// look like a number too: a line flagged is only read the slower way. The line is looked at
/// 64 bytes at a time, without branching (for every digit followed by `e` or `E`, and for
/// digits only), and closer only where a block has one.
fn may_overflow(b: &[u8]) -> bool {
    const BLOCK: usize = 64;
    let n = b.len();
    let mut start = 0;
    while start + 1 < n {
        let end = (start + BLOCK).min(n - 1);
        let (x, y) = (&b[start..end], &b[(start + 1)..=end]);
        let exp = x.iter().zip(y).fold(false, |a, (p, c)| {
            a | (p.is_ascii_digit() & (c | 0x20 == b'e'))
        });
        let digits = x.len() == BLOCK && x.iter().fold(true, |a, c| a & c.is_ascii_digit());
        if digits || (exp && (start..end).any(|i| big_exponent(b, i))) {
            return true;
        }
        start = end;
    }
    false
}

/// Whether a number with an exponent of three digits or more ends its mantissa at `b[i]`.
fn big_exponent(b: &[u8], i: usize) -> bool {
    if !(b[i].is_ascii_digit() && b[i + 1] | 0x20 == b'e') {
        return false;
    }
    let rest = &b[i + 2..];
    let rest = rest
        .strip_prefix(b"+")
        .or(rest.strip_prefix(b"-"))
        .unwrap_or(rest);
    if !(rest.len() >= 3 && rest[..3].iter().all(u8::is_ascii_digit)) {
        return false;
    }
    let mantissa = b[..=i]
        .iter()
        .rev()
        .take_while(|c| c.is_ascii_digit() || **c == b'.')
        .count();
    let before = &b[..i + 1 - mantissa];
    let before = before.strip_suffix(b"-").unwrap_or(before);
    matches!(
        before.last(),
        None | Some(b':' | b',' | b'[' | b' ' | b'\t' | b'\n' | b'\r')
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Span;
    use crate::transcript::sink::Finished;
    use crate::transcript::Keep;

    /// Lines of every shape the two ways of reading have to agree on (the rest of each session
    /// comes from the corpus files below).
    const LINES: &[&str] = &[
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a.py"}}]},"uuid":"u1"}"#,
        r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"line 1\nline 2","is_error":false}]},"toolUseResult":{"file":{"content":"x"}}}"#,
        r#"{"message":{"content":[{"input":"{\"a\":1}","name":"N\u0041","id":"t\u00e92","type":"tool_use"}]},"type":"assistant"}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a.py"}}]}}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"b.py"}}]}}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"mcp_tool_use","name":"m"},{"type":"server_tool_use","id":7,"name":null,"input":"not json"}]}}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"n","name":"N","input":null}]}}"#,
        r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"is_error":true,"is_error":"yes"}]}}"#,
        r#"{"type":"user","message":{"content":[{"type":"mcp_tool_result","tool_use_id":"nope","content":{"x":1}},{"type":"tool_result"}]}}"#,
        r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"n","content":null}]}}"#,
        r#"{"type":"user","message":{"content":[1,"x",null,{"type":"tool_result","tool_use_id":"t1","is_error":true}]}}"#,
        r#"{"type":"user","message":{"content":"plain text"}}"#,
        r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1"}]},"message":null}"#,
        r#"{"type":"assistant","type":1,"message":{"content":[{"type":"tool_use","id":"z","name":"Z"}]}}"#,
        r#"{"type":"summary","message":{"content":[{"type":"tool_use","id":"s","name":"S"}]}}"#,
        r#"{"type":"system","subtype":"init","tools":["Read","Bash"]}"#,
        r#"{"type":"user","message":{"content":[{"type":"web_search_tool_result","tool_use_id":"s1","content":{"error_code":"x"}}]}}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"big","name":"B","input":{"n":1e400}}]}}"#,
        r#"{"typ\u0065":"assistant","message":{"cont\u0065nt":[{"typ\u0065":"tool_use","id":"e","name":"E","input":{}}]}}"#,
        r#"["assistant",{"content":[{"type":"tool_use","id":"arr","name":"A"}]}]"#,
        r#"{"type":"assistant","message":["x",[{"type":"tool_use","id":"arr2","name":"A"}]]}"#,
        r#"{"type":"assistant","message":{"content":[["tool_use","arr3","A"]]}}"#,
    ];

    fn sessions() -> Vec<Vec<String>> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut out = vec![LINES.iter().map(std::string::ToString::to_string).collect()];
        for pattern in [
            "tests/fixtures/**/claude_code/*.jsonl",
            "examples/runs/**/claude-code-*.jsonl",
        ] {
            let pattern = root.join(pattern);
            for path in glob::glob(pattern.to_str().unwrap()).unwrap().flatten() {
                let text = std::fs::read_to_string(&path).unwrap();
                out.push(text.lines().map(str::to_string).collect());
            }
        }
        assert!(out.len() > 8, "the corpus sessions are found");
        out
    }

    fn read(lines: &[String], outputs: bool, typed: bool) -> (Finished, usize) {
        let mut sink = Sink::keeping(&Keep::default());
        let mut state = State::default();
        let mut took = 0;
        for (i, line) in lines.iter().enumerate() {
            sink.line = Some(Span::new(i, i + 1));
            if typed && state.text(line, outputs, &mut sink) {
                took += 1;
                continue;
            }
            if let Ok(v) = serde_json::from_str::<Value>(line) {
                state.line(&v, &mut sink);
            }
        }
        let mut f = sink.finish();
        if !outputs {
            for c in &mut f.calls {
                c.output = None;
            }
        }
        (f, took)
    }

    #[test]
    fn the_typed_path_reads_what_the_value_path_reads() {
        let mut took = 0;
        for lines in sessions() {
            for outputs in [true, false] {
                let (want, _) = read(&lines, outputs, false);
                let (got, n) = read(&lines, outputs, true);
                took += n;
                assert_eq!(got.calls, want.calls, "{:?}", lines.first());
                assert_eq!(got.findings, want.findings, "{:?}", lines.first());
                assert_eq!(got.tools, want.tools);
                assert_eq!(
                    (got.turns, &got.answer),
                    (want.turns, &want.answer),
                    "{:?}",
                    lines.first()
                );
            }
        }
        assert!(took > 200, "most lines take the typed path ({took})");
    }

    #[test]
    fn the_typed_path_declines_what_it_does_not_read() {
        let declined = |line: &str| {
            let mut sink = Sink::keeping(&Keep::default());
            let took = State::default().text(line, false, &mut sink);
            // Declining feeds nothing.
            assert!(took || sink.len() == 0, "{line}");
            !took
        };
        for line in [
            r#"{"type":"system","subtype":"init","tools":["Read"]}"#,
            r#"{"type":"user","message":{"content":[{"type":"web_search_tool_result","content":{}}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","input":{"n":1e400}}]}}"#,
            r#"{"type":"user","toolUseResult":{"n":[1e400]}}"#,
            r#"{"type":"user","toolUseResult":"\"1e400","n":-1234567890123456789e300}"#,
            r#"{"type":"assistant","message":{"usage":{"t":1E+999},"content":[]}}"#,
            r#"{"type":"user","x":[1,]}"#,
            r#"{"type":"user","x":"\q"}"#,
            r#"{"type":"user"} x"#,
            r#"[{"type":"user"}]"#,
            r#"["assistant",{"content":[{"type":"tool_use","id":"arr","name":"A"}]}]"#,
            r#"{"type":"assistant","type":"assistant"}"#,
        ] {
            assert!(declined(line), "{line}");
        }
        for line in [
            LINES[0],
            r#"{"type":"summary","n":[1e30,123456789012345678901234,-0.5e-40]}"#,
        ] {
            assert!(!declined(line), "{line}");
        }
    }

    #[test]
    fn lines_that_may_overflow_are_flagged() {
        for (text, flagged) in [
            ("1e400", true),
            ("1E+308", true),
            ("-2e-400", true),
            ("1e99", false),
            ("\"e400\"", false),
            ("12345678901234567890", false),
            ("[1.5e-400]", true),
            ("{\"n\": -1e400}", true),
            ("\"a434715e123-\"", false),
            ("\"4e123\"", false),
        ] {
            assert_eq!(may_overflow(text.as_bytes()), flagged, "{text}");
        }
        for pad in 0..70 {
            let line = format!("{}[{}]", " ".repeat(pad), "9".repeat(200));
            assert!(may_overflow(line.as_bytes()), "{pad}");
            let line = format!("{}[1e400]", " ".repeat(pad));
            assert!(may_overflow(line.as_bytes()), "{pad}");
        }
    }
}
