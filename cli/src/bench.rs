//! `tgsic bench`: compile time and shading throughput per engine, and their ratio.

use crate::report::Failure;
use crate::run::{
    AnyEngine, BindArgs, EngineArg, ExecArgs, bindings, input_error, load_shader, make_engine,
    parse_size, progress_bar, usage, with_engine,
};
use clap::Args;
use std::time::{Duration, Instant};
use tgsic::back::abi::TexPaths;
use tgsic::tgsi::Processor;
use tgsic_runtime::dispatch::{self, RunOptions};

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
    /// Engines to compare, the first is the reference of the ratios.
    #[arg(long, value_delimiter = ',', default_value = "interp,jit")]
    pub engines: Vec<EngineArg>,
    /// Image size.
    #[arg(long, default_value = "1024x1024", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Renders are repeated until this many seconds have passed per engine (at least one).
    #[arg(long, default_value_t = 2.0)]
    pub seconds: f64,
    /// Colour that discarded pixels keep.
    #[arg(long, value_name = "R,G,B,A", default_value = "0,0,0,0", value_parser = crate::run::parse_clear, allow_hyphen_values = true)]
    pub clear: [f32; 4],
    #[command(flatten)]
    pub bind: BindArgs,
    #[command(flatten)]
    pub exec: ExecArgs,
}

struct Row {
    engine: EngineArg,
    compile: Duration,
    best: Duration,
    image: tgsic_runtime::dispatch::Image,
}

/// `tgsic bench --compile-only`: JIT compile times over many shaders, per JIT engine (each
/// shader compiled fresh, fastest of three).
fn compile_only(a: &BenchArgs) -> Result<(), Failure> {
    let shaders = a
        .inputs
        .iter()
        .map(|i| load_shader(i).map(|s| (i, s)))
        .collect::<Result<Vec<_>, _>>()?;
    for &engine in &a.engines {
        let Some(backend) = engine.backend() else {
            continue;
        };
        if !backend.available() {
            return Err(usage(
                "the llvm engine needs tgsic built with the cargo feature `llvm` \
                 (cargo build --release --features llvm)"
                    .into(),
            ));
        }
        let config = a.exec.jit_config(backend)?;
        let mut times = Vec::new();
        let mut bytes = Vec::new();
        let pb = progress_bar(&format!("compiling ({engine:?})").to_lowercase());
        pb.set_length(shaders.len() as u64);
        for (input, shader) in &shaders {
            // Lifting and optimizing are part of what is timed.
            let lifted = || {
                let mut f = tgsic::ir::lift_valid(&shader.program).map_err(|e| {
                    input_error(crate::report::located_error(
                        input,
                        e.location(),
                        &e.detail(),
                    ))
                })?;
                tgsic::opt::optimize(&mut f, config.opt);
                Ok::<_, Failure>(f)
            };
            let mut best = Duration::MAX;
            for _ in 0..3 {
                let t = Instant::now();
                let f = lifted()?;
                // The variant that samples in the code where it can: what runs with nearest
                // textures, and the most to compile.
                tgsic_runtime::jit::compile_for(&f, &config, TexPaths::ALL)
                    .map_err(|e| input_error(format!("{input}: error: {e}")))?;
                best = best.min(t.elapsed());
            }
            // The code size, measured apart (LLVM reports it only with the text).
            let f = lifted()?;
            let size = tgsic_runtime::jit::compile_with_text(&f, &config, TexPaths::ALL)
                .map_err(|e| input_error(format!("{input}: error: {e}")))?
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
            format!("{engine:?}").to_lowercase(),
            times.len(),
            at(0.5),
            at(0.99),
            at(1.0),
            times.last().map_or("", |t| &t.1[..]),
            total
        );
        println!(
            "{}: machine code per shader: median {} bytes, max {} bytes, total {} bytes",
            format!("{engine:?}").to_lowercase(),
            bytes[bytes.len() / 2],
            bytes.last().copied().unwrap_or(0),
            bytes.iter().sum::<usize>()
        );
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
    if shader.program.processor != Processor::Fragment {
        return Err(input_error(format!(
            "{}: error: tgsic bench renders fragment shaders",
            input
        )));
    }
    let p = shader.program.clone();
    let bind = bindings(&p, &a.bind, a.clear)?;
    let (w, h) = a.size;
    let mut rows: Vec<Row> = Vec::new();
    let rt = crate::run::runtime(&a.exec)?;
    for &engine in &a.engines {
        let t = Instant::now();
        let e: AnyEngine = make_engine(&rt, engine, shader.clone(), &a.exec, input)?;
        let mut compile = match engine {
            EngineArg::Interp => t.elapsed(),
            _ => e.compile_time().max(t.elapsed().min(e.compile_time())),
        };
        if engine != EngineArg::Interp {
            // The code variant the bindings call for (textures sampled in the code) compiles
            // at the first batch: an 8×8 render counts it as compiling, not rendering.
            let t = Instant::now();
            let opts = RunOptions {
                threads: 1,
                pool: rt.pool(),
                ..RunOptions::default()
            };
            with_engine!(&e, x => dispatch::render_with(x, &bind, 8, 8, 0, &opts))
                .map_err(|err| input_error(format!("{}: error: {err}", input)))?;
            compile += t.elapsed();
        }
        let pb = progress_bar(&format!("{engine:?}").to_lowercase());
        let mut best = Duration::MAX;
        let mut image = None;
        let start = Instant::now();
        while image.is_none() || start.elapsed().as_secs_f64() < a.seconds {
            let tick = |done: u64, all: u64| {
                pb.set_length(all);
                pb.set_position(done);
            };
            let opts = RunOptions {
                threads: a.exec.threads,
                progress: Some(&tick),
                deadline: None,
                pool: rt.pool(),
            };
            let t = Instant::now();
            let img = with_engine!(&e, x => dispatch::render_with(x, &bind, w, h, 0, &opts))
                .map_err(|err| input_error(format!("{}: error: {err}", input)))?;
            best = best.min(t.elapsed());
            image = Some(img);
        }
        pb.finish_and_clear();
        rows.push(Row {
            engine,
            compile,
            best,
            image: image.expect("rendered once"),
        });
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
        "| engine | compile | render (best) | Mpixels/s | speed vs {} | image |",
        format!("{:?}", rows[0].engine).to_lowercase()
    );
    println!("|---|---|---|---|---|---|");
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
            "| {} | {:.3} ms | {:.2} ms | {:.2} | {:.1}x | {same} |",
            format!("{:?}", r.engine).to_lowercase(),
            r.compile.as_secs_f64() * 1e3,
            r.best.as_secs_f64() * 1e3,
            mpix(r.best),
            rows[0].best.as_secs_f64() / r.best.as_secs_f64()
        );
    }
    Ok(())
}
