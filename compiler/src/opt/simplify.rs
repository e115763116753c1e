//! Algebraic simplification that keeps IEEE results bit for bit.
//!
//! Float identities only apply where they are exact under the IR's numerics (denormals read
//! as zero, NaN results canonical): `x·1`, `x/1`, `x + (−0)`, `x − (+0)`, `min(x, x)` and
//! `max(x, x)` are `x` only when x is *canonical* — produced by a float operation, so neither
//! denormal nor a NaN with a payload ([`super::util::is_canonical_float`]). `x·0` is never 0
//! (NaN, −0, inf). Sign-bit operations cancel exactly (`−−x`, `|−x|`, `||x||`).
//!
//! Integer and boolean identities (`x + 0`, `x & ~0`, `x ^ x`, shifts by a multiple of 32,
//! `!!b`, `b && true`, `(b ? ~0 : 0) & x` = `b ? x : 0`, ...) apply always. Comparisons of TGSI booleans (`~0`/`0` words, or
//! 1.0/0.0) against zero become the boolean itself — the shape `USEQ`/`FSLT` followed by
//! `UIF`/`IF` takes — and `!(a < b)` on integers becomes `a >= b` (not on floats: NaN).
//!
//! Invariant kept: the function verifies and computes the same bits.

use super::util::{ConstPool, Subst, is_canonical_float};
use crate::ir::*;

struct Simplify<'a> {
    func: &'a mut Function,
    subst: Subst,
    pool: ConstPool,
    changed: bool,
}

/// Runs the pass; returns whether anything changed.
pub fn run(func: &mut Function) -> bool {
    let mut order = Vec::new();
    func.for_each_inst(|i| order.push(i));
    let subst = Subst::new(func);
    let pool = ConstPool::new(func);
    let mut s = Simplify {
        func,
        subst,
        pool,
        changed: false,
    };
    for i in order {
        s.inst(i);
    }
    let Simplify {
        func,
        subst,
        pool,
        changed,
    } = s;
    pool.finish(func);
    subst.apply(func);
    changed || subst.changed
}

/// A value's defining operation and arguments.
fn def(func: &Function, v: Value) -> Option<(&Op, &[Value])> {
    let i = func.def_inst(v)?;
    Some((&func.insts[i].op, &func.insts[i].args))
}

fn inverse(k: ICmp) -> ICmp {
    match k {
        ICmp::Eq => ICmp::Ne,
        ICmp::Ne => ICmp::Eq,
        ICmp::SLt => ICmp::SGe,
        ICmp::SGe => ICmp::SLt,
        ICmp::ULt => ICmp::UGe,
        ICmp::UGe => ICmp::ULt,
    }
}

enum Rewrite {
    /// The result is this value.
    To(Value),
    /// The result is this constant.
    K(u32),
    /// The instruction becomes this operation on these arguments.
    Becomes(Op, Vec<Value>),
    /// The instruction becomes `select(b, x, 0)`.
    SelectOrZero(Value, Value),
}

