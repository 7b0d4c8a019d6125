//! Hostile transcript contents, through the real binary: each gives a clear error or finding,
//! the process does not crash, and the good transcript next to it is still checked.
//!
//! Large inputs are generated in a temp folder at test time. Nothing here asserts on time; the
//! run times and peak memory of the same inputs are measured in `docs/robustness.md`.

use crate::hostile_support;

use std::io::Write;

use hostile_support::{Project, GOOD_TRANSCRIPT};

/// An OpenAI Chat transcript whose user message is `filler`, calling `lookup` with `q`.
fn chat_with(filler: &str, q_json: &str) -> String {
    format!(
        concat!(
            r#"{{"model":"gpt-4o","messages":[{{"role":"user","content":"{}"}},"#,
            r#"{{"role":"assistant","content":null,"tool_calls":[{{"id":"c1","type":"function","#,
            r#""function":{{"name":"lookup","arguments":{}}}}}]}},"#,
            r#"{{"role":"tool","tool_call_id":"c1","content":"ok"}}]}}"#
        ),
        filler, q_json
    )
}

/// The arguments string `{"q": <value>}` as the JSON string literal OpenAI stores.
fn args_string(q: &str) -> String {
    serde_json::to_string(&serde_json::json!({ "q": q }).to_string()).unwrap()
}

