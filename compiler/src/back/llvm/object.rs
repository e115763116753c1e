//! The ELF object LLVM emits for a shader, laid out as a [`MachineCode`]: every allocated section
//! (code, constants) placed one after the other at its alignment, the relocations between them
//! resolved (PC-relative ones now, absolute ones recorded for the place the image is mapped),
//! and the calls to C library functions recorded by name. What the image cannot express (a
//! relocation kind tgsic does not handle, a function it does not provide) is an error, never
//! code that runs wrong.

use crate::back::abi::JitError;
use crate::back::code::{MachineCode, Reloc, Symbol, Target};
use object::{
    Object, ObjectSection, ObjectSymbol, RelocationKind, RelocationTarget, SectionIndex,
    SectionKind,
};
use std::collections::HashMap;

/// `jmp qword [rip + 0]`: a stub's jump through the 8-byte address that follows it.
const STUB_JMP: [u8; 6] = [0xff, 0x25, 0, 0, 0, 0];

/// The image of `entry` (a function symbol) and what it reaches in the object `bytes`.
///
/// # Errors
/// [`JitError::Backend`] for an object tgsic cannot lay out.
pub(super) fn image_of(bytes: &[u8], entry: &str) -> Result<MachineCode, JitError> {
    let err = |message: String| JitError::Backend {
        backend: "LLVM",
        stage: "its object file",
        message,
    };
    let file = object::File::parse(bytes).map_err(|e| err(e.to_string()))?;
    // Where each allocated section goes.
    let mut placed: HashMap<SectionIndex, u64> = HashMap::new();
    let mut image: Vec<u8> = Vec::new();
    // The instructions first, so that they end where the constants begin.
    let text_first = file
        .sections()
        .filter(|s| s.kind() == SectionKind::Text)
        .chain(file.sections().filter(|s| s.kind() != SectionKind::Text));
    let mut code_len = 0;
    for s in text_first {
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
        if s.kind() == SectionKind::Text {
            code_len = image.len();
        }
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
    // A PC-relative call to a function of the process (a C library function LLVM calls, as
    // `memset` for a large store) cannot reach it from an image mapped anywhere: it goes to a
    // stub after the image's sections, `jmp [rip + 0]` followed by the function's absolute
    // address, one stub a function.
    let mut stubs: HashMap<Symbol, u32> = HashMap::new();
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
                    let t = match target {
                        Target::Image(t) => t,
                        Target::Symbol(sym) => *stubs.entry(sym).or_insert_with(|| {
                            let at = (image.len() as u64).div_ceil(8) * 8;
                            image.resize(at as usize, 0xcc);
                            image.extend_from_slice(&STUB_JMP);
                            relocs.push(Reloc {
                                offset: (at as usize + STUB_JMP.len()) as u32,
                                target: Target::Symbol(sym),
                                addend: 0,
                            });
                            image.extend_from_slice(&[0; 8]);
                            at as u32
                        }),
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
    if image.len() > u32::MAX as usize {
        return Err(err("the code is larger than 4 GiB".into()));
    }
    let sym = file
        .symbols()
        .find(|s| s.name() == Ok(entry))
        .ok_or_else(|| err(format!("no symbol {entry}")))?;
    let Target::Image(entry) = target_of(RelocationTarget::Symbol(sym.index()))? else {
        return Err(err(format!("{entry} is not in the code")));
    };
    let image = MachineCode {
        bytes: image,
        entry,
        code_len: code_len as u32,
        relocs,
    };
    image.check()?;
    Ok(image)
}

#[cfg(test)]
mod tests {
    use super::*;
    use inkwell::context::Context;
    use inkwell::targets::FileType;

    /// LLVM's call of a C library function (here `memset`, as it emits for large stores)
    /// goes through a stub: the image runs wherever it is mapped and calls the process's
    /// function.
    #[test]
    fn a_call_to_a_process_function_goes_through_a_stub() {
        let cpu = super::super::target::host_cpu(crate::back::options::TargetFeatures::from_env())
            .expect("an x86-64 host LLVM targets");
        let cx = Context::create();
        let module = cx.create_module("stub");
        let ptr = cx.ptr_type(inkwell::AddressSpace::default());
        let i32t = cx.i32_type();
        let i64t = cx.i64_type();
        let memset = module.add_function(
            "memset",
            ptr.fn_type(&[ptr.into(), i32t.into(), i64t.into()], false),
            None,
        );
        let shade =
            module.add_function("shade", cx.void_type().fn_type(&[ptr.into()], false), None);
        let b = cx.create_builder();
        b.position_at_end(cx.append_basic_block(shade, "entry"));
        let p = shade.get_nth_param(0).unwrap();
        let args = [
            p.into(),
            i32t.const_int(7, false).into(),
            i64t.const_int(40, false).into(),
        ];
        b.build_call(memset, &args, "").unwrap();
        b.build_call(memset, &args, "").unwrap();
        b.build_return(None).unwrap();
        let obj = super::super::target::target_machine(cpu)
            .unwrap()
            .write_to_memory_buffer(&module, FileType::Object)
            .unwrap();
        let image = image_of(obj.as_slice(), "shade").unwrap();
        // One stub for both calls, its address an absolute relocation to `memset`.
        let to_memset: Vec<_> = image
            .relocs
            .iter()
            .filter(|r| r.target == Target::Symbol(Symbol::Memset))
            .collect();
        assert_eq!(to_memset.len(), 1, "{:?}", image.relocs);
        let stub = to_memset[0].offset as usize - STUB_JMP.len();
        assert_eq!(image.bytes[stub..stub + STUB_JMP.len()], STUB_JMP);
        let (_code, entry) = image.map(&crate::back::lane_ops::HostFunctions).unwrap();
        let mut buf = [0u8; 48];
        // SAFETY: the generated function only writes 40 bytes through its argument, which
        // points at 48 writable bytes.
        unsafe { entry(buf.as_mut_ptr().cast()) };
        assert_eq!(buf[..40], [7; 40]);
        assert_eq!(buf[40..], [0; 8]);
    }
}
