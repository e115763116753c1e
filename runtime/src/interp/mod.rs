//! The reference interpreter: executes a validated TGSI program over batches of invocations in
//! structure-of-arrays form, with execution masks, so divergent control flow is exact per
//! invocation. Fragment work runs in 2×2 quads (derivatives). Semantics: `docs/semantics.md`.
//!
//! ```
//! use tgsic_runtime::interp::{Bindings, Shader, render};
//! let program = tgsic::front::text::parse(
//!     "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nMOV OUT[0], IN[0]\nEND\n").unwrap();
//! let shader = Shader::new(program).unwrap();
//! let image = render(&shader, &Bindings::default(), 4, 4, 0).unwrap();
//! // Generic inputs are ((i + 0.5)/W, (j + 0.5)/H, 0, 1).
//! assert_eq!(image.pixel(1, 2), [0.375, 0.625, 0.0, 1.0]);
//! ```

// Lane and component indices address several parallel arrays at once in this SIMD code.
#![allow(clippy::needless_range_loop)]

mod alu;
mod exec;
/// The shared scalar numerics (re-exported from the compiler).
pub use tgsic::numerics as num;
mod prepare;
mod tex;

pub use exec::{Emitted, LANES};
pub use prepare::{LoadError, Prepared};

use crate::texture::{Sampler, Texture};
use exec::{ALL, Arrangement, Exec, Mask, Regs};
use tgsic::tgsi::*;
use thiserror::Error;

/// A program ready to run (validated and analysed).
pub type Shader = Prepared;

/// What a shader reads besides its inputs.
#[derive(Debug, Clone)]
pub struct Bindings {
    /// Constant buffers: `constants[n][r]` is register r of buffer n (raw bits); registers
    /// beyond a buffer read 0.
    pub constants: Vec<Vec<[u32; 4]>>,
    /// Texture units (SAMP[n] and SVIEW[n]).
    pub textures: Vec<Option<Texture>>,
    /// Sampler state per unit (default: nearest, repeat).
    pub samplers: Vec<Sampler>,
    /// Loop iterations each invocation may run in total (DECISIONS.md §3: 65536).
    pub max_iterations: u32,
    /// The clear colour: what discarded pixels keep, and what FBFETCH reads.
    pub clear: [f32; 4],
}

impl Default for Bindings {
    fn default() -> Bindings {
        Bindings {
            constants: Vec::new(),
            textures: Vec::new(),
            samplers: Vec::new(),
            max_iterations: 65536,
            clear: [0.0; 4],
        }
    }
}

/// Why a run failed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RunError {
    /// The program cannot be loaded.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// A resource the shader reads is not bound.
    #[error("{0}")]
    Unbound(String),
    /// Something the interpreter does not execute (named).
    #[error("{0}")]
    Unsupported(String),
}

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
}

impl Image {
    /// The pixel at column i, row j (j = 0 at the bottom).
    pub fn pixel(&self, i: u32, j: u32) -> [f32; 4] {
        self.pixels[(j * self.width + i) as usize]
    }
}

fn bits(v: [f32; 4]) -> [u32; 4] {
    v.map(f32::to_bits)
}

/// The value of a fragment input at pixel (i, j) (DECISIONS.md §4).
fn fragment_input(
    p: &Program,
    sem: Option<SemanticDecl>,
    i: u32,
    j: u32,
    w: u32,
    h: u32,
) -> [u32; 4] {
    let integer_center =
        p.property(PropertyName::FsCoordPixelCenter) == Some(PixelCenter::Integer.bits());
    match sem.map(|s| s.name) {
        Some(Semantic::Position) => {
            let d = if integer_center { 0.5 } else { 0.0 };
            bits([
                i as f32 + 0.5 - d,
                h as f32 - (j as f32 + 0.5) - d,
                0.5,
                1.0,
            ])
        }
        Some(Semantic::Face) => bits([1.0, 0.0, 0.0, 1.0]),
        Some(Semantic::SampleId) => [0; 4],
        Some(Semantic::SamplePos) => bits([0.5, 0.5, 0.0, 0.0]),
        Some(Semantic::SampleMask) => [1, 0, 0, 0],
        _ => bits([
            (i as f32 + 0.5) / w as f32,
            (j as f32 + 0.5) / h as f32,
            0.0,
            1.0,
        ]),
    }
}

