//! Integer operations x86 has no vector instruction for, in vector code: division and
//! remainder (in double-precision lanes, or by a constant with a multiply-high and shifts),
//! bit fields, the most significant bit, F2U, and shifts with the interpreter's rules for
//! amounts of 32 and more.

use super::builder::{FBin, IBin, Kind, Optional, R, Shift, SimdBuilder};
use super::lower::Lower;
use crate::ir::{Binary, FCmp, ICmp};

/// `i32::MIN`'s bits: what x86's conversions give for NaN and out of range.
const I32_MIN: u32 = 0x8000_0000;

impl<B: SimdBuilder> Lower<'_, B> {
    /// `v == 0 ? −1 : r`.
    pub(super) fn minus_one_if_zero(&mut self, v: B::V, r: B::V) -> R<B::V> {
        let zero = self.iconst(0)?;
        let z = self.b.icmp(ICmp::Eq, v, zero)?;
        let m1 = self.iconst(u32::MAX)?;
        self.b.select(z, m1, r)
    }

    /// The highest set bit of `v` (−1 for 0).
    pub(super) fn umsb(&mut self, v: B::V) -> R<B::V> {
        let lz = self.b.optional(Optional::Ctlz, &[v])?;
        let r = self.ik(IBin::Xor, lz, 31)?; // 31 − lz for lz ≤ 31
        self.minus_one_if_zero(v, r)
    }

    /// F2U as [`crate::numerics::f2u`] computes it: from 2³¹ up, `x − 2³¹` converted with
    /// its top bit flipped; below, `x` converted (x86's conversion gives 0x80000000 for NaN
    /// and out of range, as the rule wants). Four instructions, no branch.
    pub(super) fn f2u(&mut self, a: B::V) -> R<B::V> {
        let two31 = self.b.splat_const(Kind::F32, 2_147_483_648f32.to_bits())?;
        let big = self.b.fcmp(FCmp::Ge, a, two31)?;
        let less = self.b.fbin(FBin::Sub, a, two31)?;
        let t = self.b.select(big, less, a)?;
        let r = self.b.float_to_int(t)?;
        let top = self.iconst(I32_MIN)?;
        let z = self.iconst(0)?;
        let flip = self.b.select(big, top, z)?;
        self.b.ibin(IBin::Xor, r, flip)
    }

    /// Shift amounts: the low 5 bits.
    pub(super) fn amount(&mut self, v: B::V) -> R<B::V> {
        self.ik(IBin::And, v, 31)
    }

    pub(super) fn shift(&mut self, op: Shift, a: B::V, n: B::V) -> R<B::V> {
        self.b.optional(Optional::Shift(op), &[a, n])
    }

    /// Integer division and remainder with the interpreter's results for a zero divisor (and
    /// `INT_MIN / −1`), the divisor made safe first. A constant divisor (`by_constant`: here
    /// only those [`Self::divide_by_constant`] leaves, 0 and −1) stays the target's division.
    pub(super) fn divide(&mut self, op: Binary, a: B::V, c: B::V, by_constant: bool) -> R<B::V> {
        let zero = self.iconst(0)?;
        let z = self.b.icmp(ICmp::Eq, c, zero)?;
        let signed = matches!(op, Binary::IDivS | Binary::IRemS);
        let bad = if signed {
            let k = self.iconst(I32_MIN)?;
            let min = self.b.icmp(ICmp::Eq, a, k)?;
            let k = self.iconst(u32::MAX)?;
            let m1 = self.b.icmp(ICmp::Eq, c, k)?;
            let ov = self.b.ibin(IBin::And, min, m1)?;
            self.b.ibin(IBin::Or, z, ov)?
        } else {
            z
        };
        // INT_MIN / 1 = INT_MIN and INT_MIN % 1 = 0: what −1 gives, without the overflow.
        let one = self.iconst(1)?;
        let d = self.b.select(bad, one, c)?;
        let rem = matches!(op, Binary::IRemS | Binary::IRemU);
        let r = if self.b.has_doubles() && !by_constant {
            self.divide_in_doubles(signed, rem, a, d)?
        } else {
            self.b.optional(Optional::Div { signed, rem }, &[a, d])?
        };
        let on_zero = self.iconst(if op == Binary::IDivS { 0 } else { u32::MAX })?;
        self.b.select(z, on_zero, r)
    }

    /// Division and remainder by the constant `k` as products: the quotient of unsigned
    /// words by a multiply-high and shifts ([`udiv_magic`]), a signed one from the quotient
    /// of the magnitudes, the remainder `a − q·k` (wrapping). Cranelift would otherwise divide
    /// lane by lane (`div`, tens of cycles each). `None` where the target divides by
    /// constants with products itself ([`SimdBuilder::divides_by_constants`]: LLVM) or has no
    /// vector multiply-high, and for the divisors with the interpreter's special results (0;
    /// −1 when signed, for `INT_MIN / −1`), which [`Self::divide`] handles.
    pub(super) fn divide_by_constant(&mut self, op: Binary, a: B::V, k: u32) -> R<Option<B::V>> {
        let signed = matches!(op, Binary::IDivS | Binary::IRemS);
        if k == 0
            || (signed && k == u32::MAX)
            || self.b.divides_by_constants()
            || !self.b.supports(Optional::MulHigh { signed: false })
        {
            return Ok(None);
        }
        let d = if signed { (k as i32).unsigned_abs() } else { k };
        let x = if signed { self.b.iabs(a)? } else { a };
        let mut q = self.udiv_by(x, d)?;
        if signed {
            // The quotient truncates: negative where exactly one operand is.
            let zero = self.iconst(0)?;
            let nq = self.b.ibin(IBin::Sub, zero, q)?;
            let neg = self.b.icmp(ICmp::SLt, a, zero)?;
            let (pos, negd) = if (k as i32) < 0 { (nq, q) } else { (q, nq) };
            q = self.b.select(neg, negd, pos)?;
        }
        if matches!(op, Binary::IRemS | Binary::IRemU) {
            let qk = self.ik(IBin::Mul, q, k)?;
            q = self.b.ibin(IBin::Sub, a, qk)?;
        }
        Ok(Some(q))
    }

    /// `x / d` of unsigned words for a constant `d` ≥ 1: a shift for a power of two, else a
    /// multiply-high and shifts ([`udiv_magic`]).
    pub(super) fn udiv_by(&mut self, x: B::V, d: u32) -> R<B::V> {
        if d.is_power_of_two() {
            return match d.trailing_zeros() {
                0 => Ok(x),
                s => self.b.shift_imm(Shift::ShrU, x, s),
            };
        }
        let (m, s, add) = udiv_magic(d);
        let mk = self.iconst(m)?;
        let t = self
            .b
            .optional(Optional::MulHigh { signed: false }, &[x, mk])?;
        if !add {
            return self.b.shift_imm(Shift::ShrU, t, s);
        }
        let u = self.b.ibin(IBin::Sub, x, t)?;
        let u = self.b.shift_imm(Shift::ShrU, u, 1)?;
        let u = self.b.ibin(IBin::Add, u, t)?;
        self.b.shift_imm(Shift::ShrU, u, s)
    }

    /// `a / d` (`a % d` when `rem`) for a safe divisor (not 0, and not −1 with `a` = INT_MIN
    /// when `signed`), through double-precision lanes: a vector has no integer division, and
    /// one lane at a time it costs a `div` each. Both operands are exact as doubles, and the
    /// rounded quotient truncates to the integer quotient: a quotient k − ε of integers below
    /// 2³² has ε ≥ 1/d ≥ k·2⁻³², far above the quotient's rounding (k·2⁻⁵³), so rounding never
    /// reaches the integer. The remainder is `a − q·d` (wrapping).
    pub(super) fn divide_in_doubles(
        &mut self,
        signed: bool,
        rem: bool,
        a: B::V,
        d: B::V,
    ) -> R<B::V> {
        // Unsigned words as doubles: the signed value of `x ^ 2³¹`, plus 2³¹.
        let to_double = |s: &mut Self, x: B::V| -> R<B::D> {
            if signed {
                return s.b.d_from_int(x);
            }
            let k = s.iconst(I32_MIN)?;
            let x = s.b.ibin(IBin::Xor, x, k)?;
            let x = s.b.d_from_int(x)?;
            let k = s.b.d_const(2_147_483_648.0)?;
            s.b.d_bin(FBin::Add, x, k)
        };
        let (ad, dd) = (to_double(self, a)?, to_double(self, d)?);
        let qd = self.b.d_bin(FBin::Div, ad, dd)?;
        // Truncated to i32: every signed quotient fits (INT_MIN / −1 was made safe); an
        // unsigned one is below 2³¹ unless d = 1, where it is a itself.
        let mut q = self.b.d_to_int(qd)?;
        if !signed {
            let one = self.iconst(1)?;
            let by_one = self.b.icmp(ICmp::Eq, d, one)?;
            q = self.b.select(by_one, a, q)?;
        }
        if !rem {
            return Ok(q);
        }
        let qd = self.b.ibin(IBin::Mul, q, d)?;
        self.b.ibin(IBin::Sub, a, qd)
    }

    /// UBFE and IBFE as tgsi_exec: `(v << (32 − w − o)) >> (32 − w)` when `w + o < 32`,
    /// `v >> o` otherwise, 0 for `w = 0` (offset and width use their low 5 bits).
    pub(super) fn bitfield_extract(
        &mut self,
        signed: bool,
        v: B::V,
        off: B::V,
        bits: B::V,
    ) -> R<B::V> {
        let w = self.amount(bits)?;
        let o = self.amount(off)?;
        let shr = if signed { Shift::ShrS } else { Shift::ShrU };
        let wo = self.b.ibin(IBin::Add, w, o)?;
        let k32 = self.iconst(32)?;
        let l = self.b.ibin(IBin::Sub, k32, wo)?;
        let l = self.amount(l)?;
        let r = self.b.ibin(IBin::Sub, k32, w)?;
        let r = self.amount(r)?;
        let up = self.shift(Shift::Shl, v, l)?;
        let inside = self.shift(shr, up, r)?;
        let tail = self.shift(shr, v, o)?;
        let fits = self.b.icmp(ICmp::ULt, wo, k32)?;
        let x = self.b.select(fits, inside, tail)?;
        let zero = self.iconst(0)?;
        let w0 = self.b.icmp(ICmp::Eq, w, zero)?;
        self.b.select(w0, zero, x)
    }

    /// BFI as tgsi_exec.
    pub(super) fn bitfield_insert(
        &mut self,
        base: B::V,
        ins: B::V,
        off: B::V,
        bits: B::V,
    ) -> R<B::V> {
        let w = self.amount(bits)?;
        let o = self.amount(off)?;
        let one = self.iconst(1)?;
        let ones = self.shift(Shift::Shl, one, w)?;
        let ones = self.b.ibin(IBin::Sub, ones, one)?;
        let mask = self.shift(Shift::Shl, ones, o)?;
        let i = self.shift(Shift::Shl, ins, o)?;
        let i = self.b.ibin(IBin::And, i, mask)?;
        let k = self.b.ibin(IBin::AndNot, base, mask)?;
        self.b.ibin(IBin::Or, i, k)
    }
}

