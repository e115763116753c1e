//! The JIT executor: a shader lifted, optimized at -O2 and compiled by a JIT back end
//! ([`Backend`]: Cranelift, or LLVM with the cargo feature `llvm`), run over the same batches as
//! the interpreter ([`Engine`]). Both back ends generate code with the same calling interface,
//! so one executor runs either. Texture lookups and EMIT call back into this module; compiled
//! code is cached by program and configuration.
//!
//! ```
//! use tgsic_runtime::dispatch::render;
//! use tgsic_runtime::engine::{Bindings, Prepared};
//! use tgsic_runtime::jit::{JitShader, JitConfig};
//! let program = tgsic::front::text::parse(
//!     "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nMUL OUT[0], IN[0], IN[0]\nEND\n").unwrap();
//! let shader = Prepared::new(program).unwrap();
//! let jit = JitShader::new(shader.clone(), &JitConfig::default()).unwrap();
//! let a = render(&jit, &Bindings::default(), 16, 16, 0).unwrap();
//! let b = render(&shader, &Bindings::default(), 16, 16, 0).unwrap();
//! assert_eq!(a.pixels, b.pixels);
//! ```

// Lane and component indices address several parallel arrays at once.
#![allow(clippy::needless_range_loop)]

use crate::engine::{
    Arrangement, BATCH_LANES, BatchIo, BatchReport, Bindings, Emitted, Engine, Feed, Prepared, Reg,
    RunError,
};
use crate::lookup::{TexRequest, sample_into};
use crate::texture::{ChainTexels, MipChain};
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};
use tgsic::back::abi::{
    CompiledShader, ConstBuffer, DescGroup, JitArgs, JitError, MAX_CONST_REGISTERS, MathMode,
    TexCompare, TexDesc, TexFormat, TexMip, TexPath, TexPaths, TexWrap, TextureCall, VectorTex,
    desc_group,
};
use tgsic::back::cranelift::{self as cl, JitOptions};
use tgsic::ir::{Function, LiftError, TexKind, TexOp};
use tgsic::opt::{OptLevel, optimize};
use thiserror::Error;

/// The code generator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Backend {
    /// Cranelift: fast to compile, 128-bit vectors.
    #[default]
    Cranelift,
    /// LLVM 19 (cargo feature `llvm`): slower to compile, vectors as wide as the host's.
    Llvm,
}

impl Backend {
    /// Whether this build has the back end.
    pub fn available(self) -> bool {
        match self {
            Backend::Cranelift => true,
            Backend::Llvm => cfg!(feature = "llvm"),
        }
    }
}

/// How to compile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct JitConfig {
    /// The code generator.
    pub backend: Backend,
    /// Transcendental functions: exact (bit-identical to the interpreter) or fast.
    pub math: MathMode,
    /// Lanes per step, 0 for the back end's default: Cranelift takes 4, 8 (its default), 16 or
    /// 32; LLVM 4, 8, 16, 32 or 64 and defaults to the host's widest vector (16 with AVX-512,
    /// 8 with AVX2).
    pub lanes: usize,
    /// IR optimization before code generation.
    pub opt: OptLevel,
}

impl Default for JitConfig {
    fn default() -> Self {
        JitConfig {
            backend: Backend::Cranelift,
            math: MathMode::Exact,
            lanes: 0,
            opt: OptLevel::O2,
        }
    }
}

impl JitConfig {
    /// The default configuration of `backend`.
    pub fn with_backend(backend: Backend) -> JitConfig {
        JitConfig {
            backend,
            ..JitConfig::default()
        }
    }
}

/// Compiles `f` as `config` asks, every texture lookup through the runtime's sampler.
///
/// # Errors
/// [`JitLoadError::Codegen`] when the back end fails or rejects the options,
/// [`JitLoadError::Unavailable`] for a back end this build does not have.
pub fn compile(f: &Function, config: &JitConfig) -> Result<CompiledShader, JitLoadError> {
    compile_with(f, config, TexPaths::NONE, false)
}

/// As [`compile`], the texture operations of `paths` sampled in the generated code, as
/// `paths` says: it may run only with bindings that call for exactly those paths (the
/// textures and samplers a [`JitShader`] checks before every batch).
///
/// # Errors
/// As [`compile`].
pub fn compile_for(
    f: &Function,
    config: &JitConfig,
    paths: TexPaths,
) -> Result<CompiledShader, JitLoadError> {
    compile_with(f, config, paths, false)
}

/// As [`compile_for`], keeping the back end's IR and the assembly (`CompiledShader::ir_text`,
/// `CompiledShader::asm`).
///
/// # Errors
/// As [`compile`].
pub fn compile_with_text(
    f: &Function,
    config: &JitConfig,
    paths: TexPaths,
) -> Result<CompiledShader, JitLoadError> {
    compile_with(f, config, paths, true)
}

fn compile_with(
    f: &Function,
    config: &JitConfig,
    textures: TexPaths,
    text: bool,
) -> Result<CompiledShader, JitLoadError> {
    let verify = cfg!(debug_assertions);
    match config.backend {
        Backend::Cranelift => {
            let lanes = config.lanes;
            if !matches!(lanes, 0 | 4 | 8 | 16 | 32) {
                return Err(JitError::Options(format!(
                    "Cranelift lanes = {lanes} (4, 8, 16 or 32)"
                ))
                .into());
            }
            let opts = JitOptions {
                math: config.math,
                lanes,
                textures,
                verify,
            };
            let c = if text {
                cl::compile_with_text(f, &opts)
            } else {
                cl::compile(f, &opts)
            };
            Ok(c?)
        }
        #[cfg(feature = "llvm")]
        Backend::Llvm => {
            use tgsic::back::llvm;
            let opts = llvm::LlvmOptions {
                math: config.math,
                lanes: config.lanes,
                textures,
                verify,
            };
            let c = if text {
                llvm::compile_with_text(f, &opts)
            } else {
                llvm::compile(f, &opts)
            };
            Ok(c?)
        }
        #[cfg(not(feature = "llvm"))]
        Backend::Llvm => Err(JitLoadError::Unavailable("llvm")),
    }
}

