//! Operations THEIA lacks, as jump sequences on one lane, and comparisons.
//!
//! Every sequence tests with JG (an exact signed x > y), JL (x ≤ y), or JEQ/JNE/JGE against
//! zero (where comparing magnitudes is exact): never JL for "less than", never JEQ between two
//! signed values.

use super::sel::{J, Reg, Sel, VInst, jop};
use crate::compile::types::TheiaError;
use crate::isa::{ONE, Op as T};
use tgsic::ir::{FCmp, ICmp, Inst, Op, Type, Value};

/// A one-lane operation.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Scalar {
    Abs,
    /// Clamp to [lo, 1] (lo = 0 or −1).
    Sat(i8),
    Sign,
    Trunc,
    Round,
    F2I,
    FloorToInt,
    Sqrt,
    /// 1/√x.
    Rsq,
    Min,
    Max,
    /// Shift left by the immediate.
    Shl,
    /// Bitwise AND with the immediate (integers).
    AndConst,
    /// Logical shift right by the immediate.
    ShrU,
    /// Arithmetic shift right by the immediate.
    ShrS,
    /// Signed integer division (truncating; 0 for a zero divisor).
    IDiv,
    /// Signed remainder (the dividend's sign; −1 for a zero divisor).
    IRem,
    /// Bitwise not: −x − 1.
    Not,
    /// fract(x·C) for the f32 constant C (the immediate's bits) outside Q15.17.
    FracMul,
}

/// A comparison as "start with `init`; any of these jumps (on (a, b), or (b, a) when swapped)
/// proves the opposite of what the final copy sets".
struct Plan {
    init: bool,
    jumps: Vec<(J, bool)>,
}

fn plan(i: &Op) -> Option<Plan> {
    let p = |init, jumps: &[(J, bool)]| {
        Some(Plan {
            init,
            jumps: jumps.to_vec(),
        })
    };
    match i {
        Op::FCmp(FCmp::Lt) | Op::ICmp(ICmp::SLt) => p(false, &[(J::L, true)]),
        Op::FCmp(FCmp::Le) => p(false, &[(J::G, false)]),
        Op::FCmp(FCmp::Gt) => p(false, &[(J::L, false)]),
        Op::FCmp(FCmp::Ge) | Op::ICmp(ICmp::SGe) => p(false, &[(J::G, true)]),
        Op::FCmp(FCmp::Eq) | Op::ICmp(ICmp::Eq) => p(false, &[(J::G, false), (J::G, true)]),
        Op::FCmp(FCmp::Ne) | Op::ICmp(ICmp::Ne) => p(true, &[(J::G, false), (J::G, true)]),
        _ => None,
    }
}

