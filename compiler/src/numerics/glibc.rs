//! glibc's single-precision functions computed step by step in Rust, bit for bit as the C
//! library computes them under softpipe's DAZ/FTZ modes: the reference that exact math in vector
//! code follows, operation for operation (`docs/semantics.md`, "Numerics").
//!
//! `exp2f`, `logf`, `sinf`, `cosf` and `powf`, as glibc 2.28 to 2.36 at least compute them
//! (the ARM-optimized routines; later releases replace some with correctly rounded ones).
//!
//! For instance `exp2f` works in double precision: x = k/32 + r with |r| ≤ 1/64, then
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
    exp2_inline(f64::from(daz(x)), 0, variant)
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

/// x = 2^k · z with z in [0x1.66p-1, 0x1.66p0), from the bits `ix` of a positive x (or a
/// denormal's bits rebased as glibc rebases them): the table index, k, and z (exact).
fn split_log(ix: u32) -> (usize, i32, f64) {
    let tmp = ix.wrapping_sub(LOGF_OFF);
    let i = ((tmp >> 19) % 16) as usize;
    let k = (tmp as i32) >> 23;
    let iz = ix.wrapping_sub(tmp & (0x1ff << 23));
    (i, k, f64::from(f32::from_bits(iz)))
}

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
    let (i, k, z) = split_log(ix);
    let (invc, logc) = (
        f64::from_bits(LOGF_TABLE[i].0),
        f64::from_bits(LOGF_TABLE[i].1),
    );
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

/// The constants of glibc's `sinf` and `cosf`: the polynomials for sin on |x| ≤ π/4
/// (x + S1·x³ + (S2 + S3·x²)·x⁷) and for cos (C0 + C1·x² + C2·x⁴ + (C3 + C4·x²)·x⁶), and the
/// reduction by π/2.
pub mod sincosf {
    /// 2/π · 2²⁴: x · `HPI_INV` holds the quadrant n in its bits from 2²⁴ up.
    pub const HPI_INV: f64 = f64::from_bits(0x41645f306dc9c883);
    /// π/2.
    pub const HPI: f64 = f64::from_bits(0x3ff921fb54442d18);
    /// The cosine's coefficients C1..C4 (C0 = 1).
    pub const C: [f64; 4] = [
        f64::from_bits(0xbfdffffffd0c621c), // -0x1.ffffffd0c621cp-2
        f64::from_bits(0x3fa55553e1068f19), // 0x1.55553e1068f19p-5
        f64::from_bits(0xbf56c087e89a359d), // -0x1.6c087e89a359dp-10
        f64::from_bits(0x3ef99343027bf8c3), // 0x1.99343027bf8c3p-16
    ];
    /// The sine's coefficients S1..S3.
    pub const S: [f64; 3] = [
        f64::from_bits(0xbfc555545995a603), // -0x1.555545995a603p-3
        f64::from_bits(0x3f81107605230bc4), // 0x1.1107605230bc4p-7
        f64::from_bits(0xbf2994eb3774cf24), // -0x1.994eb3774cf24p-13
    ];
    /// π · 2⁻⁶²: the fixed-point remainder of the large reduction times this is radians.
    pub const PI63: f64 = f64::from_bits(0x3c1921fb54442d18);
    /// 4/π in binary, 32 bits at a time, each entry 8 bits further on than the one before:
    /// entry i is ⌊4/π · 2^(8i+7)⌋ mod 2³² (computed from π to 115 digits).
    pub const INV_PIO4: [u32; 24] = [
        0xa2, 0xa2f9, 0xa2f983, 0xa2f9836e, 0xf9836e4e, 0x836e4e44, 0x6e4e4415, 0x4e441529,
        0x441529fc, 0x1529fc27, 0x29fc2757, 0xfc2757d1, 0x2757d1f5, 0x57d1f534, 0xd1f534dd,
        0xf534ddc0, 0x34ddc0db, 0xddc0db62, 0xc0db6295, 0xdb629599, 0x6295993c, 0x95993c43,
        0x993c4390, 0x3c439041,
    ];
    /// The float nearest π/4: below it no reduction is needed.
    pub const PIO4_F32: u32 = 0x3f49_0fdb;
}

/// The top 12 bits of |x|'s representation but the sign: its exponent and first mantissa bit.
#[inline]
fn abstop12(x: f32) -> u32 {
    (x.to_bits() >> 20) & 0x7ff
}

