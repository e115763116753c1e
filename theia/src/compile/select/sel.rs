//! What instruction selection works with: virtual registers and operands, the lines it
//! emits, where each IR value lives, merges and loops, and the selector's state ([`Sel`]),
//! which [`super`]'s helpers and each of its modules extend.

use super::super::bind::Bindings;
use crate::isa::Op as T;
use std::collections::{BTreeSet, HashMap, HashSet};
use tgsic::ir::{Function, Inst, Type, Value};
use tgsic::tgsi::Program;

/// A virtual register number.
pub(in crate::compile) type V = u32;

/// A register operand.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub(in crate::compile) enum Reg {
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
pub(in crate::compile) enum VInst {
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
pub(in crate::compile) struct Line {
    pub inst: VInst,
    pub origin: Option<u32>,
}

/// The selected code.
#[derive(Debug)]
pub(in crate::compile) struct Selection {
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
pub(super) enum Loc {
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
pub(super) enum Src {
    /// A register and the lane the value is in (None: every lane).
    R(Reg, Option<u8>),
    /// A constant word.
    C(u32),
}

/// A merge target: a register every path writes before the merge point.
#[derive(Clone, Copy, Debug)]
pub(super) struct Merge {
    pub(super) reg: Reg,
    /// None until the first write decides; Some(None) = every lane.
    pub(super) lane: Option<Option<u8>>,
    /// Readers already assume the lane (loop parameters).
    pub(super) fixed: bool,
}

pub(super) struct LoopCtx {
    pub(super) params: Vec<usize>,
    pub(super) results: Vec<usize>,
    pub(super) head: u32,
    pub(super) exit: u32,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum J {
    G,
    L,
    Eq,
    Ne,
    Ge,
}

pub(super) fn jop(j: J, lane: u8) -> T {
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
pub(super) const MAX_ITERATIONS: u32 = 65536;

pub(super) const SWZ: [u32; 3] = [0, 1, 2]; // SWIZZLE_XXX, _YYY, _ZZZ

/// The vector operations (lane by lane, one THEIA sequence for up to three lanes).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum VOp {
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

pub(super) struct Sel<'a> {
    pub(super) f: &'a Function,
    pub(super) p: &'a Program,
    pub(super) bind: &'a Bindings,
    pub(super) loc: Vec<Option<Loc>>,
    pub(super) uses: Vec<u32>,
    pub(super) lines: Vec<Line>,
    pub(super) consts: Vec<[Option<u32>; 3]>,
    pub(super) nv: V,
    pub(super) nl: u32,
    pub(super) origin: Option<u32>,
    pub(super) done: HashSet<Inst>,
    pub(super) bcast: HashMap<Value, Reg>,
    pub(super) merges: Vec<Merge>,
    pub(super) loops: Vec<LoopCtx>,
    /// Comparisons deferred to their `If`.
    pub(super) deferred: HashMap<Value, Inst>,
    /// Lines holding a `DOT a a` whose result is the value (for `MAG`).
    pub(super) dots: HashMap<Value, usize>,
    /// Square roots whose only use is a `1.0 /` (selected there, as one RSQ sequence).
    pub(super) for_rsq: HashSet<Value>,
    /// Integer-typed values that hold float bits ([`float_bits`]).
    pub(super) float_bits: HashSet<Value>,
    pub(super) outputs: [Option<Value>; 3],
    pub(super) inputs_used: BTreeSet<u32>,
    pub(super) texture: Option<(u32, u32)>,
    pub(super) depth: usize,
    /// Products `x·C` (C outside Q15.17) selected as their fraction: `x·C − floor(x·C)` is
    /// that value.
    pub(super) fract_done: HashSet<Value>,
    pub(super) notes: Vec<(Option<u32>, String)>,
}
