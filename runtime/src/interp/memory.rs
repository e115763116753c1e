//! The interpreter's memory instructions: LOAD, STORE, RESQ and the atomics on buffers,
//! images and shared memory, lane by lane in lane order, as tgsi_exec runs them
//! (`docs/semantics.md`, "Memory and work groups"); the bounds rules are the engines' shared
//! ones (`engine::memory`).

use super::exec::{Exec, lanes};
use crate::engine::{
    Access, BATCH_LANES, Mask, MemoryError, Reg, RunError, atomic_word, load_words, store_words,
};
use tgsic::tgsi::*;

/// The resource a memory instruction addresses.
#[derive(Clone, Copy)]
enum Target {
    /// A storage buffer (`shared`: the shared memory).
    Words { shared: bool, index: u32 },
    /// An image, with the format its texels are read and written in and the coordinates the
    /// instruction gives (1 to 3).
    Image {
        index: u32,
        format: ImageFormat,
        dims: usize,
    },
}

/// How many coordinates an image target takes (tgsi_exec's `get_image_coord_dim`).
fn coordinate_count(t: TextureTarget) -> usize {
    use TextureTarget as T;
    match t {
        T::Buffer | T::Tex1D => 1,
        T::Tex2D | T::Rect | T::Array1D | T::Msaa2D => 2,
        _ => 3,
    }
}

/// Executes memory instruction `inst` for the lanes of `exec`.
pub(super) fn execute(ex: &mut Exec<'_>, inst: &Instruction, exec: Mask) -> Result<(), RunError> {
    let op = inst.opcode;
    let resource = if op == Opcode::Store {
        &inst.dst[0].register
    } else {
        &inst.src[0].register
    };
    // The register the first executing lane names (tgsi_exec's rule for an indirect one); an
    // index below 0 names nothing, as an unbound one.
    let index = if resource.index.indirect.is_some() {
        let at = ex.index_lanes(&resource.index);
        let first = (0..BATCH_LANES)
            .find(|&l| exec & (1 << l) != 0)
            .unwrap_or(0);
        u32::try_from(at[first]).unwrap_or(u32::MAX)
    } else {
        resource.index.offset.max(0) as u32
    };
    let target = match resource.file {
        File::Image => {
            let declared =
                ex.p.program
                    .declarations_of(File::Image)
                    .find(|d| d.contains(index as i64))
                    .and_then(|d| d.image);
            let bound = ex
                .mem
                .as_ref()
                .and_then(|m| m.image_info(index))
                .map(|(_, f)| f);
            let format = [
                inst.format,
                declared.map_or(ImageFormat::None, |d| d.format),
            ]
            .into_iter()
            .find(|&f| f != ImageFormat::None)
            .or(bound)
            .unwrap_or(ImageFormat::None);
            let t = inst
                .texture
                .or(declared.map(|d| d.target))
                .unwrap_or(TextureTarget::Tex2D);
            Target::Image {
                index,
                format,
                dims: coordinate_count(t),
            }
        }
        f => Target::Words {
            shared: f == File::Memory,
            index,
        },
    };
    // Stores and atomics leave helper invocations and discarded fragments out.
    let writers = exec & !ex.helpers & !ex.report.killed;
    let ftz = ex.p.program.processor != Processor::Compute;
    let mut res: Reg = [[0; BATCH_LANES]; 4];
    match op {
        Opcode::Load => {
            let at = ex.fetch(&inst.src[1], 0b111);
            let mask = inst.dst[0].write_mask.0 & 0xF;
            let words = (8 - mask.leading_zeros()) as usize;
            let mem = memory(ex)?;
            for l in lanes(exec) {
                let v = match target {
                    Target::Words { shared, index } => mem
                        .bytes(shared, index)
                        .and_then(|b| load_words(b, at[0][l], words))
                        .unwrap_or([0; 4]),
                    Target::Image {
                        index,
                        format,
                        dims,
                    } => mem.image_load(index, coords(&at, l, dims), format),
                };
                for c in 0..4 {
                    res[c][l] = v[c];
                }
            }
            ex.write_result(inst, &res, exec);
        }
        Opcode::Store => {
            let at = ex.fetch(&inst.src[0], 0b111);
            let value = ex.fetch(&inst.src[1], 0xF);
            let mask = inst.dst[0].write_mask.0 & 0xF;
            let mem = memory(ex)?;
            for l in lanes(writers) {
                let v = [value[0][l], value[1][l], value[2][l], value[3][l]];
                match target {
                    Target::Words { shared, index } => {
                        if let Some(b) = mem.bytes(shared, index) {
                            store_words(b, at[0][l], v, mask);
                        }
                    }
                    Target::Image {
                        index,
                        format,
                        dims,
                    } => mem.image_store(index, coords(&at, l, dims), format, v),
                }
            }
        }
        Opcode::Resq => {
            let mem = memory(ex)?;
            let size: [u32; 4] = match target {
                Target::Words { shared, index } => {
                    let n = mem.bytes(shared, index).map_or(0, |b| b.len() as u32);
                    [n; 4]
                }
                Target::Image { index, .. } => mem
                    .image_info(index)
                    .map_or([0; 4], |([w, h, d], _)| [w, h, d, 0]),
            };
            // tgsi_exec answers a buffer's size only to a destination that writes x.
            if matches!(target, Target::Words { .. }) && !inst.dst[0].write_mask.has(0) {
                return Ok(());
            }
            for c in 0..4 {
                res[c] = [size[c]; BATCH_LANES];
            }
            ex.write_result(inst, &res, exec);
        }
        _ => {
            // tgsi_exec performs an atomic only for a destination that writes x.
            if !inst.dst[0].write_mask.has(0) {
                return Ok(());
            }
            let at = ex.fetch(&inst.src[1], 0b111);
            let a = ex.fetch(&inst.src[2], 1)[0];
            let b = match inst.src.get(3) {
                Some(s) => ex.fetch(s, 1)[0],
                None => [0; BATCH_LANES],
            };
            let mem = memory(ex)?;
            // Lanes that do not write keep the operand, as tgsi_exec's register does.
            let mut old = a;
            for l in lanes(writers) {
                old[l] = match target {
                    Target::Words { shared, index } => mem
                        .bytes(shared, index)
                        .map_or(0, |bytes| atomic_word(bytes, at[0][l], op, a[l], b[l], ftz)),
                    Target::Image { index, dims, .. } => {
                        mem.image_atomic(index, coords(&at, l, dims), op, a[l], b[l], ftz)
                    }
                };
            }
            res = [old; 4];
            ex.write_result(inst, &res, exec);
        }
    }
    Ok(())
}

/// Lane `l`'s texel coordinates: the first `dims` components as signed integers.
fn coords(at: &Reg, l: usize, dims: usize) -> [i32; 3] {
    std::array::from_fn(|c| if c < dims { at[c][l] as i32 } else { 0 })
}

/// The run's memory, or why there is none.
fn memory<'e>(ex: &'e mut Exec<'_>) -> Result<&'e mut (dyn Access + 'e), RunError> {
    match ex.mem.as_deref_mut() {
        Some(m) => Ok(m),
        None => Err(RunError::Memory(MemoryError::NoMemory)),
    }
}