/// Renders a fragment shader over a W × H grid; returns OUT with semantic COLOR[`output`].
/// Discarded pixels keep `bind.clear`; a component never written is 0.
///
/// # Errors
/// [`RunError`] when the shader is not a fragment shader, a bound resource is missing, or an
/// instruction cannot be executed.
pub fn render(
    shader: &Shader,
    bind: &Bindings,
    width: u32,
    height: u32,
    output: u32,
) -> Result<Image, RunError> {
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
    let mut image = Image {
        width,
        height,
        pixels: vec![[0.0; 4]; (width * height) as usize],
        exhausted: 0,
        discarded: 0,
    };
    let mut regs = Regs::new(shader);
    // Tiles of 8x8 pixels: 16 quads, 64 lanes.
    for ty in (0..height).step_by(8) {
        for tx in (0..width).step_by(8) {
            let pos = |l: usize| {
                let (q, k) = (l / 4, l % 4);
                let i = tx + 2 * (q as u32 % 4) + (k as u32 & 1);
                let j = ty + 2 * (q as u32 / 4) + u32::from(k < 2);
                (i, j)
            };
            let inside = |l: usize| {
                let (i, j) = pos(l);
                i < width && j < height
            };
            let mut alive: Mask = 0;
            let mut helpers: Mask = 0;
            for q in 0..LANES / 4 {
                if (0..4).any(|k| inside(4 * q + k)) {
                    for k in 0..4 {
                        alive |= 1 << (4 * q + k);
                        if !inside(4 * q + k) {
                            helpers |= 1 << (4 * q + k);
                        }
                    }
                }
            }
            if alive == 0 {
                continue;
            }
            reset(&mut regs);
            for d in p
                .declarations
                .iter()
                .filter(|d| matches!(d.file, File::Input | File::SystemValue))
            {
                let store = if d.file == File::Input {
                    &mut regs.inputs
                } else {
                    &mut regs.sv
                };
                for r in d.ranges.iter().flat_map(|r| r.first..=r.last) {
                    for l in 0..LANES {
                        let (i, j) = pos(l);
                        let v = fragment_input(p, d.semantic, i, j, width, height);
                        for c in 0..4 {
                            store[r as usize][c][l] = v[c];
                        }
                    }
                }
            }
            let mut ex = Exec::new(shader, bind, &mut regs, alive, Arrangement::Quads);
            ex.helpers = helpers;
            ex.run()?;
            let report = std::mem::take(&mut ex.report);
            for l in 0..LANES {
                if alive & (1 << l) == 0 || helpers & (1 << l) != 0 {
                    continue;
                }
                let (i, j) = pos(l);
                let px = &mut image.pixels[(j * width + i) as usize];
                if report.exhausted & (1 << l) != 0 {
                    image.exhausted += 1;
                }
                if report.killed & (1 << l) != 0 {
                    *px = bind.clear;
                    image.discarded += 1;
                } else if let Some(o) = out_reg {
                    *px = std::array::from_fn(|c| f32::from_bits(regs.outputs[o][c][l]));
                }
            }
        }
    }
    Ok(image)
}

fn reset(regs: &mut Regs) {
    for file in [
        &mut regs.temps,
        &mut regs.outputs,
        &mut regs.inputs,
        &mut regs.addr,
        &mut regs.sv,
        &mut regs.cc,
    ] {
        for r in file.iter_mut() {
            *r = [[0; LANES]; 4];
        }
    }
    regs.addr_stack.clear();
    regs.addr_depth = [0; LANES];
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

/// Runs a vertex shader once per vertex: `vertices[v][r]` is input register r of vertex v.
/// System values: VERTEXID and VERTEXID_NOBASE are the vertex index, INSTANCEID 0.
///
/// # Errors
/// As [`render`].
pub fn run_vertices(
    shader: &Shader,
    bind: &Bindings,
    vertices: &[Vec<[u32; 4]>],
) -> Result<Vec<Invocation>, RunError> {
    if shader.program.processor != Processor::Vertex {
        return Err(RunError::Unsupported(format!(
            "run_vertices needs a vertex shader, not {}",
            shader.program.processor
        )));
    }
    run_independent(shader, bind, vertices.len(), |regs, l, k| {
        for (r, v) in vertices[k].iter().enumerate().take(regs.inputs.len()) {
            for c in 0..4 {
                regs.inputs[r][c][l] = v[c];
            }
        }
    })
}

/// Runs a geometry shader once per primitive: `primitives[p][v][r]` is input register r of
/// vertex v. PRIM_ID is the primitive index, INVOCATIONID 0.
///
/// # Errors
/// As [`render`].
pub fn run_geometry(
    shader: &Shader,
    bind: &Bindings,
    primitives: &[Vec<Vec<[u32; 4]>>],
) -> Result<Vec<Invocation>, RunError> {
    if shader.program.processor != Processor::Geometry {
        return Err(RunError::Unsupported(format!(
            "run_geometry needs a geometry shader, not {}",
            shader.program.processor
        )));
    }
    let per = shader.size(File::Input);
    run_independent(shader, bind, primitives.len(), |regs, l, k| {
        for (v, vert) in primitives[k]
            .iter()
            .enumerate()
            .take(shader.gs_vertices as usize)
        {
            for (r, val) in vert.iter().enumerate().take(per) {
                for c in 0..4 {
                    regs.inputs[v * per + r][c][l] = val[c];
                }
            }
        }
    })
}

fn run_independent(
    shader: &Shader,
    bind: &Bindings,
    n: usize,
    fill: impl Fn(&mut Regs, usize, usize),
) -> Result<Vec<Invocation>, RunError> {
    let p = &shader.program;
    let mut regs = Regs::new(shader);
    let mut out = Vec::with_capacity(n);
    for start in (0..n).step_by(LANES) {
        let count = (n - start).min(LANES);
        let alive: Mask = if count == LANES {
            ALL
        } else {
            (1u64 << count) - 1
        };
        reset(&mut regs);
        for l in 0..count {
            fill(&mut regs, l, start + l);
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
                        regs.sv[r as usize][c][l] = val[c];
                    }
                }
            }
        }
        let mut ex = Exec::new(shader, bind, &mut regs, alive, Arrangement::Independent);
        ex.run()?;
        let report = std::mem::take(&mut ex.report);
        for l in 0..count {
            let emitted = report
                .emitted
                .iter()
                .filter(|e| e.lane == l)
                .map(|e| e.outputs.clone())
                .collect();
            out.push(Invocation {
                outputs: regs
                    .outputs
                    .iter()
                    .map(|r| [r[0][l], r[1][l], r[2][l], r[3][l]])
                    .collect(),
                emitted,
                exhausted: report.exhausted & (1 << l) != 0,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
