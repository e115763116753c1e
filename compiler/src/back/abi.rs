//! The calling interface of generated shader code, shared by the JIT back ends (Cranelift, and
//! LLVM behind the `llvm` feature): what the code reads and writes ([`JitArgs`]), the callbacks
//! it makes, and the compiled object the runtime runs ([`CompiledShader`]).

use crate::back::image::CodeImage;
use crate::back::texpath::TexPaths;
use crate::ir::TexOp;
use std::ffi::c_void;
use thiserror::Error;

/// Invocations per call of the generated code.
pub const BATCH_LANES: usize = 64;

/// How float math is computed (`docs/math.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum MathMode {
    /// The default: every arithmetic operation rounded as the interpreter rounds it (no
    /// fused multiply-adds, no products with reciprocals, MIN/MAX/comparison NaN rules kept),
    /// SIN and COS within 2 ulp with a reduction good for |x| < 2³⁰ (exact beyond;
    /// [`crate::numerics::accurate`]), EX2, LG2 and POW vector approximations within the
    /// bounds of [`fast_math`](crate::opt::fast_math). No less accurate than llvmpipe on the
    /// corpus; not bit-identical to the interpreter.
    #[default]
    Accurate,
    /// Bit-identical to the interpreter (glibc's functions, computed in the code).
    Exact,
    /// The loosest and fastest: [`Accurate`](Self::Accurate)'s EX2, LG2 and POW, SIN and COS
    /// within 2⁻²² absolute for |x| ≤ 8192, multiply-adds fused, divisions by constants and
    /// shared divisors made products with reciprocals.
    Fast,
}

/// Why a function cannot be compiled.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum JitError {
    /// The host is not supported (an x86-64 CPU with SSE4.1 is needed).
    #[error("unsupported host: {0}")]
    Host(String),
    /// The code generator rejected the generated code (a bug in tgsic).
    #[error("code generation failed: {0}")]
    Codegen(String),
    /// Options out of range.
    #[error("invalid JIT options: {0}")]
    Options(String),
    /// Code whose stack frame is deeper than any thread is given for it.
    #[error("the code's stack frame takes {bytes} bytes, more than the {limit} a shader may")]
    FrameTooLarge {
        /// The frame's bytes.
        bytes: usize,
        /// [`MAX_STACK_BYTES`].
        limit: usize,
    },
    /// A stored compiled shader (a code cache entry's payload) that is damaged or does not
    /// belong to the function it was looked up for.
    #[error(transparent)]
    Stored(#[from] super::image::ImageError),
    /// The back end is not in this build.
    #[error(
        "the {0} back end needs tgsic built with the cargo feature `{0}` (cargo build --release --features {0})"
    )]
    Unavailable(&'static str),
    /// A function too large to compile within the JIT's memory and time bounds.
    #[error(
        "the shader is too large for the JIT: {insts} IR instructions at {lanes} lanes per step \
         make {} four-lane vector instructions, more than the {limit} the JIT compiles (run it \
         with the interpreter, or with fewer lanes)",
        insts * lanes.div_ceil(4)
    )]
    TooLarge {
        /// IR instructions after optimization.
        insts: usize,
        /// Lanes per step.
        lanes: usize,
        /// The most `insts × lanes / 4` the JIT compiles ([`MAX_VECTOR_INSTS`]).
        limit: usize,
    },
}

/// The most IR instructions × vectors per step a JIT back end compiles: at this limit
/// Cranelift takes about a second and 300 MB on the reference machine (2-core AVX2), so that
/// no shader makes the JIT exhaust memory or time (docs/jit.md, "Compile time"). The largest
/// real shader of the corpus has 5,140 IR instructions: 41,120 at 32 lanes.
pub const MAX_VECTOR_INSTS: usize = 1 << 18;

