//! Constant folding, bit-exact with the interpreter (it evaluates with [`crate::ir::semantics`],
//! which uses the interpreter's numerics).
//!
//! - A pure operation whose arguments are all constants becomes constants.
//! - `select` with a constant condition becomes the chosen value.
//! - Indirect reads with constant indices become direct reads (`imm_indirect` of a constant
//!   index becomes the immediate itself).
//! - An `If` with a constant condition is replaced by the branch taken; a branch ending in
//!   `break`/`continue` ends the enclosing block there.
//!
//! Invariant kept: the function verifies and computes the same bits for every invocation.

use super::util::{ConstPool, Subst};
use crate::ir::semantics as sem;
use crate::ir::*;
use crate::numerics::{b, f};

/// Runs the pass; returns whether anything changed. Folds with the engines' arithmetic
/// (denormals flushed in software, [`crate::numerics`]).
pub fn run(func: &mut Function) -> bool {
    let mut pool = ConstPool::new(func);
    let mut subst = Subst::new(func);
    let mut body = std::mem::take(&mut func.body);
    let mut changed = fold_block(func, &mut body, &mut pool, &mut subst);
    func.body = body;
    pool.finish(func);
    changed |= subst.changed;
    subst.apply(func);
    changed
}

fn konst(func: &Function, subst: &Subst, v: Value) -> Option<u32> {
    func.const_value(subst.get(v))
}

/// `v`'s bits (a 64-bit value, or a 32-bit one in the low word) when they follow from
/// constants through at most `depth` 64-bit operations (the IR has no 64-bit constants).
fn wide_value(func: &Function, subst: &Subst, v: Value, ftz: bool, depth: u32) -> Option<u64> {
    let v = subst.get(v);
    if let Some(c) = func.const_value(v) {
        return Some(c as u64);
    }
    let i = func.def_inst(v)?;
    let d = &func.insts[i];
    match d.op {
        Op::W64(w) if depth > 0 && d.results.len() == 1 => {
            let a: Option<Vec<u64>> = d
                .args
                .iter()
                .map(|&x| wide_value(func, subst, x, ftz, depth - 1))
                .collect();
            let r = sem::op64(w, &a?, ftz);
            Some(if func.ty(v).is_64_bit() {
                r
            } else {
                r & 0xFFFF_FFFF
            })
        }
        _ => None,
    }
}

/// Folds one instruction; returns the replacement of each result, if it folds.
fn fold_inst(
    func: &mut Function,
    i: Inst,
    pool: &mut ConstPool,
    subst: &Subst,
) -> Option<Vec<Value>> {
    let d = &func.insts[i];
    let args: Vec<Value> = d.args.iter().map(|&a| subst.get(a)).collect();
    let consts: Option<Vec<u32>> = args.iter().map(|&a| func.const_value(a)).collect();
    let results = d.results.clone();
    let ty = |func: &Function, k: usize| func.ty(results[k]);
    let one = |func: &mut Function, pool: &mut ConstPool, bits: u32| {
        let t = ty(func, 0);
        Some(vec![pool.get(func, bits, t)])
    };
    // A compute program keeps denormals, which the folding arithmetic (the draws' DAZ/FTZ)
    // flushes: a float operation on a denormal, or with a result that flushing may have made
    // zero or that is itself tiny, is left to run.
    if func.processor == crate::tgsi::Processor::Compute
        && matches!(
            d.op,
            Op::Unary(_) | Op::Binary(_) | Op::Nary(_) | Op::FCmp(_)
        )
    {
        let tiny = |bits: u32| bits & 0x7F80_0000 == 0;
        let floats = args.iter().any(|&a| func.ty(a) == Type::F32)
            || results.iter().any(|&r| func.ty(r) == Type::F32);
        if floats
            && consts
                .as_ref()
                .is_some_and(|c| c.iter().any(|&x| tiny(x) && x << 1 != 0))
        {
            return None;
        }
        if floats
            && let (Some(c), Op::Binary(op)) = (&consts, &d.op)
            && tiny(sem::binary(*op, c[0], c[1]))
        {
            return None;
        }
        if floats
            && let (Some(c), Op::Unary(u)) = (&consts, &d.op)
            && tiny(sem::unary(*u, c[0]))
        {
            return None;
        }
        if floats
            && let (Some(c), Op::Nary(n)) = (&consts, &d.op)
            && tiny(sem::nary(*n, c))
        {
            return None;
        }
    }
    match d.op.clone() {
        // A 64-bit operation with a 32-bit result: its operands' 64-bit values evaluated from
        // constant words, however many 64-bit operations make them.
        Op::W64(w) if !ty(func, 0).is_64_bit() => {
            let ftz = func.processor != crate::tgsi::Processor::Compute;
            let a: Option<Vec<u64>> = args
                .iter()
                .map(|&x| wide_value(func, subst, x, ftz, 8))
                .collect();
            let r = sem::op64(w, &a?, ftz);
            one(func, pool, r as u32)
        }
        Op::Select => {
            let c = func.const_value(args[0])?;
            Some(vec![if c != 0 { args[1] } else { args[2] }])
        }
        Op::Unary(u) => one(func, pool, sem::unary(u, consts?[0])),
        Op::Binary(op) => {
            let c = consts?;
            one(func, pool, sem::binary(op, c[0], c[1]))
        }
        Op::Nary(op) => one(func, pool, sem::nary(op, &consts?)),
        Op::FCmp(k) => {
            let c = consts?;
            one(func, pool, sem::fcmp(k, c[0], c[1]) as u32)
        }
        Op::ICmp(k) => {
            let c = consts?;
            one(func, pool, sem::icmp(k, c[0], c[1]) as u32)
        }
        Op::Pack(k) => one(func, pool, sem::pack(k, &consts?)),
        Op::Unpack(k) => {
            let u = sem::unpack(k, consts?[0]);
            Some((0..4).map(|c| pool.get(func, u[c], Type::F32)).collect())
        }
        Op::Derivative { .. } => {
            let c = consts?[0];
            let bits = if func.processor == crate::tgsi::Processor::Fragment {
                b(f(c) - f(c))
            } else {
                0
            };
            one(func, pool, bits)
        }
        Op::ImmIndirect { offset, comp } => {
            let idx = consts?[0];
            let last = func.immediates.len().checked_sub(1)? as i64;
            let k = (offset as i64 + idx as i32 as i64).clamp(0, last) as usize;
            let bits = func.immediates[k][comp as usize];
            one(func, pool, bits)
        }
        _ => None,
    }
}

