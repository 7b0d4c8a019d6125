//! The canonical printer behind `toolspec fmt`.
//!
//! Decisions: two-space indentation; one statement per line; a blank line around every spec
//! block; other blank lines kept (runs collapsed to one); literals (strings, numbers, regexes,
//! paths) printed as written, so escapes and number spellings survive; punctuation and spacing
//! canonical (`a: 1, b: 2`, `{ field: v }` for output fields, `{"k": v}` for JSON objects,
//! `score { exact 1, name_only 0.5 }`); `...` printed last in its list; a call longer than
//! 100 columns gets one argument per line. Comments stay: a comment after a statement on the
//! same line stays there; a comment inside a statement moves to the line before it.

use super::ast::{
    ArgList, Block, Body, Comment, Constraint, Expectation, File, Int, Item, Json, JsonKind,
    NameOpt, OutputBody, RefOpAst, RepeatKind, ScopeAst, Spec, Stmt, StmtKind, Suffix, Term,
    TermKind,
};
use crate::source::Span;

const WIDTH: usize = 100;
const INDENT: &str = "  ";

struct Printer<'t> {
    text: &'t str,
    out: Vec<String>,
}

/// Where a comment goes relative to the elements of a block.
struct Placed<'c> {
    leading: Vec<Vec<&'c Comment>>,
    inner: Vec<Vec<&'c Comment>>,
    trailing: Vec<Option<&'c Comment>>,
    end: Vec<&'c Comment>,
}

fn place<'c>(text: &str, spans: &[Span], comments: &[&'c Comment]) -> Placed<'c> {
    let n = spans.len();
    let mut p = Placed {
        leading: vec![Vec::new(); n],
        inner: vec![Vec::new(); n],
        trailing: vec![None; n],
        end: Vec::new(),
    };
    // The spans are in source order and do not overlap, so each lookup is a binary search
    // (a linear one per comment made 40 000 comments among 40 000 statements quadratic).
    for c in comments {
        let before = spans.partition_point(|s| s.start < c.span.start);
        if let Some(i) = before
            .checked_sub(1)
            .filter(|&i| c.span.start < spans[i].end)
        {
            p.inner[i].push(c);
            continue;
        }
        let prev = spans
            .partition_point(|s| s.end <= c.span.start)
            .checked_sub(1);
        if let Some(i) = prev {
            if !text[spans[i].end..c.span.start].contains('\n') && p.trailing[i].is_none() {
                p.trailing[i] = Some(c);
                continue;
            }
        }
        match spans.partition_point(|s| s.start < c.span.end) {
            i if i < n => p.leading[i].push(c),
            _ => p.end.push(c),
        }
    }
    p
}

fn blank_between(text: &str, from: usize, to: usize) -> bool {
    from < to && text[from..to].matches('\n').count() >= 2
}

