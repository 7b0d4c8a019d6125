//! The bodies of the fuzz targets, shared by the libFuzzer binaries (`fuzz_targets/*.rs`) and by
//! the replay of every saved crash input (`tests/it/hostile_fuzz_regressions.rs` includes this file).
//!
//! Each target feeds arbitrary bytes to one stage and checks more than "does not panic":
//! diagnostics must render (their spans lie inside the text, on character boundaries), `fmt`
//! output must parse again and be a fixed point, a compiled config must survive a JSON round trip
//! and run, call spans must lie inside the file, and `score` must print valid JSON.

use std::collections::BTreeMap;

use arbitrary::{Arbitrary, Unstructured};
use serde_json::{json, Map, Value};
use toolspec::compile::{self, MapLoader};
use toolspec::config::profile::PROFILES;
use toolspec::config::{
    After, Anchor, AnswerCheck, ArgsMode, BeforeRule, Check, CompiledFile, Counted, Edge,
    Expectation, ExtraCalls, Forbidden, Group, GroupKind, JsonType, LastTurn, Limit, MatcherConfig,
    NameRules, OrderMode, Part, PathCheck, PathSeg, Pattern, Profile, RefOp, Repeat, Scope,
    Scoring, TurnSel, ValueMatcher, CONFIG_VERSION,
};
use toolspec::engine;
use toolspec::score::profiles::{self, PEERS};
use toolspec::source::{SourceFile, Span};
use toolspec::transcript::model::AgentRun;
use toolspec::transcript::{self, Format, ToolCall};

/// Every target, by name (the folder names under `fuzz/corpus/` and `tests/fuzz_regressions/`).
pub const TARGETS: &[&str] = &[
    "spec_parser",
    "compile",
    "transcript_read",
    "transcript_eval",
    "engine",
    "score_line",
    "document_nodes",
    "mapping",
    "schema_rules",
    "yaml",
];

/// Run the target `name` on `data`.
pub fn run(name: &str, data: &[u8]) {
    match name {
        "spec_parser" => spec_parser(data),
        "compile" => compile(data),
        "transcript_read" => transcript_read(data),
        "transcript_eval" => transcript_eval(data),
        "engine" => engine(data),
        "score_line" => score_line(data),
        "document_nodes" => document_nodes(data),
        "mapping" => mapping(data),
        "schema_rules" => schema_rules(data),
        "yaml" => yaml(data),
        other => panic!("unknown fuzz target {other}"),
    }
}

/// Render a diagnostic as the CLI does (no colour): panics if a span is out of bounds.
fn render(d: &dyn miette::Diagnostic) -> String {
    let mut out = String::new();
    miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
        .render_report(&mut out, d)
        .expect("diagnostic renders");
    out
}

/// The spec parser and formatter.
pub fn spec_parser(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let source = SourceFile::new("fuzz.toolspec", text.to_owned());
    match toolspec::syntax::format(&source) {
        Ok(formatted) => {
            let again = SourceFile::new("fuzz.toolspec", formatted.clone());
            let twice = match toolspec::syntax::format(&again) {
                Ok(t) => t,
                Err(e) => panic!(
                    "fmt output does not parse: {}\n--- input\n{text}\n--- formatted\n{formatted}",
                    e.message
                ),
            };
            assert_eq!(twice, formatted, "fmt is not idempotent on {text:?}");
        }
        Err(d) => {
            render(&d);
        }
    }
}

/// The compiler, with one includable file: the input is `included \0 main`.
pub fn compile(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (included, main) = text.split_once('\0').unwrap_or(("", text));
    let loader = MapLoader::new()
        .with("shared.toolspec", included)
        .with("main.toolspec", main);
    let source = SourceFile::new("main.toolspec", main.to_owned());
    let result = compile::compile(&source, &loader);
    for d in &result.diagnostics {
        render(d);
    }
    let Some(file) = result.file else { return };
    let text = serde_json::to_string(&file).expect("a compiled file serializes");
    let back: CompiledFile = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("a compiled file deserializes: {e}\n{text}"));
    assert_eq!(back, file, "config JSON round trip");
    let calls = sample_calls();
    for spec in &file.specs {
        run_spec(spec, &calls);
    }
}

/// A few calls of every shape (JSON-in-string output, errors, nested arguments).
fn sample_calls() -> Vec<ToolCall> {
    let call = |name: &str, args: Value, output: Option<Value>, is_error| ToolCall {
        name: name.into(),
        args,
        id: None,
        output,
        is_error,
        span: Span::default(),
        turn: None,
        agent: None,
        namespace: None,
        args_text: None,
    };
    vec![
        call(
            "lookup",
            json!({"q": "x", "n": 1}),
            Some(json!("{\"id\": 7}")),
            false,
        ),
        call(
            "search",
            json!({"query": "refund policy", "filters": {"date": {"from": "2024"}}}),
            None,
            false,
        ),
        call(
            "functions.get_order",
            json!({"order_id": "ORD-1", "items": [1, 2.5, "a"]}),
            Some(json!({"status": "ok"})),
            false,
        ),
        call(
            "issue_refund",
            json!("{not json"),
            Some(json!("boom")),
            true,
        ),
        call("lookup", json!({}), None, false),
    ]
}

fn run_spec(spec: &MatcherConfig, calls: &[ToolCall]) {
    let verdict = engine::run(spec, calls);
    assert!(
        (0.0..=1.0).contains(&verdict.score) || verdict.score.is_nan(),
        "score {} out of [0, 1]",
        verdict.score
    );
    for f in &verdict.findings {
        if let Some(i) = f.call {
            assert!(i < calls.len(), "finding names call {i} of {}", calls.len());
        }
    }
    if let Some(p) = &spec.profile {
        let expected = toolspec::check::run::expected_calls(spec);
        let v = profiles::score_calls(p, &expected, calls);
        serde_json::to_string(&v.details).expect("profile details serialize");
    }
}

