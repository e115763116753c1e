//! Sets `TGSIC_BUILD_ID`: a digest of this crate's sources and of the workspace's lock file (the
//! code generators' exact versions). Machine code a build generates depends on both, so code
//! caches key their entries on it (`tgsic::back::target_id`): a rebuilt compiler never runs
//! code an older one stored.

use sha2::{Digest, Sha256};
use std::path::Path;

fn hash_dir(h: &mut Sha256, dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            hash_dir(h, &p);
        } else if let Ok(bytes) = std::fs::read(&p) {
            h.update(p.to_string_lossy().as_bytes());
            h.update(&bytes);
        }
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut h = Sha256::new();
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    hash_dir(&mut h, &root.join("src"));
    let lock = root.join("../Cargo.lock");
    if let Ok(bytes) = std::fs::read(&lock) {
        h.update(&bytes);
    }
    let id: String = h.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    println!("cargo:rustc-env=TGSIC_BUILD_ID={id}");
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=../Cargo.lock");
    println!("cargo:rerun-if-changed=build.rs");
}
