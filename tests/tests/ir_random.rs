//! Property test: random TGSI programs (`tgsic_tests::generate`: arithmetic and integer opcodes, swizzles and source
//! modifiers, saturation and write masks, nested IF/UIF, loops with BRK/CONT, SWITCH, indirect
//! TEMP arrays and CONST reads, subroutines, KILL_IF) compute the same bits in the interpreter,
//! as lifted IR and as IR optimized at -O1 and -O2, on random inputs and constants.
//!
//! And random programs with 64-bit instructions (`generate::wide_program`), a thousand a run.
//!
//! Cases: 48 under CI (`CI=true`), 400 otherwise; `TGSIC_RANDOM_CASES` overrides. A failure
//! prints the program's text; `replay` runs one seed again (`TGSIC_WIDE=1` for a 64-bit one;
//! `TGSIC_LANE=N` prints lane N's inputs and outputs; `TGSIC_PROGRAM=FILE` runs that text in
//! place of the seed's program, with the seed's widths and inputs, to reduce a case by hand).

use proptest::prelude::*;
use std::sync::Arc;
use tgsic::back::Backend;
use tgsic::opt::{OptLevel, optimize};
use tgsic_runtime::host::CompileOptions;
use tgsic_runtime::host::Compiled;
use tgsic_runtime::host::Module;
use tgsic_tests::generate::{program, wide_program};
use tgsic_tests::jit_backends;
use tgsic_tests::random::{Rng, agree, batch, bindings, difference, ir_variants, run};
use tgsic_tests::run::{compile, interpreter};

fn cases() -> u32 {
    if let Some(n) = std::env::var("TGSIC_RANDOM_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return n;
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        48
    } else {
        400
    }
}

/// Every JIT back end of this build, each at a lane count chosen by the seed, named.
fn jit_engines(shader: &Module, seed: u64) -> Result<Vec<(String, Arc<Compiled>)>, String> {
    jit_backends()
        .into_iter()
        .map(|(backend, widths)| jit_engine(shader, seed, backend, widths))
        .collect()
}

/// Back end `backend` at one of its lane counts `widths`, chosen by the seed, named.
fn jit_engine(
    shader: &Module,
    seed: u64,
    backend: Backend,
    widths: &[usize],
) -> Result<(String, Arc<Compiled>), String> {
    // TGSIC_LANES overrides the width where the back end takes it (to replay a case at other
    // widths).
    let lanes = std::env::var("TGSIC_LANES")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&l| backend == Backend::Llvm || l <= 32)
        .unwrap_or(widths[(seed % widths.len() as u64) as usize]);
    let name = format!("{backend:?} ({lanes} lanes)");
    let config = CompileOptions {
        engine: backend.into(),
        lanes,
        math: tgsic::back::abi::MathMode::Exact,
        ..CompileOptions::default()
    };
    compile(shader, &config)
        .map(|j| (name.clone(), j))
        .map_err(|e| format!("{name}: {e}"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_programs_agree_in_every_engine(seed in any::<u64>()) {
        let p = program(seed);
        let text = tgsic::front::text::print(&p);
        let shader = Module::new(p).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        // The IR lifted and optimized, and each JIT back end in exact mode at a width chosen by
        // the seed.
        let checked = ir_variants(&shader).and_then(|ir| {
            let jits = jit_engines(&shader, seed)?;
            agree(&shader, &ir, &jits, &mut Rng(seed ^ 0x5eed), 2)
        });
        checked.map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
    }
}

/// How many random 64-bit programs each of the two halves of the 64-bit property test checks:
/// 500 under CI (`CI=true`: a thousand a run, and a thousand more where CI runs them again
/// with AVX2 code), 500 otherwise; `TGSIC_RANDOM_CASES` overrides.
fn wide_cases() -> u32 {
    std::env::var("TGSIC_RANDOM_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(500)
}

/// The lane counts the 64-bit test compiles at: Cranelift's steps of one to four registers;
/// LLVM at the host's widest vector, 4 and 8 lanes, and one program in eight at 64 lanes (a
/// double vector split in eight registers: legal, but it costs LLVM's instruction scheduler
/// three times the compile time of the others).
fn wide_engines(shader: &Module, seed: u64) -> Result<Vec<(String, Arc<Compiled>)>, String> {
    jit_backends()
        .into_iter()
        .map(|(backend, _)| {
            let widths: &[usize] = match backend {
                Backend::Llvm if seed % 8 == 7 => &[64],
                Backend::Llvm => &[0, 4, 8],
                _ => &[4, 8, 16],
            };
            jit_engine(shader, seed / 8, backend, widths)
        })
        .collect()
}

/// Random programs with doubles and 64-bit integers: the interpreter, the IR (lifted and
/// optimized) and both JITs' 64-bit lanes agree on the program of `seed`.
fn wide_programs_agree(seed: u64) -> Result<(), TestCaseError> {
    let p = wide_program(seed);
    let text = tgsic::front::text::print(&p);
    let shader = Module::new(p).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
    // Each JIT back end in exact mode, at a width chosen by the seed.
    let checked = ir_variants(&shader).and_then(|ir| {
        let jits = wide_engines(&shader, seed)?;
        agree(&shader, &ir, &jits, &mut Rng(seed ^ 0x5eed), 2)
    });
    checked.map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: wide_cases(), failure_persistence: None, ..ProptestConfig::default() })]

    /// Half of the 64-bit programs (the two halves run on two test threads).
    #[test]
    fn random_64_bit_programs_agree_in_every_engine(seed in any::<u64>()) {
        wide_programs_agree(seed)?;
    }

    /// The other half.
    #[test]
    fn more_random_64_bit_programs_agree_in_every_engine(seed in any::<u64>()) {
        wide_programs_agree(seed)?;
    }
}

