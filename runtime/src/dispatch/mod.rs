//! Running a shader over a grid of fragments, a list of vertices or a list of primitives, with
//! any execution engine (the interpreter, the IR evaluator, the JIT): the engine runs batches of
//! [`BATCH_LANES`] invocations through the batch driver ([`crate::batches`]); this module
//! fills their inputs and collects their results.

// Lane and component indices address several parallel arrays at once.
#![allow(clippy::needless_range_loop)]

pub use crate::batches::MAX_THREADS;
use crate::batches::{self, Slots, Workers};
use crate::engine::{
    ALL, Arrangement, BATCH_LANES, BatchIo, Bindings, Columns, Engine, Internal, Reg, RunError,
};
use tgsic::tgsi::*;
use tile::{
    Pixels, SEGMENT_TILES, Segment, TILE_POS, segment_tiles, segments, tile_lanes, write_tile,
};

mod draw;
mod inputs;
mod pixels;
mod tile;

pub use draw::DrawReport;
pub(crate) use draw::draw;

pub use pixels::PixelBuffer;

use inputs::{InputTable, color_register, fragment_inputs, registers};

/// A rendered picture: RGBA f32, row-major, row 0 is j = 0 (the bottom row).
#[derive(Debug, Clone, PartialEq)]
pub struct Picture {
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// The pixels, row by row from the bottom, in memory aligned to a cache line.
    pub pixels: PixelBuffer,
    /// Invocations that ran out of loop iterations.
    pub exhausted: u64,
    /// Pixels discarded.
    pub discarded: u64,
    /// Per pixel, whether its value is unspecified by the IR's semantics (a derivative taken
    /// where only part of its quad was active; `docs/ir.md`). Empty when no pixel is.
    pub unspecified: Vec<bool>,
}

impl Picture {
    /// The pixel at column i, row j (j = 0 at the bottom).
    pub fn pixel(&self, i: u32, j: u32) -> [f32; 4] {
        self.pixels[(j * self.width + i) as usize]
    }

    /// Whether pixel (i, j) is unspecified (see [`Picture::unspecified`]).
    pub fn is_unspecified(&self, i: u32, j: u32) -> bool {
        self.unspecified
            .get((j * self.width + i) as usize)
            .copied()
            .unwrap_or(false)
    }
}

/// Vertex or geometry results for one invocation.
#[derive(Debug, Clone, PartialEq)]
pub struct Invocation {
    /// OUT registers (bits) at the end (vertex shaders).
    pub outputs: Vec<[u32; 4]>,
    /// What EMIT and ENDPRIM produced (geometry shaders): `Some(outputs)` per vertex, `None`
    /// for a primitive end.
    pub emitted: Vec<Option<Vec<[u32; 4]>>>,
    /// Whether it ran out of loop iterations.
    pub exhausted: bool,
}

fn clear(regs: &mut [Reg]) {
    for r in regs {
        *r = [[0; BATCH_LANES]; 4];
    }
}

/// Who hears of a long run's progress, and when it must stop: the one control every run of a
/// [`crate::host::Compiled`] shader takes.
#[derive(Clone, Copy, Default)]
pub struct RunControl<'a> {
    /// Called with (batches done, batches in all) as the run goes (from any worker thread).
    pub progress: Option<&'a (dyn Fn(u64, u64) + Sync)>,
    /// When set, the run ends with [`RunError::TimeLimit`] once this instant has passed: the
    /// clock is read before a thread's every 16th fragment tile of a row of tiles (reading it
    /// costs as much as shading a simple tile) and before each other batch, so after the
    /// instant a thread starts at most 15 more batches. Each batch is bounded by the loop
    /// budget ([`Bindings::max_iterations`]), so together they bound the whole run.
    pub deadline: Option<std::time::Instant>,
}

impl std::fmt::Debug for RunControl<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunControl")
            .field("progress", &self.progress.is_some())
            .field("deadline", &self.deadline)
            .finish()
    }
}

