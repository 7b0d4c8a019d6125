//! Every `toolspec` example in the docs and the README parses (fragments inside a spec), and the
//! complete ones compile; every example of the language reference compiles, fragments too, and
//! its specs run on a transcript without a call.

use toolspec::compile::{compile, MapLoader};
use toolspec::source::SourceFile;
use toolspec::syntax::parse;

#[test]
fn the_language_docs_examples_compile_and_check() {
    let blocks = check_examples(include_str!("../../docs/language.md"), true);
    assert!(blocks >= 7, "found only {blocks} examples");
}

#[test]
fn the_other_docs_examples_compile() {
    for (name, doc) in [
        ("README.md", include_str!("../../README.md")),
        ("docs/parity.md", include_str!("../../docs/parity.md")),
        ("docs/scoring.md", include_str!("../../docs/scoring.md")),
        ("docs/cli.md", include_str!("../../docs/cli.md")),
    ] {
        let blocks = check_examples(doc, false);
        assert!(
            name != "docs/parity.md" || blocks >= 4,
            "{name}: {blocks} examples"
        );
    }
}

/// Parse every ```toolspec block of `doc` (compile the complete ones, or with `all` every one, a
/// fragment inside a spec, and run the engine on what it compiles to); return how many there were.
fn check_examples(doc: &str, all: bool) -> usize {
    let mut blocks = 0;
    let mut rest = doc;
    while let Some(start) = rest.find("```toolspec\n") {
        let body_start = start + "```toolspec\n".len();
        let len = rest[body_start..].find("```").expect("closed block");
        let block = &rest[body_start..body_start + len];
        rest = &rest[body_start + len + 3..];
        blocks += 1;
        let whole = block
            .lines()
            .any(|l| l.starts_with("spec ") || l.starts_with("tool ") || l.starts_with("include "));
        let text = if whole {
            block.to_owned()
        } else {
            format!("spec example {{\n{block}}}\n")
        };
        let src = SourceFile::new("example.toolspec", text.as_str());
        if let Err(d) = parse(&src) {
            panic!("docs example does not parse: {d}\n{text}");
        }
        if whole || all {
            let loader = MapLoader::new().with(
                "shared/support_tools.toolspec",
                include_str!("../../specs/shared/support_tools.toolspec"),
            );
            let r = compile(&src, &loader);
            let errors: Vec<String> = r
                .diagnostics
                .iter()
                .filter(|d| d.is_error())
                .map(std::string::ToString::to_string)
                .collect();
            assert!(errors.is_empty(), "{errors:?}\n{text}");
            if all {
                let no_calls: Vec<toolspec::transcript::model::ToolCall> = Vec::new();
                for spec in &r.file.expect("no errors, so a config").specs {
                    toolspec::engine::run(spec, &no_calls);
                }
            }
        }
    }
    blocks
}
