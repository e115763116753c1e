//! Lowering of IR instructions to vector code (or host calls for what has no vector
//! instruction), with the interpreter's exact semantics under DAZ/FTZ.

use super::{L, Lower, flags, vty};
use crate::back::cranelift::{JitError, MathMode, vmath};
use crate::back::host::HostOp;
use crate::ir::{self, Binary, FCmp, ICmp, Nary, Op, Unary};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{InstBuilder, Value, types};
use std::mem::offset_of;

impl Lower<'_, '_> {
    /// Stores vectors to the scratch area at word `at` (`lanes` words per operand).
    fn scratch_store(&mut self, at: usize, l: &L) {
        for (k, &v) in l.iter().enumerate() {
            let v = self.bitcast(v, types::I32X4);
            self.b
                .ins()
                .stack_store(types::I64, v, self.scratch, ((at + 4 * k) * 4) as i32);
        }
    }

    fn scratch_load(&mut self, at: usize) -> L {
        (0..self.k)
            .map(|k| {
                self.b.ins().stack_load(
                    types::I64,
                    types::I32X4,
                    self.scratch,
                    ((at + 4 * k) * 4) as i32,
                )
            })
            .collect()
    }

    fn scratch_addr(&mut self, at: usize) -> Value {
        self.b
            .ins()
            .stack_addr(types::I64, self.scratch, (at * 4) as i32)
    }

    /// Evaluates `op` per lane on the host ([`HostOp`]); returns `outputs` results.
    fn host(&mut self, op: HostOp, args: &[L], outputs: usize) -> Vec<L> {
        let n = self.lanes();
        for (a, l) in args.iter().enumerate() {
            self.scratch_store(a * n, l);
        }
        let ptrs: Vec<Value> = (0..5).map(|a| self.scratch_addr(a * n)).collect();
        let code = self.b.ins().iconst(types::I32, op.code() as i64);
        let lanes = self.b.ins().iconst(types::I32, n as i64);
        let call_args = [code, ptrs[0], ptrs[1], ptrs[2], ptrs[3], ptrs[4], lanes];
        self.b.ins().call(self.host_op, &call_args);
        (0..outputs)
            .map(|o| self.scratch_load((4 + o) * n))
            .collect()
    }

    fn map1(&mut self, a: &L, mut f: impl FnMut(&mut Self, Value) -> Value) -> L {
        a.iter().map(|&x| f(self, x)).collect()
    }

    fn map2(&mut self, a: &L, c: &L, mut f: impl FnMut(&mut Self, Value, Value) -> Value) -> L {
        a.iter().zip(c).map(|(&x, &y)| f(self, x, y)).collect()
    }

    fn fsplat(&mut self, x: f32) -> Value {
        self.vconst(types::F32X4, [x.to_bits(); 4])
    }

    /// `x + (−0)`: under DAZ a denormal reads as zero, so this flushes it (and keeps ±0).
    fn flush(&mut self, x: Value) -> Value {
        let nz = self.fsplat(-0.0);
        self.b.ins().fadd(x, nz)
    }

    /// `fminf`/`fmaxf` as the interpreter: the non-NaN operand, `x` when equal; flushed.
    /// `fminf`/`fmaxf` as the interpreter: the non-NaN operand, `x` when equal; flushed.
    /// `y_number`: y is a constant that is not NaN (no NaN test); `normal`: neither operand
    /// can be a denormal (no flush).
    fn fminmax(&mut self, x: Value, y: Value, max: bool, y_number: bool, normal: bool) -> Value {
        let cc = if max {
            FloatCC::GreaterThanOrEqual
        } else {
            FloatCC::LessThanOrEqual
        };
        let c = self.b.ins().fcmp(cc, x, y);
        let c = if y_number {
            c
        } else {
            let ynan = self.b.ins().fcmp(FloatCC::Unordered, y, y);
            let c = self.b.ins().bor(c, ynan);
            self.lane_mask(c)
        };
        let c = self.bitcast(c, types::F32X4);
        let r = self.b.ins().bitselect(c, x, y);
        if normal { r } else { self.flush(r) }
    }

    /// Whether an IR value can never hold a denormal (an SSE arithmetic result under FTZ, or a
    /// constant that is not one).
    fn never_denormal(&self, v: ir::Value) -> bool {
        self.arith[v.index()] != crate::back::nan::Class::Exact
            || self
                .f
                .const_value(v)
                .is_some_and(|c| !f32::from_bits(c).is_subnormal())
    }

