//! The memory a run reads and writes besides its registers: the host's storage buffers and
//! images ([`Resources`]), shared memory, and the operations every engine applies to them
//! with tgsi_exec's rules (`docs/semantics.md`, "Memory and work groups"): a load that does
//! not fit reads 0, a store writes the words that fit, an atomic out of bounds changes nothing
//! and returns 0, texels outside an image read 0 and ignore stores. Every access is checked
//! against the bound sizes, whatever offset the program computed.

use tgsic::back::abi::MemDesc;
use tgsic::ir::{MemAccess, MemFile};
use tgsic::numerics::texel;
use tgsic::tgsi::{File, ImageFormat, Opcode, Program};
use thiserror::Error;

/// The largest shared memory a dispatch may ask for, in bytes (64 KiB: twice GL's minimum
/// `MAX_COMPUTE_SHARED_MEMORY_SIZE`, llvmpipe's limit).
pub const MAX_SHARED_BYTES: u32 = 64 << 10;

/// The most work groups a dispatch may have per axis (GL's minimum
/// `MAX_COMPUTE_WORK_GROUP_COUNT`).
pub const MAX_GROUPS_PER_AXIS: u32 = 65535;

/// Why the memory given to a run does not fit its program.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MemoryError {
    /// An image whose texel bytes are not its size times its format's texel size.
    #[error(
        "an image of {width}x{height}x{depth} {format} texels needs {needed} bytes, it was given {got}"
    )]
    ImageBytes {
        /// Width in texels.
        width: u32,
        /// Height (rows, or layers of a 1D array).
        height: u32,
        /// Depth (slices, layers or cube faces).
        depth: u32,
        /// Its format.
        format: &'static str,
        /// Bytes its texels take (`None` beyond the address space).
        needed: u64,
        /// Bytes given.
        got: usize,
    },
    /// An image with a zero size or the format `NONE`.
    #[error("an image needs a size of at least 1x1x1 and a format other than NONE")]
    EmptyImage,
    /// A BUFFER the program reads or writes that no buffer is bound to.
    #[error("BUFFER[{0}] is used by the program but no buffer is bound to it")]
    UnboundBuffer(u32),
    /// An IMAGE the program reads or writes that no image is bound to.
    #[error("IMAGE[{0}] is used by the program but no image is bound to it")]
    UnboundImage(u32),
    /// An IMAGE declared with a format whose texels differ in size from the bound image's.
    #[error(
        "IMAGE[{index}] is declared {declared} ({} bytes a texel) but bound as {bound} ({} bytes)",
        declared.texel_bytes(), bound.texel_bytes()
    )]
    ImageFormat {
        /// The image.
        index: u32,
        /// Its declared (or the instruction's) format.
        declared: ImageFormat,
        /// The bound image's format.
        bound: ImageFormat,
    },
    /// An atomic on an image whose format is not one 32-bit channel.
    #[error(
        "an atomic on IMAGE[{index}], which is {format}: image atomics need R32_UINT, R32_SINT or R32_FLOAT"
    )]
    ImageAtomic {
        /// The image.
        index: u32,
        /// Its effective format.
        format: ImageFormat,
    },
    /// Shared memory larger than [`MAX_SHARED_BYTES`].
    #[error("{0} bytes of shared memory: at most {MAX_SHARED_BYTES} are allowed")]
    SharedTooLarge(u32),
    /// A grid with an axis of 0 or more than [`MAX_GROUPS_PER_AXIS`] work groups.
    #[error("a grid of {0}x{1}x{2} work groups: each axis needs 1 to {MAX_GROUPS_PER_AXIS} groups")]
    Grid(u32, u32, u32),
    /// A compute program without its work-group size.
    #[error("the program has no CS_FIXED_BLOCK_WIDTH/HEIGHT/DEPTH: its work-group size is unknown")]
    NoBlockSize,
    /// A run of a program with memory instructions that lends it no memory (a kind of run
    /// that does not take [`Resources`]).
    #[error(
        "the program reads or writes BUFFER, IMAGE or MEMORY registers, and this kind of run lends it no memory"
    )]
    NoMemory,
    /// Memory given twice for one register.
    #[error("{0} is bound twice")]
    BoundTwice(String),
}

/// An image the host lends a run: its texels in the format's own layout, row-major, row 0
/// first, slices (or layers, or cube faces) one after another.
#[derive(Debug)]
pub struct Image<'a> {
    texels: &'a mut [u8],
    size: [u32; 3],
    format: ImageFormat,
}

