//! The builder's own helpers, which its [`SimdBuilder`] operations share: vector types,
//! constants, reinterpretation, comparisons and selects, conversions, intrinsics, per-lane
//! addresses and gathers.

use super::*;
use crate::back::abi::Invariant;

impl<'a, 'ctx> LlvmBuilder<'a, 'ctx> {
    /// A builder at the end of `func`'s entry block, `args` its pointer parameter, for
    /// `lanes` lanes per step; `fma` when the CPU has fused multiply-add, `width` its widest
    /// vector of 32-bit lanes, `hardware_gather` when LLVM compiles gathers to its gather
    /// instruction.
    pub fn new(
        cx: &'ctx Context,
        m: &'a Module<'ctx>,
        func: FunctionValue<'ctx>,
        lanes: u32,
        callees: Callees<'ctx>,
        (fma, width, hardware_gather): (bool, u32, bool),
    ) -> R<Self> {
        let entry = cx.append_basic_block(func, "entry");
        let (b, slots) = (cx.create_builder(), cx.create_builder());
        b.position_at_end(entry);
        slots.position_at_end(entry);
        // A function whose first parameter is not the shader's argument pointer (an
        // out-of-line exact function, `outline.rs`) reads no arguments: a null pointer.
        let args = match func.get_nth_param(0) {
            Some(BasicValueEnum::PointerValue(p)) => p,
            _ => cx.ptr_type(AddressSpace::default()).const_null(),
        };
        let bits = std::num::NonZeroU32::new(lanes)
            .ok_or("no lanes")
            .and_then(|n| cx.custom_width_int_type(n))
            .map_err(|e: &str| JitError::Backend {
                backend: "LLVM",
                stage: "the builder",
                message: e.into(),
            })?;
        Ok(LlvmBuilder {
            cx,
            m,
            b,
            func,
            slots,
            args,
            callees,
            fma,
            keep_denormals: false,
            hardware_scatter: true,
            width,
            hardware_gather,
            lanes,
            vf: cx.f32_type().vec_type(lanes),
            vi: cx.i32_type().vec_type(lanes),
            vb: cx.bool_type().vec_type(lanes),
            vi64: cx.i64_type().vec_type(lanes),
            bits,
            tables: Vec::new(),
            outlined: Vec::new(),
        })
    }

