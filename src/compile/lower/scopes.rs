//! Scopes and the answer: `turn N { … }`, `turn last { … }`, `agent "name" { … }`, `after last
//! tool { … }` blocks → the [`Scope`] of each expectation (`never` rule, count) inside them;
//! `answer C` → the spec's [`AnswerCheck`].
//!
//! Input: a scope block's selector and the scope around it (the walk over a spec's blocks is
//! `groups.rs`). Output: the scope of the statements inside (blocks nest: `agent "x" { turn
//! 2 { … } }` is both), an `after` block's anchor resolved to a label where it names one, and
//! the lowered answer constraint. Failure: a `turn` inside a `turn` (an `agent` inside an
//! `agent`, an `after` inside an `after`), a turn number that is 0 or too large, an empty agent
//! name, an `after` anchored on a label written after it, an unknown word inside a block, a
//! second `answer`; each pushed to the file's diagnostics.

use std::collections::HashMap;

use super::constraints::{Lit, Refs};
use super::{duplicate, unknown_word, FileCx};
use crate::code::Code;
use crate::config::{After, Anchor, AnswerCheck, Edge, Scope, TurnSel, ValueMatcher};
use crate::source::{SourceFile, Span};
use crate::syntax::ast::{self, ScopeAst, Stmt, StmtKind};
use crate::syntax::words::Keyword;
use crate::syntax::SpecDiagnostic;

impl FileCx {
    /// An unknown word at the start of a statement inside a `turn` or `agent` block.
    pub(super) fn unknown_in_scope(&mut self, src: &SourceFile, u: &ast::Unknown) {
        let known: Vec<&str> = Keyword::scope_statements().map(Keyword::as_str).collect();
        let mut d = unknown_word(src, "statement", &u.word, &known);
        d.message = format!("unknown keyword `{}`", u.word.name);
        d.help = Some(
            "a `turn` or `agent` block holds expectations (`call …`, with a count or a label), \
             `either` and `parallel` blocks, and nested `turn` or `agent` blocks"
                .into(),
        );
        self.diags.push(d);
    }

    /// The scope of a block written inside `outer` (`None`: at the spec's top level).
    pub(super) fn narrow(
        &mut self,
        src: &SourceFile,
        outer: Option<&Scope>,
        s: &ScopeAst,
    ) -> Scope {
        let mut scope = outer.cloned().unwrap_or_default();
        let nested = |what: &str, first: Span, again: Span| {
            SpecDiagnostic::error(
                Code::NestedScope,
                src,
                format!(
                    "{} `{what}` block inside another `{what}` block",
                    if what == "agent" { "an" } else { "a" }
                ),
            )
            .label(again, "inner block")
            .label(first, "enclosing block")
            .help(format!(
                "a call belongs to one {what}; nest {} block instead, or write the blocks \
                 side by side",
                if what == "turn" {
                    "an `agent`"
                } else {
                    "a `turn`"
                }
            ))
        };
        match s {
            ScopeAst::Turn(_) | ScopeAst::LastTurn(_) => {
                if scope.turn.is_some() {
                    self.diags.push(nested("turn", scope.turn_span, s.span()));
                }
                let sel = match s {
                    ScopeAst::Turn(n) => match n.value {
                        Some(v) if v >= 1 => TurnSel::Nth(v),
                        _ => {
                            self.diags.push(
                                SpecDiagnostic::error(
                                    Code::InvalidNumber,
                                    src,
                                    "a turn number is 1 or more",
                                )
                                .label(n.span, "not a usable turn number")
                                .help(
                                    "turns are numbered from 1 (the first user message); \
                                     `turn last` is the last",
                                ),
                            );
                            TurnSel::Nth(1)
                        }
                    },
                    _ => TurnSel::Last(crate::config::LastTurn::Last),
                };
                scope.turn = Some(sel);
                scope.turn_span = s.span();
            }
            ScopeAst::Agent(name) => {
                if scope.agent.is_some() {
                    self.diags
                        .push(nested("agent", scope.agent_span, name.span));
                }
                if name.value.is_empty() {
                    self.diags.push(
                        SpecDiagnostic::error(Code::InvalidNumber, src, "an agent name is empty")
                            .label(name.span, "empty")
                            .help("name the sub-agent as the transcript records it"),
                    );
                }
                scope.agent = Some(name.value.clone());
                scope.agent_span = name.span;
            }
            ScopeAst::After { last, anchor, .. } => {
                if let Some(outer) = &scope.after {
                    self.diags.push(
                        SpecDiagnostic::error(
                            Code::NestedScope,
                            src,
                            "an `after` block inside another `after` block",
                        )
                        .label(anchor.span, "inner block")
                        .label(outer.span, "enclosing block")
                        .help(
                            "a block starts after one call: write the blocks side by side, or \
                             order the calls inside with a `before` rule",
                        ),
                    );
                }
                // A tool until the labels are known (`FileCx::anchor_labels`).
                scope.after = Some(After {
                    edge: if *last { Edge::Last } else { Edge::First },
                    anchor: Anchor::Tool {
                        tool: anchor.name.clone(),
                    },
                    span: anchor.span,
                });
            }
        }
        scope
    }

