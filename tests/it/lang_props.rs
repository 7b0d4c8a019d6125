//! Property tests: random bytes, token soup and mutations of the bundled specs never make the
//! parser, compiler or formatter panic; every rejection is a diagnostic whose spans lie inside
//! the text, says what was expected in words (never "something else", never a grammar rule name)
//! and has help; `fmt` refuses exactly what does not parse, stays idempotent on whatever parses
//! and never changes what a file compiles to (the same config, or the same errors).

use crate::lang_common;

use proptest::prelude::*;
use toolspec::compile::{compile, MapLoader, SpecDiagnostic};
use toolspec::source::SourceFile;
use toolspec::syntax::format;

/// Every file of `specs/` as (name relative to `specs/`, text), read once.
fn bundled() -> &'static [(String, String)] {
    static FILES: std::sync::OnceLock<Vec<(String, String)>> = std::sync::OnceLock::new();
    FILES.get_or_init(|| {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        lang_common::bundled_spec_files()
            .into_iter()
            .map(|rel| {
                let text = std::fs::read_to_string(root.join(&rel)).unwrap();
                // Names relative to `specs/`, as includes name them.
                (rel.strip_prefix("specs/").unwrap().to_owned(), text)
            })
            .collect()
    })
}

/// The files mutations start from: every bundled file (specs and shared declarations).
fn specs() -> Vec<&'static str> {
    bundled().iter().map(|(_, t)| t.as_str()).collect()
}

const LOOP: &str = "include \"loop.toolspec\"\n";

const TOKENS: &[&str] = &[
    "spec",
    "call",
    "never",
    "before",
    "include",
    "tool",
    "order",
    "args",
    "names",
    "score",
    "profile",
    "threshold",
    "extra",
    "binary",
    "optional",
    "at_least",
    "between",
    "and",
    "or",
    "not",
    "exact",
    "subset",
    "fuzzy",
    "type",
    "one_of",
    "contains",
    "present",
    "absent",
    "any",
    "errored",
    "weight",
    "transcripts",
    "x",
    "lookup",
    "a.output.b",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "->",
    "...",
    "..=",
    "..",
    ">=",
    "<",
    "/a(b/",
    "/x/i",
    "\"s\"",
    "\"\\u00e9\"",
    "\"\\q\"",
    "1",
    "-2.5",
    "1e999",
    "99999999999",
    "#c\n",
    "\n",
    " ",
    "\"a.toolspec\"",
];

/// Every bundled file under its name, as includes see it from `a.toolspec`, and a self-include.
fn files() -> Vec<(&'static str, &'static str)> {
    let mut f: Vec<(&str, &str)> = bundled()
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    f.push(("loop.toolspec", LOOP));
    f
}

fn loader() -> MapLoader {
    let mut l = MapLoader::new();
    for (name, text) in files() {
        l.insert(name, text);
    }
    l
}

fn check_spans(d: &SpecDiagnostic, texts: &[(&str, &str)]) {
    let text = texts.iter().find(|(n, _)| *n == d.source_name).map_or_else(
        || panic!("diagnostic points into unknown file {}", d.source_name),
        |(_, t)| *t,
    );
    assert!(!d.labels.is_empty(), "diagnostic without a span: {d:?}");
    for (span, _) in &d.labels {
        assert!(
            span.start <= span.end && span.end <= text.len(),
            "span {span:?} outside text"
        );
        assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
    }
    assert!(d.help.is_some(), "diagnostic without help: {d:?}");
    if d.code == toolspec::code::Code::Syntax {
        // Words, not pest rule names (the label says what was expected; the message also
        // quotes the text found, which may be anything).
        let said = &d.labels[0].1;
        assert!(
            !said.contains("something else"),
            "syntax error without an expectation: {said} at {:?} in:\n{text}",
            d.labels[0].0
        );
        for rule in RULE_WORDS {
            assert!(
                !said.contains(rule),
                "rule name `{rule}` leaks: {said} in:\n{text}"
            );
        }
    }
}

/// Pieces of grammar rule names that must never reach a message.
const RULE_WORDS: &[&str] = &[
    "k_",
    "_stmt",
    "json_",
    "c_",
    "rep_",
    "arg_list",
    "field_list",
    "tool_name",
    "bare_tool",
    "str_inner",
    "regex_body",
    "regex_flags",
    "range_op",
    "cmp_op",
    "ref_part",
    "path_seg",
    "profile_opt",
    "score_entry",
    "name_opt",
    "EOI",
    "SOI",
];

