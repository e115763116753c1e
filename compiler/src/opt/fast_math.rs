//! Fast math: `EX2`, `LG2`, `SIN`, `COS` and `POW` expanded into IR arithmetic (polynomials,
//! exponent bit manipulation, selects for the special values), so that every engine that runs
//! the IR computes the same approximation, bit for bit. It runs only when fast math is asked
//! for ([`MathMode::Fast`](crate::back::abi::MathMode::Fast)); it does not keep results
//! bit-identical, unlike the passes of [`optimize`](super::optimize).
//!
//! Worst-case errors against the correctly rounded result (f64 reference), measured by the
//! dense sweeps of `back/tests_support.rs` (through the IR evaluator and each JIT back end;
//! `cargo test -p tgsic --release fast_math -- --nocapture` prints them):
//!
//! | function | input range | bound (tested) | measured worst |
//! |---|---|---|---|
//! | EX2 | [−126, 128) | 2 ulp (results below 2⁻¹²⁶ flush to 0, as FTZ) | 1 ulp |
//! | LG2 | positive floats (denormals read as 0) | 2 ulp or 2⁻²² absolute | 4 ulp within 2⁻²² of 0, 3.9·10⁻⁶ absolute near 10³⁰ (< 1 ulp) |
//! | SIN, COS | \|x\| ≤ 8192 | 2⁻²² absolute (beyond, the reduction loses bits) | 8.4·10⁻⁸ |
//! | POW | x ∈ [10⁻³, 10³], y ∈ [−8, 8] | 4 ulp + 2⁻²²·\|y·log2 x\| relative | 0.44 of the bound |
//!
//! Special values follow IEEE: EX2(±inf) = inf/0, LG2(0) = −inf, LG2(x < 0) = NaN,
//! LG2(inf) = inf, SIN/COS(inf) = NaN, POW(x, 0) = 1, POW(1, y) = 1, POW(0, y > 0) = 0,
//! POW(0, y < 0) = inf, POW(x < 0, integer y) = ±POW(|x|, y), POW(x < 0, other y) = NaN.
//!
//! Each expanded instruction becomes the last step of its expansion (a `select` for the
//! special values, or EX2's product with its power of two), so its result value (and every
//! use of it) stays.

use crate::ir::*;

/// Expands every transcendental function of `f`; returns whether there was one. Its
/// polynomials are separate multiplies and adds (fast math's contraction fuses them after).
pub fn run(f: &mut Function) -> bool {
    expand(f, true, false)
}

/// Expands EX2, LG2 and POW of `f` (accurate math computes SIN and COS in the lowering);
/// returns whether there was one. With `fused` (a target with a vector fused multiply-add)
/// their polynomials are evaluated with `fma`, one rounding a step instead of two: half the
/// instructions, and never less accurate (the bounds of the module documentation hold for
/// both forms, each tested).
pub fn run_except_sincos(f: &mut Function, fused: bool) -> bool {
    expand(f, false, fused)
}

fn expand(f: &mut Function, sincos: bool, fused: bool) -> bool {
    super::util::rewrite_insts(f, &mut |f, out, i| {
        let d = &f.insts[i];
        let (op, args, origin) = (d.op.clone(), d.args.clone(), d.origin);
        let mut e = Expand {
            f,
            out,
            origin,
            fused,
        };
        let (op, args) = match op {
            Op::Unary(Unary::FExp2) => e.exp2(args[0]),
            Op::Unary(Unary::FLg2) => select(e.lg2(args[0])),
            Op::Unary(Unary::FSin) if sincos => select(e.sincos(args[0], false)),
            Op::Unary(Unary::FCos) if sincos => select(e.sincos(args[0], true)),
            Op::Binary(Binary::FPow) => select(e.pow(args[0], args[1])),
            _ => return false,
        };
        f.insts[i].op = op;
        f.insts[i].args = args;
        true
    })
}

/// 2^t on [0, 1), lowest degree first: the polynomial of degree 6 through 2^t at the seven
/// Chebyshev nodes of [0, 1], rounded to f32 (1.0 exactly).
const EXP2_POLY: [f32; 7] = [
    1.0,
    0.693_146_94,
    0.240_230_46,
    0.055_480_63,
    0.009_684_186,
    0.001_239_133_2,
    0.000_218_657_85,
];

