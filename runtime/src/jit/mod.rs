//! The JIT executor: a shader lifted, optimized and compiled by a JIT back end
//! ([`Backend`]: Cranelift, or LLVM with the cargo feature `llvm`) through the compiler's one
//! entry point ([`tgsic::back::compile`]), run over the same batches as the interpreter
//! ([`Engine`]). Both back ends generate code with the same calling interface, so one
//! executor runs either.
//!
//! - `mod.rs`: [`JitShader`], its code variants and its batches.
//! - `textures.rs`: which texture lookups a batch's bindings let the code sample itself, and
//!   their descriptors.
//! - `callbacks.rs`: what the code calls back for: the lookups it does not sample, and EMIT.
//!
//! Compiled shaders are cached by the host API's [`Runtime`](crate::host::Runtime), not here.
//!
//! ```
//! use tgsic_runtime::host::{Bindings, CompileOptions, EngineKind, Frame, RunControl, Runtime};
//! let rt = Runtime::new(Default::default())?;
//! let shader = rt.load(b"FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nMUL OUT[0], IN[0], IN[0]\nEND\n")?;
//! let frame = Frame { width: 16, height: 16, output: 0 };
//! let render = |engine| -> Result<_, tgsic_runtime::host::HostError> {
//!     let compiled = rt.compile(&shader, &CompileOptions::with_engine(engine))?;
//!     Ok(compiled.render(&rt, &Bindings::default(), frame, &RunControl::default())?.pixels)
//! };
//! assert_eq!(render(EngineKind::Cranelift)?, render(EngineKind::Interpreter)?);
//! # Ok::<(), tgsic_runtime::host::HostError>(())
//! ```

// Lane and component indices address several parallel arrays at once.
#![allow(clippy::needless_range_loop)]

mod callbacks;
mod compute;
#[cfg(test)]
mod tests;
mod textures;
pub mod tiered;

use crate::cache::{CodeKey, DiskCache};
use crate::engine::{
    Arrangement, BATCH_LANES, BatchIo, BatchReport, Bindings, CompileOptions, Engine, EngineKind,
    Feed, Internal, Module, Reg, RunError,
};
pub(crate) use callbacks::MemoryCtx;
use callbacks::{
    Callbacks, emit_callback_entered, memory_callback_entered, texture_callback_entered,
};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};
use textures::{TexDescs, TexGroups, ZEROS, groups_and_paths, tex_paths};

pub use textures::Lookups;
use tgsic::back::abi::{ConstBuffer, JitArgs, JitError, MAX_CONST_REGISTERS, MemDesc};
use tgsic::back::compiled::CompiledShader;
use tgsic::back::fpenv::FpEnv;
use tgsic::back::persist::FunctionFacts;
use tgsic::back::texpath::TexPaths;
use tgsic::back::{Backend, CodegenOptions};
use tgsic::ir::Function;
use tgsic::ir::lift::LiftError;
use tgsic::opt::optimize;
use thiserror::Error;

