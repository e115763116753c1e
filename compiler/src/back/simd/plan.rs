//! What a back end compiles, before the lowering: the function for a math mode ([`prepare`])
//! and the lanes of a step ([`step_lanes`]).

use super::has_loop;
use crate::back::abi::MathMode;
use crate::ir;
use std::borrow::Cow;

/// The function a back end compiles for `math`: `f` itself in exact mode; in accurate mode,
/// `f` with EX2, LG2 and POW expanded into [`crate::opt::fast_math`]'s approximations (SIN and
/// COS stay, for the lowering's accurate ones), their polynomials fused where the host has
/// fused multiply-add ([`host_fma`]); with fast math, `f`
/// with its transcendental functions expanded into the approximations of
/// [`crate::opt::fast_math`], its divisions by constants and shared divisors made products
/// with reciprocals ([`crate::opt::reciprocal`]), then, when the host has fused multiply-add
/// ([`host_fma`]), its multiply-adds fused ([`crate::opt::contract`]). Every engine that runs
/// fast math runs this function, so they compute the same bits.
pub fn prepare(f: &ir::Function, math: MathMode) -> Cow<'_, ir::Function> {
    match math {
        MathMode::Exact => Cow::Borrowed(f),
        MathMode::Accurate => {
            let mut g = f.clone();
            if crate::opt::fast_math::run_except_sincos(&mut g, host_fma()) {
                Cow::Owned(g)
            } else {
                Cow::Borrowed(f)
            }
        }
        MathMode::Fast => {
            let mut g = f.clone();
            crate::opt::fast_math::run(&mut g);
            let mut dead = crate::opt::reciprocal::run(&mut g);
            dead |= host_fma() && crate::opt::contract::run(&mut g);
            if dead {
                crate::opt::dce::run(&mut g);
            }
            Cow::Owned(g)
        }
    }
}

/// Straight-line functions at least this long (IR instructions, after [`prepare`]) are
/// [interleaved](step_lanes) where the target asks for it.
pub const INTERLEAVE_INSTS: usize = 800;

/// The lanes per step a target with vectors of `width` lanes and `registers` vector registers
/// gives `f` when it may choose: twice its width (two steps interleaved, so that their
/// independent dependency chains overlap), else its width.
///
/// - A loop is interleaved when every value live at once ([`ir::pressure::max_live`]) still
///   fits the registers at two registers a value: loop-carried arithmetic is latency-bound,
///   and loops run up to twice as fast.
/// - Straight-line code is interleaved only where the target asks (`interleave_long`: LLVM
///   with AVX2's 16 registers of 8 lanes), in fragment shaders of at least
///   [`INTERLEAVE_INSTS`] instructions with fewer than one texture lookup in 20. A step of
///   such a shader is long chains of dependent arithmetic that the core cannot overlap with
///   the next step, a whole function later; two steps at once ran 5–20% faster on the mesa
///   corpus's long shaders despite the spills (film grain, noise, curl noise, motion blur,
///   glitch), while lookup-dense ones ran up to 12% slower (gltr_linearblur, a lookup in 5.5
///   instructions: its lane-by-lane loads gain nothing from the overlap). Twice the lanes
///   take 1.3–1.8 times as long to compile, so shorter shaders keep one step (all but two
///   fragment shaders of the etnaviv corpus have at most 530 instructions, and its p99
///   compile time holds), though ALU shaders from 500 instructions gained 8–13% too. With
///   AVX-512's 32 registers the gains were mixed (−12% to +9%), so it keeps one step.
/// - Cranelift (`StraightLine::Light`), which does not schedule instructions, interleaves
///   straight-line fragment shaders of at most [`LIGHT_INSTS`] instructions with at most
///   [`LIGHT_LIVE`] values live at once and fewer than [`LIGHT_LOOKUPS`] texture lookups:
///   two 128-bit steps at once ran 9% faster over the mesa corpus (up to 1.4x: toon, film,
///   starwipe, kaleidoscope), but the shaders with more live values spill (classic 3D noise
///   1.5x slower, curl noise 12%), lookup-dense ones gain nothing (linearblur 24% slower),
///   and longer ones take up to 1.5 times as long to compile (etnaviv p99 +40% without the
///   length bound; with it, median +5% and p99 within 5%).
pub fn step_lanes(
    f: &ir::Function,
    width: usize,
    registers: usize,
    straight: StraightLine,
) -> usize {
    let twice = if has_loop(&f.body) {
        2 * ir::pressure::max_live(f) <= registers
    } else {
        f.processor == crate::tgsi::Processor::Fragment
            && match straight {
                StraightLine::OneStep => false,
                StraightLine::Long => {
                    let insts = f.body.inst_count();
                    insts >= INTERLEAVE_INSTS
                        && 20 * crate::back::texpath::texture_ops(f).len() < insts
                }
                StraightLine::Light => {
                    f.body.inst_count() <= LIGHT_INSTS
                        && ir::pressure::max_live(f) <= LIGHT_LIVE
                        && crate::back::texpath::texture_ops(f).len() < LIGHT_LOOKUPS
                }
            }
    };
    if twice { 2 * width } else { width }
}

/// Which straight-line fragment shaders a target interleaves two steps of ([`step_lanes`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StraightLine {
    /// None.
    OneStep,
    /// Long ones with few texture lookups (LLVM with AVX2).
    Long,
    /// Those with at most [`LIGHT_LIVE`] values live at once and fewer than
    /// [`LIGHT_LOOKUPS`] texture lookups (Cranelift).
    Light,
}

/// Instructions up to which Cranelift interleaves straight-line code.
pub const LIGHT_INSTS: usize = 250;
/// Values live at once up to which Cranelift interleaves straight-line code.
pub const LIGHT_LIVE: usize = 40;
/// Texture lookups below which Cranelift interleaves straight-line code.
pub const LIGHT_LOOKUPS: usize = 16;

/// Whether this machine has a vector fused multiply-add ([`crate::numerics::host_fma`]).
pub fn host_fma() -> bool {
    crate::numerics::host_fma()
}
