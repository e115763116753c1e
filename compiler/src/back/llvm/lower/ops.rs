//! Lowering of IR instructions to vector code, or to host calls for what has neither a vector
//! instruction nor a short exact sequence; the interpreter's semantics under DAZ/FTZ.

use super::{Lower, R, V};
use crate::back::host::HostOp;
use crate::back::llvm::{JitArgs, MathMode, vmath};
use crate::back::nan::Class;
use crate::ir::{self, Binary, Def, FCmp, ICmp, Nary, Op, Unary};
use inkwell::types::VectorType;
use inkwell::values::{BasicMetadataValueEnum, PointerValue};
use inkwell::{FloatPredicate, IntPredicate};
use std::mem::offset_of;

const I32_MIN: u32 = 0x8000_0000;
const TWO_31: f32 = 2_147_483_648.0;

impl<'ctx> Lower<'_, 'ctx> {
    /// The address of scratch word `at`.
    fn scratch_at(&self, at: usize) -> R<PointerValue<'ctx>> {
        self.word_ptr(self.scratch, self.i64c(at as i64))
    }

    /// Stores a vector to the scratch area at word `at`.
    pub(super) fn scratch_store(&self, at: usize, v: V<'ctx>) -> R<()> {
        let w = self.words(v)?;
        let p = self.scratch_at(at)?;
        self.store(p, w)
    }

    /// Loads a vector of `ty` (i32 or float) from the scratch area at word `at`.
    pub(super) fn scratch_load(&self, at: usize, ty: VectorType<'ctx>) -> R<V<'ctx>> {
        let p = self.scratch_at(at)?;
        self.load_vec(ty, p)
    }

    /// The vector type a value of `v`'s IR type is loaded as: floats as floats, so that LLVM
    /// never sees them as integers bitcast (see [`Emit::is_zero`](super::Emit::is_zero)).
    pub(super) fn load_ty(&self, v: ir::Value) -> VectorType<'ctx> {
        match self.f.ty(v) {
            ir::Type::F32 => self.t.vf,
            _ => self.t.vi,
        }
    }

    /// Evaluates `op` per lane on the host ([`HostOp`]); returns `outputs` results of type
    /// `ty`.
    fn host(
        &self,
        op: HostOp,
        args: &[V<'ctx>],
        outputs: usize,
        ty: VectorType<'ctx>,
    ) -> R<Vec<V<'ctx>>> {
        let n = self.lanes as usize;
        for (a, &v) in args.iter().enumerate() {
            self.scratch_store(a * n, v)?;
        }
        let mut call: Vec<BasicMetadataValueEnum> = vec![self.i32c(op.code()).into()];
        for a in 0..5 {
            call.push(self.scratch_at(a * n)?.into());
        }
        call.push(self.i32c(n as u32).into());
        self.b
            .build_indirect_call(self.host_ty, self.host_fn, &call, "")?;
        (0..outputs)
            .map(|o| self.scratch_load((4 + o) * n, ty))
            .collect()
    }

    /// A host operation with one result, `result`.
    fn host1(&mut self, op: HostOp, args: &[ir::Value], result: ir::Value) -> R<V<'ctx>> {
        let a = args
            .iter()
            .map(|&x| self.get_bits(x))
            .collect::<R<Vec<_>>>()?;
        let ty = self.load_ty(result);
        Ok(self.host(op, &a, 1, ty)?.remove(0))
    }

    /// A float's denormals flushed to zeros of their sign, in integer arithmetic (LLVM keeps
    /// integer operations; see the module documentation).
    fn flush(&self, x: V<'ctx>) -> R<V<'ctx>> {
        let bits = self.ints(x)?;
        let exp = self.and(bits, self.iconst(0x7F80_0000))?;
        let tiny = self.icmp(IntPredicate::EQ, exp, self.iconst(0))?;
        let sign = self.and(bits, self.iconst(0x8000_0000))?;
        let r = self.select(tiny, sign, bits)?;
        self.floats(r)
    }

    /// `x == y` (`x != y` when `ne`) as the CPU compares under DAZ. LLVM 19 folds
    /// `fcmp oeq/une (bitcast i), 0.0` into an integer test that ignores the denormal mode, and
    /// it finds such zeros itself (a constant read out of range, a folded select), so an
    /// operand that may be a denormal is flushed in integer arithmetic first; a comparison with
    /// a zero constant is an integer test of the other operand.
    fn float_equal(
        &self,
        ne: bool,
        x: (ir::Value, V<'ctx>),
        y: (ir::Value, V<'ctx>),
    ) -> R<V<'ctx>> {
        let zero = |v: ir::Value| {
            self.f
                .const_value(v)
                .is_some_and(|b| crate::numerics::f(b) == 0.0)
        };
        let eq = if zero(y.0) {
            self.is_zero(x.1)?
        } else if zero(x.0) {
            self.is_zero(y.1)?
        } else {
            let operand = |(v, l): (ir::Value, V<'ctx>)| {
                if self.normal_const(v) {
                    Ok(l)
                } else {
                    self.flush(l)
                }
            };
            let (a, c) = (operand(x)?, operand(y)?);
            return self.fcmp(
                if ne {
                    FloatPredicate::UNE
                } else {
                    FloatPredicate::OEQ
                },
                a,
                c,
            );
        };
        if ne { self.not(eq) } else { Ok(eq) }
    }

    /// Whether LLVM may see `v` as a denormal constant. LLVM 19 folds float operations on
    /// constants through selects and phis as IEEE does, ignoring the function's denormal mode
    /// (`fmul 0x803FFFFF, 4.0` gives a normal number, `fcmp olt 0x803FFFFF, 0.0` true), and
    /// it finds constants the IR did not have (a canonical NaN flipped into a denormal by
    /// integer operations, then selected). Values read from memory are never constants and
    /// float arithmetic never yields a denormal under FTZ; bit manipulation and merges may.
    fn may_fold_to_denormal(&self, v: ir::Value) -> bool {
        use Unary as U;
        match self.f.values[v].def {
            Def::Inst(i, _) => match &self.f.insts[i].op {
                Op::Const(c) => f32::from_bits(*c).is_subnormal(),
                Op::Unary(U::FNeg | U::FAbs) => self.may_fold_to_denormal(self.f.insts[i].args[0]),
                Op::Unary(U::Bitcast) | Op::Select => true,
                _ => false,
            },
            _ => self.arith[v.index()] == Class::Exact,
        }
    }

    /// `x`, the vector of `v`, as an operand of float arithmetic or a comparison: flushed in
    /// integer arithmetic where LLVM could fold the operation as IEEE does
    /// ([`Self::may_fold_to_denormal`]).
    pub(super) fn arith_operand(&self, v: ir::Value, x: V<'ctx>) -> R<V<'ctx>> {
        if self.may_fold_to_denormal(v) {
            self.flush(x)
        } else {
            Ok(x)
        }
    }

    /// A float operand of a comparison (see [`Self::arith_operand`]).
    fn cmp_operand(&mut self, v: ir::Value) -> R<V<'ctx>> {
        let x = self.get_f(v)?;
        self.arith_operand(v, x)
    }

    /// Whether an IR value is a constant that is not a denormal.
    fn normal_const(&self, v: ir::Value) -> bool {
        self.f
            .const_value(v)
            .is_some_and(|c| !f32::from_bits(c).is_subnormal())
    }

    /// `fminf`/`fmaxf` as the interpreter: the non-NaN operand, `x` when equal. Denormal
    /// results need no flush: the value is arithmetic, so it is flushed where observed.
    fn fminmax(&self, x: V<'ctx>, y: V<'ctx>, max: bool, y_number: bool) -> R<V<'ctx>> {
        let p = if max {
            FloatPredicate::OGE
        } else {
            FloatPredicate::OLE
        };
        let c = self.fcmp(p, x, y)?;
        let c = if y_number {
            c
        } else {
            let ynan = self.fcmp(FloatPredicate::UNO, y, y)?;
            self.or(c, ynan)?
        };
        self.select(c, x, y)
    }

    fn fcmp_pred(k: FCmp) -> FloatPredicate {
        match k {
            FCmp::Lt => FloatPredicate::OLT,
            FCmp::Le => FloatPredicate::OLE,
            FCmp::Gt => FloatPredicate::OGT,
            FCmp::Ge => FloatPredicate::OGE,
            FCmp::Eq => FloatPredicate::OEQ,
            FCmp::Ne => FloatPredicate::UNE,
        }
    }

    fn icmp_pred(k: ICmp) -> IntPredicate {
        match k {
            ICmp::Eq => IntPredicate::EQ,
            ICmp::Ne => IntPredicate::NE,
            ICmp::SLt => IntPredicate::SLT,
            ICmp::SGe => IntPredicate::SGE,
            ICmp::ULt => IntPredicate::ULT,
            ICmp::UGe => IntPredicate::UGE,
        }
    }

    /// A quad derivative: `pick(a) − pick(b)`, lane patterns within each quad.
    fn quad_diff(&self, v: V<'ctx>, a: [u32; 4], c: [u32; 4]) -> R<V<'ctx>> {
        let pattern = |p: [u32; 4]| -> Vec<u32> {
            (0..self.lanes)
                .map(|l| (l & !3) + p[(l & 3) as usize])
                .collect()
        };
        let x = self.shuffle(v, &pattern(a))?;
        let y = self.shuffle(v, &pattern(c))?;
        self.fsub(x, y)
    }

    /// `sat(x)` to `[lo, 1]` as the interpreter: `fmin(fmax(x, lo), 1)` of `x` flushed.
    fn saturate(&self, x: V<'ctx>, lo: f32, normal: bool) -> R<V<'ctx>> {
        let xf = if normal { x } else { self.flush(x)? };
        let l = self.fconst(lo)?;
        let one = self.fconst(1.0)?;
        let c = self.fcmp(FloatPredicate::OGE, xf, l)?;
        let r = self.select(c, xf, l)?;
        let c = self.fcmp(FloatPredicate::OLE, r, one)?;
        self.select(c, r, one)
    }

    /// `0 ≤ v < 32`-masked shift amounts.
    fn amount(&self, v: V<'ctx>) -> R<V<'ctx>> {
        self.and(v, self.iconst(31))
    }

    /// `v == 0 ? −1 : r`.
    fn minus_one_if_zero(&self, v: V<'ctx>, r: V<'ctx>) -> R<V<'ctx>> {
        let z = self.icmp(IntPredicate::EQ, v, self.iconst(0))?;
        self.select(z, self.iconst(u32::MAX), r)
    }

    /// The highest set bit of `v` (−1 for 0).
    fn umsb(&self, v: V<'ctx>) -> R<V<'ctx>> {
        let lz = self.call_flag("llvm.ctlz", v, false)?;
        let r = self.sub(self.iconst(31), lz)?;
        self.minus_one_if_zero(v, r)
    }

    fn unary(&mut self, u: Unary, x: ir::Value, result: ir::Value) -> R<V<'ctx>> {
        use Unary as U;
        let fast = self.math == MathMode::Fast;
        let a = match u {
            // Bitcasts expose the bits (sign operations carry the class along: nan.rs).
            U::Bitcast => self.get_bits(x)?,
            _ => self.get(x)?,
        };
        let a = match self.f.ty(x) {
            ir::Type::F32 => self.floats(a)?,
            ir::Type::I32 => self.ints(a)?,
            ir::Type::Bool => a,
        };
        // Float arithmetic reads its operand as the CPU does (sign operations and bitcasts
        // move bits).
        let a = if matches!(u, U::FNeg | U::FAbs | U::Bitcast) || self.f.ty(x) != ir::Type::F32 {
            a
        } else {
            self.arith_operand(x, a)?
        };
        Ok(match u {
            // Sign-bit operations (exact on NaNs too).
            U::FNeg => self.b.build_float_neg(a, "")?,
            U::FAbs => self.call1("llvm.fabs", a)?,
            U::FFloor => self.call1("llvm.floor", a)?,
            U::FCeil => self.call1("llvm.ceil", a)?,
            U::FTrunc => self.call1("llvm.trunc", a)?,
            U::FRound => self.call1("llvm.roundeven", a)?,
            U::FSqrt => self.call1("llvm.sqrt", a)?,
            U::FExp2 if fast => vmath::exp2(&self.e, a)?,
            U::FLg2 if fast => vmath::lg2(&self.e, a)?,
            U::FSin if fast => vmath::sin(&self.e, a)?,
            U::FCos if fast => vmath::cos(&self.e, a)?,
            U::FSat01 => self.saturate(a, 0.0, self.normal_const(x))?,
            U::FSat11 => {
                let r = self.saturate(a, -1.0, self.normal_const(x))?;
                let nan = self.fcmp(FloatPredicate::UNO, a, a)?;
                self.select(nan, self.fconst(0.0)?, r)?
            }
            U::FSign => {
                let z = self.fconst(0.0)?;
                let gt = self.fcmp(FloatPredicate::OGT, a, z)?;
                let lt = self.fcmp(FloatPredicate::OLT, a, z)?;
                let n = self.select(lt, self.fconst(-1.0)?, z)?;
                self.select(gt, self.fconst(1.0)?, n)?
            }
            U::F2I => {
                // NaN and out of range → 0x80000000 (fptosi would be poison there).
                let lo = self.fcmp(FloatPredicate::OGE, a, self.fconst(-TWO_31)?)?;
                let hi = self.fcmp(FloatPredicate::OLT, a, self.fconst(TWO_31)?)?;
                let ok = self.and(lo, hi)?;
                let i = self.fptosi(a, self.t.vi)?;
                self.select(ok, i, self.iconst(I32_MIN))?
            }
            U::F2U => {
                // Through i64: NaN and |x| ≥ 2⁶³ → 0.
                let ax = self.call1("llvm.fabs", a)?;
                let ok = self.fcmp(FloatPredicate::OLT, ax, self.fconst(9.223_372e18)?)?;
                let i = self.fptosi(a, self.t.vi64)?;
                let i = self.trunc(i, self.t.vi)?;
                self.select(ok, i, self.iconst(0))?
            }
            U::FloorToInt => {
                // A saturating conversion of floor(x): NaN → 0.
                let fl = self.call1("llvm.floor", a)?;
                let lo = self.fcmp(FloatPredicate::OGE, fl, self.fconst(-TWO_31)?)?;
                let hi = self.fcmp(FloatPredicate::OLT, fl, self.fconst(TWO_31)?)?;
                let ok = self.and(lo, hi)?;
                let i = self.fptosi(fl, self.t.vi)?;
                let big = self.fcmp(FloatPredicate::OGE, fl, self.fconst(TWO_31)?)?;
                let nan = self.fcmp(FloatPredicate::UNO, fl, fl)?;
                let out = self.select(big, self.iconst(i32::MAX as u32), self.iconst(I32_MIN))?;
                let out = self.select(nan, self.iconst(0), out)?;
                self.select(ok, i, out)?
            }
            U::I2F => self.sitofp(a)?,
            U::U2F => self.uitofp(a)?,
            U::INeg => self.sub(self.iconst(0), a)?,
            U::IAbs => self.call_flag("llvm.abs", a, false)?,
            U::ISign => {
                let z = self.iconst(0);
                let gt = self.icmp(IntPredicate::SGT, a, z)?;
                let lt = self.icmp(IntPredicate::SLT, a, z)?;
                let (gt, lt) = (self.sext(gt, self.t.vi)?, self.sext(lt, self.t.vi)?);
                self.sub(lt, gt)?
            }
            U::Not | U::BNot => self.not(a)?,
            U::BitRev => self.call1("llvm.bitreverse", a)?,
            U::Popcount => self.call1("llvm.ctpop", a)?,
            U::FindLsb => {
                let tz = self.call_flag("llvm.cttz", a, false)?;
                self.minus_one_if_zero(a, tz)?
            }
            U::FindMsbU => self.umsb(a)?,
            U::FindMsbS => {
                let neg = self.icmp(IntPredicate::SLT, a, self.iconst(0))?;
                let v = self.select(neg, self.not(a)?, a)?;
                self.umsb(v)?
            }
            U::BoolToInt => self.sext(a, self.t.vi)?,
            U::BoolToFloat => self.select(a, self.fconst(1.0)?, self.fconst(0.0)?)?,
            U::Bitcast => {
                let ty = if self.f.ty(x) == ir::Type::F32 {
                    self.t.vi
                } else {
                    self.t.vf
                };
                self.cast(a, ty)?
            }
            // Exact transcendentals and the rounding of NV formats: the host computes them.
            U::FExp2 | U::FLg2 | U::FSin | U::FCos | U::FRoundF16 | U::FRoundFx12 => {
                self.host1(HostOp::Unary(u), &[x], result)?
            }
        })
    }

    /// Integer division and remainder with the interpreter's results for a zero divisor (and
    /// `INT_MIN / −1`), without the undefined behaviour LLVM gives them.
    fn divide(&self, op: Binary, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        let z = self.icmp(IntPredicate::EQ, c, self.iconst(0))?;
        let signed = matches!(op, Binary::IDivS | Binary::IRemS);
        let bad = if signed {
            let min = self.icmp(IntPredicate::EQ, a, self.iconst(I32_MIN))?;
            let m1 = self.icmp(IntPredicate::EQ, c, self.iconst(u32::MAX))?;
            let ov = self.and(min, m1)?;
            self.or(z, ov)?
        } else {
            z
        };
        // INT_MIN / 1 = INT_MIN and INT_MIN % 1 = 0: what −1 gives, without the overflow.
        let d = self.select(bad, self.iconst(1), c)?;
        let r = match op {
            Binary::IDivS => self.b.build_int_signed_div(a, d, "")?,
            Binary::IDivU => self.b.build_int_unsigned_div(a, d, "")?,
            Binary::IRemS => self.b.build_int_signed_rem(a, d, "")?,
            _ => self.b.build_int_unsigned_rem(a, d, "")?,
        };
        let on_zero = match op {
            Binary::IDivS => 0,
            _ => u32::MAX,
        };
        self.select(z, self.iconst(on_zero), r)
    }

    fn binary(&mut self, op: Binary, x: ir::Value, y: ir::Value, result: ir::Value) -> R<V<'ctx>> {
        use Binary as B;
        if op == B::FPow && self.math == MathMode::Exact || op == B::Ldexp {
            return self.host1(HostOp::Binary(op), &[x, y], result);
        }
        let (a, c) = (self.get(x)?, self.get(y)?);
        let float = matches!(
            op,
            B::FAdd | B::FSub | B::FMul | B::FDiv | B::FMin | B::FMax | B::FPow
        );
        let (a, c) = if float {
            let (a, c) = (self.floats(a)?, self.floats(c)?);
            (self.arith_operand(x, a)?, self.arith_operand(y, c)?)
        } else if matches!(op, B::BAnd | B::BOr) {
            (a, c)
        } else {
            (self.ints(a)?, self.ints(c)?)
        };
        Ok(match op {
            B::FAdd => self.fadd(a, c)?,
            B::FSub => self.fsub(a, c)?,
            B::FMul => self.fmul(a, c)?,
            B::FDiv => self.fdiv(a, c)?,
            B::FMin | B::FMax => {
                let y_number = self
                    .f
                    .const_value(y)
                    .is_some_and(|v| !f32::from_bits(v).is_nan());
                self.fminmax(a, c, op == B::FMax, y_number)?
            }
            B::FPow => vmath::pow(&self.e, a, c)?,
            B::IAdd => self.add(a, c)?,
            B::ISub => self.sub(a, c)?,
            B::IMul => self.mul(a, c)?,
            B::IMulHiS | B::IMulHiU => {
                let ext = |v| {
                    if op == B::IMulHiS {
                        self.sext(v, self.t.vi64)
                    } else {
                        self.zext(v, self.t.vi64)
                    }
                };
                let p = self.mul(ext(a)?, ext(c)?)?;
                let s = self.t.i64.const_int(32, false);
                let s = inkwell::types::VectorType::const_vector(&vec![s; self.lanes as usize]);
                let hi = self.lshr(p, s)?;
                self.trunc(hi, self.t.vi)?
            }
            B::IDivS | B::IDivU | B::IRemS | B::IRemU => self.divide(op, a, c)?,
            B::IMinS => self.call2("llvm.smin", a, c)?,
            B::IMaxS => self.call2("llvm.smax", a, c)?,
            B::IMinU => self.call2("llvm.umin", a, c)?,
            B::IMaxU => self.call2("llvm.umax", a, c)?,
            B::And | B::BAnd => self.and(a, c)?,
            B::Or | B::BOr => self.or(a, c)?,
            B::Xor => self.xor(a, c)?,
            B::UAbsDiff => {
                let hi = self.call2("llvm.umax", a, c)?;
                let lo = self.call2("llvm.umin", a, c)?;
                self.sub(hi, lo)?
            }
            B::Shl => self.shl(a, self.amount(c)?)?,
            B::ShrS => self.ashr(a, self.amount(c)?)?,
            B::ShrU => self.lshr(a, self.amount(c)?)?,
            B::Ldexp => unreachable!("computed on the host above"),
        })
    }

    /// UBFE and IBFE as tgsi_exec: `(v << (32 − w − o)) >> (32 − w)` when `w + o < 32`,
    /// `v >> o` otherwise, 0 for `w = 0` (offset and width use their low 5 bits).
    fn bitfield_extract(
        &self,
        signed: bool,
        v: V<'ctx>,
        off: V<'ctx>,
        bits: V<'ctx>,
    ) -> R<V<'ctx>> {
        let w = self.amount(bits)?;
        let o = self.amount(off)?;
        let shr = |x, n| {
            if signed {
                self.ashr(x, n)
            } else {
                self.lshr(x, n)
            }
        };
        let wo = self.add(w, o)?;
        let l = self.amount(self.sub(self.iconst(32), wo)?)?;
        let r = self.amount(self.sub(self.iconst(32), w)?)?;
        let inside = shr(self.shl(v, l)?, r)?;
        let tail = shr(v, o)?;
        let fits = self.icmp(IntPredicate::ULT, wo, self.iconst(32))?;
        let x = self.select(fits, inside, tail)?;
        let w0 = self.icmp(IntPredicate::EQ, w, self.iconst(0))?;
        self.select(w0, self.iconst(0), x)
    }

    /// BFI as tgsi_exec.
    fn bitfield_insert(
        &self,
        base: V<'ctx>,
        ins: V<'ctx>,
        off: V<'ctx>,
        bits: V<'ctx>,
    ) -> R<V<'ctx>> {
        let w = self.amount(bits)?;
        let o = self.amount(off)?;
        let ones = self.sub(self.shl(self.iconst(1), w)?, self.iconst(1))?;
        let mask = self.shl(ones, o)?;
        let i = self.and(self.shl(ins, o)?, mask)?;
        let k = self.and_not(base, mask)?;
        self.or(i, k)
    }

    pub(super) fn inst(&mut self, i: ir::Inst) -> R<()> {
        let d = &self.f.insts[i];
        let args = d.args.clone();
        let results = d.results.clone();
        let out: V<'ctx> = match &d.op {
            Op::Const(c) => {
                let ty = self.f.ty(results[0]);
                match ty {
                    ir::Type::Bool => self.bconst(*c != 0),
                    ir::Type::F32 => self.fbits(*c)?,
                    ir::Type::I32 => self.iconst(*c),
                }
            }
            Op::Unary(u) => self.unary(*u, args[0], results[0])?,
            Op::Binary(op) => self.binary(*op, args[0], args[1], results[0])?,
            Op::Nary(Nary::Fma) if self.fma => {
                let a = self.cmp_operand(args[0])?;
                let b = self.cmp_operand(args[1])?;
                let c = self.cmp_operand(args[2])?;
                self.fma(a, b, c)?
            }
            Op::Nary(n @ (Nary::Ubfe | Nary::Ibfe)) => {
                let v = self.get_i(args[0])?;
                let o = self.get_i(args[1])?;
                let w = self.get_i(args[2])?;
                self.bitfield_extract(*n == Nary::Ibfe, v, o, w)?
            }
            Op::Nary(Nary::Bfi) => {
                let a = args.iter().map(|&x| self.get_i(x)).collect::<R<Vec<_>>>()?;
                self.bitfield_insert(a[0], a[1], a[2], a[3])?
            }
            Op::Nary(n) => self.host1(HostOp::Nary(*n), &args, results[0])?,
            Op::FCmp(k @ (FCmp::Eq | FCmp::Ne)) => {
                let a = self.get_f(args[0])?;
                let c = self.get_f(args[1])?;
                self.float_equal(*k == FCmp::Ne, (args[0], a), (args[1], c))?
            }
            Op::FCmp(k) => {
                let a = self.cmp_operand(args[0])?;
                let c = self.cmp_operand(args[1])?;
                self.fcmp(Self::fcmp_pred(*k), a, c)?
            }
            Op::ICmp(k) => {
                let a = self.get_i(args[0])?;
                let c = self.get_i(args[1])?;
                self.icmp(Self::icmp_pred(*k), a, c)?
            }
            Op::Select => {
                let c = self.get(args[0])?;
                let r = results[0];
                let x = self.get_for(args[1], r)?;
                let y = self.get_for(args[2], r)?;
                self.select(c, x, y)?
            }
            Op::Pack(p) => self.host1(HostOp::Pack(*p), &args, results[0])?,
            Op::Unpack(p) => {
                let a = self.get_bits(args[0])?;
                let outs = self.host(HostOp::Unpack(*p), &[a], 4, self.t.vf)?;
                for (&r, o) in results.iter().zip(outs) {
                    self.set(r, o)?;
                }
                return Ok(());
            }
            Op::Derivative { axis, fine } => {
                let a = self.cmp_operand(args[0])?;
                let (p, q) = match (axis, fine) {
                    (ir::Axis::X, false) => ([1, 1, 1, 1], [0, 0, 0, 0]),
                    (ir::Axis::Y, false) => ([0, 0, 0, 0], [2, 2, 2, 2]),
                    (ir::Axis::X, true) => ([1, 1, 3, 3], [0, 0, 2, 2]),
                    (ir::Axis::Y, true) => ([0, 1, 0, 1], [2, 3, 2, 3]),
                };
                self.quad_diff(a, p, q)?
            }
            Op::MaxIterations => {
                let p = self.byte_ptr(self.p.args, offset_of!(JitArgs, max_iterations) as u64)?;
                let m = self.b.build_load(self.t.i64, p, "")?.into_int_value();
                let m = self.b.build_int_truncate(m, self.t.i32, "")?;
                self.splat(m)?
            }
            Op::ClearColor { comp } => {
                let off = offset_of!(JitArgs, clear) + 4 * *comp as usize;
                let p = self.byte_ptr(self.p.args, off as u64)?;
                let ty = if self.f.ty(results[0]) == ir::Type::F32 {
                    self.t.f32.into()
                } else {
                    self.t.i32.into()
                };
                let c = self.load(ty, p)?;
                self.splat(c)?
            }
            Op::Helper => {
                let p = self.byte_ptr(self.p.args, offset_of!(JitArgs, helpers) as u64)?;
                let h = self.b.build_load(self.t.i64, p, "")?.into_int_value();
                let h = self.b.build_right_shift(h, self.p.lane0, false, "")?;
                self.mask_from_bits(h)?
            }
            Op::Texture(t) => {
                let n = self.lanes as usize;
                let a = args
                    .iter()
                    .map(|&x| self.get_bits(x))
                    .collect::<R<Vec<_>>>()?;
                for (k, &v) in a.iter().enumerate() {
                    self.scratch_store(k * n, v)?;
                }
                let index = self.textures.len();
                self.textures.push(crate::back::abi::TextureCall {
                    op: (**t).clone(),
                    args: a.len(),
                });
                let mask = self.bits_of(self.exec()?)?;
                let call: Vec<BasicMetadataValueEnum> = vec![
                    self.p.host.into(),
                    self.i32c(index as u32).into(),
                    self.scratch_at(0)?.into(),
                    self.scratch_at(a.len() * n)?.into(),
                    mask.into(),
                    self.b
                        .build_int_truncate(self.p.lane0, self.t.i32, "")?
                        .into(),
                    self.i32c(n as u32).into(),
                ];
                self.b
                    .build_indirect_call(self.tex_ty, self.p.texture, &call, "")?;
                for (c, &r) in results.iter().enumerate() {
                    let v = self.scratch_load((a.len() + c) * n, self.load_ty(r))?;
                    self.set(r, v)?;
                }
                return Ok(());
            }
            Op::StoreOutput { slot, comp } => {
                let v = self.get_bits(args[0])?;
                let reg = self.f.outputs[*slot as usize].reg;
                self.store_output(reg, *comp, v)?;
                return Ok(());
            }
            Op::Discard | Op::Exhausted => {
                let v = self.get(args[0])?;
                let m = self.and(v, self.exec()?)?;
                let bits = self.bits_of(m)?;
                let bits = self.b.build_left_shift(bits, self.p.lane0, "")?;
                let off = if matches!(d.op, Op::Discard) {
                    offset_of!(JitArgs, killed)
                } else {
                    offset_of!(JitArgs, exhausted)
                };
                let p = self.byte_ptr(self.p.args, off as u64)?;
                let old = self.b.build_load(self.t.i64, p, "")?.into_int_value();
                let new = self.b.build_or(old, bits, "")?;
                self.b.build_store(p, new)?;
                return Ok(());
            }
            Op::Emit | Op::EndPrim => {
                let n = self.lanes as usize;
                let a = args
                    .iter()
                    .map(|&x| self.get_bits(x))
                    .collect::<R<Vec<_>>>()?;
                for (k, &v) in a.iter().enumerate() {
                    self.scratch_store(k * n, v)?;
                }
                let mask = self.bits_of(self.exec()?)?;
                let call: Vec<BasicMetadataValueEnum> = vec![
                    self.p.host.into(),
                    self.i32c(matches!(d.op, Op::Emit) as u32).into(),
                    self.scratch_at(0)?.into(),
                    self.i32c(a.len() as u32).into(),
                    mask.into(),
                    self.b
                        .build_int_truncate(self.p.lane0, self.t.i32, "")?
                        .into(),
                    self.i32c(n as u32).into(),
                ];
                self.b
                    .build_indirect_call(self.emit_ty, self.p.emit, &call, "")?;
                return Ok(());
            }
            Op::ArrayStore {
                array,
                comp,
                offset,
                lo,
                hi,
            } => {
                let idx = self.get_i(args[0])?;
                let v = self.get_bits(args[1])?;
                self.array_store(*array, *comp, *offset, *lo, *hi, args[0], idx, v)?;
                return Ok(());
            }
            op => self.read(op, &args, results[0])?,
        };
        self.set(results[0], out)
    }
}
