//! The Cranelift back end: native SIMD code from the optimized IR.
//!
//! - **Structure of arrays.** A batch holds [`BATCH_LANES`] invocations; the generated function
//!   loops over them in groups of `4·vectors` lanes (every IR value is `vectors` F32X4/I32X4
//!   registers), so one call shades a whole batch.
//! - **Control flow** runs with execution masks: an `If` whose condition is uniform is a real
//!   branch; otherwise each branch runs (and is skipped when no lane takes it) under its mask.
//!   A loop runs while any lane is in it; `break` and `continue` move lanes out, with their
//!   values, under masks.
//! - **Numerics** are the interpreter's, bit for bit, in [`MathMode::Exact`]: like every
//!   engine, the code runs with the MXCSR's DAZ and FTZ bits set ([`with_ftz`]), so SSE
//!   arithmetic flushes exactly as the interpreter's; NaN results are canonicalized
//!   where their bits can be observed (a store, a bitcast, a sign operation) — see
//!   [`nan`](self). Operations without a vector instruction (integer division, bit fields,
//!   packing, transcendental functions in exact mode) call [`host::tgsic_lanes_op`], which
//!   evaluates them with the interpreter's own code. [`MathMode::Fast`] replaces SIN, COS, EX2,
//!   LG2 and POW by inline vector approximations with the bounds documented in [`vmath`].
//! - **Memory safety**: inputs, outputs and arrays are addressed with clamped indices; an
//!   array store outside its range is dropped per lane; constant-buffer reads check the
//!   buffer's length. Texture lookups and EMIT call back into the host ([`JitArgs`]).
//!
//! [`compile`] returns a [`CompiledShader`] that owns its machine code (freed on drop) and may
//! be called from many threads at once.

mod host;
mod lower;
mod nan;
#[cfg(test)]
mod tests_support;
pub mod vmath;

pub use crate::numerics::with_ftz;
pub use host::tgsic_lanes_op;

use crate::ir::{Function, TexOp};
use cranelift_codegen::ir::AbiParam;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::{Context, isa::OwnedTargetIsa};
use cranelift_frontend::FunctionBuilderContext;
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module, default_libcall_names};
use std::ffi::c_void;
use std::sync::OnceLock;
use thiserror::Error;

/// Invocations per call of the generated code.
pub const BATCH_LANES: usize = 64;

/// How transcendental functions are computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum MathMode {
    /// Bit-identical to the interpreter (glibc's functions, called per lane).
    #[default]
    Exact,
    /// Inline vector approximations (bounds in [`vmath`]).
    Fast,
}

/// Code generation options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct JitOptions {
    /// Transcendental functions.
    pub math: MathMode,
    /// F32X4 registers per IR value: lanes per step are `4·vectors` (1, 2, 4 or 8).
    pub vectors: usize,
    /// Run Cranelift's IR verifier (about twice the compile time).
    pub verify: bool,
}

impl Default for JitOptions {
    fn default() -> Self {
        JitOptions {
            math: MathMode::Exact,
            vectors: 2,
            verify: cfg!(debug_assertions),
        }
    }
}

/// Why a function cannot be compiled.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum JitError {
    /// The host is not supported (an x86-64 CPU with SSE4.1 is needed).
    #[error("unsupported host: {0}")]
    Host(String),
    /// Cranelift rejected the generated code (a bug in tgsic).
    #[error("code generation failed: {0}")]
    Codegen(String),
    /// Options out of range.
    #[error("invalid JIT options: {0}")]
    Options(String),
}

/// A constant buffer as the generated code sees it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ConstBuffer {
    /// Registers, four words each.
    pub ptr: *const u32,
    /// Number of registers.
    pub len: u64,
}

/// The texture callback: `(host, texture op index, args, out, lane mask, first lane, lanes)`.
/// `args` holds each texture argument's lanes in turn (`lanes` words each); `out` receives
/// four components of `lanes` words.
pub type TextureFn = unsafe extern "C" fn(*mut c_void, u32, *const u32, *mut u32, u64, u32, u32);

/// The EMIT/ENDPRIM callback: `(host, is_emit, values, value count, lane mask, first lane,
/// lanes)`; `values` holds every output component, then the stream, `lanes` words each.
pub type EmitFn = unsafe extern "C" fn(*mut c_void, u32, *const u32, u32, u64, u32, u32);

