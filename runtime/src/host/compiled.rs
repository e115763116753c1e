//! A compiled shader: one engine behind one interface, with what a host asks of it.
//!
//! Every engine a [`Compiled`] shader can hold (the interpreter, a JIT, a tiered pair, and with
//! the feature `test-support` an engine of a test's own) is an `Engine` that answers the host's
//! questions ([`Shader`]); [`Runner`] erases its working memory's type, so `Compiled` holds any
//! of them without matching on which.

use super::error::HostError;
use crate::batches::{Slots, Workers};
use crate::dispatch::DrawReport;
use crate::dispatch::RunControl;
use crate::engine::{BatchIo, BatchReport, Bindings, CompileOptions, Engine, EngineKind, Feed};
use crate::engine::{Internal, Module, Reflection, Resources, RunError};
use crate::jit::tiered::TieredShader;
use crate::jit::{CacheUse, CompileError, JitShader, Lookups};
use std::any::Any;
use std::sync::Arc;
use std::time::Duration;
use tgsic::back::compiled::CompiledShader;

/// An engine's working memory, its type erased.
pub(crate) type Scratch = Box<dyn Any + Send>;

/// The questions a host asks of the engine a [`Compiled`] shader runs on (the defaults are the
/// interpreter's answers: no compile time, no machine code, no code cache).
pub(crate) trait Shader {
    /// How long lifting, optimizing and code generation took.
    fn compile_time(&self) -> Duration {
        Duration::ZERO
    }

    /// The engine that runs the next batch, when it is not the one compiled for (a tier).
    fn tier(&self) -> Option<EngineKind> {
        None
    }

    /// Waits until the best code is ready (a tiered shader's second tier).
    fn wait(&self) {}

    /// Whether the code came from the code cache on disk.
    fn cache_use(&self) -> CacheUse {
        CacheUse::Off
    }

    /// The machine code a run with `lookups` executes, compiled now if it was not yet.
    fn code(&self, _lookups: Lookups<'_>) -> Result<Arc<CompiledShader>, HostError> {
        Err(HostError::NoCode)
    }

    /// The machine code `lookups` calls for, with its IR and disassembly.
    fn code_text(&self, _lookups: Lookups<'_>) -> Result<CompiledShader, HostError> {
        Err(HostError::NoCode)
    }

    /// Compiles now the code variant `lookups` calls for, so that a run with them starts at
    /// once.
    fn prepare(&self, _lookups: Lookups<'_>) -> Result<(), CompileError> {
        Ok(())
    }

    /// Runs a compute program over `grid` work groups with `res`'s memory.
    fn dispatch(
        &self,
        _bind: &Bindings,
        _res: &mut Resources<'_>,
        _grid: [u32; 3],
        _control: &RunControl<'_>,
        _workers: Workers<'_>,
    ) -> Result<(), RunError> {
        Err(RunError::Internal(Internal::NoComputeEngine))
    }

    /// Draws a fragment shader with memory over `rect` (see [`Compiled::draw`]).
    fn draw(
        &self,
        _bind: &Bindings,
        _res: &mut Resources<'_>,
        _frame: (u32, u32, u32),
        _rect: [u32; 4],
        _control: &RunControl<'_>,
        _color: &mut dyn FnMut(u32, u32, [f32; 4]),
    ) -> Result<DrawReport, RunError> {
        Err(RunError::Internal(Internal::NoComputeEngine))
    }
}

impl Shader for Module {
    fn dispatch(
        &self,
        bind: &Bindings,
        res: &mut Resources<'_>,
        grid: [u32; 3],
        control: &RunControl<'_>,
        _workers: Workers<'_>,
    ) -> Result<(), RunError> {
        // softpipe's order, on the calling thread.
        crate::interp::dispatch(self, bind, res, grid, control)
    }

    fn draw(
        &self,
        bind: &Bindings,
        res: &mut Resources<'_>,
        frame: (u32, u32, u32),
        rect: [u32; 4],
        control: &RunControl<'_>,
        color: &mut dyn FnMut(u32, u32, [f32; 4]),
    ) -> Result<DrawReport, RunError> {
        crate::interp::draw(self, bind, res, frame, rect, control, color)
    }
}

impl Shader for JitShader {
    fn compile_time(&self) -> Duration {
        self.compile_time
    }

    fn cache_use(&self) -> CacheUse {
        self.cache
    }

    fn code(&self, lookups: Lookups<'_>) -> Result<Arc<CompiledShader>, HostError> {
        Ok(JitShader::code(self, lookups)?)
    }

