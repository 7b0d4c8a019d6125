//! Lowering: one spec's statements → a [`MatcherConfig`] with every default made explicit.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use serde_json::Value;

use super::diags::Diags;
use super::regex_lit::RegexCache;
use super::suggest::{did_you_mean, one_of};
use crate::config::profile::{ProfileError, COMMAND_LINE_ONLY, PROFILES};
use crate::config::*;
use crate::source::{SourceFile, Span};
use crate::syntax::ast::{self, Seg, StmtKind, TermKind};
use crate::syntax::{Code, SpecDiagnostic};

/// The threshold of `fuzzy` when none is written, and of `args fuzzy`.
pub const DEFAULT_FUZZY: f64 = 0.8;

/// Keywords that may start a statement inside a spec (for did-you-mean).
pub(crate) const SPEC_KEYWORDS: &[&str] = &[
    "transcripts",
    "format",
    "order",
    "args",
    "names",
    "threshold",
    "extra",
    "score",
    "binary",
    "profile",
    "never",
    "call",
    "optional",
    "at_least",
    "at_most",
    "exactly",
    "between",
    "errored",
    "weight",
    "before",
];
/// Keywords that may start a top-level item.
pub(crate) const TOP_KEYWORDS: &[&str] = &["include", "tool", "spec"];
const ORDER_MODES: &[&str] = &["strict", "in_order", "any"];
const ARGS_MODES: &[&str] = &["ignore", "exact", "subset", "fuzzy"];
const NAME_FLAGS: &[&str] = &["ignore_case", "unify_separators"];
const EXTRA_POLICIES: &[&str] = &["allow", "forbid"];
const SCORE_KEYS: &[&str] = &["exact", "name_only", "extra", "missing"];
const TYPES: &[&str] = &[
    "null", "boolean", "number", "integer", "string", "array", "object",
];

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

/// How a bare literal is compared: follows the argument mode.
#[derive(Clone, Copy)]
enum Lit {
    Equals,
    Subset,
    Fuzzy(f64),
}

impl Lit {
    fn of(mode: ArgsMode) -> Lit {
        match mode {
            ArgsMode::Ignore | ArgsMode::Exact => Lit::Equals,
            ArgsMode::Subset => Lit::Subset,
            ArgsMode::Fuzzy { threshold } => Lit::Fuzzy(threshold),
        }
    }
}

