//! Every operation the THEIA code generator lowers to a sequence, swept through the bit-exact
//! b1.2 simulator and compared with the exact function of its Q15.17 input: the test prints the
//! maximum error of each (in units of 2⁻¹⁷) and fails when a result leaves the bound documented
//! in `tgsic_theia::compile::ERROR_BOUNDS`.

use std::f64::consts::{FRAC_1_SQRT_2, FRAC_PI_2, PI, SQRT_2};
use tgsic_theia::compile::{TheiaOptions, compile, error_bound};
use tgsic_theia::isa::{ONE, f64_to_fixed, fixed_to_f64, register_address};
use tgsic_theia::sim::Machine;

const ULP: f64 = 1.0 / ONE as f64;

/// One swept operation.
struct Case {
    opcode: &'static str,
    /// The TGSI instruction, reading IN[0].x (and IN[0].y).
    inst: String,
    exact: fn(f64, f64) -> f64,
    /// Inputs (x, y), already Q15.17 values.
    inputs: Vec<(f64, f64)>,
}

/// A deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Log-uniform in [lo, hi] (lo > 0): every binade equally.
    fn log_uniform(&mut self, lo: f64, hi: f64) -> f64 {
        (self.uniform(lo.ln(), hi.ln())).exp()
    }
}

/// Rounds to Q15.17.
fn q(x: f64) -> f64 {
    fixed_to_f64(f64_to_fixed(x).expect("input in range"))
}

/// How many random inputs per case: fewer in CI (2 cores), the sweep stays the same shape.
fn count() -> usize {
    if std::env::var_os("CI").is_some() {
        3000
    } else {
        12000
    }
}

fn cases() -> Vec<Case> {
    let n = count();
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    let mut spread = |lo: f64, hi: f64, edges: &[f64]| -> Vec<(f64, f64)> {
        let mut v: Vec<(f64, f64)> = edges.iter().map(|&x| (q(x), 0.0)).collect();
        v.extend((0..n).map(|_| (q(r.uniform(lo, hi)), 0.0)));
        v
    };
    let ex2 = spread(
        -20.0,
        14.0 - ULP,
        &[0.0, -ULP, ULP, 1.0, -1.0, 13.0, 14.0 - ULP],
    );
    let sin = {
        let mut v = spread(-8.0, 8.0, &[0.0, ULP, -ULP, FRAC_PI_2, PI, -PI]);
        v.extend(spread(-16383.0, 16383.0, &[16383.0, -16383.0]));
        v
    };
    let mut r = Rng(0xD1B5_4A32_D192_ED03);
    let mut positive = |lo: f64, hi: f64, edges: &[f64]| -> Vec<(f64, f64)> {
        let mut v: Vec<(f64, f64)> = edges.iter().map(|&x| (q(x), 0.0)).collect();
        v.extend((0..n).map(|_| (q(r.log_uniform(lo, hi)), 0.0)));
        v
    };
    let lg2 = positive(
        ULP,
        16383.99,
        &[ULP, 2.0 * ULP, 1.0, FRAC_1_SQRT_2, SQRT_2, 8192.0, 16383.99],
    );
    let sqrt = positive(ULP, 16383.99, &[ULP, 1.0, 2.0, 16383.99]);
    let rsq = positive(ULP, 16383.99, &[ULP, 1.0, 2.0, 16383.99]);
    let rcp = {
        let mut v = positive(1.0 / 16000.0, 16383.99, &[1.0 / 16000.0, 1.0, 3.0]);
        let neg: Vec<(f64, f64)> = v.iter().map(|&(x, _)| (-x, 0.0)).collect();
        v.extend(neg);
        v
    };
    let mut r = Rng(0x2545_F491_4F6C_DD1D);
    let pow: Vec<(f64, f64)> = (0..n)
        .map(|_| (q(r.log_uniform(1e-3, 1000.0)), q(r.uniform(-4.0, 4.0))))
        .chain([(2.0, 10.0), (10.0, 2.0), (0.5, 3.0), (q(0.25), q(0.5))])
        .collect();
    let mut r = Rng(0x6A09_E667_F3BC_C909);
    let rounding: Vec<(f64, f64)> = (0..n)
        .map(|_| (q(r.uniform(-1000.0, 1000.0)), 0.0))
        .chain([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -1.0, 0.0].map(|x| (x, 0.0)))
        .collect();
    // One instruction on IN[0].x (POW: and IN[0].y).
    let case = |opcode: &'static str, exact: fn(f64, f64) -> f64, inputs| Case {
        opcode,
        inst: format!(
            "{opcode} OUT[0], IN[0].xxxx{}",
            if opcode == "POW" { ", IN[0].yyyy" } else { "" }
        ),
        exact,
        inputs,
    };
    vec![
        case("EX2", |x, _| x.exp2(), ex2),
        case("LG2", |x, _| x.log2(), lg2),
        case("POW", f64::powf, pow),
        case("SIN", |x, _| x.sin(), sin.clone()),
        case("COS", |x, _| x.cos(), sin),
        case("SQRT", |x, _| x.sqrt(), sqrt),
        case("RSQ", |x, _| 1.0 / x.sqrt(), rsq),
        case("RCP", |x, _| 1.0 / x, rcp),
        case("ROUND", |x, _| x.round_ties_even(), rounding.clone()),
        case("FLR", |x, _| x.floor(), rounding.clone()),
        case("CEIL", |x, _| x.ceil(), rounding.clone()),
        case("TRUNC", |x, _| x.trunc(), rounding.clone()),
        case("FRC", |x, _| x - x.floor(), rounding),
    ]
}

