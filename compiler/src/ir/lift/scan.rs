//! Whole-program facts the lifter needs before it emits anything: storage sizes and clamp
//! ranges (as the interpreter allocates them), which registers live in arrays, the block
//! structure, and which variables a range of instructions may write.

use super::var::Var;
use crate::ir::{ArrayDecl, ArrayKind};
use crate::maps::FastMap;
use crate::tgsi::*;
use std::collections::BTreeSet;

/// Storage layout: what is a variable, what is an array, and the clamp ranges.
#[derive(Debug, Default)]
pub(super) struct Layout {
    /// One past the highest declared register of each file.
    pub sizes: FastMap<File, u32>,
    /// The span of each file's declarations (clamp range of indirect access without an id).
    pub spans: FastMap<File, RegRange>,
    /// The range of each declared array id.
    pub array_ids: FastMap<(File, u32), RegRange>,
    /// The arrays of indirectly addressed TEMP and OUT registers.
    pub arrays: Vec<ArrayDecl>,
    /// Registers (file, index) that are directly referenced somewhere.
    pub referenced: BTreeSet<(File, u32)>,
    /// NV condition registers referenced.
    pub cc_regs: BTreeSet<u8>,
    /// Whether PUSHA or POPA occurs.
    pub uses_stack: bool,
}

impl Layout {
    pub fn new(p: &Program) -> Layout {
        let mut l = Layout::default();
        for d in &p.declarations {
            let span = d.span();
            let e = l.sizes.entry(d.file).or_default();
            *e = (*e).max(span.last + 1);
            l.spans
                .entry(d.file)
                .and_modify(|r| {
                    r.first = r.first.min(span.first);
                    r.last = r.last.max(span.last);
                })
                .or_insert(span);
            if let Some(id) = d.array_id {
                l.array_ids.insert((d.file, id), span);
            }
        }
        // Ranges addressed indirectly become arrays (merged when they overlap).
        let mut ranges: Vec<(File, RegRange)> = Vec::new();
        let mut visit = |l: &mut Layout, r: &Register| {
            if matches!(r.file, File::Temporary | File::Output) && r.index.indirect.is_some() {
                ranges.push((r.file, l.clamp_range(r)));
            }
            if r.index.indirect.is_none() && r.index.offset >= 0 {
                l.referenced.insert((r.file, r.index.offset as u32));
            }
        };
        for inst in &p.instructions {
            for r in registers(inst) {
                visit(&mut l, r);
            }
            for o in &inst.tex_offsets {
                if o.index >= 0 {
                    l.referenced.insert((o.file, o.index as u32));
                }
            }
            for t in inst
                .cond_test
                .iter()
                .chain(inst.dst.iter().filter_map(|d| d.cond.as_ref()))
            {
                l.cc_regs.insert(t.index);
            }
            if let Some(n) = inst.cond_update {
                l.cc_regs.insert(n);
            }
            if matches!(inst.opcode, Opcode::Pusha | Opcode::Popa) {
                l.uses_stack = true;
            }
        }
        ranges.sort_by_key(|(f, r)| (*f as u32, r.first, r.last));
        let mut merged: Vec<(File, RegRange)> = Vec::new();
        for (file, r) in ranges {
            match merged.last_mut() {
                Some((f, m)) if *f == file && r.first <= m.last => m.last = m.last.max(r.last),
                _ => merged.push((file, r)),
            }
        }
        l.arrays = merged
            .into_iter()
            .map(|(file, r)| ArrayDecl {
                kind: if file == File::Output {
                    ArrayKind::Output
                } else {
                    ArrayKind::Temp
                },
                first: r.first,
                len: r.last - r.first + 1,
            })
            .collect();
        l
    }

    /// The size (one past the highest declared register) of `file`.
    pub fn size(&self, file: File) -> u32 {
        self.sizes.get(&file).copied().unwrap_or(0)
    }

