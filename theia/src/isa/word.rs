//! 64-bit instruction words.

use super::{Form, Op};

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