impl Sel<'_> {
    pub(super) fn jump(&mut self, j: J, lane: u8, target: u32, a: Reg, b: Reg) {
        self.emit(VInst::Jump {
            op: jop(j, lane),
            target,
            a,
            b,
        });
    }

    /// The plan's jumps on lane `l` of the operands `regs`, to `target`.
    fn plan_jumps(&mut self, plan: &Plan, l: u8, target: u32, regs: &[Reg]) {
        for &(j, swap) in &plan.jumps {
            let (a, b) = if swap {
                (regs[1], regs[0])
            } else {
                (regs[0], regs[1])
            };
            self.jump(j, l, target, a, b);
        }
    }

    fn plan_of(&self, i: Inst) -> Result<Plan, TheiaError> {
        plan(&self.f.insts[i].op).ok_or_else(|| {
            self.unsupported(
                self.opname(),
                "an unsigned comparison (Q15.17 words are signed)",
            )
        })
    }

    /// A comparison's value: 1.0 or 0 in the operands' lane.
    pub(super) fn compare_value(&mut self, i: Inst) -> Result<(), TheiaError> {
        let plan = self.plan_of(i)?;
        let d = &self.f.insts[i];
        let r = d.results[0];
        let args = d.args.clone();
        let (lane, regs) = self.align(&args)?;
        let l = lane.unwrap_or(0);
        let (first, then) = if plan.init { (ONE, 0) } else { (0, ONE) };
        let k_first = self.k_at(first, lane);
        let k_then = self.k_at(then, lane);
        let dst = self.new_v();
        let skip = self.label();
        self.alu(T::Copy, dst, k_first, Reg::Void);
        self.plan_jumps(&plan, l, skip, &regs);
        self.alu(T::Copy, dst, k_then, Reg::Void);
        self.emit(VInst::Label(skip));
        self.emit(VInst::Keep(regs));
        self.set(r, dst, lane);
        Ok(())
    }

    /// Jumps to `else_l` where comparison `i` is false (falls through, or jumps to `then_l`,
    /// where it is true).
    pub(super) fn compare_jump(
        &mut self,
        i: Inst,
        else_l: u32,
        then_l: u32,
    ) -> Result<(), TheiaError> {
        let plan = self.plan_of(i)?;
        let args = self.f.insts[i].args.clone();
        let (lane, regs) = self.align(&args)?;
        let l = lane.unwrap_or(0);
        // The plan's jumps prove the opposite of `!init`: for init false they prove "false".
        let target = if plan.init { then_l } else { else_l };
        self.plan_jumps(&plan, l, target, &regs);
        if plan.init {
            self.emit(VInst::Jmp(else_l));
        }
        Ok(())
    }

    /// A one-lane operation by jumps.
    pub(super) fn scalar(&mut self, i: Inst, s: Scalar) -> Result<(), TheiaError> {
        let d = &self.f.insts[i];
        if s == Scalar::Shl {
            let shift = self.f.const_value(d.args[1]).unwrap_or(0) & 31;
            return self.scalar_of(i, &[d.args[0]], shift, s);
        }
        let args = d.args.clone();
        self.scalar_of(i, &args, 0, s)
    }

    /// Operation `s` on `args` (`imm`: the shift or the mask), giving the result of
    /// instruction `i`.
    pub(super) fn scalar_of(
        &mut self,
        i: Inst,
        args: &[Value],
        imm: u32,
        s: Scalar,
    ) -> Result<(), TheiaError> {
        let r = self.f.insts[i].results[0];
        let int = self.f.ty(r) == Type::I32;
        let (lane, regs) = self.align(args)?;
        let l = lane.unwrap_or(0);
        let a = regs[0];
        let dst = self.new_v();
        // Constants are requested where an arm first needs them (in place when C1..C7 are
        // full: on the path that uses them, never for arms that do not).
        let one_word = if int { 1 } else { ONE };
        let mut keep = regs.clone();
        let end = self.label();
        match s {
            Scalar::Abs => {
                let z = self.k_at(0, lane);
                self.alu(T::Copy, dst, a, Reg::Void);
                self.jump(J::G, l, end, a, z);
                self.alu(T::Neg, dst, a, Reg::Void);
            }
            Scalar::Min => {
                self.alu(T::Copy, dst, a, Reg::Void);
                self.jump(J::L, l, end, a, regs[1]);
                self.alu(T::Copy, dst, regs[1], Reg::Void);
            }
            Scalar::Max => {
                self.alu(T::Copy, dst, regs[1], Reg::Void);
                self.jump(J::L, l, end, a, regs[1]);
                self.alu(T::Copy, dst, a, Reg::Void);
            }
            Scalar::Sat(lo) => {
                let lo = if lo < 0 {
                    z_neg(self, lane)
                } else {
                    self.k_at(0, lane)
                };
                let mid = self.label();
                self.alu(T::Copy, dst, a, Reg::Void);
                self.jump(J::G, l, mid, a, lo);
                self.alu(T::Copy, dst, lo, Reg::Void);
                self.emit(VInst::Label(mid));
                let one = self.k_at(one_word, lane);
                self.jump(J::L, l, end, dst, one);
                self.alu(T::Copy, dst, one, Reg::Void);
            }
            Scalar::Sign => {
                let z = self.k_at(0, lane);
                let one = self.k_at(one_word, lane);
                let m1 = self.k_at(if int { u32::MAX } else { ONE.wrapping_neg() }, lane);
                self.alu(T::Copy, dst, z, Reg::Void);
                self.jump(J::Eq, l, end, a, z);
                self.alu(T::Copy, dst, one, Reg::Void);
                self.jump(J::G, l, end, a, z);
                self.alu(T::Copy, dst, m1, Reg::Void);
            }
            Scalar::Trunc => {
                let z = self.k_at(0, lane);
                let t = self.new_v();
                keep.push(t);
                self.alu(T::Frac, t, a, Reg::Void);
                self.alu(T::Sub, dst, a, t);
                self.jump(J::Ge, l, end, a, z);
                self.jump(J::Eq, l, end, t, z);
                self.alu(T::Inc, dst, dst, Reg::Void);
            }
            Scalar::Round => {
                let z = self.k_at(0, lane);
                let half = self.k_at(ONE / 2, lane);
                let t = self.new_v();
                let u = self.new_v();
                keep.extend([t, u]);
                self.alu(T::Add, t, a, half);
                self.alu(T::Frac, u, t, Reg::Void);
                self.alu(T::Sub, dst, t, u);
                // A tie (t an integer) rounds to even: subtract 1 from an odd result.
                self.jump(J::Ne, l, end, u, z);
                self.alu(T::Mul, u, half, dst);
                self.alu(T::Frac, u, u, Reg::Void);
                self.jump(J::Eq, l, end, u, z);
                self.alu(T::Dec, dst, dst, Reg::Void);
            }
            Scalar::F2I | Scalar::FloorToInt => {
                let x = if s == Scalar::FloorToInt {
                    let t = self.new_v();
                    let f = self.new_v();
                    keep.extend([t, f]);
                    self.alu(T::Frac, t, a, Reg::Void);
                    self.alu(T::Sub, f, a, t);
                    f
                } else {
                    a
                };
                self.integer_part(x, l, lane, dst);
                keep.push(x);
            }
            Scalar::FracMul => {
                // x·C = x·n + x·f with n = ⌊|C|⌋ and f = |C| − n (a multiple of 2⁻⁹ at most, as
                // |C| ≥ 2¹⁴: exact in Q15.17). fract(x·n) is the low 17 bits of the integer
                // product X·n, which IMUL keeps modulo 2³² (n modulo 2¹⁷ is enough); x·f is one
                // truncating MUL. Negative C negates both constants.
                let c = f32::from_bits(imm) as f64;
                let m = c.abs();
                let n = (m.floor() % 131072.0) as u32;
                let f = ((m - m.floor()) * 131072.0) as u32;
                let signed = |w: u32| if c < 0.0 { w.wrapping_neg() } else { w };
                let t = self.new_v();
                keep.push(t);
                let kn = self.k_at(signed(n), lane);
                self.alu(T::Imul, t, kn, a);
                self.alu(T::Frac, t, t, Reg::Void);
                if f == 0 {
                    self.alu(T::Copy, dst, t, Reg::Void);
                } else {
                    let kf = self.k_at(signed(f), lane);
                    self.alu(T::Mul, dst, kf, a);
                    self.alu(T::Add, dst, dst, t);
                    self.alu(T::Frac, dst, dst, Reg::Void);
                }
            }
            Scalar::Sqrt => {
                let z = self.k_at(0, lane);
                self.alu(T::Copy, dst, z, Reg::Void);
                self.jump(J::L, l, end, a, z);
                let y = self.newton_sqrt(a, l, lane);
                self.alu(T::Copy, dst, y, Reg::Void);
            }
            Scalar::Rsq => {
                let z = self.k_at(0, lane);
                let one = self.k_at(one_word, lane);
                // 1/√x = 2^k / √(4^k x) with 4^k x in [1, 4): the square root keeps 17
                // significant bits for small x. x ≤ 0 gives the divider's 1/0 (2048).
                let (s, k) = (self.new_v(), self.new_v());
                keep.extend([s, k]);
                self.alu(T::Div, dst, one, z);
                self.jump(J::L, l, end, a, z);
                self.alu(T::Copy, s, a, Reg::Void);
                self.alu(T::Copy, k, one, Reg::Void);
                let (head, scaled) = (self.label(), self.label());
                self.emit(VInst::Label(head));
                self.jump(J::L, l, scaled, one, s);
                self.alu(T::Add, s, s, s);
                self.alu(T::Add, s, s, s);
                self.alu(T::Add, k, k, k);
                self.emit(VInst::Jmp(head));
                self.emit(VInst::Label(scaled));
                let y = self.newton_sqrt(s, l, lane);
                self.alu(T::Div, dst, k, y);
            }
            Scalar::Shl => {
                let k = self.k_at(1u32 << imm, lane);
                self.alu(T::Imul, dst, k, a);
            }
            Scalar::AndConst if imm == 0 => {
                let z = self.k_at(0, lane);
                self.alu(T::Copy, dst, z, Reg::Void);
            }
            Scalar::AndConst if imm < 1 << 17 && (imm + 1).is_power_of_two() => {
                // The low k bits: shifted to the top of the fraction (IMUL keeps the low word),
                // FRAC, and back down by a truncating MUL (exact: the bits below are 0). Not
                // MOD, which one of the RTL's event orders samples a cycle late.
                let k = (imm + 1).trailing_zeros();
                if k == 17 {
                    self.alu(T::Frac, dst, a, Reg::Void);
                } else {
                    let up = self.k_at(1 << (17 - k), lane);
                    self.alu(T::Imul, dst, up, a);
                    self.alu(T::Frac, dst, dst, Reg::Void);
                    let down = self.k_at(1 << k, lane);
                    self.alu(T::Mul, dst, down, dst);
                }
            }
            Scalar::AndConst => {
                // MOD computes A & (B − 1.0) for any B.
                let k = self.k_at(imm.wrapping_add(ONE), lane);
                self.alu(T::Mod, dst, a, k);
            }
            Scalar::ShrU => self.shr_u(a, imm, lane, dst),
            Scalar::Not => {
                // !x = −x − 1 in two's complement; only x = 0x80000000 wraps (−x is not a
                // word), which the simulator reports as a range fault.
                let one = self.k_at(1, lane);
                self.alu(T::Neg, dst, a, Reg::Void);
                self.alu(T::Sub, dst, dst, one);
            }
            Scalar::ShrS => {
                // x ≥ 0: the logical shift; x < 0: !(!x >> k), !x = −x − 1 ≥ 0.
                let z = self.k_at(0, lane);
                let t = self.new_v();
                keep.push(t);
                let neg = self.label();
                self.jump(J::G, l, neg, z, a);
                self.shr_u(a, imm, lane, dst);
                self.emit(VInst::Jmp(end));
                self.emit(VInst::Label(neg));
                let one = self.k_at(1, lane);
                self.alu(T::Neg, t, a, Reg::Void);
                self.alu(T::Sub, t, t, one);
                self.shr_u(t, imm, lane, dst);
                self.alu(T::Neg, dst, dst, Reg::Void);
                let one = self.k_at(1, lane);
                self.alu(T::Sub, dst, dst, one);
            }
            Scalar::IDiv | Scalar::IRem => {
                // q = a/b in Q15.17 (DIV truncates toward 0); its integer part is the integer
                // quotient. A zero divisor gives 0 (IDIV) or −1 (MOD), as TGSI defines.
                let z = self.k_at(0, lane);
                let (q, m) = (self.new_v(), self.new_v());
                keep.extend([q, m]);
                let k = self.k_at(if s == Scalar::IDiv { 0 } else { u32::MAX }, lane);
                self.alu(T::Copy, dst, k, Reg::Void);
                self.jump(J::Eq, l, end, regs[1], z);
                self.alu(T::Div, q, a, regs[1]);
                self.integer_part(q, l, lane, m);
                if s == Scalar::IDiv {
                    self.alu(T::Copy, dst, m, Reg::Void);
                } else {
                    // a − q·b (|q| < 2^14: a safe first operand for IMUL).
                    self.alu(T::Imul, m, m, regs[1]);
                    self.alu(T::Sub, dst, a, m);
                }
            }
        }
        self.emit(VInst::Label(end));
        self.emit(VInst::Keep(keep));
        self.set(r, dst, lane);
        Ok(())
    }
}