/// Why a shader cannot be JIT-compiled.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CompileError {
    /// The program cannot be lifted into the IR.
    #[error(transparent)]
    Lift(#[from] LiftError),
    /// Code generation failed, or the back end is not in this build.
    #[error(transparent)]
    Codegen(#[from] JitError),
    /// The options ask for an engine that compiles no code.
    #[error("the {0} engine compiles no code: a JIT shader needs cranelift or llvm")]
    NotJit(EngineKind),
    /// An invariant of the runtime did not hold (a bug in tgsic).
    #[error("internal error: {0}")]
    Internal(Internal),
}

impl CompileError {
    /// Where the error is, when it concerns one instruction.
    pub fn location(&self) -> Option<&tgsic::tgsi::Location> {
        match self {
            CompileError::Lift(e) => e.location(),
            _ => None,
        }
    }

    /// The message without its location (for tools that print the location themselves).
    pub fn detail(&self) -> String {
        match self {
            CompileError::Lift(e) => e.detail(),
            other => other.to_string(),
        }
    }
}

/// A JIT-compiled shader.
///
/// Its code comes in variants, one per set of texture operations sampled in the generated
/// code rather than through the runtime's sampler, and how ([`TexPaths`]), which the bound
/// textures and samplers decide, as llvmpipe keys its shaders by sampler state. A batch runs
/// the variant its bindings call for, compiled the first time they do and kept with the
/// shader (and its clones).
#[derive(Debug, Clone)]
pub struct JitShader {
    /// The program (its declarations decide the inputs).
    pub prepared: Arc<Module>,
    /// The code compiled when the shader was made: the variant its [`JitSpec::lookups`]
    /// called for.
    pub compiled: Arc<CompiledShader>,
    /// Time spent lifting, optimizing and compiling `compiled` (or reading it from the code
    /// cache); variants compiled later are not counted.
    pub compile_time: Duration,
    /// Whether the code cache answered for `compiled`.
    pub cache: CacheUse,
    /// The back end that compiles its variants, and how.
    backend: Backend,
    codegen: CodegenOptions,
    /// Its variants, the IR they are compiled from and what the code needs of it.
    variants: Arc<Variants>,
    /// The texture operations of the code, grouped by descriptor.
    tex_groups: TexGroups,
    /// This shader among all made in the process: the scratches it makes carry it.
    id: u64,
    /// The registers its batches hold ([`crate::dispatch::io_sizes`]), as the code addresses
    /// them.
    io: [usize; 3],
}

/// Whether a shader's code came from the code cache on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheUse {
    /// No cache.
    Off,
    /// Read from the cache.
    Hit,
    /// Compiled, and stored in the cache.
    Miss,
}

/// A function's compiled variants, by the texture operations they sample themselves, and the
/// code cache they are looked up in first.
#[derive(Debug)]
struct Variants {
    map: Mutex<HashMap<TexPaths, Arc<CompiledShader>>>,
    /// The cache, and what every key of this function's variants starts with.
    disk: Option<(Arc<DiskCache>, CodeKey)>,
    /// The IR the variants are compiled from.
    ir: LazyIr,
    /// What the variants' code needs of the function (its facts): the code cache holds them
    /// beside the variants, so that a later start runs them without lifting the program.
    facts: FunctionFacts,
    /// Whether the facts are known to be in the code cache.
    facts_stored: AtomicBool,
}

/// The optimized IR of a shader, made when first needed: a shader whose code came from the
/// code cache runs without it and lifts the program only to compile another variant.
#[derive(Debug)]
struct LazyIr {
    module: Arc<Module>,
    opts: CompileOptions,
    function: OnceLock<Arc<Function>>,
}

impl LazyIr {
    /// The IR, lifted and optimized now if it was not yet.
    ///
    /// # Errors
    /// [`CompileError::Lift`].
    fn get(&self) -> Result<&Arc<Function>, CompileError> {
        if let Some(f) = self.function.get() {
            return Ok(f);
        }
        let f = JitShader::lift(&self.module, &self.opts)?;
        Ok(self.function.get_or_init(|| f))
    }
}

/// What a JIT shader is made from: the module and options, the code variant to have first
/// (`lookups`), the code cache, and, for a tier, the optimized IR another tier lifted.
pub(crate) struct JitSpec<'a> {
    /// The program.
    pub module: Arc<Module>,
    /// The options (their engine a JIT back end's; a tiered shader makes one spec per tier).
    pub opts: CompileOptions,
    /// The variant compiled (or read) first.
    pub lookups: Lookups<'a>,
    /// Where variants are looked up first and stored.
    pub disk: Option<Arc<DiskCache>>,
    /// The IR, already lifted and optimized as `opts` asks.
    pub function: Option<Arc<Function>>,
}

impl JitSpec<'_> {
    /// `module` compiled as `opts` asks, every texture lookup through the runtime's sampler,
    /// no code cache.
    #[cfg(test)]
    pub(crate) fn new(module: Module, opts: &CompileOptions) -> JitSpec<'static> {
        JitSpec {
            module: Arc::new(module),
            opts: *opts,
            lookups: Lookups::Callback,
            disk: None,
            function: None,
        }
    }
}

