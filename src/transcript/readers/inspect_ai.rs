//! Inspect AI eval logs (the JSON log format: `{version, status, eval, plan, results, stats,
//! samples[]}`). Each sample is one agent run: its `messages` hold assistant `tool_calls[] {id,
//! function, arguments}` (`function` is the tool's name, `arguments` an object) and `role:
//! "tool"` messages `{tool_call_id, function, content, error}` with the results. A sample's
//! `events[]` repeat the same calls and are not read.

use serde_json::Value;

use super::super::detect;
use super::super::sink::{arr, norm_output, s, Args, Sink};
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
    let items = v.get("samples")?.as_array()?;
    if items.len() < 2 {
        return None;
    }
    Some(super::parts(items, Some(Seg::K("samples"))))
}

/// Read one sample found at `path`.
pub(crate) fn read_sample(sample: &Value, path: &[Seg], sink: &mut Sink) {
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
            let error = m.get("error").filter(|e| !e.is_null());
            let out = m.get("content").map(norm_output);
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