impl<'a> Image<'a> {
    /// `texels` as a `width`×`height`×`depth` image of `format`.
    ///
    /// # Errors
    /// [`MemoryError::EmptyImage`] for a zero size or the format `NONE`;
    /// [`MemoryError::ImageBytes`] unless `texels` holds exactly the image's bytes.
    pub fn new(
        texels: &'a mut [u8],
        [width, height, depth]: [u32; 3],
        format: ImageFormat,
    ) -> Result<Image<'a>, MemoryError> {
        if width == 0 || height == 0 || depth == 0 || format == ImageFormat::None {
            return Err(MemoryError::EmptyImage);
        }
        let needed = [width, height, depth, format.texel_bytes()]
            .iter()
            .try_fold(1u64, |a, &k| a.checked_mul(k as u64));
        if needed != Some(texels.len() as u64) {
            return Err(MemoryError::ImageBytes {
                width,
                height,
                depth,
                format: format.name(),
                needed: needed.unwrap_or(u64::MAX),
                got: texels.len(),
            });
        }
        Ok(Image {
            texels,
            size: [width, height, depth],
            format,
        })
    }

    /// Width, height and depth in texels.
    pub fn size(&self) -> [u32; 3] {
        self.size
    }

    /// The format its texels are stored in.
    pub fn format(&self) -> ImageFormat {
        self.format
    }
}

/// The index of texel `coord` of an image of `size` (x fastest), when it lies inside.
fn texel_index(size: [u32; 3], coord: [i32; 3]) -> Option<usize> {
    let mut index = 0u64;
    for axis in (0..3).rev() {
        let c = u32::try_from(coord[axis])
            .ok()
            .filter(|&c| c < size[axis])?;
        index = index * size[axis] as u64 + c as u64;
    }
    Some(index as usize)
}

/// The storage buffers and images a host lends a run, and the size of its shared memory
/// (zeroed once per dispatch and kept from one work group to the next, as softpipe does).
#[derive(Debug, Default)]
pub struct Resources<'a> {
    buffers: Vec<Option<Slot<&'a mut [u8]>>>,
    images: Vec<Option<Slot<Image<'a>>>>,
    pub(crate) shared_bytes: u32,
}

/// What a BUFFER or IMAGE register is bound to: memory of its own, or the memory of another
/// register of its file (one buffer on two bindings, one texture on two image units).
#[derive(Debug)]
enum Slot<T> {
    Own(T),
    Same(u32),
}

/// The memory register `index` of `slots` names, following one alias.
fn resolve<T>(slots: &[Option<Slot<T>>], index: u32) -> Option<usize> {
    match slots.get(index as usize)?.as_ref()? {
        Slot::Own(_) => Some(index as usize),
        Slot::Same(of) => match slots.get(*of as usize)?.as_ref()? {
            Slot::Own(_) => Some(*of as usize),
            Slot::Same(_) => None,
        },
    }
}

fn own<T>(slot: &Option<Slot<T>>) -> Option<&T> {
    match slot {
        Some(Slot::Own(t)) => Some(t),
        _ => None,
    }
}

fn own_mut<T>(slot: &mut Option<Slot<T>>) -> Option<&mut T> {
    match slot {
        Some(Slot::Own(t)) => Some(t),
        _ => None,
    }
}

