//! The 64-bit opcodes, doubles and 64-bit integers: a value in a pair of channels (`.xy` or
//! `.zw`, low word first), read, computed and written pair by pair in tgsi_exec's order and
//! by its rules for which channels a write mask selects ([`Wide`], `docs/semantics.md`,
//! "Doubles and 64-bit integers"). The arithmetic is [`tgsic::numerics::wide`]'s.

use super::exec::Exec;
use super::num::{self, wide as w};
use crate::engine::{BATCH_LANES, Chan, Mask};
use tgsic::tgsi::*;

/// A 64-bit value per lane.
type Pair = [u64; BATCH_LANES];

/// The channel pairs: `.xy`, `.zw`.
const PAIRS: [(usize, usize); 2] = [(0, 1), (2, 3)];

fn split(v: &Pair) -> (Chan, Chan) {
    (v.map(|x| x as u32), v.map(|x| (x >> 32) as u32))
}

impl Exec<'_> {
    /// Source `s`'s 64-bit value made of its channels `lo` and `hi` (after the swizzle).
    fn pair(&self, s: &Src, lo: usize, hi: usize) -> Pair {
        let r = self.fetch(s, (1 << lo) | (1 << hi));
        std::array::from_fn(|l| r[lo][l] as u64 | (r[hi][l] as u64) << 32)
    }

    /// Source `s`'s channel `c` (32 bits, modifiers applied).
    fn chan(&self, s: &Src, c: usize) -> Chan {
        self.fetch(s, 1 << c)[c]
    }

    /// Writes a 64-bit result to channels `lo` and `hi` of `d` (saturated as a double when the
    /// instruction saturates).
    fn put_pair(
        &mut self,
        inst: &Instruction,
        d: &Dst,
        (lo, hi): (usize, usize),
        v: Pair,
        exec: Mask,
    ) {
        let v = if inst.saturate == Saturate::ZeroOne {
            v.map(|x| w::sat01(x, num::flushes()))
        } else {
            v
        };
        let (a, b) = split(&v);
        self.store(&d.register, lo, &a, exec);
        self.store(&d.register, hi, &b, exec);
    }

    /// Writes a 32-bit result to channel `c` of `d` (saturated as a float when the instruction
    /// saturates).
    fn put_chan(&mut self, inst: &Instruction, d: &Dst, c: usize, v: Chan, exec: Mask) {
        let v = if inst.saturate == Saturate::ZeroOne {
            v.map(|x| num::b(num::sat01(num::f(x))))
        } else {
            v
        };
        self.store(&d.register, c, &v, exec);
    }
}

