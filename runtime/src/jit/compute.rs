//! Compute dispatches on the JITs: work groups one after another (x fastest, then y, z, as
//! softpipe's), shared memory zeroed once per dispatch and kept from group to group, each
//! group's invocations in linear order (x fastest) in batches of 64 lanes. A program with
//! barriers runs every step of the group (the code's lanes per step) as a coroutine of its
//! own, on a stack of its own, which suspends at each barrier; the driver resumes the group's
//! coroutines in order until all have ended, so that every invocation reaches a barrier before
//! any goes past it (`docs/jit.md`, "Compute programs"). The memory instructions call back into
//! the runtime (`callbacks::memory_callback`), every access checked against the bound sizes.

use super::{JitShader, MemoryCtx};
use crate::batches::Workers;
use crate::dispatch::RunControl;
use crate::engine::{
    Arrangement, BATCH_LANES, BatchIo, Bindings, Engine, MemoryError, RawMemory, RawViews,
    Resources, RunError, check_memory,
};
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use tgsic::tgsi::{Opcode, Semantic};

/// Stack room of a coroutine beyond the code's frame: the callbacks' Rust code.
const CALLBACK_STACK: usize = 1 << 20;

/// One batch of a work group: invocations `first..first + count` in linear order, in lanes
/// 0..count, and their THREAD_ID components (the same in every group).
struct Chunk {
    alive: u64,
    local: [[u32; BATCH_LANES]; 3],
}

impl Chunk {
    fn new((first, count): (u32, u32), block: [u32; 3]) -> Chunk {
        let mut local = [[0u32; BATCH_LANES]; 3];
        for l in 0..BATCH_LANES {
            // Lanes past the count repeat the last invocation (they do not run).
            let i = first + (l as u32).min(count.saturating_sub(1));
            local[0][l] = i % block[0];
            local[1][l] = (i / block[0]) % block[1];
            local[2][l] = i / (block[0] * block[1]);
        }
        let alive = if count >= 64 {
            u64::MAX
        } else {
            (1u64 << count) - 1
        };
        Chunk { alive, local }
    }
}

/// Fills `io`'s lanes and system values with `chunk` of work group `group`.
fn fill(
    io: &mut BatchIo,
    sv: &[(usize, Semantic)],
    chunk: &Chunk,
    group: [u32; 3],
    grid: [u32; 3],
    block: [u32; 3],
) {
    io.alive = chunk.alive;
    for &(r, sem) in sv {
        let Some(reg) = io.sv.get_mut(r) else {
            continue;
        };
        let same = match sem {
            Semantic::ThreadId => {
                reg[..3].copy_from_slice(&chunk.local);
                reg[3] = [0; BATCH_LANES];
                continue;
            }
            Semantic::BlockId => group,
            Semantic::GridSize => grid,
            Semantic::BlockSize => block,
            _ => [0; 3],
        };
        for c in 0..3 {
            reg[c] = [same[c]; BATCH_LANES];
        }
        reg[3] = [0; BATCH_LANES];
    }
}

/// What every thread of a dispatch shares: the program's work-group shape and batches.
struct Plan<'a> {
    bind: &'a Bindings,
    grid: [u32; 3],
    block: [u32; 3],
    chunks: Vec<Chunk>,
    sv: Vec<(usize, Semantic)>,
    barriers: bool,
    shared_bytes: usize,
    control: &'a RunControl<'a>,
    /// Work groups done, for the progress callback.
    done: AtomicU64,
    /// Set when a thread failed: the others stop before their next group.
    failed: AtomicBool,
}

impl Plan<'_> {
    /// Work group `g` of the grid's linear order (x fastest).
    fn group(&self, g: u64) -> [u32; 3] {
        let [gx, gy, _] = self.grid.map(u64::from);
        [
            (g % gx) as u32,
            (g / gx % gy) as u32,
            (g / (gx * gy)) as u32,
        ]
    }

    /// Before a group: an error past the deadline or when another thread failed.
    fn may_go_on(&self) -> Result<(), RunError> {
        if let Some(d) = self.control.deadline
            && std::time::Instant::now() > d
        {
            return Err(RunError::TimeLimit);
        }
        if self.failed.load(Ordering::Relaxed) {
            return Err(RunError::Threads(
                "another thread of the dispatch failed".into(),
            ));
        }
        Ok(())
    }

    /// After a group.
    fn group_done(&self, total: u64) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(p) = self.control.progress {
            p(done, total);
        }
    }
}

