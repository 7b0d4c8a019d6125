//! Fuzz target `spec_parser`: see `fuzz/src/lib.rs` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolspec_fuzz::spec_parser(data));
