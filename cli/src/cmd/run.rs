//! `tgsic run` and `tgsic cmp`: a shader through the host API like any host's, over an image,
//! a vertex file or a primitive file.

use crate::args::{
    BindArgs, EngineArg, ExecArgs, input_error, parse_engine, parse_size, parse_timeout, usage,
};
use crate::attributes;
use crate::bindings::bindings;
use crate::compare::compare_files;
use crate::image::{ImageSink, progress_bar};
use crate::report::{Failure, read_error};
use clap::Args;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tgsic::tgsi::*;
use tgsic_runtime::host::{self, Module};
use tgsic_runtime::host::{Band, band_rows_for};
use tgsic_runtime::host::{
    CacheDir, Compiled, Frame, HostError, Lookups, RunControl, Runtime, RuntimeOptions,
};

/// Arguments of `tgsic run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Shader, text or binary (detected); `-` reads standard input.
    pub input: String,
    /// Output: `.f32` or `.png` for fragment shaders; a text file for vertex and geometry
    /// shaders; the folder the final buffers and images go to for compute programs.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Work groups of a compute program: X,Y,Z (each 1 to 65535).
    #[arg(long, value_name = "X,Y,Z", value_parser = crate::args::parse_grid)]
    pub grid: Option<[u32; 3]>,
    #[command(flatten)]
    pub memory: crate::memory::MemoryArgs,
    /// A fragment shader with buffers or images: the folder their final contents go to.
    #[arg(long, value_name = "OUTDIR")]
    pub out_dir: Option<PathBuf>,
    /// Image size for fragment shaders.
    #[arg(long, default_value = "256x256", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Execution engine: auto (Cranelift at once, LLVM's code when it is ready; Cranelift
    /// alone without the cargo feature `llvm`), cranelift (also spelled jit), llvm, interp.
    #[arg(long, default_value = "auto", value_parser = parse_engine)]
    pub engine: EngineArg,
    /// Colour that discarded pixels keep.
    #[arg(long, value_name = "R,G,B,A", default_value = "0,0,0,0", value_parser = crate::args::parse_clear, allow_hyphen_values = true)]
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

/// Reads and prepares a shader (validated).
pub fn load_shader(input: &str) -> Result<Module, Failure> {
    let name = crate::report::display_name(input);
    let bytes = crate::report::read_input(input)?;
    let src = tgsic::front::read(&bytes).map_err(|e| input_error(read_error(name, &e)))?;
    Module::new(src.program).map_err(|e| match e {
        host::LoadError::Invalid(errors) => Failure::input(
            errors
                .iter()
                .map(|v| crate::report::validation_error(name, v))
                .collect(),
        ),
        other => input_error(format!("{name}: error: {other}")),
    })
}

/// The host runtime a command runs on: `--threads` worker threads, started once for the whole
/// command (every band of an image runs on them); `cache` compiled shaders kept in memory; the
/// code cache on disk of `--cache-dir`, or `code_cache` without it.
pub fn runtime(exec: &ExecArgs, cache: usize, code_cache: CacheDir) -> Result<Runtime, Failure> {
    Runtime::new(RuntimeOptions {
        threads: exec.threads,
        cache_entries: cache,
        code_cache: exec.code_cache(code_cache),
        ..RuntimeOptions::default()
    })
    .map_err(|e| input_error(format!("error: {e}")))
}

/// A failure of the host API, for the command line: compile errors at their place in `name`.
pub fn host_failure(name: &str) -> impl Fn(HostError) -> Failure + '_ {
    move |e| match e {
        HostError::Lift(e) => input_error(crate::report::located_error(
            name,
            e.location(),
            &e.detail(),
        )),
        HostError::Run(e) => input_error(crate::report::located_error(
            name,
            e.location(),
            &e.detail(),
        )),
        other => input_error(format!("{name}: error: {other}")),
    }
}

/// `module` compiled for `engine` through the host API, with the code `lookups` calls for.
pub fn compile(
    rt: &Runtime,
    module: &Module,
    engine: &EngineArg,
    exec: &ExecArgs,
    lookups: Lookups<'_>,
    name: &str,
) -> Result<Arc<Compiled>, Failure> {
    let opts = exec.compile_options(engine.kind)?;
    rt.compile_for(module, &opts, lookups)
        .map_err(host_failure(name))
}

