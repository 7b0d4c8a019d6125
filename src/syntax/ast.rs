//! The syntax tree of a `.toolspec` file. Every node keeps its byte span; words that name modes
//! or options stay plain [`Ident`]s here and are checked by the compiler.

use crate::config::Part;
use crate::source::Span;

/// A parsed file.
#[derive(Debug, Clone, PartialEq)]
pub struct File {
    /// Top-level items in order.
    pub items: Vec<Item>,
    /// Every comment, in order (kept for `fmt`).
    pub comments: Vec<Comment>,
}

/// A `# comment` (text includes the `#`).
#[derive(Debug, Clone, PartialEq)]
pub struct Comment {
    /// The comment text, `#` included.
    pub text: String,
    /// Where it is.
    pub span: Span,
}

/// A top-level item.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// `include "path"`
    Include(Include),
    /// `tool name(arg: constraint, ...)`
    Tool(ToolDecl),
    /// `spec name { ... }`
    Spec(Spec),
    /// A line starting with a word that is no keyword.
    Unknown(Unknown),
}

impl Item {
    /// The item's span.
    pub fn span(&self) -> Span {
        match self {
            Item::Include(i) => i.span,
            Item::Tool(t) => t.span,
            Item::Spec(s) => s.span,
            Item::Unknown(u) => u.span,
        }
    }
}

/// A word with its span.
#[derive(Debug, Clone, PartialEq)]
pub struct Ident {
    /// The word (for quoted tool names, the decoded string).
    pub name: String,
    /// Where it is written.
    pub span: Span,
}

/// A string literal, decoded.
#[derive(Debug, Clone, PartialEq)]
pub struct Str {
    /// The decoded value.
    pub value: String,
    /// The literal, quotes included.
    pub span: Span,
}

/// A number literal.
#[derive(Debug, Clone, PartialEq)]
pub struct Num {
    /// The value.
    pub value: f64,
    /// The literal as written.
    pub span: Span,
}

/// A non-negative integer literal (counts, indices); `None` when it does not fit.
#[derive(Debug, Clone, PartialEq)]
pub struct Int {
    /// The value, if it fits in a `u32`.
    pub value: Option<u32>,
    /// The literal as written.
    pub span: Span,
}

/// `include "path"`.
#[derive(Debug, Clone, PartialEq)]
pub struct Include {
    /// The included path, relative to the including file.
    pub path: Str,
    /// The whole statement.
    pub span: Span,
}

/// `tool name(arg: constraint, ...)`: constraints applied to every expectation of the tool, and
/// the argument names it knows.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDecl {
    /// The tool name.
    pub name: Ident,
    /// Declared arguments.
    pub args: ArgList,
    /// The whole declaration.
    pub span: Span,
}

/// A statement starting with an unknown word.
#[derive(Debug, Clone, PartialEq)]
pub struct Unknown {
    /// The first word.
    pub word: Ident,
    /// The whole line.
    pub span: Span,
}

/// `spec name { ... }`.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    /// The spec name.
    pub name: Ident,
    /// Statements in order.
    pub stmts: Vec<Stmt>,
    /// The whole block.
    pub span: Span,
}

/// A statement inside a spec.
#[derive(Debug, Clone, PartialEq)]
pub struct Stmt {
    /// What it says.
    pub kind: StmtKind,
    /// The whole statement.
    pub span: Span,
}

