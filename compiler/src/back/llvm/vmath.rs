//! Fast-mode vector approximations (`--math fast`) in LLVM IR: the algorithms of the Cranelift
//! back end's [`vmath`](crate::back::cranelift::vmath), operation for operation (no fused
//! multiply-adds, so the same roundings), with the same error bounds, which the sweeps in
//! `tests` check through this back end.
//!
//! Where the Cranelift version relies on a saturating conversion, this one keeps the operand
//! in range first (LLVM's `fptosi` out of range is poison).

use super::emit::{Emit, R, V};
use inkwell::{FloatPredicate as F, IntPredicate as I};

/// Horner evaluation of `c[0] + c[1]·t + …`.
fn poly<'ctx>(e: &Emit<'_, 'ctx>, t: V<'ctx>, c: &[f32]) -> R<V<'ctx>> {
    let mut acc = e.fconst(c[c.len() - 1])?;
    for &ci in c[..c.len() - 1].iter().rev() {
        let m = e.fmul(acc, t)?;
        acc = e.fadd(m, e.fconst(ci)?)?;
    }
    Ok(acc)
}

/// `x` where `|x| < limit`, 0 elsewhere (NaN included): safe to convert to an integer.
fn in_range<'ctx>(e: &Emit<'_, 'ctx>, x: V<'ctx>, limit: f32) -> R<V<'ctx>> {
    let ax = e.call1("llvm.fabs", x)?;
    let ok = e.fcmp(F::OLT, ax, e.fconst(limit)?)?;
    e.select(ok, x, e.fconst(0.0)?)
}

/// 2^x.
pub(super) fn exp2<'ctx>(e: &Emit<'_, 'ctx>, x: V<'ctx>) -> R<V<'ctx>> {
    let lo = e.fconst(-127.0)?;
    let hi = e.fconst(128.0)?;
    // Clamp (NaN is restored at the end); round to the nearest integer n, |t| ≤ 0.5.
    let c = e.fcmp(F::OGT, x, lo)?;
    let xc = e.select(c, x, lo)?;
    let c = e.fcmp(F::OLT, xc, hi)?;
    let xc = e.select(c, xc, hi)?;
    let n = e.call1("llvm.roundeven", xc)?;
    let t = e.fsub(xc, n)?;
    // 2^t = e^(t·ln 2): Taylor to degree 7.
    let ln2 = std::f64::consts::LN_2;
    let coef: Vec<f32> = (0..8)
        .map(|j| (ln2.powi(j) / (1..=j).map(f64::from).product::<f64>()) as f32)
        .collect();
    let p = poly(e, t, &coef)?;
    // 2^n in two exact steps, so only the final product rounds (and flushes or overflows
    // where the true result does).
    let ni = e.fptosi(n, e.t.vi)?;
    let na = e.ashr(ni, e.iconst(1))?;
    let nb = e.sub(ni, na)?;
    let mut r = p;
    for part in [na, nb] {
        let ex = e.shl(e.add(part, e.iconst(127))?, e.iconst(23))?;
        r = e.fmul(r, e.floats(ex)?)?;
    }
    let big = e.fcmp(F::OGE, x, hi)?;
    let r = e.select(big, e.fconst(f32::INFINITY)?, r)?;
    let nan = e.fcmp(F::UNO, x, x)?;
    e.select(nan, x, r)
}

/// log2(x).
pub(super) fn lg2<'ctx>(e: &Emit<'_, 'ctx>, x: V<'ctx>) -> R<V<'ctx>> {
    let bits = e.ints(x)?;
    let ex = e.and(e.lshr(bits, e.iconst(23))?, e.iconst(0xFF))?;
    let ex = e.sub(ex, e.iconst(127))?;
    let m = e.or(e.and(bits, e.iconst(0x007F_FFFF))?, e.iconst(0x3F80_0000))?;
    let m = e.floats(m)?;
    // m in [1, 2): halve above √2, so m in [√2/2, √2).
    let big = e.fcmp(F::OGT, m, e.fconst(std::f32::consts::SQRT_2)?)?;
    let mh = e.fmul(m, e.fconst(0.5)?)?;
    let m = e.select(big, mh, m)?;
    let ex = e.add(ex, e.zext(big, e.t.vi)?)?;
    let ef = e.sitofp(ex)?;
    // log2(m) = 2/ln2 · atanh(t), t = (m − 1)/(m + 1).
    let one = e.fconst(1.0)?;
    let t = e.fdiv(e.fsub(m, one)?, e.fadd(m, one)?)?;
    let t2 = e.fmul(t, t)?;
    let s = poly(e, t2, &[1.0, 1.0 / 3.0, 1.0 / 5.0, 1.0 / 7.0, 1.0 / 9.0])?;
    let ts = e.fmul(t, s)?;
    let lm = e.fmul(ts, e.fconst((2.0 / std::f64::consts::LN_2) as f32)?)?;
    let r = e.fadd(ef, lm)?;
    // Special values: 0 (and denormals, under DAZ) → −inf, x < 0 → NaN, inf → inf, NaN.
    let z = e.fconst(0.0)?;
    let is0 = e.is_zero(x)?;
    let r = e.select(is0, e.fconst(f32::NEG_INFINITY)?, r)?;
    let neg = e.fcmp(F::OLT, x, z)?;
    let r = e.select(neg, e.fconst(f32::NAN)?, r)?;
    let inf = e.fconst(f32::INFINITY)?;
    let isinf = e.fcmp(F::OEQ, x, inf)?;
    let r = e.select(isinf, inf, r)?;
    let un = e.fcmp(F::UNO, x, x)?;
    e.select(un, x, r)
}

