//! Dense sweeps of the fast-math approximations ([`tgsic::opt::fast_math`]) against an f64
//! reference, through any engine: a [`Runner`] applies a TGSI operation to pairs of inputs.
//! Each check asserts the bound the pass documents and returns the worst error it saw.

/// The operations fast math replaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    /// `EX2`.
    Ex2,
    /// `LG2`.
    Lg2,
    /// `SIN`.
    Sin,
    /// `COS`.
    Cos,
    /// `POW` (of `x` and `y`).
    Pow,
    /// `x / 10` (a product with the rounded reciprocal of 10, [`tgsic::opt::reciprocal`]).
    DivConst,
    /// `x / y`, where `z / y` is computed too (one reciprocal of `y`, two products).
    DivShared,
}

impl Func {
    /// Every one.
    pub const ALL: [Func; 7] = [
        Func::Ex2,
        Func::Lg2,
        Func::Sin,
        Func::Cos,
        Func::Pow,
        Func::DivConst,
        Func::DivShared,
    ];

    /// A vertex shader writing `OUT[0].x = op(IN[0].x[, IN[0].y])`.
    pub fn shader(self) -> String {
        let inst = match self {
            Func::Ex2 => "EX2 OUT[0].x, IN[0].xxxx",
            Func::Lg2 => "LG2 OUT[0].x, IN[0].xxxx",
            Func::Sin => "SIN OUT[0].x, IN[0].xxxx",
            Func::Cos => "COS OUT[0].x, IN[0].xxxx",
            Func::Pow => "POW OUT[0].x, IN[0].xxxx, IN[0].yyyy",
            Func::DivConst => {
                "IMM[0] FLT32 {10.0, 0.0, 0.0, 0.0}\nDIV OUT[0].x, IN[0].xxxx, IMM[0].xxxx"
            }
            Func::DivShared => "DIV OUT[0].xy, IN[0].xzzz, IN[0].yyyy",
        };
        format!("VERT\nDCL IN[0]\nDCL OUT[0], GENERIC[0]\n{inst}\nEND\n")
    }
}

/// Applies a function to `(x, y)` pairs (`y` ignored but by POW) and returns the results.
pub type Runner<'a> = &'a dyn Fn(Func, &[(f32, f32)]) -> Vec<f32>;

fn ulp_diff(a: f32, b: f32) -> u64 {
    if a == b || (a.is_nan() && b.is_nan()) {
        return 0;
    }
    let key = |x: f32| {
        let i = x.to_bits() as i32 as i64;
        if i < 0 { i64::from(i32::MIN) - i } else { i }
    };
    (key(a) - key(b)).unsigned_abs()
}

/// Inputs spread over `lo..hi` (n of them).
fn sweep(lo: f32, hi: f32, n: usize) -> Vec<f32> {
    (0..n)
        .map(|k| lo + (hi - lo) * k as f32 / n as f32)
        .collect()
}

fn unary(run: Runner, func: Func, xs: &[f32]) -> Vec<f32> {
    let pairs: Vec<(f32, f32)> = xs.iter().map(|&x| (x, 0.0)).collect();
    run(func, &pairs)
}

fn check(
    run: Runner,
    func: Func,
    xs: &[f32],
    reference: impl Fn(f64) -> f64,
    max_ulp: u64,
    max_abs: f64,
) -> (u64, f64) {
    let got = unary(run, func, xs);
    let (mut worst_ulp, mut worst_abs) = (0u64, 0f64);
    for (&x, &g) in xs.iter().zip(&got) {
        // Denormal inputs read as zero (DAZ), as everywhere in TGSI arithmetic.
        let xf = if x.is_subnormal() { 0.0 } else { x };
        let want = reference(xf as f64);
        let w32 = want as f32;
        let w32 = if w32.is_subnormal() { 0.0 } else { w32 };
        let u = ulp_diff(g, w32);
        let a = (g as f64 - want).abs();
        assert!(
            u <= max_ulp || a <= max_abs,
            "{func:?}({x:e}) = {g:e}, want {want:e} ({u} ulp, {a:e} absolute)"
        );
        worst_ulp = worst_ulp.max(u);
        if a.is_finite() {
            worst_abs = worst_abs.max(a);
        }
    }
    (worst_ulp, worst_abs)
}

