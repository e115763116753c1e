//! Running compiled shaders over the host's buffers: fragments, vertices and primitives, and
//! the checks of the pointers and lengths a caller passes.

use crate::{
    TgsicBindings, TgsicLayout, TgsicModule, TgsicRuntime, TgsicShader, TgsicStatus, fail,
    from_code, guard, host_error,
};
use tgsic_runtime::host::Bindings;
use tgsic_runtime::host::{Invocations, Layout};

/// The layout a `tgsic_layout` value names, or the argument error of another value.
fn layout_of(l: u32) -> Result<Layout, TgsicStatus> {
    from_code(
        "layout",
        l,
        &[
            (TgsicLayout::Aos as u32, Layout::Aos),
            (TgsicLayout::Soa as u32, Layout::Soa),
        ],
    )
}

/// Runs a fragment shader over `count` fragments (a multiple of 4: 2×2 quads, upper left,
/// upper right, lower left, lower right): `inputs` holds `inputs_len` values
/// (`count × tgsic_module_input_registers × 4`), `outputs` receives `outputs_len` values
/// (`count × tgsic_module_output_registers × 4`), both in `layout` (a `tgsic_layout` value;
/// any other is `TGSIC_STATUS_ARGUMENT`); `discarded`, when not NULL, receives `count` bytes,
/// 1 where the fragment was discarded. `bindings` may be NULL.
///
/// # Safety
/// `rt` and `s` are live, `bindings` is NULL or live; the buffers hold the lengths given.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tgsic_shader_run_fragments(
    rt: *const TgsicRuntime,
    s: *const TgsicShader,
    bindings: *const TgsicBindings,
    count: usize,
    layout: u32,
    inputs: *const u32,
    inputs_len: usize,
    outputs: *mut u32,
    outputs_len: usize,
    discarded: *mut u8,
) -> TgsicStatus {
    guard(|| {
        let layout = match layout_of(layout) {
            Ok(l) => l,
            Err(status) => return status,
        };
        need!(rt, "rt");
        need!(s, "shader");
        // SAFETY: the caller's contract; empty slices for zero lengths.
        let (rt, s, inputs, outputs) = unsafe {
            (
                &*rt,
                &*s,
                slice(inputs, inputs_len),
                slice_mut(outputs, outputs_len),
            )
        };
        let (Some(inputs), Some(outputs)) = (inputs, outputs) else {
            return fail(TgsicStatus::Argument, "inputs or outputs is NULL");
        };
        // SAFETY: NULL or live; `discarded` is NULL or holds `count` bytes.
        let (bind, discarded) = unsafe { (bindings_or_none(bindings), flags(discarded, count)) };
        let mut work = Invocations::new(count, layout, inputs, outputs);
        if let Some(d) = discarded {
            work = work.with_discarded(d);
        }
        match s.0.run_fragments(&rt.0, bind, work) {
            Ok(_) => TgsicStatus::Ok,
            Err(e) => host_error(e),
        }
    })
}

/// Runs a vertex shader over `count` vertices; buffers as in [`tgsic_shader_run_fragments`]
/// (system values such as VERTEXID are input registers the host sets).
///
/// # Safety
/// As [`tgsic_shader_run_fragments`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tgsic_shader_run_vertices(
    rt: *const TgsicRuntime,
    s: *const TgsicShader,
    bindings: *const TgsicBindings,
    count: usize,
    layout: u32,
    inputs: *const u32,
    inputs_len: usize,
    outputs: *mut u32,
    outputs_len: usize,
) -> TgsicStatus {
    guard(|| {
        let layout = match layout_of(layout) {
            Ok(l) => l,
            Err(status) => return status,
        };
        need!(rt, "rt");
        need!(s, "shader");
        // SAFETY: the caller's contract.
        let (rt, s, inputs, outputs) = unsafe {
            (
                &*rt,
                &*s,
                slice(inputs, inputs_len),
                slice_mut(outputs, outputs_len),
            )
        };
        let (Some(inputs), Some(outputs)) = (inputs, outputs) else {
            return fail(TgsicStatus::Argument, "inputs or outputs is NULL");
        };
        // SAFETY: NULL or live.
        let bind = unsafe { bindings_or_none(bindings) };
        match s.0.run_vertices(
            &rt.0,
            bind,
            Invocations::new(count, layout, inputs, outputs),
        ) {
            Ok(_) => TgsicStatus::Ok,
            Err(e) => host_error(e),
        }
    })
}

/// Registers per primitive in a geometry shader's input buffer (each vertex's IN registers,
/// vertex after vertex, then the system values); 0 for NULL.
///
/// # Safety
/// `m` is NULL or a live module.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tgsic_module_primitive_input_registers(m: *const TgsicModule) -> usize {
    // SAFETY: the caller's contract.
    unsafe { m.as_ref() }.map_or(0, |m| m.0.reflection().primitive_input_registers())
}

