//! Image texels and register values: a texel's bytes to four register components and back,
//! with GL's conversion rules as Mesa's `util_format` computes them (the functions softpipe's
//! image loads and stores call): UNORM and SNORM through `float_to_ubyte`,
//! `_mesa_float_to_unorm` and `_mesa_float_to_snorm` (clamped, rounded to nearest even;
//! NaN stores 0), integers clamped to the channel's range, halves rounded to nearest even,
//! R11G11B10 truncated as `f32_to_uf11`/`f32_to_uf10` do. Missing channels read as 0 and alpha
//! as 1 (1.0 for float channels). Registers hold float channels as f32 bits and integer
//! channels as their 32-bit patterns.

use crate::tgsi::format::{ImageFormat, Kind, Layout};

/// 1.0 as f32 bits.
const ONE: u32 = 0x3F80_0000;

/// The register value of the texel `bytes` holds in `format` (`bytes` is at least the
/// format's texel size; `None` formats read as 0).
pub fn unpack(format: ImageFormat, bytes: &[u8]) -> [u32; 4] {
    // The formats images use most, without the general path's per-channel work.
    match format {
        ImageFormat::R8G8B8A8Unorm => {
            let b = &bytes[..4];
            return [b[0], b[1], b[2], b[3]].map(|v| (v as f32 * (1.0 / 255.0)).to_bits());
        }
        ImageFormat::R32Uint | ImageFormat::R32Sint | ImageFormat::R32Float => {
            let w = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
            let one = if format == ImageFormat::R32Float {
                ONE
            } else {
                1
            };
            return [w, 0, 0, one];
        }
        _ => {}
    }
    let word = |k: usize, n: usize| -> u32 {
        let mut w = [0u8; 4];
        w[..n].copy_from_slice(&bytes[k * n..k * n + n]);
        u32::from_le_bytes(w)
    };
    match format.layout() {
        Layout::None => [0; 4],
        Layout::Plain {
            channels,
            bits,
            kind,
        } => {
            let n = bits as usize / 8;
            let mut out = if kind.is_integer() {
                [0, 0, 0, 1]
            } else {
                [0, 0, 0, ONE]
            };
            for (c, o) in out.iter_mut().enumerate().take(channels as usize) {
                *o = from_channel(word(c, n), bits as u32, kind);
            }
            out
        }
        Layout::Bgra8Unorm => {
            let c = |k: usize| from_channel(bytes[k] as u32, 8, Kind::Unorm);
            [c(2), c(1), c(0), c(3)]
        }
        Layout::Rgb10A2(kind) => {
            let w = word(0, 4);
            [
                from_channel(w & 0x3FF, 10, kind),
                from_channel((w >> 10) & 0x3FF, 10, kind),
                from_channel((w >> 20) & 0x3FF, 10, kind),
                from_channel(w >> 30, 2, kind),
            ]
        }
        Layout::Rg11B10Float => {
            let w = word(0, 4);
            [
                small_float_to_f32(w & 0x7FF, 6).to_bits(),
                small_float_to_f32((w >> 11) & 0x7FF, 6).to_bits(),
                small_float_to_f32(w >> 22, 5).to_bits(),
                ONE,
            ]
        }
    }
}

/// Writes the register value `v` as a texel of `format` into `bytes` (at least the texel
/// size; `None` formats write nothing).
pub fn pack(format: ImageFormat, v: [u32; 4], bytes: &mut [u8]) {
    if format == ImageFormat::R8G8B8A8Unorm {
        let b = v.map(|x| float_to_ubyte(f32::from_bits(x)) as u8);
        bytes[..4].copy_from_slice(&b);
        return;
    }
    let mut put = |k: usize, n: usize, w: u32| {
        bytes[k * n..k * n + n].copy_from_slice(&w.to_le_bytes()[..n]);
    };
    match format.layout() {
        Layout::None => {}
        Layout::Plain {
            channels,
            bits,
            kind,
        } => {
            for (c, &x) in v.iter().enumerate().take(channels as usize) {
                put(c, bits as usize / 8, to_channel(x, bits as u32, kind));
            }
        }
        Layout::Bgra8Unorm => {
            for (k, c) in [2, 1, 0, 3].into_iter().enumerate() {
                put(k, 1, to_channel(v[c], 8, Kind::Unorm));
            }
        }
        Layout::Rgb10A2(kind) => {
            let w = to_channel(v[0], 10, kind)
                | to_channel(v[1], 10, kind) << 10
                | to_channel(v[2], 10, kind) << 20
                | to_channel(v[3], 2, kind) << 30;
            put(0, 4, w);
        }
        Layout::Rg11B10Float => {
            let w = f32_to_small_float(f32::from_bits(v[0]), 6)
                | f32_to_small_float(f32::from_bits(v[1]), 6) << 11
                | f32_to_small_float(f32::from_bits(v[2]), 5) << 22;
            put(0, 4, w);
        }
    }
}

