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
mod types;

pub use bind::default_bindings;
pub use bounds::{ERROR_BOUNDS, ErrorBound, error_bound};
pub use select::LOG2_OF_NONPOSITIVE;
use types::at;
pub use types::{TheiaError, TheiaOptions, TheiaProgram, TheiaStats, Warning};

use tgsic::tgsi::Program;

/// Compiles a TGSI fragment shader into a THEIA b1.2 image, validating it first
/// ([`compile_valid`] compiles a program validated before).
///
/// # Errors
/// As [`compile_valid`]; the shader does not validate.
pub fn compile(program: &Program, opts: &TheiaOptions) -> Result<TheiaProgram, TheiaError> {
    let valid = tgsic::valid::Valid::new(program.clone())
        .map_err(|e| TheiaError::Lift(tgsic::ir::lift::LiftError::Invalid(e)))?;
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
    // THEIA's datapath is Q15.17 fixed point: no double or 64-bit integer value fits it.
    if let Some((i, inst)) = program
        .instructions
        .iter()
        .enumerate()
        .find(|(_, inst)| inst.opcode.wide().is_some())
    {
        return Err(TheiaError::Unsupported {
            location: program.source_map.instruction(i),
            what: inst.opcode.name().to_string(),
            why: "THEIA computes in Q15.17 fixed point and has no 64-bit values (doubles and \
                  64-bit integers)"
                .into(),
        });
    }
    let bindings = bind::resolve(program, &opts.bindings)?;
    let mut f = tgsic::ir::lift::lift_valid(program)?;
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
        binary: out.binary,
        assembly: out.assembly,
        listing: out.listing,
        bindings: bindings.used(&sel.inputs_used),
        warnings,
        stats: out.stats,
    })
}

#[cfg(test)]
mod tests;
