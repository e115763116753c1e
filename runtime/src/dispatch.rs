//! Running a shader over a grid of fragments, a list of vertices or a list of primitives, with
//! any execution engine (the interpreter, the IR evaluator, the JIT): the engine runs batches of
//! [`BATCH_LANES`] invocations; this module fills their inputs and collects their results.

// Lane and component indices address several parallel arrays at once.
#![allow(clippy::needless_range_loop)]

use crate::engine::{ALL, Arrangement, BATCH_LANES, BatchIo, Bindings, Engine, Reg, RunError};
use tgsic::tgsi::*;
use tile::{Pixels, SEGMENT_TILES, Segment, TILE_POS, segments, tile_lanes, write_tile};

mod tile;

/// A rendered image: RGBA f32, row-major, row 0 is j = 0 (the bottom row).
#[derive(Debug, Clone, PartialEq)]
pub struct Image {
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// Pixels.
    pub pixels: Vec<[f32; 4]>,
    /// Invocations that ran out of loop iterations.
    pub exhausted: u64,
    /// Pixels discarded.
    pub discarded: u64,
    /// Per pixel, whether its value is unspecified by the IR's semantics (a derivative taken
    /// where only part of its quad was active; `docs/ir.md`). Empty when no pixel is.
    pub unspecified: Vec<bool>,
}

impl Image {
    /// The pixel at column i, row j (j = 0 at the bottom).
    pub fn pixel(&self, i: u32, j: u32) -> [f32; 4] {
        self.pixels[(j * self.width + i) as usize]
    }

    /// Whether pixel (i, j) is unspecified (see [`Image::unspecified`]).
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

fn bits(v: [f32; 4]) -> [u32; 4] {
    v.map(f32::to_bits)
}

/// How a fragment input register's value follows from its pixel (DECISIONS.md §4).
#[derive(Debug, Clone, Copy)]
enum FragInput {
    /// `(i + 0.5 - d, h - (j + 0.5) - d, 0.5, 1)`, `d` = 0.5 for integer pixel centres.
    Position { d: f32 },
    /// The same value at every pixel.
    Fixed([u32; 4]),
    /// `((i + 0.5) / w, (j + 0.5) / h, 0, 1)`.
    Generic,
}

impl FragInput {
    fn new(sem: Option<SemanticDecl>, integer_center: bool) -> FragInput {
        match sem.map(|s| s.name) {
            Some(Semantic::Position) => FragInput::Position {
                d: if integer_center { 0.5 } else { 0.0 },
            },
            Some(Semantic::Face) => FragInput::Fixed(bits([1.0, 0.0, 0.0, 1.0])),
            Some(Semantic::SampleId) => FragInput::Fixed([0; 4]),
            Some(Semantic::SamplePos) => FragInput::Fixed(bits([0.5, 0.5, 0.0, 0.0])),
            Some(Semantic::SampleMask) => FragInput::Fixed([1, 0, 0, 0]),
            _ => FragInput::Generic,
        }
    }

    /// The value at pixel (i, j) of a `w` × `h` grid.
    fn at(self, i: u32, j: u32, w: u32, h: u32) -> [u32; 4] {
        match self {
            FragInput::Position { d } => bits([
                i as f32 + 0.5 - d,
                h as f32 - (j as f32 + 0.5) - d,
                0.5,
                1.0,
            ]),
            FragInput::Fixed(v) => v,
            FragInput::Generic => bits([
                (i as f32 + 0.5) / w as f32,
                (j as f32 + 0.5) / h as f32,
                0.0,
                1.0,
            ]),
        }
    }
}

/// The input or system-value registers of a batch.
fn registers(io: &mut BatchIo, file: File) -> &mut Vec<Reg> {
    if file == File::Input {
        &mut io.inputs
    } else {
        &mut io.sv
    }
}

/// A fragment input's values over a grid, tabulated: component x follows the column alone, y
/// the row alone, and z and w are the same everywhere ([`FragInput::at`]).
struct InputTable {
    /// Component x per column, for every column of the tiles (helpers' included).
    x: Vec<u32>,
    /// Component y per row, likewise.
    y: Vec<u32>,
    zw: [u32; 2],
}

impl InputTable {
    fn new(input: FragInput, (w, h): (u32, u32)) -> InputTable {
        let zw = input.at(0, 0, w, h);
        InputTable {
            x: (0..w.div_ceil(8) * 8)
                .map(|i| input.at(i, 0, w, h)[0])
                .collect(),
            y: (0..h.div_ceil(8) * 8)
                .map(|j| input.at(0, j, w, h)[1])
                .collect(),
            zw: [zw[2], zw[3]],
        }
    }

