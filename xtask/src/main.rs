//! Project chores: `cargo xtask ci`, `cargo xtask corpus`, `cargo xtask fuzz-seeds`,
//! `cargo xtask bench`.

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
                && cargo(&["test", "--workspace"])
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
        _ => {
            eprintln!(
                "usage: cargo xtask ci | corpus | fuzz-seeds | bench [--features llvm] [criterion filter]"
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