/// `tgsic run`.
pub fn run(a: &RunArgs) -> Result<(), Failure> {
    let shader = load_shader(&a.input)?;
    let p = shader.program.clone();
    let bind = bindings(&p, &a.bind, a.clear)?;
    let name = crate::report::display_name(&a.input);
    let rt = runtime(&a.exec, 1, CacheDir::Default)?;
    let module = shader;
    let engine = a.engine.clone();
    let shader = compile(&rt, &module, &engine, &a.exec, Lookups::For(&bind), name)?;
    let err = |e: HostError| match (e, a.timeout) {
        (HostError::Run(host::RunError::TimeLimit), Some(t)) => input_error(format!(
            "{name}: error: the run did not finish within --timeout {t} s"
        )),
        (e, _) => host_failure(name)(e),
    };
    let pb = progress_bar(name);
    let tick = |done: u64, all: u64| {
        pb.set_length(all);
        pb.set_position(done);
    };
    let control = RunControl {
        progress: Some(&tick),
        deadline: a
            .timeout
            .map(|t| std::time::Instant::now() + std::time::Duration::from_secs_f64(t)),
    };
    let memory = p.declarations.iter().any(|d| d.file.is_memory());
    let exhausted = match p.processor {
        Processor::Fragment if memory => {
            let (width, height) = a.size;
            let dir = a.out_dir.as_ref().ok_or_else(|| {
                usage(
                    "the shader reads or writes buffers or images: give --out-dir OUTDIR for their final contents"
                        .into(),
                )
            })?;
            let mut files = a.memory.read()?;
            let mut res = files.resources()?;
            let n = width as usize * height as usize;
            let mut pixels = vec![bind.clear; n];
            let frame = Frame {
                width,
                height,
                output: a.output_index,
            };
            let report = shader
                .draw(
                    &rt,
                    &bind,
                    &mut res,
                    host::Draw::all(frame),
                    &control,
                    &mut |i, j, c| {
                        pixels[(j * width + i) as usize] = c;
                    },
                )
                .map_err(err)?;
            drop(res);
            pb.finish_and_clear();
            let mut sink = ImageSink::create(&a.output, width, height)?;
            let band = Band {
                y0: 0,
                rows: height,
                width,
                pixels: pixels.into(),
                unspecified: Vec::new(),
            };
            sink.write(&band).map_err(input_error)?;
            sink.finish()?;
            files.write(dir)?;
            report.exhausted
        }
        Processor::Fragment => {
            let (width, height) = a.size;
            let mut sink = ImageSink::create(&a.output, width, height)?;
            let bands = (band_rows_for(width), sink.order());
            let mut write_error = None;
            let mut write = |band: Band| {
                sink.write(&band).map_err(|m| {
                    write_error = Some(m);
                    host::RunError::Sink("the image could not be written".into())
                })
            };
            let frame = Frame {
                width,
                height,
                output: a.output_index,
            };
            let report = shader.render_bands(&rt, &bind, frame, bands, &control, &mut write);
            pb.finish_and_clear();
            let failure = match (write_error, report) {
                (Some(m), _) => Err(input_error(m)),
                (None, Err(e)) => Err(err(e)),
                (None, Ok(r)) => Ok(r),
            };
            let report = match failure {
                Ok(r) => r,
                Err(f) => {
                    // No half-written image stays behind.
                    drop(sink);
                    let _ = std::fs::remove_file(&a.output);
                    return Err(f);
                }
            };
            sink.finish()?;
            report.exhausted
        }
        Processor::Vertex => {
            let path = a.vertices.as_ref().ok_or_else(|| {
                usage("a vertex shader runs over vertices: give --vertices FILE".into())
            })?;
            let verts = attributes::read_vertices(path).map_err(|e| input_error(e.to_string()))?;
            let out = shader
                .run_vertex_list(&rt, &bind, &verts, &control)
                .map_err(err)?;
            pb.finish_and_clear();
            write_text(&a.output, &attributes::write_vertices(&p, &out))?;
            out.iter().filter(|o| o.exhausted).count() as u64
        }
        Processor::Geometry => {
            let path = a.primitives.as_ref().ok_or_else(|| {
                usage("a geometry shader runs over primitives: give --primitives FILE".into())
            })?;
            let gs_vertices = module.reflection().vertices_per_primitive;
            let prims = attributes::read_primitives(path, gs_vertices)
                .map_err(|e| input_error(e.to_string()))?;
            let out = shader
                .run_primitive_list(&rt, &bind, &prims, &control)
                .map_err(err)?;
            pb.finish_and_clear();
            write_text(&a.output, &attributes::write_emitted(&p, &out))?;
            out.iter().filter(|o| o.exhausted).count() as u64
        }
        Processor::Compute => {
            let grid = a.grid.ok_or_else(|| {
                usage("a compute program runs over a grid of work groups: give --grid X,Y,Z".into())
            })?;
            let mut files = a.memory.read()?;
            let mut res = files.resources()?;
            shader
                .dispatch(&rt, &bind, &mut res, grid, &control)
                .map_err(err)?;
            drop(res);
            pb.finish_and_clear();
            files.write(&a.output)?;
            0
        }
    };
    // A tiered shader's best code, compiled in the background, reaches the code cache for the
    // next run (the image is already written).
    shader.wait_for_best();
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
