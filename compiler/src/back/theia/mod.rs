//! THEIA, the fixed-point ray-casting GPU: the b1.2 instruction set (`isa`).

pub mod isa;
