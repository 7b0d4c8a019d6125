//! The matcher config: the contract between the language and the engine.
//!
//! Input: nothing (plain data). Output: serde types, versioned by [`CONFIG_VERSION`], that the
//! compiler produces from a `.toolspec` file and the engine consumes. The engine never sees the
//! AST; anything the language can say is visible here (`toolspec compile FILE` prints it as JSON).
//!
//! Spans point into the spec file that produced the config, so that findings can show the
//! expectation they come from. Defaults written by the language are lowered into explicit values:
//! a config read on its own says everything the engine will do.
//!
//! A config is plain data and can also be written by hand (or by another front end) and
//! deserialized; [`Pattern`] compiles its regular expression while deserializing, so a config
//! that deserializes is ready to run.

mod names;
pub(crate) mod pattern;
pub mod profile;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::source::Span;
pub use names::Normaliser;
pub use pattern::Pattern;
pub use profile::Profile;

/// The version of the config format this crate reads and writes.
pub const CONFIG_VERSION: u32 = 1;

/// Every spec compiled from one `.toolspec` file (what `toolspec compile FILE` prints).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompiledFile {
    /// Always [`CONFIG_VERSION`].
    pub version: u32,
    /// The spec file, as named when it was compiled.
    pub source: String,
    /// The specs in file order.
    pub specs: Vec<MatcherConfig>,
}

/// One named spec, lowered: what to expect of the transcripts it names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatcherConfig {
    /// Always [`CONFIG_VERSION`].
    pub version: u32,
    /// The spec's name, unique within its file.
    pub name: String,
    /// Where the spec is declared in its file.
    #[serde(default)]
    pub span: Span,
    /// Glob patterns of the transcripts this spec checks, relative to the spec file's folder.
    #[serde(default)]
    pub transcripts: Vec<TranscriptGlob>,
    /// Transcript format to use instead of detection (a reader name), if the spec forces one.
    #[serde(default)]
    pub format: Option<String>,
    /// How expectations must be ordered relative to each other in the transcript.
    pub order: OrderMode,
    /// Explicit "a before b" constraints between expectations, on top of `order`.
    #[serde(default)]
    pub before: Vec<BeforeRule>,
    /// Expected calls, in the order written.
    pub expectations: Vec<Expectation>,
    /// Calls that must never happen.
    #[serde(default)]
    pub forbidden: Vec<Forbidden>,
    /// What to do with calls that no expectation accounts for.
    pub extra_calls: ExtraCalls,
    /// How tool names are compared.
    pub names: NameRules,
    /// Native scoring weights, threshold and mode.
    pub scoring: Scoring,
    /// An existing metric whose scoring semantics replace the native scoring, if chosen.
    #[serde(default)]
    pub profile: Option<Profile>,
    /// Built-in rules (`docs/rules.md`) whose findings fail a pair of this spec (`rules deny
    /// CODE, ...`), by code name; the other rules' findings join its report as warnings.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deny_rules: Vec<String>,
    /// A constraint on the final assistant message (`answer C`), if written; it counts in the
    /// score as one expectation of weight 1 (see `docs/scoring.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<AnswerCheck>,
    /// Bounds on how many calls (of any tool, or matching constraints) or sub-agent runs a run,
    /// or a part of it, has (`total_calls <= 10`, `at_most 1 call * errored`, `agent "x" runs
    /// <= 2`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub limits: Vec<Limit>,
    /// The `either` and `parallel` blocks, in written order (an enclosing block before the blocks
    /// inside it). Each names expectations by index into [`MatcherConfig::expectations`], which
    /// holds every expectation of every block in written order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<Group>,
    /// `pass_rate >= r`: the spec is judged over its transcripts together, and passes when at
    /// least this share of them pass; a failing transcript then fails the run only through the
    /// rate. `None`: every transcript must pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass_rate: Option<PassRate>,
}

/// The most arrangements of one spec's `either` and `parallel` blocks the engine tries (each is
/// one alignment of the whole spec): a parallel block of 6 members, or 9 `either` blocks of two
/// branches. The compiler refuses a spec with more ([`MatcherConfig::arrangements`]).
pub const MAX_ARRANGEMENTS: u128 = 720;

