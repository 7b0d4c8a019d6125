//! pest parser and the tree walk that builds the [`ast`](super::ast).

use pest::iterators::Pair;
use pest::Parser as _;

use super::ast::{
    Arg, ArgList, Block, Body, CmpOp, Comment, Constraint, Either, Expectation, File, Ident,
    Include, Int, Item, Json, JsonKind, NameOpt, Num, OutputBody, Parallel, PathAst, RefOpAst,
    RepeatAst, RepeatKind, ScopeAst, Seg, Spec, Stmt, StmtKind, Str, Suffix, Term, TermKind,
    ToolDecl, Unknown,
};
use super::words::Keyword;
use super::{expected, SpecDiagnostic};
use crate::code::Code;
use crate::config::Part;
use crate::source::{SourceFile, Span};

#[derive(pest_derive::Parser)]
#[grammar = "../grammar/toolspec.pest"]
pub(crate) struct Grammar;

/// Parse `source` into a [`File`].
pub(crate) fn parse_file(source: &SourceFile) -> Result<File, SpecDiagnostic> {
    let pairs = match Grammar::parse(Rule::file, &source.text) {
        Ok(p) => p,
        Err(e) => return Err(expected::syntax_error(source, e)),
    };
    let file = pairs
        .into_iter()
        .next()
        .expect("file rule always yields a pair");
    let comments: Vec<Comment> = file
        .clone()
        .into_inner()
        .flatten()
        .filter(|p| p.as_rule() == Rule::COMMENT)
        .map(|c| {
            let text = c.as_str().trim_end_matches('\r');
            let start = c.as_span().start();
            Comment {
                text: text.to_owned(),
                span: Span::new(start, start + text.len()),
            }
        })
        .collect();
    let comment_at_end = comments
        .iter()
        .map(|c| (c.span.end, c.span.start))
        .collect();
    let mut b = Builder {
        source,
        comments,
        comment_at_end,
    };
    let mut items = Vec::new();
    for p in Builder::children(file) {
        match p.as_rule() {
            Rule::include => items.push(Item::Include(b.include(p)?)),
            Rule::tool_decl => items.push(Item::Tool(b.tool_decl(p)?)),
            Rule::spec => items.push(Item::Spec(b.spec(p)?)),
            Rule::unknown_stmt => items.push(Item::Unknown(b.unknown(p))),
            _ => {}
        }
    }
    Ok(File {
        items,
        comments: b.comments,
    })
}

/// The grammar rule of each keyword (`k_` and the word). The match is exhaustive, so a keyword
/// added to [`Keyword`] does not compile until its rule is named here; the grammar test
/// (`words_match_the_grammar`) fails on a `k_` rule the table lacks.
pub(crate) fn keyword_rule(k: Keyword) -> Rule {
    use Keyword as K;
    match k {
        K::Include => Rule::k_include,
        K::Tool => Rule::k_tool,
        K::Spec => Rule::k_spec,
        K::Transcripts => Rule::k_transcripts,
        K::Format => Rule::k_format,
        K::Order => Rule::k_order,
        K::Args => Rule::k_args,
        K::Names => Rule::k_names,
        K::Strip => Rule::k_strip,
        K::Threshold => Rule::k_threshold,
        K::PassRate => Rule::k_pass_rate,
        K::TotalCalls => Rule::k_total_calls,
        K::Extra => Rule::k_extra,
        K::Score => Rule::k_score,
        K::Binary => Rule::k_binary,
        K::Profile => Rule::k_profile,
        K::Never => Rule::k_never,
        K::Before => Rule::k_before,
        K::Rules => Rule::k_rules,
        K::Call => Rule::k_call,
        K::Optional => Rule::k_optional,
        K::AtLeast => Rule::k_at_least,
        K::AtMost => Rule::k_at_most,
        K::Exactly => Rule::k_exactly,
        K::Between => Rule::k_between,
        K::And => Rule::k_and,
        K::Or => Rule::k_or,
        K::Errored => Rule::k_errored,
        K::Weight => Rule::k_weight,
        K::Exact => Rule::k_exact,
        K::Subset => Rule::k_subset,
        K::Fuzzy => Rule::k_fuzzy,
        K::Tokens => Rule::k_tokens,
        K::Type => Rule::k_type,
        K::OneOf => Rule::k_one_of,
        K::Contains => Rule::k_contains,
        K::Present => Rule::k_present,
        K::Absent => Rule::k_absent,
        K::Any => Rule::k_any,
        K::Not => Rule::k_not,
        K::In => Rule::k_in,
        K::Turn => Rule::k_turn,
        K::Last => Rule::k_last,
        K::First => Rule::k_first,
        K::After => Rule::k_after,
        K::Runs => Rule::k_runs,
        K::Agent => Rule::k_agent,
        K::Answer => Rule::k_answer,
        K::Either => Rule::k_either,
        K::Parallel => Rule::k_parallel,
        K::Critical => Rule::k_critical,
    }
}

