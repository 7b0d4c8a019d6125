//! The names of a parsed file and where each is written: labels and the references to them,
//! `tool` declarations and the tools expectations, `never` and `before` rules name. What
//! completion, hover, definitions, references and symbols read.

use crate::source::Span;
use crate::syntax::ast::{
    ArgList, Body, Constraint, File, Item, OutputBody, Stmt, StmtKind, Term, TermKind,
};

/// What a name is where it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// `label: call ...`
    LabelDef,
    /// `label.args.x` in a constraint.
    LabelUse,
    /// `tool name(...)`
    ToolDecl,
    /// `call name`, `never name`.
    ToolUse,
    /// `a before b`, `after last a`: a label, or else a tool.
    Either,
}

/// One written name.
#[derive(Debug, Clone)]
pub(crate) struct Occ {
    pub(crate) role: Role,
    pub(crate) name: String,
    pub(crate) span: Span,
    /// The spec it is in (its place among the file's items), if any.
    pub(crate) spec: Option<usize>,
    /// For a label's definition: the tool its expectation calls; for a tool's use or
    /// declaration, the statement (expectation, rule, declaration) it is in.
    pub(crate) tool: Option<String>,
    /// The statement it is written in.
    pub(crate) stmt: Span,
}

/// Every name written in `file`, in file order.
pub(crate) fn occurrences(file: &File) -> Vec<Occ> {
    let mut out = Vec::new();
    for (i, item) in file.items.iter().enumerate() {
        match item {
            Item::Tool(t) => out.push(Occ {
                role: Role::ToolDecl,
                name: t.name.name.clone(),
                span: t.name.span,
                spec: None,
                tool: Some(t.name.name.clone()),
                stmt: t.span,
            }),
            Item::Spec(s) => {
                for st in &s.stmts {
                    stmt(st, i, &mut out);
                }
            }
            Item::Include(_) | Item::Unknown(_) => {}
        }
    }
    out.sort_by_key(|o| o.span.start);
    out
}

fn stmt(st: &Stmt, spec: usize, out: &mut Vec<Occ>) {
    let mut push = |role, name: &str, span, tool: Option<&str>| {
        out.push(Occ {
            role,
            name: name.to_owned(),
            span,
            spec: Some(spec),
            tool: tool.map(str::to_owned),
            stmt: st.span,
        });
    };
    match &st.kind {
        StmtKind::Expect(e) => {
            if let Some(l) = &e.label {
                push(
                    Role::LabelDef,
                    &l.name,
                    l.span,
                    (!e.any_tool).then_some(&*e.tool.name),
                );
            }
            if !e.any_tool {
                push(Role::ToolUse, &e.tool.name, e.tool.span, Some(&e.tool.name));
            }
            if let Some(Body::List(list)) = &e.args {
                args(list, st, spec, out);
            }
            match &e.output {
                Some(OutputBody::Fields(list)) => args(list, st, spec, out),
                Some(OutputBody::Value(c)) => constraint(c, st, spec, out),
                _ => {}
            }
        }
        StmtKind::Never {
            tool,
            any_tool,
            args: list,
            ..
        } => {
            if !any_tool {
                push(Role::ToolUse, &tool.name, tool.span, Some(&tool.name));
            }
            if let Some(list) = list {
                args(list, st, spec, out);
            }
        }
        StmtKind::Before { first, then } => {
            push(Role::Either, &first.name, first.span, None);
            push(Role::Either, &then.name, then.span, None);
        }
        StmtKind::Scope { scope, body } => {
            if let crate::syntax::ast::ScopeAst::After { anchor, .. } = scope {
                push(Role::Either, &anchor.name, anchor.span, None);
            }
            for s in body {
                stmt(s, spec, out);
            }
        }
        StmtKind::Answer(c) => constraint(c, st, spec, out),
        StmtKind::Either(e) => {
            for b in &e.branches {
                for s in &b.stmts {
                    stmt(s, spec, out);
                }
            }
        }
        StmtKind::Parallel(p) => {
            for s in &p.body.stmts {
                stmt(s, spec, out);
            }
        }
        _ => {}
    }
}

fn args(list: &ArgList, st: &Stmt, spec: usize, out: &mut Vec<Occ>) {
    for a in &list.args {
        constraint(&a.constraint, st, spec, out);
    }
}

fn constraint(c: &Constraint, st: &Stmt, spec: usize, out: &mut Vec<Occ>) {
    for t in &c.terms {
        term(t, st, spec, out);
    }
}

fn term(t: &Term, st: &Stmt, spec: usize, out: &mut Vec<Occ>) {
    match &t.kind {
        TermKind::Ref { label, .. } => out.push(Occ {
            role: Role::LabelUse,
            name: label.name.clone(),
            span: label.span,
            spec: Some(spec),
            tool: None,
            stmt: st.span,
        }),
        TermKind::RefOp { target, .. } | TermKind::Not(target) => term(target, st, spec, out),
        TermKind::Or(cs) => {
            for c in cs {
                constraint(c, st, spec, out);
            }
        }
        _ => {}
    }
}

/// What the name `occ` stands for: the label of its spec it names, else the tool.
pub(crate) fn target<'o>(occs: &'o [Occ], occ: &'o Occ) -> Target<'o> {
    let label = |name: &str| {
        occs.iter()
            .find(|o| o.role == Role::LabelDef && o.spec == occ.spec && o.name == name)
    };
    match occ.role {
        Role::LabelDef => Target::Label(occ.spec, occ.name.clone(), Some(occ)),
        Role::LabelUse => Target::Label(occ.spec, occ.name.clone(), label(&occ.name)),
        Role::Either => match label(&occ.name) {
            Some(def) => Target::Label(occ.spec, occ.name.clone(), Some(def)),
            None => Target::Tool(occ.name.clone()),
        },
        Role::ToolDecl | Role::ToolUse => Target::Tool(occ.name.clone()),
    }
}

/// A label (of a spec, with its definition if there is one) or a tool.
#[derive(Debug, Clone)]
pub(crate) enum Target<'o> {
    Label(Option<usize>, String, Option<&'o Occ>),
    Tool(String),
}

impl Target<'_> {
    /// Whether `occ` names this.
    pub(crate) fn named_by(&self, occs: &[Occ], occ: &Occ) -> bool {
        match (self, target(occs, occ)) {
            (Target::Label(s, n, _), Target::Label(s2, n2, _)) => *s == s2 && *n == n2,
            (Target::Tool(n), Target::Tool(n2)) => *n == n2,
            _ => false,
        }
    }
}

/// The name written at byte `at` (or just before it).
pub(crate) fn at(occs: &[Occ], at: usize) -> Option<&Occ> {
    occs.iter().find(|o| o.span.start <= at && at <= o.span.end)
}
