//! The worked examples of `docs/scoring.md`: read from the document (spec, calls, stated score,
//! pass/fail and explanation) and run through the compiler and the engine, so the document cannot
//! drift from what toolspec does; then one hand-written test each (same numbering) for the
//! details the prose mentions.

use crate::engine_common;

use engine_common::*;
use serde_json::{json, Value};
use toolspec::compile::{compile, MapLoader};
use toolspec::config::*;
use toolspec::engine::{run, Recorded, Status};
use toolspec::source::SourceFile;
use toolspec::transcript::model::ToolCall;

/// One worked example as the document writes it.
#[derive(Debug)]
struct DocExample {
    title: String,
    spec: String,
    calls: Vec<ToolCall>,
    /// The final answer, from an `answer "…"` line.
    answer: Option<String>,
    score: f64,
    passed: bool,
    explanation: Option<String>,
}

/// The text of the first ```lang block in `text`.
fn block<'t>(text: &'t str, lang: &str) -> Option<&'t str> {
    let open = format!("```{lang}\n");
    let start = text.find(&open)? + open.len();
    let len = text[start..].find("```")?;
    Some(&text[start..start + len])
}

/// The examples of the "Worked examples" section of `doc`.
fn doc_examples(doc: &str) -> Vec<DocExample> {
    let start = doc.find("## Worked examples").expect("the section exists");
    let end = start
        + doc[start..]
            .find("\n## Complexity")
            .expect("the next section");
    let section = &doc[start..end];
    let mut out = Vec::new();
    // Each example starts with a bold "**N. Title.**" line.
    let starts: Vec<usize> = section
        .match_indices("\n**")
        .map(|(i, _)| i + 3)
        .filter(|&i| section[i..].starts_with(|c: char| c.is_ascii_digit()))
        .collect();
    let ends = starts.iter().skip(1).map(|&i| i - 3).chain([section.len()]);
    for (a, b) in starts.iter().zip(ends) {
        let part = &section[*a..b];
        let title = part[..part.find("**").unwrap()].to_owned();
        let spec = block(part, "toolspec")
            .unwrap_or_else(|| panic!("{title}: no spec"))
            .to_owned();
        let mut answer = None;
        let mut calls = Vec::new();
        for l in block(part, "calls")
            .unwrap_or_else(|| panic!("{title}: no calls"))
            .lines()
        {
            match l.strip_prefix("answer ") {
                Some(text) => answer = Some(serde_json::from_str(text).unwrap()),
                None => calls.push(call_line(l)),
            }
        }
        let verdict = &part[part
            .find("**score ")
            .unwrap_or_else(|| panic!("{title}: no verdict"))
            + "**score ".len()..];
        let verdict = &verdict[..verdict.find("**").unwrap()];
        let (score, outcome) = verdict.split_once(", ").unwrap();
        let explanation = part.find("The verdict says why:").map(|i| {
            let rest = &part[i..];
            let a = rest.find('`').unwrap() + 1;
            let b = a + rest[a..].find('`').unwrap();
            rest[a..b].to_owned()
        });
        out.push(DocExample {
            title,
            spec,
            calls,
            answer,
            score: score.parse().unwrap(),
            passed: match outcome {
                "passed" => true,
                "failed" => false,
                other => panic!("{other}"),
            },
            explanation,
        });
    }
    out
}

/// One line of a ```calls block: `name ARGS [-> OUTPUT] [errored] [turn N] [agent NAME]`, ARGS
/// and OUTPUT JSON (ARGS `{}` when left out).
fn call_line(line: &str) -> ToolCall {
    let (name, mut rest) = line.split_once(' ').unwrap_or((line, "{}"));
    let json = |rest: &mut &str| -> Value {
        let mut values = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        let v = values.next().unwrap().unwrap();
        *rest = rest[values.byte_offset()..].trim_start();
        v
    };
    let mut c = call(name, json(&mut rest));
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("->") {
            rest = r.trim_start();
            c.output = Some(json(&mut rest));
            continue;
        }
        let (word, tail) = rest.split_once(' ').unwrap_or((rest, ""));
        rest = tail.trim_start();
        match word {
            "errored" => c.is_error = true,
            "turn" | "agent" => {
                let (value, tail) = rest.split_once(' ').unwrap_or((rest, ""));
                rest = tail.trim_start();
                if word == "turn" {
                    c.turn = Some(value.parse().unwrap());
                } else {
                    c.agent = Some(value.to_owned());
                }
            }
            other => panic!("{line}: unknown word {other:?}"),
        }
    }
    c
}

