//! The arithmetic of the 64-bit opcodes, doubles and 64-bit integers, as tgsi_exec computes it
//! on x86-64 (`docs/semantics.md`, "Doubles and 64-bit integers"): IEEE double arithmetic,
//! under DAZ/FTZ in draws (`ftz`: denormal operands read as zeros, denormal results become
//! zeros, both keeping their sign) and without them in compute dispatches; NaN results are the
//! canonical quiet NaN [`CANONICAL_NAN64`], as float results are; conversions to integers as
//! the C casts compile for x86-64 (`cvttsd2si`); 64-bit integers wrap.

/// The NaN every double operation that makes a NaN gives.
pub const CANONICAL_NAN64: u64 = 0x7FF8_0000_0000_0000;

const SIGN: u64 = 1 << 63;

/// 2⁶³.
const P63: f64 = (1u64 << 63) as f64;

/// A double from register bits (a denormal reads as a zero of its sign when `ftz`).
#[inline]
pub fn d(bits: u64, ftz: bool) -> f64 {
    if ftz && bits & 0x7FF0_0000_0000_0000 == 0 {
        f64::from_bits(bits & SIGN)
    } else {
        f64::from_bits(bits)
    }
}

/// A denormal flushed to a zero of its sign when `ftz`.
#[inline]
pub fn flush(x: f64, ftz: bool) -> f64 {
    d(x.to_bits(), ftz)
}

/// Register bits of a double result: flushed when `ftz`, NaN canonical.
#[inline]
pub fn db(x: f64, ftz: bool) -> u64 {
    if x.is_nan() {
        CANONICAL_NAN64
    } else {
        flush(x, ftz).to_bits()
    }
}

/// DABS: `x >= 0 ? x : -x` on the bits (a negative zero stays negative, a NaN's sign flips).
#[inline]
pub fn dabs(bits: u64, ftz: bool) -> u64 {
    if d(bits, ftz) >= 0.0 {
        bits
    } else {
        bits ^ SIGN
    }
}

/// DNEG: the sign bit flipped.
#[inline]
pub fn dneg(bits: u64) -> u64 {
    bits ^ SIGN
}

/// DMIN: the non-NaN operand; `x` when equal (as MIN).
#[inline]
pub fn dmin(x: f64, y: f64) -> f64 {
    if y.is_nan() || x <= y { x } else { y }
}

/// DMAX: the non-NaN operand; `x` when equal (as MAX).
#[inline]
pub fn dmax(x: f64, y: f64) -> f64 {
    if y.is_nan() || x >= y { x } else { y }
}

/// DSSG: 1, -1 or 0 (NaN and both zeros give +0).
#[inline]
pub fn dssg(x: f64) -> f64 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        0.0
    }
}

/// Saturation of a double result to [0, 1] (NaN gives 0, -0 stays), compared as the
/// arithmetic reads it (a denormal as a zero when `ftz`: `-denormal` stays).
#[inline]
pub fn sat01(bits: u64, ftz: bool) -> u64 {
    let x = d(bits, ftz);
    if x < 0.0 || x.is_nan() {
        0
    } else if x > 1.0 {
        1f64.to_bits()
    } else {
        bits
    }
}

/// `x · 2ⁿ`, correctly rounded (glibc's `ldexp`; stated as musl's `scalbn`, which rounds the
/// same way).
pub fn ldexp(x: f64, n: i32) -> f64 {
    let p1023 = f64::from_bits(0x7FE0_0000_0000_0000);
    let pm969 = f64::from_bits(0x0010_0000_0000_0000) * f64::from_bits(0x4340_0000_0000_0000);
    let (mut y, mut n) = (x, n);
    if n > 1023 {
        y *= p1023;
        n -= 1023;
        if n > 1023 {
            y *= p1023;
            n -= 1023;
            n = n.min(1023);
        }
    } else if n < -1022 {
        // Two steps that keep the last one out of the denormal range: no double rounding.
        y *= pm969;
        n += 1022 - 53;
        if n < -1022 {
            y *= pm969;
            n += 1022 - 53;
            n = n.max(-1022);
        }
    }
    y * f64::from_bits(((0x3FF + n) as u64) << 52)
}

/// glibc's `frexp`: a mantissa in [0.5, 1) with `x`'s sign and the exponent; zeros, infinities
/// and NaN give `x + x` and 0.
pub fn frexp(x: f64) -> (f64, i32) {
    let mut ix = x.to_bits();
    let mut ex = ((ix >> 52) & 0x7FF) as i32;
    if ex == 0x7FF || x == 0.0 {
        return (x + x, 0);
    }
    let mut e = ex - 1022;
    if ex == 0 {
        // A denormal: scaled into the normal range first.
        ix = (x * f64::from_bits(0x4350_0000_0000_0000)).to_bits();
        ex = ((ix >> 52) & 0x7FF) as i32;
        e = ex - 1022 - 54;
    }
    ix = (ix & 0x800F_FFFF_FFFF_FFFF) | 0x3FE0_0000_0000_0000;
    (f64::from_bits(ix), e)
}

/// `cvttsd2si` to 64 bits: truncation; NaN and values outside the i64 range give i64::MIN.
#[inline]
pub fn cvtt64(x: f64) -> i64 {
    // [-2⁶³, 2⁶³) truncates into range; NaN is outside every range.
    if (-P63..P63).contains(&x) {
        x as i64
    } else {
        i64::MIN
    }
}

