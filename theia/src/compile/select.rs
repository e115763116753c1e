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
use super::types::{TheiaError, at};
use crate::isa::{ONE, Op as T, f64_to_fixed};
pub(super) use sel::{Line, Reg, Selection, VInst};
use sel::{Loc, SWZ, Sel, Src};
use std::collections::{BTreeSet, HashMap, HashSet};
use tgsic::ir::{Function, Op, Type, Value};
use tgsic::tgsi::Program;

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
            // `compile_valid` refuses 64-bit programs before lifting.
            Type::F64 | Type::I64 => Err(TheiaError::Unsupported {
                location: at(self.p, self.origin),
                what: "a 64-bit value".into(),
                why: "THEIA has no 64-bit values".into(),
            }),
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
mod sel;

pub use math::LOG2_OF_NONPOSITIVE;
use ops::float_bits;