    /// Fills the components of `reg` that follow the row, z and w, for the tiles of row `ty`
    /// (they stay for every tile of the row: engines leave their inputs as they were).
    fn fill_row(&self, ty: u32, reg: &mut Reg) {
        // Every row of quads holds its two pixel rows, the upper one first in each quad
        // ([`TILE_POS`]); the table covers every tile's 8 rows.
        let ys = &self.y[ty as usize..ty as usize + 8];
        for (qr, lanes) in reg[1].chunks_exact_mut(16).enumerate() {
            let (lower, upper) = (ys[2 * qr], ys[2 * qr + 1]);
            for quad in lanes.chunks_exact_mut(4) {
                quad.copy_from_slice(&[upper, upper, lower, lower]);
            }
        }
        reg[2] = [self.zw[0]; BATCH_LANES];
        reg[3] = [self.zw[1]; BATCH_LANES];
    }

    /// Fills component x of `reg` for the tile at column `tx`.
    fn fill_column(&self, tx: u32, reg: &mut Reg) {
        // Every row of quads holds the tile's 8 columns, two to a quad ([`TILE_POS`]).
        let xs = &self.x[tx as usize..tx as usize + 8];
        let mut row = [0u32; 16];
        for (q, lanes) in row.chunks_exact_mut(4).enumerate() {
            lanes.copy_from_slice(&[xs[2 * q], xs[2 * q + 1], xs[2 * q], xs[2 * q + 1]]);
        }
        for lanes in reg[0].chunks_exact_mut(16) {
            lanes.copy_from_slice(&row);
        }
    }
}

fn clear(regs: &mut [Reg]) {
    for r in regs {
        *r = [[0; BATCH_LANES]; 4];
    }
}

/// The most worker threads a run starts; more are clamped to it (results never depend on the
/// thread count, and each thread costs a stack).
pub const MAX_THREADS: usize = 1024;

/// How a run is spread over threads, and who hears of its progress.
#[derive(Clone, Copy, Default)]
pub struct RunOptions<'a> {
    /// Worker threads: 0 uses every core, 1 runs on the calling thread, at most
    /// [`MAX_THREADS`] (more are clamped). Results do not depend on it: batches are
    /// independent.
    pub threads: usize,
    /// Called with (batches done, batches in all) as the run goes (from any worker thread).
    pub progress: Option<&'a (dyn Fn(u64, u64) + Sync)>,
    /// When set, no batch starts after this instant: the run ends with
    /// [`RunError::TimeLimit`]. Each batch is bounded by the loop budget
    /// ([`Bindings::max_iterations`]), so together they bound the whole run.
    pub deadline: Option<std::time::Instant>,
    /// Worker threads to run on (a host's, [`crate::host::Runtime::pool`]) instead of threads
    /// started for this run; `threads` is then ignored.
    pub pool: Option<&'a rayon::ThreadPool>,
}

impl std::fmt::Debug for RunOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunOptions")
            .field("threads", &self.threads)
            .field("deadline", &self.deadline)
            .finish()
    }
}

/// The worker threads `opts` asks for, for `n` pieces of work: `None` when the calling thread
/// does it alone.
fn pool<'p>(
    opts: &RunOptions<'p>,
    n: usize,
    started: &'p mut Option<rayon::ThreadPool>,
) -> Result<Option<&'p rayon::ThreadPool>, RunError> {
    let single = match opts.pool {
        Some(p) => p.current_num_threads() == 1,
        None => opts.threads == 1,
    };
    if single || n <= 1 {
        return Ok(None);
    }
    if let Some(p) = opts.pool {
        return Ok(Some(p));
    }
    let p = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads.min(MAX_THREADS).min(n))
        .build()
        .map_err(|e| RunError::Unsupported(format!("cannot start worker threads: {e}")))?;
    Ok(Some(started.insert(p)))
}