impl MatcherConfig {
    /// How many arrangements of the spec the engine tries: for each choice of branch in every
    /// `either` block, each order of the members of every `parallel` block it keeps (a parallel
    /// block orders nothing under `order any`). A parallel block lies in the first `either`
    /// branch that holds all its members, or outside every `either`. Saturates.
    pub fn arrangements(&self) -> u128 {
        fn factorial(k: usize) -> u128 {
            (2..=k as u128)
                .try_fold(1u128, u128::checked_mul)
                .unwrap_or(u128::MAX)
        }
        let eithers: Vec<&Vec<Vec<usize>>> = self
            .groups
            .iter()
            .filter_map(|g| match &g.kind {
                GroupKind::Either { branches } => Some(branches),
                GroupKind::Parallel { .. } => None,
            })
            .collect();
        // Per either, per branch: the product of its parallel blocks' orders.
        let mut per_branch: Vec<Vec<u128>> = eithers.iter().map(|b| vec![1; b.len()]).collect();
        let mut total: u128 = 1;
        for g in &self.groups {
            let GroupKind::Parallel { members } = &g.kind else {
                continue;
            };
            let orders = if self.order == OrderMode::AnyOrder {
                1
            } else {
                factorial(members.len())
            };
            let home = eithers.iter().enumerate().find_map(|(e, branches)| {
                branches
                    .iter()
                    .position(|b| members.iter().all(|m| b.contains(m)))
                    .map(|b| (e, b))
            });
            match home {
                Some((e, b)) => per_branch[e][b] = per_branch[e][b].saturating_mul(orders),
                None => total = total.saturating_mul(orders),
            }
        }
        for branches in per_branch {
            let sum = branches.iter().fold(0u128, |a, &b| a.saturating_add(b));
            total = total.saturating_mul(sum.max(1));
        }
        total
    }
}

/// An `either` or `parallel` block of expectations.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Group {
    /// What kind of block, and its expectations.
    #[serde(flatten)]
    pub kind: GroupKind,
    /// A critical block: if it is not met, the pair fails whatever the score.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub critical: bool,
    /// Where the block is written.
    #[serde(default)]
    pub span: Span,
}

/// The share of a spec's transcripts that must pass (`pass_rate >= 0.9`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PassRate {
    /// The least share, in [0, 1].
    pub min: f64,
    /// Where the setting is written.
    #[serde(default)]
    pub span: Span,
}

/// The kinds of [`Group`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum GroupKind {
    /// One of the branches counts: the one whose verdict is best (passing first, then the higher
    /// score, then the first written). The expectations of the other branches are left out.
    Either {
        /// Each branch's expectations, by index.
        branches: Vec<Vec<usize>>,
    },
    /// Under `strict` or `in_order`, the members' calls may come in any order among themselves;
    /// the block keeps its place relative to the other expectations.
    Parallel {
        /// The members, by index.
        members: Vec<usize>,
    },
}

impl PassRate {
    /// Whether `passed` of `total` transcripts meet the rate. No transcript never does: a rate
    /// over no run says nothing about the agent.
    pub fn met(self, passed: usize, total: usize) -> bool {
        // Against the count it takes, with room for the rounding of `min × total` (0.7 × 10 is
        // 7.000000000000001): 7 of 10 meet 0.7.
        #[allow(clippy::cast_precision_loss)] // counts far below 2^52
        let (have, needed) = (passed as f64, self.min * total as f64);
        total > 0 && have + 1e-6 >= needed
    }
}

/// A transcript glob with its place in the spec.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TranscriptGlob {
    /// The pattern, relative to the spec file's folder (`runs/*.jsonl`).
    pub pattern: String,
    /// Where it is written.
    #[serde(default)]
    pub span: Span,
}

/// How the expectations are ordered in the transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OrderMode {
    /// The calls are exactly the expected sequence: same order, nothing in between.
    Strict,
    /// Expected calls appear in the written order; other calls may come between.
    InOrder,
    /// Expected calls may appear in any order.
    AnyOrder,
}

/// "`first` happens before `then`": every call matched to `first` precedes every call matched to
/// `then`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BeforeRule {
    /// Index into [`MatcherConfig::expectations`].
    pub first: usize,
    /// Index into [`MatcherConfig::expectations`].
    pub then: usize,
    /// Where the rule is written.
    #[serde(default)]
    pub span: Span,
}

