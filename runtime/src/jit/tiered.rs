//! Tiered compilation: a shader starts shading with Cranelift's code at once, while LLVM compiles
//! it on a background thread; between batches, as soon as LLVM's code is ready, its runs move
//! to it, within a frame too. Both tiers compile the same IR with the same math mode, so their
//! pixels are the same bits and the move cannot be seen.
//!
//! - [`Background`]: the compile thread: one, fed through a bounded queue; a job whose shader
//!   was dropped before it started is skipped (cancelled); its thread runs at the lowest
//!   scheduling priority, so that on a busy single core it takes no time from frames, until
//!   the shader has shaded long enough (twenty times what Cranelift took to compile it) that
//!   the better code is worth sharing the core for.
//! - [`TieredShader`]: the engine; [`TieredShader::wait`] blocks until the best code is ready
//!   (for a host that asks for it).

use super::{CacheUse, CompileError, JitScratch, JitShader, JitSpec, Lookups};
use crate::cache::DiskCache;
use crate::engine::{
    BatchIo, BatchReport, Bindings, CompileOptions, Engine, EngineKind, Feed, Internal, Module,
    RunError,
};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::time::{Duration, Instant};
use tgsic::back::texpath::TexPaths;

/// IR instructions past which a shader keeps its first tier's code: LLVM's machine scheduler
/// is superlinear in a function's size, and the largest real shaders of the corpora are far
/// below this (`results/compile-time.md`, "a pathological program").
const BEST_TIER_MAX_INSTS: usize = 20_000;

/// How many compiles may wait for the background thread; a shader whose job does not fit stays
/// on its first tier.
pub const QUEUE: usize = 64;

/// What became of a shader's best code.
#[derive(Debug, Clone)]
enum Best {
    /// Being compiled, or waiting to be.
    Pending,
    /// Ready.
    Ready(Arc<JitShader>),
    /// It could not be had (compile error, no LLVM, a full queue, the runtime gone): the
    /// first tier stays.
    None,
}

/// Where the background thread puts a shader's best code, and who waits for it.
#[derive(Debug)]
struct Slot {
    best: Mutex<Best>,
    ready: Condvar,
    /// Set once the best code is ready: what a batch reads, without the lock.
    done: AtomicBool,
    /// Set when the compile is worth sharing a core for (the thread's priority is raised).
    urgent: AtomicBool,
}

impl Slot {
    fn set(&self, b: Best) {
        let mut best = self.best.lock().unwrap_or_else(|e| e.into_inner());
        *best = b;
        self.done.store(true, Ordering::Release);
        self.ready.notify_all();
    }
}

/// How a tiered shader uses its two tiers: the engine of each, and how long the first tier
/// shades before the second's compile may share a core with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TierPolicy {
    /// The engine whose code runs at once.
    pub first: EngineKind,
    /// The engine whose code replaces it when the background thread has it.
    pub best: EngineKind,
    /// After shading this many times as long as the first tier took to compile, the
    /// background compile runs at normal priority.
    pub patience: u32,
}

impl Default for TierPolicy {
    /// Cranelift at once, LLVM when ready (this build's LLVM: without it the first tier
    /// stays); the background compile hurried after twenty times Cranelift's compile time of
    /// shading (`results/first-frame.md` measures the start-up this gives).
    fn default() -> Self {
        TierPolicy {
            first: EngineKind::Cranelift,
            best: EngineKind::Llvm,
            patience: 20,
        }
    }
}

/// A compile for the background thread: what to compile, and where to put it.
struct Job {
    module: Arc<Module>,
    /// The optimized IR, lifted once for both tiers.
    function: Arc<tgsic::ir::Function>,
    opts: CompileOptions,
    paths: TexPaths,
    disk: Option<Arc<DiskCache>>,
    /// Gone when the shader was dropped: the job is then skipped.
    slot: Weak<Slot>,
}

