//! Compute dispatches over the host's memory: a resource list (buffers and images the host
//! lends by pointer and length, the size of shared memory) and `tgsic_shader_dispatch`.

use crate::{TgsicBindings, TgsicRuntime, TgsicShader, TgsicStatus, fail, guard, host_error};
use std::ffi::{CStr, c_char};
use tgsic_runtime::host::{Image, ImageFormat, Resources, RunControl};

/// One piece of the host's memory, lent by pointer and length.
#[derive(Debug, Clone, Copy)]
struct Lent {
    index: u32,
    ptr: *mut u8,
    len: usize,
    /// Size and format of an image; `None` for a buffer.
    image: Option<([u32; 3], ImageFormat)>,
}

/// Buffers and images a dispatch reads and writes in place, and the size of its shared
/// memory. It holds the host's pointers, not copies: the memory must stay valid, and be
/// touched by nothing else, while a dispatch that uses it runs.
#[derive(Debug, Default)]
pub struct TgsicResources {
    lent: Vec<Lent>,
    shared_bytes: u32,
}

/// Creates an empty resource list.
///
/// # Safety
/// `out` is a valid pointer to write the handle to.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tgsic_resources_new(out: *mut *mut TgsicResources) -> TgsicStatus {
    guard(|| {
        need!(out, "out");
        // SAFETY: `out` is valid (the caller's contract).
        unsafe { *out = Box::into_raw(Box::default()) };
        TgsicStatus::Ok
    })
}

/// Releases a resource list (NULL is ignored); the host's memory is not touched.
///
/// # Safety
/// `r` came from [`tgsic_resources_new`] and is not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tgsic_resources_free(r: *mut TgsicResources) {
    if !r.is_null() {
        // SAFETY: the caller's contract.
        drop(unsafe { Box::from_raw(r) });
    }
}

/// Lends `len` bytes at `bytes` as `BUFFER[index]` (its size is `len`). A second buffer for
/// the same index replaces the first.
///
/// # Safety
/// `r` is live; `bytes` points at `len` writable bytes that stay valid while a dispatch with
/// `r` runs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tgsic_resources_bind_buffer(
    r: *mut TgsicResources,
    index: u32,
    bytes: *mut u8,
    len: usize,
) -> TgsicStatus {
    guard(|| {
        need!(r, "resources");
        if bytes.is_null() && len > 0 {
            return fail(TgsicStatus::Argument, "bytes is NULL");
        }
        // SAFETY: live (the caller's contract).
        let r = unsafe { &mut *r };
        put(
            r,
            Lent {
                index,
                ptr: bytes,
                len,
                image: None,
            },
        );
        TgsicStatus::Ok
    })
}

/// Lends `len` bytes at `texels` as `IMAGE[index]`: `width` × `height` × `depth` texels of
/// `format` (as the TGSI spells it, with or without `PIPE_FORMAT_`: `"R8G8B8A8_UNORM"`),
/// row-major, row 0 first; `len` must be exactly their size.
///
/// # Safety
/// `r` is live; `format` is a NUL-terminated string; `texels` points at `len` writable bytes
/// that stay valid while a dispatch with `r` runs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tgsic_resources_bind_image(
    r: *mut TgsicResources,
    index: u32,
    texels: *mut u8,
    len: usize,
    width: u32,
    height: u32,
    depth: u32,
    format: *const c_char,
) -> TgsicStatus {
    guard(|| {
        need!(r, "resources");
        need!(texels, "texels");
        need!(format, "format");
        // SAFETY: a NUL-terminated string (the caller's contract).
        let name = unsafe { CStr::from_ptr(format) }.to_string_lossy();
        let Some(format) = ImageFormat::from_name(&name).filter(|f| *f != ImageFormat::None) else {
            return fail(
                TgsicStatus::Argument,
                format!("unknown image format `{name}`"),
            );
        };
        let size = [width, height, depth];
        // The size is checked now, on an empty probe, so that the dispatch cannot fail on it.
        let need = [width, height, depth, format.texel_bytes()]
            .iter()
            .try_fold(1u64, |a, &k| a.checked_mul(k as u64));
        if need != Some(len as u64) || width == 0 || height == 0 || depth == 0 {
            return fail(
                TgsicStatus::Argument,
                format!(
                    "an image of {width}x{height}x{depth} {} texels is not {len} bytes",
                    format.name()
                ),
            );
        }
        // SAFETY: live (the caller's contract).
        let r = unsafe { &mut *r };
        put(
            r,
            Lent {
                index,
                ptr: texels,
                len,
                image: Some((size, format)),
            },
        );
        TgsicStatus::Ok
    })
}