/// Sweep sizes: `full` points in an optimized build, 1/64 of them otherwise.
fn points(full: usize) -> usize {
    if cfg!(debug_assertions) {
        full / 64
    } else {
        full
    }
}

/// EX2 within 2 ulp on [−126, 128); its special values.
pub fn ex2_within_2_ulp(run: Runner) -> u64 {
    let xs = sweep(-126.0, 128.0, points(1 << 22));
    let w = check(run, Func::Ex2, &xs, f64::exp2, 2, 0.0);
    let special = unary(
        run,
        Func::Ex2,
        &[f32::INFINITY, f32::NEG_INFINITY, 200.0, -200.0],
    );
    assert_eq!(special, [f32::INFINITY, 0.0, f32::INFINITY, 0.0]);
    // Integers give their powers of two exactly.
    let ints = unary(run, Func::Ex2, &[0.0, 1.0, 3.0, -2.0, 10.0, -126.0, 127.0]);
    let want = [1.0, 2.0, 8.0, 0.25, 1024.0, 2f32.powi(-126), 2f32.powi(127)];
    assert_eq!(ints, want);
    // The edges of the normal range: 2⁻¹²⁶ itself, results below it flushed to 0, and the
    // last binade below overflow finite.
    let edges = unary(
        run,
        Func::Ex2,
        &[-126.0, -126.25, -126.5, -127.0, 127.5, 127.99],
    );
    assert_eq!(&edges[..4], &[f32::MIN_POSITIVE, 0.0, 0.0, 0.0]);
    for (&y, x) in edges[4..].iter().zip([127.5f32, 127.99]) {
        let want = f64::from(x).exp2();
        assert!(
            y.is_finite() && (f64::from(y) - want).abs() <= want * 2f64.powi(-22),
            "{x}: {y}"
        );
    }
    w.0
}

/// LG2 within 2 ulp or 2⁻²² absolute on positive floats; its special values.
pub fn lg2_within_2_ulp_or_tiny_absolute(run: Runner) -> (u64, f64) {
    let n = points(1 << 22);
    let mut xs = sweep(0.0, 8.0, n);
    xs.extend(sweep(1.0, 1e30, n / 4));
    xs.extend((0..n / 4).map(|k| f32::from_bits(0x0080_0000 + k as u32 * 7919)));
    xs.retain(|&x| x > 0.0);
    let w = check(run, Func::Lg2, &xs, f64::log2, 2, 2f64.powi(-22));
    let special = unary(run, Func::Lg2, &[0.0, -1.0, f32::INFINITY, 1e-40]);
    assert_eq!(special[0], f32::NEG_INFINITY);
    assert!(special[1].is_nan());
    assert_eq!(special[2], f32::INFINITY);
    assert_eq!(special[3], f32::NEG_INFINITY, "a denormal reads as 0");
    w
}

/// SIN and COS within 2⁻²² absolute on |x| ≤ 8192; NaN at infinity.
pub fn sin_cos_within_2_pow_22_absolute(run: Runner) -> (f64, f64) {
    let xs = sweep(-8192.0, 8192.0, points(1 << 22));
    let s = check(run, Func::Sin, &xs, f64::sin, 0, 2f64.powi(-22));
    let c = check(run, Func::Cos, &xs, f64::cos, 0, 2f64.powi(-22));
    assert!(unary(run, Func::Sin, &[f32::INFINITY])[0].is_nan());
    assert!(unary(run, Func::Cos, &[f32::NAN])[0].is_nan());
    (s.1, c.1)
}

