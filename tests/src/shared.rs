//! Where the shared corpora are, for every test of the workspace. The runtime crate's CLI tests
//! include this file by path (they cannot depend on this crate, which depends on theirs); both
//! crates sit one level below the workspace, so the default location is the same for both.

use std::path::{Path, PathBuf};

/// The shared folder: `TGSIC_SHARED` when set, else `shared/` beside the workspace.
pub fn shared_root() -> PathBuf {
    match std::env::var_os("TGSIC_SHARED") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
    }
}

/// `sub` (a folder in the shared folder, such as `corpus/mesa`) when it exists.
///
/// When it does not: under CI (the `CI` variable set) this panics, because a test that skipped
/// its corpus would pass without testing anything; elsewhere it prints that the test is skipped
/// and returns `None`.
pub fn require(sub: &str) -> Option<PathBuf> {
    let dir = shared_root().join(sub);
    if dir.is_dir() {
        return Some(dir);
    }
    let msg = format!(
        "{} is absent: the tests that read the shared corpora need it (set TGSIC_SHARED to the shared folder)",
        dir.display()
    );
    assert!(std::env::var_os("CI").is_none(), "{msg}");
    eprintln!("skipped: {msg}");
    None
}
