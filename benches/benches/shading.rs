//! Shading throughput per engine on light, ALU-heavy, texture-heavy and loop-heavy Mesa corpus
//! shaders, 256x256 on one thread (elements = pixels).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use tgsic_runtime::interp::{Bindings, Shader, render};
use tgsic_runtime::texture::Texture;
use tgsic_tests::shared_dir;

const SHADERS: &[&str] = &[
    "three_technicolor",
    "npm_curl_noise",
    "gltr_tangentmotionblur",
    "piglit_loop_300",
];

fn words(bytes: &[u8]) -> Vec<[u32; 4]> {
    bytes
        .chunks(16)
        .map(|c| {
            std::array::from_fn(|k| {
                c.get(4 * k..4 * k + 4)
                    .map_or(0, |w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            })
        })
        .collect()
}

fn shading(c: &mut Criterion) {
    let Some(shared) = shared_dir() else { return };
    let dir = shared.join("corpus/mesa");
    let texture = Texture::from_png(&dir.join("texture32.png")).expect("texture");
    let mut g = c.benchmark_group("shade_256x256/interp");
    g.throughput(Throughput::Elements(256 * 256));
    g.sample_size(10);
    for name in SHADERS {
        let src = std::fs::read_to_string(dir.join(format!("{name}.tgsi"))).expect("shader");
        let shader = Shader::new(tgsic::front::text::parse(&src).expect("parses")).expect("loads");
        let mut bind = Bindings::default();
        if let Ok(bytes) = std::fs::read(dir.join(format!("{name}.const0.bin"))) {
            bind.constants.push(words(&bytes));
        }
        bind.textures = vec![Some(texture.clone()); 2];
        g.bench_function(*name, |b| {
            b.iter(|| render(black_box(&shader), &bind, 256, 256, 0).expect("renders"))
        });
    }
    g.finish();
}

criterion_group!(benches, shading);
criterion_main!(benches);
