//! A compiled shader as bytes, and back: its machine code image and what the runtime passes it
//! (uniform reads, texture operations, the texture paths the code samples, the outputs it
//! always writes, immediates, array storage), so that a code cache can store it and another
//! process run it without compiling. Reading checks every length and value: a truncated or
//! inconsistent form is an [`StoredError`], never a shader. (A cache verifies its entries'
//! integrity and keys before this.) Beside it, [`FunctionFacts`]: what running stored code needs
//! of its function, so that a runtime can run it without lifting the program.

use super::abi::StoredError;
use super::abi::{BATCH_LANES, JitError, TextureCall};
use super::code::{MachineCode, Reader, SymbolTable};
use super::compiled::{CodeInfo, CompiledShader};
use super::texpath::TexPaths;
use crate::ir::{MemAccess, MemFile, TexOp};
use crate::tgsi::{ImageFormat, Opcode, TextureTarget};

/// The first bytes of the form, with its version.
const MAGIC: &[u8; 8] = b"TGSICOD4";

/// The most entries of any list of the form: far more than any shader has, far fewer than
/// would exhaust memory.
const MAX_ITEMS: usize = 1 << 24;

impl CompiledShader {
    /// The shader as bytes ([`CompiledShader::from_bytes`] reads them back). The back end's
    /// IR and assembly text are not kept.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let u32s = |out: &mut Vec<u8>, v: u32| out.extend_from_slice(&v.to_le_bytes());
        out.extend_from_slice(MAGIC);
        let image = self.code.to_bytes();
        u32s(&mut out, image.len() as u32);
        out.extend_from_slice(&image);
        u32s(&mut out, self.immediates.len() as u32);
        for &w in &self.immediates {
            u32s(&mut out, w);
        }
        u32s(&mut out, self.array_words as u32);
        u32s(&mut out, self.uniforms.len() as u32);
        for &(b, r, c) in &self.uniforms {
            u32s(&mut out, b);
            u32s(&mut out, r);
            u32s(&mut out, u32::from(c));
        }
        u32s(&mut out, self.textures.len() as u32);
        for t in &self.textures {
            for w in t.op.to_words() {
                u32s(&mut out, w);
            }
            u32s(&mut out, t.args as u32);
        }
        for &w in self.tex_paths.words() {
            u32s(&mut out, w);
        }
        u32s(&mut out, self.memory.len() as u32);
        for m in &self.memory {
            for w in memory_words(m) {
                u32s(&mut out, w);
            }
        }
        u32s(&mut out, self.stored_outputs.len() as u32);
        out.extend(self.stored_outputs.iter().map(|&b| u8::from(b)));
        u32s(&mut out, self.code_size as u32);
        u32s(&mut out, self.stack_bytes as u32);
        u32s(&mut out, self.lanes_per_step as u32);
        out
    }

    /// The shader of [`CompiledShader::to_bytes`]' form, its code mapped into this process.
    ///
    /// # Errors
    /// [`JitError::Stored`] naming what is wrong with a truncated or inconsistent form,
    /// [`JitError::FrameTooLarge`] for a frame past
    /// [`MAX_STACK_BYTES`](super::compiled::MAX_STACK_BYTES), [`JitError::Host`] when the
    /// system refuses executable memory.
    pub fn from_bytes(bytes: &[u8], symbols: &dyn SymbolTable) -> Result<CompiledShader, JitError> {
        read(bytes, symbols)?
    }

    /// Checks that this shader (read back with [`CompiledShader::from_bytes`]) is what
    /// compiling `f` with `opts` gives, in everything the caller sizes memory by: the
    /// immediates and array storage `f` has, and the lanes per step `opts` asks for (reading
    /// checked the form itself: lanes a back end compiles, the frame bound). A stored shader
    /// that fails is not run.
    ///
    /// # Errors
    /// [`JitError::Stored`] naming the first field that does not belong to `f`.
    pub fn check_for(
        &self,
        f: &crate::ir::Function,
        opts: &super::CodegenOptions,
    ) -> Result<(), JitError> {
        self.check_against(&FunctionFacts::of(f), opts)
    }

    /// As [`CompiledShader::check_for`], against the facts of the function (stored beside
    /// the code, so that a runtime checks and runs stored code without lifting the program).
    ///
    /// # Errors
    /// [`JitError::Stored`] naming the first field that does not belong to the function.
    pub fn check_against(
        &self,
        facts: &FunctionFacts,
        opts: &super::CodegenOptions,
    ) -> Result<(), JitError> {
        let bad = |what| Err(JitError::Stored(StoredError(what)));
        if self.immediates != facts.immediates {
            return bad("immediates that are not the function's");
        }
        if self.array_words != facts.array_words {
            return bad("array storage that is not the function's");
        }
        if opts.lanes != 0 && self.lanes_per_step != opts.lanes {
            return bad("lanes per step other than those asked for");
        }
        if self.textures.len() != facts.tex_ops.len()
            || self
                .textures
                .iter()
                .zip(&facts.tex_ops)
                .any(|(t, op)| t.op != *op)
        {
            return bad("texture operations that are not the function's");
        }
        Ok(())
    }
}