/// sin x or cos x by quadrant reduction and polynomials on [−π/4, π/4].
fn sincos<'ctx>(e: &Emit<'_, 'ctx>, x: V<'ctx>, want_cos: bool) -> R<V<'ctx>> {
    let q = e.fmul(x, e.fconst(std::f32::consts::FRAC_2_PI)?)?;
    let q = e.call1("llvm.roundeven", q)?;
    // r = x − q·π/2 in three parts (Cody–Waite).
    let mut r = x;
    for c in [1.570_312_5f32, 4.837_513e-4f32, 7.549_79e-8f32] {
        r = e.fsub(r, e.fmul(q, e.fconst(c)?)?)?;
    }
    let r2 = e.fmul(r, r)?;
    let sp = poly(
        e,
        r2,
        &[1.0, -1.0 / 6.0, 1.0 / 120.0, -1.0 / 5040.0, 1.0 / 362_880.0],
    )?;
    let s = e.fmul(r, sp)?;
    let c = poly(
        e,
        r2,
        &[
            1.0,
            -0.5,
            1.0 / 24.0,
            -1.0 / 720.0,
            1.0 / 40_320.0,
            -1.0 / 3_628_800.0,
        ],
    )?;
    // Quadrant n = q mod 4: sin = (s, c, −s, −c)[n]; cos is sin at n + 1.
    let n = e.fptosi(in_range(e, q, 2_147_483_648.0)?, e.t.vi)?;
    let n = if want_cos { e.add(n, e.iconst(1))? } else { n };
    let odd = e.and(n, e.iconst(1))?;
    let odd = e.icmp(I::NE, odd, e.iconst(0))?;
    let v = e.select(odd, c, s)?;
    let neg = e.shl(e.and(n, e.iconst(2))?, e.iconst(30))?;
    let v = e.floats(e.xor(e.ints(v)?, neg)?)?;
    // inf and NaN give NaN.
    let ax = e.call1("llvm.fabs", x)?;
    let bad = e.fcmp(F::UGE, ax, e.fconst(f32::INFINITY)?)?;
    e.select(bad, e.fconst(f32::NAN)?, v)
}

/// sin x.
pub(super) fn sin<'ctx>(e: &Emit<'_, 'ctx>, x: V<'ctx>) -> R<V<'ctx>> {
    sincos(e, x, false)
}

/// cos x.
pub(super) fn cos<'ctx>(e: &Emit<'_, 'ctx>, x: V<'ctx>) -> R<V<'ctx>> {
    sincos(e, x, true)
}

/// x^y = 2^(y·log2|x|) with IEEE's special cases.
pub(super) fn pow<'ctx>(e: &Emit<'_, 'ctx>, x: V<'ctx>, y: V<'ctx>) -> R<V<'ctx>> {
    let ax = e.call1("llvm.fabs", x)?;
    let l = lg2(e, ax)?;
    let r = exp2(e, e.fmul(y, l)?)?;
    // x < 0: an odd integer y negates, a non-integer y gives NaN.
    let z = e.fconst(0.0)?;
    let neg = e.fcmp(F::OLT, x, z)?;
    let fy = e.call1("llvm.floor", y)?;
    let int = e.fcmp(F::OEQ, fy, y)?;
    // Every float of magnitude 2²⁴ or more is even.
    let yi = e.fptosi(in_range(e, fy, 16_777_216.0)?, e.t.vi)?;
    let odd = e.shl(e.and(yi, e.iconst(1))?, e.iconst(31))?;
    let signed = e.floats(e.xor(e.ints(r)?, odd)?)?;
    let negres = e.select(int, signed, e.fconst(f32::NAN)?)?;
    let r = e.select(neg, negres, r)?;
    // y = 0 or x = 1: exactly 1, even for NaN operands.
    let one = e.fconst(1.0)?;
    let y0 = e.is_zero(y)?;
    let x1 = e.fcmp(F::OEQ, x, one)?;
    let unit = e.or(y0, x1)?;
    e.select(unit, one, r)
}
