//! The builder trait: what a SIMD target must provide for [`lower`](super::lower) to generate
//! its code. Everything is in a step's lanes (`lanes()` of them): a vector `V` holds one IR
//! value for every lane of the step, whatever registers the target splits it into.
//!
//! Operands of vector operations may arrive in any [`Kind`] with the right bits (a float as
//! its integer bits, say); each operation reinterprets them as it needs, except that a lane
//! mask is never an operand of float or integer arithmetic, and the bitwise operations take
//! two masks or two non-masks.

use super::super::abi::JitError;
use crate::back::abi::Invariant;
use crate::ir::{self, FCmp, ICmp};

/// A lowering result.
pub type R<T> = Result<T, JitError>;

/// The error of a double-precision operation on a target without them.
fn no_doubles() -> JitError {
    Invariant::NoDoubleLanes.into()
}

/// The error of a 64-bit IR operation on a target that does not compile them yet.
fn no_wide() -> JitError {
    JitError::NotYet {
        what: "a double or 64-bit integer operation".into(),
        why: "this back end has no 64-bit lanes; the interpreter runs it",
    }
}

/// Operations on 64-bit integer lanes with two operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QBin {
    /// Wrapping `a + b`.
    Add,
    /// Wrapping `a − b`.
    Sub,
    /// Wrapping `a · b`.
    Mul,
    /// `a & b`.
    And,
    /// `a | b`.
    Or,
    /// `a ^ b`.
    Xor,
    /// Signed division (the divisor is never 0, nor −1 with `i64::MIN`).
    DivS,
    /// Unsigned division (the divisor is never 0).
    DivU,
    /// Signed remainder (as [`QBin::DivS`]).
    RemS,
    /// Unsigned remainder (as [`QBin::DivU`]).
    RemU,
}

/// What a vector's lanes hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `f32` lanes.
    F32,
    /// 32-bit integer lanes.
    I32,
    /// A lane mask: a lane is set or not. As words (in memory, or [`Kind::I32`]) a set lane is
    /// all ones.
    Mask,
}

/// What a scalar holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    /// A 32-bit integer.
    I32,
    /// A 64-bit integer.
    I64,
    /// An `f32`.
    F32,
    /// An address.
    Ptr,
}

/// Float arithmetic with two operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FBin {
    /// `a + b`.
    Add,
    /// `a − b`.
    Sub,
    /// `a · b`.
    Mul,
    /// `a / b`.
    Div,
}

/// Float operations with one operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FUn {
    /// Flip the sign bit (exact on NaNs).
    Neg,
    /// Clear the sign bit (exact on NaNs).
    Abs,
    /// Round down.
    Floor,
    /// Round up.
    Ceil,
    /// Round toward zero.
    Trunc,
    /// Round to nearest, ties to even.
    Round,
    /// Square root.
    Sqrt,
}

/// Integer operations with two operands (all 32-bit lanes; `And`, `Or` and `Xor` take masks
/// too).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IBin {
    /// Wrapping `a + b`.
    Add,
    /// Wrapping `a − b`.
    Sub,
    /// Wrapping `a · b`, low 32 bits.
    Mul,
    /// `a & b`.
    And,
    /// `a | b`.
    Or,
    /// `a ^ b`.
    Xor,
    /// `a & !b`.
    AndNot,
    /// Signed minimum.
    SMin,
    /// Signed maximum.
    SMax,
    /// Unsigned minimum.
    UMin,
    /// Unsigned maximum.
    UMax,
}

/// Shifts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shift {
    /// Left.
    Shl,
    /// Arithmetic right.
    ShrS,
    /// Logical right.
    ShrU,
}

