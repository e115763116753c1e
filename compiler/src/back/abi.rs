//! The calling interface of generated shader code, shared by the JIT back ends (Cranelift, and
//! LLVM behind the `llvm` feature): what the code reads and writes ([`JitArgs`]), the callbacks
//! it makes, and the compiled object the runtime runs ([`CompiledShader`](super::compiled::CompiledShader)).

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

/// Why the byte form of a compiled shader or of its code image was refused: what is wrong
/// with it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("a stored compiled shader is refused: {0}")]
pub struct StoredError(pub &'static str);

/// Why a function cannot be compiled.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum JitError {
    /// The host is not supported (an x86-64 CPU with SSE4.1 is needed).
    #[error("unsupported host: {0}")]
    Host(String),
    /// Cranelift or LLVM failed on the code tgsic gave it (its verifier, its passes, its
    /// code generation or its object file; a bug in tgsic): the library's own message.
    #[error("{backend} failed ({stage}): {message}")]
    Backend {
        /// `Cranelift` or `LLVM`.
        backend: &'static str,
        /// Which of its steps.
        stage: &'static str,
        /// Its message.
        message: String,
    },
    /// An invariant of the lowering or a builder did not hold (a bug in tgsic).
    #[error("code generation failed: {0}")]
    Invariant(#[from] Invariant),
    /// Machine code whose layout does not hold together: a damaged code cache entry, or a
    /// bug in a back end.
    #[error("inconsistent machine code: {0}")]
    Layout(#[from] LayoutError),
    /// The code calls a function the symbol table it is mapped with does not provide.
    #[error("the code calls {symbol}, which {table} does not provide")]
    Unresolved {
        /// The function.
        symbol: String,
        /// The table (or back end) that lacks it.
        table: &'static str,
    },
    /// A back end, or the thread that ran the code, panicked (a bug in tgsic).
    #[error("{0} panicked")]
    Panicked(String),
    /// A lane count the back end does not compile.
    #[error("invalid JIT options: {backend} lanes = {lanes} ({takes})")]
    Lanes {
        /// The back end.
        backend: &'static str,
        /// The lanes asked for.
        lanes: usize,
        /// The lane counts it takes.
        takes: &'static str,
    },
    /// Code whose stack frame is deeper than any thread is given for it.
    #[error("the code's stack frame takes {bytes} bytes, more than the {limit} a shader may")]
    FrameTooLarge {
        /// The frame's bytes.
        bytes: usize,
        /// [`MAX_STACK_BYTES`](super::compiled::MAX_STACK_BYTES).
        limit: usize,
    },
    /// A stored compiled shader (a code cache entry's payload) that is damaged or does not
    /// belong to the function it was looked up for.
    #[error(transparent)]
    Stored(#[from] StoredError),
    /// Something the back ends do not compile yet.
    #[error("{what} cannot be compiled by the JIT yet ({why})")]
    NotYet {
        /// The construct.
        what: String,
        /// Why, and what runs it instead.
        why: &'static str,
    },
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

/// The invariants code generation checks: each is a bug in tgsic when it fails.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Invariant {
    /// A value read before its definition.
    #[error("{0} used before its definition")]
    UseBeforeDef(String),
    /// An IR operation without a lowering.
    #[error("no lowering for {0}")]
    NoLowering(String),
    /// Double-precision lanes asked of a target without them.
    #[error("this target has no double-precision lanes")]
    NoDoubleLanes,
    /// An operation given the wrong number of operands.
    #[error("{op} of {given} values")]
    Arity {
        /// The operation.
        op: String,
        /// The operands given.
        given: usize,
    },
    /// A layered texture lookup without its layer coordinate.
    #[error("a layered lookup without its depth")]
    LayeredWithoutDepth,
    /// An operation the builder cannot express on its vectors.
    #[error("no vector form of {0}")]
    NoVectorForm(String),
    /// A permutation of a lane count the builder has none for.
    #[error("no permute of {0} lanes")]
    NoPermute(usize),
    /// An LLVM intrinsic that is not there.
    #[error("no intrinsic {0}")]
    NoIntrinsic(String),
    /// A call or an instruction that gave no value where one was needed.
    #[error("{0} gives no value")]
    NoValue(String),
    /// A value that is not an instruction where one was built.
    #[error("not an instruction")]
    NotAnInstruction,
    /// Code outside a shader that calls an exact function, or an exact function's call that
    /// is not one.
    #[error("{0}: an exact function's call")]
    ExactCall(String),
    /// LLVM's masks moved into words where a mask was not one.
    #[error("mask words: {0}")]
    MaskWords(String),
    /// A table lookup in a shader's Cranelift code, whose exact functions are called instead.
    #[error("a table lookup in a shader's Cranelift code (exact functions are called)")]
    TableLookup,
}

/// How machine code (a code cache entry's, or a back end's) fails to hold together.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LayoutError {
    /// The instructions end past the bytes.
    #[error("the image's {code_len} bytes of instructions are past its {len} bytes")]
    InstructionsPastEnd {
        /// Bytes of instructions.
        code_len: usize,
        /// Bytes in all.
        len: usize,
    },
    /// The entry is not among the instructions.
    #[error("the image's entry at {entry} is not among its {code_len} bytes of instructions")]
    EntryOutside {
        /// The entry's offset.
        entry: usize,
        /// Bytes of instructions.
        code_len: usize,
    },
    /// A relocation past the bytes.
    #[error("a relocation at {offset} is past the image's {len} bytes")]
    RelocationPastEnd {
        /// Its offset.
        offset: usize,
        /// Bytes in all.
        len: usize,
    },
    /// A relocation whose target is past the bytes.
    #[error("a relocation points at {target}, past the image's {len} bytes")]
    TargetPastEnd {
        /// Its target's offset.
        target: usize,
        /// Bytes in all.
        len: usize,
    },
    /// A relocation over the entry.
    #[error("a relocation at {offset} overwrites the entry at {entry}")]
    RelocationOverEntry {
        /// Its offset.
        offset: usize,
        /// The entry's.
        entry: usize,
    },
    /// Two relocations that overlap.
    #[error("relocations at {0} and {1} overlap")]
    Overlap(usize, usize),
    /// A relocation kind the loader does not apply.
    #[error("relocation {0} is not supported")]
    RelocationKind(String),
}

/// The most IR instructions × vectors per step a JIT back end compiles: a bound far above every
/// real shader of the corpora, at which a compile still ends within bounded time and memory, so
/// that no shader makes the JIT exhaust either (docs/jit.md, "Compile time and size bounds";
/// measured: `results/history/jit-2026-11-30.md`).
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

/// The memory callback: `(host, memory op index, args, out, lane mask, first lane, lanes)`, as
/// [`TextureFn`]: the [`MemAccess`](crate::ir::MemAccess) `index` of
/// [`CompiledShader::memory`](super::compiled::CompiledShader::memory) for the lanes of the
/// mask, in lane order (arguments and results as the access lists them, `lanes` words each),
/// or with `index` [`BARRIER_CALL`] a barrier the lanes of the mask have reached.
pub type MemoryFn = TextureFn;

/// The memory callback's index of a barrier.
pub const BARRIER_CALL: u32 = u32::MAX;

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
    /// OUT. The components of [`CompiledShader::stored_outputs`](super::compiled::CompiledShader::stored_outputs) are written in every lane (0
    /// in lanes that do not run); the others only where the code stores them, so the caller
    /// zeroes them first.
    pub outputs: *mut u32,
    /// Every array of the function, in order, zeroed by the caller: `len` registers each.
    pub arrays: *mut u32,
    /// The direct constant reads, resolved: [`CompiledShader::uniforms`](super::compiled::CompiledShader::uniforms) gives their order.
    pub uniforms: *const u32,
    /// Constant buffers, for indirect reads.
    pub constants: *const ConstBuffer,
    /// Number of constant buffers.
    pub num_constants: u64,
    /// The function's immediates ([`CompiledShader::immediates`](super::compiled::CompiledShader::immediates)), four words each.
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
    /// Memory instructions and barriers of compute programs.
    pub memory: MemoryFn,
    /// The lane operations ([`super::lane_ops::tgsic_lanes_op_entered`]): called through this
    /// pointer, so that the code holds no address of this process and can be stored.
    pub lane_op: LaneOpFn,
    /// One per texture operation ([`CompiledShader::textures`](super::compiled::CompiledShader::textures)): the texture its lookups
    /// read. Read only for the operations the code samples itself ([`CompiledShader::tex_paths`](super::compiled::CompiledShader::tex_paths)),
    /// and of those that share a unit, a sampler, a target and a path only the first's.
    pub tex_descs: *const TexDesc,
    /// One per memory operation ([`CompiledShader::memory`](super::compiled::CompiledShader::memory)):
    /// the memory it addresses, for the operations the code applies itself ([`MemDesc`]).
    /// Never read by code without memory operations (it may then be null).
    pub mem_descs: *const MemDesc,
}

/// The memory of memory operation `k` of a function as the generated code sees it: a
/// storage buffer, the shared memory, or an image. The code loads, stores and applies
/// atomics itself where `ptr` is not null and every executing lane's access is one it can
/// make (word-aligned offsets; for a STORE of more than one word, offsets equal modulo 16
/// bytes, so that lanes meet only on whole words); otherwise the step's lanes call back
/// ([`MemoryFn`]), which applies the same rules. Either way each lane's access is checked
/// against `bytes` (buffers) or `size` (images) and out-of-bounds lanes read 0 and store
/// nothing.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct MemDesc {
    /// The first byte, 4-byte aligned; null: every access of the operation calls back.
    pub ptr: *mut u8,
    /// Buffers and shared memory: the bytes at `ptr` (the code touches only whole words
    /// below `bytes`). Images: the texel words at `ptr`, below 2³¹.
    pub bytes: u64,
    /// Images: width, height and depth in texels (every one at least 1).
    pub size: [u32; 3],
    /// Unused (the descriptor is 32 bytes).
    pub pad: u32,
}

impl MemDesc {
    /// The descriptor of an operation that always calls back.
    pub const CALL: MemDesc = MemDesc {
        ptr: std::ptr::null_mut(),
        bytes: 0,
        size: [0; 3],
        pad: 0,
    };
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