    fn fcmp_cc(k: FCmp) -> FloatCC {
        match k {
            FCmp::Lt => FloatCC::LessThan,
            FCmp::Le => FloatCC::LessThanOrEqual,
            FCmp::Gt => FloatCC::GreaterThan,
            FCmp::Ge => FloatCC::GreaterThanOrEqual,
            FCmp::Eq => FloatCC::Equal,
            FCmp::Ne => FloatCC::NotEqual,
        }
    }

    fn icmp_cc(k: ICmp) -> IntCC {
        match k {
            ICmp::Eq => IntCC::Equal,
            ICmp::Ne => IntCC::NotEqual,
            ICmp::SLt => IntCC::SignedLessThan,
            ICmp::SGe => IntCC::SignedGreaterThanOrEqual,
            ICmp::ULt => IntCC::UnsignedLessThan,
            ICmp::UGe => IntCC::UnsignedGreaterThanOrEqual,
        }
    }

    /// A quad derivative: `pick(a) − pick(b)` with lane patterns `a`, `b`.
    fn quad_diff(&mut self, v: Value, a: [u8; 4], c: [u8; 4]) -> Value {
        let bytes = |p: [u8; 4]| -> Vec<u8> {
            p.iter()
                .flat_map(|&i| (0..4).map(move |j| 4 * i + j))
                .collect()
        };
        let v8 = self.bitcast(v, types::I8X16);
        let ia = self.b.func.dfg.immediates.push(bytes(a).into());
        let ic = self.b.func.dfg.immediates.push(bytes(c).into());
        let x = self.b.ins().shuffle(v8, v8, ia);
        let y = self.b.ins().shuffle(v8, v8, ic);
        let x = self.bitcast(x, types::F32X4);
        let y = self.bitcast(y, types::F32X4);
        self.b.ins().fsub(x, y)
    }

