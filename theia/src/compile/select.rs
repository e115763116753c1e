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
//!   selects, saturation, truncation, rounding), loops (square root by Newton steps) or
//!   polynomial sequences (EX2, LG2, POW, SIN, COS).
//! - Control flow becomes jumps; `If` results, loop parameters and loop results are registers
//!   written on every path (merges).
//!
//! Modules: [`ops`] dispatches each IR operation, [`flow`] blocks and control flow, [`lanes`]
//! vector grouping and the colour, [`scalar`] the one-lane jump sequences and comparisons,
//! [`math`] the transcendental sequences.

use super::bind::Bindings;
use super::{TheiaError, at};
use crate::isa::{ONE, Op as T, f64_to_fixed};
use std::collections::{BTreeSet, HashMap, HashSet};
use tgsic::ir::{Function, Inst, Op, Type, Value};
use tgsic::tgsi::Program;

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
    /// No code: the register's old value is irrelevant from here (a write, for liveness: an
    /// in-place constant whose SETs leave the other lanes as they were).
    Fresh(Reg),
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
    /// Things the user should know, with the TGSI instruction they are about.
    pub notes: Vec<(Option<u32>, String)>,
    /// `fract(x·C)` sequences for constants C outside Q15.17.
    pub fraction_products: usize,
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

/// The loop budget of an invocation (`docs/semantics.md`).
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
    /// Products `x·C` (C outside Q15.17) selected as their fraction: `x·C − floor(x·C)` is
    /// that value.
    fract_done: HashSet<Value>,
    notes: Vec<(Option<u32>, String)>,
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
        uses: tgsic::opt::util::use_counts(f),
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
        fract_done: HashSet::new(),
        notes: Vec::new(),
    };
    // Constants and inputs have no position: locate them all first, so that instructions
    // can group with partners whose constants come later in the block. An integer constant
    // whose bits reach the colour (through selects) holds float bits: it converts as a float.
    s.float_bits = float_bits(f);
    for (_, d) in f.insts.iter() {
        match d.op {
            Op::Const(bits) if d.results.len() == 1 => {
                let v = d.results[0];
                let ty = if s.float_bits.contains(&v) {
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
    s.output(color)?;
    s.retarget_output();
    Ok(Selection {
        lines: s.lines,
        consts: s.consts,
        vregs: s.nv,
        inputs_used: s.inputs_used,
        fraction_products: s.fract_done.len(),
        notes: s.notes,
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
        if let Some(k) = self.konst_register(lanes) {
            return Reg::K(k);
        }
        // Built in place where it is used (a short live range: registers are scarcer than
        // instructions). Lanes left None are free: without a zero lane no ZERO is needed.
        let d = self.new_v();
        if lanes.contains(&Some(0)) {
            self.alu(T::Zero, d, Reg::Void, Reg::Void);
        } else {
            self.emit(VInst::Fresh(d));
        }
        for (l, op) in [T::SetX, T::SetY, T::SetZ].into_iter().enumerate() {
            if let Some(w) = lanes[l].filter(|&w| w != 0) {
                self.emit(VInst::Imm { op, dst: d, imm: w });
            }
        }
        d
    }

    /// The constant register (C1 + k) holding `lanes`, sharing or extending one, while
    /// C1..C7 last.
    fn konst_register(&mut self, lanes: [Option<u32>; 3]) -> Option<u32> {
        let fits = |c: &[Option<u32>; 3]| (0..3).all(|k| lanes[k].is_none() || lanes[k] == c[k]);
        if let Some(k) = self.consts.iter().position(fits) {
            return Some(k as u32);
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
            return Some(k as u32);
        }
        if self.consts.len() < 7 {
            self.consts.push(lanes);
            return Some(self.consts.len() as u32 - 1);
        }
        None
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
            Src::R(r, Some(l)) => self.broadcast_lane(r, l),
            Src::C(w) => self.konst([Some(w); 3]),
        };
        self.bcast.insert(v, r);
        Ok(r)
    }

    /// A new register holding lane `l` of `r` in every lane (`COPY`, `SWIZZLE3D`).
    fn broadcast_lane(&mut self, r: Reg, l: u8) -> Reg {
        let d = self.new_v();
        self.alu(T::Copy, d, r, Reg::Void);
        self.emit(VInst::Imm {
            op: T::Swizzle3D,
            dst: d,
            imm: SWZ[l as usize],
        });
        d
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
}

mod flow;
mod lanes;
mod math;
mod ops;
mod scalar;

pub use math::LOG2_OF_NONPOSITIVE;
use math::Math;
use ops::float_bits;
use scalar::Scalar;
