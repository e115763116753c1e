//! Which values never hold a denormal in generated code, on a target that folds float
//! operations as IEEE does ([`super::SimdBuilder::FOLDS_DENORMALS`], LLVM): the analysis the
//! lowering consults before flushing a value whose bits are observed.

use crate::ir::{self, Binary, Def, Nary, Op, Unary};

/// The smallest constant magnitude whose sums with flushed values are flushed (2⁻¹⁰⁰).
const SHIFT_MIN: f32 = f32::from_bits((127 - 100) << 23);

/// How many nested selects and sign operations [`may_be_identity`] looks through.
const SELECT_DEPTH: u32 = 4;

/// Which values of a function are known never to be denormals in generated code, on a target
/// that folds float operations as IEEE does, and which are only known at run time; one pass
/// over the function in program order.
///
/// Float arithmetic the CPU executes flushes under FTZ; the target may instead (1) fold it
/// completely when every operand may be a constant to it (through selects), in IEEE
/// arithmetic, which can underflow to a denormal, or (2) remove it for an identity operand
/// (`x·1`, `x·−1`, `x + −0`, `x / 1`, `x − 0x2`: where an operand may be ±0, ±1 or a denormal,
/// which it reads as a zero), leaving another operand's bits. So an arithmetic result is
/// flushed when an operand is a run-time value and, where an operand may be an identity, the
/// other operands are flushed. Constants that are not denormals, SSG, rounding, conversions
/// from integers, and selects, sign operations, saturation, MIN and MAX of flushed values are
/// flushed; values read from memory are not.
///
/// A product of a value known to be at least 1 (or NaN) and a flushed value is flushed too,
/// however it is computed: its magnitude is at least the flushed operand's (so 0 or at least
/// 2⁻¹²⁶), and removing either operand as an identity leaves the other. Values at least 1 are
/// constants at least 1, and sums and fused products of non-negative values with one at least
/// 1 (a polynomial with non-negative coefficients in `x − ⌊x⌋`, which is non-negative, and a
/// constant term of 1: EX2's); these hold in IEEE arithmetic as under FTZ.
///
/// A sum or difference of a constant of magnitude at least 2⁻¹⁰⁰ and a flushed value is
/// flushed: a nonzero exact result is at least 2⁻¹²⁴ in magnitude (when the operands' exponents
/// are close it is a multiple of 2⁻¹²⁴, otherwise it is at least half the larger operand), so
/// rounding keeps it normal, folded or not, and removing the other operand as an identity (a
/// zero) leaves the constant. A sum of non-negative flushed values is flushed (it is zero or
/// at least the larger one). The caller names the texture operations whose float results are
/// never denormals and never negative (nearest-filtered RGBA8 texels, `b · (1/255)` or
/// zero): `1 − texel` and `texel + texel` are flushed. Results of an `if` are flushed (and
/// non-negative) when every value its branches yield for them is.
pub(crate) struct Flushed {
    /// Per value: never a denormal.
    pub flushed: Vec<bool>,
    /// Per value: read from memory, or computed by float arithmetic, rounding or sign
    /// operations from such a value (a select of two), so never a constant to the target.
    pub run_time: Vec<bool>,
}