/// Emits instructions before the one being expanded.
struct Expand<'a> {
    f: &'a mut Function,
    out: &'a mut Vec<Stmt>,
    origin: Option<u32>,
    /// Polynomials with `fma`.
    fused: bool,
}

/// A `select`'s operands.
type Sel = [Value; 3];

/// What LG2 adds to a float's bits so that the carry into the exponent field halves a
/// significand above √2 (`fast_math::lg2`): 2²³ less √2's fraction bits, less one, so that √2
/// itself (f32, `0x3FB5_04F3`) keeps its exponent, as the comparison `m > √2` it replaces did.
const LG2_SPLIT: u32 = 0x0080_0000 - (0x3FB5_04F3 & 0x007F_FFFF) - 1;

/// The expansion's last step, which the expanded instruction becomes: an F32 operation and
/// its arguments.
type Last = (Op, Vec<Value>);

/// A last step that selects.
fn select(s: Sel) -> Last {
    (Op::Select, s.to_vec())
}

impl Expand<'_> {
    fn op(&mut self, op: Op, args: Vec<Value>, ty: Type) -> Value {
        let i = self.f.new_inst(op, args, &[ty], self.origin);
        self.out.push(Stmt::Inst(i));
        self.f.insts[i].results[0]
    }
    fn fc(&mut self, x: f32) -> Value {
        self.op(Op::Const(x.to_bits()), vec![], Type::F32)
    }
    fn ic(&mut self, x: u32) -> Value {
        self.op(Op::Const(x), vec![], Type::I32)
    }
    fn bin(&mut self, op: Binary, a: Value, b: Value) -> Value {
        let ty = match op {
            Binary::FAdd | Binary::FSub | Binary::FMul | Binary::FDiv => Type::F32,
            Binary::BOr => Type::Bool,
            _ => Type::I32,
        };
        self.op(Op::Binary(op), vec![a, b], ty)
    }
    fn un(&mut self, op: Unary, a: Value, ty: Type) -> Value {
        self.op(Op::Unary(op), vec![a], ty)
    }
    fn fcmp(&mut self, k: FCmp, a: Value, b: Value) -> Value {
        self.op(Op::FCmp(k), vec![a, b], Type::Bool)
    }
    fn select(&mut self, [c, x, y]: Sel) -> Value {
        let ty = self.f.ty(x);
        self.op(Op::Select, vec![c, x, y], ty)
    }
    /// `a · b + c`, one rounding.
    fn fma(&mut self, a: Value, b: Value, c: Value) -> Value {
        self.op(Op::Nary(Nary::Fma), vec![a, b, c], Type::F32)
    }

    /// Whether `v` is an `fabs` result (never below 0, NaN included).
    fn is_abs(&self, v: Value) -> bool {
        matches!(self.f.values[v].def, Def::Inst(i, _) if self.f.insts[i].op == Op::Unary(Unary::FAbs))
    }

    /// The value of an expansion's last step (an F32 operation).
    fn last(&mut self, (op, args): Last) -> Value {
        self.op(op, args, Type::F32)
    }

    /// Horner evaluation of `c[0] + c[1]·t + …`, each step one `fma` when fused.
    fn poly(&mut self, t: Value, c: &[f32]) -> Value {
        let mut acc = self.fc(c[c.len() - 1]);
        for &ci in c[..c.len() - 1].iter().rev() {
            let k = self.fc(ci);
            acc = if self.fused {
                self.fma(acc, t, k)
            } else {
                let m = self.bin(Binary::FMul, acc, t);
                self.bin(Binary::FAdd, m, k)
            };
        }
        acc
    }

    /// 2^x.
    fn exp2(&mut self, x: Value) -> Last {
        let (lo, hi) = (self.fc(-127.0), self.fc(128.0));
        // Clamp, a NaN passing through (both comparisons are false for it); n = ⌊x⌋, t in
        // [0, 1).
        let c = self.fcmp(FCmp::Lt, x, lo);
        let xc = self.select([c, lo, x]);
        let c = self.fcmp(FCmp::Gt, xc, hi);
        let xc = self.select([c, hi, xc]);
        let n = self.un(Unary::FFloor, xc, Type::F32);
        let t = self.bin(Binary::FSub, xc, n);
        // 2^t on [0, 1): the degree-6 polynomial interpolating it at the Chebyshev nodes,
        // 1 at t = 0 exactly (so an integer x gives its power of two exactly), within 1.3 ulp
        // with each f32 rounding.
        let p = if self.fused {
            self.exp2_poly_paired(t)
        } else {
            self.poly(t, &EXP2_POLY)
        };
        // 2^n as a float's exponent field: for n = −127 (x below −126) its bits are 0, the
        // result 0 as FTZ makes it; for n = 128 (x ≥ 128, so t = 0 and p = 1) inf. Otherwise
        // a normal power of two, so the product is exact: p · 2^n ≥ 2⁻¹²⁶. n is an integer
        // in [−127, 128], so F2I converts it exactly; for a NaN x it gives i32::MIN, whose
        // field is 1.0's, and the product is NaN.
        let ni = self.un(Unary::F2I, n, Type::I32);
        let bias = self.ic(127);
        let e = self.bin(Binary::IAdd, ni, bias);
        let s23 = self.ic(23);
        let e = self.bin(Binary::Shl, e, s23);
        let scale = self.un(Unary::Bitcast, e, Type::F32);
        (Op::Binary(Binary::FMul), vec![p, scale])
    }

    /// [`EXP2_POLY`] at `t` with `fma`, as `1 + t·q(t)`: `q`'s terms in pairs (`c1 + c2·t`,
    /// `c3 + c4·t`, `c5 + c6·t`) by Horner's scheme in `t²`, a dependency chain of 4 steps
    /// instead of Horner's 6 (EX2 is latency-bound where a shader computes several), and the
    /// leading 1 added by the last step, one rounding, so that `q`'s rounding errors count
    /// only scaled by `t`. Every step's operands are non-negative for `t` in [0, 1), and
    /// `t = 0` gives 1 exactly.
    fn exp2_poly_paired(&mut self, t: Value) -> Value {
        let c = EXP2_POLY.map(|k| self.fc(k));
        let t2 = self.bin(Binary::FMul, t, t);
        let a = self.fma(c[2], t, c[1]);
        let b = self.fma(c[4], t, c[3]);
        let d = self.fma(c[6], t, c[5]);
        let q = self.fma(d, t2, b);
        let q = self.fma(q, t2, a);
        self.fma(q, t, c[0])
    }

    /// log2(x).
    fn lg2(&mut self, x: Value) -> Sel {
        // x = 2^e · m with m in [√2/2, √2): the significand m0 in [1, 2), halved (and e one
        // more) above √2, by integer arithmetic on the bits alone: adding `LG2_SPLIT` carries
        // into the exponent field exactly when m0's fraction is above √2's (f32) fraction, and
        // the fraction left plus √2/2's bits (one more ulp) is m0 or m0/2. No comparison and
        // no select: a select is a blend, two or three micro-ops on Intel's cores with AVX2.
        // (Lanes of x < 0, 0, inf and NaN get garbage here and their special values below.)
        let bits = self.un(Unary::Bitcast, x, Type::I32);
        let split = self.ic(LG2_SPLIT);
        let ix = self.bin(Binary::IAdd, bits, split);
        let s23 = self.ic(23);
        let e = self.bin(Binary::ShrU, ix, s23);
        let bias = self.ic(127);
        let e = self.bin(Binary::ISub, e, bias);
        let mant = self.ic(0x007F_FFFF);
        let m = self.bin(Binary::And, ix, mant);
        let base = self.ic(0x3F80_0000 - LG2_SPLIT);
        let m = self.bin(Binary::IAdd, m, base);
        let m = self.un(Unary::Bitcast, m, Type::F32);
        let ef = self.un(Unary::I2F, e, Type::F32);
        // log2(m) = 2/ln2 · atanh(t), t = (m − 1)/(m + 1), |t| ≤ 0.1716.
        let one = self.fc(1.0);
        let num = self.bin(Binary::FSub, m, one);
        let den = self.bin(Binary::FAdd, m, one);
        let t = self.bin(Binary::FDiv, num, den);
        let t2 = self.bin(Binary::FMul, t, t);
        let r = if self.fused {
            self.lg2_tail_fused(t, t2, ef)
        } else {
            let s = self.poly(t2, &[1.0, 1.0 / 3.0, 1.0 / 5.0, 1.0 / 7.0, 1.0 / 9.0]);
            let ts = self.bin(Binary::FMul, t, s);
            let c = self.fc((2.0 / std::f64::consts::LN_2) as f32);
            let lm = self.bin(Binary::FMul, ts, c);
            self.bin(Binary::FAdd, ef, lm)
        };
        // Special values: 0 (and denormals, under DAZ) → −inf, x < 0 → NaN, inf → inf, NaN.
        let z = self.fc(0.0);
        let is0 = self.fcmp(FCmp::Eq, x, z);
        let ninf = self.fc(f32::NEG_INFINITY);
        let r = self.select([is0, ninf, r]);
        // x < 0 gives NaN; an absolute value (POW's) never is below 0.
        let r = if self.is_abs(x) {
            r
        } else {
            let neg = self.fcmp(FCmp::Lt, x, z);
            let nan = self.fc(f32::NAN);
            self.select([neg, nan, r])
        };
        // inf and NaN are their own logarithms: one comparison (false for both) picks x.
        let inf = self.fc(f32::INFINITY);
        let finite = self.fcmp(FCmp::Lt, x, inf);
        [finite, r, x]
    }

    /// LG2's `e + 2/ln2 · t·(1 + t²/3 + t⁴/5 + t⁶/7 + t⁸/9)` with `fma`: the factor 2/ln2
    /// folded into the coefficients (rounded from f64), the series' terms in pairs by Horner's
    /// scheme in `t⁴`, and `e` added by the product's own `fma`: a dependency chain of 4
    /// steps after `t²` instead of 7, LG2 being latency-bound inside POW like EX2.
    fn lg2_tail_fused(&mut self, t: Value, t2: Value, e: Value) -> Value {
        let k = 2.0 / std::f64::consts::LN_2;
        let c = [1.0, 3.0, 5.0, 7.0, 9.0].map(|d: f64| self.fc((k / d) as f32));
        let t4 = self.bin(Binary::FMul, t2, t2);
        let a = self.fma(c[1], t2, c[0]);
        let b = self.fma(c[3], t2, c[2]);
        let q = self.fma(c[4], t4, b);
        let s = self.fma(q, t4, a);
        self.fma(t, s, e)
    }

    /// sin x (cos x when `cos`) by quadrant reduction and polynomials on [−π/4, π/4].
    fn sincos(&mut self, x: Value, cos: bool) -> Sel {
        let two_over_pi = self.fc(std::f32::consts::FRAC_2_PI);
        let q = self.bin(Binary::FMul, x, two_over_pi);
        let q = self.un(Unary::FRound, q, Type::F32);
        // r = x − q·π/2 in three parts (Cody–Waite).
        let mut r = x;
        for c in [1.570_312_5f32, 4.837_513e-4, 7.549_79e-8] {
            let cv = self.fc(c);
            let m = self.bin(Binary::FMul, q, cv);
            r = self.bin(Binary::FSub, r, m);
        }
        let r2 = self.bin(Binary::FMul, r, r);
        let sp = self.poly(
            r2,
            &[1.0, -1.0 / 6.0, 1.0 / 120.0, -1.0 / 5040.0, 1.0 / 362_880.0],
        );
        let s = self.bin(Binary::FMul, r, sp);
        let c = self.poly(
            r2,
            &[
                1.0,
                -0.5,
                1.0 / 24.0,
                -1.0 / 720.0,
                1.0 / 40_320.0,
                -1.0 / 3_628_800.0,
            ],
        );
        // Quadrant n = q mod 4: sin = (s, c, −s, −c)[n]; cos = (c, −s, −c, s)[n] = sin at n + 1.
        let mut n = self.un(Unary::FloorToInt, q, Type::I32);
        let one = self.ic(1);
        if cos {
            n = self.bin(Binary::IAdd, n, one);
        }
        let odd = self.bin(Binary::And, n, one);
        let zero = self.ic(0);
        let odd = self.op(Op::ICmp(ICmp::Ne), vec![odd, zero], Type::Bool);
        let v = self.select([odd, c, s]);
        let two = self.ic(2);
        let neg = self.bin(Binary::And, n, two);
        let s30 = self.ic(30);
        let neg = self.bin(Binary::Shl, neg, s30); // bit 1 → the sign bit
        let vi = self.un(Unary::Bitcast, v, Type::I32);
        let vi = self.bin(Binary::Xor, vi, neg);
        let r = self.un(Unary::Bitcast, vi, Type::F32);
        // inf and NaN give NaN.
        let ax = self.un(Unary::FAbs, x, Type::F32);
        let inf = self.fc(f32::INFINITY);
        let finite = self.fcmp(FCmp::Lt, ax, inf);
        let nan = self.fc(f32::NAN);
        [finite, r, nan]
    }

    /// x^y = 2^(y·log2|x|) with IEEE's special cases (see the module documentation).
    fn pow(&mut self, x: Value, y: Value) -> Sel {
        let ax = self.un(Unary::FAbs, x, Type::F32);
        let l = self.lg2(ax);
        let l = self.select(l);
        let p = self.bin(Binary::FMul, y, l);
        let r = self.exp2(p);
        let r = self.last(r);
        // x < 0: an odd integer y negates, a non-integer y gives NaN.
        let z = self.fc(0.0);
        let neg = self.fcmp(FCmp::Lt, x, z);
        let fy = self.un(Unary::FFloor, y, Type::F32);
        let int = self.fcmp(FCmp::Eq, fy, y);
        let yi = self.un(Unary::FloorToInt, fy, Type::I32);
        let one_i = self.ic(1);
        let odd = self.bin(Binary::And, yi, one_i);
        let s31 = self.ic(31);
        let odd = self.bin(Binary::Shl, odd, s31);
        let ri = self.un(Unary::Bitcast, r, Type::I32);
        let signed = self.bin(Binary::Xor, ri, odd);
        let signed = self.un(Unary::Bitcast, signed, Type::F32);
        let nan = self.fc(f32::NAN);
        let negres = self.select([int, signed, nan]);
        let r = self.select([neg, negres, r]);
        // y = 0 or x = 1: exactly 1, even for NaN operands.
        let one = self.fc(1.0);
        let y0 = self.fcmp(FCmp::Eq, y, z);
        let x1 = self.fcmp(FCmp::Eq, x, one);
        let unit = self.bin(Binary::BOr, y0, x1);
        [unit, one, r]
    }
}

