//! The assembler: the original tool's `.shdr` syntax, plus friendlier literals.
//!
//! ```text
//! line     := [ LABEL ':' ] [ instruction | directive ] [ '//' comment ]
//! instruction := MNEMONIC { operand }          (blanks or commas between operands)
//! operand  := register | macro | label | number
//! number   := 32'hX | N'dX | N'bX | 0xX | decimal | fixed-point (1.5 → Q15.17)
//! directive:= .entry SLOT VALUE | .word VALUE64    (the whole table word / instruction word)
//! ```
//! Type I takes up to three 16-bit operands (DST SRC1 SRC2; missing ones are 0 = VOID). Type II
//! takes DST and a 32-bit immediate, or DST and two 16-bit halves (`JMP L VOID VOID`). `RT_TRUE`
//! and `RT_FALSE` fill all 48 operand bits. `ENTRYPOINT_ADRR_<SLOT>:` labels fill the entry table.

use super::binary::Binary;
use super::defs::{
    ENTRY_SLOTS, Form, IMEM_BASE, MACROS_32, MACROS_48, Op, entry_slot, f64_to_fixed,
    register_address,
};
use super::word::Word;
use std::collections::HashMap;
use thiserror::Error;

/// Where the assembled code goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// IMEM image (`.mem`): the 11-slot entry table at 0x8000, code from 0x800B.
    Mem,
    /// Raw words (`.bin`) at consecutive addresses from 0, no table.
    Bin,
}

/// What is wrong with an assembly line.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AsmErrorKind {
    /// A mnemonic the instruction set does not have.
    #[error("unknown mnemonic `{0}`")]
    UnknownMnemonic(String),
    /// A name that is no register, macro or label.
    #[error("`{0}` is not a register, macro or label")]
    UnknownName(String),
    /// A register name with a number outside its bank (`R13`).
    #[error("register `{0}` is out of range ({1})")]
    RegisterOutOfRange(String, &'static str),
    /// A value wider than its field.
    #[error("{value} does not fit the {bits}-bit {field}")]
    TooWide {
        /// The value as written.
        value: String,
        /// Field width.
        bits: u32,
        /// Which field.
        field: &'static str,
    },
    /// A fixed-point literal outside Q15.17.
    #[error("{0} is outside the Q15.17 range [-16384, 16384)")]
    FixedRange(String),
    /// A label used but never defined.
    #[error("label `{0}` is not defined")]
    UndefinedLabel(String),
    /// A label defined twice.
    #[error("label `{0}` is already defined on line {1}")]
    DuplicateLabel(String, u32),
    /// An entry slot name that does not exist.
    #[error("unknown entry point `{0}` (slots: {1})")]
    UnknownEntry(String, String),
    /// Malformed syntax.
    #[error("expected {0}")]
    Expected(String),
    /// Too many operands for the instruction form.
    #[error("{0} takes at most {1} operands")]
    TooManyOperands(&'static str, usize),
    /// More code than the memory holds.
    #[error("{0} words do not fit: b1.2 IMEM holds 512")]
    TooLong(usize),
}

/// An assembly error with its position.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{line}:{column}: {kind}")]
pub struct AsmError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    /// What.
    pub kind: AsmErrorKind,
}

/// A token with its 1-based column.
#[derive(Debug, Clone, Copy)]
struct Tok<'a> {
    text: &'a str,
    column: u32,
}

/// One source line after the first pass.
struct Line<'a> {
    number: u32,
    /// The mnemonic or directive, and its operands.
    body: Vec<Tok<'a>>,
}

fn err<T>(line: u32, column: u32, kind: AsmErrorKind) -> Result<T, AsmError> {
    Err(AsmError { line, column, kind })
}

/// Splits a line into tokens (blanks and commas separate), dropping a `//` comment.
fn tokens(text: &str) -> Vec<Tok<'_>> {
    let text = match text.find("//") {
        Some(k) => &text[..k],
        None => text,
    };
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        let sep = c.is_whitespace() || c == ',';
        match (start, sep) {
            (None, false) => start = Some(i),
            (Some(s), true) => {
                out.push(Tok {
                    text: &text[s..i],
                    column: s as u32 + 1,
                });
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(Tok {
            text: &text[s..],
            column: s as u32 + 1,
        });
    }
    out
}