impl<'t> Printer<'t> {
    fn raw(&self, span: Span) -> &'t str {
        &self.text[span.start..span.end]
    }

    fn json(&self, j: &Json) -> String {
        match &j.kind {
            JsonKind::Array(items) => {
                let parts: Vec<String> = items.iter().map(|i| self.json(i)).collect();
                format!("[{}]", parts.join(", "))
            }
            JsonKind::Object(members) => {
                let parts: Vec<String> = members
                    .iter()
                    .map(|(k, v)| format!("{}: {}", self.raw(k.span), self.json(v)))
                    .collect();
                format!("{{{}}}", parts.join(", "))
            }
            _ => self.raw(j.span).to_owned(),
        }
    }

    fn term(&self, t: &Term) -> String {
        match &t.kind {
            TermKind::Literal(j) => self.json(j),
            TermKind::Exact(j) => format!("exact {}", self.json(j)),
            TermKind::Subset(j) => format!("subset {}", self.json(j)),
            TermKind::Fuzzy(s, th) => match th {
                Some(n) => format!("fuzzy {} >= {}", self.raw(s.span), self.raw(n.span)),
                None => format!("fuzzy {}", self.raw(s.span)),
            },
            TermKind::FuzzyTokens(s, th) => match th {
                Some(n) => format!("fuzzy tokens {} >= {}", self.raw(s.span), self.raw(n.span)),
                None => format!("fuzzy tokens {}", self.raw(s.span)),
            },
            TermKind::Regex { .. } | TermKind::Ref { .. } => self.raw(t.span).to_owned(),
            TermKind::Range {
                min,
                max,
                inclusive,
            } => format!(
                "{}{}{}",
                min.as_ref().map_or("", |n| self.raw(n.span)),
                if *inclusive { "..=" } else { ".." },
                max.as_ref().map_or("", |n| self.raw(n.span)),
            ),
            TermKind::Cmp(op, n) => format!("{} {}", op.as_str(), self.raw(n.span)),
            TermKind::Type(names) => {
                let names: Vec<&str> = names.iter().map(|n| self.raw(n.span)).collect();
                format!("type {}", names.join("|"))
            }
            TermKind::OneOf(items) => {
                let parts: Vec<String> = items.iter().map(|i| self.json(i)).collect();
                format!("one_of [{}]", parts.join(", "))
            }
            TermKind::Contains(j) => format!("contains {}", self.json(j)),
            TermKind::Present => "present".into(),
            TermKind::Absent => "absent".into(),
            TermKind::Any => "any".into(),
            TermKind::Not(inner) => format!("not {}", self.term(inner)),
            TermKind::RefOp { op, target } => match op {
                RefOpAst::Cmp(c) => format!("{} {}", c.as_str(), self.term(target)),
                RefOpAst::In => format!("in {}", self.term(target)),
                RefOpAst::Contains => format!("contains {}", self.term(target)),
            },
            TermKind::Or(alternatives) => {
                let parts: Vec<String> = alternatives.iter().map(|c| self.constraint(c)).collect();
                parts.join(" or ")
            }
        }
    }

    fn constraint(&self, c: &Constraint) -> String {
        let parts: Vec<String> = c.terms.iter().map(|t| self.term(t)).collect();
        parts.join(" and ")
    }

    fn items(&self, list: &ArgList) -> Vec<String> {
        let mut items: Vec<String> = list
            .args
            .iter()
            .map(|a| {
                format!(
                    "{}: {}",
                    self.raw(a.path.span),
                    self.constraint(&a.constraint)
                )
            })
            .collect();
        if list.spread.is_some() {
            items.push("...".into());
        }
        items
    }

    /// `(a: 1, b: 2)`, or one item per line when `multi`.
    fn list(&self, list: &ArgList, open: &str, close: &str, pad: bool, multi: bool) -> String {
        let items = self.items(list);
        if items.is_empty() {
            return format!("{open}{close}");
        }
        if multi {
            let mut s = format!("{open}\n");
            for i in items {
                s.push_str(&format!("{INDENT}{i},\n"));
            }
            s.push_str(close);
            s
        } else if pad {
            format!("{open} {} {close}", items.join(", "))
        } else {
            format!("{open}{}{close}", items.join(", "))
        }
    }

    fn expectation(&self, e: &Expectation, multi_args: bool, multi_out: bool) -> String {
        let mut s = String::new();
        if let Some(l) = &e.label {
            s.push_str(&format!("{}: ", self.raw(l.span)));
        }
        if e.critical.is_some() {
            s.push_str("critical ");
        }
        if let Some(r) = &e.repeat {
            let int = |i: &Int| self.raw(i.span);
            s.push_str(&match &r.kind {
                RepeatKind::Optional => "optional ".to_owned(),
                RepeatKind::AtLeast(n) => format!("at_least {} ", int(n)),
                RepeatKind::AtMost(n) => format!("at_most {} ", int(n)),
                RepeatKind::Exactly(n) => format!("exactly {} ", int(n)),
                RepeatKind::Between(a, b) => format!("between {} and {} ", int(a), int(b)),
            });
        }
        s.push_str("call ");
        if let Some(server) = &e.server {
            s.push_str(self.raw(server.span));
            s.push_str("::");
        }
        s.push_str(self.raw(e.tool.span));
        match &e.args {
            None => {}
            Some(Body::List(l)) => s.push_str(&self.list(l, "(", ")", false, multi_args)),
            Some(Body::Exact(j)) => s.push_str(&format!(" exact {}", self.json(j))),
            Some(Body::Subset(j)) => s.push_str(&format!(" subset {}", self.json(j))),
        }
        if let Some(o) = &e.output {
            s.push_str(" -> ");
            s.push_str(&match o {
                OutputBody::Fields(l) => self.list(l, "{", "}", true, multi_out),
                OutputBody::Exact(j) => format!("exact {}", self.json(j)),
                OutputBody::Subset(j) => format!("subset {}", self.json(j)),
                OutputBody::Value(c) => self.constraint(c),
            });
        }
        s.push_str(&self.suffixes(&e.suffixes));
        s
    }

    /// ` errored [true|false]`, ` weight w`, in order.
    fn suffixes(&self, suffixes: &[Suffix]) -> String {
        let mut s = String::new();
        for suf in suffixes {
            match suf {
                Suffix::Errored { value, written, .. } => {
                    s.push_str(" errored");
                    if *written {
                        s.push_str(if *value { " true" } else { " false" });
                    }
                }
                Suffix::Weight(n, _) => s.push_str(&format!(" weight {}", self.raw(n.span))),
            }
        }
        s
    }

    fn too_wide(s: &str, indent: usize) -> bool {
        s.lines().any(|l| indent + l.chars().count() > WIDTH)
    }

    fn stmt(&self, st: &Stmt, indent: usize) -> String {
        let raw = |sp: Span| self.raw(sp);
        match &st.kind {
            StmtKind::Transcripts(globs) => {
                let g: Vec<&str> = globs.iter().map(|g| raw(g.span)).collect();
                format!("transcripts {}", g.join(", "))
            }
            StmtKind::Format(f) => format!("format {}", raw(f.span)),
            StmtKind::Order(m) => format!("order {}", raw(m.span)),
            StmtKind::Args { mode, threshold } => match threshold {
                Some(t) => format!("args {} >= {}", raw(mode.span), raw(t.span)),
                None => format!("args {}", raw(mode.span)),
            },
            StmtKind::ArgsTokens { mode, threshold } => match threshold {
                Some(t) => format!("args {} tokens >= {}", raw(mode.span), raw(t.span)),
                None => format!("args {} tokens", raw(mode.span)),
            },
            StmtKind::Names(opts) => {
                let o: Vec<String> = opts
                    .iter()
                    .map(|o| match o {
                        NameOpt::Flag(f) => raw(f.span).to_owned(),
                        NameOpt::Strip(s) => format!("strip {}", raw(s.span)),
                    })
                    .collect();
                format!("names {}", o.join(", "))
            }
            StmtKind::Threshold(n) => format!("threshold {}", raw(n.span)),
            StmtKind::PassRate { op, rate, percent } => format!(
                "pass_rate {} {}{}",
                raw(op.span),
                raw(rate.span),
                if percent.is_some() { "%" } else { "" }
            ),
            StmtKind::Extra(p) => format!("extra {}", raw(p.span)),
            StmtKind::TotalCalls { op, count } => {
                format!("total_calls {} {}", raw(op.span), raw(count.span))
            }
            StmtKind::AgentRuns { agent, op, count } => format!(
                "agent {} runs {} {}",
                raw(agent.span),
                raw(op.span),
                raw(count.span)
            ),
            StmtKind::Rules { mode, codes } => {
                let c: Vec<&str> = codes.iter().map(|c| raw(c.span)).collect();
                format!("rules {} {}", raw(mode.span), c.join(", "))
            }
            StmtKind::Score(entries) => {
                let e: Vec<String> = entries
                    .iter()
                    .map(|(k, v)| format!("{} {}", raw(k.span), raw(v.span)))
                    .collect();
                if e.is_empty() {
                    "score {}".into()
                } else {
                    format!("score {{ {} }}", e.join(", "))
                }
            }
            StmtKind::ScoreMode(m) => format!("score {}", raw(m.span)),
            StmtKind::Binary => "binary".into(),
            StmtKind::Profile { name, options, .. } => {
                if options.is_empty() {
                    format!("profile {}", raw(name.span))
                } else {
                    let o: Vec<String> = options
                        .iter()
                        .map(|(k, v)| format!("{}: {}", raw(k.span), self.json(v)))
                        .collect();
                    let line = format!("profile {} {{ {} }}", raw(name.span), o.join(", "));
                    if Self::too_wide(&line, indent) {
                        let mut s = format!("profile {} {{\n", raw(name.span));
                        for opt in o {
                            s.push_str(&format!("{INDENT}{opt},\n"));
                        }
                        s.push('}');
                        s
                    } else {
                        line
                    }
                }
            }
            StmtKind::Never {
                server,
                tool,
                args,
                suffixes,
                ..
            } => {
                let name = match server {
                    Some(sv) => format!("{}::{}", raw(sv.span), raw(tool.span)),
                    None => raw(tool.span).to_owned(),
                };
                let one = |multi| match args {
                    Some(l) => format!(
                        "never {name}{}{}",
                        self.list(l, "(", ")", false, multi),
                        self.suffixes(suffixes)
                    ),
                    None => format!("never {name}{}", self.suffixes(suffixes)),
                };
                let s = one(false);
                if Self::too_wide(&s, indent) && args.as_ref().is_some_and(|l| !l.args.is_empty()) {
                    one(true)
                } else {
                    s
                }
            }
            StmtKind::Before { first, then } => {
                format!("{} before {}", raw(first.span), raw(then.span))
            }
            StmtKind::Expect(e) => {
                let s = self.expectation(e, false, false);
                if !Self::too_wide(&s, indent) {
                    return s;
                }
                let has_args = matches!(&e.args, Some(Body::List(l)) if !l.args.is_empty());
                let s = self.expectation(e, has_args, false);
                let has_fields =
                    matches!(&e.output, Some(OutputBody::Fields(l)) if !l.args.is_empty());
                if Self::too_wide(&s, indent) && has_fields {
                    self.expectation(e, has_args, true)
                } else {
                    s
                }
            }
            StmtKind::Unknown(u) => raw(u.span).to_owned(),
            StmtKind::Answer(c) => format!("answer {}", self.constraint(c)),
            // Printed by `print_stmt` (with its body and comments); here its opening line only.
            StmtKind::Scope { scope, .. } => format!("{} {{", self.scope_head(scope)),
            // Printed by `print_stmt`, block by block, with their comments.
            StmtKind::Either(_) | StmtKind::Parallel(_) => raw(st.span).to_owned(),
        }
    }

    /// `turn 2`, `turn last`, `agent "name"`.
    fn scope_head(&self, scope: &ScopeAst) -> String {
        match scope {
            ScopeAst::Turn(n) => format!("turn {}", self.raw(n.span)),
            ScopeAst::LastTurn(_) => "turn last".to_owned(),
            ScopeAst::Agent(name) => format!("agent {}", self.raw(name.span)),
            ScopeAst::After { last, anchor, .. } => format!(
                "after {} {}",
                if *last { "last" } else { "first" },
                self.raw(anchor.span)
            ),
        }
    }

    /// Print statement `st` at `indent`, with the comments inside it (`inner`): a scope block
    /// with its body, nested; an `either` or `parallel` block line by line, its comments in the
    /// block they are in; any other statement on its line, its inner comments before it.
    fn print_stmt(&mut self, indent: usize, st: &Stmt, inner: &[&Comment]) {
        if let StmtKind::Scope { scope, body } = &st.kind {
            let head = self.scope_head(scope);
            if body.is_empty() && inner.is_empty() {
                self.push(indent, &format!("{head} {{}}"));
                return;
            }
            self.push(indent, &format!("{head} {{"));
            self.block(
                indent + 1,
                body,
                |st| st.span,
                inner,
                |_| false,
                |p, st, hoisted| p.print_stmt(indent + 1, st, hoisted),
            );
            self.push(indent, "}");
            return;
        }
        let (critical, head, blocks): (bool, &str, Vec<&Block>) = match &st.kind {
            StmtKind::Either(x) => (x.critical.is_some(), "either", x.branches.iter().collect()),
            StmtKind::Parallel(x) => (x.critical.is_some(), "parallel", vec![&x.body]),
            _ => {
                for c in inner {
                    self.push(indent, &c.text);
                }
                let text = self.stmt(st, indent * INDENT.len());
                if matches!(st.kind, StmtKind::Unknown(_)) {
                    self.push_verbatim(indent, &text);
                } else {
                    self.push(indent, &text);
                }
                return;
            }
        };
        let inside =
            |c: &Comment, b: &Block| b.span.start < c.span.start && c.span.end <= b.span.end;
        for c in inner {
            if !blocks.iter().any(|b| inside(c, b)) {
                self.push(indent, &c.text);
            }
        }
        let first = format!("{}{head} {{", if critical { "critical " } else { "" });
        for (k, b) in blocks.into_iter().enumerate() {
            // A comment on the line of the block's `{` stays there.
            let same_line = |c: &Comment| !self.text[b.span.start..c.span.start].contains('\n');
            let (head, mine): (Vec<&Comment>, Vec<&Comment>) = inner
                .iter()
                .copied()
                .filter(|c| inside(c, b))
                .partition(|c| same_line(c));
            self.push(indent, if k == 0 { &first } else { "} or {" });
            for c in head {
                self.append_to_last(c);
            }
            self.block(
                indent + 1,
                &b.stmts,
                |st| st.span,
                &mine,
                |_| false,
                |p, st, hoisted| p.print_stmt(indent + 1, st, hoisted),
            );
        }
        self.push(indent, "}");
    }

    /// Push `text` with its first line indented and the rest as written (an unknown
    /// statement's continuation lines are not ours to re-indent).
    fn push_verbatim(&mut self, indent: usize, text: &str) {
        let mut lines = text.split('\n');
        if let Some(first) = lines.next() {
            self.out.push(format!("{}{first}", INDENT.repeat(indent)));
        }
        self.out.extend(lines.map(str::to_owned));
    }

    fn push(&mut self, indent: usize, text: &str) {
        let pad = INDENT.repeat(indent);
        for line in text.split('\n') {
            if line.is_empty() {
                self.out.push(String::new());
            } else {
                self.out.push(format!("{pad}{line}"));
            }
        }
    }

    fn append_to_last(&mut self, comment: &Comment) {
        if let Some(last) = self.out.last_mut() {
            last.push_str("  ");
            last.push_str(&comment.text);
        }
    }

    /// Print a block of elements with their comments. `force_blank(i)` asks for a blank line
    /// before element `i` whatever the source says.
    fn block<E>(
        &mut self,
        indent: usize,
        elems: &[E],
        span_of: impl Fn(&E) -> Span,
        comments: &[&Comment],
        force_blank: impl Fn(usize) -> bool,
        mut print: impl FnMut(&mut Self, &E, &[&Comment]),
    ) {
        let spans: Vec<Span> = elems.iter().map(&span_of).collect();
        // Comments inside a spec block are handled by the spec itself: pass them down.
        let placed = place(self.text, &spans, comments);
        let mut prev_end: Option<usize> = None;
        for (i, e) in elems.iter().enumerate() {
            let lead = &placed.leading[i];
            let first_start = lead.first().map_or(spans[i].start, |c| c.span.start);
            if let Some(pe) = prev_end {
                if force_blank(i) || blank_between(self.text, pe, first_start) {
                    self.out.push(String::new());
                }
            }
            let mut last = None;
            for c in lead {
                if let Some(l) = last {
                    if blank_between(self.text, l, c.span.start) {
                        self.out.push(String::new());
                    }
                }
                self.push(indent, &c.text);
                last = Some(c.span.end);
            }
            if let Some(l) = last {
                if blank_between(self.text, l, spans[i].start) {
                    self.out.push(String::new());
                }
            }
            print(self, e, &placed.inner[i]);
            prev_end = Some(spans[i].end);
            if let Some(c) = placed.trailing[i] {
                self.append_to_last(c);
                prev_end = Some(c.span.end);
            }
        }
        let mut last = prev_end;
        for c in &placed.end {
            if let Some(l) = last {
                if blank_between(self.text, l, c.span.start) {
                    self.out.push(String::new());
                }
            }
            self.push(indent, &c.text);
            last = Some(c.span.end);
        }
    }

    fn spec(&mut self, s: &Spec, inner: &[&Comment]) {
        let name = self.raw(s.name.span);
        if s.stmts.is_empty() && inner.is_empty() {
            self.push(0, &format!("spec {name} {{}}"));
            return;
        }
        self.push(0, &format!("spec {name} {{"));
        self.block(
            1,
            &s.stmts,
            |st| st.span,
            inner,
            |_| false,
            |p, st, hoisted| p.print_stmt(1, st, hoisted),
        );
        self.push(0, "}");
    }
}

