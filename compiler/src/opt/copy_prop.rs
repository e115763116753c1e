//! Copy propagation: uses of a value that only copies another are replaced by the original.
//!
//! Copies recognised:
//! - `bitcast(bitcast(x))` back to x's type, and a bitcast to the type a value already has;
//! - `select c, a, a`;
//! - an `If` result that every yielding branch sets to the same value defined before the `If`;
//! - a loop parameter that every `continue` passes unchanged (or passes its initial value):
//!   it is the initial value;
//! - a loop result that every `break` sets to the same value defined before the loop.
//!
//! The copies themselves are left for dead-code elimination. Invariant kept: the function
//! verifies and computes the same bits.

use super::util::Subst;
use crate::ir::*;

/// The values one loop's `continue`s and `break`s pass.
type Jumps = (Vec<Vec<Value>>, Vec<Vec<Value>>);

struct Walk<'a> {
    func: &'a Function,
    subst: Subst,
    /// Definition order of each value (u32::MAX: not seen yet).
    num: Vec<u32>,
    counter: u32,
    /// Per open loop: values passed by its continues and breaks.
    loops: Vec<Jumps>,
}

/// Runs the pass; returns whether anything changed.
pub fn run(func: &mut Function) -> bool {
    let mut w = Walk {
        func,
        subst: Subst::new(func),
        num: vec![u32::MAX; func.values.len()],
        counter: 0,
        loops: Vec::new(),
    };
    w.block(&func.body);
    let subst = w.subst;
    let changed = subst.changed;
    subst.apply(func);
    changed
}

impl Walk<'_> {
    fn define(&mut self, v: Value) {
        self.num[v.index()] = self.counter;
        self.counter += 1;
    }

    /// Whether `v` (after substitution) is defined before position `start`.
    fn before(&self, v: Value, start: u32) -> bool {
        self.num[self.subst.get(v).index()] < start
    }

    fn block(&mut self, b: &Block) {
        for s in &b.0 {
            match s {
                Stmt::Inst(i) => {
                    let d = &self.func.insts[*i];
                    if let Some(&r) = d.results.first() {
                        let a0 = d.args.first().map(|&a| self.subst.get(a));
                        match &d.op {
                            Op::Unary(Unary::Bitcast) => {
                                let a = a0.expect("one argument");
                                if self.func.ty(a) == self.func.ty(r) {
                                    self.subst.replace(r, a);
                                } else if let Some(inner) = self.func.def_inst(a)
                                    && matches!(
                                        self.func.insts[inner].op,
                                        Op::Unary(Unary::Bitcast)
                                    )
                                {
                                    let x = self.subst.get(self.func.insts[inner].args[0]);
                                    if self.func.ty(x) == self.func.ty(r) {
                                        self.subst.replace(r, x);
                                    }
                                }
                            }
                            Op::Select => {
                                let (x, y) = (self.subst.get(d.args[1]), self.subst.get(d.args[2]));
                                if x == y {
                                    self.subst.replace(r, x);
                                }
                            }
                            _ => {}
                        }
                    }
                    for &r in &self.func.insts[*i].results {
                        self.define(r);
                    }
                }
                Stmt::If(x) => {
                    let start = self.counter;
                    self.block(&x.then_);
                    self.block(&x.else_);
                    let yields: Vec<&Vec<Value>> = [&x.then_, &x.else_]
                        .into_iter()
                        .filter_map(|b| match b.0.last() {
                            Some(Stmt::Yield(v)) => Some(v),
                            _ => None,
                        })
                        .collect();
                    for (k, &r) in x.results.iter().enumerate() {
                        let vals: Vec<Value> =
                            yields.iter().map(|y| self.subst.get(y[k])).collect();
                        if let Some(&v0) = vals.first()
                            && vals.iter().all(|&v| v == v0)
                            && self.before(v0, start)
                        {
                            self.subst.replace(r, v0);
                        }
                        self.define(r);
                    }
                }
                Stmt::Loop(l) => {
                    let start = self.counter;
                    for &p in &l.params {
                        self.define(p);
                    }
                    self.loops.push((Vec::new(), Vec::new()));
                    self.block(&l.body);
                    let (conts, breaks) = self.loops.pop().unwrap_or_default();
                    for (k, &p) in l.params.iter().enumerate() {
                        let init = self.subst.get(l.inits[k]);
                        let unchanged = conts.iter().all(|c| {
                            let v = self.subst.get(c[k]);
                            v == p || v == init
                        });
                        if unchanged {
                            self.subst.replace(p, init);
                        }
                    }
                    for (k, &r) in l.results.iter().enumerate() {
                        let vals: Vec<Value> =
                            breaks.iter().map(|b| self.subst.get(b[k])).collect();
                        if let Some(&v0) = vals.first()
                            && vals.iter().all(|&v| v == v0)
                            && self.before(v0, start)
                        {
                            self.subst.replace(r, v0);
                        }
                        self.define(r);
                    }
                }
                Stmt::Break(v) => {
                    if let Some(fr) = self.loops.last_mut() {
                        fr.1.push(v.clone());
                    }
                }
                Stmt::Continue(v) => {
                    if let Some(fr) = self.loops.last_mut() {
                        fr.0.push(v.clone());
                    }
                }
                Stmt::Yield(_) => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{lift, verify::verify};

    #[test]
    fn loop_parameters_a_loop_never_changes_become_their_initial_values() {
        // TEMP[1] is carried through the loop (read and rewritten with itself) but never
        // changes: its parameter is the initial value.
        let mut f = lift::lift(
            &crate::front::text::parse(
                "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0..1]\n\
                 IMM[0] FLT32 {1.0, 0.5, 0.0, 0.0}\nMOV TEMP[1], IN[0]\nBGNLOOP\n\
                 MOV TEMP[1], TEMP[1]\nADD TEMP[0].x, TEMP[0].xxxx, IMM[0].xxxx\n\
                 IF TEMP[0].xxxx\nBRK\nENDIF\nENDLOOP\nADD OUT[0], TEMP[1], TEMP[0].xxxx\nEND\n",
            )
            .unwrap(),
        )
        .unwrap();
        let before = crate::opt::util::use_counts(&f);
        assert!(super::run(&mut f));
        verify(&f).unwrap();
        let after = crate::opt::util::use_counts(&f);
        // Some loop parameter lost all its uses.
        let params: Vec<_> = f
            .values
            .iter()
            .filter(|(_, v)| v.def == crate::ir::Def::Param)
            .map(|(h, _)| h.index())
            .collect();
        assert!(params.iter().any(|&p| before[p] > 0 && after[p] == 0));
    }
}
