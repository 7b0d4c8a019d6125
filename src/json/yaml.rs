//! YAML text → a serde_json [`Value`] within the memory budget of JSON ([`super::budget`]).
//!
//! VCR cassettes (the recordings of HTTP calls vcrpy, pytest-recording, pydantic-ai, go-vcr and
//! Ruby's VCR keep) and files a custom mapping reads may be YAML. The events of `yaml_rust2`'s
//! parser (YAML 1.2) are built into the same `Value` a JSON reader builds, charging each node to
//! a [`Meter`] as [`super::budget`] does: strings their bytes, sequences their growth, mappings
//! their tables and keys. So a YAML document takes no more memory than the same document
//! written as JSON would be allowed, whatever its shape.
//!
//! - **Aliases** (`*a`, a copy of the node anchored `&a`): each anchored node's cost is known
//!   when it ends (what the meter gave it); an alias charges that cost before anything is
//!   copied, in constant work, so a "billion laughs" document (aliases of aliases, each level
//!   ten times the last) stops at the budget after a few levels, and no copy is ever made past
//!   it. The copy an anchor keeps is charged too.
//! - **Nesting**: at most 128 levels of sequences and mappings (serde_json's limit); the build
//!   keeps its own stack and never recurses.
//! - **Scalars** are read as the YAML 1.2 core schema says (`yaml_rust2`'s own resolution):
//!   `null`/`~`/empty, `true`/`false`, integers (decimal, `0x`, `0o`), floats (`.inf` and `.nan`,
//!   which JSON cannot hold, become `null`); quoted scalars and every other tag (`!!binary` among
//!   them, whose base64 text is kept as written, never decoded) are strings.
//! - **Keys** are the text of a scalar key; a key that is itself a sequence or mapping is an
//!   error. A key written twice keeps its first place and its last value, as JSON's reading
//!   does.
//! - **One document**: a stream of several (`---` between them) is an error at the second.
//!
//! Positions: `yaml_rust2` gives each event a line and a column counted in characters; they are
//! turned into byte offsets in one pass over the text (for text that is all ASCII, its index
//! already is one). The byte ranges of the nodes down to a chosen depth are kept
//! ([`Spans::locate`]), charged to the same meter.

use std::collections::HashMap;

use serde_json::{Map, Number, Value};
use yaml_rust2::parser::{Event, Parser, Tag};
use yaml_rust2::scanner::{Marker, TScalarStyle};
use yaml_rust2::Yaml;

use super::budget::{self, Meter};

/// Deepest nesting of sequences and mappings (serde_json's recursion limit).
pub const MAX_DEPTH: usize = 128;

/// What one recorded node position costs the meter (its range, and its place among its
/// parent's children).
const SPAN_NODE: usize = 4 * std::mem::size_of::<usize>() + std::mem::size_of::<usize>();

/// Why a text was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The text is not YAML of one document (or holds what JSON cannot: a key that is a
    /// sequence or mapping, nesting past [`MAX_DEPTH`]).
    Invalid {
        /// What is wrong, in plain words.
        message: String,
        /// Byte offset where it was found.
        at: usize,
    },
    /// The value would take more than the budget; it stopped at this byte offset.
    TooLarge {
        /// Byte offset where it stopped.
        at: usize,
    },
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Invalid { message, at } => write!(f, "{message} (at byte {at})"),
            Refusal::TooLarge { at } => write!(
                f,
                "the parsed value takes more memory than its budget (stopped at byte {at})"
            ),
        }
    }
}

impl std::error::Error for Refusal {}

/// One step of a path into a parsed document ([`Spans::locate`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key<'k> {
    /// A mapping's member, by key.
    Name(&'k str),
    /// A sequence's item, by position.
    Index(usize),
}

/// A parsed YAML document: its value, and where its nodes are written.
#[derive(Debug)]
pub struct Parsed {
    /// The document as a serde_json value (`null` for a text of no document).
    pub value: Value,
    /// Where its nodes are written.
    pub spans: Spans,
}

