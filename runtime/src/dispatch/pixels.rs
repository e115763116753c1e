//! [`PixelBuffer`]: an image's RGBA f32 pixels in memory that starts on a cache line.
//!
//! A tile writes 8 pixels, 128 bytes, to each of its 8 rows. From a 64-byte boundary (with a
//! row a multiple of 4 pixels wide) those are two whole cache lines; from the 16-byte offset
//! at which glibc's allocator places a large `Vec<[f32; 4]>` they are three, the outer two
//! shared with the neighbouring tiles. The cheapest shaders, whose frames are mostly the
//! writing of the image, gain most (measured on Zen 4: `results/history/jit-2026-11-30.md`).

use std::mem::MaybeUninit;
use std::ops::{Deref, DerefMut};

/// Four pixels: one cache line.
#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct Line([[f32; 4]; 4]);

/// Pixels in memory aligned to 64 bytes.
///
/// Dereferences to the pixels, `[[f32; 4]]`, so that it reads and writes as a slice (index,
/// iterate, compare); its `as_ptr()` is a multiple of 64 whenever the buffer holds a
/// pixel. Rendering into an image whose buffer is large enough reuses its memory.
pub struct PixelBuffer {
    /// The memory, four pixels a line: `4 × lines.len()` pixels of room. `repr(C)` puts the
    /// pixels of a line one after another without padding (64 bytes, its alignment).
    lines: Vec<MaybeUninit<Line>>,
    /// Pixels initialised, from the first: at most `4 × lines.len()`.
    len: usize,
}

impl PixelBuffer {
    /// An empty buffer; it allocates nothing.
    pub fn new() -> PixelBuffer {
        PixelBuffer {
            lines: Vec::new(),
            len: 0,
        }
    }

    /// `len` pixels of the value `px`.
    pub fn filled(len: usize, px: [f32; 4]) -> PixelBuffer {
        let mut b = PixelBuffer::new();
        b.extend(std::iter::repeat_n(px, len));
        b
    }

    /// The pixels `px`, copied.
    pub(crate) fn from_slice(px: &[[f32; 4]]) -> PixelBuffer {
        let mut b = PixelBuffer::new();
        b.extend_from_slice(px);
        b
    }

    /// How many pixels it holds without allocating.
    pub(crate) fn capacity(&self) -> usize {
        4 * self.lines.len()
    }

    /// Appends `px`, allocating (and copying the pixels) when it lacks the room.
    pub(crate) fn extend_from_slice(&mut self, px: &[[f32; 4]]) {
        self.reserve(px.len());
        let at = self.len;
        // One copy of the whole slice (a band of an image rendered in several), not a pixel
        // at a time through `extend`.
        for (slot, &p) in self.spare()[at..at + px.len()].iter_mut().zip(px) {
            slot.write(p);
        }
        // The `px.len()` pixels after the first `at` are written: `at + px.len()` are
        // initialised.
        self.len = at + px.len();
    }

    /// Makes room for `additional` more pixels: when it lacks it, new memory of at least twice
    /// the old room, the pixels copied.
    pub(crate) fn reserve(&mut self, additional: usize) {
        let want = self.len + additional;
        if want <= self.capacity() {
            return;
        }
        let mut grown = PixelBuffer::new();
        grown.room(want.max(2 * self.capacity()));
        for (slot, &px) in grown.spare().iter_mut().zip(self.iter()) {
            slot.write(px);
        }
        grown.len = self.len;
        *self = grown;
    }

    /// At least `pixels` of room, in fresh memory when the present memory is shorter; the
    /// pixels are dropped.
    fn room(&mut self, pixels: usize) {
        self.len = 0;
        let lines = pixels.div_ceil(4);
        if self.lines.len() < lines {
            let mut fresh = Vec::with_capacity(lines);
            fresh.resize_with(lines, MaybeUninit::uninit);
            self.lines = fresh;
        }
    }

    /// The room from the first pixel on, initialised or not.
    fn spare(&mut self) -> &mut [MaybeUninit<[f32; 4]>] {
        let room = self.capacity();
        // SAFETY: `lines` holds `room` pixels, four to a line without padding (`Line` is
        // `repr(C)` of 16-byte pixels, 64 bytes in all), and `MaybeUninit<[f32; 4]>` has the
        // layout of `[f32; 4]`; the slice borrows `self` mutably, so nothing else sees it.
        unsafe { std::slice::from_raw_parts_mut(self.lines.as_mut_ptr().cast(), room) }
    }

    /// Room for `len` pixels, reusing this memory when it holds them (its pages touched
    /// already: an image rendered again): the slots to write, the pixels dropped. Once every
    /// slot is written, [`PixelBuffer::set_written`] makes them the pixels.
    pub(super) fn slots(&mut self, len: usize) -> &mut [MaybeUninit<[f32; 4]>] {
        self.room(len);
        &mut self.spare()[..len]
    }

