//! The b1.2 vector ALU's arithmetic, bit for bit (`docs/theia.md`, "Simulator").
//!
//! Components are 32-bit Q15.17 words (two's complement). Every function here is pure.

use super::taint::{Lane, Taint};
use crate::isa::{JumpCond, ONE, Op, Vec3};

/// `fix(s)`: keeps the sign bit of the exact 64-bit result and wraps the magnitude bits modulo
/// 2³¹: `(s[63] << 31) | (s & 0x7FFFFFFF)`. Used by ADD, SUB, INC*, DEC, DOT and CROSS.
pub fn fix(s: i64) -> u32 {
    ((s < 0) as u32) << 31 | (s as u32 & 0x7FFF_FFFF)
}

/// |a|·|b| as the radix-4 multiplier computes it: digits of |b| select 0, |a|, 2|a| or 3|a|, and
/// the 2|a| and 3|a| partial products are only 32 bits wide: 3|a| is wrong when
/// |a| > 0x55555555 and a digit is 3, and 2|a| is 0 when |a| = 0x80000000 (the RTL doubles |a|
/// in a 32-bit register: `MUL` of 0x80000000 by 2 is 0).
fn magnitude_product(a: u32, b: u32) -> u64 {
    let ma = (a as i32).unsigned_abs() as u64;
    let mb = (b as i32).unsigned_abs() as u64;
    let double = (2 * ma) & 0xFFFF_FFFF;
    let triple = (double + ma) & 0xFFFF_FFFF;
    (0..16).fold(0u64, |acc, k| {
        let pp = match (mb >> (2 * k)) & 3 {
            0 => 0,
            1 => ma,
            2 => double,
            _ => triple,
        };
        acc.wrapping_add(pp << (2 * k))
    })
}

/// Applies the sign of a·b to a magnitude (sign-magnitude multiplier).
fn signed(a: u32, b: u32, m: u64) -> i64 {
    if (a as i32) < 0 && (b as i32) >= 0 || (a as i32) >= 0 && (b as i32) < 0 {
        (m as i64).wrapping_neg()
    } else {
        m as i64
    }
}

/// `mq(a, b)` = ±floor(|a|·|b| / 2¹⁷) in 64 bits: truncation toward zero.
pub fn mq(a: u32, b: u32) -> i64 {
    signed(a, b, magnitude_product(a, b) >> 17)
}

/// `iq(a, b)` = ±|a|·|b| (integer product, the same multiplier without the shift).
pub fn iq(a: u32, b: u32) -> i64 {
    signed(a, b, magnitude_product(a, b))
}

/// ADD / SUB per component.
pub fn add(a: u32, b: u32) -> u32 {
    fix(a as i32 as i64 + b as i32 as i64)
}

/// SUB per component.
pub fn sub(a: u32, b: u32) -> u32 {
    fix(a as i32 as i64 - b as i32 as i64)
}

/// MUL per component: the low 32 bits of `mq`.
pub fn mul(a: u32, b: u32) -> u32 {
    mq(a, b) as u32
}

/// IMUL per component: the low 32 bits of `iq`.
pub fn imul(a: u32, b: u32) -> u32 {
    iq(a, b) as u32
}

/// DIV per component (b1.2): floor((|a| << 17) / |b|) masked to 31 bits, negated when the signs
/// differ; x / 0 = ±0x0FFFFFFF with the sign of x (0 / 0 is positive).
pub fn div(a: u32, b: u32) -> u32 {
    let neg_a = (a as i32) < 0;
    let neg_b = (b as i32) < 0;
    let ma = (a as i32).unsigned_abs() as u64;
    let mb = (b as i32).unsigned_abs() as u64;
    if mb == 0 {
        return if neg_a {
            0x0FFF_FFFFu32.wrapping_neg()
        } else {
            0x0FFF_FFFF
        };
    }
    let q = (((ma << 17) / mb) & 0x7FFF_FFFF) as u32;
    if neg_a != neg_b { q.wrapping_neg() } else { q }
}

