//! Reporters: a [`model::Report`] → text in one output format. One file per format.
//!
//! Input: the report of a run (plain data, sorted), a result at a time as the check goes.
//! Output: the text to print. Cannot fail, but for the spool's I/O (reading it back).
//! Machine formats never contain colour; the human format's colour is the caller's choice.
//!
//! Each format is one [`stream::Emitter`]: a result is rendered as soon as it is checked and
//! spooled ([`spool`]: memory, then a temporary file), and the document is written around the
//! results once the run is done ([`stream::Streamer`]), so that writing a large report does not
//! hold it in memory. A format's `render` (a whole [`Report`] → text) emits every result of the
//! report the same way, into memory.

pub mod brief;
pub mod call;
pub mod changes;
pub mod concise;
pub mod github;
pub mod html;
pub mod human;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod model;
pub mod sarif;
pub mod spool;
pub mod stream;
pub mod summary;

pub use model::Report;
