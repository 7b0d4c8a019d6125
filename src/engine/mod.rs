//! Engine: [`crate::config::MatcherConfig`] + ordered tool calls → verdict. Pure; no I/O.
pub mod difflib;
