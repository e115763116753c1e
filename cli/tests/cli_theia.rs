//! `tgsic theia asm | dis | run`.

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

/// `tgsic theia compile IN -o OUT EXTRA...`, which must fail with exit code 1: its stderr.
fn compile_error(input: &std::path::Path, output: &std::path::Path, extra: &[&str]) -> String {
    let mut args = vec![
        "theia",
        "compile",
        input.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let o = tgsic(&args);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    text(&o.stderr)
}

const EXAMPLE3: &str = "ENTRYPOINT_ADRR_USERCONSTANTS:\n SETX C1 32'h06666 //0.2\n SETY C1 32'h1CCCC //0.9\n RETURN RT_TRUE\n\
ENTRYPOINT_ADRR_PIXELSHADER:\n MAG R1 CREG_TEXTURE_COLOR\n JLX BLACK R1 C1\n JGEY BLACK R1 C1\nWHITE:\n SETX OREG_PIXEL_COLOR 32'h20000\n\
 SWIZZLE3D OREG_PIXEL_COLOR SWIZZLE_XXX\n RETURN RT_TRUE\nBLACK:\n ZERO OREG_PIXEL_COLOR VOID VOID\n RETURN RT_TRUE\n";

/// A fresh folder, removed with everything in it when dropped.
fn temp() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("tgsic-theia-")
        .tempdir()
        .expect("a temporary folder")
}

