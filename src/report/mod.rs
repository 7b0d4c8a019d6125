//! Reporters: a [`model::Report`] → text in one output format. One file per format.
//!
//! Input: the report of a run (plain data, sorted). Output: the text to print. Cannot fail.
//! Machine formats never contain colour; the human format's colour is the caller's choice.

pub mod github;
pub mod human;
pub mod json;
pub mod junit;
pub mod model;
pub mod sarif;

pub use model::Report;
