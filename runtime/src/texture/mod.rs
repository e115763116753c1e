//! Textures and samplers: 1D, 2D, 3D, cube, rectangle, array and shadow targets; nearest and
//! linear filtering, mipmaps, repeat / clamp-to-edge / mirrored-repeat wrapping; RGBA8 and
//! RGBA32F texels, from PNG files or from arrays given by the host.
//!
//! Texels are stored as f32 RGBA. An RGBA8 byte b reads as `(float)b * (float)(1.0/255.0)`, a
//! single-precision multiply by the rounded reciprocal, as softpipe and llvmpipe unpack UNORM8.
//! The filtering arithmetic follows softpipe (`sp_tex_sample.c`), so nearest and linear lookups
//! are bit-exact with it.

mod sample;
mod texels;

pub use sample::{
    Compare, Filter, MipFilter, Sampler, Wrap, cube_face, gather, lod_matters, sample, sample_2d,
    texel_fetch,
};

pub use texels::{
    ChainTexels, Level, MAX_TEXELS, MAX_TEXTURE_SIDE, MipChain, Storage, Texture, TextureError,
    check_size,
};
