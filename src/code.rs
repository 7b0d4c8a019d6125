//! Every diagnostic toolspec can emit, by stable code: one row per code, in one table.
//!
//! Input: nothing (a leaf: it names no other module of the crate). Output: [`Code`], with its
//! kebab-case name, the code as printed ([`Code::id`]: `toolspec::duplicate-spec` for a spec
//! diagnostic, the bare name otherwise), the [`Stage`] that reports it, its default
//! [`Severity`] and a one-line description. Reports, SARIF `rules[]` and `docs/cli.md`'s table of
//! codes all read it. Nothing fails.
//!
//! Codes never change meaning once released; a new code is a new row.

use serde::{Deserialize, Serialize};

/// Severity of a finding, as every report prints it (`error`, `warning`, `note`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Fails the pair or stops a file from being checked.
    Error,
    /// Worth attention; does not fail.
    Warning,
    /// Information.
    Note,
}

impl Severity {
    /// The word reports print (`error`).
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// What a code is about: which part of a run reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stage {
    /// A `.toolspec` file (and the files it includes): syntax and compile diagnostics.
    Spec,
    /// A transcript file: read errors, and findings about records that did not stop reading.
    Read,
    /// The run itself: paths, settings, discovery and binding specs to transcripts.
    Run,
    /// One spec × transcript pair: the engine's findings and the profile's.
    Engine,
    /// A built-in rule (`src/rules/`, `docs/rules.md`): a problem in a transcript found without
    /// any spec; `[rules]` in toolspec.toml and `--select`/`--ignore` choose which apply.
    Rule,
}

impl Stage {
    /// The word `docs/cli.md` uses (`spec`).
    pub fn name(self) -> &'static str {
        match self {
            Stage::Spec => "spec",
            Stage::Read => "read",
            Stage::Run => "run",
            Stage::Engine => "engine",
            Stage::Rule => "rule",
        }
    }
}

/// `docs/rules.md`, the documentation of the built-in rules (one source: `toolspec rules CODE`
/// and SARIF's descriptions read it).
const RULE_DOCS: &str = include_str!("../docs/rules.md");

/// Where the documentation is published.
const DOCS_URI: &str = "https://github.com/toolspec/toolspec/blob/main/docs";

struct Row {
    name: &'static str,
    prefixed: &'static str,
    stage: Stage,
    severity: Severity,
    description: &'static str,
}

macro_rules! codes {
    ($($variant:ident = $name:literal, $stage:ident, $severity:ident, $description:literal;)*) => {
        /// Every diagnostic toolspec can emit, by stable code.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code {
            $(
                #[doc = $description]
                $variant,
            )*
        }

        impl Code {
            /// Every code, in documentation order (the order of `docs/cli.md`'s table).
            pub const ALL: &'static [Code] = &[$(Code::$variant),*];

            const ROWS: &'static [Row] = &[$(Row {
                name: $name,
                prefixed: concat!("toolspec::", $name),
                stage: Stage::$stage,
                severity: Severity::$severity,
                description: $description,
            }),*];
        }
    };
}

