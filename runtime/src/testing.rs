//! The batch level, for tests (feature `test-support`; hosts use [`crate::host`] alone).
//!
//! Engine tests need what the host API leaves out on purpose: single batches with chosen live
//! and helper lanes and the full [`BatchReport`] (lanes a shader leaves unspecified, emitted
//! vertices lane by lane), and engines of their own (the IR evaluator of the `tests` crate).
//! Both still run through [`Compiled`]: [`Compiled::from_engine`] wraps an [`Engine`], and
//! [`Compiled::run_batch`] runs one batch of any compiled shader.

pub use crate::engine::{
    ALL, Arrangement, BATCH_LANES, BatchIo, BatchReport, Chan, Emitted, Engine, Feed, Mask, Reg,
};
pub use crate::lookup::{TexRequest, sample};

use crate::engine::{Bindings, CompileOptions, Module, RunError};
use crate::host::Compiled;
use crate::host::compiled::Shader;

/// An engine of a test's own, as a [`Shader`] (which answers the host's questions as the
/// interpreter does).
struct Own<E>(E);

impl<E: Engine> Engine for Own<E> {
    type Scratch = E::Scratch;

    fn module(&self) -> &Module {
        self.0.module()
    }

    fn scratch(&self) -> E::Scratch {
        self.0.scratch()
    }

    fn reads_columns(&self) -> bool {
        self.0.reads_columns()
    }

    fn run_batch(
        &self,
        bind: &Bindings,
        io: &mut BatchIo,
        scratch: &mut E::Scratch,
    ) -> Result<BatchReport, RunError> {
        self.0.run_batch(bind, io, scratch)
    }

    fn run_batches(
        &self,
        bind: &Bindings,
        io: &mut BatchIo,
        scratch: &mut E::Scratch,
        feed: &mut Feed<'_>,
    ) -> Result<(), RunError> {
        self.0.run_batches(bind, io, scratch, feed)
    }
}

impl<E> Shader for Own<E> {}

impl Compiled {
    /// `engine` as a compiled shader: every run of [`Compiled`] (pictures, lists, the host's
    /// buffers) runs it through the runtime's batch driver as it runs the runtime's engines.
    /// `options` is what [`Compiled::options`] reports.
    pub fn from_engine<E>(engine: E, options: CompileOptions) -> Compiled
    where
        E: Engine<Scratch: Send + 'static> + Send + Sync + 'static,
    {
        Compiled::new(Box::new(Own(engine)), options)
    }

    /// Runs one batch: `io`'s inputs and lanes as given, every OUT register written.
    ///
    /// # Errors
    /// [`RunError`] as [`Engine::run_batch`] says.
    pub fn run_batch(&self, bind: &Bindings, io: &mut BatchIo) -> Result<BatchReport, RunError> {
        let mut scratch = Engine::scratch(self);
        Engine::run_batch(self, bind, io, &mut scratch)
    }
}