/// Runs the 64-bit instruction `inst` for the lanes of `exec`.
pub(super) fn execute(ex: &mut Exec<'_>, inst: &Instruction, exec: Mask, wide: Wide) {
    let ftz = num::flushes();
    let op = inst.opcode;
    let Some(d) = inst.dst.first() else { return };
    let mask = d.write_mask.0 & 0xF;
    let both = |(lo, hi): (usize, usize)| mask & (1 << lo) != 0 && mask & (1 << hi) != 0;
    let either = |(lo, hi): (usize, usize)| mask & ((1 << lo) | (1 << hi)) != 0;
    match wide {
        Wide::Unary | Wide::FracExp => {
            let mut exp: Chan = [0; BATCH_LANES];
            for (k, p) in PAIRS.into_iter().enumerate() {
                // DFRACEXP computes the `.xy` pair's exponent even when it writes no mantissa.
                let frexp_anyway = wide == Wide::FracExp && k == 0;
                if !both(p) && !frexp_anyway {
                    continue;
                }
                let a = ex.pair(&inst.src[0], p.0, p.1);
                let v = if wide == Wide::FracExp {
                    std::array::from_fn(|l| {
                        let (m, e) = w::frexp(w::d(a[l], ftz));
                        exp[l] = e as u32;
                        w::db(m, ftz)
                    })
                } else {
                    a.map(|x| unary(op, x, ftz))
                };
                if both(p) {
                    ex.put_pair(inst, d, p, v, exec);
                }
            }
            if wide == Wide::FracExp
                && let Some(e) = inst.dst.get(1)
            {
                for c in 0..4 {
                    if e.write_mask.has(c) {
                        ex.put_chan(inst, e, c, exp, exec);
                    }
                }
            }
        }
        Wide::Binary | Wide::Compare => {
            for p in PAIRS {
                if !either(p) {
                    continue;
                }
                let a = ex.pair(&inst.src[0], p.0, p.1);
                let b = ex.pair(&inst.src[1], p.0, p.1);
                if wide == Wide::Compare {
                    // The result goes to the pair's first channel the mask has.
                    let c = if mask & (1 << p.0) != 0 { p.0 } else { p.1 };
                    let v = std::array::from_fn(|l| {
                        if compare(op, a[l], b[l], ftz) {
                            u32::MAX
                        } else {
                            0
                        }
                    });
                    ex.put_chan(inst, d, c, v, exec);
                } else {
                    let v = std::array::from_fn(|l| binary(op, a[l], b[l], ftz));
                    ex.put_pair(inst, d, p, v, exec);
                }
            }
        }
        Wide::Ternary => {
            for p in PAIRS {
                if !both(p) {
                    continue;
                }
                let a = ex.pair(&inst.src[0], p.0, p.1);
                let b = ex.pair(&inst.src[1], p.0, p.1);
                let c = ex.pair(&inst.src[2], p.0, p.1);
                let v = std::array::from_fn(|l| {
                    let (x, y, z) = (w::d(a[l], ftz), w::d(b[l], ftz), w::d(c[l], ftz));
                    if op == Opcode::Dfma {
                        w::db(x.mul_add(y, z), ftz)
                    } else {
                        // Not fused: the product is rounded (and flushed) first.
                        w::db(w::flush(x * y, ftz) + z, ftz)
                    }
                });
                ex.put_pair(inst, d, p, v, exec);
            }
        }
        Wide::Shift => {
            for p in PAIRS {
                if !either(p) {
                    continue;
                }
                let a = ex.pair(&inst.src[0], p.0, p.1);
                // The 32-bit operand is read in the pair's first channel.
                let n = ex.chan(&inst.src[1], p.0);
                let v = std::array::from_fn(|l| shift(op, a[l], n[l], ftz));
                ex.put_pair(inst, d, p, v, exec);
            }
        }
        Wide::From32 => {
            for (k, p) in PAIRS.into_iter().enumerate() {
                if !both(p) {
                    continue;
                }
                // Channel x makes the `.xy` pair, channel y the `.zw` pair.
                let a = ex.chan(&inst.src[0], k);
                let v = a.map(|x| from32(op, x, ftz));
                ex.put_pair(inst, d, p, v, exec);
            }
        }
        Wide::To32 => {
            // The first channel of the mask takes the `.xy` pair's result, the second `.zw`'s.
            let chans: Vec<usize> = (0..4).filter(|&c| mask & (1 << c) != 0).take(2).collect();
            for (k, &c) in chans.iter().enumerate() {
                let (lo, hi) = PAIRS[k];
                let a = ex.pair(&inst.src[0], lo, hi);
                let v = a.map(|x| to32(op, x, ftz));
                ex.put_chan(inst, d, c, v, exec);
            }
        }
    }
}

