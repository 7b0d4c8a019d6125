//! Server-sent events (`text/event-stream`) saved verbatim: the framing decoded into the
//! events' `data` payloads, which are then read as JSON lines by the stream reader of their
//! provider (Anthropic Messages events, OpenAI Responses events, Chat Completions chunks, Gemini
//! `alt=sse` responses) — one path for a stream saved as SSE text and one saved as JSON lines.
//!
//! Framing per the HTML standard's event-stream parser: lines end with LF, CRLF or CR; a blank
//! line ends an event; a line starting with `:` is a comment (`: ping`, `: OPENROUTER
//! PROCESSING`); `field: value` (one space after the colon dropped); the `data` lines of one
//! event are joined with `\n`; `event`, `id` and `retry` are not needed (every payload names its
//! own type) and other fields are ignored. A payload of `[DONE]` (OpenAI's end marker) is
//! skipped. Unlike a browser, the last event is read even when the blank line after it is
//! missing (a saved file often loses it). An event's data is at most [`MAX_EVENT`] bytes: past
//! it, a located error rather than unbounded memory.

use super::error::Locator;
use super::text::Line;
use super::ReadError;

/// The most bytes of `data` one event may hold.
pub(super) const MAX_EVENT: usize = 16 << 20;

/// Whether a file whose first non-blank line is `first` is an event stream: the line is a
/// comment or an `event`, `data`, `id` or `retry` field.
pub(super) fn opens(first: &[u8]) -> bool {
    let t = first.trim_ascii_start();
    t.starts_with(b":")
        || [&b"data:"[..], b"event:", b"id:", b"retry:"]
            .iter()
            .any(|f| t.starts_with(f))
}

/// One event's payload, handed on as a line of JSON: its text, the 1-based line and byte offset
/// of its first `data` value (calls recorded in it are located there), and whether the event
/// was ended by a blank line or a line break (an event cut off at the end of the file is not).
pub(super) struct Payload<'p> {
    pub no: usize,
    pub offset: usize,
    pub line: Line<'p>,
    pub terminated: bool,
}

/// The decoder: fed the file's lines (split at LF) in order.
#[derive(Default)]
pub(super) struct Events {
    /// The `data` of the event being read, its lines joined with `\n`.
    data: Vec<u8>,
    /// Line number and offset of the event's first `data` value.
    first: Option<(usize, usize)>,
    /// Whether the last `data` line ended with a line break.
    terminated: bool,
}

