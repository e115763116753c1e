//! Program images: the original tool's `Instructions.mem` and raw `.bin` words.

use super::defs::{ENTRY_SLOTS, IMEM_BASE};
use super::word::{Word, instruction_text};
use std::fmt::Write;
use thiserror::Error;

/// A program image: words at consecutive addresses from `origin`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binary {
    /// Address of `words[0]`: 0x8000 for an IMEM image, 0 for raw words.
    pub origin: u16,
    /// How many leading words are the entry table (11 for b1.2 IMEM images, 0 for raw words).
    pub table_len: usize,
    /// The words.
    pub words: Vec<u64>,
}

/// The two image formats, chosen by file extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryFormat {
    /// `.mem`: the Instructions.mem text layout (entry table, then two hex words per instruction).
    Mem,
    /// `.bin`: little-endian 64-bit words at addresses from 0, no table.
    Bin,
}

impl BinaryFormat {
    /// The format a path's extension names.
    pub fn from_path(path: &std::path::Path) -> Option<BinaryFormat> {
        match path.extension()?.to_str()? {
            "mem" => Some(BinaryFormat::Mem),
            "bin" => Some(BinaryFormat::Bin),
            _ => None,
        }
    }
}

impl Binary {
    /// The address entry slot `k` points at, if the image has that slot.
    pub fn entry(&self, k: usize) -> Option<u16> {
        if k < self.table_len {
            self.words.get(k).map(|&w| w as u16)
        } else {
            None
        }
    }

    /// The word at `address`, if the image holds it.
    pub fn fetch(&self, address: u16) -> Option<Word> {
        let k = address.checked_sub(self.origin)? as usize;
        self.words.get(k).map(|&w| Word(w))
    }

    /// Address of the first instruction after the table.
    pub fn code_start(&self) -> u32 {
        self.origin as u32 + self.table_len as u32
    }

    /// Address one past the last word.
    pub fn end(&self) -> u32 {
        self.origin as u32 + self.words.len() as u32
    }
}

/// A malformed image file.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BinaryError {
    /// A `.mem` line that is not what the layout allows.
    #[error("{line}:{column}: {message}")]
    Mem {
        /// 1-based line.
        line: u32,
        /// 1-based column.
        column: u32,
        /// What is wrong.
        message: String,
    },
    /// A `.bin` file that is not whole 64-bit words.
    #[error("{0} bytes is not a whole number of 64-bit words")]
    PartialWord(usize),
    /// An image that cannot be written in the requested format.
    #[error("{0}")]
    Format(String),
}

/// Writes an IMEM image in the Instructions.mem layout: the word count as the original tool
/// writes it (decimal, 2 × words), the entry table, then one line per instruction with its
/// address and disassembly as a comment.
///
/// # Errors
/// [`BinaryError::Format`] if the image does not start at 0x8000.
pub fn write_mem(image: &Binary) -> Result<String, BinaryError> {
    if image.origin != IMEM_BASE {
        return Err(BinaryError::Format(format!(
            "a .mem image is loaded at 0x8000; this one starts at {:#06x} (write it as .bin)",
            image.origin
        )));
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} //Number of ioctects in file",
        2 * image.words.len()
    );
    out.push_str("//--------------------------------------\n//Subroutine Entry Point Table\n");
    for (k, &w) in image.words.iter().enumerate() {
        let (h, l) = Word(w).halves();
        if k < image.table_len {
            let name = ENTRY_SLOTS.get(k).map_or("?", |(n, _)| n);
            let _ = writeln!(out, "{h:08X} {l:08X}\t//ENTRYPOINT_ADRR_{name}");
            if k + 1 == image.table_len {
                out.push_str("//--------------------------------------\n");
            }
        } else {
            let addr = image.origin as u32 + k as u32;
            let _ = writeln!(
                out,
                "{h:08X} {l:08X}\t\t//  IP {addr:06X} ({k}): {}",
                instruction_text(Word(w), |a| format!("{a:#06x}"))
            );
        }
    }
    Ok(out)
}

/// Reads an Instructions.mem file. The word-count line (decimal or hex) is ignored; every other
/// non-comment line holds two hex words. The first 11 words are the b1.2 entry table.
///
/// # Errors
/// [`BinaryError::Mem`] with line and column for anything else.
pub fn read_mem(text: &str) -> Result<Binary, BinaryError> {
    let mut words = Vec::new();
    let mut seen_data = false;
    for (n, raw) in text.lines().enumerate() {
        let line = n as u32 + 1;
        let body = raw.find("//").map_or(raw, |k| &raw[..k]);
        let mut toks = Vec::new();
        let mut start = None;
        for (i, c) in body
            .char_indices()
            .chain(std::iter::once((body.len(), ' ')))
        {
            match (start, c.is_whitespace()) {
                (None, false) => start = Some(i),
                (Some(s), true) => {
                    toks.push((&body[s..i], s as u32 + 1));
                    start = None;
                }
                _ => {}
            }
        }
        if toks.is_empty() {
            continue;
        }
        let bad = |column: u32, message: String| BinaryError::Mem {
            line,
            column,
            message,
        };
        if !seen_data && toks.len() == 1 {
            // The count line: decimal as the tool writes it, hex as $readmemh reads it.
            seen_data = true;
            let (t, col) = toks[0];
            if !t.chars().all(|c| c.is_ascii_hexdigit()) {
                return Err(bad(col, format!("expected the word count, found `{t}`")));
            }
            continue;
        }
        seen_data = true;
        if toks.len() != 2 {
            let col = toks.get(2).map_or(toks[0].1, |t| t.1);
            return Err(bad(
                col,
                format!(
                    "expected two 32-bit hex words, found {} token(s)",
                    toks.len()
                ),
            ));
        }
        let mut halves = [0u32; 2];
        for (k, &(t, col)) in toks.iter().enumerate() {
            if t.is_empty() || t.len() > 8 || !t.chars().all(|c| c.is_ascii_hexdigit()) {
                return Err(bad(
                    col,
                    format!("expected a 32-bit hex word (1 to 8 hex digits), found `{t}`"),
                ));
            }
            halves[k] = u32::from_str_radix(t, 16).map_err(|e| bad(col, e.to_string()))?;
        }
        words.push((halves[0] as u64) << 32 | halves[1] as u64);
        if words.len() > 512 {
            return Err(bad(1, "more than 512 words: b1.2 IMEM holds 512".into()));
        }
    }
    Ok(Binary {
        origin: IMEM_BASE,
        table_len: ENTRY_SLOTS.len().min(words.len()),
        words,
    })
}

/// Writes raw little-endian 64-bit words.
///
/// # Errors
/// [`BinaryError::Format`] if the image does not start at address 0 (a `.bin` has no table and
/// is loaded at 0).
pub fn write_bin(image: &Binary) -> Result<Vec<u8>, BinaryError> {
    if image.origin != 0 {
        return Err(BinaryError::Format(format!(
            "a .bin image starts at address 0; this one starts at {:#06x} (write it as .mem)",
            image.origin
        )));
    }
    Ok(image.words.iter().flat_map(|w| w.to_le_bytes()).collect())
}

/// Reads raw little-endian 64-bit words at addresses from 0.
///
/// # Errors
/// [`BinaryError::PartialWord`] if the length is not a multiple of 8.
pub fn read_bin(bytes: &[u8]) -> Result<Binary, BinaryError> {
    if !bytes.len().is_multiple_of(8) {
        return Err(BinaryError::PartialWord(bytes.len()));
    }
    let words = bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect();
    Ok(Binary {
        origin: 0,
        table_len: 0,
        words,
    })
}
