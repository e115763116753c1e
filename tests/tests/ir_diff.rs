//! Differential test: the interpreter, the lifted IR and the IR optimized at -O1 and -O2 compute
//! the same bits over both corpora, for random inputs, constants, textures and samplers
//! (several seeds per shader). Lanes whose result the IR leaves unspecified (derivatives in
//! quads only partly active) are left out, and counted.

use tgsic::opt::{OptLevel, optimize};
use tgsic_runtime::interp::Shader;
use tgsic_runtime::ireval::IrShader;
use tgsic_tests::all_shaders;
use tgsic_tests::random::{Rng, batch, bindings, difference, run};

const SEEDS: u64 = 4;

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
        let mut variants = vec![("lifted", ir.clone())];
        for level in [OptLevel::O1, OptLevel::O2] {
            let mut o = ir.clone();
            optimize(&mut o.function, level);
            if let Err(e) = tgsic::ir::verify::verify(&o.function) {
                failures.push(format!(
                    "{} {level:?}: does not verify: {}",
                    path.display(),
                    e[0]
                ));
            }
            variants.push((if level == OptLevel::O1 { "-O1" } else { "-O2" }, o));
        }
        'seeds: for seed in 0..SEEDS {
            let mut rng = Rng(seed * 7919 + path.to_string_lossy().len() as u64);
            let bind = bindings(&shader, &mut rng);
            let io = batch(&shader, &mut rng);
            let reference = run(&shader, &bind, &io);
            batches += 1;
            let mut lifted_unspecified = 0;
            for (name, engine) in &variants {
                match (&reference, run(engine, &bind, &io)) {
                    (Ok(a), Ok(mut b)) => {
                        if *name == "lifted" {
                            lifted_unspecified = b.report.unspecified;
                            unspecified += lifted_unspecified.count_ones() as u64;
                        }
                        b.report.unspecified |= lifted_unspecified;
                        if let Some(d) = difference(a, &b, io.alive) {
                            failures.push(format!("{} seed {seed} {name}: {d}", path.display()));
                            break 'seeds;
                        }
                    }
                    (Err(a), Err(b)) if *a == b => {}
                    (a, b) => {
                        failures.push(format!(
                            "{} seed {seed} {name}: interpreter {:?}, IR {:?}",
                            path.display(),
                            a.as_ref().err(),
                            b.err()
                        ));
                        break 'seeds;
                    }
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
