//! Building blocks of the lowering: LLVM types for one step's lanes, vector constants, and thin
//! wrappers over inkwell's builder that work on vectors and report errors as [`JitError`].

use super::JitError;
use inkwell::AddressSpace;
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::intrinsics::Intrinsic;
use inkwell::module::Module;
use inkwell::types::{BasicTypeEnum, FloatType, IntType, PointerType, VectorType};
use inkwell::values::{
    AsValueRef, BasicMetadataValueEnum, BasicValue, BasicValueEnum, IntValue, PointerValue,
    ValueKind, VectorValue,
};
use inkwell::{FloatPredicate, IntPredicate};

/// A lowering result.
pub(super) type R<T> = Result<T, JitError>;

/// An IR value: one vector of a step's lanes.
pub(super) type V<'ctx> = VectorValue<'ctx>;

/// The types the lowering uses; `v*` are vectors of a step's lanes.
#[derive(Clone, Copy)]
pub(super) struct Types<'ctx> {
    pub f32: FloatType<'ctx>,
    pub i1: IntType<'ctx>,
    pub i32: IntType<'ctx>,
    pub i64: IntType<'ctx>,
    pub ptr: PointerType<'ctx>,
    /// `<lanes x float>`.
    pub vf: VectorType<'ctx>,
    /// `<lanes x i32>`.
    pub vi: VectorType<'ctx>,
    /// `<lanes x i1>`: lane masks.
    pub vb: VectorType<'ctx>,
    /// `<lanes x i64>`.
    pub vi64: VectorType<'ctx>,
    /// `i<lanes>`: a lane mask's bits.
    pub bits: IntType<'ctx>,
}

impl<'ctx> Types<'ctx> {
    pub fn new(cx: &'ctx Context, lanes: u32) -> R<Self> {
        let bits = std::num::NonZeroU32::new(lanes)
            .ok_or("no lanes")
            .and_then(|n| cx.custom_width_int_type(n))
            .map_err(|e| JitError::Codegen(e.into()))?;
        Ok(Types {
            f32: cx.f32_type(),
            i1: cx.bool_type(),
            i32: cx.i32_type(),
            i64: cx.i64_type(),
            ptr: cx.ptr_type(AddressSpace::default()),
            vf: cx.f32_type().vec_type(lanes),
            vi: cx.i32_type().vec_type(lanes),
            vb: cx.bool_type().vec_type(lanes),
            vi64: cx.i64_type().vec_type(lanes),
            bits,
        })
    }
}

/// The builder, the module it emits into, and the lane count.
pub(super) struct Emit<'a, 'ctx> {
    pub cx: &'ctx Context,
    pub m: &'a Module<'ctx>,
    pub b: Builder<'ctx>,
    pub t: Types<'ctx>,
    pub lanes: u32,
}

