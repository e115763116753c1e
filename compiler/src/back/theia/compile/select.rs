//! Instruction selection: the optimized IR → THEIA instructions over virtual registers.
//!
//! - Every IR value lives in one lane (x, y or z) of a three-component register, or in all
//!   three (a broadcast), or is a known constant. Pure operations of the same kind whose
//!   operands sit in the same registers at distinct lanes become one vector instruction
//!   ([`Sel::vector`]): `MUL TEMP[0].xyz, IN[0], CONST[0]` is one `MUL`.
//! - A sum of three products of aligned lanes is one `DOT`; the square root of such a dot
//!   product of a register with itself is one `MAG`.
//! - Operands in different lanes are aligned by a broadcast (`COPY`, `SWIZZLE3D XXX|YYY|ZZZ`),
//!   two sums of lanes of one register by a masked `DOT`.
//! - Constants are requested per lane and packed into constant vectors, which become C1..C7
//!   (set once by USERCONSTANTS); beyond seven they are built in place (`ZERO`, `SETX/Y/Z`).
//! - Operations THEIA lacks are jump sequences on one lane (min, max, abs, comparisons,
//!   selects, saturation, truncation, rounding) or loops (square root by Newton steps).
//! - Control flow becomes jumps; `If` results, loop parameters and loop results are registers
//!   written on every path (merges).

use super::bind::Bindings;
use super::{TheiaError, at};
use crate::back::theia::isa::{ONE, Op as T, f64_to_fixed};
use crate::ir::{
    Binary, Block, Function, IfStmt, Inst, LoopStmt, Nary, Op, Stmt, Type, Unary, Value,
};
use crate::tgsi::{Opcode, Program, TextureTarget};
use std::collections::{BTreeSet, HashMap, HashSet};

/// A virtual register number.
pub(super) type V = u32;

/// A register operand.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub(super) enum Reg {
    /// A virtual register (R1..R12 after allocation).
    V(V),
    /// A fixed register (inputs, CREG_TEXTURE_COLOR, OREG_PIXEL_COLOR).
    Phys(u16),
    /// Constant vector `k` (C1 + k).
    K(u32),
    /// Address 0 (an unused operand).
    Void,
}

/// One THEIA instruction over virtual registers, or a marker.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum VInst {
    /// Type I: `op dst a b`.
    Alu { op: T, dst: Reg, a: Reg, b: Reg },
    /// Type II on `dst` (SETX/Y/Z, SWIZZLE3D): reads and writes it.
    Imm { op: T, dst: Reg, imm: u32 },
    /// A conditional jump.
    Jump { op: T, target: u32, a: Reg, b: Reg },
    /// `JMP`.
    Jmp(u32),
    /// A label.
    Label(u32),
    /// No code: the registers stay live up to here (operands of a multi-instruction sequence
    /// must not share a register with its result).
    Keep(Vec<Reg>),
    /// No code: a loop starts (liveness).
    LoopStart,
    /// No code: the loop ends.
    LoopEnd,
}

/// A line and the TGSI instruction it came from.
#[derive(Clone, Debug)]
pub(super) struct Line {
    pub inst: VInst,
    pub origin: Option<u32>,
}

/// The selected code.
#[derive(Debug)]
pub(super) struct Selection {
    /// PIXELSHADER, without its RETURN.
    pub lines: Vec<Line>,
    /// Constant vectors (C1..): a word per lane, unset lanes are 0.
    pub consts: Vec<[Option<u32>; 3]>,
    /// Virtual registers.
    pub vregs: u32,
    /// Inputs the code reads.
    pub inputs_used: BTreeSet<u32>,
}

/// Where a value is.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Loc {
    Lane(Reg, u8),
    All(Reg),
    /// A constant (IR bits and type, converted when used).
    Imm(u32, Type),
    /// IN[reg].comp, resolved when used.
    In(u32, u8),
    /// A comparison selected where its `If` uses it.
    Deferred,
}

/// An operand after resolution.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Src {
    /// A register and the lane the value is in (None: every lane).
    R(Reg, Option<u8>),
    /// A constant word.
    C(u32),
}

/// A merge target: a register every path writes before the merge point.
#[derive(Clone, Copy, Debug)]
struct Merge {
    reg: Reg,
    /// None until the first write decides; Some(None) = every lane.
    lane: Option<Option<u8>>,
    /// Readers already assume the lane (loop parameters).
    fixed: bool,
}