fn unary(op: Opcode, a: u64, ftz: bool) -> u64 {
    use Opcode as O;
    let x = w::d(a, ftz);
    let r = |v: f64| w::db(v, ftz);
    match op {
        O::Dabs => w::dabs(a, ftz),
        O::Dneg => w::dneg(a),
        O::Drcp => r(1.0 / x),
        O::Dsqrt => r(x.sqrt()),
        O::Drsq => r(1.0 / x.sqrt()),
        O::Dfrac => r(x - x.floor()),
        O::Dflr => r(x.floor()),
        O::Dtrunc => r(x.trunc()),
        O::Dceil => r(x.ceil()),
        O::Dround => r(x.round_ties_even()),
        O::Dssg => r(w::dssg(x)),
        O::I64abs => {
            let v = a as i64;
            (if v >= 0 { v } else { v.wrapping_neg() }) as u64
        }
        O::I64neg => (a as i64).wrapping_neg() as u64,
        O::I64ssg => (a as i64).signum() as u64,
        O::D2i64 => w::d2i64(x),
        O::D2u64 => w::d2u64(x),
        O::I642d => r(a as i64 as f64),
        O::U642d => r(a as f64),
        _ => unreachable!("{op} is not a unary 64-bit opcode"),
    }
}

fn binary(op: Opcode, a: u64, b: u64, ftz: bool) -> u64 {
    use Opcode as O;
    let (x, y) = (w::d(a, ftz), w::d(b, ftz));
    let r = |v: f64| w::db(v, ftz);
    match op {
        O::Dadd => r(x + y),
        O::Dmul => r(x * y),
        O::Ddiv => r(x / y),
        O::Dmin => r(w::dmin(x, y)),
        O::Dmax => r(w::dmax(x, y)),
        O::U64add => a.wrapping_add(b),
        O::U64mul => a.wrapping_mul(b),
        O::U64div => w::u64div(a, b),
        O::I64div => w::i64div(a, b),
        O::U64mod => w::u64mod(a, b),
        O::I64mod => w::i64mod(a, b),
        O::I64min => (a as i64).min(b as i64) as u64,
        O::I64max => (a as i64).max(b as i64) as u64,
        O::U64min => a.min(b),
        O::U64max => a.max(b),
        _ => unreachable!("{op} is not a binary 64-bit opcode"),
    }
}

fn compare(op: Opcode, a: u64, b: u64, ftz: bool) -> bool {
    use Opcode as O;
    let (x, y) = (w::d(a, ftz), w::d(b, ftz));
    match op {
        O::Dslt => x < y,
        O::Dsge => x >= y,
        O::Dseq => x == y,
        O::Dsne => x != y,
        O::U64seq => a == b,
        O::U64sne => a != b,
        O::U64slt => a < b,
        O::U64sge => a >= b,
        O::I64slt => (a as i64) < (b as i64),
        O::I64sge => (a as i64) >= (b as i64),
        _ => unreachable!("{op} is not a 64-bit comparison"),
    }
}

fn shift(op: Opcode, a: u64, n: u32, ftz: bool) -> u64 {
    use Opcode as O;
    match op {
        O::Dldexp => w::db(w::ldexp(w::d(a, ftz), n as i32), ftz),
        O::U64shl => a << (n & 63),
        O::I64shr => ((a as i64) >> (n & 63)) as u64,
        O::U64shr => a >> (n & 63),
        _ => unreachable!("{op} is not a 64-bit shift"),
    }
}

fn from32(op: Opcode, a: u32, ftz: bool) -> u64 {
    use Opcode as O;
    match op {
        O::F2d => w::db(num::f(a) as f64, ftz),
        O::I2d => (a as i32 as f64).to_bits(),
        O::U2d => (a as f64).to_bits(),
        O::F2i64 => w::d2i64(num::f(a) as f64),
        O::F2u64 => w::d2u64(num::f(a) as f64),
        O::I2i64 => a as i32 as i64 as u64,
        O::U2i64 => a as u64,
        _ => unreachable!("{op} is not a conversion from 32 bits"),
    }
}

fn to32(op: Opcode, a: u64, ftz: bool) -> u32 {
    use Opcode as O;
    let x = w::d(a, ftz);
    match op {
        O::D2f => num::b(num::round_ftz(x)),
        O::D2i => w::d2i(x),
        O::D2u => w::d2u(x),
        O::I642f => num::b(a as i64 as f32),
        O::U642f => num::b(a as f32),
        _ => unreachable!("{op} is not a conversion to 32 bits"),
    }
}
