//! The IR's 64-bit values in 64-bit lanes (`SimdBuilder::has_wide`): a value is a
//! `<lanes x double>` (a 64-bit integer by its bits, reinterpreted where an integer operation
//! reads it), which LLVM splits into the host's registers; words are interleaved into lanes
//! and taken out of them with shuffles.

use super::*;

impl<'ctx> LlvmBuilder<'_, 'ctx> {
    /// `a`'s lanes as `<lanes x i64>`.
    fn q(&self, a: V<'ctx>) -> R<V<'ctx>> {
        Ok(self.b.build_bit_cast(a, self.vi64, "")?.into_vector_value())
    }

    /// `a` (64-bit lanes of any type) as `<lanes x double>`.
    fn d(&self, a: V<'ctx>) -> R<V<'ctx>> {
        Ok(self.b.build_bit_cast(a, self.vd(), "")?.into_vector_value())
    }

    fn shuffle(&self, a: V<'ctx>, b: V<'ctx>, idx: impl Iterator<Item = u32>) -> R<V<'ctx>> {
        let mask: Vec<IntValue> = idx.map(|i| self.i32c(i)).collect();
        Ok(self
            .b
            .build_shuffle_vector(a, b, VectorType::const_vector(&mask), "")?)
    }

    pub(super) fn q_pack_(&mut self, lo: V<'ctx>, hi: V<'ctx>) -> R<V<'ctx>> {
        let (lo, hi) = (self.ints(lo)?, self.ints(hi)?);
        let n = self.lanes;
        let both = self.shuffle(
            lo,
            hi,
            (0..2 * n).map(|k| if k % 2 == 0 { k / 2 } else { n + k / 2 }),
        )?;
        self.d(both)
    }

    pub(super) fn q_word_(&mut self, a: V<'ctx>, hi: bool) -> R<V<'ctx>> {
        let words = self.cx.i32_type().vec_type(2 * self.lanes);
        let w = self.b.build_bit_cast(a, words, "")?.into_vector_value();
        self.shuffle(
            w,
            words.get_poison(),
            (0..self.lanes).map(|l| 2 * l + hi as u32),
        )
    }

    pub(super) fn q_const_(&self, bits: u64) -> R<V<'ctx>> {
        self.d(self.splat_int(self.cx.i64_type(), bits))
    }

    pub(super) fn d_un_(&mut self, op: FUn, a: V<'ctx>) -> R<V<'ctx>> {
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

    pub(super) fn d_cmp_(&self, cc: FCmp, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        let p = match cc {
            FCmp::Lt => FP::OLT,
            FCmp::Le => FP::OLE,
            FCmp::Gt => FP::OGT,
            FCmp::Ge => FP::OGE,
            FCmp::Eq => FP::OEQ,
            FCmp::Ne => FP::UNE,
        };
        self.fcmp_(p, a, c)
    }

    pub(super) fn q_bin_(&self, op: QBin, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        let (a, c) = (self.q(a)?, self.q(c)?);
        let b = &self.b;
        let r = match op {
            QBin::Add => b.build_int_add(a, c, "")?,
            QBin::Sub => b.build_int_sub(a, c, "")?,
            QBin::Mul => b.build_int_mul(a, c, "")?,
            QBin::And => b.build_and(a, c, "")?,
            QBin::Or => b.build_or(a, c, "")?,
            QBin::Xor => b.build_xor(a, c, "")?,
            QBin::DivS => b.build_int_signed_div(a, c, "")?,
            QBin::DivU => b.build_int_unsigned_div(a, c, "")?,
            QBin::RemS => b.build_int_signed_rem(a, c, "")?,
            QBin::RemU => b.build_int_unsigned_rem(a, c, "")?,
        };
        self.d(r)
    }

    pub(super) fn q_shift_(&self, op: Shift, a: V<'ctx>, n: V<'ctx>) -> R<V<'ctx>> {
        let (a, n) = (self.q(a)?, self.q(n)?);
        let r = match op {
            Shift::Shl => self.b.build_left_shift(a, n, "")?,
            Shift::ShrS => self.b.build_right_shift(a, n, true, "")?,
            Shift::ShrU => self.b.build_right_shift(a, n, false, "")?,
        };
        self.d(r)
    }

    pub(super) fn q_cmp_(&self, cc: ICmp, a: V<'ctx>, c: V<'ctx>) -> R<V<'ctx>> {
        let p = match cc {
            ICmp::Eq => IP::EQ,
            ICmp::Ne => IP::NE,
            ICmp::SLt => IP::SLT,
            ICmp::SGe => IP::SGE,
            ICmp::ULt => IP::ULT,
            ICmp::UGe => IP::UGE,
        };
        let (a, c) = (self.q(a)?, self.q(c)?);
        self.icmp_(p, a, c)
    }

    pub(super) fn q_from_int_(&mut self, a: V<'ctx>, signed: bool) -> R<V<'ctx>> {
        let a = self.ints(a)?;
        let r = if signed {
            self.b.build_int_s_extend(a, self.vi64, "")?
        } else {
            self.b.build_int_z_extend(a, self.vi64, "")?
        };
        self.d(r)
    }

    pub(super) fn d_from_uint_(&mut self, a: V<'ctx>) -> R<V<'ctx>> {
        let a = self.ints(a)?;
        Ok(self.b.build_unsigned_int_to_float(a, self.vd(), "")?)
    }

    pub(super) fn d_to_q_(&self, a: V<'ctx>) -> R<V<'ctx>> {
        let r = self.b.build_float_to_signed_int(a, self.vi64, "")?;
        self.d(r)
    }

    pub(super) fn q_to_d_(&self, a: V<'ctx>, signed: bool) -> R<V<'ctx>> {
        let a = self.q(a)?;
        Ok(if signed {
            self.b.build_signed_int_to_float(a, self.vd(), "")?
        } else {
            self.b.build_unsigned_int_to_float(a, self.vd(), "")?
        })
    }

    pub(super) fn q_to_float_(&self, a: V<'ctx>, signed: bool) -> R<V<'ctx>> {
        let a = self.q(a)?;
        Ok(if signed {
            self.b.build_signed_int_to_float(a, self.vf, "")?
        } else {
            self.b.build_unsigned_int_to_float(a, self.vf, "")?
        })
    }
}
