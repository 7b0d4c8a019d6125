//! `--format json` output validates against the published schema (`docs/schema/report.schema.json`)
//! on runs with passing and failing pairs, datasets, profiles, forbidden calls, spec errors and
//! warnings; and it carries what a consumer needs without parsing prose: the matched and offending
//! calls with their name and arguments, each failed constraint as `{path, constraint, expected,
//! actual}`, each `never` rule with the calls it forbids.

use std::process::Command;

use serde_json::{json, Value};

fn report_of(dir: &str) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(["check", ".", "--format", "json"])
        .current_dir(dir)
        .output()
        .expect("run toolspec");
    serde_json::from_slice(&out.stdout).expect("the report is JSON")
}

fn result<'a>(report: &'a Value, spec: &str, transcript: &str) -> &'a Value {
    report["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["spec"] == spec && r["transcript"] == transcript)
        .unwrap_or_else(|| panic!("no result for {spec} on {transcript}"))
}

#[test]
fn json_reports_validate_against_the_published_schema() {
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string("docs/schema/report.schema.json").unwrap())
            .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let dirs = [
        "examples",
        "tests/cmd/report.in",
        "tests/cmd/broken.in",
        "tests/cmd/glob.in",
        "tests/cmd/config.in",
        "tests/cmd/rate.in",
        "tests/cmd/extras.in",
    ];
    for dir in dirs {
        let report = report_of(dir);
        let errors: Vec<String> = validator
            .iter_errors(&report)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{dir}: {}", errors.join("\n"));
    }
    // The schema is not vacuous: a report with a member it does not know, or without one it
    // requires, fails it.
    let mut report = report_of("tests/cmd/report.in");
    report["results"][0]["expectations"][0]["reasons"] = json!([]);
    assert!(!validator.is_valid(&report));
    let mut report = report_of("tests/cmd/report.in");
    report["results"][0]["rules"] = Value::Null;
    assert!(!validator.is_valid(&report));
    let mut report = report_of("tests/cmd/rate.in");
    report["rates"][0]["rate"] = json!(1.5);
    assert!(!validator.is_valid(&report));
}

/// Each spec with a `pass_rate` has its rate in the report, as data: met with a failing
/// transcript, missed, over no transcript, with an unreadable transcript counted as failing;
/// the failing pairs of such specs carry the rate and are counted apart in the summary.
#[test]
fn pass_rates_are_data() {
    let report = report_of("tests/cmd/rate.in");
    let rates = report["rates"].as_array().unwrap();
    let rate = |spec: &str| {
        rates
            .iter()
            .find(|r| r["spec"] == spec)
            .unwrap_or_else(|| panic!("no rate for {spec}"))
    };
    let met = rate("booking");
    assert_eq!(
        (&met["passed"], &met["total"], &met["met"]),
        (&json!(3), &json!(4), &json!(true))
    );
    assert_eq!(met["rate"], 0.75);
    assert_eq!(met["required"], 0.75);
    assert_eq!(met["location"]["line"], 4);
    let missed = rate("refund");
    assert_eq!(
        (&missed["passed"], &missed["met"]),
        (&json!(1), &json!(false))
    );
    let none = rate("nothing_recorded");
    assert_eq!((&none["total"], &none["rate"]), (&json!(0), &Value::Null));
    assert_eq!(none["met"], false);
    let broken = rate("refund_broken");
    assert_eq!(
        (&broken["passed"], &broken["total"], &broken["unread"]),
        (&json!(1), &json!(2), &json!(1))
    );
    let failing = result(&report, "booking", "runs/booking/d.anthropic.json");
    assert_eq!(failing["passed"], false);
    assert_eq!(failing["pass_rate"], 0.75);
    assert!(failing["findings"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f["severity"] != "error"));
    assert_eq!(report["summary"]["failed_within_rate"], 3);
    assert_eq!(report["summary"]["rates"], 4);
    assert_eq!(report["summary"]["rates_missed"], 2);
    // A report without a `pass_rate` has none of these members.
    let plain = report_of("tests/cmd/report.in");
    assert!(plain.get("rates").is_none());
    assert!(plain["summary"].get("rates").is_none());
}

/// Under `score per_argument` each name-only call's share is data: units that hold, units, the
/// words the text formats print, and the credit.
#[test]
fn per_argument_shares_are_data() {
    let report = report_of("tests/cmd/extras.in");
    for transcript in ["runs/openai.json", "runs/anthropic.json"] {
        let r = result(&report, "refund_partial", transcript);
        let share = &r["expectations"][0]["shares"][0];
        assert_eq!(share["call"], 2);
        assert_eq!(
            (share["held"].as_u64(), share["total"].as_u64()),
            (Some(2), Some(3))
        );
        assert_eq!(share["summary"], "2/3 arguments hold");
        assert!((share["credit"].as_f64().unwrap() - (0.5 + 0.5 * 2.0 / 3.0)).abs() < 1e-12);
        let subject = &r["expectations"][1]["failures"][0];
        assert_eq!(subject["constraint"], "fuzzy_tokens");
        assert!((r["score"].as_f64().unwrap() - (0.5 + 0.5 * 2.0 / 3.0)).abs() < 1e-12);
    }
    // Without `score per_argument` there is no `shares` member.
    let plain = report_of("tests/cmd/report.in");
    assert!(!plain.to_string().contains("\"shares\""));
}