/// Operations a target may lack a vector instruction for ([`SimdBuilder::supports`]); the
/// lowering calls the host ([`lane_ops`](crate::back::lane_ops)) for those it lacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Optional {
    /// Shift every lane by its own amount (already below 32).
    Shift(Shift),
    /// Integer division or remainder (the divisor is never 0, nor −1 with `INT_MIN`).
    Div {
        /// Signed.
        signed: bool,
        /// The remainder rather than the quotient.
        rem: bool,
    },
    /// The high 32 bits of the 64-bit product.
    MulHigh {
        /// Signed.
        signed: bool,
    },
    /// Leading zeros (32 for 0).
    Ctlz,
    /// Trailing zeros (32 for 0).
    Cttz,
    /// Set bits.
    Popcount,
    /// The bits reversed.
    BitReverse,
    /// Fused multiply-add.
    Fma,
    /// Lane `l` takes lane `b[l] mod lanes()` of `a` (I32 vectors). Only where the target has
    /// it in one instruction: the lowering has no call for it and gathers instead.
    Permute,
}

/// The read-modify-write operations of [`SimdBuilder::atomic_rmw`] (32-bit words).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomicOp {
    /// Wrapping `old + a`.
    Add,
    /// `a`.
    Xchg,
    /// `old & a`.
    And,
    /// `old | a`.
    Or,
    /// `old ^ a`.
    Xor,
    /// Unsigned minimum.
    UMin,
    /// Unsigned maximum.
    UMax,
    /// Signed minimum.
    SMin,
    /// Signed maximum.
    SMax,
}

/// Scalar integer operations (on [`Scalar::I32`] or [`Scalar::I64`] operands of one type;
/// `And` and `Or` also combine conditions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SBin {
    /// Wrapping `a + b`.
    Add,
    /// Wrapping `a · b`.
    Mul,
    /// `a << b`.
    Shl,
    /// `a >> b`, logical.
    UShr,
    /// `a & b`.
    And,
    /// `a | b`.
    Or,
}

/// The functions generated code calls.
#[derive(Debug, Clone, Copy)]
pub enum Callee<S> {
    /// The lane operations at this address, `(code: i32, a, b, c, d, out: ptr, lanes: i32)`
    /// ([`LaneOpFn`](crate::back::abi::LaneOpFn)).
    LaneOp(S),
    /// The texture callback at this address ([`TextureFn`](crate::back::abi::TextureFn)).
    Texture(S),
    /// The EMIT callback at this address ([`EmitFn`](crate::back::abi::EmitFn)).
    Emit(S),
    /// The memory callback at this address ([`MemoryFn`](crate::back::abi::MemoryFn)).
    Memory(S),
}

impl<S> Callee<S> {
    /// The callee's parameters, in order (it returns nothing): `tgsic_lanes_op(code, a, b, c,
    /// d, out, lanes)`, `texture(callbacks, index, args, out, mask, lane0, lanes)`, `emit(callbacks,
    /// is_emit, values, count, mask, lane0, lanes)`.
    pub fn params(&self) -> &'static [Scalar] {
        use Scalar::{I32, I64, Ptr};
        match self {
            Callee::LaneOp(_) => &[I32, Ptr, Ptr, Ptr, Ptr, Ptr, I32],
            Callee::Texture(_) | Callee::Memory(_) => &[Ptr, I32, Ptr, Ptr, I64, I32, I32],
            Callee::Emit(_) => &[Ptr, I32, Ptr, I32, I64, I32, I32],
        }
    }
}
/// The functions exact math computes in double-precision lanes, as a back end may call them:
/// inline (`libm.rs`, where [`SimdBuilder::call_exact`] answers `None`) or out of line, once
/// in a function the code calls (Cranelift's `helpers.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExactFn {
    /// glibc's `exp2f` of one value.
    Exp2,
    /// glibc's `logf` of one value (LG2 multiplies it by Mesa's constant).
    Ln,
    /// glibc's `powf` of two values.
    Pow,
    /// glibc's `sinf` and `cosf` of one value: two results, sine first.
    SinCos,
}

