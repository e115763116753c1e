//! The `tgsic` program's front-end commands: asm, dis, check.

use std::process::Output;

mod common;

fn tgsic(args: &[&str], stdin: &[u8]) -> Output {
    common::tgsic_within(args, stdin, std::time::Duration::from_secs(600))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn dis_of_asm_equals_the_printed_text() {
    let Some(files) = tgsic_tests_shaders() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("tgsic-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (k, path) in files.iter().enumerate().step_by(25) {
        let p = path.to_str().expect("utf-8 path");
        let bin = dir.join(format!("{k}.bin"));
        let asm = tgsic(&["asm", p, "-o", bin.to_str().expect("path")], b"");
        assert!(asm.status.success(), "asm {p}: {}", stderr(&asm));
        let dis = tgsic(&["dis", bin.to_str().expect("path")], b"");
        assert!(dis.status.success(), "dis {p}: {}", stderr(&dis));
        let src = std::fs::read_to_string(path).expect("corpus file");
        let printed = tgsic::front::text::print(&tgsic::front::text::parse(&src).expect("parses"));
        assert_eq!(String::from_utf8_lossy(&dis.stdout), printed, "{p}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn tgsic_tests_shaders() -> Option<Vec<std::path::PathBuf>> {
    let shared = common::shared::require("corpus/etnaviv")?;
    let mut v: Vec<_> = std::fs::read_dir(&shared)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "tgsi"))
        .collect();
    v.sort();
    Some(v)
}

#[test]
fn stdin_and_stdout_work_both_ways() {
    let text =
        b"FRAG\nDCL IN[0], COLOR, LINEAR\nDCL OUT[0], COLOR\n  0: MOV OUT[0], IN[0]\n  1: END\n";
    let asm = tgsic(&["asm", "-"], text);
    assert!(asm.status.success(), "{}", stderr(&asm));
    assert_eq!(&asm.stdout[..4], &[1, 1, 0, 0], "VERSION 1.1 first");
    let dis = tgsic(&["dis", "-"], &asm.stdout);
    assert_eq!(
        String::from_utf8_lossy(&dis.stdout),
        String::from_utf8_lossy(text)
    );
    let check = tgsic(&["check", "-"], &asm.stdout);
    assert!(check.status.success());
    assert_eq!(
        String::from_utf8_lossy(&check.stdout),
        "<stdin>: ok (binary, FRAG, 2 declarations, 0 immediates, 2 instructions)\n"
    );
}

#[test]
fn bad_text_exits_1_with_path_line_column() {
    let o = tgsic(&["check", "-"], b"FRAG\nDCL TEMP[0]\nMOV TEMP[0], TEMP[0\n");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "<stdin>:3:20: error: expected `]`, found end of line\n"
    );
    let o = tgsic(&["check", "-"], b"FRAG\nDCL TEMP[0]\nMOV TEMP[0], IN[2]\n");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "<stdin>:3:14: error: IN[2] is used but not declared\n"
    );
}

#[test]
fn bad_binary_exits_1_with_token_and_field() {
    // VERSION 2.1.
    let o = tgsic(&["check", "-"], &[2, 1, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "<stdin>: token 0 (MajorVersion): major version 2 is not supported (only 1)\n"
    );
    // Truncated: three bytes of a word.
    let o = tgsic(&["dis", "-"], &[1, 1, 0, 0, 2, 0, 0]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).starts_with("<stdin>: token 1 (stream): "),
        "{}",
        stderr(&o)
    );
    // An instruction reading an undeclared register: validation names the operand token.
    let words: [u32; 6] = [
        0x101,
        2 | 3 << 8,
        0,
        2 | 3 << 4 | 1 << 12 | 1 << 22 | 1 << 24,
        4 | 0xF << 4,
        2 | 0xE4 << 4,
    ];
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let o = tgsic(&["check", "-"], &bytes);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("<stdin>: token 4 (Index): TEMP[0] is used but not declared"),
        "{err}"
    );
    assert!(
        err.contains("<stdin>: token 5 (Index): IN[0] is used but not declared"),
        "{err}"
    );
}

#[test]
fn usage_errors_exit_2_and_help_works() {
    assert_eq!(tgsic(&["frob"], b"").status.code(), Some(2));
    assert_eq!(tgsic(&["asm"], b"").status.code(), Some(2));
    for sub in ["asm", "dis", "check"] {
        let o = tgsic(&[sub, "--help"], b"");
        assert!(o.status.success());
        assert!(String::from_utf8_lossy(&o.stdout).contains("Usage: tgsic"));
    }
    let v = tgsic(&["--version"], b"");
    assert_eq!(
        String::from_utf8_lossy(&v.stdout),
        format!("tgsic {}\n", env!("CARGO_PKG_VERSION"))
    );
    let missing = tgsic(&["check", "/nonexistent/x.tgsi"], b"");
    assert_eq!(missing.status.code(), Some(1));
    assert!(stderr(&missing).starts_with("/nonexistent/x.tgsi: error: cannot read:"));
}