/// How a run is spread over threads (a host runtime's pool, or threads started for it), and
/// its [`RunControl`].
#[derive(Clone, Copy, Default, Debug)]
pub(crate) struct RunOptions<'a> {
    /// Worker threads started for this run when there is no `pool`: 0 uses every core, 1
    /// runs on the calling thread, at most [`MAX_THREADS`]. Results do not depend on it:
    /// batches are independent.
    pub(crate) threads: usize,
    /// Worker threads to run on (a host runtime's); `threads` is then ignored.
    pub(crate) pool: Option<&'a rayon::ThreadPool>,
    /// Progress and deadline.
    pub(crate) control: RunControl<'a>,
}

impl<'a> RunOptions<'a> {
    /// The workers these options ask for, for `pieces` pieces of work (started into
    /// `started` when no pool is given).
    fn workers(
        &self,
        pieces: usize,
        started: &'a mut Option<rayon::ThreadPool>,
    ) -> Result<Workers<'a>, RunError> {
        match self.pool {
            Some(p) => Ok(Workers::of(Some(p))),
            None => Workers::start(self.threads, pieces, started),
        }
    }
}

/// What one segment of tiles counted.
#[derive(Default)]
struct SegmentReport {
    discarded: u64,
    exhausted: u64,
    /// Pixels written.
    written: usize,
    /// Pixels (indices in the band) whose values are unspecified.
    unspecified: Vec<usize>,
}

/// Renders a fragment shader over a W × H grid on one thread; returns OUT with semantic
/// `COLOR[output]`. Discarded pixels keep `bind.clear`; a component never written is 0.
///
/// # Errors
/// [`RunError`] when the shader is not a fragment shader, a bound resource is missing, or an
/// instruction cannot be executed.
#[cfg(test)]
pub(crate) fn render<E: Engine + Sync + ?Sized>(
    engine: &E,
    bind: &Bindings,
    width: u32,
    height: u32,
    output: u32,
) -> Result<Picture, RunError>
where
    E::Scratch: Send,
{
    render_with(
        engine,
        bind,
        width,
        height,
        output,
        &RunOptions {
            threads: 1,
            ..RunOptions::default()
        },
    )
}

/// One band of rendered rows: rows `y0 .. y0 + rows` of the image, bottom row first, `width`
/// pixels each.
#[derive(Debug, Clone)]
pub struct Band {
    /// The first row (0 is the bottom of the image).
    pub y0: u32,
    /// How many rows.
    pub rows: u32,
    /// Pixels per row.
    pub width: u32,
    /// `rows × width` pixels, row by row from `y0` up.
    pub pixels: PixelBuffer,
    /// Per pixel, whether its value is unspecified ([`Picture::unspecified`]); empty when none is.
    pub unspecified: Vec<bool>,
}

impl Band {
    /// Row `y` of the image (`y0 <= y < y0 + rows`).
    pub fn row(&self, y: u32) -> &[[f32; 4]] {
        let k = ((y - self.y0) * self.width) as usize;
        &self.pixels[k..k + self.width as usize]
    }
}

/// The order in which a banded render ([`crate::host::Compiled::render_bands`]) hands out its
/// bands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BandOrder {
    /// From the bottom row up (the order of `.f32` images and [`Picture::pixels`]).
    BottomUp,
    /// From the top row down (the order of PNG rows).
    TopDown,
}

/// What a whole render counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct RenderReport {
    /// Invocations that ran out of loop iterations.
    pub exhausted: u64,
    /// Pixels discarded.
    pub discarded: u64,
}

/// Rows per band that a render into one picture uses for an image `width` pixels wide: about 2^20 pixels
/// (16 MiB of pixels) per band, a multiple of the 8-row tiles.
pub fn band_rows_for(width: u32) -> u32 {
    ((1u32 << 20) / width.max(1)).max(8) / 8 * 8
}

/// [`render`] with threads and progress ([`RunOptions`]); the image is the same for any
/// number of threads.
///
/// # Errors
/// As [`render`].
pub(crate) fn render_with<E: Engine + Sync + ?Sized>(
    engine: &E,
    bind: &Bindings,
    width: u32,
    height: u32,
    output: u32,
    opts: &RunOptions<'_>,
) -> Result<Picture, RunError>
where
    E::Scratch: Send,
{
    let mut image = Picture {
        width,
        height,
        pixels: PixelBuffer::new(),
        exhausted: 0,
        discarded: 0,
        unspecified: Vec::new(),
    };
    render_into(engine, bind, output, opts, &mut image)?;
    Ok(image)
}

