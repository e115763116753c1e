//! The floating-point environment of generated code.
//!
//! Generated code computes with the MXCSR's DAZ and FTZ bits set, as softpipe's threads do
//! (`docs/semantics.md`). Rust assumes the default environment everywhere, and changing it
//! while Rust code runs is undefined behaviour, so the bits are set only where no Rust code
//! runs:
//!
//! - [`call_with_ftz`] sets them, calls the generated function and restores the caller's
//!   MXCSR, all inside one assembly block;
//! - every function the generated code calls back into (texture lookups, EMIT, host
//!   operations, C library stand-ins) is entered through a trampoline made by
//!   [`default_fp_trampoline!`](crate::default_fp_trampoline), which clears the two bits
//!   before the Rust function starts and sets them again after it returns.
//!
//! Rust code that needs the engines' arithmetic computes it in software
//! ([`crate::numerics`]).

use super::abi::JitArgs;

/// The two MXCSR values of a thread that calls generated code: Rust's (as read when captured)
/// and the generated code's (the same with DAZ and FTZ set). Capturing them once and calling
/// many batches with [`call_in`] saves the read of the MXCSR per call, which is most of the
/// cost of switching (`stmxcsr` waits for the pipeline on the hosts measured).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FpEnv {
    /// The generated code's MXCSR, then Rust's: read in place by [`call_in`] (a copy made
    /// just before each call would make `ldmxcsr` wait for the store).
    words: [u32; 2],
}

impl FpEnv {
    /// The environments of code that keeps denormals (compute programs, which softpipe runs
    /// without FTZ): the caller's MXCSR with DAZ and FTZ cleared for the code, then the
    /// caller's again.
    pub fn capture_ieee() -> FpEnv {
        let rust = crate::numerics::get_mxcsr();
        FpEnv {
            words: [
                rust & !(crate::numerics::MXCSR_DAZ | crate::numerics::MXCSR_FTZ),
                rust,
            ],
        }
    }

    /// The calling thread's environment now, and the generated code's made from it.
    pub fn capture() -> FpEnv {
        let rust = crate::numerics::get_mxcsr();
        FpEnv {
            words: [
                rust | crate::numerics::MXCSR_DAZ | crate::numerics::MXCSR_FTZ,
                rust,
            ],
        }
    }
}

/// Calls the generated function `entry` with `args` under DAZ/FTZ, restoring the caller's MXCSR
/// before returning.
///
/// # Safety
/// `entry` must be a function generated for the `JitArgs` calling convention, and `args` must
/// satisfy its requirements ([`super::compiled::CompiledShader::call`]). Every function it calls
/// back must be entered through a [`default_fp_trampoline!`](crate::default_fp_trampoline)
/// and must not unwind.
pub unsafe fn call_with_ftz(entry: unsafe extern "C" fn(*mut JitArgs), args: *mut JitArgs) {
    // SAFETY: captured on this thread just now; the caller vouches for the rest.
    unsafe { call_in(&FpEnv::capture(), entry, args) }
}

/// As [`call_with_ftz`], with the environments captured before: the MXCSR is set to
/// `env`'s generated-code value for the call and to its Rust value after it.
///
/// # Safety
/// As [`call_with_ftz`], and `env` must have been captured on the calling thread with the
/// MXCSR unchanged since (Rust code does not change it; the callbacks restore it).
#[cfg(target_arch = "x86_64")]
pub unsafe fn call_in(env: &FpEnv, entry: unsafe extern "C" fn(*mut JitArgs), args: *mut JitArgs) {
    // SAFETY: the block loads the generated code's MXCSR, calls `entry` with the C ABI (its
    // clobbers declared; the stack pointer is 16-byte aligned at an asm block), and loads the
    // caller's MXCSR (env's, which the caller vouches is the current one) before it ends, so
    // no Rust code runs under DAZ/FTZ; the caller vouches for `entry`, `args` and the
    // callbacks.
    unsafe {
        std::arch::asm!(
            "ldmxcsr [r12]",
            "call {func}",
            "ldmxcsr [r12 + 4]",
            // r12 survives the call (callee-saved), unlike the registers `reg` may choose.
            in("r12") env.words.as_ptr(),
            func = in(reg) entry,
            in("rdi") args,
            clobber_abi("C"),
        );
    }
}

/// As on x86-64, without a floating-point environment to set.
///
/// # Safety
/// As on x86-64.
// No code runs here: `back::compile` refuses every host but x86-64.
#[cfg(not(target_arch = "x86_64"))]
pub unsafe fn call_in(_env: &FpEnv, entry: unsafe extern "C" fn(*mut JitArgs), args: *mut JitArgs) {
    unsafe { entry(args) }
}

