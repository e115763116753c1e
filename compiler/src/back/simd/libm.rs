//! Exact math in vector code: EX2 and LG2 computed for a whole step of lanes in the target's
//! double-precision lanes, operation for operation as glibc computes `exp2f` and `logf`
//! ([`crate::numerics::glibc`], checked there against the C library on every input), so the
//! results are the interpreter's bit for bit with no call into the host.
//!
//! Each step below names the scalar reference's. Where the reference works on the bits of a
//! double (`exp2f`'s index into its table, `logf`'s split of x), the vector form works on the
//! f32 lanes it comes from, with the same value; the notes say why each is exact.

use super::builder::{FBin, IBin, Kind, R, Shift, SimdBuilder};
use crate::ir::FCmp;
use crate::numerics::CANONICAL_NAN;
use crate::numerics::glibc::{self, Variant};

/// `a · b + c` as `v`, glibc's build on this host, computes it.
fn mul_add<B: SimdBuilder + ?Sized>(b: &mut B, v: Variant, a: B::D, x: B::D, c: B::D) -> R<B::D> {
    match v {
        Variant::Fma => b.d_fma(a, x, c),
        Variant::Baseline => {
            let p = b.d_bin(FBin::Mul, a, x)?;
            b.d_bin(FBin::Add, p, c)
        }
    }
}

/// The tables as doubles: 2^(j/32) for `exp2f` (its table's bits plus `j << 47`), and `logf`'s
/// 1/c and log c.
struct Tables {
    exp2: [f64; 32],
    invc: [f64; 16],
    logc: [f64; 16],
}

static TABLES: std::sync::LazyLock<Tables> = std::sync::LazyLock::new(|| Tables {
    exp2: std::array::from_fn(|j| {
        f64::from_bits(glibc::EXP2F_TABLE[j].wrapping_add((j as u64) << 47))
    }),
    invc: std::array::from_fn(|i| f64::from_bits(glibc::LOGF_TABLE[i].0)),
    logc: std::array::from_fn(|i| f64::from_bits(glibc::LOGF_TABLE[i].1)),
});

/// A splat of `x`'s bits as f32 lanes.
fn fc<B: SimdBuilder + ?Sized>(b: &mut B, x: f32) -> R<B::V> {
    b.splat_const(Kind::F32, x.to_bits())
}

fn ic<B: SimdBuilder + ?Sized>(b: &mut B, x: u32) -> R<B::V> {
    b.splat_const(Kind::I32, x)
}

/// EX2 of `x` (f32 lanes, as the CPU reads them): glibc's `exp2f`.
pub(super) fn exp2<B: SimdBuilder + ?Sized>(b: &mut B, x: B::V) -> R<B::V> {
    let v = Variant::host();
    // k = 32·x rounded to nearest even, as glibc's x + 1.5·2⁴⁷ rounds (32·x is exact in
    // f32 below 2¹²³); r = x − k/32, exact in f32 (a multiple of x's ulp smaller than x, or
    // |r| ≤ 1/64 < 2²⁴ ulps when x's ulp is below 1/32, all |x| < 128 that reach here).
    let c32 = fc(b, 32.0)?;
    let x32 = b.fbin(FBin::Mul, x, c32)?;
    let kf = b.fun(super::builder::FUn::Round, x32)?;
    let inv32 = fc(b, 1.0 / 32.0)?;
    let kd32 = b.fbin(FBin::Mul, kf, inv32)?;
    let rf = b.fbin(FBin::Sub, x, kd32)?;
    // s = 2^(k/32) = 2^(k mod 32 / 32) · 2^⌊k/32⌋: the table's entry with ⌊k/32⌋ added to
    // its exponent, exactly as glibc adds k << 47 to the entry's bits.
    let ki = b.float_to_int(kf)?;
    let thirty_one = ic(b, 31)?;
    let j = b.ibin(IBin::And, ki, thirty_one)?;
    let e = b.shift_imm(Shift::ShrS, ki, 5)?;
    let t = b.d_lookup(&TABLES.exp2, j)?;
    let s = b.d_scale(t, e)?;
    // exp2(x) ≈ s · (C0·r³ + C1·r² + C2·r + 1).
    let r = b.d_from_float(rf)?;
    let [c0, c1, c2] = glibc::EXP2F_POLY;
    let (c0, c1, c2) = (b.d_const(c0)?, b.d_const(c1)?, b.d_const(c2)?);
    let one = b.d_const(1.0)?;
    let z = mul_add(b, v, c0, r, c1)?;
    let r2 = b.d_bin(FBin::Mul, r, r)?;
    let y = mul_add(b, v, c2, r, one)?;
    let y = mul_add(b, v, z, r2, y)?;
    let y = b.d_bin(FBin::Mul, y, s)?;
    let y = flush_tiny(b, y)?;
    let y = b.d_to_float(y)?;
    // |x| ≥ 128 and NaN: +inf above, 0 at or below −150 (−inf too), the computation between
    // (its tiny results flushed); NaN stays NaN.
    let big = fc(b, 128.0)?;
    let over = b.fcmp(FCmp::Ge, x, big)?;
    let inf = fc(b, f32::INFINITY)?;
    let y = b.select(over, inf, y)?;
    let low = fc(b, -150.0)?;
    let under = b.fcmp(FCmp::Le, x, low)?;
    let zero = fc(b, 0.0)?;
    let y = b.select(under, zero, y)?;
    let is_nan = b.fcmp(FCmp::Ne, x, x)?;
    let nan = fc(b, f32::from_bits(CANONICAL_NAN))?;
    b.select(is_nan, nan, y)
}

