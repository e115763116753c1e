//! Images in bands and ragged grids: every pixel its own inputs, on one thread and on two.

use super::*;
use crate::engine::Module;

#[test]
fn bands_in_either_order_make_the_whole_image() {
    // A shader whose pixels differ everywhere, and a discard.
    let src = "FRAG\nDCL IN[0], POSITION, LINEAR\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
               IMM[0] FLT32 { 0.5, 3.0, 0.0, 0.0 }\n\
               MUL TEMP[0], IN[0], IMM[0].xyxy\nFRC OUT[0], TEMP[0]\n\
               SLT TEMP[0].x, IN[0].xxxx, IMM[0].yyyy\nKILL_IF -TEMP[0].xxxx\nEND\n";
    let shader = Module::new(tgsic::front::text::parse(src).unwrap()).unwrap();
    let bind = Bindings::default();
    let opts = RunOptions {
        threads: 2,
        ..RunOptions::default()
    };
    let (w, h) = (13, 37);
    let whole = render_with(&shader, &bind, w, h, 0, &opts).unwrap();
    assert_eq!(
        whole.discarded,
        3 * 37,
        "the three left columns are discarded"
    );
    for order in [BandOrder::BottomUp, BandOrder::TopDown] {
        let mut bands = Vec::new();
        let report = render_rows(&shader, &bind, (w, h), 0, &opts, (8, order), &mut |b| {
            bands.push(b);
            Ok(())
        })
        .unwrap();
        assert_eq!(report.discarded, whole.discarded);
        let firsts: Vec<u32> = bands.iter().map(|b| b.y0).collect();
        let want = match order {
            BandOrder::BottomUp => vec![0, 8, 16, 24, 32],
            BandOrder::TopDown => vec![32, 24, 16, 8, 0],
        };
        assert_eq!(firsts, want);
        assert_eq!(bands.iter().map(|b| b.rows).sum::<u32>(), h);
        for b in &bands {
            for y in b.y0..b.y0 + b.rows {
                let k = (y * w) as usize;
                assert_eq!(b.row(y), &whole.pixels[k..k + w as usize], "row {y}");
            }
        }
    }
    // A band must be whole tiles.
    let e = render_rows(
        &shader,
        &bind,
        (w, h),
        0,
        &opts,
        (12, BandOrder::BottomUp),
        &mut |_| Ok(()),
    );
    assert!(e.is_err());
}

#[test]
fn every_pixel_gets_its_own_inputs_in_wide_and_ragged_images() {
    // Wider than a segment, neither side a multiple of 8: every pixel reads its own
    // position and GENERIC value (`docs/run.md`), on one thread and on two, and the
    // pixels with x < 3 are discarded.
    let src = "FRAG\nDCL IN[0], POSITION, LINEAR\nDCL IN[1], GENERIC[0], LINEAR\n\
               DCL OUT[0], COLOR\nDCL TEMP[0]\nIMM[0] FLT32 { 3.0, 0.0, 0.0, 0.0 }\n\
               MOV OUT[0].xy, IN[0].xyxy\nMOV OUT[0].zw, IN[1].xxxy\n\
               SLT TEMP[0].x, IN[0].xxxx, IMM[0].xxxx\nKILL_IF -TEMP[0].xxxx\nEND\n";
    let shader = Module::new(tgsic::front::text::parse(src).unwrap()).unwrap();
    let bind = Bindings {
        clear: [-7.0; 4],
        ..Bindings::default()
    };
    let (w, h) = (8 * SEGMENT_TILES * 2 + 13, 11);
    for threads in [1, 2] {
        let opts = RunOptions {
            threads,
            ..RunOptions::default()
        };
        let img = render_with(&shader, &bind, w, h, 0, &opts).unwrap();
        assert_eq!(img.pixels.len(), (w * h) as usize);
        assert_eq!(img.discarded, 3 * u64::from(h));
        for j in 0..h {
            for i in 0..w {
                let want = if i < 3 {
                    [-7.0; 4]
                } else {
                    [
                        i as f32 + 0.5,
                        h as f32 - (j as f32 + 0.5),
                        (i as f32 + 0.5) / w as f32,
                        (j as f32 + 0.5) / h as f32,
                    ]
                };
                assert_eq!(img.pixel(i, j), want, "pixel ({i}, {j}), {threads} threads");
            }
        }
    }
}

