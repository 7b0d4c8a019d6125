//! HTTP recordings as containers of provider API calls: HAR files (HTTP Archive 1.2:
//! `{log: {entries: [{request, response}]}}`, what browsers, Polly.js and other recorders keep of
//! HTTP traffic) read here, VCR cassettes ([`super::vcr`]) through the same [`Recording`].
//!
//! Each exchange's request body and response body are JSON text inside strings (a cassette may
//! also hold them parsed), or, for a streamed response, the `text/event-stream` the server
//! sent. An exchange whose bodies hold a provider's API call is read as a `{request, response}`
//! capture of that format (docs/formats.md): the request's history, then the response — a JSON
//! document, or the stream's events read as the same events saved one per line. All exchanges
//! of a file are one conversation (one transcript): a call a later request resends is counted
//! once. Calls are located at their exchange. Exchanges that are not API calls of a format
//! toolspec reads (pages, images, other services, `base64` bodies) are skipped; a file with
//! none is `unknown-format`. The bodies of one exchange are parsed within the budget of one
//! document ([`PARSED_BUDGET`]), and dropped once read.

use std::borrow::Cow;

use serde_json::Value;

use crate::json::budget::{self, Meter, Refusal};
use crate::source::Span;

use super::detect;
use super::error::Locator;
use super::readers::{self, Origin, Session};
use super::sink::{field, s, Sink};
use super::spans::{Seg, SpanTree};
use super::{Format, Keep, ReadError, Transcript, PARSED_BUDGET};

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

/// A response body: a JSON document (parsed from its text, or kept parsed by the recorder),
/// or the payloads of a server-sent event stream.
pub(super) enum Body<'v> {
    Json(Cow<'v, Value>),
    Events(Vec<Value>),
}

/// The bodies of one recorded exchange were past the budget.
pub(super) struct TooLarge;

/// JSON text of a body, parsed on `meter`: `None` when it is not JSON.
pub(super) fn json_text(text: &str, meter: &Meter) -> Result<Option<Value>, TooLarge> {
    match budget::from_str_metered(text, meter) {
        Ok(v) => Ok(Some(v)),
        Err(Refusal::TooLarge { .. }) => Err(TooLarge),
        Err(Refusal::Json(_)) => Ok(None),
    }
}

/// A response body's text (`mime`: its content type, when recorded): a server-sent event
/// stream when its type says so or its first line is an event field, else JSON.
pub(super) fn response_text(
    text: &str,
    mime: &str,
    meter: &Meter,
) -> Result<Option<Body<'static>>, TooLarge> {
    let first = text.trim_start();
    if !(mime.contains("event-stream") || super::sse::opens(first.as_bytes())) {
        return Ok(json_text(text, meter)?.map(|v| Body::Json(Cow::Owned(v))));
    }
    let mut events = super::sse::Events::default();
    let mut out = Vec::new();
    let mut over = false;
    let mut deliver = |p: super::sse::Payload<'_>| {
        match std::str::from_utf8(p.line.bytes)
            .ok()
            .map(|t| json_text(t, meter))
        {
            Some(Ok(Some(v))) => out.push(v),
            Some(Err(TooLarge)) => over = true,
            _ => {}
        }
        Ok(())
    };
    let mut offset = 0;
    for (no, line) in text.split('\n').enumerate() {
        if events
            .push("", no + 1, offset, line.as_bytes(), true, &mut deliver)
            .is_err()
        {
            return Ok(None);
        }
        offset += line.len() + 1;
    }
    if events.finish(&mut deliver).is_err() {
        return Ok(None);
    }
    if over {
        return Err(TooLarge);
    }
    Ok(Some(Body::Events(out)))
}

/// Formats whose documents are one conversation (what a capture can be).
fn one(f: Format) -> bool {
    f.def().parts.is_none() && !f.is_session_format()
}

/// The exchanges of one recording, read one by one into one transcript.
pub(super) struct Recording<'a> {
    name: &'a str,
    text: &'a [u8],
    forced: Option<Format>,
    sink: Sink,
    format: Option<Format>,
}

impl<'a> Recording<'a> {
    /// A recording of the file `name` (its text `text`, where exchanges are located).
    pub(super) fn new(name: &'a str, text: &'a [u8], forced: Option<Format>, keep: &Keep) -> Self {
        Recording {
            name,
            text,
            forced,
            sink: Sink::keeping(keep),
            format: None,
        }
    }

