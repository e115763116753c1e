//! A bit-exact simulator of the THEIA b1.2 execution unit (`docs/theia.md`).
//!
//! - Registers are 96 bits (x, y, z as 32-bit Q15.17 words). Bank rules for writes: addresses
//!   0–31 (configuration) are read-only for the execution unit and its writes are dropped;
//!   32–127 are written; 128 and above are the write-only output registers (OREG_*), kept in
//!   [`Machine::outputs`]. Reading an address of 128 or more reads the register at the address
//!   modulo 128 (the register file decodes seven address bits).
//! - Forwarding: the decoder forwards the previous instruction's ALU result when a source
//!   address equals the previous DST field, even when that instruction wrote nothing (a jump or
//!   NOP, whose result is (0, 0, 0), or a dropped write). SRC1 is forwarded for Type I words; the
//!   second operand (SRC2, or the old DST for Type II) always. The previous result survives
//!   from one routine to the next, as in the hardware, and a new machine holds the ROM's
//!   INITIAL routine's last: `RETURN RT_TRUE`, (1, 1, 1) to VOID.
//! - Opcodes the b1.2 core hangs on (INTP, XCHANGEY, XCHANGEZ, RESCALE, DEBUG_PRINT), a routine
//!   whose first word is RETURN (it hangs too), JMP in IMEM and MULP before a Type I word (the
//!   RTL runs them into the ROM or with timing-dependent results), opcodes it does not have
//!   (CALL, RET, OMWRITE, TMREAD, LEA) and unknown opcodes stop the simulation with an error
//!   naming the address.
//! - Cycles follow the manual's latencies (2 per instruction; DIV 70 and MAG 35, the RTL's state
//!   machines, where the manual says "variable").

pub mod alu;
pub mod taint;

use crate::isa::Vec3;
use crate::isa::{
    Binary, ENTRY_SLOTS, Form, IMEM_BASE, Op, Support, Word, entry_slot, register_name,
};
use std::collections::BTreeMap;
use thiserror::Error;

/// Why a simulation stopped without RETURN.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SimError {
    /// An opcode the b1.2 core hangs on or does not have.
    #[error("{address:#06x}: {what}: the b1.2 core {why}")]
    Trap {
        /// Address of the instruction.
        address: u16,
        /// The opcode (name or number).
        what: String,
        /// What the hardware would do.
        why: &'static str,
    },
    /// Execution reached an address the image does not hold.
    #[error("{address:#06x}: no code there{hint}")]
    NoCode {
        /// The address.
        address: u16,
        /// Why, when known.
        hint: String,
    },
    /// The routine ran longer than the step limit (a loop that never returns).
    #[error("the routine started at {entry:#06x} did not RETURN within {steps} instructions")]
    StepLimit {
        /// Where it started.
        entry: u16,
        /// The limit.
        steps: u64,
    },
    /// An entry slot the image does not have.
    #[error("{0}")]
    NoEntry(String),
}

/// One register write performed by a routine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Write {
    /// DST address.
    pub address: u16,
    /// The value.
    pub value: Vec3,
    /// False when the bank rules dropped it (configuration registers).
    pub kept: bool,
    /// The instruction's index among those the routine executed (0 = its first).
    pub step: u64,
    /// What the instruction read: SRC1 and SRC2, or (Type II) nothing and the old DST.
    pub reads: [Option<Source>; 2],
}

/// Where an operand came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The register at this address (reads of 128 and above read it modulo 128).
    Register(u16),
    /// The previous instruction's result, forwarded (its DST field matched the address).
    Forwarded,
}

/// What a routine did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// RETURN's flag (word bit 0): RT_TRUE or RT_FALSE.
    pub returned: bool,
    /// Instructions executed (RETURN included).
    pub steps: u64,
    /// Cycles by the manual's latencies.
    pub cycles: u64,
    /// Every write, in order.
    pub writes: Vec<Write>,
    /// Output writes and jumps that used a value the hardware wrapped or the multiplier
    /// corrupted, or one computed from such a value ([`taint`]: wrong values in lanes nobody
    /// reads, or multiplied by an exact zero, do not count). Nonzero means the routine did not
    /// compute what its arithmetic means.
    pub range_faults: u64,
}

/// One pixel of [`Machine::run_pixels`]: the PIXELSHADER outcome and the output registers
/// (address ≥ 128) it left.
pub type PixelResult = (Outcome, BTreeMap<u16, Vec3>);

/// Where to start a routine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    /// An entry-table slot (`PIXELSHADER` is 10).
    Slot(usize),
    /// An address.
    Address(u16),
}

