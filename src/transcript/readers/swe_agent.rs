//! SWE-agent trajectories (`*.traj`): `{trajectory[], history[], info, replay_config,
//! environment}`. The calls are the OpenAI-Chat-shaped `tool_calls` of the `history` messages
//! (`role: "assistant"`); results are `role: "tool"` messages that link by a list
//! `tool_call_ids` (or a single `tool_call_id`). `trajectory[]` repeats the same steps as
//! `action` / `observation` text and is not read.

use serde_json::Value;

use super::super::detect;
use super::super::sink::{arr, field, norm_output, s, Args, Sink};
use super::super::spans::Seg;
use crate::code::Code;

/// Read a SWE-agent trajectory.
pub(crate) fn read(v: &Value, sink: &mut Sink) -> Result<(), String> {
    let Some(history) = field(v, "history").and_then(Value::as_array) else {
        return Err(format!(
            "expected a SWE-agent trajectory with `history`; found {}",
            detect::describe(v)
        ));
    };
    for (i, m) in history.iter().enumerate() {
        if s(m, "role") == Some("tool") {
            let out = field(m, "content").map(norm_output);
            let ids: Vec<&str> = match field(m, "tool_call_ids").and_then(Value::as_array) {
                Some(ids) => ids.iter().filter_map(Value::as_str).collect(),
                None => s(m, "tool_call_id").into_iter().collect(),
            };
            for id in ids {
                if !sink.answer_id(id, out.clone(), false) {
                    let l = sink.at(&[Seg::K("history"), Seg::I(i)]);
                    sink.finding(
                        Code::OrphanResult,
                        format!("tool message for `{id}` has no matching call"),
                        l,
                    );
                }
            }
            continue;
        }
        for (j, tc) in arr(m, "tool_calls").iter().enumerate() {
            let Some(f) = field(tc, "function") else {
                continue;
            };
            let args = f
                .get("arguments")
                .filter(|a| !a.is_null())
                .map_or(Args::Empty, Args::Value);
            let l = sink.at(&[
                Seg::K("history"),
                Seg::I(i),
                Seg::K("tool_calls"),
                Seg::I(j),
            ]);
            // Not de-duplicated by id: the history is written once, and SWE-agent's
            // demonstrations reuse ids for different steps (results go to the latest call).
            sink.call_unique(
                s(f, "name").unwrap_or(""),
                args,
                s(tc, "id").map(str::to_string),
                l,
            );
        }
    }
    Ok(())
}
