//! Operands: register reads and writes (variables, arrays, inputs, constants, immediates),
//! source modifiers, NV condition tests, and the result pipeline of an instruction (modulate,
//! saturate, precision, condition-code update, predicated write).

use super::scan::Layout;
use super::{Lifter, Var};
use crate::ir::*;
use crate::tgsi::*;

/// Condition registers that exist (the interpreter keeps 16).
const CC_REGS: u8 = 16;

impl Lifter<'_> {
    /// Component `c` of source `k` of instruction `pc`, modifiers applied (cached per
    /// instruction).
    pub(super) fn src(&mut self, pc: usize, k: usize, c: u8) -> Value {
        if let Some(&v) = self.src_cache.get(&(k, c)) {
            return v;
        }
        let p = self.p;
        let v = self.fetch(pc, &p.instructions[pc].src[k], c);
        self.src_cache.insert((k, c), v);
        v
    }

    /// Component `c` of source `k` as F32.
    pub(super) fn srcf(&mut self, pc: usize, k: usize, c: u8) -> Value {
        let v = self.src(pc, k, c);
        self.as_f(v)
    }

    /// Component `c` of source `k` as I32.
    pub(super) fn srci(&mut self, pc: usize, k: usize, c: u8) -> Value {
        let v = self.src(pc, k, c);
        self.as_i(v)
    }

    /// Component `c` of a source operand with its modifiers (`docs/semantics.md`, "Source
    /// operands").
    pub(super) fn fetch(&mut self, pc: usize, s: &Src, c: u8) -> Value {
        let mut v = self.select_component(pc, s, s.swizzle[c as usize]);
        if s.divide != ExtSwizzle::One {
            let d = self.select_component(pc, s, s.divide);
            v = self.fbin(Binary::FDiv, v, d);
        }
        let sign = if s.absolute {
            let x = self.as_f(v);
            v = self.un(Unary::FAbs, x);
            s.negate_after
        } else {
            s.negate ^ (s.negate_components & (1 << c) != 0) ^ s.negate_after
        };
        if sign {
            let x = self.as_f(v);
            v = self.un(Unary::FNeg, x);
        }
        if s.complement {
            let one = self.fconst(1.0);
            v = self.fbin(Binary::FSub, one, v);
        }
        if s.bias {
            let h = self.fconst(0.5);
            v = self.fbin(Binary::FSub, v, h);
        }
        if s.scale2x {
            let two = self.fconst(2.0);
            v = self.fbin(Binary::FMul, v, two);
        }
        v
    }

    fn select_component(&mut self, pc: usize, s: &Src, x: ExtSwizzle) -> Value {
        match x.component() {
            Some(k) => self.read_reg(pc, &s.register, k.index() as u8),
            None if x == ExtSwizzle::Zero => self.fconst(0.0),
            None => self.fconst(1.0),
        }
    }

    /// The run-time part (I32; 0 when direct) and the constant part of an index.
    pub(super) fn index_parts(&mut self, pc: usize, idx: &Index) -> (Value, i32) {
        let dynamic = match &idx.indirect {
            None => self.iconst(0),
            Some(ind) => {
                let v = self.read_reg(pc, &ind.register, ind.component.index() as u8);
                self.as_i(v)
            }
        };
        (dynamic, idx.offset)
    }

    /// Reads component `c` of register `r` (`docs/semantics.md`: CONST reads beyond the bound
    /// buffer give 0; other indirect reads clamp to the declared range).
    pub(super) fn read_reg(&mut self, pc: usize, r: &Register, c: u8) -> Value {
        let indirect = r.is_indirect();
        let off = r.index.offset;
        match r.file {
            File::Constant => {
                let buf = r.dimensions.first();
                if !indirect {
                    let bi = buf.map_or(0, |d| d.offset);
                    if bi < 0 || off < 0 {
                        return self.fconst(0.0);
                    }
                    self.emit1(
                        Op::Uniform {
                            buffer: bi as u32,
                            reg: off as u32,
                            comp: c,
                        },
                        vec![],
                        Type::F32,
                    )
                } else {
                    let (db, ob) = match buf {
                        Some(d) => self.index_parts(pc, d),
                        None => (self.iconst(0), 0),
                    };
                    let (di, oi) = self.index_parts(pc, &r.index);
                    self.emit1(
                        Op::UniformIndirect {
                            buffer: ob,
                            offset: oi,
                            comp: c,
                        },
                        vec![db, di],
                        Type::F32,
                    )
                }
            }
            File::Immediate => {
                let imms = &self.p.immediates;
                let read = |k: usize| {
                    imms.get(k).map(|imm| {
                        let ty = if imm.ty == ImmediateType::Float32 {
                            Type::F32
                        } else {
                            Type::I32
                        };
                        (imm.values.get(c as usize).copied().unwrap_or(0), ty)
                    })
                };
                if !indirect {
                    // A negative direct index clamps like an indirect one (as the interpreter).
                    let k = if off >= 0 { off as usize } else { 0 };
                    let (bits, ty) = read(k).unwrap_or((0, Type::F32));
                    return self.cnst(bits, ty);
                }
                if imms.is_empty() {
                    return self.fconst(0.0);
                }
                let (d, o) = self.index_parts(pc, &r.index);
                self.emit1(Op::ImmIndirect { offset: o, comp: c }, vec![d], Type::F32)
            }
            File::Input if self.p.processor == Processor::Geometry => {
                let range = self.layout.clamp_range(r);
                let (dv, ov) = match r.dimensions.first() {
                    Some(d) => self.index_parts(pc, d),
                    None => (self.iconst(0), 0),
                };
                let (dr, or) = self.index_parts(pc, &r.index);
                self.emit1(
                    Op::GsInput {
                        vertex: ov,
                        reg: or,
                        lo: range.first,
                        hi: range.last,
                        comp: c,
                    },
                    vec![dv, dr],
                    Type::F32,
                )
            }
            File::Input => {
                if !indirect {
                    if off < 0 || off as u32 >= self.layout.size(File::Input) {
                        return self.fconst(0.0);
                    }
                    return self.emit1(
                        Op::Input {
                            reg: off as u32,
                            comp: c,
                        },
                        vec![],
                        Type::F32,
                    );
                }
                let range = self.layout.clamp_range(r);
                let (d, o) = self.index_parts(pc, &r.index);
                self.emit1(
                    Op::InputIndirect {
                        offset: o,
                        lo: range.first,
                        hi: range.last,
                        comp: c,
                    },
                    vec![d],
                    Type::F32,
                )
            }
            File::SystemValue => {
                if !indirect {
                    return self.sysval(off as i64, c);
                }
                let range = self.layout.clamp_range(r);
                let (d, o) = self.index_parts(pc, &r.index);
                let vals: Vec<Value> = (range.first..=range.last)
                    .map(|k| self.sysval(k as i64, c))
                    .collect();
                self.clamped_select(d, o, range, &vals)
            }
            File::Temporary | File::Output | File::Address => {
                if !indirect {
                    return self.read_reg_direct(r.file, off as i64, c);
                }
                let range = self.layout.clamp_range(r);
                let (d, o) = self.index_parts(pc, &r.index);
                if let Some(a) = self.layout.array_of(r.file, range.first as i64) {
                    self.emit1(
                        Op::ArrayLoad {
                            array: a,
                            comp: c,
                            offset: o,
                            lo: range.first,
                            hi: range.last,
                        },
                        vec![d],
                        Type::F32,
                    )
                } else {
                    let vals: Vec<Value> = (range.first..=range.last)
                        .map(|k| self.read_reg_direct(r.file, k as i64, c))
                        .collect();
                    self.clamped_select(d, o, range, &vals)
                }
            }
            // Memory registers are refused before lifting (`memory_program`).
            File::Null
            | File::Sampler
            | File::SamplerView
            | File::Image
            | File::Buffer
            | File::Memory => self.fconst(0.0),
        }
    }

    fn sysval(&mut self, reg: i64, c: u8) -> Value {
        if reg < 0 || reg >= self.layout.size(File::SystemValue) as i64 {
            return self.fconst(0.0);
        }
        self.emit1(
            Op::SysVal {
                reg: reg as u32,
                comp: c,
            },
            vec![],
            Type::F32,
        )
    }

    /// A directly addressed TEMP, OUT or ADDR component (0 outside the file).
    pub(super) fn read_reg_direct(&mut self, file: File, index: i64, c: u8) -> Value {
        if index < 0 || index >= self.layout.size(file) as i64 {
            return self.fconst(0.0);
        }
        if let Some(a) = self.layout.array_of(file, index) {
            let z = self.iconst(0);
            let i = index as u32;
            return self.emit1(
                Op::ArrayLoad {
                    array: a,
                    comp: c,
                    offset: i as i32,
                    lo: i,
                    hi: i,
                },
                vec![z],
                Type::F32,
            );
        }
        match Layout::var(file, index as u32, c).and_then(|v| self.env.get(&v).copied()) {
            Some(v) => v,
            None => self.fconst(0.0),
        }
    }

    /// `vals[clamp(offset + d) - range.first]`, exact for any 32-bit `d` (the sum is taken in
    /// 64 bits, as the interpreter does).
    fn clamped_select(&mut self, d: Value, offset: i32, range: RegRange, vals: &[Value]) -> Value {
        let mut v = vals[0];
        for (n, k) in (range.first + 1..=range.last).enumerate() {
            let cond = match self.int_const_cmp(d, k as i64 - offset as i64, ICmp::SGe) {
                Some(c) => c,
                None => continue,
            };
            v = self.select(cond, vals[n + 1], v);
        }
        v
    }

    /// `d <op> t` for a 64-bit threshold `t`; `None` when it is false for every 32-bit `d`.
    fn int_const_cmp(&mut self, d: Value, t: i64, op: ICmp) -> Option<Value> {
        let (lo, hi) = (i32::MIN as i64, i32::MAX as i64);
        match op {
            ICmp::SGe if t <= lo => Some(self.bconst(true)),
            ICmp::SGe if t > hi => None,
            ICmp::Eq if t < lo || t > hi => None,
            _ => {
                let k = self.iconst(t as i32 as u32);
                Some(self.icmp(op, d, k))
            }
        }
    }

    /// Writes `v` to component `c` of register `r` where `cond` holds (everywhere when `None`);
    /// an indirect write outside the declared range is dropped.
    pub(super) fn write_reg(
        &mut self,
        pc: usize,
        r: &Register,
        c: u8,
        v: Value,
        cond: Option<Value>,
    ) {
        if !matches!(r.file, File::Temporary | File::Output | File::Address) {
            return;
        }
        let off = r.index.offset;
        if !r.is_indirect() {
            let index = off as i64;
            if index < 0 || index >= self.layout.size(r.file) as i64 {
                return;
            }
            if let Some(a) = self.layout.array_of(r.file, index) {
                let z = self.iconst(0);
                let i = index as u32;
                self.array_store(
                    Op::ArrayStore {
                        array: a,
                        comp: c,
                        offset: i as i32,
                        lo: i,
                        hi: i,
                    },
                    z,
                    v,
                    cond,
                );
                return;
            }
            if let Some(var) = Layout::var(r.file, index as u32, c)
                && let Some(&old) = self.env.get(&var)
            {
                let new = match cond {
                    Some(m) => self.select(m, v, old),
                    None => v,
                };
                self.set(var, new);
            }
            return;
        }
        let range = self.layout.clamp_range(r);
        let (d, o) = self.index_parts(pc, &r.index);
        if let Some(a) = self.layout.array_of(r.file, range.first as i64) {
            self.array_store(
                Op::ArrayStore {
                    array: a,
                    comp: c,
                    offset: o,
                    lo: range.first,
                    hi: range.last,
                },
                d,
                v,
                cond,
            );
            return;
        }
        for k in range.first..=range.last {
            let Some(var) = Layout::var(r.file, k, c) else {
                continue;
            };
            let Some(&old) = self.env.get(&var) else {
                continue;
            };
            let Some(mut m) = self.int_const_cmp(d, k as i64 - o as i64, ICmp::Eq) else {
                continue;
            };
            if let Some(cc) = cond {
                m = self.band(m, cc);
            }
            let new = self.select(m, v, old);
            self.set(var, new);
        }
    }

    fn array_store(&mut self, op: Op, index: Value, v: Value, cond: Option<Value>) {
        match cond {
            None => {
                self.emit(op, vec![index, v], &[]);
            }
            Some(m) => {
                let _ = self.build_if(
                    m,
                    |s| {
                        s.emit(op, vec![index, v], &[]);
                        Ok(super::Reach::Live)
                    },
                    |_| Ok(super::Reach::Live),
                );
            }
        }
    }

    /// Whether an NV condition test passes for component `c` (`None`: always).
    pub(super) fn cc_test(&mut self, t: &CondTest, c: u8) -> Option<Value> {
        if t.index >= CC_REGS {
            return None;
        }
        let v = *self
            .env
            .get(&Var::Cc(t.index, t.swizzle[c as usize].index() as u8))?;
        let z = self.fconst(0.0);
        Some(match t.mask {
            CondMask::Gt => self.fcmp(FCmp::Gt, v, z),
            CondMask::Eq => self.fcmp(FCmp::Eq, v, z),
            CondMask::Lt => self.fcmp(FCmp::Lt, v, z),
            CondMask::Un => self.fcmp(FCmp::Ne, v, v),
            CondMask::Ge => self.fcmp(FCmp::Ge, v, z),
            CondMask::Le => self.fcmp(FCmp::Le, v, z),
            CondMask::Ne => self.fcmp(FCmp::Ne, v, z),
            CondMask::Tr => return None,
            CondMask::Fl => self.bconst(false),
        })
    }

    /// The instruction-level NV condition of `pc` on component `c`.
    pub(super) fn inst_cond(&mut self, pc: usize, c: u8) -> Option<Value> {
        let t = self.p.instructions[pc].cond_test?;
        self.cc_test(&t, c)
    }

    /// Stores an instruction's results: modulate, saturate, precision, condition-code update,
    /// then the predicated write of each enabled component.
    pub(super) fn write_result(&mut self, pc: usize, res: [Option<Value>; 4]) {
        let p = self.p;
        let inst = &p.instructions[pc];
        let Some(d) = inst.dst.first() else { return };
        let cx = self.inst_cond(pc, 0);
        for c in 0..4u8 {
            if !d.write_mask.has(c as usize) {
                continue;
            }
            let Some(mut v) = res[c as usize] else {
                continue;
            };
            if d.modulate != Modulate::X1 {
                let k = self.fconst(d.modulate.factor());
                v = self.fbin(Binary::FMul, v, k);
            }
            match inst.saturate {
                Saturate::None => {}
                Saturate::ZeroOne => {
                    let x = self.as_f(v);
                    v = self.un(Unary::FSat01, x);
                }
                Saturate::MinusPlusOne => {
                    let x = self.as_f(v);
                    v = self.un(Unary::FSat11, x);
                }
            }
            match inst.precision {
                Precision::Float16 => {
                    let x = self.as_f(v);
                    v = self.un(Unary::FRoundF16, x);
                }
                Precision::Fixed12 => {
                    let x = self.as_f(v);
                    v = self.un(Unary::FRoundFx12, x);
                }
                _ => {}
            }
            let mut m = cx;
            if let Some(t) = self.inst_cond(pc, c) {
                m = Some(match m {
                    Some(x) => self.band(x, t),
                    None => t,
                });
            }
            if let Some(t) = d.cond
                && let Some(t) = self.cc_test(&t, c)
            {
                m = Some(match m {
                    Some(x) => self.band(x, t),
                    None => t,
                });
            }
            if let Some(n) = inst.cond_update
                && n < CC_REGS
                && let Some(&old) = self.env.get(&Var::Cc(n, c))
            {
                let new = match m {
                    Some(mm) => self.select(mm, v, old),
                    None => v,
                };
                self.set(Var::Cc(n, c), new);
            }
            self.write_reg(pc, &d.register, c, v, m);
        }
    }
}
