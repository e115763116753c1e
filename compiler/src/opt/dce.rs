//! Dead-code elimination.
//!
//! Liveness starts from what is observable (the arguments of effects: output stores, array
//! stores, discard, EMIT, the out-of-iterations flag) and from the conditions of `If`s that
//! hold effects, loops or jumps; it flows backwards through instruction arguments, `If`
//! results to the values their branches yield (and to the condition), loop parameters to their
//! initial and `continue` values, and loop results to their `break` values.
//!
//! Then: pure instructions without a live result are removed (this is where dead channels go:
//! every component is its own value), unused `If` results and loop parameters/results are
//! removed with the values that feed them, and `If`s left empty disappear. Inputs no longer
//! read are gone with their loads ([`crate::ir::Function::inputs_read`]).
//!
//! Invariant kept: the function verifies and computes the same observable bits.

use crate::ir::*;
use crate::maps::FastMap;

/// What a value depends on when it is live.
#[derive(Default)]
struct Deps {
    /// If result → (condition, yielded values).
    if_results: FastMap<Value, (Value, Vec<Value>)>,
    /// Loop parameter → initial value and continue values.
    params: FastMap<Value, Vec<Value>>,
    /// Loop result → break values.
    results: FastMap<Value, Vec<Value>>,
    roots: Vec<Value>,
}

/// Whether a block holds an effect, a jump or a loop (anything that must run even when no
/// value it computes is used).
fn has_control(func: &Function, b: &Block) -> bool {
    b.0.iter().any(|s| match s {
        Stmt::Inst(i) => func.insts[*i].op.has_effects(),
        Stmt::If(x) => has_control(func, &x.then_) || has_control(func, &x.else_),
        Stmt::Loop(_) | Stmt::Break(_) | Stmt::Continue(_) => true,
        Stmt::Yield(_) => false,
    })
}

/// Collects a loop body's continue and break values (not those of nested loops).
fn jumps(b: &Block, conts: &mut Vec<Vec<Value>>, breaks: &mut Vec<Vec<Value>>) {
    for s in &b.0 {
        match s {
            Stmt::If(x) => {
                jumps(&x.then_, conts, breaks);
                jumps(&x.else_, conts, breaks);
            }
            Stmt::Continue(v) => conts.push(v.clone()),
            Stmt::Break(v) => breaks.push(v.clone()),
            _ => {}
        }
    }
}

fn collect(func: &Function, b: &Block, d: &mut Deps) {
    for s in &b.0 {
        match s {
            Stmt::Inst(i) => {
                let di = &func.insts[*i];
                let no_op = matches!(di.op, Op::Discard | Op::Exhausted)
                    && func.const_value(di.args[0]) == Some(0);
                if di.op.has_effects() && !no_op {
                    d.roots.extend(di.args.iter().copied());
                }
            }
            Stmt::If(x) => {
                collect(func, &x.then_, d);
                collect(func, &x.else_, d);
                if has_control(func, &x.then_) || has_control(func, &x.else_) {
                    d.roots.push(x.cond);
                }
                let ys: Vec<&Vec<Value>> = [&x.then_, &x.else_]
                    .into_iter()
                    .filter_map(|b| match b.0.last() {
                        Some(Stmt::Yield(v)) => Some(v),
                        _ => None,
                    })
                    .collect();
                for (k, &r) in x.results.iter().enumerate() {
                    d.if_results
                        .insert(r, (x.cond, ys.iter().map(|y| y[k]).collect()));
                }
            }
            Stmt::Loop(l) => {
                collect(func, &l.body, d);
                let (mut conts, mut breaks) = (Vec::new(), Vec::new());
                jumps(&l.body, &mut conts, &mut breaks);
                for (k, &p) in l.params.iter().enumerate() {
                    let mut v = vec![l.inits[k]];
                    v.extend(conts.iter().map(|c| c[k]));
                    d.params.insert(p, v);
                }
                for (k, &r) in l.results.iter().enumerate() {
                    d.results.insert(r, breaks.iter().map(|c| c[k]).collect());
                }
            }
            _ => {}
        }
    }
}

/// Which values are live.
pub fn liveness(func: &Function) -> Vec<bool> {
    let mut d = Deps::default();
    collect(func, &func.body, &mut d);
    let mut live = vec![false; func.values.len()];
    let mut work: Vec<Value> = Vec::new();
    let mark = |v: Value, live: &mut Vec<bool>, work: &mut Vec<Value>| {
        if !live[v.index()] {
            live[v.index()] = true;
            work.push(v);
        }
    };
    for &r in &d.roots {
        mark(r, &mut live, &mut work);
    }
    while let Some(v) = work.pop() {
        match func.values[v].def {
            Def::Inst(i, _) => {
                for &a in &func.insts[i].args {
                    mark(a, &mut live, &mut work);
                }
            }
            Def::IfResult => {
                if let Some((c, ys)) = d.if_results.get(&v) {
                    mark(*c, &mut live, &mut work);
                    for &y in ys {
                        mark(y, &mut live, &mut work);
                    }
                }
            }
            Def::Param => {
                for &x in d.params.get(&v).map_or(&[][..], Vec::as_slice) {
                    mark(x, &mut live, &mut work);
                }
            }
            Def::LoopResult => {
                for &x in d.results.get(&v).map_or(&[][..], Vec::as_slice) {
                    mark(x, &mut live, &mut work);
                }
            }
        }
    }
    live
}

