//! How code is generated: the back end, and the options every back end takes.

use super::abi::MathMode;
use super::texpath::TexPaths;

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

    /// Whether its code reads RGBA8 texels itself, a word a texel, or wants them unpacked to
    /// f32 (four words a texel, one load a lane). LLVM gathers, and one word a texel is faster
    /// there; Cranelift has no gather instruction, and a texel's four f32 words in one load per
    /// lane (and a transpose) beat a word per lane and the unpacking of its bytes (both measured
    /// on gltr_linearblur: `results/history/jit-2026-11-30.md`).
    pub fn reads_unorm8(self) -> bool {
        self == Backend::Llvm
    }

    /// Its name: `cranelift` or `llvm`.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Cranelift => "cranelift",
            Backend::Llvm => "llvm",
        }
    }
}

/// The environment variable the programs (the command line, the benches, the tests) read
/// target feature changes from and pass as [`CodegenOptions::features`]
/// ([`TargetFeatures::from_env`]); the library itself reads no environment.
pub const FEATURES_VAR: &str = "TGSIC_LLVM_FEATURES";

/// Changes to the host CPU's features that LLVM's code is generated for, in LLVM's spelling
/// (`-avx512f` makes AVX2 code on an AVX-512 host, to measure what AVX2 machines run), added
/// after the host's own; none by default. An entry `cpu=NAME` (`cpu=skylake,-avx512f`) has
/// LLVM schedule, tune and choose instructions as for the CPU it calls NAME, with the host's
/// features: code to read (`tgsic ir --emit asm`, for `llvm-mca-19 -mcpu=NAME`) or to time
/// the compilation of, which runs on this host at this host's speed. Cranelift's code
/// ignores them. A value is `Copy`: the text of each distinct change is kept once for the
/// process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TargetFeatures(Option<&'static str>);

impl TargetFeatures {
    /// The host's features, unchanged.
    pub const HOST: TargetFeatures = TargetFeatures(None);

    /// The changes `changes` spells (`""`: none).
    pub fn new(changes: &str) -> TargetFeatures {
        if changes.is_empty() {
            return TargetFeatures::HOST;
        }
        static KEPT: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());
        let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&k) = kept.iter().find(|&&k| k == changes) {
            return TargetFeatures(Some(k));
        }
        // Kept for the process: one string per distinct change a program asks for.
        let k: &'static str = Box::leak(changes.into());
        kept.push(k);
        TargetFeatures(Some(k))
    }

    /// The changes [`FEATURES_VAR`] names (none when it is unset or empty): for programs, which
    /// pass them on; the library never calls it.
    pub fn from_env() -> TargetFeatures {
        TargetFeatures::new(&std::env::var(FEATURES_VAR).unwrap_or_default())
    }

    /// The changes as LLVM spells them (`""`: none).
    pub fn changes(self) -> &'static str {
        self.0.unwrap_or("")
    }
}

/// How a back end compiles a function: one set of options for both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CodegenOptions {
    /// Float math: accurate (the default everywhere: [`MathMode::default`]), exact
    /// (bit-identical to the interpreter) or fast.
    pub math: MathMode,
    /// Lanes per step, or 0 to choose per function ([`simd::step_lanes`](super::simd::step_lanes)). Cranelift takes 4,
    /// 8, 16 or 32 (every value is `lanes / 4` 128-bit registers); LLVM 4, 8, 16, 32 or 64
    /// (one vector a value, split by LLVM where it is wider than the host's registers).
    pub lanes: usize,
    /// The texture operations whose lookups the code samples itself ([`TexPaths`]): compiled
    /// for the sampler state they will run with.
    pub textures: TexPaths,
    /// Run the back end's IR verifier on the generated code (about twice the compile time).
    pub verify: bool,
    /// Changes to the host's CPU features for LLVM's code ([`TargetFeatures`]).
    pub features: TargetFeatures,
    /// Keep the back end's IR and the disassembly ([`CompiledShader::ir_text`](super::compiled::CompiledShader::ir_text),
    /// [`CompiledShader::asm`](super::compiled::CompiledShader::asm)); LLVM measures [`CompiledShader::code_size`](super::compiled::CompiledShader::code_size) only then.
    pub keep_text: bool,
}

impl Default for CodegenOptions {
    /// The default math ([`MathMode::default`], accurate, as the runtime, the command line
    /// and the C API have it), lanes chosen per function, every lookup through the runtime's
    /// callback, the verifier in debug builds, the host's CPU features, no text.
    fn default() -> Self {
        CodegenOptions {
            math: MathMode::default(),
            lanes: 0,
            textures: TexPaths::NONE,
            verify: cfg!(debug_assertions),
            features: TargetFeatures::HOST,
            keep_text: false,
        }
    }
}
