//! `tgsic ir`: IR printing, optimization levels, statistics, and its errors.

use std::path::PathBuf;
use std::process::Output;

mod common;

fn tgsic(args: &[&str], stdin: &[u8]) -> Output {
    common::tgsic_within(args, stdin, std::time::Duration::from_secs(600))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The shaders of the etnaviv and mesa corpora (the compute and 64-bit corpora hold programs
/// tgsic does not read yet: their issues' tests cover them).
fn corpus() -> Option<Vec<PathBuf>> {
    let roots = [
        common::shared::require("corpus/etnaviv")?,
        common::shared::require("corpus/mesa")?,
    ];
    fn walk(d: &std::path::Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "tgsi") {
                out.push(p);
            }
        }
    }
    let mut v = Vec::new();
    for root in &roots {
        walk(root, &mut v);
    }
    v.sort();
    Some(v)
}

const SHADER: &[u8] = b"FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
IMM[0] FLT32 {2.0, 3.0, 0.5, 0.0}\nMAD TEMP[0], IMM[0].xxxx, IMM[0].yyyy, IMM[0].zzzz\n\
MUL OUT[0], IN[0], TEMP[0]\nEND\n";

#[test]
fn levels_print_the_lifted_and_the_optimized_ir() {
    let o0 = tgsic(&["ir", "-O0", "-"], SHADER);
    assert!(o0.status.success(), "{}", text(&o0.stderr));
    let o0 = text(&o0.stdout);
    assert!(o0.starts_with("function FRAG\n"), "{o0}");
    assert!(
        o0.contains("fmul") && o0.contains("fadd"),
        "the MAD is there: {o0}"
    );
    let o2 = tgsic(&["ir", "-"], SHADER);
    assert!(o2.status.success(), "{}", text(&o2.stderr));
    let o2 = text(&o2.stdout);
    // 2·3 + 0.5 folds to 6.5; the four products with IN[0] and the stores remain.
    assert!(o2.contains("const 0x40d00000 (6.5)"), "{o2}");
    assert!(!o2.contains("fadd"), "{o2}");
    assert_eq!(o2.matches("fmul").count(), 4, "{o2}");
    assert_eq!(o2.matches("store_output").count(), 4, "{o2}");
}

#[test]
fn stats_report_counts_and_inputs() {
    let o = tgsic(&["ir", "--stats", "-O1", "-"], SHADER);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(
        out.contains("instructions lifted") && out.contains("after -O1"),
        "{out}"
    );
    assert!(
        out.contains("inputs read: IN[0].x IN[0].y IN[0].z IN[0].w"),
        "{out}"
    );
    assert!(out.contains("const_fold"), "{out}");
}

#[test]
fn errors_name_the_problem() {
    let bra = tgsic(&["ir", "-"], b"FRAG\nDCL OUT[0], COLOR\nBRA :1\nEND\n");
    assert_eq!(bra.status.code(), Some(1));
    let e = text(&bra.stderr);
    assert!(
        e.starts_with("<stdin>:3:1: error: BRA cannot be compiled"),
        "{e}"
    );
    let bad = tgsic(&["ir", "-"], b"FRAG\nMOV OUT[0], IN[0]\nEND\n");
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        text(&bad.stderr).contains("<stdin>:2:"),
        "{}",
        text(&bad.stderr)
    );
    let level = tgsic(&["ir", "-O3", "-"], SHADER);
    assert_eq!(level.status.code(), Some(2));
}

#[test]
fn every_corpus_shader_prints_verified_ir_at_every_level() {
    let Some(files) = corpus() else { return };
    let paths: Vec<&str> = files
        .iter()
        .map(|p| p.to_str().expect("utf-8 path"))
        .collect();
    for level in ["-O0", "-O2"] {
        let mut args = vec!["ir", level];
        args.extend(&paths);
        let o = tgsic(&args, b"");
        assert!(o.status.success(), "{level}: {}", text(&o.stderr));
        let out = text(&o.stdout);
        assert_eq!(
            out.lines().filter(|l| l.starts_with("function ")).count(),
            files.len(),
            "{level}"
        );
    }
}

/// `--emit clif|llvm-ir|asm` with `--texture` and `--sampler` compiles the code a run with
/// those bindings would run: the sampler's filter shapes the code, an unbound unit samples
/// through the runtime's callback, and LLVM reads an RGBA8 texture a word per texel.
#[test]
fn emitted_code_follows_the_given_textures_and_samplers() {
    let dir = std::env::temp_dir().join(format!("tgsic-ir-tex-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let png = dir.join("t.png");
    let png = png.to_str().expect("utf-8 path");
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/shaders/");
    let made = tgsic(
        &[
            "run",
            &format!("{root}noise.tgsi"),
            "-o",
            png,
            "--size",
            "4x4",
        ],
        b"",
    );
    assert!(made.status.success(), "{}", text(&made.stderr));
    let shader = format!("{root}textured_lit.tgsi");
    let emit = |backend: &str, extra: &[&str]| {
        let emit = if backend == "jit" { "clif" } else { "llvm-ir" };
        // Fast math: the shader's POW is then arithmetic, so every call left is a lookup's
        // (exact math on Cranelift calls the host for it).
        let mut args = vec!["ir", "--emit", emit, "--math", "fast", shader.as_str()];
        args.extend(extra);
        let o = tgsic(&args, b"");
        assert!(o.status.success(), "{extra:?}: {}", text(&o.stderr));
        text(&o.stdout)
    };
    let unit0 = format!("0={png}");
    // Cranelift reads a texel's four f32 words with one load per lane.
    let texel_loads = |clif: &str| clif.matches("load.f32x4").count();
    let nearest = emit("jit", &["--texture", &unit0]);
    let linear = emit("jit", &["--texture", &unit0, "--sampler", "0=linear"]);
    assert!(!nearest.contains("call_indirect"), "{nearest}");
    assert!(
        texel_loads(&linear) > texel_loads(&nearest),
        "bilinear reads four texels per lookup"
    );
    // No --texture: as if every lookup could be sampled in the code, nearest.
    assert_eq!(emit("jit", &[]), nearest);
    // Unit 0 not given: its lookups call the runtime's sampler.
    let other = emit("jit", &["--texture", &format!("1={png}")]);
    assert!(other.contains("call_indirect"), "{other}");
    // A sampler alone binds no texture: the callback too.
    let sampler_only = emit("jit", &["--sampler", "0=linear"]);
    assert!(sampler_only.contains("call_indirect"), "{sampler_only}");
    if cfg!(feature = "llvm") {
        // An RGBA8 texel is one word whose bytes are scaled by 1/255 (as f32, printed as a
        // double by LLVM); f32 texels are read as they are.
        let unorm_scale = "0x3F70101020000000";
        let rgba8 = emit("llvm", &["--texture", &unit0]);
        assert!(rgba8.contains(unorm_scale), "{rgba8}");
        assert!(!emit("llvm", &[]).contains(unorm_scale));
    }
    let bad = tgsic(
        &[
            "ir",
            "--emit",
            "clif",
            &shader,
            "--texture",
            "0=/no/such.png",
        ],
        b"",
    );
    assert_eq!(bad.status.code(), Some(1), "{}", text(&bad.stderr));
    std::fs::remove_dir_all(&dir).ok();
}
