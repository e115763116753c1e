//! cargo-fuzz target: `tgsic_tests::fuzz::jit_vs_interp`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| tgsic_tests::fuzz::jit_vs_interp(data));
