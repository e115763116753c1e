//! Contraction, for fast math only: a float multiply whose product feeds an add or a subtract
//! is fused with it into one `fma` (a single rounding), as GLSL allows where a shader does not
//! ask for `precise` and as llvmpipe does with MAD, DP2/3/4, LRP and their kind. It changes
//! results, unlike the passes of [`optimize`](super::optimize): a fused result is the exact
//! `a·b + c` rounded once, so it differs from the unfused one by at most half an ulp of the
//! product (plus the usual half ulp of the result), and is never further from the exact value.
//!
//! - `fadd(fmul(a, b), c)` and `fadd(c, fmul(a, b))` → `fma(a, b, c)`;
//! - `fsub(fmul(a, b), c)` → `fma(a, b, fneg(c))`; `fsub(c, fmul(a, b))` → `fma(fneg(a), b, c)`.
//!
//! The product stays where it is (dead-code elimination removes it when nothing else reads
//! it); each add or subtract is rewritten in place, so its result value and every use stay.
//! Run it only when the target has a fused multiply-add instruction: on others an `fma` costs
//! more than the pair.

use crate::ir::*;

/// Fuses every multiply-add and multiply-subtract of `f`; returns whether there was one.
pub fn run(f: &mut Function) -> bool {
    super::util::rewrite_insts(f, &mut |f, out, i| {
        let d = &f.insts[i];
        let (op, args, origin) = (d.op.clone(), d.args.clone(), d.origin);
        let neg = |f: &mut Function, out: &mut Vec<Stmt>, x: Value| {
            let n = f.new_inst(Op::Unary(Unary::FNeg), vec![x], &[Type::F32], origin);
            out.push(Stmt::Inst(n));
            f.insts[n].results[0]
        };
        if !matches!(op, Op::Binary(Binary::FAdd | Binary::FSub)) {
            return false;
        }
        let (x, y) = (product(f, args[0]), product(f, args[1]));
        let abc = match (op, x, y) {
            (Op::Binary(Binary::FAdd), Some((a, b)), _) => [a, b, args[1]],
            (Op::Binary(Binary::FAdd), None, Some((a, b))) => [a, b, args[0]],
            (Op::Binary(Binary::FSub), Some((a, b)), _) => [a, b, neg(f, out, args[1])],
            (Op::Binary(Binary::FSub), None, Some((a, b))) => [neg(f, out, a), b, args[0]],
            _ => return false,
        };
        f.insts[i].op = Op::Nary(Nary::Fma);
        f.insts[i].args = abc.to_vec();
        true
    })
}

/// The operands of `v` when it is the result of an `fmul`.
fn product(f: &Function, v: Value) -> Option<(Value, Value)> {
    let Def::Inst(i, 0) = f.values[v].def else {
        return None;
    };
    let d = &f.insts[i];
    (d.op == Op::Binary(Binary::FMul)).then(|| (d.args[0], d.args[1]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::semantics;

    fn count(f: &Function, op: &Op) -> usize {
        let mut n = 0;
        f.for_each_inst(|i| n += usize::from(&f.insts[i].op == op));
        n
    }

    #[test]
    fn mad_dp3_and_a_subtract_become_fmas() {
        let mut f = crate::opt::optimized_text(
            "VERT\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\n\
             MAD OUT[0].x, IN[0].xxxx, IN[0].yyyy, IN[0].zzzz\n\
             DP3 OUT[0].y, IN[0].xyzz, IN[1].xyzz\n\
             MAD OUT[0].z, IN[0].xxxx, IN[1].xxxx, -IN[1].yyyy\n\
             ADD OUT[0].w, IN[1].zzzz, -IN[1].wwww\nEND\n",
        );
        assert!(run(&mut f));
        crate::opt::dce::run(&mut f);
        crate::ir::verify::verify(&f).unwrap();
        // MAD: 1, DP3: 2 (its first product stays a multiply), the negated MAD: 1.
        assert_eq!(count(&f, &Op::Nary(Nary::Fma)), 4);
        assert_eq!(count(&f, &Op::Binary(Binary::FMul)), 1);
        assert!(!run(&mut f), "nothing is left to fuse");
    }

    #[test]
    fn a_fused_result_is_the_product_plus_the_addend_rounded_once() {
        // a·b = 1 + 2⁻¹² + 2⁻²⁴ exactly; minus 1, only the fused form keeps the 2⁻²⁴.
        let a = 1.0f32 + 2f32.powi(-12);
        let (x, y) = (a.to_bits(), (-1.0f32).to_bits());
        let fused = semantics::nary(Nary::Fma, &[x, x, y]);
        assert_eq!(f32::from_bits(fused), 2f32.powi(-11) + 2f32.powi(-24));
        let unfused = semantics::binary(Binary::FAdd, semantics::binary(Binary::FMul, x, x), y);
        assert_eq!(f32::from_bits(unfused), 2f32.powi(-11));
    }
}