impl Events {
    /// Feed line `no` (at byte `offset`, without its LF; `terminated`: an LF followed it);
    /// `deliver` gets each payload as its event ends.
    pub(super) fn push(
        &mut self,
        name: &str,
        no: usize,
        offset: usize,
        bytes: &[u8],
        terminated: bool,
        deliver: &mut impl FnMut(Payload<'_>) -> Result<(), ReadError>,
    ) -> Result<(), ReadError> {
        // CRLF: the CR belongs to the line break; a CR left inside is a line break of its own.
        let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        let mut at = 0usize;
        for piece in bytes.split(|&b| b == b'\r') {
            let last = at + piece.len() == bytes.len();
            self.field(name, no, offset + at, piece, !last || terminated, deliver)?;
            at += piece.len() + 1;
        }
        Ok(())
    }

    fn field(
        &mut self,
        name: &str,
        no: usize,
        offset: usize,
        line: &[u8],
        terminated: bool,
        deliver: &mut impl FnMut(Payload<'_>) -> Result<(), ReadError>,
    ) -> Result<(), ReadError> {
        let indent = line.len() - line.trim_ascii_start().len();
        let line = &line[indent..];
        if line.is_empty() {
            return self.dispatch(deliver);
        }
        if line.starts_with(b":") {
            return Ok(());
        }
        let (field, value, at) = match memchr::memchr(b':', line) {
            Some(i) => {
                let v = &line[i + 1..];
                let v = v.strip_prefix(b" ").unwrap_or(v);
                (&line[..i], v, indent + line.len() - v.len())
            }
            None => (line, &b""[..], indent + line.len()),
        };
        if field != b"data" {
            return Ok(());
        }
        if self.data.len() + value.len() + 1 > MAX_EVENT {
            let loc = Locator {
                name,
                text: line,
                base: offset + indent,
                first_line: no,
            };
            return Err(loc.wrong_shape(
                0,
                format!(
                    "this server-sent event holds more than {} MiB of data, the most read from one event",
                    MAX_EVENT >> 20
                ),
                "a provider stream's events are small: check that the file is a saved event stream, or split the event",
            ));
        }
        if self.first.is_none() {
            self.first = Some((no, offset + at));
        } else {
            self.data.push(b'\n');
        }
        self.data.extend_from_slice(value);
        self.terminated = terminated;
        Ok(())
    }

    fn dispatch(
        &mut self,
        deliver: &mut impl FnMut(Payload<'_>) -> Result<(), ReadError>,
    ) -> Result<(), ReadError> {
        let Some((no, offset)) = self.first.take() else {
            self.data.clear();
            return Ok(());
        };
        let data = std::mem::take(&mut self.data);
        if data.trim_ascii() == b"[DONE]" {
            return Ok(());
        }
        let terminated = std::mem::replace(&mut self.terminated, false);
        let result = deliver(Payload {
            no,
            offset,
            line: Line {
                bytes: &data,
                text: crate::source::utf8(&data),
            },
            terminated,
        });
        // Keep the buffer's capacity for the next event.
        self.data = data;
        self.data.clear();
        result
    }

    /// End of the file: the event still open is read.
    pub(super) fn finish(
        &mut self,
        deliver: &mut impl FnMut(Payload<'_>) -> Result<(), ReadError>,
    ) -> Result<(), ReadError> {
        self.dispatch(deliver)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(text: &str) -> Vec<(usize, usize, String, bool)> {
        let mut events = Events::default();
        let mut out = Vec::new();
        let mut deliver = |p: Payload<'_>| {
            out.push((
                p.no,
                p.offset,
                String::from_utf8(p.line.bytes.to_vec()).unwrap(),
                p.terminated,
            ));
            Ok(())
        };
        let mut start = 0;
        for (i, line) in text.split_inclusive('\n').enumerate() {
            let terminated = line.ends_with('\n');
            let body = line.strip_suffix('\n').unwrap_or(line);
            events
                .push("t", i + 1, start, body.as_bytes(), terminated, &mut deliver)
                .unwrap();
            start += line.len();
        }
        events.finish(&mut deliver).unwrap();
        out
    }

    #[test]
    fn fields_comments_multi_line_data_and_line_endings_follow_the_standard() {
        let text = ": ping\nevent: message_start\ndata: {\"a\":1}\n\nid: 7\ndata:{\"b\":\ndata:  2}\nretry: 10\n\n\n";
        let got = decode(text);
        assert_eq!(
            got,
            [
                (3, 34, "{\"a\":1}".into(), true),
                (6, 54, "{\"b\":\n 2}".into(), true)
            ]
        );
        assert_eq!(&text[34..41], "{\"a\":1}");
        // CRLF and bare CR line breaks; `[DONE]` skipped; the last event needs no blank line.
        let got = decode("data: {\"c\":1}\r\n\r\ndata: [DONE]\r\rdata: {\"d\":2}");
        let payloads: Vec<_> = got.iter().map(|g| (g.2.as_str(), g.3)).collect();
        assert_eq!(payloads, [("{\"c\":1}", true), ("{\"d\":2}", false)]);
        assert_eq!(
            got[1].1,
            "data: {\"c\":1}\r\n\r\ndata: [DONE]\r\rdata: ".len()
        );
        // A `data` field without a colon has an empty value; unknown fields are not data.
        assert_eq!(decode("data\nfoo: {}\n\n"), [(1, 4, String::new(), true)]);
        assert!(decode("foo: {}\n\n").is_empty());
    }

    #[test]
    fn an_event_past_the_bound_is_a_located_error() {
        let mut events = Events::default();
        let big = vec![b'x'; MAX_EVENT / 2];
        let mut line = b"data: ".to_vec();
        line.extend_from_slice(&big);
        let mut deliver = |_: Payload<'_>| Ok(());
        events.push("t", 1, 0, &line, true, &mut deliver).unwrap();
        let err = events
            .push("t", 2, line.len() + 1, &line, true, &mut deliver)
            .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("t:2:1: this server-sent event holds more than 16 MiB"),
            "{err}"
        );
    }

    #[test]
    fn event_streams_are_told_by_their_first_line() {
        for yes in [
            "event: x",
            "data: {}",
            ": ping",
            "id: 1",
            "retry: 5",
            "  data:{}",
        ] {
            assert!(opens(yes.as_bytes()), "{yes}");
        }
        for no in [
            "{\"data\": 1}",
            "STDIN: {}",
            "2025-01-01 [info] x",
            "database: x",
        ] {
            assert!(!opens(no.as_bytes()), "{no}");
        }
    }
}
