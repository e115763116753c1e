//! What turns Cranelift's output into tgsic's code, shared by shaders and exact mode's
//! helpers: the ISA and its settings, the register allocator for a function's size, and the
//! image of compiled code.

use super::types::{from_name, symbol_of};
use crate::back::abi::JitError;
use crate::back::abi::LayoutError;
use crate::back::code::{MachineCode, Reloc, Symbol, Target};
use crate::ir::Function;
use cranelift_codegen::binemit::Reloc as ClReloc;
use cranelift_codegen::ir::{self as cl, ExternalName, LibCall};
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::{CompiledCode, FinalizedRelocTarget};
use std::sync::OnceLock;

/// Cranelift's register allocators (its `regalloc_algorithm` setting).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Allocator {
    /// regalloc2's backtracking allocator: the better code, in time that grows faster than
    /// the function (n^1.3 in length, about depth^3 in loop nesting).
    Backtracking = 0,
    /// regalloc2's single-pass allocator: linear time, more spills, a deeper frame.
    SinglePass = 1,
}

/// Functions of more IR instructions than this (after optimization; past every real shader of
/// the corpora) take the single-pass allocator, whose time is linear in the function.
pub const SINGLE_PASS_INSTS: usize = 16_384;
/// Loop nests deeper than this take the single-pass allocator (real shaders nest 1 to 4).
pub const SINGLE_PASS_LOOP_DEPTH: u32 = 16;

/// The allocator for `f` of `insts` IR instructions: backtracking, unless `f` is so long or its loops so deeply nested
/// that the backtracking allocator's time would grow faster than the program
/// (docs/jit.md, "Compile time and size bounds").
pub(super) fn allocator_for(f: &Function, insts: usize) -> Allocator {
    if insts > SINGLE_PASS_INSTS || f.body.loop_depth() > SINGLE_PASS_LOOP_DEPTH {
        Allocator::SinglePass
    } else {
        Allocator::Backtracking
    }
}

/// Whether `f` multiplies 64-bit integer lanes: only then does Cranelift's code take
/// AVX-512DQ's `vpmullq` ([`isa`]).
pub(super) fn multiplies_64bit_lanes(f: &Function) -> bool {
    f.insts
        .iter()
        .any(|(_, i)| matches!(i.op, crate::ir::Op::W64(crate::ir::Op64::QMul)))
}

/// The ISA a function is compiled for: the host's, with the IR verifier when `verify`, with
/// `allocator`, and with AVX-512DQ only for a function that multiplies 64-bit integer lanes
/// (`dq`). Cranelift lowers every 64-bit lane product to `vpmullq` where the host has
/// AVX-512DQ, including the 32 × 32 → 64-bit products of the high words (`lanes.rs`,
/// `mul_high`: variable shifts, divisions by constants), which without it are one `pmuludq`
/// of the even lanes; `vpmullq` is three micro-ops of 15 cycles' latency on Intel's cores, so
/// `pmuludq` is the form every host gets for them (`results/side-by-side.md`, 2026-12-06).
pub(super) fn isa(
    verify: bool,
    allocator: Allocator,
    dq: bool,
) -> Result<OwnedTargetIsa, JitError> {
    // Each made when a compile first asks for it (eight kinds; a process uses one or two).
    static ISA: [OnceLock<Result<OwnedTargetIsa, JitError>>; 8] = [const { OnceLock::new() }; 8];
    let make = |verify: bool, allocator: Allocator, dq: bool| -> Result<OwnedTargetIsa, JitError> {
        if !cfg!(target_arch = "x86_64") {
            return Err(JitError::Host("the JIT generates x86-64 code".into()));
        }
        #[cfg(target_arch = "x86_64")]
        if !std::arch::is_x86_feature_detected!("sse4.1") {
            return Err(JitError::Host("the CPU lacks SSE4.1".into()));
        }
        let mut fb = settings::builder();
        let set = |fb: &mut settings::Builder, k: &str, v: &str| {
            fb.set(k, v)
                .map_err(|e| JitError::Host(format!("{k}={v}: {e}")))
        };
        // The IR arrives optimized and constants are already hoisted; Cranelift's own
        // optimizer (`speed`) measured slower to compile and no faster to run
        // (`results/history/jit-2026-11-30.md`).
        set(&mut fb, "opt_level", "none")?;
        set(&mut fb, "is_pic", "false")?;
        // A frame larger than a page touches each page in turn, so that it can never reach
        // past the stack's guard page into other memory.
        set(&mut fb, "enable_probestack", "true")?;
        set(
            &mut fb,
            "regalloc_algorithm",
            match allocator {
                Allocator::Backtracking => "backtracking",
                Allocator::SinglePass => "single_pass",
            },
        )?;
        set(&mut fb, "probestack_strategy", "inline")?;
        set(
            &mut fb,
            "enable_verifier",
            if verify { "true" } else { "false" },
        )?;
        let mut builder = cranelift_native::builder().map_err(|e| JitError::Host(e.to_string()))?;
        if !dq {
            builder
                .set("has_avx512dq", "false")
                .map_err(|e| JitError::Host(format!("has_avx512dq=false: {e}")))?;
        }
        builder
            .finish(settings::Flags::new(fb))
            .map_err(|e| JitError::Host(e.to_string()))
    };
    let slot = &ISA[4 * verify as usize + 2 * allocator as usize + dq as usize];
    slot.get_or_init(|| make(verify, allocator, dq)).clone()
}

