//! The calling interface of generated shader code, shared by the JIT back ends (Cranelift, and
//! LLVM behind the `llvm` feature): what the code reads and writes ([`JitArgs`]), the callbacks
//! it makes, and the compiled object the runtime runs ([`CompiledShader`]).

use crate::ir::{TexKind, TexOp};
use std::ffi::c_void;
use thiserror::Error;

/// Invocations per call of the generated code.
pub const BATCH_LANES: usize = 64;

/// How transcendental functions are computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum MathMode {
    /// Bit-identical to the interpreter (glibc's functions, called per lane).
    #[default]
    Exact,
    /// Polynomial approximations expanded into the IR before code generation (bounds in
    /// [`fast_math`](crate::opt::fast_math)).
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

/// What the generated code reads and writes; laid out for it (`#[repr(C)]`). Register files are
/// structure-of-arrays: component `c` of register `r` at lane `l` is word
/// `(r·4 + c)·BATCH_LANES + l`.
#[repr(C)]
#[derive(Debug)]
pub struct JitArgs {
    /// IN (geometry shaders: vertex-major, `inputs_per_vertex` registers per vertex).
    pub inputs: *const u32,
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
    pub host: *mut c_void,
    /// Texture lookups.
    pub texture: TextureFn,
    /// EMIT and ENDPRIM.
    pub emit: EmitFn,
    /// One per texture operation ([`CompiledShader::textures`]): the texture its lookups
    /// read. Read only for the operations the code samples itself ([`CompiledShader::tex_paths`]),
    /// and of those that share a unit, a sampler, a target and a path only the first's.
    pub tex_descs: *const TexDesc,
}

/// Where texture operation `k` of a function samples when its [`TexPath`] is a
/// [`TexPath::Vector`]: its texture in the generated code, exactly as the runtime's sampler
/// (`texture::sample`).
///
/// Per axis of a level, with `side` its width or height, `last = side − 1` and `x` the
/// texel-space coordinate (`s · side` for 2D, `s` for RECT), as the path's [`TexWrap`] says:
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
/// [`VectorTex::any_side`] they are exact for any side: repeat takes `i mod side` (the
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
/// ([`VectorTex::mip`]) also reads the level table, the sampler's level-of-detail bias and
/// clamps, and whether lanes form quads.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TexDesc {
    /// The texels, level 0 first, each level row after row and layer after layer: RGBA f32
    /// words, every component canonical (no denormal, no NaN but the canonical one), for
    /// [`TexFormat::F32`]; one word of RGBA8 unorm bytes, R lowest, for [`TexFormat::Unorm8`].
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

/// How the texels of a [`TexDesc`] are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TexFormat {
    /// RGBA f32, four words a texel.
    F32,
    /// RGBA8 unorm, one word a texel: a byte `b` reads as `b as f32 · (1/255 as f32)`.
    Unorm8,
}

/// Which levels a lookup samples. A texel fetch or size query reads the level each lane names:
/// of a texture of one level with `Level0`, of the levels in one buffer (with their table)
/// with `Nearest`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TexMip {
    /// Level 0 with the one filter: the level of detail does not matter.
    Level0,
    /// Level 0, minified or magnified by the level of detail (their filters differ).
    Single,
    /// The nearest level to the level of detail.
    Nearest,
    /// The two levels around the level of detail, interpolated.
    Linear,
}

/// How one axis of a lookup wraps its coordinate ([`TexDesc`] has the arithmetic).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TexWrap {
    /// Repeat (a power-of-two side).
    Repeat,
    /// Clamp to the edge (any side).
    Clamp,
    /// Mirrored repeat (a power-of-two side).
    Mirror,
}

impl TexWrap {
    /// Every wrap, in the order of their codes in a [`TexPaths`] ([`VectorTex::code`]).
    const ALL: [TexWrap; 3] = [TexWrap::Repeat, TexWrap::Clamp, TexWrap::Mirror];
}

/// A shadow lookup's comparison of its reference `r` with a texel's red `t` (the sampler's
/// compare function, the runtime's `texture::Compare`), which passes as 1.0 and fails as 0.0
/// before filtering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TexCompare {
    /// Never passes.
    Never,
    /// `r < t`.
    Less,
    /// `r == t`.
    Equal,
    /// `r <= t`.
    LEqual,
    /// `r > t`.
    Greater,
    /// `r != t` (NaN passes).
    NotEqual,
    /// `r >= t`.
    GEqual,
    /// Always passes.
    Always,
}

