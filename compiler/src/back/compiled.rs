//! Compiled code on top of the calling interface and the image: a [`CompiledShader`] holds
//! the machine code of one function mapped into this process, what the runtime must pass it,
//! and runs it over a batch.

use super::abi::{BATCH_LANES, JitArgs, JitError, TextureCall};
use super::code::{MachineCode, MappedCode, SymbolTable};
use super::texpath::TexPaths;

/// A compiled shader: machine code for one [`Function`](crate::ir::Function), and what the
/// caller must provide. Both JIT back ends produce it; the runtime runs either alike.
pub struct CompiledShader {
    /// Held for its `Drop`, which frees the code.
    _code: MappedCode,
    entry: unsafe extern "C" fn(*mut JitArgs),
    /// The machine code as data, from which it was mapped: what a code cache stores.
    pub code: std::sync::Arc<MachineCode>,
    /// The direct constant reads `(buffer, register, component)` in [`JitArgs::uniforms`] order.
    pub uniforms: Vec<(u32, u32, u8)>,
    /// The texture operations, by the index the callback receives.
    pub textures: Vec<TextureCall>,
    /// The memory operations of a compute program, by the index the memory callback
    /// receives ([`JitArgs::memory`]).
    pub memory: Vec<crate::ir::MemAccess>,
    /// The texture operations the code samples itself, reading their [`JitArgs::tex_descs`].
    pub tex_paths: TexPaths,
    /// By OUT component (`register·4 + component`; past the end, false): whether the code
    /// writes it in every lane of a batch ([`JitArgs::outputs`]).
    pub stored_outputs: Vec<bool>,
    /// The immediates [`JitArgs::immediates`] must point to.
    pub immediates: Vec<u32>,
    /// Words of the arrays buffer [`JitArgs::arrays`] must point to: every array (zeroed
    /// before each batch, as arrays read 0 until written), then one register of
    /// `4 · BATCH_LANES` words where dropped stores go, which the code never reads.
    pub array_words: usize,
    /// Bytes of machine code.
    pub code_size: usize,
    /// Bytes of stack the code's frame takes (0 when the back end does not say). Above
    /// [`INLINE_STACK`], [`CompiledShader::call`] runs the code on a thread with room for it.
    pub stack_bytes: usize,
    /// Lanes per step.
    pub lanes_per_step: usize,
    /// The back end's IR (Cranelift IR, LLVM IR), when asked for.
    pub ir_text: Option<String>,
    /// The disassembled machine code, when asked for.
    pub asm: Option<String>,
}

/// The deepest frame any compiled shader may have: far beyond the frame of any real shader
/// (spill slots of the largest function the JIT compiles, [`MAX_VECTOR_INSTS`](super::abi::MAX_VECTOR_INSTS)), far below
/// what a thread can be given.
pub const MAX_STACK_BYTES: usize = 64 << 20;

/// The deepest frame [`CompiledShader::call`] runs on the calling thread: any thread's stack
/// has this much room (a Rust thread has 2 MiB, a test thread too).
pub const INLINE_STACK: usize = 256 << 10;

// SAFETY: the owner is only touched again by `Drop`, on whichever thread drops the shader;
// the code itself is immutable.
unsafe impl Send for CompiledShader {}
// SAFETY: the entry point reads nothing but its arguments and immutable code, so concurrent
// calls from several threads are fine.
unsafe impl Sync for CompiledShader {}

impl std::fmt::Debug for CompiledShader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledShader")
            .field("code_size", &self.code_size)
            .field("lanes_per_step", &self.lanes_per_step)
            .field("uniforms", &self.uniforms.len())
            .field("textures", &self.textures.len())
            .finish()
    }
}

