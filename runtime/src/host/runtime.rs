//! The runtime a host keeps (worker threads, the compiled-shader cache), what it compiles, and
//! the errors of every host call.

use crate::batches::{MAX_THREADS, Slots};
use crate::cache::CacheDir;
use crate::cache::{DEFAULT_MAX_BYTES, DiskCache};
use crate::engine::{CompileOptions, EngineKind, Module, Reflection};
use crate::engine::{Engine, LoadError, RunError};
use crate::jit::tiered::{Background, TieredShader};
use crate::jit::{CacheUse, Lookups};
use crate::jit::{CompileError, JitShader};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use tgsic::back::compiled::CompiledShader;
use tgsic::tgsi::Program;
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

/// How a [`Runtime`] runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeOptions {
    /// Worker threads: 0 for one per core, 1 to run on the calling thread, at most
    /// [`MAX_THREADS`] (more are clamped).
    pub threads: usize,
    /// Compiled shaders kept in memory; the least recently compiled or used goes first. 0
    /// keeps none.
    pub cache_entries: usize,
    /// Where compiled code is kept between processes ([`crate::cache`]): by default the
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

enum Inner {
    Interp(Box<Module>),
    Jit(Box<JitShader>),
    Tiered(Box<TieredShader>),
}

/// A shader compiled for one engine, ready to run any number of times (from any thread).
pub struct Compiled {
    engine: Inner,
    /// Working memory its runs reuse.
    pub(super) slots: Slots<CompiledScratch>,
    pub(super) reflection: Arc<Reflection>,
    options: CompileOptions,
}

impl std::fmt::Debug for Compiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compiled")
            .field("options", &self.options)
            .field("processor", &self.reflection.processor)
            .finish()
    }
}

/// Working memory of a [`Compiled`] shader's engine, for running it through the
/// [`crate::dispatch`] functions (images, vertex and primitive files).
pub enum CompiledScratch {
    /// The interpreter's.
    Interp(<Module as Engine>::Scratch),
    /// A JIT's.
    Jit(<JitShader as Engine>::Scratch),
    /// A tiered shader's (both tiers').
    Tiered(<TieredShader as Engine>::Scratch),
}

/// A compiled shader is an [`Engine`]: the [`crate::dispatch`] functions (`render_rows`,
/// `run_vertices`, `run_geometry`, ...) run it as they run the interpreter or a JIT, which is
/// how the command-line program runs what the host API compiled.
impl Engine for Compiled {
    type Scratch = CompiledScratch;

    fn module(&self) -> &Module {
        match &self.engine {
            Inner::Interp(s) => s,
            Inner::Jit(j) => j.module(),
            Inner::Tiered(t) => t.module(),
        }
    }

    fn reads_columns(&self) -> bool {
        match &self.engine {
            Inner::Interp(s) => s.reads_columns(),
            Inner::Jit(j) => j.reads_columns(),
            Inner::Tiered(t) => t.reads_columns(),
        }
    }

    fn scratch(&self) -> CompiledScratch {
        match &self.engine {
            Inner::Interp(s) => CompiledScratch::Interp(s.scratch()),
            Inner::Jit(j) => CompiledScratch::Jit(j.scratch()),
            Inner::Tiered(t) => CompiledScratch::Tiered(t.scratch()),
        }
    }

    fn run_batch(
        &self,
        bind: &crate::engine::Bindings,
        io: &mut crate::engine::BatchIo,
        scratch: &mut CompiledScratch,
    ) -> Result<crate::engine::BatchReport, RunError> {
        match (&self.engine, scratch) {
            (Inner::Interp(s), CompiledScratch::Interp(x)) => s.run_batch(bind, io, x),
            (Inner::Jit(j), CompiledScratch::Jit(x)) => j.run_batch(bind, io, x),
            (Inner::Tiered(t), CompiledScratch::Tiered(x)) => t.run_batch(bind, io, x),
            _ => Err(RunError::Unsupported(
                "working memory made for another engine".into(),
            )),
        }
    }

    fn run_batches(
        &self,
        bind: &crate::engine::Bindings,
        io: &mut crate::engine::BatchIo,
        scratch: &mut CompiledScratch,
        feed: &mut crate::engine::Feed<'_>,
    ) -> Result<(), RunError> {
        match (&self.engine, scratch) {
            (Inner::Interp(s), CompiledScratch::Interp(x)) => s.run_batches(bind, io, x, feed),
            (Inner::Jit(j), CompiledScratch::Jit(x)) => j.run_batches(bind, io, x, feed),
            (Inner::Tiered(t), CompiledScratch::Tiered(x)) => t.run_batches(bind, io, x, feed),
            _ => Err(RunError::Unsupported(
                "working memory made for another engine".into(),
            )),
        }
    }
}

impl Compiled {
    /// How long lifting, optimizing and code generation took (zero for the interpreter).
    pub fn compile_time(&self) -> std::time::Duration {
        match &self.engine {
            Inner::Interp(..) => std::time::Duration::ZERO,
            Inner::Jit(j) => j.compile_time,
            Inner::Tiered(t) => t.compile_time(),
        }
    }

    /// The shader's interface.
    pub fn reflection(&self) -> &Reflection {
        &self.reflection
    }

    /// The options it was compiled with.
    pub fn options(&self) -> CompileOptions {
        self.options
    }

    /// The engine it was compiled for ([`CompileOptions::engine`]).
    pub fn engine(&self) -> EngineKind {
        self.options.engine
    }

    /// The engine that runs its next batch: for a tiered shader ([`EngineKind::Auto`]) the tier,
    /// Cranelift until LLVM's code is ready, then LLVM.
    pub fn tier(&self) -> EngineKind {
        match &self.engine {
            Inner::Tiered(t) => t.tier(),
            _ => self.options.engine,
        }
    }

