//! [`SimdBuilder`] for Cranelift: a step of `4·k` lanes is `k` 128-bit registers (F32X4 for
//! floats, I32X4 for integers and lane masks, a set lane all ones).
//!
//! What is Cranelift's own: vector constants are made once, in the entry block, so that they
//! dominate every use and never sit inside a loop (Cranelift at `opt_level = none` would
//! rematerialize them per use); a blend whose mask is a comparison's result is one `blendvps`,
//! otherwise the mask is rebuilt from its sign bits first (`bitselect` on an arbitrary mask is
//! three instructions); negation is an xor with the sign mask (Cranelift's own `fneg` builds
//! the mask in two instructions), except that a negated operand of an FMA is handed over as
//! `fneg`, which Cranelift folds into `vfnmadd`/`vfmsub`; SSE has no vector instruction for
//! integer division or bit counts, so those are computed lane by lane inline
//! ([`ClBuilder::per_lane`]), not by a call to the host.

use super::types::{ClBuilder, Dx, MAX_K, Vx};
use crate::back::abi::Invariant;

use crate::back::simd::{
    AtomicOp, Callee, ExactFn, FBin, FUn, IBin, Kind, Optional, QBin, R, SBin, Scalar, Shift,
    SimdBuilder,
};
use crate::ir::{FCmp, ICmp};
use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    self as cl, ConstantData, Endianness, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind,
    Value, types,
};
use cranelift_frontend::Variable;

/// A variable: `k` registers of one type, or one I64.
#[derive(Clone, Copy)]
pub struct Var {
    /// A vector variable's registers; a variable of 64-bit lanes has twice as many.
    v: [Variable; 2 * MAX_K],
    ty: cl::Type,
}

/// Memory flags of every access: the addresses are valid, alignment is not assumed.
fn flags() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

fn ty_of(kind: Kind) -> cl::Type {
    match kind {
        Kind::F32 => types::F32X4,
        Kind::I32 | Kind::Mask => types::I32X4,
    }
}

impl<'f> ClBuilder<'f> {
    pub(super) fn vx(&self, f: impl FnMut(usize) -> Value) -> Vx {
        let mut out = [Value::from_u32(0); MAX_K];
        for (j, v) in (0..self.k).map(f).enumerate() {
            out[j] = v;
        }
        Vx(out)
    }

    /// `f` (a pure operation) applied to each register of `a` as `ty`. A register equal to an
    /// earlier one (a uniform value is one register k times) reuses that one's result:
    /// Cranelift at `opt_level = none` would compute it again.
    pub(super) fn map(
        &mut self,
        a: Vx,
        ty: cl::Type,
        mut f: impl FnMut(&mut Self, Value) -> Value,
    ) -> Vx {
        let mut out = a;
        for j in 0..self.k {
            if let Some(i) = (0..j).find(|&i| a.0[i] == a.0[j]) {
                out.0[j] = out.0[i];
                continue;
            }
            let x = self.bitcast(a.0[j], ty);
            out.0[j] = f(self, x);
        }
        out
    }

    /// `f` (a pure operation) applied to each pair of registers of `a` and `c` as `ty`, a pair
    /// equal to an earlier one reusing its result ([`ClBuilder::map`]).
    pub(super) fn map2(
        &mut self,
        a: Vx,
        c: Vx,
        ty: cl::Type,
        mut f: impl FnMut(&mut Self, Value, Value) -> Value,
    ) -> Vx {
        let mut out = a;
        for j in 0..self.k {
            if let Some(i) = (0..j).find(|&i| a.0[i] == a.0[j] && c.0[i] == c.0[j]) {
                out.0[j] = out.0[i];
                continue;
            }
            let (x, y) = (self.bitcast(a.0[j], ty), self.bitcast(c.0[j], ty));
            out.0[j] = f(self, x, y);
        }
        out
    }

    /// 2^n (2^(32 − n) when `from_32`) per lane for `n` below 32, as u32 words: made as a
    /// float's bits (the exponent field `127 ± n`) and converted with cvttps2dq, which gives
    /// 2³¹'s bits for 2³¹ as the unsigned word needs (2^(32 − 0) gives those bits too).
    pub(super) fn pow2_words(&mut self, n: Vx, from_32: bool) -> R<Vx> {
        let p = if from_32 {
            let bias = self.vconst(types::I32X4, [127 + 32; 4]);
            self.map(n, types::I32X4, |s, x| {
                let e = s.b.ins().isub(bias, x);
                s.b.ins().ishl_imm_u(e, 23)
            })
        } else {
            let one = self.vconst(types::I32X4, [0x3f80_0000; 4]);
            self.map(n, types::I32X4, |s, x| {
                let e = s.b.ins().ishl_imm_u(x, 23);
                s.b.ins().iadd(e, one)
            })
        };
        let p = self.cast(p, Kind::F32)?;
        self.float_to_int(p)
    }

