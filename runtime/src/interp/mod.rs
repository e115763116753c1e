//! The reference interpreter: executes a validated TGSI program over batches of invocations in
//! structure-of-arrays form, with execution masks, so divergent control flow is exact per
//! invocation. Fragment work runs in 2×2 quads (derivatives). Semantics: `docs/semantics.md`.
//!
//! ```
//! use tgsic_runtime::host::{Bindings, CompileOptions, EngineKind, Frame, RunControl, Runtime};
//! let rt = Runtime::new(Default::default())?;
//! let shader = rt.load(b"FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nMOV OUT[0], IN[0]\nEND\n")?;
//! let interp = rt.compile(&shader, &CompileOptions::with_engine(EngineKind::Interpreter))?;
//! let frame = Frame { width: 4, height: 4, output: 0 };
//! let picture = interp.render(&rt, &Bindings::default(), frame, &RunControl::default())?;
//! // Generic inputs are ((i + 0.5)/W, (j + 0.5)/H, 0, 1).
//! assert_eq!(picture.pixel(1, 2), [0.375, 0.625, 0.0, 1.0]);
//! # Ok::<(), tgsic_runtime::host::HostError>(())
//! ```

// Lane and component indices address several parallel arrays at once in this SIMD code.
#![allow(clippy::needless_range_loop)]

mod alu;
mod compute;
mod exec;
mod flow;
mod fragments;
mod memory;
mod num;
mod tex;
mod wide;

use crate::engine::{BatchIo, BatchReport, Bindings, Engine, Module, RunError};
pub(crate) use compute::dispatch;
use exec::Exec;
pub use exec::Regs;
pub(crate) use fragments::draw;

/// The interpreter as an execution engine.
impl Engine for Module {
    type Scratch = Regs;

    fn module(&self) -> &Module {
        self
    }

    fn scratch(&self) -> Regs {
        Regs::new(self)
    }

    fn run_batch(
        &self,
        bind: &Bindings,
        io: &mut BatchIo,
        regs: &mut Regs,
    ) -> Result<BatchReport, RunError> {
        regs.reset();
        std::mem::swap(&mut regs.inputs, &mut io.inputs);
        std::mem::swap(&mut regs.sv, &mut io.sv);
        let result = {
            let mut ex = Exec::new(self, bind, regs, io.alive, io.arrangement);
            ex.helpers = io.helpers;
            // The arithmetic flushes denormals in software (`num`): no Rust code
            // runs with the MXCSR's DAZ/FTZ bits set.
            ex.run().map(|()| std::mem::take(&mut ex.report))
        };
        std::mem::swap(&mut regs.inputs, &mut io.inputs);
        std::mem::swap(&mut regs.sv, &mut io.sv);
        std::mem::swap(&mut regs.outputs, &mut io.outputs);
        result
    }
}
