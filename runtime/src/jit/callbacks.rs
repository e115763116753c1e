//! What generated code calls back for: the texture lookups it does not sample itself (the
//! runtime's sampler, [`crate::lookup`]), EMIT/ENDPRIM of geometry shaders, and the memory
//! instructions and barriers of compute programs. Each is entered
//! through a trampoline that gives it Rust's floating-point environment, and catches panics so
//! that none unwinds into generated code.

use crate::engine::{Access, BATCH_LANES, Bindings, Emitted, MemoryError, Reg, RunError, apply};
use crate::lookup::{TexRequest, sample_into};
use std::cell::RefCell;
use std::ffi::c_void;
use tgsic::back::abi::{BARRIER_CALL, TextureCall};
use tgsic::ir::{MemAccess, MemFile};
use tgsic::tgsi::Opcode;

/// The memory a compute dispatch lends its batches, and what a barrier does.
pub(crate) struct MemoryCtx<'a> {
    /// The buffers, images and shared memory; borrowed by one memory instruction at a time.
    pub(crate) memory: &'a RefCell<dyn Access + 'a>,
    /// Called when the lanes of a step reach a barrier: returns when the work group may go
    /// on (a coroutine's suspension). `None`: the batch holds the whole group.
    pub(crate) barrier: Option<&'a dyn Fn()>,
    /// A compute program's numerics: denormals kept (otherwise DAZ/FTZ, float atomics too).
    pub(crate) ieee: bool,
}

/// What the callbacks see of the running batch (the `callbacks` pointer of [`JitArgs`]).
///
/// [`JitArgs`]: tgsic::back::abi::JitArgs
pub(super) struct Callbacks<'a, 'm> {
    pub(super) bind: &'a Bindings,
    pub(super) textures: &'a [TextureCall],
    pub(super) quads: bool,
    pub(super) args: &'a mut Vec<[u32; BATCH_LANES]>,
    pub(super) out: &'a mut Reg,
    pub(super) emitted: Vec<Emitted>,
    pub(super) error: Option<RunError>,
    /// The memory operations of the code that runs.
    pub(super) accesses: &'a [MemAccess],
    /// The memory of a dispatch.
    pub(super) memory: Option<&'a MemoryCtx<'m>>,
}

/// `MemoryFn`: memory operation `index` of the code, or a barrier, for the lanes of `mask`
/// in lane order (the rules of `engine::memory::apply`).
unsafe extern "C" fn memory_callback(
    ctx: *mut c_void,
    index: u32,
    args: *const u32,
    out: *mut u32,
    mask: u64,
    lane0: u32,
    lanes: u32,
) {
    let _ = lane0;
    // SAFETY: `ctx` is the `Callbacks` of the running batch; the code passes `args` with the
    // access's arguments, `lanes` words each, and `out` with room for its results.
    let h = unsafe { &mut *(ctx as *mut Callbacks<'_, '_>) };
    let n = lanes as usize;
    let Some(m) = h.memory else {
        h.error
            .get_or_insert(RunError::Memory(MemoryError::NoMemory));
        return;
    };
    if index == BARRIER_CALL {
        if mask != 0
            && let Some(wait) = m.barrier
        {
            // A panic must not unwind into generated code.
            if std::panic::catch_unwind(std::panic::AssertUnwindSafe(wait)).is_err() {
                h.error
                    .get_or_insert(RunError::CallbackPanicked("a barrier"));
            }
        }
        return;
    }
    let Some(a) = h.accesses.get(index as usize) else {
        h.error
            .get_or_insert(RunError::CallbackPanicked("a memory operation"));
        return;
    };
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut mem = m.memory.borrow_mut();
        let (coords, values) = (a.coords(), a.values());
        // SAFETY: the code passes `coords + values` arguments of `lanes` words each (and the
        // register after them for an indirect one).
        let arg = |k: usize, l: usize| unsafe { *args.add(k * n + l) };
        // An indirect register: the one the code found for the step (every lane holds it); a
        // negative number names nothing, as an unbound register.
        let resolved;
        let a = if a.indirect {
            let Some(l) = (0..n).find(|&l| mask & (1 << l) != 0) else {
                return;
            };
            let mut r = a.clone();
            r.index = u32::try_from(arg(coords + values, l) as i32).unwrap_or(u32::MAX);
            resolved = r;
            &resolved
        } else {
            a
        };
        // Loads and stores of a buffer or shared memory, without `apply`'s dispatch.
        if matches!(a.opcode, Opcode::Load | Opcode::Store) && a.file != MemFile::Image {
            let shared = a.file == MemFile::Shared;
            for l in (0..n).filter(|&l| mask & (1 << l) != 0) {
                if a.opcode == Opcode::Load {
                    let v = mem
                        .load(shared, a.index, arg(0, l), a.words())
                        .unwrap_or([0; 4]);
                    for (k, &w) in v.iter().enumerate() {
                        // SAFETY: `out` holds four values of `lanes` words for a LOAD.
                        unsafe { *out.add(k * n + l) = w };
                    }
                } else {
                    let v = std::array::from_fn(|k| arg(1 + k, l));
                    mem.store(shared, a.index, arg(0, l), v, a.mask);
                }
            }
            return;
        }
        for l in 0..n {
            if mask & (1 << l) == 0 {
                continue;
            }
            let c: [u32; 3] = std::array::from_fn(|k| if k < coords { arg(k, l) } else { 0 });
            let v: [u32; 4] =
                std::array::from_fn(|k| if k < values { arg(coords + k, l) } else { 0 });
            let r = apply(&mut *mem, a, c, v, !m.ieee);
            for (k, &w) in r.iter().enumerate().take(a.results()) {
                // SAFETY: `out` holds `results` values of `lanes` words.
                unsafe { *out.add(k * n + l) = w };
            }
        }
    }));
    if result.is_err() {
        h.error
            .get_or_insert(RunError::CallbackPanicked("a memory operation"));
    }
}