/// The statements of a spec.
#[derive(Debug, Clone, PartialEq)]
pub enum StmtKind {
    /// `transcripts "glob", ...`
    Transcripts(Vec<Str>),
    /// `format openai`
    Format(Ident),
    /// `order in_order`
    Order(Ident),
    /// `args subset` / `args fuzzy >= 0.8`
    Args {
        /// The mode word.
        mode: Ident,
        /// The threshold after `>=`.
        threshold: Option<Num>,
    },
    /// `args fuzzy tokens >= 0.8`: string literals compare by token-set similarity.
    ArgsTokens {
        /// The mode word (`fuzzy`; the compiler reports any other).
        mode: Ident,
        /// The threshold after `>=`.
        threshold: Option<Num>,
    },
    /// `names ignore_case, strip "functions."`
    Names(Vec<NameOpt>),
    /// `threshold 0.8`
    Threshold(Num),
    /// `pass_rate >= 0.9`
    PassRate {
        /// The comparison as written (only `>=` compiles).
        op: Ident,
        /// The rate.
        rate: Num,
        /// Where a `%` after the number is written (it does not compile: rates are fractions).
        percent: Option<Span>,
    },
    /// `total_calls <= 20`: how many tool calls the run (or the block) makes.
    TotalCalls {
        /// The comparison as written (`==`, `>=`, `<=`, `>`, `<`).
        op: Ident,
        /// The count.
        count: Int,
    },
    /// `agent "researcher" runs <= 2`: how many times a sub-agent was started.
    AgentRuns {
        /// The sub-agent.
        agent: Str,
        /// The comparison as written.
        op: Ident,
        /// The count.
        count: Int,
    },
    /// `extra forbid`
    Extra(Ident),
    /// `rules deny schema-violation, repeated-call`
    Rules {
        /// What the rules' findings do (`deny`).
        mode: Ident,
        /// Rule codes, as written.
        codes: Vec<Ident>,
    },
    /// `score { exact 1 name_only 0.5 }`
    Score(Vec<(Ident, Num)>),
    /// `score per_argument`: how name-only calls are credited.
    ScoreMode(Ident),
    /// `binary`
    Binary,
    /// `profile deepeval { threshold: 0.5 }`
    Profile {
        /// The profile name.
        name: Ident,
        /// Options with their values, as written.
        options: Vec<(Ident, Json)>,
        /// Whether braces were written (for `fmt`).
        braces: bool,
    },
    /// `never tool(args) errored`, `never * errored`
    Never {
        /// The MCP server the tool is qualified with (`never SERVER::TOOL`), if any.
        server: Option<Ident>,
        /// The tool (`*` for any tool, then `any_tool` is set).
        tool: Ident,
        /// `never *`: calls of any tool.
        any_tool: bool,
        /// Forbidden only with these arguments.
        args: Option<ArgList>,
        /// `errored` (forbidden only when the call failed, or with `false` when it did not);
        /// a `weight` is kept for the compiler to report.
        suffixes: Vec<Suffix>,
    },
    /// `a before b`
    Before {
        /// Label or tool name of the earlier expectation.
        first: Ident,
        /// Label or tool name of the later one.
        then: Ident,
    },
    /// An expected call.
    Expect(Box<Expectation>),
    /// `turn N { … }`, `turn last { … }`, `agent "name" { … }`, `after last tool { … }`:
    /// expectations, `never` rules and counts about the calls of that turn or sub-agent, or
    /// after that call.
    Scope {
        /// Which turn or agent.
        scope: ScopeAst,
        /// The statements inside the braces (expectations and nested scopes).
        body: Vec<Stmt>,
    },
    /// `answer C`: a constraint on the final assistant message.
    Answer(Constraint),
    /// `[critical] either { … } or { … } [or { … }]`
    Either(Box<Either>),
    /// `[critical] parallel { … }`
    Parallel(Box<Parallel>),
    /// An unknown word.
    Unknown(Unknown),
}

/// What a scope block selects.
#[derive(Debug, Clone, PartialEq)]
pub enum ScopeAst {
    /// `turn N` (1-based).
    Turn(Int),
    /// `turn last`.
    LastTurn(Span),
    /// `agent "name"`.
    Agent(Str),
    /// `after last tool`, `after first label`: the calls after that call.
    After {
        /// `last` (else `first`).
        last: bool,
        /// Where `first` or `last` is written.
        edge: Span,
        /// The tool or label.
        anchor: Ident,
    },
}