#[test]
fn the_worked_examples_in_the_docs_hold() {
    let examples = doc_examples(include_str!("../../docs/scoring.md"));
    assert!(examples.len() >= 8, "found {} examples", examples.len());
    for ex in &examples {
        let src = SourceFile::new("example.toolspec", ex.spec.as_str());
        let r = compile(&src, &MapLoader::new());
        assert!(
            r.diagnostics.is_empty(),
            "{}: {:?}",
            ex.title,
            r.diagnostics
        );
        let config = &r.file.unwrap().specs[0];
        let recorded = Recorded {
            calls: &ex.calls,
            turns: ex.calls.iter().filter_map(|c| c.turn).max(),
            answer: ex.answer.as_deref(),
        };
        let v = run(config, &recorded);
        assert!(
            (v.score - ex.score).abs() < 1e-12,
            "{}: the document says score {}, the engine {}",
            ex.title,
            ex.score,
            v.score
        );
        assert_eq!(v.passed, ex.passed, "{}: passed", ex.title);
        if let Some(e) = &ex.explanation {
            let said: Vec<&str> = v
                .expectations
                .iter()
                .flat_map(|o| o.failures.iter().map(|f| f.message.as_str()))
                .collect();
            // A failed constraint's message, or part of a finding's (the answer's, a count's).
            assert!(
                said.contains(&e.as_str()) || v.findings.iter().any(|f| f.message.contains(e)),
                "{}: {e:?} not in {said:?} nor {:?}",
                ex.title,
                v.findings
            );
        }
    }
}

