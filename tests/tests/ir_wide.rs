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
