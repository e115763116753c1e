//! THEIA, the fixed-point ray-casting GPU: the b1.2 instruction set (`isa`) and the code
//! generator that compiles TGSI fragment shaders into THEIA program images (`compile`).

pub mod compile;
pub mod isa;
