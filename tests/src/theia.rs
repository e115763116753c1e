//! Corpus shaders compiled for THEIA as the tests compile them: with the shader's constants (its
//! `.const0.bin`, or multiples of 1/64) and its texture-coordinate and generic inputs bound to
//! b1.2 internal registers the pixel shader may read.

use std::path::Path;
use tgsic::tgsi::{File, Program, Semantic};
use tgsic_theia::compile::{TheiaError, TheiaOptions, TheiaProgram, compile};
use tgsic_theia::isa::register_address;

/// Registers texture-coordinate and generic inputs are bound to, in order.
pub const SPARE: &[&str] = &[
    "CREG_UV0_LAST",
    "CREG_UV1_LAST",
    "CREG_UV2_LAST",
    "CREG_LAST_t",
    "CREG_LAST_u",
    "CREG_LAST_v",
    "CREG_E1_LAST",
    "CREG_E2_LAST",
];

/// Constants for shaders without a constant file: 64 registers of multiples of 1/64 in
/// [−2, 2] (exact in f32 and in Q15.17), drawn from `seed`.
pub fn constants(seed: u32) -> Vec<[u32; 4]> {
    let mut x = seed.wrapping_mul(2654435761).wrapping_add(12345);
    (0..64)
        .map(|_| {
            std::array::from_fn(|_| {
                x = x.wrapping_mul(1664525).wrapping_add(1013904223);
                (((x >> 16) % 257) as f32 / 64.0 - 2.0).to_bits()
            })
        })
        .collect()
}

/// The constants of the shader at `path` (its `.const0.bin` beside it, else [`constants`]) and
/// the options that bind them and its inputs ([`SPARE`]; POSITION and COLOR keep their
/// default registers).
pub fn options_for(path: &Path, p: &Program, seed: u32) -> (TheiaOptions, Vec<[u32; 4]>) {
    let const_file = path.with_extension("const0.bin");
    let consts = match std::fs::read(&const_file) {
        Ok(bytes) => tgsic_runtime::host::constant_registers(&bytes),
        Err(_) => constants(seed),
    };
    let mut opts = TheiaOptions::default();
    opts.constants.insert(0, consts.clone());
    let mut spare = SPARE.iter();
    for d in p.declarations_of(File::Input) {
        let sem = d.semantic.map(|s| s.name);
        if matches!(sem, Some(Semantic::Position) | Some(Semantic::Color)) {
            continue;
        }
        for r in d.span().first..=d.span().last {
            if let Some(name) = spare.next() {
                opts.bindings
                    .insert(r, register_address(name).expect("SPARE names registers"));
            }
        }
    }
    (opts, consts)
}

/// Compiles `p` (read from `path`) with [`options_for`]; returns the program and its constants.
///
/// # Errors
/// Why the shader does not compile for THEIA.
pub fn compile_for_test(
    path: &Path,
    p: &Program,
    seed: u32,
) -> Result<(TheiaProgram, Vec<[u32; 4]>), TheiaError> {
    let (opts, consts) = options_for(path, p, seed);
    compile(p, &opts).map(|t| (t, consts))
}

/// Whether every texture access of `p` is one b1.2 user code can have: a plain TEX (or TXP) of
/// a 2D texture without offsets at an input's `.xy`, the same unit and input each time (the
/// hardware samples one texture at the hit's coordinate before the pixel shader runs, into
/// CREG_TEXTURE_COLOR). Shaders without texture accesses qualify.
pub fn textures_fetchable(p: &Program) -> bool {
    use tgsic::tgsi::{ExtSwizzle, Opcode, TextureTarget};
    let mut seen = None;
    for inst in &p.instructions {
        if inst.texture.is_none() {
            continue;
        }
        let plain = matches!(inst.opcode, Opcode::Tex | Opcode::Txp)
            && inst.texture == Some(TextureTarget::Tex2D)
            && inst.tex_offsets.is_empty();
        let (Some(coord), Some(unit)) = (inst.src.first(), inst.src.get(1)) else {
            return false;
        };
        let at_input = coord.register.file == File::Input
            && coord.register.index.indirect.is_none()
            && coord.swizzle[0] == ExtSwizzle::X
            && coord.swizzle[1] == ExtSwizzle::Y
            && !coord.negate
            && !coord.absolute;
        let key = (coord.register.index.offset, unit.register.index.offset);
        if !plain || !at_input || seen.is_some_and(|k| k != key) {
            return false;
        }
        seen = Some(key);
    }
    true
}
