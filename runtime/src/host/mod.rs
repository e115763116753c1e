//! The host API: compile a shader once, run it any number of times on inputs the host provides,
//! into buffers the host owns.
//!
//! - A [`Runtime`] lives as long as the host: it owns the worker threads and a bounded cache
//!   of compiled shaders keyed by the full program tokens and the compile options (never a
//!   hash alone, so two programs can never share an entry).
//! - [`Runtime::load`] reads a shader (text or binary) and validates it once: a [`Module`],
//!   with its [`Reflection`] (inputs with semantics and interpolation, outputs, constant
//!   buffers and their sizes, samplers and views with their targets, properties).
//! - [`Runtime::compile`] gives a [`Compiled`] shader for an engine and its options
//!   ([`CompileOptions`]: interpreter, Cranelift or LLVM, math, lanes, optimization), from the
//!   cache when it can; [`Runtime::compile_for`] also compiles up front the code variant a
//!   run's textures and samplers call for ([`Lookups`]).
//! - [`Compiled::run_fragments`], [`Compiled::run_vertices`] and [`Compiled::run_primitives`]
//!   run invocations: the host's input and output buffers in array-of-structures or
//!   structure-of-arrays form ([`Layout`]); after a shader's first run nothing is allocated
//!   per call. [`Compiled::render`] and its kin run a fragment shader over a pixel grid and
//!   vertex or primitive lists (`frames.rs`), as the `tgsic` program does.
//! - [`Compiled::dispatch`] runs a compute program over a grid of work groups and
//!   [`Compiled::draw`] a fragment shader over a rectangle, both reading and writing the
//!   host's buffers and images ([`Resources`]) in place (`memory.rs`).
//!
//! Bottom up: `error.rs` the errors; `compiled.rs` a compiled shader over any engine;
//! `runtime.rs` the runtime, its caches and compiling; `invoke.rs` the runs over the host's
//! buffers; `frames.rs` pictures and lists; `mod.rs` this facade, which re-exports every type
//! a host needs. Every run goes through the runtime's one batch driver.
//!
//! Errors are [`HostError`]s; nothing a host passes makes the API panic.
//!
//! ```
//! use tgsic_runtime::host::{Bindings, CompileOptions, Invocations, Layout, Runtime, RuntimeOptions};
//! let rt = Runtime::new(RuntimeOptions::default())?;
//! let module = rt.load(b"FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0], COLOR\nADD OUT[0], IN[0], IN[0]\nEND\n")?;
//! let shader = rt.compile(&module, &CompileOptions::default())?;
//! let inputs: Vec<u32> = [0.25f32, 0.5, 0.0, 1.0].repeat(4).iter().map(|x| x.to_bits()).collect();
//! let mut colours = vec![0u32; inputs.len()];
//! let work = Invocations::new(4, Layout::Aos, &inputs, &mut colours);
//! shader.run_fragments(&rt, &Bindings::default(), work)?;
//! assert_eq!(f32::from_bits(colours[1]), 1.0);
//! # Ok::<(), tgsic_runtime::host::HostError>(())
//! ```

mod caches;
pub(crate) mod compiled;
mod error;
mod frames;
mod invoke;
mod memory;
mod runtime;

pub use compiled::Compiled;
pub use error::HostError;
pub use frames::Frame;
pub use invoke::{Emission, Invocations, Layout, RunReport, quad_order};
pub use memory::Draw;
pub use runtime::{Runtime, RuntimeOptions};

// What a shader is and what it reads.
pub use crate::engine::{Bindings, ConstantBuffer, Module, Reflection, SamplerView, Varying};
pub use crate::engine::{Internal, LoadError, RunError, constant_registers};
// The memory of compute programs and of shaders with buffers and images.
pub use crate::dispatch::DrawReport;
pub use crate::engine::{Image, MAX_GROUPS_PER_AXIS, MAX_SHARED_BYTES, MemoryError, Resources};
#[doc(no_inline)]
pub use tgsic::tgsi::ImageFormat;
#[doc(no_inline)]
pub use tgsic::valid::MAX_GROUP_INVOCATIONS;
// How it compiles, and the code cache.
pub use crate::cache::{CacheDir, DEFAULT_MAX_BYTES};
pub use crate::engine::{CompileOptions, EngineKind};
pub use crate::jit::{CacheUse, Lookups};
#[doc(no_inline)]
pub use tgsic::back::TargetFeatures;
#[doc(no_inline)]
pub use tgsic::back::abi::MathMode;
#[doc(no_inline)]
pub use tgsic::opt::OptLevel;
// Grids and lists: what a run over a pixel grid or vertex and primitive lists gives.
pub use crate::dispatch::{
    Band, BandOrder, Invocation, MAX_THREADS, Picture, PixelBuffer, RunControl, band_rows_for,
};
// Textures and samplers.
#[doc(no_inline)]
pub use crate::texture::Compare;
pub use crate::texture::{
    Filter, MAX_TEXELS, MAX_TEXTURE_SIDE, MipFilter, Sampler, Texture, TextureError, Wrap,
    check_size,
};

#[cfg(test)]
mod tests;
