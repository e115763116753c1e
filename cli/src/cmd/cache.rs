//! `tgsic cache`: where the code cache is, how much it holds, and emptying it.

use crate::args::input_error;
use crate::report::Failure;
use clap::Args;
use tgsic_runtime::host::{CacheDir, DEFAULT_MAX_BYTES, DiskCache};

/// Arguments of `tgsic cache`.
#[derive(Debug, Args)]
pub struct CacheArgs {
    /// Remove every entry.
    #[arg(long)]
    pub clear: bool,
    /// The folder (default: TGSIC_CACHE_DIR, else the per-user cache folder).
    #[arg(long, value_name = "DIR|off")]
    pub cache_dir: Option<String>,
}

/// `tgsic cache`.
pub fn cache(a: &CacheArgs) -> Result<(), Failure> {
    let setting = a
        .cache_dir
        .as_deref()
        .and_then(CacheDir::parse)
        .unwrap_or_default();
    let Some(dir) = setting.resolve() else {
        println!("the code cache is off");
        return Ok(());
    };
    let fail = |e: std::io::Error| input_error(format!("{}: error: {e}", dir.display()));
    let c = DiskCache::open(&dir, DEFAULT_MAX_BYTES).map_err(fail)?;
    if a.clear {
        c.clear().map_err(fail)?;
    }
    let (entries, bytes) = c.usage();
    println!(
        "{}: {entries} entries, {:.1} MiB (bound {} MiB)",
        dir.display(),
        bytes as f64 / (1 << 20) as f64,
        DEFAULT_MAX_BYTES >> 20
    );
    Ok(())
}