/// What running a function's compiled code needs of the function beyond the code: its
/// texture operations in the code's order (which the bound textures choose the code variant
/// by), its input registers, its immediates and its array storage. Stored beside the code in a
/// code cache, it lets a runtime find, check and run a variant without lifting and optimizing
/// the program again; [`FunctionFacts::of`] is the one way to make it from a function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionFacts {
    /// The texture operations, in the code's order ([`super::texpath::texture_ops`]).
    pub tex_ops: Vec<TexOp>,
    /// Input registers per invocation (`Function::input_regs`).
    pub input_regs: u32,
    /// The immediates, four words each, flattened.
    pub immediates: Vec<u32>,
    /// Words of array storage the code addresses.
    pub array_words: usize,
}

/// The first bytes of [`FunctionFacts::to_bytes`]' form, with its version.
const FACTS_MAGIC: &[u8; 8] = b"TGSICFA1";

impl FunctionFacts {
    /// The facts of `f`.
    pub fn of(f: &crate::ir::Function) -> FunctionFacts {
        FunctionFacts {
            tex_ops: super::texpath::texture_ops(f),
            input_regs: f.input_regs,
            immediates: f.immediates.iter().flatten().copied().collect(),
            array_words: super::compiled::array_words(f),
        }
    }

    /// The facts as bytes ([`FunctionFacts::from_bytes`] reads them back).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(32 + 16 * self.tex_ops.len() + 4 * self.immediates.len());
        out.extend_from_slice(FACTS_MAGIC);
        let mut u32s = |v: u32| out.extend_from_slice(&v.to_le_bytes());
        u32s(self.tex_ops.len() as u32);
        for op in &self.tex_ops {
            for w in op.to_words() {
                u32s(w);
            }
        }
        u32s(self.input_regs);
        u32s(self.immediates.len() as u32);
        for &w in &self.immediates {
            u32s(w);
        }
        u32s(self.array_words as u32);
        out
    }

    /// The facts of [`FunctionFacts::to_bytes`]' form.
    ///
    /// # Errors
    /// [`StoredError`] naming what is wrong with a truncated or inconsistent form.
    pub fn from_bytes(bytes: &[u8]) -> Result<FunctionFacts, StoredError> {
        let mut r = Reader(bytes);
        if r.take(FACTS_MAGIC.len())? != FACTS_MAGIC {
            return Err(StoredError("not the facts of a function of this version"));
        }
        let count = |r: &mut Reader<'_>, each: usize| -> Result<usize, StoredError> {
            let n = r.u32()? as usize;
            if n > MAX_ITEMS || n.saturating_mul(each) > r.0.len() {
                return Err(StoredError("a list longer than the bytes"));
            }
            Ok(n)
        };
        let n = count(&mut r, 16)?;
        let mut tex_ops = Vec::with_capacity(n);
        for _ in 0..n {
            let words = [r.u32()?, r.u32()?, r.u32()?, r.u32()?];
            tex_ops.push(TexOp::from_words(words).ok_or(StoredError("not a texture operation"))?);
        }
        let input_regs = r.u32()?;
        let n = count(&mut r, 4)?;
        let immediates = (0..n).map(|_| r.u32()).collect::<Result<Vec<_>, _>>()?;
        if !immediates.len().is_multiple_of(4) {
            return Err(StoredError("immediates that are not whole registers"));
        }
        let array_words = r.u32()? as usize;
        if array_words == 0 || !array_words.is_multiple_of(4 * BATCH_LANES) {
            return Err(StoredError("array storage that is not whole registers"));
        }
        if !r.0.is_empty() {
            return Err(StoredError("bytes after the facts"));
        }
        Ok(FunctionFacts {
            tex_ops,
            input_regs,
            immediates,
            array_words,
        })
    }
}

