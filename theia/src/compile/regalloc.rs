//! Register allocation: virtual registers onto R1..R12, then onto the constant registers
//! C1..C7 that hold no constant (they are read/write and the ROM never touches them), then onto
//! [`UNNAMED`] addresses 116–127, then onto [`BIU_TEMPORARIES`], internal registers the ROM uses
//! only inside one routine.
//!
//! Liveness is computed on the code's control-flow graph (labels, jumps, fall-through), so a
//! value is live only where some path still reads it: a loop result written just before its
//! `BRK` does not occupy a register through the rest of the loop body, nor an `If` result
//! through the other arm. Two virtual registers interfere when one is live where the other is
//! written; an instruction reads its operands before it writes, so a result may take the
//! register of an operand that dies there. Registers are then colored greedily in the order the
//! values are first written. There is no spilling (b1.2 user code has no memory): a shader that
//! needs more registers than are free is an error naming the line where they run out.

use super::select::{Line, Reg, Selection, VInst};
use super::types::{TheiaError, at};
use std::collections::HashMap;
use tgsic::tgsi::Program;

/// The address of R1.
const R1: u16 = 71;
/// R1..R12.
const COUNT: u16 = 12;
/// The address of C1.
const C1: u16 = 64;

/// Addresses 116–127: read/write registers of the general bank (RMEM holds 64–127) that b1.2
/// gives no name and its ROM never reads or writes (later revisions named some of them).
pub(super) const UNNAMED: std::ops::RangeInclusive<u16> = 116..=127;

/// Internal registers that are the ray-triangle routine's (BIU, ROM 141–173) temporaries:
/// CREG_T, CREG_P, CREG_Q (88–90) and CREG_E1, CREG_E2, CREG_DELTA, CREG_u, CREG_v,
/// CREG_H1..H3 (100–107). Each BIU call writes every one of them before it reads it, no other
/// ROM routine and no hardware unit reads or writes them, and the pixel shader runs after the
/// geometry walk, so a pixel shader may use them as scratch. CREG_t (99) is not among them:
/// the texture-coordinate routine (TCC) reads it.
pub(super) const BIU_TEMPORARIES: [u16; 11] = [88, 89, 90, 100, 101, 102, 103, 104, 105, 106, 107];

/// A physical address per virtual register.
#[derive(Debug)]
pub(super) struct Allocation {
    /// Per virtual register (unused ones get R1).
    pub phys: Vec<u16>,
    /// Distinct registers used (R1..R12, and C registers used as scratch).
    pub used: usize,
}

/// A set of virtual registers.
#[derive(Clone, PartialEq, Eq)]
struct Set(Vec<u64>);

impl Set {
    fn new(n: usize) -> Set {
        Set(vec![0; n.div_ceil(64)])
    }
    fn insert(&mut self, v: usize) {
        self.0[v / 64] |= 1 << (v % 64);
    }
    fn remove(&mut self, v: usize) {
        self.0[v / 64] &= !(1 << (v % 64));
    }
    fn union(&mut self, o: &Set) {
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a |= b;
        }
    }
    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &bits)| {
            (0..64)
                .filter(move |b| bits & (1 << b) != 0)
                .map(move |b| w * 64 + b)
        })
    }
    fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }
}

fn v(r: Reg) -> Option<usize> {
    match r {
        Reg::V(x) => Some(x as usize),
        _ => None,
    }
}

/// The virtual registers a line reads and the one it writes.
fn uses_def(inst: &VInst) -> (Vec<usize>, Option<usize>) {
    match inst {
        VInst::Alu { dst, a, b, .. } => ([*a, *b].into_iter().filter_map(v).collect(), v(*dst)),
        // SETX/Y/Z and SWIZZLE3D merge into the old value.
        VInst::Imm { dst, .. } => (v(*dst).into_iter().collect(), v(*dst)),
        VInst::Jump { a, b, .. } => ([*a, *b].into_iter().filter_map(v).collect(), None),
        VInst::Keep(r) => (r.iter().copied().filter_map(v).collect(), None),
        VInst::Fresh(r) => (Vec::new(), v(*r)),
        _ => (Vec::new(), None),
    }
}

