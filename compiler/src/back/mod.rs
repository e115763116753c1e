//! Code generators. `theia` holds the THEIA b1.2 instruction set model (encoding, assembler,
//! disassembler, program images); its code generator follows.

pub mod theia;
