//! Which values never hold a denormal in generated code, on a target that folds float
//! operations as IEEE does ([`super::SimdBuilder::FOLDS_DENORMALS`], LLVM): the analysis the
//! lowering consults before flushing a value whose bits are observed.

use crate::ir::{self, Binary, Def, Nary, Op, Unary};

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
pub(crate) struct Flushed {
    /// Per value: never a denormal.
    pub flushed: Vec<bool>,
    /// Per value: read from memory, or computed by float arithmetic, rounding or sign
    /// operations from such a value (a select of two), so never a constant to the target.
    pub run_time: Vec<bool>,
}

impl Flushed {
    pub(crate) fn analyze(f: &ir::Function) -> Flushed {
        use Unary as U;
        let mut out = Flushed {
            flushed: vec![false; f.values.len()],
            run_time: vec![false; f.values.len()],
        };
        f.for_each_inst(|i| {
            let d = &f.insts[i];
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
                Op::Unary(U::Bitcast) => never_denormal_bits(f, args[0]) || fl(&args[0]),
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
            out.run_time[r.index()] = run_time;
            out.flushed[r.index()] = flushed;
        });
        out
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