impl ExactFn {
    /// Every function, in the order of their numbers.
    pub const ALL: [ExactFn; 4] = [ExactFn::Exp2, ExactFn::Ln, ExactFn::Pow, ExactFn::SinCos];

    /// How many values it takes.
    pub fn arity(self) -> usize {
        if self == ExactFn::Pow { 2 } else { 1 }
    }

    /// How many values it returns.
    pub fn results(self) -> usize {
        if self == ExactFn::SinCos { 2 } else { 1 }
    }

    /// `Ok` when `given` is its [`Self::arity`].
    ///
    /// # Errors
    /// [`JitError::Invariant`](crate::back::abi::Invariant::Arity) naming the function and the count.
    pub fn check_arity(self, given: usize) -> R<()> {
        if given == self.arity() {
            Ok(())
        } else {
            Err(crate::back::abi::Invariant::Arity {
                op: format!("{self:?}"),
                given,
            }
            .into())
        }
    }
}

/// A SIMD target's code builder: vectors, lane masks, scalars, variables, blocks, memory and
/// calls. [`lower`](super::lower) drives it over a whole function; implementing it is all a
/// new SIMD target needs (see the module documentation of [`simd`](super)).
///
/// Code goes to the current block. The builder starts in the function's entry block, whose
/// one parameter is the [`JitArgs`](crate::back::abi::JitArgs) pointer ([`Self::args`]).
pub trait SimdBuilder {
    /// A vector of a step's lanes.
    type V: Copy;
    /// A scalar: an integer, a float, an address or a branch condition.
    type S: Copy;
    /// A variable (a vector or an i64), defined and used in any block; the builder builds
    /// its SSA form.
    type Var: Copy;
    /// A basic block.
    type Block: Copy;
    /// A step's lanes as f64 (where [`Self::has_doubles`]; any type elsewhere).
    type D: Copy;

    /// Whether the target's optimizer may fold float operations as IEEE does, ignoring the
    /// flush-to-zero mode the code runs in (LLVM does: `x·1 → x` keeps a denormal, and
    /// constants are folded as IEEE). The lowering then flushes denormals in integer
    /// arithmetic where bits are observed and where an operand may have been folded, instead
    /// of relying on the CPU's flush of every arithmetic result.
    const FOLDS_DENORMALS: bool;

    /// Whether the branches of a divergent `If` that only move lanes (`break`, `continue`,
    /// `yield`: a loop's exit test) run under their masks without the test that skips a branch
    /// no lane takes. Branchless, LLVM keeps such a loop body one block that its optimizer
    /// schedules as a whole; Cranelift (which does not optimize) would pay for the blends of
    /// the moves on every iteration instead, so it keeps the test.
    const BRANCHLESS_LANE_MOVES: bool;

    /// Lanes per step.
    fn lanes(&self) -> usize;
    /// The `JitArgs` pointer (a [`Scalar::Ptr`]).
    fn args(&self) -> Self::S;

    // ---------------------------------------------------------------- constants and lanes

    /// Every lane `bits` (a mask: every lane set when `bits` is not 0).
    fn splat_const(&mut self, kind: Kind, bits: u32) -> R<Self::V>;
    /// Lane `l` holds `l` (I32).
    fn iota(&mut self) -> R<Self::V>;
    /// Every lane `s` (an I32 or F32 scalar; the vector is that kind).
    fn splat(&mut self, s: Self::S) -> R<Self::V>;
    /// Lane `lane` of an I32 or F32 vector (a scalar of that type), or of a mask (a
    /// condition).
    fn extract(&mut self, v: Self::V, lane: usize) -> R<Self::S>;
    /// `v` (I32 or F32) with lane `lane` replaced by the scalar `s` of its lane type.
    fn insert(&mut self, v: Self::V, lane: usize, s: Self::S) -> R<Self::V>;
    /// `v`'s bits as `kind` (a mask as I32: a set lane is all ones; an I32 becomes a mask only
    /// with lanes 0 or all ones).
    fn cast(&mut self, v: Self::V, kind: Kind) -> R<Self::V>;

