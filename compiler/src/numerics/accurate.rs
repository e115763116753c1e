//! SIN and COS of accurate math ([`MathMode::Accurate`](crate::back::abi::MathMode)), the
//! scalar statement of what the generated code computes for a whole step of lanes
//! (`back/simd/accurate.rs`, `sincos_accurate`), operation for operation, so that tests can
//! compare the two bit for bit and measure the error of either against the true sine.
//!
//! - **Reduction in double precision.** r = x − q·π/2 with q the integer nearest x·2/π, π/2 in
//!   three parts: the first two of 23 significant bits, so that q·part is exact for every
//!   |q| < 2³⁰, the third the rest rounded to a double. x − q·P1 is exact (the two are within a
//!   factor of 2), so r is within a few units of 2⁻⁵³·|r| plus 2⁻⁷⁰ of the true x − q·π/2, for
//!   every |x| < 2³⁰ — hash functions such as `fract(sin(x) · 43758.5)` keep their bits up to
//!   there, where an f32 reduction loses them from a few thousand on.
//! - **Polynomials in f32** on r rounded to f32 (|r| ≤ π/4 and a little), Cephes's `sinf` and
//!   `cosf` minimax coefficients; on a host without a vector fused multiply-add each operation
//!   rounded, so that every such host and back end computes the same bits.
//! - **|x| ≥ 2³⁰, inf, NaN**: the exact functions (glibc's `sinf`/`cosf`, as the interpreter).
//! - **On a host with fused multiply-add** ([`sincos_with`]'s `fused`): |x| < 2¹⁹ reduces in
//!   f32 instead, three fused steps with π/2 in three f32 parts (the first exact), a third of
//!   the instructions of the double-precision lanes, within the 2-ulp bound (its error grows
//!   with q: 1.57 ulp below 2¹⁸, 1.88 below 2¹⁹, 2.29 below 2²⁰); the double-precision
//!   reduction's third step is fused; and one evaluation of the polynomials, fused, follows
//!   either reduction.
//!
//! Error against the correctly rounded sine and cosine, every f32 below 2³⁰ (measured by
//! `accurate_sincos_error_over_every_float`, with and without fused multiply-add): at most 2
//! units in the last place, or 2⁻²⁸ absolute where the result is below 2⁻⁴ (the cosine's
//! `1 − z/2` near π/4 and the quadrant swap round there). Measured: 1.56 ulp (sine) and 1.57
//! (cosine) without fused multiply-add; 1.80 and 1.88 with it (both in [2¹⁸, 2¹⁹)).

use super::{add, ftz, mul, round_ftz, sub};

/// Arguments at least this large (and inf, NaN) take the exact functions.
pub const LIMIT: f32 = 1_073_741_824.0;
/// 2/π, rounded to a double.
pub const TWO_OVER_PI: f64 = f64::from_bits(0x3fe4_5f30_6dc9_c883);
/// Rounds a double below 2⁵¹ in magnitude to the nearest integer by an addition and a
/// subtraction.
pub const ROUNDER: f64 = 6_755_399_441_055_744.0;
/// π/2 in three parts: `P1 + P2` 46 bits of it, each 23 bits, so that `q · P1` and `q · P2`
/// are exact for |q| < 2³⁰; `P3` the rest.
pub const PIO2: [f64; 3] = [
    f64::from_bits(0x3ff9_21fb_4000_0000),
    f64::from_bits(0x3e74_442d_0000_0000),
    f64::from_bits(0x3cf8_4698_98cc_5170),
];
/// |r| below this: sin r is r.
pub const TINY: f32 = 1.0 / 4096.0;
/// sin r ≈ r + r·z·(S1 + z·(S2 + z·S3)), z = r² (Cephes's `sinf`).
pub const SIN: [f32; 3] = [-1.666_665_5e-1, 8.332_161e-3, -1.951_529_6e-4];
/// cos r ≈ 1 − z/2 + z²·(C1 + z·(C2 + z·C3)) (Cephes's `cosf`).
pub const COS: [f32; 3] = [4.166_664_6e-2, -1.388_731_6e-3, 2.443_315_7e-5];

