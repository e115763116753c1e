//! The one batch driver: runs an engine's batches on the calling thread or on worker threads,
//! each worker with its own batch registers and scratch, reused from call to call. The grid,
//! vertex and primitive runners ([`crate::dispatch`]) and the host API's runs over the host's
//! buffers ([`crate::host`]) all run their batches through it.

use crate::engine::{Arrangement, BATCH_LANES, BatchIo, Engine, RunError};
use std::sync::Mutex;

/// The most worker threads a run starts; more are clamped to it (results never depend on the
/// thread count, and each thread costs a stack).
pub const MAX_THREADS: usize = 1024;

/// Batches an engine runs in one call of [`Engine::run_batches`] at most (what depends on the
/// bindings alone is done once a run).
pub const RUN_BATCHES: usize = 32;

/// Reused working memory: a batch's registers and the engine's scratch.
type Slot<S> = (BatchIo, S);

/// A pool of working memory for one engine, so that runs after the first allocate nothing.
pub struct Slots<S>(Mutex<Vec<Slot<S>>>);

impl<S> Default for Slots<S> {
    fn default() -> Self {
        Slots(Mutex::new(Vec::new()))
    }
}

impl<S> std::fmt::Debug for Slots<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.0.lock().map_or(0, |v| v.len());
        write!(f, "Slots({n} kept)")
    }
}

impl<S> Slots<S> {
    fn take(&self, make: impl FnOnce() -> Slot<S>) -> Slot<S> {
        self.0
            .lock()
            .ok()
            .and_then(|mut v| v.pop())
            .unwrap_or_else(make)
    }

    fn give(&self, slot: Slot<S>) {
        if let Ok(mut v) = self.0.lock() {
            v.push(slot);
        }
    }
}

/// Where a run's pieces of work go: the calling thread, or the threads of a pool.
#[derive(Clone, Copy, Debug, Default)]
pub struct Workers<'p> {
    /// The pool, or `None` for the calling thread alone.
    pub pool: Option<&'p rayon::ThreadPool>,
}

impl<'p> Workers<'p> {
    /// The threads of `pool` (the calling thread alone for none, or a pool of one thread).
    pub fn of(pool: Option<&'p rayon::ThreadPool>) -> Workers<'p> {
        Workers {
            pool: pool.filter(|p| p.current_num_threads() > 1),
        }
    }

    /// The threads that run the pieces (1 for the calling thread).
    pub fn threads(&self) -> usize {
        self.pool.map_or(1, |p| p.current_num_threads())
    }

    /// `threads` worker threads (0: one per core, at most [`MAX_THREADS`]) for up to `pieces`
    /// pieces of work, started into `started`; the calling thread alone for one thread or one
    /// piece.
    ///
    /// # Errors
    /// [`RunError::Threads`] when the system refuses the threads.
    pub fn start(
        threads: usize,
        pieces: usize,
        started: &'p mut Option<rayon::ThreadPool>,
    ) -> Result<Workers<'p>, RunError> {
        if threads == 1 || pieces <= 1 {
            return Ok(Workers::default());
        }
        let threads = match threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        let p = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.min(MAX_THREADS).min(pieces))
            .build()
            .map_err(|e| RunError::Threads(e.to_string()))?;
        Ok(Workers {
            pool: Some(started.insert(p)),
        })
    }
}

/// How `batches` batches split into runs of consecutive batches for `workers`: at most
/// [`RUN_BATCHES`] a run and four runs a thread at least. Returns (batches a run, runs).
pub fn runs(batches: usize, workers: Workers<'_>) -> (usize, usize) {
    let per_run = batches
        .div_ceil(4 * workers.threads())
        .clamp(1, RUN_BATCHES);
    (per_run, batches.div_ceil(per_run))
}

/// Runs `work` on every item of `items` with `engine`'s working memory for lanes arranged as
/// `arrangement`, taken from `slots` (and given back), on `workers`; the results come back in
/// the order of `items`, or the first error.
///
/// # Errors
/// What `work` returns.
pub fn run<E, I, T>(
    engine: &E,
    arrangement: Arrangement,
    slots: &Slots<E::Scratch>,
    workers: Workers<'_>,
    items: Vec<I>,
    work: impl Fn(&mut BatchIo, &mut E::Scratch, I) -> Result<T, RunError> + Sync,
) -> Result<Vec<T>, RunError>
where
    E: Engine + Sync + ?Sized,
    E::Scratch: Send,
    I: Send,
    T: Send,
{
    let one = |item: I| {
        let (mut io, mut scratch) =
            slots.take(|| (BatchIo::new(engine.module(), arrangement), engine.scratch()));
        io.arrangement = arrangement;
        let result = work(&mut io, &mut scratch, item);
        slots.give((io, scratch));
        result
    };
    match workers.pool {
        Some(pool) if items.len() > 1 => {
            use rayon::prelude::*;
            pool.install(|| items.into_par_iter().map(one).collect())
        }
        _ => items.into_iter().map(one).collect(),
    }
}

/// The lanes of batch `b` of `count` invocations: the batch's first invocation and how many
/// it holds.
pub fn batch_lanes(count: usize, b: usize) -> (usize, usize) {
    let start = b * BATCH_LANES;
    (start, (count - start).min(BATCH_LANES))
}
