//! Exact math in vector code: EX2, LG2, SIN and COS computed for a whole step of lanes in the target's
//! double-precision lanes, operation for operation as glibc computes `exp2f`, `logf`, `sinf`
//! and `cosf` (glibc's reduction of |x| ≥ 120 against 4/π's bits in 64-bit integers in
//! pairs of 32-bit lanes), and POW as `powf`
//! ([`crate::numerics::glibc`], checked there against the C library on every input), so the
//! results are the interpreter's bit for bit with no call into the host.
//!
//! Each step below names the scalar reference's. Where the reference works on the bits of a
//! double (`exp2f`'s index into its table, `logf`'s split of x), the vector form works on the
//! f32 lanes it comes from, with the same value; the notes say why each is exact.

use super::builder::{ExactFn, FBin, IBin, Kind, R, Shift, SimdBuilder};
use crate::ir::FCmp;
use crate::numerics::CANONICAL_NAN;
use crate::numerics::glibc::{self, Variant};

/// `f` of `args` (f32 lanes) as the back end computes it: by calling one copy of it where it
/// does ([`SimdBuilder::call_exact`]), else in place ([`inline`]).
///
/// # Errors
/// As the builder's operations and [`inline`].
pub fn exact<B: SimdBuilder + ?Sized>(b: &mut B, f: ExactFn, args: &[B::V]) -> R<[B::V; 2]> {
    match b.call_exact(f, args)? {
        Some(ys) => Ok(ys),
        None => inline(b, f, args),
    }
}

/// [`exact`] where the code rarely needs it ([`SimdBuilder::call_exact_rarely`]).
///
/// # Errors
/// As [`exact`].
pub fn exact_rarely<B: SimdBuilder + ?Sized>(b: &mut B, f: ExactFn, args: &[B::V]) -> R<[B::V; 2]> {
    match b.call_exact_rarely(f, args)? {
        Some(ys) => Ok(ys),
        None => inline(b, f, args),
    }
}

/// `f` of `args` (f32 lanes: [`ExactFn::arity`] of them) computed in place: its results
/// first (the second is the first again where `f` has one).
///
/// # Errors
/// As the builder's operations; [`JitError::Invariant`](crate::back::abi::JitError::Invariant) for the
/// wrong number of operands.
pub fn inline<B: SimdBuilder + ?Sized>(b: &mut B, f: ExactFn, args: &[B::V]) -> R<[B::V; 2]> {
    f.check_arity(args.len())?;
    let one = |y: B::V| [y, y];
    Ok(match f {
        ExactFn::Exp2 => one(exp2(b, args[0])?),
        ExactFn::Ln => one(ln(b, args[0])?),
        ExactFn::Pow => one(pow(b, args[0], args[1])?),
        ExactFn::SinCos => sincos_step(b, args[0])?,
    })
}

/// SIN and COS of `x` ([`sincos`]) with the integer part of the large reduction computed only
/// in steps that have a large argument (zeros elsewhere, where no lane reads them).
fn sincos_step<B: SimdBuilder + ?Sized>(b: &mut B, x: B::V) -> R<[B::V; 2]> {
    let large = sincos_large_lanes(b, x)?;
    let zero = ic(b, 0)?;
    let words = where_any(b, large, Kind::I32, [zero; 3], |b| reduce_large(b, x))?;
    sincos(b, x, words)
}