fn exercise(text: &str) {
    let src = SourceFile::new("a.toolspec", text);
    let l = loader();
    let r = compile(&src, &l);
    let mut texts = files();
    texts.insert(0, ("a.toolspec", text));
    if r.file.is_none() {
        assert!(
            r.diagnostics
                .iter()
                .any(toolspec::compile::SpecDiagnostic::is_error),
            "rejected without an error"
        );
    }
    for d in &r.diagnostics {
        check_spans(d, &texts);
        let _ = lang_common::render(d);
    }
    match format(&src) {
        Ok(once) => {
            let formatted = SourceFile::new("a.toolspec", once.clone());
            let twice = format(&formatted).expect("formatted text parses");
            assert_eq!(once, twice, "fmt not idempotent on:\n{text}");
            // `fmt` never changes what a file means: the same config (spans aside), or, for a
            // file with errors, the same errors.
            let after = compile(&formatted, &l);
            match (&r.file, &after.file) {
                (Some(a), Some(b)) => assert_eq!(
                    without_spans(serde_json::to_value(a).unwrap()),
                    without_spans(serde_json::to_value(b).unwrap()),
                    "fmt changed the config of:\n{text}\n--- formatted:\n{once}"
                ),
                (None, None) => assert_eq!(
                    codes(&r.diagnostics),
                    codes(&after.diagnostics),
                    "fmt changed the diagnostics of:\n{text}\n--- formatted:\n{once}"
                ),
                _ => panic!("fmt changed whether this compiles:\n{text}\n--- formatted:\n{once}"),
            }
        }
        Err(d) => {
            // `fmt` refuses exactly the files that do not parse, with the parser's diagnostic.
            assert_eq!(
                r.diagnostics.len(),
                1,
                "fmt refused a file that parses:\n{text}"
            );
            assert_eq!(r.diagnostics[0].message, d.message);
            check_spans(&d, &texts);
        }
    }
}

/// The codes of the errors, sorted (warnings depend on nothing `fmt` touches either, but are
/// kept out so the comparison says what matters).
fn codes(diags: &[SpecDiagnostic]) -> Vec<&'static str> {
    let mut c: Vec<&'static str> = diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.code.name())
        .collect();
    c.sort_unstable();
    c
}

/// A config without spans (which move when `fmt` re-lays the text).
fn without_spans(mut v: serde_json::Value) -> serde_json::Value {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                m.remove("span");
                m.remove("name_span");
                m.remove("turn_span");
                m.remove("agent_span");
                m.values_mut().for_each(strip);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

#[derive(Debug, Clone)]
enum Mutation {
    Delete(usize, usize),
    Insert(usize, usize),
    Duplicate(usize, usize),
    Swap(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1..12usize).prop_map(|(a, n)| Mutation::Delete(a, n)),
        (any::<usize>(), 0..TOKENS.len()).prop_map(|(a, t)| Mutation::Insert(a, t)),
        (any::<usize>(), 1..40usize).prop_map(|(a, n)| Mutation::Duplicate(a, n)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Swap(a, b)),
    ]
}

fn apply(text: &str, muts: &[Mutation]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for m in muts {
        let len = chars.len().max(1);
        match *m {
            Mutation::Delete(a, n) => {
                let a = a % len;
                let b = (a + n).min(chars.len());
                if a < b {
                    chars.drain(a..b);
                }
            }
            Mutation::Insert(a, t) => {
                let a = a % (chars.len() + 1);
                for (i, c) in TOKENS[t].chars().enumerate() {
                    chars.insert(a + i, c);
                }
            }
            Mutation::Duplicate(a, n) => {
                let a = a % len;
                let b = (a + n).min(chars.len());
                let piece: Vec<char> = chars.get(a..b).map(<[char]>::to_vec).unwrap_or_default();
                for (i, c) in piece.into_iter().enumerate() {
                    chars.insert(b + i, c);
                }
            }
            Mutation::Swap(a, b) => {
                if !chars.is_empty() {
                    let (a, b) = (a % chars.len(), b % chars.len());
                    chars.swap(a, b);
                }
            }
        }
    }
    chars.into_iter().collect()
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400)
}

proptest! {
    // PROPTEST_CASES raises the number of cases for a longer hunt; 400 keeps CI quick.
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        exercise(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn token_soup_never_panics(tokens in proptest::collection::vec(0..TOKENS.len(), 0..60)) {
        let text: Vec<&str> = tokens.iter().map(|&t| TOKENS[t]).collect();
        exercise(&text.join(" "));
    }

    #[test]
    fn mutated_specs_never_panic(
        which in 0..specs().len(),
        muts in proptest::collection::vec(mutation(), 1..6),
    ) {
        exercise(&apply(specs()[which], &muts));
    }

    #[test]
    fn wrapped_token_soup_never_panics(tokens in proptest::collection::vec(0..TOKENS.len(), 0..40)) {
        let body: Vec<&str> = tokens.iter().map(|&t| TOKENS[t]).collect();
        exercise(&format!("spec s {{\n  {}\n}}\n", body.join(" ")));
    }
}

#[test]
fn the_unmutated_specs_pass_the_same_checks() {
    for s in specs() {
        exercise(s);
    }
}

#[test]
fn deep_nesting_is_a_diagnostic_not_a_stack_overflow() {
    for (n, ok) in [(60usize, true), (100_000, false)] {
        for text in [
            format!(
                "spec a {{\n call x(a: {}1{})\n}}\n",
                "[".repeat(n),
                "]".repeat(n)
            ),
            format!("spec a {{\n call x(a: {}1)\n}}\n", "not ".repeat(n)),
            format!(
                "spec a {{\n call x(a: {}1{})\n}}\n",
                "{\"k\": ".repeat(n),
                "}".repeat(n)
            ),
        ] {
            let r = compile(&SourceFile::new("a.toolspec", text.as_str()), &loader());
            assert_eq!(r.file.is_some(), ok, "{n} levels");
            exercise(&text);
        }
    }
}
