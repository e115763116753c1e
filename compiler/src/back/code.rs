//! Machine code as data: the bytes a back end generated for one function, laid out as they run,
//! with the few places that must hold an address of the process that runs them. An image holds
//! no address of the process that compiled it, so it can be stored and mapped again in
//! another process ([`MachineCode::map`] relocates it there); both back ends run their code from
//! images, so a stored one runs exactly as a fresh one.
//!
//! Its byte form ([`MachineCode::to_bytes`], [`MachineCode::from_bytes`]) is checked when read: a
//! truncated or inconsistent image is an error, never code.

use super::abi::{JitArgs, JitError, LayoutError, StoredError};

/// A function of this process that generated code may call by address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Symbol {
    /// `floorf` under the interpreter's denormal rules (Cranelift without SSE4.1's rounding).
    Floorf = 0,
    /// `ceilf`, likewise.
    Ceilf = 1,
    /// `truncf`, likewise.
    Truncf = 2,
    /// `nearbyintf`, likewise.
    Nearbyintf = 3,
    /// `fmaf`, likewise (a CPU without FMA).
    Fmaf = 4,
    /// The C library's `memset`.
    Memset = 5,
    /// The C library's `memcpy`.
    Memcpy = 6,
    /// The C library's `memmove`.
    Memmove = 7,
    /// Exact mode's `exp2f` for four lanes (Cranelift's `helpers.rs`).
    ExactExp2 = 8,
    /// Exact mode's `logf` for four lanes.
    ExactLn = 9,
    /// Exact mode's `powf` for four lanes.
    ExactPow = 10,
    /// Exact mode's `sinf` and `cosf` for four lanes.
    ExactSinCos = 11,
}

impl Symbol {
    /// Every symbol, by its number.
    pub const ALL: [Symbol; 12] = [
        Symbol::Floorf,
        Symbol::Ceilf,
        Symbol::Truncf,
        Symbol::Nearbyintf,
        Symbol::Fmaf,
        Symbol::Memset,
        Symbol::Memcpy,
        Symbol::Memmove,
        Symbol::ExactExp2,
        Symbol::ExactLn,
        Symbol::ExactPow,
        Symbol::ExactSinCos,
    ];

    /// The symbol a back end names, if generated code may call it.
    pub fn from_name(name: &str) -> Option<Symbol> {
        Some(match name {
            "floorf" => Symbol::Floorf,
            "ceilf" => Symbol::Ceilf,
            "truncf" => Symbol::Truncf,
            "nearbyintf" => Symbol::Nearbyintf,
            "fmaf" => Symbol::Fmaf,
            "memset" => Symbol::Memset,
            "memcpy" => Symbol::Memcpy,
            "memmove" => Symbol::Memmove,
            _ => return None,
        })
    }
}

/// The addresses, in this process, of the functions an image's code may call: each back end
/// hands over the table of what its code calls ([`MachineCode::map`]).
pub trait SymbolTable: Sync {
    /// The address of `symbol`.
    ///
    /// # Errors
    /// [`JitError`] when the back end's code cannot call it, or making it failed (an exact
    /// mode function is compiled on first use).
    fn address(&self, symbol: Symbol) -> Result<u64, JitError>;
}

/// What an 8-byte address in an image points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A byte of the image itself, at this offset.
    Image(u32),
    /// A function of the process that maps the image.
    Symbol(Symbol),
}

/// An 8-byte absolute address the image needs where it is mapped: `target + addend` written at
/// `offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reloc {
    /// Where in the image.
    pub offset: u32,
    /// What it points at.
    pub target: Target,
    /// Added to the target's address.
    pub addend: i64,
}

/// The machine code of one function, ready to be mapped into any process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MachineCode {
    /// The code and its constants, as they are laid out in memory.
    pub bytes: Vec<u8>,
    /// The offset of the entry point, `unsafe extern "C" fn(*mut JitArgs)`.
    pub entry: u32,
    /// The bytes from the start that hold instructions: the entry lies below it; constants,
    /// data and call stubs follow. (Cranelift's buffer holds its constants among its code:
    /// there it is the whole image.)
    pub code_len: u32,
    /// The absolute addresses to write where the image is mapped.
    pub relocs: Vec<Reloc>,
}

/// Executable memory holding a mapped image; dropping it unmaps the code.
pub struct MappedCode(
    // Held for its `Drop`.
    #[allow(dead_code)] memmap2::Mmap,
);

