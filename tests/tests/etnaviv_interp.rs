//! Every etnaviv shader runs in the interpreter on default inputs, zero constants and a generated
//! texture, without error or panic.

use tgsic::tgsi::{File, Processor};
use tgsic_runtime::dispatch::{self, RunOptions};
use tgsic_runtime::engine::{Bindings, Module};
use tgsic_runtime::texture::Texture;
use tgsic_tests::{Corpus, corpus};

/// An 8x8 RGBA8 texture with varied texels (6 layers, so cube and array targets have faces).
fn generated() -> Texture {
    let bytes: Vec<u8> = (0..8 * 8 * 6)
        .flat_map(|k: u32| {
            [
                (k * 37) as u8,
                (k * 11) as u8,
                (k * 5 + 128) as u8,
                255 - k as u8,
            ]
        })
        .collect();
    Texture::from_rgba8(8, 8, 6, &bytes).expect("texture")
}

#[test]
fn every_etnaviv_shader_runs() {
    let Some(files) = corpus(Corpus::Etnaviv) else {
        return;
    };
    let tex = generated();
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
        let buffers = p
            .declarations_of(File::Constant)
            .map(|d| d.dimension.unwrap_or(0) as usize + 1)
            .max()
            .unwrap_or(0);
        bind.constants = vec![vec![[0; 4]; 256]; buffers];
        let units = p
            .declarations
            .iter()
            .filter(|d| matches!(d.file, File::Sampler | File::SamplerView))
            .map(|d| d.span().last as usize + 1)
            .max()
            .unwrap_or(0);
        bind.textures = vec![Some(tex.clone()); units];
        let result = match p.processor {
            Processor::Fragment => {
                frag += 1;
                dispatch::render(&shader, &bind, 12, 10, 0).map(|_| ())
            }
            Processor::Vertex => {
                vert += 1;
                let inputs = shader.size(File::Input);
                let vertices: Vec<Vec<[u32; 4]>> = (0..70u32)
                    .map(|v| {
                        (0..inputs)
                            .map(|r| [v as f32 * 0.1, r as f32, 0.5, 1.0].map(f32::to_bits))
                            .collect()
                    })
                    .collect();
                let one = RunOptions {
                    threads: 1,
                    ..RunOptions::default()
                };
                dispatch::run_vertices(&shader, &bind, &vertices, &one).map(|_| ())
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
