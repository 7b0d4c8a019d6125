//! The report: what a `check` run found, as plain data with a stable schema.
//!
//! `--format json` is this structure serialized (field order as declared here). The other
//! formats are views of it. Paths are as the user named them or relative to the working folder;
//! nothing in it depends on the time or the machine.

use serde::{Deserialize, Serialize};

use crate::code::Code;
pub use crate::code::Severity;

/// The schema version of [`Report`].
pub const REPORT_VERSION: u32 = 2;

/// Everything a run found.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Always [`REPORT_VERSION`].
    pub version: u32,
    /// Counts over the whole run.
    pub summary: Summary,
    /// One entry per spec × transcript checked, sorted by spec file, spec, transcript, record.
    pub results: Vec<PairResult>,
    /// Problems that kept something from being checked (spec compile errors, unreadable
    /// transcripts, bad globs), sorted by file and position.
    pub errors: Vec<Finding>,
    /// Warnings about the run itself (e.g. a glob that matches nothing).
    pub warnings: Vec<Finding>,
    /// One entry per spec with a `pass_rate` that took part in the run: the share of its
    /// transcripts that passed against the share it requires, sorted by spec file and spec.
    /// Left out when no spec has a `pass_rate`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rates: Vec<RateResult>,
}

/// How a spec with a `pass_rate` fared over its transcripts: it passes when the share of them
/// that passed is at least the share it requires. Its failing transcripts fail the run only
/// through it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RateResult {
    /// The spec file.
    pub spec_file: String,
    /// The spec's name.
    pub spec: String,
    /// The least share of its transcripts that must pass, in [0, 1].
    pub required: f64,
    /// Its transcripts that passed.
    pub passed: usize,
    /// Its transcripts judged: every result of the spec, and each transcript file (or the rest
    /// of a dataset file) that could not be read, counted as failing.
    pub total: usize,
    /// Of `total`, the transcript files (or rests of dataset files) that could not be read.
    pub unread: usize,
    /// `passed / total`; `null` when no transcript was judged.
    pub rate: Option<f64>,
    /// Whether the rate is met. A spec with no transcript judged does not meet its rate.
    pub met: bool,
    /// Where the `pass_rate` is written.
    pub location: Option<Location>,
}

impl RateResult {
    /// The verdict as every format words it: `19/20 passed (95.0 %) ≥ 90 % required — PASS`,
    /// `12/20 passed (60.0 %) < 90 % required — FAIL`, `no transcript judged, 90 % required —
    /// FAIL`; the unreadable ones said.
    pub fn verdict_text(&self) -> String {
        let required_text = percent(self.required);
        let outcome = if self.met { "PASS" } else { "FAIL" };
        let Some(rate) = self.rate else {
            return format!("no transcript judged, {required_text} required — {outcome}");
        };
        let cmp = if self.met { "≥" } else { "<" };
        let unread = match self.unread {
            0 => String::new(),
            1 => ", 1 unreadable counted as failing".to_owned(),
            n => format!(", {n} unreadable counted as failing"),
        };
        // One decimal, or as many more as it takes for the rounding not to contradict the
        // comparison (89.96 % is not shown as 90.0 % < 90 %).
        let required = self.required * 100.0;
        let shown = (1..=6)
            .map(|d| format!("{:.d$}", rate * 100.0))
            .find(|t| {
                let v: f64 = t.parse().unwrap_or(0.0);
                self.met || v < required
            })
            .unwrap_or_else(|| format!("{}", rate * 100.0));
        let shown = format!("{shown} %");
        format!(
            "{}/{} passed ({shown}{unread}) {cmp} {required_text} required — {outcome}",
            self.passed, self.total
        )
    }
}

impl RateResult {
    /// `spec_file::spec: ` and the verdict ([`RateResult::verdict_text`]).
    pub fn line(&self) -> String {
        format!("{}::{}: {}", self.spec_file, self.spec, self.verdict_text())
    }

    /// The code of the rate as a finding: `pass-rate-met` or `pass-rate-missed`.
    pub fn code(&self) -> Code {
        if self.met {
            Code::PassRateMet
        } else {
            Code::PassRateMissed
        }
    }

