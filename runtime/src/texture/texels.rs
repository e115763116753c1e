//! Texels and textures: formats, mip levels, the texture a host binds, their size bounds, and
//! a texture's levels in one buffer ([`MipChain`]).
//!
//! Generated code addresses texels from one base pointer with 32-bit indices, so a lookup
//! whose level differs from lane to lane needs every level in one allocation, as llvmpipe
//! keeps them. [`Texture::mip_chain`] makes that copy of the levels once and
//! keeps it while the levels stay the same (each level's texels carry an identity that changes
//! whenever they do).

#[cfg(feature = "png")]
use std::path::Path;
use std::sync::{Arc, Mutex};
use thiserror::Error;

/// How the host's texel data is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TexelFormat {
    /// 8-bit unsigned normalized RGBA.
    Rgba8,
    /// 32-bit float RGBA.
    Rgba32F,
}

/// One mip level: `width × height × depth` texels, row-major, slice after slice. For cube maps
/// `depth` is 6 faces (+X, −X, +Y, −Y, +Z, −Z); for arrays it is the layer count.
///
/// Texels are stored as a lookup returns them ([`canonical`]): denormals flushed to zeros of
/// their sign and every NaN the canonical one, so that nearest lookups (in the interpreter and
/// in generated code alike) read stored bits as they are. A level made from RGBA8 bytes keeps
/// them, four bytes a texel, and reads a byte `b` as `b as f32 · (1/255 as f32)`.
#[derive(Debug, Clone)]
pub struct Level {
    /// Width in texels.
    pub width: u32,
    /// Height in texels (1 for 1D).
    pub height: u32,
    /// Depth, faces or layers.
    pub depth: u32,
    texels: Texels,
    /// RGBA8 texels as f32, made when first asked for ([`Level::f32_texels`]).
    unpacked: std::sync::OnceLock<Vec<[f32; 4]>>,
    /// Identifies the texels: new whenever a level is made or its texels change, kept by a
    /// clone (the same texels), so that [`Texture::mip_chain`] knows its copy is current.
    id: u64,
}

/// A fresh [`Level`] identity.
fn next_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl PartialEq for Level {
    /// Equal sizes and stored texels (the unpacked copy is a cache).
    fn eq(&self, other: &Level) -> bool {
        (self.width, self.height, self.depth) == (other.width, other.height, other.depth)
            && self.texels == other.texels
    }
}

/// How a level holds its texels.
#[derive(Debug, Clone, PartialEq)]
enum Texels {
    /// RGBA8 unorm, R in the low byte of each word.
    Unorm8(Vec<u32>),
    /// RGBA f32, canonical.
    F32(Vec<[f32; 4]>),
}

/// A level's texels as stored ([`Level::storage`]).
#[derive(Debug, Clone, Copy)]
pub enum Storage<'a> {
    /// RGBA8 unorm, one word a texel, R in its low byte.
    Unorm8(&'a [u32]),
    /// RGBA f32, every component [`canonical`] ([`Level::f32_texels`]).
    F32,
}

/// What an RGBA8 unorm byte reads as: `b · (1/255)` in single precision, as softpipe and
/// llvmpipe unpack UNORM8.
pub fn unorm8(b: u8) -> f32 {
    b as f32 * (1.0f64 / 255.0) as f32
}

/// A texel component as lookups return it: a denormal flushed to a zero of its sign, a NaN
/// the canonical NaN ([`tgsic::numerics::CANONICAL_NAN`]), any other value itself.
pub fn canonical(x: f32) -> f32 {
    f32::from_bits(tgsic::numerics::b(x))
}

impl Level {
    /// A level of `width × height × depth` texels, each component made [`canonical`].
    ///
    /// # Errors
    /// [`TextureError::Size`] when the texel count does not match the dimensions.
    #[cfg(test)]
    pub fn new(
        width: u32,
        height: u32,
        depth: u32,
        mut texels: Vec<[f32; 4]>,
    ) -> Result<Level, TextureError> {
        let n = width as u64 * height as u64 * depth as u64;
        if texels.len() as u64 != n {
            return Err(TextureError::Size(format!(
                "{} texels do not make a {width}x{height}x{depth} level",
                texels.len()
            )));
        }
        for t in &mut texels {
            *t = t.map(canonical);
        }
        Ok(Level::stored(width, height, depth, Texels::F32(texels)))
    }

    /// A level of texels as they are stored (already canonical).
    fn stored(width: u32, height: u32, depth: u32, texels: Texels) -> Level {
        Level {
            width,
            height,
            depth,
            texels,
            unpacked: Default::default(),
            id: next_id(),
        }
    }

    /// The texels as RGBA f32, every component [`canonical`]: the stored ones, or for RGBA8
    /// texels an unpacked copy made once.
    pub fn f32_texels(&self) -> &[[f32; 4]] {
        match &self.texels {
            Texels::F32(t) => t,
            Texels::Unorm8(t) => self
                .unpacked
                .get_or_init(|| t.iter().map(|w| w.to_le_bytes().map(unorm8)).collect()),
        }
    }

