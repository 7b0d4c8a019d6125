//! Every node of the syntax tree has the byte span of what it was parsed from: on every bundled
//! spec (and a file written to hit the odd corners), each node's span lies inside its parent's,
//! siblings come in order without overlapping, and the text at a leaf's span is that leaf
//! (a name is its name, a string literal decodes to its value, a number parses to its value, a
//! JSON literal is that JSON, a regex body is the body).

use crate::lang_common;

use std::path::Path;

use toolspec::source::{SourceFile, Span};
use toolspec::syntax::ast::*;
use toolspec::syntax::parse;

struct Check<'t> {
    text: &'t str,
    name: &'t str,
    nodes: usize,
}

impl<'t> Check<'t> {
    fn at(&self, s: Span) -> &'t str {
        assert!(
            s.start <= s.end && s.end <= self.text.len(),
            "{}: span {s:?} outside the text",
            self.name
        );
        &self.text[s.start..s.end]
    }

    /// `inner` lies inside `outer`.
    fn within(&mut self, outer: Span, inner: Span, what: &str) {
        self.nodes += 1;
        self.at(inner);
        assert!(
            outer.start <= inner.start && inner.end <= outer.end,
            "{}: {what} {inner:?} `{}` is not inside {outer:?} `{}`",
            self.name,
            self.at(inner),
            self.at(outer)
        );
    }

    /// Siblings in order, not overlapping.
    fn ordered(&self, spans: &[Span], what: &str) {
        for w in spans.windows(2) {
            assert!(
                w[0].end <= w[1].start,
                "{}: {what} {:?} and {:?} overlap or are out of order",
                self.name,
                w[0],
                w[1]
            );
        }
    }

    fn ident(&mut self, outer: Span, i: &Ident) {
        self.within(outer, i.span, "name");
        let raw = self.at(i.span);
        // Bare, or a string literal (quoted tool names, format names, profile option keys).
        let decoded = if raw.starts_with('"') {
            serde_json::from_str::<String>(raw).unwrap()
        } else {
            raw.to_owned()
        };
        assert_eq!(decoded, i.name, "{}: name at {:?}", self.name, i.span);
    }

    fn string(&mut self, outer: Span, s: &Str) {
        self.within(outer, s.span, "string");
        let raw = self.at(s.span);
        let decoded: String = serde_json::from_str(raw)
            .unwrap_or_else(|e| panic!("{}: `{raw}` is not a string literal: {e}", self.name));
        assert_eq!(decoded, s.value, "{}: string at {:?}", self.name, s.span);
    }

    fn num(&mut self, outer: Span, n: &Num) {
        self.within(outer, n.span, "number");
        let raw = self.at(n.span);
        assert_eq!(
            raw.parse::<f64>().ok(),
            Some(n.value),
            "{}: `{raw}`",
            self.name
        );
    }

    fn int(&mut self, outer: Span, n: &Int) {
        self.within(outer, n.span, "count");
        assert_eq!(
            self.at(n.span).parse::<u32>().ok(),
            n.value,
            "{}",
            self.name
        );
    }

    fn json(&mut self, outer: Span, j: &Json) {
        self.within(outer, j.span, "JSON value");
        let raw = self.at(j.span);
        // The language allows trailing commas, which JSON does not.
        let strict = raw.replace(",]", "]").replace(",}", "}");
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(&strict) {
            assert_eq!(v, j.to_value(), "{}: JSON at {:?}", self.name, j.span);
        }
        match &j.kind {
            JsonKind::Array(items) => {
                self.ordered(&items.iter().map(|i| i.span).collect::<Vec<_>>(), "items");
                for i in items {
                    self.json(j.span, i);
                }
            }
            JsonKind::Object(members) => {
                for (k, v) in members {
                    self.string(j.span, k);
                    self.json(j.span, v);
                    assert!(k.span.end <= v.span.start, "{}: member order", self.name);
                }
            }
            JsonKind::Null | JsonKind::Bool(_) | JsonKind::Number(_) | JsonKind::String(_) => {}
        }
    }

    fn file(&mut self, f: &File) {
        let whole = Span::new(0, self.text.len());
        for c in &f.comments {
            self.within(whole, c.span, "comment");
            assert_eq!(self.at(c.span), c.text, "{}: comment", self.name);
            assert!(c.text.starts_with('#'));
        }
        self.ordered(&f.items.iter().map(Item::span).collect::<Vec<_>>(), "items");
        for item in &f.items {
            self.within(whole, item.span(), "item");
            match item {
                Item::Include(i) => self.string(i.span, &i.path),
                Item::Tool(t) => {
                    self.ident(t.span, &t.name);
                    self.arg_list(t.span, &t.args);
                }
                Item::Spec(s) => {
                    self.ident(s.span, &s.name);
                    assert!(self.at(s.span).ends_with('}'), "{}: spec span", self.name);
                    self.ordered(
                        &s.stmts.iter().map(|st| st.span).collect::<Vec<_>>(),
                        "stmts",
                    );
                    for st in &s.stmts {
                        self.within(s.span, st.span, "statement");
                        self.stmt(st);
                    }
                }
                Item::Unknown(u) => self.ident(u.span, &u.word),
            }
        }
    }

    fn stmt(&mut self, st: &Stmt) {
        let sp = st.span;
        match &st.kind {
            StmtKind::Transcripts(globs) => globs.iter().for_each(|g| self.string(sp, g)),
            StmtKind::Format(i) | StmtKind::Order(i) | StmtKind::Extra(i) => self.ident(sp, i),
            StmtKind::ScoreMode(i) => self.ident(sp, i),
            StmtKind::Args { mode, threshold } | StmtKind::ArgsTokens { mode, threshold } => {
                self.ident(sp, mode);
                if let Some(t) = threshold {
                    self.num(sp, t);
                }
            }
            StmtKind::Names(opts) => {
                for o in opts {
                    match o {
                        NameOpt::Flag(f) => self.ident(sp, f),
                        NameOpt::Strip(s) => self.string(sp, s),
                    }
                }
            }
            StmtKind::Threshold(n) => self.num(sp, n),
            StmtKind::PassRate { op, rate, percent } => {
                self.ident(sp, op);
                self.num(sp, rate);
                if let Some(p) = percent {
                    assert_eq!(self.at(*p), "%");
                }
            }
            StmtKind::TotalCalls { op, count } => {
                self.ident(sp, op);
                self.int(sp, count);
            }
            StmtKind::AgentRuns { agent, op, count } => {
                self.string(sp, agent);
                self.ident(sp, op);
                self.int(sp, count);
            }
            StmtKind::Rules { mode, codes } => {
                self.ident(sp, mode);
                for c in codes {
                    self.ident(sp, c);
                }
            }
            StmtKind::Score(entries) => {
                for (k, v) in entries {
                    self.ident(sp, k);
                    self.num(sp, v);
                }
            }
            StmtKind::Binary => assert_eq!(self.at(sp), "binary"),
            StmtKind::Profile { name, options, .. } => {
                self.ident(sp, name);
                for (k, v) in options {
                    self.ident(sp, k);
                    self.json(sp, v);
                }
            }
            StmtKind::Never {
                server,
                tool,
                args,
                any_tool,
                suffixes,
            } => {
                if let Some(server) = server {
                    self.ident(sp, server);
                }
                self.ident(sp, tool);
                assert_eq!(*any_tool, self.at(tool.span) == "*");
                if let Some(a) = args {
                    self.arg_list(sp, a);
                }
                self.suffixes(sp, suffixes);
            }
            StmtKind::Before { first, then } => {
                self.ident(sp, first);
                self.ident(sp, then);
            }
            StmtKind::Expect(e) => self.expectation(sp, e),
            StmtKind::Scope { scope, body } => {
                match scope {
                    ScopeAst::Turn(n) => self.int(sp, n),
                    ScopeAst::LastTurn(at) => assert_eq!(self.at(*at), "last"),
                    ScopeAst::Agent(name) => self.string(sp, name),
                    ScopeAst::After { last, edge, anchor } => {
                        assert_eq!(self.at(*edge), if *last { "last" } else { "first" });
                        self.ident(sp, anchor);
                    }
                }
                for inner in body {
                    self.within(sp, inner.span, "statement in a block");
                    self.stmt(inner);
                }
            }
            StmtKind::Answer(c) => self.constraint(sp, c),
            StmtKind::Either(x) => {
                self.within(sp, x.keyword, "either keyword");
                assert_eq!(self.at(x.keyword), "either");
                if let Some(c) = x.critical {
                    assert_eq!(self.at(c), "critical");
                }
                x.branches.iter().for_each(|b| self.block(sp, b));
            }
            StmtKind::Parallel(x) => {
                self.within(sp, x.keyword, "parallel keyword");
                assert_eq!(self.at(x.keyword), "parallel");
                if let Some(c) = x.critical {
                    assert_eq!(self.at(c), "critical");
                }
                self.block(sp, &x.body);
            }
            StmtKind::Unknown(u) => {
                self.within(sp, u.span, "unknown statement");
                self.ident(u.span, &u.word);
            }
        }
    }

    fn block(&mut self, sp: Span, b: &Block) {
        self.within(sp, b.span, "block");
        assert!(self.at(b.span).starts_with('{') && self.at(b.span).ends_with('}'));
        self.ordered(
            &b.stmts.iter().map(|st| st.span).collect::<Vec<_>>(),
            "block statements",
        );
        for st in &b.stmts {
            self.within(b.span, st.span, "statement in a block");
            self.stmt(st);
        }
    }

    fn expectation(&mut self, sp: Span, e: &Expectation) {
        if let Some(l) = &e.label {
            self.ident(sp, l);
        }
        if let Some(c) = e.critical {
            self.within(sp, c, "critical");
            assert_eq!(self.at(c), "critical");
        }
        if let Some(r) = &e.repeat {
            self.within(sp, r.span, "count");
            match &r.kind {
                RepeatKind::Optional => {}
                RepeatKind::AtLeast(n) | RepeatKind::AtMost(n) | RepeatKind::Exactly(n) => {
                    self.int(r.span, n);
                }
                RepeatKind::Between(a, b) => {
                    self.int(r.span, a);
                    self.int(r.span, b);
                }
            }
        }
        if let Some(server) = &e.server {
            self.ident(sp, server);
        }
        self.ident(sp, &e.tool);
        match &e.args {
            None => {}
            Some(Body::List(l)) => self.arg_list(sp, l),
            Some(Body::Exact(j) | Body::Subset(j)) => self.json(sp, j),
        }
        match &e.output {
            None => {}
            Some(OutputBody::Fields(l)) => self.arg_list(sp, l),
            Some(OutputBody::Exact(j) | OutputBody::Subset(j)) => self.json(sp, j),
            Some(OutputBody::Value(c)) => self.constraint(sp, c),
        }
        assert_eq!(e.any_tool, self.at(e.tool.span) == "*");
        self.suffixes(sp, &e.suffixes);
    }

    fn suffixes(&mut self, sp: Span, suffixes: &[Suffix]) {
        for s in suffixes {
            match s {
                Suffix::Errored { span, .. } => {
                    self.within(sp, *span, "errored");
                    assert!(self.at(*span).starts_with("errored"));
                }
                Suffix::Weight(n, span) => {
                    self.within(sp, *span, "weight");
                    self.num(*span, n);
                }
            }
        }
    }

    fn arg_list(&mut self, outer: Span, l: &ArgList) {
        self.within(outer, l.span, "argument list");
        let raw = self.at(l.span);
        assert!(
            (raw.starts_with('(') && raw.ends_with(')'))
                || (raw.starts_with('{') && raw.ends_with('}')),
            "{}: list `{raw}`",
            self.name
        );
        self.ordered(
            &l.args.iter().map(|a| a.span).collect::<Vec<_>>(),
            "arguments",
        );
        if let Some(s) = l.spread {
            self.within(l.span, s, "...");
            assert_eq!(self.at(s), "...");
        }
        for a in &l.args {
            self.within(l.span, a.span, "argument");
            self.within(a.span, a.path.span, "path");
            self.path(a.path.span, &a.path.segs);
            self.constraint(a.span, &a.constraint);
            assert!(a.path.span.end <= a.constraint.span.start);
        }
    }

    fn path(&mut self, outer: Span, segs: &[Seg]) {
        for s in segs {
            match s {
                Seg::Key {
                    name, quoted, span, ..
                } => {
                    self.within(outer, *span, "path key");
                    let raw = self.at(*span);
                    let raw = raw.trim_start_matches('[').trim_end_matches(']');
                    if *quoted {
                        assert_eq!(&serde_json::from_str::<String>(raw).unwrap(), name);
                    } else {
                        assert_eq!(raw, name, "{}", self.name);
                    }
                }
                Seg::Each(span) => {
                    self.within(outer, *span, "[*]");
                    assert_eq!(self.at(*span), "[*]", "{}", self.name);
                }
                Seg::Index(i, span) => {
                    self.within(outer, *span, "index");
                    let raw = self.at(*span);
                    let raw = raw.trim_start_matches('[').trim_end_matches(']');
                    assert_eq!(raw.parse::<usize>().ok(), *i, "{}", self.name);
                }
            }
        }
    }

    fn constraint(&mut self, outer: Span, c: &Constraint) {
        self.within(outer, c.span, "constraint");
        self.ordered(&c.terms.iter().map(|t| t.span).collect::<Vec<_>>(), "terms");
        for t in &c.terms {
            self.term(c.span, t);
        }
    }

    fn term(&mut self, outer: Span, t: &Term) {
        self.within(outer, t.span, "term");
        let sp = t.span;
        match &t.kind {
            TermKind::Literal(j)
            | TermKind::Exact(j)
            | TermKind::Subset(j)
            | TermKind::Contains(j) => self.json(sp, j),
            TermKind::Fuzzy(s, th) | TermKind::FuzzyTokens(s, th) => {
                self.string(sp, s);
                if let Some(n) = th {
                    self.num(sp, n);
                }
            }
            TermKind::Regex {
                body, body_span, ..
            } => {
                self.within(sp, *body_span, "regex body");
                assert_eq!(self.at(*body_span), body, "{}", self.name);
            }
            TermKind::Range { min, max, .. } => {
                for n in min.iter().chain(max) {
                    self.num(sp, n);
                }
            }
            TermKind::Cmp(op, n) => {
                assert!(self.at(sp).starts_with(op.as_str()));
                self.num(sp, n);
            }
            TermKind::Type(names) => names.iter().for_each(|n| self.ident(sp, n)),
            TermKind::OneOf(items) => items.iter().for_each(|i| self.json(sp, i)),
            TermKind::Present => assert_eq!(self.at(sp), "present"),
            TermKind::Absent => assert_eq!(self.at(sp), "absent"),
            TermKind::Any => assert_eq!(self.at(sp), "any"),
            TermKind::Not(inner) => self.term(sp, inner),
            TermKind::Or(alternatives) => {
                self.ordered(
                    &alternatives.iter().map(|c| c.span).collect::<Vec<_>>(),
                    "alternatives",
                );
                for c in alternatives {
                    self.constraint(sp, c);
                }
            }
            TermKind::RefOp { op, target } => {
                match op {
                    RefOpAst::Cmp(c) => assert!(self.at(sp).starts_with(c.as_str())),
                    RefOpAst::In => assert!(self.at(sp).starts_with("in")),
                    RefOpAst::Contains => assert!(self.at(sp).starts_with("contains")),
                }
                self.term(sp, target);
            }
            TermKind::Ref { label, path, .. } => {
                self.ident(sp, label);
                if let Some(first) = path.first() {
                    let start = match first {
                        Seg::Key { span, .. } | Seg::Index(_, span) | Seg::Each(span) => span.start,
                    };
                    self.path(Span::new(start, sp.end), path);
                }
            }
        }
    }
}

