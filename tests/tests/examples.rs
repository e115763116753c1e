//! The example shaders written for this repository (`examples/shaders/`), which need nothing
//! from `../shared`: each runs in the interpreter and in every JIT back end of the build, the
//! back ends agree with the interpreter bit for bit, and the values are what the shader means:
//! the checkerboard's colours cell by cell, the noise's range, the lit sphere's silhouette and
//! highlight, the Mandelbrot set's inside and its first escapes, the vertex shader's transform
//! and lighting, the geometry shader's displaced triangles.

use std::path::PathBuf;
use std::sync::Arc;
use tgsic::back::Backend;
use tgsic::back::abi::MathMode;
use tgsic_runtime::host::{Bindings, CompileOptions, Compiled, Invocation, Module, Picture};
use tgsic_runtime::host::{Filter, Sampler, Texture};
use tgsic_tests::jit_backends;
use tgsic_tests::run::{compile, interpreter, primitives, render, vertices};

fn example(name: &str) -> Module {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/shaders")
        .join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let read = tgsic::front::read(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    Module::new(read.program).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The image from the interpreter, after checking that every JIT back end renders the same bits.
fn render_all(name: &str, bind: &Bindings, w: u32, h: u32) -> Picture {
    let shader = example(name);
    let reference =
        render(&interpreter(&shader), bind, w, h, 0).unwrap_or_else(|e| panic!("{name}: {e}"));
    for (backend, jit) in jits(&shader) {
        let img = render(&jit, bind, w, h, 0).unwrap_or_else(|e| panic!("{name}: {e}"));
        let same = img
            .pixels
            .iter()
            .zip(&reference.pixels)
            .all(|(a, b)| a.map(f32::to_bits) == b.map(f32::to_bits));
        assert!(same, "{name}: {backend:?} differs from the interpreter");
    }
    reference
}

fn texture_of(img: &Picture) -> Texture {
    let texels: Vec<f32> = img.pixels.iter().flatten().copied().collect();
    Texture::from_rgba32f(img.width, img.height, 1, &texels).expect("texture")
}

#[test]
fn the_checkerboard_alternates_its_two_colours() {
    let img = render_all("checker.tgsi", &Bindings::default(), 64, 64);
    let dark = [0.85f32, 0.35, 0.2, 1.0];
    let light = [0.95f32, 0.85, 0.65, 1.0];
    for j in 0..64 {
        for i in 0..64 {
            let want = if (i / 8 + j / 8) % 2 == 1 {
                dark
            } else {
                light
            };
            // LRP is t·(a − b) + b: within an ulp of the colour.
            let got = img.pixel(i, j);
            for c in 0..4 {
                assert!(
                    (got[c] - want[c]).abs() <= 3e-8,
                    "pixel ({i}, {j}): {got:?}"
                );
            }
        }
    }
}

#[test]
fn the_noise_stays_in_its_range_and_varies() {
    let img = render_all("noise.tgsi", &Bindings::default(), 64, 64);
    // n in [0, 0.5 + 0.25 + 0.125]; colour = n·(0.2, 0.45, 0.8) + 0.1.
    let mut distinct = std::collections::BTreeSet::new();
    for p in &img.pixels {
        let n = (p[0] - 0.1) / 0.2;
        assert!((-1e-5..=0.875 + 1e-5).contains(&n), "{p:?}");
        assert!((p[2] - (0.8 * n + 0.1)).abs() < 1e-4, "{p:?}");
        assert_eq!(p[3], 1.0);
        distinct.insert(p[0].to_bits());
    }
    assert!(distinct.len() > 1000, "only {} values", distinct.len());
}

#[test]
fn the_lit_sphere_is_round_textured_and_lit_from_the_upper_left() {
    let checker = render_all("checker.tgsi", &Bindings::default(), 64, 64);
    let bind = Bindings {
        textures: vec![Some(texture_of(&checker))],
        samplers: vec![Sampler {
            min: Filter::Linear,
            mag: Filter::Linear,
            ..Sampler::default()
        }],
        ..Bindings::default()
    };
    let (w, h) = (96, 96);
    let img = render_all("textured_lit.tgsi", &bind, w, h);
    let (mut brightest, mut at) = (0f32, (0, 0));
    for j in 0..h {
        for i in 0..w {
            let x = (i as f32 + 0.5) / w as f32 * 2.0 - 1.0;
            let y = (j as f32 + 0.5) / h as f32 * 2.0 - 1.0;
            let p = img.pixel(i, j);
            let r2 = x * x + y * y;
            if r2 > 1.01 {
                assert_eq!(p, [0.0; 4], "({i}, {j}) is outside the sphere: discarded");
            } else if r2 < 0.99 {
                assert_eq!(p[3], 1.0, "({i}, {j}) is on the sphere");
                let sum = p[0] + p[1] + p[2];
                if sum > brightest {
                    (brightest, at) = (sum, (i, j));
                }
            }
        }
    }
    // The highlight is toward the light, (−0.4, 0.5, 0.77): left of centre and up.
    assert!(at.0 < w / 2 && at.1 > h / 2, "brightest at {at:?}");
    // The texture shows through: neighbouring cells differ on the lit side.
    let a = img.pixel(w / 2 - 20, h / 2 + 4);
    let b = img.pixel(w / 2 - 12, h / 2 + 4);
    assert!((a[1] - b[1]).abs() > 0.1, "{a:?} {b:?}");
}

#[test]
fn the_mandelbrot_loop_finds_the_set() {
    let (w, h) = (64, 64);
    let img = render_all("mandelbrot_loop.tgsi", &Bindings::default(), w, h);
    let c = |i: u32, j: u32| {
        (
            (i as f32 + 0.5) / w as f32 * 3.0 - 2.25,
            (j as f32 + 0.5) / h as f32 * 2.5 - 1.25,
        )
    };
    // Iterations as the shader counts them (z ← z² + c until |z|² ≥ 4, at most 64), in f64:
    // far from the boundary f32 and f64 agree.
    let iterations = |(cx, cy): (f32, f32)| {
        let (cx, cy) = (cx as f64, cy as f64);
        let (mut x, mut y, mut n) = (0f64, 0f64, 0);
        while x * x + y * y < 4.0 && n < 64 {
            (x, y) = (x * x - y * y + cx, 2.0 * x * y + cy);
            n += 1;
        }
        n
    };
    // The main cardioid's interior: the loop runs to its limit; blue.
    let (i, j) = (w * 19 / 30, h / 2);
    assert_eq!(iterations(c(i, j)), 64);
    assert_eq!(
        img.pixel(i, j),
        [0.0, 0.0, 1.0, 1.0],
        "inside at {:?}",
        c(i, j)
    );
    // Far outside: escapes after one or two steps; t = n/64 in red, t² in green, t/5 in blue.
    for (i, j) in [(0, 0), (w - 1, h - 1), (0, h - 1), (w - 1, 0)] {
        let n = iterations(c(i, j));
        assert!(n <= 3, "{n} at {:?}", c(i, j));
        let t = n as f32 * 0.0156;
        let p = img.pixel(i, j);
        assert_eq!(p[0], t * 0.9, "({i}, {j})");
        assert_eq!(p[1], t * t, "({i}, {j})");
        assert_eq!(p[3], 1.0);
    }
}

/// The example vertices and primitives files, read as `tgsic run` reads them.
fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/shaders")
        .join(name)
}

/// JIT shaders for every back end of the build, exact math.
fn jits(shader: &Module) -> Vec<(Backend, Arc<Compiled>)> {
    jit_backends()
        .into_iter()
        .map(|(backend, _)| {
            let config = CompileOptions {
                engine: backend.into(),
                math: MathMode::Exact,
                ..CompileOptions::default()
            };
            let jit = compile(shader, &config).unwrap_or_else(|e| panic!("{e}"));
            (backend, jit)
        })
        .collect()
}

fn vertices_on(s: &Compiled, v: &[Vec<[u32; 4]>]) -> Vec<Invocation> {
    vertices(s, &Bindings::default(), v).expect("vertices run")
}

fn primitives_on(s: &Compiled, p: &[Vec<Vec<[u32; 4]>>]) -> Vec<Invocation> {
    primitives(s, &Bindings::default(), p).expect("primitives run")
}

fn f(v: [u32; 4]) -> [f32; 4] {
    v.map(f32::from_bits)
}

#[test]
fn the_vertex_shader_rotates_projects_and_lights() {
    let shader = example("transform_lit.vert.tgsi");
    let verts = tgsic_cli::attributes::read_vertices(&data("cube_corner.vertices")).unwrap();
    let out = vertices_on(&interpreter(&shader), &verts);
    for (backend, jit) in jits(&shader) {
        let same = format!("{:?}", vertices_on(&jit, &verts)) == format!("{out:?}");
        assert!(same, "{backend:?} differs from the interpreter");
    }
    assert_eq!(out.len(), 6);
    let (c, s) = (0.866f64, 0.5f64);
    let light = [0.3015, 0.9045, 0.3015];
    for (v, o) in verts.iter().zip(&out) {
        let p = f(v[0]).map(|x| x as f64);
        let n = f(v[1]).map(|x| x as f64);
        // Rotation by 30° about y, moved 3 back; w = distance in front of the eye.
        let want = [
            c * p[0] + s * p[2],
            p[1],
            -s * p[0] + c * p[2] - 3.0 * p[3],
            s * p[0] - c * p[2] + 3.0 * p[3],
        ];
        let got = f(o.outputs[0]);
        for k in 0..4 {
            assert!(
                (got[k] as f64 - want[k]).abs() < 1e-5,
                "{got:?} vs {want:?}"
            );
        }
        let rn = [c * n[0] + s * n[2], n[1], -s * n[0] + c * n[2]];
        let d = (rn[0] * light[0] + rn[1] * light[1] + rn[2] * light[2]).max(0.0);
        let k = d * 0.8 + 0.2;
        let colour = f(o.outputs[1]);
        for (got, base) in colour.iter().zip([1.0, 0.6, 0.3]) {
            assert!((*got as f64 - base * k).abs() < 1e-5, "{colour:?}");
        }
        assert_eq!(colour[3], 1.0);
    }
}

#[test]
fn the_geometry_shader_moves_each_triangle_along_its_normal() {
    let shader = example("explode.geom.tgsi");
    let prims =
        tgsic_cli::attributes::read_primitives(&data("two_triangles.primitives"), 3).unwrap();
    let out = primitives_on(&interpreter(&shader), &prims);
    for (backend, jit) in jits(&shader) {
        let same = format!("{:?}", primitives_on(&jit, &prims)) == format!("{out:?}");
        assert!(same, "{backend:?} differs from the interpreter");
    }
    assert_eq!(out.len(), 2);
    for (prim, inv) in prims.iter().zip(&out) {
        assert_eq!(inv.emitted.len(), 4, "three vertices and ENDPRIM");
        assert!(inv.emitted[3].is_none());
        let p: Vec<[f64; 4]> = prim.iter().map(|v| f(v[0]).map(|x| x as f64)).collect();
        let (e1, e2) = (
            [p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]],
            [p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2]],
        );
        let n = [
            e1[1] * e2[2] - e1[2] * e2[1],
            e1[2] * e2[0] - e1[0] * e2[2],
            e1[0] * e2[1] - e1[1] * e2[0],
        ];
        let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        for (k, v) in inv.emitted[..3].iter().enumerate() {
            let v = v.as_ref().expect("a vertex");
            let pos = f(v[0]);
            for c in 0..3 {
                let want = p[k][c] + 0.25 * n[c] / len;
                assert!((pos[c] as f64 - want).abs() < 1e-5, "{pos:?}");
            }
            assert_eq!(v[1], prim[k][1], "the colour passes through");
        }
    }
}