/// As [`render_with`], into `image` (its `width` and `height` say the grid): its pixels'
/// memory is reused, so that a host rendering frame after frame into one image allocates
/// (and touches fresh pages of) nothing per frame.
///
/// # Errors
/// As [`render`].
pub(crate) fn render_into<E: Engine + Sync + ?Sized>(
    engine: &E,
    bind: &Bindings,
    output: u32,
    opts: &RunOptions<'_>,
    image: &mut Picture,
) -> Result<(), RunError>
where
    E::Scratch: Send,
{
    let (width, height) = (image.width, image.height);
    let spare = std::mem::take(&mut image.pixels);
    image.unspecified.clear();
    let band_rows = band_rows_for(width);
    let report = render_rows_in(
        engine,
        bind,
        (width, height),
        output,
        opts,
        (band_rows, BandOrder::BottomUp),
        spare,
        &mut |band| {
            if !band.unspecified.is_empty() && image.unspecified.is_empty() {
                image.unspecified = vec![false; image.pixels.len()];
            }
            if !image.unspecified.is_empty() {
                if band.unspecified.is_empty() {
                    image
                        .unspecified
                        .extend(std::iter::repeat_n(false, band.pixels.len()));
                } else {
                    image.unspecified.extend(&band.unspecified);
                }
            }
            if image.pixels.is_empty() {
                image.pixels = band.pixels;
            } else {
                image.pixels.extend_from_slice(&band.pixels);
            }
            Ok(())
        },
    )?;
    image.exhausted = report.exhausted;
    image.discarded = report.discarded;
    Ok(())
}

/// Renders a fragment shader band by band: `sink` receives each band of `bands.0` rows (the
/// last may be shorter) in the order `bands.1` asks for, so that an image of any size is
/// rendered and written in memory proportional to its width. The pixels are those of
/// [`render_with`].
///
/// # Errors
/// As [`render`], and whatever `sink` returns (which stops the render).
pub(crate) fn render_rows<E: Engine + Sync + ?Sized>(
    engine: &E,
    bind: &Bindings,
    size: (u32, u32),
    output: u32,
    opts: &RunOptions<'_>,
    bands: (u32, BandOrder),
    sink: &mut dyn FnMut(Band) -> Result<(), RunError>,
) -> Result<RenderReport, RunError>
where
    E::Scratch: Send,
{
    render_rows_in(
        engine,
        bind,
        size,
        output,
        opts,
        bands,
        PixelBuffer::new(),
        sink,
    )
}

