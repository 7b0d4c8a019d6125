//! Which language constructs the bundled specs use, read from their syntax trees (not from their
//! text, where `any` or `..` could hide in a comment or a string). Every construct of the
//! language must appear in at least one file of `specs/`.
//!
//! The walk matches every AST enum without a wildcard, so a new construct does not compile until
//! it is named here, and then fails until a bundled spec uses it.
//! `cargo test --test it lang_constructs:: -- --nocapture` prints the table of constructs per file.

use crate::lang_common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use lang_common::bundled_spec_files as spec_files;
use toolspec::config::Part;
use toolspec::source::SourceFile;
use toolspec::syntax::ast::*;
use toolspec::syntax::parse;

/// Every construct, by the name the walk records.
const ALL: &[&str] = &[
    // Files, comments, strings, names.
    "comment",
    "include",
    "tool declaration",
    "tool declaration with ...",
    "several specs in one file",
    "escape \\\"",
    "escape \\\\",
    "escape \\/",
    "escape \\b",
    "escape \\f",
    "escape \\n",
    "escape \\r",
    "escape \\t",
    "escape \\u",
    "escape \\u surrogate pair",
    "tool name with namespace",
    "quoted tool name",
    "call SERVER::TOOL",
    "never SERVER::TOOL",
    // Settings.
    "transcripts",
    "transcripts with several globs",
    "format",
    "order strict",
    "order in_order",
    "order any",
    "args ignore",
    "args exact",
    "args subset",
    "args fuzzy",
    "args fuzzy >= t",
    "args fuzzy tokens",
    "args fuzzy tokens >= t",
    "names ignore_case",
    "names unify_separators",
    "names strip",
    "threshold",
    "pass_rate",
    "total_calls",
    "extra allow",
    "extra forbid",
    "rules deny",
    "score exact",
    "score name_only",
    "score extra",
    "score missing",
    "binary",
    "score per_argument",
    "profile axion",
    "profile deepeval",
    "profile evalite",
    "profile agentevals",
    "profile galtea",
    "profile promptfoo",
    "profile without options",
    "profile option",
    "never",
    "never with arguments",
    "never ()",
    "never errored",
    "never *",
    "never with a reference",
    "never in a turn or agent block",
    "count of *",
    "before",
    // Scopes and the answer.
    "turn N",
    "turn last",
    "agent",
    "agent runs",
    "after last",
    "after first",
    "nested scope",
    "answer",
    // Expectations.
    "label",
    "call without arguments",
    "call ()",
    "argument list",
    "argument list with ...",
    "call exact {json}",
    "call subset {json}",
    "count optional",
    "count at_least",
    "count at_most",
    "count exactly",
    "count between",
    "output fields",
    "output exact",
    "output subset",
    "output constraint",
    "errored",
    "errored true",
    "errored false",
    "weight",
    // Paths.
    "path .key",
    "path [index]",
    "path quoted key",
    "path [\"key\"]",
    // Constraints.
    "literal null",
    "literal boolean",
    "literal number",
    "literal string",
    "literal array",
    "literal object",
    "exact",
    "subset",
    "fuzzy",
    "fuzzy >= t",
    "fuzzy tokens",
    "fuzzy tokens >= t",
    "regex",
    "regex flags",
    "range a..b",
    "range a..=b",
    "range a..",
    "range ..b",
    "range ..=b",
    "cmp >",
    "cmp >=",
    "cmp <",
    "cmp <=",
    "type",
    "type a|b",
    "one_of",
    "contains",
    "present",
    "absent",
    "any",
    "not",
    "and",
    "reference .output",
    "reference .args",
    "reference into a path",
    "reference [*]",
    "reference compared",
    "in reference",
    "not in reference",
    "contains reference",
    "or",
    // Blocks.
    "either",
    "either with three branches",
    "parallel",
    "parallel in an either branch",
    "critical call",
    "critical either",
    "critical parallel",
];