/// The largest value of an unsigned `bits`-bit channel.
fn umax(bits: u32) -> u32 {
    if bits >= 32 {
        u32::MAX
    } else {
        (1 << bits) - 1
    }
}

/// `1.0f / max` as Mesa's unpacking writes it for each channel width (a constant there).
fn recip(max: u32) -> f32 {
    match max {
        255 => 1.0 / 255.0,
        127 => 1.0 / 127.0,
        65535 => 1.0 / 65535.0,
        32767 => 1.0 / 32767.0,
        1023 => 1.0 / 1023.0,
        511 => 1.0 / 511.0,
        3 => 1.0 / 3.0,
        1 => 1.0,
        m => 1.0 / m as f32,
    }
}

/// A channel's raw bits as a register component.
fn from_channel(raw: u32, bits: u32, kind: Kind) -> u32 {
    let signed = |r: u32| -> i32 { ((r << (32 - bits)) as i32) >> (32 - bits) };
    match kind {
        Kind::Uint => raw,
        Kind::Sint => signed(raw) as u32,
        Kind::Unorm => (raw as f32 * recip(umax(bits))).to_bits(),
        Kind::Snorm => (signed(raw) as f32 * recip(umax(bits - 1)))
            .max(-1.0)
            .to_bits(),
        Kind::Float if bits == 16 => half::f16::from_bits(raw as u16).to_f32().to_bits(),
        Kind::Float => raw,
    }
}

/// A register component as a channel's raw bits.
fn to_channel(x: u32, bits: u32, kind: Kind) -> u32 {
    let v = f32::from_bits(x);
    let mask = umax(bits);
    match kind {
        Kind::Uint => x.min(mask),
        Kind::Sint => {
            let hi = umax(bits - 1) as i32;
            ((x as i32).clamp(-hi - 1, hi) as u32) & mask
        }
        Kind::Unorm if bits == 8 => float_to_ubyte(v),
        Kind::Unorm => {
            if v < 0.0 {
                0
            } else if v > 1.0 {
                mask
            } else {
                round_even(v * mask as f32) as u32 & mask
            }
        }
        Kind::Snorm => {
            let max = umax(bits - 1) as f32;
            let r = if v < -1.0 {
                -max as i64
            } else if v > 1.0 {
                max as i64
            } else {
                round_even(v * max)
            };
            r as u32 & mask
        }
        Kind::Float if bits == 16 => f32_to_half(v) as u32,
        Kind::Float => x,
    }
}

/// `_mesa_i64roundevenf` as x86 computes it: nearest even; NaN and out-of-range values give
/// the "integer indefinite" 0x8000_0000_0000_0000.
fn round_even(v: f32) -> i64 {
    let r = v.round_ties_even();
    if r.is_nan() || r.abs() >= 9.223_372e18 {
        i64::MIN
    } else {
        r as i64
    }
}

/// Mesa's `float_to_ubyte`: 0 for NaN and x ≤ 0, 255 for x ≥ 1, else `x · 255/256 + 32768`
/// in f32, whose low byte is the rounded product.
fn float_to_ubyte(v: f32) -> u32 {
    if v.is_nan() || v <= 0.0 {
        0
    } else if v >= 1.0 {
        255
    } else {
        (v * (255.0 / 256.0) + 32768.0).to_bits() & 0xFF
    }
}

/// `_mesa_float_to_half`: nearest even; NaN is the quiet half NaN of its sign.
fn f32_to_half(v: f32) -> u16 {
    if v.is_nan() {
        return ((v.to_bits() >> 16) as u16 & 0x8000) | 0x7E00;
    }
    half::f16::from_f32(v).to_bits()
}

