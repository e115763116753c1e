//! cargo-fuzz target: `tgsic_tests::fuzz::wide_jit_vs_interp`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| tgsic_tests::fuzz::wide_jit_vs_interp(data));