/// `TextureFn`: the interpreter's texture semantics on the lanes of one step.
unsafe extern "C" fn texture_callback(
    ctx: *mut c_void,
    index: u32,
    args: *const u32,
    out: *mut u32,
    mask: u64,
    lane0: u32,
    lanes: u32,
) {
    let _ = lane0;
    // SAFETY: `ctx` is the `Host` of the running batch; the code passes `args` with every
    // argument's `lanes` words and `out` with room for four components.
    let h = unsafe { &mut *(ctx as *mut Callbacks<'_, '_>) };
    let n = lanes as usize;
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        {
            let call = &h.textures[index as usize];
            if h.args.len() < call.args {
                h.args.resize(call.args, [0; BATCH_LANES]);
            }
            // Only lanes 0..n are read (the mask's).
            for (a, ch) in h.args.iter_mut().take(call.args).enumerate() {
                // SAFETY: the code passes `call.args` arguments of `lanes` words each.
                let words = unsafe { std::slice::from_raw_parts(args.add(a * n), n) };
                ch[..n].copy_from_slice(words);
            }
            let req = TexRequest {
                op: &call.op,
                args: &h.args[..call.args],
                exec: mask,
                quads: h.quads,
            };
            sample_into(h.bind, &req, h.out)
        }
    }));
    match result {
        Ok(Ok(())) => {
            for c in 0..4 {
                for l in 0..n {
                    // SAFETY: `out` holds 4·lanes words.
                    unsafe { *out.add(c * n + l) = h.out[c][l] };
                }
            }
        }
        Ok(Err(e)) => {
            h.error.get_or_insert(e);
        }
        Err(_) => {
            h.error
                .get_or_insert(RunError::CallbackPanicked("a texture lookup"));
        }
    }
}

/// `EmitFn`: records EMIT (every output component, then the stream) and ENDPRIM per lane.
unsafe extern "C" fn emit_callback(
    ctx: *mut c_void,
    is_emit: u32,
    values: *const u32,
    count: u32,
    mask: u64,
    lane0: u32,
    lanes: u32,
) {
    // SAFETY: as `texture_callback`; `values` holds `count` values of `lanes` words.
    let h = unsafe { &mut *(ctx as *mut Callbacks<'_, '_>) };
    let (n, count) = (lanes as usize, count as usize);
    if count == 0 {
        // The code always passes the stream last; nothing to record without it.
        return;
    }
    // SAFETY: `values` holds `count` values of `lanes` words, and `val` reads below that.
    let val = |a: usize, l: usize| unsafe { *values.add(a * n + l) };
    // A panic must not unwind into generated code (that aborts the process): it becomes the
    // batch's error, as in `texture_callback`.
    let emitted = &mut h.emitted;
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        for l in 0..n {
            if mask & (1 << l) == 0 {
                continue;
            }
            let outputs = (is_emit != 0).then(|| {
                (0..(count - 1) / 4)
                    .map(|s| std::array::from_fn(|c| val(4 * s + c, l)))
                    .collect()
            });
            emitted.push(Emitted {
                lane: lane0 as usize + l,
                outputs,
                stream: val(count - 1, l),
            });
        }
    }));
    if result.is_err() {
        h.error
            .get_or_insert(RunError::CallbackPanicked("an EMIT or ENDPRIM"));
    }
}

tgsic::default_fp_trampoline!(
    /// [`texture_callback`] entered from generated code, with the MXCSR's DAZ/FTZ bits
    /// cleared while it runs (`tgsic::back::fpenv`).
    texture_callback_entered => texture_callback,
    (ctx: *mut c_void, index: u32, args: *const u32, out: *mut u32, mask: u64, lane0: u32, lanes: u32)
);
tgsic::default_fp_trampoline!(
    /// [`memory_callback`] entered from generated code, as [`texture_callback_entered`].
    memory_callback_entered => memory_callback,
    (ctx: *mut c_void, index: u32, args: *const u32, out: *mut u32, mask: u64, lane0: u32, lanes: u32)
);
tgsic::default_fp_trampoline!(
    /// [`emit_callback`] entered from generated code, as [`texture_callback_entered`].
    emit_callback_entered => emit_callback,
    (ctx: *mut c_void, is_emit: u32, values: *const u32, count: u32, mask: u64, lane0: u32, lanes: u32)
);
