//! Accurate math's SIN and COS in vector code, operation for operation as
//! [`crate::numerics::accurate`] states them: a reduction in f32 for moderate arguments or in
//! double precision, one evaluation of the f32 polynomials, and the exact functions
//! ([`super::libm::exact_rarely`]) for the rare lanes past the reductions' range.

use super::builder::{ExactFn, FBin, IBin, Kind, R, Shift, SimdBuilder};
use super::libm::{exact_rarely, fc, ic, where_any};
use crate::ir::FCmp;

/// SIN and COS of `x` (f32 lanes) as accurate math computes them
/// ([`crate::numerics::accurate`], operation for operation): on a host with fused
/// multiply-add, the quadrant and the reduced argument from a reduction in f32 for
/// |x| < 2¹⁹ and in double precision beyond (each only in the steps with a lane for it), and
/// one evaluation of the fused polynomials; without, the double-precision path everywhere
/// with the polynomials unfused. In the steps with a lane of |x| ≥ 2³⁰, inf or NaN, the exact
/// functions ([`exact_rarely`]) in those lanes.
pub fn sincos_accurate<B: SimdBuilder + ?Sized>(b: &mut B, x: B::V) -> R<[B::V; 2]> {
    use super::builder::FUn;
    use crate::numerics::accurate::LIMIT;
    let x = b.flush(x)?;
    let ax = b.fun(FUn::Abs, x)?;
    // NaN compares false: it is not within.
    let limit = fc(b, LIMIT)?;
    let within = b.fcmp(FCmp::Lt, ax, limit)?;
    let out = if crate::numerics::host_fma() {
        let (n, r) = reduce_either(b, x, ax, within)?;
        polynomials_fused(b, n, r)?
    } else {
        let (n, r) = reduce_double(b, x, within, false)?;
        polynomials_unfused(b, n, r)?
    };
    // The exact functions where the reduction does not reach, only in steps that need them.
    let beyond = b.not(within)?;
    where_any(b, beyond, Kind::F32, out, |b| {
        let exact = exact_rarely(b, ExactFn::SinCos, &[x])?;
        Ok([
            b.select(within, out[0], exact[0])?,
            b.select(within, out[1], exact[1])?,
        ])
    })
}

/// The quadrant (i32 lanes) and r on a host with fused multiply-add: reduced in f32 where
/// |x| = `ax` < 2¹⁹, in double precision elsewhere (`within`: |x| < 2³⁰), each reduction only
/// in the steps with a lane for it and the lanes of mixed steps picked per lane.
fn reduce_either<B: SimdBuilder + ?Sized>(
    b: &mut B,
    x: B::V,
    ax: B::V,
    within: B::V,
) -> R<(B::V, B::V)> {
    use crate::numerics::accurate::NEAR_F32;
    let limit = fc(b, NEAR_F32)?;
    let near = b.fcmp(FCmp::Lt, ax, limit)?;
    // The quadrant travels as f32 lanes of its bits.
    let zero = fc(b, 0.0)?;
    let nr = where_any(b, near, Kind::F32, [zero; 2], |b| {
        let (n, r) = reduce_f32(b, x)?;
        Ok([b.cast(n, Kind::F32)?, r])
    })?;
    let far = b.not(near)?;
    let [n, r] = where_any(b, far, Kind::F32, nr, |b| {
        let (n, r) = reduce_double(b, x, within, true)?;
        let n = b.cast(n, Kind::F32)?;
        Ok([b.select(near, nr[0], n)?, b.select(near, nr[1], r)?])
    })?;
    Ok((b.cast(n, Kind::I32)?, r))
}

/// The quadrant (i32 lanes) and r = x − q·π/2 in f32 for flushed `x`, |x| < 2¹⁹ (other lanes
/// get unspecified values), with fused multiply-adds.
fn reduce_f32<B: SimdBuilder + ?Sized>(b: &mut B, x: B::V) -> R<(B::V, B::V)> {
    use super::builder::Optional;
    use crate::numerics::accurate::{PIO2_F32, ROUNDER_F32, TWO_OVER_PI_F32};
    // q by a sum and a difference with 1.5·2²³: +0 for either zero, so that q·(−π/2) is −0
    // and x = ±0 keeps its sign through the sums.
    let k = fc(b, TWO_OVER_PI_F32)?;
    let q = b.fbin(FBin::Mul, x, k)?;
    let rounder = fc(b, ROUNDER_F32)?;
    let q = b.fbin(FBin::Add, q, rounder)?;
    let q = b.fbin(FBin::Sub, q, rounder)?;
    let mut r = x;
    for part in PIO2_F32 {
        let p = fc(b, -part)?;
        r = b.optional(Optional::Fma, &[q, p, r])?;
    }
    Ok((b.float_to_int(q)?, r))
}

/// SIN and COS from the quadrant `n` (i32 lanes) and the reduced argument `r`, the
/// polynomials with fused multiply-adds.
fn polynomials_fused<B: SimdBuilder + ?Sized>(b: &mut B, n: B::V, r: B::V) -> R<[B::V; 2]> {
    use super::builder::{FUn, Optional};
    use crate::numerics::accurate::{COS, SIN, TINY};
    let fma = |b: &mut B, a: B::V, m: B::V, c: B::V| b.optional(Optional::Fma, &[a, m, c]);
    let z = b.fbin(FBin::Mul, r, r)?;
    let poly = |b: &mut B, c: [f32; 3]| -> R<B::V> {
        let (c2, c1, c0) = (fc(b, c[2])?, fc(b, c[1])?, fc(b, c[0])?);
        let p = fma(b, c2, z, c1)?;
        let p = fma(b, p, z, c0)?;
        b.fbin(FBin::Mul, p, z)
    };
    let p = poly(b, SIN)?;
    let s = fma(b, p, r, r)?;
    let ar = b.fun(FUn::Abs, r)?;
    let tiny = fc(b, TINY)?;
    let is_tiny = b.fcmp(FCmp::Lt, ar, tiny)?;
    let s = b.select(is_tiny, r, s)?;
    let p = poly(b, COS)?;
    let mhalf = fc(b, -0.5)?;
    let hz = b.fbin(FBin::Mul, z, mhalf)?;
    let c = fma(b, p, z, hz)?;
    let one = fc(b, 1.0)?;
    let c = b.fbin(FBin::Add, c, one)?;
    quadrants(b, n, s, c)
}