/// As [`render_rows`], the first band written into `spare`'s memory when it has room.
#[allow(clippy::too_many_arguments)]
fn render_rows_in<E: Engine + Sync + ?Sized>(
    engine: &E,
    bind: &Bindings,
    (width, height): (u32, u32),
    output: u32,
    opts: &RunOptions<'_>,
    (band_rows, order): (u32, BandOrder),
    mut spare: PixelBuffer,
    sink: &mut dyn FnMut(Band) -> Result<(), RunError>,
) -> Result<RenderReport, RunError>
where
    E::Scratch: Send,
{
    if band_rows == 0 || band_rows % 8 != 0 {
        return Err(RunError::BandRows(band_rows));
    }
    let shader = engine.module();
    let p = &shader.program;
    if p.processor != Processor::Fragment {
        return Err(RunError::Processor {
            call: "render",
            needs: Processor::Fragment,
            got: p.processor,
        });
    }
    let out_reg = color_register(p, output);
    // Per input declaration: its file, its registers and how its value follows from (i, j).
    let decls: Vec<(File, Vec<u32>, InputTable)> = fragment_inputs(p)
        .into_iter()
        .map(|(file, regs, input)| (file, regs, InputTable::new(input, (width, height))))
        .collect();
    let tiles_x = width.div_ceil(8);
    // Component x of the inputs per tile column, once for the render, for an engine that reads
    // it from there: then a tile writes none of its inputs. Copying them into each tile's batch
    // cost more than the copy's share of a profile (likely the code's loads waiting for those
    // stores, behind the previous tile's pixels; not profiled further; docs/jit.md, "Fragment
    // batches"). Not for a shader that indexes IN, whose indexed reads see `inputs`, nor for
    // one without IN registers, which reads none (a table of no registers has no columns).
    let indexes_inputs = p.instructions.iter().any(|i| {
        i.src
            .iter()
            .any(|s| s.register.file == File::Input && s.register.is_indirect())
    });
    let columns =
        (engine.reads_columns() && !indexes_inputs && shader.size(File::Input) > 0).then(|| {
            let mut reg = [[0; BATCH_LANES]; 4];
            std::sync::Arc::new(Columns::new(
                shader.size(File::Input),
                tiles_x as usize,
                |r, c| {
                    let (_, _, table) = decls
                        .iter()
                        .find(|(f, regs, _)| *f == File::Input && regs.contains(&(r as u32)))?;
                    table.fill_column(8 * c as u32, &mut reg);
                    Some(reg[0])
                },
            ))
        });
    // The declarations a tile fills component x of: none with the columns but SV's.
    let per_tile: Vec<&(File, Vec<u32>, InputTable)> = decls
        .iter()
        .filter(|(file, _, _)| !(columns.is_some() && *file == File::Input))
        .collect();
    let bands = height.div_ceil(band_rows);
    let all_tiles = (tiles_x * height.div_ceil(8)) as u64;
    let tiles_done = std::sync::atomic::AtomicU64::new(0);
    let mut exhausted = 0u64;
    let mut discarded = 0u64;
    // The worker threads, started once for every band, and their working memory: no more
    // threads than the most segments a band can be cut into.
    let mut started = None;
    let segments_per_band = band_rows.div_ceil(8) * width.div_ceil(8 * SEGMENT_TILES);
    let workers = opts.workers(segments_per_band as usize, &mut started)?;
    let seg_tiles = segment_tiles(
        tiles_x,
        band_rows.min(height).div_ceil(8),
        workers.threads(),
    );
    // One segment of tiles: its batches run one after the other, each writing its pixels.
    let segment = |io: &mut BatchIo,
                   scratch: &mut E::Scratch,
                   y0: u32,
                   seg: Segment<'_>|
     -> Result<SegmentReport, RunError> {
        let mut rep = SegmentReport::default();
        let (ty, tx0) = (seg.ty, seg.tx0);
        let mut rows = seg.rows;
        let tiles = (width - tx0).div_ceil(8).min(seg_tiles);
        io.columns.clone_from(&columns);
        for (file, regs, table) in &decls {
            if let Some((&first, rest)) = regs.split_first() {
                let store = registers(io, *file);
                table.fill_row(ty, &mut store[first as usize]);
                // With the columns the tiles copy nothing: the row's values go to every
                // register of the declaration now.
                if columns.is_some() && *file == File::Input {
                    for &r in rest {
                        store[r as usize] = store[first as usize];
                    }
                }
            }
        }
        // The tiles' batches in one run: the engine does what depends on `bind` alone once.
        let mut filled = 0;
        engine.run_batches(bind, io, scratch, &mut |io, report| {
            if let Some(report) = report {
                let tx = tx0 + 8 * (filled - 1);
                let shown = io.alive & !io.helpers;
                // Counted only when there is something to count (`count_ones` is a dozen
                // instructions without POPCNT, x86-64's baseline).
                if (report.killed | report.exhausted) & shown != 0 {
                    rep.discarded += (report.killed & shown).count_ones() as u64;
                    rep.exhausted += (report.exhausted & shown).count_ones() as u64;
                }
                // The tile's pixels (its last rows and columns may lie outside).
                let out = out_reg.map(|o| &io.outputs[o]);
                let (at, cols) = ((tx - tx0) as usize, (width - tx).min(8) as usize);
                rep.written += write_tile(&mut rows, (at, cols), out, report.killed, bind.clear);
                if report.unspecified & shown != 0 {
                    for (l, &(dx, dy)) in TILE_POS.iter().enumerate() {
                        if report.unspecified & shown & (1 << l) != 0 {
                            rep.unspecified
                                .push(((ty - y0 + dy) * width + tx + dx) as usize);
                        }
                    }
                }
            }
            if filled == tiles {
                return Ok(false);
            }
            // The clock every 16th tile: reading it costs as much as a simple tile's shading.
            if filled % 16 == 0
                && opts
                    .control
                    .deadline
                    .is_some_and(|d| std::time::Instant::now() > d)
            {
                return Err(RunError::TimeLimit);
            }
            let tx = tx0 + 8 * filled;
            filled += 1;
            // Every tile of a segment holds a pixel of the grid, so `alive` is never 0.
            (io.alive, io.helpers) = tile_lanes(tx, ty, width, height);
            io.column = tx / 8;
            for &(file, regs, table) in &per_tile {
                let store = registers(io, *file);
                let Some((&first, rest)) = regs.split_first() else {
                    continue;
                };
                table.fill_column(tx, &mut store[first as usize]);
                for &r in rest {
                    store[r as usize] = store[first as usize];
                }
            }
            Ok(true)
        })?;
        if let Some(p) = opts.control.progress {
            let n = u64::from(tiles * (ty + 8).min(height).saturating_sub(ty).div_ceil(8));
            let d = tiles_done.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
            p(d + n, all_tiles);
        }
        Ok(rep)
    };
    let slots = Slots::default();
    for n in 0..bands {
        let band = match order {
            BandOrder::BottomUp => n,
            BandOrder::TopDown => bands - 1 - n,
        };
        let y0 = band * band_rows;
        let rows = band_rows.min(height - y0);
        let len = (width * rows) as usize;
        // Not cleared: the segments write every pixel once (`Pixels`).
        let mut pixels = Pixels::reuse(std::mem::take(&mut spare), len);
        let segs = segments(pixels.slots(), width, y0, seg_tiles);
        let reports = batches::run(
            engine,
            Arrangement::Quads,
            &slots,
            workers,
            segs,
            |io, scratch, seg| segment(io, scratch, y0, seg),
        )?;
        let written = reports.iter().map(|r| r.written).sum();
        let pixels = pixels
            .finish(written)
            .ok_or(RunError::Internal(Internal::BandPixels { written, len }))?;
        let mut out = Band {
            y0,
            rows,
            width,
            pixels,
            unspecified: Vec::new(),
        };
        for rep in reports {
            discarded += rep.discarded;
            exhausted += rep.exhausted;
            for at in rep.unspecified {
                if out.unspecified.is_empty() {
                    out.unspecified = vec![false; out.pixels.len()];
                }
                out.unspecified[at] = true;
            }
        }
        sink(out)?;
    }
    Ok(RenderReport {
        exhausted,
        discarded,
    })
}
/// Runs a vertex shader once per vertex: `vertices[v][r]` is input register r of vertex v.
/// System values: VERTEXID and VERTEXID_NOBASE are the vertex index, INSTANCEID 0.
///
/// # Errors
/// As [`render`].
pub(crate) fn run_vertices<E: Engine + Sync + ?Sized>(
    engine: &E,
    bind: &Bindings,
    vertices: &[Vec<[u32; 4]>],
    opts: &RunOptions<'_>,
) -> Result<Vec<Invocation>, RunError>
where
    E::Scratch: Send,
{
    let p = &engine.module().program;
    if p.processor != Processor::Vertex {
        return Err(RunError::Processor {
            call: "run_vertex_list",
            needs: Processor::Vertex,
            got: p.processor,
        });
    }
    run_independent(engine, bind, vertices.len(), opts, |io, l, k| {
        for (r, v) in vertices[k].iter().enumerate().take(io.inputs.len()) {
            for c in 0..4 {
                io.inputs[r][c][l] = v[c];
            }
        }
    })
}

