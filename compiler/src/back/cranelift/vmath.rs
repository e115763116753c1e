//! Fast-mode vector approximations (`--math fast`), F32X4 in, F32X4 out, evaluated under
//! DAZ/FTZ. Worst-case errors against the correctly rounded result (f64 reference), measured by
//! the dense sweeps in `tests` below (`cargo test -p tgsic --release vmath -- --nocapture`
//! prints them):
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

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{ConstantData, Endianness, InstBuilder, MemFlagsData, Value, types};
use cranelift_frontend::FunctionBuilder;

fn k(b: &mut FunctionBuilder, bits: u32, ty: types::Type) -> Value {
    let bytes: Vec<u8> = [bits; 4].iter().flat_map(|w| w.to_le_bytes()).collect();
    let c = b.func.dfg.constants.insert(ConstantData::from(bytes));
    b.ins().vconst(ty, c)
}

fn f(b: &mut FunctionBuilder, x: f32) -> Value {
    k(b, x.to_bits(), types::F32X4)
}

fn i(b: &mut FunctionBuilder, x: u32) -> Value {
    k(b, x, types::I32X4)
}

fn cast(b: &mut FunctionBuilder, v: Value, ty: types::Type) -> Value {
    if b.func.dfg.value_type(v) == ty {
        v
    } else {
        b.ins().bitcast(
            ty,
            MemFlagsData::new().with_endianness(Endianness::Little),
            v,
        )
    }
}

/// `c ? x : y` with `c` a comparison result.
fn sel(b: &mut FunctionBuilder, c: Value, x: Value, y: Value) -> Value {
    let ty = b.func.dfg.value_type(x);
    let c = cast(b, c, ty);
    let y = cast(b, y, ty);
    b.ins().bitselect(c, x, y)
}

/// Horner evaluation of `c[0] + c[1]·t + …`.
fn poly(b: &mut FunctionBuilder, t: Value, c: &[f32]) -> Value {
    let mut acc = f(b, c[c.len() - 1]);
    for &ci in c[..c.len() - 1].iter().rev() {
        let m = b.ins().fmul(acc, t);
        let cv = f(b, ci);
        acc = b.ins().fadd(m, cv);
    }
    acc
}

/// 2^x.
pub fn exp2(b: &mut FunctionBuilder, x: Value) -> Value {
    let lo = f(b, -127.0);
    let hi = f(b, 128.0);
    // Clamp (NaN is restored at the end); round to the nearest integer n, |t| ≤ 0.5.
    let c = b.ins().fcmp(FloatCC::GreaterThan, x, lo);
    let xc = sel(b, c, x, lo);
    let c = b.ins().fcmp(FloatCC::LessThan, xc, hi);
    let xc = sel(b, c, xc, hi);
    let n = b.ins().nearest(xc);
    let t = b.ins().fsub(xc, n);
    // 2^t = e^(t·ln 2): Taylor to degree 7 (remainder below 2⁻²⁶ on |t| ≤ 0.5).
    let ln2 = std::f64::consts::LN_2;
    let coef: Vec<f32> = (0..8)
        .map(|j| (ln2.powi(j) / (1..=j).map(f64::from).product::<f64>()) as f32)
        .collect();
    let p = poly(b, t, &coef);
    // 2^n in two exact steps (n/2 and the rest, each within the normal range), so only the
    // final product rounds — and flushes to zero or overflows where the true result does.
    let ni = b.ins().fcvt_to_sint_sat(types::I32X4, n);
    let na = b.ins().sshr_imm_u(ni, 1);
    let nb = b.ins().isub(ni, na);
    let bias = i(b, 127);
    let mut r = p;
    for part in [na, nb] {
        let e = b.ins().iadd(part, bias);
        let e = b.ins().ishl_imm_u(e, 23);
        let scale = cast(b, e, types::F32X4);
        r = b.ins().fmul(r, scale);
    }
    // 2^128 overflows to inf even where p < 1.
    let big = b.ins().fcmp(FloatCC::GreaterThanOrEqual, x, hi);
    let inf = f(b, f32::INFINITY);
    let r = sel(b, big, inf, r);
    let nan = b.ins().fcmp(FloatCC::Unordered, x, x);
    sel(b, nan, x, r)
}

