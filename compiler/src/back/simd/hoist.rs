//! Uniform values once a call: the top-level statements that compute only values every
//! invocation shares (`ir::uniform`: from constants and constant buffers alone), from
//! constants and values computed before them, run before the steps instead of in each
//! (4 to 16 steps a call). What a uniform value after a loop needs (the loop's result) is not
//! computed before the steps, so such a value stays in them.

use super::{Lower, R, SimdBuilder};
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
        // A read without operands (a constant, a uniform, the loop budget) moves only where a
        // hoisted computation reads it; the others stay where the steps read them. Moved
        // alone it saves nothing (a load or a constant either way) and lives across the steps:
        // the etnaviv corpus's shaders, which read their matrices as uniforms, spilled every
        // one (Cranelift's median code 928 -> 1584 bytes), and moving every constant changed
        // Cranelift's register allocation enough to slow curl noise by 4%.
        let leaf = |s: &Stmt| matches!(s, Stmt::Inst(i) if f.insts[*i].args.is_empty());
        let mut read = vec![false; f.values.len()];
        for (s, _) in f
            .body
            .0
            .iter()
            .zip(&hoisted)
            .filter(|(s, h)| **h && !leaf(s))
        {
            crate::opt::util::for_each_stmt_use(f, s, &mut |v| read[v.index()] = true);
        }
        for (s, h) in f.body.0.iter().zip(hoisted.iter_mut()) {
            if let Stmt::Inst(i) = s
                && leaf(s)
            {
                *h = *h && f.insts[*i].results.iter().any(|r| read[r.index()]);
            }
        }
        if hoisted.contains(&true) {
            // No step yet: every lane computes (uniform operations read no lane's state).
            let all = self.mask_const(true)?;
            self.set_exec(all)?;
            self.p.lane0 = self.sconst(0)?;
            for (s, _) in f.body.0.iter().zip(&hoisted).filter(|(_, h)| **h) {
                self.stmt(s)?;
            }
        }
        Ok(hoisted)
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
