//! Fuzz target `transcript_eval`: see `fuzz/src/lib.rs` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolspec_fuzz::transcript_eval(data));
