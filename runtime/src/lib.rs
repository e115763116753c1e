//! tgsic-runtime: execution of TGSI shaders on the CPU.
//!
//! - [`engine`]: the vocabulary every engine shares (the module, bindings, batches,
//!   the `Engine` trait, errors).
//! - [`interp`]: the reference interpreter; [`ireval`]: the IR evaluator; [`jit`]: the JIT
//!   executor over the compiler's back ends.
//! - [`lookup`]: texture lookups on bound textures, which every engine samples through;
//!   [`texture`]: textures, samplers and mip chains.
//! - [`batches`]: the one batch driver, on the calling thread or worker threads;
//!   [`dispatch`]: running an engine over an image, vertices or primitives through it.
//! - [`host`]: the host API: compile once, run many times; [`cache`]: the code cache on disk.
#![warn(missing_docs)]

pub mod batches;
pub mod cache;
pub mod dispatch;
pub mod engine;
pub mod host;
pub mod interp;
pub mod ireval;
pub mod jit;
pub mod lookup;
pub mod texture;
