//! The bundled specs: each compiles without any diagnostic, its config is snapshotted, `fmt` is
//! idempotent on it and keeps its compiled config, and together they lower to every check kind
//! and profile (`lang_constructs.rs` checks that they use every syntax construct).

use crate::lang_common;

use std::path::Path;

use lang_common::{bundled_spec_files as spec_files, render};
use serde_json::Value;
use toolspec::compile::compile;
use toolspec::source::SourceFile;
use toolspec::syntax::format;

fn load(name: &str) -> SourceFile {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(name)).unwrap();
    SourceFile::new(name, text)
}

/// The config without spans (which move when `fmt` re-lays the text).
fn without_spans(mut v: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.remove("span");
                m.remove("name_span");
                m.remove("turn_span");
                m.remove("agent_span");
                m.remove("source");
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

fn compiled(src: &SourceFile) -> Value {
    // Includes resolve relative to the file name, which is relative to the crate root.
    let r = compile(src, &RootLoader);
    let rendered: Vec<String> = r.diagnostics.iter().map(render).collect();
    assert!(
        rendered.is_empty(),
        "{}:\n{}",
        src.name,
        rendered.join("\n")
    );
    serde_json::to_value(r.file.expect("no diagnostics, so a config")).unwrap()
}

/// Like `FsLoader`, with paths taken relative to the crate root wherever the test runs from.
struct RootLoader;

impl toolspec::compile::SourceLoader for RootLoader {
    fn load(&self, from: &SourceFile, path: &str) -> std::io::Result<SourceFile> {
        let name = toolspec::compile::resolve_include(&from.name, path);
        let full = Path::new(env!("CARGO_MANIFEST_DIR")).join(&name);
        let text = std::fs::read_to_string(full)?;
        Ok(SourceFile::new(name, text))
    }
}

#[test]
fn there_are_at_least_30_specs() {
    let n = spec_files()
        .iter()
        .filter(|f| load(f).text.contains("spec "))
        .count();
    assert!(n >= 30, "only {n} spec files");
}

#[test]
fn every_spec_compiles_cleanly_and_its_config_is_snapshotted() {
    for name in spec_files() {
        let config = compiled(&load(&name));
        let snap = name.trim_start_matches("specs/").replace('/', "__");
        insta::assert_json_snapshot!(snap, config);
    }
}

#[test]
fn fmt_is_idempotent_and_keeps_the_config() {
    for name in spec_files() {
        let src = load(&name);
        let once = format(&src).unwrap();
        let formatted = SourceFile::new(name.clone(), once.clone());
        let twice = format(&formatted).unwrap();
        assert_eq!(once, twice, "fmt is not idempotent on {name}");
        assert_eq!(
            without_spans(compiled(&src)),
            without_spans(compiled(&formatted)),
            "fmt changed the config of {name}"
        );
        // Comments survive.
        let count = |t: &str| {
            t.lines()
                .filter(|l| l.trim_start().starts_with('#'))
                .count()
        };
        assert_eq!(
            count(&src.text),
            count(&once),
            "fmt lost a comment in {name}"
        );
    }
}

/// The syntax constructs are checked on the syntax trees by `tests/it/lang_constructs.rs`; this
/// checks the other side: every check kind and every profile appears in a compiled config.
#[test]
fn the_specs_lower_to_every_check_kind_and_profile() {
    let mut json = String::new();
    for name in spec_files() {
        json.push_str(&compiled(&load(&name)).to_string());
    }
    for kind in [
        "any",
        "present",
        "absent",
        "equals",
        "subset",
        "fuzzy",
        "fuzzy_tokens",
        "regex",
        "range",
        "type",
        "one_of",
        "contains",
        "ref",
        "not",
    ] {
        assert!(
            json.contains(&format!("\"kind\":\"{kind}\"")),
            "no spec lowers to a `{kind}` check"
        );
    }
    for profile in [
        "axion",
        "deepeval",
        "evalite",
        "agentevals",
        "galtea",
        "promptfoo",
    ] {
        assert!(
            json.contains(&format!("\"name\":\"{profile}\"")),
            "no spec uses profile {profile}"
        );
    }
}

#[test]
fn the_bundled_specs_are_formatted() {
    for name in spec_files() {
        let src = load(&name);
        assert_eq!(format(&src).unwrap(), src.text, "run `toolspec fmt {name}`");
    }
}

#[test]
fn toolspec_compile_succeeds_on_every_spec() {
    let files = spec_files();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .arg("compile")
        .args(&files)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let printed = printed.as_array().expect("one config per file");
    assert_eq!(printed.len(), files.len());
    for (name, config) in files.iter().zip(printed) {
        assert_eq!(config, &compiled(&load(name)), "{name}");
    }
}
