//! Lane-level helpers of Cranelift's builder: blends from comparison masks, negations it can
//! fold into an FMA, operations SSE has no vector instruction for computed lane by lane, and
//! high products of 32-bit lanes from widened pairs.

use super::types::{ClBuilder, Vx};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{self as cl, InstBuilder, Value, types};

impl ClBuilder<'_> {
    /// A lane mask Cranelift knows to be all ones or all zeros per lane (a comparison's
    /// result), so that `bitselect` becomes one blend instead of and/andnot/or.
    pub(super) fn lane_mask(&mut self, m: Value) -> Value {
        use cranelift_codegen::ir::{InstructionData, Opcode};
        let dfg = &self.b.func.dfg;
        let compare = |v: Value| {
            dfg.value_def(v).inst().is_some_and(|i| {
                matches!(
                    dfg.insts[i],
                    InstructionData::IntCompare { .. } | InstructionData::FloatCompare { .. }
                )
            })
        };
        let direct = compare(m)
            || dfg.value_def(m).inst().is_some_and(|i| match dfg.insts[i] {
                InstructionData::LoadNoOffset {
                    opcode: Opcode::Bitcast,
                    arg,
                    ..
                } => compare(arg),
                _ => false,
            });
        if direct {
            return m;
        }
        let m = self.bitcast(m, types::I32X4);
        let z = self.vconst(types::I32X4, [0; 4]);
        self.b.ins().icmp(IntCC::SignedLessThan, m, z)
    }

    /// `x` (as F32X4) when `v` is `x` with its sign bits flipped by [`fun`]'s `Neg` (an xor
    /// with the sign mask, perhaps bitcast).
    pub(super) fn negated(&mut self, v: Value) -> Option<Value> {
        use cranelift_codegen::ir::{InstructionData, Opcode};
        let mask = *self.consts.get(&(types::I32X4, [0x8000_0000; 4]))?;
        let dfg = &self.b.func.dfg;
        let def = |v: Value| dfg.value_def(v).inst().map(|i| &dfg.insts[i]);
        let v = match def(v) {
            Some(&InstructionData::LoadNoOffset {
                opcode: Opcode::Bitcast,
                arg,
                ..
            }) => arg,
            _ => v,
        };
        match def(v) {
            Some(&InstructionData::Binary {
                opcode: Opcode::Bxor,
                args: [x, m],
            }) if m == mask => Some(self.bitcast(x, types::F32X4)),
            _ => None,
        }
    }

    /// `f` of each lane's scalars of `args` (as vectors of `ty`), an I32 a lane: lanes moved
    /// out and back with `extractlane` and `insertlane`.
    pub(super) fn per_lane(
        &mut self,
        args: &[Vx],
        ty: cl::Type,
        mut f: impl FnMut(&mut Self, &[Value]) -> Value,
    ) -> Vx {
        let mut out = args[0];
        for j in 0..self.k {
            let vs: Vec<Value> = args.iter().map(|a| self.bitcast(a.0[j], ty)).collect();
            let mut acc = self.bitcast(args[0].0[j], types::I32X4);
            for lane in 0..4u8 {
                let xs: Vec<Value> = vs
                    .iter()
                    .map(|&v| self.b.ins().extractlane(v, lane))
                    .collect();
                let r = f(self, &xs);
                acc = self.b.ins().insertlane(acc, r, lane);
            }
            out.0[j] = acc;
        }
        out
    }

    /// The high 32 bits of each lane's 64-bit product: lanes widened in pairs and multiplied
    /// (Cranelift's `pmuludq`/`pmuldq` pattern for products of widenings), the products' high
    /// words picked by one shuffle.
    pub(super) fn mul_high(&mut self, signed: bool, a: Vx, c: Vx) -> Vx {
        self.map2(a, c, types::I32X4, |s, x, y| {
            let mut p = [x; 2];
            for (h, p) in p.iter_mut().enumerate() {
                let ins = |s: &mut Self, v| match (signed, h) {
                    (true, 0) => s.b.ins().swiden_low(v),
                    (true, _) => s.b.ins().swiden_high(v),
                    (false, 0) => s.b.ins().uwiden_low(v),
                    (false, _) => s.b.ins().uwiden_high(v),
                };
                let (wx, wy) = (ins(s, x), ins(s, y));
                *p = s.b.ins().imul(wx, wy);
            }
            let bytes: Vec<u8> = [4u8, 12, 20, 28].iter().flat_map(|&b| b..b + 4).collect();
            let (p0, p1) = (s.bitcast(p[0], types::I8X16), s.bitcast(p[1], types::I8X16));
            let imm = s.b.func.dfg.immediates.push(bytes.into());
            let r = s.b.ins().shuffle(p0, p1, imm);
            s.bitcast(r, types::I32X4)
        })
    }
}
