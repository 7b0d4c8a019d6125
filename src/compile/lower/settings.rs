//! Settings: a spec's option statements → the [`MatcherConfig`] fields they set, and the
//! argument mode its expectations follow.
//!
//! Input: every statement of the spec (settings hold for the whole spec wherever they are
//! written; the others are skipped here). Output: `transcripts`, `format`, `order`, `names`,
//! `threshold`, `extra` policy, `score` weights, `binary` and `profile` of the config, and the
//! `args` mode. Failure: an unknown word (mode, policy, key, format), a setting given twice, a
//! threshold or weight out of range, or a profile problem, each pushed to the file's
//! diagnostics with the default left in place.

use std::collections::{HashMap, HashSet};

use super::{
    check_threshold, check_weight, duplicate, unknown_word, FileCx, DEFAULT_FUZZY, SPEC_KEYWORDS,
};
use crate::code::Code;
use crate::compile::suggest::did_you_mean;
use crate::config::{ArgsMode, ExtraCalls, MatcherConfig, OrderMode, TranscriptGlob};
use crate::source::{SourceFile, Span};
use crate::syntax::ast::{self, StmtKind};
use crate::syntax::SpecDiagnostic;

const ORDER_MODES: &[&str] = &["strict", "in_order", "any"];
const ARGS_MODES: &[&str] = &["ignore", "exact", "subset", "fuzzy"];
const NAME_FLAGS: &[&str] = &["ignore_case", "unify_separators"];
const EXTRA_POLICIES: &[&str] = &["allow", "forbid"];
/// What `rules MODE CODE, ...` may say of the rules' findings.
const RULE_MODES: &[&str] = &["deny"];
const SCORE_KEYS: &[&str] = &["exact", "name_only", "extra", "missing"];
/// The words of `score WORD`.
const SCORE_MODES: &[&str] = &["per_argument"];

impl FileCx {
    /// Lower the settings of `spec` into `cfg`; gives the argument mode.
    pub(super) fn settings(
        &mut self,
        src: &SourceFile,
        spec: &ast::Spec,
        cfg: &mut MatcherConfig,
    ) -> ArgsMode {
        let mut mode = ArgsMode::Subset;
        let mut stripped: HashSet<&str> = HashSet::new();
        let mut settings: HashMap<&'static str, Span> = HashMap::new();
        let mut once = |this: &mut FileCx, key: &'static str, span: Span| {
            if let Some(first) = settings.insert(key, span) {
                this.diags.push(duplicate(
                    src,
                    Code::DuplicateSetting,
                    format!("`{key}` is set twice"),
                    first,
                    span,
                    "keep one; the last would silently win otherwise",
                ));
            }
        };

