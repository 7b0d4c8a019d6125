//! `--format sarif` output validates against the official SARIF 2.1.0 JSON schema (pinned in
//! `tests/fixtures/sarif-schema-2.1.0.json`), on a run with findings, spec errors and warnings.

use std::process::Command;

fn sarif_of(dir: &str) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(["check", ".", "--format", "sarif"])
        .current_dir(dir)
        .output()
        .expect("run toolspec");
    serde_json::from_slice(&out.stdout).expect("SARIF output is JSON")
}

#[test]
fn sarif_output_validates_against_the_2_1_0_schema() {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string("tests/fixtures/sarif-schema-2.1.0.json").unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    for dir in ["examples", "tests/cmd/broken.in"] {
        let sarif = sarif_of(dir);
        let errors: Vec<String> = validator
            .iter_errors(&sarif)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{dir}: {}", errors.join("\n"));
        let results = sarif["runs"][0]["results"].as_array().unwrap();
        assert!(!results.is_empty(), "{dir}: the run has findings");
        // What GitHub code scanning needs of every result.
        for r in results {
            assert!(r["ruleId"].is_string());
            if let Some(loc) = r["locations"].as_array().and_then(|l| l.first()) {
                let phys = &loc["physicalLocation"];
                let uri = phys["artifactLocation"]["uri"].as_str().unwrap();
                assert!(!uri.starts_with('/'), "repository-relative uri: {uri}");
                assert!(phys["region"]["startLine"].as_u64().unwrap() >= 1);
            }
        }
    }
    // A spec error's label (its did-you-mean) is the location's message.
    let sarif = sarif_of("tests/cmd/broken.in");
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let unknown = results
        .iter()
        .find(|r| r["ruleId"] == "toolspec::unknown-keyword")
        .expect("broken.in has an unknown keyword");
    assert_eq!(
        unknown["locations"][0]["message"]["text"],
        "did you mean `order`?"
    );
}
