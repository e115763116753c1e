//! The ELF object LLVM emits for a shader, laid out as a [`CodeImage`]: every allocated section
//! (code, constants) placed one after the other at its alignment, the relocations between them
//! resolved (PC-relative ones now, absolute ones recorded for the place the image is mapped),
//! and the calls to C library functions recorded by name. What the image cannot express (a
//! relocation kind tgsic does not handle, a function it does not provide) is an error, never
//! code that runs wrong.

use crate::back::abi::JitError;
use crate::back::image::{CodeImage, Reloc, Symbol, Target};
use object::{
    Object, ObjectSection, ObjectSymbol, RelocationKind, RelocationTarget, SectionIndex,
    SectionKind,
};
use std::collections::HashMap;

/// The image of `entry` (a function symbol) and what it reaches in the object `bytes`.
///
/// # Errors
/// [`JitError::Codegen`] for an object tgsic cannot lay out.
pub(super) fn image_of(bytes: &[u8], entry: &str) -> Result<CodeImage, JitError> {
    let err = |m: String| JitError::Codegen(format!("LLVM's object: {m}"));
    let file = object::File::parse(bytes).map_err(|e| err(e.to_string()))?;
    // Where each allocated section goes.
    let mut placed: HashMap<SectionIndex, u64> = HashMap::new();
    let mut image: Vec<u8> = Vec::new();
    for s in file.sections() {
        let loaded = matches!(
            s.kind(),
            SectionKind::Text
                | SectionKind::Data
                | SectionKind::ReadOnlyData
                | SectionKind::ReadOnlyDataWithRel
                | SectionKind::ReadOnlyString
                | SectionKind::UninitializedData
        );
        if !loaded || s.size() == 0 {
            continue;
        }
        let align = s.align().max(1);
        let at = (image.len() as u64).div_ceil(align) * align;
        image.resize(at as usize, 0);
        match s.kind() {
            SectionKind::UninitializedData => {
                image.resize((at + s.size()) as usize, 0);
            }
            _ => {
                let data = s.data().map_err(|e| err(e.to_string()))?;
                image.extend_from_slice(data);
                image.resize((at + s.size()) as usize, 0);
            }
        }
        placed.insert(s.index(), at);
    }
    if image.len() > u32::MAX as usize {
        return Err(err("the code is larger than 4 GiB".into()));
    }
    // The image offset of a symbol defined in a placed section, or the C function it names.
    let target_of = |t: RelocationTarget| -> Result<Target, JitError> {
        match t {
            RelocationTarget::Section(i) => placed
                .get(&i)
                .map(|&o| Target::Image(o as u32))
                .ok_or_else(|| err(format!("a relocation against unplaced section {}", i.0))),
            RelocationTarget::Symbol(i) => {
                let sym = file.symbol_by_index(i).map_err(|e| err(e.to_string()))?;
                match sym.section_index() {
                    Some(sec) => {
                        let base = placed.get(&sec).ok_or_else(|| {
                            err(format!("a symbol in unplaced section {}", sec.0))
                        })?;
                        Ok(Target::Image((base + sym.address()) as u32))
                    }
                    None => {
                        let name = sym.name().unwrap_or("?");
                        Symbol::from_name(name).map(Target::Symbol).ok_or_else(|| {
                            err(format!(
                                "the code calls {name}, which tgsic does not provide"
                            ))
                        })
                    }
                }
            }
            other => Err(err(format!("a relocation against {other:?}"))),
        }
    };
    let mut relocs = Vec::new();
    for s in file.sections() {
        let Some(&base) = placed.get(&s.index()) else {
            continue;
        };
        for (offset, r) in s.relocations() {
            let place = base + offset;
            if r.has_implicit_addend() {
                return Err(err("a relocation with an implicit addend".into()));
            }
            let target = target_of(r.target())?;
            match (r.kind(), r.size()) {
                (RelocationKind::Absolute, 64) => relocs.push(Reloc {
                    offset: place as u32,
                    target,
                    addend: r.addend(),
                }),
                (RelocationKind::Relative | RelocationKind::PltRelative, 32) => {
                    let Target::Image(t) = target else {
                        return Err(err("a PC-relative call out of the code".into()));
                    };
                    let value = i64::from(t) + r.addend() - place as i64;
                    let value = i32::try_from(value)
                        .map_err(|_| err("a PC-relative relocation out of range".into()))?;
                    let at = place as usize;
                    let slot = image
                        .get_mut(at..at + 4)
                        .ok_or_else(|| err("a relocation past its section".into()))?;
                    slot.copy_from_slice(&value.to_le_bytes());
                }
                (kind, size) => {
                    return Err(err(format!("relocation {kind:?} of {size} bits")));
                }
            }
        }
    }
    let sym = file
        .symbols()
        .find(|s| s.name() == Ok(entry))
        .ok_or_else(|| err(format!("no symbol {entry}")))?;
    let Target::Image(entry) = target_of(RelocationTarget::Symbol(sym.index()))? else {
        return Err(err(format!("{entry} is not in the code")));
    };
    let image = CodeImage {
        bytes: image,
        entry,
        relocs,
    };
    image.check()?;
    Ok(image)
}