/// One expected call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Expectation {
    /// The label by which references and ordering rules name this expectation, if any.
    #[serde(default)]
    pub label: Option<String>,
    /// The tool name as written (compared under [`MatcherConfig::names`]).
    pub tool: String,
    /// The MCP server the tool must belong to (`call SERVER::TOOL`): only calls whose
    /// `namespace` is this, exactly, match; `None` matches a call of any namespace or none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// The argument mode this expectation was written under (for display; the checks are explicit).
    pub args_mode: ArgsMode,
    /// Constraints on the call's arguments.
    pub args: ValueMatcher,
    /// Constraints on the call's output, if any.
    #[serde(default)]
    pub output: Option<ValueMatcher>,
    /// Whether the call must have errored (`Some(true)`), must not have (`Some(false)`), or either.
    #[serde(default)]
    pub errored: Option<bool>,
    /// How many calls this expectation must match: `min..=max` (`max: None` is unbounded).
    /// A plain expectation is `1..=1`; an optional one `0..=1`.
    pub repeat: Repeat,
    /// Relative weight in the native score (default 1).
    pub weight: f64,
    /// Where the expectation is written.
    #[serde(default)]
    pub span: Span,
    /// Where the tool name is written.
    #[serde(default)]
    pub name_span: Span,
    /// A critical expectation: if it is not met, the pair fails whatever the score.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub critical: bool,
    /// The user turn and sub-agent whose calls alone this expectation may match (`turn 2 { … }`,
    /// `agent "name" { … }`); `None` for any call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
}

impl Expectation {
    /// The tool as the spec names it: `SERVER::TOOL` when it names a server.
    pub fn shown_tool(&self) -> String {
        shown_tool(self.namespace.as_deref(), &self.tool)
    }
}

/// The calls an expectation (a `never` rule, a count) written inside `turn`, `agent` and `after`
/// blocks is about: those of that turn, made by that agent, after that call (all of them, when
/// the blocks nest).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Scope {
    /// The user turn, if a `turn` block encloses the expectation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<TurnSel>,
    /// Where the turn is written (`2`, `last`).
    #[serde(default, skip_serializing_if = "Span::is_empty")]
    pub turn_span: Span,
    /// The sub-agent's name, if an `agent` block encloses the expectation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// Where the agent's name is written.
    #[serde(default, skip_serializing_if = "Span::is_empty")]
    pub agent_span: Span,
    /// The call the scope starts after, if an `after` block encloses the expectation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<After>,
}

/// `after last Edit`, `after first lookup`: the calls after the last (first) call of a tool, or
/// the last (first) call matched to a labelled expectation. A tool's call is looked for among
/// the calls of the scope's turn and agent.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct After {
    /// Which call of the anchor: the first or the last.
    pub edge: Edge,
    /// The tool or labelled expectation.
    pub anchor: Anchor,
    /// Where the block's anchor is written.
    #[serde(default)]
    pub span: Span,
}

/// The first or the last call (of an [`After`] anchor).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Edge {
    /// `after first …`
    First,
    /// `after last …`
    Last,
}

/// What an `after` block starts after.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Anchor {
    /// A call of this tool (compared under [`MatcherConfig::names`]).
    Tool {
        /// The tool name as written.
        tool: String,
    },
    /// A call matched to this expectation.
    Label {
        /// Index into [`MatcherConfig::expectations`].
        expectation: usize,
        /// Its label, for messages.
        label: String,
    },
}

/// Which user turn: a 1-based number (serialized as a number) or the last (`"last"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum TurnSel {
    /// The n-th user turn (1-based).
    Nth(u32),
    /// The transcript's last user turn.
    Last(LastTurn),
}

/// The word `last` in a [`TurnSel`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LastTurn {
    /// `turn last`
    Last,
}

/// A constraint on the transcript's final assistant message (`answer contains "booked"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnswerCheck {
    /// What must hold of the message's text (a JSON string; paths are empty).
    pub matcher: ValueMatcher,
    /// Where the `answer` statement is written.
    #[serde(default)]
    pub span: Span,
}

/// How many calls an expectation matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Repeat {
    /// At least this many calls (0 means optional).
    pub min: u32,
    /// At most this many calls; `None` is unbounded.
    pub max: Option<u32>,
}

