//! The LLVM back end (cargo feature `llvm`): native code through LLVM 19, with vectors as wide
//! as the host allows: an order of magnitude slower to compile than Cranelift, faster code
//! (`docs/jit.md`; the runs in `results/`).
//!
//! - **One vector per value.** A step shades [`CodegenOptions::lanes`] invocations: every IR value
//!   is one `<lanes x float>` or `<lanes x i32>` (booleans `<lanes x i1>`). The default is the
//!   host's widest vector (`<16 x float>` with AVX-512, `<8 x float>` with AVX2, `<4 x float>`
//!   otherwise), detected at run time; wider steps are split by LLVM into several registers
//!   (faster for loop-heavy shaders, slower to compile). The generated function loops over the
//!   [`BATCH_LANES`](super::abi::BATCH_LANES) lanes of a batch.
//! - **The host CPU on every function.** LLVM emits generic SSE2 code unless each function
//!   names the CPU and its features (`target-cpu`, `target-features`), so every function does,
//!   and a short pass pipeline (`PASSES`: the IR comes optimized already) runs with a target
//!   machine for the same CPU.
//! - **The shared lowering** ([`simd`]), through this back end's
//!   [`SimdBuilder`](super::simd::SimdBuilder) (`builder.rs`), with the Cranelift back end's
//!   calling interface ([`JitArgs`](super::abi::JitArgs), [`CompiledShader`]) and
//!   semantics: [`MathMode::Exact`](super::abi::MathMode::Exact) bit-identical to the
//!   interpreter, fast math expanded in the IR before.
//! - **Denormals.** The code runs under DAZ/FTZ ([`fpenv`](super::fpenv)) and its functions say so
//!   (`"denormal-fp-math"="preserve-sign,preserve-sign"`). LLVM may still drop an operation
//!   that would have flushed (`x·1 → x`), so the builder declares
//!   [`FOLDS_DENORMALS`](super::simd::SimdBuilder::FOLDS_DENORMALS): where the bits of an
//!   arithmetic result are observed they are flushed in integer arithmetic as well as
//!   NaN-canonicalized ([`nan`](super::nan)).
//!
//! The code leaves LLVM as an ELF object (`object.rs` lays it out as a
//! [`MachineCode`](super::code::MachineCode)), mapped into executable memory that the
//! [`CompiledShader`] frees when dropped; the LLVM context lives only while compiling.

mod builder;
mod masks;
mod object;
mod target;

pub(super) use target::llvm_id;
use target::target_machine;
#[cfg(test)]
pub(crate) use target::{AVX2_STEPS, AVX512_STEPS, SINCOS_STEPS};
pub use target::{HostCpu, host_cpu};

use super::abi::JitError;
use super::compiled::{CodeInfo, CompiledShader};
use super::lane_ops::HostFunctions;
use super::options::CodegenOptions;
use super::simd;
use super::texpath::TexPaths;
use crate::ir::Function;
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::context::Context;
use inkwell::module::Linkage;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::FileType;

/// The lanes per step `opts` asks for on this host, for `f` as it is compiled: 0 chooses per
/// function — the host's widest vector (16 lanes with AVX-512, 8 with AVX2, 4 otherwise), or
/// twice it for a loop whose live values fit the registers twice over and, with AVX2 and
/// AVX-512, for straight-line fragment shaders with few texture lookups ([`simd::step_lanes`]:
/// short and long ones with AVX2, long ones with AVX-512); otherwise 4, 8, 16, 32
/// or 64 (LLVM splits a vector wider than the host's registers into several, which hides the
/// latency of loop-carried arithmetic).
///
/// # Errors
/// [`JitError::Lanes`] for a width other than 0, 4, 8, 16, 32 or 64; [`JitError::Host`]
/// when the host is not supported.
fn lanes(opts: &CodegenOptions, f: &Function) -> Result<usize, JitError> {
    let cpu = host_cpu(opts.features)?;
    match opts.lanes {
        // The host's step rule (`target.rs`): AVX-512 has 32 vector registers, AVX and SSE 16.
        0 => {
            let (straight, registers) = target::steps(cpu.width);
            Ok(simd::step_lanes(f, cpu.width, registers, straight))
        }
        n @ (4 | 8 | 16 | 32 | 64) => Ok(n),
        n => Err(JitError::Lanes {
            backend: "LLVM",
            lanes: n,
            takes: "0, 4, 8, 16, 32 or 64",
        }),
    }
}