/// Print `file` (parsed from `text`) canonically.
pub(crate) fn format_file(text: &str, file: &File) -> String {
    let mut p = Printer {
        text,
        out: Vec::new(),
    };
    let comments: Vec<&Comment> = file.comments.iter().collect();
    let is_block = |i: &Item| matches!(i, Item::Spec(_));
    let items = &file.items;
    p.block(
        0,
        items,
        Item::span,
        &comments,
        |i| is_block(&items[i]) || is_block(&items[i - 1]),
        |p, item, inner| match item {
            Item::Spec(s) => p.spec(s, inner),
            other => {
                for c in inner {
                    p.push(0, &c.text);
                }
                let line = match other {
                    Item::Include(i) => format!("include {}", p.raw(i.path.span)),
                    Item::Tool(t) => {
                        let s = format!(
                            "tool {}{}",
                            p.raw(t.name.span),
                            p.list(&t.args, "(", ")", false, false)
                        );
                        if Printer::too_wide(&s, 0) && !t.args.args.is_empty() {
                            format!(
                                "tool {}{}",
                                p.raw(t.name.span),
                                p.list(&t.args, "(", ")", false, true)
                            )
                        } else {
                            s
                        }
                    }
                    Item::Unknown(u) => {
                        let raw = p.raw(u.span).to_owned();
                        p.push_verbatim(0, &raw);
                        return;
                    }
                    Item::Spec(_) => unreachable!(),
                };
                p.push(0, &line);
            }
        },
    );
    let mut s = p.out.join("\n");
    while s.ends_with('\n') {
        s.pop();
    }
    if !s.is_empty() {
        s.push('\n');
    }
    s
}
