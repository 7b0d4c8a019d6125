//! Checking a project: paths and settings → spec × transcript pairs → results.
//!
//! Input: command-line paths and `toolspec.toml` settings. Output: the pairs to check (each
//! compiled spec bound to the transcript files its globs name), then their verdicts. Fails per
//! file, never per run: a spec that does not compile or a transcript that cannot be read becomes
//! a diagnostic and the other pairs are still checked.

pub mod bind;
pub mod discover;
mod findings;
mod locate;
mod options;
pub mod paths;
mod plan;
mod rate;
mod read;
mod result;
pub mod run;
pub use read::no_calls_warning;
pub mod settings;
pub mod starter;
pub mod verdicts;
