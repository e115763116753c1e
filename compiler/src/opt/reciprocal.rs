//! Reciprocals, for fast math only: a division becomes a product with the divisor's reciprocal
//! where that saves divisions, as GLSL allows (its division is accurate to 2.5 ulp) and as
//! llvmpipe does with divisions by constants. A divider is slow (an 8-lane `vdivps` takes 5
//! cycles on a Zen 4 core, a multiply half of one), and shaders divide by constants often
//! (`percent / ITERATIONS`, a blur's weights, `x / 7.0`).
//!
//! - `fdiv(x, c)`, `c` a normal constant whose reciprocal is a normal float →
//!   `fmul(x, 1/c)` (the reciprocal rounded to f32 at compile time);
//! - two or more `fdiv(x, y)` by one divisor `y` that an instruction computes (`color / total`,
//!   a perspective divide) → `r = fdiv(1, y)` right after `y`'s definition, and `fmul(x, r)`
//!   for each; a division of the constant 1 (RCP) is left as it is.
//!
//! The product of `x` and the rounded reciprocal is within 2 ulp of the correctly rounded
//! quotient (each of the two roundings errs by at most 2⁻²⁴ relative, so the result by less
//! than 2⁻²³ of the exact quotient: 2 ulp at the bottom of a binade). Results that DAZ/FTZ
//! flush may flush on one side of 2⁻¹²⁶ and not the other. Infinite and NaN `x`, and
//! zeros, give what the division gives. `tests/tests/fast_math.rs` holds every engine to the
//! bound. A power of two's reciprocal is exact, so dividing by one is unchanged.
//!
//! Run after [`fast_math`](super::fast_math) and before [`contract`](super::contract), which
//! fuses a product with the add it feeds.

use super::util::{ConstPool, for_each_block_mut};
use crate::ir::*;
use crate::maps::{FastMap, FastSet};

/// Rewrites the divisions of `f` as above; returns whether there was one.
pub fn run(f: &mut Function) -> bool {
    let one = 1.0f32.to_bits();
    // The divisors divided by two or more times (RCP's divisions of 1 aside).
    let mut uses: FastMap<Value, usize> = FastMap::default();
    f.for_each_inst(|i| {
        let d = &f.insts[i];
        if d.op == Op::Binary(Binary::FDiv)
            && const_of(f, d.args[1]).is_none()
            && const_of(f, d.args[0]) != Some(one)
        {
            *uses.entry(d.args[1]).or_default() += 1;
        }
    });
    let shared: FastSet<Value> = uses
        .into_iter()
        .filter(|&(y, n)| n >= 2 && matches!(f.values[y].def, Def::Inst(..)))
        .map(|(y, _)| y)
        .collect();

    // Each shared divisor's reciprocal, right after the instruction that computes it.
    let mut pool = ConstPool::new(f);
    let mut recip: FastMap<Value, Value> = FastMap::default();
    let mut made: FastSet<Inst> = FastSet::default();
    if !shared.is_empty() {
        let one = pool.get(f, one, Type::F32);
        let mut body = std::mem::take(&mut f.body);
        for_each_block_mut(&mut body, &mut |b| {
            let mut out = Vec::with_capacity(b.0.len());
            for s in std::mem::take(&mut b.0) {
                let after = match &s {
                    Stmt::Inst(i) => f.insts[*i].results.clone(),
                    _ => Vec::new(),
                };
                out.push(s);
                for y in after.into_iter().filter(|y| shared.contains(y)) {
                    let origin = match f.values[y].def {
                        Def::Inst(i, _) => f.insts[i].origin,
                        _ => None,
                    };
                    let r =
                        f.new_inst(Op::Binary(Binary::FDiv), vec![one, y], &[Type::F32], origin);
                    made.insert(r);
                    recip.insert(y, f.insts[r].results[0]);
                    out.push(Stmt::Inst(r));
                }
            }
            b.0 = out;
        });
        f.body = body;
    }

    let changed = super::util::rewrite_insts(f, &mut |f, _, i| {
        let d = &f.insts[i];
        if d.op != Op::Binary(Binary::FDiv) || made.contains(&i) {
            return false;
        }
        let (x, y) = (d.args[0], d.args[1]);
        let r = match const_of(f, y) {
            Some(c) => {
                // A denormal divisor reads as 0 (DAZ): its quotient is infinite.
                let c = f32::from_bits(c);
                let r = 1.0 / c;
                if !c.is_normal() || !r.is_normal() {
                    return false;
                }
                pool.get(f, r.to_bits(), Type::F32)
            }
            None if const_of(f, x) == Some(one) => return false,
            None => match recip.get(&y) {
                Some(&r) => r,
                None => return false,
            },
        };
        f.insts[i].op = Op::Binary(Binary::FMul);
        f.insts[i].args = vec![x, r];
        true
    });
    pool.finish(f);
    changed
}