#[test]
fn the_document_reader_reads_what_is_written() {
    // The reader itself can fail: it finds every example with its numbers.
    let examples = doc_examples(include_str!("../../docs/scoring.md"));
    let got: Vec<(f64, bool)> = examples.iter().map(|e| (e.score, e.passed)).collect();
    assert_eq!(
        got,
        [
            (1.0, true),
            (0.75, true),
            (0.1375, false),
            (0.95, false),
            (1.0, true),
            (0.0, false),
            (0.0, false),
            (0.8, false),
            (0.25, false),
        ]
    );
    assert_eq!(examples[2].calls.len(), 4);
    assert!(examples[1].explanation.is_some());
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn example_1_everything_right() {
    let s = spec(
        OrderMode::InOrder,
        vec![
            exp("lookup").eq("id", json!(7)),
            exp("refund").eq("id", json!(7)),
            exp("notify"),
        ],
    );
    let v = run(
        &s,
        &[
            call("lookup", json!({"id": 7})),
            call("refund", json!({"id": 7.0})),
            call("notify", json!({"text": "done"})),
        ],
    );
    assert_eq!((v.score, v.passed), (1.0, true));
    assert_eq!(v.counts.exact, 3);
}

#[test]
fn example_2_right_tool_wrong_arguments() {
    let mut s = spec(
        OrderMode::InOrder,
        vec![
            exp("search").arg(
                "query",
                Check::Fuzzy {
                    value: "python tutorial".into(),
                    threshold: 0.8,
                },
            ),
            exp("fetch"),
        ],
    );
    let calls = [
        call("search", json!({"query": "python tutorial for kids"})),
        call("fetch", json!({})),
    ];
    let v = run(&s, &calls);
    assert_eq!(v.score, 0.75);
    assert!(!v.passed);
    assert_eq!(v.expectations[0].status, Status::NameOnly);
    assert_eq!(
        v.expectations[0].failures[0].message,
        r#"query: similarity 0.77 < 0.80 (got "python tutorial for kids", expected "python tutorial")"#
    );
    s.scoring.threshold = 0.7;
    assert!(run(&s, &calls).passed);
}

#[test]
fn example_3_weights_and_penalties() {
    let mut s = spec(
        OrderMode::AnyOrder,
        vec![exp("a"), exp("b").weight(2.0), exp("c").eq("x", json!(1))],
    );
    s.scoring.extra_call = 0.1;
    s.scoring.wrong_or_missing = 0.25;
    let v = run(
        &s,
        &[
            call("a", json!({})),
            call("c", json!({"x": 2})),
            call("x", json!({})),
            call("y", json!({})),
        ],
    );
    assert!(close(v.score, 0.1375), "{}", v.score);
    assert_eq!(v.counts.missing, 1);
    assert_eq!(v.counts.extra, 2);
}

#[test]
fn example_4_repeats_and_an_extra_wrong_call() {
    let mut s = spec(
        OrderMode::InOrder,
        vec![exp("search").eq("q", json!("rust")).repeat(2, None)],
    );
    s.scoring.extra_call = 0.1;
    let v = run(
        &s,
        &[
            call("search", json!({"q": "rust"})),
            call("search", json!({"q": "go"})),
            call("search", json!({"q": "rust"})),
        ],
    );
    assert!(close(v.score, 0.95), "{}", v.score);
    assert_eq!(v.expectations[0].calls, vec![0, 2]);
    assert_eq!(v.unaccounted, vec![1]);
}

#[test]
fn example_5_the_greedy_trap() {
    let s = spec(
        OrderMode::AnyOrder,
        vec![
            exp("search").arg("query", Check::Present),
            exp("search").eq("query", json!("rust")),
        ],
    );
    let v = run(
        &s,
        &[
            call("search", json!({"query": "rust"})),
            call("search", json!({"query": "go"})),
        ],
    );
    assert_eq!((v.score, v.passed), (1.0, true));
    assert_eq!(v.expectations[1].calls, vec![0]);
}

#[test]
fn example_6_clamping() {
    let mut s = spec(OrderMode::AnyOrder, vec![exp("a")]);
    s.scoring.extra_call = 0.5;
    let calls: Vec<_> = ["a", "x", "y", "z"]
        .iter()
        .map(|n| call(n, json!({})))
        .collect();
    assert_eq!(run(&s, &calls).score, 0.0);
}

#[test]
fn example_7_forbidden_and_binary() {
    let mut s = spec(OrderMode::InOrder, vec![exp("lookup"), exp("refund")]);
    s.forbidden.push(forbid("delete_account", None));
    s.scoring.binary = true;
    let mut calls = vec![call("lookup", json!({})), call("refund", json!({}))];
    assert_eq!(run(&s, &calls).score, 1.0);
    calls.push(call("delete_account", json!({})));
    let v = run(&s, &calls);
    assert_eq!((v.score, v.passed), (0.0, false));
    assert_eq!(v.findings[0].code, "forbidden-call");
    s.scoring.binary = false;
    let v = run(&s, &calls);
    assert_eq!((v.score, v.passed), (1.0, false));
}

#[test]
fn example_8_nothing_required() {
    let mut s = spec(OrderMode::AnyOrder, vec![exp("log").repeat(0, Some(1))]);
    s.scoring.extra_call = 0.2;
    let v = run(&s, &[call("log", json!({})), call("x", json!({}))]);
    assert!(close(v.score, 0.8), "{}", v.score);
}

#[test]
fn example_9_alternatives_and_an_answer_that_quotes() {
    let text = "spec s {\n  book: call book_room(guests: 1..=4, note: absent or type string)\n  answer contains book.output.confirmation\n}\n";
    let r = compile(&SourceFile::new("s.toolspec", text), &MapLoader::new());
    let config = &r.file.unwrap().specs[0];
    let booked = |note: Value, answer: &'static str| {
        let calls = [call_out(
            "book_room",
            json!({"guests": 2, "note": note}),
            json!({"confirmation": "BK-4417"}),
        )];
        run(
            config,
            &Recorded {
                calls: &calls,
                turns: None,
                answer: Some(answer),
            },
        )
    };
    let v = booked(json!(5), "Done: your booking BK-4418 is confirmed.");
    assert!(close(v.score, 0.25) && !v.passed);
    assert_eq!(v.expectations[0].status, Status::NameOnly);
    assert!(v.findings.iter().any(|f| f.code == "answer-mismatch"));
    let v = booked(json!("late arrival"), "Booked, confirmation BK-4417.");
    assert!(close(v.score, 1.0) && v.passed);
}
