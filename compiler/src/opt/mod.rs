//! The optimizer: passes over the IR, one per file, each keeping the function valid and its
//! results bit-identical, and a pass manager ([`optimize`]) with three levels.
//!
//! | level | passes (repeated until nothing changes, at most [`MAX_ROUNDS`] rounds) |
//! |-------|--------------------------------------------------------------------------|
//! | `-O0` | none (the lifted IR, compacted) |
//! | `-O1` | constant folding, algebraic simplification, copy propagation, dead-code elimination |
//! | `-O2` | `-O1` plus value numbering, merge retyping, if-conversion and loop-invariant code motion |
//!
//! After them, a back end compiles the function its math mode calls for ([`math::for_math`]):
//! the math-mode rewrites' schedule, once for every back end.

pub mod compact;
pub mod const_fold;
pub mod contract;
pub mod copy_prop;
pub mod dce;
pub mod fast_math;
pub mod gvn;
pub mod if_convert;
pub mod licm;
pub mod math;
pub mod reciprocal;
pub mod retype;
pub mod simplify;
pub mod util;

use crate::ir::Function;
use std::time::{Duration, Instant};

/// How hard to optimize.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum OptLevel {
    /// No optimization.
    O0,
    /// Cheap local cleanups.
    O1,
    /// Everything.
    #[default]
    O2,
}

/// Rounds of the pass pipeline at most.
pub const MAX_ROUNDS: usize = 16;

/// What one pass did over a whole optimization.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PassStats {
    /// The pass.
    pub name: &'static str,
    /// Rounds in which it changed the function.
    pub changed: u32,
    /// Time spent in it.
    pub time: Duration,
}

/// What [`optimize`] did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OptStats {
    /// Instructions before ([`Function::count`]).
    pub before: usize,
    /// Instructions after.
    pub after: usize,
    /// Rounds of the pipeline run.
    pub rounds: usize,
    /// Per pass.
    pub passes: Vec<PassStats>,
}

type Pass = (&'static str, fn(&mut Function) -> bool);

const O1: &[Pass] = &[
    ("const_fold", const_fold::run),
    ("simplify", simplify::run),
    ("copy_prop", copy_prop::run),
    ("dce", dce::run),
];

const O2: &[Pass] = &[
    ("const_fold", const_fold::run),
    ("simplify", simplify::run),
    ("copy_prop", copy_prop::run),
    ("gvn", gvn::run),
    ("retype", retype::run),
    ("if_convert", if_convert::run),
    ("licm", licm::run),
    ("dce", dce::run),
];

/// Optimizes `f` at `level`; the result is compacted ([`compact::compact`]). The function
/// keeps verifying and computing the same bits.
pub fn optimize(f: &mut Function, level: OptLevel) -> OptStats {
    let mut stats = OptStats {
        before: f.count(),
        ..OptStats::default()
    };
    let passes: &[Pass] = match level {
        OptLevel::O0 => &[],
        OptLevel::O1 => O1,
        OptLevel::O2 => O2,
    };
    stats.passes = passes
        .iter()
        .map(|(name, _)| PassStats {
            name,
            changed: 0,
            time: Duration::ZERO,
        })
        .collect();
    for _ in 0..MAX_ROUNDS {
        if passes.is_empty() {
            break;
        }
        stats.rounds += 1;
        let mut any = false;
        for (k, (_, pass)) in passes.iter().enumerate() {
            let t = Instant::now();
            let changed = pass(f);
            stats.passes[k].time += t.elapsed();
            if changed {
                stats.passes[k].changed += 1;
                any = true;
            }
            #[cfg(debug_assertions)]
            if let Err(e) = crate::ir::verify::verify(f) {
                panic!("{} broke the IR: {}", passes[k].0, e[0]);
            }
        }
        if !any {
            break;
        }
    }
    *f = compact::compact(f);
    stats.after = f.count();
    stats
}

/// TGSI text lifted and optimized at `-O2`, for tests.
#[cfg(test)]
pub(crate) fn optimized_text(src: &str) -> Function {
    let p = crate::front::text::parse(src).expect("parses");
    let mut f = crate::ir::lift::lift(&p).expect("lifts");
    optimize(&mut f, OptLevel::O2);
    f
}

#[cfg(test)]
mod tests {
    use super::{OptLevel, optimize};

    /// The pipeline with `retype`: a float accumulated in an integer-typed register is a float.
    #[test]
    fn an_integer_typed_float_accumulator_becomes_a_float() {
        let p = crate::front::text::parse(
            "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL CONST[0][0]\nDCL TEMP[0..2]\n\
             IMM[0] UINT32 {0, 1, 5, 0}\nMOV TEMP[1].x, IMM[0].xxxx\nMOV TEMP[2].x, IMM[0].xxxx\n\
             BGNLOOP\nUSGE TEMP[0].x, TEMP[2].xxxx, IMM[0].zzzz\nUIF TEMP[0].xxxx\nBRK\nENDIF\n\
             ADD TEMP[1].x, TEMP[1].xxxx, CONST[0][0].xxxx\nUADD TEMP[2].x, TEMP[2].xxxx, IMM[0].yyyy\n\
             ENDLOOP\nMOV OUT[0], TEMP[1].xxxx\nEND\n",
        )
        .unwrap();
        let mut f = crate::ir::lift::lift(&p).unwrap();
        optimize(&mut f, OptLevel::O2);
        let text = crate::ir::print::print(&f);
        assert!(!text.contains("bitcast"), "{text}");
        assert!(
            text.contains("loop (%") && text.contains(":f32 = %"),
            "{text}"
        );
        crate::ir::verify::verify(&f).unwrap();
    }
}
