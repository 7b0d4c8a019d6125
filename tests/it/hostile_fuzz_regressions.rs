//! Replays every input the fuzzers ever crashed on (`tests/fuzz_regressions/<target>/*`), through
//! the very bodies the fuzz targets run (`fuzz/src/lib.rs`, included below), and runs the same
//! bodies on the repository's own specs and transcripts, so their properties (diagnostics
//! render, `fmt` is a fixed point, configs survive a JSON round trip, spans stay in the file,
//! `score` prints JSON) are checked on every `cargo test`, not only while fuzzing.
//!
//! To add a crash: copy `fuzz/artifacts/<target>/crash-*` into `tests/fuzz_regressions/<target>/`
//! (`scripts/fuzz.sh` does it), fix the bug, and this test keeps it fixed.

// The fuzz crate's root: its items are `pub` there, unreachable from this binary.
#[allow(dead_code, missing_docs, unreachable_pub)]
#[path = "../../fuzz/src/lib.rs"]
mod fuzz_targets;

use std::path::{Path, PathBuf};

use toolspec::transcript::Format;

fn files(dir: &Path, ext: Option<&str>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if ext.is_none_or(|x| p.extension().is_some_and(|e| e == x)) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn saved_fuzz_crashes_stay_fixed() {
    let dir = root().join("tests/fuzz_regressions");
    let mut replayed = 0;
    for target in fuzz_targets::TARGETS {
        for input in files(&dir.join(target), None) {
            let data = std::fs::read(&input).unwrap();
            let shown = input.display().to_string();
            let outcome = std::panic::catch_unwind(|| fuzz_targets::run(target, &data));
            assert!(outcome.is_ok(), "{target} still fails on {shown}");
            replayed += 1;
        }
    }
    // Every folder holds at least the README that lists what was found.
    assert!(dir.join("README.md").is_file());
    eprintln!("replayed {replayed} saved inputs");
}

#[test]
fn fuzz_bodies_hold_on_the_bundled_specs() {
    let specs = files(&root().join("specs"), Some("toolspec"));
    assert!(specs.len() > 10);
    for spec in specs {
        let text = std::fs::read(&spec).unwrap();
        fuzz_targets::spec_parser(&text);
        fuzz_targets::compile(&text);
    }
}

#[test]
fn fuzz_bodies_hold_on_the_bundled_transcripts() {
    let transcripts = files(&root().join("tests/fixtures/corpus/transcripts"), None);
    assert!(transcripts.len() > 10);
    for t in transcripts {
        let bytes = std::fs::read(&t).unwrap();
        // Detection, and every forced format (most reject the file: that path is exercised too).
        for sel in 0..12u8 {
            let mut data = vec![sel];
            data.extend_from_slice(&bytes);
            fuzz_targets::transcript_read(&data);
        }
        document_nodes_each_way(&bytes);
    }
}

/// A document built value by value, as the Python module builds its objects, reads as the
/// parsed document does: detected, and read as each format.
fn document_nodes_each_way(bytes: &[u8]) {
    for sel in (0..=Format::ALL.len() as u8).rev() {
        let mut data = vec![sel];
        data.extend_from_slice(bytes);
        fuzz_targets::document_nodes(&data);
    }
}

/// The same for the examples of every format (the readers that read nodes among them), JSON
/// documents and JSONL alike (a JSONL file is no one value: the target stops early).
#[test]
fn documents_built_value_by_value_read_as_parsed_for_every_format_fixture() {
    let transcripts = files(&root().join("tests/fixtures/formats/transcripts"), None);
    assert!(transcripts.len() > 40);
    for t in transcripts {
        document_nodes_each_way(&std::fs::read(&t).unwrap());
    }
}

/// The fuzz body for `.eval` archives holds on the fixtures and on archives built around the
/// bundled transcripts.
#[test]
fn the_eval_fuzz_body_holds_on_the_fixtures() {
    for name in [
        "formats/transcripts/inspect_ai/mockllm-add.eval",
        "wild/inspect_ai/inspect-ai-message-deduplication.eval",
        "zip/not-inspect.zip",
    ] {
        let bytes = std::fs::read(root().join("tests/fixtures").join(name)).unwrap();
        let mut data = vec![0u8];
        data.extend_from_slice(&bytes[4..]);
        fuzz_targets::transcript_eval(&data);
    }
    let sample = std::fs::read(
        root()
            .join("tests/fixtures")
            .join("wild/inspect_ai/inspect-ai-browser.eval-log.json"),
    )
    .unwrap();
    for sel in [1u8, 2] {
        let mut data = vec![sel];
        data.extend_from_slice(&sample);
        fuzz_targets::transcript_eval(&data);
    }
}

/// The mapping fuzz body holds on the fixture's mapping, on expressions of every kind (filters,
/// functions, queries from the root inside filters, blank space, odd names) and on a document
/// where the nested queries from the root would explode.
#[test]
fn the_mapping_fuzz_body_holds_on_the_fixture_and_hostile_expressions() {
    let doc =
        std::fs::read_to_string(root().join("tests/fixtures/mapping/runs/session.json")).unwrap();
    let wide = format!("[{}1]", "{\"k\":\"a\"},".repeat(60));
    // Strings holding JSON text that holds JSON text, and strings holding none.
    let inner = serde_json::json!([{"fn": "a", "k": "[1]"}, "{\"fn\": \"b\"}", "not json"]);
    let nested = serde_json::json!([
        serde_json::to_string(&inner).unwrap(),
        serde_json::to_string(&serde_json::to_string(&inner).unwrap()).unwrap(),
        {"k": "{\"k\": 1}"}
    ])
    .to_string();
    let cases = [
        (
            "$.events[?@.kind == 'tool']",
            "$.tool.fn",
            "$.events[?@.kind == 'tool_result']",
        ),
        ("$..[?@.ref]", "@.tool.fn", ""),
        (
            "$ .events [ ?@ .kind=='tool' , ?$ .session ]",
            "$['tool']['fn']",
            "",
        ),
        (
            "$.events[?count($..ref) > 1 && value($.events[0].kind) == @.kind]",
            "$.tool.fn",
            "",
        ),
        ("$[?$[?$[?$[?$[*]]]]]", "$.k", ""),
        ("$[?@[?@[?@[?@[*]]]]]", "$.k", "$[?$[*]]"),
        ("$['a]$[?$..x]', \"b\\\"$..y\"][0:2:1,-1]", "$.été", ""),
        ("$[?length(@) > 0 || !(@.x == null)]", "$..*", ""),
        // JSON held in strings, read between the steps of a list (`\x01` between them).
        ("$.events[*].tool.params\x01$", "$.q", "$..body\x01$"),
        ("$..*\x01$..*\x01$[*]", "$\x01$\x01$.fn", "$[*]\x01$"),
        ("$[*]\x01$[0,0,0,0,0,0,0,0,0,0]\x01$[?$[*]]", "$.k\x01$", ""),
    ];
    for (calls, name, results) in cases {
        for d in [doc.as_str(), wide.as_str(), nested.as_str()] {
            let data = format!("{calls}\0{name}\0{results}\0{d}");
            fuzz_targets::mapping(data.as_bytes());
        }
    }
}

#[test]
fn fuzz_bodies_hold_on_the_peer_vectors() {
    use std::io::BufRead;
    for (i, profile) in ["axion", "deepeval", "evalite", "agentevals", "galtea"]
        .iter()
        .enumerate()
    {
        let path = root().join(format!("tests/fixtures/vectors/{profile}.jsonl.gz"));
        let file = std::fs::File::open(&path).unwrap();
        let lines = std::io::BufReader::new(flate2::read::GzDecoder::new(file)).lines();
        for line in lines.map_while(Result::ok).take(200) {
            // The selector byte picks the profile by index in PEERS.
            let sel = [0u8, 1, 2, 3, 4][i];
            let mut data = vec![sel];
            data.extend_from_slice(line.as_bytes());
            fuzz_targets::score_line(&data);
        }
    }
}

#[test]
fn the_engine_body_runs_on_structured_noise() {
    // A deterministic spread of inputs: the arbitrary-built configs and calls must all run.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for len in [0usize, 16, 64, 256, 1024, 4096] {
        for _ in 0..40 {
            let data: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x >> 56) as u8
                })
                .collect();
            fuzz_targets::engine(&data);
        }
    }
}

