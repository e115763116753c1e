//! The THEIA simulator against THEIA's b1.2 RTL under Icarus Verilog (`tgsic_tests::theia_rtl`):
//! targeted programs, random straight-line programs, random programs with jumps and Mesa
//! shaders compiled by the code generator run on both race-free variants of the RTL and in
//! the simulator, and every register must agree wherever the two variants agree. Programs the
//! simulator refuses (docs/theia.md) must be refused, and the opcodes it says hang must hang
//! the RTL.
//!
//! Needs `iverilog` and `python3` (apt) and `../shared/theia-rtl`: without them the test is
//! skipped with a message, and under CI (`CI` set) it fails. `cargo xtask theia-rtl` runs the
//! whole set (the ignored test below).

use std::path::PathBuf;
use tgsic_tests::random::Rng;
use tgsic_tests::theia_rtl::{Program, Rtl, check, compiled, random_arith, random_jumps, targeted};
use tgsic_tests::{Corpus, corpus};

/// The harness built in the test's scratch folder, or `None` (skip) outside CI when the RTL
/// or the tools are missing.
fn harness(folder: &str) -> Option<Rtl> {
    let ci = std::env::var_os("CI").is_some();
    let rtl = tgsic_tests::shared::require("theia-rtl")?;
    if let Err(e) = tgsic_tests::theia_rtl::tools_present() {
        assert!(!ci, "{e}");
        eprintln!("skipped: {e}");
        return None;
    }
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(folder);
    Some(Rtl::build(&rtl, &work).unwrap_or_else(|e| panic!("building the RTL harness: {e}")))
}

/// Targeted programs, `arith` straight-line and `jumps` jumping random programs from `seed`, and
/// up to `shaders` compiled shaders of `corpora` (two pixels each).
fn programs(
    seed: u64,
    arith: usize,
    jumps: usize,
    corpora: &[Corpus],
    shaders: usize,
) -> Vec<Program> {
    let mut rng = Rng(seed);
    let mut v = targeted();
    v.extend(random_arith(&mut rng, arith));
    v.extend(random_jumps(&mut rng, jumps));
    let mut paths = Vec::new();
    for &c in corpora {
        paths.extend(corpus(c).unwrap_or_default());
    }
    let before = v.len();
    v.extend(compiled(&paths, 2, shaders));
    eprintln!("{} compiled shaders", (v.len() - before) / 2);
    // THEIA_RTL_ONLY=TEXT: only the programs whose name contains TEXT.
    if let Ok(only) = std::env::var("THEIA_RTL_ONLY") {
        v.retain(|p| p.name.contains(&only));
    }
    v
}

fn run(folder: &str, programs: &[Program]) {
    let Some(rtl) = harness(folder) else {
        return;
    };
    let report = check(&rtl, programs, 400_000).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("THEIA against the RTL: {report}");
    if std::env::var_os("THEIA_RTL_ONLY").is_some() {
        for r in &report.first_racy {
            eprintln!("  not compared from {r}");
        }
    }
    assert!(
        report.mismatches.is_empty(),
        "{} mismatches:\n{}",
        report.mismatches.len(),
        report.mismatches.join("\n")
    );
    if std::env::var_os("THEIA_RTL_ONLY").is_none() {
        assert!(report.refused >= 9, "the refusals were not all tested");
        assert!(
            report.compared > 30 * programs.len(),
            "too little compared: {report}"
        );
    }
}

#[test]
fn the_simulator_agrees_with_the_rtl() {
    // Under a minute on 2 cores: ~110 targeted, 150 random, 60 with jumps, and every Mesa
    // shader that compiles (two pixels each).
    run(
        "theia-rtl",
        &programs(0x7EA1_2026, 150, 60, &[Corpus::Mesa], usize::MAX),
    );
}

/// The whole set (`cargo xtask theia-rtl`): more programs, every corpus shader that compiles.
/// `THEIA_RTL_SEED` picks the seed.
#[test]
#[ignore = "minutes: run by cargo xtask theia-rtl"]
fn the_simulator_agrees_with_the_rtl_on_the_whole_set() {
    let seed = std::env::var("THEIA_RTL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2026);
    eprintln!("seed {seed}");
    run(
        "theia-rtl-full",
        &programs(
            seed,
            1500,
            500,
            &[Corpus::Mesa, Corpus::Etnaviv],
            usize::MAX,
        ),
    );
}
