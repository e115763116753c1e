//! The THEIA code generator against the interpreter: every corpus fragment shader is compiled
//! for THEIA; each one that compiles runs in the bit-exact b1.2 simulator on its inputs in
//! Q15.17 and is compared with the interpreter's rendering. The test prints, per shader, why it
//! does not compile or its size and maximum error.

use std::collections::BTreeMap;
use tgsic::tgsi::{File, Program, Semantic};
use tgsic_runtime::host::Texture;
use tgsic_runtime::host::{Bindings, Module};
use tgsic_tests::run::{interpreter, render};
use tgsic_tests::theia::options_for;
use tgsic_tests::{Corpus, corpus};
use tgsic_theia::compile::{TheiaOptions, TheiaProgram, compile};
use tgsic_theia::isa::{f64_to_fixed, fixed_to_f64, register_address};
use tgsic_theia::sim::Machine;

const W: u32 = 8;
const H: u32 = 8;

/// A 4×4 texture whose texels are multiples of 1/64: exact in f32 and in Q15.17, as are their
/// bilinear blends at the grid's coordinates, so the texture adds no rounding of its own.
fn texture() -> Texture {
    let values: Vec<f32> = (0..16u32)
        .flat_map(|k| {
            [
                (k * 37 % 65) as f32 / 64.0,
                (k * 91 % 65) as f32 / 64.0,
                (k * 53 % 65) as f32 / 64.0,
                1.0,
            ]
        })
        .collect();
    Texture::from_rgba32f(4, 4, 1, &values).expect("texture")
}

fn units(p: &Program) -> usize {
    [File::Sampler, File::SamplerView]
        .iter()
        .flat_map(|&f| p.declarations_of(f).map(|d| d.span().last as usize + 1))
        .max()
        .unwrap_or(0)
}

/// The interpreter's colour of texture unit 0 at each pixel's texture coordinate.
fn sampled(bind: &Bindings) -> Vec<[f32; 4]> {
    let src = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\n  0: TEX OUT[0], IN[0], SAMP[0], 2D\n  1: END\n";
    let s = Module::new(tgsic::front::text::parse(src).unwrap()).unwrap();
    render(&interpreter(&s), bind, W, H, 0)
        .unwrap()
        .pixels
        .to_vec()
}

fn fixed3(v: [f32; 3]) -> [u32; 3] {
    v.map(|x| f64_to_fixed(x as f64).expect("test inputs fit Q15.17"))
}

/// Runs the image over the grid: the maximum error and the pixels compared.
fn run(p: &Program, t: &TheiaProgram, bind: &Bindings, reference: &[[f32; 4]]) -> Run {
    let tex = register_address("CREG_TEXTURE_COLOR").unwrap();
    let colors = if units(p) > 0 {
        sampled(bind)
    } else {
        Vec::new()
    };
    let sems: BTreeMap<u32, Option<Semantic>> = p
        .declarations_of(File::Input)
        .flat_map(|d| {
            let s = d.semantic.map(|s| s.name);
            (d.span().first..=d.span().last).map(move |r| (r, s))
        })
        .collect();
    let integer = p
        .properties
        .iter()
        .any(|q| q.name == tgsic::tgsi::PropertyName::FsCoordPixelCenter && q.value == 1);
    let d = if integer { 0.5 } else { 0.0 };
    let mut pixels = Vec::new();
    for j in 0..H {
        for i in 0..W {
            let mut regs = Vec::new();
            for (&reg, &addr) in &t.bindings {
                let v = match sems.get(&reg).copied().flatten() {
                    Some(Semantic::Position) => {
                        [i as f32 + 0.5 - d, H as f32 - (j as f32 + 0.5) - d, 0.5]
                    }
                    Some(Semantic::Face) => [1.0, 0.0, 0.0],
                    _ => [
                        (i as f32 + 0.5) / W as f32,
                        (j as f32 + 0.5) / H as f32,
                        0.0,
                    ],
                };
                regs.push((addr, fixed3(v)));
            }
            if let Some(c) = colors.get((j * W + i) as usize) {
                regs.push((tex, fixed3([c[0], c[1], c[2]])));
            }
            pixels.push(regs);
        }
    }
    let mut m = Machine::new(t.binary.clone());
    m.max_steps = 200_000;
    let out = match m.run_pixels(&pixels) {
        Ok(o) => o,
        Err(e) => {
            return Run {
                worst: f64::INFINITY,
                compared: 0,
                faulted: 0,
                at: format!("simulator: {e}"),
            };
        }
    };
    let (mut worst, mut n, mut at, mut faulted) = (0f64, 0, String::new(), 0);
    for (k, (outcome, regs)) in out.iter().enumerate() {
        // Values past Q15.17 on this pixel: THEIA cannot compute it (the simulator saw the
        // hardware wrap a result).
        if outcome.range_faults > 0 {
            faulted += 1;
            continue;
        }
        let got = regs.get(&128).copied().unwrap_or([0; 3]);
        for c in 0..3 {
            let want = reference[k][c] as f64;
            if !want.is_finite() || want.abs() >= 16384.0 {
                continue;
            }
            n += 1;
            let e = (fixed_to_f64(got[c]) - want).abs();
            if e > worst {
                worst = e;
                at = format!(
                    "pixel {k}.{}: {} vs {want}",
                    "rgb".as_bytes()[c] as char,
                    fixed_to_f64(got[c])
                );
            }
        }
    }
    Run {
        worst,
        compared: n,
        faulted,
        at,
    }
}