/// Successors of each line (indices; `lines.len()` is the routine's end).
fn successors(lines: &[Line]) -> Vec<Vec<usize>> {
    let labels: HashMap<u32, usize> = lines
        .iter()
        .enumerate()
        .filter_map(|(k, l)| match l.inst {
            VInst::Label(t) => Some((t, k)),
            _ => None,
        })
        .collect();
    let target = |t: &u32| *labels.get(t).expect("every jump target is placed");
    lines
        .iter()
        .enumerate()
        .map(|(k, l)| match &l.inst {
            VInst::Jump { target: t, .. } => vec![k + 1, target(t)],
            VInst::Jmp(t) => vec![target(t)],
            _ => vec![k + 1],
        })
        .collect()
}

pub(super) fn allocate(sel: &Selection, p: &Program) -> Result<Allocation, TheiaError> {
    let n = sel.vregs as usize;
    let lines = &sel.lines;
    let succ = successors(lines);
    let ud: Vec<(Vec<usize>, Option<usize>)> = lines.iter().map(|l| uses_def(&l.inst)).collect();
    // Backward liveness to a fixed point: live_out[k] = ∪ live_in[succ].
    let empty = Set::new(n);
    let mut live_in = vec![empty.clone(); lines.len() + 1];
    let mut live_out = vec![empty.clone(); lines.len()];
    let mut changed = true;
    while changed {
        changed = false;
        for k in (0..lines.len()).rev() {
            let mut out = empty.clone();
            for &s in &succ[k] {
                out.union(&live_in[s]);
            }
            let mut inn = out.clone();
            if let Some(d) = ud[k].1 {
                inn.remove(d);
            }
            for &u in &ud[k].0 {
                inn.insert(u);
            }
            if inn != live_in[k] {
                live_in[k] = inn;
                changed = true;
            }
            live_out[k] = out;
        }
    }
    // Interference: a value written at k conflicts with everything else live after k.
    let mut conflicts = vec![empty.clone(); n];
    let mut first_def = vec![usize::MAX; n];
    for k in 0..lines.len() {
        if let Some(d) = ud[k].1 {
            first_def[d] = first_def[d].min(k);
            for x in live_out[k].iter() {
                if x != d {
                    conflicts[d].insert(x);
                    conflicts[x].insert(d);
                }
            }
        }
    }
    // Values read before any write on some path (live at the start) conflict with all that
    // are written while they are live; they are colored first.
    for x in live_in[0].iter() {
        first_def[x] = 0;
    }
    let mut order: Vec<usize> = (0..n).filter(|&x| first_def[x] != usize::MAX).collect();
    order.sort_by_key(|&x| (first_def[x], x));
    // R1..R12 first, then the C registers without a constant, then the unnamed registers and
    // the BIU temporaries that the code does not name itself (an input bound to one, say).
    let named: std::collections::BTreeSet<u16> = lines
        .iter()
        .flat_map(|l| match &l.inst {
            VInst::Alu { dst, a, b, .. } => vec![*dst, *a, *b],
            VInst::Imm { dst, .. } => vec![*dst],
            VInst::Jump { a, b, .. } => vec![*a, *b],
            _ => Vec::new(),
        })
        .filter_map(|r| match r {
            Reg::Phys(a) => Some(a),
            _ => None,
        })
        .collect();
    let spare = C1 + sel.consts.len() as u16..R1;
    let candidates: Vec<u16> = (R1..R1 + COUNT)
        .chain(spare)
        .chain(
            UNNAMED
                .chain(BIU_TEMPORARIES)
                .filter(|a| !named.contains(a)),
        )
        .collect();
    let available = candidates.len();
    let mut phys = vec![R1; n];
    let mut assigned = vec![false; n];
    let mut used = std::collections::BTreeSet::new();
    for x in order {
        let taken: Vec<u16> = conflicts[x]
            .iter()
            .filter(|&y| assigned[y])
            .map(|y| phys[y])
            .collect();
        let Some(&r) = candidates.iter().find(|r| !taken.contains(r)) else {
            let k = first_def[x];
            let distinct: std::collections::BTreeSet<u16> = taken.iter().copied().collect();
            return Err(TheiaError::Registers {
                location: at(p, lines[k].origin),
                live: live_out[k].len().max(distinct.len() + 1),
                available,
            });
        };
        phys[x] = r;
        assigned[x] = true;
        used.insert(r);
    }
    Ok(Allocation {
        phys,
        used: used.len(),
    })
}