    fn unary(&mut self, u: Unary, x: ir::Value) -> L {
        use Unary as U;
        let a = match u {
            // Bitcasts expose the bits (sign operations carry the class along: nan.rs).
            U::Bitcast => self.get_bits(x),
            _ => self.get(x),
        };
        match u {
            // Sign-bit operations as one xor/and with a constant.
            U::FNeg | U::FAbs => self.map1(&a, |s, v| {
                let v = s.bitcast(v, types::I32X4);
                let r = if u == U::FNeg {
                    let m = s.vconst(types::I32X4, [0x8000_0000; 4]);
                    s.b.ins().bxor(v, m)
                } else {
                    let m = s.vconst(types::I32X4, [0x7FFF_FFFF; 4]);
                    s.b.ins().band(v, m)
                };
                s.bitcast(r, types::F32X4)
            }),
            U::FFloor => self.map1(&a, |s, v| s.b.ins().floor(v)),
            U::FCeil => self.map1(&a, |s, v| s.b.ins().ceil(v)),
            U::FTrunc => self.map1(&a, |s, v| s.b.ins().trunc(v)),
            U::FRound => self.map1(&a, |s, v| s.b.ins().nearest(v)),
            U::FSqrt => self.map1(&a, |s, v| s.b.ins().sqrt(v)),
            U::FExp2 | U::FLg2 | U::FSin | U::FCos if self.math == MathMode::Fast => {
                self.map1(&a, |s, v| match u {
                    U::FExp2 => vmath::exp2(&mut s.b, v),
                    U::FLg2 => vmath::lg2(&mut s.b, v),
                    U::FSin => vmath::sin(&mut s.b, v),
                    _ => vmath::cos(&mut s.b, v),
                })
            }
            U::FSat01 | U::FSat11 => {
                let normal = self.never_denormal(x);
                self.map1(&a, |s, v| {
                    // fmin(fmax(x, lo), 1) with x flushed; FSat11 sends NaN to 0.
                    let lo = if u == U::FSat01 { 0.0 } else { -1.0 };
                    let xf = if normal { v } else { s.flush(v) };
                    let l = s.fsplat(lo);
                    let one = s.fsplat(1.0);
                    let c = s.b.ins().fcmp(FloatCC::GreaterThanOrEqual, xf, l);
                    let c = s.bitcast(c, types::F32X4);
                    let r = s.b.ins().bitselect(c, xf, l);
                    let c = s.b.ins().fcmp(FloatCC::LessThanOrEqual, r, one);
                    let c = s.bitcast(c, types::F32X4);
                    let r = s.b.ins().bitselect(c, r, one);
                    if u == U::FSat11 {
                        let nan = s.b.ins().fcmp(FloatCC::Unordered, v, v);
                        let z = s.fsplat(0.0);
                        let nan = s.bitcast(nan, types::F32X4);
                        s.b.ins().bitselect(nan, z, r)
                    } else {
                        r
                    }
                })
            }
            U::FSign => self.map1(&a, |s, v| {
                let z = s.fsplat(0.0);
                let gt = s.b.ins().fcmp(FloatCC::GreaterThan, v, z);
                let lt = s.b.ins().fcmp(FloatCC::LessThan, v, z);
                let one = s.vconst(types::I32X4, [1f32.to_bits(); 4]);
                let mone = s.vconst(types::I32X4, [(-1f32).to_bits(); 4]);
                let p = s.b.ins().band(gt, one);
                let n = s.b.ins().band(lt, mone);
                let r = s.b.ins().bor(p, n);
                s.bitcast(r, types::F32X4)
            }),
            U::F2I => self.map1(&a, |s, v| s.b.ins().x86_cvtt2dq(types::I32X4, v)),
            U::FloorToInt => self.map1(&a, |s, v| {
                let fl = s.b.ins().floor(v);
                s.b.ins().fcvt_to_sint_sat(types::I32X4, fl)
            }),
            U::I2F => self.map1(&a, |s, v| s.b.ins().fcvt_from_sint(types::F32X4, v)),
            U::U2F => self.map1(&a, |s, v| s.b.ins().fcvt_from_uint(types::F32X4, v)),
            U::INeg => self.map1(&a, |s, v| s.b.ins().ineg(v)),
            U::IAbs => self.map1(&a, |s, v| s.b.ins().iabs(v)),
            U::ISign => self.map1(&a, |s, v| {
                let z = s.vconst(types::I32X4, [0; 4]);
                let gt = s.b.ins().icmp(IntCC::SignedGreaterThan, v, z);
                let lt = s.b.ins().icmp(IntCC::SignedLessThan, v, z);
                s.b.ins().isub(lt, gt)
            }),
            U::Not | U::BNot => self.map1(&a, |s, v| s.b.ins().bnot(v)),
            U::BoolToInt => a,
            U::BoolToFloat => self.map1(&a, |s, v| {
                let one = s.vconst(types::I32X4, [1f32.to_bits(); 4]);
                let r = s.b.ins().band(v, one);
                s.bitcast(r, types::F32X4)
            }),
            U::Bitcast => {
                let ty = if self.f.ty(x) == ir::Type::F32 {
                    types::I32X4
                } else {
                    types::F32X4
                };
                self.map1(&a, |s, v| s.bitcast(v, ty))
            }
            _ => {
                // No vector instruction: the host computes it (exactly).
                let a = self.get_bits(x);
                self.host(HostOp::Unary(u), &[a], 1).remove(0)
            }
        }
    }

    fn binary(&mut self, op: Binary, x: ir::Value, y: ir::Value) -> L {
        use Binary as B;
        let host = |s: &mut Self| {
            let (a, c) = (s.get_bits(x), s.get_bits(y));
            s.host(HostOp::Binary(op), &[a, c], 1).remove(0)
        };
        if op == B::FPow && self.math == MathMode::Exact
            || matches!(
                op,
                B::Ldexp | B::IMulHiS | B::IMulHiU | B::IDivS | B::IDivU | B::IRemS | B::IRemU
            )
        {
            return host(self);
        }
        let (a, c) = (self.get(x), self.get(y));
        match op {
            B::FAdd => self.map2(&a, &c, |s, p, q| s.b.ins().fadd(p, q)),
            B::FSub => self.map2(&a, &c, |s, p, q| s.b.ins().fsub(p, q)),
            B::FMul => self.map2(&a, &c, |s, p, q| s.b.ins().fmul(p, q)),
            B::FDiv => self.map2(&a, &c, |s, p, q| s.b.ins().fdiv(p, q)),
            B::FMin | B::FMax => {
                let y_number = self
                    .f
                    .const_value(y)
                    .is_some_and(|c| !f32::from_bits(c).is_nan());
                let normal = self.never_denormal(x) && self.never_denormal(y);
                self.map2(&a, &c, |s, p, q| {
                    s.fminmax(p, q, op == B::FMax, y_number, normal)
                })
            }
            B::FPow => self.map2(&a, &c, |s, p, q| vmath::pow(&mut s.b, p, q)),
            B::IAdd => self.map2(&a, &c, |s, p, q| s.b.ins().iadd(p, q)),
            B::ISub => self.map2(&a, &c, |s, p, q| s.b.ins().isub(p, q)),
            B::IMul => self.map2(&a, &c, |s, p, q| s.b.ins().imul(p, q)),
            B::IMinS => self.map2(&a, &c, |s, p, q| s.b.ins().smin(p, q)),
            B::IMaxS => self.map2(&a, &c, |s, p, q| s.b.ins().smax(p, q)),
            B::IMinU => self.map2(&a, &c, |s, p, q| s.b.ins().umin(p, q)),
            B::IMaxU => self.map2(&a, &c, |s, p, q| s.b.ins().umax(p, q)),
            B::And | B::BAnd => self.map2(&a, &c, |s, p, q| s.b.ins().band(p, q)),
            B::Or | B::BOr => self.map2(&a, &c, |s, p, q| s.b.ins().bor(p, q)),
            B::Xor => self.map2(&a, &c, |s, p, q| s.b.ins().bxor(p, q)),
            B::UAbsDiff => self.map2(&a, &c, |s, p, q| {
                let hi = s.b.ins().umax(p, q);
                let lo = s.b.ins().umin(p, q);
                s.b.ins().isub(hi, lo)
            }),
            B::Shl | B::ShrS | B::ShrU => match self.f.const_value(y) {
                // A constant amount shifts every lane alike.
                Some(n) => self.map1(&a, |s, p| {
                    let n = (n & 31) as i64;
                    match op {
                        B::Shl => s.b.ins().ishl_imm_u(p, n),
                        B::ShrS => s.b.ins().sshr_imm_u(p, n),
                        _ => s.b.ins().ushr_imm_u(p, n),
                    }
                }),
                None => host(self),
            },
            _ => host(self),
        }
    }

