//! Project chores: `cargo xtask ci`, `capi`, `corpus`, `cycles`, the measurements recorded in
//! `results/` (`llvmpipe`, `first-frame`, `compile-time`, `record`), `fuzz-seeds`, `scaling`,
//! `theia-rtl`, `bench`.

mod cycles;
mod record;

use std::process::{Command, ExitCode};

fn cargo(args: &[&str]) -> bool {
    eprintln!("$ cargo {}", args.join(" "));
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(args)
        .status()
        .is_ok_and(|s| s.success())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let ok = match args.first().map(String::as_str) {
        // What CI runs (.ci/run does the same).
        Some("ci") => {
            cargo(&["fmt", "--all", "--", "--check"])
                && cargo(&[
                    "clippy",
                    "--workspace",
                    "--all-targets",
                    "--",
                    "-D",
                    "warnings",
                ])
                && cycles::check(&cycles::crate_roots(std::path::Path::new(".")))
                    .is_ok_and(|n| n == 0)
                && cargo(&["test", "--workspace"])
        }
        // No import circle between the files of any crate (CI runs it).
        Some("cycles") => match cycles::check(&cycles::crate_roots(std::path::Path::new("."))) {
            Ok(0) => true,
            Ok(n) => {
                eprintln!("{n} import circles");
                false
            }
            Err(e) => {
                eprintln!("{e}");
                false
            }
        },
        // Measurements recorded in results/ (docs/results.md): against llvmpipe (throughput
        // and accuracy), time to the first image, compile time; or any command.
        Some(m @ ("llvmpipe" | "first-frame" | "compile-time")) => {
            match record::Options::parse(&args[1..]) {
                Ok(o) => match m {
                    "llvmpipe" => record::llvmpipe(&o),
                    "first-frame" => record::first_frame(&o),
                    _ => record::compile_time(&o),
                },
                Err(e) => {
                    eprintln!("{e}");
                    return ExitCode::from(2);
                }
            }
        }
        // Build against build in one run: `--title T` (what B changes), then the arguments of
        // xtask/side_by_side.py (`--a SIDE --b SIDE [--kind throughput|first-frame] ...`).
        Some("side-by-side") if args.len() > 3 && args[1] == "--title" => {
            record::side_by_side(&args[2], &args[3..])
        }
        Some("record") if args.len() > 2 => {
            let file = std::path::Path::new(record::RESULTS).join(format!("{}.md", args[1]));
            record::record(&file, &args[1], &args[2..], None)
        }
        // The corpus conformance tests alone, with their output.
        Some("corpus") => cargo(&["test", "-p", "tgsic-tests", "--", "--nocapture"]),
        // Criterion benchmarks, then a markdown table of their estimates.
        Some("bench") => {
            let mut a = vec!["bench", "-p", "tgsic-benches"];
            a.extend(args[1..].iter().map(String::as_str));
            cargo(&a) && report()
        }
        // The fuzzers' seed folders, fuzz/corpus/TARGET, from ../shared (fuzz/README.md).
        Some("fuzz-seeds") => cargo(&[
            "test",
            "--release",
            "-p",
            "tgsic-tests",
            "--test",
            "fuzz_smoke",
            "write_seed_corpora",
            "--",
            "--ignored",
            "--nocapture",
        ]),
        // The THEIA simulator against the b1.2 RTL under Icarus Verilog, the whole set
        // (docs/theia.md, "Checked against the RTL"); THEIA_RTL_SEED picks other programs.
        Some("theia-rtl") => cargo(&[
            "test",
            "--release",
            "-p",
            "tgsic-tests",
            "--test",
            "theia_rtl",
            "--",
            "--ignored",
            "--nocapture",
        ]),
        // The C library installed as a C host gets it (cargo-c: `cargo install cargo-c`), and
        // the C example built against it with pkg-config and run.
        Some("capi") => capi(),
        // JIT compile time and memory against program shape (docs/jit.md, "Compile time and size bounds").
        Some("scaling") => cargo(&["build", "--release", "-p", "tgsic-cli"]) && scaling(),
        _ => {
            eprintln!(
                "usage: cargo xtask ci | capi | corpus | cycles | llvmpipe|first-frame|compile-time [--tgsic P --engine E --math M --shaders S --core C] | side-by-side --title T --a SIDE --b SIDE [--kind throughput|first-frame --engine E --shaders S --rounds N --core C --textured] | record NAME COMMAND... | fuzz-seeds | scaling | theia-rtl | bench [--features llvm] [criterion filter]"
            );
            return ExitCode::from(2);
        }
    };
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Generates shaders of growing nesting depth, block count, declared outputs and length,
/// compiles and runs each with the release `tgsic run` (8x8 pixels, so the time is the
/// compile), and prints wall time and peak memory (from `/usr/bin/time`) as a markdown table.
fn scaling() -> bool {
    let dir = std::path::Path::new("target/scaling");
    if std::fs::create_dir_all(dir).is_err() {
        return false;
    }
    let head =
        "FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0], COLOR\nDCL TEMP[0]\nMOV TEMP[0], IN[0]\n";
    let tail = "MOV OUT[0], TEMP[0]\nEND\n";
    let mut cases: Vec<(String, String)> = Vec::new();
    for n in [8, 16, 32, 64] {
        let body = "ADD TEMP[0], TEMP[0], IN[0]\nBRK\n";
        let src = format!(
            "{head}{}{body}{}{tail}",
            "BGNLOOP\n".repeat(n),
            "ENDLOOP\n".repeat(n)
        );
        cases.push((format!("loops nested {n} deep"), src));
    }
    for n in [16, 32, 64] {
        let body = "ADD TEMP[0], TEMP[0], IN[0]\n";
        let src = format!(
            "{head}{}{body}{}{tail}",
            "IF IN[0].xxxx\n".repeat(n),
            "ENDIF\n".repeat(n)
        );
        cases.push((format!("IFs nested {n} deep"), src));
    }
    for n in [625, 1250, 2500, 5000, 10000] {
        let block = "IF IN[0].xxxx\nADD TEMP[0], TEMP[0], IN[0]\nELSE\nMUL TEMP[0], TEMP[0], IN[0]\nENDIF\n";
        cases.push((
            format!("{n} IF/ELSE blocks in sequence"),
            format!("{head}{}{tail}", block.repeat(n)),
        ));
    }
    for n in [1024, 8192, 32767] {
        let src = format!(
            "FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0..{n}], GENERIC[0]\nMOV OUT[0], IN[0]\nEND\n"
        );
        cases.push((format!("DCL OUT[0..{n}], one MOV"), src));
    }
    for n in [3125, 6250, 12500, 25000, 100000] {
        let body = "ADD TEMP[0], TEMP[0], IN[0].yzwx\n".repeat(n);
        cases.push((
            format!("{n} instructions in a row"),
            format!("{head}{body}{tail}"),
        ));
    }
    println!("| shader | exit | wall time | peak memory |\n|---|---|---|---|");
    for (k, (what, src)) in cases.iter().enumerate() {
        let path = dir.join(format!("case{k}.tgsi"));
        if std::fs::write(&path, src).is_err() {
            return false;
        }
        let out = Command::new("/usr/bin/time")
            .args(["-f", "%e %M", "target/release/tgsic", "run"])
            .arg(&path)
            .args(["-o", "target/scaling/out.png", "--size", "8x8"])
            .output();
        let Ok(out) = out else {
            eprintln!("scaling needs /usr/bin/time (apt-get install time)");
            return false;
        };
        let err = String::from_utf8_lossy(&out.stderr);
        let last = err.lines().last().unwrap_or("");
        let mut f = last.split_whitespace();
        let (secs, kb) = (f.next().unwrap_or("?"), f.next().unwrap_or("?"));
        let code = out.status.code().map_or("signal".into(), |c| c.to_string());
        let mb = kb
            .parse::<f64>()
            .map_or("?".into(), |k| format!("{:.0} MB", k / 1024.0));
        println!("| {what} | {code} | {secs} s | {mb} |");
    }
    true
}

/// Prints `target/criterion/**/new/estimates.json` as a markdown table (median, ns → readable).
fn report() -> bool {
    let root = std::path::Path::new("target/criterion");
    let mut rows = Vec::new();
    collect(root, root, &mut rows);
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    println!("| benchmark | median | throughput |\n|---|---|---|");
    for (name, median_ns, thrpt) in rows {
        println!("| {name} | {} | {thrpt} |", human_time(median_ns));
    }
    true
}

fn collect(root: &std::path::Path, dir: &std::path::Path, rows: &mut Vec<(String, f64, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n == "new") {
                if let Some(row) = read_estimate(root, &p) {
                    rows.push(row);
                }
            } else {
                collect(root, &p, rows);
            }
        }
    }
}

