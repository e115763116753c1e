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
pub mod cranelift;
pub mod fpenv;
pub mod image;
pub mod lane_ops;
#[cfg(feature = "llvm")]
pub mod llvm;
pub mod nan;
mod persist;
pub mod simd;
#[cfg(test)]
mod tests_support;
pub mod texpath;

use crate::ir::Function;
use abi::{CompiledShader, JitError, MathMode};
use texpath::TexPaths;

/// A code generator for the CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Backend {
    /// Cranelift: fast to compile, 128-bit vectors.
    #[default]
    Cranelift,
    /// LLVM 19 (cargo feature `llvm`): slower to compile, vectors as wide as the host's.
    Llvm,
}

impl Backend {
    /// Every back end, built in or not.
    pub const ALL: [Backend; 2] = [Backend::Cranelift, Backend::Llvm];

    /// Whether this build has the back end.
    pub fn available(self) -> bool {
        match self {
            Backend::Cranelift => true,
            Backend::Llvm => cfg!(feature = "llvm"),
        }
    }

    /// Its name: `cranelift` or `llvm`.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Cranelift => "cranelift",
            Backend::Llvm => "llvm",
        }
    }
}

/// How a back end compiles a function: one set of options for both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CodegenOptions {
    /// Float math: exact (bit-identical to the interpreter) or fast.
    pub math: MathMode,
    /// Lanes per step, or 0 to choose per function ([`simd::step_lanes`]). Cranelift takes 4,
    /// 8, 16 or 32 (every value is `lanes / 4` 128-bit registers); LLVM 4, 8, 16, 32 or 64
    /// (one vector a value, split by LLVM where it is wider than the host's registers).
    pub lanes: usize,
    /// The texture operations whose lookups the code samples itself ([`TexPaths`]): compiled
    /// for the sampler state they will run with.
    pub textures: TexPaths,
    /// Run the back end's IR verifier on the generated code (about twice the compile time).
    pub verify: bool,
    /// Keep the back end's IR and the disassembly ([`CompiledShader::ir_text`],
    /// [`CompiledShader::asm`]); LLVM measures [`CompiledShader::code_size`] only then.
    pub keep_text: bool,
}

impl Default for CodegenOptions {
    /// Exact math, lanes chosen per function, every lookup through the runtime's callback, the
    /// verifier in debug builds, no text.
    fn default() -> Self {
        CodegenOptions {
            math: MathMode::Exact,
            lanes: 0,
            textures: TexPaths::NONE,
            verify: cfg!(debug_assertions),
            keep_text: false,
        }
    }
}

/// Compiles `f`, optimized IR, to native code with `backend`.
///
/// # Errors
/// [`JitError::Unavailable`] for a back end this build does not have, [`JitError::Options`]
/// for lanes the back end does not take, [`JitError::Host`] on an unsupported CPU,
/// [`JitError::TooLarge`] past the size bound, [`JitError::Codegen`] when code generation
/// fails.
pub fn compile(
    f: &Function,
    backend: Backend,
    opts: &CodegenOptions,
) -> Result<CompiledShader, JitError> {
    match backend {
        Backend::Cranelift => cranelift::compile(f, opts),
        #[cfg(feature = "llvm")]
        Backend::Llvm => llvm::compile(f, opts),
        #[cfg(not(feature = "llvm"))]
        Backend::Llvm => Err(JitError::Unavailable(backend.name())),
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
pub fn target_id(backend: Backend) -> Result<String, JitError> {
    static IDS: std::sync::OnceLock<[Result<String, JitError>; 2]> = std::sync::OnceLock::new();
    let ids = IDS.get_or_init(|| {
        let build = env!("TGSIC_BUILD_ID");
        let cranelift = cranelift::isa_id().map(|id| format!("tgsic {build} cranelift {id}"));
        #[cfg(feature = "llvm")]
        let llvm = llvm::llvm_id().map(|id| format!("tgsic {build} {id}"));
        #[cfg(not(feature = "llvm"))]
        let llvm = Err(JitError::Unavailable(Backend::Llvm.name()));
        [cranelift, llvm]
    });
    ids[backend as usize].clone()
}