/// Every transcript reader: the first byte picks the format (0: detection) and the file name;
/// the rest is the file. Read whole and streamed; a JSON document also as a value.
pub fn transcript_read(data: &[u8]) {
    let Some((&sel, bytes)) = data.split_first() else {
        return;
    };
    let n = Format::ALL.len() + 1;
    let format = match sel as usize % n {
        0 => None,
        i => Some(Format::ALL[i - 1]),
    };
    let name = ["t.json", "t.jsonl", "t.log"][(sel as usize / n) % 3];
    let full = transcript::Reader::new().format(format).read(name, bytes);
    same_when_restricted(name, bytes, format, &full);
    same_as_a_document(name, bytes, format);
    match full {
        Ok(transcripts) => {
            for t in &transcripts {
                for c in &t.calls {
                    assert!(
                        c.span.start <= c.span.end && c.span.end <= bytes.len(),
                        "call span {:?} outside {} bytes",
                        c.span,
                        bytes.len()
                    );
                }
                for f in &t.findings {
                    assert!(f.span.end <= bytes.len(), "finding span {:?}", f.span);
                }
                if let Some(r) = t.record {
                    assert!(r.span.end <= bytes.len(), "record span {:?}", r.span);
                }
            }
        }
        Err(e) => {
            render(&e);
            let _ = (e.code(), e.line_col());
        }
    }
    let streamed = transcript::Reader::new()
        .format(format)
        .read_stream(name, bytes, |t| {
            std::hint::black_box(t);
        });
    if let Err(e) = streamed {
        render(&e);
    }
}

/// A JSON document given as a value (what the Python module reads objects into) reads as its
/// text does: the same transcripts, spans and findings, or the same error.
fn same_as_a_document(name: &str, bytes: &[u8], format: Option<Format>) {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes) else {
        return;
    };
    let doc = transcript::Document::new(value);
    let reader = transcript::Reader::new().format(format);
    let by_text = reader.read(name, doc.text());
    let mut by_value = Vec::new();
    let got = reader.read_document_with(name, &doc, |t| by_value.push(t));
    match (by_text, got) {
        (Ok(ts), Ok(())) => assert_eq!(by_value, ts, "a document reads as its text"),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        (a, b) => panic!("text: {:?}, value: {:?}", a.map(|t| t.len()), b),
    }
}

/// `transcript_eval`: Inspect AI `.eval` logs (zip archives). The first byte picks what the rest
/// is: the bytes of an archive after the zip magic (the archive parser and its bounds), or the
/// text of a sample entry or of the header of a well-formed archive built around it (the
/// sample rules through the archive). Then the checks of [`transcript_read`], by detection.
pub fn transcript_eval(data: &[u8]) {
    let Some((&sel, bytes)) = data.split_first() else {
        return;
    };
    const HEADER: &[u8] = br#"{"version":2,"status":"success","eval":{"task":"t"}}"#;
    let archive = match sel % 3 {
        0 => [&b"PK\x03\x04"[..], bytes].concat(),
        1 => stored_zip(&[("header.json", HEADER), ("samples/1_epoch_1.json", bytes)]),
        _ => stored_zip(&[("header.json", bytes), ("samples/1_epoch_1.json", b"{}")]),
    };
    transcript_read(&[&[0u8][..], &archive].concat());
}

/// A zip archive of `entries`, stored (not compressed).
pub fn stored_zip(entries: &[(&str, &[u8])]) -> Vec<u8> {
    fn crc32(data: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in data {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = (crc >> 1) ^ (0xEDB8_8320 & (crc & 1).wrapping_neg());
            }
        }
        !crc
    }
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in entries {
        let (crc, len, name_len) = (crc32(data), data.len() as u32, name.len() as u16);
        let offset = out.len() as u32;
        out.extend_from_slice(b"PK\x03\x04\x14\0\0\0\0\0\0\0\0\0");
        for v in [crc, len, len] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&name_len.to_le_bytes());
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        central.extend_from_slice(b"PK\x01\x02\x14\0\x14\0\0\0\0\0\0\0\0\0");
        for v in [crc, len, len] {
            central.extend_from_slice(&v.to_le_bytes());
        }
        central.extend_from_slice(&name_len.to_le_bytes());
        central.extend_from_slice(&[0; 12]);
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let (at, size, n) = (out.len() as u32, central.len() as u32, entries.len() as u16);
    out.extend_from_slice(&central);
    out.extend_from_slice(b"PK\x05\x06\0\0\0\0");
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(&at.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out
}

/// `tape_serde`: for any bytes, where the tape reads them, serde_json reads the same value.
pub fn tape_serde(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Some(tape) = toolspec::json::tape_value(text) {
        let serde: Value = serde_json::from_str(text)
            .unwrap_or_else(|e| panic!("the tape reads {text:?}, serde_json refuses it: {e}"));
        assert_eq!(
            tape, serde,
            "the tape and serde_json read {text:?} differently"
        );
    }
}

/// `value` pushed into `b` value by value.
fn build_nodes(v: &Value, b: &mut transcript::DocumentBuilder) {
    match v {
        Value::Null => b.null(),
        Value::Bool(x) => b.bool(*x),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => b.i64(i),
            (None, Some(u), _) => b.u64(u),
            (_, _, f) => b.f64(f.unwrap_or(f64::NAN)),
        },
        Value::String(s) => b.str(s),
        Value::Array(items) => {
            b.begin_array();
            for x in items {
                build_nodes(x, b);
            }
            b.end();
        }
        Value::Object(members) => {
            b.begin_object();
            for (k, x) in members {
                b.key(k);
                build_nodes(x, b);
            }
            b.end();
        }
    }
}

/// `mapping`: a custom mapping (`[formats.NAME]` of toolspec.toml) read over a document. The
/// input is `calls \0 name \0 results \0 document`: the JSONPath selecting the calls, the one
/// reading each call's name (also used for its arguments and id, and for the results' id and
/// output), the one selecting results (none if empty), and the file. Each of the three may be
/// several expressions separated by `\x01` (a list in toolspec.toml: each after the first reads
/// the JSON text held in the strings the one before selects). Beyond "does not panic":
/// every expression's queries, as the cost bound reads them, are those of the syntax tree
/// `serde_json_path` parsed; a read within the bounds keeps its spans inside the file and its
/// errors render. A query the bounds let through but that runs long is the fuzzer's timeout.
pub fn mapping(data: &[u8]) {
    use transcript::mapping::{Mapping, MappingPath, MappingQuery, ResultsMapping};
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut parts = text.splitn(4, '\0');
    let (Some(calls), Some(name), Some(results), Some(doc)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return;
    };
    let path = |key: &str, text: &str| {
        let steps: Vec<&str> = text.split('\x01').collect();
        for step in &steps {
            let p = MappingPath::new(key, step).ok()?;
            same_queries_as_parsed(&p, step);
        }
        MappingQuery::new(key, &steps).ok()
    };
    let results = path("formats.f.results.path", results);
    let (Some(calls), Some(tool)) = (path("formats.f.calls", calls), path("formats.f.name", name))
    else {
        return;
    };
    let m = Mapping {
        name: "f".into(),
        files: Vec::new(),
        calls,
        tool: tool.clone(),
        arguments: Some(tool.clone()),
        id: Some(tool.clone()),
        output: None,
        error: None,
        results: results.map(|path| ResultsMapping {
            path,
            id: tool.clone(),
            output: Some(tool.clone()),
            error: Some(tool.clone()),
        }),
    };
    let bytes = doc.as_bytes();
    match transcript::Reader::new().mapping(&m).read("t.json", bytes) {
        Ok(transcripts) => {
            for t in &transcripts {
                for c in &t.calls {
                    assert!(c.span.end <= bytes.len(), "call span {:?}", c.span);
                }
                for f in &t.findings {
                    assert!(f.span.end <= bytes.len(), "finding span {:?}", f.span);
                }
            }
        }
        Err(e) => {
            render(&e);
        }
    }
}

