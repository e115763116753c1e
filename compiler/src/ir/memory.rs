//! Memory operations of the IR: LOAD, STORE, RESQ and the atomics on a storage buffer, an
//! image or shared memory (`Op::Memory`), as the interpreter runs them
//! (`docs/semantics.md`, "Memory and work groups"). Every one is an effect in program order:
//! loads are never merged, moved or hoisted, stores and atomics never removed.

use crate::tgsi::{File, ImageFormat, Instruction, Opcode, Program, TextureTarget};

/// Which memory an access addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemFile {
    /// `BUFFER[index]`: bytes at byte offsets.
    Buffer,
    /// `MEMORY`: the work group's shared memory, at byte offsets.
    Shared,
    /// `IMAGE[index]`: texels at integer coordinates.
    Image,
}

/// One memory instruction. Arguments: the byte offset (buffers, shared memory) or
/// [`MemAccess::coords`] texel coordinates (images), then for STORE the four components of
/// the value, for an atomic its operand (and ATOMCAS's new value), and last, for an
/// [`MemAccess::indirect`] one, each lane's register number. Results: LOAD and RESQ four
/// components (those of [`MemAccess::mask`] meaningful), an atomic the old value, STORE none.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MemAccess {
    /// LOAD, STORE, RESQ or an ATOM* opcode.
    pub opcode: Opcode,
    /// The memory.
    pub file: MemFile,
    /// The BUFFER or IMAGE register (0 for shared memory).
    pub index: u32,
    /// The destination's write mask (LOAD: its last channel decides how many words are
    /// read; STORE: the channels written).
    pub mask: u8,
    /// An image's target (how many coordinates it takes).
    pub target: TextureTarget,
    /// The format an image access reads and writes (`None`: the bound image's own).
    pub format: ImageFormat,
    /// Whether the register is indirectly addressed (`BUFFER[ADDR[0].x + k]`): the access
    /// names the register of its first executing lane (tgsi_exec's rule), which the last
    /// argument holds per lane; `index` is then the declared part alone.
    pub indirect: bool,
}

impl MemAccess {
    /// The access memory instruction `inst` of `p` makes (its register's index as written,
    /// the direct part of an indirect one); `None` for another instruction or a resource
    /// that is not memory.
    pub fn of(p: &Program, inst: &Instruction) -> Option<MemAccess> {
        let opcode = inst.opcode;
        if !opcode.is_memory() {
            return None;
        }
        let resource = if opcode == Opcode::Store {
            &inst.dst.first()?.register
        } else {
            &inst.src.first()?.register
        };
        let file = match resource.file {
            File::Buffer => MemFile::Buffer,
            File::Memory => MemFile::Shared,
            File::Image => MemFile::Image,
            _ => return None,
        };
        let index = if file == MemFile::Shared {
            0
        } else {
            resource.index.offset.max(0) as u32
        };
        let decl = p
            .declarations_of(File::Image)
            .find(|d| d.contains(index as i64))
            .and_then(|d| d.image);
        Some(MemAccess {
            opcode,
            file,
            index,
            mask: inst.dst.first()?.write_mask.0 & 0xF,
            target: inst
                .texture
                .or(decl.map(|d| d.target))
                .unwrap_or(TextureTarget::Tex2D),
            format: if inst.format != ImageFormat::None {
                inst.format
            } else {
                decl.map_or(ImageFormat::None, |d| d.format)
            },
            indirect: resource.is_indirect(),
        })
    }

    /// Words a LOAD of a buffer or shared memory reads: up to its last written channel.
    pub fn words(&self) -> usize {
        (8 - self.mask.leading_zeros()) as usize
    }

    /// How many coordinates an image access takes (tgsi_exec's `get_image_coord_dim`); 1
    /// (the offset) for buffers and shared memory; none for RESQ.
    pub fn coords(&self) -> usize {
        use TextureTarget as T;
        if self.opcode == Opcode::Resq {
            return 0;
        }
        if self.file != MemFile::Image {
            return 1;
        }
        match self.target {
            T::Buffer | T::Tex1D => 1,
            T::Tex2D | T::Rect | T::Array1D | T::Msaa2D => 2,
            _ => 3,
        }
    }

    /// Value arguments after the coordinates.
    pub fn values(&self) -> usize {
        match self.opcode {
            Opcode::Store => 4,
            Opcode::Load | Opcode::Resq => 0,
            Opcode::AtomCas => 2,
            _ => 1,
        }
    }

    /// Results.
    pub fn results(&self) -> usize {
        match self.opcode {
            Opcode::Store => 0,
            Opcode::Load | Opcode::Resq => 4,
            _ => 1,
        }
    }

    /// Whether it changes memory (STORE, the atomics).
    pub fn writes(&self) -> bool {
        self.opcode == Opcode::Store || self.opcode.is_atomic()
    }

    /// Whether its results are integers (everything but a LOAD of a float image format).
    pub fn integer_results(&self) -> bool {
        !(self.opcode == Opcode::Load
            && self.file == MemFile::Image
            && self.format != ImageFormat::None
            && !self.format.is_integer())
    }
}
