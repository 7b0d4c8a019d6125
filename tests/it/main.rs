//! The integration tests, in one binary: the library and its dependencies are linked once rather
//! than once per test file. Each module is one former test file; run one with
//! `cargo test --test it readers_corpus::`. `tests/readers_big.rs` stays a binary of its own: it
//! installs a counting global allocator, which would count every other test's allocations.

// Fixture names are written in lower case, so their extensions are compared as written.
#![allow(clippy::case_sensitive_file_extension_comparisons)]

// Helpers shared by several test modules.
mod engine_common;
mod hostile_support;
mod lang_common;
mod parity_support;
mod tree;

mod architecture;
mod check_compact;
mod check_pass_rate;
mod check_select;
mod check_unverified;
mod check_verdicts;
mod cli;
mod cli_calls_truth;
mod cli_html;
mod cli_readme;
mod cli_sarif_schema;
mod cli_stdin;
mod cli_watch;
mod code_registry;
mod cost_compile;
mod cost_engine;
mod cost_gaps;
mod difflib_vectors;
mod engine_after;
mod engine_alignment;
mod engine_constraints;
mod engine_counts;
mod engine_fuzzy_tokens;
mod engine_per_argument;
mod engine_prefix;
mod engine_properties;
mod engine_refs;
mod engine_scopes;
mod engine_scoring_doc;
mod engine_structure;
mod engine_verdict_snapshot;
mod guard_claude_code;
mod hostile_doors;
mod hostile_fuzz_regressions;
mod hostile_inputs;
mod hostile_memory;
mod hostile_project;
mod hostile_schemas;
mod hostile_work;
mod init_starter;
mod lang_constructs;
mod lang_diagnostics;
mod lang_docs;
mod lang_examples;
mod lang_includes;
mod lang_lowering;
mod lang_props;
mod lang_spans;
mod lang_specs;
mod lang_structure;
mod lsp;
mod parity_agentevals;
mod parity_axion;
mod parity_check;
mod parity_deepeval;
mod parity_differential;
mod parity_evalite;
mod parity_galtea;
mod parity_promptfoo;
mod parity_pyset;
mod profiles_costs;
mod readers_captures;
mod readers_corpus;
mod readers_detect;
mod readers_document;
mod readers_errors;
mod readers_eval;
mod readers_fuzz;
mod readers_keep;
mod readers_mapping;
mod readers_namespace;
mod readers_neutral;
mod readers_oracles;
mod readers_silent;
mod readers_sse;
mod readers_stream;
mod readers_wild;
mod report_honest;
mod report_schema;
mod report_stream;
mod report_text;
mod rules_hostile;
mod token_set_vectors;
mod trust_binary;
mod trust_injection;
mod trust_judge;
mod trust_numbers;
mod trust_paths;
