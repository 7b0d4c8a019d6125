//! The normalized model every reader produces and the engine consumes.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::source::Span;

/// One tool call, normalized across formats (the truth-file shape, plus its location).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The tool name as the transcript records it.
    pub name: String,
    /// Arguments. A format that stores them as a JSON string is parsed; blank → `{}`; an invalid
    /// or truncated string is kept verbatim as a JSON string (and reported as a finding).
    pub args: Value,
    /// The id results link by, if the format has one.
    pub id: Option<String>,
    /// What the model saw as the result; `None` (serialized `null`) if none is recorded.
    pub output: Option<Value>,
    /// Whether the format marks the call as failed.
    pub is_error: bool,
    /// Where the call is recorded in the file (byte offsets).
    #[serde(default, skip_serializing)]
    pub span: Span,
    /// The user turn the call belongs to, 1-based: the number of user messages before it, and
    /// 1 for a call before the first (the opening turn). `None` when the format does not record
    /// user messages, or the transcript has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<u32>,
    /// The sub-agent that made the call (a Claude Code Task subagent, an OpenAI Agents SDK
    /// agent, …); `None` for the main agent, or where the format does not record agents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The MCP server (or other namespace) the called tool belongs to, where the format records
    /// it beside the tool's name: Codex's `namespace` (its `mcp__SERVER__` prefix read as
    /// `SERVER`), an OpenAI Responses `mcp_call`'s `server_label`, an Anthropic
    /// `mcp_tool_use`'s `server_name`, an OpenAI Agents SDK function span's `mcp_data.server`.
    /// `name` stays the tool's name as the model called it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// The arguments as the JSON text the transcript writes them in, kept only where `args`
    /// cannot hold them as written ([`crate::json::inexact_in_value`]: an integer past 64 bits,
    /// `-0`): a profile gives its peer this text, which the peer's value model reads as the
    /// peer does. Arguments recorded as a JSON string have it, and arguments recorded as a
    /// JSON value of the file's document or line (Anthropic `input`, Gemini `args`, ...): the
    /// value's span of the file's text. Not serialized.
    #[serde(skip)]
    pub args_text: Option<Box<str>>,
}

/// One start of a sub-agent, as the transcript records it: a Claude Code `Task` (or `Agent`)
/// call, an OpenAI Agents SDK run of an agent (a handoff to it), ….
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentRun {
    /// The sub-agent's name, as its calls' `agent` records it.
    pub agent: String,
    /// The user turn it started in (1-based), where the format records turns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<u32>,
    /// How many calls of the transcript come before it started (the position its first call
    /// has, if it makes one).
    pub first_call: usize,
}

/// A tool the transcript declares as available (where the format records it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDecl {
    /// Tool name.
    pub name: String,
    /// Description, if recorded.
    #[serde(default)]
    pub description: Option<String>,
    /// JSON Schema of the parameters, if recorded.
    #[serde(default)]
    pub parameters: Option<Value>,
}

/// A transcript's calls in compact, column-wise form: what a check keeps of a long session.
///
/// [`ToolCall`] holds everything a reader found (name, arguments and output as JSON trees, id);
/// a session with 200 000 calls then costs hundreds of megabytes. A check needs less: each call's
/// name, span and error flag, and the arguments and outputs of the calls its specs look into
/// (see [`crate::transcript::Keep::compact`]). Here names are interned (one string per distinct
/// name, a 4-byte symbol per call), ids are not kept (the reader links results and drops repeated
/// calls while reading), arguments are kept as compact JSON text (parsed again when they are
/// checked), and outputs only where kept. [`CallTable::to_calls`] gives the same calls as a
/// [`ToolCall`] list (without ids).
#[derive(Debug, Clone, Default)]
pub struct CallTable {
    /// Distinct names, in order of first use.
    names: Vec<Box<str>>,
    /// Each call's name, as an index into `names`.
    name: Vec<u32>,
    spans: Vec<Span>,
    errors: Vec<bool>,
    /// Each call's arguments as JSON text: a range of `text`; empty when they were not kept
    /// (they read as `null`; JSON text is never empty).
    args: Vec<(usize, usize)>,
    /// The arguments' text (UTF-8), one after the other (one allocation, not one per call).
    text: Vec<u8>,
    /// The calls whose text is the transcript's own ([`ToolCall::args_text`]), not written
    /// from their value.
    written: std::collections::BTreeSet<usize>,
    /// The outputs kept, by call position.
    outputs: std::collections::BTreeMap<usize, Value>,
    /// Each call's user turn and agent, once some call has one.
    scopes: Option<Box<Scopes>>,
    /// Each call's namespace ([`ToolCall::namespace`]), once some call has one.
    namespaces: Option<Box<Column>>,
}