impl Entry {
    /// Parses a slot name (`PIXELSHADER`), a slot number (`10`) or an address (`0x800B`).
    pub fn parse(s: &str) -> Option<Entry> {
        if let Some(k) = entry_slot(s) {
            return Some(Entry::Slot(k));
        }
        if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
            return u16::from_str_radix(h, 16).ok().map(Entry::Address);
        }
        s.parse::<usize>()
            .ok()
            .filter(|&k| k < ENTRY_SLOTS.len())
            .map(Entry::Slot)
    }
}

/// The execution unit with its registers, outputs and code.
#[derive(Debug, Clone)]
pub struct Machine {
    binary: Binary,
    regs: [Vec3; 128],
    /// Output registers written (address ≥ 128) and their last values.
    pub outputs: BTreeMap<u16, Vec3>,
    /// The previous instruction's DST field and ALU result (for forwarding).
    last: Option<(u16, Vec3)>,
    /// Total cycles since the machine was created.
    pub cycles: u64,
    /// Instructions a routine may execute before [`SimError::StepLimit`].
    pub max_steps: u64,
    /// Per register lane: whether it holds a value computed from a range fault ([`taint`]).
    taint: [taint::Taint; 128],
    /// The taint of the previous result (forwarded with it).
    last_taint: taint::Taint,
}

impl Machine {
    /// A machine with `image` loaded and every register zero, as the control unit leaves the
    /// core after the ROM's INITIAL routine: that routine ends with `RETURN RT_TRUE`, whose
    /// result (1, 1, 1) with DST field VOID is what the decoder forwards, so the first
    /// instruction of the next routine that reads VOID reads (1, 1, 1), as the RTL does.
    pub fn new(image: Binary) -> Machine {
        Machine {
            binary: image,
            regs: [[0; 3]; 128],
            outputs: BTreeMap::new(),
            last: Some((0, [1, 1, 1])),
            cycles: 0,
            max_steps: 1_000_000,
            taint: [taint::EXACT; 128],
            last_taint: taint::EXACT,
        }
    }

    /// The loaded image.
    pub fn binary(&self) -> &Binary {
        &self.binary
    }

    /// Sets a register as the host (IO) does: any address below 128, whatever its bank.
    pub fn set(&mut self, address: u16, value: Vec3) {
        self.regs[address as usize & 0x7F] = value;
        self.taint[address as usize & 0x7F] = taint::EXACT;
    }

    /// Reads a register as the execution unit does (addresses ≥ 128 read address mod 128).
    pub fn get(&self, address: u16) -> Vec3 {
        self.regs[address as usize & 0x7F]
    }

    /// The address an entry names.
    ///
    /// # Errors
    /// [`SimError::NoEntry`] when the image has no such slot.
    pub fn resolve(&self, entry: Entry) -> Result<u16, SimError> {
        match entry {
            Entry::Address(a) => Ok(a),
            Entry::Slot(k) => self.binary.entry(k).ok_or_else(|| {
                SimError::NoEntry(format!(
                    "this image has no entry table slot {k} ({}); give an address",
                    ENTRY_SLOTS.get(k).map_or("?", |s| s.0)
                ))
            }),
        }
    }

    fn read(&self, address: u16) -> Vec3 {
        match self.last {
            Some((dst, value)) if dst == address => value,
            _ => self.get(address),
        }
    }

    /// The taint of what [`Machine::read`] reads.
    fn read_taint(&self, address: u16) -> taint::Taint {
        match self.last {
            Some((dst, _)) if dst == address => self.last_taint,
            _ => self.taint[address as usize & 0x7F],
        }
    }

