//! The interpreter's float numerics: [`tgsic::numerics`]'s, which compute as softpipe's draws
//! do (DAZ/FTZ), or, while a compute dispatch runs on this thread, IEEE arithmetic with
//! denormal operands and results kept, as softpipe runs compute programs (their machines run
//! without FTZ: `docs/semantics.md`, "Memory and work groups"). NaN results stay canonical in
//! both modes. Everything else is `tgsic::numerics`'s, re-exported.

pub use tgsic::numerics::*;

use std::cell::Cell;
use tgsic::numerics as ftz_mode;

thread_local! {
    static IEEE: Cell<bool> = const { Cell::new(false) };
}

/// Keeps IEEE numerics on the current thread until dropped (then the mode before comes back).
pub(super) struct IeeeGuard(bool);

impl Drop for IeeeGuard {
    fn drop(&mut self) {
        IEEE.with(|m| m.set(self.0));
    }
}

/// IEEE numerics on this thread while the guard lives, when `ieee`.
pub(super) fn ieee_while(ieee: bool) -> IeeeGuard {
    IeeeGuard(IEEE.with(|m| m.replace(ieee)))
}

#[inline]
fn ieee() -> bool {
    IEEE.with(Cell::get)
}

/// Whether denormals are flushed on this thread (draws: yes; compute dispatches: no).
#[inline]
pub fn flushes() -> bool {
    !ieee()
}

/// A float from register bits (denormals read as zero, but in IEEE mode).
#[inline]
pub fn f(bits: u32) -> f32 {
    if ieee() {
        f32::from_bits(bits)
    } else {
        ftz_mode::f(bits)
    }
}

/// Register bits of a float result (denormals flushed, but in IEEE mode); NaN canonical.
#[inline]
pub fn b(x: f32) -> u32 {
    if !ieee() {
        ftz_mode::b(x)
    } else if x.is_nan() {
        CANONICAL_NAN
    } else {
        x.to_bits()
    }
}

/// A denormal flushed to zero (but in IEEE mode).
#[inline]
pub fn ftz(x: f32) -> f32 {
    if ieee() { x } else { ftz_mode::ftz(x) }
}

/// An f64 rounded to f32 (tiny results flushed, but in IEEE mode).
#[inline]
pub fn round_ftz(d: f64) -> f32 {
    if ieee() {
        d as f32
    } else {
        ftz_mode::round_ftz(d)
    }
}

/// `x · y`.
#[inline]
pub fn mul(x: f32, y: f32) -> f32 {
    if ieee() { x * y } else { ftz_mode::mul(x, y) }
}

/// `x / y`.
#[inline]
pub fn div(x: f32, y: f32) -> f32 {
    if ieee() { x / y } else { ftz_mode::div(x, y) }
}

/// Fused `x · y + z`.
#[inline]
pub fn fma(x: f32, y: f32, z: f32) -> f32 {
    if ieee() {
        x.mul_add(y, z)
    } else {
        ftz_mode::fma(x, y, z)
    }
}

/// LG2 = logf(x) · 1.442695f.
#[inline]
pub fn lg2(x: f32) -> f32 {
    mul(ftz(libm::ln(x)), LG2_FACTOR)
}

/// The C library's float functions: under DAZ/FTZ, or as they are in IEEE mode (std's
/// methods call the same functions of the C library).
pub mod libm {
    use super::{ftz_mode, ieee};

    /// `sinf`.
    pub fn sin(x: f32) -> f32 {
        if ieee() {
            x.sin()
        } else {
            ftz_mode::libm::sin(x)
        }
    }
    /// `cosf`.
    pub fn cos(x: f32) -> f32 {
        if ieee() {
            x.cos()
        } else {
            ftz_mode::libm::cos(x)
        }
    }
    /// `exp2f`.
    pub fn exp2(x: f32) -> f32 {
        if ieee() {
            x.exp2()
        } else {
            ftz_mode::libm::exp2(x)
        }
    }
    /// `logf`.
    pub fn ln(x: f32) -> f32 {
        if ieee() {
            x.ln()
        } else {
            ftz_mode::libm::ln(x)
        }
    }
    /// `powf`.
    pub fn pow(x: f32, y: f32) -> f32 {
        if ieee() {
            x.powf(y)
        } else {
            ftz_mode::libm::pow(x, y)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compute_keeps_denormals_draws_flush_them() {
        let tiny = 1.0e-40f32;
        assert_eq!(f(tiny.to_bits()), 0.0);
        assert_eq!(mul(1.0e-20, 1.0e-20), 0.0);
        {
            let _g = ieee_while(true);
            assert_eq!(f(tiny.to_bits()), tiny);
            assert_eq!(b(tiny), tiny.to_bits());
            assert_eq!(mul(1.0e-20, 1.0e-20), 1.0e-40);
            assert_eq!(b(f32::NAN), CANONICAL_NAN);
        }
        assert_eq!(b(tiny), 0);
    }
}
