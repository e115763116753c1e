//! The errors of every host call.

use crate::engine::{LoadError, RunError};
use crate::jit::CompileError;
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
    /// A JIT back end could not compile it (or is not in this build).
    #[error(transparent)]
    Compile(#[from] CompileError),
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
    #[error("{0}")]
    Processor(String),
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