/// Checks `insts` IR instructions at `lanes` lanes per step (`lanes / 4` four-lane vectors
/// each) against [`MAX_VECTOR_INSTS`].
///
/// # Errors
/// [`JitError::TooLarge`] past the limit.
pub fn check_size(insts: usize, lanes: usize) -> Result<(), JitError> {
    if insts.saturating_mul(lanes.div_ceil(4)) > MAX_VECTOR_INSTS {
        return Err(JitError::TooLarge {
            insts,
            lanes,
            limit: MAX_VECTOR_INSTS,
        });
    }
    Ok(())
}

/// The most registers of a constant buffer the generated code reads (its word indices stay
/// below 2^31): past them an indirect read gives 0. The runtime refuses larger buffers.
pub const MAX_CONST_REGISTERS: u64 = 1 << 28;

/// A constant buffer as the generated code sees it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ConstBuffer {
    /// Registers, four words each.
    pub ptr: *const u32,
    /// Number of registers (at most [`MAX_CONST_REGISTERS`] are read).
    pub len: u64,
}

/// The texture callback: `(host, texture op index, args, out, lane mask, first lane, lanes)`.
/// `args` holds each texture argument's lanes in turn (`lanes` words each); `out` receives
/// four components of `lanes` words.
pub type TextureFn = unsafe extern "C" fn(*mut c_void, u32, *const u32, *mut u32, u64, u32, u32);

/// The EMIT/ENDPRIM callback: `(host, is_emit, values, value count, lane mask, first lane,
/// lanes)`; `values` holds every output component, then the stream, `lanes` words each.
pub type EmitFn = unsafe extern "C" fn(*mut c_void, u32, *const u32, u32, u64, u32, u32);

/// The lane operations: `(code, a, b, c, d, out, lanes)`, as
/// [`tgsic_lanes_op`](super::lane_ops::tgsic_lanes_op) computes them.
pub type LaneOpFn =
    unsafe extern "C" fn(u32, *const u32, *const u32, *const u32, *const u32, *mut u32, u32);

/// What the generated code reads and writes; laid out for it (`#[repr(C)]`). Register files are
/// structure-of-arrays: component `c` of register `r` at lane `l` is word
/// `(r·4 + c)·BATCH_LANES + l`.
#[repr(C)]
#[derive(Debug)]
pub struct JitArgs {
    /// IN (geometry shaders: vertex-major, `inputs_per_vertex` registers per vertex).
    pub inputs: *const u32,
    /// Component x of the IN registers, which the code reads from here rather than from
    /// [`Self::inputs`]: component x of register `r` at lane `l` is word
    /// `r·inputs_x_stride + l`. Pointing at [`Self::inputs`] with a stride of
    /// `4·BATCH_LANES` reads them where the other components are; a fragment renderer points
    /// it at the tile's column of a table that holds the same words for every tile row, so
    /// it writes nothing per tile. Only direct reads of IN come from here (a shader that
    /// indexes IN reads component x from [`Self::inputs`] too, so the caller must fill both).
    pub inputs_x: *const u32,
    /// Words from component x of one IN register to that of the next in [`Self::inputs_x`].
    pub inputs_x_stride: u64,
    /// SV.
    pub sv: *const u32,
    /// OUT. The components of [`CompiledShader::stored_outputs`] are written in every lane (0
    /// in lanes that do not run); the others only where the code stores them, so the caller
    /// zeroes them first.
    pub outputs: *mut u32,
    /// Every array of the function, in order, zeroed by the caller: `len` registers each.
    pub arrays: *mut u32,
    /// The direct constant reads, resolved: [`CompiledShader::uniforms`] gives their order.
    pub uniforms: *const u32,
    /// Constant buffers, for indirect reads.
    pub constants: *const ConstBuffer,
    /// Number of constant buffers.
    pub num_constants: u64,
    /// The function's immediates ([`CompiledShader::immediates`]), four words each.
    pub immediates: *const u32,
    /// At least four readable zero words (reads that must not touch memory read these).
    pub zeros: *const u32,
    /// Lanes holding an invocation.
    pub alive: u64,
    /// Helper lanes (READ_HELPER).
    pub helpers: u64,
    /// Out: discarded lanes.
    pub killed: u64,
    /// Out: lanes out of loop iterations.
    pub exhausted: u64,
    /// Loop iterations each invocation may run.
    pub max_iterations: u64,
    /// IN registers per vertex (geometry shaders).
    pub inputs_per_vertex: u64,
    /// The clear colour's bits (FBFETCH).
    pub clear: [u32; 4],
    /// Passed to the callbacks.
    pub callbacks: *mut c_void,
    /// Texture lookups.
    pub texture: TextureFn,
    /// EMIT and ENDPRIM.
    pub emit: EmitFn,
    /// The lane operations ([`super::lane_ops::tgsic_lanes_op_entered`]): called through this
    /// pointer, so that the code holds no address of this process and can be stored.
    pub lane_op: LaneOpFn,
    /// One per texture operation ([`CompiledShader::textures`]): the texture its lookups
    /// read. Read only for the operations the code samples itself ([`CompiledShader::tex_paths`]),
    /// and of those that share a unit, a sampler, a target and a path only the first's.
    pub tex_descs: *const TexDesc,
}