    /// The rate as a finding at its `pass_rate` line (an error when missed, a note when met),
    /// for the formats that list findings (SARIF, GitHub annotations).
    pub fn finding(&self) -> Finding {
        let code = self.code();
        let help = if self.met {
            "its failing transcripts are listed as warnings: they do not fail the run"
        } else {
            "fix the failing transcripts listed with this spec, or lower the `pass_rate` if the \
             agent is expected to fail that often"
        };
        Finding {
            code: code.id().to_owned(),
            severity: code.severity(),
            message: format!("pass_rate of spec `{}`: {}", self.spec, self.verdict_text()),
            help: Some(help.to_owned()),
            location: self.location.clone(),
            label: None,
            related: None,
            expectation: None,
            call: None,
            unverified: false,
        }
    }
}

impl PairResult {
    /// Whether the text formats (human, concise) list finding `f` of this result: every finding
    /// of a pair that failed, or of a result of the built-in rules alone (a linter's warnings
    /// are shown); of a pair that passed, those that leave part of its spec unchecked
    /// ([`Finding::unverified`]).
    pub fn lists(&self, f: &Finding) -> bool {
        !self.passed || self.is_rules_only() || f.unverified
    }

    /// Whether the annotation formats (GitHub, SARIF) report finding `f` of this result: all
    /// but the notes of a pair that passed (an allowed extra call, ...), unless `notes`
    /// (`--show-notes`) asks for them or the note leaves part of the spec unchecked.
    pub fn annotates(&self, f: &Finding, notes: bool) -> bool {
        notes || !self.passed || f.severity != Severity::Note || f.unverified
    }

    /// For a result of a spec with a `pass_rate`, what its verdict counts for: ``counts toward
    /// spec `booking`'s `pass_rate >= 0.9`: fails the run only through that rate``.
    pub fn rate_note(&self) -> Option<String> {
        let r = self.pass_rate?;
        Some(format!(
            "counts toward spec `{}`'s `pass_rate >= {r}`: fails the run only through that rate",
            self.spec
        ))
    }
}

/// A share in [0, 1] as a percentage, with no needless decimals (at most 4): `90 %`, `95.5 %`,
/// `99.95 %`.
pub fn percent(share: f64) -> String {
    let p = share * 100.0;
    let mut s = format!("{p:.4}");
    while s.ends_with('0') {
        s.pop();
    }
    if s.ends_with('.') {
        s.pop();
    }
    format!("{s} %")
}

/// Counts over a run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// Spec files read.
    pub spec_files: usize,
    /// Specs compiled.
    pub specs: usize,
    /// Transcripts checked (a dataset line counts as one).
    pub transcripts: usize,
    /// Spec × transcript pairs checked.
    pub checked: usize,
    /// Pairs that passed.
    pub passed: usize,
    /// Pairs that failed.
    pub failed: usize,
    /// Errors that kept something from being checked.
    pub errors: usize,
    /// Warnings: those about the run ([`Report::warnings`]), and the findings of results that
    /// leave part of a spec unchecked ([`Finding::unverified`], whatever their severity).
    /// `--strict` fails the run on any.
    pub warnings: usize,
    /// Of `warnings`, the findings of results that leave part of a spec unchecked.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unverified: usize,
    /// Of the failed pairs, those of specs with a `pass_rate`: they fail the run only through
    /// their spec's rate.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub failed_within_rate: usize,
    /// Specs with a `pass_rate` that took part in the run ([`Report::rates`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub rates: usize,
    /// Of those, the specs whose rate was not met.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub rates_missed: usize,
    /// `check --partial`: `passed` counts the pairs with no statement violated, `failed` those
    /// with one.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
}

