//! The binary token format, revision 1.1 (`docs/binary-format.md`), and
//! its documented extensions (`docs/binary-format.md`).
//!
//! [`decode`] reads a word stream into a [`Program`](crate::tgsi::Program); [`encode`] writes
//! one. Words are little-endian in files ([`decode_bytes`], [`encode_bytes`]).

mod decode;
mod encode;
mod tokens;

pub use decode::{DecodeWarning, Decoded, decode, decode_bytes};
pub use encode::{encode, encode_bytes};
pub use tokens::{DecodeError, DecodeErrorKind, EncodeError};

#[cfg(test)]
mod tests;
