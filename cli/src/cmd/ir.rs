//! `tgsic ir`: lifts shaders into the IR, optimizes them, prints them (or statistics).

use crate::report::{Failure, read_error, validation_error};
use clap::Args;
use std::time::{Duration, Instant};
use tgsic::ir::{Function, lift::lift_valid, print::print, verify::verify};
use tgsic::opt::{OptLevel, OptStats, optimize};

/// Arguments of `tgsic ir`.
#[derive(Debug, Args)]
pub struct IrArgs {
    /// Input shaders, text or binary (detected); `-` reads standard input.
    #[arg(required = true)]
    pub inputs: Vec<String>,
    /// Optimization level: `-O0` (the lifted IR), `-O1` or `-O2`.
    #[arg(short = 'O', long = "opt", default_value_t = 2, value_parser = clap::value_parser!(u8).range(0..=2))]
    pub opt: u8,
    /// Print instruction counts before and after optimization, time per pass, inputs read
    /// and uniform values instead of the IR; with several inputs, totals and the median and
    /// maximum lift + optimization time.
    #[arg(long)]
    pub stats: bool,
    /// What to print: the IR, the Cranelift IR the cranelift engine generates, the optimized
    /// LLVM IR the llvm engine generates (cargo feature `llvm`), or the machine code of
    /// --engine.
    #[arg(long, value_enum, default_value_t = Emit::Ir)]
    pub emit: Emit,
    /// Whose machine code --emit asm prints: cranelift (also spelled jit) or llvm.
    #[arg(long, default_value = "cranelift", value_parser = crate::args::parse_engine)]
    pub engine: crate::args::EngineArg,
    /// Float math in generated code (with --emit clif|llvm-ir|asm), as `run` compiles it by
    /// default: accurate.
    #[arg(long, value_enum, default_value_t = crate::args::MathArg::Accurate)]
    pub math: crate::args::MathArg,
    /// JIT lanes per step, 0 for the engine's default (with --emit clif|llvm-ir|asm).
    #[arg(long, default_value_t = 0, value_parser = crate::args::parse_lanes)]
    pub lanes: usize,
    /// With --emit clif|llvm-ir|asm: the textures and samplers the code is compiled for, as
    /// `run` compiles it with them. Lookups of units given no --texture go through the
    /// runtime's sampler; with neither --texture nor --sampler, every lookup that can is
    /// sampled in the code as nearest, repeating and of f32 texels.
    #[command(flatten)]
    pub bind: crate::args::BindArgs,
}

/// `--emit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Emit {
    /// The SSA IR.
    Ir,
    /// Cranelift IR.
    Clif,
    /// LLVM IR, optimized.
    LlvmIr,
    /// Machine code (disassembled).
    Asm,
}

struct Compiled {
    f: Function,
    stats: OptStats,
    /// Lifting + optimization, the fastest of a few runs (timing is noisy).
    time: Duration,
    lift_time: Duration,
}