/// Runs the pass; returns whether anything was removed.
pub fn run(func: &mut Function) -> bool {
    let live = liveness(func);
    let mut body = std::mem::take(&mut func.body);
    let changed = sweep(func, &mut body, &live);
    func.body = body;
    changed
}

/// Keeps the entries of `v` whose flag is set.
fn retain_by<T: Copy>(v: &mut Vec<T>, keep: &[bool]) {
    let mut k = 0;
    v.retain(|_| {
        k += 1;
        keep[k - 1]
    });
}

/// Filters the continue and break values of a loop body (not nested loops).
fn filter_jumps(b: &mut Block, keep_p: &[bool], keep_r: &[bool]) {
    for s in &mut b.0 {
        match s {
            Stmt::If(x) => {
                filter_jumps(&mut x.then_, keep_p, keep_r);
                filter_jumps(&mut x.else_, keep_p, keep_r);
            }
            Stmt::Continue(v) => retain_by(v, keep_p),
            Stmt::Break(v) => retain_by(v, keep_r),
            _ => {}
        }
    }
}

fn sweep(func: &Function, b: &mut Block, live: &[bool]) -> bool {
    let mut changed = false;
    let before = b.0.len();
    b.0.retain_mut(|s| match s {
        Stmt::Inst(i) => {
            let d = &func.insts[*i];
            // Discarding or flagging no lane does nothing.
            let no_op = matches!(d.op, Op::Discard | Op::Exhausted)
                && func.const_value(d.args[0]) == Some(0);
            (d.op.has_effects() && !no_op) || d.results.iter().any(|r| live[r.index()])
        }
        Stmt::If(x) => {
            changed |= sweep(func, &mut x.then_, live);
            changed |= sweep(func, &mut x.else_, live);
            let keep: Vec<bool> = x.results.iter().map(|r| live[r.index()]).collect();
            if keep.iter().any(|k| !k) {
                changed = true;
                retain_by(&mut x.results, &keep);
                for br in [&mut x.then_, &mut x.else_] {
                    if let Some(Stmt::Yield(v)) = br.0.last_mut() {
                        retain_by(v, &keep);
                    }
                }
            }
            let trivial =
                |b: &Block| b.0.len() == 1 && matches!(&b.0[0], Stmt::Yield(v) if v.is_empty());
            !(x.results.is_empty() && trivial(&x.then_) && trivial(&x.else_))
        }
        Stmt::Loop(l) => {
            changed |= sweep(func, &mut l.body, live);
            let keep_p: Vec<bool> = l.params.iter().map(|p| live[p.index()]).collect();
            let keep_r: Vec<bool> = l.results.iter().map(|r| live[r.index()]).collect();
            if keep_p.iter().chain(&keep_r).any(|k| !k) {
                changed = true;
                filter_jumps(&mut l.body, &keep_p, &keep_r);
                retain_by(&mut l.params, &keep_p);
                retain_by(&mut l.inits, &keep_p);
                retain_by(&mut l.results, &keep_r);
            }
            true
        }
        _ => true,
    });
    changed | (b.0.len() != before)
}

#[cfg(test)]
mod tests {
    use crate::ir::{Op, lift, verify::verify};

    #[test]
    fn unused_channels_and_inputs_disappear() {
        // Only OUT[0].x is written from IN[0]; the y, z, w computations and IN[1] are dead.
        let mut f = lift::lift(
            &crate::front::text::parse(
                "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL IN[1], GENERIC[1], PERSPECTIVE\n\
                 DCL OUT[0], COLOR\nDCL TEMP[0]\nMUL TEMP[0], IN[0], IN[1]\nMOV TEMP[0].x, IN[0].yyyy\n\
                 MOV OUT[0].x, TEMP[0].xxxx\nEND\n",
            )
            .unwrap(),
        )
        .unwrap();
        assert!(super::run(&mut f));
        verify(&f).unwrap();
        let ops: Vec<&Op> = f
            .body
            .0
            .iter()
            .filter_map(|s| match s {
                crate::ir::Stmt::Inst(i) => Some(&f.insts[*i].op),
                _ => None,
            })
            .collect();
        assert!(
            !ops.iter().any(|o| matches!(o, Op::Binary(_))),
            "the MUL is dead: {ops:?}"
        );
        assert_eq!(f.inputs_read(), [(0, 1)].into_iter().collect());
    }
}
