//! The host API on small shaders: reflection, the cache, both layouts, quads and derivatives,
//! discards, and the errors a host can cause.

use super::*;
use crate::engine::Bindings;
use std::sync::Arc;
use tgsic::tgsi::{Interpolation, PropertyName, Semantic, TextureTarget};

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn rt() -> Runtime {
    Runtime::new(RuntimeOptions {
        threads: 2,
        cache_entries: 2,
        code_cache: CacheDir::Off,
        ..RuntimeOptions::default()
    })
    .unwrap()
}

const FS: &str = "FRAG
PROPERTY FS_COORD_ORIGIN UPPER_LEFT
DCL IN[0], POSITION, LINEAR
DCL IN[1..2], GENERIC[3], PERSPECTIVE
DCL OUT[0], COLOR
DCL SAMP[1]
DCL SVIEW[1], 2D, FLOAT
DCL CONST[0][0..4]
DCL CONST[2][7]
DCL TEMP[0]
  0: DDX TEMP[0].x, IN[1].xxxx
  1: DDY TEMP[0].y, IN[1].yyyy
  2: MOV OUT[0].xy, TEMP[0].xyyy
  3: ADD OUT[0].z, IN[2].xxxx, IN[0].xxxx
  4: KILL_IF IN[2].yyyy
  5: MOV OUT[0].w, IN[2].zzzz
  6: END
";

#[test]
fn reflection_describes_the_interface() {
    let m = rt().load(FS.as_bytes()).unwrap();
    let r = m.reflection();
    assert_eq!(r.processor, tgsic::tgsi::Processor::Fragment);
    assert_eq!(r.input_registers, 3);
    assert_eq!(r.output_registers, 1);
    assert_eq!(r.input(Semantic::Position, 0), Some(0));
    assert_eq!(
        r.input(Semantic::Generic, 4),
        Some(2),
        "a range counts its semantic up"
    );
    assert_eq!(r.inputs[1].interpolation, Some(Interpolation::Perspective));
    assert_eq!(r.output(Semantic::Color, 0), Some(0));
    assert_eq!(
        r.constant_buffers,
        [
            ConstantBuffer {
                buffer: 0,
                registers: 5
            },
            ConstantBuffer {
                buffer: 2,
                registers: 8
            }
        ]
    );
    assert_eq!(r.samplers, [1]);
    assert_eq!(r.views.len(), 1);
    assert_eq!(
        (r.views[0].unit, r.views[0].target),
        (1, TextureTarget::Tex2D)
    );
    assert_eq!(r.properties[0].0, PropertyName::FsCoordOrigin);
}

/// Four quads of the FS above: IN[1] = (x, y) of the pixel (quad order: upper left, upper
/// right, lower left, lower right), IN[2] = (k, discard?, 1, 0), IN[0].x = 100.
fn fragments() -> (usize, Vec<[[f32; 4]; 3]>) {
    let mut v = Vec::new();
    for q in 0..4 {
        let (x0, y0) = (2.0 * q as f32, 0.0);
        for (dx, dy) in [(0.0, 1.0), (1.0, 1.0), (0.0, 0.0), (1.0, 0.0)] {
            let k = v.len() as f32;
            let discard = if v.len() == 5 { -1.0 } else { 0.0 };
            v.push([
                [100.0, 0.0, 0.0, 1.0],
                [(x0 + dx) * 3.0, (y0 + dy) * 5.0, 0.0, 1.0],
                [k, discard, 1.0, 0.0],
            ]);
        }
    }
    (v.len(), v)
}

#[test]
fn fragments_run_in_both_layouts_with_derivatives_and_discards() {
    let rt = rt();
    let m = rt.load(FS.as_bytes()).unwrap();
    for engine in [EngineKind::Interpreter, EngineKind::Cranelift] {
        let c = rt
            .compile(&m, &CompileOptions::with_engine(engine))
            .unwrap();
        let (n, frags) = fragments();
        let aos: Vec<u32> = bits(
            &frags
                .iter()
                .flatten()
                .flatten()
                .copied()
                .collect::<Vec<_>>(),
        );
        let mut soa = vec![0u32; aos.len()];
        for (i, f) in frags.iter().enumerate() {
            for r in 0..3 {
                for k in 0..4 {
                    soa[(r * 4 + k) * n + i] = f[r][k].to_bits();
                }
            }
        }
        // The FS reads constant buffers 0 and 2 (never used: empty is enough).
        let bind = Bindings {
            constants: vec![Vec::new(); 3],
            ..Bindings::default()
        };
        let mut out_aos = vec![0u32; n * 4];
        let mut out_soa = vec![0u32; n * 4];
        let mut dis = vec![false; n];
        let work = Invocations::new(n, Layout::Aos, &aos, &mut out_aos).with_discarded(&mut dis);
        let rep = c.run_fragments(&rt, &bind, work).unwrap();
        c.run_fragments(
            &rt,
            &bind,
            Invocations::new(n, Layout::Soa, &soa, &mut out_soa),
        )
        .unwrap();
        assert_eq!(rep.invocations, n as u64);
        assert_eq!(rep.discarded, 1, "{engine:?}");
        assert!(dis[5] && dis.iter().filter(|&&d| d).count() == 1);
        for i in 0..n {
            let a: Vec<f32> = (0..4).map(|k| f32::from_bits(out_aos[i * 4 + k])).collect();
            let s: Vec<f32> = (0..4).map(|k| f32::from_bits(out_soa[k * n + i])).collect();
            assert_eq!(a, s, "fragment {i}: the layouts agree");
            if i == 5 {
                continue;
            }
            // DDX of 3x is 3, DDY of 5y is 5; z = k + 100; w = 1.
            assert_eq!(
                a,
                [3.0, 5.0, i as f32 + 100.0, 1.0],
                "fragment {i} ({engine:?})"
            );
        }
    }
}