    // ---------------------------------------------------------------- vector operations

    /// Float arithmetic, flushed as the CPU flushes under DAZ/FTZ.
    fn fbin(&mut self, op: FBin, a: Self::V, b: Self::V) -> R<Self::V>;
    /// One-operand float operations.
    fn fun(&mut self, op: FUn, a: Self::V) -> R<Self::V>;
    /// A float comparison (a mask): ordered (false with a NaN) but for `Ne` (`x ≠ x` tests for
    /// NaN).
    fn fcmp(&mut self, cc: FCmp, a: Self::V, b: Self::V) -> R<Self::V>;
    /// Integer operations.
    fn ibin(&mut self, op: IBin, a: Self::V, b: Self::V) -> R<Self::V>;
    /// An integer comparison (a mask).
    fn icmp(&mut self, cc: ICmp, a: Self::V, b: Self::V) -> R<Self::V>;
    /// Bitwise not (of a mask: its complement).
    fn not(&mut self, a: Self::V) -> R<Self::V>;
    /// Every lane shifted by `n` (below 32).
    fn shift_imm(&mut self, op: Shift, a: Self::V, n: u32) -> R<Self::V>;
    /// Wrapping absolute value.
    fn iabs(&mut self, a: Self::V) -> R<Self::V>;
    /// I32 to F32 (`signed` or unsigned), rounding to nearest.
    fn int_to_float(&mut self, a: Self::V, signed: bool) -> R<Self::V>;
    /// F32 to I32 by truncation; NaN and out of range give `0x80000000` (as `cvttps2dq`).
    fn float_to_int(&mut self, a: Self::V) -> R<Self::V>;
    /// Per lane `m ? x : y`, of `x`'s kind.
    fn select(&mut self, m: Self::V, x: Self::V, y: Self::V) -> R<Self::V>;
    /// Every lane `c ? x : y` (`c` a condition).
    fn select_all(&mut self, c: Self::S, x: Self::V, y: Self::V) -> R<Self::V>;
    /// Within each quad of lanes, lane `4q + i` takes lane `4q + pick[i]`.
    fn shuffle_quads(&mut self, v: Self::V, pick: [u8; 4]) -> R<Self::V>;
    /// Whether the target has a vector instruction (or a short sequence) for `op`.
    fn supports(&self, op: Optional) -> bool;
    /// An operation the target [supports](Self::supports) (an error otherwise).
    fn optional(&mut self, op: Optional, args: &[Self::V]) -> R<Self::V>;
    /// A float's denormals replaced by zeros of their sign (`x` itself where it is not one).
    fn flush(&mut self, a: Self::V) -> R<Self::V>;

    /// Whether the target's own vector division ([`Optional::Div`]) by a constant divisor is
    /// products already (LLVM expands it so); if not, the lowering divides by constants with
    /// products itself.
    fn divides_by_constants(&self) -> bool {
        false
    }

