//! The fuzz targets of `tgsic_tests::fuzz` (run at length by `fuzz/` under libFuzzer), run here
//! on the stable toolchain: every seed of the shared corpus and deterministic mutations of them.
//!
//! Every input in `fuzz/regressions/TARGET/` (what long runs found) runs first.
//! Mutations per seed: 2 under CI (`CI=true`), 8 otherwise; `TGSIC_FUZZ_MUTATIONS` overrides.
//! A failure names the target and the case, and leaves the input in the system's temporary
//! folder for `cargo fuzz run TARGET FILE`.

use tgsic_tests::fuzz::{TARGETS, mutate, seeds};
use tgsic_tests::random::Rng;

fn mutations() -> usize {
    if let Some(n) = std::env::var("TGSIC_FUZZ_MUTATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return n;
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        2
    } else {
        8
    }
}

/// Runs `target` on one input; on a panic, saves the input and fails with its path.
fn run_case(name: &str, target: fn(&[u8]), input: &[u8], case: &str) {
    let r = std::panic::catch_unwind(|| target(input));
    if let Err(e) = r {
        let path = std::env::temp_dir().join(format!("tgsic-fuzz-{name}-{case}"));
        let _ = std::fs::write(&path, input);
        let msg = e
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        panic!(
            "fuzz target {name} failed on {case} (input saved to {}): {msg}",
            path.display()
        );
    }
}

fn smoke(name: &str) {
    let target = TARGETS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, f)| *f)
        .expect("a target of that name");
    // Inputs a long run once found wrong, kept beside the fuzz targets.
    let regressions = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/regressions")
        .join(name);
    if let Ok(entries) = std::fs::read_dir(&regressions) {
        for e in entries.flatten() {
            let input = std::fs::read(e.path()).expect("reads a regression input");
            let case = e.file_name().to_string_lossy().into_owned();
            run_case(name, target, &input, &case);
        }
    }
    let seeds = seeds(name);
    if seeds.is_empty() {
        eprintln!("skipped: no seeds for {name} (../shared is absent)");
    }
    // The generator-driven target compiles every case: fewer of them.
    let step = if name.ends_with("jit_vs_interp") {
        4
    } else {
        1
    };
    let mut rng = Rng(0xf022 ^ name.len() as u64);
    let mut cases = 0;
    for (k, seed) in seeds.iter().enumerate().step_by(step) {
        run_case(name, target, seed, &format!("seed{k}"));
        for m in 0..mutations() {
            let input = mutate(seed, &mut rng);
            run_case(name, target, &input, &format!("seed{k}-mutation{m}"));
        }
        cases += 1 + mutations();
    }
    eprintln!("{name}: {} seeds, {cases} cases", seeds.len());
}

#[test]
fn binary_reader() {
    smoke("binary_reader");
}

#[test]
fn text_reader() {
    smoke("text_reader");
}

#[test]
fn lift_optimize() {
    smoke("lift_optimize");
}

#[test]
fn jit_vs_interp() {
    smoke("jit_vs_interp");
}

#[test]
fn wide_jit_vs_interp() {
    smoke("wide_jit_vs_interp");
}

#[test]
fn theia_asm() {
    smoke("theia_asm");
}

#[test]
fn theia_compile() {
    smoke("theia_compile");
}

#[test]
fn code_cache() {
    smoke("code_cache");
}

#[test]
fn compute_dispatch() {
    smoke("compute_dispatch");
}

#[test]
fn every_target_has_a_smoke_test() {
    let names: Vec<&str> = TARGETS.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        names,
        [
            "binary_reader",
            "text_reader",
            "lift_optimize",
            "jit_vs_interp",
            "wide_jit_vs_interp",
            "theia_asm",
            "theia_compile",
            "code_cache",
            "compute_dispatch"
        ]
    );
}

/// Writes every target's seeds to `fuzz/corpus/TARGET/` (the folders `cargo fuzz run` starts
/// from), one file per seed: `cargo xtask fuzz-seeds` runs it. The corpus stays in
/// `../shared`; these copies are build products and are not committed.
#[test]
#[ignore = "writes fuzz/corpus: run by `cargo xtask fuzz-seeds`"]
fn write_seed_corpora() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus");
    for (name, _) in TARGETS {
        let dir = root.join(name);
        std::fs::create_dir_all(&dir).expect("creates the corpus folder");
        let seeds = seeds(name);
        for (k, s) in seeds.iter().enumerate() {
            std::fs::write(dir.join(format!("seed-{k:04}")), s).expect("writes a seed");
        }
        eprintln!("{}: {} seeds", dir.display(), seeds.len());
    }
}
