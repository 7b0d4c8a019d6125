//! Transcript readers: bytes of a file on disk → normalized tool calls with locations.
//!
//! Input: a file's bytes (and optionally a forced format). Output: one or more transcripts
//! (a JSONL dataset holds one per line), each an ordered list of [`ToolCall`]s with byte spans,
//! the tools it declares, and read findings (e.g. arguments that are not valid JSON).
//! Fails with a located error for malformed files and for files that match no format.

pub mod model;

pub use model::{ToolCall, ToolDecl};
