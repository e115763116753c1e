//! A small software rasterizer on tgsic's host API: a textured, lit, spinning cube.
//!
//! `cargo run --release -p tgsic-runtime --features png --example raster -- cube.png [FRAMES]`
//!
//! The host does what a GPU's fixed function does, in this file: it runs the vertex shader
//! (`examples/shaders/cube.vert.tgsi`) over the mesh through `Compiled::run_vertices`, clips
//! nothing (the cube stays in front of the eye), divides by w, culls back faces, walks each
//! triangle's bounding box in 2×2 quads, computes perspective-correct barycentric weights,
//! interpolates the vertex shader's outputs into the fragment shader's inputs (the quad's
//! uncovered pixels too, as helpers for the texture's derivatives), runs the fragment shader
//! (`examples/shaders/cube.frag.tgsi`) through `Compiled::run_fragments`, and keeps the nearest
//! fragment per pixel. The texture is the checker example, rendered through the same API.
//! With FRAMES > 1 it renders the cube spinning and reports the time per frame: after the first
//! frame nothing is compiled and no thread is started.

use std::path::{Path, PathBuf};
use tgsic::tgsi::Semantic;
use tgsic_runtime::host::{Bindings, Filter, Sampler, Texture};
use tgsic_runtime::host::{
    CompileOptions, Compiled, Invocations, Layout, Module, Runtime, RuntimeOptions, quad_order,
};

const W: usize = 512;
const H: usize = 512;

type Error = Box<dyn std::error::Error>;

fn shader(rt: &Runtime, name: &str) -> Result<Module, Error> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/shaders")
        .join(name);
    Ok(rt.load(&std::fs::read(&path)?)?)
}

fn bits(v: [f32; 4]) -> [u32; 4] {
    v.map(f32::to_bits)
}

