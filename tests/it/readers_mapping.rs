//! Custom mappings (`[formats.NAME]` in toolspec.toml): a log no built-in reader knows is read
//! with JSONPath expressions, by `check` and `calls`, through the built binary; mistakes in a
//! mapping are located errors in toolspec.toml; a mapping never widens what is read.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{json, Value};

const FIXTURE: &str = "tests/fixtures/mapping";

fn toolspec(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A project in a temporary folder: the fixture's log and specs, and `settings` as its
/// toolspec.toml.
fn project(settings: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("runs")).unwrap();
    let fixture = Path::new(FIXTURE);
    for f in ["pass.toolspec", "fail.toolspec", "runs/session.json"] {
        std::fs::copy(fixture.join(f), root.join(f)).unwrap();
    }
    std::fs::write(root.join("toolspec.toml"), settings).unwrap();
    dir
}

#[test]
fn check_reads_the_log_through_the_mapping() {
    let dir = Path::new(FIXTURE);
    let pass = toolspec(dir, &["check", "pass.toolspec"]);
    assert_eq!(pass.status.code(), Some(0), "{}", text(&pass));
    assert!(
        text(&pass).contains("1 passed, 0 failed"),
        "{}",
        text(&pass)
    );

    // `-v`: the full rendering, which names the file, line and column of each finding.
    let fail = toolspec(dir, &["check", "fail.toolspec", "-v"]);
    let out = text(&fail);
    assert_eq!(fail.status.code(), Some(1), "{out}");
    assert!(
        out.contains("expected a call to #2 `issue_refund`"),
        "{out}"
    );
    // The extra call is located at its event in the log.
    assert!(out.contains("runs/session.json:5:3"), "{out}");

    // Without the settings no reader knows the shape.
    let none = toolspec(dir, &["check", "--no-config", "pass.toolspec"]);
    assert_eq!(none.status.code(), Some(2), "{}", text(&none));
    assert!(text(&none).contains("unknown transcript format"));
}

