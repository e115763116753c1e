//! Helpers for the corpus tests: where `../shared` is and which shaders it holds.
//!
//! The corpora are read in place (never copied). Tests that need them call [`corpus`] (or
//! [`shared::require`]): without the folder they are skipped with a message, and under CI they
//! fail, so that a CI run never passes without the corpora. One locator serves every test:
//! `TGSIC_SHARED`, else `shared/` beside the workspace.

use std::path::{Path, PathBuf};

pub mod compute;
pub mod fast_math;
pub mod fuzz;
pub mod generate;
pub mod ireval;
pub mod run;
pub mod shared;
pub mod theia;
pub mod theia_rtl;

/// The shared folder ([`shared::shared_root`]) if it holds the corpora; `None` otherwise, with
/// no message (for callers that can do without it).
pub fn shared_dir() -> Option<PathBuf> {
    let dir = shared::shared_root();
    dir.join("corpus").is_dir().then_some(dir)
}

/// Which corpus a shader belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Corpus {
    /// `corpus/etnaviv`: 707 dumps from real applications.
    Etnaviv,
    /// `corpus/mesa`: shaders with Mesa's rendered reference output.
    Mesa,
    /// `corpus/compute`: piglit's compute shaders and fragment shaders with buffers, images,
    /// atomics and 64-bit types, with softpipe's buffers (`tests/src/compute.rs` runs them).
    Compute,
    /// `corpus/mesa-fp64`: double-precision fragment shaders in `corpus/mesa`'s layout.
    MesaFp64,
}

/// Every `.tgsi` file of `which`, sorted, or `None` (with a message on stderr) when the shared
/// folder is absent.
pub fn corpus(which: Corpus) -> Option<Vec<PathBuf>> {
    let root = shared::require(match which {
        Corpus::Etnaviv => "corpus/etnaviv",
        Corpus::Mesa => "corpus/mesa",
        Corpus::Compute => "corpus/compute",
        Corpus::MesaFp64 => "corpus/mesa-fp64",
    })?;
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    Some(files)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "tgsi") {
            out.push(p);
        }
    }
}

/// Both corpora, or `None` when the shared folder is absent.
pub fn all_shaders() -> Option<Vec<PathBuf>> {
    let mut v = corpus(Corpus::Etnaviv)?;
    v.extend(corpus(Corpus::Mesa)?);
    Some(v)
}

/// An 8x8 RGBA8 texture with varied texels (6 layers, so cube and array targets have faces):
/// what the corpus tests bind where a shader samples a texture they have no file for.
pub fn generated_texture() -> tgsic_runtime::host::Texture {
    let bytes: Vec<u8> = (0..8 * 8 * 6)
        .flat_map(|k: u32| {
            [
                (k * 37) as u8,
                (k * 11) as u8,
                (k * 5 + 128) as u8,
                255 - k as u8,
            ]
        })
        .collect();
    tgsic_runtime::host::Texture::from_rgba8(8, 8, 6, &bytes).expect("texture")
}

/// The constant buffers and texture units `p` declares: one past the highest buffer index and
/// one past the highest sampler or sampler view.
pub fn declared_bindings(p: &tgsic::tgsi::Program) -> (usize, usize) {
    use tgsic::tgsi::File;
    let buffers = p
        .declarations_of(File::Constant)
        .map(|d| d.dimension.unwrap_or(0) as usize + 1)
        .max()
        .unwrap_or(0);
    let units = p
        .declarations
        .iter()
        .filter(|d| matches!(d.file, File::Sampler | File::SamplerView))
        .map(|d| d.span().last as usize + 1)
        .max()
        .unwrap_or(0);
    (buffers, units)
}

