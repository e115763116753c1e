//! Differential test: each JIT back end (exact math) computes the interpreter's bits over both
//! corpora, for random inputs, constants, textures and samplers (several seeds per shader). Lanes the
//! IR leaves unspecified (derivatives in partly active quads, found by the IR evaluator on the
//! same batch) are left out.

use rayon::prelude::*;
use tgsic_runtime::host::CompileOptions;
use tgsic_runtime::host::Module;
use tgsic_tests::random::{Rng, batch, bindings, difference, run};
use tgsic_tests::run::{compile, interpreter, ir_evaluator};
use tgsic_tests::{all_shaders, jit_backends};

const SEEDS: u64 = 3;

#[test]
fn jit_matches_the_interpreter() {
    for (backend, _) in jit_backends() {
        // Exact math: the interpreter's bits.
        check(CompileOptions {
            math: tgsic::back::abi::MathMode::Exact,
            ..CompileOptions::with_engine(backend)
        });
    }
}

fn check(config: CompileOptions) {
    let Some(files) = all_shaders() else { return };
    // The shaders on every core (each is compiled and run on one), results in their order.
    let per_file: Vec<(Vec<String>, u64, u64)> = files
        .par_iter()
        .map(|path| check_file(path, &config))
        .collect();
    let mut failures = Vec::new();
    let (mut batches, mut compiled) = (0u64, 0u64);
    for (f, c, b) in per_file {
        failures.extend(f);
        compiled += c;
        batches += b;
    }
    println!(
        "{:?}: {compiled} shaders compiled, {batches} batches compared",
        config.engine
    );
    assert!(
        failures.is_empty(),
        "{:?}: {} shaders differ:\n{}",
        config.engine,
        failures.len(),
        failures.join("\n")
    );
}

/// One shader of [`check`]: its failures, whether it compiled (1 or 0), and its batches.
fn check_file(path: &std::path::Path, config: &CompileOptions) -> (Vec<String>, u64, u64) {
    let mut failures = Vec::new();
    let (mut batches, mut compiled) = (0u64, 0u64);
    let text = std::fs::read_to_string(path).unwrap();
    let program = tgsic::front::text::parse(&text).unwrap();
    let shader = Module::new(program).unwrap();
    let (interp, ir) = (interpreter(&shader), ir_evaluator(&shader).unwrap());
    let jit = match compile(&shader, config) {
        Ok(j) => j,
        Err(e) => {
            failures.push(format!("{}: {e}", path.display()));
            return (failures, compiled, batches);
        }
    };
    compiled += 1;
    for seed in 0..SEEDS {
        let mut rng = Rng(seed * 104_729 + path.to_string_lossy().len() as u64);
        let bind = bindings(&shader, &mut rng);
        let io = batch(&shader, &mut rng);
        batches += 1;
        let reference = run(&interp, &bind, &io);
        let unspecified = run(&ir, &bind, &io).map_or(0, |o| o.report.unspecified);
        match (reference, run(&jit, &bind, &io)) {
            (Ok(a), Ok(mut b)) => {
                b.report.unspecified |= unspecified;
                if let Some(d) = difference(&a, &b, io.alive) {
                    failures.push(format!("{} seed {seed}: {d}", path.display()));
                    break;
                }
            }
            (Err(a), Err(b)) if a == b => {}
            (a, b) => {
                failures.push(format!(
                    "{} seed {seed}: interpreter {:?}, {:?} {:?}",
                    path.display(),
                    a.err(),
                    config.engine,
                    b.err()
                ));
                break;
            }
        }
    }
    (failures, compiled, batches)
}
