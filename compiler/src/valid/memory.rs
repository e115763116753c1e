//! Validation of compute programs and memory: the work-group size, IMAGE, BUFFER and MEMORY
//! declarations, and the instructions that access them (LOAD, STORE, RESQ, ATOM*), BARRIER.

use super::error::{ValidationError, ValidationErrorKind as K};
use crate::tgsi::*;

/// The most invocations a work group may have, per axis and in all (GL's minimum
/// `MAX_COMPUTE_WORK_GROUP_INVOCATIONS`, llvmpipe's and softpipe's limit).
pub const MAX_GROUP_INVOCATIONS: u32 = 1024;

/// Image targets an IMAGE may be declared with and a memory instruction may name.
fn image_target(t: TextureTarget) -> bool {
    use TextureTarget as T;
    matches!(
        t,
        T::Tex1D
            | T::Tex2D
            | T::Tex3D
            | T::Cube
            | T::Rect
            | T::Array1D
            | T::Array2D
            | T::CubeArray
            | T::Buffer
            | T::Msaa2D
            | T::Msaa2DArray
    )
}

/// Every problem with the compute and memory parts of `p`, appended to `errors`.
pub(super) fn check(p: &Program, errors: &mut Vec<ValidationError>) {
    let mut err = |location: Location, kind: K| errors.push(ValidationError { location, kind });
    block_size(p, &mut err);
    for (i, d) in p.declarations.iter().enumerate() {
        let loc = p.source_map.declaration(i);
        declaration(p, d, |m| err(loc, K::Declaration(m)));
    }
    for (i, inst) in p.instructions.iter().enumerate() {
        instruction(p, i, inst, &mut err);
    }
}

fn block_size(p: &Program, err: &mut impl FnMut(Location, K)) {
    let props = [
        PropertyName::CsFixedBlockWidth,
        PropertyName::CsFixedBlockHeight,
        PropertyName::CsFixedBlockDepth,
    ];
    let size: Vec<Option<u32>> = props.iter().map(|&n| p.property(n)).collect();
    if size.iter().all(Option::is_none) {
        return;
    }
    let loc = p
        .properties
        .iter()
        .position(|q| props.contains(&q.name))
        .and_then(|k| p.source_map.properties.get(k).copied())
        .unwrap_or_default();
    let dims: Vec<u64> = size.iter().map(|s| s.unwrap_or(1) as u64).collect();
    let total: u64 = dims.iter().product();
    if dims.contains(&0) || total > MAX_GROUP_INVOCATIONS as u64 {
        err(
            loc,
            K::Range(format!(
                "a work group of {}x{}x{} invocations: each size must be at least 1 and the \
                 group at most {MAX_GROUP_INVOCATIONS} invocations",
                dims[0], dims[1], dims[2]
            )),
        );
    }
}

fn declaration(p: &Program, d: &Declaration, mut bad: impl FnMut(String)) {
    match (d.file, d.image) {
        (File::Image, None) => bad(
            "an image needs a target and a format (`DCL IMAGE[0], 2D, PIPE_FORMAT_R32_UINT, WR`)"
                .into(),
        ),
        (File::Image, Some(img)) if !image_target(img.target) => {
            bad(format!("{} is not an image target", img.target))
        }
        (File::Image, Some(_)) => {}
        (f, Some(_)) => bad(format!("{f} registers take no image description")),
        _ => {}
    }
    if d.memory.is_some() && d.file != File::Memory {
        bad(format!("{} registers take no memory type", d.file));
    }
    if d.atomic && d.file != File::Buffer {
        bad(format!("{} registers take no ATOMIC flag", d.file));
    }
    if d.memory == Some(MemoryType::Shared) && p.processor != Processor::Compute {
        bad(format!(
            "shared memory is for compute programs, this is a {} shader",
            p.processor
        ));
    }
    if p.processor == Processor::Compute && matches!(d.file, File::Input | File::Output) {
        bad(format!(
            "compute programs have no {} registers (they read system values and memory)",
            d.file
        ));
    }
}

fn instruction(p: &Program, i: usize, inst: &Instruction, err: &mut impl FnMut(Location, K)) {
    let op = inst.opcode;
    let map = &p.source_map;
    let at = map.instruction(i);
    if op == Opcode::Barrier && p.processor != Processor::Compute {
        err(
            at,
            K::Memory(format!(
                "BARRIER is for compute programs, this is a {} shader",
                p.processor
            )),
        );
    }
    // Where memory registers may stand: the resource of a memory instruction.
    let resource_src = op.is_memory() && op != Opcode::Store;
    for (k, s) in inst.src.iter().enumerate() {
        if s.register.file.is_memory() && !(resource_src && k == 0) {
            err(
                map.src(i, k),
                K::Memory(format!(
                    "{} is memory: only LOAD, RESQ and the atomics read it, as their first source",
                    s.register.file
                )),
            );
        }
    }
    for (k, d) in inst.dst.iter().enumerate() {
        if d.register.file.is_memory() && op != Opcode::Store {
            err(
                map.dst(i, k),
                K::Memory(format!(
                    "{} is memory: only STORE writes it, as its destination",
                    d.register.file
                )),
            );
        }
    }
    if !op.is_memory() {
        if inst.qualifiers.0 != 0 || inst.format != ImageFormat::None {
            err(
                at,
                K::Memory(format!(
                    "{op} is not a memory instruction: it takes no qualifiers or format"
                )),
            );
        }
        return;
    }
    let resource = if op == Opcode::Store {
        inst.dst.first().map(|d| &d.register)
    } else {
        inst.src.first().map(|s| &s.register)
    };
    let Some(r) = resource else { return };
    if !r.file.is_memory() {
        err(
            at,
            K::Memory(format!(
                "{op} accesses a BUFFER, IMAGE or MEMORY register, found {}",
                r.file
            )),
        );
        return;
    }
    if !r.dimensions.is_empty() {
        err(
            at,
            K::Memory(format!("{op}: {} registers are one-dimensional", r.file)),
        );
        return;
    }
    // An indirectly addressed resource (an array of buffers or images) is whichever the
    // first executing invocation names, as tgsi_exec takes it; its declaration is checked at
    // run time.
    if r.is_indirect() {
        return;
    }
    match r.file {
        File::Image => {
            let decl = p
                .declarations_of(File::Image)
                .find(|d| d.contains(r.index.offset as i64))
                .and_then(|d| d.image);
            match (inst.texture, decl) {
                (None, _) if op != Opcode::Resq => err(
                    at,
                    K::Memory(format!(
                        "{op} on IMAGE[{}] needs its target (`{op} ..., 2D`)",
                        r.index.offset
                    )),
                ),
                (Some(t), _) if !image_target(t) => {
                    err(at, K::Memory(format!("{t} is not an image target")))
                }
                (Some(t), Some(d)) if t != d.target => err(
                    at,
                    K::Memory(format!(
                        "{op} names target {t}, IMAGE[{}] is declared {}",
                        r.index.offset, d.target
                    )),
                ),
                _ => {}
            }
            if op == Opcode::Store && decl.is_some_and(|d| !d.writable) {
                err(
                    at,
                    K::Memory(format!(
                        "STORE into IMAGE[{}], which is not declared writable (`WR`)",
                        r.index.offset
                    )),
                );
            }
        }
        _ => {
            if inst.texture.is_some() || inst.format != ImageFormat::None {
                err(
                    at,
                    K::Memory(format!(
                        "{op} on {}: only images take a target and a format",
                        r.file
                    )),
                );
            }
        }
    }
}