impl ScopeAst {
    /// Where the selector is written (`turn 2`'s number, `last`, the agent's string).
    pub fn span(&self) -> Span {
        match self {
            ScopeAst::Turn(n) => n.span,
            ScopeAst::LastTurn(s) => *s,
            ScopeAst::Agent(s) => s.span,
            ScopeAst::After { anchor, .. } => anchor.span,
        }
    }
}

/// `[critical] either { … } or { … }`: one of the branches must hold; the best one counts.
#[derive(Debug, Clone, PartialEq)]
pub struct Either {
    /// Where `critical` is written, if it is.
    pub critical: Option<Span>,
    /// The `either` keyword.
    pub keyword: Span,
    /// The branches, in order.
    pub branches: Vec<Block>,
}

/// `[critical] parallel { … }`: the calls of the block in any order among themselves, the block
/// in its place.
#[derive(Debug, Clone, PartialEq)]
pub struct Parallel {
    /// Where `critical` is written, if it is.
    pub critical: Option<Span>,
    /// The `parallel` keyword.
    pub keyword: Span,
    /// The block.
    pub body: Block,
}

/// `{ statements }` of a group.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// The statements in order.
    pub stmts: Vec<Stmt>,
    /// The block, braces included.
    pub span: Span,
}

/// One item of a `names` statement.
#[derive(Debug, Clone, PartialEq)]
pub enum NameOpt {
    /// `ignore_case`, `unify_separators` (checked by the compiler).
    Flag(Ident),
    /// `strip "prefix"`
    Strip(Str),
}

/// `[label:] [critical] [repeat] call tool(args) [-> output] [errored b] [weight w]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Expectation {
    /// The label.
    pub label: Option<Ident>,
    /// Where `critical` is written, if it is.
    pub critical: Option<Span>,
    /// How many times.
    pub repeat: Option<RepeatAst>,
    /// The MCP server the tool is qualified with (`call SERVER::TOOL`), if any.
    pub server: Option<Ident>,
    /// The tool (`*` for any tool, then `any_tool` is set).
    pub tool: Ident,
    /// `call *`: a count of the calls of any tool (`at_most 1 call * errored`).
    pub any_tool: bool,
    /// Argument constraints; `None` when no argument list is written (arguments unchecked).
    pub args: Option<Body>,
    /// Output constraints.
    pub output: Option<OutputBody>,
    /// `errored` / `weight` suffixes, in order.
    pub suffixes: Vec<Suffix>,
}

/// A count prefix.
#[derive(Debug, Clone, PartialEq)]
pub struct RepeatAst {
    /// Which form.
    pub kind: RepeatKind,
    /// Where it is written.
    pub span: Span,
}

/// The count forms.
#[derive(Debug, Clone, PartialEq)]
pub enum RepeatKind {
    /// `optional`
    Optional,
    /// `at_least n`
    AtLeast(Int),
    /// `at_most n`
    AtMost(Int),
    /// `exactly n`
    Exactly(Int),
    /// `between n and m`
    Between(Int, Int),
}

/// A suffix of an expectation.
#[derive(Debug, Clone, PartialEq)]
pub enum Suffix {
    /// `errored` / `errored false`.
    Errored {
        /// The value (`errored` alone is `true`).
        value: bool,
        /// Whether the boolean was written.
        written: bool,
        /// Where.
        span: Span,
    },
    /// `weight 2`
    Weight(Num, Span),
}

/// The arguments of a call or tool declaration.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// `(a: 1, b: present, ...)`
    List(ArgList),
    /// `exact {json}`
    Exact(Json),
    /// `subset {json}`
    Subset(Json),
}

/// The output of a call.
#[derive(Debug, Clone, PartialEq)]
pub enum OutputBody {
    /// `{ field: constraint, ... }`
    Fields(ArgList),
    /// `exact json`
    Exact(Json),
    /// `subset json`
    Subset(Json),
    /// One constraint on the whole output.
    Value(Constraint),
}

