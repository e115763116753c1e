//! Loop-invariant code motion: pure instructions at the top level of a loop body whose
//! arguments are all defined outside the loop move before it (inner loops first, so invariants
//! climb out of nests).
//!
//! Moved: operations without effects, memory reads or cross-lane dependence (derivatives and
//! texture lookups stay where the lanes that need them are active). Executing one before the
//! loop is safe even if the loop would have left before reaching it: IR operations never trap.
//! Invariant kept: the function verifies and computes the same bits.

use super::util::is_pure;
use crate::ir::*;
use crate::maps::FastSet;

/// Runs the pass; returns whether anything moved.
pub fn run(func: &mut Function) -> bool {
    let mut body = std::mem::take(&mut func.body);
    let changed = block(func, &mut body);
    func.body = body;
    changed
}

/// Every value defined inside a block (nested regions included).
fn defined(func: &Function, b: &Block, out: &mut FastSet<Value>) {
    for s in &b.0 {
        match s {
            Stmt::Inst(i) => out.extend(func.insts[*i].results.iter().copied()),
            Stmt::If(x) => {
                defined(func, &x.then_, out);
                defined(func, &x.else_, out);
                out.extend(x.results.iter().copied());
            }
            Stmt::Loop(l) => {
                out.extend(l.params.iter().copied());
                defined(func, &l.body, out);
                out.extend(l.results.iter().copied());
            }
            _ => {}
        }
    }
}

fn block(func: &mut Function, b: &mut Block) -> bool {
    let mut changed = false;
    let mut out = Vec::with_capacity(b.0.len());
    for s in std::mem::take(&mut b.0) {
        match s {
            Stmt::If(mut x) => {
                changed |= block(func, &mut x.then_);
                changed |= block(func, &mut x.else_);
                out.push(Stmt::If(x));
            }
            Stmt::Loop(mut l) => {
                changed |= block(func, &mut l.body);
                let mut inside: FastSet<Value> = l.params.iter().copied().collect();
                defined(func, &l.body, &mut inside);
                let mut hoisted = Vec::new();
                l.body.0.retain(|s| {
                    let Stmt::Inst(i) = s else { return true };
                    let d = &func.insts[*i];
                    let movable = is_pure(&d.op)
                        && !d.op.is_cross_lane()
                        && d.args.iter().all(|a| !inside.contains(a));
                    if movable {
                        for r in &d.results {
                            inside.remove(r);
                        }
                        hoisted.push(Stmt::Inst(*i));
                    }
                    !movable
                });
                changed |= !hoisted.is_empty();
                out.extend(hoisted);
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
    fn a_computation_on_inputs_leaves_the_loop() {
        let mut f = lift::lift(
            &crate::front::text::parse(
                "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0..1]\n\
                 IMM[0] FLT32 {8.0, 1.0, 0.0, 0.0}\nBGNLOOP\nMUL TEMP[1].x, IN[0].xxxx, IMM[0].xxxx\n\
                 ADD TEMP[0].x, TEMP[0].xxxx, TEMP[1].xxxx\nSGE TEMP[1].y, TEMP[0].xxxx, IMM[0].yyyy\n\
                 IF TEMP[1].yyyy\nBRK\nENDIF\nENDLOOP\nMOV OUT[0], TEMP[0].xxxx\nEND\n",
            )
            .unwrap(),
        )
        .unwrap();
        assert!(super::run(&mut f));
        verify(&f).unwrap();
        let Some(Stmt::Loop(l)) = f.body.0.iter().find(|s| matches!(s, Stmt::Loop(_))) else {
            panic!("no loop")
        };
        let in_loop_muls = l
            .body
            .0
            .iter()
            .filter(|s| matches!(s, Stmt::Inst(i) if matches!(f.insts[*i].op, Op::Binary(crate::ir::Binary::FMul))))
            .count();
        assert_eq!(in_loop_muls, 0);
    }
}
