//! The `.toolspec` language for [tree-sitter](https://tree-sitter.github.io/): the parser that
//! `tree-sitter generate` builds from `grammar.js` (committed as `src/parser.c`), its node types
//! and its highlight query.
//!
//! ```
//! let mut parser = tree_sitter::Parser::new();
//! parser.set_language(&tree_sitter_toolspec::LANGUAGE.into()).unwrap();
//! let tree = parser.parse("spec s { call search(query: present) }", None).unwrap();
//! assert!(!tree.root_node().has_error());
//! ```

use tree_sitter_language::LanguageFn;

// The generated parser's entry point (src/parser.c), and the one `unsafe` of the crate: a C
// function that takes nothing and returns the static `TSLanguage` the generator wrote.
#[allow(unsafe_code)]
extern "C" {
    fn tree_sitter_toolspec() -> *const ();
}

/// The tree-sitter language of `.toolspec` files.
#[allow(unsafe_code)]
pub const LANGUAGE: LanguageFn = unsafe { LanguageFn::from_raw(tree_sitter_toolspec) };

/// The node types of the grammar (`src/node-types.json`).
pub const NODE_TYPES: &str = include_str!("../../src/node-types.json");

/// The highlight query (`queries/highlights.scm`).
pub const HIGHLIGHTS_QUERY: &str = include_str!("../../queries/highlights.scm");

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::{Path, PathBuf};
    use std::process::Command;

    use toolspec::code::Code;
    use toolspec::source::SourceFile;
    use tree_sitter::{Node, Parser, Query, QueryCursor, StreamingIterator};

    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    fn parser() -> Parser {
        let mut parser = Parser::new();
        parser
            .set_language(&super::LANGUAGE.into())
            .expect("the generated parser's ABI is the library's");
        parser
    }

    /// Every `.toolspec` file the repository tracks, and every `toolspec` block of docs/*.md.
    fn corpus() -> Vec<(String, String)> {
        let out = Command::new("git")
            .args(["ls-files", "-z", "*.toolspec"])
            .current_dir(root())
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git ls-files");
        let mut files: Vec<(String, String)> = String::from_utf8(out.stdout)
            .unwrap()
            .split('\0')
            .filter(|f| !f.is_empty())
            .map(|f| {
                (
                    f.to_owned(),
                    std::fs::read_to_string(root().join(f)).unwrap(),
                )
            })
            .collect();
        let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        docs.sort();
        for doc in docs {
            let text = std::fs::read_to_string(&doc).unwrap();
            let name = doc.file_name().unwrap().to_string_lossy().into_owned();
            let mut block: Option<(usize, String)> = None;
            for (i, line) in text.lines().enumerate() {
                match &mut block {
                    None if line == "```toolspec" => block = Some((i + 2, String::new())),
                    Some((start, body)) if line == "```" => {
                        files.push((format!("docs/{name}:{start}"), std::mem::take(body)));
                        block = None;
                    }
                    Some((_, body)) => {
                        body.push_str(line);
                        body.push('\n');
                    }
                    None => {}
                }
            }
        }
        files
    }

    /// The first ERROR or MISSING node, as `line:column kind`.
    fn first_error(node: Node) -> Option<String> {
        if node.is_error() || node.is_missing() {
            let p = node.start_position();
            let kind = if node.is_missing() {
                "MISSING"
            } else {
                "ERROR"
            };
            return Some(format!(
                "{}:{} {kind} {}",
                p.row + 1,
                p.column + 1,
                node.kind()
            ));
        }
        if !node.has_error() {
            return None;
        }
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        children.into_iter().find_map(first_error)
    }

    /// tree-sitter finds an error (an ERROR or MISSING node) in exactly the texts where toolspec's
    /// own parser (grammar/toolspec.pest) finds a syntax error: every spec of the repository
    /// parses, and the one with a syntax error on purpose does not. What toolspec's parser rejects
    /// beyond the grammar (`misplaced-statement`: a statement outside a spec, as the docs' shorter
    /// examples are) tree-sitter reads as that statement, so that an editor still highlights it.
    #[test]
    fn parses_what_toolspec_parses() {
        let mut parser = parser();
        let mut disagreements = Vec::new();
        let (mut files, mut clean, mut misplaced, mut rejected) = (0, 0, 0, 0);
        for (name, text) in &corpus() {
            let tree = parser.parse(text, None).unwrap();
            let ts_error = first_error(tree.root_node());
            let pest = toolspec::syntax::parse(&SourceFile::new(name.clone(), text.clone()));
            if name.ends_with(".toolspec") {
                files += 1;
            }
            let syntax_error = pest.as_ref().err().filter(|d| d.code == Code::Syntax);
            match (syntax_error, &ts_error) {
                (None, None) if pest.is_ok() => clean += 1,
                (None, None) => misplaced += 1,
                (Some(_), Some(_)) => rejected += 1,
                (None, Some(e)) => {
                    disagreements.push(format!("{name}: tree-sitter {e}, toolspec parses it"));
                }
                (Some(d), None) => disagreements.push(format!(
                    "{name}: tree-sitter parses it, toolspec: {}",
                    d.message
                )),
            }
        }
        eprintln!(
            "{files} .toolspec files; {clean} texts parse, {misplaced} with a misplaced statement, \
             {rejected} rejected by both parsers"
        );
        assert!(files >= 80, "{files} .toolspec files");
        assert!(clean >= 100, "{clean} texts parse");
        assert!(
            rejected >= 1,
            "the syntax error of tests/cmd/fmt_syntax.in is found"
        );
        assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
    }

    /// The cases of test/corpus/*.txt (what `tree-sitter test` runs) give their recorded trees;
    /// the trees are written without field names, as `tree-sitter test -u` writes them.
    #[test]
    fn corpus_trees() {
        let is_rule = |line: &str| line.len() >= 3 && line.bytes().all(|b| b == b'=');
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("test/corpus");
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        let mut parser = parser();
        let mut cases = 0;
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            let headers: Vec<usize> = (0..lines.len().saturating_sub(2))
                .filter(|&i| is_rule(lines[i]) && is_rule(lines[i + 2]))
                .collect();
            for (k, &h) in headers.iter().enumerate() {
                let name = lines[h + 1];
                let end = headers.get(k + 1).copied().unwrap_or(lines.len());
                let body = lines[h + 3..end].join("\n");
                let (input, expected) = body
                    .split_once("\n---\n")
                    .unwrap_or_else(|| panic!("{name}: no `---` line"));
                let tree = parser.parse(input, None).unwrap();
                let actual = tree.root_node().to_sexp();
                let actual: Vec<&str> = actual
                    .split_whitespace()
                    .filter(|t| !t.ends_with(':'))
                    .collect();
                let expected: Vec<&str> = expected.split_whitespace().collect();
                assert_eq!(
                    actual.join(" "),
                    expected.join(" "),
                    "{}: {name}",
                    file.display()
                );
                cases += 1;
            }
        }
        assert!(cases >= 5, "{cases} cases");
    }

    /// The highlight query compiles against the grammar, and gives the tokens of a spec the
    /// captures an editor colours them by.
    #[test]
    fn highlights() {
        let language = super::LANGUAGE.into();
        let query =
            Query::new(&language, super::HIGHLIGHTS_QUERY).expect("highlights.scm compiles");
        let text = std::fs::read_to_string(root().join("specs/02_refund_flow.toolspec")).unwrap();
        let tree = parser().parse(&text, None).unwrap();
        let mut seen = BTreeSet::new();
        let mut cursor = QueryCursor::new();
        let mut captures = cursor.captures(&query, tree.root_node(), text.as_bytes());
        while let Some((m, i)) = captures.next() {
            let c = m.captures()[*i];
            let name = query.capture_names()[c.index as usize];
            seen.insert((
                c.node.utf8_text(text.as_bytes()).unwrap().to_owned(),
                name.to_owned(),
            ));
        }
        for (token, capture) in [
            ("include", "keyword.import"),
            ("refund_flow", "type.definition"),
            ("transcripts", "keyword"),
            ("in_order", "constant"),
            ("lookup", "label"),
            ("call", "keyword"),
            ("lookup_order", "function.call"),
            ("order_id", "variable.parameter"),
            ("\"ORD-58213\"", "string"),
            ("->", "operator"),
            ("sku", "property"),
            ("present", "constant.builtin"),
            ("output", "variable.builtin"),
            ("contains", "keyword.operator"),
            ("string", "type.builtin"),
            ("..=", "operator"),
            ("12999", "number"),
            ("@example\\.com$", "string.regexp"),
            ("false", "boolean"),
            ("escalate_to_human", "function.call"),
            ("before", "keyword"),
            (
                "# Full refund flow of the support agent, with the shared tool declarations.",
                "comment",
            ),
        ] {
            assert!(
                seen.contains(&(token.to_owned(), capture.to_owned())),
                "{token:?} captured as @{capture}; captures: {seen:?}"
            );
        }
    }
}
