//! Tiered compilation (`EngineKind::Auto`): a frame that moves from Cranelift's code to LLVM's in
//! its middle is the same image, bit for bit, as each tier renders alone, in exact and in fast
//! math; a second start takes LLVM's code from the code cache at once; without LLVM, the
//! tiered engine is Cranelift.

use std::path::{Path, PathBuf};
use tgsic::back::abi::MathMode;
use tgsic_runtime::host::BandOrder;
use tgsic_runtime::host::Bindings;
use tgsic_runtime::host::{
    CacheDir, CacheUse, CompileOptions, EngineKind, Frame, Module, RunControl, Runtime,
    RuntimeOptions,
};

const SHADERS: [&str; 3] = ["noise.tgsi", "mandelbrot_loop.tgsi", "checker.tgsi"];

const FRAME: Frame = Frame {
    width: 40,
    height: 48,
    output: 0,
};

fn runtime(cache: CacheDir) -> Runtime {
    Runtime::new(RuntimeOptions {
        threads: 2,
        code_cache: cache,
        ..RuntimeOptions::default()
    })
    .expect("a runtime")
}

fn load(rt: &Runtime, name: &str) -> Module {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/shaders")
        .join(name);
    rt.load(&std::fs::read(path).unwrap()).unwrap()
}

fn image(rt: &Runtime, m: &Module, engine: EngineKind, math: MathMode) -> Vec<[f32; 4]> {
    let opts = CompileOptions {
        engine,
        math,
        ..CompileOptions::default()
    };
    let c = rt.compile(m, &opts).unwrap();
    c.wait_for_best();
    c.render(rt, &Bindings::default(), FRAME, &RunControl::default())
        .unwrap()
        .pixels
        .to_vec()
}

#[test]
fn a_frame_that_moves_tiers_midway_is_each_tiers_image() {
    let llvm = EngineKind::Llvm.available();
    for math in [MathMode::Accurate, MathMode::Exact, MathMode::Fast] {
        for name in SHADERS {
            let rt = runtime(CacheDir::Off);
            let m = load(&rt, name);
            let first = image(&rt, &m, EngineKind::Cranelift, math);
            let opts = CompileOptions {
                engine: EngineKind::Auto,
                math,
                ..CompileOptions::default()
            };
            let c = rt.compile(&m, &opts).unwrap();
            // The first band on whichever tier is ready; then the move is forced: the bands
            // after it run on LLVM's code.
            let mut tiers = Vec::new();
            let mut pixels = Vec::new();
            let mut sink = |band: tgsic_runtime::host::Band| {
                tiers.push(c.tier());
                pixels.extend_from_slice(&band.pixels);
                if tiers.len() == 1 {
                    c.wait_for_best();
                }
                Ok(())
            };
            c.render_bands(
                &rt,
                &Bindings::default(),
                FRAME,
                (8, BandOrder::BottomUp),
                &RunControl::default(),
                &mut sink,
            )
            .unwrap();
            assert_eq!(
                pixels, first,
                "{name}, {math:?}: the tiered image is Cranelift's"
            );
            let last = *tiers.last().unwrap();
            if llvm {
                assert_eq!(last, EngineKind::Llvm, "{name}: LLVM's code ran at the end");
                let best = image(&rt, &m, EngineKind::Llvm, math);
                assert_eq!(pixels, best, "{name}, {math:?}: and LLVM's");
            } else {
                assert_eq!(last, EngineKind::Cranelift, "without LLVM: Cranelift alone");
            }
        }
    }
}

fn folder(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tgsic-tiered-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn a_second_start_runs_the_best_code_from_the_cache_at_once() {
    if !EngineKind::Llvm.available() {
        return;
    }
    let dir = folder("warm");
    let auto = CompileOptions {
        engine: EngineKind::Auto,
        ..CompileOptions::default()
    };
    {
        // The first start: Cranelift now, LLVM's code in the background, which reaches the
        // cache (waited for: a shader dropped before its compile starts cancels it).
        let rt = runtime(CacheDir::At(dir.clone()));
        let m = load(&rt, SHADERS[0]);
        let c = rt.compile(&m, &auto).unwrap();
        assert_eq!(c.cache_use(), CacheUse::Miss);
        assert_eq!(c.wait_for_best(), EngineKind::Llvm);
    }
    let rt = runtime(CacheDir::At(dir.clone()));
    let m = load(&rt, SHADERS[0]);
    let c = rt.compile(&m, &auto).unwrap();
    assert_eq!(c.tier(), EngineKind::Llvm, "the best code at once");
    // The default math, accurate: both tiers compute the same bits.
    let want = image(&rt, &m, EngineKind::Cranelift, MathMode::Accurate);
    let got = c
        .render(&rt, &Bindings::default(), FRAME, &RunControl::default())
        .unwrap();
    assert_eq!(got.pixels, want);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_dropped_shader_leaves_the_background_thread_free() {
    // Many tiered shaders compiled and dropped at once: the runtime keeps working, and drops
    // without hanging.
    let rt = runtime(CacheDir::Off);
    for _ in 0..3 {
        for name in SHADERS {
            let m = load(&rt, name);
            let opts = CompileOptions {
                engine: EngineKind::Auto,
                lanes: 4,
                ..CompileOptions::default()
            };
            drop(rt.compile(&m, &opts).unwrap());
        }
    }
    let m = load(&rt, SHADERS[2]);
    let c = rt.compile(&m, &CompileOptions::default()).unwrap();
    c.wait_for_best();
    drop(rt);
}
