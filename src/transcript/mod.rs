//! Transcript readers: bytes of a file on disk → normalized tool calls with locations.
//!
//! Input: a file's bytes (and optionally a forced [`Format`]). Output: one or more
//! [`Transcript`]s — a JSON document or a JSONL *session* (one event per line) is one transcript,
//! a JSONL *dataset* (one transcript per line) gives one per line, an HTTP recording (a HAR file,
//! a YAML VCR cassette) of provider API calls is one transcript — each an ordered list of
//! [`ToolCall`]s with byte spans, the tools it declares, and [`ReadFinding`]s (e.g. arguments
//! that are not valid JSON). The format is sniffed from the content (see `docs/formats.md`).
//!
//! Fails with a located [`ReadError`] for empty, binary, non-UTF-8 or malformed files, for
//! JSON of the wrong shape for a forced format, and for files that match no format
//! ([`ReadError::DetectionFailed`] lists every format tried and why it did not match).
//! Large JSONL files are streamed line by line ([`Reader::read_file_with`]), in bounded memory.

// Read errors carry a renderable source snippet, so they are large; they are built once per
// failed file, never in a hot loop, so boxing them would only add noise.
#![allow(clippy::result_large_err)]

pub mod model;

mod archive;
mod detect;
mod driver;
mod error;
mod format;
mod har;
mod jsonl;
pub mod mapping;
mod readers;
mod sink;
mod spans;
mod sse;
mod text;
mod vcr;
mod yaml;

use std::io::Read;
use std::path::Path;

pub use error::{ReadError, Rejection};
pub use format::{Format, UnknownFormat};
pub use mapping::Mapping;
pub use model::{CallTable, ToolCall, ToolDecl};
pub(crate) use sink::field;

use crate::source::Span;

/// The [`Keep::compact`] limit `check` reads with: transcripts of more calls than this are kept
/// compact.
pub const COMPACT_ABOVE: usize = 2_000;

/// Files up to this size are read whole; larger ones are streamed when they are JSON lines.
pub(crate) const WHOLE_FILE_LIMIT: u64 = 64 << 20;

/// Longest line of a streamed file (and largest JSON document of a streamed file that is not
/// JSON lines), in bytes: past it, a `line-too-long` error after the records before it.
pub const MAX_LINE: u64 = 128 << 20;

/// Most bytes the parsed value of one JSON document, line or archive entry may take, estimated
/// as it is built ([`crate::json::budget`]): past it, a `value-too-large` error. The text's
/// size alone bounds nothing: 64 MiB of `{"a":0},` take 4 GB as serde_json values, where real
/// transcripts take 3 to 11 times their text (a 64 MiB Langfuse trace, 700 MB).
pub const PARSED_BUDGET: usize = 1 << 30;

/// What one worker may hold at once while reading a transcript file: the file (64 MiB) or one
/// line of it ([`MAX_LINE`]), an archive entry inflated (64 MiB), the parsed value
/// ([`PARSED_BUDGET`]), and the transcript's calls and spans. The command line runs no more
/// workers by default than the memory available holds of these.
pub const WORKER_MEMORY: u64 = 3 << 29;

/// Where a transcript sits in a JSONL dataset: its line and byte span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordLoc {
    /// 1-based line number.
    pub line: usize,
    /// Byte span of the line (without its newline).
    pub span: Span,
}

/// Something worth telling the user about one call or record, that did not stop reading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadFinding {
    /// Stable kebab-case code: the [`Code::id`](crate::code::Code::id) of a [`Stage::Read`]
    /// code (`invalid-arguments`, `orphan-result`, ...).
    ///
    /// [`Stage::Read`]: crate::code::Stage::Read
    pub code: &'static str,
    /// Plain explanation.
    pub message: String,
    /// Where in the file (the record concerned).
    pub span: Span,
}