    /// Whether the target computes in double-precision lanes ([`Self::D`]): exact math then
    /// computes EX2, LG2, SIN, COS and POW in the code (`libm.rs`), else it calls the host
    /// per lane.
    fn has_doubles(&self) -> bool {
        false
    }
    /// The exact function `f` of `args` (f32 lanes), where [`Self::has_doubles`], when the
    /// back end computes it by calling one copy of it: its results, the second the first
    /// again where `f` has one, which must be the bits the lowering would compute in place.
    /// `None` (the default): the lowering computes it in place (`libm.rs`).
    fn call_exact(&mut self, _f: ExactFn, _args: &[Self::V]) -> R<Option<[Self::V; 2]>> {
        Ok(None)
    }
    /// [`Self::call_exact`] where the code rarely needs it: accurate math's fallback for the
    /// arguments its own reduction does not reach, in a branch only steps with such a lane
    /// take. A back end that computes exact functions in place may call one out-of-line copy
    /// per module here instead (LLVM: it is the larger part of an accurate SIN or COS, and
    /// compiling it at every use made SIN-heavy shaders slow to compile).
    fn call_exact_rarely(&mut self, f: ExactFn, args: &[Self::V]) -> R<Option<[Self::V; 2]>> {
        self.call_exact(f, args)
    }
    /// Each lane of `a` (f32, read as the CPU reads it) as an f64, exactly.
    fn d_from_float(&mut self, _a: Self::V) -> R<Self::D> {
        Err(no_doubles())
    }
    /// Each lane of `a` (i32) as an f64, exactly.
    fn d_from_int(&mut self, _a: Self::V) -> R<Self::D> {
        Err(no_doubles())
    }
    /// Each lane rounded to f32 (to nearest; a result below 2⁻¹²⁶ flushed, as the code runs).
    fn d_to_float(&mut self, _a: Self::D) -> R<Self::V> {
        Err(no_doubles())
    }
    /// `x` in every lane.
    fn d_const(&mut self, _x: f64) -> R<Self::D> {
        Err(no_doubles())
    }
    /// `a + b`, `a − b`, `a · b` or (where [`Self::has_wide`]) `a / b`.
    fn d_bin(&mut self, _op: FBin, _a: Self::D, _b: Self::D) -> R<Self::D> {
        Err(no_doubles())
    }
    /// `a · b + c` with one rounding.
    fn d_fma(&mut self, _a: Self::D, _b: Self::D, _c: Self::D) -> R<Self::D> {
        Err(no_doubles())
    }
    /// Each lane rounded to the nearest integer, ties to even (`roundpd`: asked for only on
    /// hosts with fused multiply-add, which have SSE4.1).
    fn d_round_even(&mut self, _a: Self::D) -> R<Self::D> {
        Err(no_doubles())
    }
    /// Each lane truncated to i32 (every lane within i32's range).
    fn d_to_int(&mut self, _a: Self::D) -> R<Self::V> {
        Err(no_doubles())
    }
    /// `a < b` per lane, as a mask.
    fn d_lt(&mut self, _a: Self::D, _b: Self::D) -> R<Self::V> {
        Err(no_doubles())
    }
    /// `x` where the mask `m` is set, else `y`.
    fn d_select(&mut self, _m: Self::V, _x: Self::D, _y: Self::D) -> R<Self::D> {
        Err(no_doubles())
    }
    /// Lane `l` is `table[idx[l]]` (every index below the table's length).
    fn d_lookup(&mut self, _table: &'static [f64], _idx: Self::V) -> R<Self::D> {
        Err(no_doubles())
    }
    /// `a · 2^e[l]` in each lane by adding to its exponent field: exact while the result
    /// stays a normal double, as the caller ensures.
    fn d_scale(&mut self, _a: Self::D, _e: Self::V) -> R<Self::D> {
        Err(no_doubles())
    }

    // ---------------------------------------------------------------- 64-bit values

