//! Images written as they are rendered (`.f32` or `.png`), and progress bars.

use crate::args::{input_error, usage};
use crate::report::Failure;
use std::path::{Path, PathBuf};
use tgsic_runtime::host::{Band, BandOrder};

/// Where a fragment shader's image goes, band by band as it is rendered, so that an image of
/// any size is written in memory proportional to its width (`Compiled::render_bands`).
pub enum ImageSink {
    /// `.f32`: every pixel's four components, little-endian, bottom row first.
    F32(std::io::BufWriter<std::fs::File>, PathBuf),
    /// `.png`: 8-bit RGBA, top row first (components clamped to [0, 1], NaN as 0).
    Png(Box<png::StreamWriter<'static, std::fs::File>>, PathBuf),
}

impl ImageSink {
    /// Opens `path` for a `width × height` image; the extension chooses the format.
    pub fn create(path: &Path, width: u32, height: u32) -> Result<ImageSink, Failure> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        if !matches!(ext.as_deref(), Some("f32" | "png")) {
            return Err(usage(format!(
                "{}: the image must be .f32 or .png",
                path.display()
            )));
        }
        let fail = |e: &dyn std::fmt::Display| {
            input_error(format!("{}: error: cannot write: {e}", path.display()))
        };
        let file = std::fs::File::create(path).map_err(|e| fail(&e))?;
        if ext.as_deref() == Some("f32") {
            let w = std::io::BufWriter::new(file);
            return Ok(ImageSink::F32(w, path.to_path_buf()));
        }
        // The PNG stream writer buffers and compresses by itself.
        let mut enc = png::Encoder::new(file, width, height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let w = enc.write_header().map_err(|e| fail(&e))?;
        let stream = w.into_stream_writer().map_err(|e| fail(&e))?;
        Ok(ImageSink::Png(Box::new(stream), path.to_path_buf()))
    }

    /// The order the format stores rows in.
    pub fn order(&self) -> BandOrder {
        match self {
            ImageSink::F32(..) => BandOrder::BottomUp,
            ImageSink::Png(..) => BandOrder::TopDown,
        }
    }

    /// Writes one band (bands arrive in [`ImageSink::order`]).
    pub fn write(&mut self, band: &Band) -> Result<(), String> {
        use std::io::Write;
        let (result, path) = match self {
            ImageSink::F32(w, path) => {
                let bytes: Vec<u8> = band
                    .pixels
                    .iter()
                    .flatten()
                    .flat_map(|v| v.to_le_bytes())
                    .collect();
                (w.write_all(&bytes), path)
            }
            ImageSink::Png(w, path) => {
                let mut rgba = Vec::with_capacity(band.pixels.len() * 4);
                for y in (band.y0..band.y0 + band.rows).rev() {
                    for v in band.row(y).iter().flatten() {
                        let v = if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) };
                        rgba.push((v * 255.0).round() as u8);
                    }
                }
                (w.write_all(&rgba), path)
            }
        };
        result.map_err(|e| format!("{}: error: cannot write: {e}", path.display()))
    }

    /// Completes the file.
    pub fn finish(self) -> Result<(), Failure> {
        use std::io::Write;
        let (result, path) = match self {
            ImageSink::F32(mut w, path) => (w.flush().map_err(|e| e.to_string()), path),
            ImageSink::Png(w, path) => (w.finish().map_err(|e| e.to_string()), path),
        };
        result.map_err(|e| input_error(format!("{}: error: cannot write: {e}", path.display())))
    }
}

/// A progress bar on stderr for runs of many batches (hidden when stderr is not a terminal).
pub fn progress_bar(what: &str) -> indicatif::ProgressBar {
    let pb = indicatif::ProgressBar::new(0);
    pb.set_style(
        indicatif::ProgressStyle::with_template("{msg} {bar:40} {pos}/{len} batches ({elapsed})")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    pb.set_message(what.to_string());
    pb
}
