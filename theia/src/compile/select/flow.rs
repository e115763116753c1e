//! Blocks and structured control flow: `If` and loops become jumps; their results, loop
//! parameters and loop results are merge registers every path writes (parallel copies staged
//! where a `Continue` reads another parameter's register).

use super::sel::{J, Loc, LoopCtx, Merge, Reg, Sel, Src, VInst, jop};
use crate::compile::types::TheiaError;
use crate::isa::Op as T;
use tgsic::ir::{Block, IfStmt, LoopStmt, Stmt, Value};

impl Sel<'_> {
    pub(super) fn block(
        &mut self,
        b: &Block,
        yields: &[usize],
        color: u32,
    ) -> Result<(), TheiaError> {
        let saved = self.bcast.clone();
        for (k, s) in b.0.iter().enumerate() {
            match s {
                Stmt::Inst(i) => {
                    if !self.done.contains(i) {
                        self.inst(*i, &b.0[k + 1..], color)?;
                    }
                }
                Stmt::If(x) => self.if_(x, color)?,
                Stmt::Loop(l) => self.loop_(l, color)?,
                Stmt::Yield(vals) => {
                    for (slot, &v) in yields.iter().copied().zip(vals) {
                        self.write_merge(slot, v)?;
                    }
                }
                Stmt::Break(vals) => {
                    let ctx = self.loops.last().expect("break inside a loop");
                    let (slots, exit) = (ctx.results.clone(), ctx.exit);
                    for (slot, &v) in slots.into_iter().zip(vals) {
                        self.write_merge(slot, v)?;
                    }
                    self.emit(VInst::Jmp(exit));
                }
                Stmt::Continue(vals) => {
                    let ctx = self.loops.last().expect("continue inside a loop");
                    let (slots, head) = (ctx.params.clone(), ctx.head);
                    // A parallel copy: stage sources that are other parameters' registers.
                    let regs: Vec<Reg> = slots.iter().map(|&s| self.merges[s].reg).collect();
                    let mut staged = Vec::new();
                    for (k, &v) in vals.iter().enumerate() {
                        match self.src(v)? {
                            Src::R(r, l) if regs.contains(&r) && r != regs[k] => {
                                let t = self.new_v();
                                self.alu(T::Copy, t, r, Reg::Void);
                                staged.push((k, Some((t, l))));
                            }
                            _ => staged.push((k, None)),
                        }
                    }
                    for (k, st) in staged {
                        match st {
                            Some((t, l)) => self.write_merge_src(slots[k], Src::R(t, l), None)?,
                            None => self.write_merge(slots[k], vals[k])?,
                        }
                    }
                    self.emit(VInst::Jmp(head));
                }
            }
        }
        self.bcast = saved;
        Ok(())
    }

    fn write_merge(&mut self, slot: usize, v: Value) -> Result<(), TheiaError> {
        let s = self.src(v)?;
        self.write_merge_src(slot, s, Some(v))
    }

    fn write_merge_src(&mut self, slot: usize, s: Src, v: Option<Value>) -> Result<(), TheiaError> {
        let m = self.merges[slot];
        let want = match m.lane {
            None => {
                let l = match s {
                    Src::R(_, l) => l,
                    Src::C(_) => None,
                };
                self.merges[slot].lane = Some(l);
                l
            }
            Some(None) if !m.fixed => {
                // Every lane so far: a value in one lane narrows the merge to that lane.
                if let Src::R(_, Some(l)) = s {
                    self.merges[slot].lane = Some(Some(l));
                }
                match s {
                    Src::R(_, l) => l,
                    Src::C(_) => None,
                }
            }
            Some(l) => l,
        };
        let r = match s {
            Src::R(r, None) => r,
            Src::R(r, Some(l)) if Some(l) == want => r,
            Src::R(r, Some(l)) => match v {
                Some(v) => self.broadcast(v)?,
                // A staged copy (a loop parameter that moves to another lane).
                None => self.broadcast_lane(r, l),
            },
            Src::C(w) => self.k_at(w, want),
        };
        if r != m.reg {
            self.alu(T::Copy, m.reg, r, Reg::Void);
        }
        Ok(())
    }

    fn new_merge(&mut self, fixed_lane: Option<Option<u8>>) -> usize {
        let reg = self.new_v();
        self.merges.push(Merge {
            reg,
            lane: fixed_lane,
            fixed: fixed_lane.is_some(),
        });
        self.merges.len() - 1
    }

    fn merge_loc(&mut self, slot: usize, v: Value) {
        let m = self.merges[slot];
        self.set(v, m.reg, m.lane.flatten());
    }

    fn if_(&mut self, x: &IfStmt, color: u32) -> Result<(), TheiaError> {
        let else_l = self.label();
        let end_l = self.label();
        let then_l = self.label();
        if let Some(Loc::Deferred) = self.loc[x.cond.index()] {
            let i = self.deferred.remove(&x.cond).expect("deferred comparison");
            self.origin = self.f.insts[i].origin;
            self.compare_jump(i, else_l, then_l)?;
        } else {
            match self.src(x.cond)? {
                Src::C(w) => {
                    if w == 0 {
                        self.emit(VInst::Jmp(else_l));
                    }
                }
                Src::R(r, l) => {
                    let lane = l.unwrap_or(0);
                    let z = self.k_at(0, Some(lane));
                    self.emit(VInst::Jump {
                        op: jop(J::Eq, lane),
                        target: else_l,
                        a: r,
                        b: z,
                    });
                }
            }
        }
        self.emit(VInst::Label(then_l));
        let slots: Vec<usize> = x.results.iter().map(|_| self.new_merge(None)).collect();
        self.depth += 1;
        self.block(&x.then_, &slots, color)?;
        if !matches!(x.then_.0.last(), Some(Stmt::Break(_) | Stmt::Continue(_))) {
            self.emit(VInst::Jmp(end_l));
        }
        self.emit(VInst::Label(else_l));
        self.block(&x.else_, &slots, color)?;
        self.depth -= 1;
        self.emit(VInst::Label(end_l));
        for (&slot, &r) in slots.iter().zip(&x.results) {
            self.merge_loc(slot, r);
        }
        Ok(())
    }

    fn loop_(&mut self, l: &LoopStmt, color: u32) -> Result<(), TheiaError> {
        let mut params = Vec::new();
        for &init in &l.inits {
            let lane = match self.src(init)? {
                Src::R(_, l) => l,
                Src::C(_) => None,
            };
            let slot = self.new_merge(Some(lane));
            self.write_merge(slot, init)?;
            params.push(slot);
        }
        for (&slot, &p) in params.iter().zip(&l.params) {
            self.merge_loc(slot, p);
        }
        let results: Vec<usize> = l.results.iter().map(|_| self.new_merge(None)).collect();
        let head = self.label();
        let exit = self.label();
        self.emit(VInst::Label(head));
        self.loops.push(LoopCtx {
            params,
            results: results.clone(),
            head,
            exit,
        });
        self.depth += 1;
        self.block(&l.body, &[], color)?;
        self.depth -= 1;
        self.loops.pop();
        self.emit(VInst::Label(exit));
        for (&slot, &r) in results.iter().zip(&l.results) {
            self.merge_loc(slot, r);
        }
        Ok(())
    }
}
