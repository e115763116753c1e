//! Every fragment, vertex and geometry shader of the corpora (etnaviv and mesa) through every
//! engine of this build, by the host API, against the interpreter:
//!
//! - exact math: Cranelift, LLVM (with the feature `llvm`) and the tiered engine (its first
//!   tier, then its best) give the interpreter's values bit for bit;
//! - accurate math (the default): the same, for every shader that computes none of the
//!   functions accurate math approximates (SIN, COS, EX2, LG2, POW and the opcodes made of
//!   them); a shader that does is run with every engine and counted, its values not compared.
//!
//! Constant buffers hold their file's values (mesa) or zeros, every texture unit a generated
//! texture. Nothing is skipped silently: what is not compared is counted with its reason.

use rayon::prelude::*;
use std::path::{Path, PathBuf};
use tgsic::back::abi::MathMode;
use tgsic::tgsi::{File, Opcode, Processor};
use tgsic_runtime::host::Bindings;
use tgsic_runtime::host::Texture;
use tgsic_runtime::host::{
    CacheDir, CompileOptions, Compiled, EngineKind, Frame, Module, RunControl, Runtime,
    RuntimeOptions,
};
use tgsic_tests::{Corpus, corpus};

/// The opcodes whose results accurate math computes by approximation.
fn approximates(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Sin
            | Opcode::Cos
            | Opcode::Scs
            | Opcode::Ex2
            | Opcode::Lg2
            | Opcode::Pow
            | Opcode::Exp
            | Opcode::Log
            | Opcode::Lit
    )
}

/// The bindings of a shader: its constant file's values (beside a mesa shader), zeros for
/// every other buffer it declares, and the generated texture on every unit.
fn bindings(path: &std::path::Path, m: &Module, tex: &Texture) -> Bindings {
    let (buffers, units) = tgsic_tests::declared_bindings(&m.program);
    let mut bind = Bindings {
        constants: vec![vec![[0; 4]; 256]; buffers],
        ..Bindings::default()
    };
    let const_file = path.with_extension("const0.bin");
    if let (Some(first), Ok(bytes)) = (bind.constants.first_mut(), std::fs::read(&const_file)) {
        *first = tgsic_runtime::host::constant_registers(&bytes);
    }
    bind.textures = vec![Some(tex.clone()); units];
    bind
}

/// What a run gives, as raw bits: a fragment shader's pixels, a vertex shader's outputs, a
/// geometry shader's emitted vertices.
fn run(rt: &Runtime, c: &Compiled, m: &Module, bind: &Bindings) -> Result<Vec<u32>, String> {
    let control = RunControl::default();
    let bits = |v: &[[u32; 4]]| v.iter().flatten().copied().collect::<Vec<u32>>();
    match m.program.processor {
        Processor::Fragment => {
            let frame = Frame {
                width: 13,
                height: 10,
                output: 0,
            };
            let img = c
                .render(rt, bind, frame, &control)
                .map_err(|e| e.to_string())?;
            Ok(img.pixels.iter().flatten().map(|v| v.to_bits()).collect())
        }
        Processor::Vertex => {
            let vertices: Vec<Vec<[u32; 4]>> =
                (0..37u32).map(|v| vertex(m.size(File::Input), v)).collect();
            let out = c
                .run_vertex_list(rt, bind, &vertices, &control)
                .map_err(|e| e.to_string())?;
            Ok(out.iter().flat_map(|i| bits(&i.outputs)).collect())
        }
        Processor::Geometry => {
            let per = m.reflection().vertices_per_primitive;
            let prims: Vec<Vec<Vec<[u32; 4]>>> = (0..9u32)
                .map(|p| {
                    (0..per as u32)
                        .map(|v| vertex(m.size(File::Input), p * 7 + v))
                        .collect()
                })
                .collect();
            let out = c
                .run_primitive_list(rt, bind, &prims, &control)
                .map_err(|e| e.to_string())?;
            // Each emitted vertex's outputs; a primitive's end as one word no float has here.
            Ok(out
                .iter()
                .flat_map(|i| &i.emitted)
                .flat_map(|v| v.as_deref().map_or(vec![u32::MAX], bits))
                .collect())
        }
        other => Err(format!(
            "not a fragment, vertex or geometry shader: {other}"
        )),
    }
}

/// Input registers of vertex `v`: values that differ per vertex and register.
fn vertex(registers: usize, v: u32) -> Vec<[u32; 4]> {
    (0..registers)
        .map(|r| [v as f32 * 0.1 - 1.3, r as f32 + 0.25, 0.5, 1.0].map(f32::to_bits))
        .collect()
}