#[test]
#[ignore = "prints a sample of generated programs"]
fn print_samples() {
    for seed in 0..3 {
        println!("{}", tgsic::front::text::print(&program(seed)));
    }
}

#[test]
#[ignore = "replays one seed: TGSIC_SEED=N cargo test --test ir_random replay -- --ignored --nocapture"]
fn replay() {
    let seed: u64 = std::env::var("TGSIC_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    // TGSIC_WIDE=1 replays a program of the 64-bit property test.
    // TGSIC_PROGRAM=FILE replays that program instead (the seed still picks widths and
    // inputs): for reducing a failing case by hand.
    let p = if let Ok(file) = std::env::var("TGSIC_PROGRAM") {
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{file}: {e}"));
        tgsic::front::text::parse(&text).unwrap_or_else(|e| panic!("{file}: {e}"))
    } else if std::env::var("TGSIC_WIDE").is_ok() {
        wide_program(seed)
    } else {
        program(seed)
    };
    println!("{}", tgsic::front::text::print(&p));
    let mut f = tgsic::ir::lift::lift(&p).unwrap();
    optimize(&mut f, OptLevel::O2);
    println!("{}", tgsic::ir::print::print(&f));
    let shader = Module::new(p).unwrap();
    // The back ends at the widths the property test compiled it at.
    let jits: Vec<_> = if std::env::var("TGSIC_WIDE").is_ok() {
        wide_engines(&shader, seed).unwrap_or_else(|e| panic!("{e}"))
    } else {
        jit_backends()
            .into_iter()
            .map(|(b, widths)| {
                jit_engine(&shader, seed, b, widths).unwrap_or_else(|e| panic!("{e}"))
            })
            .collect()
    };
    let mut rng = Rng(seed ^ 0x5eed);
    for _ in 0..2 {
        let bind = bindings(&shader, &mut rng);
        let io = batch(&shader, &mut rng);
        let a = run(&interpreter(&shader), &bind, &io).unwrap();
        println!(
            "interpreter: killed {:#x}, exhausted {:#x}",
            a.report.killed, a.report.exhausted
        );
        for (name, jit) in &jits {
            let b = run(jit, &bind, &io).unwrap();
            println!(
                "{name}: alive {:#x}: {:?}; killed {:#x}, exhausted {:#x}",
                io.alive,
                difference(&a, &b, io.alive),
                b.report.killed,
                b.report.exhausted
            );
            if let Ok(l) = std::env::var("TGSIC_LANE") {
                let l: usize = l.parse().unwrap();
                for (r, reg) in b.outputs.iter().enumerate() {
                    println!(
                        "  OUT[{r}] lane {l}: {:?} (interpreter {:?})",
                        [0, 1, 2, 3].map(|c| format!("{:#010x}", reg[c][l])),
                        [0, 1, 2, 3].map(|c| format!("{:#010x}", a.outputs[r][c][l]))
                    );
                }
            }
        }
        if let Ok(l) = std::env::var("TGSIC_LANE") {
            let l: usize = l.parse().unwrap();
            for (r, reg) in io.inputs.iter().enumerate() {
                println!(
                    "IN[{r}] lane {l}: {:?}",
                    [0, 1, 2, 3].map(|c| format!("{:#010x}", reg[c][l]))
                );
            }
            for (r, reg) in bind
                .constants
                .first()
                .into_iter()
                .flatten()
                .enumerate()
                .take(8)
            {
                println!("CONST[{r}]: {:?}", reg.map(|w| format!("{w:#010x}")));
            }
        }
    }
}
