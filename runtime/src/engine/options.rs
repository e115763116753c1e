//! What a host asks for when it compiles a shader: the engine, and how it compiles.

use tgsic::back::abi::MathMode;
use tgsic::back::{Backend, TargetFeatures};
use tgsic::opt::OptLevel;

/// The engines that run shaders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum EngineKind {
    /// The reference interpreter: bit-identical to Mesa's softpipe, nothing compiled.
    Interpreter,
    /// Native code from Cranelift: fast to compile, 128-bit vectors.
    #[default]
    Cranelift,
    /// Native code from LLVM 19 (cargo feature `llvm`): slower to compile, the host's widest
    /// vectors.
    Llvm,
    /// Tiered: Cranelift's code at once, LLVM's from a background thread as soon as it is
    /// ready (or from the code cache at once); the default where LLVM is built in. Without
    /// LLVM, Cranelift alone. A program the JITs do not compile (DFMA on a CPU without FMA)
    /// runs on the interpreter, and its `Compiled::options` say so.
    Auto,
}

impl EngineKind {
    /// Every engine, built in or not.
    pub const ALL: [EngineKind; 4] = [
        EngineKind::Interpreter,
        EngineKind::Cranelift,
        EngineKind::Llvm,
        EngineKind::Auto,
    ];

    /// The default engine of this build: [`EngineKind::Auto`] where LLVM is built in, else
    /// [`EngineKind::Cranelift`].
    pub fn best_default() -> EngineKind {
        if Backend::Llvm.available() {
            EngineKind::Auto
        } else {
            EngineKind::Cranelift
        }
    }

    /// The JIT back end that generates its code (none for the interpreter; the tiered engine
    /// has two, and names none).
    pub fn backend(self) -> Option<Backend> {
        match self {
            EngineKind::Interpreter | EngineKind::Auto => None,
            EngineKind::Cranelift => Some(Backend::Cranelift),
            EngineKind::Llvm => Some(Backend::Llvm),
        }
    }

    /// Whether this build has it.
    pub fn available(self) -> bool {
        self.backend().is_none_or(Backend::available)
    }

    /// Its name, as the command line and the C API's documentation spell it: `interp`,
    /// `cranelift`, `llvm` or `auto`.
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Interpreter => "interp",
            EngineKind::Cranelift => "cranelift",
            EngineKind::Llvm => "llvm",
            EngineKind::Auto => "auto",
        }
    }
}

impl From<Backend> for EngineKind {
    fn from(b: Backend) -> EngineKind {
        match b {
            Backend::Cranelift => EngineKind::Cranelift,
            Backend::Llvm => EngineKind::Llvm,
        }
    }
}

impl std::fmt::Display for EngineKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How to compile a shader: the one set of options of every engine, the key (with the
/// program's tokens) of the host's cache of compiled shaders. The interpreter compiles
/// nothing and computes exactly whatever `math` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CompileOptions {
    /// The engine.
    pub engine: EngineKind,
    /// Float math in generated code: accurate (the default), exact (bit-identical to the
    /// interpreter) or fast ([`MathMode`]).
    pub math: MathMode,
    /// Lanes per step of the generated code, 0 for the back end's choice per shader
    /// ([`tgsic::back::CodegenOptions::lanes`] says which widths each back end takes).
    pub lanes: usize,
    /// IR optimization before code generation.
    pub opt: OptLevel,
    /// Changes to the host's CPU features for LLVM's code (none by default; the command line
    /// passes `TGSIC_LLVM_FEATURES`' changes here).
    pub features: TargetFeatures,
}

impl Default for CompileOptions {
    /// The build's default engine ([`EngineKind::best_default`]: tiered where LLVM is built
    /// in, else Cranelift), accurate math (no less accurate than llvmpipe; `docs/math.md`),
    /// lanes chosen per shader, -O2, the host's CPU features.
    fn default() -> Self {
        CompileOptions {
            engine: EngineKind::best_default(),
            math: MathMode::Accurate,
            lanes: 0,
            opt: OptLevel::O2,
            features: TargetFeatures::HOST,
        }
    }
}

impl CompileOptions {
    /// The default options of `engine`.
    pub fn with_engine(engine: impl Into<EngineKind>) -> CompileOptions {
        CompileOptions {
            engine: engine.into(),
            ..CompileOptions::default()
        }
    }
}