/// Where texture operation `k` of a function samples when its [`TexPath`](crate::back::texpath::TexPath) is a
/// [`TexPath::Vector`](crate::back::texpath::TexPath::Vector): its texture in the generated code, exactly as the runtime's sampler
/// (`texture::sample`).
///
/// Per axis of a level, with `side` its width or height, `last = side − 1` and `x` the
/// texel-space coordinate (`s · side` for 2D, `s` for RECT), as the path's [`TexWrap`](crate::back::texpath::TexWrap) says:
/// - repeat: the texel `floor(x)`, converted as F2I (NaN and values outside the i32 range
///   give `i32::MIN`), masked by `last`;
/// - clamp to the edge: `floor(x)` saturated as Rust's `as i32`, clamped to `[0, last]`; a
///   linear lookup first clamps `x` to `[0, side]`;
/// - mirrored repeat: the texel `i` mirrors to `i & last` in even periods of `side` and to
///   `last − (i & last)` in odd ones (linear; `floor` converted as for repeat); nearest
///   reflects the coordinate's fraction in odd periods first.
///
/// Linear lookups take `x − ½`; their two texels `floor(x − ½)` and the next wrap as a
/// nearest texel does, and the weight of the second is the fraction. Repeat and mirror are
/// exact for a power-of-two side; every index stays inside its level whatever the side. With
/// [`VectorTex::any_side`](crate::back::texpath::VectorTex::any_side) they are exact for any side: repeat takes `i mod side` (the
/// Euclidean remainder) and mirror `m = i mod 2·side`, then `m` below `side`, `2·side − 1 − m`
/// from it (a nearest mirror reflects the fraction, exact for any side anyway).
///
/// A cube lookup picks a face per lane from its direction as the sampler's `cube_face` does,
/// samples the face at the face's (s, t) clamped to its edges, and finds face `f` of a level
/// `f · height` rows below the level's first texel: the texels hold every level's six faces
/// (at least six layers), one after the other. An array lookup finds its layer `l =
/// floor(r + ½)`, clamped to `[0, depth − 1]` (0 for NaN), `l · height` rows below, the same
/// layers on every level. A 3D lookup (level 0 alone) wraps r over the depth as s and t over
/// their sides, its slice `z` being `z · height` rows in, and filters two slices' bilinear
/// results linearly along r.
///
/// The fields up to `depth` describe level 0. A lookup whose level of detail matters
/// ([`VectorTex::mip`](crate::back::texpath::VectorTex::mip)) also reads the level table, the sampler's level-of-detail bias and
/// clamps, and whether lanes form quads.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TexDesc {
    /// The texels, level 0 first, each level row after row and layer after layer: RGBA f32
    /// words, every component canonical (no denormal, no NaN but the canonical one), for
    /// [`TexFormat::F32`](crate::back::texpath::TexFormat::F32); one word of RGBA8 unorm bytes, R lowest, for [`TexFormat::Unorm8`](crate::back::texpath::TexFormat::Unorm8).
    pub texels: *const core::ffi::c_void,
    /// The words readable at `texels` (every level's texels, at most 2³¹): the code may load
    /// any run of them whole (a window of neighbouring texels, permuted into the lanes that
    /// read them), never a word past them.
    pub words: u32,
    /// Level 0's width in texels.
    pub width: u32,
    /// Level 0's height in texels.
    pub height: u32,
    /// Level 0's layers (its depth): an array's layers, a cube map's six faces, 1 for a 2D
    /// texture. Every level the code reads has as many.
    pub depth: u32,
    /// Three words a level, `0..=last_level`: its first texel (counted in texels from
    /// `texels`), its width and its height. Only read by lookups with mipmaps.
    pub levels: *const u32,
    /// The last level.
    pub last_level: u32,
    /// The sampler's level-of-detail bias, smallest and largest level of detail.
    pub lod: [f32; 3],
    /// 1 when the lanes of a batch form 2×2 quads (fragments: an implicit level of detail
    /// comes from their differences), 0 when they do not (the implicit level of detail is 0).
    pub quads: u32,
}

