//! Folds what Q15.17's range decides, after the IR is optimized: every THEIA value lies in
//! [−16384, 16384), so a comparison with a constant outside that range has one answer, and
//! min/max with such a constant is the other operand. Without this, a shader that compares
//! against 1e10 (a common "infinity") would be refused for a constant it never needs.
//!
//! - `x < C`, `x ≤ C`, `x ≠ C` are true and `x > C`, `x ≥ C`, `x = C` false for C ≥ 16384;
//!   the reverse for C < −16384 (equality is false, inequality true either way).
//! - `min(x, C)` is x for C ≥ 16384, `max(x, C)` is x for C < −16384.
//!
//! Returns whether anything changed (the caller optimizes again to propagate it).

use crate::isa::f64_to_fixed;
use tgsic::ir::{Binary, FCmp, Function, Inst, Op, Type, Value};
use tgsic::opt::util::{ConstPool, Subst};

/// Where a constant lies against Q15.17's range.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Above,
    Below,
}

fn side(f: &Function, v: Value) -> Option<Side> {
    if f.ty(v) != Type::F32 {
        return None;
    }
    let x = f32::from_bits(f.const_value(v)?);
    if x.is_nan() || f64_to_fixed(x as f64).is_some() {
        return None;
    }
    Some(if x > 0.0 { Side::Above } else { Side::Below })
}

/// The answer of `x op C` for every x in range, C on `side` (`swapped`: `C op x`).
fn answer(op: FCmp, side: Side, swapped: bool) -> bool {
    // Whether x < C for every x.
    let below = side == Side::Above;
    let (lt, gt) = if swapped {
        (!below, below)
    } else {
        (below, !below)
    };
    match op {
        FCmp::Lt | FCmp::Le => lt,
        FCmp::Gt | FCmp::Ge => gt,
        FCmp::Eq => false,
        FCmp::Ne => true,
    }
}

pub(super) fn fold(f: &mut Function) -> bool {
    let mut pool = ConstPool::new(f);
    let mut subst = Subst::new(f);
    for k in 0..f.insts.len() {
        let i = Inst::new(k);
        let (op, args) = (f.insts[i].op.clone(), f.insts[i].args.clone());
        let Some(&r) = f.insts[i].results.first() else {
            continue;
        };
        let [a, b] = args[..] else { continue };
        let (sa, sb) = (side(f, a), side(f, b));
        match (op, sa, sb) {
            (Op::FCmp(c), None, Some(s)) if f.const_value(a).is_none() => {
                let v = pool.get(f, answer(c, s, false) as u32, Type::Bool);
                subst.replace(r, v);
            }
            (Op::FCmp(c), Some(s), None) if f.const_value(b).is_none() => {
                let v = pool.get(f, answer(c, s, true) as u32, Type::Bool);
                subst.replace(r, v);
            }
            (Op::Binary(Binary::FMin), None, Some(Side::Above))
            | (Op::Binary(Binary::FMax), None, Some(Side::Below)) => subst.replace(r, a),
            (Op::Binary(Binary::FMin), Some(Side::Above), None)
            | (Op::Binary(Binary::FMax), Some(Side::Below), None) => subst.replace(r, b),
            _ => {}
        }
    }
    pool.finish(f);
    let changed = subst.changed;
    subst.apply(f);
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_with_constants_past_the_range_have_one_answer() {
        // x < 1e10, 1e10 > x: true; x > 1e10, x = 1e10: false; -1e10 < x: true.
        assert!(answer(FCmp::Lt, Side::Above, false));
        assert!(answer(FCmp::Le, Side::Above, false));
        assert!(!answer(FCmp::Gt, Side::Above, false));
        assert!(!answer(FCmp::Ge, Side::Above, false));
        assert!(answer(FCmp::Gt, Side::Above, true));
        assert!(!answer(FCmp::Lt, Side::Above, true));
        assert!(answer(FCmp::Lt, Side::Below, true));
        assert!(answer(FCmp::Gt, Side::Below, false));
        assert!(!answer(FCmp::Eq, Side::Below, false));
        assert!(answer(FCmp::Ne, Side::Above, true));
    }
}