#[test]
fn calls_json_prints_the_mapped_calls() {
    let out = toolspec(
        Path::new(FIXTURE),
        &["calls", "--json", "runs/session.json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let calls: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        calls,
        json!([
            {"name": "search", "args": {"q": "refund policy"}, "id": "a1", "output": "ok", "is_error": false},
            {"name": "fetch", "args": {"url": "https://example.com/refunds"}, "id": "a2", "output": "timeout", "is_error": true}
        ])
    );
}

const GOOD: &str = "[formats.events]\nfiles = [\"runs/*.json\"]\n";

#[test]
fn a_bad_jsonpath_is_a_located_error_in_toolspec_toml() {
    let dir = project(&format!(
        "{GOOD}calls = \"$.events[?@.kind == \"\nname = \"$.tool.fn\"\n"
    ));
    for args in [
        &["check", "pass.toolspec"][..],
        &["calls", "runs/session.json"],
    ] {
        let out = toolspec(dir.path(), args);
        let all = text(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {all}");
        assert!(all.contains("toolspec.toml:3:9"), "{args:?}: {all}");
        assert!(all.contains("formats.events.calls"), "{all}");
        assert!(all.contains("is not a valid"), "{all}");
    }
}

#[test]
fn unknown_keys_and_missing_required_keys_are_located() {
    for (settings, at, says) in [
        (
            format!("{GOOD}calls = \"$.events[*]\"\nname = \"$.tool.fn\"\nnmae = \"$.x\"\n"),
            "toolspec.toml:5:1",
            "unknown field `nmae`",
        ),
        (
            format!("{GOOD}name = \"$.tool.fn\"\n"),
            "toolspec.toml:1:1",
            "missing field `calls`",
        ),
        (
            format!("{GOOD}calls = \"$.events[*]\"\n"),
            "toolspec.toml:1:1",
            "missing field `name`",
        ),
        (
            format!(
                "{GOOD}calls = \"$.events[*]\"\nname = \"$.tool.fn\"\n[formats.events.results]\npath = \"$.events[*]\"\nid = \"ref\"\n"
            ),
            "toolspec.toml:7:6",
            "formats.events.results.id",
        ),
    ] {
        let dir = project(&settings);
        let out = toolspec(dir.path(), &["check", "pass.toolspec"]);
        let all = text(&out);
        assert_eq!(out.status.code(), Some(2), "{settings}: {all}");
        assert!(all.contains(at), "{settings}: {all}");
        assert!(all.contains(says), "{settings}: {all}");
    }
}

#[test]
fn a_query_past_the_budget_is_a_located_error_not_a_blow_up() {
    // Ten selectors per bracket, twelve brackets: up to 10^12 results on a nested document.
    let calls = format!("${}", "[0,0,0,0,0,0,0,0,0,0]".repeat(12));
    let dir = project(&format!("{GOOD}calls = \"{calls}\"\nname = \"$.fn\"\n"));
    let doc = format!("{}{{\"fn\": \"x\"}}{}", "[".repeat(12), "]".repeat(12));
    std::fs::write(dir.path().join("runs/session.json"), doc).unwrap();
    let out = toolspec(dir.path(), &["check", "pass.toolspec"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(2), "{all}");
    assert!(all.contains("runs/session.json:1:1"), "{all}");
    assert!(all.contains("custom mapping `events`"), "{all}");
    assert!(all.contains("may visit"), "{all}");
}

#[test]
fn a_mapping_never_reads_files_check_does_not_read() {
    let outer = tempfile::tempdir().unwrap();
    let root = outer.path().join("repo");
    std::fs::create_dir_all(&root).unwrap();
    // A log beside the project, matched by the mapping's globs but by no spec.
    std::fs::write(
        outer.path().join("secret.json"),
        r#"{"events": [{"kind": "tool", "tool": {"fn": "leaked"}}]}"#,
    )
    .unwrap();
    let dir = project(
        "[formats.events]\nfiles = [\"runs/*.json\", \"../*.json\", \"/**/*.json\"]\ncalls = \"$.events[?@.kind == 'tool']\"\nname = \"$.tool.fn\"\n",
    );
    let copy = |f: &str| {
        std::fs::create_dir_all(root.join("runs")).unwrap();
        std::fs::copy(dir.path().join(f), root.join(f)).unwrap();
    };
    for f in ["toolspec.toml", "pass.toolspec", "runs/session.json"] {
        copy(f);
    }
    std::fs::create_dir_all(root.join(".git")).unwrap();
    let out = toolspec(&root, &["check", "pass.toolspec"]);
    let all = text(&out);
    // Only the spec's own transcript is checked; the file outside is never named.
    assert!(all.contains("1 transcript)"), "{all}");
    assert!(!all.contains("secret") && !all.contains("leaked"), "{all}");
}

#[test]
fn a_mapping_that_finds_no_call_says_so() {
    let dir = project(&format!(
        "{GOOD}calls = \"$.nothing[*]\"\nname = \"$.tool.fn\"\n"
    ));
    let out = toolspec(dir.path(), &["check", "pass.toolspec"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(
        all.contains("read with a custom mapping of toolspec.toml, with 0 tool calls"),
        "{all}"
    );
}

/// The same log written as YAML (what a custom mapping of `*.yaml` files reads): the same calls,
/// each located at its node in the YAML text; broken YAML is an `invalid-yaml` error at the
/// parser's line and column, never a JSON error.
#[test]
fn a_yaml_log_reads_as_the_json_it_stands_for() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("runs")).unwrap();
    let settings = std::fs::read_to_string(Path::new(FIXTURE).join("toolspec.toml"))
        .unwrap()
        .replace("runs/*.json", "runs/*.yaml");
    std::fs::write(root.join("toolspec.toml"), settings).unwrap();
    let yaml = "# the session of tests/fixtures/mapping/runs/session.json, as YAML\nsession: s-1\nevents:\n- kind: tool\n  tool: {fn: search, params: '{\"q\": \"refund policy\"}'}\n  ref: a1\n- {kind: note, text: reading the results}\n- kind: tool_result\n  ref: a1\n  body: ok\n- kind: tool\n  tool:\n    fn: fetch\n    params:\n      url: https://example.com/refunds\n  ref: a2\n- kind: tool_result\n  ref: a2\n  body: timeout\n  status: error\n";
    std::fs::write(root.join("runs/session.yaml"), yaml).unwrap();
    let out = toolspec(root, &["calls", "--json", "runs/session.yaml"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let calls: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        calls,
        json!([
            {"name": "search", "args": {"q": "refund policy"}, "id": "a1", "output": "ok", "is_error": false},
            {"name": "fetch", "args": {"url": "https://example.com/refunds"}, "id": "a2", "output": "timeout", "is_error": true}
        ])
    );
    // Each call at its node: the second `- kind: tool` item starts on line 11, column 3.
    let spec = "spec yaml_fail {\n  transcripts \"runs/*.yaml\"\n  call search(q: \"refund policy\")\n  call issue_refund(order_id: \"ORD-1\")\n}\n";
    std::fs::write(root.join("fail.toolspec"), spec).unwrap();
    let fail = toolspec(root, &["check", "fail.toolspec", "-v"]);
    assert_eq!(fail.status.code(), Some(1), "{}", text(&fail));
    assert!(
        text(&fail).contains("runs/session.yaml:11:3"),
        "{}",
        text(&fail)
    );

    std::fs::write(
        root.join("runs/session.yaml"),
        "events:\n- kind: tool\n  tool: {fn: search\n- kind: note\n",
    )
    .unwrap();
    let out = toolspec(root, &["calls", "--json", "runs/session.yaml"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(2), "{all}");
    assert!(all.contains("invalid YAML"), "{all}");
    assert!(all.contains("runs/session.yaml:4:"), "{all}");
    assert!(all.contains("invalid_yaml"), "{all}");
    assert!(!all.contains("invalid JSON"), "{all}");
    assert!(!all.contains("fix the JSON"), "{all}");
}

/// JSON held in strings: a HAR recording keeps each response body as JSON text, and a list of
/// expressions reads through it (the recording of tests/fixtures/wild, which the built-in HAR
/// reader also reads, so the two must agree); an expression of the list that does not parse is
/// an error at that element, and a string that holds no JSON an error at the string.
#[test]
fn a_list_of_expressions_reads_json_held_in_strings() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let har = "openllmetry-ai-sdk-agent-tool-call.recording.har";
    std::fs::copy(
        Path::new("tests/fixtures/wild/openai_responses").join(har),
        root.join(har),
    )
    .unwrap();
    let built_in = toolspec(root, &["calls", "--json", har]);
    assert_eq!(built_in.status.code(), Some(0), "{}", text(&built_in));
    let settings = "[formats.har]\nfiles = [\"*.har\"]\ncalls = [\n  \"$.log.entries[*].response.content.text\",\n  \"$.output[?@.type == 'function_call']\",\n]\nname = \"$.name\"\narguments = \"$.arguments\"\nid = \"$.call_id\"\n";
    std::fs::write(root.join("toolspec.toml"), settings).unwrap();
    let out = toolspec(root, &["calls", "--json", har]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let calls: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        calls,
        json!([{"name": "calculate", "args": {"operation": "add", "a": 5, "b": 3}, "id": "call_qT654GsDB0G8qqOyqaLlypO4", "output": null, "is_error": false}])
    );
    let expected: Value = serde_json::from_slice(&built_in.stdout).unwrap();
    assert_eq!(calls[0]["name"], expected[0]["name"]);
    assert_eq!(calls[0]["args"], expected[0]["args"]);

    std::fs::write(
        root.join("toolspec.toml"),
        settings.replace("'function_call']", "'function_call'"),
    )
    .unwrap();
    let out = toolspec(root, &["calls", "--json", har]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(2), "{all}");
    assert!(all.contains("toolspec.toml:5:3"), "{all}");
    assert!(all.contains("formats.har.calls[1]: "), "{all}");

    // The request body's messages are JSON too, but its `model` is a plain string.
    std::fs::write(
        root.join("toolspec.toml"),
        settings
            .replace("response.content.text", "request.postData.text")
            .replace(
                "\"$.output[?@.type == 'function_call']\"",
                "\"$.model\", \"$\"",
            ),
    )
    .unwrap();
    let out = toolspec(root, &["calls", "--json", har]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(2), "{all}");
    assert!(all.contains("invalid_json"), "{all}");
    assert!(
        all.contains("`formats.har.calls[2]` runs on the JSON text held in the string here"),
        "{all}"
    );
}