impl TexDesc {
    /// The descriptor of a single level of `width × height × depth` texels at `texels`, where
    /// `words` words are readable (at most 2³¹; more count as 2³¹).
    pub fn new(
        texels: *const core::ffi::c_void,
        words: usize,
        [width, height, depth]: [u32; 3],
    ) -> Self {
        TexDesc {
            texels,
            words: words.min(1 << 31) as u32,
            width,
            height,
            depth,
            levels: std::ptr::null(),
            last_level: 0,
            lod: [0.0, f32::NEG_INFINITY, f32::INFINITY],
            quads: 0,
        }
    }

    /// This descriptor with mip levels: `levels` (three words each, see the field) up to
    /// `last_level`, level 0 the one [`TexDesc::new`] describes; the sampler's `lod` (bias,
    /// smallest, largest); whether lanes form `quads`.
    pub fn with_levels(mut self, levels: &[u32], lod: [f32; 3], quads: bool) -> Self {
        debug_assert!(levels.len() >= 3 && levels.len().is_multiple_of(3));
        self.levels = levels.as_ptr();
        self.last_level = (levels.len() / 3).saturating_sub(1) as u32;
        self.lod = lod;
        self.quads = quads as u32;
        self
    }
}

/// A texture operation of the code: what the callback index stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextureCall {
    /// The operation.
    pub op: TexOp,
    /// Its argument count (four per non-resource source, then three per offset), each
    /// `lanes` words in the callback's `args`.
    pub args: usize,
}

/// Keeps generated machine code alive; dropping it frees the code.
pub trait CodeOwner {}

/// A compiled shader: machine code for one [`Function`](crate::ir::Function), and what the
/// caller must provide. Both JIT back ends produce it; the runtime runs either alike.
pub struct CompiledShader {
    /// Held for its `Drop`, which frees the code.
    _owner: Box<dyn CodeOwner>,
    entry: unsafe extern "C" fn(*mut JitArgs),
    /// The machine code as data, from which it was mapped: what a code cache stores.
    pub image: std::sync::Arc<CodeImage>,
    /// The direct constant reads `(buffer, register, component)` in [`JitArgs::uniforms`] order.
    pub uniforms: Vec<(u32, u32, u8)>,
    /// The texture operations, by the index the callback receives.
    pub textures: Vec<TextureCall>,
    /// The texture operations the code samples itself, reading their [`JitArgs::tex_descs`].
    pub tex_paths: TexPaths,
    /// By OUT component (`register·4 + component`; past the end, false): whether the code
    /// writes it in every lane of a batch ([`JitArgs::outputs`]).
    pub stored_outputs: Vec<bool>,
    /// The immediates [`JitArgs::immediates`] must point to.
    pub immediates: Vec<u32>,
    /// Words of the arrays buffer [`JitArgs::arrays`] must point to: every array (zeroed
    /// before each batch, as arrays read 0 until written), then one register of
    /// `4 · BATCH_LANES` words where dropped stores go, which the code never reads.
    pub array_words: usize,
    /// Bytes of machine code.
    pub code_size: usize,
    /// Bytes of stack the code's frame takes (0 when the back end does not say). Above
    /// [`INLINE_STACK`], [`CompiledShader::call`] runs the code on a thread with room for it.
    pub stack_bytes: usize,
    /// Lanes per step.
    pub lanes_per_step: usize,
    /// The back end's IR (Cranelift IR, LLVM IR), when asked for.
    pub ir_text: Option<String>,
    /// The disassembled machine code, when asked for.
    pub asm: Option<String>,
}

