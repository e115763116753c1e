//! Running compiled functions in unit tests, without the runtime, and the checks every JIT
//! back end must pass: each is given a [`Compiler`] and asserts what a user would check.

mod common;
mod math;
mod ops;

pub use common::*;
pub use math::*;
pub use ops::*;
