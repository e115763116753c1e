//! Texture instructions: TEX/TXP/TXB/TXL/TXD/TXF/TXQ and the modern TEX2/TXB2/TXL2/TEX_LZ/TXF_LZ/
//! TXQS/TG4/LODQ, and the SAMPLE family (`docs/semantics.md`, "Textures").

use super::exec::Exec;
use crate::engine::{Arrangement, BATCH_LANES, Chan, Internal, Mask, Reg, RunError};
use crate::lookup::{TexRequest, sample};
use tgsic::ir::{TexArg, TexOp};
use tgsic::tgsi::*;

/// Executes a texture instruction for the lanes of `exec` (the interpreter's operand fetch,
/// through the IR's form of the instruction).
pub(super) fn execute(ex: &mut Exec<'_>, inst: &Instruction, exec: Mask) -> Result<Reg, RunError> {
    let binding =
        ex.p.program
            .texture_binding(inst)
            .map_err(RunError::TextureBinding)?;
    let offsets = inst.tex_offsets.len().min(1) as u8;
    let (op, sources) = TexOp::from_tgsi(inst.opcode, binding, offsets)
        .ok_or(RunError::Internal(Internal::NotTexture(inst.opcode)))?;
    let mut fetched: Vec<Option<Reg>> = vec![None; inst.src.len()];
    let args: Vec<Chan> = sources
        .iter()
        .map(|a| match *a {
            TexArg::Src { src, comp } => {
                let k = src as usize;
                fetched[k].get_or_insert_with(|| ex.fetch(&inst.src[k], 0xF))[comp as usize]
            }
            TexArg::Offset { offset, comp } => {
                let o = &inst.tex_offsets[offset as usize];
                let r = Register::new(o.file, o.index);
                ex.read(&r, o.swizzle[comp as usize].index())
            }
            TexArg::Zero => [0; BATCH_LANES],
        })
        .collect();
    let req = TexRequest {
        op: &op,
        args: &args,
        exec,
        quads: ex.arrangement == Arrangement::Quads,
    };
    sample(ex.bind, &req)
}