/// A JIT shader before its first code: everything but the code.
struct Parts {
    started: Instant,
    module: Arc<Module>,
    backend: Backend,
    codegen: CodegenOptions,
    variants: Arc<Variants>,
    tex_groups: TexGroups,
    paths: TexPaths,
}

impl Parts {
    /// Lifts and optimizes `spec`'s program unless its IR is given; chooses the back end.
    fn of(spec: JitSpec<'_>) -> Result<Parts, CompileError> {
        let started = Instant::now();
        let (backend, codegen, disk) = Parts::target(&spec)?;
        let function = match &spec.function {
            Some(f) => f.clone(),
            None => JitShader::lift(&spec.module, &spec.opts)?,
        };
        let facts = FunctionFacts::of(&function);
        let ir = LazyIr {
            module: spec.module.clone(),
            opts: spec.opts,
            function: OnceLock::from(function),
        };
        Ok(Parts::with(
            started, spec, backend, codegen, disk, ir, facts,
        ))
    }

    /// As [`Parts::of`] without lifting the program, from the facts of its function in the
    /// code cache: `None` when it holds none for these options.
    fn unlifted(spec: &JitSpec<'_>) -> Result<Option<Parts>, CompileError> {
        let started = Instant::now();
        let (backend, codegen, disk) = Parts::target(spec)?;
        let Some((cache, key)) = &disk else {
            return Ok(None);
        };
        let Some(facts) = cache
            .load(&key.facts_bytes())
            .and_then(|b| FunctionFacts::from_bytes(&b).ok())
        else {
            return Ok(None);
        };
        let ir = LazyIr {
            module: spec.module.clone(),
            opts: spec.opts,
            function: OnceLock::new(),
        };
        let spec = JitSpec {
            module: spec.module.clone(),
            disk: None,
            function: None,
            ..*spec
        };
        let p = Parts::with(started, spec, backend, codegen, disk, ir, facts);
        p.variants.facts_stored.store(true, Ordering::Relaxed);
        Ok(Some(p))
    }

    /// The back end `spec` asks for, its options, and the code cache with the key of this
    /// program's variants (none when the back end cannot say what it targets).
    #[allow(clippy::type_complexity)]
    fn target(
        spec: &JitSpec<'_>,
    ) -> Result<(Backend, CodegenOptions, Option<(Arc<DiskCache>, CodeKey)>), CompileError> {
        let opts = &spec.opts;
        let backend = opts
            .engine
            .backend()
            .ok_or(CompileError::NotJit(opts.engine))?;
        let codegen = CodegenOptions {
            math: opts.math,
            lanes: opts.lanes,
            features: opts.features,
            ..CodegenOptions::default()
        };
        // A back end that cannot say what it targets is not cached.
        let disk = spec.disk.clone().and_then(|d| {
            let target = tgsic::back::target_id(backend, opts.features).ok()?;
            let key = CodeKey {
                target,
                options: *opts,
                tokens: spec.module.tokens().clone(),
            };
            Some((d, key))
        });
        Ok((backend, codegen, disk))
    }

    fn with(
        started: Instant,
        spec: JitSpec<'_>,
        backend: Backend,
        codegen: CodegenOptions,
        disk: Option<(Arc<DiskCache>, CodeKey)>,
        ir: LazyIr,
        facts: FunctionFacts,
    ) -> Parts {
        let (tex_groups, paths) = groups_and_paths(&facts.tex_ops, backend, spec.lookups);
        let variants = Arc::new(Variants {
            map: Mutex::default(),
            disk,
            ir,
            facts,
            facts_stored: AtomicBool::new(false),
        });
        Parts {
            started,
            module: spec.module,
            backend,
            codegen,
            variants,
            tex_groups,
            paths,
        }
    }

