//! What texture sampling works with: the values a step derives from a descriptor once
//! ([`DescVals`], per mip level [`MipVals`]), coordinates, and the level of detail.

use crate::back::simd::builder::{R, SimdBuilder};
use crate::ir;
use crate::tgsi::TextureTarget;

/// What the lookups of one texture descriptor derive from it ([`TexDesc`]): the texels, the
/// width (texels per row) and each axis's values of level 0, and what mipmapped lookups read.
/// The values of one level of a lookup (per lane) have the same form ([`Self::offset`]).
pub(in crate::back::simd) struct DescVals<B: SimdBuilder> {
    pub(super) texels: B::S,
    /// Level 0's layers (I32; a 3D texture's depth), for the lookups whose group reads them
    /// ([`Coords::layered`]): arrays, 3D textures, shadow lookups whose offset moves r.
    pub(super) depth: Option<B::V>,
    /// The words readable at `texels` (I64), read where lookups load a window of them whole
    /// ([`Lower::texel_words`]).
    pub(super) words: Option<B::S>,
    /// The level's first texel (none: level 0's, at `texels`).
    pub(super) offset: Option<B::V>,
    pub(super) width: B::V,
    pub(super) axes: [Axis<B>; 2],
    pub(super) mip: Option<MipVals<B>>,
}

impl<B: SimdBuilder> DescVals<B> {
    /// Level 0's layers, which a layered lookup's descriptor values hold ([`Coords::layered`]).
    pub(super) fn layers(&self) -> R<B::V> {
        self.depth
            .ok_or_else(|| crate::back::abi::Invariant::LayeredWithoutDepth.into())
    }
}

/// What a mipmapped lookup reads from its descriptor besides level 0.
pub(super) struct MipVals<B: SimdBuilder> {
    /// The level table.
    pub(super) levels: B::S,
    /// The last level (I32).
    pub(super) last: B::V,
    /// The sampler's bias, smallest and largest level of detail.
    pub(super) lod: [B::V; 3],
    /// Whether lanes form quads (a mask).
    pub(super) quads: B::V,
}

impl<B: SimdBuilder> Clone for MipVals<B> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<B: SimdBuilder> Copy for MipVals<B> {}

/// One axis of a descriptor, in every lane.
pub(super) struct Axis<B: SimdBuilder> {
    /// The side in texels (I32).
    pub(super) side: B::V,
    /// The side as a float: it scales a normalized coordinate (not RECT's) and tops a linear
    /// lookup's clamp (made always; back ends drop it where nothing reads it).
    pub(super) fside: B::V,
    /// Whether coordinates are texel coordinates already (RECT).
    pub(super) rect: bool,
    /// The last texel, `side − 1`: the clamp's top, and the period's mask of repeat and
    /// mirror (a power-of-two side), which keeps any side's texel inside it.
    pub(super) last: B::V,
}

/// How a lookup's coordinates are adjusted before it samples ([`Lower::coordinates`]).
#[derive(Clone, Copy)]
pub(super) struct Coords {
    /// Divided by q (TXP).
    pub(super) projective: bool,
    /// The first of the texel offset's arguments, if it has one.
    pub(super) offset: Option<usize>,
    /// The target, which says what the coordinates are: a shadow reference (z, adjusted as s
    /// and t are, or a cube or 2D array's w, as it is), a cube map's direction (projected,
    /// never offset), an array's layer (r, t for a 1D array), a 3D texture's r.
    pub(super) target: TextureTarget,
}

impl Coords {
    /// Whether the lookup reads level 0's layers: an array's layer is clamped to them, a 3D
    /// texture's r wraps over them, and a shadow lookup's offset moves r by `offset / depth`.
    pub(super) fn layered(&self) -> bool {
        let t = self.target;
        let shadow_offset = t.is_shadow() && !t.is_rect() && self.offset.is_some();
        t.is_array() || t == TextureTarget::Tex3D || shadow_offset
    }
}

/// Where a lookup samples ([`Lower::coordinates`]).
#[derive(Clone, Copy)]
pub(super) struct Coordinates<V> {
    /// (s, t): of the texture, or of the cube face.
    pub(super) st: [V; 2],
    /// A shadow lookup's reference.
    pub(super) reference: Option<V>,
    /// A cube lookup's face (I32, 0 to 5) or an array lookup's layer (I32, inside the
    /// texture's).
    pub(super) layer: Option<V>,
    /// Whether s alone addresses the row (1D targets: t is not read).
    pub(super) one_d: bool,
    /// A 3D lookup's r.
    pub(super) r: Option<V>,
}

/// What decides a lookup's level of detail: how, and its level arguments (from the first).
#[derive(Clone, Copy)]
pub(super) struct Lod<'a> {
    pub(super) level: ir::Level,
    pub(super) args: &'a [ir::Value],
}

impl<B: SimdBuilder> Clone for DescVals<B> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<B: SimdBuilder> Copy for DescVals<B> {}

impl<B: SimdBuilder> Clone for Axis<B> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<B: SimdBuilder> Copy for Axis<B> {}
