//! [`SimdBuilder`] for LLVM: a step's lanes are one `<lanes x float>` or `<lanes x i32>`
//! (masks `<lanes x i1>`), which LLVM splits into the host's registers.
//!
//! What is LLVM's own: variables are stack slots in the entry block that `mem2reg` turns into
//! phis; per-lane addresses become `llvm.masked.gather`/`scatter`; integer division, 64-bit
//! products, bit counts and per-lane shifts have instructions or short sequences; and LLVM's
//! optimizer folds float operations as IEEE does whatever the function's denormal mode
//! ([`SimdBuilder::FOLDS_DENORMALS`]), so flushes are integer operations ([`Emit::flush`]).

use super::emit::{Emit, V};
use crate::back::abi::JitError;
use crate::back::simd::{
    Callee, FBin, FCc, FUn, IBin, ICc, Kind, Optional, R, SBin, Scalar, Shift, SimdBuilder,
};
use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::types::{BasicTypeEnum, FunctionType, VectorType};
use inkwell::values::{
    BasicMetadataValueEnum, BasicValueEnum, FunctionValue, IntValue, PointerValue,
};
use inkwell::{FloatPredicate, IntPredicate};

const I32_MIN: u32 = 0x8000_0000;
const TWO_31: f32 = 2_147_483_648.0;

/// A stack slot holding a vector or an i64 (promoted to SSA by `mem2reg`).
#[derive(Clone, Copy)]
pub struct Var<'ctx> {
    p: PointerValue<'ctx>,
    ty: BasicTypeEnum<'ctx>,
}

/// The signatures of what the code calls: `tgsic_lanes_op` (at `host_fn`), the texture and
/// EMIT callbacks.
pub(super) struct Callees<'ctx> {
    pub host_fn: PointerValue<'ctx>,
    pub host: FunctionType<'ctx>,
    pub texture: FunctionType<'ctx>,
    pub emit: FunctionType<'ctx>,
}

/// inkwell's builder with what the lowering needs.
pub(super) struct LlvmBuilder<'a, 'ctx> {
    pub e: Emit<'a, 'ctx>,
    func: FunctionValue<'ctx>,
    /// Builds the stack slots, in the entry block (before its final jump once there is one).
    slots: Builder<'ctx>,
    args: PointerValue<'ctx>,
    callees: Callees<'ctx>,
    fma: bool,
}

