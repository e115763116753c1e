//! tgsic-runtime: execution of TGSI shaders on the CPU.
#![warn(missing_docs)]

pub mod dispatch;
pub mod host;
pub mod interp;
pub mod ireval;
pub mod jit;
pub mod texture;