#[derive(Default)]
struct Seen(BTreeSet<&'static str>, Vec<String>);

impl Seen {
    /// Something the walk cannot name (an unknown statement or mode).
    fn problem(&mut self, what: String) -> &'static str {
        self.1.push(what);
        ""
    }

    fn add(&mut self, c: &'static str) {
        if c.is_empty() {
            return;
        }
        assert!(ALL.contains(&c), "construct `{c}` is not in ALL");
        self.0.insert(c);
    }

    fn file(&mut self, text: &str, f: &File) {
        if !f.comments.is_empty() {
            self.add("comment");
        }
        let mut specs = 0;
        for item in &f.items {
            match item {
                Item::Include(i) => {
                    self.add("include");
                    self.string(text, &i.path);
                }
                Item::Tool(t) => {
                    self.add("tool declaration");
                    if t.args.spread.is_some() {
                        self.add("tool declaration with ...");
                    }
                    self.tool_name(text, &t.name);
                    self.arg_list(text, &t.args);
                }
                Item::Spec(s) => {
                    specs += 1;
                    for st in &s.stmts {
                        self.stmt(text, st);
                    }
                }
                Item::Unknown(u) => {
                    self.problem(format!("unknown item `{}`", u.word.name));
                }
            }
        }
        if specs > 1 {
            self.add("several specs in one file");
        }
    }

    /// Escapes, read from the literal as written.
    fn string(&mut self, text: &str, s: &Str) {
        let raw = &text[s.span.start..s.span.end];
        let mut chars = raw.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '\\' {
                continue;
            }
            match chars.next() {
                Some('"') => self.add("escape \\\""),
                Some('\\') => self.add("escape \\\\"),
                Some('/') => self.add("escape \\/"),
                Some('b') => self.add("escape \\b"),
                Some('f') => self.add("escape \\f"),
                Some('n') => self.add("escape \\n"),
                Some('r') => self.add("escape \\r"),
                Some('t') => self.add("escape \\t"),
                Some('u') => {
                    self.add("escape \\u");
                    let hex: String = chars.by_ref().take(4).collect();
                    let unit = u16::from_str_radix(&hex, 16).unwrap();
                    if (0xD800..0xDC00).contains(&unit) {
                        self.add("escape \\u surrogate pair");
                    }
                }
                other => {
                    self.problem(format!("escape {other:?}"));
                }
            }
        }
    }

    fn tool_name(&mut self, text: &str, name: &Ident) {
        let raw = &text[name.span.start..name.span.end];
        if raw.starts_with('"') {
            self.add("quoted tool name");
        } else if raw.contains(['.', '/']) || raw.contains("__") {
            self.add("tool name with namespace");
        }
    }

    fn stmt(&mut self, text: &str, st: &Stmt) {
        match &st.kind {
            StmtKind::Transcripts(globs) => {
                self.add("transcripts");
                if globs.len() > 1 {
                    self.add("transcripts with several globs");
                }
                for g in globs {
                    self.string(text, g);
                }
            }
            StmtKind::Format(_) => self.add("format"),
            StmtKind::Order(m) => {
                let c = match m.name.as_str() {
                    "strict" => "order strict",
                    "in_order" => "order in_order",
                    "any" => "order any",
                    other => self.problem(format!("order {other}")),
                };
                self.add(c);
            }
            StmtKind::Args { mode, threshold } => {
                {
                    let c = match mode.name.as_str() {
                        "ignore" => "args ignore",
                        "exact" => "args exact",
                        "subset" => "args subset",
                        "fuzzy" => "args fuzzy",
                        other => self.problem(format!("args {other}")),
                    };
                    self.add(c);
                };
                if threshold.is_some() {
                    self.add("args fuzzy >= t");
                }
            }
            StmtKind::ArgsTokens { mode, threshold } => {
                if mode.name != "fuzzy" {
                    self.problem(format!("args {} tokens", mode.name));
                }
                self.add(if threshold.is_some() {
                    "args fuzzy tokens >= t"
                } else {
                    "args fuzzy tokens"
                });
            }
            StmtKind::Names(opts) => {
                for o in opts {
                    match o {
                        NameOpt::Flag(f) => {
                            let c = match f.name.as_str() {
                                "ignore_case" => "names ignore_case",
                                "unify_separators" => "names unify_separators",
                                other => self.problem(format!("names {other}")),
                            };
                            self.add(c);
                        }
                        NameOpt::Strip(s) => {
                            self.add("names strip");
                            self.string(text, s);
                        }
                    }
                }
            }
            StmtKind::Threshold(_) => self.add("threshold"),
            StmtKind::PassRate { .. } => self.add("pass_rate"),
            StmtKind::TotalCalls { .. } => self.add("total_calls"),
            StmtKind::AgentRuns { agent, .. } => {
                self.string(text, agent);
                self.add("agent runs");
            }
            StmtKind::Rules { mode, .. } => {
                let c = match mode.name.as_str() {
                    "deny" => "rules deny",
                    other => self.problem(format!("rules {other}")),
                };
                self.add(c);
            }
            StmtKind::Extra(p) => {
                let c = match p.name.as_str() {
                    "allow" => "extra allow",
                    "forbid" => "extra forbid",
                    other => self.problem(format!("extra {other}")),
                };
                self.add(c);
            }
            StmtKind::Score(entries) => {
                for (k, _) in entries {
                    {
                        let c = match k.name.as_str() {
                            "exact" => "score exact",
                            "name_only" => "score name_only",
                            "extra" => "score extra",
                            "missing" => "score missing",
                            other => self.problem(format!("score {other}")),
                        };
                        self.add(c);
                    };
                }
            }
            StmtKind::Binary => self.add("binary"),
            StmtKind::ScoreMode(m) => {
                let c = match m.name.as_str() {
                    "per_argument" => "score per_argument",
                    other => self.problem(format!("score {other}")),
                };
                self.add(c);
            }
            StmtKind::Profile { name, options, .. } => {
                {
                    let c = match name.name.as_str() {
                        "axion" => "profile axion",
                        "deepeval" => "profile deepeval",
                        "evalite" => "profile evalite",
                        "agentevals" => "profile agentevals",
                        "galtea" => "profile galtea",
                        "promptfoo" => "profile promptfoo",
                        other => self.problem(format!("profile {other}")),
                    };
                    self.add(c);
                };
                if options.is_empty() {
                    self.add("profile without options");
                } else {
                    self.add("profile option");
                }
                for (_, v) in options {
                    self.json(text, v);
                }
            }
            StmtKind::Never {
                server,
                tool,
                any_tool,
                args,
                suffixes,
            } => {
                self.add("never");
                if server.is_some() {
                    self.add("never SERVER::TOOL");
                }
                if *any_tool {
                    self.add("never *");
                } else {
                    self.tool_name(text, tool);
                }
                if suffixes.iter().any(|s| matches!(s, Suffix::Errored { .. })) {
                    self.add("never errored");
                }
                if args
                    .iter()
                    .flat_map(|l| &l.args)
                    .any(|a| refers(&a.constraint))
                {
                    self.add("never with a reference");
                }
                match args {
                    Some(l) if l.args.is_empty() => self.add("never ()"),
                    Some(l) => {
                        self.add("never with arguments");
                        self.arg_list(text, l);
                    }
                    None => {}
                }
            }
            StmtKind::Before { .. } => self.add("before"),
            StmtKind::Expect(e) => self.expectation(text, e),
            StmtKind::Scope { scope, body } => {
                match scope {
                    ScopeAst::Turn(_) => self.add("turn N"),
                    ScopeAst::LastTurn(_) => self.add("turn last"),
                    ScopeAst::Agent(name) => {
                        self.string(text, name);
                        self.add("agent");
                    }
                    ScopeAst::After { last: true, .. } => self.add("after last"),
                    ScopeAst::After { last: false, .. } => self.add("after first"),
                }
                for st in body {
                    if matches!(st.kind, StmtKind::Scope { .. }) {
                        self.add("nested scope");
                    }
                    if matches!(st.kind, StmtKind::Never { .. }) {
                        self.add("never in a turn or agent block");
                    }
                    self.stmt(text, st);
                }
            }
            StmtKind::Answer(c) => {
                self.add("answer");
                self.constraint(text, c);
            }
            StmtKind::Either(x) => {
                self.add("either");
                if x.branches.len() >= 3 {
                    self.add("either with three branches");
                }
                if x.critical.is_some() {
                    self.add("critical either");
                }
                for b in &x.branches {
                    for st in &b.stmts {
                        if matches!(st.kind, StmtKind::Parallel(_)) {
                            self.add("parallel in an either branch");
                        }
                        self.stmt(text, st);
                    }
                }
            }
            StmtKind::Parallel(x) => {
                self.add("parallel");
                if x.critical.is_some() {
                    self.add("critical parallel");
                }
                for st in &x.body.stmts {
                    self.stmt(text, st);
                }
            }
            StmtKind::Unknown(u) => {
                self.problem(format!("unknown statement `{}`", u.word.name));
            }
        }
    }

    fn expectation(&mut self, text: &str, e: &Expectation) {
        if e.label.is_some() {
            self.add("label");
        }
        if e.any_tool {
            self.add("count of *");
        }
        if e.critical.is_some() {
            self.add("critical call");
        }
        if let Some(r) = &e.repeat {
            self.add(match r.kind {
                RepeatKind::Optional => "count optional",
                RepeatKind::AtLeast(_) => "count at_least",
                RepeatKind::AtMost(_) => "count at_most",
                RepeatKind::Exactly(_) => "count exactly",
                RepeatKind::Between(..) => "count between",
            });
        }
        self.tool_name(text, &e.tool);
        if e.server.is_some() {
            self.add("call SERVER::TOOL");
        }
        match &e.args {
            None => self.add("call without arguments"),
            Some(Body::List(l)) => {
                if l.args.is_empty() && l.spread.is_none() {
                    self.add("call ()");
                } else {
                    self.add("argument list");
                }
                if l.spread.is_some() {
                    self.add("argument list with ...");
                }
                self.arg_list(text, l);
            }
            Some(Body::Exact(j)) => {
                self.add("call exact {json}");
                self.json(text, j);
            }
            Some(Body::Subset(j)) => {
                self.add("call subset {json}");
                self.json(text, j);
            }
        }
        match &e.output {
            None => {}
            Some(OutputBody::Fields(l)) => {
                self.add("output fields");
                self.arg_list(text, l);
            }
            Some(OutputBody::Exact(j)) => {
                self.add("output exact");
                self.json(text, j);
            }
            Some(OutputBody::Subset(j)) => {
                self.add("output subset");
                self.json(text, j);
            }
            Some(OutputBody::Value(c)) => {
                self.add("output constraint");
                self.constraint(text, c);
            }
        }
        for s in &e.suffixes {
            match s {
                Suffix::Errored { value, written, .. } => self.add(match (written, value) {
                    (false, _) => "errored",
                    (true, true) => "errored true",
                    (true, false) => "errored false",
                }),
                Suffix::Weight(..) => self.add("weight"),
            }
        }
    }

    fn arg_list(&mut self, text: &str, l: &ArgList) {
        for a in &l.args {
            self.path(text, &a.path.segs);
            self.constraint(text, &a.constraint);
        }
    }

    fn path(&mut self, text: &str, segs: &[Seg]) {
        for (i, s) in segs.iter().enumerate() {
            match s {
                Seg::Key {
                    quoted,
                    bracket,
                    span,
                    ..
                } => {
                    if *bracket {
                        self.add("path [\"key\"]");
                    } else if *quoted {
                        self.add("path quoted key");
                    } else if i > 0 {
                        self.add("path .key");
                    }
                    if *quoted {
                        let raw = &text[span.start..span.end];
                        let start = span.start + raw.find('"').unwrap();
                        let end = span.start + raw.rfind('"').unwrap() + 1;
                        self.string(
                            text,
                            &Str {
                                value: String::new(),
                                span: toolspec::source::Span::new(start, end),
                            },
                        );
                    }
                }
                Seg::Index(..) => self.add("path [index]"),
                Seg::Each(_) => self.add("reference [*]"),
            }
        }
    }

    fn constraint(&mut self, text: &str, c: &Constraint) {
        if c.terms.len() > 1 {
            self.add("and");
        }
        for t in &c.terms {
            self.term(text, t);
        }
    }

    fn term(&mut self, text: &str, t: &Term) {
        match &t.kind {
            TermKind::Literal(j) => {
                self.add(match j.kind {
                    JsonKind::Null => "literal null",
                    JsonKind::Bool(_) => "literal boolean",
                    JsonKind::Number(_) => "literal number",
                    JsonKind::String(_) => "literal string",
                    JsonKind::Array(_) => "literal array",
                    JsonKind::Object(_) => "literal object",
                });
                self.json(text, j);
            }
            TermKind::Exact(j) => {
                self.add("exact");
                self.json(text, j);
            }
            TermKind::Subset(j) => {
                self.add("subset");
                self.json(text, j);
            }
            TermKind::Fuzzy(s, th) => {
                self.add("fuzzy");
                if th.is_some() {
                    self.add("fuzzy >= t");
                }
                self.string(text, s);
            }
            TermKind::FuzzyTokens(s, th) => {
                self.add("fuzzy tokens");
                if th.is_some() {
                    self.add("fuzzy tokens >= t");
                }
                self.string(text, s);
            }
            TermKind::Regex { flags, .. } => {
                self.add("regex");
                if !flags.is_empty() {
                    self.add("regex flags");
                }
            }
            TermKind::Range {
                min,
                max,
                inclusive,
            } => self.add(match (min.is_some(), max.is_some(), inclusive) {
                (true, true, false) => "range a..b",
                (true, true, true) => "range a..=b",
                (true, false, _) => "range a..",
                (false, true, false) => "range ..b",
                (false, true, true) => "range ..=b",
                (false, false, _) => panic!("a range without bounds parsed"),
            }),
            TermKind::Cmp(op, _) => self.add(match op {
                CmpOp::Gt => "cmp >",
                CmpOp::Ge => "cmp >=",
                CmpOp::Lt => "cmp <",
                CmpOp::Le => "cmp <=",
            }),
            TermKind::Type(names) => {
                self.add("type");
                if names.len() > 1 {
                    self.add("type a|b");
                }
            }
            TermKind::OneOf(items) => {
                self.add("one_of");
                for i in items {
                    self.json(text, i);
                }
            }
            TermKind::Contains(j) => {
                self.add("contains");
                self.json(text, j);
            }
            TermKind::Or(alternatives) => {
                self.add("or");
                for c in alternatives {
                    self.constraint(text, c);
                }
            }
            TermKind::Present => self.add("present"),
            TermKind::Absent => self.add("absent"),
            TermKind::Any => self.add("any"),
            TermKind::Not(inner) => {
                self.add("not");
                if matches!(
                    inner.kind,
                    TermKind::RefOp {
                        op: RefOpAst::In,
                        ..
                    }
                ) {
                    self.add("not in reference");
                }
                self.term(text, inner);
            }
            TermKind::RefOp { op, target } => {
                self.add(match op {
                    RefOpAst::Cmp(_) => "reference compared",
                    RefOpAst::In => "in reference",
                    RefOpAst::Contains => "contains reference",
                });
                self.term(text, target);
            }
            TermKind::Ref { part, path, .. } => {
                self.add(match part {
                    Part::Output => "reference .output",
                    Part::Args => "reference .args",
                });
                if !path.is_empty() {
                    self.add("reference into a path");
                }
                if path.iter().any(|s| matches!(s, Seg::Each(_))) {
                    self.add("reference [*]");
                }
            }
        }
    }

    fn json(&mut self, text: &str, j: &Json) {
        match &j.kind {
            JsonKind::String(_) => self.string(
                text,
                &Str {
                    value: String::new(),
                    span: j.span,
                },
            ),
            JsonKind::Array(items) => items.iter().for_each(|i| self.json(text, i)),
            JsonKind::Object(members) => {
                for (k, v) in members {
                    self.string(text, k);
                    self.json(text, v);
                }
            }
            JsonKind::Null | JsonKind::Bool(_) | JsonKind::Number(_) => {}
        }
    }
}