/// The deepest frame any compiled shader may have: far beyond the frame of any real shader
/// (spill slots of the largest function the JIT compiles, [`MAX_VECTOR_INSTS`]), far below
/// what a thread can be given.
pub const MAX_STACK_BYTES: usize = 64 << 20;

/// The deepest frame [`CompiledShader::call`] runs on the calling thread: any thread's stack
/// has this much room (a Rust thread has 2 MiB, a test thread too).
pub const INLINE_STACK: usize = 256 << 10;

// SAFETY: the owner is only touched again by `Drop`, on whichever thread drops the shader;
// the code itself is immutable.
unsafe impl Send for CompiledShader {}
// SAFETY: the entry point reads nothing but its arguments and immutable code, so concurrent
// calls from several threads are fine.
unsafe impl Sync for CompiledShader {}

impl std::fmt::Debug for CompiledShader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledShader")
            .field("code_size", &self.code_size)
            .field("lanes_per_step", &self.lanes_per_step)
            .field("uniforms", &self.uniforms.len())
            .field("textures", &self.textures.len())
            .finish()
    }
}

/// What a back end hands over besides the code.
#[derive(Debug, Clone, Default)]
pub struct CodeInfo {
    /// See [`CompiledShader::uniforms`].
    pub uniforms: Vec<(u32, u32, u8)>,
    /// See [`CompiledShader::textures`].
    pub textures: Vec<TextureCall>,
    /// See [`CompiledShader::tex_paths`].
    pub tex_paths: TexPaths,
    /// See [`CompiledShader::stored_outputs`].
    pub stored_outputs: Vec<bool>,
    /// See [`CompiledShader::code_size`].
    pub code_size: usize,
    /// See [`CompiledShader::stack_bytes`].
    pub stack_bytes: usize,
    /// See [`CompiledShader::lanes_per_step`].
    pub lanes_per_step: usize,
    /// See [`CompiledShader::ir_text`].
    pub ir_text: Option<String>,
    /// See [`CompiledShader::asm`].
    pub asm: Option<String>,
}

impl CompiledShader {
    /// The shader whose machine code is `image`, mapped into this process, compiled from `f`
    /// with what the back end hands over besides the code.
    ///
    /// # Errors
    /// As [`CodeImage::map`].
    pub fn from_image(
        image: CodeImage,
        f: &crate::ir::Function,
        info: CodeInfo,
    ) -> Result<CompiledShader, JitError> {
        let immediates = f.immediates.iter().flatten().copied().collect();
        let array_words =
            (f.arrays.iter().map(|a| a.len as usize).sum::<usize>() + 1) * 4 * BATCH_LANES;
        CompiledShader::from_parts(image, immediates, array_words, info)
    }

    /// The shader of `image`, mapped into this process, with its immediates and array
    /// storage given as they are (what [`CompiledShader::from_bytes`] reads).
    ///
    /// # Errors
    /// As [`CodeImage::map`].
    pub(crate) fn from_parts(
        image: CodeImage,
        immediates: Vec<u32>,
        array_words: usize,
        info: CodeInfo,
    ) -> Result<CompiledShader, JitError> {
        if info.stack_bytes > MAX_STACK_BYTES {
            return Err(JitError::FrameTooLarge {
                bytes: info.stack_bytes,
                limit: MAX_STACK_BYTES,
            });
        }
        let (owner, entry) = image.map()?;
        Ok(CompiledShader {
            _owner: Box::new(owner),
            entry,
            image: std::sync::Arc::new(image),
            uniforms: info.uniforms,
            textures: info.textures,
            tex_paths: info.tex_paths,
            stored_outputs: info.stored_outputs,
            immediates,
            array_words,
            code_size: info.code_size,
            stack_bytes: info.stack_bytes,
            lanes_per_step: info.lanes_per_step,
            ir_text: info.ir_text,
            asm: info.asm,
        })
    }