// serde's `skip_serializing_if` passes a reference.
#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Summary {
    /// Whether the run fails (exit status 1 without errors): a pair of a spec without a
    /// `pass_rate` failed, or a spec's rate was not met.
    pub fn fails(&self) -> bool {
        self.failed > self.failed_within_rate || self.rates_missed > 0
    }

    /// Whether the run fails under `--strict`: it [`fails`](Summary::fails), or there is a
    /// warning (about the run, or a finding that leaves part of a spec unchecked).
    pub fn fails_strictly(&self) -> bool {
        self.fails() || self.warnings > 0
    }

    /// Count the results, each by its [`Tally`], with the run's `errors` and `warnings`: what
    /// was checked, passed and failed (and of those, within a `pass_rate`), and the warnings
    /// (the run's and the results' unverified findings). The one count of every run, whether
    /// its results are held ([`Report::recount`]) or were streamed (the check's own tallies).
    pub fn count(
        &mut self,
        results: impl IntoIterator<Item = Tally>,
        errors: usize,
        warnings: usize,
    ) {
        let (mut checked, mut passed, mut unverified, mut within) = (0, 0, 0, 0);
        for t in results {
            checked += 1;
            passed += usize::from(t.passed);
            unverified += t.unverified;
            within += usize::from(!t.passed && t.within_rate);
        }
        self.checked = checked;
        self.passed = passed;
        self.failed = checked - passed;
        self.failed_within_rate = within;
        self.errors = errors;
        self.unverified = unverified;
        self.warnings = warnings + unverified;
    }
}

/// What a run's counts need of one result: whether it passed, and how many of its findings
/// leave part of its spec unchecked ([`Finding::unverified`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Whether the pair passed.
    pub passed: bool,
    /// Its unverified findings.
    pub unverified: usize,
    /// Whether its spec has a `pass_rate`: failed, it fails the run only through the rate.
    pub within_rate: bool,
}

impl Tally {
    /// The tally of a result held whole.
    pub fn of(r: &PairResult) -> Tally {
        Tally {
            passed: r.passed,
            unverified: r.findings.iter().filter(|f| f.unverified).count(),
            within_rate: r.pass_rate.is_some(),
        }
    }
}

/// The result of one spec on one transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairResult {
    /// The spec file.
    pub spec_file: String,
    /// The spec's name.
    pub spec: String,
    /// The transcript file.
    pub transcript: String,
    /// For a dataset file (one transcript per line), the 1-based line of this transcript.
    pub record: Option<usize>,
    /// The transcript format read.
    pub format: String,
    /// The profile used, if not the native scoring.
    pub profile: Option<String>,
    /// Score in [0, 1].
    pub score: f64,
    /// Pass threshold.
    pub threshold: f64,
    /// Whether the pair passed.
    pub passed: bool,
    /// For a failed pair, what failed it besides the score, in words: hard failures such as
    /// `forbidden call `close_account``, `broken before rule`, `extra call `x``. Absent when the
    /// pair passed or failed on its score alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// Calls in the transcript.
    pub calls: usize,
    /// Structured counts (exact matches, name-only, extras, missing, forbidden).
    pub counts: serde_json::Value,
    /// One entry per expectation of the spec, in spec order.
    pub expectations: Vec<ExpectationResult>,
    /// One entry per `never` rule of the spec, in spec order.
    pub rules: Vec<RuleResult>,
    /// Findings, sorted by position in the transcript, then in the spec.
    pub findings: Vec<Finding>,
    /// The profile's own fields (e.g. DeepEval `reason`, Axion `explanation`), if a profile ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile_details: Option<serde_json::Value>,
    /// The `pass_rate` of the spec, if it has one: the pair counts toward the spec's rate
    /// ([`Report::rates`]) and does not fail the run on its own; its findings are warnings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass_rate: Option<f64>,
    /// `check --partial`: the state of each statement of the spec with the transcript taken as
    /// the beginning of a run that may go on (`docs/engine.md`, *Verdicts on an unfinished
    /// run*). The pair then counts as passed unless a statement is violated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial: Option<PartialResult>,
}

/// The states of a spec's statements on a run that may go on (`check --partial`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartialResult {
    /// `violated` when a statement is, else `pending` when one is, else `met`.
    pub state: String,
    /// Statements no continuation of the run can satisfy: the run fails whatever comes next.
    pub violated: usize,
    /// Statements a continuation may still satisfy (or that are decided only at the end).
    pub pending: usize,
    /// Statements satisfied by the calls so far.
    pub met: usize,
    /// Each statement, in the order they are written.
    pub statements: Vec<PartialStatement>,
}