/// `compute`'s vectors (of `kind`) in the steps where a lane of `mask` is set, computed in a
/// branch only those steps take; `otherwise` in the others.
pub(super) fn where_any<B: SimdBuilder + ?Sized, const N: usize>(
    b: &mut B,
    mask: B::V,
    kind: Kind,
    otherwise: [B::V; N],
    compute: impl FnOnce(&mut B) -> R<[B::V; N]>,
) -> R<[B::V; N]> {
    let any = b.any(mask)?;
    let mut vars = Vec::with_capacity(N);
    for &v in &otherwise {
        let var = b.vector_var(kind)?;
        b.def_vector(var, v)?;
        vars.push(var);
    }
    let (with, join) = (b.block()?, b.block()?);
    b.branch(any, with, join)?;
    b.switch_to(with)?;
    let computed = compute(b)?;
    for (&var, v) in vars.iter().zip(computed) {
        b.def_vector(var, v)?;
    }
    b.jump(join)?;
    b.switch_to(join)?;
    let mut out = otherwise;
    for (o, &var) in out.iter_mut().zip(&vars) {
        *o = b.use_vector(var)?;
    }
    Ok(out)
}

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
    log2c: [f64; 16],
    /// `sinf`'s 4/π bits, each 32-bit word as the i32 of its bits (a double holds it exactly
    /// and converts back with a truncating conversion).
    inv_pio4: [f64; 24],
}

static TABLES: std::sync::LazyLock<Tables> = std::sync::LazyLock::new(|| Tables {
    exp2: std::array::from_fn(|j| {
        f64::from_bits(glibc::EXP2F_TABLE[j].wrapping_add((j as u64) << 47))
    }),
    invc: std::array::from_fn(|i| f64::from_bits(glibc::LOGF_TABLE[i].0)),
    logc: std::array::from_fn(|i| f64::from_bits(glibc::LOGF_TABLE[i].1)),
    log2c: std::array::from_fn(|i| f64::from_bits(glibc::POWF_LOG2C[i])),
    inv_pio4: std::array::from_fn(|i| f64::from(glibc::sincosf::INV_PIO4[i] as i32)),
});

/// A splat of `x`'s bits as f32 lanes.
pub(super) fn fc<B: SimdBuilder + ?Sized>(b: &mut B, x: f32) -> R<B::V> {
    b.splat_const(Kind::F32, x.to_bits())
}

pub(super) fn ic<B: SimdBuilder + ?Sized>(b: &mut B, x: u32) -> R<B::V> {
    b.splat_const(Kind::I32, x)
}

