//! What the THEIA compiler takes and gives: its options, the program it makes with its
//! statistics and warnings, and its errors.

use crate::isa::Binary;
use std::collections::BTreeMap;
use tgsic::tgsi::{Location, Program};
use thiserror::Error;

/// What the compiler needs besides the shader.
#[derive(Debug, Clone, Default)]
pub struct TheiaOptions {
    /// Constant buffers: `constants[n]` is `CONST[n]` (four 32-bit words per register); registers
    /// beyond the data read 0.
    pub constants: BTreeMap<u32, Vec<[u32; 4]>>,
    /// Input bindings that override the defaults (`IN[n]` → register address).
    pub bindings: BTreeMap<u32, u16>,
}

/// Something the compiler reports without failing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// Where (the TGSI instruction or declaration).
    pub location: Location,
    /// What happened.
    pub message: String,
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: warning: {}", self.location, self.message)
    }
}

/// Counts of the generated code.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TheiaStats {
    /// Instruction words of PIXELSHADER (RETURN included).
    pub pixel_words: usize,
    /// Instruction words of USERCONSTANTS (RETURN included); 0 when the shader has no
    /// constants, and the slot keeps the ROM's routine.
    pub constant_words: usize,
    /// R registers used.
    pub registers: usize,
    /// C registers used.
    pub constant_registers: usize,
    /// `fract(x·C)` with C outside Q15.17, computed as the product's fraction: the result is
    /// exact for the fixed-point x, but x's own error is multiplied by |C| (a hash of x).
    pub fraction_products: usize,
}

/// A compiled shader.
#[derive(Debug, Clone)]
pub struct TheiaProgram {
    /// The b1.2 IMEM image: entry table, then USERCONSTANTS and PIXELSHADER.
    pub binary: Binary,
    /// The generated assembly (`.shdr` syntax, accepted by `tgsic theia asm`).
    pub assembly: String,
    /// Address, words, instruction and the TGSI instruction it came from, per line.
    pub listing: String,
    /// The register each bound input reads (`IN[n]` → address).
    pub bindings: BTreeMap<u32, u16>,
    /// Warnings (alpha dropped, outputs without a THEIA register).
    pub warnings: Vec<Warning>,
    /// Sizes.
    pub stats: TheiaStats,
}

/// Why a shader does not compile for THEIA.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TheiaError {
    /// The shader does not lift into the IR.
    #[error(transparent)]
    Lift(#[from] tgsic::ir::lift::LiftError),
    /// Not a fragment shader.
    #[error("THEIA runs fragment shaders only; this is a {0} shader")]
    NotFragment(String),
    /// An operation, operand or construct THEIA cannot express.
    #[error("{location}: {what} cannot be compiled for THEIA: {why}")]
    Unsupported {
        /// Where.
        location: Location,
        /// What.
        what: String,
        /// Why.
        why: String,
    },
    /// A constant outside Q15.17.
    #[error("{location}: the constant {value} is outside THEIA's Q15.17 range [-16384, 16384)")]
    Range {
        /// Where it is used.
        location: Location,
        /// The value.
        value: String,
    },
    /// More live values than the free registers hold.
    #[error(
        "{location}: the shader needs more registers than THEIA has free here ({live} three-component values are live; R1..R12, the C registers without a constant, addresses 116–127 and the ray-triangle routine's temporaries make {available})"
    )]
    Registers {
        /// Where the pressure is highest.
        location: Location,
        /// Values live there.
        live: usize,
        /// Registers there are (R1..R12, the C registers holding no constant, addresses
        /// 116–127 and the BIU temporaries).
        available: usize,
    },
    /// A shader reads a constant buffer that was not given.
    #[error(
        "the shader reads constant buffer {0}, but no constants were given for it (--const {0}=FILE)"
    )]
    MissingConstants(u32),
    /// No COLOR output.
    #[error("the shader writes no COLOR output, so nothing reaches OREG_PIXEL_COLOR")]
    NoColor,
    /// The code does not fit b1.2's instruction memory.
    #[error(
        "the generated code takes {words} words (entry table, USERCONSTANTS and PIXELSHADER); b1.2's instruction memory holds {capacity}"
    )]
    TooLarge {
        /// Words the image needs.
        words: usize,
        /// Words IMEM holds.
        capacity: usize,
    },
    /// The generated assembly does not assemble (an internal error).
    #[error("the generated code does not assemble: {0}")]
    Assemble(String),
}

impl TheiaError {
    /// The shader line the error is about, when it is about one.
    pub fn location(&self) -> Option<&Location> {
        match self {
            TheiaError::Unsupported { location, .. }
            | TheiaError::Range { location, .. }
            | TheiaError::Registers { location, .. } => Some(location),
            TheiaError::Lift(e) => e.location(),
            _ => None,
        }
    }

    /// The message without its location (for tools that print the location themselves).
    pub fn detail(&self) -> String {
        let s = self.to_string();
        match self.location() {
            Some(l) => s
                .strip_prefix(&format!("{l}: "))
                .map_or_else(|| s.clone(), str::to_string),
            None => s,
        }
    }
}

/// The location of TGSI instruction `origin` (Unknown without one).
pub(super) fn at(program: &Program, origin: Option<u32>) -> Location {
    origin.map_or(Location::Unknown, |i| {
        program.source_map.instruction(i as usize)
    })
}
