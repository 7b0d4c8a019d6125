//! A session's journal: the calls the guard has seen, as Claude Code session lines.
//!
//! The journal is a Claude Code session file (JSON lines) that the guard writes itself: a
//! `summary` line first, an `assistant` line per call (`tool_use`), a `user` line per result (`tool_result`), a `user`
//! prompt line per turn, and `toolspec-guard` lines that the reader passes over (what the guard
//! decided at a `Stop`). So the one Claude Code reader reads it as it reads a recorded session,
//! and `toolspec check --partial --spec FILE JOURNAL` reports on it what the guard decides.
//!
//! Input: the journal's bytes. Output: a [`Journal`]: each call's id in order, which have their
//! result, how many `Stop` blocks lately; and the lines for what an event adds. Bounded: at
//! most [`MAX_JOURNAL_BYTES`] (past it, an error that names the bound), a result's output cut to
//! [`MAX_OUTPUT_BYTES`] of JSON text.

use std::collections::HashMap;

use serde_json::{json, Value};

use super::event::Call;

/// The most bytes of a journal the guard reads: past it, each event is an error (a
/// `PreToolUse` is then denied, as on every error).
pub const MAX_JOURNAL_BYTES: usize = 64 << 20;

/// The most bytes of JSON text of one result's output kept in the journal; a longer one is
/// kept as its first bytes, as a string that says it was cut.
pub const MAX_OUTPUT_BYTES: usize = 256 << 10;

/// What the guard reads of a journal.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Journal {
    /// Each call's id, in order (the reader's calls, one per id).
    pub ids: Vec<String>,
    /// Position of each id in [`Self::ids`].
    pub index: HashMap<String, usize>,
    /// Whether each call's result is in.
    pub settled: Vec<bool>,
    /// Lines of the journal (the next line written is `lines + 1`).
    pub lines: usize,
    /// `Stop` blocks since the last call or prompt: a `Stop` with nothing new since.
    pub blocks_since_call: u32,
    /// `Stop` blocks since the last prompt (the turn's).
    pub blocks_in_turn: u32,
    /// How many bytes of the journal are whole lines (a journal cut mid-line by a crash is
    /// read up to its last newline; the caller truncates the rest).
    pub whole: usize,
}

impl Journal {
    /// Read a journal's bytes.
    pub fn read(bytes: &[u8]) -> Result<Journal, String> {
        if bytes.len() > MAX_JOURNAL_BYTES {
            return Err(too_large(bytes.len()));
        }
        let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let mut j = Journal {
            whole,
            lines: bytes[..whole].iter().filter(|&&b| b == b'\n').count(),
            ..Journal::default()
        };
        for (n, line) in bytes[..whole].split(|&b| b == b'\n').enumerate() {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let v: Value = serde_json::from_slice(line)
                .map_err(|e| format!("line {}: not a JSON line: {e}", n + 1))?;
            j.line(&v);
        }
        Ok(j)
    }

