//! The host function generated code calls for what has no vector instruction: operations
//! evaluated per lane with the interpreter's own code ([`tgsic_lanes_op`]). Both JIT back ends
//! call it with the same [`LaneOp`] codes.

use super::abi::JitError;
use super::code::{Symbol, SymbolTable};
use crate::ir::semantics as sem;
use crate::ir::{Binary, Nary, Pack, Unary};

/// Every unary operation (their `LaneOp` codes are indices here).
pub(crate) const UNARY: &[Unary] = &[
    Unary::FNeg,
    Unary::FAbs,
    Unary::FFloor,
    Unary::FCeil,
    Unary::FTrunc,
    Unary::FRound,
    Unary::FSqrt,
    Unary::FExp2,
    Unary::FLg2,
    Unary::FSin,
    Unary::FCos,
    Unary::FSat01,
    Unary::FSat11,
    Unary::FSign,
    Unary::FRoundF16,
    Unary::FRoundFx12,
    Unary::F2I,
    Unary::F2U,
    Unary::FloorToInt,
    Unary::I2F,
    Unary::U2F,
    Unary::INeg,
    Unary::IAbs,
    Unary::ISign,
    Unary::Not,
    Unary::BitRev,
    Unary::Popcount,
    Unary::FindLsb,
    Unary::FindMsbS,
    Unary::FindMsbU,
    Unary::BNot,
    Unary::BoolToInt,
    Unary::BoolToFloat,
    Unary::Bitcast,
];

/// Every binary operation.
pub(crate) const BINARY: &[Binary] = &[
    Binary::FAdd,
    Binary::FSub,
    Binary::FMul,
    Binary::FDiv,
    Binary::FMin,
    Binary::FMax,
    Binary::FPow,
    Binary::Ldexp,
    Binary::IAdd,
    Binary::ISub,
    Binary::IMul,
    Binary::IMulHiS,
    Binary::IMulHiU,
    Binary::IDivS,
    Binary::IDivU,
    Binary::IRemS,
    Binary::IRemU,
    Binary::IMinS,
    Binary::IMaxS,
    Binary::IMinU,
    Binary::IMaxU,
    Binary::Shl,
    Binary::ShrS,
    Binary::ShrU,
    Binary::And,
    Binary::Or,
    Binary::Xor,
    Binary::UAbsDiff,
    Binary::BAnd,
    Binary::BOr,
];

/// Every three- and four-operand operation.
pub(crate) const NARY: &[Nary] = &[Nary::Fma, Nary::Ubfe, Nary::Ibfe, Nary::Bfi];
const PACK: &[Pack] = &[
    Pack::Half2x16,
    Pack::Unorm2x16,
    Pack::Snorm4x8,
    Pack::Unorm4x8,
];

/// An operation the host evaluates per lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaneOp {
    /// One operand.
    Unary(Unary),
    /// Two operands.
    Binary(Binary),
    /// Three or four operands.
    Nary(Nary),
    /// Packing (2 or 4 float operands, one word).
    Pack(Pack),
    /// Unpacking (one word, four floats: `out` holds 4·n words).
    Unpack(Pack),
}

impl LaneOp {
    /// The code passed to [`tgsic_lanes_op`].
    pub fn code(self) -> u32 {
        let pos = |found: Option<usize>| found.expect("every operation is in its table") as u32;
        match self {
            LaneOp::Unary(u) => 0x100 | pos(UNARY.iter().position(|&x| x == u)),
            LaneOp::Binary(b) => 0x200 | pos(BINARY.iter().position(|&x| x == b)),
            LaneOp::Nary(n) => 0x300 | pos(NARY.iter().position(|&x| x == n)),
            LaneOp::Pack(p) => 0x400 | pos(PACK.iter().position(|&x| x == p)),
            LaneOp::Unpack(p) => 0x500 | pos(PACK.iter().position(|&x| x == p)),
        }
    }

    fn from_code(code: u32) -> Option<LaneOp> {
        let k = (code & 0xFF) as usize;
        Some(match code >> 8 {
            1 => LaneOp::Unary(*UNARY.get(k)?),
            2 => LaneOp::Binary(*BINARY.get(k)?),
            3 => LaneOp::Nary(*NARY.get(k)?),
            4 => LaneOp::Pack(*PACK.get(k)?),
            5 => LaneOp::Unpack(*PACK.get(k)?),
            _ => return None,
        })
    }
}

/// Evaluates lane operation `code` ([`LaneOp::code`]) on `n` lanes: operand k is `n` words at
/// `a`, `b`, `c`, `d` (those the operation takes), the result `n` words at `out` (4·n for
/// unpacking), with the interpreter's arithmetic (DAZ/FTZ in software). Generated code calls
/// it through [`tgsic_lanes_op_entered`].
///
/// # Safety
/// The pointers the operation uses must address `n` readable (`out`: writable) words.
pub unsafe extern "C" fn tgsic_lanes_op(
    code: u32,
    a: *const u32,
    b: *const u32,
    c: *const u32,
    d: *const u32,
    out: *mut u32,
    n: u32,
) {
    let Some(op) = LaneOp::from_code(code) else {
        return;
    };
    let n = n as usize;
    // SAFETY: the caller passes n-word buffers for the operands this operation uses, and
    // `arg` reads only those operands at lanes below n.
    let arg = |p: *const u32, k: usize| unsafe { *p.add(k) };
    // SAFETY: `out` holds n words (4·n for unpacking, which alone writes past n), and `put`
    // writes only below that.
    let put = |k: usize, v: u32| unsafe { *out.add(k) = v };
    for l in 0..n {
        match op {
            LaneOp::Unary(u) => put(l, sem::unary(u, arg(a, l))),
            LaneOp::Binary(bo) => put(l, sem::binary(bo, arg(a, l), arg(b, l))),
            LaneOp::Nary(no) => {
                let xs = [
                    arg(a, l),
                    arg(b, l),
                    arg(c, l),
                    if no == Nary::Bfi { arg(d, l) } else { 0 },
                ];
                put(l, sem::nary(no, &xs));
            }
            LaneOp::Pack(p) => {
                let k = if matches!(p, Pack::Half2x16 | Pack::Unorm2x16) {
                    2
                } else {
                    4
                };
                let xs = [
                    arg(a, l),
                    arg(b, l),
                    if k == 4 { arg(c, l) } else { 0 },
                    if k == 4 { arg(d, l) } else { 0 },
                ];
                put(l, sem::pack(p, &xs[..k]));
            }
            LaneOp::Unpack(p) => {
                let u = sem::unpack(p, arg(a, l));
                for (k, v) in u.into_iter().enumerate() {
                    put(k * n + l, v);
                }
            }
        }
    }
}