/// Below this, on a host with fused multiply-add, the reduction is in f32.
pub const NEAR_F32: f32 = 524_288.0;
/// Rounds an f32 below 2²² in magnitude to the nearest integer by an addition and a
/// subtraction.
pub const ROUNDER_F32: f32 = 12_582_912.0;
/// 2/π rounded to f32.
pub const TWO_OVER_PI_F32: f32 = std::f32::consts::FRAC_2_PI;
/// π/2 in three positive f32 parts: the first two rounded down (each the rest of π/2 after
/// the ones before), the third rounded to nearest. Positive parts keep a zero's sign: with
/// q = +0 every product q·(−part) is −0.
pub const PIO2_F32: [f32; 3] = [
    f32::from_bits(0x3fc9_0fda),
    f32::from_bits(0x33a2_2168),
    f32::from_bits(0x27c2_34c5),
];

/// SIN and COS of `x` (register bits read as the CPU reads them: a denormal is a zero of its
/// sign), as accurate math computes them on this host.
pub fn sincos(x: f32) -> (f32, f32) {
    sincos_with(x, crate::numerics::host_fma())
}

/// SIN and COS of `x` as accurate math computes them on a host with (`fused`) or without a
/// vector fused multiply-add.
pub fn sincos_with(x: f32, fused: bool) -> (f32, f32) {
    let x = ftz(x);
    // NaN compares false: it is not near.
    let near = x.abs() < LIMIT;
    if !near {
        // As the interpreter reads them: a NaN result is the canonical NaN.
        let canon = |y: f32| {
            if y.is_nan() {
                f32::from_bits(super::CANONICAL_NAN)
            } else {
                y
            }
        };
        return (canon(super::libm::sin(x)), canon(super::libm::cos(x)));
    }
    if fused {
        let (n, r) = if x.abs() < NEAR_F32 {
            reduce_f32(x)
        } else {
            reduce_double(x, true)
        };
        return polynomials_fused(n, r);
    }
    let (n, r) = reduce_double(x, false);
    let z = mul(r, r);
    // Sine: ((S3·z + S2)·z + S1)·z·r + r.
    let p = add(mul(SIN[2], z), SIN[1]);
    let p = add(mul(p, z), SIN[0]);
    let s = add(mul(mul(p, z), r), r);
    // Below 2⁻¹², r·z·p is under half an ulp of r and the sum is r: exactly r, so that
    // SIN(−0) is −0.
    let s = if r.abs() < TINY { r } else { s };
    // Cosine: ((C3·z + C2)·z + C1)·z·z − z/2 + 1.
    let p = add(mul(COS[2], z), COS[1]);
    let p = add(mul(p, z), COS[0]);
    let c = sub(mul(mul(p, z), z), mul(z, 0.5));
    let c = add(c, 1.0);
    quadrants(n, s, c)
}

/// The quadrant and the reduced argument r = x − q·π/2 (rounded to f32) in double precision,
/// |x| < [`LIMIT`]. The first two products are exact, so each step's fused form (`fused`)
/// rounds the same sum once as the product and difference do; the third is fused only with
/// `fused`.
fn reduce_double(x: f32, fused: bool) -> (i32, f32) {
    let xd = f64::from(x);
    // Ties to even; the generated code rounds with `roundpd` on a fused host: the same q.
    let q = (xd * TWO_OVER_PI + ROUNDER) - ROUNDER;
    let r = (xd - q * PIO2[0]) - q * PIO2[1];
    let r = if fused {
        q.mul_add(-PIO2[2], r)
    } else {
        r - q * PIO2[2]
    };
    (q as i32, round_ftz(r))
}

/// The quadrant and the reduced argument in f32, |x| < [`NEAR_F32`], with fused
/// multiply-adds: q = x·2/π rounded to an integer; r = x − q·π/2 by three fused steps (the
/// first exact: both terms are multiples of 2⁻²³ and their difference is below 1).
fn reduce_f32(x: f32) -> (i32, f32) {
    use super::fma;
    // q by a sum and a difference with 1.5·2²³ (|x·2/π| < 2²²): +0 for either zero, so that
    // q·(−π/2) is −0 and x = ±0 keeps its sign through the sums.
    let q = sub(add(mul(x, TWO_OVER_PI_F32), ROUNDER_F32), ROUNDER_F32);
    let r = fma(q, -PIO2_F32[0], x);
    let r = fma(q, -PIO2_F32[1], r);
    let r = fma(q, -PIO2_F32[2], r);
    (q as i32, r)
}