struct LoopCtx {
    params: Vec<usize>,
    results: Vec<usize>,
    head: u32,
    exit: u32,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum J {
    G,
    L,
    Eq,
    Ne,
    Ge,
}

fn jop(j: J, lane: u8) -> T {
    use T::*;
    let t = match j {
        J::G => [Jgx, Jgy, Jgz],
        J::L => [Jlx, Jly, Jlz],
        J::Eq => [Jeqx, Jeqy, Jeqz],
        J::Ne => [Jnex, Jney, Jnez],
        J::Ge => [Jgex, Jgey, Jgez],
    };
    t[lane as usize]
}

/// The loop budget of an invocation (DECISIONS.md §3).
const MAX_ITERATIONS: u32 = 65536;

const SWZ: [u32; 3] = [0, 1, 2]; // SWIZZLE_XXX, _YYY, _ZZZ

/// The vector operations (lane by lane, one THEIA sequence for up to three lanes).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum VOp {
    Bin(T),
    Un(T),
    Floor,
    Ceil,
    Frac,
    BNot,
    BOr,
    BoolToInt,
    I2F,
    Fma,
    Select,
}

struct Sel<'a> {
    f: &'a Function,
    p: &'a Program,
    bind: &'a Bindings,
    loc: Vec<Option<Loc>>,
    uses: Vec<u32>,
    lines: Vec<Line>,
    consts: Vec<[Option<u32>; 3]>,
    nv: V,
    nl: u32,
    origin: Option<u32>,
    done: HashSet<Inst>,
    bcast: HashMap<Value, Reg>,
    merges: Vec<Merge>,
    loops: Vec<LoopCtx>,
    /// Comparisons deferred to their `If`.
    deferred: HashMap<Value, Inst>,
    /// Lines holding a `DOT a a` whose result is the value (for `MAG`).
    dots: HashMap<Value, usize>,
    /// Square roots whose only use is a `1.0 /` (selected there, as one RSQ sequence).
    for_rsq: HashSet<Value>,
    /// Integer-typed values that hold float bits ([`float_bits`]).
    float_bits: HashSet<Value>,
    outputs: [Option<Value>; 3],
    inputs_used: BTreeSet<u32>,
    texture: Option<(u32, u32)>,
    depth: usize,
}

/// Selects THEIA code for `f` (optimized, prepared). `color` is the output slot of
/// OREG_PIXEL_COLOR.
pub(super) fn select(
    f: &Function,
    p: &Program,
    bind: &Bindings,
    color: u32,
) -> Result<Selection, TheiaError> {
    let mut s = Sel {
        f,
        p,
        bind,
        loc: vec![None; f.values.len()],
        uses: crate::opt::util::use_counts(f),
        lines: Vec::new(),
        consts: Vec::new(),
        nv: 0,
        nl: 0,
        origin: None,
        done: HashSet::new(),
        bcast: HashMap::new(),
        merges: Vec::new(),
        loops: Vec::new(),
        deferred: HashMap::new(),
        dots: HashMap::new(),
        for_rsq: HashSet::new(),
        float_bits: HashSet::new(),
        outputs: [None; 3],
        inputs_used: BTreeSet::new(),
        texture: None,
        depth: 0,
    };
    // Constants and inputs have no position: locate them all first, so that instructions
    // can group with partners whose constants come later in the block. An integer constant
    // whose bits reach the colour (through selects) holds float bits: it converts as a float.
    let floats = float_bits(f);
    s.float_bits = floats.clone();
    for (_, d) in f.insts.iter() {
        match d.op {
            Op::Const(bits) if d.results.len() == 1 => {
                let v = d.results[0];
                let ty = if floats.contains(&v) {
                    Type::F32
                } else {
                    f.ty(v)
                };
                s.loc[v.index()] = Some(Loc::Imm(bits, ty));
            }
            Op::Input { reg, comp } if d.results.len() == 1 => {
                s.loc[d.results[0].index()] = Some(Loc::In(reg, comp));
            }
            _ => {}
        }
    }
    s.block(&f.body, &[], color)?;
    s.output()?;
    s.retarget_output();
    Ok(Selection {
        lines: s.lines,
        consts: s.consts,
        vregs: s.nv,
        inputs_used: s.inputs_used,
    })
}