/// A column of optional strings, interned: each call's index into `words` plus one (0: none),
/// shorter than the table when its last calls have none.
#[derive(Debug, Clone, Default)]
struct Column {
    of: Vec<u32>,
    words: Vec<Box<str>>,
    ids: std::collections::HashMap<Box<str>, u32>,
}

impl Column {
    fn get(&self, i: usize) -> Option<&str> {
        let k = *self.of.get(i)?;
        self.words.get((k as usize).checked_sub(1)?).map(|w| &**w)
    }

    fn set(&mut self, i: usize, word: Option<&str>) {
        let k = match word {
            Some(w) => {
                if let Some(&k) = self.ids.get(w) {
                    k
                } else {
                    self.words.push(w.into());
                    // Past u32::MAX distinct words (more than any file holds), the last is
                    // reused.
                    let k = u32::try_from(self.words.len()).unwrap_or(u32::MAX);
                    self.ids.insert(w.into(), k);
                    k
                }
            }
            None => 0,
        };
        if k > 0 {
            self.of.resize(self.of.len().max(i + 1), 0);
        }
        if let Some(slot) = self.of.get_mut(i) {
            *slot = k;
        }
    }
}

/// The turns and agents of a [`CallTable`]'s calls (kept apart: most transcripts have none).
#[derive(Debug, Clone, Default)]
struct Scopes {
    /// Each call's user turn (0: none recorded); shorter than the table when its last calls
    /// have none.
    turns: Vec<u32>,
    /// Each call's agent: 0 for none (the main agent), else an index into `agents` plus one;
    /// shorter than the table when its last calls have none.
    agent: Vec<u32>,
    /// Distinct agent names, in order of first use.
    agents: Vec<Box<str>>,
    /// The position of each name in `agents`, plus one.
    agent_ids: std::collections::HashMap<Box<str>, u32>,
}

/// Tables are equal when they hold the same calls (however their text is laid out).
impl PartialEq for CallTable {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self.outputs == other.outputs
            && self.written == other.written
            && (0..self.len()).all(|i| {
                (
                    self.name(i),
                    self.span(i),
                    self.is_error(i),
                    self.args_text(i),
                    self.turn(i),
                    self.agent(i),
                    self.namespace(i),
                ) == (
                    other.name(i),
                    other.span(i),
                    other.is_error(i),
                    other.args_text(i),
                    other.turn(i),
                    other.agent(i),
                    other.namespace(i),
                )
            })
    }
}

impl CallTable {
    /// Number of calls.
    pub fn len(&self) -> usize {
        self.name.len()
    }

    /// Whether there are no calls.
    pub fn is_empty(&self) -> bool {
        self.name.is_empty()
    }

    /// The name of call `i` (empty for a position past the end).
    pub fn name(&self, i: usize) -> &str {
        self.name
            .get(i)
            .and_then(|&s| self.names.get(s as usize))
            .map_or("", |n| n)
    }

    /// Where call `i` is recorded.
    pub fn span(&self, i: usize) -> Span {
        self.spans.get(i).copied().unwrap_or_default()
    }

    /// Every call's span, in call order.
    pub fn spans(&self) -> &[Span] {
        &self.spans
    }

    /// Every call's span, taken from the table (what is left of the calls once they are
    /// checked).
    pub fn into_spans(self) -> Vec<Span> {
        self.spans
    }

    /// Whether call `i` is marked as failed.
    pub fn is_error(&self, i: usize) -> bool {
        self.errors.get(i).copied().unwrap_or(false)
    }

