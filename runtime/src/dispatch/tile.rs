//! Fragment tiles: where each lane of a batch sits in its 8 × 8 tile, the segments of tiles a
//! thread renders at a time, and the writing of a tile's pixels into a band of the image.
//!
//! A band's memory is not cleared before the render: every segment writes each of its pixels
//! once ([`write_tile`] counts them), and the band becomes initialised only when the counts
//! add up to its length ([`Pixels::finish`]).

use super::pixels::PixelBuffer;
use crate::engine::{ALL, BATCH_LANES, Mask, Reg};
use std::mem::MaybeUninit;

/// Where lane `l` of a fragment batch sits in its 8 × 8 tile ([`Arrangement::Quads`]): lanes
/// 4q..4q+3 are quad q, four quads to a row of quads, the upper row of a quad first.
///
/// [`Arrangement::Quads`]: crate::engine::Arrangement::Quads
pub(super) const TILE_POS: [(u32, u32); BATCH_LANES] = {
    let mut t = [(0, 0); BATCH_LANES];
    let mut l = 0;
    while l < BATCH_LANES {
        let (q, k) = (l / 4, l % 4);
        t[l] = (
            2 * (q as u32 % 4) + (k as u32 & 1),
            2 * (q as u32 / 4) + if k < 2 { 1 } else { 0 },
        );
        l += 1;
    }
    t
};

/// The lane of each pixel of a tile, by row and column ([`TILE_POS`] inverted).
const TILE_LANES: [[usize; 8]; 8] = {
    let mut t = [[0; 8]; 8];
    let mut l = 0;
    while l < BATCH_LANES {
        let (dx, dy) = TILE_POS[l];
        t[dy as usize][dx as usize] = l;
        l += 1;
    }
    t
};

/// The lanes of the tile at (tx, ty) that hold a pixel of the `width` × `height` grid or share
/// a quad with one, and of those the helpers (outside the grid, computed for derivatives).
/// Inlined for the inner tiles, which take every lane; the edge tiles' work is a call.
#[inline]
pub(super) fn tile_lanes(tx: u32, ty: u32, width: u32, height: u32) -> (Mask, Mask) {
    if tx + 8 <= width && ty + 8 <= height {
        return (ALL, 0);
    }
    edge_lanes(tx, ty, width, height)
}

/// [`tile_lanes`] of a tile that reaches past the grid's right or top edge.
#[inline(never)]
fn edge_lanes(tx: u32, ty: u32, width: u32, height: u32) -> (Mask, Mask) {
    let inside = |l: usize| {
        let (dx, dy) = TILE_POS[l];
        tx + dx < width && ty + dy < height
    };
    let (mut alive, mut helpers): (Mask, Mask) = (0, 0);
    for q in 0..BATCH_LANES / 4 {
        if (0..4).any(|k| inside(4 * q + k)) {
            for k in 0..4 {
                alive |= 1 << (4 * q + k);
                if !inside(4 * q + k) {
                    helpers |= 1 << (4 * q + k);
                }
            }
        }
    }
    (alive, helpers)
}

/// A pixel of a band, not yet written.
pub(super) type Slot = MaybeUninit<[f32; 4]>;

/// The memory of a band of `len` pixels, written by the segments before it is read.
pub(super) struct Pixels {
    mem: PixelBuffer,
    len: usize,
}

impl Pixels {
    /// Room for `len` pixels in `mem`'s memory when it has it (its pages already touched: a
    /// host's image rendered again), else fresh memory; not initialised.
    pub(super) fn reuse(mem: PixelBuffer, len: usize) -> Pixels {
        Pixels { mem, len }
    }

    /// The pixels' memory, to be cut into segments.
    pub(super) fn slots(&mut self) -> &mut [Slot] {
        self.mem.slots(self.len)
    }

    /// The pixels, once `written` (the sum of the segments' counts, each pixel written at most
    /// once) covers all of them; `None` otherwise.
    pub(super) fn finish(mut self, written: usize) -> Option<PixelBuffer> {
        if written != self.len {
            return None;
        }
        // SAFETY: the segments are disjoint pieces of `slots()` and write each of their
        // pixels at most once, counting it; `len` writes therefore initialised all `len`.
        unsafe { self.mem.set_written(self.len) };
        Some(self.mem)
    }
}