#[test]
fn compiled_shaders_are_cached_by_tokens_and_options() {
    let rt = rt();
    let m = rt.load(FS.as_bytes()).unwrap();
    let jit = CompileOptions::default();
    let interp = CompileOptions::with_engine(EngineKind::Interpreter);
    let a = rt.compile(&m, &jit).unwrap();
    let b = rt.compile(&rt.load(FS.as_bytes()).unwrap(), &jit).unwrap();
    assert!(
        Arc::ptr_eq(&a, &b),
        "the same tokens and options hit the cache"
    );
    assert_eq!(rt.compiles(), 1);
    let c = rt.compile(&m, &interp).unwrap();
    assert!(!Arc::ptr_eq(&a, &c));
    // Using the JIT entry again makes the interpreter's the least recently used: a third
    // program (differing in one token) evicts it, as the cache holds 2.
    assert!(Arc::ptr_eq(&a, &rt.compile(&m, &jit).unwrap()));
    let other = rt
        .load(FS.replace("IN[2].zzzz", "IN[2].wwww").as_bytes())
        .unwrap();
    let d = rt.compile(&other, &jit).unwrap();
    assert!(!Arc::ptr_eq(&a, &d), "one token differs: another shader");
    assert_eq!((rt.cached(), rt.compiles()), (2, 3));
    assert!(Arc::ptr_eq(&a, &rt.compile(&m, &jit).unwrap()));
    rt.compile(&m, &interp).unwrap();
    assert_eq!(rt.compiles(), 4, "the interpreter's entry had been evicted");
    // A runtime without a cache compiles every time and keeps nothing.
    let none = Runtime::new(RuntimeOptions {
        threads: 1,
        cache_entries: 0,
        code_cache: CacheDir::Off,
        ..RuntimeOptions::default()
    })
    .unwrap();
    let a = none.compile(&m, &jit).unwrap();
    let b = none.compile(&m, &jit).unwrap();
    assert!(!Arc::ptr_eq(&a, &b));
    assert_eq!((none.cached(), none.compiles()), (0, 2));
}

#[test]
fn code_compiled_up_front_is_what_a_run_uses_and_can_be_read() {
    // A texture lookup: compiled for the bindings up front, the run finds its variant; the
    // code of the variant can be read back as text; the interpreter has none.
    let src = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\n\
               DCL SVIEW[0], 2D, FLOAT\nTEX OUT[0], IN[0], SAMP[0], 2D\nEND\n";
    let rt = rt();
    let m = rt.load(src.as_bytes()).unwrap();
    let texels: Vec<f32> = (0..4 * 4 * 4).map(|k| k as f32 / 64.0).collect();
    let bind = Bindings {
        textures: vec![Some(
            crate::texture::Texture::from_rgba32f(4, 4, 1, &texels).unwrap(),
        )],
        ..Bindings::default()
    };
    let c = rt
        .compile_for(&m, &CompileOptions::default(), Lookups::For(&bind))
        .unwrap();
    let code = c.code_text(Lookups::For(&bind)).unwrap();
    let clif = code.ir_text.unwrap();
    assert!(code.code_size > 0 && clif.contains("function"), "{clif}");
    let frame = Frame {
        width: 4,
        height: 4,
        output: 0,
    };
    let image = c.render(&rt, &bind, frame, &RunControl::default()).unwrap();
    let want = crate::dispatch::render(&m, &bind, 4, 4, 0).unwrap();
    assert_eq!(image.pixels, want.pixels);
    let interp = rt
        .compile(&m, &CompileOptions::with_engine(EngineKind::Interpreter))
        .unwrap();
    assert!(matches!(
        interp.code_text(Lookups::Every),
        Err(HostError::NoCode)
    ));
}

