//! Counts written as statements: `total_calls <= 20` and `agent "researcher" runs <= 2` →
//! [`Limit`]s, in the scope of the blocks around them.
//!
//! Input: the statement, its scope. Output: the limit (`==`: exactly; `>=`, `>`: at least;
//! `<=`, `<`: at most). Failure: a count too large, or `< 0`, which no count can be
//! (`invalid-number`), pushed to the file's diagnostics and the statement left out.

use super::FileCx;
use crate::code::Code;
use crate::config::{Counted, Limit, Scope};
use crate::source::SourceFile;
use crate::syntax::ast::{self, StmtKind};
use crate::syntax::SpecDiagnostic;

impl FileCx {
    /// Lower `total_calls OP N` or `agent "A" runs OP N` written at `st`, in `scope`.
    pub(super) fn limit(
        &mut self,
        src: &SourceFile,
        st: &ast::Stmt,
        scope: Option<Scope>,
    ) -> Option<Limit> {
        let (counted, op, count) = match &st.kind {
            StmtKind::TotalCalls { op, count } => (Counted::Calls, op, count),
            StmtKind::AgentRuns { agent, op, count } => {
                if agent.value.is_empty() {
                    self.diags.push(
                        SpecDiagnostic::error(Code::InvalidNumber, src, "an agent name is empty")
                            .label(agent.span, "empty")
                            .help("name the sub-agent as the transcript records it"),
                    );
                    return None;
                }
                (
                    Counted::AgentRuns {
                        agent: agent.value.clone(),
                    },
                    op,
                    count,
                )
            }
            _ => return None,
        };
        let Some(n) = count.value else {
            self.diags.push(
                SpecDiagnostic::error(Code::InvalidNumber, src, "count too large")
                    .label(count.span, "does not fit in 32 bits")
                    .help("counts go up to 4294967295"),
            );
            return None;
        };
        let (min, max) = match op.name.as_str() {
            "==" => (n, Some(n)),
            ">=" => (n, None),
            ">" => (n.saturating_add(1), None),
            "<=" => (0, Some(n)),
            _ => {
                let Some(m) = n.checked_sub(1) else {
                    self.diags.push(
                        SpecDiagnostic::error(Code::InvalidNumber, src, "no count is below 0")
                            .label(st.span, "can never hold")
                            .help("to say none may happen, write `== 0` (or `<= 0`)"),
                    );
                    return None;
                };
                (0, Some(m))
            }
        };
        Some(Limit {
            counted,
            min,
            max,
            scope,
            span: st.span,
        })
    }
}