impl Sel<'_> {
    // ---- helpers -------------------------------------------------------------------------

    fn emit(&mut self, inst: VInst) -> usize {
        self.lines.push(Line {
            inst,
            origin: self.origin,
        });
        self.lines.len() - 1
    }

    fn alu(&mut self, op: T, dst: Reg, a: Reg, b: Reg) -> usize {
        self.emit(VInst::Alu { op, dst, a, b })
    }

    fn new_v(&mut self) -> Reg {
        self.nv += 1;
        Reg::V(self.nv - 1)
    }

    fn label(&mut self) -> u32 {
        self.nl += 1;
        self.nl - 1
    }

    fn unsupported(&self, what: impl Into<String>, why: impl Into<String>) -> TheiaError {
        TheiaError::Unsupported {
            location: at(self.p, self.origin),
            what: what.into(),
            why: why.into(),
        }
    }

    /// The TGSI opcode name of the current instruction (for messages).
    fn opname(&self) -> String {
        self.origin
            .and_then(|i| self.p.instructions.get(i as usize))
            .map_or_else(
                || "an operation".to_string(),
                |i| i.opcode.name().to_string(),
            )
    }

    /// The THEIA word of a constant.
    fn word(&self, bits: u32, ty: Type) -> Result<u32, TheiaError> {
        match ty {
            Type::I32 => Ok(bits),
            Type::Bool => Ok(if bits != 0 { ONE } else { 0 }),
            Type::F32 => {
                let x = f32::from_bits(bits);
                let x = if x.is_subnormal() { 0.0 } else { x };
                f64_to_fixed(x as f64).ok_or_else(|| TheiaError::Range {
                    location: at(self.p, self.origin),
                    value: format!("{x}"),
                })
            }
        }
    }

    fn src(&mut self, v: Value) -> Result<Src, TheiaError> {
        match self.loc[v.index()] {
            Some(Loc::Lane(r, l)) => Ok(Src::R(r, Some(l))),
            Some(Loc::All(r)) => Ok(Src::R(r, None)),
            Some(Loc::Imm(bits, ty)) => Ok(Src::C(self.word(bits, ty)?)),
            Some(Loc::In(reg, comp)) => match self.bind.register(reg) {
                Some(a) => {
                    self.inputs_used.insert(reg);
                    Ok(Src::R(Reg::Phys(a), Some(comp)))
                }
                None => Err(self.unsupported(
                    format!("reading {}", self.bind.describe(reg)),
                    "b1.2 has no register holding it (only a TEX of a texture coordinate reads \
                     CREG_TEXTURE_COLOR); bind it with --bind IN[n]=REGISTER",
                )),
            },
            Some(Loc::Deferred) => {
                // A deferred comparison used elsewhere after all: materialize it now.
                let i = self.deferred[&v];
                self.deferred.remove(&v);
                self.compare_value(i)?;
                self.src(v)
            }
            None => Err(self.unsupported(
                "a value",
                "the code generator met it before its definition (internal error)",
            )),
        }
    }

    /// A constant vector holding `lanes`; C1..C7 while they last, else built in place.
    fn konst(&mut self, lanes: [Option<u32>; 3]) -> Reg {
        let fits = |c: &[Option<u32>; 3]| (0..3).all(|k| lanes[k].is_none() || lanes[k] == c[k]);
        if let Some(k) = self.consts.iter().position(fits) {
            return Reg::K(k as u32);
        }
        let merge = |c: &[Option<u32>; 3]| {
            (0..3).all(|k| lanes[k].is_none() || c[k].is_none() || lanes[k] == c[k])
        };
        if let Some(k) = self.consts.iter().position(merge) {
            for (slot, lane) in self.consts[k].iter_mut().zip(lanes) {
                if lane.is_some() {
                    *slot = lane;
                }
            }
            return Reg::K(k as u32);
        }
        if self.consts.len() < 7 {
            self.consts.push(lanes);
            return Reg::K(self.consts.len() as u32 - 1);
        }
        // Built in place where it is used (a short live range: registers are scarcer than
        // instructions). Lanes left None are free: without a zero lane no ZERO is needed.
        let d = self.new_v();
        if lanes.contains(&Some(0)) {
            self.alu(T::Zero, d, Reg::Void, Reg::Void);
        }
        for (l, op) in [T::SetX, T::SetY, T::SetZ].into_iter().enumerate() {
            if let Some(w) = lanes[l].filter(|&w| w != 0) {
                self.emit(VInst::Imm { op, dst: d, imm: w });
            }
        }
        d
    }

    fn k_at(&mut self, w: u32, lane: Option<u8>) -> Reg {
        match lane {
            Some(l) => {
                let mut a = [None; 3];
                a[l as usize] = Some(w);
                self.konst(a)
            }
            None => self.konst([Some(w); 3]),
        }
    }

    /// The value in every lane.
    fn broadcast(&mut self, v: Value) -> Result<Reg, TheiaError> {
        if let Some(&r) = self.bcast.get(&v) {
            return Ok(r);
        }
        let r = match self.src(v)? {
            Src::R(r, None) => r,
            Src::R(r, Some(l)) => {
                let d = self.new_v();
                self.alu(T::Copy, d, r, Reg::Void);
                self.emit(VInst::Imm {
                    op: T::Swizzle3D,
                    dst: d,
                    imm: SWZ[l as usize],
                });
                d
            }
            Src::C(w) => self.konst([Some(w); 3]),
        };
        self.bcast.insert(v, r);
        Ok(r)
    }

    /// Brings `args` to one lane: the lane (None if every register operand holds its value
    /// in every lane) and each operand's register.
    fn align(&mut self, args: &[Value]) -> Result<(Option<u8>, Vec<Reg>), TheiaError> {
        let srcs = args
            .iter()
            .map(|&a| self.src(a))
            .collect::<Result<Vec<_>, _>>()?;
        let lane = srcs.iter().find_map(|s| match s {
            Src::R(_, Some(l)) => Some(*l),
            _ => None,
        });
        let mut regs = Vec::new();
        for (k, s) in srcs.iter().enumerate() {
            regs.push(match *s {
                Src::R(r, None) => r,
                Src::R(r, Some(l)) if Some(l) == lane => r,
                Src::R(..) => self.broadcast(args[k])?,
                Src::C(w) => self.k_at(w, lane),
            });
        }
        Ok((lane, regs))
    }

    fn set(&mut self, v: Value, r: Reg, lane: Option<u8>) {
        self.loc[v.index()] = Some(match lane {
            Some(l) => Loc::Lane(r, l),
            None => Loc::All(r),
        });
    }

    // ---- blocks and control flow ---------------------------------------------------------

    fn block(&mut self, b: &Block, yields: &[usize], color: u32) -> Result<(), TheiaError> {
        let saved = self.bcast.clone();
        for (k, s) in b.0.iter().enumerate() {
            match s {
                Stmt::Inst(i) => {
                    if !self.done.contains(i) {
                        self.inst(*i, &b.0[k + 1..], color)?;
                    }
                }
                Stmt::If(x) => self.if_(x, color)?,
                Stmt::Loop(l) => self.loop_(l, color)?,
                Stmt::Yield(vals) => {
                    for (slot, &v) in yields.iter().copied().zip(vals) {
                        self.write_merge(slot, v)?;
                    }
                }
                Stmt::Break(vals) => {
                    let ctx = self.loops.last().expect("break inside a loop");
                    let (slots, exit) = (ctx.results.clone(), ctx.exit);
                    for (slot, &v) in slots.into_iter().zip(vals) {
                        self.write_merge(slot, v)?;
                    }
                    self.emit(VInst::Jmp(exit));
                }
                Stmt::Continue(vals) => {
                    let ctx = self.loops.last().expect("continue inside a loop");
                    let (slots, head) = (ctx.params.clone(), ctx.head);
                    // A parallel copy: stage sources that are other parameters' registers.
                    let regs: Vec<Reg> = slots.iter().map(|&s| self.merges[s].reg).collect();
                    let mut staged = Vec::new();
                    for (k, &v) in vals.iter().enumerate() {
                        match self.src(v)? {
                            Src::R(r, l) if regs.contains(&r) && r != regs[k] => {
                                let t = self.new_v();
                                self.alu(T::Copy, t, r, Reg::Void);
                                staged.push((k, Some((t, l))));
                            }
                            _ => staged.push((k, None)),
                        }
                    }
                    for (k, st) in staged {
                        match st {
                            Some((t, l)) => self.write_merge_src(slots[k], Src::R(t, l), None)?,
                            None => self.write_merge(slots[k], vals[k])?,
                        }
                    }
                    self.emit(VInst::Jmp(head));
                }
            }
        }
        self.bcast = saved;
        Ok(())
    }

    fn write_merge(&mut self, slot: usize, v: Value) -> Result<(), TheiaError> {
        let s = self.src(v)?;
        self.write_merge_src(slot, s, Some(v))
    }

    fn write_merge_src(&mut self, slot: usize, s: Src, v: Option<Value>) -> Result<(), TheiaError> {
        let m = self.merges[slot];
        let want = match m.lane {
            None => {
                let l = match s {
                    Src::R(_, l) => l,
                    Src::C(_) => None,
                };
                self.merges[slot].lane = Some(l);
                l
            }
            Some(None) if !m.fixed => {
                // Every lane so far: a value in one lane narrows the merge to that lane.
                if let Src::R(_, Some(l)) = s {
                    self.merges[slot].lane = Some(Some(l));
                }
                match s {
                    Src::R(_, l) => l,
                    Src::C(_) => None,
                }
            }
            Some(l) => l,
        };
        let r = match s {
            Src::R(r, None) => r,
            Src::R(r, Some(l)) if Some(l) == want => r,
            Src::R(..) => match v {
                Some(v) => self.broadcast(v)?,
                None => {
                    return Err(self.unsupported(
                        "a loop parameter",
                        "it changes lanes between iterations (internal limitation)",
                    ));
                }
            },
            Src::C(w) => self.k_at(w, want),
        };
        if r != m.reg {
            self.alu(T::Copy, m.reg, r, Reg::Void);
        }
        Ok(())
    }

    fn new_merge(&mut self, fixed_lane: Option<Option<u8>>) -> usize {
        let reg = self.new_v();
        self.merges.push(Merge {
            reg,
            lane: fixed_lane,
            fixed: fixed_lane.is_some(),
        });
        self.merges.len() - 1
    }

    fn merge_loc(&mut self, slot: usize, v: Value) {
        let m = self.merges[slot];
        self.set(v, m.reg, m.lane.flatten());
    }

    fn if_(&mut self, x: &IfStmt, color: u32) -> Result<(), TheiaError> {
        let else_l = self.label();
        let end_l = self.label();
        let then_l = self.label();
        if let Some(Loc::Deferred) = self.loc[x.cond.index()] {
            let i = self.deferred.remove(&x.cond).expect("deferred comparison");
            self.origin = self.f.insts[i].origin;
            self.compare_jump(i, else_l, then_l)?;
        } else {
            match self.src(x.cond)? {
                Src::C(w) => {
                    if w == 0 {
                        self.emit(VInst::Jmp(else_l));
                    }
                }
                Src::R(r, l) => {
                    let lane = l.unwrap_or(0);
                    let z = self.k_at(0, Some(lane));
                    self.emit(VInst::Jump {
                        op: jop(J::Eq, lane),
                        target: else_l,
                        a: r,
                        b: z,
                    });
                }
            }
        }
        self.emit(VInst::Label(then_l));
        let slots: Vec<usize> = x.results.iter().map(|_| self.new_merge(None)).collect();
        self.depth += 1;
        self.block(&x.then_, &slots, color)?;
        if !matches!(x.then_.0.last(), Some(Stmt::Break(_) | Stmt::Continue(_))) {
            self.emit(VInst::Jmp(end_l));
        }
        self.emit(VInst::Label(else_l));
        self.block(&x.else_, &slots, color)?;
        self.depth -= 1;
        self.emit(VInst::Label(end_l));
        for (&slot, &r) in slots.iter().zip(&x.results) {
            self.merge_loc(slot, r);
        }
        Ok(())
    }

    fn loop_(&mut self, l: &LoopStmt, color: u32) -> Result<(), TheiaError> {
        let mut params = Vec::new();
        for &init in &l.inits {
            let lane = match self.src(init)? {
                Src::R(_, l) => l,
                Src::C(_) => None,
            };
            let slot = self.new_merge(Some(lane));
            self.write_merge(slot, init)?;
            params.push(slot);
        }
        for (&slot, &p) in params.iter().zip(&l.params) {
            self.merge_loc(slot, p);
        }
        let results: Vec<usize> = l.results.iter().map(|_| self.new_merge(None)).collect();
        let head = self.label();
        let exit = self.label();
        self.emit(VInst::LoopStart);
        self.emit(VInst::Label(head));
        self.loops.push(LoopCtx {
            params,
            results: results.clone(),
            head,
            exit,
        });
        self.depth += 1;
        self.block(&l.body, &[], color)?;
        self.depth -= 1;
        self.loops.pop();
        self.emit(VInst::LoopEnd);
        self.emit(VInst::Label(exit));
        for (&slot, &r) in results.iter().zip(&l.results) {
            self.merge_loc(slot, r);
        }
        Ok(())
    }

    // ---- instructions --------------------------------------------------------------------

    fn inst(&mut self, i: Inst, rest: &[Stmt], color: u32) -> Result<(), TheiaError> {
        let d = &self.f.insts[i];
        self.origin = d.origin;
        let r0 = d.results.first().copied();
        match &d.op {
            // Located before selection starts.
            Op::Const(_) | Op::Input { .. } => {}
            Op::MaxIterations => {
                let v = r0.expect("result");
                self.loc[v.index()] = Some(Loc::Imm(MAX_ITERATIONS, Type::I32));
            }
            Op::Texture(t) => self.texture(i, t)?,
            Op::StoreOutput { slot, comp } => {
                if *slot != color || *comp >= 3 {
                    return Ok(());
                }
                if self.depth > 0 {
                    return Err(self.unsupported(
                        "a conditional output write",
                        "outputs are written once, at the end",
                    ));
                }
                self.outputs[*comp as usize] = Some(d.args[0]);
            }
            Op::Exhausted => {}
            Op::Discard => {
                if self.f.const_value(d.args[0]) != Some(0) {
                    // The IR discards once, at the end: name the shader's first KILL.
                    if self.origin.is_none() {
                        self.origin = self
                            .p
                            .instructions
                            .iter()
                            .position(|i| matches!(i.opcode, Opcode::Kill | Opcode::KillIf))
                            .map(|k| k as u32);
                    }
                    return Err(self.unsupported(
                        self.opname(),
                        "b1.2 cannot discard a pixel: the pixel shader always writes OREG_PIXEL_COLOR",
                    ));
                }
            }
            Op::Derivative { .. } => {
                return Err(self.unsupported(
                    self.opname(),
                    "THEIA shades one pixel at a time: there are no neighbouring pixels to differentiate against",
                ));
            }
            Op::ArrayLoad { .. } | Op::ArrayStore { .. } | Op::InputIndirect { .. } => {
                return Err(self.unsupported(
                    "indirect addressing",
                    "b1.2 registers cannot be indexed at run time",
                ));
            }
            Op::UniformIndirect { .. } | Op::ImmIndirect { .. } => {
                return Err(self.unsupported(
                    "an indirectly addressed constant",
                    "b1.2 registers cannot be indexed at run time",
                ));
            }
            Op::FCmp(_) | Op::ICmp(_) => {
                let v = r0.expect("compare result");
                if self.uses[v.index()] == 1 && used_by_if(rest, v) {
                    self.loc[v.index()] = Some(Loc::Deferred);
                    self.deferred.insert(v, i);
                } else {
                    self.compare_value(i)?;
                }
            }
            Op::Unary(u) => self.unary(i, *u, rest)?,
            Op::Binary(b) => self.binary(i, *b, rest)?,
            Op::Nary(Nary::Fma) => self.vector(i, VOp::Fma, rest)?,
            Op::Select => self.vector(i, VOp::Select, rest)?,
            _ => {
                return Err(self.unsupported(
                    self.opname(),
                    format!("THEIA b1.2 has no equivalent of {:?}", d.op),
                ));
            }
        }
        Ok(())
    }

    fn texture(&mut self, i: Inst, t: &crate::ir::TexOp) -> Result<(), TheiaError> {
        let d = &self.f.insts[i];
        let why_not = |s: &str| {
            Err(self.unsupported(
                format!("{} of texture unit {}", t.opcode.name(), t.unit),
                s.to_string(),
            ))
        };
        if !matches!(t.opcode, Opcode::Tex | Opcode::Txp) {
            return why_not(
                "b1.2 user code cannot fetch texels: only a plain TEX of a texture coordinate maps to CREG_TEXTURE_COLOR",
            );
        }
        if t.target != TextureTarget::Tex2D || t.offsets != 0 {
            return why_not("THEIA samples one 2D texture without offsets");
        }
        let input = |v: Value| match self.f.def_inst(v).map(|k| &self.f.insts[k].op) {
            Some(Op::Input { reg, comp }) => Some((*reg, *comp)),
            _ => None,
        };
        let (Some((r0, 0)), Some((r1, 1))) = (input(d.args[0]), input(d.args[1])) else {
            return why_not(
                "the hardware samples at the hit's texture coordinate only: the coordinate must be an input's .xy, unchanged",
            );
        };
        if r0 != r1 {
            return why_not("the coordinate's x and y come from different inputs");
        }
        if t.opcode == Opcode::Txp {
            let w = d.args[3];
            if self.f.const_value(w) != Some(1.0f32.to_bits()) {
                return why_not("a projective divide by anything but the input's w (1.0)");
            }
        }
        match self.texture {
            Some((u, r)) if (u, r) != (t.unit, r0) => {
                return why_not(&format!(
                    "THEIA has one texture, sampled at one coordinate; this shader already samples unit {u} at IN[{r}]"
                ));
            }
            _ => self.texture = Some((t.unit, r0)),
        }
        let tex = Reg::Phys(
            crate::back::theia::isa::register_address("CREG_TEXTURE_COLOR").expect("register"),
        );
        for (c, &v) in d.results.iter().enumerate() {
            self.loc[v.index()] = Some(if c < 3 {
                Loc::Lane(tex, c as u8)
            } else {
                Loc::Imm(1.0f32.to_bits(), Type::F32)
            });
        }
        Ok(())
    }

    fn unary(&mut self, i: Inst, u: Unary, rest: &[Stmt]) -> Result<(), TheiaError> {
        let d = &self.f.insts[i];
        let (a, r) = (d.args[0], d.results[0]);
        match u {
            Unary::FNeg | Unary::INeg => self.vector(i, VOp::Un(T::Neg), rest),
            Unary::FFloor => {
                // floor(x) read only by x − floor(x) (FRAC): nothing to compute.
                let frac_only = self.uses[r.index()] == 1
                    && rest.iter().any(|s| {
                        matches!(s, Stmt::Inst(j) if self.f.insts[*j].op == Op::Binary(Binary::FSub)
                            && self.f.insts[*j].args == [a, r])
                    });
                if frac_only {
                    self.loc[r.index()] = Some(Loc::Imm(0, Type::F32));
                    return Ok(());
                }
                self.vector(i, VOp::Floor, rest)
            }
            Unary::FCeil => self.vector(i, VOp::Ceil, rest),
            Unary::BNot => self.vector(i, VOp::BNot, rest),
            Unary::BoolToInt => self.vector(i, VOp::BoolToInt, rest),
            Unary::I2F | Unary::U2F => self.vector(i, VOp::I2F, rest),
            Unary::BoolToFloat => {
                self.loc[r.index()] = self.loc[a.index()];
                Ok(())
            }
            Unary::Bitcast => match self.loc[a.index()] {
                Some(Loc::Imm(bits, _)) => {
                    self.loc[r.index()] = Some(Loc::Imm(bits, self.f.ty(r)));
                    Ok(())
                }
                // Integer words that hold float bits (selects of float constants, TGSI's
                // `AND bool, 1.0`) are Q15.17 already: reading them as floats changes nothing.
                _ if self.float_bits.contains(&a) || self.float_bits.contains(&r) => {
                    self.loc[r.index()] = self.loc[a.index()];
                    Ok(())
                }
                _ => Err(self.unsupported(
                    self.opname(),
                    "it reinterprets float bits as an integer (or back), which has no meaning in Q15.17",
                )),
            },
            Unary::FAbs | Unary::IAbs => self.scalar(i, Scalar::Abs),
            Unary::FSat01 => self.scalar(i, Scalar::Sat(0)),
            Unary::FSat11 => self.scalar(i, Scalar::Sat(-1)),
            Unary::FSign | Unary::ISign => self.scalar(i, Scalar::Sign),
            Unary::FTrunc => self.scalar(i, Scalar::Trunc),
            Unary::FRound => self.scalar(i, Scalar::Round),
            Unary::F2I | Unary::F2U => self.scalar(i, Scalar::F2I),
            Unary::FloorToInt => self.scalar(i, Scalar::FloorToInt),
            Unary::FSqrt => {
                if self.uses[a.index()] == 1
                    && let Some(&line) = self.dots.get(&a)
                    && let VInst::Alu { op: T::Dot, dst, a: x, .. } = self.lines[line].inst
                {
                    // sqrt(dot(v, v)) = |v|: MAG takes the exact square root of the 64-bit sum.
                    self.lines[line].inst = VInst::Alu {
                        op: T::Mag,
                        dst,
                        a: x,
                        b: Reg::Void,
                    };
                    self.loc[r.index()] = self.loc[a.index()];
                    return Ok(());
                }
                // 1/√x: one sequence that keeps its precision for small x.
                if self.uses[r.index()] == 1 && self.rsq_of(r, rest) {
                    self.for_rsq.insert(r);
                    return Ok(());
                }
                self.scalar(i, Scalar::Sqrt)
            }
            Unary::FExp2 => self.math(i, Math::Exp2),
            Unary::FLg2 => self.math(i, Math::Log2),
            Unary::FSin => self.math(i, Math::Sin),
            Unary::FCos => self.math(i, Math::Cos),
            _ => Err(self.unsupported(
                self.opname(),
                format!("{u:?} has no THEIA lowering"),
            )),
        }
    }

    fn binary(&mut self, i: Inst, b: Binary, rest: &[Stmt]) -> Result<(), TheiaError> {
        let d = &self.f.insts[i];
        match b {
            Binary::FAdd | Binary::IAdd => self.vector(i, VOp::Bin(T::Add), rest),
            Binary::FSub | Binary::ISub => {
                // x − floor(x) is FRAC.
                if b == Binary::FSub
                    && let Some(k) = self.f.def_inst(d.args[1])
                    && self.f.insts[k].op == Op::Unary(Unary::FFloor)
                    && self.f.insts[k].args[0] == d.args[0]
                {
                    return self.vector(i, VOp::Frac, rest);
                }
                self.vector(i, VOp::Bin(T::Sub), rest)
            }
            Binary::FMul => self.vector(i, VOp::Bin(T::Mul), rest),
            Binary::IMul => self.vector(i, VOp::Bin(T::Imul), rest),
            Binary::FDiv => {
                if let Some(k) = self.f.def_inst(d.args[1])
                    && self.f.insts[k].op == Op::Unary(Unary::FSqrt)
                    && self.for_rsq.contains(&d.args[1])
                {
                    // The square root was left for this RSQ.
                    let x = self.f.insts[k].args[0];
                    return self.scalar_of(i, &[x], 0, Scalar::Rsq);
                }
                self.vector(i, VOp::Bin(T::Div), rest)
            }
            Binary::BAnd => self.vector(i, VOp::Bin(T::Mul), rest),
            Binary::BOr => self.vector(i, VOp::BOr, rest),
            // An integer AND with a constant mask is one MOD (A & (B − 1.0)).
            Binary::And if !self.float_bits.contains(&d.results[0]) => {
                let (x, y) = (d.args[0], d.args[1]);
                match (self.f.const_value(x), self.f.const_value(y)) {
                    (_, Some(k)) => self.scalar_of(i, &[x], k, Scalar::AndConst),
                    (Some(k), _) => self.scalar_of(i, &[y], k, Scalar::AndConst),
                    _ => Err(self.unsupported(
                        self.opname(),
                        "a bitwise AND of two computed values (only masks by a constant are one MOD)",
                    )),
                }
            }
            Binary::Shl if self.f.const_value(d.args[1]).is_some() => self.scalar(i, Scalar::Shl),
            Binary::Shl => Err(self.unsupported(
                self.opname(),
                "a shift by a computed amount (only constant shifts become multiplies)",
            )),
            Binary::FPow => self.math(i, Math::Pow),
            Binary::FMin | Binary::IMinS => self.scalar(i, Scalar::Min),
            Binary::FMax | Binary::IMaxS => self.scalar(i, Scalar::Max),
            _ => Err(self.unsupported(self.opname(), format!("{b:?} has no THEIA lowering"))),
        }
    }
}