/// Reads the median from criterion's estimates.json and the throughput from benchmark.json,
/// with a tiny field scanner (no JSON dependency for one number).
fn read_estimate(root: &std::path::Path, new: &std::path::Path) -> Option<(String, f64, String)> {
    let est = std::fs::read_to_string(new.join("estimates.json")).ok()?;
    let median = number_after(&est, "\"median\"", "\"point_estimate\":")?;
    let bench = std::fs::read_to_string(new.join("benchmark.json")).unwrap_or_default();
    let name = new.parent()?.strip_prefix(root).ok()?.display().to_string();
    let thrpt = if let Some(b) = number_after(&bench, "\"throughput\"", "\"Bytes\":") {
        format!("{:.1} MB/s", b / median * 1e3)
    } else if let Some(n) = number_after(&bench, "\"throughput\"", "\"Elements\":") {
        format!("{:.2} M elements/s", n / median * 1e3)
    } else {
        String::new()
    };
    Some((name, median, thrpt))
}

fn number_after(text: &str, section: &str, key: &str) -> Option<f64> {
    let s = &text[text.find(section)?..];
    let s = &s[s.find(key)? + key.len()..];
    let end =
        s.find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+' | ' ')))?;
    s[..end].trim().parse().ok()
}

fn human_time(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.2} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

