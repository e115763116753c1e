//! 64-bit instruction words.

use super::defs::{Form, Op, register_name, swizzle_name};

/// One instruction word: opcode 63:48, DST 47:32, then SRC1 31:16 and SRC2 15:0 (Type I) or a
/// 32-bit immediate (Type II).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Word(pub u64);

impl Word {
    /// A Type I word.
    pub fn reg(op: u16, dst: u16, src1: u16, src2: u16) -> Word {
        Word((op as u64) << 48 | (dst as u64) << 32 | (src1 as u64) << 16 | src2 as u64)
    }

    /// A Type II word.
    pub fn imm(op: u16, dst: u16, imm: u32) -> Word {
        Word((op as u64) << 48 | (dst as u64) << 32 | imm as u64)
    }

    /// The opcode field.
    pub fn opcode(self) -> u16 {
        (self.0 >> 48) as u16
    }

    /// The opcode, if it is one the hardware definitions name.
    pub fn op(self) -> Option<Op> {
        Op::from_code(self.opcode())
    }

    /// The DST field (a register, or a jump target).
    pub fn dst(self) -> u16 {
        (self.0 >> 32) as u16
    }

    /// The SRC1 field.
    pub fn src1(self) -> u16 {
        (self.0 >> 16) as u16
    }

    /// The SRC2 field.
    pub fn src2(self) -> u16 {
        self.0 as u16
    }

    /// The 32-bit immediate of a Type II word.
    pub fn imm32(self) -> u32 {
        self.0 as u32
    }

    /// The 48 operand bits (DST and immediate together).
    pub fn operands48(self) -> u64 {
        self.0 & 0xFFFF_FFFF_FFFF
    }

    /// Type II when opcode bit 6 is set.
    pub fn form(self) -> Form {
        if self.opcode() & 0x40 != 0 {
            Form::ImmediateType
        } else {
            Form::RegisterType
        }
    }

    /// The high and low 32-bit halves, as `.mem` lines write them.
    pub fn halves(self) -> (u32, u32) {
        ((self.0 >> 32) as u32, self.0 as u32)
    }
}

/// A 16-bit operand: its register name, or the number.
fn operand(v: u16) -> String {
    register_name(v).map_or_else(|| v.to_string(), str::to_string)
}

/// The assembly text of one word; `target` names jump targets.
pub(crate) fn instruction_text(w: Word, target: impl Fn(u16) -> String) -> String {
    let Some(op) = w.op() else {
        return format!(".word {:#018x}", w.0);
    };
    let name = op.name();
    match (op, w.form()) {
        (Op::Nop | Op::Return, _) if w.operands48() <= 1 => {
            format!(
                "{name} {}",
                if w.operands48() == 1 {
                    "RT_TRUE"
                } else {
                    "RT_FALSE"
                }
            )
        }
        (_, Form::ImmediateType) => {
            let dst = if op.dst_is_target() {
                target(w.dst())
            } else {
                operand(w.dst())
            };
            let imm = w.imm32();
            match op {
                Op::Swizzle3D if swizzle_name(imm).is_some() => {
                    format!("{name} {dst} {}", swizzle_name(imm).unwrap_or_default())
                }
                Op::Jmp if imm == 0 => format!("{name} {dst} VOID VOID"),
                _ => format!("{name} {dst} 32'h{imm:X}"),
            }
        }
        (_, Form::RegisterType) => {
            let dst = if op.dst_is_target() {
                target(w.dst())
            } else {
                operand(w.dst())
            };
            format!("{name} {dst} {} {}", operand(w.src1()), operand(w.src2()))
        }
    }
}