/// Integer-typed values whose bits are read as floats: stored to the colour, or moved there by
/// selects.
fn float_bits(f: &Function) -> HashSet<Value> {
    let mut out = HashSet::new();
    let mut work = Vec::new();
    f.for_each_inst(|i| {
        let d = &f.insts[i];
        match d.op {
            Op::StoreOutput { .. } => work.push(d.args[0]),
            Op::Unary(Unary::Bitcast) if f.ty(d.results[0]) == Type::F32 => work.push(d.args[0]),
            _ => {}
        }
    });
    while let Some(v) = work.pop() {
        if f.ty(v) != Type::I32 || !out.insert(v) {
            continue;
        }
        if let Some(i) = f.def_inst(v)
            && f.insts[i].op == Op::Select
        {
            work.push(f.insts[i].args[1]);
            work.push(f.insts[i].args[2]);
        }
    }
    out
}

impl Sel<'_> {
    /// Whether `1.0 / r` is among `rest` (the same block).
    fn rsq_of(&self, r: Value, rest: &[Stmt]) -> bool {
        rest.iter().any(|s| {
            matches!(s, Stmt::Inst(j)
                if self.f.insts[*j].op == Op::Binary(Binary::FDiv)
                    && self.f.insts[*j].args[1] == r
                    && self.f.const_value(self.f.insts[*j].args[0]) == Some(1.0f32.to_bits()))
        })
    }
}

/// Whether `v` is the condition of an `If` among `rest` (same block).
fn used_by_if(rest: &[Stmt], v: Value) -> bool {
    rest.iter().any(|s| matches!(s, Stmt::If(x) if x.cond == v))
}

mod lanes;
mod math;
mod scalar;

pub use math::LOG2_OF_NONPOSITIVE;
use math::Math;
use scalar::Scalar;
