//! Constraints: argument and output lists, and `tool` declarations → path checks.
//!
//! Input: the argument lists of a `call`, `never` rule or `tool` declaration, an output body,
//! and the argument mode they follow. Output: [`PathCheck`]s (one per `and` term, a bare literal
//! compared as the mode says), references resolved to earlier labelled expectations, and each
//! `tool` declaration as a [`LoweredTool`]. Failure: a path constrained twice, an index or range
//! that is unusable, an unknown JSON type, a regex that does not compile, or a reference to no
//! earlier label (or where none may be written), each pushed to the file's diagnostics and the
//! constraint left out.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::{check_threshold, duplicate, unknown_word, FileCx, LoweredTool, DEFAULT_FUZZY};
use crate::code::Code;
use crate::compile::suggest::did_you_mean;
use crate::config::{ArgsMode, Check, JsonType, Part, Path, PathCheck, PathSeg, RefOp};
use crate::source::{SourceFile, Span};
use crate::syntax::ast::{self, Seg, TermKind};
use crate::syntax::words::TypeWord;
use crate::syntax::SpecDiagnostic;

/// How a bare literal is compared: follows the argument mode.
#[derive(Clone, Copy)]
pub(super) enum Lit {
    Equals,
    Subset,
    Fuzzy(f64),
    FuzzyTokens(f64),
}

impl Lit {
    pub(super) fn of(mode: ArgsMode) -> Lit {
        match mode {
            ArgsMode::Ignore | ArgsMode::Exact => Lit::Equals,
            ArgsMode::Subset => Lit::Subset,
            ArgsMode::Fuzzy { threshold } => Lit::Fuzzy(threshold),
            ArgsMode::FuzzyTokens { threshold } => Lit::FuzzyTokens(threshold),
        }
    }
}

