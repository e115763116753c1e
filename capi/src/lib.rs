//! The C API of tgsic, over [`tgsic_runtime::host`]: opaque handles, status codes with a
//! message, and no Rust panic ever crossing into C (each call catches one and returns
//! `TGSIC_STATUS_PANIC`).
//!
//! The header `include/tgsic.h` is generated from this file by cbindgen (`tests/header.rs`
//! checks it is current; `TGSIC_UPDATE_HEADER=1 cargo test -p tgsic-c` rewrites it).
//!
//! Conventions: every function that can fail returns a [`TgsicStatus`]; on failure
//! [`tgsic_last_error`] gives the message (per thread, until the next failing call on that
//! thread). Handles are created by `*_new`, `*_load` or `*_compile` and released by their
//! `*_free` (NULL is accepted and ignored). A null pointer where one is needed, or a buffer
//! whose length does not match, is `TGSIC_STATUS_ARGUMENT`, never undefined behaviour beyond
//! what C itself allows: the library trusts only that a non-null pointer points at the number of
//! elements its length argument says.

use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use tgsic::back::abi::MathMode;
use tgsic_runtime::host::Bindings;
use tgsic_runtime::host::{
    CacheDir, CacheUse, CompileOptions, Compiled, EngineKind, HostError, Module, Runtime,
    RuntimeOptions,
};
use tgsic_runtime::host::{Filter, Sampler, Texture};

/// The outcome of a call.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TgsicStatus {
    /// Success.
    Ok = 0,
    /// The bytes are not a TGSI program.
    Read = 1,
    /// The program is invalid or cannot be executed.
    Invalid = 2,
    /// The engine could not compile it (or is not in this build).
    Compile = 3,
    /// The run failed (a missing binding, an execution error).
    Run = 4,
    /// A null pointer, a buffer of the wrong length, a value out of range.
    Argument = 5,
    /// An internal error (a bug): the call was abandoned.
    Panic = 6,
}

/// Which engine runs a compiled shader.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TgsicEngine {
    /// The reference interpreter.
    Interpreter = 0,
    /// The Cranelift JIT.
    Cranelift = 1,
    /// The LLVM JIT (builds with the `llvm` feature).
    Llvm = 2,
    /// Tiered: Cranelift's code at once, LLVM's as soon as a background thread has it (or from
    /// the code cache at once); Cranelift alone without the `llvm` feature.
    Auto = 3,
}

/// How a JIT computes float math (`docs/math.md`); the interpreter is always exact.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TgsicMath {
    /// The default: arithmetic rounded as the interpreter rounds it, SIN, COS, EX2, LG2 and
    /// POW as vector approximations within a few ulp (no less accurate than llvmpipe).
    Accurate = 0,
    /// Bit-identical to the interpreter (and so to Mesa's softpipe).
    Exact = 1,
    /// The loosest: fused multiply-adds, products with reciprocals, SIN and COS within
    /// 2^-22 absolute for |x| <= 8192.
    Fast = 2,
}

/// How a buffer orders its values (raw 32-bit register components, 4 per register).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TgsicLayout {
    /// `[invocation][register][component]`.
    Aos = 0,
    /// `[register][component][invocation]`.
    Soa = 1,
}

/// Worker threads and the compiled-shader cache; keep one for the host's lifetime.
pub struct TgsicRuntime(Runtime);
/// A shader read and validated once.
pub struct TgsicModule(Module);
/// A compiled shader.
pub struct TgsicShader(Arc<Compiled>);
/// Constant buffers, textures and samplers a shader reads.
pub struct TgsicBindings(Bindings);

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn fail(status: TgsicStatus, message: impl Into<String>) -> TgsicStatus {
    let m = message.into().replace('\0', " ");
    LAST_ERROR.with(|e| *e.borrow_mut() = CString::new(m).unwrap_or_default());
    status
}

fn host_error(e: HostError) -> TgsicStatus {
    let status = match &e {
        HostError::Read(_) => TgsicStatus::Read,
        HostError::Load(_) => TgsicStatus::Invalid,
        HostError::Lift(_) | HostError::Codegen(_) | HostError::NotJit(_) => TgsicStatus::Compile,
        HostError::Run(_)
        | HostError::Threads(_)
        | HostError::Unbound { .. }
        | HostError::Cache(_) => TgsicStatus::Run,
        HostError::Buffer { .. }
        | HostError::Quads(_)
        | HostError::Processor { .. }
        | HostError::DiscardedVertices
        | HostError::NoMaxOutputVertices
        | HostError::NoCode => TgsicStatus::Argument,
    };
    fail(status, e.to_string())
}

