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

use crate::back::simd::{FBin, R, SimdBuilder};
use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::ir::condcodes::FloatCC;
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
}
