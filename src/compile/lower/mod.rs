//! Lowering: one spec's statements → a [`MatcherConfig`] with every default made explicit.
//!
//! Input: a parsed spec ([`ast::Spec`]) and the state of its file's compilation ([`FileCx`]:
//! the lowered `tool` declarations, the regex cache, the diagnostics). Output: the spec's
//! [`MatcherConfig`]. Failure: every problem is pushed to [`FileCx::diags`] and lowering goes
//! on with a default in its place, so one pass reports them all, in this order: `settings`
//! (statements that hold for the whole spec, `profile` among them), labels and `expectations`
//! (flattened out of `either` and `parallel` blocks by `groups`; their arguments and outputs go
//! through `constraints`), the blocks, then `rules` (`never`, `before`).

mod constraints;
mod expectations;
mod groups;
mod pass_rate;
mod profile;
mod rules;
mod scopes;
mod settings;

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use super::diags::Diags;
use super::regex_lit::RegexCache;
use super::suggest::{did_you_mean, one_of};
use crate::code::Code;
use crate::config::{
    Check, ExtraCalls, MatcherConfig, NameRules, Normaliser, OrderMode, Path, Scoring,
    CONFIG_VERSION,
};
use crate::source::{SourceFile, Span};
use crate::syntax::ast;
use crate::syntax::words::Keyword;
use crate::syntax::SpecDiagnostic;
use constraints::{Lit, Refs};

/// The threshold of `fuzzy` when none is written, and of `args fuzzy`.
pub const DEFAULT_FUZZY: f64 = 0.8;

/// Keywords that may start a statement inside a spec (for did-you-mean).
pub(crate) fn spec_keywords() -> Vec<&'static str> {
    Keyword::statements().map(Keyword::as_str).collect()
}

/// Keywords that may start a top-level item.
pub(crate) fn top_keywords() -> Vec<&'static str> {
    Keyword::items().map(Keyword::as_str).collect()
}

/// State shared by all specs of one compilation.
pub(crate) struct FileCx {
    pub diags: Diags,
    pub regexes: RegexCache,
    pub tools: Vec<LoweredTool>,
    /// Per name rules (ignore case, unify separators, prefixes): the first tool declaration of
    /// each normalised name, by index into `tools`; made on first need.
    pub tool_index: HashMap<NameRulesKey, Rc<HashMap<String, usize>>>,
}

/// A spec's name rules while its statements are lowered: the prefixes indexed once, and the
/// tool declarations by normalised name (none when no tool is declared).
pub(crate) struct SpecNames<'a> {
    norm: &'a Normaliser,
    tools: Option<&'a HashMap<String, usize>>,
}

/// The name rules, as a map key: ignore case, unify separators, strip prefixes.
pub(crate) type NameRulesKey = (bool, bool, Vec<String>);

/// A `tool` declaration, lowered once per compilation.
pub(crate) struct LoweredTool {
    pub name: String,
    pub checks: Vec<(Path, Check)>,
    /// Declared top-level argument names, in order.
    pub known: Vec<String>,
    /// The same, to look up.
    pub known_set: HashSet<String>,
    /// Whether the declaration ends with `...` (other arguments are expected too).
    pub open: bool,
}

/// A spec's expectations as written, for the rules that name them.
struct Written<'s> {
    /// Each `call` statement and its span, in order.
    exps: Vec<(&'s ast::Expectation, Span)>,
    /// Labels: the expectation each names and where.
    labels: HashMap<String, (usize, Span)>,
    /// Expectations by normalised tool name: the first's index and how many.
    by_tool: HashMap<String, (usize, usize)>,
}

fn unknown_word(src: &SourceFile, what: &str, word: &ast::Ident, known: &[&str]) -> SpecDiagnostic {
    let d = SpecDiagnostic::error(
        Code::UnknownKeyword,
        src,
        format!("unknown {what} `{}`", word.name),
    );
    match did_you_mean(&word.name, known.iter().copied()) {
        Some(s) => d
            .label(word.span, format!("did you mean `{s}`?"))
            .help(format!("{what} is one of {}", one_of(known))),
        None => d
            .label(word.span, format!("not a known {what}"))
            .help(format!("{what} is one of {}", one_of(known))),
    }
}

