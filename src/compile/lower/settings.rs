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
    check_threshold, check_weight, duplicate, spec_keywords, unknown_word, FileCx, DEFAULT_FUZZY,
};
use crate::code::Code;
use crate::compile::suggest::did_you_mean;
use crate::config::{ArgsMode, ExtraCalls, MatcherConfig, OrderMode, TranscriptGlob};
use crate::source::{SourceFile, Span};
use crate::syntax::ast::{self, StmtKind};
use crate::syntax::words::{
    ArgsWord, ExtraWord, NameFlag, OrderWord, RulesWord, ScoreKey, ScoreWord,
};
use crate::syntax::SpecDiagnostic;

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
                    match m.name.parse::<OrderWord>() {
                        Ok(OrderWord::Strict) => cfg.order = OrderMode::Strict,
                        Ok(OrderWord::InOrder) => cfg.order = OrderMode::InOrder,
                        Ok(OrderWord::Any) => cfg.order = OrderMode::AnyOrder,
                        Err(_) => {
                            self.diags
                                .push(unknown_word(src, "order mode", m, OrderWord::WORDS));
                        }
                    }
                }
                StmtKind::Args { mode: m, threshold } => {
                    once(self, "args", stmt.span);
                    match (m.name.parse::<ArgsWord>(), threshold) {
                        (Ok(ArgsWord::Fuzzy), t) => {
                            mode = ArgsMode::Fuzzy {
                                threshold: match t {
                                    Some(n) => check_threshold(src, n, &mut self.diags),
                                    None => DEFAULT_FUZZY,
                                },
                            }
                        }
                        (Ok(_), Some(n)) => self.diags.push(
                            SpecDiagnostic::error(
                                Code::InvalidNumber,
                                src,
                                format!("`args {}` takes no threshold", m.name),
                            )
                            .label(n.span, "only `args fuzzy` has a threshold")
                            .help("remove `>= ...`, or use `args fuzzy >= t`"),
                        ),
                        (Ok(ArgsWord::Ignore), None) => mode = ArgsMode::Ignore,
                        (Ok(ArgsWord::Exact), None) => mode = ArgsMode::Exact,
                        (Ok(ArgsWord::Subset), None) => mode = ArgsMode::Subset,
                        (Err(_), _) => {
                            self.diags
                                .push(unknown_word(src, "argument mode", m, ArgsWord::WORDS));
                        }
                    }
                }
                StmtKind::ArgsTokens { mode: m, threshold } => {
                    once(self, "args", stmt.span);
                    if m.name.parse() == Ok(ArgsWord::Fuzzy) {
                        mode = ArgsMode::FuzzyTokens {
                            threshold: match threshold {
                                Some(n) => check_threshold(src, n, &mut self.diags),
                                None => DEFAULT_FUZZY,
                            },
                        };
                    } else {
                        let mut d =
                            unknown_word(src, "argument mode", m, &[ArgsWord::Fuzzy.as_str()]);
                        if m.name.parse::<ArgsWord>().is_ok() {
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
                            ast::NameOpt::Flag(f) => match f.name.parse::<NameFlag>() {
                                Ok(NameFlag::IgnoreCase) => cfg.names.ignore_case = true,
                                Ok(NameFlag::UnifySeparators) => {
                                    cfg.names.unify_separators = true;
                                }
                                Err(_) => {
                                    let mut d = unknown_word(src, "name rule", f, NameFlag::WORDS);
                                    d.help = Some(
                                        "name rules are `ignore_case`, `unify_separators` and \
                                         `strip \"prefix\"`"
                                            .into(),
                                    );
                                    self.diags.push(d);
                                }
                            },
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
                    if mode.name.parse::<RulesWord>().is_err() {
                        self.diags
                            .push(unknown_word(src, "rules mode", mode, RulesWord::WORDS));
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
                    match p.name.parse::<ExtraWord>() {
                        Ok(ExtraWord::Allow) => cfg.extra_calls = ExtraCalls::Allow,
                        Ok(ExtraWord::Forbid) => cfg.extra_calls = ExtraCalls::Forbid,
                        Err(_) => self.diags.push(unknown_word(
                            src,
                            "extra-call policy",
                            p,
                            ExtraWord::WORDS,
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
                        let slot = match k.name.parse::<ScoreKey>() {
                            Ok(ScoreKey::Exact) => &mut cfg.scoring.exact_match,
                            Ok(ScoreKey::NameOnly) => &mut cfg.scoring.name_only,
                            Ok(ScoreKey::Extra) => &mut cfg.scoring.extra_call,
                            Ok(ScoreKey::Missing) => &mut cfg.scoring.wrong_or_missing,
                            Err(_) if k.name.parse::<ScoreWord>().is_ok() => {
                                let mut d = unknown_word(src, "score key", k, ScoreKey::WORDS);
                                d.help = Some(format!(
                                    "`{}` is a statement of its own: write `score {}` on its \
                                     own line",
                                    k.name, k.name
                                ));
                                self.diags.push(d);
                                continue;
                            }
                            Err(_) => {
                                self.diags
                                    .push(unknown_word(src, "score key", k, ScoreKey::WORDS));
                                continue;
                            }
                        };
                        *slot =
                            check_weight(src, &format!("score `{}`", k.name), v, &mut self.diags);
                    }
                }
                StmtKind::ScoreMode(m) => {
                    once(self, "score per_argument", stmt.span);
                    match m.name.parse::<ScoreWord>() {
                        Ok(ScoreWord::PerArgument) => cfg.scoring.per_argument = true,
                        Err(_) => {
                            self.diags
                                .push(unknown_word(src, "score mode", m, ScoreWord::WORDS));
                        }
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
        let known = spec_keywords();
        let mut d = unknown_word(src, "statement", &u.word, &known);
        d.message = format!("unknown keyword `{}`", u.word.name);
        d.help = Some(
            "a spec statement starts with a keyword such as `call`, `order`, `args` or `never`, or is `label: call ...` or `a before b`".into(),
        );
        // `lookup_order(id: 1)` alone is almost always a call missing its keyword.
        let rest = src.text[u.word.span.end..u.span.end].trim_start();
        if rest.starts_with('(') && did_you_mean(&u.word.name, known.iter().copied()).is_none() {
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