/// The byte ranges of a parsed document's nodes, down to the depth asked of [`from_str`]: a
/// sequence or mapping from its first character to its last, a scalar or alias at its start.
#[derive(Debug, Default)]
pub struct Spans {
    nodes: Vec<SpanNode>,
    kids: Vec<usize>,
}

#[derive(Debug, Clone, Copy)]
struct SpanNode {
    start: usize,
    end: usize,
    kids_start: usize,
    kids_end: usize,
}

impl Spans {
    /// The byte range of the node at `path` in `value` (the document these spans are of), or
    /// of its deepest ancestor whose position was kept (past the depth asked of [`from_str`],
    /// inside an alias, or where the path leaves the document); `None` for a text of no
    /// document.
    pub fn locate<'k>(
        &self,
        value: &Value,
        path: impl IntoIterator<Item = Key<'k>>,
    ) -> Option<(usize, usize)> {
        let mut node = *self.nodes.first()?;
        let mut value = value;
        for step in path {
            let kids = &self.kids[node.kids_start..node.kids_end];
            let (i, next) = match (step, value) {
                (Key::Index(i), Value::Array(items)) => (i, items.get(i)),
                (Key::Name(k), Value::Object(map)) => match map.keys().position(|x| x == k) {
                    Some(i) => (i, map.get(k)),
                    None => break,
                },
                _ => break,
            };
            let (Some(&kid), Some(next)) = (kids.get(i), next) else {
                break;
            };
            node = self.nodes[kid];
            value = next;
        }
        Some((node.start, node.end))
    }
}

/// `text` parsed as one YAML document taking at most `budget` bytes, the positions of its
/// nodes kept down to `depth` levels below the root (see the module's docs).
pub fn from_str(text: &str, budget: usize, depth: usize) -> Result<Parsed, Refusal> {
    let meter = Meter::new(budget);
    let mut build = Build {
        meter: &meter,
        pos: Positions::new(text),
        stack: Vec::new(),
        anchors: HashMap::new(),
        root: None,
        nodes: Vec::new(),
        kids: Vec::new(),
        temp: Vec::new(),
        depth,
    };
    // The root's own slot, as the JSON reader charges it.
    build.charge(budget::VALUE, 0)?;
    let mut parser = Parser::new_from_str(text);
    let mut documents = 0usize;
    loop {
        let (event, mark) = parser.next_token().map_err(|e| {
            let at = build.pos.offset(e.marker());
            Refusal::Invalid {
                message: e.info().to_owned(),
                at,
            }
        })?;
        let at = build.pos.offset(&mark);
        match event {
            Event::StreamEnd => break,
            Event::Nothing | Event::StreamStart | Event::DocumentEnd => {}
            Event::DocumentStart => {
                documents += 1;
                if documents > 1 {
                    return Err(Refusal::Invalid {
                        message: "a second YAML document: toolspec reads a file of one document"
                            .into(),
                        at,
                    });
                }
            }
            Event::Scalar(text, style, anchor, tag) => {
                build.scalar(text, style, anchor, tag.as_ref(), at)?;
            }
            Event::Alias(id) => build.alias(id, at)?,
            Event::SequenceStart(anchor, _) => build.open(Open::Seq(Vec::new()), anchor, at)?,
            Event::MappingStart(anchor, _) => {
                build.open(Open::Map(Map::new(), None), anchor, at)?;
            }
            Event::SequenceEnd | Event::MappingEnd => build.close(at, text)?,
        }
    }
    Ok(Parsed {
        value: build.root.take().unwrap_or(Value::Null),
        spans: Spans {
            nodes: build.nodes,
            kids: build.kids,
        },
    })
}

/// A sequence or mapping being built: a mapping holds the key of the value to come.
enum Open {
    Seq(Vec<Value>),
    Map(Map<String, Value>, Option<String>),
}

