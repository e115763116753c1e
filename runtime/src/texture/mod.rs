//! Textures and samplers: 1D, 2D, 3D, cube, rectangle, array and shadow targets; nearest and
//! linear filtering, mipmaps, repeat / clamp-to-edge / mirrored-repeat wrapping; RGBA8 and
//! RGBA32F texels, from PNG files or from arrays given by the host.
//!
//! Texels are stored as f32 RGBA. An RGBA8 byte b reads as `(float)b * (float)(1.0/255.0)`, a
//! single-precision multiply by the rounded reciprocal, as softpipe and llvmpipe unpack UNORM8.
//! The filtering arithmetic follows softpipe (`sp_tex_sample.c`), so nearest and linear lookups
//! are bit-exact with it.

mod chain;
mod sample;

pub use chain::{ChainLevel, ChainTexels, MipChain};

pub use sample::{
    Compare, Filter, MipFilter, Sampler, Wrap, cube_face, gather, lod_matters, sample, sample_2d,
    texel_fetch,
};

#[cfg(feature = "png")]
use std::path::Path;
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
    /// RGBA f32, every component [`canonical`].
    F32(&'a [[f32; 4]]),
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
            Texels::F32(t) => Storage::F32(t),
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
    pub levels: Vec<Level>,
    /// The format the texels came from.
    pub format: TexelFormat,
    /// The levels in one buffer, for generated code ([`Texture::mip_chain`]).
    chain: chain::ChainCache,
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
    pub fn base(&self) -> &Level {
        &self.levels[0]
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
