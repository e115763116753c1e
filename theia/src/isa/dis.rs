//! The disassembler: text the assembler reads back to the same words at the same addresses.

use super::binary::Binary;
use super::defs::{ENTRY_SLOTS, Op};
use super::word::{Word, instruction_text};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Disassembles an image. Jump targets inside the image get labels (`L_800F`), entry slots that
/// point at its code get `ENTRYPOINT_ADRR_<SLOT>:` labels, other non-default slots become
/// `.entry` lines, and words that are no instruction become `.word` lines, so that assembling
/// the text with the same layout gives back the same words.
pub fn disassemble(image: &Binary) -> String {
    // At most the 11 b1.2 slots are a table; any further word is code.
    let tl = image
        .table_len
        .min(ENTRY_SLOTS.len())
        .min(image.words.len());
    let start = image.origin as u32 + tl as u32;
    let end = image.end();
    let in_code = |a: u16| (a as u32) >= start && (a as u32) < end;
    let mut labels: BTreeMap<u16, Vec<String>> = BTreeMap::new();
    let slot_label = |w: u64| (w <= 0xFFFF && in_code(w as u16)).then_some(w as u16);
    let table = || ENTRY_SLOTS.iter().zip(image.words.iter().take(tl));
    for (&(name, _), &w) in table() {
        if let Some(a) = slot_label(w) {
            labels
                .entry(a)
                .or_default()
                .push(format!("ENTRYPOINT_ADRR_{name}"));
        }
    }
    for &w in image.words.iter().skip(tl) {
        let w = Word(w);
        if w.op().is_some_and(Op::dst_is_target) && in_code(w.dst()) {
            let names = labels.entry(w.dst()).or_default();
            if !names.iter().any(|n| n.starts_with("L_")) {
                names.push(format!("L_{:04X}", w.dst()));
            }
        }
    }
    let target = |a: u16| {
        if in_code(a) {
            format!("L_{a:04X}")
        } else {
            format!("{a:#06x}")
        }
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// THEIA b1.2 image: origin {:#06x}, {} entry slot(s), {} instruction(s)",
        image.origin,
        tl,
        image.words.len() - tl
    );
    for (&(name, default), &a) in table() {
        if slot_label(a).is_none() && a != default as u64 {
            let _ = writeln!(out, ".entry {name} {a:#06x}");
        }
    }
    for (k, &w) in image.words.iter().enumerate().skip(tl) {
        let addr = image.origin as u32 + k as u32;
        if let Some(names) = labels.get(&(addr as u16)) {
            for n in names {
                let _ = writeln!(out, "{n}:");
            }
        }
        let _ = writeln!(out, "    {}", instruction_text(Word(w), target));
    }
    out
}
