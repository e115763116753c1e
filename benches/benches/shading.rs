//! Shading throughput per engine at 256×256, one thread, on a light shader (three_technicolor),
//! an ALU-heavy one (npm_curl_noise), two texture-heavy ones (gltr_tangentmotionblur, 42
//! lookups; gltr_linearblur, 72) and a loop-heavy one (piglit_loop_300), with the Mesa corpus bindings; the LLVM engine too when
//! built with the feature `llvm`. `tgsic bench` gives the 1024×1024 figures.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use tgsic::back::abi::MathMode;
use tgsic_runtime::dispatch::render;
use tgsic_runtime::jit::{Backend, JitConfig, JitShader};

const SHADERS: &[&str] = &[
    "three_technicolor",
    "npm_curl_noise",
    "gltr_tangentmotionblur",
    "gltr_linearblur",
    "piglit_loop_300",
];

fn shading(c: &mut Criterion) {
    let Some(cases) = tgsic_tests::mesa::cases() else {
        return;
    };
    let mut g = c.benchmark_group("shade_256x256");
    g.throughput(Throughput::Elements(256 * 256));
    g.sample_size(10);
    for case in cases.iter().filter(|c| SHADERS.contains(&c.name.as_str())) {
        let name = &case.name;
        g.bench_function(format!("interp/{name}"), |b| {
            b.iter(|| render(black_box(&case.shader), &case.bind, 256, 256, 0).expect("renders"))
        });
        let mut engines = vec![
            ("jit", Backend::Cranelift, MathMode::Exact),
            ("jit-fast", Backend::Cranelift, MathMode::Fast),
        ];
        if Backend::Llvm.available() {
            engines.push(("llvm", Backend::Llvm, MathMode::Exact));
            engines.push(("llvm-fast", Backend::Llvm, MathMode::Fast));
        }
        for (label, backend, math) in engines {
            let jit = JitShader::new(
                case.shader.clone(),
                &JitConfig {
                    backend,
                    math,
                    ..JitConfig::default()
                },
            )
            .expect("compiles");
            g.bench_function(format!("{label}/{name}"), |b| {
                b.iter(|| render(black_box(&jit), &case.bind, 256, 256, 0).expect("renders"))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, shading);
criterion_main!(benches);