/// Vertices a geometry shader emits at most per primitive (GS_MAX_OUTPUT_VERTICES); 0 for
/// other shaders and NULL.
///
/// # Safety
/// `m` is NULL or a live module.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tgsic_module_max_output_vertices(m: *const TgsicModule) -> usize {
    // SAFETY: the caller's contract.
    unsafe { m.as_ref() }.map_or(0, |m| m.0.reflection().max_output_vertices)
}

/// Runs a geometry shader over `count` primitives: `inputs` holds `inputs_len` values
/// (`count × tgsic_module_primitive_input_registers × 4`, in `layout`); the emitted vertices'
/// OUT registers go to `vertices` (`count × max_output_vertices × output_registers × 4`
/// values, vertex by vertex), each primitive's vertex count to `counts` (`count` entries), and
/// `ends` (`count × max_output_vertices` bytes) gets 1 after each vertex where ENDPRIM ended a
/// strip.
///
/// # Safety
/// As [`tgsic_shader_run_fragments`]; the buffers hold the lengths given.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tgsic_shader_run_primitives(
    rt: *const TgsicRuntime,
    s: *const TgsicShader,
    bindings: *const TgsicBindings,
    count: usize,
    layout: u32,
    inputs: *const u32,
    inputs_len: usize,
    vertices: *mut u32,
    vertices_len: usize,
    counts: *mut u32,
    counts_len: usize,
    ends: *mut u8,
    ends_len: usize,
) -> TgsicStatus {
    guard(|| {
        let layout = match layout_of(layout) {
            Ok(l) => l,
            Err(status) => return status,
        };
        need!(rt, "rt");
        need!(s, "shader");
        // SAFETY: the caller's contract; empty slices for zero lengths.
        let (rt, s, inputs, vertices, counts) = unsafe {
            (
                &*rt,
                &*s,
                slice(inputs, inputs_len),
                slice_mut(vertices, vertices_len),
                slice_mut(counts, counts_len),
            )
        };
        let (Some(inputs), Some(vertices), Some(counts)) = (inputs, vertices, counts) else {
            return fail(TgsicStatus::Argument, "inputs, vertices or counts is NULL");
        };
        // SAFETY: `ends` is NULL or holds `ends_len` bytes; the bindings are NULL or live.
        let (ends, bind) = unsafe { (flags(ends, ends_len), bindings_or_none(bindings)) };
        let ends: &mut [bool] = match ends {
            Some(e) => e,
            None if ends_len == 0 => &mut [],
            None => return fail(TgsicStatus::Argument, "ends is NULL"),
        };
        let out = tgsic_runtime::host::Emission {
            vertices,
            counts,
            ends,
        };
        match s.0.run_primitives(&rt.0, bind, count, layout, inputs, out) {
            Ok(_) => TgsicStatus::Ok,
            Err(e) => host_error(e),
        }
    })
}

/// A slice from C: empty for length 0 (any pointer), None for NULL with a length.
///
/// # Safety
/// A non-null `p` points at `len` values.
unsafe fn slice<'a, T>(p: *const T, len: usize) -> Option<&'a [T]> {
    if len == 0 {
        Some(&[])
    } else if p.is_null() {
        None
    } else {
        // SAFETY: the caller's contract.
        Some(unsafe { std::slice::from_raw_parts(p, len) })
    }
}

/// As [`slice`], mutable.
///
/// # Safety
/// As [`slice`].
unsafe fn slice_mut<'a, T>(p: *mut T, len: usize) -> Option<&'a mut [T]> {
    if len == 0 {
        Some(&mut [])
    } else if p.is_null() {
        None
    } else {
        // SAFETY: the caller's contract.
        Some(unsafe { std::slice::from_raw_parts_mut(p, len) })
    }
}

/// The host's bindings, or none (NULL).
///
/// # Safety
/// `b` is NULL or live.
pub(crate) unsafe fn bindings_or_none<'a>(b: *const TgsicBindings) -> &'a Bindings {
    static NONE: std::sync::OnceLock<Bindings> = std::sync::OnceLock::new();
    // SAFETY: NULL or live (the caller's contract).
    match unsafe { b.as_ref() } {
        Some(b) => &b.0,
        None => NONE.get_or_init(Bindings::default),
    }
}

/// `len` bytes of the host's as flags the run sets, or None for NULL. The bytes are set to 0
/// first, a valid `bool`, so viewing them as `bool`s is sound; the run writes only `true` or
/// `false`.
///
/// # Safety
/// A non-null `p` points at `len` writable bytes.
unsafe fn flags<'a>(p: *mut u8, len: usize) -> Option<&'a mut [bool]> {
    if p.is_null() {
        return None;
    }
    // SAFETY: the caller's contract, and the zeroing above.
    unsafe {
        std::ptr::write_bytes(p, 0, len);
        Some(std::slice::from_raw_parts_mut(p.cast::<bool>(), len))
    }
}