/// `f32_to_uf11` (`mantissa_bits` 6) and `f32_to_uf10` (5): unsigned, mantissa truncated,
/// negatives and values below the format's normal range 0, finite values past its largest
/// the largest, infinity and NaN kept.
fn f32_to_small_float(v: f32, mantissa_bits: u32) -> u32 {
    let bits = v.to_bits();
    let exponent = ((bits >> 23) & 0xFF) as i32 - 127;
    let mantissa = bits & 0x7F_FFFF;
    let max_exp = 0x1F << mantissa_bits;
    if exponent == 128 {
        return if mantissa != 0 {
            max_exp | 1
        } else if bits >> 31 != 0 {
            0
        } else {
            max_exp
        };
    }
    let largest = if mantissa_bits == 6 { 65024.0 } else { 64512.0 };
    if bits >> 31 != 0 {
        0
    } else if v > largest {
        (30 << mantissa_bits) | umax(mantissa_bits)
    } else if exponent > -15 {
        ((exponent + 15) as u32) << mantissa_bits | mantissa >> (23 - mantissa_bits)
    } else {
        0
    }
}

/// `uf11_to_f32` (`mantissa_bits` 6) and `uf10_to_f32` (5).
fn small_float_to_f32(raw: u32, mantissa_bits: u32) -> f32 {
    let exponent = (raw >> mantissa_bits) as i32;
    let mantissa = raw & umax(mantissa_bits);
    let scale_m = (1u32 << mantissa_bits) as f32;
    match exponent {
        0 if mantissa == 0 => 0.0,
        0 => mantissa as f32 * (1.0 / (1u32 << (14 + mantissa_bits)) as f32),
        31 => f32::from_bits(0x7F80_0000 | mantissa),
        e => {
            let e = e - 15;
            let scale = if e < 0 {
                1.0 / (1u32 << -e) as f32
            } else {
                (1u32 << e) as f32
            };
            scale * (1.0 + mantissa as f32 / scale_m)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(format: ImageFormat, v: [u32; 4]) -> [u32; 4] {
        let mut bytes = vec![0u8; format.texel_bytes() as usize];
        pack(format, v, &mut bytes);
        unpack(format, &bytes)
    }

    #[test]
    fn unorm8_stores_as_mesa_and_loads_byte_over_255() {
        let f = ImageFormat::R8G8B8A8Unorm;
        let v = [0.5f32, 1.5, -0.25, f32::NAN].map(f32::to_bits);
        let mut t = [0u8; 4];
        pack(f, v, &mut t);
        assert_eq!(t, [128, 255, 0, 0]);
        assert_eq!(
            unpack(f, &[255, 0, 51, 128])[2],
            (51.0f32 * (1.0 / 255.0)).to_bits()
        );
        // Every byte reads back to itself.
        for byte in 0..=255u32 {
            let x = unpack(ImageFormat::R8Unorm, &[byte as u8]);
            assert_eq!(round_trip(ImageFormat::R8Unorm, x)[0], x[0], "{byte}");
        }
    }

    #[test]
    fn integers_clamp_and_missing_channels_read_0_0_1() {
        assert_eq!(
            round_trip(ImageFormat::R8Sint, [(-200i32) as u32, 5, 5, 5]),
            [(-128i32) as u32, 0, 0, 1]
        );
        assert_eq!(
            round_trip(ImageFormat::R16G16Uint, [70000, 7, 9, 9]),
            [65535, 7, 0, 1]
        );
        assert_eq!(
            round_trip(ImageFormat::R32Sint, [u32::MAX, 0, 0, 0]),
            [u32::MAX, 0, 0, 1]
        );
        assert_eq!(
            round_trip(ImageFormat::R10G10B10A2Uint, [2000, 1, 2, 9]),
            [1023, 1, 2, 3]
        );
    }

    #[test]
    fn floats_and_snorm() {
        let h = round_trip(ImageFormat::R16Float, [1.000_976_5_f32.to_bits(), 0, 0, 0]);
        assert_eq!(f32::from_bits(h[0]), 1.0 + 1.0 / 1024.0);
        assert_eq!(h[3], ONE);
        let s = round_trip(ImageFormat::R8Snorm, [(-1.0f32).to_bits(), 0, 0, 0]);
        assert_eq!(f32::from_bits(s[0]), -1.0);
        let mut t = [0u8; 1];
        pack(ImageFormat::R8Snorm, [(-0.5f32).to_bits(), 0, 0, 0], &mut t);
        assert_eq!(t[0] as i8, -64, "-63.5 rounds to even");
        let r = round_trip(
            ImageFormat::R11G11B10Float,
            [1.5f32, 0.25, 3.0, 0.0].map(f32::to_bits),
        );
        assert_eq!(r.map(f32::from_bits), [1.5, 0.25, 3.0, 1.0]);
    }
}