    /// The clamp range of an indirect access to `r` (its array id's range, else its file's
    /// span), exactly as the interpreter computes it.
    pub fn clamp_range(&self, r: &Register) -> RegRange {
        r.array_id
            .and_then(|id| self.array_ids.get(&(r.file, id)).copied())
            .or_else(|| self.spans.get(&r.file).copied())
            .unwrap_or(RegRange { first: 0, last: 0 })
    }

    /// The array holding register `index` of `file`, if any.
    pub fn array_of(&self, file: File, index: i64) -> Option<u32> {
        let kind = match file {
            File::Temporary => ArrayKind::Temp,
            File::Output => ArrayKind::Output,
            _ => return None,
        };
        self.arrays
            .iter()
            .position(|a| {
                a.kind == kind && index >= a.first as i64 && index < (a.first + a.len) as i64
            })
            .map(|k| k as u32)
    }

    /// Whether register `index` of `file` is a variable (per-component SSA values).
    pub fn is_var(&self, file: File, index: i64) -> bool {
        match file {
            File::Temporary | File::Output | File::Address => {
                index >= 0 && index < self.size(file) as i64 && self.array_of(file, index).is_none()
            }
            _ => false,
        }
    }

    /// The variable of component `c` of register `index` of a variable file.
    pub fn var(file: File, index: u32, c: u8) -> Option<Var> {
        match file {
            File::Temporary => Some(Var::Temp(index, c)),
            File::Output => Some(Var::Out(index, c)),
            File::Address => Some(Var::Addr(index, c)),
            _ => None,
        }
    }
}

/// Every register an instruction names: destinations, sources, and the registers of their
/// indirect indices (recursively).
pub(super) fn registers(inst: &Instruction) -> Vec<&Register> {
    fn add<'a>(r: &'a Register, out: &mut Vec<&'a Register>) {
        out.push(r);
        for idx in std::iter::once(&r.index).chain(r.dimensions.iter()) {
            if let Some(ind) = &idx.indirect {
                add(&ind.register, out);
            }
        }
    }
    let mut out = Vec::new();
    for d in &inst.dst {
        add(&d.register, &mut out);
    }
    for s in &inst.src {
        add(&s.register, &mut out);
    }
    out
}

/// The block structure of a program.
#[derive(Debug)]
pub(super) struct Structure {
    /// For IF: its ELSE or ENDIF; for ELSE: its ENDIF.
    pub next: Vec<u32>,
    /// For block openers (IF, loops, SWITCH, BGNSUB): the closing instruction.
    pub end: Vec<u32>,
    /// The CASE and DEFAULT instructions of each SWITCH, in order.
    pub labels: FastMap<usize, Vec<usize>>,
}

impl Structure {
    pub fn new(p: &Program) -> Structure {
        let n = p.instructions.len();
        let mut s = Structure {
            next: vec![u32::MAX; n],
            end: vec![u32::MAX; n],
            labels: FastMap::default(),
        };
        let mut stack: Vec<(usize, usize)> = Vec::new(); // (opener, last middle)
        for (i, inst) in p.instructions.iter().enumerate() {
            match inst.opcode.flow() {
                Some(FlowOp::If | FlowOp::BeginLoop(_) | FlowOp::Switch | FlowOp::BeginSub) => {
                    stack.push((i, i))
                }
                Some(FlowOp::Else) => {
                    if let Some((_, mid)) = stack.last_mut() {
                        s.next[*mid] = i as u32;
                        *mid = i;
                    }
                }
                Some(FlowOp::Case | FlowOp::Default) => {
                    if let Some(&(open, _)) = stack.last() {
                        s.labels.entry(open).or_default().push(i);
                    }
                }
                Some(FlowOp::EndIf | FlowOp::EndLoop(_) | FlowOp::EndSwitch | FlowOp::EndSub) => {
                    if let Some((open, mid)) = stack.pop() {
                        s.next[mid] = i as u32;
                        s.end[open] = i as u32;
                    }
                }
                _ => {}
            }
        }
        s
    }
}

