//! Validation of a program after it was read.

use crate::tgsi::Program;

/// Validates `program`.
///
/// # Errors
/// Every problem found.
pub fn validate(_program: &Program) -> Result<(), Vec<String>> {
    Ok(())
}
