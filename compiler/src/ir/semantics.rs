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

/// A 64-bit operation on bits: 32-bit operands and results in the low word, booleans 0 or 1
/// ([`crate::numerics::wide`]'s arithmetic; denormals flushed when `ftz`, as in draws).
pub fn op64(op: super::Op64, a: &[u64], ftz: bool) -> u64 {
    use super::Op64 as W;
    use crate::numerics::wide as w;
    let x = |k: usize| w::d(a[k], ftz);
    let r = |v: f64| w::db(v, ftz);
    let lo = |k: usize| a[k] as u32;
    match op {
        W::Pack => a[0] & 0xFFFF_FFFF | a[1] << 32,
        W::Lo => a[0] & 0xFFFF_FFFF,
        W::Hi => a[0] >> 32,
        W::AsF64 | W::AsI64 => a[0],
        W::DAdd => r(x(0) + x(1)),
        W::DSub => r(x(0) - x(1)),
        W::DMul => r(x(0) * x(1)),
        W::DDiv => r(x(0) / x(1)),
        W::DMin => r(w::dmin(x(0), x(1))),
        W::DMax => r(w::dmax(x(0), x(1))),
        W::DFma => r(x(0).mul_add(x(1), x(2))),
        W::DAbs => w::dabs(a[0], ftz),
        W::DNeg => w::dneg(a[0]),
        W::DSqrt => r(x(0).sqrt()),
        W::DFloor => r(x(0).floor()),
        W::DCeil => r(x(0).ceil()),
        W::DTrunc => r(x(0).trunc()),
        W::DRound => r(x(0).round_ties_even()),
        W::DSign => r(w::dssg(x(0))),
        W::DSat01 => w::sat01(a[0], ftz),
        W::DLdexp => r(w::ldexp(x(0), lo(1) as i32)),
        W::DFrexpMant => r(w::frexp(x(0)).0),
        W::DFrexpExp => w::frexp(x(0)).1 as u32 as u64,
        W::DCmp(k) => {
            let (p, q) = (x(0), x(1));
            (match k {
                FCmp::Lt => p < q,
                FCmp::Le => p <= q,
                FCmp::Gt => p > q,
                FCmp::Ge => p >= q,
                FCmp::Eq => p == q,
                FCmp::Ne => p != q,
            }) as u64
        }
        W::F32ToF64 => {
            let v = if ftz { f(lo(0)) } else { f32::from_bits(lo(0)) };
            r(v as f64)
        }
        W::F64ToF32 => {
            let v = if ftz {
                num::round_ftz(x(0))
            } else {
                x(0) as f32
            };
            (if v.is_nan() {
                num::CANONICAL_NAN
            } else {
                v.to_bits()
            }) as u64
        }
        W::I32ToF64 => (lo(0) as i32 as f64).to_bits(),
        W::U32ToF64 => (lo(0) as f64).to_bits(),
        W::F64ToI32 => w::d2i(x(0)) as u64,
        W::F64ToU32 => w::d2u(x(0)) as u64,
        W::F64ToI64 => w::d2i64(x(0)),
        W::F64ToU64 => w::d2u64(x(0)),
        W::I64ToF64 => r(a[0] as i64 as f64),
        W::U64ToF64 => r(a[0] as f64),
        W::I64ToF32 => b(a[0] as i64 as f32) as u64,
        W::U64ToF32 => b(a[0] as f32) as u64,
        W::SExt => lo(0) as i32 as i64 as u64,
        W::ZExt => lo(0) as u64,
        W::QAdd => a[0].wrapping_add(a[1]),
        W::QMul => a[0].wrapping_mul(a[1]),
        W::QDivS => w::i64div(a[0], a[1]),
        W::QDivU => w::u64div(a[0], a[1]),
        W::QRemS => w::i64mod(a[0], a[1]),
        W::QRemU => w::u64mod(a[0], a[1]),
        W::QMinS => (a[0] as i64).min(a[1] as i64) as u64,
        W::QMaxS => (a[0] as i64).max(a[1] as i64) as u64,
        W::QMinU => a[0].min(a[1]),
        W::QMaxU => a[0].max(a[1]),
        W::QShl => a[0] << (lo(1) & 63),
        W::QShrS => ((a[0] as i64) >> (lo(1) & 63)) as u64,
        W::QShrU => a[0] >> (lo(1) & 63),
        W::QNeg => (a[0] as i64).wrapping_neg() as u64,
        W::QAbs => (a[0] as i64).wrapping_abs() as u64,
        W::QSign => (a[0] as i64).signum() as u64,
        W::QCmp(k) => {
            let (p, q) = (a[0], a[1]);
            (match k {
                ICmp::Eq => p == q,
                ICmp::Ne => p != q,
                ICmp::SLt => (p as i64) < (q as i64),
                ICmp::SGe => (p as i64) >= (q as i64),
                ICmp::ULt => p < q,
                ICmp::UGe => p >= q,
            }) as u64
        }
    }
}