fn int(s: BasicValueEnum<'_>) -> IntValue<'_> {
    s.into_int_value()
}

impl<'a, 'ctx> LlvmBuilder<'a, 'ctx> {
    /// A builder positioned at the end of `func`'s entry block (`e.b` is there), `args` its
    /// parameter; `fma` when the CPU has fused multiply-add.
    pub fn new(
        e: Emit<'a, 'ctx>,
        func: FunctionValue<'ctx>,
        args: PointerValue<'ctx>,
        callees: Callees<'ctx>,
        fma: bool,
    ) -> R<Self> {
        let slots = e.cx.create_builder();
        let entry = func
            .get_first_basic_block()
            .ok_or_else(|| JitError::Codegen("no entry block".into()))?;
        slots.position_at_end(entry);
        Ok(LlvmBuilder {
            e,
            func,
            slots,
            args,
            callees,
            fma,
        })
    }

    fn vty(&self, kind: Kind) -> VectorType<'ctx> {
        match kind {
            Kind::F32 => self.e.t.vf,
            Kind::I32 => self.e.t.vi,
            Kind::Mask => self.e.t.vb,
        }
    }

    fn is_mask(&self, v: V<'ctx>) -> bool {
        v.get_type() == self.e.t.vb
    }

    fn kind_of(&self, v: V<'ctx>) -> Kind {
        let t = v.get_type();
        if t == self.e.t.vb {
            Kind::Mask
        } else if t == self.e.t.vf {
            Kind::F32
        } else {
            Kind::I32
        }
    }

    fn floats(&mut self, v: V<'ctx>) -> R<V<'ctx>> {
        self.cast(v, Kind::F32)
    }

    fn ints(&mut self, v: V<'ctx>) -> R<V<'ctx>> {
        self.cast(v, Kind::I32)
    }

    fn slot(&self, ty: BasicTypeEnum<'ctx>) -> R<Var<'ctx>> {
        let p = self.slots.build_alloca(ty, "")?;
        Ok(Var { p, ty })
    }

    fn scalar_ty(&self, ty: Scalar) -> BasicTypeEnum<'ctx> {
        match ty {
            Scalar::I32 => self.e.t.i32.into(),
            Scalar::I64 => self.e.t.i64.into(),
            Scalar::F32 => self.e.t.f32.into(),
            Scalar::Ptr => self.e.t.ptr.into(),
        }
    }

    /// F2I's truncation with `cvttps2dq`'s results: NaN and out of range give `0x80000000`
    /// (`fptosi` would be poison there).
    fn trunc_to_int(&mut self, a: V<'ctx>) -> R<V<'ctx>> {
        let e = &self.e;
        let lo = e.fcmp(FloatPredicate::OGE, a, e.fconst(-TWO_31)?)?;
        let hi = e.fcmp(FloatPredicate::OLT, a, e.fconst(TWO_31)?)?;
        let ok = e.and(lo, hi)?;
        let i = e.fptosi(a, e.t.vi)?;
        e.select(ok, i, e.iconst(I32_MIN))
    }
}

impl<'ctx> SimdBuilder for LlvmBuilder<'_, 'ctx> {
    type V = V<'ctx>;
    type S = BasicValueEnum<'ctx>;
    type Var = Var<'ctx>;
    type Block = BasicBlock<'ctx>;

    const FOLDS_DENORMALS: bool = true;

    fn lanes(&self) -> usize {
        self.e.lanes as usize
    }

    fn args(&self) -> Self::S {
        self.args.into()
    }

    fn splat_const(&mut self, kind: Kind, bits: u32) -> R<V<'ctx>> {
        match kind {
            Kind::F32 => self.e.fbits(bits),
            Kind::I32 => Ok(self.e.iconst(bits)),
            Kind::Mask => Ok(self.e.bconst(bits != 0)),
        }
    }

    fn iota(&mut self) -> R<V<'ctx>> {
        let words: Vec<u32> = (0..self.e.lanes).collect();
        Ok(self.e.iconsts(&words))
    }

    fn splat(&mut self, s: Self::S) -> R<V<'ctx>> {
        self.e.splat(s)
    }

    fn extract(&mut self, v: V<'ctx>, lane: usize) -> R<Self::S> {
        self.e.extract(v, lane as u32)
    }

    fn insert(&mut self, v: V<'ctx>, lane: usize, s: Self::S) -> R<V<'ctx>> {
        let i = self.e.i32c(lane as u32);
        Ok(self.e.b.build_insert_element(v, s, i, "")?)
    }

    fn cast(&mut self, v: V<'ctx>, kind: Kind) -> R<V<'ctx>> {
        let e = &self.e;
        match (self.is_mask(v), kind) {
            (true, Kind::Mask) => Ok(v),
            (true, _) => {
                let w = e.sext(v, e.t.vi)?;
                e.cast(w, self.vty(kind))
            }
            (false, Kind::Mask) => {
                let w = e.ints(v)?;
                e.icmp(IntPredicate::NE, w, e.iconst(0))
            }
            (false, _) => e.cast(v, self.vty(kind)),
        }
    }

    fn fbin(&mut self, op: FBin, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        let (a, c) = (self.floats(a)?, self.floats(c)?);
        match op {
            FBin::Add => self.e.fadd(a, c),
            FBin::Sub => self.e.fsub(a, c),
            FBin::Mul => self.e.fmul(a, c),
            FBin::Div => self.e.fdiv(a, c),
        }
    }

    fn fun(&mut self, op: FUn, a: V<'ctx>) -> R<V<'ctx>> {
        let a = self.floats(a)?;
        let name = match op {
            FUn::Neg => return Ok(self.e.b.build_float_neg(a, "")?),
            FUn::Abs => "llvm.fabs",
            FUn::Floor => "llvm.floor",
            FUn::Ceil => "llvm.ceil",
            FUn::Trunc => "llvm.trunc",
            FUn::Round => "llvm.roundeven",
            FUn::Sqrt => "llvm.sqrt",
        };
        self.e.call1(name, a)
    }

    fn fcmp(&mut self, cc: FCc, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        let p = match cc {
            FCc::Lt => FloatPredicate::OLT,
            FCc::Le => FloatPredicate::OLE,
            FCc::Gt => FloatPredicate::OGT,
            FCc::Ge => FloatPredicate::OGE,
            FCc::Eq => FloatPredicate::OEQ,
            FCc::Ne => FloatPredicate::UNE,
            FCc::Uno => FloatPredicate::UNO,
        };
        let (a, c) = (self.floats(a)?, self.floats(c)?);
        self.e.fcmp(p, a, c)
    }

    fn ibin(&mut self, op: IBin, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        let (a, c) = if self.is_mask(a) && self.is_mask(c) {
            (a, c)
        } else {
            (self.ints(a)?, self.ints(c)?)
        };
        let e = &self.e;
        match op {
            IBin::Add => e.add(a, c),
            IBin::Sub => e.sub(a, c),
            IBin::Mul => e.mul(a, c),
            IBin::And => e.and(a, c),
            IBin::Or => e.or(a, c),
            IBin::Xor => e.xor(a, c),
            IBin::AndNot => e.and_not(a, c),
            IBin::SMin => e.call2("llvm.smin", a, c),
            IBin::SMax => e.call2("llvm.smax", a, c),
            IBin::UMin => e.call2("llvm.umin", a, c),
            IBin::UMax => e.call2("llvm.umax", a, c),
        }
    }

    fn icmp(&mut self, cc: ICc, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        let p = match cc {
            ICc::Eq => IntPredicate::EQ,
            ICc::Ne => IntPredicate::NE,
            ICc::SLt => IntPredicate::SLT,
            ICc::SLe => IntPredicate::SLE,
            ICc::SGt => IntPredicate::SGT,
            ICc::SGe => IntPredicate::SGE,
            ICc::ULt => IntPredicate::ULT,
            ICc::UGe => IntPredicate::UGE,
        };
        let (a, c) = (self.ints(a)?, self.ints(c)?);
        self.e.icmp(p, a, c)
    }

    fn not(&mut self, a: V<'ctx>) -> R<V<'ctx>> {
        let a = if self.is_mask(a) { a } else { self.ints(a)? };
        self.e.not(a)
    }

    fn shift_imm(&mut self, op: Shift, a: V<'ctx>, n: u32) -> R<V<'ctx>> {
        let a = self.ints(a)?;
        let n = self.e.iconst(n);
        match op {
            Shift::Shl => self.e.shl(a, n),
            Shift::ShrS => self.e.ashr(a, n),
            Shift::ShrU => self.e.lshr(a, n),
        }
    }

    fn iabs(&mut self, a: V<'ctx>) -> R<V<'ctx>> {
        let a = self.ints(a)?;
        self.e.call_flag("llvm.abs", a, false)
    }

    fn int_to_float(&mut self, a: V<'ctx>, signed: bool) -> R<V<'ctx>> {
        let a = self.ints(a)?;
        if signed {
            self.e.sitofp(a)
        } else {
            self.e.uitofp(a)
        }
    }

    fn float_to_int(&mut self, a: V<'ctx>) -> R<V<'ctx>> {
        let a = self.floats(a)?;
        self.trunc_to_int(a)
    }

    fn select(&mut self, m: V<'ctx>, x: V<'ctx>, y: V<'ctx>) -> R<V<'ctx>> {
        let m = self.cast(m, Kind::Mask)?;
        let y = self.cast(y, self.kind_of(x))?;
        self.e.select(m, x, y)
    }

    fn select_all(&mut self, c: Self::S, x: V<'ctx>, y: V<'ctx>) -> R<V<'ctx>> {
        let y = self.cast(y, self.kind_of(x))?;
        self.e.select_all(int(c), x, y)
    }

    fn shuffle_quads(&mut self, v: V<'ctx>, pick: [u8; 4]) -> R<V<'ctx>> {
        let pattern: Vec<u32> = (0..self.e.lanes)
            .map(|l| (l & !3) + pick[(l & 3) as usize] as u32)
            .collect();
        self.e.shuffle(v, &pattern)
    }

    fn supports(&self, op: Optional) -> bool {
        op != Optional::Fma || self.fma
    }

    fn optional(&mut self, op: Optional, args: &[V<'ctx>]) -> R<V<'ctx>> {
        let ints = args.iter().map(|&v| self.ints(v)).collect::<R<Vec<_>>>()?;
        let e = &self.e;
        match op {
            Optional::Shift(s) => match s {
                Shift::Shl => e.shl(ints[0], ints[1]),
                Shift::ShrS => e.ashr(ints[0], ints[1]),
                Shift::ShrU => e.lshr(ints[0], ints[1]),
            },
            Optional::Div { signed, rem } => {
                let (a, d) = (ints[0], ints[1]);
                Ok(match (signed, rem) {
                    (true, false) => e.b.build_int_signed_div(a, d, "")?,
                    (false, false) => e.b.build_int_unsigned_div(a, d, "")?,
                    (true, true) => e.b.build_int_signed_rem(a, d, "")?,
                    (false, true) => e.b.build_int_unsigned_rem(a, d, "")?,
                })
            }
            Optional::MulHigh { signed } => {
                let ext = |v| {
                    if signed {
                        e.sext(v, e.t.vi64)
                    } else {
                        e.zext(v, e.t.vi64)
                    }
                };
                let p = e.mul(ext(ints[0])?, ext(ints[1])?)?;
                let s = e.t.i64.const_int(32, false);
                let s = VectorType::const_vector(&vec![s; e.lanes as usize]);
                let hi = e.lshr(p, s)?;
                e.trunc(hi, e.t.vi)
            }
            Optional::Ctlz => e.call_flag("llvm.ctlz", ints[0], false),
            Optional::Cttz => e.call_flag("llvm.cttz", ints[0], false),
            Optional::Popcount => e.call1("llvm.ctpop", ints[0]),
            Optional::BitReverse => e.call1("llvm.bitreverse", ints[0]),
            Optional::F2U => {
                // Through i64: NaN and |x| ≥ 2⁶³ → 0.
                let a = e.floats(args[0])?;
                let ax = e.call1("llvm.fabs", a)?;
                let ok = e.fcmp(FloatPredicate::OLT, ax, e.fconst(9.223_372e18)?)?;
                let i = e.fptosi(a, e.t.vi64)?;
                let i = e.trunc(i, e.t.vi)?;
                e.select(ok, i, e.iconst(0))
            }
            Optional::Fma if self.fma => {
                let f = args.iter().map(|&v| e.floats(v)).collect::<R<Vec<_>>>()?;
                e.fma(f[0], f[1], f[2])
            }
            Optional::Fma => Err(JitError::Codegen("FMA without the CPU feature".into())),
        }
    }

    fn flush(&mut self, a: V<'ctx>) -> R<V<'ctx>> {
        let a = self.floats(a)?;
        self.e.flush(a)
    }

    fn any(&mut self, m: V<'ctx>) -> R<Self::S> {
        let m = self.cast(m, Kind::Mask)?;
        Ok(self.e.any(m)?.into())
    }

    fn mask_bits(&mut self, m: V<'ctx>) -> R<Self::S> {
        let m = self.cast(m, Kind::Mask)?;
        Ok(self.e.bits_of(m)?.into())
    }

    fn mask_from_bits(&mut self, bits: Self::S) -> R<V<'ctx>> {
        self.e.mask_from_bits(int(bits))
    }

    fn sconst(&mut self, ty: Scalar, x: i64) -> R<Self::S> {
        Ok(match ty {
            Scalar::I32 => self.e.i32c(x as u32).into(),
            Scalar::F32 => {
                let bits = self.e.i32c(x as u32);
                self.e.b.build_bit_cast(bits, self.e.t.f32, "")?
            }
            Scalar::I64 | Scalar::Ptr => self.e.i64c(x).into(),
        })
    }

    fn sbin(&mut self, op: SBin, a: Self::S, c: Self::S) -> R<Self::S> {
        let (a, c) = (int(a), int(c));
        let b = &self.e.b;
        Ok(match op {
            SBin::Add => b.build_int_add(a, c, "")?,
            SBin::Mul => b.build_int_mul(a, c, "")?,
            SBin::Shl => b.build_left_shift(a, c, "")?,
            SBin::UShr => b.build_right_shift(a, c, false, "")?,
            SBin::And => b.build_and(a, c, "")?,
            SBin::Or => b.build_or(a, c, "")?,
        }
        .into())
    }

    fn scmp(&mut self, ult: bool, a: Self::S, c: Self::S) -> R<Self::S> {
        let p = if ult {
            IntPredicate::ULT
        } else {
            IntPredicate::NE
        };
        Ok(self.e.b.build_int_compare(p, int(a), int(c), "")?.into())
    }

    fn sselect(&mut self, c: Self::S, a: Self::S, x: Self::S) -> R<Self::S> {
        Ok(self.e.b.build_select(int(c), a, x, "")?)
    }

    fn sconvert(&mut self, a: Self::S, to: Scalar, signed: bool) -> R<Self::S> {
        let a = int(a);
        let b = &self.e.b;
        let width = a.get_type().get_bit_width();
        Ok(match (width, to) {
            (32, Scalar::I64) if signed => b.build_int_s_extend(a, self.e.t.i64, "")?,
            (32, Scalar::I64) => b.build_int_z_extend(a, self.e.t.i64, "")?,
            (64, Scalar::I32) => b.build_int_truncate(a, self.e.t.i32, "")?,
            _ => a,
        }
        .into())
    }

    fn word_addr(&mut self, base: Self::S, words: Self::S) -> R<Self::S> {
        Ok(self
            .e
            .word_ptr(base.into_pointer_value(), int(words))?
            .into())
    }

    fn load(&mut self, ty: Scalar, addr: Self::S, bytes: i32) -> R<Self::S> {
        let p = self.e.byte_ptr(addr.into_pointer_value(), bytes as u64)?;
        self.e.load(self.scalar_ty(ty), p)
    }

    fn store(&mut self, addr: Self::S, bytes: i32, v: Self::S) -> R<()> {
        let p = self.e.byte_ptr(addr.into_pointer_value(), bytes as u64)?;
        self.e.store(p, v)
    }

    fn load_vector(&mut self, kind: Kind, addr: Self::S) -> R<V<'ctx>> {
        let p = addr.into_pointer_value();
        if kind == Kind::Mask {
            let w = self.e.load_vec(self.e.t.vi, p)?;
            return self.cast(w, Kind::Mask);
        }
        self.e.load_vec(self.vty(kind), p)
    }

    fn store_vector(&mut self, addr: Self::S, v: V<'ctx>) -> R<()> {
        let w = self.e.words(v)?;
        self.e.store(addr.into_pointer_value(), w)
    }

    fn gather(&mut self, kind: Kind, base: Self::S, words: V<'ctx>) -> R<V<'ctx>> {
        let ptrs = self.e.lane_ptrs(base, words)?;
        let ty = if kind == Kind::F32 {
            self.e.t.vf
        } else {
            self.e.t.vi
        };
        let v = self.e.gather(ty, ptrs)?;
        self.cast(v, kind)
    }

    fn scatter(
        &mut self,
        base: Self::S,
        words: V<'ctx>,
        v: V<'ctx>,
        mask: V<'ctx>,
        _spare: Self::S,
    ) -> R<()> {
        let ptrs = self.e.lane_ptrs(base, words)?;
        let v = self.e.words(v)?;
        let mask = self.cast(mask, Kind::Mask)?;
        self.e.scatter(v, ptrs, mask)
    }

    fn stack_area(&mut self, words: usize) -> R<Self::S> {
        let n = self.e.t.i64.const_int(words as u64, false);
        let p = self.slots.build_array_alloca(self.e.t.i32, n, "scratch")?;
        p.as_instruction()
            .ok_or_else(|| JitError::Codegen("scratch is not an instruction".into()))?
            .set_alignment(64)
            .map_err(|e| JitError::Codegen(e.to_string()))?;
        Ok(p.into())
    }

    fn call(&mut self, callee: Callee<Self::S>, args: &[Self::S]) -> R<()> {
        let (ty, f) = match callee {
            Callee::Host => (self.callees.host, self.callees.host_fn),
            Callee::Texture(f) => (self.callees.texture, f.into_pointer_value()),
            Callee::Emit(f) => (self.callees.emit, f.into_pointer_value()),
        };
        let args: Vec<BasicMetadataValueEnum> = args.iter().map(|&a| a.into()).collect();
        self.e.b.build_indirect_call(ty, f, &args, "")?;
        Ok(())
    }

    fn vector_var(&mut self, kind: Kind) -> R<Var<'ctx>> {
        self.slot(self.vty(kind).into())
    }

    fn scalar_var(&mut self) -> R<Var<'ctx>> {
        self.slot(self.e.t.i64.into())
    }

    fn def_vector(&mut self, var: Var<'ctx>, v: V<'ctx>) -> R<()> {
        let k = self.kind_of(var.ty.into_vector_type().get_poison());
        let v = self.cast(v, k)?;
        self.e.b.build_store(var.p, v)?;
        Ok(())
    }

    fn use_vector(&mut self, var: Var<'ctx>) -> R<V<'ctx>> {
        Ok(self.e.b.build_load(var.ty, var.p, "")?.into_vector_value())
    }

    fn def_scalar(&mut self, var: Var<'ctx>, s: Self::S) -> R<()> {
        self.e.b.build_store(var.p, s)?;
        Ok(())
    }

    fn use_scalar(&mut self, var: Var<'ctx>) -> R<Self::S> {
        Ok(self.e.b.build_load(var.ty, var.p, "")?)
    }

    fn block(&mut self) -> R<BasicBlock<'ctx>> {
        Ok(self.e.cx.append_basic_block(self.func, ""))
    }

    fn switch_to(&mut self, b: BasicBlock<'ctx>) -> R<()> {
        self.e.b.position_at_end(b);
        Ok(())
    }

    fn jump(&mut self, to: BasicBlock<'ctx>) -> R<()> {
        self.e.b.build_unconditional_branch(to)?;
        Ok(())
    }

    fn branch(&mut self, c: Self::S, then: BasicBlock<'ctx>, otherwise: BasicBlock<'ctx>) -> R<()> {
        self.e.b.build_conditional_branch(int(c), then, otherwise)?;
        Ok(())
    }

    fn end_entry(&mut self, to: BasicBlock<'ctx>) -> R<()> {
        let jump = self.e.b.build_unconditional_branch(to)?;
        self.slots.position_before(&jump);
        Ok(())
    }

    fn ret(&mut self) -> R<()> {
        self.e.b.build_return(None)?;
        Ok(())
    }
}