fn check(name: &str, text: &str) -> usize {
    let file = parse(&SourceFile::new(name, text)).unwrap_or_else(|d| panic!("{name}: {d}"));
    let mut c = Check {
        text,
        name,
        nodes: 0,
    };
    c.file(&file);
    c.nodes
}

#[test]
fn every_node_of_every_bundled_spec_has_its_span() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut nodes = 0;
    for name in lang_common::bundled_spec_files() {
        let text = std::fs::read_to_string(root.join(&name)).unwrap();
        nodes += check(&name, &text);
    }
    assert!(nodes > 2000, "only {nodes} nodes checked");
}

#[test]
fn spans_survive_comments_odd_spacing_and_unicode() {
    let text = "# é\nspec   s{order  any # why\n  x : optional call \"send mail\" ( \"a b\" : /é\\//i , \
                c[0][\"k\"].d : not  1..=2 and type string|null , ... ) -> { r : 1 } errored  false weight 2\n\
                profile deepeval { \"threshold\" : 0.5 , }\n  odrer { a\n b }\n  between 1 and 3 call y -> exact [1, {\"a\": null,},]\n\
                never z ( q: x.output[0] )  # done\n  x before y}\n";
    let nodes = check("odd.toolspec", text);
    assert!(nodes > 30, "{nodes}");
}

#[test]
fn the_check_itself_can_fail() {
    // A tree whose name span is off by one is caught.
    let text = "spec s {\n  call lookup\n}\n";
    let mut file = parse(&SourceFile::new("t", text)).unwrap();
    let Item::Spec(s) = &mut file.items[0] else {
        panic!()
    };
    s.name.span = Span::new(s.name.span.start + 1, s.name.span.end + 1);
    let result = std::panic::catch_unwind(|| {
        let mut c = Check {
            text,
            name: "t",
            nodes: 0,
        };
        c.file(&file);
    });
    assert!(result.is_err());
}
