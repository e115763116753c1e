//! tgsic-runtime: execution of TGSI shaders and the `tgsic` command-line program.
#![warn(missing_docs)]

pub mod attributes;
pub mod compare;
pub mod dispatch;
pub mod host;
pub mod interp;
pub mod ireval;
pub mod jit;
pub mod texture;
