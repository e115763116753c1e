//! Every entry of `corpus/compute` gives softpipe's buffers, images and window, bit for bit,
//! after every step, with every engine (doubles and 64-bit integers included).

use tgsic_runtime::host::CompileOptions;
use tgsic_tests::compute::{Entry, entries, module};
use tgsic_tests::run::every_engine_exact;

/// Runs every entry `pick` takes with every engine of `engines` through `run`; returns the
/// entries run.
fn run_all(
    engines: &[CompileOptions],
    pick: impl Fn(&Entry) -> bool,
    run: impl Fn(&Entry, &tgsic_runtime::host::Compiled) -> Result<(), String>,
) -> usize {
    let Some(list) = entries() else { return 0 };
    let mut failures = Vec::new();
    let mut ran = 0;
    let mut runs = 0;
    for e in list.iter().filter(|e| pick(e)) {
        let m = match module(e) {
            Ok(m) => m,
            Err(why) => {
                failures.push(format!("{}: {why}", e.name));
                continue;
            }
        };
        ran += 1;
        for opts in engines {
            runs += 1;
            let shader = match tgsic_tests::run::compile(&m, opts) {
                Ok(s) => s,
                Err(why) => {
                    failures.push(format!("{} ({:?}): {why}", e.name, opts.engine));
                    continue;
                }
            };
            if let Err(why) = run(e, &shader) {
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
    assert_eq!(runs, ran * engines.len());
    ran
}

#[test]
fn compute_entries_match_softpipe_with_every_engine() {
    let ran = run_all(
        &every_engine_exact(),
        |e| e.mode == "compute" && !e.is_64_bit(),
        |e, s| e.run_compute(s),
    );
    if entries().is_some() {
        assert_eq!(ran, 44, "compute entries without 64-bit types");
    }
}

/// Every fragment entry without 64-bit types, but the one whose vertex shader does the work
/// (the draws here run the fragment shader alone).
#[test]
fn fragment_entries_match_softpipe_with_every_engine() {
    let ran = run_all(
        &every_engine_exact(),
        |e| {
            e.mode == "fragment"
                && !e.is_64_bit()
                && e.name != "piglit_atomic_vs_simple_inc_dec_read"
        },
        |e, s| e.run_fragment(s),
    );
    if entries().is_some() {
        assert_eq!(ran, 18, "fragment entries without 64-bit types");
    }
}

/// Every compute entry with 64-bit integers, with every engine.
#[test]
fn compute_entries_with_64_bit_types_match_softpipe_with_every_engine() {
    let ran = run_all(
        &every_engine_exact(),
        |e| e.mode == "compute" && e.is_64_bit(),
        |e, s| e.run_compute(s),
    );
    if entries().is_some() {
        assert_eq!(ran, 10, "compute entries with 64-bit types");
    }
}

/// Every fragment entry with doubles or 64-bit integers, with every engine.
#[test]
fn fragment_entries_with_64_bit_types_match_softpipe_with_every_engine() {
    let ran = run_all(
        &every_engine_exact(),
        |e| e.mode == "fragment" && e.is_64_bit(),
        |e, s| e.run_fragment(s),
    );
    if entries().is_some() {
        assert_eq!(ran, 21, "fragment entries with 64-bit types");
    }
}
