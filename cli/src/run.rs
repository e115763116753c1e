//! `tgsic run` and `tgsic cmp`.

use crate::report::{Failure, read_error};
use clap::{Args, ValueEnum};

use crate::attributes;
use crate::compare::{compare_files, f32_from_le_bytes};
use std::path::{Path, PathBuf};
use tgsic::back::abi::MathMode;
use tgsic::tgsi::*;
use tgsic_runtime::dispatch::{self, RunOptions};
use tgsic_runtime::engine::{self, Bindings, Engine as _, Prepared};
use tgsic_runtime::jit::{Backend, JitConfig};
use tgsic_runtime::texture::{Compare, Filter, MipFilter, Sampler, Texture, Wrap};

/// An engine as the command line names it: the interpreter, or the JIT with one of its back
/// ends (the names `jit` and `llvm` are what scripts such as `../shared/bench` pass).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EngineArg {
    /// The reference interpreter.
    Interp,
    /// The JIT with the Cranelift back end.
    Jit,
    /// The JIT with the LLVM back end (cargo feature `llvm`).
    Llvm,
}

impl EngineArg {
    /// The JIT back end of a JIT engine.
    pub fn backend(self) -> Option<Backend> {
        match self {
            EngineArg::Interp => None,
            EngineArg::Jit => Some(Backend::Cranelift),
            EngineArg::Llvm => Some(Backend::Llvm),
        }
    }
}

/// Options that bind what a shader reads (shared by `run` and `bench`).
#[derive(Debug, Args)]
pub struct BindArgs {
    /// Constant buffer n from FILE: raw little-endian 32-bit words, 4 per register.
    #[arg(long = "const", value_name = "N=FILE")]
    pub constants: Vec<String>,
    /// Texture unit n (`SAMP[n]`, `SVIEW[n]`) from a PNG (RGBA8) or a .f32 file (give its size).
    #[arg(long = "texture", value_name = "N=FILE")]
    pub textures: Vec<String>,
    /// Size of a .f32 texture: WxH or WxHxD (D layers, 6 cube faces, or 3D depth).
    #[arg(long = "texture-size", value_name = "N=WxH[xD]")]
    pub texture_sizes: Vec<String>,
    /// Sampler n: `nearest|linear[,mipmap][,repeat|clamp|mirror][,compare=less|lequal|...]`
    /// (default nearest, repeat).
    #[arg(long = "sampler", value_name = "N=SPEC")]
    pub samplers: Vec<String>,
    /// Loop iterations each invocation may run in total, all loops together.
    #[arg(long, default_value_t = 65536)]
    pub max_iterations: u32,
}

/// Options of the JIT engines and of parallel runs (shared by `run` and `bench`).
#[derive(Debug, Args)]
pub struct ExecArgs {
    /// Float math in JIT code: fast (the default: inline approximations of SIN, COS, EX2,
    /// LG2 and POW and fused multiply-adds, bounds in docs/jit.md; up to 4x faster) or exact
    /// (bit-identical to the interpreter).
    #[arg(long, value_enum, default_value_t = MathArg::Fast)]
    pub math: MathArg,
    /// Worker threads (0: every core; at most 1024). The results do not depend on it.
    #[arg(long, default_value_t = 0, value_parser = parse_threads)]
    pub threads: usize,
    /// JIT lanes per step (0: chosen per shader): jit takes 4, 8, 16 or 32 and chooses 4, or
    /// 8 for loops with few live values; llvm takes 4, 8, 16, 32 or 64 and chooses the host's
    /// widest vector, or twice it for loops with few live values and, with AVX2, for long
    /// shaders with few texture lookups.
    #[arg(long, default_value_t = 0, value_parser = parse_lanes)]
    pub lanes: usize,
}

/// `--math`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MathArg {
    /// Bit-identical to the interpreter.
    Exact,
    /// Inline vector approximations and fused multiply-adds (the CLI's default).
    Fast,
}