impl Repeat {
    /// Exactly one call: the default for an expectation.
    pub const ONCE: Repeat = Repeat {
        min: 1,
        max: Some(1),
    };
    /// Zero or one call.
    pub const OPTIONAL: Repeat = Repeat {
        min: 0,
        max: Some(1),
    };
}

/// How written arguments are compared when no explicit constraint says otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum ArgsMode {
    /// Arguments are not checked (name-only).
    Ignore,
    /// The arguments equal the written ones exactly: no missing and no extra keys.
    Exact,
    /// The arguments contain the written ones, recursively; extra keys are allowed.
    Subset,
    /// Written strings match with similarity ≥ `threshold`; other values as in `Subset`.
    Fuzzy {
        /// Minimum similarity in [0, 1].
        threshold: f64,
    },
    /// Written strings match with token-set similarity ≥ `threshold` (`fuzzy tokens`); other
    /// values as in `Subset`.
    FuzzyTokens {
        /// Minimum similarity in [0, 1].
        threshold: f64,
    },
}

/// Constraints on one JSON value: a call's arguments or its output. All checks must hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ValueMatcher {
    /// Checks on the value or on paths inside it.
    pub checks: Vec<PathCheck>,
    /// Whether the value (when an object) may have keys that no check names at the top level.
    /// `false` is exact mode: an extra argument is a failure.
    pub allow_extra_keys: bool,
}

impl ValueMatcher {
    /// A matcher that accepts any value.
    pub fn any() -> Self {
        ValueMatcher {
            checks: Vec::new(),
            allow_extra_keys: true,
        }
    }
}

/// A check applied at a path inside the value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PathCheck {
    /// Path from the value's root; empty means the whole value.
    pub path: Path,
    /// What must hold there.
    pub check: Check,
    /// Where the constraint is written: in the spec's file, or in `declared`.
    #[serde(default)]
    pub span: Span,
    /// The file of the `tool` declaration the constraint comes from (the spec's own file or an
    /// included one), when it comes from one; `span` is then in that file. Left out otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declared: Option<String>,
}

/// A path into a JSON value: object keys and array indices.
///
/// When a path step meets a string that holds JSON (as tool outputs often do), the engine parses
/// the string and continues inside it.
pub type Path = Vec<PathSeg>;

/// One step of a [`Path`]. Serialized as a bare string (key) or number (index); `[*]` (every
/// element, in reference paths only) as the object `{"each": true}`, which no key or index can be.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PathSeg {
    /// An array index.
    Index(usize),
    /// An object key.
    Key(String),
    /// `[*]`: every element of an array (a reference collects them; see [`RefOp::In`]).
    Each,
}