    /// Whether the target computes the IR's 64-bit values (`f64`, `i64`) in 64-bit lanes:
    /// [`Self::D`] holds them, doubles as they are and 64-bit integers by their bits.
    fn has_wide(&self) -> bool {
        false
    }
    /// Each lane's 64-bit value of the words `lo` and `hi` (i32 lanes).
    fn q_pack(&mut self, _lo: Self::V, _hi: Self::V) -> R<Self::D> {
        Err(no_wide())
    }
    /// Each lane's low word (`hi` false) or high word, as i32 lanes.
    fn q_word(&mut self, _a: Self::D, _hi: bool) -> R<Self::V> {
        Err(no_wide())
    }
    /// The 64 bits `bits` in every lane.
    fn q_const(&mut self, _bits: u64) -> R<Self::D> {
        Err(no_wide())
    }
    /// `op` on each f64 lane (`FUn::Neg` and `FUn::Abs` only touch the sign bit).
    fn d_un(&mut self, _op: FUn, _a: Self::D) -> R<Self::D> {
        Err(no_wide())
    }
    /// The comparison `cc` of f64 lanes, as a mask.
    fn d_cmp(&mut self, _cc: FCmp, _a: Self::D, _b: Self::D) -> R<Self::V> {
        Err(no_wide())
    }
    /// `op` on 64-bit integer lanes.
    fn q_bin(&mut self, _op: QBin, _a: Self::D, _b: Self::D) -> R<Self::D> {
        Err(no_wide())
    }
    /// Each 64-bit integer lane of `a` shifted by the lane of `n` (below 64).
    fn q_shift(&mut self, _op: Shift, _a: Self::D, _n: Self::D) -> R<Self::D> {
        Err(no_wide())
    }
    /// The comparison `cc` of 64-bit integer lanes, as a mask.
    fn q_cmp(&mut self, _cc: ICmp, _a: Self::D, _b: Self::D) -> R<Self::V> {
        Err(no_wide())
    }
    /// Each i32 lane extended to 64 bits, with its sign when `signed`.
    fn q_from_int(&mut self, _a: Self::V, _signed: bool) -> R<Self::D> {
        Err(no_wide())
    }
    /// Each lane of `a` (u32) as an f64, exactly.
    fn d_from_uint(&mut self, _a: Self::V) -> R<Self::D> {
        Err(no_wide())
    }
    /// Each f64 lane truncated to a 64-bit integer (every lane within i64's range).
    fn d_to_q(&mut self, _a: Self::D) -> R<Self::D> {
        Err(no_wide())
    }
    /// Each 64-bit integer lane (signed when `signed`) as an f64, rounded to nearest even.
    fn q_to_d(&mut self, _a: Self::D, _signed: bool) -> R<Self::D> {
        Err(no_wide())
    }
    /// Each 64-bit integer lane (signed when `signed`) as an f32, rounded to nearest even.
    fn q_to_float(&mut self, _a: Self::D, _signed: bool) -> R<Self::V> {
        Err(no_wide())
    }

    // ---------------------------------------------------------------- lane masks

    /// Whether any lane of `m` is set (a condition); by default, whether its bits are not 0.
    fn any(&mut self, m: Self::V) -> R<Self::S> {
        let bits = self.mask_bits(m)?;
        let zero = self.sconst(Scalar::I64, 0)?;
        self.scmp(false, bits, zero)
    }
    /// The lanes of `m` as the low bits of an i64, lane `l` in bit `l`.
    fn mask_bits(&mut self, m: Self::V) -> R<Self::S>;
    /// The mask of the low `lanes()` bits of the i64 `bits`.
    fn mask_from_bits(&mut self, bits: Self::S) -> R<Self::V>;

    // ---------------------------------------------------------------- scalars

    /// A constant of `ty`: an I32 or I64 of value `x`, or the F32 whose bits are `x`.
    fn sconst(&mut self, ty: Scalar, x: i64) -> R<Self::S>;
    /// Scalar integer arithmetic.
    fn sbin(&mut self, op: SBin, a: Self::S, b: Self::S) -> R<Self::S>;
    /// An unsigned (`ult`) or inequality (`!ult`: `a ≠ b`) comparison of integers: a condition.
    fn scmp(&mut self, ult: bool, a: Self::S, b: Self::S) -> R<Self::S>;
    /// `c ? a : b` of scalars of one type.
    fn sselect(&mut self, c: Self::S, a: Self::S, b: Self::S) -> R<Self::S>;
    /// I32 to I64 (`signed`: sign extension) or I64 to I32 (`to32`: truncation).
    fn sconvert(&mut self, a: Self::S, to: Scalar, signed: bool) -> R<Self::S>;

    // ---------------------------------------------------------------- memory

