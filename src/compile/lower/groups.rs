//! Groups: a spec's `either` and `parallel` blocks → the flat list of its expectations and the
//! [`Group`]s that name them.
//!
//! Input: the spec's statements. Output: every expectation in written order (those inside
//! blocks included, so that labels, references and `before` rules index one list), the groups
//! (an enclosing block before the blocks inside it), and for each expectation the `either`
//! branch it belongs to. Failure (`invalid-group`): a statement other than an expectation or a
//! `parallel` block inside a block, an `either` with fewer than two branches, an empty block, an
//! `either` inside another block, a `parallel` inside a `parallel`; (`too-many-arrangements`) more
//! arrangements than the engine tries; (`unknown-reference`) a reference to a label of another
//! branch of the same `either`, which is never chosen together with it.

use super::FileCx;
use crate::code::Code;
use crate::config::{Check, Group, GroupKind, MatcherConfig, Scope, MAX_ARRANGEMENTS};
use crate::source::{SourceFile, Span};
use crate::syntax::ast::{self, Stmt, StmtKind};
use crate::syntax::SpecDiagnostic;

/// A spec's expectations flattened, with its groups.
pub(super) struct Flat<'s> {
    /// Each expectation and its statement's span, in written order.
    pub(super) exps: Vec<(&'s ast::Expectation, Span)>,
    /// The groups, an enclosing block before the blocks inside it.
    pub(super) groups: Vec<Group>,
    /// Per expectation: the `either` group (index into `groups`) and branch it is in.
    pub(super) branch_of: Vec<Option<(usize, usize)>>,
    /// Per expectation: the scope of the `turn` and `agent` blocks around it.
    pub(super) scopes: Vec<Option<Scope>>,
}

/// Where a statement is written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Directly in the spec.
    Spec,
    /// In a branch of `either` group `.0`, branch `.1`.
    Branch(usize, usize),
    /// In a `parallel` block (itself perhaps in a branch).
    Parallel(Option<(usize, usize)>),
}

impl Place {
    fn branch(self) -> Option<(usize, usize)> {
        match self {
            Place::Spec => None,
            Place::Branch(g, b) => Some((g, b)),
            Place::Parallel(b) => b,
        }
    }

    fn block(self) -> &'static str {
        match self {
            Place::Spec => "the spec",
            Place::Branch(..) => "an `either` block",
            Place::Parallel(_) => "a `parallel` block",
        }
    }
}

