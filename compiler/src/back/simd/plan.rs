//! How many lanes a step of a function shades ([`step_lanes`]); the function a back end
//! compiles for a math mode is the pass manager's ([`crate::opt::math::for_math`]).

use crate::ir::{self, Stmt};

/// What one IR instruction of each kind weighs in [`work`]: SIN and COS (only accurate and
/// exact math keep them until the lowering) and, in exact math, EX2, LG2 and POW become
/// dozens of vector instructions each (the accurate SIN and COS about 50 with their
/// reduction), long chains of dependent arithmetic.
pub const TRANSCENDENTAL_WORK: usize = 40;

/// The length of `f`'s code, in IR instructions, with each SIN, COS, EX2, LG2 and POW that
/// reaches the lowering counted as [`TRANSCENDENTAL_WORK`].
pub fn work(f: &ir::Function) -> usize {
    f.body.inst_count() + transcendentals(f, true) * (TRANSCENDENTAL_WORK - 1)
}

/// How many of `f`'s instructions are SIN or COS, and with `all` also EX2, LG2 and POW.
fn transcendentals(f: &ir::Function, all: bool) -> usize {
    use ir::{Binary, Op, Unary};
    let mut n = 0;
    f.for_each_inst(|i| match f.insts[i].op {
        Op::Unary(Unary::FSin | Unary::FCos) => n += 1,
        Op::Unary(Unary::FExp2 | Unary::FLg2) | Op::Binary(Binary::FPow) if all => n += 1,
        _ => {}
    });
    n
}

/// The lanes per step a target with vectors of `width` lanes and `registers` vector registers
/// gives `f` when it may choose: twice its width (two steps interleaved, so that their
/// independent dependency chains overlap), four times it (LLVM's `SINCOS_STEPS`) for LLVM's
/// straight-line shaders with SIN or COS, else its width. Each back end's bounds are in its
/// target description (`cranelift/target.rs`, `llvm/target.rs`); `docs/jit.md` ("Batches")
/// says why.
///
/// - A loop is interleaved when every value live at once ([`ir::pressure::max_live`]) still
///   fits the registers at two registers a value: loop-carried arithmetic is latency-bound.
/// - Straight-line fragment shaders are interleaved as the target says (`straight`): a step
///   of such a shader is chains of dependent arithmetic that the core cannot overlap with the
///   next step's, a whole function later. What bounds each rule is compile time (twice the
///   lanes take up to twice as long to compile, and an application's slow-to-compile
///   shaders are the middling ones with their lookups) and, on Cranelift, spills.
///   - [`StraightLine::Arithmetic`] (LLVM): fewer than one texture lookup in [`LOOKUP_GAP`]
///     instructions and short or long [`work`]; or, of middling length, fewer than one
///     lookup in [`SPARSE_GAP`]. Below `long` work, a shader with a SIN or
///     COS and fewer than one lookup in [`LOOKUP_GAP`] (and fewer lookups than the target's
///     `sincos_lookups`) takes `sincos` steps: each
///     SIN and COS is a chain of some 30 dependent operations (reduction, polynomials,
///     quadrant) whose latency two steps do not hide, and the branches around it (the
///     reductions and the exact fallback run only in the steps that need them) are taken
///     once for four.
///   - [`StraightLine::Light`] (Cranelift, which does not schedule instructions): at most
///     `live` values live at once, and either at most `insts` instructions with fewer than
///     `lookups` lookups or fewer than one lookup in [`SPARSE_GAP`].
pub fn step_lanes(
    f: &ir::Function,
    width: usize,
    registers: usize,
    straight: StraightLine,
) -> usize {
    let steps = if has_loop(&f.body) {
        if 2 * ir::pressure::max_live(f) <= registers {
            2
        } else {
            1
        }
    } else if f.processor != crate::tgsi::Processor::Fragment {
        1
    } else {
        match straight {
            StraightLine::OneStep => 1,
            StraightLine::Arithmetic {
                short,
                sparse,
                long,
                sincos,
                sincos_lookups,
            } => {
                let (w, n) = (work(f), f.body.inst_count());
                let lookups = crate::back::texpath::texture_ops(f).len();
                let sized = short.is_some_and(|(lo, hi)| lo <= w && n <= hi) || w >= long;
                let circular = w < long && LOOKUP_GAP * lookups < n;
                let sines = circular && lookups < sincos_lookups && transcendentals(f, false) > 0;
                if let Some(steps) = sincos.filter(|_| sines) {
                    steps
                } else if (sized && LOOKUP_GAP * lookups < n)
                    || (w >= sparse && SPARSE_GAP * lookups < n)
                {
                    2
                } else {
                    1
                }
            }
            StraightLine::Light {
                insts,
                live,
                lookups: few,
            } => {
                let n = f.body.inst_count();
                let lookups = crate::back::texpath::texture_ops(f).len();
                let light = ir::pressure::max_live(f) <= live
                    && ((n <= insts && lookups < few) || SPARSE_GAP * lookups < n);
                if light { 2 } else { 1 }
            }
        }
    };
    steps * width
}