/// What the generated code reads and writes; laid out for it (`#[repr(C)]`). Register files are
/// structure-of-arrays: component `c` of register `r` at lane `l` is word
/// `(r·4 + c)·BATCH_LANES + l`.
#[repr(C)]
#[derive(Debug)]
pub struct JitArgs {
    /// IN (geometry shaders: vertex-major, `inputs_per_vertex` registers per vertex).
    pub inputs: *const u32,
    /// SV.
    pub sv: *const u32,
    /// OUT (written for the active lanes).
    pub outputs: *mut u32,
    /// Every array of the function, in order, zeroed by the caller: `len` registers each.
    pub arrays: *mut u32,
    /// The direct constant reads, resolved: [`CompiledShader::uniforms`] gives their order.
    pub uniforms: *const u32,
    /// Constant buffers, for indirect reads.
    pub constants: *const ConstBuffer,
    /// Number of constant buffers.
    pub num_constants: u64,
    /// The function's immediates ([`CompiledShader::immediates`]), four words each.
    pub immediates: *const u32,
    /// At least four readable zero words (reads that must not touch memory read these).
    pub zeros: *const u32,
    /// Lanes holding an invocation.
    pub alive: u64,
    /// Helper lanes (READ_HELPER).
    pub helpers: u64,
    /// Out: discarded lanes.
    pub killed: u64,
    /// Out: lanes out of loop iterations.
    pub exhausted: u64,
    /// Loop iterations each invocation may run.
    pub max_iterations: u64,
    /// IN registers per vertex (geometry shaders).
    pub inputs_per_vertex: u64,
    /// The clear colour's bits (FBFETCH).
    pub clear: [u32; 4],
    /// Passed to the callbacks.
    pub host: *mut c_void,
    /// Texture lookups.
    pub texture: TextureFn,
    /// EMIT and ENDPRIM.
    pub emit: EmitFn,
}

/// A texture operation of the code: what the callback index stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextureCall {
    /// The operation.
    pub op: TexOp,
    /// Its argument count (four per non-resource source, then three per offset), each
    /// `lanes` words in the callback's `args`.
    pub args: usize,
}

/// A compiled shader: machine code for one [`Function`], and what the caller must provide.
pub struct CompiledShader {
    module: Option<JITModule>,
    entry: unsafe extern "C" fn(*mut JitArgs),
    /// The direct constant reads `(buffer, register, component)` in [`JitArgs::uniforms`] order.
    pub uniforms: Vec<(u32, u32, u8)>,
    /// The texture operations, by the index the callback receives.
    pub textures: Vec<TextureCall>,
    /// The immediates [`JitArgs::immediates`] must point to.
    pub immediates: Vec<u32>,
    /// Words of the arrays buffer [`JitArgs::arrays`] must point to (zeroed): every array,
    /// then one register where dropped stores go.
    pub array_words: usize,
    /// Bytes of machine code.
    pub code_size: usize,
    /// Lanes per step.
    pub lanes_per_step: usize,
    /// The Cranelift IR, when asked for ([`compile_with_text`]).
    pub clif: Option<String>,
    /// The disassembled machine code, when asked for.
    pub asm: Option<String>,
}

// SAFETY: the module is only touched again by `Drop`; the entry point reads nothing but its
// arguments and immutable code, so concurrent calls are fine.
unsafe impl Send for CompiledShader {}
unsafe impl Sync for CompiledShader {}

impl std::fmt::Debug for CompiledShader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledShader")
            .field("code_size", &self.code_size)
            .field("lanes_per_step", &self.lanes_per_step)
            .field("uniforms", &self.uniforms.len())
            .field("textures", &self.textures.len())
            .finish()
    }
}

impl Drop for CompiledShader {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            // SAFETY: no pointer into the module's code outlives `self`.
            unsafe { m.free_memory() };
        }
    }
}

impl CompiledShader {
    /// Runs the code over one batch.
    ///
    /// # Safety
    /// Every pointer of `args` must address the storage its documentation describes, sized
    /// for the function this was compiled from (registers up to the function's highest input,
    /// system value, output and array register; `uniforms` as long as [`Self::uniforms`];
    /// `constants` with `num_constants` valid buffers), and the callbacks must be safe to call
    /// with `args.host`. The MXCSR must have DAZ and FTZ set ([`with_ftz`]).
    pub unsafe fn call(&self, args: &mut JitArgs) {
        unsafe { (self.entry)(args) }
    }
}

