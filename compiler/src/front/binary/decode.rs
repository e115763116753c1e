//! Decoding a revision 1.1 token stream.

mod operand;

use super::tokens::{
    DecodeError, DecodeErrorKind as K, decl_ext, dst_ext, field, inst_ext, sext16, src_ext,
    token_type,
};
use crate::tgsi::*;
use std::collections::HashMap;

/// A token the decoder skipped by the rules of the token format's §1.1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeWarning {
    /// 0-based word index.
    pub token: u32,
    /// What was skipped and why.
    pub message: String,
}

/// A decoded program and what was skipped while reading it.
#[derive(Debug, Clone)]
pub struct Decoded {
    /// The program.
    pub program: Program,
    /// Unknown tokens that were skipped.
    pub warnings: Vec<DecodeWarning>,
}

/// Decodes little-endian bytes.
///
/// # Errors
/// [`DecodeError`] naming the word and field, for any malformed stream (`docs/binary-format.md`).
pub fn decode_bytes(bytes: &[u8]) -> Result<Decoded, DecodeError> {
    if !bytes.len().is_multiple_of(4) {
        return Err(DecodeError {
            token: (bytes.len() / 4) as u32,
            field: "stream",
            kind: K::PartialWord(bytes.len()),
        });
    }
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    decode(&words)
}

/// Decodes a stream of 32-bit tokens.
///
/// Unknown token types and unknown extension tokens are skipped (reported in
/// [`Decoded::warnings`]); a higher minor version loads with its [`Revision`] kept, which marks it
/// not executable.
///
/// # Errors
/// [`DecodeError`] naming the word and field: a major version other than 1, a truncated stream,
/// sizes pointing outside the stream, unknown register files, opcodes or enumerated values,
/// operand counts that do not match the opcode, non-zero padding, unresolvable labels.
pub fn decode(words: &[u32]) -> Result<Decoded, DecodeError> {
    let mut d = Decoder {
        words,
        warnings: Vec::new(),
    };
    let program = d.program()?;
    Ok(Decoded {
        program,
        warnings: d.warnings,
    })
}

fn err<T>(token: usize, field: &'static str, kind: K) -> Result<T, DecodeError> {
    Err(DecodeError {
        token: token as u32,
        field,
        kind,
    })
}

/// Checks that `value` is zero (a padding field).
fn padding(w: u32, lo: u32, hi: u32, token: usize) -> Result<(), DecodeError> {
    let v = field(w, lo, hi);
    if v != 0 {
        return err(token, "Padding", K::NonZeroPadding(v));
    }
    Ok(())
}

fn enum_value<T>(
    v: Option<T>,
    raw: u32,
    token: usize,
    field: &'static str,
) -> Result<T, DecodeError> {
    match v {
        Some(t) => Ok(t),
        None => err(
            token,
            field,
            K::UnknownValue {
                what: field,
                value: raw,
            },
        ),
    }
}

fn file_value(raw: u32, token: usize) -> Result<File, DecodeError> {
    if let Some(f) = File::from_bits(raw) {
        return Ok(f);
    }
    if let Some((name, _, _)) = crate::tgsi::UNSUPPORTED_FILES
        .iter()
        .find(|(_, v, _)| *v == raw)
    {
        return err(token, "File", K::UnsupportedFile { name, value: raw });
    }
    err(
        token,
        "File",
        K::UnknownValue {
            what: "register file",
            value: raw,
        },
    )
}

fn swizzle2(w: u32, lo: u32) -> Swizzle {
    // A 2-bit field always names a component.
    Swizzle::from_bits(field(w, lo, lo + 1)).unwrap_or(Swizzle::X)
}

/// A LABEL extension token: (word index, label name, declares a label rather than jumping).
type LabelToken = (usize, u32, bool);

struct Decoder<'a> {
    words: &'a [u32],
    warnings: Vec<DecodeWarning>,
}

