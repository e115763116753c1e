//! Code generators for the CPU.
//!
//! - [`simd`]: the one lowering of the IR to SIMD code, written against a builder trait that
//!   each JIT back end implements.
//! - [`cranelift`]: native SIMD code through Cranelift, the default JIT.
//! - `llvm` (cargo feature `llvm`): native code through LLVM 19, as wide as the host's vectors.
//!
//! THEIA, the fixed-point GPU, has its own crate (`tgsic-theia`).
//!
//! [`compile`] is the one entry point: a function, a [`Backend`] and [`CodegenOptions`] in,
//! a [`CompiledShader`] out. The JIT back ends share their calling interface ([`abi`]), the
//! per-lane operations they call on the CPU ([`lane_ops`]) and the analysis of where NaN bits must be
//! canonicalized ([`nan`]).

pub mod abi;
pub mod code;
pub mod compiled;
pub mod cranelift;
pub mod fpenv;
pub mod lane_ops;
#[cfg(feature = "llvm")]
pub mod llvm;
pub mod nan;
mod options;
pub mod persist;
pub mod simd;
#[cfg(test)]
mod tests_support;
pub mod texpath;

use crate::ir::Function;
use abi::JitError;
use compiled::CompiledShader;
pub use options::{Backend, CodegenOptions, FEATURES_VAR, TargetFeatures};

/// Compiles `f`, optimized IR, to native code with `backend`.
///
/// # Errors
/// [`JitError::Unavailable`] for a back end this build does not have, [`JitError::Lanes`]
/// for lanes the back end does not take, [`JitError::Host`] on an unsupported CPU,
/// [`JitError::TooLarge`] past the size bound, [`JitError::Backend`] or [`JitError::Invariant`] when code generation
/// fails.
pub fn compile(
    f: &Function,
    backend: Backend,
    opts: &CodegenOptions,
) -> Result<CompiledShader, JitError> {
    // The generated code's numerics (denormals flushed on input and output, as the
    // interpreter flushes them) rest on the x86-64 MXCSR's DAZ and FTZ bits, which the code's
    // calls set (`fpenv.rs`); on another architecture the code would compute other values.
    if !cfg!(target_arch = "x86_64") {
        return Err(JitError::Host(
            "the JIT back ends generate code for x86-64 hosts only (their flush-to-zero \
             numerics need the MXCSR); run shaders with the interpreter"
                .into(),
        ));
    }
    match backend {
        Backend::Cranelift => cranelift::compile(f, opts),
        #[cfg(feature = "llvm")]
        Backend::Llvm => llvm::compile(f, opts),
        #[cfg(not(feature = "llvm"))]
        Backend::Llvm => Err(JitError::Unavailable(backend.name())),
    }
}

/// The symbol table of `backend`'s code in this process (the addresses of what it calls):
/// what a stored shader of that back end is mapped with ([`CompiledShader::from_bytes`]).
pub fn symbols(backend: Backend) -> &'static dyn code::SymbolTable {
    match backend {
        Backend::Cranelift => &cranelift::helpers::Symbols,
        Backend::Llvm => &lane_ops::HostFunctions,
    }
}

/// Everything besides the function and the options that decides the machine code `backend`
/// generates on this machine: this build of tgsic (a digest of its sources and of the code
/// generators' versions), the code generator (and LLVM's own version), and the CPU and
/// features it generates code for. A code cache keys its entries on it, so that it never runs
/// code another build, LLVM or CPU made.
///
/// # Errors
/// As [`compile`], for a back end this build or host does not have.
pub fn target_id(backend: Backend, features: TargetFeatures) -> Result<String, JitError> {
    let build = env!("TGSIC_BUILD_ID");
    match backend {
        Backend::Cranelift => {
            static ID: std::sync::OnceLock<Result<String, JitError>> = std::sync::OnceLock::new();
            ID.get_or_init(|| cranelift::isa_id().map(|id| format!("tgsic {build} cranelift {id}")))
                .clone()
        }
        #[cfg(feature = "llvm")]
        Backend::Llvm => llvm::llvm_id(features).map(|id| format!("tgsic {build} {id}")),
        #[cfg(not(feature = "llvm"))]
        Backend::Llvm => {
            let _ = features;
            Err(JitError::Unavailable(Backend::Llvm.name()))
        }
    }
}