/// A parenthesised or braced list of `path: constraint` items.
#[derive(Debug, Clone, PartialEq)]
pub struct ArgList {
    /// The constrained paths.
    pub args: Vec<Arg>,
    /// Where `...` is written (unlisted keys allowed).
    pub spread: Option<Span>,
    /// The list, delimiters included.
    pub span: Span,
}

/// `path: constraint`.
#[derive(Debug, Clone, PartialEq)]
pub struct Arg {
    /// The path.
    pub path: PathAst,
    /// The constraint.
    pub constraint: Constraint,
    /// The whole item.
    pub span: Span,
}

/// A path `a.b[0]."odd key"`.
#[derive(Debug, Clone, PartialEq)]
pub struct PathAst {
    /// The segments.
    pub segs: Vec<Seg>,
    /// Where it is written.
    pub span: Span,
}

/// One path segment.
#[derive(Debug, Clone, PartialEq)]
pub enum Seg {
    /// A key, bare or quoted (`quoted` keeps how it was written, for `fmt`).
    Key {
        /// The key.
        name: String,
        /// Whether it was written as a string.
        quoted: bool,
        /// Whether it was written in brackets (`["k"]`).
        bracket: bool,
        /// Where.
        span: Span,
    },
    /// `[3]`; `None` when the index does not fit.
    Index(Option<usize>, Span),
    /// `[*]`: every element (reference paths only).
    Each(Span),
}

/// Terms joined by `and`: all must hold. Alternatives joined by `or` are one term,
/// [`TermKind::Or`], so a constraint without `or` reads as before.
#[derive(Debug, Clone, PartialEq)]
pub struct Constraint {
    /// The terms.
    pub terms: Vec<Term>,
    /// Where.
    pub span: Span,
}

/// One constraint term.
#[derive(Debug, Clone, PartialEq)]
pub struct Term {
    /// What it says.
    pub kind: TermKind,
    /// Where.
    pub span: Span,
}

/// The kinds of term.
#[derive(Debug, Clone, PartialEq)]
pub enum TermKind {
    /// A JSON literal, compared under the spec's argument mode.
    Literal(Json),
    /// `exact json`
    Exact(Json),
    /// `subset json`
    Subset(Json),
    /// `fuzzy "text" >= t`
    Fuzzy(Str, Option<Num>),
    /// `fuzzy tokens "text" >= t`: token-set similarity.
    FuzzyTokens(Str, Option<Num>),
    /// `/regex/flags`
    Regex {
        /// The text between the slashes, as written (`\/` not yet unescaped).
        body: String,
        /// Where the body is.
        body_span: Span,
        /// Flags after the closing slash.
        flags: String,
    },
    /// `a..b`, `a..=b`, `a..`, `..b`
    Range {
        /// Lower bound.
        min: Option<Num>,
        /// Upper bound.
        max: Option<Num>,
        /// `..=` (upper bound included).
        inclusive: bool,
    },
    /// `> n`, `>= n`, `< n`, `<= n`
    Cmp(CmpOp, Num),
    /// `type a|b`
    Type(Vec<Ident>),
    /// `one_of [..]`
    OneOf(Vec<Json>),
    /// `contains json`
    Contains(Json),
    /// `present`
    Present,
    /// `absent`
    Absent,
    /// `any`
    Any,
    /// `not term`
    Not(Box<Term>),
    /// `label.output.path` / `label.args.path`
    Ref {
        /// The label.
        label: Ident,
        /// Arguments or output.
        part: Part,
        /// The path inside it.
        path: Vec<Seg>,
    },
    /// `C or D`: one of the alternatives holds (each a conjunction; `and` binds tighter).
    Or(Vec<Constraint>),
    /// `<= label.output.max`, `in label.output.ids[*]`, `contains label.output.code` (`not in`
    /// is `Not` around `in`). The target is a [`TermKind::Ref`], or a literal the compiler
    /// reports.
    RefOp {
        /// The operator.
        op: RefOpAst,
        /// What follows it.
        target: Box<Term>,
    },
}