impl Serialize for PathSeg {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            PathSeg::Index(i) => s.serialize_u64(*i as u64),
            PathSeg::Key(k) => s.serialize_str(k),
            PathSeg::Each => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("each", &true)?;
                m.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for PathSeg {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Seg;
        impl<'de> serde::de::Visitor<'de> for Seg {
            type Value = PathSeg;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(r#"a key (string), an index (number) or {"each": true}"#)
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<PathSeg, E> {
                usize::try_from(v)
                    .map(PathSeg::Index)
                    .map_err(|_| E::custom("index too large"))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<PathSeg, E> {
                Ok(PathSeg::Key(v.to_owned()))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<PathSeg, A::Error> {
                let mut each = false;
                while let Some(k) = m.next_key::<String>()? {
                    if k != "each" {
                        return Err(serde::de::Error::unknown_field(&k, &["each"]));
                    }
                    each = m.next_value::<bool>()?;
                }
                if each {
                    Ok(PathSeg::Each)
                } else {
                    Err(serde::de::Error::custom(
                        r#"a path step object must be {"each": true}"#,
                    ))
                }
            }
        }
        d.deserialize_any(Seg)
    }
}

/// A constraint on one value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Check {
    /// Anything, including absent.
    Any,
    /// The path exists (any value, `null` included).
    Present,
    /// The path does not exist.
    Absent,
    /// JSON equality (see the engine docs for how numbers compare).
    Equals {
        /// The expected value.
        value: Value,
        /// The literal as JSON text, where `value` does not hold it as written (an integer
        /// past 64 bits, `-0`): what a profile gives its peer ([`Check::exact_text`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<Box<str>>,
    },
    /// The value contains the expected one recursively: objects may have extra keys; arrays
    /// compare element-wise with the same rule and equal length.
    Subset {
        /// The expected value.
        value: Value,
        /// As for [`Check::Equals`].
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<Box<str>>,
    },
    /// String similarity (Python difflib ratio) at least `threshold`.
    Fuzzy {
        /// The expected string.
        value: String,
        /// Minimum ratio in [0, 1].
        threshold: f64,
    },
    /// Token-set similarity at least `threshold`: both strings lowercased and split into words
    /// of letters and digits, then the best indel ratio of the shared words against each side
    /// (rapidfuzz's `token_set_ratio` with its default processor, over 100; `docs/scoring.md`).
    FuzzyTokens {
        /// The expected sentence.
        value: String,
        /// Minimum similarity in [0, 1].
        threshold: f64,
    },
    /// A string matching the regular expression (anywhere, unless anchored).
    Regex {
        /// The expression, compiled when the config is built or deserialized.
        pattern: Pattern,
    },
    /// A number within bounds.
    Range {
        /// Lower bound, if any.
        #[serde(default)]
        min: Option<f64>,
        /// Upper bound, if any.
        #[serde(default)]
        max: Option<f64>,
        /// Whether `min` itself is excluded.
        #[serde(default)]
        min_exclusive: bool,
        /// Whether `max` itself is excluded.
        #[serde(default)]
        max_exclusive: bool,
    },
    /// A value of one of these JSON types.
    Type {
        /// Accepted types.
        types: Vec<JsonType>,
    },
    /// Equal to one of these values.
    OneOf {
        /// Accepted values.
        values: Vec<Value>,
    },
    /// A string containing this substring, or an array containing an element equal to this value.
    Contains {
        /// The substring or element.
        value: Value,
    },
    /// Equal to a value seen earlier in the transcript: a path in the arguments or output of the
    /// call matched to an earlier expectation.
    Ref {
        /// Index into [`MatcherConfig::expectations`] of the expectation that captures the value.
        expectation: usize,
        /// That expectation's label, for messages.
        label: String,
        /// Arguments or output of that call.
        part: Part,
        /// Path inside that part.
        path: Path,
        /// How the value compares with the captured one (equality when absent).
        #[serde(default, skip_serializing_if = "RefOp::is_eq")]
        op: RefOp,
    },
    /// The inner check fails.
    Not {
        /// The negated check.
        check: Box<Check>,
    },
    /// Every inner check holds.
    AllOf {
        /// The checks.
        checks: Vec<Check>,
    },
    /// At least one inner check holds (`absent or type string`).
    AnyOf {
        /// The alternatives.
        checks: Vec<Check>,
    },
}

impl Check {
    /// Equal to `value`.
    pub fn equals(value: Value) -> Check {
        Check::Equals { value, text: None }
    }

    /// Containing `value`.
    pub fn subset(value: Value) -> Check {
        Check::Subset { value, text: None }
    }

    /// The JSON text of an `Equals`/`Subset` literal where its value does not hold it as
    /// written; `None` otherwise.
    pub fn exact_text(&self) -> Option<&str> {
        match self {
            Check::Equals { text, .. } | Check::Subset { text, .. } => text.as_deref(),
            _ => None,
        }
    }
}

/// How a reference constraint compares the value with the captured one.
///
/// Numbers compare exactly (integers as integers, without rounding through `f64`; decimals as
/// the nearest double, as JSON readers parse them). A path with [`PathSeg::Each`] collects a
/// list, which only [`RefOp::In`] and [`RefOp::NotIn`] take.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RefOp {
    /// Equal (JSON equality, numbers by value): the bare reference.
    #[default]
    Eq,
    /// `<`: a number below the captured number.
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `in`: equal to an element of the captured array (or of the collected `[*]` list).
    In,
    /// `not in`: equal to no element of it.
    NotIn,
    /// `contains`: a string containing the captured string (a captured number or boolean as
    /// its JSON text), or an array with an element equal to the captured value.
    Contains,
}

impl RefOp {
    /// Whether this is plain equality (the default, left out of a serialized config).
    #[allow(clippy::trivially_copy_pass_by_ref)] // serde's `skip_serializing_if` passes a reference
    pub fn is_eq(&self) -> bool {
        *self == RefOp::Eq
    }

