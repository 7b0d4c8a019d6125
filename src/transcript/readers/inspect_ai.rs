//! Inspect AI eval logs (the JSON log format: `{version, status, eval, plan, results, stats,
//! samples[]}`). Each sample is one agent run: its `messages` hold assistant `tool_calls[] {id,
//! function, arguments}` (`function` is the tool's name, `arguments` an object) and `role:
//! "tool"` messages `{tool_call_id, function, content, error}` with the results. A sample's
//! `events[]` repeat the same calls and are not read, except the tools their `model` events offer.

use serde_json::Value;

use super::super::detect;
use super::super::sink::{arr, field, norm_output, s, Args, Sink};
use super::super::spans::Seg;
use crate::code::Code;

/// Read an eval log: every sample's calls, in sample order.
pub(crate) fn read(v: &Value, sink: &mut Sink) -> Result<(), String> {
    if !detect::is_inspect_log(v) {
        return Err(format!(
            "expected an Inspect AI eval log `{{version, status, eval, samples}}`; found {}",
            detect::describe(v)
        ));
    }
    for (i, sample) in arr(v, "samples").iter().enumerate() {
        read_sample(sample, &[Seg::K("samples"), Seg::I(i)], sink);
    }
    Ok(())
}

/// The samples of a log with several: one transcript each (they are separate runs).
pub(crate) fn samples(v: &Value) -> Option<Vec<(Vec<Seg>, &Value)>> {
    let items = field(v, "samples")?.as_array()?;
    if items.len() < 2 {
        return None;
    }
    Some(super::parts(items, Some(Seg::K("samples"))))
}

/// Read one sample found at `path`. The tools offered to the model are those its `model` events
/// list (`tools[] {name, description, parameters}`).
pub(crate) fn read_sample(sample: &Value, path: &[Seg], sink: &mut Sink) {
    for e in arr(sample, "events") {
        if s(e, "event") == Some("model") {
            for t in arr(e, "tools") {
                if let Some(name) = s(t, "name") {
                    sink.declare(name, field(t, "description"), field(t, "parameters"));
                }
            }
        }
    }
    for (i, m) in arr(sample, "messages").iter().enumerate() {
        let at = |rest: &[Seg]| {
            let mut p = path.to_vec();
            p.extend([Seg::K("messages"), Seg::I(i)]);
            p.extend_from_slice(rest);
            p
        };
        if s(m, "role") == Some("tool") {
            let Some(id) = s(m, "tool_call_id") else {
                continue;
            };
            let error = field(m, "error").filter(|e| !e.is_null());
            let out = field(m, "content").map(norm_output);
            if !sink.answer_id(id, out, error.is_some()) {
                let l = sink.at(&at(&[]));
                sink.finding(
                    Code::OrphanResult,
                    format!("tool message for `{id}` has no matching call"),
                    l,
                );
            }
            continue;
        }
        for (j, tc) in arr(m, "tool_calls").iter().enumerate() {
            let args = tc
                .get("arguments")
                .filter(|a| !a.is_null())
                .map_or(Args::Empty, Args::Value);
            let l = sink.at(&at(&[Seg::K("tool_calls"), Seg::I(j)]));
            sink.call(
                s(tc, "function").unwrap_or(""),
                args,
                s(tc, "id").map(str::to_string),
                l,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::transcript::Reader;

    #[test]
    fn the_tools_of_model_events_are_declared_with_their_schemas() {
        let log = br#"{"version": 2, "status": "success", "eval": {"task": "t"}, "samples": [{
          "messages": [{"role": "assistant", "tool_calls": [
            {"id": "c1", "function": "web_browser_go", "arguments": {"url": 7}}]}],
          "events": [{"event": "model", "tools": [
            {"name": "web_browser_go", "description": "Go.", "parameters":
              {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}},
            {"name": "web_browser_back", "description": "Back.", "parameters": {"type": "object"}}]},
            {"event": "model", "tools": [{"name": "web_browser_go"}]}]}]}"#;
        let t = Reader::new().read("log.json", log).unwrap().remove(0);
        let names: Vec<&str> = t.tools.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["web_browser_go", "web_browser_back"]);
        assert!(t.tools[0].parameters.is_some());
        assert_eq!(t.calls.len(), 1);
    }
}
