//! The C example (`examples/render.c`) compiled with the system C compiler against
//! `include/tgsic.h` and this crate's shared library, run, and its image compared with what the
//! Rust host API renders; its error path too.

use std::path::{Path, PathBuf};
use std::process::Command;
use tgsic_runtime::host::{Bindings, CompileOptions, EngineKind, Frame, RunControl};
use tgsic_runtime::host::{Runtime, RuntimeOptions};

/// Where cargo put this build's libtgsic_c.so: beside the test (`target/PROFILE/deps`, where
/// `cargo test` leaves it) or one folder up (where `cargo build` copies it).
fn build_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's path");
    let deps = exe
        .parent()
        .expect("target/PROFILE/deps/TEST")
        .to_path_buf();
    let up = deps.parent().map(Path::to_path_buf);
    std::iter::once(deps.clone())
        .chain(up)
        .find(|d| d.join("libtgsic_c.so").exists())
        .unwrap_or(deps)
}

fn compile_example(work: &Path) -> PathBuf {
    compile_c(work, "examples/render.c", "render")
}

/// Compiles the C program `source` (relative to this crate) against the header and the
/// library into `work/name`.
fn compile_c(work: &Path, source: &str, name: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = build_dir();
    assert!(
        lib.join("libtgsic_c.so").exists(),
        "{} has no libtgsic_c.so",
        lib.display()
    );
    let exe = work.join(name);
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = Command::new(&cc)
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-O1"])
        .arg(root.join(source))
        .arg("-I")
        .arg(root.join("include"))
        .arg("-L")
        .arg(&lib)
        .arg("-ltgsic_c")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap_or_else(|e| panic!("{cc}: {e} (a C compiler is needed: apt-get install gcc)"));
    assert!(
        out.status.success(),
        "{cc} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

/// The checker example's colours as `tgsic run` renders them, written as the C example writes
/// them: PPM bytes, top row first.
fn expected(w: u32, h: u32) -> Vec<u8> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rt = Runtime::new(RuntimeOptions::default()).unwrap();
    let m = rt
        .load(&std::fs::read(root.join("../examples/shaders/checker.tgsi")).unwrap())
        .unwrap();
    let interp = rt
        .compile(&m, &CompileOptions::with_engine(EngineKind::Interpreter))
        .unwrap();
    let frame = Frame {
        width: w,
        height: h,
        output: 0,
    };
    let img = interp
        .render(&rt, &Bindings::default(), frame, &RunControl::default())
        .unwrap();
    let mut rgb = Vec::new();
    for j in (0..h).rev() {
        for i in 0..w {
            for v in &img.pixel(i, j)[..3] {
                let v = if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) };
                rgb.push((v * 255.0 + 0.5) as u8);
            }
        }
    }
    rgb
}

#[test]
fn the_c_example_renders_what_the_rust_api_renders() {
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("c_example");
    std::fs::create_dir_all(&work).unwrap();
    let exe = compile_example(&work);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ppm = work.join("checker.ppm");
    let out = Command::new(&exe)
        .arg(root.join("../examples/shaders/checker.tgsi"))
        .arg(&ppm)
        .args(["32", "16"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&ppm).unwrap();
    let header = b"P6\n32 16\n255\n";
    assert_eq!(&bytes[..header.len()], header);
    assert_eq!(bytes[header.len()..], expected(32, 16)[..]);

    // A shader that does not validate: exit 1 with the library's message.
    let bad = work.join("bad.tgsi");
    std::fs::write(&bad, "FRAG\nMOV OUT[0], IN[5]\nEND\n").unwrap();
    let out = Command::new(&exe)
        .arg(&bad)
        .arg(work.join("x.ppm"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("IN[5] is used but not declared"), "{err}");
}

#[test]
fn c_values_outside_an_enumeration_are_argument_errors() {
    // `tests/c/arguments.c`: an engine, a math mode and a layout no enumerator names are
    // TGSIC_STATUS_ARGUMENT; a cache folder of "" is the default one, so nothing is written
    // into the working directory (here an empty folder, the default one elsewhere).
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("c_arguments");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let exe = compile_c(&work, "tests/c/arguments.c", "arguments");
    let cwd = work.join("cwd");
    let cache = work.join("default-cache");
    std::fs::create_dir_all(&cwd).unwrap();
    let out = Command::new(&exe)
        .current_dir(&cwd)
        .env("TGSIC_CACHE_DIR", &cache)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let left: Vec<_> = std::fs::read_dir(&cwd)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(
        left.is_empty(),
        "written into the working directory: {left:?}"
    );
    let cached = std::fs::read_dir(&cache).map_or(0, |d| d.count());
    assert!(cached > 0, "the default folder holds the compiled code");
}