/// Whether an instruction ends the region a statement sequence runs in.
pub(super) fn ends_region(op: Opcode) -> bool {
    matches!(
        op.flow(),
        Some(
            FlowOp::Else
                | FlowOp::EndIf
                | FlowOp::EndLoop(_)
                | FlowOp::Case
                | FlowOp::Default
                | FlowOp::EndSwitch
                | FlowOp::EndSub
                | FlowOp::End
        )
    )
}

/// Collects the non-local variables instructions `a..b` may write (subroutines they call
/// included). `ret` is the return flag of the level the range belongs to (`None` inside a
/// called subroutine, whose return flag is its own).
#[allow(clippy::too_many_arguments)] // a recursive walk over the lifter's read-only tables
pub(super) fn written(
    p: &Program,
    st: &Structure,
    l: &Layout,
    a: usize,
    b: usize,
    ret: Option<Var>,
    out: &mut BTreeSet<Var>,
    visiting: &mut Vec<usize>,
) {
    let insts = &p.instructions;
    let mut pc = a;
    while pc < b.min(insts.len()) {
        let inst = &insts[pc];
        for (k, d) in inst.dst.iter().enumerate() {
            let comps: u8 = match inst.opcode {
                Opcode::BgnFor => 0b111,
                Opcode::EndFor => 0b011,
                // A 64-bit instruction's rule decides what its mask writes.
                op if let Some(w) = op.wide() => w.written(k, d.write_mask.0),
                _ => inst.dst[0].write_mask.0,
            };
            write_targets(l, &d.register, comps, out);
        }
        if let (Some(n), Some(d)) = (inst.cond_update, inst.dst.first()) {
            for c in 0..4u8 {
                if d.write_mask.has(c as usize) {
                    out.insert(Var::Cc(n, c));
                }
            }
        }
        match inst.opcode {
            Opcode::Kill | Opcode::KillIf | Opcode::Demote => {
                out.insert(Var::Killed);
            }
            Opcode::Pusha | Opcode::Popa => {
                out.insert(Var::StackDepth);
            }
            _ => {}
        }
        match inst.opcode.flow() {
            Some(FlowOp::BeginLoop(_)) => {
                out.insert(Var::Budget);
                out.insert(Var::Exhausted);
            }
            Some(FlowOp::Return) => {
                if let Some(r) = ret {
                    out.insert(r);
                }
            }
            Some(FlowOp::Call | FlowOp::CallNz) => {
                if let Some(t) = inst.label.map(|t| t as usize)
                    && !visiting.contains(&t)
                    && t < insts.len()
                {
                    visiting.push(t);
                    written(p, st, l, t + 1, st.end[t] as usize, None, out, visiting);
                    visiting.pop();
                }
            }
            Some(FlowOp::BeginSub) if ret.is_some() && st.end[pc] != u32::MAX => {
                // Subroutine bodies are not part of the flow they sit in.
                pc = st.end[pc] as usize + 1;
                continue;
            }
            _ => {}
        }
        pc += 1;
    }
}

/// The variables a write of components `comps` to `r` may change.
fn write_targets(l: &Layout, r: &Register, comps: u8, out: &mut BTreeSet<Var>) {
    let regs: Vec<u32> = if r.index.indirect.is_some() {
        let range = l.clamp_range(r);
        (range.first..=range.last).collect()
    } else if r.index.offset >= 0 {
        vec![r.index.offset as u32]
    } else {
        Vec::new()
    };
    for reg in regs {
        if !l.is_var(r.file, reg as i64) {
            continue;
        }
        for c in 0..4u8 {
            if comps & (1 << c) != 0
                && let Some(v) = Layout::var(r.file, reg, c)
            {
                out.insert(v);
            }
        }
    }
}
