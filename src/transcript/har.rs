//! HAR files (HTTP Archive 1.2: `{log: {entries: [{request, response}]}}`, what browsers,
//! Polly.js and other recorders keep of HTTP traffic) as containers of provider API calls.
//!
//! Each entry's request body (`request.postData.text`) and response body
//! (`response.content.text`) are JSON text inside strings, or, for a streamed response, the
//! `text/event-stream` the server sent. An entry whose bodies hold a provider's API call is read
//! as a `{request, response}` capture of that format (docs/formats.md): the request's history,
//! then the response — a JSON document, or the stream's events read as the same events saved one
//! per line. All entries of a file are one conversation (one transcript): a call a later request
//! resends is counted once. Calls are located at their entry. Entries that are not API calls of
//! a format toolspec reads (pages, images, other services, `base64` bodies) are skipped; a file
//! with none is `unknown-format`.

use serde_json::Value;

use crate::source::Span;

use super::detect;
use super::readers::{self, Origin, Session};
use super::sink::{field, s, Sink};
use super::spans::{Seg, SpanTree};
use super::{Format, Keep, ReadError, Transcript};

/// Whether `v` is a HAR file: `log.entries` a non-empty list of `{request, response}` objects.
pub(super) fn is_har(v: &Value) -> bool {
    field(v, "log")
        .and_then(|l| field(l, "entries"))
        .and_then(Value::as_array)
        .is_some_and(|e| {
            !e.is_empty()
                && e.iter().all(|x| {
                    field(x, "request").is_some_and(Value::is_object)
                        && field(x, "response").is_some_and(Value::is_object)
                })
        })
}

/// A response body: a JSON document, or the payloads of a server-sent event stream.
enum Body {
    Json(Value),
    Events(Vec<Value>),
}

/// The text of a body (`None` when it is absent or encoded: HAR marks binary bodies `base64`).
fn text_of(holder: Option<&Value>) -> Option<&str> {
    let h = holder?;
    if s(h, "encoding").is_some_and(|e| !e.is_empty()) {
        return None;
    }
    s(h, "text")
}

/// The response body of an entry.
fn response_body(content: Option<&Value>) -> Option<Body> {
    let text = text_of(content)?;
    let mime = content.and_then(|c| s(c, "mimeType")).unwrap_or("");
    let first = text.trim_start();
    if mime.contains("event-stream") || super::sse::opens(first.as_bytes()) {
        let mut events = super::sse::Events::default();
        let mut out = Vec::new();
        let mut deliver = |p: super::sse::Payload<'_>| {
            if let Ok(v) = serde_json::from_slice::<Value>(p.line.bytes) {
                out.push(v);
            }
            Ok(())
        };
        let mut offset = 0;
        for (no, line) in text.split('\n').enumerate() {
            events
                .push("", no + 1, offset, line.as_bytes(), true, &mut deliver)
                .ok()?;
            offset += line.len() + 1;
        }
        events.finish(&mut deliver).ok()?;
        return Some(Body::Events(out));
    }
    serde_json::from_str(text).ok().map(Body::Json)
}

/// Formats whose documents are one conversation (what a capture can be).
fn one(f: Format) -> bool {
    f.def().parts.is_none() && !f.is_session_format()
}

/// Read a HAR file: every entry that is a provider API call, into one transcript.
pub(super) fn read(
    name: &str,
    text: &[u8],
    v: &Value,
    forced: Option<Format>,
    keep: &Keep,
    emit: &mut impl FnMut(Transcript),
) -> Result<(), ReadError> {
    let entries = field(v, "log")
        .and_then(|l| field(l, "entries"))
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let tree = SpanTree::build(text, 3);
    let mut sink = Sink::keeping(keep);
    let mut format: Option<Format> = None;
    for (i, e) in entries.iter().enumerate() {
        let request = field(e, "request")
            .and_then(|r| text_of(field(r, "postData")))
            .and_then(|t| serde_json::from_str::<Value>(t).ok());
        let response = field(e, "response").and_then(|r| response_body(field(r, "content")));
        let found = forced.or_else(|| {
            let of_response = match &response {
                Some(Body::Json(r)) => detect::doc(r).ok(),
                Some(Body::Events(events)) => events.iter().find_map(detect::line),
                None => None,
            };
            of_response
                .or_else(|| request.as_ref().and_then(|r| detect::doc(r).ok()))
                .filter(|f| one(*f))
        });
        let Some(f) = found.filter(|f| one(*f)) else {
            continue;
        };
        format.get_or_insert(f);
        let at = tree
            .locate(&[Seg::K("log"), Seg::K("entries"), Seg::I(i)])
            .map_or(Span::new(0, text.len()), |(a, b)| Span::new(a, b));
        sink.line = Some(at);
        if let Some(r) = &request {
            // A request need not hold a message (a first call).
            let _ = readers::read_doc(f, r, &mut sink);
        }
        match response {
            Some(Body::Json(r)) => {
                let _ = readers::read_doc(f, &r, &mut sink);
            }
            Some(Body::Events(events)) => {
                let first = events.iter().find(|x| detect::line(*x) == Some(f));
                let mut session = Session::new(f, first);
                for x in &events {
                    session.line(x, Origin::Unknown, &mut sink);
                }
                session.finish(&mut sink);
            }
            None => {}
        }
        sink.line = None;
    }
    let Some(format) = format else {
        return Err(super::driver::detection_failed(
            name,
            format!(
                "a HAR file of {} entries, none of them an API call of a format toolspec reads",
                entries.len()
            ),
        ));
    };
    emit(super::driver::transcript(format, None, sink));
    Ok(())
}
