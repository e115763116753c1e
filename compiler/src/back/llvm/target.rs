//! The CPU LLVM generates code for: the host's name and features (with the changes of
//! [`CodegenOptions::features`](crate::back::CodegenOptions::features)), what the back end
//! derives from them, and the target machine.

use crate::back::abi::JitError;
use crate::back::options::TargetFeatures;
use crate::back::simd::StraightLine;
use inkwell::OptimizationLevel;
use inkwell::context::Context;
use inkwell::targets::{
    CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine,
};
use std::sync::{Mutex, OnceLock};

/// What LLVM knows of the host CPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostCpu {
    /// LLVM's name for it (`znver5`, `skylake-avx512`, ...).
    pub name: String,
    /// Its features, as LLVM spells them (`+avx2,+fma,...`).
    pub features: String,
    /// The widest vector of 32-bit lanes: 16, 8 or 4.
    pub width: usize,
    /// Whether it has fused multiply-add (otherwise FMA is computed on the host).
    pub fma: bool,
    /// Whether LLVM compiles a gather of 8 lanes to the CPU's gather instruction (with
    /// AVX-512, or AVX2 on a CPU LLVM tunes for fast gathers). Where it does not, LLVM splits
    /// a gather into scalar loads through vectors of 64-bit addresses, which the builder's
    /// own per-lane loads of single words beat in speed (measured with AVX2 code on Zen 5:
    /// `results/history/jit-2026-11-30.md`), though they compile slower; a texel's four words stay LLVM's
    /// gathers, which compile faster.
    pub hardware_gather: bool,
}

impl HostCpu {
    /// Whether the word gathers and scatters of memory instructions become AVX-512's gather
    /// and scatter instructions: not on AMD's Zen, where they are microcoded and the builder's
    /// loads and stores a lane beat them (`results/compute.md`, 2026-12-02: the buffer
    /// workloads with AVX-512 code on Zen 5, 1.40x -> 2.1x llvmpipe). Texel gathers keep
    /// [`HostCpu::hardware_gather`]; without AVX-512 there is no scatter instruction.
    pub(super) fn hardware_scatter(&self) -> bool {
        self.width >= 16 && !self.name.starts_with("znver")
    }

    /// Whether `feature` is on: its last mention, `+feature` or `-feature`, decides.
    pub(super) fn has(&self, feature: &str) -> bool {
        self.features
            .rsplit(',')
            .find_map(|f| match f.split_at_checked(1) {
                Some(("+", name)) if name == feature => Some(true),
                Some(("-", name)) if name == feature => Some(false),
                _ => None,
            })
            .unwrap_or(false)
    }
}

/// The host CPU with `changes` made to its features, detected once per process and changes;
/// an error if it cannot run the generated code (an x86-64 CPU with SSE4.1 is needed) or LLVM
/// cannot target it.
///
/// # Errors
/// [`JitError::Host`].
pub fn host_cpu(changes: TargetFeatures) -> Result<&'static HostCpu, JitError> {
    type Detected = &'static Result<HostCpu, JitError>;
    static HOSTS: Mutex<Vec<(TargetFeatures, Detected)>> = Mutex::new(Vec::new());
    let mut hosts = HOSTS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, cpu)) = hosts.iter().find(|(c, _)| *c == changes) {
        return cpu.as_ref().map_err(Clone::clone);
    }
    // Kept for the process: one per distinct change of the features a program asks for.
    let cpu: Detected = Box::leak(Box::new(detect(changes)));
    hosts.push((changes, cpu));
    cpu.as_ref().map_err(Clone::clone)
}

