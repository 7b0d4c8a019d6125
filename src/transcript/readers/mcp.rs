//! MCP JSON-RPC logs: raw JSONL, Claude Desktop log lines and stdio captures (direction known),
//! batches, cancellations and task-augmented `tools/call`.

use std::collections::{HashMap, VecDeque};

use serde_json::Value;

use super::super::sink::{field, id_string, norm_output, s, Args, Sink};
use super::super::spans::Seg;
use super::super::Format;
use super::Origin;

/// Methods a server sends to the client (everything else goes client → server).
const SERVER_METHODS: &[&str] = &["roots/list", "sampling/createMessage", "elicitation/create"];

struct Pending {
    method: String,
    /// The call this request answers: `tools/call` itself, or a `tasks/result` for its task.
    call: Option<usize>,
}

/// Read a document of JSON-RPC 2.0 message lines (an array of them, or one).
pub(crate) fn read(v: &Value, sink: &mut Sink) -> Result<(), String> {
    super::session_doc(Format::McpJsonrpc, "JSON-RPC 2.0 message", v, sink)
}

/// MCP session state: unanswered requests keyed by (sender, id).
#[derive(Default)]
pub(crate) struct State {
    pending: HashMap<(Origin, String), VecDeque<Pending>>,
    /// Task id → call, for task-augmented `tools/call`.
    tasks: HashMap<String, usize>,
}

impl State {
    /// Feed one message (or a batch).
    pub(crate) fn message(&mut self, v: &Value, origin: Origin, sink: &mut Sink) {
        match v {
            Value::Array(batch) => {
                let prefix = sink.prefix.clone();
                for (k, m) in batch.iter().enumerate() {
                    sink.prefix = [prefix.as_slice(), &[Seg::I(k)]].concat();
                    self.one(m, origin, sink);
                }
                sink.prefix = prefix;
            }
            _ => self.one(v, origin, sink),
        }
    }

    fn one(&mut self, m: &Value, origin: Origin, sink: &mut Sink) {
        let id = id_string(field(m, "id"));
        if let Some(method) = s(m, "method") {
            let sender = match origin {
                Origin::Unknown if SERVER_METHODS.contains(&method) => Origin::Server,
                Origin::Unknown => Origin::Client,
                o => o,
            };
            if method == "notifications/cancelled" {
                let req = field(m, "params").and_then(|p| id_string(field(p, "requestId")));
                if let Some(req) = req {
                    // The canceller is the requester.
                    if let Some(q) = self.pending.get_mut(&(sender, req)) {
                        q.pop_front();
                    }
                }
                return;
            }
            let Some(id) = id else { return };
            let params = field(m, "params");
            let call = match method {
                "tools/call" => {
                    let p = params.unwrap_or(&Value::Null);
                    let args = p
                        .get("arguments")
                        .filter(|a| !a.is_null())
                        .map_or(Args::Empty, Args::Value);
                    let loc = sink.at(&[]);
                    Some(sink.call_unique(s(p, "name").unwrap_or(""), args, Some(id.clone()), loc))
                }
                "tasks/result" => params
                    .and_then(|p| s(p, "taskId"))
                    .and_then(|t| self.tasks.get(t).copied()),
                _ => None,
            };
            self.pending
                .entry((sender, id))
                .or_default()
                .push_back(Pending {
                    method: method.to_string(),
                    call,
                });
            return;
        }
        let Some(id) = id else { return };
        let is_response = field(m, "result").is_some() || field(m, "error").is_some();
        if !is_response {
            return;
        }
        let requester = match origin {
            Origin::Client => Some(Origin::Server),
            Origin::Server => Some(Origin::Client),
            Origin::Unknown => None,
        };
        let key = if let Some(r) = requester {
            (r, id)
        } else {
            let c = (Origin::Client, id.clone());
            let sv = (Origin::Server, id);
            let has = |k: &(Origin, String)| self.pending.get(k).is_some_and(|q| !q.is_empty());
            match (has(&c), has(&sv)) {
                (true, true) if looks_like_client_answer(m) => sv,
                (false, true) => sv,
                _ => c,
            }
        };
        let Some(req) = self.pending.get_mut(&key).and_then(VecDeque::pop_front) else {
            return;
        };
        if req.method == "tools/list" {
            if let Some(tools) = m
                .get("result")
                .and_then(|r| field(r, "tools"))
                .and_then(Value::as_array)
            {
                for t in tools {
                    sink.declare(
                        s(t, "name").unwrap_or(""),
                        field(t, "description"),
                        field(t, "inputSchema"),
                    );
                }
            }
            return;
        }
        let Some(call) = req.call else { return };
        if let Some(err) = field(m, "error") {
            let msg = field(err, "message")
                .cloned()
                .unwrap_or_else(|| err.clone());
            sink.answer(call, Some(msg), true);
            return;
        }
        let result = &m["result"];
        if req.method == "tools/call" {
            if let Some(task) = field(result, "task").and_then(|t| s(t, "taskId")) {
                if field(result, "content").is_none() {
                    self.tasks.insert(task.to_string(), call);
                    return;
                }
            }
        }
        let out = field(result, "content").map(norm_output);
        let err = result
            .get("isError")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        sink.answer(call, out, err);
    }

    /// End of input (unanswered calls keep a null output).
    pub(crate) fn finish(self, _sink: &mut Sink) {}
}

/// A result shaped like a client's answer to a server request (roots, sampling, elicitation).
fn looks_like_client_answer(m: &Value) -> bool {
    field(m, "result").is_some_and(|r| {
        field(r, "roots").is_some() || field(r, "model").is_some() || field(r, "action").is_some()
    })
}