/// The YAML reader (`toolspec::json::yaml`, what VCR cassettes and custom mappings of YAML files
/// are read with): the value read stays within its budget (what `json::budget` counts for it),
/// every node it locates lies in the text on character boundaries, an error points into the
/// text, and the value written as JSON (ASCII, as YAML reads JSON) and read again as YAML is the
/// same value. The first byte picks the budget (up to 64 KiB, so that aliases reach it); the
/// rest is the text. The text is also read as a file of a custom mapping, whose errors render.
pub fn yaml(data: &[u8]) {
    use toolspec::json::yaml::{self, Key, Refusal};
    let Some((&sel, bytes)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let budget = 256 * (usize::from(sel) + 1);
    match yaml::from_str(text, budget, 3) {
        Ok(parsed) => {
            let cost = toolspec::json::budget::cost(&parsed.value);
            assert!(
                cost <= budget,
                "the value takes {cost} bytes, its budget {budget}"
            );
            let mut paths: Vec<Vec<Key<'_>>> = vec![Vec::new()];
            let mut i = 0;
            while i < paths.len() && paths.len() < 200 {
                let path = paths[i].clone();
                i += 1;
                let mut v = &parsed.value;
                for k in &path {
                    v = match (k, v) {
                        (Key::Name(n), Value::Object(m)) => &m[*n],
                        (Key::Index(j), Value::Array(a)) => &a[*j],
                        _ => unreachable!(),
                    };
                }
                let Some((s, e)) = parsed.spans.locate(&parsed.value, path.iter().copied()) else {
                    // A text of no document (blank, or comments alone).
                    assert!(path.is_empty() && parsed.value.is_null());
                    continue;
                };
                assert!(s <= e && e <= text.len(), "span {s}..{e} of {}", text.len());
                assert!(text.is_char_boundary(s) && text.is_char_boundary(e));
                if path.len() < 4 {
                    match v {
                        Value::Object(m) => paths.extend(m.keys().map(|k| {
                            let mut p = path.clone();
                            p.push(Key::Name(k.as_str()));
                            p
                        })),
                        Value::Array(a) => paths.extend((0..a.len()).map(|j| {
                            let mut p = path.clone();
                            p.push(Key::Index(j));
                            p
                        })),
                        _ => {}
                    }
                }
            }
            let json = ascii_json(&parsed.value);
            match yaml::from_str(&json, usize::MAX, 0) {
                Ok(again) => {
                    assert_eq!(again.value, parsed.value, "JSON of it read as YAML: {json}");
                }
                // YAML's implicit keys are at most 1024 characters long.
                Err(e) => assert!(
                    longest_key(&parsed.value) > 1000,
                    "its JSON is no YAML: {e}\n{json}"
                ),
            }
        }
        Err(Refusal::Invalid { at, .. } | Refusal::TooLarge { at }) => {
            assert!(
                at <= text.len() && text.is_char_boundary(at),
                "error at {at}"
            );
        }
    }
    let m = transcript::Mapping {
        name: "y".into(),
        files: Vec::new(),
        calls: transcript::mapping::MappingPath::new("formats.y.calls", "$..calls[*]")
            .unwrap()
            .into(),
        tool: transcript::mapping::MappingPath::new("formats.y.name", "@.name")
            .unwrap()
            .into(),
        arguments: None,
        id: None,
        output: None,
        error: None,
        results: None,
    };
    match transcript::Reader::new().mapping(&m).read("t.yaml", bytes) {
        Ok(ts) => {
            for c in ts.iter().flat_map(|t| &t.calls) {
                assert!(c.span.end <= bytes.len(), "call span {:?}", c.span);
            }
        }
        Err(e) => {
            render(&e);
        }
    }
}

/// JSON text of `v` in ASCII (`\u` escapes; `\U` for characters past the first plane, which
/// YAML reads and JSON's surrogate pairs would not be).
fn ascii_json(v: &Value) -> String {
    let text = serde_json::to_string(v).expect("a value serializes");
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match u32::from(c) {
            0..=0x7f => out.push(c),
            n @ 0x80..=0xffff => out.push_str(&format!("\\u{n:04x}")),
            n => out.push_str(&format!("\\U{n:08x}")),
        }
    }
    out
}

fn longest_key(v: &Value) -> usize {
    match v {
        Value::Object(m) => m
            .iter()
            .map(|(k, x)| k.chars().count().max(longest_key(x)))
            .max()
            .unwrap_or(0),
        Value::Array(a) => a.iter().map(longest_key).max().unwrap_or(0),
        _ => 0,
    }
}

/// The queries of `text` as its syntax tree has them (`serde_json_path`'s `Debug` of it:
/// `Query { kind: Root | Current` and `SingularQuery { kind: Absolute | Relative`, depth
/// first, strings skipped) are the queries the cost bound of `p` counts.
fn same_queries_as_parsed(p: &transcript::mapping::MappingPath, text: &str) {
    let trimmed = text.trim();
    let query = match trimmed.strip_prefix('@') {
        Some(rest) => format!("${rest}"),
        None => trimmed.to_owned(),
    };
    let tree = format!(
        "{:?}",
        serde_json_path::JsonPath::parse(&query).expect("the mapping parsed it")
    );
    let mut roots = Vec::new();
    let mut rest = tree.as_str();
    while let Some(c) = rest.chars().next() {
        if c == '"' {
            // A Debug string: up to its closing quote, escapes skipped.
            let mut chars = rest.char_indices().skip(1);
            let mut end = rest.len();
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => {
                        chars.next();
                    }
                    '"' => {
                        end = i + 1;
                        break;
                    }
                    _ => {}
                }
            }
            rest = &rest[end..];
            continue;
        }
        if let Some(after) = rest.strip_prefix("Query { kind: ") {
            roots.push(after.starts_with("Root") || after.starts_with("Absolute"));
            rest = after;
            continue;
        }
        rest = &rest[c.len_utf8()..];
    }
    assert_eq!(
        p.query_roots(),
        roots,
        "the cost bound reads other queries than {text:?} holds: {tree}"
    );
}