impl TexCompare {
    /// Parses `never`, `less`, `equal`, `lequal`, `greater`, `notequal`, `gequal`, `always`.
    pub fn from_name(s: &str) -> Option<TexCompare> {
        let names = [
            "never", "less", "equal", "lequal", "greater", "notequal", "gequal", "always",
        ];
        names.iter().position(|&n| n == s).map(|k| Self::ALL[k])
    }

    /// Whether reference `r` passes against texel red `t` (both read as under DAZ already).
    pub fn test(self, r: f32, t: f32) -> bool {
        match self {
            TexCompare::Never => false,
            TexCompare::Less => r < t,
            TexCompare::Equal => r == t,
            TexCompare::LEqual => r <= t,
            TexCompare::Greater => r > t,
            TexCompare::NotEqual => r != t,
            TexCompare::GEqual => r >= t,
            TexCompare::Always => true,
        }
    }

    /// Every function, in declaration order, which is their code in a [`TexPaths`]
    /// ([`VectorTex::code`]).
    pub const ALL: [TexCompare; 8] = [
        TexCompare::Never,
        TexCompare::Less,
        TexCompare::Equal,
        TexCompare::LEqual,
        TexCompare::Greater,
        TexCompare::NotEqual,
        TexCompare::GEqual,
        TexCompare::Always,
    ];
}

/// How the generated code samples a texture operation itself ([`TexDesc`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VectorTex {
    /// How the texels are stored.
    pub format: TexFormat,
    /// Bilinear filtering when minifying (and for [`TexMip::Level0`] always); nearest
    /// otherwise.
    pub linear: bool,
    /// Bilinear filtering when magnifying (the level of detail is 0 or less, or NaN).
    pub mag_linear: bool,
    /// How s, t and (3D textures) r wrap.
    pub wrap: [TexWrap; 3],
    /// Which levels it samples.
    pub mip: TexMip,
    /// A shadow lookup's comparison (shadow targets only).
    pub compare: Option<TexCompare>,
    /// Whether repeat and mirror wrap any side (the remainder of a division, per lane), not
    /// only powers of two (a mask).
    pub any_side: bool,
}

impl VectorTex {
    /// Nearest filtering of level 0's f32 texels, repeated.
    pub const NEAREST_F32: VectorTex = VectorTex {
        format: TexFormat::F32,
        linear: false,
        mag_linear: false,
        wrap: [TexWrap::Repeat; 3],
        mip: TexMip::Level0,
        compare: None,
        any_side: false,
    };

    /// The path's code in a [`TexPaths`]: bit 0 set, then the format, the two filters, the
    /// levels (two bits), s's and t's wrap (two bits each), whether it compares and how
    /// (three bits), whether repeat and mirror wrap any side, r's wrap (two bits).
    fn code(self) -> u32 {
        let mip = match self.mip {
            TexMip::Level0 => 0,
            TexMip::Single => 1,
            TexMip::Nearest => 2,
            TexMip::Linear => 3,
        };
        let wrap = |w: TexWrap| match w {
            TexWrap::Repeat => 0u32,
            TexWrap::Clamp => 1,
            TexWrap::Mirror => 2,
        };
        1 | (u32::from(self.format == TexFormat::Unorm8) << 1)
            | (u32::from(self.linear) << 2)
            | (u32::from(self.mag_linear) << 3)
            | (mip << 4)
            | (wrap(self.wrap[0]) << 6)
            | (wrap(self.wrap[1]) << 8)
            | self.compare.map_or(0, |c| (1 << 10) | ((c as u32) << 11))
            | (u32::from(self.any_side) << 14)
            | (wrap(self.wrap[2]) << 15)
    }

    fn from_code(c: u32) -> Option<VectorTex> {
        let wrap = |shift: u32| TexWrap::ALL.get(((c >> shift) & 3) as usize).copied();
        if c & 1 == 0 {
            return None;
        }
        Some(VectorTex {
            format: if c & 2 != 0 {
                TexFormat::Unorm8
            } else {
                TexFormat::F32
            },
            linear: c & 4 != 0,
            mag_linear: c & 8 != 0,
            mip: [
                TexMip::Level0,
                TexMip::Single,
                TexMip::Nearest,
                TexMip::Linear,
            ][((c >> 4) & 3) as usize],
            wrap: [wrap(6)?, wrap(8)?, wrap(15)?],
            compare: (c & (1 << 10) != 0).then(|| TexCompare::ALL[((c >> 11) & 7) as usize]),
            any_side: c & (1 << 14) != 0,
        })
    }
}

/// How the lookups of one texture operation run (its code in [`TexPaths`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TexPath {
    /// Through [`JitArgs::texture`], the runtime's sampler.
    Call,
    /// In the generated code, from its [`TexDesc`].
    Vector(VectorTex),
}

