//! The engine's output: what the CLI and the reporters consume (shape documented in
//! `docs/engine.md`; serialized as JSON by `--format json`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::source::Span;

/// The result of checking one transcript against one spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// Native score in [0, 1] (see `docs/scoring.md`).
    pub score: f64,
    /// Whether the spec passed: `score ≥ threshold` and no hard failure (forbidden call, extra call
    /// under a `forbid` policy or in strict order, broken `before` rule).
    pub passed: bool,
    /// The threshold the score was compared with.
    pub threshold: f64,
    /// Structured counts.
    pub counts: Counts,
    /// One outcome per expectation, in spec order.
    pub expectations: Vec<ExpectationOutcome>,
    /// Indices (0-based positions in the transcript) of the calls that no expectation accounts
    /// for, forbidden calls included, ascending.
    pub unaccounted: Vec<usize>,
    /// Findings, sorted by call position, then expectation, then code.
    pub findings: Vec<Finding>,
}

/// Counts over one verdict.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Calls in the transcript.
    pub calls: usize,
    /// Expectations in the spec.
    pub expectations: usize,
    /// Calls matched to an expectation with every constraint satisfied.
    pub exact: usize,
    /// Calls matched to an expectation by name only (some constraint failed).
    pub name_only: usize,
    /// Calls that nothing accounts for (forbidden calls not included).
    pub extra: usize,
    /// Required call slots left empty (an expectation needing 3 calls that got 1 counts 2).
    pub missing: usize,
    /// Calls of a forbidden tool.
    pub forbidden: usize,
}

/// How one expectation fared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Enough calls, all satisfying every constraint.
    Matched,
    /// Enough calls, but at least one has the right name and fails a constraint.
    NameOnly,
    /// No call at all for a required expectation.
    Missing,
    /// Some calls, fewer than the minimum.
    TooFew,
    /// Matched, but further calls of the same tool exceed the maximum (they are left unaccounted).
    TooMany,
    /// An optional expectation (minimum 0) that no call matched.
    Skipped,
}

/// The outcome of one expectation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExpectationOutcome {
    /// Index into the spec's expectations.
    pub expectation: usize,
    /// The tool name as written (`SERVER::TOOL` when the spec names the tool's server).
    pub tool: String,
    /// The expectation's label, if any.
    #[serde(default)]
    pub label: Option<String>,
    /// The status.
    pub status: Status,
    /// Positions (0-based) of the calls matched to it, ascending.
    pub calls: Vec<usize>,
    /// Credit earned: weight × (exact_match or name_only) per required slot (under `score
    /// per_argument`, a name-only call's credit is its share's).
    pub credit: f64,
    /// Credit available: weight × exact_match × minimum count.
    pub max_credit: f64,
    /// For every name-only call, every failed constraint.
    pub failures: Vec<Failure>,
    /// Under `score per_argument`, for every name-only call, the share of its constraints that
    /// hold and its credit (`docs/scoring.md`); empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shares: Vec<super::per_argument::ArgumentShare>,
}

/// Which part of a call a failed constraint is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailurePart {
    /// The call's arguments.
    Args,
    /// The call's output.
    Output,
    /// The call itself (its error flag).
    Call,
}

/// One failed constraint of one call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// The call (0-based position).
    pub call: usize,
    /// Arguments, output or the call's error flag.
    pub part: FailurePart,
    /// The path as a person writes it (`items[0].sku`; empty for the whole value).
    pub path: String,
    /// The check kind (`equals`, `fuzzy`, `range`, … as in the config; `no_extra_keys`,
    /// `errored`).
    pub check: String,
    /// What was expected (the check's value, or the check itself for kinds without one).
    pub expected: Value,
    /// What the call has there; `null` when absent. Strings longer than 1 000 characters are cut.
    pub actual: Option<Value>,
    /// A sentence a person can act on, path first: `query: similarity 0.71 < 0.80 (…)`.
    pub message: String,
    /// Where the constraint is written: in the spec's file, or in `declared`.
    #[serde(default)]
    pub spec_span: Option<Span>,
    /// The file of the `tool` declaration the constraint comes from, when it comes from one
    /// (`spec_span` is then in that file; see [`crate::config::PathCheck::declared`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declared: Option<String>,
    /// Whether the fuzzy work bound decided this failure (see `docs/scoring.md`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bounded: bool,
}

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Information that does not affect the verdict.
    Info,
    /// Lowers the score, but the spec passed anyway (or an approximation was applied).
    Warning,
    /// A hard failure, or a score loss in a spec that failed.
    Error,
}

/// One thing the engine wants a person to know, with where it comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// Stable code: the [`Code::id`](crate::code::Code::id) of an engine code (`missing-call`).
    pub code: String,
    /// Severity.
    pub severity: Severity,
    /// What happened.
    pub message: String,
    /// What to do about it.
    pub help: String,
    /// The expectation concerned, if any.
    #[serde(default)]
    pub expectation: Option<usize>,
    /// Where in the spec (an expectation, a constraint, a `before` rule, a `forbid` line).
    #[serde(default)]
    pub spec_span: Option<Span>,
    /// The call concerned (0-based position); its location is `calls[i].span`.
    #[serde(default)]
    pub call: Option<usize>,
    /// Whether the finding means that part of the spec was not checked, and the verdict does
    /// not cover it: a scope that selected no call (`unknown-agent`, `turn-out-of-range`,
    /// `scopes-not-recorded`), or a reference that did not apply on a pair that passes only
    /// because it did (`reference-not-applied`; see `docs/engine.md`). Every output shows such
    /// a finding, on passing pairs too, the summary counts it among the warnings, and
    /// `--strict` fails on it. Its severity stays its code's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unverified: bool,
}
