//! Code generators: `cranelift` (native SIMD code through Cranelift, the default JIT) and
//! `theia` (the THEIA b1.2 instruction set model: encoding, assembler, disassembler, program
//! images; its code generator follows).

pub mod abi;
pub mod cranelift;
pub mod theia;