#[cfg(test)]
mod tests {
    /// LG2's split of x into 2^e · m by the carry of [`super::LG2_SPLIT`] gives the m and e
    /// of the comparison with √2 and the select it replaced, bit for bit: every fraction near
    /// √2's, a stride through the others, at the lowest, middle and highest exponents.
    #[test]
    fn lg2_splits_significands_as_the_comparison_with_sqrt2_did() {
        let compared = |bits: u32| {
            let e = ((bits >> 23) & 0xFF) as i32 - 127;
            let m = f32::from_bits((bits & 0x007F_FFFF) | 0x3F80_0000);
            if m > std::f32::consts::SQRT_2 {
                (m * 0.5, e + 1)
            } else {
                (m, e)
            }
        };
        let carried = |bits: u32| {
            let ix = bits.wrapping_add(super::LG2_SPLIT);
            let e = (ix >> 23) as i32 - 127;
            let m = f32::from_bits((ix & 0x007F_FFFF).wrapping_add(0x3F80_0000 - super::LG2_SPLIT));
            (m, e)
        };
        let near = 0x0035_04F3u32;
        let fractions = (near - 4096..near + 4096).chain((0..0x0080_0000).step_by(97));
        let fractions: Vec<u32> = fractions.chain([0, 0x007F_FFFF]).collect();
        for exp in [1u32, 2, 63, 126, 127, 128, 200, 253, 254] {
            for &f in &fractions {
                let bits = (exp << 23) | f;
                let (a, b) = (compared(bits), carried(bits));
                assert_eq!(
                    (a.0.to_bits(), a.1),
                    (b.0.to_bits(), b.1),
                    "{:e}",
                    f32::from_bits(bits)
                );
            }
        }
    }
}
