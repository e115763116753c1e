//! The code cache on disk: compiled shaders kept between processes, so that a program's second
//! start finds its shaders compiled (as Mesa's shader cache does for llvmpipe).
//!
//! - **Where**: a per-user folder, `$XDG_CACHE_HOME/tgsic` or `$HOME/.cache/tgsic`, created
//!   private (mode 0700); `TGSIC_CACHE_DIR` (a folder, or `off`) moves or disables it, and so
//!   does a host's [`CacheDir`] setting, which wins over the variable.
//! - **What**: one file per compiled code variant, named by the SHA-256 of its key. The key is
//!   everything that decides the code: the build of tgsic, the code generator and its version,
//!   the CPU and features ([`tgsic::back::target_id`]), the compile options, the texture
//!   variant and the program's whole token stream. The file holds the key itself, the length
//!   and SHA-256 of the payload, and the payload ([`CompiledShader::to_bytes`]).
//! - **Trust**: an entry is used only when its key equals the one asked for byte for byte and
//!   its payload's digest matches; a truncated, corrupted, foreign or stale entry is a miss
//!   (compiled again and replaced), never run.
//! - **Writes** go to a temporary file renamed over the entry, so that a reader sees a whole
//!   old entry or a whole new one, and two processes filling one cache at once both work.
//! - **Size**: bounded ([`DEFAULT_MAX_BYTES`]); past the bound the least recently used entries
//!   (by modification time, which a hit refreshes) are removed.
//!
//! [`CompiledShader::to_bytes`]: tgsic::back::compiled::CompiledShader::to_bytes

mod key;

pub use key::CodeKey;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The cache's size bound when none is given: 512 MiB.
pub const DEFAULT_MAX_BYTES: u64 = 512 << 20;

/// The largest entry read: far more than the code of any shader (the largest of the corpora
/// take well under 1 MiB), far less than would strain a host's memory.
pub const MAX_ENTRY_BYTES: u64 = 64 << 20;

/// The first bytes of an entry, with the format's version.
const MAGIC: &[u8; 8] = b"TGSICCH1";

/// Where a runtime keeps its code cache.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum CacheDir {
    /// `TGSIC_CACHE_DIR` when set (a folder, or `off`), else the platform's per-user cache
    /// folder.
    #[default]
    Default,
    /// No code cache.
    Off,
    /// This folder.
    At(PathBuf),
}

impl CacheDir {
    /// The setting a string names, by the one rule of the variable `TGSIC_CACHE_DIR`, the
    /// command line's `--cache-dir` and the C API's `cache_dir`: `off` for no cache, any
    /// other text a folder, and the empty string no setting at all (`None`: the default
    /// applies, so that an unset shell variable expanded to "" never names the working
    /// directory).
    pub fn parse(setting: impl AsRef<std::ffi::OsStr>) -> Option<CacheDir> {
        let s = setting.as_ref();
        if s.is_empty() {
            None
        } else if s == "off" {
            Some(CacheDir::Off)
        } else {
            Some(CacheDir::At(PathBuf::from(s)))
        }
    }

    /// The folder this setting names in this process's environment, or `None` for no cache.
    /// An empty [`CacheDir::At`] path is [`CacheDir::Default`] ([`CacheDir::parse`]).
    pub fn resolve(&self) -> Option<PathBuf> {
        let setting = match self {
            CacheDir::At(p) if !p.as_os_str().is_empty() => Some(self.clone()),
            CacheDir::Off => Some(CacheDir::Off),
            _ => std::env::var_os("TGSIC_CACHE_DIR").and_then(CacheDir::parse),
        };
        match setting {
            Some(CacheDir::Off) => None,
            Some(CacheDir::At(p)) => Some(p),
            // The platform's per-user cache folder.
            _ => {
                let base = std::env::var_os("XDG_CACHE_HOME")
                    .filter(|v| !v.is_empty())
                    .map(PathBuf::from)
                    .or_else(|| {
                        std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache"))
                    })?;
                Some(base.join("tgsic"))
            }
        }
    }
}

/// A code cache folder.
#[derive(Debug)]
pub(crate) struct DiskCache {
    dir: PathBuf,
    max_bytes: u64,
    /// The bytes its entries take, as this process last counted them (at open and at each
    /// eviction) plus what it stored since: the folder is listed again only when this passes
    /// the bound, not at every store. Entries other processes add are counted at the next
    /// listing.
    bytes: AtomicU64,
    /// Entries read that failed verification.
    rejected: AtomicU64,
}