/// Assembles `.shdr` source into an image laid out as `layout` says.
///
/// # Errors
/// [`AsmError`] with line and column: unknown mnemonic, unknown name, register out of range,
/// value too wide for its field, fixed-point literal out of range, undefined or duplicate label,
/// unknown entry slot, malformed line.
pub fn assemble(src: &str, layout: Layout) -> Result<Binary, AsmError> {
    let (origin, table) = match layout {
        Layout::Mem => (IMEM_BASE, ENTRY_SLOTS.len()),
        Layout::Bin => (0u16, 0usize),
    };
    let mut slots: Vec<u16> = ENTRY_SLOTS.iter().map(|&(_, a)| a).collect();
    let mut labels: HashMap<&str, (u16, u32)> = HashMap::new();
    let mut lines = Vec::new();
    let mut address = origin as u32 + table as u32;

    // Pass 1: labels and addresses.
    for (n, text) in src.lines().enumerate() {
        let number = n as u32 + 1;
        let mut toks = tokens(text);
        while let Some(first) = toks.first().copied() {
            let Some(name) = first.text.strip_suffix(':') else {
                break;
            };
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return err(
                    number,
                    first.column,
                    AsmErrorKind::Expected(format!(
                        "a label name before `:`, found `{}`",
                        first.text
                    )),
                );
            }
            if let Some(&(_, line)) = labels.get(name) {
                return err(
                    number,
                    first.column,
                    AsmErrorKind::DuplicateLabel(name.into(), line),
                );
            }
            if address > 0xFFFF {
                return err(
                    number,
                    first.column,
                    AsmErrorKind::TooLong((address - origin as u32) as usize),
                );
            }
            labels.insert(name, (address as u16, number));
            if let (Layout::Mem, Some(slot)) = (layout, name.strip_prefix("ENTRYPOINT_ADRR_")) {
                match entry_slot(slot) {
                    Some(k) => slots[k] = address as u16,
                    None => return err(number, first.column, unknown_entry(slot)),
                }
            }
            toks.remove(0);
        }
        if toks.is_empty() {
            continue;
        }
        let is_instruction = toks[0].text != ".entry";
        lines.push(Line { number, body: toks });
        if is_instruction {
            address += 1;
        }
    }
    let count = (address - origin as u32) as usize;
    if layout == Layout::Mem && count > 512 {
        let last = lines.last().map_or(1, |l| l.number);
        return err(last, 1, AsmErrorKind::TooLong(count));
    }

    // Pass 2: encode.
    let mut words: Vec<u64> = Vec::with_capacity(count);
    if layout == Layout::Mem {
        words.extend(slots.iter().map(|&a| a as u64));
    }
    let ctx = Ctx { labels: &labels };
    for line in &lines {
        let head = line.body[0];
        match head.text {
            ".entry" => {
                if layout != Layout::Mem {
                    return err(
                        line.number,
                        head.column,
                        AsmErrorKind::Expected(
                            "no `.entry` in a .bin image (it has no entry table)".into(),
                        ),
                    );
                }
                let [_, slot, value] = line.body[..] else {
                    return err(
                        line.number,
                        head.column,
                        AsmErrorKind::Expected("`.entry SLOT ADDRESS`".into()),
                    );
                };
                let k = entry_slot(slot.text).map_or_else(
                    || err(line.number, slot.column, unknown_entry(slot.text)),
                    Ok,
                )?;
                words[k] = ctx.value(line.number, value, 64, "entry table word")?;
            }
            ".word" => {
                let [_, value] = line.body[..] else {
                    return err(
                        line.number,
                        head.column,
                        AsmErrorKind::Expected("`.word VALUE` (one 64-bit word)".into()),
                    );
                };
                words.push(ctx.value(line.number, value, 64, "word")?);
            }
            _ => words.push(ctx.instruction(line)?.0),
        }
    }
    Ok(Binary {
        origin,
        table_len: table,
        words,
    })
}

fn unknown_entry(name: &str) -> AsmErrorKind {
    let names: Vec<&str> = ENTRY_SLOTS.iter().map(|(n, _)| *n).collect();
    AsmErrorKind::UnknownEntry(name.into(), names.join(", "))
}

struct Ctx<'a, 'b> {
    labels: &'b HashMap<&'a str, (u16, u32)>,
}

impl Ctx<'_, '_> {
    fn instruction(&self, line: &Line<'_>) -> Result<Word, AsmError> {
        let head = line.body[0];
        let Some(op) = Op::from_name(head.text) else {
            let hint = Op::from_name(&head.text.to_ascii_uppercase()).map_or(String::new(), |o| {
                format!(" (mnemonics are upper case: {})", o.name())
            });
            return err(
                line.number,
                head.column,
                AsmErrorKind::UnknownMnemonic(format!("{}{hint}", head.text)),
            );
        };
        let ops = &line.body[1..];
        // RT_TRUE / RT_FALSE fill all 48 operand bits.
        if let [only] = ops
            && let Some(&(_, v)) = MACROS_48.iter().find(|(n, _)| *n == only.text)
        {
            return Ok(Word((op.code() as u64) << 48 | v));
        }
        match op.form() {
            Form::RegisterType => {
                if ops.len() > 3 {
                    return err(
                        line.number,
                        ops[3].column,
                        AsmErrorKind::TooManyOperands(op.name(), 3),
                    );
                }
                let mut f = [0u16; 3];
                for (k, t) in ops.iter().enumerate() {
                    let what = match k {
                        0 if op.dst_is_target() => "jump target",
                        0 => "DST",
                        1 => "SRC1",
                        _ => "SRC2",
                    };
                    f[k] = self.value(line.number, *t, 16, what)? as u16;
                }
                Ok(Word::reg(op.code(), f[0], f[1], f[2]))
            }
            Form::ImmediateType => {
                let what = if op.dst_is_target() {
                    "jump target"
                } else {
                    "DST"
                };
                let dst = match ops.first() {
                    Some(t) => self.value(line.number, *t, 16, what)? as u16,
                    None => 0,
                };
                let imm = match ops.len() {
                    0 | 1 => 0,
                    2 => self.value(line.number, ops[1], 32, "immediate")? as u32,
                    3 => {
                        let hi = self.value(line.number, ops[1], 16, "immediate high half")?;
                        let lo = self.value(line.number, ops[2], 16, "immediate low half")?;
                        (hi << 16 | lo) as u32
                    }
                    _ => {
                        return err(
                            line.number,
                            ops[3].column,
                            AsmErrorKind::TooManyOperands(op.name(), 3),
                        );
                    }
                };
                Ok(Word::imm(op.code(), dst, imm))
            }
        }
    }

