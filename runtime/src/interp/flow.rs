//! The interpreter's control flow: running a batch from the first instruction to END, loops,
//! conditions, switches, calls and their masks (after tgsi_exec), and each instruction handed
//! to the arithmetic ([`super::alu`]) or the texture unit ([`super::tex`]).

use super::exec::{ADDR_STACK_DEPTH, Call, Exec, Frame, bit, lanes, mask_of};
use super::num::{b, f};
use crate::engine::{ALL, BATCH_LANES, Chan, Emitted, Internal, Mask, RunError};
use tgsic::tgsi::*;

impl Exec<'_> {
    /// Runs the program from instruction 0 to END (or the last RET of main). A compute
    /// program's machine runs with [`Exec::run_from`], which stops at its barriers.
    pub fn run(&mut self) -> Result<(), RunError> {
        self.run_from(0).map(|_| ())
    }

    /// Runs from instruction `pc` to the end, or, for a compute program, to just after the
    /// next BARRIER or MEMBAR (whatever lanes execute it, as tgsi_exec): `Some(pc)` of the
    /// instruction to resume at, `None` when the program ended.
    pub fn run_from(&mut self, mut pc: usize) -> Result<Option<usize>, RunError> {
        let insts = &self.p.program.instructions;
        let meets = self.meets_at_barriers();
        let mut steps: u64 = 0;
        while pc < insts.len() {
            steps += 1;
            if steps > 1 << 40 {
                return Err(RunError::Internal(Internal::StepCount));
            }
            let inst = &insts[pc];
            if meets && matches!(inst.opcode, Opcode::Barrier | Opcode::Membar) {
                return Ok(Some(pc + 1));
            }
            let exec = self.exec_mask();
            let step = match inst.opcode.flow() {
                Some(flow) => self.flow(pc, inst, flow, exec),
                None if exec != 0 => self
                    .instruction(pc, inst, exec & self.inst_cond(inst))
                    .map(|()| pc + 1),
                None => Ok(pc + 1),
            };
            let next = step.map_err(|e| e.at(self.p.program.source_map.instruction(pc)))?;
            if next == usize::MAX {
                break;
            }
            pc = next;
        }
        Ok(None)
    }

    /// Whether a block no lane executes may be skipped: always, but in a compute program
    /// whose block (instructions `pc..=end`) holds a barrier, which tgsi_exec meets anyway.
    fn may_skip(&self, pc: usize, end: usize) -> bool {
        !self.meets_at_barriers() || !self.p.barrier_between(pc, end)
    }

    fn matching(&self, pc: usize) -> usize {
        self.p.matching[pc] as usize
    }

    /// Per-lane boolean of a float source's x (≠ 0; NaN is true).
    fn float_true(&self, s: &Src) -> Mask {
        let x = self.fetch(s, 1)[0];
        mask_of(|l| f(x[l]) != 0.0 || f32::from_bits(x[l]).is_nan())
    }

    fn int_true(&self, s: &Src) -> Mask {
        let x = self.fetch(s, 1)[0];
        mask_of(|l| x[l] != 0)
    }

    /// Breaks lanes out of the innermost loop (budget exhausted or BRK).
    fn break_lanes(&mut self, m: Mask) {
        match self.frames.last() {
            Some(Frame::Switch { .. }) => self.switch_mask &= !m,
            _ => self.loop_mask &= !m,
        }
    }

    /// A back edge (ENDLOOP or a backward BRA): charges one iteration to each lane of `m`;
    /// returns the lanes that had no budget left, which are reported as exhausted.
    fn charge_iteration(&mut self, m: Mask) -> Mask {
        let mut out = 0;
        for l in lanes(m) {
            if self.budget[l] == 0 {
                out |= bit(l);
            } else {
                self.budget[l] -= 1;
            }
        }
        self.report.exhausted |= out;
        out
    }

    /// Executes a control-flow instruction; returns the next pc (`usize::MAX` ends the shader).
    fn flow(
        &mut self,
        pc: usize,
        inst: &Instruction,
        flow: FlowOp,
        exec: Mask,
    ) -> Result<usize, RunError> {
        let cond = self.inst_cond(inst);
        match flow {
            FlowOp::If => {
                let t = if inst.opcode == Opcode::Uif {
                    self.int_true(&inst.src[0])
                } else {
                    self.float_true(&inst.src[0])
                };
                self.cond_stack.push(self.cond_mask);
                // Active lanes whose condition is false leave the block.
                self.cond_mask &= (t & cond) | !exec;
                if self.exec_mask() == 0 && self.may_skip(pc, self.matching(pc)) {
                    return Ok(self.matching(pc));
                }
            }
            FlowOp::Else => {
                let saved = self.cond_stack.last().copied().unwrap_or(ALL);
                self.cond_mask = !self.cond_mask & saved;
                if self.exec_mask() == 0 && self.may_skip(pc, self.matching(pc)) {
                    return Ok(self.matching(pc));
                }
            }
            FlowOp::EndIf => self.cond_mask = self.cond_stack.pop().unwrap_or(ALL),
            FlowOp::BeginLoop(kind) => {
                let end = self.matching(pc);
                let walk = !self.may_skip(pc, end);
                if exec == 0 && !walk {
                    return Ok(end + 1);
                }
                let mut counter = None;
                let mut enter = exec;
                match kind {
                    LoopKind::Loop => {}
                    LoopKind::Rep => {
                        let x = self.fetch(&inst.src[0], 1)[0];
                        let c: Box<[i64; BATCH_LANES]> = Box::new(std::array::from_fn(|l| {
                            let v = f(x[l]);
                            if v.is_nan() { 0 } else { v.floor() as i64 }
                        }));
                        enter = exec & mask_of(|l| c[l] > 0);
                        counter = Some(c);
                    }
                    LoopKind::For => {
                        let s = self.fetch(&inst.src[0], 0b111);
                        let d = &inst.dst[0];
                        let int = d.register.file == File::Address;
                        let floor = |x: u32| f(x).floor();
                        let conv = |v: f32| if int { (v as i32) as u32 } else { b(v) };
                        let mut count = [0u32; BATCH_LANES];
                        for l in lanes(exec) {
                            count[l] = conv(floor(s[1][l]));
                        }
                        for (c, chan) in [(0, s[0]), (1, s[1]), (2, s[2])] {
                            let v: Chan = std::array::from_fn(|l| conv(floor(chan[l])));
                            self.store(&d.register, c, &v, exec);
                        }
                        let positive = |x: u32| if int { (x as i32) > 0 } else { f(x) > 0.0 };
                        enter = exec & mask_of(|l| positive(count[l]));
                    }
                }
                self.frames.push(Frame::Loop {
                    loop_mask: self.loop_mask,
                    cont_mask: self.cont_mask,
                    counter,
                });
                self.loop_mask &= enter | !exec;
                if self.exec_mask() == 0 && !walk {
                    return self.end_loop_exit(end);
                }
            }
            FlowOp::EndLoop(kind) => {
                let Some(Frame::Loop { cont_mask, .. }) = self.frames.last() else {
                    return Err(RunError::Internal(Internal::LoopFrame(inst.opcode)));
                };
                self.cont_mask = *cont_mask;
                let active = self.exec_mask();
                match kind {
                    LoopKind::Loop => {}
                    LoopKind::Rep => {
                        let mut done = 0;
                        if let Some(Frame::Loop {
                            counter: Some(c), ..
                        }) = self.frames.last_mut()
                        {
                            for l in lanes(active) {
                                c[l] -= 1;
                                if c[l] <= 0 {
                                    done |= bit(l);
                                }
                            }
                        }
                        self.loop_mask &= !done;
                    }
                    LoopKind::For => {
                        let d = &inst.dst[0].register;
                        let int = d.file == File::Address;
                        let (x, y, z) = (self.read(d, 0), self.read(d, 1), self.read(d, 2));
                        let (nx, ny): (Chan, Chan) = if int {
                            (
                                std::array::from_fn(|l| x[l].wrapping_add(z[l])),
                                std::array::from_fn(|l| y[l].wrapping_sub(1)),
                            )
                        } else {
                            (
                                std::array::from_fn(|l| b(f(x[l]) + f(z[l]))),
                                std::array::from_fn(|l| b(f(y[l]) - 1.0)),
                            )
                        };
                        self.store(d, 0, &nx, active);
                        self.store(d, 1, &ny, active);
                        let positive = |v: u32| if int { (v as i32) > 0 } else { f(v) > 0.0 };
                        self.loop_mask &= !(active & !mask_of(|l| positive(ny[l])));
                    }
                }
                let still = self.exec_mask();
                // Lanes out of budget leave the loop.
                self.loop_mask &= !self.charge_iteration(still);
                if self.exec_mask() != 0 {
                    return Ok(self.matching(pc) + 1);
                }
                return self.end_loop_exit(pc);
            }
            FlowOp::Break | FlowOp::BreakC => self.break_lanes(exec & cond),
            FlowOp::Continue => self.cont_mask &= !(exec & cond),
            FlowOp::Switch => {
                let value: Box<[u32; BATCH_LANES]> = Box::new(self.fetch(&inst.src[0], 1)[0]);
                // CASE operands are read when the SWITCH starts (docs/semantics.md).
                let mut matched = 0;
                for &k in self.p.cases.get(&pc).map_or(&[][..], Vec::as_slice) {
                    let ci = &self.p.program.instructions[k];
                    if ci.opcode == Opcode::Case {
                        let v = self.fetch(&ci.src[0], 1)[0];
                        matched |= mask_of(|l| v[l] == value[l]);
                    }
                }
                self.frames.push(Frame::Switch {
                    switch_mask: self.switch_mask,
                    value,
                    matched,
                    active: exec,
                });
                self.switch_mask = 0;
                if exec == 0 && self.may_skip(pc, self.matching(pc)) {
                    return Ok(self.matching(pc));
                }
            }
            FlowOp::Case => {
                if let Some(Frame::Switch { value, active, .. }) = self.frames.last() {
                    let v = self.fetch(&inst.src[0], 1)[0];
                    self.switch_mask |= active & mask_of(|l| v[l] == value[l]);
                }
            }
            FlowOp::Default => {
                if let Some(Frame::Switch {
                    matched, active, ..
                }) = self.frames.last()
                {
                    self.switch_mask |= active & !matched;
                }
            }
            FlowOp::EndSwitch => {
                if let Some(Frame::Switch { switch_mask, .. }) = self.frames.pop() {
                    self.switch_mask = switch_mask;
                }
            }
            FlowOp::Call | FlowOp::CallNz => {
                let mut m = exec & cond;
                if flow == FlowOp::CallNz {
                    m &= self.float_true(&inst.src[0]);
                }
                if m == 0 {
                    return Ok(pc + 1);
                }
                if self.calls.len() >= 64 {
                    return Err(RunError::CallDepth(64));
                }
                self.calls.push(Call {
                    ret: pc + 1,
                    func_mask: self.func_mask,
                    cond_mask: self.cond_mask,
                    loop_mask: self.loop_mask,
                    cont_mask: self.cont_mask,
                    switch_mask: self.switch_mask,
                    cond_depth: self.cond_stack.len(),
                    frame_depth: self.frames.len(),
                });
                self.func_mask &= m;
                let target = inst.label.unwrap_or(0) as usize;
                return Ok(target + 1);
            }
            FlowOp::Return => {
                // Returning lanes stop; once no lane of the routine is left, it returns.
                self.func_mask &= !(exec & cond);
                if self.func_mask & self.alive == 0 {
                    return Ok(self.return_from_call());
                }
            }
            FlowOp::BeginSub => return Ok(self.matching(pc) + 1),
            FlowOp::EndSub => return Ok(self.return_from_call()),
            FlowOp::End => return Ok(usize::MAX),
            FlowOp::Branch => {
                let taken = exec & cond;
                let target = inst.label.unwrap_or(0) as usize;
                if taken == exec && target <= pc && taken != 0 {
                    // A backward branch is a loop's back edge: it costs each invocation one
                    // iteration of its budget. When one runs out, the branch is not taken by
                    // any (BRA cannot diverge), which ends the loop it forms, as the budget
                    // ends structured loops; the run reports the invocations that ran out.
                    let out = self.charge_iteration(taken);
                    return Ok(if out == 0 { target } else { pc + 1 });
                }
                if taken == exec {
                    return Ok(target);
                }
                if taken != 0 {
                    return Err(RunError::DivergentBranch(pc));
                }
            }
        }
        Ok(pc + 1)
    }

    /// Leaves a loop whose frame is on top; `end` is the loop-end instruction.
    fn end_loop_exit(&mut self, end: usize) -> Result<usize, RunError> {
        if let Some(Frame::Loop {
            loop_mask,
            cont_mask,
            ..
        }) = self.frames.pop()
        {
            self.loop_mask = loop_mask;
            self.cont_mask = cont_mask;
        }
        Ok(end + 1)
    }

    /// Returns from the innermost call (or ends main).
    fn return_from_call(&mut self) -> usize {
        match self.calls.pop() {
            None => usize::MAX,
            Some(c) => {
                self.func_mask = c.func_mask;
                self.cond_mask = c.cond_mask;
                self.loop_mask = c.loop_mask;
                self.cont_mask = c.cont_mask;
                self.switch_mask = c.switch_mask;
                self.cond_stack.truncate(c.cond_depth);
                self.frames.truncate(c.frame_depth);
                c.ret
            }
        }
    }

    /// A non-flow instruction for the lanes of `exec`.
    fn instruction(&mut self, pc: usize, inst: &Instruction, exec: Mask) -> Result<(), RunError> {
        match inst.opcode {
            Opcode::Kill | Opcode::Demote => self.report.killed |= exec,
            Opcode::KillIf => {
                let s = self.fetch(&inst.src[0], 0xF);
                self.report.killed |= exec & mask_of(|l| (0..4).any(|c| f(s[c][l]) < 0.0));
            }
            Opcode::Emit | Opcode::EndPrim => {
                let streams = inst
                    .src
                    .first()
                    .map_or([0; BATCH_LANES], |s| self.fetch(s, 1)[0]);
                for l in lanes(exec) {
                    let outputs = (inst.opcode == Opcode::Emit).then(|| {
                        self.regs
                            .outputs
                            .iter()
                            .map(|r| [r[0][l], r[1][l], r[2][l], r[3][l]])
                            .collect()
                    });
                    self.report.emitted.push(Emitted {
                        lane: l,
                        outputs,
                        stream: streams[l],
                    });
                }
            }
            Opcode::Nop => {}
            Opcode::Pusha => {
                let s = self.fetch(&inst.src[0], 0xF);
                for l in lanes(exec) {
                    let d = self.regs.addr_depth[l] as usize;
                    if d >= ADDR_STACK_DEPTH {
                        continue;
                    }
                    if self.regs.addr_stack.len() <= d {
                        self.regs.addr_stack.resize(d + 1, [[0; BATCH_LANES]; 4]);
                    }
                    for c in 0..4 {
                        self.regs.addr_stack[d][c][l] = s[c][l];
                    }
                    self.regs.addr_depth[l] += 1;
                }
            }
            Opcode::Membar | Opcode::Barrier => {}
            op if op.is_memory() => super::memory::execute(self, inst, exec)?,
            op if let Some(w) = op.wide() => super::wide::execute(self, inst, exec, w),
            _ => {
                let res = if inst.opcode.tex().is_some() {
                    super::tex::execute(self, inst, exec)?
                } else {
                    super::alu::execute(self, pc, inst, exec)?
                };
                self.write_result(inst, &res, exec);
            }
        }
        Ok(())
    }
}
