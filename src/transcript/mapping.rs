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

use std::collections::HashMap;

use serde_json::Value;
use serde_json_path::{JsonPath, PathElement};

use crate::code::Code;
use crate::json::budget::{self, Refusal};
use crate::json::yaml::Key;
use crate::source::Span;

use self::cost::{Scale, Shape};
use super::error::{offset_of, Locator};
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

/// How results recorded apart from their calls are linked to them.
#[derive(Debug, Clone)]
pub struct ResultsMapping {
    /// Selects the result nodes (from the root).
    pub path: MappingPath,
    /// The call id a result answers (relative to the result node).
    pub id: MappingPath,
    /// The output (relative to the result node).
    pub output: Option<MappingPath>,
    /// The error flag (relative to the result node).
    pub error: Option<MappingPath>,
}

/// A compiled `[formats.NAME]` mapping.
#[derive(Debug, Clone)]
pub struct Mapping {
    /// The mapping's name (the `NAME` of its table).
    pub name: String,
    /// Globs of the files read with it, relative to the settings file's folder.
    pub files: Vec<String>,
    /// Selects the call nodes (from the root).
    pub calls: MappingPath,
    /// The tool name (relative to a call node).
    pub tool: MappingPath,
    /// The arguments.
    pub arguments: Option<MappingPath>,
    /// The call id.
    pub id: Option<MappingPath>,
    /// The output.
    pub output: Option<MappingPath>,
    /// The error flag.
    pub error: Option<MappingPath>,
    /// Results recorded apart from calls.
    pub results: Option<ResultsMapping>,
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
/// query's filter is the selected node, whose subtree is at most the document (`nodes`).
fn relative_within_work<'p>(
    paths: impl Iterator<Item = &'p MappingPath>,
    selected: &[Located<'_>],
    (nodes, depth): (u64, u64),
) -> Result<(), String> {
    let mut sum = 0u64;
    let mut stack: Vec<&Value> = Vec::new();
    'outer: for (node, _) in selected {
        stack.push(node);
        while let Some(v) = stack.pop() {
            sum += 1;
            if sum > MAPPING_WORK {
                stack.clear();
                break 'outer;
            }
            match v {
                Value::Array(a) => stack.extend(a.iter()),
                Value::Object(o) => stack.extend(o.values()),
                _ => {}
            }
        }
    }
    let count = selected.len() as u64;
    let scale = Scale {
        root_nodes: nodes,
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
    let found = query(&mapping.calls, &root.value, size).map_err(&refuse)?;
    let relative = [
        Some(&mapping.tool),
        mapping.arguments.as_ref(),
        mapping.id.as_ref(),
        mapping.output.as_ref(),
        mapping.error.as_ref(),
    ];
    relative_within_work(relative.into_iter().flatten(), &found, size).map_err(&refuse)?;
    let mut calls = Vec::with_capacity(found.len());
    let mut findings = Vec::new();
    for (node, steps) in &found {
        let span = span_of(steps);
        let Some(Value::String(tool)) = first(&mapping.tool, node) else {
            findings.push(ReadFinding {
                code: Code::UnmappedCall.id(),
                message: format!(
                    "a node selected by `{}` has no string at `{}` ({}): not read as a call",
                    mapping.calls.text, mapping.tool.text, mapping.tool.key
                ),
                span,
            });
            continue;
        };
        let args = match mapping.arguments.as_ref().and_then(|p| first(p, node)) {
            None => Value::Object(Default::default()),
            Some(Value::String(s)) => match parse_args_text(s) {
                Ok(v) => v,
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
        let id = mapping
            .id
            .as_ref()
            .and_then(|p| first(p, node))
            .and_then(id_text);
        let output = mapping
            .output
            .as_ref()
            .and_then(|p| first(p, node))
            .map(norm_output);
        let is_error = flag(mapping.error.as_ref().and_then(|p| first(p, node)));
        calls.push(super::ToolCall {
            name: tool.clone(),
            args,
            id,
            output,
            is_error,
            span,
            turn: None,
            agent: None,
        });
    }
    if let Some(r) = &mapping.results {
        let results = query(&r.path, &root.value, size).map_err(&refuse)?;
        let relative = [Some(&r.id), r.output.as_ref(), r.error.as_ref()];
        relative_within_work(relative.into_iter().flatten(), &results, size).map_err(&refuse)?;
        let mut by_id: HashMap<String, (Option<Value>, bool)> = HashMap::new();
        for (node, steps) in &results {
            let Some(id) = first(&r.id, node).and_then(id_text) else {
                continue;
            };
            let output = r
                .output
                .as_ref()
                .and_then(|p| first(p, node))
                .map(norm_output);
            let is_error = flag(r.error.as_ref().and_then(|p| first(p, node)));
            if by_id.contains_key(&id) {
                continue;
            }
            if !calls.iter().any(|c| c.id.as_deref() == Some(id.as_str())) {
                findings.push(ReadFinding {
                    code: Code::OrphanResult.id(),
                    message: format!("a result for call id `{id}` answers no call read"),
                    span: span_of(steps),
                });
            }
            by_id.insert(id, (output, is_error));
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

    fn p(t: &str) -> MappingPath {
        MappingPath::new("k", t).unwrap()
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
}
