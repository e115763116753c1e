//! Compute dispatches on the interpreter, in softpipe's order (`sp_compute.c`,
//! `docs/semantics.md`, "Memory and work groups"): work groups one after another, x fastest,
//! then y, then z; inside a group one machine per 4 consecutive x (missing lanes masked off),
//! machines in z, y, x order; each runs until END or its next BARRIER or MEMBAR, and while any
//! stopped at one, all that have not ended resume, in the same order. Shared memory is zeroed
//! once per dispatch and keeps its contents from one group to the next.

use super::exec::{Exec, Regs, Suspended};
use crate::dispatch::RunControl;
use crate::engine::{
    Arrangement, Bindings, Memory, MemoryError, Module, Resources, RunError, check_memory,
};
use tgsic::tgsi::Semantic;

/// Invocations per machine, as tgsi_exec's quad.
const MACHINE_LANES: u32 = 4;

/// One machine of a work group: its registers, its lanes' position in the group, and where
/// it stopped.
struct Machine {
    regs: Regs,
    origin: [u32; 3],
    alive: u64,
    state: State,
}

enum State {
    Start,
    Stopped(Suspended),
    Ended,
}

/// Runs `m` over `grid` work groups with `res`'s buffers and images.
///
/// # Errors
/// [`MemoryError`]s for a grid, a work-group size or memory that does not fit, before
/// anything runs; the program's run errors (with their instruction); [`RunError::TimeLimit`]
/// past `control`'s deadline (checked before every machine's run).
pub(crate) fn dispatch(
    m: &Module,
    bind: &Bindings,
    res: &mut Resources<'_>,
    grid: [u32; 3],
    control: &RunControl<'_>,
) -> Result<(), RunError> {
    let block = m.block.ok_or(MemoryError::NoBlockSize)?;
    check_memory(&m.program, res, Some(grid))?;
    // softpipe runs compute machines without FTZ: denormals are kept.
    let _ieee = super::num::ieee_while(true);
    let mut shared = vec![0u8; res.shared_bytes as usize];
    let mut memory = Memory {
        resources: res,
        shared: &mut shared,
    };
    let sv = m.system_values();
    let mut machines = Vec::new();
    for z in 0..block[2] {
        for y in 0..block[1] {
            for x in (0..block[0]).step_by(MACHINE_LANES as usize) {
                let lanes = (block[0] - x).min(MACHINE_LANES);
                machines.push(Machine {
                    regs: Regs::new(m),
                    origin: [x, y, z],
                    alive: (1u64 << lanes) - 1,
                    state: State::Start,
                });
            }
        }
    }
    let groups = grid.map(u64::from).iter().product::<u64>();
    let total = groups * machines.len() as u64;
    let mut done = 0u64;
    for gz in 0..grid[2] {
        for gy in 0..grid[1] {
            for gx in 0..grid[0] {
                for mach in &mut machines {
                    mach.regs.reset();
                    system_values(&sv, &mut mach.regs, mach.origin, [gx, gy, gz], grid, block);
                    mach.state = State::Start;
                }
                loop {
                    let mut stopped = false;
                    for mach in &mut machines {
                        if let Some(d) = control.deadline
                            && std::time::Instant::now() > d
                        {
                            return Err(RunError::TimeLimit);
                        }
                        let state = std::mem::replace(&mut mach.state, State::Ended);
                        let mut ex = Exec::new(
                            m,
                            bind,
                            &mut mach.regs,
                            mach.alive,
                            Arrangement::Independent,
                        );
                        ex.mem = Some(&mut memory);
                        let pc = match state {
                            State::Ended => continue,
                            State::Start => 0,
                            State::Stopped(s) => ex.resume(s),
                        };
                        match ex.run_from(pc)? {
                            Some(next) => {
                                mach.state = State::Stopped(ex.suspend(next));
                                stopped = true;
                            }
                            None => mach.state = State::Ended,
                        }
                    }
                    if !stopped {
                        break;
                    }
                }
                done += machines.len() as u64;
                if let Some(p) = control.progress {
                    p(done, total);
                }
            }
        }
    }
    Ok(())
}

/// Fills the system values of a machine whose lane k is invocation `origin + (k, 0, 0)` of
/// work group `group`.
fn system_values(
    sv: &[(usize, Semantic)],
    regs: &mut Regs,
    origin: [u32; 3],
    group: [u32; 3],
    grid: [u32; 3],
    block: [u32; 3],
) {
    for &(r, sem) in sv {
        let Some(reg) = regs.sv.get_mut(r) else {
            continue;
        };
        for (l, k) in (0..MACHINE_LANES).enumerate() {
            let v: [u32; 3] = match sem {
                Semantic::ThreadId => [origin[0] + k, origin[1], origin[2]],
                Semantic::BlockId => group,
                Semantic::GridSize => grid,
                Semantic::BlockSize => block,
                _ => [0; 3],
            };
            for c in 0..3 {
                reg[c][l] = v[c];
            }
            reg[3][l] = 0;
        }
    }
}
