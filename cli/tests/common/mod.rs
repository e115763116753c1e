//! Running the `tgsic` program from the CLI tests, and finding the shared corpora. Each test
//! file uses what it needs of this module.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::process::{Command, ExitStatus, Output, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Reads a child's pipe to its end on its own thread, so that a full pipe never stalls it.
fn drain(mut pipe: impl Read + Send + 'static) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        bytes
    })
}

/// The address space tgsic runs in under test: 4 GiB, as the robustness issue judges it.
const ADDRESS_SPACE_KIB: u64 = 4 << 20;

/// Runs tgsic with `stdin` in a 4 GiB address space and waits at most `limit`. Panics on a
/// hang (the process is killed), on an end by a signal (an abort, a stack overflow, an
/// allocation that the address space refused) and on a Rust panic message: no input may cause
/// any of these.
pub fn tgsic_within(args: &[&str], stdin: &[u8], limit: Duration) -> Output {
    tgsic_within_space(args, stdin, limit, ADDRESS_SPACE_KIB)
}

/// As [`tgsic_within`], in an address space of `space_kib` KiB.
pub fn tgsic_within_space(args: &[&str], stdin: &[u8], limit: Duration, space_kib: u64) -> Output {
    // The shell lowers its own limit, then becomes tgsic: `$0` is the program, `$@` its args.
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {space_kib} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_tgsic"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tgsic runs");
    let what = args.iter().take(3).copied().collect::<Vec<_>>().join(" ");
    let mut input = child.stdin.take().expect("stdin");
    let bytes = stdin.to_vec();
    // A usage error exits before reading standard input: a broken pipe is expected then.
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&bytes);
    });
    let stdout = drain(child.stdout.take().expect("stdout"));
    let stderr = drain(child.stderr.take().expect("stderr"));
    let start = Instant::now();
    let status: ExitStatus = loop {
        if let Some(s) = child.try_wait().expect("waits") {
            break s;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("tgsic {what} ... did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let _ = writer.join();
    let out = Output {
        status,
        stdout: stdout.join().expect("stdout read"),
        stderr: stderr.join().expect("stderr read"),
    };
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code().is_some(),
        "tgsic {what} ... ended by a signal: {err}"
    );
    assert!(
        !err.contains("panicked"),
        "tgsic {what} ... panicked: {err}"
    );
    out
}

/// The shared corpora's locator, the one every test of the workspace uses.
#[path = "../../../tests/src/shared.rs"]
pub mod shared;