/// Exact floor of the square root of a 64-bit value.
pub fn isqrt(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let mut x = (n as f64).sqrt() as u64;
    while x.checked_mul(x).is_none_or(|sq| sq > n) {
        x -= 1;
    }
    while (x + 1).checked_mul(x + 1).is_some_and(|sq| sq <= n) {
        x += 1;
    }
    x
}

/// The RTL's square root of a 64-bit radicand: digit by digit, 33 two-bit groups from the top,
/// with the running root and remainder kept in 32-bit registers. It is the exact floor square
/// root while the remainder fits; for roots from about 2²⁹ up (4096.0 in Q15.17) the shifted
/// remainder overflows and the result is low (`0x5555556E` where the exact root is
/// `0x5555556F`).
pub fn rtl_sqrt(radicand: u64) -> u32 {
    let (mut root, mut s, mut diff) = (0u32, 0u32, 0u32);
    for group in (0..=32u32).rev() {
        s = (s << 1).wrapping_add(1);
        let digits = radicand.checked_shr(2 * group).unwrap_or(0) & 3;
        diff = (diff << 2).wrapping_add(digits as u32);
        if s > diff {
            s = s.wrapping_sub(1);
        } else {
            root = root.wrapping_add(1u32.checked_shl(group).unwrap_or(0));
            diff = diff.wrapping_sub(s);
            s = s.wrapping_add(1);
        }
    }
    root
}

/// MAG: the RTL's square root ([`rtl_sqrt`]) of S · 2¹⁷ in 64 bits, S = Σ mq(Ac, Ac),
/// broadcast to x, y, z.
pub fn mag(a: Vec3) -> u32 {
    let s: i64 = a.iter().map(|&c| mq(c, c)).sum();
    rtl_sqrt((s as u64) << 17)
}

/// DOT: fix(Σ mq(Ac, Bc)), broadcast.
pub fn dot(a: Vec3, b: Vec3) -> u32 {
    fix(mq(a[0], b[0]) + mq(a[1], b[1]) + mq(a[2], b[2]))
}

/// CROSS: (Ay·Bz − Az·By, Az·Bx − Ax·Bz, Ax·By − Ay·Bx) with mq products and fix().
pub fn cross(a: Vec3, b: Vec3) -> Vec3 {
    [
        fix(mq(a[1], b[2]) - mq(a[2], b[1])),
        fix(mq(a[2], b[0]) - mq(a[0], b[2])),
        fix(mq(a[0], b[1]) - mq(a[1], b[0])),
    ]
}

/// MOD: A & (B − 1.0) (a modulo when B is a power of two).
pub fn modulo(a: u32, b: u32) -> u32 {
    a & b.wrapping_sub(0x20000)
}

/// SWIZZLE3D on the old destination: only SWIZZLE_XXX (0), _YYY (1), _ZZZ (2) and _YXZ (21)
/// exist in the RTL; any other immediate gives (0, 0, 0).
pub fn swizzle(d: Vec3, imm: u32) -> Vec3 {
    match imm {
        0 => [d[0]; 3],
        1 => [d[1]; 3],
        2 => [d[2]; 3],
        21 => [d[1], d[0], d[2]],
        _ => [0; 3],
    }
}

/// A conditional jump's test on components `x` (of SRC1) and `y` (of SRC2), as the RTL does it:
/// G is a signed x > y; L is its negation (x ≤ y); EQ and NE compare magnitudes.
pub fn jump_taken(cond: JumpCond, x: u32, y: u32) -> bool {
    let g = (x as i32) > (y as i32);
    let eq = (x as i32).unsigned_abs() == (y as i32).unsigned_abs();
    match cond {
        JumpCond::G => g,
        JumpCond::L => !g,
        JumpCond::Eq => eq,
        JumpCond::Ne => !eq,
        JumpCond::Ge => g || eq,
        JumpCond::Le => !g || eq,
    }
}