/// The background compile thread and its queue.
pub struct Background {
    queue: Option<SyncSender<Job>>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// The thread's id for its scheduling priority (0 until it has started).
    tid: Arc<AtomicU64>,
}

impl Background {
    /// Starts the thread.
    ///
    /// # Errors
    /// When the system refuses the thread.
    pub fn start() -> std::io::Result<Background> {
        let (tx, rx) = std::sync::mpsc::sync_channel(QUEUE);
        let tid = Arc::new(AtomicU64::new(0));
        let t = tid.clone();
        let thread = std::thread::Builder::new()
            .name("tgsic-compile".into())
            .spawn(move || work(rx, &t))?;
        Ok(Background {
            queue: Some(tx),
            thread: Some(thread),
            tid,
        })
    }

    /// Queues a job; a full queue or a stopped thread leaves the shader on its first tier.
    fn submit(&self, job: Job) {
        let slot = job.slot.clone();
        let sent = self.queue.as_ref().is_some_and(|q| q.try_send(job).is_ok());
        if !sent && let Some(slot) = slot.upgrade() {
            slot.set(Best::None);
        }
    }

    /// Raises the thread's scheduling priority to normal.
    fn hurry(&self) {
        set_priority(self.tid.load(Ordering::Relaxed), 0);
    }
}

impl std::fmt::Debug for Background {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Background")
            .field("running", &self.queue.is_some())
            .finish()
    }
}

