//! Property test: random TGSI fragment shaders made of what the THEIA code generator compiles
//! (arithmetic with swizzles, negation and write masks, comparisons and selects, rounding,
//! dot products, nested IF/ELSE, nested counted loops with BRK and CONT) are compiled for THEIA,
//! run in the b1.2 simulator and compared with the interpreter on 64 pixels.
//!
//! Inputs and constants are multiples of 1/4 in [−1, 1], so products stay exact in Q15.17 for
//! several levels and both machines compute nearly the same numbers: a result may differ by the
//! truncation of products only (the test allows 2⁻¹⁰). Pixels whose values leave Q15.17 (the
//! simulator's range faults) are not compared; a shader needing more registers than THEIA has
//! is skipped and counted. Anything else the compiler refuses is a failure.
//!
//! A second property draws from every opcode (inexact ones, and ones THEIA cannot compile):
//! compiling gives an image that runs, or a typed error, never a panic or an internal error.
//!
//! Cases: 40 under CI (`CI=true`), 400 otherwise; `TGSIC_RANDOM_CASES` overrides. A failure
//! prints the program.

use proptest::prelude::*;
use std::fmt::Write;
use tgsic::tgsi::File;
use tgsic_runtime::host::Module;
use tgsic_runtime::testing::{ALL, Arrangement, BATCH_LANES, BatchIo};
use tgsic_tests::random::{Rng, Source, run};
use tgsic_tests::run::interpreter;
use tgsic_theia::compile::{TheiaError, TheiaOptions, compile};
use tgsic_theia::isa::{f64_to_fixed, fixed_to_f64, register_address};
use tgsic_theia::sim::Machine;

fn cases() -> u32 {
    if let Some(n) = std::env::var("TGSIC_RANDOM_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        return n;
    }
    if std::env::var_os("CI").is_some() {
        40
    } else {
        400
    }
}

const TEMPS: u64 = 6;

/// A multiple of 1/4 in [lo, hi].
fn quarter(rng: &mut Rng, lo: i32, hi: i32) -> f32 {
    (lo * 4 + rng.below(((hi - lo) * 4 + 1) as u64) as i32) as f32 / 4.0
}

struct Gen {
    rng: Rng,
    /// Draw from every opcode the lifter knows, the ones THEIA cannot express included.
    wild: bool,
    out: String,
    n: usize,
    depth: usize,
    loops: usize,
}

impl Gen {
    fn chance(&mut self, n: u64) -> bool {
        self.rng.below(n) == 0
    }

    fn line(&mut self, text: &str) {
        let indent = "  ".repeat(self.depth);
        let _ = writeln!(self.out, "{:3}: {indent}{text}", self.n);
        self.n += 1;
    }

    fn swizzle(&mut self) -> String {
        if self.chance(3) {
            return String::new();
        }
        let s: String = (0..4)
            .map(|_| "xyzw".as_bytes()[self.rng.below(4) as usize] as char)
            .collect();
        format!(".{s}")
    }

    fn src(&mut self) -> String {
        let reg = match self.rng.below(10) {
            0..=4 => format!("TEMP[{}]", self.rng.below(TEMPS)),
            5..=6 => format!("IN[{}]", self.rng.below(2)),
            7..=8 => format!("CONST[{}]", self.rng.below(4)),
            _ => "IMM[0]".to_string(),
        };
        let sw = self.swizzle();
        let neg = if self.chance(5) { "-" } else { "" };
        format!("{neg}{reg}{sw}")
    }

    fn dst(&mut self) -> String {
        let masks = ["", ".x", ".y", ".z", ".xy", ".xz", ".yz", ".xyz", ".w"];
        let m = masks[self.rng.below(masks.len() as u64) as usize];
        format!("TEMP[{}]{m}", self.rng.below(TEMPS))
    }