impl Sel<'_> {
    /// dst = the integer part of Q15.17 value x (truncated toward 0) as a raw integer word:
    /// UNSCALE of |x|, with x's sign.
    fn integer_part(&mut self, x: Reg, l: u8, lane: Option<u8>, dst: Reg) {
        let z = self.k_at(0, lane);
        let m = self.new_v();
        let (pos, signed) = (self.label(), self.label());
        self.alu(T::Copy, m, x, Reg::Void);
        self.jump(J::Ge, l, pos, x, z);
        self.alu(T::Neg, m, x, Reg::Void);
        self.emit(VInst::Label(pos));
        self.alu(T::Unscale, dst, m, Reg::Void);
        self.jump(J::Ge, l, signed, x, z);
        self.alu(T::Neg, dst, dst, Reg::Void);
        self.emit(VInst::Label(signed));
        self.emit(VInst::Keep(vec![x, m]));
    }

    /// dst = a >> k, logical, exact for every word: the high 15 bits (UNSCALE, a logical shift
    /// by 17) moved back up by IMUL, the low 17 (FRAC) moved down by a truncating MUL by 2^−k.
    fn shr_u(&mut self, a: Reg, k: u32, lane: Option<u8>, dst: Reg) {
        let k = k & 31;
        if k == 0 {
            self.alu(T::Copy, dst, a, Reg::Void);
            return;
        }
        if k >= 17 {
            self.alu(T::Unscale, dst, a, Reg::Void);
            if k > 17 {
                let m = self.k_at(1 << (34 - k), lane);
                self.alu(T::Mul, dst, m, dst);
            }
            return;
        }
        let lo = self.new_v();
        let m = self.k_at(1 << (17 - k), lane);
        self.alu(T::Unscale, dst, a, Reg::Void);
        self.alu(T::Imul, dst, m, dst);
        self.alu(T::Frac, lo, a, Reg::Void);
        self.alu(T::Mul, lo, m, lo);
        self.alu(T::Add, dst, dst, lo);
        self.emit(VInst::Keep(vec![a, lo]));
    }

    /// √a for a > 0 (lane `l`) by Newton's iteration from a/2 + 1/2, which is ≥ √a (and cannot
    /// overflow, as (a + 1)/2 would): y ← (y + a/y)/2 decreases until it stops, within one unit
    /// of 2⁻¹⁷ of √a. Constants go first in products (b1.2's multiplier is wrong for |SRC1|
    /// past 0x55555555).
    fn newton_sqrt(&mut self, a: Reg, l: u8, lane: Option<u8>) -> Reg {
        let half = self.k_at(ONE / 2, lane);
        let (y, t) = (self.new_v(), self.new_v());
        let (head, done) = (self.label(), self.label());
        self.alu(T::Mul, y, half, a);
        self.alu(T::Add, y, y, half);
        self.emit(VInst::Label(head));
        self.alu(T::Div, t, a, y);
        self.alu(T::Add, t, t, y);
        self.alu(T::Mul, t, half, t);
        self.jump(J::Ge, l, done, t, y);
        self.alu(T::Copy, y, t, Reg::Void);
        self.emit(VInst::Jmp(head));
        self.emit(VInst::Label(done));
        self.emit(VInst::Keep(vec![a, y, t]));
        y
    }
}

/// −1.0 in the lane(s).
fn z_neg(s: &mut Sel<'_>, lane: Option<u8>) -> Reg {
    s.k_at(ONE.wrapping_neg(), lane)
}