    /// The shader, with `compiled` its first code.
    fn finish(self, compiled: Arc<CompiledShader>, cache: CacheUse) -> JitShader {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        JitShader {
            io: self.module.io_sizes(),
            prepared: self.module,
            compiled,
            compile_time: self.started.elapsed(),
            cache,
            backend: self.backend,
            codegen: self.codegen,
            variants: self.variants,
            tex_groups: self.tex_groups,
            id: NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        }
    }
}

impl JitShader {
    /// The one way to make a JIT shader: lifts and optimizes `spec`'s program (unless its IR is
    /// given) and compiles the variant `spec.lookups` calls for, or reads it from the code
    /// cache. Batches whose bindings call for another variant compile it when first run.
    ///
    /// # Errors
    /// [`CompileError`] when the program cannot be lifted or compiled, or the options name
    /// the interpreter.
    pub(crate) fn compile(spec: JitSpec<'_>) -> Result<JitShader, CompileError> {
        if let Some(hit) = JitShader::from_cache_unlifted(&spec)? {
            return Ok(hit);
        }
        let p = Parts::of(spec)?;
        let (code, cache) = p.variants.get(p.backend, &p.codegen, p.paths)?;
        Ok(p.finish(code, cache))
    }

    /// The shader of `spec` from the code cache without lifting its program, when the cache
    /// holds its function's facts and the variant `spec.lookups` calls for (`None` when it
    /// does not, or `spec` brings the IR).
    pub(crate) fn from_cache_unlifted(
        spec: &JitSpec<'_>,
    ) -> Result<Option<JitShader>, CompileError> {
        if spec.function.is_some() {
            return Ok(None);
        }
        let Some(p) = Parts::unlifted(spec)? else {
            return Ok(None);
        };
        Ok(p.variants
            .cached(p.backend, &p.codegen, p.paths)
            .map(|code| p.finish(code, CacheUse::Hit)))
    }

    /// As [`JitShader::compile`], with the first variant only from the code cache: `None`
    /// when the cache does not hold it (a tiered shader's second start, which then compiles
    /// its first tier instead).
    ///
    /// # Errors
    /// As [`JitShader::compile`].
    pub(crate) fn from_cache(spec: JitSpec<'_>) -> Result<Option<JitShader>, CompileError> {
        if let Some(hit) = JitShader::from_cache_unlifted(&spec)? {
            return Ok(Some(hit));
        }
        let p = Parts::of(spec)?;
        Ok(p.variants
            .cached(p.backend, &p.codegen, p.paths)
            .map(|code| p.finish(code, CacheUse::Hit)))
    }

    /// The optimized IR of `module` as `opts` asks: what [`JitShader::compile`] compiles, for
    /// tiers that share it.
    ///
    /// # Errors
    /// [`CompileError::Lift`].
    pub(crate) fn lift(
        module: &Module,
        opts: &CompileOptions,
    ) -> Result<Arc<Function>, CompileError> {
        let mut f = tgsic::ir::lift::lift_valid(&module.program)?;
        optimize(&mut f, opts.opt);
        Ok(Arc::new(f))
    }

    /// The back end that compiled it.
    #[cfg(test)]
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The code of the variant `lookups` calls for, compiled now if it was not yet.
    ///
    /// # Errors
    /// [`CompileError::Codegen`] when the back end fails.
    pub fn code(&self, lookups: Lookups<'_>) -> Result<Arc<CompiledShader>, CompileError> {
        let (_, paths) = groups_and_paths(&self.variants.facts.tex_ops, self.backend, lookups);
        let (code, _) = self.variants.get(self.backend, &self.codegen, paths)?;
        Ok(code)
    }

    /// The optimized IR the code is generated from, lifted now when the code came from the
    /// code cache.
    ///
    /// # Errors
    /// [`CompileError::Lift`].
    pub fn function(&self) -> Result<&Arc<Function>, CompileError> {
        self.variants.ir.get()
    }

