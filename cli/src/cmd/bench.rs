//! `tgsic bench`: compile time and shading throughput per engine, and their ratio.

use crate::args::{BindArgs, EngineArg, ExecArgs, input_error, parse_engine, parse_size, usage};
use crate::bindings::bindings;
use crate::cmd::run::{compile, host_failure, load_shader, runtime};
use crate::image::progress_bar;
use crate::report::Failure;
use clap::Args;
use std::time::{Duration, Instant};
use tgsic::tgsi::Processor;
use tgsic_runtime::host::{CacheDir, CacheUse, EngineKind, Lookups, RunControl};

/// Arguments of `tgsic bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Fragment shader, text or binary (detected); with --compile-only, any number of
    /// shaders of any kind.
    #[arg(required = true)]
    pub inputs: Vec<String>,
    /// Only JIT-compile the shaders (lift, -O2, code generation) with each JIT engine of
    /// --engines and print the compile time median, p99 and maximum, and the machine code size.
    #[arg(long)]
    pub compile_only: bool,
    /// Engines to compare (interp, cranelift or jit, llvm, auto), the first is the reference of
    /// the ratios; the table names them as given.
    #[arg(long, value_delimiter = ',', default_value = "interp,auto", value_parser = parse_engine)]
    pub engines: Vec<EngineArg>,
    /// Image size.
    #[arg(long, default_value = "1024x1024", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Renders are repeated until this many seconds have passed per engine (at least one).
    #[arg(long, default_value_t = 2.0)]
    pub seconds: f64,
    /// Colour that discarded pixels keep.
    #[arg(long, value_name = "R,G,B,A", default_value = "0,0,0,0", value_parser = crate::args::parse_clear, allow_hyphen_values = true)]
    pub clear: [f32; 4],
    /// Work groups of a compute program: X,Y,Z (its table gives millions of invocations per
    /// second).
    #[arg(long, value_name = "X,Y,Z", value_parser = crate::args::parse_grid)]
    pub grid: Option<[u32; 3]>,
    #[command(flatten)]
    pub memory: crate::memory::MemoryArgs,
    #[command(flatten)]
    pub bind: BindArgs,
    #[command(flatten)]
    pub exec: ExecArgs,
}

struct Row {
    engine: EngineArg,
    compile: Duration,
    /// From the program in hand to its first image: the compile (or the cache lookup) and the
    /// first render.
    first_frame: Duration,
    /// Whether the code cache answered.
    cache: CacheUse,
    /// The tier that ran the last render.
    tier: EngineKind,
    best: Duration,
    image: tgsic_runtime::host::Picture,
}

/// `tgsic bench --compile-only`: JIT compile times over many shaders, per JIT engine (each
/// shader compiled fresh through the host API, the fastest of three; every texture lookup
/// that can is sampled in the code, the most code there is to compile).
fn compile_only(a: &BenchArgs) -> Result<(), Failure> {
    // No cache in memory: every compile compiles; none on disk either, unless --cache-dir
    // asks (then each shader's later compiles measure the lookup).
    let rt = runtime(&a.exec, 0, CacheDir::Off)?;
    let modules = a
        .inputs
        .iter()
        .map(|i| Ok((i, load_shader(i)?)))
        .collect::<Result<Vec<_>, Failure>>()?;
    for engine in &a.engines {
        if engine.kind == EngineKind::Interpreter {
            continue;
        }
        let mut times = Vec::new();
        let mut bytes = Vec::new();
        let mut hits = 0;
        let pb = progress_bar(&format!("compiling ({})", engine.name));
        pb.set_length(modules.len() as u64);
        for (input, module) in &modules {
            // Lifting and optimizing are part of what is timed.
            let mut best = Duration::MAX;
            let mut compiled = None;
            for _ in 0..3 {
                let t = Instant::now();
                let c = compile(&rt, module, engine, &a.exec, Lookups::Every, input)?;
                best = best.min(t.elapsed());
                hits += usize::from(c.cache_use() == CacheUse::Hit);
                compiled = Some(c);
            }
            // The code size, measured apart (LLVM reports it only with the text).
            let size = compiled
                .expect("compiled three times")
                .code_text(Lookups::Every)
                .map_err(host_failure(input))?
                .code_size;
            times.push((best, input.to_string()));
            bytes.push(size);
            pb.inc(1);
        }
        pb.finish_and_clear();
        if times.is_empty() {
            continue;
        }
        times.sort();
        bytes.sort_unstable();
        let at = |q: f64| {
            times[((times.len() - 1) as f64 * q).round() as usize]
                .0
                .as_secs_f64()
                * 1e3
        };
        let total: f64 = times.iter().map(|t| t.0.as_secs_f64()).sum::<f64>() * 1e3;
        println!(
            "{}: {} shaders, lift + -O2 + code generation per shader: median {:.3} ms, p99 {:.3} ms, max {:.3} ms ({}); total {:.1} ms",
            engine.name,
            times.len(),
            at(0.5),
            at(0.99),
            at(1.0),
            times.last().map_or("", |t| &t.1[..]),
            total
        );
        println!(
            "{}: machine code per shader: median {} bytes, max {} bytes, total {} bytes",
            engine.name,
            bytes[bytes.len() / 2],
            bytes.last().copied().unwrap_or(0),
            bytes.iter().sum::<usize>()
        );
        if rt.code_cache_dir().is_some() {
            println!(
                "{}: {hits} of {} compiles answered by the code cache",
                engine.name,
                3 * times.len()
            );
        }
    }
    Ok(())
}

