//! `cargo xtask record` and its named measurements: run a measurement, show its output, and
//! append it to a results file under `results/`, headed by what a later reader needs to
//! compare it with: the date, the commit (and whether the tree had uncommitted changes), the
//! host's CPU as the kernel and LLVM name it, the cores, `TGSIC_LLVM_FEATURES`, and the exact
//! command. Docs and code comments point at these files instead of quoting figures.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The folder of results files, at the workspace's root.
pub const RESULTS: &str = "results";

/// The output of `program args`, trimmed, or `None` when it does not run.
fn output_of(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The host line of a record: CPU model, LLVM's name for it, cores.
fn host() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let llvm = output_of("llc-19", &["--version"])
        .and_then(|v| {
            v.lines().find_map(|l| {
                l.trim()
                    .strip_prefix("Host CPU:")
                    .map(|c| c.trim().to_string())
            })
        })
        .unwrap_or_else(|| "unknown (no llc-19)".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("{model} (LLVM's target CPU: {llvm}), {cores} cores")
}

/// The commit of the working tree, marked when it has uncommitted changes.
fn commit() -> String {
    let head = output_of("git", &["rev-parse", "--short", "HEAD"]).unwrap_or_else(|| "?".into());
    let dirty = output_of("git", &["status", "--porcelain", "--untracked-files=no"])
        .is_some_and(|s| !s.is_empty());
    if dirty {
        format!("{head} with uncommitted changes")
    } else {
        head
    }
}

/// Runs `cmd` (its output shown as it comes), then appends to `file` a section titled `title`
/// with the record's header, the command (or `shown`, a shorter spelling of it) and everything
/// it printed on standard output. Returns whether the command succeeded; a failed run is
/// recorded too, marked so.
pub fn record(file: &Path, title: &str, cmd: &[String], shown: Option<&str>) -> bool {
    let Some((program, args)) = cmd.split_first() else {
        eprintln!("record: no command");
        return false;
    };
    let date = output_of("date", &["-u", "+%Y-%m-%d %H:%M UTC"]).unwrap_or_default();
    let (commit, host) = (commit(), host());
    let child = Command::new(program)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn();
    let Ok(mut child) = child else {
        eprintln!("record: cannot run {program}");
        return false;
    };
    let mut text = String::new();
    if let Some(out) = child.stdout.take() {
        use std::io::BufRead;
        for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
            println!("{line}");
            text.push_str(&line);
            text.push('\n');
        }
    }
    let ok = child.wait().is_ok_and(|s| s.success());
    let features = std::env::var("TGSIC_LLVM_FEATURES").unwrap_or_else(|_| "unset".into());
    let shown = shown.map_or_else(
        || {
            cmd.iter()
                .map(|a| {
                    if a.contains(' ') || a.is_empty() {
                        format!("\"{a}\"")
                    } else {
                        a.clone()
                    }
                })
                .collect::<Vec<_>>()
                .join(" ")
        },
        str::to_string,
    );
    let section = format!(
        "\n## {date} · {commit} · {title}{}\n\nHost: {host}; `TGSIC_LLVM_FEATURES`: {features}.\n\
         Command: `{}`\n\n{}",
        if ok { "" } else { " (the command failed)" },
        shown,
        text
    );
    let written = std::fs::create_dir_all(file.parent().unwrap_or(Path::new("."))).and_then(|()| {
        let new = !file.exists();
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(file)?;
        if new {
            writeln!(f, "# {}", file_title(file))?;
        }
        f.write_all(section.as_bytes())
    });
    if let Err(e) = written {
        eprintln!("record: {}: {e}", file.display());
        return false;
    }
    eprintln!("recorded in {}", file.display());
    ok
}

/// The first line of a new results file.
fn file_title(file: &Path) -> String {
    match file.file_stem().and_then(|s| s.to_str()) {
        Some("llvmpipe") => "Against llvmpipe: throughput and accuracy, side by side".into(),
        Some("first-frame") => "Time to the first image, against llvmpipe".into(),
        Some("compile-time") => "JIT compile time over the etnaviv corpus".into(),
        Some(other) => other.to_string(),
        None => "Results".into(),
    }
}

/// What `cargo xtask llvmpipe|first-frame|compile-time` take.
pub struct Options {
    /// The tgsic binary (a release build with the `llvm` feature for the LLVM engines).
    pub tgsic: String,
    /// `--engine` of the bench scripts (`llvm`, `jit`, `auto`).
    pub engine: String,
    /// `--math` (empty: tgsic's default).
    pub math: String,
    /// `--shaders` (`all`, or a list).
    pub shaders: String,
    /// The core both sides run on.
    pub core: String,
}