/// Constructs used by each bundled file.
fn constructs_by_file() -> BTreeMap<String, BTreeSet<&'static str>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    spec_files()
        .into_iter()
        .map(|name| {
            let text = std::fs::read_to_string(root.join(&name)).unwrap();
            let file = parse(&SourceFile::new(name.clone(), text.as_str()))
                .unwrap_or_else(|d| panic!("{name}: {d}"));
            let mut seen = Seen::default();
            seen.file(&text, &file);
            assert!(seen.1.is_empty(), "{name}: {:?}", seen.1);
            (name, seen.0)
        })
        .collect()
}

#[test]
fn every_construct_is_used_by_a_bundled_spec() {
    let by_file = constructs_by_file();
    let mut users: BTreeMap<&str, Vec<&str>> = ALL.iter().map(|c| (*c, Vec::new())).collect();
    for (file, used) in &by_file {
        println!(
            "{file}: {}",
            used.iter().copied().collect::<Vec<_>>().join(", ")
        );
        for c in used {
            users.get_mut(c).unwrap().push(file);
        }
    }
    let unused: Vec<&str> = users
        .iter()
        .filter(|(_, files)| files.is_empty())
        .map(|(c, _)| *c)
        .collect();
    assert!(unused.is_empty(), "no bundled spec uses: {unused:?}");
}