/// The state of one statement of a spec on a run that may go on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartialStatement {
    /// `violated`, `pending` or `met`.
    pub state: String,
    /// `expectation`, `never`, `count`, `before`, `answer`, `every_call` (under `order strict`
    /// or `extra calls: forbid`: every call accounted for) or `rule` (a built-in rule the spec
    /// denies).
    pub kind: String,
    /// Its index among the spec's statements of its kind (expectations, `never` rules, counts,
    /// `before` rules); absent for the others.
    #[serde(default)]
    pub index: Option<usize>,
    /// The statement as written (its first line), or what it requires.
    pub text: String,
    /// Where it is written (for a rule's finding: the call).
    #[serde(default)]
    pub location: Option<Location>,
    /// The call that decided a violation (0-based), when one did.
    #[serde(default)]
    pub call: Option<usize>,
    /// The code of the first finding about it, when it has one.
    #[serde(default)]
    pub code: Option<String>,
    /// That finding's message.
    #[serde(default)]
    pub message: Option<String>,
}

/// How one expectation fared on one transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExpectationResult {
    /// Position in the spec (0-based).
    pub index: usize,
    /// The expected tool (`SERVER::TOOL` when the spec names the tool's server).
    pub tool: String,
    /// The expectation's label, if any.
    pub label: Option<String>,
    /// `matched`, `name_only`, `missing`, ... (the engine's status).
    pub status: String,
    /// Whether this expectation is met.
    pub passed: bool,
    /// The calls it matched, in transcript order.
    pub calls: Vec<CallRef>,
    /// Every constraint a matched call fails (a `name_only` match), call by call, in the order
    /// the constraints are written; empty when the expectation is met or has no call.
    pub failures: Vec<ConstraintFailure>,
    /// Under `score per_argument`, for every name-only call, the share of its constraints that
    /// hold and the credit it earned; absent otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shares: Vec<CallShare>,
    /// Where the expectation is written.
    pub location: Option<Location>,
}

/// How much of one name-only call holds, under `score per_argument` (`docs/scoring.md`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallShare {
    /// The call (its position in the transcript, 0-based).
    pub call: usize,
    /// Constraint units that hold.
    pub held: usize,
    /// Constraint units in all.
    pub total: usize,
    /// In words: `2/3 arguments hold` (and the output's and error flag's, when constrained).
    pub summary: String,
    /// The credit the call earned (weight included).
    pub credit: f64,
}

/// One constraint of an expectation that one call fails.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConstraintFailure {
    /// The call (its position in the transcript, 0-based).
    pub call: usize,
    /// Which part of the call: `args`, `output` or `call` (its error flag).
    pub part: String,
    /// The path in that part as a person writes it (`items[0].sku`; empty for the whole value).
    pub path: String,
    /// The kind of constraint (`equals`, `regex`, `range`, `fuzzy`, `one_of`, `ref`, …;
    /// `no_extra_keys`, `errored`).
    pub constraint: String,
    /// What the constraint expects (its value, or the constraint itself for kinds without one).
    pub expected: serde_json::Value,
    /// What the call has at the path; `null` when the path is absent. Strings longer than 1 000
    /// characters are cut.
    pub actual: Option<serde_json::Value>,
    /// The failure in one sentence, path first (`amount_cents: 14999 is above the maximum 12999`).
    pub message: String,
    /// Where the constraint is written: in the spec, or at the `tool` declaration it comes from
    /// (`declared`), which may be in an included file.
    pub location: Option<Location>,
    /// Whether the constraint comes from the tool's `tool` declaration rather than the
    /// expectation. Left out when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub declared: bool,
}

/// How one `never` rule fared on one transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuleResult {
    /// Position among the spec's `never` rules (0-based).
    pub index: usize,
    /// The forbidden tool (`SERVER::TOOL` when the spec names the tool's server).
    pub tool: String,
    /// Whether no call broke the rule.
    pub passed: bool,
    /// The calls it forbids, in transcript order.
    pub calls: Vec<CallRef>,
    /// Where the rule is written.
    pub location: Option<Location>,
}