/// `document_nodes`: a JSON document built value by value ([`transcript::DocumentBuilder`],
/// what the Python module builds from its objects) is the same document as its serde_json
/// value, and reads as the same transcripts or the same error, whole and for verdicts alone.
/// The first byte picks a forced format (or detection); the rest is the JSON text.
pub fn document_nodes(data: &[u8]) {
    let Some((&sel, text)) = data.split_first() else {
        return;
    };
    let Ok(value) = serde_json::from_slice::<Value>(text) else {
        return;
    };
    let mut b = transcript::DocumentBuilder::new();
    build_nodes(&value, &mut b);
    let nodes = b.finish().expect("a serde_json value builds a document");
    let plain = transcript::Document::new(value.clone());
    assert_eq!(nodes.value(), &value, "the nodes hold the value");
    assert_eq!(nodes.text(), plain.text(), "the nodes' text is the value's");
    let forced = match sel as usize {
        n if n < Format::ALL.len() => Some(Format::ALL[n]),
        _ => None,
    };
    for keep in [transcript::Keep::default(), engine::keep_for(&[])] {
        let reader = transcript::Reader::new().format(forced).keep(keep);
        let read = |doc: &transcript::Document| {
            let mut out = Vec::new();
            reader
                .read_document_with("t.json", doc, |t| out.push(t))
                .map(|()| out)
                .map_err(|e| e.to_string())
        };
        assert_eq!(
            read(&nodes),
            read(&plain),
            "built value by value, {text:?} reads the same"
        );
    }
}

/// `score` one line per profile: the first byte picks the profile; the output is valid JSON and
/// the same as serde_json's reading of the line gives.
pub fn score_line(data: &[u8]) {
    let Some((&sel, line)) = data.split_first() else {
        return;
    };
    let peer = &PEERS[sel as usize % PEERS.len()];
    let name = peer.name();
    let out = profiles::score_line(peer, line);
    serde_json::from_slice::<Value>(&out).unwrap_or_else(|e| {
        panic!(
            "score_line({name}) printed invalid JSON ({e}): {}",
            String::from_utf8_lossy(&out)
        )
    });
    // The tape reader (which `score_line` tries first) must agree with serde_json on every
    // line, byte for byte.
    let reference = profiles::score_line_reference(peer, line);
    assert_eq!(
        String::from_utf8_lossy(&out),
        String::from_utf8_lossy(&reference),
        "score_line({name}): the tape reader and serde_json disagree on {:?}",
        String::from_utf8_lossy(line)
    );
    let mut sink = Vec::new();
    let _ = profiles::score_stream(peer, line, &mut sink, 1);
}

// ---------------------------------------------------------------------------------------------
// The engine: an arbitrary (small) config built directly, as a hand-written config could be,
// with references and `before` rules that may point anywhere, and arbitrary calls.

const TOOLS: &[&str] = &[
    "lookup",
    "search",
    "Search",
    "functions.search",
    "get-order",
    "get_order",
    "mcp__github__create_issue",
    "",
];
const KEYS: &[&str] = &["q", "id", "items", "query", "a", "b", ""];
const REGEXES: &[&str] = &["^a", "x+", "[0-9]{2,}", "(?i)search", "^$", ".*", "é|ß"];

#[derive(Debug, Arbitrary)]
enum V {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Arr(Vec<V>),
    Obj(Vec<(u8, V)>),
    /// A string holding JSON, as tool outputs often are.
    JsonStr(Box<V>),
}

/// How many `JsonStr` levels one value may nest: each level escapes the one inside, which
/// doubles its backslashes, so deeper nesting makes a few input bytes into gigabytes (the
/// harness's own limit, not the code under test's).
const JSON_STR_DEPTH: usize = 3;

impl V {
    fn value(&self) -> Value {
        self.value_at(0)
    }

    fn value_at(&self, json_strs: usize) -> Value {
        match self {
            V::Null => Value::Null,
            V::Bool(b) => json!(b),
            V::Int(i) => json!(i),
            V::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
            V::Str(s) => json!(s),
            V::Arr(a) => Value::Array(a.iter().map(|v| v.value_at(json_strs)).collect()),
            V::Obj(o) => Value::Object(
                o.iter()
                    .map(|(k, v)| {
                        (
                            KEYS[*k as usize % KEYS.len()].to_owned(),
                            v.value_at(json_strs),
                        )
                    })
                    .collect::<Map<_, _>>(),
            ),
            V::JsonStr(_) if json_strs == JSON_STR_DEPTH => Value::Null,
            V::JsonStr(v) => json!(v.value_at(json_strs + 1).to_string()),
        }
    }
}

#[derive(Debug, Arbitrary)]
enum Seg {
    Key(u8),
    Index(u8),
}

fn path(segs: &[Seg]) -> Vec<PathSeg> {
    segs.iter()
        .take(4)
        .map(|s| match s {
            Seg::Key(k) => PathSeg::Key(KEYS[*k as usize % KEYS.len()].to_owned()),
            // `[*]` now and then: a config may put it anywhere, references or not.
            Seg::Index(i) if i % 8 == 7 => PathSeg::Each,
            Seg::Index(i) => PathSeg::Index(*i as usize % 4),
        })
        .collect()
}

#[derive(Debug, Arbitrary)]
enum C {
    Any,
    Present,
    Absent,
    Equals(V),
    Subset(V),
    Fuzzy(String, u8),
    Regex(u8),
    Range(Option<i32>, Option<f32>, bool, bool),
    Type(u8),
    OneOf(Vec<V>),
    Contains(V),
    Ref(u8, bool, Vec<Seg>),
    Not(Box<C>),
    AllOf(Vec<C>),
}