impl Options {
    /// Reads `--tgsic P --engine E --math M --shaders S --core C` from `args`.
    pub fn parse(args: &[String]) -> Result<Options, String> {
        let mut o = Options {
            tgsic: "target/release/tgsic".into(),
            engine: "llvm".into(),
            math: String::new(),
            shaders: "all".into(),
            core: "1".into(),
        };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let v = it.next().ok_or(format!("{a} needs a value"))?.clone();
            match a.as_str() {
                "--tgsic" => o.tgsic = v,
                "--engine" => o.engine = v,
                "--math" => o.math = v,
                "--shaders" => o.shaders = v,
                "--core" => o.core = v,
                _ => return Err(format!("unknown option {a}")),
            }
        }
        Ok(o)
    }

    fn width(&self) -> &'static str {
        match std::env::var("TGSIC_LLVM_FEATURES") {
            Ok(f) if f.contains("-avx512f") => "AVX2",
            _ => "host width",
        }
    }
}

/// The shared bench folder: `TGSIC_SHARED/bench`, else `../shared/bench`.
fn bench() -> PathBuf {
    std::env::var_os("TGSIC_SHARED")
        .map_or_else(|| PathBuf::from("../shared"), PathBuf::from)
        .join("bench")
}

/// `python3 ../shared/bench/SCRIPT --tgsic P --engine E`, then `args`.
fn script(name: &str, o: &Options, args: &[&str]) -> Vec<String> {
    let mut cmd = vec![
        "python3".to_string(),
        bench().join(name).display().to_string(),
        "--tgsic".into(),
        o.tgsic.clone(),
        "--engine".into(),
        o.engine.clone(),
    ];
    cmd.extend(args.iter().map(|a| a.to_string()));
    cmd
}

/// Throughput against llvmpipe and, of the same build and mode, accuracy: both recorded in
/// `results/llvmpipe.md`.
pub fn llvmpipe(o: &Options) -> bool {
    let file = Path::new(RESULTS).join("llvmpipe.md");
    let math = if o.math.is_empty() {
        "accurate (default)"
    } else {
        o.math.as_str()
    };
    let title = format!("{} engine, {}, {math} math", o.engine, o.width());
    let mode: Vec<&str> = if o.math.is_empty() {
        vec![]
    } else {
        vec!["--math", &o.math]
    };
    let mut speed = script(
        "vs_llvmpipe.py",
        o,
        &[
            "--core",
            &o.core,
            "--shaders",
            &o.shaders,
            "--extra",
            "--cache-dir off",
        ],
    );
    let mut accuracy = script(
        "accuracy_vs_llvmpipe.py",
        o,
        &["--extra", "--cache-dir off"],
    );
    speed.extend(mode.iter().map(|a| a.to_string()));
    accuracy.extend(mode.iter().map(|a| a.to_string()));
    if o.shaders != "all" {
        accuracy.extend(["--shaders".into(), o.shaders.clone()]);
    }
    let s = record(&file, &format!("{title}: throughput"), &speed, None);
    let a = record(&file, &format!("{title}: accuracy"), &accuracy, None);
    s && a
}

/// Time to the first image against llvmpipe, recorded in `results/first-frame.md`.
pub fn first_frame(o: &Options) -> bool {
    let file = Path::new(RESULTS).join("first-frame.md");
    let cmd = script(
        "first_frame.py",
        o,
        &["--core", &o.core, "--shaders", &o.shaders],
    );
    record(
        &file,
        &format!("{} engine, {}", o.engine, o.width()),
        &cmd,
        None,
    )
}

/// JIT compile time over the etnaviv corpus (`tgsic bench --compile-only`, one core),
/// recorded in `results/compile-time.md`.
pub fn compile_time(o: &Options) -> bool {
    let file = Path::new(RESULTS).join("compile-time.md");
    let corpus = bench()
        .parent()
        .map(|s| s.join("corpus/etnaviv"))
        .unwrap_or_default();
    let mut shaders = Vec::new();
    collect(&corpus, &mut shaders);
    shaders.sort();
    let mut cmd = vec![
        "taskset".to_string(),
        "-c".into(),
        o.core.clone(),
        o.tgsic.clone(),
        "bench".into(),
        "--compile-only".into(),
        "--engines".into(),
        o.engine.clone(),
        "--cache-dir".into(),
        "off".into(),
    ];
    let shown = format!(
        "{} {}/**/*.tgsi ({} files)",
        cmd.join(" "),
        corpus.display(),
        shaders.len()
    );
    cmd.extend(shaders);
    let title = format!("{} engine, {}", o.engine, o.width());
    record(&file, &title, &cmd, Some(&shown))
}

fn collect(dir: &Path, out: &mut Vec<String>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "tgsi") {
            out.push(p.display().to_string());
        }
    }
}

/// Build against build (`xtask/side_by_side.py`, its arguments `args` passed as they are),
/// recorded in `results/side-by-side.md` under `title` (what B changes).
pub fn side_by_side(title: &str, args: &[String]) -> bool {
    let file = Path::new(RESULTS).join("side-by-side.md");
    let mut cmd = vec!["python3".to_string(), "xtask/side_by_side.py".into()];
    cmd.extend(args.iter().cloned());
    record(&file, title, &cmd, None)
}