/// What a back end hands over besides the code.
#[derive(Debug, Clone, Default)]
pub struct CodeInfo {
    /// See [`CompiledShader::uniforms`].
    pub uniforms: Vec<(u32, u32, u8)>,
    /// See [`CompiledShader::textures`].
    pub textures: Vec<TextureCall>,
    /// See [`CompiledShader::memory`].
    pub memory: Vec<crate::ir::MemAccess>,
    /// See [`CompiledShader::tex_paths`].
    pub tex_paths: TexPaths,
    /// See [`CompiledShader::stored_outputs`].
    pub stored_outputs: Vec<bool>,
    /// See [`CompiledShader::code_size`].
    pub code_size: usize,
    /// See [`CompiledShader::stack_bytes`].
    pub stack_bytes: usize,
    /// See [`CompiledShader::lanes_per_step`].
    pub lanes_per_step: usize,
    /// See [`CompiledShader::ir_text`].
    pub ir_text: Option<String>,
    /// See [`CompiledShader::asm`].
    pub asm: Option<String>,
}

impl CompiledShader {
    /// The shader whose machine code is `image`, mapped into this process with the symbol
    /// table of the back end that made it, compiled from `f` with what the back end hands
    /// over besides the code.
    ///
    /// # Errors
    /// As [`MachineCode::map`].
    pub fn from_machine_code(
        image: MachineCode,
        symbols: &dyn SymbolTable,
        f: &crate::ir::Function,
        info: CodeInfo,
    ) -> Result<CompiledShader, JitError> {
        let immediates = f.immediates.iter().flatten().copied().collect();
        CompiledShader::from_parts(image, symbols, immediates, array_words(f), info)
    }

    /// The shader of `image`, mapped into this process, with its immediates and array
    /// storage given as they are (what [`CompiledShader::from_bytes`] reads).
    ///
    /// # Errors
    /// As [`MachineCode::map`].
    pub(crate) fn from_parts(
        image: MachineCode,
        symbols: &dyn SymbolTable,
        immediates: Vec<u32>,
        array_words: usize,
        info: CodeInfo,
    ) -> Result<CompiledShader, JitError> {
        if info.stack_bytes > MAX_STACK_BYTES {
            return Err(JitError::FrameTooLarge {
                bytes: info.stack_bytes,
                limit: MAX_STACK_BYTES,
            });
        }
        let (owner, entry) = image.map(symbols)?;
        Ok(CompiledShader {
            _code: owner,
            entry,
            code: std::sync::Arc::new(image),
            uniforms: info.uniforms,
            textures: info.textures,
            memory: info.memory,
            tex_paths: info.tex_paths,
            stored_outputs: info.stored_outputs,
            immediates,
            array_words,
            code_size: info.code_size,
            stack_bytes: info.stack_bytes,
            lanes_per_step: info.lanes_per_step,
            ir_text: info.ir_text,
            asm: info.asm,
        })
    }

    /// Runs the code over one batch.
    ///
    /// # Safety
    /// Every pointer of `args` must address the storage its documentation describes, sized
    /// for the function this was compiled from (registers up to the function's highest input,
    /// system value, output and array register; `uniforms` as long as [`Self::uniforms`];
    /// `constants` with `num_constants` valid buffers; `tex_descs` with one [`TexDesc`](super::abi::TexDesc) per
    /// entry of [`Self::textures`], which for the first operation of each group of
    /// [`Self::tex_paths`] that shares a unit, a sampler, a target and a path describes its
    /// texture: level 0's `width × height` texels in the path's format, `words` readable words
    /// at `texels` (every level's texels among them), and for a mipmapped
    /// path a level table whose levels all lie in the same buffer, every side at least 1 (a
    /// side that is not a power of two under repeat or mirror reads wrong texels of the level,
    /// never outside it), and the callbacks must be safe to call with `args.callbacks` and entered
    /// through
    /// [`default_fp_trampoline!`](crate::default_fp_trampoline). The code runs under DAZ/FTZ,
    /// set and restored around it ([`super::fpenv::call_with_ftz`]).
    ///
    /// A frame deeper than [`INLINE_STACK`] (a function past the single-pass threshold of the
    /// Cranelift back end) runs on a thread of its own with room for it, while the caller
    /// waits.
    ///
    /// # Errors
    /// [`JitError::Host`] when that thread cannot be started (the code did not run).
    pub unsafe fn call(&self, args: &mut JitArgs) -> Result<(), JitError> {
        // SAFETY: captured on this thread just now; the caller vouches for the rest.
        unsafe { self.call_in(&super::fpenv::FpEnv::capture(), args) }
    }

