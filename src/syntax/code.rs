//! The stable codes of spec diagnostics.

/// Every diagnostic a `.toolspec` file can produce, by stable code (`toolspec::<name>`).
///
/// Codes never change meaning once released; new ones are added at the end of [`Code::ALL`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Code {
    /// The text does not follow the grammar.
    Syntax,
    /// A word in a keyword position is not a keyword (statement, mode, option, type name).
    UnknownKeyword,
    /// Two specs of one file share a name.
    DuplicateSpec,
    /// One argument (or output field) path is constrained twice in one list.
    DuplicateArgument,
    /// Two expectations of one spec share a label.
    DuplicateLabel,
    /// A setting (`order`, `threshold`, a score key, `errored`, ...) is given twice.
    DuplicateSetting,
    /// Two `tool` declarations share a name.
    DuplicateTool,
    /// A threshold is outside [0, 1].
    ThresholdRange,
    /// A weight or penalty is negative or not finite.
    InvalidWeight,
    /// A number is not usable where it is written (count too large, empty range, bad index).
    InvalidNumber,
    /// A regular expression does not compile.
    InvalidRegex,
    /// A tool is both expected and forbidden.
    ExpectedAndForbidden,
    /// The profile name is unknown.
    UnknownProfile,
    /// The profile has no such option.
    UnknownProfileOption,
    /// A profile option has a value of the wrong type.
    InvalidProfileOption,
    /// A reference names no earlier labelled expectation.
    UnknownReference,
    /// A `before` rule names no expectation, or a tool expected more than once.
    UnknownExpectation,
    /// An argument is not among those its `tool` declaration lists (warning).
    UnknownArgument,
    /// A transcript glob matches no file (warning).
    GlobMatchesNothing,
    /// Files include each other in a cycle.
    IncludeCycle,
    /// An included file cannot be read.
    IncludeNotFound,
    /// An included file declares specs (only `tool` declarations and includes are shared).
    SpecInInclude,
    /// A `before` rule contradicts the written order of a `strict` or `in_order` spec.
    ContradictoryOrder,
    /// A setting only the person running toolspec may give, on the command line (`judge`).
    CommandLineOnly,
    /// An include chain is longer than the compiler follows.
    IncludeTooDeep,
    /// The included files of one compilation are too many or too large.
    IncludeLimit,
    /// A regular expression compiles to a program over the size limit, or a file's regular
    /// expressions together do.
    RegexTooLarge,
    /// A file has more diagnostics than are shown; this one counts the rest.
    TooManyDiagnostics,
}