#[test]
fn a_100_mb_single_line_json_file_is_read_and_checked() {
    let p = Project::new();
    // Over the 64 MiB whole-file limit: the streaming path, one 100 MB line.
    let path = p.path("runs/huge.json");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let head = r#"{"model":"gpt-4o","messages":[{"role":"user","content":""#;
    f.write_all(head.as_bytes()).unwrap();
    let chunk = "lorem ipsum dolor sit amet ".repeat(4096);
    let mut written = head.len();
    while written < 100_000_000 {
        f.write_all(chunk.as_bytes()).unwrap();
        written += chunk.len();
    }
    let tail = chat_with("", &args_string("x"));
    let tail = &tail[tail.find(r#""},{"role":"assistant""#).unwrap()..];
    f.write_all(tail.as_bytes()).unwrap();
    f.write_all(b"\n").unwrap();
    drop(f);
    assert!(std::fs::metadata(&path).unwrap().len() > 100_000_000);

    let run = p.check(&[]);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let huge = run.result_for("huge.json").expect("huge.json checked");
    assert_eq!(huge["passed"], true, "{huge:#}");
    assert_eq!(huge["calls"], 1);
    run.assert_good_checked();
}

#[test]
fn nesting_100_000_levels_deep_is_a_located_error() {
    let p = Project::new();
    let deep = format!(
        r#"{{"messages":{}{}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    p.write("runs/deep.json", &deep);
    // The same depth inside an arguments string: the call is kept, its arguments are not JSON.
    let deep_args = serde_json::to_string(&deep).unwrap();
    p.write("runs/deep_args.json", chat_with("hi", &deep_args));
    // And as a JSONL line.
    p.write("runs/deep.jsonl", format!("{}\n{deep}\n", r#"{"a":1}"#));

    let run = p.check(&[]);
    assert_eq!(run.code, Some(2), "{}\n{}", run.stdout, run.stderr);
    let errors = run.errors_about("deep.json");
    assert_eq!(errors.len(), 1, "{}", run.stdout);
    let message = errors[0]["message"].as_str().unwrap();
    assert!(message.contains("nest"), "{message}");
    assert_eq!(errors[0]["location"]["line"], 1);

    let args = run
        .result_for("deep_args.json")
        .expect("deep_args.json checked");
    assert_eq!(args["passed"], false);
    assert!(
        args["findings"].to_string().contains("invalid-arguments"),
        "{args:#}"
    );
    let lines = run.errors_about("deep.jsonl");
    assert_eq!(lines.len(), 1, "{}", run.stdout);
    assert_eq!(lines[0]["location"]["line"], 2);
    assert!(lines[0]["message"].as_str().unwrap().contains("nest"));
    run.assert_good_checked();
}

#[test]
fn megabyte_strings_under_a_fuzzy_constraint_are_settled_or_reported() {
    let big = "lorem ipsum dolor sit amet ".repeat(40_000); // ~1 MB
    let shuffled = "amet sit dolor ipsum lorem ".repeat(40_000);
    let spec = format!(
        r#"spec short_expectation {{
  transcripts "runs/big.json", "runs/good.json"
  call lookup(q: fuzzy "lorem ipsum" >= 0.8)
}}
spec long_expectation {{
  transcripts "runs/big.json"
  call lookup(q: fuzzy "{shuffled}" >= 0.9)
}}
"#
    );
    let p = Project::with_spec(&spec);
    p.write("runs/big.json", chat_with("hi", &args_string(&big)));

    let run = p.check(&[]);
    assert_eq!(run.code, Some(1), "{}\n{}", run.stdout, run.stderr);
    let report = run.report();
    let results = report["results"].as_array().unwrap();
    let pair = |spec: &str, file: &str| {
        results
            .iter()
            .find(|r| r["spec"] == spec && r["transcript"].as_str().unwrap().ends_with(file))
            .unwrap_or_else(|| panic!("{spec} × {file} missing"))
    };
    // Settled exactly by the length bound: fails, with a reason, no approximation to report.
    let short = pair("short_expectation", "big.json");
    assert_eq!(short["passed"], false);
    assert!(!short["findings"]
        .to_string()
        .contains("fuzzy-bound-applied"));
    assert_eq!(pair("short_expectation", "good.json")["passed"], false);
    // Same length and alphabet: not decidable within the bound, so the engine says so.
    let long = pair("long_expectation", "big.json");
    assert_eq!(long["passed"], false);
    assert!(
        long["findings"].to_string().contains("fuzzy-bound-applied"),
        "{:#}",
        long["findings"]
    );
}

#[test]
fn invalid_utf8_is_a_located_error() {
    let p = Project::new();
    let mut bytes = GOOD_TRANSCRIPT.as_bytes().to_vec();
    let at = bytes.windows(4).position(|w| w == b"find").unwrap();
    bytes[at] = 0xff;
    p.write("runs/latin1.json", &bytes);
    let run = p.check(&[]);
    assert_eq!(run.code, Some(2), "{}\n{}", run.stdout, run.stderr);
    let errors = run.errors_about("latin1.json");
    assert_eq!(errors.len(), 1, "{}", run.stdout);
    assert_eq!(errors[0]["code"], "invalid-utf8");
    // The bad byte is on line 2 of the transcript.
    assert_eq!(errors[0]["location"]["line"], 2);
    run.assert_good_checked();
}

#[test]
fn a_binary_file_named_jsonl_is_an_error() {
    let p = Project::new();
    // Deterministic pseudo-random bytes with NULs, like a gzip or an image renamed by mistake.
    let mut x: u32 = 0x1234_5678;
    let bytes: Vec<u8> = (0..200_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 24) as u8
        })
        .collect();
    p.write("runs/blob.jsonl", &bytes);
    let run = p.check(&[]);
    assert_eq!(run.code, Some(2), "{}\n{}", run.stdout, run.stderr);
    let errors = run.errors_about("blob.jsonl");
    assert_eq!(errors.len(), 1, "{}", run.stdout);
    assert_eq!(errors[0]["code"], "binary");
    run.assert_good_checked();
}

#[test]
fn a_large_binary_file_without_newlines_is_refused_from_its_first_bytes() {
    let p = Project::new();
    // 200 MB of zero bytes (sparse: no disk used), over the whole-file limit: streamed, and
    // judged by its first bytes instead of being buffered as one 200 MB "line".
    let f = std::fs::File::create(p.path("runs/zeros.jsonl")).unwrap();
    f.set_len(200_000_000).unwrap();
    drop(f);
    let run = p.check(&[]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    let errors = run.errors_about("zeros.jsonl");
    assert_eq!(errors.len(), 1, "{}", run.stdout);
    assert_eq!(errors[0]["code"], "binary");
    assert_eq!(errors[0]["location"]["line"], 1);
    run.assert_good_checked();
}

#[test]
fn an_empty_file_is_an_error() {
    let p = Project::new();
    p.write("runs/empty.jsonl", "");
    p.write("runs/blank.json", "\n \n\t\n");
    let run = p.check(&[]);
    assert_eq!(run.code, Some(2), "{}\n{}", run.stdout, run.stderr);
    for name in ["empty.jsonl", "blank.json"] {
        let errors = run.errors_about(name);
        assert_eq!(errors.len(), 1, "{name}: {}", run.stdout);
        assert_eq!(errors[0]["code"], "empty", "{name}");
    }
    run.assert_good_checked();
}

#[test]
fn a_dataset_cut_mid_line_reports_the_records_before_the_cut() {
    let p = Project::new();
    let line = GOOD_TRANSCRIPT.replace('\n', "");
    // Distinct conversations: identical lines would read as one request log resending its
    // history, which the reader merges into one transcript.
    let other = line.replace("c1", "c2").replace("find x", "find x again");
    // A dataset (one transcript per line) whose last line was cut mid-write.
    p.write(
        "runs/cut.jsonl",
        format!("{line}\n{other}\n{}", &line[..line.len() / 2]),
    );
    let run = p.check(&[]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    let errors = run.errors_about("cut.jsonl");
    assert_eq!(errors.len(), 1, "{}", run.stdout);
    assert_eq!(errors[0]["location"]["line"], 3);
    let report = run.report();
    let records: Vec<_> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["transcript"] == "runs/cut.jsonl")
        .map(|r| (r["record"].clone(), r["passed"].clone()))
        .collect();
    assert_eq!(
        records,
        [(1.into(), true.into()), (2.into(), true.into())],
        "{report:#}"
    );
    run.assert_good_checked();
}

/// A read error on a line longer than miette can lay out (65 535 columns) is rendered as a
/// window around the error by every command that prints one (`calls` and `init` went through
/// the renderer whole and panicked).
#[test]
fn a_read_error_on_a_very_long_line_is_rendered_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        format!("{{\"messages\": [\"{}\" x]}}\n", "a".repeat(70_000)),
    )
    .unwrap();
    std::fs::write(dir.path().join("p.md"), "# prompt\n").unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_toolspec"))
            .args(args)
            .env("NO_COLOR", "1")
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    for args in [
        &["calls", "bad.json"][..],
        &["init", "p.md", "--transcript", "bad.json"][..],
    ] {
        let out = run(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(stderr.contains("invalid JSON"), "{args:?}: {stderr}");
        assert!(stderr.len() < 8_000, "{args:?}: {} bytes", stderr.len());
    }
}