impl FileCx {
    /// Flatten `stmts` (a spec's), reporting what does not belong in a block.
    pub(super) fn flatten<'s>(&mut self, src: &SourceFile, stmts: &'s [Stmt]) -> Flat<'s> {
        let mut flat = Flat {
            exps: Vec::new(),
            groups: Vec::new(),
            branch_of: Vec::new(),
            scopes: Vec::new(),
        };
        self.walk(src, stmts, Place::Spec, None, &mut flat);
        flat
    }

    fn walk<'s>(
        &mut self,
        src: &SourceFile,
        stmts: &'s [Stmt],
        at: Place,
        scope: Option<&Scope>,
        flat: &mut Flat<'s>,
    ) {
        for st in stmts {
            match &st.kind {
                StmtKind::Expect(e) => {
                    flat.exps.push((e, st.span));
                    flat.branch_of.push(at.branch());
                    flat.scopes.push(scope.cloned());
                }
                StmtKind::Scope { scope: s, body } => {
                    let inner = self.narrow(src, scope, s);
                    self.walk(src, body, at, Some(&inner), flat);
                }
                StmtKind::Either(x) => {
                    if at != Place::Spec {
                        self.diags.push(
                            SpecDiagnostic::error(
                                Code::InvalidGroup,
                                src,
                                format!("an `either` block cannot be inside {}", at.block()),
                            )
                            .label(x.keyword, "nested here")
                            .help(
                                "write the alternatives as separate branches of one `either` at \
                                 the top of the spec (a branch may hold a `parallel` block)",
                            ),
                        );
                        // Its expectations still count as written here, so that nothing else
                        // is reported about them.
                        for b in &x.branches {
                            self.walk(src, &b.stmts, at, scope, flat);
                        }
                        continue;
                    }
                    if x.branches.len() < 2 {
                        self.diags.push(
                            SpecDiagnostic::error(
                                Code::InvalidGroup,
                                src,
                                "an `either` block needs at least two branches",
                            )
                            .label(x.keyword, "only one branch")
                            .help(
                                "add `or { … }` with the other path, or write the expectations \
                                 without `either`",
                            ),
                        );
                    }
                    let g = flat.groups.len();
                    flat.groups.push(Group {
                        kind: GroupKind::Either {
                            branches: Vec::new(),
                        },
                        critical: x.critical.is_some(),
                        span: st.span,
                    });
                    let mut branches = Vec::with_capacity(x.branches.len());
                    for (b, block) in x.branches.iter().enumerate() {
                        let first = flat.exps.len();
                        self.walk(src, &block.stmts, Place::Branch(g, b), scope, flat);
                        if block.stmts.is_empty() {
                            self.empty(src, block.span, "an `either` branch");
                        }
                        branches.push((first..flat.exps.len()).collect());
                    }
                    flat.groups[g].kind = GroupKind::Either { branches };
                }
                StmtKind::Parallel(x) => {
                    if let Place::Parallel(_) = at {
                        self.diags.push(
                            SpecDiagnostic::error(
                                Code::InvalidGroup,
                                src,
                                "a `parallel` block cannot be inside another `parallel` block",
                            )
                            .label(x.keyword, "nested here")
                            .help("its calls are already in any order: remove the inner block"),
                        );
                        self.walk(src, &x.body.stmts, at, scope, flat);
                        continue;
                    }
                    let g = flat.groups.len();
                    flat.groups.push(Group {
                        kind: GroupKind::Parallel {
                            members: Vec::new(),
                        },
                        critical: x.critical.is_some(),
                        span: st.span,
                    });
                    let first = flat.exps.len();
                    self.walk(
                        src,
                        &x.body.stmts,
                        Place::Parallel(at.branch()),
                        scope,
                        flat,
                    );
                    if x.body.stmts.is_empty() {
                        self.empty(src, x.body.span, "a `parallel` block");
                    }
                    flat.groups[g].kind = GroupKind::Parallel {
                        members: (first..flat.exps.len()).collect(),
                    };
                }
                StmtKind::Unknown(u) if at != Place::Spec => self.unknown_stmt(src, u),
                StmtKind::Unknown(u) if scope.is_some() => self.unknown_in_scope(src, u),
                _ if at != Place::Spec => {
                    let word = src.text[st.span.start..st.span.end]
                        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .next()
                        .unwrap_or("");
                    self.diags.push(
                        SpecDiagnostic::error(
                            Code::InvalidGroup,
                            src,
                            format!("`{word}` cannot be written inside {}", at.block()),
                        )
                        .label(st.span, "not an expectation")
                        .help(
                            "a block holds expectations (`call …`) and, in an `either` branch, \
                             `parallel` blocks; settings, `never` and `before` rules hold for the \
                             whole spec: write them outside the block",
                        ),
                    );
                }
                _ => {}
            }
        }
    }

    fn empty(&mut self, src: &SourceFile, span: Span, what: &str) {
        self.diags.push(
            SpecDiagnostic::error(Code::InvalidGroup, src, format!("{what} is empty"))
                .label(span, "no expectation here")
                .help(
                    "write at least one `call` in it; for a call that may or may not happen, \
                     write `optional call …`",
                ),
        );
    }

    /// What can only be checked once the spec is lowered: the number of arrangements, and
    /// references between branches of one `either`.
    pub(super) fn check_groups(
        &mut self,
        src: &SourceFile,
        spec: &ast::Spec,
        branch_of: &[Option<(usize, usize)>],
        cfg: &MatcherConfig,
    ) {
        if cfg.groups.is_empty() {
            return;
        }
        let count = cfg.arrangements();
        if count > MAX_ARRANGEMENTS {
            let shown = if count == u128::MAX {
                "more than 10³⁸".to_owned()
            } else {
                count.to_string()
            };
            // Point at the largest parallel block, or the first block.
            let widest = cfg
                .groups
                .iter()
                .max_by_key(|g| match &g.kind {
                    GroupKind::Parallel { members } => members.len(),
                    GroupKind::Either { .. } => 0,
                })
                .map_or(spec.name.span, |g| g.span);
            self.diags.push(
                SpecDiagnostic::error(
                    Code::TooManyArrangements,
                    src,
                    format!(
                        "spec `{}` has {shown} arrangements of its `either` and `parallel` \
                         blocks; the engine tries at most {MAX_ARRANGEMENTS}",
                        spec.name.name
                    ),
                )
                .label(widest, "this block multiplies the arrangements")
                .help(
                    "each order of a `parallel` block's members and each choice of branch is one \
                     alignment of the whole spec: split a large `parallel` block (6 members at \
                     most), or the spec",
                ),
            );
        }
        for (i, e) in cfg.expectations.iter().enumerate() {
            let Some((g, b)) = branch_of.get(i).copied().flatten() else {
                continue;
            };
            for pc in e
                .args
                .checks
                .iter()
                .chain(e.output.iter().flat_map(|o| &o.checks))
            {
                let mut bad: Option<&str> = None;
                walk_refs(&pc.check, &mut |k, label| {
                    if matches!(branch_of.get(k).copied().flatten(), Some((g2, b2)) if g2 == g && b2 != b)
                    {
                        bad.get_or_insert(label);
                    }
                });
                if let Some(label) = bad {
                    self.diags.push(
                        SpecDiagnostic::error(
                            Code::UnknownReference,
                            src,
                            format!(
                                "`{label}` is in another branch of the same `either` block: the \
                                 two branches are never chosen together"
                            ),
                        )
                        .label(pc.span, "refers to the other branch")
                        .help(
                            "refer to a label written before the `either` block, or in the same \
                             branch",
                        ),
                    );
                }
            }
        }
    }
}

/// Whether expectations `a` and `b` are members of one `parallel` block (whose members have no
/// written order, so a `before` rule between them contradicts nothing).
pub(super) fn in_same_parallel(cfg: &MatcherConfig, a: usize, b: usize) -> bool {
    cfg.groups.iter().any(|g| {
        matches!(&g.kind, GroupKind::Parallel { members } if members.contains(&a) && members.contains(&b))
    })
}

/// Every reference inside `c`: (expectation, label).
fn walk_refs<'c>(c: &'c Check, f: &mut dyn FnMut(usize, &'c str)) {
    match c {
        Check::Ref {
            expectation, label, ..
        } => f(*expectation, label),
        Check::Not { check } => walk_refs(check, f),
        Check::AllOf { checks } | Check::AnyOf { checks } => {
            for c in checks {
                walk_refs(c, f);
            }
        }
        _ => {}
    }
}