impl Code {
    /// Every code, in documentation order.
    pub const ALL: &'static [Code] = &[
        Code::Syntax,
        Code::UnknownKeyword,
        Code::DuplicateSpec,
        Code::DuplicateArgument,
        Code::DuplicateLabel,
        Code::DuplicateSetting,
        Code::DuplicateTool,
        Code::ThresholdRange,
        Code::InvalidWeight,
        Code::InvalidNumber,
        Code::InvalidRegex,
        Code::ExpectedAndForbidden,
        Code::UnknownProfile,
        Code::UnknownProfileOption,
        Code::InvalidProfileOption,
        Code::UnknownReference,
        Code::UnknownExpectation,
        Code::UnknownArgument,
        Code::GlobMatchesNothing,
        Code::IncludeCycle,
        Code::IncludeNotFound,
        Code::SpecInInclude,
        Code::ContradictoryOrder,
        Code::CommandLineOnly,
        Code::IncludeTooDeep,
        Code::IncludeLimit,
        Code::RegexTooLarge,
        Code::TooManyDiagnostics,
    ];

    /// The kebab-case name (`duplicate-spec`).
    pub fn name(self) -> &'static str {
        match self {
            Code::Syntax => "syntax",
            Code::UnknownKeyword => "unknown-keyword",
            Code::DuplicateSpec => "duplicate-spec",
            Code::DuplicateArgument => "duplicate-argument",
            Code::DuplicateLabel => "duplicate-label",
            Code::DuplicateSetting => "duplicate-setting",
            Code::DuplicateTool => "duplicate-tool",
            Code::ThresholdRange => "threshold-range",
            Code::InvalidWeight => "invalid-weight",
            Code::InvalidNumber => "invalid-number",
            Code::InvalidRegex => "invalid-regex",
            Code::ExpectedAndForbidden => "expected-and-forbidden",
            Code::UnknownProfile => "unknown-profile",
            Code::UnknownProfileOption => "unknown-profile-option",
            Code::InvalidProfileOption => "invalid-profile-option",
            Code::UnknownReference => "unknown-reference",
            Code::UnknownExpectation => "unknown-expectation",
            Code::UnknownArgument => "unknown-argument",
            Code::GlobMatchesNothing => "glob-matches-nothing",
            Code::IncludeCycle => "include-cycle",
            Code::IncludeNotFound => "include-not-found",
            Code::SpecInInclude => "spec-in-include",
            Code::ContradictoryOrder => "contradictory-order",
            Code::CommandLineOnly => "command-line-only",
            Code::IncludeTooDeep => "include-too-deep",
            Code::IncludeLimit => "include-limit",
            Code::RegexTooLarge => "regex-too-large",
            Code::TooManyDiagnostics => "too-many-diagnostics",
        }
    }

    /// The full code as shown to users (`toolspec::duplicate-spec`).
    pub fn code(self) -> String {
        format!("toolspec::{}", self.name())
    }

    /// One line saying what the code means.
    pub fn description(self) -> &'static str {
        match self {
            Code::Syntax => "the text does not follow the grammar",
            Code::UnknownKeyword => {
                "a word in a keyword position is not a known keyword, mode or option"
            }
            Code::DuplicateSpec => "two specs in one file have the same name",
            Code::DuplicateArgument => {
                "an argument or output field is constrained twice in one list"
            }
            Code::DuplicateLabel => "two expectations in one spec have the same label",
            Code::DuplicateSetting => "a setting is given twice",
            Code::DuplicateTool => "two `tool` declarations have the same name",
            Code::ThresholdRange => "a threshold is outside [0, 1]",
            Code::InvalidWeight => "a weight or penalty is negative",
            Code::InvalidNumber => "a count, index or range bound is unusable",
            Code::InvalidRegex => "a regular expression does not compile",
            Code::ExpectedAndForbidden => "a tool is both expected and forbidden",
            Code::UnknownProfile => "no profile has this name",
            Code::UnknownProfileOption => "the profile has no such option",
            Code::InvalidProfileOption => "a profile option has a value of the wrong type",
            Code::UnknownReference => "a reference names no earlier labelled expectation",
            Code::UnknownExpectation => "a `before` rule names no single expectation",
            Code::UnknownArgument => {
                "an argument is not declared by its `tool` declaration (warning)"
            }
            Code::GlobMatchesNothing => "a transcript glob matches no file (warning)",
            Code::IncludeCycle => "included files include each other in a cycle",
            Code::IncludeNotFound => "an included file cannot be read",
            Code::SpecInInclude => "an included file declares a spec",
            Code::ContradictoryOrder => {
                "a `before` rule contradicts the written order of an ordered spec"
            }
            Code::CommandLineOnly => {
                "a setting that only the command line may give (a judge command) is written in a spec"
            }
            Code::IncludeTooDeep => "an include chain is longer than 64 files",
            Code::IncludeLimit => {
                "more than 4096 included files or 64 MiB of included text in one compilation"
            }
            Code::RegexTooLarge => {
                "a regular expression, or a file's regular expressions together, are too large"
            }
            Code::TooManyDiagnostics => {
                "a file has more than 100 diagnostics; the rest are counted, not shown"
            }
        }
    }
}