/// Runs `work` over `items` on the threads of `opts`, each thread with its own scratch and
/// batch storage; the results come back in the order of `items`. The deadline of `opts` is
/// `work`'s to check.
fn parallel<E, I, T>(
    engine: &E,
    arrangement: Arrangement,
    items: Vec<I>,
    opts: &RunOptions<'_>,
    work: impl Fn(&mut BatchIo, &mut E::Scratch, I) -> Result<T, RunError> + Sync,
) -> Result<Vec<T>, RunError>
where
    E: Engine + Sync + ?Sized,
    E::Scratch: Send,
    I: Send,
    T: Send,
{
    let mut started = None;
    let Some(pool) = pool(opts, items.len(), &mut started)? else {
        let mut io = BatchIo::new(engine.shader(), arrangement);
        let mut scratch = engine.scratch();
        return items
            .into_iter()
            .map(|k| work(&mut io, &mut scratch, k))
            .collect();
    };
    use rayon::prelude::*;
    pool.install(|| {
        items
            .into_par_iter()
            .map_init(
                || (BatchIo::new(engine.shader(), arrangement), engine.scratch()),
                |(io, scratch), k| work(io, scratch, k),
            )
            .collect()
    })
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
pub fn render<E: Engine + Sync + ?Sized>(
    engine: &E,
    bind: &Bindings,
    width: u32,
    height: u32,
    output: u32,
) -> Result<Image, RunError>
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
    pub pixels: Vec<[f32; 4]>,
    /// Per pixel, whether its value is unspecified ([`Image::unspecified`]); empty when none is.
    pub unspecified: Vec<bool>,
}

impl Band {
    /// Row `y` of the image (`y0 <= y < y0 + rows`).
    pub fn row(&self, y: u32) -> &[[f32; 4]] {
        let k = ((y - self.y0) * self.width) as usize;
        &self.pixels[k..k + self.width as usize]
    }
}

/// The order in which [`render_rows`] hands out its bands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BandOrder {
    /// From the bottom row up (the order of `.f32` images and [`Image::pixels`]).
    BottomUp,
    /// From the top row down (the order of PNG rows).
    TopDown,
}

/// What a whole render counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RenderReport {
    /// Invocations that ran out of loop iterations.
    pub exhausted: u64,
    /// Pixels discarded.
    pub discarded: u64,
}

/// Rows per band that [`render_rows`] uses for an image `width` pixels wide: about 2^20 pixels
/// (16 MiB of pixels) per band, a multiple of the 8-row tiles.
pub fn band_rows_for(width: u32) -> u32 {
    ((1u32 << 20) / width.max(1)).max(8) / 8 * 8
}

/// [`render`] with threads and progress ([`RunOptions`]); the image is the same for any
/// number of threads.
///
/// # Errors
/// As [`render`].
pub fn render_with<E: Engine + Sync + ?Sized>(
    engine: &E,
    bind: &Bindings,
    width: u32,
    height: u32,
    output: u32,
    opts: &RunOptions<'_>,
) -> Result<Image, RunError>
where
    E::Scratch: Send,
{
    let mut image = Image {
        width,
        height,
        pixels: Vec::new(),
        exhausted: 0,
        discarded: 0,
        unspecified: Vec::new(),
    };
    let band_rows = band_rows_for(width);
    let report = render_rows(
        engine,
        bind,
        (width, height),
        output,
        opts,
        (band_rows, BandOrder::BottomUp),
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
                image.pixels.extend(band.pixels);
            }
            Ok(())
        },
    )?;
    image.exhausted = report.exhausted;
    image.discarded = report.discarded;
    Ok(image)
}

