//! The runtime's caches, as one service: the compiled shaders it keeps in memory (least
//! recently used out, in O(1)) and the machine code it keeps on disk between processes
//! (`crate::cache`: verified entries under a versioned key, bounded in bytes).

use super::compiled::Compiled;
use super::error::HostError;
use crate::cache::{CacheDir, DiskCache};
use crate::engine::CompileOptions;
use std::sync::{Arc, Mutex};

/// What the compiled-shader cache is keyed by: the program's whole token stream and the
/// options (never a hash alone, so two programs can never share an entry).
pub(crate) type Key = (Arc<[u32]>, CompileOptions);

/// The compiled shaders in memory and the code cache on disk of one runtime.
pub(crate) struct Caches {
    /// The compiled shaders kept, least recently used first out (`None`: none kept).
    shaders: Option<Mutex<lru::LruCache<Key, Arc<Compiled>>>>,
    /// The code cache on disk, if any.
    disk: Option<Arc<DiskCache>>,
}

impl Caches {
    /// Room for `entries` compiled shaders (0: none kept) and the code cache `dir` says,
    /// bounded by `bytes`. A folder the host names must be usable; the default one may be
    /// missing (no home, a read-only one), and then there is no code cache.
    ///
    /// # Errors
    /// [`HostError::Cache`] when the folder the host named cannot be used.
    pub(crate) fn open(entries: usize, dir: &CacheDir, bytes: u64) -> Result<Caches, HostError> {
        let disk = match dir.resolve() {
            None => None,
            Some(path) => match DiskCache::open(&path, bytes) {
                Ok(c) => Some(Arc::new(c)),
                Err(e) if matches!(dir, CacheDir::At(_)) => {
                    return Err(HostError::Cache(format!("{}: {e}", path.display())));
                }
                Err(_) => None,
            },
        };
        Ok(Caches {
            shaders: std::num::NonZeroUsize::new(entries)
                .map(|n| Mutex::new(lru::LruCache::new(n))),
            disk,
        })
    }

    /// The compiled shader of `key`, now the most recently used.
    pub(crate) fn shader(&self, key: &Key) -> Option<Arc<Compiled>> {
        self.shaders.as_ref()?.lock().ok()?.get(key).cloned()
    }

    /// Keeps `compiled` under `key` (the least recently used goes when the cache is full).
    pub(crate) fn keep(&self, key: Key, compiled: Arc<Compiled>) {
        if let Some(Ok(mut shaders)) = self.shaders.as_ref().map(Mutex::lock) {
            shaders.put(key, compiled);
        }
    }

    /// Compiled shaders kept.
    pub(crate) fn shaders(&self) -> usize {
        self.shaders
            .as_ref()
            .and_then(|c| c.lock().ok().map(|c| c.len()))
            .unwrap_or(0)
    }

    /// The code cache on disk, for the JIT's code variants.
    pub(crate) fn disk(&self) -> Option<Arc<DiskCache>> {
        self.disk.clone()
    }

    /// The code cache's folder.
    pub(crate) fn dir(&self) -> Option<&std::path::Path> {
        self.disk.as_deref().map(DiskCache::dir)
    }

    /// The code cache's entries and bytes.
    pub(crate) fn usage(&self) -> Option<(usize, u64)> {
        self.disk.as_deref().map(DiskCache::usage)
    }

    /// Empties the code cache.
    pub(crate) fn clear(&self) -> std::io::Result<()> {
        self.disk.as_deref().map_or(Ok(()), DiskCache::clear)
    }
}
