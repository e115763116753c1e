//! Encoding a program as a revision 1.1 token stream.

use super::tokens::{EncodeError, decl_ext, dst_ext, inst_ext, put, src_ext, token_type};
use crate::tgsi::*;
use std::collections::HashSet;

const EXTENDED: u32 = 1 << 31;

/// Encodes `program` as little-endian bytes.
///
/// # Errors
/// See [`encode`].
pub fn encode_bytes(program: &Program) -> Result<Vec<u8>, EncodeError> {
    Ok(encode(program)?
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect())
}

/// Encodes `program` as 32-bit tokens: VERSION (the program's revision, normally 1.1), HEADER,
/// PROCESSOR, then properties, declarations, immediates and instructions.
///
/// An extension token is written only when it carries information, so decoding the result gives
/// back an equal program.
///
/// # Errors
/// [`EncodeError`] when a value does not fit its field (a register index outside 16 bits, more
/// than 255 tokens in one instruction, a label past the last instruction, ...).
pub fn encode(program: &Program) -> Result<Vec<u32>, EncodeError> {
    let mut body = Vec::new();
    for (i, p) in program.properties.iter().enumerate() {
        let what = || format!("property {i}");
        let mut t = vec![token_type::PROPERTY | put(p.name.bits(), 12, 19), p.value];
        sized(&mut t, what).map_err(|e| e.at(program.source_map.properties.get(i)))?;
        body.extend(t);
    }
    for (i, d) in program.declarations.iter().enumerate() {
        body.extend(
            declaration(d, || format!("declaration {i}"))
                .map_err(|e| e.at(program.source_map.declarations.get(i)))?,
        );
    }
    for (i, imm) in program.immediates.iter().enumerate() {
        let mut t = vec![token_type::IMMEDIATE | put(imm.ty.bits(), 12, 15)];
        t.extend(&imm.values);
        sized(&mut t, || format!("immediate {i}"))
            .map_err(|e| e.at(program.source_map.immediates.get(i)))?;
        body.extend(t);
    }
    let n = program.instructions.len();
    let mut targets = HashSet::new();
    for (i, inst) in program.instructions.iter().enumerate() {
        if let Some(t) = inst.label {
            if t as usize >= n {
                return Err(EncodeError {
                    what: format!("instruction {i}"),
                    why: format!(
                        "its label {t} points past the last instruction ({})",
                        n.saturating_sub(1)
                    ),
                    location: program.source_map.instruction(i),
                });
            }
            targets.insert(t as usize);
        }
    }
    for (i, inst) in program.instructions.iter().enumerate() {
        body.extend(
            instruction(inst, targets.contains(&i).then_some(i), i)
                .map_err(|e| e.at(Some(&program.source_map.instruction(i))))?,
        );
    }
    if body.len() >= 1 << 24 {
        return Err(EncodeError {
            what: "the program".into(),
            why: format!("{} body tokens exceed BodySize's 24 bits", body.len()),
            location: Location::Unknown,
        });
    }
    let mut out = Vec::with_capacity(body.len() + 3);
    out.push(program.revision.major as u32 | (program.revision.minor as u32) << 8);
    out.push(2 | (body.len() as u32) << 8);
    out.push(program.processor.bits());
    out.extend(body);
    Ok(out)
}

impl EncodeError {
    /// The error placed at `location` (kept unknown when the item has no recorded place).
    fn at(mut self, location: Option<&Location>) -> EncodeError {
        if let Some(&l) = location {
            self.location = l;
        }
        self
    }
}

/// Sets the Size field of the sized token `t[0]`.
fn sized(t: &mut [u32], what: impl Fn() -> String) -> Result<(), EncodeError> {
    if t.len() > 255 {
        return Err(EncodeError {
            what: what(),
            why: format!("it needs {} tokens, Size holds at most 255", t.len()),
            location: Location::Unknown,
        });
    }
    t[0] |= put(t.len() as u32, 4, 11);
    Ok(())
}