/// SIN and COS from the quadrant `n` and the reduced argument `r`, the polynomials fused.
fn polynomials_fused(n: i32, r: f32) -> (f32, f32) {
    use super::fma;
    let z = mul(r, r);
    let p = fma(SIN[2], z, SIN[1]);
    let p = fma(p, z, SIN[0]);
    let s = fma(mul(p, z), r, r);
    let s = if r.abs() < TINY { r } else { s };
    let p = fma(COS[2], z, COS[1]);
    let p = fma(p, z, COS[0]);
    let c = fma(mul(p, z), z, mul(z, -0.5));
    let c = add(c, 1.0);
    quadrants(n, s, c)
}

/// SIN and COS from the quadrant `n` and the sine `s` and cosine `c` of the reduced argument:
/// sin = (s, c, −s, −c)[n mod 4], cos = sin's at n + 1.
fn quadrants(n: i32, s: f32, c: f32) -> (f32, f32) {
    let pick = |n: i32| {
        let v = if n & 1 != 0 { c } else { s };
        if n & 2 != 0 { -v } else { v }
    };
    (pick(n), pick(n.wrapping_add(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The largest error of `sincos` over the f32 bit patterns `xs` (|x| < LIMIT), in units
    /// in the last place of the true result (f64's `sin` and `cos`, within 2⁻⁵² of it), or
    /// absolute where the result is below 2⁻⁴; with an input where each is reached.
    fn worst(xs: impl Iterator<Item = u32>, fused: bool) -> [(f64, u32); 2] {
        let mut w = [(0.0, 0u32); 2];
        for bits in xs {
            let x = f32::from_bits(bits);
            let near = x.abs() < LIMIT;
            if !near || x.is_subnormal() {
                continue;
            }
            let (s, c) = sincos_with(x, fused);
            for (k, (y, t)) in [(s, f64::from(x).sin()), (c, f64::from(x).cos())]
                .into_iter()
                .enumerate()
            {
                let e = (f64::from(y) - t).abs();
                let e = if t.abs() < 0.0625 {
                    e / 2f64.powi(-28)
                } else {
                    let ulp = 2f64.powi((t.abs() as f32).log2().floor() as i32 - 23);
                    e / ulp
                };
                if e > w[k].0 {
                    w[k] = (e, bits);
                }
            }
        }
        w
    }

    #[test]
    fn accurate_sincos_error_is_bounded() {
        for fused in [false, true] {
            let w = worst((0..=u32::MAX).step_by(997), fused);
            eprintln!("sample, fused {fused}: sin {:?}, cos {:?}", w[0], w[1]);
            assert!(w.iter().all(|&(e, _)| e <= 2.0), "fused {fused}: {w:?}");
            // Odd and even: −x gives −sin x and cos x, bit for bit.
            for bits in (0..0x4e80_0000u32).step_by(9973) {
                let x = f32::from_bits(bits);
                let (s, c) = sincos_with(x, fused);
                let (ns, nc) = sincos_with(-x, fused);
                assert_eq!(
                    (ns.to_bits(), nc.to_bits()),
                    ((-s).to_bits(), c.to_bits()),
                    "fused {fused}: {x}"
                );
            }
        }
    }

    #[test]
    #[ignore = "every positive f32 below 2³⁰: run in release mode"]
    fn accurate_sincos_error_over_every_float() {
        for fused in [false, true] {
            let w = worst(0..0x4e80_0000u32, fused);
            eprintln!("every float, fused {fused}: sin {:?}, cos {:?}", w[0], w[1]);
            assert!(w.iter().all(|&(e, _)| e <= 2.0), "fused {fused}: {w:?}");
        }
    }
}