/// Tiles per [`Segment`] at least when rows of tiles are cut for several threads (the row's
/// last piece may be shorter).
pub(super) const SEGMENT_TILES: u32 = 32;

/// Tiles per [`Segment`] for a band of `tile_rows` rows of `tiles_x` tiles run by `threads`
/// threads: a whole row of tiles while the band's rows give each thread four segments (each
/// segment costs a setup: its rows, its working memory, the engine's preparation of a run of
/// batches, which measured a noticeable share of a trivial shader's frame), else rows cut
/// into pieces of [`SEGMENT_TILES`] or more, so that narrow bands of wide images still give
/// every thread work.
pub(super) fn segment_tiles(tiles_x: u32, tile_rows: u32, threads: usize) -> u32 {
    let tiles_x = tiles_x.max(1);
    if threads <= 1 {
        return tiles_x;
    }
    let pieces_per_row = (4 * threads as u32).div_ceil(tile_rows.max(1));
    tiles_x
        .div_ceil(pieces_per_row)
        .max(SEGMENT_TILES)
        .min(tiles_x)
}

/// A run of tiles of one row of tiles, with the pixels they write: the work of one thread at a
/// time.
pub(super) struct Segment<'a> {
    /// The tiles' bottom row (in the image) and first column.
    pub ty: u32,
    pub tx0: u32,
    /// The 8 pixel rows of the segment, bottom first (those beyond the band are absent).
    pub rows: Vec<&'a mut [Slot]>,
}

/// `pixels` (a band of `width`-pixel rows from image row `y0`) cut into segments of
/// `seg_tiles` tiles (the last of a row may be shorter).
pub(super) fn segments(
    pixels: &mut [Slot],
    width: u32,
    y0: u32,
    seg_tiles: u32,
) -> Vec<Segment<'_>> {
    let seg_tiles = seg_tiles.max(1);
    let seg_px = (8 * seg_tiles) as usize;
    let mut out = Vec::new();
    for (k, tile_row) in pixels.chunks_mut(8 * width as usize).enumerate() {
        let first = out.len();
        for (dy, row) in tile_row.chunks_mut(width as usize).enumerate() {
            for (s, piece) in row.chunks_mut(seg_px).enumerate() {
                if dy == 0 {
                    out.push(Segment {
                        ty: y0 + 8 * k as u32,
                        tx0: s as u32 * 8 * seg_tiles,
                        rows: Vec::with_capacity(8),
                    });
                }
                out[first + s].rows.push(piece);
            }
        }
    }
    out
}

/// Writes the pixels of a tile: `cols` columns from `at` in each of `rows` (bottom first),
/// each the output register `out` of its lane (zero without one), or `clear` where the lane
/// was `killed`. Returns how many pixels it wrote.
pub(super) fn write_tile(
    rows: &mut [&mut [Slot]],
    (at, cols): (usize, usize),
    out: Option<&Reg>,
    killed: Mask,
    clear: [f32; 4],
) -> usize {
    if let (Some(o), 8, 8, 0) = (out, rows.len(), cols, killed) {
        // A whole tile without discards, a row of quads at a time: quad q's lanes are the
        // words 4q..4q+3 of each component, its pixels two pairs in two rows, the upper first.
        // (Two pixels a store, with AVX, were slower when the image began 16 bytes past a
        // cache line: half of the 32-byte stores crossed one. A `PixelBuffer` is aligned.)
        for (qr, pair) in rows.chunks_exact_mut(2).enumerate() {
            let [lower, upper] = pair else { continue };
            let (lower, upper) = (&mut lower[at..at + 8], &mut upper[at..at + 8]);
            for qc in 0..4 {
                let [p0, p1, p2, p3] = quad_pixels(o, 16 * qr + 4 * qc);
                upper[2 * qc].write(p0);
                upper[2 * qc + 1].write(p1);
                lower[2 * qc].write(p2);
                lower[2 * qc + 1].write(p3);
            }
        }
        return BATCH_LANES;
    }
    let mut written = 0;
    for (row, lanes) in rows.iter_mut().zip(&TILE_LANES) {
        for (px, &l) in row[at..at + cols].iter_mut().zip(lanes) {
            px.write(match out {
                _ if killed & (1 << l) != 0 => clear,
                Some(o) => [0, 1, 2, 3].map(|c| f32::from_bits(o[c][l])),
                None => [0.0; 4],
            });
            written += 1;
        }
    }
    written
}

