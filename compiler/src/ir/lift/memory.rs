//! Memory instructions of compute programs: LOAD, STORE, RESQ and the atomics become
//! `Op::Memory` (their rules are the interpreter's: `docs/semantics.md`, "Memory and work
//! groups"), BARRIER becomes `Op::Barrier`, and MEMBAR nothing (the IR keeps every memory
//! operation in program order).

use super::{LiftError, Lifter};
use crate::ir::*;
use crate::tgsi::*;

impl Lifter<'_> {
    /// Lifts memory instruction or barrier `pc`.
    pub(super) fn memory(&mut self, pc: usize) -> Result<(), LiftError> {
        let p = self.p;
        let inst = &p.instructions[pc];
        let op = inst.opcode;
        match op {
            Opcode::Membar => return Ok(()),
            Opcode::Barrier => {
                self.emit(Op::Barrier, vec![], &[]);
                return Ok(());
            }
            _ => {}
        }
        if inst.cond_test.is_some() {
            return Err(self.unsupported(
                pc,
                op.name(),
                "a condition test on a memory instruction",
            ));
        }
        let (resource, first) = if op == Opcode::Store {
            (&inst.dst[0].register, 0)
        } else {
            (&inst.src[0].register, 1)
        };
        let Some(access) = MemAccess::of(p, inst) else {
            return Err(self.unsupported(
                pc,
                op.name(),
                format!("{} is not memory", resource.file),
            ));
        };
        let file = access.file;
        // tgsi_exec performs an atomic, and answers a buffer's RESQ, only for a destination
        // that writes x.
        let writes_x = access.mask & 1 != 0;
        if (op.is_atomic() || (op == Opcode::Resq && file != MemFile::Image)) && !writes_x {
            return Ok(());
        }
        let mut args = Vec::new();
        for c in 0..access.coords() {
            args.push(self.srci(pc, first, c as u8));
        }
        match op {
            Opcode::Store => {
                for c in 0..4 {
                    args.push(self.src(pc, 1, c));
                }
            }
            Opcode::Load | Opcode::Resq => {}
            Opcode::AtomCas => {
                args.push(self.src(pc, 2, 0));
                args.push(self.src(pc, 3, 0));
            }
            _ => args.push(self.src(pc, 2, 0)),
        }
        if access.indirect {
            // Each lane's register number: the address register's value plus the offset.
            let (dynamic, offset) = self.index_parts(pc, &resource.index);
            let k = self.iconst(offset as u32);
            args.push(self.ibin(Binary::IAdd, dynamic, k));
        }
        let ty = if access.integer_results() {
            Type::I32
        } else {
            Type::F32
        };
        let results = access.results();
        let i = self.emit(Op::Memory(Box::new(access)), args, &vec![ty; results]);
        let r = self.f.insts[i].results.clone();
        match results {
            0 => {}
            1 => self.write_result(pc, [Some(r[0]); 4]),
            _ => self.write_result(pc, std::array::from_fn(|c| Some(r[c]))),
        }
        Ok(())
    }
}