    /// The arguments of call `i` as compact JSON text, if they were kept.
    pub fn args_text(&self, i: usize) -> Option<&str> {
        let &(start, end) = self.args.get(i)?;
        let text = self.text.get(start..end).filter(|t| !t.is_empty())?;
        std::str::from_utf8(text).ok()
    }

    /// The arguments of call `i` as the transcript writes them, where their value does not
    /// hold them exactly ([`ToolCall::args_text`]).
    pub fn exact_args_text(&self, i: usize) -> Option<&str> {
        self.written.contains(&i).then(|| self.args_text(i))?
    }

    /// The arguments of call `i` (parsed from their text; `null` when they were not kept).
    pub fn args(&self, i: usize) -> Value {
        self.args_text(i)
            .and_then(|t| serde_json::from_str(t).ok())
            .unwrap_or(Value::Null)
    }

    /// The output of call `i`, if one is recorded and was kept.
    pub fn output(&self, i: usize) -> Option<&Value> {
        self.outputs.get(&i)
    }

    /// The user turn of call `i`, if recorded (1-based).
    pub fn turn(&self, i: usize) -> Option<u32> {
        let s = self.scopes.as_ref()?;
        s.turns.get(i).copied().filter(|&t| t > 0)
    }

    /// The sub-agent that made call `i`, if recorded (`None` for the main agent).
    pub fn agent(&self, i: usize) -> Option<&str> {
        let s = self.scopes.as_ref()?;
        let a = *s.agent.get(i)?;
        s.agents.get((a as usize).checked_sub(1)?).map(|n| &**n)
    }

    /// The namespace of call `i`'s tool, if recorded ([`ToolCall::namespace`]).
    pub fn namespace(&self, i: usize) -> Option<&str> {
        self.namespaces.as_ref()?.get(i)
    }

    /// Record the namespace of call `i`'s tool (`None`: none).
    pub(crate) fn set_namespace(&mut self, i: usize, namespace: Option<&str>) {
        if i >= self.len() || (namespace.is_none() && self.namespaces.is_none()) {
            return;
        }
        self.namespaces
            .get_or_insert_with(Box::default)
            .set(i, namespace);
    }

    /// Record the user turn (`None`: none) and agent of call `i`.
    pub(crate) fn set_scope(&mut self, i: usize, turn: Option<u32>, agent: Option<&str>) {
        let n = self.len();
        if i >= n {
            return;
        }
        let turn = turn.filter(|&t| t > 0);
        if turn.is_none() && agent.is_none() && self.scopes.is_none() {
            return;
        }
        let s = self.scopes.get_or_insert_with(Box::default);
        if let Some(t) = turn {
            s.turns.resize(s.turns.len().max(i + 1), 0);
            s.turns[i] = t;
        } else if let Some(t) = s.turns.get_mut(i) {
            *t = 0;
        }
        let id = match agent {
            Some(name) => {
                if let Some(&k) = s.agent_ids.get(name) {
                    k
                } else {
                    s.agents.push(name.into());
                    // Past u32::MAX distinct names (more than any file holds), the last is reused.
                    let k = u32::try_from(s.agents.len()).unwrap_or(u32::MAX);
                    s.agent_ids.insert(name.into(), k);
                    k
                }
            }
            None => 0,
        };
        if id > 0 {
            s.agent.resize(s.agent.len().max(i + 1), 0);
        }
        if let Some(a) = s.agent.get_mut(i) {
            *a = id;
        }
    }

    /// The calls as [`ToolCall`]s (ids are not kept: `None`).
    pub fn to_calls(&self) -> Vec<ToolCall> {
        (0..self.len())
            .map(|i| ToolCall {
                name: self.name(i).to_owned(),
                args: self.args(i),
                id: None,
                output: self.output(i).cloned(),
                is_error: self.is_error(i),
                span: self.span(i),
                turn: self.turn(i),
                agent: self.agent(i).map(str::to_owned),
                namespace: self.namespace(i).map(str::to_owned),
                args_text: self.exact_args_text(i).map(Into::into),
            })
            .collect()
    }