codes! {
    Syntax = "syntax", Spec, Error, "the text does not follow the grammar";
    UnknownKeyword = "unknown-keyword", Spec, Error,
        "a word in a keyword position is not a known keyword, mode or option";
    DuplicateSpec = "duplicate-spec", Spec, Error, "two specs in one file have the same name";
    DuplicateArgument = "duplicate-argument", Spec, Error,
        "an argument or output field is constrained twice in one list";
    DuplicateLabel = "duplicate-label", Spec, Error,
        "two expectations in one spec have the same label";
    DuplicateSetting = "duplicate-setting", Spec, Error, "a setting is given twice";
    DuplicateTool = "duplicate-tool", Spec, Error, "two `tool` declarations have the same name";
    ThresholdRange = "threshold-range", Spec, Error, "a threshold is outside [0, 1]";
    InvalidPassRate = "invalid-pass-rate", Spec, Error,
        "a `pass_rate` is not `>=` followed by a fraction in [0, 1]";
    InvalidWeight = "invalid-weight", Spec, Error, "a weight or penalty is negative";
    InvalidNumber = "invalid-number", Spec, Error, "a count, index or range bound is unusable";
    InvalidRegex = "invalid-regex", Spec, Error, "a regular expression does not compile";
    ExpectedAndForbidden = "expected-and-forbidden", Spec, Error,
        "a tool is both expected and forbidden";
    UnknownProfile = "unknown-profile", Spec, Error, "no profile has this name";
    UnknownProfileOption = "unknown-profile-option", Spec, Error,
        "the profile has no such option";
    InvalidProfileOption = "invalid-profile-option", Spec, Error,
        "a profile option has a value of the wrong type";
    UnknownReference = "unknown-reference", Spec, Error,
        "a reference names no earlier labelled expectation";
    InvalidComparison = "invalid-comparison", Spec, Error,
        "a comparison or membership cannot apply as written: a bound that is not a number, a literal after `in`, or a `[*]` list outside `in`";
    UnknownExpectation = "unknown-expectation", Spec, Error,
        "a `before` rule names no single expectation";
    UnknownArgument = "unknown-argument", Spec, Warning,
        "an argument is not declared by its `tool` declaration (warning)";
    GlobMatchesNothing = "glob-matches-nothing", Spec, Warning,
        "a transcript glob matches no file (warning)";
    IncludeCycle = "include-cycle", Spec, Error,
        "included files include each other in a cycle";
    IncludeNotFound = "include-not-found", Spec, Error, "an included file cannot be read";
    SpecInInclude = "spec-in-include", Spec, Error, "an included file declares a spec";
    ContradictoryOrder = "contradictory-order", Spec, Error,
        "a `before` rule contradicts the written order of an ordered spec";
    CommandLineOnly = "command-line-only", Spec, Error,
        "a setting that only the command line may give (a judge command) is written in a spec";
    IncludeTooDeep = "include-too-deep", Spec, Error, "an include chain is longer than 64 files";
    IncludeLimit = "include-limit", Spec, Error,
        "more than 4096 included files or 64 MiB of included text in one compilation";
    RegexTooLarge = "regex-too-large", Spec, Error,
        "a regular expression, or a file's regular expressions together, are too large";
    NestedScope = "nested-scope", Spec, Error,
        "a `turn` block inside a `turn` block, or an `agent` block inside an `agent` block";
    InvalidGroup = "invalid-group", Spec, Error,
        "an `either` or `parallel` block is empty, has one branch, holds a statement other than expectations, or is nested where it cannot be";
    TooManyArrangements = "too-many-arrangements", Spec, Error,
        "the `either` and `parallel` blocks of a spec have more arrangements than the engine tries (720)";
    TooManyDiagnostics = "too-many-diagnostics", Spec, Error,
        "a file has more than 100 diagnostics; the rest are counted, not shown";
    IneffectiveSetting = "ineffective-setting", Spec, Warning,
        "a setting that another setting of the spec makes meaningless (warning)";
    MisplacedStatement = "misplaced-statement", Spec, Error,
        "a statement written where it cannot stand: a setting, `answer` or `before` rule inside a `turn` or `agent` block, a `weight` on a `never` rule, a statement outside any spec, an `include`, `tool` or `spec` inside one";
    InvalidWildcard = "invalid-wildcard", Spec, Error,
        "`*` (any tool) where it cannot stand: a `call *` without a count, or a count of `*` with a label, a weight or `critical`";

    Io = "io", Read, Error, "a transcript file could not be read";
    Empty = "empty", Read, Error, "a transcript file is empty";
    InvalidUtf8 = "invalid-utf8", Read, Error, "a transcript file is not valid UTF-8";
    Binary = "binary", Read, Error, "a transcript file holds binary data";
    InvalidJson = "invalid-json", Read, Error, "a transcript file is not valid JSON";
    InvalidYaml = "invalid-yaml", Read, Error,
        "a YAML transcript file (a VCR cassette, or a file a custom mapping reads) is not one valid YAML document, or holds what JSON cannot (a key that is not text, more than 128 levels)";
    Truncated = "truncated", Read, Error,
        "a transcript file ends in the middle of a JSON value";
    WrongShape = "wrong-shape", Read, Error,
        "a transcript's JSON does not have the shape of its format";
    UnknownFormat = "unknown-format", Read, Error, "a transcript file matches no known format";
    LineTooLong = "line-too-long", Read, Error,
        "a line of a streamed transcript file is longer than 128 MiB (the records before it are read), or a `score` case line longer than 16 MiB (the other cases are scored)";
    ValueTooLarge = "value-too-large", Read, Error,
        "a transcript's JSON document, line or archive entry would take more than 1 GiB of memory once parsed, or a streamed document that is not JSON lines is larger than 128 MiB";
    TruncatedLastLine = "truncated-last-line", Read, Warning,
        "the last line of a JSON-lines file is cut off";
    AmbiguousFormat = "ambiguous-format", Read, Warning,
        "a transcript file also has the marks of another format; it was read as the first";
    UnreadableCall = "unreadable-call", Read, Warning,
        "an item of a toolspec-calls dataset is not a call and was skipped";
    UnmappedCall = "unmapped-call", Read, Warning,
        "a call node of a custom mapping has no tool name and was skipped";

    PathNotFound = "path-not-found", Run, Error,
        "a path given on the command line does not exist";
    PathRefused = "path-refused", Run, Error,
        "a path is not a regular file inside the project root, or is too large; it was not read";
    NotATranscript = "not-a-transcript", Run, Error,
        "with --spec, a path given on the command line is a folder or a spec file";
    StdinWithoutSpec = "stdin-without-spec", Run, Error,
        "a transcript read from standard input without --spec";
    UnreadableSpec = "unreadable-spec", Run, Error, "a spec file could not be read";
    GlobOutsideRoot = "glob-outside-root", Run, Error,
        "a spec's transcript glob reaches outside the project root";
    InvalidGlob = "invalid-glob", Run, Error, "a spec's transcript glob is not a valid pattern";
    InvalidSetting = "invalid-setting", Run, Error,
        "a pattern or value in toolspec.toml is invalid";
    SpecWithoutTranscripts = "spec-without-transcripts", Run, Warning,
        "a spec names no transcripts and the settings give no default";
    UnclaimedTranscript = "unclaimed-transcript", Run, Warning,
        "a transcript given on the command line is named by no spec";
    UsingLastGoodSpec = "using-last-good-spec", Run, Warning,
        "watch: a spec stopped compiling; its last good version is used";
    NoCallsRead = "no-calls-read", Run, Warning,
        "a transcript file was read without error but without a single tool call";
    UnclaimedFile = "unclaimed-file", Run, Note,
        "a file named on the command line that no spec names and that is no transcript was passed over (note)";
    SkippedFile = "skipped-file", Run, Note,
        "--strict or -v: a file of a walked folder was passed over (not a transcript, or no call) (note)";
    NothingChecked = "nothing-checked", Run, Warning,
        "no spec × transcript pair was checked in the whole run";
    InternalError = "internal-error", Run, Error,
        "a bug in toolspec stopped one file from being checked; the others were";
    PassRateMissed = "pass-rate-missed", Run, Error,
        "a spec with a `pass_rate` had too small a share of passing transcripts (or none)";
    PassRateMet = "pass-rate-met", Run, Note,
        "a spec with a `pass_rate` had enough passing transcripts; its failing ones do not fail the run";

    ForbiddenCall = "forbidden-call", Engine, Error, "a call of a forbidden tool";
    BeforeViolation = "before-violation", Engine, Error,
        "a call matched to `then` precedes a call matched to `first`";
    UnexpectedCall = "unexpected-call", Engine, Note,
        "a call nothing accounts for (an error or warning under the spec's extra-call policy)";
    TooManyCalls = "too-many-calls", Engine, Error,
        "a call beyond an `at_most` cap (an error), or a repeat of a met expectation (under the extra-call policy)";
    TooLarge = "too-large", Engine, Note,
        "an alignment ran past its budget; the matching may not be the best possible";
    MissingCall = "missing-call", Engine, Error,
        "a required expectation got no call, or fewer than its minimum";
    NameOnlyMatch = "name-only-match", Engine, Error, "a matched call fails constraints";
    OrderViolation = "order-violation", Engine, Error,
        "a call that satisfies an unmet expectation but is out of order";
    FuzzyBoundApplied = "fuzzy-bound-applied", Engine, Warning,
        "a fuzzy constraint could not be settled within the work bound and was treated as failed";
    ReferenceNotApplied = "reference-not-applied", Engine, Note,
        "a constraint refers to an optional expectation (or one in an `either` branch not chosen) that matched no call, so it did not apply";
    ReferenceBoundApplied = "reference-bound-applied", Engine, Warning,
        "a `[*]` reference collected its maximum of elements from one call; membership could not be settled and was treated as failed";
    EitherBranch = "either-branch", Engine, Note,
        "which branch of an `either` block was scored (the others count for nothing)";
    CriticalUnmet = "critical-unmet", Engine, Error,
        "a critical expectation or block is not met: the pair fails whatever the score";
    ProfileError = "profile-error", Engine, Error,
        "the spec's profile could not score the pair";
    ScopesNotRecorded = "scopes-not-recorded", Engine, Error,
        "the spec has `turn` blocks but the transcript records no user turns";
    TurnOutOfRange = "turn-out-of-range", Engine, Warning,
        "a `turn N` block names a turn past the transcript's last";
    UnknownAgent = "unknown-agent", Engine, Warning,
        "an `agent` block names an agent that made no call in the transcript";
    AnswerMismatch = "answer-mismatch", Engine, Error,
        "the final assistant message fails the spec's `answer` constraint";
    AnswerMissing = "answer-missing", Engine, Error,
        "the spec has an `answer` constraint but the transcript records no final assistant message";
    RunsNotRecorded = "runs-not-recorded", Engine, Error,
        "the spec counts a sub-agent's runs but the transcript's format does not record when sub-agents start";
    AnchorNotCalled = "anchor-not-called", Engine, Warning,
        "an `after` block's tool (or label) has no call in the transcript, so no call is after it";
    CountOutOfRange = "count-out-of-range", Engine, Error,
        "a count does not hold: `total_calls`, a count of `*` (`at_most 1 call * errored`) or an agent's `runs`; the pair fails whatever the score";

    SchemaViolation = "schema-violation", Rule, Error,
        "a call's arguments break the JSON Schema the transcript declares for its tool";
    UndeclaredTool = "undeclared-tool", Rule, Error,
        "a call to a tool the transcript's list of available tools does not declare";
    InvalidArguments = "invalid-arguments", Rule, Warning,
        "a call's arguments are not valid JSON; they are kept as raw text";
    RepeatedCall = "repeated-call", Rule, Warning,
        "the same tool called with the same arguments several times in a row (3 by default): a loop";
    MissingResult = "missing-result", Rule, Warning,
        "a call whose result never came, although the run went on and later calls got theirs";
    OrphanResult = "orphan-result", Rule, Warning, "a tool result links to no call";
    InvalidSchema = "invalid-schema", Rule, Warning,
        "a tool's declared parameter schema is not a JSON Schema toolspec can check against";
    RuleLimit = "rule-limit", Rule, Note,
        "a built-in rule stopped at one of its bounds (findings, schema size or depth); the rest was not checked";
}

