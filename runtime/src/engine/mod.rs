//! The vocabulary every engine shares: what the interpreter, the IR evaluator, the JIT and the
//! host API build on, so that none of them imports another.
//!
//! - [`Module`]: a validated program prepared once for every engine (storage sizes, arrays,
//!   block structure, its tokens and its interface, [`Reflection`]).
//! - [`Bindings`]: what a shader reads besides its inputs (constant buffers, textures,
//!   samplers, the loop budget, the clear colour).
//! - [`BatchIo`] and [`BatchReport`]: one batch of [`BATCH_LANES`] invocations in
//!   structure-of-arrays form, and what running it reports.
//! - [`Engine`]: something that runs batches; [`EngineKind`] and [`CompileOptions`] say which
//!   engine a host asks for and how it compiles.
//! - [`RunError`], [`LoadError`]: why a run or a load failed.

mod columns;
mod lanes;
mod module;
mod options;
mod reflect;

pub use columns::Columns;
pub use module::{LoadError, Module};
pub use options::{CompileOptions, EngineKind};
pub use reflect::{ConstantBuffer, Reflection, SamplerView, Varying};

use crate::texture::{Sampler, Texture};
use tgsic::tgsi::Location;
use thiserror::Error;

pub use lanes::{ALL, BATCH_LANES, Chan, Mask, Reg};

/// One vertex emitted by a geometry shader lane: its OUT registers, and the primitive it ends.
#[derive(Debug, Clone, PartialEq)]
pub struct Emitted {
    /// The lane that emitted it.
    pub lane: usize,
    /// OUT registers (bits) at EMIT, or `None` for an ENDPRIM marker.
    pub outputs: Option<Vec<[u32; 4]>>,
    /// The stream operand (0 when absent).
    pub stream: u32,
}

/// What a batch run reports besides the registers.
#[derive(Debug, Clone, Default)]
pub struct BatchReport {
    /// Lanes that were discarded (KILL, KILL_IF, DEMOTE).
    pub killed: Mask,
    /// Lanes that ran out of loop iterations.
    pub exhausted: Mask,
    /// Geometry output, in order.
    pub emitted: Vec<Emitted>,
    /// Lanes whose results are unspecified by the IR's semantics (only the IR evaluator sets
    /// them: derivatives in partly active quads).
    pub unspecified: Mask,
}

/// How lanes are arranged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrangement {
    /// Fragments: lanes 4q..4q+3 are quad q: (2m, 2n+1), (2m+1, 2n+1), (2m, 2n), (2m+1, 2n),
    /// where j = 2n is the lower row.
    Quads,
    /// Independent vertices or primitives.
    Independent,
}

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
    /// Loop iterations each invocation may run in total (65536 by default; `docs/semantics.md`,
    /// "Loops").
    pub max_iterations: u32,
    /// The clear colour: what discarded pixels keep, and what FBFETCH reads.
    pub clear: [f32; 4],
}

/// A constant buffer from its file contents (`docs/run.md`): little-endian 32-bit words,
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
    /// The run reached its deadline before its last batch.
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

/// One batch's inputs and outputs, in structure-of-arrays form.
#[derive(Debug, Clone)]
pub struct BatchIo {
    /// IN registers; for geometry shaders vertex-major (`vertex * inputs_per_vertex + reg`).
    pub inputs: Vec<Reg>,
    /// SV registers.
    pub sv: Vec<Reg>,
    /// OUT registers, written by the engine (every register of the file, 0 if never written).
    pub outputs: Vec<Reg>,
    /// Lanes that hold an invocation.
    pub alive: Mask,
    /// Lanes computed only for derivatives (the missing pixels of an edge quad).
    pub helpers: Mask,
    /// How lanes are arranged.
    pub arrangement: Arrangement,
    /// Component x of the IN registers by tile column, for an engine that
    /// [reads it from there](Engine::reads_columns): when set, such an engine takes
    /// component x of IN register `r` from `columns.lanes(r, column)`, not from `inputs`
    /// (where the others stay), in the shader's direct reads of IN. `None`: from `inputs`.
    pub columns: Option<std::sync::Arc<Columns>>,
    /// The tile column of this batch in [`Self::columns`].
    pub column: u32,
}

