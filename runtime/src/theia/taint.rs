//! Range faults, followed through the computation: a lane is *tainted* when its value is not
//! what exact Q15.17 arithmetic gives (a sum, product or quotient the hardware wrapped, a
//! product the multiplier corrupted: [`super::alu::range_fault`]) or was computed from a
//! tainted lane. Taint that reaches an output register or decides a jump is a range fault of
//! the routine; taint in lanes nobody reads, or multiplied by an exact zero (a lane mask), is
//! harmless and not reported.

use super::alu::Vec3;
use tgsic::back::theia::isa::Op;

/// Per lane: x, y, z.
pub type Taint = [bool; 3];

/// The taint of `op`'s result lanes, from the operands (values `a`, `b` and taints `ta`, `tb`,
/// as the ALU receives them: Type II words get the immediate in `a` and the old DST in `b`),
/// the immediate, and the lanes where the instruction itself faulted.
pub fn propagate(op: Op, a: Vec3, b: Vec3, ta: Taint, tb: Taint, imm: u32, fault: Taint) -> Taint {
    // A product is tainted by a tainted operand, unless the other is a clean exact zero.
    let product = |x: u32, tx: bool, y: u32, ty: bool| {
        let clean_zero = |v: u32, t: bool| v == 0 && !t;
        (tx && !clean_zero(y, ty)) || (ty && !clean_zero(x, tx))
    };
    let lanes = |f: &dyn Fn(usize) -> bool| [f(0), f(1), f(2)];
    let t: Taint = match op {
        Op::Add | Op::Sub | Op::Div | Op::Mod => lanes(&|c| ta[c] || tb[c]),
        Op::Mul | Op::Imul => lanes(&|c| product(a[c], ta[c], b[c], tb[c])),
        Op::Copy
        | Op::Inc
        | Op::Dec
        | Op::IncX
        | Op::IncY
        | Op::IncZ
        | Op::Frac
        | Op::Neg
        | Op::Unscale => ta,
        Op::Dot => [(0..3).any(|c| product(a[c], ta[c], b[c], tb[c])); 3],
        Op::Mag => [ta.contains(&true); 3],
        Op::Cross => {
            let pairs = [(1, 2), (2, 0), (0, 1)];
            lanes(&|c| {
                let (i, j) = pairs[c];
                product(a[i], ta[i], b[j], tb[j]) || product(a[j], ta[j], b[i], tb[i])
            })
        }
        Op::Mulp => [ta[0], ta[1], product(a[0], ta[0], a[1], ta[1])],
        Op::XchangeX => [tb[0], ta[1], ta[2]],
        Op::SetX => [false, tb[1], tb[2]],
        Op::SetY => [tb[0], false, tb[2]],
        Op::SetZ => [tb[0], tb[1], false],
        Op::Swizzle3D => match imm {
            0 => [tb[0]; 3],
            1 => [tb[1]; 3],
            2 => [tb[2]; 3],
            21 => [tb[1], tb[0], tb[2]],
            _ => [false; 3],
        },
        _ => [false; 3],
    };
    lanes(&|c| t[c] || fault[c])
}