#[test]
fn asm_dis_asm_gives_the_same_image_in_both_formats() {
    let dir = temp();
    let d = dir.path();
    let src = d.join("ex3.shdr");
    std::fs::write(&src, EXAMPLE3).unwrap();
    for ext in ["mem", "bin"] {
        let img = d.join(format!("ex3.{ext}"));
        let o = tgsic(&[
            "theia",
            "asm",
            src.to_str().unwrap(),
            "-o",
            img.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        let dis = tgsic(&["theia", "dis", img.to_str().unwrap()]);
        assert!(dis.status.success(), "{}", text(&dis.stderr));
        let back_src = d.join(format!("back-{ext}.shdr"));
        std::fs::write(&back_src, &dis.stdout).unwrap();
        let again = d.join(format!("again.{ext}"));
        let o = tgsic(&[
            "theia",
            "asm",
            back_src.to_str().unwrap(),
            "-o",
            again.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert_eq!(
            std::fs::read(&img).unwrap(),
            std::fs::read(&again).unwrap(),
            "{ext}"
        );
    }
    let mem = std::fs::read_to_string(d.join("ex3.mem")).unwrap();
    assert!(mem.starts_with("44 //Number of ioctects in file\n"));
    assert_eq!(std::fs::read(d.join("ex3.bin")).unwrap().len(), 11 * 8);
}

#[test]
fn run_prints_the_registers_written_in_hex_and_fixed_point() {
    let dir = temp();
    let d = dir.path();
    let src = d.join("ex3.shdr");
    std::fs::write(&src, EXAMPLE3).unwrap();
    let o = tgsic(&[
        "theia",
        "run",
        src.to_str().unwrap(),
        "--set",
        "CREG_TEXTURE_COLOR=0.5",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(
        out.contains("USERCONSTANTS: returned RT_TRUE after 3 instructions, 6 cycles\n"),
        "{out}"
    );
    assert!(
        out.contains("PIXELSHADER: returned RT_TRUE after 6 instructions, 45 cycles\n"),
        "{out}"
    );
    assert!(
        out.contains("OREG_PIXEL_COLOR = 0x00020000 0x00020000 0x00020000  (1, 1, 1)\n"),
        "{out}"
    );
    assert!(
        out.contains("C1               = 0x00006666 0x0001cccc 0x00000000"),
        "{out}"
    );
    // Only the pixel shader, with raw and fixed-point values: 1.5 is above 0.9, so black.
    let o = tgsic(&[
        "theia",
        "run",
        src.to_str().unwrap(),
        "--entry",
        "0x800E",
        "--set",
        "CREG_TEXTURE_COLOR=32'h30000,0x0,0",
        "--set",
        "C1=0.2,0.9,0",
    ]);
    let out = text(&o.stdout);
    assert!(
        out.starts_with("0x800E: returned RT_TRUE after 5 instructions"),
        "{out}"
    );
    assert!(
        out.contains("OREG_PIXEL_COLOR = 0x00000000 0x00000000 0x00000000  (0, 0, 0)"),
        "{out}"
    );
}

#[test]
fn errors_name_the_place() {
    let dir = temp();
    let d = dir.path();
    let src = d.join("bad.shdr");
    std::fs::write(&src, "NOP RT_FALSE\n  JMP NOWHERE VOID VOID\n").unwrap();
    let o = tgsic(&[
        "theia",
        "asm",
        src.to_str().unwrap(),
        "-o",
        d.join("x.mem").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        text(&o.stderr),
        format!(
            "{}:2:7: error: label `NOWHERE` is not defined\n",
            src.display()
        )
    );
    let mem = d.join("bad.mem");
    std::fs::write(&mem, "4\n00000000 00000000\n0000000G 00000000\n").unwrap();
    let o = tgsic(&["theia", "dis", mem.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).starts_with(&format!(
            "{}:3:1: error: expected a 32-bit hex word",
            mem.display()
        )),
        "{}",
        text(&o.stderr)
    );
    // A hanging opcode stops the simulator with its address.
    std::fs::write(&src, "ENTRYPOINT_ADRR_PIXELSHADER:\n INTP R1 R2 R3\n").unwrap();
    let o = tgsic(&["theia", "run", src.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr)
            .contains("PIXELSHADER: 0x800b: INTP: the b1.2 core never finishes it (hangs)"),
        "{}",
        text(&o.stderr)
    );
    // Usage errors exit 2.
    assert_eq!(
        tgsic(&["theia", "asm", src.to_str().unwrap(), "-o", "x.txt"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        tgsic(&["theia", "run", src.to_str().unwrap(), "--set", "R1=abc"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        tgsic(&["theia", "run", src.to_str().unwrap(), "--entry", "NOWHERE"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn compile_writes_an_image_that_runs_and_reports_what_it_cannot_compile() {
    let dir = temp();
    let d = dir.path();
    let shader = d.join("mod.tgsi");
    std::fs::write(
        &shader,
        "FRAG\nDCL IN[0], TEXCOORD[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\nDCL CONST[0]\nDCL TEMP[0]\n  0: TEX TEMP[0], IN[0], SAMP[0], 2D\n  1: MUL OUT[0], TEMP[0], CONST[0]\n  2: END\n",
    )
    .unwrap();
    let consts = d.join("c0.bin");
    let words: Vec<u8> = [0.5f32, 0.25, 0.75, 1.0]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    std::fs::write(&consts, words).unwrap();
    let img = d.join("mod.mem");
    let listing = d.join("mod.lst");
    let c = format!("0={}", consts.display());
    let o = tgsic(&[
        "theia",
        "compile",
        shader.to_str().unwrap(),
        "-o",
        img.to_str().unwrap(),
        "--listing",
        listing.to_str().unwrap(),
        "--const",
        &c,
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("alpha (OUT[0].w) is dropped"),
        "{}",
        text(&o.stderr)
    );
    let l = std::fs::read_to_string(&listing).unwrap();
    assert!(
        l.contains("MUL OREG_PIXEL_COLOR C1 CREG_TEXTURE_COLOR"),
        "{l}"
    );
    assert!(l.contains("1: MUL OUT[0], TEMP[0], CONST[0]"), "{l}");
    // The image runs: texture colour (1, 1, 1) times the constant.
    let o = tgsic(&[
        "theia",
        "run",
        img.to_str().unwrap(),
        "--set",
        "CREG_TEXTURE_COLOR=1,1,1",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(
        out.contains("OREG_PIXEL_COLOR") && out.contains("(0.5, 0.25, 0.75)"),
        "{out}"
    );
    // A texel fetch at a computed coordinate has no b1.2 equivalent: exit 1, naming the line.
    let bad = d.join("bad.tgsi");
    std::fs::write(
        &bad,
        "FRAG\nDCL IN[0], TEXCOORD[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\nDCL TEMP[0]\n  0: ADD TEMP[0], IN[0], IN[0]\n  1: TEX OUT[0], TEMP[0], SAMP[0], 2D\n  2: END\n",
    )
    .unwrap();
    let e = compile_error(&bad, &img, &[]);
    assert!(
        e.contains("bad.tgsi:6:6: error: reading IN[0] (TEXCOORD[0])"),
        "{e}"
    );
    let e = compile_error(&bad, &img, &["--bind", "IN[0]=CREG_UV0_LAST"]);
    assert!(
        e.contains("bad.tgsi:7:6: error: sample of texture unit 0"),
        "{e}"
    );
    // An error about the whole shader names the file only.
    let e = compile_error(&shader, &img, &[]);
    assert!(
        e.contains("mod.tgsi: error: the shader reads constant buffer 0, but no constants were given for it (--const 0=FILE)"),
        "{e}"
    );
}
