//! Control flow: IF/UIF, the three loop kinds with their counters and iteration budget, BRK,
//! CONT, SWITCH, RET and inlined CAL, each keeping its structure in the IR (the module docs of
//! `lift` say how).

use super::*;
use crate::tgsi::Opcode;

impl Lifter<'_> {
    /// The conjunction of the guard flags that may be set (`None`: every lane runs).
    pub(super) fn live_cond(&mut self) -> Option<Value> {
        let mut cond: Option<Value> = None;
        for (v, running) in self.flags() {
            let Some(&x) = self.env.get(&v) else { continue };
            if self.f.const_value(x) == Some(running as u32) {
                continue;
            }
            let t = if running { x } else { self.un(Unary::BNot, x) };
            cond = Some(match cond {
                Some(c) => self.band(c, t),
                None => t,
            });
        }
        cond
    }

    /// Runs `body` where the instruction's NV condition (on x) holds.
    pub(super) fn conditional(
        &mut self,
        pc: usize,
        body: impl FnOnce(&mut Self) -> Result<Reach, LiftError>,
    ) -> Result<Reach, LiftError> {
        match self.inst_cond(pc, 0) {
            None => body(self),
            Some(c) => self.build_if(c, body, |_| Ok(Reach::Live)),
        }
    }

    /// Builds `if cond { then } else { else }`, merging the variables the branches change.
    pub(super) fn build_if(
        &mut self,
        cond: Value,
        then_: impl FnOnce(&mut Self) -> Result<Reach, LiftError>,
        else_: impl FnOnce(&mut Self) -> Result<Reach, LiftError>,
    ) -> Result<Reach, LiftError> {
        let outer = std::mem::take(&mut self.cur);
        let origin = self.origin;
        let cp = self.env.checkpoint();
        let rt = then_(self)?;
        let env_t = self.env.rollback(cp);
        let block_t = std::mem::take(&mut self.cur);
        self.origin = origin;
        let cp = self.env.checkpoint();
        let re = else_(self)?;
        let env_e = self.env.rollback(cp);
        let block_e = std::mem::replace(&mut self.cur, outer);
        self.origin = origin;
        let live_t = rt != Reach::Terminated;
        let live_e = re != Reach::Terminated;
        // Variables changed by a branch that reaches the merge: only those the branches wrote
        // (the journal's), in variable order. A variable a branch left alone has its value
        // from before the IF, which is the current one again.
        let entry = |s: &Self, k: &Var| s.env.get(k).copied();
        let in_branch = |s: &Self, env: &BTreeMap<Var, Option<Value>>, k: &Var| match env.get(k) {
            Some(&v) => v,
            None => entry(s, k),
        };
        let touched: BTreeSet<Var> = env_t.keys().chain(env_e.keys()).copied().collect();
        let changed: Vec<Var> = touched
            .into_iter()
            .filter(|k| {
                let Some(v0) = entry(self, k) else {
                    return false;
                };
                let differs = |env| in_branch(self, env, k).is_some_and(|v| v != v0);
                (live_t && differs(&env_t)) || (live_e && differs(&env_e))
            })
            .collect();
        // A changed variable has a value before the IF; a branch that removed it yields that.
        let value_in = |s: &Self, env: &BTreeMap<Var, Option<Value>>, k: &Var| {
            in_branch(s, env, k)
                .or_else(|| entry(s, k))
                .unwrap_or_else(|| unreachable!("{k:?} has a value before the IF"))
        };
        let branch_values: [Vec<Value>; 2] =
            [&env_t, &env_e].map(|env| changed.iter().map(|k| value_in(self, env, k)).collect());
        let [vals_t, vals_e] = branch_values;
        let mut blocks = [(block_t, vals_t, live_t), (block_e, vals_e, live_e)];
        let mut results = Vec::new();
        let mut yields: [Vec<Value>; 2] = [Vec::new(), Vec::new()];
        for i in 0..changed.len() {
            let tys: Vec<Type> = blocks
                .iter()
                .filter(|b| b.2)
                .map(|b| self.f.ty(b.1[i]))
                .collect();
            let ty = if tys.iter().all(|&t| t == tys[0]) {
                tys[0]
            } else {
                Type::I32
            };
            for (k, (block, vals, live)) in blocks.iter_mut().enumerate() {
                if !*live {
                    continue;
                }
                let v = vals[i];
                let v = if self.f.ty(v) == ty {
                    v
                } else {
                    let saved = std::mem::replace(&mut self.cur, std::mem::take(block));
                    let w = self.as_ty(v, ty);
                    *block = std::mem::replace(&mut self.cur, saved);
                    w
                };
                yields[k].push(v);
            }
            results.push(self.f.new_value(ty, Def::IfResult));
        }
        let [(mut bt, _, _), (mut be, _, _)] = blocks;
        if live_t {
            bt.push(Stmt::Yield(std::mem::take(&mut yields[0])));
        }
        if live_e {
            be.push(Stmt::Yield(std::mem::take(&mut yields[1])));
        }
        self.cur.push(Stmt::If(Box::new(IfStmt {
            cond,
            then_: Block(bt),
            else_: Block(be),
            results: results.clone(),
        })));
        for (var, r) in changed.iter().zip(results) {
            self.env.insert(*var, r);
        }
        Ok(match (rt, re) {
            (Reach::Live, _) | (_, Reach::Live) => Reach::Live,
            (Reach::Terminated, Reach::Terminated) => Reach::Terminated,
            _ => Reach::Skipped,
        })
    }

    // ------------------------------------------------------------------ statements

    pub(super) fn lift_if(&mut self, pc: usize) -> Result<(usize, Reach), LiftError> {
        let inst = &self.p.instructions[pc];
        let x = self.src(pc, 0, 0);
        let t = if inst.opcode == Opcode::Uif {
            let z = self.iconst(0);
            self.icmp(ICmp::Ne, x, z)
        } else {
            self.float_true(x)
        };
        let cond = match self.inst_cond(pc, 0) {
            Some(c) => self.band(t, c),
            None => t,
        };
        let mid = self.st.next[pc] as usize;
        let end = self.st.end[pc] as usize;
        let has_else = mid != end;
        let r = self.build_if(
            cond,
            |s| Ok(s.seq(pc + 1)?.1),
            |s| {
                if has_else {
                    Ok(s.seq(mid + 1)?.1)
                } else {
                    Ok(Reach::Live)
                }
            },
        )?;
        Ok((end + 1, r))
    }

    /// Float truth of IF and CALLNZ: x ≠ 0 (NaN is true, a denormal is zero).
    pub(super) fn float_true(&mut self, x: Value) -> Value {
        let z = self.fconst(0.0);
        self.fcmp(FCmp::Ne, x, z)
    }

    pub(super) fn lift_loop(
        &mut self,
        pc: usize,
        kind: LoopKind,
    ) -> Result<(usize, Reach), LiftError> {
        let end = self.st.end[pc] as usize;
        let mut written = BTreeSet::new();
        scan::written(
            self.p,
            &self.st,
            &self.layout,
            pc + 1,
            end + 1,
            Some(Var::Ret(self.level)),
            &mut written,
            &mut self.inlining.clone(),
        );
        written.insert(Var::Budget);
        written.insert(Var::Exhausted);
        let counter = Var::Counter(pc as u32);
        // The loop's entry: REP counts, BGNFOR initializes its register.
        let enter = match kind {
            LoopKind::Loop => None,
            LoopKind::Rep => {
                let x = self.src(pc, 0, 0);
                let x = self.as_f(x);
                let c = self.un(Unary::FloorToInt, x);
                self.set(counter, c);
                written.insert(counter);
                let z = self.iconst(0);
                Some(self.icmp(ICmp::SLt, z, c))
            }
            LoopKind::For => {
                let dst = self.p.instructions[pc].dst[0].register.clone();
                let int = dst.file == File::Address;
                let mut vals = Vec::new();
                for c in 0..3u8 {
                    let s = self.src(pc, 0, c);
                    let s = self.as_f(s);
                    let fl = self.un(Unary::FFloor, s);
                    vals.push(if int {
                        self.un(Unary::FloorToInt, s)
                    } else {
                        fl
                    });
                }
                for (c, v) in vals.iter().enumerate() {
                    self.write_reg(pc, &dst, c as u8, *v, None);
                }
                Some(self.positive(vals[1], int))
            }
        };
        let carried: Vec<Var> = written
            .into_iter()
            .filter(|v| self.env.contains_key(v))
            .collect();
        let tys = carried.iter().map(|v| self.f.ty(self.get(*v))).collect();
        let ctx = LoopCtx {
            kind,
            end,
            carried,
            tys,
        };
        let body = |s: &mut Self| -> Result<Reach, LiftError> {
            let inits: Vec<Value> = ctx.carried.iter().map(|v| s.get(*v)).collect();
            let params: Vec<Value> = inits
                .iter()
                .map(|&i| s.f.new_value(s.f.ty(i), Def::Param))
                .collect();
            let before = s.env.checkpoint();
            for (v, p) in ctx.carried.iter().zip(&params) {
                s.set(*v, *p);
            }
            let outer = std::mem::take(&mut s.cur);
            s.open.push(Open {
                level: s.level,
                what: Breakable::Loop(ctx.clone()),
            });
            let (_, reach) = s.seq(pc + 1)?;
            if reach != Reach::Terminated {
                s.origin = Some(end as u32);
                s.latch_and_continue(&ctx)?;
            }
            s.open.pop();
            let body = std::mem::replace(&mut s.cur, outer);
            let results: Vec<Value> = params
                .iter()
                .map(|&p| s.f.new_value(s.f.ty(p), Def::LoopResult))
                .collect();
            // What the body left is carried through the loop's parameters and results.
            let _ = s.env.rollback(before);
            for (v, r) in ctx.carried.iter().zip(&results) {
                s.set(*v, *r);
            }
            s.origin = Some(pc as u32);
            s.cur.push(Stmt::Loop(Box::new(LoopStmt {
                inits,
                params,
                body: Block(body),
                results,
            })));
            Ok(Reach::Live)
        };
        match enter {
            None => body(self)?,
            Some(c) => self.build_if(c, body, |_| Ok(Reach::Live))?,
        };
        self.env.remove(&counter);
        Ok((end + 1, Reach::Live))
    }

    /// `v > 0` as an integer (ADDR destinations) or a float.
    pub(super) fn positive(&mut self, v: Value, int: bool) -> Value {
        if int {
            let z = self.iconst(0);
            self.icmp(ICmp::SLt, z, v)
        } else {
            let z = self.fconst(0.0);
            self.fcmp(FCmp::Gt, v, z)
        }
    }

    /// Emits `Break` with the loop's current variable values.
    pub(super) fn emit_break(&mut self, l: &LoopCtx) -> Reach {
        let vals = self.loop_values(l);
        self.cur.push(Stmt::Break(vals));
        Reach::Terminated
    }

    /// The current values of the loop's variables, as the loop's types.
    pub(super) fn loop_values(&mut self, l: &LoopCtx) -> Vec<Value> {
        l.carried
            .iter()
            .zip(&l.tys)
            .map(|(v, &t)| {
                let x = self.get(*v);
                self.as_ty(x, t)
            })
            .collect()
    }

    /// The work of the loop's end instruction (counters, the iteration budget), then
    /// `Continue`.
    pub(super) fn latch_and_continue(&mut self, l: &LoopCtx) -> Result<Reach, LiftError> {
        match l.kind {
            LoopKind::Loop => {}
            LoopKind::Rep => {
                let Some(counter) = l
                    .carried
                    .iter()
                    .copied()
                    .find(|v| matches!(v, Var::Counter(_)))
                else {
                    unreachable!("a REP loop carries its counter")
                };
                let c = self.get(counter);
                let one = self.iconst(1);
                let c = self.ibin(Binary::ISub, c, one);
                self.set(counter, c);
                let z = self.iconst(0);
                let done = self.icmp(ICmp::SGe, z, c);
                self.build_if(done, |s| Ok(s.emit_break(l)), |_| Ok(Reach::Live))?;
            }
            LoopKind::For => {
                let d = self.p.instructions[l.end].dst[0].register.clone();
                let int = d.file == File::Address;
                let (x, y, z) = (
                    self.read_reg(l.end, &d, 0),
                    self.read_reg(l.end, &d, 1),
                    self.read_reg(l.end, &d, 2),
                );
                let (nx, ny) = if int {
                    let one = self.iconst(1);
                    (
                        self.ibin(Binary::IAdd, x, z),
                        self.ibin(Binary::ISub, y, one),
                    )
                } else {
                    let one = self.fconst(1.0);
                    (
                        self.fbin(Binary::FAdd, x, z),
                        self.fbin(Binary::FSub, y, one),
                    )
                };
                self.write_reg(l.end, &d, 0, nx, None);
                self.write_reg(l.end, &d, 1, ny, None);
                let pos = self.positive(ny, int);
                let done = self.un(Unary::BNot, pos);
                self.build_if(done, |s| Ok(s.emit_break(l)), |_| Ok(Reach::Live))?;
            }
        }
        let budget = self.get(Var::Budget);
        let z = self.iconst(0);
        let out = self.icmp(ICmp::Eq, budget, z);
        self.build_if(
            out,
            |s| {
                let t = s.bconst(true);
                s.set(Var::Exhausted, t);
                Ok(s.emit_break(l))
            },
            |_| Ok(Reach::Live),
        )?;
        let one = self.iconst(1);
        let b = self.ibin(Binary::ISub, budget, one);
        self.set(Var::Budget, b);
        let vals = self.loop_values(l);
        self.cur.push(Stmt::Continue(vals));
        Ok(Reach::Terminated)
    }

    pub(super) fn do_break(&mut self, pc: usize) -> Result<Reach, LiftError> {
        match self
            .open
            .last()
            .filter(|o| o.level == self.level)
            .map(|o| o.what.clone())
        {
            Some(Breakable::Loop(l)) => Ok(self.emit_break(&l)),
            Some(Breakable::Switch(id)) => {
                let f = self.bconst(false);
                self.set(Var::Switch(id), f);
                Ok(Reach::Skipped)
            }
            None => Err(self.unsupported(pc, "BRK", "outside any loop or switch")),
        }
    }

    pub(super) fn do_continue(&mut self, pc: usize) -> Result<Reach, LiftError> {
        match self.innermost_loop() {
            Some(l) => self.latch_and_continue(&l),
            None => Err(self.unsupported(pc, "CONT", "outside any loop")),
        }
    }

    pub(super) fn do_return(&mut self) -> Reach {
        let t = self.bconst(true);
        self.set(Var::Ret(self.level), t);
        match self.innermost_loop() {
            Some(l) => self.emit_break(&l),
            None => Reach::Skipped,
        }
    }

    pub(super) fn lift_switch(&mut self, pc: usize) -> Result<(usize, Reach), LiftError> {
        let end = self.st.end[pc] as usize;
        let v = self.src(pc, 0, 0);
        let v = self.as_i(v);
        let labels = self.st.labels.get(&pc).cloned().unwrap_or_default();
        // DEFAULT takes the lanes no CASE matches; CASE operands are read at the SWITCH.
        let mut any = self.bconst(false);
        for &k in &labels {
            if self.p.instructions[k].opcode == Opcode::Case {
                self.origin = Some(k as u32);
                self.src_cache.clear();
                let c = self.src(k, 0, 0);
                let m = self.icmp(ICmp::Eq, c, v);
                any = self.bor(any, m);
            }
        }
        let id = self.next_switch;
        self.next_switch += 1;
        let flag = Var::Switch(id);
        let no = self.bconst(false);
        self.set(flag, no);
        self.open.push(Open {
            level: self.level,
            what: Breakable::Switch(id),
        });
        for (n, &k) in labels.iter().enumerate() {
            self.origin = Some(k as u32);
            self.src_cache.clear();
            let sel = if self.p.instructions[k].opcode == Opcode::Case {
                let c = self.src(k, 0, 0);
                self.icmp(ICmp::Eq, c, v)
            } else {
                self.un(Unary::BNot, any)
            };
            let cur = self.get(flag);
            let now = self.bor(cur, sel);
            self.set(flag, now);
            // Consecutive labels share one segment.
            if labels.get(n + 1).is_some_and(|&j| j == k + 1) {
                continue;
            }
            let live = self.live_cond().unwrap_or_else(|| self.bconst(true));
            self.build_if(live, |s| Ok(s.seq(k + 1)?.1), |_| Ok(Reach::Live))?;
        }
        self.open.pop();
        self.env.remove(&flag);
        Ok((end + 1, Reach::Live))
    }

    pub(super) fn lift_call(&mut self, pc: usize) -> Result<Reach, LiftError> {
        let inst = &self.p.instructions[pc];
        let target = inst.label.unwrap_or(0) as usize;
        if self.inlining.contains(&target) {
            return Err(self.unsupported(
                pc,
                inst.opcode.name(),
                "recursive subroutines cannot be inlined",
            ));
        }
        if self.level + 1 >= MAX_CALL_DEPTH {
            return Err(self.unsupported(pc, inst.opcode.name(), "calls nest deeper than 64"));
        }
        let mut cond = self.inst_cond(pc, 0);
        if inst.opcode == Opcode::CallNz {
            let x = self.src(pc, 0, 0);
            let t = self.float_true(x);
            cond = Some(match cond {
                Some(c) => self.band(c, t),
                None => t,
            });
        }
        let call = |s: &mut Self| -> Result<Reach, LiftError> {
            s.inlining.push(target);
            s.level += 1;
            let ret = Var::Ret(s.level);
            let no = s.bconst(false);
            s.set(ret, no);
            s.seq(target + 1)?;
            s.env.remove(&ret);
            s.level -= 1;
            s.inlining.pop();
            Ok(Reach::Live)
        };
        match cond {
            None => call(self),
            Some(c) => self.build_if(c, call, |_| Ok(Reach::Live)),
        }
    }
}