    fn alu(&mut self) {
        const OPS: &[(&str, usize)] = &[
            ("MOV", 1),
            ("ADD", 2),
            ("ADD", 2),
            ("MUL", 2),
            ("MAD", 3),
            ("MIN", 2),
            ("MAX", 2),
            ("SLT", 2),
            ("SGE", 2),
            ("SEQ", 2),
            ("SNE", 2),
            ("CMP", 3),
            ("FRC", 1),
            ("FLR", 1),
            ("CEIL", 1),
            ("TRUNC", 1),
            ("ABS", 1),
            ("SSG", 1),
            ("DP3", 2),
            ("DP2", 2),
            ("LRP", 3),
        ];
        /// Operations that are inexact on THEIA, or that it cannot compile at all.
        const WILD: &[(&str, usize)] = &[
            ("RCP", 1),
            ("RSQ", 1),
            ("SQRT", 1),
            ("EX2", 1),
            ("LG2", 1),
            ("POW", 2),
            ("SIN", 1),
            ("COS", 1),
            ("DIV", 2),
            ("ROUND", 1),
            ("F2I", 1),
            ("I2F", 1),
            ("F2U", 1),
            ("U2F", 1),
            ("UADD", 2),
            ("UMUL", 2),
            ("IDIV", 2),
            ("UDIV", 2),
            ("MOD", 2),
            ("UMOD", 2),
            ("AND", 2),
            ("OR", 2),
            ("XOR", 2),
            ("NOT", 1),
            ("SHL", 2),
            ("ISHR", 2),
            ("USHR", 2),
            ("IMAX", 2),
            ("UMIN", 2),
            ("ISLT", 2),
            ("USGE", 2),
            ("USEQ", 2),
            ("UCMP", 3),
            ("DDX", 1),
            ("DDY", 1),
            ("KILL_IF", 0),
            ("XPD", 2),
            ("EXP", 1),
            ("LOG", 1),
            ("LIT", 1),
            ("DST", 2),
        ];
        let (op, n) = if self.wild && self.chance(6) {
            WILD[self.rng.below(WILD.len() as u64) as usize]
        } else {
            OPS[self.rng.below(OPS.len() as u64) as usize]
        };
        if op == "KILL_IF" {
            let src = self.src();
            self.line(&format!("KILL_IF {src}"));
            return;
        }
        let sat = if self.chance(8) { "_SAT" } else { "" };
        let dst = self.dst();
        let srcs: Vec<String> = (0..n).map(|_| self.src()).collect();
        self.line(&format!("{op}{sat} {dst}, {}", srcs.join(", ")));
    }

    fn block(&mut self, budget: usize) {
        for _ in 0..budget {
            match self.rng.below(12) {
                0 if self.depth < 3 => {
                    let t = self.rng.below(TEMPS);
                    let c = "xyzw".as_bytes()[self.rng.below(4) as usize] as char;
                    self.line(&format!("IF TEMP[{t}].{c}{c}{c}{c} :0"));
                    self.depth += 1;
                    let k = 1 + self.rng.below(3) as usize;
                    self.block(k);
                    if self.chance(2) {
                        self.depth -= 1;
                        self.line("ELSE :0");
                        self.depth += 1;
                        let k = 1 + self.rng.below(3) as usize;
                        self.block(k);
                    }
                    self.depth -= 1;
                    self.line("ENDIF");
                }
                1 if self.depth < 3 && self.loops < 2 => {
                    // A counted loop: TEMP[6].x (.y when nested) counts its iterations and the
                    // loop breaks first thing once it reaches 1..3, so the body runs 0..2 times
                    // and may CONT (the random code never touches TEMP[6..7]).
                    let c = "xy".as_bytes()[self.loops] as char;
                    let limit = "xyz".as_bytes()[self.rng.below(3) as usize] as char;
                    self.line(&format!("MOV TEMP[6].{c}, IMM[0].xxxx"));
                    self.line("BGNLOOP :0");
                    self.depth += 1;
                    self.loops += 1;
                    self.line(&format!(
                        "ADD TEMP[6].{c}, TEMP[6].{c}{c}{c}{c}, IMM[0].yyyy"
                    ));
                    self.line(&format!(
                        "SGE TEMP[7].{c}, TEMP[6].{c}{c}{c}{c}, IMM[1].{limit}{limit}{limit}{limit}"
                    ));
                    self.line(&format!("IF TEMP[7].{c}{c}{c}{c} :0"));
                    self.depth += 1;
                    self.line("BRK");
                    self.depth -= 1;
                    self.line("ENDIF");
                    let k = 1 + self.rng.below(3) as usize;
                    self.block(k);
                    self.loops -= 1;
                    self.depth -= 1;
                    self.line("ENDLOOP :0");
                }
                2 if self.loops > 0 && self.depth < 4 => {
                    // BRK or CONT under a condition.
                    let t = self.rng.below(TEMPS);
                    let c = "xyzw".as_bytes()[self.rng.below(4) as usize] as char;
                    self.line(&format!("IF TEMP[{t}].{c}{c}{c}{c} :0"));
                    self.depth += 1;
                    let jump = if self.chance(2) { "BRK" } else { "CONT" };
                    self.line(jump);
                    self.depth -= 1;
                    self.line("ENDIF");
                }
                _ => self.alu(),
            }
        }
    }
}