impl DiskCache {
    /// The cache in `dir`, created (private) if it does not exist.
    ///
    /// # Errors
    /// The I/O error when the folder cannot be created.
    pub fn open(dir: &Path, max_bytes: u64) -> std::io::Result<DiskCache> {
        let mut b = std::fs::DirBuilder::new();
        b.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
        b.create(dir)?;
        let cache = DiskCache {
            dir: dir.to_path_buf(),
            max_bytes,
            bytes: AtomicU64::new(0),
            rejected: AtomicU64::new(0),
        };
        cache.bytes.store(cache.usage().1, Ordering::Relaxed);
        Ok(cache)
    }

    /// Its folder.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Entries read so far that failed verification (truncated, corrupted, another key).
    #[cfg(test)]
    fn rejected(&self) -> u64 {
        self.rejected.load(Ordering::Relaxed)
    }

    /// The file of `key`.
    fn path(&self, key: &[u8]) -> PathBuf {
        let digest = Sha256::digest(key);
        let name: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        self.dir.join(name)
    }

    /// The payload stored under `key`, verified: the entry is a regular file of at most
    /// [`MAX_ENTRY_BYTES`], its key equals `key` and its payload its digest. An entry that
    /// fails is removed (and so replaced when the shader is compiled again).
    pub(crate) fn load(&self, key: &[u8]) -> Option<Vec<u8>> {
        let path = self.path(key);
        let bytes = match read_entry(&path) {
            Entry::Missing => return None,
            Entry::Read(bytes) => bytes,
            Entry::Refused => {
                self.reject(&path);
                return None;
            }
        };
        match verify(&bytes, key) {
            Some(payload) => {
                // Most recently used: a hit refreshes the entry's time.
                if let Ok(f) = std::fs::File::options().append(true).open(&path) {
                    let _ = f.set_modified(std::time::SystemTime::now());
                }
                Some(payload.to_vec())
            }
            None => {
                self.reject(&path);
                None
            }
        }
    }

    /// Counts an entry that failed verification and removes it (a symbolic link itself, not
    /// what it points at).
    fn reject(&self, path: &Path) {
        self.rejected.fetch_add(1, Ordering::Relaxed);
        let _ = std::fs::remove_file(path);
    }