/// The Rust value of the C enumeration value `code` (`pairs`: each enumerator and its value),
/// or `TGSIC_STATUS_ARGUMENT` naming `what` and the value: parameters typed as C enums are
/// taken as integers, since a C enum may hold any value and a Rust enum must not.
fn from_code<T: Copy>(what: &str, code: u32, pairs: &[(u32, T)]) -> Result<T, TgsicStatus> {
    pairs
        .iter()
        .find(|(c, _)| *c == code)
        .map(|&(_, v)| v)
        .ok_or_else(|| {
            fail(
                TgsicStatus::Argument,
                format!("no {what} has the value {code}"),
            )
        })
}

/// Hands a new handle to C through `out`, or reports the error.
///
/// # Safety
/// `out` is non-null and valid.
unsafe fn hand_out<T>(out: *mut *mut T, value: Result<T, HostError>) -> TgsicStatus {
    match value {
        Ok(v) => {
            // SAFETY: the caller's contract.
            unsafe { *out = Box::into_raw(Box::new(v)) };
            TgsicStatus::Ok
        }
        Err(e) => host_error(e),
    }
}

/// Releases a handle made by [`hand_out`] (NULL is ignored).
///
/// # Safety
/// `p` is NULL or came from [`hand_out`] with this type and is not used afterwards.
unsafe fn release<T>(p: *mut T) {
    if !p.is_null() {
        // SAFETY: the caller's contract.
        let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(p) })));
    }
}

/// Runs `f`, turning a panic into `TGSIC_STATUS_PANIC`.
fn guard(f: impl FnOnce() -> TgsicStatus) -> TgsicStatus {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(s) => s,
        Err(_) => fail(
            TgsicStatus::Panic,
            "internal error (a bug in tgsic): the call was abandoned",
        ),
    }
}

/// The message of the last call that failed on this thread ("" if none). Valid until the next
/// failing call on this thread.
#[unsafe(no_mangle)]
pub extern "C" fn tgsic_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

macro_rules! need {
    ($p:expr, $what:literal) => {
        if $p.is_null() {
            return fail(TgsicStatus::Argument, concat!($what, " is NULL"));
        }
    };
}

/// Creates a runtime: `threads` worker threads (0: one per core, 1: the calling thread), a
/// cache of `cache_entries` compiled shaders in memory (0: 64), and the code cache on disk in
/// its default folder (`TGSIC_CACHE_DIR` when set, a folder or `off`; else the per-user cache
/// folder, `~/.cache/tgsic`).
///
/// # Safety
/// `out` is a valid pointer to write the handle to.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tgsic_runtime_new(
    threads: usize,
    cache_entries: usize,
    out: *mut *mut TgsicRuntime,
) -> TgsicStatus {
    // SAFETY: the caller's contract, and NULL is the default folder.
    unsafe { tgsic_runtime_new_with_cache(threads, cache_entries, std::ptr::null(), out) }
}

/// As [`tgsic_runtime_new`], with the code cache on disk in `cache_dir`: a folder (created
/// private if missing), `"off"` for none, or NULL or `""` for the default folder (as for the
/// variable `TGSIC_CACHE_DIR`).
///
/// # Safety
/// `cache_dir` is NULL or a NUL-terminated string; `out` is a valid pointer to write the handle
/// to.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tgsic_runtime_new_with_cache(
    threads: usize,
    cache_entries: usize,
    cache_dir: *const c_char,
    out: *mut *mut TgsicRuntime,
) -> TgsicStatus {
    guard(|| {
        need!(out, "out");
        let code_cache = if cache_dir.is_null() {
            CacheDir::Default
        } else {
            // SAFETY: a NUL-terminated string (the caller's contract).
            let dir = unsafe { CStr::from_ptr(cache_dir) }.to_string_lossy();
            CacheDir::parse(&*dir).unwrap_or_default()
        };
        let opts = RuntimeOptions {
            threads,
            cache_entries: if cache_entries == 0 {
                RuntimeOptions::default().cache_entries
            } else {
                cache_entries
            },
            code_cache,
            ..RuntimeOptions::default()
        };
        // SAFETY: `out` is non-null and valid (the caller's contract).
        unsafe { hand_out(out, Runtime::new(opts).map(TgsicRuntime)) }
    })
}