/// The lines of generated assembly that read VOID as an operand whose value matters. VOID is
/// register 0 and reads (1, 1, 1) at the start of a routine (the ROM's last RETURN is
/// forwarded), or a forwarded result after a write to it: code must never depend on it. The
/// always-true jump `JEQX L VOID VOID` compares VOID with itself, whatever it holds.
fn void_reads(assembly: &str) -> Vec<String> {
    const UNARY: &[&str] = &[
        "COPY", "NEG", "FRAC", "INC", "INCX", "INCY", "INCZ", "DEC", "MAG", "UNSCALE",
    ];
    assembly
        .lines()
        .map(|l| l.split("//").next().unwrap_or("").trim())
        .filter(|l| !l.is_empty() && !l.ends_with(':'))
        .filter(|l| {
            let t: Vec<&str> = l.split_whitespace().collect();
            let op = t[0];
            let always_true = op.starts_with('J') && t.get(2) == t.get(3);
            let used: &[usize] = match op {
                "ZERO" | "NOP" | "RETURN" | "SETX" | "SETY" | "SETZ" | "SWIZZLE3D" => &[],
                _ if UNARY.contains(&op) => &[2],
                _ if always_true => &[],
                _ => &[2, 3],
            };
            used.iter().any(|&k| t.get(k) == Some(&"VOID"))
        })
        .map(str::to_string)
        .collect()
}

/// The truncating products in PIXELSHADER: one per MUL, three per DOT.
fn products(assembly: &str) -> usize {
    let pixel = assembly
        .split("ENTRYPOINT_ADRR_PIXELSHADER:")
        .nth(1)
        .unwrap_or("");
    pixel
        .lines()
        .map(|l| match l.split_whitespace().next() {
            Some("MUL") => 1,
            Some("DOT") => 3,
            _ => 0,
        })
        .sum()
}

/// What [`run`] found.
struct Run {
    /// The largest difference from the interpreter.
    worst: f64,
    /// Colour components compared.
    compared: usize,
    /// Pixels where a value left Q15.17 (not compared).
    faulted: usize,
    /// Where the largest difference is.
    at: String,
}

