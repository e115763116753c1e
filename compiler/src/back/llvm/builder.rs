//! [`SimdBuilder`] for LLVM: a step's lanes are one `<lanes x float>` or `<lanes x i32>`
//! (masks `<lanes x i1>`), which LLVM splits into the host's registers.
//!
//! What is LLVM's own: variables are stack slots in the entry block that `mem2reg` turns into
//! phis; per-lane addresses become `llvm.masked.gather`/`scatter`; integer division, 64-bit
//! products, bit counts and per-lane shifts have instructions or short sequences; and LLVM's
//! optimizer folds float operations as IEEE does whatever the function's denormal mode
//! ([`SimdBuilder::FOLDS_DENORMALS`]), so flushes are integer operations. LLVM's `fptosi` is
//! poison out of range, so conversions keep their operands in range first.

mod outline;
mod values;
mod wide;

use crate::back::abi::Invariant;
use crate::back::abi::JitError;
use crate::back::simd::{
    AtomicOp, Callee, FBin, FUn, IBin, Kind, Optional, QBin, R, SBin, Scalar, Shift, SimdBuilder,
    gather_lanes,
};
use crate::ir::{FCmp, ICmp};
use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::intrinsics::Intrinsic;
use inkwell::module::Module;
use inkwell::types::{BasicTypeEnum, FunctionType, IntType, VectorType};
use inkwell::values::{
    AsValueRef, BasicMetadataValueEnum, BasicValue, BasicValueEnum, FunctionValue,
    InstructionValue, IntValue, PointerValue, ValueKind, VectorValue,
};
use inkwell::{AddressSpace, FloatPredicate as FP, IntPredicate as IP};

/// A step's lanes.
type V<'ctx> = VectorValue<'ctx>;

/// A stack slot holding a vector or an i64 (promoted to SSA by `mem2reg`).
#[derive(Clone, Copy)]
pub struct Var<'ctx> {
    p: PointerValue<'ctx>,
    ty: BasicTypeEnum<'ctx>,
}

/// The signatures of what the code calls through the pointers of its arguments: the lane
/// operations, the texture and EMIT callbacks.
#[derive(Clone, Copy)]
pub(super) struct Callees<'ctx> {
    pub lane_op: FunctionType<'ctx>,
    pub texture: FunctionType<'ctx>,
    pub emit: FunctionType<'ctx>,
    /// The memory callback's.
    pub memory: FunctionType<'ctx>,
}

/// inkwell's builder, the module and the function it builds, and the vector types of a step.
pub(super) struct LlvmBuilder<'a, 'ctx> {
    cx: &'ctx Context,
    m: &'a Module<'ctx>,
    b: Builder<'ctx>,
    func: FunctionValue<'ctx>,
    /// Builds the stack slots, in the entry block (before its final jump once there is one).
    slots: Builder<'ctx>,
    args: PointerValue<'ctx>,
    callees: Callees<'ctx>,
    fma: bool,
    /// IEEE denormals (compute programs): `flush` keeps them.
    pub(super) keep_denormals: bool,
    /// Whether memory instructions' word gathers and scatters become the CPU's gather and
    /// scatter instructions (`HostCpu::hardware_scatter`); otherwise a load or store a lane.
    pub(super) hardware_scatter: bool,
    /// The host's widest vector of 32-bit lanes (`HostCpu::width`).
    width: u32,
    /// Whether gathers become the CPU's gather instruction (`HostCpu::hardware_gather`).
    hardware_gather: bool,
    lanes: u32,
    /// `<lanes x float>`, `<lanes x i32>`, `<lanes x i1>`, `<lanes x i64>`.
    vf: VectorType<'ctx>,
    vi: VectorType<'ctx>,
    vb: VectorType<'ctx>,
    vi64: VectorType<'ctx>,
    /// `i<lanes>`: a mask's bits.
    bits: IntType<'ctx>,
    /// The constant tables exact math reads (`d_lookup`), by the address of their data.
    tables: Vec<(usize, inkwell::values::GlobalValue<'ctx>)>,
    /// The exact functions compiled once in the module ([`SimdBuilder::call_exact_rarely`]).
    outlined: Vec<(crate::back::simd::ExactFn, FunctionValue<'ctx>)>,
}

fn int(s: BasicValueEnum<'_>) -> IntValue<'_> {
    s.into_int_value()
}

fn vector(v: BasicValueEnum<'_>) -> R<V<'_>> {
    match v {
        BasicValueEnum::VectorValue(v) => Ok(v),
        other => Err(Invariant::NoVectorForm(format!("{other:?}, not a vector")).into()),
    }
}

impl<'ctx> SimdBuilder for LlvmBuilder<'_, 'ctx> {
    type V = V<'ctx>;
    type S = BasicValueEnum<'ctx>;
    type Var = Var<'ctx>;
    type Block = BasicBlock<'ctx>;
    type D = V<'ctx>;

    const FOLDS_DENORMALS: bool = true;
    const BRANCHLESS_LANE_MOVES: bool = true;

    fn lanes(&self) -> usize {
        self.lanes as usize
    }

    fn args(&self) -> Self::S {
        self.args.into()
    }

    fn splat_const(&mut self, kind: Kind, bits: u32) -> R<V<'ctx>> {
        match kind {
            Kind::F32 => {
                let w = self.iconst(bits);
                Ok(self.b.build_bit_cast(w, self.vf, "")?.into_vector_value())
            }
            Kind::I32 => Ok(self.iconst(bits)),
            Kind::Mask => Ok(self.splat_int(self.cx.bool_type(), (bits != 0) as u64)),
        }
    }

    fn iota(&mut self) -> R<V<'ctx>> {
        let lanes: Vec<IntValue> = (0..self.lanes).map(|l| self.i32c(l)).collect();
        Ok(VectorType::const_vector(&lanes))
    }

    fn splat(&mut self, s: Self::S) -> R<V<'ctx>> {
        let ty = match s.get_type() {
            BasicTypeEnum::FloatType(t) => t.vec_type(self.lanes),
            BasicTypeEnum::IntType(t) => t.vec_type(self.lanes),
            other => return Err(Invariant::NoVectorForm(format!("a splat of {other:?}")).into()),
        };
        let v = self
            .b
            .build_insert_element(ty.get_poison(), s, self.i32c(0), "")?;
        let zeros = VectorType::const_vector(&vec![self.i32c(0); self.lanes as usize]);
        Ok(self.b.build_shuffle_vector(v, ty.get_poison(), zeros, "")?)
    }