/// The components of `op` on (a, b) whose result is not the exact one a Q15.17 machine without
/// limits would compute, and how: a sum, product, quotient or negation past [−16384, 16384)
/// that the hardware wraps is off by a multiple of 2³¹ raw units ([`Lane::Wrapped`]: ADD, SUB,
/// INC*, DEC, DOT and CROSS keep the sign and wrap the magnitude modulo 2³¹, MUL and IMUL keep
/// the low 32 bits, DIV masks to 31 bits); a product the multiplier's 32-bit 2·|a| and 3·|a|
/// partial products corrupt, or a MAG whose 32-bit square root comes out below the exact one,
/// is [`Lane::Wrong`] (x / 0 is the divider's defined ±0x0FFFFFFF, not a fault). DOT and MAG
/// fault in every lane or none.
pub fn range_fault(op: Op, a: Vec3, b: Vec3) -> Taint {
    use Lane::{Exact, Wrapped, Wrong};
    let fits = |s: i64| s >= i32::MIN as i64 && s <= i32::MAX as i64;
    let ma = |x: u32| (x as i32).unsigned_abs() as u64;
    let corrupt = |x: u32, y: u32| magnitude_product(x, y) != ma(x) * ma(y);
    let exact_mq = |x: u32, y: u32| signed(x, y, (ma(x) * ma(y)) >> 17);
    let wrapped = |ok: bool| if ok { Exact } else { Wrapped };
    let product = |x: u32, y: u32, exact: i64| {
        if corrupt(x, y) {
            Wrong
        } else {
            wrapped(fits(exact))
        }
    };
    let mul = |x: u32, y: u32| product(x, y, exact_mq(x, y));
    let add = |x: u32, y: i64| wrapped(fits(x as i32 as i64 + y));
    let one = ONE as i64;
    let each = |f: &dyn Fn(usize) -> Lane| [f(0), f(1), f(2)];
    match op {
        Op::Add => each(&|c| add(a[c], b[c] as i32 as i64)),
        Op::Sub => each(&|c| add(a[c], -(b[c] as i32 as i64))),
        Op::Inc => each(&|c| add(a[c], one)),
        Op::Dec => each(&|c| add(a[c], -one)),
        Op::IncX => [add(a[0], one), Exact, Exact],
        Op::IncY => [Exact, add(a[1], one), Exact],
        Op::IncZ => [Exact, Exact, add(a[2], one)],
        Op::Mul => each(&|c| mul(a[c], b[c])),
        Op::Imul => each(&|c| product(a[c], b[c], signed(a[c], b[c], ma(a[c]) * ma(b[c])))),
        Op::Mulp => [Exact, Exact, mul(a[0], a[1])],
        Op::Dot => {
            let f = if (0..3).any(|c| corrupt(a[c], b[c])) {
                Wrong
            } else {
                wrapped(fits((0..3).map(|c| exact_mq(a[c], b[c])).sum()))
            };
            [f; 3]
        }
        Op::Cross => {
            let pairs = [(1, 2), (2, 0), (0, 1)];
            each(&|c| {
                let (i, j) = pairs[c];
                if corrupt(a[i], b[j]) || corrupt(a[j], b[i]) {
                    Wrong
                } else {
                    wrapped(fits(exact_mq(a[i], b[j]) - exact_mq(a[j], b[i])))
                }
            })
        }
        Op::Div => {
            each(&|c| wrapped(!(ma(b[c]) != 0 && (ma(a[c]) << 17) / ma(b[c]) > 0x7FFF_FFFF)))
        }
        Op::Mag => {
            let s: u64 = a.iter().map(|&c| (ma(c) * ma(c)) >> 17).sum();
            let exact = isqrt(s << 17);
            let bad = a.iter().any(|&c| corrupt(c, c))
                || exact > 0x7FFF_FFFF
                || rtl_sqrt(s << 17) as u64 != exact;
            [if bad { Wrong } else { Exact }; 3]
        }
        Op::Neg => each(&|c| wrapped(a[c] != 0x8000_0000)),
        _ => [Exact; 3],
    }
}
