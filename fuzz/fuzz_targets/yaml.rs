//! Fuzz target `yaml`: see `fuzz/src/lib.rs` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolspec_fuzz::yaml(data));
