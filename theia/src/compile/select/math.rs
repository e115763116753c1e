//! EX2, LG2, POW, SIN and COS as THEIA sequences on one lane: range reduction by the
//! fixed-point instructions (FRAC, MOD, exact powers of two), a polynomial by Horner's rule,
//! and loops of doublings or halvings where the hardware has no shifts.
//!
//! The coefficients are near-minimax fits computed for these exact sequences, with a bias of a
//! unit or two of 2⁻¹⁷ on one coefficient that centres the one-sided truncation of the products.
//! Their errors, measured over the whole input range against the exact functions, are
//! [`super::super::ERROR_BOUNDS`]; `tests/tests/theia_functions.rs` sweeps every function
//! through the simulator and holds each sequence to its bound.
//!
//! Operand order matters: b1.2's multiplier is wrong when |SRC1| > 0x55555555 (≈ 10922.7), so
//! every product puts its small operand (a coefficient or a reduced argument) first.

use super::sel::{J, Reg, Sel, VInst};
use crate::compile::types::TheiaError;
use crate::isa::{ONE, Op as T};
use tgsic::ir::Inst;

/// A lowered transcendental function.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Math {
    Exp2,
    Log2,
    Sin,
    Cos,
    Pow,
}

/// 2^f on [0, 1): c0 + f(c1 + f(c2 + f(c3 + f(c4 + f c5)))), raw Q15.17 words; c3 carries a
/// bias of +2 and c0 is exactly 1.0, so 2^n is exact for whole n.
const EXP2: [u32; 6] = [131_072, 90_853, 31_476, 7_325, 1_172, 249];

/// log2(m) for m in [1/√2, √2) as an odd polynomial in S = 4(m − 1)/(m + 1):
/// S(c1 + S²(c3 + S² c5)); c1 carries a bias of +1.
const LOG2: [u32; 3] = [94_550, 1_969, 77];

/// sin(πu/2) on [0, 1] as u(a1 + u²(a3 + u²(a5 + u² a7))); a1 carries a bias of −1.
const SIN: [i32; 4] = [205_886, -84_658, 10_412, -568];

/// 2/π split for an exact reduction of integers: ⌊2¹⁷·2/π⌋ (raw), the rest of 2¹⁷·2/π
/// in Q15.17, and 2/π rounded (for the fraction).
const TWO_OVER_PI: (u32, u32, u32) = (83_443, 3_513, 83_443);

/// The value in LG2 of x ≤ 0 (−∞ and NaN are not representable): the most negative word but
/// one, ≈ −16384.
pub const LOG2_OF_NONPOSITIVE: u32 = 0x8000_0001;

/// Quarter turns added to the reduced argument: one unit of 2⁻¹⁷ centres the truncation of
/// the reduction's two products.
const TURN_BIAS: u32 = 1;

fn w(x: f64) -> u32 {
    crate::isa::f64_to_fixed(x).expect("constant in range")
}