/// Appends `exts` after `head`, setting the Extended bits of the chain.
fn chain(out: &mut Vec<u32>, mut head: u32, exts: &[u32]) {
    if !exts.is_empty() {
        head |= EXTENDED;
    }
    out.push(head);
    for (k, &e) in exts.iter().enumerate() {
        out.push(if k + 1 < exts.len() { e | EXTENDED } else { e });
    }
}

fn fits(v: u64, bits: u32, what: impl Fn() -> String, name: &str) -> Result<u32, EncodeError> {
    if v >= 1u64 << bits {
        return Err(EncodeError {
            what: what(),
            why: format!("{name} {v} does not fit in {bits} bits"),
            location: Location::Unknown,
        });
    }
    Ok(v as u32)
}

fn index16(v: i32, what: &impl Fn() -> String) -> Result<u32, EncodeError> {
    if !(-32768..=32767).contains(&v) {
        return Err(EncodeError {
            what: what(),
            why: format!("register index {v} does not fit in 16 bits"),
            location: Location::Unknown,
        });
    }
    Ok(v as u16 as u32)
}

fn declaration(d: &Declaration, what: impl Fn() -> String) -> Result<Vec<u32>, EncodeError> {
    let mut exts = Vec::new();
    if !d.usage_mask.is_full() || d.local || d.invariant || d.location != InterpLocation::Center {
        exts.push(
            decl_ext::MODIFIERS
                | put(d.usage_mask.0 as u32 & 0xF, 4, 7)
                | put(d.local as u32, 8, 8)
                | put(d.invariant as u32, 9, 9)
                | put(d.location.bits(), 10, 11),
        );
    }
    if let Some(dim) = d.dimension {
        exts.push(decl_ext::DIMENSION | put(fits(dim as u64, 16, &what, "dimension")?, 4, 19));
    }
    if let Some(id) = d.array_id {
        exts.push(decl_ext::ARRAY | put(fits(id as u64, 16, &what, "array id")?, 4, 19));
    }
    if let Some(sv) = d.sampler_view {
        let mut e = decl_ext::SAMPLER_VIEW | put(sv.target.bits(), 4, 11);
        for (c, r) in sv.return_types.iter().enumerate() {
            e |= put(r.bits(), 12 + 3 * c as u32, 14 + 3 * c as u32);
        }
        exts.push(e);
    }
    if let Some(img) = d.image {
        exts.push(
            decl_ext::IMAGE
                | put(img.target.bits(), 4, 11)
                | put(img.format.bits(), 12, 19)
                | put(img.writable as u32, 20, 20)
                | put(img.raw as u32, 21, 21),
        );
    }
    if d.memory.is_some() || d.atomic {
        exts.push(
            decl_ext::MEMORY
                | put(d.memory.is_some() as u32, 4, 4)
                | put(d.memory.map_or(0, MemoryType::bits), 5, 6)
                | put(d.atomic as u32, 7, 7),
        );
    }
    let head = token_type::DECLARATION
        | put(d.file.bits(), 12, 15)
        | put(Declare::Range.bits(), 16, 19)
        | put(d.interpolation.is_some() as u32, 20, 20)
        | put(d.semantic.is_some() as u32, 21, 21);
    let mut t = Vec::new();
    chain(&mut t, head, &exts);
    if d.ranges.is_empty() {
        return Err(EncodeError {
            what: what(),
            why: "it declares no register".into(),
            location: Location::Unknown,
        });
    }
    for r in &d.ranges {
        let first = fits(r.first as u64, 16, &what, "first register")?;
        let last = fits(r.last as u64, 16, &what, "last register")?;
        t.push(first | last << 16);
    }
    if let Some(i) = d.interpolation {
        t.push(i.bits());
    }
    if let Some(s) = d.semantic {
        let mut w = s.name.bits() | put(fits(s.index as u64, 16, &what, "semantic index")?, 8, 23);
        for (c, &st) in s.streams.iter().enumerate() {
            w |= put(
                fits(st as u64, 2, &what, "stream")?,
                24 + 2 * c as u32,
                25 + 2 * c as u32,
            );
        }
        t.push(w);
    }
    sized(&mut t, what)?;
    Ok(t)
}