impl C {
    fn check(&self, exps: usize) -> Check {
        match self {
            C::Any => Check::Any,
            C::Present => Check::Present,
            C::Absent => Check::Absent,
            C::Equals(v) => Check::equals(v.value()),
            C::Subset(v) => Check::subset(v.value()),
            // An odd threshold byte picks the token-set measure (`fuzzy tokens`): both measures
            // are exercised without changing how inputs decode.
            C::Fuzzy(s, t) if t % 2 == 1 => Check::FuzzyTokens {
                value: s.clone(),
                threshold: f64::from(*t) / 255.0,
            },
            C::Fuzzy(s, t) => Check::Fuzzy {
                value: s.clone(),
                threshold: f64::from(*t) / 255.0,
            },
            C::Regex(i) => Check::Regex {
                pattern: Pattern::new(REGEXES[*i as usize % REGEXES.len()]).expect("regex"),
            },
            C::Range(min, max, a, b) => Check::Range {
                min: min.map(f64::from),
                max: max.map(f64::from).filter(|m| m.is_finite()),
                min_exclusive: *a,
                max_exclusive: *b,
            },
            C::Type(mask) => Check::Type {
                types: [
                    JsonType::Null,
                    JsonType::Boolean,
                    JsonType::Number,
                    JsonType::Integer,
                    JsonType::String,
                    JsonType::Array,
                    JsonType::Object,
                ]
                .into_iter()
                .enumerate()
                .filter(|(i, _)| mask & (1 << i) != 0)
                .map(|(_, t)| t)
                .collect(),
            },
            C::OneOf(vs) => Check::OneOf {
                values: vs.iter().map(V::value).collect(),
            },
            C::Contains(v) => Check::Contains { value: v.value() },
            // May point at a later expectation, itself, or past the end: a hand-written config
            // can, and the engine must not fall over.
            C::Ref(e, output, segs) => Check::Ref {
                expectation: *e as usize % (exps + 2),
                label: format!("e{e}"),
                part: if *output { Part::Output } else { Part::Args },
                path: path(segs),
                op: [
                    RefOp::Eq,
                    RefOp::Lt,
                    RefOp::Le,
                    RefOp::Gt,
                    RefOp::Ge,
                    RefOp::In,
                    RefOp::NotIn,
                ][*e as usize % 7],
            },
            C::Not(c) => Check::Not {
                check: Box::new(c.check(exps)),
            },
            C::AllOf(cs) => Check::AllOf {
                checks: cs.iter().take(4).map(|c| c.check(exps)).collect(),
            },
        }
    }
}

#[derive(Debug, Arbitrary)]
struct M {
    checks: Vec<(Vec<Seg>, C)>,
    allow_extra_keys: bool,
}

impl M {
    fn matcher(&self, exps: usize) -> ValueMatcher {
        ValueMatcher {
            checks: self
                .checks
                .iter()
                .take(6)
                .map(|(p, c)| PathCheck {
                    path: path(p),
                    check: c.check(exps),
                    span: Span::default(),
                    declared: None,
                })
                .collect(),
            allow_extra_keys: self.allow_extra_keys,
        }
    }
}

#[derive(Debug, Arbitrary)]
struct E {
    label: bool,
    tool: u8,
    args: M,
    output: Option<M>,
    errored: Option<bool>,
    min: u8,
    max: Option<u8>,
    weight: u8,
}

#[derive(Debug, Arbitrary)]
struct Call {
    tool: u8,
    args: V,
    output: Option<V>,
    is_error: bool,
}

#[derive(Debug, Arbitrary)]
struct EngineInput {
    order: u8,
    forbid_extra: bool,
    ignore_case: bool,
    unify_separators: bool,
    strip: Vec<u8>,
    binary: bool,
    threshold: u8,
    name_only: u8,
    extra_call: u8,
    wrong_or_missing: u8,
    exps: Vec<E>,
    forbidden: Vec<(u8, Option<M>)>,
    before: Vec<(u8, u8)>,
    profile: Option<(u8, BTreeMap<u8, V>)>,
    /// `total_calls` and `agent "…" runs` counts: what, the range, the scope.
    limits: Vec<(u8, u8, u8)>,
    calls: Vec<Call>,
}

const STRIPS: &[&str] = &["functions.", "mcp__*__", "*.", ""];

