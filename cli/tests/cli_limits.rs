//! Hostile inputs end with exit 0, 1 or 2 and a located message: never a hang, an abort or a
//! panic (issue "no input can hang, crash or exhaust tgsic"). Each case is a reproducer.

mod common;

use std::path::PathBuf;
use std::process::Output;
use std::time::Duration;

fn tgsic(args: &[&str], stdin: &str, limit: Duration) -> Output {
    common::tgsic_within(args, stdin.as_bytes(), limit)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh folder, removed with everything in it when dropped.
fn temp(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("tgsic-limits-{name}-"))
        .tempdir()
        .expect("a temporary folder")
}

const HEAD: &str =
    "FRAG\nDCL IN[0], COLOR, LINEAR\nDCL OUT[0], COLOR\nDCL TEMP[0]\nMOV TEMP[0], IN[0]\n";

fn nested(open: &str, body: &str, close: &str, n: usize) -> String {
    format!(
        "{HEAD}{}{body}{}MOV OUT[0], TEMP[0]\nEND\n",
        open.repeat(n),
        close.repeat(n)
    )
}

const LIMIT: Duration = Duration::from_secs(20);

/// `tgsic run - --engine interp -o DIR/o.png --size SIZE EXTRA...` on `src`; also returns the
/// image's path.
fn run_interp(
    name: &str,
    src: &str,
    size: &str,
    extra: &[&str],
) -> (Output, PathBuf, tempfile::TempDir) {
    let dir = temp(name);
    let out = dir.path().join("o.png");
    let mut args = vec![
        "run",
        "-",
        "--engine",
        "interp",
        "-o",
        out.to_str().unwrap(),
        "--size",
        size,
    ];
    args.extend(extra);
    (tgsic(&args, src, LIMIT), out, dir)
}

