//! Every diagnostic the language reports, rendered as users see it (colours off, unicode).

use crate::lang_common;

use std::collections::BTreeSet;

use insta::assert_snapshot;
use lang_common::{compile_with, render, render_all};
use toolspec::code::{Code, Stage};
use toolspec::compile::glob_matches_nothing;
use toolspec::source::SourceFile;

/// Files an `include` may read: (resolved name, text).
type Files = &'static [(&'static str, &'static str)];

/// (snapshot name, spec text, included files). Each case produces the diagnostic its name says.
const CASES: &[(&str, &str, Files)] = &[
    ("syntax_missing_value", "spec a {\n  call lookup(order_id: )\n}\n", &[]),
    ("syntax_unclosed_list", "spec a {\n  call lookup(order_id: \"A\"\n}\n", &[]),
    ("syntax_missing_colon", "spec a {\n  call lookup(order_id \"A\")\n}\n", &[]),
    ("syntax_bad_escape", "spec a {\n  call lookup(order_id: \"A\\q\")\n}\n", &[]),
    ("syntax_unclosed_spec", "spec a {\n  call lookup\n", &[]),
    (
        "syntax_unclosed_string",
        "spec a {\n  transcripts \"runs/*.json\n  call lookup\n}\n",
        &[],
    ),
    (
        "syntax_unclosed_regex",
        "spec a {\n  call lookup(order_id: /^ORD-)\n}\n",
        &[],
    ),
    ("syntax_stray_brace", "spec a {\n  call lookup\n}\n}\n", &[]),
    ("syntax_missing_spec_brace", "spec a\n  call lookup\n}\n", &[]),
    (
        "syntax_after_and",
        "spec a {\n  call lookup(order_id: type string and )\n}\n",
        &[],
    ),
    (
        "syntax_json_value",
        "spec a {\n  call lookup(filter: {\"status\": })\n}\n",
        &[],
    ),
    ("unknown_keyword_statement", "spec a {\n  odrer in_order\n  call lookup\n}\n", &[]),
    (
        "unknown_keyword_missing_call",
        "spec a {\n  lookup_order(order_id: \"ORD-1\")\n}\n",
        &[],
    ),
    ("unknown_keyword_top_level", "sepc a {\n}\n", &[]),
    ("unknown_keyword_order_mode", "spec a {\n  order inorder\n  call lookup\n}\n", &[]),
    ("unknown_keyword_score_key", "spec a {\n  score { exact 1, nmae_only 0.5 }\n}\n", &[]),
    ("unknown_keyword_score_mode", "spec a {\n  score per_arg\n  call lookup\n}\n", &[]),
    (
        "unknown_keyword_score_mode_in_block",
        "spec a {\n  score { name_only 0.25, per_argument 1 }\n  call lookup\n}\n",
        &[],
    ),
    (
        "duplicate_setting_score_mode",
        "spec a {\n  score per_argument\n  score per_argument\n  call lookup\n}\n",
        &[],
    ),
    (
        "ineffective_setting_per_argument",
        "spec a {\n  score per_argument\n  binary\n  call lookup(id: 1)\n}\n",
        &[],
    ),
    (
        "unknown_keyword_args_tokens_mode",
        "spec a {\n  args exact tokens\n  call search(query: \"rust\")\n}\n",
        &[],
    ),
    (
        "threshold_range_fuzzy_tokens",
        "spec a {\n  call search(query: fuzzy tokens \"rust async\" >= 1.5)\n}\n",
        &[],
    ),
    (
        "syntax_fuzzy_tokens_without_text",
        "spec a {\n  call search(query: fuzzy tokens >= 0.5)\n}\n",
        &[],
    ),
    ("unknown_keyword_format", "spec a {\n  format claude_cod\n}\n", &[]),
    ("unknown_keyword_type", "spec a {\n  call lookup(order_id: type strng)\n}\n", &[]),
    ("duplicate_spec", "spec a {\n  call lookup\n}\n\nspec a {\n  call refund\n}\n", &[]),
    (
        "duplicate_argument",
        "spec a {\n  call refund(amount: 1..=100, reason: \"late\", amount: type integer)\n}\n",
        &[],
    ),
    (
        "duplicate_label",
        "spec a {\n  x: call lookup\n  x: call refund\n}\n",
        &[],
    ),
    ("duplicate_setting", "spec a {\n  order strict\n  order any\n}\n", &[]),
    (
        "duplicate_tool",
        "include \"tools.toolspec\"\ntool lookup(order_id: type string)\nspec a {\n  call lookup\n}\n",
        &[("tools.toolspec", "tool lookup(order_id: present)\n")],
    ),
    ("threshold_range", "spec a {\n  threshold 1.5\n  call lookup\n}\n", &[]),
    ("pass_rate_range", "spec a {\n  pass_rate >= 1.5\n  call lookup\n}\n", &[]),
    (
        "pass_rate_percentage_number",
        "spec a {\n  pass_rate >= 90\n  call lookup\n}\n",
        &[],
    ),
    ("pass_rate_percent_sign", "spec a {\n  pass_rate >= 90%\n  call lookup\n}\n", &[]),
    ("pass_rate_not_a_floor", "spec a {\n  pass_rate > 0.9\n  call lookup\n}\n", &[]),
    ("pass_rate_typo", "spec a {\n  pass_rat >= 0.9\n  call lookup\n}\n", &[]),
    (
        "pass_rate_twice",
        "spec a {\n  pass_rate >= 0.9\n  pass_rate >= 0.8\n  call lookup\n}\n",
        &[],
    ),
    ("pass_rate_missing_value", "spec a {\n  pass_rate >=\n  call lookup\n}\n", &[]),
    (
        "threshold_range_fuzzy",
        "spec a {\n  call search(query: fuzzy \"python\" >= 80)\n}\n",
        &[],
    ),
    (
        "threshold_range_profile",
        "spec a {\n  profile deepeval { threshold: 1.5 }\n}\n",
        &[],
    ),
    ("invalid_weight", "spec a {\n  score { extra -0.5 }\n}\n", &[]),
    ("invalid_number_between", "spec a {\n  between 3 and 1 call search\n}\n", &[]),
    ("invalid_number_range", "spec a {\n  call refund(amount: 100..10)\n}\n", &[]),
    (
        "invalid_regex_unclosed_group",
        "spec a {\n  call email(to: /^(user@example\\.com$/)\n}\n",
        &[],
    ),
    (
        "invalid_regex_repetition",
        "spec a {\n  call email(to: /ab{3,1}c/)\n}\n",
        &[],
    ),
    (
        "expected_and_forbidden",
        "spec a {\n  names ignore_case\n  call delete_account\n  never Delete_Account\n}\n",
        &[],
    ),
    ("unknown_profile", "spec a {\n  profile deepevl\n}\n", &[]),
    (
        "unknown_profile_option",
        "spec a {\n  profile deepeval { should_consider_order: true, threshold: 0.5 }\n}\n",
        &[],
    ),
    (
        "invalid_profile_option",
        "spec a {\n  profile axion { strict_order: \"yes\" }\n}\n",
        &[],
    ),
    (
        "judge_in_a_spec",
        "spec a {\n  profile deepeval { judge: \"touch PWNED; echo 1\" }\n}\n",
        &[],
    ),
    (
        "unknown_reference",
        "spec a {\n  call refund(order_id: lookup.output.id)\n}\n",
        &[],
    ),
    (
        "unknown_reference_later",
        "spec a {\n  call refund(order_id: lookup.output.id)\n  lookup: call lookup_order\n}\n",
        &[],
    ),
    (
        "unknown_reference_typo",
        "spec a {\n  lookup: call lookup_order\n  call refund(order_id: lokup.output.id)\n}\n",
        &[],
    ),
    (
        "unknown_reference_compared_typo",
        "spec a {\n  elig: call check_eligibility\n  call refund(amount: <= elgi.output.max)\n}\n",
        &[],
    ),
    (
        "invalid_comparison_each_in_bare_reference",
        "spec a {\n  search: call search_flights\n  call hold_seat(flight_id: search.output.flights[*].id)\n}\n",
        &[],
    ),
    (
        "invalid_comparison_each_in_order_comparison",
        "spec a {\n  search: call search_flights\n  call hold_seat(price: <= search.output.flights[*].price)\n}\n",
        &[],
    ),
    (
        "invalid_comparison_non_number",
        "spec a {\n  call refund(amount: <= \"12000\")\n}\n",
        &[],
    ),
    (
        "invalid_comparison_literal_after_in",
        "spec a {\n  call hold_seat(flight_id: in [\"UA-837\", \"NH-7\"])\n}\n",
        &[],
    ),
    (
        "unknown_expectation",
        "spec a {\n  call lookup\n  call refund\n  lookup before refnud\n}\n",
        &[],
    ),
    (
        "unknown_argument_warning",
        "include \"tools.toolspec\"\nspec a {\n  call refund(amount_cent: 5)\n}\n",
        &[("tools.toolspec", "tool refund(amount_cents: type integer, reason: type string)\n")],
    ),
    (
        "include_cycle_self",
        "include \"a.toolspec\"\nspec a {\n  call lookup\n}\n",
        &[("a.toolspec", "include \"a.toolspec\"\n")],
    ),
    (
        "include_cycle_indirect",
        "include \"b.toolspec\"\nspec a {\n  call lookup\n}\n",
        &[
            ("b.toolspec", "include \"c.toolspec\"\n"),
            ("c.toolspec", "include \"a.toolspec\"\n"),
        ],
    ),
    (
        "include_not_found",
        "include \"shared/tools.toolspec\"\nspec a {\n  call lookup\n}\n",
        &[],
    ),
    (
        "included_file_error_points_into_it",
        "include \"tools.toolspec\"\nspec a {\n  call refund\n}\n",
        &[("tools.toolspec", "tool refund(amount: /[0-9/)\n")],
    ),
    (
        "spec_in_include",
        "include \"other.toolspec\"\nspec a {\n  call lookup\n}\n",
        &[("other.toolspec", "spec b {\n  call refund\n}\n")],
    ),
    (
        "reference_in_never",
        "spec a {\n  lookup: call lookup_order\n  never refund(order_id: lookup.output.id)\n}\n",
        &[],
    ),
    (
        "contradictory_order",
        "spec a {\n  order in_order\n  check: call check_eligibility\n  refund: call issue_refund\n  refund before check\n}\n",
        &[],
    ),
    (
        "nested_scope",
        "spec a {\n  turn 1 {\n    turn 2 { call send_email }\n  }\n  agent \"r\" { agent \"s\" { call web_search } }\n}\n",
        &[],
    ),
    (
        "scope_errors",
        "spec a {\n  turn 0 { call lookup }\n  agent \"\" { call search }\n  turn last { odrer in_order }\n  answer contains \"x\"\n  answer /y/\n}\n",
        &[],
    ),
    (
        "invalid_group_one_branch",
        "spec a {\n  either {\n    call refund\n  }\n}\n",
        &[],
    ),
    (
        "invalid_group_setting_inside",
        "spec a {\n  either {\n    order strict\n    call refund\n  } or {\n    call escalate\n  }\n}\n",
        &[],
    ),
    (
        "invalid_group_nested_either",
        "spec a {\n  parallel {\n    either {\n      call a\n    } or {\n      call b\n    }\n  }\n}\n",
        &[],
    ),
    (
        "invalid_group_empty",
        "spec a {\n  call lookup\n  parallel {\n  }\n}\n",
        &[],
    ),
    (
        "unknown_keyword_in_block",
        "spec a {\n  either {\n    cal refund\n  } or {\n    call escalate\n  }\n}\n",
        &[],
    ),
    (
        "unknown_keyword_block",
        "spec a {\n  paralel {\n    call a\n  }\n  critcal call b\n}\n",
        &[],
    ),
    (
        "too_many_arrangements",
        "spec a {\n  parallel {\n    call a\n    call b\n    call c\n    call d\n    call e\n    call f\n    call g\n  }\n}\n",
        &[],
    ),
    (
        "reference_across_branches",
        "spec a {\n  either {\n    hold: call hold_seat\n  } or {\n    call book(hold_id: hold.output.id)\n  }\n}\n",
        &[],
    ),
    (
        "contains_a_list",
        "spec a {\n  search: call search\n  answer contains search.output.hits[*].title\n}\n",
        &[],
    ),
    (
        "syntax_critical_alone",
        "spec a {\n  critical\n}\n",
        &[],
    ),
    (
        "syntax_critical_after_label_only",
        "spec a {\n  critical id: call verify_identity\n}\n",
        &[],
    ),
    (
        "all_errors_of_a_file",
        "spec refund {\n  odrer strict\n  threshold 2\n  call issue_refund(order_id: lookup.output.id, order_id: \"x\")\n  never issue_refund\n  profile galtea { prefix: [\"functions.\"] }\n}\n\nspec refund {\n  call email(to: /(/)\n}\n",
        &[],
    ),
];