/// The operator of a [`TermKind::RefOp`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefOpAst {
    /// `<`, `<=`, `>`, `>=`
    Cmp(CmpOp),
    /// `in`
    In,
    /// `contains`
    Contains,
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `<`
    Lt,
    /// `<=`
    Le,
}

impl CmpOp {
    /// As written.
    pub fn as_str(self) -> &'static str {
        match self {
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
        }
    }
}

/// A JSON literal.
#[derive(Debug, Clone, PartialEq)]
pub struct Json {
    /// What it is.
    pub kind: JsonKind,
    /// Where.
    pub span: Span,
}

/// The kinds of JSON literal.
#[derive(Debug, Clone, PartialEq)]
pub enum JsonKind {
    /// `null`
    Null,
    /// `true` / `false`
    Bool(bool),
    /// A number (the literal text is at the span).
    Number(serde_json::Number),
    /// A string.
    String(String),
    /// `[..]`
    Array(Vec<Json>),
    /// `{"k": v, ..}`
    Object(Vec<(Str, Json)>),
}

/// `s` as a JSON string.
fn push_json_str(out: &mut String, s: &str) {
    out.push_str(&serde_json::Value::String(s.to_owned()).to_string());
}

impl Json {
    /// The literal as JSON text where [`Json::to_value`] does not hold it as written (it has an
    /// integer past the 64-bit range, or `-0`: an integer that serde_json reads as a float),
    /// its numbers as `source` (the spec's text) writes them; `None` when the value holds it.
    pub fn exact_text(&self, source: &str) -> Option<String> {
        let number = |j: &Json| source.get(j.span.start..j.span.end);
        let inexact = |j: &Json| {
            matches!(&j.kind, JsonKind::Number(n) if n.is_f64())
                && number(j).is_some_and(|t| !t.contains(['.', 'e', 'E']))
        };
        if !self.any_number(&inexact) {
            return None;
        }
        let mut out = String::new();
        self.write_json(&mut out, &number);
        Some(out)
    }

    /// Whether some number of the literal passes `f`.
    fn any_number(&self, f: &impl Fn(&Json) -> bool) -> bool {
        match &self.kind {
            JsonKind::Number(_) => f(self),
            JsonKind::Array(a) => a.iter().any(|j| j.any_number(f)),
            JsonKind::Object(o) => o.iter().any(|(_, j)| j.any_number(f)),
            JsonKind::Null | JsonKind::Bool(_) | JsonKind::String(_) => false,
        }
    }

    /// The literal as JSON text, each number as `number` gives its text (or as its value).
    fn write_json<'s>(&self, out: &mut String, number: &impl Fn(&Json) -> Option<&'s str>) {
        match &self.kind {
            JsonKind::Null => out.push_str("null"),
            JsonKind::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            JsonKind::Number(n) => match number(self) {
                Some(t) => out.push_str(t),
                None => out.push_str(&n.to_string()),
            },
            JsonKind::String(s) => push_json_str(out, s),
            JsonKind::Array(a) => {
                out.push('[');
                for (i, j) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    j.write_json(out, number);
                }
                out.push(']');
            }
            JsonKind::Object(o) => {
                out.push('{');
                for (i, (k, j)) in o.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    push_json_str(out, &k.value);
                    out.push(':');
                    j.write_json(out, number);
                }
                out.push('}');
            }
        }
    }

    /// The value as `serde_json`.
    pub fn to_value(&self) -> serde_json::Value {
        use serde_json::Value;
        match &self.kind {
            JsonKind::Null => Value::Null,
            JsonKind::Bool(b) => Value::Bool(*b),
            JsonKind::Number(n) => Value::Number(n.clone()),
            JsonKind::String(s) => Value::String(s.clone()),
            JsonKind::Array(a) => Value::Array(a.iter().map(Json::to_value).collect()),
            JsonKind::Object(o) => Value::Object(
                o.iter()
                    .map(|(k, v)| (k.value.clone(), v.to_value()))
                    .collect(),
            ),
        }
    }
}