    /// Runs the code over one batch.
    ///
    /// # Safety
    /// Every pointer of `args` must address the storage its documentation describes, sized
    /// for the function this was compiled from (registers up to the function's highest input,
    /// system value, output and array register; `uniforms` as long as [`Self::uniforms`];
    /// `constants` with `num_constants` valid buffers; `tex_descs` with one [`TexDesc`] per
    /// entry of [`Self::textures`], which for the first operation of each group of
    /// [`Self::tex_paths`] that shares a unit, a sampler, a target and a path describes its
    /// texture: level 0's `width × height` texels in the path's format, `words` readable words
    /// at `texels` (every level's texels among them), and for a mipmapped
    /// path a level table whose levels all lie in the same buffer, every side at least 1 (a
    /// side that is not a power of two under repeat or mirror reads wrong texels of the level,
    /// never outside it), and the callbacks must be safe to call with `args.callbacks` and entered
    /// through
    /// [`default_fp_trampoline!`](crate::default_fp_trampoline). The code runs under DAZ/FTZ,
    /// set and restored around it ([`super::fpenv::call_with_ftz`]).
    ///
    /// A frame deeper than [`INLINE_STACK`] (a function past the single-pass threshold of the
    /// Cranelift back end) runs on a thread of its own with room for it, while the caller
    /// waits.
    ///
    /// # Errors
    /// [`JitError::Host`] when that thread cannot be started (the code did not run).
    pub unsafe fn call(&self, args: &mut JitArgs) -> Result<(), JitError> {
        // SAFETY: captured on this thread just now; the caller vouches for the rest.
        unsafe { self.call_in(&super::fpenv::FpEnv::capture(), args) }
    }

    /// As [`Self::call`], with the floating-point environments captured before
    /// ([`super::fpenv::call_in`]): a caller that runs many batches captures them once.
    ///
    /// # Safety
    /// As [`Self::call`], and `env` was captured on the calling thread with the MXCSR
    /// unchanged since.
    ///
    /// # Errors
    /// As [`Self::call`].
    pub unsafe fn call_in(
        &self,
        env: &super::fpenv::FpEnv,
        args: &mut JitArgs,
    ) -> Result<(), JitError> {
        if self.stack_bytes <= INLINE_STACK {
            // SAFETY: the caller upholds this function's contract, which is the code's; its
            // frame fits the calling thread's stack, and `env` is the thread's.
            unsafe { super::fpenv::call_in(env, self.entry, args) };
            return Ok(());
        }
        /// The call, moved to the deep thread (the caller waits, so nothing is shared).
        struct Deep(unsafe extern "C" fn(*mut JitArgs), *mut JitArgs);
        // SAFETY: the caller blocks until the thread is joined, so the arguments and
        // everything they point to are used by one thread at a time.
        unsafe impl Send for Deep {}
        let deep = Deep(self.entry, args);
        let stack = self.stack_bytes + (1 << 20);
        std::thread::scope(|s| {
            let thread = std::thread::Builder::new()
                .name("tgsic-deep-shader".into())
                .stack_size(stack)
                .spawn_scoped(s, move || {
                    let d = deep;
                    // SAFETY: as for the call on the calling thread; the caller vouches.
                    unsafe { super::fpenv::call_with_ftz(d.0, d.1) }
                })
                .map_err(|e| {
                    JitError::Host(format!(
                        "cannot start a thread with {stack} bytes of stack: {e}"
                    ))
                })?;
            thread
                .join()
                .map_err(|_| JitError::Codegen("the generated code's thread panicked".into()))
        })
    }
}