/// sin (`odd` quadrant: cos) of the reduced `x` with x2 = x², negated when `neg` (glibc's
/// second table: its cosine coefficients negated).
fn sincosf_poly(x: f64, x2: f64, odd: bool, neg: bool, v: Variant) -> f32 {
    use sincosf::{C, S};
    let y = if !odd {
        let x3 = x * x2;
        let s1 = v.mul_add(x2, S[2], S[1]);
        let x7 = x3 * x2;
        let s = v.mul_add(x3, S[0], x);
        v.mul_add(x7, s1, s)
    } else {
        let sg = if neg { -1.0 } else { 1.0 };
        let (c0, c1, c2, c3, c4) = (sg, sg * C[0], sg * C[1], sg * C[2], sg * C[3]);
        let x4 = x2 * x2;
        let d2 = v.mul_add(x2, c4, c3);
        let d1 = v.mul_add(x2, c1, c0);
        let x6 = x4 * x2;
        let c = v.mul_add(x4, c2, d1);
        v.mul_add(x6, d2, c)
    };
    to_f32_ftz(y)
}

/// x − n·π/2 for |x| < 120, and the quadrant n (x·2/π rounded, ties up).
fn reduce_fast(x: f64, v: Variant) -> (f64, i32) {
    let r = x * sincosf::HPI_INV;
    let n = ((r as i32).wrapping_add(0x80_0000)) >> 24;
    (v.mul_add(-f64::from(n), sincosf::HPI, x), n)
}

/// |x| reduced by π/2 for a finite |x| ≥ 120 (bits `xi`, sign ignored), in 64-bit fixed
/// point against 4/π's bits, and the quadrant.
fn reduce_large(xi: u32) -> (f64, i32) {
    let arr = &sincosf::INV_PIO4[((xi >> 26) & 15) as usize..];
    let shift = (xi >> 23) & 7;
    let m = ((xi & 0xff_ffff) | 0x80_0000) << shift;
    let res0 = m.wrapping_mul(arr[0]) as u64;
    let res1 = u64::from(m) * u64::from(arr[4]);
    let res2 = u64::from(m) * u64::from(arr[8]);
    let res0 = ((res2 >> 32) | (res0 << 32)).wrapping_add(res1);
    let n = (res0.wrapping_add(1 << 61)) >> 62;
    let res0 = res0.wrapping_sub(n << 62);
    ((res0 as i64) as f64 * sincosf::PI63, n as i32)
}

/// glibc's `sinf(y)` (`cos` false) or `cosf(y)` as `variant` computes it under DAZ/FTZ.
pub fn sincosf(y: f32, cos: bool, variant: Variant) -> f32 {
    let top = abstop12(y);
    let x = f64::from(daz(y));
    if top < abstop12(f32::from_bits(sincosf::PIO4_F32)) {
        if top < abstop12(f32::from_bits(0x3980_0000)) {
            // |y| < 2⁻¹²: sin y = y (a denormal y too: the interpreter flushes it after),
            // cos y = 1.
            return if cos { 1.0 } else { y };
        }
        return sincosf_poly(x, x * x, cos, false, variant);
    }
    // The quadrant n picks the polynomial; q, which also counts the sign of a large y
    // (reduced from |y|), picks the signs.
    let (r, n, q) = if top < abstop12(120.0) {
        let (r, n) = reduce_fast(x, variant);
        (r, n, n)
    } else if top < abstop12(f32::INFINITY) {
        let xi = y.to_bits();
        let (r, n) = reduce_large(xi);
        (r, n, n + (xi >> 31) as i32)
    } else {
        return f32::NAN; // inf or NaN
    };
    // Signs by quadrant: + − − +.
    let s = if (q & 3) == 1 || (q & 3) == 2 {
        -1.0
    } else {
        1.0
    };
    let neg = q & 2 != 0;
    let odd = ((n & 1) != 0) != cos;
    sincosf_poly(r * s, r * r, odd, neg, variant)
}

/// glibc's `sinf`.
pub fn sinf(x: f32, variant: Variant) -> f32 {
    sincosf(x, false, variant)
}

/// glibc's `cosf`.
pub fn cosf(x: f32, variant: Variant) -> f32 {
    sincosf(x, true, variant)
}

/// `powf`'s log2 table: 1/c as `logf`'s ([`LOGF_TABLE`]'s first halves) and log2(c), as
/// double bits.
pub const POWF_LOG2C: [u64; 16] = [
    0xbfdefec65b963019,
    0xbfdb0b6832d4fca4,
    0xbfd7418b0a1fb77b,
    0xbfd39de91a6dcf7b,
    0xbfd01d9bf3f2b631,
    0xbfc97c1d1b3b7af0,
    0xbfc2f9e393af3c9f,
    0xbfb960cbbf788d5c,
    0xbfaa6f9db6475fce,
    0x0000000000000000,
    0x3fb338ca9f24f53d,
    0x3fc476a9543891ba,
    0x3fce840b4ac4e4d2,
    0x3fd40645f0c6651c,
    0x3fd88e9c2c1b9ff8,
    0x3fdce0a44eb17bcc,
];