/// A call of the transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallRef {
    /// Position in the transcript's calls (0-based).
    pub index: usize,
    /// The tool called, as recorded.
    pub name: String,
    /// The arguments as recorded (strings longer than 1 000 characters cut with `…`); `null`
    /// when the transcript records none, or when they were not read: the arguments of a call to
    /// a tool that no expectation or `never` rule names are read only when some spec checked
    /// against the transcript forbids extra calls.
    pub arguments: serde_json::Value,
    /// Where the call is recorded (left out in a finding, whose own location is the call's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
}

/// One thing to tell the user, with where it is in the transcript and in the spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// Stable code: a [`Code::id`] (`missing-call`, `toolspec::syntax`, ...).
    pub code: String,
    /// Severity.
    pub severity: Severity,
    /// What is wrong, in one sentence.
    pub message: String,
    /// How to fix it, if there is something to say.
    pub help: Option<String>,
    /// The primary location: in the transcript for engine findings, in the spec for spec errors.
    pub location: Option<Location>,
    /// What the primary location shows, when there is more to say than "here" (a spec
    /// diagnostic's label, e.g. ``did you mean `order`?``).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// A secondary location: the spec line an engine finding comes from.
    pub related: Option<Location>,
    /// The expectation an engine finding is about (its index in the spec), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expectation: Option<usize>,
    /// The call an engine finding is about, with its name and arguments, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<CallRef>,
    /// Whether the finding means that part of the spec was not checked and the verdict does not
    /// cover it (`docs/engine.md`: a scope that selected no call; a reference that did not
    /// apply, on a pair that passes only because it did). Shown on passing pairs too, counted
    /// in the summary's `warnings`, failing the run under `--strict`. Left out when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unverified: bool,
}

impl Finding {
    /// What the text formats say of an [`unverified`](Finding::unverified) finding, after what
    /// it is about.
    pub const UNVERIFIED: &'static str = "not checked: the verdict does not cover it";

    /// What the related location of an engine finding is, and what it says there: the
    /// expectation a finding comes from (`("expectation", "expected here")`), or the rule a
    /// forbidden call or a broken order breaks (not an expectation: nothing is expected there).
    pub fn related_role(&self) -> (&'static str, &'static str) {
        if self.code == Code::ForbiddenCall.id() {
            ("`never` rule", "forbids this call")
        } else if self.code == Code::BeforeViolation.id() {
            ("`before` rule", "requires this order")
        } else if self.code == Code::AnswerMismatch.id() || self.code == Code::AnswerMissing.id() {
            ("`answer` constraint", "checks the final answer")
        } else if self.code == Code::CountOutOfRange.id() {
            ("count", "counts these calls")
        } else if [
            Code::ScopesNotRecorded,
            Code::TurnOutOfRange,
            Code::UnknownAgent,
        ]
        .iter()
        .any(|c| self.code == c.id())
        {
            ("scope", "selects these calls")
        } else {
            ("expectation", "expected here")
        }
    }
}

/// A place in a file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Location {
    /// The file.
    pub file: String,
    /// 1-based line of the start.
    pub line: usize,
    /// 1-based column of the start (characters).
    pub column: usize,
    /// 1-based line of the end.
    pub end_line: usize,
    /// 1-based column of the end.
    pub end_column: usize,
    /// Byte offsets `[start, end)` in the file.
    pub span: [usize; 2],
}

impl PairResult {
    /// Whether this is the result of the built-in rules alone on a transcript no spec names
    /// (`spec_file` empty, `spec` = `"rules"`; `docs/rules.md`): it passes unless a rule found
    /// an error, and its verdict is the number of rule errors.
    pub fn is_rules_only(&self) -> bool {
        self.spec_file.is_empty()
    }