    /// The texels as stored, row-major, slice after slice.
    pub fn storage(&self) -> Storage<'_> {
        match &self.texels {
            Texels::Unorm8(t) => Storage::Unorm8(t),
            Texels::F32(_) => Storage::F32,
        }
    }

    /// Changes every texel with `f` (the level then holds f32 texels); the results are made
    /// [`canonical`].
    pub fn update(&mut self, mut f: impl FnMut(&mut [f32; 4])) {
        let n = self.width as usize * self.height as usize * self.depth as usize;
        let mut texels: Vec<[f32; 4]> = (0..n).map(|i| self.texel_at(i)).collect();
        for t in &mut texels {
            f(t);
            *t = t.map(canonical);
        }
        self.texels = Texels::F32(texels);
        self.unpacked = Default::default();
        self.id = next_id();
    }

    /// Texel `i` of the row-major order.
    #[inline]
    pub fn texel_at(&self, i: usize) -> [f32; 4] {
        match &self.texels {
            Texels::Unorm8(t) => t[i].to_le_bytes().map(unorm8),
            Texels::F32(t) => t[i],
        }
    }

    /// The texel at (x, y, z), which the caller has already wrapped into range.
    #[inline]
    pub fn texel(&self, x: u32, y: u32, z: u32) -> [f32; 4] {
        self.texel_at(((z * self.height + y) * self.width + x) as usize)
    }
}

/// A texture: its mip levels, level 0 first.
#[derive(Debug, Clone, PartialEq)]
pub struct Texture {
    /// Mip levels, each half the size of the previous one (at least 1).
    pub(crate) levels: Vec<Level>,
    /// The format the texels came from.
    pub(crate) format: TexelFormat,
    /// The levels in one buffer, for generated code ([`Texture::mip_chain`]).
    pub(super) chain: ChainCache,
}

/// Texture loading errors.
#[derive(Debug, Error)]
pub enum TextureError {
    /// A PNG that cannot be read.
    #[error("{path}: {message}")]
    Png {
        /// The file.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// Data whose size does not match the dimensions.
    #[error("{0}")]
    Size(String),
}

/// The largest texture side, in texels (as Gallium's 2D limit on common drivers).
pub const MAX_TEXTURE_SIDE: u32 = 16384;
/// The most texels a texture's base level may hold: 2^26, 1 GiB of RGBA f32 texels (with its
/// mipmaps, 1.33 GiB). Checked before anything is allocated.
pub const MAX_TEXELS: u64 = 1 << 26;

/// Checks a texture's size against [`MAX_TEXTURE_SIDE`] and [`MAX_TEXELS`].
///
/// # Errors
/// [`TextureError::Size`] naming the size and the limit.
pub fn check_size(width: u32, height: u32, depth: u32) -> Result<(), TextureError> {
    let texels = u64::from(width) * u64::from(height) * u64::from(depth);
    if width == 0 || height == 0 || depth == 0 {
        return Err(TextureError::Size(format!(
            "a {width}x{height}x{depth} texture has no texels"
        )));
    }
    if width.max(height).max(depth) > MAX_TEXTURE_SIDE || texels > MAX_TEXELS {
        return Err(TextureError::Size(format!(
            "a {width}x{height}x{depth} texture is too large: sides are at most \
             {MAX_TEXTURE_SIDE} texels and a texture at most {MAX_TEXELS} texels"
        )));
    }
    Ok(())
}

impl Texture {
    /// A single-level texture from RGBA8 bytes (`4 × width × height × depth` of them).
    ///
    /// # Errors
    /// [`TextureError::Size`] when the byte count does not match.
    pub fn from_rgba8(
        width: u32,
        height: u32,
        depth: u32,
        bytes: &[u8],
    ) -> Result<Texture, TextureError> {
        check_size(width, height, depth)?;
        let n = width as usize * height as usize * depth as usize;
        if bytes.len() != 4 * n {
            return Err(TextureError::Size(format!(
                "{} bytes of RGBA8 do not make {width}x{height}x{depth} texels",
                bytes.len()
            )));
        }
        let texels = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        Ok(Texture {
            levels: vec![Level::stored(width, height, depth, Texels::Unorm8(texels))],
            format: TexelFormat::Rgba8,
            chain: Default::default(),
        })
    }

    /// A single-level texture from RGBA32F values (`4 × width × height × depth` of them).
    ///
    /// # Errors
    /// [`TextureError::Size`] when the count does not match.
    pub fn from_rgba32f(
        width: u32,
        height: u32,
        depth: u32,
        values: &[f32],
    ) -> Result<Texture, TextureError> {
        check_size(width, height, depth)?;
        let n = width as usize * height as usize * depth as usize;
        if values.len() != 4 * n {
            return Err(TextureError::Size(format!(
                "{} floats do not make {width}x{height}x{depth} RGBA texels",
                values.len()
            )));
        }
        let texels = values
            .chunks_exact(4)
            .map(|c| [c[0], c[1], c[2], c[3]].map(canonical))
            .collect();
        Ok(Texture {
            levels: vec![Level::stored(width, height, depth, Texels::F32(texels))],
            format: TexelFormat::Rgba32F,
            chain: Default::default(),
        })
    }