/// The cube: 6 faces × 4 vertices (position, normal, texture coordinate), 12 triangles.
fn cube() -> (Vec<[[f32; 4]; 3]>, Vec<[usize; 3]>) {
    let mut verts = Vec::new();
    let mut tris = Vec::new();
    let faces: [([f32; 3], [f32; 3], [f32; 3]); 6] = [
        ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        ([0.0, 0.0, -1.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        ([1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]),
        ([-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]),
        ([0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]),
        ([0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
    ];
    for (n, u, v) in faces {
        let base = verts.len();
        for (a, b) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            let p: Vec<f32> = (0..3).map(|k| n[k] + a * u[k] + b * v[k]).collect();
            verts.push([
                [p[0], p[1], p[2], 1.0],
                [n[0], n[1], n[2], 0.0],
                [(a + 1.0) / 2.0, (b + 1.0) / 2.0, 0.0, 1.0],
            ]);
        }
        tris.push([base, base + 1, base + 2]);
        tris.push([base, base + 2, base + 3]);
    }
    (verts, tris)
}

/// Row-major 4×4 product.
fn mul(a: [[f32; 4]; 4], b: [[f32; 4]; 4]) -> [[f32; 4]; 4] {
    let mut m = [[0.0; 4]; 4];
    for (i, row) in m.iter_mut().enumerate() {
        for (j, x) in row.iter_mut().enumerate() {
            *x = (0..4).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    m
}

/// The vertex shader's constants for a turn of `t` radians: CONST[0..3] the model-view-
/// projection rows, CONST[4..6] the rotation rows (for normals).
fn constants(t: f32) -> Vec<[u32; 4]> {
    let (s, c) = t.sin_cos();
    let (s2, c2) = (0.5f32.sin(), 0.5f32.cos());
    let yaw = [
        [c, 0.0, s, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [-s, 0.0, c, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    let pitch = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, c2, -s2, 0.0],
        [0.0, s2, c2, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    let rot = mul(pitch, yaw);
    let view = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, -5.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    // Perspective: 45° field of view, near 1, far 10 (z to [-1, 1]).
    let f = 1.0 / (22.5f32.to_radians()).tan();
    let proj = [
        [f, 0.0, 0.0, 0.0],
        [0.0, f, 0.0, 0.0],
        [0.0, 0.0, -11.0 / 9.0, -20.0 / 9.0],
        [0.0, 0.0, -1.0, 0.0],
    ];
    let mvp = mul(proj, mul(view, rot));
    mvp.iter().chain(&rot[..3]).map(|r| bits(*r)).collect()
}

/// The rasterizer's state for one frame.
struct Frame {
    colour: Vec<[f32; 4]>,
    depth: Vec<f32>,
}

/// One screen-space vertex: position in pixels, depth, 1/w, and the varyings divided by w.
#[derive(Clone, Copy)]
struct ScreenVertex {
    x: f32,
    y: f32,
    z: f32,
    inv_w: f32,
    vary: [[f32; 4]; 2],
}

fn to_screen(clip: [f32; 4], vary: [[f32; 4]; 2]) -> ScreenVertex {
    let inv_w = 1.0 / clip[3];
    ScreenVertex {
        x: (clip[0] * inv_w + 1.0) * 0.5 * W as f32,
        y: (clip[1] * inv_w + 1.0) * 0.5 * H as f32,
        z: clip[2] * inv_w,
        inv_w,
        vary: vary.map(|v| v.map(|c| c * inv_w)),
    }
}

fn edge(a: (f32, f32), b: (f32, f32), p: (f32, f32)) -> f32 {
    (b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0)
}

/// Rasterizes one triangle: the fragments of every 2×2 quad it touches, in the fragment
/// shader's input layout (IN[0] texture coordinate, IN[1] normal), with each fragment's pixel,
/// whether it is covered, and its depth.
fn rasterize(
    t: [ScreenVertex; 3],
    inputs: &mut Vec<u32>,
    frags: &mut Vec<Fragment>,
    regs: usize,
    uv_reg: usize,
    n_reg: usize,
) {
    let p = t.map(|v| (v.x, v.y));
    let area = edge(p[0], p[1], p[2]);
    if area <= 0.0 {
        return; // Back-facing or degenerate.
    }
    let min_x = p.iter().map(|q| q.0).fold(f32::MAX, f32::min).max(0.0) as usize & !1;
    let min_y = p.iter().map(|q| q.1).fold(f32::MAX, f32::min).max(0.0) as usize & !1;
    let max_x = (p.iter().map(|q| q.0).fold(f32::MIN, f32::max).ceil() as usize).min(W - 1);
    let max_y = (p.iter().map(|q| q.1).fold(f32::MIN, f32::max).ceil() as usize).min(H - 1);
    for qy in (min_y..=max_y).step_by(2) {
        for qx in (min_x..=max_x).step_by(2) {
            // Upper left, upper right, lower left, lower right (y grows upward).
            let pixels = [(qx, qy + 1), (qx + 1, qy + 1), (qx, qy), (qx + 1, qy)];
            let mut quad = [(0.0f32, [0.0f32; 3]); 4];
            let mut any = false;
            for (k, &(i, j)) in pixels.iter().enumerate() {
                let c = (i as f32 + 0.5, j as f32 + 0.5);
                let w0 = edge(p[1], p[2], c) / area;
                let w1 = edge(p[2], p[0], c) / area;
                let w2 = 1.0 - w0 - w1;
                let inside = w0 >= 0.0 && w1 >= 0.0 && w2 >= 0.0 && i < W && j < H;
                any |= inside;
                quad[k] = (if inside { 1.0 } else { 0.0 }, [w0, w1, w2]);
            }
            if !any {
                continue;
            }
            for (k, &(i, j)) in pixels.iter().enumerate() {
                let w = quad[k].1;
                let inv_w: f32 = (0..3).map(|v| w[v] * t[v].inv_w).sum();
                let z: f32 = (0..3).map(|v| w[v] * t[v].z).sum();
                let base = inputs.len();
                inputs.resize(base + regs * 4, 0);
                for (slot, reg) in [(0, uv_reg), (1, n_reg)] {
                    for ch in 0..4 {
                        let v: f32 =
                            (0..3).map(|v| w[v] * t[v].vary[slot][ch]).sum::<f32>() / inv_w;
                        inputs[base + reg * 4 + ch] = v.to_bits();
                    }
                }
                frags.push((i, j, quad[k].0 > 0.0, z));
            }
        }
    }
}

/// One fragment of a quad: its pixel, whether the triangle covers it (else a helper for
/// derivatives), its depth.
type Fragment = (usize, usize, bool, f32);

/// Buffers kept from frame to frame: the fragment shader's inputs and outputs, the fragments.
#[derive(Default)]
struct Scratch {
    inputs: Vec<u32>,
    outputs: Vec<u32>,
    frags: Vec<Fragment>,
}

/// What stays the same from frame to frame.
struct Scene<'a> {
    rt: &'a Runtime,
    fs_module: &'a Module,
    fs_bind: &'a Bindings,
    mesh: (Vec<[[f32; 4]; 3]>, Vec<[usize; 3]>),
}

/// Renders one frame at turn `t` with the compiled shaders.
fn frame(
    scene: &Scene<'_>,
    vs: &Compiled,
    fs: &Compiled,
    t: f32,
    scratch: &mut Scratch,
) -> Result<Frame, Error> {
    let (rt, fs_module, fs_bind) = (scene.rt, scene.fs_module, scene.fs_bind);
    let (verts, tris) = &scene.mesh;
    // Vertex shader: the host's attribute buffer (IN[0..2] per vertex), AoS.
    let vin: Vec<u32> = verts
        .iter()
        .flat_map(|v| v.iter().flat_map(|r| bits(*r)))
        .collect();
    let vr = vs.reflection();
    let mut vout = vec![0u32; verts.len() * vr.output_registers * 4];
    let vs_bind = Bindings {
        constants: vec![constants(t)],
        ..Bindings::default()
    };
    vs.run_vertices(
        rt,
        &vs_bind,
        Invocations::new(verts.len(), Layout::Aos, &vin, &mut vout),
    )?;
    let out = |v: usize, r: usize| -> [f32; 4] {
        std::array::from_fn(|c| f32::from_bits(vout[(v * vr.output_registers + r) * 4 + c]))
    };
    let pos = vr.output(Semantic::Position, 0).ok_or("no POSITION")? as usize;
    let uv_out = vr.output(Semantic::Generic, 0).ok_or("no GENERIC[0]")? as usize;
    let n_out = vr.output(Semantic::Generic, 1).ok_or("no GENERIC[1]")? as usize;
    let fr = fs_module.reflection();
    let uv_reg = fr
        .input(Semantic::Generic, 0)
        .ok_or("no GENERIC[0] input")? as usize;
    let n_reg = fr
        .input(Semantic::Generic, 1)
        .ok_or("no GENERIC[1] input")? as usize;
    let Scratch {
        inputs,
        outputs,
        frags,
    } = scratch;
    inputs.clear();
    frags.clear();
    for tri in tris {
        let sv = tri.map(|v| to_screen(out(v, pos), [out(v, uv_out), out(v, n_out)]));
        rasterize(sv, inputs, frags, fr.input_registers, uv_reg, n_reg);
    }
    // Fragment shader over every quad at once, through the runtime's threads.
    outputs.clear();
    outputs.resize(frags.len() * fr.output_registers * 4, 0);
    let colour_reg = fr.output(Semantic::Color, 0).ok_or("no COLOR")? as usize;
    fs.run_fragments(
        rt,
        fs_bind,
        Invocations::new(frags.len(), Layout::Aos, inputs, outputs),
    )?;
    let mut f = Frame {
        colour: vec![[0.08, 0.08, 0.1, 1.0]; W * H],
        depth: vec![f32::INFINITY; W * H],
    };
    for (k, &(i, j, covered, z)) in frags.iter().enumerate() {
        let at = j * W + i;
        if covered && z < f.depth[at] {
            f.depth[at] = z;
            let o = (k * fr.output_registers + colour_reg) * 4;
            f.colour[at] = std::array::from_fn(|c| f32::from_bits(outputs[o + c]));
        }
    }
    Ok(f)
}

/// The checker example rendered as a 64×64 texture through the host API.
fn checker(rt: &Runtime) -> Result<Texture, Error> {
    let m = shader(rt, "checker.tgsi")?;
    let c = rt.compile(&m, &CompileOptions::default())?;
    let r = m.reflection();
    let uv = r.input(Semantic::Generic, 0).ok_or("no GENERIC[0]")? as usize;
    let (w, h) = (64usize, 64usize);
    let mut inputs = vec![0u32; w * h * r.input_registers * 4];
    let pixels: Vec<(u32, u32)> = quad_order(w as u32, h as u32).collect();
    for (k, &(i, j)) in pixels.iter().enumerate() {
        let v = [
            (i as f32 + 0.5) / w as f32,
            (j as f32 + 0.5) / h as f32,
            0.0,
            1.0,
        ];
        for (ch, x) in v.iter().enumerate() {
            inputs[(k * r.input_registers + uv) * 4 + ch] = x.to_bits();
        }
    }
    let mut out = vec![0u32; w * h * r.output_registers * 4];
    c.run_fragments(
        rt,
        &Bindings::default(),
        Invocations::new(w * h, Layout::Aos, &inputs, &mut out),
    )?;
    let colour = r.output(Semantic::Color, 0).ok_or("no COLOR")? as usize;
    let mut texels = vec![0.0f32; w * h * 4];
    for (k, &(i, j)) in pixels.iter().enumerate() {
        for ch in 0..4 {
            texels[(j as usize * w + i as usize) * 4 + ch] =
                f32::from_bits(out[(k * r.output_registers + colour) * 4 + ch]);
        }
    }
    Ok(Texture::from_rgba32f(w as u32, h as u32, 1, &texels)?)
}

fn write_png(path: &Path, f: &Frame) -> Result<(), Error> {
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut enc = png::Encoder::new(file, W as u32, H as u32);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header()?;
    let mut data = Vec::with_capacity(W * H * 4);
    for j in (0..H).rev() {
        for px in &f.colour[j * W..(j + 1) * W] {
            data.extend(px.map(|v| (v.clamp(0.0, 1.0) * 255.0 + 0.5) as u8));
        }
    }
    w.write_image_data(&data)?;
    Ok(())
}

fn main() -> Result<(), Error> {
    let mut args = std::env::args().skip(1);
    let out = PathBuf::from(args.next().unwrap_or_else(|| "cube.png".into()));
    let frames: usize = args.next().map_or(Ok(1), |s| s.parse())?;
    let rt = Runtime::new(RuntimeOptions::default())?;
    let vs_module = shader(&rt, "cube.vert.tgsi")?;
    let fs_module = shader(&rt, "cube.frag.tgsi")?;
    let opts = CompileOptions::default();
    let fs_bind = Bindings {
        // CONST[0]: the light's direction; CONST[1]: ambient and diffuse weights.
        constants: vec![vec![
            bits([-0.4, 0.6, 0.7, 0.0]),
            bits([0.25, 0.85, 0.0, 0.0]),
        ]],
        textures: vec![Some(checker(&rt)?)],
        samplers: vec![Sampler {
            min: Filter::Linear,
            mag: Filter::Linear,
            ..Sampler::default()
        }],
        ..Bindings::default()
    };
    let scene = Scene {
        rt: &rt,
        fs_module: &fs_module,
        fs_bind: &fs_bind,
        mesh: cube(),
    };
    let mut scratch = Scratch::default();
    let start = std::time::Instant::now();
    let mut last = None;
    for k in 0..frames.max(1) {
        // A host that looks its shaders up every frame: the cache compiles them once.
        let vs = rt.compile(&vs_module, &opts)?;
        let fs = rt.compile(&fs_module, &opts)?;
        let t = 0.6 + k as f32 * 0.05;
        last = Some(frame(&scene, &vs, &fs, t, &mut scratch)?);
    }
    let elapsed = start.elapsed();
    let f = last.ok_or("no frame")?;
    write_png(&out, &f)?;
    let covered = f.depth.iter().filter(|d| d.is_finite()).count();
    println!(
        "{}: {W}x{H}, {covered} pixels of the cube, {} fragments shaded in the last frame; {} frame(s), {:.2} ms per frame, {} shader compile(s)",
        out.display(),
        scratch.frags.len(),
        frames.max(1),
        elapsed.as_secs_f64() * 1000.0 / frames.max(1) as f64,
        rt.compiles()
    );
    Ok(())
}