fn vector(v: BasicValueEnum<'_>) -> R<V<'_>> {
    match v {
        BasicValueEnum::VectorValue(v) => Ok(v),
        other => Err(JitError::Codegen(format!(
            "expected a vector, got {other:?}"
        ))),
    }
}

impl<'ctx> Emit<'_, 'ctx> {
    // ------------------------------------------------------------------ constants

    /// Every lane `bits` (an i32 vector).
    pub fn iconst(&self, bits: u32) -> V<'ctx> {
        let c = self.t.i32.const_int(bits as u64, false);
        VectorType::const_vector(&vec![c; self.lanes as usize])
    }

    /// Every lane the float whose bits are `bits` (NaN payloads included).
    pub fn fbits(&self, bits: u32) -> R<V<'ctx>> {
        self.cast(self.iconst(bits), self.t.vf)
    }

    /// Every lane `x`.
    pub fn fconst(&self, x: f32) -> R<V<'ctx>> {
        self.fbits(x.to_bits())
    }

    /// Every lane `b`.
    pub fn bconst(&self, b: bool) -> V<'ctx> {
        let c = self.t.i1.const_int(b as u64, false);
        VectorType::const_vector(&vec![c; self.lanes as usize])
    }

    /// A constant vector from one word per lane.
    pub fn iconsts(&self, words: &[u32]) -> V<'ctx> {
        let cs: Vec<IntValue> = words
            .iter()
            .map(|&w| self.t.i32.const_int(w as u64, false))
            .collect();
        VectorType::const_vector(&cs)
    }

    pub fn i64c(&self, x: i64) -> IntValue<'ctx> {
        self.t.i64.const_int(x as u64, true)
    }

    pub fn i32c(&self, x: u32) -> IntValue<'ctx> {
        self.t.i32.const_int(x as u64, false)
    }

    // ------------------------------------------------------------------ casts

    /// `v` reinterpreted as `ty` (same size); `v` itself when it has that type.
    pub fn cast(&self, v: V<'ctx>, ty: VectorType<'ctx>) -> R<V<'ctx>> {
        if v.get_type() == ty {
            return Ok(v);
        }
        vector(self.b.build_bit_cast(v, ty, "")?)
    }

    pub fn ints(&self, v: V<'ctx>) -> R<V<'ctx>> {
        self.cast(v, self.t.vi)
    }

    pub fn floats(&self, v: V<'ctx>) -> R<V<'ctx>> {
        self.cast(v, self.t.vf)
    }

    /// A lane mask as i32 words: all ones where set.
    pub fn sext(&self, v: V<'ctx>, ty: VectorType<'ctx>) -> R<V<'ctx>> {
        Ok(self.b.build_int_s_extend(v, ty, "")?)
    }

    pub fn zext(&self, v: V<'ctx>, ty: VectorType<'ctx>) -> R<V<'ctx>> {
        Ok(self.b.build_int_z_extend(v, ty, "")?)
    }

    pub fn trunc(&self, v: V<'ctx>, ty: VectorType<'ctx>) -> R<V<'ctx>> {
        Ok(self.b.build_int_truncate(v, ty, "")?)
    }

    /// A value as words for memory or a host call (lane masks become ~0 / 0).
    pub fn words(&self, v: V<'ctx>) -> R<V<'ctx>> {
        if v.get_type() == self.t.vb {
            self.sext(v, self.t.vi)
        } else {
            self.ints(v)
        }
    }

    // ------------------------------------------------------------------ arithmetic

    pub fn fadd(&self, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        Ok(self.b.build_float_add(a, c, "")?)
    }
    pub fn fsub(&self, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        Ok(self.b.build_float_sub(a, c, "")?)
    }
    pub fn fmul(&self, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        Ok(self.b.build_float_mul(a, c, "")?)
    }
    pub fn fdiv(&self, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        Ok(self.b.build_float_div(a, c, "")?)
    }
    pub fn add(&self, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        Ok(self.b.build_int_add(a, c, "")?)
    }
    pub fn sub(&self, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        Ok(self.b.build_int_sub(a, c, "")?)
    }
    pub fn mul(&self, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        Ok(self.b.build_int_mul(a, c, "")?)
    }
    pub fn and(&self, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        Ok(self.b.build_and(a, c, "")?)
    }
    pub fn or(&self, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        Ok(self.b.build_or(a, c, "")?)
    }
    pub fn xor(&self, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        Ok(self.b.build_xor(a, c, "")?)
    }
    pub fn not(&self, a: V<'ctx>) -> R<V<'ctx>> {
        Ok(self.b.build_not(a, "")?)
    }
    /// `a & !c`.
    pub fn and_not(&self, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        let n = self.not(c)?;
        self.and(a, n)
    }
    pub fn shl(&self, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        Ok(self.b.build_left_shift(a, c, "")?)
    }
    pub fn lshr(&self, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        Ok(self.b.build_right_shift(a, c, false, "")?)
    }
    pub fn ashr(&self, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        Ok(self.b.build_right_shift(a, c, true, "")?)
    }
    pub fn fcmp(&self, p: FloatPredicate, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        Ok(self.b.build_float_compare(p, a, c, "")?)
    }
    /// A float's denormals flushed to zeros of their sign, in integer arithmetic (LLVM keeps
    /// integer operations; it may fold float ones as IEEE does).
    pub fn flush(&self, x: V<'ctx>) -> R<V<'ctx>> {
        let bits = self.ints(x)?;
        let exp = self.and(bits, self.iconst(0x7F80_0000))?;
        let tiny = self.icmp(IntPredicate::EQ, exp, self.iconst(0))?;
        let sign = self.and(bits, self.iconst(0x8000_0000))?;
        let r = self.select(tiny, sign, bits)?;
        self.floats(r)
    }
    pub fn icmp(&self, p: IntPredicate, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        Ok(self.b.build_int_compare(p, a, c, "")?)
    }
    /// Per lane `m ? x : y` (`m` a lane mask).
    pub fn select(&self, m: V<'ctx>, x: V<'ctx>, y: V<'ctx>) -> R<V<'ctx>> {
        let y = self.cast(y, x.get_type())?;
        vector(self.b.build_select(m, x, y, "")?)
    }
    /// `c ? x : y` for every lane (`c` an i1).
    pub fn select_all(&self, c: IntValue<'ctx>, x: V<'ctx>, y: V<'ctx>) -> R<V<'ctx>> {
        let y = self.cast(y, x.get_type())?;
        vector(self.b.build_select(c, x, y, "")?)
    }
    pub fn fptosi(&self, v: V<'ctx>, ty: VectorType<'ctx>) -> R<V<'ctx>> {
        Ok(self.b.build_float_to_signed_int(v, ty, "")?)
    }
    pub fn sitofp(&self, v: V<'ctx>) -> R<V<'ctx>> {
        Ok(self.b.build_signed_int_to_float(v, self.t.vf, "")?)
    }
    pub fn uitofp(&self, v: V<'ctx>) -> R<V<'ctx>> {
        Ok(self.b.build_unsigned_int_to_float(v, self.t.vf, "")?)
    }

    /// Calls intrinsic `name`, overloaded on `overload`.
    pub fn intrinsic(
        &self,
        name: &str,
        overload: &[BasicTypeEnum<'ctx>],
        args: &[BasicMetadataValueEnum<'ctx>],
    ) -> R<BasicValueEnum<'ctx>> {
        let f = Intrinsic::find(name)
            .and_then(|i| i.get_declaration(self.m, overload))
            .ok_or_else(|| JitError::Codegen(format!("no intrinsic {name}")))?;
        match self.b.build_call(f, args, "")?.try_as_basic_value() {
            ValueKind::Basic(v) => Ok(v),
            _ => Err(JitError::Codegen(format!("{name} returns nothing"))),
        }
    }

    /// A one-operand intrinsic overloaded on its operand's type (`llvm.floor`, ...).
    pub fn call1(&self, name: &str, v: V<'ctx>) -> R<V<'ctx>> {
        vector(self.intrinsic(name, &[v.get_type().into()], &[v.into()])?)
    }

    /// A two-operand intrinsic overloaded on its operands' type (`llvm.smin`, ...).
    pub fn call2(&self, name: &str, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        vector(self.intrinsic(name, &[a.get_type().into()], &[a.into(), c.into()])?)
    }

    /// `llvm.ctlz`/`llvm.cttz`/`llvm.abs`: an operand and an i1 flag.
    pub fn call_flag(&self, name: &str, v: V<'ctx>, flag: bool) -> R<V<'ctx>> {
        let flag = self.t.i1.const_int(flag as u64, false);
        vector(self.intrinsic(name, &[v.get_type().into()], &[v.into(), flag.into()])?)
    }

    /// `llvm.fma`.
    pub fn fma(&self, a: V<'ctx>, c: V<'ctx>, d: V<'ctx>) -> R<V<'ctx>> {
        vector(self.intrinsic(
            "llvm.fma",
            &[a.get_type().into()],
            &[a.into(), c.into(), d.into()],
        )?)
    }

    /// The same lanes picked per `pick` (an index per lane).
    pub fn shuffle(&self, v: V<'ctx>, pick: &[u32]) -> R<V<'ctx>> {
        let mask = self.iconsts(pick);
        let poison = v.get_type().get_poison();
        Ok(self.b.build_shuffle_vector(v, poison, mask, "")?)
    }

    pub fn extract(&self, v: V<'ctx>, lane: u32) -> R<BasicValueEnum<'ctx>> {
        Ok(self.b.build_extract_element(v, self.i32c(lane), "")?)
    }

    /// A scalar (integer or float) in every lane.
    pub fn splat(&self, x: impl BasicValue<'ctx>) -> R<V<'ctx>> {
        let x = x.as_basic_value_enum();
        let ty = match x.get_type() {
            BasicTypeEnum::IntType(t) => t.vec_type(self.lanes),
            BasicTypeEnum::FloatType(t) => t.vec_type(self.lanes),
            other => return Err(JitError::Codegen(format!("cannot splat {other:?}"))),
        };
        let v = self
            .b
            .build_insert_element(ty.get_poison(), x, self.i32c(0), "")?;
        let zeros = vec![0; self.lanes as usize];
        self.shuffle(v, &zeros)
    }

    // ------------------------------------------------------------------ masks

    /// A lane mask's bits, lane `l` in bit `l` (i64).
    pub fn bits_of(&self, m: V<'ctx>) -> R<IntValue<'ctx>> {
        let bits = self.b.build_bit_cast(m, self.t.bits, "")?.into_int_value();
        if self.lanes == 64 {
            Ok(bits)
        } else {
            Ok(self.b.build_int_z_extend(bits, self.t.i64, "")?)
        }
    }

    /// The lane mask of the low `lanes` bits of `bits` (i64).
    pub fn mask_from_bits(&self, bits: IntValue<'ctx>) -> R<V<'ctx>> {
        let bits = if self.lanes == 64 {
            bits
        } else {
            self.b.build_int_truncate(bits, self.t.bits, "")?
        };
        vector(self.b.build_bit_cast(bits, self.t.vb, "")?)
    }

    /// Whether any lane of a mask is set (i1).
    pub fn any(&self, m: V<'ctx>) -> R<IntValue<'ctx>> {
        let bits = self.b.build_bit_cast(m, self.t.bits, "")?.into_int_value();
        Ok(self
            .b
            .build_int_compare(IntPredicate::NE, bits, self.t.bits.const_zero(), "")?)
    }

    // ------------------------------------------------------------------ memory

    /// The address of word `word` (i64) after `base`.
    pub fn word_ptr(
        &self,
        base: PointerValue<'ctx>,
        word: IntValue<'ctx>,
    ) -> R<PointerValue<'ctx>> {
        // SAFETY: an i32 GEP on a pointer; every caller's index stays inside its buffer.
        Ok(unsafe { self.b.build_gep(self.t.i32, base, &[word], "")? })
    }

    /// The address `bytes` after `base`.
    pub fn byte_ptr(&self, base: PointerValue<'ctx>, bytes: u64) -> R<PointerValue<'ctx>> {
        let i8t = self.cx.i8_type();
        // SAFETY: a byte offset inside the structure `base` points to.
        Ok(unsafe {
            self.b
                .build_gep(i8t, base, &[self.t.i64.const_int(bytes, false)], "")?
        })
    }

    /// A load of `ty` with alignment 4 (buffers are only word-aligned).
    pub fn load(&self, ty: BasicTypeEnum<'ctx>, p: PointerValue<'ctx>) -> R<BasicValueEnum<'ctx>> {
        let v = self.b.build_load(ty, p, "")?;
        if let Some(i) = v.as_instruction_value() {
            i.set_alignment(4)
                .map_err(|e| JitError::Codegen(e.to_string()))?;
        }
        Ok(v)
    }

    pub fn load_vec(&self, ty: VectorType<'ctx>, p: PointerValue<'ctx>) -> R<V<'ctx>> {
        vector(self.load(ty.into(), p)?)
    }

    /// A store with alignment 4.
    pub fn store(&self, p: PointerValue<'ctx>, v: impl BasicValue<'ctx>) -> R<()> {
        let i = self.b.build_store(p, v)?;
        i.set_alignment(4)
            .map_err(|e| JitError::Codegen(e.to_string()))?;
        Ok(())
    }

    /// Per-lane addresses `base + 4·words[l]` (`base` a pointer or a vector of pointers).
    pub fn lane_ptrs(&self, base: BasicValueEnum<'ctx>, words: V<'ctx>) -> R<V<'ctx>> {
        use inkwell::llvm_sys::core::LLVMBuildGEP2;
        let mut idx = [words.as_value_ref()];
        // SAFETY: a GEP with one vector index on values of this context; the result is a
        // vector of pointers, which inkwell wraps as a vector value.
        unsafe {
            let r = LLVMBuildGEP2(
                self.b.as_mut_ptr(),
                inkwell::types::AsTypeRef::as_type_ref(&self.t.i32),
                base.as_value_ref(),
                idx.as_mut_ptr(),
                1,
                c"".as_ptr(),
            );
            Ok(VectorValue::new(r))
        }
    }

    /// `llvm.masked.gather` of `ty` from `ptrs` (every lane's address valid).
    pub fn gather(&self, ty: VectorType<'ctx>, ptrs: V<'ctx>) -> R<V<'ctx>> {
        let align = self.t.i32.const_int(4, false);
        let all = self.bconst(true);
        vector(self.intrinsic(
            "llvm.masked.gather",
            &[ty.into(), ptrs.get_type().into()],
            &[
                ptrs.into(),
                align.into(),
                all.into(),
                ty.get_poison().into(),
            ],
        )?)
    }

    /// `llvm.masked.scatter` of `v` to `ptrs` where `mask` is set.
    pub fn scatter(&self, v: V<'ctx>, ptrs: V<'ctx>, mask: V<'ctx>) -> R<()> {
        let align = self.t.i32.const_int(4, false);
        let f = Intrinsic::find("llvm.masked.scatter")
            .and_then(|i| i.get_declaration(self.m, &[v.get_type().into(), ptrs.get_type().into()]))
            .ok_or_else(|| JitError::Codegen("no intrinsic llvm.masked.scatter".into()))?;
        self.b
            .build_call(f, &[v.into(), ptrs.into(), align.into(), mask.into()], "")?;
        Ok(())
    }
}
