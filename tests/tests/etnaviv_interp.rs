//! Every etnaviv shader runs in the interpreter on default inputs, zero constants and a generated
//! texture, without error or panic.

use tgsic::tgsi::{File, Processor};
use tgsic_runtime::host::{Bindings, Module};
use tgsic_tests::run::{interpreter, render, vertices};
use tgsic_tests::{Corpus, corpus};

#[test]
fn every_etnaviv_shader_runs() {
    let Some(files) = corpus(Corpus::Etnaviv) else {
        return;
    };
    let tex = tgsic_tests::generated_texture();
    let mut failures = Vec::new();
    let (mut frag, mut vert) = (0, 0);
    for path in &files {
        let src = std::fs::read_to_string(path).unwrap();
        let program = tgsic::front::text::parse(&src).unwrap();
        let shader = match Module::new(program) {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!("{}: load: {e}", path.display()));
                continue;
            }
        };
        let p = &shader.program;
        let mut bind = Bindings::default();
        let (buffers, units) = tgsic_tests::declared_bindings(p);
        bind.constants = vec![vec![[0; 4]; 256]; buffers];
        bind.textures = vec![Some(tex.clone()); units];
        let result = match p.processor {
            Processor::Fragment => {
                frag += 1;
                render(&interpreter(&shader), &bind, 12, 10, 0).map(|_| ())
            }
            Processor::Vertex => {
                vert += 1;
                let inputs = shader.size(File::Input);
                let list: Vec<Vec<[u32; 4]>> = (0..70u32)
                    .map(|v| {
                        (0..inputs)
                            .map(|r| [v as f32 * 0.1, r as f32, 0.5, 1.0].map(f32::to_bits))
                            .collect()
                    })
                    .collect();
                vertices(&interpreter(&shader), &bind, &list).map(|_| ())
            }
            other => panic!("unexpected processor {other}"),
        };
        if let Err(e) = result {
            failures.push(format!("{}: {e}", path.display()));
        }
    }
    println!("{frag} fragment and {vert} vertex shaders ran");
    assert!(
        failures.is_empty(),
        "{} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(frag + vert, 707);
}