    /// The verdict in words, as every format heads a pair: `1.00 ≥ 1.00` (passed),
    /// `0.75 < 1.00` (failed on score), `0.96 ≥ 0.90 but forbidden call `close_account``
    /// (failed by a hard failure although the score is enough), `0.50 < 0.90 and forbidden call
    /// `close_account``. Never a comparison that is false.
    pub fn verdict_text(&self) -> String {
        if self.is_rules_only() {
            return self
                .failure
                .clone()
                .unwrap_or_else(|| "no rule error".to_owned());
        }
        let met = self.score + crate::engine::native::THRESHOLD_EPSILON >= self.threshold;
        let cmp = if met { "≥" } else { "<" };
        let numbers = format!("{:.2} {cmp} {:.2}", self.score, self.threshold);
        let numbers = if numbers == format!("{:.2} < {:.2}", self.threshold, self.threshold) {
            // Rounding can make a score just below the threshold print as equal to it.
            format!("{} < {:.2}", self.score, self.threshold)
        } else {
            numbers
        };
        match (&self.failure, self.passed, met) {
            (_, true, _) => numbers,
            (Some(why), false, true) => format!("{numbers} but {why}"),
            (Some(why), false, false) => format!("{numbers} and {why}"),
            (None, false, true) => match &self.profile {
                Some(p) => format!("{numbers} but the {p} verdict fails it"),
                None => format!("{numbers} but the verdict fails it"),
            },
            (None, false, false) => numbers,
        }
    }
}

impl Location {
    /// Locate a byte span of `text` (the file's content).
    pub fn of(
        file: &str,
        text: &[u8],
        index: &crate::source::LineIndex,
        span: crate::source::Span,
    ) -> Location {
        let start = index.line_col(text, span.start);
        let end = index.line_col(text, span.end);
        Location {
            file: file.to_owned(),
            line: start.line,
            column: start.col,
            end_line: end.line,
            end_column: end.col,
            span: [span.start, span.end],
        }
    }
}

impl Report {
    /// How many of the run's [`warnings`](Report::warnings) are warnings: a note (a file
    /// passed over) is listed with them but is none, and fails nothing under `--strict`.
    pub fn warning_count(&self) -> usize {
        self.warnings
            .iter()
            .filter(|w| w.severity != Severity::Note)
            .count()
    }

    /// Recount the summary from the results, errors and warnings (file and spec counts are
    /// left as set by the caller).
    pub fn recount(&mut self) {
        let tallies: Vec<Tally> = self.results.iter().map(Tally::of).collect();
        self.count(tallies);
    }

    /// Count the summary from a [`Tally`] per result (held, or streamed and kept by the check
    /// alone), with the report's errors, warnings and rates (file and spec counts are left as
    /// set by the caller): every count of the summary, and so the exit status, comes from here.
    pub fn count(&mut self, tallies: impl IntoIterator<Item = Tally>) {
        self.version = REPORT_VERSION;
        let warnings = self.warning_count();
        self.summary.count(tallies, self.errors.len(), warnings);
        self.summary.rates = self.rates.len();
        self.summary.rates_missed = self.rates.iter().filter(|r| !r.met).count();
    }

    /// Sort everything into the documented, deterministic order.
    pub fn sort(&mut self) {
        self.results.sort_by(|a, b| {
            (&a.spec_file, &a.spec, &a.transcript, a.record).cmp(&(
                &b.spec_file,
                &b.spec,
                &b.transcript,
                b.record,
            ))
        });
        let key = |f: &Finding| (f.location.clone(), f.code.clone(), f.message.clone());
        self.errors.sort_by_key(key);
        self.warnings.sort_by_key(key);
        self.rates
            .sort_by(|a, b| (&a.spec_file, &a.spec).cmp(&(&b.spec_file, &b.spec)));
    }

    /// The process outcome this report calls for ([`exit_status`] of its counted summary).
    pub fn exit_status(&self) -> u8 {
        exit_status(!self.errors.is_empty(), &self.summary)
    }

    /// The process outcome under `--strict` ([`strict_exit_status`]).
    pub fn strict_exit_status(&self) -> u8 {
        strict_exit_status(!self.errors.is_empty(), &self.summary)
    }
}