/// Renders a fragment shader band by band: `sink` receives each band of `bands.0` rows (the
/// last may be shorter) in the order `bands.1` asks for, so that an image of any size is
/// rendered and written in memory proportional to its width. The pixels are those of
/// [`render_with`].
///
/// # Errors
/// As [`render`], and whatever `sink` returns (which stops the render).
pub fn render_rows<E: Engine + Sync + ?Sized>(
    engine: &E,
    bind: &Bindings,
    (width, height): (u32, u32),
    output: u32,
    opts: &RunOptions<'_>,
    (band_rows, order): (u32, BandOrder),
    sink: &mut dyn FnMut(Band) -> Result<(), RunError>,
) -> Result<RenderReport, RunError>
where
    E::Scratch: Send,
{
    if band_rows == 0 || band_rows % 8 != 0 {
        return Err(RunError::Unsupported(format!(
            "bands of {band_rows} rows: a band is a multiple of the 8-row tiles"
        )));
    }
    let shader = engine.shader();
    let p = &shader.program;
    if p.processor != Processor::Fragment {
        return Err(RunError::Unsupported(format!(
            "a {} shader does not render an image (give vertices or primitives)",
            p.processor
        )));
    }
    let out_reg = p
        .declarations_of(File::Output)
        .find(|d| {
            d.semantic
                .is_some_and(|s| s.name == Semantic::Color && s.index == output)
        })
        .map(|d| d.span().first as usize);
    // Per input declaration: its file, its registers and how its value follows from (i, j).
    let integer_center =
        p.property(PropertyName::FsCoordPixelCenter) == Some(PixelCenter::Integer.bits());
    let decls: Vec<(File, Vec<u32>, InputTable)> = p
        .declarations
        .iter()
        .filter(|d| matches!(d.file, File::Input | File::SystemValue))
        .map(|d| {
            let input = FragInput::new(d.semantic, integer_center);
            (
                d.file,
                d.ranges.iter().flat_map(|r| r.first..=r.last).collect(),
                InputTable::new(input, (width, height)),
            )
        })
        .collect();
    let tiles_x = width.div_ceil(8);
    let bands = height.div_ceil(band_rows);
    let all_tiles = (tiles_x * height.div_ceil(8)) as u64;
    let tiles_done = std::sync::atomic::AtomicU64::new(0);
    let mut exhausted = 0u64;
    let mut discarded = 0u64;
    // One segment of tiles: its batches run one after the other, each writing its pixels.
    let segment = |io: &mut BatchIo,
                   scratch: &mut E::Scratch,
                   y0: u32,
                   seg: Segment<'_>|
     -> Result<SegmentReport, RunError> {
        let mut rep = SegmentReport::default();
        let (ty, tx0) = (seg.ty, seg.tx0);
        let mut rows = seg.rows;
        let tiles = (width - tx0).div_ceil(8).min(SEGMENT_TILES);
        for (file, regs, table) in &decls {
            if let Some(&first) = regs.first() {
                table.fill_row(ty, &mut registers(io, *file)[first as usize]);
            }
        }
        // The tiles' batches in one run: the engine does what depends on `bind` alone once.
        let mut filled = 0;
        engine.run_batches(bind, io, scratch, &mut |io, report| {
            if let Some(report) = report {
                let tx = tx0 + 8 * (filled - 1);
                let shown = io.alive & !io.helpers;
                rep.discarded += (report.killed & shown).count_ones() as u64;
                rep.exhausted += (report.exhausted & shown).count_ones() as u64;
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
            if opts.deadline.is_some_and(|d| std::time::Instant::now() > d) {
                return Err(RunError::TimeLimit);
            }
            let tx = tx0 + 8 * filled;
            filled += 1;
            // Every tile of a segment holds a pixel of the grid, so `alive` is never 0.
            let (alive, helpers) = tile_lanes(tx, ty, width, height);
            io.alive = alive;
            io.helpers = helpers;
            for (file, regs, table) in &decls {
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
        if let Some(p) = opts.progress {
            let n = u64::from(tiles * (ty + 8).min(height).saturating_sub(ty).div_ceil(8));
            let d = tiles_done.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
            p(d + n, all_tiles);
        }
        Ok(rep)
    };
    // The worker threads, started once for every band.
    let mut started = None;
    let segments_per_band = band_rows.div_ceil(8) * width.div_ceil(8 * SEGMENT_TILES);
    let workers = pool(opts, segments_per_band as usize, &mut started)?;
    let opts = &RunOptions {
        pool: workers,
        threads: if workers.is_some() { opts.threads } else { 1 },
        ..*opts
    };
    for n in 0..bands {
        let band = match order {
            BandOrder::BottomUp => n,
            BandOrder::TopDown => bands - 1 - n,
        };
        let y0 = band * band_rows;
        let rows = band_rows.min(height - y0);
        let len = (width * rows) as usize;
        // Not cleared: the segments write every pixel once (`Pixels`).
        let mut pixels = Pixels::new(len);
        let segs = segments(pixels.slots(), width, y0);
        let reports = parallel(
            engine,
            Arrangement::Quads,
            segs,
            opts,
            |io, scratch, seg| segment(io, scratch, y0, seg),
        )?;
        let written = reports.iter().map(|r| r.written).sum();
        let pixels = pixels.finish(written).ok_or_else(|| {
            RunError::Unsupported(format!(
                "internal error: the tiles wrote {written} of the band's {len} pixels"
            ))
        })?;
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
pub fn run_vertices<E: Engine + Sync + ?Sized>(
    engine: &E,
    bind: &Bindings,
    vertices: &[Vec<[u32; 4]>],
    opts: &RunOptions<'_>,
) -> Result<Vec<Invocation>, RunError>
where
    E::Scratch: Send,
{
    let p = &engine.shader().program;
    if p.processor != Processor::Vertex {
        return Err(RunError::Unsupported(format!(
            "run_vertices needs a vertex shader, not {}",
            p.processor
        )));
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
pub fn run_geometry<E: Engine + Sync + ?Sized>(
    engine: &E,
    bind: &Bindings,
    primitives: &[Vec<Vec<[u32; 4]>>],
    opts: &RunOptions<'_>,
) -> Result<Vec<Invocation>, RunError>
where
    E::Scratch: Send,
{
    let shader = engine.shader();
    if shader.program.processor != Processor::Geometry {
        return Err(RunError::Unsupported(format!(
            "run_geometry needs a geometry shader, not {}",
            shader.program.processor
        )));
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
    let p = &engine.shader().program;
    let batches = n.div_ceil(BATCH_LANES);
    let done = std::sync::atomic::AtomicU64::new(0);
    let results = parallel(
        engine,
        Arrangement::Independent,
        (0..batches).collect(),
        opts,
        |io, scratch, b| {
            if opts.deadline.is_some_and(|d| std::time::Instant::now() > d) {
                return Err(RunError::TimeLimit);
            }

            let start = b * BATCH_LANES;
            let count = (n - start).min(BATCH_LANES);
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
            for d in p.declarations_of(File::SystemValue) {
                let v = |l: usize| -> [u32; 4] {
                    let k = (start + l) as u32;
                    match d.semantic.map(|s| s.name) {
                        Some(Semantic::VertexId | Semantic::VertexIdNoBase | Semantic::PrimId) => {
                            [k; 4]
                        }
                        _ => [0; 4],
                    }
                };
                for r in d.ranges.iter().flat_map(|r| r.first..=r.last) {
                    for l in 0..count {
                        let val = v(l);
                        for c in 0..4 {
                            io.sv[r as usize][c][l] = val[c];
                        }
                    }
                }
            }
            let report = engine.run_batch(bind, io, scratch)?;
            let mut out = Vec::with_capacity(count);
            for l in 0..count {
                let emitted = report
                    .emitted
                    .iter()
                    .filter(|e| e.lane == l)
                    .map(|e| e.outputs.clone())
                    .collect();
                out.push(Invocation {
                    outputs: io
                        .outputs
                        .iter()
                        .map(|r| [r[0][l], r[1][l], r[2][l], r[3][l]])
                        .collect(),
                    emitted,
                    exhausted: report.exhausted & (1 << l) != 0,
                });
            }
            if let Some(p) = opts.progress {
                let d = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                p(d, batches as u64);
            }
            Ok(out)
        },
    )?;
    Ok(results.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Prepared;

    #[test]
    fn bands_in_either_order_make_the_whole_image() {
        // A shader whose pixels differ everywhere, and a discard.
        let src = "FRAG\nDCL IN[0], POSITION, LINEAR\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
                   IMM[0] FLT32 { 0.5, 3.0, 0.0, 0.0 }\n\
                   MUL TEMP[0], IN[0], IMM[0].xyxy\nFRC OUT[0], TEMP[0]\n\
                   SLT TEMP[0].x, IN[0].xxxx, IMM[0].yyyy\nKILL_IF -TEMP[0].xxxx\nEND\n";
        let shader = Prepared::new(tgsic::front::text::parse(src).unwrap()).unwrap();
        let bind = Bindings::default();
        let opts = RunOptions {
            threads: 2,
            ..RunOptions::default()
        };
        let (w, h) = (13, 37);
        let whole = render_with(&shader, &bind, w, h, 0, &opts).unwrap();
        assert_eq!(
            whole.discarded,
            3 * 37,
            "the three left columns are discarded"
        );
        for order in [BandOrder::BottomUp, BandOrder::TopDown] {
            let mut bands = Vec::new();
            let report = render_rows(&shader, &bind, (w, h), 0, &opts, (8, order), &mut |b| {
                bands.push(b);
                Ok(())
            })
            .unwrap();
            assert_eq!(report.discarded, whole.discarded);
            let firsts: Vec<u32> = bands.iter().map(|b| b.y0).collect();
            let want = match order {
                BandOrder::BottomUp => vec![0, 8, 16, 24, 32],
                BandOrder::TopDown => vec![32, 24, 16, 8, 0],
            };
            assert_eq!(firsts, want);
            assert_eq!(bands.iter().map(|b| b.rows).sum::<u32>(), h);
            for b in &bands {
                for y in b.y0..b.y0 + b.rows {
                    let k = (y * w) as usize;
                    assert_eq!(b.row(y), &whole.pixels[k..k + w as usize], "row {y}");
                }
            }
        }
        // A band must be whole tiles.
        let e = render_rows(
            &shader,
            &bind,
            (w, h),
            0,
            &opts,
            (12, BandOrder::BottomUp),
            &mut |_| Ok(()),
        );
        assert!(e.is_err());
    }

    #[test]
    fn every_pixel_gets_its_own_inputs_in_wide_and_ragged_images() {
        // Wider than a segment, neither side a multiple of 8: every pixel reads its own
        // position and GENERIC value (DECISIONS.md §4), on one thread and on two, and the
        // pixels with x < 3 are discarded.
        let src = "FRAG\nDCL IN[0], POSITION, LINEAR\nDCL IN[1], GENERIC[0], LINEAR\n\
                   DCL OUT[0], COLOR\nDCL TEMP[0]\nIMM[0] FLT32 { 3.0, 0.0, 0.0, 0.0 }\n\
                   MOV OUT[0].xy, IN[0].xyxy\nMOV OUT[0].zw, IN[1].xxxy\n\
                   SLT TEMP[0].x, IN[0].xxxx, IMM[0].xxxx\nKILL_IF -TEMP[0].xxxx\nEND\n";
        let shader = Prepared::new(tgsic::front::text::parse(src).unwrap()).unwrap();
        let bind = Bindings {
            clear: [-7.0; 4],
            ..Bindings::default()
        };
        let (w, h) = (8 * SEGMENT_TILES * 2 + 13, 11);
        for threads in [1, 2] {
            let opts = RunOptions {
                threads,
                ..RunOptions::default()
            };
            let img = render_with(&shader, &bind, w, h, 0, &opts).unwrap();
            assert_eq!(img.pixels.len(), (w * h) as usize);
            assert_eq!(img.discarded, 3 * u64::from(h));
            for j in 0..h {
                for i in 0..w {
                    let want = if i < 3 {
                        [-7.0; 4]
                    } else {
                        [
                            i as f32 + 0.5,
                            h as f32 - (j as f32 + 0.5),
                            (i as f32 + 0.5) / w as f32,
                            (j as f32 + 0.5) / h as f32,
                        ]
                    };
                    assert_eq!(img.pixel(i, j), want, "pixel ({i}, {j}), {threads} threads");
                }
            }
        }
    }
}
