//! Mesa's TGSI text dialect (tgsi_dump prints it, tgsi_text parses it), with the documented
//! notation for what only the binary form had (`docs/text-format.md`).

mod cursor;
mod parse;
mod print;

pub use parse::{TextError, TextErrorKind, parse};
pub use print::{format_f32, print};

#[cfg(test)]
mod tests;