/// Which straight-line fragment shaders a target interleaves two steps of ([`step_lanes`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StraightLine {
    /// None.
    OneStep,
    /// Those with fewer than one texture lookup in [`LOOKUP_GAP`] IR instructions that are
    /// short (`short`: at least its first bound of [`work`], at most its second of IR
    /// instructions) or long (at least `long` of [`work`]), and those of at least `sparse`
    /// [`work`] with fewer than one lookup in [`SPARSE_GAP`] (LLVM's rules:
    /// `back/llvm/target.rs`). Those of less than `long` work with a SIN or COS and fewer than one
    /// lookup in [`LOOKUP_GAP`] take `sincos` steps where it is given.
    Arithmetic {
        /// The short shaders interleaved: the least [`work`], the most IR instructions.
        short: Option<(usize, usize)>,
        /// The least [`work`] of the shaders with fewer than one lookup in [`SPARSE_GAP`]
        /// instructions interleaved.
        sparse: usize,
        /// The least [`work`] of the long shaders interleaved.
        long: usize,
        /// The steps of a shader of less than `long` work with a SIN or COS and fewer than
        /// one lookup in [`LOOKUP_GAP`] instructions; `None`: as other code.
        sincos: Option<usize>,
        /// Texture lookups from which a shader with SIN or COS takes the other rules rather
        /// than `sincos` steps.
        sincos_lookups: usize,
    },
    /// Those with at most `live` values live at once that are short (at most `insts` IR
    /// instructions, fewer than `lookups` texture lookups) or have fewer than one lookup in
    /// [`SPARSE_GAP`] instructions (Cranelift's rule: `back/cranelift/target.rs`).
    Light {
        /// IR instructions of the short shaders interleaved, at most.
        insts: usize,
        /// Values live at once, at most.
        live: usize,
        /// Texture lookups of the short shaders interleaved, fewer than.
        lookups: usize,
    },
}

/// IR instructions per texture lookup, more than, in the straight-line code LLVM interleaves.
pub const LOOKUP_GAP: usize = 10;

/// IR instructions per texture lookup, more than, in the middling straight-line code LLVM
/// interleaves (`StraightLine::Arithmetic::sparse`) and in the longer code Cranelift does
/// (`StraightLine::Light`).
pub const SPARSE_GAP: usize = 64;

/// Whether this machine has a vector fused multiply-add ([`crate::numerics::host_fma`]).
pub fn host_fma() -> bool {
    crate::numerics::host_fma()
}

/// Whether a block holds a loop, at any depth.
pub(super) fn has_loop(b: &ir::Block) -> bool {
    b.0.iter().any(|s| match s {
        Stmt::Loop(_) => true,
        Stmt::If(x) => has_loop(&x.then_) || has_loop(&x.else_),
        _ => false,
    })
}

/// Whether a block only passes values on (`break`, `continue`, `yield`), with no instruction.
pub(super) fn jumps_only(b: &ir::Block) -> bool {
    b.0.iter()
        .all(|s| matches!(s, Stmt::Break(_) | Stmt::Continue(_) | Stmt::Yield(_)))
}