#[test]
fn jit_code_reads_each_tiles_column_of_the_inputs() {
    // JIT code takes component x of IN from the render's table of columns (`Columns`), the
    // interpreter from the batch: both give every pixel its own position and GENERIC values,
    // also for the second register of a declaration, in ragged tiles, on one thread and two.
    // A shader that indexes IN reads the batch itself, so the renderer fills it as before.
    use crate::engine::{CompileOptions, Engine};
    use crate::jit::{JitShader, JitSpec};
    use tgsic::back::Backend;
    let direct = "FRAG\nDCL IN[0], POSITION, LINEAR\nDCL IN[1..2], GENERIC[0], LINEAR\n\
                  DCL OUT[0], COLOR\nMOV OUT[0].xy, IN[0].xyxx\nMOV OUT[0].z, IN[2].xxxx\n\
                  MOV OUT[0].w, IN[1].yyyy\nEND\n";
    let indexed = "FRAG\nDCL IN[0], POSITION, LINEAR\nDCL IN[1..2], GENERIC[0], LINEAR\n\
                   DCL OUT[0], COLOR\nDCL ADDR[0]\nIMM[0] INT32 { 1, 0, 0, 0 }\n\
                   UARL ADDR[0].x, IMM[0].xxxx\nMOV OUT[0].xy, IN[0].xyxx\n\
                   MOV OUT[0].z, IN[ADDR[0].x+1].xxxx\nMOV OUT[0].w, IN[1].yyyy\nEND\n";
    let (w, h) = (8 * SEGMENT_TILES + 21, 19);
    let want = |i: u32, j: u32| {
        [
            i as f32 + 0.5,
            h as f32 - (j as f32 + 0.5),
            (i as f32 + 0.5) / w as f32,
            (j as f32 + 0.5) / h as f32,
        ]
    };
    for src in [direct, indexed] {
        let shader = Module::new(tgsic::front::text::parse(src).unwrap()).unwrap();
        let bind = Bindings::default();
        for backend in Backend::ALL.into_iter().filter(|b| b.available()) {
            let config = CompileOptions {
                engine: backend.into(),
                ..CompileOptions::default()
            };
            let jit = JitShader::compile(JitSpec::new(shader.clone(), &config)).unwrap();
            assert!(jit.reads_columns());
            for threads in [1, 2] {
                let opts = RunOptions {
                    threads,
                    ..RunOptions::default()
                };
                for (name, img) in [
                    ("interpreter", render_with(&shader, &bind, w, h, 0, &opts)),
                    ("jit", render_with(&jit, &bind, w, h, 0, &opts)),
                ] {
                    let img = img.unwrap();
                    for j in 0..h {
                        for i in 0..w {
                            assert_eq!(
                                img.pixel(i, j),
                                want(i, j),
                                "{name} ({backend:?}), pixel ({i}, {j}), {threads} threads\n{src}"
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn jit_code_without_inputs_renders_what_the_interpreter_does() {
    // A shader that declares no IN register (a constant colour, system values only, a
    // constant buffer) reads no column table: every JIT renders it as the interpreter does.
    use crate::engine::{CompileOptions, EngineKind};
    use crate::jit::{JitShader, JitSpec};
    use tgsic::back::Backend;
    let constant = "FRAG\nDCL OUT[0], COLOR\nIMM[0] FLT32 {1.0, 0.5, 0.0, 2.0}\n\
                    MOV OUT[0], IMM[0]\nEND\n";
    let system = "FRAG\nDCL SV[0], POSITION\nDCL OUT[0], COLOR\nMOV OUT[0], SV[0]\nEND\n";
    let uniform = "FRAG\nDCL OUT[0], COLOR\nDCL CONST[0][0]\nMOV OUT[0], CONST[0][0]\nEND\n";
    let bind = Bindings {
        constants: vec![vec![[0.25f32, -1.0, 3.0, 0.5].map(f32::to_bits)]],
        ..Bindings::default()
    };
    let (w, h) = (8 * SEGMENT_TILES + 5, 11);
    for src in [constant, system, uniform] {
        let shader = Module::new(tgsic::front::text::parse(src).unwrap()).unwrap();
        let want = render(&shader, &bind, w, h, 0).unwrap();
        assert!(
            want.pixels.iter().any(|p| p.iter().any(|&c| c != 0.0)),
            "{src}"
        );
        for backend in Backend::ALL.into_iter().filter(|b| b.available()) {
            let config = CompileOptions::with_engine(EngineKind::from(backend));
            let jit = JitShader::compile(JitSpec::new(shader.clone(), &config)).unwrap();
            for threads in [1, 2] {
                let opts = RunOptions {
                    threads,
                    ..RunOptions::default()
                };
                let got = render_with(&jit, &bind, w, h, 0, &opts)
                    .unwrap_or_else(|e| panic!("{backend:?}, {threads} threads: {e}\n{src}"));
                assert_eq!(
                    got.pixels, want.pixels,
                    "{backend:?}, {threads} threads\n{src}"
                );
            }
        }
    }
}