/// POW within 4 ulp plus the log2 error carried through y (2⁻²²·|y·log2 x| relative) for
/// x ∈ [10⁻³, 10³], y ∈ [−8, 8]; its special values. Returns the worst error as a fraction of
/// the bound.
pub fn pow_within_its_bound(run: Runner) -> f64 {
    let n = points(1 << 20);
    let mut seed = 12345u64;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 40) as f32 / (1u64 << 24) as f32
    };
    let pairs: Vec<(f32, f32)> = (0..n)
        .map(|_| (10f32.powf(next() * 6.0 - 3.0), next() * 16.0 - 8.0))
        .collect();
    let got = run(Func::Pow, &pairs);
    let mut worst = 0f64;
    for (&(x, y), &g) in pairs.iter().zip(&got) {
        let want = (x as f64).powf(y as f64);
        let rel = ((g as f64 - want) / want).abs();
        let bound =
            4.0 * f32::EPSILON as f64 + 2f64.powi(-22) * (y as f64 * (x as f64).log2()).abs();
        assert!(
            rel <= bound,
            "pow({x:e}, {y}) = {g:e}, want {want:e} (relative {rel:e}, bound {bound:e})"
        );
        worst = worst.max(rel / bound);
    }
    let special = run(
        Func::Pow,
        &[
            (-2.0, 3.0),
            (-2.0, 0.5),
            (0.0, 2.0),
            (0.0, -1.0),
            (1.0, f32::NAN),
            (5.0, 0.0),
        ],
    );
    assert_eq!(special[0], -8.0);
    assert!(special[1].is_nan());
    assert_eq!(special[2..], [0.0, f32::INFINITY, 1.0, 1.0]);
    worst
}

/// Division by a constant and by a shared divisor within 2 ulp of the correctly rounded
/// quotient (or both at most the smallest normal float, where FTZ may flush one); what
/// division gives for zeros, infinities and NaN. Returns the worst error in ulp.
pub fn div_within_2_ulp(run: Runner) -> u64 {
    use crate::random::{Rng, Source};
    let n = points(1 << 20);
    let mut rng = Rng(99);
    // Numerators and divisors over most of the normal range, either sign.
    let mut float = move || {
        let b = rng.bits() as u32;
        f32::from_bits((b & 0x8000_0000) | (0x0100_0000 + (b & 0x7FFF_FFFF) % 0x7D00_0000))
    };
    let pairs: Vec<(f32, f32)> = (0..n).map(|_| (float(), float())).collect();
    let mut worst = 0;
    for func in [Func::DivConst, Func::DivShared] {
        let got = run(func, &pairs);
        for (&(x, y), &g) in pairs.iter().zip(&got) {
            let y = if func == Func::DivConst { 10.0 } else { y };
            let want = x / y;
            let want = if want.is_subnormal() {
                0.0 * want
            } else {
                want
            };
            let tiny = want.abs() <= f32::MIN_POSITIVE && g.abs() <= f32::MIN_POSITIVE;
            let u = ulp_diff(g, want);
            assert!(
                u <= 2 || tiny,
                "{func:?}: {x:e} / {y:e} = {g:e}, want {want:e} ({u} ulp)"
            );
            if !tiny {
                worst = worst.max(u);
            }
        }
        let special = [
            (0.0, 3.0),
            (-0.0, 3.0),
            (f32::INFINITY, 3.0),
            (f32::NAN, 3.0),
        ];
        let got = run(func, &special);
        assert_eq!(got[0].to_bits(), 0.0f32.to_bits(), "{func:?}");
        assert_eq!(got[1].to_bits(), (-0.0f32).to_bits(), "{func:?}");
        assert_eq!(got[2], f32::INFINITY, "{func:?}");
        assert!(got[3].is_nan(), "{func:?}");
    }
    worst
}

/// Inputs that cover each function's range and its special values: what engines must agree
/// on bit for bit.
pub fn agreement_inputs() -> Vec<(f32, f32)> {
    let mut xs = sweep(-300.0, 300.0, 4096);
    xs.extend(sweep(-9000.0, 9000.0, 1024));
    xs.extend([
        0.0,
        -0.0,
        1e-40,
        -1e-40,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::from_bits(0x7FC0_1234),
        f32::MAX,
        f32::MIN_POSITIVE,
    ]);
    let ys = [2.0, -0.5, 3.0, 0.0, 1e-40, f32::NAN, -7.25];
    xs.iter()
        .enumerate()
        .map(|(k, &x)| (x, ys[k % ys.len()]))
        .collect()
}
