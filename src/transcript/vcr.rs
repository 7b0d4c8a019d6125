//! VCR cassettes (YAML recordings of HTTP calls) as containers of provider API calls, read
//! through the recording path of HAR files ([`super::har::Recording`]).
//!
//! The shapes of the recorders that keep them:
//! - vcrpy and pytest-recording (Python; what LangChain, LiteLLM, openllmetry and many SDK test
//!   suites keep): `interactions: [{request: {body, uri, method, headers}, response: {body:
//!   {string}, headers, status: {code, message}}}]`, `version: 1`;
//! - pydantic-ai's cassettes (vcrpy with its own serializer): the JSON bodies kept parsed, as
//!   YAML maps, under `parsed_body` beside (or instead of) `body`;
//! - go-vcr (Go): `interactions: [{request: {body, url, method, headers}, response: {body,
//!   headers, status, code}}]`, `version: 1` or `2`, bodies as strings;
//! - Ruby's VCR: `http_interactions: [{request: {body: {encoding, string}, uri, …}, response:
//!   {body: {encoding, string}, …}, recorded_at}]`.
//!
//! A body is a string (JSON text, or the `text/event-stream` a streamed response sent), a map
//! holding it as `string`, or a parsed map or list (`parsed_body`, or a body written as YAML).
//! Bodies kept as `base64_string`, or as `!!binary` (gzip-compressed recordings), are not
//! decoded: such an exchange is skipped as one of no format. Each exchange is located at its
//! item of `interactions`.

use std::borrow::Cow;

use serde_json::Value;

use crate::json::yaml::{Key, Parsed};
use crate::source::Span;

use super::har::{json_text, response_text, Body, Recording, TooLarge};
use super::sink::{field, s};
use super::{Format, Keep, ReadError, Transcript};

/// The keys a cassette lists its exchanges under (vcrpy and go-vcr; Ruby's VCR).
const LISTS: [&str; 2] = ["interactions", "http_interactions"];

/// The exchanges of `v`, and the key they are listed under, if `v` is a cassette: a non-empty
/// list of `{request, response}` maps under `interactions` (or `http_interactions`).
pub(super) fn interactions(v: &Value) -> Option<(&'static str, &[Value])> {
    LISTS.into_iter().find_map(|key| {
        let list = field(v, key)?.as_array()?;
        let all = !list.is_empty()
            && list.iter().all(|x| {
                field(x, "request").is_some_and(Value::is_object)
                    && field(x, "response").is_some_and(Value::is_object)
            });
        all.then_some((key, list.as_slice()))
    })
}

/// The text a body holds as a string (`None` for a parsed body, or one kept encoded).
fn text_of(body: &Value) -> Option<&str> {
    match body {
        Value::String(t) => Some(t),
        Value::Object(_) => s(body, "string"),
        _ => None,
    }
}

/// A body kept parsed: `parsed_body`, or a `body` that is a map (other than a `{string}` or
/// `{encoding, base64_string}` holder) or a list.
fn parsed_of(half: &Value) -> Option<&Value> {
    if let Some(p) = field(half, "parsed_body").filter(|p| !p.is_null()) {
        return Some(p);
    }
    let body = field(half, "body")?;
    let holder = ["string", "base64_string", "encoding"]
        .iter()
        .any(|k| field(body, k).is_some());
    (matches!(body, Value::Object(_) | Value::Array(_)) && !holder).then_some(body)
}

/// The content type of a recorded response (headers written as vcrpy, go-vcr and Ruby's VCR
/// write them: any case, a string or a list of strings).
fn content_type(response: &Value) -> &str {
    let Some(Value::Object(headers)) = field(response, "headers") else {
        return "";
    };
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-type"))
        .and_then(|(_, v)| match v {
            Value::String(t) => Some(t.as_str()),
            Value::Array(items) => items.first().and_then(Value::as_str),
            _ => None,
        })
        .unwrap_or("")
}

/// Read a cassette (`parsed`, the YAML document of the file `name`, whose text is `text`):
/// every interaction that is a provider API call, into one transcript.
pub(super) fn read(
    name: &str,
    text: &[u8],
    parsed: &Parsed,
    forced: Option<Format>,
    keep: &Keep,
    emit: &mut impl FnMut(Transcript),
) -> Result<(), ReadError> {
    let Some((key, list)) = interactions(&parsed.value) else {
        return Err(super::driver::detection_failed(
            name,
            "a YAML document that is not a VCR cassette (no `interactions` list of `{request, response}` maps)".into(),
        ));
    };
    let mut recording = Recording::new(name, text, forced, keep);
    for (i, x) in list.iter().enumerate() {
        let at = parsed
            .spans
            .locate(&parsed.value, [Key::Name(key), Key::Index(i)])
            .map_or(Span::new(0, text.len()), |(a, b)| Span::new(a, b));
        let (Some(request), Some(response)) = (field(x, "request"), field(x, "response")) else {
            continue;
        };
        let meter = Recording::meter();
        let bodies = (|| {
            let request_body = match parsed_of(request) {
                Some(p) => Some(Cow::Borrowed(p)),
                None => match field(request, "body").and_then(text_of) {
                    Some(t) => json_text(t, &meter)?.map(Cow::Owned),
                    None => None,
                },
            };
            let response_body = match parsed_of(response) {
                Some(p) => Some(Body::Json(Cow::Borrowed(p))),
                None => match field(response, "body").and_then(text_of) {
                    Some(t) => response_text(t, content_type(response), &meter)?,
                    None => None,
                },
            };
            Ok((request_body, response_body))
        })();
        let (request_body, response_body) =
            bodies.map_err(|TooLarge| recording.too_large(&format!("interaction {i}"), at))?;
        recording.exchange(request_body.as_deref(), response_body.as_ref(), at);
    }
    recording.finish(
        || {
            format!(
                "a VCR cassette of {} interactions, none of them an API call of a format toolspec reads",
                list.len()
            )
        },
        emit,
    )
}
