//! The interpreter's 64-bit opcodes, doubles and 64-bit integers: values worked out by hand
//! from tgsi_exec's rules (`docs/semantics.md`, "Doubles and 64-bit integers"), the channel
//! pairs each write mask selects included, in a vertex shader (flush-to-zero, as softpipe's
//! draws run).

use tgsic_runtime::host::{Bindings, Module};
use tgsic_tests::run::interpreter;

const HEAD: &str = "VERT\nDCL IN[0..3]\nDCL OUT[0..3]\nDCL TEMP[0..7]\n";

/// Runs `body` once with IN[k] = `inputs[k]` (raw words); returns OUT[0..4] as words. OUT[0]
/// starts as 0xdddddddd in every channel, so that a channel a mask leaves alone shows.
fn run(body: &str, inputs: &[[u32; 4]]) -> Vec<[u32; 4]> {
    let src = format!(
        "{HEAD}IMM[0] UINT32 {{3722304989, 3722304989, 3722304989, 3722304989}}\nMOV OUT[0], IMM[0]\n{body}END\n"
    );
    let program = tgsic::front::text::parse(&src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let shader = Module::new(program).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let mut v = inputs.to_vec();
    v.resize(4, [0; 4]);
    let out = tgsic_tests::run::vertices(&interpreter(&shader), &Bindings::default(), &[v])
        .unwrap_or_else(|e| panic!("{e}\n{src}"));
    out[0].outputs.clone()
}

/// Two doubles as the four words of a register (.xy, .zw).
fn dd(a: f64, b: f64) -> [u32; 4] {
    let (a, b) = (a.to_bits(), b.to_bits());
    [a as u32, (a >> 32) as u32, b as u32, (b >> 32) as u32]
}

/// Two 64-bit integers as the four words of a register.
fn qq(a: u64, b: u64) -> [u32; 4] {
    [a as u32, (a >> 32) as u32, b as u32, (b >> 32) as u32]
}

/// The double in words `lo`, `lo + 1` of `r`.
fn d_at(r: [u32; 4], lo: usize) -> f64 {
    f64::from_bits(r[lo] as u64 | (r[lo + 1] as u64) << 32)
}

const UNTOUCHED: u32 = 0xdddd_dddd;

#[test]
fn double_arithmetic_is_ieee_pair_by_pair() {
    let o = run(
        "DADD OUT[0], IN[0], IN[1]\n",
        &[dd(0.1, 1.7e308), dd(0.2, 1.7e308)],
    );
    assert_eq!(d_at(o[0], 0), 0.1 + 0.2);
    assert_eq!(d_at(o[0], 2), f64::INFINITY);
    let o = run(
        "DMUL OUT[0].xy, IN[0], IN[1]\nDDIV OUT[1], IN[0], IN[1]\nDMAD OUT[2], IN[0], IN[1], IN[2]\n",
        &[dd(3.0, 1.0), dd(7.0, 0.0), dd(0.5, -2.0)],
    );
    assert_eq!(d_at(o[0], 0), 21.0);
    assert_eq!(&o[0][2..], &[UNTOUCHED, UNTOUCHED]);
    assert_eq!(d_at(o[1], 0), 3.0 / 7.0);
    assert_eq!(d_at(o[1], 2), f64::INFINITY);
    assert_eq!(d_at(o[2], 0), 21.5);
    // 1·0 + −2 (the product rounded first; MAD is not fused).
    assert_eq!(d_at(o[2], 2), -2.0);
    // A 64-bit source swizzle: .zwxy swaps the pairs.
    let o = run(
        "DADD OUT[0], IN[0].zwxy, IN[1]\n",
        &[dd(1.0, 2.0), dd(10.0, 20.0)],
    );
    assert_eq!((d_at(o[0], 0), d_at(o[0], 2)), (12.0, 21.0));
}

#[test]
fn write_masks_select_pairs_as_tgsi_exec_does() {
    let a = [dd(4.0, 9.0), dd(1.0, 1.0)];
    // Binary opcodes write the whole pair when the mask has either channel.
    let o = run("DADD OUT[0].x, IN[0], IN[1]\n", &a);
    assert_eq!(d_at(o[0], 0), 5.0);
    assert_eq!(&o[0][2..], &[UNTOUCHED, UNTOUCHED]);
    let o = run("DADD OUT[0].w, IN[0], IN[1]\n", &a);
    assert_eq!(&o[0][..2], &[UNTOUCHED, UNTOUCHED]);
    assert_eq!(d_at(o[0], 2), 10.0);
    // Unary ones only when it has both.
    let o = run("DSQRT OUT[0].xyz, IN[0]\n", &a);
    assert_eq!(d_at(o[0], 0), 2.0);
    assert_eq!(&o[0][2..], &[UNTOUCHED, UNTOUCHED]);
    // Comparisons write one word, in the pair's first channel the mask has.
    let o = run(
        "DSLT OUT[0].yz, IN[0], IN[1]\n",
        &[dd(0.5, 2.0), dd(1.0, 1.0)],
    );
    assert_eq!(o[0], [UNTOUCHED, u32::MAX, 0, UNTOUCHED]);
    // Conversions to 32 bits: the first masked channel from .xy, the second from .zw.
    let o = run("D2F OUT[0].yw, IN[0]\n", &[dd(1.5, -2.25)]);
    assert_eq!(
        o[0],
        [UNTOUCHED, 1.5f32.to_bits(), UNTOUCHED, (-2.25f32).to_bits()]
    );
    // Conversions from 32 bits: .xy from channel x, .zw from channel y.
    let o = run("I2D OUT[0], IN[0]\n", &[[(-3i32) as u32, 7, 99, 99]]);
    assert_eq!((d_at(o[0], 0), d_at(o[0], 2)), (-3.0, 7.0));
}

#[test]
fn conversions_follow_x86s_casts() {
    let o = run(
        "D2I OUT[0].xy, IN[0]\nD2U OUT[0].zw, IN[1]\nD2U OUT[1].xy, IN[2]\n",
        &[dd(-2.7, 3e9), dd(4_294_967_301.0, -1.5), dd(1e30, f64::NAN)],
    );
    assert_eq!(o[0], [(-2i32) as u32, 0x8000_0000, 5, u32::MAX]);
    assert_eq!(&o[1][..2], &[0, 0]);
    let o = run(
        "F2U64 OUT[0], IN[0]\nF2I64 OUT[1], IN[1]\n",
        &[
            [(-1.0f32).to_bits(), 1e20f32.to_bits(), 0, 0],
            [f32::NAN.to_bits(), (-3.5f32).to_bits(), 0, 0],
        ],
    );
    assert_eq!(o[0], qq(u64::MAX, 0));
    assert_eq!(o[1], qq(1 << 63, (-3i64) as u64));
    let o = run(
        "I642F OUT[0].x, IN[0]\nU642D OUT[1], IN[0]\n",
        &[qq(u64::MAX, 1 << 53 | 1)],
    );
    assert_eq!(o[0][0], (-1.0f32).to_bits());
    assert_eq!(d_at(o[1], 0), 18_446_744_073_709_551_615.0);
    assert_eq!(d_at(o[1], 2), 9_007_199_254_740_992.0);
}

#[test]
fn integer_arithmetic_wraps_and_defines_zero_divisors() {
    let m = u64::MAX;
    let o = run(
        "U64ADD OUT[0], IN[0], IN[1]\nU64DIV OUT[1], IN[0], IN[2]\nI64DIV OUT[2], IN[3], IN[1]\nI64MOD OUT[3], IN[0], IN[2]\n",
        &[qq(m, 10), qq(1, 3), qq(0, 4), qq(1 << 63, 7)],
    );
    assert_eq!(o[0], qq(0, 13));
    assert_eq!(o[1], qq(m, 2));
    // i64::MIN / 1, then 7 / 3.
    assert_eq!(o[2], qq(1 << 63, 2));
    assert_eq!(o[3], qq(m, 2));
    let o = run(
        "U64SHL OUT[0], IN[0], IN[1]\nI64SHR OUT[1], IN[2], IN[1]\nI64MIN OUT[2], IN[0], IN[2]\nU64MIN OUT[3], IN[0], IN[2]\n",
        &[qq(3, 5), [65, 0, 4, 0], qq(1 << 63, 1 << 63)],
    );
    // Shift counts use their low 6 bits, read in channels x and z.
    assert_eq!(o[0], qq(6, 80));
    assert_eq!(o[1], qq(0xC000_0000_0000_0000, 0xF800_0000_0000_0000));
    assert_eq!(o[2], qq(1 << 63, 1 << 63));
    assert_eq!(o[3], qq(3, 5));
}

#[test]
fn frexp_ldexp_and_signs() {
    let o = run("DFRACEXP OUT[0], OUT[1].x, IN[0]\n", &[dd(8.0, -3.0)]);
    assert_eq!((d_at(o[0], 0), d_at(o[0], 2)), (0.5, -0.75));
    // The exponent of the .zw pair, the last computed.
    assert_eq!(o[1][0], 2);
    let o = run(
        "DLDEXP OUT[0], IN[0], IN[1]\n",
        &[dd(1.5, 1.0), [4, 0, (-1075i32) as u32, 0]],
    );
    assert_eq!((d_at(o[0], 0), d_at(o[0], 2)), (24.0, 0.0));
    let o = run(
        "DABS OUT[0], IN[0]\nDNEG OUT[1], IN[0]\nDSSG OUT[2], IN[0]\nI64SSG OUT[3], IN[1]\n",
        &[dd(-0.0, -5.0), qq(0, u64::MAX)],
    );
    // DABS is `x >= 0 ? x : -x`: -0 stays -0.
    assert_eq!(o[0], dd(-0.0, 5.0));
    assert_eq!(o[1], dd(0.0, 5.0));
    assert_eq!(o[2], dd(0.0, -1.0));
    assert_eq!(o[3], qq(0, u64::MAX));
}

#[test]
fn draws_flush_double_denormals() {
    let tiny = f64::from_bits(1);
    let o = run(
        "DADD OUT[0], IN[0], IN[1]\nMOV OUT[1], IN[0]\nDSEQ OUT[2].x, IN[0], IN[1]\n",
        &[dd(tiny, 1.0), dd(0.0, 0.0)],
    );
    assert_eq!(o[0], dd(0.0, 1.0));
    // A MOV copies the bits; the comparison reads the denormal as 0.
    assert_eq!(o[1], dd(tiny, 1.0));
    assert_eq!(o[2][0], u32::MAX);
    let o = run(
        "DMUL_SAT OUT[0], IN[0], IN[1]\n",
        &[dd(3.0, f64::NAN), dd(1.0, 1.0)],
    );
    assert_eq!(o[0], dd(1.0, 0.0));
}

#[test]
fn modifiers_on_64_bit_sources_are_refused() {
    let bad = format!("{HEAD}DADD OUT[0], -IN[0], IN[1]\nEND\n");
    let p = tgsic::front::text::parse(&bad).expect("parses");
    let e = tgsic::valid::validate(&p).expect_err("refused");
    let text = e
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        text.contains("source 0 of DADD holds 64-bit values"),
        "{text}"
    );
    let bad = format!("{HEAD}U64ADD_SAT OUT[0], IN[0], IN[1]\nEND\n");
    let p = tgsic::front::text::parse(&bad).expect("parses");
    let e = tgsic::valid::validate(&p).expect_err("refused");
    assert!(
        e.iter().any(|e| e.to_string().contains("U64ADD_SAT")),
        "{e:?}"
    );
}