/// Why a shader cannot be JIT-compiled.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum JitLoadError {
    /// The program cannot be lifted into the IR.
    #[error(transparent)]
    Lift(#[from] LiftError),
    /// Code generation failed.
    #[error(transparent)]
    Codegen(#[from] JitError),
    /// The back end is not in this build.
    #[error(
        "the {0} back end needs tgsic built with the cargo feature `{0}` (cargo build --release --features {0})"
    )]
    Unavailable(&'static str),
}

impl JitLoadError {
    /// Where the error is, when it concerns one instruction.
    pub fn location(&self) -> Option<&tgsic::tgsi::Location> {
        match self {
            JitLoadError::Lift(e) => e.location(),
            _ => None,
        }
    }

    /// The message without its location (for tools that print the location themselves).
    pub fn detail(&self) -> String {
        match self {
            JitLoadError::Lift(e) => e.detail(),
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
    pub prepared: Prepared,
    /// The optimized IR the code was generated from.
    pub function: Arc<Function>,
    /// The code compiled when the shader was made: every lookup through the runtime's sampler
    /// ([`JitShader::new`]), or the variant of the bindings given to
    /// [`JitShader::for_bindings`].
    pub compiled: Arc<CompiledShader>,
    /// Time spent lifting, optimizing and compiling `compiled` (0 when it came from the cache);
    /// variants compiled later are not counted.
    pub compile_time: Duration,
    config: JitConfig,
    variants: Arc<Variants>,
    /// The texture operations of the code, grouped by descriptor.
    tex_groups: TexGroups,
    /// This shader among all made in the process: the scratches it makes carry it.
    id: u64,
    /// The registers its batches hold ([`crate::dispatch::io_sizes`]), as the code addresses
    /// them.
    io: [usize; 3],
}

/// Texture operations that may sample in generated code ([`vector_texture`]), grouped by what
/// their descriptor and path follow from: unit, sampler and RECT-ness. The code reads a group's
/// descriptor at its first operation, so a batch writes one descriptor per group.
///
/// [`vector_texture`]: tgsic::back::abi::vector_texture
#[derive(Debug, Clone, Default)]
struct TexGroups {
    /// Each group's operations (indices in the code's order), the first first.
    groups: Vec<Vec<usize>>,
    /// How many operations there are.
    ops: usize,
}

impl TexGroups {
    fn new<'a>(ops: impl Iterator<Item = &'a TexOp>) -> TexGroups {
        let mut by_key: HashMap<DescGroup, usize> = HashMap::new();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut count = 0;
        for (k, op) in ops.enumerate() {
            count += 1;
            if !tgsic::back::abi::vector_texture(op) {
                continue;
            }
            let g = *by_key.entry(desc_group(op)).or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[g].push(k);
        }
        TexGroups { groups, ops: count }
    }
}

/// A function's compiled variants, by the texture operations they sample themselves.
#[derive(Debug, Default)]
struct Variants(Mutex<HashMap<TexPaths, Arc<CompiledShader>>>);

/// The compiled-code cache: keyed by the program's whole token stream and the configuration, so
/// that two programs share code only when they are the same program; at most
/// [`CACHE_ENTRIES`] entries, the oldest evicted first.
struct Cache<V> {
    map: HashMap<CacheKey, V>,
    order: std::collections::VecDeque<CacheKey>,
}

/// A program's tokens (revision 1.1 encoding) and the configuration it was compiled for.
type CacheKey = (Vec<u32>, JitConfig);

type Code = (Arc<Function>, Arc<Variants>);

/// How many compiled shaders the cache keeps.
pub const CACHE_ENTRIES: usize = 64;

impl<V: Clone> Cache<V> {
    fn new() -> Cache<V> {
        Cache {
            map: HashMap::new(),
            order: std::collections::VecDeque::new(),
        }
    }

    fn get(&self, key: &CacheKey) -> Option<V> {
        self.map.get(key).cloned()
    }

    fn insert(&mut self, key: CacheKey, value: V) {
        if self.map.insert(key.clone(), value).is_none() {
            self.order.push_back(key);
        }
        while self.order.len() > CACHE_ENTRIES {
            if let Some(old) = self.order.pop_front() {
                self.map.remove(&old);
            }
        }
    }
}

fn cache() -> &'static Mutex<Cache<Code>> {
    static CACHE: OnceLock<Mutex<Cache<Code>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(Cache::new()))
}

impl JitShader {
    /// Lifts, optimizes and compiles `prepared`'s program with every texture lookup through
    /// the runtime's sampler, or takes the code from the cache (keyed by the program's tokens
    /// and `config`). Batches whose bindings let lookups run in generated code compile that
    /// variant when first run; [`JitShader::for_bindings`] compiles it now.
    ///
    /// # Errors
    /// [`JitLoadError`] when the program cannot be lifted or compiled.
    pub fn new(prepared: Prepared, config: &JitConfig) -> Result<JitShader, JitLoadError> {
        Self::build(prepared, config, None)
    }