    /// Runs the routine at `entry` until RETURN.
    ///
    /// # Errors
    /// [`SimError`] naming the address of a trapping opcode, a jump out of the image, or a routine
    /// that exceeds [`Machine::max_steps`].
    pub fn run(&mut self, entry: Entry) -> Result<Outcome, SimError> {
        let start = self.resolve(entry)?;
        let mut pc = start;
        let mut out = Outcome {
            returned: false,
            steps: 0,
            cycles: 0,
            writes: Vec::new(),
            range_faults: 0,
        };
        loop {
            if out.steps >= self.max_steps {
                return Err(SimError::StepLimit {
                    entry: start,
                    steps: self.max_steps,
                });
            }
            let word = self.binary.fetch(pc).ok_or_else(|| self.no_code(pc))?;
            out.steps += 1;
            let op = self.decode(pc, word)?;
            if op == Op::Return && out.steps == 1 {
                return Err(SimError::Trap {
                    address: pc,
                    what: "RETURN as a routine's first word".into(),
                    why: "never finishes such a routine (hangs): its fetch unit ends a routine \
                          only on a RETURN that follows another word, which is why the ROM's \
                          routines start with NOP",
                });
            }
            if op == Op::Jmp && pc >= IMEM_BASE {
                return Err(SimError::Trap {
                    address: pc,
                    what: "JMP".into(),
                    why: "takes JMP in IMEM twice: it runs the target word, then continues in \
                          the ROM at that word's DST field + 1 (only the ROM's JMPs work; \
                          jump with a condition that always holds, `JEQX L VOID VOID`)",
                });
            }
            if op == Op::Mulp
                && let Some(next) = self.binary.fetch(pc.wrapping_add(1))
                && next.form() != Form::ImmediateType
            {
                return Err(SimError::Trap {
                    address: pc,
                    what: "MULP before a word that reads registers".into(),
                    why: "writes MULP's X and Y from its A channel when the multiplier \
                          finishes, which then holds a register of the next word or not \
                          depending on timing (follow MULP with a Type II word: SET*, \
                          SWIZZLE3D, RETURN)",
                });
            }
            out.cycles += op.info().cycles as u64;
            let source = |a: u16| match self.last {
                Some((dst, _)) if dst == a => Source::Forwarded,
                _ => Source::Register(a),
            };
            let reads = match word.form() {
                Form::ImmediateType => [None, Some(source(word.dst()))],
                _ => [Some(source(word.src1())), Some(source(word.src2()))],
            };
            let (a, b) = match (op, word.form()) {
                (_, Form::ImmediateType) => ([word.imm32(), 0, 0], self.read(word.dst())),
                _ => (self.read(word.src1()), self.read(word.src2())),
            };
            let (ta, tb) = match (op, word.form()) {
                (_, Form::ImmediateType) => (taint::EXACT, self.read_taint(word.dst())),
                _ => (self.read_taint(word.src1()), self.read_taint(word.src2())),
            };
            if let Some((comp, _)) = op.jump() {
                let c = comp as usize;
                if ta[c] != taint::Lane::Exact || tb[c] != taint::Lane::Exact {
                    out.range_faults += 1;
                }
            }
            let t = taint::propagate(op, a, b, ta, tb, word.imm32(), alu::range_fault(op, a, b));
            let mut step = execute(op, a, b, word);
            if op == Op::Mulp
                && let Some(next) = self.binary.fetch(pc.wrapping_add(1))
                && next.form() == Form::ImmediateType
            {
                // The RTL's MULP takes X and Y from the ALU's A channel when the multiplier
                // finishes, by when the decoder holds the next word: a Type II word (SET*,
                // SWIZZLE3D, RETURN) puts its immediate there, so X is that immediate and Y 0.
                // Before a register-reading word they depend on its timing: refused above.
                step.result[0] = next.imm32();
                step.result[1] = 0;
            }
            self.last = Some((word.dst(), step.result));
            self.last_taint = t;
            if step.write {
                let mut w = self.store(word.dst(), step.result);
                w.step = out.steps - 1;
                w.reads = reads;
                match w.address {
                    32..=127 => self.taint[w.address as usize] = t,
                    128.. if taint::any(t) => out.range_faults += 1,
                    _ => {}
                }
                out.writes.push(w);
            }
            match step.next {
                Next::Continue => pc = pc.wrapping_add(1),
                Next::Jump => pc = word.dst(),
                Next::Return => {
                    out.returned = word.0 & 1 != 0;
                    self.cycles += out.cycles;
                    return Ok(out);
                }
            }
        }
    }

    fn no_code(&self, pc: u16) -> SimError {
        let hint = if pc < IMEM_BASE && self.binary.origin == IMEM_BASE {
            format!(
                " (address {pc} is in the ROM, which the simulator does not hold: only user code in IMEM runs)"
            )
        } else {
            format!(
                " (the image holds {:#06x}..{:#06x})",
                self.binary.origin,
                self.binary.end()
            )
        };
        SimError::NoCode { address: pc, hint }
    }

    fn decode(&self, pc: u16, word: Word) -> Result<Op, SimError> {
        let Some(op) = word.op() else {
            return Err(SimError::Trap {
                address: pc,
                what: format!("opcode {:#06x}", word.opcode()),
                why: "has no such instruction and hangs",
            });
        };
        match op.info().support {
            Support::B12 => Ok(op),
            Support::Hangs => Err(SimError::Trap {
                address: pc,
                what: op.name().into(),
                why: "never finishes it (hangs)",
            }),
            Support::Later => Err(SimError::Trap {
                address: pc,
                what: op.name().into(),
                why: "does not have it (added after b1.2)",
            }),
        }
    }

    fn store(&mut self, address: u16, value: Vec3) -> Write {
        let kept = match address {
            0..=31 => false,
            32..=127 => {
                self.regs[address as usize] = value;
                true
            }
            _ => {
                self.outputs.insert(address, value);
                true
            }
        };
        Write {
            address,
            value,
            kept,
            step: 0,
            reads: [None; 2],
        }
    }