/// EX2 of `x` (f32 lanes, as the CPU reads them): glibc's `exp2f`.
fn exp2<B: SimdBuilder + ?Sized>(b: &mut B, x: B::V) -> R<B::V> {
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
    let ki = b.float_to_int(kf)?;
    let r = b.d_from_float(rf)?;
    let y = exp2_reduced(b, v, ki, r)?;
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

/// 2^(k/32 + r) for integer lanes `ki` = k and double lanes `r` (|r| ≤ 1/64), as glibc's
/// `exp2f` and `powf` compute it, a result below 2⁻¹²⁶ flushed: s · (C0·r³ + C1·r² + C2·r + 1)
/// with s = 2^(k/32) = 2^(k mod 32 / 32) · 2^⌊k/32⌋, the table's entry with ⌊k/32⌋ added to its
/// exponent, exactly as glibc adds k << 47 to the entry's bits.
fn exp2_reduced<B: SimdBuilder + ?Sized>(b: &mut B, v: Variant, ki: B::V, r: B::D) -> R<B::D> {
    let thirty_one = ic(b, 31)?;
    let j = b.ibin(IBin::And, ki, thirty_one)?;
    let e = b.shift_imm(Shift::ShrS, ki, 5)?;
    let t = b.d_lookup(&TABLES.exp2, j)?;
    let s = b.d_scale(t, e)?;
    let [c0, c1, c2] = glibc::EXP2F_POLY;
    let (c0, c1, c2) = (b.d_const(c0)?, b.d_const(c1)?, b.d_const(c2)?);
    let one = b.d_const(1.0)?;
    let z = mul_add(b, v, c0, r, c1)?;
    let r2 = b.d_bin(FBin::Mul, r, r)?;
    let y = mul_add(b, v, c2, r, one)?;
    let y = mul_add(b, v, z, r2, y)?;
    let y = b.d_bin(FBin::Mul, y, s)?;
    flush_tiny(b, y)
}

/// x = 2^k · z with z in [0x1.66p-1, 0x1.66p0), from the bits `ix` of a positive x, by
/// glibc's integer steps (`logf`, `powf`): the table index i (0..16), k, and z as doubles.
fn split_log<B: SimdBuilder + ?Sized>(b: &mut B, ix: B::V) -> R<(B::V, B::V, B::D)> {
    let off = ic(b, glibc::LOGF_OFF)?;
    let tmp = b.ibin(IBin::Sub, ix, off)?;
    let i = b.shift_imm(Shift::ShrU, tmp, 19)?;
    let fifteen = ic(b, 15)?;
    let i = b.ibin(IBin::And, i, fifteen)?;
    let k = b.shift_imm(Shift::ShrS, tmp, 23)?;
    let top = ic(b, 0x1ff << 23)?;
    let top = b.ibin(IBin::And, tmp, top)?;
    let iz = b.ibin(IBin::Sub, ix, top)?;
    let zf = b.cast(iz, Kind::F32)?;
    let z = b.d_from_float(zf)?;
    Ok((i, k, z))
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
fn ln<B: SimdBuilder + ?Sized>(b: &mut B, x: B::V) -> R<B::V> {
    let v = Variant::host();
    // Its bits are read below: a denormal must read as the zero the CPU reads.
    let x = b.flush(x)?;
    let ix = b.cast(x, Kind::I32)?;
    let (i, k, z) = split_log(b, ix)?;
    let invc = b.d_lookup(&TABLES.invc, i)?;
    let logc = b.d_lookup(&TABLES.logc, i)?;
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

/// The mask of the lanes whose SIN and COS need glibc's reduction of large arguments:
/// finite |x| ≥ 120 (`x` flushed or not: a denormal is small either way).
fn sincos_large_lanes<B: SimdBuilder + ?Sized>(b: &mut B, x: B::V) -> R<B::V> {
    let ax = b.fun(super::builder::FUn::Abs, x)?;
    let limit = fc(b, 120.0)?;
    let large = b.fcmp(FCmp::Ge, ax, limit)?;
    let inf = fc(b, f32::INFINITY)?;
    let finite = b.fcmp(FCmp::Lt, ax, inf)?;
    b.ibin(IBin::And, large, finite)
}

/// SIN and COS of `x` (f32 lanes) as glibc's `sinf` and `cosf` compute them, from one
/// reduction (the two share it and both polynomials, and differ only in which polynomial a
/// quadrant takes); NaN for inf and NaN. `large` is [`reduce_large`]'s words for the lanes of
/// [`sincos_large_lanes`], read only in those lanes (the caller computes them only in steps
/// that have such a lane, and passes any words otherwise: most shaders never need them).
fn sincos<B: SimdBuilder + ?Sized>(b: &mut B, x: B::V, large: [B::V; 3]) -> R<[B::V; 2]> {
    use glibc::sincosf::{C, HPI, HPI_INV, S};
    let v = Variant::host();
    let x = b.flush(x)?;
    let ax = b.fun(super::builder::FUn::Abs, x)?;
    let limit = fc(b, 120.0)?;
    let fast = b.fcmp(FCmp::Lt, ax, limit)?;
    let inf = fc(b, f32::INFINITY)?;
    let finite = b.fcmp(FCmp::Lt, ax, inf)?;
    let zero = fc(b, 0.0)?;
    let xs = b.select(fast, x, zero)?;
    let xd = b.d_from_float(xs)?;
    // n = x·2/π rounded (ties up), through 2/π · 2²⁴ and an integer shift as glibc does;
    // x − n·π/2 (below π/4, n = 0 and this is x itself, as glibc's first branch takes it).
    let hpi_inv = b.d_const(HPI_INV)?;
    let r = b.d_bin(FBin::Mul, xd, hpi_inv)?;
    let ri = b.d_to_int(r)?;
    let half = ic(b, 0x80_0000)?;
    let n = b.ibin(IBin::Add, ri, half)?;
    let n = b.shift_imm(Shift::ShrS, n, 24)?;
    let nd = b.d_from_int(n)?;
    let mhpi = b.d_const(-HPI)?;
    let rx = mul_add(b, v, nd, mhpi, xd)?;
    // The large lanes' reduction; the quadrant q that picks the signs is n, but for a large
    // x, which glibc reduces from |x|, n plus x's sign bit.
    let [hi, lo, nl] = large;
    let rl = large_radians(b, hi, lo)?;
    let xi = b.cast(x, Kind::I32)?;
    let sign = b.shift_imm(Shift::ShrU, xi, 31)?;
    let ql = b.ibin(IBin::Add, nl, sign)?;
    let q = b.select(fast, n, ql)?;
    let n = b.select(fast, n, nl)?;
    let rx = b.d_select(fast, rx, rl)?;
    // Signs by quadrant (+ − − +) on x, the cosine's coefficients negated in quadrants 2
    // and 3 (which negates its polynomial exactly: every term and sum changes sign), and the
    // polynomial: sin's for an even n, cos's for an odd (COS: the other way round).
    let one_i = ic(b, 1)?;
    let two_i = ic(b, 2)?;
    let zero_i = ic(b, 0)?;
    let q1 = b.ibin(IBin::Add, q, one_i)?;
    let q1 = b.ibin(IBin::And, q1, two_i)?;
    let minus = b.icmp(crate::ir::ICmp::Ne, q1, zero_i)?;
    let q2 = b.ibin(IBin::And, q, two_i)?;
    let negated = b.icmp(crate::ir::ICmp::Ne, q2, zero_i)?;
    let n_odd = b.ibin(IBin::And, n, one_i)?;
    let odd = b.icmp(crate::ir::ICmp::Ne, n_odd, zero_i)?;
    let (p1, m1) = (b.d_const(1.0)?, b.d_const(-1.0)?);
    let sign = b.d_select(minus, m1, p1)?;
    let xr = b.d_bin(FBin::Mul, rx, sign)?;
    let x2 = b.d_bin(FBin::Mul, rx, rx)?;
    // sin: x + S1·x³ + (S2 + S3·x²)·x⁷.
    let (s1, s2, s3) = (b.d_const(S[0])?, b.d_const(S[1])?, b.d_const(S[2])?);
    let x3 = b.d_bin(FBin::Mul, xr, x2)?;
    let t = mul_add(b, v, x2, s3, s2)?;
    let x7 = b.d_bin(FBin::Mul, x3, x2)?;
    let u = mul_add(b, v, x3, s1, xr)?;
    let ys = mul_add(b, v, x7, t, u)?;
    // cos: C0 + C1·x² + C2·x⁴ + (C3 + C4·x²)·x⁶.
    let c = [
        b.d_const(C[0])?,
        b.d_const(C[1])?,
        b.d_const(C[2])?,
        b.d_const(C[3])?,
    ];
    let x4 = b.d_bin(FBin::Mul, x2, x2)?;
    let d2 = mul_add(b, v, x2, c[3], c[2])?;
    let d1 = mul_add(b, v, x2, c[0], p1)?;
    let x6 = b.d_bin(FBin::Mul, x4, x2)?;
    let e = mul_add(b, v, x4, c[1], d1)?;
    let yc = mul_add(b, v, x6, d2, e)?;
    let flip = b.d_select(negated, m1, p1)?;
    let yc = b.d_bin(FBin::Mul, yc, flip)?;
    let nan = fc(b, f32::from_bits(CANONICAL_NAN))?;
    let tiny = fc(b, f32::from_bits(0x3980_0000))?;
    let is_tiny = b.fcmp(FCmp::Lt, ax, tiny)?;
    let mut out = [x; 2];
    for (k, y) in out.iter_mut().enumerate() {
        let (even, odd_y) = if k == 0 { (ys, yc) } else { (yc, ys) };
        let r = b.d_select(odd, odd_y, even)?;
        let r = b.d_to_float(r)?;
        // |x| < 2⁻¹²: sin x = x, cos x = 1; inf and NaN: NaN.
        let small = if k == 0 { x } else { fc(b, 1.0)? };
        let r = b.select(is_tiny, small, r)?;
        *y = b.select(finite, r, nan)?;
    }
    Ok(out)
}

/// Lane l: INV_PIO4[off + idx[l]] (idx below 16), its bits as i32. Where the target permutes
/// lanes by index in one instruction, from the 16 words as constant vectors (one permute at
/// 16 lanes and more, two and a select at 8): no memory access; else a gather of `table`
/// (the words as doubles) and a conversion.
fn window_word<B: SimdBuilder + ?Sized>(
    b: &mut B,
    table: &'static [f64],
    off: usize,
    idx: B::V,
) -> R<B::V> {
    use super::builder::{Optional, Scalar};
    let lanes = b.lanes();
    if !b.supports(Optional::Permute) || lanes < 8 {
        let o = ic(b, off as u32)?;
        let i = b.ibin(IBin::Add, idx, o)?;
        let d = b.d_lookup(table, i)?;
        return b.d_to_int(d);
    }
    let words = &glibc::sincosf::INV_PIO4[off..off + 16];
    let mut parts = Vec::new();
    for chunk in 0..16usize.div_ceil(lanes) {
        let mut v = ic(b, 0)?;
        for l in 0..lanes {
            let w = words[(chunk * lanes + l) % 16];
            let w = b.sconst(Scalar::I32, i64::from(w as i32))?;
            v = b.insert(v, l, w)?;
        }
        parts.push(b.optional(Optional::Permute, &[v, idx])?);
    }
    match parts[..] {
        [one] => Ok(one),
        [low, high] => {
            // Permutes read idx mod 8: the high words where idx ≥ 8.
            let eight = ic(b, 8)?;
            let is_low = b.icmp(crate::ir::ICmp::SLt, idx, eight)?;
            b.select(is_low, low, high)
        }
        _ => unreachable!("8 lanes or more"),
    }
}

/// glibc's `reduce_large`, its integer part, for the lanes of `x` (f32) that are finite with
/// |x| ≥ 120: x·4/π's fraction as a 2.62 fixed-point number from three 32-bit windows of
/// 4/π's bits (which window, by x's exponent), reduced to [−1/2, 1/2) quadrants; returns its
/// (high, low) words and the quadrant n (lanes of other x hold garbage, which
/// [`sincos`] does not read). glibc computes in 64-bit integers; here each 64-bit value is a
/// pair of 32-bit lanes: the products' high halves by the unsigned high multiply, the carry
/// of the low halves' sum by an unsigned compare. [`sincos`] converts the words to radians.
/// Integer lanes only, so the caller can branch around it and join its results as vectors.
fn reduce_large<B: SimdBuilder + ?Sized>(b: &mut B, x: B::V) -> R<[B::V; 3]> {
    use super::builder::Optional;
    let xi = b.cast(x, Kind::I32)?;
    let table: &'static [f64] = &TABLES.inv_pio4;
    // The window: arr = INV_PIO4[(xi >> 26) & 15 ..]; m = the significand << ((xi >> 23) & 7).
    let idx = b.shift_imm(Shift::ShrU, xi, 26)?;
    let c15 = ic(b, 15)?;
    let idx = b.ibin(IBin::And, idx, c15)?;
    let sh = b.shift_imm(Shift::ShrU, xi, 23)?;
    let c7 = ic(b, 7)?;
    let sh = b.ibin(IBin::And, sh, c7)?;
    let mant_mask = ic(b, 0x7f_ffff)?;
    let mant = b.ibin(IBin::And, xi, mant_mask)?;
    let implicit = ic(b, 0x80_0000)?;
    let mant = b.ibin(IBin::Or, mant, implicit)?;
    let m = b.optional(Optional::Shift(Shift::Shl), &[mant, sh])?;
    let mut arr = [m; 3];
    for (k, a) in arr.iter_mut().enumerate() {
        *a = window_word(b, table, 4 * k, idx)?;
    }
    let high = Optional::MulHigh { signed: false };
    // res0 = m·arr[0] mod 2³² (the high word); res1 = m·arr[4]; res2 = m·arr[8] (its high
    // word is the low word of the sum).
    let r0 = b.ibin(IBin::Mul, m, arr[0])?;
    let lo1 = b.ibin(IBin::Mul, m, arr[1])?;
    let hi1 = b.optional(high, &[m, arr[1]])?;
    let hi2 = b.optional(high, &[m, arr[2]])?;
    // res0 = ((res2 >> 32) | (res0 << 32)) + res1.
    let lo = b.ibin(IBin::Add, hi2, lo1)?;
    let carry = b.icmp(crate::ir::ICmp::ULt, lo, lo1)?;
    let carry = b.cast(carry, Kind::I32)?; // −1 where a carry
    let hi = b.ibin(IBin::Add, r0, hi1)?;
    let hi = b.ibin(IBin::Sub, hi, carry)?;
    // n = (res0 + 2⁶¹) >> 62; res0 −= n << 62 (only the high word changes).
    let bias = ic(b, 1 << 29)?;
    let nb = b.ibin(IBin::Add, hi, bias)?;
    let n = b.shift_imm(Shift::ShrU, nb, 30)?;
    let n30 = b.shift_imm(Shift::Shl, n, 30)?;
    let hi = b.ibin(IBin::Sub, hi, n30)?;
    Ok([hi, lo, n])
}

/// `(double)(int64)(hi·2³² + lo) · π/2⁶²`, the radians of [`reduce_large`]'s words: lo as
/// unsigned is (lo − 2³¹ as i32) + 2³¹, exact; hi·2³² + lo has the one rounding of glibc's
/// i64 → f64 conversion (both terms are exact doubles).
fn large_radians<B: SimdBuilder + ?Sized>(b: &mut B, hi: B::V, lo: B::V) -> R<B::D> {
    let hd = b.d_from_int(hi)?;
    let two32 = b.d_const(4_294_967_296.0)?;
    let hd = b.d_bin(FBin::Mul, hd, two32)?;
    let flip = ic(b, 0x8000_0000)?;
    let los = b.ibin(IBin::Xor, lo, flip)?;
    let lod = b.d_from_int(los)?;
    let two31 = b.d_const(2_147_483_648.0)?;
    let lod = b.d_bin(FBin::Add, lod, two31)?;
    let r = b.d_bin(FBin::Add, hd, lod)?;
    let pi63 = b.d_const(glibc::sincosf::PI63)?;
    b.d_bin(FBin::Mul, r, pi63)
}

/// POW of `x` and `y` (f32 lanes): glibc's `powf`, its special cases as selects.
fn pow<B: SimdBuilder + ?Sized>(b: &mut B, x: B::V, y: B::V) -> R<B::V> {
    use super::builder::FUn;
    use crate::ir::ICmp;
    let v = Variant::host();
    // Whether x or y is a signaling NaN, from their bits before the flush (which may be
    // arithmetic, and quiet them).
    let x_snan = {
        let ix = b.cast(x, Kind::I32)?;
        signaling(b, x, ix)?
    };
    let y_snan = {
        let iy = b.cast(y, Kind::I32)?;
        signaling(b, y, iy)?
    };
    let (x, y) = (b.flush(x)?, b.flush(y)?);
    let ix = b.cast(x, Kind::I32)?;
    let zero = fc(b, 0.0)?;
    let one = fc(b, 1.0)?;
    let inf = fc(b, f32::INFINITY)?;
    let nan = fc(b, f32::from_bits(CANONICAL_NAN))?;
    // Whether y is an integer, and an odd one (y · 0.5 is exact; every |y| ≥ 2²⁴ is even).
    let ty = b.fun(FUn::Trunc, y)?;
    let is_int = b.fcmp(FCmp::Eq, ty, y)?;
    let half = fc(b, 0.5)?;
    let hy = b.fbin(FBin::Mul, y, half)?;
    let thy = b.fun(FUn::Trunc, hy)?;
    let half_frac = b.fcmp(FCmp::Ne, thy, hy)?;
    let is_odd = b.ibin(IBin::And, is_int, half_frac)?;
    let x_neg = b.fcmp(FCmp::Lt, x, zero)?;
    let neg_result = b.ibin(IBin::And, x_neg, is_odd)?;
    // The main case: log2 |x| in double, y · log2 |x|, 2 to that.
    let abs_mask = ic(b, 0x7fff_ffff)?;
    let ixa = b.ibin(IBin::And, ix, abs_mask)?;
    let (i, k, z) = split_log(b, ixa)?;
    let invc = b.d_lookup(&TABLES.invc, i)?;
    let logc = b.d_lookup(&TABLES.log2c, i)?;
    let m1 = b.d_const(-1.0)?;
    let r = mul_add(b, v, z, invc, m1)?;
    let kd = b.d_from_int(k)?;
    let y0 = b.d_bin(FBin::Add, logc, kd)?;
    let a = glibc::POWF_POLY;
    let a: Vec<B::D> = a.iter().map(|&c| b.d_const(c)).collect::<R<_>>()?;
    let r2 = b.d_bin(FBin::Mul, r, r)?;
    let p0 = mul_add(b, v, a[0], r, a[1])?;
    let p = mul_add(b, v, a[2], r, a[3])?;
    let r4 = b.d_bin(FBin::Mul, r2, r2)?;
    let q = mul_add(b, v, a[4], r, y0)?;
    let q = mul_add(b, v, p, r2, q)?;
    let logx = mul_add(b, v, p0, r4, q)?;
    let yd = b.d_from_float(y)?;
    let ylogx = b.d_bin(FBin::Mul, yd, logx)?;
    // 2^ylogx: k/32 = ylogx rounded to a multiple of 1/32 as glibc's + 1.5·2⁴⁷ rounds it.
    let shift = b.d_const(glibc::EXP2F_SHIFT)?;
    let ks = b.d_bin(FBin::Add, ylogx, shift)?;
    let kd = b.d_bin(FBin::Sub, ks, shift)?;
    let rr = b.d_bin(FBin::Sub, ylogx, kd)?;
    // Lanes outside the range that matters (overflow, underflow, and the special cases'
    // garbage) must not reach the integer conversion out of range: clamp first.
    // (NaN, from the special cases' lanes, becomes the lower bound: an index from it would
    // address memory anywhere.)
    let lo = b.d_const(-160.0)?;
    let hi = b.d_const(160.0)?;
    let in_range = b.d_lt(lo, kd)?;
    let kc = b.d_select(in_range, kd, lo)?;
    let above = b.d_lt(hi, kc)?;
    let kc = b.d_select(above, hi, kc)?;
    let k32 = b.d_const(32.0)?;
    let kc = b.d_bin(FBin::Mul, kc, k32)?;
    let ki = b.d_to_int(kc)?;
    let w = exp2_reduced(b, v, ki, rr)?;
    let res = b.d_to_float(w)?;
    // Overflow and underflow.
    let oflow = b.d_const(glibc::POWF_OFLOW)?;
    let over = b.d_lt(oflow, ylogx)?;
    let res = b.select(over, inf, res)?;
    let m150 = b.d_const(-150.0)?;
    let above150 = b.d_lt(m150, ylogx)?;
    let res = b.select(above150, res, zero)?;
    // A negative x: NaN unless y is an integer; negated for an odd one.
    let nres = b.fun(FUn::Neg, res)?;
    let res = b.select(neg_result, nres, res)?;
    let not_int = b.not(is_int)?;
    let bad = b.ibin(IBin::And, x_neg, not_int)?;
    let res = b.select(bad, nan, res)?;
    // x zero, inf or NaN (y finite, non-zero): x², negated for a negative x and odd y, its
    // reciprocal for a negative y.
    let ax = b.fun(FUn::Abs, x)?;
    let x_zero = b.fcmp(FCmp::Eq, x, zero)?;
    let x_inf = b.fcmp(FCmp::Eq, ax, inf)?;
    let x_nan = b.fcmp(FCmp::Ne, x, x)?;
    let x_zin = b.ibin(IBin::Or, x_zero, x_inf)?;
    let x_zin = b.ibin(IBin::Or, x_zin, x_nan)?;
    let x2 = b.fbin(FBin::Mul, x, x)?;
    let nx2 = b.fun(FUn::Neg, x2)?;
    let sign_bit = ic(b, 0x8000_0000)?;
    let sx = b.ibin(IBin::And, ix, sign_bit)?;
    let zero_i = ic(b, 0)?;
    let x_signed = b.icmp(ICmp::Ne, sx, zero_i)?;
    let flip = b.ibin(IBin::And, x_signed, is_odd)?;
    let x2 = b.select(flip, nx2, x2)?;
    let rx2 = b.fbin(FBin::Div, one, x2)?;
    let y_neg = b.fcmp(FCmp::Lt, y, zero)?;
    let zres = b.select(y_neg, rx2, x2)?;
    let zres = b.select(x_nan, nan, zres)?;
    let res = b.select(x_zin, zres, res)?;
    // y zero, inf or NaN.
    let ay = b.fun(FUn::Abs, y)?;
    let y_zero = b.fcmp(FCmp::Eq, y, zero)?;
    let y_inf = b.fcmp(FCmp::Eq, ay, inf)?;
    let y_nan = b.fcmp(FCmp::Ne, y, y)?;
    // |x| < 1 with y = +inf, or |x| > 1 with y = −inf: 0; |x| = 1: 1; else inf.
    let ax_lt1 = b.fcmp(FCmp::Lt, ax, one)?;
    let y_pos = b.fcmp(FCmp::Gt, y, zero)?;
    let to_zero = b.icmp(ICmp::Eq, ax_lt1, y_pos)?;
    let ires = b.select(to_zero, zero, inf)?;
    let ax_one = b.fcmp(FCmp::Eq, ax, one)?;
    let ires = b.select(ax_one, one, ires)?;
    let any_nan = b.ibin(IBin::Or, x_nan, y_nan)?;
    let ires = b.select(any_nan, nan, ires)?;
    // x = 1: 1, unless y is a signaling NaN.
    let one_i = ic(b, 0x3f80_0000)?;
    let x_one = b.icmp(ICmp::Eq, ix, one_i)?;
    let xr1 = b.select(y_snan, nan, one)?;
    let ires = b.select(x_one, xr1, ires)?;
    // y = ±0: 1, unless x is a signaling NaN.
    let yr0 = b.select(x_snan, nan, one)?;
    let ires = b.select(y_zero, yr0, ires)?;
    let y_zin = b.ibin(IBin::Or, y_zero, y_inf)?;
    let y_zin = b.ibin(IBin::Or, y_zin, y_nan)?;
    b.select(y_zin, ires, res)
}

/// A signaling NaN: a NaN whose quiet bit is clear.
fn signaling<B: SimdBuilder + ?Sized>(b: &mut B, x: B::V, ix: B::V) -> R<B::V> {
    let is_nan = b.fcmp(FCmp::Ne, x, x)?;
    let quiet = ic(b, 0x0040_0000)?;
    let q = b.ibin(IBin::And, ix, quiet)?;
    let zero_i = ic(b, 0)?;
    let clear = b.icmp(crate::ir::ICmp::Eq, q, zero_i)?;
    b.ibin(IBin::And, is_nan, clear)
}
