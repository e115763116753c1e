//! The inputs of a fragment grid: how each input register's value follows from its pixel
//! (`docs/run.md`), tabulated per row and column so that a tile's batch is filled by copies.

use crate::engine::BatchIo;
use crate::engine::{BATCH_LANES, Reg};
use tgsic::tgsi::*;

fn bits(v: [f32; 4]) -> [u32; 4] {
    v.map(f32::to_bits)
}

/// How a fragment input register's value follows from its pixel (`docs/run.md`).
#[derive(Debug, Clone, Copy)]
pub(super) enum FragInput {
    /// `(i + 0.5 - d, h - (j + 0.5) - d, 0.5, 1)`, `d` = 0.5 for integer pixel centres.
    Position { d: f32 },
    /// The same value at every pixel.
    Fixed([u32; 4]),
    /// `((i + 0.5) / w, (j + 0.5) / h, 0, 1)`.
    Generic,
}

impl FragInput {
    pub(super) fn new(sem: Option<SemanticDecl>, integer_center: bool) -> FragInput {
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
    pub(super) fn at(self, i: u32, j: u32, w: u32, h: u32) -> [u32; 4] {
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

/// The OUT register of `COLOR[output]`, if the program declares it.
pub(super) fn color_register(p: &Program, output: u32) -> Option<usize> {
    p.declarations_of(File::Output)
        .find(|d| {
            d.semantic
                .is_some_and(|s| s.name == Semantic::Color && s.index == output)
        })
        .map(|d| d.span().first as usize)
}

/// Each input and system-value declaration of a fragment shader: its file, its registers and
/// how their value follows from the pixel.
pub(super) fn fragment_inputs(p: &Program) -> Vec<(File, Vec<u32>, FragInput)> {
    let integer_center =
        p.property(PropertyName::FsCoordPixelCenter) == Some(PixelCenter::Integer.bits());
    p.declarations
        .iter()
        .filter(|d| matches!(d.file, File::Input | File::SystemValue))
        .map(|d| {
            (
                d.file,
                d.ranges.iter().flat_map(|r| r.first..=r.last).collect(),
                FragInput::new(d.semantic, integer_center),
            )
        })
        .collect()
}

/// The input or system-value registers of a batch.
pub(super) fn registers(io: &mut BatchIo, file: File) -> &mut Vec<Reg> {
    if file == File::Input {
        &mut io.inputs
    } else {
        &mut io.sv
    }
}

/// A fragment input's values over a grid, tabulated: component x follows the column alone, y
/// the row alone, and z and w are the same everywhere ([`FragInput::at`]).
pub(super) struct InputTable {
    /// Component x per column, for every column of the tiles (helpers' included).
    x: Vec<u32>,
    /// Component y per row, likewise.
    y: Vec<u32>,
    zw: [u32; 2],
}

impl InputTable {
    pub(super) fn new(input: FragInput, (w, h): (u32, u32)) -> InputTable {
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
    pub(super) fn fill_row(&self, ty: u32, reg: &mut Reg) {
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
    pub(super) fn fill_column(&self, tx: u32, reg: &mut Reg) {
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
