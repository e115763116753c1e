//! cargo-fuzz target: `tgsic_tests::fuzz::compute_dispatch`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| tgsic_tests::fuzz::compute_dispatch(data));