/// The keyword a rule matches, if it is a keyword rule.
pub(crate) fn keyword_of(r: Rule) -> Option<Keyword> {
    // Rules are a plain enum: a table by discriminant, built once from the keyword table.
    static BY_RULE: std::sync::OnceLock<Vec<Option<Keyword>>> = std::sync::OnceLock::new();
    let table = BY_RULE.get_or_init(|| {
        let mut t = Vec::new();
        for &k in Keyword::ALL {
            let at = keyword_rule(k) as usize;
            if t.len() <= at {
                t.resize(at + 1, None);
            }
            t[at] = Some(k);
        }
        t
    });
    table.get(r as usize).copied().flatten()
}

fn is_keyword(r: Rule) -> bool {
    r == Rule::EOI || keyword_of(r).is_some()
}

struct Builder<'s> {
    source: &'s SourceFile,
    comments: Vec<Comment>,
    /// Comment start by comment end, to trim trailing comments off spans.
    comment_at_end: std::collections::HashMap<usize, usize>,
}

type R<T> = Result<T, SpecDiagnostic>;

impl Builder<'_> {
    /// A pair's span without the whitespace and comments pest's implicit whitespace leaves at
    /// its end (an optional part that did not match still consumed the space before it).
    fn span(&self, p: &Pair<'_, Rule>) -> Span {
        let sp = p.as_span();
        let (start, mut end) = (sp.start(), sp.end());
        let bytes = self.source.text.as_bytes();
        loop {
            while end > start && bytes[end - 1].is_ascii_whitespace() {
                end -= 1;
            }
            match self.comment_at_end.get(&end) {
                Some(&c) if c >= start && c < end => end = c,
                _ => break,
            }
        }
        Span::new(start, end)
    }

    /// Inner pairs without keywords and comments.
    fn children(p: Pair<'_, Rule>) -> Vec<Pair<'_, Rule>> {
        p.into_inner()
            .filter(|c| c.as_rule() != Rule::COMMENT && !is_keyword(c.as_rule()))
            .collect()
    }

    fn ident(&self, p: Pair<'_, Rule>) -> Ident {
        Ident {
            name: p.as_str().to_owned(),
            span: self.span(&p),
        }
    }

    /// A tool name where no server may be named (`before`, `after`, `tool`): `SERVER::TOOL`
    /// is an error that says where one may.
    fn tool_name(&mut self, p: Pair<'_, Rule>) -> R<Ident> {
        let sp = self.span(&p);
        match self.server_tool(p)? {
            (None, tool) => Ok(tool),
            (Some(_), _) => Err(SpecDiagnostic::error(
                Code::Syntax,
                self.source,
                "a server is named only on a `call` or a `never` rule",
            )
            .label(sp, "`SERVER::TOOL` is not read here")
            .help("name the tool alone here; `call SERVER::TOOL` matches the tool of that server only")),
        }
    }

    /// A tool name and the server it is qualified with (`SERVER::TOOL`), each a bare name or a
    /// string; each span is its own part's.
    fn server_tool(&mut self, p: Pair<'_, Rule>) -> R<(Option<Ident>, Ident)> {
        let mut server = None;
        let mut tool = None;
        for inner in p.into_inner() {
            let is_server = inner.as_rule() == Rule::server;
            let part = if is_server {
                inner.into_inner().next().expect("server has one child")
            } else {
                inner
            };
            let sp = self.span(&part);
            let name = match part.as_rule() {
                Rule::string => self.string(part)?.value,
                _ => part.as_str().to_owned(),
            };
            let id = Ident { name, span: sp };
            if is_server {
                server = Some(id);
            } else {
                tool = Some(id);
            }
        }
        Ok((server, tool.expect("tool_name has a tool")))
    }

    fn string(&self, p: Pair<'_, Rule>) -> R<Str> {
        let sp = self.span(&p);
        let raw = &p.as_str()[1..p.as_str().len() - 1];
        if let Some((at, len)) = bad_escape(raw) {
            let start = sp.start + 1 + at;
            return Err(SpecDiagnostic::error(
                Code::Syntax,
                self.source,
                format!("invalid escape `{}` in string", &raw[at..at + len]),
            )
            .label(Span::new(start, start + len), "not a JSON escape")
            .help("strings use JSON escapes: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX"));
        }
        Ok(Str {
            value: unescape(raw),
            span: sp,
        })
    }

    fn num(&self, p: Pair<'_, Rule>) -> R<Num> {
        let sp = self.span(&p);
        match p.as_str().parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(Num { value: v, span: sp }),
            _ => Err(self.too_large(sp)),
        }
    }

    fn too_large(&self, sp: Span) -> SpecDiagnostic {
        SpecDiagnostic::error(Code::InvalidNumber, self.source, "number out of range")
            .label(sp, "too large to represent")
            .help("write a number within the range of a 64-bit float")
    }

    fn int(&self, p: Pair<'_, Rule>) -> Int {
        Int {
            value: p.as_str().parse().ok(),
            span: self.span(&p),
        }
    }

    fn include(&mut self, p: Pair<'_, Rule>) -> R<Include> {
        let sp = self.span(&p);
        let s = Self::children(p).into_iter().next().expect("include path");
        Ok(Include {
            path: self.string(s)?,
            span: sp,
        })
    }

    fn unknown(&self, p: Pair<'_, Rule>) -> Unknown {
        let sp = self.span(&p);
        let text = p.as_str();
        let end = text
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(text.len());
        Unknown {
            word: Ident {
                name: text[..end].to_owned(),
                span: Span::new(sp.start, sp.start + end),
            },
            span: Span::new(sp.start, sp.start + text.trim_end().len()),
        }
    }

    fn tool_decl(&mut self, p: Pair<'_, Rule>) -> R<ToolDecl> {
        let sp = self.span(&p);
        let mut it = Self::children(p).into_iter();
        let name = self.tool_name(it.next().expect("tool name"))?;
        let args = self.arg_list(it.next().expect("tool args"))?;
        Ok(ToolDecl {
            name,
            args,
            span: sp,
        })
    }

    fn spec(&mut self, p: Pair<'_, Rule>) -> R<Spec> {
        let sp = self.span(&p);
        let mut it = Self::children(p).into_iter();
        let name = self.ident(it.next().expect("spec name"));
        let mut stmts = Vec::new();
        for s in it {
            stmts.push(self.stmt(s)?);
        }
        Ok(Spec {
            name,
            stmts,
            span: sp,
        })
    }

    fn stmt(&mut self, p: Pair<'_, Rule>) -> R<Stmt> {
        let sp = self.span(&p);
        let rule = p.as_rule();
        if rule == Rule::unknown_stmt {
            let u = self.unknown(p);
            return Ok(Stmt {
                span: u.span,
                kind: StmtKind::Unknown(u),
            });
        }
        if rule == Rule::binary_stmt {
            return Ok(Stmt {
                kind: StmtKind::Binary,
                span: sp,
            });
        }
        if rule == Rule::expectation {
            return Ok(Stmt {
                kind: StmtKind::Expect(Box::new(self.expectation(p)?)),
                span: sp,
            });
        }
        if matches!(
            rule,
            Rule::turn_block | Rule::agent_block | Rule::after_block
        ) {
            return self.scope(p);
        }
        if rule == Rule::either_stmt || rule == Rule::parallel_stmt {
            return Ok(Stmt {
                kind: self.group(p)?,
                span: sp,
            });
        }
        let kids = Self::children(p);
        let mut it = kids.into_iter();
        let kind = match rule {
            Rule::transcripts_stmt => {
                StmtKind::Transcripts(it.map(|s| self.string(s)).collect::<R<_>>()?)
            }
            Rule::format_stmt => {
                let v = it.next().expect("format value");
                StmtKind::Format(if v.as_rule() == Rule::string {
                    let s = self.string(v)?;
                    Ident {
                        name: s.value,
                        span: s.span,
                    }
                } else {
                    self.ident(v)
                })
            }
            Rule::order_stmt => StmtKind::Order(self.ident(it.next().expect("order mode"))),
            Rule::args_stmt => {
                let mode = self.ident(it.next().expect("args mode"));
                let threshold = it.next().map(|n| self.num(n)).transpose()?;
                StmtKind::Args { mode, threshold }
            }
            Rule::args_tokens_stmt => {
                let mode = self.ident(it.next().expect("args mode"));
                let threshold = it.next().map(|n| self.num(n)).transpose()?;
                StmtKind::ArgsTokens { mode, threshold }
            }
            Rule::names_stmt => {
                let mut opts = Vec::new();
                for o in it {
                    let inner = o
                        .into_inner()
                        .find(|c| !is_keyword(c.as_rule()) && c.as_rule() != Rule::COMMENT);
                    let inner = inner.expect("name option");
                    opts.push(match inner.as_rule() {
                        Rule::string => NameOpt::Strip(self.string(inner)?),
                        _ => NameOpt::Flag(self.ident(inner)),
                    });
                }
                StmtKind::Names(opts)
            }
            Rule::threshold_stmt => StmtKind::Threshold(self.num(it.next().expect("threshold"))?),
            Rule::total_calls_stmt => {
                let op = it.next().expect("total_calls comparison");
                let op = Ident {
                    name: op.as_str().to_owned(),
                    span: self.span(&op),
                };
                StmtKind::TotalCalls {
                    op,
                    count: self.int(it.next().expect("total_calls count")),
                }
            }
            Rule::agent_runs_stmt => {
                let agent = self.string(it.next().expect("agent name"))?;
                let op = it.next().expect("runs comparison");
                let op = Ident {
                    name: op.as_str().to_owned(),
                    span: self.span(&op),
                };
                StmtKind::AgentRuns {
                    agent,
                    op,
                    count: self.int(it.next().expect("runs count")),
                }
            }
            Rule::pass_rate_stmt => {
                let op = it.next().expect("pass_rate comparison");
                let op = Ident {
                    name: op.as_str().to_owned(),
                    span: self.span(&op),
                };
                let rate = self.num(it.next().expect("pass_rate value"))?;
                let percent = it.next().map(|p| self.span(&p));
                StmtKind::PassRate { op, rate, percent }
            }
            Rule::extra_stmt => StmtKind::Extra(self.ident(it.next().expect("extra policy"))),
            Rule::rules_stmt => {
                let mode = self.ident(it.next().expect("rules mode"));
                StmtKind::Rules {
                    mode,
                    codes: it.map(|c| self.ident(c)).collect(),
                }
            }
            Rule::score_stmt => {
                let mut entries = Vec::new();
                for e in it {
                    let mut ei = Self::children(e).into_iter();
                    let key = self.ident(ei.next().expect("score key"));
                    let val = self.num(ei.next().expect("score value"))?;
                    entries.push((key, val));
                }
                StmtKind::Score(entries)
            }
            Rule::score_mode_stmt => {
                StmtKind::ScoreMode(self.ident(it.next().expect("score mode")))
            }
            Rule::profile_stmt => {
                let name = self.ident(it.next().expect("profile name"));
                let mut options = Vec::new();
                let mut braces = false;
                if let Some(opts) = it.next() {
                    braces = true;
                    for o in Self::children(opts) {
                        let mut oi = Self::children(o).into_iter();
                        let k = oi.next().expect("option key");
                        let key = if k.as_rule() == Rule::string {
                            let s = self.string(k)?;
                            Ident {
                                name: s.value,
                                span: s.span,
                            }
                        } else {
                            self.ident(k)
                        };
                        let v = self.json(oi.next().expect("option value"))?;
                        options.push((key, v));
                    }
                }
                StmtKind::Profile {
                    name,
                    options,
                    braces,
                }
            }
            Rule::never_stmt => {
                let t = it.next().expect("never tool");
                let any_tool = t.as_rule() == Rule::any_tool;
                let (server, tool) = if any_tool {
                    let tool = Ident {
                        name: "*".to_owned(),
                        span: self.span(&t),
                    };
                    (None, tool)
                } else {
                    self.server_tool(t)?
                };
                let mut args = None;
                let mut suffixes = Vec::new();
                for c in it {
                    match c.as_rule() {
                        Rule::arg_list => args = Some(self.arg_list(c)?),
                        _ => suffixes.push(self.suffix(c)?),
                    }
                }
                StmtKind::Never {
                    server,
                    tool,
                    any_tool,
                    args,
                    suffixes,
                }
            }
            Rule::answer_stmt => {
                StmtKind::Answer(self.constraint(it.next().expect("answer constraint"))?)
            }
            Rule::before_stmt => {
                let first = self.tool_name(it.next().expect("before first"))?;
                let then = self.tool_name(it.next().expect("before then"))?;
                StmtKind::Before { first, then }
            }
            other => unreachable!("statement rule {other:?}"),
        };
        Ok(Stmt { kind, span: sp })
    }

    /// `turn N { … }`, `turn last { … }`, `agent "name" { … }`, `after last tool { … }`.
    fn scope(&mut self, p: Pair<'_, Rule>) -> R<Stmt> {
        let sp = self.span(&p);
        let mut it = Self::children(p).into_iter();
        let sel = it.next().expect("scope selector");
        let scope = if sel.as_rule() == Rule::after_edge {
            let edge = self.span(&sel);
            let last = sel
                .into_inner()
                .next()
                .is_some_and(|k| k.as_rule() == Rule::k_last);
            let anchor = self.tool_name(it.next().expect("after anchor"))?;
            ScopeAst::After { last, edge, anchor }
        } else if sel.as_rule() == Rule::string {
            ScopeAst::Agent(self.string(sel)?)
        } else {
            let sel_span = self.span(&sel);
            match sel.into_inner().find(|c| c.as_rule() == Rule::int) {
                Some(n) => ScopeAst::Turn(self.int(n)),
                None => ScopeAst::LastTurn(sel_span),
            }
        };
        let body = it.map(|s| self.stmt(s)).collect::<R<Vec<_>>>()?;
        Ok(Stmt {
            kind: StmtKind::Scope { scope, body },
            span: sp,
        })
    }

    /// `either { … } or { … }` / `parallel { … }`, with `critical` if written.
    fn group(&mut self, p: Pair<'_, Rule>) -> R<StmtKind> {
        let either = p.as_rule() == Rule::either_stmt;
        let mut critical = None;
        let mut keyword = Span::default();
        let mut blocks = Vec::new();
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::critical => critical = Some(self.span(&c)),
                Rule::k_either | Rule::k_parallel => keyword = self.span(&c),
                Rule::block => {
                    let span = self.span(&c);
                    let mut stmts = Vec::new();
                    for s in Self::children(c) {
                        stmts.push(self.stmt(s)?);
                    }
                    blocks.push(Block { stmts, span });
                }
                _ => {}
            }
        }
        Ok(if either {
            StmtKind::Either(Box::new(Either {
                critical,
                keyword,
                branches: blocks,
            }))
        } else {
            StmtKind::Parallel(Box::new(Parallel {
                critical,
                keyword,
                body: blocks.pop().expect("parallel block"),
            }))
        })
    }

    fn expectation(&mut self, p: Pair<'_, Rule>) -> R<Expectation> {
        let mut e = Expectation {
            label: None,
            critical: None,
            repeat: None,
            server: None,
            tool: Ident {
                name: String::new(),
                span: Span::default(),
            },
            any_tool: false,
            args: None,
            output: None,
            suffixes: Vec::new(),
        };
        let mut seen_tool = false;
        for c in Self::children(p) {
            match c.as_rule() {
                Rule::label => e.label = Some(self.ident(c.into_inner().next().expect("label"))),
                Rule::critical => e.critical = Some(self.span(&c)),
                Rule::repeat => e.repeat = Some(self.repeat(c)),
                Rule::tool_name => {
                    (e.server, e.tool) = self.server_tool(c)?;
                    seen_tool = true;
                }
                Rule::any_tool => {
                    e.tool = Ident {
                        name: "*".to_owned(),
                        span: self.span(&c),
                    };
                    e.any_tool = true;
                    seen_tool = true;
                }
                Rule::arg_list if seen_tool => e.args = Some(Body::List(self.arg_list(c)?)),
                Rule::whole_exact | Rule::whole_subset => {
                    let exact = c.as_rule() == Rule::whole_exact;
                    let j = {
                        let k = Self::children(c).into_iter().next().expect("json");
                        self.json(k)?
                    };
                    e.args = Some(if exact {
                        Body::Exact(j)
                    } else {
                        Body::Subset(j)
                    });
                }
                Rule::output => {
                    let o = Self::children(c).into_iter().next().expect("output body");
                    e.output = Some(match o.as_rule() {
                        Rule::field_list => OutputBody::Fields(self.arg_list(o)?),
                        Rule::constraint => OutputBody::Value(self.constraint(o)?),
                        r => {
                            let j = {
                                let k = Self::children(o).into_iter().next().expect("json");
                                self.json(k)?
                            };
                            if r == Rule::whole_exact {
                                OutputBody::Exact(j)
                            } else {
                                OutputBody::Subset(j)
                            }
                        }
                    });
                }
                Rule::errored | Rule::weight => e.suffixes.push(self.suffix(c)?),
                _ => {}
            }
        }
        Ok(e)
    }

    /// `errored [true|false]` or `weight w`.
    fn suffix(&mut self, c: Pair<'_, Rule>) -> R<Suffix> {
        let sp = self.span(&c);
        if c.as_rule() == Rule::errored {
            let b = Self::children(c).into_iter().next();
            return Ok(Suffix::Errored {
                value: b.as_ref().is_none_or(|b| b.as_str() == "true"),
                written: b.is_some(),
                span: sp,
            });
        }
        let k = Self::children(c).into_iter().next().expect("weight");
        let n = self.num(k)?;
        Ok(Suffix::Weight(n, sp))
    }

    fn repeat(&mut self, p: Pair<'_, Rule>) -> RepeatAst {
        let sp = self.span(&p);
        let inner = p.into_inner().next().expect("repeat form");
        let rule = inner.as_rule();
        let ints: Vec<Int> = Self::children(inner)
            .into_iter()
            .map(|i| self.int(i))
            .collect();
        let mut ints = ints.into_iter();
        let kind = match rule {
            Rule::rep_optional => RepeatKind::Optional,
            Rule::rep_at_least => RepeatKind::AtLeast(ints.next().expect("n")),
            Rule::rep_at_most => RepeatKind::AtMost(ints.next().expect("n")),
            Rule::rep_exactly => RepeatKind::Exactly(ints.next().expect("n")),
            _ => {
                let a = ints.next().expect("n");
                RepeatKind::Between(a, ints.next().expect("m"))
            }
        };
        RepeatAst { kind, span: sp }
    }

    fn arg_list(&mut self, p: Pair<'_, Rule>) -> R<ArgList> {
        let sp = self.span(&p);
        let mut list = ArgList {
            args: Vec::new(),
            spread: None,
            span: sp,
        };
        for c in Self::children(p) {
            if c.as_rule() == Rule::spread {
                list.spread = Some(self.span(&c));
            } else {
                let asp = self.span(&c);
                let mut it = Self::children(c).into_iter();
                let path = self.path(it.next().expect("path"))?;
                let constraint = self.constraint(it.next().expect("constraint"))?;
                list.args.push(Arg {
                    path,
                    constraint,
                    span: asp,
                });
            }
        }
        Ok(list)
    }

    fn path(&mut self, p: Pair<'_, Rule>) -> R<PathAst> {
        let sp = self.span(&p);
        let segs = self.segs(p.into_inner(), sp.start)?;
        Ok(PathAst { segs, span: sp })
    }

    fn segs<'i>(
        &mut self,
        pairs: impl Iterator<Item = Pair<'i, Rule>>,
        start: usize,
    ) -> R<Vec<Seg>> {
        let mut segs = Vec::new();
        for c in pairs {
            let sp = self.span(&c);
            // A key is in brackets when the character before it is `[`.
            let bracket = sp.start > start && self.source.text.as_bytes()[sp.start - 1] == b'[';
            match c.as_rule() {
                Rule::ident => segs.push(Seg::Key {
                    name: c.as_str().to_owned(),
                    quoted: false,
                    bracket: false,
                    span: sp,
                }),
                Rule::string => segs.push(Seg::Key {
                    name: self.string(c)?.value,
                    quoted: true,
                    bracket,
                    span: sp,
                }),
                Rule::index => segs.push(Seg::Index(c.as_str().parse().ok(), sp)),
                Rule::each_seg => segs.push(Seg::Each(sp)),
                _ => {}
            }
        }
        Ok(segs)
    }

    fn constraint(&mut self, p: Pair<'_, Rule>) -> R<Constraint> {
        let sp = self.span(&p);
        let mut alternatives = Self::children(p)
            .into_iter()
            .map(|c| self.conjunction(c))
            .collect::<R<Vec<_>>>()?;
        if alternatives.len() == 1 {
            return Ok(Constraint {
                terms: alternatives.pop().expect("one").terms,
                span: sp,
            });
        }
        Ok(Constraint {
            terms: vec![Term {
                kind: TermKind::Or(alternatives),
                span: sp,
            }],
            span: sp,
        })
    }

    fn conjunction(&mut self, p: Pair<'_, Rule>) -> R<Constraint> {
        let sp = self.span(&p);
        let terms = Self::children(p)
            .into_iter()
            .map(|t| self.term(t))
            .collect::<R<_>>()?;
        Ok(Constraint { terms, span: sp })
    }

    fn term(&mut self, p: Pair<'_, Rule>) -> R<Term> {
        let sp = self.span(&p);
        let rule = p.as_rule();
        let kind = match rule {
            Rule::c_present => TermKind::Present,
            Rule::c_absent => TermKind::Absent,
            Rule::c_any => TermKind::Any,
            Rule::c_not => {
                let inner = Self::children(p).into_iter().next().expect("negated term");
                TermKind::Not(Box::new(self.term(inner)?))
            }
            Rule::reference => {
                let mut it = p.into_inner();
                let label = self.ident(it.next().expect("label"));
                let part = if it.next().expect("part").as_str() == "output" {
                    Part::Output
                } else {
                    Part::Args
                };
                let path = self.segs(it, sp.start)?;
                TermKind::Ref { label, part, path }
            }
            Rule::regex => {
                let mut it = p.into_inner();
                let body = it.next().expect("regex body");
                let flags = it.next().map(|f| f.as_str().to_owned()).unwrap_or_default();
                TermKind::Regex {
                    body: body.as_str().to_owned(),
                    body_span: self.span(&body),
                    flags,
                }
            }
            Rule::range => {
                let kids = Self::children(p);
                let mut min = None;
                let mut max = None;
                let mut inclusive = false;
                let mut after_op = false;
                for k in kids {
                    match k.as_rule() {
                        Rule::range_op => {
                            inclusive = k.as_str() == "..=";
                            after_op = true;
                        }
                        _ if after_op => max = Some(self.num(k)?),
                        _ => min = Some(self.num(k)?),
                    }
                }
                TermKind::Range {
                    min,
                    max,
                    inclusive,
                }
            }
            Rule::ref_cmp | Rule::ref_in => {
                let mut it = Self::children(p).into_iter();
                let op = if rule == Rule::ref_in {
                    RefOpAst::In
                } else {
                    RefOpAst::Cmp(match it.next().expect("op").as_str() {
                        ">" => CmpOp::Gt,
                        ">=" => CmpOp::Ge,
                        "<" => CmpOp::Lt,
                        _ => CmpOp::Le,
                    })
                };
                let target = self.term(it.next().expect("reference"))?;
                TermKind::RefOp {
                    op,
                    target: Box::new(target),
                }
            }
            Rule::cmp => {
                let mut it = Self::children(p).into_iter();
                let op = match it.next().expect("op").as_str() {
                    ">" => CmpOp::Gt,
                    ">=" => CmpOp::Ge,
                    "<" => CmpOp::Lt,
                    _ => CmpOp::Le,
                };
                TermKind::Cmp(op, self.num(it.next().expect("bound"))?)
            }
            Rule::c_type => TermKind::Type(
                Self::children(p)
                    .into_iter()
                    .map(|i| self.ident(i))
                    .collect(),
            ),
            Rule::c_one_of => {
                let arr = Self::children(p).into_iter().next().expect("array");
                match self.json(arr)?.kind {
                    JsonKind::Array(items) => TermKind::OneOf(items),
                    _ => unreachable!("one_of takes an array"),
                }
            }
            Rule::c_contains
                if Self::children(p.clone())
                    .first()
                    .is_some_and(|c| c.as_rule() == Rule::reference) =>
            {
                let target = self.term(Self::children(p).remove(0))?;
                TermKind::RefOp {
                    op: RefOpAst::Contains,
                    target: Box::new(target),
                }
            }
            Rule::c_contains | Rule::c_exact | Rule::c_subset => {
                let j = {
                    let k = Self::children(p).into_iter().next().expect("json");
                    self.json(k)?
                };
                match rule {
                    Rule::c_contains => TermKind::Contains(j),
                    Rule::c_exact => TermKind::Exact(j),
                    _ => TermKind::Subset(j),
                }
            }
            Rule::c_fuzzy => {
                let mut it = Self::children(p).into_iter();
                let s = self.string(it.next().expect("fuzzy text"))?;
                let t = it.next().map(|n| self.num(n)).transpose()?;
                TermKind::Fuzzy(s, t)
            }
            Rule::c_fuzzy_tokens => {
                let mut it = Self::children(p).into_iter();
                let s = self.string(it.next().expect("fuzzy text"))?;
                let t = it.next().map(|n| self.num(n)).transpose()?;
                TermKind::FuzzyTokens(s, t)
            }
            _ => TermKind::Literal(self.json(p)?),
        };
        Ok(Term { kind, span: sp })
    }

    fn json(&mut self, p: Pair<'_, Rule>) -> R<Json> {
        let sp = self.span(&p);
        let kind = match p.as_rule() {
            Rule::null => JsonKind::Null,
            Rule::boolean => JsonKind::Bool(p.as_str() == "true"),
            Rule::number => {
                self.num(p.clone())?;
                match serde_json::from_str::<serde_json::Number>(p.as_str()) {
                    Ok(n) => JsonKind::Number(n),
                    Err(_) => return Err(self.too_large(sp)),
                }
            }
            Rule::string => JsonKind::String(self.string(p)?.value),
            Rule::json_array => JsonKind::Array(
                Self::children(p)
                    .into_iter()
                    .map(|j| self.json(j))
                    .collect::<R<_>>()?,
            ),
            Rule::json_object => {
                let mut members = Vec::new();
                for m in Self::children(p) {
                    let mut it = Self::children(m).into_iter();
                    let k = self.string(it.next().expect("key"))?;
                    let v = self.json(it.next().expect("value"))?;
                    members.push((k, v));
                }
                JsonKind::Object(members)
            }
            other => unreachable!("json rule {other:?}"),
        };
        Ok(Json { kind, span: sp })
    }
}