/// Defines `pub unsafe extern "C" fn $name` with the C signature given, which is `$target`'s:
/// it clears the MXCSR's DAZ and FTZ bits, calls `$target` with the same arguments (up to six
/// in integer registers, any in vector registers, and one on the stack), sets the saved MXCSR
/// again and returns `$target`'s result. Generated code calls `$name`, never `$target`.
#[macro_export]
macro_rules! default_fp_trampoline {
    ($(#[$m:meta])* $name:ident => $target:path, ($($arg:ident: $ty:ty),*) $(-> $ret:ty)?) => {
        $(#[$m])*
        ///
        /// # Safety
        /// As the function it enters.
        #[cfg(target_arch = "x86_64")]
        #[unsafe(naked)]
        pub unsafe extern "C" fn $name($($arg: $ty),*) $(-> $ret)? {
            // On entry the stack holds the return address, then the seventh argument. The
            // frame of 24 bytes keeps the callee's stack 16-byte aligned and passes the
            // seventh argument at the callee's [rsp + 8] again.
            core::arch::naked_asm!(
                "sub rsp, 24",
                "stmxcsr [rsp + 16]",
                "mov eax, [rsp + 16]",
                "and eax, 0xFFFF7FBF",
                "mov [rsp + 20], eax",
                "ldmxcsr [rsp + 20]",
                "mov rax, [rsp + 32]",
                "mov [rsp], rax",
                "call {target}",
                "ldmxcsr [rsp + 16]",
                "add rsp, 24",
                "ret",
                target = sym $target,
            )
        }

        $(#[$m])*
        ///
        /// # Safety
        /// As the function it enters.
        #[cfg(not(target_arch = "x86_64"))]
        pub unsafe extern "C" fn $name($($arg: $ty),*) $(-> $ret)? {
            unsafe { $target($($arg),*) }
        }
    };
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use crate::numerics::{MXCSR_DAZ, MXCSR_FTZ, get_mxcsr};
    use std::sync::atomic::{AtomicU32, Ordering};

    static SEEN_IN_RUST: AtomicU32 = AtomicU32::new(0);
    static mut RESULT: u32 = 0;
    static mut AFTER_CALLBACK: u32 = 0;

    /// A callback of seven arguments, the last on the stack, as the texture callback.
    extern "C" fn probe(a: u64, b: u64, c: u64, d: u64, e: u64, f: u64, g: u32) -> u32 {
        SEEN_IN_RUST.store(get_mxcsr(), Ordering::SeqCst);
        (a + 10 * b + 100 * c + 1000 * d + 10_000 * e + 100_000 * f) as u32 + 1_000_000 * g
    }

    crate::default_fp_trampoline!(probe_entered => probe, (a: u64, b: u64, c: u64, d: u64, e: u64, f: u64, g: u32) -> u32);

    /// Stands in for generated code: calls the callback through its trampoline with seven
    /// arguments, then records the result and the MXCSR it sees afterwards.
    #[unsafe(naked)]
    unsafe extern "C" fn fake_generated(_args: *mut JitArgs) {
        core::arch::naked_asm!(
            "sub rsp, 24",
            "mov qword ptr [rsp], 7",
            "mov edi, 1",
            "mov esi, 2",
            "mov edx, 3",
            "mov ecx, 4",
            "mov r8d, 5",
            "mov r9d, 6",
            "call {t}",
            "mov dword ptr [rip + {r}], eax",
            "stmxcsr [rip + {after}]",
            "add rsp, 24",
            "ret",
            t = sym probe_entered,
            r = sym RESULT,
            after = sym AFTER_CALLBACK,
        )
    }

    #[test]
    fn generated_code_runs_under_ftz_and_callbacks_in_the_default_environment() {
        let before = get_mxcsr();
        assert_eq!(
            before & (MXCSR_DAZ | MXCSR_FTZ),
            0,
            "Rust's default environment"
        );
        // SAFETY: the stand-in reads nothing from its argument and calls back only through a
        // trampoline.
        unsafe { call_with_ftz(fake_generated, std::ptr::null_mut()) };
        let both = MXCSR_DAZ | MXCSR_FTZ;
        assert_eq!(
            SEEN_IN_RUST.load(Ordering::SeqCst) & both,
            0,
            "Rust ran with DAZ/FTZ"
        );
        // SAFETY: written once by the stand-in above, read after it returned.
        let (result, after) = unsafe { (RESULT, AFTER_CALLBACK) };
        assert_eq!(
            result, 7_654_321,
            "all seven arguments reached the callback"
        );
        assert_eq!(
            after & both,
            both,
            "the generated code continues under DAZ/FTZ"
        );
        assert_eq!(get_mxcsr(), before, "the caller's MXCSR is restored");
    }
}