    /// The address `4·words` bytes after `base` (`words` an I64).
    fn word_addr(&mut self, base: Self::S, words: Self::S) -> R<Self::S>;
    /// A scalar of `ty` at `bytes` after `addr` (4-byte aligned).
    fn load(&mut self, ty: Scalar, addr: Self::S, bytes: i32) -> R<Self::S>;
    /// Stores the scalar `v` at `bytes` after `addr`.
    fn store(&mut self, addr: Self::S, bytes: i32, v: Self::S) -> R<()>;
    /// The lanes of a vector of `kind` from consecutive words at `addr`.
    fn load_vector(&mut self, kind: Kind, addr: Self::S) -> R<Self::V>;
    /// Stores `v`'s lanes as consecutive words at `addr` (a mask as words).
    fn store_vector(&mut self, addr: Self::S, v: Self::V) -> R<()>;
    /// The word indices of `words` (an I32 vector), lane by lane, zero-extended to I64 for
    /// [`Self::word_addr`]. By default an extraction per lane; x64 targets move two lanes at
    /// once through a 64-bit register and split them with a shift, as `pextrd` costs two
    /// µops a lane (measured on gltr_linearblur: `results/history/jit-2026-11-30.md`).
    fn lane_words(&mut self, words: Self::V) -> R<Vec<Self::S>> {
        (0..self.lanes())
            .map(|l| {
                let w = self.extract(words, l)?;
                self.sconvert(w, Scalar::I64, false)
            })
            .collect()
    }
    /// Lane `l` reads the word `words[l]` (an I32) after `base` (every one a valid address);
    /// by default one lane at a time ([`gather_lanes`]).
    fn gather(&mut self, kind: Kind, base: Self::S, words: Self::V) -> R<Self::V> {
        gather_lanes(self, kind, base, words)
    }
    /// Lane `l` reads the four consecutive words at `words[l]` after `base` (an RGBA texel):
    /// four F32 vectors, one per word. By default four gathers.
    fn gather4(&mut self, base: Self::S, words: Self::V) -> R<[Self::V; 4]> {
        let mut out = Vec::with_capacity(4);
        for c in 0..4 {
            let k = self.splat_const(Kind::I32, c)?;
            let w = self.ibin(IBin::Add, words, k)?;
            out.push(self.gather(Kind::F32, base, w)?);
        }
        Ok([out[0], out[1], out[2], out[3]])
    }
    /// Lane `l` writes `v[l]` to the word `words[l]` after `base` where `mask` is set (every
    /// address valid); `spare`, the address of a word nobody reads, may take the writes of
    /// lanes not in `mask`, as it does by default (one lane at a time).
    fn scatter(
        &mut self,
        base: Self::S,
        words: Self::V,
        v: Self::V,
        mask: Self::V,
        spare: Self::S,
    ) -> R<()> {
        scatter_lanes(self, base, words, v, mask, spare)
    }
    /// An atomic read-modify-write of the 32-bit word at `addr` (4-byte aligned) with the I32
    /// operand `a`: the old value. Relaxed ordering is enough (GL's atomics order nothing
    /// else); a target may order more.
    fn atomic_rmw(&mut self, op: AtomicOp, addr: Self::S, a: Self::S) -> R<Self::S>;
    /// An atomic compare-and-swap of the word at `addr` (4-byte aligned): stores `new` if it
    /// holds `expected`; the old value either way.
    fn atomic_cas(&mut self, addr: Self::S, expected: Self::S, new: Self::S) -> R<Self::S>;
    /// A stack area of `words` words for call operands and results, its address valid
    /// everywhere in the function (made once).
    fn stack_area(&mut self, words: usize) -> R<Self::S>;
    /// Calls `callee` with `args` (their types as the callee's signature says).
    fn call(&mut self, callee: Callee<Self::S>, args: &[Self::S]) -> R<()>;

    // ---------------------------------------------------------------- variables and blocks