    /// As [`JitShader::new`], compiling the variant that `bind`'s textures and samplers call
    /// for: what a render with those bindings runs, without compiling when it starts.
    ///
    /// # Errors
    /// As [`JitShader::new`].
    pub fn for_bindings(
        prepared: Prepared,
        config: &JitConfig,
        bind: &Bindings,
    ) -> Result<JitShader, JitLoadError> {
        Self::build(prepared, config, Some(bind))
    }

    fn build(
        prepared: Prepared,
        config: &JitConfig,
        bind: Option<&Bindings>,
    ) -> Result<JitShader, JitLoadError> {
        let t = Instant::now();
        // A program the binary form cannot hold (the validator refuses those) is not cached.
        let key = tgsic::front::binary::encode(&prepared.program)
            .ok()
            .map(|tokens| (tokens, *config));
        let hit = key
            .as_ref()
            .and_then(|k| cache().lock().ok().and_then(|c| c.get(k)));
        let (function, variants) = match hit {
            Some(code) => code,
            None => {
                let mut f = tgsic::ir::lift_valid(&prepared.program)?;
                optimize(&mut f, config.opt);
                let code = (Arc::new(f), Arc::new(Variants::default()));
                if let (Some(key), Ok(mut c)) = (key, cache().lock()) {
                    c.insert(key, code.clone());
                }
                code
            }
        };
        let (tex_groups, paths) = groups_and_paths(&function, config.backend, bind);
        let (compiled, fresh) = variants.get(&function, config, paths)?;
        Ok(JitShader {
            io: prepared.io_sizes(),
            prepared,
            function,
            compiled,
            compile_time: if fresh { t.elapsed() } else { Duration::ZERO },
            config: *config,
            variants,
            tex_groups,
            id: {
                static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
                NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            },
        })
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
            self.config.backend,
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
            .get(&self.function, &self.config, paths)
            .map_err(|e| RunError::Unsupported(e.to_string()))?;
        scratch.variant = Some((Box::new(paths), code));
        Ok(true)
    }
}

impl Variants {
    /// The variant of `f` for `paths`, compiled if it is not yet (`true`).
    fn get(
        &self,
        f: &Function,
        config: &JitConfig,
        paths: TexPaths,
    ) -> Result<(Arc<CompiledShader>, bool), JitLoadError> {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = map.get(&paths) {
            return Ok((c.clone(), false));
        }
        let c = Arc::new(compile_for(f, config, paths)?);
        map.insert(paths, c.clone());
        Ok((c, true))
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

/// [`TexDesc`]s, rewritten before every batch, and the mip chains they point into (kept alive
/// while the batch runs).
#[derive(Debug, Default)]
struct TexDescs(Vec<TexDesc>, Vec<Arc<MipChain>>);

// SAFETY: the descriptors' pointers are written from a batch's bindings before the batch runs
// and read only by the code that batch calls, on the thread that holds the scratch; between
// batches nothing reads them.
unsafe impl Send for TexDescs {}

/// What the callbacks see.
struct Host<'a> {
    bind: &'a Bindings,
    textures: &'a [TextureCall],
    quads: bool,
    args: &'a mut Vec<[u32; BATCH_LANES]>,
    out: &'a mut Reg,
    emitted: Vec<Emitted>,
    error: Option<RunError>,
}

static ZEROS: [u32; 16] = [0; 16];

/// The level table of a descriptor that samples level 0 alone (never read: such a lookup's
/// code samples level 0 from the descriptor's own fields).
static LEVEL0: [u32; 3] = [0, 1, 1];

impl Engine for JitShader {
    type Scratch = JitScratch;

    fn shader(&self) -> &Prepared {
        &self.prepared
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
        report.ok_or_else(|| RunError::Unsupported("internal error: the batch did not run".into()))
    }

