//! Double-precision lanes for exact math on Cranelift ([`SimdBuilder::D`]): each 128-bit
//! register of four f32/i32 lanes pairs with two F64X2 registers, lanes 0–1 and 2–3. With them
//! the shared `simd/libm.rs` computes glibc's `exp2f`, `logf`, `sinf`, `cosf` and `powf` in the
//! generated code, as on LLVM, instead of a call to the host per lane.
//!
//! Each operation is one SSE2/SSE4.1 instruction per register or a short sequence Cranelift
//! lowers to one: a widening is `cvtps2pd`/`cvtdq2pd` of the low pair (the high pair moved
//! down first), a narrowing `cvtpd2ps`/`cvttpd2dq` of each half and a shuffle that joins them.
//! SSE has no gather: a table lookup loads a lane at a time from the table where this process
//! holds it, which only the exact functions' own code does (`helpers.rs`: compiled per process,
//! never stored).
//!
//! [`SimdBuilder::D`]: crate::back::simd::SimdBuilder::D

use super::types::{ClBuilder, Dx, MAX_K, Vx};
use crate::back::abi::Invariant;

use crate::back::simd::{FBin, FUn, QBin, R, Shift, SimdBuilder};
use crate::ir::{FCmp, ICmp};
use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{self as cl, InstBuilder, MemFlagsData, Value, types};

