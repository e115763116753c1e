//! The THEIA b1.2 instruction set: opcodes, registers, macros, entry slots, instruction words,
//! the assembler, the disassembler and program images.
//!
//! The b1.2 RTL wins over the programming manual where they differ (`docs/theia.md`): opcode numbers and register addresses are those of the hardware definitions
//! (`aDefinitions.v`), names are case-sensitive (`CREG_T` is 88, `CREG_t` is 99).

mod asm;
mod binary;
mod defs;
mod dis;
mod word;

pub use asm::{AsmError, AsmErrorKind, Layout, assemble};
pub use binary::{Binary, BinaryError, BinaryFormat, read_bin, read_mem, write_bin, write_mem};
pub use dis::disassemble;
pub use word::Word;

pub use defs::{
    ENTRY_SLOTS, Form, IMEM_BASE, JumpComponent, JumpCond, MACROS_32, MACROS_48, ONE, Op, OpInfo,
    REGISTERS, SCALE, Support, Vec3, entry_slot, f64_to_fixed, fixed_to_f64, register_address,
    register_name, swizzle_name,
};

#[cfg(test)]
mod tests;
