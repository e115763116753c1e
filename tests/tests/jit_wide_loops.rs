//! Doubles carried round loops: the JITs carry a loop's pair of words of one double in 64-bit
//! lanes (`simd::wide::wide_params`), so these programs exercise every way a pair enters and
//! leaves an iteration — a divergent `CONT` inside an `IF` (the pair blended by the lanes
//! that take it), a `CONT` at the end, `BRK` with the double as a loop result, a nested loop
//! carrying it too, its words read as integers inside the body, NaNs and denormals from
//! random inputs — and compare each back end, at every lane count it has, with the
//! interpreter's bits.

use tgsic::back::Backend;
use tgsic::back::abi::MathMode;
use tgsic_runtime::host::{CompileOptions, Module};
use tgsic_tests::jit_backends;
use tgsic_tests::random::{Rng, batch, bindings, difference, run};
use tgsic_tests::run::{compile, interpreter};

/// z ← z² + c while |z| stays small; a lane whose z turns negative flips it and continues
/// early (a divergent CONT); the loop counts its iterations.
const DIVERGENT_CONTINUE: &str = "FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL TEMP[0..4]
IMM[0] FLT32 {0.5, 4.0, 0.0, 3.0}
IMM[1] UINT32 {0, 1, 12, 2147483648}
F2D TEMP[0].xy, IN[0].xxxx
F2D TEMP[0].zw, IN[0].yyyy
MOV TEMP[1].x, IMM[1].xxxx
BGNLOOP
  UADD TEMP[1].x, TEMP[1].xxxx, IMM[1].yyyy
  USGE TEMP[2].x, TEMP[1].xxxx, IMM[1].zzzz
  UIF TEMP[2].xxxx
    BRK
  ENDIF
  DMUL TEMP[3].xy, TEMP[0].xyxy, TEMP[0].xyxy
  DADD TEMP[0].xy, TEMP[3].xyxy, TEMP[0].zwzw
  AND TEMP[2].y, TEMP[0].yyyy, IMM[1].wwww
  UIF TEMP[2].yyyy
    DNEG TEMP[0].xy, TEMP[0].xyxy
    CONT
  ENDIF
  F2D TEMP[3].zw, IMM[0].xxxx
  DMUL TEMP[0].xy, TEMP[0].xyxy, TEMP[3].zwzw
  F2D TEMP[3].xy, IMM[0].yyyy
  DSLT TEMP[2].z, TEMP[3].xyxy, TEMP[0].xyxy
  UIF TEMP[2].zzzz
    BRK
  ENDIF
ENDLOOP
D2F TEMP[4].x, TEMP[0].xyxx
MOV TEMP[4].y, TEMP[0].xxxx
MOV TEMP[4].z, TEMP[0].yyyy
U2F TEMP[4].w, TEMP[1].xxxx
MOV OUT[0], TEMP[4]
END
";