/// Folds a block in place; returns whether its structure changed.
fn fold_block(func: &mut Function, b: &mut Block, pool: &mut ConstPool, subst: &mut Subst) -> bool {
    let mut changed = false;
    let mut out: Vec<Stmt> = Vec::with_capacity(b.0.len());
    let stmts = std::mem::take(&mut b.0);
    for s in stmts {
        match s {
            Stmt::Inst(i) => {
                if let Some(rep) = fold_inst(func, i, pool, subst) {
                    let results = func.insts[i].results.clone();
                    for (r, v) in results.into_iter().zip(rep) {
                        subst.replace(r, v);
                    }
                    changed = true;
                } else {
                    out.push(Stmt::Inst(i));
                }
            }
            Stmt::If(mut x) => {
                if let Some(c) = konst(func, subst, x.cond) {
                    changed = true;
                    let mut taken = if c != 0 { x.then_ } else { x.else_ };
                    fold_block(func, &mut taken, pool, subst);
                    match taken.0.pop() {
                        Some(Stmt::Yield(vals)) => {
                            for (r, v) in x.results.iter().zip(vals) {
                                subst.replace(*r, v);
                            }
                            out.append(&mut taken.0);
                        }
                        Some(term) => {
                            // The branch leaves the loop: the rest of this block is dead.
                            out.append(&mut taken.0);
                            out.push(term);
                            b.0 = out;
                            return true;
                        }
                        None => {}
                    }
                } else {
                    changed |= fold_block(func, &mut x.then_, pool, subst);
                    changed |= fold_block(func, &mut x.else_, pool, subst);
                    out.push(Stmt::If(x));
                }
            }
            Stmt::Loop(mut l) => {
                changed |= fold_block(func, &mut l.body, pool, subst);
                out.push(Stmt::Loop(l));
            }
            term => {
                out.push(term);
                b.0 = out;
                return changed;
            }
        }
    }
    b.0 = out;
    changed
}

#[cfg(test)]
mod tests {
    use crate::ir::{Op, lift, verify::verify};

    fn lifted(text: &str) -> crate::ir::Function {
        lift::lift(&crate::front::text::parse(text).unwrap()).unwrap()
    }

    #[test]
    fn arithmetic_on_immediates_folds_to_the_interpreters_bits() {
        let mut f = lifted(
            "FRAG\nDCL OUT[0], COLOR\nDCL TEMP[0]\nIMM[0] FLT32 {2.0, 3.0, 0.5, -1.0}\n\
             MAD TEMP[0], IMM[0].xxxx, IMM[0].yyyy, IMM[0].zzzz\nRSQ OUT[0].x, IMM[0].wwww\n\
             LG2 OUT[0].y, IMM[0].xxxx\nMOV OUT[0].zw, TEMP[0]\nEND\n",
        );
        assert!(super::run(&mut f));
        verify(&f).unwrap();
        let stores: Vec<u32> = f
            .insts
            .iter()
            .filter(|(_, d)| matches!(d.op, Op::StoreOutput { .. }))
            .map(|(_, d)| f.const_value(d.args[0]).expect("folded"))
            .collect();
        // RSQ(-1) is NaN (canonical); LG2(2) = logf(2)·1.442695 rounds to 1.0000001.
        assert_eq!(
            stores,
            [
                0x7FC0_0000,
                crate::numerics::lg2(2.0).to_bits(),
                6.5f32.to_bits(),
                6.5f32.to_bits()
            ]
        );
    }

    #[test]
    fn a_constant_condition_keeps_only_the_branch_taken() {
        let mut f = lifted(
            "FRAG\nDCL OUT[0], COLOR\nIMM[0] FLT32 {1.0, 0.0, 0.0, 0.0}\n\
             IF IMM[0].xxxx\nMOV OUT[0], IMM[0].xxxx\nELSE\nMOV OUT[0], IMM[0].yyyy\nENDIF\nEND\n",
        );
        assert!(super::run(&mut f));
        verify(&f).unwrap();
        assert!(!f.body.0.iter().any(|s| matches!(s, crate::ir::Stmt::If(_))));
        let first = f
            .insts
            .iter()
            .find(|(_, d)| matches!(d.op, Op::StoreOutput { .. }))
            .map(|(_, d)| f.const_value(d.args[0]))
            .unwrap();
        assert_eq!(first, Some(1f32.to_bits()));
    }
}