/// `powf`'s polynomial for log1p(r)/ln 2, highest degree first (A0·r⁵ + … + A4·r).
pub const POWF_POLY: [f64; 5] = [
    f64::from_bits(0x3fd27616c9496e0b), // 0x1.27616c9496e0bp-2
    f64::from_bits(0xbfd71969a075c67a), // -0x1.71969a075c67ap-2
    f64::from_bits(0x3fdec70a6ca7badd), // 0x1.ec70a6ca7baddp-2
    f64::from_bits(0xbfe7154748bef6c8), // -0x1.7154748bef6c8p-1
    f64::from_bits(0x3ff71547652ab82b), // 0x1.71547652ab82bp0
];

/// The largest y·log2(x) whose 2^(y·log2 x) `powf` rounds below infinity.
pub const POWF_OFLOW: f64 = f64::from_bits(0x405fffffffd1d571); // 0x1.fffffffd1d571p+6

/// log2 of the float whose bits are `ix` (positive, normal, or a denormal's bits rebased as
/// glibc rebases them), in double precision.
fn powf_log2(ix: u32, v: Variant) -> f64 {
    let (i, k, z) = split_log(ix);
    let invc = f64::from_bits(LOGF_TABLE[i].0);
    let logc = f64::from_bits(POWF_LOG2C[i]);
    // log2(x) = log1p(z/c − 1)/ln 2 + log2(c) + k.
    let r = v.mul_add(z, invc, -1.0);
    let y0 = logc + f64::from(k);
    let a = POWF_POLY;
    let r2 = r * r;
    let y = v.mul_add(a[0], r, a[1]);
    let p = v.mul_add(a[2], r, a[3]);
    let r4 = r2 * r2;
    let q = v.mul_add(a[4], r, y0);
    let q = v.mul_add(p, r2, q);
    v.mul_add(y, r4, q)
}

/// 2^xd as `exp2f` and `powf` compute it: xd = k/32 + r with |r| ≤ 1/64 and integer k, then
/// 2^(k/32) · 2^r ≈ s · (C0·r³ + C1·r² + C2·r + 1); `sign_bias` (2¹⁶ for a negative result,
/// else 0) is added to the table index's bits so that it lands in the sign bit.
fn exp2_inline(xd: f64, sign_bias: u64, v: Variant) -> f32 {
    let kd = xd + EXP2F_SHIFT;
    let ki = kd.to_bits();
    let kd = kd - EXP2F_SHIFT;
    let r = xd - kd;
    let t = EXP2F_TABLE[(ki % 32) as usize].wrapping_add(ki.wrapping_add(sign_bias) << 47);
    let s = f64::from_bits(t);
    let [c0, c1, c2] = EXP2F_POLY;
    let z = v.mul_add(c0, r, c1);
    let r2 = r * r;
    let y = v.mul_add(c2, r, 1.0);
    let y = v.mul_add(z, r2, y);
    to_f32_ftz(y * s)
}

/// 0 when the float with bits `iy` is not an integer, 1 when it is an odd one, 2 when even.
fn checkint(iy: u32) -> u32 {
    let e = (iy >> 23) & 0xff;
    if e < 0x7f {
        return 0;
    }
    if e > 0x7f + 23 {
        return 2;
    }
    if iy & ((1 << (0x7f + 23 - e)) - 1) != 0 {
        return 0;
    }
    if iy & (1 << (0x7f + 23 - e)) != 0 {
        return 1;
    }
    2
}

/// Zero, infinity or NaN.
fn zeroinfnan(i: u32) -> bool {
    i.wrapping_mul(2).wrapping_sub(1) >= 2 * 0x7f80_0000 - 1
}

