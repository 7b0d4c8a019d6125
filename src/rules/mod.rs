//! Built-in rules: problems a transcript shows by itself, found without any spec.
//!
//! Input: one transcript as a [`View`] (its calls, where each is in the file, the tools it
//! declares, which calls got a result, the file's bytes when they are at hand) and a
//! [`RuleSet`] (which rules apply, with their options). Output: [`RuleFinding`]s, each with a
//! [`Stage::Rule`](crate::code::Stage::Rule) code of the one registry ([`crate::code`]) and a
//! byte span in the transcript. Nothing fails: a schema that cannot be checked is a finding
//! (`invalid-schema`), and every rule stops at a stated bound ([`MAX_FINDINGS_PER_RULE`], and
//! for schemas the sizes, work and pattern budgets of each transcript: [`MAX_SCHEMA_BYTES`],
//! [`MAX_TRANSCRIPT_WORK`], [`MAX_PATTERN_BYTES`] and the others the `schema` module lists)
//! with a `rule-limit` note saying what was left unchecked.
//!
//! [`RULES`] is the registry of rules: code, whether it is on by default, its options. Two
//! rules are found by the readers while they read (`invalid-arguments`, `orphan-result`: see
//! [`Rule::by_reader`]); the check keeps or drops their findings by the same [`RuleSet`]. What
//! each rule finds, and why, is `docs/rules.md` ([`Rule::docs`]).

mod schema;
mod sequence;

pub use schema::{
    schema_work, Over, SchemaCache, Work, MAX_CALL_WORK, MAX_COMPILED_SCHEMA_BYTES,
    MAX_DETAILED_WORK, MAX_ERRORS_PER_CALL, MAX_PATTERN_BYTES, MAX_SCHEMA_BYTES, MAX_SCHEMA_DEPTH,
    MAX_SCHEMA_NESTING, MAX_SHARED_PATTERN_BYTES, MAX_SHARED_SCHEMA_BYTES, MAX_TRANSCRIPT_WORK,
    PATTERN_LIMITS,
};

use crate::code::Code;
use crate::engine::Calls;
use crate::source::Span;
use crate::transcript::ToolDecl;

/// At most this many findings of one rule in one transcript; past it, one `rule-limit` note
/// counts the rest.
pub const MAX_FINDINGS_PER_RULE: usize = 100;

/// The default of `repeated-call`'s `count`: this many identical calls in a row are a loop.
pub const DEFAULT_REPEAT_COUNT: usize = 3;

/// A built-in rule: its code, whether it applies by default, its options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// Its stable code (a [`Stage::Rule`](crate::code::Stage::Rule) row of the registry).
    pub code: Code,
    /// Whether it applies when neither the settings nor the command line choose.
    pub default: bool,
    /// Whether the readers find it while reading (the check then keeps or drops the finding).
    pub by_reader: bool,
    /// Its options in `toolspec.toml` (`[rules.NAME]`), as `name: meaning`.
    pub options: &'static [&'static str],
}

/// Every built-in rule, in documentation order.
pub const RULES: &[Rule] = &[
    Rule {
        code: Code::SchemaViolation,
        default: true,
        by_reader: false,
        options: &[],
    },
    Rule {
        code: Code::UndeclaredTool,
        default: true,
        by_reader: false,
        options: &[],
    },
    Rule {
        code: Code::InvalidArguments,
        default: true,
        by_reader: true,
        options: &[],
    },
    Rule {
        code: Code::RepeatedCall,
        default: true,
        by_reader: false,
        options: &["count: how many identical calls in a row make a loop (at least 2; default 3)"],
    },
    Rule {
        code: Code::MissingResult,
        default: true,
        by_reader: false,
        options: &[],
    },
    Rule {
        code: Code::OrphanResult,
        default: true,
        by_reader: true,
        options: &[],
    },
    Rule {
        code: Code::InvalidSchema,
        default: true,
        by_reader: false,
        options: &[],
    },
];

