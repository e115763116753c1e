//! `tgsic cache`: where the code cache is, how much it holds, and emptying it.

use crate::args::input_error;
use crate::report::Failure;
use clap::Args;
use tgsic_runtime::host::{CacheDir, DEFAULT_MAX_BYTES, Runtime, RuntimeOptions};

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
    let rt = Runtime::new(RuntimeOptions {
        threads: 1,
        code_cache: CacheDir::At(dir.clone()),
        ..RuntimeOptions::default()
    })
    .map_err(|e| input_error(format!("error: {e}")))?;
    if a.clear {
        rt.clear_code_cache()
            .map_err(|e| input_error(format!("{}: error: {e}", dir.display())))?;
    }
    let (entries, bytes) = rt.code_cache_usage().unwrap_or_default();
    println!(
        "{}: {entries} entries, {:.1} MiB (bound {} MiB)",
        dir.display(),
        bytes as f64 / (1 << 20) as f64,
        DEFAULT_MAX_BYTES >> 20
    );
    Ok(())
}