impl Sel<'_> {
    /// EX2, LG2, POW, SIN or COS of instruction `i`.
    pub(super) fn math(&mut self, i: Inst, m: Math) -> Result<(), TheiaError> {
        let d = &self.f.insts[i];
        let r = d.results[0];
        let args = d.args.clone();
        let pow_exponent = (m == Math::Pow)
            .then(|| self.f.const_value(args[1]))
            .flatten()
            .map(f32::from_bits);
        let (lane, regs) = self.align(&args)?;
        // A value in every lane is read from x: constants then take one lane, not three.
        let l = lane.unwrap_or(0);
        let dst = self.new_v();
        let end = self.label();
        match m {
            Math::Exp2 => self.exp2_seq(regs[0], l, dst),
            Math::Log2 => {
                let nonpositive = self.label();
                self.log2_seq(regs[0], l, dst, nonpositive);
                self.emit(VInst::Jmp(end));
                self.emit(VInst::Label(nonpositive));
                let k = self.k_at(LOG2_OF_NONPOSITIVE, Some(l));
                self.alu(T::Copy, dst, k, Reg::Void);
            }
            Math::Sin | Math::Cos => self.sincos_seq(regs[0], l, dst, m == Math::Cos),
            Math::Pow => {
                let zero = self.label();
                let lg = self.new_v();
                self.log2_seq(regs[0], l, lg, zero);
                let e = self.pow_exponent(lg, regs[1], l, pow_exponent);
                self.exp2_seq(e, l, dst);
                self.emit(VInst::Jmp(end));
                // x ≤ 0 as x = 0: pow(0, y) is +∞ (saturated to the largest word) for y < 0,
                // 1 for y = 0 and 0 for y > 0 (negative x has no real power in general).
                self.emit(VInst::Label(zero));
                let (y, z) = (regs[1], self.k1(0, l));
                let max = self.k1(0x7FFF_FFFF, l);
                self.alu(T::Copy, dst, max, Reg::Void);
                self.jump(J::G, l, end, z, y);
                let one = self.k1(ONE, l);
                self.alu(T::Copy, dst, one, Reg::Void);
                self.jump(J::Eq, l, end, y, z);
                self.alu(T::Zero, dst, Reg::Void, Reg::Void);
            }
        }
        self.emit(VInst::Label(end));
        self.emit(VInst::Keep(regs));
        self.set(r, dst, Some(l));
        Ok(())
    }

    fn k1(&mut self, w: u32, l: u8) -> Reg {
        self.k_at(w, Some(l))
    }

    /// dst.l = 2^x.l. x is clamped to [−18, 14 − 2⁻¹⁷] (2^14 is past Q15.17; below 2^−18 the
    /// result is 0); x = n + f with n = ⌊x⌋, 2^f by the polynomial, then n doublings (exact) or
    /// −n halvings (each truncating, which is the floor of the whole quotient).
    fn exp2_seq(&mut self, x: Reg, l: u8, dst: Reg) {
        let t = self.new_v();
        let n = self.new_v();
        let (lo_ok, hi_ok) = (self.label(), self.label());
        self.alu(T::Copy, t, x, Reg::Void);
        let lo = self.k1(w(-18.0), l);
        self.jump(J::G, l, lo_ok, t, lo);
        self.alu(T::Copy, t, lo, Reg::Void);
        self.emit(VInst::Label(lo_ok));
        let hi = self.k1(w(14.0) - 1, l);
        self.jump(J::L, l, hi_ok, t, hi);
        self.alu(T::Copy, t, hi, Reg::Void);
        self.emit(VInst::Label(hi_ok));
        // f = frac(t), n = ⌊t⌋
        let f = self.new_v();
        self.alu(T::Frac, f, t, Reg::Void);
        self.alu(T::Sub, n, t, f);
        let t = f;
        let c5 = self.k1(EXP2[5], l);
        self.alu(T::Mul, dst, c5, t);
        for k in (0..5).rev() {
            let c = self.k1(EXP2[k], l);
            self.alu(T::Add, dst, dst, c);
            if k > 0 {
                self.alu(T::Mul, dst, dst, t);
            }
        }
        // × 2^n
        let (down, done, up, halve) = (self.label(), self.label(), self.label(), self.label());
        let z = self.k1(0, l);
        let half = self.k1(ONE / 2, l);
        self.jump(J::L, l, down, n, z);
        self.emit(VInst::Label(up));
        self.alu(T::Add, dst, dst, dst);
        self.alu(T::Dec, n, n, Reg::Void);
        self.jump(J::G, l, up, n, z);
        self.emit(VInst::Jmp(done));
        self.emit(VInst::Label(down));
        self.jump(J::Eq, l, done, n, z);
        self.emit(VInst::Label(halve));
        self.alu(T::Mul, dst, half, dst);
        self.alu(T::Inc, n, n, Reg::Void);
        self.jump(J::Ne, l, halve, n, z);
        self.emit(VInst::Label(done));
        self.emit(VInst::Keep(vec![x, t, n]));
    }

    /// dst.l = log2(x.l), or a jump to `nonpositive` when x ≤ 0. x = 2^e · m with
    /// m in [1/√2, √2) (found by doubling or halving a power of two p, comparing with x·√2 and
    /// x/√2, so x itself is never shifted), then S = 4(x − p)/(x + p) and the odd polynomial.
    fn log2_seq(&mut self, x: Reg, l: u8, dst: Reg, nonpositive: u32) {
        let z = self.k1(0, l);
        self.jump(J::L, l, nonpositive, x, z);
        let (xx, e, p, a, b) = (
            self.new_v(),
            self.new_v(),
            self.new_v(),
            self.new_v(),
            self.new_v(),
        );
        // Past 8192, x·√2 would overflow: halve x first (losing 2^-31 of it).
        let small = self.label();
        self.alu(T::Copy, xx, x, Reg::Void);
        self.alu(T::Zero, e, Reg::Void, Reg::Void);
        let big = self.k1(w(8192.0), l);
        self.jump(J::G, l, small, big, xx);
        let half = self.k1(ONE / 2, l);
        self.alu(T::Mul, xx, half, xx);
        self.alu(T::Inc, e, e, Reg::Void);
        self.emit(VInst::Label(small));
        // a = x·√2, b = x/√2: x ≥ p·√2 ⇔ ⌊x/√2⌋ ≥ p and x < p/√2 ⇔ ⌊x·√2⌋ < p (p is a whole
        // number of units), so the bracket is exact up to the constants' rounding.
        let r2 = self.k1(w(std::f64::consts::SQRT_2), l);
        self.alu(T::Mul, a, r2, xx);
        let r12 = self.k1(w(std::f64::consts::FRAC_1_SQRT_2), l);
        self.alu(T::Mul, b, r12, xx);
        let one = self.k1(ONE, l);
        self.alu(T::Copy, p, one, Reg::Void);
        let (up, down, shrink, norm) = (self.label(), self.label(), self.label(), self.label());
        self.emit(VInst::Label(up));
        self.jump(J::G, l, down, p, b);
        self.alu(T::Add, p, p, p);
        self.alu(T::Inc, e, e, Reg::Void);
        self.emit(VInst::Jmp(up));
        self.emit(VInst::Label(down));
        self.emit(VInst::Label(shrink));
        self.jump(J::L, l, norm, p, a);
        let half = self.k1(ONE / 2, l);
        self.alu(T::Mul, p, half, p);
        self.alu(T::Dec, e, e, Reg::Void);
        self.emit(VInst::Jmp(shrink));
        self.emit(VInst::Label(norm));
        // S = 4(x − p)/(x + p), |S| ≤ 0.687: the quotient keeps 19 fractional bits of s.
        self.alu(T::Sub, a, xx, p);
        self.alu(T::Add, b, xx, p);
        self.alu(T::Add, a, a, a);
        self.alu(T::Add, a, a, a);
        self.alu(T::Div, a, a, b);
        self.alu(T::Mul, b, a, a);
        let c5 = self.k1(LOG2[2], l);
        self.alu(T::Mul, p, c5, b);
        let c3 = self.k1(LOG2[1], l);
        self.alu(T::Add, p, p, c3);
        self.alu(T::Mul, p, p, b);
        let c1 = self.k1(LOG2[0], l);
        self.alu(T::Add, p, p, c1);
        self.alu(T::Mul, p, p, a);
        self.alu(T::Add, dst, p, e);
        self.emit(VInst::Keep(vec![x, xx, e, p, a, b]));
    }

    /// The exponent of POW, y·log2(x), without overflow: with a constant |y| < 963 the product
    /// fits (|log2 x| ≤ 17); otherwise ⌊y/32⌋·lg decides whether |y·lg| ≥ 32, where 2^(y·lg)
    /// is 0 or past Q15.17 anyway, and the exponent saturates to ±20 (which EX2 clamps).
    fn pow_exponent(&mut self, lg: Reg, y: Reg, l: u8, constant: Option<f32>) -> Reg {
        let e = self.new_v();
        if constant.is_some_and(|c| c.abs() < 963.0) {
            self.alu(T::Mul, e, lg, y);
            return e;
        }
        let g = self.new_v();
        let k32 = self.k1(w(1.0 / 32.0), l);
        self.alu(T::Mul, g, k32, y);
        self.alu(T::Mul, g, g, lg);
        let sat = self.label();
        let p16 = self.k1(w(20.0), l);
        self.alu(T::Copy, e, p16, Reg::Void);
        let h = self.k1(ONE, l);
        self.jump(J::L, l, sat, h, g);
        let m16 = self.k1(w(-20.0), l);
        self.alu(T::Copy, e, m16, Reg::Void);
        let mh = self.k1(ONE.wrapping_neg(), l);
        self.jump(J::L, l, sat, g, mh);
        self.alu(T::Mul, e, lg, y);
        self.emit(VInst::Label(sat));
        self.emit(VInst::Keep(vec![lg, y, g]));
        e
    }

    /// dst.l = sin(x.l) or cos(x.l). |x| = i + f; t = |x|·2/π in quarter turns, with i·2/π
    /// exact (2/π split in two words, the integer part scaled by each) and f·2/π truncated;
    /// sin(−x) adds two quarter turns, cos adds one. The quadrant picks u or 1 − u and the
    /// sign; sin(πu/2) is the polynomial.
    fn sincos_seq(&mut self, x: Reg, l: u8, dst: Reg, cos: bool) {
        let (ax, off, t, v) = (self.new_v(), self.new_v(), self.new_v(), self.new_v());
        let turns = |q: u32| q * ONE + TURN_BIAS;
        let pos = self.label();
        let k_off = self.k1(turns(cos as u32), l);
        self.alu(T::Copy, off, k_off, Reg::Void);
        self.alu(T::Copy, ax, x, Reg::Void);
        let z = self.k1(0, l);
        self.jump(J::G, l, pos, x, z);
        self.alu(T::Neg, ax, x, Reg::Void);
        if !cos {
            let k2 = self.k1(turns(2), l);
            self.alu(T::Copy, off, k2, Reg::Void);
        }
        self.emit(VInst::Label(pos));
        // t = i·c1 + ⌊i·c2⌋·2⁻¹⁷ + f·(2/π) + off
        let (c1, c2, c) = TWO_OVER_PI;
        self.alu(T::Frac, v, ax, Reg::Void);
        self.alu(T::Sub, ax, ax, v);
        let kc = self.k1(c, l);
        self.alu(T::Mul, v, kc, v);
        self.alu(T::Add, off, off, v);
        let kc1 = self.k1(c1, l);
        self.alu(T::Mul, t, kc1, ax);
        self.alu(T::Add, t, t, off);
        let kc2 = self.k1(c2, l);
        self.alu(T::Mul, v, kc2, ax);
        self.alu(T::Unscale, v, v, Reg::Void);
        self.alu(T::Add, t, t, v);
        // u = frac(t); an odd quadrant mirrors it.
        // The quadrant's bits 17 and 18 of t ≥ 0 are tested as frac(t/2) ≥ 1/2 and
        // frac(t/4) ≥ 1/2 (t/2ᵏ by a truncating MUL is t >> k exactly), not by MOD: one of the
        // RTL's event orders samples MOD's adder a cycle late (docs/theia.md).
        let even = self.label();
        self.alu(T::Frac, ax, t, Reg::Void);
        let half = self.k1(ONE / 2, l);
        self.alu(T::Mul, v, half, t);
        self.alu(T::Frac, v, v, Reg::Void);
        self.jump(J::G, l, even, half, v);
        let one = self.k1(ONE, l);
        self.alu(T::Sub, ax, one, ax);
        self.emit(VInst::Label(even));
        // sin(πu/2)
        self.alu(T::Mul, v, ax, ax);
        let a7 = self.k1(SIN[3] as u32, l);
        self.alu(T::Mul, off, a7, v);
        for k in (0..3).rev() {
            let c = self.k1(SIN[k] as u32, l);
            self.alu(T::Add, off, off, c);
            self.alu(T::Mul, off, off, if k > 0 { v } else { ax });
        }
        self.alu(T::Copy, dst, off, Reg::Void);
        // Quadrants 2 and 3 (bit 18) negate.
        let done = self.label();
        let quarter = self.k1(ONE / 4, l);
        self.alu(T::Mul, v, quarter, t);
        self.alu(T::Frac, v, v, Reg::Void);
        let half = self.k1(ONE / 2, l);
        self.jump(J::G, l, done, half, v);
        self.alu(T::Neg, dst, dst, Reg::Void);
        self.emit(VInst::Label(done));
        self.emit(VInst::Keep(vec![x, ax, off, t, v]));
    }
}
