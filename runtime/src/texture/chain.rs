//! A texture's mip levels in one buffer, for generated code that picks a level per lane.
//!
//! Generated code addresses texels from one base pointer with 32-bit indices, so a lookup
//! whose level differs from lane to lane needs every level in one allocation, as llvmpipe
//! keeps them. [`Texture::mip_chain`] makes that copy of the levels once and
//! keeps it while the levels stay the same (each level's texels carry an identity that changes
//! whenever they do).

use super::{Level, Storage, Texture};
use std::sync::{Arc, Mutex};

/// Where one level of a [`MipChain`] sits. The layout is the one generated code reads
/// (`tgsic::back::abi::TexDesc::levels`): three words.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChainLevel {
    /// The level's first texel, counted in texels from the chain's first.
    pub offset: u32,
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
}

/// The texels of a chain.
#[derive(Debug)]
pub enum ChainTexels {
    /// RGBA8 unorm words, as [`Storage::Unorm8`].
    Unorm8(Vec<u32>),
    /// RGBA f32, canonical, as [`Storage::F32`].
    F32(Vec<[f32; 4]>),
}

/// Every level (row-major, layer after layer: a cube map's six faces), level 0 first, in one
/// buffer.
#[derive(Debug)]
pub struct MipChain {
    /// The identities of the levels it was made from, and whether it holds RGBA8 words.
    key: (Vec<u64>, bool),
    /// The texels.
    pub texels: ChainTexels,
    /// Where each level sits: three words a level ([`ChainLevel`]'s fields in order), as
    /// generated code reads them.
    words: Vec<u32>,
}

impl MipChain {
    fn new(levels: &[Level], key: (Vec<u64>, bool)) -> MipChain {
        let mut words = Vec::with_capacity(3 * levels.len());
        let mut offset = 0u32;
        for l in levels {
            words.extend([offset, l.width, l.height]);
            offset += l.width * l.height * l.depth;
        }
        let texels = if key.1 {
            ChainTexels::Unorm8(
                levels
                    .iter()
                    .flat_map(|l| match l.storage() {
                        Storage::Unorm8(t) => t,
                        Storage::F32(_) => unreachable!("an RGBA8 chain has RGBA8 levels"),
                    })
                    .copied()
                    .collect(),
            )
        } else {
            ChainTexels::F32(
                levels
                    .iter()
                    .flat_map(|l| l.f32_texels())
                    .copied()
                    .collect(),
            )
        };
        MipChain { key, texels, words }
    }

    /// The level table as words, three a level ([`ChainLevel`]'s fields in order).
    pub fn level_words(&self) -> &[u32] {
        &self.words
    }

    /// Where each level sits, level 0 first.
    pub fn levels(&self) -> impl Iterator<Item = ChainLevel> + '_ {
        self.words.chunks_exact(3).map(|w| ChainLevel {
            offset: w[0],
            width: w[1],
            height: w[2],
        })
    }

    /// The address of the first texel.
    pub fn as_ptr(&self) -> *const core::ffi::c_void {
        match &self.texels {
            ChainTexels::Unorm8(t) => t.as_ptr() as *const _,
            ChainTexels::F32(t) => t.as_ptr() as *const _,
        }
    }
}

/// A texture's [`MipChain`], made when first asked for. Clones start empty.
#[derive(Default)]
pub(super) struct ChainCache(Mutex<Option<Arc<MipChain>>>);

impl Clone for ChainCache {
    fn clone(&self) -> Self {
        ChainCache::default()
    }
}

impl PartialEq for ChainCache {
    /// A cache: never what makes two textures differ.
    fn eq(&self, _: &ChainCache) -> bool {
        true
    }
}

impl std::fmt::Debug for ChainCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ChainCache")
    }
}

impl Texture {
    /// Every level, all its layers, in one buffer ([`MipChain`]), RGBA8 words when `unorm8` and
    /// every level stores them, f32 otherwise. Made once and kept while the levels are the
    /// same ones with the same texels.
    pub fn mip_chain(&self, unorm8: bool) -> Arc<MipChain> {
        let unorm8 = unorm8
            && self
                .levels
                .iter()
                .all(|l| matches!(l.storage(), Storage::Unorm8(_)));
        let mut cache = self.chain.0.lock().unwrap_or_else(|e| e.into_inner());
        // Asked for every batch: compared without allocating.
        if let Some(c) = cache.as_ref()
            && c.key.1 == unorm8
            && c.key.0.iter().copied().eq(self.levels.iter().map(|l| l.id))
        {
            return c.clone();
        }
        let key = (self.levels.iter().map(|l| l.id).collect(), unorm8);
        let c = Arc::new(MipChain::new(&self.levels, key));
        *cache = Some(c.clone());
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chain_is_made_once_and_again_when_its_levels_change() {
        let bytes: Vec<u8> = (0..8 * 4 * 4).map(|k| k as u8).collect();
        let mut tex = Texture::from_rgba8(8, 4, 1, &bytes).unwrap();
        tex.generate_mipmaps(false);
        let c = tex.mip_chain(false);
        assert!(Arc::ptr_eq(&c, &tex.mip_chain(false)));
        let sides: Vec<_> = c.levels().map(|l| (l.offset, l.width, l.height)).collect();
        assert_eq!(
            sides,
            [(0, 8, 4), (32, 4, 2), (40, 2, 1), (42, 1, 1)],
            "each level after the last"
        );
        assert_eq!(c.level_words()[3..6], [32, 4, 2]);
        let ChainTexels::F32(t) = &c.texels else {
            panic!("f32 asked for")
        };
        assert_eq!(t[33], tex.levels[1].texel_at(1));
        assert_eq!(t[43 - 1], tex.levels[3].texel_at(0));
        // Generated levels hold f32 texels: no RGBA8 chain, even when asked for.
        assert!(matches!(tex.mip_chain(true).texels, ChainTexels::F32(_)));
        tex.levels[2].update(|t| t[0] = 9.0);
        let d = tex.mip_chain(false);
        let ChainTexels::F32(t) = &d.texels else {
            panic!("f32 asked for")
        };
        assert_eq!(t[40][0], 9.0, "the changed texels");
        tex.levels.truncate(1);
        let e = tex.mip_chain(true);
        assert_eq!(e.levels().count(), 1);
        let ChainTexels::Unorm8(w) = &e.texels else {
            panic!("one RGBA8 level")
        };
        assert_eq!(w[1], u32::from_le_bytes([4, 5, 6, 7]));
        // A clone starts without the copy and makes its own.
        let f = tex.clone().mip_chain(true);
        assert!(!Arc::ptr_eq(&e, &f));
    }
}
