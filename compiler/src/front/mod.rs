//! Reading and writing TGSI: the binary token format and Mesa's text form.

pub mod binary;
pub mod text;

mod detect;
pub use detect::{Form, ReadError, Source, detect_form, read};
