//! Claude Code session JSONL: one content block per `assistant` line, tool results in `user`
//! lines; resumed sessions repeat lines (de-duplicated by `tool_use.id`).

use serde_json::Value;

use super::super::prune::{CcKind, CcLine};
use super::super::sink::{norm_output_owned, Args, Sink};
use super::super::spans::Seg;
use super::anthropic;

/// Claude Code session state (all linking is by tool-use id, kept in the sink).
#[derive(Default)]
pub(crate) struct State;

impl State {
    /// Feed one session line.
    pub fn line(&mut self, v: &Value, sink: &mut Sink) {
        match v.get("type").and_then(Value::as_str) {
            Some("user" | "assistant") => {}
            // `claude -p --output-format stream-json` opens with the tools the session offers
            // (names only).
            Some("system") if v.get("subtype").and_then(Value::as_str) == Some("init") => {
                for name in v
                    .get("tools")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    sink.declare(name, None, None);
                }
                return;
            }
            _ => return,
        }
        let Some(m) = v.get("message") else { return };
        anthropic::blocks(m, &[Seg::K("message"), Seg::K("content")], sink);
    }

    /// Feed one `user` or `assistant` line read straight from its text
    /// ([`super::super::prune::claude_code_line`]): the same calls, results and findings as
    /// [`Self::line`] gives for the line's `Value`.
    pub fn typed(&mut self, line: CcLine<'_>, sink: &mut Sink) {
        if !matches!(line.ty.as_deref(), Some("user" | "assistant")) {
            return;
        }
        for b in line.blocks {
            let loc =
                |sink: &Sink| sink.at(&[Seg::K("message"), Seg::K("content"), Seg::I(b.index)]);
            match b.kind {
                CcKind::Use { name, id, input } => {
                    let args = input.map_or(Args::Empty, Args::Owned);
                    let l = loc(sink);
                    sink.call(
                        name.as_deref().unwrap_or(""),
                        args,
                        id.map(|id| id.into_owned()),
                        l,
                    );
                }
                CcKind::Result {
                    ty,
                    tool_use_id,
                    content,
                    is_error,
                } => {
                    let id = tool_use_id.as_deref().unwrap_or("");
                    let output = content.map(norm_output_owned);
                    anthropic::result(sink, ty, id, output, is_error, loc);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Span;
    use crate::transcript::prune::{claude_code_line, parse_line_str, Prune};
    use crate::transcript::sink::Finished;
    use crate::transcript::Keep;

    /// Lines of every shape the typed path has to agree on (the rest of each session comes
    /// from the corpus files below).
    const LINES: &[&str] = &[
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a.py"}}]},"uuid":"u1"}"#,
        r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"line 1\nline 2","is_error":false}]},"toolUseResult":{"file":{"content":"x"}}}"#,
        r#"{"message":{"content":[{"input":"{\"a\":1}","name":"N\u0041","id":"t\u00e92","type":"tool_use"}]},"type":"assistant"}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a.py"}}]}}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"b.py"}}]}}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"mcp_tool_use","name":"m"},{"type":"server_tool_use","id":7,"name":null,"input":"not json"}]}}"#,
        r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"is_error":true,"is_error":"yes"}]}}"#,
        r#"{"type":"user","message":{"content":[{"type":"mcp_tool_result","tool_use_id":"nope","content":{"x":1}},{"type":"tool_result"}]}}"#,
        r#"{"type":"user","message":{"content":[1,"x",null,{"type":"tool_result","tool_use_id":"t1","is_error":true}]}}"#,
        r#"{"type":"user","message":{"content":"plain text"}}"#,
        r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1"}]},"message":null}"#,
        r#"{"type":"assistant","type":1,"message":{"content":[{"type":"tool_use","id":"z","name":"Z"}]}}"#,
        r#"{"type":"summary","message":{"content":[{"type":"tool_use","id":"s","name":"S"}]}}"#,
        r#"{"type":"system","subtype":"init","tools":["Read","Bash"]}"#,
        r#"{"type":"user","message":{"content":[{"type":"web_search_tool_result","tool_use_id":"s1","content":{"error_code":"x"}}]}}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"big","name":"B","input":{"n":1e400}}]}}"#,
        r#"{"typ\u0065":"assistant","message":{"cont\u0065nt":[{"typ\u0065":"tool_use","id":"e","name":"E","input":{}}]}}"#,
    ];

    fn sessions() -> Vec<Vec<String>> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut out = vec![LINES.iter().map(|l| l.to_string()).collect()];
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
        let mut state = State;
        let rule = Prune::claude_code(outputs);
        let mut took = 0;
        for (i, line) in lines.iter().enumerate() {
            sink.line = Some(Span::new(i, i + 1));
            if typed {
                if let Some(l) = claude_code_line(line, outputs) {
                    state.typed(l, &mut sink);
                    took += 1;
                    continue;
                }
            }
            if let Ok(v) = parse_line_str(line, rule) {
                state.line(&v, &mut sink);
            }
        }
        (sink.finish(), took)
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
            }
        }
        assert!(took > 200, "most lines take the typed path ({took})");
    }

    #[test]
    fn the_typed_path_declines_what_it_does_not_read() {
        for line in [
            r#"{"type":"system","subtype":"init","tools":["Read"]}"#,
            r#"{"type":"user","message":{"content":[{"type":"web_search_tool_result","content":{}}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","input":{"n":1e400}}]}}"#,
            r#"{"type":"user","x":[1,]}"#,
            r#"[{"type":"user"}]"#,
        ] {
            assert_eq!(claude_code_line(line, false), None, "{line}");
        }
        let l = claude_code_line(LINES[0], false).unwrap();
        assert_eq!(l.ty.as_deref(), Some("assistant"));
        assert_eq!(l.blocks.len(), 1);
        assert_eq!(l.blocks[0].index, 1);
    }
}
