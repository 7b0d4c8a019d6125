//! Every `toolspec` example in docs/language.md parses (fragments inside a spec), and the
//! complete ones compile.

use toolspec::compile::{compile, MapLoader};
use toolspec::source::SourceFile;
use toolspec::syntax::parse;

#[test]
fn the_language_docs_examples_parse() {
    let doc = include_str!("../docs/language.md");
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
        if whole {
            let loader = MapLoader::new().with(
                "shared/support_tools.toolspec",
                include_str!("../specs/shared/support_tools.toolspec"),
            );
            let r = compile(&src, &loader);
            let errors: Vec<String> = r
                .diagnostics
                .iter()
                .filter(|d| d.is_error())
                .map(|d| d.to_string())
                .collect();
            assert!(errors.is_empty(), "{errors:?}\n{text}");
        }
    }
    assert!(blocks >= 7, "found only {blocks} examples");
}