impl JitShader {
    /// Runs a compute program over `grid` work groups with `res`'s memory, the groups split
    /// into one contiguous run per thread of `workers` (`host::Compiled::dispatch`).
    ///
    /// # Errors
    /// As the interpreter's dispatch; [`RunError::TimeLimit`] past the deadline (checked
    /// before each group and at each barrier: the group's batches then run to their end
    /// without waiting for each other, and the dispatch reports the time limit).
    pub(crate) fn dispatch(
        &self,
        bind: &Bindings,
        res: &mut Resources<'_>,
        grid: [u32; 3],
        control: &RunControl<'_>,
        workers: Workers<'_>,
    ) -> Result<(), RunError> {
        let m = self.module();
        let block = m.block.ok_or(MemoryError::NoBlockSize)?;
        check_memory(&m.program, res, Some(grid))?;
        let shared_bytes = res.shared_bytes as usize;
        let views = RawViews::new(res);
        let invocations = block.iter().product::<u32>();
        let barriers = m
            .program
            .instructions
            .iter()
            .any(|i| i.opcode == Opcode::Barrier);
        // With barriers, one coroutine per step; without, one batch after another.
        let width = if barriers {
            self.compiled.lanes_per_step.clamp(1, BATCH_LANES) as u32
        } else {
            BATCH_LANES as u32
        };
        let plan = Plan {
            bind,
            grid,
            block,
            chunks: (0..invocations)
                .step_by(width as usize)
                .map(|f| Chunk::new((f, width.min(invocations - f)), block))
                .collect(),
            sv: m.system_values(),
            barriers,
            shared_bytes,
            control,
            done: AtomicU64::new(0),
            failed: AtomicBool::new(false),
        };
        let total = grid.iter().map(|&g| g as u64).product::<u64>();
        let runs = (workers.threads() as u64).min(total).max(1);
        let Some(pool) = workers.pool.filter(|_| runs > 1) else {
            return self.groups(&plan, &views, 0..total, total);
        };
        // Run `r` takes groups `r·total/runs ..`: contiguous, as even as the count allows.
        let bounds = |r: u64| (r as u128 * total as u128 / runs as u128) as u64;
        let results: Vec<Result<(), RunError>> = pool.install(|| {
            use rayon::prelude::*;
            (0..runs)
                .into_par_iter()
                .map(|r| {
                    let result = self.groups(&plan, &views, bounds(r)..bounds(r + 1), total);
                    if result.is_err() {
                        plan.failed.store(true, Ordering::Relaxed);
                    }
                    result
                })
                .collect()
        });
        // The first failure that is not another thread's echo of one.
        let mut first: Result<(), RunError> = Ok(());
        for r in results {
            match (&first, r) {
                (_, Ok(())) => {}
                (Ok(()), Err(e)) => first = Err(e),
                (Err(RunError::Threads(_)), Err(e)) if !matches!(e, RunError::Threads(_)) => {
                    first = Err(e)
                }
                _ => {}
            }
        }
        first
    }

    /// Groups `range` (of the grid's linear order) one after another on this thread, with
    /// shared memory of their own, zeroed first and kept from group to group.
    fn groups(
        &self,
        plan: &Plan<'_>,
        views: &RawViews<'_>,
        range: std::ops::Range<u64>,
        total: u64,
    ) -> Result<(), RunError> {
        let m = self.module();
        let mut shared = vec![0u8; plan.shared_bytes];
        let memory = RefCell::new(RawMemory::new(views, &mut shared));
        let (chunks, sv) = (&plan.chunks, &plan.sv);
        let (grid, block) = (plan.grid, plan.block);
        let batches = if plan.barriers { chunks.len() } else { 1 };
        let mut ios: Vec<BatchIo> = (0..batches)
            .map(|_| BatchIo::new(m, Arrangement::Independent))
            .collect();
        let mut scratches: Vec<_> = (0..batches).map(|_| self.scratch()).collect();
        if !plan.barriers {
            // One run of batches for the whole range: each batch the next chunk of
            // invocations of the current group.
            let ctx = MemoryCtx {
                memory: &memory,
                barrier: None,
                ieee: true,
            };
            let mut work = range.flat_map(|g| chunks.iter().map(move |c| (g, c)));
            let mut last_group = None;
            let run = self.run_batches_in(
                plan.bind,
                &mut ios[0],
                &mut scratches[0],
                &mut |io, _| {
                    let Some((g, chunk)) = work.next() else {
                        return Ok(false);
                    };
                    if last_group != Some(g) {
                        plan.may_go_on()?;
                        if last_group.is_some() {
                            plan.group_done(total);
                        }
                        last_group = Some(g);
                    }
                    fill(io, sv, chunk, plan.group(g), grid, block);
                    Ok(true)
                },
                Some(&ctx),
            );
            if run.is_ok() && last_group.is_some() {
                plan.group_done(total);
            }
            return run;
        }
        let stack_bytes = self.compiled.stack_bytes.max(256 << 10) + CALLBACK_STACK;
        let mut stacks: Vec<DefaultStack> = Vec::new();
        for g in range {
            plan.may_go_on()?;
            for (io, chunk) in ios.iter_mut().zip(chunks) {
                fill(io, sv, chunk, plan.group(g), grid, block);
            }
            self.group_with_barriers(
                plan.bind,
                &memory,
                (&mut ios, &mut scratches),
                (&mut stacks, stack_bytes),
                plan.control,
            )?;
            plan.group_done(total);
        }
        Ok(())
    }