    /// The compact form of `calls` (ids are dropped; arguments are kept as JSON text).
    pub fn from_calls(calls: &[ToolCall]) -> CallTable {
        let mut t = CallTable::default();
        let mut symbols = Symbols::default();
        for c in calls {
            let i = t.push(
                &mut symbols,
                &c.name,
                &c.args,
                c.args_text.as_deref(),
                c.span,
            );
            t.errors[i] = c.is_error;
            t.set_scope(i, c.turn, c.agent.as_deref());
            t.set_namespace(i, c.namespace.as_deref());
            if let Some(o) = &c.output {
                t.outputs.insert(i, o.clone());
            }
        }
        t
    }

    /// Append a call; returns its position. Its arguments are kept as their `exact` text
    /// ([`ToolCall::args_text`]) where there is one, else written from `args`.
    pub(crate) fn push(
        &mut self,
        symbols: &mut Symbols,
        name: &str,
        args: &Value,
        exact: Option<&str>,
        span: Span,
    ) -> usize {
        let sym = symbols.intern(&mut self.names, name);
        self.name.push(sym);
        self.spans.push(span);
        self.errors.push(false);
        let i = self.name.len() - 1;
        let at = self.add_text(i, args, exact);
        self.args.push(at);
        i
    }

    /// Append the arguments of call `i` to the text: their `exact` text (which reads back as
    /// `args`) if given, else `args` as compact JSON (nothing for `null`, what arguments that
    /// were not kept read as); its range.
    fn add_text(&mut self, i: usize, args: &Value, exact: Option<&str>) -> (usize, usize) {
        let start = self.text.len();
        if let Some(t) = exact.filter(|t| !t.trim().is_empty() && !args.is_null()) {
            self.text.extend_from_slice(t.trim().as_bytes());
            self.written.insert(i);
        } else {
            self.written.remove(&i);
            if !args.is_null() && serde_json::to_writer(&mut self.text, args).is_err() {
                // Writing a value to memory cannot fail; were it to, the call reads as `null`.
                self.text.truncate(start);
            }
        }
        (start, self.text.len())
    }

    pub(crate) fn set_span(&mut self, i: usize, span: Span) {
        if let Some(s) = self.spans.get_mut(i) {
            *s = span;
        }
    }

    /// Replace the arguments of call `i` (their old text stays, unused: formats that give
    /// arguments late are streams of small records).
    pub(crate) fn set_args(&mut self, i: usize, args: &Value, exact: Option<&str>) {
        if i < self.args.len() {
            self.args[i] = self.add_text(i, args, exact);
        }
    }

    pub(crate) fn set_output(&mut self, i: usize, output: Option<Value>) {
        match output {
            Some(o) if i < self.len() => {
                self.outputs.insert(i, o);
            }
            _ => {
                self.outputs.remove(&i);
            }
        }
    }

    pub(crate) fn set_error(&mut self, i: usize, is_error: bool) {
        if let Some(e) = self.errors.get_mut(i) {
            *e = is_error;
        }
    }

    /// Give back memory reserved for calls that never came.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.names.shrink_to_fit();
        self.name.shrink_to_fit();
        self.spans.shrink_to_fit();
        self.errors.shrink_to_fit();
        self.args.shrink_to_fit();
        self.text.shrink_to_fit();
        if let Some(s) = &mut self.scopes {
            s.turns.shrink_to_fit();
            s.agent.shrink_to_fit();
        }
        if let Some(n) = &mut self.namespaces {
            n.of.shrink_to_fit();
        }
    }
}

/// The symbol of each distinct name of a [`CallTable`] (kept while reading only).
#[derive(Debug, Default)]
pub(crate) struct Symbols {
    ids: std::collections::HashMap<Box<str>, u32>,
}

