//! Differential test: the interpreter and the lifted IR compute the same bits over both
//! corpora, for random inputs, constants, textures and samplers (several seeds per shader).

use tgsic_runtime::interp::Shader;
use tgsic_runtime::ireval::IrShader;
use tgsic_tests::all_shaders;
use tgsic_tests::random::{Rng, batch, bindings, difference, run};

const SEEDS: u64 = 3;

#[test]
fn lifted_ir_matches_the_interpreter() {
    let Some(files) = all_shaders() else { return };
    let mut failures = Vec::new();
    let (mut batches, mut unspecified) = (0u64, 0u64);
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let program = tgsic::front::text::parse(&text).unwrap();
        let shader = Shader::new(program).unwrap();
        let ir = match IrShader::lift(shader.clone()) {
            Ok(ir) => ir,
            Err(e) => {
                failures.push(format!("{}: {e}", path.display()));
                continue;
            }
        };
        for seed in 0..SEEDS {
            let mut rng = Rng(seed * 7919 + path.to_string_lossy().len() as u64);
            let bind = bindings(&shader, &mut rng);
            let io = batch(&shader, &mut rng);
            let reference = run(&shader, &bind, &io);
            let lifted = run(&ir, &bind, &io);
            batches += 1;
            match (reference, lifted) {
                (Ok(a), Ok(b)) => {
                    unspecified += b.report.unspecified.count_ones() as u64;
                    if let Some(d) = difference(&a, &b, io.alive) {
                        failures.push(format!("{} seed {seed}: {d}", path.display()));
                        break;
                    }
                }
                (Err(a), Err(b)) if a == b => {}
                (a, b) => {
                    failures.push(format!(
                        "{} seed {seed}: interpreter {:?}, IR {:?}",
                        path.display(),
                        a.err(),
                        b.err()
                    ));
                    break;
                }
            }
        }
    }
    println!(
        "{batches} batches compared, {unspecified} lanes unspecified (derivatives in divergent quads)"
    );
    assert!(
        failures.is_empty(),
        "{} shaders differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
