//! The math-mode rewrites a back end's function gets after the optimizer ([`super::optimize`]),
//! in their order: the pass manager's schedule for each [`MathMode`].

use crate::back::abi::MathMode;
use crate::ir::Function;
use std::borrow::Cow;

/// The function a back end compiles for `math`, from the optimized `f`: `f` itself in exact
/// mode; in accurate mode, `f` with EX2, LG2 and POW expanded into [`fast_math`](super::fast_math)'s
/// approximations (SIN and COS stay, for the lowering's accurate ones), their polynomials
/// fused where `fma` (the host has fused multiply-add); in fast mode, `f` with its
/// transcendental functions expanded into [`fast_math`](super::fast_math)'s approximations, its divisions by
/// constants and shared divisors made products with reciprocals ([`reciprocal`](super::reciprocal)), then with
/// `fma` its multiply-adds fused ([`contract`](super::contract)), and what that leaves dead removed. Every
/// engine that runs a math mode runs this function, so they compute the same bits.
pub fn for_math(f: &Function, math: MathMode, fma: bool) -> Cow<'_, Function> {
    match math {
        MathMode::Exact => Cow::Borrowed(f),
        MathMode::Accurate => {
            let mut g = f.clone();
            if super::fast_math::run_except_sincos(&mut g, fma) {
                Cow::Owned(g)
            } else {
                Cow::Borrowed(f)
            }
        }
        MathMode::Fast => {
            let mut g = f.clone();
            super::fast_math::run(&mut g);
            let mut dead = super::reciprocal::run(&mut g);
            dead |= fma && super::contract::run(&mut g);
            if dead {
                super::dce::run(&mut g);
            }
            Cow::Owned(g)
        }
    }
}