    fn code_text(&self, lookups: Lookups<'_>) -> Result<CompiledShader, HostError> {
        Ok(self.code_with_text(lookups)?)
    }

    fn prepare(&self, lookups: Lookups<'_>) -> Result<(), CompileError> {
        if !matches!(lookups, Lookups::Callback) {
            self.code(lookups)?;
        }
        Ok(())
    }

    fn dispatch(
        &self,
        bind: &Bindings,
        res: &mut Resources<'_>,
        grid: [u32; 3],
        control: &RunControl<'_>,
        workers: Workers<'_>,
    ) -> Result<(), RunError> {
        JitShader::dispatch(self, bind, res, grid, control, workers)
    }

    fn draw(
        &self,
        bind: &Bindings,
        res: &mut Resources<'_>,
        frame: (u32, u32, u32),
        rect: [u32; 4],
        control: &RunControl<'_>,
        color: &mut dyn FnMut(u32, u32, [f32; 4]),
    ) -> Result<DrawReport, RunError> {
        JitShader::draw(self, bind, res, frame, rect, control, color)
    }
}

impl Shader for TieredShader {
    fn compile_time(&self) -> Duration {
        TieredShader::compile_time(self)
    }

    fn tier(&self) -> Option<EngineKind> {
        Some(TieredShader::tier(self))
    }

    fn wait(&self) {
        TieredShader::wait(self);
    }

    fn cache_use(&self) -> CacheUse {
        TieredShader::cache_use(self)
    }

    fn code(&self, lookups: Lookups<'_>) -> Result<Arc<CompiledShader>, HostError> {
        Ok(TieredShader::code(self, lookups)?)
    }

    fn code_text(&self, lookups: Lookups<'_>) -> Result<CompiledShader, HostError> {
        Ok(self.code_with_text(lookups)?)
    }

    fn dispatch(
        &self,
        bind: &Bindings,
        res: &mut Resources<'_>,
        grid: [u32; 3],
        control: &RunControl<'_>,
        workers: Workers<'_>,
    ) -> Result<(), RunError> {
        TieredShader::dispatch(self, bind, res, grid, control, workers)
    }

    fn draw(
        &self,
        bind: &Bindings,
        res: &mut Resources<'_>,
        frame: (u32, u32, u32),
        rect: [u32; 4],
        control: &RunControl<'_>,
        color: &mut dyn FnMut(u32, u32, [f32; 4]),
    ) -> Result<DrawReport, RunError> {
        TieredShader::draw(self, bind, res, frame, rect, control, color)
    }
}

/// An [`Engine`] and its [`Shader`] answers, with its working memory's type erased: what
/// [`Compiled`] holds (every engine that is both is one).
pub(crate) trait Runner: Shader + Send + Sync {
    /// [`Engine::module`].
    fn module(&self) -> &Module;
    /// [`Engine::reads_columns`].
    fn reads_columns(&self) -> bool;
    /// [`Engine::scratch`], boxed.
    fn scratch(&self) -> Scratch;
    /// [`Engine::run_batch`] with boxed working memory.
    fn run_batch(
        &self,
        bind: &Bindings,
        io: &mut BatchIo,
        scratch: &mut Scratch,
    ) -> Result<BatchReport, RunError>;
    /// [`Engine::run_batches`] with boxed working memory.
    fn run_batches(
        &self,
        bind: &Bindings,
        io: &mut BatchIo,
        scratch: &mut Scratch,
        feed: &mut Feed<'_>,
    ) -> Result<(), RunError>;
}

/// The working memory `scratch` as `S`'s: it was made by the same shader's
/// [`Runner::scratch`], since every [`Compiled`] keeps its own slots.
fn own<S: Engine<Scratch: 'static>>(scratch: &mut Scratch) -> Result<&mut S::Scratch, RunError> {
    scratch
        .downcast_mut::<S::Scratch>()
        .ok_or(RunError::Internal(Internal::ForeignScratch))
}

impl<S> Runner for S
where
    S: Engine<Scratch: Send + 'static> + Shader + Send + Sync,
{
    fn module(&self) -> &Module {
        Engine::module(self)
    }

    fn reads_columns(&self) -> bool {
        Engine::reads_columns(self)
    }

    fn scratch(&self) -> Scratch {
        Box::new(Engine::scratch(self))
    }

    fn run_batch(
        &self,
        bind: &Bindings,
        io: &mut BatchIo,
        scratch: &mut Scratch,
    ) -> Result<BatchReport, RunError> {
        Engine::run_batch(self, bind, io, own::<S>(scratch)?)
    }

    fn run_batches(
        &self,
        bind: &Bindings,
        io: &mut BatchIo,
        scratch: &mut Scratch,
        feed: &mut Feed<'_>,
    ) -> Result<(), RunError> {
        Engine::run_batches(self, bind, io, own::<S>(scratch)?, feed)
    }
}