/// Which labels a reference may name.
#[derive(Clone, Copy)]
pub(super) enum Refs<'a> {
    /// None: references make no sense here (tool declarations).
    Forbidden,
    /// Labels of expectations before `.1` (an expectation's own constraints).
    Before(&'a HashMap<String, (usize, Span)>, usize),
    /// Every label (a `never` rule, a count of `*` or the answer, which read the calls matched to
    /// any expectation before the call they judge).
    Anywhere(&'a HashMap<String, (usize, Span)>),
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
                checks.push((pc.path, pc.check, pc.span));
            }
        }
        LoweredTool {
            name: decl.name.name.clone(),
            checks,
            file: src.name.clone(),
            known,
            known_set,
            open: decl.args.spread.is_some(),
        }
    }

    pub(super) fn path(&mut self, src: &SourceFile, segs: &[Seg]) -> Option<Path> {
        let mut out = Vec::with_capacity(segs.len());
        for s in segs {
            match s {
                Seg::Key { name, .. } => out.push(PathSeg::Key(name.clone())),
                Seg::Index(Some(i), _) => out.push(PathSeg::Index(*i)),
                Seg::Each(_) => out.push(PathSeg::Each),
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
    pub(super) fn constraint(
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
                declared: None,
            })
            .collect()
    }

    fn term(&mut self, src: &SourceFile, t: &ast::Term, lit: Lit, refs: Refs<'_>) -> Option<Check> {
        Some(match &t.kind {
            TermKind::Literal(j) => {
                let value = j.to_value();
                let text = j.exact_text(&src.text).map(Into::into);
                match (lit, value) {
                    (Lit::Equals, value) => Check::Equals { value, text },
                    (Lit::Fuzzy(threshold), Value::String(s)) => Check::Fuzzy {
                        value: s,
                        threshold,
                    },
                    (Lit::FuzzyTokens(threshold), Value::String(s)) => Check::FuzzyTokens {
                        value: s,
                        threshold,
                    },
                    (_, value) => Check::Subset { value, text },
                }
            }
            TermKind::Exact(j) => Check::Equals {
                value: j.to_value(),
                text: j.exact_text(&src.text).map(Into::into),
            },
            TermKind::Subset(j) => Check::Subset {
                value: j.to_value(),
                text: j.exact_text(&src.text).map(Into::into),
            },
            TermKind::Fuzzy(s, t) => Check::Fuzzy {
                value: s.value.clone(),
                threshold: match t {
                    Some(n) => check_threshold(src, n, &mut self.diags),
                    None => DEFAULT_FUZZY,
                },
            },
            TermKind::FuzzyTokens(s, t) => Check::FuzzyTokens {
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
                    let Ok(word) = n.name.parse::<TypeWord>() else {
                        self.diags
                            .push(unknown_word(src, "JSON type", n, TypeWord::WORDS));
                        continue;
                    };
                    let ty = match word {
                        TypeWord::Null => JsonType::Null,
                        TypeWord::Boolean => JsonType::Boolean,
                        TypeWord::Number => JsonType::Number,
                        TypeWord::Integer => JsonType::Integer,
                        TypeWord::String => JsonType::String,
                        TypeWord::Array => JsonType::Array,
                        TypeWord::Object => JsonType::Object,
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
            TermKind::Not(inner)
                if matches!(
                    inner.kind,
                    TermKind::RefOp {
                        op: ast::RefOpAst::In,
                        ..
                    }
                ) =>
            {
                return self.ref_op(src, inner, true, refs);
            }
            TermKind::RefOp { .. } => return self.ref_op(src, t, false, refs),
            TermKind::Or(alternatives) => {
                let mut checks = Vec::with_capacity(alternatives.len());
                for alt in alternatives {
                    let mut all: Vec<Check> = alt
                        .terms
                        .iter()
                        .filter_map(|t| self.term(src, t, lit, refs))
                        .collect();
                    // A term left out was reported; the alternative is then left out too.
                    if all.len() != alt.terms.len() {
                        continue;
                    }
                    checks.push(if all.len() == 1 {
                        all.pop().expect("one")
                    } else {
                        Check::AllOf { checks: all }
                    });
                }
                Check::AnyOf { checks }
            }
            TermKind::Not(inner) => Check::Not {
                check: Box::new(self.term(src, inner, lit, refs)?),
            },
            TermKind::Ref { label, part, path } => {
                if let Some(each) = each_seg(path) {
                    self.diags.push(
                        SpecDiagnostic::error(
                            Code::InvalidComparison,
                            src,
                            "a reference with `[*]` is a list of values, not one value",
                        )
                        .label(each, "collects every element")
                        .help(format!(
                            "to require one of them write `in {}`; to forbid them, `not in {}`",
                            raw(src, t.span),
                            raw(src, t.span)
                        )),
                    );
                    return None;
                }
                let path = self.path(src, path)?;
                return self.reference(src, label, *part, path, t.span, refs, RefOp::Eq);
            }
        })
    }

    /// `<= ref`, `in ref`, and (`negated`) `not in ref`: a reference with an operator; a
    /// literal after the operator is reported.
    fn ref_op(
        &mut self,
        src: &SourceFile,
        t: &ast::Term,
        negated: bool,
        refs: Refs<'_>,
    ) -> Option<Check> {
        let TermKind::RefOp { op, target } = &t.kind else {
            return None;
        };
        let op = match (op, negated) {
            (ast::RefOpAst::In, false) => RefOp::In,
            (ast::RefOpAst::In, true) => RefOp::NotIn,
            (ast::RefOpAst::Contains, _) => RefOp::Contains,
            (ast::RefOpAst::Cmp(c), _) => match c {
                ast::CmpOp::Lt => RefOp::Lt,
                ast::CmpOp::Le => RefOp::Le,
                ast::CmpOp::Gt => RefOp::Gt,
                ast::CmpOp::Ge => RefOp::Ge,
            },
        };
        let TermKind::Ref { label, part, path } = &target.kind else {
            let d = if op.is_membership() {
                SpecDiagnostic::error(
                    Code::InvalidComparison,
                    src,
                    format!("`{}` takes a reference to a value captured earlier", op.as_str()),
                )
                .label(target.span, "a literal")
                .help(format!(
                    "for a fixed list of values write `{}one_of {}`; for a captured list, `{} label.output.path[*]`",
                    if negated { "not " } else { "" },
                    raw(src, target.span),
                    op.as_str()
                ))
            } else {
                SpecDiagnostic::error(
                    Code::InvalidComparison,
                    src,
                    format!("`{}` compares numbers", op.as_str()),
                )
                .label(target.span, "not a number")
                .help(format!(
                    "write a number (`{} 100`) or a reference to a captured number (`{} label.output.max`)",
                    op.as_str(),
                    op.as_str()
                ))
            };
            self.diags.push(d);
            return None;
        };
        if !op.is_membership() {
            if let Some(each) = each_seg(path) {
                let what = if op == RefOp::Contains {
                    "looks for one value"
                } else {
                    "compares with one number"
                };
                self.diags.push(
                    SpecDiagnostic::error(
                        Code::InvalidComparison,
                        src,
                        format!("`{}` {what}, and `[*]` collects a list", op.as_str()),
                    )
                    .label(each, "collects every element")
                    .help(if op == RefOp::Contains {
                        "name the one element to look for (`[0]`)"
                    } else {
                        "name one element (`[0]`), or test membership with `in`"
                    }),
                );
                return None;
            }
        }
        let path = self.path(src, path)?;
        self.reference(src, label, *part, path, target.span, refs, op)
    }

    #[allow(clippy::too_many_arguments)]
    fn reference(
        &mut self,
        src: &SourceFile,
        label: &ast::Ident,
        part: Part,
        path: Path,
        span: Span,
        refs: Refs<'_>,
        op: RefOp,
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
            Refs::Before(labels, i) => (labels, Some(i)),
            Refs::Anywhere(labels) => (labels, None),
        };
        match labels.get(&label.name) {
            Some((idx, _)) if before.is_none_or(|b| *idx < b) => Some(Check::Ref {
                expectation: *idx,
                label: label.name.clone(),
                part,
                path,
                op,
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
                    if before.is_some() {
                        format!("no earlier expectation is labelled `{}`", label.name)
                    } else {
                        format!("no expectation is labelled `{}`", label.name)
                    },
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
    pub(super) fn arg_list(
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
}

/// The text of `span` in `src`.
fn raw(src: &SourceFile, span: Span) -> &str {
    src.text.get(span.start..span.end).unwrap_or("")
}

/// A path as a user would write it, for messages.
fn path_text(path: &Path) -> String {
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
            PathSeg::Each => s.push_str("[*]"),
        }
    }
    s
}

/// Where a reference path's first `[*]` is written, if it has one.
fn each_seg(path: &[Seg]) -> Option<Span> {
    path.iter().find_map(|s| match s {
        Seg::Each(sp) => Some(*sp),
        _ => None,
    })
}