/// Sets the size of shared memory (`MEMORY`) a dispatch gets (at most 65536 bytes).
///
/// # Safety
/// `r` is live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tgsic_resources_set_shared_bytes(
    r: *mut TgsicResources,
    bytes: u32,
) -> TgsicStatus {
    guard(|| {
        need!(r, "resources");
        if bytes > tgsic_runtime::host::MAX_SHARED_BYTES {
            return fail(
                TgsicStatus::Argument,
                format!("{bytes} bytes of shared memory: at most 65536"),
            );
        }
        // SAFETY: live (the caller's contract).
        unsafe { (*r).shared_bytes = bytes };
        TgsicStatus::Ok
    })
}

fn put(r: &mut TgsicResources, l: Lent) {
    r.lent
        .retain(|o| !(o.index == l.index && o.image.is_some() == l.image.is_some()));
    r.lent.push(l);
}

/// Runs a compute shader over `x` × `y` × `z` work groups with `r`'s buffers and images
/// (changed in place) and `bindings`' constants and textures (NULL: none).
/// `TGSIC_STATUS_ARGUMENT` when two lent pieces of memory overlap but are not the same piece
/// (the same pointer and length on two registers is one buffer or image on both).
///
/// # Safety
/// `rt`, `s` and `r` are live, `bindings` is NULL or live; the memory `r` lends is valid and
/// touched by nothing else until the call returns.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tgsic_shader_dispatch(
    rt: *const TgsicRuntime,
    s: *const TgsicShader,
    bindings: *const TgsicBindings,
    r: *mut TgsicResources,
    x: u32,
    y: u32,
    z: u32,
) -> TgsicStatus {
    guard(|| {
        need!(rt, "rt");
        need!(s, "shader");
        need!(r, "resources");
        // SAFETY: live handles (the caller's contract).
        let (s, r) = unsafe { (&*s, &*r) };
        let lent = r.lent.clone();
        // Pieces that overlap must be the same piece: every slice made below is then the only
        // view of its bytes.
        for (k, a) in lent.iter().enumerate() {
            for b in &lent[..k] {
                let (a0, b0) = (a.ptr as usize, b.ptr as usize);
                let overlap = a.len > 0 && b.len > 0 && a0 < b0 + b.len && b0 < a0 + a.len;
                let same = a0 == b0 && a.len == b.len && a.image == b.image;
                if overlap && !same {
                    return fail(
                        TgsicStatus::Argument,
                        "two buffers or images overlap without being the same memory",
                    );
                }
            }
        }
        let mut res = Resources::new();
        if let Err(e) = res.set_shared_bytes(r.shared_bytes) {
            return fail(TgsicStatus::Argument, e.to_string());
        }
        let mut owner: Vec<(usize, bool, u32)> = Vec::new();
        for l in &lent {
            let first = owner
                .iter()
                .find(|(p, img, _)| *p == l.ptr as usize && *img == l.image.is_some());
            let bound = match (first, l.image) {
                (Some(&(_, _, of)), None) => res.share_buffer(l.index, of),
                (Some(&(_, _, of)), Some(_)) => res.share_image(l.index, of),
                (None, image) => {
                    owner.push((l.ptr as usize, image.is_some(), l.index));
                    let bytes: &mut [u8] = if l.len == 0 {
                        &mut []
                    } else {
                        // SAFETY: the host lends `len` writable bytes at `ptr` for the call
                        // (the caller's contract), and no other slice made here overlaps
                        // them (checked above).
                        unsafe { std::slice::from_raw_parts_mut(l.ptr, l.len) }
                    };
                    match image {
                        None => res.bind_buffer(l.index, bytes),
                        Some((size, format)) => Image::new(bytes, size, format)
                            .and_then(|img| res.bind_image(l.index, img)),
                    }
                }
            };
            if let Err(e) = bound {
                return fail(TgsicStatus::Argument, e.to_string());
            }
        }
        // SAFETY: live or NULL (the caller's contract).
        let (rt, bind) = unsafe { (&*rt, crate::run::bindings_or_none(bindings)) };
        match s
            .0
            .dispatch(&rt.0, bind, &mut res, [x, y, z], &RunControl::default())
        {
            Ok(()) => TgsicStatus::Ok,
            Err(e) => host_error(e),
        }
    })
}
