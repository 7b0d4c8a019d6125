//! Scopes and the answer: `turn N { … }`, `turn last { … }`, `agent "name" { … }` blocks →
//! the [`Scope`] of each expectation inside them; `answer C` → the spec's [`AnswerCheck`].
//!
//! Input: a scope block's selector and the scope around it (the walk over a spec's blocks is
//! `groups.rs`). Output: the scope of the expectations inside (blocks nest: `agent "x" { turn
//! 2 { … } }` is both), and the lowered answer constraint. Failure: a `turn` inside a `turn` (or an `agent` inside an
//! `agent`), a turn number that is 0 or too large, an empty agent name, an unknown word inside
//! a block, a second `answer`; each pushed to the file's diagnostics.

use super::constraints::{Lit, Refs};
use super::{duplicate, unknown_word, FileCx};
use crate::code::Code;
use crate::config::{AnswerCheck, Scope, TurnSel, ValueMatcher};
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
        let mut scope = outer.cloned().unwrap_or(Scope {
            turn: None,
            turn_span: Span::default(),
            agent: None,
            agent_span: Span::default(),
        });
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
        }
        scope
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