/// D2I = `(int)x`: truncation; NaN and values outside the i32 range give 0x80000000.
#[inline]
pub fn d2i(x: f64) -> u32 {
    if x.is_nan() || x >= 2_147_483_648.0 || x <= -2_147_483_649.0 {
        0x8000_0000
    } else {
        x as i32 as u32
    }
}

/// D2U = `(unsigned)x` as gcc compiles it for x86-64: the low 32 bits of [`cvtt64`].
#[inline]
pub fn d2u(x: f64) -> u32 {
    cvtt64(x) as u32
}

/// D2I64, F2I64 = `(int64_t)x`: [`cvtt64`].
#[inline]
pub fn d2i64(x: f64) -> u64 {
    cvtt64(x) as u64
}

/// D2U64, F2U64 = `(uint64_t)x` as gcc compiles it for x86-64: [`cvtt64`] below 2⁶³ (NaN
/// included), above it the value less 2⁶³ with the top bit flipped (0 from 2⁶⁴ up).
#[inline]
pub fn d2u64(x: f64) -> u64 {
    if x >= P63 {
        (cvtt64(x - P63) as u64) ^ SIGN
    } else {
        cvtt64(x) as u64
    }
}

/// I64DIV: 0 for a zero divisor; i64::MIN / -1 wraps to i64::MIN (x86 would fault).
#[inline]
pub fn i64div(a: u64, b: u64) -> u64 {
    if b == 0 {
        0
    } else {
        (a as i64).wrapping_div(b as i64) as u64
    }
}

/// I64MOD: all ones for a zero divisor; i64::MIN % -1 is 0.
#[inline]
pub fn i64mod(a: u64, b: u64) -> u64 {
    if b == 0 {
        u64::MAX
    } else {
        (a as i64).wrapping_rem(b as i64) as u64
    }
}

/// U64DIV: all ones for a zero divisor.
#[inline]
pub fn u64div(a: u64, b: u64) -> u64 {
    a.checked_div(b).unwrap_or(u64::MAX)
}

/// U64MOD: all ones for a zero divisor.
#[inline]
pub fn u64mod(a: u64, b: u64) -> u64 {
    a.checked_rem(b).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_are_x86s() {
        assert_eq!(d2i(-1.5), (-1i32) as u32);
        assert_eq!(d2i(3e9), 0x8000_0000);
        assert_eq!(d2i(f64::NAN), 0x8000_0000);
        assert_eq!(d2i(-2_147_483_648.9), 0x8000_0000);
        assert_eq!(d2u(4_294_967_301.0), 5);
        assert_eq!(d2u(-1.5), u32::MAX);
        assert_eq!(d2u(1e30), 0);
        assert_eq!(d2i64(f64::NAN), 1 << 63);
        assert_eq!(d2u64(1.8446744073709552e19), 0);
        assert_eq!(d2u64(9.3e18), 9_300_000_000_000_000_000);
        assert_eq!(d2u64(-1.0), u64::MAX);
        assert_eq!(d2u64(f64::NAN), 1 << 63);
        assert_eq!(d2u64(f64::INFINITY), 0);
    }

    #[test]
    fn ldexp_and_frexp() {
        assert_eq!(ldexp(1.0, 10), 1024.0);
        assert_eq!(ldexp(1.0, -1074), f64::from_bits(1));
        assert_eq!(ldexp(1.0, -1075), 0.0);
        assert_eq!(ldexp(1.5, -1074), f64::from_bits(2));
        assert_eq!(ldexp(1.0, 1024), f64::INFINITY);
        assert_eq!(ldexp(f64::MIN_POSITIVE, 2000), ldexp(1.0, 978));
        assert_eq!(frexp(8.0), (0.5, 4));
        assert_eq!(frexp(-3.0), (-0.75, 2));
        assert_eq!(frexp(f64::from_bits(1)), (0.5, -1073));
        assert_eq!(frexp(0.0), (0.0, 0));
        assert!(frexp(f64::NAN).0.is_nan());
    }

    #[test]
    fn flushes_and_signs() {
        let tiny = f64::from_bits(1);
        assert_eq!(d(tiny.to_bits(), true), 0.0);
        assert_eq!(d(tiny.to_bits(), false), tiny);
        assert_eq!(db(-tiny, true), SIGN);
        assert_eq!(db(f64::NAN, false), CANONICAL_NAN64);
        assert_eq!(dabs((-0.0f64).to_bits(), false), (-0.0f64).to_bits());
        assert_eq!(dabs((-2.0f64).to_bits(), false), 2f64.to_bits());
        assert_eq!(dabs((-tiny).to_bits(), true), (-tiny).to_bits());
        assert_eq!(i64div(i64::MIN as u64, u64::MAX), i64::MIN as u64);
        assert_eq!(i64mod(5, 0), u64::MAX);
        assert_eq!(u64div(5, 0), u64::MAX);
        assert_eq!(sat01((-0.0f64).to_bits(), false), (-0.0f64).to_bits());
        assert_eq!(sat01((-tiny).to_bits(), true), (-tiny).to_bits());
        assert_eq!(sat01((-tiny).to_bits(), false), 0);
        assert_eq!(sat01(CANONICAL_NAN64, true), 0);
    }
}
