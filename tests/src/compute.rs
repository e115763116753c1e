//! The compute corpus (`corpus/compute`, its README the contract): each entry's buffers and
//! images loaded from `<name>.in/`, bound as `index.json` says, run step by step with the
//! step's constants and grid, and compared with softpipe's files after every step and at the
//! end.

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tgsic_runtime::host::{
    Bindings, Compiled, Frame, Image, ImageFormat, Module, Resources, RunControl,
};

/// One entry of the corpus.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Its name (`piglit_acs_simple_barrier`).
    pub name: String,
    /// `compute` or `fragment`.
    pub mode: String,
    /// Its features (`fp64`, `int64`, `images`, ...).
    pub features: Vec<String>,
    dir: PathBuf,
    json: Value,
}

/// Every entry of `corpus/compute`, or `None` when the shared folder is absent (see
/// [`crate::shared::require`]).
pub fn entries() -> Option<Vec<Entry>> {
    let dir = crate::shared::require("corpus/compute")?;
    let text = std::fs::read_to_string(dir.join("index.json")).expect("index.json");
    let index: Value = serde_json::from_str(&text).expect("index.json is JSON");
    let shaders = index["shaders"].as_object().expect("shaders");
    let list = shaders
        .iter()
        .map(|(name, e)| Entry {
            name: name.clone(),
            mode: e["mode"].as_str().unwrap_or_default().to_string(),
            features: e["features"]
                .as_array()
                .map(|f| {
                    f.iter()
                        .filter_map(|x| x.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default(),
            dir: dir.clone(),
            json: e.clone(),
        })
        .collect();
    Some(list)
}

impl Entry {
    /// Whether it uses doubles or 64-bit integers (issue 60).
    pub fn is_64_bit(&self) -> bool {
        self.features.iter().any(|f| f == "fp64" || f == "int64")
    }

    /// Its TGSI text.
    pub fn tgsi(&self) -> String {
        let f = self.json["tgsi"].as_str().unwrap_or_default();
        std::fs::read_to_string(self.dir.join(f)).expect("the entry's TGSI")
    }

    /// Runs every step of a compute entry with `shader` (compiled from [`Entry::tgsi`]),
    /// comparing the buffers and images with softpipe's after each step and at the end.
    ///
    /// # Errors
    /// What differs first, or why the entry could not run.
    pub fn run_compute(&self, shader: &Compiled) -> Result<(), String> {
        let e = &self.json;
        let input = self.dir.join(e["in"].as_str().unwrap_or_default());
        let reference = self.dir.join(e["ref"].as_str().unwrap_or_default());
        // Every file of .in/, by name: the memory the steps share.
        let mut files = read_files(&input)?;
        let bindings = e["bindings"].as_object().cloned().unwrap_or_default();
        let shared = e["shared_memory_bytes"].as_u64().unwrap_or(0) as u32;
        let steps = e["steps"].as_array().cloned().unwrap_or_default();
        for (k, step) in steps.iter().enumerate() {
            let grid = triple(&step["grid"]).ok_or("a step without a grid")?;
            let bind = Bindings {
                constants: vec![constants(&step["const_buffer_0_u32"])],
                textures: textures(&bindings, &files)?,
                ..Bindings::default()
            };
            let lent = lent_files(&bindings, &e["inputs"], k)?;
            {
                let mut res = Resources::new();
                res.set_shared_bytes(shared).map_err(|e| e.to_string())?;
                bind_files(&mut res, &mut files, &lent)?;
                shader
                    .dispatch(
                        crate::run::runtime(),
                        &bind,
                        &mut res,
                        grid,
                        &RunControl::default(),
                    )
                    .map_err(|e| format!("step {}: {e}", k + 1))?;
            }
            // The files the step changed, as softpipe left them.
            let step_dir = self.dir.join(step["ref"].as_str().unwrap_or_default());
            if steps.len() > 1 {
                compare_dir(&step_dir, &files, &format!("step {}", k + 1))?;
            }
        }
        compare_dir(&reference, &files, "the end")
    }
}

impl Entry {
    /// Runs every step of a fragment entry with `shader`: each draw over the covered pixels of
    /// its rectangle (pixel centres inside; `draw arrays` entries cover the window), the
    /// colour converted to UNORM8 into the window or the target texture, and compares the
    /// files as [`Entry::run_compute`] does. Outputs whose compare mode is `multiset` are
    /// compared as sorted words, `order_dependent` ones not at all (the README's rules).
    ///
    /// # Errors
    /// What differs first, or why the entry could not run.
    pub fn run_fragment(&self, shader: &Compiled) -> Result<(), String> {
        let e = &self.json;
        let input = self.dir.join(e["in"].as_str().unwrap_or_default());
        let reference = self.dir.join(e["ref"].as_str().unwrap_or_default());
        let mut files = read_files(&input)?;
        let bindings = e["bindings"].as_object().cloned().unwrap_or_default();
        let inputs = &e["inputs"];
        let steps = e["steps"].as_array().cloned().unwrap_or_default();
        for (k, step) in steps.iter().enumerate() {
            let bind = Bindings {
                constants: vec![constants(&step["const_buffer_0_u32"])],
                textures: textures(&bindings, &files)?,
                ..Bindings::default()
            };
            let (target, (w, h)) = match step["target"]["kind"].as_str() {
                Some("texture") => {
                    let unit = step["target"]["unit"].as_u64().unwrap_or(0);
                    let file = format!("tex_{unit}.bin");
                    let t = &inputs[&file];
                    let size = (
                        t["width"].as_u64().unwrap_or(1) as u32,
                        t["height"].as_u64().unwrap_or(1) as u32,
                    );
                    (file, size)
                }
                _ => {
                    let win = &e["window"];
                    let size = (
                        win[0].as_u64().unwrap_or(64) as u32,
                        win[1].as_u64().unwrap_or(64) as u32,
                    );
                    ("window.rgba8".to_string(), size)
                }
            };
            let rect = match step["rect_clip"].as_array() {
                Some(r) => {
                    let c: Vec<f64> = r.iter().filter_map(Value::as_f64).collect();
                    let edge = |clip: f64, n: u32| (clip + 1.0) / 2.0 * n as f64;
                    // Pixels whose centre lies inside [a, b).
                    let first = |a: f64| (a - 0.5).ceil().max(0.0) as u32;
                    let (xa, xb) = (edge(c[0], w), edge(c[0] + c[2], w));
                    let (ya, yb) = (edge(c[1], h), edge(c[1] + c[3], h));
                    [first(xa), first(ya), first(xb), first(yb)]
                }
                None => [0, 0, w, h],
            };
            let lent = lent_files(&bindings, inputs, k)?;
            let mut colours: Vec<(u32, u32, [f32; 4])> = Vec::new();
            {
                let mut res = Resources::new();
                bind_files(&mut res, &mut files, &lent)?;
                let frame = Frame {
                    width: w,
                    height: h,
                    output: 0,
                };
                shader
                    .draw(
                        crate::run::runtime(),
                        &bind,
                        &mut res,
                        tgsic_runtime::host::Draw { frame, rect },
                        &RunControl::default(),
                        &mut |i, j, c| colours.push((i, j, c)),
                    )
                    .map_err(|e| format!("step {}: {e}", k + 1))?;
            }
            let pixels = files
                .get_mut(&target)
                .ok_or_else(|| format!("no target {target}"))?;
            for (i, j, c) in colours {
                let at = 4 * (j * w + i) as usize;
                if let Some(px) = pixels.get_mut(at..at + 4) {
                    tgsic::numerics::texel::pack(
                        ImageFormat::R8G8B8A8Unorm,
                        c.map(f32::to_bits),
                        px,
                    );
                }
            }
            let step_dir = self.dir.join(step["ref"].as_str().unwrap_or_default());
            if steps.len() > 1 {
                self.compare_outputs(&step_dir, &files, &format!("step {}", k + 1))?;
            }
        }
        self.compare_outputs(&reference, &files, "the end")
    }

    /// [`compare_dir`], with the compare mode of each output.
    fn compare_outputs(
        &self,
        dir: &Path,
        files: &BTreeMap<String, Vec<u8>>,
        when: &str,
    ) -> Result<(), String> {
        let mut exact = files.clone();
        for (name, out) in self.json["outputs"].as_object().into_iter().flatten() {
            match out["compare"].as_str() {
                Some("order_dependent") => {
                    exact.remove(name);
                }
                Some("multiset") => {
                    if let Some(bytes) = exact.get_mut(name) {
                        let want = std::fs::read(dir.join(name)).unwrap_or_default();
                        fn sorted(b: &[u8]) -> Vec<&[u8]> {
                            let mut w: Vec<&[u8]> = b.chunks(4).collect();
                            w.sort();
                            w
                        }
                        if !want.is_empty() && sorted(bytes) != sorted(&want) {
                            return Err(format!("{when}: {name}'s words differ as a multiset"));
                        }
                        exact.remove(name);
                    }
                }
                _ => {}
            }
        }
        let skip: Vec<String> = files
            .keys()
            .filter(|k| !exact.contains_key(*k))
            .cloned()
            .collect();
        compare_dir_except(dir, &exact, &skip, when)
    }
}

/// Every file of `dir`, by name.
fn read_files(dir: &Path) -> Result<BTreeMap<String, Vec<u8>>, String> {
    let mut files = BTreeMap::new();
    for f in std::fs::read_dir(dir).map_err(|e| e.to_string())?.flatten() {
        let name = f.file_name().to_string_lossy().into_owned();
        files.insert(name, std::fs::read(f.path()).map_err(|e| e.to_string())?);
    }
    Ok(files)
}

/// The file of each BUFFER and IMAGE register in step `k` (0-based): a buffer's own, an
/// image's the texture of its unit, sized and formatted as `inputs` describes it.
fn lent_files(
    bindings: &serde_json::Map<String, Value>,
    inputs: &Value,
    k: usize,
) -> Result<Vec<Lent>, String> {
    let mut lent = Vec::new();
    for (reg, b) in bindings {
        let Some(index) = register_index(reg) else {
            continue;
        };
        if reg.starts_with("BUFFER[") {
            let file = b["file"].as_str().ok_or("a buffer without a file")?;
            lent.push((file.to_string(), index, None));
        } else if reg.starts_with("IMAGE[") {
            let unit = b["gl_image_unit"]
                .as_u64()
                .or_else(|| b["unit_per_step"][(k + 1).to_string()].as_u64())
                .unwrap_or(0);
            let file = format!("tex_{unit}.bin");
            let t = &inputs[&file];
            let size = [
                t["width"].as_u64().unwrap_or(1) as u32,
                t["height"].as_u64().unwrap_or(1) as u32,
                1,
            ];
            let format = gl_format(t["internal_format"].as_str().unwrap_or(""))?;
            lent.push((file, index, Some((size, format))));
        }
    }
    Ok(lent)
}

/// Binds each file of `lent` to its register; a file lent twice is shared.
fn bind_files<'a>(
    res: &mut Resources<'a>,
    files: &'a mut BTreeMap<String, Vec<u8>>,
    lent: &[Lent],
) -> Result<(), String> {
    let mut taken: Vec<(&String, &mut Vec<u8>)> = files.iter_mut().collect();
    let mut first: BTreeMap<String, (u32, bool)> = BTreeMap::new();
    for (file, index, image) in lent {
        if let Some(&(of, was_image)) = first.get(file) {
            let shared = if was_image {
                res.share_image(*index, of)
            } else {
                res.share_buffer(*index, of)
            };
            shared.map_err(|e| e.to_string())?;
            continue;
        }
        let pos = taken
            .iter()
            .position(|(n, _)| *n == file)
            .ok_or_else(|| format!("{file} is missing"))?;
        let (_, bytes) = taken.swap_remove(pos);
        first.insert(file.clone(), (*index, image.is_some()));
        match image {
            None => res.bind_buffer(*index, bytes),
            Some((size, format)) => {
                Image::new(bytes, *size, *format).and_then(|img| res.bind_image(*index, img))
            }
        }
        .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// A file lent to a step: its name, the register index, and an image's size and format.
type Lent = (String, u32, Option<([u32; 3], ImageFormat)>);

/// Compares every file of `dir` (if any) with the run's file of that name.
fn compare_dir(dir: &Path, files: &BTreeMap<String, Vec<u8>>, when: &str) -> Result<(), String> {
    compare_dir_except(dir, files, &[], when)
}

/// [`compare_dir`] but for the files named in `skip`.
fn compare_dir_except(
    dir: &Path,
    files: &BTreeMap<String, Vec<u8>>,
    skip: &[String],
    when: &str,
) -> Result<(), String> {
    let Ok(list) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for f in list.flatten() {
        if !f.path().is_file() {
            continue;
        }
        let name = f.file_name().to_string_lossy().into_owned();
        if skip.contains(&name) {
            continue;
        }
        let want = std::fs::read(f.path()).map_err(|e| e.to_string())?;
        let got = files
            .get(&name)
            .ok_or_else(|| format!("{when}: no file {name}"))?;
        if *got != want {
            let words = |b: &[u8]| -> Vec<u32> {
                b.chunks(4)
                    .map(|c| c.iter().rev().fold(0, |a, &x| a << 8 | x as u32))
                    .collect()
            };
            let (g, w) = (words(got), words(&want));
            let first = g.iter().zip(&w).position(|(a, b)| a != b).unwrap_or(0);
            let differ = g.iter().zip(&w).filter(|(a, b)| a != b).count();
            return Err(format!(
                "{when}: {name} differs in {differ} of {} words; first at word {first}: {:#010x}, softpipe {:#010x}",
                w.len(),
                g.get(first).copied().unwrap_or(0),
                w.get(first).copied().unwrap_or(0)
            ));
        }
    }
    Ok(())
}

fn triple(v: &Value) -> Option<[u32; 3]> {
    let a = v.as_array()?;
    Some([
        a.first()?.as_u64()? as u32,
        a.get(1)?.as_u64()? as u32,
        a.get(2)?.as_u64()? as u32,
    ])
}

/// `["00000001 00000000 ...", ...]`: one slot of four hex words each.
fn constants(v: &Value) -> Vec<[u32; 4]> {
    v.as_array()
        .map(|slots| {
            slots
                .iter()
                .map(|s| {
                    let words: Vec<u32> = s
                        .as_str()
                        .unwrap_or("")
                        .split_whitespace()
                        .map(|w| u32::from_str_radix(w, 16).unwrap_or(0))
                        .collect();
                    std::array::from_fn(|k| words.get(k).copied().unwrap_or(0))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn register_index(reg: &str) -> Option<u32> {
    reg.split_once('[')?.1.split_once(']')?.0.parse().ok()
}

/// The image format of a GL internal format the corpus uses.
fn gl_format(gl: &str) -> Result<ImageFormat, String> {
    Ok(match gl {
        "GL_RGBA8" | "GL_RGBA" => ImageFormat::R8G8B8A8Unorm,
        "GL_R32I" => ImageFormat::R32Sint,
        "GL_R32UI" => ImageFormat::R32Uint,
        "GL_R32F" => ImageFormat::R32Float,
        "GL_RGBA32F" => ImageFormat::R32G32B32A32Float,
        other => return Err(format!("no image format for {other}")),
    })
}

/// The textures of `SAMP[n]/SVIEW[n]` bindings: RGBA8 files, nearest, clamped to the edge.
fn textures(
    bindings: &serde_json::Map<String, Value>,
    files: &BTreeMap<String, Vec<u8>>,
) -> Result<Vec<Option<tgsic_runtime::host::Texture>>, String> {
    let mut out = Vec::new();
    for (reg, b) in bindings {
        if !reg.starts_with("SAMP[") {
            continue;
        }
        let unit = b["gl_texture_unit"].as_u64().unwrap_or(0) as usize;
        let tex = &b["texture"];
        let (w, h) = (
            tex["width"].as_u64().unwrap_or(1) as u32,
            tex["height"].as_u64().unwrap_or(1) as u32,
        );
        let file = b["file"].as_str().ok_or("a texture without a file")?;
        let bytes = files.get(file).ok_or("a texture file that is missing")?;
        let t =
            tgsic_runtime::host::Texture::from_rgba8(w, h, 1, bytes).map_err(|e| e.to_string())?;
        if out.len() <= unit {
            out.resize(unit + 1, None);
        }
        out[unit] = Some(t);
    }
    Ok(out)
}

/// Loads `entry`'s program.
///
/// # Errors
/// Why it does not load.
pub fn module(entry: &Entry) -> Result<Module, String> {
    let src = tgsic::front::text::parse(&entry.tgsi()).map_err(|e| e.to_string())?;
    Module::new(src).map_err(|e| e.to_string())
}