impl Simplify<'_> {
    fn konst(&self, v: Value) -> Option<u32> {
        self.func.const_value(v)
    }

    fn inst(&mut self, i: Inst) {
        let d = &self.func.insts[i];
        if d.results.len() != 1 {
            return;
        }
        let args: Vec<Value> = d.args.iter().map(|&a| self.subst.get(a)).collect();
        let r = d.results[0];
        let ty = self.func.ty(r);
        let Some(rw) = self.rule(&d.op.clone(), &args) else {
            return;
        };
        self.changed = true;
        match rw {
            Rewrite::To(v) => self.subst.replace(r, v),
            Rewrite::K(c) => {
                let v = self.pool.get(self.func, c, ty);
                self.subst.replace(r, v);
            }
            Rewrite::Becomes(op, args) => {
                let d = &mut self.func.insts[i];
                d.op = op;
                d.args = args;
            }
            Rewrite::SelectOrZero(b, x) => {
                let z = self.pool.get(self.func, 0, ty);
                let d = &mut self.func.insts[i];
                d.op = Op::Select;
                d.args = vec![b, x, z];
            }
        }
    }

    /// A 64-bit value's words and reinterpretations cancel: `lo(pack(a, b))` is `a`,
    /// `pack(lo(v), hi(v))` is `v`, `asf64(asi64(x))` is `x` (bits untouched).
    fn rule64(&self, w: Op64, a: &[Value]) -> Option<Rewrite> {
        let f = &*self.func;
        let inner = |v: Value| -> Option<(Op64, Vec<Value>)> {
            match def(f, v)? {
                (Op::W64(iw), ia) => Some((*iw, ia.iter().map(|&x| self.subst.get(x)).collect())),
                _ => None,
            }
        };
        match (w, inner(a[0])) {
            (Op64::Lo, Some((Op64::Pack, ia))) => Some(Rewrite::To(ia[0])),
            (Op64::Hi, Some((Op64::Pack, ia))) => Some(Rewrite::To(ia[1])),
            (Op64::AsF64, Some((Op64::AsI64, ia))) | (Op64::AsI64, Some((Op64::AsF64, ia))) => {
                Some(Rewrite::To(ia[0]))
            }
            (Op64::Pack, Some((Op64::Lo, lo))) => match inner(a[1]) {
                Some((Op64::Hi, hi)) if hi[0] == lo[0] => Some(Rewrite::To(lo[0])),
                _ => None,
            },
            _ => None,
        }
    }

    fn rule(&self, op: &Op, a: &[Value]) -> Option<Rewrite> {
        use Binary as B;
        use Rewrite::{Becomes, K, To};
        use Unary as U;
        let f = &*self.func;
        let k = |v: Value| self.konst(v);
        let canon = |v: Value| is_canonical_float(f, v);
        let one = 1f32.to_bits();
        match op {
            Op::W64(w) => self.rule64(*w, a),
            Op::Binary(b) => {
                let (x, y) = (a[0], a[1]);
                // a + (−b) is a − b and a − (−b) is a + b, bit for bit (IEEE defines subtraction
                // that way; denormals and NaNs come out the same after flushing).
                let neg = |v: Value| match def(f, v) {
                    Some((Op::Unary(U::FNeg), ia)) => Some(self.subst.get(ia[0])),
                    _ => None,
                };
                match (b, neg(x), neg(y)) {
                    (B::FAdd, _, Some(ny)) => {
                        return Some(Becomes(Op::Binary(B::FSub), vec![x, ny]));
                    }
                    (B::FAdd, Some(nx), None) => {
                        return Some(Becomes(Op::Binary(B::FSub), vec![y, nx]));
                    }
                    (B::FSub, _, Some(ny)) => {
                        return Some(Becomes(Op::Binary(B::FAdd), vec![x, ny]));
                    }
                    (B::FMul | B::FDiv, Some(nx), Some(ny)) => {
                        return Some(Becomes(Op::Binary(*b), vec![nx, ny]));
                    }
                    _ => {}
                }
                match b {
                    B::FMul if k(y) == Some(one) && canon(x) => Some(To(x)),
                    B::FMul if k(x) == Some(one) && canon(y) => Some(To(y)),
                    B::FDiv if k(y) == Some(one) && canon(x) => Some(To(x)),
                    B::FAdd if k(y) == Some(0x8000_0000) && canon(x) => Some(To(x)),
                    B::FAdd if k(x) == Some(0x8000_0000) && canon(y) => Some(To(y)),
                    B::FSub if k(y) == Some(0) && canon(x) => Some(To(x)),
                    B::FMin | B::FMax if x == y && canon(x) => Some(To(x)),
                    B::IAdd | B::Or | B::Xor if k(y) == Some(0) => Some(To(x)),
                    B::IAdd | B::Or | B::Xor if k(x) == Some(0) => Some(To(y)),
                    B::ISub if k(y) == Some(0) => Some(To(x)),
                    B::ISub | B::Xor if x == y => Some(K(0)),
                    B::IMul if k(y) == Some(1) => Some(To(x)),
                    B::IMul if k(x) == Some(1) => Some(To(y)),
                    B::IMul | B::And if k(x) == Some(0) || k(y) == Some(0) => Some(K(0)),
                    B::And if k(y) == Some(u32::MAX) => Some(To(x)),
                    B::And if k(x) == Some(u32::MAX) => Some(To(y)),
                    B::Or if k(x) == Some(u32::MAX) || k(y) == Some(u32::MAX) => Some(K(u32::MAX)),
                    B::And | B::Or | B::IMinS | B::IMaxS | B::IMinU | B::IMaxU if x == y => {
                        Some(To(x))
                    }
                    B::Shl | B::ShrS | B::ShrU if k(y).is_some_and(|s| s & 31 == 0) => Some(To(x)),
                    // (b ? ~0 : 0) & x is b ? x : 0 (TGSI's `AND dst, bool, 1.0` idiom).
                    B::And => [(x, y), (y, x)]
                        .into_iter()
                        .find_map(|(m, other)| match def(f, m) {
                            Some((Op::Unary(U::BoolToInt), ia)) => {
                                Some(Rewrite::SelectOrZero(self.subst.get(ia[0]), other))
                            }
                            _ => None,
                        }),
                    B::BAnd if k(y) == Some(1) || x == y => Some(To(x)),
                    B::BAnd if k(x) == Some(1) => Some(To(y)),
                    B::BAnd if k(x) == Some(0) || k(y) == Some(0) => Some(K(0)),
                    B::BOr if k(y) == Some(0) || x == y => Some(To(x)),
                    B::BOr if k(x) == Some(0) => Some(To(y)),
                    B::BOr if k(x) == Some(1) || k(y) == Some(1) => Some(K(1)),
                    _ => None,
                }
            }
            Op::Unary(u) => {
                let x = a[0];
                let (inner, iargs) = def(f, x).map_or((None, &[][..]), |(o, a)| (Some(o), a));
                match (u, inner) {
                    (U::FNeg, Some(Op::Unary(U::FNeg)))
                    | (U::Not, Some(Op::Unary(U::Not)))
                    | (U::INeg, Some(Op::Unary(U::INeg)))
                    | (U::BNot, Some(Op::Unary(U::BNot))) => Some(To(self.subst.get(iargs[0]))),
                    (U::FAbs, Some(Op::Unary(U::FAbs)))
                    | (U::FSat01, Some(Op::Unary(U::FSat01))) => Some(To(x)),
                    (U::FAbs, Some(Op::Unary(U::FNeg))) => {
                        Some(Becomes(Op::Unary(U::FAbs), vec![self.subst.get(iargs[0])]))
                    }
                    (U::BNot, Some(Op::ICmp(c))) => Some(Becomes(
                        Op::ICmp(inverse(*c)),
                        iargs.iter().map(|&v| self.subst.get(v)).collect(),
                    )),
                    (U::BNot, Some(Op::FCmp(c @ (FCmp::Eq | FCmp::Ne)))) => Some(Becomes(
                        Op::FCmp(if *c == FCmp::Eq { FCmp::Ne } else { FCmp::Eq }),
                        iargs.iter().map(|&v| self.subst.get(v)).collect(),
                    )),
                    _ => None,
                }
            }
            Op::ICmp(c) => {
                let (x, y) = (a[0], a[1]);
                if x == y {
                    return Some(K(matches!(c, ICmp::Eq | ICmp::SGe | ICmp::UGe) as u32));
                }
                // (b ? ~0 : 0) compared with 0 is b itself.
                let (v, z) = if k(y) == Some(0) { (x, y) } else { (y, x) };
                if k(z) == Some(0)
                    && matches!(c, ICmp::Eq | ICmp::Ne)
                    && let Some((Op::Unary(U::BoolToInt), ia)) = def(f, v)
                {
                    let b = self.subst.get(ia[0]);
                    return Some(if *c == ICmp::Ne {
                        To(b)
                    } else {
                        Becomes(Op::Unary(U::BNot), vec![b])
                    });
                }
                None
            }
            Op::FCmp(c @ (FCmp::Eq | FCmp::Ne)) => {
                let (x, y) = (a[0], a[1]);
                let (v, z) = if k(y).is_some_and(|b| b & 0x7FFF_FFFF == 0) {
                    (x, y)
                } else {
                    (y, x)
                };
                if k(z).is_none_or(|b| b & 0x7FFF_FFFF != 0) {
                    return None;
                }
                // 1.0/0.0, or ~0 (a NaN) / 0 read as a float, compared with ±0.
                let b = match def(f, v) {
                    Some((Op::Unary(U::BoolToFloat), ia)) => self.subst.get(ia[0]),
                    Some((Op::Unary(U::Bitcast), ia)) => match def(f, self.subst.get(ia[0])) {
                        Some((Op::Unary(U::BoolToInt), ib)) => self.subst.get(ib[0]),
                        _ => return None,
                    },
                    _ => return None,
                };
                Some(if *c == FCmp::Ne {
                    To(b)
                } else {
                    Becomes(Op::Unary(U::BNot), vec![b])
                })
            }
            Op::Select => {
                let (c, x, y) = (a[0], a[1], a[2]);
                if f.ty(x) == Type::Bool && k(x) == Some(1) && k(y) == Some(0) {
                    return Some(To(c));
                }
                if let Some((Op::Unary(U::BNot), ia)) = def(f, c) {
                    return Some(Becomes(Op::Select, vec![self.subst.get(ia[0]), y, x]));
                }
                None
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{Stmt, lift, verify::verify};

    fn lifted(text: &str) -> crate::ir::Function {
        lift::lift(&crate::front::text::parse(text).unwrap()).unwrap()
    }

    #[test]
    fn a_tgsi_boolean_tested_by_if_is_the_comparison_itself() {
        let mut f = lifted(
            "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
             FSLT TEMP[0].x, IN[0].xxxx, IN[0].yyyy\nIF TEMP[0].xxxx\nMOV OUT[0], IN[0]\nENDIF\nEND\n",
        );
        assert!(super::run(&mut f));
        verify(&f).unwrap();
        let cond = f.body.0.iter().find_map(|s| match s {
            Stmt::If(x) => Some(x.cond),
            _ => None,
        });
        let i = f.def_inst(cond.unwrap()).unwrap();
        assert!(matches!(
            f.insts[i].op,
            crate::ir::Op::FCmp(crate::ir::FCmp::Lt)
        ));
    }

    #[test]
    fn x_times_one_stays_unless_x_is_canonical() {
        // IN[0].x may be a denormal (x·1 flushes it): the MUL stays. (IN·2)·1 folds.
        let mut f = lifted(
            "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
             IMM[0] FLT32 {1.0, 2.0, 0.0, 0.0}\nMUL OUT[0].x, IN[0].xxxx, IMM[0].xxxx\n\
             MUL TEMP[0].x, IN[0].xxxx, IMM[0].yyyy\nMUL OUT[0].y, TEMP[0].xxxx, IMM[0].xxxx\nEND\n",
        );
        assert!(super::run(&mut f));
        crate::opt::dce::run(&mut f);
        verify(&f).unwrap();
        let mut muls = 0;
        f.for_each_inst(|i| {
            muls += matches!(
                f.insts[i].op,
                crate::ir::Op::Binary(crate::ir::Binary::FMul)
            ) as u32
        });
        assert_eq!(muls, 2);
    }
}