/// The LLVM passes every function runs through before code generation.
///
/// The IR reaches LLVM optimized by tgsic's own passes (constants folded, common
/// subexpressions, dead code and copies removed) and vector already, so `default<O2>` spent
/// most of its time finding nothing to do. What pays for itself, found by removing and adding
/// passes and measuring the 50 shaders of the Mesa corpus (AVX2 and AVX-512 code, 1024²,
/// side by side): `sroa` (the lowering's allocas, such as indexed temporaries, into values),
/// `early-cse` and `instcombine` (repeated loads of the arguments, masks of constant
/// conditions), `simplifycfg`; `reassociate`, whose canonical operand order the register
/// allocator depends on (without it lookup-heavy AVX2 code spilled far more); `licm` and
/// `loop-rotate` (loads of the arguments out of loops), `indvars` and a second round of
/// `early-cse`, `instcombine` and `simplifycfg`. Dropped: `gvn`, `sccp`, the loop
/// unswitcher and unroller, inlining and attribute inference (nothing to do, or slower to
/// compile and to run). Against `default<O2>`: lower compile time, the same speed. The
/// measurements: `results/history/jit-2026-11-30.md`, "The LLVM back end".
const PASSES: &str = "function(sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg,\
    reassociate,loop-mssa(licm<allowspeculation>,loop-rotate<header-duplication;no-prepare-for-lto>,\
    licm<allowspeculation>),loop(indvars,loop-deletion),early-cse<memssa>,\
    instcombine<no-verify-fixpoint>,simplifycfg)";

/// Compiles `f` (the one entry point is [`super::compile`]).
pub(super) fn compile(f: &Function, opts: &CodegenOptions) -> Result<CompiledShader, JitError> {
    let text = opts.keep_text;
    let cpu = host_cpu(opts.features)?;
    let f = crate::opt::math::for_math(f, opts.math, crate::back::simd::host_fma());
    let lanes = lanes(opts, &f)?;
    crate::back::abi::check_size(f.body.inst_count(), lanes)?;
    let context = Context::create();
    let cx = &context;
    let module = cx.create_module("tgsic");
    let tm = target_machine(cpu)?;
    module.set_triple(&tm.get_triple());
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    let lowered = lower(&f, lanes, opts.textures, opts.math, cpu, cx, &module)?;
    if opts.verify {
        module
            .verify()
            .map_err(|e| llvm_error("its verifier", e.to_string_lossy()))?;
    }
    module
        .run_passes(PASSES, &tm, PassBuilderOptions::create())
        .map_err(|e| llvm_error("its passes", e.to_string_lossy()))?;
    if cpu.width < 16 {
        // No mask registers: masks cross blocks as words (`masks.rs`).
        masks::masks_as_words(cx, &module, cpu.width as u32)?;
        if opts.verify {
            module
                .verify()
                .map_err(|e| llvm_error("its verifier", e.to_string_lossy()))?;
        }
    }
    let (ir_text, asm) = if text {
        let ir = module.print_to_string().to_string();
        let asm = tm
            .write_to_memory_buffer(&module, FileType::Assembly)
            .map(|b| String::from_utf8_lossy(b.as_slice()).into_owned())
            .map_err(|e| llvm_error("its assembly", e.to_string()))?;
        (Some(ir), Some(asm))
    } else {
        (None, None)
    };
    // The machine code as an object file, laid out as an image that runs wherever it is mapped.
    let obj = tm
        .write_to_memory_buffer(&module, FileType::Object)
        .map_err(|e| llvm_error("code generation", e.to_string()))?;
    let image = object::image_of(obj.as_slice(), "shade")?;
    let code_size = text_size(obj.as_slice());
    let info = CodeInfo {
        uniforms: lowered.uniforms,
        textures: lowered.textures,
        memory: lowered.memory,
        tex_paths: lowered.tex_paths,
        stored_outputs: lowered.stored_outputs,
        code_size,
        stack_bytes: 0,
        lanes_per_step: lanes,
        ir_text,
        asm,
    };
    CompiledShader::from_machine_code(image, &HostFunctions, &f, info)
}

