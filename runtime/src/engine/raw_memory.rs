//! The memory of a run on the JITs: the bound buffers and images as raw pointers taken once
//! before the run ([`RawViews`], shared by every thread of a dispatch), with each thread's
//! own shared memory ([`RawMemory`]). The generated code reads and writes it itself (through
//! [`MemDesc`]s); the memory callback reaches the same bytes through the same pointers with
//! relaxed atomic accesses (words where the address is word-aligned, bytes elsewhere), so that
//! work groups running on several threads never make a Rust reference to memory that
//! another thread's code changes. Atomics on aligned words are atomic between threads, as the
//! code's are; an atomic at an address that is not word-aligned (GL requires alignment) is a
//! read and a write of its bytes, memory-safe but not atomic against other threads.

use super::memory::{
    Access, RawBytes, RawImage, Resources, atomic_result, atomic_span, load_span, store_span,
    texel_span,
};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU8, AtomicU32, Ordering::Relaxed};
use tgsic::back::abi::MemDesc;
use tgsic::ir::{MemAccess, MemFile};
use tgsic::numerics::texel;
use tgsic::tgsi::{ImageFormat, Opcode};

/// Image texel words past which generated code leaves an image to the callback: its texel
/// indices must stay below 2³¹ in 32-bit lanes.
const MAX_IMAGE_WORDS: usize = 1 << 31;

/// The host's buffers and images for one dispatch, borrowed from its [`Resources`] for `'r`.
pub(crate) struct RawViews<'r> {
    buffers: Vec<Option<RawBytes>>,
    images: Vec<Option<RawImage>>,
    _lent: PhantomData<&'r mut [u8]>,
}

// SAFETY: the pointers are those of slices lent for `'r` (mutably, so nothing else reaches
// them meanwhile); every access through them, from any thread, is a relaxed atomic one
// (`RawMemory`) or the generated code's, never a Rust reference.
unsafe impl Send for RawViews<'_> {}
// SAFETY: as for `Send`: shared, the views only hand out the pointers.
unsafe impl Sync for RawViews<'_> {}

impl<'r> RawViews<'r> {
    /// The memory `res` lends, borrowed for as long as the result lives.
    pub(crate) fn new(res: &'r mut Resources<'_>) -> RawViews<'r> {
        let (buffers, images) = res.raw_views();
        RawViews {
            buffers,
            images,
            _lent: PhantomData,
        }
    }

    fn buffer(&self, index: u32) -> Option<RawBytes> {
        self.buffers.get(index as usize).copied().flatten()
    }

    fn image(&self, index: u32) -> Option<RawImage> {
        self.images.get(index as usize).copied().flatten()
    }
}

/// One thread's memory of a dispatch: the [`RawViews`] and its own shared memory.
pub(crate) struct RawMemory<'v, 'r> {
    views: &'v RawViews<'r>,
    shared: RawBytes,
    _shared: PhantomData<&'v mut [u8]>,
}

impl<'v, 'r> RawMemory<'v, 'r> {
    /// `views` with `shared` as the shared memory (borrowed for as long as the result lives).
    pub(crate) fn new(views: &'v RawViews<'r>, shared: &'v mut [u8]) -> RawMemory<'v, 'r> {
        RawMemory {
            views,
            shared: RawBytes {
                ptr: shared.as_mut_ptr(),
                len: shared.len(),
            },
            _shared: PhantomData,
        }
    }

    fn memory(&self, shared: bool, index: u32) -> Option<RawBytes> {
        if shared {
            Some(self.shared)
        } else {
            self.views.buffer(index)
        }
    }
}

/// The byte at `at` of `m` (below its length), read atomically.
fn byte(m: RawBytes, at: usize) -> u8 {
    debug_assert!(at < m.len);
    // SAFETY: `at` is below the length of the memory `m` points to, valid for the run
    // (`RawViews`); every access to it is atomic or the generated code's.
    unsafe { AtomicU8::from_ptr(m.ptr.add(at)) }.load(Relaxed)
}

fn set_byte(m: RawBytes, at: usize, v: u8) {
    debug_assert!(at < m.len);
    // SAFETY: as `byte`.
    unsafe { AtomicU8::from_ptr(m.ptr.add(at)) }.store(v, Relaxed)
}

/// The word at `at` (its four bytes below the length, little-endian): one atomic load where
/// it is word-aligned, its bytes otherwise.
fn word(m: RawBytes, at: usize) -> u32 {
    debug_assert!(at + 4 <= m.len);
    // SAFETY: the four bytes lie inside `m` (as `byte`); `ptr` is aligned for the atomic.
    let p = unsafe { m.ptr.add(at) };
    if (p as usize).is_multiple_of(4) {
        // SAFETY: as above.
        return unsafe { AtomicU32::from_ptr(p as *mut u32) }.load(Relaxed);
    }
    u32::from_le_bytes(std::array::from_fn(|k| byte(m, at + k)))
}

fn set_word(m: RawBytes, at: usize, v: u32) {
    debug_assert!(at + 4 <= m.len);
    // SAFETY: as `word`.
    let p = unsafe { m.ptr.add(at) };
    if (p as usize).is_multiple_of(4) {
        // SAFETY: as `word`.
        return unsafe { AtomicU32::from_ptr(p as *mut u32) }.store(v, Relaxed);
    }
    for (k, b) in v.to_le_bytes().into_iter().enumerate() {
        set_byte(m, at + k, b);
    }
}

