//! The runtime a host keeps: worker threads, its caches (`caches.rs`) and the background
//! compile thread of tiered shaders.

use super::caches::{Caches, Key};
use super::compiled::{Compiled, Runner};
use super::error::HostError;
use crate::batches::MAX_THREADS;
use crate::cache::{CacheDir, DEFAULT_MAX_BYTES};
use crate::engine::{CompileOptions, EngineKind, Module};
use crate::jit::tiered::{Background, TierPolicy, TieredShader};
use crate::jit::{CompileError, JitShader, JitSpec, Lookups};
use std::sync::Arc;
use tgsic::back::abi::JitError;
use tgsic::tgsi::Program;

/// How a [`Runtime`] runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeOptions {
    /// Worker threads: 0 for one per core, 1 to run on the calling thread, at most
    /// [`MAX_THREADS`] (more are clamped).
    pub threads: usize,
    /// Compiled shaders kept in memory; the least recently compiled or used goes first. 0
    /// keeps none.
    pub cache_entries: usize,
    /// Where compiled code is kept between processes (`docs/host-api.md`): by default the
    /// per-user cache folder, or `TGSIC_CACHE_DIR`.
    pub code_cache: CacheDir,
    /// The code cache's size bound in bytes.
    pub code_cache_bytes: u64,
}

impl Default for RuntimeOptions {
    fn default() -> Self {
        RuntimeOptions {
            threads: 0,
            cache_entries: 64,
            code_cache: CacheDir::Default,
            code_cache_bytes: DEFAULT_MAX_BYTES,
        }
    }
}

/// The worker threads and the compiled-shader cache a host keeps for its lifetime.
pub struct Runtime {
    pool: Option<rayon::ThreadPool>,
    /// The compiled shaders in memory and the code cache on disk.
    caches: Caches,
    compiles: std::sync::atomic::AtomicU64,
    /// How tiered shaders use their tiers.
    tiers: TierPolicy,
    /// The background compile thread of tiered shaders (dropped last: it finishes the compiles
    /// of live shaders, so that their code reaches the code cache).
    background: std::sync::OnceLock<Option<Arc<Background>>>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("threads", &self.threads())
            .field("cached", &self.caches.shaders())
            .finish()
    }
}