    pub(super) fn bitcast(&mut self, v: Value, ty: cl::Type) -> Value {
        if self.b.func.dfg.value_type(v) == ty {
            v
        } else {
            let le = MemFlagsData::new().with_endianness(Endianness::Little);
            self.b.ins().bitcast(ty, le, v)
        }
    }

    /// A vector constant, made once before the entry block's jump.
    pub(super) fn vconst(&mut self, ty: cl::Type, words: [u32; 4]) -> Value {
        if let Some(&v) = self.consts.get(&(ty, words)) {
            return v;
        }
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let c = self.b.func.dfg.constants.insert(ConstantData::from(bytes));
        let v = match self.entry_jump {
            Some(at) => FuncCursor::new(self.b.func).at_inst(at).ins().vconst(ty, c),
            None => self.b.ins().vconst(ty, c),
        };
        self.consts.insert((ty, words), v);
        v
    }

    fn lane(&self, v: Vx, lane: usize) -> (Value, u8) {
        (v.0[lane / 4], (lane % 4) as u8)
    }
}

impl SimdBuilder for ClBuilder<'_> {
    type V = Vx;
    type S = Value;
    type Var = Var;
    type Block = cl::Block;
    type D = Dx;

    const FOLDS_DENORMALS: bool = false;
    const BRANCHLESS_LANE_MOVES: bool = false;

    fn lanes(&self) -> usize {
        4 * self.k
    }

    fn args(&self) -> Value {
        self.args
    }

    fn splat_const(&mut self, kind: Kind, bits: u32) -> R<Vx> {
        let bits = if kind == Kind::Mask && bits != 0 {
            u32::MAX
        } else {
            bits
        };
        let v = self.vconst(ty_of(kind), [bits; 4]);
        Ok(self.vx(|_| v))
    }

    fn iota(&mut self) -> R<Vx> {
        let vs: Vec<Value> = (0..self.k as u32)
            .map(|j| self.vconst(types::I32X4, [4 * j, 4 * j + 1, 4 * j + 2, 4 * j + 3]))
            .collect();
        Ok(self.vx(|j| vs[j]))
    }

    fn splat(&mut self, s: Value) -> R<Vx> {
        let ty = if self.b.func.dfg.value_type(s) == types::F32 {
            types::F32X4
        } else {
            types::I32X4
        };
        let v = self.b.ins().splat(ty, s);
        Ok(self.vx(|_| v))
    }

    fn extract(&mut self, v: Vx, lane: usize) -> R<Value> {
        let (x, i) = self.lane(v, lane);
        Ok(self.b.ins().extractlane(x, i))
    }

    fn insert(&mut self, v: Vx, lane: usize, s: Value) -> R<Vx> {
        let (x, i) = self.lane(v, lane);
        let mut out = v;
        out.0[lane / 4] = self.b.ins().insertlane(x, s, i);
        Ok(out)
    }

    fn cast(&mut self, v: Vx, kind: Kind) -> R<Vx> {
        Ok(self.map(v, ty_of(kind), |_, x| x))
    }

    fn fbin(&mut self, op: FBin, a: Vx, c: Vx) -> R<Vx> {
        Ok(self.map2(a, c, types::F32X4, |s, x, y| match op {
            FBin::Add => s.b.ins().fadd(x, y),
            FBin::Sub => s.b.ins().fsub(x, y),
            FBin::Mul => s.b.ins().fmul(x, y),
            FBin::Div => s.b.ins().fdiv(x, y),
        }))
    }

    fn fun(&mut self, op: FUn, a: Vx) -> R<Vx> {
        if let FUn::Neg | FUn::Abs = op {
            // Sign-bit operations as one xor/and with a constant.
            let r = self.map(a, types::I32X4, |s, x| {
                if op == FUn::Neg {
                    let m = s.vconst(types::I32X4, [0x8000_0000; 4]);
                    s.b.ins().bxor(x, m)
                } else {
                    let m = s.vconst(types::I32X4, [0x7FFF_FFFF; 4]);
                    s.b.ins().band(x, m)
                }
            });
            return self.cast(r, Kind::F32);
        }
        Ok(self.map(a, types::F32X4, |s, x| match op {
            FUn::Floor => s.b.ins().floor(x),
            FUn::Ceil => s.b.ins().ceil(x),
            FUn::Trunc => s.b.ins().trunc(x),
            FUn::Round => s.b.ins().nearest(x),
            _ => s.b.ins().sqrt(x),
        }))
    }

    fn fcmp(&mut self, cc: FCmp, a: Vx, c: Vx) -> R<Vx> {
        let cc = match cc {
            FCmp::Lt => FloatCC::LessThan,
            FCmp::Le => FloatCC::LessThanOrEqual,
            FCmp::Gt => FloatCC::GreaterThan,
            FCmp::Ge => FloatCC::GreaterThanOrEqual,
            FCmp::Eq => FloatCC::Equal,
            FCmp::Ne => FloatCC::NotEqual,
        };
        Ok(self.map2(a, c, types::F32X4, |s, x, y| s.b.ins().fcmp(cc, x, y)))
    }

    fn ibin(&mut self, op: IBin, a: Vx, c: Vx) -> R<Vx> {
        Ok(self.map2(a, c, types::I32X4, |s, x, y| {
            let i = s.b.ins();
            match op {
                IBin::Add => i.iadd(x, y),
                IBin::Sub => i.isub(x, y),
                IBin::Mul => i.imul(x, y),
                IBin::And => i.band(x, y),
                IBin::Or => i.bor(x, y),
                IBin::Xor => i.bxor(x, y),
                IBin::AndNot => i.band_not(x, y),
                IBin::SMin => i.smin(x, y),
                IBin::SMax => i.smax(x, y),
                IBin::UMin => i.umin(x, y),
                IBin::UMax => i.umax(x, y),
            }
        }))
    }

    fn icmp(&mut self, cc: ICmp, a: Vx, c: Vx) -> R<Vx> {
        let cc = match cc {
            ICmp::Eq => IntCC::Equal,
            ICmp::Ne => IntCC::NotEqual,
            ICmp::SLt => IntCC::SignedLessThan,
            ICmp::SGe => IntCC::SignedGreaterThanOrEqual,
            ICmp::ULt => IntCC::UnsignedLessThan,
            ICmp::UGe => IntCC::UnsignedGreaterThanOrEqual,
        };
        Ok(self.map2(a, c, types::I32X4, |s, x, y| s.b.ins().icmp(cc, x, y)))
    }

    fn not(&mut self, a: Vx) -> R<Vx> {
        Ok(self.map(a, types::I32X4, |s, x| s.b.ins().bnot(x)))
    }

    fn shift_imm(&mut self, op: Shift, a: Vx, n: u32) -> R<Vx> {
        let n = n as i64;
        Ok(self.map(a, types::I32X4, |s, x| match op {
            Shift::Shl => s.b.ins().ishl_imm_u(x, n),
            Shift::ShrS => s.b.ins().sshr_imm_u(x, n),
            Shift::ShrU => s.b.ins().ushr_imm_u(x, n),
        }))
    }

    fn iabs(&mut self, a: Vx) -> R<Vx> {
        Ok(self.map(a, types::I32X4, |s, x| s.b.ins().iabs(x)))
    }

    fn int_to_float(&mut self, a: Vx, signed: bool) -> R<Vx> {
        Ok(self.map(a, types::I32X4, |s, x| {
            if signed {
                s.b.ins().fcvt_from_sint(types::F32X4, x)
            } else {
                s.b.ins().fcvt_from_uint(types::F32X4, x)
            }
        }))
    }

    fn float_to_int(&mut self, a: Vx) -> R<Vx> {
        Ok(self.map(a, types::F32X4, |s, x| {
            s.b.ins().x86_cvtt2dq(types::I32X4, x)
        }))
    }

    fn select(&mut self, m: Vx, x: Vx, y: Vx) -> R<Vx> {
        let mut out = x;
        for j in 0..self.k {
            if let Some(i) =
                (0..j).find(|&i| m.0[i] == m.0[j] && x.0[i] == x.0[j] && y.0[i] == y.0[j])
            {
                out.0[j] = out.0[i];
                continue;
            }
            let ty = self.b.func.dfg.value_type(x.0[j]);
            let c = self.lane_mask(m.0[j]);
            let c = self.bitcast(c, ty);
            let yj = self.bitcast(y.0[j], ty);
            out.0[j] = self.b.ins().bitselect(c, x.0[j], yj);
        }
        Ok(out)
    }

    fn select_all(&mut self, c: Value, x: Vx, y: Vx) -> R<Vx> {
        let mut out = x;
        for j in 0..self.k {
            let ty = self.b.func.dfg.value_type(x.0[j]);
            let yj = self.bitcast(y.0[j], ty);
            out.0[j] = self.b.ins().select(c, x.0[j], yj);
        }
        Ok(out)
    }

    fn shuffle_quads(&mut self, v: Vx, pick: [u8; 4]) -> R<Vx> {
        let bytes: Vec<u8> = pick
            .iter()
            .flat_map(|&i| (0..4).map(move |j| 4 * i + j))
            .collect();
        let mut out = v;
        for j in 0..self.k {
            let ty = self.b.func.dfg.value_type(v.0[j]);
            let v8 = self.bitcast(v.0[j], types::I8X16);
            let imm = self.b.func.dfg.immediates.push(bytes.clone().into());
            let x = self.b.ins().shuffle(v8, v8, imm);
            out.0[j] = self.bitcast(x, ty);
        }
        Ok(out)
    }

    fn supports(&self, op: Optional) -> bool {
        // Cranelift lowers a vector FMA to `vfmadd` or, without FMA, to `fmaf` per lane; shifts
        // by per-lane amounts are products (left) and high words of products (right); the
        // other operations SSE has no vector instruction for are computed lane by lane inline
        // ([`Self::per_lane`]), a few instructions a lane against a call to the host a step.
        // A permute has no instruction at 128 bits: the lowering gathers instead.
        !matches!(op, Optional::Permute)
    }

    fn optional(&mut self, op: Optional, args: &[Vx]) -> R<Vx> {
        match (op, args) {
            (Optional::Fma, &[a, b, c]) => {
                let mut out = a;
                for j in 0..self.k {
                    let x = [a, b, c].map(|v| v.0[j]);
                    // A negated operand as `fneg`, which Cranelift folds into
                    // `vfnmadd`/`vfmsub` (a product of two negated factors is the product).
                    let neg = x.map(|v| self.negated(v));
                    let mut x = x.map(|v| self.bitcast(v, types::F32X4));
                    match neg {
                        [Some(p), Some(q), _] => (x[0], x[1]) = (p, q),
                        [Some(p), None, _] => x[0] = self.b.ins().fneg(p),
                        [None, Some(q), _] => x[1] = self.b.ins().fneg(q),
                        _ => {}
                    }
                    if let Some(r) = neg[2] {
                        x[2] = self.b.ins().fneg(r);
                    }
                    out.0[j] = self.b.ins().fma(x[0], x[1], x[2]);
                }
                Ok(out)
            }
            (Optional::MulHigh { signed }, &[a, c]) => Ok(self.mul_high(signed, a, c)),
            (Optional::Shift(Shift::Shl), &[a, c]) => {
                // a · 2^c, then `pmulld`.
                let p = self.pow2_words(c, false)?;
                Ok(self.map2(a, p, types::I32X4, |s, x, y| s.b.ins().imul(x, y)))
            }
            (Optional::Shift(sh @ (Shift::ShrU | Shift::ShrS)), &[a, c]) => {
                // x >> n (n below 32) as the high word of x · 2^(32 − n) (`pmuludq` twice); n =
                // 0 keeps x. An arithmetic shift flips a negative x's bits before and after:
                // ~(~x >> n).
                let (n, zero) = (c, self.vconst(types::I32X4, [0; 4]));
                let p = self.pow2_words(n, true)?;
                let flip = (sh == Shift::ShrS)
                    .then(|| self.map(a, types::I32X4, |s, x| s.b.ins().sshr_imm_u(x, 31)));
                let x = match flip {
                    Some(f) => self.map2(a, f, types::I32X4, |s, x, y| s.b.ins().bxor(x, y)),
                    None => a,
                };
                let hi = self.mul_high(false, x, p);
                let r = match flip {
                    Some(f) => self.map2(hi, f, types::I32X4, |s, x, y| s.b.ins().bxor(x, y)),
                    None => hi,
                };
                let whole = self.map(n, types::I32X4, |s, n| {
                    s.b.ins().icmp(IntCC::Equal, n, zero)
                });
                let a = self.cast(a, Kind::I32)?;
                self.select(whole, a, r)
            }
            (Optional::Fma | Optional::Permute, _) => {
                Err(Invariant::NoVectorForm(format!("{op:?} (Cranelift)")).into())
            }
            (op, args) => Ok(self.per_lane(args, types::I32X4, |s, x| {
                let i = s.b.ins();
                match op {
                    Optional::Shift(Shift::Shl) => i.ishl(x[0], x[1]),
                    Optional::Shift(Shift::ShrS) => i.sshr(x[0], x[1]),
                    Optional::Shift(Shift::ShrU) => i.ushr(x[0], x[1]),
                    // The lowering never divides by 0, nor INT_MIN by −1.
                    Optional::Div { signed, rem } => match (signed, rem) {
                        (true, false) => i.sdiv(x[0], x[1]),
                        (true, true) => i.srem(x[0], x[1]),
                        (false, false) => i.udiv(x[0], x[1]),
                        (false, true) => i.urem(x[0], x[1]),
                    },
                    Optional::MulHigh { signed: true } => i.smulhi(x[0], x[1]),
                    Optional::MulHigh { signed: false } => i.umulhi(x[0], x[1]),
                    Optional::Ctlz => i.clz(x[0]),
                    Optional::Cttz => i.ctz(x[0]),
                    Optional::Popcount => i.popcnt(x[0]),
                    _ => i.bitrev(x[0]),
                }
            })),
        }
    }

    fn flush(&mut self, a: Vx) -> R<Vx> {
        // x + (−0): under DAZ a denormal reads as zero, so this flushes it (and keeps ±0).
        let nz = self.vconst(types::F32X4, [(-0.0f32).to_bits(); 4]);
        Ok(self.map(a, types::F32X4, |s, x| s.b.ins().fadd(x, nz)))
    }

    fn has_doubles(&self) -> bool {
        true
    }
    fn d_from_float(&mut self, a: Vx) -> R<Dx> {
        Ok(self.d_from_float_(a))
    }
    fn d_from_int(&mut self, a: Vx) -> R<Dx> {
        Ok(self.d_from_int_(a))
    }
    fn d_to_float(&mut self, a: Dx) -> R<Vx> {
        Ok(self.d_to_float_(a))
    }
    fn d_const(&mut self, x: f64) -> R<Dx> {
        Ok(self.d_const_(x))
    }
    fn d_bin(&mut self, op: FBin, a: Dx, c: Dx) -> R<Dx> {
        Ok(self.d_bin_(op, a, c))
    }
    fn d_fma(&mut self, a: Dx, b: Dx, c: Dx) -> R<Dx> {
        Ok(self.d_fma_(a, b, c))
    }
    fn d_round_even(&mut self, a: Dx) -> R<Dx> {
        Ok(self.d_round_even_(a))
    }
    fn d_to_int(&mut self, a: Dx) -> R<Vx> {
        Ok(self.d_to_int_(a))
    }
    fn d_lt(&mut self, a: Dx, c: Dx) -> R<Vx> {
        Ok(self.d_lt_(a, c))
    }
    fn d_select(&mut self, m: Vx, x: Dx, y: Dx) -> R<Dx> {
        Ok(self.d_select_(m, x, y))
    }
    fn d_lookup(&mut self, table: &'static [f64], idx: Vx) -> R<Dx> {
        self.d_lookup_(table, idx)
    }
    fn d_scale(&mut self, a: Dx, e: Vx) -> R<Dx> {
        Ok(self.d_scale_(a, e))
    }

    fn has_wide(&self) -> bool {
        true
    }
    fn q_pack(&mut self, lo: Vx, hi: Vx) -> R<Dx> {
        Ok(self.q_pack_(lo, hi))
    }
    fn q_word(&mut self, a: Dx, hi: bool) -> R<Vx> {
        Ok(self.q_word_(a, hi))
    }
    fn q_const(&mut self, bits: u64) -> R<Dx> {
        Ok(self.q_const_(bits))
    }
    fn d_un(&mut self, op: FUn, a: Dx) -> R<Dx> {
        Ok(self.d_un_(op, a))
    }
    fn d_cmp(&mut self, cc: FCmp, a: Dx, c: Dx) -> R<Vx> {
        Ok(self.d_cmp_(cc, a, c))
    }
    fn q_bin(&mut self, op: QBin, a: Dx, c: Dx) -> R<Dx> {
        Ok(self.q_bin_(op, a, c))
    }
    fn q_shift(&mut self, op: Shift, a: Dx, n: Dx) -> R<Dx> {
        Ok(self.q_shift_(op, a, n))
    }
    fn q_cmp(&mut self, cc: ICmp, a: Dx, c: Dx) -> R<Vx> {
        Ok(self.q_cmp_(cc, a, c))
    }
    fn q_from_int(&mut self, a: Vx, signed: bool) -> R<Dx> {
        Ok(self.q_from_int_(a, signed))
    }
    fn d_from_uint(&mut self, a: Vx) -> R<Dx> {
        Ok(self.d_from_uint_(a))
    }
    fn d_to_q(&mut self, a: Dx) -> R<Dx> {
        Ok(self.d_to_q_(a))
    }
    fn q_to_d(&mut self, a: Dx, signed: bool) -> R<Dx> {
        Ok(self.q_to_d_(a, signed))
    }
    fn q_to_float(&mut self, a: Dx, signed: bool) -> R<Vx> {
        Ok(self.q_to_float_(a, signed))
    }

    fn call_exact(&mut self, f: ExactFn, args: &[Vx]) -> R<Option<[Vx; 2]>> {
        if self.in_helper {
            // The helper's own body: computed in place.
            return Ok(None);
        }
        // One call per register: the function's code once per process, not per use.
        let r = self.helper_ref(f);
        let mut out = [args[0]; 2];
        for j in 0..self.k {
            let xs: Vec<Value> = args
                .iter()
                .map(|a| self.bitcast(a.0[j], types::F32X4))
                .collect();
            let call = self.b.ins().call(r, &xs);
            let ys = self.b.inst_results(call).to_vec();
            for (i, o) in out.iter_mut().enumerate() {
                o.0[j] = ys[i.min(ys.len() - 1)];
            }
        }
        Ok(Some(out))
    }

    fn any(&mut self, m: Vx) -> R<Value> {
        let mut acc = m.0[0];
        for j in 1..self.k {
            acc = self.b.ins().bor(acc, m.0[j]);
        }
        Ok(self.b.ins().vany_true(acc))
    }

    fn mask_bits(&mut self, m: Vx) -> R<Value> {
        let mut acc = self.b.ins().iconst(types::I64, 0);
        for j in 0..self.k {
            let v = self.bitcast(m.0[j], types::I32X4);
            let mut hb = self.b.ins().vhigh_bits(types::I64, v);
            if j > 0 {
                hb = self.b.ins().ishl_imm_u(hb, 4 * j as i64);
            }
            acc = self.b.ins().bor(acc, hb);
        }
        Ok(acc)
    }

    fn mask_from_bits(&mut self, bits: Value) -> R<Vx> {
        let bits32 = self.b.ins().ireduce(types::I32, bits);
        let sel = self.vconst(types::I32X4, [1, 2, 4, 8]);
        let z = self.vconst(types::I32X4, [0; 4]);
        let vs: Vec<Value> = (0..self.k)
            .map(|j| {
                let part = self.b.ins().ushr_imm_u(bits32, 4 * j as i64);
                let s = self.b.ins().splat(types::I32X4, part);
                let and = self.b.ins().band(s, sel);
                self.b.ins().icmp(IntCC::NotEqual, and, z)
            })
            .collect();
        Ok(self.vx(|j| vs[j]))
    }

    fn sconst(&mut self, ty: Scalar, x: i64) -> R<Value> {
        Ok(match ty {
            Scalar::I32 => self.b.ins().iconst(types::I32, x),
            Scalar::F32 => self.b.ins().f32const(f32::from_bits(x as u32)),
            Scalar::I64 | Scalar::Ptr => self.b.ins().iconst(types::I64, x),
        })
    }

    fn sbin(&mut self, op: SBin, a: Value, c: Value) -> R<Value> {
        let i = self.b.ins();
        Ok(match op {
            SBin::Add => i.iadd(a, c),
            SBin::Mul => i.imul(a, c),
            SBin::Shl => i.ishl(a, c),
            SBin::UShr => i.ushr(a, c),
            SBin::And => i.band(a, c),
            SBin::Or => i.bor(a, c),
        })
    }

    fn scmp(&mut self, ult: bool, a: Value, c: Value) -> R<Value> {
        let cc = if ult {
            IntCC::UnsignedLessThan
        } else {
            IntCC::NotEqual
        };
        Ok(self.b.ins().icmp(cc, a, c))
    }

    fn sselect(&mut self, c: Value, a: Value, x: Value) -> R<Value> {
        Ok(self.b.ins().select(c, a, x))
    }

    fn sconvert(&mut self, a: Value, to: Scalar, signed: bool) -> R<Value> {
        let from = self.b.func.dfg.value_type(a);
        Ok(match (from, to) {
            (types::I32, Scalar::I64) if signed => self.b.ins().sextend(types::I64, a),
            (types::I32, Scalar::I64) => self.b.ins().uextend(types::I64, a),
            (types::I64, Scalar::I32) => self.b.ins().ireduce(types::I32, a),
            _ => a,
        })
    }

    fn word_addr(&mut self, base: Value, words: Value) -> R<Value> {
        let bytes = self.b.ins().ishl_imm_u(words, 2);
        Ok(self.b.ins().iadd(base, bytes))
    }

    fn load(&mut self, ty: Scalar, addr: Value, bytes: i32) -> R<Value> {
        let t = match ty {
            Scalar::I32 => types::I32,
            Scalar::F32 => types::F32,
            Scalar::I64 | Scalar::Ptr => types::I64,
        };
        Ok(self.b.ins().load(t, flags(), addr, bytes))
    }

    fn store(&mut self, addr: Value, bytes: i32, v: Value) -> R<()> {
        self.b.ins().store(flags(), v, addr, bytes);
        Ok(())
    }

    fn load_vector(&mut self, kind: Kind, addr: Value) -> R<Vx> {
        let ty = ty_of(kind);
        let vs: Vec<Value> = (0..self.k)
            .map(|j| self.b.ins().load(ty, flags(), addr, (16 * j) as i32))
            .collect();
        Ok(self.vx(|j| vs[j]))
    }

    fn store_vector(&mut self, addr: Value, v: Vx) -> R<()> {
        for j in 0..self.k {
            let x = self.bitcast(v.0[j], types::I32X4);
            self.b.ins().store(flags(), x, addr, (16 * j) as i32);
        }
        Ok(())
    }

    fn lane_words(&mut self, words: Vx) -> R<Vec<Value>> {
        // Lane pair 0 through an F64 lane is a plain `movq`, pair 1 a `pshufd` and a `movq`.
        let mut out = Vec::with_capacity(self.lanes());
        for j in 0..self.k {
            let pairs = self.bitcast(words.0[j], types::F64X2);
            for i in 0..2u8 {
                let pair = self.b.ins().extractlane(pairs, i);
                let pair = self.bitcast(pair, types::I64);
                let lo = self.b.ins().ireduce(types::I32, pair);
                out.push(self.b.ins().uextend(types::I64, lo));
                out.push(self.b.ins().ushr_imm_u(pair, 32));
            }
        }
        Ok(out)
    }

    fn gather4(&mut self, base: Value, words: Vx) -> R<[Vx; 4]> {
        // A texel per lane in one 16-byte load, then a 4×4 transpose per four lanes.
        let pick = |s: &mut Self, a: Value, b: Value, lanes: [u8; 4]| {
            let bytes: Vec<u8> = lanes
                .iter()
                .flat_map(|&i| (0..4).map(move |j| 4 * i + j))
                .collect();
            let imm = s.b.func.dfg.immediates.push(bytes.into());
            let (a, b) = (s.bitcast(a, types::I8X16), s.bitcast(b, types::I8X16));
            let r = s.b.ins().shuffle(a, b, imm);
            s.bitcast(r, types::F32X4)
        };
        let mut out = [words; 4];
        let lanes = self.lane_words(words)?;
        for j in 0..self.k {
            let mut t = Vec::with_capacity(4);
            for &x in &lanes[4 * j..4 * j + 4] {
                let a = self.word_addr(base, x)?;
                t.push(self.b.ins().load(types::F32X4, flags(), a, 0));
            }
            // Lanes 0..3 of the shuffle's first input are 0..3, of its second 4..7.
            let lo01 = pick(self, t[0], t[1], [0, 4, 1, 5]);
            let hi01 = pick(self, t[0], t[1], [2, 6, 3, 7]);
            let lo23 = pick(self, t[2], t[3], [0, 4, 1, 5]);
            let hi23 = pick(self, t[2], t[3], [2, 6, 3, 7]);
            out[0].0[j] = pick(self, lo01, lo23, [0, 1, 4, 5]);
            out[1].0[j] = pick(self, lo01, lo23, [2, 3, 6, 7]);
            out[2].0[j] = pick(self, hi01, hi23, [0, 1, 4, 5]);
            out[3].0[j] = pick(self, hi01, hi23, [2, 3, 6, 7]);
        }
        Ok(out)
    }

    fn atomic_rmw(&mut self, op: AtomicOp, addr: Value, a: Value) -> R<Value> {
        use cl::AtomicRmwOp as A;
        let op = match op {
            AtomicOp::Add => A::Add,
            AtomicOp::Xchg => A::Xchg,
            AtomicOp::And => A::And,
            AtomicOp::Or => A::Or,
            AtomicOp::Xor => A::Xor,
            AtomicOp::UMin => A::Umin,
            AtomicOp::UMax => A::Umax,
            AtomicOp::SMin => A::Smin,
            AtomicOp::SMax => A::Smax,
        };
        // Cranelift's atomics are sequentially consistent.
        Ok(self.b.ins().atomic_rmw(types::I32, flags(), op, addr, a))
    }

    fn atomic_cas(&mut self, addr: Value, expected: Value, new: Value) -> R<Value> {
        Ok(self.b.ins().atomic_cas(flags(), addr, expected, new))
    }

    fn stack_area(&mut self, words: usize) -> R<Value> {
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (words * 4) as u32,
            4,
        ));
        Ok(self.b.ins().stack_addr(types::I64, slot, 0))
    }

    fn call(&mut self, callee: Callee<Value>, args: &[Value]) -> R<()> {
        match callee {
            Callee::LaneOp(f) => self.b.ins().call_indirect(self.callees.lane_op, f, args),
            Callee::Texture(f) => self.b.ins().call_indirect(self.callees.texture, f, args),
            Callee::Emit(f) => self.b.ins().call_indirect(self.callees.emit, f, args),
            Callee::Memory(f) => self.b.ins().call_indirect(self.callees.memory, f, args),
        };
        Ok(())
    }

    fn vector_var(&mut self, kind: Kind) -> R<Var> {
        let ty = ty_of(kind);
        let mut v = [Variable::from_u32(0); 2 * MAX_K];
        for x in v.iter_mut().take(self.k) {
            *x = self.b.declare_var(ty);
        }
        Ok(Var { v, ty })
    }

    fn scalar_var(&mut self) -> R<Var> {
        let mut v = [Variable::from_u32(0); 2 * MAX_K];
        v[0] = self.b.declare_var(types::I64);
        Ok(Var { v, ty: types::I64 })
    }

    fn wide_var(&mut self) -> R<Var> {
        let mut v = [Variable::from_u32(0); 2 * MAX_K];
        for x in v.iter_mut().take(2 * self.k) {
            *x = self.b.declare_var(types::F64X2);
        }
        Ok(Var {
            v,
            ty: types::F64X2,
        })
    }

    fn def_wide(&mut self, var: Var, v: Dx) -> R<()> {
        for j in 0..2 * self.k {
            let x = self.bitcast(v.0[j], types::F64X2);
            self.b.def_var(var.v[j], x);
        }
        Ok(())
    }

    fn use_wide(&mut self, var: Var) -> R<Dx> {
        let mut out = Dx([Value::from_u32(0); 2 * MAX_K]);
        for j in 0..2 * self.k {
            out.0[j] = self.b.use_var(var.v[j]);
        }
        Ok(out)
    }

    fn def_vector(&mut self, var: Var, v: Vx) -> R<()> {
        for j in 0..self.k {
            let x = self.bitcast(v.0[j], var.ty);
            self.b.def_var(var.v[j], x);
        }
        Ok(())
    }

    fn use_vector(&mut self, var: Var) -> R<Vx> {
        let vs: Vec<Value> = (0..self.k).map(|j| self.b.use_var(var.v[j])).collect();
        Ok(self.vx(|j| vs[j]))
    }

    fn def_scalar(&mut self, var: Var, s: Value) -> R<()> {
        self.b.def_var(var.v[0], s);
        Ok(())
    }

    fn use_scalar(&mut self, var: Var) -> R<Value> {
        Ok(self.b.use_var(var.v[0]))
    }

    fn block(&mut self) -> R<cl::Block> {
        Ok(self.b.create_block())
    }

    fn switch_to(&mut self, b: cl::Block) -> R<()> {
        self.b.switch_to_block(b);
        Ok(())
    }

    fn jump(&mut self, to: cl::Block) -> R<()> {
        self.b.ins().jump(to, &[]);
        Ok(())
    }

    fn branch(&mut self, c: Value, then: cl::Block, otherwise: cl::Block) -> R<()> {
        self.b.ins().brif(c, then, &[], otherwise, &[]);
        Ok(())
    }

    fn end_entry(&mut self, to: cl::Block) -> R<()> {
        self.entry_jump = Some(self.b.ins().jump(to, &[]));
        Ok(())
    }

    fn ret(&mut self) -> R<()> {
        self.b.ins().return_(&[]);
        Ok(())
    }
}