impl<'a> Resources<'a> {
    /// No buffer, no image, no shared memory.
    pub fn new() -> Resources<'a> {
        Resources::default()
    }

    /// Lends `bytes` as `BUFFER[index]`: its size is `bytes.len()`, and a run changes the
    /// bytes in place.
    ///
    /// # Errors
    /// [`MemoryError::BoundTwice`] when `BUFFER[index]` already has one.
    pub fn bind_buffer(&mut self, index: u32, bytes: &'a mut [u8]) -> Result<(), MemoryError> {
        bind(&mut self.buffers, index, Slot::Own(bytes), "BUFFER")
    }

    /// Binds `BUFFER[index]` to the buffer bound to `BUFFER[of]` (one buffer on two
    /// bindings): the two registers read and write the same bytes.
    ///
    /// # Errors
    /// [`MemoryError::BoundTwice`] when `BUFFER[index]` already has one;
    /// [`MemoryError::UnboundBuffer`] when `BUFFER[of]` has no buffer of its own.
    pub fn share_buffer(&mut self, index: u32, of: u32) -> Result<(), MemoryError> {
        if self.buffers.get(of as usize).and_then(own).is_none() {
            return Err(MemoryError::UnboundBuffer(of));
        }
        bind(&mut self.buffers, index, Slot::Same(of), "BUFFER")
    }

    /// Lends `image` as `IMAGE[index]`.
    ///
    /// # Errors
    /// [`MemoryError::BoundTwice`] when `IMAGE[index]` already has one.
    pub fn bind_image(&mut self, index: u32, image: Image<'a>) -> Result<(), MemoryError> {
        bind(&mut self.images, index, Slot::Own(image), "IMAGE")
    }

    /// Binds `IMAGE[index]` to the image bound to `IMAGE[of]` (one texture on two image
    /// units, or two image uniforms on one unit).
    ///
    /// # Errors
    /// [`MemoryError::BoundTwice`] when `IMAGE[index]` already has one;
    /// [`MemoryError::UnboundImage`] when `IMAGE[of]` has no image of its own.
    pub fn share_image(&mut self, index: u32, of: u32) -> Result<(), MemoryError> {
        if self.images.get(of as usize).and_then(own).is_none() {
            return Err(MemoryError::UnboundImage(of));
        }
        bind(&mut self.images, index, Slot::Same(of), "IMAGE")
    }

    /// Sets the size of shared memory (`MEMORY`, not part of the TGSI) for a dispatch.
    ///
    /// # Errors
    /// [`MemoryError::SharedTooLarge`] past [`MAX_SHARED_BYTES`].
    pub fn set_shared_bytes(&mut self, bytes: u32) -> Result<(), MemoryError> {
        if bytes > MAX_SHARED_BYTES {
            return Err(MemoryError::SharedTooLarge(bytes));
        }
        self.shared_bytes = bytes;
        Ok(())
    }

    /// The size of shared memory a dispatch gets.
    pub fn shared_bytes(&self) -> u32 {
        self.shared_bytes
    }

    /// `BUFFER[index]`'s bytes.
    pub(crate) fn buffer(&mut self, index: u32) -> Option<&mut [u8]> {
        let at = resolve(&self.buffers, index)?;
        own_mut(&mut self.buffers[at]).map(|b| &mut **b)
    }

    /// `IMAGE[index]`.
    pub(crate) fn image(&mut self, index: u32) -> Option<&mut Image<'a>> {
        let at = resolve(&self.images, index)?;
        own_mut(&mut self.images[at])
    }

    /// `IMAGE[index]`, to read its size and format.
    pub(crate) fn image_ref(&self, index: u32) -> Option<&Image<'a>> {
        own(self.images.get(resolve(&self.images, index)?)?)
    }

    /// Whether `BUFFER[index]` names a buffer.
    pub(crate) fn has_buffer(&self, index: u32) -> bool {
        resolve(&self.buffers, index).is_some()
    }

    /// Every BUFFER's and IMAGE's memory as a raw pointer and a length (an image with its
    /// size and format), by register, aliases resolved: each bound slice is reborrowed once
    /// here, so that the pointers stay valid together for as long as `self` is borrowed.
    pub(super) fn raw_views(&mut self) -> (Vec<Option<RawBytes>>, Vec<Option<RawImage>>) {
        let mut buffers: Vec<Option<RawBytes>> = self
            .buffers
            .iter_mut()
            .map(|s| {
                own_mut(s).map(|b| RawBytes {
                    ptr: b.as_mut_ptr(),
                    len: b.len(),
                })
            })
            .collect();
        for i in 0..buffers.len() {
            if buffers[i].is_none()
                && let Some(at) = resolve(&self.buffers, i as u32)
            {
                buffers[i] = buffers[at];
            }
        }
        let mut images: Vec<Option<RawImage>> = self
            .images
            .iter_mut()
            .map(|s| {
                own_mut(s).map(|img| RawImage {
                    bytes: RawBytes {
                        ptr: img.texels.as_mut_ptr(),
                        len: img.texels.len(),
                    },
                    size: img.size,
                    format: img.format,
                })
            })
            .collect();
        for i in 0..images.len() {
            if images[i].is_none()
                && let Some(at) = resolve(&self.images, i as u32)
            {
                images[i] = images[at];
            }
        }
        (buffers, images)
    }
}