    /// As [`Self::call`], with the floating-point environments captured before
    /// ([`super::fpenv::call_in`]): a caller that runs many batches captures them once.
    ///
    /// # Safety
    /// As [`Self::call`], and `env` was captured on the calling thread with the MXCSR
    /// unchanged since.
    ///
    /// # Errors
    /// As [`Self::call`].
    pub unsafe fn call_in(
        &self,
        env: &super::fpenv::FpEnv,
        args: &mut JitArgs,
    ) -> Result<(), JitError> {
        // SAFETY: the caller upholds `call_in`'s contract, which is the inner call's.
        unsafe { self.call_maybe_here(env, args, false) }
    }

    /// As [`Self::call_in`], on the calling stack whatever the frame takes: for a caller on a
    /// stack it made with room for [`Self::stack_bytes`] (a compute batch's coroutine).
    ///
    /// # Safety
    /// As [`Self::call_in`], and the calling stack has `stack_bytes` plus the callbacks'
    /// room (1 MiB) free.
    ///
    /// # Errors
    /// As [`Self::call`].
    pub unsafe fn call_here_in(
        &self,
        env: &super::fpenv::FpEnv,
        args: &mut JitArgs,
    ) -> Result<(), JitError> {
        // SAFETY: the caller upholds `call_here_in`'s contract: the inner call's, and room
        // on its stack for a call made on it.
        unsafe { self.call_maybe_here(env, args, true) }
    }

    /// [`Self::call_in`] (`here`: never on a thread of its own).
    ///
    /// # Safety
    /// As [`Self::call_in`]; with `here`, as [`Self::call_here_in`].
    unsafe fn call_maybe_here(
        &self,
        env: &super::fpenv::FpEnv,
        args: &mut JitArgs,
        here: bool,
    ) -> Result<(), JitError> {
        if here || self.stack_bytes <= INLINE_STACK {
            // SAFETY: the caller upholds this function's contract, which is the code's; its
            // frame fits the calling thread's stack (or the caller's, `here`), and `env` is
            // the thread's.
            unsafe { super::fpenv::call_in(env, self.entry, args) };
            return Ok(());
        }
        /// The call, moved to the deep thread (the caller waits, so nothing is shared).
        struct Deep(unsafe extern "C" fn(*mut JitArgs), *mut JitArgs);
        // SAFETY: the caller blocks until the thread is joined, so the arguments and
        // everything they point to are used by one thread at a time.
        unsafe impl Send for Deep {}
        let deep = Deep(self.entry, args);
        let stack = self.stack_bytes + (1 << 20);
        std::thread::scope(|s| {
            let thread = std::thread::Builder::new()
                .name("tgsic-deep-shader".into())
                .stack_size(stack)
                .spawn_scoped(s, move || {
                    let d = deep;
                    // SAFETY: as for the call on the calling thread; the caller vouches.
                    unsafe { super::fpenv::call_with_ftz(d.0, d.1) }
                })
                .map_err(|e| {
                    JitError::Host(format!(
                        "cannot start a thread with {stack} bytes of stack: {e}"
                    ))
                })?;
            thread
                .join()
                .map_err(|_| JitError::Panicked("the generated code's thread".into()))
        })
    }
}

/// Words of the arrays buffer `f`'s code addresses ([`CompiledShader::array_words`]): every
/// array, then the register dropped stores go to.
pub(super) fn array_words(f: &crate::ir::Function) -> usize {
    (f.arrays.iter().map(|a| a.len as usize).sum::<usize>() + 1) * 4 * BATCH_LANES
}