/// An atomic `op` on the word at `at` (inside `m`): the old value.
fn rmw(m: RawBytes, at: usize, op: Opcode, a: u32, b: u32, ftz: bool) -> u32 {
    // SAFETY: as `word`.
    let p = unsafe { m.ptr.add(at) };
    if (p as usize).is_multiple_of(4) {
        // SAFETY: as `word`.
        let w = unsafe { AtomicU32::from_ptr(p as *mut u32) };
        let f = |old| Some(atomic_result(op, old, a, b, ftz));
        return w
            .fetch_update(Relaxed, Relaxed, f)
            .unwrap_or_else(|old| old);
    }
    let old = word(m, at);
    set_word(m, at, atomic_result(op, old, a, b, ftz));
    old
}

/// A descriptor of `bytes` when its pointer is word-aligned (generated code accesses whole
/// words), else [`MemDesc::CALL`].
fn words_desc(bytes: RawBytes) -> MemDesc {
    if bytes.ptr.is_null() || !(bytes.ptr as usize).is_multiple_of(4) {
        return MemDesc::CALL;
    }
    MemDesc {
        ptr: bytes.ptr,
        bytes: bytes.len as u64,
        size: [0; 3],
        pad: 0,
    }
}

/// Where texel `coord` of `img` lies, in `format` ([`texel_span`]).
fn texel_at(img: &RawImage, coord: [i32; 3], format: ImageFormat) -> Option<(usize, usize)> {
    texel_span(img.size, img.format, coord, format)
}

impl Access for RawMemory<'_, '_> {
    fn byte_len(&self, shared: bool, index: u32) -> Option<usize> {
        self.memory(shared, index).map(|m| m.len)
    }

    fn load(&mut self, shared: bool, index: u32, offset: u32, words: usize) -> Option<[u32; 4]> {
        let m = self.memory(shared, index)?;
        let start = load_span(m.len, offset, words)?;
        Some(std::array::from_fn(|k| {
            if k < words { word(m, start + 4 * k) } else { 0 }
        }))
    }

    fn store(&mut self, shared: bool, index: u32, offset: u32, v: [u32; 4], mask: u8) {
        let Some(m) = self.memory(shared, index) else {
            return;
        };
        let (start, fit) = store_span(m.len, offset);
        for (c, &w) in v.iter().enumerate().take(fit) {
            if mask & (1 << c) != 0 {
                set_word(m, start + 4 * c, w);
            }
        }
    }

    fn atomic(
        &mut self,
        shared: bool,
        index: u32,
        offset: u32,
        op: Opcode,
        a: u32,
        b: u32,
        ftz: bool,
    ) -> u32 {
        let Some(m) = self.memory(shared, index) else {
            return 0;
        };
        match atomic_span(m.len, offset) {
            Some(start) => rmw(m, start, op, a, b, ftz),
            None => 0,
        }
    }

    fn image_info(&self, index: u32) -> Option<([u32; 3], ImageFormat)> {
        let img = self.views.image(index)?;
        Some((img.size, img.format))
    }

    fn image_load(&mut self, index: u32, coord: [i32; 3], format: ImageFormat) -> [u32; 4] {
        let Some(img) = self.views.image(index) else {
            return [0; 4];
        };
        let Some((at, tb)) = texel_at(&img, coord, format) else {
            return [0; 4];
        };
        let mut t = [0u8; 16];
        for (k, b) in t.iter_mut().enumerate().take(tb) {
            *b = byte(img.bytes, at + k);
        }
        texel::unpack(format, &t)
    }

    fn image_store(&mut self, index: u32, coord: [i32; 3], format: ImageFormat, v: [u32; 4]) {
        let Some(img) = self.views.image(index) else {
            return;
        };
        let Some((at, tb)) = texel_at(&img, coord, format) else {
            return;
        };
        let mut t = [0u8; 16];
        texel::pack(format, v, &mut t);
        if tb.is_multiple_of(4) {
            for k in 0..tb / 4 {
                let w = u32::from_le_bytes([t[4 * k], t[4 * k + 1], t[4 * k + 2], t[4 * k + 3]]);
                set_word(img.bytes, at + 4 * k, w);
            }
        } else {
            for (k, &b) in t.iter().enumerate().take(tb) {
                set_byte(img.bytes, at + k, b);
            }
        }
    }

    fn image_atomic(
        &mut self,
        index: u32,
        coord: [i32; 3],
        op: Opcode,
        a: u32,
        b: u32,
        ftz: bool,
    ) -> u32 {
        let Some(img) = self.views.image(index) else {
            return 0;
        };
        if !img.format.is_atomic() {
            return 0;
        }
        match texel_at(&img, coord, img.format) {
            Some((at, _)) => rmw(img.bytes, at, op, a, b, ftz),
            None => 0,
        }
    }

    fn describe(&self, a: &MemAccess) -> MemDesc {
        match a.file {
            MemFile::Shared => words_desc(self.shared),
            MemFile::Buffer => self.views.buffer(a.index).map_or(MemDesc::CALL, words_desc),
            MemFile::Image => {
                let Some(img) = self.views.image(a.index) else {
                    return MemDesc::CALL;
                };
                // The code converts texels of the access's format, which must be the size of
                // the image's own (`check_memory`).
                if a.format.texel_bytes() != img.format.texel_bytes()
                    || img.bytes.len / 4 >= MAX_IMAGE_WORDS
                {
                    return MemDesc::CALL;
                }
                let mut d = words_desc(img.bytes);
                d.bytes = (img.bytes.len / 4) as u64;
                d.size = img.size;
                d
            }
        }
    }
}