pub(super) fn enum_attr(cx: &Context, name: &str) -> Attribute {
    cx.create_enum_attribute(Attribute::get_named_enum_kind_id(name), 0)
}

/// The CPU whose scheduling model and tuning LLVM follows for `f` (`tune-cpu`), and the
/// function's features: the host's, except for AVX2 code (a host without AVX-512) on an AMD
/// Zen host of a function without texture operations, which takes Alder Lake's scheduling model
/// (the host's gathers kept: `prefer-no-gather` where they are not in hardware).
///
/// Measured on a Zen 4 host (AVX2 code, side by side): with the Zen models of LLVM 19 the ALU
/// shaders ran slower than with an Intel core's, at 8 lanes as at 16, though the code spilled
/// more; AVX-512 code gained nothing from any model, and the texture shaders lost, so they
/// keep the host's (`results/history/jit-2026-11-30.md`, "The LLVM back end").
fn tuning<'a>(cpu: &'a HostCpu, f: &Function) -> (&'a str, std::borrow::Cow<'a, str>) {
    let host = (
        cpu.name.as_str(),
        std::borrow::Cow::Borrowed(cpu.features.as_str()),
    );
    if !cpu.name.starts_with("znver")
        || cpu.width != 8
        || !super::texpath::texture_ops(f).is_empty()
    {
        return host;
    }
    let features = if cpu.hardware_gather {
        host.1
    } else {
        std::borrow::Cow::Owned(format!("{},+prefer-no-gather", cpu.features))
    };
    ("alderlake", features)
}

/// Declares `shade` (for the host CPU, under DAZ/FTZ) and builds it through [`simd::lower`].
fn lower<'ctx>(
    f: &Function,
    lanes: usize,
    tex_paths: TexPaths,
    math: crate::back::abi::MathMode,
    cpu: &HostCpu,
    cx: &'ctx Context,
    module: &Module<'ctx>,
) -> Result<simd::Lowered, JitError> {
    let void = cx.void_type();
    let ptr = cx.ptr_type(inkwell::AddressSpace::default());
    let func = module.add_function(
        "shade",
        void.fn_type(&[ptr.into()], false),
        Some(Linkage::External),
    );
    let (tune, features) = tuning(cpu, f);
    // Compute programs keep denormals (softpipe runs them without FTZ: `docs/semantics.md`,
    // "Memory and work groups"); every other kind runs under DAZ/FTZ.
    let denormals = if f.processor == crate::tgsi::Processor::Compute {
        "ieee,ieee"
    } else {
        "preserve-sign,preserve-sign"
    };
    for (k, v) in [
        ("target-cpu", cpu.name.as_str()),
        ("tune-cpu", tune),
        ("target-features", features.as_ref()),
        ("denormal-fp-math", denormals),
        ("denormal-fp-math-f32", denormals),
        ("min-legal-vector-width", &(32 * lanes).min(512).to_string()),
    ] {
        func.add_attribute(AttributeLoc::Function, cx.create_string_attribute(k, v));
    }
    func.add_attribute(AttributeLoc::Function, enum_attr(cx, "nounwind"));
    // Spill slots aligned to their vectors: without it LLVM keeps the caller's 16-byte
    // alignment and spills 32- and 64-byte vectors unaligned, some across a cache line
    // (measured faster with AVX2 code, the same with AVX-512: `results/history/jit-2026-11-30.md`).
    func.add_attribute(
        AttributeLoc::Function,
        cx.create_string_attribute("stackrealign", ""),
    );
    func.add_attribute(AttributeLoc::Param(0), enum_attr(cx, "noalias"));
    let fn_type = |callee: simd::Callee<()>| {
        let params: Vec<inkwell::types::BasicMetadataTypeEnum> = callee
            .params()
            .iter()
            .map(|t| match t {
                simd::Scalar::I32 => cx.i32_type().into(),
                simd::Scalar::F32 => cx.f32_type().into(),
                simd::Scalar::I64 => cx.i64_type().into(),
                simd::Scalar::Ptr => ptr.into(),
            })
            .collect();
        void.fn_type(&params, false)
    };
    let callees = builder::Callees {
        lane_op: fn_type(simd::Callee::LaneOp(())),
        texture: fn_type(simd::Callee::Texture(())),
        emit: fn_type(simd::Callee::Emit(())),
        memory: fn_type(simd::Callee::Memory(())),
    };
    let mut lb = builder::LlvmBuilder::new(
        cx,
        module,
        func,
        lanes as u32,
        callees,
        (cpu.fma, cpu.width as u32, cpu.hardware_gather),
    )?;
    lb.keep_denormals = f.processor == crate::tgsi::Processor::Compute;
    lb.hardware_scatter = cpu.hardware_scatter();
    Ok(simd::lower(f, lb, tex_paths, math)?.1)
}