    /// What the code needs of the function beyond the code.
    pub(crate) fn facts(&self) -> &FunctionFacts {
        &self.variants.facts
    }

    /// The code of the variant `lookups` calls for compiled again, keeping the back end's IR
    /// and the disassembly ([`CompiledShader::ir_text`], [`CompiledShader::asm`]): what a run
    /// executes, to read or measure; not kept with the shader.
    ///
    /// # Errors
    /// [`CompileError::Codegen`] when the back end fails.
    pub fn code_with_text(&self, lookups: Lookups<'_>) -> Result<CompiledShader, CompileError> {
        let (_, paths) = groups_and_paths(&self.variants.facts.tex_ops, self.backend, lookups);
        let opts = CodegenOptions {
            textures: paths,
            keep_text: true,
            ..self.codegen
        };
        Ok(tgsic::back::compile(self.function()?, self.backend, &opts)?)
    }

    /// Which code runs a batch with `bind`: the shader's own (`false`) or `scratch`'s variant
    /// (`true`), which this sets to the one its textures and samplers call for; their
    /// descriptors are written to `scratch`. (A flag rather than the code, so that a batch
    /// clones no `Arc`: its atomic operations wait for the tile's stores to drain.)
    fn choose_code(
        &self,
        bind: &Bindings,
        quads: bool,
        scratch: &mut JitScratch,
    ) -> Result<bool, RunError> {
        if self.tex_groups.ops == 0 {
            // Nothing to choose: the one variant.
            return Ok(false);
        }
        let textures = &self.compiled.textures;
        let paths = tex_paths(
            self.backend,
            bind,
            |k| &textures[k].op,
            &self.tex_groups,
            quads,
            &mut scratch.tex_descs,
        );
        // Past the shader's operations, every `TexPaths` of it says nothing.
        let ops = self.tex_groups.ops;
        if paths.same_first(&self.compiled.tex_paths, ops) {
            return Ok(false);
        }
        if let Some((p, _)) = &scratch.variant
            && p.same_first(&paths, ops)
        {
            return Ok(true);
        }
        let (code, _) = self
            .variants
            .get(self.backend, &self.codegen, paths)
            .map_err(|e| match e {
                CompileError::Codegen(e) => RunError::Code(e),
                other => RunError::Internal(Internal::VariantIr(other.to_string())),
            })?;
        scratch.variant = Some((Box::new(paths), code));
        Ok(true)
    }
}

impl Variants {
    /// The variant for `paths`, and whether the code cache answered: a variant made before is
    /// returned as it is; one not yet made is read from the cache when a verified entry holds
    /// it, else compiled (from the IR, lifted now if it was not yet) and stored.
    fn get(
        &self,
        backend: Backend,
        codegen: &CodegenOptions,
        paths: TexPaths,
    ) -> Result<(Arc<CompiledShader>, CacheUse), CompileError> {
        let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = map.get(&paths) {
            return Ok((c.clone(), CacheUse::Off));
        }
        if let Some(c) = self.load(backend, codegen, paths) {
            map.insert(paths, c.clone());
            return Ok((c, CacheUse::Hit));
        }
        let opts = CodegenOptions {
            textures: paths,
            ..*codegen
        };
        let c = Arc::new(tgsic::back::compile(self.ir.get()?, backend, &opts)?);
        let used = match &self.disk {
            Some((disk, key)) => {
                disk.store(&key.bytes(&paths), &c.to_bytes());
                self.store_facts();
                CacheUse::Miss
            }
            None => CacheUse::Off,
        };
        map.insert(paths, c.clone());
        Ok((c, used))
    }

    /// The variant for `paths` if it was made before or the code cache holds it.
    fn cached(
        &self,
        backend: Backend,
        codegen: &CodegenOptions,
        paths: TexPaths,
    ) -> Option<Arc<CompiledShader>> {
        let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = map.get(&paths) {
            return Some(c.clone());
        }
        let c = self.load(backend, codegen, paths)?;
        map.insert(paths, c.clone());
        Some(c)
    }