    pub(super) fn inst(&mut self, i: ir::Inst) -> Result<(), JitError> {
        let d = &self.f.insts[i];
        let args = d.args.clone();
        let results = d.results.clone();
        let out: L = match &d.op {
            Op::Const(c) => {
                let ty = self.f.ty(results[0]);
                let bits = if ty == ir::Type::Bool {
                    if *c != 0 { u32::MAX } else { 0 }
                } else {
                    *c
                };
                self.splat(vty(ty), bits)
            }
            Op::Unary(u) => self.unary(*u, args[0]),
            Op::Binary(op) => self.binary(*op, args[0], args[1]),
            Op::Nary(Nary::Fma) => {
                let (a, b, c) = (self.get(args[0]), self.get(args[1]), self.get(args[2]));
                (0..self.k)
                    .map(|k| self.b.ins().fma(a[k], b[k], c[k]))
                    .collect()
            }
            Op::Nary(n) => {
                let a: Vec<L> = args.iter().map(|&x| self.get_bits(x)).collect();
                self.host(HostOp::Nary(*n), &a, 1).remove(0)
            }
            Op::FCmp(k) => {
                let (a, c) = (self.get(args[0]), self.get(args[1]));
                let cc = Self::fcmp_cc(*k);
                self.map2(&a, &c, |s, p, q| s.b.ins().fcmp(cc, p, q))
            }
            Op::ICmp(k) => {
                let (a, c) = (self.get(args[0]), self.get(args[1]));
                let cc = Self::icmp_cc(*k);
                self.map2(&a, &c, |s, p, q| s.b.ins().icmp(cc, p, q))
            }
            Op::Select => {
                let c = self.get(args[0]);
                let r = results[0];
                let x = self.get_for(args[1], r);
                let y = self.get_for(args[2], r);
                self.blend(&c, &x, &y)
            }
            Op::Pack(p) => {
                let a: Vec<L> = args.iter().map(|&x| self.get_bits(x)).collect();
                self.host(HostOp::Pack(*p), &a, 1).remove(0)
            }
            Op::Unpack(p) => {
                let a = self.get_bits(args[0]);
                let outs = self.host(HostOp::Unpack(*p), &[a], 4);
                for (r, o) in results.iter().zip(outs) {
                    self.set(*r, o);
                }
                return Ok(());
            }
            Op::Derivative { axis, fine } => {
                let a = self.get(args[0]);
                let (p, q) = match (axis, fine) {
                    (ir::Axis::X, false) => ([1, 1, 1, 1], [0, 0, 0, 0]),
                    (ir::Axis::Y, false) => ([0, 0, 0, 0], [2, 2, 2, 2]),
                    (ir::Axis::X, true) => ([1, 1, 3, 3], [0, 0, 2, 2]),
                    (ir::Axis::Y, true) => ([0, 1, 0, 1], [2, 3, 2, 3]),
                };
                self.map1(&a, |s, v| s.quad_diff(v, p, q))
            }
            Op::MaxIterations => {
                let m = self.b.ins().load(
                    types::I64,
                    flags(),
                    self.p.args,
                    offset_of!(super::JitArgs, max_iterations) as i32,
                );
                let m = self.b.ins().ireduce(types::I32, m);
                let v = self.b.ins().splat(types::I32X4, m);
                vec![v; self.k]
            }
            Op::ClearColor { comp } => {
                let off = offset_of!(super::JitArgs, clear) + 4 * *comp as usize;
                let c = self
                    .b
                    .ins()
                    .load(types::I32, flags(), self.p.args, off as i32);
                let v = self.b.ins().splat(types::I32X4, c);
                vec![v; self.k]
            }
            Op::Helper => {
                let h = self.b.ins().load(
                    types::I64,
                    flags(),
                    self.p.args,
                    offset_of!(super::JitArgs, helpers) as i32,
                );
                let h = self.b.ins().ushr(h, self.p.lane0);
                self.mask_from_bits(h)
            }
            Op::Texture(t) => {
                let n = self.lanes();
                let a: Vec<L> = args.iter().map(|&x| self.get_bits(x)).collect();
                for (k, l) in a.iter().enumerate() {
                    self.scratch_store(k * n, l);
                }
                let index = self.textures.len();
                self.textures.push(super::super::TextureCall {
                    op: (**t).clone(),
                    args: a.len(),
                });
                let exec = self.exec();
                let mask = self.bits_of(&exec);
                let argp = self.scratch_addr(0);
                let outp = self.scratch_addr(a.len() * n);
                let idx = self.b.ins().iconst(types::I32, index as i64);
                let lane0 = self.b.ins().ireduce(types::I32, self.p.lane0);
                let lanes = self.b.ins().iconst(types::I32, n as i64);
                self.b.ins().call_indirect(
                    self.tex_sig,
                    self.p.texture,
                    &[self.p.host, idx, argp, outp, mask, lane0, lanes],
                );
                for (c, &r) in results.iter().enumerate() {
                    let v = self.scratch_load((a.len() + c) * n);
                    self.set(r, v);
                }
                return Ok(());
            }
            Op::StoreOutput { slot, comp } => {
                let v = self.get_bits(args[0]);
                let reg = self.f.outputs[*slot as usize].reg;
                self.store_output(reg, *comp, &v);
                return Ok(());
            }
            Op::Discard | Op::Exhausted => {
                let v = self.get(args[0]);
                let exec = self.exec();
                let m = self.band_l(&v, &exec);
                let bits = self.bits_of(&m);
                let bits = self.b.ins().ishl(bits, self.p.lane0);
                let off = if matches!(d.op, Op::Discard) {
                    offset_of!(super::JitArgs, killed)
                } else {
                    offset_of!(super::JitArgs, exhausted)
                } as i32;
                let old = self.b.ins().load(types::I64, flags(), self.p.args, off);
                let new = self.b.ins().bor(old, bits);
                self.b.ins().store(flags(), new, self.p.args, off);
                return Ok(());
            }
            Op::Emit | Op::EndPrim => {
                let n = self.lanes();
                let a: Vec<L> = args.iter().map(|&x| self.get_bits(x)).collect();
                for (k, l) in a.iter().enumerate() {
                    self.scratch_store(k * n, l);
                }
                let exec = self.exec();
                let mask = self.bits_of(&exec);
                let ptr = self.scratch_addr(0);
                let is_emit = self
                    .b
                    .ins()
                    .iconst(types::I32, matches!(d.op, Op::Emit) as i64);
                let count = self.b.ins().iconst(types::I32, a.len() as i64);
                let lane0 = self.b.ins().ireduce(types::I32, self.p.lane0);
                let lanes = self.b.ins().iconst(types::I32, n as i64);
                self.b.ins().call_indirect(
                    self.emit_sig,
                    self.p.emit,
                    &[self.p.host, is_emit, ptr, count, mask, lane0, lanes],
                );
                return Ok(());
            }
            Op::ArrayStore {
                array,
                comp,
                offset,
                lo,
                hi,
            } => {
                let (idx, v) = (self.get(args[0]), self.get_bits(args[1]));
                self.array_store(*array, *comp, *offset, *lo, *hi, args[0], &idx, &v);
                return Ok(());
            }
            op => self.load(op, &args, results[0]),
        };
        self.set(results[0], out);
        Ok(())
    }
}
