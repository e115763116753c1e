//! The reference interpreter: executes a validated TGSI program over batches of invocations in
//! structure-of-arrays form, with execution masks, so divergent control flow is exact per
//! invocation. Fragment work runs in 2×2 quads (derivatives). Semantics: `docs/semantics.md`.
//!
//! ```
//! use tgsic_runtime::interp::{Bindings, Prepared, render};
//! let program = tgsic::front::text::parse(
//!     "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nMOV OUT[0], IN[0]\nEND\n").unwrap();
//! let shader = Prepared::new(program).unwrap();
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
pub(crate) mod tex;

pub use exec::{ALL, Arrangement, BatchReport, Chan, Emitted, LANES, Mask, Reg};
pub use prepare::{LoadError, Prepared};

use crate::dispatch::{BatchIo, Engine};
pub use crate::dispatch::{Image, Invocation};
use crate::texture::{Sampler, Texture};
use exec::Exec;
pub use exec::Regs;
use tgsic::tgsi::Location;
use thiserror::Error;

/// What a shader reads besides its inputs.
#[derive(Debug, Clone)]
pub struct Bindings {
    /// Constant buffers: `constants[n][r]` is register r of buffer n (raw bits); registers
    /// beyond a buffer read 0.
    pub constants: Vec<Vec<[u32; 4]>>,
    /// Texture units (`SAMP[n]` and `SVIEW[n]`).
    pub textures: Vec<Option<Texture>>,
    /// Sampler state per unit (default: nearest, repeat).
    pub samplers: Vec<Sampler>,
    /// Loop iterations each invocation may run in total (DECISIONS.md §3: 65536).
    pub max_iterations: u32,
    /// The clear colour: what discarded pixels keep, and what FBFETCH reads.
    pub clear: [f32; 4],
}

/// A constant buffer from its file contents (DECISIONS.md §4): little-endian 32-bit words,
/// four per register; a short last register reads 0 in its missing components. Trailing bytes
/// that do not make a whole word are ignored (callers that must refuse them check first).
pub fn constant_registers(bytes: &[u8]) -> Vec<[u32; 4]> {
    bytes
        .chunks(16)
        .map(|c| {
            std::array::from_fn(|k| {
                c.get(4 * k..4 * k + 4)
                    .map_or(0, |w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            })
        })
        .collect()
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
    /// The run reached [`RunOptions::deadline`](crate::dispatch::RunOptions::deadline) before
    /// its last batch.
    #[error("the run did not finish within its time limit")]
    TimeLimit,
    /// An error raised by one instruction, at its place in the source.
    #[error("{location}: {error}")]
    At {
        /// Where the instruction was read.
        location: Location,
        /// What went wrong.
        error: Box<RunError>,
    },
}

impl RunError {
    /// This error placed at `location` (unchanged when the place is unknown or already set).
    pub fn at(self, location: Location) -> RunError {
        match (self, location) {
            (e @ RunError::At { .. }, _) | (e, Location::Unknown) => e,
            (e, location) => RunError::At {
                location,
                error: Box::new(e),
            },
        }
    }

    /// Where the error is, when it concerns one instruction.
    pub fn location(&self) -> Option<&Location> {
        match self {
            RunError::At { location, .. } => Some(location),
            _ => None,
        }
    }

    /// The message without its location (for tools that print the location themselves).
    pub fn detail(&self) -> String {
        match self {
            RunError::At { error, .. } => error.detail(),
            other => other.to_string(),
        }
    }
}

/// Renders a fragment shader over a W × H grid with the interpreter; returns OUT with semantic
/// `COLOR[output]`. Discarded pixels keep `bind.clear`; a component never written is 0.
///
/// # Errors
/// [`RunError`] when the shader is not a fragment shader, a bound resource is missing, or an
/// instruction cannot be executed.
pub fn render(
    shader: &Prepared,
    bind: &Bindings,
    width: u32,
    height: u32,
    output: u32,
) -> Result<Image, RunError> {
    crate::dispatch::render(shader, bind, width, height, output)
}

/// Runs a vertex shader once per vertex with the interpreter: `vertices[v][r]` is input
/// register r of vertex v. System values: VERTEXID and VERTEXID_NOBASE are the vertex index,
/// INSTANCEID 0.
///
/// # Errors
/// As [`render`].
pub fn run_vertices(
    shader: &Prepared,
    bind: &Bindings,
    vertices: &[Vec<[u32; 4]>],
) -> Result<Vec<Invocation>, RunError> {
    crate::dispatch::run_vertices(
        shader,
        bind,
        vertices,
        &crate::dispatch::RunOptions {
            threads: 1,
            ..Default::default()
        },
    )
}

/// Runs a geometry shader once per primitive with the interpreter: `primitives[p][v][r]` is
/// input register r of vertex v. PRIM_ID is the primitive index, INVOCATIONID 0.
///
/// # Errors
/// As [`render`].
pub fn run_geometry(
    shader: &Prepared,
    bind: &Bindings,
    primitives: &[Vec<Vec<[u32; 4]>>],
) -> Result<Vec<Invocation>, RunError> {
    crate::dispatch::run_geometry(
        shader,
        bind,
        primitives,
        &crate::dispatch::RunOptions {
            threads: 1,
            ..Default::default()
        },
    )
}

/// The interpreter as an execution engine.
impl Engine for Prepared {
    type Scratch = Regs;

    fn shader(&self) -> &Prepared {
        self
    }

    fn scratch(&self) -> Regs {
        Regs::new(self)
    }

    fn run_batch(
        &self,
        bind: &Bindings,
        io: &mut BatchIo,
        regs: &mut Regs,
    ) -> Result<BatchReport, RunError> {
        regs.reset();
        std::mem::swap(&mut regs.inputs, &mut io.inputs);
        std::mem::swap(&mut regs.sv, &mut io.sv);
        let result = {
            let mut ex = Exec::new(self, bind, regs, io.alive, io.arrangement);
            ex.helpers = io.helpers;
            // The arithmetic flushes denormals in software (tgsic::numerics): no Rust code
            // runs with the MXCSR's DAZ/FTZ bits set.
            ex.run().map(|()| std::mem::take(&mut ex.report))
        };
        std::mem::swap(&mut regs.inputs, &mut io.inputs);
        std::mem::swap(&mut regs.sv, &mut io.sv);
        std::mem::swap(&mut regs.outputs, &mut io.outputs);
        result
    }
}

#[cfg(test)]
mod tests;