/// `cargo cinstall` of the C library into a temporary prefix, then the C example compiled with
/// `pkg-config --cflags --libs tgsic` against it and run on the checker shader.
fn capi() -> bool {
    let prefix = std::env::temp_dir().join("tgsic-capi-install");
    let _ = std::fs::remove_dir_all(&prefix);
    let (p, lib) = (prefix.join("usr"), prefix.join("usr/lib"));
    let (p, lib) = (p.to_string_lossy(), lib.to_string_lossy());
    let installed = cargo(&[
        "cinstall",
        "--release",
        "-p",
        "tgsic-c",
        "--prefix",
        &p,
        "--libdir",
        &lib,
    ]);
    if !installed {
        eprintln!("cargo cinstall failed (cargo-c: `cargo install cargo-c`)");
        return false;
    }
    let pc = format!("{lib}/pkgconfig");
    let flags = Command::new("pkg-config")
        .args(["--cflags", "--libs", "tgsic"])
        .env("PKG_CONFIG_PATH", &pc)
        .output();
    let Ok(flags) = flags.map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string()) else {
        eprintln!("pkg-config is needed (apt-get install pkg-config)");
        return false;
    };
    eprintln!("$ pkg-config --cflags --libs tgsic: {flags}");
    let exe = prefix.join("render");
    let built = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
        .arg("capi/examples/render.c")
        .args(flags.split_whitespace())
        .arg(format!("-Wl,-rpath,{lib}"))
        .arg("-o")
        .arg(&exe)
        .status()
        .is_ok_and(|s| s.success());
    built
        && Command::new(&exe)
            .args(["examples/shaders/checker.tgsi"])
            .arg(prefix.join("checker.ppm"))
            .args(["64", "64"])
            .status()
            .is_ok_and(|s| s.success())
}
