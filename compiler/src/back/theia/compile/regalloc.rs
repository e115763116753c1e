//! Register allocation: virtual registers onto R1..R12 by linear scan over the code, then onto
//! the constant registers C1..C7 that hold no constant (they are read/write and the ROM never
//! touches them).
//!
//! A virtual register is live from its first to its last mention; one live when a loop starts
//! and mentioned inside it stays live to the loop's end (the back edge reads it again). Two
//! registers share a physical one only when the first's last mention is where the second is
//! first written (an instruction reads its operands before it writes). There is no spilling
//! (b1.2 user code has no memory): a shader that needs more registers than are free is an error
//! naming its line.

use super::select::{Reg, Selection, VInst};
use super::{TheiaError, at};
use crate::tgsi::Program;

/// The address of R1.
const R1: u16 = 71;
/// R1..R12.
const COUNT: u16 = 12;
/// The address of C1.
const C1: u16 = 64;

/// A physical address per virtual register.
#[derive(Debug)]
pub(super) struct Allocation {
    /// Per virtual register (unused ones get R1).
    pub phys: Vec<u16>,
    /// Distinct registers used (R1..R12, and C registers used as scratch).
    pub used: usize,
}

fn regs(inst: &VInst) -> Vec<Reg> {
    match inst {
        VInst::Alu { dst, a, b, .. } => vec![*dst, *a, *b],
        VInst::Imm { dst, .. } => vec![*dst],
        VInst::Jump { a, b, .. } => vec![*a, *b],
        VInst::Keep(r) => r.clone(),
        _ => Vec::new(),
    }
}

pub(super) fn allocate(sel: &Selection, p: &Program) -> Result<Allocation, TheiaError> {
    let n = sel.vregs as usize;
    let mut start = vec![usize::MAX; n];
    let mut end = vec![0usize; n];
    let mut loops = Vec::new();
    let mut open = Vec::new();
    for (k, line) in sel.lines.iter().enumerate() {
        match line.inst {
            VInst::LoopStart => open.push(k),
            VInst::LoopEnd => loops.push((open.pop().expect("balanced loops"), k)),
            _ => {}
        }
        for r in regs(&line.inst) {
            if let Reg::V(v) = r {
                let v = v as usize;
                start[v] = start[v].min(k);
                end[v] = end[v].max(k);
            }
        }
    }
    // Live across a loop's back edge.
    loops.sort_by_key(|&(s, e)| e - s);
    let mut changed = true;
    while changed {
        changed = false;
        for &(s, e) in &loops {
            for v in 0..n {
                if start[v] < s && end[v] > s && end[v] < e {
                    end[v] = e;
                    changed = true;
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..n).filter(|&v| start[v] != usize::MAX).collect();
    order.sort_by_key(|&v| (start[v], end[v]));
    let mut phys = vec![R1; n];
    // R1..R12 first, then the C registers without a constant.
    let spare = C1 + sel.consts.len() as u16..R1;
    let available = COUNT as usize + spare.len();
    let mut free: Vec<u16> = (R1..R1 + COUNT).chain(spare).collect();
    let preference = |a: &u16| std::cmp::Reverse((*a < R1, *a));
    let mut active: Vec<usize> = Vec::new();
    let mut used = std::collections::BTreeSet::new();
    for v in order {
        active.retain(|&x| {
            if end[x] <= start[v] {
                free.push(phys[x]);
                false
            } else {
                true
            }
        });
        free.sort_unstable_by_key(preference);
        let Some(r) = free.pop() else {
            return Err(TheiaError::Registers {
                location: at(p, sel.lines[start[v]].origin),
                live: active.len() + 1,
                available,
            });
        };
        phys[v] = r;
        used.insert(r);
        active.push(v);
    }
    Ok(Allocation {
        phys,
        used: used.len(),
    })
}