/// Runs a geometry shader once per primitive: `primitives[p][v][r]` is input register r of
/// vertex v. PRIM_ID is the primitive index, INVOCATIONID 0.
///
/// # Errors
/// As [`render`].
pub(crate) fn run_geometry<E: Engine + Sync + ?Sized>(
    engine: &E,
    bind: &Bindings,
    primitives: &[Vec<Vec<[u32; 4]>>],
    opts: &RunOptions<'_>,
) -> Result<Vec<Invocation>, RunError>
where
    E::Scratch: Send,
{
    let shader = engine.module();
    if shader.program.processor != Processor::Geometry {
        return Err(RunError::Processor {
            call: "run_primitive_list",
            needs: Processor::Geometry,
            got: shader.program.processor,
        });
    }
    let per = shader.size(File::Input);
    let verts = shader.gs_vertices as usize;
    run_independent(engine, bind, primitives.len(), opts, |io, l, k| {
        for (v, vert) in primitives[k].iter().enumerate().take(verts) {
            for (r, val) in vert.iter().enumerate().take(per) {
                for c in 0..4 {
                    io.inputs[v * per + r][c][l] = val[c];
                }
            }
        }
    })
}

fn run_independent<E: Engine + Sync + ?Sized>(
    engine: &E,
    bind: &Bindings,
    n: usize,
    opts: &RunOptions<'_>,
    fill: impl Fn(&mut BatchIo, usize, usize) + Sync,
) -> Result<Vec<Invocation>, RunError>
where
    E::Scratch: Send,
{
    let p = &engine.module().program;
    let batches = n.div_ceil(BATCH_LANES);
    let mut started = None;
    let workers = opts.workers(batches, &mut started)?;
    let (per_run, runs) = batches::runs(batches, workers);
    let done = std::sync::atomic::AtomicU64::new(0);
    // The system values each batch sets: VERTEXID, VERTEXID_NOBASE and PRIMID are the
    // invocation's index, the others 0.
    let sv: Vec<(u32, bool)> = p
        .declarations_of(File::SystemValue)
        .flat_map(|d| {
            let index = matches!(
                d.semantic.map(|s| s.name),
                Some(Semantic::VertexId | Semantic::VertexIdNoBase | Semantic::PrimId)
            );
            d.ranges
                .iter()
                .flat_map(|r| r.first..=r.last)
                .map(move |r| (r, index))
        })
        .collect();
    let results = batches::run(
        engine,
        Arrangement::Independent,
        &Slots::default(),
        workers,
        (0..runs).collect(),
        |io, scratch, k| {
            let (first, end) = (k * per_run, ((k + 1) * per_run).min(batches));
            let mut out = Vec::with_capacity((end - first) * BATCH_LANES);
            let mut next = first;
            engine.run_batches(bind, io, scratch, &mut |io, report| {
                if let Some(report) = report {
                    let (_, count) = batches::batch_lanes(n, next - 1);
                    for l in 0..count {
                        out.push(Invocation {
                            outputs: io
                                .outputs
                                .iter()
                                .map(|r| [r[0][l], r[1][l], r[2][l], r[3][l]])
                                .collect(),
                            emitted: report
                                .emitted
                                .iter()
                                .filter(|e| e.lane == l)
                                .map(|e| e.outputs.clone())
                                .collect(),
                            exhausted: report.exhausted & (1 << l) != 0,
                        });
                    }
                    if let Some(p) = opts.control.progress {
                        let d = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                        p(d, batches as u64);
                    }
                }
                if next == end {
                    return Ok(false);
                }
                if opts
                    .control
                    .deadline
                    .is_some_and(|d| std::time::Instant::now() > d)
                {
                    return Err(RunError::TimeLimit);
                }
                let (start, count) = batches::batch_lanes(n, next);
                next += 1;
                io.alive = if count == BATCH_LANES {
                    ALL
                } else {
                    (1u64 << count) - 1
                };
                io.helpers = 0;
                clear(&mut io.inputs);
                clear(&mut io.sv);
                for l in 0..count {
                    fill(io, l, start + l);
                }
                for &(r, index) in &sv {
                    if !index {
                        continue;
                    }
                    for l in 0..count {
                        let k = (start + l) as u32;
                        for c in 0..4 {
                            io.sv[r as usize][c][l] = k;
                        }
                    }
                }
                Ok(true)
            })?;
            Ok(out)
        },
    )?;
    Ok(results.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests;