impl MachineCode {
    /// Checks that the entry lies in the instructions, and every relocation inside the bytes,
    /// apart from the others and from the entry.
    ///
    /// # Errors
    /// [`JitError::Layout`] naming what lies outside.
    pub fn check(&self) -> Result<(), JitError> {
        let len = self.bytes.len();
        if self.code_len as usize > len {
            return Err(LayoutError::InstructionsPastEnd {
                code_len: self.code_len as usize,
                len,
            }
            .into());
        }
        if self.entry >= self.code_len {
            return Err(LayoutError::EntryOutside {
                entry: self.entry as usize,
                code_len: self.code_len as usize,
            }
            .into());
        }
        let mut slots: Vec<u32> = Vec::with_capacity(self.relocs.len());
        for r in &self.relocs {
            if r.offset as usize + 8 > len {
                return Err(LayoutError::RelocationPastEnd {
                    offset: r.offset as usize,
                    len,
                }
                .into());
            }
            if let Target::Image(t) = r.target
                && t as usize > len
            {
                return Err(LayoutError::TargetPastEnd {
                    target: t as usize,
                    len,
                }
                .into());
            }
            if (r.offset..r.offset + 8).contains(&self.entry) {
                return Err(LayoutError::RelocationOverEntry {
                    offset: r.offset as usize,
                    entry: self.entry as usize,
                }
                .into());
            }
            slots.push(r.offset);
        }
        slots.sort_unstable();
        if let Some(w) = slots.windows(2).find(|w| w[1] < w[0] + 8) {
            return Err(LayoutError::Overlap(w[0] as usize, w[1] as usize).into());
        }
        Ok(())
    }

    /// Maps the image into fresh executable memory of this process, writing its relocations
    /// (a symbol's address from `symbols`, the table of the back end that made it): the
    /// memory and the entry point.
    ///
    /// # Errors
    /// [`JitError::Layout`] when the image is inconsistent ([`MachineCode::check`]), the
    /// table's error for a symbol it has no address for, [`JitError::Host`] when the system
    /// refuses the memory.
    pub fn map(
        &self,
        symbols: &dyn SymbolTable,
    ) -> Result<(MappedCode, unsafe extern "C" fn(*mut JitArgs)), JitError> {
        self.check()?;
        let host = |e: std::io::Error| JitError::Host(format!("executable memory: {e}"));
        let mut map = memmap2::MmapMut::map_anon(self.bytes.len().max(1)).map_err(host)?;
        map[..self.bytes.len()].copy_from_slice(&self.bytes);
        let base = map.as_ptr() as u64;
        for r in &self.relocs {
            let target = match r.target {
                Target::Image(t) => base + u64::from(t),
                Target::Symbol(s) => symbols.address(s)?,
            };
            let value = target.wrapping_add(r.addend as u64);
            let at = r.offset as usize;
            map[at..at + 8].copy_from_slice(&value.to_le_bytes());
        }
        let map = map.make_exec().map_err(host)?;
        // SAFETY: the entry lies inside the mapping (checked), which holds the function a back
        // end generated with the signature `extern "C" fn(*mut JitArgs)`, now executable; the
        // pointer stays valid while `MappedCode` holds the mapping.
        let entry = unsafe {
            std::mem::transmute::<*const u8, unsafe extern "C" fn(*mut JitArgs)>(
                map.as_ptr().add(self.entry as usize),
            )
        };
        Ok((MappedCode(map), entry))
    }

    /// The image as bytes: its length, entry, instructions' length, relocations and code,
    /// little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(20 + 17 * self.relocs.len() + self.bytes.len());
        out.extend_from_slice(&(self.bytes.len() as u32).to_le_bytes());
        out.extend_from_slice(&self.entry.to_le_bytes());
        out.extend_from_slice(&self.code_len.to_le_bytes());
        out.extend_from_slice(&(self.relocs.len() as u32).to_le_bytes());
        for r in &self.relocs {
            out.extend_from_slice(&r.offset.to_le_bytes());
            let (kind, value) = match r.target {
                Target::Image(t) => (0xFFu8, t),
                Target::Symbol(s) => (s as u8, 0),
            };
            out.push(kind);
            out.extend_from_slice(&value.to_le_bytes());
            out.extend_from_slice(&r.addend.to_le_bytes());
        }
        out.extend_from_slice(&self.bytes);
        out
    }

    /// An image from [`MachineCode::to_bytes`]'s form, and the bytes after it.
    ///
    /// # Errors
    /// [`StoredError`] for a truncated or inconsistent form.
    pub fn from_bytes(b: &[u8]) -> Result<(MachineCode, &[u8]), StoredError> {
        let mut r = Reader(b);
        let len = r.u32()? as usize;
        let entry = r.u32()?;
        let code_len = r.u32()?;
        let count = r.u32()? as usize;
        if count > b.len() / 17 {
            return Err(StoredError("more relocations than bytes"));
        }
        let mut relocs = Vec::with_capacity(count);
        for _ in 0..count {
            let offset = r.u32()?;
            let kind = r.take(1)?[0];
            let value = r.u32()?;
            let addend = r.u64()? as i64;
            let target = match kind {
                0xFF => Target::Image(value),
                k => Target::Symbol(
                    *Symbol::ALL
                        .get(usize::from(k))
                        .ok_or(StoredError("an unknown symbol"))?,
                ),
            };
            relocs.push(Reloc {
                offset,
                target,
                addend,
            });
        }
        let bytes = r.take(len)?.to_vec();
        let image = MachineCode {
            bytes,
            entry,
            code_len,
            relocs,
        };
        image
            .check()
            .map_err(|_| StoredError("an entry or relocation outside the code"))?;
        Ok((image, r.0))
    }
}