#[test]
fn compiled_shaders_match_the_interpreter() {
    let (Some(mesa), Some(etna)) = (corpus(Corpus::Mesa), corpus(Corpus::Etnaviv)) else {
        return;
    };
    let tex = texture();
    let mut reasons: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut report = Vec::new();
    let (mut total, mut compiled, mut exact) = (0, 0, 0);
    let mut failures = Vec::new();
    let (mut sizes, mut out_of_range, mut hashes) = (Vec::new(), Vec::new(), Vec::new());
    // Shaders whose code uses MOD (an AND with a mask other than 2^k − 1), which one of the
    // RTL's event orders computes differently.
    let mut mod_users = Vec::new();
    for (k, path) in mesa.iter().chain(&etna).enumerate() {
        let src = std::fs::read(path).unwrap();
        let Ok(read) = tgsic::front::read(&src) else {
            continue;
        };
        let p = read.program;
        if p.processor != tgsic::tgsi::Processor::Fragment {
            continue;
        }
        total += 1;
        let (opts, consts) = options_for(path, &p, k as u32);
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let t = match compile(&p, &opts) {
            Ok(t) => t,
            Err(e) => {
                let msg = e.to_string();
                // Without the location (`12:6: ` or `<unknown>: `), up to the first detail.
                let why = match msg.split_once(": ") {
                    Some((loc, rest))
                        if loc.starts_with(|c: char| c.is_ascii_digit() || c == '<') =>
                    {
                        rest
                    }
                    _ => msg.as_str(),
                };
                let key = why.split(':').next().unwrap_or(why).to_string();
                reasons
                    .entry(key)
                    .or_default()
                    .push(format!("{name} ({msg})"));
                continue;
            }
        };
        let void = void_reads(&t.assembly);
        assert!(void.is_empty(), "{name} reads VOID: {void:?}");
        let Ok(shader) = Module::new(p.clone()) else {
            continue;
        };
        let mut bind = Bindings::default();
        bind.constants.push(consts);
        bind.textures = vec![Some(tex.clone()); units(&p)];
        let Ok(img) = render(&interpreter(&shader), &bind, W, H, 0) else {
            continue;
        };
        let Run {
            worst: err,
            compared: n,
            faulted,
            at,
        } = run(&p, &t, &bind, &img.pixels);
        if faulted > 0 {
            out_of_range.push(format!("{name} ({faulted} of {} pixels)", W * H));
        }
        if n == 0 && faulted > 0 {
            continue;
        }
        compiled += 1;
        // Add/multiply/move shaders: at most the truncation of each product (one unit of
        // 2^-17 per MUL, three per DOT) and one unit for the rounding of the inputs and
        // constants to Q15.17 (the test's inputs and texels are exact; the corpus constants are
        // not). Quotients and square roots can magnify errors, and a square root near 0 or a
        // quotient by a small value magnifies the rounding of the shader's constants (piglit's
        // asin/acos sweep takes √(1 − x) at x = 24·(1/24 rounded), off by 0.011): shaders with
        // DIV or MAG (LG2, POW, RSQ, SQRT, RCP, DIV) get 2^-6; each lowered function's own error
        // is swept in theia_functions.rs.
        // fract(x·C) with C outside Q15.17 (a hash such as fract(sin(x)·43758.5453)): THEIA
        // computes the fraction of its own product exactly, but every unit of difference in x
        // is multiplied by |C|, so the colour is another hash value; it must run in range.
        if t.stats.fraction_products > 0 {
            hashes.push(format!("{name} ({n} values, max difference {err:.2})"));
            continue;
        }
        let lowered = t.assembly.contains("DIV ") || t.assembly.contains("MAG ");
        let products = products(&t.assembly);
        let bound = if lowered {
            1.0 / 64.0
        } else {
            (products + 1) as f64 / 131072.0
        };
        if err <= bound {
            exact += 1;
        } else {
            failures.push(format!("{name}: max error {err:.3e} > {bound:.3e} ({at})"));
        }
        if t.assembly
            .lines()
            .any(|l| l.trim_start().starts_with("MOD "))
        {
            mod_users.push(name.clone());
        }
        sizes.push(t.stats.pixel_words);
        report.push(format!(
            "{name}: {} instructions ({products} products), R {}, C {}, max error {err:.2e} = {:.2} units of 2^-17 over {n} values",
            t.stats.pixel_words,
            t.stats.registers,
            t.stats.constant_registers,
            err * 131072.0
        ));
    }
    eprintln!("{}", report.join("\n"));
    sizes.sort_unstable();
    eprintln!(
        "THEIA: {compiled} of {total} fragment shaders compile and run; {exact} within the bound; PIXELSHADER words: median {}, max {}",
        sizes.get(sizes.len() / 2).copied().unwrap_or(0),
        sizes.last().copied().unwrap_or(0)
    );
    eprintln!(
        "  {:4} compile but leave Q15.17 on some pixels (those pixels are not compared): {}",
        out_of_range.len(),
        out_of_range.join(", ")
    );
    eprintln!(
        "  {:4} compile with fract(x·C), C outside Q15.17 (hashes: run, not compared): {}",
        hashes.len(),
        hashes.join(", ")
    );
    eprintln!(
        "  {:4} use MOD (an AND with a mask other than 2^k - 1): {}",
        mod_users.len(),
        mod_users.join(", ")
    );
    for (why, names) in &reasons {
        eprintln!("  {:4} do not compile: {why}", names.len());
    }
    // TGSIC_THEIA_REASONS=1: every shader that does not compile, with its error.
    if std::env::var_os("TGSIC_THEIA_REASONS").is_some() {
        for names in reasons.values() {
            for n in names {
                eprintln!("    {n}");
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(compiled >= 50, "only {compiled} shaders compile");
}

/// The classic THEIA pixel shaders, in TGSI and by hand in THEIA assembly: the compiled
/// PIXELSHADER is no longer than the hand-written one and computes the same colours.
#[test]
fn classic_shaders_are_as_short_as_hand_written_ones() {
    let head = "FRAG\nDCL IN[0], TEXCOORD[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\nDCL CONST[0..1]\nDCL TEMP[0..1]\n";
    let cases = [
        (
            "pass the texture colour through",
            "  0: TEX OUT[0], IN[0], SAMP[0], 2D\n  1: END\n",
            "ENTRYPOINT_ADRR_PIXELSHADER:\n COPY OREG_PIXEL_COLOR CREG_TEXTURE_COLOR VOID\n RETURN RT_TRUE\n",
        ),
        (
            "modulate it by a constant",
            "  0: TEX TEMP[0], IN[0], SAMP[0], 2D\n  1: MUL OUT[0], TEMP[0], CONST[0]\n  2: END\n",
            "ENTRYPOINT_ADRR_USERCONSTANTS:\n ZERO C1 VOID VOID\n SETX C1 32'h00010000\n SETY C1 32'h00018000\n SETZ C1 32'h00006000\n RETURN RT_TRUE\nENTRYPOINT_ADRR_PIXELSHADER:\n MUL OREG_PIXEL_COLOR CREG_TEXTURE_COLOR C1\n RETURN RT_TRUE\n",
        ),
        (
            "black or white by the colour's magnitude",
            "  0: TEX TEMP[0], IN[0], SAMP[0], 2D\n  1: DP3 TEMP[1].x, TEMP[0], TEMP[0]\n  2: SQRT TEMP[1].x, TEMP[1].xxxx\n  3: SGE OUT[0], TEMP[1].xxxx, CONST[1].xxxx\n  4: END\n",
            "ENTRYPOINT_ADRR_USERCONSTANTS:\n ZERO C1 VOID VOID\n SETX C1 32'h00010000\n ZERO C2 VOID VOID\n SETX C2 32'h00020000\n SETY C2 32'h00020000\n SETZ C2 32'h00020000\n RETURN RT_TRUE\nENTRYPOINT_ADRR_PIXELSHADER:\n MAG R1 CREG_TEXTURE_COLOR VOID\n JGEX WHITE R1 C1\n ZERO OREG_PIXEL_COLOR VOID VOID\n RETURN RT_TRUE\nWHITE:\n COPY OREG_PIXEL_COLOR C2 VOID\n RETURN RT_TRUE\n",
        ),
    ];
    let consts: Vec<[u32; 4]> = vec![
        [0.5f32, 0.75, 0.1875, 1.0].map(f32::to_bits),
        [0.5f32, 0.0, 0.0, 0.0].map(f32::to_bits),
    ];
    let tex = register_address("CREG_TEXTURE_COLOR").unwrap();
    for (what, body, hand) in cases {
        let p = tgsic::front::text::parse(&format!("{head}{body}")).unwrap();
        let mut opts = TheiaOptions::default();
        opts.constants.insert(0, consts.clone());
        let t = compile(&p, &opts).unwrap_or_else(|e| panic!("{what}: {e}"));
        let h = tgsic_theia::isa::assemble(hand, tgsic_theia::isa::Layout::Mem).unwrap();
        let hand_words = hand
            .split("ENTRYPOINT_ADRR_PIXELSHADER:")
            .nth(1)
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.trim().ends_with(':'))
            .count();
        assert!(
            t.stats.pixel_words <= hand_words,
            "{what}: {} instructions, by hand {hand_words}\n{}",
            t.stats.pixel_words,
            t.assembly
        );
        let colors = [
            [0.0f32, 0.0, 0.0],
            [0.25, 0.5, 0.75],
            [1.0, 1.0, 1.0],
            [0.1, 0.2, 0.3],
        ];
        let pixels: Vec<Vec<(u16, [u32; 3])>> =
            colors.iter().map(|&c| vec![(tex, fixed3(c))]).collect();
        let ours = Machine::new(t.binary.clone()).run_pixels(&pixels).unwrap();
        let theirs = Machine::new(h).run_pixels(&pixels).unwrap();
        for (k, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            assert_eq!(
                a.1.get(&128),
                b.1.get(&128),
                "{what}: colour {k}\n{}",
                t.assembly
            );
        }
    }
}
/// The Mesa corpus's real shaders for THEIA: of the fragment shaders whose textures b1.2 can
/// fetch ([`tgsic_tests::theia::textures_fetchable`]), compiled with their constants and generic
/// inputs bound to registers, at least half compile. Prints each one that does not, with why.
#[test]
fn most_real_mesa_shaders_compile() {
    let Some(mesa) = corpus(Corpus::Mesa) else {
        return;
    };
    let (mut fragment, mut eligible, mut compiled) = (0, 0, 0);
    let mut reasons: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (k, path) in mesa.iter().enumerate() {
        let Ok(read) = tgsic::front::read(&std::fs::read(path).unwrap()) else {
            continue;
        };
        let p = read.program;
        if p.processor != tgsic::tgsi::Processor::Fragment {
            continue;
        }
        fragment += 1;
        if !tgsic_tests::theia::textures_fetchable(&p) {
            continue;
        }
        eligible += 1;
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        match tgsic_tests::theia::compile_for_test(path, &p, k as u32) {
            Ok(_) => compiled += 1,
            Err(e) => {
                let detail = e.detail();
                let key = detail.split(':').next().unwrap_or(&detail).to_string();
                reasons.entry(key).or_default().push(format!("{name}: {e}"));
            }
        }
    }
    eprintln!(
        "Mesa: {fragment} fragment shaders, {eligible} with textures THEIA can fetch (or none), {compiled} of them compile"
    );
    for (why, names) in &reasons {
        eprintln!("  {:3} {why}", names.len());
        for n in names {
            eprintln!("        {n}");
        }
    }
    assert!(
        2 * compiled >= eligible,
        "only {compiled} of {eligible} compile"
    );
}

#[test]
fn void_reads_are_found() {
    let asm = "ENTRYPOINT_ADRR_PIXELSHADER:\n    ADD R1 VOID R2 // x\n    COPY R1 R2 VOID\n    JEQX L1 VOID VOID\nL1:\n    JGX L1 R1 VOID\n    ZERO R3 VOID VOID\n    RETURN RT_TRUE\n";
    assert_eq!(void_reads(asm), ["ADD R1 VOID R2", "JGX L1 R1 VOID"]);
}

/// Double-precision shaders (the fractal shaders of `corpus/mesa-fp64`) are refused with an
/// error that names the first 64-bit instruction and why.
#[test]
fn sixty_four_bit_programs_are_refused_with_why() {
    let Some(files) = corpus(Corpus::MesaFp64) else {
        return;
    };
    assert_eq!(files.len(), 4);
    for f in files {
        let src = std::fs::read_to_string(&f).expect("reads");
        let p = tgsic::front::text::parse(&src).expect("parses");
        let e = compile(&p, &TheiaOptions::default()).expect_err("refused");
        let text = e.to_string();
        assert!(
            text.contains("F2D cannot be compiled for THEIA") && text.contains("no 64-bit values"),
            "{}: {text}",
            f.display()
        );
    }
}
