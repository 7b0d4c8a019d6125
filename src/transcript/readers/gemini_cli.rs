//! gemini-cli session files (`~/.gemini/tmp/<project hash>/chats/session-*.json`): the
//! `ConversationRecord` of gemini-cli's chat recording service, `{sessionId, projectHash,
//! startTime, lastUpdated, messages[]}`; each `gemini` message may hold `toolCalls[]`
//! (`ToolCallRecord {id, name, args, result, status, …}`) with the call's result inside.

use serde_json::Value;

use super::super::detect;
use super::super::sink::{arr, field, norm_output, s, Args, Sink};
use super::super::spans::Seg;

/// Read a gemini-cli session document.
pub(crate) fn read(v: &Value, sink: &mut Sink) -> Result<(), String> {
    let Some(messages) = field(v, "messages").and_then(Value::as_array) else {
        return Err(format!(
            "expected a gemini-cli session `{{sessionId, projectHash, messages}}`; found {}",
            detect::describe(v)
        ));
    };
    for (i, m) in messages.iter().enumerate() {
        for (j, tc) in arr(m, "toolCalls").iter().enumerate() {
            let args = tc
                .get("args")
                .filter(|a| !a.is_null())
                .map_or(Args::Empty, Args::Value);
            let l = sink.at(&[
                Seg::K("messages"),
                Seg::I(i),
                Seg::K("toolCalls"),
                Seg::I(j),
            ]);
            let k = sink.call(
                s(tc, "name").unwrap_or(""),
                args,
                s(tc, "id").map(str::to_string),
                l,
            );
            let output = result(field(tc, "result"));
            let failed = matches!(s(tc, "status"), Some("error" | "cancelled"))
                || output
                    .as_ref()
                    .is_some_and(|o| field(o, "error").is_some_and(|e| !e.is_null()));
            if output.is_some() || failed {
                sink.answer(k, output, failed);
            }
        }
    }
    Ok(())
}

/// The output of a `ToolCallRecord.result` (a `PartListUnion`): the `response` of its first
/// `functionResponse` part (the Gemini rule); a plain string as is; `None` when absent.
fn result(r: Option<&Value>) -> Option<Value> {
    match r? {
        Value::Null => None,
        Value::String(text) => Some(Value::String(text.clone())),
        Value::Array(parts) => parts
            .iter()
            .find_map(|p| field(p, "functionResponse").and_then(|f| field(f, "response")))
            .cloned()
            .or_else(|| (!parts.is_empty()).then(|| norm_output(&Value::Array(parts.clone())))),
        other => other
            .get("functionResponse")
            .and_then(|f| field(f, "response"))
            .cloned()
            .or_else(|| Some(other.clone())),
    }
}