/// A random program and its constants.
fn program(seed: u64, wild: bool) -> (String, Vec<[f32; 4]>) {
    let mut g = Gen {
        rng: Rng(seed | 1),
        wild,
        out: String::new(),
        n: 0,
        depth: 0,
        loops: 0,
    };
    let consts: Vec<[f32; 4]> = (0..4)
        .map(|_| std::array::from_fn(|_| quarter(&mut g.rng, -1, 1)))
        .collect();
    // TEMPs start at 0 in TGSI: set them from the inputs so that every value is computed.
    for t in 0..TEMPS {
        let i = t % 2;
        let sw = g.swizzle();
        g.line(&format!("MOV TEMP[{t}], IN[{i}]{sw}"));
    }
    let k = 4 + g.rng.below(10) as usize;
    g.block(k);
    let t = g.rng.below(TEMPS);
    g.line(&format!("MOV OUT[0], TEMP[{t}]"));
    g.line("END");
    let head = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL IN[1], GENERIC[1], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL CONST[0..3]\nDCL TEMP[0..7]\nIMM[0] FLT32 {    0.0000,     1.0000,     0.5000,    -1.0000}\nIMM[1] FLT32 {    1.0000,     2.0000,     3.0000,     0.2500}\n";
    (format!("{head}{}", g.out), consts)
}

