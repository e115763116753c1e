//! Code generators for the CPU.
//!
//! - [`simd`]: the one lowering of the IR to SIMD code, written against a builder trait that
//!   each JIT back end implements.
//! - [`cranelift`]: native SIMD code through Cranelift, the default JIT.
//! - `llvm` (cargo feature `llvm`): native code through LLVM 19, as wide as the host's vectors.
//!
//! THEIA, the fixed-point GPU, has its own crate (`tgsic-theia`).
//!
//! The JIT back ends share their calling interface ([`abi`]), the host operations they call
//! ([`host`]) and the analysis of where NaN bits must be canonicalized ([`nan`]).

pub mod abi;
pub mod cranelift;
pub mod fpenv;
pub mod host;
#[cfg(feature = "llvm")]
pub mod llvm;
pub mod nan;
pub mod simd;
#[cfg(test)]
mod tests_support;