/// The bits of `v` when a constant instruction defines it.
fn const_of(f: &Function, v: Value) -> Option<u32> {
    match f.values[v].def {
        Def::Inst(i, 0) => match f.insts[i].op {
            Op::Const(c) => Some(c),
            _ => None,
        },
        _ => None,
    }
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

    fn rewritten(text: &str) -> Function {
        let mut f = crate::opt::optimized_text(text);
        assert!(run(&mut f));
        crate::opt::dce::run(&mut f);
        crate::ir::verify::verify(&f).unwrap();
        f
    }

    #[test]
    fn a_division_by_a_constant_is_a_product_with_its_reciprocal() {
        let f = rewritten(
            "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nIMM[0] FLT32 {3.0, 0.5, 0.0, 1e-38}\n\
             DIV OUT[0].x, IN[0].xxxx, IMM[0].xxxx\n\
             DIV OUT[0].y, IN[0].yyyy, IMM[0].yyyy\n\
             DIV OUT[0].z, IN[0].zzzz, IMM[0].zzzz\n\
             DIV OUT[0].w, IN[0].wwww, IMM[0].wwww\nEND\n",
        );
        // By 3 and by 0.5: products; by 0 (∞) and by a denormal (DAZ: 0, though 1/c is a
        // normal float): divisions.
        assert_eq!(count(&f, &Op::Binary(Binary::FMul)), 2);
        assert_eq!(count(&f, &Op::Binary(Binary::FDiv)), 2);
        assert_eq!(count(&f, &Op::Const((1.0f32 / 3.0).to_bits())), 1);
        assert_eq!(count(&f, &Op::Const(2.0f32.to_bits())), 1);
    }

    #[test]
    fn divisions_by_one_divisor_share_its_reciprocal() {
        let f = rewritten(
            "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\nDCL TEMP[0]\n\
             ADD TEMP[0].x, IN[0].wwww, IN[0].zzzz\n\
             DIV OUT[0].xy, IN[0].xyyy, TEMP[0].xxxx\n\
             RCP OUT[0].z, TEMP[0].xxxx\n\
             DIV OUT[1].x, IN[0].xxxx, IN[0].yyyy\nEND\n",
        );
        // x/t and y/t: one reciprocal, two products; RCP stays a division of 1; x/y alone
        // stays a division.
        assert_eq!(count(&f, &Op::Binary(Binary::FMul)), 2);
        assert_eq!(count(&f, &Op::Binary(Binary::FDiv)), 3);
    }

    #[test]
    fn a_single_division_by_a_variable_stays() {
        let mut f = crate::opt::optimized_text(
            "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\n\
             DIV OUT[0].x, IN[0].xxxx, IN[0].yyyy\nEND\n",
        );
        assert!(!run(&mut f));
    }

    #[test]
    fn the_product_stays_within_2_ulp_of_the_quotient() {
        // Divisors whose reciprocals round badly, numerators across binades.
        let mut worst = 0i64;
        let mut seed = 7u64;
        for _ in 0..200_000 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let x = f32::from_bits(0x3000_0000 + ((seed >> 33) as u32 % 0x1F00_0000));
            let c = f32::from_bits(0x3000_0000 + ((seed >> 7) as u32 % 0x1F00_0000));
            let q = semantics::binary(Binary::FDiv, x.to_bits(), c.to_bits());
            let r = semantics::binary(Binary::FDiv, 1.0f32.to_bits(), c.to_bits());
            let p = semantics::binary(Binary::FMul, x.to_bits(), r);
            worst = worst.max((q as i64 - p as i64).abs());
        }
        assert!(worst <= 2, "{worst} ulp");
        assert!(worst >= 1, "the rewrite is not exact");
    }
}