/// Decode the JSON escapes of a string body the grammar has already validated. A lone UTF-16
/// surrogate (which JSON allows but a Rust string cannot hold) becomes U+FFFD.
pub(crate) fn unescape(raw: &str) -> String {
    if !raw.contains('\\') {
        return raw.to_owned();
    }
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('u') => {
                let hi = hex4(&mut chars);
                if (0xD800..0xDC00).contains(&hi) {
                    let mut look = chars.clone();
                    if look.next() == Some('\\') && look.next() == Some('u') {
                        let lo = hex4(&mut look);
                        if (0xDC00..0xE000).contains(&lo) {
                            chars = look;
                            let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                            out.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
                            continue;
                        }
                    }
                    out.push('\u{FFFD}');
                } else {
                    out.push(char::from_u32(hi).unwrap_or('\u{FFFD}'));
                }
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

/// The offset and length of the first invalid escape in a string body, if any.
fn bad_escape(raw: &str) -> Option<(usize, usize)> {
    let bytes = raw.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        let next = raw[i + 1..].chars().next()?;
        match next {
            '"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't' => i += 2,
            'u' => {
                let hex = raw[i + 2..]
                    .chars()
                    .take(4)
                    .take_while(char::is_ascii_hexdigit)
                    .count();
                if hex < 4 {
                    return Some((i, 2 + hex));
                }
                i += 6;
            }
            other => return Some((i, 1 + other.len_utf8())),
        }
    }
    None
}

fn hex4(chars: &mut std::str::Chars<'_>) -> u32 {
    let mut v = 0;
    for _ in 0..4 {
        v = v * 16 + chars.next().and_then(|c| c.to_digit(16)).unwrap_or(0);
    }
    v
}