/// Releases a runtime (NULL is ignored). Shaders compiled with it stay usable only with
/// another runtime.
///
/// # Safety
/// `rt` came from [`tgsic_runtime_new`] and is not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tgsic_runtime_free(rt: *mut TgsicRuntime) {
    // SAFETY: the caller\'s contract.
    unsafe { release(rt) }
}

/// Reads a shader (TGSI text or binary tokens, detected) of `len` bytes and validates it.
///
/// # Safety
/// `rt` is a live runtime, `bytes` points at `len` bytes, `out` is valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tgsic_module_load(
    rt: *const TgsicRuntime,
    bytes: *const u8,
    len: usize,
    out: *mut *mut TgsicModule,
) -> TgsicStatus {
    guard(|| {
        need!(rt, "rt");
        need!(bytes, "bytes");
        need!(out, "out");
        // SAFETY: the caller's contract.
        let (rt, bytes) = unsafe { (&*rt, std::slice::from_raw_parts(bytes, len)) };
        // SAFETY: `out` is valid.
        unsafe { hand_out(out, rt.0.load(bytes).map(TgsicModule)) }
    })
}

/// Releases a module (NULL is ignored).
///
/// # Safety
/// `m` came from [`tgsic_module_load`] and is not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tgsic_module_free(m: *mut TgsicModule) {
    // SAFETY: the caller\'s contract.
    unsafe { release(m) }
}

/// Registers per invocation in an input buffer (IN registers, then system values); 0 for NULL.
///
/// # Safety
/// `m` is NULL or a live module.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tgsic_module_input_registers(m: *const TgsicModule) -> usize {
    // SAFETY: the caller's contract.
    unsafe { m.as_ref() }.map_or(0, |m| m.0.reflection().input_registers)
}

/// Registers per invocation in an output buffer (OUT registers); 0 for NULL.
///
/// # Safety
/// `m` is NULL or a live module.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tgsic_module_output_registers(m: *const TgsicModule) -> usize {
    // SAFETY: the caller's contract.
    unsafe { m.as_ref() }.map_or(0, |m| m.0.reflection().output_registers)
}

/// The register of an input or output declared with `semantic` and `index`, or -1.
///
/// # Safety
/// `m` is NULL or a live module; `semantic` is NULL or a NUL-terminated string.
unsafe fn register(m: *const TgsicModule, semantic: *const c_char, index: u32, input: bool) -> i32 {
    // SAFETY: NULL or a live module (the caller's contract).
    let Some(m) = (unsafe { m.as_ref() }) else {
        return -1;
    };
    if semantic.is_null() {
        return -1;
    }
    // SAFETY: a NUL-terminated string (the caller's contract).
    let name = unsafe { CStr::from_ptr(semantic) }.to_str().unwrap_or("");
    let Some(s) = tgsic::tgsi::Semantic::from_name(name) else {
        return -1;
    };
    let r = m.0.reflection();
    let found = if input {
        r.input(s, index)
    } else {
        r.output(s, index)
    };
    found.map_or(-1, |x| x as i32)
}

/// The input register declared with `semantic` (a TGSI name: "POSITION", "GENERIC", ...) and
/// semantic `index`, or -1.
///
/// # Safety
/// `m` is NULL or a live module; `semantic` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tgsic_module_input_register(
    m: *const TgsicModule,
    semantic: *const c_char,
    index: u32,
) -> i32 {
    // SAFETY: this function's contract is `register`'s.
    catch_unwind(|| unsafe { register(m, semantic, index, true) }).unwrap_or(-1)
}

/// The output register declared with `semantic` and semantic `index`, or -1.
///
/// # Safety
/// As [`tgsic_module_input_register`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tgsic_module_output_register(
    m: *const TgsicModule,
    semantic: *const c_char,
    index: u32,
) -> i32 {
    // SAFETY: this function's contract is `register`'s.
    catch_unwind(|| unsafe { register(m, semantic, index, false) }).unwrap_or(-1)
}