/// Memory lent to a run, as a pointer and its length in bytes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RawBytes {
    pub(crate) ptr: *mut u8,
    pub(crate) len: usize,
}

/// A bound image's texels ([`RawBytes`]), its size and format.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RawImage {
    pub(crate) bytes: RawBytes,
    pub(crate) size: [u32; 3],
    pub(crate) format: ImageFormat,
}

fn bind<T>(slots: &mut Vec<Option<T>>, index: u32, v: T, file: &str) -> Result<(), MemoryError> {
    let i = index as usize;
    if slots.len() <= i {
        slots.resize_with(i + 1, || None);
    }
    if slots[i].is_some() {
        return Err(MemoryError::BoundTwice(format!("{file}[{index}]")));
    }
    slots[i] = Some(v);
    Ok(())
}

/// What a memory instruction addresses in one run: the bound buffers and images and the
/// dispatch's shared memory.
pub(crate) struct Memory<'r, 'a> {
    pub(crate) resources: &'r mut Resources<'a>,
    pub(crate) shared: &'r mut [u8],
}

/// The memory operations of one run, whatever the lifetimes of what is bound: what an
/// engine's memory instructions call (`dyn Access`).
pub(crate) trait Access {
    /// The size in bytes of `BUFFER[index]` (`shared`: the shared memory), if bound.
    fn byte_len(&self, shared: bool, index: u32) -> Option<usize>;
    /// [`load_words`] of `BUFFER[index]` (`shared`: the shared memory); `None` when unbound.
    fn load(&mut self, shared: bool, index: u32, offset: u32, words: usize) -> Option<[u32; 4]>;
    /// [`store_words`] (nothing when unbound).
    fn store(&mut self, shared: bool, index: u32, offset: u32, v: [u32; 4], mask: u8);
    /// [`atomic_word`] (0 when unbound).
    #[allow(clippy::too_many_arguments)]
    fn atomic(
        &mut self,
        shared: bool,
        index: u32,
        offset: u32,
        op: Opcode,
        a: u32,
        b: u32,
        ftz: bool,
    ) -> u32;
    /// `IMAGE[index]`'s size and format, if bound.
    fn image_info(&self, index: u32) -> Option<([u32; 3], ImageFormat)>;
    /// The texel of `IMAGE[index]` at `coord` in `format` (0 when unbound or outside).
    fn image_load(&mut self, index: u32, coord: [i32; 3], format: ImageFormat) -> [u32; 4];
    /// Stores a texel (nothing when unbound or outside).
    fn image_store(&mut self, index: u32, coord: [i32; 3], format: ImageFormat, v: [u32; 4]);
    /// An atomic on a 32-bit texel: the old value (0 when unbound or outside).
    fn image_atomic(
        &mut self,
        index: u32,
        coord: [i32; 3],
        op: Opcode,
        a: u32,
        b: u32,
        ftz: bool,
    ) -> u32;
    /// Where generated code finds the memory of access `a` to apply it itself
    /// ([`MemDesc`]); by default nowhere: it calls back for every one.
    fn describe(&self, a: &MemAccess) -> MemDesc {
        let _ = a;
        MemDesc::CALL
    }
}

impl Memory<'_, '_> {
    fn bytes(&mut self, shared: bool, index: u32) -> Option<&mut [u8]> {
        if shared {
            Some(self.shared)
        } else {
            self.resources.buffer(index)
        }
    }
}

impl Access for Memory<'_, '_> {
    fn byte_len(&self, shared: bool, index: u32) -> Option<usize> {
        if shared {
            Some(self.shared.len())
        } else {
            let at = resolve(&self.resources.buffers, index)?;
            own(&self.resources.buffers[at]).map(|b| b.len())
        }
    }

    fn load(&mut self, shared: bool, index: u32, offset: u32, words: usize) -> Option<[u32; 4]> {
        load_words(self.bytes(shared, index)?, offset, words)
    }

    fn store(&mut self, shared: bool, index: u32, offset: u32, v: [u32; 4], mask: u8) {
        if let Some(b) = self.bytes(shared, index) {
            store_words(b, offset, v, mask);
        }
    }

    fn atomic(
        &mut self,
        shared: bool,
        index: u32,
        offset: u32,
        op: Opcode,
        a: u32,
        b: u32,
        ftz: bool,
    ) -> u32 {
        self.bytes(shared, index)
            .map_or(0, |m| atomic_word(m, offset, op, a, b, ftz))
    }