    fn run_batches(
        &self,
        bind: &Bindings,
        io: &mut BatchIo,
        scratch: &mut JitScratch,
        feed: &mut Feed<'_>,
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
            return Err(RunError::Unsupported(format!(
                "constant buffer {b} has {} registers; the JIT reads at most {MAX_CONST_REGISTERS} \
                 (the interpreter runs it)",
                bind.constants[b].len()
            )));
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
                        return Err(RunError::Unsupported(
                            "internal error: the chosen variant is missing".into(),
                        ));
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
            let mut host = Host {
                bind,
                textures: &c.textures,
                quads,
                args: &mut scratch.args,
                out: &mut scratch.out,
                emitted: Vec::new(),
                error: None,
            };
            // The output components a batch zeroes: those the code does not write in every
            // lane (a frame's memset of every output was 17% of a trivial shader's frame).
            let to_zero: Vec<usize> = (0..4 * io.outputs.len())
                .filter(|&k| !c.stored_outputs.get(k).copied().unwrap_or(false))
                .collect();
            // What the run's batches share; each batch sets its own registers and lanes.
            let mut args = JitArgs {
                inputs: std::ptr::null(),
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
                inputs_per_vertex: self.function.input_regs as u64,
                clear: bind.clear.map(f32::to_bits),
                host: &mut host as *mut Host as *mut c_void,
                texture: texture_callback_entered,
                emit: emit_callback_entered,
                tex_descs: scratch.tex_descs.0.as_ptr(),
            };
            loop {
                // The code addresses the batch's registers as this shader sized them: a batch
                // made for another shader must not reach it.
                if !io.fits(self.io) {
                    return Err(RunError::Unsupported(
                        "the batch's registers were made for another shader (dispatch::new_io)"
                            .into(),
                    ));
                }
                // Arrays read 0 until written; the register after them only takes the stores
                // that are dropped, and nothing reads it.
                let read = scratch.arrays.len().saturating_sub(4 * BATCH_LANES);
                scratch.arrays[..read].fill(0);
                for &k in &to_zero {
                    io.outputs[k / 4][k % 4] = [0; BATCH_LANES];
                }
                args.inputs = io.inputs.as_ptr() as *const u32;
                args.sv = io.sv.as_ptr() as *const u32;
                args.outputs = io.outputs.as_mut_ptr() as *mut u32;
                args.arrays = scratch.arrays.as_mut_ptr();
                (args.alive, args.helpers) = (io.alive, io.helpers);
                (args.killed, args.exhausted) = (0, 0);
                // SAFETY: every buffer is sized as the function needs: inputs, system values
                // and outputs as the prepared program declares (`io_fits`; the IR reads
                // nothing beyond, `Function::input_regs`), arrays as `array_words`, uniforms
                // as `uniforms`; the texture descriptors were written for this code and these
                // bindings by `choose_code`; the callbacks get `host`, alive for the call, and
                // are entered through trampolines that give them Rust's floating-point
                // environment.
                let called = unsafe { c.call(&mut args) };
                called.map_err(|e| RunError::Unsupported(e.to_string()))?;
                if let Some(e) = host.error.take() {
                    return Err(e);
                }
                let report = BatchReport {
                    killed: args.killed,
                    exhausted: args.exhausted,
                    emitted: std::mem::take(&mut host.emitted),
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

/// How the texture operations of `f` sample when the code compiled for `backend` runs with
/// `bind`: the paths a [`JitShader`] of `f` chooses for those textures and samplers, for
/// [`compile_for`] or [`compile_with_text`] (what the code of a run does, to read or measure).
pub fn texture_paths(f: &Function, backend: Backend, bind: &Bindings) -> TexPaths {
    groups_and_paths(f, backend, Some(bind)).1
}

/// The texture operations of `f` grouped by descriptor, and their paths with `bind` (every
/// one through the callback without bindings).
fn groups_and_paths(
    f: &Function,
    backend: Backend,
    bind: Option<&Bindings>,
) -> (TexGroups, TexPaths) {
    let ops = tgsic::back::abi::texture_ops(f);
    let groups = TexGroups::new(ops.iter());
    let paths = match bind {
        // The paths do not depend on how lanes are arranged, only descriptors do.
        Some(bind) => tex_paths(
            backend,
            bind,
            |k| &ops[k],
            &groups,
            false,
            &mut TexDescs::default(),
        ),
        None => TexPaths::NONE,
    };
    (groups, paths)
}

/// Which texture operations (`op(k)` the `k`-th in the code's order, grouped by `groups`) may
/// sample in generated code with the textures and samplers of `bind` ([`tex_desc`]), which
/// then give the sampler's results. `descs` gets a descriptor at each group's first operation (where the
/// code reads it; the others are never read) and the mip chains they read; `quads` says
/// whether the batch's lanes form quads.
fn tex_paths<'a>(
    backend: Backend,
    bind: &Bindings,
    op: impl Fn(usize) -> &'a TexOp,
    groups: &TexGroups,
    quads: bool,
    descs: &mut TexDescs,
) -> TexPaths {
    if descs.0.len() != groups.ops {
        let empty = TexDesc::new(ZEROS.as_ptr() as *const c_void, ZEROS.len(), [0; 3]);
        descs.0.resize(groups.ops, empty);
    }
    descs.1.clear();
    let mut paths = TexPaths::NONE;
    for g in &groups.groups {
        if let Some((desc, path)) = tex_desc(backend, bind, op(g[0]), quads, &mut descs.1) {
            descs.0[g[0]] = desc;
            paths.set_each(g, path);
        }
    }
    paths
}

/// The descriptor of texture operation `op`, and how the code samples, when its lookups may
/// run in generated code ([`vector_texture`]): a 1D, 2D, RECT or array sample of a bound
/// texture (an array's levels that it may read with as many layers as level 0; repeating or
/// mirrored axes divide where such a level's side is not a power of two), a 3D sample whose
/// level of detail does not matter (level 0 alone, r wrapped as s and t), a cube sample of a
/// texture with six faces (layers) on every level it may read, or a 2D or RECT fetch or size
/// query. Level 0 alone when the level of detail does not matter (and for fetches and
/// queries of a texture of one level); otherwise the levels in one buffer
/// ([`Texture::mip_chain`], pushed on `chains`). The descriptor follows from `op`'s unit,
/// sampler, RECT-ness and kind (sample or not), the path and `quads` alone: the generated
/// code reads one operation's descriptor for every operation that shares them.
///
/// [`vector_texture`]: tgsic::back::abi::vector_texture
/// [`Texture::mip_chain`]: crate::texture::Texture::mip_chain
fn tex_desc(
    backend: Backend,
    bind: &Bindings,
    op: &TexOp,
    quads: bool,
    chains: &mut Vec<Arc<MipChain>>,
) -> Option<(TexDesc, TexPath)> {
    use crate::texture::{Filter, MipFilter, Storage, Wrap, lod_matters};
    if !tgsic::back::abi::vector_texture(op) {
        return None;
    }
    let tex = bind.textures.get(op.unit as usize)?.as_ref()?;
    let sampler = op
        .sampler
        .and_then(|s| bind.samplers.get(s as usize).copied())
        .unwrap_or_default();
    // Fetches and size queries of a texture of several levels read the level each lane
    // names.
    let fetch = op.kind != TexKind::Sample;
    let mip = if fetch && tex.levels.len() > 1 {
        TexMip::Nearest
    } else if fetch || !lod_matters(tex, &sampler) {
        TexMip::Level0
    } else {
        match sampler.mip {
            MipFilter::None => TexMip::Single,
            MipFilter::Nearest => TexMip::Nearest,
            MipFilter::Linear => TexMip::Linear,
        }
    };
    // The levels a lookup may read.
    let levels = if matches!(mip, TexMip::Level0 | TexMip::Single) {
        &tex.levels[..1]
    } else {
        &tex.levels[..]
    };
    let level = tex.base();
    let cube = op.target.is_cube();
    if cube && levels.iter().any(|l| l.depth < 6) {
        return None;
    }
    // An array's layer is clamped to level 0's: every level read must have as many.
    if op.target.is_array() && levels.iter().any(|l| l.depth != level.depth) {
        return None;
    }
    // A 3D texture's slices are level 0's alone: its level of detail must not matter.
    let volume = op.target == tgsic::tgsi::TextureTarget::Tex3D;
    if volume && mip != TexMip::Level0 {
        return None;
    }
    // RECT and cube faces clamp whatever the sampler says; repeat and mirror of a side that
    // is not a power of two divide. r wraps in 3D textures alone.
    let mut wrap = [TexWrap::Clamp; 3];
    let mut any_side = false;
    if !op.target.is_rect() && !fetch && !cube {
        for k in 0..2 + usize::from(volume) {
            let side = |l: &crate::texture::Level| [l.width, l.height, l.depth][k];
            let pow2 = levels.iter().all(|l| side(l).is_power_of_two());
            wrap[k] = match sampler.wrap[k] {
                Wrap::Clamp => TexWrap::Clamp,
                Wrap::Repeat => TexWrap::Repeat,
                Wrap::Mirror => TexWrap::Mirror,
            };
            any_side |= wrap[k] != TexWrap::Clamp && !pow2;
        }
    }
    // Cranelift has no gather instruction: a texel's four f32 words in one load per lane
    // (and a transpose) beat a word per lane and the unpacking of its bytes (gltr_linearblur:
    // 127 against 141 ms a 1024² frame). LLVM gathers: one word a texel halves the time.
    let unorm8 = backend == Backend::Llvm;
    let (texels, words, format, levels): (_, _, _, &[u32]) =
        if matches!(mip, TexMip::Level0 | TexMip::Single) {
            let (texels, words, format) = match level.storage() {
                Storage::Unorm8(t) if unorm8 => {
                    (t.as_ptr() as *const c_void, t.len(), TexFormat::Unorm8)
                }
                _ => {
                    let t = level.f32_texels();
                    (t.as_ptr() as *const c_void, 4 * t.len(), TexFormat::F32)
                }
            };
            (texels, words, format, &LEVEL0)
        } else {
            chains.push(tex.mip_chain(unorm8));
            let chain = chains.last().expect("just pushed");
            let (words, format) = match &chain.texels {
                ChainTexels::Unorm8(t) => (t.len(), TexFormat::Unorm8),
                ChainTexels::F32(t) => (4 * t.len(), TexFormat::F32),
            };
            (chain.as_ptr(), words, format, chain.level_words())
        };
    let lod = [sampler.lod_bias, sampler.min_lod, sampler.max_lod];
    let desc = TexDesc::new(texels, words, [level.width, level.height, level.depth])
        .with_levels(levels, lod, quads);
    let path = TexPath::Vector(VectorTex {
        format,
        linear: sampler.min == Filter::Linear,
        mag_linear: sampler.mag == Filter::Linear,
        wrap,
        mip,
        compare: op
            .target
            .is_shadow()
            .then(|| sampler.compare.unwrap_or(TexCompare::LEqual)),
        any_side,
    });
    Some((desc, path))
}

/// `TextureFn`: the interpreter's texture semantics on the lanes of one step.
unsafe extern "C" fn texture_callback(
    host: *mut c_void,
    index: u32,
    args: *const u32,
    out: *mut u32,
    mask: u64,
    lane0: u32,
    lanes: u32,
) {
    let _ = lane0;
    // SAFETY: `host` is the `Host` of the running batch; the code passes `args` with every
    // argument's `lanes` words and `out` with room for four components.
    let h = unsafe { &mut *(host as *mut Host) };
    let n = lanes as usize;
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        {
            let call = &h.textures[index as usize];
            if h.args.len() < call.args {
                h.args.resize(call.args, [0; BATCH_LANES]);
            }
            // Only lanes 0..n are read (the mask's).
            for (a, ch) in h.args.iter_mut().take(call.args).enumerate() {
                // SAFETY: the code passes `call.args` arguments of `lanes` words each.
                let words = unsafe { std::slice::from_raw_parts(args.add(a * n), n) };
                ch[..n].copy_from_slice(words);
            }
            let req = TexRequest {
                op: &call.op,
                args: &h.args[..call.args],
                exec: mask,
                quads: h.quads,
            };
            sample_into(h.bind, &req, h.out)
        }
    }));
    match result {
        Ok(Ok(())) => {
            for c in 0..4 {
                for l in 0..n {
                    // SAFETY: `out` holds 4·lanes words.
                    unsafe { *out.add(c * n + l) = h.out[c][l] };
                }
            }
        }
        Ok(Err(e)) => {
            h.error.get_or_insert(e);
        }
        Err(_) => {
            h.error
                .get_or_insert(RunError::Unsupported("a texture lookup panicked".into()));
        }
    }
}

/// `EmitFn`: records EMIT (every output component, then the stream) and ENDPRIM per lane.
unsafe extern "C" fn emit_callback(
    host: *mut c_void,
    is_emit: u32,
    values: *const u32,
    count: u32,
    mask: u64,
    lane0: u32,
    lanes: u32,
) {
    // SAFETY: as `texture_callback`; `values` holds `count` values of `lanes` words.
    let h = unsafe { &mut *(host as *mut Host) };
    let (n, count) = (lanes as usize, count as usize);
    if count == 0 {
        // The code always passes the stream last; nothing to record without it.
        return;
    }
    let val = |a: usize, l: usize| unsafe { *values.add(a * n + l) };
    // A panic must not unwind into generated code (that aborts the process): it becomes the
    // batch's error, as in `texture_callback`.
    let emitted = &mut h.emitted;
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        for l in 0..n {
            if mask & (1 << l) == 0 {
                continue;
            }
            let outputs = (is_emit != 0).then(|| {
                (0..(count - 1) / 4)
                    .map(|s| std::array::from_fn(|c| val(4 * s + c, l)))
                    .collect()
            });
            emitted.push(Emitted {
                lane: lane0 as usize + l,
                outputs,
                stream: val(count - 1, l),
            });
        }
    }));
    if result.is_err() {
        h.error
            .get_or_insert(RunError::Unsupported("an EMIT or ENDPRIM panicked".into()));
    }
}

