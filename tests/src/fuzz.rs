//! The fuzz targets: one function per target, each taking the fuzzer's bytes and panicking only
//! when tgsic is wrong. `fuzz/` runs them under libFuzzer (`cargo fuzz run NAME`); the stable
//! smoke test `tests/tests/fuzz_smoke.rs` runs the same functions over the shared corpus and
//! mutations of it, so CI exercises every target without a nightly toolchain.
//!
//! What each target holds, beyond "never panics":
//! - [`binary_reader`], [`text_reader`]: a program that reads and validates writes back in
//!   both forms, and reading what was written gives the same program.
//! - [`lift_optimize`]: the lifted IR verifies, and still verifies after every optimization
//!   level.
//! - [`jit_vs_interp`]: a valid program generated from the bytes computes the same bits in the
//!   interpreter and the Cranelift JIT.
//! - [`wide_jit_vs_interp`]: a valid program with doubles and 64-bit integers generated from
//!   the bytes lifts to IR that verifies before and after optimization, and computes the same
//!   bits in the interpreter, the IR evaluator at every optimization level and each JIT back
//!   end built in (Cranelift; LLVM with the `llvm` feature), exact math.
//! - [`theia_asm`]: assembled words disassemble to text that assembles to the same words.
//! - [`theia_compile`]: a compiled program's assembly assembles to its image, and the image
//!   disassembles and re-assembles to itself.
//! - [`code_cache`]: a code cache entry damaged as the bytes say is never run: a runtime reads
//!   it only when it is whole, else compiles again, and renders the interpreter's pixels.
//! - [`compute_dispatch`]: a compute program (the text after a 16-byte header) dispatched over
//!   a grid by the interpreter and Cranelift's code, with buffers, an image and shared memory
//!   of the sizes the header says, touches nothing outside them (guard bytes around every one
//!   stay as they were) and ends (a deadline and a loop budget bound it), whatever offsets the
//!   program computes.

use crate::generate::{program_from, wide_program_from};
use crate::random::{Bytes, Rng, Source, batch, bindings, difference, run};
use tgsic::front::{binary, read, text};
use tgsic::opt::{OptLevel, optimize};
use tgsic::tgsi::Program;
use tgsic_theia::isa::{Layout, assemble, disassemble};

/// A fuzz target: the fuzzer's bytes in, a panic when tgsic is wrong.
pub type Target = fn(&[u8]);

/// Every target, by name, for the smoke test and the fuzz crate.
pub const TARGETS: &[(&str, Target)] = &[
    ("binary_reader", binary_reader),
    ("text_reader", text_reader),
    ("lift_optimize", lift_optimize),
    ("jit_vs_interp", jit_vs_interp),
    ("wide_jit_vs_interp", wide_jit_vs_interp),
    ("theia_asm", theia_asm),
    ("theia_compile", theia_compile),
    ("code_cache", code_cache),
    ("compute_dispatch", compute_dispatch),
];

/// Bytes of guard on each side of every buffer and image [`compute_dispatch`] lends.
const GUARD: usize = 64;