    fn image_info(&self, index: u32) -> Option<([u32; 3], ImageFormat)> {
        let img = self.resources.image_ref(index)?;
        Some((img.size, img.format))
    }

    fn image_load(&mut self, index: u32, coord: [i32; 3], format: ImageFormat) -> [u32; 4] {
        self.resources
            .image(index)
            .map_or([0; 4], |img| img.load(coord, format))
    }

    fn image_store(&mut self, index: u32, coord: [i32; 3], format: ImageFormat, v: [u32; 4]) {
        if let Some(img) = self.resources.image(index) {
            img.store(coord, format, v);
        }
    }

    fn image_atomic(
        &mut self,
        index: u32,
        coord: [i32; 3],
        op: Opcode,
        a: u32,
        b: u32,
        ftz: bool,
    ) -> u32 {
        self.resources
            .image(index)
            .map_or(0, |img| img.atomic(coord, op, a, b, ftz))
    }
}

/// Checks, before anything runs, that `res` lends `program` every buffer and image it
/// addresses, in formats that fit its declarations and atomics; and that `grid` (for a
/// compute dispatch) is within bounds.
///
/// # Errors
/// The first [`MemoryError`] found.
pub(crate) fn check_memory(
    program: &Program,
    res: &Resources<'_>,
    grid: Option<[u32; 3]>,
) -> Result<(), MemoryError> {
    if let Some(g) = grid
        && g.iter().any(|&n| n == 0 || n > MAX_GROUPS_PER_AXIS)
    {
        return Err(MemoryError::Grid(g[0], g[1], g[2]));
    }
    let declared = |index: u32| {
        program
            .declarations_of(File::Image)
            .find(|d| d.contains(index as i64))
            .and_then(|d| d.image)
    };
    for inst in &program.instructions {
        let op = inst.opcode;
        if !op.is_memory() {
            continue;
        }
        let r = if op == Opcode::Store {
            &inst.dst[0].register
        } else {
            &inst.src[0].register
        };
        if r.is_indirect() {
            // Which register it names is known when it runs: an unbound one reads 0 and
            // takes no stores, as a buffer of no bytes.
            continue;
        }
        let index = r.index.offset.max(0) as u32;
        match r.file {
            File::Buffer if !res.has_buffer(index) => {
                return Err(MemoryError::UnboundBuffer(index));
            }
            File::Image => {
                let Some(img) = res.image_ref(index) else {
                    return Err(MemoryError::UnboundImage(index));
                };
                let decl = declared(index).map_or(ImageFormat::None, |d| d.format);
                let format = [inst.format, decl]
                    .into_iter()
                    .find(|&f| f != ImageFormat::None)
                    .unwrap_or(img.format);
                if format.texel_bytes() != img.format.texel_bytes() {
                    return Err(MemoryError::ImageFormat {
                        index,
                        declared: format,
                        bound: img.format,
                    });
                }
                if op.is_atomic() && !(format.is_atomic() && img.format.is_atomic()) {
                    return Err(MemoryError::ImageAtomic { index, format });
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// One lane of memory access `a`: `coords` the byte offset (buffers, shared memory) or texel
/// coordinates (images, as many as its target takes), `values` STORE's four components or an
/// atomic's operand(s); returns LOAD's and RESQ's four components or an atomic's old value
/// in component 0 (`ftz`: float atomics under DAZ/FTZ). The rules every engine applies.
pub(crate) fn apply(
    mem: &mut dyn Access,
    a: &MemAccess,
    coords: [u32; 3],
    values: [u32; 4],
    ftz: bool,
) -> [u32; 4] {
    let shared = a.file == MemFile::Shared;
    let image = a.file == MemFile::Image;
    let at: [i32; 3] = std::array::from_fn(|c| if c < a.coords() { coords[c] as i32 } else { 0 });
    let format = || {
        if a.format != ImageFormat::None {
            a.format
        } else {
            mem.image_info(a.index)
                .map_or(ImageFormat::None, |(_, f)| f)
        }
    };
    match a.opcode {
        Opcode::Load if image => {
            let f = format();
            mem.image_load(a.index, at, f)
        }
        Opcode::Load => mem
            .load(shared, a.index, coords[0], a.words())
            .unwrap_or([0; 4]),
        Opcode::Store if image => {
            let f = format();
            mem.image_store(a.index, at, f, values);
            [0; 4]
        }
        Opcode::Store => {
            mem.store(shared, a.index, coords[0], values, a.mask);
            [0; 4]
        }
        Opcode::Resq if image => mem
            .image_info(a.index)
            .map_or([0; 4], |([w, h, d], _)| [w, h, d, 0]),
        Opcode::Resq => [mem.byte_len(shared, a.index).map_or(0, |n| n as u32); 4],
        op if image => [
            mem.image_atomic(a.index, at, op, values[0], values[1], ftz),
            0,
            0,
            0,
        ],
        op => [
            mem.atomic(shared, a.index, coords[0], op, values[0], values[1], ftz),
            0,
            0,
            0,
        ],
    }
}

// The bounds rules of tgsi_exec, for every view of the memory (slices here, the JITs' raw
// memory in `raw_memory.rs`).

/// Where a LOAD of `words` words at byte `offset` of `len` bytes starts: `None` (all channels
/// 0) unless all of them fit.
pub(super) fn load_span(len: usize, offset: u32, words: usize) -> Option<usize> {
    let start = offset as usize;
    (start.checked_add(4 * words)? <= len).then_some(start)
}

/// Where a STORE at byte `offset` of `len` bytes starts and how many of its words fit (up to
/// four; none when the offset lies past the end): those channels of its mask are written.
pub(super) fn store_span(len: usize, offset: u32) -> (usize, usize) {
    let start = offset as usize;
    (start, (len.saturating_sub(start) / 4).min(4))
}

/// Where an atomic at byte `offset` of `len` bytes works: `None` (no change, 0) unless its
/// word fits.
pub(super) fn atomic_span(len: usize, offset: u32) -> Option<usize> {
    load_span(len, offset, 1)
}

/// Where texel `coord` of an image of `size` in `own` format lies, read or written as
/// `format`: its byte offset and size; `None` outside the image, or when `format`'s texels
/// are not the image's size (or have no bytes).
pub(super) fn texel_span(
    size: [u32; 3],
    own: ImageFormat,
    coord: [i32; 3],
    format: ImageFormat,
) -> Option<(usize, usize)> {
    let tb = own.texel_bytes() as usize;
    if format.texel_bytes() as usize != tb || tb == 0 {
        return None;
    }
    Some((texel_index(size, coord)? * tb, tb))
}

/// LOAD of `words` 32-bit words at byte `offset` of `mem` ([`load_span`]).
pub(crate) fn load_words(mem: &[u8], offset: u32, words: usize) -> Option<[u32; 4]> {
    let start = load_span(mem.len(), offset, words)?;
    let mut out = [0u32; 4];
    for (k, w) in mem[start..start + 4 * words].chunks_exact(4).enumerate() {
        out[k] = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
    }
    Some(out)
}

/// STORE of the channels of `mask` of `v` at byte `offset` of `mem` ([`store_span`]).
pub(crate) fn store_words(mem: &mut [u8], offset: u32, v: [u32; 4], mask: u8) {
    let (start, fit) = store_span(mem.len(), offset);
    for (c, &w) in v.iter().enumerate().take(fit) {
        if mask & (1 << c) != 0 {
            mem[start + 4 * c..start + 4 * c + 4].copy_from_slice(&w.to_le_bytes());
        }
    }
}

/// The value an atomic `op` stores over `old`, with operands `a` (and `b`, ATOMCAS's new
/// value); `ftz`: float addition under DAZ/FTZ (fragment shaders, as softpipe draws).
pub(crate) fn atomic_result(op: Opcode, old: u32, a: u32, b: u32, ftz: bool) -> u32 {
    use Opcode as O;
    match op {
        O::AtomUadd => old.wrapping_add(a),
        O::AtomXchg => a,
        O::AtomCas => {
            if old == a {
                b
            } else {
                old
            }
        }
        O::AtomAnd => old & a,
        O::AtomOr => old | a,
        O::AtomXor => old ^ a,
        O::AtomUmin => old.min(a),
        O::AtomUmax => old.max(a),
        O::AtomImin => (old as i32).min(a as i32) as u32,
        O::AtomImax => (old as i32).max(a as i32) as u32,
        O::AtomFadd if ftz => tgsic::numerics::b(tgsic::numerics::f(old) + tgsic::numerics::f(a)),
        O::AtomFadd => (f32::from_bits(old) + f32::from_bits(a)).to_bits(),
        O::AtomIncWrap => {
            if old >= a {
                0
            } else {
                old + 1
            }
        }
        O::AtomDecWrap => {
            if old == 0 || old > a {
                a
            } else {
                old - 1
            }
        }
        _ => old,
    }
}

/// An atomic on the word at byte `offset` of `mem`: the old value (0 and no change when the
/// word does not fit).
pub(crate) fn atomic_word(
    mem: &mut [u8],
    offset: u32,
    op: Opcode,
    a: u32,
    b: u32,
    ftz: bool,
) -> u32 {
    let Some(start) = atomic_span(mem.len(), offset) else {
        return 0;
    };
    let w = &mut mem[start..start + 4];
    let old = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
    w.copy_from_slice(&atomic_result(op, old, a, b, ftz).to_le_bytes());
    old
}

impl Image<'_> {
    /// The texel at `coord` as register values in `format` (0 outside the image, or when
    /// `format`'s texels are not the image's size).
    pub(crate) fn load(&self, coord: [i32; 3], format: ImageFormat) -> [u32; 4] {
        match texel_span(self.size, self.format, coord, format) {
            Some((at, _)) => texel::unpack(format, &self.texels[at..]),
            None => [0; 4],
        }
    }

    /// Stores `v` in `format` at `coord` (nothing outside the image, or when `format`'s texels
    /// are not the image's size).
    pub(crate) fn store(&mut self, coord: [i32; 3], format: ImageFormat, v: [u32; 4]) {
        if let Some((at, _)) = texel_span(self.size, self.format, coord, format) {
            texel::pack(format, v, &mut self.texels[at..]);
        }
    }

    /// An atomic on the 32-bit texel at `coord`: the old value (0 outside the image).
    pub(crate) fn atomic(&mut self, coord: [i32; 3], op: Opcode, a: u32, b: u32, ftz: bool) -> u32 {
        if !self.format.is_atomic() {
            return 0;
        }
        match texel_span(self.size, self.format, coord, self.format) {
            Some((at, _)) => atomic_word(self.texels, at as u32, op, a, b, ftz),
            None => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_and_stores_follow_tgsi_exec() {
        let mut m = [0u8; 12];
        store_words(&mut m, 4, [1, 2, 3, 4], 0xF);
        // Two words fit past offset 4: the third and fourth channels are dropped.
        assert_eq!(load_words(&m, 4, 2), Some([1, 2, 0, 0]));
        assert_eq!(
            load_words(&m, 4, 3),
            None,
            "a load that does not fit reads 0"
        );
        assert_eq!(load_words(&m, u32::MAX, 1), None);
        store_words(&mut m, 12, [9, 9, 9, 9], 0xF);
        store_words(&mut m, u32::MAX, [9, 9, 9, 9], 0xF);
        assert_eq!(load_words(&m, 0, 3), Some([0, 1, 2, 0]));
        assert_eq!(atomic_word(&mut m, 8, Opcode::AtomUadd, 5, 0, false), 2);
        assert_eq!(atomic_word(&mut m, 9, Opcode::AtomUadd, 5, 0, false), 0);
        assert_eq!(load_words(&m, 8, 1), Some([7, 0, 0, 0]));
        assert_eq!(atomic_result(Opcode::AtomCas, 7, 7, 1, false), 1);
        assert_eq!(
            atomic_result(Opcode::AtomImin, 1, u32::MAX, 0, false),
            u32::MAX
        );
    }

    #[test]
    fn images_check_their_size_and_coordinates() {
        let mut t = vec![0u8; 2 * 3 * 4];
        assert!(Image::new(&mut t[..20], [2, 3, 1], ImageFormat::R32Sint).is_err());
        let mut img = Image::new(&mut t, [2, 3, 1], ImageFormat::R32Sint).expect("image");
        img.store([1, 2, 0], ImageFormat::R32Sint, [7, 0, 0, 0]);
        img.store([2, 0, 0], ImageFormat::R32Sint, [9, 0, 0, 0]);
        img.store([-1, 0, 0], ImageFormat::R32Sint, [9, 0, 0, 0]);
        assert_eq!(img.load([1, 2, 0], ImageFormat::R32Sint), [7, 0, 0, 1]);
        assert_eq!(img.load([1, 3, 0], ImageFormat::R32Sint), [0; 4]);
        assert_eq!(img.atomic([1, 2, 0], Opcode::AtomXchg, 3, 0, false), 7);
        assert_eq!(t[20..], [3, 0, 0, 0]);
    }
}
