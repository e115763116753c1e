//! Image formats: what `DCL IMAGE[k], 2D, PIPE_FORMAT_R8G8B8A8_UNORM` and a memory
//! instruction's format name, each with its texel layout. The conversions between a texel's
//! bytes and register values are [`crate::numerics::texel`].
//!
//! Numbers are tgsic's (Mesa's `pipe_format` numbers change between releases):
//! `docs/binary-format.md` lists them. The text spells a format as Mesa's `util_format_name`
//! does, `PIPE_FORMAT_` and the name; [`ImageFormat::name`] is the name without the prefix,
//! as the command line takes it.

use std::fmt;

/// How a channel's bits are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Unsigned normalized: 0 ..= max is 0.0 ..= 1.0.
    Unorm,
    /// Signed normalized: -max ..= max is -1.0 ..= 1.0 (the most negative value is -1.0 too).
    Snorm,
    /// Unsigned integer.
    Uint,
    /// Signed integer.
    Sint,
    /// IEEE floating point (16 or 32 bits).
    Float,
}

impl Kind {
    /// Whether registers hold the channel as an integer (UINT, SINT) rather than a float.
    pub fn is_integer(self) -> bool {
        matches!(self, Kind::Uint | Kind::Sint)
    }
}

/// A texel's layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Layout {
    /// No format: the image's own format decides (`PIPE_FORMAT_NONE`, a write-only image
    /// without a format qualifier).
    None,
    /// `channels` channels R, G, B, A in that order, each `bits` wide, of one kind.
    Plain {
        /// 1 to 4.
        channels: u8,
        /// 8, 16 or 32.
        bits: u8,
        /// How each channel reads.
        kind: Kind,
    },
    /// Four 8-bit UNORM channels stored B, G, R, A.
    Bgra8Unorm,
    /// R, G, B in 10 bits each and A in 2, in one little-endian 32-bit word from bit 0.
    Rgb10A2(Kind),
    /// R and G as 11-bit and B as 10-bit unsigned floats, in one 32-bit word from bit 0.
    Rg11B10Float,
}

const fn plain(channels: u8, bits: u8, kind: Kind) -> Layout {
    Layout::Plain {
        channels,
        bits,
        kind,
    }
}

macro_rules! formats {
    ($( $var:ident = $num:literal => $name:literal, $layout:expr; )*) => {
        /// An image format (`PIPE_FORMAT_<name>`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ImageFormat {
            /// `PIPE_FORMAT_NONE`: the bound image's format applies.
            None,
            $( #[doc = concat!("`PIPE_FORMAT_", $name, "`, number ", stringify!($num), ".")] $var, )*
        }

        impl ImageFormat {
            /// Every format, in number order (`None` first).
            pub const ALL: &'static [ImageFormat] = &[ImageFormat::None, $(ImageFormat::$var),*];

            /// The format's number in binary tokens (`None` is 0).
            pub const fn bits(self) -> u32 {
                match self { ImageFormat::None => 0, $(ImageFormat::$var => $num),* }
            }

            /// The format a binary field value stands for.
            pub fn from_bits(v: u32) -> Option<ImageFormat> {
                match v { 0 => Some(ImageFormat::None), $($num => Some(ImageFormat::$var),)* _ => None }
            }

            /// The name without `PIPE_FORMAT_` (`R8G8B8A8_UNORM`, `NONE`).
            pub const fn name(self) -> &'static str {
                match self { ImageFormat::None => "NONE", $(ImageFormat::$var => $name),* }
            }

            /// The texel layout.
            pub const fn layout(self) -> Layout {
                match self { ImageFormat::None => Layout::None, $(ImageFormat::$var => $layout),* }
            }
        }
    };
}