#[test]
fn the_walk_sees_what_a_spec_says() {
    // The walk itself can fail: a small file with known constructs yields exactly them.
    let text =
        "spec s {\n  order any\n  x: optional call f(a.b: 1..=2 and not \"q\\n\") errored\n}\n";
    let file = parse(&SourceFile::new("t.toolspec", text)).unwrap();
    let mut seen = Seen::default();
    seen.file(text, &file);
    let got: Vec<&str> = seen.0.into_iter().collect();
    assert_eq!(
        got,
        [
            "and",
            "argument list",
            "count optional",
            "errored",
            "escape \\n",
            "label",
            "literal string",
            "not",
            "order any",
            "path .key",
            "range a..=b",
        ]
    );
}

/// `docs/language.md` shows an example of every construct: in a ```toolspec block, or as inline
/// code that parses as an item, a statement, a constraint or a path. (Syntax schemas with
/// placeholders, such as `at_least n`, do not parse and do not count.)
#[test]
fn the_language_docs_show_every_construct() {
    let seen = documented(include_str!("../../docs/language.md"));
    let missing: Vec<&str> = ALL.iter().filter(|c| !seen.contains(*c)).copied().collect();
    assert!(
        missing.is_empty(),
        "docs/language.md has no example of: {missing:?}"
    );
}