/// `tgsic bench`.
pub fn bench(a: &BenchArgs) -> Result<(), Failure> {
    if a.compile_only {
        return compile_only(a);
    }
    if a.engines.is_empty() {
        return Err(usage("--engines names no engine".into()));
    }
    if a.inputs.len() != 1 {
        return Err(usage(
            "tgsic bench renders one shader (--compile-only takes many)".into(),
        ));
    }
    let input = &a.inputs[0];
    let shader = load_shader(input)?;
    if shader.program.processor == Processor::Compute {
        return bench_compute(a, input, &shader);
    }
    if shader.program.processor != Processor::Fragment {
        return Err(input_error(format!(
            "{}: error: tgsic bench renders fragment shaders and dispatches compute programs",
            input
        )));
    }
    let p = shader.program.clone();
    let bind = bindings(&p, &a.bind, a.clear)?;
    let (w, h) = a.size;
    let mut rows: Vec<Row> = Vec::new();
    // No cache in memory: each engine's row compiles, or reads the code cache on disk.
    let rt = runtime(&a.exec, 0, CacheDir::Default)?;
    let module = shader;
    for engine in &a.engines {
        // The image every render of this engine writes, its memory touched before the clock
        // starts (as a GL framebuffer is allocated and cleared before a first draw).
        let mut image = tgsic_runtime::host::Picture {
            width: w,
            height: h,
            pixels: tgsic_runtime::host::PixelBuffer::filled(w as usize * h as usize, [0.0; 4]),
            exhausted: 0,
            discarded: 0,
            unspecified: Vec::new(),
        };
        // The code the bindings call for (textures sampled in the code) is compiled up front.
        let t = Instant::now();
        let e = compile(&rt, &module, engine, &a.exec, Lookups::For(&bind), input)?;
        let compile = t.elapsed();
        let pb = progress_bar(&engine.name);
        let mut best = Duration::MAX;
        let mut first_frame = None;
        let start = Instant::now();
        while first_frame.is_none() || start.elapsed().as_secs_f64() < a.seconds {
            let tick = |done: u64, all: u64| {
                pb.set_length(all);
                pb.set_position(done);
            };
            let control = RunControl {
                progress: Some(&tick),
                deadline: None,
            };
            let t = Instant::now();
            e.render_into(&rt, &bind, 0, &control, &mut image)
                .map_err(host_failure(input))?;
            best = best.min(t.elapsed());
            first_frame.get_or_insert(compile + t.elapsed());
        }
        pb.finish_and_clear();
        rows.push(Row {
            engine: engine.clone(),
            compile,
            first_frame: first_frame.unwrap_or(compile),
            cache: e.cache_use(),
            tier: e.tier(),
            best,
            image,
        });
        // A tiered shader's best code reaches the code cache for the next start (after the
        // renders: it is not timed).
        e.wait_for_best();
    }
    let mpix = |d: Duration| (w as f64 * h as f64) / d.as_secs_f64() / 1e6;
    println!(
        "{}: {w}x{h}, {} thread(s)",
        input,
        if a.exec.threads == 0 {
            "all".to_string()
        } else {
            a.exec.threads.to_string()
        }
    );
    println!(
        "| engine | compile | render (best) | Mpixels/s | speed vs {} | image | first frame | cache | tier |",
        rows[0].engine.name
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for r in &rows {
        let same = if r
            .image
            .pixels
            .iter()
            .flatten()
            .map(|v| v.to_bits())
            .eq(rows[0].image.pixels.iter().flatten().map(|v| v.to_bits()))
        {
            "identical".to_string()
        } else {
            let d = r
                .image
                .pixels
                .iter()
                .flatten()
                .zip(rows[0].image.pixels.iter().flatten())
                .filter(|(x, y)| x.to_bits() != y.to_bits())
                .count();
            format!("{d} components differ")
        };
        println!(
            "| {} | {:.3} ms | {:.2} ms | {:.2} | {:.1}x | {same} | {:.2} ms | {} | {} |",
            r.engine.name,
            r.compile.as_secs_f64() * 1e3,
            r.best.as_secs_f64() * 1e3,
            mpix(r.best),
            rows[0].best.as_secs_f64() / r.best.as_secs_f64(),
            r.first_frame.as_secs_f64() * 1e3,
            match r.cache {
                CacheUse::Off => "off",
                CacheUse::Hit => "hit",
                CacheUse::Miss => "miss",
            },
            r.tier
        );
    }
    Ok(())
}

/// `tgsic bench` of a compute program: per engine, the compile, the best dispatch over
/// `--grid` (the memory read afresh from its files for each engine; every dispatch after the
/// first runs on what the one before left, as a GL program dispatched again does), millions of
/// invocations per second, and whether the memory after the first dispatch is the first
/// engine's.
fn bench_compute(
    a: &BenchArgs,
    input: &str,
    module: &tgsic_runtime::host::Module,
) -> Result<(), Failure> {
    let grid = a.grid.ok_or_else(|| {
        usage("a compute program runs over a grid of work groups: give --grid X,Y,Z".into())
    })?;
    let block = module.block.unwrap_or([1, 1, 1]);
    let invocations: f64 = grid.iter().chain(&block).map(|&n| n as f64).product();
    let bind = bindings(&module.program, &a.bind, a.clear)?;
    let rt = runtime(&a.exec, 0, CacheDir::Default)?;
    struct ComputeRow {
        engine: EngineArg,
        compile: Duration,
        best: Duration,
        first: Option<Vec<u8>>,
        tier: EngineKind,
    }
    let mut rows: Vec<ComputeRow> = Vec::new();
    for engine in &a.engines {
        let engine = engine.clone();
        let t = Instant::now();
        let e = compile(&rt, module, &engine, &a.exec, Lookups::For(&bind), input)?;
        let compile = t.elapsed();
        let mut files = a.memory.read()?;
        let mut best = Duration::MAX;
        let mut first = None;
        let start = Instant::now();
        let mut runs = 0u32;
        while runs == 0 || start.elapsed().as_secs_f64() < a.seconds {
            let mut res = files.resources()?;
            let t = Instant::now();
            e.dispatch(&rt, &bind, &mut res, grid, &RunControl::default())
                .map_err(host_failure(input))?;
            best = best.min(t.elapsed());
            drop(res);
            if runs == 0 {
                first = Some(files.contents());
            }
            runs += 1;
        }
        rows.push(ComputeRow {
            engine: engine.clone(),
            compile,
            best,
            first,
            tier: e.tier(),
        });
        e.wait_for_best();
    }
    println!(
        "{input}: grid {}x{}x{} of {}x{}x{} invocations, {} thread(s)",
        grid[0],
        grid[1],
        grid[2],
        block[0],
        block[1],
        block[2],
        if a.exec.threads == 0 {
            "all".to_string()
        } else {
            a.exec.threads.to_string()
        }
    );
    println!(
        "| engine | compile | dispatch (best) | Minvocations/s | speed vs {} | memory | tier |",
        rows[0].engine.name
    );
    println!("|---|---|---|---|---|---|---|");
    for r in &rows {
        let same = if r.first == rows[0].first {
            "identical"
        } else {
            "differs"
        };
        println!(
            "| {} | {:.3} ms | {:.3} ms | {:.3} | {:.1}x | {same} | {} |",
            r.engine.name,
            r.compile.as_secs_f64() * 1e3,
            r.best.as_secs_f64() * 1e3,
            invocations / r.best.as_secs_f64() / 1e6,
            rows[0].best.as_secs_f64() / r.best.as_secs_f64(),
            r.tier
        );
    }
    Ok(())
}