impl ExecArgs {
    /// The configuration these options ask for of a JIT back end.
    ///
    /// # Errors
    /// A usage error (exit 2) for lanes the back end does not take (Cranelift: 64).
    pub fn jit_config(&self, backend: Backend) -> Result<JitConfig, Failure> {
        if backend == Backend::Cranelift && self.lanes == 64 {
            return Err(usage(
                "--lanes 64 needs the llvm engine: jit takes 4, 8, 16 or 32".into(),
            ));
        }
        Ok(JitConfig {
            backend,
            math: match self.math {
                MathArg::Exact => MathMode::Exact,
                MathArg::Fast => MathMode::Fast,
            },
            lanes: self.lanes,
            ..JitConfig::default()
        })
    }
}

/// Arguments of `tgsic run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Shader, text or binary (detected); `-` reads standard input.
    pub input: String,
    /// Output: `.f32` or `.png` for fragment shaders; a text file for vertex and geometry shaders.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Image size for fragment shaders.
    #[arg(long, default_value = "256x256", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Execution engine.
    #[arg(long, value_enum, default_value_t = EngineArg::Jit)]
    pub engine: EngineArg,
    /// Colour that discarded pixels keep.
    #[arg(long, value_name = "R,G,B,A", default_value = "0,0,0,0", value_parser = parse_clear, allow_hyphen_values = true)]
    pub clear: [f32; 4],
    /// Ends the run with an error when it has not finished after SECONDS (checked between
    /// batches of 64 invocations; each batch is bounded by --max-iterations).
    #[arg(long, value_name = "SECONDS", value_parser = parse_timeout)]
    pub timeout: Option<f64>,
    /// Which `COLOR[N]` output a fragment shader's image shows.
    #[arg(long, default_value_t = 0)]
    pub output_index: u32,
    /// Vertex attributes for a vertex shader (docs/run.md: one vertex per line).
    #[arg(long)]
    pub vertices: Option<PathBuf>,
    /// Input primitives for a geometry shader (docs/run.md: vertices per line, blank line between
    /// primitives).
    #[arg(long)]
    pub primitives: Option<PathBuf>,
    #[command(flatten)]
    pub bind: BindArgs,
    #[command(flatten)]
    pub exec: ExecArgs,
}

/// Arguments of `tgsic cmp`.
#[derive(Debug, Args)]
pub struct CmpArgs {
    /// First image (.f32).
    pub a: PathBuf,
    /// Second image (.f32).
    pub b: PathBuf,
    /// Largest ulp difference still accepted.
    #[arg(long, default_value_t = 0)]
    pub ulp: u64,
}

/// `--timeout`: a positive number of seconds, at most a year.
fn parse_timeout(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(t) if t > 0.0 && t <= 3.2e7 => Ok(t),
        _ => Err(format!(
            "`{s}` is not a time limit in seconds (above 0, at most a year)"
        )),
    }
}

/// `--lanes`: 0 (the engine's default) or a width some JIT takes.
pub fn parse_lanes(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n @ (0 | 4 | 8 | 16 | 32 | 64)) => Ok(n),
        _ => Err(format!(
            "`{s}` is not a lane count: 0 (the default), 4, 8, 16 or 32, or 64 with llvm"
        )),
    }
}

/// `--threads N`: 0 (every core) to [`dispatch::MAX_THREADS`].
fn parse_threads(s: &str) -> Result<usize, String> {
    let n: usize = s
        .parse()
        .map_err(|_| format!("`{s}` is not a thread count"))?;
    if n > tgsic_runtime::dispatch::MAX_THREADS {
        return Err(format!(
            "at most {} threads (0 uses every core)",
            tgsic_runtime::dispatch::MAX_THREADS
        ));
    }
    Ok(n)
}

pub fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s.split_once(['x', 'X']).ok_or("expected WxH")?;
    let w: u32 = w.parse().map_err(|_| format!("bad width `{w}`"))?;
    let h: u32 = h.parse().map_err(|_| format!("bad height `{h}`"))?;
    if w == 0 || h == 0 || w > 16384 || h > 16384 {
        return Err("sizes are 1 to 16384".into());
    }
    Ok((w, h))
}

pub fn parse_clear(s: &str) -> Result<[f32; 4], String> {
    let v: Vec<f32> = s
        .split(',')
        .map(|x| {
            x.trim()
                .parse::<f32>()
                .map_err(|_| format!("bad number `{x}`"))
        })
        .collect::<Result<_, _>>()?;
    <[f32; 4]>::try_from(v).map_err(|_| "expected four numbers r,g,b,a".to_string())
}