impl Rule {
    /// The rule whose code is named `name` (`schema-violation`).
    pub fn named(name: &str) -> Option<&'static Rule> {
        RULES.iter().find(|r| r.code.name() == name)
    }

    /// The rule of `code`, if `code` is a rule's.
    pub fn of(code: Code) -> Option<&'static Rule> {
        RULES.iter().find(|r| r.code == code)
    }

    /// Its section of `docs/rules.md` (see [`Code::rule_docs`]).
    pub fn docs(&self) -> Option<&'static str> {
        self.code.rule_docs()
    }
}

/// Which rules apply, and their options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleSet {
    /// The codes of the rules that apply, in [`RULES`] order.
    on: Vec<Code>,
    /// `repeated-call`'s `count`.
    pub repeat_count: usize,
}

impl Default for RuleSet {
    /// The rules on by default, with default options.
    fn default() -> Self {
        RuleSet {
            on: RULES.iter().filter(|r| r.default).map(|r| r.code).collect(),
            repeat_count: DEFAULT_REPEAT_COUNT,
        }
    }
}

impl RuleSet {
    /// No rule at all.
    pub fn none() -> Self {
        RuleSet {
            on: Vec::new(),
            repeat_count: DEFAULT_REPEAT_COUNT,
        }
    }

    /// Exactly the rules of `codes` (as `select` gives them), options unchanged.
    #[must_use]
    pub fn select(mut self, codes: &[Code]) -> Self {
        self.on = RULES
            .iter()
            .map(|r| r.code)
            .filter(|c| codes.contains(c))
            .collect();
        self
    }

    /// Without the rules of `codes` (as `ignore` gives them).
    #[must_use]
    pub fn ignore(mut self, codes: &[Code]) -> Self {
        self.on.retain(|c| !codes.contains(c));
        self
    }

    /// With the rules of `codes` too (the rules a spec denies).
    #[must_use]
    pub fn with(mut self, codes: &[Code]) -> Self {
        self.on = RULES
            .iter()
            .map(|r| r.code)
            .filter(|c| self.on.contains(c) || codes.contains(c))
            .collect();
        self
    }

    /// Whether the rule of `code` applies (false for a code that is no rule's).
    pub fn is_on(&self, code: Code) -> bool {
        self.on.contains(&code)
    }

    /// Whether any rule applies.
    pub fn any(&self) -> bool {
        !self.on.is_empty()
    }

    /// Whether a rule that looks at every call's arguments applies (the reader must keep them).
    pub fn needs_args(&self) -> bool {
        self.is_on(Code::SchemaViolation) || self.is_on(Code::RepeatedCall)
    }

    /// Whether a finding with this code (as a report prints it) is kept: rule codes by the
    /// set, any other code always.
    pub fn keeps(&self, id: &str) -> bool {
        match Code::from_id(id).and_then(Rule::of) {
            Some(r) => self.is_on(r.code),
            None => true,
        }
    }
}

/// One transcript, as the rules see it.
pub struct View<'a> {
    /// Its calls, in call order.
    pub calls: &'a dyn Calls,
    /// Where each call is in the file, by position.
    pub spans: &'a [Span],
    /// The tools it declares (empty when the format records none).
    pub tools: &'a [ToolDecl],
    /// Whether each call got a result, by position.
    pub answered: &'a [bool],
    /// The file's bytes, when they are at hand: a finding about one argument is placed at that
    /// argument inside the call (else at the call).
    pub text: Option<&'a [u8]>,
}

impl View<'_> {
    fn span(&self, i: usize) -> Span {
        self.spans.get(i).copied().unwrap_or_default()
    }
}

/// A problem a rule found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleFinding {
    /// The rule's code (or `rule-limit`).
    pub code: Code,
    /// What is wrong, in words.
    pub message: String,
    /// How to fix or silence it.
    pub help: String,
    /// Where in the transcript file.
    pub span: Span,
}

