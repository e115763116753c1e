//! glibc's single-precision functions computed step by step in Rust, bit for bit as the C
//! library computes them under softpipe's DAZ/FTZ modes: the reference that exact math in vector
//! code follows, operation for operation (`docs/semantics.md`, "Numerics").
//!
//! glibc's `exp2f` (since 2.28) works in double precision: x = k/32 + r with |r| ≤ 1/64, then
//! 2^x = 2^(k/32) · p(r), with 2^(k/32) read from a table of 32 doubles and p a cubic. The
//! result is that double rounded to float once, so it is within 0.502 ulp of 2^x, and which
//! way a result close to half an ulp rounds depends on every step: hence the steps here.
//!
//! glibc selects a variant by CPU feature: on x86-64 with FMA and AVX2 it runs the same source
//! built with FMA, where the compiler fused every `a * b + c` into one rounding. [`Variant`]
//! names the two; [`Variant::host`] is the one this process's C library runs.
//!
//! The floating-point environment: the interpreter calls the C library with DAZ and FTZ set
//! (`numerics::libm`), so a denormal input reads as a zero of its sign where an arithmetic
//! instruction reads it, and a result below 2⁻¹²⁶ becomes a zero of its sign.

/// Which build of a glibc function runs: the baseline (SSE2: every product and sum rounded)
/// or the one glibc's x86-64 ifunc selects on a CPU with FMA and AVX2 (multiply-adds fused).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// Separate multiply and add, each rounded.
    Baseline,
    /// `a * b + c` fused into one rounding wherever the source writes it.
    Fma,
}

impl Variant {
    /// The variant this process's C library selects (glibc's x86-64 rule: FMA and AVX2 both
    /// present); [`Variant::Baseline`] elsewhere.
    pub fn host() -> Variant {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("fma")
                && std::arch::is_x86_feature_detected!("avx2")
            {
                return Variant::Fma;
            }
        }
        Variant::Baseline
    }

    /// `a * b + c` as this variant computes it.
    #[inline]
    pub fn mul_add(self, a: f64, b: f64, c: f64) -> f64 {
        match self {
            Variant::Baseline => a * b + c,
            Variant::Fma => a.mul_add(b, c),
        }
    }
}

/// The exponent bits of `exp2f`'s table: 2^(k/32) for k in 0..32 rounded to the nearest
/// double, minus `k << 47`, so that adding `ki << 47` for an integer `ki` with `ki % 32 == k`
/// gives 2^(ki/32) as bits. (Computed to 60 digits and rounded once.)
pub const EXP2F_TABLE: [u64; 32] = [
    0x3ff0000000000000,
    0x3fefd9b0d3158574,
    0x3fefb5586cf9890f,
    0x3fef9301d0125b51,
    0x3fef72b83c7d517b,
    0x3fef54873168b9aa,
    0x3fef387a6e756238,
    0x3fef1e9df51fdee1,
    0x3fef06fe0a31b715,
    0x3feef1a7373aa9cb,
    0x3feedea64c123422,
    0x3feece086061892d,
    0x3feebfdad5362a27,
    0x3feeb42b569d4f82,
    0x3feeab07dd485429,
    0x3feea47eb03a5585,
    0x3feea09e667f3bcd,
    0x3fee9f75e8ec5f74,
    0x3feea11473eb0187,
    0x3feea589994cce13,
    0x3feeace5422aa0db,
    0x3feeb737b0cdc5e5,
    0x3feec49182a3f090,
    0x3feed503b23e255d,
    0x3feee89f995ad3ad,
    0x3feeff76f2fb5e47,
    0x3fef199bdd85529c,
    0x3fef3720dcef9069,
    0x3fef5818dcfba487,
    0x3fef7c97337b9b5f,
    0x3fefa4afa2a490da,
    0x3fefd0765b6e4540,
];

/// `exp2f`'s cubic, highest degree first: p(r) = ((C0·r + C1)·r² + C2·r) + 1 ≈ 2^r on
/// |r| ≤ 1/64.
pub const EXP2F_POLY: [f64; 3] = [
    f64::from_bits(0x3fac6af84b912394), // 0x1.c6af84b912394p-5
    f64::from_bits(0x3fcebfce50fac4f3), // 0x1.ebfce50fac4f3p-3
    f64::from_bits(0x3fe62e42ff0c52d6), // 0x1.62e42ff0c52d6p-1
];

/// 1.5 · 2⁴⁷: adding it to |x| < 2¹⁰ rounds x to a multiple of 1/32 and leaves k = 32·x in
/// the low bits of the sum.
pub const EXP2F_SHIFT: f64 = 1.5 * (1u64 << 47) as f64;