/// glibc's `powf(x, y)` as `variant` computes it under DAZ/FTZ.
pub fn powf(x: f32, y: f32, variant: Variant) -> f32 {
    let mut sign_bias = 0u64;
    let mut ix = x.to_bits();
    let iy = y.to_bits();
    let (x_ftz, y_ftz) = (daz(x), daz(y));
    if ix.wrapping_sub(0x0080_0000) >= 0x7f80_0000 - 0x0080_0000 || zeroinfnan(iy) {
        // x below 2⁻¹²⁶ in magnitude, negative, inf or NaN, or y zero, inf or NaN.
        if zeroinfnan(iy) {
            if iy.wrapping_mul(2) == 0 {
                return if x.is_nan() && !is_quiet(x) {
                    x_ftz + y_ftz
                } else {
                    1.0
                };
            }
            if ix == 0x3f80_0000 {
                return if y.is_nan() && !is_quiet(y) {
                    x_ftz + y_ftz
                } else {
                    1.0
                };
            }
            if ix.wrapping_mul(2) > 2 * 0x7f80_0000 || iy.wrapping_mul(2) > 2 * 0x7f80_0000 {
                return x_ftz + y_ftz;
            }
            if ix.wrapping_mul(2) == 2 * 0x3f80_0000 {
                return 1.0;
            }
            if (ix.wrapping_mul(2) < 2 * 0x3f80_0000) == (iy & 0x8000_0000 == 0) {
                return 0.0; // |x| < 1 and y = inf, or |x| > 1 and y = −inf
            }
            return y_ftz * y_ftz;
        }
        if zeroinfnan(ix) {
            let mut x2 = x_ftz * x_ftz;
            if ix & 0x8000_0000 != 0 && checkint(iy) == 1 {
                x2 = -x2;
            }
            return if iy & 0x8000_0000 != 0 { 1.0 / x2 } else { x2 };
        }
        // x and y non-zero and finite.
        if ix & 0x8000_0000 != 0 {
            match checkint(iy) {
                0 => return f32::NAN, // a negative x to a non-integer power
                1 => sign_bias = 1 << 16,
                _ => {}
            }
            ix &= 0x7fff_ffff;
        }
        if ix < 0x0080_0000 {
            // A denormal: glibc normalizes it by a product with 2²³, which DAZ makes zero.
            ix = (daz(f32::from_bits(ix)) * 8_388_608.0).to_bits() & 0x7fff_ffff;
            ix = ix.wrapping_sub(23 << 23);
        }
    }
    let logx = powf_log2(ix, variant);
    let ylogx = f64::from(y_ftz) * logx;
    if (ylogx.to_bits() >> 47) & 0xffff >= 126.0f64.to_bits() >> 47 {
        // |y·log2 x| ≥ 126.
        if ylogx > POWF_OFLOW {
            return if sign_bias != 0 {
                f32::NEG_INFINITY
            } else {
                f32::INFINITY
            };
        }
        if ylogx <= -150.0 {
            return if sign_bias != 0 { -0.0 } else { 0.0 };
        }
    }
    exp2_inline(ylogx, sign_bias, variant)
}

/// A quiet NaN (the quiet bit set), as glibc's `issignaling` reads it.
fn is_quiet(x: f32) -> bool {
    x.to_bits() & 0x0040_0000 != 0
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

    #[test]
    fn sinf_matches_the_c_library_on_a_sample() {
        check("sinf", 3001, libm::sin, sinf);
    }

    #[test]
    fn cosf_matches_the_c_library_on_a_sample() {
        check("cosf", 3001, libm::cos, cosf);
    }

    /// powf on a grid of x (every 65,537th float, both signs; every 1,048,573rd in a debug
    /// build) by y (every 1,048,573rd, and the integers and halves near 0), and the special
    /// values against each other: 270 million pairs in release mode.
    #[test]
    fn powf_matches_the_c_library_on_sweeps() {
        let variant = Variant::host();
        let mut ys: Vec<u32> = (0..=u32::MAX).step_by(1_048_573).collect();
        for i in -8..=8 {
            ys.push((i as f32).to_bits());
            ys.push((i as f32 + 0.5).to_bits());
        }
        let specials = [
            0u32,
            0x8000_0000,
            1,
            0x8000_0001,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0x7fa0_0000,
            0xffc0_0000,
            0x3f80_0000,
            0xbf80_0000,
            0x3f7f_ffff,
            0x3f80_0001,
            0x4b00_0001,
            0xcb00_0001,
            0x4b80_0000,
            0x0080_0000,
        ];
        ys.extend(specials);
        let x_step = if cfg!(debug_assertions) {
            1_048_573
        } else {
            65_537
        };
        let xs = (0..=u32::MAX).step_by(x_step).chain(specials);
        let mut bad = 0u64;
        let mut first = None;
        for xb in xs {
            for &yb in &ys {
                let (x, y) = (f32::from_bits(xb), f32::from_bits(yb));
                let want = crate::numerics::b(libm::pow(x, y));
                let got = crate::numerics::b(powf(x, y, variant));
                if want != got {
                    bad += 1;
                    first.get_or_insert((xb, yb, want, got));
                }
            }
        }
        assert_eq!(
            bad, 0,
            "{bad} pairs differ from the C library's powf; first (x, y, libm, ours): {first:#010x?}"
        );
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

    #[test]
    #[ignore = "every f32: run in release mode"]
    fn sinf_exhaustive() {
        check("sinf", 1, libm::sin, sinf);
    }

    #[test]
    #[ignore = "every f32: run in release mode"]
    fn cosf_exhaustive() {
        check("cosf", 1, libm::cos, cosf);
    }
}
