//! TGSI fragment shaders → THEIA b1.2 program images.
//!
//! The pipeline: lift the program into the SSA IR, prepare it for THEIA (constants become
//! known values, alpha and outputs without a THEIA register are dropped with a warning, the w
//! of every input reads 1.0), optimize at `-O2`, then select THEIA instructions over
//! virtual three-component registers, allocate them onto R1..R12 (and the free C registers) and the constant
//! vectors onto C1..C7, and emit an image whose entry table points USERCONSTANTS and
//! PIXELSHADER at the generated routines, with an annotated listing.
//!
//! Guarantees:
//! - The code never uses what b1.2 does not execute (INTP, XCHANGEY/Z, RESCALE, CALL, RET,
//!   OMWRITE, TMREAD, LEA) and only the swizzles the RTL implements (XXX, YYY, ZZZ, YXZ).
//! - It runs on the RTL as in the simulator: no JMP (an unconditional jump is
//!   `JEQX L VOID VOID`), no MULP, no routine that starts with RETURN (USERCONSTANTS without
//!   constants keeps the ROM's routine; an empty PIXELSHADER starts with NOP).
//! - Comparisons never rely on JL meaning "less than" (it tests ≤) and never on JEQ/JNE/JGE/JLE
//!   for signed equality (they compare magnitudes): strict and equality tests are built from
//!   JG, which is an exact signed comparison; JEQ/JNE/JGE are used only against zero.
//! - Every value is Q15.17 (integers: raw 32-bit words); a constant outside Q15.17 is an error
//!   that names the shader line. Arithmetic is THEIA's: products and quotients truncate.
//! - Anything THEIA cannot express is a [`TheiaError`] naming the shader line, never code that
//!   computes something else.
//!
//! `docs/theia.md` ("Compiling TGSI") documents the bindings, the lowering of each operation and
//! its error.

mod bind;
mod bounds;
mod emit;
mod prepare;
mod range;
mod regalloc;
mod select;

pub use bind::default_bindings;
pub use bounds::{ERROR_BOUNDS, ErrorBound, error_bound};
pub use select::LOG2_OF_NONPOSITIVE;

use super::isa::Image;
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
    pub image: Image,
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
    Lift(#[from] tgsic::ir::LiftError),
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

/// Compiles a TGSI fragment shader into a THEIA b1.2 image, validating it first
/// ([`compile_valid`] compiles a program validated before).
///
/// # Errors
/// As [`compile_valid`]; the shader does not validate.
pub fn compile(program: &Program, opts: &TheiaOptions) -> Result<TheiaProgram, TheiaError> {
    let valid = tgsic::valid::Valid::new(program.clone())
        .map_err(|e| TheiaError::Lift(tgsic::ir::LiftError::Invalid(e)))?;
    compile_valid(&valid, opts)
}

/// Compiles a validated TGSI fragment shader into a THEIA b1.2 image.
///
/// # Errors
/// [`TheiaError`]: the shader does not lift, is not a fragment shader, reads a constant buffer
/// not given, uses what THEIA cannot express (naming the line), has a constant outside
/// Q15.17, or needs more registers than the hardware has.
pub fn compile_valid(
    program: &tgsic::valid::Valid,
    opts: &TheiaOptions,
) -> Result<TheiaProgram, TheiaError> {
    if program.processor != tgsic::tgsi::Processor::Fragment {
        return Err(TheiaError::NotFragment(
            program.processor.name().to_string(),
        ));
    }
    let bindings = bind::resolve(program, &opts.bindings)?;
    let mut f = tgsic::ir::lift_valid(program)?;
    let mut warnings = Vec::new();
    let color = prepare::prepare(&mut f, program, opts, &mut warnings)?;
    tgsic::opt::optimize(&mut f, tgsic::opt::OptLevel::O2);
    if range::fold(&mut f) {
        tgsic::opt::optimize(&mut f, tgsic::opt::OptLevel::O2);
    }
    let sel = select::select(&f, program, &bindings, color)?;
    warnings.extend(sel.notes.iter().map(|(origin, message)| Warning {
        location: at(program, *origin),
        message: message.clone(),
    }));
    let alloc = regalloc::allocate(&sel, program)?;
    let out = emit::emit(&sel, &alloc, program)?;
    Ok(TheiaProgram {
        image: out.image,
        assembly: out.assembly,
        listing: out.listing,
        bindings: bindings.used(&sel.inputs_used),
        warnings,
        stats: out.stats,
    })
}

/// The location of TGSI instruction `origin` (Unknown without one).
fn at(program: &Program, origin: Option<u32>) -> Location {
    origin.map_or(Location::Unknown, |i| {
        program.source_map.instruction(i as usize)
    })
}

#[cfg(test)]
mod tests;