    /// Stores `payload` under `key`, atomically (a temporary file renamed over the entry),
    /// then keeps the folder within its bound. Failures are ignored: the cache is an
    /// optimization, and a shader compiles without it.
    pub(crate) fn store(&self, key: &[u8], payload: &[u8]) {
        let mut entry = Vec::with_capacity(MAGIC.len() + 48 + key.len() + payload.len());
        entry.extend_from_slice(MAGIC);
        entry.extend_from_slice(&(key.len() as u32).to_le_bytes());
        entry.extend_from_slice(key);
        entry.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        entry.extend_from_slice(&Sha256::digest(payload));
        entry.extend_from_slice(payload);
        if entry.len() as u64 > MAX_ENTRY_BYTES {
            // It would never be read back.
            return;
        }
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let tmp = self.dir.join(format!(
            ".tmp-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let path = self.path(key);
        let replaced = std::fs::symlink_metadata(&path).map_or(0, |m| m.len());
        if std::fs::write(&tmp, &entry).is_err() || std::fs::rename(&tmp, path).is_err() {
            let _ = std::fs::remove_file(&tmp);
            return;
        }
        let added = (entry.len() as u64).saturating_sub(replaced);
        if self.bytes.fetch_add(added, Ordering::Relaxed) + added > self.max_bytes {
            self.evict();
        }
    }

    /// Removes the least recently used entries until the folder holds at most nine tenths of
    /// its bound (so that eviction is not done at every store), and counts what is left.
    fn evict(&self) {
        let Ok(dir) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let mut entries: Vec<(std::time::SystemTime, u64, PathBuf)> = dir
            .flatten()
            .filter(|e| is_entry_name(&e.file_name().to_string_lossy()))
            .filter_map(|e| {
                let m = e.metadata().ok()?;
                Some((m.modified().ok()?, m.len(), e.path()))
            })
            .collect();
        let mut total: u64 = entries.iter().map(|e| e.1).sum();
        if total <= self.max_bytes {
            self.bytes.store(total, Ordering::Relaxed);
            return;
        }
        entries.sort();
        for (_, len, path) in entries {
            if total <= self.max_bytes / 10 * 9 {
                break;
            }
            if std::fs::remove_file(&path).is_ok() {
                total -= len;
            }
        }
        self.bytes.store(total, Ordering::Relaxed);
    }

    /// The entries in the folder, and the bytes they take.
    pub fn usage(&self) -> (usize, u64) {
        std::fs::read_dir(&self.dir).map_or((0, 0), |d| {
            d.flatten()
                .filter(|e| is_entry_name(&e.file_name().to_string_lossy()))
                .filter_map(|e| e.metadata().ok())
                .fold((0, 0), |(n, b), m| (n + 1, b + m.len()))
        })
    }

    /// Removes every entry (and leftover temporary file) of the folder.
    ///
    /// # Errors
    /// The first I/O error.
    pub fn clear(&self) -> std::io::Result<()> {
        for e in std::fs::read_dir(&self.dir)?.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if is_entry_name(&name) || name.starts_with(".tmp-") {
                std::fs::remove_file(e.path())?;
            }
        }
        self.bytes.store(0, Ordering::Relaxed);
        Ok(())
    }
}

/// What reading an entry's file gave.
enum Entry {
    /// No such file (or it cannot be opened).
    Missing,
    /// Not a regular file (a link, a FIFO, a device, a folder), or larger than
    /// [`MAX_ENTRY_BYTES`]: never an entry.
    Refused,
    /// The file's bytes.
    Read(Vec<u8>),
}

/// Reads the entry at `path` without following a symbolic link and without waiting on a FIFO
/// (it is opened without blocking and refused once seen), taking at most
/// [`MAX_ENTRY_BYTES`]: the file type and size are those of the opened file, so that a file
/// swapped in between cannot be read past the bound.
fn read_entry(path: &Path) -> Entry {
    use std::io::Read;
    let mut options = std::fs::File::options();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(
        &mut options,
        libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC,
    );
    let file = match options.open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Entry::Missing,
        // A path that exists but does not open: a symbolic link (ELOOP), or a file this user
        // cannot read.
        Err(_) if path.symlink_metadata().is_ok() => return Entry::Refused,
        Err(_) => return Entry::Missing,
    };
    let Ok(meta) = file.metadata() else {
        return Entry::Missing;
    };
    if !meta.is_file() || meta.len() > MAX_ENTRY_BYTES {
        return Entry::Refused;
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // One byte past the bound tells a file that grew since.
    match file.take(MAX_ENTRY_BYTES + 1).read_to_end(&mut bytes) {
        Ok(_) if bytes.len() as u64 <= MAX_ENTRY_BYTES => Entry::Read(bytes),
        Ok(_) => Entry::Refused,
        Err(_) => Entry::Missing,
    }
}

/// Whether a file name is an entry's: 64 lowercase hex digits.
fn is_entry_name(name: &str) -> bool {
    name.len() == 64
        && name
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The payload of an entry whose key is `key` and whose payload matches its digest.
fn verify<'a>(entry: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
    let rest = entry.strip_prefix(MAGIC)?;
    let (len, rest) = rest.split_at_checked(4)?;
    let key_len = u32::from_le_bytes(len.try_into().ok()?) as usize;
    let (stored_key, rest) = rest.split_at_checked(key_len)?;
    if stored_key != key {
        return None;
    }
    let (len, rest) = rest.split_at_checked(8)?;
    let payload_len = usize::try_from(u64::from_le_bytes(len.try_into().ok()?)).ok()?;
    let (digest, payload) = rest.split_at_checked(32)?;
    if payload.len() != payload_len || Sha256::digest(payload).as_slice() != digest {
        return None;
    }
    Some(payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("tgsic-cache-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn entries_come_back_only_whole_and_under_their_own_key() {
        let dir = folder("verify");
        let c = DiskCache::open(&dir, DEFAULT_MAX_BYTES).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700, "the folder is private");
        }
        let (k1, k2) = (b"key one".as_slice(), b"key two".as_slice());
        assert_eq!(c.load(k1), None);
        c.store(k1, b"payload one");
        c.store(k2, b"payload two");
        assert_eq!(c.load(k1).as_deref(), Some(b"payload one".as_slice()));
        // Every truncation, and every flipped byte, of an entry is a miss.
        let whole = std::fs::read(c.path(k1)).unwrap();
        for n in 0..whole.len() {
            std::fs::write(c.path(k1), &whole[..n]).unwrap();
            assert_eq!(c.load(k1), None, "{n} bytes");
        }
        for k in 0..whole.len() {
            let mut bad = whole.clone();
            bad[k] ^= 0x10;
            std::fs::write(c.path(k1), &bad).unwrap();
            assert_eq!(c.load(k1), None, "byte {k} flipped");
            assert!(!c.path(k1).exists(), "a bad entry is removed");
        }
        // Another key's entry under this key's name is a miss.
        std::fs::copy(c.path(k2), c.path(k1)).unwrap();
        assert_eq!(c.load(k1), None);
        assert!(c.rejected() > whole.len() as u64);
        c.clear().unwrap();
        assert_eq!(c.load(k2), None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn entries_that_are_not_regular_files_are_misses_read_without_waiting() {
        // A FIFO under an entry's name would block a plain read forever; a symbolic link to a
        // device or a huge file would be read whole. Both are misses, removed, and a store
        // replaces them with a real entry.
        let dir = folder("types");
        let c = DiskCache::open(&dir, DEFAULT_MAX_BYTES).unwrap();
        let key = b"some key".as_slice();
        let fifo =
            std::ffi::CString::new(c.path(key).into_os_string().into_encoded_bytes()).unwrap();
        // SAFETY: a NUL-terminated path, and a plain mode.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        let (done, waited) = std::sync::mpsc::channel();
        let loader = {
            let c = DiskCache::open(&dir, DEFAULT_MAX_BYTES).unwrap();
            std::thread::spawn(move || done.send(c.load(key)).unwrap())
        };
        let got = waited
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("reading a FIFO entry returns at once");
        loader.join().unwrap();
        assert_eq!(got, None);
        assert!(
            c.path(key).symlink_metadata().is_err(),
            "the FIFO is removed"
        );
        c.store(key, b"payload");
        assert_eq!(c.load(key).as_deref(), Some(b"payload".as_slice()));
        // A link is refused even to a valid entry of its own key: entries are regular files,
        // never followed (so a link to `/dev/zero` or a huge file is not read either).
        let elsewhere = dir.join("elsewhere");
        std::fs::rename(c.path(key), &elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, c.path(key)).unwrap();
        assert_eq!(c.load(key), None, "a link to a valid entry");
        assert!(
            c.path(key).symlink_metadata().is_err(),
            "the link is removed"
        );
        assert!(elsewhere.exists(), "what it pointed at is left alone");
        // A regular file past the bound is refused without being read.
        let big = std::fs::File::create(c.path(key)).unwrap();
        big.set_len(MAX_ENTRY_BYTES + 1).unwrap();
        drop(big);
        assert_eq!(c.load(key), None);
        assert!(!c.path(key).exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_folder_keeps_within_its_bound_least_recently_used_first() {
        let dir = folder("bound");
        let c = DiskCache::open(&dir, 3000).unwrap();
        let payload = vec![7u8; 900];
        for k in 0..3u8 {
            c.store(&[k], &payload);
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        // Entry 0 used again: entry 1 is now the least recently used.
        assert!(c.load(&[0]).is_some());
        std::thread::sleep(std::time::Duration::from_millis(20));
        c.store(&[3], &payload);
        assert!(c.load(&[0]).is_some(), "recently used: kept");
        assert!(c.load(&[1]).is_none(), "least recently used: evicted");
        assert!(c.load(&[3]).is_some());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn two_writers_and_readers_at_once_see_whole_entries() {
        let dir = folder("race");
        let c = std::sync::Arc::new(DiskCache::open(&dir, DEFAULT_MAX_BYTES).unwrap());
        let threads: Vec<_> = (0..4u8)
            .map(|t| {
                let c = c.clone();
                std::thread::spawn(move || {
                    for i in 0..200u32 {
                        let payload = vec![t; 100 + (i as usize % 7) * 1000];
                        c.store(b"shared", &payload);
                        if let Some(p) = c.load(b"shared") {
                            // Whichever writer's: whole and of one byte.
                            assert!(p.iter().all(|&b| b == p[0]) && p.len() >= 100);
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert!(c.load(b"shared").is_some());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_setting_and_the_variable_choose_the_folder() {
        assert_eq!(CacheDir::Off.resolve(), None);
        let at = PathBuf::from("/somewhere");
        assert_eq!(CacheDir::At(at.clone()).resolve(), Some(at.clone()));
        assert_eq!(CacheDir::parse("off"), Some(CacheDir::Off));
        assert_eq!(CacheDir::parse("/somewhere"), Some(CacheDir::At(at)));
        // An empty setting is no setting: never the working directory.
        assert_eq!(CacheDir::parse(""), None);
        assert_eq!(
            CacheDir::At(PathBuf::new()).resolve(),
            CacheDir::Default.resolve()
        );
        assert_ne!(CacheDir::Default.resolve(), Some(PathBuf::new()));
    }
}