/// Two doubles carried by an outer loop through an inner one that updates one of them; the
/// other's words are swapped into a new double once (not one double's pair on that edge, so
/// it stays in words), and an integer reads a word of the first every iteration.
const NESTED: &str = "VERT
DCL IN[0]
DCL OUT[0], GENERIC[0]
DCL TEMP[0..5]
IMM[0] FLT32 {1.5, -0.25, 0.0, 1.0}
IMM[1] UINT32 {0, 1, 5, 3}
F2D TEMP[0].xy, IN[0].xxxx
F2D TEMP[0].zw, IN[0].yyyy
MOV TEMP[1].xy, IMM[1].xxxx
BGNLOOP
  UADD TEMP[1].x, TEMP[1].xxxx, IMM[1].yyyy
  USGE TEMP[2].x, TEMP[1].xxxx, IMM[1].zzzz
  UIF TEMP[2].xxxx
    BRK
  ENDIF
  MOV TEMP[1].y, IMM[1].xxxx
  BGNLOOP
    UADD TEMP[1].y, TEMP[1].yyyy, IMM[1].yyyy
    USGE TEMP[2].y, TEMP[1].yyyy, IMM[1].wwww
    UIF TEMP[2].yyyy
      BRK
    ENDIF
    F2D TEMP[3].xy, IMM[0].xxxx
    DMAD TEMP[0].xy, TEMP[0].xyxy, TEMP[3].xyxy, TEMP[0].zwzw
  ENDLOOP
  XOR TEMP[5].x, TEMP[5].xxxx, TEMP[0].xxxx
  UADD TEMP[5].y, TEMP[5].yyyy, TEMP[0].yyyy
  DSLT TEMP[2].z, TEMP[0].zwzw, TEMP[0].xyxy
  UIF TEMP[2].zzzz
    MOV TEMP[4].xy, TEMP[0].wzww
    MOV TEMP[0].zw, TEMP[4].xxxy
  ELSE
    F2D TEMP[3].zw, IMM[0].yyyy
    DADD TEMP[0].zw, TEMP[0].zwzw, TEMP[3].zwzw
  ENDIF
ENDLOOP
MOV OUT[0].xy, TEMP[0].xyxx
MOV OUT[0].zw, TEMP[5].xxxy
END
";

/// A double accumulated in a loop whose one `CONT` is its last statement, then leaving by a
/// `BRK` that passes it out, read as a double and as words after the loop.
const FINAL_CONTINUE: &str = "FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL TEMP[0..3]
IMM[0] FLT32 {0.1, 100.0, 0.0, 1.0}
IMM[1] UINT32 {0, 1, 40, 0}
F2D TEMP[0].xy, IN[0].zzzz
F2D TEMP[0].zw, IN[0].wwww
MOV TEMP[1].x, IMM[1].xxxx
BGNLOOP
  DMUL TEMP[2].xy, TEMP[0].xyxy, TEMP[0].zwzw
  DADD TEMP[0].xy, TEMP[2].xyxy, TEMP[0].zwzw
  DABS TEMP[2].zw, TEMP[0].xyxy
  F2D TEMP[3].xy, IMM[0].yyyy
  DSLT TEMP[2].x, TEMP[3].xyxy, TEMP[2].zwzw
  UADD TEMP[1].x, TEMP[1].xxxx, IMM[1].yyyy
  USGE TEMP[2].y, TEMP[1].xxxx, IMM[1].zzzz
  OR TEMP[2].x, TEMP[2].xxxx, TEMP[2].yyyy
  UIF TEMP[2].xxxx
    BRK
  ENDIF
  CONT
ENDLOOP
D2F TEMP[3].x, TEMP[0].xyxx
MOV TEMP[3].yz, TEMP[0].xxyx
U2F TEMP[3].w, TEMP[1].xxxx
MOV OUT[0], TEMP[3]
END
";

#[test]
fn doubles_carried_round_loops_keep_the_interpreters_bits_in_every_back_end() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for (name, text) in [
        ("divergent continue", DIVERGENT_CONTINUE),
        ("nested", NESTED),
        ("final continue", FINAL_CONTINUE),
    ] {
        let program = tgsic::front::text::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let shader = Module::new(program).unwrap_or_else(|e| panic!("{name}: {e}"));
        let interp = interpreter(&shader);
        for (backend, widths) in jit_backends() {
            let widths: Vec<usize> = match backend {
                Backend::Llvm => vec![0, 4, 8, 64],
                _ => widths.to_vec(),
            };
            for lanes in widths {
                let config = CompileOptions {
                    engine: backend.into(),
                    lanes,
                    math: MathMode::Exact,
                    ..CompileOptions::default()
                };
                let jit = compile(&shader, &config)
                    .unwrap_or_else(|e| panic!("{name}, {backend:?} ({lanes} lanes): {e}"));
                for seed in 0..6 {
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
    assert!(checked >= 3 * 3 * 6, "{checked} batches");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
