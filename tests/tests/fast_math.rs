//! Fast math ([`tgsic::opt::fast_math`]) through every engine: the IR evaluator runs the
//! expanded IR, each JIT back end compiles it; all stay within the documented bounds, and the
//! JITs compute the IR evaluator's bits exactly (one expansion, the same code everywhere).

use tgsic::back::Backend;
use tgsic::back::abi::MathMode;
use tgsic_runtime::dispatch::{RunOptions, run_vertices};
use tgsic_runtime::engine::CompileOptions;
use tgsic_runtime::engine::Engine;
use tgsic_runtime::engine::{Bindings, Module};
use tgsic_runtime::ireval::IrShader;
use tgsic_runtime::jit::JitShader;
use tgsic_tests::fast_math::{self as fm, Func};

fn prepared(func: Func) -> Module {
    let program = tgsic::front::text::parse(&func.shader()).expect("parses");
    Module::new(program).expect("loads")
}

fn run<E: Engine + Sync + ?Sized>(e: &E, pairs: &[(f32, f32)]) -> Vec<f32>
where
    E::Scratch: Send,
{
    let vertices: Vec<Vec<[u32; 4]>> = pairs
        .iter()
        .map(|&(x, y)| vec![[x.to_bits(), y.to_bits(), 0, 0]])
        .collect();
    run_vertices(e, &Bindings::default(), &vertices, &RunOptions::default())
        .expect("runs")
        .iter()
        .map(|i| f32::from_bits(i.outputs[0][0]))
        .collect()
}

/// The IR evaluator on the lifted function as the JITs compile it in fast mode (optimized,
/// expanded, divisions made products with reciprocals, and fused where the host has FMA).
fn ir(func: Func, pairs: &[(f32, f32)]) -> Vec<f32> {
    let mut s = IrShader::lift(prepared(func)).expect("lifts");
    // Optimized as the JITs' code is (value numbering makes IN[0].y one divisor).
    tgsic::opt::optimize(&mut s.function, tgsic::opt::OptLevel::O2);
    let before = tgsic::ir::print::print(&s.function);
    s.function = tgsic::back::simd::prepare(&s.function, MathMode::Fast).into_owned();
    assert_ne!(
        tgsic::ir::print::print(&s.function),
        before,
        "{func:?} is rewritten"
    );
    run(&s, pairs)
}

/// A JIT back end in fast-math mode.
fn jit(backend: Backend) -> impl Fn(Func, &[(f32, f32)]) -> Vec<f32> {
    move |func, pairs| {
        let config = CompileOptions {
            engine: backend.into(),
            math: MathMode::Fast,
            ..CompileOptions::default()
        };
        let s = JitShader::new(prepared(func), &config).expect("compiles");
        run(&s, pairs)
    }
}

fn backends() -> Vec<Backend> {
    [Backend::Cranelift, Backend::Llvm]
        .into_iter()
        .filter(|b| b.available())
        .collect()
}

/// An engine by name.
type Named = (String, Box<dyn Fn(Func, &[(f32, f32)]) -> Vec<f32>>);

fn engines() -> Vec<Named> {
    let mut out: Vec<Named> = vec![("IR evaluator".into(), Box::new(ir))];
    for b in backends() {
        out.push((format!("{b:?}"), Box::new(jit(b))));
    }
    out
}

#[test]
fn ex2_within_2_ulp_on_every_engine() {
    for (name, e) in engines() {
        println!("{name}: EX2 worst {} ulp", fm::ex2_within_2_ulp(&*e));
    }
}

#[test]
fn lg2_within_2_ulp_or_2_pow_22_on_every_engine() {
    for (name, e) in engines() {
        let (u, a) = fm::lg2_within_2_ulp_or_tiny_absolute(&*e);
        println!("{name}: LG2 worst {u} ulp, {a:e} absolute");
    }
}

#[test]
fn sin_cos_within_2_pow_22_on_every_engine() {
    for (name, e) in engines() {
        let (s, c) = fm::sin_cos_within_2_pow_22_absolute(&*e);
        println!("{name}: SIN worst {s:e}, COS worst {c:e} absolute");
    }
}

#[test]
fn pow_within_its_bound_on_every_engine() {
    for (name, e) in engines() {
        println!(
            "{name}: POW worst {:.2} of the bound",
            fm::pow_within_its_bound(&*e)
        );
    }
}

#[test]
fn reciprocal_products_within_2_ulp_on_every_engine() {
    for (name, e) in engines() {
        println!("{name}: x / y worst {} ulp", fm::div_within_2_ulp(&*e));
    }
}

#[test]
fn the_jits_compute_the_ir_evaluators_bits() {
    let pairs = fm::agreement_inputs();
    for func in Func::ALL {
        let want = ir(func, &pairs);
        for b in backends() {
            let got = jit(b)(func, &pairs);
            for (k, (&g, &w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(
                    g.to_bits(),
                    w.to_bits(),
                    "{b:?} {func:?}{:?}: {g:e} against the IR evaluator's {w:e}",
                    pairs[k]
                );
            }
        }
    }
}