pub fn usage(msg: String) -> Failure {
    Failure {
        messages: vec![format!("error: {msg}")],
        code: 2,
    }
}

pub fn input_error(msg: String) -> Failure {
    Failure::input(vec![msg])
}

fn unit_arg(spec: &str, opt: &str) -> Result<(usize, String), Failure> {
    let (n, rest) = spec
        .split_once('=')
        .ok_or_else(|| usage(format!("--{opt} {spec}: expected N=VALUE")))?;
    let n: usize = n
        .parse()
        .map_err(|_| usage(format!("--{opt} {spec}: `{n}` is not a unit number")))?;
    if n > 255 {
        return Err(usage(format!("--{opt} {spec}: units are 0..255")));
    }
    Ok((n, rest.to_string()))
}

fn parse_sampler(spec: &str) -> Result<Sampler, String> {
    let mut s = Sampler::default();
    let mut mipmap = false;
    for part in spec.split(',') {
        match part {
            "nearest" => (s.min, s.mag) = (Filter::Nearest, Filter::Nearest),
            "linear" => (s.min, s.mag) = (Filter::Linear, Filter::Linear),
            "mipmap" => mipmap = true,
            "repeat" => s.wrap = [Wrap::Repeat; 3],
            "clamp" => s.wrap = [Wrap::Clamp; 3],
            "mirror" => s.wrap = [Wrap::Mirror; 3],
            _ => match part.strip_prefix("compare=").map(Compare::from_name) {
                Some(Some(c)) => s.compare = Some(c),
                _ => return Err(format!("unknown sampler setting `{part}`")),
            },
        }
    }
    if mipmap {
        s.mip = if s.min == Filter::Linear {
            MipFilter::Linear
        } else {
            MipFilter::Nearest
        };
    }
    Ok(s)
}

/// The texture targets the shader uses with texture unit `n` (TEX-style targets and SVIEW
/// declarations).
fn targets_of_unit(p: &Program, n: usize) -> Vec<TextureTarget> {
    let mut v: Vec<TextureTarget> = p
        .declarations_of(File::SamplerView)
        .filter(|d| d.contains(n as i64))
        .filter_map(|d| d.sampler_view.map(|s| s.target))
        .collect();
    for inst in &p.instructions {
        let reads_unit = |tex: TexOperands| {
            tex.sampler
                .and_then(|k| inst.src.get(k as usize))
                .is_some_and(|s| s.register.index.offset == n as i32)
        };
        if let (Some(t), Some(tex)) = (inst.texture, inst.opcode.tex())
            && reads_unit(tex)
        {
            v.push(t);
        }
    }
    v
}

/// Builds the bindings from the options, checking that everything the shader reads is given.
pub fn bindings(p: &Program, a: &BindArgs, clear: [f32; 4]) -> Result<Bindings, Failure> {
    let bind = given_bindings(p, a, clear)?;
    let r = tgsic_runtime::host::Reflection::of_program(p);
    let (buffers, units) = (&r.constant_buffers_read, &r.texture_units_read);
    for &b in buffers {
        let b = b as usize;
        if bind.constants.get(b).is_none_or(Vec::is_empty)
            && !a.constants.iter().any(|c| c.starts_with(&format!("{b}=")))
        {
            return Err(input_error(format!(
                "error: the shader reads constant buffer {b}, but no --const {b}=FILE was given"
            )));
        }
    }
    for &u in units {
        let u = u as usize;
        if bind.textures.get(u).is_none_or(Option::is_none) {
            return Err(input_error(format!(
                "error: the shader samples texture unit {u}, but no --texture {u}=FILE was given"
            )));
        }
    }
    Ok(bind)
}

