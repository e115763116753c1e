//! tgsic: a compiler for TGSI, the shader language of Gallium3D.
//!
//! - [`tgsi`]: the program model shared by every stage.
//! - [`front`]: reading and writing TGSI in binary token form and in Mesa's text form.
//! - [`valid`]: validation of a program after it was read.
//! - [`numerics`]: the scalar numerics every execution path shares.
//! - [`ir`]: the SSA IR, lifted from a validated program.
//! - [`opt`]: the optimizer (passes and the pass manager).
//! - [`back`]: code generators: the JIT back ends (Cranelift, and LLVM behind the `llvm`
//!   feature) over one SIMD lowering, and THEIA (compiler, instruction set, assembler).
#![warn(missing_docs)]

pub mod back;
pub mod front;
pub mod ir;
mod maps;
pub mod numerics;
pub mod opt;
pub mod tgsi;
pub mod valid;
