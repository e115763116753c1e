//! Programs that once broke a back end (control flow, and the flushing of doubles), kept as
//! programs every back end must compile at every lane count it has and run with the
//! interpreter's bits (exact math) over random inputs. Each program says what it exercises
//! and what went wrong.

use tgsic::back::Backend;
use tgsic::back::abi::MathMode;
use tgsic_runtime::host::{CompileOptions, Module};
use tgsic_tests::jit_backends;
use tgsic_tests::random::{Rng, batch, bindings, difference, run};
use tgsic_tests::run::{compile, interpreter};

/// A `SWITCH` whose case is a loop that returns at once and whose default packs a value,
/// then switches nested in a divergent one around an empty `BGNFOR`. After LLVM's optimizer
/// the function has lane masks but no phi of them, and the first mask whose words the AVX2
/// mask rewrite (`back/llvm/masks.rs`) asks for is a constant: its builder had no position
/// yet, and the compile failed ("Builder position is not set") at every width on hosts
/// without mask registers. Found by `ir_random` (64-bit programs, seed
/// 8102167484963210489), reduced.
const CONSTANT_MASK_FIRST: &str = "FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL CONST[0][0..7]
DCL TEMP[0..1]
IMM[0] UINT32 {0, 1, 2, 3}
SWITCH CONST[0][7].wwww
  CASE IMM[0].zzzz
  BGNLOOP
    RET
  ENDLOOP
  DEFAULT
  PK2US TEMP[1].xw, IN[0].xyzw
ENDSWITCH
SWITCH IN[0].xxxx
  SWITCH IMM[0].wwww
    BGNFOR TEMP[0], CONST[0][1]
    ENDFOR TEMP[0]
  ENDSWITCH
ENDSWITCH
MOV OUT[0], TEMP[1]
END
";

/// A double sum beside a constant that is a denormal, in a vertex shader (DAZ and FTZ). The
/// lowering flushes the constant in software (LLVM folds as IEEE does), to −0 here, and LLVM
/// folds `−0 + y` to `y`; `y` was flushed only beside a constant of ±0 or ±1, not beside a
/// denormal one, so a denormal input came through unflushed (low word 0x0000000c where the
/// interpreter gives 0). Found by `ir_random` (64-bit programs, seed 433487278008925270, LLVM
/// at 8 lanes), reduced.
const DENORMAL_CONSTANT_BESIDE: &str = "VERT
DCL IN[0]
DCL OUT[0], GENERIC[0]
IMM[0] UINT32 {2147483648, 2147483648, 0, 0}
DADD OUT[0].xy, IMM[0].xyxy, IN[0].xyxy
DADD OUT[0].zw, IN[0].zwzw, IMM[0].xyxy
END
";

#[test]
fn control_flow_that_broke_a_back_end_compiles_and_keeps_the_interpreters_bits() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for (name, text) in [
        ("constant mask first", CONSTANT_MASK_FIRST),
        ("denormal constant beside", DENORMAL_CONSTANT_BESIDE),
    ] {
        let program = tgsic::front::text::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let shader = Module::new(program).unwrap_or_else(|e| panic!("{name}: {e}"));
        let interp = interpreter(&shader);
        for (backend, widths) in jit_backends() {
            let widths: Vec<usize> = match backend {
                Backend::Llvm => vec![0, 4, 8, 16, 64],
                _ => widths.to_vec(),
            };
            for lanes in widths {
                let config = CompileOptions {
                    engine: backend.into(),
                    lanes,
                    math: MathMode::Exact,
                    ..CompileOptions::default()
                };
                let jit = match compile(&shader, &config) {
                    Ok(j) => j,
                    Err(e) => {
                        failures.push(format!("{name}, {backend:?} ({lanes} lanes): {e}"));
                        continue;
                    }
                };
                for seed in 0..4 {
                    let mut rng = Rng(seed * 7919 + name.len() as u64);
                    let bind = bindings(&shader, &mut rng);
                    let io = batch(&shader, &mut rng);
                    let a = run(&interp, &bind, &io).unwrap();
                    let b = run(&jit, &bind, &io).unwrap();
                    checked += 1;
                    if let Some(d) = difference(&a, &b, io.alive) {
                        failures.push(format!(
                            "{name}, {backend:?} ({lanes} lanes), seed {seed}: {d}"
                        ));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 3 * 4, "{checked} batches");
}