/// The compute example: each work group of 256 leaves the inclusive prefix sums of its 256
/// numbers (a scan in shared memory with barriers inside a loop), with the interpreter and
/// every JIT back end at several widths.
#[test]
fn prefix_sum_scans_each_work_group() {
    let shader = example("prefix_sum.comp.tgsi");
    let values: Vec<u32> = (0..1024u32).map(|i| (i * 7919) % 1000).collect();
    let mut engines = vec![interpreter(&shader)];
    for (backend, lanes) in tgsic_tests::jit_backends() {
        for &lanes in lanes {
            let opts = CompileOptions {
                engine: backend.into(),
                lanes,
                math: MathMode::Exact,
                ..CompileOptions::default()
            };
            engines.push(compile(&shader, &opts).expect("compiles"));
        }
    }
    for e in engines {
        check_prefix_sums(&e, &values);
    }
}

fn check_prefix_sums(shader: &Compiled, values: &[u32]) {
    use tgsic_runtime::host::{Resources, RunControl};
    let mut bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut res = Resources::new();
    res.bind_buffer(0, &mut bytes).expect("binds");
    res.set_shared_bytes(1024).expect("fits");
    shader
        .dispatch(
            tgsic_tests::run::runtime(),
            &Bindings::default(),
            &mut res,
            [4, 1, 1],
            &RunControl::default(),
        )
        .expect("dispatches");
    drop(res);
    let got: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    for (g, (vals, sums)) in values.chunks(256).zip(got.chunks(256)).enumerate() {
        let mut s = 0;
        for (k, (&v, &got)) in vals.iter().zip(sums).enumerate() {
            s += v;
            assert_eq!(got, s, "group {g}, invocation {k}");
        }
    }
}
