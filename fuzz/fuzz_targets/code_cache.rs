//! cargo-fuzz target: `tgsic_tests::fuzz::code_cache`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| tgsic_tests::fuzz::code_cache(data));