    /// The variant of `paths` from the code cache: a stored variant that does not read back
    /// (another format, no memory) or does not belong to this function (checked against its
    /// facts) is a miss (compiled again and replaced by the caller). A hit stores the facts
    /// when the cache may not hold them (code stored before they were).
    fn load(
        &self,
        backend: Backend,
        codegen: &CodegenOptions,
        paths: TexPaths,
    ) -> Option<Arc<CompiledShader>> {
        let (disk, key) = self.disk.as_ref()?;
        let bytes = disk.load(&key.bytes(&paths))?;
        let c = CompiledShader::from_bytes(&bytes, tgsic::back::symbols(backend)).ok()?;
        let opts = CodegenOptions {
            textures: paths,
            ..*codegen
        };
        c.check_against(&self.facts, &opts).ok()?;
        self.store_facts();
        Some(Arc::new(c))
    }

    /// Stores the function's facts in the code cache, once per shader.
    fn store_facts(&self) {
        if let Some((disk, key)) = &self.disk
            && !self.facts_stored.swap(true, Ordering::Relaxed)
        {
            disk.store(&key.facts_bytes(), &self.facts.to_bytes());
        }
    }
}

/// Working memory of one thread, sized for the shader that made it; another shader's batch
/// remakes it for itself.
#[derive(Debug)]
pub struct JitScratch {
    arrays: Vec<u32>,
    uniforms: Vec<u32>,
    /// Texture arguments, one channel each.
    args: Vec<[u32; BATCH_LANES]>,
    out: Box<Reg>,
    /// The texture descriptors of the batch being run.
    tex_descs: TexDescs,
    /// The last variant run that is not the shader's own, and its texture paths (boxed: a
    /// `TexPaths` is 512 bytes).
    variant: Option<(Box<TexPaths>, Arc<CompiledShader>)>,
    /// The shader that made this scratch ([`JitShader::id`]): another one remakes it.
    shader: u64,
}

impl Engine for JitShader {
    type Scratch = JitScratch;

    fn module(&self) -> &Module {
        &self.prepared
    }

    /// The generated code reads component x of IN through `JitArgs::inputs_x`, which
    /// [`Self::run_batches`] points at the batch's column of [`BatchIo::columns`].
    fn reads_columns(&self) -> bool {
        true
    }

    fn scratch(&self) -> JitScratch {
        JitScratch {
            arrays: vec![0; self.compiled.array_words],
            uniforms: vec![0; self.compiled.uniforms.len()],
            args: Vec::new(),
            out: Box::new([[0; BATCH_LANES]; 4]),
            tex_descs: TexDescs::default(),
            variant: None,
            shader: self.id,
        }
    }

    fn run_batch(
        &self,
        bind: &Bindings,
        io: &mut BatchIo,
        scratch: &mut JitScratch,
    ) -> Result<BatchReport, RunError> {
        let mut report = None;
        self.run_batches(bind, io, scratch, &mut |_, r| {
            let first = r.is_none();
            report = r;
            Ok(first)
        })?;
        report.ok_or(RunError::Internal(Internal::BatchDidNotRun))
    }

    fn run_batches(
        &self,
        bind: &Bindings,
        io: &mut BatchIo,
        scratch: &mut JitScratch,
        feed: &mut Feed<'_>,
    ) -> Result<(), RunError> {
        self.run_batches_in(bind, io, scratch, feed, None)
    }
}