/// Reads the form: `Err` for a damaged form, `Ok(Err)` when mapping its code failed.
fn read(
    bytes: &[u8],
    symbols: &dyn SymbolTable,
) -> Result<Result<CompiledShader, JitError>, StoredError> {
    let mut r = Reader(bytes);
    if r.take(MAGIC.len())? != MAGIC {
        return Err(StoredError("not a compiled shader of this version"));
    }
    let count = |r: &mut Reader<'_>| -> Result<usize, StoredError> {
        let n = r.u32()? as usize;
        if n > MAX_ITEMS || n > r.0.len() {
            return Err(StoredError("a list longer than the bytes"));
        }
        Ok(n)
    };
    let image_len = r.u32()? as usize;
    let (image, rest) = MachineCode::from_bytes(r.take(image_len)?)?;
    if !rest.is_empty() {
        return Err(StoredError("bytes after the code"));
    }
    let n = count(&mut r)?;
    let immediates = (0..n).map(|_| r.u32()).collect::<Result<Vec<_>, _>>()?;
    let array_words = r.u32()? as usize;
    if array_words == 0 || !array_words.is_multiple_of(4 * BATCH_LANES) {
        return Err(StoredError("array storage that is not whole registers"));
    }
    let n = count(&mut r)?;
    let mut uniforms = Vec::with_capacity(n);
    for _ in 0..n {
        let (b, reg, c) = (r.u32()?, r.u32()?, r.u32()?);
        let c = u8::try_from(c)
            .ok()
            .filter(|&c| c < 4)
            .ok_or(StoredError("a uniform component past w"))?;
        uniforms.push((b, reg, c));
    }
    let n = count(&mut r)?;
    let mut textures = Vec::with_capacity(n);
    for _ in 0..n {
        let words = [r.u32()?, r.u32()?, r.u32()?, r.u32()?];
        let op = TexOp::from_words(words).ok_or(StoredError("not a texture operation"))?;
        let args = r.u32()? as usize;
        textures.push(TextureCall { op, args });
    }
    let mut paths = [0u32; TexPaths::MAX];
    for p in paths.iter_mut() {
        *p = r.u32()?;
    }
    let n = count(&mut r)?;
    let mut memory = Vec::with_capacity(n);
    for _ in 0..n {
        let words = [r.u32()?, r.u32()?, r.u32()?, r.u32()?];
        memory.push(memory_from_words(words).ok_or(StoredError("not a memory operation"))?);
    }
    let n = count(&mut r)?;
    let stored_outputs = r.take(n)?.iter().map(|&b| b != 0).collect();
    let code_size = r.u32()? as usize;
    let stack_bytes = r.u32()? as usize;
    let lanes_per_step = r.u32()? as usize;
    if !matches!(lanes_per_step, 4 | 8 | 16 | 32 | 64) {
        return Err(StoredError("lanes per step no back end compiles"));
    }
    if !r.0.is_empty() {
        return Err(StoredError("bytes after the shader"));
    }
    let info = CodeInfo {
        uniforms,
        textures,
        memory,
        tex_paths: TexPaths::from_words(paths),
        stored_outputs,
        code_size,
        stack_bytes,
        lanes_per_step,
        ir_text: None,
        asm: None,
    };
    Ok(CompiledShader::from_parts(
        image,
        symbols,
        immediates,
        array_words,
        info,
    ))
}

/// A memory operation as four words: opcode, memory, register, then the mask (bit 4: an
/// indirect register), target and format bytes.
fn memory_words(m: &MemAccess) -> [u32; 4] {
    let file = match m.file {
        MemFile::Buffer => 0,
        MemFile::Shared => 1,
        MemFile::Image => 2,
    };
    [
        m.opcode.number() as u32,
        file,
        m.index,
        m.mask as u32 | (m.indirect as u32) << 4 | m.target.bits() << 8 | m.format.bits() << 16,
    ]
}