/// The schema rules' fuzz body on a deterministic spread of inputs: arbitrary schemas and
/// arguments, and the oracle that the counted work bounds the crate's.
#[test]
fn the_schema_rules_body_runs_on_structured_noise() {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    for len in [0usize, 32, 128, 512, 2048] {
        for _ in 0..60 {
            let data: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x >> 56) as u8
                })
                .collect();
            fuzz_targets::schema_rules(&data);
        }
    }
}

/// The YAML body holds on cassette-like documents, on every kind of scalar, key and
/// collection, on aliases up to and past the budget (a "billion laughs"), on nesting past the
/// limit, on broken text and on non-ASCII text, with every budget the selector byte picks.
#[test]
fn the_yaml_fuzz_body_holds_on_documents_and_hostile_yaml() {
    let mut laughs = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..9 {
        let refs = vec![format!("*a{}", i - 1); 10].join(", ");
        laughs.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
    }
    let deep = format!("k: {}{}", "[".repeat(300), "]".repeat(300));
    let cases = [
        "interactions:\n- request:\n    body: '{\"messages\": []}'\n    uri: https://api.example.com/v1/chat\n  response:\n    body:\n      string: '{\"calls\": [{\"name\": \"ls\"}]}'\n    status: {code: 200, message: OK}\nversion: 1\n",
        "---\nversion: 2\ninteractions:\n- id: 0\n  request:\n    body: |\n      {\"a\": 1}\n  response:\n    body: |+\n      data: {\"x\": 1}\n\n      data: [DONE]\n\n",
        "calls:\n- name: é\n  args: {q: \"ü\\u00e9\\U0001F600\", n: 1.5e3, m: -0, big: 18446744073709551616}\n- {name: \"ls\", args: ~}\n",
        "? a\n: 1\n? [b]\n: 2\n",
        "{a: 1, a: 2, \"b\": [1, 2, {c: .inf}], d: !!binary aGVsbG8=, e: !custom x}",
        "a: &x {calls: [{name: t}]}\nb: *x\n*x : 1\n",
        "a: *nothing\n",
        "a: 1\n---\nb: 2\n",
        "a: 'unterminated\n",
        "- - - - [x, {y: [z]}]\n  - \"\\x41\\t\\n\"\n",
        "a:\r\n  b: 1\r  c: 2\r\n",
        "#only a comment\n",
        "",
        laughs.as_str(),
        deep.as_str(),
    ];
    for case in cases {
        for sel in [0u8, 3, 40, 255] {
            let mut data = vec![sel];
            data.extend_from_slice(case.as_bytes());
            fuzz_targets::yaml(&data);
        }
    }
    // A real cassette, through the YAML body and through the readers (detected, whole and
    // streamed, as each name the reader body gives).
    let cassette = std::fs::read(root().join(
        "tests/fixtures/wild/anthropic_messages/pydantic-ai-anthropic-memory-tool.cassette.yaml",
    ))
    .unwrap();
    for sel in [0u8, 255] {
        let mut data = vec![sel];
        data.extend_from_slice(&cassette);
        fuzz_targets::yaml(&data);
    }
    let n = Format::ALL.len() as u8 + 1;
    for sel in [0u8, n, 2 * n, 1] {
        let mut data = vec![sel];
        data.extend_from_slice(&cassette);
        fuzz_targets::transcript_read(&data);
    }
}
