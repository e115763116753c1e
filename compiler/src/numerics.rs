//! Scalar numerics of TGSI execution (`docs/semantics.md`, "Numerics"): shared by the
//! reference interpreter, constant folding and the IR evaluator, so that all agree bit for bit.
//!
//! **Every engine computes as SSE does under its DAZ and FTZ modes**, as softpipe's threads
//! do: an operand that is a denormal reads as zero, and a result whose exact value is below
//! 2⁻¹²⁶ in magnitude becomes a zero of its sign — even one that IEEE rounding would lift to
//! 2⁻¹²⁶ (x86 detects tininess before rounding, except in its fused multiply-add). Generated
//! code runs with those modes set (`back::fpenv`); Rust code never does (changing them under
//! Rust is undefined behaviour), so the interpreter, the IR evaluator, constant folding and
//! the host operations compute the same results in software: [`f`] flushes operands, [`b`]
//! results, [`mul`], [`div`] and [`round_ftz`] decide tininess before rounding, and the C
//! library's functions run under the modes inside one assembly block ([`libm`]).
//!
//! Float arithmetic reads a denormal input as a zero of the same sign and flushes a denormal
//! result to a zero of the same sign, as softpipe runs with FTZ/DAZ set. A NaN result is the
//! canonical quiet NaN [`CANONICAL_NAN`] (x86 keeps an operand's payload, and which operand
//! depends on how the compiler ordered it, so payloads would differ between builds and
//! engines). Bit moves (MOV, selects, negate/abs modifiers) and integer operations never go
//! through these helpers and keep their bits.

pub mod accurate;
pub mod glibc;
pub mod texel;
pub mod wide;

/// MXCSR: denormals are zeros.
pub const MXCSR_DAZ: u32 = 1 << 6;
/// MXCSR: flush to zero.
pub const MXCSR_FTZ: u32 = 1 << 15;

/// Whether this machine has a vector fused multiply-add (x86's FMA3), which both back ends
/// then use for `fma`; without it they compute `fma` lane by lane on the host.
pub fn host_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Reads the MXCSR (0 on other architectures).
pub fn get_mxcsr() -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        let mut v: u32 = 0;
        // SAFETY: stmxcsr writes 4 bytes to the given address.
        unsafe { std::arch::asm!("stmxcsr [{}]", in(reg) &mut v, options(nostack)) };
        v
    }
    #[cfg(not(target_arch = "x86_64"))]
    0
}

/// The NaN every float operation returns: quiet, positive, no payload.
pub const CANONICAL_NAN: u32 = 0x7FC0_0000;

