//! tgsic-cli: the `tgsic` command-line program, every subcommand with its arguments and
//! reports, and the file formats only the program reads (vertex and primitive attribute files,
//! `.f32` images and their comparison), which the tests read too.
//!
//! Exit codes (`docs/run.md`): 0 success, 1 bad input (the message names the file and the
//! place: `PATH:LINE:COL: error: ...` for text, `PATH: token N (FIELD): ...` for binary),
//! 2 wrong usage. Messages go to stderr.

mod args;
pub mod attributes;
mod bindings;
mod cmd;
pub mod compare;
mod image;
mod memory;
mod report;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// tgsic: a compiler for TGSI, the shader language of Gallium3D.
#[derive(Debug, Parser)]
#[command(
    name = "tgsic",
    version,
    about,
    propagate_version = true,
    allow_negative_numbers = true
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Assemble TGSI text into binary tokens (revision 1.1, little-endian).
    Asm(cmd::convert::AsmArgs),
    /// Disassemble binary tokens into TGSI text.
    Dis(cmd::convert::DisArgs),
    /// Read a shader (text or binary, detected), validate it and print its diagnostics.
    Check(cmd::convert::CheckArgs),
    /// Lift a shader into the SSA IR, optimize it (-O0, -O1, -O2; default -O2) and print it,
    /// or print instruction counts with --stats.
    Ir(cmd::ir::IrArgs),
    /// Run a shader: a fragment shader over an image (.f32 or .png), a vertex shader over a
    /// vertices file, a geometry shader over a primitives file.
    Run(cmd::run::RunArgs),
    /// Time shader compilation and shading per engine (default interp,jit at 1024x1024) and
    /// print megapixels per second and the speed ratio.
    Bench(cmd::bench::BenchArgs),
    /// Show where the code cache is and what it holds, or empty it (--clear).
    Cache(cmd::cache::CacheArgs),
    /// Compare two .f32 images component by component; exit 1 when they differ by more than
    /// --ulp.
    Cmp(cmd::run::CmpArgs),
    /// The THEIA b1.2 toolchain: assembler, disassembler, simulator.
    Theia {
        #[command(subcommand)]
        command: cmd::theia::TheiaCommand,
    },
}

/// Runs the program on the process's arguments and returns its exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let result = match cli.command {
        Command::Asm(a) => cmd::convert::asm(&a),
        Command::Dis(a) => cmd::convert::dis(&a),
        Command::Check(a) => cmd::convert::check(&a),
        Command::Ir(a) => cmd::ir::ir(&a),
        Command::Run(a) => cmd::run::run(&a),
        Command::Cmp(a) => cmd::run::cmp(&a),
        Command::Bench(a) => cmd::bench::bench(&a),
        Command::Cache(a) => cmd::cache::cache(&a),
        Command::Theia { command } => match command {
            cmd::theia::TheiaCommand::Asm(a) => cmd::theia::asm(&a),
            cmd::theia::TheiaCommand::Dis(a) => cmd::theia::dis(&a),
            cmd::theia::TheiaCommand::Run(a) => cmd::theia::run(&a),
            cmd::theia::TheiaCommand::Compile(a) => cmd::theia::compile(&a),
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            for line in &failure.messages {
                eprintln!("{line}");
            }
            ExitCode::from(failure.code)
        }
    }
}
