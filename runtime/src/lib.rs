//! tgsic-runtime: execution of TGSI shaders on the CPU, behind one host API ([`host`]).
//!
//! A host reads a shader into a [`host::Module`], compiles it once for an engine (the reference
//! interpreter, Cranelift, LLVM, or both tiered) into a [`host::Compiled`] shader, and runs it
//! any number of times over its own buffers, a pixel grid, or vertex and primitive lists. Every
//! run goes through [`host::Compiled`]; the engines, the batch driver and the grid and list
//! runners are this crate's own.
//!
//! Inside, data flows one way (`docs/architecture.md`):
//! - `engine`: the vocabulary every engine shares (the module, bindings, batches, the
//!   `Engine` trait, errors); `texture` and `lookup`: textures and their lookups, which every
//!   engine samples through;
//! - `interp`: the reference interpreter; `jit`: the JIT executor over the compiler's back
//!   ends, and tiering; `cache`: the code cache on disk;
//! - `batches`: the one batch driver; `dispatch`: grids, vertex and primitive lists through
//!   it; [`host`]: the runtime a host keeps and the shaders it compiles.
//!
//! With the feature `test-support`, `testing` opens the batch level to tests (engines of
//! their own, batches with chosen lanes); hosts do not need it.
#![warn(missing_docs)]

mod batches;
mod cache;
mod dispatch;
mod engine;
pub mod host;
mod interp;
mod jit;
mod lookup;
#[cfg(feature = "test-support")]
pub mod testing;
mod texture;