impl Runtime {
    /// Starts the worker threads (none with `threads: 1`).
    ///
    /// # Errors
    /// [`HostError::Threads`] when the system refuses them.
    pub fn new(opts: RuntimeOptions) -> Result<Runtime, HostError> {
        let threads = match opts.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        }
        .min(MAX_THREADS);
        let pool = if threads > 1 {
            Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .thread_name(|k| format!("tgsic-{k}"))
                    .build()
                    .map_err(|e| HostError::Threads(e.to_string()))?,
            )
        } else {
            None
        };
        let caches = Caches::open(opts.cache_entries, &opts.code_cache, opts.code_cache_bytes)?;
        Ok(Runtime {
            pool,
            caches,
            compiles: std::sync::atomic::AtomicU64::new(0),
            tiers: TierPolicy::default(),
            background: std::sync::OnceLock::new(),
        })
    }

    /// The folder of its code cache on disk (`None`: it has none).
    pub fn code_cache_dir(&self) -> Option<&std::path::Path> {
        self.caches.dir()
    }

    /// The entries of its code cache and the bytes they take (`None`: it has none).
    pub fn code_cache_usage(&self) -> Option<(usize, u64)> {
        self.caches.usage()
    }

    /// Removes every entry of its code cache (nothing without one).
    ///
    /// # Errors
    /// The first I/O error.
    pub fn clear_code_cache(&self) -> std::io::Result<()> {
        self.caches.clear()
    }

    /// The worker threads (none when the runtime runs on the calling thread): every run of
    /// its shaders runs on them.
    pub(crate) fn pool(&self) -> Option<&rayon::ThreadPool> {
        self.pool.as_ref()
    }

    /// Worker threads (1: the calling thread).
    pub fn threads(&self) -> usize {
        self.pool.as_ref().map_or(1, |p| p.current_num_threads())
    }

    /// Reads a shader (text or binary, detected), validates it and prepares it, once.
    ///
    /// # Errors
    /// [`HostError::Read`] naming the place in the text or the token, [`HostError::Load`] for an
    /// invalid program or one the token form cannot hold.
    pub fn load(&self, bytes: &[u8]) -> Result<Module, HostError> {
        let program = tgsic::front::read(bytes)?.program;
        self.module(program)
    }

    /// As [`Runtime::load`], for a program the host built or read itself.
    ///
    /// # Errors
    /// As [`Runtime::load`].
    pub fn module(&self, program: Program) -> Result<Module, HostError> {
        Ok(Module::new(program)?)
    }

    /// The module compiled for `opts`: from the cache when this runtime compiled the same
    /// program (token for token) with the same options before, else compiled now and cached.
    /// Texture lookups call back into the runtime's sampler until a run's bindings call for
    /// code that samples them itself, which that run compiles ([`Runtime::compile_for`]
    /// compiles it up front).
    ///
    /// # Errors
    /// [`HostError::Lift`] or [`HostError::Codegen`] when the program cannot be lifted or the back end cannot compile it (or is not in this build).
    pub fn compile(
        &self,
        module: &Module,
        opts: &CompileOptions,
    ) -> Result<Arc<Compiled>, HostError> {
        self.compile_for(module, opts, Lookups::Callback)
    }

    /// As [`Runtime::compile`], with the code `lookups` calls for compiled now: for
    /// [`Lookups::For`] the bindings a host will run with, the first run starts at once.
    ///
    /// # Errors
    /// As [`Runtime::compile`].
    pub fn compile_for(
        &self,
        module: &Module,
        opts: &CompileOptions,
        lookups: Lookups<'_>,
    ) -> Result<Arc<Compiled>, HostError> {
        let key: Key = (module.tokens().clone(), *opts);
        if let Some(compiled) = self.caches.shader(&key) {
            compiled.prepare(lookups)?;
            return Ok(compiled);
        }
        let spec = || JitSpec {
            module: Arc::new(module.clone()),
            opts: *opts,
            lookups,
            disk: self.caches.disk(),
            function: None,
        };
        let mut ran_with = *opts;
        let engine: Box<dyn Runner> = match opts.engine {
            EngineKind::Interpreter => Box::new(module.clone()),
            EngineKind::Cranelift | EngineKind::Llvm => Box::new(JitShader::compile(spec())?),
            EngineKind::Auto => match TieredShader::new(spec(), self.tiers, self.background()) {
                Ok(t) => Box::new(t),
                // What the JITs do not compile (DFMA without FMA) the default engine runs on
                // the interpreter; `Compiled::options` says so.
                Err(CompileError::Codegen(JitError::NotYet { .. })) => {
                    ran_with.engine = EngineKind::Interpreter;
                    Box::new(module.clone())
                }
                Err(e) => return Err(e.into()),
            },
        };
        self.compiles
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let compiled = Arc::new(Compiled::new(engine, ran_with));
        self.caches.keep(key, compiled.clone());
        Ok(compiled)
    }

    /// The background compile thread of tiered shaders, started the first time one is
    /// compiled (`None` when the system refused it: tiered shaders then stay on Cranelift).
    fn background(&self) -> Option<&Arc<Background>> {
        self.background
            .get_or_init(|| Background::start().ok().map(Arc::new))
            .as_ref()
    }

    /// Shaders compiled by [`Runtime::compile`] so far (cache hits not counted).
    pub fn compiles(&self) -> u64 {
        self.compiles.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Compiled shaders in the cache.
    pub fn cached(&self) -> usize {
        self.caches.shaders()
    }
}
