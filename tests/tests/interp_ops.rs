//! The interpreter, opcode by opcode: values worked out by hand from the specification's
//! formulas as `docs/semantics.md` settles them, edge cases included.

// Lane and component indices address several parallel arrays at once.
#![allow(clippy::needless_range_loop)]

use tgsic_runtime::host::{Bindings, HostError, Invocation, LoadError, Module, Picture};
use tgsic_tests::run::interpreter;

/// Runs a vertex shader once per vertex with the interpreter.
fn run_vertices(
    shader: &Module,
    bind: &Bindings,
    vertices: &[Vec<[u32; 4]>],
) -> Result<Vec<Invocation>, HostError> {
    tgsic_tests::run::vertices(&interpreter(shader), bind, vertices)
}

/// Renders a fragment shader with the interpreter.
fn render(shader: &Module, bind: &Bindings, w: u32, h: u32, o: u32) -> Result<Picture, HostError> {
    tgsic_tests::run::render(&interpreter(shader), bind, w, h, o)
}

const HEAD: &str =
    "VERT\nDCL IN[0..3]\nDCL OUT[0..3]\nDCL TEMP[0..7]\nDCL ADDR[0]\nDCL CONST[0..3]\n";

/// Runs `body` as a vertex shader once per vertex; `inputs[v]` are IN[0..] of vertex v (float
/// values); returns OUT registers as bits.
fn run_bits(body: &str, consts: &[[u32; 4]], inputs: &[Vec<[u32; 4]>]) -> Vec<Vec<[u32; 4]>> {
    let src = format!("{HEAD}{body}");
    let program = tgsic::front::text::parse(&src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let shader = Module::new(program).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let bind = Bindings {
        constants: vec![consts.to_vec()],
        max_iterations: 100,
        ..Bindings::default()
    };
    let inputs: Vec<Vec<[u32; 4]>> = inputs
        .iter()
        .map(|v| {
            let mut v = v.clone();
            v.resize(4, [0; 4]);
            v
        })
        .collect();
    run_vertices(&shader, &bind, &inputs)
        .unwrap()
        .into_iter()
        .map(|i| i.outputs)
        .collect()
}

fn fl(v: [f32; 4]) -> [u32; 4] {
    v.map(f32::to_bits)
}

/// One vertex with float inputs; OUT[0] as floats.
fn out0(body: &str, inputs: &[[f32; 4]]) -> [f32; 4] {
    let v: Vec<[u32; 4]> = inputs.iter().map(|&i| fl(i)).collect();
    run_bits(body, &[], &[v])[0][0].map(f32::from_bits)
}

/// One vertex with raw inputs; OUT[0] as bits.
fn out0_bits(body: &str, inputs: &[[u32; 4]]) -> [u32; 4] {
    run_bits(body, &[], &[inputs.to_vec()])[0][0]
}

const NAN: f32 = f32::NAN;
const INF: f32 = f32::INFINITY;

#[test]
fn arithmetic_rounds_every_step() {
    assert_eq!(
        out0(
            "ADD OUT[0], IN[0], IN[1]\n",
            &[[1.0, 2.0, -3.0, 0.5], [0.5, 0.25, 3.0, 1e30]]
        ),
        [1.5, 2.25, 0.0, 1e30]
    );
    assert_eq!(
        out0(
            "SUB OUT[0], IN[0], IN[1]\n",
            &[[1.0, 2.0, 3.0, 4.0], [4.0, 3.0, 2.0, 1.0]]
        ),
        [-3.0, -1.0, 1.0, 3.0]
    );
    // MAD is not fused: (1 + 2^-12)^2 rounds to 1 + 2^-11 before the addition.
    let a = 1.0 + 2f32.powi(-12);
    let c = -(1.0 + 2f32.powi(-11));
    assert_eq!(
        out0("MAD OUT[0], IN[0], IN[0], IN[1]\n", &[[a; 4], [c; 4]])[0],
        0.0
    );
    assert_eq!(
        out0("FMA OUT[0], IN[0], IN[0], IN[1]\n", &[[a; 4], [c; 4]])[0],
        2f32.powi(-24)
    );
    // DP3 accumulates x, y, z left to right: 1e8 + 1 rounds to 1e8.
    assert_eq!(
        out0(
            "DP3 OUT[0], IN[0], IN[1]\n",
            &[[1e8, 1.0, -1e8, 5.0], [1.0; 4]]
        ),
        [0.0; 4]
    );
    assert_eq!(
        out0(
            "DP4 OUT[0], IN[0], IN[1]\n",
            &[[1.0, 2.0, 3.0, 4.0], [2.0; 4]]
        ),
        [20.0; 4]
    );
    assert_eq!(
        out0(
            "DP2 OUT[0], IN[0], IN[1]\n",
            &[[1.0, 2.0, 3.0, 4.0], [2.0; 4]]
        ),
        [6.0; 4]
    );
    assert_eq!(
        out0(
            "DPH OUT[0], IN[0], IN[1]\n",
            &[[1.0, 2.0, 3.0, 100.0], [1.0, 1.0, 1.0, 0.5]]
        ),
        [6.5; 4]
    );
    assert_eq!(
        out0(
            "DP2A OUT[0], IN[0], IN[1], IN[2]\n",
            &[
                [1.0, 2.0, 0.0, 0.0],
                [3.0, 4.0, 0.0, 0.0],
                [0.5, 9.0, 9.0, 9.0]
            ]
        ),
        [11.5; 4]
    );
    // LRP = src0 * (src1 - src2) + src2.
    assert_eq!(
        out0(
            "LRP OUT[0], IN[0], IN[1], IN[2]\n",
            &[
                [0.25, 0.0, 1.0, 0.5],
                [4.0, 4.0, 4.0, 4.0],
                [0.0, 2.0, 2.0, -4.0]
            ]
        ),
        [1.0, 2.0, 4.0, 0.0]
    );
    assert_eq!(
        out0(
            "DIV OUT[0], IN[0], IN[1]\n",
            &[[1.0, -1.0, 0.0, 6.0], [0.0, 0.0, 0.0, 3.0]]
        )[..2],
        [INF, -INF]
    );
    assert!(out0("DIV OUT[0], IN[0], IN[1]\n", &[[0.0; 4], [0.0; 4]])[0].is_nan());
    assert_eq!(
        out0(
            "XPD OUT[0], IN[0], IN[1]\n",
            &[[1.0, 0.0, 0.0, 7.0], [0.0, 1.0, 0.0, 7.0]]
        ),
        [0.0, 0.0, 1.0, 1.0]
    );
    assert_eq!(
        out0(
            "DST OUT[0], IN[0], IN[1]\n",
            &[[9.0, 2.0, 3.0, 9.0], [9.0, 4.0, 9.0, 5.0]]
        ),
        [1.0, 8.0, 3.0, 5.0]
    );
}

#[test]
// 1.442695 is Mesa's literal (`docs/semantics.md`), deliberately not LOG2_E.
#[allow(clippy::approx_constant)]
fn transcendentals_and_their_edges() {
    let o = out0("RCP OUT[0], IN[0].xxxx\n", &[[0.0; 4]]);
    assert_eq!(o, [INF; 4]);
    assert_eq!(out0("RCP OUT[0], IN[0].xxxx\n", &[[-0.0; 4]]), [-INF; 4]);
    assert_eq!(
        out0("RCP OUT[0], IN[0]\n", &[[4.0, 9.0, 9.0, 9.0]]),
        [0.25; 4],
        "RCP reads x only"
    );
    assert_eq!(
        out0("RSQ OUT[0], IN[0]\n", &[[4.0, 0.0, 0.0, 0.0]]),
        [0.5; 4]
    );
    assert_eq!(out0("RSQ OUT[0], IN[0]\n", &[[0.0; 4]]), [INF; 4]);
    assert!(
        out0("RSQ OUT[0], IN[0]\n", &[[-4.0; 4]])[0].is_nan(),
        "no |x|: a negative root is NaN"
    );
    assert_eq!(out0("RSQ OUT[0], |IN[0]|\n", &[[-4.0; 4]]), [0.5; 4]);
    assert!(out0("SQRT OUT[0], IN[0]\n", &[[-1.0; 4]])[0].is_nan());
    assert_eq!(out0("SQRT OUT[0], IN[0]\n", &[[2.25; 4]]), [1.5; 4]);
    assert_eq!(out0("EX2 OUT[0], IN[0]\n", &[[3.0; 4]]), [8.0; 4]);
    assert_eq!(out0("LG2 OUT[0], IN[0]\n", &[[0.0; 4]]), [-INF; 4]);
    assert!(out0("LG2 OUT[0], IN[0]\n", &[[-1.0; 4]])[0].is_nan());
    // LG2 = logf(x) * 1.442695f, which is not exactly log2f.
    let x = 10.0f32;
    assert_eq!(
        out0("LG2 OUT[0], IN[0]\n", &[[x; 4]])[0],
        x.ln() * 1.442_695
    );
    assert_eq!(
        out0("POW OUT[0], IN[0], IN[1]\n", &[[2.0; 4], [10.0; 4]]),
        [1024.0; 4]
    );
    assert_eq!(
        out0("SIN OUT[0], IN[0]\n", &[[1.0, 5.0, 5.0, 5.0]]),
        [1f32.sin(); 4],
        "SIN replicates sin(src.x)"
    );
    assert_eq!(out0("COS OUT[0], IN[0]\n", &[[0.5; 4]]), [0.5f32.cos(); 4]);
    assert_eq!(
        out0("SCS OUT[0], IN[0]\n", &[[0.0; 4]]),
        [1.0, 0.0, 0.0, 1.0]
    );
    assert_eq!(
        out0("EXP OUT[0], IN[0]\n", &[[2.5; 4]]),
        [4.0, 0.5, 2.5f32.exp2(), 1.0]
    );
    let l = out0("LOG OUT[0], IN[0]\n", &[[-8.0; 4]]);
    assert_eq!([l[0], l[1], l[3]], [3.0, 1.0, 1.0]);
    assert_eq!(
        out0("LIT OUT[0], IN[0]\n", &[[2.0, 3.0, 0.0, 2.0]]),
        [1.0, 2.0, 9.0, 1.0]
    );
    assert_eq!(
        out0("LIT OUT[0], IN[0]\n", &[[-2.0, 3.0, 0.0, 2.0]]),
        [1.0, 0.0, 0.0, 1.0]
    );
    assert_eq!(
        out0("LIT OUT[0], IN[0]\n", &[[1.0, 2.0, 0.0, 500.0]])[2],
        2f32.powf(128.0),
        "the exponent is clamped to 128"
    );
}

#[test]
fn rounding_and_comparisons() {
    assert_eq!(
        out0("FRC OUT[0], IN[0]\n", &[[-0.25, 1.75, 0.0, -3.0]]),
        [0.75, 0.75, 0.0, 0.0]
    );
    assert_eq!(
        out0("FLR OUT[0], IN[0]\n", &[[-0.5, 1.5, -2.0, 0.0]]),
        [-1.0, 1.0, -2.0, 0.0]
    );
    assert_eq!(
        out0("CEIL OUT[0], IN[0]\n", &[[-0.5, 1.5, -2.0, 0.1]]),
        [-0.0, 2.0, -2.0, 1.0]
    );
    assert_eq!(
        out0("ROUND OUT[0], IN[0]\n", &[[2.5, 3.5, -2.5, 0.4]]),
        [2.0, 4.0, -2.0, 0.0],
        "half to even"
    );
    assert_eq!(
        out0("TRUNC OUT[0], IN[0]\n", &[[-1.7, 1.7, 0.2, -0.2]]),
        [-1.0, 1.0, 0.0, -0.0]
    );
    assert_eq!(
        out0("SSG OUT[0], IN[0]\n", &[[-3.0, 0.0, 2.0, NAN]]),
        [-1.0, 0.0, 1.0, 0.0]
    );
    assert_eq!(
        out0(
            "MIN OUT[0], IN[0], IN[1]\n",
            &[[NAN, 2.0, 1.0, -1.0], [2.0, NAN, 3.0, -2.0]]
        ),
        [2.0, 2.0, 1.0, -2.0]
    );
    assert_eq!(
        out0(
            "MAX OUT[0], IN[0], IN[1]\n",
            &[[NAN, 2.0, 1.0, -1.0], [2.0, NAN, 3.0, -2.0]]
        ),
        [2.0, 2.0, 3.0, -1.0]
    );
    assert_eq!(
        out0(
            "SLT OUT[0], IN[0], IN[1]\n",
            &[[1.0, NAN, 2.0, 1.0], [2.0, 1.0, 1.0, 1.0]]
        ),
        [1.0, 0.0, 0.0, 0.0]
    );
    assert_eq!(
        out0(
            "SNE OUT[0], IN[0], IN[1]\n",
            &[[1.0, NAN, 2.0, 1.0], [2.0, NAN, 2.0, 1.0]]
        ),
        [1.0, 1.0, 0.0, 0.0],
        "not-equal is true with NaN"
    );
    assert_eq!(
        out0(
            "SGE OUT[0], IN[0], IN[1]\n",
            &[[1.0, NAN, 2.0, 1.0], [2.0, 1.0, 1.0, 1.0]]
        ),
        [0.0, 0.0, 1.0, 1.0]
    );
    assert_eq!(
        out0_bits(
            "FSNE OUT[0], IN[0], IN[1]\n",
            &[fl([1.0, NAN, 2.0, 1.0]), fl([2.0, NAN, 2.0, 1.0])]
        ),
        [u32::MAX, u32::MAX, 0, 0]
    );
    assert_eq!(
        out0_bits(
            "FSLT OUT[0], IN[0], IN[1]\n",
            &[fl([1.0, NAN, 2.0, 1.0]), fl([2.0, 1.0, 1.0, 1.0])]
        ),
        [u32::MAX, 0, 0, 0]
    );
    // CMP: src0 < 0 ? src1 : src2; a NaN condition picks src2.
    assert_eq!(
        out0(
            "CMP OUT[0], IN[0], IN[1], IN[2]\n",
            &[[-1.0, 0.0, NAN, 1.0], [1.0; 4], [2.0; 4]]
        ),
        [1.0, 2.0, 2.0, 2.0]
    );
    assert_eq!(
        out0(
            "CND OUT[0], IN[0], IN[1], IN[2]\n",
            &[[1.0; 4], [2.0; 4], [0.6, 0.5, 0.0, 1.0]]
        ),
        [1.0, 2.0, 2.0, 1.0]
    );
    assert_eq!(
        out0(
            "CLAMP OUT[0], IN[0], IN[1], IN[2]\n",
            &[[-5.0, 0.5, 5.0, NAN], [0.0; 4], [1.0; 4]]
        ),
        [0.0, 0.5, 1.0, 0.0]
    );
}

#[test]
fn denormals_flush_in_arithmetic_but_not_in_moves() {
    let d = 1u32; // the smallest positive denormal
    assert_eq!(
        out0_bits("MOV OUT[0], IN[0]\n", &[[d, d | 0x8000_0000, 0, 0]]),
        [d, d | 0x8000_0000, 0, 0]
    );
    assert_eq!(
        out0_bits("MOV OUT[0], -IN[0]\n", &[[d; 4]]),
        [d | 0x8000_0000; 4],
        "negate flips the bit"
    );
    assert_eq!(
        out0_bits(
            "ADD OUT[0], IN[0], IN[1]\n",
            &[[d, d | 0x8000_0000, d, d], [0; 4]]
        ),
        [0, 0, 0, 0],
        "a denormal input reads as zero"
    );
    // A denormal result becomes a zero of its sign: 2^-126 * 0.5.
    let min = f32::MIN_POSITIVE;
    assert_eq!(
        out0_bits(
            "MUL OUT[0], IN[0], IN[1]\n",
            &[fl([min, -min, min, 1.0]), fl([0.5, 0.5, 2.0, 1.0])]
        ),
        [0, 0x8000_0000, (2.0 * min).to_bits(), 1f32.to_bits()]
    );
    assert_eq!(
        out0_bits("SLT OUT[0], IN[0], IN[1]\n", &[[0, 0, 0, 0], [d; 4]]),
        [0; 4],
        "0 < denormal is false: the denormal reads as 0"
    );
}

#[test]
fn saturate_modulate_and_source_modifiers() {
    assert_eq!(
        out0("MOV_SAT OUT[0], IN[0]\n", &[[1.5, -0.5, NAN, 0.25]]),
        [1.0, 0.0, 0.0, 0.25]
    );
    assert_eq!(
        out0("MOV_SATNV OUT[0], IN[0]\n", &[[1.5, -3.0, NAN, 0.25]]),
        [1.0, -1.0, 0.0, 0.25]
    );
    assert_eq!(
        out0("ADD_SAT OUT[0], IN[0], IN[0]\n", &[[0.75, -0.1, 0.25, 0.5]]),
        [1.0, 0.0, 0.5, 1.0]
    );
    assert_eq!(
        out0("MOV OUT[0]_2X, IN[0]\n", &[[0.75, -0.1, 0.25, 0.5]]),
        [1.5, -0.2, 0.5, 1.0]
    );
    assert_eq!(
        out0("MOV_SAT OUT[0]_4X, IN[0]\n", &[[0.1, 0.2, 0.3, 0.5]]),
        [0.4, 0.8, 1.0, 1.0],
        "modulate, then saturate"
    );
    assert_eq!(
        out0("MOV OUT[0]_D2, IN[0]\n", &[[1.0, 2.0, 3.0, 4.0]]),
        [0.5, 1.0, 1.5, 2.0]
    );
    assert_eq!(
        out0("MOV OUT[0], -|IN[0]|\n", &[[-1.0, 2.0, -0.0, 3.0]]),
        [-1.0, -2.0, -0.0, -3.0]
    );
    assert_eq!(
        out0("MOV OUT[0], |-IN[0]|\n", &[[-1.0, 2.0, -0.0, 3.0]]),
        [1.0, 2.0, 0.0, 3.0]
    );
    assert_eq!(
        out0("MOV OUT[0], -(-IN[0])\n", &[[-1.0, 2.0, 0.5, 3.0]]),
        [-1.0, 2.0, 0.5, 3.0],
        "the two negations cancel"
    );
    assert_eq!(
        out0("MOV OUT[0], IN[0].wzyx\n", &[[1.0, 2.0, 3.0, 4.0]]),
        [4.0, 3.0, 2.0, 1.0]
    );
    assert_eq!(
        out0("SWZ OUT[0], IN[0].0-1x-w\n", &[[5.0, 6.0, 7.0, 8.0]]),
        [0.0, -1.0, 5.0, -8.0]
    );
    assert_eq!(
        out0("MOV OUT[0], 1-(IN[0])\n", &[[0.25, 1.0, 2.0, -1.0]]),
        [0.75, 0.0, -1.0, 2.0]
    );
    assert_eq!(
        out0("MOV OUT[0], (IN[0]-0.5)\n", &[[0.25, 1.0, 2.0, -1.0]]),
        [-0.25, 0.5, 1.5, -1.5]
    );
    assert_eq!(
        out0("MOV OUT[0], 2*((IN[0]-0.5))\n", &[[0.25, 1.0, 2.0, -1.0]]),
        [-0.5, 1.0, 3.0, -3.0],
        "D3D _bx2"
    );
    assert_eq!(
        out0("MOV OUT[0], IN[0]/w\n", &[[2.0, 4.0, 6.0, 2.0]]),
        [1.0, 2.0, 3.0, 1.0]
    );
    // Write masks keep the other components.
    assert_eq!(
        out0(
            "MOV OUT[0], IN[1]\nMOV OUT[0].yw, IN[0]\n",
            &[[1.0, 2.0, 3.0, 4.0], [9.0; 4]]
        ),
        [9.0, 2.0, 9.0, 4.0]
    );
    // All sources are read before the write: a swap in place.
    assert_eq!(
        out0(
            "MOV TEMP[0], IN[0]\nMOV TEMP[0], TEMP[0].yxwz\nMOV OUT[0], TEMP[0]\n",
            &[[1.0, 2.0, 3.0, 4.0]]
        ),
        [2.0, 1.0, 4.0, 3.0]
    );
}

#[test]
fn integers_and_conversions() {
    let u = |v: [i64; 4]| v.map(|x| x as u32);
    assert_eq!(
        out0_bits("F2I OUT[0], IN[0]\n", &[fl([-1.9, NAN, 3e9, -3e9])]),
        u([-1, 0x8000_0000, 0x8000_0000, 0x8000_0000])
    );
    assert_eq!(
        out0_bits("F2U OUT[0], IN[0]\n", &[fl([3e9, -1.0, NAN, 1e19])]),
        // softpipe's F2U (the compute corpus's README): NaN gives 0x80000000, 2³² and up 0.
        u([3_000_000_000, 0xFFFF_FFFF, 0x8000_0000, 0])
    );
    assert_eq!(
        out0(
            "I2F OUT[0], IN[0]\n",
            &[[f32::from_bits(-5i32 as u32), f32::from_bits(7), 0.0, 0.0]]
        ),
        [-5.0, 7.0, 0.0, 0.0]
    );
    assert_eq!(
        out0(
            "U2F OUT[0], IN[0]\n",
            &[[f32::from_bits(0xFFFF_FFFF), f32::from_bits(7), 0.0, 0.0]]
        ),
        [4294967296.0, 7.0, 0.0, 0.0]
    );
    assert_eq!(
        out0_bits(
            "IDIV OUT[0], IN[0], IN[1]\n",
            &[u([7, -7, 0x8000_0000, 7]), u([0, 2, -1, -2])]
        ),
        u([0, -3, 0x8000_0000, -3])
    );
    assert_eq!(
        out0_bits(
            "UDIV OUT[0], IN[0], IN[1]\n",
            &[u([7, 7, 0, 9]), u([0, 2, 0, 3])]
        ),
        u([0xFFFF_FFFF, 3, 0xFFFF_FFFF, 3])
    );
    assert_eq!(
        out0_bits(
            "UMOD OUT[0], IN[0], IN[1]\n",
            &[u([7, 7, 0, 9]), u([0, 2, 0, 4])]
        ),
        u([0xFFFF_FFFF, 1, 0xFFFF_FFFF, 1])
    );
    assert_eq!(
        out0_bits(
            "MOD OUT[0], IN[0], IN[1]\n",
            &[u([7, -7, 0x8000_0000, 7]), u([0, 2, -1, -2])]
        ),
        u([-1, -1, 0, 1])
    );
    assert_eq!(
        out0_bits(
            "SHL OUT[0], IN[0], IN[1]\n",
            &[u([1, 1, 1, 3]), u([33, 31, 0, 2])]
        ),
        u([2, 0x8000_0000, 1, 12]),
        "shift amounts use their low 5 bits"
    );
    assert_eq!(
        out0_bits(
            "ISHR OUT[0], IN[0], IN[1]\n",
            &[u([-8, 8, -1, 0x4000_0000]), u([1, 35, 31, 30])]
        ),
        u([-4, 1, -1, 1])
    );
    assert_eq!(
        out0_bits(
            "USHR OUT[0], IN[0], IN[1]\n",
            &[u([-8, 8, -1, 1]), u([1, 35, 31, 0])]
        ),
        u([0x7FFF_FFFC, 1, 1, 1])
    );
    assert_eq!(
        out0_bits(
            "UADD OUT[0], IN[0], IN[1]\n",
            &[u([-1, 5, 0, 0]), u([2, 6, 0, 0])]
        ),
        u([1, 11, 0, 0])
    );
    assert_eq!(
        out0_bits(
            "UMUL_HI OUT[0], IN[0], IN[1]\n",
            &[u([-1, 0, 0, 0]), u([-1, 0, 0, 0])]
        ),
        u([0xFFFF_FFFE, 0, 0, 0])
    );
    assert_eq!(
        out0_bits(
            "IMUL_HI OUT[0], IN[0], IN[1]\n",
            &[u([-1, 0, 0, 0]), u([-1, 0, 0, 0])]
        ),
        u([0, 0, 0, 0])
    );
    assert_eq!(
        out0_bits(
            "IMIN OUT[0], IN[0], IN[1]\n",
            &[u([-1, 3, 0, 0]), u([1, 2, 0, 0])]
        ),
        u([-1, 2, 0, 0])
    );
    assert_eq!(
        out0_bits(
            "UMIN OUT[0], IN[0], IN[1]\n",
            &[u([-1, 3, 0, 0]), u([1, 2, 0, 0])]
        ),
        u([1, 2, 0, 0])
    );
    assert_eq!(
        out0_bits("INEG OUT[0], IN[0]\n", &[u([5, 0x8000_0000, 0, -3])]),
        u([-5, 0x8000_0000, 0, 3])
    );
    assert_eq!(
        out0_bits("IABS OUT[0], IN[0]\n", &[u([-5, 0x8000_0000, 0, 3])]),
        u([5, 0x8000_0000, 0, 3])
    );
    assert_eq!(
        out0_bits("ISSG OUT[0], IN[0]\n", &[u([-5, 0, 9, 1])]),
        u([-1, 0, 1, 1])
    );
    assert_eq!(
        out0_bits(
            "UCMP OUT[0], IN[0], IN[1], IN[2]\n",
            &[u([0, 1, -1, 0]), u([7; 4]), u([9; 4])]
        ),
        u([9, 7, 7, 9])
    );
    assert_eq!(
        out0_bits(
            "USLT OUT[0], IN[0], IN[1]\n",
            &[u([-1, 1, 0, 0]), u([1, 2, 0, 0])]
        ),
        u([0, -1, 0, 0])
    );
    assert_eq!(
        out0_bits(
            "ISLT OUT[0], IN[0], IN[1]\n",
            &[u([-1, 1, 0, 0]), u([1, 2, 0, 0])]
        ),
        u([-1, -1, 0, 0])
    );
    assert_eq!(
        out0_bits(
            "AND OUT[0], IN[0], IN[1]\n",
            &[u([0xFF, 0xF0, 0, -1]), u([0x0F, 0xFF, 5, 6])]
        ),
        u([0x0F, 0xF0, 0, 6])
    );
    assert_eq!(
        out0_bits("NOT OUT[0], IN[0]\n", &[u([0, -1, 5, 0])]),
        u([-1, 0, -6, -1])
    );
    assert_eq!(
        out0_bits(
            "UBFE OUT[0], IN[0], IN[1], IN[2]\n",
            &[u([0xABCD_1234; 4]), u([8, 0, 28, 4]), u([8, 0, 8, 32])]
        ),
        u([0x12, 0, 0xA, 0])
    );
    assert_eq!(
        out0_bits(
            "BFI OUT[0], IN[0], IN[1], IN[2], IN[3]\n",
            &[u([-1; 4]), u([0; 4]), u([8; 4]), u([8; 4])]
        ),
        u([0xFFFF_00FF; 4])
    );
    assert_eq!(
        out0_bits("POPC OUT[0], IN[0]\n", &[u([-1, 0, 7, 0x8000_0000])]),
        u([32, 0, 3, 1])
    );
    assert_eq!(
        out0_bits("UMSB OUT[0], IN[0]\n", &[u([1, 0, 0x10, -1])]),
        u([0, -1, 4, 31])
    );
    assert_eq!(
        out0_bits(
            "ARL ADDR[0], IN[0]\nUARL OUT[0], ADDR[0]\n",
            &[fl([-1.5, 2.9, 0.0, 0.0])]
        ),
        u([-2, 2, 0, 0])
    );
}

#[test]
fn indirect_addressing_stays_inside_its_registers() {
    let u = |v: i32| v as u32;
    // Index 100 is clamped to the declared TEMP range (0..7); -5 to 0.
    let body = "MOV TEMP[0], IN[1]\nMOV TEMP[7], IN[2]\nARL ADDR[0].x, IN[0].xxxx\nMOV OUT[0], TEMP[ADDR[0].x]\n";
    let run =
        |a: f32| run_bits(body, &[], &[vec![fl([a; 4]), fl([1.0; 4]), fl([7.0; 4])]])[0][0][0];
    assert_eq!(f32::from_bits(run(100.0)), 7.0);
    assert_eq!(f32::from_bits(run(-5.0)), 1.0);
    // A constant read beyond the bound buffer gives 0 (the buffer holds 2 registers).
    let consts = [[u(10); 4], [u(11); 4]];
    let body = "ARL ADDR[0].x, IN[0].xxxx\nMOV OUT[0], CONST[ADDR[0].x+1]\n";
    let read = |a: f32| run_bits(body, &consts, &[vec![fl([a; 4])]])[0][0][0];
    assert_eq!(read(0.0), 11);
    assert_eq!(read(1.0), 0, "CONST[2] is beyond the buffer");
    assert_eq!(read(-2.0), 0, "CONST[-1]");
    // An out-of-range indirect write is dropped.
    let body = "MOV TEMP[0], IN[1]\nARL ADDR[0].x, IN[0].xxxx\nMOV TEMP[ADDR[0].x], IN[2]\nMOV OUT[0], TEMP[0]\nMOV OUT[1], TEMP[7]\n";
    let o = run_bits(body, &[], &[vec![fl([9.0; 4]), fl([1.0; 4]), fl([5.0; 4])]])[0].clone();
    assert_eq!(
        (f32::from_bits(o[0][0]), f32::from_bits(o[1][0])),
        (1.0, 0.0)
    );
    // Per-vertex addresses: two vertices read different registers.
    let body = "MOV TEMP[2], IN[1]\nMOV TEMP[3], IN[2]\nARL ADDR[0].x, IN[0].xxxx\nMOV OUT[0], TEMP[ADDR[0].x+2]\n";
    let outs = run_bits(
        body,
        &[],
        &[
            vec![fl([0.0; 4]), fl([4.0; 4]), fl([6.0; 4])],
            vec![fl([1.0; 4]), fl([4.0; 4]), fl([6.0; 4])],
        ],
    );
    assert_eq!(
        (f32::from_bits(outs[0][0][0]), f32::from_bits(outs[1][0][0])),
        (4.0, 6.0)
    );
}

#[test]
fn divergent_control_flow_is_exact_per_invocation() {
    let v = |x: f32| vec![fl([x; 4])];
    // IF/ELSE on a per-vertex condition.
    let body = "IF IN[0].xxxx\n  MOV OUT[0], IN[0]\nELSE\n  MOV OUT[0], -IN[0]\n  ADD OUT[0], OUT[0], IN[0]\nENDIF\nEND\n";
    let o = run_bits(body, &[], &[v(2.0), v(0.0), v(NAN)]);
    assert_eq!(f32::from_bits(o[0][0][0]), 2.0);
    assert_eq!(f32::from_bits(o[1][0][0]), 0.0);
    assert!(f32::from_bits(o[2][0][0]).is_nan(), "IF takes NaN as true");
    // A loop that counts to the vertex's own input, with BRK.
    let body = "MOV TEMP[0], IN[1]\nBGNLOOP\n  SGE TEMP[1].x, TEMP[0].xxxx, IN[0].xxxx\n  IF TEMP[1].xxxx\n    BRK\n  ENDIF\n  ADD TEMP[0], TEMP[0], IN[2]\nENDLOOP\nMOV OUT[0], TEMP[0]\nEND\n";
    let o = run_bits(
        body,
        &[],
        &[
            vec![fl([3.0; 4]), fl([0.0; 4]), fl([1.0; 4])],
            vec![fl([5.0; 4]), fl([0.0; 4]), fl([1.0; 4])],
        ],
    );
    assert_eq!(
        (f32::from_bits(o[0][0][0]), f32::from_bits(o[1][0][0])),
        (3.0, 5.0)
    );
    // CONT skips the rest of an iteration.
    let body = "MOV TEMP[0], IN[1]\nMOV TEMP[2], IN[1]\nBGNLOOP\n  ADD TEMP[0], TEMP[0], IN[2]\n  SLT TEMP[1].x, TEMP[0].xxxx, IN[0].xxxx\n  IF TEMP[1].xxxx\n    CONT\n  ENDIF\n  ADD TEMP[2], TEMP[2], IN[2]\n  BRK\nENDLOOP\nMOV OUT[0], TEMP[0]\nMOV OUT[1], TEMP[2]\nEND\n";
    let o = run_bits(body, &[], &[vec![fl([4.0; 4]), fl([0.0; 4]), fl([1.0; 4])]]);
    assert_eq!(
        (f32::from_bits(o[0][0][0]), f32::from_bits(o[0][1][0])),
        (4.0, 1.0)
    );
    // A loop that never ends stops at the iteration budget (100 here) and is reported; a
    // backward BRA is a back edge too: it draws on the same budget, then falls through.
    let bind = Bindings {
        max_iterations: 100,
        ..Bindings::default()
    };
    let counted = |body: &str| {
        let src = format!("{HEAD}MOV TEMP[0], IN[0]\n{body}MOV OUT[0], TEMP[0]\nEND\n");
        let shader = Module::new(tgsic::front::text::parse(&src).unwrap()).unwrap();
        let out = run_vertices(
            &shader,
            &bind,
            &[vec![fl([0.0; 4]), fl([1.0; 4]), [0; 4], [0; 4]]],
        )
        .unwrap();
        (out[0].exhausted, f32::from_bits(out[0].outputs[0][0]))
    };
    assert_eq!(
        counted("BGNLOOP\n  ADD TEMP[0], TEMP[0], IN[1]\nENDLOOP\n"),
        (true, 101.0),
        "100 back edges, 101 passes through the body"
    );
    assert_eq!(
        counted("ADD TEMP[0], TEMP[0], IN[1]\nBRA :1\n"),
        (true, 101.0)
    );
    // The reproducer: a BRA to itself.
    let shader =
        Module::new(tgsic::front::text::parse("FRAG\nDCL OUT[0], COLOR\nBRA :0\nEND\n").unwrap())
            .unwrap();
    let image = render(&shader, &bind, 4, 4, 0).unwrap();
    assert_eq!(image.exhausted, 16);
}

#[test]
fn switch_subroutines_and_return() {
    let u = |x: u32| vec![[x; 4]];
    let body = "IMM[0] UINT32 {1, 2, 10, 20}\nIMM[1] UINT32 {30, 0, 0, 0}\nSWITCH IN[0].xxxx\nCASE IMM[0].xxxx\n  MOV OUT[0], IMM[0].zzzz\n  BRK\nCASE IMM[0].yyyy\n  MOV OUT[0], IMM[0].wwww\nDEFAULT\n  MOV OUT[1], IMM[1].xxxx\n  BRK\nENDSWITCH\nEND\n";
    let o = run_bits(body, &[], &[u(1), u(2), u(7)]);
    assert_eq!((o[0][0][0], o[0][1][0]), (10, 0));
    assert_eq!(
        (o[1][0][0], o[1][1][0]),
        (20, 30),
        "case 2 falls through into DEFAULT"
    );
    assert_eq!((o[2][0][0], o[2][1][0]), (0, 30));
    // CAL / RET with a conditional return inside the subroutine.
    let body = "CAL :3\nMOV OUT[1], IN[0]\nEND\nBGNSUB\n  MOV OUT[0], IN[0]\n  IF IN[0].xxxx\n    RET\n  ENDIF\n  MOV OUT[0], IN[1]\nRET\nENDSUB\n";
    let o = run_bits(
        body,
        &[],
        &[
            vec![fl([1.0; 4]), fl([5.0; 4])],
            vec![fl([0.0; 4]), fl([5.0; 4])],
        ],
    );
    assert_eq!(
        (f32::from_bits(o[0][0][0]), f32::from_bits(o[0][1][0])),
        (1.0, 1.0)
    );
    assert_eq!(
        (f32::from_bits(o[1][0][0]), f32::from_bits(o[1][1][0])),
        (5.0, 0.0)
    );
    // RET in main ends the invocation.
    let body = "MOV OUT[0], IN[0]\nIF IN[0].xxxx\n  RET\nENDIF\nMOV OUT[0], IN[1]\nEND\n";
    let o = run_bits(
        body,
        &[],
        &[
            vec![fl([1.0; 4]), fl([5.0; 4])],
            vec![fl([0.0; 4]), fl([5.0; 4])],
        ],
    );
    assert_eq!(
        (f32::from_bits(o[0][0][0]), f32::from_bits(o[1][0][0])),
        (1.0, 5.0)
    );
}

#[test]
fn nv_loops_condition_codes_and_address_stack() {
    // REP runs its body floor(src.x) times.
    let body = "MOV TEMP[0], IN[1]\nREP IN[0].xxxx\n  ADD TEMP[0], TEMP[0], IN[2]\nENDREP\nMOV OUT[0], TEMP[0]\nEND\n";
    let o = run_bits(body, &[], &[vec![fl([3.7; 4]), fl([0.0; 4]), fl([2.0; 4])]]);
    assert_eq!(f32::from_bits(o[0][0][0]), 6.0);
    // BGNFOR (NV LOOP): start 1, count 3, step 2 in ADDR[0]; the body sees 1, 3, 5.
    let body = "MOV TEMP[0], IN[1]\nLOOP ADDR[0], IN[0]\n  UARL TEMP[1], ADDR[0]\n  UADD TEMP[0].x, TEMP[0].xxxx, TEMP[1].xxxx\nENDLOOP ADDR[0]\nMOV OUT[0], TEMP[0]\nEND\n";
    let o = run_bits(body, &[], &[vec![fl([1.0, 3.0, 2.0, 0.0]), [0; 4]]]);
    assert_eq!(o[0][0][0], 9);
    // A condition code set by MOV_CC0 gates a write (EQ: only where the value was zero).
    let body = "MOV_CC0 TEMP[0], IN[0]\nMOV OUT[0], IN[1]\nMOV OUT[0] (EQ0.xyzw), IN[2]\n";
    assert_eq!(
        out0(body, &[[0.0, 1.0, 0.0, -1.0], [5.0; 4], [7.0; 4]]),
        [7.0, 5.0, 7.0, 5.0]
    );
    // PUSHA / POPA.
    let body = "ARL ADDR[0], IN[0]\nPUSHA ADDR[0]\nARL ADDR[0], IN[1]\nPOPA ADDR[0]\nUARL OUT[0], ADDR[0]\n";
    assert_eq!(
        out0_bits(body, &[fl([1.0, 2.0, 3.0, 4.0]), fl([9.0; 4])]),
        [1, 2, 3, 4]
    );
}

#[test]
fn packing() {
    let o = out0_bits("PK2H OUT[0], IN[0]\n", &[fl([1.0, -2.0, 0.0, 0.0])]);
    assert_eq!(o, [0xC000_3C00; 4]);
    let o = out0("UP2H OUT[0], IN[0]\n", &[[f32::from_bits(0xC000_3C00); 4]]);
    assert_eq!(o, [1.0, -2.0, 1.0, -2.0]);
    assert_eq!(
        out0_bits("PK4UB OUT[0], IN[0]\n", &[fl([1.0, 0.5, 0.0, 2.0])]),
        [0xFF00_80FF; 4]
    );
    assert_eq!(
        out0("UP4UB OUT[0], IN[0]\n", &[[f32::from_bits(0xFF00_80FF); 4]]),
        [1.0, 128.0 / 255.0, 0.0, 1.0]
    );
    assert_eq!(
        out0_bits("PK2US OUT[0], IN[0]\n", &[fl([1.0, 0.0, 0.0, 0.0])]),
        [0xFFFF; 4]
    );
    assert_eq!(
        out0_bits("PK4B OUT[0], IN[0]\n", &[fl([1.0, -1.0, 0.0, 0.5])]),
        [0x4000_817F; 4]
    );
}

/// Runs a fragment shader over a `w`×`h` grid.
fn frag(body: &str, w: u32, h: u32) -> Picture {
    let src = format!(
        "FRAG\nDCL IN[0], POSITION, LINEAR\nDCL IN[1], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0..3]\n{body}"
    );
    let shader = Module::new(tgsic::front::text::parse(&src).unwrap()).unwrap();
    render(
        &shader,
        &Bindings {
            clear: [-7.0; 4],
            ..Bindings::default()
        },
        w,
        h,
        0,
    )
    .unwrap()
}

#[test]
fn fragment_inputs_derivatives_and_kill() {
    let img = frag("MOV OUT[0], IN[0]\n", 4, 2);
    assert_eq!(
        img.pixel(0, 0),
        [0.5, 1.5, 0.5, 1.0],
        "POSITION = (i + 0.5, H - (j + 0.5), 0.5, 1)"
    );
    assert_eq!(img.pixel(3, 1), [3.5, 0.5, 0.5, 1.0]);
    let img = frag("MOV OUT[0], IN[1]\n", 4, 2);
    assert_eq!(img.pixel(1, 1), [0.375, 0.75, 0.0, 1.0]);
    // Coarse derivatives of x*x: DDX = f(2m+1, 2n+1) - f(2m, 2n+1), the same for the quad.
    let img = frag(
        "MUL TEMP[0], IN[0], IN[0]\nDDX OUT[0].x, TEMP[0].xxxx\nDDY OUT[0].y, IN[0].yyyy\nDDX_FINE OUT[0].z, TEMP[0].yyyy\nMOV OUT[0].w, IN[0].wwww\n",
        4,
        2,
    );
    assert_eq!(img.pixel(0, 0)[0], 1.5 * 1.5 - 0.25);
    assert_eq!(img.pixel(3, 1)[0], 3.5 * 3.5 - 2.5 * 2.5);
    assert_eq!(
        img.pixel(2, 0)[1],
        -1.0,
        "DDY = f(2m, 2n+1) - f(2m, 2n): y falls by 1 per row"
    );
    // KILL_IF discards where any component < 0; the pixel keeps the clear colour.
    let img = frag(
        "ADD TEMP[0], IN[1].xxxx, IN[1].wwww\nADD TEMP[0].y, IN[1].xxxx, -IN[1].yyyy\nKILL_IF TEMP[0]\nMOV OUT[0], IN[1]\n",
        2,
        2,
    );
    assert_eq!(img.pixel(0, 1), [-7.0; 4], "x - y < 0 at (0, 1)");
    assert_eq!(img.pixel(1, 0), [0.75, 0.25, 0.0, 1.0]);
    assert_eq!(img.discarded, 1);
    // Odd sizes: the missing pixels of a quad are computed for derivatives and not written.
    let img = frag("DDX OUT[0], IN[0].xxxx\n", 3, 3);
    assert_eq!(img.pixel(2, 2), [1.0; 4]);
}

#[test]
fn load_time_errors_are_typed() {
    let p = tgsic::front::text::parse("FRAG\nDCL TEMP[0]\nNOISE1 TEMP[0], TEMP[0]\n").unwrap();
    assert!(matches!(
        Module::new(p),
        Err(LoadError::NoSemantics {
            opcode: "NOISE1",
            ..
        })
    ));
    let p = tgsic::front::text::parse("FRAG1.2\nEND\n").unwrap();
    assert_eq!(Module::new(p).unwrap_err(), LoadError::NotExecutable(1, 2));
    let p = tgsic::front::text::parse("FRAG\nMOV TEMP[0], TEMP[1]\n").unwrap();
    assert!(matches!(Module::new(p), Err(LoadError::Invalid(_))));
    // A texture instruction with nothing bound is an error that names the unit.
    let p = tgsic::front::text::parse("FRAG\nDCL IN[0], GENERIC[0]\nDCL OUT[0], COLOR\nDCL SAMP[3]\nTEX OUT[0], IN[0], SAMP[3], 2D\n").unwrap();
    let e = render(&Module::new(p).unwrap(), &Bindings::default(), 2, 2, 0).unwrap_err();
    assert!(e.to_string().contains("texture unit 3"), "{e}");
}

/// Runs a fragment shader with texture unit 0 bound; returns pixel (i, j).
fn tex_frag(
    body: &str,
    decl: &str,
    tex: tgsic_runtime::host::Texture,
    sampler: tgsic_runtime::host::Sampler,
    w: u32,
    h: u32,
) -> Picture {
    let src = format!(
        "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0..3]\n{decl}\n{body}"
    );
    let shader = Module::new(tgsic::front::text::parse(&src).unwrap_or_else(|e| panic!("{e}")))
        .unwrap_or_else(|e| panic!("{e}"));
    let bind = Bindings {
        textures: vec![Some(tex)],
        samplers: vec![sampler],
        ..Bindings::default()
    };
    render(&shader, &bind, w, h, 0).unwrap()
}

/// A w×h×d RGBA32F texture whose texel (x, y, z) is (x, y, z, 1 + level) per level, mipmapped.
fn indexed(w: u32, h: u32, d: u32) -> tgsic_runtime::host::Texture {
    let v: Vec<f32> = (0..d)
        .flat_map(|z| {
            (0..h).flat_map(move |y| (0..w).flat_map(move |x| [x as f32, y as f32, z as f32, 1.0]))
        })
        .collect();
    let mut t = tgsic_runtime::host::Texture::from_rgba32f(w, h, d, &v).unwrap();
    t.generate_mipmaps(true);
    t.update_texels(|k, tx| tx[3] = 1.0 + k as f32);
    t
}

#[test]
fn texture_instructions() {
    use tgsic_runtime::host::{Filter, MipFilter, Sampler};
    let s = Sampler::default();
    // TEX 2D nearest at pixel centres of a 4x4 grid over a 4x4 texture reads texel (i, j).
    let img = tex_frag(
        "TEX OUT[0], IN[0], SAMP[0], 2D\n",
        "DCL SAMP[0]",
        indexed(4, 4, 1),
        s,
        4,
        4,
    );
    assert_eq!(img.pixel(3, 1), [3.0, 1.0, 0.0, 1.0]);
    // Implicit LOD: a 16x16 texture over a 4x4 grid is minified by 4: LOD 2 (level 2's alpha 3).
    let mip = Sampler {
        mip: MipFilter::Nearest,
        ..s
    };
    let img = tex_frag(
        "TEX OUT[0], IN[0], SAMP[0], 2D\n",
        "DCL SAMP[0]",
        indexed(16, 16, 1),
        mip,
        4,
        4,
    );
    assert_eq!(img.pixel(0, 0)[3], 3.0);
    // TXB adds its bias (w), TXL gives the level, TXD derives it from gradients.
    let img = tex_frag(
        "MOV TEMP[0], IN[0]\nMOV TEMP[0].w, IMM[0].xxxx\nTXB OUT[0], TEMP[0], SAMP[0], 2D\n",
        "DCL SAMP[0]\nIMM[0] FLT32 {-1.0, 1.0, 0.25, 0.0}",
        indexed(16, 16, 1),
        mip,
        4,
        4,
    );
    assert_eq!(img.pixel(0, 0)[3], 2.0);
    let img = tex_frag(
        "MOV TEMP[0], IN[0]\nMOV TEMP[0].w, IMM[0].yyyy\nTXL OUT[0], TEMP[0], SAMP[0], 2D\n",
        "DCL SAMP[0]\nIMM[0] FLT32 {-1.0, 1.0, 0.25, 0.0}",
        indexed(16, 16, 1),
        mip,
        4,
        4,
    );
    assert_eq!(img.pixel(0, 0)[3], 2.0);
    let img = tex_frag(
        "TXD OUT[0], IN[0], IMM[0].zwww, IMM[0].wzww, SAMP[0], 2D\n",
        "DCL SAMP[0]\nIMM[0] FLT32 {-1.0, 1.0, 0.25, 0.0}",
        indexed(16, 16, 1),
        mip,
        4,
        4,
    );
    assert_eq!(
        img.pixel(0, 0)[3],
        3.0,
        "gradient 1/4 over 16 texels: LOD 2"
    );
    // TXP divides by q.
    let img = tex_frag(
        "MUL TEMP[0], IN[0], IMM[0].yyyy\nMOV TEMP[0].w, IMM[0].yyyy\nMUL TEMP[0], TEMP[0], IMM[0].wwwz\nTXP OUT[0], TEMP[0], SAMP[0], 2D\n",
        "DCL SAMP[0]\nIMM[0] FLT32 {0.0, 1.0, 0.5, 0.5}",
        indexed(4, 4, 1),
        s,
        4,
        4,
    );
    assert_eq!(img.pixel(2, 3), [2.0, 3.0, 0.0, 1.0]);
    // TXF: integer coordinates and level; outside reads 0.
    let img = tex_frag(
        "TXF OUT[0], IMM[0], SAMP[0], 2D\n",
        "DCL SAMP[0]\nIMM[0] INT32 {2, 3, 0, 1}",
        indexed(8, 8, 1),
        s,
        2,
        2,
    );
    assert_eq!(
        img.pixel(0, 0),
        [4.5, 6.5, 0.0, 2.0],
        "level 1 texel (2, 3): the box average of texels (4..5, 6..7)"
    );
    let img = tex_frag(
        "TXF OUT[0], IMM[0], SAMP[0], 2D\n",
        "DCL SAMP[0]\nIMM[0] INT32 {9, 0, 0, 0}",
        indexed(8, 8, 1),
        s,
        2,
        2,
    );
    assert_eq!(img.pixel(0, 0), [0.0; 4]);
    // TXQ: (width, height, 0, levels) of level 1.
    let img = tex_frag(
        "TXQ TEMP[0], IMM[0].xxxx, SAMP[0], 2D\nU2F OUT[0], TEMP[0]\n",
        "DCL SAMP[0]\nIMM[0] UINT32 {1, 0, 0, 0}",
        indexed(8, 4, 1),
        s,
        2,
        2,
    );
    assert_eq!(img.pixel(0, 0), [4.0, 2.0, 0.0, 4.0]);
    // 3D: r selects the slice; arrays: the layer rounds.
    let img = tex_frag(
        "MOV TEMP[0], IN[0]\nMOV TEMP[0].z, IMM[0].zzzz\nTEX OUT[0], TEMP[0], SAMP[0], 3D\n",
        "DCL SAMP[0]\nIMM[0] FLT32 {0.0, 0.0, 0.7, 0.0}",
        indexed(4, 4, 4),
        s,
        4,
        4,
    );
    assert_eq!(img.pixel(1, 2), [1.0, 2.0, 2.0, 1.0]);
    let img = tex_frag(
        "MOV TEMP[0], IN[0]\nMOV TEMP[0].z, IMM[0].zzzz\nTEX OUT[0], TEMP[0], SAMP[0], 2D_ARRAY\n",
        "DCL SAMP[0]\nIMM[0] FLT32 {0.0, 0.0, 2.6, 0.0}",
        indexed(4, 4, 4),
        s,
        4,
        4,
    );
    assert_eq!(img.pixel(1, 2), [1.0, 2.0, 3.0, 1.0]);
    // Cube: +Z at the centre of face 4.
    let img = tex_frag(
        "TEX OUT[0], IMM[0], SAMP[0], CUBE\n",
        "DCL SAMP[0]\nIMM[0] FLT32 {0.0, 0.0, 1.0, 0.0}",
        indexed(4, 4, 6),
        s,
        2,
        2,
    );
    assert_eq!(img.pixel(0, 0), [2.0, 2.0, 4.0, 1.0]);
    // Shadow: the reference (z) compared with red (x): LEQUAL passes from column 2.
    let img = tex_frag(
        "MOV TEMP[0], IN[0]\nMOV TEMP[0].z, IMM[0].zzzz\nTEX OUT[0], TEMP[0], SAMP[0], SHADOW2D\n",
        "DCL SAMP[0]\nIMM[0] FLT32 {0.0, 0.0, 1.5, 0.0}",
        indexed(4, 4, 1),
        s,
        4,
        1,
    );
    assert_eq!(
        (img.pixel(1, 0)[0], img.pixel(2, 0)[0], img.pixel(2, 0)[3]),
        (0.0, 1.0, 1.0)
    );
    // SAMPLE with an SVIEW and a linear sampler in SAMP[0].
    let lin = Sampler {
        min: Filter::Linear,
        mag: Filter::Linear,
        ..s
    };
    let img = tex_frag(
        "SAMPLE OUT[0], IN[0], SVIEW[0], SAMP[0]\n",
        "DCL SAMP[0]\nDCL SVIEW[0], 2D, FLOAT",
        indexed(4, 4, 1),
        lin,
        4,
        4,
    );
    assert_eq!(img.pixel(1, 1), [1.0, 1.0, 0.0, 1.0]);
}

#[test]
fn the_address_stack_is_per_invocation() {
    // Only vertices whose x is non-zero push; every vertex pops.
    let body = "ARL ADDR[0], IN[1]\nIF IN[0].xxxx\n  PUSHA ADDR[0]\nENDIF\nARL ADDR[0], IN[2]\nPOPA ADDR[0]\nUARL OUT[0], ADDR[0]\n";
    let o = run_bits(
        body,
        &[],
        &[
            vec![fl([1.0; 4]), fl([5.0; 4]), fl([9.0; 4])],
            vec![fl([0.0; 4]), fl([5.0; 4]), fl([9.0; 4])],
        ],
    );
    assert_eq!(o[0][0], [5; 4], "pushed 5, popped 5");
    assert_eq!(o[1][0], [0; 4], "nothing pushed: the pop reads zeros");
}