/// The bytes of code (not constants) in the object `bytes`: the text sections (`.ltext` in
/// the JIT's large code model).
fn text_size(bytes: &[u8]) -> usize {
    use ::object::{Object, ObjectSection, SectionKind};
    ::object::File::parse(bytes).map_or(0, |f| {
        f.sections()
            .filter(|s| s.kind() == SectionKind::Text)
            .map(|s| s.size() as usize)
            .sum()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::back::abi::MathMode;
    use crate::back::options::TargetFeatures;
    use crate::back::tests_support as ts;

    /// The features these tests compile for: the host's with the changes of
    /// `TGSIC_LLVM_FEATURES`, so that a run with `-avx512f` tests AVX2 code on an AVX-512 host.
    fn features() -> TargetFeatures {
        TargetFeatures::from_env()
    }

    /// The default options, for [`features`].
    fn base() -> CodegenOptions {
        CodegenOptions {
            features: features(),
            ..CodegenOptions::default()
        }
    }

    fn llvm(lanes: usize) -> impl Fn(&Function, MathMode) -> Result<CompiledShader, JitError> {
        move |f, math| {
            compile(
                f,
                &CodegenOptions {
                    math,
                    lanes,
                    textures: TexPaths::ALL,
                    verify: true,
                    features: features(),
                    keep_text: false,
                },
            )
        }
    }

    #[test]
    fn the_host_is_detected() {
        let cpu = host_cpu(features()).unwrap();
        assert!([4, 8, 16].contains(&cpu.width), "{cpu:?}");
        assert!(!cpu.name.is_empty());
        // Straight-line code takes the host's width; a small loop two registers a value.
        let small = ts::unary_function(crate::ir::Unary::FSqrt);
        assert_eq!(lanes(&base(), &small).unwrap(), cpu.width);
        let looping = ts::endless_loop_function();
        assert_eq!(lanes(&base(), &looping).unwrap(), 2 * cpu.width);
        assert!(matches!(
            lanes(
                &CodegenOptions {
                    lanes: 12,
                    ..Default::default()
                },
                &small
            ),
            Err(JitError::Lanes { .. })
        ));
    }

    #[test]
    fn a_loop_stops_at_its_budget() {
        for lanes in [4, 16] {
            ts::check_loop_budget(&llvm(lanes));
        }
    }

    #[test]
    fn divergent_loops_keep_per_lane_counts() {
        for lanes in [4, 16] {
            ts::check_divergent_loops(&llvm(lanes));
        }
    }

    #[test]
    fn constant_operands_keep_the_denormal_rules() {
        ts::check_constant_operands(&llvm(0));
    }

    #[test]
    fn negated_fma_operands_keep_their_bits() {
        ts::check_negated_fma(&llvm(0));
    }

    #[test]
    fn division_by_constants_matches_the_interpreter() {
        for lanes in [4, 8, 16] {
            ts::check_division_by_constants(&llvm(lanes));
        }
    }

    #[test]
    fn f2u_matches_the_interpreter_on_every_exponent() {
        for lanes in [4, 8, 16] {
            ts::check_f2u_every_exponent(&llvm(lanes));
        }
    }

    #[test]
    fn exact_transcendentals_in_vector_code_match_the_interpreter() {
        // Every 4099th input (a million) at each step width; all 2³² in release mode:
        // `cargo test -p tgsic --release --features llvm exact_transcendentals -- --ignored`.
        for lanes in [0, 4, 8, 64] {
            ts::check_exact_transcendentals(&llvm(lanes), 4099);
        }
    }

    #[test]
    fn accurate_sin_and_cos_match_their_reference() {
        for lanes in [0, 4, 8, 16, 64] {
            ts::check_accurate_sincos(&llvm(lanes), 4099);
        }
    }

    #[test]
    #[ignore = "every f32: run in release mode"]
    fn accurate_sin_and_cos_exhaustive() {
        ts::check_accurate_sincos(&llvm(0), 1);
    }

    #[test]
    fn exact_pow_in_vector_code_matches_the_interpreter() {
        for lanes in [0, 8] {
            ts::check_exact_pow(&llvm(lanes), 1_048_573);
        }
    }

    #[test]
    #[ignore = "320 million pairs: run in release mode"]
    fn exact_pow_dense() {
        ts::check_exact_pow(&llvm(0), 4099);
    }

    #[test]
    #[ignore = "every f32: run in release mode"]
    fn exact_transcendentals_exhaustive() {
        ts::check_exact_transcendentals(&llvm(0), 1);
    }

    #[test]
    fn every_operation_matches_the_interpreters_numerics() {
        for lanes in [0, 4, 8, 64] {
            ts::check_every_operation(&llvm(lanes));
        }
    }

    #[test]
    fn text_and_code_size_are_reported() {
        let f = ts::unary_function(crate::ir::Unary::FSqrt);
        let text = CodegenOptions {
            keep_text: true,
            ..base()
        };
        let c = compile(&f, &text).unwrap();
        let ir = c.ir_text.as_deref().unwrap();
        assert!(ir.contains("define void @shade"), "{ir}");
        assert!(ir.contains("llvm.sqrt"), "{ir}");
        assert!(c.asm.as_deref().unwrap().contains("sqrtps"));
        assert!(c.code_size > 0);
        assert_eq!(c.lanes_per_step, host_cpu(features()).unwrap().width);
    }

    #[test]
    fn accurate_sin_and_cos_share_one_copy_of_their_exact_fallback() {
        // Three SIN and COS of different arguments: accurate math calls one `exact.SinCos`
        // per module, of the host's width, from each, once per vector of the step; exact math
        // computes each in place.
        let f = crate::opt::optimized_text(
            "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\n\
             SIN OUT[0].x, IN[0].xxxx\nCOS OUT[0].y, IN[0].yyyy\nSIN OUT[0].z, IN[0].zzzz\nEND\n",
        );
        let text = |math| CodegenOptions {
            math,
            keep_text: true,
            ..base()
        };
        let accurate = compile(&f, &text(MathMode::Accurate)).unwrap();
        let ir = accurate.ir_text.as_deref().unwrap();
        assert_eq!(ir.matches("define private").count(), 1, "{ir}");
        let width = host_cpu(features()).unwrap().width;
        let vector = format!("<{width} x float>");
        assert!(
            ir.contains(&format!(
                "define private {{ {vector}, {vector} }} @exact.SinCos({vector}"
            )),
            "{ir}"
        );
        let pieces = accurate.lanes_per_step / width;
        assert!(pieces > 1, "a SIN shader interleaves steps");
        assert_eq!(ir.matches("call { ").count(), 3 * pieces, "{ir}");
        let exact = compile(&f, &text(MathMode::Exact)).unwrap();
        let ir = exact.ir_text.as_deref().unwrap();
        assert!(!ir.contains("exact.SinCos"), "{ir}");
    }
}

#[cfg(test)]
mod cpu_tests {
    use super::HostCpu;

    #[test]
    fn the_last_mention_of_a_feature_decides() {
        let cpu = HostCpu {
            name: "znver5".into(),
            features: "+sse4.1,+avx2,+avx512f,-sse4a,+fma,-avx512f".into(),
            width: 16,
            fma: true,
            hardware_gather: true,
        };
        assert!(cpu.has("avx2") && cpu.has("fma") && cpu.has("sse4.1"));
        assert!(!cpu.has("avx512f"), "taken back by the last mention");
        assert!(!cpu.has("sse4a"));
        assert!(!cpu.has("avx"), "a prefix of a feature is not the feature");
    }

    #[test]
    fn zen_hosts_schedule_avx2_alu_code_as_alder_lake() {
        let f = |text: &str| crate::opt::optimized_text(text);
        let alu = f("FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0], COLOR\n\
                     MUL OUT[0], IN[0], IN[0]\nEND\n");
        let tex = f(
            "FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0], COLOR\nDCL SAMP[0]\n\
                     DCL SVIEW[0], 2D, FLOAT\nTEX OUT[0], IN[0], SAMP[0], 2D\nEND\n",
        );
        let cpu = |name: &str, width, hardware_gather| HostCpu {
            name: name.into(),
            features: "+avx2,+fma".into(),
            width,
            fma: true,
            hardware_gather,
        };
        let zen4 = cpu("znver4", 8, false);
        let (tune, features) = super::tuning(&zen4, &alu);
        assert_eq!(
            (tune, features.as_ref()),
            ("alderlake", "+avx2,+fma,+prefer-no-gather")
        );
        // Lookups, AVX-512 code and other hosts keep the host's model and features.
        for (c, f) in [
            (&zen4, &tex),
            (&cpu("znver4", 16, true), &alu),
            (&cpu("skylake", 8, true), &alu),
        ] {
            let (tune, features) = super::tuning(c, f);
            assert_eq!((tune, features.as_ref()), (c.name.as_str(), "+avx2,+fma"));
        }
        // A Zen host whose gathers are hardware ones keeps them.
        let zen5 = cpu("znver5", 8, true);
        assert_eq!(super::tuning(&zen5, &alu).1, "+avx2,+fma");
    }

    #[test]
    fn gathers_are_hardware_ones_where_llvm_makes_them() {
        let host = super::host_cpu(crate::back::options::TargetFeatures::from_env()).unwrap();
        let mut cpu = host.clone();
        // LLVM makes every 8-lane gather with AVX-512 (and VL) a gather instruction, and
        // never one without AVX2; the probe must agree.
        cpu.features = format!("{},+avx512f,+avx512vl", host.features);
        assert!(super::target::gathers_in_hardware(&cpu).unwrap());
        cpu.features = format!("{},-avx2,-avx512f", host.features);
        assert!(!super::target::gathers_in_hardware(&cpu).unwrap());
    }

    /// `cpu=NAME` has LLVM choose as for NAME with the host's features: Skylake's AVX2 code
    /// gathers a texel's words with gather instructions, whatever the host, and names
    /// another code cache entry.
    #[test]
    fn a_cpu_entry_makes_code_as_for_that_cpu() {
        use crate::back::options::TargetFeatures;
        let host = super::host_cpu(TargetFeatures::HOST).unwrap();
        if !host.has("avx2") {
            return;
        }
        let changes = TargetFeatures::new("cpu=skylake,-avx512f");
        let sky = super::host_cpu(changes).unwrap();
        assert_eq!((sky.name.as_str(), sky.width), ("skylake", 8));
        assert!(sky.hardware_gather);
        assert!(!sky.features.contains("cpu="));
        assert_ne!(
            super::target::llvm_id(changes).unwrap(),
            super::target::llvm_id(TargetFeatures::new("-avx512f")).unwrap()
        );
    }
}

/// What LLVM said at `stage`.
fn llvm_error(stage: &'static str, message: impl std::fmt::Display) -> JitError {
    JitError::Backend {
        backend: "LLVM",
        stage,
        message: message.to_string(),
    }
}