    /// The value of an operand token for a field of `bits` bits.
    fn value(
        &self,
        line: u32,
        t: Tok<'_>,
        bits: u32,
        field: &'static str,
    ) -> Result<u64, AsmError> {
        let s = t.text;
        let wide = |value: String| AsmError {
            line,
            column: t.column,
            kind: AsmErrorKind::TooWide { value, bits, field },
        };
        let fits = |v: u64| {
            if bits >= 64 || v < 1u64 << bits {
                Ok(v)
            } else {
                Err(wide(s.to_string()))
            }
        };
        if let Some(a) = register_address(s) {
            return fits(a as u64);
        }
        if let Some(&(_, v)) = MACROS_32.iter().find(|(n, _)| *n == s) {
            return fits(v as u64);
        }
        if MACROS_48.iter().any(|(n, _)| *n == s) {
            return err(
                line,
                t.column,
                AsmErrorKind::Expected(format!("`{s}` alone: it fills all 48 operand bits")),
            );
        }
        if let Some(&(a, _)) = self.labels.get(s) {
            return fits(a as u64);
        }
        let first = s.chars().next().unwrap_or(' ');
        if first.is_ascii_digit() || first == '-' || first == '+' || first == '.' {
            return match parse_number(s, bits) {
                Ok(v) => fits(v),
                Err(NumErr::Wide) => Err(wide(s.to_string())),
                Err(NumErr::FixedRange) => err(line, t.column, AsmErrorKind::FixedRange(s.into())),
                Err(NumErr::Bad) => err(
                    line,
                    t.column,
                    AsmErrorKind::Expected(format!("a number, found `{s}`")),
                ),
            };
        }
        for (prefix, range, count) in [("R", "R1..R12", 12u32), ("C", "C1..C7", 7)] {
            if let Some(n) = s.strip_prefix(prefix).and_then(|d| d.parse::<u32>().ok())
                && (n == 0 || n > count)
            {
                return err(
                    line,
                    t.column,
                    AsmErrorKind::RegisterOutOfRange(s.into(), range),
                );
            }
        }
        if s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            let kind = if field == "jump target" {
                AsmErrorKind::UndefinedLabel(s.into())
            } else {
                AsmErrorKind::UnknownName(s.into())
            };
            return err(line, t.column, kind);
        }
        err(
            line,
            t.column,
            AsmErrorKind::Expected(format!("an operand, found `{s}`")),
        )
    }
}

enum NumErr {
    Bad,
    Wide,
    FixedRange,
}

/// Parses `32'hX`, `N'dX`, `N'bX`, `N'oX`, `0x..`, decimal (raw, two's complement when
/// negative) and fixed-point literals (`1.5`).
fn parse_number(s: &str, bits: u32) -> Result<u64, NumErr> {
    if let Some((width, rest)) = s.split_once('\'') {
        let width: u32 = width.parse().map_err(|_| NumErr::Bad)?;
        let mut chars = rest.chars();
        let radix = match chars.next().map(|c| c.to_ascii_lowercase()) {
            Some('h') => 16,
            Some('d') => 10,
            Some('b') => 2,
            Some('o') => 8,
            _ => return Err(NumErr::Bad),
        };
        let digits: String = chars.as_str().chars().filter(|&c| c != '_').collect();
        let v = u64::from_str_radix(&digits, radix).map_err(|_| NumErr::Bad)?;
        if width == 0 || width > 64 || (width < 64 && v >= 1u64 << width) {
            return Err(NumErr::Wide);
        }
        return Ok(v);
    }
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        return u64::from_str_radix(&h.replace('_', ""), 16).map_err(|_| {
            if h.is_empty() {
                NumErr::Bad
            } else {
                NumErr::Wide
            }
        });
    }
    if s.contains(['.', 'e', 'E']) {
        let v: f64 = s.parse().map_err(|_| NumErr::Bad)?;
        return f64_to_fixed(v).map(|r| r as u64).ok_or(NumErr::FixedRange);
    }
    let v: i128 = s.parse().map_err(|_| NumErr::Bad)?;
    if v < 0 {
        // Two's complement in the field.
        if bits < 64 && v < -(1i128 << (bits - 1)) {
            return Err(NumErr::Wide);
        }
        let mask = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        return Ok((v as i64 as u64) & mask);
    }
    u64::try_from(v).map_err(|_| NumErr::Wide)
}
