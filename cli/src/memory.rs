//! The memory a run lends its shader, from the command line: `--buffer N=FILE` (the file's
//! bytes are BUFFER[N]), `--image N=FILE,WxH[xD],FORMAT` (its texels in FORMAT's own layout,
//! row-major, row 0 first) and `--shared-bytes B`; after the run, every buffer's and image's
//! final bytes go to the output folder under its file's base name.

use crate::args::{input_error, unit_arg, usage};
use crate::report::Failure;
use clap::Args;
use std::path::{Path, PathBuf};
use tgsic_runtime::host::{Image, ImageFormat, Resources};

/// Buffers, images and shared memory (`tgsic run` and `tgsic bench`).
#[derive(Debug, Args, Default, Clone)]
pub struct MemoryArgs {
    /// BUFFER[N] is FILE's bytes (its size is the file's size); the run changes them, and the
    /// final bytes go to the output folder.
    #[arg(long = "buffer", value_name = "N=FILE")]
    pub buffers: Vec<String>,
    /// IMAGE[N] is FILE's texels: WxH[xD] texels of FORMAT (as the TGSI spells it without
    /// `PIPE_FORMAT_`: R8G8B8A8_UNORM, R32_SINT, R32G32B32A32_FLOAT, ...), row-major, row 0
    /// first.
    #[arg(long = "image", value_name = "N=FILE,WxH[xD],FORMAT")]
    pub images: Vec<String>,
    /// Bytes of shared memory (MEMORY) of each work group; not part of the TGSI.
    #[arg(long, value_name = "B", default_value_t = 0)]
    pub shared_bytes: u32,
}

/// One file lent as a buffer or image.
struct Lent {
    index: u32,
    path: PathBuf,
    bytes: Vec<u8>,
    /// Size and format of an image.
    image: Option<([u32; 3], ImageFormat)>,
}

/// The files of `--buffer` and `--image`, read.
pub struct MemoryFiles {
    files: Vec<Lent>,
    shared_bytes: u32,
}

impl MemoryArgs {
    /// Reads every file.
    ///
    /// # Errors
    /// A usage error for a malformed option, an input error for a file that cannot be read.
    pub fn read(&self) -> Result<MemoryFiles, Failure> {
        let mut files = Vec::new();
        for spec in &self.buffers {
            let (n, file) = unit_arg(spec, "buffer")?;
            let bytes = crate::report::read_bounded(&file, crate::report::MAX_DATA_BYTES)?;
            files.push(Lent {
                index: n as u32,
                path: PathBuf::from(file),
                bytes,
                image: None,
            });
        }
        for spec in &self.images {
            let (n, rest) = unit_arg(spec, "image")?;
            let bad = |why: &str| usage(format!("--image {spec}: {why}"));
            let parts: Vec<&str> = rest.rsplitn(3, ',').collect();
            let [format, size, file] = parts[..] else {
                return Err(bad("expected N=FILE,WxH[xD],FORMAT"));
            };
            let format = ImageFormat::from_name(format)
                .filter(|f| *f != ImageFormat::None)
                .ok_or_else(|| bad(&format!("unknown image format `{format}`")))?;
            let dims: Vec<u32> = size
                .split(['x', 'X'])
                .map(str::parse)
                .collect::<Result<_, _>>()
                .map_err(|_| bad("the size is WxH or WxHxD"))?;
            let size = match dims[..] {
                [w, h] => [w, h, 1],
                [w, h, d] => [w, h, d],
                _ => return Err(bad("the size is WxH or WxHxD")),
            };
            let bytes = crate::report::read_bounded(file, crate::report::MAX_DATA_BYTES)?;
            files.push(Lent {
                index: n as u32,
                path: PathBuf::from(file),
                bytes,
                image: Some((size, format)),
            });
        }
        Ok(MemoryFiles {
            files,
            shared_bytes: self.shared_bytes,
        })
    }
}

impl MemoryFiles {
    /// The files as the run's memory.
    ///
    /// # Errors
    /// An input error naming the file whose size does not fit its image, a buffer or image
    /// given twice, or too much shared memory.
    pub fn resources(&mut self) -> Result<Resources<'_>, Failure> {
        let mut res = Resources::new();
        res.set_shared_bytes(self.shared_bytes)
            .map_err(|e| usage(format!("--shared-bytes: {e}")))?;
        for f in &mut self.files {
            let name = f.path.display().to_string();
            let fail =
                |e: tgsic_runtime::host::MemoryError| input_error(format!("{name}: error: {e}"));
            match f.image {
                None => res.bind_buffer(f.index, &mut f.bytes).map_err(fail)?,
                Some((size, format)) => {
                    let img = Image::new(&mut f.bytes, size, format).map_err(fail)?;
                    res.bind_image(f.index, img).map_err(fail)?;
                }
            }
        }
        Ok(res)
    }

    /// Every buffer's and image's bytes, one after another (to compare runs).
    pub fn contents(&self) -> Vec<u8> {
        self.files
            .iter()
            .flat_map(|f| f.bytes.iter().copied())
            .collect()
    }

    /// Writes every buffer's and image's bytes into `dir` (created if missing) under its
    /// file's base name.
    ///
    /// # Errors
    /// An input error naming the file that could not be written, or two files of one name.
    pub fn write(&self, dir: &Path) -> Result<(), Failure> {
        std::fs::create_dir_all(dir).map_err(|e| {
            input_error(format!(
                "{}: error: cannot create the folder: {e}",
                dir.display()
            ))
        })?;
        let mut names = std::collections::HashSet::new();
        for f in &self.files {
            let base = f.path.file_name().ok_or_else(|| {
                input_error(format!("{}: error: the file has no name", f.path.display()))
            })?;
            if !names.insert(base.to_owned()) {
                return Err(usage(format!(
                    "two buffers or images are named {}: their results would overwrite each other",
                    base.to_string_lossy()
                )));
            }
            let out = dir.join(base);
            std::fs::write(&out, &f.bytes)
                .map_err(|e| input_error(format!("{}: error: cannot write: {e}", out.display())))?;
        }
        Ok(())
    }
}