/// A compute program over guarded memory: bytes 0..16 choose the grid (1..=4 groups per axis),
/// two buffers' sizes (0..=255 bytes each), an image's size (1..=8 square) and format, the
/// shared size (0..=1020 bytes); the rest is the program's text. Work groups above 256
/// invocations are skipped (slow, not more telling).
pub fn compute_dispatch(data: &[u8]) {
    use tgsic_runtime::host::{
        Bindings, Image, ImageFormat, Module, Resources, RunControl, RunError,
    };
    if data.len() < 16 {
        return;
    }
    let (h, rest) = data.split_at(16);
    let Ok(p) = text::parse(&String::from_utf8_lossy(rest)) else {
        return;
    };
    let Ok(m) = Module::new(p) else { return };
    if m.block.is_some_and(|b| b.iter().product::<u32>() > 256) {
        return;
    }
    let grid = [
        1 + (h[0] % 4) as u32,
        1 + (h[1] % 4) as u32,
        1 + (h[2] % 2) as u32,
    ];
    let side = 1 + (h[5] % 8) as u32;
    let formats = [
        ImageFormat::R32Uint,
        ImageFormat::R32Sint,
        ImageFormat::R8G8B8A8Unorm,
        ImageFormat::R32G32B32A32Float,
        ImageFormat::R16G16Snorm,
        ImageFormat::R11G11B10Float,
    ];
    let format = formats[h[6] as usize % formats.len()];
    let sizes = [
        h[3] as usize,
        h[4] as usize,
        (side * side * format.texel_bytes()) as usize,
    ];
    let fill = |n: usize, k: u8| -> Vec<u8> {
        (0..n + 2 * GUARD)
            .map(|i| (i as u8).wrapping_mul(31) ^ k)
            .collect()
    };
    let mut mem: Vec<Vec<u8>> = sizes
        .iter()
        .zip([1u8, 2, 3])
        .map(|(&n, k)| fill(n, k))
        .collect();
    let before: Vec<Vec<u8>> = mem.clone();
    let shared = 4 * (h[7] as u32 % 256);
    {
        let [b0, b1, img] = &mut mem[..] else { return };
        let mut res = Resources::new();
        let s0 = &mut b0[GUARD..GUARD + sizes[0]];
        let s1 = &mut b1[GUARD..GUARD + sizes[1]];
        let s2 = &mut img[GUARD..GUARD + sizes[2]];
        let ok = res.bind_buffer(0, s0).is_ok()
            && res.bind_buffer(1, s1).is_ok()
            && Image::new(s2, [side, side, 1], format).is_ok_and(|i| res.bind_image(0, i).is_ok())
            && res.set_shared_bytes(shared).is_ok();
        assert!(ok, "valid bindings bind");
        let bind = Bindings {
            max_iterations: 256,
            constants: vec![vec![
                [h[8] as u32, h[9] as u32, h[10] as u32, 0xffff_fff0];
                4
            ]],
            ..Bindings::default()
        };
        let control = RunControl {
            deadline: Some(std::time::Instant::now() + std::time::Duration::from_secs(5)),
            ..RunControl::default()
        };
        // The interpreter, then Cranelift's code on what the interpreter left, its groups on
        // two threads (a program the JIT does not compile is a typed error, not a failure).
        let jit = tgsic_runtime::host::CompileOptions {
            engine: tgsic_runtime::host::EngineKind::Cranelift,
            ..Default::default()
        };
        let shaders = [
            Some(crate::run::interpreter(&m)),
            crate::run::compile(&m, &jit).ok(),
        ];
        // The JIT's groups on two threads (one contiguous run each, shared memory each).
        static TWO: std::sync::OnceLock<tgsic_runtime::host::Runtime> = std::sync::OnceLock::new();
        let two = TWO.get_or_init(|| crate::run::runtime_with_threads(2));
        for (k, shader) in shaders.iter().enumerate() {
            let Some(shader) = shader else { continue };
            let rt = if k == 0 { crate::run::runtime() } else { two };
            match shader.dispatch(rt, &bind, &mut res, grid, &control) {
                Ok(()) => {}
                Err(tgsic_runtime::host::HostError::Run(RunError::TimeLimit)) => {
                    panic!("a dispatch of at most 32 groups of 256 invocations took 5 s")
                }
                Err(_) => {}
            }
        }
    }
    for (k, (after, was)) in mem.iter().zip(&before).enumerate() {
        let n = sizes[k];
        assert_eq!(
            after[..GUARD],
            was[..GUARD],
            "memory before resource {k} changed"
        );
        assert_eq!(
            after[GUARD + n..],
            was[GUARD + n..],
            "memory after resource {k} changed"
        );
    }
}

