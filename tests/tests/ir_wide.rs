//! The IR's 64-bit operations against Mesa: the double-precision fractal shaders of
//! `corpus/mesa-fp64`, lifted, and optimized at -O2, evaluated by the IR evaluator,
//! give Mesa's pixels bit for bit (the lifter and the optimizer's 64-bit rules before any back
//! end compiles them).

use tgsic::opt::{OptLevel, optimize};
use tgsic_cli::compare::compare;
use tgsic_tests::ireval::IrShader;
use tgsic_tests::mesa::cases_in;
use tgsic_tests::run::{evaluator, render};

#[test]
fn lifted_and_optimized_double_ir_gives_mesas_pixels() {
    let Some(cases) = cases_in("corpus/mesa-fp64") else {
        return;
    };
    assert_eq!(cases.len(), 4);
    let mut failures = Vec::new();
    for case in &cases {
        for level in [None, Some(OptLevel::O2)] {
            let mut ir = IrShader::lift(case.shader.clone()).expect("lifts");
            if let Some(level) = level {
                optimize(&mut ir.function, level);
            }
            if let Err(e) = tgsic::ir::verify::verify(&ir.function) {
                failures.push(format!("{} ({level:?}): {}", case.name, e[0]));
                continue;
            }
            let img = render(&evaluator(ir), &case.bind, 64, 64, 0).expect("renders");
            let ours: Vec<f32> = img.pixels.iter().flatten().copied().collect();
            let c = compare(&ours, &case.reference);
            if c.identical != c.total {
                failures.push(format!(
                    "{} ({level:?}): {} of {} identical",
                    case.name, c.identical, c.total
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// 64-bit arithmetic on constants folds away at -O2 (through any number of 64-bit operations
/// to the 32-bit words a register keeps), with the interpreter's bits.
#[test]
fn constant_64_bit_arithmetic_folds_to_the_interpreters_words() {
    let src = "VERT\nDCL OUT[0]\nDCL TEMP[0]\nIMM[0] FLT64 {0.1, 2.5}\nIMM[1] INT64 {-7, 3}\n  0: DADD TEMP[0], IMM[0], IMM[0]\n  1: DSLT TEMP[0].z, IMM[0], TEMP[0]\n  2: I64DIV TEMP[0].xy, IMM[1], IMM[1].zwzw\n  3: MOV OUT[0], TEMP[0]\n  4: END\n";
    let p = tgsic::front::text::parse(src).expect("parses");
    let mut f = tgsic::ir::lift::lift(&p).expect("lifts");
    optimize(&mut f, OptLevel::O2);
    let mut wide = 0;
    f.for_each_inst(|i| wide += matches!(f.insts[i].op, tgsic::ir::Op::W64(_)) as usize);
    assert_eq!(wide, 0, "{}", tgsic::ir::print::print(&f));
    let m = tgsic_runtime::host::Module::new(p).expect("loads");
    let ours = tgsic_tests::run::vertices(
        &evaluator(IrShader {
            prepared: m.clone(),
            function: f,
        }),
        &Default::default(),
        &[vec![]],
    )
    .expect("runs");
    let theirs = tgsic_tests::run::vertices(
        &tgsic_tests::run::interpreter(&m),
        &Default::default(),
        &[vec![]],
    )
    .expect("runs");
    // -7 / 3 = -2 in .xy; 0.1 < 0.2 in .z; 5.0's high word in .w.
    assert_eq!(
        theirs[0].outputs[0],
        [(-2i32) as u32, u32::MAX, u32::MAX, 0x4014_0000]
    );
    assert_eq!(ours[0].outputs, theirs[0].outputs);
}