fn build(input: &EngineInput) -> (MatcherConfig, Vec<ToolCall>) {
    let exps: Vec<&E> = input.exps.iter().take(6).collect();
    let n = exps.len();
    let tool = |t: u8| TOOLS[t as usize % TOOLS.len()].to_owned();
    let expectations = exps
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let min = u32::from(e.min % 4);
            Expectation {
                label: e.label.then(|| format!("e{i}")),
                tool: tool(e.tool),
                namespace: None,
                args_mode: ArgsMode::Subset,
                args: e.args.matcher(n),
                output: e.output.as_ref().map(|m| m.matcher(n)),
                errored: e.errored,
                repeat: Repeat {
                    min,
                    max: e.max.map(|m| u32::from(m % 5)),
                },
                weight: f64::from(e.weight) / 16.0,
                span: Span::default(),
                name_span: Span::default(),
                // From bits of bytes already read, so the input's layout stays as it was.
                scope: scope(e.tool / 8, e.min),
                critical: e.weight % 7 == 3,
            }
        })
        .collect();
    // `either` and `parallel` blocks from the `before` pairs with bit 6 set: any index range,
    // overlapping, empty or out of order as a hand-written config may be.
    let groups = input
        .before
        .iter()
        .take(4)
        .filter(|(a, _)| a & 0x40 != 0)
        .map(|&(a, b)| {
            let (lo, hi) = {
                let (x, y) = (a as usize % (n + 1), b as usize % (n + 1));
                (x.min(y), x.max(y))
            };
            let kind = if (a ^ b) & 1 == 0 {
                GroupKind::Parallel {
                    members: (lo..hi).collect(),
                }
            } else {
                let mid = usize::midpoint(lo, hi);
                GroupKind::Either {
                    branches: vec![(lo..mid).collect(), (mid..hi).collect()],
                }
            };
            Group {
                kind,
                critical: a & 2 != 0,
                span: Span::default(),
            }
        })
        .collect();
    let answer = input.threshold.is_multiple_of(5).then(|| AnswerCheck {
        matcher: exps
            .first()
            .map_or_else(ValueMatcher::any, |e| e.args.matcher(n)),
        span: Span::default(),
    });
    let profile = input.profile.as_ref().and_then(|(p, opts)| {
        let spec = PROFILES[*p as usize % PROFILES.len()];
        let (name, known) = (spec.name, spec.options);
        // A judge is never a profile option (only the command line gives one).
        let options: Map<String, Value> = opts
            .iter()
            .take(4)
            .filter(|_| !known.is_empty())
            .map(|(k, v)| (known[*k as usize % known.len()].to_owned(), v.value()))
            .collect();
        Profile::from_options(name, options).ok()
    });
    let config = MatcherConfig {
        version: CONFIG_VERSION,
        name: "fuzz".into(),
        span: Span::default(),
        transcripts: Vec::new(),
        format: None,
        order: [OrderMode::Strict, OrderMode::InOrder, OrderMode::AnyOrder]
            [input.order as usize % 3],
        before: input
            .before
            .iter()
            .take(4)
            .map(|(a, b)| BeforeRule {
                first: *a as usize % (n + 1),
                then: *b as usize % (n + 1),
                span: Span::default(),
            })
            .collect(),
        expectations,
        forbidden: input
            .forbidden
            .iter()
            .take(3)
            .map(|(t, m)| Forbidden {
                tool: tool(*t),
                namespace: None,
                any_tool: false,
                args: m.as_ref().map(|m| m.matcher(n)),
                errored: None,
                scope: None,
                span: Span::default(),
            })
            .collect(),
        extra_calls: if input.forbid_extra {
            ExtraCalls::Forbid
        } else {
            ExtraCalls::Allow
        },
        names: NameRules {
            ignore_case: input.ignore_case,
            unify_separators: input.unify_separators,
            strip_prefixes: input
                .strip
                .iter()
                .take(2)
                .map(|s| STRIPS[*s as usize % STRIPS.len()].to_owned())
                .collect(),
        },
        scoring: Scoring {
            exact_match: 1.0,
            name_only: f64::from(input.name_only) / 255.0,
            extra_call: f64::from(input.extra_call) / 255.0,
            wrong_or_missing: f64::from(input.wrong_or_missing) / 255.0,
            threshold: f64::from(input.threshold) / 255.0,
            binary: input.binary,
            // Partial credit on odd `name_only` bytes (the input's layout stays as it was).
            per_argument: input.name_only % 2 == 1,
        },
        profile,
        deny_rules: Vec::new(),
        limits: input
            .limits
            .iter()
            .take(3)
            .map(|&(what, range, sel)| Limit {
                counted: if what % 2 == 0 {
                    Counted::Calls
                } else {
                    Counted::AgentRuns {
                        agent: AGENTS[usize::from(what / 2 % 3)].to_owned(),
                    }
                },
                min: u32::from(range % 4),
                max: (range & 0x80 == 0).then(|| u32::from(range % 4 + (range >> 2) % 4)),
                scope: scope(sel, what),
                span: Span::default(),
            })
            .collect(),
        answer,
        groups,
        pass_rate: None,
    };
    let calls = input
        .calls
        .iter()
        .take(24)
        .map(|c| ToolCall {
            name: tool(c.tool),
            args: c.args.value(),
            id: None,
            output: c.output.as_ref().map(V::value),
            is_error: c.is_error,
            span: Span::default(),
            // Turns and agents from the high bits of the tool byte (none on some calls).
            turn: (c.tool % 32 != 31).then_some(1 + u32::from(c.tool / 32 % 3)),
            agent: (c.tool & 0x80 != 0).then(|| AGENTS[usize::from(c.tool / 16 % 2)].to_owned()),
            namespace: None,
            args_text: None,
        })
        .collect();
    (config, calls)
}

/// Agent names of the engine target's calls and scopes (one no call has).
const AGENTS: &[&str] = &["researcher", "writer", "nobody"];

/// The scope of an expectation: none, a turn, the last turn, an agent, or after the first or last
/// call of a tool.
fn scope(sel: u8, n: u8) -> Option<Scope> {
    let base = Scope {
        turn: None,
        turn_span: Span::default(),
        agent: None,
        agent_span: Span::default(),
        after: None,
    };
    match sel % 7 {
        0 | 1 => None,
        5 | 6 => Some(Scope {
            after: Some(After {
                edge: if sel % 7 == 5 {
                    Edge::Last
                } else {
                    Edge::First
                },
                anchor: Anchor::Tool {
                    tool: TOOLS[usize::from(n) % TOOLS.len()].to_owned(),
                },
                span: Span::default(),
            }),
            ..base
        }),
        2 => Some(Scope {
            turn: Some(TurnSel::Nth(1 + u32::from(n % 4))),
            ..base
        }),
        3 => Some(Scope {
            turn: Some(TurnSel::Last(LastTurn::Last)),
            ..base
        }),
        _ => Some(Scope {
            agent: Some(AGENTS[usize::from(n % 3)].to_owned()),
            ..base
        }),
    }
}

/// What `check` reads with, keeping the arguments of some calls and no outputs, must read the
/// same file the same way: the same error, or the same transcripts with the same calls in the
/// same places (the restricted read skips building what it leaves out, which is a different
/// parse of a Claude Code line; see `transcript::readers::claude_code`).
fn same_when_restricted(
    name: &str,
    bytes: &[u8],
    format: Option<Format>,
    full: &Result<Vec<transcript::Transcript>, transcript::ReadError>,
) {
    let even: transcript::NameFilter = std::sync::Arc::new(|n: &str| n.len().is_multiple_of(2));
    let keep = transcript::Keep {
        args: Some(even),
        no_outputs: true,
        ..transcript::Keep::default()
    };
    // The compact form (check's, for long transcripts), from the second call on.
    let compact = transcript::Keep {
        compact: Some(1),
        ..keep.clone()
    };
    let mut tables = Vec::new();
    let compacted = transcript::Reader::new()
        .format(format)
        .keep(compact.clone())
        .read_with(name, bytes, |t| tables.push(t));
    match (full, compacted) {
        (Ok(all), Ok(())) => {
            assert_eq!(all.len(), tables.len(), "transcripts (compact)");
            for (a, k) in all.iter().zip(&tables) {
                let calls = match &k.compact {
                    Some(table) => table.to_calls(),
                    None => k.calls.clone(),
                };
                assert_eq!(a.calls.len(), calls.len(), "calls (compact)");
                for (ca, ck) in a.calls.iter().zip(&calls) {
                    assert_eq!(
                        (&ca.name, ca.span, ca.is_error),
                        (&ck.name, ck.span, ck.is_error)
                    );
                    if ca.name.len().is_multiple_of(2) {
                        assert_eq!(ca.args, ck.args, "arguments of {} (compact)", ca.name);
                    }
                }
            }
        }
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        (a, b) => panic!(
            "full read {:?}, compact read {:?}",
            a.as_ref().err(),
            b.err()
        ),
    }
    let mut kept = Vec::new();
    let restricted = transcript::Reader::new()
        .format(format)
        .keep(keep.clone())
        .read_with(name, bytes, |t| kept.push(t));
    match (full, restricted) {
        (Ok(all), Ok(())) => {
            assert_eq!(all.len(), kept.len(), "transcripts");
            for (a, k) in all.iter().zip(&kept) {
                assert_eq!(a.format, k.format);
                assert_eq!(a.calls.len(), k.calls.len(), "calls");
                for (ca, ck) in a.calls.iter().zip(&k.calls) {
                    assert_eq!(
                        (&ca.name, ca.span, &ca.id, ca.is_error),
                        (&ck.name, ck.span, &ck.id, ck.is_error)
                    );
                    if ca.name.len().is_multiple_of(2) {
                        assert_eq!(ca.args, ck.args, "arguments of {}", ca.name);
                    }
                    assert_eq!(ck.output, None);
                }
            }
        }
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        (a, b) => panic!(
            "full read {:?}, restricted read {:?}",
            a.as_ref().err(),
            b.err()
        ),
    }
}