/// A valid program written in both forms reads back as itself.
fn round_trips(p: &Program) {
    let words = binary::encode(p).expect("a valid program encodes");
    let back = binary::decode(&words).expect("encoded tokens decode");
    assert_eq!(&back.program, p, "binary round trip");
    let printed = text::print(p);
    let again =
        text::parse(&printed).unwrap_or_else(|e| panic!("printed text reads back: {e}\n{printed}"));
    assert_eq!(&again, p, "text round trip\n{printed}");
}

/// The binary reader: any bytes; a stream that decodes and validates round-trips.
pub fn binary_reader(data: &[u8]) {
    if let Ok(src) = binary::decode_bytes(data)
        && tgsic::valid::validate(&src.program).is_ok()
    {
        round_trips(&src.program);
    }
}

/// The text reader: any bytes (as text); a program that parses and validates round-trips.
pub fn text_reader(data: &[u8]) {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(p) = text::parse(s)
        && tgsic::valid::validate(&p).is_ok()
    {
        round_trips(&p);
    }
}

/// The validator, the lifter and the optimizer: any input either form reads.
pub fn lift_optimize(data: &[u8]) {
    let Ok(src) = read(data) else {
        return;
    };
    if tgsic::valid::validate(&src.program).is_err() {
        return;
    }
    let Ok(mut f) = tgsic::ir::lift::lift(&src.program) else {
        return;
    };
    if let Err(e) = tgsic::ir::verify::verify(&f) {
        panic!("the lifted IR does not verify: {}", e[0]);
    }
    for level in [OptLevel::O1, OptLevel::O2] {
        optimize(&mut f, level);
        if let Err(e) = tgsic::ir::verify::verify(&f) {
            panic!("the IR does not verify after {level:?}: {}", e[0]);
        }
    }
}

/// The shader [`code_cache`] compiles: arithmetic, a transcendental, a branch.
const CACHED_SHADER: &str = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\n\
    DCL TEMP[0]\nIMM[0] FLT32 { 0.5, 3.0, 0.25, 1.0 }\nMUL TEMP[0], IN[0], IMM[0].yyyy\n\
    SIN TEMP[0].x, TEMP[0].xxxx\nSLT TEMP[0].w, IN[0].xxxx, IMM[0].xxxx\n\
    IF TEMP[0].wwww\nADD TEMP[0].y, TEMP[0].yyyy, IMM[0].zzzz\nENDIF\nMOV OUT[0], TEMP[0]\nEND\n";

