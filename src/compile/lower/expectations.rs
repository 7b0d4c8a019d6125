//! Expectations: a spec's `call` statements → [`Expectation`]s.
//!
//! Input: the expectations as written, the spec's argument mode and name rules, and the
//! file's `tool` declarations. Output: each expectation with its arguments and output lowered
//! (through `constraints`), the constraints of its tool's declaration added for the paths it
//! leaves unwritten, its count (`optional`, `at_least`, ..., `between`), weight and `errored`;
//! and the labels references and `before` rules name. Failure: a label used twice, a setting
//! given twice, an unusable count, or (a warning) an argument the declaration does not list,
//! each pushed to the file's diagnostics.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use super::constraints::{Lit, Refs};
use super::{check_weight, duplicate, FileCx, SpecNames};
use crate::code::Code;
use crate::compile::suggest::did_you_mean;
use crate::config::{
    ArgsMode, Check, Counted, Expectation, Limit, NameRules, Normaliser, Path, PathCheck, Repeat,
    Scope, ValueMatcher,
};
use crate::source::{SourceFile, Span};
use crate::syntax::ast::{self, Seg};
use crate::syntax::SpecDiagnostic;

impl FileCx {
    /// The labels of `exps`, for references and `before` rules: the expectation each names
    /// and where.
    pub(super) fn labels(
        &mut self,
        src: &SourceFile,
        exps: &[(&ast::Expectation, Span)],
    ) -> HashMap<String, (usize, Span)> {
        let mut labels: HashMap<String, (usize, Span)> = HashMap::new();
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
        labels
    }

    /// Lower expectation `e` (`scoped`: written inside a `turn` or `agent` block).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn expectation(
        &mut self,
        src: &SourceFile,
        names: &SpecNames<'_>,
        mode: ArgsMode,
        e: &ast::Expectation,
        span: Span,
        refs: Refs<'_>,
        scoped: bool,
    ) -> Expectation {
        let lit = Lit::of(mode);
        let (args_mode, args) = match &e.args {
            None => (ArgsMode::Ignore, ValueMatcher::any()),
            Some(ast::Body::Exact(j)) => (ArgsMode::Exact, whole_value(src, j, true)),
            Some(ast::Body::Subset(j)) => (ArgsMode::Subset, whole_value(src, j, false)),
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
            ast::OutputBody::Exact(j) => whole_value(src, j, true),
            ast::OutputBody::Subset(j) => whole_value(src, j, false),
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
            namespace: e.server.as_ref().map(|s| s.name.clone()),
            args_mode,
            args,
            output,
            errored,
            repeat: self.repeat(src, e, scoped),
            weight,
            span,
            name_span: e.tool.span,
            scope: None,
            critical: e.critical.is_some(),
        }
    }

    /// The first tool declaration of each name as `names` (indexed as `norm`) normalise it, by
    /// index into `tools`.
    pub(super) fn tool_index(
        &mut self,
        names: &NameRules,
        norm: &Normaliser,
    ) -> Rc<HashMap<String, usize>> {
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
        // A declared constraint is located at the declaration, so that a call breaking it is
        // reported where it is written (in the included file that declares the tool, if so).
        for (path, check, span) in &decl.checks {
            if !written.contains(path) {
                checks.push(PathCheck {
                    path: path.clone(),
                    check: check.clone(),
                    span: *span,
                    declared: Some(decl.file.clone()),
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

    /// A count of `*` (`at_most 1 call * errored`): a limit on the calls of any tool that satisfy
    /// its constraints, in `scope`. `None` when it cannot be one (reported).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn count(
        &mut self,
        src: &SourceFile,
        names: &SpecNames<'_>,
        mode: ArgsMode,
        e: &ast::Expectation,
        span: Span,
        scope: Option<Scope>,
        refs: Refs<'_>,
    ) -> Option<Limit> {
        let wildcard = |what: &str, at: Span, label: &str, help: &str| {
            SpecDiagnostic::error(Code::InvalidWildcard, src, what.to_owned())
                .label(at, label.to_owned())
                .help(help.to_owned())
        };
        let mut ok = true;
        if e.repeat.is_none() {
            ok = false;
            self.diags.push(wildcard(
                "`call *` needs a count",
                e.tool.span,
                "any tool, how many times?",
                "`*` counts the calls of any tool that satisfy the constraints: write a count \
                 (`at_most 3 call * errored`, `at_least 1 call *(path: present)`), or name the \
                 tool",
            ));
        }
        if let Some(l) = &e.label {
            ok = false;
            self.diags.push(wildcard(
                "a count of `*` cannot be labelled",
                l.span,
                "a count matches no call to refer to",
                "remove the label; a reference reads the call matched to an expectation of one \
                 tool",
            ));
        }
        if let Some(c) = e.critical {
            ok = false;
            self.diags.push(wildcard(
                "a count of `*` is always critical",
                c,
                "remove `critical`",
                "a count that does not hold fails the pair whatever the score",
            ));
        }
        for s in &e.suffixes {
            if let ast::Suffix::Weight(_, at) = s {
                ok = false;
                self.diags.push(wildcard(
                    "a count of `*` has no weight",
                    *at,
                    "remove the weight",
                    "a count earns no credit: it fails the pair when it does not hold, whatever \
                     the score",
                ));
            }
        }
        let x = self.expectation(src, names, mode, e, span, refs, scope.is_some());
        ok.then_some(Limit {
            counted: Counted::Matching {
                args: x.args,
                output: x.output,
                errored: x.errored,
            },
            min: x.repeat.min,
            max: x.repeat.max,
            scope,
            span,
        })
    }

    fn repeat(&mut self, src: &SourceFile, e: &ast::Expectation, scoped: bool) -> Repeat {
        let Some(r) = e.repeat.as_ref() else {
            return Repeat::ONCE;
        };
        let never = if e.any_tool {
            "never *".to_owned()
        } else {
            format!(
                "never {}",
                src.text
                    .get(e.tool.span.start..e.tool.span.end)
                    .unwrap_or("")
            )
        };
        let help = if scoped {
            format!("to say a call must not happen in this block, write `{never}` inside it")
        } else {
            format!("to say a call must not happen, write `{never}`")
        };
        let get = |this: &mut FileCx, n: &ast::Int| {
            if let Some(v) = n.value {
                Some(v)
            } else {
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
                .help(help.clone()),
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
}

/// A matcher of the whole value (arguments or output) against JSON written in the spec: equal to
/// it when `exact`, else containing it (other keys allowed).
fn whole_value(src: &SourceFile, j: &ast::Json, exact: bool) -> ValueMatcher {
    let value = j.to_value();
    let text = j.exact_text(&src.text).map(Into::into);
    ValueMatcher {
        checks: vec![PathCheck {
            path: Vec::new(),
            check: if exact {
                Check::Equals { value, text }
            } else {
                Check::Subset { value, text }
            },
            span: j.span,
            declared: None,
        }],
        allow_extra_keys: !exact,
    }
}
