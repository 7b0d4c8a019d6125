//! toolspec: declare which tools an AI agent must call — with which arguments, in which order,
//! at what cost for mistakes — and lint recorded agent transcripts against it.
//!
//! The pipeline, one module per stage:
//!
//! ```text
//! .toolspec text ─ syntax ─▶ AST ─ compile ─▶ config::MatcherConfig ─┐
//! transcript bytes ─ transcript ─▶ [ToolCall] ───────────────────────┴─ engine ─▶ verdict
//!                                                    score (native, profiles) ─▶ report
//! ```
//!
//! The library never prints; its command line ([`cli`], which the `toolspec` binary and the
//! Python package's `toolspec` command run) is the only part that talks to the terminal, the
//! file system watcher and the process.
#![warn(missing_docs)]
#![warn(clippy::print_stdout, clippy::print_stderr)]
#![forbid(unsafe_code)]

// pest's derive, built without its `std` feature (see Cargo.toml), names `alloc` from the crate root.
extern crate alloc;
// The command line ([`cli`]) names the library as its other users do, `toolspec::...`.
extern crate self as toolspec;

pub mod check;
pub mod cli;
pub mod code;
pub mod compile;
pub mod config;
pub mod engine;
pub mod guard;
pub mod json;
pub mod live;
pub mod lsp;
pub mod report;
pub mod rules;
pub mod score;
pub mod source;
pub mod syntax;
pub mod text;
pub mod transcript;
