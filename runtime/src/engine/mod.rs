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
mod memory;
mod module;
mod options;
mod raw_memory;
mod reflect;

pub use columns::Columns;
pub(crate) use memory::{Access, Memory, apply, check_memory};
pub use memory::{Image, MAX_GROUPS_PER_AXIS, MAX_SHARED_BYTES, MemoryError, Resources};
pub use module::{LoadError, Module};
pub use options::{CompileOptions, EngineKind};
pub(crate) use raw_memory::{RawMemory, RawViews};
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
    /// A texture unit the shader samples has no texture bound.
    #[error("texture unit {unit} ({lookup} reads it, nothing is bound)")]
    Unbound {
        /// The unit.
        unit: u32,
        /// The instruction that samples it, as text.
        lookup: String,
    },
    /// The call does not fit the kind of shader (rendering a vertex shader, listing vertices
    /// of a fragment shader).
    #[error("{call} needs a {needs} shader, not {got}")]
    Processor {
        /// The call.
        call: &'static str,
        /// The processor it runs.
        needs: tgsic::tgsi::Processor,
        /// The shader's.
        got: tgsic::tgsi::Processor,
    },
    /// Bands of a render whose rows are no multiple of the 8-row tiles.
    #[error("bands of {0} rows: a band is a multiple of the 8-row tiles")]
    BandRows(u32),
    /// A constant buffer larger than the JIT's code reads.
    #[error(
        "constant buffer {buffer} has {registers} registers; the JIT reads at most {limit} (the interpreter runs it)"
    )]
    ConstantBufferTooLarge {
        /// The buffer.
        buffer: usize,
        /// Its registers.
        registers: usize,
        /// The most the JIT reads.
        limit: u64,
    },
    /// Subroutine calls nested deeper than the interpreter's call stack.
    #[error("subroutine calls nest deeper than {0} (recursion?)")]
    CallDepth(usize),
    /// A BRA that some active invocations take and others do not.
    #[error("BRA at instruction {0} diverges (some active invocations branch, some do not)")]
    DivergentBranch(usize),
    /// An instruction's texture binding cannot be resolved (the message says why).
    #[error("{0}")]
    TextureBinding(String),
    /// A batch's registers made for another shader (the JIT's code addresses them as its own
    /// shader sized them).
    #[error("the batch's registers were made for another shader")]
    ForeignBatch,
    /// The worker threads could not be started.
    #[error("cannot start worker threads: {0}")]
    Threads(String),
    /// A texture lookup or EMIT the generated code called back for panicked.
    #[error("{0} panicked")]
    CallbackPanicked(&'static str),
    /// Compiling the code variant a batch's bindings call for failed, or the code's call.
    #[error(transparent)]
    Code(#[from] tgsic::back::abi::JitError),
    /// What a render's sink returned to stop it (a band that could not be written).
    #[error("{0}")]
    Sink(String),
    /// The run reached its deadline before its last batch.
    #[error("the run did not finish within its time limit")]
    TimeLimit,
    /// The memory given to the run does not fit its program.
    #[error(transparent)]
    Memory(#[from] MemoryError),
    /// An invariant of the runtime did not hold: a bug in tgsic.
    #[error("internal error: {0}")]
    Internal(#[from] Internal),
    /// An error raised by one instruction, at its place in the source.
    #[error("{location}: {error}")]
    At {
        /// Where the instruction was read.
        location: Location,
        /// What went wrong.
        error: Box<RunError>,
    },
}

/// The invariants of the runtime a run checks: each is a bug in tgsic when it fails.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Internal {
    /// The tiles of a band wrote fewer pixels than it has.
    #[error("the tiles wrote {written} of the band's {len} pixels")]
    BandPixels {
        /// Pixels written.
        written: usize,
        /// Pixels of the band.
        len: usize,
    },
    /// A tiered shader with neither tier's code.
    #[error("a tiered shader without code")]
    TieredWithoutCode,
    /// A tiered shader's best code, ready a moment before, went away.
    #[error("the best code went away")]
    BestCodeGone,
    /// The IR of a shader whose code came from the code cache could not be made again to
    /// compile another variant (the program lifted when its code was cached).
    #[error("the shader's IR could not be made again: {0}")]
    VariantIr(String),
    /// The code variant a batch chose is not in its scratch.
    #[error("the chosen variant is missing")]
    VariantMissing,
    /// The input columns of a tile row do not hold the shader's inputs.
    #[error(
        "the input columns ({registers} registers, {columns} columns) do not hold column {column} of this shader's {inputs} input registers"
    )]
    InputColumns {
        /// Registers the table holds.
        registers: usize,
        /// Columns it holds.
        columns: usize,
        /// The column asked for.
        column: u32,
        /// The shader's input registers.
        inputs: usize,
    },
    /// `run_batches` ran no batch where one was fed.
    #[error("the batch did not run")]
    BatchDidNotRun,
    /// Working memory made for another engine.
    #[error("working memory made for another engine")]
    ForeignScratch,
    /// A compute program held by an engine that cannot dispatch it (the JITs refuse to
    /// compile compute programs, so none should hold one).
    #[error("a compute program on an engine without dispatches")]
    NoComputeEngine,
    /// An instruction the interpreter's ALU has no implementation of.
    #[error("instruction {pc}: {opcode} reached the ALU without an implementation")]
    NoAlu {
        /// The instruction.
        pc: usize,
        /// Its opcode.
        opcode: tgsic::tgsi::Opcode,
    },
    /// A texture instruction without a texture operation.
    #[error("{0} is not a texture opcode")]
    NotTexture(tgsic::tgsi::Opcode),
    /// A loop end without its loop frame.
    #[error("{0} without its loop frame")]
    LoopFrame(tgsic::tgsi::Opcode),
    /// More instructions than a run can count.
    #[error("the instruction count overflowed")]
    StepCount,
}

impl RunError {
    /// This error placed at `location` (unchanged when the place is unknown or already set).
    pub(crate) fn at(self, location: Location) -> RunError {
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
