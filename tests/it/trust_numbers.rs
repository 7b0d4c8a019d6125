//! Exact numbers in the shipped binary: serde_json must parse floats exactly
//! (`float_roundtrip`) in the release dependency graph, not only under `cargo test`, where a
//! dev-dependency turning the feature on is unified into every build (so a test of the binary
//! alone cannot tell; the dependency graph is checked instead).

use std::io::Write;
use std::process::{Command, Stdio};

/// `float_roundtrip` is on in the normal (non-dev) dependency graph, the one `cargo build
/// --release` and `cargo install` build.
#[test]
fn serde_json_parses_floats_exactly_in_the_release_graph() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "tree",
            "--offline",
            "--manifest-path",
            concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"),
            "-e",
            "normal,features",
            "-i",
            "serde_json",
        ])
        .output()
        .unwrap();
    let tree = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        tree.contains("serde_json feature \"float_roundtrip\""),
        "serde_json's float_roundtrip is not in the normal dependency graph:\n{tree}"
    );
}

fn score(profile: &str, line: &str) -> serde_json::Value {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(["score", "--profile", profile])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(line.as_bytes()).unwrap();
    drop(input);
    let out = child.wait_with_output().unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Two numbers one ulp apart are different (as in Python and JavaScript), and a number is
/// printed back as written.
#[test]
fn numbers_one_ulp_apart_differ_and_print_back_unchanged() {
    let (a, b) = ("4.7930822560292636e-175", "4.793082256029264e-175");
    let got = score(
        "deepeval",
        &format!(
            r#"{{"id":1,"tools_called":[{{"name":"t","input_parameters":{{"x":{a}}}}}],"expected_tools":[{{"name":"t","input_parameters":{{"x":{b}}}}}],"options":{{"evaluation_params":["INPUT_PARAMETERS"]}}}}"#
        ),
    );
    assert_eq!(got["score"], 0.0, "{got}");
    assert!(got["reason"].as_str().unwrap().contains(b), "{got}");
    let got = score(
        "evalite",
        &format!(
            r#"{{"id":2,"actualCalls":[{{"toolName":"t","input":{{"x":{a}}}}}],"expectedCalls":[{{"toolName":"t","input":{{"x":{b}}}}}]}}"#
        ),
    );
    assert_eq!(got["metadata"]["exactMatches"], 0, "{got}");
}