struct Frame {
    open: Open,
    anchor: usize,
    /// What the meter had left when it opened (its cost, for an alias, is what it took since).
    left: usize,
    /// Its position node, when kept, and where its children start in `temp`.
    node: Option<usize>,
    temp_start: usize,
}

struct Build<'m, 't> {
    meter: &'m Meter,
    pos: Positions<'t>,
    stack: Vec<Frame>,
    /// Each anchored node's value and cost.
    anchors: HashMap<usize, (Value, usize)>,
    root: Option<Value>,
    nodes: Vec<SpanNode>,
    kids: Vec<usize>,
    temp: Vec<usize>,
    depth: usize,
}

impl Build<'_, '_> {
    fn charge(&self, n: usize, at: usize) -> Result<(), Refusal> {
        if self.meter.take(n) {
            Ok(())
        } else {
            Err(Refusal::TooLarge { at })
        }
    }

    /// Whether the node about to be placed (at the current nesting) keeps its position.
    fn keeps_position(&self) -> bool {
        self.stack.len() <= self.depth && self.stack.last().is_none_or(|f| f.node.is_some())
    }

    /// A position node for a value starting at `at`, if kept.
    fn span_node(&mut self, at: usize) -> Result<Option<usize>, Refusal> {
        if !self.keeps_position() {
            return Ok(None);
        }
        self.charge(SPAN_NODE, at)?;
        self.nodes.push(SpanNode {
            start: at,
            end: at,
            kids_start: 0,
            kids_end: 0,
        });
        Ok(Some(self.nodes.len() - 1))
    }

    /// Whether the next node is a mapping's key.
    fn wants_key(&self) -> bool {
        matches!(
            self.stack.last(),
            Some(Frame {
                open: Open::Map(_, None),
                ..
            })
        )
    }

    fn key(&mut self, key: String, at: usize) -> Result<(), Refusal> {
        let Some(Frame {
            open: Open::Map(map, slot),
            node,
            ..
        }) = self.stack.last_mut()
        else {
            return Ok(());
        };
        if let Some(n) = node {
            // A block mapping's start is marked at its first key's `:`: it starts at the key.
            let start = &mut self.nodes[*n].start;
            *start = (*start).min(at);
        }
        let cost = match map.len() {
            _ if map.contains_key(&key) => 0,
            0 => budget::map_base(1),
            n if n < budget::FIRST_ENTRIES => 0,
            _ => budget::map_grow(),
        };
        *slot = Some(key);
        let cost = cost + budget::string(slot.as_ref().map_or(0, String::len));
        self.charge(cost, at)
    }

    /// Place a finished value (its position node `node`) in its parent, or as the root.
    fn place(&mut self, value: Value, node: Option<usize>, at: usize) -> Result<(), Refusal> {
        let Some(top) = self.stack.last_mut() else {
            self.root = Some(value);
            return Ok(());
        };
        match &mut top.open {
            Open::Seq(items) => {
                if items.len() == items.capacity() {
                    // The growth `push` would make (to 4, then doubling), charged before it is made.
                    let grown = (items.capacity() * 2).max(4);
                    let cost = budget::chunk(grown * budget::VALUE)
                        .saturating_sub(budget::chunk(items.capacity() * budget::VALUE));
                    if !self.meter.take(cost) {
                        return Err(Refusal::TooLarge { at });
                    }
                    items.reserve_exact(grown - items.len());
                }
                items.push(value);
                if let Some(n) = node {
                    self.temp.push(n);
                }
            }
            Open::Map(map, slot) => {
                let key = slot.take().unwrap_or_default();
                let again = map.insert(key, value).is_some();
                if let (Some(n), false) = (node, again) {
                    self.temp.push(n);
                }
            }
        }
        Ok(())
    }

