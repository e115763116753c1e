//! Differential test: the interpreter, the lifted IR and the IR optimized at -O1 and -O2 compute
//! the same bits over both corpora, for random inputs, constants, textures and samplers
//! (several seeds per shader). Lanes whose result the IR leaves unspecified (derivatives in
//! quads only partly active) are left out, and counted.

use tgsic::opt::{OptLevel, optimize};
use tgsic_runtime::host::Module;
use tgsic_tests::all_shaders;
use tgsic_tests::ireval::IrShader;
use tgsic_tests::random::{Rng, Source, batch, bindings, difference, run};
use tgsic_tests::run::{evaluator, interpreter, primitives};

const SEEDS: u64 = 4;

#[test]
fn lifted_ir_matches_the_interpreter() {
    let Some(files) = all_shaders() else { return };
    let mut failures = Vec::new();
    let (mut batches, mut unspecified) = (0u64, 0u64);
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let program = tgsic::front::text::parse(&text).unwrap();
        let shader = Module::new(program).unwrap();
        let ir = match IrShader::lift(shader.clone()) {
            Ok(ir) => ir,
            Err(e) => {
                failures.push(format!("{}: {e}", path.display()));
                continue;
            }
        };
        let mut variants = vec![("lifted", evaluator(ir.clone()))];
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
            variants.push((
                if level == OptLevel::O1 { "-O1" } else { "-O2" },
                evaluator(o),
            ));
        }
        let interp = interpreter(&shader);
        'seeds: for seed in 0..SEEDS {
            let mut rng = Rng(seed * 7919 + path.to_string_lossy().len() as u64);
            let bind = bindings(&shader, &mut rng);
            let io = batch(&shader, &mut rng);
            let reference = run(&interp, &bind, &io);
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

/// A geometry shader (no corpus has one): EMIT in a loop with indirectly addressed vertices,
/// ENDPRIM, predicated by a comparison; the interpreter and every IR level emit the same vertices.
#[test]
fn geometry_shaders_emit_the_same_vertices() {
    let text = "GEOM\nPROPERTY GS_INPUT_PRIMITIVE TRIANGLES\nPROPERTY GS_OUTPUT_PRIMITIVE TRIANGLE_STRIP\n\
        PROPERTY GS_MAX_OUTPUT_VERTICES 6\nDCL IN[][0], POSITION\nDCL IN[][1], GENERIC[0]\n\
        DCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\nDCL TEMP[0..1]\nDCL ADDR[0]\n\
        IMM[0] FLT32 {1.0, 0.5, 3.0, 0.0}\nIMM[1] INT32 {0, 1, 2, 3}\n\
        MOV TEMP[0].x, IMM[0].wwww\nBGNLOOP\nSGE TEMP[1].x, TEMP[0].xxxx, IMM[0].zzzz\n\
        IF TEMP[1].xxxx\nBRK\nENDIF\nARL ADDR[0].x, TEMP[0].xxxx\nMOV OUT[0], IN[ADDR[0].x][0]\n\
        MUL OUT[1], IN[ADDR[0].x][1], IMM[0].yyyy\nSLT TEMP[1].y, IN[ADDR[0].x][0].xxxx, IMM[0].yyyy\n\
        IF TEMP[1].yyyy\nEMIT IMM[1].xxxx\nENDIF\nADD TEMP[0].x, TEMP[0].xxxx, IMM[0].xxxx\nENDLOOP\n\
        ENDPRIM IMM[1].xxxx\nEND\n";
    let program = tgsic::front::text::parse(text).unwrap();
    let shader = Module::new(program).unwrap();
    let ir = IrShader::lift(shader.clone()).unwrap();
    let mut o2 = ir.clone();
    optimize(&mut o2.function, OptLevel::O2);
    for seed in 0..4u64 {
        let mut rng = Rng(seed);
        let prims: Vec<Vec<Vec<[u32; 4]>>> = (0..70)
            .map(|_| {
                (0..3)
                    .map(|_| {
                        (0..2)
                            .map(|_| std::array::from_fn(|_| rng.word()))
                            .collect()
                    })
                    .collect()
            })
            .collect();
        let bind = bindings(&shader, &mut rng);
        let reference = primitives(&interpreter(&shader), &bind, &prims).unwrap();
        assert!(
            reference.iter().any(|i| i.emitted.len() > 2),
            "some primitive emits vertices"
        );
        for engine in [evaluator(ir.clone()), evaluator(o2.clone())] {
            let out = primitives(&engine, &bind, &prims).unwrap();
            assert_eq!(out, reference, "seed {seed}");
        }
    }
}