/// Compiles a module for `engine` (a `tgsic_engine` value; any other is
/// `TGSIC_STATUS_ARGUMENT`) with the default math (`TGSIC_MATH_ACCURATE`), or takes it from the
/// runtime's cache.
///
/// # Safety
/// `rt` and `m` are live; `out` is valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tgsic_shader_compile(
    rt: *const TgsicRuntime,
    m: *const TgsicModule,
    engine: u32,
    out: *mut *mut TgsicShader,
) -> TgsicStatus {
    // SAFETY: the caller's contract is the function's.
    unsafe { tgsic_shader_compile_with_math(rt, m, engine, TgsicMath::Accurate as u32, out) }
}

/// Compiles a module for `engine` (a `tgsic_engine` value) with `math` (a `tgsic_math`
/// value), or takes it from the runtime's cache; a value outside its enumeration is
/// `TGSIC_STATUS_ARGUMENT`. (The values are taken as integers: a C enumeration can hold any.)
///
/// # Safety
/// `rt` and `m` are live; `out` is valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tgsic_shader_compile_with_math(
    rt: *const TgsicRuntime,
    m: *const TgsicModule,
    engine: u32,
    math: u32,
    out: *mut *mut TgsicShader,
) -> TgsicStatus {
    guard(|| {
        need!(rt, "rt");
        need!(m, "module");
        need!(out, "out");
        // SAFETY: the caller's contract.
        let (rt, m) = unsafe { (&*rt, &*m) };
        let engine = match from_code(
            "engine",
            engine,
            &[
                (TgsicEngine::Interpreter as u32, EngineKind::Interpreter),
                (TgsicEngine::Cranelift as u32, EngineKind::Cranelift),
                (TgsicEngine::Llvm as u32, EngineKind::Llvm),
                (TgsicEngine::Auto as u32, EngineKind::Auto),
            ],
        ) {
            Ok(e) => e,
            Err(status) => return status,
        };
        let math = match from_code(
            "math mode",
            math,
            &[
                (TgsicMath::Accurate as u32, MathMode::Accurate),
                (TgsicMath::Exact as u32, MathMode::Exact),
                (TgsicMath::Fast as u32, MathMode::Fast),
            ],
        ) {
            Ok(m) => m,
            Err(status) => return status,
        };
        let opts = CompileOptions {
            math,
            ..CompileOptions::with_engine(engine)
        };
        let compiled = rt.0.compile(&m.0, &opts);
        // SAFETY: `out` is valid.
        unsafe { hand_out(out, compiled.map(TgsicShader)) }
    })
}

/// The engine that runs a compiled shader's next batch: for `TGSIC_ENGINE_AUTO`, the tier
/// (Cranelift until LLVM's code is ready, then LLVM); for NULL, the interpreter.
///
/// # Safety
/// `s` is NULL or a live shader.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tgsic_shader_engine(s: *const TgsicShader) -> TgsicEngine {
    // SAFETY: NULL or a live shader (the caller's contract).
    match unsafe { s.as_ref() }.map(|s| s.0.tier()) {
        Some(EngineKind::Cranelift) => TgsicEngine::Cranelift,
        Some(EngineKind::Llvm) => TgsicEngine::Llvm,
        _ => TgsicEngine::Interpreter,
    }
}

/// Waits until a `TGSIC_ENGINE_AUTO` shader's best code is ready (or could not be had), and
/// returns the engine that then runs it; other shaders return at once (NULL: the interpreter).
///
/// # Safety
/// `s` is NULL or a live shader.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tgsic_shader_wait_for_best(s: *const TgsicShader) -> TgsicEngine {
    // SAFETY: NULL or a live shader (the caller's contract).
    if let Some(s) = unsafe { s.as_ref() } {
        let _ = catch_unwind(AssertUnwindSafe(|| s.0.wait_for_best()));
    }
    // SAFETY: as above.
    unsafe { tgsic_shader_engine(s) }
}

/// Whether a compiled shader's code came from the code cache on disk: 1 it did, 0 it was
/// compiled (and stored), -1 no code cache (or the interpreter, or NULL).
///
/// # Safety
/// `s` is NULL or a live shader.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tgsic_shader_cache_hit(s: *const TgsicShader) -> i32 {
    // SAFETY: NULL or a live shader (the caller's contract).
    match unsafe { s.as_ref() }.map(|s| s.0.cache_use()) {
        Some(CacheUse::Hit) => 1,
        Some(CacheUse::Miss) => 0,
        _ => -1,
    }
}

