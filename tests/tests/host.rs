//! The host API renders what `tgsic run` renders: a host that computes the fragment inputs
//! itself (`docs/run.md`: POSITION = (i + ½, H − (j + ½), ½, 1), every other input
//! ((i + ½)/W, (j + ½)/H, 0, 1)) and runs the example shaders through `tgsic_runtime::host` gets
//! the picture of `Compiled::render` bit for bit, with the interpreter and every JIT back end,
//! in both buffer layouts; and frames after the first compile nothing.

use std::path::PathBuf;
use tgsic::tgsi::Semantic;
use tgsic_runtime::host::Bindings;
use tgsic_runtime::host::{
    CompileOptions, EngineKind, Invocations, Layout, Module, Runtime, RuntimeOptions, quad_order,
};
use tgsic_tests::jit_backends;
use tgsic_tests::run::{interpreter, primitives, render};

fn load(rt: &Runtime, name: &str) -> Module {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/shaders")
        .join(name);
    rt.load(&std::fs::read(&path).unwrap()).unwrap()
}

/// The fragment inputs of a W × H image (W and H even), quad by quad: upper left, upper right,
/// lower left, lower right; and each fragment's pixel.
fn inputs(m: &Module, w: u32, h: u32, layout: Layout) -> (Vec<u32>, Vec<(u32, u32)>) {
    let r = m.reflection();
    let regs = r.input_registers;
    let pixels: Vec<(u32, u32)> = quad_order(w, h).collect();
    let n = pixels.len();
    let mut data = vec![0u32; n * regs * 4];
    for (k, &(i, j)) in pixels.iter().enumerate() {
        for v in &r.inputs {
            let value = match v.semantic {
                Some((Semantic::Position, _)) => {
                    [i as f32 + 0.5, h as f32 - (j as f32 + 0.5), 0.5, 1.0]
                }
                Some((Semantic::Face, _)) => [1.0, 0.0, 0.0, 1.0],
                _ => [
                    (i as f32 + 0.5) / w as f32,
                    (j as f32 + 0.5) / h as f32,
                    0.0,
                    1.0,
                ],
            };
            for (c, x) in value.iter().enumerate() {
                let at = match layout {
                    Layout::Aos => (k * regs + v.register as usize) * 4 + c,
                    Layout::Soa => (v.register as usize * 4 + c) * n + k,
                };
                data[at] = x.to_bits();
            }
        }
    }
    (data, pixels)
}

#[test]
fn a_host_renders_what_tgsic_run_renders() {
    let rt = Runtime::new(RuntimeOptions::default()).unwrap();
    let (w, h) = (48, 32);
    let bind = Bindings::default();
    let mut engines = vec![EngineKind::Interpreter];
    engines.extend(
        jit_backends()
            .into_iter()
            .map(|(backend, _)| EngineKind::from(backend)),
    );
    for name in ["noise.tgsi", "mandelbrot_loop.tgsi", "checker.tgsi"] {
        let m = load(&rt, name);
        let reference = render(&interpreter(&m), &bind, w, h, 0).unwrap();
        let color = m.reflection().output(Semantic::Color, 0).unwrap() as usize;
        let outs = m.reflection().output_registers;
        for engine in &engines {
            // Exact math: the interpreter's bits.
            let exact = CompileOptions {
                math: tgsic::back::abi::MathMode::Exact,
                ..CompileOptions::with_engine(*engine)
            };
            let c = rt.compile(&m, &exact).unwrap();
            for layout in [Layout::Aos, Layout::Soa] {
                let (data, pixels) = inputs(&m, w, h, layout);
                let n = pixels.len();
                let mut out = vec![0u32; n * outs * 4];
                c.run_fragments(&rt, &bind, Invocations::new(n, layout, &data, &mut out))
                    .unwrap();
                for (k, &(i, j)) in pixels.iter().enumerate() {
                    let got: Vec<u32> = (0..4)
                        .map(|ch| match layout {
                            Layout::Aos => out[(k * outs + color) * 4 + ch],
                            Layout::Soa => out[(color * 4 + ch) * n + k],
                        })
                        .collect();
                    let want: Vec<u32> =
                        reference.pixel(i, j).iter().map(|x| x.to_bits()).collect();
                    assert_eq!(
                        got, want,
                        "{name}, {engine:?}, {layout:?}, pixel ({i}, {j})"
                    );
                }
            }
        }
    }
}

#[test]
fn frames_after_the_first_compile_nothing() {
    let rt = Runtime::new(RuntimeOptions::default()).unwrap();
    let (w, h) = (32, 32);
    let bind = Bindings::default();
    let mut last = Vec::new();
    for frame in 0..20 {
        // The host reads and compiles every frame, as a naive host would: the runtime's cache
        // compiles once.
        let m = load(&rt, "noise.tgsi");
        let c = rt.compile(&m, &CompileOptions::default()).unwrap();
        let (data, pixels) = inputs(&m, w, h, Layout::Aos);
        let mut out = vec![0u32; pixels.len() * m.reflection().output_registers * 4];
        let work = Invocations::new(pixels.len(), Layout::Aos, &data, &mut out);
        c.run_fragments(&rt, &bind, work).unwrap();
        if frame > 0 {
            assert_eq!(out, last, "frame {frame}");
        }
        last = out;
    }
    assert_eq!(rt.compiles(), 1);
}