    /// The `after` anchors that name a label: the anchor becomes that labelled expectation,
    /// which must be written before the block (`at`: per `after` block, by where its anchor is
    /// written, how many expectations are written before it).
    pub(super) fn anchor_labels<'a>(
        &mut self,
        src: &SourceFile,
        scopes: impl Iterator<Item = &'a mut Scope>,
        labels: &HashMap<String, (usize, Span)>,
        at: &[(Span, usize)],
    ) {
        let mut reported = std::collections::HashSet::new();
        for scope in scopes {
            let Some(after) = &mut scope.after else {
                continue;
            };
            let Anchor::Tool { tool } = &after.anchor else {
                continue;
            };
            let Some(&(idx, label_at)) = labels.get(tool) else {
                continue;
            };
            let before = at
                .iter()
                .find(|(span, _)| *span == after.span)
                .map_or(usize::MAX, |&(_, n)| n);
            if idx >= before {
                if reported.insert(after.span) {
                    self.diags.push(
                        SpecDiagnostic::error(
                            Code::UnknownReference,
                            src,
                            format!(
                                "`{tool}` labels an expectation written after this `after` block \
                                 begins"
                            ),
                        )
                        .label(after.span, "a label of a later expectation")
                        .label(label_at, "labelled here")
                        .help(
                            "an `after` block reads the calls matched to a label written before \
                             it: move the labelled `call` above the block, or rename the label to \
                             anchor the block on the tool",
                        ),
                    );
                }
                continue;
            }
            after.anchor = Anchor::Label {
                expectation: idx,
                label: tool.clone(),
            };
        }
    }

    /// The spec's `answer` statement, lowered (a second one is a diagnostic; the first counts).
    /// Its constraint may refer to any labelled expectation.
    pub(super) fn answer(
        &mut self,
        src: &SourceFile,
        stmts: &[Stmt],
        lit: Lit,
        refs: Refs<'_>,
    ) -> Option<AnswerCheck> {
        let mut first: Option<(AnswerCheck, Span)> = None;
        for st in stmts {
            let StmtKind::Answer(c) = &st.kind else {
                continue;
            };
            if let Some((_, at)) = &first {
                self.diags.push(duplicate(
                    src,
                    Code::DuplicateSetting,
                    "`answer` is given twice".into(),
                    *at,
                    st.span,
                    "join the constraints with `and` in one `answer` statement",
                ));
                continue;
            }
            let checks = self.constraint(src, c, lit, refs, &Vec::new(), c.span);
            let matcher = ValueMatcher {
                checks,
                allow_extra_keys: true,
            };
            first = Some((
                AnswerCheck {
                    matcher,
                    span: st.span,
                },
                st.span,
            ));
        }
        first.map(|(a, _)| a)
    }
}