    /// Take in one line.
    fn line(&mut self, v: &Value) {
        let kind = v.get("type").and_then(Value::as_str);
        let blocks = v.get("message").and_then(|m| m.get("content"));
        match kind {
            Some("toolspec-guard") if v.get("stop").and_then(Value::as_str) == Some("block") => {
                self.blocks_since_call += 1;
                self.blocks_in_turn += 1;
            }
            Some("user") if blocks.is_some_and(Value::is_string) => {
                self.blocks_since_call = 0;
                self.blocks_in_turn = 0;
            }
            Some("assistant" | "user") => {
                for b in blocks.and_then(Value::as_array).into_iter().flatten() {
                    let id = |k: &str| b.get(k).and_then(Value::as_str).map(str::to_owned);
                    match b.get("type").and_then(Value::as_str) {
                        Some("tool_use") => {
                            if let Some(id) = id("id") {
                                self.add(id);
                            }
                        }
                        Some("tool_result") => {
                            if let Some(&i) = id("tool_use_id").and_then(|i| self.index.get(&i)) {
                                self.settled[i] = true;
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }

    fn add(&mut self, id: String) {
        if self.index.contains_key(&id) {
            return;
        }
        self.index.insert(id.clone(), self.ids.len());
        self.ids.push(id);
        self.settled.push(false);
        self.blocks_since_call = 0;
    }

    /// The calls whose result is not in yet, in order.
    pub fn unsettled(&self) -> Vec<usize> {
        (0..self.ids.len()).filter(|&i| !self.settled[i]).collect()
    }

    /// The id a call of an event is journaled under: its `tool_use_id`, else one of the guard's
    /// (`toolspec-guard-N`, `N` the call's position).
    pub fn id_for(&self, call: &Call) -> String {
        call.id
            .clone()
            .unwrap_or_else(|| format!("toolspec-guard-{}", self.ids.len()))
    }
}

/// The error of a journal past [`MAX_JOURNAL_BYTES`].
pub fn too_large(len: usize) -> String {
    format!(
        "the journal is {len} bytes, past the guard's bound of {MAX_JOURNAL_BYTES}: the session has gone on too long to be checked whole (remove the journal to start over, seeded from the session's transcript)"
    )
}

/// The lines of a sub-agent's calls say so, as Claude Code's sidechain lines do.
fn sidechain(line: &mut Value, agent: Option<&str>) {
    if let (Some(agent), Some(o)) = (agent, line.as_object_mut()) {
        o.insert("isSidechain".into(), Value::Bool(true));
        o.insert("agentId".into(), Value::String(agent.to_owned()));
    }
}

/// The journal's first line: a Claude Code `summary` line, so that a journal with no call yet
/// reads as an empty session.
pub fn header_line() -> String {
    json!({"type": "summary", "summary": "toolspec guard journal"}).to_string() + "\n"
}

/// The line of a call made (`tool_use`).
pub fn call_line(id: &str, call: &Call) -> String {
    let mut line = json!({
        "type": "assistant",
        "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": id, "name": call.name, "input": call.input}
        ]}
    });
    sidechain(&mut line, call.agent.as_deref());
    line.to_string() + "\n"
}

/// The line of a call's result (`tool_result`), its output cut to [`MAX_OUTPUT_BYTES`].
pub fn result_line(id: &str, agent: Option<&str>, output: &Value, is_error: bool) -> String {
    let mut line = json!({
        "type": "user",
        "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "content": bounded(output), "is_error": is_error}
        ]}
    });
    sidechain(&mut line, agent);
    line.to_string() + "\n"
}

/// The line of a user prompt: a new turn (the prompt's text is not kept).
pub fn prompt_line() -> String {
    json!({"type": "user", "message": {"role": "user", "content": "(a user prompt)"}}).to_string()
        + "\n"
}

/// The line of a `Stop` the guard blocked.
pub fn block_line() -> String {
    json!({"type": "toolspec-guard", "stop": "block"}).to_string() + "\n"
}

/// `output`, or its first [`MAX_OUTPUT_BYTES`] of JSON text as a string when longer.
fn bounded(output: &Value) -> Value {
    let text = output.to_string();
    if text.len() <= MAX_OUTPUT_BYTES {
        return output.clone();
    }
    let mut end = MAX_OUTPUT_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Value::String(format!(
        "{}… (cut by toolspec guard: {} bytes)",
        &text[..end],
        text.len()
    ))
}

/// The journal lines of a session's recorded calls (its transcript, read as Claude Code): what
/// seeds the journal of a session the guard joins late. A prompt line per turn, then per call
/// its line and, when recorded, its result's.
pub fn seed(name: &str, transcript: &[u8]) -> Result<String, String> {
    use crate::transcript::{Format, Reader};
    let mut out = header_line();
    let mut first = true;
    Reader::new()
        .format(Format::ClaudeCode)
        .read_with(name, transcript, |t| {
            if !first {
                return;
            }
            first = false;
            let calls = match &t.compact {
                Some(table) => table.to_calls(),
                None => t.calls,
            };
            let mut turn = 0;
            for (i, c) in calls.iter().enumerate() {
                let at = c.turn.unwrap_or(1);
                while turn < at {
                    out.push_str(&prompt_line());
                    turn += 1;
                }
                let id = c.id.clone().unwrap_or_else(|| format!("toolspec-seed-{i}"));
                let call = Call {
                    name: c.name.clone(),
                    input: c.args.clone(),
                    id: Some(id.clone()),
                    agent: c.agent.clone(),
                };
                out.push_str(&call_line(&id, &call));
                if let Some(output) = &c.output {
                    out.push_str(&result_line(&id, c.agent.as_deref(), output, c.is_error));
                } else if c.is_error {
                    out.push_str(&result_line(&id, c.agent.as_deref(), &Value::Null, true));
                }
            }
        })
        .map_err(|e| e.to_string())?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, id: Option<&str>) -> Call {
        Call {
            name: name.into(),
            input: json!({"a": 1}),
            id: id.map(str::to_owned),
            agent: None,
        }
    }

    #[test]
    fn the_journal_counts_calls_results_and_stop_blocks() {
        let mut text = String::new();
        text += &prompt_line();
        text += &call_line("t1", &call("Read", Some("t1")));
        text += &result_line("t1", None, &json!("x"), false);
        text += &call_line("t2", &call("Edit", Some("t2")));
        // A repeated call line is one call, as the reader reads it.
        text += &call_line("t2", &call("Edit", Some("t2")));
        text += &block_line();
        text += &block_line();
        let j = Journal::read(text.as_bytes()).unwrap();
        assert_eq!(j.ids, ["t1", "t2"]);
        assert_eq!(j.unsettled(), [1]);
        assert_eq!((j.blocks_since_call, j.blocks_in_turn), (2, 2));
        assert_eq!(j.lines, 7);
        assert_eq!(j.id_for(&call("Bash", None)), "toolspec-guard-2");
        // A line cut by a crash is left out.
        let cut = format!("{text}{{\"type\":\"assi");
        let j2 = Journal::read(cut.as_bytes()).unwrap();
        assert_eq!(j2.whole, text.len());
        assert_eq!(j2.ids, j.ids);
        // A prompt starts a turn.
        let j3 = Journal::read((text + &prompt_line()).as_bytes()).unwrap();
        assert_eq!((j3.blocks_since_call, j3.blocks_in_turn), (0, 0));
    }

    #[test]
    fn outputs_are_cut_and_sub_agents_marked() {
        let big = Value::String("x".repeat(MAX_OUTPUT_BYTES + 10));
        let line = result_line("t", Some("reviewer"), &big, false);
        assert!(line.len() < MAX_OUTPUT_BYTES + 400);
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["agentId"], "reviewer");
        assert_eq!(v["isSidechain"], true);
        assert!(Journal::read(&vec![b'\n'; MAX_JOURNAL_BYTES + 1]).is_err());
        assert!(Journal::read(b"not json\n").is_err());
    }
}