/// The JIT back ends of this build, each with the lane counts its tests run: Cranelift, and
/// LLVM when built with the feature `llvm`.
pub fn jit_backends() -> Vec<(tgsic::back::Backend, &'static [usize])> {
    use tgsic::back::Backend;
    let mut v: Vec<(Backend, &'static [usize])> = vec![(Backend::Cranelift, &[4, 8, 16])];
    if Backend::Llvm.available() {
        // 0: the host's widest vector; 4 and 64 the narrowest and widest steps.
        v.push((Backend::Llvm, &[0, 4, 64]));
    }
    v
}

/// Random inputs for differential tests: a deterministic generator and random bindings and
/// batches for a program.
pub mod random {
    use tgsic::tgsi::{File, Processor};
    use tgsic_runtime::host::{Bindings, Compiled, Filter, MipFilter, Module, RunError};
    use tgsic_runtime::host::{Sampler, Texture, Wrap};
    use tgsic_runtime::testing::{Arrangement, BATCH_LANES, BatchIo, BatchReport, Emitted};
    use tgsic_runtime::testing::{Mask, Reg};

    /// A source of random choices: the generators draw from it through the provided methods.
    pub trait Source {
        /// The next 64 random bits.
        fn bits(&mut self) -> u64;

        /// A number in `0..n`.
        fn below(&mut self, n: u64) -> u64 {
            self.bits() % n.max(1)
        }

        /// A float in `lo..hi`.
        fn float(&mut self, lo: f32, hi: f32) -> f32 {
            lo + (hi - lo) * (self.bits() >> 40) as f32 / (1u64 << 24) as f32
        }

        /// A register word the way shaders see them: mostly moderate floats, some small
        /// integers, some special values (±0, ±1, ±inf, NaN, denormals) and raw bits.
        fn word(&mut self) -> u32 {
            match self.below(20) {
                0..=12 => self.float(-4.0, 4.0).to_bits(),
                13..=14 => self.below(16) as u32,
                15 => (self.below(8) as i32 - 4) as u32,
                16 => [
                    0.0f32,
                    -0.0,
                    1.0,
                    -1.0,
                    f32::INFINITY,
                    f32::NEG_INFINITY,
                    f32::NAN,
                    0.5,
                ][self.below(8) as usize]
                    .to_bits(),
                17 => self.below(0x0080_0000) as u32 | ((self.below(2) as u32) << 31),
                18 => self.float(-1000.0, 1000.0).to_bits(),
                _ => self.bits() as u32,
            }
        }
    }

    /// SplitMix64: small, fast, deterministic.
    #[derive(Debug, Clone)]
    pub struct Rng(pub u64);

    impl Source for Rng {
        fn bits(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
    }

    /// Choices read from unstructured bytes (a fuzzer's input), one byte per choice: a fuzzer
    /// that mutates a byte changes one decision of the generator. When the bytes run out
    /// every choice is 0, which always leads a generator to finish.
    #[derive(Debug)]
    pub struct Bytes<'a> {
        u: arbitrary::Unstructured<'a>,
    }

    impl<'a> Bytes<'a> {
        /// Choices from `u`.
        pub fn new(u: arbitrary::Unstructured<'a>) -> Bytes<'a> {
            Bytes { u }
        }
    }

    impl Source for Bytes<'_> {
        fn bits(&mut self) -> u64 {
            let b: u8 = self.u.arbitrary().unwrap_or(0);
            // Spread the byte over the word, so `below(n)` for n up to 256 sees all of it.
            u64::from(b).wrapping_mul(0x0101_0101_0101_0101)
        }
    }

    /// Random constant buffers, textures (RGBA8 with mipmaps, six layers) and samplers for
    /// every unit `p` declares; loops get a small iteration budget.
    pub fn bindings(p: &Module, rng: &mut Rng) -> Bindings {
        let prog = &p.program;
        let mut bind = Bindings::default();
        let (buffers, units) = crate::declared_bindings(prog);
        bind.constants = (0..buffers)
            .map(|_| {
                (0..rng.below(300) as usize + 1)
                    .map(|_| std::array::from_fn(|_| rng.word()))
                    .collect()
            })
            .collect();
        bind.textures = (0..units)
            .map(|_| {
                let (w, h) = (1 << rng.below(4), 1 << rng.below(4));
                let bytes: Vec<u8> = (0..w * h * 6 * 4).map(|_| rng.bits() as u8).collect();
                let mut t = Texture::from_rgba8(w, h, 6, &bytes).expect("texture");
                t.generate_mipmaps(true);
                Some(t)
            })
            .collect();
        let filter = |r: &mut Rng| {
            if r.below(2) == 0 {
                Filter::Nearest
            } else {
                Filter::Linear
            }
        };
        let wrap = |r: &mut Rng| [Wrap::Repeat, Wrap::Clamp, Wrap::Mirror][r.below(3) as usize];
        bind.samplers = (0..units)
            .map(|_| Sampler {
                min: filter(rng),
                mag: filter(rng),
                mip: [MipFilter::None, MipFilter::Nearest, MipFilter::Linear]
                    [rng.below(3) as usize],
                wrap: [wrap(rng), wrap(rng), wrap(rng)],
                ..Sampler::default()
            })
            .collect();
        bind.max_iterations = 64 + rng.below(200) as u32;
        bind
    }

    /// A batch with random inputs and system values: quads for fragment shaders (a few
    /// helper lanes), independent lanes otherwise (a few lanes not alive).
    pub fn batch(p: &Module, rng: &mut Rng) -> BatchIo {
        let frag = p.program.processor == Processor::Fragment;
        let per_vertex = if p.program.processor == Processor::Geometry {
            p.gs_vertices as usize
        } else {
            1
        };
        let reg =
            |rng: &mut Rng| -> Reg { std::array::from_fn(|_| std::array::from_fn(|_| rng.word())) };
        let inputs = (0..p.size(File::Input) * per_vertex)
            .map(|_| reg(rng))
            .collect();
        let sv = (0..p.size(File::SystemValue)).map(|_| reg(rng)).collect();
        let (alive, helpers) = if frag {
            let quads: Mask = (0..16).fold(0, |m, q| {
                if rng.below(8) != 0 {
                    m | (0xF << (4 * q))
                } else {
                    m
                }
            });
            (quads, quads & rng.bits() & rng.bits() & rng.bits())
        } else {
            (rng.bits() | rng.bits(), 0)
        };
        BatchIo {
            inputs,
            sv,
            outputs: vec![[[0; BATCH_LANES]; 4]; p.size(File::Output)],
            alive,
            helpers,
            arrangement: if frag {
                Arrangement::Quads
            } else {
                Arrangement::Independent
            },
            columns: None,
            column: 0,
        }
    }

    /// What a batch produced, for comparisons.
    #[derive(Debug, Clone)]
    pub struct Outcome {
        /// OUT registers.
        pub outputs: Vec<Reg>,
        /// The report (killed, exhausted, emitted, unspecified lanes).
        pub report: BatchReport,
    }

    /// Runs `shader` on a copy of `io`.
    pub fn run(shader: &Compiled, bind: &Bindings, io: &BatchIo) -> Result<Outcome, RunError> {
        let mut io = io.clone();
        let report = shader.run_batch(bind, &mut io)?;
        Ok(Outcome {
            outputs: io.outputs,
            report,
        })
    }

    /// The first difference between a reference outcome and another one over the lanes of
    /// `alive`, leaving out the lanes `other` reports as unspecified; `None` when they agree
    /// bit for bit.
    pub fn difference(reference: &Outcome, other: &Outcome, alive: Mask) -> Option<String> {
        let keep = alive & !other.report.unspecified;
        for (r, (a, b)) in reference.outputs.iter().zip(&other.outputs).enumerate() {
            for c in 0..4 {
                for l in 0..BATCH_LANES {
                    if keep & (1 << l) != 0 && a[c][l] != b[c][l] {
                        return Some(format!(
                            "OUT[{r}].{} lane {l}: {:#010x} ({}) vs {:#010x} ({})",
                            ['x', 'y', 'z', 'w'][c],
                            a[c][l],
                            f32::from_bits(a[c][l]),
                            b[c][l],
                            f32::from_bits(b[c][l])
                        ));
                    }
                }
            }
        }
        for (what, x, y) in [
            ("killed", reference.report.killed, other.report.killed),
            (
                "exhausted",
                reference.report.exhausted,
                other.report.exhausted,
            ),
        ] {
            if (x ^ y) & keep != 0 {
                return Some(format!(
                    "{what} lanes: {:#018x} vs {:#018x}",
                    x & keep,
                    y & keep
                ));
            }
        }
        let emitted = |e: &[Emitted]| -> Vec<Emitted> {
            e.iter()
                .filter(|x| keep & (1 << x.lane) != 0)
                .cloned()
                .collect()
        };
        if emitted(&reference.report.emitted) != emitted(&other.report.emitted) {
            return Some("emitted vertices differ".into());
        }
        None
    }

    /// The IR of `shader` as lifted and after -O1 and -O2, each checked by the IR verifier, as
    /// IR evaluators named `lifted`, `-O1` and `-O2`; an error names the step that failed.
    pub fn ir_variants(shader: &Module) -> Result<Vec<(&'static str, Compiled)>, String> {
        use tgsic::opt::{OptLevel, optimize};
        let ir = crate::ireval::IrShader::lift(shader.clone()).map_err(|e| e.to_string())?;
        let mut variants = Vec::with_capacity(3);
        for (name, level) in [
            ("lifted", None),
            ("-O1", Some(OptLevel::O1)),
            ("-O2", Some(OptLevel::O2)),
        ] {
            let mut o = ir.clone();
            if let Some(level) = level {
                optimize(&mut o.function, level);
            }
            if let Err(e) = tgsic::ir::verify::verify(&o.function) {
                return Err(format!("the {name} IR does not verify: {}", e[0]));
            }
            variants.push((name, crate::run::evaluator(o)));
        }
        Ok(variants)
    }

    /// Whether the IR evaluators `ir` and the compiled shaders `jits` compute the
    /// interpreter's bits for `shader` on `rounds` random bindings and batches drawn from
    /// `rng` (the IR evaluators reporting no unspecified lane); an error names the engine and
    /// the first difference.
    pub fn agree(
        shader: &Module,
        ir: &[(&str, Compiled)],
        jits: &[(String, std::sync::Arc<Compiled>)],
        rng: &mut Rng,
        rounds: usize,
    ) -> Result<(), String> {
        let interp = crate::run::interpreter(shader);
        let engines = ir
            .iter()
            .map(|(name, e)| (*name, e, true))
            .chain(jits.iter().map(|(name, j)| (name.as_str(), &**j, false)));
        let engines: Vec<(&str, &Compiled, bool)> = engines.collect();
        for _ in 0..rounds {
            let bind = bindings(shader, rng);
            let io = batch(shader, rng);
            let reference =
                run(&interp, &bind, &io).map_err(|e| format!("the interpreter: {e}"))?;
            for &(name, engine, ir) in &engines {
                let out = run(engine, &bind, &io).map_err(|e| format!("{name}: {e}"))?;
                if ir && out.report.unspecified != 0 {
                    return Err(format!(
                        "{name}: unspecified lanes {:#018x}",
                        out.report.unspecified
                    ));
                }
                if let Some(d) = difference(&reference, &out, io.alive) {
                    return Err(format!("{name} differs from the interpreter: {d}"));
                }
            }
        }
        Ok(())
    }
}

/// The Mesa corpus under its contract (index.json): 64×64, clear −7, `const0.bin`, every
/// sampler reading `texture32.png` with nearest/repeat.
pub mod mesa {
    use std::path::Path;
    use tgsic_runtime::host::Texture;
    use tgsic_runtime::host::{Bindings, Module};

    /// One shader of the corpus, ready to render, with Mesa's output.
    pub struct Case {
        /// File stem.
        pub name: String,
        /// The prepared program.
        pub shader: Module,
        /// Its bindings.
        pub bind: Bindings,
        /// Mesa's rendering (64×64 RGBA f32).
        pub reference: Vec<f32>,
    }

    fn words(path: &Path) -> Vec<[u32; 4]> {
        tgsic_runtime::host::constant_registers(&std::fs::read(path).expect("constant file"))
    }

    /// Every case, or `None` when the shared folder is absent ([`crate::shared::require`]:
    /// under CI that fails instead).
    pub fn cases() -> Option<Vec<Case>> {
        cases_in("corpus/mesa")
    }

    /// Every case of `folder` (a folder of the shared folder in `corpus/mesa`'s layout, such
    /// as `corpus/mesa-fp64`), or `None` as [`cases`].
    pub fn cases_in(folder: &str) -> Option<Vec<Case>> {
        let dir = crate::shared::require(folder)?;
        let texture = Texture::from_png(&dir.join("texture32.png")).expect("texture32.png");
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .ok()?
            .flatten()
            .filter_map(|e| {
                e.file_name()
                    .to_str()?
                    .strip_suffix(".tgsi")
                    .map(str::to_string)
            })
            .collect();
        names.sort();
        let mut out = Vec::new();
        for name in names {
            let src = std::fs::read_to_string(dir.join(format!("{name}.tgsi"))).expect("reads");
            let shader =
                Module::new(tgsic::front::text::parse(&src).expect("parses")).expect("loads");
            let mut bind = Bindings {
                clear: [-7.0; 4],
                ..Bindings::default()
            };
            let const_file = dir.join(format!("{name}.const0.bin"));
            if const_file.exists() {
                bind.constants.push(words(&const_file));
            }
            let (_, units) = crate::declared_bindings(&shader.program);
            bind.textures = vec![Some(texture.clone()); units];
            let reference = tgsic_cli::compare::read_f32(&dir.join(format!("{name}.ref.f32")))
                .expect("reference");
            out.push(Case {
                name,
                shader,
                bind,
                reference,
            });
        }
        Some(out)
    }
}
