//! Formatting of diagnostics and failures for the command line.

use tgsic::front::ReadError;
use tgsic::tgsi::Location;
use tgsic::valid::{ValidationError, ValidationErrorKind};

/// The name used in messages for an input argument (`-` is standard input).
pub fn display_name(input: &str) -> &str {
    if input == "-" { "<stdin>" } else { input }
}

/// The largest shader or program file read (real shaders are kilobytes): reading stops past it.
pub const MAX_INPUT_BYTES: u64 = 64 << 20;
/// The largest data file read (constant buffers, `.f32` textures: a 2^26-texel RGBA f32
/// texture is 1 GiB).
pub const MAX_DATA_BYTES: u64 = (1 << 30) + 16;

/// Reads a shader or program file (`-` is standard input), at most [`MAX_INPUT_BYTES`].
pub fn read_input(input: &str) -> Result<Vec<u8>, Failure> {
    read_bounded(input, MAX_INPUT_BYTES)
}

/// Reads `input` (`-` is standard input), at most `limit` bytes: a larger input is an error
/// (exit 1) found after reading `limit + 1` bytes, so `/dev/zero` or a huge file cannot
/// exhaust memory.
pub fn read_bounded(input: &str, limit: u64) -> Result<Vec<u8>, Failure> {
    use std::io::Read;
    let name = display_name(input);
    let mut bytes = Vec::new();
    let r = if input == "-" {
        std::io::stdin().take(limit + 1).read_to_end(&mut bytes)
    } else {
        std::fs::File::open(input).and_then(|f| f.take(limit + 1).read_to_end(&mut bytes))
    };
    r.map_err(|e| Failure::input(vec![format!("{name}: error: cannot read: {e}")]))?;
    if bytes.len() as u64 > limit {
        return Err(Failure::input(vec![format!(
            "{name}: error: larger than {limit} bytes, the most tgsic reads from such a file"
        )]));
    }
    Ok(bytes)
}

/// Checks that `input` names a readable file (or is `-`), with the error [`read_input`] would
/// give: a missing file or a directory is bad input (exit 1), whatever else is wrong with the
/// command line.
pub fn check_readable(input: &str) -> Result<(), Failure> {
    if input == "-" {
        return Ok(());
    }
    let cannot = |e: String| Failure::input(vec![format!("{input}: error: cannot read: {e}")]);
    match std::fs::metadata(input) {
        Err(e) => Err(cannot(e.to_string())),
        Ok(m) if m.is_dir() => Err(cannot("it is a directory".into())),
        Ok(_) => Ok(()),
    }
}

/// A failed command: its messages (one line each) and exit code.
#[derive(Debug)]
pub struct Failure {
    /// Lines for stderr.
    pub messages: Vec<String>,
    /// Process exit code (1 bad input, 2 usage).
    pub code: u8,
}

impl Failure {
    /// Bad input (exit 1).
    pub fn input(messages: Vec<String>) -> Failure {
        Failure { messages, code: 1 }
    }
}

/// Formats a read error as `PATH:LINE:COL: error: ...` or `PATH: token N (FIELD): ...`.
pub fn read_error(path: &str, e: &ReadError) -> String {
    match e {
        ReadError::Text(t) => format!("{path}:{}:{}: error: {}", t.line, t.column, t.kind),
        ReadError::Binary(b) => format!("{path}: token {} ({}): {}", b.token, b.field, b.kind),
    }
}

/// `PATH:LINE:COL: error: DETAIL` (`PATH: token N: error: DETAIL`, or `PATH: error: DETAIL`
/// when the error has no place): the one form of every located compile error.
pub fn located_error(path: &str, location: Option<&Location>, detail: &str) -> String {
    match location {
        Some(Location::Text { line, column }) => format!("{path}:{line}:{column}: error: {detail}"),
        Some(Location::Token { index }) => format!("{path}: token {index}: error: {detail}"),
        None | Some(Location::Unknown) => format!("{path}: error: {detail}"),
    }
}

/// The token field a validation error concerns, for the binary message form.
fn field(kind: &ValidationErrorKind) -> &'static str {
    match kind {
        ValidationErrorKind::Undeclared(_) | ValidationErrorKind::Range(_) => "Index",
        ValidationErrorKind::ReadOnly(_) => "File",
        ValidationErrorKind::OperandCount { .. } => "NumSrcRegs",
        ValidationErrorKind::ControlFlow(_) => "Opcode",
        ValidationErrorKind::Label(_) => "Label",
        ValidationErrorKind::Texture(_) => "Texture",
        ValidationErrorKind::Memory(_) => "File",
        ValidationErrorKind::Wide(_) => "Opcode",
        ValidationErrorKind::Declaration(_) => "DECLARATION",
        ValidationErrorKind::Encoding(_) => "value",
    }
}

/// Formats a validation error in the form of its location.
pub fn validation_error(path: &str, e: &ValidationError) -> String {
    match e.location {
        Location::Text { line, column } => format!("{path}:{line}:{column}: error: {}", e.kind),
        Location::Token { index } => {
            format!("{path}: token {index} ({}): {}", field(&e.kind), e.kind)
        }
        Location::Unknown => format!("{path}: error: {}", e.kind),
    }
}