/// The process outcome, decided here for every run: 2 if something could not be checked, else
/// 1 if the run fails ([`Summary::fails`]: a pair of a spec without a `pass_rate` failed, or a
/// spec's rate was not met), else 0.
pub fn exit_status(has_errors: bool, summary: &Summary) -> u8 {
    if has_errors {
        2
    } else {
        u8::from(summary.fails())
    }
}

/// The process outcome under `--strict`: as [`exit_status`], but a warning fails the run too
/// ([`Summary::fails_strictly`]).
pub fn strict_exit_status(has_errors: bool, summary: &Summary) -> u8 {
    if has_errors {
        2
    } else {
        u8::from(summary.fails_strictly())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(score: f64, threshold: f64, passed: bool, failure: Option<&str>) -> PairResult {
        PairResult {
            spec_file: "s.toolspec".into(),
            spec: "s".into(),
            transcript: "t.json".into(),
            record: None,
            format: "openai-chat".into(),
            profile: None,
            score,
            threshold,
            passed,
            failure: failure.map(str::to_owned),
            calls: 0,
            counts: serde_json::Value::Null,
            expectations: Vec::new(),
            rules: Vec::new(),
            findings: Vec::new(),
            profile_details: None,
            pass_rate: None,
            partial: None,
        }
    }

    fn rate(passed: usize, total: usize, required: f64) -> RateResult {
        #[allow(clippy::cast_precision_loss)]
        let share = (total > 0).then(|| passed as f64 / total as f64);
        RateResult {
            spec_file: "b.toolspec".into(),
            spec: "booking".into(),
            required,
            passed,
            total,
            unread: 0,
            rate: share,
            met: crate::config::PassRate {
                min: required,
                span: crate::source::Span::default(),
            }
            .met(passed, total),
            location: None,
        }
    }

    /// A rate's verdict states the counts, the rate and the requirement, and its rounding never
    /// contradicts the comparison.
    #[test]
    fn rate_verdict_text_is_true() {
        assert_eq!(
            rate(188, 200, 0.9).verdict_text(),
            "188/200 passed (94.0 %) ≥ 90 % required — PASS"
        );
        assert_eq!(
            rate(179, 200, 0.9).verdict_text(),
            "179/200 passed (89.5 %) < 90 % required — FAIL"
        );
        assert_eq!(
            rate(8999, 10000, 0.9).verdict_text(),
            "8999/10000 passed (89.99 %) < 90 % required — FAIL"
        );
        assert_eq!(
            rate(7, 10, 0.7).verdict_text(),
            "7/10 passed (70.0 %) ≥ 70 % required — PASS"
        );
        assert_eq!(
            rate(0, 0, 0.5).verdict_text(),
            "no transcript judged, 50 % required — FAIL"
        );
        assert_eq!(percent(0.995), "99.5 %");
        assert_eq!(percent(0.12345), "12.345 %");
        assert_eq!(percent(1.0), "100 %");
        assert_eq!(percent(0.0), "0 %");
    }

    /// The verdict line never states a comparison that is false of the numbers it prints.
    #[test]
    fn verdict_text_is_true() {
        let forbidden = Some("forbidden call `close_account`");
        assert_eq!(pair(1.0, 1.0, true, None).verdict_text(), "1.00 ≥ 1.00");
        assert_eq!(pair(0.75, 1.0, false, None).verdict_text(), "0.75 < 1.00");
        assert_eq!(
            pair(0.96, 0.9, false, forbidden).verdict_text(),
            "0.96 ≥ 0.90 but forbidden call `close_account`"
        );
        assert_eq!(
            pair(0.5, 0.9, false, forbidden).verdict_text(),
            "0.50 < 0.90 and forbidden call `close_account`"
        );
        // A score just below the threshold that would print as equal to it.
        assert_eq!(
            pair(0.8999, 0.9, false, None).verdict_text(),
            "0.8999 < 0.90"
        );
        assert_eq!(
            pair(1.0, 1.0, false, None).verdict_text(),
            "1.00 ≥ 1.00 but the verdict fails it"
        );
    }
}
