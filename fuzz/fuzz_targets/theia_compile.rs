//! cargo-fuzz target: `tgsic_tests::fuzz::theia_compile`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| tgsic_tests::fuzz::theia_compile(data));