#[test]
fn calls_and_failed_constraints_are_data() {
    let report = report_of("tests/cmd/report.in");
    let bad = result(&report, "refund_strict", "runs/bad.json");
    // The name-only match: the call with its arguments, and the constraint it fails.
    let refund = &bad["expectations"][1];
    assert_eq!(refund["status"], "name_only");
    assert_eq!(refund["calls"][0]["name"], "issue_refund");
    assert_eq!(refund["calls"][0]["arguments"]["amount_cents"], 14999);
    assert_eq!(refund["calls"][0]["location"]["line"], 3);
    let failure = &refund["failures"][0];
    assert_eq!(failure["call"], 1);
    assert_eq!(failure["part"], "args");
    assert_eq!(failure["path"], "amount_cents");
    assert_eq!(failure["constraint"], "range");
    assert_eq!(failure["expected"]["max"], 12999.0);
    assert_eq!(failure["actual"], 14999);
    assert_eq!(failure["location"]["line"], 10);
    // A reference constraint: expected is the captured value.
    let email = &bad["expectations"][2]["failures"][0];
    assert_eq!(email["path"], "to");
    assert_eq!(email["actual"], "bob@example.com");
    // Each `never` rule, broken or not, with the calls it forbids and their arguments.
    let rules = bad["rules"].as_array().unwrap();
    assert_eq!(rules.len(), 2);
    assert_eq!(rules[0]["tool"], "close_account");
    assert_eq!(rules[0]["passed"], false);
    assert_eq!(rules[0]["calls"][0]["index"], 2);
    assert_eq!(rules[0]["calls"][0]["arguments"]["customer_id"], "C-7");
    assert_eq!(rules[1]["tool"], "delete_customer");
    assert_eq!(rules[1]["passed"], true);
    assert_eq!(rules[1]["calls"], json!([]));
    // Findings name the call they are about, and the expectation.
    let findings = bad["findings"].as_array().unwrap();
    let forbidden = findings
        .iter()
        .find(|f| f["code"] == "forbidden-call")
        .unwrap();
    assert_eq!(forbidden["call"]["name"], "close_account");
    assert!(forbidden["call"].get("location").is_none());
    let name_only = findings
        .iter()
        .find(|f| f["code"] == "name-only-match")
        .unwrap();
    assert_eq!(name_only["expectation"], 1);
    // Under `extra forbid`, an extra call is offending: its arguments are read and shown.
    let extra = findings
        .iter()
        .find(|f| f["code"] == "unexpected-call")
        .unwrap();
    assert_eq!(extra["call"]["name"], "open_ticket");
    assert_eq!(extra["call"]["arguments"], json!({"queue": "billing"}));
}

/// `check --partial --format json` validates against the schema too, on every project above and
/// on the fixture of a run with a forbidden call; its `partial` says which statement is violated
/// and by which call, as data.
#[test]
fn partial_reports_validate_and_name_the_violated_statement() {
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string("docs/schema/report.schema.json").unwrap())
            .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let partial = |dir: &str, args: &[&str]| -> Value {
        let out = Command::new(env!("CARGO_BIN_EXE_toolspec"))
            .args(["check", "--partial", "--format", "json"])
            .args(args)
            .current_dir(dir)
            .output()
            .expect("run toolspec");
        serde_json::from_slice(&out.stdout).expect("the report is JSON")
    };
    for dir in [
        "examples",
        "tests/cmd/report.in",
        "tests/cmd/broken.in",
        "tests/cmd/rate.in",
        "tests/cmd/extras.in",
    ] {
        let report = partial(dir, &["."]);
        assert_eq!(report["summary"]["partial"], true, "{dir}");
        let errors: Vec<String> = validator
            .iter_errors(&report)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{dir}: {}", errors.join("\n"));
        for r in report["results"].as_array().unwrap() {
            assert!(
                r["partial"].is_object() || r["spec"] == "rules",
                "{dir}: {r}"
            );
        }
    }
    let report = partial(
        "examples/prompts",
        &[
            "--spec",
            "coding.toolspec",
            "../../tests/cmd/partial.in/rm-rf-at-call-4.jsonl",
        ],
    );
    assert!(validator.is_valid(&report));
    let r = result(
        &report,
        "claude_code_fix",
        "../../tests/cmd/partial.in/rm-rf-at-call-4.jsonl",
    );
    let violated: Vec<&Value> = r["partial"]["statements"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["state"] == "violated")
        .collect();
    assert_eq!(violated.len(), 1, "{r}");
    assert_eq!(violated[0]["kind"], "never");
    assert_eq!(violated[0]["call"], 3);
    assert_eq!(violated[0]["code"], "forbidden-call");
}