    pub(super) fn vty(&self, kind: Kind) -> VectorType<'ctx> {
        match kind {
            Kind::F32 => self.vf,
            Kind::I32 => self.vi,
            Kind::Mask => self.vb,
        }
    }

    pub(super) fn kind_of(&self, v: V<'ctx>) -> Kind {
        match v.get_type() {
            t if t == self.vb => Kind::Mask,
            t if t == self.vf => Kind::F32,
            _ => Kind::I32,
        }
    }

    pub(super) fn i32c(&self, x: u32) -> IntValue<'ctx> {
        self.cx.i32_type().const_int(x as u64, false)
    }

    pub(super) fn i64c(&self, x: i64) -> IntValue<'ctx> {
        self.cx.i64_type().const_int(x as u64, true)
    }

    /// Every lane `x` (an integer constant of `lane`'s type).
    pub(super) fn splat_int(&self, lane: IntType<'ctx>, x: u64) -> V<'ctx> {
        VectorType::const_vector(&vec![lane.const_int(x, false); self.lanes as usize])
    }

    pub(super) fn iconst(&self, x: u32) -> V<'ctx> {
        self.splat_int(self.cx.i32_type(), x as u64)
    }

    pub(super) fn fconst(&mut self, x: f32) -> R<V<'ctx>> {
        self.splat_const(Kind::F32, x.to_bits())
    }

    pub(super) fn floats(&mut self, v: V<'ctx>) -> R<V<'ctx>> {
        self.cast(v, Kind::F32)
    }

    pub(super) fn ints(&mut self, v: V<'ctx>) -> R<V<'ctx>> {
        self.cast(v, Kind::I32)
    }

    pub(super) fn fcmp_(&self, p: FP, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        Ok(self.b.build_float_compare(p, a, c, "")?)
    }

    pub(super) fn icmp_(&self, p: IP, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        Ok(self.b.build_int_compare(p, a, c, "")?)
    }

    /// x86's variable permute, `vpermd`, when a step fills one register (AVX2: 8 lanes,
    /// AVX-512: 16). Two registers' permute (four `vpermd` and two blends, or a window of
    /// one register) measured slower than their gathers lane by lane (`results/history/jit-2026-11-30.md`).
    pub(super) fn permute(&self) -> Option<&'static str> {
        match (self.lanes, self.width) {
            (8, 8) => Some("llvm.x86.avx2.permd"),
            (16, 16) => Some("llvm.x86.avx512.permvar.si.512"),
            _ => None,
        }
    }

    pub(super) fn select_(&self, m: V<'ctx>, x: V<'ctx>, y: V<'ctx>) -> R<V<'ctx>> {
        vector(self.b.build_select(m, x, y, "")?)
    }

    /// x86's `cvttps2dq` on `a`, a host register at a time: truncation, `i32::MIN` for NaN and
    /// out of range, as [`SimdBuilder::float_to_int`] asks, in one instruction (LLVM's
    /// `fptosi` is poison out of range, so it would need a compare and a blend around it).
    /// `None` when the step does not split into the host's registers.
    pub(super) fn cvtt(&self, a: V<'ctx>) -> R<Option<V<'ctx>>> {
        let n = self.lanes.min(self.width);
        let name = match n {
            16 => "llvm.x86.avx512.mask.cvttps2dq.512",
            8 => "llvm.x86.avx.cvtt.ps2dq.256",
            4 => "llvm.x86.sse2.cvttps2dq",
            _ => return Ok(None),
        };
        if !self.lanes.is_multiple_of(n) {
            return Ok(None);
        }
        let i32t = self.cx.i32_type();
        let mut parts = Vec::new();
        for piece in self.pieces(a, n)? {
            let mut args: Vec<BasicMetadataValueEnum> = vec![piece.into()];
            if n == 16 {
                // Pass-through, every lane written, the current rounding (truncation anyway).
                args.push(i32t.vec_type(16).const_zero().into());
                args.push(self.cx.i16_type().const_all_ones().into());
                args.push(i32t.const_int(4, false).into());
            }
            let r = self
                .intrinsic(name, &[], &args)?
                .ok_or_else(|| Invariant::NoValue(name.to_string()))?;
            parts.push(vector(r)?);
        }
        self.joined(parts).map(Some)
    }

    /// Lanes `k·n .. (k+1)·n` of `a` for each k (`a` itself when it has `n` lanes).
    pub(super) fn pieces(&self, a: V<'ctx>, n: u32) -> R<Vec<V<'ctx>>> {
        let size = a.get_type().get_size();
        if n == size {
            return Ok(vec![a]);
        }
        let poison = a.get_type().get_poison();
        (0..size / n)
            .map(|k| {
                let mask = self.lane_indices(k * n..(k + 1) * n);
                Ok(self.b.build_shuffle_vector(a, poison, mask, "")?)
            })
            .collect()
    }

    /// The pieces of [`Self::pieces`] put back together, in order.
    pub(super) fn joined(&self, mut parts: Vec<V<'ctx>>) -> R<V<'ctx>> {
        while parts.len() > 1 {
            let m = parts[0].get_type().get_size();
            let mut joined = Vec::new();
            for pair in parts.chunks(2) {
                let mask = self.lane_indices(0..2 * m);
                joined.push(self.b.build_shuffle_vector(pair[0], pair[1], mask, "")?);
            }
            parts = joined;
        }
        parts
            .pop()
            .ok_or_else(|| Invariant::NoValue("a join of no parts".into()).into())
    }

    fn lane_indices(&self, r: std::ops::Range<u32>) -> V<'ctx> {
        let i32t = self.cx.i32_type();
        VectorType::const_vector(
            &r.map(|l| i32t.const_int(l as u64, false))
                .collect::<Vec<_>>(),
        )
    }

    /// `table[idx[l]]` per lane (`<lanes x double>`) by AVX-512's two-register permute
    /// (`vpermi2pd`: 16 doubles, by an index's low 4 bits) of the table as constant
    /// registers, a select between two of them for a 32-entry table, eight lanes at a time:
    /// a few register operations where a gather loads each lane. `None` where that does not
    /// apply (no AVX-512, a table past 32 entries, or a step below 16 lanes: the function's
    /// `min-legal-vector-width` is then below 512 bits, and on a CPU tuned to prefer 256-bit
    /// vectors, as Intel's are, LLVM cannot split the 512-bit intrinsic and aborts).
    pub(super) fn permuted_lookup(&self, table: &[f64], idx: V<'ctx>) -> R<Option<V<'ctx>>> {
        if self.width != 16 || self.lanes < 16 || !self.lanes.is_multiple_of(8) || table.len() > 32
        {
            return Ok(None);
        }
        let (f64t, i64t) = (self.cx.f64_type(), self.cx.i64_type());
        let quarter = |q: usize| {
            VectorType::const_vector(
                &(0..8)
                    .map(|k| f64t.const_float(table.get(8 * q + k).copied().unwrap_or(0.0)))
                    .collect::<Vec<_>>(),
            )
        };
        let name = "llvm.x86.avx512.vpermi2var.pd.512";
        let mut parts = Vec::new();
        for piece in self.pieces(idx, 8)? {
            let i = self.b.build_int_z_extend(piece, i64t.vec_type(8), "")?;
            let mut halves = Vec::new();
            for h in 0..table.len().div_ceil(16) {
                let args = [quarter(2 * h).into(), i.into(), quarter(2 * h + 1).into()];
                let r = self
                    .intrinsic(name, &[], &args)?
                    .ok_or_else(|| Invariant::NoValue(name.to_string()))?;
                halves.push(vector(r)?);
            }
            parts.push(match halves[..] {
                [one] => one,
                [low, high] => {
                    // Entries 16..32 where the index's bit 4 is set.
                    let v8 = i64t.vec_type(8);
                    let bit4 = VectorType::const_vector(&[i64t.const_int(16, false); 8]);
                    let b4 = self.b.build_and(i, bit4, "")?;
                    let high_half = self.b.build_int_compare(
                        inkwell::IntPredicate::NE,
                        b4,
                        v8.const_zero(),
                        "",
                    )?;
                    self.select_(high_half, high, low)?
                }
                _ => return Ok(None),
            });
        }
        self.joined(parts).map(Some)
    }

    /// Calls intrinsic `name`, overloaded on `overload`.
    pub(super) fn intrinsic(
        &self,
        name: &str,
        overload: &[BasicTypeEnum<'ctx>],
        args: &[BasicMetadataValueEnum<'ctx>],
    ) -> R<Option<BasicValueEnum<'ctx>>> {
        let f = Intrinsic::find(name)
            .and_then(|i| i.get_declaration(self.m, overload))
            .ok_or_else(|| Invariant::NoIntrinsic(name.to_string()))?;
        Ok(match self.b.build_call(f, args, "")?.try_as_basic_value() {
            ValueKind::Basic(v) => Some(v),
            _ => None,
        })
    }

    /// A vector intrinsic overloaded on its first operand's type (`llvm.floor`, `llvm.smin`,
    /// ...); `flag` adds the i1 operand of `llvm.ctlz`, `llvm.cttz` and `llvm.abs`.
    pub(super) fn intr(&self, name: &str, args: &[V<'ctx>], flag: Option<bool>) -> R<V<'ctx>> {
        let mut a: Vec<BasicMetadataValueEnum> = args.iter().map(|&v| v.into()).collect();
        if let Some(f) = flag {
            a.push(self.cx.bool_type().const_int(f as u64, false).into());
        }
        let r = self.intrinsic(name, &[args[0].get_type().into()], &a)?;
        vector(r.ok_or_else(|| Invariant::NoValue(name.to_string()))?)
    }

    /// Per-lane addresses `base + 4·words[l]` (`base` a pointer or a vector of pointers).
    pub(super) fn lane_ptrs(&self, base: BasicValueEnum<'ctx>, words: V<'ctx>) -> V<'ctx> {
        self.elem_ptrs(self.cx.i32_type().into(), base, words)
    }

    /// `a + b`, `a − b`, `a · b` or `a / b` on float vectors of any width.
    pub(super) fn arith(&self, op: FBin, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        let b = &self.b;
        Ok(match op {
            FBin::Add => b.build_float_add(a, c, "")?,
            FBin::Sub => b.build_float_sub(a, c, "")?,
            FBin::Mul => b.build_float_mul(a, c, "")?,
            FBin::Div => b.build_float_div(a, c, "")?,
        })
    }

    /// `<lanes x double>`.
    pub(super) fn vd(&self) -> VectorType<'ctx> {
        self.cx.f64_type().vec_type(self.lanes)
    }

    /// The addresses of elements `idx` (an i32 vector) of an array of `elem` at `base`.
    pub(super) fn elem_ptrs(
        &self,
        elem: BasicTypeEnum<'ctx>,
        base: BasicValueEnum<'ctx>,
        idx: V<'ctx>,
    ) -> V<'ctx> {
        use inkwell::llvm_sys::core::LLVMBuildGEP2;
        let mut idx = [idx.as_value_ref()];
        // SAFETY: a GEP with one vector index on values of this context; the result is a
        // vector of pointers, which inkwell wraps as a vector value.
        unsafe {
            let r = LLVMBuildGEP2(
                self.b.as_mut_ptr(),
                inkwell::types::AsTypeRef::as_type_ref(&elem),
                base.as_value_ref(),
                idx.as_mut_ptr(),
                1,
                c"".as_ptr(),
            );
            VectorValue::new(r)
        }
    }

    /// The address `bytes` after `base`.
    pub(super) fn byte_ptr(&self, base: BasicValueEnum<'ctx>, bytes: i32) -> R<PointerValue<'ctx>> {
        let i8t = self.cx.i8_type();
        // SAFETY: a byte offset inside the structure `base` points to.
        Ok(unsafe {
            self.b.build_gep(
                i8t,
                base.into_pointer_value(),
                &[self.i64c(bytes as i64)],
                "",
            )?
        })
    }

    /// `llvm.masked.gather` of every lane: lane `l` reads the word `words[l]` after `base`.
    pub(super) fn masked_gather(
        &mut self,
        kind: Kind,
        base: BasicValueEnum<'ctx>,
        words: V<'ctx>,
    ) -> R<V<'ctx>> {
        let ptrs = self.lane_ptrs(base, words);
        let ty = if kind == Kind::F32 { self.vf } else { self.vi };
        let all = self.splat_int(self.cx.bool_type(), 1);
        let v = self.intrinsic(
            "llvm.masked.gather",
            &[ty.into(), ptrs.get_type().into()],
            &[
                ptrs.into(),
                self.i32c(4).into(),
                all.into(),
                ty.get_poison().into(),
            ],
        )?;
        let v = vector(v.ok_or_else(|| Invariant::NoValue("a gather".into()))?)?;
        self.cast(v, kind)
    }

    /// Sets the alignment of a load or store to 4 (buffers are only word-aligned).
    pub(super) fn align4(&self, i: Option<InstructionValue<'ctx>>) -> R<()> {
        i.ok_or(Invariant::NotAnInstruction)?
            .set_alignment(4)
            .map_err(|e| JitError::Backend {
                backend: "LLVM",
                stage: "the builder",
                message: e.to_string(),
            })
    }

    /// [`SimdBuilder::gather4`] where gathers are not one instruction (LLVM would split each
    /// of the four into a load and an insertion a lane): each lane's texel in one 16-byte
    /// load, then a 4 × 4 transpose. Eight lanes at a time pair lanes `l` and `l + 4` in the
    /// halves of a 256-bit vector, so that the transpose is four in-half unpacks a component
    /// pair (AVX2's `vunpcklps`/`vunpcklpd` and their high forms).
    pub(super) fn texels_transposed(
        &mut self,
        base: BasicValueEnum<'ctx>,
        words: V<'ctx>,
    ) -> R<[V<'ctx>; 4]> {
        let n = self.lanes as usize;
        let v4 = self.cx.f32_type().vec_type(4);
        let mut texels = Vec::with_capacity(n);
        for w in self.lane_words(words)? {
            let a = self.word_addr(base, w)?;
            let t = self.b.build_load(v4, a.into_pointer_value(), "")?;
            self.align4(t.as_instruction_value())?;
            texels.push(t.into_vector_value());
        }
        let shuffle = |s: &mut Self, a: V<'ctx>, b: V<'ctx>, pick: &[u32]| -> R<V<'ctx>> {
            let mask: Vec<IntValue> = pick.iter().map(|&i| s.i32c(i)).collect();
            Ok(s.b.build_shuffle_vector(a, b, VectorType::const_vector(&mask), "")?)
        };
        // One group of `g` lanes: its four components.
        let group = |s: &mut Self, t: &[V<'ctx>]| -> R<[V<'ctx>; 4]> {
            let u: Vec<V<'ctx>> = if t.len() == 8 {
                (0..4)
                    .map(|k| shuffle(s, t[k], t[k + 4], &[0, 1, 2, 3, 4, 5, 6, 7]))
                    .collect::<R<_>>()?
            } else {
                t.to_vec()
            };
            // `lo`/`hi` interleave words 0, 1 (2, 3) of two texels in each 4-word half;
            // the components then take word pairs of `lo`/`hi` of the two texel pairs.
            let halves = t.len() / 4;
            let per_half = |p: [u32; 4], second: u32| -> Vec<u32> {
                (0..halves as u32)
                    .flat_map(|h| p.map(|i| i + 4 * h + if i >= 4 { second - 4 } else { 0 }))
                    .collect()
            };
            let w = 4 * halves as u32;
            let (lo, hi) = (per_half([0, 4, 1, 5], w), per_half([2, 6, 3, 7], w));
            let (even, odd) = (per_half([0, 1, 4, 5], w), per_half([2, 3, 6, 7], w));
            let lo01 = shuffle(s, u[0], u[1], &lo)?;
            let hi01 = shuffle(s, u[0], u[1], &hi)?;
            let lo23 = shuffle(s, u[2], u[3], &lo)?;
            let hi23 = shuffle(s, u[2], u[3], &hi)?;
            Ok([
                shuffle(s, lo01, lo23, &even)?,
                shuffle(s, lo01, lo23, &odd)?,
                shuffle(s, hi01, hi23, &even)?,
                shuffle(s, hi01, hi23, &odd)?,
            ])
        };
        let g = n.min(8);
        let mut parts: Vec<[V<'ctx>; 4]> =
            texels.chunks(g).map(|t| group(self, t)).collect::<R<_>>()?;
        // Groups joined in lane order, two at a time.
        while parts.len() > 1 {
            let mut joined = Vec::with_capacity(parts.len() / 2);
            for pair in parts.chunks(2) {
                let len = 2 * pair[0][0].get_type().get_size();
                let all: Vec<u32> = (0..len).collect();
                let mut c = pair[0];
                for (k, x) in c.iter_mut().enumerate() {
                    *x = shuffle(self, pair[0][k], pair[1][k], &all)?;
                }
                joined.push(c);
            }
            parts = joined;
        }
        Ok(parts[0])
    }
}