/// Something that executes a shader over batches of invocations.
pub trait Engine {
    /// Working memory one thread reuses from batch to batch (registers, arrays).
    type Scratch;

    /// The module it runs (its declarations decide the inputs).
    fn module(&self) -> &Module;

    /// Fresh working memory.
    fn scratch(&self) -> Self::Scratch;

    /// Whether this engine reads component x of the IN registers from [`BatchIo::columns`]
    /// when it is set (in the shader's direct reads of IN; indexed reads use
    /// [`BatchIo::inputs`]). An engine that does not (the default) always reads `inputs`.
    fn reads_columns(&self) -> bool {
        false
    }

    /// Runs one batch: reads `io.inputs` and `io.sv` and leaves them as they were (the
    /// batch driver fills only what changes between batches), writes every register of
    /// `io.outputs`. The result does not depend on what earlier batches left in `scratch`.
    /// `io` should hold the registers the program declares (for every vertex of a geometry shader's primitive); with fewer, an
    /// engine refuses the batch or reads the missing ones as 0, never memory outside them.
    ///
    /// # Errors
    /// [`RunError`] when a resource is missing, `io` is refused, or something cannot be
    /// executed.
    fn run_batch(
        &self,
        bind: &Bindings,
        io: &mut BatchIo,
        scratch: &mut Self::Scratch,
    ) -> Result<BatchReport, RunError>;

    /// Runs batches one after the other in `io`, as many calls of [`Self::run_batch`] would:
    /// `feed(io, None)` fills the first batch, and after each batch `feed(io, Some(report))`
    /// takes its results (`io.outputs` and the report) and fills the next; it returns whether
    /// `io` holds a batch to run. `bind` is the same for them all, so an engine may do what
    /// depends only on it once (a JIT chooses its code, and describes constant buffers and
    /// textures, once instead of per batch).
    ///
    /// # Errors
    /// As [`Self::run_batch`], and what `feed` returns; the batches after an error do not
    /// run.
    fn run_batches(
        &self,
        bind: &Bindings,
        io: &mut BatchIo,
        scratch: &mut Self::Scratch,
        feed: &mut Feed<'_>,
    ) -> Result<(), RunError> {
        let mut report = None;
        while feed(io, report.take())? {
            report = Some(self.run_batch(bind, io, scratch)?);
        }
        Ok(())
    }
}

/// What [`Engine::run_batches`] calls around its batches: given the report of the batch just
/// run (`None` before the first), it fills `io` with the next batch and says whether there is
/// one.
pub type Feed<'a> = dyn FnMut(&mut BatchIo, Option<BatchReport>) -> Result<bool, RunError> + 'a;

impl BatchIo {
    /// Zeroed registers for one batch of `p` (a geometry shader's inputs for every vertex of
    /// the primitive, vertex-major).
    pub fn new(p: &Module, arrangement: Arrangement) -> BatchIo {
        let z = |n: usize| vec![[[0u32; BATCH_LANES]; 4]; n];
        let [inputs, sv, outputs] = p.io_sizes();
        BatchIo {
            inputs: z(inputs),
            sv: z(sv),
            outputs: z(outputs),
            alive: 0,
            helpers: 0,
            arrangement,
            columns: None,
            column: 0,
        }
    }

    /// Whether this holds at least the registers `sizes` ([`Module::io_sizes`]) counts: what
    /// engines whose code addresses them without bounds checks (the JIT) verify before a
    /// batch, with the sizes found once.
    pub fn fits(&self, sizes: [usize; 3]) -> bool {
        let [inputs, sv, outputs] = sizes;
        self.inputs.len() >= inputs && self.sv.len() >= sv && self.outputs.len() >= outputs
    }
}