impl JitShader {
    /// [`Engine::run_batches`], with the memory of a compute dispatch (`memory`: its batches
    /// run on the calling stack, a coroutine's with room for the code's frame).
    pub(crate) fn run_batches_in(
        &self,
        bind: &Bindings,
        io: &mut BatchIo,
        scratch: &mut JitScratch,
        feed: &mut Feed<'_>,
        memory: Option<&MemoryCtx<'_>>,
    ) -> Result<(), RunError> {
        if !feed(io, None)? {
            return Ok(());
        }
        if scratch.shader != self.id {
            *scratch = self.scratch();
        }
        if let Some(b) = bind
            .constants
            .iter()
            .position(|b| b.len() as u64 > MAX_CONST_REGISTERS)
        {
            return Err(RunError::ConstantBufferTooLarge {
                buffer: b,
                registers: bind.constants[b].len(),
                limit: MAX_CONST_REGISTERS,
            });
        }
        // The buffers' descriptors and, after them, the one the generated code reads when no
        // buffer is bound: on the stack for the usual few buffers.
        let none = ConstBuffer {
            ptr: ZEROS.as_ptr(),
            len: 0,
        };
        let describe = |b: &Vec<[u32; 4]>| ConstBuffer {
            ptr: b.as_ptr() as *const u32,
            len: b.len() as u64,
        };
        let num_constants = bind.constants.len();
        let mut on_stack = [none; 16];
        let heap: Vec<ConstBuffer>;
        let buffers: &[ConstBuffer] = if num_constants < on_stack.len() {
            for (d, b) in on_stack.iter_mut().zip(&bind.constants) {
                *d = describe(b);
            }
            &on_stack[..=num_constants]
        } else {
            heap = bind.constants.iter().map(describe).chain([none]).collect();
            &heap
        };
        // The code (and the texture descriptors) follow from the bindings and the lanes'
        // arrangement: chosen again only when a batch comes in another arrangement.
        loop {
            let quads = io.arrangement == Arrangement::Quads;
            let c: &CompiledShader = match self.choose_code(bind, quads, scratch)? {
                false => &self.compiled,
                true => match &scratch.variant {
                    Some((_, code)) => code,
                    None => {
                        return Err(RunError::Internal(Internal::VariantMissing));
                    }
                },
            };
            for (slot, &(b, r, comp)) in c.uniforms.iter().enumerate() {
                scratch.uniforms[slot] = bind
                    .constants
                    .get(b as usize)
                    .and_then(|buf| buf.get(r as usize))
                    .map_or(0, |v| v[comp as usize]);
            }
            // Where the code applies memory operations itself.
            let mem_descs: Vec<MemDesc> = match memory {
                Some(m) => {
                    let mem = m.memory.borrow();
                    c.memory.iter().map(|a| mem.describe(a)).collect()
                }
                // Every access then calls back, which reports the missing memory.
                None => vec![MemDesc::CALL; c.memory.len()],
            };
            let mut callbacks = Callbacks {
                bind,
                textures: &c.textures,
                quads,
                args: &mut scratch.args,
                out: &mut scratch.out,
                emitted: Vec::new(),
                error: None,
                accesses: &c.memory,
                memory,
            };
            // The output components a batch zeroes: those the code does not write in every
            // lane (a memset of every output was a large share of a trivial shader's frame).
            let to_zero: Vec<usize> = (0..4 * io.outputs.len())
                .filter(|&k| !c.stored_outputs.get(k).copied().unwrap_or(false))
                .collect();
            // What the run's batches share; each batch sets its own registers and lanes.
            let mut args = JitArgs {
                inputs: std::ptr::null(),
                inputs_x: std::ptr::null(),
                inputs_x_stride: 0,
                sv: std::ptr::null(),
                outputs: std::ptr::null_mut(),
                arrays: std::ptr::null_mut(),
                uniforms: if scratch.uniforms.is_empty() {
                    ZEROS.as_ptr()
                } else {
                    scratch.uniforms.as_ptr()
                },
                constants: buffers.as_ptr(),
                num_constants: num_constants as u64,
                immediates: if c.immediates.is_empty() {
                    ZEROS.as_ptr()
                } else {
                    c.immediates.as_ptr()
                },
                zeros: ZEROS.as_ptr(),
                alive: 0,
                helpers: 0,
                killed: 0,
                exhausted: 0,
                max_iterations: bind.max_iterations as u64,
                inputs_per_vertex: u64::from(self.variants.facts.input_regs),
                clear: bind.clear.map(f32::to_bits),
                callbacks: &mut callbacks as *mut Callbacks<'_, '_> as *mut std::ffi::c_void,
                texture: texture_callback_entered,
                emit: emit_callback_entered,
                memory: memory_callback_entered,
                lane_op: tgsic::back::lane_ops::tgsic_lanes_op_entered,
                tex_descs: scratch.tex_descs.as_ptr(),
                mem_descs: mem_descs.as_ptr(),
            };
            // Read once for the run: Rust code between the batches leaves the MXCSR alone.
            let fp_env = if memory.is_some_and(|m| m.ieee) {
                FpEnv::capture_ieee()
            } else {
                FpEnv::capture()
            };
            loop {
                // The code addresses the batch's registers as this shader sized them: a batch
                // made for another shader must not reach it.
                if !io.fits(self.io) {
                    return Err(RunError::ForeignBatch);
                }
                // Arrays read 0 until written; the register after them only takes the stores
                // that are dropped, and nothing reads it.
                let read = scratch.arrays.len().saturating_sub(4 * BATCH_LANES);
                if read > 0 {
                    // (Not `fill` of an empty range: a call to memset even for nothing.)
                    scratch.arrays[..read].fill(0);
                }
                for &k in &to_zero {
                    io.outputs[k / 4][k % 4] = [0; BATCH_LANES];
                }
                args.inputs = io.inputs.as_ptr() as *const u32;
                // Component x from the tile's column of the table when there is one: the
                // code reads registers below `self.io[0]` (`fits` above), all in the table.
                // (The renderer makes no table for a shader without IN registers.)
                (args.inputs_x, args.inputs_x_stride) = match &io.columns {
                    None => (args.inputs, 4 * BATCH_LANES as u64),
                    Some(t) => match t.column_ptr(io.column as usize) {
                        Some((p, stride)) if t.registers() >= self.io[0] => (p, stride as u64),
                        _ => {
                            return Err(RunError::Internal(Internal::InputColumns {
                                registers: t.registers(),
                                columns: t.columns(),
                                column: io.column,
                                inputs: self.io[0],
                            }));
                        }
                    },
                };
                args.sv = io.sv.as_ptr() as *const u32;
                args.outputs = io.outputs.as_mut_ptr() as *mut u32;
                args.arrays = scratch.arrays.as_mut_ptr();
                // One word at a time: the feed has just stored each, and a load of both at once
                // waits for those stores to reach the cache (no store forwarding).
                args.alive = std::hint::black_box(io.alive);
                args.helpers = std::hint::black_box(io.helpers);
                (args.killed, args.exhausted) = (0, 0);
                // SAFETY: every buffer is sized as the function needs: inputs, system values
                // and outputs as the module declares (`BatchIo::fits`; the IR reads
                // nothing beyond, `Function::input_regs`), component x of IN through
                // `inputs_x` as `inputs` or a table column of as many registers or more
                // (`Columns::column_ptr`, checked above), arrays as `array_words`, uniforms
                // as `uniforms`; the texture descriptors were written for this code and these
                // bindings by `choose_code`; the callbacks get `host`, alive for the call, and
                // are entered through trampolines that give them Rust's floating-point
                // environment; `fp_env` was captured on this thread, and neither the feed nor
                // the callbacks leave the MXCSR changed.
                let called = unsafe {
                    if memory.is_some_and(|m| m.barrier.is_some()) {
                        c.call_here_in(&fp_env, &mut args)
                    } else {
                        c.call_in(&fp_env, &mut args)
                    }
                };
                called?;
                if let Some(e) = callbacks.error.take() {
                    return Err(e);
                }
                let report = BatchReport {
                    killed: args.killed,
                    exhausted: args.exhausted,
                    emitted: std::mem::take(&mut callbacks.emitted),
                    unspecified: 0,
                };
                if !feed(io, Some(report))? {
                    return Ok(());
                }
                if (io.arrangement == Arrangement::Quads) != quads {
                    break;
                }
            }
        }
    }
}
