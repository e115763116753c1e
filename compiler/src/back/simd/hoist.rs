//! Uniform values once a call: the top-level statements that compute only values every
//! invocation shares (`ir::uniform`: from constants and constant buffers alone), from
//! constants and values computed before them, run before the steps instead of in each
//! (4 to 16 steps a call); inside the statements that stay in the steps, each instruction that
//! computes a uniform value from such values moves alone. What a uniform value after a loop
//! needs (the loop's result) is not computed before the steps, so such a value stays in them.

use super::builder::{R, SimdBuilder};
use super::lower::Lower;
use crate::ir::{self, Def, Stmt};

impl<B: SimdBuilder> Lower<'_, B> {
    /// Lowers, before the step loop, the top-level statements that compute only uniform
    /// values from constants and values computed before ([`Self::hoistable`]): every step of
    /// a batch would compute them alike (4 to 16 steps a call), so a call computes them once;
    /// uniform functions of the uniforms (a motion blur's Newton iterations, `sin(time)`)
    /// then cost nothing per step. Returns which top-level statements it lowered.
    pub(super) fn hoist(&mut self) -> R<Vec<bool>> {
        let f = self.f;
        let mut ready = vec![false; f.values.len()];
        let mut marked = Vec::new();
        let mut hoisted: Vec<bool> = f
            .body
            .0
            .iter()
            .map(|s| {
                marked.clear();
                let h = self.hoistable(s, &mut ready, &mut marked);
                // What a statement that stays in the steps defines is not ready.
                if !h {
                    marked.iter().for_each(|v| ready[v.index()] = false);
                }
                h
            })
            .collect();
        // Inside the statements that stay in the steps (a branch on the pixel, a loop), the
        // uniform instructions whose operands are ready move too, each alone: a `sin(time)`
        // inside a branch on a uniform mode, which the steps would otherwise compute in each.
        let mut inner: Vec<Vec<ir::Inst>> = vec![Vec::new(); f.body.0.len()];
        for (s, list) in f
            .body
            .0
            .iter()
            .zip(inner.iter_mut())
            .zip(&hoisted)
            .filter_map(|((s, list), h)| (!h).then_some((s, list)))
        {
            self.inner_hoistable(s, &mut ready, list);
        }
        // A read without operands (a constant, a uniform, the loop budget) moves only where a
        // hoisted computation reads it; the others stay where the steps read them. Moved
        // alone it saves nothing (a load or a constant either way) and lives across the steps:
        // the etnaviv corpus's shaders, which read their matrices as uniforms, spilled every
        // one, and moving every constant changed Cranelift's register allocation for the
        // worse (`results/history/jit-2026-11-30.md`, "Uniform values once a call").
        let leaf = |i: ir::Inst| f.insts[i].args.is_empty();
        let leaf_stmt = |s: &Stmt| matches!(s, Stmt::Inst(i) if leaf(*i));
        let mut read = vec![false; f.values.len()];
        for (s, _) in f
            .body
            .0
            .iter()
            .zip(&hoisted)
            .filter(|(s, h)| **h && !leaf_stmt(s))
        {
            crate::opt::util::for_each_stmt_use(f, s, &mut |v| read[v.index()] = true);
        }
        for &i in inner.iter().flatten().filter(|&&i| !leaf(i)) {
            f.insts[i].args.iter().for_each(|v| read[v.index()] = true);
        }
        let is_read = |i: ir::Inst| f.insts[i].results.iter().any(|r| read[r.index()]);
        for (s, h) in f.body.0.iter().zip(hoisted.iter_mut()) {
            if let Stmt::Inst(i) = s
                && leaf(*i)
            {
                *h = *h && is_read(*i);
            }
        }
        for list in &mut inner {
            list.retain(|&i| !leaf(i) || is_read(i));
        }
        if hoisted.contains(&true) || inner.iter().any(|l| !l.is_empty()) {
            // No step yet: every lane computes (uniform operations read no lane's state).
            let all = self.mask_const(true)?;
            self.set_exec(all)?;
            self.p.lane0 = self.sconst(0)?;
            for ((s, &h), list) in f.body.0.iter().zip(&hoisted).zip(&inner) {
                if h {
                    self.stmt(s)?;
                }
                for &i in list {
                    self.inst(i)?;
                    self.prehoisted.insert(i);
                }
            }
        }
        Ok(hoisted)
    }

    /// The instructions inside `s` (a statement that stays in the steps) that compute
    /// uniform values from values `ready` ([`Self::hoistable`]'s rule for one instruction),
    /// in program order; marks their results ready.
    fn inner_hoistable(&self, s: &Stmt, ready: &mut [bool], out: &mut Vec<ir::Inst>) {
        match s {
            Stmt::Inst(i) => {
                let mut marked = Vec::new();
                if self.hoistable(s, ready, &mut marked) {
                    out.push(*i);
                }
            }
            Stmt::If(x) => {
                for b in [&x.then_, &x.else_] {
                    b.0.iter().for_each(|s| self.inner_hoistable(s, ready, out));
                }
            }
            Stmt::Loop(l) => l
                .body
                .0
                .iter()
                .for_each(|s| self.inner_hoistable(s, ready, out)),
            _ => {}
        }
    }

    /// Whether `s` computes uniform values and nothing else, from values `ready` or made
    /// inside it: a pure instruction (no effect, no array read, no texture or derivative:
    /// those depend on the step) whose results are uniform, or an `If` on a uniform condition
    /// whose branches hold only such statements. Marks the values it defines ready (and
    /// lists them in `marked`), as far as it got.
    fn hoistable(&self, s: &Stmt, ready: &mut [bool], marked: &mut Vec<ir::Value>) -> bool {
        let f = self.f;
        let ok = |v: ir::Value, ready: &[bool]| {
            ready[v.index()]
                || matches!(f.values[v].def,
                    Def::Inst(i, _) if matches!(f.insts[i].op, ir::Op::Const(_)))
        };
        match s {
            Stmt::Inst(i) => {
                let d = &f.insts[*i];
                let h = crate::opt::util::is_pure(&d.op)
                    && !d.op.is_cross_lane()
                    && d.args.iter().all(|&a| ok(a, ready))
                    && d.results.iter().all(|&r| self.is_uniform(r));
                if h {
                    for &r in &d.results {
                        ready[r.index()] = true;
                        marked.push(r);
                    }
                }
                h
            }
            Stmt::If(x) => {
                let h = self.is_uniform(x.cond)
                    && ok(x.cond, ready)
                    && x.results.iter().all(|&r| self.is_uniform(r))
                    && [&x.then_, &x.else_].iter().all(|b| {
                        b.0.iter().all(|s| match s {
                            Stmt::Yield(v) => v.iter().all(|&a| ok(a, ready)),
                            s => self.hoistable(s, ready, marked),
                        })
                    });
                if h {
                    for &r in &x.results {
                        ready[r.index()] = true;
                        marked.push(r);
                    }
                }
                h
            }
            _ => false,
        }
    }
}
