//! Custom mappings: reading a log no built-in reader knows with JSONPath expressions
//! (RFC 9535, evaluated by the `serde_json_path` crate) given in `toolspec.toml`.
//!
//! A mapping only changes how a file is parsed: it is applied to the bytes of a file `check` or
//! `calls` already reads, and never opens anything itself. A JSON document is the query root; a
//! JSON-lines file is read as the array of its lines (`$[0]` is the first line); a file that
//! does not start with `{` or `[` is one YAML document ([`crate::json::yaml`], within the same
//! budget), its value the root.
//!
//! Bounds: before a query runs, an upper bound of the nodes it can visit, read from the
//! expression's shape ([`cost`]: the selectors of each bracket, each `..` after the first, and
//! what the queries inside filters cost each time they run, a query from the root the whole
//! document again), must stay within [`MAPPING_WORK`], for the document (a query from the root)
//! or for the selected nodes' subtrees added up (a query relative to each selected node). A
//! result set is at most [`MAPPING_RESULTS`] nodes (counted without locations first when the
//! bound allows more). Past either, the file is not read and the error names the expression.

use std::borrow::Cow;
use std::collections::HashMap;
use std::rc::Rc;

use serde_json::Value;
use serde_json_path::{JsonPath, PathElement};

use crate::code::Code;
use crate::json::budget::{self, Refusal};
use crate::json::yaml::Key;
use crate::source::Span;

use self::cost::{Scale, Shape};
use super::error::{json_message, offset_of, Locator};
use super::sink::{norm_output, parse_args_text};
use super::spans::{SpanTree, Step};
use super::{Format, ReadError, ReadFinding, Transcript, PARSED_BUDGET};

/// Largest file a mapping reads (it queries the whole document, so the file is read whole).
pub const MAPPED_FILE_LIMIT: u64 = 64 << 20;

/// Longest JSONPath expression of a mapping, in bytes.
pub const MAX_EXPRESSION: usize = 4096;

/// Deepest nesting of brackets and parentheses in a JSONPath expression.
pub const MAX_NESTING: usize = 16;

mod cost;

/// Most nodes one JSONPath result set may hold.
pub const MAPPING_RESULTS: usize = 1_000_000;

/// Most node visits one query of a mapping may cost on one file (an upper bound computed
/// before it runs, the queries inside its filters included).
pub const MAPPING_WORK: u64 = 20_000_000;

/// One compiled JSONPath expression of a mapping, with where it is written.
#[derive(Debug, Clone)]
pub struct MappingPath {
    /// The setting it came from (`formats.events.calls`).
    pub key: String,
    /// The expression as written.
    pub text: String,
    path: JsonPath,
    /// What its cost depends on.
    shape: Shape,
}

impl MappingPath {
    /// Compile `text` (an expression relative to a node may start with `@` instead of `$`).
    pub fn new(key: &str, text: &str) -> Result<MappingPath, String> {
        let trimmed = text.trim();
        let query = match trimmed.strip_prefix('@') {
            Some(rest) => format!("${rest}"),
            None => trimmed.to_owned(),
        };
        let nesting = nesting(&query);
        // The parser recurses into brackets and parentheses: refused before it runs.
        if query.len() > MAX_EXPRESSION || nesting > MAX_NESTING {
            return Err(format!(
                "the JSONPath is longer than {MAX_EXPRESSION} bytes or nests brackets and parentheses deeper than {MAX_NESTING}"
            ));
        }
        let path = JsonPath::parse(&query)
            .map_err(|e| format!("`{text}` is not a valid JSONPath (RFC 9535): {e}"))?;
        Ok(MappingPath {
            key: key.to_owned(),
            text: text.to_owned(),
            shape: Shape::of(&query),
            path,
        })
    }

    /// Whether each query of the expression starts at the root (`$`) rather than at the
    /// current node (`@`): the expression itself, then the queries inside its filters, in the
    /// order they are written, as the cost bound reads them. The `mapping` fuzz target holds it
    /// to the syntax tree `serde_json_path` parses.
    #[doc(hidden)]
    pub fn query_roots(&self) -> Vec<bool> {
        self.shape.roots()
    }
}

/// Most JSON decodes in one query: a query is at most this many expressions plus one.
pub const MAX_DECODES: usize = 4;

/// A query of a mapping: one JSONPath expression, or several in a row (`["$.body", "$.calls[*]"]`
/// in `toolspec.toml`), each after the first running on the JSON text held in the strings the
/// one before it selects (a value that is no string is queried as it is). Every decode of a
/// file draws on one budget ([`Decoder`]), so nesting them does not multiply what they cost.
#[derive(Debug, Clone)]
pub struct MappingQuery {
    /// The expressions, in order (at least one).
    pub steps: Vec<MappingPath>,
}

impl MappingQuery {
    /// Compile the expressions `texts` of the setting `key` (one: keyed `key`; several:
    /// `key[0]`, `key[1]`, …). An error gives the index of the offending expression.
    pub fn new(key: &str, texts: &[&str]) -> Result<MappingQuery, (usize, String)> {
        if texts.is_empty() {
            return Err((0, "a list of expressions needs at least one".to_owned()));
        }
        if texts.len() > MAX_DECODES + 1 {
            return Err((
                MAX_DECODES + 1,
                format!(
                    "at most {} expressions ({MAX_DECODES} JSON decodes) in one query",
                    MAX_DECODES + 1
                ),
            ));
        }
        let steps = texts
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let key = if texts.len() == 1 {
                    key.to_owned()
                } else {
                    format!("{key}[{i}]")
                };
                MappingPath::new(&key, t).map_err(|e| (i, e))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(MappingQuery { steps })
    }

    fn head(&self) -> &MappingPath {
        &self.steps[0]
    }