/// log2(x).
pub fn lg2(b: &mut FunctionBuilder, x: Value) -> Value {
    let bits = cast(b, x, types::I32X4);
    let e = b.ins().ushr_imm_u(bits, 23);
    let ff = i(b, 0xFF);
    let e = b.ins().band(e, ff);
    let bias = i(b, 127);
    let e = b.ins().isub(e, bias);
    let mant = i(b, 0x007F_FFFF);
    let m = b.ins().band(bits, mant);
    let one = i(b, 0x3F80_0000);
    let m = b.ins().bor(m, one);
    let m = cast(b, m, types::F32X4);
    // m in [1, 2): halve above √2, so m in [√2/2, √2).
    let sqrt2 = f(b, std::f32::consts::SQRT_2);
    let big = b.ins().fcmp(FloatCC::GreaterThan, m, sqrt2);
    let half = f(b, 0.5);
    let mh = b.ins().fmul(m, half);
    let m = sel(b, big, mh, m);
    let big_i = cast(b, big, types::I32X4);
    let e = b.ins().isub(e, big_i); // big is −1 where set
    let ef = b.ins().fcvt_from_sint(types::F32X4, e);
    // log2(m) = 2/ln2 · atanh(t), t = (m − 1)/(m + 1), |t| ≤ 0.1716.
    let onef = f(b, 1.0);
    let num = b.ins().fsub(m, onef);
    let den = b.ins().fadd(m, onef);
    let t = b.ins().fdiv(num, den);
    let t2 = b.ins().fmul(t, t);
    let s = poly(b, t2, &[1.0, 1.0 / 3.0, 1.0 / 5.0, 1.0 / 7.0, 1.0 / 9.0]);
    let ts = b.ins().fmul(t, s);
    let c = f(b, (2.0 / std::f64::consts::LN_2) as f32);
    let lm = b.ins().fmul(ts, c);
    let r = b.ins().fadd(ef, lm);
    // Special values: 0 (and denormals, under DAZ) → −inf, x < 0 → NaN, inf → inf, NaN.
    let z = f(b, 0.0);
    let is0 = b.ins().fcmp(FloatCC::Equal, x, z);
    let ninf = f(b, f32::NEG_INFINITY);
    let r = sel(b, is0, ninf, r);
    let neg = b.ins().fcmp(FloatCC::LessThan, x, z);
    let nan = f(b, f32::NAN);
    let r = sel(b, neg, nan, r);
    let inf = f(b, f32::INFINITY);
    let isinf = b.ins().fcmp(FloatCC::Equal, x, inf);
    let r = sel(b, isinf, inf, r);
    let un = b.ins().fcmp(FloatCC::Unordered, x, x);
    sel(b, un, x, r)
}