impl Flushed {
    /// Analyzes `f`; `texels_normal[k]` says that the float results of the `k`-th texture
    /// operation in program order ([`crate::back::texpath::texture_ops`]) are never denormals
    /// (missing entries say nothing).
    pub(crate) fn analyze(f: &ir::Function, texels_normal: &[bool]) -> Flushed {
        use Unary as U;
        let mut out = Flushed {
            flushed: vec![false; f.values.len()],
            run_time: vec![false; f.values.len()],
        };
        // Per value: at least +0 (or NaN), and at least 1 (or NaN).
        let mut nonneg = vec![false; f.values.len()];
        let mut ge_one = vec![false; f.values.len()];
        let mut texture = 0;
        walk(&f.body, &mut |step| {
            let i = match step {
                Step::Inst(i) => i,
                Step::IfDone(x) => {
                    // A result of an `if` is flushed when every branch that yields it yields
                    // a flushed value.
                    let yields: Vec<&Vec<ir::Value>> = [&x.then_, &x.else_]
                        .into_iter()
                        .filter_map(|b| match b.0.last() {
                            Some(ir::Stmt::Yield(v)) => Some(v),
                            _ => None,
                        })
                        .collect();
                    for (k, r) in x.results.iter().enumerate() {
                        let all = |of: &[bool]| {
                            !yields.is_empty()
                                && yields
                                    .iter()
                                    .all(|v| v.get(k).is_some_and(|v| of[v.index()]))
                        };
                        out.flushed[r.index()] = all(&out.flushed);
                        nonneg[r.index()] = all(&nonneg);
                    }
                    return;
                }
            };
            let d = &f.insts[i];
            if let Op::Texture(_) = d.op {
                if texels_normal.get(texture) == Some(&true) {
                    for r in &d.results {
                        out.flushed[r.index()] = true;
                        nonneg[r.index()] = true;
                    }
                }
                texture += 1;
                return;
            }
            let Some(&r) = d.results.first() else {
                return;
            };
            let args = &d.args;
            let rt = |a: &ir::Value| out.run_time[a.index()];
            let fl = |a: &ir::Value| out.flushed[a.index()];
            // Not an indirect uniform (a select of the load and 0.0 outside the buffers), an
            // array element (the target forwards a stored constant to its load) or a texel (a
            // border colour): the target may see a constant in some lanes.
            let run_time = match &d.op {
                Op::Input { .. }
                | Op::InputIndirect { .. }
                | Op::GsInput { .. }
                | Op::SysVal { .. }
                | Op::Uniform { .. }
                | Op::ImmIndirect { .. } => true,
                // Not saturation, MIN or MAX: selects with constant arms, which the target folds
                // where it can tell the comparison (a saturated sum it knows is ≥ 1 is 1.0).
                Op::Binary(Binary::FAdd | Binary::FSub | Binary::FMul | Binary::FDiv)
                | Op::Nary(Nary::Fma)
                | Op::Derivative { .. }
                | Op::Unary(
                    U::FNeg | U::FAbs | U::FFloor | U::FCeil | U::FTrunc | U::FRound | U::FSqrt,
                ) => args.iter().any(rt),
                Op::Select => rt(&args[1]) && rt(&args[2]),
                _ => false,
            };
            let flushed = match &d.op {
                Op::Const(c) => !f32::from_bits(*c).is_subnormal(),
                Op::Unary(
                    U::FSign
                    | U::BoolToFloat
                    | U::FFloor
                    | U::FCeil
                    | U::FTrunc
                    | U::FRound
                    | U::I2F
                    | U::U2F,
                ) => true,
                Op::Unary(U::Bitcast) => {
                    never_denormal_bits(f, args[0])
                        || fl(&args[0])
                        || sign_flip_of(f, args[0]).is_some_and(|v| fl(&v))
                }
                Op::Unary(U::FNeg | U::FAbs | U::FSat01 | U::FSat11)
                | Op::Binary(Binary::FMin | Binary::FMax) => args.iter().all(fl),
                Op::Select => fl(&args[1]) && fl(&args[2]),
                Op::Binary(Binary::FAdd | Binary::FSub | Binary::FMul | Binary::FDiv)
                | Op::Nary(Nary::Fma)
                | Op::Derivative { .. } => {
                    args.iter().any(rt)
                        && args.iter().enumerate().all(|(k, a)| {
                            !may_be_identity(f, &out.run_time, *a, SELECT_DEPTH)
                                || args.iter().enumerate().all(|(j, b)| j == k || fl(b))
                        })
                }
                _ => false,
            };
            let nn = |a: &ir::Value| nonneg[a.index()];
            let one = |a: &ir::Value| ge_one[a.index()];
            let (is_nonneg, is_ge_one) = match &d.op {
                Op::Const(c) => {
                    let c = f32::from_bits(*c);
                    (c.is_sign_positive(), c >= 1.0)
                }
                Op::Binary(Binary::FSub) => {
                    let fract = matches!(f.values[args[1]].def, Def::Inst(j, _)
                        if f.insts[j].op == Op::Unary(U::FFloor) && f.insts[j].args[0] == args[0]);
                    (fract, false)
                }
                Op::Binary(Binary::FAdd) => (
                    args.iter().all(nn),
                    nn(&args[0]) && nn(&args[1]) && (one(&args[0]) || one(&args[1])),
                ),
                Op::Binary(Binary::FMul) => (args.iter().all(nn), args.iter().all(one)),
                Op::Nary(Nary::Fma) => (args.iter().all(nn), args.iter().all(nn) && one(&args[2])),
                Op::Select => (nn(&args[1]) && nn(&args[2]), one(&args[1]) && one(&args[2])),
                _ => (false, false),
            };
            // A product of a value at least 1 and a flushed one (see above).
            let scaled = matches!(d.op, Op::Binary(Binary::FMul))
                && ((one(&args[0]) && fl(&args[1])) || (fl(&args[0]) && one(&args[1])));
            // A sum with a constant of magnitude at least 2⁻¹⁰⁰ (see above).
            let large = |a: ir::Value| {
                f.const_value(a)
                    .is_some_and(|c| f32::from_bits(c).abs() >= SHIFT_MIN)
            };
            let shifted = matches!(d.op, Op::Binary(Binary::FAdd | Binary::FSub))
                && ((large(args[0]) && fl(&args[1])) || (fl(&args[0]) && large(args[1])));
            // A sum of non-negative flushed values is 0 or at least the larger of them.
            let grown =
                matches!(d.op, Op::Binary(Binary::FAdd)) && args.iter().all(|a| fl(a) && nn(a));
            nonneg[r.index()] = is_nonneg || is_ge_one;
            ge_one[r.index()] = is_ge_one;
            out.run_time[r.index()] = run_time;
            out.flushed[r.index()] = flushed || scaled || shifted || grown || is_ge_one;
        });
        out
    }
}