fn check_threshold(src: &SourceFile, n: &ast::Num, diags: &mut Diags) -> f64 {
    if !(0.0..=1.0).contains(&n.value) {
        diags.push(
            SpecDiagnostic::error(
                Code::ThresholdRange,
                src,
                format!(
                    "threshold {} is outside [0, 1]",
                    src.text[n.span.start..n.span.end].trim()
                ),
            )
            .label(n.span, "must be between 0 and 1")
            .help("thresholds are fractions: 0 accepts anything, 1 demands a perfect match"),
        );
    }
    n.value.clamp(0.0, 1.0)
}

fn check_weight(src: &SourceFile, what: &str, n: &ast::Num, diags: &mut Diags) -> f64 {
    if n.value < 0.0 {
        diags.push(
            SpecDiagnostic::error(
                Code::InvalidWeight,
                src,
                format!("{what} cannot be negative"),
            )
            .label(n.span, "negative")
            .help(
                "weights and penalties are non-negative amounts; a penalty is subtracted already",
            ),
        );
    }
    n.value.max(0.0)
}

fn duplicate(
    src: &SourceFile,
    code: Code,
    message: String,
    first: Span,
    again: Span,
    help: &str,
) -> SpecDiagnostic {
    SpecDiagnostic::error(code, src, message)
        .label(again, "given again here")
        .label(first, "first given here")
        .help(help.to_owned())
}

impl FileCx {
    /// Lower one spec.
    pub(crate) fn lower_spec(&mut self, src: &SourceFile, spec: &ast::Spec) -> MatcherConfig {
        let mut cfg = MatcherConfig {
            version: CONFIG_VERSION,
            name: spec.name.name.clone(),
            span: spec.span,
            transcripts: Vec::new(),
            format: None,
            order: OrderMode::InOrder,
            before: Vec::new(),
            expectations: Vec::new(),
            forbidden: Vec::new(),
            extra_calls: ExtraCalls::Allow,
            names: NameRules::default(),
            scoring: Scoring::default(),
            profile: None,
            deny_rules: Vec::new(),
            answer: None,
            groups: Vec::new(),
            pass_rate: None,
        };
        let mode = self.settings(src, spec, &mut cfg);

        // Labels, for references and `before` rules. The expectations of `either`, `parallel`,
        // `turn` and `agent` blocks are in the list, in written order, each with its scope.
        let flat = self.flatten(src, &spec.stmts);
        let exps = flat.exps;
        let labels = self.labels(src, &exps);

        // Expectations by normalised tool name: the first's index and how many.
        // The spec's name rules, their prefixes indexed once, and the tool declarations by
        // name under them (only if any tool is declared).
        let norm = cfg.names.normaliser();
        let tools = (!self.tools.is_empty()).then(|| self.tool_index(&cfg.names, &norm));
        let names = SpecNames {
            norm: &norm,
            tools: tools.as_deref(),
        };
        let mut by_tool: HashMap<String, (usize, usize)> = HashMap::new();
        for (i, (e, _)) in exps.iter().enumerate() {
            by_tool
                .entry(norm.normalise(&e.tool.name))
                .or_insert((i, 0))
                .1 += 1;
        }
        let written = Written {
            exps,
            labels,
            by_tool,
        };

        for (i, (e, span)) in written.exps.iter().enumerate() {
            let refs = Refs::Before(&written.labels, i);
            let mut x = self.expectation(src, &names, mode, e, *span, refs);
            x.scope.clone_from(&flat.scopes[i]);
            cfg.expectations.push(x);
        }
        cfg.answer = self.answer(
            src,
            &spec.stmts,
            Lit::of(mode),
            Refs::Before(&written.labels, written.exps.len()),
        );

        cfg.groups = flat.groups;
        self.check_groups(src, spec, &flat.branch_of, &cfg);

        self.rules(src, spec, Lit::of(mode), &norm, &written, &mut cfg);
        cfg
    }
}