impl Drop for Background {
    /// Finishes the jobs of shaders still alive (their code reaches the code cache for the next
    /// start) and stops the thread.
    fn drop(&mut self) {
        self.queue = None;
        self.hurry();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Sets the scheduling priority (nice value) of thread `tid` (0: not started, nothing done).
fn set_priority(tid: u64, nice: i32) {
    #[cfg(target_os = "linux")]
    if tid != 0 {
        // SAFETY: setpriority reads its three integer arguments only; a thread that has ended
        // makes it fail, which is ignored.
        unsafe {
            libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, nice);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (tid, nice);
}

/// The background thread: compiles the jobs of live shaders until the queue closes.
fn work(rx: Receiver<Job>, tid: &AtomicU64) {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: gettid takes nothing and returns this thread's id.
        let id = unsafe { libc::gettid() } as u64;
        tid.store(id, Ordering::Relaxed);
        set_priority(id, 19);
    }
    while let Ok(job) = rx.recv() {
        let Some(slot) = job.slot.upgrade() else {
            continue;
        };
        if slot.urgent.load(Ordering::Relaxed) {
            set_priority(tid.load(Ordering::Relaxed), 0);
        } else {
            set_priority(tid.load(Ordering::Relaxed), 19);
        }
        let best = JitShader::compile(JitSpec {
            module: job.module,
            opts: job.opts,
            lookups: Lookups::Paths(&job.paths),
            disk: job.disk,
            function: Some(job.function),
        });
        let best = match best {
            Ok(j) => Best::Ready(Arc::new(j)),
            Err(_) => Best::None,
        };
        slot.set(best);
    }
}

/// A shader compiled in two tiers: Cranelift's code now, LLVM's when the background thread
/// has it.
#[derive(Debug)]
pub struct TieredShader {
    module: Arc<Module>,
    /// Cranelift's code: none when LLVM's came from the code cache at once.
    first: Option<JitShader>,
    slot: Arc<Slot>,
    /// Nanoseconds shaded on the first tier: past [`TieredShader::patience`], the compile
    /// is hurried.
    shaded: AtomicU64,
    patience: Duration,
    background: Option<Weak<Background>>,
}

/// Working memory of both tiers.
#[derive(Debug)]
pub struct TieredScratch {
    first: Option<JitScratch>,
    best: Option<JitScratch>,
}

impl TieredShader {
    /// The shader `spec` describes (whose engine is [`EngineKind::Auto`]), in the tiers of
    /// `policy`, its code variant of `spec.lookups`: the best tier's from the code cache when
    /// it holds it, else the first tier's now and the best tier's from `background` (only
    /// when this build has that engine).
    ///
    /// # Errors
    /// [`CompileError`] when Cranelift cannot compile it.
    pub fn new(
        spec: JitSpec<'_>,
        policy: TierPolicy,
        background: Option<&Arc<Background>>,
    ) -> Result<TieredShader, CompileError> {
        let first_opts = CompileOptions {
            engine: policy.first,
            ..spec.opts
        };
        let best_opts = CompileOptions {
            engine: policy.best,
            ..spec.opts
        };
        let best_available = policy.best.available();
        let slot = Arc::new(Slot {
            best: Mutex::new(Best::Pending),
            ready: Condvar::new(),
            done: AtomicBool::new(false),
            urgent: AtomicBool::new(false),
        });
        // A second start: the best code from the cache at once, without lifting the program
        // when the cache holds its function's facts, and no first tier.
        if best_available && spec.disk.is_some() {
            let unlifted = JitSpec {
                module: spec.module.clone(),
                opts: best_opts,
                lookups: spec.lookups,
                disk: spec.disk.clone(),
                function: None,
            };
            if let Ok(Some(best)) = JitShader::from_cache_unlifted(&unlifted) {
                return Ok(TieredShader::best_only(spec.module, slot, best));
            }
        }
        // The IR, lifted once for both tiers.
        let function = JitShader::lift(&spec.module, &spec.opts)?;
        let tier = |opts: CompileOptions| JitSpec {
            module: spec.module.clone(),
            opts,
            lookups: spec.lookups,
            disk: spec.disk.clone(),
            function: Some(function.clone()),
        };
        // The same from a cache that holds the code but not the facts (evicted, or their store
        // failed): the facts are stored again.
        if best_available
            && spec.disk.is_some()
            && let Ok(Some(best)) = JitShader::from_cache(tier(best_opts))
        {
            return Ok(TieredShader::best_only(spec.module, slot, best));
        }
        let t = Instant::now();
        let first = match JitShader::compile(tier(first_opts)) {
            Ok(first) => first,
            // What the first tier does not compile (a 64-bit operation it has no lanes for)
            // the best tier compiles now, alone.
            Err(CompileError::Codegen(tgsic::back::abi::JitError::NotYet { .. }))
                if best_available =>
            {
                let best = JitShader::compile(tier(best_opts))?;
                return Ok(TieredShader::best_only(spec.module, slot, best));
            }
            Err(e) => return Err(e),
        };
        let patience = policy.patience * t.elapsed();
        let huge = function.body.inst_count() > BEST_TIER_MAX_INSTS;
        match (best_available && !huge, background, policy.best.backend()) {
            (true, Some(bg), Some(best_backend)) => {
                let paths = super::textures::texture_paths(
                    &first.facts().tex_ops,
                    best_backend,
                    spec.lookups,
                );
                bg.submit(Job {
                    module: spec.module.clone(),
                    function,
                    opts: best_opts,
                    paths,
                    disk: spec.disk,
                    slot: Arc::downgrade(&slot),
                });
            }
            _ => slot.set(Best::None),
        }
        Ok(TieredShader {
            module: spec.module,
            first: Some(first),
            slot,
            shaded: AtomicU64::new(0),
            patience,
            background: background.map(Arc::downgrade),
        })
    }

    /// A shader with the best tier's code `best` alone (from the code cache, or compiled now
    /// for want of a first tier).
    fn best_only(module: Arc<Module>, slot: Arc<Slot>, best: JitShader) -> TieredShader {
        slot.set(Best::Ready(Arc::new(best)));
        TieredShader {
            module,
            first: None,
            slot,
            shaded: AtomicU64::new(0),
            patience: Duration::ZERO,
            background: None,
        }
    }

    /// The best code when it is ready.
    fn best(&self) -> Option<Arc<JitShader>> {
        if !self.slot.done.load(Ordering::Acquire) {
            return None;
        }
        match &*self.slot.best.lock().unwrap_or_else(|e| e.into_inner()) {
            Best::Ready(b) => Some(b.clone()),
            _ => None,
        }
    }

    /// The tier that runs its next batch: LLVM once its code is ready, Cranelift before.
    pub fn tier(&self) -> EngineKind {
        if self.best().is_some() {
            EngineKind::Llvm
        } else {
            EngineKind::Cranelift
        }
    }

    /// Blocks until the background compile has ended; returns whether the best code is
    /// ready (it is not when LLVM failed or is not in this build).
    pub fn wait(&self) -> bool {
        self.slot.urgent.store(true, Ordering::Relaxed);
        if let Some(bg) = self.background.as_ref().and_then(Weak::upgrade) {
            bg.hurry();
        }
        let mut best = self.slot.best.lock().unwrap_or_else(|e| e.into_inner());
        while matches!(*best, Best::Pending) {
            best = self
                .slot
                .ready
                .wait(best)
                .unwrap_or_else(|e| e.into_inner());
        }
        matches!(*best, Best::Ready(_))
    }

    /// The code a batch runs now: the best when ready, else the first tier's.
    fn current(&self) -> Result<Tier<'_>, RunError> {
        if let Some(best) = self.best() {
            return Ok(Tier::Best(best));
        }
        self.first
            .as_ref()
            .map(Tier::First)
            .ok_or(RunError::Internal(Internal::TieredWithoutCode))
    }

    /// A compute dispatch on the tier that is ready (the same tier for the whole dispatch).
    ///
    /// # Errors
    /// As [`JitShader::dispatch`].
    pub(crate) fn dispatch(
        &self,
        bind: &Bindings,
        res: &mut crate::engine::Resources<'_>,
        grid: [u32; 3],
        control: &crate::dispatch::RunControl<'_>,
        workers: crate::batches::Workers<'_>,
    ) -> Result<(), RunError> {
        match self.current()? {
            Tier::Best(best) => best.dispatch(bind, res, grid, control, workers),
            Tier::First(first) => first.dispatch(bind, res, grid, control, workers),
        }
    }

    /// A draw with memory on the tier that is ready.
    ///
    /// # Errors
    /// As [`JitShader::draw`].
    pub(crate) fn draw(
        &self,
        bind: &Bindings,
        res: &mut crate::engine::Resources<'_>,
        frame: (u32, u32, u32),
        rect: [u32; 4],
        control: &crate::dispatch::RunControl<'_>,
        color: &mut dyn FnMut(u32, u32, [f32; 4]),
    ) -> Result<crate::dispatch::DrawReport, RunError> {
        match self.current()? {
            Tier::Best(best) => best.draw(bind, res, frame, rect, control, color),
            Tier::First(first) => first.draw(bind, res, frame, rect, control, color),
        }
    }

    /// Time spent compiling (or reading from the code cache) the code it started with.
    pub fn compile_time(&self) -> Duration {
        match (&self.first, self.best()) {
            (Some(f), _) => f.compile_time,
            (None, Some(b)) => b.compile_time,
            (None, None) => Duration::ZERO,
        }
    }

    /// Whether the code it started with came from the code cache.
    pub fn cache_use(&self) -> CacheUse {
        match &self.first {
            Some(f) => f.cache,
            None => CacheUse::Hit,
        }
    }

    /// The code of the tier that runs now for `lookups` ([`JitShader::code`]).
    ///
    /// # Errors
    /// As [`JitShader::code`].
    pub fn code(
        &self,
        lookups: Lookups<'_>,
    ) -> Result<Arc<tgsic::back::compiled::CompiledShader>, CompileError> {
        match self.current() {
            Ok(Tier::Best(b)) => b.code(lookups),
            Ok(Tier::First(f)) => f.code(lookups),
            Err(_) => Err(CompileError::Internal(Internal::TieredWithoutCode)),
        }
    }

    /// The code of the tier that runs now, compiled again with its text
    /// ([`JitShader::code_with_text`]).
    ///
    /// # Errors
    /// As [`JitShader::code_with_text`].
    pub fn code_with_text(
        &self,
        lookups: Lookups<'_>,
    ) -> Result<tgsic::back::compiled::CompiledShader, CompileError> {
        match self.current() {
            Ok(Tier::Best(b)) => b.code_with_text(lookups),
            Ok(Tier::First(f)) => f.code_with_text(lookups),
            Err(_) => Err(CompileError::Internal(Internal::TieredWithoutCode)),
        }
    }

    /// Counts `t` of shading on the first tier; past the patience, the compile is hurried.
    fn shaded_first(&self, t: Duration) {
        let total = self
            .shaded
            .fetch_add(t.as_nanos() as u64, Ordering::Relaxed)
            + t.as_nanos() as u64;
        if total > self.patience.as_nanos() as u64
            && !self.slot.urgent.swap(true, Ordering::Relaxed)
            && let Some(bg) = self.background.as_ref().and_then(Weak::upgrade)
        {
            bg.hurry();
        }
    }
}

/// The tier a batch runs on.
enum Tier<'a> {
    First(&'a JitShader),
    Best(Arc<JitShader>),
}

impl Engine for TieredShader {
    type Scratch = TieredScratch;