    /// A new vector variable of `kind`.
    fn vector_var(&mut self, kind: Kind) -> R<Self::Var>;
    /// A new I64 variable.
    fn scalar_var(&mut self) -> R<Self::Var>;
    /// A new variable of 64-bit lanes ([`Self::D`]; only where [`Self::has_wide`]).
    fn wide_var(&mut self) -> R<Self::Var> {
        Err(no_wide())
    }
    /// Defines a variable of 64-bit lanes.
    fn def_wide(&mut self, _var: Self::Var, _v: Self::D) -> R<()> {
        Err(no_wide())
    }
    /// A variable of 64-bit lanes' value (its lanes as doubles).
    fn use_wide(&mut self, _var: Self::Var) -> R<Self::D> {
        Err(no_wide())
    }
    /// Defines a vector variable.
    fn def_vector(&mut self, var: Self::Var, v: Self::V) -> R<()>;
    /// A vector variable's value.
    fn use_vector(&mut self, var: Self::Var) -> R<Self::V>;
    /// Defines a scalar variable.
    fn def_scalar(&mut self, var: Self::Var, s: Self::S) -> R<()>;
    /// A scalar variable's value.
    fn use_scalar(&mut self, var: Self::Var) -> R<Self::S>;
    /// A new block.
    fn block(&mut self) -> R<Self::Block>;
    /// Continues in `b` (the current block has been terminated).
    fn switch_to(&mut self, b: Self::Block) -> R<()>;
    /// Ends the current block with a jump.
    fn jump(&mut self, to: Self::Block) -> R<()>;
    /// Ends the current block with a conditional branch.
    fn branch(&mut self, c: Self::S, then: Self::Block, otherwise: Self::Block) -> R<()>;
    /// Ends the entry block (the current one) with a jump to `to`; the builder may go on adding
    /// definitions that dominate the whole function (constants, stack slots) before it.
    fn end_entry(&mut self, to: Self::Block) -> R<()>;
    /// Ends the current block with the function's return.
    fn ret(&mut self) -> R<()>;
}

/// [`SimdBuilder::scatter`] a store a lane, in lane order, lanes off storing to `spare`.
pub fn scatter_lanes<B: SimdBuilder + ?Sized>(
    b: &mut B,
    base: B::S,
    words: B::V,
    v: B::V,
    mask: B::V,
    spare: B::S,
) -> R<()> {
    let v = b.cast(v, Kind::I32)?;
    for (l, w) in b.lane_words(words)?.into_iter().enumerate() {
        let a = b.word_addr(base, w)?;
        let m = b.extract(mask, l)?;
        let a = b.sselect(m, a, spare)?;
        let x = b.extract(v, l)?;
        b.store(a, 0, x)?;
    }
    Ok(())
}

/// [`SimdBuilder::gather`] one lane at a time: the word index ([`SimdBuilder::lane_words`]),
/// a load, an insertion.
pub fn gather_lanes<B: SimdBuilder + ?Sized>(
    b: &mut B,
    kind: Kind,
    base: B::S,
    words: B::V,
) -> R<B::V> {
    let ty = if kind == Kind::F32 {
        Scalar::F32
    } else {
        Scalar::I32
    };
    let mut acc = b.splat_const(kind, 0)?;
    for (l, w) in b.lane_words(words)?.into_iter().enumerate() {
        let a = b.word_addr(base, w)?;
        let x = b.load(ty, a, 0)?;
        acc = b.insert(acc, l, x)?;
    }
    Ok(acc)
}

/// The vector kind of an IR type.
pub fn kind(t: ir::Type) -> Kind {
    match t {
        ir::Type::F32 => Kind::F32,
        ir::Type::I32 => Kind::I32,
        ir::Type::Bool => Kind::Mask,
        // `back::compile` refuses functions with 64-bit values before any lowering.
        ir::Type::F64 | ir::Type::I64 => {
            unreachable!("64-bit values are refused before lowering (back::compile)")
        }
    }
}