/// A float as an arithmetic instruction reads it under DAZ: a denormal is a zero of its sign.
#[inline]
fn daz(x: f32) -> f32 {
    if x.is_subnormal() {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

/// A double rounded to float under FTZ: a result whose value is below 2⁻¹²⁶ in magnitude
/// (tininess detected before rounding, as x86 does) becomes a zero of its sign.
#[inline]
fn to_f32_ftz(y: f64) -> f32 {
    if y.abs() < f64::from(f32::MIN_POSITIVE) {
        (0.0f32).copysign(y as f32)
    } else {
        y as f32
    }
}

/// glibc's `exp2f(x)` as `variant` computes it under DAZ/FTZ.
pub fn exp2f(x: f32, variant: Variant) -> f32 {
    let abstop = (x.to_bits() >> 20) & 0x7ff;
    if abstop >= (128.0f32.to_bits() >> 20) {
        // |x| ≥ 128, inf or NaN.
        if x == f32::NEG_INFINITY {
            return 0.0;
        }
        if abstop >= (f32::INFINITY.to_bits() >> 20) {
            return x + x;
        }
        if x > 0.0 {
            return f32::INFINITY; // overflow
        }
        if x <= -150.0 {
            return 0.0; // underflow (and FTZ)
        }
    }
    let xd = f64::from(daz(x));
    // x = k/32 + r with |r| ≤ 1/64 and integer k.
    let kd = xd + EXP2F_SHIFT;
    let ki = kd.to_bits();
    let kd = kd - EXP2F_SHIFT;
    let r = xd - kd;
    // 2^x = 2^(k/32) · 2^r ≈ s · (C0·r³ + C1·r² + C2·r + 1).
    let t = EXP2F_TABLE[(ki % 32) as usize].wrapping_add(ki << 47);
    let s = f64::from_bits(t);
    let [c0, c1, c2] = EXP2F_POLY;
    let z = variant.mul_add(c0, r, c1);
    let r2 = r * r;
    let y = variant.mul_add(c2, r, 1.0);
    let y = variant.mul_add(z, r2, y);
    to_f32_ftz(y * s)
}

/// `logf`'s table: for the 16 subintervals of [0x1.66p-1, 0x1.66p0) (by the top four
/// mantissa bits of x's significand rebased at `LOGF_OFF`), 1/c and log(c) as double bits, c
/// near the subinterval's centre and chosen by glibc so that z/c − 1 and the sum below lose
/// little.
pub const LOGF_TABLE: [(u64, u64); 16] = [
    (0x3ff661ec79f8f3be, 0xbfd57bf7808caade),
    (0x3ff571ed4aaf883d, 0xbfd2bef0a7c06ddb),
    (0x3ff49539f0f010b0, 0xbfd01eae7f513a67),
    (0x3ff3c995b0b80385, 0xbfcb31d8a68224e9),
    (0x3ff30d190c8864a5, 0xbfc6574f0ac07758),
    (0x3ff25e227b0b8ea0, 0xbfc1aa2bc79c8100),
    (0x3ff1bb4a4a1a343f, 0xbfba4e76ce8c0e5e),
    (0x3ff12358f08ae5ba, 0xbfb1973c5a611ccc),
    (0x3ff0953f419900a7, 0xbfa252f438e10c1e),
    (0x3ff0000000000000, 0x0000000000000000),
    (0x3fee608cfd9a47ac, 0x3faaa5aa5df25984),
    (0x3feca4b31f026aa0, 0x3fbc5e53aa362eb4),
    (0x3feb2036576afce6, 0x3fc526e57720db08),
    (0x3fe9c2d163a1aa2d, 0x3fcbc2860d224770),
    (0x3fe886e6037841ed, 0x3fd1058bc8a07ee1),
    (0x3fe767dcf5534862, 0x3fd4043057b6ee09),
];

/// ln 2 as a double.
pub const LOGF_LN2: f64 = f64::from_bits(0x3fe62e42fefa39ef);

/// `logf`'s polynomial for log1p(r) − r, without its first-order term: A0·r⁴ + A1·r³ + A2·r².
pub const LOGF_POLY: [f64; 3] = [
    f64::from_bits(0xbfd00ea348b88334), // -0x1.00ea348b88334p-2
    f64::from_bits(0x3fd5575b0be00b6a), // 0x1.5575b0be00b6ap-2
    f64::from_bits(0xbfdffffef20a4123), // -0x1.ffffef20a4123p-2
];

/// The bits that rebase the significand: x = 2^k · z with z in [0x1.66p-1, 0x1.66p0).
pub const LOGF_OFF: u32 = 0x3f33_0000;

/// glibc's `logf(x)` as `variant` computes it under DAZ/FTZ.
pub fn logf(x: f32, variant: Variant) -> f32 {
    let mut ix = x.to_bits();
    if ix == 0x3f80_0000 {
        return 0.0; // log(1) = +0 in every rounding mode
    }
    if ix.wrapping_sub(0x0080_0000) >= 0x7f80_0000 - 0x0080_0000 {
        // Below 2⁻¹²⁶ (zeros, denormals, negatives), inf or NaN.
        if ix.wrapping_mul(2) == 0 {
            return f32::NEG_INFINITY;
        }
        if ix == 0x7f80_0000 {
            return x;
        }
        if ix & 0x8000_0000 != 0 || ix.wrapping_mul(2) >= 0xff00_0000 {
            return f32::NAN;
        }
        // A positive denormal: glibc normalizes it by a product with 2²³, which DAZ makes +0,
        // so what follows runs on the bits 0 − (23 << 23), as in the C library.
        ix = (daz(x) * 8_388_608.0).to_bits().wrapping_sub(23 << 23);
    }
    let tmp = ix.wrapping_sub(LOGF_OFF);
    let i = ((tmp >> 19) % 16) as usize;
    let k = (tmp as i32) >> 23;
    let iz = ix.wrapping_sub(tmp & (0x1ff << 23));
    let (invc, logc) = (
        f64::from_bits(LOGF_TABLE[i].0),
        f64::from_bits(LOGF_TABLE[i].1),
    );
    let z = f64::from(f32::from_bits(iz));
    // log(x) = log1p(z/c − 1) + log(c) + k·ln 2.
    let r = variant.mul_add(z, invc, -1.0);
    let y0 = variant.mul_add(f64::from(k), LOGF_LN2, logc);
    let r2 = r * r;
    let [a0, a1, a2] = LOGF_POLY;
    let y = variant.mul_add(a1, r, a2);
    let y = variant.mul_add(a0, r2, y);
    let y = variant.mul_add(y, r2, y0 + r);
    to_f32_ftz(y)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numerics::libm;

    /// Compares `ours` with the host's C library function `theirs` on every input `step`
    /// apart and on the special values.
    fn check(name: &str, step: u32, theirs: fn(f32) -> f32, ours: fn(f32, Variant) -> f32) {
        let variant = Variant::host();
        let specials = [
            0u32,
            0x8000_0000,
            1,
            0x8000_0001,
            0x007f_ffff,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0xffc0_0001,
            0x4300_0000,
            0xc300_0000,
            0xc316_0000,
            0xc315_ffff,
            0xc2fc_0000,
            0xc2fe_0000,
            0x42ff_ffff,
            0x3f80_0000,
            0x3f7f_ffff,
            0x3f80_0001,
            0x0080_0000,
            0x0000_0400,
            0x7f7f_ffff,
            0xbf80_0000,
        ];
        let mut bad = 0u64;
        let mut first = None;
        let inputs = (0..=u32::MAX).step_by(step as usize).chain(specials);
        for bits in inputs {
            let x = f32::from_bits(bits);
            let want = crate::numerics::b(theirs(x));
            let got = crate::numerics::b(ours(x, variant));
            if want != got {
                bad += 1;
                first.get_or_insert((bits, want, got));
            }
        }
        assert_eq!(
            bad,
            0,
            "{bad} inputs differ from the C library's {name} ({variant:?}); first: \
             x = {:#010x}, libm {:#010x}, ours {:#010x}",
            first.unwrap().0,
            first.unwrap().1,
            first.unwrap().2
        );
    }

    // Samples: about 1.4 million inputs spread over every exponent, and the special values.
    #[test]
    fn exp2f_matches_the_c_library_on_a_sample() {
        check("exp2f", 3001, libm::exp2, exp2f);
    }

    #[test]
    fn logf_matches_the_c_library_on_a_sample() {
        check("logf", 3001, libm::ln, logf);
    }

    // Every one of the 2³² inputs, a minute each in release mode:
    // `cargo test -p tgsic --release --lib exhaustive -- --ignored`.
    #[test]
    #[ignore = "every f32: run in release mode"]
    fn exp2f_exhaustive() {
        check("exp2f", 1, libm::exp2, exp2f);
    }

    #[test]
    #[ignore = "every f32: run in release mode"]
    fn logf_exhaustive() {
        check("logf", 1, libm::ln, logf);
    }
}
