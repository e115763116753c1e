//! The builder's own helpers, which its [`SimdBuilder`] operations share: vector types,
//! constants, reinterpretation, comparisons and selects, conversions, intrinsics, per-lane
//! addresses and gathers.

use super::*;

impl<'a, 'ctx> LlvmBuilder<'a, 'ctx> {
    /// A builder at the end of `func`'s entry block, `args` its parameter, for `lanes` lanes
    /// per step; `fma` when the CPU has fused multiply-add, `width` its widest vector of
    /// 32-bit lanes, `hardware_gather` when LLVM compiles gathers to its gather instruction.
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
        let args = func
            .get_nth_param(0)
            .ok_or_else(|| JitError::Codegen("no parameter".into()))?
            .into_pointer_value();
        let bits = std::num::NonZeroU32::new(lanes)
            .ok_or("no lanes")
            .and_then(|n| cx.custom_width_int_type(n))
            .map_err(|e| JitError::Codegen(e.into()))?;
        Ok(LlvmBuilder {
            cx,
            m,
            b,
            func,
            slots,
            args,
            callees,
            fma,
            width,
            hardware_gather,
            lanes,
            vf: cx.f32_type().vec_type(lanes),
            vi: cx.i32_type().vec_type(lanes),
            vb: cx.bool_type().vec_type(lanes),
            vi64: cx.i64_type().vec_type(lanes),
            bits,
            tables: Vec::new(),
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
    /// one register) made lookups slower than their gathers lane by lane
    /// (gltr_tangentmotionblur, AVX2 code at 16 lanes: 33.6 → 36.6 or 34.4 ms).
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
                .ok_or_else(|| JitError::Codegen(format!("{name} returns nothing")))?;
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
            .ok_or_else(|| JitError::Codegen("nothing to join".into()))
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
    /// apply (no AVX-512, a step not a multiple of 8 lanes, a table past 32 entries).
    pub(super) fn permuted_lookup(&self, table: &[f64], idx: V<'ctx>) -> R<Option<V<'ctx>>> {
        if self.width != 16 || !self.lanes.is_multiple_of(8) || table.len() > 32 {
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
                    .ok_or_else(|| JitError::Codegen(format!("{name} returns nothing")))?;
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
            .ok_or_else(|| JitError::Codegen(format!("no intrinsic {name}")))?;
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
        vector(r.ok_or_else(|| JitError::Codegen(format!("{name} returns nothing")))?)
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
        let v = vector(v.ok_or_else(|| JitError::Codegen("gather: no value".into()))?)?;
        self.cast(v, kind)
    }

    /// Sets the alignment of a load or store to 4 (buffers are only word-aligned).
    pub(super) fn align4(&self, i: Option<InstructionValue<'ctx>>) -> R<()> {
        i.ok_or_else(|| JitError::Codegen("not an instruction".into()))?
            .set_alignment(4)
            .map_err(|e| JitError::Codegen(e.to_string()))
    }
}
