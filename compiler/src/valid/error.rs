//! What validation reports: a problem and where it is.

use crate::tgsi::*;
use std::fmt;
use thiserror::Error;

/// What is wrong with a program.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ValidationErrorKind {
    /// A register that no declaration covers.
    #[error("{0} is used but not declared")]
    Undeclared(String),
    /// A write to a file instructions cannot write.
    #[error("{0} is read-only: instructions cannot write it")]
    ReadOnly(String),
    /// Operand counts that do not match the opcode.
    #[error("{opcode} takes {expected}, found {dst} destination(s) and {src} source(s)")]
    OperandCount {
        /// The opcode.
        opcode: &'static str,
        /// What it takes.
        expected: String,
        /// Destinations found.
        dst: usize,
        /// Sources found.
        src: usize,
    },
    /// Unbalanced or misplaced control flow.
    #[error("{0}")]
    ControlFlow(String),
    /// A jump label that points nowhere, or at the wrong instruction.
    #[error("{0}")]
    Label(String),
    /// A texture instruction without a target, sampler or sampler view.
    #[error("{0}")]
    Texture(String),
    /// A memory instruction whose resource, target or format does not fit, or a memory
    /// register used where no memory instruction reads it.
    #[error("{0}")]
    Memory(String),
    /// A 64-bit instruction (a double or 64-bit integer opcode) with a modifier or form whose
    /// result tgsi_exec does not define.
    #[error("{0}")]
    Wide(String),
    /// An index or value outside its range.
    #[error("{0}")]
    Range(String),
    /// A declaration that conflicts with another or does not fit its file.
    #[error("{0}")]
    Declaration(String),
    /// A value that the binary token format cannot hold (a semantic index past 16 bits, an array
    /// id past 16 bits, a label past 24 bits, ...): the program could not be written back.
    #[error("{0}")]
    Encoding(String),
}

/// A validation error with its location.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub struct ValidationError {
    /// Where (declaration, instruction or operand).
    pub location: Location,
    /// What.
    pub kind: ValidationErrorKind,
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.kind)
    }
}
