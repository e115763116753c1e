//! Which texture lookups generated code samples itself, and how: the variant key of compiled
//! code ([`TexPaths`], one [`TexPath`] per texture operation), chosen by the runtime from the
//! bound textures and samplers, as llvmpipe keys its shaders by sampler state. The lowering
//! reads it to emit vector sampling ([`VectorTex`]: format, filters, wraps, levels, shadow
//! compare); the descriptor the code reads at run time is [`TexDesc`](super::abi::TexDesc).

use crate::ir::{TexKind, TexOp};

/// How the texels of a [`TexDesc`](crate::back::abi::TexDesc) are stored.
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

/// How one axis of a lookup wraps its coordinate ([`TexDesc`](crate::back::abi::TexDesc) has the arithmetic).
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
    /// (`VectorTex::code`).
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

/// How the generated code samples a texture operation itself ([`TexDesc`](crate::back::abi::TexDesc)).
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
    /// Through [`JitArgs::texture`](crate::back::abi::JitArgs::texture), the runtime's sampler.
    Call,
    /// In the generated code, from its [`TexDesc`](crate::back::abi::TexDesc).
    Vector(VectorTex),
}

/// Which texture operations of a function sample in the generated code ([`TexDesc`](crate::back::abi::TexDesc)) rather
/// than through [`JitArgs::texture`](crate::back::abi::JitArgs::texture), and how: a [`TexPath`] for the `k`-th of
/// [`texture_ops`] (the order of [`CompiledShader::textures`](crate::back::compiled::CompiledShader::textures)), other than `Call` only for
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

    /// The paths as words, one per operation (what a code cache stores).
    pub fn words(&self) -> &[u32; TexPaths::MAX] {
        &self.0
    }

    /// The paths of [`TexPaths::words`]' words (a word that is no path reads as [`TexPath::Call`]).
    pub fn from_words(words: [u32; TexPaths::MAX]) -> TexPaths {
        TexPaths(words)
    }

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
/// ([`CompiledShader::textures`](crate::back::compiled::CompiledShader::textures), the callback's index).
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
