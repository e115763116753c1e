//! Per-frame overhead of the host API on a small image (16×16, the light checker example): a
//! frame through a kept `host::Runtime` (compile-cache lookup, the runtime's threads, reused
//! registers), the same frame rendered over the pixel grid (`Compiled::render`, inputs from
//! each pixel), and a frame that also reads the shader again.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use tgsic::tgsi::Semantic;
use tgsic_runtime::host::{Bindings, CompileOptions, Frame, Invocations, Layout, RunControl};
use tgsic_runtime::host::{Runtime, RuntimeOptions, quad_order};

const W: u32 = 16;
const H: u32 = 16;

fn host(c: &mut Criterion) {
    let src = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/shaders/checker.tgsi"
    ))
    .expect("the example shader");
    let rt = Runtime::new(RuntimeOptions {
        threads: 2,
        ..RuntimeOptions::default()
    })
    .expect("threads");
    let module = rt.load(&src).expect("loads");
    let generic = module
        .reflection()
        .input(Semantic::Generic, 0)
        .expect("GENERIC[0]") as usize;
    let regs = module.reflection().input_registers;
    let n = (W * H) as usize;
    let mut inputs = vec![0u32; n * regs * 4];
    for (k, (i, j)) in quad_order(W, H).enumerate() {
        let v = [
            (i as f32 + 0.5) / W as f32,
            (j as f32 + 0.5) / H as f32,
            0.0,
            1.0,
        ];
        for (ch, x) in v.iter().enumerate() {
            inputs[(k * regs + generic) * 4 + ch] = x.to_bits();
        }
    }
    let mut outputs = vec![0u32; n * module.reflection().output_registers * 4];
    let bind = Bindings::default();
    let opts = CompileOptions {
        features: tgsic::back::TargetFeatures::from_env(),
        ..CompileOptions::default()
    };
    let mut g = c.benchmark_group("frame_16x16");
    g.bench_function("host_runtime", |b| {
        b.iter(|| {
            let shader = rt.compile(&module, &opts).expect("cached");
            let work = Invocations::new(n, Layout::Aos, black_box(&inputs), &mut outputs);
            shader.run_fragments(&rt, &bind, work).expect("runs")
        })
    });
    g.bench_function("host_runtime_reload", |b| {
        b.iter(|| {
            let m = rt.load(black_box(&src)).expect("loads");
            let shader = rt.compile(&m, &opts).expect("cached");
            let work = Invocations::new(n, Layout::Aos, &inputs, &mut outputs);
            shader.run_fragments(&rt, &bind, work).expect("runs")
        })
    });
    let frame = Frame {
        width: W,
        height: H,
        output: 0,
    };
    g.bench_function("host_render", |b| {
        b.iter(|| {
            let shader = rt.compile(&module, &opts).expect("cached");
            shader
                .render(&rt, &bind, frame, &RunControl::default())
                .expect("renders")
        })
    });
    g.finish();
}

criterion_group!(benches, host);
criterion_main!(benches);