tgsic::default_fp_trampoline!(
    /// [`texture_callback`] entered from generated code, with the MXCSR's DAZ/FTZ bits
    /// cleared while it runs (`tgsic::back::fpenv`).
    texture_callback_entered => texture_callback,
    (host: *mut c_void, index: u32, args: *const u32, out: *mut u32, mask: u64, lane0: u32, lanes: u32)
);
tgsic::default_fp_trampoline!(
    /// [`emit_callback`] entered from generated code, as [`texture_callback_entered`].
    emit_callback_entered => emit_callback,
    (host: *mut c_void, is_emit: u32, values: *const u32, count: u32, mask: u64, lane0: u32, lanes: u32)
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::ALL;

    /// The back ends of this build.
    fn backends() -> Vec<Backend> {
        [Backend::Cranelift, Backend::Llvm]
            .into_iter()
            .filter(|b| b.available())
            .collect()
    }

    /// The outputs of `engine` on a batch of every lane whose IN[0] component c of lane l is
    /// l/64 + c, then (with `then`) on the same batch with only the lanes of `then` alive.
    fn ramp_outputs(
        p: &Prepared,
        engine: &dyn Fn(&mut BatchIo),
        then: Option<u64>,
    ) -> Vec<crate::engine::Reg> {
        let mut io = BatchIo::new(p, Arrangement::Quads);
        for (c, chan) in io.inputs[0].iter_mut().enumerate() {
            for (l, x) in chan.iter_mut().enumerate() {
                *x = (l as f32 / 64.0 + c as f32).to_bits();
            }
        }
        io.alive = ALL;
        engine(&mut io);
        if let Some(alive) = then {
            io.alive = alive;
            engine(&mut io);
        }
        io.outputs
    }

    #[test]
    fn the_cache_tells_programs_apart_by_every_token_and_keeps_at_most_its_bound() {
        let mut c: Cache<usize> = Cache::new();
        let config = JitConfig::default();
        // Two streams that differ only in their last token are two entries.
        c.insert((vec![1, 2, 3], config), 1);
        c.insert((vec![1, 2, 4], config), 2);
        assert_eq!(c.get(&(vec![1, 2, 3], config)), Some(1));
        assert_eq!(c.get(&(vec![1, 2, 4], config)), Some(2));
        // The same stream under other options is another entry.
        let wide = JitConfig {
            lanes: 16,
            ..config
        };
        assert_eq!(c.get(&(vec![1, 2, 3], wide)), None);
        for k in 0..2 * CACHE_ENTRIES as u32 {
            c.insert((vec![k], config), k as usize);
        }
        assert_eq!(c.map.len(), CACHE_ENTRIES);
        assert_eq!(c.order.len(), CACHE_ENTRIES);
        // The oldest went first; the newest are kept.
        assert_eq!(c.get(&(vec![1, 2, 3], config)), None);
        assert_eq!(c.get(&(vec![0], config)), None);
        let last = 2 * CACHE_ENTRIES as u32 - 1;
        assert_eq!(c.get(&(vec![last], config)), Some(last as usize));
    }

    #[test]
    fn outputs_of_lanes_that_do_not_run_are_zero_whatever_the_last_batch_left() {
        // OUT[0] is stored whole, OUT[1].x too (the IF's value is merged before the store),
        // OUT[1].yzw never: after a batch of every lane, one of lanes 0 and 2 alone (the other
        // lanes of their step skipped, the other steps idle) must leave 0 in every other lane
        // of every output, as the interpreter does, on both back ends.
        let p = Prepared::new(
            tgsic::front::text::parse(
                "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\n\
                 DCL OUT[1], COLOR[1]\nDCL TEMP[0]\nIMM[0] FLT32 { 0.5, 7.0, 0.0, 0.0 }\n\
                 MOV OUT[0], IN[0]\nSLT TEMP[0].x, IMM[0].xxxx, IN[0].xxxx\n\
                 IF TEMP[0].xxxx\nMOV OUT[1].x, IMM[0].yyyy\nENDIF\nEND\n",
            )
            .unwrap(),
        )
        .unwrap();
        let bind = Bindings::default();
        let batches = |engine: &dyn Fn(&mut BatchIo)| ramp_outputs(&p, engine, Some(0b101));
        let want = batches(&|io| {
            let mut s = p.scratch();
            p.run_batch(&bind, io, &mut s).unwrap();
        });
        assert_eq!(
            f32::from_bits(want[0][0][2]),
            2.0 / 64.0,
            "OUT[0].x of lane 2"
        );
        for (r, reg) in want.iter().enumerate() {
            for (k, comp) in reg.iter().enumerate() {
                for (l, &x) in comp.iter().enumerate() {
                    if (l != 0 && l != 2) || (r == 1 && k > 0) {
                        assert_eq!(x, 0, "OUT[{r}] component {k} of lane {l}");
                    }
                }
            }
        }
        for backend in backends() {
            for lanes in [0, 4, 16] {
                let jit = JitShader::new(
                    p.clone(),
                    &JitConfig {
                        backend,
                        lanes,
                        ..JitConfig::default()
                    },
                )
                .unwrap();
                let got = batches(&|io| {
                    let mut s = jit.scratch();
                    jit.run_batch(&bind, io, &mut s).unwrap();
                });
                assert_eq!(got, want, "{backend:?}, {lanes} lanes");
            }
        }
    }

    #[test]
    fn uniform_values_computed_once_a_call_are_what_each_step_computes() {
        // The code computes uniform values before its steps (`simd` hoisting): the product and
        // SIN of a constant, a uniform IF and its merge; not the loop, nor the product of its
        // result after it (a uniform value that only the step computes), which reads the loop
        // variable. Both back ends at three widths, both IF branches, against the interpreter.
        let p = Prepared::new(
            tgsic::front::text::parse(
                "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\n\
                 DCL CONST[0][0]\nDCL TEMP[0..3]\nIMM[0] FLT32 { 1.0, 0.5, 3.0, 0.0 }\n\
                 MUL TEMP[0].x, CONST[0][0].xxxx, IMM[0].zzzz\n\
                 SIN TEMP[0].y, TEMP[0].xxxx\n\
                 MOV TEMP[1].xy, IMM[0].wwww\n\
                 BGNLOOP\n\
                 SGE TEMP[2].x, TEMP[1].yyyy, CONST[0][0].yyyy\n\
                 IF TEMP[2].xxxx\nBRK\nENDIF\n\
                 ADD TEMP[1].x, TEMP[1].xxxx, TEMP[0].yyyy\n\
                 ADD TEMP[1].y, TEMP[1].yyyy, IMM[0].xxxx\n\
                 ENDLOOP\n\
                 MUL TEMP[3].x, TEMP[1].xxxx, IMM[0].yyyy\n\
                 SLT TEMP[3].y, CONST[0][0].xxxx, IMM[0].yyyy\n\
                 IF TEMP[3].yyyy\nMUL TEMP[3].z, TEMP[0].xxxx, TEMP[0].xxxx\n\
                 ELSE\nADD TEMP[3].z, TEMP[0].xxxx, IMM[0].xxxx\nENDIF\n\
                 ADD OUT[0].x, TEMP[3].xxxx, IN[0].xxxx\n\
                 MAD OUT[0].y, TEMP[3].zzzz, IN[0].yyyy, TEMP[0].yyyy\n\
                 MOV OUT[0].zw, TEMP[3].zzzx\nEND\n",
            )
            .unwrap(),
        )
        .unwrap();
        for (c, n) in [(0.25f32, 5.0f32), (0.75, 3.0)] {
            let bind = Bindings {
                constants: vec![vec![[c.to_bits(), n.to_bits(), 0, 0]]],
                ..Bindings::default()
            };
            let batch = |engine: &dyn Fn(&mut BatchIo)| ramp_outputs(&p, engine, None);
            let want = batch(&|io| {
                let mut s = p.scratch();
                p.run_batch(&bind, io, &mut s).unwrap();
            });
            let sum = (0..n as usize).fold(0.0f32, |a, _| a + (3.0 * c).sin());
            assert_eq!(
                f32::from_bits(want[0][0][0]),
                sum * 0.5,
                "OUT[0].x of lane 0"
            );
            for backend in backends() {
                for lanes in [0, 4, 16] {
                    let config = JitConfig {
                        backend,
                        lanes,
                        ..JitConfig::default()
                    };
                    let jit = JitShader::new(p.clone(), &config).unwrap();
                    let got = batch(&|io| {
                        let mut s = jit.scratch();
                        jit.run_batch(&bind, io, &mut s).unwrap();
                    });
                    assert_eq!(got, want, "{backend:?}, {lanes} lanes, CONST {c}, {n}");
                }
            }
        }
    }

    #[test]
    fn a_run_of_batches_computes_what_each_batch_alone_does() {
        // A mipmapped lookup (its level from derivatives: the descriptors depend on how lanes
        // are arranged) plus a constant, over batches whose inputs, lanes and arrangement
        // change: run_batches must give each batch's outputs and report as run_batch does
        // alone, choosing its code again when the arrangement changes, on both back ends.
        use crate::texture::{Filter, MipFilter, Sampler, Texture, Wrap};
        let p = Prepared::new(
            tgsic::front::text::parse(
                "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\n\
                 DCL SVIEW[0], 2D, FLOAT\nDCL CONST[0][0]\nDCL TEMP[0]\n\
                 IMM[0] FLT32 { 0.9, 0.0, 0.0, 0.0 }\n\
                 TEX TEMP[0], IN[0], SAMP[0], 2D\nADD OUT[0], TEMP[0], CONST[0][0]\n\
                 SLT TEMP[0].x, IMM[0].xxxx, IN[0].xxxx\nKILL_IF -TEMP[0].xxxx\nEND\n",
            )
            .unwrap(),
        )
        .unwrap();
        let bytes: Vec<u8> = (0..16 * 8 * 4).map(|k| (k * 37 % 251) as u8).collect();
        let mut tex = Texture::from_rgba8(16, 8, 1, &bytes).unwrap();
        tex.generate_mipmaps(false);
        let bind = Bindings {
            constants: vec![vec![[0.25f32.to_bits(), 0, 1.0f32.to_bits(), 0]]],
            textures: vec![Some(tex)],
            samplers: vec![Sampler {
                min: Filter::Linear,
                mag: Filter::Nearest,
                mip: MipFilter::Linear,
                wrap: [Wrap::Repeat; 3],
                ..Sampler::default()
            }],
            ..Bindings::default()
        };
        let arrangements = [
            Arrangement::Quads,
            Arrangement::Quads,
            Arrangement::Independent,
            Arrangement::Quads,
        ];
        // Batch k: its lanes, then its coordinates (spread more in later batches, so that
        // their levels differ, and past 0.9 in x for some lanes, which are discarded).
        let fill = |k: usize, io: &mut BatchIo| {
            io.arrangement = arrangements[k];
            io.alive = if k == 1 { 0xF0F0_0000_FFFF_000F } else { ALL };
            io.helpers = 0;
            for (c, chan) in io.inputs[0].iter_mut().enumerate() {
                for (l, x) in chan.iter_mut().enumerate() {
                    let v = (l as f32 * (k + 1) as f32 / 61.0 + 0.1 * c as f32) % 1.0;
                    *x = v.to_bits();
                }
            }
        };
        let mut engines: Vec<Box<dyn Fn() -> JitShader>> = Vec::new();
        for backend in [Backend::Cranelift, Backend::Llvm] {
            if backend.available() {
                let p = p.clone();
                engines.push(Box::new(move || {
                    let config = JitConfig {
                        backend,
                        ..JitConfig::default()
                    };
                    JitShader::new(p.clone(), &config).unwrap()
                }));
            }
        }
        for make in engines {
            let jit = make();
            let mut want = Vec::new();
            for k in 0..arrangements.len() {
                let mut io = BatchIo::new(&p, arrangements[k]);
                fill(k, &mut io);
                let report = jit.run_batch(&bind, &mut io, &mut jit.scratch()).unwrap();
                want.push((io.outputs.clone(), report.killed));
            }
            assert_ne!(want[0].0, want[2].0, "the batches differ");
            assert!(want.iter().any(|w| w.1 != 0), "some lanes are discarded");
            let mut got = Vec::new();
            let mut io = BatchIo::new(&p, Arrangement::Quads);
            let mut scratch = jit.scratch();
            let mut k = 0;
            jit.run_batches(&bind, &mut io, &mut scratch, &mut |io, report| {
                if let Some(r) = report {
                    got.push((io.outputs.clone(), r.killed));
                }
                if k == arrangements.len() {
                    return Ok(false);
                }
                fill(k, io);
                k += 1;
                Ok(true)
            })
            .unwrap();
            assert_eq!(got, want, "{:?}", jit.config.backend);
            // An error from the feed stops the run: the batch it would have filled never runs.
            let mut runs = 0;
            let e = jit
                .run_batches(&bind, &mut io, &mut scratch, &mut |io, report| {
                    if report.is_some() {
                        runs += 1;
                        return Err(RunError::TimeLimit);
                    }
                    fill(0, io);
                    Ok(true)
                })
                .unwrap_err();
            assert!(matches!(e, RunError::TimeLimit) && runs == 1);
        }
    }

    #[test]
    fn a_batch_refuses_registers_and_remakes_scratch_made_for_another_shader() {
        let shader = |src: &str| {
            let p = Prepared::new(tgsic::front::text::parse(src).unwrap()).unwrap();
            JitShader::new(p, &JitConfig::default()).unwrap()
        };
        // `wide` reads IN[3] and a constant and indexes an array; `narrow` reads IN[0] alone.
        let wide = shader(
            "FRAG\nDCL IN[0..3], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL CONST[0][0]\n\
             DCL TEMP[0..7], ARRAY(1)\nDCL ADDR[0]\nIMM[0] FLT32 { 2.0, 0.0, 0.0, 0.0 }\n\
             MOV TEMP[5], IN[3]\nARL ADDR[0].x, IMM[0].xxxx\n\
             MAD OUT[0], TEMP[ADDR[0].x+3], CONST[0][0].xxxx, IN[0]\nEND\n",
        );
        let narrow = shader(
            "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nMOV OUT[0], IN[0]\nEND\n",
        );
        let bind = Bindings {
            constants: vec![vec![[3.0f32.to_bits(), 0, 0, 0]]],
            ..Bindings::default()
        };
        let mut io = BatchIo::new(&wide.prepared, Arrangement::Quads);
        io.alive = ALL;
        for (r, reg) in io.inputs.iter_mut().enumerate() {
            for (c, chan) in reg.iter_mut().enumerate() {
                *chan = [(10.0 * r as f32 + c as f32).to_bits(); BATCH_LANES];
            }
        }
        let mut own = wide.scratch();
        wide.run_batch(&bind, &mut io, &mut own).unwrap();
        let want = io.outputs[0];
        assert_eq!(
            f32::from_bits(want[1][0]),
            31.0 * 3.0 + 1.0,
            "IN[3].y · 3 + IN[0].y"
        );
        // Another shader's scratch is remade for this one: the same pixels.
        let mut other = narrow.scratch();
        io.outputs[0] = [[0; BATCH_LANES]; 4];
        wide.run_batch(&bind, &mut io, &mut other).unwrap();
        assert_eq!(io.outputs[0], want);
        // Another shader's registers (one input where four are read) are refused.
        let mut small = BatchIo::new(&narrow.prepared, Arrangement::Quads);
        small.alive = ALL;
        let e = wide.run_batch(&bind, &mut small, &mut own).unwrap_err();
        assert!(e.to_string().contains("another shader"), "{e}");
    }
}
