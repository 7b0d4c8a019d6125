//! Google ADK session dumps: the `Session` model of `google.adk.sessions`, `{id, app_name,
//! user_id, state, events[], last_update_time}` (snake_case as `model_dump_json()` writes it;
//! camelCase `appName`, `userId`, `lastUpdateTime` as the ADK web server's API and `adk web`
//! write it; older dumps have `context` for `state`). Each event `{id, invocation_id, author,
//! content: {role, parts[]}, actions, timestamp}` holds a Gemini `Content`: calls are its
//! `function_call` / `functionCall` parts and results its `function_response` /
//! `functionResponse` parts, read by the Gemini rules (link by `id`, else by name to the oldest
//! unanswered call; a response with an `error` key is an error).

use super::super::sink::field;
use serde_json::Value;

use crate::json::view::Json;

use super::super::detect;
use super::super::sink::Sink;
use super::super::spans::Seg;

/// Whether `v` is a session dump: an `id` string, an `events` array whose items all have an
/// `author` string, and a session key beside (`app_name` / `appName`, `user_id` / `userId`,
/// `state` or `context`); an empty `events` needs the app name and the user id.
pub(crate) fn is_session<'s, J: Json<'s>>(v: J) -> bool {
    let has = |k: &str| v.get(k).is_some();
    let Some(events) = v.get("events").and_then(J::as_items) else {
        return false;
    };
    let app = has("app_name") || has("appName");
    let user = has("user_id") || has("userId");
    let empty = events.len() == 0;
    v.get("id").is_some_and(J::is_str)
        && { events }.all(|e| e.get("author").is_some_and(J::is_str))
        && if empty {
            app && user
        } else {
            app || user || has("state") || has("context")
        }
}

/// Read a session dump. Each event's `author` names the agent that wrote it (`"user"` for the
/// user's messages): the calls of an event are that agent's, and each stretch of consecutive
/// events of one agent within one invocation is one run of it (a transfer to another agent, or
/// the user's next message, starts the next). Events without a content (state changes) neither
/// start nor end a run.
pub(crate) fn read(v: &Value, sink: &mut Sink) -> Result<(), String> {
    let Some(events) = field(v, "events").and_then(Value::as_array) else {
        return Err(format!(
            "expected an ADK session `{{id, app_name, user_id, events}}`; found {}",
            detect::describe(v)
        ));
    };
    sink.records_runs();
    let mut st = super::gemini::Stream::default();
    // The author and invocation of the last event with a content.
    let mut last: Option<(&str, Option<&str>)> = None;
    for (i, e) in events.iter().enumerate() {
        let Some(c) = field(e, "content").filter(|c| c.is_object()) else {
            continue;
        };
        let author = field(e, "author").and_then(Value::as_str).unwrap_or("user");
        let invocation = field(e, "invocation_id")
            .or_else(|| field(e, "invocationId"))
            .and_then(Value::as_str);
        let agent = (author != "user").then_some(author);
        if let Some(a) = agent {
            if last != Some((a, invocation)) {
                sink.agent_run(a);
            }
        }
        last = Some((author, invocation));
        sink.set_agent(agent);
        st.content(c, &[Seg::K("events"), Seg::I(i), Seg::K("content")], sink);
    }
    st.finish(sink);
    Ok(())
}
