//! Fast math ([`tgsic::opt::fast_math`]) through every engine: the IR evaluator runs the
//! expanded IR, each JIT back end compiles it; all stay within the documented bounds, and the
//! JITs compute the IR evaluator's bits exactly (one expansion, the same code everywhere).
//! Accurate math expands EX2, LG2 and POW the same way (polynomials fused where the host has
//! FMA, the rest of the arithmetic unfused): the same bounds and the same agreement hold.

use tgsic::back::Backend;
use tgsic::back::abi::MathMode;
use tgsic_runtime::host::{Bindings, CompileOptions, Compiled, Module};
use tgsic_tests::fast_math::{self as fm, Func};
use tgsic_tests::ireval::IrShader;
use tgsic_tests::run::{compile, evaluator, vertices};

fn prepared(func: Func) -> Module {
    let program = tgsic::front::text::parse(&func.shader()).expect("parses");
    Module::new(program).expect("loads")
}

fn run(s: &Compiled, pairs: &[(f32, f32)]) -> Vec<f32> {
    let list: Vec<Vec<[u32; 4]>> = pairs
        .iter()
        .map(|&(x, y)| vec![[x.to_bits(), y.to_bits(), 0, 0]])
        .collect();
    vertices(s, &Bindings::default(), &list)
        .expect("runs")
        .iter()
        .map(|i| f32::from_bits(i.outputs[0][0]))
        .collect()
}

/// The functions accurate math expands as fast math does.
const ACCURATE: [Func; 3] = [Func::Ex2, Func::Lg2, Func::Pow];

/// The IR evaluator on the lifted function as the JITs compile it in `math` mode (optimized,
/// expanded; in fast mode divisions made products with reciprocals and multiply-adds fused
/// where the host has FMA).
fn ir(math: MathMode) -> impl Fn(Func, &[(f32, f32)]) -> Vec<f32> {
    move |func, pairs| {
        let mut s = IrShader::lift(prepared(func)).expect("lifts");
        // Optimized as the JITs' code is (value numbering makes IN[0].y one divisor).
        tgsic::opt::optimize(&mut s.function, tgsic::opt::OptLevel::O2);
        let before = tgsic::ir::print::print(&s.function);
        s.function = tgsic::opt::math::for_math(&s.function, math, tgsic::back::simd::host_fma())
            .into_owned();
        assert_ne!(
            tgsic::ir::print::print(&s.function),
            before,
            "{func:?} is rewritten in {math:?} mode"
        );
        run(&evaluator(s), pairs)
    }
}

/// A JIT back end in `math` mode.
fn jit(backend: Backend, math: MathMode) -> impl Fn(Func, &[(f32, f32)]) -> Vec<f32> {
    move |func, pairs| {
        let config = CompileOptions {
            engine: backend.into(),
            math,
            ..CompileOptions::default()
        };
        let s = compile(&prepared(func), &config).expect("compiles");
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

/// Every engine in `math` mode.
fn engines_in(math: MathMode) -> Vec<Named> {
    let mut out: Vec<Named> = vec![(format!("IR evaluator, {math:?}"), Box::new(ir(math)))];
    for b in backends() {
        out.push((format!("{b:?}, {math:?}"), Box::new(jit(b, math))));
    }
    out
}

/// Every engine in fast mode.
fn engines() -> Vec<Named> {
    engines_in(MathMode::Fast)
}

/// Every engine in fast mode, then in accurate mode.
fn engines_both() -> Vec<Named> {
    let mut out = engines();
    out.extend(engines_in(MathMode::Accurate));
    out
}

#[test]
fn ex2_within_2_ulp_on_every_engine() {
    for (name, e) in engines_both() {
        println!("{name}: EX2 worst {} ulp", fm::ex2_within_2_ulp(&*e));
    }
}

#[test]
fn lg2_within_2_ulp_or_2_pow_22_on_every_engine() {
    for (name, e) in engines_both() {
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
    for (name, e) in engines_both() {
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
    let runs = Func::ALL
        .map(|f| (MathMode::Fast, f))
        .into_iter()
        .chain(ACCURATE.map(|f| (MathMode::Accurate, f)));
    for (math, func) in runs {
        let want = ir(math)(func, &pairs);
        for b in backends() {
            let got = jit(b, math)(func, &pairs);
            for (k, (&g, &w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(
                    g.to_bits(),
                    w.to_bits(),
                    "{b:?} {math:?} {func:?}{:?}: {g:e} against the IR evaluator's {w:e}",
                    pairs[k]
                );
            }
        }
    }
}