impl Code {
    fn row(self) -> &'static Row {
        &Self::ROWS[self as usize]
    }

    /// The kebab-case name (`duplicate-spec`, `missing-call`).
    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// The code as reports print it: `toolspec::duplicate-spec` for a spec diagnostic, the name
    /// alone for every other code (`missing-call`).
    pub fn id(self) -> &'static str {
        let row = self.row();
        match row.stage {
            Stage::Spec => row.prefixed,
            _ => row.name,
        }
    }

    /// Which part of a run reports it.
    pub fn stage(self) -> Stage {
        self.row().stage
    }

    /// Its severity unless the context decides otherwise (a spec's extra-call policy for
    /// `unexpected-call`; an error left out for `too-many-diagnostics`).
    pub fn severity(self) -> Severity {
        self.row().severity
    }

    /// One line saying what the code means.
    pub fn description(self) -> &'static str {
        self.row().description
    }

    /// Its section of `docs/rules.md` (from its `## \`NAME\`` heading to the next), for a
    /// [`Stage::Rule`] code: what `toolspec rules CODE` prints.
    pub fn rule_docs(self) -> Option<&'static str> {
        if self.stage() != Stage::Rule {
            return None;
        }
        let heading = format!("## `{}`", self.name());
        let start = RULE_DOCS.find(&heading)?;
        let rest = &RULE_DOCS[start..];
        let end = rest[heading.len()..]
            .find("\n## ")
            .map_or(rest.len(), |e| e + heading.len() + 1);
        Some(rest[..end].trim_end())
    }

    /// A paragraph saying what the code means (SARIF's `fullDescription`): a rule's "What it
    /// finds" of `docs/rules.md`; for other codes, the description and where the code is
    /// explained.
    pub fn full_description(self) -> String {
        let what = self.rule_docs().and_then(|d| {
            let from = d.find("### What it finds")? + "### What it finds".len();
            let rest = &d[from..];
            let end = rest.find("\n### ").unwrap_or(rest.len());
            Some(rest[..end].split_whitespace().collect::<Vec<_>>().join(" "))
        });
        match what {
            Some(w) if !w.is_empty() => w,
            _ => format!(
                "{}{}. Reported by the {} stage, as {} unless the context decides otherwise.",
                self.description()[..1].to_uppercase(),
                &self.description()[1..],
                self.stage().name(),
                match self.severity() {
                    Severity::Error => "an error",
                    Severity::Warning => "a warning",
                    Severity::Note => "a note",
                }
            ),
        }
    }

    /// Where the code is documented (SARIF's `helpUri`): a rule's section of `docs/rules.md`,
    /// else the page about its stage.
    pub fn help_uri(self) -> String {
        let page = match self.stage() {
            Stage::Rule if self.rule_docs().is_some() => {
                return format!("{DOCS_URI}/rules.md#{}", self.name())
            }
            Stage::Rule => "rules.md",
            Stage::Spec => "language.md",
            Stage::Read => "formats.md",
            Stage::Run => "cli.md#diagnostic-codes",
            Stage::Engine => "engine.md",
        };
        format!("{DOCS_URI}/{page}")
    }

    /// The code a report prints as `id` ([`Code::id`]), if any.
    pub fn from_id(id: &str) -> Option<Code> {
        Code::ALL.iter().copied().find(|c| c.id() == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_follow_the_enum_and_ids_are_unique() {
        assert_eq!(Code::ALL.len(), Code::ROWS.len());
        for (i, c) in Code::ALL.iter().enumerate() {
            assert_eq!(*c as usize, i);
            assert_eq!(Code::from_id(c.id()), Some(*c));
        }
        let mut names: Vec<&str> = Code::ALL.iter().map(|c| c.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Code::ALL.len(), "two codes share a name");
    }

    #[test]
    fn ids_are_as_printed() {
        assert_eq!(Code::DuplicateSpec.id(), "toolspec::duplicate-spec");
        assert_eq!(Code::MissingCall.id(), "missing-call");
        assert_eq!(Code::InvalidJson.id(), "invalid-json");
        assert_eq!(Code::from_id("syntax"), None);
    }
}