    /// A draw of a fragment shader with memory (`dispatch::draw`), each batch with `res`'s
    /// memory.
    ///
    /// # Errors
    /// As the interpreter's draw.
    pub(crate) fn draw(
        &self,
        bind: &Bindings,
        res: &mut Resources<'_>,
        frame: (u32, u32, u32),
        rect: [u32; 4],
        control: &RunControl<'_>,
        color: &mut dyn FnMut(u32, u32, [f32; 4]),
    ) -> Result<crate::dispatch::DrawReport, RunError> {
        let m = self.module();
        check_memory(&m.program, res, None)?;
        let mut shared: Vec<u8> = Vec::new();
        let views = RawViews::new(res);
        let memory = RefCell::new(RawMemory::new(&views, &mut shared));
        let ctx = MemoryCtx {
            memory: &memory,
            barrier: None,
            ieee: false,
        };
        let mut scratch = self.scratch();
        crate::dispatch::draw(m, frame, rect, control.deadline, color, &mut |io| {
            let mut report = None;
            self.run_batches_in(
                bind,
                io,
                &mut scratch,
                &mut |_, r| {
                    let first = r.is_none();
                    report = r;
                    Ok(first)
                },
                Some(&ctx),
            )?;
            report.ok_or(RunError::Internal(crate::engine::Internal::BatchDidNotRun))
        })
    }

    /// One work group of a program with barriers: a coroutine per batch (each one step's
    /// invocations), resumed in order while any is suspended at a barrier.
    fn group_with_barriers(
        &self,
        bind: &Bindings,
        memory: &RefCell<RawMemory<'_, '_>>,
        (ios, scratches): (&mut [BatchIo], &mut [super::JitScratch]),
        (stacks, stack_bytes): (&mut Vec<DefaultStack>, usize),
        control: &RunControl<'_>,
    ) -> Result<(), RunError> {
        // Past the deadline, barriers stop waiting: every batch runs to its end (a suspended
        // coroutine must not be dropped: its stack holds frames of generated code, which
        // cannot be unwound).
        let stop = Cell::new(false);
        let mut results: Vec<Result<(), RunError>> = Vec::with_capacity(ios.len());
        let mut coroutines = Vec::with_capacity(ios.len());
        for (io, scratch) in ios.iter_mut().zip(scratches.iter_mut()) {
            let stack = match stacks.pop() {
                Some(s) => s,
                None => DefaultStack::new(stack_bytes)
                    .map_err(|e| RunError::Threads(format!("a coroutine stack: {e}")))?,
            };
            let stop = &stop;
            let body = move |y: &Yielder<(), ()>, ()| -> Result<(), RunError> {
                let wait = || {
                    if !stop.get() {
                        y.suspend(());
                    }
                };
                let ctx = MemoryCtx {
                    memory,
                    barrier: Some(&wait),
                    ieee: true,
                };
                let mut first = true;
                self.run_batches_in(
                    bind,
                    io,
                    scratch,
                    &mut |_, _| Ok(std::mem::take(&mut first)),
                    Some(&ctx),
                )
            };
            // SAFETY: the coroutine borrows `bind`, `memory`, `stop`, `self` and its own
            // batch and scratch, all of which outlive it: every coroutine made here is resumed
            // until it has returned (the loop below), and only then dropped or its stack
            // taken back, before this function returns.
            let c: Coroutine<(), (), Result<(), RunError>, DefaultStack> =
                unsafe { Coroutine::with_stack_unchecked(stack, body) };
            coroutines.push(Some(c));
        }
        let mut live = coroutines.len();
        while live > 0 {
            if let Some(d) = control.deadline
                && std::time::Instant::now() > d
            {
                stop.set(true);
            }
            for slot in coroutines.iter_mut() {
                let Some(c) = slot else { continue };
                if let CoroutineResult::Return(r) = c.resume(()) {
                    results.push(r);
                    live -= 1;
                    if let Some(c) = slot.take() {
                        stacks.push(c.into_stack());
                    }
                }
            }
        }
        if stop.get() {
            return Err(RunError::TimeLimit);
        }
        results.into_iter().collect()
    }
}
