//! `tgsic bench`: compile time and shading throughput per engine, and their ratio.

use crate::report::Failure;
use crate::run::{
    AnyEngine, BindArgs, Engine, ExecArgs, bindings, input_error, load_shader, make_engine,
    parse_size, progress_bar, usage, with_engine,
};
use clap::Args;
use std::time::{Duration, Instant};
use tgsic::tgsi::Processor;
use tgsic_runtime::dispatch::{self, RunOptions};

/// Arguments of `tgsic bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Fragment shader, text or binary (detected).
    pub input: String,
    /// Engines to compare, the first is the reference of the ratios.
    #[arg(long, value_delimiter = ',', default_value = "interp,jit")]
    pub engines: Vec<Engine>,
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
    engine: Engine,
    compile: Duration,
    best: Duration,
    image: tgsic_runtime::interp::Image,
}

/// `tgsic bench`.
pub fn bench(a: &BenchArgs) -> Result<(), Failure> {
    if a.engines.is_empty() {
        return Err(usage("--engines names no engine".into()));
    }
    let shader = load_shader(&a.input)?;
    if shader.program.processor != Processor::Fragment {
        return Err(input_error(format!(
            "{}: error: tgsic bench renders fragment shaders",
            a.input
        )));
    }
    let p = shader.program.clone();
    let bind = bindings(&p, &a.bind, a.clear)?;
    let (w, h) = a.size;
    let mut rows: Vec<Row> = Vec::new();
    for &engine in &a.engines {
        let t = Instant::now();
        let e: AnyEngine = make_engine(engine, shader.clone(), &a.exec, &a.input)?;
        let compile = match &e {
            AnyEngine::Jit(j) => j.compile_time.max(t.elapsed().min(j.compile_time)),
            AnyEngine::Interp(_) => t.elapsed(),
        };
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
            };
            let t = Instant::now();
            let img = with_engine!(&e, x => dispatch::render_with(x, &bind, w, h, 0, &opts))
                .map_err(|err| input_error(format!("{}: error: {err}", a.input)))?;
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
        a.input,
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