/// Which labels a reference may name.
#[derive(Clone, Copy)]
enum Refs<'a> {
    /// None: references make no sense here (tool declarations).
    Forbidden,
    /// Labels of expectations before `.1` (an expectation's own constraints).
    Before(&'a HashMap<String, (usize, Span)>, usize),
    /// None: a `never` rule recognises a forbidden call on its own, before any expectation is
    /// matched, so there is nothing yet to read a value from.
    Never,
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
    /// Lower a `tool` declaration of file `src`.
    pub(crate) fn lower_tool(&mut self, src: &SourceFile, decl: &ast::ToolDecl) -> LoweredTool {
        let mut checks = Vec::new();
        let mut known = Vec::new();
        let mut known_set = HashSet::new();
        let mut seen: HashMap<Path, Span> = HashMap::new();
        for arg in &decl.args.args {
            let Some(path) = self.path(src, &arg.path.segs) else {
                continue;
            };
            if let Some(first) = seen.insert(path.clone(), arg.path.span) {
                self.diags.push(duplicate(
                    src,
                    Code::DuplicateArgument,
                    format!("argument `{}` is declared twice", path_text(&path)),
                    first,
                    arg.path.span,
                    "merge the constraints with `and`",
                ));
            }
            if let Some(PathSeg::Key(k)) = path.first() {
                if known_set.insert(k.clone()) {
                    known.push(k.clone());
                }
            }
            for pc in self.constraint(
                src,
                &arg.constraint,
                Lit::Equals,
                Refs::Forbidden,
                &path,
                arg.span,
            ) {
                checks.push((pc.path, pc.check));
            }
        }
        LoweredTool {
            name: decl.name.name.clone(),
            checks,
            known,
            known_set,
            open: decl.args.spread.is_some(),
        }
    }

    fn path(&mut self, src: &SourceFile, segs: &[Seg]) -> Option<Path> {
        let mut out = Vec::with_capacity(segs.len());
        for s in segs {
            match s {
                Seg::Key { name, .. } => out.push(PathSeg::Key(name.clone())),
                Seg::Index(Some(i), _) => out.push(PathSeg::Index(*i)),
                Seg::Index(None, span) => {
                    self.diags.push(
                        SpecDiagnostic::error(Code::InvalidNumber, src, "array index too large")
                            .label(*span, "does not fit in an index")
                            .help("indices count from 0 and must fit in a machine word"),
                    );
                    return None;
                }
            }
        }
        Some(out)
    }

    /// Lower `c`, written at `path`, into path checks (one per `and` term).
    fn constraint(
        &mut self,
        src: &SourceFile,
        c: &ast::Constraint,
        lit: Lit,
        refs: Refs<'_>,
        path: &Path,
        span: Span,
    ) -> Vec<PathCheck> {
        c.terms
            .iter()
            .filter_map(|t| self.term(src, t, lit, refs))
            .map(|check| PathCheck {
                path: path.clone(),
                check,
                span,
            })
            .collect()
    }

    fn term(&mut self, src: &SourceFile, t: &ast::Term, lit: Lit, refs: Refs<'_>) -> Option<Check> {
        Some(match &t.kind {
            TermKind::Literal(j) => {
                let value = j.to_value();
                match (lit, value) {
                    (Lit::Equals, value) => Check::Equals { value },
                    (Lit::Fuzzy(threshold), Value::String(s)) => Check::Fuzzy {
                        value: s,
                        threshold,
                    },
                    (_, value) => Check::Subset { value },
                }
            }
            TermKind::Exact(j) => Check::Equals {
                value: j.to_value(),
            },
            TermKind::Subset(j) => Check::Subset {
                value: j.to_value(),
            },
            TermKind::Fuzzy(s, t) => Check::Fuzzy {
                value: s.value.clone(),
                threshold: match t {
                    Some(n) => check_threshold(src, n, &mut self.diags),
                    None => DEFAULT_FUZZY,
                },
            },
            TermKind::Regex {
                body,
                body_span,
                flags,
            } => match self.regexes.compile(src, body, *body_span, flags) {
                Ok(pattern) => Check::Regex { pattern },
                Err(d) => {
                    self.diags.push(d);
                    return None;
                }
            },
            TermKind::Range {
                min,
                max,
                inclusive,
            } => {
                if let (Some(a), Some(b)) = (min, max) {
                    if a.value > b.value || (a.value == b.value && !inclusive) {
                        self.diags.push(
                            SpecDiagnostic::error(Code::InvalidNumber, src, "empty range")
                                .label(t.span, "no number lies in this range")
                                .help("write the lower bound first; `a..b` excludes `b`, `a..=b` includes it"),
                        );
                    }
                }
                Check::Range {
                    min: min.as_ref().map(|n| n.value),
                    max: max.as_ref().map(|n| n.value),
                    min_exclusive: false,
                    max_exclusive: max.is_some() && !inclusive,
                }
            }
            TermKind::Cmp(op, n) => {
                let v = Some(n.value);
                match op {
                    ast::CmpOp::Gt => Check::Range {
                        min: v,
                        max: None,
                        min_exclusive: true,
                        max_exclusive: false,
                    },
                    ast::CmpOp::Ge => Check::Range {
                        min: v,
                        max: None,
                        min_exclusive: false,
                        max_exclusive: false,
                    },
                    ast::CmpOp::Lt => Check::Range {
                        min: None,
                        max: v,
                        min_exclusive: false,
                        max_exclusive: true,
                    },
                    ast::CmpOp::Le => Check::Range {
                        min: None,
                        max: v,
                        min_exclusive: false,
                        max_exclusive: false,
                    },
                }
            }
            TermKind::Type(names) => {
                let mut types = Vec::new();
                for n in names {
                    let ty = match n.name.as_str() {
                        "null" => JsonType::Null,
                        "boolean" => JsonType::Boolean,
                        "number" => JsonType::Number,
                        "integer" => JsonType::Integer,
                        "string" => JsonType::String,
                        "array" => JsonType::Array,
                        "object" => JsonType::Object,
                        _ => {
                            self.diags.push(unknown_word(src, "JSON type", n, TYPES));
                            continue;
                        }
                    };
                    if !types.contains(&ty) {
                        types.push(ty);
                    }
                }
                Check::Type { types }
            }
            TermKind::OneOf(items) => Check::OneOf {
                values: items.iter().map(ast::Json::to_value).collect(),
            },
            TermKind::Contains(j) => Check::Contains {
                value: j.to_value(),
            },
            TermKind::Present => Check::Present,
            TermKind::Absent => Check::Absent,
            TermKind::Any => Check::Any,
            TermKind::Not(inner) => Check::Not {
                check: Box::new(self.term(src, inner, lit, refs)?),
            },
            TermKind::Ref { label, part, path } => {
                let path = self.path(src, path)?;
                return self.reference(src, label, *part, path, t.span, refs);
            }
        })
    }

    fn reference(
        &mut self,
        src: &SourceFile,
        label: &ast::Ident,
        part: Part,
        path: Path,
        span: Span,
        refs: Refs<'_>,
    ) -> Option<Check> {
        let (labels, before) = match refs {
            Refs::Forbidden => {
                self.diags.push(
                    SpecDiagnostic::error(
                        Code::UnknownReference,
                        src,
                        format!("`{}` cannot be referenced in a tool declaration", label.name),
                    )
                    .label(span, "no expectation here to read from")
                    .help("a `tool` declaration is shared by all specs; write references in the spec's `call`"),
                );
                return None;
            }
            Refs::Never => {
                self.diags.push(
                    SpecDiagnostic::error(
                        Code::UnknownReference,
                        src,
                        format!("`{}` cannot be referenced in a `never` rule", label.name),
                    )
                    .label(span, "a forbidden call is recognised before any expectation is matched")
                    .help("constrain forbidden calls with literal values (`never refund(amount_cents: > 10000)`), or state the rule as an expectation"),
                );
                return None;
            }
            Refs::Before(labels, i) => (labels, Some(i)),
        };
        match labels.get(&label.name) {
            Some((idx, _)) if before.is_none_or(|b| *idx < b) => Some(Check::Ref {
                expectation: *idx,
                label: label.name.clone(),
                part,
                path,
            }),
            Some((_, at)) => {
                self.diags.push(
                    SpecDiagnostic::error(
                        Code::UnknownReference,
                        src,
                        format!("`{}` is not captured by an earlier expectation", label.name),
                    )
                    .label(label.span, "refers to this expectation or a later one")
                    .label(*at, "labelled here")
                    .help("a reference reads a value from a call matched earlier; move the labelled `call` above this one"),
                );
                None
            }
            None => {
                // The hint compares with every label: only for diagnostics shown.
                let hint = if self.diags.full(&src.name) {
                    None
                } else {
                    let mut names: Vec<&str> = labels.keys().map(String::as_str).collect();
                    names.sort_unstable();
                    did_you_mean(&label.name, names.iter().copied())
                };
                let d = SpecDiagnostic::error(
                    Code::UnknownReference,
                    src,
                    format!("no earlier expectation is labelled `{}`", label.name),
                )
                .label(
                    label.span,
                    match hint {
                        Some(h) => format!("did you mean `{h}`?"),
                        None => "unknown label".to_owned(),
                    },
                );
                self.diags.push(d.help(format!(
                    "label the call that produces the value: `{}: call tool(...)`, then refer to `{}.output.field` or `{}.args.field`",
                    label.name, label.name, label.name
                )));
                None
            }
        }
    }

    /// Lower an argument or field list at the root of a value.
    fn arg_list(
        &mut self,
        src: &SourceFile,
        list: &ast::ArgList,
        lit: Lit,
        refs: Refs<'_>,
        what: &str,
    ) -> Vec<PathCheck> {
        let mut out = Vec::new();
        let mut seen: HashMap<Path, Span> = HashMap::new();
        for arg in &list.args {
            let Some(path) = self.path(src, &arg.path.segs) else {
                continue;
            };
            if let Some(first) = seen.get(&path) {
                self.diags.push(duplicate(
                    src,
                    Code::DuplicateArgument,
                    format!("{what} `{}` is constrained twice", path_text(&path)),
                    *first,
                    arg.path.span,
                    "write one entry and join its constraints with `and`",
                ));
                continue;
            }
            seen.insert(path.clone(), arg.path.span);
            out.extend(self.constraint(src, &arg.constraint, lit, refs, &path, arg.span));
        }
        out
    }

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
        };
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
                    }))
                }
                StmtKind::Format(f) => {
                    once(self, "format", stmt.span);
                    // Stored under its canonical name, so the config says which reader runs.
                    match f.name.parse::<crate::transcript::Format>() {
                        Ok(format) => cfg.format = Some(format.name().to_owned()),
                        Err(_) => {
                            let names = crate::transcript::Format::ALL.map(|f| f.name());
                            self.diags
                                .push(unknown_word(src, "transcript format", f, &names));
                        }
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
                StmtKind::Names(opts) => {
                    for o in opts {
                        match o {
                            ast::NameOpt::Flag(f) if f.name == "ignore_case" => {
                                cfg.names.ignore_case = true
                            }
                            ast::NameOpt::Flag(f) if f.name == "unify_separators" => {
                                cfg.names.unify_separators = true
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
                StmtKind::Binary => {
                    once(self, "binary", stmt.span);
                    cfg.scoring.binary = true;
                }
                StmtKind::Profile { name, options, .. } => {
                    once(self, "profile", stmt.span);
                    cfg.profile = self.profile(src, name, options);
                }
                StmtKind::Unknown(u) => {
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
                StmtKind::Expect(_) | StmtKind::Never { .. } | StmtKind::Before { .. } => {}
            }
        }

        // Labels, for references and `before` rules.
        let mut labels: HashMap<String, (usize, Span)> = HashMap::new();
        let exps: Vec<(&ast::Expectation, Span)> = spec
            .stmts
            .iter()
            .filter_map(|s| match &s.kind {
                StmtKind::Expect(e) => Some((&**e, s.span)),
                _ => None,
            })
            .collect();
        for (i, (e, _)) in exps.iter().enumerate() {
            if let Some(l) = &e.label {
                if let Some((_, first)) = labels.get(&l.name) {
                    self.diags.push(duplicate(
                        src,
                        Code::DuplicateLabel,
                        format!("label `{}` is used twice", l.name),
                        *first,
                        l.span,
                        "labels name one expectation each; rename one",
                    ));
                } else {
                    labels.insert(l.name.clone(), (i, l.span));
                }
            }
        }

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

        for (i, (e, span)) in exps.iter().enumerate() {
            let x = self.expectation(src, &names, mode, e, *span, Refs::Before(&labels, i));
            cfg.expectations.push(x);
        }

        let lit = Lit::of(mode);
        for stmt in &spec.stmts {
            match &stmt.kind {
                StmtKind::Never { tool, args } => {
                    let args = args.as_ref().map(|list| ValueMatcher {
                        checks: self.arg_list(src, list, lit, Refs::Never, "argument"),
                        allow_extra_keys: true,
                    });
                    // `never t()` forbids every call of `t`, like `never t`.
                    if args.as_ref().is_none_or(|a| a.checks.is_empty()) {
                        let tool_norm = norm.normalise(&tool.name);
                        if let Some((e, _)) = by_tool.get(&tool_norm).map(|&(i, _)| exps[i]) {
                            self.diags.push(
                                SpecDiagnostic::error(
                                    Code::ExpectedAndForbidden,
                                    src,
                                    format!("`{}` is both expected and forbidden", tool.name),
                                )
                                .label(tool.span, "forbidden here")
                                .label(e.tool.span, "expected here")
                                .help(format!(
                                    "remove one of them; to forbid only some calls, constrain the arguments: `never {}(arg: ...)`",
                                    tool.name
                                )),
                            );
                        }
                    }
                    cfg.forbidden.push(Forbidden {
                        tool: tool.name.clone(),
                        args,
                        span: stmt.span,
                    });
                }
                StmtKind::Before { first, then } => {
                    let a = self.resolve(src, first, &labels, &exps, &by_tool, &norm);
                    let b = self.resolve(src, then, &labels, &exps, &by_tool, &norm);
                    if let (Some(a), Some(b)) = (a, b) {
                        if a == b {
                            self.diags.push(
                                SpecDiagnostic::error(
                                    Code::UnknownExpectation,
                                    src,
                                    "an expectation cannot come before itself",
                                )
                                .label(stmt.span, "both sides name the same expectation")
                                .help("name two different expectations, by label or by tool"),
                            );
                        } else if a > b && cfg.order != OrderMode::AnyOrder {
                            let word = if cfg.order == OrderMode::Strict {
                                "strict"
                            } else {
                                "in_order"
                            };
                            self.diags.push(
                                SpecDiagnostic::error(
                                    Code::ContradictoryOrder,
                                    src,
                                    format!(
                                        "`{}` contradicts `order {word}`: the expectations are written the other way round",
                                        &src.text[stmt.span.start..stmt.span.end]
                                    ),
                                )
                                .label(stmt.span, "this rule can never hold")
                                .label(exps[b].1, "written first")
                                .label(exps[a].1, "written second")
                                .help(format!("under `order {word}` the written order already applies: swap the two `call` lines, or use `order any` with `before` rules")),
                            );
                        } else {
                            cfg.before.push(BeforeRule {
                                first: a,
                                then: b,
                                span: stmt.span,
                            });
                        }
                    }
                }
                _ => {}
            }
        }
        cfg
    }

    /// The expectation a `before` rule names: a label, or a tool expected exactly once.
    fn resolve(
        &mut self,
        src: &SourceFile,
        name: &ast::Ident,
        labels: &HashMap<String, (usize, Span)>,
        exps: &[(&ast::Expectation, Span)],
        by_tool: &HashMap<String, (usize, usize)>,
        rules: &Normaliser,
    ) -> Option<usize> {
        if let Some((i, _)) = labels.get(&name.name) {
            return Some(*i);
        }
        match by_tool.get(&rules.normalise(&name.name)) {
            Some(&(one, 1)) => Some(one),
            None => {
                // The hint compares with every label and tool: only for diagnostics shown.
                let hint = if self.diags.full(&src.name) {
                    None
                } else {
                    let mut cands: Vec<&str> = labels.keys().map(String::as_str).collect();
                    cands.extend(exps.iter().map(|(e, _)| e.tool.name.as_str()));
                    cands.sort_unstable();
                    did_you_mean(&name.name, cands.iter().copied())
                };
                self.diags.push(
                    SpecDiagnostic::error(
                        Code::UnknownExpectation,
                        src,
                        format!("no expectation is labelled or calls `{}`", name.name),
                    )
                    .label(
                        name.span,
                        match hint {
                            Some(h) => format!("did you mean `{h}`?"),
                            None => "names no expectation".into(),
                        },
                    )
                    .help("`a before b` names two expectations of this spec, by label or by tool name"),
                );
                None
            }
            Some(&(_, many)) => {
                self.diags.push(
                    SpecDiagnostic::error(
                        Code::UnknownExpectation,
                        src,
                        format!("`{}` is expected {many} times", name.name),
                    )
                    .label(name.span, "ambiguous")
                    .help("label the expectation you mean (`first: call ...`) and use the label"),
                );
                None
            }
        }
    }

    fn expectation(
        &mut self,
        src: &SourceFile,
        names: &SpecNames<'_>,
        mode: ArgsMode,
        e: &ast::Expectation,
        span: Span,
        refs: Refs<'_>,
    ) -> Expectation {
        let lit = Lit::of(mode);
        let (args_mode, args) = match &e.args {
            None => (ArgsMode::Ignore, ValueMatcher::any()),
            Some(ast::Body::Exact(j)) => (
                ArgsMode::Exact,
                ValueMatcher {
                    checks: vec![PathCheck {
                        path: Vec::new(),
                        check: Check::Equals {
                            value: j.to_value(),
                        },
                        span: j.span,
                    }],
                    allow_extra_keys: false,
                },
            ),
            Some(ast::Body::Subset(j)) => (
                ArgsMode::Subset,
                ValueMatcher {
                    checks: vec![PathCheck {
                        path: Vec::new(),
                        check: Check::Subset {
                            value: j.to_value(),
                        },
                        span: j.span,
                    }],
                    allow_extra_keys: true,
                },
            ),
            Some(ast::Body::List(list)) => {
                let mut checks = self.arg_list(src, list, lit, refs, "argument");
                self.inherit(src, names, e, list, &mut checks);
                (
                    mode,
                    ValueMatcher {
                        checks,
                        allow_extra_keys: list.spread.is_some() || mode != ArgsMode::Exact,
                    },
                )
            }
        };
        let output = e.output.as_ref().map(|o| match o {
            ast::OutputBody::Fields(list) => ValueMatcher {
                checks: self.arg_list(src, list, lit, refs, "output field"),
                allow_extra_keys: true,
            },
            ast::OutputBody::Exact(j) => ValueMatcher {
                checks: vec![PathCheck {
                    path: Vec::new(),
                    check: Check::Equals {
                        value: j.to_value(),
                    },
                    span: j.span,
                }],
                allow_extra_keys: false,
            },
            ast::OutputBody::Subset(j) => ValueMatcher {
                checks: vec![PathCheck {
                    path: Vec::new(),
                    check: Check::Subset {
                        value: j.to_value(),
                    },
                    span: j.span,
                }],
                allow_extra_keys: true,
            },
            ast::OutputBody::Value(c) => ValueMatcher {
                checks: self.constraint(src, c, lit, refs, &Vec::new(), c.span),
                allow_extra_keys: true,
            },
        });
        let mut errored = None;
        let mut weight = 1.0;
        let mut errored_at: Option<Span> = None;
        let mut weight_at: Option<Span> = None;
        for s in &e.suffixes {
            match s {
                ast::Suffix::Errored { value, span, .. } => {
                    if let Some(first) = errored_at.replace(*span) {
                        self.diags.push(duplicate(
                            src,
                            Code::DuplicateSetting,
                            "`errored` is set twice".into(),
                            first,
                            *span,
                            "keep one",
                        ));
                    }
                    errored = Some(*value);
                }
                ast::Suffix::Weight(n, span) => {
                    if let Some(first) = weight_at.replace(*span) {
                        self.diags.push(duplicate(
                            src,
                            Code::DuplicateSetting,
                            "`weight` is set twice".into(),
                            first,
                            *span,
                            "keep one",
                        ));
                    }
                    weight = check_weight(src, "a weight", n, &mut self.diags);
                }
            }
        }
        Expectation {
            label: e.label.as_ref().map(|l| l.name.clone()),
            tool: e.tool.name.clone(),
            args_mode,
            args,
            output,
            errored,
            repeat: self.repeat(src, e.repeat.as_ref()),
            weight,
            span,
            name_span: e.tool.span,
        }
    }

    /// The first tool declaration of each name as `names` (indexed as `norm`) normalise it, by
    /// index into `tools`.
    fn tool_index(&mut self, names: &NameRules, norm: &Normaliser) -> Rc<HashMap<String, usize>> {
        let key = (
            names.ignore_case,
            names.unify_separators,
            names.strip_prefixes.clone(),
        );
        let tools = &self.tools;
        self.tool_index
            .entry(key)
            .or_insert_with(|| {
                let mut index = HashMap::with_capacity(tools.len());
                for (i, t) in tools.iter().enumerate() {
                    index.entry(norm.normalise(&t.name)).or_insert(i);
                }
                Rc::new(index)
            })
            .clone()
    }

    /// Add the constraints of the tool's declaration for paths the expectation leaves unwritten,
    /// and warn about arguments the declaration does not know.
    fn inherit(
        &mut self,
        src: &SourceFile,
        names: &SpecNames<'_>,
        e: &ast::Expectation,
        list: &ast::ArgList,
        checks: &mut Vec<PathCheck>,
    ) {
        let Some(&at) = names
            .tools
            .and_then(|index| index.get(&names.norm.normalise(&e.tool.name)))
        else {
            return;
        };
        let decl = &self.tools[at];
        let written: HashSet<Path> = checks.iter().map(|c| c.path.clone()).collect();
        for (path, check) in &decl.checks {
            if !written.contains(path) {
                checks.push(PathCheck {
                    path: path.clone(),
                    check: check.clone(),
                    span: e.tool.span,
                });
            }
        }
        if decl.open {
            return;
        }
        let mut warns = Vec::new();
        let known: Vec<&str> = decl.known.iter().map(String::as_str).collect();
        for arg in &list.args {
            if let Some(Seg::Key { name, span, .. }) = arg.path.segs.first() {
                if !decl.known_set.contains(name) {
                    // The hint compares with every declared argument, and the help lists them:
                    // only for diagnostics shown.
                    let shown = !self.diags.full(&src.name);
                    let hint = if shown {
                        did_you_mean(name, known.iter().copied())
                    } else {
                        None
                    };
                    warns.push(
                        SpecDiagnostic::warning(
                            Code::UnknownArgument,
                            src,
                            format!("`{}` declares no argument `{name}`", decl.name),
                        )
                        .label(
                            *span,
                            match hint {
                                Some(h) => format!("did you mean `{h}`?"),
                                None => "not declared".into(),
                            },
                        )
                        .help(format!(
                            "declared arguments: {}; add `...` to the declaration if others exist",
                            if shown {
                                known.join(", ")
                            } else {
                                String::new()
                            }
                        )),
                    );
                }
            }
        }
        self.diags.extend(warns);
    }

    fn repeat(&mut self, src: &SourceFile, r: Option<&ast::RepeatAst>) -> Repeat {
        let Some(r) = r else {
            return Repeat::ONCE;
        };
        let get = |this: &mut FileCx, n: &ast::Int| match n.value {
            Some(v) => Some(v),
            None => {
                this.diags.push(
                    SpecDiagnostic::error(Code::InvalidNumber, src, "count too large")
                        .label(n.span, "does not fit in 32 bits")
                        .help("counts go up to 4294967295"),
                );
                None
            }
        };
        let zero = |this: &mut FileCx, span: Span| {
            this.diags.push(
                SpecDiagnostic::error(
                    Code::InvalidNumber,
                    src,
                    "an expectation must allow at least one call",
                )
                .label(span, "allows no call")
                .help("to say a tool must not be called, write `never tool`"),
            );
        };
        match &r.kind {
            ast::RepeatKind::Optional => Repeat::OPTIONAL,
            ast::RepeatKind::AtLeast(n) => Repeat {
                min: get(self, n).unwrap_or(1),
                max: None,
            },
            ast::RepeatKind::AtMost(n) => {
                let max = get(self, n).unwrap_or(1);
                if max == 0 {
                    zero(self, r.span);
                }
                Repeat {
                    min: 0,
                    max: Some(max),
                }
            }
            ast::RepeatKind::Exactly(n) => {
                let v = get(self, n).unwrap_or(1);
                if v == 0 {
                    zero(self, r.span);
                }
                Repeat {
                    min: v,
                    max: Some(v),
                }
            }
            ast::RepeatKind::Between(a, b) => {
                let (lo, hi) = (get(self, a).unwrap_or(1), get(self, b).unwrap_or(1));
                if lo > hi {
                    self.diags.push(
                        SpecDiagnostic::error(Code::InvalidNumber, src, "empty count range")
                            .label(r.span, format!("{lo} is more than {hi}"))
                            .help("write the smaller count first: `between 1 and 3`"),
                    );
                } else if hi == 0 {
                    zero(self, r.span);
                }
                Repeat {
                    min: lo,
                    max: Some(hi),
                }
            }
        }
    }

    fn profile(
        &mut self,
        src: &SourceFile,
        name: &ast::Ident,
        options: &[(ast::Ident, ast::Json)],
    ) -> Option<Profile> {
        let Some(known) = Profile::spec_of(&name.name).map(|p| p.options) else {
            let names: Vec<&str> = PROFILES.iter().map(|p| p.name).collect();
            let hint = did_you_mean(&name.name, names.iter().copied());
            self.diags.push(
                SpecDiagnostic::error(
                    Code::UnknownProfile,
                    src,
                    format!("unknown profile `{}`", name.name),
                )
                .label(
                    name.span,
                    match hint {
                        Some(h) => format!("did you mean `{h}`?"),
                        None => "no such profile".into(),
                    },
                )
                .help(format!("profiles: {}", one_of(&names))),
            );
            return None;
        };
        let mut ok = true;
        let mut map = serde_json::Map::new();
        let mut seen: HashMap<&str, Span> = HashMap::new();
        for (k, v) in options {
            if let Some(first) = seen.insert(k.name.as_str(), k.span) {
                self.diags.push(duplicate(
                    src,
                    Code::DuplicateSetting,
                    format!("profile option `{}` is set twice", k.name),
                    first,
                    k.span,
                    "keep one",
                ));
                ok = false;
            }
            if let Some((_, flag)) = COMMAND_LINE_ONLY.iter().find(|(o, _)| *o == k.name) {
                self.diags.push(
                    SpecDiagnostic::error(
                        Code::CommandLineOnly,
                        src,
                        format!(
                            "profile option `{}` is accepted only on the command line",
                            k.name
                        ),
                    )
                    .label(k.span, "a spec never chooses a command to run")
                    .help(format!(
                        "remove it and pass `{flag} CMD` to `toolspec check` (see docs/security.md)"
                    )),
                );
                ok = false;
                continue;
            }
            if !known.contains(&k.name.as_str()) {
                let hint = did_you_mean(&k.name, known.iter().copied());
                self.diags.push(
                    SpecDiagnostic::error(
                        Code::UnknownProfileOption,
                        src,
                        format!("profile `{}` has no option `{}`", name.name, k.name),
                    )
                    .label(
                        k.span,
                        match hint {
                            Some(h) => format!("did you mean `{h}`?"),
                            None => "unknown option".into(),
                        },
                    )
                    .help(format!(
                        "`{}` options: {}",
                        name.name,
                        one_of(known)
                    )),
                );
                ok = false;
                continue;
            }
            // A threshold written in a spec is a fraction whatever the profile; the peers take
            // any number, but above 1 nothing passes and below 0 everything does.
            if k.name.ends_with("threshold") {
                if let ast::JsonKind::Number(n) = &v.kind {
                    let value = n.as_f64().unwrap_or(f64::NAN);
                    let num = ast::Num {
                        value,
                        span: v.span,
                    };
                    let before = self.diags.len();
                    check_threshold(src, &num, &mut self.diags);
                    ok &= self.diags.len() == before;
                }
            }
            map.insert(k.name.clone(), v.to_value());
        }
        if !ok {
            return None;
        }
        match Profile::from_options(&name.name, map) {
            Ok(p) => Some(p),
            Err(ProfileError::InvalidValue { option, message }) => {
                let at = options
                    .iter()
                    .find(|(k, _)| k.name == option)
                    .map(|(_, v)| v.span)
                    .unwrap_or(name.span);
                self.diags.push(
                    SpecDiagnostic::error(
                        Code::InvalidProfileOption,
                        src,
                        format!("invalid value for profile option `{option}`"),
                    )
                    .label(at, message)
                    .help("see docs/parity.md for each profile's options and their types"),
                );
                None
            }
            Err(other) => {
                self.diags.push(
                    SpecDiagnostic::error(Code::UnknownProfile, src, other.to_string())
                        .label(name.span, "")
                        .help("see docs/parity.md"),
                );
                None
            }
        }
    }
}

/// A path as a user would write it, for messages.
pub(crate) fn path_text(path: &Path) -> String {
    let mut s = String::new();
    for (i, seg) in path.iter().enumerate() {
        match seg {
            PathSeg::Key(k)
                if k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !k.is_empty() =>
            {
                if i > 0 {
                    s.push('.');
                }
                s.push_str(k);
            }
            PathSeg::Key(k) => s.push_str(&format!("[{}]", Value::String(k.clone()))),
            PathSeg::Index(n) => s.push_str(&format!("[{n}]")),
        }
    }
    s
}