/// Constructs the examples of a document show: its ```toolspec blocks (fragments are read inside
/// a spec) and its inline `code` spans that parse as an item, a statement, a constraint or a path.
fn documented(doc: &str) -> BTreeSet<&'static str> {
    let mut seen = Seen::default();
    let mut read = |text: &str, wrapper: &[&'static str]| -> bool {
        let Ok(file) = parse(&SourceFile::new("doc", text)) else {
            return false;
        };
        let mut s = Seen::default();
        s.file(text, &file);
        // Prose in backticks may parse as an unknown statement: not an example.
        if !s.1.is_empty() {
            return false;
        }
        for c in s.0 {
            if !wrapper.contains(&c) {
                seen.0.insert(c);
            }
        }
        true
    };
    let mut rest = doc;
    let mut prose = String::new();
    while let Some(start) = rest.find("```") {
        prose.push_str(&rest[..start]);
        let lang_end = start + rest[start..].find('\n').unwrap();
        let lang = &rest[start + 3..lang_end];
        let len = rest[lang_end..].find("```").unwrap();
        let block = &rest[lang_end + 1..lang_end + len];
        rest = &rest[lang_end + len + 3..];
        if lang == "toolspec" {
            let whole = block.lines().any(|l| {
                l.starts_with("spec ") || l.starts_with("tool ") || l.starts_with("include ")
            });
            let text = if whole {
                block.to_owned()
            } else {
                format!("spec example {{\n{block}}}\n")
            };
            assert!(read(&text, &[]), "docs example does not parse:\n{text}");
        }
    }
    prose.push_str(rest);
    for (i, code) in prose.split('`').enumerate() {
        if i % 2 == 0 || code.is_empty() || code.contains('\n') {
            continue;
        }
        let _ = read(&format!("{code}\n"), &[])
            || read(&format!("spec s {{\n  {code}\n}}\n"), &[])
            || read(
                &format!("spec s {{\n  call x(k: {code})\n}}\n"),
                &["argument list"],
            )
            || read(
                &format!("spec s {{\n  call x({code}: any)\n}}\n"),
                &["argument list", "any"],
            );
    }
    seen.0
}

/// Whether a constraint holds a reference (with or without an operator).
fn refers(c: &Constraint) -> bool {
    fn term(t: &Term) -> bool {
        match &t.kind {
            TermKind::Ref { .. } | TermKind::RefOp { .. } => true,
            TermKind::Not(inner) => term(inner),
            TermKind::Or(alternatives) => alternatives.iter().any(refers),
            _ => false,
        }
    }
    c.terms.iter().any(term)
}
