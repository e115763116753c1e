//! Non-flow instructions: every arithmetic, logic, conversion, derivative, texture, kill,
//! emit and address-stack opcode, expanded into scalar IR operations in the order the
//! interpreter computes them (`runtime/src/interp/alu.rs`), so the bits agree.

use super::{LiftError, Lifter, STACK_DEPTH, Var};
use crate::ir::*;
use crate::tgsi::*;

const ONE: f32 = 1.0;

impl Lifter<'_> {
    /// Lifts instruction `pc` (not control flow).
    pub(super) fn instruction(&mut self, pc: usize) -> Result<(), LiftError> {
        let p = self.p;
        let inst = &p.instructions[pc];
        use Opcode as O;
        match inst.opcode {
            O::Nop => return Ok(()),
            O::Kill | O::Demote => {
                let t = self.inst_cond(pc, 0).unwrap_or_else(|| self.bconst(true));
                let k = self.get(Var::Killed);
                let k = self.bor(k, t);
                self.set(Var::Killed, k);
                return Ok(());
            }
            O::KillIf => {
                let z = self.fconst(0.0);
                let mut any = None;
                for c in 0..4 {
                    let x = self.srcf(pc, 0, c);
                    let lt = self.fcmp(FCmp::Lt, x, z);
                    any = Some(match any {
                        Some(a) => self.bor(a, lt),
                        None => lt,
                    });
                }
                let mut t = any.unwrap_or_else(|| self.bconst(false));
                if let Some(c) = self.inst_cond(pc, 0) {
                    t = self.band(t, c);
                }
                let k = self.get(Var::Killed);
                let k = self.bor(k, t);
                self.set(Var::Killed, k);
                return Ok(());
            }
            O::Emit | O::EndPrim => {
                let stream = if inst.src.is_empty() {
                    self.iconst(0)
                } else {
                    self.srci(pc, 0, 0)
                };
                let emit = inst.opcode == O::Emit;
                let body = |s: &mut Self| {
                    if emit {
                        let mut args = s.output_values();
                        args.push(stream);
                        s.emit(Op::Emit, args, &[]);
                    } else {
                        s.emit(Op::EndPrim, vec![stream], &[]);
                    }
                    Ok(super::Reach::Live)
                };
                match self.inst_cond(pc, 0) {
                    None => {
                        body(self)?;
                    }
                    Some(c) => {
                        self.build_if(c, body, |_| Ok(super::Reach::Live))?;
                    }
                }
                return Ok(());
            }
            O::Pusha => {
                let a = self.stack_array();
                let depth = self.get(Var::StackDepth);
                let max = self.iconst(STACK_DEPTH);
                let room = self.icmp(ICmp::ULt, depth, max);
                let go = match self.inst_cond(pc, 0) {
                    Some(c) => self.band(room, c),
                    None => room,
                };
                // A push beyond the stack, or a predicated-off one, stores out of range.
                let index = self.select(go, depth, max);
                for c in 0..4u8 {
                    let v = self.src(pc, 0, c);
                    self.emit(
                        Op::ArrayStore {
                            array: a,
                            comp: c,
                            offset: 0,
                            lo: 0,
                            hi: STACK_DEPTH - 1,
                        },
                        vec![index, v],
                        &[],
                    );
                }
                let one = self.iconst(1);
                let inc = self.ibin(Binary::IAdd, depth, one);
                let d = self.select(go, inc, depth);
                self.set(Var::StackDepth, d);
                return Ok(());
            }
            op if op.is_memory() || op.info().kind == OpKind::Barrier => {
                return self.memory(pc);
            }
            op if let Some(w) = op.wide() => return self.wide(pc, w),
            _ => {}
        }
        let res = if inst.opcode.tex().is_some() {
            self.texture(pc)?
        } else {
            self.alu(pc)?
        };
        self.write_result(pc, res);
        Ok(())
    }

    fn stack_array(&self) -> u32 {
        self.f
            .arrays
            .iter()
            .position(|a| a.kind == ArrayKind::AddressStack)
            .unwrap_or(0) as u32
    }

    /// Dot product of the first `n` components of two operand component lists, accumulated
    /// left to right with each product rounded.
    fn dot(&mut self, a: &[Value], b: &[Value], n: usize) -> Value {
        let mut acc = self.fbin(Binary::FMul, a[0], b[0]);
        for c in 1..n {
            let m = self.fbin(Binary::FMul, a[c], b[c]);
            acc = self.fbin(Binary::FAdd, acc, m);
        }
        acc
    }

    fn srcs_f(&mut self, pc: usize, k: usize, n: u8) -> Vec<Value> {
        (0..n).map(|c| self.srcf(pc, k, c)).collect()
    }

    /// An arithmetic instruction's result per component (only the written ones are computed).
    fn alu(&mut self, pc: usize) -> Result<[Option<Value>; 4], LiftError> {
        let p = self.p;
        let inst = &p.instructions[pc];
        let mask = inst.dst.first().map_or(0, |d| d.write_mask.0);
        let need = |c: u8| mask & (1 << c) != 0;
        use Binary as B;
        use Opcode as O;
        use Unary as U;
        let mut res: [Option<Value>; 4] = [None; 4];
        macro_rules! each {
            (|$c:ident| $e:expr) => {
                for $c in 0..4u8 {
                    if need($c) {
                        res[$c as usize] = Some($e);
                    }
                }
            };
        }
        macro_rules! rep {
            ($e:expr) => {{
                if mask != 0 {
                    let v = $e;
                    for c in 0..4u8 {
                        if need(c) {
                            res[c as usize] = Some(v);
                        }
                    }
                }
            }};
        }
        let fun = |s: &mut Self, u: U, c: u8| {
            let x = s.srcf(pc, 0, c);
            s.un(u, x)
        };
        let iun = |s: &mut Self, u: U, c: u8| {
            let x = s.srci(pc, 0, c);
            s.un(u, x)
        };
        let fbin = |s: &mut Self, b: B, c: u8| {
            let (x, y) = (s.src(pc, 0, c), s.src(pc, 1, c));
            s.fbin(b, x, y)
        };
        let ibin = |s: &mut Self, b: B, c: u8| {
            let (x, y) = (s.src(pc, 0, c), s.src(pc, 1, c));
            s.ibin(b, x, y)
        };
        let fset = |s: &mut Self, k: FCmp, c: u8, int: bool| {
            let (x, y) = (s.src(pc, 0, c), s.src(pc, 1, c));
            let t = s.fcmp(k, x, y);
            s.un(if int { U::BoolToInt } else { U::BoolToFloat }, t)
        };
        let iset = |s: &mut Self, k: ICmp, c: u8| {
            let (x, y) = (s.src(pc, 0, c), s.src(pc, 1, c));
            let t = s.icmp(k, x, y);
            s.un(U::BoolToInt, t)
        };
        let one = self.fconst(ONE);
        let zero = self.fconst(0.0);
        match inst.opcode {
            O::Mov | O::Swz | O::Uarl | O::InterpCentroid | O::InterpSample => {
                each!(|c| self.src(pc, 0, c))
            }
            O::Abs => each!(|c| fun(self, U::FAbs, c)),
            O::Negate => each!(|c| fun(self, U::FNeg, c)),
            O::Arl => each!(|c| fun(self, U::FloorToInt, c)),
            O::Arr => each!(|c| {
                let x = self.srcf(pc, 0, c);
                let h = self.fconst(0.5);
                let s = self.bin(B::FAdd, x, h);
                self.un(U::FloorToInt, s)
            }),
            O::Ara => each!(|c| {
                let (a, b) = if c % 2 == 0 { (0, 2) } else { (1, 3) };
                let (x, y) = (self.src(pc, 0, a), self.src(pc, 0, b));
                self.ibin(B::IAdd, x, y)
            }),
            O::Add => each!(|c| fbin(self, B::FAdd, c)),
            O::Sub => each!(|c| fbin(self, B::FSub, c)),
            O::Mul => each!(|c| fbin(self, B::FMul, c)),
            O::Div => each!(|c| fbin(self, B::FDiv, c)),
            O::Min => each!(|c| fbin(self, B::FMin, c)),
            O::Max => each!(|c| fbin(self, B::FMax, c)),
            O::Pow => rep!({
                let (x, y) = (self.src(pc, 0, 0), self.src(pc, 1, 0));
                self.fbin(B::FPow, x, y)
            }),
            O::Mad => each!(|c| {
                let (a, b, d) = (self.src(pc, 0, c), self.src(pc, 1, c), self.src(pc, 2, c));
                let m = self.fbin(B::FMul, a, b);
                self.fbin(B::FAdd, m, d)
            }),
            O::Fma => each!(|c| {
                let (a, b, d) = (
                    self.srcf(pc, 0, c),
                    self.srcf(pc, 1, c),
                    self.srcf(pc, 2, c),
                );
                self.emit1(Op::Nary(Nary::Fma), vec![a, b, d], Type::F32)
            }),
            O::Lrp => each!(|c| {
                let (a, b, d) = (self.src(pc, 0, c), self.src(pc, 1, c), self.src(pc, 2, c));
                let diff = self.fbin(B::FSub, b, d);
                let m = self.fbin(B::FMul, a, diff);
                self.fbin(B::FAdd, m, d)
            }),
            O::Clamp => each!(|c| {
                let (v, lo, hi) = (self.src(pc, 0, c), self.src(pc, 1, c), self.src(pc, 2, c));
                let m = self.fbin(B::FMax, v, lo);
                self.fbin(B::FMin, m, hi)
            }),
            O::Frc => each!(|c| {
                let x = self.srcf(pc, 0, c);
                let fl = self.un(U::FFloor, x);
                self.bin(B::FSub, x, fl)
            }),
            O::Flr => each!(|c| fun(self, U::FFloor, c)),
            O::Ceil => each!(|c| fun(self, U::FCeil, c)),
            O::Trunc => each!(|c| fun(self, U::FTrunc, c)),
            O::Round => each!(|c| fun(self, U::FRound, c)),
            O::Ssg => each!(|c| fun(self, U::FSign, c)),
            O::Rcp => rep!({
                let x = self.src(pc, 0, 0);
                self.fbin(B::FDiv, one, x)
            }),
            O::Rsq => rep!({
                let x = fun(self, U::FSqrt, 0);
                self.bin(B::FDiv, one, x)
            }),
            O::Sqrt => rep!(fun(self, U::FSqrt, 0)),
            O::Ex2 => rep!(fun(self, U::FExp2, 0)),
            O::Lg2 => rep!(fun(self, U::FLg2, 0)),
            O::Sin => rep!(fun(self, U::FSin, 0)),
            O::Cos => rep!(fun(self, U::FCos, 0)),
            O::Rcc => rep!({
                let x = self.src(pc, 0, 0);
                let r = self.fbin(B::FDiv, one, x);
                let (lo, hi) = (self.fconst(5.42101e-20), self.fconst(1.884467e19));
                let (nlo, nhi) = (self.fconst(-5.42101e-20), self.fconst(-1.884467e19));
                let pos = self.fcmp(FCmp::Gt, r, zero);
                let a = self.bin(B::FMax, r, lo);
                let a = self.bin(B::FMin, a, hi);
                let b = self.bin(B::FMax, r, nhi);
                let b = self.bin(B::FMin, b, nlo);
                self.select(pos, a, b)
            }),
            O::Scs => {
                if need(0) {
                    res[0] = Some(fun(self, U::FCos, 0));
                }
                if need(1) {
                    res[1] = Some(fun(self, U::FSin, 0));
                }
                res[2] = Some(zero);
                res[3] = Some(one);
            }
            O::Exp => {
                let x = self.srcf(pc, 0, 0);
                let fl = self.un(U::FFloor, x);
                if need(0) {
                    res[0] = Some(self.un(U::FExp2, fl));
                }
                if need(1) {
                    res[1] = Some(self.bin(B::FSub, x, fl));
                }
                if need(2) {
                    res[2] = Some(self.un(U::FExp2, x));
                }
                res[3] = Some(one);
            }
            O::Log => {
                let x = self.srcf(pc, 0, 0);
                let ax = self.un(U::FAbs, x);
                let lg = self.un(U::FLg2, ax);
                let fl = self.un(U::FFloor, lg);
                res[0] = Some(fl);
                if need(1) {
                    let e = self.un(U::FExp2, fl);
                    res[1] = Some(self.bin(B::FDiv, ax, e));
                }
                res[2] = Some(lg);
                res[3] = Some(one);
            }
            O::Lit => {
                res[0] = Some(one);
                res[3] = Some(one);
                if need(1) {
                    let x = self.srcf(pc, 0, 0);
                    res[1] = Some(self.bin(B::FMax, x, zero));
                }
                if need(2) {
                    let (x, y, w) = (
                        self.srcf(pc, 0, 0),
                        self.srcf(pc, 0, 1),
                        self.srcf(pc, 0, 3),
                    );
                    let base = self.bin(B::FMax, y, zero);
                    let (lo, hi) = (self.fconst(-128.0), self.fconst(128.0));
                    let e = self.bin(B::FMax, w, lo);
                    let e = self.bin(B::FMin, e, hi);
                    let pw = self.bin(B::FPow, base, e);
                    let pos = self.fcmp(FCmp::Gt, x, zero);
                    res[2] = Some(self.select(pos, pw, zero));
                }
            }
            O::Dp2 | O::Dp3 | O::Dp4 => rep!({
                let n = match inst.opcode {
                    O::Dp2 => 2,
                    O::Dp3 => 3,
                    _ => 4,
                };
                let (a, b) = (self.srcs_f(pc, 0, n), self.srcs_f(pc, 1, n));
                self.dot(&a, &b, n as usize)
            }),
            O::Dph => rep!({
                let (a, b) = (self.srcs_f(pc, 0, 3), self.srcs_f(pc, 1, 3));
                let d = self.dot(&a, &b, 3);
                let w = self.srcf(pc, 1, 3);
                self.bin(B::FAdd, d, w)
            }),
            O::Dp2a => rep!({
                let (a, b) = (self.srcs_f(pc, 0, 2), self.srcs_f(pc, 1, 2));
                let d = self.dot(&a, &b, 2);
                let x = self.srcf(pc, 2, 0);
                self.bin(B::FAdd, d, x)
            }),
            O::Dst => {
                res[0] = Some(one);
                if need(1) {
                    let (a, b) = (self.src(pc, 0, 1), self.src(pc, 1, 1));
                    res[1] = Some(self.fbin(B::FMul, a, b));
                }
                if need(2) {
                    res[2] = Some(self.src(pc, 0, 2));
                }
                if need(3) {
                    res[3] = Some(self.src(pc, 1, 3));
                }
            }
            O::Xpd => {
                for (c, (i, j)) in [(1, 2), (2, 0), (0, 1)].into_iter().enumerate() {
                    if need(c as u8) {
                        let (ai, bj, bi, aj) = (
                            self.srcf(pc, 0, i),
                            self.srcf(pc, 1, j),
                            self.srcf(pc, 1, i),
                            self.srcf(pc, 0, j),
                        );
                        let p1 = self.bin(B::FMul, ai, bj);
                        let p2 = self.bin(B::FMul, bi, aj);
                        res[c] = Some(self.bin(B::FSub, p1, p2));
                    }
                }
                res[3] = Some(one);
            }
            O::Nrm | O::Nrm4 => {
                let n = if inst.opcode == O::Nrm { 3 } else { 4 };
                if (0..n).any(need) {
                    let s = self.srcs_f(pc, 0, n);
                    let len = self.dot(&s, &s, n as usize);
                    let sq = self.un(U::FSqrt, len);
                    let r = self.bin(B::FDiv, one, sq);
                    for c in 0..n {
                        if need(c) {
                            res[c as usize] = Some(self.bin(B::FMul, s[c as usize], r));
                        }
                    }
                }
                for c in n..4 {
                    res[c as usize] = Some(one);
                }
            }
            O::Rfl => {
                if (0..3).any(need) {
                    let (a, b) = (self.srcs_f(pc, 0, 3), self.srcs_f(pc, 1, 3));
                    let d = self.dot(&a, &b, 3);
                    let l = self.dot(&a, &a, 3);
                    let two = self.fconst(2.0);
                    let d2 = self.bin(B::FMul, two, d);
                    let k = self.bin(B::FDiv, d2, l);
                    for c in 0..3 {
                        if need(c as u8) {
                            let m = self.bin(B::FMul, k, a[c]);
                            res[c] = Some(self.bin(B::FSub, m, b[c]));
                        }
                    }
                }
                res[3] = Some(one);
            }
            O::X2d => {
                let row = |s: &mut Self, i: u8, u: u8, v: u8| {
                    let (s0, s10, s2u, s11, s2v) = (
                        s.srcf(pc, 0, i),
                        s.srcf(pc, 1, 0),
                        s.srcf(pc, 2, u),
                        s.srcf(pc, 1, 1),
                        s.srcf(pc, 2, v),
                    );
                    let m1 = s.bin(B::FMul, s10, s2u);
                    let a = s.bin(B::FAdd, s0, m1);
                    let m2 = s.bin(B::FMul, s11, s2v);
                    s.bin(B::FAdd, a, m2)
                };
                if need(0) || need(2) {
                    let rx = row(self, 0, 0, 1);
                    res[0] = Some(rx);
                    res[2] = Some(rx);
                }
                if need(1) || need(3) {
                    let ry = row(self, 1, 2, 3);
                    res[1] = Some(ry);
                    res[3] = Some(ry);
                }
            }
            O::M4x3 | O::M3x4 | O::M3x3 | O::M3x2 => {
                let (n, rows) = match inst.opcode {
                    O::M4x3 => (4, 3),
                    O::M3x4 => (3, 4),
                    O::M3x3 => (3, 3),
                    _ => (3, 2),
                };
                let v = self.srcs_f(pc, 0, n);
                for k in 0..4u8 {
                    if !need(k) {
                        continue;
                    }
                    if k >= rows {
                        res[k as usize] = Some(zero);
                        continue;
                    }
                    let mut r = inst.src[1].clone();
                    r.register.index.offset += k as i32;
                    let row: Vec<Value> = (0..n)
                        .map(|c| {
                            let x = self.fetch(pc, &r, c);
                            self.as_f(x)
                        })
                        .collect();
                    res[k as usize] = Some(self.dot(&v, &row, n as usize));
                }
            }
            O::Slt => each!(|c| fset(self, FCmp::Lt, c, false)),
            O::Sge => each!(|c| fset(self, FCmp::Ge, c, false)),
            O::Sgt => each!(|c| fset(self, FCmp::Gt, c, false)),
            O::Sle => each!(|c| fset(self, FCmp::Le, c, false)),
            O::Seq => each!(|c| fset(self, FCmp::Eq, c, false)),
            O::Sne => each!(|c| fset(self, FCmp::Ne, c, false)),
            O::Sfl => each!(|_c| zero),
            O::Str => each!(|_c| one),
            O::Fslt => each!(|c| fset(self, FCmp::Lt, c, true)),
            O::Fsge => each!(|c| fset(self, FCmp::Ge, c, true)),
            O::Fseq => each!(|c| fset(self, FCmp::Eq, c, true)),
            O::Fsne => each!(|c| fset(self, FCmp::Ne, c, true)),
            O::Cmp => each!(|c| {
                let (k, t, e) = (self.src(pc, 0, c), self.src(pc, 1, c), self.src(pc, 2, c));
                let lt = self.fcmp(FCmp::Lt, k, zero);
                self.select(lt, t, e)
            }),
            O::Cnd | O::Cnd0 => each!(|c| {
                let (t, e, k) = (self.src(pc, 0, c), self.src(pc, 1, c), self.src(pc, 2, c));
                let cond = if inst.opcode == O::Cnd {
                    let h = self.fconst(0.5);
                    self.fcmp(FCmp::Gt, k, h)
                } else {
                    self.fcmp(FCmp::Ge, k, zero)
                };
                self.select(cond, t, e)
            }),
            O::Ucmp => each!(|c| {
                let (k, t, e) = (self.src(pc, 0, c), self.src(pc, 1, c), self.src(pc, 2, c));
                let iz = self.iconst(0);
                let nz = self.icmp(ICmp::Ne, k, iz);
                self.select(nz, t, e)
            }),
            O::Ddx | O::Ddy | O::DdxFine | O::DdyFine => each!(|c| {
                let axis = if matches!(inst.opcode, O::Ddx | O::DdxFine) {
                    Axis::X
                } else {
                    Axis::Y
                };
                let fine = matches!(inst.opcode, O::DdxFine | O::DdyFine);
                let x = self.srcf(pc, 0, c);
                self.derivative(axis, fine, x)
            }),
            O::I2f => each!(|c| iun(self, U::I2F, c)),
            O::U2f => each!(|c| iun(self, U::U2F, c)),
            O::F2i => each!(|c| fun(self, U::F2I, c)),
            O::F2u => each!(|c| fun(self, U::F2U, c)),
            O::Ldexp => each!(|c| {
                let (x, e) = (self.srcf(pc, 0, c), self.srci(pc, 1, c));
                self.bin(B::Ldexp, x, e)
            }),
            O::Not => each!(|c| iun(self, U::Not, c)),
            O::And => each!(|c| ibin(self, B::And, c)),
            O::Or => each!(|c| ibin(self, B::Or, c)),
            O::Xor => each!(|c| ibin(self, B::Xor, c)),
            O::Shl => each!(|c| ibin(self, B::Shl, c)),
            O::Ishr => each!(|c| ibin(self, B::ShrS, c)),
            O::Ushr => each!(|c| ibin(self, B::ShrU, c)),
            O::Uadd => each!(|c| ibin(self, B::IAdd, c)),
            O::Umul => each!(|c| ibin(self, B::IMul, c)),
            O::Umad => each!(|c| {
                let m = ibin(self, B::IMul, c);
                let d = self.src(pc, 2, c);
                self.ibin(B::IAdd, m, d)
            }),
            O::ImulHi => each!(|c| ibin(self, B::IMulHiS, c)),
            O::UmulHi => each!(|c| ibin(self, B::IMulHiU, c)),
            O::Idiv => each!(|c| ibin(self, B::IDivS, c)),
            O::Udiv => each!(|c| ibin(self, B::IDivU, c)),
            O::Umod => each!(|c| ibin(self, B::IRemU, c)),
            O::Mod => each!(|c| ibin(self, B::IRemS, c)),
            O::Imax => each!(|c| ibin(self, B::IMaxS, c)),
            O::Imin => each!(|c| ibin(self, B::IMinS, c)),
            O::Umax => each!(|c| ibin(self, B::IMaxU, c)),
            O::Umin => each!(|c| ibin(self, B::IMinU, c)),
            O::Ineg => each!(|c| iun(self, U::INeg, c)),
            O::Iabs => each!(|c| iun(self, U::IAbs, c)),
            O::Issg => each!(|c| iun(self, U::ISign, c)),
            O::Islt => each!(|c| iset(self, ICmp::SLt, c)),
            O::Isge => each!(|c| iset(self, ICmp::SGe, c)),
            O::Uslt => each!(|c| iset(self, ICmp::ULt, c)),
            O::Usge => each!(|c| iset(self, ICmp::UGe, c)),
            O::Useq => each!(|c| iset(self, ICmp::Eq, c)),
            O::Usne => each!(|c| iset(self, ICmp::Ne, c)),
            O::Sad => each!(|c| {
                let d = ibin(self, B::UAbsDiff, c);
                let e = self.src(pc, 2, c);
                self.ibin(B::IAdd, d, e)
            }),
            O::Ibfe | O::Ubfe => each!(|c| {
                let (a, b, d) = (
                    self.srci(pc, 0, c),
                    self.srci(pc, 1, c),
                    self.srci(pc, 2, c),
                );
                let op = if inst.opcode == O::Ibfe {
                    Nary::Ibfe
                } else {
                    Nary::Ubfe
                };
                self.emit1(Op::Nary(op), vec![a, b, d], Type::I32)
            }),
            O::Bfi => each!(|c| {
                let args = (0..4).map(|k| self.srci(pc, k, c)).collect();
                self.emit1(Op::Nary(Nary::Bfi), args, Type::I32)
            }),
            O::Brev => each!(|c| iun(self, U::BitRev, c)),
            O::Popc => each!(|c| iun(self, U::Popcount, c)),
            O::Lsb => each!(|c| iun(self, U::FindLsb, c)),
            O::Imsb => each!(|c| iun(self, U::FindMsbS, c)),
            O::Umsb => each!(|c| iun(self, U::FindMsbU, c)),
            O::Pk2h | O::Pk2us | O::Pk4b | O::Pk4ub => rep!({
                let (kind, n) = match inst.opcode {
                    O::Pk2h => (Pack::Half2x16, 2),
                    O::Pk2us => (Pack::Unorm2x16, 2),
                    O::Pk4b => (Pack::Snorm4x8, 4),
                    _ => (Pack::Unorm4x8, 4),
                };
                let args = self.srcs_f(pc, 0, n);
                self.emit1(Op::Pack(kind), args, Type::I32)
            }),
            O::Up2h | O::Up2us | O::Up4b | O::Up4ub => {
                if mask != 0 {
                    let kind = match inst.opcode {
                        O::Up2h => Pack::Half2x16,
                        O::Up2us => Pack::Unorm2x16,
                        O::Up4b => Pack::Snorm4x8,
                        _ => Pack::Unorm4x8,
                    };
                    let x = self.srci(pc, 0, 0);
                    let i = self.emit(Op::Unpack(kind), vec![x], &[Type::F32; 4]);
                    let r = self.f.insts[i].results.clone();
                    res = std::array::from_fn(|c| Some(r[c]));
                }
            }
            O::Popa => {
                let a = self.stack_array();
                let depth = self.get(Var::StackDepth);
                let iz = self.iconst(0);
                let nonempty = self.icmp(ICmp::ULt, iz, depth);
                let go = match self.inst_cond(pc, 0) {
                    Some(c) => self.band(nonempty, c),
                    None => nonempty,
                };
                let ione = self.iconst(1);
                let below = self.ibin(B::ISub, depth, ione);
                let top = self.select(go, below, depth);
                for c in 0..4u8 {
                    let v = self.emit1(
                        Op::ArrayLoad {
                            array: a,
                            comp: c,
                            offset: 0,
                            lo: 0,
                            hi: STACK_DEPTH - 1,
                        },
                        vec![top],
                        Type::I32,
                    );
                    let ic = self.iconst(0);
                    res[c as usize] = Some(self.select(go, v, ic));
                }
                self.set(Var::StackDepth, top);
            }
            O::ReadHelper => rep!({
                let h = self.emit1(Op::Helper, vec![], Type::Bool);
                self.un(U::BoolToInt, h)
            }),
            O::InterpOffset => each!(|c| {
                let v = self.srcf(pc, 0, c);
                let (ox, oy) = (self.srcf(pc, 1, 0), self.srcf(pc, 1, 1));
                let dx = self.derivative(Axis::X, true, v);
                let dy = self.derivative(Axis::Y, true, v);
                let m1 = self.bin(B::FMul, dx, ox);
                let a = self.bin(B::FAdd, m1, v);
                let m2 = self.bin(B::FMul, dy, oy);
                self.bin(B::FAdd, m2, a)
            }),
            O::FbFetch => each!(|c| self.emit1(Op::ClearColor { comp: c }, vec![], Type::F32)),
            other => {
                return Err(self.unsupported(
                    pc,
                    other.name(),
                    "the lifter has no expansion for it",
                ));
            }
        }
        Ok(res)
    }

    /// A derivative of `x` (0 outside fragment shaders).
    fn derivative(&mut self, axis: Axis, fine: bool, x: Value) -> Value {
        if self.p.processor != Processor::Fragment {
            return self.fconst(0.0);
        }
        self.emit1(Op::Derivative { axis, fine }, vec![x], Type::F32)
    }

    /// A texture instruction: the four components of every non-resource source, then the
    /// first texture offset's three components (read raw, as the interpreter).
    fn texture(&mut self, pc: usize) -> Result<[Option<Value>; 4], LiftError> {
        let p = self.p;
        let inst = &p.instructions[pc];
        let binding = p
            .texture_binding(inst)
            .map_err(|why| self.unsupported(pc, inst.opcode.name(), why))?;
        let offsets = inst.tex_offsets.len().min(1) as u8;
        let (op, sources) = crate::ir::TexOp::from_tgsi(inst.opcode, binding, offsets)
            .ok_or_else(|| self.unsupported(pc, inst.opcode.name(), "not a texture operation"))?;
        let mut args = Vec::with_capacity(sources.len());
        for a in sources {
            args.push(match a {
                TexArg::Src { src, comp } => self.src(pc, src as usize, comp),
                TexArg::Offset { offset, comp } => {
                    let o = &inst.tex_offsets[offset as usize];
                    let r = Register::new(o.file, o.index);
                    self.read_reg(pc, &r, o.swizzle[comp as usize].index() as u8)
                }
                TexArg::Zero => self.iconst(0),
            });
        }
        let ty = if op.integer_results() {
            Type::I32
        } else {
            Type::F32
        };
        let op = Op::Texture(Box::new(op));
        let i = self.emit(op, args, &[ty; 4]);
        let r = self.f.insts[i].results.clone();
        Ok(std::array::from_fn(|c| Some(r[c])))
    }
}