fn isa(verify: bool) -> Result<OwnedTargetIsa, JitError> {
    static ISA: OnceLock<[Result<OwnedTargetIsa, JitError>; 2]> = OnceLock::new();
    let make = |verify: bool| -> Result<OwnedTargetIsa, JitError> {
        if !cfg!(target_arch = "x86_64") {
            return Err(JitError::Host("the JIT generates x86-64 code".into()));
        }
        #[cfg(target_arch = "x86_64")]
        if !std::arch::is_x86_feature_detected!("sse4.1") {
            return Err(JitError::Host("the CPU lacks SSE4.1".into()));
        }
        let mut fb = settings::builder();
        let set = |fb: &mut settings::Builder, k: &str, v: &str| {
            fb.set(k, v)
                .map_err(|e| JitError::Host(format!("{k}={v}: {e}")))
        };
        // The IR arrives optimized and constants are already hoisted; Cranelift's own
        // optimizer (`speed`) measured slower to compile (median 0.60 against 0.37 ms over the
        // etnaviv corpus) and no faster to run (curl noise 3.1 against 4.1 Mpixels/s).
        set(&mut fb, "opt_level", "none")?;
        set(&mut fb, "is_pic", "false")?;
        set(
            &mut fb,
            "enable_verifier",
            if verify { "true" } else { "false" },
        )?;
        let builder = cranelift_native::builder().map_err(|e| JitError::Host(e.to_string()))?;
        builder
            .finish(settings::Flags::new(fb))
            .map_err(|e| JitError::Host(e.to_string()))
    };
    let isas = ISA.get_or_init(|| [make(false), make(true)]);
    isas[verify as usize].clone()
}

/// Compiles `f`.
///
/// # Errors
/// [`JitError`] when the host is not supported or code generation fails.
pub fn compile(f: &Function, opts: &JitOptions) -> Result<CompiledShader, JitError> {
    compile_inner(f, opts, false)
}

/// Compiles `f` and keeps the Cranelift IR and the disassembly ([`CompiledShader::clif`],
/// [`CompiledShader::asm`]).
///
/// # Errors
/// As [`compile`].
pub fn compile_with_text(f: &Function, opts: &JitOptions) -> Result<CompiledShader, JitError> {
    compile_inner(f, opts, true)
}

fn compile_inner(f: &Function, opts: &JitOptions, text: bool) -> Result<CompiledShader, JitError> {
    if ![1, 2, 4, 8].contains(&opts.vectors) {
        return Err(JitError::Options(format!(
            "vectors = {} (1, 2, 4 or 8)",
            opts.vectors
        )));
    }
    let isa = isa(opts.verify)?;
    let mut jb = JITBuilder::with_isa(isa.clone(), default_libcall_names());
    jb.symbol("tgsic_lanes_op", host::tgsic_lanes_op as *const u8);
    host::register_libcalls(&mut jb);
    let mut module = JITModule::new(jb);
    let ptr = module.target_config().pointer_type();
    let mut sig = module.make_signature();
    sig.params.push(AbiParam::new(ptr));
    let id = module
        .declare_function("shade", Linkage::Export, &sig)
        .map_err(|e| JitError::Codegen(e.to_string()))?;
    let mut ctx = Context::new();
    ctx.func.signature = sig;
    if text {
        ctx.set_disasm(true);
    }
    let mut fctx = FunctionBuilderContext::new();
    // A bug in the lowering must not take the host down: Cranelift panics on some invalid IR.
    let lowered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        lower::lower(f, opts, &mut module, &mut ctx.func, &mut fctx)
    }))
    .map_err(|_| JitError::Codegen("the lowering panicked".into()))??;
    let clif = text.then(|| ctx.func.display().to_string());
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        module
            .define_function(id, &mut ctx)
            .map_err(|e| JitError::Codegen(format!("{e:?}")))
    }))
    .map_err(|_| JitError::Codegen("Cranelift panicked".into()))??;
    let compiled = ctx
        .compiled_code()
        .ok_or_else(|| JitError::Codegen("no code".into()))?;
    let code_size = compiled.code_info().total_size as usize;
    let asm = compiled.vcode.clone();
    module.clear_context(&mut ctx);
    module
        .finalize_definitions()
        .map_err(|e| JitError::Codegen(e.to_string()))?;
    let code = module.get_finalized_function(id);
    // SAFETY: the function was declared with this signature.
    let entry =
        unsafe { std::mem::transmute::<*const u8, unsafe extern "C" fn(*mut JitArgs)>(code) };
    Ok(CompiledShader {
        module: Some(module),
        entry,
        uniforms: lowered.uniforms,
        textures: lowered.textures,
        immediates: f.immediates.iter().flatten().copied().collect(),
        array_words: (f.arrays.iter().map(|a| a.len as usize).sum::<usize>() + 1) * 4 * BATCH_LANES,
        code_size,
        lanes_per_step: 4 * opts.vectors,
        clif,
        asm: if text { asm } else { None },
    })
}