    /// As written in a spec before the reference (`<=`, `in`, `not in`; empty for equality).
    pub fn as_str(self) -> &'static str {
        match self {
            RefOp::Eq => "",
            RefOp::Lt => "<",
            RefOp::Le => "<=",
            RefOp::Gt => ">",
            RefOp::Ge => ">=",
            RefOp::In => "in",
            RefOp::NotIn => "not in",
            RefOp::Contains => "contains",
        }
    }

    /// Whether this compares numbers by order.
    pub fn is_order(self) -> bool {
        matches!(self, RefOp::Lt | RefOp::Le | RefOp::Gt | RefOp::Ge)
    }

    /// Whether this takes a list (membership).
    pub fn is_membership(self) -> bool {
        matches!(self, RefOp::In | RefOp::NotIn)
    }
}

/// A part of a call that a reference reads from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    /// The call's arguments.
    Args,
    /// The call's output.
    Output,
}

/// A JSON type, as in JSON Schema (`integer` is a number with no fractional part).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JsonType {
    /// `null`
    Null,
    /// `true` / `false`
    Boolean,
    /// any number
    Number,
    /// a number with no fractional part
    Integer,
    /// a string
    String,
    /// an array
    Array,
    /// an object
    Object,
}

/// A tool that must never be called (optionally only with matching arguments, only when the call
/// failed, or only in a part of the run).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Forbidden {
    /// The tool name, compared under [`MatcherConfig::names`] (`*` when `any_tool`).
    pub tool: String,
    /// The MCP server the tool must belong to (`never SERVER::TOOL`), as for
    /// [`Expectation::namespace`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// `never *`: calls of every tool (the name rules do not apply: every name matches).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub any_tool: bool,
    /// If set, only calls whose arguments match are forbidden.
    #[serde(default)]
    pub args: Option<ValueMatcher>,
    /// If set, only calls whose error flag is this are forbidden (`never * errored`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errored: Option<bool>,
    /// The part of the run the rule holds in (`never` inside `turn`, `agent` blocks); `None`:
    /// the whole run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
    /// Where it is written.
    #[serde(default)]
    pub span: Span,
}

impl Forbidden {
    /// The tool as the spec names it: `SERVER::TOOL` when it names a server.
    pub fn shown_tool(&self) -> String {
        shown_tool(self.namespace.as_deref(), &self.tool)
    }
}

/// `SERVER::TOOL`, or the tool alone.
fn shown_tool(namespace: Option<&str>, tool: &str) -> String {
    match namespace {
        Some(ns) => format!("{ns}::{tool}"),
        None => tool.to_owned(),
    }
}

/// A bound on how many things happen in a run, or in a part of it: `total_calls <= 10`,
/// `at_most 1 call * errored`, `agent "researcher" runs <= 2`. A limit accounts for no call and
/// earns no credit; one that does not hold fails the pair whatever the score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Limit {
    /// What is counted.
    pub counted: Counted,
    /// At least this many.
    pub min: u32,
    /// At most this many; `None` is unbounded.
    #[serde(default)]
    pub max: Option<u32>,
    /// The part of the run counted; `None`: the whole run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
    /// Where it is written.
    #[serde(default)]
    pub span: Span,
}

/// What a [`Limit`] counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Counted {
    /// Every tool call (`total_calls`).
    Calls,
    /// The calls of any tool that satisfy these constraints (`at_most n call *(…) -> … errored`),
    /// whether or not an expectation accounts for them.
    Matching {
        /// Constraints on the arguments.
        args: ValueMatcher,
        /// Constraints on the output, if any.
        #[serde(default)]
        output: Option<ValueMatcher>,
        /// The error flag the call must have, if any.
        #[serde(default)]
        errored: Option<bool>,
    },
    /// How many times a sub-agent was started (`agent "name" runs`), as the transcript records
    /// the starts.
    AgentRuns {
        /// The sub-agent's name, as the transcript records it.
        agent: String,
    },
}

