//! The checks of exact and accurate transcendental functions.

use super::common::*;
use crate::back::abi::*;
use crate::back::compiled::CompiledShader;
use crate::ir::{Function, Op, OutputSlot, Stmt, Type, Unary};
use crate::tgsi::Processor;

/// EX2, LG2, SIN and COS compiled in exact mode against the interpreter's (the C library's) results on
/// every input `step` apart and the special values, bit for bit (both back ends compute them
/// in double-precision lanes), alone and as SIN/COS pairs.
pub fn check_exact_transcendentals(c: Compiler, step: usize) {
    use crate::back::abi::MathMode;
    use crate::ir::semantics as sem;
    let specials = [
        0u32,
        0x8000_0000,
        1,
        0x8000_0001,
        0x007f_ffff,
        0x807f_ffff,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xffc0_0001,
        0x4300_0000,
        0xc300_0000,
        0xc316_0000,
        0xc315_ffff,
        0xc2fc_0000,
        0x42ff_ffff,
        0x3f80_0000,
        0x3f7f_ffff,
        0x3f80_0001,
        0x0080_0000,
        0x7f7f_ffff,
        0xbf80_0000,
    ];
    let mut cases: Vec<(Function, Unary)> = [Unary::FExp2, Unary::FLg2]
        .map(|u| (unary_function(u), u))
        .into();
    cases.extend(sincos_cases());
    for (f, u) in cases {
        let shader = c(&f, MathMode::Exact).expect("compiles");
        let (bad, count, first) = mismatches(&shader, step, &specials, |x| sem::unary(u, x));
        assert_eq!(
            bad, 0,
            "{u:?}: {bad} of {count} inputs differ; first (x, interpreter, code): {first:#010x?}"
        );
    }
}

/// SIN and COS alone, and of one value as a pair (either first, either one read), with the
/// function each case's output is.
pub(super) fn sincos_cases() -> Vec<(Function, Unary)> {
    let mut cases = vec![
        (unary_function(Unary::FSin), Unary::FSin),
        (unary_function(Unary::FCos), Unary::FCos),
    ];
    for (first, second) in [(Unary::FSin, Unary::FCos), (Unary::FCos, Unary::FSin)] {
        for (out, u) in [(false, first), (true, second)] {
            cases.push((pair_function(first, second, out), u));
        }
    }
    cases
}

/// Runs `shader` (one input, one output) on every `step`-th f32, then `specials`, then inputs
/// scattered over every exponent (so that a step mixes small, large and special lanes), in
/// chunks of a million (all 2³² at once would take 16 GiB), against `want`: how many differ,
/// of how many, and the first (x, wanted, got).
pub(super) fn mismatches(
    shader: &CompiledShader,
    step: usize,
    specials: &[u32],
    want: impl Fn(u32) -> u32,
) -> (u64, u64, Option<(u32, u32, u32)>) {
    let scattered = (0..1u32 << 16).map(|i| i.wrapping_mul(0x9e37_79b9));
    let mut inputs = (0..=u32::MAX)
        .step_by(step)
        .chain(specials.iter().copied())
        .chain(scattered)
        .peekable();
    let (mut bad, mut count, mut first) = (0u64, 0u64, None);
    while inputs.peek().is_some() {
        let xs: Vec<u32> = inputs.by_ref().take(1 << 20).collect();
        let got = run_inputs(shader, &xs);
        for (&x, &g) in xs.iter().zip(&got) {
            let w = want(x);
            if w != g {
                bad += 1;
                first.get_or_insert((x, w, g));
            }
        }
        count += xs.len() as u64;
    }
    (bad, count, first)
}

/// SIN and COS compiled in accurate mode (alone and as a pair, either first and either read)
/// against [`crate::numerics::accurate::sincos`], bit for bit: every `step`-th f32, special
/// values, and inputs scattered over every exponent, so that steps mix near lanes with far
/// ones (|x| ≥ 2³⁰, inf, NaN), which take the exact functions.
pub fn check_accurate_sincos(c: Compiler, step: usize) {
    use crate::numerics::accurate;
    let specials = [
        0u32,
        0x8000_0000,
        1,
        0x8000_0001,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x4e80_0000,
        0x4e7f_ffff,
        0xce80_0000,
        0x3f49_0fdb,
        0x3fc9_0fdb,
        0x4b80_0000,
        0x47c3_5000,
    ];
    for (f, u) in sincos_cases() {
        let shader = c(&f, MathMode::Accurate).expect("compiles");
        let (bad, count, first) = mismatches(&shader, step, &specials, |x| {
            let (s, c) = accurate::sincos(f32::from_bits(x));
            if u == Unary::FCos { c } else { s }.to_bits()
        });
        assert_eq!(
            bad, 0,
            "{u:?}: {bad} of {count} inputs differ; first (x, reference, code): {first:#010x?}"
        );
    }
}

/// POW compiled in exact mode against the interpreter's on a grid of x (every `step`-th float)
/// by y (integers, halves, a sweep and the special values), bit for bit.
pub fn check_exact_pow(c: Compiler, step: usize) {
    use crate::back::abi::MathMode;
    use crate::ir::Binary;
    use crate::ir::semantics as sem;
    let mut f = Function::new(Processor::Vertex);
    f.input_regs = 1;
    f.outputs = vec![OutputSlot {
        reg: 0,
        semantic: None,
    }];
    let x = f.new_inst(Op::Input { reg: 0, comp: 0 }, vec![], &[Type::F32], None);
    let y = f.new_inst(Op::Input { reg: 0, comp: 1 }, vec![], &[Type::F32], None);
    let (xv, yv) = (f.insts[x].results[0], f.insts[y].results[0]);
    let p = f.new_inst(Op::Binary(Binary::FPow), vec![xv, yv], &[Type::F32], None);
    let pv = f.insts[p].results[0];
    let s = f.new_inst(Op::StoreOutput { slot: 0, comp: 0 }, vec![pv], &[], None);
    f.body.0 = vec![Stmt::Inst(x), Stmt::Inst(y), Stmt::Inst(p), Stmt::Inst(s)];
    let shader = c(&f, MathMode::Exact).expect("compiles");
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
        0x4300_0000,
        0xc300_0000,
    ];
    let mut ys: Vec<u32> = (0..=u32::MAX).step_by(16_777_259).collect();
    for i in -8..=8 {
        ys.push((i as f32).to_bits());
        ys.push((i as f32 + 0.5).to_bits());
    }
    ys.extend(specials);
    let xs: Vec<u32> = (0..=u32::MAX).step_by(step).chain(specials).collect();
    let (mut bad, mut first) = (0u64, None);
    for &yb in &ys {
        for chunk in xs.chunks(BATCH_LANES) {
            let mut inputs = vec![0u32; 4 * BATCH_LANES];
            inputs[..chunk.len()].copy_from_slice(chunk);
            inputs[BATCH_LANES..2 * BATCH_LANES].fill(yb);
            let got = run_batch(&shader, &inputs, u64::MAX);
            for (l, &xb) in chunk.iter().enumerate() {
                let want = sem::binary(Binary::FPow, xb, yb);
                if want != got[l] {
                    bad += 1;
                    first.get_or_insert((xb, yb, want, got[l]));
                }
            }
        }
    }
    assert_eq!(
        bad, 0,
        "POW: {bad} pairs differ; first (x, y, interpreter, code): {first:#010x?}"
    );
}