/// The quadrant (i32 lanes) and r = x − q·π/2 rounded to f32, reduced in double precision,
/// for flushed `x`; lanes not `within` (|x| ≥ 2³⁰, inf or NaN) reduce 0 instead. The
/// first two products are exact, so a step's fused form rounds the same sum once as the
/// product and difference; the third is fused only with `fused` (a host with fused
/// multiply-add).
fn reduce_double<B: SimdBuilder + ?Sized>(
    b: &mut B,
    x: B::V,
    within: B::V,
    fused: bool,
) -> R<(B::V, B::V)> {
    use crate::numerics::accurate::{PIO2, ROUNDER, TWO_OVER_PI};
    let zero = fc(b, 0.0)?;
    let xs = b.select(within, x, zero)?;
    let xd = b.d_from_float(xs)?;
    let k = b.d_const(TWO_OVER_PI)?;
    let t = b.d_bin(FBin::Mul, xd, k)?;
    // q: t rounded to an integer, ties to even — one `roundpd` where the host has it (fused
    // hosts do), else a sum and a difference with 1.5·2⁵² (|t| < 2⁵¹): the same integer.
    let q = if fused {
        b.d_round_even(t)?
    } else {
        let rounder = b.d_const(ROUNDER)?;
        let t = b.d_bin(FBin::Add, t, rounder)?;
        b.d_bin(FBin::Sub, t, rounder)?
    };
    let mut r = xd;
    for part in PIO2 {
        r = if fused {
            // q·(−P) is −0 for q = 0, and x + −0 keeps x's zero (no zero reaches here
            // anyway: fused hosts reduce |x| < 2¹⁹ in f32).
            let p = b.d_const(-part)?;
            b.d_fma(q, p, r)?
        } else {
            let p = b.d_const(part)?;
            let m = b.d_bin(FBin::Mul, q, p)?;
            b.d_bin(FBin::Sub, r, m)?
        };
    }
    Ok((b.d_to_int(q)?, b.d_to_float(r)?))
}

/// SIN and COS from the quadrant `n` (i32 lanes) and the sine `s` and cosine `c` of the
/// reduced argument: sin = (s, c, −s, −c)[n mod 4], cos = sin's at n + 1.
fn quadrants<B: SimdBuilder + ?Sized>(b: &mut B, n: B::V, s: B::V, c: B::V) -> R<[B::V; 2]> {
    let (one_i, zero_i) = (ic(b, 1)?, ic(b, 0)?);
    let mut out = [s; 2];
    for (j, y) in out.iter_mut().enumerate() {
        let m = if j == 0 {
            n
        } else {
            b.ibin(IBin::Add, n, one_i)?
        };
        let bit = b.ibin(IBin::And, m, one_i)?;
        let odd = b.icmp(crate::ir::ICmp::Ne, bit, zero_i)?;
        let v = b.select(odd, c, s)?;
        let sign = b.shift_imm(Shift::ShrU, m, 1)?;
        let sign = b.shift_imm(Shift::Shl, sign, 31)?;
        let v = b.cast(v, Kind::I32)?;
        let v = b.ibin(IBin::Xor, v, sign)?;
        *y = b.cast(v, Kind::F32)?;
    }
    Ok(out)
}

/// SIN and COS from the quadrant `n` (i32 lanes) and the reduced argument `r`, each
/// operation of the polynomials rounded (a host without fused multiply-add).
fn polynomials_unfused<B: SimdBuilder + ?Sized>(b: &mut B, n: B::V, r: B::V) -> R<[B::V; 2]> {
    use crate::numerics::accurate::{COS, SIN, TINY};
    let z = b.fbin(FBin::Mul, r, r)?;
    let poly = |b: &mut B, c: [f32; 3]| -> R<B::V> {
        let c2 = fc(b, c[2])?;
        let p = b.fbin(FBin::Mul, c2, z)?;
        let c1 = fc(b, c[1])?;
        let p = b.fbin(FBin::Add, p, c1)?;
        let p = b.fbin(FBin::Mul, p, z)?;
        let c0 = fc(b, c[0])?;
        let p = b.fbin(FBin::Add, p, c0)?;
        b.fbin(FBin::Mul, p, z)
    };
    let p = poly(b, SIN)?;
    let p = b.fbin(FBin::Mul, p, r)?;
    let s = b.fbin(FBin::Add, p, r)?;
    let ar = b.fun(super::builder::FUn::Abs, r)?;
    let tiny = fc(b, TINY)?;
    let is_tiny = b.fcmp(FCmp::Lt, ar, tiny)?;
    let s = b.select(is_tiny, r, s)?;
    let p = poly(b, COS)?;
    let p = b.fbin(FBin::Mul, p, z)?;
    let half = fc(b, 0.5)?;
    let hz = b.fbin(FBin::Mul, z, half)?;
    let c = b.fbin(FBin::Sub, p, hz)?;
    let one = fc(b, 1.0)?;
    let c = b.fbin(FBin::Add, c, one)?;
    quadrants(b, n, s, c)
}
