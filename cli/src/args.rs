//! The arguments the subcommands share: engines, JIT options, threads, bindings, sizes; their
//! parsers, and the two kinds of failure (usage, exit 2; bad input, exit 1).

use crate::report::Failure;
use clap::{Args, ValueEnum};
use tgsic::back::abi::MathMode;
use tgsic_runtime::host::{CacheDir, CompileOptions, EngineKind};

/// An engine as the command line names it: `interp`, `cranelift` (also spelled `jit`, the name
/// scripts such as `../shared/bench` pass) or `llvm`, kept as given so that reports name it as
/// the user did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineArg {
    /// The name as given.
    pub name: String,
    /// The engine.
    pub kind: EngineKind,
}

/// `--engine`, `--engines`: an engine's name.
pub fn parse_engine(s: &str) -> Result<EngineArg, String> {
    let kind = match s {
        "interp" | "interpreter" => EngineKind::Interpreter,
        "cranelift" | "jit" => EngineKind::Cranelift,
        "llvm" => EngineKind::Llvm,
        "auto" => EngineKind::Auto,
        _ => {
            return Err(format!(
                "`{s}` is not an engine: interp, cranelift (or jit), llvm or auto"
            ));
        }
    };
    Ok(EngineArg {
        name: s.to_string(),
        kind,
    })
}

/// The error for an engine this build does not have.
pub fn unavailable(kind: EngineKind) -> Failure {
    usage(format!(
        "the {kind} engine needs tgsic built with the cargo feature `{kind}` \
         (cargo build --release --features {kind})"
    ))
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
    /// Float math in JIT code: accurate (the default: arithmetic rounded as the interpreter
    /// rounds it, vector SIN, COS, EX2, LG2 and POW within a few ulp: no less accurate than
    /// llvmpipe), exact (bit-identical to the interpreter, and so to Mesa's softpipe; slower
    /// where those functions are many) or fast (looser SIN and COS, products with
    /// reciprocals, fused multiply-adds). Bounds and figures in docs/math.md.
    #[arg(long, value_enum, default_value_t = MathArg::Accurate)]
    pub math: MathArg,
    /// Worker threads (0: every core; at most 1024). The results do not depend on it, but a
    /// compute program's that depend on the order of its work groups (docs/jit.md).
    #[arg(long, default_value_t = 0, value_parser = parse_threads)]
    pub threads: usize,
    /// JIT lanes per step (0: chosen per shader): cranelift takes 4, 8, 16 or 32 and chooses
    /// 4, or 8 for loops and straight-line shaders with few live values; llvm takes 4, 8,
    /// 16, 32 or 64 and chooses the host's widest vector, twice it for loops with few live
    /// values and for straight-line shaders of enough arithmetic between texture lookups, or
    /// four times it for those with SIN or COS (`docs/jit.md`, "Steps, and how wide").
    #[arg(long, default_value_t = 0, value_parser = parse_lanes)]
    pub lanes: usize,
    /// Where compiled code is kept between runs: a folder, or `off` (default, and for an empty
    /// value: the TGSIC_CACHE_DIR variable, else the per-user cache folder, ~/.cache/tgsic).
    #[arg(long, value_name = "DIR|off")]
    pub cache_dir: Option<String>,
}

impl ExecArgs {
    /// The code cache `--cache-dir` names, or `default` without it.
    /// An empty `--cache-dir ""` is no setting ([`CacheDir::parse`]).
    pub fn code_cache(&self, default: CacheDir) -> CacheDir {
        self.cache_dir
            .as_deref()
            .and_then(CacheDir::parse)
            .unwrap_or(default)
    }
}

/// `--math`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MathArg {
    /// Interpreter arithmetic, vector transcendentals within a few ulp (the default).
    Accurate,
    /// Bit-identical to the interpreter.
    Exact,
    /// Looser approximations, fused multiply-adds, reciprocal products.
    Fast,
}

impl ExecArgs {
    /// The compile options these arguments ask for of `engine`.
    ///
    /// # Errors
    /// A usage error (exit 2) for an engine this build does not have, or lanes the engine
    /// does not take (Cranelift: 64).
    pub fn compile_options(&self, engine: EngineKind) -> Result<CompileOptions, Failure> {
        if !engine.available() {
            return Err(unavailable(engine));
        }
        if matches!(engine, EngineKind::Cranelift | EngineKind::Auto) && self.lanes == 64 {
            return Err(usage(
                "--lanes 64 needs the llvm engine: cranelift (and auto's first tier) takes 4, 8, 16 or 32".into(),
            ));
        }
        Ok(CompileOptions {
            engine,
            math: match self.math {
                MathArg::Accurate => MathMode::Accurate,
                MathArg::Exact => MathMode::Exact,
                MathArg::Fast => MathMode::Fast,
            },
            lanes: self.lanes,
            // The one place the program reads the variable: the library reads no environment.
            features: tgsic::back::TargetFeatures::from_env(),
            ..CompileOptions::default()
        })
    }
}

/// `--timeout`: a positive number of seconds, at most a year.
pub fn parse_timeout(s: &str) -> Result<f64, String> {
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

/// `--threads N`: 0 (every core) to [`tgsic_runtime::host::MAX_THREADS`].
pub fn parse_threads(s: &str) -> Result<usize, String> {
    let n: usize = s
        .parse()
        .map_err(|_| format!("`{s}` is not a thread count"))?;
    if n > tgsic_runtime::host::MAX_THREADS {
        return Err(format!(
            "at most {} threads (0 uses every core)",
            tgsic_runtime::host::MAX_THREADS
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

/// Parses `--grid X,Y,Z`.
pub fn parse_grid(s: &str) -> Result<[u32; 3], String> {
    let v: Vec<u32> = s
        .split(',')
        .map(|p| p.trim().parse::<u32>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("`{s}`: expected X,Y,Z (three whole numbers)"))?;
    match v[..] {
        [x, y, z] => Ok([x, y, z]),
        _ => Err(format!("`{s}`: expected X,Y,Z (three whole numbers)")),
    }
}

pub fn unit_arg(spec: &str, opt: &str) -> Result<(usize, String), Failure> {
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
