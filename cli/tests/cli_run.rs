//! `tgsic run` and `tgsic cmp`.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

fn tgsic(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tgsic"))
        .args(args)
        .output()
        .expect("tgsic runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A fresh folder, removed with everything in it when dropped.
fn temp(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("tgsic-run-{name}-"))
        .tempdir()
        .expect("a temporary folder")
}

fn mesa() -> Option<PathBuf> {
    common::shared::require("corpus/mesa")
}

#[test]
fn run_reproduces_a_mesa_reference_and_cmp_confirms_it() {
    let Some(m) = mesa() else { return };
    let dir = temp("mesa");
    let d = dir.path();
    let out = d.join("cube.f32");
    let p = |x: &str| m.join(x).to_str().unwrap().to_string();
    let o = tgsic(&[
        "run",
        &p("gltr_cube.tgsi"),
        "-o",
        out.to_str().unwrap(),
        "--engine",
        "interp",
        "--size",
        "64x64",
        "--const",
        &format!("0={}", p("gltr_cube.const0.bin")),
        "--texture",
        &format!("0={}", p("texture32.png")),
        "--texture",
        &format!("1={}", p("texture32.png")),
        "--clear",
        "-7,-7,-7,-7",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let c = tgsic(&["cmp", out.to_str().unwrap(), &p("gltr_cube.ref.f32")]);
    assert!(c.status.success(), "{}", text(&c.stdout));
    assert!(
        text(&c.stdout).contains("identical:  16384 (100.000%)\nmax ulp:    0\n"),
        "{}",
        text(&c.stdout)
    );
    // Another shader's reference differs: exit 1.
    let c = tgsic(&["cmp", out.to_str().unwrap(), &p("gltr_perlin.ref.f32")]);
    assert_eq!(c.status.code(), Some(1));
    assert!(text(&c.stderr).contains("differ by more than 0 ulp"));
    // PNG output: 64x64 RGBA.
    let png = d.join("cube.png");
    let o = tgsic(&[
        "run",
        &p("npm_hsl2rgb.tgsi"),
        "-o",
        png.to_str().unwrap(),
        "--engine",
        "interp",
        "--size",
        "64x32",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let t = tgsic_runtime::host::Texture::from_png(&png).unwrap();
    assert_eq!((t.size().0, t.size().1), (64, 32));
}

#[test]
fn missing_bindings_and_bad_usage() {
    let Some(m) = mesa() else { return };
    let p = |x: &str| m.join(x).to_str().unwrap().to_string();
    let o = tgsic(&[
        "run",
        &p("gltr_cube.tgsi"),
        "-o",
        "/tmp/x.f32",
        "--engine",
        "interp",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        text(&o.stderr),
        "error: the shader reads constant buffer 0, but no --const 0=FILE was given\n"
    );
    let o = tgsic(&[
        "run",
        &p("three_technicolor.tgsi"),
        "-o",
        "/tmp/x.f32",
        "--engine",
        "interp",
    ]);
    assert_eq!(
        text(&o.stderr),
        "error: the shader samples texture unit 0, but no --texture 0=FILE was given\n"
    );
    assert_eq!(
        tgsic(&[
            "run",
            &p("npm_hsl2rgb.tgsi"),
            "-o",
            "/tmp/x.bmp",
            "--engine",
            "interp"
        ])
        .status
        .code(),
        Some(2)
    );
    // The default engine (the JIT) runs; LLVM needs its cargo feature.
    let out = std::env::temp_dir().join(format!("tgsic-hsl-{}.f32", std::process::id()));
    let o = tgsic(&["run", &p("npm_hsl2rgb.tgsi"), "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let jit_image = std::fs::read(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    let o = tgsic(&[
        "run",
        &p("npm_hsl2rgb.tgsi"),
        "-o",
        out.to_str().unwrap(),
        "--engine",
        "llvm",
    ]);
    if cfg!(feature = "llvm") {
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        assert!(
            std::fs::read(&out).unwrap() == jit_image,
            "llvm and jit images differ"
        );
        let _ = std::fs::remove_file(&out);
    } else {
        assert_eq!(o.status.code(), Some(2));
        assert!(
            text(&o.stderr).contains("feature `llvm`"),
            "{}",
            text(&o.stderr)
        );
    }
    assert_eq!(
        tgsic(&[
            "run",
            &p("npm_hsl2rgb.tgsi"),
            "-o",
            "/tmp/x.f32",
            "--size",
            "0x4"
        ])
        .status
        .code(),
        Some(2)
    );
}

#[test]
fn vertex_and_geometry_shaders_run_over_attribute_files() {
    let dir = temp("vg");
    let d = dir.path();
    let vs = d.join("vs.tgsi");
    std::fs::write(&vs, "VERT\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\nADD OUT[0], IN[0], IN[1]\nMUL OUT[1], IN[0], IN[1]\nEND\n").unwrap();
    let verts = d.join("verts.txt");
    std::fs::write(
        &verts,
        "# two vertices\n1 2 3 4   0.5 0.5 0.5 0.5\n0x3f800000 0 0 1   2 2 2 2\n",
    )
    .unwrap();
    let out = d.join("out.txt");
    let o = tgsic(&[
        "run",
        vs.to_str().unwrap(),
        "--engine",
        "interp",
        "--vertices",
        verts.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let t = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        t,
        "# one vertex per line: OUT[0] POSITION[0].xyzw OUT[1] GENERIC[0].xyzw\n1.5 2.5 3.5 4.5 0.5 1.0 1.5 2.0\n3.0 2.0 2.0 3.0 2.0 0.0 0.0 2.0\n"
    );
    // A malformed line names its place.
    std::fs::write(&verts, "1 2 3 4 0 0 0 0\n1 2 x 4 0 0 0 0\n").unwrap();
    let o = tgsic(&[
        "run",
        vs.to_str().unwrap(),
        "--engine",
        "interp",
        "--vertices",
        verts.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr)
            .ends_with("verts.txt:2:5: error: `x` is not a number or a 0x bit pattern\n"),
        "{}",
        text(&o.stderr)
    );
    // A geometry shader that emits each input vertex of a line twice.
    let gs = d.join("gs.tgsi");
    std::fs::write(&gs, "GEOM\nPROPERTY GS_INPUT_PRIMITIVE LINES\nPROPERTY GS_OUTPUT_PRIMITIVE LINE_STRIP\nPROPERTY GS_MAX_OUTPUT_VERTICES 4\nDCL IN[][0], POSITION\nDCL OUT[0], POSITION\nMOV OUT[0], IN[0][0]\nEMIT\nMOV OUT[0], IN[1][0]\nEMIT\nENDPRIM\nEND\n").unwrap();
    let prims = d.join("prims.txt");
    std::fs::write(&prims, "1 0 0 1\n2 0 0 1\n\n3 0 0 1\n4 0 0 1\n").unwrap();
    let o = tgsic(&[
        "run",
        gs.to_str().unwrap(),
        "--engine",
        "interp",
        "--primitives",
        prims.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let t = std::fs::read_to_string(&out).unwrap();
    assert!(t.contains("# primitive 0\n1.0 0.0 0.0 1.0\n2.0 0.0 0.0 1.0\nENDPRIM\n\n# primitive 1\n3.0 0.0 0.0 1.0\n4.0 0.0 0.0 1.0\nENDPRIM\n"), "{t}");
    // An endless loop is cut by the budget and reported; the exit code stays 0.
    let fs = d.join("loop.tgsi");
    std::fs::write(&fs, "FRAG\nDCL OUT[0], COLOR\nIMM[0] FLT32 {1.0, 0.0, 0.0, 0.0}\nBGNLOOP\nADD OUT[0], OUT[0], IMM[0]\nENDLOOP\nEND\n").unwrap();
    let img = d.join("loop.f32");
    let o = tgsic(&[
        "run",
        fs.to_str().unwrap(),
        "--engine",
        "interp",
        "--size",
        "4x4",
        "--max-iterations",
        "10",
        "-o",
        img.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    assert!(
        text(&o.stderr)
            .contains("16 invocation(s) ran out of loop iterations (--max-iterations 10)"),
        "{}",
        text(&o.stderr)
    );
    let v = tgsic_cli::compare::read_f32(&img).unwrap();
    assert_eq!(v[0], 11.0);
}

#[test]
fn accurate_math_is_the_default_and_exact_and_fast_are_one_flag_away() {
    // SIN and POW of a per-pixel value: `--math exact` gives the interpreter's bits; the
    // default (accurate) and `--math fast` approximate them, so some pixels differ, the
    // default's SIN within 2 ulp (accurate's reference computes its exact bits), fast's within
    // 2^-22 absolute.
    let dir = temp("math");
    let d = dir.path();
    let shader = d.join("sin.tgsi");
    std::fs::write(
        &shader,
        "FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
         IMM[0] FLT32 {37.0, 2.5, 0.0, 1.0}\nMUL TEMP[0].x, IN[0].xxxx, IMM[0].xxxx\n\
         SIN OUT[0].x, TEMP[0].xxxx\nPOW OUT[0].y, IN[0].yyyy, IMM[0].yyyy\n\
         MOV OUT[0].zw, IMM[0].zzzw\nEND\n",
    )
    .unwrap();
    let render = |name: &str, extra: &[&str]| {
        let out = d.join(name);
        let mut args = vec![
            "run",
            shader.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--size",
            "64x64",
        ];
        args.extend_from_slice(extra);
        let o = tgsic(&args);
        assert!(o.status.success(), "{}", text(&o.stderr));
        std::fs::read(&out).unwrap()
    };
    let floats = |b: &[u8]| -> Vec<f32> {
        b.chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let interp = render("interp.f32", &["--engine", "interp"]);
    let exact = render("exact.f32", &["--engine", "jit", "--math", "exact"]);
    let default = render("default.f32", &["--engine", "jit"]);
    let accurate = render("accurate.f32", &["--engine", "jit", "--math", "accurate"]);
    let fast = render("fast.f32", &["--engine", "jit", "--math", "fast"]);
    assert_eq!(exact, interp, "exact is the interpreter's bits");
    assert_eq!(default, accurate, "the default is accurate");
    assert_ne!(default, interp, "accurate approximates");
    assert_ne!(fast, interp, "fast approximates");
    let (e, a, f) = (floats(&interp), floats(&default), floats(&fast));
    for k in 0..e.len() {
        if k % 4 == 0 {
            // SIN: accurate's bits are its reference's, within 2 ulp of the true sine.
            let x = e[k]; // glibc's sinf: within an ulp of the true sine
            let ulp = f32::from_bits(x.abs().to_bits() + 1) - x.abs();
            assert!(
                (a[k] - x).abs() <= 3.0 * ulp.max(f32::EPSILON / 16.0),
                "word {k}: {} against {x}",
                a[k]
            );
        } else {
            assert!(
                (a[k] - e[k]).abs() <= 1e-5 * e[k].abs().max(1.0),
                "word {k}: {} against {}",
                a[k],
                e[k]
            );
        }
        // Within the documented bounds: SIN to 2^-22 absolute here, POW to a few ulp.
        assert!(
            (f[k] - e[k]).abs() <= 1e-5 * e[k].abs().max(1.0),
            "word {k}: {} against {}",
            f[k],
            e[k]
        );
    }
}

#[test]
fn bench_reports_the_first_frame_and_whether_the_code_cache_answered() {
    let tmp = temp("bench-cache");
    let dir = tmp.path();
    let cache = dir.join("cache");
    let shader = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/shaders/noise.tgsi"
    );
    let row = |extra: &[&str]| {
        let mut args = vec![
            "bench",
            shader,
            "--engines",
            "interp,jit",
            "--size",
            "16x16",
            "--seconds",
            "0",
            "--threads",
            "1",
        ];
        args.extend_from_slice(extra);
        let out = tgsic(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let stdout = text(&out.stdout);
        let header = stdout
            .lines()
            .find(|l| l.starts_with("| engine"))
            .expect("a table")
            .to_string();
        assert!(header.contains("| first frame | cache |"), "{header}");
        let cells: Vec<String> = stdout
            .lines()
            .find(|l| l.starts_with("| jit "))
            .expect("the jit row, named as given")
            .split('|')
            .map(|c| c.trim().to_string())
            .collect();
        let first_frame: f64 = cells[7].trim_end_matches(" ms").parse().expect("ms");
        assert!(first_frame > 0.0);
        cells[8].clone()
    };
    let at = cache.to_str().unwrap();
    assert_eq!(row(&["--cache-dir", at]), "miss");
    assert_eq!(row(&["--cache-dir", at]), "hit");
    assert_eq!(row(&["--cache-dir", "off"]), "off");
}

/// The README's command of the compute corpus: one dispatch of `piglit_acs_simple_barrier`
/// writes softpipe's image; a fragment shader with a buffer writes its image and buffer.
#[test]
fn compute_and_memory_runs_reproduce_softpipe() {
    let Some(c) = common::shared::require("corpus/compute") else {
        return;
    };
    let dir = temp("compute");
    let d = dir.path();
    let name = "piglit_acs_simple_barrier";
    let shader = c.join(format!("{name}.tgsi"));
    let image = format!(
        "0={},16x16,R8G8B8A8_UNORM",
        c.join(format!("{name}.in/tex_0.bin")).display()
    );
    let out = d.join("out");
    let o = tgsic(&[
        "run",
        &shader.to_string_lossy(),
        "--grid",
        "2,2,1",
        "--shared-bytes",
        "260",
        "--image",
        &image,
        "-o",
        &out.to_string_lossy(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let got = std::fs::read(out.join("tex_0.bin")).expect("the image");
    let want = std::fs::read(c.join(format!("{name}.ref/tex_0.bin"))).expect("reference");
    assert_eq!(got, want);
    // Without --grid, or with a grid of 0 groups: a clear error.
    let o = tgsic(&[
        "run",
        &shader.to_string_lossy(),
        "-o",
        &out.to_string_lossy(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("--grid"));
    let o = tgsic(&[
        "run",
        &shader.to_string_lossy(),
        "--grid",
        "0,1,1",
        "--shared-bytes",
        "260",
        "--image",
        &image,
        "-o",
        &out.to_string_lossy(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("each axis needs 1 to 65535"),
        "{}",
        text(&o.stderr)
    );
    // A fragment shader with a storage buffer.
    let name = "piglit_ssbo_basic";
    let buffer = format!("0={}", c.join(format!("{name}.in/ssbo_0.bin")).display());
    let o = tgsic(&[
        "run",
        &c.join(format!("{name}.tgsi")).to_string_lossy(),
        "--size",
        "64x64",
        "--buffer",
        &buffer,
        "-o",
        &d.join("img.f32").to_string_lossy(),
        "--out-dir",
        &out.to_string_lossy(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let got = std::fs::read(out.join("ssbo_0.bin")).expect("the buffer");
    let want = std::fs::read(c.join(format!("{name}.ref/ssbo_0.bin"))).expect("reference");
    assert_eq!(got, want);
    assert_eq!(
        std::fs::metadata(d.join("img.f32")).map(|m| m.len()).ok(),
        Some(64 * 64 * 16)
    );
}
