//! Which texture lookups the generated code samples itself: a batch's textures and samplers
//! decide, per group of operations that share a descriptor, whether the code reads the texels
//! (and how: filters, wraps, levels) or calls back into the runtime's sampler.

use crate::engine::Bindings;
use crate::texture::{ChainTexels, MipChain};
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::Arc;
use tgsic::back::Backend;
use tgsic::back::abi::TexDesc;
use tgsic::back::texpath::{
    DescGroup, TexCompare, TexFormat, TexMip, TexPath, TexPaths, TexWrap, VectorTex, desc_group,
};
use tgsic::ir::{TexKind, TexOp};

/// [`TexDesc`]s, rewritten before every batch, and the mip chains they point into (kept alive
/// while the batch runs).
#[derive(Debug, Default)]
pub(super) struct TexDescs(Vec<TexDesc>, Vec<Arc<MipChain>>);

impl TexDescs {
    /// The descriptors, where the generated code reads them.
    pub(super) fn as_ptr(&self) -> *const TexDesc {
        self.0.as_ptr()
    }
}

// SAFETY: the descriptors' pointers are written from a batch's bindings before the batch runs
// and read only by the code that batch calls, on the thread that holds the scratch; between
// batches nothing reads them.
unsafe impl Send for TexDescs {}

/// Zeros the generated code reads where nothing else is: an unbound constant buffer, no
/// uniforms or immediates, a descriptor no lookup reads.
pub(super) static ZEROS: [u32; 16] = [0; 16];

/// The level table of a descriptor that samples level 0 alone (never read: such a lookup's
/// code samples level 0 from the descriptor's own fields).
static LEVEL0: [u32; 3] = [0, 1, 1];

/// Texture operations that may sample in generated code ([`vector_texture`]), grouped by what
/// their descriptor and path follow from: unit, sampler and RECT-ness. The code reads a group's
/// descriptor at its first operation, so a batch writes one descriptor per group.
///
/// [`vector_texture`]: tgsic::back::texpath::vector_texture
#[derive(Debug, Clone, Default)]
pub(super) struct TexGroups {
    /// Each group's operations (indices in the code's order), the first first.
    pub(super) groups: Vec<Vec<usize>>,
    /// How many operations there are.
    pub(super) ops: usize,
}

impl TexGroups {
    fn new<'a>(ops: impl Iterator<Item = &'a TexOp>) -> TexGroups {
        let mut by_key: HashMap<DescGroup, usize> = HashMap::new();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut count = 0;
        for (k, op) in ops.enumerate() {
            count += 1;
            if !tgsic::back::texpath::vector_texture(op) {
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

/// The texture operations `ops` (a function's, in the code's order) grouped by descriptor,
/// and their paths with `bind` (every one through the callback without bindings).
pub(super) fn groups_and_paths(
    ops: &[TexOp],
    backend: Backend,
    lookups: Lookups<'_>,
) -> (TexGroups, TexPaths) {
    let groups = TexGroups::new(ops.iter());
    let paths = match lookups {
        // The paths do not depend on how lanes are arranged, only descriptors do.
        Lookups::For(bind) => tex_paths(
            backend,
            bind,
            |k| &ops[k],
            &groups,
            false,
            &mut TexDescs::default(),
        ),
        Lookups::Callback => TexPaths::NONE,
        Lookups::Every => TexPaths::ALL,
        Lookups::Paths(p) => *p,
    };
    (groups, paths)
}

/// The texture paths `lookups` calls for in the code `backend` compiles from a function with
/// the texture operations `ops`.
pub(super) fn texture_paths(ops: &[TexOp], backend: Backend, lookups: Lookups<'_>) -> TexPaths {
    groups_and_paths(ops, backend, lookups).1
}

/// Which texture lookups code compiled up front samples itself; the others call back into the
/// runtime's sampler. A batch whose bindings call for another variant compiles that one when
/// it first runs, so the choice changes when code is compiled, never what a run computes.
#[derive(Debug, Clone, Copy)]
pub enum Lookups<'a> {
    /// None: every lookup calls back.
    Callback,
    /// Those the textures and samplers of these bindings let the code sample: what a run
    /// with them executes.
    For(&'a Bindings),
    /// Every lookup that can, as for textures of f32 texels sampled nearest with repeat: the
    /// most code, to read or to measure.
    Every,
    /// The paths given, as another back end's lookups for some bindings chose them (the
    /// second tier of a tiered shader compiles the variant the first tier runs).
    Paths(&'a TexPaths),
}

/// Which texture operations (`op(k)` the `k`-th in the code's order, grouped by `groups`) may
/// sample in generated code with the textures and samplers of `bind` ([`tex_desc`]), which
/// then give the sampler's results. `descs` gets a descriptor at each group's first operation (where the
/// code reads it; the others are never read) and the mip chains they read; `quads` says
/// whether the batch's lanes form quads.
pub(super) fn tex_paths<'a>(
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
/// [`vector_texture`]: tgsic::back::texpath::vector_texture
/// [`Texture::mip_chain`]: crate::texture::Texture::mip_chain
fn tex_desc(
    backend: Backend,
    bind: &Bindings,
    op: &TexOp,
    quads: bool,
    chains: &mut Vec<Arc<MipChain>>,
) -> Option<(TexDesc, TexPath)> {
    use crate::texture::{Filter, MipFilter, Storage, Wrap, lod_matters};
    if !tgsic::back::texpath::vector_texture(op) {
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
    let unorm8 = backend.reads_unorm8();
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
