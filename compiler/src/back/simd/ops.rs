//! IR instructions to vector code, or to host calls for what the target has no vector
//! instruction for; the interpreter's semantics under DAZ/FTZ.

use super::builder::{ExactFn, FBin, FUn, IBin, Kind, Optional, R, Shift, SimdBuilder, kind};
use super::denormals::never_denormal_bits;
use super::libm;
use super::lower::Lower;
use crate::back::abi::JitArgs;
use crate::back::lane_ops::LaneOp;
use crate::back::nan::Class;
use crate::ir::{self, Binary, Def, FCmp, ICmp, Nary, Op, Stmt, Unary};
use crate::maps::FastMap;
use std::mem::offset_of;

const TWO_31: f32 = 2_147_483_648.0;

/// How many nested selects [`Lower::may_fold_to_denormal`] looks through.
const SELECT_DEPTH: u32 = 4;

impl<B: SimdBuilder> Lower<'_, B> {
    // ------------------------------------------------------------------ denormals

    /// Whether an IR value is a constant that is not a denormal.
    fn normal_const(&self, v: ir::Value) -> bool {
        self.f
            .const_value(v)
            .is_some_and(|c| !f32::from_bits(c).is_subnormal())
    }

    /// Whether the target may see `v` as a denormal constant (on a target that folds float
    /// operations as IEEE does, [`SimdBuilder::FOLDS_DENORMALS`]). LLVM 19 folds float
    /// operations on constants through selects and phis ignoring the function's denormal mode
    /// (`fmul 0x803FFFFF, 4.0` gives a normal number, `fcmp olt 0x803FFFFF, 0.0` true), and it
    /// finds constants the IR did not have (a canonical NaN flipped into a denormal by integer
    /// operations, then selected). Values read from memory are never constants and float
    /// arithmetic never yields a denormal under FTZ; bit manipulation and merges may.
    ///
    /// A select may only when one of its operands may (looked through up to
    /// [`SELECT_DEPTH`] selects, sign operations and bitcasts included; deeper, it is assumed
    /// to): SGE's `select(c, 1.0, 0.0)`, the bitcast of the integer select `select(c,
    /// 0x3F800000, 0)` that Mesa's `AND` with 1.0 becomes, and selects of arithmetic results
    /// need no flush. Other integer operations may make any bits.
    fn may_fold_to_denormal(&self, v: ir::Value) -> bool {
        self.may_fold_within(v, SELECT_DEPTH)
    }

    fn may_fold_within(&self, v: ir::Value, depth: u32) -> bool {
        use Unary as U;
        let float = self.f.ty(v) == ir::Type::F32;
        if float && self.known_flushed(v) {
            // Never a denormal, folded or not (nearest RGBA8 texels among them).
            return false;
        }
        match self.f.values[v].def {
            Def::Inst(i, _) => {
                let args = &self.f.insts[i].args;
                match &self.f.insts[i].op {
                    Op::Const(c) => f32::from_bits(*c).is_subnormal(),
                    // Bits built with an exponent (a power of two in the exponent field, a
                    // significand or-ed into 1.0's bits): never a denormal.
                    Op::Unary(U::Bitcast) if never_denormal_bits(self.f, args[0]) => false,
                    Op::Unary(U::FNeg | U::FAbs | U::Bitcast) => {
                        self.may_fold_within(args[0], depth)
                    }
                    Op::Select => {
                        depth == 0
                            || self.may_fold_within(args[1], depth - 1)
                            || self.may_fold_within(args[2], depth - 1)
                    }
                    // Float arithmetic never yields a denormal under FTZ.
                    _ => !float,
                }
            }
            _ => !float || self.arith[v.index()] == Class::Exact,
        }
    }

    /// Whether `v` is never a denormal in the generated code even on a target that folds
    /// float operations as IEEE does ([`SimdBuilder::FOLDS_DENORMALS`]), so that its bits need
    /// no flush where they are observed ([`super::denormals::Flushed`]; constants that are
    /// not denormals among them).
    pub(super) fn known_flushed(&self, v: ir::Value) -> bool {
        self.flushed.flushed[v.index()]
    }

    /// `x`, the vector of `v`, as an operand of float arithmetic or a comparison: flushed
    /// where the target could fold the operation as IEEE does.
    fn arith_operand(&mut self, v: ir::Value, x: B::V) -> R<B::V> {
        if B::FOLDS_DENORMALS && self.may_fold_to_denormal(v) {
            self.b.flush(x)
        } else {
            Ok(x)
        }
    }

    /// A float operand of arithmetic or a comparison.
    pub(super) fn float_operand(&mut self, v: ir::Value) -> R<B::V> {
        let x = self.get(v)?;
        self.arith_operand(v, x)
    }

    /// Whether `v` may hold a denormal where its bits pass through (a blend, not arithmetic):
    /// on a target that flushes where bits are observed only a non-constant may; otherwise a
    /// value may unless it is an arithmetic result (flushed by the CPU) or a normal constant.
    fn may_be_denormal(&self, v: ir::Value) -> bool {
        if B::FOLDS_DENORMALS {
            !self.known_flushed(v)
        } else {
            self.arith[v.index()] == Class::Exact && !self.normal_const(v)
        }
    }

    // ------------------------------------------------------------------ host calls

    /// Evaluates `op` per lane on the host ([`LaneOp`]); returns `outputs` results of `kind`.
    pub(super) fn lane_op(
        &mut self,
        op: LaneOp,
        args: &[B::V],
        outputs: usize,
        kind: Kind,
    ) -> R<Vec<B::V>> {
        let n = self.b.lanes() as i64;
        for (a, &v) in args.iter().enumerate() {
            let p = self.scratch(a as i64 * n)?;
            self.b.store_vector(p, v)?;
        }
        let mut call = vec![
            self.b
                .sconst(super::builder::Scalar::I32, op.code() as i64)?,
        ];
        for a in 0..5 {
            call.push(self.scratch(a * n)?);
        }
        call.push(self.b.sconst(super::builder::Scalar::I32, n)?);
        self.b
            .call(super::builder::Callee::LaneOp(self.p.lane_op), &call)?;
        (0..outputs as i64)
            .map(|o| {
                let p = self.scratch((4 + o) * n)?;
                self.b.load_vector(kind, p)
            })
            .collect()
    }

    /// A host operation on the bits of `args` with one result, `result`.
    fn lane_op1(&mut self, op: LaneOp, args: &[ir::Value], result: ir::Value) -> R<B::V> {
        let a = args
            .iter()
            .map(|&x| self.get_bits(x))
            .collect::<R<Vec<_>>>()?;
        let k = kind(self.f.ty(result));
        Ok(self.lane_op(op, &a, 1, k)?.remove(0))
    }

    // ------------------------------------------------------------------ operations

    /// `fminf`/`fmaxf` as the interpreter: the non-NaN operand, `x` when equal, flushed.
    fn fminmax(&mut self, max: bool, x: ir::Value, y: ir::Value) -> R<B::V> {
        let (a, c) = (self.float_operand(x)?, self.float_operand(y)?);
        let m = self.b.fcmp(if max { FCmp::Ge } else { FCmp::Le }, a, c)?;
        let y_number = self
            .f
            .const_value(y)
            .is_some_and(|v| !f32::from_bits(v).is_nan());
        let m = if y_number {
            m
        } else {
            let ynan = self.b.fcmp(FCmp::Ne, c, c)?;
            self.b.ibin(IBin::Or, m, ynan)?
        };
        let r = self.b.select(m, a, c)?;
        // A target that flushes where bits are observed flushes the result there.
        if !B::FOLDS_DENORMALS && (self.may_be_denormal(x) || self.may_be_denormal(y)) {
            self.b.flush(r)
        } else {
            Ok(r)
        }
    }

    /// `fmin(fmax(x, lo), 1)` of `x` flushed (NaN → `lo`, then 0 for FSat11).
    fn saturate(&mut self, x: ir::Value, a: B::V, lo: f32) -> R<B::V> {
        let xf = if self.may_be_denormal(x) {
            self.b.flush(a)?
        } else {
            a
        };
        let l = self.fconst(lo)?;
        let one = self.fconst(1.0)?;
        let c = self.b.fcmp(FCmp::Ge, xf, l)?;
        let r = self.b.select(c, xf, l)?;
        let c = self.b.fcmp(FCmp::Le, r, one)?;
        let r = self.b.select(c, r, one)?;
        if lo < 0.0 {
            let nan = self.b.fcmp(FCmp::Ne, a, a)?;
            let z = self.fconst(0.0)?;
            self.b.select(nan, z, r)
        } else {
            Ok(r)
        }
    }

    /// `floor(x) as i32` as Rust converts, but for NaN: saturating, NaN → `i32::MIN` (a caller
    /// for which NaN and −∞ agree, as texel wraps, needs no more).
    pub(super) fn floor_to_int(&mut self, a: B::V) -> R<B::V> {
        Ok(self.floor_split(a)?.1)
    }

    /// `(floor(x), floor(x) as i32)`, the integer as [`Self::floor_to_int`] gives it.
    pub(super) fn floor_split(&mut self, a: B::V) -> R<(B::V, B::V)> {
        let fl = self.b.fun(FUn::Floor, a)?;
        let i = self.b.float_to_int(fl)?;
        let big = self.fconst(TWO_31)?;
        let big = self.b.fcmp(FCmp::Ge, fl, big)?;
        let max = self.iconst(i32::MAX as u32)?;
        Ok((fl, self.b.select(big, max, i)?))
    }

    /// `floor(x) as i32` as Rust converts: saturating, NaN → 0 (ARL).
    fn sat_floor(&mut self, a: B::V) -> R<B::V> {
        let i = self.floor_to_int(a)?;
        let nan = self.b.fcmp(FCmp::Ne, a, a)?;
        let zero = self.iconst(0)?;
        self.b.select(nan, zero, i)
    }

    fn unary(&mut self, u: Unary, x: ir::Value, result: ir::Value) -> R<B::V> {
        use Unary as U;
        let lane_op = |s: &mut Self| s.lane_op1(LaneOp::Unary(u), &[x], result);
        let has = |s: &Self, op| s.b.supports(op);
        let a = match u {
            // Bitcasts expose the bits (sign operations carry the class along: nan.rs).
            U::Bitcast => self.get_bits(x)?,
            // Sign operations move bits; the rest of float arithmetic reads as the CPU does.
            U::FNeg | U::FAbs => self.get(x)?,
            _ if self.f.ty(x) == ir::Type::F32 => self.float_operand(x)?,
            _ => self.get(x)?,
        };
        Ok(match u {
            U::FNeg => self.b.fun(FUn::Neg, a)?,
            U::FAbs => self.b.fun(FUn::Abs, a)?,
            U::FFloor => self.b.fun(FUn::Floor, a)?,
            U::FCeil => self.b.fun(FUn::Ceil, a)?,
            U::FTrunc => self.b.fun(FUn::Trunc, a)?,
            U::FRound => self.b.fun(FUn::Round, a)?,
            U::FSqrt => self.b.fun(FUn::Sqrt, a)?,
            U::FSat01 => self.saturate(x, a, 0.0)?,
            U::FSat11 => self.saturate(x, a, -1.0)?,
            U::FSign => {
                let z = self.fconst(0.0)?;
                let gt = self.b.fcmp(FCmp::Gt, a, z)?;
                let lt = self.b.fcmp(FCmp::Lt, a, z)?;
                let m1 = self.fconst(-1.0)?;
                let n = self.b.select(lt, m1, z)?;
                let one = self.fconst(1.0)?;
                self.b.select(gt, one, n)?
            }
            U::F2I => self.b.float_to_int(a)?,
            U::F2U => self.f2u(a)?,
            U::FloorToInt => self.sat_floor(a)?,
            U::I2F => self.b.int_to_float(a, true)?,
            U::U2F => self.b.int_to_float(a, false)?,
            U::INeg => {
                let z = self.iconst(0)?;
                self.b.ibin(IBin::Sub, z, a)?
            }
            U::IAbs => self.b.iabs(a)?,
            U::ISign => {
                let z = self.iconst(0)?;
                let gt = self.b.icmp(ICmp::SLt, z, a)?;
                let lt = self.b.icmp(ICmp::SLt, a, z)?;
                let (gt, lt) = (self.b.cast(gt, Kind::I32)?, self.b.cast(lt, Kind::I32)?);
                self.b.ibin(IBin::Sub, lt, gt)?
            }
            U::Not | U::BNot => self.b.not(a)?,
            U::BitRev if has(self, Optional::BitReverse) => {
                self.b.optional(Optional::BitReverse, &[a])?
            }
            U::Popcount if has(self, Optional::Popcount) => {
                self.b.optional(Optional::Popcount, &[a])?
            }
            U::FindLsb if has(self, Optional::Cttz) => {
                let tz = self.b.optional(Optional::Cttz, &[a])?;
                self.minus_one_if_zero(a, tz)?
            }
            U::FindMsbU if has(self, Optional::Ctlz) => self.umsb(a)?,
            U::FindMsbS if has(self, Optional::Ctlz) => {
                let zero = self.iconst(0)?;
                let neg = self.b.icmp(ICmp::SLt, a, zero)?;
                let na = self.b.not(a)?;
                let v = self.b.select(neg, na, a)?;
                self.umsb(v)?
            }
            U::BoolToInt => self.b.cast(a, Kind::I32)?,
            U::BoolToFloat => {
                let (one, zero) = (self.fconst(1.0)?, self.fconst(0.0)?);
                self.b.select(a, one, zero)?
            }
            U::Bitcast => {
                let to = if self.f.ty(x) == ir::Type::F32 {
                    Kind::I32
                } else {
                    Kind::F32
                };
                self.b.cast(a, to)?
            }
            // Exact EX2 and LG2 in the target's double-precision lanes (`libm.rs`).
            U::FExp2 if self.b.has_doubles() => libm::exact(&mut self.b, ExactFn::Exp2, &[a])?[0],
            U::FLg2 if self.b.has_doubles() => {
                let ln = libm::exact(&mut self.b, ExactFn::Ln, &[a])?[0];
                // LG2 = logf(x) · 1.442695f, Mesa's constant (`numerics::lg2`).
                let log2e = self.fconst(crate::numerics::LG2_FACTOR)?;
                self.b.fbin(FBin::Mul, ln, log2e)?
            }
            // Transcendental functions (exact: fast math expanded them before), the rounding
            // of NV formats, and what the target has no instruction for.
            U::FExp2
            | U::FLg2
            | U::FSin
            | U::FCos
            | U::FRoundF16
            | U::FRoundFx12
            | U::BitRev
            | U::Popcount
            | U::FindLsb
            | U::FindMsbU
            | U::FindMsbS => lane_op(self)?,
        })
    }

    fn binary(&mut self, op: Binary, x: ir::Value, y: ir::Value, result: ir::Value) -> R<B::V> {
        use Binary as B_;
        let lane_op = |s: &mut Self| s.lane_op1(LaneOp::Binary(op), &[x, y], result);
        let shifts = self.b.supports(Optional::Shift(Shift::Shl));
        match op {
            // Exact powf (fast math expanded it before) in double-precision lanes (`libm.rs`).
            B_::FPow if self.b.has_doubles() => {
                let (a, c) = (self.float_operand(x)?, self.float_operand(y)?);
                return Ok(libm::exact(&mut self.b, ExactFn::Pow, &[a, c])?[0]);
            }
            // Exact powf elsewhere, and ldexp: the host computes them.
            B_::FPow | B_::Ldexp => return lane_op(self),
            B_::IMulHiS | B_::IMulHiU
                if !self.b.supports(Optional::MulHigh {
                    signed: op == B_::IMulHiS,
                }) =>
            {
                return lane_op(self);
            }
            B_::IDivS | B_::IDivU | B_::IRemS | B_::IRemU
                if !self.b.supports(Optional::Div {
                    signed: matches!(op, B_::IDivS | B_::IRemS),
                    rem: matches!(op, B_::IRemS | B_::IRemU),
                }) =>
            {
                return lane_op(self);
            }
            B_::Shl | B_::ShrS | B_::ShrU if self.f.const_value(y).is_none() && !shifts => {
                return lane_op(self);
            }
            B_::FMin | B_::FMax => return self.fminmax(op == B_::FMax, x, y),
            B_::FAdd | B_::FSub | B_::FMul | B_::FDiv => {
                let (a, c) = (self.float_operand(x)?, self.float_operand(y)?);
                let f = match op {
                    B_::FAdd => FBin::Add,
                    B_::FSub => FBin::Sub,
                    B_::FMul => FBin::Mul,
                    _ => FBin::Div,
                };
                return self.b.fbin(f, a, c);
            }
            _ => {}
        }
        let (a, c) = (self.get(x)?, self.get(y)?);
        let int = |op| Some(op);
        let simple = match op {
            B_::IAdd => int(IBin::Add),
            B_::ISub => int(IBin::Sub),
            B_::IMul => int(IBin::Mul),
            B_::IMinS => int(IBin::SMin),
            B_::IMaxS => int(IBin::SMax),
            B_::IMinU => int(IBin::UMin),
            B_::IMaxU => int(IBin::UMax),
            B_::And | B_::BAnd => int(IBin::And),
            B_::Or | B_::BOr => int(IBin::Or),
            B_::Xor => int(IBin::Xor),
            _ => None,
        };
        if let Some(i) = simple {
            return self.b.ibin(i, a, c);
        }
        match op {
            B_::UAbsDiff => {
                let hi = self.b.ibin(IBin::UMax, a, c)?;
                let lo = self.b.ibin(IBin::UMin, a, c)?;
                self.b.ibin(IBin::Sub, hi, lo)
            }
            B_::IMulHiS | B_::IMulHiU => self.b.optional(
                Optional::MulHigh {
                    signed: op == B_::IMulHiS,
                },
                &[a, c],
            ),
            B_::IDivS | B_::IDivU | B_::IRemS | B_::IRemU => match self.f.const_value(y) {
                Some(k) => match self.divide_by_constant(op, a, k)? {
                    Some(r) => Ok(r),
                    None => self.divide(op, a, c, true),
                },
                None => self.divide(op, a, c, false),
            },
            B_::Shl | B_::ShrS | B_::ShrU => {
                let sh = match op {
                    B_::Shl => Shift::Shl,
                    B_::ShrS => Shift::ShrS,
                    _ => Shift::ShrU,
                };
                match self.f.const_value(y) {
                    // A constant amount shifts every lane alike.
                    Some(n) => self.b.shift_imm(sh, a, n & 31),
                    None => {
                        let n = self.amount(c)?;
                        self.shift(sh, a, n)
                    }
                }
            }
            _ => unreachable!("{op:?} is lowered above"),
        }
    }

    /// `x == y` (`x != y` when `ne`) as the CPU compares under DAZ, on a target that folds
    /// float operations as IEEE does: LLVM 19 folds `fcmp oeq/une (bitcast i), 0.0` into an
    /// integer test that ignores the denormal mode, so an operand that may be a denormal is
    /// flushed in integer arithmetic first, and a comparison with a zero constant is an integer
    /// test of the other operand's exponent.
    fn float_equal(&mut self, ne: bool, x: ir::Value, y: ir::Value) -> R<B::V> {
        if x == y {
            // x ≠ x: whether x is a NaN, which a flush never changes.
            let a = self.get(x)?;
            return self.b.fcmp(if ne { FCmp::Ne } else { FCmp::Eq }, a, a);
        }
        let zero = |s: &Self, v: ir::Value| {
            s.f.const_value(v)
                .is_some_and(|b| crate::numerics::f(b) == 0.0)
        };
        let other = if zero(self, y) {
            Some(x)
        } else if zero(self, x) {
            Some(y)
        } else {
            None
        };
        let Some(v) = other else {
            let operand = |s: &mut Self, v| {
                let l = s.get(v)?;
                if s.known_flushed(v) {
                    Ok(l)
                } else {
                    s.b.flush(l)
                }
            };
            let (a, c) = (operand(self, x)?, operand(self, y)?);
            return self.b.fcmp(if ne { FCmp::Ne } else { FCmp::Eq }, a, c);
        };
        let bits = self.get(v)?;
        let exp = self.iconst(0x7F80_0000)?;
        let e = self.b.ibin(IBin::And, bits, exp)?;
        let zero = self.iconst(0)?;
        self.b.icmp(if ne { ICmp::Ne } else { ICmp::Eq }, e, zero)
    }

    /// A quad derivative: `pick(a) − pick(c)`, lane patterns within each quad.
    pub(super) fn quad_diff(&mut self, v: B::V, a: [u8; 4], c: [u8; 4]) -> R<B::V> {
        let x = self.b.shuffle_quads(v, a)?;
        let y = self.b.shuffle_quads(v, c)?;
        self.b.fbin(FBin::Sub, x, y)
    }

    /// A word of `JitArgs` at byte `off`, in every lane, as a `kind`.
    fn arg_splat(&mut self, off: usize, kind: Kind) -> R<B::V> {
        let args = self.b.args();
        let x = self.b.load(super::mem::scalar(kind), args, off as i32)?;
        self.b.splat(x)
    }

    /// SIN (or COS, `cos`) of `x` for instruction `i`, in double-precision lanes
    /// (`libm.rs`); the reduction of large arguments only in steps that have one. The first
    /// of a pair ([`sincos_pairs`]) computes its partner's result too.
    fn sin_cos(&mut self, i: ir::Inst, cos: bool, x: ir::Value) -> R<B::V> {
        if let Some(y) = self.sincos_ready.remove(&i) {
            return Ok(y);
        }
        let a = self.float_operand(x)?;
        let ys = if self.accurate_sincos {
            super::accurate::sincos_accurate(&mut self.b, a)?
        } else {
            libm::exact(&mut self.b, ExactFn::SinCos, &[a])?
        };
        let (mine, other) = if cos { (ys[1], ys[0]) } else { (ys[0], ys[1]) };
        if let Some(&second) = self.sincos_pairs.get(&i) {
            self.sincos_ready.insert(second, other);
        }
        Ok(mine)
    }

    pub(super) fn inst(&mut self, i: ir::Inst) -> R<()> {
        if self.prehoisted.contains(&i) {
            return Ok(());
        }
        let d = &self.f.insts[i];
        let (args, results) = (d.args.clone(), d.results.clone());
        let out = match &d.op {
            Op::Const(c) => {
                let k = kind(self.f.ty(results[0]));
                self.b.splat_const(k, *c)?
            }
            Op::Unary(u @ (Unary::FSin | Unary::FCos)) if self.b.has_doubles() => {
                self.sin_cos(i, *u == Unary::FCos, args[0])?
            }
            Op::Unary(u) => self.unary(*u, args[0], results[0])?,
            Op::Binary(op) => self.binary(*op, args[0], args[1], results[0])?,
            Op::Nary(Nary::Fma) if self.b.supports(Optional::Fma) => {
                let a = args
                    .iter()
                    .map(|&x| self.float_operand(x))
                    .collect::<R<Vec<_>>>()?;
                self.b.optional(Optional::Fma, &a)?
            }
            Op::Nary(n @ (Nary::Ubfe | Nary::Ibfe | Nary::Bfi))
                if self.b.supports(Optional::Shift(Shift::Shl)) =>
            {
                let a = args.iter().map(|&x| self.get(x)).collect::<R<Vec<_>>>()?;
                if *n == Nary::Bfi {
                    self.bitfield_insert(a[0], a[1], a[2], a[3])?
                } else {
                    self.bitfield_extract(*n == Nary::Ibfe, a[0], a[1], a[2])?
                }
            }
            Op::Nary(n) => self.lane_op1(LaneOp::Nary(*n), &args, results[0])?,
            Op::FCmp(k @ (FCmp::Eq | FCmp::Ne)) if B::FOLDS_DENORMALS => {
                self.float_equal(*k == FCmp::Ne, args[0], args[1])?
            }
            Op::FCmp(k) => {
                let a = self.float_operand(args[0])?;
                let c = self.float_operand(args[1])?;
                self.b.fcmp(*k, a, c)?
            }
            Op::ICmp(k) => {
                let (a, c) = (self.get(args[0])?, self.get(args[1])?);
                self.b.icmp(*k, a, c)?
            }
            Op::Select => {
                let c = self.get(args[0])?;
                let r = results[0];
                let x = self.get_for(args[1], r)?;
                let y = self.get_for(args[2], r)?;
                // An arm of zero bits (SGE's `select(c, 1.0, 0.0)`) is an `and` with the
                // mask's words: one instruction instead of a blend and the zero.
                let zero = |v| self.f.const_value(v) == Some(0);
                if self.f.ty(r) != ir::Type::Bool && (zero(args[1]) || zero(args[2])) {
                    let m = self.b.cast(c, Kind::I32)?;
                    if zero(args[2]) {
                        self.b.ibin(IBin::And, m, x)?
                    } else {
                        self.b.ibin(IBin::AndNot, y, m)?
                    }
                } else {
                    self.b.select(c, x, y)?
                }
            }
            Op::Pack(p) => self.lane_op1(LaneOp::Pack(*p), &args, results[0])?,
            Op::Unpack(p) => {
                let a = self.get_bits(args[0])?;
                let outs = self.lane_op(LaneOp::Unpack(*p), &[a], 4, Kind::F32)?;
                for (&r, o) in results.iter().zip(outs) {
                    self.set(r, o)?;
                }
                return Ok(());
            }
            Op::Derivative { axis, fine } => {
                let a = self.float_operand(args[0])?;
                let (p, q) = match (axis, fine) {
                    (ir::Axis::X, false) => ([1, 1, 1, 1], [0, 0, 0, 0]),
                    (ir::Axis::Y, false) => ([0, 0, 0, 0], [2, 2, 2, 2]),
                    (ir::Axis::X, true) => ([1, 1, 3, 3], [0, 0, 2, 2]),
                    (ir::Axis::Y, true) => ([0, 1, 0, 1], [2, 3, 2, 3]),
                };
                self.quad_diff(a, p, q)?
            }
            // The low word of the little-endian u64.
            Op::MaxIterations => self.arg_splat(offset_of!(JitArgs, max_iterations), Kind::I32)?,
            Op::ClearColor { comp } => {
                let k = kind(self.f.ty(results[0]));
                self.arg_splat(offset_of!(JitArgs, clear) + 4 * *comp as usize, k)?
            }
            Op::Helper => {
                let args = self.b.args();
                let h = self.b.load(
                    super::builder::Scalar::I64,
                    args,
                    offset_of!(JitArgs, helpers) as i32,
                )?;
                let h = self.b.sbin(super::builder::SBin::UShr, h, self.p.lane0)?;
                self.b.mask_from_bits(h)?
            }
            Op::Texture(t) => {
                let t = (**t).clone();
                return self.texture(t, &args, &results);
            }
            Op::Memory(m) => {
                let m = (**m).clone();
                return self.memory(m, &args, &results);
            }
            Op::Barrier => return self.barrier(),
            Op::W64(w) => return self.w64(*w, &args, results[0]),
            Op::StoreOutput { slot, comp } => {
                let v = self.get_bits(args[0])?;
                let reg = self.f.outputs[*slot as usize].reg;
                return self.store_output(reg, *comp, v);
            }
            Op::Discard | Op::Exhausted => {
                let v = self.get(args[0])?;
                let exec = self.exec()?;
                let m = self.b.ibin(IBin::And, v, exec)?;
                let bits = self.b.mask_bits(m)?;
                let bits = self.b.sbin(super::builder::SBin::Shl, bits, self.p.lane0)?;
                let off = if matches!(d.op, Op::Discard) {
                    offset_of!(JitArgs, killed)
                } else {
                    offset_of!(JitArgs, exhausted)
                } as i32;
                let args = self.b.args();
                let old = self.b.load(super::builder::Scalar::I64, args, off)?;
                let new = self.b.sbin(super::builder::SBin::Or, old, bits)?;
                return self.b.store(args, off, new);
            }
            Op::Emit | Op::EndPrim => {
                let emit = matches!(d.op, Op::Emit);
                return self.emit(emit, &args);
            }
            Op::ArrayStore {
                array,
                comp,
                offset,
                lo,
                hi,
            } => {
                let (idx, v) = (self.get(args[0])?, self.get_bits(args[1])?);
                let at = super::mem::Range::new(*offset, *lo, *hi);
                return self.array_store(*array, *comp, at, args[0], idx, v);
            }
            op => self.read(op, &args, results[0])?,
        };
        self.set(results[0], out)
    }
}

