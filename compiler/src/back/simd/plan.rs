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

/// What one IR instruction of each kind weighs in [`work`]: SIN and COS (only accurate and
/// exact math keep them until the lowering) and, in exact math, EX2, LG2 and POW become
/// dozens of vector instructions each (the accurate SIN and COS about 50 with their
/// reduction), long chains of dependent arithmetic.
pub const TRANSCENDENTAL_WORK: usize = 40;

/// The length of `f`'s code, in IR instructions, with each SIN, COS, EX2, LG2 and POW that
/// reaches the lowering counted as [`TRANSCENDENTAL_WORK`].
pub fn work(f: &ir::Function) -> usize {
    use ir::{Binary, Op, Unary};
    let mut heavy = 0;
    f.for_each_inst(|i| {
        if matches!(
            f.insts[i].op,
            Op::Unary(Unary::FSin | Unary::FCos | Unary::FExp2 | Unary::FLg2)
                | Op::Binary(Binary::FPow)
        ) {
            heavy += 1;
        }
    });
    f.body.inst_count() + heavy * (TRANSCENDENTAL_WORK - 1)
}

/// The lanes per step a target with vectors of `width` lanes and `registers` vector registers
/// gives `f` when it may choose: twice its width (two steps interleaved, so that their
/// independent dependency chains overlap), else its width.
///
/// - A loop is interleaved when every value live at once ([`ir::pressure::max_live`]) still
///   fits the registers at two registers a value: loop-carried arithmetic is latency-bound,
///   and loops run up to twice as fast.
/// - Straight-line fragment shaders are interleaved as the target says (`straight`).
///   [`StraightLine::Arithmetic`] (LLVM): those with fewer than one texture lookup in
///   [`LOOKUP_GAP`] instructions, short ones whose [`work`] lies in a range and long ones. A
///   step of such a shader is chains of dependent arithmetic that the core cannot overlap
///   with the next step's, a whole function later. Measured over the mesa corpus (one
///   thread, 1024×1024, 2026-11-29), every fragment shader at twice the lanes against one
///   step: with AVX2 (16 registers of 8 lanes) 1.077x in geometric mean, up to 1.4x (toon,
///   film, starwipe, classic 2D noise; SIN and COS of large arguments 1.22x), short shaders
///   of 40 instructions too (TV static 1.19x), the losses all lookup-dense (sobel, a lookup
///   in 7 instructions, 0.83x; linear blur 0.90x; a lookup in 11 to 23 instructions
///   0.94–0.98x); with AVX-512's 32 registers of 16 lanes, gains on the long arithmetic
///   shaders (1.08–1.38x from 400 instructions: the noises, film grain, curl noise, motion
///   blur, markers) and a mix elsewhere (triangle blur, a lookup in 20 instructions, 0.74x;
///   short shaders 0.83–1.18x). What bounds the rule is compile time: twice the lanes take
///   1.3–2.1 times as long to compile, and an application's shaders of middling length are
///   the slow ones to compile (the etnaviv corpus: its p99, ~40 ms, is shaders of 200–550
///   instructions with their lookups). Interleaving every AVX2 shader of 32 to 250 (of
///   work) raised that p99 by 13% (median of five runs), to 200 by 1%; AVX-512 from 400
///   by 20%. So AVX2 interleaves short shaders (work from 32, at most 200 IR instructions)
///   and long ones (work from 800: the two longest etnaviv shaders, its max grows, not its
///   p99), AVX-512 long ones. Between, what costs compile time is lookups (etnaviv's
///   middling shaders have one in 16–40 instructions): shaders with fewer than one in
///   [`SPARSE_GAP`] (64) interleave from work 200 with AVX2 and 400 with AVX-512, which
///   left etnaviv's p99 as it was (AVX2, median of five alternating runs: 35.3 ms before,
///   34.6 after; one in 48 raised it 12%, from 400 with AVX-512 and one in 32 held it) and
///   gains 1.1–1.3x with AVX2 (classic 2D noise 1.32x, glitch displace 1.20x, markers
///   1.13x, easings 1.11x), with AVX-512 markers 1.5x, classic 2D noise 1.13x; the rest
///   keep one step (luminance melt, a lookup in 48, 1.25x with AVX2). The short bound counts
///   instructions, not work: since accurate math's exact fallback is compiled once per
///   module (`SimdBuilder::exact_rarely`), an accurate SIN or COS compiles in ~2 ms with
///   AVX2 (6.7 ms inline), so a short shader of several of them compiles at twice the lanes
///   in less time than it took at one step before (SIN and COS of large arguments, 5 of
///   them in 30 instructions: 27.5 ms then, 30.5 ms at 16 lanes now, 20 ms at 8) and gains
///   1.18–1.35x (starwipe, digital glitch, butterfly waves, perlin, tan_sin_cos, random
///   rotate).
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
                StraightLine::Arithmetic {
                    short,
                    sparse,
                    long,
                } => {
                    let (w, n) = (work(f), f.body.inst_count());
                    let lookups = crate::back::texpath::texture_ops(f).len();
                    let sized = short.is_some_and(|(lo, hi)| lo <= w && n <= hi) || w >= long;
                    (sized && LOOKUP_GAP * lookups < n) || (w >= sparse && SPARSE_GAP * lookups < n)
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
    /// Those with fewer than one texture lookup in [`LOOKUP_GAP`] IR instructions that are
    /// short (`short`: at least its first bound of [`work`], at most its second of IR
    /// instructions) or long (at least `long` of [`work`]), and those of at least `sparse`
    /// [`work`] with fewer than one lookup in [`SPARSE_GAP`] (LLVM: [`AVX2_STEPS`],
    /// [`AVX512_STEPS`]).
    Arithmetic {
        /// The short shaders interleaved: the least [`work`], the most IR instructions.
        short: Option<(usize, usize)>,
        /// The least [`work`] of the shaders with fewer than one lookup in [`SPARSE_GAP`]
        /// instructions interleaved.
        sparse: usize,
        /// The least [`work`] of the long shaders interleaved.
        long: usize,
    },
    /// Those with at most [`LIGHT_LIVE`] values live at once and fewer than
    /// [`LIGHT_LOOKUPS`] texture lookups (Cranelift).
    Light,
}

/// IR instructions per texture lookup, more than, in the straight-line code LLVM interleaves.
pub const LOOKUP_GAP: usize = 10;

/// IR instructions per texture lookup, more than, in the middling straight-line code LLVM
/// interleaves (`StraightLine::Arithmetic::sparse`).
pub const SPARSE_GAP: usize = 64;

/// LLVM's straight-line rule with AVX2 (16 registers of 8 lanes).
pub const AVX2_STEPS: StraightLine = StraightLine::Arithmetic {
    short: Some((32, 200)),
    sparse: 200,
    long: 800,
};

/// LLVM's straight-line rule with AVX-512 (32 registers of 16 lanes).
pub const AVX512_STEPS: StraightLine = StraightLine::Arithmetic {
    short: None,
    sparse: 400,
    long: 800,
};

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