    /// Waits until a tiered shader's best code is ready (or could not be had: without LLVM, or
    /// when LLVM fails); returns the tier that then runs. Other shaders return at once.
    pub fn wait_for_best(&self) -> EngineKind {
        if let Inner::Tiered(t) = &self.engine {
            t.wait();
        }
        self.tier()
    }

    /// Whether its code came from the code cache on disk (for the interpreter, and without a
    /// cache, [`CacheUse::Off`]).
    pub fn cache_use(&self) -> CacheUse {
        match &self.engine {
            Inner::Interp(..) => CacheUse::Off,
            Inner::Jit(j) => j.cache,
            Inner::Tiered(t) => t.cache_use(),
        }
    }

    /// The machine code of the variant `lookups` calls for, compiled again with the back
    /// end's IR and the disassembly kept ([`CompiledShader::ir_text`],
    /// [`CompiledShader::asm`]): what a run with those lookups executes, to read or measure.
    ///
    /// # Errors
    /// [`HostError::NoCode`] for a shader the interpreter runs, [`HostError::Compile`] when
    /// the back end fails.
    pub fn code_text(&self, lookups: Lookups<'_>) -> Result<CompiledShader, HostError> {
        match &self.engine {
            Inner::Interp(..) => Err(HostError::NoCode),
            Inner::Jit(j) => Ok(j.code_with_text(lookups)?),
            Inner::Tiered(t) => Ok(t.code_with_text(lookups)?),
        }
    }
}

type Key = (Arc<[u32]>, CompileOptions);

/// The worker threads and the compiled-shader cache a host keeps for its lifetime.
pub struct Runtime {
    pool: Option<rayon::ThreadPool>,
    cache: Mutex<VecDeque<(Key, Arc<Compiled>)>>,
    capacity: usize,
    compiles: std::sync::atomic::AtomicU64,
    /// The code cache on disk, if any.
    disk: Option<Arc<DiskCache>>,
    /// The background compile thread of tiered shaders (dropped last: it finishes the compiles
    /// of live shaders, so that their code reaches the code cache).
    background: std::sync::OnceLock<Option<Arc<Background>>>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("threads", &self.threads())
            .field("capacity", &self.capacity)
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
        // A folder the host names must be usable; the default one may be missing (no home, a
        // read-only one), and then there is no code cache.
        let disk = match opts.code_cache.resolve() {
            None => None,
            Some(dir) => match DiskCache::open(&dir, opts.code_cache_bytes) {
                Ok(c) => Some(Arc::new(c)),
                Err(e) if matches!(opts.code_cache, CacheDir::At(_)) => {
                    return Err(HostError::Cache(format!("{}: {e}", dir.display())));
                }
                Err(_) => None,
            },
        };
        Ok(Runtime {
            pool,
            cache: Mutex::new(VecDeque::new()),
            capacity: opts.cache_entries,
            compiles: std::sync::atomic::AtomicU64::new(0),
            disk,
            background: std::sync::OnceLock::new(),
        })
    }

    /// The code cache on disk, if this runtime has one.
    pub fn code_cache(&self) -> Option<&DiskCache> {
        self.disk.as_deref()
    }

    /// The worker threads (none when the runtime runs on the calling thread), for
    /// [`crate::dispatch::RunOptions::pool`]: the `dispatch` functions then run on them too.
    pub fn pool(&self) -> Option<&rayon::ThreadPool> {
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
    /// [`HostError::Compile`] when the back end cannot compile it (or is not in this build).
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
        if let Some(compiled) = self.lookup(&key) {
            if let Inner::Jit(j) = &compiled.engine
                && !matches!(lookups, Lookups::Callback)
            {
                j.code(lookups)?;
            }
            return Ok(compiled);
        }
        let engine =
            match opts.engine {
                EngineKind::Interpreter => Inner::Interp(Box::new(module.clone())),
                EngineKind::Cranelift | EngineKind::Llvm => Inner::Jit(Box::new(
                    JitShader::cached(module.clone(), opts, lookups, self.disk.clone())?,
                )),
                EngineKind::Auto => Inner::Tiered(Box::new(TieredShader::new(
                    module.clone(),
                    opts,
                    lookups,
                    self.disk.clone(),
                    self.background(),
                )?)),
            };
        self.compiles
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let compiled = Arc::new(Compiled {
            engine,
            slots: Slots::default(),
            reflection: module.reflection_arc().clone(),
            options: *opts,
        });
        if let Ok(mut cache) = self.cache.lock()
            && self.capacity > 0
        {
            if cache.len() >= self.capacity {
                cache.pop_front();
            }
            cache.push_back((key, compiled.clone()));
        }
        Ok(compiled)
    }

    /// The background compile thread of tiered shaders, started the first time one is
    /// compiled (`None` when the system refused it: tiered shaders then stay on Cranelift).
    fn background(&self) -> Option<&Arc<Background>> {
        self.background
            .get_or_init(|| Background::start().ok().map(Arc::new))
            .as_ref()
    }

    /// The cached shader of `key`, now the most recently used.
    fn lookup(&self, key: &Key) -> Option<Arc<Compiled>> {
        let mut cache = self.cache.lock().ok()?;
        let k = cache.iter().position(|(k, _)| k == key)?;
        // Most recently used at the back.
        let entry = cache.remove(k)?;
        let compiled = entry.1.clone();
        cache.push_back(entry);
        Some(compiled)
    }

    /// Shaders compiled by [`Runtime::compile`] so far (cache hits not counted).
    pub fn compiles(&self) -> u64 {
        self.compiles.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Compiled shaders in the cache.
    pub fn cached(&self) -> usize {
        self.cache.lock().map_or(0, |c| c.len())
    }
}