fn cond_bits(c: &CondTest, what: &impl Fn() -> String) -> Result<(u32, u32), EncodeError> {
    let mut swz = 0;
    for (k, s) in c.swizzle.iter().enumerate() {
        swz |= s.bits() << (2 * k);
    }
    Ok((swz, fits(c.index as u64, 4, what, "condition register")?))
}

fn instruction(
    inst: &Instruction,
    declares: Option<usize>,
    i: usize,
) -> Result<Vec<u32>, EncodeError> {
    let what = || format!("instruction {i} ({})", inst.opcode);
    let mut exts = Vec::new();
    if inst.precision != Precision::Default
        || inst.cond_update.is_some()
        || inst.cond_test.is_some()
    {
        let test = inst.cond_test.unwrap_or(CondTest {
            mask: CondMask::Tr,
            swizzle: Swizzle::XYZW,
            index: 0,
        });
        let (swz, flow_index) = cond_bits(&test, &what)?;
        let dst_index = fits(
            inst.cond_update.unwrap_or(0) as u64,
            4,
            what,
            "condition register",
        )?;
        exts.push(
            inst_ext::NV
                | put(inst.precision.bits(), 4, 7)
                | put(dst_index, 8, 11)
                | put(flow_index, 12, 15)
                | put(test.mask.bits(), 16, 19)
                | put(swz, 20, 27)
                | put(inst.cond_update.is_some() as u32, 28, 28)
                | put(inst.cond_test.is_some() as u32, 29, 29),
        );
    }
    if let Some(idx) = declares {
        let name = fits(idx as u64 + 1, 24, what, "label")?;
        exts.push(inst_ext::LABEL | put(name, 4, 27) | put(1, 28, 28));
    }
    if let Some(t) = inst.label {
        let name = fits(t as u64 + 1, 24, what, "label")?;
        exts.push(inst_ext::LABEL | put(name, 4, 27));
    }
    if let Some(t) = inst.texture {
        exts.push(inst_ext::TEXTURE | put(t.bits(), 4, 11));
    }
    for o in &inst.tex_offsets {
        exts.push(
            inst_ext::TEXOFFSET
                | put(o.file.bits(), 4, 7)
                | put(o.swizzle[0].bits(), 8, 9)
                | put(o.swizzle[1].bits(), 10, 11)
                | put(o.swizzle[2].bits(), 12, 13)
                | put(index16(o.index, &what)?, 14, 29),
        );
    }
    if inst.precise {
        exts.push(inst_ext::FLAGS | put(1, 4, 4));
    }
    if inst.qualifiers.0 != 0 || inst.format != ImageFormat::None {
        let q = fits(inst.qualifiers.0 as u64, 3, what, "memory qualifiers")?;
        exts.push(inst_ext::MEMORY | put(q, 4, 6) | put(inst.format.bits(), 7, 14));
    }
    let info = inst.opcode.info();
    if inst.dst.len() > 3 || inst.src.len() > 15 {
        return Err(EncodeError {
            what: what(),
            why: "too many operands for NumDstRegs/NumSrcRegs".into(),
            location: Location::Unknown,
        });
    }
    let head = token_type::INSTRUCTION
        | put(info.number as u32 & 0xFF, 12, 19)
        | put(info.number as u32 >> 8, 28, 28)
        | put(inst.saturate.bits(), 20, 21)
        | put(inst.dst.len() as u32, 22, 23)
        | put(inst.src.len() as u32, 24, 27);
    let mut t = Vec::new();
    chain(&mut t, head, &exts);
    for d in &inst.dst {
        dst(&mut t, d, &what)?;
    }
    for s in &inst.src {
        src(&mut t, s, &what)?;
    }
    sized(&mut t, what)?;
    Ok(t)
}

fn array_ext(
    ty: u32,
    id: Option<u32>,
    what: &impl Fn() -> String,
) -> Result<Option<u32>, EncodeError> {
    match id {
        Some(id) => Ok(Some(
            ty | put(fits(id as u64, 16, what, "array id")?, 4, 19),
        )),
        None => Ok(None),
    }
}

