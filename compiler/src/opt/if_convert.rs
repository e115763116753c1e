//! If-conversion: an `If` whose branches only compute a few pure values and yield them becomes
//! straight-line code and a `select` per result, so SIMD code needs no masks for it and the
//! branches can be optimized with their surroundings.
//!
//! Only cheap, total operations move: no effects, no memory reads, no cross-lane operations
//! (derivatives and texture lookups stay under their condition), no nested control flow, at
//! most [`MAX_BRANCH_INSTS`] instructions per branch. Executing them for every lane is safe:
//! IR operations never trap (division by zero has a defined result).
//! Invariant kept: the function verifies and computes the same bits.

use super::util::is_pure;
use crate::ir::*;

/// The largest branch converted.
pub const MAX_BRANCH_INSTS: usize = 8;

/// Runs the pass; returns whether any `If` was converted.
pub fn run(func: &mut Function) -> bool {
    let mut body = std::mem::take(&mut func.body);
    let changed = block(func, &mut body);
    func.body = body;
    changed
}

/// The instructions of a branch and its yielded values, if it qualifies.
fn simple_branch(func: &Function, b: &Block) -> Option<(Vec<Inst>, Vec<Value>)> {
    let (last, rest) = b.0.split_last()?;
    let Stmt::Yield(vals) = last else { return None };
    if rest.len() > MAX_BRANCH_INSTS {
        return None;
    }
    let mut insts = Vec::new();
    for s in rest {
        let Stmt::Inst(i) = s else { return None };
        let op = &func.insts[*i].op;
        if !is_pure(op) || op.is_cross_lane() {
            return None;
        }
        insts.push(*i);
    }
    Some((insts, vals.clone()))
}

fn block(func: &mut Function, b: &mut Block) -> bool {
    let mut changed = false;
    let mut out = Vec::with_capacity(b.0.len());
    for s in std::mem::take(&mut b.0) {
        match s {
            Stmt::If(mut x) => {
                changed |= block(func, &mut x.then_);
                changed |= block(func, &mut x.else_);
                match (simple_branch(func, &x.then_), simple_branch(func, &x.else_)) {
                    (Some((ti, tv)), Some((ei, ev))) => {
                        changed = true;
                        out.extend(ti.into_iter().chain(ei).map(Stmt::Inst));
                        // Each result becomes a select defining the same value.
                        for (k, &r) in x.results.iter().enumerate() {
                            let i = func.insts.push(InstData {
                                op: Op::Select,
                                args: vec![x.cond, tv[k], ev[k]],
                                results: vec![r],
                                origin: None,
                            });
                            func.values[r].def = Def::Inst(i, 0);
                            out.push(Stmt::Inst(i));
                        }
                    }
                    _ => out.push(Stmt::If(x)),
                }
            }
            Stmt::Loop(mut l) => {
                changed |= block(func, &mut l.body);
                out.push(Stmt::Loop(l));
            }
            other => out.push(other),
        }
    }
    b.0 = out;
    changed
}

#[cfg(test)]
mod tests {
    use crate::ir::{Op, Stmt, lift, verify::verify};

    #[test]
    fn a_small_conditional_becomes_selects() {
        let mut f = lift::lift(
            &crate::front::text::parse(
                "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
                 IMM[0] FLT32 {0.5, 2.0, 0.0, 0.0}\nMOV TEMP[0], IN[0]\nIF IN[0].xxxx\n\
                 MUL TEMP[0].x, IN[0].yyyy, IMM[0].yyyy\nELSE\nADD TEMP[0].x, IN[0].zzzz, IMM[0].xxxx\n\
                 ENDIF\nMOV OUT[0], TEMP[0]\nEND\n",
            )
            .unwrap(),
        )
        .unwrap();
        assert!(super::run(&mut f));
        verify(&f).unwrap();
        assert!(!f.body.0.iter().any(|s| matches!(s, Stmt::If(_))));
        let mut selects = 0;
        f.for_each_inst(|i| selects += matches!(f.insts[i].op, Op::Select) as u32);
        assert_eq!(selects, 1);
    }
}