/// The ISA Cranelift generates code for on this host: every shared and ISA-specific setting
/// (the CPU features it detected among them).
pub(in crate::back) fn isa_id() -> Result<String, JitError> {
    let isa = isa(false, Allocator::Backtracking, true)?;
    let mut id = isa.triple().to_string();
    for v in isa.flags().iter().chain(isa.isa_flags()) {
        id.push(' ');
        id.push_str(&v.to_string());
    }
    Ok(id)
}

/// The image of a compiled function: its bytes (code and constants), and an absolute address
/// for each call Cranelift makes to a C library stand-in (where the CPU lacks an instruction)
/// and to an exact mode function (`helpers.rs`; the function's user `names` resolve theirs).
pub(super) fn image_of(
    compiled: &CompiledCode,
    names: &[cl::UserExternalName],
) -> Result<MachineCode, JitError> {
    let relocs = compiled
        .buffer
        .relocs()
        .iter()
        .map(|r| {
            let target = match (&r.kind, &r.target) {
                (ClReloc::Abs8, FinalizedRelocTarget::ExternalName(ExternalName::LibCall(l))) => {
                    Target::Symbol(match l {
                        LibCall::FloorF32 => Symbol::Floorf,
                        LibCall::CeilF32 => Symbol::Ceilf,
                        LibCall::TruncF32 => Symbol::Truncf,
                        LibCall::NearestF32 => Symbol::Nearbyintf,
                        LibCall::FmaF32 => Symbol::Fmaf,
                        LibCall::Memset => Symbol::Memset,
                        LibCall::Memcpy => Symbol::Memcpy,
                        LibCall::Memmove => Symbol::Memmove,
                        other => {
                            return Err(JitError::Unresolved {
                                symbol: other.to_string(),
                                table: "tgsic",
                            });
                        }
                    })
                }
                (ClReloc::Abs8, FinalizedRelocTarget::ExternalName(ExternalName::User(r))) => {
                    let name = names
                        .get(cranelift_codegen::entity::EntityRef::index(*r))
                        .ok_or_else(|| JitError::Unresolved {
                            symbol: "an undeclared function".into(),
                            table: "the function's declarations",
                        })?;
                    let f = from_name(name).ok_or_else(|| JitError::Unresolved {
                        symbol: name.to_string(),
                        table: "tgsic",
                    })?;
                    Target::Symbol(symbol_of(f))
                }
                (ClReloc::Abs8, FinalizedRelocTarget::Func(offset)) => Target::Image(*offset),
                (kind, target) => {
                    return Err(LayoutError::RelocationKind(format!(
                        "{kind:?} to {target:?} (Cranelift's)"
                    ))
                    .into());
                }
            };
            Ok(Reloc {
                offset: r.offset,
                target,
                addend: r.addend,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let bytes = compiled.code_buffer().to_vec();
    Ok(MachineCode {
        code_len: bytes.len() as u32,
        bytes,
        entry: 0,
        relocs,
    })
}

/// The user-named functions `func` declares, by their references' indices.
pub(super) fn user_names(func: &cl::Function) -> Vec<cl::UserExternalName> {
    func.params.user_named_funcs().values().cloned().collect()
}
