//! Where NaNs must be canonicalized.
//!
//! The interpreter returns the canonical NaN `0x7FC00000` from every float operation; SSE
//! returns an operand's NaN (quieted) or `0xFFC00000`. Canonicalizing after every operation
//! would cost two instructions each, so the back end tracks, per value, whether it is
//! *arithmetic*: produced by SSE float arithmetic, so its NaN bits may differ from the
//! interpreter's while everything else is equal. Arithmetic consumers (arithmetic,
//! comparisons, conversions) do not care. A consumer that exposes bits — a sign operation,
//! a bitcast, a store, an EMIT, a host call — canonicalizes an arithmetic operand first. A
//! merge (`select`, `If` result, loop parameter or result) is arithmetic when all its inputs
//! are; otherwise its arithmetic inputs are canonicalized where they enter it, so that raw
//! bits (a MOV of an input NaN) keep their payload.

use crate::ir::*;
use std::collections::HashMap;

/// Whether the operation's result comes from SSE arithmetic (in `fast` math mode, the inline
/// approximations count too).
fn arithmetic(op: &Op, fast: bool) -> bool {
    use Unary as U;
    match op {
        Op::Unary(u) => match u {
            U::FFloor | U::FCeil | U::FTrunc | U::FRound | U::FSqrt => true,
            U::FExp2 | U::FLg2 | U::FSin | U::FCos => fast,
            _ => false,
        },
        Op::Binary(b) => match b {
            Binary::FAdd
            | Binary::FSub
            | Binary::FMul
            | Binary::FDiv
            | Binary::FMin
            | Binary::FMax => true,
            Binary::FPow => fast,
            _ => false,
        },
        Op::Nary(Nary::Fma) | Op::Derivative { .. } => true,
        _ => false,
    }
}

/// Per value, whether it is arithmetic (see the module documentation).
pub fn classes(f: &Function, fast: bool) -> Vec<bool> {
    let mut arith = vec![false; f.values.len()];
    // Merges start optimistic and are demoted to a fixpoint.
    let mut merges: HashMap<Value, Vec<Value>> = HashMap::new();
    collect(f, &f.body, fast, &mut arith, &mut merges);
    for &v in merges.keys() {
        arith[v.index()] = f.ty(v) == Type::F32;
    }
    loop {
        let mut changed = false;
        for (&v, inputs) in &merges {
            if arith[v.index()] && !inputs.iter().all(|i| arith[i.index()]) {
                arith[v.index()] = false;
                changed = true;
            }
        }
        if !changed {
            return arith;
        }
    }
}

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

fn collect(
    f: &Function,
    b: &Block,
    fast: bool,
    arith: &mut [bool],
    merges: &mut HashMap<Value, Vec<Value>>,
) {
    for s in &b.0 {
        match s {
            Stmt::Inst(i) => {
                let d = &f.insts[*i];
                if d.op == Op::Select {
                    merges.insert(d.results[0], vec![d.args[1], d.args[2]]);
                } else if arithmetic(&d.op, fast) {
                    for &r in &d.results {
                        arith[r.index()] = f.ty(r) == Type::F32;
                    }
                }
            }
            Stmt::If(x) => {
                collect(f, &x.then_, fast, arith, merges);
                collect(f, &x.else_, fast, arith, merges);
                for (k, &r) in x.results.iter().enumerate() {
                    let ys = [&x.then_, &x.else_]
                        .into_iter()
                        .filter_map(|b| match b.0.last() {
                            Some(Stmt::Yield(v)) => Some(v[k]),
                            _ => None,
                        })
                        .collect();
                    merges.insert(r, ys);
                }
            }
            Stmt::Loop(l) => {
                collect(f, &l.body, fast, arith, merges);
                let (mut conts, mut breaks) = (Vec::new(), Vec::new());
                jumps(&l.body, &mut conts, &mut breaks);
                for (k, &p) in l.params.iter().enumerate() {
                    let mut v = vec![l.inits[k]];
                    v.extend(conts.iter().map(|c| c[k]));
                    merges.insert(p, v);
                }
                for (k, &r) in l.results.iter().enumerate() {
                    merges.insert(r, breaks.iter().map(|c| c[k]).collect());
                }
            }
            _ => {}
        }
    }
}