/// A cursor over the tokens of one sized token (`pos..end`).
struct Cursor {
    pos: usize,
    end: usize,
}

impl Cursor {
    fn next(&mut self, words: &[u32], what: &'static str) -> Result<(usize, u32), DecodeError> {
        if self.pos >= self.end {
            let kind = if self.end >= words.len() {
                K::Truncated(what)
            } else {
                K::OutOfStream(format!("the token's Size ends before {what}"))
            };
            return err(self.pos, what, kind);
        }
        let i = self.pos;
        self.pos += 1;
        Ok((i, words[i]))
    }
}

impl Decoder<'_> {
    fn warn(&mut self, token: usize, message: String) {
        self.warnings.push(DecodeWarning {
            token: token as u32,
            message,
        });
    }

    fn program(&mut self) -> Result<Program, DecodeError> {
        let words = self.words;
        let Some(&version) = words.first() else {
            return err(0, "VERSION", K::Truncated("the VERSION token"));
        };
        let major = field(version, 0, 7);
        let minor = field(version, 8, 15);
        if major != 1 {
            return err(0, "MajorVersion", K::UnsupportedVersion(major));
        }
        padding(version, 16, 31, 0)?;
        let Some(&header) = words.get(1) else {
            return err(1, "HEADER", K::Truncated("the HEADER token"));
        };
        let header_size = field(header, 0, 7) as usize;
        let body_size = field(header, 8, 31) as usize;
        if header_size == 0 {
            return err(
                1,
                "HeaderSize",
                K::Invalid("HeaderSize 0 leaves no room for the PROCESSOR token".into()),
            );
        }
        if header_size == 1 {
            return err(
                1,
                "HeaderSize",
                K::Invalid("HeaderSize 1: no PROCESSOR token, but a processor is required".into()),
            );
        }
        let body_start = 1 + header_size;
        if body_start > words.len() {
            return err(
                1,
                "HeaderSize",
                K::OutOfStream(format!(
                    "HeaderSize {header_size} points past the end of the stream ({} words)",
                    words.len()
                )),
            );
        }
        let processor_word = words[2];
        let processor = enum_value(
            Processor::from_bits(field(processor_word, 0, 3)),
            field(processor_word, 0, 3),
            2,
            "Processor",
        )?;
        padding(processor_word, 4, 31, 2)?;
        for i in 3..body_start {
            self.warn(i, "unknown header token skipped".into());
        }
        let body_end = body_start + body_size;
        if body_end > words.len() {
            return err(
                1,
                "BodySize",
                K::OutOfStream(format!(
                    "BodySize {body_size} points past the end of the stream ({} words after the header)",
                    words.len() - body_start
                )),
            );
        }
        if body_end < words.len() {
            return err(
                body_end,
                "BodySize",
                K::Invalid(format!(
                    "{} word(s) follow the body that BodySize {body_size} announces",
                    words.len() - body_end
                )),
            );
        }

        let mut program = Program::new(processor);
        program.revision = Revision {
            major: major as u8,
            minor: minor as u8,
        };
        // Labels: declared name -> instruction index; jumps to resolve afterwards.
        let mut label_targets: HashMap<u32, (usize, usize)> = HashMap::new();
        let mut jumps: Vec<(usize, u32, usize)> = Vec::new();

        let mut pos = body_start;
        while pos < body_end {
            let w = words[pos];
            let ty = field(w, 0, 3);
            let size = field(w, 4, 11) as usize;
            if size == 0 {
                return err(
                    pos,
                    "Size",
                    K::Invalid("Size 0: a sized token counts itself".into()),
                );
            }
            if pos + size > body_end {
                return err(
                    pos,
                    "Size",
                    K::OutOfStream(format!(
                        "Size {size} points past the end of the body ({} word(s) left)",
                        body_end - pos
                    )),
                );
            }
            let mut cur = Cursor {
                pos: pos + 1,
                end: pos + size,
            };
            match ty {
                token_type::DECLARATION => {
                    let decl = self.declaration(w, pos, &mut cur)?;
                    program.declarations.push(decl);
                    program
                        .source_map
                        .declarations
                        .push(Location::Token { index: pos as u32 });
                }
                token_type::IMMEDIATE => {
                    let imm = self.immediate(w, pos, &mut cur)?;
                    program.immediates.push(imm);
                    program
                        .source_map
                        .immediates
                        .push(Location::Token { index: pos as u32 });
                }
                token_type::INSTRUCTION => {
                    let index = program.instructions.len();
                    let mut loc = InstLocation {
                        at: Location::Token { index: pos as u32 },
                        ..Default::default()
                    };
                    let (inst, labels) = self.instruction(w, pos, &mut cur, &mut loc)?;
                    for (tok, name, target) in labels {
                        if target {
                            if name == 0 {
                                continue;
                            }
                            if let Some((prev, _)) = label_targets.insert(name, (index, tok)) {
                                return err(
                                    tok,
                                    "Label",
                                    K::Invalid(format!(
                                        "label {name} is declared twice (instructions {prev} and {index})"
                                    )),
                                );
                            }
                        } else {
                            jumps.push((index, name, tok));
                        }
                    }
                    program.instructions.push(inst);
                    program.source_map.instructions.push(loc);
                }
                token_type::PROPERTY => {
                    let prop = self.property(w, pos, &mut cur)?;
                    program.properties.push(prop);
                    program
                        .source_map
                        .properties
                        .push(Location::Token { index: pos as u32 });
                }
                _ => {
                    self.warn(
                        pos,
                        format!("unknown token type {ty} skipped ({size} word(s))"),
                    );
                    cur.pos = cur.end;
                }
            }
            if cur.pos < cur.end {
                self.warn(
                    cur.pos,
                    format!(
                        "{} unused word(s) inside the token's Size skipped",
                        cur.end - cur.pos
                    ),
                );
            }
            pos += size;
        }

        for (inst, name, tok) in jumps {
            if !program.instructions[inst].opcode.has_target_label() {
                // Structured control flow: labels are read and not trusted (`docs/binary-format.md`).
                continue;
            }
            match label_targets.get(&name) {
                Some(&(target, _)) => program.instructions[inst].label = Some(target as u32),
                None => {
                    return err(
                        tok,
                        "Label",
                        K::Invalid(format!(
                            "{} jumps to label {name}, which no instruction declares",
                            program.instructions[inst].opcode
                        )),
                    );
                }
            }
        }
        Ok(program)
    }

    /// Reads the simple extension tokens that follow a token whose Extended bit is set.
    fn ext_chain(
        &mut self,
        first: u32,
        cur: &mut Cursor,
        what: &'static str,
    ) -> Result<Vec<(usize, u32)>, DecodeError> {
        let mut out = Vec::new();
        let mut extended = first >> 31 != 0;
        while extended {
            let (i, w) = cur.next(self.words, what)?;
            out.push((i, w));
            extended = w >> 31 != 0;
        }
        Ok(out)
    }

    fn declaration(
        &mut self,
        w: u32,
        pos: usize,
        cur: &mut Cursor,
    ) -> Result<Declaration, DecodeError> {
        let file = file_value(field(w, 12, 15), pos)?;
        let declare = enum_value(
            Declare::from_bits(field(w, 16, 19)),
            field(w, 16, 19),
            pos,
            "Declare",
        )?;
        let has_interp = field(w, 20, 20) != 0;
        let has_semantic = field(w, 21, 21) != 0;
        padding(w, 22, 30, pos)?;
        let mut decl = Declaration::new(file, 0, 0);
        decl.ranges.clear();

        for (i, e) in self.ext_chain(w, cur, "a DECLARATION extension token")? {
            match field(e, 0, 3) {
                decl_ext::MODIFIERS => {
                    decl.usage_mask = WriteMask(field(e, 4, 7) as u8);
                    decl.local = field(e, 8, 8) != 0;
                    decl.invariant = field(e, 9, 9) != 0;
                    decl.location = enum_value(
                        InterpLocation::from_bits(field(e, 10, 11)),
                        field(e, 10, 11),
                        i,
                        "Location",
                    )?;
                    padding(e, 12, 30, i)?;
                }
                decl_ext::DIMENSION => {
                    decl.dimension = Some(field(e, 4, 19));
                    padding(e, 20, 30, i)?;
                }
                decl_ext::ARRAY => {
                    let id = field(e, 4, 19);
                    decl.array_id = (id != 0).then_some(id);
                    padding(e, 20, 30, i)?;
                }
                decl_ext::SAMPLER_VIEW => {
                    let target = enum_value(
                        TextureTarget::from_bits(field(e, 4, 11)),
                        field(e, 4, 11),
                        i,
                        "Resource",
                    )?;
                    let mut rt = [ReturnType::Float; 4];
                    for (c, r) in rt.iter_mut().enumerate() {
                        let lo = 12 + 3 * c as u32;
                        *r = enum_value(
                            ReturnType::from_bits(field(e, lo, lo + 2)),
                            field(e, lo, lo + 2),
                            i,
                            "ReturnType",
                        )?;
                    }
                    padding(e, 24, 30, i)?;
                    decl.sampler_view = Some(SamplerViewDecl {
                        target,
                        return_types: rt,
                    });
                }
                decl_ext::IMAGE => {
                    let target = enum_value(
                        TextureTarget::from_bits(field(e, 4, 11)),
                        field(e, 4, 11),
                        i,
                        "Resource",
                    )?;
                    let format = enum_value(
                        ImageFormat::from_bits(field(e, 12, 19)),
                        field(e, 12, 19),
                        i,
                        "Format",
                    )?;
                    decl.image = Some(ImageDecl {
                        target,
                        format,
                        writable: field(e, 20, 20) != 0,
                        raw: field(e, 21, 21) != 0,
                    });
                    padding(e, 22, 30, i)?;
                }
                decl_ext::MEMORY => {
                    if field(e, 4, 4) != 0 {
                        decl.memory = Some(enum_value(
                            MemoryType::from_bits(field(e, 5, 6)),
                            field(e, 5, 6),
                            i,
                            "MemType",
                        )?);
                    } else if field(e, 5, 6) != 0 {
                        return err(i, "MemType", K::NonZeroPadding(field(e, 5, 6)));
                    }
                    decl.atomic = field(e, 7, 7) != 0;
                    padding(e, 8, 30, i)?;
                }
                t => self.warn(i, format!("unknown DECLARATION extension type {t} skipped")),
            }
        }

        let trailing = has_interp as usize + has_semantic as usize;
        let available = cur.end - cur.pos;
        match declare {
            Declare::Mask => {
                let (i, m) = cur.next(self.words, "the DECLARATION_MASK token")?;
                if m == 0 {
                    return err(
                        i,
                        "Mask",
                        K::Invalid("DECLARATION_MASK declares no register".into()),
                    );
                }
                let mut r = 0u32;
                while r < 32 {
                    if m & (1 << r) != 0 {
                        let first = r;
                        while r < 32 && m & (1 << r) != 0 {
                            r += 1;
                        }
                        decl.ranges.push(RegRange::new(first, r - 1));
                    } else {
                        r += 1;
                    }
                }
            }
            Declare::Range => {
                let ranges = available.saturating_sub(trailing);
                if ranges == 0 {
                    return err(
                        pos,
                        "Size",
                        K::Invalid(
                            "the DECLARATION's Size leaves no room for a DECLARATION_RANGE token"
                                .into(),
                        ),
                    );
                }
                for _ in 0..ranges {
                    let (_, r) = cur.next(self.words, "a DECLARATION_RANGE token")?;
                    decl.ranges
                        .push(RegRange::new(field(r, 0, 15), field(r, 16, 31)));
                }
            }
        }
        if has_interp {
            let (i, t) = cur.next(self.words, "the DECLARATION_INTERPOLATION token")?;
            decl.interpolation = Some(enum_value(
                Interpolation::from_bits(field(t, 0, 3)),
                field(t, 0, 3),
                i,
                "Interpolate",
            )?);
            padding(t, 4, 31, i)?;
        }
        if has_semantic {
            let (i, t) = cur.next(self.words, "the DECLARATION_SEMANTIC token")?;
            let name = enum_value(
                Semantic::from_bits(field(t, 0, 7)),
                field(t, 0, 7),
                i,
                "SemanticName",
            )?;
            let mut streams = [0u8; 4];
            for (c, s) in streams.iter_mut().enumerate() {
                *s = field(t, 24 + 2 * c as u32, 25 + 2 * c as u32) as u8;
            }
            decl.semantic = Some(SemanticDecl {
                name,
                index: field(t, 8, 23),
                streams,
            });
        }
        Ok(decl)
    }

    fn immediate(
        &mut self,
        w: u32,
        pos: usize,
        cur: &mut Cursor,
    ) -> Result<Immediate, DecodeError> {
        let raw = field(w, 12, 15);
        let ty = match ImmediateType::from_bits(raw) {
            Some(t) => t,
            None => {
                return err(
                    pos,
                    "DataType",
                    K::UnknownValue {
                        what: "immediate data type",
                        value: raw,
                    },
                );
            }
        };
        padding(w, 16, 30, pos)?;
        for (i, e) in self.ext_chain(w, cur, "an IMMEDIATE extension token")? {
            self.warn(
                i,
                format!(
                    "unknown IMMEDIATE extension type {} skipped",
                    field(e, 0, 3)
                ),
            );
        }
        let values = self.words[cur.pos..cur.end].to_vec();
        cur.pos = cur.end;
        Ok(Immediate { ty, values })
    }

    fn property(&mut self, w: u32, pos: usize, cur: &mut Cursor) -> Result<Property, DecodeError> {
        let raw = field(w, 12, 19);
        let name = enum_value(PropertyName::from_bits(raw), raw, pos, "PropertyName")?;
        padding(w, 20, 30, pos)?;
        for (i, e) in self.ext_chain(w, cur, "a PROPERTY extension token")? {
            self.warn(
                i,
                format!("unknown PROPERTY extension type {} skipped", field(e, 0, 3)),
            );
        }
        let (_, value) = cur.next(self.words, "the PROPERTY value")?;
        Ok(Property { name, value })
    }

    /// Decodes an instruction; also returns its LABEL tokens as (token, name, is_target).
    fn instruction(
        &mut self,
        w: u32,
        pos: usize,
        cur: &mut Cursor,
        loc: &mut InstLocation,
    ) -> Result<(Instruction, Vec<LabelToken>), DecodeError> {
        // Bit 28, padding in the seed's layout, is the Opcode field's ninth bit.
        let raw_op = field(w, 12, 19) | field(w, 28, 28) << 8;
        let Some(opcode) = Opcode::from_number(raw_op) else {
            return err(pos, "Opcode", K::UnsupportedOpcode(raw_op));
        };
        let sat_raw = field(w, 20, 21);
        let saturate = enum_value(Saturate::from_bits(sat_raw), sat_raw, pos, "Saturate")?;
        let num_dst = field(w, 22, 23);
        let num_src = field(w, 24, 27);
        padding(w, 29, 30, pos)?;
        let info = opcode.info();
        if num_dst != info.num_dst as u32
            || num_src < info.num_src.0 as u32
            || num_src > info.num_src.1 as u32
        {
            let (lo, hi) = info.num_src;
            let srcs = if lo == hi {
                format!("{lo} source(s)")
            } else {
                format!("{lo} to {hi} sources")
            };
            return err(
                pos,
                "NumSrcRegs",
                K::OperandCount {
                    opcode: info.name,
                    expected: format!("{} destination(s) and {srcs}", info.num_dst),
                    dst: num_dst,
                    src: num_src,
                },
            );
        }
        let mut inst = Instruction::new(opcode, Vec::new(), Vec::new());
        inst.saturate = saturate;
        let mut labels = Vec::new();
        for (i, e) in self.ext_chain(w, cur, "an INSTRUCTION extension token")? {
            match field(e, 0, 3) {
                inst_ext::NV => {
                    let p = field(e, 4, 7);
                    inst.precision = enum_value(Precision::from_bits(p), p, i, "Precision")?;
                    let cond_dst_index = field(e, 8, 11) as u8;
                    let test = CondTest {
                        index: field(e, 12, 15) as u8,
                        mask: enum_value(
                            CondMask::from_bits(field(e, 16, 19)),
                            field(e, 16, 19),
                            i,
                            "CondMask",
                        )?,
                        swizzle: [
                            swizzle2(e, 20),
                            swizzle2(e, 22),
                            swizzle2(e, 24),
                            swizzle2(e, 26),
                        ],
                    };
                    if field(e, 28, 28) != 0 {
                        inst.cond_update = Some(cond_dst_index);
                    }
                    if field(e, 29, 29) != 0 && !test.is_default() {
                        inst.cond_test = Some(test);
                    }
                    padding(e, 30, 30, i)?;
                }
                inst_ext::LABEL => {
                    let name = field(e, 4, 27);
                    let target = field(e, 28, 28) != 0;
                    padding(e, 29, 30, i)?;
                    if !target && name == 0 {
                        return err(
                            i,
                            "Label",
                            K::Invalid("a jump to label 0, which is reserved".into()),
                        );
                    }
                    if labels.iter().any(|&(_, _, t)| t == target) {
                        return err(
                            i,
                            "Label",
                            K::Invalid(format!(
                                "a second LABEL token {} on one instruction",
                                if target {
                                    "declaring a label"
                                } else {
                                    "naming a jump"
                                }
                            )),
                        );
                    }
                    labels.push((i, name, target));
                }
                inst_ext::TEXTURE => {
                    let t = field(e, 4, 11);
                    inst.texture = Some(enum_value(TextureTarget::from_bits(t), t, i, "Texture")?);
                    padding(e, 12, 30, i)?;
                }
                inst_ext::TEXOFFSET => {
                    let file = file_value(field(e, 4, 7), i)?;
                    inst.tex_offsets.push(TexOffset {
                        file,
                        swizzle: [swizzle2(e, 8), swizzle2(e, 10), swizzle2(e, 12)],
                        index: sext16(field(e, 14, 29)),
                    });
                    padding(e, 30, 30, i)?;
                }
                inst_ext::FLAGS => {
                    inst.precise = field(e, 4, 4) != 0;
                    padding(e, 5, 30, i)?;
                }
                inst_ext::MEMORY => {
                    inst.qualifiers = MemoryQualifiers(field(e, 4, 6) as u8);
                    inst.format = enum_value(
                        ImageFormat::from_bits(field(e, 7, 14)),
                        field(e, 7, 14),
                        i,
                        "Format",
                    )?;
                    padding(e, 15, 30, i)?;
                }
                t => self.warn(i, format!("unknown INSTRUCTION extension type {t} skipped")),
            }
        }
        if inst.texture == Some(TextureTarget::Unknown) {
            inst.texture = None;
        }
        for _ in 0..num_dst {
            loc.dst.push(Location::Token {
                index: cur.pos as u32,
            });
            let d = self.dst(cur)?;
            inst.dst.push(d);
        }
        for _ in 0..num_src {
            loc.src.push(Location::Token {
                index: cur.pos as u32,
            });
            let s = self.src(cur, "a SRC_REGISTER token")?;
            inst.src.push(s);
        }
        Ok((inst, labels))
    }
}
