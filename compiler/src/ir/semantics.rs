//! Lane-wise semantics of the pure IR operations, bit-exact with the interpreter (they use the
//! same [`crate::numerics`]). Constant folding and the IR evaluator both use these functions.
//! Booleans are 0 or 1.

use super::{Binary, FCmp, ICmp, Nary, Pack, Unary};
use crate::numerics::{self as num, b, f, fmax, fmin};

const ONE: u32 = 0x3F80_0000;

/// A one-operand operation on bits.
pub fn unary(op: Unary, x: u32) -> u32 {
    use Unary as U;
    match op {
        U::FNeg => x ^ 0x8000_0000,
        U::FAbs => x & 0x7FFF_FFFF,
        U::FFloor => b(f(x).floor()),
        U::FCeil => b(f(x).ceil()),
        U::FTrunc => b(f(x).trunc()),
        U::FRound => b(f(x).round_ties_even()),
        U::FSqrt => b(f(x).sqrt()),
        U::FExp2 => b(num::libm::exp2(f(x))),
        U::FLg2 => b(num::lg2(f(x))),
        U::FSin => b(num::libm::sin(f(x))),
        U::FCos => b(num::libm::cos(f(x))),
        U::FSat01 => b(num::sat01(f(x))),
        U::FSat11 => b(num::sat11(f(x))),
        U::FSign => {
            let v = f(x);
            if v > 0.0 {
                ONE
            } else if v < 0.0 {
                (-1.0f32).to_bits()
            } else {
                0
            }
        }
        U::FRoundF16 => b(num::f16_to_f32(num::f32_to_f16(f(x)))),
        U::FRoundFx12 => b(num::fixed12(f(x))),
        U::F2I => num::f2i(f(x)),
        U::F2U => num::f2u(f(x)),
        U::FloorToInt => f(x).floor() as i32 as u32,
        U::I2F => b(x as i32 as f32),
        U::U2F => b(x as f32),
        U::INeg => x.wrapping_neg(),
        U::IAbs => (x as i32).wrapping_abs() as u32,
        U::ISign => (x as i32).signum() as u32,
        U::Not => !x,
        U::BitRev => x.reverse_bits(),
        U::Popcount => x.count_ones(),
        U::FindLsb => num::lsb(x),
        U::FindMsbS => num::imsb(x),
        U::FindMsbU => num::umsb(x),
        U::BNot => (x == 0) as u32,
        U::BoolToInt => {
            if x != 0 {
                u32::MAX
            } else {
                0
            }
        }
        U::BoolToFloat => {
            if x != 0 {
                ONE
            } else {
                0
            }
        }
        U::Bitcast => x,
    }
}

/// A two-operand operation on bits.
pub fn binary(op: Binary, x: u32, y: u32) -> u32 {
    use Binary as B;
    match op {
        B::FAdd => b(f(x) + f(y)),
        B::FSub => b(f(x) - f(y)),
        B::FMul => b(num::mul(f(x), f(y))),
        B::FDiv => b(num::div(f(x), f(y))),
        B::FMin => b(fmin(f(x), f(y))),
        B::FMax => b(fmax(f(x), f(y))),
        B::FPow => b(num::libm::pow(f(x), f(y))),
        B::Ldexp => b(num::round_ftz(
            f(x) as f64 * 2f64.powi((y as i32).clamp(-300, 300)),
        )),
        B::IAdd => x.wrapping_add(y),
        B::ISub => x.wrapping_sub(y),
        B::IMul => x.wrapping_mul(y),
        B::IMulHiS => ((x as i32 as i64 * y as i32 as i64) >> 32) as u32,
        B::IMulHiU => ((x as u64 * y as u64) >> 32) as u32,
        B::IDivS => num::idiv(x, y),
        B::IDivU => num::udiv(x, y),
        B::IRemS => num::imod(x, y),
        B::IRemU => num::umod(x, y),
        B::IMinS => (x as i32).min(y as i32) as u32,
        B::IMaxS => (x as i32).max(y as i32) as u32,
        B::IMinU => x.min(y),
        B::IMaxU => x.max(y),
        B::Shl => x << (y & 31),
        B::ShrS => ((x as i32) >> (y & 31)) as u32,
        B::ShrU => x >> (y & 31),
        B::And => x & y,
        B::Or => x | y,
        B::Xor => x ^ y,
        B::UAbsDiff => x.abs_diff(y),
        B::BAnd => ((x != 0) && (y != 0)) as u32,
        B::BOr => ((x != 0) || (y != 0)) as u32,
    }
}