    /// Makes the first `len` slots of the last [`PixelBuffer::slots`] the pixels.
    ///
    /// # Safety
    /// Each of those `len` slots has been written since.
    pub(super) unsafe fn set_written(&mut self, len: usize) {
        debug_assert!(len <= self.capacity());
        self.len = len;
    }
}

impl Default for PixelBuffer {
    fn default() -> PixelBuffer {
        PixelBuffer::new()
    }
}

impl Deref for PixelBuffer {
    type Target = [[f32; 4]];

    fn deref(&self) -> &[[f32; 4]] {
        // SAFETY: the first `len` pixels of `lines` are initialised (the type's invariant),
        // laid out one after another (`Line` is `repr(C)` without padding); the pointer is
        // aligned and not null even for an empty `Vec`.
        unsafe { std::slice::from_raw_parts(self.lines.as_ptr().cast(), self.len) }
    }
}

impl DerefMut for PixelBuffer {
    fn deref_mut(&mut self) -> &mut [[f32; 4]] {
        let len = self.len;
        // SAFETY: as `deref`; the slice borrows `self` mutably.
        unsafe { std::slice::from_raw_parts_mut(self.lines.as_mut_ptr().cast(), len) }
    }
}

impl Extend<[f32; 4]> for PixelBuffer {
    fn extend<I: IntoIterator<Item = [f32; 4]>>(&mut self, px: I) {
        let px = px.into_iter();
        self.reserve(px.size_hint().0);
        for p in px {
            if self.len == self.capacity() {
                self.reserve(1);
            }
            let at = self.len;
            self.spare()[at].write(p);
            // The pixel at `at` is written: the first `at + 1` are initialised.
            self.len = at + 1;
        }
    }
}

impl<'a> Extend<&'a [f32; 4]> for PixelBuffer {
    fn extend<I: IntoIterator<Item = &'a [f32; 4]>>(&mut self, px: I) {
        self.extend(px.into_iter().copied());
    }
}

impl FromIterator<[f32; 4]> for PixelBuffer {
    fn from_iter<I: IntoIterator<Item = [f32; 4]>>(px: I) -> PixelBuffer {
        let mut b = PixelBuffer::new();
        b.extend(px);
        b
    }
}

impl From<Vec<[f32; 4]>> for PixelBuffer {
    fn from(px: Vec<[f32; 4]>) -> PixelBuffer {
        PixelBuffer::from_slice(&px)
    }
}

impl From<&[[f32; 4]]> for PixelBuffer {
    fn from(px: &[[f32; 4]]) -> PixelBuffer {
        PixelBuffer::from_slice(px)
    }
}

impl<'a> IntoIterator for &'a PixelBuffer {
    type Item = &'a [f32; 4];
    type IntoIter = std::slice::Iter<'a, [f32; 4]>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl Clone for PixelBuffer {
    fn clone(&self) -> PixelBuffer {
        PixelBuffer::from_slice(self)
    }
}

impl std::fmt::Debug for PixelBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for PixelBuffer {
    fn eq(&self, other: &PixelBuffer) -> bool {
        **self == **other
    }
}

impl PartialEq<Vec<[f32; 4]>> for PixelBuffer {
    fn eq(&self, other: &Vec<[f32; 4]>) -> bool {
        **self == **other
    }
}

impl PartialEq<[[f32; 4]]> for PixelBuffer {
    fn eq(&self, other: &[[f32; 4]]) -> bool {
        **self == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pixels_start_on_a_cache_line_and_survive_growth() {
        let px: Vec<[f32; 4]> = (0..1001)
            .map(|i| [i as f32, 1.0, 2.0, -(i as f32)])
            .collect();
        let mut b = PixelBuffer::new();
        assert!(b.is_empty());
        for chunk in px.chunks(77) {
            b.extend_from_slice(chunk);
            assert_eq!(b.as_ptr() as usize % 64, 0);
        }
        assert_eq!(b, px);
        assert_eq!(b.clone(), px);
        assert_eq!(PixelBuffer::from(px.clone()), b);
        assert_eq!(PixelBuffer::filled(3, [1.0; 4]), vec![[1.0; 4]; 3]);
        b[5] = [9.0; 4];
        assert_eq!(b[5], [9.0; 4]);
        assert_ne!(b, px);
    }

    #[test]
    fn slots_reuse_memory_that_holds_them() {
        let mut b = PixelBuffer::filled(100, [0.5; 4]);
        let at = b.as_ptr();
        for s in b.slots(40) {
            s.write([2.0; 4]);
        }
        // SAFETY: the loop wrote all 40 slots.
        unsafe { b.set_written(40) };
        assert_eq!(b.as_ptr(), at, "the same memory");
        assert_eq!(b, vec![[2.0; 4]; 40]);
        // More than the room: fresh memory, aligned.
        let n = b.capacity() + 1;
        assert_eq!(b.slots(n).len(), n);
        assert!(b.is_empty(), "the pixels are dropped until written");
        assert_eq!(b.as_ptr() as usize % 64, 0);
    }
}