#[test]
fn a_backward_bra_ends_at_the_loop_budget() {
    let (o, _, _dir) = run_interp("bra", "FRAG\nDCL OUT[0], COLOR\nBRA :0\nEND\n", "4x4", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("16 invocation(s) ran out of loop iterations"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn deep_nesting_is_a_located_error_not_a_stack_overflow() {
    let dir = temp("nest");
    let d = dir.path();
    let png = d.join("o.png");
    let mem = d.join("o.mem");
    let png = png.to_str().unwrap();
    let mem = mem.to_str().unwrap();
    for src in [
        nested(
            "IF IN[0].xxxx\n",
            "ADD TEMP[0], TEMP[0], IN[0]\n",
            "ENDIF\n",
            10_000,
        ),
        nested(
            "BGNLOOP\n",
            "ADD TEMP[0], TEMP[0], IN[0]\nBRK\n",
            "ENDLOOP\n",
            10_000,
        ),
        nested("BGNLOOP\n", "BRK\n", "ENDLOOP\n", 65),
    ] {
        for args in [
            vec!["ir", "-"],
            vec!["run", "-", "-o", png, "--size", "4x4"],
            vec!["theia", "compile", "-", "-o", mem],
        ] {
            let o = tgsic(&args, &src, LIMIT);
            assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
            assert!(
                stderr(&o).starts_with("<stdin>:70:1: error: ")
                    && stderr(&o).contains("nested too deeply")
                    && stderr(&o).contains("at most 64 levels"),
                "{args:?}: {}",
                stderr(&o)
            );
        }
        // The interpreter keeps its own stacks on the heap: any depth runs.
        let o = tgsic(
            &["run", "-", "--engine", "interp", "-o", png, "--size", "2x2"],
            &src,
            LIMIT,
        );
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    // 64 levels compile and run (THEIA's 512-word memory is too small for 64 IFs' jumps: that
    // is its own typed error).
    let src = nested(
        "IF IN[0].xxxx\n",
        "ADD TEMP[0], TEMP[0], IN[0]\n",
        "ENDIF\n",
        64,
    );
    for args in [
        vec!["ir", "-"],
        vec!["run", "-", "-o", png, "--size", "4x4"],
    ] {
        let o = tgsic(&args, &src, LIMIT);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    }
    let o = tgsic(&["theia", "compile", "-", "-o", mem], &src, LIMIT);
    assert!(
        stderr(&o).contains("instruction memory holds 512"),
        "{}",
        stderr(&o)
    );
    let src = nested(
        "IF IN[0].xxxx\n",
        "ADD TEMP[0], TEMP[0], IN[0]\n",
        "ENDIF\n",
        20,
    );
    let o = tgsic(&["theia", "compile", "-", "-o", mem], &src, LIMIT);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// CRC-32 (IEEE) of a PNG chunk's type and data.
fn crc32(bytes: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in bytes {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// A 65-byte PNG whose header claims `w` x `h` RGBA8 texels and that holds no image data.
fn lying_png(w: u32, h: u32) -> Vec<u8> {
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = b"IHDR".to_vec();
    ihdr.extend(w.to_be_bytes());
    ihdr.extend(h.to_be_bytes());
    ihdr.extend([8, 6, 0, 0, 0]);
    png.extend(13u32.to_be_bytes());
    png.extend(&ihdr);
    png.extend(crc32(&ihdr).to_be_bytes());
    let idat = b"IDAT".to_vec();
    png.extend(0u32.to_be_bytes());
    png.extend(&idat);
    png.extend(crc32(&idat).to_be_bytes());
    let iend = b"IEND".to_vec();
    png.extend(0u32.to_be_bytes());
    png.extend(&iend);
    png.extend(crc32(&iend).to_be_bytes());
    png
}

#[test]
fn sizes_are_checked_before_anything_is_allocated() {
    let dir = temp("sizes");
    let d = dir.path();
    let big = d.join("big.png");
    std::fs::write(&big, lying_png(100_000, 100_000)).unwrap();
    let out = d.join("o.png");
    let shader = "FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0], COLOR\nDCL SAMP[0]\n\
                  TEX OUT[0], IN[0], SAMP[0], 2D\nEND\n";
    let tex = format!("0={}", big.display());
    let o = tgsic(
        &["run", "-", "-o", out.to_str().unwrap(), "--texture", &tex],
        shader,
        LIMIT,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).starts_with(&format!(
            "{}: error: a 100000x100000x1 texture is too large",
            big.display()
        )),
        "{}",
        stderr(&o)
    );
    // Too many threads is wrong usage, refused before any is started.
    let o = tgsic(
        &[
            "run",
            "-",
            "-o",
            out.to_str().unwrap(),
            "--threads",
            "100000",
        ],
        shader,
        LIMIT,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("at most 1024 threads"),
        "{}",
        stderr(&o)
    );
    // An endless input is read up to the input limit, not to exhaustion.
    if std::path::Path::new("/dev/zero").exists() {
        let o = tgsic(&["check", "/dev/zero"], "", LIMIT);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(stderr(&o).contains("larger than"), "{}", stderr(&o));
    }
}

#[test]
fn check_refuses_what_asm_cannot_encode_with_its_line() {
    for (decl, why) in [
        (
            "DCL OUT[1], GENERIC[65536]",
            "semantic index 65536 does not fit in 16 bits",
        ),
        (
            "DCL TEMP[1..2], ARRAY(4294967295)",
            "array id 4294967295 does not fit in 16 bits",
        ),
    ] {
        let src = format!("FRAG\nDCL OUT[0], COLOR\n{decl}\nMOV OUT[0], OUT[0]\nEND\n");
        for cmd in ["check", "asm"] {
            let o = tgsic(&[cmd, "-"], &src, LIMIT);
            assert_eq!(o.status.code(), Some(1), "{cmd}: {}", stderr(&o));
            assert!(
                stderr(&o).starts_with("<stdin>:3:1: error: cannot encode declaration 1: "),
                "{cmd}: {}",
                stderr(&o)
            );
            assert!(stderr(&o).contains(why), "{cmd}: {}", stderr(&o));
        }
    }
    // Mesa reads semantic indices in decimal only.
    let o = tgsic(
        &["check", "-"],
        "FRAG\nDCL OUT[0], GENERIC[0x10]\nEND\n",
        LIMIT,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).starts_with("<stdin>:2:21: error: `0x10` is not a semantic index"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn bad_options_are_usage_errors_and_bad_files_input_errors() {
    let dir = temp("options");
    let d = dir.path();
    let out = d.join("o.png");
    let out = out.to_str().unwrap();
    let shader = "FRAG\nDCL OUT[0], COLOR\nIMM[0] FLT32 { 0.5, 0.25, 1.0, 1.0 }\n\
                  MOV OUT[0], IMM[0]\nEND\n";
    for lanes in ["3", "1000000", "x"] {
        let o = tgsic(&["run", "-", "-o", out, "--lanes", lanes], shader, LIMIT);
        assert_eq!(o.status.code(), Some(2), "--lanes {lanes}: {}", stderr(&o));
        assert!(stderr(&o).contains("is not a lane count"), "{}", stderr(&o));
    }
    // 64 lanes are an LLVM width: the Cranelift engine says so in its own terms.
    let o = tgsic(&["run", "-", "-o", out, "--lanes", "64"], shader, LIMIT);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--lanes 64 needs the llvm engine"),
        "{}",
        stderr(&o)
    );
    // A compiled THEIA program needs its entry table: .bin cannot hold it.
    let bin = d.join("x.bin");
    let o = tgsic(
        &["theia", "compile", "-", "-o", bin.to_str().unwrap()],
        shader,
        LIMIT,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("write it as .mem"), "{}", stderr(&o));
    assert!(!bin.exists());
    // A directory is a file that cannot be read, whatever its extension.
    let o = tgsic(&["theia", "run", d.to_str().unwrap()], "", LIMIT);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("cannot read: it is a directory"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_interpreters_recursion_error_names_the_call() {
    let (o, _, _dir) = run_interp(
        "recursion",
        "FRAG\nDCL OUT[0], COLOR\nCAL :2\nEND\nBGNSUB\nCAL :2\nRET\nENDSUB\n",
        "2x2",
        &[],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(
        stderr(&o).trim(),
        "<stdin>:6:1: error: subroutine calls nest deeper than 64 (recursion?)"
    );
}

#[test]
fn large_programs_compile_in_bounded_time_or_are_refused_as_too_large() {
    let dir = temp("large");
    let d = dir.path();
    let out = d.join("o.png");
    let out = out.to_str().unwrap();
    let run = |src: &str| tgsic(&["run", "-", "-o", out, "--size", "8x8"], src, LIMIT);
    // Every declared output costs nothing unless written.
    let o = run(
        "FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0..32767], GENERIC[0]\n\
                 MOV OUT[0], IN[0]\nEND\n",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // 5,000 IF/ELSE blocks in sequence, and loops nested as deep as allowed.
    let seq = format!(
        "{HEAD}{}MOV OUT[0], TEMP[0]\nEND\n",
        "IF IN[0].xxxx\nADD TEMP[0], TEMP[0], IN[0]\nELSE\nMUL TEMP[0], TEMP[0], IN[0]\nENDIF\n"
            .repeat(5_000)
    );
    let o = run(&seq);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(&nested(
        "BGNLOOP\n",
        "ADD TEMP[0], TEMP[0], IN[0]\nBRK\n",
        "ENDLOOP\n",
        64,
    ));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // 100,000 straight-line instructions are past the JIT's size limit: a clear error, and
    // the interpreter runs them.
    let body = "ADD TEMP[0], TEMP[0], IN[0].yzwx\n".repeat(100_000);
    let src = format!("{HEAD}{body}MOV OUT[0], TEMP[0]\nEND\n");
    let o = run(&src);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("error: the shader is too large for the JIT"),
        "{}",
        stderr(&o)
    );
    let o = tgsic(
        &["run", "-", "-o", out, "--size", "8x8", "--engine", "interp"],
        &src,
        LIMIT,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn large_images_are_rendered_and_written_in_bands() {
    let dir = temp("bands");
    let d = dir.path();
    // 16384 × 1024 pixels: 256 MiB of f32 pixels, rendered and written in a 768 MiB address
    // space (the whole image once needed about 1 GiB).
    let shader = "FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0], COLOR\nMOV OUT[0], IN[0]\nEND\n";
    for ext in ["png", "f32"] {
        let out = d.join(format!("big.{ext}"));
        let o = common::tgsic_within_space(
            &[
                "run",
                "-",
                "-o",
                out.to_str().unwrap(),
                "--size",
                "16384x1024",
            ],
            shader.as_bytes(),
            LIMIT,
            768 << 10,
        );
        assert_eq!(o.status.code(), Some(0), "{ext}: {}", stderr(&o));
        let len = std::fs::metadata(&out).unwrap().len();
        if ext == "f32" {
            assert_eq!(len, 16384 * 1024 * 16);
            // The last pixel (top right) holds the interpolated GENERIC[0] there.
            let bytes = std::fs::read(&out).unwrap();
            let last = &bytes[bytes.len() - 16..];
            let x = f32::from_le_bytes(last[0..4].try_into().unwrap());
            let y = f32::from_le_bytes(last[4..8].try_into().unwrap());
            assert!((x - 16383.5 / 16384.0).abs() < 1e-6, "{x}");
            assert!((y - 1023.5 / 1024.0).abs() < 1e-6, "{y}");
        }
        let _ = std::fs::remove_file(&out);
    }
}

#[test]
fn a_whole_run_is_bounded_by_its_time_limit() {
    // Every invocation loops until its budget (65536 iterations) runs out: hours for this
    // image on the interpreter, stopped after a second.
    let shader = "FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
                  MOV TEMP[0], IN[0]\nBGNLOOP\nADD TEMP[0], TEMP[0], IN[0]\nENDLOOP\n\
                  MOV OUT[0], TEMP[0]\nEND\n";
    let start = std::time::Instant::now();
    let (o, out, _dir) = run_interp("timeout", shader, "2048x2048", &["--timeout", "1"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("<stdin>: error: the run did not finish within --timeout 1 s"),
        "{}",
        stderr(&o)
    );
    assert!(start.elapsed() < std::time::Duration::from_secs(15));
    assert!(!out.exists(), "no half-written image stays behind");
    let o = tgsic(
        &["run", "-", "-o", out.to_str().unwrap(), "--timeout", "0"],
        shader,
        LIMIT,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}
