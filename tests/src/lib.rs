//! Helpers for the corpus tests: where `../shared` is and which shaders it holds.
//!
//! The corpora are read in place (never copied). Tests that need them call [`corpus`] and skip
//! with a message when the folder is absent.

use std::path::{Path, PathBuf};

/// The `shared/` folder beside the workspace (`TGSIC_SHARED` overrides), if it exists.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("TGSIC_SHARED") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
    };
    dir.join("corpus").is_dir().then_some(dir)
}

/// Which corpus a shader belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Corpus {
    /// `corpus/etnaviv`: 707 dumps from real applications.
    Etnaviv,
    /// `corpus/mesa`: shaders with Mesa's rendered reference output.
    Mesa,
}

/// Every `.tgsi` file of `which`, sorted, or `None` (with a message on stderr) when the shared
/// folder is absent.
pub fn corpus(which: Corpus) -> Option<Vec<PathBuf>> {
    let Some(shared) = shared_dir() else {
        eprintln!("skipped: ../shared/corpus is absent (set TGSIC_SHARED to its folder)");
        return None;
    };
    let root = shared.join("corpus").join(match which {
        Corpus::Etnaviv => "etnaviv",
        Corpus::Mesa => "mesa",
    });
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    Some(files)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "tgsi") {
            out.push(p);
        }
    }
}

/// Both corpora, or `None` when the shared folder is absent.
pub fn all_shaders() -> Option<Vec<PathBuf>> {
    let mut v = corpus(Corpus::Etnaviv)?;
    v.extend(corpus(Corpus::Mesa)?);
    Some(v)
}