#[test]
fn every_engine_runs_64_bit_programs() {
    use tgsic_runtime::host::{CompileOptions, EngineKind};
    let src = format!("{HEAD}DADD OUT[0], IN[0], IN[1]\nI2I64 OUT[1], IN[2]\nEND\n");
    let m = Module::new(tgsic::front::text::parse(&src).expect("parses")).expect("loads");
    let inputs = [vec![
        dd(1.5, 2.0),
        dd(2.0, 0.25),
        [(-7i32) as u32, 9, 0, 0],
        [0; 4],
    ]];
    for opts in tgsic_tests::run::every_engine_exact() {
        let e = tgsic_tests::run::compile(&m, &opts)
            .unwrap_or_else(|e| panic!("{:?}: {e}", opts.engine));
        let out = tgsic_tests::run::vertices(&e, &Bindings::default(), &inputs)
            .unwrap_or_else(|e| panic!("{:?}: {e}", opts.engine));
        assert_eq!(out[0].outputs[0], dd(3.5, 2.25), "{:?}", opts.engine);
        assert_eq!(
            out[0].outputs[1],
            qq((-7i64) as u64, 9),
            "{:?}",
            opts.engine
        );
        e.wait_for_best();
        let _ = EngineKind::Auto;
        let _ = CompileOptions::default();
    }
}

