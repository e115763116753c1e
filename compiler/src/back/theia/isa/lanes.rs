//! Which lanes of each instruction's result are ever read: a backward liveness analysis over
//! the machine code of one routine, per register and per lane (x, y, z).
//!
//! Code for a three-wide machine computes lanes nobody reads (a scalar in x leaves y and z
//! holding whatever the operands held there). Those lanes may overflow harmlessly; this analysis
//! tells them apart from the lanes that matter, so that the simulator reports only results that
//! reach the output ([`live_lanes`]).
//!
//! The routine is a pixel shader: at its RETURN the output registers (addresses ≥ 128), C1..C7
//! and every register outside R1..R12 are live (the hardware or the next pixel may read them);
//! R1..R12 are scratch and dead.

use super::{Image, JumpComponent, Op};
use std::collections::BTreeMap;

/// A lane set: bit 0 x, bit 1 y, bit 2 z.
type Lanes = u8;
const ALL: Lanes = 0b111;

/// Registers R1..R12 (scratch at the end of a routine).
const SCRATCH: std::ops::RangeInclusive<u16> = 71..=82;

/// Live lanes of every register address (reads of 128 and above alias the low 128).
#[derive(Clone, PartialEq, Eq)]
struct Live([Lanes; 256]);

impl Live {
    fn exit() -> Live {
        let mut l = Live([ALL; 256]);
        for r in SCRATCH {
            l.0[r as usize] = 0;
        }
        l
    }
    fn union(&mut self, o: &Live) -> bool {
        let mut changed = false;
        for (a, b) in self.0.iter_mut().zip(o.0.iter()) {
            let n = *a | *b;
            changed |= n != *a;
            *a = n;
        }
        changed
    }
    fn read(&mut self, addr: u16, lanes: Lanes) {
        // A source address of 128 or more reads the register at the address modulo 128.
        self.0[(addr & 127) as usize] |= lanes;
    }
}

fn lane_bit(c: JumpComponent) -> Lanes {
    match c {
        JumpComponent::X => 1,
        JumpComponent::Y => 2,
        JumpComponent::Z => 4,
    }
}

/// The lanes of SRC1 (or, for Type II, of the old DST) and of SRC2 that `op` reads to produce
/// the lanes `out` of its result.
fn reads(op: Op, imm: u32, out: Lanes) -> (Lanes, Lanes) {
    if out == 0 {
        return (0, 0);
    }
    let any = ALL;
    match op {
        Op::Add | Op::Sub | Op::Div | Op::Mul | Op::Imul | Op::Mod => (out, out),
        Op::Copy
        | Op::Inc
        | Op::Dec
        | Op::IncX
        | Op::IncY
        | Op::IncZ
        | Op::Frac
        | Op::Neg
        | Op::Unscale => (out, 0),
        Op::Dot => (any, any),
        Op::Mag => (any, 0),
        // (Ay·Bz − Az·By, Az·Bx − Ax·Bz, Ax·By − Ay·Bx)
        Op::Cross => {
            let mut l = 0;
            if out & 1 != 0 {
                l |= 0b110;
            }
            if out & 2 != 0 {
                l |= 0b101;
            }
            if out & 4 != 0 {
                l |= 0b011;
            }
            (l, l)
        }
        // (Ax, Ay, Ax·Ay)
        Op::Mulp => {
            let mut l = out & 0b011;
            if out & 4 != 0 {
                l |= 0b011;
            }
            (l, 0)
        }
        // (Bx, Ay, Az)
        Op::XchangeX => (out & 0b110, out & 1),
        // Type II: "SRC1" is the immediate; the old DST is the second operand.
        Op::SetX => (0, out & 0b110),
        Op::SetY => (0, out & 0b101),
        Op::SetZ => (0, out & 0b011),
        Op::Swizzle3D => {
            let from = |c: usize| -> Lanes {
                match imm {
                    0 => 1,
                    1 => 2,
                    2 => 4,
                    21 => [2, 1, 4][c],
                    _ => 0,
                }
            };
            let mut l = 0;
            for c in 0..3 {
                if out & (1 << c) != 0 {
                    l |= from(c);
                }
            }
            (0, l)
        }
        _ => (0, 0),
    }
}

/// For every instruction reachable from `entry` that writes a register: the lanes of its result
/// that a later instruction reads (or that reach an output or survive the routine), as
/// `[x, y, z]`. Instructions whose result is never read map to `[false; 3]`.
pub fn live_lanes(image: &Image, entry: u16) -> BTreeMap<u16, [bool; 3]> {
    // Reachable instructions and their successors.
    let mut code: BTreeMap<u16, (super::Word, Op, Vec<u16>)> = BTreeMap::new();
    let mut work = vec![entry];
    while let Some(pc) = work.pop() {
        if code.contains_key(&pc) {
            continue;
        }
        let Some(w) = image.fetch(pc) else { continue };
        let Some(op) = w.op() else { continue };
        let next = pc.wrapping_add(1);
        let succ = if op.jump().is_some() {
            vec![next, w.dst()]
        } else {
            match op {
                Op::Jmp => vec![w.dst()],
                Op::Return => vec![],
                _ => vec![next],
            }
        };
        work.extend(succ.iter().copied());
        code.insert(pc, (w, op, succ));
    }
    let mut live_in: BTreeMap<u16, Live> = BTreeMap::new();
    let mut out_of: BTreeMap<u16, Lanes> = BTreeMap::new();
    let exit = Live::exit();
    let empty = Live([0; 256]);
    let mut changed = true;
    while changed {
        changed = false;
        for (&pc, (w, op, succ)) in code.iter().rev() {
            let mut live = if *op == Op::Return {
                exit.clone()
            } else {
                empty.clone()
            };
            for s in succ {
                if let Some(l) = live_in.get(s) {
                    live.union(l);
                }
            }
            let dst = w.dst();
            // Writes to the configuration bank (0–31) are dropped.
            let writes =
                op.jump().is_none() && !matches!(op, Op::Jmp | Op::Return | Op::Nop) && dst >= 32;
            let out = if !writes {
                0
            } else if dst >= 128 {
                ALL
            } else {
                live.0[dst as usize]
            };
            if writes && dst < 128 {
                live.0[dst as usize] = 0;
            }
            if let Some((c, _)) = op.jump() {
                live.read(w.src1(), lane_bit(c));
                live.read(w.src2(), lane_bit(c));
            } else if writes {
                let (a, b) = reads(*op, w.imm32(), out);
                if op.form() == super::Form::ImmediateType {
                    live.read(dst, b);
                } else {
                    live.read(w.src1(), a);
                    live.read(w.src2(), b);
                }
            }
            if writes {
                out_of.insert(pc, out);
            }
            let slot = live_in.entry(pc).or_insert_with(|| empty.clone());
            if *slot != live {
                *slot = live;
                changed = true;
            }
        }
    }
    out_of
        .into_iter()
        .map(|(pc, l)| (pc, [l & 1 != 0, l & 2 != 0, l & 4 != 0]))
        .collect()
}