/// The validated program and its IR, lifted and optimized.
fn compile(
    name: &str,
    input: &str,
    level: OptLevel,
    repeat: usize,
) -> Result<(tgsic::valid::Valid, Compiled), Failure> {
    let bytes = crate::report::read_input(input)?;
    let src = tgsic::front::read(&bytes).map_err(|e| Failure::input(vec![read_error(name, &e)]))?;
    let program = tgsic::valid::Valid::new(src.program).map_err(|errors| {
        Failure::input(errors.iter().map(|e| validation_error(name, e)).collect())
    })?;
    let mut best: Option<Compiled> = None;
    for _ in 0..repeat.max(1) {
        let t = Instant::now();
        let mut f = lift_valid(&program).map_err(|e| {
            Failure::input(vec![crate::report::located_error(
                name,
                e.location(),
                &e.detail(),
            )])
        })?;
        let lift_time = t.elapsed();
        let stats = optimize(&mut f, level);
        let time = t.elapsed();
        if best.as_ref().is_none_or(|b| time < b.time) {
            best = Some(Compiled {
                f,
                stats,
                time,
                lift_time,
            });
        }
    }
    let c = best.expect("compiled once");
    if let Err(e) = verify(&c.f) {
        return Err(Failure::input(vec![format!(
            "{name}: internal error: the IR does not verify: {}",
            e[0]
        )]));
    }
    Ok((program, c))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Prints the code a run of `program` executes: the Cranelift IR, the optimized LLVM IR or
/// the machine code, compiled through the host API for the textures and samplers of the
/// arguments (every lookup that can sampled in the code without them).
fn emit_code(a: &IrArgs, name: &str, program: tgsic::valid::Valid) -> Result<(), Failure> {
    use crate::args::{EngineArg, ExecArgs, parse_engine};
    use tgsic_runtime::host::Lookups;
    let engine = match a.emit {
        Emit::Clif => parse_engine("cranelift").map_err(crate::args::usage)?,
        Emit::LlvmIr => parse_engine("llvm").map_err(crate::args::usage)?,
        _ => a.engine.clone(),
    };
    let EngineArg { kind, .. } = engine;
    if kind.backend().is_none() {
        return Err(crate::args::usage(
            "--emit asm needs a JIT engine (cranelift or llvm)".into(),
        ));
    }
    let exec = ExecArgs {
        math: a.math,
        threads: 1,
        lanes: a.lanes,
        cache_dir: None,
    };
    // Reading code is not running it: nothing is kept.
    let rt = crate::cmd::run::runtime(&exec, 1, tgsic_runtime::host::CacheDir::Off)?;
    let fail = crate::cmd::run::host_failure(name);
    let shader = tgsic_runtime::host::Module::from_valid(program)
        .map_err(|e| Failure::input(vec![format!("{name}: error: {e}")]))?;
    let bind = if a.bind.textures.is_empty() && a.bind.samplers.is_empty() {
        None
    } else {
        Some(crate::bindings::given_bindings(
            &shader.program,
            &a.bind,
            [0.0; 4],
        )?)
    };
    let lookups = bind.as_ref().map_or(Lookups::Every, Lookups::For);
    let module = shader;
    let mut opts = exec.compile_options(kind)?;
    opts.opt = a.level();
    let compiled = rt.compile(&module, &opts).map_err(&fail)?;
    let code = compiled.code_text(lookups).map_err(&fail)?;
    let text = if a.emit == Emit::Asm {
        code.asm.as_deref()
    } else {
        code.ir_text.as_deref()
    };
    print!("{}", text.unwrap_or(""));
    if a.emit == Emit::Asm {
        println!("; {} bytes of machine code", code.code_size);
    }
    Ok(())
}

impl IrArgs {
    /// `-O`.
    fn level(&self) -> OptLevel {
        match self.opt {
            0 => OptLevel::O0,
            1 => OptLevel::O1,
            _ => OptLevel::O2,
        }
    }
}

/// `tgsic ir`.
pub fn ir(a: &IrArgs) -> Result<(), Failure> {
    let level = a.level();
    let many = a.inputs.len() > 1;
    let (mut before, mut after) = (0usize, 0usize);
    let mut times = Vec::new();
    for input in &a.inputs {
        let name = if input == "-" {
            "<stdin>"
        } else {
            input.as_str()
        };
        let (program, c) = compile(name, input, level, if a.stats { 3 } else { 1 })?;
        before += c.stats.before;
        after += c.stats.after;
        times.push((c.time, name.to_string()));
        if !a.stats {
            if many {
                println!("; {name}");
            }
            match a.emit {
                Emit::Ir => print!("{}", print(&c.f)),
                Emit::Clif | Emit::LlvmIr | Emit::Asm => emit_code(a, name, program)?,
            }
            continue;
        }
        println!(
            "{name}: {} instructions lifted, {} after -O{} ({:.3} ms: lift {:.3} ms, {} rounds)",
            c.stats.before,
            c.stats.after,
            a.opt,
            ms(c.time),
            ms(c.lift_time),
            c.stats.rounds
        );
        if many {
            continue;
        }
        for p in &c.stats.passes {
            println!(
                "  {:<11} changed in {} rounds, {:.3} ms",
                p.name,
                p.changed,
                ms(p.time)
            );
        }
        let list: Vec<String> =
            c.f.inputs_read()
                .iter()
                .map(|(r, k)| format!("IN[{r}].{}", tgsic::ir::comp_name(*k)))
                .collect();
        println!(
            "  inputs read: {}",
            if list.is_empty() {
                "none".into()
            } else {
                list.join(" ")
            }
        );
        let uniform = tgsic::ir::uniform::analyze(&c.f).count();
        println!("  uniform values: {uniform} of {}", c.f.values.len());
        println!(
            "  values live at once (at most): {}",
            tgsic::ir::pressure::max_live(&c.f)
        );
    }
    if a.stats && many {
        times.sort();
        let median = times[times.len() / 2].0;
        let (max, slowest) = times.last().cloned().unwrap_or_default();
        println!(
            "total: {} shaders, {before} instructions lifted, {after} after -O{} ({:.1}%); \
             lift + optimize per shader: median {:.3} ms, max {:.3} ms ({slowest})",
            times.len(),
            a.opt,
            100.0 * after as f64 / before.max(1) as f64,
            ms(median),
            ms(max)
        );
    }
    Ok(())
}
