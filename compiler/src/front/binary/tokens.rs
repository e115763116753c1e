//! The token format's words: the token types and extension types, bit fields, and the errors
//! of decoding and encoding them, shared by [`super::decode`] and [`super::encode`].

use thiserror::Error;

/// Token types of sized tokens (TOKEN_TYPE).
pub(crate) mod token_type {
    pub const DECLARATION: u32 = 0;
    pub const IMMEDIATE: u32 = 1;
    pub const INSTRUCTION: u32 = 2;
    /// Extension: PROPERTY.
    pub const PROPERTY: u32 = 3;
}

/// Extension token types of INSTRUCTION.
pub(crate) mod inst_ext {
    pub const NV: u32 = 0;
    pub const LABEL: u32 = 1;
    pub const TEXTURE: u32 = 2;
    // 3 was PREDICATE (August 2007): unknown here, skipped.
    /// Extension: one texture offset.
    pub const TEXOFFSET: u32 = 4;
    /// Extension: modern instruction flags (Precise).
    pub const FLAGS: u32 = 5;
    /// Extension: memory qualifiers and the image format of a memory instruction.
    pub const MEMORY: u32 = 6;
}

/// Extension token types of SRC_REGISTER.
pub(crate) mod src_ext {
    pub const SWZ: u32 = 0;
    pub const MOD: u32 = 1;
    /// Extension: array id.
    pub const ARRAY: u32 = 2;
}

/// Extension token types of DST_REGISTER.
pub(crate) mod dst_ext {
    pub const CONDCODE: u32 = 0;
    pub const MODULATE: u32 = 1;
    // 2 was PREDICATE (August 2007): unknown here, skipped.
    /// Extension: array id.
    pub const ARRAY: u32 = 3;
}

/// Extension token types of DECLARATION (all of them extensions).
pub(crate) mod decl_ext {
    /// UsageMask, Local, Invariant, Location.
    pub const MODIFIERS: u32 = 0;
    /// Second dimension (`CONST[1][0..3]`).
    pub const DIMENSION: u32 = 1;
    /// Array id.
    pub const ARRAY: u32 = 2;
    /// Sampler view resource.
    pub const SAMPLER_VIEW: u32 = 3;
    /// Image target, format and flags.
    pub const IMAGE: u32 = 4;
    /// Memory type of MEMORY, the ATOMIC flag of BUFFER.
    pub const MEMORY: u32 = 5;
}

/// Extracts bits `lo..=hi` of `w`.
pub(crate) fn field(w: u32, lo: u32, hi: u32) -> u32 {
    let width = hi - lo + 1;
    if width == 32 {
        w
    } else {
        (w >> lo) & ((1u32 << width) - 1)
    }
}

/// Places `v` in bits `lo..=hi` (v must fit; callers check).
pub(crate) fn put(v: u32, lo: u32, hi: u32) -> u32 {
    debug_assert!(
        hi - lo == 31 || v < (1u32 << (hi - lo + 1)),
        "value {v} overflows {lo}:{hi}"
    );
    v << lo
}

/// Sign-extends the 16-bit index field `v`.
pub(crate) fn sext16(v: u32) -> i32 {
    v as u16 as i16 as i32
}

/// What went wrong while decoding.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DecodeErrorKind {
    /// The stream ends before a token it needs.
    #[error("the stream ends here, but {0} is needed")]
    Truncated(&'static str),
    /// A byte stream whose length is not a multiple of 4.
    #[error("the stream is {0} bytes long, not a whole number of 32-bit words")]
    PartialWord(usize),
    /// MajorVersion other than 1.
    #[error("major version {0} is not supported (only 1)")]
    UnsupportedVersion(u32),
    /// A padding field that is not zero.
    #[error("padding must be 0, found {0:#x}")]
    NonZeroPadding(u32),
    /// A Size, HeaderSize or BodySize that points outside the stream.
    #[error("{0}")]
    OutOfStream(String),
    /// An enumerated field with a value the table does not have.
    #[error("unknown {what} {value}")]
    UnknownValue {
        /// Which enumeration.
        what: &'static str,
        /// The value found.
        value: u32,
    },
    /// A register file that is out of scope.
    #[error("register file {name} ({value}) is not supported (out of scope)")]
    UnsupportedFile {
        /// Modern name of the file.
        name: &'static str,
        /// Its number.
        value: u32,
    },
    /// An opcode number that is not in the table (out-of-scope opcodes have no number).
    #[error("unknown or unsupported opcode {0}")]
    UnsupportedOpcode(u32),
    /// Operand counts that do not match the opcode.
    #[error("{opcode} takes {expected}, the token says {dst} destination(s) and {src} source(s)")]
    OperandCount {
        /// The opcode.
        opcode: &'static str,
        /// What the opcode takes.
        expected: String,
        /// NumDstRegs.
        dst: u32,
        /// NumSrcRegs.
        src: u32,
    },
    /// A construct this decoder cannot represent.
    #[error("{0}")]
    Unsupported(String),
    /// A structural problem (labels, sizes, header).
    #[error("{0}")]
    Invalid(String),
}

/// A decoding error: where (word index and field) and what.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("token {token} ({field}): {kind}")]
pub struct DecodeError {
    /// 0-based index of the offending 32-bit word.
    pub token: u32,
    /// The token field (or token name) concerned.
    pub field: &'static str,
    /// What is wrong.
    pub kind: DecodeErrorKind,
}

/// An encoding error: a program that revision 1.1 plus its extensions cannot hold.
///
/// Its text names the item and the field; [`EncodeError::location`] is where the item was read
/// (line:column or token), [`Location::Unknown`](crate::tgsi::Location::Unknown) for a program built in memory or for the
/// program as a whole.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("cannot encode {what}: {why}")]
pub struct EncodeError {
    /// The item (`instruction 12`, `declaration 3`, ...).
    pub what: String,
    /// Why.
    pub why: String,
    /// Where the item was read.
    pub location: crate::tgsi::Location,
}