#[test]
fn lowered_functions_stay_within_their_documented_bounds() {
    let input = register_address("CREG_UV0_LAST").unwrap();
    let mut failures = Vec::new();
    // Errors in units of 2^-17; "of bound": the largest error / its bound (r: the exact
    // result, y: POW's exponent).
    eprintln!(
        "{:6} {:>7} {:>9} {:>6}  {:28} worst input (relative to its bound)",
        "op", "inputs", "max ulp", "bound", "documented bound"
    );
    for case in cases() {
        let bound = error_bound(case.opcode)
            .unwrap_or_else(|| panic!("{} has no documented bound", case.opcode));
        let src = format!(
            "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\n  0: {}\n  1: END\n",
            case.inst
        );
        let p = tgsic::front::text::parse(&src).unwrap();
        let mut opts = TheiaOptions::default();
        opts.bindings.insert(0, input);
        let t = compile(&p, &opts).unwrap_or_else(|e| panic!("{}: {e}", case.opcode));
        let pixels: Vec<Vec<(u16, [u32; 3])>> = case
            .inputs
            .iter()
            .map(|&(x, y)| {
                let w = |v: f64| f64_to_fixed(v).unwrap();
                vec![(input, [w(x), w(y), 0])]
            })
            .collect();
        let mut m = Machine::new(t.binary.clone());
        m.max_steps = 10_000;
        let out = m
            .run_pixels(&pixels)
            .unwrap_or_else(|e| panic!("{}: {e}\n{}", case.opcode, t.assembly));
        let (mut worst, mut worst_ratio, mut at) = (0f64, 0f64, String::new());
        let mut compared = 0;
        for (&(x, y), (_, regs)) in case.inputs.iter().zip(&out) {
            let want = (case.exact)(x, y);
            if !want.is_finite() || want.abs() >= 16384.0 {
                continue;
            }
            compared += 1;
            let got = regs.get(&128).copied().unwrap_or([0; 3]);
            // (1e-6: the f64 rounding of the comparison itself)
            let allowed = bound.at(want, y) + 1e-6;
            for c in got {
                let e = (fixed_to_f64(c) - want).abs() * ONE as f64;
                worst = worst.max(e);
                let ratio = if allowed > 0.0 {
                    e / allowed
                } else if e > 0.0 {
                    f64::INFINITY
                } else {
                    0.0
                };
                if ratio > worst_ratio && e > 1e-6 {
                    worst_ratio = ratio;
                    at = format!(
                        "x = {x}, y = {y}: {} vs {want} ({e:.2} ulp, bound {allowed:.2})",
                        fixed_to_f64(c)
                    );
                }
            }
        }
        eprintln!(
            "{:6} {:>7} {:>9.3} {:>6.2}  {:28} {at}",
            case.opcode,
            compared,
            worst,
            worst_ratio,
            bound.to_string()
        );
        assert!(
            compared * 2 >= case.inputs.len(),
            "{}: too few results in range",
            case.opcode
        );
        if worst_ratio > 1.0 {
            failures.push(format!("{}: {at}", case.opcode));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Integer division, remainder, shifts right and masks by constants: exact on every input
/// (integers are raw words on THEIA; the result goes out through I2F).
#[test]
fn integer_operations_are_exact() {
    let input = register_address("CREG_UV0_LAST").unwrap();
    type Op = fn(i32, i32) -> i64;
    let cases: &[(&str, Op)] = &[
        ("IDIV TEMP[1].x, TEMP[0].xxxx, TEMP[0].yyyy", |x, y| {
            if y == 0 { 0 } else { (x / y) as i64 }
        }),
        ("MOD TEMP[1].x, TEMP[0].xxxx, TEMP[0].yyyy", |x, y| {
            if y == 0 { -1 } else { (x % y) as i64 }
        }),
        ("ISHR TEMP[1].x, TEMP[0].xxxx, IMM[0].xxxx", |x, _| {
            (x >> 3) as i64
        }),
        ("ISHR TEMP[1].x, TEMP[0].xxxx, IMM[0].zzzz", |x, _| {
            (x >> 20) as i64
        }),
        ("USHR TEMP[1].x, TEMP[0].xxxx, IMM[0].zzzz", |x, _| {
            ((x as u32) >> 20) as i64
        }),
        ("USHR TEMP[1].x, TEMP[0].xxxx, IMM[0].wwww", |x, _| {
            ((x as u32) >> 18) as i64
        }),
        ("UDIV TEMP[1].x, TEMP[0].xxxx, IMM[0].yyyy", |x, _| {
            ((x as u32) / 8) as i64
        }),
        ("UMOD TEMP[1].x, TEMP[0].xxxx, IMM[0].yyyy", |x, _| {
            ((x as u32) % 8) as i64
        }),
        ("AND TEMP[1].x, TEMP[0].xxxx, IMM[1].xxxx", |x, _| {
            (x & 0xF0) as i64
        }),
        ("NOT TEMP[1].x, TEMP[0].xxxx", |x, _| !x as i64),
    ];
    let mut r = Rng(0x1234_5678_9ABC_DEF1);
    let inputs: Vec<(f64, f64)> = (0..count() / 4)
        .map(|_| {
            let x = (r.uniform(-3000.0, 3000.0)).round();
            let y = (r.uniform(-40.0, 40.0)).round();
            (x, y)
        })
        .chain([
            (0.0, 0.0),
            (7.0, 0.0),
            (-7.0, 2.0),
            (7.0, -2.0),
            (-1.0, 1.0),
            (100.0, 3.0),
        ])
        .collect();
    for (inst, exact) in cases {
        let src = format!(
            "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0..1]\nIMM[0] UINT32 {{3, 8, 20, 18}}\nIMM[1] UINT32 {{240, 0, 0, 0}}\n  0: F2I TEMP[0], IN[0]\n  1: {inst}\n  2: I2F OUT[0], TEMP[1].xxxx\n  3: END\n"
        );
        let p = tgsic::front::text::parse(&src).unwrap();
        let mut opts = TheiaOptions::default();
        opts.bindings.insert(0, input);
        let t = compile(&p, &opts).unwrap_or_else(|e| panic!("{inst}: {e}"));
        let pixels: Vec<Vec<(u16, [u32; 3])>> = inputs
            .iter()
            .map(|&(x, y)| {
                vec![(
                    input,
                    [f64_to_fixed(x).unwrap(), f64_to_fixed(y).unwrap(), 0],
                )]
            })
            .collect();
        let out = Machine::new(t.binary.clone())
            .run_pixels(&pixels)
            .unwrap_or_else(|e| panic!("{inst}: {e}"));
        let mut compared = 0;
        for (&(x, y), (outcome, regs)) in inputs.iter().zip(&out) {
            let want = exact(x as i32, y as i32);
            if want.abs() >= 16384 {
                continue;
            }
            assert_eq!(
                outcome.range_faults, 0,
                "{inst}: x = {x}, y = {y}\n{}",
                t.assembly
            );
            let got = fixed_to_f64(regs.get(&128).copied().unwrap_or([0; 3])[0]);
            assert_eq!(got, want as f64, "{inst}: x = {x}, y = {y}\n{}", t.assembly);
            compared += 1;
        }
        assert!(compared * 3 > inputs.len(), "{inst}: {compared} compared");
        eprintln!(
            "{inst:45} exact on {compared} inputs, {} words",
            t.stats.pixel_words
        );
    }
}

/// fract(x·C) for constants C outside Q15.17 (the hash `fract(sin(x) * 43758.5453)`): the
/// fraction of the exact product of the fixed-point x and the f32 constant, within one unit of
/// 2⁻¹⁷ (the truncating product by C's fractional part), for x over the whole range and C of
/// either sign, with and without a fractional part; no range fault (the integer product wraps,
/// its fraction does not). Comparisons with such constants fold (x < C for every x).
#[test]
fn fraction_of_products_by_constants_outside_the_range() {
    let input = register_address("CREG_UV0_LAST").unwrap();
    let mut r = Rng(0x0F4A_C720_2611);
    let mut xs: Vec<f64> = (0..count() / 4)
        .map(|_| q(r.uniform(-16383.0, 16383.0)))
        .collect();
    xs.extend((0..count() / 4).map(|_| q(r.uniform(-1.0, 1.0))));
    xs.extend([0.0, q(0.7390623), -16384.0, q(16383.99999), q(-3.25)]);
    for c in [
        43_758.547_f32,
        -43_758.547,
        12345678.0,
        -98765.25,
        16384.0,
        1.0e9,
    ] {
        let src = format!(
            "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0]\nIMM[0] FLT32 {{{c:e}, 0.0, 0.375, 1.0}}\n  0: MUL TEMP[0].x, IN[0].xxxx, IMM[0].xxxx\n  1: FRC OUT[0].x, TEMP[0].xxxx\n  2: SLT OUT[0].y, IN[0].xxxx, IMM[0].xxxx\n  3: MAD TEMP[0].z, IN[0].xxxx, IMM[0].xxxx, IMM[0].zzzz\n  4: FRC OUT[0].z, TEMP[0].zzzz\n  5: END\n"
        );
        let p = tgsic::front::text::parse(&src).unwrap();
        let mut opts = TheiaOptions::default();
        opts.bindings.insert(0, input);
        let t = compile(&p, &opts).unwrap_or_else(|e| panic!("C = {c}: {e}"));
        // One product (the MAD's multiply is the MUL's, shared), used by two FRCs.
        assert_eq!(t.stats.fraction_products, 1, "C = {c}");
        assert!(
            t.warnings.iter().any(|w| w.message.contains("hash")),
            "C = {c}: {:?}",
            t.warnings
        );
        let pixels: Vec<Vec<(u16, [u32; 3])>> = xs
            .iter()
            .map(|&x| vec![(input, [f64_to_fixed(x).unwrap(), 0, 0])])
            .collect();
        let out = Machine::new(t.binary.clone()).run_pixels(&pixels).unwrap();
        let cw = c as f64;
        let mut worst = 0f64;
        for (&x, (outcome, regs)) in xs.iter().zip(&out) {
            assert_eq!(outcome.range_faults, 0, "C = {c}, x = {x}\n{}", t.assembly);
            // The exact product of two dyadic rationals, reduced modulo 1 in integers:
            // x = X/2^17, C = M·2^E.
            let xr = f64_to_fixed(x).unwrap() as i32 as i128;
            let (m, e) = {
                let bits = c.abs().to_bits();
                let exp = ((bits >> 23) & 0xFF) as i32 - 150;
                ((bits & 0x7F_FFFF | 0x80_0000) as i128, exp)
            };
            let sign = if c < 0.0 { -1 } else { 1 };
            // X·M·2^(E−17) modulo 1, as a fraction of 2^17 (E ≥ −9 here, so 17 + 9 bits).
            let p = sign * xr * m; // times 2^(E − 17)
            let shift = 17 - e; // p / 2^shift is the product
            let frac = p.rem_euclid(1i128 << shift) as f64 / (1i128 << shift) as f64;
            let got = fixed_to_f64(regs[&128][0]);
            let d = (got - frac).abs().min(1.0 - (got - frac).abs());
            worst = worst.max(d);
            assert!(
                d <= 1.0 / 131072.0,
                "C = {c}, x = {x}: {got} vs {frac}\n{}",
                t.assembly
            );
            // MAD then FRC: fract(x·C + 0.375).
            let got = fixed_to_f64(regs[&128][2]);
            let want = (frac + 0.375).fract();
            let d = (got - want).abs().min(1.0 - (got - want).abs());
            assert!(
                d <= 1.0 / 131072.0,
                "C = {c}, x = {x}: MAD+FRC {got} vs {want}"
            );
            let lt = x < cw;
            assert_eq!(regs[&128][1], if lt { 0x20000 } else { 0 }, "x < C folds");
        }
        eprintln!(
            "fract(x * {c:e}): {} inputs, max error {:.2} units of 2^-17, {} words",
            xs.len(),
            worst * 131072.0,
            t.stats.pixel_words
        );
    }
}