formats! {
        R8Unorm = 1 => "R8_UNORM", plain(1, 8, Kind::Unorm);
        R8G8Unorm = 2 => "R8G8_UNORM", plain(2, 8, Kind::Unorm);
        R8G8B8Unorm = 3 => "R8G8B8_UNORM", plain(3, 8, Kind::Unorm);
        R8G8B8A8Unorm = 4 => "R8G8B8A8_UNORM", plain(4, 8, Kind::Unorm);
        R16Unorm = 5 => "R16_UNORM", plain(1, 16, Kind::Unorm);
        R16G16Unorm = 6 => "R16G16_UNORM", plain(2, 16, Kind::Unorm);
        R16G16B16Unorm = 7 => "R16G16B16_UNORM", plain(3, 16, Kind::Unorm);
        R16G16B16A16Unorm = 8 => "R16G16B16A16_UNORM", plain(4, 16, Kind::Unorm);
        R8Snorm = 9 => "R8_SNORM", plain(1, 8, Kind::Snorm);
        R8G8Snorm = 10 => "R8G8_SNORM", plain(2, 8, Kind::Snorm);
        R8G8B8Snorm = 11 => "R8G8B8_SNORM", plain(3, 8, Kind::Snorm);
        R8G8B8A8Snorm = 12 => "R8G8B8A8_SNORM", plain(4, 8, Kind::Snorm);
        R16Snorm = 13 => "R16_SNORM", plain(1, 16, Kind::Snorm);
        R16G16Snorm = 14 => "R16G16_SNORM", plain(2, 16, Kind::Snorm);
        R16G16B16Snorm = 15 => "R16G16B16_SNORM", plain(3, 16, Kind::Snorm);
        R16G16B16A16Snorm = 16 => "R16G16B16A16_SNORM", plain(4, 16, Kind::Snorm);
        R8Uint = 17 => "R8_UINT", plain(1, 8, Kind::Uint);
        R8G8Uint = 18 => "R8G8_UINT", plain(2, 8, Kind::Uint);
        R8G8B8Uint = 19 => "R8G8B8_UINT", plain(3, 8, Kind::Uint);
        R8G8B8A8Uint = 20 => "R8G8B8A8_UINT", plain(4, 8, Kind::Uint);
        R16Uint = 21 => "R16_UINT", plain(1, 16, Kind::Uint);
        R16G16Uint = 22 => "R16G16_UINT", plain(2, 16, Kind::Uint);
        R16G16B16Uint = 23 => "R16G16B16_UINT", plain(3, 16, Kind::Uint);
        R16G16B16A16Uint = 24 => "R16G16B16A16_UINT", plain(4, 16, Kind::Uint);
        R32Uint = 25 => "R32_UINT", plain(1, 32, Kind::Uint);
        R32G32Uint = 26 => "R32G32_UINT", plain(2, 32, Kind::Uint);
        R32G32B32Uint = 27 => "R32G32B32_UINT", plain(3, 32, Kind::Uint);
        R32G32B32A32Uint = 28 => "R32G32B32A32_UINT", plain(4, 32, Kind::Uint);
        R8Sint = 29 => "R8_SINT", plain(1, 8, Kind::Sint);
        R8G8Sint = 30 => "R8G8_SINT", plain(2, 8, Kind::Sint);
        R8G8B8Sint = 31 => "R8G8B8_SINT", plain(3, 8, Kind::Sint);
        R8G8B8A8Sint = 32 => "R8G8B8A8_SINT", plain(4, 8, Kind::Sint);
        R16Sint = 33 => "R16_SINT", plain(1, 16, Kind::Sint);
        R16G16Sint = 34 => "R16G16_SINT", plain(2, 16, Kind::Sint);
        R16G16B16Sint = 35 => "R16G16B16_SINT", plain(3, 16, Kind::Sint);
        R16G16B16A16Sint = 36 => "R16G16B16A16_SINT", plain(4, 16, Kind::Sint);
        R32Sint = 37 => "R32_SINT", plain(1, 32, Kind::Sint);
        R32G32Sint = 38 => "R32G32_SINT", plain(2, 32, Kind::Sint);
        R32G32B32Sint = 39 => "R32G32B32_SINT", plain(3, 32, Kind::Sint);
        R32G32B32A32Sint = 40 => "R32G32B32A32_SINT", plain(4, 32, Kind::Sint);
        R16Float = 41 => "R16_FLOAT", plain(1, 16, Kind::Float);
        R16G16Float = 42 => "R16G16_FLOAT", plain(2, 16, Kind::Float);
        R16G16B16Float = 43 => "R16G16B16_FLOAT", plain(3, 16, Kind::Float);
        R16G16B16A16Float = 44 => "R16G16B16A16_FLOAT", plain(4, 16, Kind::Float);
        R32Float = 45 => "R32_FLOAT", plain(1, 32, Kind::Float);
        R32G32Float = 46 => "R32G32_FLOAT", plain(2, 32, Kind::Float);
        R32G32B32Float = 47 => "R32G32B32_FLOAT", plain(3, 32, Kind::Float);
        R32G32B32A32Float = 48 => "R32G32B32A32_FLOAT", plain(4, 32, Kind::Float);
        B8G8R8A8Unorm = 49 => "B8G8R8A8_UNORM", Layout::Bgra8Unorm;
        R10G10B10A2Unorm = 50 => "R10G10B10A2_UNORM", Layout::Rgb10A2(Kind::Unorm);
        R10G10B10A2Uint = 51 => "R10G10B10A2_UINT", Layout::Rgb10A2(Kind::Uint);
        R11G11B10Float = 52 => "R11G11B10_FLOAT", Layout::Rg11B10Float;
}