/// Which texture operations of a function sample in the generated code ([`TexDesc`]) rather
/// than through [`JitArgs::texture`], and how: a [`TexPath`] for the `k`-th of
/// [`texture_ops`] (the order of [`CompiledShader::textures`]), other than `Call` only for
/// operations [`vector_texture`] accepts. Code is compiled for one `TexPaths` (a variant per
/// sampler state, as llvmpipe keys its shaders); operations past the [`TexPaths::MAX`]th
/// always call back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TexPaths([u32; TexPaths::MAX]);

impl Default for TexPaths {
    fn default() -> Self {
        Self::NONE
    }
}

impl TexPaths {
    /// How many operations a `TexPaths` can send to vector code.
    pub const MAX: usize = 256;

    /// Every operation through the callback.
    pub const NONE: TexPaths = TexPaths([0; TexPaths::MAX]);

    /// Every operation that can ([`vector_texture`]) in the generated code, nearest, f32
    /// texels, repeated ([`VectorTex::NEAREST_F32`]).
    pub const ALL: TexPaths = TexPaths([1; TexPaths::MAX]);

    /// How operation `k` samples.
    pub fn get(&self, k: usize) -> TexPath {
        if k >= Self::MAX {
            return TexPath::Call;
        }
        match VectorTex::from_code(self.0[k]) {
            Some(v) => TexPath::Vector(v),
            None => TexPath::Call,
        }
    }

    /// Whether operation `k` samples in the generated code.
    pub fn vector(&self, k: usize) -> bool {
        self.get(k) != TexPath::Call
    }

    /// Whether the first `ops` operations sample as in `other` (all of them where both say
    /// nothing of the rest, as the paths of one shader's `ops` operations: a shorter
    /// comparison than `==` before every batch).
    #[inline]
    pub fn same_first(&self, other: &TexPaths, ops: usize) -> bool {
        let n = ops.min(Self::MAX);
        self.0[..n] == other.0[..n]
    }

    /// Sets how operation `k` samples (ignored past [`Self::MAX`]).
    pub fn set(&mut self, k: usize, path: TexPath) {
        self.set_each(&[k], path);
    }

    /// Sets how each operation of `ks` samples (those past [`Self::MAX`] are ignored): the
    /// runtime's choice for a group of operations before every batch.
    #[inline]
    pub fn set_each(&mut self, ks: &[usize], path: TexPath) {
        let code = match path {
            TexPath::Call => 0,
            TexPath::Vector(v) => v.code(),
        };
        for &k in ks {
            if let Some(c) = self.0.get_mut(k) {
                *c = code;
            }
        }
    }
}

/// The texture operations of `f` in the order of its code's texture table
/// ([`CompiledShader::textures`], the callback's index).
pub fn texture_ops(f: &crate::ir::Function) -> Vec<TexOp> {
    let mut ops = Vec::new();
    f.for_each_inst(|i| {
        if let crate::ir::Op::Texture(t) = &f.insts[i].op {
            ops.push((**t).clone());
        }
    });
    ops
}

/// Whether the generated code may sample for texture operation `op` itself (when the bound
/// texture and sampler allow, [`TexPaths`]): a 2D or RECT sample without a depth reference,
/// projective (TXP) or with a texel offset, its level of detail of any kind, a SHADOW2D or
/// SHADOWRECT sample that compares the coordinates' z, a 2D_ARRAY sample or a SHADOW2D_ARRAY
/// one that compares the coordinates' w (projective or not, with texel offsets or not), a 1D,
/// SHADOW1D, 1D_ARRAY or SHADOW1D_ARRAY sample (s, the layer t, the reference z), a 3D sample
/// (of level 0 alone: the runtime samples one in the code only where the level of detail
/// does not matter), a CUBE sample or a SHADOWCUBE one that compares the coordinates' w
/// (projective or not, without offsets, which cube maps do not take), or a texel fetch (TXF)
/// or size query (TXQ) of a 2D or RECT texture.
pub fn vector_texture(op: &TexOp) -> bool {
    use crate::tgsi::TextureTarget as T;
    match op.target {
        T::Tex2D | T::Rect => {
            matches!(op.kind, TexKind::Sample | TexKind::Fetch | TexKind::Size) && !op.compare
        }
        // The reference in the coordinates (not a source of its own).
        T::Shadow2D
        | T::ShadowRect
        | T::Array2D
        | T::Shadow2DArray
        | T::Tex1D
        | T::Shadow1D
        | T::Array1D
        | T::Shadow1DArray
        | T::Tex3D => op.kind == TexKind::Sample && !op.compare,
        T::Cube | T::ShadowCube => op.kind == TexKind::Sample && !op.compare && op.offsets == 0,
        _ => false,
    }
}