/// The pixels of lanes `l .. l + 4` of `o` (`l` a multiple of 4): a 4 × 4 transpose.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn quad_pixels(o: &Reg, l: usize) -> [[f32; 4]; 4] {
    use std::arch::x86_64::*;
    let w: [&[u32; 4]; 4] =
        std::array::from_fn(|c| o[c][l..l + 4].try_into().expect("a quad's four lanes"));
    // SAFETY: SSE is part of x86-64's baseline; the loads read the 16 bytes of each `w[c]`.
    let px = unsafe {
        let [r, g, b, a] = w.map(|w| _mm_loadu_ps(w.as_ptr().cast()));
        let (rg01, ba01) = (_mm_unpacklo_ps(r, g), _mm_unpacklo_ps(b, a));
        let (rg23, ba23) = (_mm_unpackhi_ps(r, g), _mm_unpackhi_ps(b, a));
        [
            _mm_movelh_ps(rg01, ba01),
            _mm_movehl_ps(ba01, rg01),
            _mm_movelh_ps(rg23, ba23),
            _mm_movehl_ps(ba23, rg23),
        ]
    };
    px.map(|p| {
        let mut out = [0.0f32; 4];
        // SAFETY: an unaligned write of the 16 bytes of `out`.
        unsafe { _mm_storeu_ps(out.as_mut_ptr(), p) };
        out
    })
}

/// The pixels of lanes `l .. l + 4` of `o`.
#[cfg(not(target_arch = "x86_64"))]
fn quad_pixels(o: &Reg, l: usize) -> [[f32; 4]; 4] {
    std::array::from_fn(|k| [0, 1, 2, 3].map(|c| f32::from_bits(o[c][l + k])))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_of_tiles_are_cut_only_to_give_threads_work() {
        // One thread: whole rows. Many rows: whole rows for two threads too.
        assert_eq!(segment_tiles(128, 128, 1), 128);
        assert_eq!(segment_tiles(128, 128, 2), 128);
        // Two rows of 67 tiles for two threads: four pieces a row wanted, 32 tiles at least.
        assert_eq!(segment_tiles(67, 2, 2), 32);
        // Eight threads, one row of 1000 tiles: 32 pieces of 32 tiles (the last shorter).
        assert_eq!(segment_tiles(1000, 1, 8), 32);
        assert_eq!(segment_tiles(4000, 1, 8), 125);
        // A row narrower than a piece stays whole.
        assert_eq!(segment_tiles(5, 1, 8), 5);
    }

    #[test]
    fn whole_and_partial_tiles_write_each_lane_to_its_pixel() {
        // Lane l, component c holds 100·l + c; lanes 5 and 62 are killed in the second run.
        let mut o: Reg = [[0; BATCH_LANES]; 4];
        for l in 0..BATCH_LANES {
            for c in 0..4 {
                o[c][l] = (100.0 * l as f32 + c as f32).to_bits();
            }
        }
        let clear = [-7.0; 4];
        for (killed, cols, nrows) in [(0, 8, 8), ((1 << 5) | (1 << 62), 8, 8), (0, 5, 3)] {
            let mut mem = vec![Slot::uninit(); 2 + 8 * 10];
            let mut rows: Vec<&mut [Slot]> = mem.chunks_mut(10).take(nrows).collect();
            let n = write_tile(&mut rows, (2, cols), Some(&o), killed, clear);
            assert_eq!(n, cols * nrows);
            for (dy, row) in rows.iter().enumerate() {
                for dx in 0..cols {
                    let l = TILE_LANES[dy][dx];
                    // SAFETY: written above (the count says so).
                    let px = unsafe { row[2 + dx].assume_init() };
                    let want = if killed & (1 << l) != 0 {
                        clear
                    } else {
                        [0, 1, 2, 3].map(|c| 100.0 * l as f32 + c as f32)
                    };
                    assert_eq!(px, want, "pixel ({dx}, {dy}), killed {killed:#x}");
                    assert_eq!(TILE_POS[l], (dx as u32, dy as u32));
                }
            }
        }
    }
}