impl ClBuilder<'_> {
    fn dx(&self, f: impl FnMut(usize) -> Value) -> Dx {
        let mut out = [Value::from_u32(0); 2 * MAX_K];
        for (j, v) in (0..2 * self.k).map(f).enumerate() {
            out[j] = v;
        }
        Dx(out)
    }

    /// A 16-byte shuffle of `a` and `b` (bytes 0..16 of `a`, 16..32 of `b`).
    fn shuffle_bytes(&mut self, a: Value, b: Value, bytes: [u8; 16], ty: cl::Type) -> Value {
        let (a, b) = (self.bitcast(a, types::I8X16), self.bitcast(b, types::I8X16));
        let imm = self.b.func.dfg.immediates.push(bytes.to_vec().into());
        let r = self.b.ins().shuffle(a, b, imm);
        self.bitcast(r, ty)
    }

    /// Lanes 2 and 3 of a 4-lane register moved to 0 and 1 (`pshufd`/`movhlps`).
    fn high_pair(&mut self, v: Value) -> Value {
        let ty = self.b.func.dfg.value_type(v);
        let bytes = std::array::from_fn(|i| 8 + (i % 8) as u8);
        self.shuffle_bytes(v, v, bytes, ty)
    }

    /// The low 64 bits of `lo` and of `hi` as one register (`movlhps`/`punpcklqdq`).
    fn join_low_pairs(&mut self, lo: Value, hi: Value, ty: cl::Type) -> Value {
        let bytes = std::array::from_fn(|i| if i < 8 { i as u8 } else { 8 + i as u8 });
        self.shuffle_bytes(lo, hi, bytes, ty)
    }

    pub(super) fn d_from_float_(&mut self, a: Vx) -> Dx {
        let mut out = Vec::with_capacity(2 * self.k);
        for j in 0..self.k {
            let x = self.bitcast(a.0[j], types::F32X4);
            out.push(self.b.ins().fvpromote_low(x));
            let h = self.high_pair(x);
            out.push(self.b.ins().fvpromote_low(h));
        }
        self.dx(|i| out[i])
    }

    pub(super) fn d_from_int_(&mut self, a: Vx) -> Dx {
        // `fcvt_from_sint` of a low widening is Cranelift's `cvtdq2pd` pattern.
        let mut out = Vec::with_capacity(2 * self.k);
        for j in 0..self.k {
            let x = self.bitcast(a.0[j], types::I32X4);
            let h = self.high_pair(x);
            for half in [x, h] {
                let w = self.b.ins().swiden_low(half);
                out.push(self.b.ins().fcvt_from_sint(types::F64X2, w));
            }
        }
        self.dx(|i| out[i])
    }

    pub(super) fn d_to_float_(&mut self, a: Dx) -> Vx {
        let mut out = Vec::with_capacity(self.k);
        for j in 0..self.k {
            let lo = self.b.ins().fvdemote(a.0[2 * j]);
            let hi = self.b.ins().fvdemote(a.0[2 * j + 1]);
            out.push(self.join_low_pairs(lo, hi, types::F32X4));
        }
        self.vx(|j| out[j])
    }

    pub(super) fn d_to_int_(&mut self, a: Dx) -> Vx {
        // `snarrow` of a saturating conversion and zeros is Cranelift's `cvttpd2dq` pattern.
        let zero = self.vconst(types::I64X2, [0; 4]);
        let mut out = Vec::with_capacity(self.k);
        for j in 0..self.k {
            let mut halves = [zero; 2];
            for (h, half) in halves.iter_mut().enumerate() {
                let i = self.b.ins().fcvt_to_sint_sat(types::I64X2, a.0[2 * j + h]);
                *half = self.b.ins().snarrow(i, zero);
            }
            out.push(self.join_low_pairs(halves[0], halves[1], types::I32X4));
        }
        self.vx(|j| out[j])
    }

    pub(super) fn d_const_(&mut self, x: f64) -> Dx {
        let b = x.to_bits();
        let (lo, hi) = (b as u32, (b >> 32) as u32);
        let v = self.vconst(types::F64X2, [lo, hi, lo, hi]);
        self.dx(|_| v)
    }

    pub(super) fn d_bin_(&mut self, op: FBin, a: Dx, c: Dx) -> Dx {
        let mut out = a;
        for i in 0..2 * self.k {
            let (x, y) = (a.0[i], c.0[i]);
            let ins = self.b.ins();
            out.0[i] = match op {
                FBin::Add => ins.fadd(x, y),
                FBin::Sub => ins.fsub(x, y),
                FBin::Mul => ins.fmul(x, y),
                FBin::Div => ins.fdiv(x, y),
            };
        }
        out
    }

    pub(super) fn d_fma_(&mut self, a: Dx, b: Dx, c: Dx) -> Dx {
        let mut out = a;
        for i in 0..2 * self.k {
            out.0[i] = self.b.ins().fma(a.0[i], b.0[i], c.0[i]);
        }
        out
    }

    pub(super) fn d_round_even_(&mut self, a: Dx) -> Dx {
        let mut out = a;
        for i in 0..2 * self.k {
            out.0[i] = self.b.ins().nearest(a.0[i]);
        }
        out
    }

    pub(super) fn d_lt_(&mut self, a: Dx, c: Dx) -> Vx {
        // Each 64-bit mask's low word, lanes 0 and 2 of each half (`shufps`).
        let mut out = Vec::with_capacity(self.k);
        for j in 0..self.k {
            let m: [Value; 2] = std::array::from_fn(|h| {
                let i = 2 * j + h;
                self.b.ins().fcmp(FloatCC::LessThan, a.0[i], c.0[i])
            });
            let bytes = std::array::from_fn(|i| {
                let (word, byte) = (i / 4, (i % 4) as u8);
                [0, 8, 16, 24][word] + byte
            });
            out.push(self.shuffle_bytes(m[0], m[1], bytes, types::I32X4));
        }
        self.vx(|j| out[j])
    }

    /// `v`'s I32 lanes sign-extended to I64X2 registers, paired with [`Dx`]'s.
    fn widened(&mut self, v: Vx) -> Vec<Value> {
        let mut out = Vec::with_capacity(2 * self.k);
        for j in 0..self.k {
            let w = self.bitcast(v.0[j], types::I32X4);
            out.push(self.b.ins().swiden_low(w));
            out.push(self.b.ins().swiden_high(w));
        }
        out
    }

    pub(super) fn d_select_(&mut self, m: Vx, x: Dx, y: Dx) -> Dx {
        let mut out = x;
        for (i, mask) in self.widened(m).into_iter().enumerate() {
            let mask = self.bitcast(mask, types::F64X2);
            out.0[i] = self.b.ins().bitselect(mask, x.0[i], y.0[i]);
        }
        out
    }

    pub(super) fn d_scale_(&mut self, a: Dx, e: Vx) -> Dx {
        let mut out = a;
        for (i, e) in self.widened(e).into_iter().enumerate() {
            let e = self.b.ins().ishl_imm_u(e, 52);
            let bits = self.bitcast(a.0[i], types::I64X2);
            let bits = self.b.ins().iadd(bits, e);
            out.0[i] = self.bitcast(bits, types::F64X2);
        }
        out
    }

    /// The address of `table` in this process, made once before the entry block's jump.
    /// Only the exact functions' own code (`helpers.rs`) looks tables up: it is never stored,
    /// so it may hold an address of this process. A shader's code calls those functions and
    /// never reads a table; one that did would need the address as a relocation.
    fn table_addr(&mut self, table: &'static [f64]) -> R<Value> {
        if !self.in_helper {
            return Err(Invariant::TableLookup.into());
        }
        let key = table.as_ptr() as usize;
        if let Some(&a) = self.tables.get(&key) {
            return Ok(a);
        }
        let at = table.as_ptr() as i64;
        let v = match self.entry_jump {
            Some(j) => FuncCursor::new(self.b.func)
                .at_inst(j)
                .ins()
                .iconst(types::I64, at),
            None => self.b.ins().iconst(types::I64, at),
        };
        self.tables.insert(key, v);
        Ok(v)
    }

    pub(super) fn d_lookup_(&mut self, table: &'static [f64], idx: Vx) -> R<Dx> {
        let base = self.table_addr(table)?;
        let words = self.lane_words(idx)?;
        let flags = MemFlagsData::new().with_notrap();
        let mut out = Vec::with_capacity(2 * self.k);
        for pair in words.chunks(2) {
            let x: [Value; 2] = std::array::from_fn(|l| {
                let off = self.b.ins().ishl_imm_u(pair[l], 3);
                let a = self.b.ins().iadd(base, off);
                self.b.ins().load(types::F64, flags, a, 0)
            });
            let v = self.b.ins().scalar_to_vector(types::F64X2, x[0]);
            out.push(self.b.ins().insertlane(v, x[1], 1));
        }
        Ok(self.dx(|i| out[i]))
    }

    // ------------------------------------------------------------ the IR's 64-bit values

    fn each_d(&mut self, a: Dx, mut f: impl FnMut(&mut Self, Value) -> Value) -> Dx {
        let mut out = a;
        for i in 0..2 * self.k {
            out.0[i] = f(self, a.0[i]);
        }
        out
    }

    fn each_d2(&mut self, a: Dx, c: Dx, mut f: impl FnMut(&mut Self, Value, Value) -> Value) -> Dx {
        let mut out = a;
        for i in 0..2 * self.k {
            out.0[i] = f(self, a.0[i], c.0[i]);
        }
        out
    }

    /// Each 64-bit lane of `a` and `c` by a scalar operation (what SSE has no instruction for).
    fn each_lane2(
        &mut self,
        a: Dx,
        c: Dx,
        ty: cl::Type,
        mut f: impl FnMut(&mut Self, Value, Value) -> Value,
    ) -> Dx {
        let lane_ty = ty.lane_type();
        self.each_d2(a, c, |s, x, y| {
            let (x, y) = (s.bitcast(x, ty), s.bitcast(y, ty));
            let r: [Value; 2] = std::array::from_fn(|l| {
                let p = s.b.ins().extractlane(x, l as u8);
                let q = s.b.ins().extractlane(y, l as u8);
                f(s, p, q)
            });
            let _ = lane_ty;
            let v = s.b.ins().scalar_to_vector(ty, r[0]);
            let v = s.b.ins().insertlane(v, r[1], 1);
            s.bitcast(v, types::F64X2)
        })
    }

    /// Two 64-bit masks per 4-lane register narrowed to one I32X4 mask (each low word).
    fn narrow_masks(&mut self, m: &[Value]) -> Vx {
        let mut out = Vec::with_capacity(self.k);
        for j in 0..self.k {
            let bytes = std::array::from_fn(|i| {
                let (word, byte) = (i / 4, (i % 4) as u8);
                [0, 8, 16, 24][word] + byte
            });
            out.push(self.shuffle_bytes(m[2 * j], m[2 * j + 1], bytes, types::I32X4));
        }
        self.vx(|j| out[j])
    }

    pub(super) fn q_pack_(&mut self, lo: Vx, hi: Vx) -> Dx {
        let mut out = Vec::with_capacity(2 * self.k);
        for j in 0..self.k {
            let (l, h) = (
                self.bitcast(lo.0[j], types::I32X4),
                self.bitcast(hi.0[j], types::I32X4),
            );
            for pair in [0u8, 8] {
                // Words lo[p], hi[p], lo[p + 1], hi[p + 1] (`punpckldq`/`punpckhdq`).
                let bytes = std::array::from_fn(|i| {
                    let (word, byte) = (i / 4, (i % 4) as u8);
                    pair + [0, 16, 4, 20][word] + byte
                });
                out.push(self.shuffle_bytes(l, h, bytes, types::F64X2));
            }
        }
        self.dx(|i| out[i])
    }

    pub(super) fn q_word_(&mut self, a: Dx, hi: bool) -> Vx {
        let off = if hi { 4 } else { 0 };
        let mut out = Vec::with_capacity(self.k);
        for j in 0..self.k {
            let bytes = std::array::from_fn(|i| {
                let (word, byte) = (i / 4, (i % 4) as u8);
                [0, 8, 16, 24][word] + off + byte
            });
            out.push(self.shuffle_bytes(a.0[2 * j], a.0[2 * j + 1], bytes, types::I32X4));
        }
        self.vx(|j| out[j])
    }

    pub(super) fn q_const_(&mut self, bits: u64) -> Dx {
        let (lo, hi) = (bits as u32, (bits >> 32) as u32);
        let v = self.vconst(types::F64X2, [lo, hi, lo, hi]);
        self.dx(|_| v)
    }

    pub(super) fn d_un_(&mut self, op: FUn, a: Dx) -> Dx {
        self.each_d(a, |s, x| {
            let ins = s.b.ins();
            match op {
                FUn::Neg => ins.fneg(x),
                FUn::Abs => ins.fabs(x),
                FUn::Floor => ins.floor(x),
                FUn::Ceil => ins.ceil(x),
                FUn::Trunc => ins.trunc(x),
                FUn::Round => ins.nearest(x),
                FUn::Sqrt => ins.sqrt(x),
            }
        })
    }

    pub(super) fn d_cmp_(&mut self, cc: FCmp, a: Dx, c: Dx) -> Vx {
        let cc = match cc {
            FCmp::Lt => FloatCC::LessThan,
            FCmp::Le => FloatCC::LessThanOrEqual,
            FCmp::Gt => FloatCC::GreaterThan,
            FCmp::Ge => FloatCC::GreaterThanOrEqual,
            FCmp::Eq => FloatCC::Equal,
            FCmp::Ne => FloatCC::NotEqual,
        };
        let m: Vec<Value> = (0..2 * self.k)
            .map(|i| self.b.ins().fcmp(cc, a.0[i], c.0[i]))
            .collect();
        self.narrow_masks(&m)
    }

    pub(super) fn q_bin_(&mut self, op: QBin, a: Dx, c: Dx) -> Dx {
        let scalar = |s: &mut Self, x: Value, y: Value| {
            let ins = s.b.ins();
            match op {
                QBin::DivS => ins.sdiv(x, y),
                QBin::DivU => ins.udiv(x, y),
                QBin::RemS => ins.srem(x, y),
                _ => ins.urem(x, y),
            }
        };
        if matches!(op, QBin::DivS | QBin::DivU | QBin::RemS | QBin::RemU) {
            // SSE has no division: lane by lane (the divisors are safe).
            return self.each_lane2(a, c, types::I64X2, scalar);
        }
        self.each_d2(a, c, |s, x, y| {
            let (x, y) = (s.bitcast(x, types::I64X2), s.bitcast(y, types::I64X2));
            let ins = s.b.ins();
            let r = match op {
                QBin::Add => ins.iadd(x, y),
                QBin::Sub => ins.isub(x, y),
                QBin::Mul => ins.imul(x, y),
                QBin::And => ins.band(x, y),
                QBin::Or => ins.bor(x, y),
                _ => ins.bxor(x, y),
            };
            s.bitcast(r, types::F64X2)
        })
    }

    pub(super) fn q_shift_(&mut self, op: Shift, a: Dx, n: Dx) -> Dx {
        // Every lane by its own count: lane by lane.
        self.each_lane2(a, n, types::I64X2, |s, x, k| {
            let ins = s.b.ins();
            match op {
                Shift::Shl => ins.ishl(x, k),
                Shift::ShrS => ins.sshr(x, k),
                Shift::ShrU => ins.ushr(x, k),
            }
        })
    }

    pub(super) fn q_cmp_(&mut self, cc: ICmp, a: Dx, c: Dx) -> Vx {
        // Equality is `pcmpeqq`, signed order `pcmpgtq`; unsigned order is signed order of the
        // values with their top bits flipped.
        let flip = self.vconst(types::I64X2, [0, 0x8000_0000, 0, 0x8000_0000]);
        let m: Vec<Value> = (0..2 * self.k)
            .map(|i| {
                let (mut x, mut y) = (
                    self.bitcast(a.0[i], types::I64X2),
                    self.bitcast(c.0[i], types::I64X2),
                );
                if matches!(cc, ICmp::ULt | ICmp::UGe) {
                    x = self.b.ins().bxor(x, flip);
                    y = self.b.ins().bxor(y, flip);
                }
                let ins = self.b.ins();
                match cc {
                    ICmp::Eq => ins.icmp(IntCC::Equal, x, y),
                    ICmp::Ne => {
                        let e = ins.icmp(IntCC::Equal, x, y);
                        self.b.ins().bnot(e)
                    }
                    ICmp::SLt | ICmp::ULt => ins.icmp(IntCC::SignedGreaterThan, y, x),
                    ICmp::SGe | ICmp::UGe => {
                        let lt = ins.icmp(IntCC::SignedGreaterThan, y, x);
                        self.b.ins().bnot(lt)
                    }
                }
            })
            .collect();
        self.narrow_masks(&m)
    }

    pub(super) fn q_from_int_(&mut self, a: Vx, signed: bool) -> Dx {
        let mut out = Vec::with_capacity(2 * self.k);
        for j in 0..self.k {
            let w = self.bitcast(a.0[j], types::I32X4);
            let (lo, hi) = if signed {
                (self.b.ins().swiden_low(w), self.b.ins().swiden_high(w))
            } else {
                (self.b.ins().uwiden_low(w), self.b.ins().uwiden_high(w))
            };
            out.push(self.bitcast(lo, types::F64X2));
            out.push(self.bitcast(hi, types::F64X2));
        }
        self.dx(|i| out[i])
    }

    pub(super) fn d_from_uint_(&mut self, a: Vx) -> Dx {
        // As signed, then 2³² more where the top bit was set (exact).
        let t = self.d_from_int_(a);
        let zero = self.d_const_(0.0);
        let neg = self.d_cmp_(FCmp::Lt, t, zero);
        let two32 = self.d_const_(4_294_967_296.0);
        let add = self.d_select_(neg, two32, zero);
        self.d_bin_(FBin::Add, t, add)
    }

    pub(super) fn d_to_q_(&mut self, a: Dx) -> Dx {
        self.each_lane2(a, a, types::F64X2, |s, x, _| {
            let q = s.b.ins().fcvt_to_sint_sat(types::I64, x);
            s.b.ins().bitcast(types::F64, MemFlagsData::new(), q)
        })
    }

    pub(super) fn q_to_d_(&mut self, a: Dx, signed: bool) -> Dx {
        self.each_lane2(a, a, types::I64X2, |s, x, _| {
            let d = if signed {
                s.b.ins().fcvt_from_sint(types::F64, x)
            } else {
                s.b.ins().fcvt_from_uint(types::F64, x)
            };
            s.b.ins().bitcast(types::I64, MemFlagsData::new(), d)
        })
    }

    pub(super) fn q_to_float_(&mut self, a: Dx, signed: bool) -> Vx {
        let mut out = Vec::with_capacity(self.k);
        for j in 0..self.k {
            let mut lanes = Vec::with_capacity(4);
            for h in 0..2 {
                let x = self.bitcast(a.0[2 * j + h], types::I64X2);
                for l in 0..2u8 {
                    let q = self.b.ins().extractlane(x, l);
                    lanes.push(if signed {
                        self.b.ins().fcvt_from_sint(types::F32, q)
                    } else {
                        self.b.ins().fcvt_from_uint(types::F32, q)
                    });
                }
            }
            let mut v = self.b.ins().scalar_to_vector(types::F32X4, lanes[0]);
            for (l, &x) in lanes.iter().enumerate().skip(1) {
                v = self.b.ins().insertlane(v, x, l as u8);
            }
            out.push(v);
        }
        self.vx(|j| out[j])
    }
}
