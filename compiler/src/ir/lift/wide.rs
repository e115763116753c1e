//! The 64-bit opcodes, doubles and 64-bit integers: each channel pair (`.xy`, `.zw`) read as
//! one F64 or I64 value ([`Op64::Pack`]), computed with [`Op64`] operations and written back
//! as two words, pair by pair in the interpreter's order and by its write-mask rules
//! ([`Wide`]; `runtime/src/interp/wide.rs`), so the bits agree.

use super::{LiftError, Lifter};
use crate::ir::verify::signature64;
use crate::ir::*;
use crate::tgsi::*;

/// The channel pairs: `.xy`, `.zw`.
const PAIRS: [(u8, u8); 2] = [(0, 1), (2, 3)];

impl Lifter<'_> {
    fn w64(&mut self, op: Op64, args: Vec<Value>) -> Value {
        let (_, ty) = signature64(op);
        self.emit1(Op::W64(op), args, ty)
    }

    /// Source `k`'s 64-bit value made of its channels `lo` and `hi` (I64).
    fn qsrc(&mut self, pc: usize, k: usize, (lo, hi): (u8, u8)) -> Value {
        let (a, b) = (self.srci(pc, k, lo), self.srci(pc, k, hi));
        self.w64(Op64::Pack, vec![a, b])
    }

    /// Source `k`'s double made of its channels `lo` and `hi` (F64).
    fn dsrc(&mut self, pc: usize, k: usize, pair: (u8, u8)) -> Value {
        let q = self.qsrc(pc, k, pair);
        self.w64(Op64::AsF64, vec![q])
    }

    /// A double constant.
    fn dconst(&mut self, x: f64) -> Value {
        let bits = x.to_bits();
        let (lo, hi) = (self.iconst(bits as u32), self.iconst((bits >> 32) as u32));
        let q = self.w64(Op64::Pack, vec![lo, hi]);
        self.w64(Op64::AsF64, vec![q])
    }

    /// Writes a 64-bit result (F64 or I64) to the channels `lo`, `hi` of destination `k`,
    /// saturated as a double when the instruction saturates; later sources read what it wrote.
    fn put_pair(&mut self, pc: usize, k: usize, (lo, hi): (u8, u8), v: Value) {
        let p = self.p;
        let inst = &p.instructions[pc];
        let mut v = v;
        if self.f.ty(v) == Type::F64 {
            if inst.saturate == Saturate::ZeroOne {
                v = self.w64(Op64::DSat01, vec![v]);
            }
            v = self.w64(Op64::AsI64, vec![v]);
        }
        let a = self.w64(Op64::Lo, vec![v]);
        let b = self.w64(Op64::Hi, vec![v]);
        let r = &inst.dst[k].register;
        self.write_reg(pc, r, lo, a, None);
        self.write_reg(pc, r, hi, b, None);
        self.src_cache.clear();
    }

    /// Writes a 32-bit result to channel `c` of destination `k` (saturated as a float when the
    /// instruction saturates).
    fn put_chan(&mut self, pc: usize, k: usize, c: u8, v: Value) {
        let p = self.p;
        let inst = &p.instructions[pc];
        let mut v = v;
        if inst.saturate == Saturate::ZeroOne {
            let x = self.as_f(v);
            v = self.un(Unary::FSat01, x);
        }
        self.write_reg(pc, &inst.dst[k].register, c, v, None);
        self.src_cache.clear();
    }

    /// Lifts the 64-bit instruction `pc`.
    pub(super) fn wide(&mut self, pc: usize, wide: Wide) -> Result<(), LiftError> {
        use Op64 as W;
        use Opcode as O;
        let p = self.p;
        let inst = &p.instructions[pc];
        let op = inst.opcode;
        let mask = inst.dst.first().map_or(0, |d| d.write_mask.0);
        let has = |c: u8| mask & (1 << c) != 0;
        let both = |(lo, hi): (u8, u8)| has(lo) && has(hi);
        let either = |(lo, hi): (u8, u8)| has(lo) || has(hi);
        let bad = |s: &Self| s.unsupported(pc, op.name(), "not a 64-bit opcode of its rule");
        match wide {
            Wide::Unary => {
                for pair in PAIRS {
                    if !both(pair) {
                        continue;
                    }
                    let int_in =
                        matches!(op, O::I64abs | O::I64neg | O::I64ssg | O::I642d | O::U642d);
                    let a = if int_in {
                        self.qsrc(pc, 0, pair)
                    } else {
                        self.dsrc(pc, 0, pair)
                    };
                    let v = match op {
                        O::Dabs => self.w64(W::DAbs, vec![a]),
                        O::Dneg => self.w64(W::DNeg, vec![a]),
                        O::Drcp => {
                            let one = self.dconst(1.0);
                            self.w64(W::DDiv, vec![one, a])
                        }
                        O::Dsqrt => self.w64(W::DSqrt, vec![a]),
                        O::Drsq => {
                            let one = self.dconst(1.0);
                            let s = self.w64(W::DSqrt, vec![a]);
                            self.w64(W::DDiv, vec![one, s])
                        }
                        O::Dfrac => {
                            let fl = self.w64(W::DFloor, vec![a]);
                            self.w64(W::DSub, vec![a, fl])
                        }
                        O::Dflr => self.w64(W::DFloor, vec![a]),
                        O::Dtrunc => self.w64(W::DTrunc, vec![a]),
                        O::Dceil => self.w64(W::DCeil, vec![a]),
                        O::Dround => self.w64(W::DRound, vec![a]),
                        O::Dssg => self.w64(W::DSign, vec![a]),
                        O::I64abs => self.w64(W::QAbs, vec![a]),
                        O::I64neg => self.w64(W::QNeg, vec![a]),
                        O::I64ssg => self.w64(W::QSign, vec![a]),
                        O::D2i64 => self.w64(W::F64ToI64, vec![a]),
                        O::D2u64 => self.w64(W::F64ToU64, vec![a]),
                        O::I642d => self.w64(W::I64ToF64, vec![a]),
                        O::U642d => self.w64(W::U64ToF64, vec![a]),
                        _ => return Err(bad(self)),
                    };
                    self.put_pair(pc, 0, pair, v);
                }
            }
            Wide::Binary | Wide::Compare => {
                for pair in PAIRS {
                    if !either(pair) {
                        continue;
                    }
                    let double = matches!(
                        op,
                        O::Dadd
                            | O::Dmul
                            | O::Ddiv
                            | O::Dmin
                            | O::Dmax
                            | O::Dslt
                            | O::Dsge
                            | O::Dseq
                            | O::Dsne
                    );
                    let (a, b) = if double {
                        (self.dsrc(pc, 0, pair), self.dsrc(pc, 1, pair))
                    } else {
                        (self.qsrc(pc, 0, pair), self.qsrc(pc, 1, pair))
                    };
                    let w = match op {
                        O::Dadd => W::DAdd,
                        O::Dmul => W::DMul,
                        O::Ddiv => W::DDiv,
                        O::Dmin => W::DMin,
                        O::Dmax => W::DMax,
                        O::U64add => W::QAdd,
                        O::U64mul => W::QMul,
                        O::U64div => W::QDivU,
                        O::I64div => W::QDivS,
                        O::U64mod => W::QRemU,
                        O::I64mod => W::QRemS,
                        O::I64min => W::QMinS,
                        O::I64max => W::QMaxS,
                        O::U64min => W::QMinU,
                        O::U64max => W::QMaxU,
                        O::Dslt => W::DCmp(FCmp::Lt),
                        O::Dsge => W::DCmp(FCmp::Ge),
                        O::Dseq => W::DCmp(FCmp::Eq),
                        O::Dsne => W::DCmp(FCmp::Ne),
                        O::U64seq => W::QCmp(ICmp::Eq),
                        O::U64sne => W::QCmp(ICmp::Ne),
                        O::U64slt => W::QCmp(ICmp::ULt),
                        O::U64sge => W::QCmp(ICmp::UGe),
                        O::I64slt => W::QCmp(ICmp::SLt),
                        O::I64sge => W::QCmp(ICmp::SGe),
                        _ => return Err(bad(self)),
                    };
                    let v = self.w64(w, vec![a, b]);
                    if wide == Wide::Compare {
                        // One word, in the pair's first channel the mask has.
                        let c = if has(pair.0) { pair.0 } else { pair.1 };
                        let word = self.un(Unary::BoolToInt, v);
                        self.put_chan(pc, 0, c, word);
                    } else {
                        self.put_pair(pc, 0, pair, v);
                    }
                }
            }
            Wide::Ternary => {
                for pair in PAIRS {
                    if !both(pair) {
                        continue;
                    }
                    let a = self.dsrc(pc, 0, pair);
                    let b = self.dsrc(pc, 1, pair);
                    let c = self.dsrc(pc, 2, pair);
                    let v = if op == O::Dfma {
                        self.w64(W::DFma, vec![a, b, c])
                    } else {
                        // DMAD is not fused: the product is rounded first.
                        let m = self.w64(W::DMul, vec![a, b]);
                        self.w64(W::DAdd, vec![m, c])
                    };
                    self.put_pair(pc, 0, pair, v);
                }
            }
            Wide::Shift => {
                for pair in PAIRS {
                    if !either(pair) {
                        continue;
                    }
                    // The 32-bit operand is read in the pair's first channel.
                    let n = self.srci(pc, 1, pair.0);
                    let v = if op == O::Dldexp {
                        let a = self.dsrc(pc, 0, pair);
                        self.w64(W::DLdexp, vec![a, n])
                    } else {
                        let a = self.qsrc(pc, 0, pair);
                        let w = match op {
                            O::U64shl => W::QShl,
                            O::I64shr => W::QShrS,
                            O::U64shr => W::QShrU,
                            _ => return Err(bad(self)),
                        };
                        self.w64(w, vec![a, n])
                    };
                    self.put_pair(pc, 0, pair, v);
                }
            }
            Wide::From32 => {
                for (k, pair) in PAIRS.into_iter().enumerate() {
                    if !both(pair) {
                        continue;
                    }
                    // Channel x makes the `.xy` pair, channel y the `.zw` pair.
                    let c = k as u8;
                    let v = match op {
                        O::F2d | O::F2i64 | O::F2u64 => {
                            let x = self.srcf(pc, 0, c);
                            let d = self.w64(W::F32ToF64, vec![x]);
                            match op {
                                O::F2i64 => self.w64(W::F64ToI64, vec![d]),
                                O::F2u64 => self.w64(W::F64ToU64, vec![d]),
                                _ => d,
                            }
                        }
                        _ => {
                            let x = self.srci(pc, 0, c);
                            let w = match op {
                                O::I2d => W::I32ToF64,
                                O::U2d => W::U32ToF64,
                                O::I2i64 => W::SExt,
                                O::U2i64 => W::ZExt,
                                _ => return Err(bad(self)),
                            };
                            self.w64(w, vec![x])
                        }
                    };
                    self.put_pair(pc, 0, pair, v);
                }
            }
            Wide::To32 => {
                // The first channel of the mask takes `.xy`'s result, the second `.zw`'s.
                let chans: Vec<u8> = (0..4u8).filter(|&c| has(c)).take(2).collect();
                for (k, &c) in chans.iter().enumerate() {
                    let pair = PAIRS[k];
                    let v = match op {
                        O::D2f | O::D2i | O::D2u => {
                            let a = self.dsrc(pc, 0, pair);
                            let w = match op {
                                O::D2f => W::F64ToF32,
                                O::D2i => W::F64ToI32,
                                _ => W::F64ToU32,
                            };
                            self.w64(w, vec![a])
                        }
                        O::I642f | O::U642f => {
                            let a = self.qsrc(pc, 0, pair);
                            let w = if op == O::I642f {
                                W::I64ToF32
                            } else {
                                W::U64ToF32
                            };
                            self.w64(w, vec![a])
                        }
                        _ => return Err(bad(self)),
                    };
                    self.put_chan(pc, 0, c, v);
                }
            }
            Wide::FracExp => {
                let mut exp = None;
                for (k, pair) in PAIRS.into_iter().enumerate() {
                    // The `.xy` pair's exponent is computed even when no mantissa is written.
                    if !both(pair) && k != 0 {
                        continue;
                    }
                    let a = self.dsrc(pc, 0, pair);
                    exp = Some(self.w64(W::DFrexpExp, vec![a]));
                    if both(pair) {
                        let m = self.w64(W::DFrexpMant, vec![a]);
                        self.put_pair(pc, 0, pair, m);
                    }
                }
                if let (Some(e), Some(d)) = (exp, inst.dst.get(1)) {
                    for c in 0..4u8 {
                        if d.write_mask.has(c as usize) {
                            self.put_chan(pc, 1, c, e);
                        }
                    }
                }
            }
        }
        Ok(())
    }
}
