//! Property tests: random bytes, token soup and mutations of the bundled specs never make the
//! parser, compiler or formatter panic; every rejection is a diagnostic whose spans lie inside
//! the text; `fmt` stays idempotent on whatever parses.

mod lang_common;

use proptest::prelude::*;
use toolspec::compile::{compile, MapLoader, SpecDiagnostic};
use toolspec::source::SourceFile;
use toolspec::syntax::format;

const SPECS: &[&str] = &[
    include_str!("../specs/02_refund_flow.toolspec"),
    include_str!("../specs/06_claude_code.toolspec"),
    include_str!("../specs/11_travel_booking.toolspec"),
    include_str!("../specs/13_sql_agent.toolspec"),
    include_str!("../specs/20_translation.toolspec"),
    include_str!("../specs/27_gemini_functions.toolspec"),
    include_str!("../specs/29_parity_deepeval.toolspec"),
    include_str!("../specs/33_output_contracts.toolspec"),
];

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

fn loader() -> MapLoader {
    MapLoader::new()
        .with(
            "shared/support_tools.toolspec",
            include_str!("../specs/shared/support_tools.toolspec"),
        )
        .with("loop.toolspec", "include \"loop.toolspec\"\n")
}

fn check_spans(d: &SpecDiagnostic, texts: &[(&str, &str)]) {
    let text = texts
        .iter()
        .find(|(n, _)| *n == d.source_name)
        .map(|(_, t)| *t)
        .unwrap_or_else(|| panic!("diagnostic points into unknown file {}", d.source_name));
    assert!(!d.labels.is_empty(), "diagnostic without a span: {d:?}");
    for (span, _) in &d.labels {
        assert!(
            span.start <= span.end && span.end <= text.len(),
            "span {span:?} outside text"
        );
        assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
    }
    assert!(d.help.is_some(), "diagnostic without help: {d:?}");
}

fn exercise(text: &str) {
    let src = SourceFile::new("a.toolspec", text);
    let l = loader();
    let r = compile(&src, &l);
    let support = include_str!("../specs/shared/support_tools.toolspec");
    let texts = [
        ("a.toolspec", text),
        ("shared/support_tools.toolspec", support),
        ("loop.toolspec", "include \"loop.toolspec\"\n"),
    ];
    if r.file.is_none() {
        assert!(
            r.diagnostics.iter().any(|d| d.is_error()),
            "rejected without an error"
        );
    }
    for d in &r.diagnostics {
        check_spans(d, &texts);
        let _ = lang_common::render(d);
    }
    if let Ok(once) = format(&src) {
        let twice =
            format(&SourceFile::new("a.toolspec", once.clone())).expect("formatted text parses");
        assert_eq!(once, twice, "fmt not idempotent on:\n{text}");
    }
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
        which in 0..SPECS.len(),
        muts in proptest::collection::vec(mutation(), 1..6),
    ) {
        exercise(&apply(SPECS[which], &muts));
    }

    #[test]
    fn wrapped_token_soup_never_panics(tokens in proptest::collection::vec(0..TOKENS.len(), 0..40)) {
        let body: Vec<&str> = tokens.iter().map(|&t| TOKENS[t]).collect();
        exercise(&format!("spec s {{\n  {}\n}}\n", body.join(" ")));
    }
}

#[test]
fn the_unmutated_specs_pass_the_same_checks() {
    for s in SPECS {
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