/// A descriptor group ([`desc_group`]): unit, sampler, RECT-ness, and 0 for fetches and size
/// queries; for samples 1, plus 1 for a shadow comparison, 2 for a cube, 4 for an array, 8
/// for a 3D texture.
pub type DescGroup = (u32, Option<u32>, bool, u8);

/// Which descriptor a texture operation the code samples ([`vector_texture`]) reads: its
/// unit, sampler, RECT-ness and whether it samples (a cube, an array, a 3D texture or none,
/// with a shadow comparison or not), or fetches or queries. Operations of one group read one
/// descriptor, which the runtime writes at the group's first and the generated code loads
/// from there, so both group by this.
pub fn desc_group(op: &TexOp) -> DescGroup {
    let kind = match op.kind {
        TexKind::Sample => {
            let t = op.target;
            let volume = t == crate::tgsi::TextureTarget::Tex3D;
            1 + t.is_shadow() as u8
                + 2 * t.is_cube() as u8
                + 4 * t.is_array() as u8
                + 8 * volume as u8
        }
        _ => 0,
    };
    (op.unit, op.sampler, op.target.is_rect(), kind)
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

/// The deepest frame [`CompiledShader::call`] runs on the calling thread: any thread's stack
/// has this much room (a Rust thread has 2 MiB, a test thread too).
pub const INLINE_STACK: usize = 256 << 10;

// SAFETY: the owner is only touched again by `Drop`; the entry point reads nothing but its
// arguments and immutable code, so concurrent calls are fine.
unsafe impl Send for CompiledShader {}
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
    /// Wraps code generated for `f`.
    ///
    /// # Safety
    /// `entry` must point to code that `owner` keeps alive and that implements the
    /// [`JitArgs`] contract for `f`.
    pub unsafe fn new(
        owner: Box<dyn CodeOwner>,
        entry: unsafe extern "C" fn(*mut JitArgs),
        f: &crate::ir::Function,
        info: CodeInfo,
    ) -> CompiledShader {
        CompiledShader {
            _owner: owner,
            entry,
            uniforms: info.uniforms,
            textures: info.textures,
            tex_paths: info.tex_paths,
            stored_outputs: info.stored_outputs,
            immediates: f.immediates.iter().flatten().copied().collect(),
            array_words: (f.arrays.iter().map(|a| a.len as usize).sum::<usize>() + 1)
                * 4
                * BATCH_LANES,
            code_size: info.code_size,
            stack_bytes: info.stack_bytes,
            lanes_per_step: info.lanes_per_step,
            ir_text: info.ir_text,
            asm: info.asm,
        }
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
    /// never outside it), and the callbacks must be safe to call with `args.host` and entered
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
        if self.stack_bytes <= INLINE_STACK {
            unsafe { super::fpenv::call_with_ftz(self.entry, args) };
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_vector_path_keeps_its_code_beside_its_neighbours() {
        let mut all = Vec::new();
        for format in [TexFormat::F32, TexFormat::Unorm8] {
            for bits in 0..36u8 {
                for mip in [
                    TexMip::Level0,
                    TexMip::Single,
                    TexMip::Nearest,
                    TexMip::Linear,
                ] {
                    all.push(TexPath::Vector(VectorTex {
                        format,
                        linear: bits & 1 != 0,
                        mag_linear: bits & 2 != 0,
                        wrap: [
                            TexWrap::ALL[usize::from(bits / 4 % 3)],
                            TexWrap::ALL[usize::from(bits / 12)],
                            TexWrap::ALL[usize::from(bits % 3)],
                        ],
                        mip,
                        compare: (bits % 9 != 8).then(|| TexCompare::ALL[usize::from(bits % 9)]),
                        any_side: bits % 5 == 0,
                    }));
                }
            }
        }
        all.push(TexPath::Call);
        assert!(all.len() > TexPaths::MAX);
        for chunk in all.chunks(TexPaths::MAX) {
            let mut paths = TexPaths::NONE;
            for (k, &p) in chunk.iter().enumerate() {
                paths.set(k, p);
            }
            for (k, &p) in chunk.iter().enumerate() {
                assert_eq!(paths.get(k), p, "operation {k}");
            }
        }
        assert_eq!(
            TexPaths::ALL.get(3),
            TexPath::Vector(VectorTex::NEAREST_F32)
        );
        assert_eq!(TexPaths::ALL.get(TexPaths::MAX), TexPath::Call);
    }
}