    fn extract(&mut self, v: V<'ctx>, lane: usize) -> R<Self::S> {
        Ok(self
            .b
            .build_extract_element(v, self.i32c(lane as u32), "")?)
    }

    fn insert(&mut self, v: V<'ctx>, lane: usize, s: Self::S) -> R<V<'ctx>> {
        Ok(self
            .b
            .build_insert_element(v, s, self.i32c(lane as u32), "")?)
    }

    fn cast(&mut self, v: V<'ctx>, kind: Kind) -> R<V<'ctx>> {
        let from = self.kind_of(v);
        if from == kind {
            return Ok(v);
        }
        match (from, kind) {
            (Kind::Mask, _) => {
                let w = self.b.build_int_s_extend(v, self.vi, "")?;
                self.cast(w, kind)
            }
            (_, Kind::Mask) => {
                let w = self.ints(v)?;
                self.icmp_(IP::NE, w, self.iconst(0))
            }
            _ => Ok(self
                .b
                .build_bit_cast(v, self.vty(kind), "")?
                .into_vector_value()),
        }
    }

    fn fbin(&mut self, op: FBin, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        let (a, c) = (self.floats(a)?, self.floats(c)?);
        self.arith(op, a, c)
    }

    fn fun(&mut self, op: FUn, a: V<'ctx>) -> R<V<'ctx>> {
        let a = self.floats(a)?;
        let name = match op {
            FUn::Neg => return Ok(self.b.build_float_neg(a, "")?),
            FUn::Abs => "llvm.fabs",
            FUn::Floor => "llvm.floor",
            FUn::Ceil => "llvm.ceil",
            FUn::Trunc => "llvm.trunc",
            FUn::Round => "llvm.roundeven",
            FUn::Sqrt => "llvm.sqrt",
        };
        self.intr(name, &[a], None)
    }

    fn fcmp(&mut self, cc: FCmp, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        let p = match cc {
            FCmp::Lt => FP::OLT,
            FCmp::Le => FP::OLE,
            FCmp::Gt => FP::OGT,
            FCmp::Ge => FP::OGE,
            FCmp::Eq => FP::OEQ,
            FCmp::Ne => FP::UNE,
        };
        let (a, c) = (self.floats(a)?, self.floats(c)?);
        self.fcmp_(p, a, c)
    }

    fn ibin(&mut self, op: IBin, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        let masks = self.kind_of(a) == Kind::Mask && self.kind_of(c) == Kind::Mask;
        let (a, c) = if masks {
            (a, c)
        } else {
            (self.ints(a)?, self.ints(c)?)
        };
        let b = &self.b;
        Ok(match op {
            IBin::Add => b.build_int_add(a, c, "")?,
            IBin::Sub => b.build_int_sub(a, c, "")?,
            IBin::Mul => b.build_int_mul(a, c, "")?,
            IBin::And => b.build_and(a, c, "")?,
            IBin::Or => b.build_or(a, c, "")?,
            IBin::Xor => b.build_xor(a, c, "")?,
            IBin::AndNot => b.build_and(a, b.build_not(c, "")?, "")?,
            IBin::SMin => self.intr("llvm.smin", &[a, c], None)?,
            IBin::SMax => self.intr("llvm.smax", &[a, c], None)?,
            IBin::UMin => self.intr("llvm.umin", &[a, c], None)?,
            IBin::UMax => self.intr("llvm.umax", &[a, c], None)?,
        })
    }

    fn icmp(&mut self, cc: ICmp, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        let p = match cc {
            ICmp::Eq => IP::EQ,
            ICmp::Ne => IP::NE,
            ICmp::SLt => IP::SLT,
            ICmp::SGe => IP::SGE,
            ICmp::ULt => IP::ULT,
            ICmp::UGe => IP::UGE,
        };
        let (a, c) = (self.ints(a)?, self.ints(c)?);
        self.icmp_(p, a, c)
    }

    fn not(&mut self, a: V<'ctx>) -> R<V<'ctx>> {
        let a = if self.kind_of(a) == Kind::Mask {
            a
        } else {
            self.ints(a)?
        };
        Ok(self.b.build_not(a, "")?)
    }

    fn shift_imm(&mut self, op: Shift, a: V<'ctx>, n: u32) -> R<V<'ctx>> {
        let n = self.iconst(n);
        self.optional(Optional::Shift(op), &[a, n])
    }

    fn iabs(&mut self, a: V<'ctx>) -> R<V<'ctx>> {
        let a = self.ints(a)?;
        self.intr("llvm.abs", &[a], Some(false))
    }

    fn int_to_float(&mut self, a: V<'ctx>, signed: bool) -> R<V<'ctx>> {
        let a = self.ints(a)?;
        Ok(if signed {
            self.b.build_signed_int_to_float(a, self.vf, "")?
        } else {
            self.b.build_unsigned_int_to_float(a, self.vf, "")?
        })
    }

    fn float_to_int(&mut self, a: V<'ctx>) -> R<V<'ctx>> {
        let a = self.floats(a)?;
        if let Some(i) = self.cvtt(a)? {
            return Ok(i);
        }
        let two31 = 2_147_483_648.0f32;
        let lo = self.fconst(-two31)?;
        let hi = self.fconst(two31)?;
        let ok = self.fcmp_(FP::OGE, a, lo)?;
        let ok2 = self.fcmp_(FP::OLT, a, hi)?;
        let ok = self.b.build_and(ok, ok2, "")?;
        let i = self.b.build_float_to_signed_int(a, self.vi, "")?;
        self.select_(ok, i, self.iconst(0x8000_0000))
    }

    fn select(&mut self, m: V<'ctx>, x: V<'ctx>, y: V<'ctx>) -> R<V<'ctx>> {
        let m = self.cast(m, Kind::Mask)?;
        let y = self.cast(y, self.kind_of(x))?;
        self.select_(m, x, y)
    }

    fn select_all(&mut self, c: Self::S, x: V<'ctx>, y: V<'ctx>) -> R<V<'ctx>> {
        let y = self.cast(y, self.kind_of(x))?;
        vector(self.b.build_select(int(c), x, y, "")?)
    }

    fn shuffle_quads(&mut self, v: V<'ctx>, pick: [u8; 4]) -> R<V<'ctx>> {
        let pattern: Vec<IntValue> = (0..self.lanes)
            .map(|l| self.i32c((l & !3) + pick[(l & 3) as usize] as u32))
            .collect();
        let mask = VectorType::const_vector(&pattern);
        let poison = v.get_type().get_poison();
        Ok(self.b.build_shuffle_vector(v, poison, mask, "")?)
    }

    fn supports(&self, op: Optional) -> bool {
        match op {
            Optional::Fma => self.fma,
            // `vpermd` (AVX2, AVX-512) over one register; LLVM has no generic
            // variable-index shuffle, so other widths have none.
            Optional::Permute => self.permute().is_some(),
            _ => true,
        }
    }

    fn optional(&mut self, op: Optional, args: &[V<'ctx>]) -> R<V<'ctx>> {
        if op == Optional::Fma {
            let f = args
                .iter()
                .map(|&v| self.floats(v))
                .collect::<R<Vec<_>>>()?;
            return self.intr("llvm.fma", &f, None);
        }
        let a = args.iter().map(|&v| self.ints(v)).collect::<R<Vec<_>>>()?;
        if op == Optional::Permute {
            let name = self
                .permute()
                .ok_or(Invariant::NoPermute(self.lanes as usize))?;
            let r = self.intrinsic(name, &[], &[a[0].into(), a[1].into()])?;
            return vector(r.ok_or_else(|| Invariant::NoValue(name.to_string()))?);
        }
        let b = &self.b;
        Ok(match op {
            Optional::Shift(Shift::Shl) => b.build_left_shift(a[0], a[1], "")?,
            Optional::Shift(Shift::ShrS) => b.build_right_shift(a[0], a[1], true, "")?,
            Optional::Shift(Shift::ShrU) => b.build_right_shift(a[0], a[1], false, "")?,
            Optional::Div { signed, rem } => match (signed, rem) {
                (true, false) => b.build_int_signed_div(a[0], a[1], "")?,
                (false, false) => b.build_int_unsigned_div(a[0], a[1], "")?,
                (true, true) => b.build_int_signed_rem(a[0], a[1], "")?,
                (false, true) => b.build_int_unsigned_rem(a[0], a[1], "")?,
            },
            Optional::MulHigh { signed } => {
                let ext = |v| {
                    if signed {
                        b.build_int_s_extend(v, self.vi64, "")
                    } else {
                        b.build_int_z_extend(v, self.vi64, "")
                    }
                };
                let p = b.build_int_mul(ext(a[0])?, ext(a[1])?, "")?;
                let s = self.splat_int(self.cx.i64_type(), 32);
                let hi = b.build_right_shift(p, s, false, "")?;
                b.build_int_truncate(hi, self.vi, "")?
            }
            Optional::Ctlz => self.intr("llvm.ctlz", &a, Some(false))?,
            Optional::Cttz => self.intr("llvm.cttz", &a, Some(false))?,
            Optional::Popcount => self.intr("llvm.ctpop", &a, None)?,
            Optional::BitReverse => self.intr("llvm.bitreverse", &a, None)?,
            Optional::Fma | Optional::Permute => {
                unreachable!("handled above")
            }
        })
    }

    fn flush(&mut self, a: V<'ctx>) -> R<V<'ctx>> {
        if self.keep_denormals {
            return Ok(a);
        }
        let bits = self.ints(a)?;
        let exp = self.b.build_and(bits, self.iconst(0x7F80_0000), "")?;
        let tiny = self.icmp_(IP::EQ, exp, self.iconst(0))?;
        let sign = self.b.build_and(bits, self.iconst(0x8000_0000), "")?;
        let r = self.select_(tiny, sign, bits)?;
        self.floats(r)
    }

    fn divides_by_constants(&self) -> bool {
        // LLVM's own multiplier and shifts for a vector `udiv`/`sdiv` by a splat constant
        // (a pre-shift for even divisors, no add-back where it can) measured faster than the
        // lowering's (`results/history/jit-2026-11-30.md`, "Integer division").
        true
    }

    fn has_doubles(&self) -> bool {
        true
    }

    fn call_exact_rarely(
        &mut self,
        f: crate::back::simd::ExactFn,
        args: &[V<'ctx>],
    ) -> R<Option<[V<'ctx>; 2]>> {
        self.call_outlined(f, args).map(Some)
    }

    fn d_from_float(&mut self, a: V<'ctx>) -> R<V<'ctx>> {
        let a = self.floats(a)?;
        Ok(self.b.build_float_ext(a, self.vd(), "")?)
    }

    fn d_from_int(&mut self, a: V<'ctx>) -> R<V<'ctx>> {
        let a = self.ints(a)?;
        Ok(self.b.build_signed_int_to_float(a, self.vd(), "")?)
    }

    fn d_to_float(&mut self, a: V<'ctx>) -> R<V<'ctx>> {
        Ok(self.b.build_float_trunc(a, self.vf, "")?)
    }

    fn d_const(&mut self, x: f64) -> R<V<'ctx>> {
        let c = self.cx.f64_type().const_float(x);
        Ok(VectorType::const_vector(&vec![c; self.lanes as usize]))
    }

    fn d_bin(&mut self, op: FBin, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        self.arith(op, a, c)
    }

    fn d_fma(&mut self, a: V<'ctx>, b: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        self.intr("llvm.fma", &[a, b, c], None)
    }

    fn d_round_even(&mut self, a: V<'ctx>) -> R<V<'ctx>> {
        self.intr("llvm.roundeven", &[a], None)
    }

    fn d_to_int(&mut self, a: V<'ctx>) -> R<V<'ctx>> {
        Ok(self.b.build_float_to_signed_int(a, self.vi, "")?)
    }

    fn d_lt(&mut self, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        self.fcmp_(FP::OLT, a, c)
    }

    fn d_select(&mut self, m: V<'ctx>, x: V<'ctx>, y: V<'ctx>) -> R<V<'ctx>> {
        let m = self.cast(m, Kind::Mask)?;
        self.select_(m, x, y)
    }

    fn d_lookup(&mut self, table: &'static [f64], idx: V<'ctx>) -> R<V<'ctx>> {
        let idx = self.ints(idx)?;
        if let Some(v) = self.permuted_lookup(table, idx)? {
            return Ok(v);
        }
        let f64t = self.cx.f64_type();
        // One constant per table in the module, however many operations read it.
        let key = table.as_ptr() as usize;
        let g = match self.tables.iter().find(|(k, _)| *k == key) {
            Some(&(_, g)) => g,
            None => {
                let values: Vec<_> = table.iter().map(|&x| f64t.const_float(x)).collect();
                let g = self
                    .m
                    .add_global(f64t.array_type(table.len() as u32), None, "");
                g.set_initializer(&f64t.const_array(&values));
                g.set_constant(true);
                g.set_linkage(inkwell::module::Linkage::Private);
                g.set_unnamed_addr(true);
                self.tables.push((key, g));
                g
            }
        };
        let idx = self.ints(idx)?;
        let ptrs = self.elem_ptrs(f64t.into(), g.as_pointer_value().into(), idx);
        let all = self.splat_int(self.cx.bool_type(), 1);
        let vd = self.vd();
        let v = self.intrinsic(
            "llvm.masked.gather",
            &[vd.into(), ptrs.get_type().into()],
            &[
                ptrs.into(),
                self.i32c(8).into(),
                all.into(),
                vd.get_poison().into(),
            ],
        )?;
        vector(v.ok_or_else(|| Invariant::NoValue("a lookup".into()))?)
    }

    fn d_scale(&mut self, a: V<'ctx>, e: V<'ctx>) -> R<V<'ctx>> {
        let bits = self.b.build_bit_cast(a, self.vi64, "")?.into_vector_value();
        let e = self.ints(e)?;
        let e = self.b.build_int_s_extend(e, self.vi64, "")?;
        let e = self
            .b
            .build_left_shift(e, self.splat_int(self.cx.i64_type(), 52), "")?;
        let bits = self.b.build_int_add(bits, e, "")?;
        Ok(self
            .b
            .build_bit_cast(bits, self.vd(), "")?
            .into_vector_value())
    }

    fn has_wide(&self) -> bool {
        true
    }

    fn q_pack(&mut self, lo: V<'ctx>, hi: V<'ctx>) -> R<V<'ctx>> {
        self.q_pack_(lo, hi)
    }

    fn q_word(&mut self, a: V<'ctx>, hi: bool) -> R<V<'ctx>> {
        self.q_word_(a, hi)
    }

    fn q_const(&mut self, bits: u64) -> R<V<'ctx>> {
        self.q_const_(bits)
    }

    fn d_un(&mut self, op: FUn, a: V<'ctx>) -> R<V<'ctx>> {
        self.d_un_(op, a)
    }

    fn d_cmp(&mut self, cc: FCmp, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        self.d_cmp_(cc, a, c)
    }

    fn q_bin(&mut self, op: QBin, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        self.q_bin_(op, a, c)
    }

    fn q_shift(&mut self, op: Shift, a: V<'ctx>, n: V<'ctx>) -> R<V<'ctx>> {
        self.q_shift_(op, a, n)
    }

    fn q_cmp(&mut self, cc: ICmp, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        self.q_cmp_(cc, a, c)
    }

    fn q_from_int(&mut self, a: V<'ctx>, signed: bool) -> R<V<'ctx>> {
        self.q_from_int_(a, signed)
    }

    fn d_from_uint(&mut self, a: V<'ctx>) -> R<V<'ctx>> {
        self.d_from_uint_(a)
    }

    fn d_to_q(&mut self, a: V<'ctx>) -> R<V<'ctx>> {
        self.d_to_q_(a)
    }

    fn q_to_d(&mut self, a: V<'ctx>, signed: bool) -> R<V<'ctx>> {
        self.q_to_d_(a, signed)
    }

    fn q_to_float(&mut self, a: V<'ctx>, signed: bool) -> R<V<'ctx>> {
        self.q_to_float_(a, signed)
    }

    /// Without AVX-512 masks live as words (`masks.rs`), and whether any is set is whether
    /// their bits are not all zero (`vpor` of the halves and `vptest`), not a `movmsk` of
    /// each half combined; AVX-512 tests its mask register.
    fn any(&mut self, m: V<'ctx>) -> R<Self::S> {
        if self.width >= 16 {
            let bits = self.mask_bits(m)?;
            let zero = self.i64c(0).into();
            return self.scmp(false, bits, zero);
        }
        let m = self.cast(m, Kind::Mask)?;
        let words = self.b.build_int_s_extend(m, self.vi, "")?;
        let all = std::num::NonZeroU32::new(32 * self.lanes)
            .ok_or("no lanes")
            .and_then(|n| self.cx.custom_width_int_type(n))
            .map_err(|e: &str| JitError::Backend {
                backend: "LLVM",
                stage: "the builder",
                message: e.into(),
            })?;
        let bits = self.b.build_bit_cast(words, all, "")?.into_int_value();
        Ok(self
            .b
            .build_int_compare(IP::NE, bits, all.const_zero(), "")?
            .into())
    }

    fn mask_bits(&mut self, m: V<'ctx>) -> R<Self::S> {
        let m = self.cast(m, Kind::Mask)?;
        let bits = self.b.build_bit_cast(m, self.bits, "")?.into_int_value();
        if self.lanes == 64 {
            return Ok(bits.into());
        }
        let i64t = self.cx.i64_type();
        Ok(self.b.build_int_z_extend(bits, i64t, "")?.into())
    }

    fn mask_from_bits(&mut self, bits: Self::S) -> R<V<'ctx>> {
        let bits = if self.lanes == 64 {
            int(bits)
        } else {
            self.b.build_int_truncate(int(bits), self.bits, "")?
        };
        vector(self.b.build_bit_cast(bits, self.vb, "")?)
    }

    fn sconst(&mut self, ty: Scalar, x: i64) -> R<Self::S> {
        Ok(match ty {
            Scalar::I32 => self.i32c(x as u32).into(),
            Scalar::F32 => {
                let f32t = self.cx.f32_type();
                self.b.build_bit_cast(self.i32c(x as u32), f32t, "")?
            }
            Scalar::I64 | Scalar::Ptr => self.i64c(x).into(),
        })
    }

    fn sbin(&mut self, op: SBin, a: Self::S, c: Self::S) -> R<Self::S> {
        let (a, c, b) = (int(a), int(c), &self.b);
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
        let p = if ult { IP::ULT } else { IP::NE };
        Ok(self.b.build_int_compare(p, int(a), int(c), "")?.into())
    }

    fn sselect(&mut self, c: Self::S, a: Self::S, x: Self::S) -> R<Self::S> {
        Ok(self.b.build_select(int(c), a, x, "")?)
    }

    fn sconvert(&mut self, a: Self::S, to: Scalar, signed: bool) -> R<Self::S> {
        let (a, b) = (int(a), &self.b);
        let (i32t, i64t) = (self.cx.i32_type(), self.cx.i64_type());
        Ok(match (a.get_type().get_bit_width(), to) {
            (32, Scalar::I64) if signed => b.build_int_s_extend(a, i64t, "")?,
            (32, Scalar::I64) => b.build_int_z_extend(a, i64t, "")?,
            (64, Scalar::I32) => b.build_int_truncate(a, i32t, "")?,
            _ => a,
        }
        .into())
    }

    fn word_addr(&mut self, base: Self::S, words: Self::S) -> R<Self::S> {
        let i32t = self.cx.i32_type();
        // SAFETY: an i32 GEP on a pointer; every caller's index stays inside its buffer.
        let p = unsafe {
            self.b
                .build_gep(i32t, base.into_pointer_value(), &[int(words)], "")?
        };
        Ok(p.into())
    }

    fn load(&mut self, ty: Scalar, addr: Self::S, bytes: i32) -> R<Self::S> {
        let p = self.byte_ptr(addr, bytes)?;
        let t: BasicTypeEnum = match ty {
            Scalar::I32 => self.cx.i32_type().into(),
            Scalar::I64 => self.cx.i64_type().into(),
            Scalar::F32 => self.cx.f32_type().into(),
            Scalar::Ptr => self.cx.ptr_type(AddressSpace::default()).into(),
        };
        let v = self.b.build_load(t, p, "")?;
        self.align4(v.as_instruction_value())?;
        Ok(v)
    }

    fn store(&mut self, addr: Self::S, bytes: i32, v: Self::S) -> R<()> {
        let p = self.byte_ptr(addr, bytes)?;
        let st = self.b.build_store(p, v)?;
        self.align4(Some(st))
    }

    fn load_vector(&mut self, kind: Kind, addr: Self::S) -> R<V<'ctx>> {
        let ty = if kind == Kind::F32 { self.vf } else { self.vi };
        let v = self.b.build_load(ty, addr.into_pointer_value(), "")?;
        self.align4(v.as_instruction_value())?;
        self.cast(v.into_vector_value(), kind)
    }

    fn store_vector(&mut self, addr: Self::S, v: V<'ctx>) -> R<()> {
        let w = if self.kind_of(v) == Kind::F32 {
            v
        } else {
            self.ints(v)?
        };
        let st = self.b.build_store(addr.into_pointer_value(), w)?;
        self.align4(Some(st))
    }

    fn lane_words(&mut self, words: V<'ctx>) -> R<Vec<Self::S>> {
        let words = self.ints(words)?;
        let n = self.lanes() as u32;
        let pairs = self
            .b
            .build_bit_cast(words, self.cx.i64_type().vec_type(n / 2), "")?
            .into_vector_value();
        let mut out = Vec::with_capacity(n as usize);
        for p in 0..n / 2 {
            let pair = self
                .b
                .build_extract_element(pairs, self.i32c(p), "")?
                .into_int_value();
            let lo = self.b.build_and(pair, self.i64c(0xFFFF_FFFF), "")?;
            let hi = self.b.build_right_shift(pair, self.i64c(32), false, "")?;
            out.extend::<[Self::S; 2]>([lo.into(), hi.into()]);
        }
        Ok(out)
    }

    fn gather(&mut self, kind: Kind, base: Self::S, words: V<'ctx>) -> R<V<'ctx>> {
        if self.hardware_gather && self.hardware_scatter {
            self.masked_gather(kind, base, words)
        } else {
            gather_lanes(self, kind, base, words)
        }
    }

    fn gather4(&mut self, base: Self::S, words: V<'ctx>) -> R<[V<'ctx>; 4]> {
        if !self.hardware_gather {
            return self.texels_transposed(base, words);
        }
        // `llvm.masked.gather` where it is one instruction: a texel's four words lane by lane
        // (or loaded whole and transposed) made lookup-heavy shaders much slower to compile
        // there, since LLVM's passes see all of it.
        let mut out = [words; 4];
        for (c, o) in out.iter_mut().enumerate() {
            let w = self.b.build_int_add(words, self.iconst(c as u32), "")?;
            *o = self.masked_gather(Kind::F32, base, w)?;
        }
        Ok(out)
    }

    fn scatter(
        &mut self,
        base: Self::S,
        words: V<'ctx>,
        v: V<'ctx>,
        mask: V<'ctx>,
        spare: Self::S,
    ) -> R<()> {
        if !self.hardware_scatter {
            return crate::back::simd::scatter_lanes(self, base, words, v, mask, spare);
        }
        let ptrs = self.lane_ptrs(base, words);
        let v = self.ints(v)?;
        let mask = self.cast(mask, Kind::Mask)?;
        self.intrinsic(
            "llvm.masked.scatter",
            &[v.get_type().into(), ptrs.get_type().into()],
            &[v.into(), ptrs.into(), self.i32c(4).into(), mask.into()],
        )?;
        Ok(())
    }

    fn atomic_rmw(&mut self, op: AtomicOp, addr: Self::S, a: Self::S) -> R<Self::S> {
        use inkwell::AtomicRMWBinOp as A;
        let op = match op {
            AtomicOp::Add => A::Add,
            AtomicOp::Xchg => A::Xchg,
            AtomicOp::And => A::And,
            AtomicOp::Or => A::Or,
            AtomicOp::Xor => A::Xor,
            AtomicOp::UMin => A::UMin,
            AtomicOp::UMax => A::UMax,
            AtomicOp::SMin => A::Min,
            AtomicOp::SMax => A::Max,
        };
        // `atomicrmw` is aligned to its type (4 bytes): the caller's addresses are.
        let old = self.b.build_atomicrmw(
            op,
            addr.into_pointer_value(),
            int(a),
            inkwell::AtomicOrdering::Monotonic,
        )?;
        Ok(old.into())
    }

    fn atomic_cas(&mut self, addr: Self::S, expected: Self::S, new: Self::S) -> R<Self::S> {
        let pair = self.b.build_cmpxchg(
            addr.into_pointer_value(),
            int(expected),
            int(new),
            inkwell::AtomicOrdering::Monotonic,
            inkwell::AtomicOrdering::Monotonic,
        )?;
        Ok(self.b.build_extract_value(pair, 0, "")?)
    }

    fn stack_area(&mut self, words: usize) -> R<Self::S> {
        let n = self.i64c(words as i64);
        let p = self
            .slots
            .build_array_alloca(self.cx.i32_type(), n, "scratch")?;
        p.as_instruction()
            .ok_or(Invariant::NotAnInstruction)?
            .set_alignment(64)
            .map_err(|e| JitError::Backend {
                backend: "LLVM",
                stage: "the builder",
                message: e.to_string(),
            })?;
        Ok(p.into())
    }

    fn call(&mut self, callee: Callee<Self::S>, args: &[Self::S]) -> R<()> {
        let (ty, f) = match callee {
            Callee::LaneOp(f) => (self.callees.lane_op, f.into_pointer_value()),
            Callee::Texture(f) => (self.callees.texture, f.into_pointer_value()),
            Callee::Emit(f) => (self.callees.emit, f.into_pointer_value()),
            Callee::Memory(f) => (self.callees.memory, f.into_pointer_value()),
        };
        let args: Vec<BasicMetadataValueEnum> = args.iter().map(|&a| a.into()).collect();
        self.b.build_indirect_call(ty, f, &args, "")?;
        Ok(())
    }

    fn vector_var(&mut self, kind: Kind) -> R<Var<'ctx>> {
        let ty = self.vty(kind).into();
        let p = self.slots.build_alloca(ty, "")?;
        Ok(Var { p, ty })
    }

    fn scalar_var(&mut self) -> R<Var<'ctx>> {
        let ty = self.cx.i64_type().into();
        let p = self.slots.build_alloca(ty, "")?;
        Ok(Var { p, ty })
    }

    fn wide_var(&mut self) -> R<Var<'ctx>> {
        let ty = self.vd().into();
        let p = self.slots.build_alloca(ty, "")?;
        Ok(Var { p, ty })
    }

    fn def_wide(&mut self, var: Var<'ctx>, v: V<'ctx>) -> R<()> {
        let v = self.b.build_bit_cast(v, var.ty, "")?;
        self.b.build_store(var.p, v)?;
        Ok(())
    }

    fn use_wide(&mut self, var: Var<'ctx>) -> R<V<'ctx>> {
        Ok(self.b.build_load(var.ty, var.p, "")?.into_vector_value())
    }

    fn def_vector(&mut self, var: Var<'ctx>, v: V<'ctx>) -> R<()> {
        let k = self.kind_of(var.ty.into_vector_type().get_poison());
        let v = self.cast(v, k)?;
        self.b.build_store(var.p, v)?;
        Ok(())
    }

    fn use_vector(&mut self, var: Var<'ctx>) -> R<V<'ctx>> {
        Ok(self.b.build_load(var.ty, var.p, "")?.into_vector_value())
    }

    fn def_scalar(&mut self, var: Var<'ctx>, s: Self::S) -> R<()> {
        self.b.build_store(var.p, s)?;
        Ok(())
    }

    fn use_scalar(&mut self, var: Var<'ctx>) -> R<Self::S> {
        Ok(self.b.build_load(var.ty, var.p, "")?)
    }

    fn block(&mut self) -> R<BasicBlock<'ctx>> {
        Ok(self.cx.append_basic_block(self.func, ""))
    }

    fn switch_to(&mut self, b: BasicBlock<'ctx>) -> R<()> {
        self.b.position_at_end(b);
        Ok(())
    }

    fn jump(&mut self, to: BasicBlock<'ctx>) -> R<()> {
        self.b.build_unconditional_branch(to)?;
        Ok(())
    }

    fn branch(&mut self, c: Self::S, then: BasicBlock<'ctx>, otherwise: BasicBlock<'ctx>) -> R<()> {
        self.b.build_conditional_branch(int(c), then, otherwise)?;
        Ok(())
    }

    fn end_entry(&mut self, to: BasicBlock<'ctx>) -> R<()> {
        let jump = self.b.build_unconditional_branch(to)?;
        self.slots.position_before(&jump);
        Ok(())
    }

    fn ret(&mut self) -> R<()> {
        self.b.build_return(None)?;
        Ok(())
    }
}

impl From<inkwell::builder::BuilderError> for JitError {
    fn from(e: inkwell::builder::BuilderError) -> Self {
        JitError::Backend {
            backend: "LLVM",
            stage: "the builder",
            message: e.to_string(),
        }
    }
}