crate::default_fp_trampoline!(
    /// [`tgsic_lanes_op`] entered from generated code: the MXCSR's DAZ/FTZ bits are cleared
    /// while it runs (`back::fpenv`).
    tgsic_lanes_op_entered => tgsic_lanes_op,
    (code: u32, a: *const u32, b: *const u32, c: *const u32, d: *const u32, out: *mut u32, n: u32)
);

/// The address in this process of a function either back end's code may call that is not
/// exact mode's (those are Cranelift's, `cranelift/helpers.rs`): the C library's memory
/// functions, and the libm stand-ins entered through a floating-point trampoline. `None` for an
/// exact mode function.
pub fn host_function(s: Symbol) -> Option<u64> {
    unsafe extern "C" {
        fn memset(d: *mut u8, c: i32, n: usize) -> *mut u8;
        fn memcpy(d: *mut u8, s: *const u8, n: usize) -> *mut u8;
        fn memmove(d: *mut u8, s: *const u8, n: usize) -> *mut u8;
    }
    Some(match s {
        Symbol::Floorf => floorf_entered as *const () as usize as u64,
        Symbol::Ceilf => ceilf_entered as *const () as usize as u64,
        Symbol::Truncf => truncf_entered as *const () as usize as u64,
        Symbol::Nearbyintf => nearbyintf_entered as *const () as usize as u64,
        Symbol::Fmaf => fmaf_entered as *const () as usize as u64,
        Symbol::Memset => memset as *const () as usize as u64,
        Symbol::Memcpy => memcpy as *const () as usize as u64,
        Symbol::Memmove => memmove as *const () as usize as u64,
        Symbol::ExactExp2 | Symbol::ExactLn | Symbol::ExactPow | Symbol::ExactSinCos => {
            return None;
        }
    })
}

/// The table of code that calls only [`host_function`]s (LLVM's, and exact mode's own helpers).
#[derive(Debug, Clone, Copy, Default)]
pub struct HostFunctions;

impl SymbolTable for HostFunctions {
    fn address(&self, s: Symbol) -> Result<u64, JitError> {
        host_function(s).ok_or_else(|| JitError::Unresolved {
            symbol: format!("{s:?}"),
            table: "the host functions (only Cranelift's code calls it)",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for &u in UNARY {
            assert_eq!(
                LaneOp::from_code(LaneOp::Unary(u).code()),
                Some(LaneOp::Unary(u))
            );
        }
        for &b in BINARY {
            assert_eq!(
                LaneOp::from_code(LaneOp::Binary(b).code()),
                Some(LaneOp::Binary(b))
            );
        }
        for &p in PACK {
            assert_eq!(
                LaneOp::from_code(LaneOp::Unpack(p).code()),
                Some(LaneOp::Unpack(p))
            );
        }
        assert_eq!(LaneOp::from_code(0x600), None);
    }
}

// The C library stand-ins Cranelift calls where the CPU lacks an instruction (mapped by
// `code::Symbol`): each computes what the instruction it replaces computes under DAZ/FTZ
// (operands flushed first), in software; generated code enters them through trampolines that
// clear the MXCSR's DAZ/FTZ bits for the Rust code (`fpenv`).
extern "C" fn floorf_(x: f32) -> f32 {
    crate::numerics::ftz(x).floor()
}
extern "C" fn ceilf_(x: f32) -> f32 {
    crate::numerics::ftz(x).ceil()
}
extern "C" fn truncf_(x: f32) -> f32 {
    crate::numerics::ftz(x).trunc()
}
extern "C" fn nearbyintf_(x: f32) -> f32 {
    crate::numerics::ftz(x).round_ties_even()
}
extern "C" fn fmaf_(x: f32, y: f32, z: f32) -> f32 {
    use crate::numerics::{fma, ftz};
    fma(ftz(x), ftz(y), ftz(z))
}
crate::default_fp_trampoline!(
    /// `floorf` entered from generated code.
    floorf_entered => floorf_, (x: f32) -> f32
);
crate::default_fp_trampoline!(
    /// `ceilf` entered from generated code.
    ceilf_entered => ceilf_, (x: f32) -> f32
);
crate::default_fp_trampoline!(
    /// `truncf` entered from generated code.
    truncf_entered => truncf_, (x: f32) -> f32
);
crate::default_fp_trampoline!(
    /// `nearbyintf` entered from generated code.
    nearbyintf_entered => nearbyintf_, (x: f32) -> f32
);
crate::default_fp_trampoline!(
    /// `fmaf` entered from generated code.
    fmaf_entered => fmaf_, (x: f32, y: f32, z: f32) -> f32
);
