//! Shading throughput per engine at 256×256, one thread, on a light shader (three_technicolor),
//! an ALU-heavy one (npm_curl_noise), two texture-heavy ones (gltr_tangentmotionblur, 42
//! lookups; gltr_linearblur, 72) and a loop-heavy one (piglit_loop_300), with the Mesa corpus
//! bindings (nearest, one level); the LLVM engine too when built with the feature `llvm`.
//! `filtered_256x256`: gltr_linearblur's 72 lookups bilinear, and trilinear over generated
//! mipmaps, in the generated code of each JIT (fast math). `tgsic bench` gives the 1024×1024
//! figures. `frame_floor_1024x1024`: a shader that only copies its input, rendered into one
//! reused image by each JIT: the runtime's fixed cost of a frame (tiles' inputs, calls,
//! the pixels' 16 MiB), which every shader pays besides its code.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use tgsic::back::Backend;
use tgsic::back::abi::MathMode;
use tgsic_runtime::host::{CompileOptions, Lookups};
use tgsic_tests::run::{compile, compile_for, interpreter, render, runtime};

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
        let interp = interpreter(&case.shader);
        g.bench_function(format!("interp/{name}"), |b| {
            b.iter(|| render(black_box(&interp), &case.bind, 256, 256, 0).expect("renders"))
        });
        let mut engines = vec![
            ("jit", Backend::Cranelift, MathMode::Accurate),
            ("jit-exact", Backend::Cranelift, MathMode::Exact),
            ("jit-fast", Backend::Cranelift, MathMode::Fast),
        ];
        if Backend::Llvm.available() {
            engines.push(("llvm", Backend::Llvm, MathMode::Accurate));
            engines.push(("llvm-exact", Backend::Llvm, MathMode::Exact));
            engines.push(("llvm-fast", Backend::Llvm, MathMode::Fast));
        }
        for (label, backend, math) in engines {
            let jit = compile(
                &case.shader,
                &CompileOptions {
                    engine: backend.into(),
                    math,
                    ..CompileOptions::default()
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

/// gltr_linearblur with filtered lookups: bilinear on level 0, then trilinear over mipmaps.
fn filtered(c: &mut Criterion) {
    use tgsic_runtime::host::{Filter, MipFilter, Sampler};
    let Some(cases) = tgsic_tests::mesa::cases() else {
        return;
    };
    let Some(case) = cases.iter().find(|c| c.name == "gltr_linearblur") else {
        return;
    };
    let mut g = c.benchmark_group("filtered_256x256");
    g.throughput(Throughput::Elements(256 * 256));
    g.sample_size(10);
    for (filter, mip) in [
        ("bilinear", MipFilter::None),
        ("trilinear", MipFilter::Linear),
    ] {
        let mut bind = case.bind.clone();
        for t in bind.textures.iter_mut().flatten() {
            t.generate_mipmaps(false);
        }
        // A sampler for every unit (a missing one reads as the default, nearest).
        let units = bind.textures.len().max(bind.samplers.len());
        bind.samplers.resize(units, Sampler::default());
        for s in bind.samplers.iter_mut() {
            *s = Sampler {
                min: Filter::Linear,
                mag: Filter::Linear,
                mip,
                ..*s
            };
        }
        let mut engines = vec![("jit-fast", Backend::Cranelift)];
        if Backend::Llvm.available() {
            engines.push(("llvm-fast", Backend::Llvm));
        }
        for (label, backend) in engines {
            let config = CompileOptions {
                engine: backend.into(),
                math: MathMode::Fast,
                ..CompileOptions::default()
            };
            let jit = compile_for(&case.shader, &config, Lookups::For(&bind)).expect("compiles");
            g.bench_function(format!("{label}/{filter}"), |b| {
                b.iter(|| render(black_box(&jit), &bind, 256, 256, 0).expect("renders"))
            });
        }
    }
    g.finish();
}

/// `MOV OUT[0], IN[0]` at 1024×1024, one thread, into one image rendered again and again (as
/// `tgsic bench` does): what a frame costs outside the shader's own code.
fn frame_floor(c: &mut Criterion) {
    use tgsic_runtime::host::{Bindings, Module, Picture, PixelBuffer, RunControl};
    let src =
        "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nMOV OUT[0], IN[0]\nEND\n";
    let program = tgsic::front::text::parse(src).expect("parses");
    let module = Module::new(program).expect("loads");
    let mut g = c.benchmark_group("frame_floor_1024x1024");
    g.throughput(Throughput::Elements(1024 * 1024));
    g.sample_size(20);
    let mut engines = vec![("jit", Backend::Cranelift)];
    if Backend::Llvm.available() {
        engines.push(("llvm", Backend::Llvm));
    }
    let bind = Bindings::default();
    let control = RunControl::default();
    for (label, backend) in engines {
        let jit = compile(&module, &CompileOptions::with_engine(backend)).expect("compiles");
        let mut image = Picture {
            width: 1024,
            height: 1024,
            pixels: PixelBuffer::new(),
            exhausted: 0,
            discarded: 0,
            unspecified: Vec::new(),
        };
        g.bench_function(label, |b| {
            b.iter(|| {
                black_box(&jit)
                    .render_into(runtime(), &bind, 0, &control, &mut image)
                    .expect("renders")
            })
        });
    }
    g.finish();
}

criterion_group!(benches, shading, filtered, frame_floor);
criterion_main!(benches);