/// Collects one rule's findings up to [`MAX_FINDINGS_PER_RULE`], counting the rest.
struct Capped {
    code: Code,
    found: Vec<RuleFinding>,
    dropped: usize,
    last: Span,
}

impl Capped {
    fn new(code: Code) -> Self {
        Capped {
            code,
            found: Vec::new(),
            dropped: 0,
            last: Span::default(),
        }
    }

    fn push(&mut self, message: String, help: String, span: Span) {
        if self.found.len() < MAX_FINDINGS_PER_RULE {
            self.found.push(RuleFinding {
                code: self.code,
                message,
                help,
                span,
            });
        } else {
            self.dropped += 1;
            self.last = span;
        }
    }

    fn full(&self) -> bool {
        self.found.len() >= MAX_FINDINGS_PER_RULE
    }

    fn finish(mut self, out: &mut Vec<RuleFinding>) {
        if self.dropped > 0 {
            self.found.push(RuleFinding {
                code: Code::RuleLimit,
                message: format!(
                    "{} more `{}` findings in this transcript are not shown (at most {MAX_FINDINGS_PER_RULE} per rule)",
                    self.dropped,
                    self.code.name()
                ),
                help: format!(
                    "fix the first ones, or ignore the rule: `--ignore {}`",
                    self.code.name()
                ),
                span: self.last,
            });
        }
        out.extend(self.found);
    }
}

/// Every finding of the rules `set` turns on (except those the readers find), sorted by place
/// then code.
pub fn run(set: &RuleSet, t: &View<'_>) -> Vec<RuleFinding> {
    run_with(set, t, &SchemaCache::default())
}

/// [`run`], with the schemas a run has compiled for its other transcripts (`schemas`; those
/// compiled here are kept there): the findings are the same.
pub fn run_with(set: &RuleSet, t: &View<'_>, schemas: &SchemaCache) -> Vec<RuleFinding> {
    let mut out = Vec::new();
    if set.is_on(Code::SchemaViolation) || set.is_on(Code::InvalidSchema) {
        schema::check(set, t, schemas, &mut out);
    }
    if set.is_on(Code::UndeclaredTool) {
        sequence::undeclared(t, &mut out);
    }
    if set.is_on(Code::RepeatedCall) {
        sequence::repeated(t, set.repeat_count, &mut out);
    }
    if set.is_on(Code::MissingResult) {
        sequence::missing_results(t, &mut out);
    }
    out.sort_by_key(|a| (a.span, a.code));
    out
}

/// `s` cut to about `max` bytes (at a character boundary), with `…` when cut.
fn clip(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_owned();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_has_a_rule_code_and_a_section_of_the_docs() {
        for r in RULES {
            assert_eq!(r.code.stage(), crate::code::Stage::Rule, "{:?}", r.code);
            let docs = r
                .docs()
                .unwrap_or_else(|| panic!("no docs for {:?}", r.code));
            for part in [
                "### What it finds",
                "### Why it matters",
                "### Example",
                "### How to fix or silence it",
            ] {
                assert!(docs.contains(part), "{}: no `{part}`", r.code.name());
            }
            assert!(!docs[3..].contains("\n## "), "{}", r.code.name());
        }
    }

    #[test]
    fn select_and_ignore_choose_rules() {
        let all = RuleSet::default();
        assert!(all.is_on(Code::RepeatedCall) && all.any());
        let one = RuleSet::default().select(&[Code::UndeclaredTool, Code::MissingCall]);
        assert!(one.is_on(Code::UndeclaredTool) && !one.is_on(Code::RepeatedCall));
        assert!(!one.is_on(Code::MissingCall));
        let less = RuleSet::default().ignore(&[Code::OrphanResult]);
        assert!(!less.keeps("orphan-result") && less.keeps("missing-call"));
        assert!(!RuleSet::none().any());
        assert_eq!(clip("ééé", 3), "é…");
    }
}