/// The memory operation of [`memory_words`], if the words are one.
fn memory_from_words([op, file, index, rest]: [u32; 4]) -> Option<MemAccess> {
    let opcode = Opcode::from_number(op).filter(|o| o.is_memory())?;
    let file = match file {
        0 => MemFile::Buffer,
        1 => MemFile::Shared,
        2 => MemFile::Image,
        _ => return None,
    };
    if rest >> 24 != 0 || rest & 0xE0 != 0 {
        return None;
    }
    Some(MemAccess {
        opcode,
        file,
        index,
        mask: (rest & 0xF) as u8,
        target: TextureTarget::from_bits((rest >> 8) & 0xFF)?,
        format: ImageFormat::from_bits(rest >> 16)?,
        indirect: rest & 0x10 != 0,
    })
}

#[cfg(test)]
mod tests {
    use crate::back::compiled::CompiledShader;
    use crate::back::tests_support as ts;
    use crate::back::{Backend, CodegenOptions, compile};

    #[test]
    fn a_shader_read_back_from_bytes_computes_what_it_did() {
        for backend in Backend::ALL.into_iter().filter(|b| b.available()) {
            let f = ts::unary_function(crate::ir::Unary::FSin);
            let c = compile(&f, backend, &CodegenOptions::default()).unwrap();
            let bytes = c.to_bytes();
            let back = CompiledShader::from_bytes(&bytes, crate::back::symbols(backend)).unwrap();
            assert_eq!(back.to_bytes(), bytes, "{backend:?}");
            let xs: Vec<u32> = (0..64).map(|k| (k as f32 * 0.37 - 9.0).to_bits()).collect();
            assert_eq!(
                ts::run_inputs(&back, &xs),
                ts::run_inputs(&c, &xs),
                "{backend:?}"
            );
            // Every truncation, and a flipped byte in the fields after the code, is refused.
            for n in (0..bytes.len()).step_by(7) {
                assert!(
                    CompiledShader::from_bytes(&bytes[..n], crate::back::symbols(backend)).is_err(),
                    "{n} bytes"
                );
            }
            let mut long = bytes.clone();
            long.push(0);
            assert!(CompiledShader::from_bytes(&long, crate::back::symbols(backend)).is_err());
        }
    }

    #[test]
    fn function_facts_round_trip_refuse_damage_and_tell_foreign_code() {
        use super::FunctionFacts;
        let f = crate::opt::optimized_text(
            "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL IN[1], GENERIC[1], PERSPECTIVE\n\
             DCL OUT[0], COLOR\nDCL SAMP[0]\nDCL SVIEW[0], 2D, FLOAT\nDCL TEMP[0]\n\
             IMM[0] FLT32 { 0.5, 2.0, 0.0, 1.0 }\nTEX TEMP[0], IN[1], SAMP[0], 2D\n\
             MAD OUT[0], TEMP[0], IMM[0].xxxx, IN[0]\nEND\n",
        );
        let facts = FunctionFacts::of(&f);
        assert_eq!(facts.input_regs, 2);
        assert_eq!(facts.tex_ops, crate::back::texpath::texture_ops(&f));
        assert_eq!(facts.tex_ops.len(), 1);
        assert_eq!(facts.immediates[..2], [0.5f32.to_bits(), 2.0f32.to_bits()]);
        let bytes = facts.to_bytes();
        assert_eq!(FunctionFacts::from_bytes(&bytes), Ok(facts.clone()));
        for n in 0..bytes.len() {
            assert!(FunctionFacts::from_bytes(&bytes[..n]).is_err(), "{n} bytes");
        }
        let mut long = bytes.clone();
        long.push(0);
        assert!(FunctionFacts::from_bytes(&long).is_err());
        // A count past the bytes is refused before anything is allocated for it.
        let mut huge = bytes.clone();
        huge[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(FunctionFacts::from_bytes(&huge).is_err());
        // Code checks against the facts of its own function only.
        for backend in Backend::ALL.into_iter().filter(|b| b.available()) {
            let opts = CodegenOptions::default();
            let c = compile(&f, backend, &opts).unwrap();
            assert_eq!(c.check_against(&facts, &opts), Ok(()));
            let other_imm = FunctionFacts {
                immediates: vec![0; 4],
                ..facts.clone()
            };
            let no_tex = FunctionFacts {
                tex_ops: Vec::new(),
                ..facts.clone()
            };
            let arrays = FunctionFacts {
                array_words: facts.array_words * 2,
                ..facts.clone()
            };
            for other in [other_imm, no_tex, arrays] {
                assert!(c.check_against(&other, &opts).is_err(), "{backend:?}");
            }
        }
    }
}