/// NaN bits every engine gives as the interpreter does: canonical where arithmetic made them,
/// the sign flipped by DNEG and DABS of one.
#[test]
fn every_engine_gives_the_interpreters_nan_bits() {
    let src = format!(
        "{HEAD}DDIV TEMP[0], IN[0], IN[0]\nDNEG OUT[0], TEMP[0]\nDSQRT OUT[1], IN[1]\nDADD OUT[2], TEMP[0], IN[1]\nDABS OUT[3], TEMP[0]\nEND\n"
    );
    let m = Module::new(tgsic::front::text::parse(&src).expect("parses")).expect("loads");
    // 0/0, and a NaN with a payload in IN[1].zw.
    let payload = f64::from_bits(0x7FF0_0000_0000_1234);
    let inputs = [vec![dd(0.0, 0.0), dd(-4.0, payload), [0; 4], [0; 4]]];
    let canonical = tgsic::numerics::wide::CANONICAL_NAN64;
    let want = [
        qq(canonical ^ (1 << 63), canonical ^ (1 << 63)),
        qq(canonical, canonical),
        qq(canonical, canonical),
        // DABS is `x >= 0 ? x : -x`: a NaN's sign flips.
        qq(canonical ^ (1 << 63), canonical ^ (1 << 63)),
    ];
    let interp = run(&src.replacen(HEAD, "", 1).replace("END\n", ""), &inputs[0]);
    assert_eq!(&interp[..4], &want);
    for opts in tgsic_tests::run::every_engine_exact() {
        let e = tgsic_tests::run::compile(&m, &opts)
            .unwrap_or_else(|e| panic!("{:?}: {e}", opts.engine));
        let out = tgsic_tests::run::vertices(&e, &Bindings::default(), &inputs)
            .unwrap_or_else(|e| panic!("{:?}: {e}", opts.engine));
        assert_eq!(&out[0].outputs[..4], &want, "{:?}", opts.engine);
        e.wait_for_best();
    }
}