#[test]
fn host_mistakes_are_errors() {
    let rt = rt();
    assert!(matches!(
        rt.load(b"FRAG\nMOV OUT[0], IN[9]\n"),
        Err(HostError::Load(_) | HostError::Read(_))
    ));
    assert!(matches!(
        rt.load(b"\xff\xfe garbage"),
        Err(HostError::Read(_))
    ));
    let m = rt.load(FS.as_bytes()).unwrap();
    let c = rt.compile(&m, &CompileOptions::default()).unwrap();
    // The FS reads constant buffers 0 and 2 (never used: empty is enough).
    let bind = Bindings {
        constants: vec![Vec::new(); 3],
        ..Bindings::default()
    };
    let mut out = vec![0u32; 8 * 4];
    let e = c
        .run_fragments(
            &rt,
            &bind,
            Invocations::new(8, Layout::Aos, &[0; 8 * 12 - 1], &mut out),
        )
        .unwrap_err();
    assert!(
        matches!(
            e,
            HostError::Buffer {
                what: "inputs",
                want: 96,
                ..
            }
        ),
        "{e}"
    );
    let e = c
        .run_fragments(
            &rt,
            &bind,
            Invocations::new(8, Layout::Aos, &[0; 96], &mut out[..31]),
        )
        .unwrap_err();
    assert!(
        matches!(
            e,
            HostError::Buffer {
                what: "outputs",
                ..
            }
        ),
        "{e}"
    );
    let e = c
        .run_fragments(
            &rt,
            &bind,
            Invocations::new(6, Layout::Aos, &[0; 72], &mut out[..24]),
        )
        .unwrap_err();
    assert!(matches!(e, HostError::Quads(6)), "{e}");
    let e = c
        .run_vertices(
            &rt,
            &bind,
            Invocations::new(8, Layout::Aos, &[0; 96], &mut out),
        )
        .unwrap_err();
    assert!(matches!(e, HostError::Processor { .. }), "{e}");
    let e = c
        .run_fragments(
            &rt,
            &bind,
            Invocations::new(usize::MAX / 2, Layout::Soa, &[], &mut []),
        )
        .unwrap_err();
    assert!(
        matches!(e, HostError::Buffer { .. } | HostError::Quads(_)),
        "{e}"
    );
    let mut few = [false; 3];
    let work = Invocations::new(8, Layout::Aos, &[0; 96], &mut out).with_discarded(&mut few);
    let e = c.run_fragments(&rt, &bind, work).unwrap_err();
    assert!(
        matches!(
            e,
            HostError::Buffer {
                what: "discarded",
                ..
            }
        ),
        "{e}"
    );
    // A shader that reads constant buffer 1 and samples unit 2: both must be bound.
    let reads = rt
        .load(b"FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0], COLOR\nDCL SAMP[2]\nDCL SVIEW[2], 2D, FLOAT\nDCL CONST[0]\nDCL CONST[1][0]\nDCL TEMP[0]\n  0: TEX TEMP[0], IN[0], SAMP[2], 2D\n  1: MUL OUT[0], TEMP[0], CONST[1][0]\n  2: END\n")
        .unwrap();
    assert_eq!(
        reads.reflection().constant_buffers_read,
        [1],
        "CONST[0] is declared, not read"
    );
    assert_eq!(reads.reflection().texture_units_read, [2]);
    let rc = rt.compile(&reads, &CompileOptions::default()).unwrap();
    let mut out4 = vec![0u32; 16];
    let mut run = |bind: &Bindings| {
        rc.run_fragments(
            &rt,
            bind,
            Invocations::new(4, Layout::Aos, &[0; 16], &mut out4),
        )
    };
    let e = run(&Bindings::default()).unwrap_err();
    assert!(
        matches!(
            e,
            HostError::Unbound {
                what: "constant buffer",
                index: 1
            }
        ),
        "{e}"
    );
    let e = run(&Bindings {
        constants: vec![Vec::new(), vec![[0; 4]]],
        ..Bindings::default()
    })
    .unwrap_err();
    assert!(
        matches!(
            e,
            HostError::Unbound {
                what: "texture unit",
                index: 2
            }
        ),
        "{e}"
    );
    // No fragments is nothing to do.
    let r = c
        .run_fragments(&rt, &bind, Invocations::new(0, Layout::Soa, &[], &mut []))
        .unwrap();
    assert_eq!(r.invocations, 0);
}

#[test]
fn vertices_run_with_the_hosts_system_values() {
    let src = "VERT\nDCL IN[0]\nDCL SV[0], VERTEXID\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\n  0: MUL OUT[0], IN[0], IN[0]\n  1: U2F OUT[1].x, SV[0].xxxx\n  2: END\n";
    let rt = rt();
    let m = rt.load(src.as_bytes()).unwrap();
    assert_eq!(
        (
            m.reflection().input_registers,
            m.reflection().first_system_value
        ),
        (2, 1)
    );
    let c = rt.compile(&m, &CompileOptions::default()).unwrap();
    let n = 70;
    let mut inputs = Vec::new();
    for v in 0..n {
        inputs.extend(bits(&[v as f32, 2.0, 0.5, 1.0]));
        inputs.extend([v as u32 + 1000, 0, 0, 0]);
    }
    let mut out = vec![0u32; n * 8];
    c.run_vertices(
        &rt,
        &Bindings::default(),
        Invocations::new(n, Layout::Aos, &inputs, &mut out),
    )
    .unwrap();
    for v in 0..n {
        let o: Vec<f32> = out[v * 8..v * 8 + 8]
            .iter()
            .map(|&b| f32::from_bits(b))
            .collect();
        assert_eq!(o[..5], [(v * v) as f32, 4.0, 0.25, 1.0, v as f32 + 1000.0]);
    }
}