    /// Runs a whole image as the b1.2 core does for user code: USERCONSTANTS once (when its slot
    /// points into the image; the ROM default sets nothing the simulator models), then
    /// PIXELSHADER once per pixel after the pixel's registers are set. Returns each pixel's
    /// routine outcome and the output registers it left.
    ///
    /// # Errors
    /// As [`Machine::run`].
    pub fn run_pixels(
        &mut self,
        pixels: &[Vec<(u16, Vec3)>],
    ) -> Result<Vec<PixelResult>, SimError> {
        let uc = self.resolve(Entry::Slot(9))?;
        if self.binary.fetch(uc).is_some() {
            self.run(Entry::Address(uc))?;
        }
        let mut results = Vec::with_capacity(pixels.len());
        for regs in pixels {
            for &(a, v) in regs {
                self.set(a, v);
            }
            self.outputs.clear();
            let o = self.run(Entry::Slot(10))?;
            results.push((o, self.outputs.clone()));
        }
        Ok(results)
    }
}

enum Next {
    Continue,
    Jump,
    Return,
}

struct Step {
    result: Vec3,
    write: bool,
    next: Next,
}

fn map(a: Vec3, b: Vec3, f: impl Fn(u32, u32) -> u32) -> Vec3 {
    [f(a[0], b[0]), f(a[1], b[1]), f(a[2], b[2])]
}

/// One instruction: A and B are the operands after forwarding (Type II: A = (IMM, 0, 0),
/// B = the old DST).
fn execute(op: Op, a: Vec3, b: Vec3, word: Word) -> Step {
    let write = |result: Vec3| Step {
        result,
        write: true,
        next: Next::Continue,
    };
    if let Some((comp, cond)) = op.jump() {
        let c = comp as usize;
        let taken = alu::jump_taken(cond, a[c], b[c]);
        return Step {
            result: [0; 3],
            write: false,
            next: if taken { Next::Jump } else { Next::Continue },
        };
    }
    let one = crate::isa::ONE;
    match op {
        Op::Add => write(map(a, b, alu::add)),
        Op::Sub => write(map(a, b, alu::sub)),
        Op::Div => write(map(a, b, alu::div)),
        Op::Mul => write(map(a, b, alu::mul)),
        Op::Imul => write(map(a, b, alu::imul)),
        Op::Mag => write([alu::mag(a); 3]),
        Op::Dot => write([alu::dot(a, b); 3]),
        Op::Cross => write(alu::cross(a, b)),
        Op::Copy => write(a),
        Op::Zero => write([0; 3]),
        Op::Inc => write(a.map(|c| alu::add(c, one))),
        Op::Dec => write(a.map(|c| alu::sub(c, one))),
        Op::IncX => write([alu::add(a[0], one), a[1], a[2]]),
        Op::IncY => write([a[0], alu::add(a[1], one), a[2]]),
        Op::IncZ => write([a[0], a[1], alu::add(a[2], one)]),
        Op::Mulp => write([a[0], a[1], alu::mul(a[0], a[1])]),
        Op::Mod => write(map(a, b, alu::modulo)),
        Op::Frac => write(a.map(|c| c & 0x1FFFF)),
        Op::Neg => write(a.map(u32::wrapping_neg)),
        Op::XchangeX => write([b[0], a[1], a[2]]),
        Op::Unscale => write(a.map(|c| c >> 17)),
        Op::SetX => write([a[0], b[1], b[2]]),
        Op::SetY => write([b[0], a[0], b[2]]),
        Op::SetZ => write([b[0], b[1], a[0]]),
        Op::Swizzle3D => write(alu::swizzle(b, word.imm32())),
        Op::Return => Step {
            result: [a[0]; 3],
            write: true,
            next: Next::Return,
        },
        Op::Jmp => Step {
            result: [0; 3],
            write: false,
            next: Next::Jump,
        },
        // NOP; the trapping opcodes never reach here.
        _ => Step {
            result: [0; 3],
            write: false,
            next: Next::Continue,
        },
    }
}

/// Formats a register value as raw hex and fixed-point numbers:
/// `0x00028000 0x00000000 0xfffe0000  (1.25, 0, -1)`.
pub fn format_value(v: Vec3) -> String {
    let f = |r: u32| {
        let x = crate::isa::fixed_to_f64(r);
        format!("{x}")
    };
    format!(
        "{:#010x} {:#010x} {:#010x}  ({}, {}, {})",
        v[0],
        v[1],
        v[2],
        f(v[0]),
        f(v[1]),
        f(v[2])
    )
}

/// The name of a register address for reports (`R1`, `OREG_PIXEL_COLOR`, or the number).
pub fn address_name(a: u16) -> String {
    register_name(a).map_or_else(|| format!("{a}"), str::to_string)
}

#[cfg(test)]
mod tests;