#[test]
fn every_diagnostic_renders_as_snapshotted() {
    for (name, text, files) in CASES {
        let out = render_all(text, files);
        assert!(!out.is_empty(), "{name} produced no diagnostic");
        assert_snapshot!(*name, out);
    }
}

#[test]
fn glob_that_matches_nothing_is_a_warning() {
    let text = "spec a {\n  transcripts \"runs/*.jsonl\", \"missing/*.json\"\n  call lookup\n}\n";
    let src = SourceFile::new("a.toolspec", text);
    let r = compile_with(text, &[]);
    let glob = &r.file.expect("valid spec").specs[0].transcripts[1];
    let d = glob_matches_nothing(&src, glob);
    assert!(!d.is_error());
    assert_snapshot!("glob_matches_nothing", render(&d));
}

#[test]
fn every_code_is_exercised_by_a_case() {
    let mut seen = BTreeSet::new();
    for (_, text, files) in CASES {
        for d in compile_with(text, files).diagnostics {
            seen.insert(d.code);
        }
    }
    seen.insert(Code::GlobMatchesNothing);
    // Budgets, exercised at their sizes in tests/it/cost_compile.rs.
    seen.extend([
        Code::IncludeTooDeep,
        Code::IncludeLimit,
        Code::RegexTooLarge,
        Code::TooManyDiagnostics,
    ]);
    let missing: Vec<_> = Code::ALL
        .iter()
        .filter(|c| c.stage() == Stage::Spec && !seen.contains(c))
        .collect();
    assert!(missing.is_empty(), "codes without a test case: {missing:?}");
}

#[test]
fn a_file_reports_all_its_semantic_errors() {
    let (_, text, files) = CASES
        .iter()
        .find(|(n, _, _)| *n == "all_errors_of_a_file")
        .unwrap();
    let codes: Vec<Code> = compile_with(text, files)
        .diagnostics
        .iter()
        .map(|d| d.code)
        .collect();
    for c in [
        Code::UnknownKeyword,
        Code::ThresholdRange,
        Code::UnknownReference,
        Code::DuplicateArgument,
        Code::ExpectedAndForbidden,
        Code::UnknownProfileOption,
        Code::DuplicateSpec,
        Code::InvalidRegex,
    ] {
        assert!(codes.contains(&c), "{c:?} missing from {codes:?}");
    }
}