    fn module(&self) -> &Module {
        &self.module
    }

    /// Both tiers are JIT code, which reads component x of IN from the columns.
    fn reads_columns(&self) -> bool {
        true
    }

    fn scratch(&self) -> TieredScratch {
        TieredScratch {
            first: self.first.as_ref().map(JitShader::scratch),
            best: None,
        }
    }

    fn run_batch(
        &self,
        bind: &Bindings,
        io: &mut BatchIo,
        scratch: &mut TieredScratch,
    ) -> Result<BatchReport, RunError> {
        match self.current()? {
            Tier::Best(best) => {
                let s = scratch.best.get_or_insert_with(|| best.scratch());
                best.run_batch(bind, io, s)
            }
            Tier::First(first) => {
                let t = Instant::now();
                let s = scratch.first.get_or_insert_with(|| first.scratch());
                let r = first.run_batch(bind, io, s);
                self.shaded_first(t.elapsed());
                r
            }
        }
    }

    fn run_batches(
        &self,
        bind: &Bindings,
        io: &mut BatchIo,
        scratch: &mut TieredScratch,
        feed: &mut Feed<'_>,
    ) -> Result<(), RunError> {
        let first = match self.current()? {
            Tier::Best(best) => {
                let s = scratch.best.get_or_insert_with(|| best.scratch());
                return best.run_batches(bind, io, s, feed);
            }
            Tier::First(first) => first,
        };
        // On the first tier until the best code is ready: then the batch already filled runs
        // on it, with the rest of the run.
        let mut moved = false;
        let t = Instant::now();
        let s = scratch.first.get_or_insert_with(|| first.scratch());
        first.run_batches(bind, io, s, &mut |io, report| {
            let more = feed(io, report)?;
            if more && self.slot.done.load(Ordering::Acquire) && self.best().is_some() {
                moved = true;
                return Ok(false);
            }
            Ok(more)
        })?;
        self.shaded_first(t.elapsed());
        if !moved {
            return Ok(());
        }
        let Some(best) = self.best() else {
            return Err(RunError::Internal(Internal::BestCodeGone));
        };
        let s = scratch.best.get_or_insert_with(|| best.scratch());
        let mut first = true;
        best.run_batches(bind, io, s, &mut |io, report| {
            if std::mem::take(&mut first) {
                // `io` holds the batch the first tier's feed filled.
                return Ok(true);
            }
            feed(io, report)
        })
    }
}
