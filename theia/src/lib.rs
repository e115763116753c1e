//! tgsic-theia: everything THEIA, the fixed-point ray-casting GPU, in one crate.
//!
//! - [`isa`]: the b1.2 instruction set: opcodes, registers, instruction words, the assembler,
//!   the disassembler and program images (`.mem`, `.bin`).
//! - [`compile`]: TGSI fragment shaders to THEIA program images, through tgsic's IR and
//!   optimizer.
//! - [`sim`]: the bit-exact simulator of the b1.2 execution unit.
//!
//! It builds on the `tgsic` compiler crate (the TGSI model, the IR, the optimizer); nothing
//! but the `tgsic` program and the tests depends on it, so a host that only runs shaders on
//! the CPU compiles none of it. `docs/theia.md` describes the machine, the bindings and the
//! lowering.
#![warn(missing_docs)]

pub mod compile;
pub mod isa;
pub mod sim;
