//! Exact math out of line: each of exact mode's functions (EX2, LN, POW, SIN/COS; `libm.rs`)
//! compiled once per process, for one register of four lanes, and called from every shader's
//! code, instead of a copy of its few hundred instructions per use.
//!
//! Cranelift's compile time grows with the code it is given, and each exact function inline
//! is 100 to 400 instructions for every EX2, LG2, POW, SIN or COS of a shader (and every
//! register of a step), which made exact shaders slow to compile (measured in
//! `results/history/math-2026-11-30.md`, "Exact mode"). A shader's code holds a call per register; the function itself is compiled the
//! first time any code of this process needs it ([`address`]) and kept for the process's life.
//!
//! The code is this process's own: shader images name it by
//! [`Symbol`](crate::back::code::Symbol) and get its address
//! where they are mapped, as they do for the C library's functions, so that a cached image
//! runs with the functions of the process that maps it (the same build: the code cache keys
//! on it). Being never stored, the functions read `libm.rs`'s tables where this process holds
//! them (shader code, which may be stored, never reads a table).

use super::codegen::{Allocator, image_of, isa, user_names};
use super::types::{Callees, ClBuilder, MAX_K, Vx, exact_of, signature};
use crate::back::abi::Invariant;
use crate::back::abi::JitError;
use crate::back::code::{MappedCode, Symbol, SymbolTable, Target};
use crate::back::lane_ops::HostFunctions;
use crate::back::simd::{ExactFn, SimdBuilder};
use cranelift_codegen::Context;
use cranelift_codegen::ir::{self as cl, InstBuilder, types};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use std::sync::OnceLock;

/// The symbol table of Cranelift's code: exact mode's functions ([`address`]) and the
/// [host functions](crate::back::lane_ops::host_function).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Symbols;

impl SymbolTable for Symbols {
    fn address(&self, s: Symbol) -> Result<u64, JitError> {
        match exact_of(s) {
            Some(f) => address(f),
            None => HostFunctions.address(s),
        }
    }
}

/// The address of `f`'s function in this process, compiled and mapped on first use.
///
/// # Errors
/// The [`JitError`] of its compilation or mapping (the same on every later call).
pub(crate) fn address(f: ExactFn) -> Result<u64, JitError> {
    static CODE: [OnceLock<Result<(MappedCode, u64), JitError>>; 4] =
        [const { OnceLock::new() }; 4];
    let slot = &CODE[f as usize];
    match slot.get_or_init(|| compile(f)) {
        Ok((_, a)) => Ok(*a),
        Err(e) => Err(e.clone()),
    }
}

/// Compiles and maps `f`'s function: its mapping and its entry's address.
fn compile(f: ExactFn) -> Result<(MappedCode, u64), JitError> {
    let isa = isa(cfg!(debug_assertions), Allocator::Backtracking, true)?;
    let mut ctx = Context::new();
    ctx.func.signature = signature(f);
    let mut fctx = FunctionBuilderContext::new();
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        build(f, &*isa, &mut ctx.func, &mut fctx)
    }))
    .map_err(|_| JitError::Panicked(format!("the lowering of {f:?}")))??;
    let image = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let names = user_names(&ctx.func);
        let c = ctx
            .compile(&*isa, &mut Default::default())
            .map_err(|e| JitError::Backend {
                backend: "Cranelift",
                stage: "code generation",
                message: format!("{:?}", e.inner),
            })?;
        image_of(c, &names)
    }))
    .map_err(|_| JitError::Panicked(format!("Cranelift, on {f:?},")))??;
    if image
        .relocs
        .iter()
        .any(|r| matches!(r.target, Target::Symbol(s) if exact_of(s).is_some()))
    {
        return Err(Invariant::ExactCall(format!("{f:?}")).into());
    }
    let (code, entry) = image.map(&HostFunctions)?;
    Ok((code, entry as usize as u64))
}

/// The body of `f`'s function: the shared lowering's, for one register (`k = 1`).
fn build(
    f: ExactFn,
    isa: &dyn cranelift_codegen::isa::TargetIsa,
    func: &mut cl::Function,
    fctx: &mut FunctionBuilderContext,
) -> Result<(), JitError> {
    let callees = Callees::declare(isa, func);
    let mut b = FunctionBuilder::new(func, fctx);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let params = b.block_params(entry).to_vec();
    // The functions read no shader arguments.
    let args = b.ins().iconst(types::I64, 0);
    let mut cb = ClBuilder::new(b, 1, args, callees);
    cb.in_helper = true;
    let body = cb.block()?;
    cb.end_entry(body)?;
    cb.switch_to(body)?;
    // One register a value (k = 1): only the first of each `Vx` is read.
    let xs: Vec<Vx> = params.iter().map(|&p| Vx([p; MAX_K])).collect();
    let ys = crate::back::simd::exact(&mut cb, f, &xs)?;
    let rets: Vec<cl::Value> = ys[..f.results()]
        .iter()
        .map(|y| cb.bitcast(y.0[0], types::F32X4))
        .collect();
    let mut b = cb.b;
    b.ins().return_(&rets);
    b.seal_all_blocks();
    b.finalize(isa.frontend_config());
    Ok(())
}