    /// The setting's key (`formats.events.calls`).
    pub fn key(&self) -> &str {
        let key = &self.head().key;
        if self.steps.len() == 1 {
            key
        } else {
            key.strip_suffix("[0]").unwrap_or(key)
        }
    }

    /// The query as written: the expression, or the list of them.
    pub fn text(&self) -> String {
        if self.steps.len() == 1 {
            return self.head().text.clone();
        }
        let texts: Vec<String> = self.steps.iter().map(|p| format!("{:?}", p.text)).collect();
        format!("[{}]", texts.join(", "))
    }
}

impl From<MappingPath> for MappingQuery {
    fn from(p: MappingPath) -> MappingQuery {
        MappingQuery { steps: vec![p] }
    }
}

/// How results recorded apart from their calls are linked to them.
#[derive(Debug, Clone)]
pub struct ResultsMapping {
    /// Selects the result nodes (from the root).
    pub path: MappingQuery,
    /// The call id a result answers (relative to the result node).
    pub id: MappingQuery,
    /// The output (relative to the result node).
    pub output: Option<MappingQuery>,
    /// The error flag (relative to the result node).
    pub error: Option<MappingQuery>,
}

/// A compiled `[formats.NAME]` mapping.
#[derive(Debug, Clone)]
pub struct Mapping {
    /// The mapping's name (the `NAME` of its table).
    pub name: String,
    /// Globs of the files read with it, relative to the settings file's folder.
    pub files: Vec<String>,
    /// Selects the call nodes (from the root).
    pub calls: MappingQuery,
    /// The tool name (relative to a call node).
    pub tool: MappingQuery,
    /// The arguments.
    pub arguments: Option<MappingQuery>,
    /// The call id.
    pub id: Option<MappingQuery>,
    /// The output.
    pub output: Option<MappingQuery>,
    /// The error flag.
    pub error: Option<MappingQuery>,
    /// Results recorded apart from calls.
    pub results: Option<ResultsMapping>,
}

impl Mapping {
    /// Whether a query of the mapping reads JSON held in strings.
    pub fn decodes(&self) -> bool {
        let results = self.results.iter().flat_map(|r| {
            [
                Some(&r.path),
                Some(&r.id),
                r.output.as_ref(),
                r.error.as_ref(),
            ]
        });
        [
            Some(&self.calls),
            Some(&self.tool),
            self.arguments.as_ref(),
            self.id.as_ref(),
            self.output.as_ref(),
            self.error.as_ref(),
        ]
        .into_iter()
        .chain(results)
        .flatten()
        .any(|q| q.steps.len() > 1)
    }
}

/// The deepest nesting of brackets and parentheses in a JSONPath text (quoted strings skipped).
fn nesting(query: &str) -> usize {
    let mut deepest = 0usize;
    let mut open = 0usize;
    let mut quote: Option<char> = None;
    let mut chars = query.chars();
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            match c {
                '\\' => {
                    chars.next();
                }
                _ if c == q => quote = None,
                _ => {}
            }
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '[' | '(' => {
                open += 1;
                deepest = deepest.max(open);
            }
            ']' | ')' => open = open.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// Node count and depth of a value, iteratively.
fn measure(v: &Value) -> (u64, u64) {
    let mut nodes = 0u64;
    let mut depth = 0u64;
    let mut stack = vec![(v, 1u64)];
    while let Some((v, d)) = stack.pop() {
        nodes += 1;
        depth = depth.max(d);
        match v {
            Value::Array(a) => stack.extend(a.iter().map(|x| (x, d + 1))),
            Value::Object(o) => stack.extend(o.values().map(|x| (x, d + 1))),
            _ => {}
        }
    }
    (nodes, depth)
}

/// One located result: the node and its normalized path.
type Located<'a> = (&'a Value, Vec<Step<'a>>);

/// Run `p` on `root` (`nodes` nodes, `depth` deep), within the work and result budgets.
fn query<'a>(
    p: &MappingPath,
    root: &'a Value,
    (nodes, depth): (u64, u64),
) -> Result<Vec<Located<'a>>, String> {
    let cost = p.shape.cost(Scale {
        root_nodes: nodes,
        depth,
    });
    within_work(p, cost.visits(nodes), nodes, depth)?;
    if cost.selected(nodes) > MAPPING_RESULTS as u64 {
        // Counted first without locations (a reference each), so that a large result set is
        // refused before paths are built for it.
        let n = p.path.query(root).len();
        if n > MAPPING_RESULTS {
            return Err(format!(
                "`{}` ({}) selects {n} nodes, more than the {MAPPING_RESULTS} a mapping's query may select",
                p.text, p.key
            ));
        }
    }
    let found = p.path.query_located(root);
    Ok(found
        .into_iter()
        .map(|n| {
            let steps = n
                .location()
                .iter()
                .map(|e| match e {
                    PathElement::Name(k) => Step::K(k),
                    PathElement::Index(i) => Step::I(*i),
                })
                .collect();
            (n.node(), steps)
        })
        .collect())
}

fn within_work(p: &MappingPath, bound: u64, nodes: u64, depth: u64) -> Result<(), String> {
    if bound > MAPPING_WORK {
        return Err(format!(
            "`{}` ({}) may visit up to {bound} nodes of this file ({nodes} nodes, depth {depth}), more than the {MAPPING_WORK} a mapping's query may visit",
            p.text, p.key
        ));
    }
    Ok(())
}