impl ImageFormat {
    /// Looks a format up by its name, with or without `PIPE_FORMAT_`, ignoring ASCII case.
    pub fn from_name(s: &str) -> Option<ImageFormat> {
        let bare = match s.get(..12) {
            Some(p) if p.eq_ignore_ascii_case("PIPE_FORMAT_") => &s[12..],
            _ => s,
        };
        ImageFormat::ALL
            .iter()
            .copied()
            .find(|f| f.name().eq_ignore_ascii_case(bare))
    }

    /// Bytes per texel (0 for `None`).
    pub const fn texel_bytes(self) -> u32 {
        match self.layout() {
            Layout::None => 0,
            Layout::Plain { channels, bits, .. } => channels as u32 * bits as u32 / 8,
            Layout::Bgra8Unorm | Layout::Rgb10A2(_) | Layout::Rg11B10Float => 4,
        }
    }

    /// How registers hold the format's channels: integers (UINT, SINT formats) or floats.
    pub const fn is_integer(self) -> bool {
        matches!(
            self.layout(),
            Layout::Plain {
                kind: Kind::Uint | Kind::Sint,
                ..
            } | Layout::Rgb10A2(Kind::Uint)
        )
    }

    /// Whether atomics may operate on texels of this format (one 32-bit integer or float
    /// channel: R32_UINT, R32_SINT, R32_FLOAT).
    pub const fn is_atomic(self) -> bool {
        matches!(
            self.layout(),
            Layout::Plain {
                channels: 1,
                bits: 32,
                ..
            }
        )
    }
}

impl fmt::Display for ImageFormat {
    /// `PIPE_FORMAT_<name>`, as tgsi_dump prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PIPE_FORMAT_{}", self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_names_round_trip() {
        for (i, f) in ImageFormat::ALL.iter().enumerate() {
            assert_eq!(f.bits() as usize, i);
            assert_eq!(ImageFormat::from_bits(f.bits()), Some(*f));
            assert_eq!(ImageFormat::from_name(f.name()), Some(*f));
            assert_eq!(ImageFormat::from_name(&f.to_string()), Some(*f));
        }
        assert_eq!(
            ImageFormat::from_name("pipe_format_r32_sint"),
            Some(ImageFormat::R32Sint)
        );
        assert_eq!(ImageFormat::R8G8B8A8Unorm.texel_bytes(), 4);
        assert_eq!(ImageFormat::R16G16B16Float.texel_bytes(), 6);
        assert!(ImageFormat::R32Sint.is_atomic() && !ImageFormat::R16Uint.is_atomic());
        assert!(ImageFormat::R10G10B10A2Uint.is_integer());
        assert!(ImageFormat::ALL.len() < 256);
    }
}
