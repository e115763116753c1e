//! The interpreter's memory instructions: LOAD, STORE, RESQ and the atomics on buffers,
//! images and shared memory, lane by lane in lane order, as tgsi_exec runs them
//! (`docs/semantics.md`, "Memory and work groups"); each lane's access is the engines' shared
//! one (`engine::memory::apply`).

use super::exec::{Exec, lanes};
use crate::engine::{BATCH_LANES, Mask, MemoryError, Reg, RunError, apply};
use tgsic::ir::MemAccess;
use tgsic::tgsi::*;

/// Executes memory instruction `inst` for the lanes of `exec`.
pub(super) fn execute(ex: &mut Exec<'_>, inst: &Instruction, exec: Mask) -> Result<(), RunError> {
    let op = inst.opcode;
    let Some(mut access) = MemAccess::of(&ex.p.program, inst) else {
        return Err(RunError::Memory(MemoryError::NoMemory));
    };
    let resource = if op == Opcode::Store {
        &inst.dst[0].register
    } else {
        &inst.src[0].register
    };
    // The register the first executing lane names (tgsi_exec's rule for an indirect one); an
    // index below 0 names nothing, as an unbound one.
    if resource.index.indirect.is_some() {
        let at = ex.index_lanes(&resource.index);
        let first = (0..BATCH_LANES)
            .find(|&l| exec & (1 << l) != 0)
            .unwrap_or(0);
        access.index = u32::try_from(at[first]).unwrap_or(u32::MAX);
    }
    // tgsi_exec performs an atomic, and answers a buffer's RESQ, only for a destination that
    // writes x.
    let writes_x = access.mask & 1 != 0;
    let image = access.file == tgsic::ir::MemFile::Image;
    if (op.is_atomic() || (op == Opcode::Resq && !image)) && !writes_x {
        return Ok(());
    }
    // Stores and atomics leave helper invocations and discarded fragments out.
    let writers = exec & !ex.helpers & !ex.report.killed;
    let ftz = ex.p.program.processor != Processor::Compute;
    let coord_src = if op == Opcode::Store { 0 } else { 1 };
    let at = if op == Opcode::Resq {
        [[0; BATCH_LANES]; 4]
    } else {
        ex.fetch(&inst.src[coord_src], 0b111)
    };
    let values: Reg = match op {
        Opcode::Store => ex.fetch(&inst.src[1], 0xF),
        Opcode::Load | Opcode::Resq => [[0; BATCH_LANES]; 4],
        _ => {
            let a = ex.fetch(&inst.src[2], 1)[0];
            let b = match inst.src.get(3) {
                Some(s) => ex.fetch(s, 1)[0],
                None => [0; BATCH_LANES],
            };
            [a, b, [0; BATCH_LANES], [0; BATCH_LANES]]
        }
    };
    let Some(mem) = ex.mem.as_deref_mut() else {
        return Err(RunError::Memory(MemoryError::NoMemory));
    };
    let mut res: Reg = [[0; BATCH_LANES]; 4];
    let who = if matches!(op, Opcode::Load | Opcode::Resq) {
        exec
    } else {
        writers
    };
    for l in lanes(who) {
        let r = apply(
            mem,
            &access,
            [at[0][l], at[1][l], at[2][l]],
            [values[0][l], values[1][l], values[2][l], values[3][l]],
            ftz,
        );
        for c in 0..4 {
            res[c][l] = r[c];
        }
    }
    match op {
        Opcode::Store => {}
        Opcode::Load | Opcode::Resq => ex.write_result(inst, &res, exec),
        _ => {
            // An atomic's old value, in every channel; lanes that do not write keep the
            // operand, as tgsi_exec's register does.
            let mut old = values[0];
            for l in lanes(writers) {
                old[l] = res[0][l];
            }
            ex.write_result(inst, &[old; 4], exec);
        }
    }
    Ok(())
}