        // Settings first: they hold for the whole spec wherever they are written.
        for stmt in &spec.stmts {
            match &stmt.kind {
                StmtKind::Transcripts(globs) => {
                    cfg.transcripts.extend(globs.iter().map(|g| TranscriptGlob {
                        pattern: g.value.clone(),
                        span: g.span,
                    }));
                }
                StmtKind::Format(f) => {
                    once(self, "format", stmt.span);
                    // Stored under its canonical name, so the config says which reader runs.
                    if let Ok(format) = f.name.parse::<crate::transcript::Format>() {
                        cfg.format = Some(format.name().to_owned());
                    } else {
                        let names =
                            crate::transcript::Format::ALL.map(crate::transcript::Format::name);
                        self.diags
                            .push(unknown_word(src, "transcript format", f, &names));
                    }
                }
                StmtKind::Order(m) => {
                    once(self, "order", stmt.span);
                    match m.name.as_str() {
                        "strict" => cfg.order = OrderMode::Strict,
                        "in_order" => cfg.order = OrderMode::InOrder,
                        "any" => cfg.order = OrderMode::AnyOrder,
                        _ => self
                            .diags
                            .push(unknown_word(src, "order mode", m, ORDER_MODES)),
                    }
                }
                StmtKind::Args { mode: m, threshold } => {
                    once(self, "args", stmt.span);
                    match (m.name.as_str(), threshold) {
                        ("fuzzy", t) => {
                            mode = ArgsMode::Fuzzy {
                                threshold: match t {
                                    Some(n) => check_threshold(src, n, &mut self.diags),
                                    None => DEFAULT_FUZZY,
                                },
                            }
                        }
                        ("ignore" | "exact" | "subset", Some(n)) => self.diags.push(
                            SpecDiagnostic::error(
                                Code::InvalidNumber,
                                src,
                                format!("`args {}` takes no threshold", m.name),
                            )
                            .label(n.span, "only `args fuzzy` has a threshold")
                            .help("remove `>= ...`, or use `args fuzzy >= t`"),
                        ),
                        ("ignore", None) => mode = ArgsMode::Ignore,
                        ("exact", None) => mode = ArgsMode::Exact,
                        ("subset", None) => mode = ArgsMode::Subset,
                        _ => self
                            .diags
                            .push(unknown_word(src, "argument mode", m, ARGS_MODES)),
                    }
                }
                StmtKind::ArgsTokens { mode: m, threshold } => {
                    once(self, "args", stmt.span);
                    if m.name == "fuzzy" {
                        mode = ArgsMode::FuzzyTokens {
                            threshold: match threshold {
                                Some(n) => check_threshold(src, n, &mut self.diags),
                                None => DEFAULT_FUZZY,
                            },
                        };
                    } else {
                        let mut d = unknown_word(src, "argument mode", m, &["fuzzy"]);
                        if ARGS_MODES.contains(&m.name.as_str()) {
                            d.message = format!("`args {}` takes no `tokens`", m.name);
                            d.labels[0].1 = "only `args fuzzy` compares by tokens".into();
                        }
                        d.help = Some(
                            "`tokens` follows `args fuzzy` only: `args fuzzy tokens >= t`".into(),
                        );
                        self.diags.push(d);
                    }
                }
                StmtKind::Names(opts) => {
                    for o in opts {
                        match o {
                            ast::NameOpt::Flag(f) if f.name == "ignore_case" => {
                                cfg.names.ignore_case = true;
                            }
                            ast::NameOpt::Flag(f) if f.name == "unify_separators" => {
                                cfg.names.unify_separators = true;
                            }
                            ast::NameOpt::Flag(f) => {
                                let mut d = unknown_word(src, "name rule", f, NAME_FLAGS);
                                d.help = Some(
                                "name rules are `ignore_case`, `unify_separators` and `strip \"prefix\"`".into(),
                            );
                                self.diags.push(d);
                            }
                            ast::NameOpt::Strip(s) => {
                                if stripped.insert(&s.value) {
                                    cfg.names.strip_prefixes.push(s.value.clone());
                                }
                            }
                        }
                    }
                }
                StmtKind::Threshold(n) => {
                    once(self, "threshold", stmt.span);
                    cfg.scoring.threshold = check_threshold(src, n, &mut self.diags);
                }
                StmtKind::PassRate { op, rate, percent } => {
                    once(self, "pass_rate", stmt.span);
                    cfg.pass_rate = self.pass_rate(src, stmt.span, op, rate, *percent);
                }
                StmtKind::Rules { mode, codes } => {
                    if mode.name != "deny" {
                        self.diags
                            .push(unknown_word(src, "rules mode", mode, RULE_MODES));
                    }
                    let known: Vec<&str> =
                        crate::rules::RULES.iter().map(|r| r.code.name()).collect();
                    for c in codes {
                        if crate::rules::Rule::named(&c.name).is_none() {
                            self.diags.push(unknown_word(src, "rule", c, &known));
                        } else if !cfg.deny_rules.contains(&c.name) {
                            cfg.deny_rules.push(c.name.clone());
                        }
                    }
                }
                StmtKind::Extra(p) => {
                    once(self, "extra", stmt.span);
                    match p.name.as_str() {
                        "allow" => cfg.extra_calls = ExtraCalls::Allow,
                        "forbid" => cfg.extra_calls = ExtraCalls::Forbid,
                        _ => self.diags.push(unknown_word(
                            src,
                            "extra-call policy",
                            p,
                            EXTRA_POLICIES,
                        )),
                    }
                }
                StmtKind::Score(entries) => {
                    let mut keys: HashMap<&str, Span> = HashMap::new();
                    for (k, v) in entries {
                        if let Some(first) = keys.insert(k.name.as_str(), k.span) {
                            self.diags.push(duplicate(
                                src,
                                Code::DuplicateSetting,
                                format!("score `{}` is set twice", k.name),
                                first,
                                k.span,
                                "keep one",
                            ));
                        }
                        let slot = match k.name.as_str() {
                            "exact" => &mut cfg.scoring.exact_match,
                            "name_only" => &mut cfg.scoring.name_only,
                            "extra" => &mut cfg.scoring.extra_call,
                            "missing" => &mut cfg.scoring.wrong_or_missing,
                            _ if SCORE_MODES.contains(&k.name.as_str()) => {
                                let mut d = unknown_word(src, "score key", k, SCORE_KEYS);
                                d.help = Some(format!(
                                    "`{}` is a statement of its own: write `score {}` on its \
                                     own line",
                                    k.name, k.name
                                ));
                                self.diags.push(d);
                                continue;
                            }
                            _ => {
                                self.diags
                                    .push(unknown_word(src, "score key", k, SCORE_KEYS));
                                continue;
                            }
                        };
                        *slot =
                            check_weight(src, &format!("score `{}`", k.name), v, &mut self.diags);
                    }
                }
                StmtKind::ScoreMode(m) => {
                    once(self, "score per_argument", stmt.span);
                    if m.name == "per_argument" {
                        cfg.scoring.per_argument = true;
                    } else {
                        self.diags
                            .push(unknown_word(src, "score mode", m, SCORE_MODES));
                    }
                }
                StmtKind::Binary => {
                    once(self, "binary", stmt.span);
                    cfg.scoring.binary = true;
                }
                StmtKind::Profile { name, options, .. } => {
                    once(self, "profile", stmt.span);
                    cfg.profile = self.profile(src, name, options);
                }
                StmtKind::Unknown(u) => self.unknown_stmt(src, u),
                StmtKind::Expect(_)
                | StmtKind::Never { .. }
                | StmtKind::Before { .. }
                | StmtKind::Scope { .. }
                | StmtKind::Answer(_)
                | StmtKind::Either(_)
                | StmtKind::Parallel(_) => {}
            }
        }
        self.ineffective_per_argument(src, &settings);
        mode
    }

    /// A statement that starts with an unknown word: name it, with a did-you-mean.
    pub(super) fn unknown_stmt(&mut self, src: &SourceFile, u: &ast::Unknown) {
        let mut d = unknown_word(src, "statement", &u.word, SPEC_KEYWORDS);
        d.message = format!("unknown keyword `{}`", u.word.name);
        d.help = Some(
            "a spec statement starts with a keyword such as `call`, `order`, `args` or `never`, or is `label: call ...` or `a before b`".into(),
        );
        // `lookup_order(id: 1)` alone is almost always a call missing its keyword.
        let rest = src.text[u.word.span.end..u.span.end].trim_start();
        if rest.starts_with('(')
            && did_you_mean(&u.word.name, SPEC_KEYWORDS.iter().copied()).is_none()
        {
            d.labels[0].1 = "not a keyword".into();
            d.help = Some(format!(
                "to expect a call of this tool, write `call {}(...)`",
                u.word.name
            ));
        }
        self.diags.push(d);
    }

    /// `score per_argument` only changes the native score's credit of name-only calls: with
    /// `binary` (1 or 0) or a `profile` (another metric's score) it does nothing, which a warning
    /// says rather than leaving the writer to believe otherwise.
    fn ineffective_per_argument(&mut self, src: &SourceFile, settings: &HashMap<&str, Span>) {
        let Some(&at) = settings.get("score per_argument") else {
            return;
        };
        for (other, why) in [
            (
                "binary",
                "binary mode scores 1 or 0, with no partial credit",
            ),
            ("profile", "a profile replaces the native score"),
        ] {
            if let Some(&by) = settings.get(other) {
                self.diags.push(
                    SpecDiagnostic::warning(
                        Code::IneffectiveSetting,
                        src,
                        format!("`score per_argument` has no effect with `{other}`"),
                    )
                    .label(at, "has no effect")
                    .label(by, why)
                    .help(format!("remove `score per_argument` or `{other}`")),
                );
            }
        }
    }
}
