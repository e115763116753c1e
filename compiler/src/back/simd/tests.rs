//! The lowering's own tests: what it computes, against the interpreter's numerics.

use super::*;
use crate::back::cranelift::target::STEPS as CRANELIFT;
#[cfg(feature = "llvm")]
use crate::back::llvm::{AVX2_STEPS, AVX512_STEPS, SINCOS_STEPS};

/// A fragment shader of `mads` dependent MADs (8 IR instructions each) and `lookups`
/// texture lookups whose results it adds in.
fn shader(mads: usize, lookups: usize) -> ir::Function {
    chain_shader("MAD TEMP[0], TEMP[0], TEMP[0], IN[0]\n", mads, lookups)
}

#[cfg(feature = "llvm")]
/// A fragment shader of `sines` dependent SINs, each after a MAD, and `lookups` texture
/// lookups.
fn sine_shader(sines: usize, lookups: usize) -> ir::Function {
    let step = "MAD TEMP[0], TEMP[0], TEMP[0], IN[0]\nSIN TEMP[0].x, TEMP[0].xxxx\n";
    chain_shader(step, sines, lookups)
}

/// A fragment shader of `count` copies of `step` (TGSI updating TEMP[0]) and `lookups`
/// texture lookups whose results it adds into TEMP[0], interleaved.
fn chain_shader(step: &str, count: usize, lookups: usize) -> ir::Function {
    let mut t = String::from(
        "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\n\
         DCL SVIEW[0], 2D, FLOAT\nDCL TEMP[0..1]\nMOV TEMP[0], IN[0]\n",
    );
    for k in 0..count.max(lookups) {
        if k < count {
            t += step;
        }
        if k < lookups {
            t += "TEX TEMP[1], TEMP[0], SAMP[0], 2D\nADD TEMP[0], TEMP[0], TEMP[1]\n";
        }
    }
    t += "MOV OUT[0], TEMP[0]\nEND\n";
    crate::opt::optimized_text(&t)
}

/// A fragment shader with `k` vectors live at once: `k` products of its input, then
/// their sum.
fn wide_shader(k: usize) -> ir::Function {
    let mut t = format!(
        "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0..{}]\n",
        k - 1
    );
    for j in 0..k {
        let c = j as f32 + 1.5;
        t += &format!(
            "IMM[{j}] FLT32 {{ {c:?}, {:?}, {:?}, {:?} }}\n",
            c + 0.25,
            c + 0.5,
            c + 0.75
        );
    }
    for j in 0..k {
        t += &format!("MUL TEMP[{j}], IN[0], IMM[{j}]\n");
    }
    for j in 1..k {
        t += &format!("ADD TEMP[0], TEMP[0], TEMP[{j}]\n");
    }
    t += "MOV OUT[0], TEMP[0]\nEND\n";
    crate::opt::optimized_text(&t)
}

