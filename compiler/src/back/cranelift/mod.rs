//! The Cranelift back end: native SIMD code from the optimized IR, the default JIT.
//!
//! The lowering is the shared one ([`simd`]): this module declares the function
//! and what it calls, implements [`SimdBuilder`](super::simd::SimdBuilder) over Cranelift's
//! function builder (`builder.rs`: a step of [`CodegenOptions::lanes`] lanes is `lanes / 4`
//! F32X4/I32X4 registers per value), and finishes the code: ISA settings, the register
//! allocator for the function's size, the image of the code (with absolute addresses of the
//! libm stand-ins Cranelift calls where the CPU lacks an instruction).
//!
//! `compile` returns a [`CompiledShader`] whose machine code is an image
//! ([`MachineCode`](super::code::MachineCode)) mapped into executable memory (freed on drop); it
//! may be called from many threads at once.

mod builder;
mod codegen;
mod doubles;
pub(crate) mod helpers;
mod lanes;
pub(crate) mod target;
mod types;

pub(super) use codegen::isa_id;
pub use codegen::{SINGLE_PASS_INSTS, SINGLE_PASS_LOOP_DEPTH};
use codegen::{allocator_for, image_of, isa, user_names};

use super::simd;
use crate::ir::Function;
use cranelift_codegen::Context;
use cranelift_codegen::ir::{self as cl, AbiParam};
use cranelift_codegen::isa::TargetIsa;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};

use super::abi::JitError;
use super::compiled::{CodeInfo, CompiledShader};
use super::options::CodegenOptions;

/// Compiles `f` (the one entry point is [`super::compile`]).
pub(super) fn compile(f: &Function, opts: &CodegenOptions) -> Result<CompiledShader, JitError> {
    let text = opts.keep_text;
    if !target::LANES.contains(&opts.lanes) {
        return Err(JitError::Lanes {
            backend: "Cranelift",
            lanes: opts.lanes,
            takes: "0, 4, 8, 16 or 32",
        });
    }
    let f = &*crate::opt::math::for_math(f, opts.math, crate::back::simd::host_fma());
    let opts = &CodegenOptions {
        lanes: match opts.lanes {
            0 => crate::back::simd::step_lanes(f, target::WIDTH, target::REGISTERS, target::STEPS),
            n => n,
        },
        ..*opts
    };
    let insts = f.body.inst_count();
    crate::back::abi::check_size(insts, opts.lanes)?;
    let isa = isa(
        opts.verify,
        allocator_for(f, insts),
        codegen::multiplies_64bit_lanes(f),
    )?;
    let mut ctx = Context::new();
    ctx.func.signature = cl::Signature::new(isa.default_call_conv());
    ctx.func
        .signature
        .params
        .push(AbiParam::new(isa.pointer_type()));
    if text {
        ctx.set_disasm(true);
    }
    let mut fctx = FunctionBuilderContext::new();
    // A bug in the lowering must not take the host down: Cranelift panics on some invalid IR.
    let lowered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        lower(f, opts, &*isa, &mut ctx.func, &mut fctx)
    }))
    .map_err(|_| JitError::Panicked("the lowering".into()))??;
    let clif = text.then(|| ctx.func.display().to_string());
    let (image, code_size, stack_bytes, asm) =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let names = user_names(&ctx.func);
            let c = ctx
                .compile(&*isa, &mut Default::default())
                .map_err(|e| JitError::Backend {
                    backend: "Cranelift",
                    stage: "code generation",
                    message: format!("{:?}", e.inner),
                })?;
            // The frame below the frame pointer: spill slots, the explicit slot, saved
            // registers.
            let stack = c
                .buffer
                .frame_layout()
                .map_or(0, |l| l.frame_to_fp_offset as usize);
            let size = c.code_info().total_size as usize;
            Ok::<_, JitError>((image_of(c, &names)?, size, stack, c.vcode.clone()))
        }))
        .map_err(|_| JitError::Panicked("Cranelift".into()))??;
    let info = CodeInfo {
        uniforms: lowered.uniforms,
        textures: lowered.textures,
        memory: lowered.memory,
        tex_paths: lowered.tex_paths,
        stored_outputs: lowered.stored_outputs,
        code_size,
        stack_bytes,
        lanes_per_step: opts.lanes,
        ir_text: clif,
        asm: if text { asm } else { None },
    };
    CompiledShader::from_machine_code(image, &helpers::Symbols, f, info)
}