/// Reads little-endian fields off the front of a byte slice.
pub(crate) struct Reader<'a>(pub(crate) &'a [u8]);

impl<'a> Reader<'a> {
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], StoredError> {
        if self.0.len() < n {
            return Err(StoredError("truncated"));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    pub(crate) fn u32(&mut self) -> Result<u32, StoredError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub(crate) fn u64(&mut self) -> Result<u64, StoredError> {
        let b = self.take(8)?;
        let mut w = [0u8; 8];
        w.copy_from_slice(b);
        Ok(u64::from_le_bytes(w))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_byte_form_round_trips_and_refuses_damage() {
        let image = MachineCode {
            bytes: (0..64u8).collect(),
            entry: 4,
            code_len: 8,
            relocs: vec![
                Reloc {
                    offset: 8,
                    target: Target::Image(40),
                    addend: -3,
                },
                Reloc {
                    offset: 16,
                    target: Target::Symbol(Symbol::Fmaf),
                    addend: 0,
                },
            ],
        };
        let mut bytes = image.to_bytes();
        bytes.extend_from_slice(b"rest");
        let (back, rest) = MachineCode::from_bytes(&bytes).unwrap();
        assert_eq!(back, image);
        assert_eq!(rest, b"rest");
        // Every truncation is refused.
        let whole = image.to_bytes();
        for n in 0..whole.len() {
            assert!(MachineCode::from_bytes(&whole[..n]).is_err(), "{n} bytes");
        }
        // An entry outside the instructions, instructions past the bytes, a relocation
        // outside the bytes or over another, and an unknown symbol are refused.
        let field = |at: usize, v: u32| {
            let mut bad = whole.clone();
            bad[at..at + 4].copy_from_slice(&v.to_le_bytes());
            bad
        };
        for (what, bad) in [
            ("entry past the end", field(4, 100)),
            ("entry among the constants", field(4, 20)),
            ("instructions past the end", field(8, 65)),
            ("relocation past the end", field(16, 60)),
            ("relocations overlapping", field(33, 12)),
            ("relocation over the entry", field(16, 0)),
        ] {
            assert!(MachineCode::from_bytes(&bad).is_err(), "{what}");
        }
        let mut bad = whole;
        bad[20] = 42;
        assert!(MachineCode::from_bytes(&bad).is_err(), "an unknown symbol");
    }

    /// A table without symbols.
    struct NoSymbols;

    impl SymbolTable for NoSymbols {
        fn address(&self, s: Symbol) -> Result<u64, JitError> {
            Err(JitError::Unresolved {
                symbol: format!("{s:?}"),
                table: "this test's table",
            })
        }
    }

    #[test]
    fn a_mapped_image_holds_its_relocated_addresses() {
        // `mov rax, [rip + 1]; ret; <8 bytes: the address of byte 0 plus 3>`.
        let mut bytes = vec![0x48, 0x8B, 0x05, 0x01, 0x00, 0x00, 0x00, 0xC3];
        bytes.extend_from_slice(&[0; 8]);
        let image = MachineCode {
            bytes,
            entry: 0,
            code_len: 8,
            relocs: vec![Reloc {
                offset: 8,
                target: Target::Image(0),
                addend: 3,
            }],
        };
        let (code, entry) = image.map(&NoSymbols).unwrap();
        // SAFETY: the code reads a word beside it and returns it; it ignores its argument.
        let got = unsafe {
            let f = std::mem::transmute::<unsafe extern "C" fn(*mut JitArgs), extern "C" fn() -> u64>(
                entry,
            );
            f()
        };
        assert_eq!(got, entry as usize as u64 + 3);
        drop(code);
    }
}