    /// Reads a PNG as an RGBA8 texture. The first row of the file is texel row 0 (t in
    /// [0, 1/h)); grey, grey-alpha and RGB images are expanded to RGBA, 16-bit samples keep
    /// their high byte.
    ///
    /// # Errors
    /// [`TextureError::Png`] naming the file.
    #[cfg(feature = "png")]
    pub fn from_png(path: &Path) -> Result<Texture, TextureError> {
        let err = |message: String| TextureError::Png {
            path: path.display().to_string(),
            message,
        };
        let file = std::fs::File::open(path).map_err(|e| err(e.to_string()))?;
        let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
        decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
        let mut reader = decoder.read_info().map_err(|e| err(e.to_string()))?;
        // The header's claim is checked before a buffer of its size is allocated.
        let (w, h) = (reader.info().width, reader.info().height);
        check_size(w, h, 1).map_err(|e| err(e.to_string()))?;
        let size = reader
            .output_buffer_size()
            .ok_or_else(|| err("the image is too large".into()))?;
        let mut buf = vec![0; size];
        let info = reader
            .next_frame(&mut buf)
            .map_err(|e| err(e.to_string()))?;
        let (w, h) = (info.width, info.height);
        let data = &buf[..info.buffer_size()];
        let rgba: Vec<u8> = match info.color_type {
            png::ColorType::Rgba => data.to_vec(),
            png::ColorType::Rgb => data
                .chunks_exact(3)
                .flat_map(|c| [c[0], c[1], c[2], 255])
                .collect(),
            png::ColorType::GrayscaleAlpha => data
                .chunks_exact(2)
                .flat_map(|c| [c[0], c[0], c[0], c[1]])
                .collect(),
            png::ColorType::Grayscale => data.iter().flat_map(|&g| [g, g, g, 255]).collect(),
            png::ColorType::Indexed => return Err(err("indexed colour was not expanded".into())),
        };
        Texture::from_rgba8(w, h, 1, &rgba)
    }

    /// Level 0.
    pub(crate) fn base(&self) -> &Level {
        &self.levels[0]
    }

    /// Level 0's width, height and depth (or layers) in texels.
    pub fn size(&self) -> (u32, u32, u32) {
        let b = self.base();
        (b.width, b.height, b.depth)
    }

    /// Its mip levels (1 without mipmaps).
    pub fn level_count(&self) -> usize {
        self.levels.len()
    }

    /// Keeps the first `n` mip levels (at least level 0) and drops the others.
    pub fn truncate_levels(&mut self, n: usize) {
        self.levels.truncate(n.max(1));
    }

    /// Applies `f` to every texel of every level, given the level's index: RGBA as f32; the
    /// levels then hold f32 texels, made canonical (one NaN).
    pub fn update_texels(&mut self, mut f: impl FnMut(usize, &mut [f32; 4])) {
        for (k, l) in self.levels.iter_mut().enumerate() {
            l.update(|t| f(k, t));
        }
    }

    /// Adds the mip chain down to 1×1 by 2×2 (×2 for 3D) box filtering in f32, unless the
    /// texture already has more than one level. Cube faces and array layers are filtered
    /// separately (`layered`).
    pub fn generate_mipmaps(&mut self, layered: bool) {
        if self.levels.len() > 1 {
            return;
        }
        loop {
            let prev = self.levels.last().expect("at least one level");
            if prev.width == 1 && prev.height == 1 && (layered || prev.depth == 1) {
                break;
            }
            let w = (prev.width / 2).max(1);
            let h = (prev.height / 2).max(1);
            let d = if layered {
                prev.depth
            } else {
                (prev.depth / 2).max(1)
            };
            let mut texels = Vec::with_capacity((w * h * d) as usize);
            for z in 0..d {
                for y in 0..h {
                    for x in 0..w {
                        let mut sum = [0.0f32; 4];
                        let mut n = 0.0f32;
                        let zs: &[u32] = if layered || prev.depth == 1 {
                            &[0]
                        } else {
                            &[0, 1]
                        };
                        for &dz in zs {
                            for dy in 0..2 {
                                for dx in 0..2 {
                                    let sx = (2 * x + dx).min(prev.width - 1);
                                    let sy = (2 * y + dy).min(prev.height - 1);
                                    let sz = if layered {
                                        z
                                    } else {
                                        (2 * z + dz).min(prev.depth - 1)
                                    };
                                    let t = prev.texel(sx, sy, sz);
                                    for c in 0..4 {
                                        sum[c] += t[c];
                                    }
                                    n += 1.0;
                                }
                            }
                        }
                        texels.push(sum.map(|s| canonical(s / n)));
                    }
                }
            }
            self.levels
                .push(Level::stored(w, h, d, Texels::F32(texels)));
        }
    }
}

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
                        Storage::F32 => unreachable!("an RGBA8 chain has RGBA8 levels"),
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
    /// Every level, all its layers, in one buffer (`MipChain`), RGBA8 words when `unorm8` and
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
mod chain_tests {
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