/// The multiplier `m`, the shift `s` and whether to add back for unsigned 32-bit division by
/// `d` (≥ 3, not a power of two), with ℓ = ⌈log₂ d⌉ (Granlund and Montgomery, "Division by
/// invariant integers using multiplication", 1994):
/// - `m` = ⌈2^(31+ℓ) / d⌉ where it is below 2³² and its error m·d − 2^(31+ℓ) is at most
///   2^(ℓ−1): then ⌊x / d⌋ = hi(x·m) >> (ℓ − 1) for every x below 2³² (their theorem 4.2);
/// - else `m` = ⌊2³²·(2^ℓ − d) / d⌋ + 1 and, with t = hi(x·m), ⌊x / d⌋ =
///   (t + ((x − t) >> 1)) >> (ℓ − 1) (their figure 4.1), `add`.
fn udiv_magic(d: u32) -> (u32, u32, bool) {
    debug_assert!(d >= 3 && !d.is_power_of_two());
    let l = 32 - (d - 1).leading_zeros();
    let d64 = u128::from(d);
    let m = (1u128 << (31 + l)).div_ceil(d64);
    if m < 1 << 32 && m * d64 - (1u128 << (31 + l)) <= 1 << (l - 1) {
        return (m as u32, l - 1, false);
    }
    let m = ((1u128 << 32) * ((1u128 << l) - d64)) / d64 + 1;
    (m as u32, l - 1, true)
}
