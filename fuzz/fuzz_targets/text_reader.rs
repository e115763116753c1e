//! cargo-fuzz target: `tgsic_tests::fuzz::text_reader`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| tgsic_tests::fuzz::text_reader(data));