/// The bindings the options give, whether or not the shader reads more (read, sized and
/// mipmapped as [`bindings`] does).
pub fn given_bindings(p: &Program, a: &BindArgs, clear: [f32; 4]) -> Result<Bindings, Failure> {
    let mut bind = Bindings {
        max_iterations: a.max_iterations,
        clear,
        ..Bindings::default()
    };
    for spec in &a.constants {
        let (n, regs) = read_constants(spec)?;
        if bind.constants.len() <= n {
            bind.constants.resize(n + 1, Vec::new());
        }
        bind.constants[n] = regs;
    }
    let mut sizes = std::collections::HashMap::new();
    for spec in &a.texture_sizes {
        let (n, dims) = unit_arg(spec, "texture-size")?;
        let v: Vec<u32> = dims
            .split(['x', 'X'])
            .map(|d| {
                d.parse()
                    .map_err(|_| usage(format!("--texture-size {spec}: bad size")))
            })
            .collect::<Result<_, _>>()?;
        let d = match v[..] {
            [w, h] => (w, h, 1),
            [w, h, d] => (w, h, d),
            _ => {
                return Err(usage(format!(
                    "--texture-size {spec}: expected WxH or WxHxD"
                )));
            }
        };
        sizes.insert(n, d);
    }
    for spec in &a.textures {
        let (n, file) = unit_arg(spec, "texture")?;
        let path = Path::new(&file);
        let tex = if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("png"))
        {
            Texture::from_png(path).map_err(|e| match e {
                tgsic_runtime::texture::TextureError::Png { path, message } => {
                    input_error(format!("{path}: error: {message}"))
                }
                other => input_error(format!("{file}: error: {other}")),
            })?
        } else {
            let (w, h, d) = *sizes.get(&n).ok_or_else(|| {
                usage(format!(
                    "--texture {spec}: a .f32 texture needs --texture-size {n}=WxH[xD]"
                ))
            })?;
            let bytes = crate::report::read_bounded(&file, crate::report::MAX_DATA_BYTES)?;
            let values = f32_from_le_bytes(&bytes)
                .map_err(|e| input_error(format!("{file}: error: {e}")))?;
            Texture::from_rgba32f(w, h, d, &values)
                .map_err(|e| input_error(format!("{file}: error: {e}")))?
        };
        if bind.textures.len() <= n {
            bind.textures.resize(n + 1, None);
        }
        bind.textures[n] = Some(tex);
    }
    for spec in &a.samplers {
        let (n, s) = unit_arg(spec, "sampler")?;
        let sampler = parse_sampler(&s).map_err(|e| usage(format!("--sampler {spec}: {e}")))?;
        if bind.samplers.len() <= n {
            bind.samplers.resize(n + 1, Sampler::default());
        }
        bind.samplers[n] = sampler;
    }
    // Mip chains for mipmapped samplers.
    for (n, s) in bind.samplers.iter().enumerate() {
        if s.mip == MipFilter::None {
            continue;
        }
        if let Some(Some(t)) = bind.textures.get_mut(n) {
            // Cube faces and array layers are filtered separately; a 3D texture's depth is
            // filtered with its width and height.
            let volume = targets_of_unit(p, n).contains(&TextureTarget::Tex3D);
            t.generate_mipmaps(!volume);
        }
    }
    Ok(bind)
}

/// Reads `--const N=FILE`: the unit and its registers (raw little-endian words, four per
/// register; a short last register reads 0 in its missing components).
pub fn read_constants(spec: &str) -> Result<(usize, Vec<[u32; 4]>), Failure> {
    let (n, file) = unit_arg(spec, "const")?;
    let bytes = crate::report::read_bounded(&file, crate::report::MAX_DATA_BYTES)?;
    if bytes.len() % 4 != 0 {
        return Err(input_error(format!(
            "{file}: error: {} bytes is not a whole number of 32-bit words",
            bytes.len()
        )));
    }
    let regs = engine::constant_registers(&bytes);
    Ok((n, regs))
}

/// Reads and prepares a shader (validated).
pub fn load_shader(input: &str) -> Result<Prepared, Failure> {
    let name = crate::report::display_name(input);
    let bytes = crate::report::read_input(input)?;
    let src = tgsic::front::read(&bytes).map_err(|e| input_error(read_error(name, &e)))?;
    Prepared::new(src.program).map_err(|e| match e {
        engine::LoadError::Invalid(errors) => Failure::input(
            errors
                .iter()
                .map(|v| crate::report::validation_error(name, v))
                .collect(),
        ),
        other => input_error(format!("{name}: error: {other}")),
    })
}