impl Symbols {
    /// The symbol of `name`, added to `names` on first use. Past `u32::MAX` distinct names
    /// (more than any file can hold), the last symbol is reused.
    fn intern(&mut self, names: &mut Vec<Box<str>>, name: &str) -> u32 {
        if let Some(&s) = self.ids.get(name) {
            return s;
        }
        let Ok(s) = u32::try_from(names.len()) else {
            return u32::MAX;
        };
        names.push(name.into());
        self.ids.insert(name.into(), s);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(name: &str, args: Value, output: Option<Value>, is_error: bool, at: usize) -> ToolCall {
        ToolCall {
            name: name.into(),
            args,
            id: Some(format!("id{at}")),
            output,
            is_error,
            span: Span::new(at, at + 3),
            turn: None,
            agent: None,
            namespace: None,
            args_text: None,
        }
    }

    #[test]
    fn a_table_gives_back_its_calls_without_ids() {
        let calls = vec![
            call(
                "Read",
                json!({"file_path": "a.rs", "n": 1.5e300}),
                None,
                false,
                0,
            ),
            call(
                "Bash",
                json!({"command": "cargo test \"x\" \u{e9}"}),
                Some(json!("ok")),
                true,
                4,
            ),
            call("Read", Value::Null, None, false, 8),
            call(
                "Edit",
                json!("{not json"),
                Some(json!({"a": [1, 2]})),
                false,
                12,
            ),
            call("Read", json!({}), None, false, 16),
        ];
        let mut calls = calls;
        // Turns and agents, where recorded, come back; a call without them has none.
        calls[1].turn = Some(2);
        calls[1].agent = Some("researcher".into());
        calls[3].agent = Some("researcher".into());
        calls[3].namespace = Some("github".into());
        // Text kept as written comes back, and is what the table holds.
        calls[4].args = json!({"n": 1.844_674_407_370_955_2e19});
        calls[4].args_text = Some(r#"{"n": 18446744073709551617}"#.into());
        let table = CallTable::from_calls(&calls);
        assert_eq!(
            (
                table.args_text(4),
                table.exact_args_text(4),
                table.exact_args_text(0)
            ),
            (
                Some(r#"{"n": 18446744073709551617}"#),
                Some(r#"{"n": 18446744073709551617}"#),
                None
            )
        );
        assert_eq!(table.scopes.as_ref().map(|s| s.agents.len()), Some(1));
        assert_eq!((table.turn(0), table.agent(0)), (None, None));
        let mut want = calls.clone();
        for c in &mut want {
            c.id = None;
        }
        assert_eq!(table.to_calls(), want);
        assert_eq!(table.len(), 5);
        // Names are interned: one string per distinct name.
        assert_eq!(table.names.len(), 3);
        assert_eq!(table.name(4), "Read");
        assert_eq!(
            table.args_text(0),
            Some(r#"{"file_path":"a.rs","n":1.5e+300}"#)
        );
        // Arguments that were not kept read as null and hold no text.
        assert_eq!(table.args_text(2), None);
        assert_eq!(table.args(2), Value::Null);
        assert_eq!(
            table.spans(),
            &calls.iter().map(|c| c.span).collect::<Vec<_>>()[..]
        );
        // Out of range: nothing, no panic.
        assert_eq!(
            (table.name(9), table.args(9), table.output(9)),
            ("", Value::Null, None)
        );
        assert!(!table.is_error(9));
    }

    #[test]
    fn replaced_arguments_and_outputs_read_as_the_last_given() {
        let mut table = CallTable::default();
        let mut symbols = Symbols::default();
        let i = table.push(&mut symbols, "f", &json!({"a": 1}), None, Span::point(0));
        let j = table.push(&mut symbols, "g", &Value::Null, None, Span::point(1));
        table.set_args(i, &json!({"a": 2}), None);
        table.set_args(j, &json!([true]), None);
        table.set_output(i, Some(json!("x")));
        table.set_output(i, None);
        table.set_output(j, Some(json!("y")));
        table.set_error(j, true);
        table.shrink_to_fit();
        assert_eq!(table.args(i), json!({"a": 2}));
        assert_eq!(table.args(j), json!([true]));
        assert_eq!(
            (table.output(i), table.output(j)),
            (None, Some(&json!("y")))
        );
        assert!(table.is_error(j) && !table.is_error(i));
    }
}
