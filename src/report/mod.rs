//! Reporters: a [`model::Report`] → text in one output format. One file per format.
//!
//! Input: the report of a run (plain data, sorted). Output: the text to print. Cannot fail.
//! Machine formats never contain colour; the human format's colour is the caller's choice.
//!
//! The same bytes can be written a pair at a time as the check goes ([`stream`]: each result is
//! rendered when it is complete and spooled to a temporary file, [`spool`]), so that writing a
//! large report does not hold it in memory.

pub mod github;
pub mod human;
pub mod json;
pub mod junit;
pub mod model;
pub mod sarif;
pub mod spool;
pub mod stream;

pub use model::Report;