/// Writes the indirect register and the DIMENSION chain of `reg`.
fn indices(
    out: &mut Vec<u32>,
    reg: &Register,
    what: &impl Fn() -> String,
) -> Result<(), EncodeError> {
    if let Some(ind) = &reg.index.indirect {
        indirect(out, ind, what)?;
    }
    for (k, d) in reg.dimensions.iter().enumerate() {
        out.push(
            put(d.indirect.is_some() as u32, 0, 0)
                | put((k + 1 < reg.dimensions.len()) as u32, 1, 1)
                | put(index16(d.offset, what)?, 15, 30),
        );
        if let Some(ind) = &d.indirect {
            indirect(out, ind, what)?;
        }
    }
    Ok(())
}

fn indirect(
    out: &mut Vec<u32>,
    ind: &Indirect,
    what: &impl Fn() -> String,
) -> Result<(), EncodeError> {
    let mut s = Src::new(ind.register.clone());
    s.swizzle[0] = ExtSwizzle::from(ind.component);
    src(out, &s, what)
}

fn src(out: &mut Vec<u32>, s: &Src, what: &impl Fn() -> String) -> Result<(), EncodeError> {
    let reg = &s.register;
    let ext_swz = s.needs_ext_swizzle();
    let base: [u32; 4] = if ext_swz {
        [0, 1, 2, 3]
    } else {
        s.swizzle.map(|e| e.component().map_or(0, Swizzle::bits))
    };
    let mut exts = Vec::new();
    if ext_swz {
        let mut e = src_ext::SWZ;
        for (c, sel) in s.swizzle.iter().enumerate() {
            e |= put(sel.bits(), 4 + 4 * c as u32, 7 + 4 * c as u32);
        }
        e |= put(s.negate_components as u32 & 0xF, 20, 23) | put(s.divide.bits(), 24, 27);
        exts.push(e);
    }
    if s.has_ext_mod() {
        exts.push(
            src_ext::MOD
                | put(s.complement as u32, 4, 4)
                | put(s.bias as u32, 5, 5)
                | put(s.scale2x as u32, 6, 6)
                | put(s.absolute as u32, 7, 7)
                | put(s.negate_after as u32, 8, 8),
        );
    }
    exts.extend(array_ext(src_ext::ARRAY, reg.array_id, what)?);
    let head = reg.file.bits()
        | put(base[0], 4, 5)
        | put(base[1], 6, 7)
        | put(base[2], 8, 9)
        | put(base[3], 10, 11)
        | put(s.negate as u32, 12, 12)
        | put(reg.index.indirect.is_some() as u32, 13, 13)
        | put(!reg.dimensions.is_empty() as u32, 14, 14)
        | put(index16(reg.index.offset, what)?, 15, 30);
    chain(out, head, &exts);
    indices(out, reg, what)
}

fn dst(out: &mut Vec<u32>, d: &Dst, what: &impl Fn() -> String) -> Result<(), EncodeError> {
    let reg = &d.register;
    let mut exts = Vec::new();
    if let Some(c) = &d.cond {
        let (swz, index) = cond_bits(c, what)?;
        exts.push(
            dst_ext::CONDCODE | put(c.mask.bits(), 4, 7) | put(swz, 8, 15) | put(index, 16, 19),
        );
    }
    if d.modulate != Modulate::X1 {
        exts.push(dst_ext::MODULATE | put(d.modulate.bits(), 4, 7));
    }
    exts.extend(array_ext(dst_ext::ARRAY, reg.array_id, what)?);
    let head = reg.file.bits()
        | put(d.write_mask.0 as u32 & 0xF, 4, 7)
        | put(reg.index.indirect.is_some() as u32, 8, 8)
        | put(!reg.dimensions.is_empty() as u32, 9, 9)
        | put(index16(reg.index.offset, what)?, 10, 25);
    chain(out, head, &exts);
    indices(out, reg, what)
}
