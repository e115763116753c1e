//! The errors of every host call.

use crate::engine::{EngineKind, LoadError, RunError};
use crate::jit::CompileError;
use tgsic::back::abi::JitError;
use tgsic::ir::lift::LiftError;
use thiserror::Error;

/// Why a host call failed.
#[derive(Debug, Error)]
pub enum HostError {
    /// The bytes are not a TGSI program (the message says where).
    #[error(transparent)]
    Read(#[from] tgsic::front::ReadError),
    /// The program does not validate or cannot be executed.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The program cannot be lifted into the IR a JIT compiles (the error says where).
    #[error(transparent)]
    Lift(#[from] LiftError),
    /// A JIT back end could not compile it, or is not in this build.
    #[error(transparent)]
    Codegen(#[from] JitError),
    /// The options ask for an engine that compiles no code where code is needed.
    #[error("the {0} engine compiles no code: a JIT shader needs cranelift or llvm")]
    NotJit(EngineKind),
    /// The run failed: a missing binding, an execution error.
    #[error(transparent)]
    Run(#[from] RunError),
    /// A buffer's length does not match the invocations and the shader's registers.
    #[error(
        "the {what} buffer holds {got} values; {invocations} invocations of {registers} registers (4 values each) need {want}"
    )]
    Buffer {
        /// Which buffer.
        what: &'static str,
        /// Its length.
        got: usize,
        /// The length it needs (`usize::MAX` when that overflows).
        want: usize,
        /// Invocations asked for.
        invocations: usize,
        /// Registers per invocation.
        registers: usize,
    },
    /// The shader reads a constant buffer or samples a texture unit the bindings do not hold.
    #[error("the shader reads {what} {index}, which the bindings do not hold")]
    Unbound {
        /// "constant buffer" or "texture unit".
        what: &'static str,
        /// Which.
        index: u32,
    },
    /// Fragments must come in whole 2×2 quads.
    #[error("fragments come in 2×2 quads: {0} fragments is not a multiple of 4")]
    Quads(usize),
    /// The call does not fit the kind of shader.
    #[error("{call} needs a {needs} shader, not {got}")]
    Processor {
        /// The call.
        call: &'static str,
        /// The kind of shader it runs.
        needs: tgsic::tgsi::Processor,
        /// The shader's.
        got: tgsic::tgsi::Processor,
    },
    /// A buffer of discarded flags given for vertices, which are never discarded.
    #[error("run_vertices: vertices are never discarded (give no discarded buffer)")]
    DiscardedVertices,
    /// A geometry shader without GS_MAX_OUTPUT_VERTICES, whose emitted vertices have no room.
    #[error("run_primitives: the shader declares no GS_MAX_OUTPUT_VERTICES")]
    NoMaxOutputVertices,
    /// The worker threads could not be started.
    #[error("cannot start worker threads: {0}")]
    Threads(String),
    /// Machine code was asked of a shader the interpreter runs.
    #[error("the interpreter runs this shader: it has no machine code")]
    NoCode,
    /// The code cache folder the host named cannot be used.
    #[error("the code cache folder cannot be used: {0}")]
    Cache(String),
}

/// Memory a host binds that does not fit (a binding made twice, an image of the wrong size)
/// is an error of the run it was for.
impl From<crate::engine::MemoryError> for HostError {
    fn from(e: crate::engine::MemoryError) -> HostError {
        HostError::Run(RunError::Memory(e))
    }
}

impl From<CompileError> for HostError {
    fn from(e: CompileError) -> HostError {
        match e {
            CompileError::Lift(e) => HostError::Lift(e),
            CompileError::Codegen(e) => HostError::Codegen(e),
            CompileError::NotJit(k) => HostError::NotJit(k),
            CompileError::Internal(i) => HostError::Run(RunError::Internal(i)),
        }
    }
}