#[test]
fn geometry_through_the_host_api_emits_what_run_geometry_emits() {
    use tgsic_runtime::host::Emission;
    let rt = Runtime::new(RuntimeOptions::default()).unwrap();
    let m = load(&rt, "explode.geom.tgsi");
    let r = m.reflection().clone();
    assert_eq!((r.vertices_per_primitive, r.max_output_vertices), (3, 3));
    let prims = tgsic_cli::attributes::read_primitives(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../examples/shaders/two_triangles.primitives"),
        3,
    )
    .unwrap();
    // 70 primitives (two batches): the two triangles over and over.
    let prims: Vec<_> = prims.iter().cycle().take(70).cloned().collect();
    let reference = primitives(&interpreter(&m), &Bindings::default(), &prims).unwrap();
    let per = r.primitive_input_registers();
    let inputs: Vec<u32> = prims
        .iter()
        .flat_map(|p| {
            let mut v: Vec<u32> = p
                .iter()
                .flat_map(|vert| vert.iter().flatten().copied())
                .collect();
            v.resize(per * 4, 0);
            v
        })
        .collect();
    let max = r.max_output_vertices;
    let outs = r.output_registers;
    let mut vertices = vec![0u32; prims.len() * max * outs * 4];
    let mut counts = vec![0u32; prims.len()];
    let mut ends = vec![false; prims.len() * max];
    for engine in [EngineKind::Interpreter, EngineKind::Cranelift] {
        let c = rt
            .compile(&m, &CompileOptions::with_engine(engine))
            .unwrap();
        let out = Emission {
            vertices: &mut vertices,
            counts: &mut counts,
            ends: &mut ends,
        };
        c.run_primitives(
            &rt,
            &Bindings::default(),
            prims.len(),
            Layout::Aos,
            &inputs,
            out,
        )
        .unwrap();
        for (p, inv) in reference.iter().enumerate() {
            let emitted: Vec<&Vec<[u32; 4]>> = inv.emitted.iter().flatten().collect();
            assert_eq!(
                counts[p] as usize,
                emitted.len(),
                "{engine:?} primitive {p}"
            );
            for (k, v) in emitted.iter().enumerate() {
                let at = ((p * max + k) * outs) * 4;
                let got: Vec<u32> = vertices[at..at + outs * 4].to_vec();
                let want: Vec<u32> = v.iter().flatten().copied().collect();
                assert_eq!(got, want, "{engine:?} primitive {p} vertex {k}");
            }
            assert_eq!(ends[p * max..p * max + max], [false, false, true]);
        }
    }
}

mod never_panics {
    use super::*;
    use proptest::prelude::*;
    use tgsic_runtime::host::{Emission, HostError};

    fn cases() -> u32 {
        if std::env::var_os("CI").is_some() {
            64
        } else {
            256
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(cases()))]

        /// Whatever counts and buffer lengths a host passes, a run returns (an error when they
        /// do not fit), never panics, and never writes past a buffer.
        #[test]
        fn any_counts_and_lengths(
            count in prop_oneof![0usize..40, Just(usize::MAX), Just(usize::MAX / 4)],
            in_len in 0usize..700,
            out_len in 0usize..700,
            flags in proptest::option::of(0usize..40),
            soa in any::<bool>(),
            which in 0usize..3,
        ) {
            let rt = Runtime::new(RuntimeOptions { threads: 2, cache_entries: 4, ..RuntimeOptions::default() }).unwrap();
            let name = ["noise.tgsi", "transform_lit.vert.tgsi", "explode.geom.tgsi"][which];
            let m = load(&rt, name);
            let c = rt.compile(&m, &CompileOptions::default()).unwrap();
            let layout = if soa { Layout::Soa } else { Layout::Aos };
            let inputs = vec![0x3f80_0000u32; in_len];
            // A guard word after the outputs: nothing may write it.
            let mut outputs = vec![7u32; out_len + 1];
            let mut discarded = vec![false; flags.unwrap_or(0)];
            let bind = Bindings::default();
            let (body, guard) = outputs.split_at_mut(out_len);
            let result = match which {
                0 => {
                    let mut work = Invocations::new(count, layout, &inputs, body);
                    if flags.is_some() {
                        work = work.with_discarded(&mut discarded);
                    }
                    c.run_fragments(&rt, &bind, work)
                }
                1 => c.run_vertices(&rt, &bind, Invocations::new(count, layout, &inputs, body)),
                _ => {
                    let mut counts = vec![0u32; flags.unwrap_or(0)];
                    let mut ends = vec![false; in_len / 7];
                    let out = Emission { vertices: body, counts: &mut counts, ends: &mut ends };
                    c.run_primitives(&rt, &bind, count, layout, &inputs, out)
                }
            };
            prop_assert_eq!(guard[0], 7);
            if let Err(e) = result {
                prop_assert!(
                    matches!(e, HostError::Buffer { .. } | HostError::Quads(_)),
                    "{}", e
                );
            }
        }
    }
}
