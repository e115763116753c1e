//! Range faults, followed through the computation. A lane is *wrapped* when its value differs
//! from what exact Q15.17 arithmetic gives by a multiple of 2³¹ raw units (16384.0): a sum,
//! product or quotient the hardware wrapped ([`super::alu::range_fault`]). It is *wrong* when
//! it differs otherwise: a product the multiplier corrupted, or anything computed from a wrapped
//! value that the wrap does not cancel out of. FRAC of a wrapped lane is exact again (2³¹ is a
//! multiple of 2¹⁷: the fraction is untouched); sums, differences, negations, integer products
//! and moves of wrapped lanes stay wrapped. A lane that is not exact and reaches an output
//! register or decides a jump is a range fault of the routine; lanes nobody reads, or multiplied
//! by an exact zero (a lane mask), are harmless and not reported.

use crate::isa::{Op, Vec3};

/// How far one lane is from exact Q15.17 arithmetic (ordered: the worse is greater).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Lane {
    /// What exact Q15.17 arithmetic gives.
    #[default]
    Exact,
    /// Off by a multiple of 2³¹ raw units: its fraction (FRAC) is exact.
    Wrapped,
    /// Otherwise wrong.
    Wrong,
}

/// Per lane: x, y, z.
pub type Taint = [Lane; 3];

/// No lane tainted.
pub const EXACT: Taint = [Lane::Exact; 3];

/// Whether any lane is not exact.
pub fn any(t: Taint) -> bool {
    t.iter().any(|&l| l != Lane::Exact)
}

/// The taint of `op`'s result lanes, from the operands (values `a`, `b` and taints `ta`, `tb`,
/// as the ALU receives them: Type II words get the immediate in `a` and the old DST in `b`),
/// the immediate, and what the instruction itself did to each lane (`fault`).
pub fn propagate(op: Op, a: Vec3, b: Vec3, ta: Taint, tb: Taint, imm: u32, fault: Taint) -> Taint {
    use Lane::{Exact, Wrong};
    let clean_zero = |v: u32, t: Lane| v == 0 && t == Exact;
    // A fixed-point product: exact by an exact zero, otherwise wrong from any taint.
    let product = |x: u32, tx: Lane, y: u32, ty: Lane| {
        if clean_zero(x, tx) || clean_zero(y, ty) || tx.max(ty) == Exact {
            Exact
        } else {
            Wrong
        }
    };
    // Anything else that does not preserve a wrap (quotients, masks, shifts).
    let spoil = |t: Lane| if t == Exact { Exact } else { Wrong };
    let lanes = |f: &dyn Fn(usize) -> Lane| [f(0), f(1), f(2)];
    let t: Taint = match op {
        Op::Add | Op::Sub => lanes(&|c| ta[c].max(tb[c])),
        Op::Div | Op::Mod => lanes(&|c| spoil(ta[c].max(tb[c]))),
        Op::Mul => lanes(&|c| product(a[c], ta[c], b[c], tb[c])),
        // Integer products keep a multiple of 2³¹ a multiple of 2³¹.
        Op::Imul => lanes(&|c| {
            if clean_zero(a[c], ta[c]) || clean_zero(b[c], tb[c]) {
                Exact
            } else {
                ta[c].max(tb[c])
            }
        }),
        Op::Copy | Op::Inc | Op::Dec | Op::IncX | Op::IncY | Op::IncZ | Op::Neg => ta,
        Op::Frac => lanes(&|c| if ta[c] == Wrong { Wrong } else { Exact }),
        Op::Unscale => ta.map(spoil),
        Op::Dot => {
            let w = (0..3).map(|c| product(a[c], ta[c], b[c], tb[c])).max();
            [w.unwrap_or(Exact); 3]
        }
        Op::Mag => [spoil(ta[0].max(ta[1]).max(ta[2])); 3],
        Op::Cross => {
            let pairs = [(1, 2), (2, 0), (0, 1)];
            lanes(&|c| {
                let (i, j) = pairs[c];
                product(a[i], ta[i], b[j], tb[j]).max(product(a[j], ta[j], b[i], tb[i]))
            })
        }
        Op::Mulp => [ta[0], ta[1], product(a[0], ta[0], a[1], ta[1])],
        Op::XchangeX => [tb[0], ta[1], ta[2]],
        Op::SetX => [Exact, tb[1], tb[2]],
        Op::SetY => [tb[0], Exact, tb[2]],
        Op::SetZ => [tb[0], tb[1], Exact],
        Op::Swizzle3D => match imm {
            0 => [tb[0]; 3],
            1 => [tb[1]; 3],
            2 => [tb[2]; 3],
            21 => [tb[1], tb[0], tb[2]],
            _ => EXACT,
        },
        _ => EXACT,
    };
    lanes(&|c| t[c].max(fault[c]))
}