/// (sin x, cos x) by quadrant reduction and polynomials on [−π/4, π/4].
fn sincos(b: &mut FunctionBuilder, x: Value, want_cos: bool) -> Value {
    let two_over_pi = f(b, std::f32::consts::FRAC_2_PI);
    let q = b.ins().fmul(x, two_over_pi);
    let q = b.ins().nearest(q);
    // r = x − q·π/2 in three parts (Cody–Waite).
    let (c1, c2, c3) = (1.570_312_5f32, 4.837_513e-4f32, 7.549_79e-8f32);
    let mut r = x;
    for c in [c1, c2, c3] {
        let cv = f(b, c);
        let m = b.ins().fmul(q, cv);
        r = b.ins().fsub(r, m);
    }
    let r2 = b.ins().fmul(r, r);
    let sp = poly(
        b,
        r2,
        &[1.0, -1.0 / 6.0, 1.0 / 120.0, -1.0 / 5040.0, 1.0 / 362_880.0],
    );
    let s = b.ins().fmul(r, sp);
    let c = poly(
        b,
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
    let n = b.ins().fcvt_to_sint_sat(types::I32X4, q);
    let n = if want_cos {
        let one = i(b, 1);
        b.ins().iadd(n, one)
    } else {
        n
    };
    let one = i(b, 1);
    let odd = b.ins().band(n, one);
    let zero = i(b, 0);
    let odd = b.ins().icmp(IntCC::NotEqual, odd, zero);
    let v = sel(b, odd, c, s);
    let two = i(b, 2);
    let neg = b.ins().band(n, two);
    let neg = b.ins().ishl_imm_u(neg, 30); // bit 1 → the sign bit
    let vi = cast(b, v, types::I32X4);
    let vi = b.ins().bxor(vi, neg);
    let r = cast(b, vi, types::F32X4);
    // inf and NaN give NaN.
    let ax = b.ins().fabs(x);
    let inf = f(b, f32::INFINITY);
    let bad = b
        .ins()
        .fcmp(FloatCC::UnorderedOrGreaterThanOrEqual, ax, inf);
    let nan = f(b, f32::NAN);
    sel(b, bad, nan, r)
}

/// sin x.
pub fn sin(b: &mut FunctionBuilder, x: Value) -> Value {
    sincos(b, x, false)
}

/// cos x.
pub fn cos(b: &mut FunctionBuilder, x: Value) -> Value {
    sincos(b, x, true)
}

/// x^y = 2^(y·log2|x|) with IEEE's special cases (see the module documentation).
pub fn pow(b: &mut FunctionBuilder, x: Value, y: Value) -> Value {
    let ax = b.ins().fabs(x);
    let l = lg2(b, ax);
    let p = b.ins().fmul(y, l);
    let r = exp2(b, p);
    // x < 0: an odd integer y negates, a non-integer y gives NaN.
    let z = f(b, 0.0);
    let neg = b.ins().fcmp(FloatCC::LessThan, x, z);
    let fy = b.ins().floor(y);
    let int = b.ins().fcmp(FloatCC::Equal, fy, y);
    let yi = b.ins().fcvt_to_sint_sat(types::I32X4, fy);
    let one_i = i(b, 1);
    let odd = b.ins().band(yi, one_i);
    let odd = b.ins().ishl_imm_u(odd, 31);
    let ri = cast(b, r, types::I32X4);
    let signed = b.ins().bxor(ri, odd);
    let signed = cast(b, signed, types::F32X4);
    let nan = f(b, f32::NAN);
    let negres = sel(b, int, signed, nan);
    let r = sel(b, neg, negres, r);
    // y = 0 or x = 1: exactly 1, even for NaN operands.
    let one = f(b, 1.0);
    let y0 = b.ins().fcmp(FloatCC::Equal, y, z);
    let x1 = b.ins().fcmp(FloatCC::Equal, x, one);
    let unit = b.ins().bor(y0, x1);
    sel(b, unit, one, r)
}

#[cfg(test)]
mod tests {
    //! Dense sweeps of each approximation against an f64 reference, through this back end.
    use crate::back::tests_support::Compiler;
    use crate::back::tests_support::vmath as sweep;

    fn cranelift() -> impl Fn(
        &crate::ir::Function,
        super::super::MathMode,
    ) -> Result<super::super::CompiledShader, super::super::JitError> {
        |f, math| {
            super::super::compile(
                f,
                &super::super::JitOptions {
                    math,
                    vectors: 2,
                    verify: true,
                },
            )
        }
    }

    #[test]
    fn ex2_within_2_ulp() {
        let c = cranelift();
        sweep::ex2_within_2_ulp(&c as Compiler);
    }

    #[test]
    fn lg2_within_2_ulp_or_tiny_absolute() {
        let c = cranelift();
        sweep::lg2_within_2_ulp_or_tiny_absolute(&c as Compiler);
    }

    #[test]
    fn pow_within_its_bound() {
        let c = cranelift();
        sweep::pow_within_its_bound(&c as Compiler);
    }

    #[test]
    fn sin_cos_within_2_pow_22_absolute() {
        let c = cranelift();
        sweep::sin_cos_within_2_pow_22_absolute(&c as Compiler);
    }
}