/// Where a fragment shader's image goes, band by band as it is rendered, so that an image of
/// any size is written in memory proportional to its width (`dispatch::render_rows`).
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
    pub fn order(&self) -> dispatch::BandOrder {
        match self {
            ImageSink::F32(..) => dispatch::BandOrder::BottomUp,
            ImageSink::Png(..) => dispatch::BandOrder::TopDown,
        }
    }

    /// Writes one band (bands arrive in [`ImageSink::order`]).
    pub fn write(&mut self, band: &dispatch::Band) -> Result<(), String> {
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

/// An engine chosen on the command line.
/// An engine for the command line: a shader compiled through the host API
/// ([`tgsic_runtime::host`]), which the `dispatch` functions run.
pub type AnyEngine = std::sync::Arc<tgsic_runtime::host::Compiled>;

/// The host runtime a command runs on: `--threads` worker threads, started once for the whole
/// command (every band of an image runs on them).
pub fn runtime(exec: &ExecArgs) -> Result<tgsic_runtime::host::Runtime, Failure> {
    tgsic_runtime::host::Runtime::new(tgsic_runtime::host::RuntimeOptions {
        threads: exec.threads,
        cache_entries: 8,
    })
    .map_err(|e| input_error(format!("error: {e}")))
}

/// Builds the engine `engine` for `shader`, through the host API.
pub fn make_engine(
    rt: &tgsic_runtime::host::Runtime,
    engine: EngineArg,
    shader: Prepared,
    exec: &ExecArgs,
    name: &str,
) -> Result<AnyEngine, Failure> {
    use tgsic_runtime::host::{CompileOptions, EngineChoice, HostError};
    let choice = match engine {
        EngineArg::Interp => EngineChoice::Interpreter,
        EngineArg::Jit | EngineArg::Llvm => {
            let backend = engine.backend().unwrap_or_default();
            if !backend.available() {
                return Err(usage(
                    "the llvm engine needs tgsic built with the cargo feature `llvm` \
                     (cargo build --release --features llvm)"
                        .into(),
                ));
            }
            EngineChoice::Jit(exec.jit_config(backend)?)
        }
    };
    let host = |e: HostError| match e {
        HostError::Compile(e) => input_error(crate::report::located_error(
            name,
            e.location(),
            &e.detail(),
        )),
        other => input_error(format!("{name}: error: {other}")),
    };
    let module = rt.prepared(shader).map_err(host)?;
    rt.compile(&module, &CompileOptions { engine: choice })
        .map_err(host)
}

/// Runs `$body` with `$e` bound to the compiled shader inside an [`AnyEngine`].
macro_rules! with_engine {
    ($any:expr, $e:ident => $body:expr) => {{
        let $e: &tgsic_runtime::host::Compiled = &**$any;
        $body
    }};
}
pub(crate) use with_engine;

/// `tgsic run`.
pub fn run(a: &RunArgs) -> Result<(), Failure> {
    let shader = load_shader(&a.input)?;
    let p = shader.program.clone();
    let bind = bindings(&p, &a.bind, a.clear)?;
    let name = crate::report::display_name(&a.input);
    let rt = runtime(&a.exec)?;
    let engine = make_engine(&rt, a.engine, shader, &a.exec, name)?;
    let err = |e: engine::RunError| {
        let detail = match (&e, a.timeout) {
            (engine::RunError::TimeLimit, Some(t)) => {
                format!("the run did not finish within --timeout {t} s")
            }
            _ => e.detail(),
        };
        input_error(crate::report::located_error(name, e.location(), &detail))
    };
    let pb = progress_bar(name);
    let tick = |done: u64, all: u64| {
        pb.set_length(all);
        pb.set_position(done);
    };
    let opts = RunOptions {
        threads: a.exec.threads,
        progress: Some(&tick),
        deadline: a
            .timeout
            .map(|t| std::time::Instant::now() + std::time::Duration::from_secs_f64(t)),
        pool: rt.pool(),
    };
    let exhausted = match p.processor {
        Processor::Fragment => {
            let (w, h) = a.size;
            let mut sink = ImageSink::create(&a.output, w, h)?;
            let bands = (dispatch::band_rows_for(w), sink.order());
            let mut write_error = None;
            let mut write = |band: dispatch::Band| {
                sink.write(&band).map_err(|m| {
                    write_error = Some(m);
                    engine::RunError::Unsupported("the image could not be written".into())
                })
            };
            let report = with_engine!(&engine, e => dispatch::render_rows(e, &bind, (w, h), a.output_index, &opts, bands, &mut write));
            pb.finish_and_clear();
            let failure = match (write_error, &report) {
                (Some(m), _) => Some(input_error(m)),
                (None, Err(e)) => Some(err(e.clone())),
                (None, Ok(_)) => None,
            };
            if let Some(f) = failure {
                // No half-written image stays behind.
                drop(sink);
                let _ = std::fs::remove_file(&a.output);
                return Err(f);
            }
            let report = report.map_err(err)?;
            sink.finish()?;
            report.exhausted
        }
        Processor::Vertex => {
            let path = a.vertices.as_ref().ok_or_else(|| {
                usage("a vertex shader runs over vertices: give --vertices FILE".into())
            })?;
            let verts = attributes::read_vertices(path).map_err(|e| input_error(e.to_string()))?;
            let out = with_engine!(&engine, e => dispatch::run_vertices(e, &bind, &verts, &opts))
                .map_err(err)?;
            pb.finish_and_clear();
            write_text(&a.output, &attributes::write_vertices(&p, &out))?;
            out.iter().filter(|o| o.exhausted).count() as u64
        }
        Processor::Geometry => {
            let path = a.primitives.as_ref().ok_or_else(|| {
                usage("a geometry shader runs over primitives: give --primitives FILE".into())
            })?;
            let gs_vertices = with_engine!(&engine, e => e.shader().gs_vertices);
            let prims = attributes::read_primitives(path, gs_vertices as usize)
                .map_err(|e| input_error(e.to_string()))?;
            let out = with_engine!(&engine, e => dispatch::run_geometry(e, &bind, &prims, &opts))
                .map_err(err)?;
            pb.finish_and_clear();
            write_text(&a.output, &attributes::write_emitted(&p, &out))?;
            out.iter().filter(|o| o.exhausted).count() as u64
        }
        Processor::Compute => {
            return Err(input_error(format!(
                "{}: error: compute shaders cannot be run (no compute grid in this tool)",
                a.input
            )));
        }
    };
    if exhausted > 0 {
        eprintln!(
            "{}: {exhausted} invocation(s) ran out of loop iterations (--max-iterations {}); their loops ended there",
            a.input, a.bind.max_iterations
        );
    }
    Ok(())
}

fn write_text(path: &Path, text: &str) -> Result<(), Failure> {
    std::fs::write(path, text)
        .map_err(|e| input_error(format!("{}: error: cannot write: {e}", path.display())))
}

/// `tgsic cmp`: exit 1 when the images differ by more than `--ulp`.
pub fn cmp(a: &CmpArgs) -> Result<(), Failure> {
    // Both files are read a megabyte at a time: images of any size compare in constant memory.
    // Errors name the file they concern.
    let c = compare_files(&a.a, &a.b).map_err(|e| input_error(format!("error: {e}")))?;
    println!("components: {} ({} pixels)", c.total, c.total / 4);
    println!(
        "identical:  {} ({:.3}%)",
        c.identical,
        100.0 * c.identical as f64 / c.total.max(1) as f64
    );
    println!("max ulp:    {}", c.max_ulp);
    println!(
        "NaN mismatches: {}, inf mismatches: {}",
        c.nan_mismatches, c.inf_mismatches
    );
    if let Some((k, p, q)) = c.worst {
        println!(
            "worst: pixel {} channel {}: {p:?} vs {q:?}",
            k / 4,
            ["r", "g", "b", "a"][k % 4]
        );
    }
    if c.within(a.ulp) {
        Ok(())
    } else {
        Err(Failure {
            messages: vec![format!("the images differ by more than {} ulp", a.ulp)],
            code: 1,
        })
    }
}