/// One transcript read from a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Transcript {
    /// The format it was read as.
    pub format: Format,
    /// For a JSONL dataset, the line this transcript came from; `None` for a whole file.
    pub record: Option<RecordLoc>,
    /// The tool calls, in call order (empty when they are handed over compact, see
    /// [`Keep::compact`]).
    pub calls: Vec<ToolCall>,
    /// The tool calls in compact form instead of `calls`, when a [`Keep::compact`] limit was
    /// passed; `None` otherwise.
    pub compact: Option<CallTable>,
    /// Tools the transcript declares as available (where the format records them).
    pub tools: Vec<ToolDecl>,
    /// Whether each call, by position, got a result the reader linked to it (whatever was kept
    /// of the result): what the `missing-result` rule reads.
    pub answered: Vec<bool>,
    /// Non-fatal problems.
    pub findings: Vec<ReadFinding>,
    /// How many user turns the transcript records (user messages that are prompts, not tool
    /// results); `None` when its format records none, or it has no user message.
    pub turns: Option<u32>,
    /// The final answer: the text of the last assistant message that has text, where the
    /// format records it.
    pub answer: Option<String>,
    /// Each start of a sub-agent, in order, where the format records them (`None`: it does not;
    /// `Some` and empty: no sub-agent started).
    pub agent_runs: Option<Vec<model::AgentRun>>,
}

/// A JSON document held as a value, with its text: what a file holding that text would be read
/// as. Built from a `serde_json::Value` ([`Document::new`]) or value by value
/// ([`DocumentBuilder`]), so that the text is always the value's (compact JSON, as serde_json
/// writes it) and the calls found in the value are placed in it. The text is written when it
/// is first asked for: a check for verdicts alone places nothing and never writes it.
///
/// ```
/// use toolspec::transcript::{Document, Reader};
/// let doc = Document::new(serde_json::json!([{"name": "ls", "args": {}}]));
/// assert_eq!(doc.text(), br#"[{"name":"ls","args":{}}]"#);
/// let t = Reader::new().read("t.json", doc.text()).unwrap();
/// let mut same = Vec::new();
/// Reader::new().read_document_with("t.json", &doc, |t| same.push(t)).unwrap();
/// assert_eq!(same, t);
/// ```
#[derive(Debug, Clone)]
pub struct Document {
    /// The nodes of a document built value by value: the readers that take views read them
    /// as they are.
    nodes: Option<crate::json::tape::Owned>,
    /// The value: given, or built from the nodes when first asked for.
    value: std::sync::OnceLock<serde_json::Value>,
    text: std::sync::OnceLock<Vec<u8>>,
}

impl Document {
    /// The document `value`.
    pub fn new(value: serde_json::Value) -> Document {
        Document {
            nodes: None,
            value: std::sync::OnceLock::from(value),
            text: std::sync::OnceLock::new(),
        }
    }

    /// The value.
    pub fn value(&self) -> &serde_json::Value {
        self.value.get_or_init(|| {
            self.nodes.as_ref().map_or(serde_json::Value::Null, |n| {
                crate::json::to_value(n.tape().root())
            })
        })
    }

    /// Its text (compact JSON).
    pub fn text(&self) -> &[u8] {
        // Writing a `Value` to memory cannot fail: its keys are strings, its numbers finite.
        self.text
            .get_or_init(|| serde_json::to_vec(self.value()).unwrap_or_default())
    }

    /// The nodes, for a document built value by value.
    pub(crate) fn nodes(&self) -> Option<&crate::json::tape::Owned> {
        self.nodes.as_ref()
    }
}

impl PartialEq for Document {
    fn eq(&self, other: &Document) -> bool {
        self.value() == other.value()
    }
}

/// A [`Document`] built value by value in document order, without a `serde_json::Value`
/// between: what a binding that walks its own language's objects (the Python module) builds,
/// at a fraction of a `Value`'s cost. The readers of the commonest formats read it as it is;
/// the others read the `Value` built from it.
///
/// Values are pushed in order; an array or object is opened, filled and closed; each member
/// of an object is its key ([`DocumentBuilder::key`]) then its value. The keys of one object
/// must differ (a binding merges keys its language holds apart but JSON writes alike, as
/// JSON's reading would: first position, last value).
///
/// ```
/// use toolspec::transcript::{Document, DocumentBuilder};
/// let mut b = DocumentBuilder::new();
/// b.begin_array();
/// b.begin_object();
/// b.key("name");
/// b.str("ls");
/// b.key("args");
/// b.begin_object();
/// b.end();
/// b.end();
/// b.end();
/// let doc = b.finish().unwrap();
/// assert_eq!(doc, Document::new(serde_json::json!([{"name": "ls", "args": {}}])));
/// ```
#[derive(Default)]
pub struct DocumentBuilder(crate::json::tape::Push);