    fn scalar(
        &mut self,
        text: String,
        style: TScalarStyle,
        anchor: usize,
        tag: Option<&Tag>,
        at: usize,
    ) -> Result<(), Refusal> {
        if self.wants_key() {
            if anchor > 0 {
                self.charge(budget::string(text.len()), at)?;
                let cost = budget::string(text.len());
                self.anchors
                    .insert(anchor, (Value::String(text.clone()), cost));
            }
            return self.key(text, at);
        }
        let value = resolve(text, style, tag);
        let cost = match &value {
            Value::String(s) => budget::string(s.len()),
            _ => 0,
        };
        self.charge(cost, at)?;
        if anchor > 0 {
            self.charge(cost, at)?;
            self.anchors.insert(anchor, (value.clone(), cost));
        }
        let node = self.span_node(at)?;
        self.place(value, node, at)
    }

    fn alias(&mut self, id: usize, at: usize) -> Result<(), Refusal> {
        let Some((value, cost)) = self.anchors.get(&id) else {
            return Err(Refusal::Invalid {
                message: "an alias of no anchor".into(),
                at,
            });
        };
        // Charged before it is copied: constant work for an alias past the budget.
        self.charge(*cost, at)?;
        let value = value.clone();
        if self.wants_key() {
            return match value {
                Value::String(s) => self.key(s, at),
                Value::Array(_) | Value::Object(_) => Err(not_a_scalar_key(at)),
                other => self.key(other.to_string(), at),
            };
        }
        let node = self.span_node(at)?;
        self.place(value, node, at)
    }

    fn open(&mut self, open: Open, anchor: usize, at: usize) -> Result<(), Refusal> {
        if self.wants_key() {
            return Err(not_a_scalar_key(at));
        }
        if self.stack.len() >= MAX_DEPTH {
            return Err(Refusal::Invalid {
                message: format!(
                    "nesting too deep (more than {MAX_DEPTH} levels of sequences/mappings)"
                ),
                at,
            });
        }
        let node = self.span_node(at)?;
        self.stack.push(Frame {
            open,
            anchor,
            left: self.meter.left(),
            node,
            temp_start: self.temp.len(),
        });
        Ok(())
    }

    fn close(&mut self, at: usize, text: &str) -> Result<(), Refusal> {
        let Some(frame) = self.stack.pop() else {
            return Ok(());
        };
        let value = match frame.open {
            Open::Seq(items) => Value::Array(items),
            Open::Map(map, _) => Value::Object(map),
        };
        if let Some(n) = frame.node {
            // A flow collection ends past its bracket; a block one where the next token
            // starts, less the blank space before it.
            let end = if let Some(b']' | b'}') = text.as_bytes().get(at) {
                at + 1
            } else {
                let start = self.nodes[n].start;
                start + text[start..at.max(start)].trim_end().len()
            };
            let kids_start = self.kids.len();
            self.charge(
                (self.temp.len() - frame.temp_start) * std::mem::size_of::<usize>(),
                at,
            )?;
            self.kids.extend_from_slice(&self.temp[frame.temp_start..]);
            self.temp.truncate(frame.temp_start);
            let node = &mut self.nodes[n];
            node.end = end.max(node.start);
            node.kids_start = kids_start;
            node.kids_end = self.kids.len();
        }
        if frame.anchor > 0 {
            // What the node took, charged again for the copy the anchor keeps.
            let cost = frame.left.saturating_sub(self.meter.left());
            self.charge(cost, at)?;
            self.anchors.insert(frame.anchor, (value.clone(), cost));
        }
        self.place(value, frame.node, at)
    }
}

fn not_a_scalar_key(at: usize) -> Refusal {
    Refusal::Invalid {
        message:
            "a mapping key that is itself a sequence or mapping: toolspec reads keys that are text"
                .into(),
        at,
    }
}