/// The engine (and profile scoring) on an arbitrary config and calls.
pub fn engine(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(input) = EngineInput::arbitrary(&mut u) else {
        return;
    };
    let (config, calls) = build(&input);
    run_spec(&config, &calls);
    // With what a transcript records beside its calls: its turns and final answer.
    let turns = calls.iter().filter_map(|c| c.turn).max();
    let answer = input.calls.first().map(|c| c.args.value().to_string());
    // Each stretch of calls by one sub-agent is one run of it.
    let runs: Vec<AgentRun> = calls
        .iter()
        .enumerate()
        .filter(|(i, c)| c.agent.is_some() && (*i == 0 || calls[i - 1].agent != c.agent))
        .map(|(i, c)| AgentRun {
            agent: c.agent.clone().unwrap_or_default(),
            turn: c.turn,
            first_call: i,
        })
        .collect();
    let recorded = engine::Recorded {
        calls: &calls,
        turns,
        answer: answer.as_deref(),
        agent_runs: Some(&runs),
    };
    let verdict = engine::run(&config, &recorded);
    assert!(
        (0.0..=1.0).contains(&verdict.score) || verdict.score.is_nan(),
        "score {} out of [0, 1]",
        verdict.score
    );
    for f in &verdict.findings {
        if let Some(i) = f.call {
            assert!(i < calls.len(), "finding names call {i} of {}", calls.len());
        }
    }
}

/// Patterns a fuzzed schema may hold: plain and anchored ones, Unicode classes near and past
/// the size limit of one pattern, ECMA-262 syntax the linear-time engine lacks (look-around,
/// backreferences), and invalid ones.
const SCHEMA_PATTERNS: &[&str] = &[
    "^[a-z]+$",
    "a",
    "",
    "^(?=x)x",
    "(a)\\1",
    "(?<=a)b",
    "\\p{L}{20}",
    "\\p{L}{600}",
    "\\w{200}",
    "^\\d{3}-\\d{4}$",
    "[",
    "é+",
];

/// `$ref` targets a fuzzed schema may name: its definitions (by pointer, escaped, or by
/// anchor), itself, missing ones, a meta-schema the crate knows, another document.
const SCHEMA_REFS: &[&str] = &[
    "#/$defs/d0",
    "#/$defs/d1",
    "#/$defs/d2",
    "#/$defs/d3",
    "#",
    "#a0",
    "#/$defs/missing",
    "#/$defs/d%30",
    "https://json-schema.org/draft/2020-12/schema",
    "other.json#/$defs/d0",
    "file:///etc/passwd",
];

/// An arbitrary schema of at most `depth` levels and `budget` objects; every schema object
/// carries `"x-count": true` (an annotation for the rule; the oracle counts it).
fn arb_schema(u: &mut Unstructured, depth: u32, budget: &mut u32) -> arbitrary::Result<Value> {
    if depth == 0 || *budget == 0 || u.ratio(1, 6)? {
        return Ok(match u.int_in_range(0..=5)? {
            0 => json!(true),
            1 => json!(false),
            2 => json!({"type": "string", "x-count": true}),
            3 => json!({"type": "integer", "minimum": 3, "x-count": true}),
            4 => json!({"$ref": *u.choose(SCHEMA_REFS)?, "x-count": true}),
            _ => json!({"required": ["a"], "x-count": true}),
        });
    }
    *budget -= 1;
    let mut o = Map::new();
    o.insert("x-count".into(), json!(true));
    for _ in 0..u.int_in_range(1..=3)? {
        let sub = |u: &mut Unstructured, budget: &mut u32| arb_schema(u, depth - 1, budget);
        let (k, v) = match u.int_in_range(0..=23)? {
            0 => (
                "type",
                json!(*u.choose(&[
                    "string", "integer", "object", "array", "STRING", "number", "int"
                ])?),
            ),
            1 => ("enum", json!(["a", 1, null])),
            2 => ("maxLength", json!(u.int_in_range(0..=5)?)),
            3 => ("pattern", json!(*u.choose(SCHEMA_PATTERNS)?)),
            4 => (
                "format",
                json!(*u.choose(&["email", "regex", "date", "uuid"])?),
            ),
            5 => ("$ref", json!(*u.choose(SCHEMA_REFS)?)),
            6 => (
                "$dynamicRef",
                json!(*u.choose(&["#a0", "#a1", "#/$defs/d0"])?),
            ),
            7..=9 => {
                let n = u.int_in_range(1..=3)?;
                let mut all = Vec::new();
                for _ in 0..n {
                    all.push(sub(u, budget)?);
                }
                (*u.choose(&["anyOf", "allOf", "oneOf"])?, Value::Array(all))
            }
            10 => ("not", sub(u, budget)?),
            11 => (*u.choose(&["if", "then", "else"])?, sub(u, budget)?),
            12 | 13 => {
                let mut props = Map::new();
                for key in ["a", "b", "c"] {
                    if u.arbitrary()? {
                        props.insert(key.into(), sub(u, budget)?);
                    }
                }
                ("properties", Value::Object(props))
            }
            14 => {
                let mut props = Map::new();
                props.insert((*u.choose(SCHEMA_PATTERNS)?).into(), sub(u, budget)?);
                ("patternProperties", Value::Object(props))
            }
            15 => (
                *u.choose(&["additionalProperties", "unevaluatedProperties"])?,
                sub(u, budget)?,
            ),
            16 => ("items", sub(u, budget)?),
            17 => (
                "prefixItems",
                Value::Array(vec![sub(u, budget)?, sub(u, budget)?]),
            ),
            18 => (
                *u.choose(&["contains", "propertyNames", "unevaluatedItems"])?,
                sub(u, budget)?,
            ),
            19 => ("dependentSchemas", json!({"a": sub(u, budget)?})),
            20 => ("$anchor", json!(*u.choose(&["a0", "a1"])?)),
            21 => ("$dynamicAnchor", json!(*u.choose(&["a0", "a1"])?)),
            22 => (
                "$id",
                json!(*u.choose(&["other.json", "https://example.com/s", "#a1"])?),
            ),
            _ => ("required", json!(["a", "b"])),
        };
        o.insert(k.into(), v);
    }
    Ok(Value::Object(o))
}