impl DocumentBuilder {
    /// An empty builder.
    pub fn new() -> DocumentBuilder {
        DocumentBuilder::default()
    }

    /// An empty builder with room for about `values` values (keys included) and `text`
    /// bytes of their strings: a guess saves growing the buffers as the document is built.
    pub fn with_capacity(values: usize, text: usize) -> DocumentBuilder {
        DocumentBuilder(crate::json::tape::Push::with_capacity(values, text))
    }

    /// `null`.
    pub fn null(&mut self) {
        self.0.null();
    }

    /// `true` or `false`.
    pub fn bool(&mut self, b: bool) {
        self.0.bool(b);
    }

    /// An integer.
    pub fn i64(&mut self, n: i64) {
        self.0.int(n);
    }

    /// A non-negative integer.
    pub fn u64(&mut self, n: u64) {
        self.0.uint(n);
    }

    /// A number with a fraction; one that is not finite is `null`, as serde_json holds it.
    pub fn f64(&mut self, f: f64) {
        self.0.float(f);
    }

    /// A string.
    pub fn str(&mut self, s: &str) {
        self.0.str(s);
    }

    /// Open an array.
    pub fn begin_array(&mut self) {
        self.0.open(false);
    }

    /// Open an object.
    pub fn begin_object(&mut self) {
        self.0.open(true);
    }

    /// The key of the next member of the open object.
    pub fn key(&mut self, key: &str) {
        self.0.key(key);
    }

    /// Close the innermost open array or object.
    pub fn end(&mut self) {
        self.0.close();
    }

    /// The document, or why the calls made none: they were not one whole value (a key
    /// outside an object, a container left open, …), or it is past a bound: 256 levels of
    /// nesting, 4 GiB of text or as many values.
    pub fn finish(self) -> Result<Document, String> {
        let nodes = self.0.finish().map_err(str::to_string)?;
        Ok(Document {
            nodes: Some(nodes),
            value: std::sync::OnceLock::new(),
            text: std::sync::OnceLock::new(),
        })
    }
}

/// How transcripts are read: in a given format or detected, keeping all of each call or only
/// what [`Keep`] asks for, or with a custom [`Mapping`]. `name` (a file's name) is used in
/// messages.
///
/// ```
/// use toolspec::transcript::Reader;
/// let t = Reader::new().read("t.json", br#"[{"name": "ls", "args": {}}]"#).unwrap();
/// assert_eq!(t[0].calls[0].name, "ls");
/// ```
#[derive(Clone, Default)]
pub struct Reader<'m> {
    format: Option<Format>,
    keep: Keep,
    mapping: Option<&'m Mapping>,
    /// The guard files are opened through (`None`: regular files anywhere).
    guard: Option<&'m crate::guard::RootGuard>,
}

impl<'m> Reader<'m> {
    /// Detect the format, keep everything.
    pub fn new() -> Self {
        Reader::default()
    }

    /// Read as `format` instead of detecting it (`None`: detect).
    pub fn format(mut self, format: impl Into<Option<Format>>) -> Self {
        self.format = format.into();
        self
    }

    /// Keep of each call only what `keep` asks for.
    pub fn keep(mut self, keep: Keep) -> Self {
        self.keep = keep;
        self
    }

    /// Open files through `guard` ([`Self::read_file`]); without one, a regular file
    /// anywhere ([`crate::guard::RootGuard::anywhere`]).
    pub fn guard(mut self, guard: &'m crate::guard::RootGuard) -> Self {
        self.guard = Some(guard);
        self
    }

    /// Read with a custom mapping (`None`: the built-in readers): one transcript per file,
    /// read whole.
    pub fn mapping(mut self, mapping: impl Into<Option<&'m Mapping>>) -> Self {
        self.mapping = mapping.into();
        self
    }