/// Check that the relative queries `paths` may run on each of `selected` (whose subtrees are
/// summed, stopping past the budget) within [`MAPPING_WORK`] together. A `$` inside such a
/// query's filter is the selected node, whose subtree is at most the document (`nodes`), or
/// for nodes decoded from JSON text, at most the largest of their subtrees.
fn relative_within_work<'p>(
    paths: impl Iterator<Item = &'p MappingPath>,
    selected: &[Found<'_, '_>],
    (nodes, depth): (u64, u64),
) -> Result<(), String> {
    let mut sum = 0u64;
    let (mut largest, mut deepest) = (0u64, 0u64);
    let mut stack: Vec<(&Value, u64)> = Vec::new();
    'outer: for (node, _) in selected {
        let before = sum;
        stack.push((node, 1));
        while let Some((v, d)) = stack.pop() {
            sum += 1;
            deepest = deepest.max(d);
            if sum > MAPPING_WORK {
                stack.clear();
                break 'outer;
            }
            match v {
                Value::Array(a) => stack.extend(a.iter().map(|x| (x, d + 1))),
                Value::Object(o) => stack.extend(o.values().map(|x| (x, d + 1))),
                _ => {}
            }
        }
        largest = largest.max(sum - before);
    }
    let count = selected.len() as u64;
    let depth = depth.max(deepest);
    let scale = Scale {
        root_nodes: nodes.max(largest),
        depth,
    };
    for p in paths {
        let cost = p.shape.cost(scale);
        let bound = cost
            .per_node
            .saturating_mul(sum)
            .saturating_add(cost.fixed.saturating_mul(count));
        within_work(p, bound, sum, depth)?;
    }
    Ok(())
}

/// A node a query selected, with the steps (in the file) of where it is written, or of the
/// string in the file its JSON text was decoded from (shared by every node read from it).
type Found<'v, 'r> = (&'v Value, Rc<[Step<'r>]>);

/// Why JSON held in a string was not read.
#[derive(Debug)]
enum Undecoded {
    /// The text is not JSON.
    NotJson(serde_json::Error),
    /// The decoded values would take more memory than the file's budget has left.
    Memory,
    /// More text than [`MAPPED_FILE_LIMIT`] decoded in one file.
    Text,
    /// A query on decoded values past the work or result budget (the message says which).
    Refused(String),
}

/// Why a query of a mapping stopped.
enum Stop<'r> {
    /// Past a bound of the queries (the message names the expression).
    Refused(String),
    /// JSON held in a string not read, for the expression `key`, at the node in the file that
    /// is (or holds) the string.
    Undecoded {
        at: Rc<[Step<'r>]>,
        key: String,
        why: Undecoded,
    },
}

/// What decoding JSON held in strings may take while one file is read with a mapping. Every
/// decode of the file, by any query and at any step of a list, draws on this one budget, so
/// decodes nested in decodes add up rather than multiply: the memory the file's own document
/// left of [`PARSED_BUDGET`], [`MAPPED_FILE_LIMIT`] bytes of text in all (so however often a
/// string is selected, decoding reads at most one more file's worth), and for the queries run
/// on decoded values, [`MAPPING_WORK`] node visits and [`MAPPING_RESULTS`] selected nodes in
/// all.
struct Decoder {
    meter: budget::Meter,
    text_left: usize,
    work_left: u64,
    selected_left: u64,
}

impl Decoder {
    /// A budget for decodes after `root` was read (none when the mapping decodes nothing).
    fn new(root: &Value, decodes: bool) -> Decoder {
        let memory = if decodes {
            PARSED_BUDGET.saturating_sub(budget::cost(root))
        } else {
            0
        };
        Decoder {
            meter: budget::Meter::new(memory),
            text_left: usize::try_from(MAPPED_FILE_LIMIT).unwrap_or(usize::MAX),
            work_left: MAPPING_WORK,
            selected_left: MAPPING_RESULTS as u64,
        }
    }

    /// The JSON value the text `s` holds.
    fn decode(&mut self, s: &str) -> Result<Value, Undecoded> {
        self.text_left = self.text_left.checked_sub(s.len()).ok_or(Undecoded::Text)?;
        match budget::from_str_metered(s, &self.meter) {
            Ok(v) => Ok(v),
            Err(Refusal::TooLarge { .. }) => Err(Undecoded::Memory),
            Err(Refusal::Json(e)) => Err(Undecoded::NotJson(e)),
        }
    }

    /// Keep a copy of part of a decoded value (what a relative query selected in it).
    fn keep(&mut self, v: &Value) -> Result<Value, Undecoded> {
        if self.meter.take(budget::cost(v)) {
            Ok(v.clone())
        } else {
            Err(Undecoded::Memory)
        }
    }

    /// Run `p` over `value` (decoded, or selected by the expression before): its bound, read
    /// from the value's size before it runs, and the nodes it selects are charged to the budget.
    fn run<'v>(&mut self, p: &MappingPath, value: &'v Value) -> Result<Vec<&'v Value>, Undecoded> {
        let refused = |what: String| {
            Undecoded::Refused(format!(
                "`{}` ({}) {what}, more than the queries on the JSON held in a file's strings may take together ({MAPPING_WORK} visits, {MAPPING_RESULTS} nodes)",
                p.text, p.key
            ))
        };
        // Sized within what is left (the sizing is a visit of each node).
        let mut nodes = 0u64;
        let mut depth = 0u64;
        let mut stack = vec![(value, 1u64)];
        while let Some((v, d)) = stack.pop() {
            nodes += 1;
            depth = depth.max(d);
            if nodes > self.work_left {
                return Err(refused(format!(
                    "runs on more than {} nodes",
                    self.work_left
                )));
            }
            match v {
                Value::Array(a) => stack.extend(a.iter().map(|x| (x, d + 1))),
                Value::Object(o) => stack.extend(o.values().map(|x| (x, d + 1))),
                _ => {}
            }
        }
        self.work_left -= nodes;
        let bound = p
            .shape
            .cost(Scale {
                root_nodes: nodes,
                depth,
            })
            .visits(nodes);
        if bound > self.work_left {
            return Err(refused(format!(
                "may visit up to {bound} nodes of the JSON it reads ({nodes} nodes, depth {depth})"
            )));
        }
        self.work_left -= bound;
        let found = p.path.query(value).all();
        let n = found.len() as u64;
        if n > self.selected_left {
            return Err(refused(format!("selects {n} nodes")));
        }
        self.selected_left -= n;
        Ok(found)
    }
}

