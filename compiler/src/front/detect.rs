//! Detecting whether input is text or binary, and reading either.

use super::{binary, text};
use crate::tgsi::Program;
use thiserror::Error;

/// The two forms of TGSI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// Mesa's text dialect.
    Text,
    /// Revision 1.1 tokens, little-endian.
    Binary,
}

/// Detects the form of `bytes` (`docs/binary-format.md`): text when its first four bytes contain no byte
/// below 0x09 (TGSI text starts with a letter or blank), otherwise binary.
pub fn detect_form(bytes: &[u8]) -> Form {
    if bytes.iter().take(4).any(|&b| b < 0x09) {
        Form::Binary
    } else {
        Form::Text
    }
}

/// A program read from bytes of either form.
#[derive(Debug, Clone)]
pub struct Source {
    /// The program.
    pub program: Program,
    /// The form it was read from.
    pub form: Form,
    /// Tokens the binary decoder skipped (always empty for text).
    pub warnings: Vec<binary::DecodeWarning>,
}

/// Reading failed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ReadError {
    /// The text form did not parse.
    #[error(transparent)]
    Text(#[from] text::TextError),
    /// The binary form did not decode.
    #[error(transparent)]
    Binary(#[from] binary::DecodeError),
}

/// Reads a program from bytes, detecting the form.
///
/// # Errors
/// A [`ReadError`] with the position (line:column, or token index and field).
pub fn read(bytes: &[u8]) -> Result<Source, ReadError> {
    match detect_form(bytes) {
        Form::Binary => {
            let d = binary::decode_bytes(bytes)?;
            Ok(Source {
                program: d.program,
                form: Form::Binary,
                warnings: d.warnings,
            })
        }
        Form::Text => {
            let s = match std::str::from_utf8(bytes) {
                Ok(s) => s,
                Err(e) => {
                    let before = &bytes[..e.valid_up_to()];
                    let line = before.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
                    let col = before.iter().rev().take_while(|&&b| b != b'\n').count() as u32 + 1;
                    return Err(ReadError::Text(text::TextError {
                        line,
                        column: col,
                        kind: text::TextErrorKind::Invalid("the text is not valid UTF-8".into()),
                    }));
                }
            };
            Ok(Source {
                program: text::parse(s)?,
                form: Form::Text,
                warnings: Vec::new(),
            })
        }
    }
}