#[derive(Default)]
struct Tally {
    compared: usize,
    ran_only: usize,
    failures: Vec<String>,
}

#[test]
fn every_corpus_shader_gives_the_interpreters_values_on_every_engine() {
    let (Some(etnaviv), Some(mesa)) = (corpus(Corpus::Etnaviv), corpus(Corpus::Mesa)) else {
        return;
    };
    let rt = Runtime::new(RuntimeOptions {
        threads: 1,
        code_cache: CacheDir::Off,
        cache_entries: 0,
        ..RuntimeOptions::default()
    })
    .expect("a runtime");
    let mut engines = vec![EngineKind::Cranelift];
    if tgsic::back::Backend::Llvm.available() {
        engines.push(EngineKind::Llvm);
    }
    engines.push(EngineKind::Auto);
    let tex = tgsic_tests::generated_texture();
    // The shaders on every core (each is compiled and run on one), tallied in their order.
    let paths: Vec<&PathBuf> = etnaviv.iter().chain(&mesa).collect();
    let per_shader: Vec<(bool, Tally)> = paths
        .par_iter()
        .map(|path| check_shader(&rt, path, &engines, &tex))
        .collect();
    let mut tally = Tally::default();
    let mut shaders = 0;
    for (loaded, t) in per_shader {
        shaders += usize::from(loaded);
        tally.compared += t.compared;
        tally.ran_only += t.ran_only;
        tally.failures.extend(t.failures);
    }
    println!(
        "{shaders} shaders, {} engines: {} runs compared bit for bit with the interpreter; {} \
         runs of accurate math on shaders it approximates (SIN, COS, EX2, LG2, POW) ran, not \
         compared",
        engines.len(),
        tally.compared,
        tally.ran_only
    );
    assert!(
        tally.failures.is_empty(),
        "{} failures:\n{}",
        tally.failures.len(),
        tally.failures.join("\n")
    );
    assert_eq!(shaders, etnaviv.len() + mesa.len(), "every shader loads");
}

/// One shader of the test on every engine: whether it loaded, and its tally.
fn check_shader(rt: &Runtime, path: &Path, engines: &[EngineKind], tex: &Texture) -> (bool, Tally) {
    let mut tally = Tally::default();
    let name = path.display();
    let bytes = std::fs::read(path).expect("reads");
    let m = match rt.load(&bytes) {
        Ok(m) => m,
        Err(e) => {
            tally.failures.push(format!("{name}: load: {e}"));
            return (false, tally);
        }
    };
    let bind = bindings(path, &m, tex);
    let interp = rt
        .compile(&m, &CompileOptions::with_engine(EngineKind::Interpreter))
        .expect("the interpreter takes every module");
    let want = match run(rt, &interp, &m, &bind) {
        Ok(v) => v,
        Err(e) => {
            tally.failures.push(format!("{name}: interpreter: {e}"));
            return (true, tally);
        }
    };
    let approximated = m
        .program
        .instructions
        .iter()
        .any(|i| approximates(i.opcode));
    for math in [MathMode::Exact, MathMode::Accurate] {
        let compare = math == MathMode::Exact || !approximated;
        for &engine in engines {
            let opts = CompileOptions {
                math,
                ..CompileOptions::with_engine(engine)
            };
            let what = format!("{name}: {engine}, {math:?} math");
            let c = match rt.compile(&m, &opts) {
                Ok(c) => c,
                Err(e) => {
                    tally.failures.push(format!("{what}: compile: {e}"));
                    return (false, tally);
                }
            };
            // The tiered engine: its first tier now, its best once it is ready.
            let rounds = if engine == EngineKind::Auto { 2 } else { 1 };
            for round in 0..rounds {
                if round == 1 {
                    c.wait_for_best();
                }
                let tier = c.tier();
                match run(rt, &c, &m, &bind) {
                    Err(e) => tally.failures.push(format!("{what} ({tier}): {e}")),
                    Ok(got) if !compare => {
                        assert_eq!(got.len(), want.len(), "{what}");
                        tally.ran_only += 1;
                    }
                    Ok(got) => {
                        tally.compared += 1;
                        if let Some(k) =
                            (0..want.len().max(got.len())).find(|&k| got.get(k) != want.get(k))
                        {
                            tally.failures.push(format!(
                                "{what} ({tier}): value {k} of {} is {:?}, the \
                                 interpreter's {:?}",
                                want.len(),
                                got.get(k).map(|&b| f32::from_bits(b)),
                                want.get(k).map(|&b| f32::from_bits(b)),
                            ));
                        }
                    }
                }
            }
        }
    }
    (true, tally)
}