/// A scalar's value: plain scalars as the YAML 1.2 core schema resolves them (`yaml_rust2`'s
/// resolution, and its `!!bool`, `!!int`, `!!float`, `!!null` tags); the rest are strings.
fn resolve(text: String, style: TScalarStyle, tag: Option<&Tag>) -> Value {
    if style != TScalarStyle::Plain {
        return Value::String(text);
    }
    let core = match tag {
        None => true,
        Some(t) => {
            t.handle == "tag:yaml.org,2002:"
                && matches!(t.suffix.as_str(), "bool" | "int" | "float" | "null")
        }
    };
    if !core {
        return Value::String(text);
    }
    match Yaml::from_str(&text) {
        Yaml::Null => Value::Null,
        Yaml::Boolean(b) => Value::Bool(b),
        Yaml::Integer(i) => Value::Number(i.into()),
        Yaml::Real(r) => match r.parse::<u64>() {
            Ok(u) => Value::Number(u.into()),
            Err(_) => real(&r).map_or(Value::Null, Value::Number),
        },
        _ => Value::String(text),
    }
}

/// A float's value (JSON holds no infinity and no NaN).
fn real(text: &str) -> Option<Number> {
    let f = match text.trim_start_matches('+') {
        ".inf" | ".Inf" | ".INF" => f64::INFINITY,
        t => t.parse::<f64>().ok()?,
    };
    Number::from_f64(f)
}

/// Byte offsets of the parser's marks. For ASCII text, a mark's index is its byte offset. For
/// other text, its line (1-based; `\n`, `\r\n` and a lone `\r` end a line, as YAML says) and
/// its column in characters are turned into one: the lines are found by scanning forward from
/// the last one reached (the marks come in order), and the columns of the current line by
/// stepping over characters from a checkpoint kept every 64 characters, so that the whole
/// pass is linear in the text, whatever order the marks of one line come in.
struct Positions<'t> {
    text: &'t str,
    ascii: bool,
    /// Each line a mark was on, and where it starts, in order.
    lines: Vec<(usize, usize)>,
    /// The current line: its number, its start.
    line: usize,
    start: usize,
    /// The byte offset (from the line's start) of every 64th character of the current line,
    /// as far as it was scanned.
    checkpoints: Vec<usize>,
}

impl<'t> Positions<'t> {
    fn new(text: &'t str) -> Self {
        Positions {
            text,
            ascii: text.is_ascii(),
            lines: vec![(1, 0)],
            line: 1,
            start: 0,
            checkpoints: vec![0],
        }
    }

    fn offset(&mut self, mark: &Marker) -> usize {
        if self.ascii {
            return mark.index().min(self.text.len());
        }
        let (line, col) = (mark.line().max(1), mark.col());
        if line != self.line {
            self.go_to_line(line);
        }
        // The nearest checkpoint at or before the column, then character by character.
        let k = col / 64;
        let bytes = self.text.as_bytes();
        while self.checkpoints.len() <= k {
            let last = self.checkpoints.len() - 1;
            let from = self.start + self.checkpoints[last];
            match advance(bytes, self.text, from, 64) {
                Some(next) => self.checkpoints.push(next - self.start),
                None => return line_end(bytes, from),
            }
        }
        let from = self.start + self.checkpoints[k];
        advance(bytes, self.text, from, col % 64).unwrap_or_else(|| line_end(bytes, from))
    }

    fn go_to_line(&mut self, line: usize) {
        let (mut at_line, mut at) = match self.lines.binary_search_by_key(&line, |&(l, _)| l) {
            Ok(i) => self.lines[i],
            Err(i) => self.lines[i - 1],
        };
        let bytes = self.text.as_bytes();
        while at_line < line {
            if let Some(i) = memchr::memchr2(b'\n', b'\r', &bytes[at..]) {
                at += i + 1;
                if bytes[at - 1] == b'\r' && bytes.get(at) == Some(&b'\n') {
                    at += 1;
                }
                at_line += 1;
            } else {
                at = bytes.len();
                break;
            }
        }
        if self.lines.last().is_some_and(|&(l, _)| l < line) {
            self.lines.push((line, at));
        }
        self.line = line;
        self.start = at;
        self.checkpoints.clear();
        self.checkpoints.push(0);
    }
}

