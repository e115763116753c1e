//! Mesa's own output with each JIT back end: exact math reproduces it bit for bit (as the
//! interpreter does); fast math is reported (hash-style shaders amplify any difference, so it
//! is not bounded).

use tgsic::back::Backend;
use tgsic::back::abi::MathMode;
use tgsic_cli::compare::compare;
use tgsic_runtime::host::CompileOptions;
use tgsic_tests::jit_backends;
use tgsic_tests::mesa::{cases, cases_in};
use tgsic_tests::run::{compile, render};

fn run(backend: Backend, math: MathMode) -> Vec<(String, usize, usize, u64)> {
    let Some(cases) = cases() else {
        return Vec::new();
    };
    cases
        .iter()
        .map(|c| {
            let jit = compile(
                &c.shader,
                &CompileOptions {
                    engine: backend.into(),
                    math,
                    ..CompileOptions::default()
                },
            )
            .unwrap_or_else(|e| panic!("{}: {e}", c.name));
            let img =
                render(&jit, &c.bind, 64, 64, 0).unwrap_or_else(|e| panic!("{}: {e}", c.name));
            let ours: Vec<f32> = img.pixels.iter().flatten().copied().collect();
            let cmp = compare(&ours, &c.reference);
            (c.name.clone(), cmp.identical, cmp.total, cmp.max_ulp)
        })
        .collect()
}

#[test]
fn exact_math_reproduces_mesa_bit_for_bit() {
    for (backend, _) in jit_backends() {
        exact(backend);
    }
}

fn exact(backend: Backend) {
    let rows = run(backend, MathMode::Exact);
    let bad: Vec<String> = rows
        .iter()
        .filter(|(_, same, total, _)| same != total)
        .map(|(n, same, total, ulp)| format!("{n}: {same} of {total} identical, max {ulp} ulp"))
        .collect();
    println!(
        "{backend:?}: {} of {} bit-identical",
        rows.len() - bad.len(),
        rows.len()
    );
    assert!(bad.is_empty(), "{backend:?}: {}", bad.join("\n"));
}

#[test]
fn fast_math_is_reported() {
    for (backend, _) in jit_backends() {
        fast(backend);
    }
}

fn fast(backend: Backend) {
    let rows = run(backend, MathMode::Fast);
    let identical = rows.iter().filter(|(_, s, t, _)| s == t).count();
    for (n, same, total, ulp) in &rows {
        if same != total {
            println!("{backend:?} {n}: {same} of {total} components identical, max {ulp} ulp");
        }
    }
    println!(
        "{backend:?} fast math: {identical} of {} shaders bit-identical to Mesa",
        rows.len()
    );
    if !rows.is_empty() {
        assert!(identical > 0);
    }
}

/// The double-precision fractal shaders of `corpus/mesa-fp64` on every back end, in exact and
/// accurate math: Mesa's pixels bit for bit (doubles are exact in every mode).
#[test]
fn doubles_reproduce_mesa_bit_for_bit() {
    let Some(cases) = cases_in("corpus/mesa-fp64") else {
        return;
    };
    let mut bad = Vec::new();
    for ((backend, _), math) in jit_backends()
        .into_iter()
        .flat_map(|b| [(b, MathMode::Exact), (b, MathMode::Accurate)])
    {
        for c in &cases {
            let opts = CompileOptions {
                engine: backend.into(),
                math,
                ..CompileOptions::default()
            };
            let jit = compile(&c.shader, &opts).unwrap_or_else(|e| panic!("{}: {e}", c.name));
            let img =
                render(&jit, &c.bind, 64, 64, 0).unwrap_or_else(|e| panic!("{}: {e}", c.name));
            let ours: Vec<f32> = img.pixels.iter().flatten().copied().collect();
            let cmp = compare(&ours, &c.reference);
            if cmp.identical != cmp.total {
                bad.push(format!(
                    "{} ({math:?}): {} of {} identical",
                    c.name, cmp.identical, cmp.total
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