    /// A meter for the bodies of one exchange.
    pub(super) fn meter() -> Meter {
        Meter::new(PARSED_BUDGET)
    }

    /// The error for an exchange (at `at`, the `what` of the file) whose bodies are past the
    /// budget.
    pub(super) fn too_large(&self, what: &str, at: Span) -> ReadError {
        Locator {
            name: self.name,
            text: self.text,
            base: 0,
            first_line: 1,
        }
        .value_too_large(
            &format!("the bodies of {what}"),
            at.start,
            "split the recording into smaller files, or keep large payloads out of it",
        )
    }

    /// Read one exchange, located at `at`: its request body (parsed) and its response body.
    pub(super) fn exchange(
        &mut self,
        request: Option<&Value>,
        response: Option<&Body<'_>>,
        at: Span,
    ) {
        let found = self.forced.or_else(|| {
            let of_response = match response {
                Some(Body::Json(r)) => detect::doc(&**r).ok(),
                Some(Body::Events(events)) => events.iter().find_map(detect::line),
                None => None,
            };
            of_response
                .or_else(|| request.and_then(|r| detect::doc(r).ok()))
                .filter(|f| one(*f))
        });
        let Some(f) = found.filter(|f| one(*f)) else {
            return;
        };
        self.format.get_or_insert(f);
        let sink = &mut self.sink;
        sink.line = Some(at);
        if let Some(r) = request {
            // A request need not hold a message (a first call).
            let _ = readers::read_doc(f, r, sink);
        }
        match response {
            Some(Body::Json(r)) => {
                let _ = readers::read_doc(f, r, sink);
            }
            Some(Body::Events(events)) => {
                let first = events.iter().find(|x| detect::line(*x) == Some(f));
                let mut session = Session::new(f, first);
                for x in events {
                    session.line(x, Origin::Unknown, sink);
                }
                session.finish(sink);
            }
            None => {}
        }
        // The bodies' text is not kept: arguments read from them keep their value only.
        sink.forget_unwritten();
        sink.line = None;
    }

    /// The transcript of the exchanges read, or `unknown-format` (saying `found`, what the file
    /// holds) when none was an API call of a format toolspec reads.
    pub(super) fn finish(
        self,
        found: impl FnOnce() -> String,
        emit: &mut impl FnMut(Transcript),
    ) -> Result<(), ReadError> {
        let Some(format) = self.format else {
            return Err(super::driver::detection_failed(self.name, found()));
        };
        emit(super::driver::transcript(format, None, self.sink));
        Ok(())
    }
}

/// The text of a HAR body (`None` when it is absent or encoded: HAR marks binary bodies
/// `base64`).
fn text_of(holder: Option<&Value>) -> Option<&str> {
    let h = holder?;
    if s(h, "encoding").is_some_and(|e| !e.is_empty()) {
        return None;
    }
    s(h, "text")
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
    let mut recording = Recording::new(name, text, forced, keep);
    for (i, e) in entries.iter().enumerate() {
        let at = tree
            .locate(&[Seg::K("log"), Seg::K("entries"), Seg::I(i)])
            .map_or(Span::new(0, text.len()), |(a, b)| Span::new(a, b));
        let meter = Recording::meter();
        let bodies = (|| {
            let request = match field(e, "request").and_then(|r| text_of(field(r, "postData"))) {
                Some(t) => json_text(t, &meter)?,
                None => None,
            };
            let content = field(e, "response").and_then(|r| field(r, "content"));
            let response = match text_of(content) {
                Some(t) => {
                    let mime = content.and_then(|c| s(c, "mimeType")).unwrap_or("");
                    response_text(t, mime, &meter)?
                }
                None => None,
            };
            Ok((request, response))
        })();
        let (request, response) =
            bodies.map_err(|TooLarge| recording.too_large(&format!("entry {i}"), at))?;
        recording.exchange(request.as_ref(), response.as_ref(), at);
    }
    recording.finish(
        || {
            format!(
                "a HAR file of {} entries, none of them an API call of a format toolspec reads",
                entries.len()
            )
        },
        emit,
    )
}