/// The byte offset `n` characters after `from`, if the line holds them.
fn advance(bytes: &[u8], text: &str, from: usize, n: usize) -> Option<usize> {
    let mut at = from;
    for _ in 0..n {
        let c = text.get(at..)?.chars().next()?;
        if matches!(c, '\n' | '\r') {
            return None;
        }
        at += c.len_utf8();
    }
    debug_assert!(at <= bytes.len());
    Some(at)
}

/// Where the line holding `from` ends.
fn line_end(bytes: &[u8], from: usize) -> usize {
    memchr::memchr2(b'\n', b'\r', &bytes[from.min(bytes.len())..]).map_or(bytes.len(), |i| from + i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(text: &str) -> Value {
        from_str(text, usize::MAX, usize::MAX).unwrap().value
    }

    #[test]
    fn reads_what_a_cassette_holds() {
        let text = "interactions:\n- request:\n    body: '{\"a\": 1}'\n    headers:\n      accept: [application/json]\n  response:\n    status: {code: 200, message: OK}\n    body:\n      string: |\n        data: {\"x\": 1}\n\n        data: [DONE]\nversion: 1\n";
        assert_eq!(
            parse(text),
            json!({"interactions": [{
                "request": {"body": "{\"a\": 1}", "headers": {"accept": ["application/json"]}},
                "response": {"status": {"code": 200, "message": "OK"},
                    "body": {"string": "data: {\"x\": 1}\n\ndata: [DONE]\n"}}}],
                "version": 1})
        );
    }

    #[test]
    fn scalars_as_the_core_schema_reads_them() {
        let text = "a: ~\nb: null\nc:\nd: true\ne: False\nf: 12\ng: -3\nh: 0x1f\ni: 0o17\nj: 1.5\nk: .inf\nl: .nan\nm: '12'\nn: \"true\"\no: yes\np: !!str 5\nq: !!binary aGk=\nr: 18446744073709551615\n";
        assert_eq!(
            parse(text),
            json!({"a": null, "b": null, "c": null, "d": true, "e": false, "f": 12, "g": -3,
                "h": 31, "i": 15, "j": 1.5, "k": null, "l": null, "m": "12", "n": "true",
                "o": "yes", "p": "5", "q": "aGk=", "r": 18446744073709551615u64})
        );
    }

    #[test]
    fn keys_are_text_and_the_last_value_of_a_key_written_twice_wins() {
        assert_eq!(
            parse("1: a\ntrue: b\nk: 1\nj: 2\nk: 3\n"),
            json!({"1": "a", "true": "b", "k": 3, "j": 2})
        );
        for text in ["? [a, b]\n: c\n", "{[a]: b}", "? {a: 1}\n: x\n"] {
            assert!(
                matches!(from_str(text, usize::MAX, 0), Err(Refusal::Invalid { .. })),
                "{text}"
            );
        }
    }

    #[test]
    fn aliases_copy_their_anchor() {
        assert_eq!(
            parse("a: &x {k: [1, 2]}\nb: *x\nc: &s text\nd: *s\n*s : key\n"),
            json!({"a": {"k": [1, 2]}, "b": {"k": [1, 2]}, "c": "text", "d": "text", "text": "key"})
        );
    }

    /// Ten levels of aliases, each ten times the last (10^10 copies of a string): refused at
    /// the budget, in work proportional to the text and the budget, never to the expansion.
    #[test]
    fn a_billion_laughs_stops_at_the_budget() {
        let mut text = String::from("a0: &a0 [\"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\"]\n");
        for i in 1..10 {
            let refs = vec![format!("*a{}", i - 1); 10].join(", ");
            text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
        }
        let started = std::time::Instant::now();
        match from_str(&text, 64 << 20, 0) {
            Err(Refusal::TooLarge { at }) => assert!(at < text.len()),
            other => panic!("{other:?}"),
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        // Within the budget, the same shape two levels deep is read.
        let small: String = text.lines().take(3).collect::<Vec<_>>().join("\n");
        let v = parse(&small);
        assert_eq!(v["a2"].as_array().unwrap().len(), 10);
        assert_eq!(v["a2"][9][9][9], json!("lol"));
    }

    #[test]
    fn the_budget_counts_as_for_json() {
        let text = format!("[{}0]", "{\"a\": 0},".repeat(1000));
        let json = budget::from_str(&text, usize::MAX).unwrap();
        // The root's position is kept too.
        let need = budget::cost(&json) + SPAN_NODE;
        assert_eq!(from_str(&text, need, 0).unwrap().value, json);
        assert!(from_str(&text, need - 1, 0).is_err());
        match from_str(&text, need / 2, 0) {
            Err(Refusal::TooLarge { at }) => assert!(at > 8 * 400 && at < text.len(), "{at}"),
            other => panic!("{other:?}"),
        }
        let long = format!("k: \"{}\"", "x".repeat(10_000));
        assert!(matches!(
            from_str(&long, 5_000, 0),
            Err(Refusal::TooLarge { .. })
        ));
    }

    #[test]
    fn errors_are_located_in_bytes() {
        let text = "a: é\nb: [1, 2\nc: 3\n";
        match from_str(text, usize::MAX, 0) {
            Err(Refusal::Invalid { at, .. }) => assert!(at > text.find('b').unwrap(), "{at}"),
            other => panic!("{other:?}"),
        }
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        match from_str(&deep, usize::MAX, 0) {
            Err(Refusal::Invalid { message, at }) => {
                assert!(message.contains("nesting too deep"), "{message}");
                assert_eq!(at, 128);
            }
            other => panic!("{other:?}"),
        }
        match from_str("a: 1\n---\nb: 2\n", usize::MAX, 0) {
            Err(Refusal::Invalid { message, at }) => {
                assert!(message.contains("second YAML document"), "{message}");
                assert_eq!(at, 5);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn nodes_are_located_in_bytes_whatever_the_characters() {
        let text = "é: ü\nlist:\n  - {k: \"ñ\", v: 1}\n  - name: x\n    args: [1]\nflow: [a, b]\n";
        let p = from_str(text, usize::MAX, usize::MAX).unwrap();
        let at = |path: &[Key<'_>]| {
            let (s, e) = p.spans.locate(&p.value, path.iter().copied()).unwrap();
            &text[s..e]
        };
        assert_eq!(at(&[Key::Name("list"), Key::Index(0)]), "{k: \"ñ\", v: 1}");
        assert_eq!(
            at(&[Key::Name("list"), Key::Index(1)]),
            "name: x\n    args: [1]"
        );
        assert_eq!(
            at(&[Key::Name("list"), Key::Index(1), Key::Name("args")]),
            "[1]"
        );
        assert_eq!(at(&[Key::Name("flow")]), "[a, b]");
        // A scalar is located at its start.
        let (s, e) = p.spans.locate(&p.value, [Key::Name("é")]).unwrap();
        assert_eq!((s, e), (text.find('ü').unwrap(), text.find('ü').unwrap()));
        // Past the depth kept, the deepest ancestor kept: the sequence, at its first `-`.
        let shallow = from_str(text, usize::MAX, 1).unwrap();
        let (s, _) = shallow
            .spans
            .locate(
                &shallow.value,
                [Key::Name("list"), Key::Index(1), Key::Name("args")],
            )
            .unwrap();
        assert_eq!(s, text.find("- {k").unwrap());
    }
}