/// The policy for calls that no expectation accounts for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExtraCalls {
    /// Allowed; each costs [`Scoring::extra_call`].
    Allow,
    /// Any such call fails the spec.
    Forbid,
}

/// How tool names are compared: both the expected and the called name are normalised, in this
/// order: one prefix stripped, separators unified, case folded ([`NameRules::normalise`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NameRules {
    /// Compare case-insensitively.
    pub ignore_case: bool,
    /// Treat `-`, `.`, ` `, `/` and `_` as the same separator (`get-order` = `get_order`).
    pub unify_separators: bool,
    /// Prefixes removed from names before comparing (`functions.`), the first that matches;
    /// `*` matches one segment, so `mcp__*__` strips `mcp__github__` and `mcp__claude_ai__`.
    pub strip_prefixes: Vec<String>,
}

/// Native scoring (see `docs/scoring.md`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scoring {
    /// Credit for a call that matches an expectation fully (default 1).
    pub exact_match: f64,
    /// Credit for a call with the right tool but failing constraints (default 0.5).
    pub name_only: f64,
    /// Penalty for each call that nothing accounts for (default 0).
    pub extra_call: f64,
    /// Penalty for each expectation with no matching call or only a wrong one (default 0).
    pub wrong_or_missing: f64,
    /// Minimum score to pass, in [0, 1] (default 1).
    pub threshold: f64,
    /// Binary mode: the score is 1 when every expectation is met and nothing forbidden
    /// happened, else 0.
    pub binary: bool,
    /// Partial credit per argument (`score per_argument`): a name-only call in a required slot
    /// earns `name_only + (exact_match − name_only) × share`, `share` being the part of its
    /// constraints that hold (`docs/scoring.md`). The alignment is unchanged.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub per_argument: bool,
}

impl Default for Scoring {
    fn default() -> Self {
        Scoring {
            exact_match: 1.0,
            name_only: 0.5,
            extra_call: 0.0,
            wrong_or_missing: 0.0,
            threshold: 1.0,
            binary: false,
            per_argument: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_segments_serialize_bare() {
        let path: Path = vec![PathSeg::Key("items".into()), PathSeg::Index(0)];
        assert_eq!(serde_json::to_string(&path).unwrap(), r#"["items",0]"#);
        let back: Path = serde_json::from_str(r#"["items",0]"#).unwrap();
        assert_eq!(back, path);
    }

    #[test]
    fn each_steps_serialize_as_an_object_no_key_can_be() {
        let path: Path = vec![
            PathSeg::Key("flights".into()),
            PathSeg::Each,
            PathSeg::Key("*".into()),
        ];
        let text = serde_json::to_string(&path).unwrap();
        assert_eq!(text, r#"["flights",{"each":true},"*"]"#);
        assert_eq!(serde_json::from_str::<Path>(&text).unwrap(), path);
        assert!(serde_json::from_str::<Path>(r#"[{"each": false}]"#).is_err());
        assert!(serde_json::from_str::<Path>(r#"[{"every": true}]"#).is_err());
        assert!(serde_json::from_str::<Path>("[-1]").is_err());
    }

    #[test]
    fn equality_references_serialize_without_an_operator() {
        let r = |op| Check::Ref {
            expectation: 0,
            label: "a".into(),
            part: Part::Output,
            path: vec![PathSeg::Key("x".into())],
            op,
        };
        let eq = serde_json::to_value(r(RefOp::Eq)).unwrap();
        assert_eq!(
            eq,
            serde_json::json!({"kind": "ref", "expectation": 0, "label": "a", "part": "output", "path": ["x"]})
        );
        assert_eq!(serde_json::from_value::<Check>(eq).unwrap(), r(RefOp::Eq));
        let le = serde_json::to_value(r(RefOp::NotIn)).unwrap();
        assert_eq!(le["op"], "not_in");
        assert_eq!(
            serde_json::from_value::<Check>(le).unwrap(),
            r(RefOp::NotIn)
        );
    }

    #[test]
    fn checks_are_tagged_by_kind() {
        let c = Check::Fuzzy {
            value: "python tutorial".into(),
            threshold: 0.8,
        };
        assert_eq!(
            serde_json::to_value(&c).unwrap(),
            serde_json::json!({"kind": "fuzzy", "value": "python tutorial", "threshold": 0.8})
        );
    }
}