/// A double below 2⁻¹²⁶ in magnitude made +0 (every caller's result is positive or a zero):
/// x86 flushes such a result when rounding it to f32 under FTZ (tininess before rounding),
/// which LLVM's folding need not keep.
fn flush_tiny<B: SimdBuilder + ?Sized>(b: &mut B, y: B::D) -> R<B::D> {
    let min = b.d_const(f64::from(f32::MIN_POSITIVE))?;
    let tiny = b.d_lt(y, min)?;
    let zero = b.d_const(0.0)?;
    b.d_select(tiny, zero, y)
}

/// The natural logarithm of `x` (f32 lanes): glibc's `logf`, as LG2 = logf(x) · 1.442695
/// uses it.
pub(super) fn ln<B: SimdBuilder + ?Sized>(b: &mut B, x: B::V) -> R<B::V> {
    let v = Variant::host();
    // Its bits are read below: a denormal must read as the zero the CPU reads.
    let x = b.flush(x)?;
    let ix = b.cast(x, Kind::I32)?;
    // x = 2^k · z with z in [0x1.66p-1, 0x1.66p0): the same integer steps as glibc.
    let off = ic(b, glibc::LOGF_OFF)?;
    let tmp = b.ibin(IBin::Sub, ix, off)?;
    let i = b.shift_imm(Shift::ShrU, tmp, 19)?;
    let fifteen = ic(b, 15)?;
    let i = b.ibin(IBin::And, i, fifteen)?;
    let k = b.shift_imm(Shift::ShrS, tmp, 23)?;
    let top = ic(b, 0x1ff << 23)?;
    let top = b.ibin(IBin::And, tmp, top)?;
    let iz = b.ibin(IBin::Sub, ix, top)?;
    let invc = b.d_lookup(&TABLES.invc, i)?;
    let logc = b.d_lookup(&TABLES.logc, i)?;
    let zf = b.cast(iz, Kind::F32)?;
    let z = b.d_from_float(zf)?;
    let kd = b.d_from_int(k)?;
    // log(x) = log1p(z/c − 1) + log(c) + k·ln 2.
    let m1 = b.d_const(-1.0)?;
    let r = mul_add(b, v, z, invc, m1)?;
    let ln2 = b.d_const(glibc::LOGF_LN2)?;
    let y0 = mul_add(b, v, kd, ln2, logc)?;
    let r2 = b.d_bin(FBin::Mul, r, r)?;
    let [a0, a1, a2] = glibc::LOGF_POLY;
    let (a0, a1, a2) = (b.d_const(a0)?, b.d_const(a1)?, b.d_const(a2)?);
    let y = mul_add(b, v, a1, r, a2)?;
    let y = mul_add(b, v, a0, r2, y)?;
    let y0r = b.d_bin(FBin::Add, y0, r)?;
    let y = mul_add(b, v, y, r2, y0r)?;
    let y = b.d_to_float(y)?;
    // The special inputs: 1 → +0; ±0 → −inf; +inf → +inf; negative or NaN → NaN.
    let one = ic(b, 0x3f80_0000)?;
    let is_one = b.icmp(crate::ir::ICmp::Eq, ix, one)?;
    let zero = fc(b, 0.0)?;
    let y = b.select(is_one, zero, y)?;
    let inf = fc(b, f32::INFINITY)?;
    let is_inf = b.fcmp(FCmp::Eq, x, inf)?;
    let y = b.select(is_inf, inf, y)?;
    let is_zero = b.fcmp(FCmp::Eq, x, zero)?;
    let ninf = fc(b, f32::NEG_INFINITY)?;
    let y = b.select(is_zero, ninf, y)?;
    // NaN, or negative (but not −0, taken above): the compare is false for NaN.
    let ok = b.fcmp(FCmp::Ge, x, zero)?;
    let nan = fc(b, f32::from_bits(CANONICAL_NAN))?;
    b.select(ok, y, nan)
}
