//! cargo-fuzz target: `tgsic_tests::fuzz::lift_optimize`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| tgsic_tests::fuzz::lift_optimize(data));
