//! Rules: a spec's `never` and `before` statements → [`Forbidden`] and [`BeforeRule`]s.
//!
//! Input: those statements, the expectations as written (labels, and expectations by
//! normalised tool name) and the spec's order mode and name rules. Output: the config's
//! forbidden calls (with their argument constraints) and the `before` rules, each naming two
//! expectations by index. Failure: a tool both expected and forbidden, a `before` side that
//! names no single expectation (or both sides the same one), or a rule that contradicts the
//! written order of an ordered spec, each pushed to the file's diagnostics and the rule left out.

use super::constraints::{Lit, Refs};
use super::{FileCx, Written};
use crate::code::Code;
use crate::compile::suggest::did_you_mean;
use crate::config::{
    BeforeRule, Forbidden, MatcherConfig, Normaliser, OrderMode, Scope, ValueMatcher,
};
use crate::source::SourceFile;
use crate::syntax::ast::{self, StmtKind};
use crate::syntax::SpecDiagnostic;

impl FileCx {
    /// Lower the `never` rules (`nevers`, with the scope each is written in; `scopes`: each
    /// expectation's) and the `before` statements of `spec` into `cfg`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn rules(
        &mut self,
        src: &SourceFile,
        spec: &ast::Spec,
        lit: Lit,
        norm: &Normaliser,
        written: &Written<'_>,
        nevers: &[super::groups::Never<'_>],
        scopes: &[Option<Scope>],
        cfg: &mut MatcherConfig,
    ) {
        for (stmt, scope) in nevers {
            let StmtKind::Never {
                server,
                tool,
                any_tool,
                args,
                suffixes,
            } = &stmt.kind
            else {
                continue;
            };
            // A forbidden call may be compared with values captured by any expectation.
            let refs = Refs::Anywhere(&written.labels);
            let args = args.as_ref().map(|list| ValueMatcher {
                checks: self.arg_list(src, list, lit, refs, "argument"),
                allow_extra_keys: true,
            });
            let mut errored = None;
            for suf in suffixes {
                match suf {
                    ast::Suffix::Errored { value, span, .. } => {
                        if errored.replace(*value).is_some() {
                            self.diags.push(
                                SpecDiagnostic::error(
                                    Code::DuplicateSetting,
                                    src,
                                    "`errored` is set twice",
                                )
                                .label(*span, "given again here")
                                .help("keep one"),
                            );
                        }
                    }
                    ast::Suffix::Weight(_, span) => self.diags.push(
                        SpecDiagnostic::error(
                            Code::MisplacedStatement,
                            src,
                            "a `never` rule has no weight",
                        )
                        .label(*span, "remove the weight")
                        .help(
                            "a forbidden call fails the pair whatever the score; weights belong \
                             to expectations (`call …`)",
                        ),
                    ),
                }
            }
            // `never t()` forbids every call of `t`, like `never t`: then any expectation it
            // would forbid every call of is a contradiction.
            if args.as_ref().is_none_or(|a| a.checks.is_empty()) {
                let tool_norm = norm.normalise(&tool.name);
                let clash = written.exps.iter().enumerate().find(|(j, (e, _))| {
                    // A rule of one server forbids every call an expectation may match only
                    // when the expectation names that server too.
                    let same_server = server
                        .as_ref()
                        .is_none_or(|sv| e.server.as_ref().is_some_and(|es| es.name == sv.name));
                    let same_tool = *any_tool
                        || (!e.any_tool
                            && same_server
                            && norm.normalise(&e.tool.name) == tool_norm);
                    let e_errored = e.suffixes.iter().rev().find_map(|s| match s {
                        ast::Suffix::Errored { value, .. } => Some(*value),
                        ast::Suffix::Weight(..) => None,
                    });
                    same_tool
                        && errored.is_none_or(|want| e_errored == Some(want))
                        && covers(scope.as_ref(), scopes.get(*j).and_then(Option::as_ref))
                });
                if let Some((_, (e, _))) = clash {
                    let shown = if *any_tool {
                        "every tool"
                    } else {
                        tool.name.as_str()
                    };
                    self.diags.push(
                        SpecDiagnostic::error(
                            Code::ExpectedAndForbidden,
                            src,
                            if *any_tool {
                                format!(
                                    "`{}` is expected, and `never *` forbids its calls",
                                    e.tool.name
                                )
                            } else {
                                format!("`{}` is both expected and forbidden", tool.name)
                            },
                        )
                        .label(tool.span, "forbidden here")
                        .label(e.tool.span, "expected here")
                        .help(format!(
                            "remove one of them; to forbid only some calls of {}, constrain the \
                             arguments (`never {}(arg: ...)`), the error flag (`errored`) or the \
                             part of the run (a `turn` or `agent` block)",
                            if *any_tool {
                                shown.to_owned()
                            } else {
                                format!("`{shown}`")
                            },
                            tool.name
                        )),
                    );
                }
            }
            cfg.forbidden.push(Forbidden {
                tool: tool.name.clone(),
                namespace: server.as_ref().map(|s| s.name.clone()),
                any_tool: *any_tool,
                args,
                errored,
                scope: scope.clone(),
                span: stmt.span,
            });
        }
        for stmt in &spec.stmts {
            if let StmtKind::Before { first, then } = &stmt.kind {
                let a = self.resolve(src, first, written, norm);
                let b = self.resolve(src, then, written, norm);
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
                    } else if a > b
                        && cfg.order != OrderMode::AnyOrder
                        && !super::groups::in_same_parallel(cfg, a, b)
                    {
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
                        .label(written.exps[b].1, "written first")
                        .label(written.exps[a].1, "written second")
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
        }
    }

    /// The expectation a `before` rule names: a label, or a tool expected exactly once.
    fn resolve(
        &mut self,
        src: &SourceFile,
        name: &ast::Ident,
        written: &Written<'_>,
        rules: &Normaliser,
    ) -> Option<usize> {
        if let Some((i, _)) = written.labels.get(&name.name) {
            return Some(*i);
        }
        match written.by_tool.get(&rules.normalise(&name.name)) {
            Some(&(one, 1)) => Some(one),
            None => {
                // The hint compares with every label and tool: only for diagnostics shown.
                let hint = if self.diags.full(&src.name) {
                    None
                } else {
                    let mut cands: Vec<&str> = written.labels.keys().map(String::as_str).collect();
                    cands.extend(written.exps.iter().map(|(e, _)| e.tool.name.as_str()));
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
}

/// Whether every call in scope `inner` is also in scope `outer` (`None`: the whole run), so that
/// a `never` rule in `outer` forbids every call an expectation in `inner` could match.
fn covers(outer: Option<&Scope>, inner: Option<&Scope>) -> bool {
    let Some(o) = outer else { return true };
    let Some(i) = inner else { return false };
    o.turn.is_none_or(|t| i.turn == Some(t))
        && o.agent.as_ref().is_none_or(|a| i.agent.as_ref() == Some(a))
        // After an anchor: only the calls after the same anchor (the same edge of the same tool
        // or label) are sure to be after it.
        && o.after.as_ref().is_none_or(|a| {
            i.after
                .as_ref()
                .is_some_and(|b| b.edge == a.edge && b.anchor == a.anchor)
        })
}