/// An arbitrary argument value of at most `depth` levels (long strings among its scalars).
fn arb_value(u: &mut Unstructured, depth: u32) -> arbitrary::Result<Value> {
    if depth == 0 || u.ratio(1, 3)? {
        return Ok(match u.int_in_range(0..=6)? {
            0 => json!(null),
            1 => json!(u.arbitrary::<bool>()?),
            2 => json!(u.int_in_range(-5..=5)?),
            3 => json!("abc"),
            4 => json!("x".repeat(u.int_in_range(0..=3000)?)),
            5 => json!("é".repeat(u.int_in_range(0..=1200)?)),
            _ => json!(1.5),
        });
    }
    if u.arbitrary()? {
        let n = u.int_in_range(0..=3)?;
        (0..n)
            .map(|_| arb_value(u, depth - 1))
            .collect::<arbitrary::Result<Vec<_>>>()
            .map(Value::Array)
    } else {
        let mut o = Map::new();
        for key in ["a", "b", "c", "x"] {
            if u.arbitrary()? {
                o.insert(key.into(), arb_value(u, depth - 1)?);
            }
        }
        Ok(Value::Object(o))
    }
}

/// The built-in rules on tools whose schemas are arbitrary (`$ref` graphs, patterns past every
/// limit, keywords of every draft) and calls with arbitrary arguments: every finding is a
/// rule's, located in the file, its words bounded; and the work the rule counts before
/// checking a call is at least what the `jsonschema` crate does (every schema object carries
/// a keyword that counts its applications).
pub fn schema_rules(data: &[u8]) {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;
    use toolspec::code::Stage;
    use toolspec::rules::{self, RuleSet, View};
    use toolspec::transcript::ToolDecl;

    let mut u = Unstructured::new(data);
    let mut budget = 40;
    let Ok(mut schema) = arb_schema(&mut u, 5, &mut budget) else {
        return;
    };
    let mut defs = Map::new();
    for i in 0..4 {
        let Ok(d) = arb_schema(&mut u, 4, &mut budget) else {
            return;
        };
        defs.insert(format!("d{i}"), d);
    }
    match &mut schema {
        Value::Object(o) => {
            o.insert("$defs".into(), Value::Object(defs));
            if u.ratio(1, 4).unwrap_or(false) {
                o.insert(
                    "$schema".into(),
                    json!("http://json-schema.org/draft-07/schema#"),
                );
            }
        }
        other => *other = json!({"allOf": [other.clone()], "$defs": defs, "x-count": true}),
    }
    let mut calls = Vec::new();
    for i in 0..u.int_in_range(1..=4).unwrap_or(1) {
        let Ok(args) = arb_value(&mut u, 4) else {
            break;
        };
        let name = if i % 2 == 0 { "t" } else { "u" };
        calls.push(ToolCall {
            name: name.into(),
            args,
            id: None,
            output: None,
            is_error: false,
            span: Span::new(i, i + 1),
            turn: None,
            agent: None,
            namespace: None,
            args_text: None,
        });
    }
    // `u` declares the same schema (one validator for both) or none.
    let same = u.arbitrary().unwrap_or(false);
    let tools = [
        ToolDecl {
            name: "t".into(),
            description: None,
            parameters: Some(schema.clone()),
        },
        ToolDecl {
            name: "u".into(),
            description: None,
            parameters: same.then(|| schema.clone()),
        },
    ];
    let spans: Vec<Span> = calls.iter().map(|c| c.span).collect();
    let text = vec![b'.'; calls.len() + 1];
    let found = rules::run(
        &RuleSet::default(),
        &View {
            calls: &calls,
            spans: &spans,
            tools: &tools,
            answered: &[],
            text: Some(&text),
        },
    );
    for f in &found {
        assert_eq!(f.code.stage(), Stage::Rule, "{f:?}");
        assert!(f.span.end <= text.len(), "{f:?}");
        assert!(
            f.message.len() < 1_200,
            "{} bytes: {}",
            f.message.len(),
            f.message
        );
    }
    assert!(
        found.len() <= 4 * (rules::MAX_FINDINGS_PER_RULE + 1),
        "{}",
        found.len()
    );

    // The oracle: the crate's applications of schema objects (validity, then every error)
    // never exceed the counted weight.
    let ticks = Arc::new(AtomicU64::new(0));
    let t = Arc::clone(&ticks);
    let Ok(validator) = jsonschema::options()
        .offline()
        .with_pattern_options(
            jsonschema::PatternOptions::regex()
                .size_limit(rules::PATTERN_LIMITS.program)
                .dfa_size_limit(rules::PATTERN_LIMITS.dfa),
        )
        .with_keyword("x-count", move |_, _, _| Ok(Box::new(Tick(Arc::clone(&t)))))
        .build(&schema)
    else {
        return;
    };
    for c in &calls {
        let Ok(work) = rules::schema_work(&schema, &c.args, rules::MAX_CALL_WORK) else {
            continue;
        };
        ticks.store(0, Ordering::Relaxed);
        let _ = validator.is_valid(&c.args);
        let _ = validator.iter_errors(&c.args).count();
        let done = ticks.load(Ordering::Relaxed);
        assert!(
            done <= work.weight,
            "the crate applied {done} schema objects, the count says {work:?}"
        );
    }
}

/// Counts the applications of the schema object that holds it.
struct Tick(std::sync::Arc<std::sync::atomic::AtomicU64>);

impl<'i> jsonschema::Keyword<'i> for Tick {
    fn validate(&self, _: &'i Value) -> Result<(), jsonschema::ValidationError<'i>> {
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }

    fn is_valid(&self, _: &'i Value) -> bool {
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        true
    }
}