/// [`host_cpu`], detected now.
fn detect(changes: TargetFeatures) -> Result<HostCpu, JitError> {
    {
        if !cfg!(target_arch = "x86_64") {
            return Err(JitError::Host(
                "the LLVM back end generates x86-64 code".into(),
            ));
        }
        Target::initialize_native(&InitializationConfig::default()).map_err(JitError::Host)?;
        configure_codegen();
        let (tuned_for, features) = split_cpu(changes.changes());
        let mut cpu = HostCpu {
            name: tuned_for.map_or_else(
                || TargetMachine::get_host_cpu_name().to_string(),
                Into::into,
            ),
            features: TargetMachine::get_host_cpu_features().to_string(),
            width: 4,
            fma: false,
            hardware_gather: false,
        };
        if !features.is_empty() {
            cpu.features = format!("{},{features}", cpu.features);
        }
        if !cpu.has("sse4.1") {
            return Err(JitError::Host("the CPU lacks SSE4.1".into()));
        }
        // A feature counts only with those it builds on (`-avx` turns AVX2 off in LLVM too).
        let avx2 = cpu.has("avx") && cpu.has("avx2");
        cpu.width = if avx2 && cpu.has("avx512f") {
            16
        } else if avx2 {
            8
        } else {
            4
        };
        cpu.fma = cpu.has("fma");
        cpu.hardware_gather = cpu.width >= 8 && gathers_in_hardware(&cpu)?;
        Ok(cpu)
    }
}

/// The CPU a `cpu=NAME` entry of `changes` names, and the other changes (LLVM's feature
/// spelling, `""`: none). `cpu=NAME` makes LLVM schedule and tune for NAME (`skylake`,
/// `alderlake`, ...) and take its choices (gathers among them) as on that CPU, with the host's
/// features and the other changes: to read or time the code another CPU would get. The code
/// uses the host's instructions only, so it runs here, at this host's speed, not NAME's.
fn split_cpu(changes: &str) -> (Option<&str>, String) {
    let mut cpu = None;
    let rest: Vec<&str> = changes
        .split(',')
        .filter(|c| match c.strip_prefix("cpu=") {
            Some(name) => {
                // `cpu=` alone names no CPU: the host's stays.
                cpu = Some(name).filter(|n| !n.is_empty()).or(cpu);
                false
            }
            None => !c.is_empty(),
        })
        .collect();
    (cpu, rest.join(","))
}

/// LLVM's code generation options of the process, set once before its first compilation:
/// machine sinking off. With it, LLVM sank each RGBA8 lookup's texel conversion and sum past
/// the branches of the lookups after it, where 16 vector registers could not hold them, so
/// lookup-heavy AVX2 code kept texels in spill slots; off, the corpus's code spills less at
/// both widths on every CPU model tried (`results/side-by-side.md`, 2026-12-04).
///
/// The options are LLVM's process-wide command-line options, parsed once here. A host that
/// links the same LLVM for its own use gets them too (they change how LLVM optimizes, never
/// what code means); one that parses `-disable-machine-sink` itself as well makes LLVM report
/// the second occurrence and end the process, as any repeated option does.
fn configure_codegen() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let args: [&std::ffi::CStr; 2] = [c"tgsic", c"-disable-machine-sink"];
        let ptrs = args.map(std::ffi::CStr::as_ptr);
        // SAFETY: `ptrs` holds two pointers to NUL-terminated strings, and the overview is one,
        // all static; `Once` makes this the process's only parse of them.
        unsafe {
            llvm_sys::support::LLVMParseCommandLineOptions(
                ptrs.len() as i32,
                ptrs.as_ptr(),
                c"".as_ptr(),
            )
        };
    });
}

/// Whether LLVM, targeting `cpu`, compiles an 8-lane `llvm.masked.gather` to a gather
/// instruction (asked of LLVM itself: its choice depends on tuning flags the feature string
/// does not show).
pub(super) fn gathers_in_hardware(cpu: &HostCpu) -> Result<bool, JitError> {
    const PROBE: &str = "define <8 x i32> @probe(<8 x ptr> %p) {
  %v = call <8 x i32> @llvm.masked.gather.v8i32.v8p0(<8 x ptr> %p, i32 4, <8 x i1> splat (i1 true), <8 x i32> poison)
  ret <8 x i32> %v
}
declare <8 x i32> @llvm.masked.gather.v8i32.v8p0(<8 x ptr>, i32, <8 x i1>, <8 x i32>)
";
    let cx = Context::create();
    let buf = inkwell::memory_buffer::MemoryBuffer::create_from_memory_range_copy(
        PROBE.as_bytes(),
        "probe",
    );
    let module = cx
        .create_module_from_ir(buf)
        .map_err(|e| JitError::Host(format!("gather probe: {e}")))?;
    let asm = target_machine(cpu)?
        .write_to_memory_buffer(&module, FileType::Assembly)
        .map_err(|e| JitError::Host(format!("gather probe: {e}")))?;
    Ok(String::from_utf8_lossy(asm.as_slice()).contains("gather"))
}