    /// Every transcript in `bytes`.
    pub fn read(&self, name: &str, bytes: &[u8]) -> Result<Vec<Transcript>, ReadError> {
        let mut out = Vec::new();
        self.read_with(name, bytes, |t| out.push(t))?;
        Ok(out)
    }

    /// Each transcript in `bytes`, handed to `emit` as soon as it is complete.
    pub fn read_with(
        &self,
        name: &str,
        bytes: &[u8],
        mut emit: impl FnMut(Transcript),
    ) -> Result<(), ReadError> {
        match self.mapping {
            Some(mapping) => {
                emit(mapping::read_mapped(name, bytes, mapping)?);
                Ok(())
            }
            None => driver::read_bytes(name, bytes, self.format, &self.keep, emit),
        }
    }

    /// Each transcript of a JSON document already in memory as a value (a document a host
    /// language built, not a file), handed to `emit`: what [`Self::read_with`] gives for the
    /// document's text, without parsing it again. The calls are placed in
    /// [`Document::text`]. A custom mapping reads the text.
    pub fn read_document_with(
        &self,
        name: &str,
        document: &Document,
        mut emit: impl FnMut(Transcript),
    ) -> Result<(), ReadError> {
        match self.mapping {
            Some(mapping) => {
                emit(mapping::read_mapped(name, document.text(), mapping)?);
                Ok(())
            }
            None => driver::read_parsed(name, document, self.format, &self.keep, emit),
        }
    }

    /// Every transcript of a file on disk (see [`Self::read_file_with`]).
    pub fn read_file(&self, path: &Path) -> Result<Vec<Transcript>, ReadError> {
        let mut out = Vec::new();
        self.read_file_with(path, |t| out.push(t))?;
        Ok(out)
    }

    /// Each transcript of a file on disk, handed to `emit` as soon as it is complete. Files
    /// over 64 MiB that are JSON lines (or logs) are streamed line by line: memory stays
    /// bounded by the longest line and by one session's calls, not by the file size. A
    /// mapping reads the file whole, up to [`mapping::MAPPED_FILE_LIMIT`].
    pub fn read_file_with(
        &self,
        path: &Path,
        emit: impl FnMut(Transcript),
    ) -> Result<(), ReadError> {
        let name = path.display().to_string();
        let io = |source| ReadError::Io {
            file: name.clone(),
            source,
        };
        let anywhere = crate::guard::RootGuard::anywhere();
        let guard = self.guard.unwrap_or(&anywhere);
        if self.mapping.is_some() {
            let bytes = guard.read(path, mapping::MAPPED_FILE_LIMIT).map_err(io)?;
            return self.read_with(&name, &bytes, emit);
        }
        let mut file = guard.open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        if len <= WHOLE_FILE_LIMIT {
            let mut bytes = Vec::with_capacity(len as usize);
            file.read_to_end(&mut bytes).map_err(io)?;
            return self.read_with(&name, &bytes, emit);
        }
        self.read_stream(
            &name,
            std::io::BufReader::with_capacity(1 << 20, file),
            emit,
        )
    }

    /// Each transcript from any buffered reader, line by line: JSON lines and logs are never
    /// held whole; a JSON document spanning several lines is read whole (it must be parsed as
    /// one value anyway), as is anything read with a mapping (at most
    /// [`mapping::MAPPED_FILE_LIMIT`] bytes).
    pub fn read_stream(
        &self,
        name: &str,
        mut reader: impl std::io::BufRead,
        emit: impl FnMut(Transcript),
    ) -> Result<(), ReadError> {
        if let Some(m) = self.mapping {
            let mut bytes = Vec::new();
            (&mut reader)
                .take(mapping::MAPPED_FILE_LIMIT + 1)
                .read_to_end(&mut bytes)
                .map_err(|source| ReadError::Io {
                    file: name.to_string(),
                    source,
                })?;
            if bytes.len() as u64 > mapping::MAPPED_FILE_LIMIT {
                return Err(ReadError::WrongShape {
                    file: name.to_string(),
                    line: 1,
                    col: 1,
                    message: format!(
                        "custom mapping `{}`: the input is larger than {} MiB, the most a mapping reads",
                        m.name,
                        mapping::MAPPED_FILE_LIMIT >> 20
                    ),
                    help: "split the file, or convert it to a format toolspec streams (JSON lines of a built-in format)".into(),
                    span: (0, 0).into(),
                });
            }
            return self.read_with(name, &bytes, emit);
        }
        driver::read_stream(name, reader, self.format, &self.keep, emit)
    }
}

