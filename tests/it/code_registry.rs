//! The registry of diagnostic codes (`toolspec::code`) against its snapshot and the docs.

use std::path::Path;

use insta::assert_snapshot;
use toolspec::code::Code;
use toolspec::transcript::Format;

fn docs(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

/// The table of every code as `docs/cli.md` shows it, one row per code in [`Code::ALL`] order.
fn table() -> String {
    let mut out = String::from("| code | stage | severity | meaning |\n|---|---|---|---|\n");
    for c in Code::ALL {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            c.id(),
            c.stage().name(),
            c.severity().name(),
            c.description().replace('|', "\\|"),
        ));
    }
    out
}

/// Any change to the list (a code added, renamed, moved to another stage or severity, or
/// described differently) shows in review as a change of this snapshot.
#[test]
fn the_code_list_is_stable() {
    let list: Vec<String> = Code::ALL
        .iter()
        .map(|c| {
            format!(
                "{:<34} {:<7} {:<8} {}",
                c.id(),
                c.stage().name(),
                c.severity().name(),
                c.description()
            )
        })
        .collect();
    assert_snapshot!("code_list", list.join("\n"));
}

/// `docs/cli.md` lists every code, exactly as the registry has it: its table is the registry
/// printed (the failure message gives the table to paste).
#[test]
fn docs_cli_lists_every_code_as_the_registry_has_it() {
    let text = docs("cli.md");
    let expected = table();
    assert!(
        text.contains(&expected),
        "docs/cli.md's table of diagnostic codes differs from src/code.rs; it should read:\n\n{expected}"
    );
}

/// Words the docs put in backticks that look like codes (kebab-case) but name something else:
/// transcript formats are recognised by name; these are the rest.
const NOT_CODES: &[&str] = &[
    // Vercel AI SDK chunk, part and state names.
    "approval-requested",
    "error-json",
    "output-denied",
    "output-error",
    "source-url",
    "start-step",
    "text-delta",
    "tool-approval-request",
    "tool-call",
    "tool-error",
    "tool-input-available",
    "tool-input-error",
    "tool-input-start",
    "tool-output-denied",
    "tool-result",
    // pydantic-ai part kinds.
    "builtin-tool-call",
    "builtin-tool-return",
    "retry-prompt",
    "tool-return",
    // Claude Code line types and flags.
    "file-history-snapshot",
    "stream-json",
    // Names of metrics, crates, vectors and tools in examples.
    "deepeval-pydanticai-parallel-tools",
    "regex-automata",
    "tool-call-f1",
    "get-order",
    // Job names of the release workflow.
    "github-release",
    "publish-npm",
    "publish-pypi",
    // The Python package's name on PyPI.
    "toolspec-cli",
];

/// Every word of the docs written like a code (`` `kebab-case` `` or `` `toolspec::name` ``,
/// a spec diagnostic also by its bare name) names a code of the registry, unless it is a
/// format name or listed in [`NOT_CODES`].
#[test]
fn every_code_the_docs_mention_is_in_the_registry() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
    let mut pages: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    assert!(pages.len() > 5, "found no docs in {}", dir.display());
    let mut unknown = Vec::new();
    for page in pages {
        let text = std::fs::read_to_string(&page).unwrap();
        // Every `word` directly between two backticks, as long as it could be a code.
        let parts: Vec<&str> = text.split('`').collect();
        for word in parts.iter().skip(1).take(parts.len().saturating_sub(2)) {
            let name = word.strip_prefix("toolspec::").unwrap_or(word);
            let kebab = name.contains('-')
                && name.starts_with(|c: char| c.is_ascii_lowercase())
                && !name.ends_with('-')
                && name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
            let spec_code = word.starts_with("toolspec::")
                && name.chars().all(|c| c.is_ascii_lowercase() || c == '-');
            if !(kebab || spec_code) {
                continue;
            }
            // A spec diagnostic may be named without its `toolspec::`.
            let known = Code::from_id(word).is_some()
                || Code::from_id(&format!("toolspec::{word}")).is_some()
                || (!spec_code && (word.parse::<Format>().is_ok() || NOT_CODES.contains(word)));
            if !known {
                unknown.push(format!("{}: `{word}`", page.display()));
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "codes the docs name that src/code.rs does not have (or add a non-code word to NOT_CODES):\n{}",
        unknown.join("\n")
    );
}
