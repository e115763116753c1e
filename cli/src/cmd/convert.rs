//! `tgsic asm`, `tgsic dis`, `tgsic check`.

use crate::report::{
    Failure, display_name, located_error, read_error, read_input, validation_error,
};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;
use tgsic::front::{Form, Source, binary, read, text};

/// Arguments of `tgsic asm`.
#[derive(Debug, Args)]
pub struct AsmArgs {
    /// Input shader (text; binary is accepted too); `-` reads standard input.
    pub input: String,
    /// Output file (binary tokens); standard output when omitted.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

/// Arguments of `tgsic dis`.
#[derive(Debug, Args)]
pub struct DisArgs {
    /// Input shader (binary; text is accepted too); `-` reads standard input.
    pub input: String,
    /// Output file (text); standard output when omitted.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

/// Arguments of `tgsic check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Input shader, text or binary (detected); `-` reads standard input.
    pub input: String,
}

fn write_output(output: Option<&PathBuf>, data: &[u8]) -> Result<(), Failure> {
    let result = match output {
        Some(p) => std::fs::write(p, data)
            .map_err(|e| format!("{}: error: cannot write: {e}", p.display())),
        None => std::io::stdout()
            .write_all(data)
            .map_err(|e| format!("<stdout>: error: cannot write: {e}")),
    };
    result.map_err(|m| Failure::input(vec![m]))
}

/// Reads, reports skipped tokens as warnings, and validates.
fn load(input: &str) -> Result<Source, Failure> {
    let name = display_name(input);
    let bytes = read_input(input)?;
    let src = read(&bytes).map_err(|e| Failure::input(vec![read_error(name, &e)]))?;
    for w in &src.warnings {
        eprintln!("{name}: token {}: warning: {}", w.token, w.message);
    }
    if let Err(errors) = tgsic::valid::validate(&src.program) {
        return Err(Failure::input(
            errors.iter().map(|e| validation_error(name, e)).collect(),
        ));
    }
    Ok(src)
}

/// `tgsic asm`: reads and validates a shader, writes its binary tokens.
pub fn asm(a: &AsmArgs) -> Result<(), Failure> {
    let src = load(&a.input)?;
    let bytes = binary::encode_bytes(&src.program).map_err(|e| {
        let name = display_name(&a.input);
        Failure::input(vec![located_error(name, Some(&e.location), &e.to_string())])
    })?;
    write_output(a.output.as_ref(), &bytes)
}

/// `tgsic dis`: reads and validates a shader, writes its text.
pub fn dis(a: &DisArgs) -> Result<(), Failure> {
    let src = load(&a.input)?;
    write_output(a.output.as_ref(), text::print(&src.program).as_bytes())
}

/// `tgsic check`: reads and validates; prints a summary line on success.
pub fn check(a: &CheckArgs) -> Result<(), Failure> {
    let name = display_name(&a.input);
    let src = load(&a.input)?;
    let p = &src.program;
    let form = match src.form {
        Form::Text => "text",
        Form::Binary => "binary",
    };
    if !p.revision.is_executable() {
        eprintln!(
            "{name}: warning: revision {}.{} is newer than 1.1: it loads but will not be executed",
            p.revision.major, p.revision.minor
        );
    }
    println!(
        "{name}: ok ({form}, {}, {} declarations, {} immediates, {} instructions)",
        p.processor,
        p.declarations.len(),
        p.immediates.len(),
        p.instructions.len()
    );
    Ok(())
}