/// What [`walk`] visits.
enum Step<'a> {
    /// An instruction.
    Inst(ir::Inst),
    /// An `if`, after both of its branches.
    IfDone(&'a ir::IfStmt),
}

/// Visits the instructions of `b` in program order, and each `if` after its branches.
fn walk<'a>(b: &'a ir::Block, visit: &mut impl FnMut(Step<'a>)) {
    for s in &b.0 {
        match s {
            ir::Stmt::Inst(i) => visit(Step::Inst(*i)),
            ir::Stmt::If(x) => {
                walk(&x.then_, visit);
                walk(&x.else_, visit);
                visit(Step::IfDone(x));
            }
            ir::Stmt::Loop(l) => walk(&l.body, visit),
            _ => {}
        }
    }
}

/// The float `v`'s bits flip the sign of, when `v` is `bits(x) ^ (k << 31)`: only its sign
/// differs from `x`'s, so it is a denormal exactly when `x` is.
fn sign_flip_of(f: &ir::Function, v: ir::Value) -> Option<ir::Value> {
    let Def::Inst(i, _) = f.values[v].def else {
        return None;
    };
    let d = &f.insts[i];
    if d.op != Op::Binary(Binary::Xor) {
        return None;
    }
    // A constant with the sign bit alone, or a word shifted left by 31. (Constants are
    // instructions too, so the constant test comes first.)
    let sign_only = |a: ir::Value| {
        f.const_value(a).is_some_and(|c| c & 0x7FFF_FFFF == 0)
            || matches!(f.values[a].def, Def::Inst(j, _)
                if f.insts[j].op == Op::Binary(Binary::Shl)
                    && f.const_value(f.insts[j].args[1]) == Some(31))
    };
    let float_bits = |a: ir::Value| match f.values[a].def {
        Def::Inst(j, _) if f.insts[j].op == Op::Unary(Unary::Bitcast) => {
            let x = f.insts[j].args[0];
            (f.ty(x) == ir::Type::F32).then_some(x)
        }
        _ => None,
    };
    let [a, b] = [d.args[0], d.args[1]];
    if sign_only(b) {
        float_bits(a)
    } else if sign_only(a) {
        float_bits(b)
    } else {
        None
    }
}

/// Whether the target may see `v` as ±0, a denormal or ±1 (a constant, through selects and
/// sign operations; any value not computed by an instruction, such as a merge) — not a
/// run-time value (`run_time`, per value).
fn may_be_identity(f: &ir::Function, run_time: &[bool], v: ir::Value, depth: u32) -> bool {
    use Unary as U;
    let Def::Inst(i, _) = f.values[v].def else {
        return true;
    };
    let args = &f.insts[i].args;
    match &f.insts[i].op {
        // A denormal constant is a zero to a target that knows DAZ (`x − 0x2` is `x`).
        Op::Const(c) => {
            let c = f32::from_bits(*c);
            c.is_subnormal() || matches!(c.abs(), 0.0 | 1.0)
        }
        Op::Unary(U::FNeg | U::FAbs | U::Bitcast) => {
            depth == 0 || may_be_identity(f, run_time, args[0], depth - 1)
        }
        Op::Select => {
            depth == 0
                || may_be_identity(f, run_time, args[1], depth - 1)
                || may_be_identity(f, run_time, args[2], depth - 1)
        }
        _ => !run_time[v.index()],
    }
}