/// Declares what the code calls, builds the function through [`simd::lower`] and finishes it.
fn lower(
    f: &Function,
    opts: &CodegenOptions,
    isa: &dyn TargetIsa,
    func: &mut cl::Function,
    fctx: &mut FunctionBuilderContext,
) -> Result<simd::Lowered, JitError> {
    let callees = types::Callees::declare(isa, func);
    let mut b = FunctionBuilder::new(func, fctx);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let args = b.block_params(entry)[0];
    let builder = types::ClBuilder::new(b, opts.lanes / 4, args, callees);
    let (cb, lowered) = simd::lower(f, builder, opts.textures, opts.math)?;
    let mut b = cb.b;
    b.seal_all_blocks();
    b.finalize(isa.frontend_config());
    Ok(lowered)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::back::abi::MathMode;
    use crate::back::tests_support as ts;
    use crate::back::texpath::TexPaths;

    #[test]
    fn exact_transcendentals_in_vector_code_match_the_interpreter() {
        // Every 4099th input (a million) at each step width; all 2³² in release mode:
        // `cargo test -p tgsic --release cranelift::tests::exact_transcendentals -- --ignored`.
        for lanes in [0, 4, 8, 32] {
            ts::check_exact_transcendentals(&cranelift(lanes), 4099);
        }
    }

    #[test]
    fn accurate_sin_and_cos_match_their_reference() {
        for lanes in [0, 4, 8] {
            ts::check_accurate_sincos(&cranelift(lanes), 4099);
        }
    }

    #[test]
    #[ignore = "every f32: run in release mode"]
    fn accurate_sin_and_cos_exhaustive() {
        ts::check_accurate_sincos(&cranelift(0), 1);
    }

    #[test]
    fn exact_pow_in_vector_code_matches_the_interpreter() {
        for lanes in [0, 8] {
            ts::check_exact_pow(&cranelift(lanes), 1_048_573);
        }
    }

    #[test]
    #[ignore = "every f32: run in release mode"]
    fn exact_transcendentals_exhaustive() {
        ts::check_exact_transcendentals(&cranelift(0), 1);
    }

    #[test]
    #[ignore = "320 million pairs: run in release mode"]
    fn exact_pow_dense() {
        ts::check_exact_pow(&cranelift(0), 4099);
    }

    /// `OUT[0].x` = SIN applied `n` times to `IN[0].x`.
    fn sin_chain(n: usize) -> Function {
        use crate::ir::{Op, Stmt, Type, Unary};
        let mut f = ts::unary_function(Unary::FSin);
        let (Stmt::Inst(x), Stmt::Inst(y)) = (f.body.0[0].clone(), f.body.0[1].clone()) else {
            unreachable!("unary_function's body is three instructions")
        };
        let mut body = vec![Stmt::Inst(x), Stmt::Inst(y)];
        let mut v = f.insts[y].results[0];
        for _ in 1..n {
            let i = f.new_inst(Op::Unary(Unary::FSin), vec![v], &[Type::F32], None);
            v = f.insts[i].results[0];
            body.push(Stmt::Inst(i));
        }
        let s = f.new_inst(Op::StoreOutput { slot: 0, comp: 0 }, vec![v], &[], None);
        body.push(Stmt::Inst(s));
        f.body.0 = body;
        f
    }

    #[test]
    fn exact_functions_are_called_not_copied_and_survive_the_byte_form() {
        use crate::back::code::{Symbol, Target};
        use crate::ir::{Unary, semantics as sem};
        let (one, eight) = (sin_chain(1), sin_chain(8));
        for lanes in [4, 16] {
            let c = cranelift(lanes);
            let (a, b) = (
                c(&one, MathMode::Exact).unwrap(),
                c(&eight, MathMode::Exact).unwrap(),
            );
            // Each SIN is a call per register (the function itself some 1,700 bytes).
            let per_sin = (b.code_size - a.code_size) / 7;
            assert!(
                per_sin < 64 * lanes / 4,
                "{per_sin} bytes a SIN at {lanes} lanes"
            );
            assert!(
                b.code
                    .relocs
                    .iter()
                    .any(|r| r.target == Target::Symbol(Symbol::ExactSinCos))
            );
            // Stored and mapped again, the image calls this process's function anew.
            let again = CompiledShader::from_bytes(&b.to_bytes(), &helpers::Symbols).unwrap();
            let xs: Vec<u32> = (0..4096u32)
                .map(|i| i.wrapping_mul(0x9e37_79b9))
                .chain([0, 0x8000_0000, 0x7f80_0000, 0x7fc0_0000, 0x4300_0000])
                .collect();
            let want: Vec<u32> = xs
                .iter()
                .map(|&x| (0..8).fold(x, |y, _| sem::unary(Unary::FSin, y)))
                .collect();
            assert_eq!(ts::run_inputs(&b, &xs), want, "{lanes} lanes");
            assert_eq!(
                ts::run_inputs(&again, &xs),
                want,
                "{lanes} lanes, mapped again"
            );
        }
    }

    fn cranelift(lanes: usize) -> impl Fn(&Function, MathMode) -> Result<CompiledShader, JitError> {
        move |f, math| {
            compile(
                f,
                &CodegenOptions {
                    math,
                    lanes,
                    textures: TexPaths::ALL,
                    verify: true,
                    keep_text: false,
                    ..CodegenOptions::default()
                },
            )
        }
    }

    #[test]
    fn a_loop_stops_at_its_budget() {
        ts::check_loop_budget(&cranelift(4));
    }

    #[test]
    fn divergent_loops_keep_per_lane_counts() {
        ts::check_divergent_loops(&cranelift(8));
    }

    #[test]
    fn constant_operands_keep_the_denormal_rules() {
        ts::check_constant_operands(&cranelift(8));
    }

    #[test]
    fn negated_fma_operands_keep_their_bits() {
        ts::check_negated_fma(&cranelift(8));
    }

    #[test]
    fn division_by_constants_matches_the_interpreter() {
        for lanes in [4, 8] {
            ts::check_division_by_constants(&cranelift(lanes));
        }
    }

    #[test]
    fn f2u_matches_the_interpreter_on_every_exponent() {
        for lanes in [4, 8] {
            ts::check_f2u_every_exponent(&cranelift(lanes));
        }
    }

    #[test]
    fn every_operation_matches_the_interpreters_numerics() {
        ts::check_every_operation(&cranelift(8));
    }

    /// The high words of 32 × 32-bit products (a variable right shift) are `pmuludq`s on
    /// every host; `vpmullq` only multiplies 64-bit lanes, where the host has AVX-512DQ.
    #[test]
    fn high_words_of_products_are_pmuludq_and_only_64_bit_products_vpmullq() {
        let asm = |text: &str| {
            let f = crate::opt::optimized_text(text);
            let opts = CodegenOptions {
                keep_text: true,
                ..CodegenOptions::default()
            };
            compile(&f, &opts).unwrap().asm.unwrap()
        };
        let shift = asm(
            "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
             F2U TEMP[0], IN[0]\nUSHR TEMP[0], TEMP[0], TEMP[0].yxwz\nU2F OUT[0], TEMP[0]\nEND\n",
        );
        assert!(shift.contains("pmuludq"), "{shift}");
        assert!(!shift.contains("vpmullq"), "{shift}");
        let product = asm(
            "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0..1]\n\
             F2U TEMP[0], IN[0]\nU64MUL TEMP[1].xy, TEMP[0].xyxy, TEMP[0].zwzw\n\
             U2F OUT[0], TEMP[1]\nEND\n",
        );
        let dq = std::arch::is_x86_feature_detected!("avx512dq")
            && std::arch::is_x86_feature_detected!("avx512vl");
        assert_eq!(product.contains("vpmullq"), dq, "{product}");
    }

    #[test]
    fn text_and_code_size_are_reported() {
        let f = ts::unary_function(crate::ir::Unary::FSqrt);
        let text = CodegenOptions {
            keep_text: true,
            ..CodegenOptions::default()
        };
        let c = compile(&f, &text).unwrap();
        let ir = c.ir_text.as_deref().unwrap();
        assert!(ir.contains("sqrt"), "{ir}");
        assert!(c.asm.as_deref().unwrap().contains("sqrtps"));
        assert!(c.code_size > 0);
        // Straight-line code: one register a value; a small loop: two.
        assert_eq!(c.lanes_per_step, 4);
        let looping = ts::endless_loop_function();
        let c = compile(&looping, &CodegenOptions::default()).unwrap();
        assert_eq!(c.lanes_per_step, 8);
    }
}