#[cfg(feature = "llvm")]
#[test]
fn straight_line_arithmetic_interleaves_two_steps_where_asked() {
    let StraightLine::Arithmetic {
        short: Some((lo, hi)),
        sparse: from,
        long,
        ..
    } = AVX2_STEPS
    else {
        panic!("AVX2's rule interleaves short shaders");
    };
    let StraightLine::Arithmetic {
        short: Some((lo_512, hi_512)),
        sparse: from_512,
        ..
    } = AVX512_STEPS
    else {
        panic!("AVX-512's rule interleaves short arithmetic");
    };
    // Long code: both AVX2 and AVX-512; not vertex shaders, not where asked for one step.
    let long_code = shader(150, 0);
    assert!(work(&long_code) >= long);
    assert_eq!(step_lanes(&long_code, 8, 16, AVX2_STEPS), 16);
    assert_eq!(step_lanes(&long_code, 16, 32, AVX512_STEPS), 32);
    assert_eq!(step_lanes(&long_code, 8, 16, StraightLine::OneStep), 8);
    let mut vertex = long_code.clone();
    vertex.processor = crate::tgsi::Processor::Vertex;
    assert_eq!(step_lanes(&vertex, 8, 16, AVX2_STEPS), 8);
    // Short code: each within its range, AVX-512's narrower.
    let tiny = shader(2, 0);
    assert!(work(&tiny) < lo, "{}", work(&tiny));
    assert_eq!(step_lanes(&tiny, 8, 16, AVX2_STEPS), 8);
    assert_eq!(step_lanes(&tiny, 16, 32, AVX512_STEPS), 16);
    let short = shader(10, 0);
    let n = short.body.inst_count();
    assert!(work(&short) >= lo_512 && n <= hi_512 && lo <= lo_512, "{n}");
    assert_eq!(step_lanes(&short, 8, 16, AVX2_STEPS), 16);
    assert_eq!(step_lanes(&short, 16, 32, AVX512_STEPS), 32);
    let below = shader(5, 0);
    assert!(
        work(&below) >= lo && work(&below) < lo_512,
        "{}",
        work(&below)
    );
    assert_eq!(step_lanes(&below, 8, 16, AVX2_STEPS), 16);
    assert_eq!(step_lanes(&below, 16, 32, AVX512_STEPS), 16);
    let above = shader(20, 0);
    let n = above.body.inst_count();
    assert!(n > hi_512 && n <= hi && work(&above) < from_512, "{n}");
    assert_eq!(step_lanes(&above, 8, 16, AVX2_STEPS), 16);
    assert_eq!(step_lanes(&above, 16, 32, AVX512_STEPS), 16);
    // Between the two, with a lookup in fewer than `SPARSE_GAP` instructions: one step
    // (compile time).
    let middle = shader(50, 10);
    let n = middle.body.inst_count();
    assert!(n > hi && work(&middle) < long && SPARSE_GAP * 10 > n, "{n}");
    assert_eq!(step_lanes(&middle, 8, 16, AVX2_STEPS), 8);
    assert_eq!(step_lanes(&middle, 16, 32, AVX512_STEPS), 16);
    // Between the two with lookups rarer (here none): interleaved from `sparse`.
    let arithmetic = shader(50, 0);
    assert!(
        arithmetic.body.inst_count() > hi && work(&arithmetic) >= from,
        "{}",
        work(&arithmetic)
    );
    assert_eq!(step_lanes(&arithmetic, 8, 16, AVX2_STEPS), 16);
    let (shorter, longer) = (shader(30, 0), shader(60, 1));
    assert!(work(&shorter) < from_512 && work(&longer) >= from_512);
    assert!(SPARSE_GAP < longer.body.inst_count());
    assert_eq!(step_lanes(&shorter, 16, 32, AVX512_STEPS), 16);
    assert_eq!(step_lanes(&longer, 16, 32, AVX512_STEPS), 32);
    // Code with a lookup in fewer than `LOOKUP_GAP` instructions keeps one step.
    let sparse = shader(150, 10);
    assert_eq!(step_lanes(&sparse, 8, 16, AVX2_STEPS), 16);
    let dense = shader(0, 200);
    assert!(LOOKUP_GAP * 200 > dense.body.inst_count());
    assert!(work(&dense) >= long);
    assert_eq!(step_lanes(&dense, 8, 16, AVX2_STEPS), 8);
    // A SIN weighs as a long chain of arithmetic: a few instructions around one are
    // short code of enough work to interleave.
    let sine = crate::opt::optimized_text(
        "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\n\
         SIN OUT[0].x, IN[0].xxxx\nEND\n",
    );
    assert!(sine.body.inst_count() < lo);
    assert_eq!(
        work(&sine),
        sine.body.inst_count() + TRANSCENDENTAL_WORK - 1
    );
    // Straight-line code with a SIN or COS (long chains of dependent arithmetic), of less
    // than `long` work and with lookups rarer than one in `LOOKUP_GAP`: `SINCOS_STEPS`
    // steps with AVX-512 and AVX2; the rules of any code on Cranelift.
    assert_eq!(step_lanes(&sine, 8, 16, AVX2_STEPS), 8 * SINCOS_STEPS);
    assert_eq!(step_lanes(&sine, 16, 32, AVX512_STEPS), 16 * SINCOS_STEPS);
    assert_eq!(step_lanes(&sine, 4, 16, CRANELIFT), 8);
    assert_eq!(step_lanes(&sine, 8, 16, StraightLine::OneStep), 8);
    let few_sines = sine_shader(3, 1);
    assert!(LOOKUP_GAP < few_sines.body.inst_count());
    assert_eq!(step_lanes(&few_sines, 16, 32, AVX512_STEPS), 64);
    assert_eq!(step_lanes(&few_sines, 8, 16, AVX2_STEPS), 32);
    // Lookups as dense as one in `LOOKUP_GAP`: the rules of other code (here one step).
    let looked_up_sines = sine_shader(1, 40);
    assert!(LOOKUP_GAP * 40 >= looked_up_sines.body.inst_count());
    assert!(work(&looked_up_sines) < long);
    assert_eq!(step_lanes(&looked_up_sines, 16, 32, AVX512_STEPS), 16);
    // Lookups rarer than one in `LOOKUP_GAP` but 16 or more: AVX2 takes four steps,
    // AVX-512 one (`sincos_lookups`: measured faster on three_triangle_blur).
    let sine_and_lookups = |lookups: usize| {
        let mut t = String::from(
            "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\n\
             DCL SVIEW[0], 2D, FLOAT\nDCL TEMP[0..1]\nMOV TEMP[0], IN[0]\n\
             SIN TEMP[0].x, TEMP[0].xxxx\n",
        );
        for _ in 0..lookups {
            t += "MAD TEMP[0], TEMP[0], TEMP[0], IN[0]\nMAD TEMP[0], TEMP[0], IN[0], IN[0]\n\
                  MAD TEMP[0], TEMP[0], TEMP[0], IN[0]\n\
                  TEX TEMP[1], TEMP[0], SAMP[0], 2D\nADD TEMP[0], TEMP[0], TEMP[1]\n";
        }
        t += "MOV OUT[0], TEMP[0]\nEND\n";
        crate::opt::optimized_text(&t)
    };
    for (lookups, lanes_512) in [(15, 64), (16, 16)] {
        let g = sine_and_lookups(lookups);
        let n = g.body.inst_count();
        assert!(LOOKUP_GAP * lookups < n && work(&g) < long, "{n}");
        assert_eq!(step_lanes(&g, 16, 32, AVX512_STEPS), lanes_512, "{lookups}");
        assert_eq!(step_lanes(&g, 8, 16, AVX2_STEPS), 32, "{lookups}");
    }
    // Of `long` work: two steps, as other long code.
    let many_sines = sine_shader(24, 0);
    assert!(work(&many_sines) >= long);
    assert_eq!(step_lanes(&many_sines, 8, 16, AVX2_STEPS), 16);
    assert_eq!(step_lanes(&many_sines, 16, 32, AVX512_STEPS), 32);
    // Short code of many SINs is still short: its work exceeds the instruction bound,
    // its instructions do not.
    let sines = crate::opt::optimized_text(
        "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0..1]\n\
         SIN TEMP[0].x, IN[0].xxxx\nSIN TEMP[0].y, IN[0].yyyy\nSIN TEMP[0].z, IN[0].zzzz\n\
         COS TEMP[1].x, IN[0].xxxx\nCOS TEMP[1].y, IN[0].yyyy\nCOS TEMP[1].z, IN[0].zzzz\n\
         ADD OUT[0], TEMP[0], TEMP[1]\nEND\n",
    );
    assert!(work(&sines) > hi && sines.body.inst_count() <= hi);
    let StraightLine::Arithmetic {
        short,
        sparse,
        long,
        ..
    } = AVX2_STEPS
    else {
        unreachable!("AVX2's rule is arithmetic")
    };
    let without_sincos = StraightLine::Arithmetic {
        short,
        sparse,
        long,
        sincos: None,
        sincos_lookups: usize::MAX,
    };
    assert_eq!(step_lanes(&sines, 8, 16, without_sincos), 16);
    assert_eq!(step_lanes(&sines, 8, 16, AVX2_STEPS), 8 * SINCOS_STEPS);
    assert_eq!(step_lanes(&sines, 16, 32, AVX512_STEPS), 16 * SINCOS_STEPS);
}