/// A test on a tool name.
pub type NameFilter = std::sync::Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// Which parts of each call a reader keeps. By default everything; a caller that knows which
/// calls it will look into (the check runner, from its specs) drops the arguments and outputs
/// of the others as they are read, so a long session costs memory for what is checked, not for
/// every tool output it holds. A dropped part reads as `null` (arguments) or `None` (output);
/// arguments that are not valid JSON are reported all the same.
#[derive(Clone, Default)]
pub struct Keep {
    /// Keep the arguments of calls whose name passes (`None`: of every call).
    pub args: Option<NameFilter>,
    /// Keep the output of calls whose name passes (`None`: of every call).
    pub outputs: Option<NameFilter>,
    /// Keep no call's output at all (whatever `outputs` says). Readers then need not build
    /// output payloads: a Claude Code session's tool results are parsed but never built.
    pub no_outputs: bool,
    /// Hand a transcript's calls over as a [`CallTable`] (in [`Transcript::compact`]) rather
    /// than as [`ToolCall`]s once it has more than this many (`Some(0)`: always; `None`, the
    /// default: never): names interned, ids not kept, arguments as JSON text. A session of
    /// 200 000 calls then costs tens of bytes per call plus the text of the arguments kept,
    /// instead of a JSON tree per call. Below the limit the calls stay [`ToolCall`]s: checking
    /// compact calls parses their arguments again, which a small transcript need not pay for
    /// (`check` asks for [`COMPACT_ABOVE`]).
    pub compact: Option<usize>,
    /// Leave the calls and findings located by their path in a JSON document (or in a line of
    /// a dataset) unplaced, their spans empty, so that no index of the document's text is
    /// built: for a caller that wants the verdicts alone, which never says where a call is.
    /// Each dataset line's record, and what is located by its line, is still placed.
    pub unplaced: bool,
}

impl Keep {
    /// Whether the arguments of a call named `name` are kept.
    pub fn args_of(&self, name: &str) -> bool {
        self.args.as_ref().is_none_or(|f| f(name))
    }

    /// Whether anything is left out. Under [`Keep::default`] a reader builds each line as
    /// serde_json does; otherwise it may also skip building the members its format's reader
    /// never reads (a Claude Code session line).
    pub fn restricts(&self) -> bool {
        self.args.is_some() || self.outputs.is_some() || self.no_outputs
    }

    /// Whether the output of a call named `name` is kept.
    pub fn output_of(&self, name: &str) -> bool {
        !self.no_outputs && self.outputs.as_ref().is_none_or(|f| f(name))
    }
}

impl std::fmt::Debug for Keep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keep")
            .field("args", &self.args.as_ref().map(|_| "filter"))
            .field("outputs", &self.outputs.as_ref().map(|_| "filter"))
            .field("no_outputs", &self.no_outputs)
            .field("compact", &self.compact)
            .field("unplaced", &self.unplaced)
            .finish()
    }
}

#[cfg(test)]
mod keep_tests {
    use super::*;