pub(super) fn target_machine(cpu: &HostCpu) -> Result<TargetMachine, JitError> {
    let triple = TargetMachine::get_default_triple();
    let target = Target::from_triple(&triple).map_err(|e| JitError::Host(e.to_string()))?;
    target
        .create_target_machine(
            &triple,
            &cpu.name,
            &cpu.features,
            OptimizationLevel::Default,
            // Position-independent code of the small model: constants addressed relative to
            // the instruction (an operand `[rip + c]`, not an address in a register), which
            // `object::image_of` resolves as the image lays code and constants side by side.
            RelocMode::PIC,
            CodeModel::Small,
        )
        .ok_or_else(|| JitError::Host(format!("LLVM cannot target {}", cpu.name)))
}

/// LLVM's version and the CPU and features it generates code for on this host (with
/// `changes`): everything [`host_cpu`] derives its choices from, read
/// without initializing LLVM's targets or compiling its probe (a code cache's lookup on a
/// second start needs no LLVM at all).
pub(in crate::back) fn llvm_id(changes: TargetFeatures) -> Result<String, JitError> {
    // The host's part is read once per process; the changes follow it.
    static HOST: OnceLock<Result<String, JitError>> = OnceLock::new();
    let host = HOST.get_or_init(|| {
        if !cfg!(target_arch = "x86_64") {
            return Err(JitError::Host(
                "the LLVM back end generates x86-64 code".into(),
            ));
        }
        let (mut major, mut minor, mut patch) = (0, 0, 0);
        // SAFETY: LLVMGetVersion writes three integers through the pointers it is given.
        unsafe { llvm_sys::core::LLVMGetVersion(&mut major, &mut minor, &mut patch) };
        Ok(format!(
            "llvm {major}.{minor}.{patch} {} {}",
            TargetMachine::get_host_cpu_name(),
            TargetMachine::get_host_cpu_features(),
        ))
    });
    Ok(format!(
        "{} {}",
        host.as_ref().map_err(Clone::clone)?,
        changes.changes()
    ))
}

/// LLVM's step rule for a host of `width` lanes: the straight-line rule (interleaving with
/// AVX2 and AVX-512 as measured, not with SSE) and the vector registers.
pub(super) fn steps(width: usize) -> (StraightLine, usize) {
    match width {
        16 => (AVX512_STEPS, 32),
        8 => (AVX2_STEPS, 16),
        _ => (StraightLine::OneStep, 16),
    }
}

/// Steps LLVM's code interleaves in a straight-line fragment shader of less than `long`
/// work with a SIN or COS and fewer than one lookup in `LOOKUP_GAP`
/// (`StraightLine::Arithmetic::sincos`): four vectors, the 64 lanes of a whole batch with
/// AVX-512, 32 with AVX2.
pub const SINCOS_STEPS: usize = 4;

/// LLVM's straight-line rule with AVX2 (16 registers of 8 lanes).
pub const AVX2_STEPS: StraightLine = StraightLine::Arithmetic {
    short: Some((32, 200)),
    sparse: 200,
    long: 800,
    sincos: Some(SINCOS_STEPS),
    sincos_lookups: usize::MAX,
};

/// LLVM's straight-line rule with AVX-512 (32 registers of 16 lanes). Its short range is
/// narrower than AVX2's: measured side by side, the shaders of 60–150 gain from a second
/// step, those of less work (whose frames are mostly the writing of the image) and those
/// between 150 and the sparse bound do not; and a shader with SIN or COS and 16 texture
/// lookups or more runs one step rather than four, as measured on three_triangle_blur (not
/// profiled), while AVX2 runs that shader fastest at four steps (`results/history/jit-2026-11-30.md`,
/// "Batches").
pub const AVX512_STEPS: StraightLine = StraightLine::Arithmetic {
    short: Some((60, 150)),
    sparse: 400,
    long: 800,
    sincos: Some(SINCOS_STEPS),
    sincos_lookups: 16,
};