/// Whether the float of `v`'s bits is never a denormal: `v` is an integer shifted left by a
/// constant of 23 to 31 (no significand bits: zero or a power of two), or an `or` with a
/// constant that has an exponent bit set (the exponent field is never 0).
pub(crate) fn never_denormal_bits(f: &ir::Function, v: ir::Value) -> bool {
    match f.values[v].def {
        Def::Inst(i, _) => {
            let d = &f.insts[i];
            match d.op {
                Op::Binary(Binary::Shl) => f
                    .const_value(d.args[1])
                    .is_some_and(|n| (23..32).contains(&n)),
                Op::Binary(Binary::Or) => d
                    .args
                    .iter()
                    .any(|&a| f.const_value(a).is_some_and(|c| c & 0x7F80_0000 != 0)),
                _ => false,
            }
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::Flushed;
    use crate::ir::{Op, lift};

    /// The values stored to OUT[0].x, .y, ... of `text` after accurate math's expansion (with
    /// fused polynomials), and whether the analysis finds each flushed.
    fn stored_flushed(text: &str) -> Vec<bool> {
        stored_flushed_with(text, &[])
    }

    /// [`stored_flushed`] with the texture operations `texels_normal` names.
    fn stored_flushed_with(text: &str, texels_normal: &[bool]) -> Vec<bool> {
        let mut f = lift::lift(&crate::front::text::parse(text).unwrap()).unwrap();
        crate::opt::fast_math::run_except_sincos(&mut f, true);
        crate::ir::verify::verify(&f).unwrap();
        let fl = Flushed::analyze(&f, texels_normal);
        let mut out = Vec::new();
        f.for_each_inst(|i| {
            if let Op::StoreOutput { .. } = f.insts[i].op {
                out.push(fl.flushed[f.insts[i].args[0].index()]);
            }
        });
        out
    }

    #[test]
    fn ex2_results_and_their_sign_flips_are_never_denormal() {
        // TEMP[0].x is a MAX with a constant: no run-time value to the analysis (the target
        // may fold it), so arithmetic on it is not flushed for that reason. EX2 and POW (EX2
        // inside, with its sign flip for a negative base) of it are; its square is not.
        let got = stored_flushed(
            "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
             IMM[0] FLT32 {-200.0, 0.0, 0.0, 0.0}\nMAX TEMP[0].x, IN[0].xxxx, IMM[0].xxxx\n\
             EX2 OUT[0].x, TEMP[0].xxxx\nPOW OUT[0].y, TEMP[0].xxxx, IN[0].yyyy\n\
             MUL OUT[0].z, TEMP[0].xxxx, TEMP[0].xxxx\nEND\n",
        );
        assert_eq!(got, [true, true, false]);
    }

    #[test]
    fn a_product_with_a_value_below_one_is_not_flushed() {
        // x − ⌊x⌋ is non-negative but may be below 1: its product with a flushed value may
        // underflow in IEEE arithmetic.
        let got = stored_flushed(
            "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
             IMM[0] FLT32 {-200.0, 0.0, 0.0, 0.0}\nMAX TEMP[0].x, IN[0].xxxx, IMM[0].xxxx\n\
             FRC TEMP[0].y, TEMP[0].xxxx\nMUL OUT[0].x, TEMP[0].yyyy, TEMP[0].xxxx\nEND\n",
        );
        assert_eq!(got, [false]);
    }

    /// A shader that samples one of two textures per pixel (in the branches of an `if`), then
    /// stores `1 − t.x`, `t.x · 0.5`, `1e−35 − t.x` and `t.x + t.y` of the sampled `t`.
    const TWO_SAMPLES: &str = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\n\
        DCL SAMP[0]\nDCL SAMP[1]\nDCL SVIEW[0], 2D, FLOAT\nDCL SVIEW[1], 2D, FLOAT\n\
        DCL TEMP[0..1]\nIMM[0] FLT32 {1.0, 0.5, 1e-35, 0.0}\n\
        FSLT TEMP[1].x, IN[0].zzzz, IMM[0].yyyy\nUIF TEMP[1].xxxx\n\
        TEX TEMP[0], IN[0], SAMP[0], 2D\nELSE\nTEX TEMP[0], IN[0].yxzw, SAMP[1], 2D\nENDIF\n\
        ADD OUT[0].x, IMM[0].xxxx, -TEMP[0].xxxx\nMUL OUT[0].y, TEMP[0].xxxx, IMM[0].yyyy\n\
        ADD OUT[0].z, IMM[0].zzzz, -TEMP[0].xxxx\nADD OUT[0].w, TEMP[0].xxxx, TEMP[0].yyyy\nEND\n";

    #[test]
    fn normal_texels_through_an_if_and_their_sums_with_large_constants_are_flushed() {
        // Both samples normal: the merged texel is flushed and non-negative, so 1 − t.x and
        // t.x + t.y are flushed; t.x · 0.5 is not (a texel is no run-time value: the product
        // may fold), nor is 1e−35 − t.x (the constant is below 2⁻¹⁰⁰).
        assert_eq!(
            stored_flushed_with(TWO_SAMPLES, &[true, true]),
            [true, false, false, true]
        );
        // One branch's texels may be denormals (filtered or f32): nothing is known.
        assert_eq!(
            stored_flushed_with(TWO_SAMPLES, &[true, false]),
            [false, false, false, false]
        );
        assert_eq!(
            stored_flushed_with(TWO_SAMPLES, &[]),
            [false, false, false, false]
        );
    }
}