/// What is done with the nodes the last expression of a query selected.
type Done<'d, 'r, T> =
    dyn for<'v> FnMut(&[Found<'v, 'r>], &mut Decoder) -> Result<T, Stop<'r>> + 'd;

/// The nodes the expressions `rest` select from `found`, the JSON text of each string among
/// `found` decoded first; handed to `done` after the last expression.
fn descend<'r, T>(
    rest: &[MappingPath],
    found: Vec<Found<'_, 'r>>,
    dec: &mut Decoder,
    done: &mut Done<'_, 'r, T>,
) -> Result<T, Stop<'r>> {
    let Some((p, rest)) = rest.split_first() else {
        return done(&found, dec);
    };
    let mut held = Vec::with_capacity(found.len());
    for (node, at) in found {
        let value = match node {
            Value::String(s) => match dec.decode(s) {
                Ok(v) => Cow::Owned(v),
                Err(why) => {
                    return Err(Stop::Undecoded {
                        at,
                        key: p.key.clone(),
                        why,
                    })
                }
            },
            other => Cow::Borrowed(other),
        };
        held.push((value, at));
    }
    let mut next = Vec::new();
    for (value, at) in &held {
        let selected = dec.run(p, value).map_err(|why| Stop::Undecoded {
            at: Rc::clone(at),
            key: p.key.clone(),
            why,
        })?;
        next.extend(selected.into_iter().map(|n| (n, Rc::clone(at))));
    }
    descend(rest, next, dec, done)
}

/// The first node `q` selects under `node` (a relative query), decoding the JSON held in the
/// strings between its expressions. An error names the expression that was to read it.
fn first_in<'a>(
    q: &MappingQuery,
    node: &'a Value,
    dec: &mut Decoder,
) -> Result<Option<Cow<'a, Value>>, (String, Undecoded)> {
    let Some(mut cur) = first(q.head(), node).map(Cow::Borrowed) else {
        return Ok(None);
    };
    for p in &q.steps[1..] {
        let fail = |why| (p.key.clone(), why);
        if let Value::String(s) = &*cur {
            let v = dec.decode(s).map_err(fail)?;
            cur = Cow::Owned(v);
        }
        let next = match cur {
            Cow::Borrowed(b) => dec
                .run(p, b)
                .map_err(fail)?
                .first()
                .map(|v| Cow::Borrowed(*v)),
            Cow::Owned(o) => match dec.run(p, &o).map_err(fail)?.first() {
                Some(v) => Some(Cow::Owned(dec.keep(v).map_err(fail)?)),
                None => None,
            },
        };
        match next {
            Some(n) => cur = n,
            None => return Ok(None),
        }
    }
    Ok(Some(cur))
}

/// The first node `p` selects under `node` (relative queries), if any.
fn first<'a>(p: &MappingPath, node: &'a Value) -> Option<&'a Value> {
    p.path.query(node).first()
}

fn id_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The error-flag rule: `true`, a non-zero number, or the words `error`, `failed`, `failure`,
/// `true` (any case).
fn flag(v: Option<&Value>) -> bool {
    match v {
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0),
        Some(Value::String(s)) => {
            let s = s.trim().to_ascii_lowercase();
            matches!(s.as_str(), "error" | "failed" | "failure" | "true")
        }
        _ => false,
    }
}

/// The error for JSON held in a string that was not read (`why`), at `span` of the file: the
/// string, or the node holding it.
fn undecoded_error(
    loc: &Locator<'_>,
    span: Span,
    mapping: &str,
    key: &str,
    why: Undecoded,
) -> ReadError {
    let at = span.start;
    match why {
        Undecoded::NotJson(e) => {
            let (line, col) = loc.line_col(at);
            ReadError::InvalidJson {
                file: loc.name.to_string(),
                line,
                col,
                message: format!(
                    "custom mapping `{mapping}`: `{key}` runs on the JSON text held in the string here, which is not JSON: {} (line {} column {} of the string's text)",
                    json_message(&e),
                    e.line(),
                    e.column()
                ),
                help: "select only strings that hold JSON text (with a filter on the content type, for one), or read the string as it is, without a step after it".to_owned(),
                src: None,
                span: span.into(),
            }
        }
        Undecoded::Memory => loc.value_too_large(
            "the JSON text held in the strings the mapping reads, with the file's own document,",
            at,
            "select fewer strings (each is decoded again each time a query selects it), or split the file",
        ),
        Undecoded::Text => loc.wrong_shape(
            at,
            format!(
                "custom mapping `{mapping}`: `{key}`: the strings read as JSON in this file hold more than {} MiB of text together, the most a mapping decodes in one file",
                MAPPED_FILE_LIMIT >> 20
            ),
            "select fewer strings (each is decoded again each time a query selects it), or split the file",
        ),
        Undecoded::Refused(message) => loc.wrong_shape(
            at,
            format!("custom mapping `{mapping}`: {message}"),
            "narrow the expressions that run on the decoded JSON, or select fewer strings",
        ),
    }
}

/// The root a mapping queries: the document, or the array of a JSON-lines file's lines (with
/// each line's byte range).
struct Root {
    value: Value,
    lines: Option<Vec<Span>>,
    /// Where the nodes of a YAML document are written.
    yaml: Option<crate::json::yaml::Spans>,
}