/// A shader compiled for one engine, ready to run any number of times (from any thread).
pub struct Compiled {
    pub(super) engine: Box<dyn Runner>,
    /// Working memory its runs reuse.
    pub(super) slots: Slots<Scratch>,
    pub(super) reflection: Arc<Reflection>,
    options: CompileOptions,
}

impl std::fmt::Debug for Compiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compiled")
            .field("options", &self.options)
            .field("processor", &self.reflection.processor)
            .finish()
    }
}

/// A compiled shader is an engine to the runtime's grid and list runners and its batch driver.
impl Engine for Compiled {
    type Scratch = Scratch;

    fn module(&self) -> &Module {
        self.engine.module()
    }

    fn reads_columns(&self) -> bool {
        self.engine.reads_columns()
    }

    fn scratch(&self) -> Scratch {
        self.engine.scratch()
    }

    fn run_batch(
        &self,
        bind: &Bindings,
        io: &mut BatchIo,
        scratch: &mut Scratch,
    ) -> Result<BatchReport, RunError> {
        self.engine.run_batch(bind, io, scratch)
    }

    fn run_batches(
        &self,
        bind: &Bindings,
        io: &mut BatchIo,
        scratch: &mut Scratch,
        feed: &mut Feed<'_>,
    ) -> Result<(), RunError> {
        self.engine.run_batches(bind, io, scratch, feed)
    }
}

impl Compiled {
    /// `engine` compiled with `options`.
    pub(crate) fn new(engine: Box<dyn Runner>, options: CompileOptions) -> Compiled {
        let reflection = engine.module().reflection_arc().clone();
        Compiled {
            engine,
            slots: Slots::default(),
            reflection,
            options,
        }
    }

    /// Compiles now the code variant `lookups` calls for (see [`super::Runtime::compile_for`]).
    pub(crate) fn prepare(&self, lookups: Lookups<'_>) -> Result<(), CompileError> {
        self.engine.prepare(lookups)
    }

    /// How long lifting, optimizing and code generation took (zero for the interpreter).
    pub fn compile_time(&self) -> Duration {
        self.engine.compile_time()
    }

    /// The shader's interface.
    pub fn reflection(&self) -> &Reflection {
        &self.reflection
    }

    /// The options it was compiled with.
    pub fn options(&self) -> CompileOptions {
        self.options
    }

    /// The engine that runs its next batch: for a tiered shader ([`EngineKind::Auto`]) the tier,
    /// Cranelift until LLVM's code is ready, then LLVM.
    pub fn tier(&self) -> EngineKind {
        self.engine.tier().unwrap_or(self.options.engine)
    }

    /// Waits until a tiered shader's best code is ready (or could not be had: without LLVM, or
    /// when LLVM fails); returns the tier that then runs. Other shaders return at once.
    pub fn wait_for_best(&self) -> EngineKind {
        self.engine.wait();
        self.tier()
    }

    /// Whether its code came from the code cache on disk (for the interpreter, and without a
    /// cache, [`CacheUse::Off`]).
    pub fn cache_use(&self) -> CacheUse {
        self.engine.cache_use()
    }

    /// The machine code a run with `lookups` executes (the variant its textures and samplers
    /// call for: [`CompiledShader::tex_paths`] says which lookups it samples itself), compiled
    /// now if no run compiled it yet.
    ///
    /// # Errors
    /// [`HostError::NoCode`] for a shader the interpreter runs, [`HostError::Codegen`] when
    /// the back end fails.
    pub fn code(&self, lookups: Lookups<'_>) -> Result<Arc<CompiledShader>, HostError> {
        self.engine.code(lookups)
    }

    /// The machine code of the variant `lookups` calls for, compiled again with the back
    /// end's IR and the disassembly kept ([`CompiledShader::ir_text`],
    /// [`CompiledShader::asm`]): what a run with those lookups executes, to read or measure.
    ///
    /// # Errors
    /// [`HostError::NoCode`] for a shader the interpreter runs, [`HostError::Codegen`] when
    /// the back end fails.
    pub fn code_text(&self, lookups: Lookups<'_>) -> Result<CompiledShader, HostError> {
        self.engine.code_text(lookups)
    }
}