#[test]
fn cranelifts_rule_interleaves_light_code_and_loops_interleave_on_any_target() {
    let StraightLine::Light {
        insts: max_insts,
        live: max_live,
        lookups: few_lookups,
    } = CRANELIFT
    else {
        unreachable!("Cranelift's rule is the light one")
    };
    let long_code = shader(150, 0);
    // Cranelift's rule: code with few live values interleaves when it is short with few
    // lookups, or of any length with lookups rarer than one in `SPARSE_GAP`; code with
    // more live values, and long code with denser lookups, keeps one step.
    let light = shader(10, 0);
    assert!(light.body.inst_count() <= max_insts);
    assert!(crate::ir::pressure::max_live(&light) <= max_live);
    assert_eq!(step_lanes(&light, 4, 16, CRANELIFT), 8);
    assert_eq!(step_lanes(&light, 4, 16, StraightLine::OneStep), 4);
    assert!(long_code.body.inst_count() > max_insts);
    assert_eq!(step_lanes(&long_code, 4, 16, CRANELIFT), 8);
    let looked_up = shader(10, few_lookups);
    assert!(
        looked_up.body.inst_count() <= max_insts,
        "{}",
        looked_up.body.inst_count()
    );
    assert_eq!(step_lanes(&looked_up, 4, 16, CRANELIFT), 4);
    let long_looked_up = shader(70, 10);
    let n = long_looked_up.body.inst_count();
    assert!(n > max_insts && SPARSE_GAP * 10 > n, "{n}");
    assert_eq!(step_lanes(&long_looked_up, 4, 16, CRANELIFT), 4);
    let long_sparse = shader(150, 2);
    assert!(SPARSE_GAP * 2 < long_sparse.body.inst_count());
    assert_eq!(step_lanes(&long_sparse, 4, 16, CRANELIFT), 8);
    let wide = wide_shader(12);
    assert!(wide.body.inst_count() <= max_insts);
    assert!(crate::ir::pressure::max_live(&wide) > max_live);
    assert_eq!(step_lanes(&wide, 4, 16, CRANELIFT), 4);
    // A loop whose values fit the registers twice over interleaves on any target.
    let looping = crate::back::tests_support::endless_loop_function();
    assert_eq!(step_lanes(&looping, 4, 16, StraightLine::OneStep), 8);
}