/// Releases a compiled shader (NULL is ignored).
///
/// # Safety
/// `s` came from [`tgsic_shader_compile`] and is not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tgsic_shader_free(s: *mut TgsicShader) {
    // SAFETY: the caller\'s contract.
    unsafe { release(s) }
}

/// Creates empty bindings (no constants, no textures).
///
/// # Safety
/// `out` is valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tgsic_bindings_new(out: *mut *mut TgsicBindings) -> TgsicStatus {
    guard(|| {
        need!(out, "out");
        // SAFETY: `out` is valid.
        unsafe { hand_out(out, Ok(TgsicBindings(Bindings::default()))) }
    })
}

/// Releases bindings (NULL is ignored).
///
/// # Safety
/// `b` came from [`tgsic_bindings_new`] and is not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tgsic_bindings_free(b: *mut TgsicBindings) {
    // SAFETY: the caller\'s contract.
    unsafe { release(b) }
}

/// Sets constant buffer `buffer` to `registers` registers of 4 raw 32-bit values each.
///
/// # Safety
/// `b` is live; `values` points at `4 × registers` values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tgsic_bindings_set_constants(
    b: *mut TgsicBindings,
    buffer: u32,
    values: *const u32,
    registers: usize,
) -> TgsicStatus {
    guard(|| {
        need!(b, "bindings");
        need!(values, "values");
        if buffer >= 32 {
            return fail(
                TgsicStatus::Argument,
                format!("constant buffer {buffer}: at most 31"),
            );
        }
        let Some(n) = registers.checked_mul(4) else {
            return fail(TgsicStatus::Argument, "too many registers");
        };
        // SAFETY: the caller's contract.
        let (b, v) = unsafe { (&mut *b, std::slice::from_raw_parts(values, n)) };
        let regs: Vec<[u32; 4]> = v
            .chunks_exact(4)
            .map(|c| [c[0], c[1], c[2], c[3]])
            .collect();
        let k = buffer as usize;
        if b.0.constants.len() <= k {
            b.0.constants.resize(k + 1, Vec::new());
        }
        b.0.constants[k] = regs;
        TgsicStatus::Ok
    })
}

/// Sets texture unit `unit` (`SAMP[unit]`, `SVIEW[unit]`) to a `width × height` RGBA32F image
/// (row 0 first), sampled with repeat wrapping, bilinear when `linear` is nonzero, else
/// nearest.
///
/// # Safety
/// `b` is live; `texels` points at `4 × width × height` floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tgsic_bindings_set_texture_rgba32f(
    b: *mut TgsicBindings,
    unit: u32,
    width: u32,
    height: u32,
    texels: *const f32,
    linear: i32,
) -> TgsicStatus {
    guard(|| {
        need!(b, "bindings");
        need!(texels, "texels");
        if unit >= 128 {
            return fail(
                TgsicStatus::Argument,
                format!("texture unit {unit}: at most 127"),
            );
        }
        if let Err(e) = tgsic_runtime::host::check_size(width, height, 1) {
            return fail(TgsicStatus::Argument, e.to_string());
        }
        let n = width as usize * height as usize * 4;
        // SAFETY: the caller's contract.
        let (b, t) = unsafe { (&mut *b, std::slice::from_raw_parts(texels, n)) };
        let tex = match Texture::from_rgba32f(width, height, 1, t) {
            Ok(t) => t,
            Err(e) => return fail(TgsicStatus::Argument, e.to_string()),
        };
        let k = unit as usize;
        if b.0.textures.len() <= k {
            b.0.textures.resize(k + 1, None);
        }
        b.0.textures[k] = Some(tex);
        if b.0.samplers.len() <= k {
            b.0.samplers.resize(k + 1, Sampler::default());
        }
        let f = if linear != 0 {
            Filter::Linear
        } else {
            Filter::Nearest
        };
        b.0.samplers[k] = Sampler {
            min: f,
            mag: f,
            ..Sampler::default()
        };
        TgsicStatus::Ok
    })
}

/// The runs over a host's buffers (declared after `need!`, which they use).
pub mod run;

/// Compute dispatches over the host's memory (declared after `need!`, which they use).
pub mod memory;
