//! Uniformity: which values are equal for every invocation (computed only from constants,
//! constant buffers and other uniform values, under uniform control flow). Backends use it to
//! emit one scalar instead of a vector and real branches instead of masks.
//!
//! It is an analysis, not part of the function: [`analyze`] computes a side table for the
//! function as it is, which holds until the function changes.

use super::*;

/// Per value of one function, whether it is uniform ([`analyze`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Uniformity(Vec<bool>);

impl Uniformity {
    /// Whether `v` is uniform (false for a value the analysis did not see).
    pub fn is_uniform(&self, v: Value) -> bool {
        self.0.get(v.index()).copied().unwrap_or(false)
    }

    /// How many values are uniform.
    pub fn count(&self) -> usize {
        self.0.iter().filter(|&&u| u).count()
    }
}

/// The uniformity of every value of `f`. Optimistic fixpoint: everything starts uniform and is
/// demoted until nothing changes, so loop-carried values can be proved uniform.
pub fn analyze(f: &Function) -> Uniformity {
    let mut u = vec![true; f.values.len()];
    loop {
        let mut changed = false;
        walk(f, &f.body, &mut u, &mut changed);
        if !changed {
            return Uniformity(u);
        }
    }
}

fn demote(u: &mut [bool], v: Value, keep: bool, changed: &mut bool) {
    if u[v.index()] && !keep {
        u[v.index()] = false;
        *changed = true;
    }
}

/// Whether every `If` condition in `b` (at any depth, nested loops included) is uniform.
fn conds_uniform(b: &Block, u: &[bool]) -> bool {
    b.0.iter().all(|s| match s {
        Stmt::If(x) => {
            u[x.cond.index()] && conds_uniform(&x.then_, u) && conds_uniform(&x.else_, u)
        }
        Stmt::Loop(l) => conds_uniform(&l.body, u),
        _ => true,
    })
}

/// Values passed by the `Continue`s and `Break`s that leave the loop whose body is `b`.
fn exits(b: &Block, conts: &mut Vec<Vec<Value>>, breaks: &mut Vec<Vec<Value>>) {
    for s in &b.0 {
        match s {
            Stmt::Continue(v) => conts.push(v.clone()),
            Stmt::Break(v) => breaks.push(v.clone()),
            Stmt::If(x) => {
                exits(&x.then_, conts, breaks);
                exits(&x.else_, conts, breaks);
            }
            _ => {}
        }
    }
}

/// Values yielded to the `If` whose branch is `b`.
fn yields(b: &Block) -> Vec<Value> {
    match b.0.last() {
        Some(Stmt::Yield(v)) => v.clone(),
        _ => Vec::new(),
    }
}

fn walk(f: &Function, b: &Block, u: &mut [bool], changed: &mut bool) {
    for s in &b.0 {
        match s {
            Stmt::Inst(i) => {
                let d = &f.insts[*i];
                let args_uniform = d.args.iter().all(|a| u[a.index()]);
                let keep = match &d.op {
                    Op::Input { .. }
                    | Op::InputIndirect { .. }
                    | Op::GsInput { .. }
                    | Op::SysVal { .. }
                    | Op::Helper
                    | Op::ArrayLoad { .. }
                    | Op::Memory(_) => false,
                    _ => args_uniform,
                };
                for &r in &d.results {
                    demote(u, r, keep, changed);
                }
            }
            Stmt::If(x) => {
                walk(f, &x.then_, u, changed);
                walk(f, &x.else_, u, changed);
                let (t, e) = (yields(&x.then_), yields(&x.else_));
                for (k, &r) in x.results.iter().enumerate() {
                    let keep = u[x.cond.index()]
                        && t.get(k).is_none_or(|v| u[v.index()])
                        && e.get(k).is_none_or(|v| u[v.index()]);
                    demote(u, r, keep, changed);
                }
            }
            Stmt::Loop(l) => {
                walk(f, &l.body, u, changed);
                let (mut conts, mut breaks) = (Vec::new(), Vec::new());
                exits(&l.body, &mut conts, &mut breaks);
                let exits_uniform = conds_uniform(&l.body, u);
                // Invocations that leave the loop early never read its parameters again, and
                // those still in it have run the same iterations: with one place to continue
                // from, uniform values passed there keep the parameters uniform however
                // divergent the `Break`s are. (The SIMD lowering assigns such a `Continue` in
                // every lane, so every lane holds the value.)
                let params_uniform = exits_uniform || l.sole_final_continue();
                for (k, &p) in l.params.iter().enumerate() {
                    let keep = params_uniform
                        && u[l.inits[k].index()]
                        && conts.iter().all(|c| c.get(k).is_none_or(|v| u[v.index()]));
                    demote(u, p, keep, changed);
                }
                for (k, &r) in l.results.iter().enumerate() {
                    let keep = exits_uniform
                        && breaks.iter().all(|c| c.get(k).is_none_or(|v| u[v.index()]));
                    demote(u, r, keep, changed);
                }
            }
            _ => {}
        }
    }
}