/// Flushes a denormal to a zero of the same sign.
#[inline]
pub fn ftz(x: f32) -> f32 {
    if x.is_subnormal() {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

/// The smallest normal f32, 2⁻¹²⁶, as an f64.
const MIN_NORMAL: f64 = f32::MIN_POSITIVE as f64;

/// Rounds an f64 that holds an exact result (or one rounded to 53 bits, which is innocuous for
/// +, −, ×, ÷ and √ of f32 operands) to f32 as x86 does under FTZ: a result whose magnitude is
/// below 2⁻¹²⁶ *before* rounding is a zero of its sign, even one that rounding would lift to
/// 2⁻¹²⁶.
#[inline]
pub fn round_ftz(d: f64) -> f32 {
    if d.abs() < MIN_NORMAL {
        if d.is_sign_negative() { -0.0 } else { 0.0 }
    } else {
        d as f32
    }
}

/// `x + y` under DAZ/FTZ for flushed operands ([`f`]). The exact sum of two such floats below
/// 2⁻¹²⁶ is a denormal that rounding leaves unchanged, so flushing the rounded sum is exact.
#[inline]
pub fn add(x: f32, y: f32) -> f32 {
    ftz(x + y)
}

/// `x − y` under DAZ/FTZ for flushed operands ([`add`]).
#[inline]
pub fn sub(x: f32, y: f32) -> f32 {
    ftz(x - y)
}

/// `x · y` under DAZ/FTZ for flushed operands: the product is exact in f64, then rounded once
/// ([`round_ftz`]).
#[inline]
pub fn mul(x: f32, y: f32) -> f32 {
    round_ftz(x as f64 * y as f64)
}

/// `x / y` under DAZ/FTZ for flushed operands: the quotient rounded to 53 bits decides
/// tininess exactly (f32 quotients never lie within 2⁻⁵³ of 2⁻¹²⁶ without being it) and rounds
/// to the correctly rounded f32 ([`round_ftz`]).
#[inline]
pub fn div(x: f32, y: f32) -> f32 {
    round_ftz(x as f64 / y as f64)
}

/// Fused `x · y + z` under DAZ/FTZ for flushed operands. x86's fused multiply-add detects
/// tininess *after* rounding (measured: `fma(−3.6e−34, 4.6e−12, 2⁻¹²⁶ + 2⁻¹⁴⁹)` is 2⁻¹²⁶ under
/// FTZ, though its exact value is below), unlike its multiply and divide: flushing the
/// correctly rounded result is exact.
#[inline]
pub fn fma(x: f32, y: f32, z: f32) -> f32 {
    ftz(x.mul_add(y, z))
}

/// Calls the C-ABI function at `func` with the MXCSR's DAZ and FTZ bits set for the call only,
/// all inside one assembly block (no Rust code runs in that mode): `int_arg` is its first
/// integer argument, `x` and `y` its first two float arguments, and its float result (xmm0)
/// is returned. The caller's MXCSR is restored before the block ends.
///
/// # Safety
/// `func` must be a C-ABI function whose arguments are those (or a prefix of them) and that
/// does not unwind; whatever it calls back into Rust must restore Rust's environment first
/// (`back::fpenv`).
#[cfg(target_arch = "x86_64")]
pub unsafe fn call_under_ftz(func: *const (), int_arg: usize, x: f32, y: f32) -> f32 {
    let ftz = get_mxcsr() | MXCSR_DAZ | MXCSR_FTZ;
    let mut r = x;
    // SAFETY: the block saves the MXCSR on the stack (the stack pointer is 16-byte aligned on
    // entry and stays so), loads the DAZ/FTZ value, calls `func` with the C ABI (its clobbers
    // declared), and restores the saved MXCSR before it ends; the caller vouches for `func`.
    unsafe {
        std::arch::asm!(
            "sub rsp, 16",
            "stmxcsr [rsp]",
            "ldmxcsr [{ftz}]",
            "call {func}",
            "ldmxcsr [rsp]",
            "add rsp, 16",
            ftz = in(reg) &ftz,
            func = in(reg) func,
            in("rdi") int_arg,
            inout("xmm0") r,
            in("xmm1") y,
            clobber_abi("C"),
        );
    }
    r
}

/// The C library's functions, computed as softpipe computes them: under the MXCSR's DAZ and
/// FTZ modes, set only for the duration of the call inside one assembly block, so that no Rust
/// code ever runs in a modified floating-point environment.
pub mod libm {
    unsafe extern "C" {
        fn sinf(x: f32) -> f32;
        fn cosf(x: f32) -> f32;
        fn exp2f(x: f32) -> f32;
        fn logf(x: f32) -> f32;
        fn powf(x: f32, y: f32) -> f32;
    }

    /// Calls the C function at `func`, of one float (`x`) or two (`x`, `y`; a one-argument
    /// function never reads `y`), with DAZ and FTZ set around the call only.
    #[cfg(target_arch = "x86_64")]
    fn under_ftz(func: *const (), x: f32, y: f32) -> f32 {
        // SAFETY: `func` is one of the C library functions of floats declared above.
        unsafe { super::call_under_ftz(func, 0, x, y) }
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn under_ftz(func: *const (), x: f32, y: f32) -> f32 {
        // SAFETY: `func` is one of the C functions below, of one float or two.
        let f = unsafe { std::mem::transmute::<*const (), extern "C" fn(f32, f32) -> f32>(func) };
        f(x, y)
    }

    /// `sinf` under DAZ/FTZ.
    pub fn sin(x: f32) -> f32 {
        under_ftz(sinf as *const (), x, 0.0)
    }
    /// `cosf` under DAZ/FTZ.
    pub fn cos(x: f32) -> f32 {
        under_ftz(cosf as *const (), x, 0.0)
    }
    /// `exp2f` under DAZ/FTZ.
    pub fn exp2(x: f32) -> f32 {
        under_ftz(exp2f as *const (), x, 0.0)
    }
    /// `logf` under DAZ/FTZ.
    pub fn ln(x: f32) -> f32 {
        under_ftz(logf as *const (), x, 0.0)
    }
    /// `powf` under DAZ/FTZ.
    pub fn pow(x: f32, y: f32) -> f32 {
        under_ftz(powf as *const (), x, y)
    }
}

/// A float from register bits, denormals read as zero.
#[inline]
pub fn f(bits: u32) -> f32 {
    let flushed = if bits & 0x7FFF_FFFF < 0x0080_0000 {
        bits & 0x8000_0000
    } else {
        bits
    };
    f32::from_bits(flushed)
}

/// Register bits of a float result: denormals flushed, NaN canonical.
#[inline]
pub fn b(x: f32) -> u32 {
    let bits = x.to_bits();
    // An exponent of 0 is a zero or a denormal: keep only the sign.
    let flushed = if bits & 0x7F80_0000 == 0 {
        bits & 0x8000_0000
    } else {
        bits
    };
    if x.is_nan() { CANONICAL_NAN } else { flushed }
}

/// `floorf`, exactly, without a libm call (x86-64's baseline has no rounding instruction).
#[inline]
pub fn floor(x: f32) -> f32 {
    // |x| ≥ 2²³ is an integer already (NaN and inf pass through); ±0 keeps its sign.
    if x.is_nan() || x.abs() >= 8_388_608.0 || x == 0.0 {
        return x;
    }
    let t = x as i32 as f32;
    if t > x { t - 1.0 } else { t }
}

/// `fminf` as glibc's generic version: the non-NaN operand; `x` when equal.
#[inline]
pub fn fmin(x: f32, y: f32) -> f32 {
    if y.is_nan() || x <= y { x } else { y }
}

/// `fmaxf`: the non-NaN operand; `x` when equal.
#[inline]
pub fn fmax(x: f32, y: f32) -> f32 {
    if y.is_nan() || x >= y { x } else { y }
}

/// Saturate to [0, 1]; NaN gives 0.
#[inline]
pub fn sat01(x: f32) -> f32 {
    fmin(fmax(x, 0.0), 1.0)
}

/// Saturate to [−1, 1]; NaN gives 0.
#[inline]
pub fn sat11(x: f32) -> f32 {
    if x.is_nan() {
        0.0
    } else {
        fmin(fmax(x, -1.0), 1.0)
    }
}

/// Mesa's factor from ln to log2 in LG2, 1.442695f (`docs/semantics.md`), not LOG2_E: the
/// result must match bit for bit.
#[allow(clippy::approx_constant)]
pub const LG2_FACTOR: f32 = 1.442_695;

/// LG2 = logf(x) · 1.442695f.
#[inline]
pub fn lg2(x: f32) -> f32 {
    mul(ftz(libm::ln(x)), LG2_FACTOR)
}

/// F2I: truncation; NaN and out-of-range values give 0x80000000.
#[inline]
pub fn f2i(x: f32) -> u32 {
    if x.is_nan() || !(-2_147_483_648.0..2_147_483_648.0).contains(&x) {
        0x8000_0000
    } else {
        x as i32 as u32
    }
}

/// F2U as softpipe computes it (tgsi_exec's `(uint)` cast, which gcc vectorizes: from 2³¹
/// up, `x − 2³¹` converted to i32 with its top bit flipped; below, `x` converted to i32 with
/// x86's `cvttps2dq`, NaN and out of range giving 0x80000000). So: exact for x in [0, 2³²),
/// the wrapped truncation for x in (−2³¹, 0), 0 for x ≥ 2³² and +∞, 0x80000000 for NaN, −∞
/// and x ≤ −2³¹ (the compute corpus's README, measured in softpipe).
#[inline]
pub fn f2u(x: f32) -> u32 {
    const TWO31: f32 = 2_147_483_648.0;
    let cvtt = |y: f32| {
        if y.is_nan() || y >= TWO31 {
            0x8000_0000
        } else {
            y as i32 as u32
        }
    };
    if x >= TWO31 {
        cvtt(x - TWO31) ^ 0x8000_0000
    } else {
        cvtt(x)
    }
}

/// IDIV: 0 for a zero divisor; INT_MIN / −1 = INT_MIN.
#[inline]
pub fn idiv(a: u32, b: u32) -> u32 {
    let (a, b) = (a as i32, b as i32);
    if b == 0 { 0 } else { a.wrapping_div(b) as u32 }
}

/// MOD (signed remainder): −1 for a zero divisor; INT_MIN % −1 = 0.
#[inline]
pub fn imod(a: u32, b: u32) -> u32 {
    let (a, b) = (a as i32, b as i32);
    if b == 0 {
        u32::MAX
    } else {
        a.wrapping_rem(b) as u32
    }
}

/// UDIV: 0xFFFFFFFF for a zero divisor.
#[inline]
pub fn udiv(a: u32, b: u32) -> u32 {
    a.checked_div(b).unwrap_or(u32::MAX)
}

/// UMOD: 0xFFFFFFFF for a zero divisor.
#[inline]
pub fn umod(a: u32, b: u32) -> u32 {
    a.checked_rem(b).unwrap_or(u32::MAX)
}

/// UBFE as tgsi_exec: offset and width use their low 5 bits; width 0 gives 0.
pub fn ubfe(v: u32, offset: u32, bits: u32) -> u32 {
    let (w, o) = (bits & 31, offset & 31);
    if w == 0 {
        0
    } else if w + o < 32 {
        (v << (32 - w - o)) >> (32 - w)
    } else {
        v >> o
    }
}

/// IBFE as tgsi_exec (sign-extending).
pub fn ibfe(v: u32, offset: u32, bits: u32) -> u32 {
    let (w, o) = (bits & 31, offset & 31);
    let v = v as i32;
    (if w == 0 {
        0
    } else if w + o < 32 {
        (v << (32 - w - o)) >> (32 - w)
    } else {
        v >> o
    }) as u32
}

/// BFI as tgsi_exec.
pub fn bfi(base: u32, insert: u32, offset: u32, bits: u32) -> u32 {
    let (w, o) = (bits & 31, offset & 31);
    let mask = ((1u32 << w).wrapping_sub(1)) << o;
    ((insert << o) & mask) | (base & !mask)
}

/// IMSB: the highest bit that differs from the sign bit; −1 for 0 and −1.
pub fn imsb(v: u32) -> u32 {
    let v = if (v as i32) < 0 { !v } else { v };
    if v == 0 {
        u32::MAX
    } else {
        31 - v.leading_zeros()
    }
}

/// UMSB: the highest set bit; −1 for 0.
pub fn umsb(v: u32) -> u32 {
    if v == 0 {
        u32::MAX
    } else {
        31 - v.leading_zeros()
    }
}

/// LSB: the lowest set bit; −1 for 0.
pub fn lsb(v: u32) -> u32 {
    if v == 0 { u32::MAX } else { v.trailing_zeros() }
}

/// Rounds an f32 to IEEE half precision (nearest even), returning the 16 bits.
pub fn f32_to_f16(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    if x.is_nan() {
        return sign | 0x7E00;
    }
    let a = x.abs();
    if a >= 65520.0 {
        return sign | 0x7C00;
    }
    if a < 2.980_232_2e-8 {
        return sign;
    }
    // Scale into the half's integer grid and round to nearest even.
    let exp = a.log2().floor().max(-14.0) as i32;
    let ulp = 2f64.powi(exp - 10);
    let q = (a as f64 / ulp).round_ties_even();
    let (mut e, mut m) = (exp, q as u32);
    if m >= 2048 {
        m /= 2;
        e += 1;
    }
    if m < 1024 {
        return sign | m as u16; // subnormal
    }
    if e > 15 {
        return sign | 0x7C00;
    }
    sign | (((e + 15) as u16) << 10) | (m as u16 & 0x3FF)
}

/// A half's 16 bits as f32.
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((h >> 10) & 0x1F) as i32;
    let m = (h & 0x3FF) as f32;
    match e {
        0 => sign * m * 2f32.powi(-24),
        31 if m == 0.0 => sign * f32::INFINITY,
        31 => f32::NAN,
        _ => sign * (1.0 + m / 1024.0) * 2f32.powi(e - 15),
    }
}

/// Rounds to the NV FIXED12 format: [−2, 2) in steps of 1/1024; NaN gives 0.
pub fn fixed12(x: f32) -> f32 {
    if x.is_nan() {
        0.0
    } else {
        ((x * 1024.0).round() / 1024.0).clamp(-2.0, 2.0 - 1.0 / 1024.0)
    }
}

/// The packing of PK2US/PK4B/PK4UB: round half away from zero (as `f32::round`).
#[inline]
pub fn pack_round(x: f32) -> f32 {
    x.round()
}

/// The odd series of [`lod_log2`], highest power first: `log2(m) = s·(c₁ + c₃s² + c₅s⁴ + …)`
/// with `s = (m − 1)/(m + 1)` and `cₙ = 2/(n·ln 2)`.
pub const LOD_LOG2_SERIES: [f32; 5] = [
    (2.0 / (9.0 * std::f64::consts::LN_2)) as f32,
    (2.0 / (7.0 * std::f64::consts::LN_2)) as f32,
    (2.0 / (5.0 * std::f64::consts::LN_2)) as f32,
    (2.0 / (3.0 * std::f64::consts::LN_2)) as f32,
    (2.0 / std::f64::consts::LN_2) as f32,
];

/// The bits of √½: [`lod_log2`] splits `x` into `2ᵉ·m` with `m` in `[√½, √2)`.
pub const LOD_LOG2_SPLIT: u32 = 0x3F35_04F3;

/// The base-2 logarithm of a texture lookup's ρ, its level of detail before bias and clamps,
/// as every engine computes it (the interpreter here, generated code the same operations on
/// vectors): `x = 2ᵉ·m`, `m` in `[√½, √2)`, `log2(m)` from the odd series of
/// `s = (m − 1)/(m + 1)` ([`LOD_LOG2_SERIES`], |s| ≤ 0.172), each step an f32 operation. Exact
/// at powers of two; elsewhere within 10⁻⁷ of `log2` beyond the rounding of the result to f32
/// (this module's tests sweep it). No step is a denormal, so DAZ/FTZ change nothing. Zero and
/// denormals give −∞, infinities and NaN themselves, and a finite negative `x` (which ρ never
/// is) −∞.
/// Softpipe uses a table here, llvmpipe a polynomial: an approximation of its own, not the C
/// library's `log2f`, keeps every engine's results the same whatever the host's C library.
pub fn lod_log2(x: f32) -> f32 {
    let bits = x.to_bits();
    if bits & 0x7F80_0000 == 0x7F80_0000 {
        // ±∞ and NaN.
        return x;
    }
    if (bits as i32) < 0x0080_0000 {
        // Zero, a denormal or negative.
        return f32::NEG_INFINITY;
    }
    let e = (bits.wrapping_sub(LOD_LOG2_SPLIT) as i32) >> 23;
    let m = f32::from_bits(bits.wrapping_sub((e as u32) << 23));
    let s = (m - 1.0) / (m + 1.0);
    let z = s * s;
    let mut p = LOD_LOG2_SERIES[0];
    for &c in &LOD_LOG2_SERIES[1..] {
        p = p * z + c;
    }
    s * p + e as f32
}

#[cfg(test)]
mod tests {
    /// The hardware's answer: `op` on x and y with DAZ and FTZ set, all inside one asm block.
    #[cfg(target_arch = "x86_64")]
    fn hardware(op: char, x: f32, y: f32, z: f32) -> f32 {
        let ftz = get_mxcsr() | MXCSR_DAZ | MXCSR_FTZ;
        let mut r = x;
        macro_rules! under_ftz {
            ($ins:literal, $unused:literal) => {
                // SAFETY: saves, sets and restores the MXCSR around one SSE instruction.
                unsafe {
                    std::arch::asm!(
                        "sub rsp, 16",
                        "stmxcsr [rsp]",
                        "ldmxcsr [{m}]",
                        $ins,
                        $unused,
                        "ldmxcsr [rsp]",
                        "add rsp, 16",
                        m = in(reg) &ftz,
                        x = inout(xmm_reg) r,
                        y = in(xmm_reg) y,
                        z = in(xmm_reg) z,
                    )
                }
            };
        }
        match op {
            '+' => under_ftz!("addss {x}, {y}", "/* {z} */"),
            '-' => under_ftz!("subss {x}, {y}", "/* {z} */"),
            '*' => under_ftz!("mulss {x}, {y}", "/* {z} */"),
            '/' => under_ftz!("divss {x}, {y}", "/* {z} */"),
            _ => under_ftz!("vfmadd213ss {x}, {y}, {z}", ""),
        }
        r
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn software_flushing_matches_the_hardware_under_daz_and_ftz() {
        let fma = std::arch::is_x86_feature_detected!("fma");
        // Values around 2^-126 and the products and quotients that land next to it.
        let mut vals: Vec<u32> = vec![
            0,
            0x8000_0000,
            0x0000_0001,
            0x807F_FFFF,
            0x0080_0000,
            0x0080_0001,
            0x00FF_FFFF,
            0x3F00_0000,
            0xBF00_0000,
            0x3F80_0000,
            0x3F7F_FFFF,
            0x3F80_0001,
            0x4000_0000,
            0x7F7F_FFFF,
            0x7F80_0000,
            0x7FC0_0000,
            0x3400_0000,
            0x2000_0000,
            0x1F80_0000,
            0x1FFF_FFFF,
            0x2080_0001,
            0x0100_0000,
            0x0000_8000,
        ];
        let mut seed = 0x1234_5678_9abc_def0u64;
        for _ in 0..600 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            // Exponents near the bottom of the range, where flushing decides.
            let exp = (seed >> 40) as u32 % 80;
            let man = seed as u32 & 0x007F_FFFF;
            let sign = ((seed >> 63) as u32) << 31;
            vals.push(sign | exp << 23 | man);
            vals.push(sign | (63 + exp) << 23 | man);
        }
        for &a in &vals {
            for &c in vals.iter().step_by(3) {
                let (x, y) = (f(a), f(c));
                let (hx, hy) = (f32::from_bits(a), f32::from_bits(c));
                for (op, soft) in [
                    ('+', add(x, y)),
                    ('-', sub(x, y)),
                    ('*', mul(x, y)),
                    ('/', div(x, y)),
                ] {
                    let hard = hardware(op, hx, hy, 0.0);
                    assert_eq!(
                        b(soft),
                        b(hard),
                        "{a:#010x} {op} {c:#010x}: software {soft:e}, hardware {hard:e}"
                    );
                }
                if fma {
                    let z = f32::from_bits(vals[(a as usize ^ c as usize) % vals.len()]);
                    let soft = super::fma(x, y, f(z.to_bits()));
                    let hard = hardware('f', hx, hy, z);
                    assert_eq!(b(soft), b(hard), "fma({a:#010x}, {c:#010x}, {z:e})");
                }
            }
        }
    }

    use super::*;

    #[test]
    fn floor_is_floorf() {
        let mut x = 0x1234_5678u32;
        let special = [
            0.0f32,
            -0.0,
            0.5,
            -0.5,
            -1.0,
            1.0,
            8388607.5,
            -8388607.5,
            8388608.0,
            1e30,
            -1e30,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            1e-40,
            -1e-40,
            -0.999_999_9,
        ];
        for v in special.into_iter().chain((0..200_000).map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            f32::from_bits(x)
        })) {
            assert_eq!(floor(v).to_bits(), v.floor().to_bits(), "{v:e}");
        }
    }

    #[test]
    fn denormals_flush_with_their_sign() {
        let d = f32::from_bits(1);
        assert_eq!(ftz(d).to_bits(), 0);
        assert_eq!(ftz(-d).to_bits(), 0x8000_0000);
        assert_eq!(ftz(1.0), 1.0);
        assert_eq!(b(f32::MIN_POSITIVE / 2.0), 0);
    }

    #[test]
    fn min_max_return_the_non_nan_operand() {
        assert_eq!(fmin(f32::NAN, 2.0), 2.0);
        assert_eq!(fmin(2.0, f32::NAN), 2.0);
        assert_eq!(fmax(f32::NAN, -2.0), -2.0);
        assert_eq!(sat01(f32::NAN), 0.0);
        assert_eq!(sat01(1.5), 1.0);
        assert_eq!(sat11(-3.0), -1.0);
    }

    #[test]
    fn conversions_and_integer_division() {
        assert_eq!(f2i(-1.9), (-1i32) as u32);
        assert_eq!(f2i(f32::NAN), 0x8000_0000);
        assert_eq!(f2i(3e9), 0x8000_0000);
        // The compute corpus README's measured rule for softpipe's F2U.
        assert_eq!(f2u(3e9), 3_000_000_000);
        assert_eq!(f2u(4_294_967_040.0), 4_294_967_040);
        assert_eq!(f2u(-1.0), u32::MAX);
        assert_eq!(f2u(-1.5), u32::MAX);
        assert_eq!(f2u(f32::NAN), 0x8000_0000);
        assert_eq!(f2u(f32::NEG_INFINITY), 0x8000_0000);
        assert_eq!(f2u(-2_147_483_648.0), 0x8000_0000);
        assert_eq!(f2u(-5e9), 0x8000_0000);
        assert_eq!(f2u(4_294_967_296.0), 0);
        assert_eq!(f2u(1e19), 0);
        assert_eq!(f2u(f32::INFINITY), 0);
        assert_eq!(idiv(7, 0), 0);
        assert_eq!(idiv(0x8000_0000, u32::MAX), 0x8000_0000);
        assert_eq!(idiv((-7i32) as u32, 2), (-3i32) as u32);
        assert_eq!(udiv(7, 0), u32::MAX);
        assert_eq!(umod(7, 0), u32::MAX);
        assert_eq!(imod(7, 0), u32::MAX);
        assert_eq!(imod((-7i32) as u32, 2), (-1i32) as u32);
        assert_eq!(imod(0x8000_0000, u32::MAX), 0);
    }

    #[test]
    fn bitfields() {
        assert_eq!(ubfe(0xABCD_1234, 8, 8), 0x12);
        assert_eq!(ibfe(0x0000_8000, 8, 8), 0xFFFF_FF80);
        assert_eq!(ubfe(0xFFFF_FFFF, 4, 0), 0);
        assert_eq!(bfi(0xFFFF_FFFF, 0, 8, 8), 0xFFFF_00FF);
        assert_eq!(imsb(1), 0);
        assert_eq!(imsb(u32::MAX), u32::MAX);
        assert_eq!(imsb(0xFFFF_FFFE), 0);
        assert_eq!(umsb(0x8000_0000), 31);
        assert_eq!(lsb(0x10), 4);
        assert_eq!(lsb(0), u32::MAX);
    }

    #[test]
    fn half_floats() {
        for v in [
            0.0f32,
            1.0,
            -2.5,
            65504.0,
            6.1035156e-5,
            5.9604645e-8,
            0.333_333_34,
        ] {
            let h = f32_to_f16(v);
            let back = f16_to_f32(h);
            assert!(
                (back - v).abs() <= v.abs() / 1024.0 + 6e-8,
                "{v} -> {h:#06x} -> {back}"
            );
        }
        assert_eq!(f32_to_f16(1.0), 0x3C00);
        assert_eq!(f32_to_f16(-2.0), 0xC000);
        assert_eq!(f32_to_f16(1e6), 0x7C00);
        assert_eq!(f32_to_f16(5.9604645e-8), 1);
        assert_eq!(f16_to_f32(0x7C00), f32::INFINITY);
        assert!(f16_to_f32(0x7E00).is_nan());
        assert_eq!(f32_to_f16(2049.0), 0x6800, "2049 rounds to even 2048");
    }

    /// `lod_log2` is exact at powers of two, within 10⁻⁷ of `log2` (beyond the rounding of
    /// the result) over a sweep of every exponent and of the mantissas where the split turns
    /// (8.8·10⁻⁸ at worst with the release build's finer sweep), and keeps the special values.
    #[test]
    fn lod_log2_is_log2_within_its_bound() {
        for e in -126..128 {
            assert_eq!(lod_log2(2f32.powi(e)), e as f32, "2^{e}");
        }
        let mut worst = 0.0f64;
        let step = if cfg!(debug_assertions) { 97 } else { 7 };
        for bits in (0x0080_0000u32..0x7F80_0000)
            .step_by(step)
            .chain(0x3F35_04E0..0x3F35_0500)
        {
            let x = f32::from_bits(bits);
            let exact = (x as f64).log2();
            // Beyond the rounding of the result to f32.
            let half_ulp = (exact as f32).abs().max(f32::MIN_POSITIVE).to_bits();
            let half_ulp = (f32::from_bits(half_ulp + 1) - f32::from_bits(half_ulp)) as f64 / 2.0;
            let err = (lod_log2(x) as f64 - exact).abs() - half_ulp;
            assert!(err <= 1e-7, "{x:e}: {} against {exact}", lod_log2(x));
            worst = worst.max(err);
        }
        assert!(worst > 1e-8, "the sweep compared something: {worst}");
        assert_eq!(lod_log2(0.0), f32::NEG_INFINITY);
        assert_eq!(lod_log2(f32::from_bits(1)), f32::NEG_INFINITY);
        assert_eq!(lod_log2(-0.0), f32::NEG_INFINITY);
        assert_eq!(lod_log2(f32::INFINITY), f32::INFINITY);
        assert!(lod_log2(f32::NAN).is_nan());
    }
}
