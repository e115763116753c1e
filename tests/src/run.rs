//! Running shaders in tests through the host API alone ([`tgsic_runtime::host`]), as every
//! caller outside the runtime does: a runtime shared by a test process and short calls for
//! the runs tests make most (a picture, vertex and primitive lists).
//!
//! The runtime runs on the calling thread (the test harness runs tests in parallel), keeps no
//! compiled shaders in memory and has no code cache on disk, so a test compiles what it runs
//! (the code cache's tests make runtimes of their own).

use crate::ireval::IrShader;
use std::sync::{Arc, OnceLock};
use tgsic::ir::lift::LiftError;
use tgsic_runtime::host::{
    Bindings, CacheDir, CompileOptions, Compiled, EngineKind, Frame, HostError, Invocation,
    Lookups, Module, Picture, RunControl, Runtime, RuntimeOptions, TargetFeatures,
};

/// The tests' runtime: one thread, no caches.
pub fn runtime() -> &'static Runtime {
    static RT: OnceLock<Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        Runtime::new(RuntimeOptions {
            threads: 1,
            cache_entries: 0,
            code_cache: CacheDir::Off,
            ..RuntimeOptions::default()
        })
        .expect("a runtime on the calling thread")
    })
}

/// A runtime of `threads` worker threads, no caches.
pub fn runtime_with_threads(threads: usize) -> Runtime {
    Runtime::new(RuntimeOptions {
        threads,
        cache_entries: 0,
        code_cache: CacheDir::Off,
        ..RuntimeOptions::default()
    })
    .expect("worker threads")
}

/// `m` compiled as `opts` asks, every texture lookup through the runtime's sampler until a
/// run's bindings call for code that samples them; for the host's features, `TGSIC_LLVM_FEATURES`'
/// changes apply (so that a test run with `-avx512f` tests AVX2 code).
///
/// # Errors
/// [`HostError::Codegen`] when the back end cannot compile it.
pub fn compile(m: &Module, opts: &CompileOptions) -> Result<Arc<Compiled>, HostError> {
    runtime().compile(m, &with_env_features(opts))
}

/// `opts`, with `TGSIC_LLVM_FEATURES`' changes where it keeps the host's features.
pub fn with_env_features(opts: &CompileOptions) -> CompileOptions {
    let mut o = *opts;
    if o.features == TargetFeatures::HOST {
        o.features = TargetFeatures::from_env();
    }
    o
}

/// As [`compile`], the variant `lookups` calls for compiled up front.
///
/// # Errors
/// As [`compile`].
pub fn compile_for(
    m: &Module,
    opts: &CompileOptions,
    lookups: Lookups<'_>,
) -> Result<Arc<Compiled>, HostError> {
    runtime().compile_for(m, &with_env_features(opts), lookups)
}

/// `m` for the reference interpreter.
pub fn interpreter(m: &Module) -> Arc<Compiled> {
    compile(m, &CompileOptions::with_engine(EngineKind::Interpreter))
        .expect("the interpreter compiles nothing")
}

/// `m` lifted for the IR evaluator ([`IrShader`]), as a compiled shader.
///
/// # Errors
/// [`LiftError`] when the program cannot be lifted.
pub fn ir_evaluator(m: &Module) -> Result<Compiled, LiftError> {
    Ok(evaluator(IrShader::lift(m.clone())?))
}

/// The IR evaluator on `ir` (lifted, then optimized or rewritten as a test likes), as a
/// compiled shader.
pub fn evaluator(ir: IrShader) -> Compiled {
    Compiled::from_engine(ir, CompileOptions::with_engine(EngineKind::Interpreter))
}

/// Renders fragment shader `s` over a `width × height` grid, showing `COLOR[output]`.
///
/// # Errors
/// [`HostError::Run`] as [`Compiled::render`] says.
pub fn render(
    s: &Compiled,
    bind: &Bindings,
    width: u32,
    height: u32,
    output: u32,
) -> Result<Picture, HostError> {
    let frame = Frame {
        width,
        height,
        output,
    };
    s.render(runtime(), bind, frame, &RunControl::default())
}

/// Runs vertex shader `s` once per vertex (`vertices[v][r]`: input register r of vertex v).
///
/// # Errors
/// As [`Compiled::run_vertex_list`].
pub fn vertices(
    s: &Compiled,
    bind: &Bindings,
    vertices: &[Vec<[u32; 4]>],
) -> Result<Vec<Invocation>, HostError> {
    s.run_vertex_list(runtime(), bind, vertices, &RunControl::default())
}

/// Runs geometry shader `s` once per primitive (`primitives[p][v][r]`).
///
/// # Errors
/// As [`Compiled::run_primitive_list`].
pub fn primitives(
    s: &Compiled,
    bind: &Bindings,
    primitives: &[Vec<Vec<[u32; 4]>>],
) -> Result<Vec<Invocation>, HostError> {
    s.run_primitive_list(runtime(), bind, primitives, &RunControl::default())
}

/// Every engine of the build with exact math: the interpreter, Cranelift, LLVM (with the
/// feature `llvm`) and the tiered engine.
pub fn every_engine_exact() -> Vec<CompileOptions> {
    let mut kinds = vec![EngineKind::Interpreter, EngineKind::Cranelift];
    if EngineKind::Llvm.available() {
        kinds.push(EngineKind::Llvm);
    }
    kinds.push(EngineKind::Auto);
    kinds
        .into_iter()
        .map(|engine| CompileOptions {
            engine,
            math: tgsic::back::abi::MathMode::Exact,
            ..CompileOptions::default()
        })
        .collect()
}