fn parse_root(name: &str, bytes: &[u8]) -> Result<Root, ReadError> {
    let loc = Locator {
        name,
        text: bytes,
        base: 0,
        first_line: 1,
    };
    let too_large = |what: &str, text: &[u8], base: usize, (line, column): (usize, usize)| {
        let line_loc = Locator {
            name,
            text,
            base,
            first_line: loc.line_col(base).0,
        };
        let at = offset_of(text, line, column);
        line_loc.value_too_large(what, at, "split the file into smaller transcripts")
    };
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if !matches!(first, Some(b'{' | b'[')) {
        // Not a JSON document or JSON lines: one YAML document (a JSON scalar reads the same).
        let parsed = super::yaml::parse(
            name,
            bytes,
            usize::MAX,
            "fix the YAML at this position (a custom mapping reads a JSON document, JSON lines, or one YAML document)",
        )?;
        return Ok(Root {
            value: parsed.value,
            lines: None,
            yaml: Some(parsed.spans),
        });
    }
    match budget::from_slice(bytes, PARSED_BUDGET) {
        Ok(value) => {
            return Ok(Root {
                value,
                lines: None,
                yaml: None,
            })
        }
        Err(Refusal::TooLarge { line, column }) => {
            return Err(too_large(
                "the file's JSON document",
                bytes,
                0,
                (line, column),
            ));
        }
        Err(Refusal::Json(e)) if e.to_string().starts_with("trailing characters") => {}
        Err(Refusal::Json(e)) => return Err(loc.json_error(&e, "fix the JSON at this position")),
    }
    // The lines together within the budget of one document: they become one array.
    let mut left = PARSED_BUDGET;
    let mut values = Vec::new();
    let mut spans = Vec::new();
    let mut start = 0usize;
    for line in bytes.split(|&b| b == b'\n') {
        let end = start + line.len();
        if !line.iter().all(u8::is_ascii_whitespace) {
            match budget::from_slice(line, left) {
                Ok(v) => {
                    left = left.saturating_sub(budget::cost(&v));
                    values.push(v);
                    spans.push(Span::new(start, end));
                }
                Err(Refusal::TooLarge { line: l, column }) => {
                    let what = format!("the lines up to line {}", loc.line_col(start).0);
                    return Err(too_large(&what, line, start, (l, column)));
                }
                Err(Refusal::Json(e)) => {
                    let line_loc = Locator {
                        name,
                        text: line,
                        base: start,
                        first_line: loc.line_col(start).0,
                    };
                    return Err(line_loc.json_error(&e, "fix the JSON line at this position"));
                }
            }
        }
        start = end + 1;
    }
    Ok(Root {
        value: Value::Array(values),
        lines: Some(spans),
        yaml: None,
    })
}