/// The SIN and COS instructions of one value in one block with only instructions between
/// them (so the first's code dominates the second's), by the first: lowered together, they
/// share the reduction and polynomials (`libm::sincos`). Rotations take both of one angle.
pub(super) fn sincos_pairs(f: &ir::Function) -> FastMap<ir::Inst, ir::Inst> {
    fn walk(f: &ir::Function, b: &ir::Block, pairs: &mut FastMap<ir::Inst, ir::Inst>) {
        // The unpaired SIN and COS since the last statement that is not an instruction.
        let mut open: FastMap<(ir::Value, bool), ir::Inst> = FastMap::default();
        for s in &b.0 {
            match s {
                Stmt::Inst(i) => {
                    if let Op::Unary(u @ (Unary::FSin | Unary::FCos)) = f.insts[*i].op {
                        let (x, cos) = (f.insts[*i].args[0], u == Unary::FCos);
                        match open.remove(&(x, !cos)) {
                            Some(first) => {
                                pairs.insert(first, *i);
                            }
                            None => {
                                open.entry((x, cos)).or_insert(*i);
                            }
                        }
                    }
                }
                Stmt::If(s) => {
                    open.clear();
                    walk(f, &s.then_, pairs);
                    walk(f, &s.else_, pairs);
                }
                Stmt::Loop(l) => {
                    open.clear();
                    walk(f, &l.body, pairs);
                }
                _ => open.clear(),
            }
        }
    }
    let mut pairs = FastMap::default();
    walk(f, &f.body, &mut pairs);
    pairs
}