    const CHAT: &str = r#"{"messages":[
      {"role":"assistant","content":null,"tool_calls":[
        {"id":"a","type":"function","function":{"name":"lookup","arguments":"{\"q\":\"x\"}"}},
        {"id":"b","type":"function","function":{"name":"read_file","arguments":"{\"path\":"}}]},
      {"role":"tool","tool_call_id":"a","content":"found"},
      {"role":"tool","tool_call_id":"b","content":"a large file"}]}"#;

    fn read_keeping(keep: &Keep) -> Transcript {
        Reader::new()
            .keep(keep.clone())
            .read("t.json", CHAT.as_bytes())
            .unwrap()
            .remove(0)
    }

    #[test]
    fn dropped_parts_are_not_kept_and_the_rest_is_identical() {
        let all = read_keeping(&Keep::default());
        assert_eq!(
            all,
            Reader::new()
                .read("t.json", CHAT.as_bytes())
                .unwrap()
                .remove(0)
        );
        let only_lookup: NameFilter = std::sync::Arc::new(|n: &str| n == "lookup");
        let some = read_keeping(&Keep {
            args: Some(only_lookup.clone()),
            outputs: Some(only_lookup),
            no_outputs: false,
            compact: None,
            unplaced: false,
        });
        assert_eq!(some.calls[0], all.calls[0]);
        assert_eq!(some.calls[1].args, serde_json::Value::Null);
        assert_eq!(some.calls[1].output, None);
        assert_eq!(
            (
                &some.calls[1].name,
                some.calls[1].span,
                some.calls[1].is_error
            ),
            (&all.calls[1].name, all.calls[1].span, all.calls[1].is_error)
        );
        // Arguments that are not JSON are reported whether they are kept or not.
        assert_eq!(all.findings.len(), 1);
        assert_eq!(some.findings, all.findings);
    }

    /// A call repeated with its id is one call; an id reused for another call (some servers
    /// number calls per response) is a new call. Both hold when the arguments, which tell them
    /// apart, are not kept (found by fuzzing the restricted read against the full one).
    #[test]
    fn repeated_calls_and_reused_ids_are_told_apart_without_the_arguments() {
        let chat = r#"{"messages":[
          {"role":"assistant","content":null,"tool_calls":[
            {"id":"c0","type":"function","function":{"name":"weather","arguments":"{\"city\": \"Oslo\", \"unit\": \"C\"}"}}]},
          {"role":"tool","tool_call_id":"c0","content":"7C"},
          {"role":"assistant","content":null,"tool_calls":[
            {"id":"c0","type":"function","function":{"name":"weather","arguments":"{\"unit\":\"C\",\"city\":\"Oslo\"}"}},
            {"id":"c0","type":"function","function":{"name":"weather","arguments":"{\"city\": \"Rome\"}"}},
            {"id":"c0","type":"function","function":{"name":"weather","arguments":"{\"city\": \"Rome\"}"}}]},
          {"role":"tool","tool_call_id":"c0","content":"21C"}]}"#;
        let names = |keep: &Keep| {
            let t = Reader::new()
                .keep(keep.clone())
                .read("t.json", chat.as_bytes())
                .unwrap()
                .remove(0);
            match t.compact {
                Some(table) => table.spans().to_vec(),
                None => t.calls.iter().map(|c| c.span).collect::<Vec<_>>(),
            }
        };
        let all = names(&Keep::default());
        // Oslo (repeated with its members in another order: the same call), then Rome (a
        // reused id: a new call, repeated once).
        assert_eq!(all.len(), 2);
        let none: NameFilter = std::sync::Arc::new(|_: &str| false);
        let without_args = Keep {
            args: Some(none),
            no_outputs: true,
            ..Keep::default()
        };
        assert_eq!(names(&without_args), all);
        // And in the compact form check uses for long transcripts.
        for compact in [Some(0), Some(1)] {
            let keep = Keep {
                compact,
                ..without_args.clone()
            };
            assert_eq!(names(&keep), all, "{compact:?}");
        }
    }
}

#[cfg(test)]
mod stream_head_tests {
    use super::*;

    /// `byte` forever, but panics past 1 MiB: a stream must be judged before it is buffered.
    struct Endless(u8, usize);

    impl std::io::Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.1 += buf.len();
            assert!(
                self.1 <= 1 << 20,
                "read {} bytes of a binary stream",
                self.1
            );
            buf.fill(self.0);
            Ok(buf.len())
        }
    }

    #[test]
    fn a_stream_without_newlines_is_judged_by_its_first_bytes() {
        for (byte, code) in [(0u8, "binary"), (0xff, "invalid-utf8")] {
            let reader = std::io::BufReader::with_capacity(64 << 10, Endless(byte, 0));
            let err = Reader::new()
                .read_stream("big.jsonl", reader, |_| {})
                .unwrap_err();
            assert_eq!(err.code(), code);
        }
    }
}