/// Read `bytes` (the content of the file `name`) with `mapping`: one transcript (a JSON-lines
/// file is one session).
pub(crate) fn read_mapped(
    name: &str,
    bytes: &[u8],
    mapping: &Mapping,
) -> Result<Transcript, ReadError> {
    if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        // A byte-order mark is blanked, as the built-in readers do, so offsets stay true.
        let mut owned = b"   ".to_vec();
        owned.extend_from_slice(rest);
        return read_mapped(name, &owned, mapping);
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ReadError::Empty {
            file: name.to_string(),
        });
    }
    let root = parse_root(name, bytes)?;
    let loc = Locator {
        name,
        text: bytes,
        base: 0,
        first_line: 1,
    };
    let refuse = |message: String| {
        loc.wrong_shape(
            0,
            format!("custom mapping `{}`: {message}", mapping.name),
            "narrow the expression in toolspec.toml (fewer `..`, fewer selectors per bracket, no query from the root `$` inside a filter unless it names one value), or split the file",
        )
    };
    let size = measure(&root.value);
    let depth = size.1;
    // Where each call node is written: in the document, or in its line.
    let mut whole_tree: Option<SpanTree<'_>> = None;
    let mut line_trees: HashMap<usize, SpanTree<'_>> = HashMap::new();
    let max_depth = usize::try_from(depth).unwrap_or(usize::MAX);
    let mut span_of = |steps: &[Step<'_>]| -> Span {
        if let Some(spans) = &root.yaml {
            let keys = steps.iter().map(|s| match *s {
                Step::K(k) => Key::Name(k),
                Step::I(i) => Key::Index(i),
            });
            return spans
                .locate(&root.value, keys)
                .map(|(s, e)| Span::new(s, e))
                .unwrap_or_default();
        }
        match &root.lines {
            None => {
                let tree = whole_tree.get_or_insert_with(|| SpanTree::build(bytes, max_depth));
                tree.locate_steps(steps.iter().copied())
                    .map(|(s, e)| Span::new(s, e))
                    .unwrap_or_default()
            }
            Some(lines) => {
                let Some(Step::I(i)) = steps.first() else {
                    return Span::default();
                };
                let Some(line) = lines.get(*i) else {
                    return Span::default();
                };
                let tree = line_trees
                    .entry(*i)
                    .or_insert_with(|| SpanTree::build(&bytes[line.start..line.end], max_depth));
                tree.locate_steps(steps[1..].iter().copied())
                    .map_or(*line, |(s, e)| Span::new(line.start + s, line.start + e))
            }
        }
    };
    let mut dec = Decoder::new(&root.value, mapping.decodes());
    let relative: Vec<&MappingQuery> = [
        Some(&mapping.tool),
        mapping.arguments.as_ref(),
        mapping.id.as_ref(),
        mapping.output.as_ref(),
        mapping.error.as_ref(),
    ]
    .into_iter()
    .flatten()
    .collect();
    let mut calls = Vec::new();
    let mut findings = Vec::new();
    let read = query(mapping.calls.head(), &root.value, size)
        .map_err(Stop::Refused)
        .and_then(|found| {
            let found = found.into_iter().map(|(v, s)| (v, Rc::from(s))).collect();
            descend(
                &mapping.calls.steps[1..],
                found,
                &mut dec,
                &mut |found, dec| {
                    relative_within_work(relative.iter().map(|q| q.head()), found, size)
                        .map_err(Stop::Refused)?;
                    calls.reserve(found.len());
                    for (node, steps) in found {
                        let span = span_of(steps);
                        let undecoded = |(key, why)| Stop::Undecoded {
                            at: Rc::clone(steps),
                            key,
                            why,
                        };
                        let mut get = |q: Option<&MappingQuery>| match q {
                            None => Ok(None),
                            Some(q) => first_in(q, node, dec).map_err(undecoded),
                        };
                        let tool = if let Some(Value::String(tool)) =
                            get(Some(&mapping.tool))?.as_deref()
                        {
                            tool.clone()
                        } else {
                            findings.push(ReadFinding {
                                code: Code::UnmappedCall.id(),
                                message: format!(
                                    "a node selected by `{}` has no string at `{}` ({}): not read as a call",
                                    mapping.calls.text(),
                                    mapping.tool.text(),
                                    mapping.tool.key()
                                ),
                                span,
                            });
                            continue;
                        };
                        let mut args_text = None;
                        let args = match get(mapping.arguments.as_ref())?.as_deref() {
                            None => Value::Object(Default::default()),
                            Some(Value::String(s)) => match parse_args_text(s) {
                                Ok(v) => {
                                    args_text = super::sink::exact_args_text(s, &v);
                                    v
                                }
                                Err(e) => {
                                    findings.push(ReadFinding {
                                        code: Code::InvalidArguments.id(),
                                        message: format!(
                                            "arguments of `{tool}` are not valid JSON ({e}); kept as the raw string"
                                        ),
                                        span,
                                    });
                                    Value::String(s.clone())
                                }
                            },
                            Some(v) => v.clone(),
                        };
                        let id = get(mapping.id.as_ref())?.as_deref().and_then(id_text);
                        let output = get(mapping.output.as_ref())?.as_deref().map(norm_output);
                        let is_error = flag(get(mapping.error.as_ref())?.as_deref());
                        calls.push(super::ToolCall {
                            name: tool,
                            args,
                            id,
                            output,
                            is_error,
                            span,
                            turn: None,
                            agent: None,
                            namespace: None,
                            args_text,
                        });
                    }
                    Ok(())
                },
            )
        });
    let fail = |stop: Stop<'_>, span_of: &mut dyn FnMut(&[Step<'_>]) -> Span| match stop {
        Stop::Refused(message) => refuse(message),
        Stop::Undecoded { at, key, why } => {
            undecoded_error(&loc, span_of(&at), &mapping.name, &key, why)
        }
    };
    if let Err(stop) = read {
        return Err(fail(stop, &mut span_of));
    }
    if let Some(r) = &mapping.results {
        let relative: Vec<&MappingQuery> = [Some(&r.id), r.output.as_ref(), r.error.as_ref()]
            .into_iter()
            .flatten()
            .collect();
        let mut by_id: HashMap<String, (Option<Value>, bool)> = HashMap::new();
        let mut orphans: Vec<(String, Rc<[Step<'_>]>)> = Vec::new();
        let read = query(r.path.head(), &root.value, size)
            .map_err(Stop::Refused)
            .and_then(|found| {
                let found = found.into_iter().map(|(v, s)| (v, Rc::from(s))).collect();
                descend(&r.path.steps[1..], found, &mut dec, &mut |found, dec| {
                    relative_within_work(relative.iter().map(|q| q.head()), found, size)
                        .map_err(Stop::Refused)?;
                    for (node, steps) in found {
                        let undecoded = |(key, why)| Stop::Undecoded {
                            at: Rc::clone(steps),
                            key,
                            why,
                        };
                        let mut get = |q: Option<&MappingQuery>| match q {
                            None => Ok(None),
                            Some(q) => first_in(q, node, dec).map_err(undecoded),
                        };
                        let Some(id) = get(Some(&r.id))?.as_deref().and_then(id_text) else {
                            continue;
                        };
                        let output = get(r.output.as_ref())?.as_deref().map(norm_output);
                        let is_error = flag(get(r.error.as_ref())?.as_deref());
                        if by_id.contains_key(&id) {
                            continue;
                        }
                        if !calls.iter().any(|c| c.id.as_deref() == Some(id.as_str())) {
                            orphans.push((id.clone(), Rc::clone(steps)));
                        }
                        by_id.insert(id, (output, is_error));
                    }
                    Ok(())
                })
            });
        if let Err(stop) = read {
            return Err(fail(stop, &mut span_of));
        }
        for (id, steps) in orphans {
            findings.push(ReadFinding {
                code: Code::OrphanResult.id(),
                message: format!("a result for call id `{id}` answers no call read"),
                span: span_of(&steps),
            });
        }
        for c in &mut calls {
            if let Some((output, is_error)) = c.id.as_ref().and_then(|id| by_id.get(id)) {
                if c.output.is_none() {
                    c.output = output.clone();
                }
                c.is_error |= *is_error;
            }
        }
    }
    Ok(Transcript {
        format: Format::Custom,
        record: None,
        answered: calls.iter().map(|c| c.output.is_some()).collect(),
        calls,
        compact: None,
        tools: Vec::new(),
        findings,
        turns: None,
        answer: None,
        agent_runs: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(t: &str) -> MappingQuery {
        MappingPath::new("k", t).unwrap().into()
    }

    fn events() -> Mapping {
        Mapping {
            name: "events".into(),
            files: vec![],
            calls: p("$.events[?@.kind == 'tool']"),
            tool: p("$.tool.fn"),
            arguments: Some(p("@.tool.params")),
            id: Some(p("$.ref")),
            output: None,
            error: None,
            results: Some(ResultsMapping {
                path: p("$.events[?@.kind == 'tool_result']"),
                id: p("$.ref"),
                output: Some(p("$.body")),
                error: Some(p("$.status")),
            }),
        }
    }

    const LOG: &str = r#"{"events": [
  {"kind": "tool", "tool": {"fn": "search", "params": "{\"q\":1}"}, "ref": "a1"},
  {"kind": "tool_result", "ref": "a1", "body": "ok"},
  {"kind": "tool", "tool": {"fn": "fetch", "params": {"url": "x"}}, "ref": 7},
  {"kind": "tool_result", "ref": 7, "body": [{"type": "text", "text": "no"}], "status": "error"}
]}"#;

    #[test]
    fn reads_calls_links_results_and_locates_each_call() {
        let t = read_mapped("log.json", LOG.as_bytes(), &events()).unwrap();
        assert_eq!(t.format, Format::Custom);
        assert_eq!(t.calls.len(), 2);
        let c = &t.calls[0];
        assert_eq!(c.name, "search");
        assert_eq!(c.args, serde_json::json!({"q": 1}));
        assert_eq!(c.id.as_deref(), Some("a1"));
        assert_eq!(c.output, Some(Value::String("ok".into())));
        assert!(!c.is_error);
        assert!(LOG[c.span.start..c.span.end].starts_with("{\"kind\": \"tool\""));
        let c = &t.calls[1];
        assert_eq!(c.id.as_deref(), Some("7"));
        assert_eq!(c.output, Some(Value::String("no".into())));
        assert!(c.is_error);
        assert!(t.findings.is_empty(), "{:?}", t.findings);
    }

    #[test]
    fn json_lines_are_the_array_of_their_lines() {
        let log = "{\"fn\":\"a\",\"args\":\"{bad\"}\n\n{\"fn\":\"b\"}\n";
        let m = Mapping {
            calls: p("$[*]"),
            tool: p("$.fn"),
            arguments: Some(p("$.args")),
            id: None,
            results: None,
            ..events()
        };
        let t = read_mapped("l.jsonl", log.as_bytes(), &m).unwrap();
        let names: Vec<_> = t.calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        let at = log.find("{\"fn\":\"b\"}").unwrap();
        assert_eq!(t.calls[1].span, Span::new(at, at + 10));
        assert_eq!(t.findings[0].code, "invalid-arguments");
    }

    #[test]
    fn nesting_counts_brackets_and_parentheses_outside_strings() {
        assert_eq!(nesting("$.a[*]"), 1);
        assert_eq!(nesting("$[0,0,0][1,2]"), 1);
        assert_eq!(nesting("$..x[?@.a == 'a,b..[[c']"), 1);
        assert_eq!(nesting("$[?length(@.a) > 1 && (@.b || @[?@.c])]"), 3);
    }

    #[test]
    fn a_query_that_could_explode_is_refused_before_it_runs() {
        let m = Mapping {
            calls: p(&format!("${}", "[0,0,0,0,0,0,0,0,0,0]".repeat(12))),
            ..events()
        };
        let doc = format!("{}1{}", "[".repeat(12), "]".repeat(12));
        let err = read_mapped("d.json", doc.as_bytes(), &m).unwrap_err();
        assert!(err.to_string().contains("may visit"), "{err}");
        // Queries from the root inside filters run again for each node tested: nested four
        // deep over 61 nodes, 61^5 visits, refused; the same shape relative to the node tested
        // is bounded by the depth.
        let doc = format!("[{}1]", "1,".repeat(60));
        let m = Mapping {
            calls: p("$[?$[?$[?$[?$[*]]]]]"),
            results: None,
            ..events()
        };
        let err = read_mapped("d.json", doc.as_bytes(), &m).unwrap_err();
        assert!(err.to_string().contains("may visit up to"), "{err}");
        let m = Mapping {
            calls: p("$[?@[?@[?@[?@[*]]]]]"),
            results: None,
            ..events()
        };
        let t = read_mapped("d.json", doc.as_bytes(), &m).unwrap();
        assert!(t.calls.is_empty());
    }

    #[test]
    fn a_result_set_past_the_budget_is_refused() {
        let m = Mapping {
            calls: p("$[*]"),
            tool: p("$.fn"),
            results: None,
            ..events()
        };
        let doc = format!("[{}1]", "1,".repeat(MAPPING_RESULTS));
        let err = read_mapped("d.json", doc.as_bytes(), &m).unwrap_err();
        assert!(err.to_string().contains("selects 1000001 nodes"), "{err}");
        // And a relative query whose work could explode on the selected nodes.
        let m = Mapping {
            calls: p("$[*]"),
            tool: p(&format!("${}", "[0,0,0,0,0,0,0,0,0,0]".repeat(8))),
            results: None,
            ..events()
        };
        let err = read_mapped("d.json", b"[[1]]", &m).unwrap_err();
        assert!(err.to_string().contains("(k) may visit"), "{err}");
    }

    #[test]
    fn bad_expressions_say_why() {
        let e = MappingPath::new("formats.x.calls", "$.events[").unwrap_err();
        assert!(e.contains("not a valid JSONPath"), "{e}");
        // No regular expressions (compiled per node, maybe from the log itself).
        assert!(MappingPath::new("k", "$[?match(@.a, @.b)]").is_err());
        assert!(MappingPath::new("k", "$[?length(@.a) > 2]").is_ok());
        // Nesting the parser would recurse into, refused before it parses.
        let deep = format!("${}{}", "[?@".repeat(100_000), "]".repeat(100_000));
        let e = MappingPath::new("k", &deep).unwrap_err();
        assert!(e.contains("nests"), "{e}");
        let deep = format!("$[?{}@.a{}]", "(".repeat(40), ")".repeat(40));
        assert!(MappingPath::new("k", &deep).is_err());
    }

    fn q(steps: &[&str]) -> MappingQuery {
        MappingQuery::new("k", steps).unwrap()
    }

    /// A capture keeping each response body as JSON text, whose calls keep their arguments as
    /// JSON text inside JSON text.
    const CAPTURE: &str = r#"{"entries": [
  {"response": {"body": "{\"output\": [{\"type\": \"call\", \"name\": \"search\", \"input\": \"{\\\"args\\\": {\\\"q\\\": 1}, \\\"ref\\\": \\\"a1\\\"}\"}]}"}},
  {"response": {"body": {"output": [{"type": "call", "name": "fetch", "input": {"args": {"url": "x"}}}]}}}
]}"#;

    fn capture() -> Mapping {
        Mapping {
            calls: q(&["$.entries[*].response.body", "$.output[?@.type == 'call']"]),
            tool: p("$.name"),
            arguments: Some(q(&["$.input", "$.args"])),
            id: Some(q(&["$.input", "$.ref"])),
            results: None,
            ..events()
        }
    }

    #[test]
    fn json_held_in_strings_is_read_between_the_steps_of_a_query() {
        let t = read_mapped("c.json", CAPTURE.as_bytes(), &capture()).unwrap();
        let got: Vec<_> = t
            .calls
            .iter()
            .map(|c| (c.name.as_str(), c.args.clone(), c.id.clone()))
            .collect();
        // The second body is an object already: queried as it is.
        assert_eq!(
            got,
            [
                ("search", serde_json::json!({"q": 1}), Some("a1".to_owned())),
                ("fetch", serde_json::json!({"url": "x"}), None),
            ]
        );
        // A call read from JSON text is located at the string it was decoded from.
        let s = &t.calls[0].span;
        assert!(
            CAPTURE[s.start..s.end].starts_with("\"{\\\"output"),
            "{s:?}"
        );
        assert!(t.findings.is_empty(), "{:?}", t.findings);
        // Three steps: JSON text inside JSON text.
        let doc = serde_json::json!({"b": serde_json::to_string(&serde_json::json!({
            "inner": serde_json::to_string(&serde_json::json!([{"fn": "deep"}])).unwrap()
        })).unwrap()})
        .to_string();
        let m = Mapping {
            calls: q(&["$.b", "$.inner", "$[*]"]),
            tool: p("$.fn"),
            arguments: None,
            id: None,
            results: None,
            ..events()
        };
        let t = read_mapped("d.json", doc.as_bytes(), &m).unwrap();
        assert_eq!(t.calls[0].name, "deep");
    }

    #[test]
    fn a_string_that_holds_no_json_is_an_error_at_the_string() {
        let doc = "{\"entries\": [\n  {\"response\": {\"body\": \"event: ping\"}}\n]}";
        let err = read_mapped("c.json", doc.as_bytes(), &capture()).unwrap_err();
        assert_eq!(err.code(), "invalid-json");
        assert_eq!(err.line_col(), Some((2, 25)), "{err}");
        let text = err.to_string();
        assert!(
            text.contains("`k[1]` runs on the JSON text held in the string here"),
            "{text}"
        );
        assert!(
            text.contains("line 1 column 1 of the string's text"),
            "{text}"
        );
        // In a relative query, at the call that holds it.
        let doc = "[{\"fn\": \"a\", \"in\": \"{\\\"x\\\": 1\"}]";
        let m = Mapping {
            calls: p("$[*]"),
            tool: p("$.fn"),
            arguments: Some(q(&["$.in", "$.x"])),
            id: None,
            results: None,
            ..events()
        };
        let err = read_mapped("r.json", doc.as_bytes(), &m).unwrap_err();
        assert_eq!(err.code(), "invalid-json");
        assert_eq!(err.line_col(), Some((1, 2)), "{err}");
        assert!(err.to_string().contains("EOF while parsing"), "{err}");
    }

    #[test]
    fn decodes_share_one_budget_per_file_so_nesting_does_not_multiply() {
        // Memory: two values that fit one by one do not fit together.
        let text = format!("[{}0]", "0,".repeat(20));
        let one = budget::from_str(&text, usize::MAX)
            .map(|v| budget::cost(&v))
            .unwrap();
        let mut dec = Decoder::new(&Value::Null, false);
        dec.meter = budget::Meter::new(one + one / 2);
        dec.decode(&text).unwrap();
        assert!(matches!(dec.decode(&text), Err(Undecoded::Memory)));
        // Text: a string selected again and again is decoded again, and each time counts.
        let blank = format!("{}1", " ".repeat(4 << 20));
        let doc = serde_json::json!([{"body": blank}]).to_string();
        let m = Mapping {
            calls: q(&[
                &format!("${}.body", "[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]"),
                "$",
            ]),
            tool: p("$.fn"),
            arguments: None,
            id: None,
            results: None,
            ..events()
        };
        let err = read_mapped("t.json", doc.as_bytes(), &m).unwrap_err();
        assert!(
            err.to_string()
                .contains("more than 64 MiB of text together"),
            "{err}"
        );
        // Work: the queries on decoded values draw on one budget, whatever step they run at.
        let mut dec = Decoder::new(&Value::Null, true);
        dec.work_left = 80;
        let v: Value = serde_json::from_str(&format!("[{}0]", "0,".repeat(30))).unwrap();
        assert_eq!(
            dec.run(&MappingPath::new("k", "$[*]").unwrap(), &v)
                .unwrap()
                .len(),
            31
        );
        let err = dec
            .run(&MappingPath::new("k", "$[0]").unwrap(), &v)
            .unwrap_err();
        assert!(matches!(err, Undecoded::Refused(m) if m.contains("runs on more than")));
    }

    #[test]
    fn a_query_holds_at_most_five_expressions() {
        let steps = ["$"; MAX_DECODES + 2];
        let (at, e) = MappingQuery::new("k", &steps).unwrap_err();
        assert_eq!(at, MAX_DECODES + 1);
        assert!(e.contains("at most 5 expressions"), "{e}");
        let (at, e) = MappingQuery::new("k", &["$.a", "$["]).unwrap_err();
        assert_eq!(at, 1);
        assert!(e.contains("not a valid JSONPath"), "{e}");
        assert_eq!(q(&["$.a", "$.b"]).key(), "k");
        assert_eq!(q(&["$.a", "$.b"]).text(), r#"["$.a", "$.b"]"#);
    }
}