/// A three- or four-operand operation on bits.
pub fn nary(op: Nary, a: &[u32]) -> u32 {
    match op {
        Nary::Fma => b(num::fma(f(a[0]), f(a[1]), f(a[2]))),
        Nary::Ubfe => num::ubfe(a[0], a[1], a[2]),
        Nary::Ibfe => num::ibfe(a[0], a[1], a[2]),
        Nary::Bfi => num::bfi(a[0], a[1], a[2], a[3]),
    }
}

/// A float comparison (denormals read as zero).
pub fn fcmp(op: FCmp, x: u32, y: u32) -> bool {
    let (x, y) = (f(x), f(y));
    match op {
        FCmp::Lt => x < y,
        FCmp::Le => x <= y,
        FCmp::Gt => x > y,
        FCmp::Ge => x >= y,
        FCmp::Eq => x == y,
        FCmp::Ne => x != y,
    }
}

/// An integer comparison.
pub fn icmp(op: ICmp, x: u32, y: u32) -> bool {
    match op {
        ICmp::Eq => x == y,
        ICmp::Ne => x != y,
        ICmp::SLt => (x as i32) < (y as i32),
        ICmp::SGe => (x as i32) >= (y as i32),
        ICmp::ULt => x < y,
        ICmp::UGe => x >= y,
    }
}

/// Packs components (2 or 4) into a word, as NV_fragment_program's PK* opcodes.
pub fn pack(kind: Pack, c: &[u32]) -> u32 {
    let (bits, enc): (u32, &dyn Fn(f32) -> u32) = match kind {
        Pack::Half2x16 => (16, &|v| num::f32_to_f16(v) as u32),
        Pack::Unorm2x16 => (16, &|v| num::pack_round(num::sat01(v) * 65535.0) as u32),
        Pack::Snorm4x8 => (8, &|v| num::pack_round(num::sat11(v) * 127.0) as i32 as u32),
        Pack::Unorm4x8 => (8, &|v| num::pack_round(num::sat01(v) * 255.0) as u32),
    };
    c.iter().enumerate().fold(0, |acc, (k, &v)| {
        acc | (enc(f(v)) & ((1u32 << bits) - 1)) << (bits * k as u32)
    })
}

/// Unpacks a word into four floats (UP2H and UP2US give (lo, hi, lo, hi)).
pub fn unpack(kind: Pack, v: u32) -> [u32; 4] {
    match kind {
        Pack::Half2x16 => {
            let (lo, hi) = (
                b(num::f16_to_f32(v as u16)),
                b(num::f16_to_f32((v >> 16) as u16)),
            );
            [lo, hi, lo, hi]
        }
        Pack::Unorm2x16 => {
            let (lo, hi) = (
                b((v & 0xFFFF) as f32 / 65535.0),
                b((v >> 16) as f32 / 65535.0),
            );
            [lo, hi, lo, hi]
        }
        Pack::Snorm4x8 => {
            std::array::from_fn(|c| b(((v >> (8 * c)) as u8 as i8 as f32 / 127.0).max(-1.0)))
        }
        Pack::Unorm4x8 => std::array::from_fn(|c| b(((v >> (8 * c)) & 0xFF) as f32 / 255.0)),
    }
}