/// Compiles, runs and compares one program; Ok(false) when it needs too many registers.
fn check(seed: u64) -> Result<bool, String> {
    let (text, consts) = program(seed, false);
    let p = tgsic::front::text::parse(&text).map_err(|e| format!("{e}\n{text}"))?;
    let words: Vec<[u32; 4]> = consts.iter().map(|r| r.map(f32::to_bits)).collect();
    let mut opts = TheiaOptions::default();
    opts.constants.insert(0, words.clone());
    let (a0, a1) = (
        register_address("CREG_UV0_LAST").unwrap(),
        register_address("CREG_UV1_LAST").unwrap(),
    );
    opts.bindings.insert(0, a0);
    opts.bindings.insert(1, a1);
    let t = match compile(&p, &opts) {
        Ok(t) => t,
        // The hardware's capacity (registers, or IMEM for the rare long loop body): a clear
        // refusal, counted by `most_random_shaders_fit_the_registers`.
        Err(TheiaError::Registers { .. } | TheiaError::TooLarge { .. }) => return Ok(false),
        Err(e) => return Err(format!("does not compile: {e}\n{text}")),
    };
    // The interpreter on BATCH_LANES pixels.
    let shader = Module::new(p).map_err(|e| format!("{e}\n{text}"))?;
    let mut rng = Rng(seed ^ 0xA5A5);
    let inputs: Vec<[[f32; 4]; BATCH_LANES]> = (0..shader.size(File::Input))
        .map(|_| {
            std::array::from_fn(|_| {
                std::array::from_fn(|c| {
                    if c == 3 {
                        1.0
                    } else {
                        quarter(&mut rng, -1, 1)
                    }
                })
            })
        })
        .collect();
    let io = BatchIo {
        inputs: inputs
            .iter()
            .map(|reg| std::array::from_fn(|c| std::array::from_fn(|l| reg[l][c].to_bits())))
            .collect(),
        sv: Vec::new(),
        outputs: vec![[[0; BATCH_LANES]; 4]; shader.size(File::Output)],
        alive: ALL,
        helpers: 0,
        arrangement: Arrangement::Independent,
        columns: None,
        column: 0,
    };
    let mut bind = tgsic_runtime::host::Bindings::default();
    bind.constants.push(words);
    let reference = run(&interpreter(&shader), &bind, &io).map_err(|e| format!("{e}\n{text}"))?;
    // The simulator, pixel by pixel.
    let fx = |v: f32| f64_to_fixed(v as f64).expect("inputs fit Q15.17");
    let pixels: Vec<Vec<(u16, [u32; 3])>> = (0..BATCH_LANES)
        .map(|l| {
            [(a0, &inputs[0]), (a1, &inputs[1])]
                .iter()
                .map(|&(a, reg)| (a, [fx(reg[l][0]), fx(reg[l][1]), fx(reg[l][2])]))
                .collect()
        })
        .collect();
    let mut m = Machine::new(t.binary.clone());
    m.max_steps = 100_000;
    let out = m
        .run_pixels(&pixels)
        .map_err(|e| format!("simulator: {e}\n{text}\n{}", t.assembly))?;
    for (l, (outcome, regs)) in out.iter().enumerate() {
        if outcome.range_faults > 0 {
            continue;
        }
        let got = regs.get(&128).copied().unwrap_or([0; 3]);
        for (c, &word) in got.iter().enumerate() {
            let want = f32::from_bits(reference.outputs[0][c][l]) as f64;
            if !want.is_finite() || want.abs() >= 16384.0 {
                continue;
            }
            let g = fixed_to_f64(word);
            if (g - want).abs() > 1.0 / 1024.0 {
                return Err(format!(
                    "pixel {l}.{}: THEIA {g} vs interpreter {want}\n{text}\n{}",
                    "rgb".as_bytes()[c] as char,
                    t.assembly
                ));
            }
        }
    }
    Ok(true)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_shaders_compile_for_theia_and_agree_with_the_interpreter(seed in any::<u64>()) {
        check(seed).map_err(TestCaseError::fail)?;
    }
}

/// Most random shaders fit the registers (the property test would pass vacuously otherwise).
#[test]
fn most_random_shaders_fit_the_registers() {
    let n = 60;
    let fit = (0..n as u64)
        .filter(|&s| check(s.wrapping_mul(0x9E37_79B9_7F4A_7C15)).unwrap_or(true))
        .count();
    assert!(
        fit * 4 >= n * 3,
        "only {fit} of {n} random shaders fit THEIA's registers"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    /// Any operation mix: compiling returns an image or a typed error (never a panic), and an
    /// image runs in the simulator without trapping (a runaway loop is the only way out).
    #[test]
    fn any_shader_compiles_or_says_why(seed in any::<u64>()) {
        let (text, consts) = program(seed, true);
        let p = tgsic::front::text::parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        let mut opts = TheiaOptions::default();
        opts.constants.insert(0, consts.iter().map(|r| r.map(f32::to_bits)).collect());
        opts.bindings.insert(0, register_address("CREG_UV0_LAST").unwrap());
        opts.bindings.insert(1, register_address("CREG_UV1_LAST").unwrap());
        match compile(&p, &opts) {
            Ok(t) => {
                let mut m = Machine::new(t.binary.clone());
                m.max_steps = 1_000_000;
                let pixel = vec![(register_address("CREG_UV0_LAST").unwrap(), [0x8000, 0x1_0000, 0x2_8000])];
                m.run_pixels(&[pixel]).map_err(|e| TestCaseError::fail(format!("{e}\n{text}\n{}", t.assembly)))?;
            }
            Err(e) => {
                let msg = e.to_string();
                prop_assert!(!msg.contains("internal"), "{}\n{}", msg, text);
            }
        }
    }
}