/// A code cache entry damaged as `data` says (its first byte picks which, the code's or its
/// function's facts, and how: replaced by the rest, truncated, bytes flipped at the positions
/// the rest gives, or the rest appended), then read by a new runtime on the same folder: a hit
/// only for code that is still whole (damaged facts cost a lift, not the hit), and the
/// interpreter's pixels either way.
pub fn code_cache(data: &[u8]) {
    use tgsic_runtime::host::{
        CacheDir, CacheUse, CompileOptions, Frame, RunControl, Runtime, RuntimeOptions,
    };
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let Some((&how, rest)) = data.split_first() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!(
        "tgsic-fuzz-cache-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let runtime = || {
        Runtime::new(RuntimeOptions {
            threads: 1,
            code_cache: CacheDir::At(dir.clone()),
            ..RuntimeOptions::default()
        })
        .expect("a runtime")
    };
    let frame = Frame {
        width: 8,
        height: 8,
        output: 0,
    };
    let bind = tgsic_runtime::host::Bindings::default();
    let first = runtime();
    let module = first.load(CACHED_SHADER.as_bytes()).expect("loads");
    let want =
        crate::run::render(&crate::run::interpreter(&module), &bind, 8, 8, 0).expect("renders");
    // Exact math: the pixels are checked against the interpreter's. One engine: a tiered
    // compile's second tier would write its own entry in the background, racing the damage.
    let opts = CompileOptions {
        math: tgsic::back::abi::MathMode::Exact,
        ..CompileOptions::with_engine(tgsic_runtime::host::EngineKind::Cranelift)
    };
    let c = first.compile(&module, &opts).expect("compiles");
    assert_eq!(c.cache_use(), CacheUse::Miss);
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("the cache folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            !p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .collect();
    entries.sort();
    assert_eq!(
        entries.len(),
        2,
        "the code's entry and its function's facts"
    );
    // Bit 2 of `how` picks the entry to damage: the code (whose damage is a miss) or the
    // facts (whose damage costs a lift and is a hit).
    let code_at = entries
        .iter()
        .position(|e| std::fs::read(e).is_ok_and(|b| b.windows(8).any(|w| w == b"TGSICOD4")))
        .expect("the code's entry");
    let target = if how & 4 == 0 { code_at } else { 1 - code_at };
    let whole = std::fs::read(&entries[target]).expect("reads the entry");
    let mut damaged = whole.clone();
    match how % 4 {
        0 => damaged = rest.to_vec(),
        1 => damaged.truncate(whole.len() * usize::from(rest.first().copied().unwrap_or(0)) / 256),
        2 => {
            for pair in rest.chunks(2) {
                let at = usize::from(pair[0]) * 257 + usize::from(*pair.get(1).unwrap_or(&1));
                let at = at % whole.len();
                damaged[at] ^= pair.get(1).copied().unwrap_or(1).max(1);
            }
        }
        _ => damaged.extend_from_slice(rest),
    }
    std::fs::write(&entries[target], &damaged).expect("writes the entry");
    let second = runtime();
    let module = second.load(CACHED_SHADER.as_bytes()).expect("loads");
    let c = second.compile(&module, &opts).expect("compiles");
    let expected = if damaged == whole || target != code_at {
        CacheUse::Hit
    } else {
        CacheUse::Miss
    };
    assert_eq!(
        c.cache_use(),
        expected,
        "the {} entry was {} bytes, now {}",
        if target == code_at { "code" } else { "facts" },
        whole.len(),
        damaged.len()
    );
    let got = c
        .render(&second, &bind, frame, &RunControl::default())
        .expect("renders");
    assert_eq!(got.pixels, want.pixels);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The JIT against the interpreter on a generated valid program: the bytes give, through
/// `arbitrary`, the seed of the inputs, the width, then one decision of the generator each.
pub fn jit_vs_interp(data: &[u8]) {
    use crate::run::{compile, interpreter};
    use tgsic::back::Backend;
    use tgsic_runtime::host::{CompileOptions, Module};
    let mut u = arbitrary::Unstructured::new(data);
    let seed: u64 = u.arbitrary().unwrap_or(0);
    let lanes = *u.choose(&[4usize, 8, 16, 32]).unwrap_or(&8);
    let p = program_from(Bytes::new(u), 32);
    let printed = text::print(&p);
    let shader =
        Module::new(p).unwrap_or_else(|e| panic!("a generated program loads: {e}\n{printed}"));
    let config = CompileOptions {
        engine: Backend::Cranelift.into(),
        lanes,
        math: tgsic::back::abi::MathMode::Exact,
        ..CompileOptions::default()
    };
    let jit = compile(&shader, &config)
        .unwrap_or_else(|e| panic!("a generated program compiles: {e}\n{printed}"));
    let mut rng = Rng(seed);
    let bind = bindings(&shader, &mut rng);
    let io = batch(&shader, &mut rng);
    let reference =
        run(&interpreter(&shader), &bind, &io).unwrap_or_else(|e| panic!("{e}\n{printed}"));
    let out = run(&jit, &bind, &io).unwrap_or_else(|e| panic!("{e}\n{printed}"));
    if let Some(d) = difference(&reference, &out, io.alive) {
        panic!("the JIT ({lanes} lanes) differs from the interpreter: {d}\n{printed}");
    }
}

/// 64-bit arithmetic on a generated valid program: the bytes give, through `arbitrary`, the
/// seed of the inputs, the width, then one decision of the generator each. The lifted IR
/// verifies after every optimization level and evaluates to the interpreter's bits, and so
/// does every JIT back end built in, exact math (doubles are exact in every mode).
pub fn wide_jit_vs_interp(data: &[u8]) {
    use crate::random::{agree, ir_variants};
    use crate::run::compile;
    use tgsic_runtime::host::{CompileOptions, Module};
    let mut u = arbitrary::Unstructured::new(data);
    let seed: u64 = u.arbitrary().unwrap_or(0);
    let lanes = *u.choose(&[4usize, 8, 16]).unwrap_or(&8);
    let p = wide_program_from(Bytes::new(u), 48);
    let printed = text::print(&p);
    let shader =
        Module::new(p).unwrap_or_else(|e| panic!("a generated program loads: {e}\n{printed}"));
    let ir = ir_variants(&shader).unwrap_or_else(|e| panic!("{e}\n{printed}"));
    let jits: Vec<_> = crate::jit_backends()
        .into_iter()
        .map(|(backend, _)| {
            let config = CompileOptions {
                engine: backend.into(),
                lanes,
                math: tgsic::back::abi::MathMode::Exact,
                ..CompileOptions::default()
            };
            let jit = compile(&shader, &config)
                .unwrap_or_else(|e| panic!("a generated program compiles: {e}\n{printed}"));
            (format!("{backend:?} ({lanes} lanes)"), jit)
        })
        .collect();
    if let Err(e) = agree(&shader, &ir, &jits, &mut Rng(seed), 1) {
        panic!("{e}\n{printed}");
    }
}

/// The THEIA assembler: any text; what assembles disassembles to text that assembles to the
/// same image.
pub fn theia_asm(data: &[u8]) {
    let src = String::from_utf8_lossy(data);
    for layout in [Layout::Mem, Layout::Bin] {
        if let Ok(img) = assemble(&src, layout) {
            let listing = disassemble(&img);
            let again = assemble(&listing, layout)
                .unwrap_or_else(|e| panic!("the disassembly re-assembles: {e:?}\n{listing}"));
            assert_eq!(again, img, "disassembly round trip\n{listing}");
        }
    }
}

/// The THEIA compiler: any input either form reads; a program that compiles gives an image
/// whose disassembly assembles back to it.
pub fn theia_compile(data: &[u8]) {
    use tgsic_theia::compile::{TheiaOptions, compile};
    let Ok(src) = read(data) else {
        return;
    };
    if tgsic::valid::validate(&src.program).is_err() {
        return;
    }
    if let Ok(out) = compile(&src.program, &TheiaOptions::default()) {
        let from_source = assemble(&out.assembly, Layout::Mem)
            .unwrap_or_else(|e| panic!("the generated assembly assembles: {e:?}"));
        assert_eq!(from_source, out.binary, "the assembly is the image");
        let listing = disassemble(&out.binary);
        let again = assemble(&listing, Layout::Mem)
            .unwrap_or_else(|e| panic!("the disassembly re-assembles: {e:?}\n{listing}"));
        assert_eq!(again, out.binary, "compiled image round trip\n{listing}");
    }
}

/// The seed inputs of `target`: the shared corpus in the form the target reads (texts, their
/// binary encodings, the THEIA example programs and compiled THEIA programs), or random bytes
/// for the generator-driven target. Empty when `../shared` is absent.
pub fn seeds(target: &str) -> Vec<Vec<u8>> {
    let mut texts: Vec<Vec<u8>> = crate::all_shaders()
        .unwrap_or_default()
        .iter()
        .filter_map(|p| std::fs::read(p).ok())
        .collect();
    // The compute corpus: compute programs, buffers, images, atomics, doubles and 64-bit
    // integers; and the double-precision fractal shaders.
    let compute: Vec<Vec<u8>> = crate::corpus(crate::Corpus::Compute)
        .unwrap_or_default()
        .iter()
        .filter_map(|p| std::fs::read(p).ok())
        .collect();
    texts.extend(compute.iter().cloned());
    texts.extend(
        crate::corpus(crate::Corpus::MesaFp64)
            .unwrap_or_default()
            .iter()
            .filter_map(|p| std::fs::read(p).ok()),
    );
    let binaries = || {
        texts
            .iter()
            .filter_map(|t| text::parse(std::str::from_utf8(t).ok()?).ok())
            .filter_map(|p| binary::encode_bytes(&p).ok())
    };
    match target {
        "binary_reader" => binaries().collect(),
        "text_reader" | "theia_compile" => texts.clone(),
        "lift_optimize" => {
            let mut v = texts.clone();
            v.extend(binaries());
            v
        }
        "code_cache" => {
            let mut rng = Rng(0xcace);
            (0..32)
                .map(|k| {
                    let n = 1 + rng.below(64) as usize;
                    let mut v: Vec<u8> = (0..n).map(|_| rng.bits() as u8).collect();
                    v[0] = k as u8;
                    v
                })
                .collect()
        }
        "jit_vs_interp" | "wide_jit_vs_interp" => {
            let mut rng = Rng(if target == "jit_vs_interp" {
                0x5eed
            } else {
                0x64b1
            });
            (0..64)
                .map(|_| {
                    let n = 9 + rng.below(400) as usize;
                    (0..n).map(|_| rng.bits() as u8).collect()
                })
                .collect()
        }
        "compute_dispatch" => compute
            .iter()
            .filter(|t| t.starts_with(b"COMP"))
            .enumerate()
            .map(|(k, t)| {
                let mut v: Vec<u8> = (0..16u8).map(|i| i.wrapping_mul(37) ^ k as u8).collect();
                v.extend_from_slice(t);
                v
            })
            .collect(),
        "theia_asm" => {
            let mut v = Vec::new();
            if let Some(shared) = crate::shared_dir() {
                let dir = shared.join("theia-rtl/src/examples/shaders/example1");
                if let Ok(entries) = std::fs::read_dir(dir) {
                    let mut files: Vec<_> = entries.flatten().map(|e| e.path()).collect();
                    files.sort();
                    v.extend(files.iter().filter_map(|p| std::fs::read(p).ok()));
                }
            }
            // Compiled programs' listings: the assembler's full syntax, as tgsic writes it.
            v.extend(texts.iter().take(200).filter_map(|t| {
                use tgsic_theia::compile::{TheiaOptions, compile};
                let p = text::parse(std::str::from_utf8(t).ok()?).ok()?;
                let out = compile(&p, &TheiaOptions::default()).ok()?;
                Some(out.assembly.into_bytes())
            }));
            v
        }
        _ => Vec::new(),
    }
}

/// A random mutation of `data`: bit flips, byte changes, deletions, duplications and insertions
/// of interesting bytes, as a fuzzer's first mutations are.
pub fn mutate(data: &[u8], rng: &mut Rng) -> Vec<u8> {
    const INTERESTING: &[&[u8]] = &[
        b" ",
        b"\n",
        b",",
        b"[",
        b"]",
        b"-",
        b"0",
        b"65536",
        b"4294967295",
        b"0x",
        b"IF ",
        b"ENDIF\n",
        b"BGNLOOP\n",
        b"ENDLOOP\n",
        b"\xff\xff\xff\xff",
        b"\x00\x00\x00\x00",
    ];
    let mut v = data.to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = v.len() as u64;
        let at = rng.below(len + 1) as usize;
        match rng.below(6) {
            0 if at < v.len() => v[at] ^= 1 << rng.below(8),
            1 if at < v.len() => v[at] = rng.bits() as u8,
            2 if at < v.len() => {
                let n = (1 + rng.below(16) as usize).min(v.len() - at);
                v.drain(at..at + n);
            }
            3 if at < v.len() => {
                let n = (1 + rng.below(64) as usize).min(v.len() - at);
                let piece = v[at..at + n].to_vec();
                v.splice(at..at, piece);
            }
            _ => {
                let piece = INTERESTING[rng.below(INTERESTING.len() as u64) as usize];
                v.splice(at..at, piece.iter().copied());
            }
        }
    }
    v
}
