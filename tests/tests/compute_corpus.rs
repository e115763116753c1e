//! Every compute entry of `corpus/compute` (but those with doubles or 64-bit integers, issue
//! 60) gives softpipe's buffers and images, bit for bit, after every step.

use tgsic::back::abi::MathMode;
use tgsic_runtime::host::{CompileOptions, EngineKind};
use tgsic_tests::compute::{entries, module};

/// Every engine of the build: the interpreter, each JIT back end and the tiered engine, exact
/// math.
fn engines() -> Vec<CompileOptions> {
    let mut kinds = vec![EngineKind::Interpreter, EngineKind::Cranelift];
    if EngineKind::Llvm.available() {
        kinds.push(EngineKind::Llvm);
    }
    kinds.push(EngineKind::Auto);
    kinds
        .into_iter()
        .map(|engine| CompileOptions {
            engine,
            math: MathMode::Exact,
            ..CompileOptions::default()
        })
        .collect()
}

#[test]
fn compute_entries_match_softpipe_with_every_engine() {
    let Some(list) = entries() else { return };
    let mut failures = Vec::new();
    let mut ran = 0;
    let mut runs = 0;
    for e in list
        .iter()
        .filter(|e| e.mode == "compute" && !e.is_64_bit())
    {
        let m = match module(e) {
            Ok(m) => m,
            Err(why) => {
                failures.push(format!("{}: {why}", e.name));
                continue;
            }
        };
        ran += 1;
        for opts in engines() {
            runs += 1;
            let shader = match tgsic_tests::run::compile(&m, &opts) {
                Ok(s) => s,
                Err(why) => {
                    failures.push(format!("{} ({:?}): {why}", e.name, opts.engine));
                    continue;
                }
            };
            if let Err(why) = e.run_compute(&shader) {
                failures.push(format!("{} ({:?}): {why}", e.name, opts.engine));
            }
            // A tiered shader's background compile ends before the process does.
            shader.wait_for_best();
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {runs} runs ({ran} entries) differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(ran, 44, "compute entries without 64-bit types");
    assert_eq!(runs, 44 * engines().len());
}

/// Every fragment entry without 64-bit types gives softpipe's buffers, images and window, but
/// the one whose vertex shader does the work (the draws here run the fragment shader alone).
#[test]
fn fragment_entries_match_softpipe_with_every_engine() {
    let Some(list) = entries() else { return };
    let mut failures = Vec::new();
    let mut ran = 0;
    for e in list.iter().filter(|e| {
        e.mode == "fragment" && !e.is_64_bit() && e.name != "piglit_atomic_vs_simple_inc_dec_read"
    }) {
        let m = match module(e) {
            Ok(m) => m,
            Err(why) => {
                failures.push(format!("{}: {why}", e.name));
                continue;
            }
        };
        ran += 1;
        for opts in engines() {
            let shader = match tgsic_tests::run::compile(&m, &opts) {
                Ok(s) => s,
                Err(why) => {
                    failures.push(format!("{} ({:?}): {why}", e.name, opts.engine));
                    continue;
                }
            };
            if let Err(why) = e.run_fragment(&shader) {
                failures.push(format!("{} ({:?}): {why}", e.name, opts.engine));
            }
            shader.wait_for_best();
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {ran} entries differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(ran, 18, "fragment entries without 64-bit types");
}
