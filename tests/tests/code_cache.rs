//! The code cache on disk, end to end through the host API: a second runtime on a folder reads
//! what the first compiled and renders the same pixels; entries truncated, with bytes flipped
//! (in the code too), swapped between shaders or filled by several runtimes at once are never
//! run: they are compiled again and replaced, and every image is the interpreter's.

use std::path::{Path, PathBuf};
use tgsic::back::abi::MathMode;
use tgsic_runtime::host::Bindings;
use tgsic_runtime::host::{
    CacheDir, CacheUse, CompileOptions, EngineKind, Frame, Module, RunControl, Runtime,
    RuntimeOptions,
};
use tgsic_tests::jit_backends;
use tgsic_tests::run::{interpreter, render};

/// The shaders: this repository's examples that render without bindings.
const SHADERS: [&str; 3] = ["noise.tgsi", "mandelbrot_loop.tgsi", "checker.tgsi"];

fn folder(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tgsic-code-cache-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn runtime(dir: &Path) -> Runtime {
    Runtime::new(RuntimeOptions {
        threads: 1,
        code_cache: CacheDir::At(dir.to_path_buf()),
        ..RuntimeOptions::default()
    })
    .expect("a runtime")
}

fn load(rt: &Runtime, name: &str) -> Module {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/shaders")
        .join(name);
    rt.load(&std::fs::read(path).expect("reads the example"))
        .expect("loads")
}

const FRAME: Frame = Frame {
    width: 24,
    height: 16,
    output: 0,
};

/// `engine` with exact math, whose pixels are the interpreter's.
fn exact(engine: EngineKind) -> CompileOptions {
    CompileOptions {
        math: MathMode::Exact,
        ..CompileOptions::with_engine(engine)
    }
}

/// Compiles `name` for `engine` (exact math) on a new runtime over `dir`, renders it, checks
/// the pixels are the interpreter's, and says whether the cache answered.
fn compile_and_check(dir: &Path, name: &str, engine: EngineKind) -> CacheUse {
    let rt = runtime(dir);
    let m = load(&rt, name);
    let bind = Bindings::default();
    let c = rt.compile(&m, &exact(engine)).expect("compiles");
    let got = c
        .render(&rt, &bind, FRAME, &RunControl::default())
        .expect("renders");
    let want = render(&interpreter(&m), &bind, FRAME.width, FRAME.height, 0).expect("interprets");
    assert_eq!(got.pixels, want.pixels, "{name} on {engine}");
    c.cache_use()
}

fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the cache folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            !p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .collect();
    v.sort();
    v
}

/// The payload of the entry `file` (magic 8, key length 4, key, payload length 8, SHA-256 32,
/// payload).
fn payload(file: &Path) -> Vec<u8> {
    let entry = std::fs::read(file).unwrap();
    let key_len = u32::from_le_bytes(entry[8..12].try_into().unwrap()) as usize;
    entry[12 + key_len + 40..].to_vec()
}

/// The entries holding code (`CompiledShader::to_bytes`), not a function's facts.
fn code_entries(dir: &Path) -> Vec<PathBuf> {
    let code: Vec<PathBuf> = entries(dir)
        .into_iter()
        .filter(|f| payload(f).starts_with(b"TGSICOD"))
        .collect();
    code
}

/// The entries holding a function's facts (`FunctionFacts::to_bytes`).
fn facts_entries(dir: &Path) -> Vec<PathBuf> {
    entries(dir)
        .into_iter()
        .filter(|f| payload(f).starts_with(b"TGSICFA"))
        .collect()
}

fn engines() -> Vec<EngineKind> {
    jit_backends()
        .into_iter()
        .map(|(b, _)| EngineKind::from(b))
        .collect()
}

#[test]
fn a_second_runtime_reads_what_the_first_compiled() {
    let dir = folder("warm");
    for engine in engines() {
        for name in SHADERS {
            assert_eq!(compile_and_check(&dir, name, engine), CacheUse::Miss);
            assert_eq!(compile_and_check(&dir, name, engine), CacheUse::Hit);
        }
    }
    // One code entry per shader and engine, and one of its function's facts: other options
    // are other entries.
    assert_eq!(code_entries(&dir).len(), SHADERS.len() * engines().len());
    assert_eq!(facts_entries(&dir).len(), SHADERS.len() * engines().len());
    assert_eq!(entries(&dir).len(), 2 * SHADERS.len() * engines().len());
    let rt = runtime(&dir);
    let m = load(&rt, SHADERS[0]);
    let engine = CompileOptions::default().engine;
    let again = rt.compile(&m, &exact(engine)).unwrap();
    assert_eq!(again.cache_use(), CacheUse::Hit);
    for math in [MathMode::Accurate, MathMode::Fast] {
        let other = CompileOptions {
            math,
            ..exact(engine)
        };
        assert_eq!(rt.compile(&m, &other).unwrap().cache_use(), CacheUse::Miss);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn damaged_or_foreign_entries_are_compiled_again_never_run() {
    let dir = folder("damage");
    let engine = EngineKind::Cranelift;
    for name in SHADERS {
        compile_and_check(&dir, name, engine);
    }
    let files = code_entries(&dir);
    assert_eq!(files.len(), SHADERS.len());
    let originals: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    // Which file holds which shader: the one a compile rewrites after it is removed.
    let owner = |name: &str| -> usize {
        for (k, f) in files.iter().enumerate() {
            std::fs::remove_file(f).unwrap();
            compile_and_check(&dir, name, engine);
            let back = std::fs::read(f).ok();
            std::fs::write(f, &originals[k]).unwrap();
            if back.is_some() {
                return k;
            }
        }
        panic!("{name} has no entry");
    };
    let k = owner(SHADERS[0]);
    let whole = &originals[k];
    let restore = || std::fs::write(&files[k], whole).unwrap();
    // Truncated at every length of a sample, and with one byte flipped at every position of a
    // sample: the header, the key, the digest and the code.
    for n in (0..whole.len()).step_by((whole.len() / 40).max(1)) {
        std::fs::write(&files[k], &whole[..n]).unwrap();
        assert_eq!(
            compile_and_check(&dir, SHADERS[0], engine),
            CacheUse::Miss,
            "{n} bytes"
        );
        assert_eq!(std::fs::read(&files[k]).unwrap(), *whole, "replaced");
    }
    for at in (0..whole.len()).step_by((whole.len() / 60).max(1)) {
        let mut bad = whole.clone();
        bad[at] ^= 0x41;
        std::fs::write(&files[k], &bad).unwrap();
        assert_eq!(
            compile_and_check(&dir, SHADERS[0], engine),
            CacheUse::Miss,
            "byte {at}"
        );
    }
    // Another shader's entry under this one's name; the two swapped.
    let j = (k + 1) % files.len();
    std::fs::write(&files[k], &originals[j]).unwrap();
    assert_eq!(compile_and_check(&dir, SHADERS[0], engine), CacheUse::Miss);
    std::fs::write(&files[k], &originals[j]).unwrap();
    std::fs::write(&files[j], whole).unwrap();
    for name in SHADERS {
        compile_and_check(&dir, name, engine);
    }
    restore();
    assert_eq!(compile_and_check(&dir, SHADERS[0], engine), CacheUse::Hit);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Rewrites the payload of the entry `file` (the layout `tgsic_runtime::cache` documents:
/// magic, key length, key, payload length, SHA-256, payload) with `edit`, its digest made
/// anew: a forged entry that passes the integrity check.
fn forge(file: &Path, edit: impl FnOnce(&mut Vec<u8>)) {
    use sha2::{Digest, Sha256};
    let entry = std::fs::read(file).unwrap();
    let key_len = u32::from_le_bytes(entry[8..12].try_into().unwrap()) as usize;
    let head = 12 + key_len;
    let mut payload = entry[head + 8 + 32..].to_vec();
    edit(&mut payload);
    let mut out = entry[..head].to_vec();
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&Sha256::digest(&payload));
    out.extend_from_slice(&payload);
    std::fs::write(file, out).unwrap();
}

#[test]
fn forged_entries_whose_fields_do_not_fit_their_code_are_compiled_again() {
    // The payload is `CompiledShader::to_bytes`: magic (8), the image's length (4), then the
    // image's code length (4), entry (4) and instructions' length (4); its last three words
    // are the code size, the frame's bytes and the lanes per step. A field is placed by its
    // offset from the start, or (negative) from the end.
    for engine in engines() {
        let dir = folder(&format!("forged-{engine}"));
        assert_eq!(compile_and_check(&dir, SHADERS[0], engine), CacheUse::Miss);
        let files = code_entries(&dir);
        assert_eq!(files.len(), 1);
        let whole = std::fs::read(&files[0]).unwrap();
        let key_len = u32::from_le_bytes(whole[8..12].try_into().unwrap()) as usize;
        let payload = &whole[12 + key_len + 40..];
        let instructions = u32::from_le_bytes(payload[20..24].try_into().unwrap());
        let forgeries: [(&str, isize, u32); 5] = [
            ("entry past the instructions", 16, instructions),
            ("entry past the image", 16, u32::MAX),
            ("instructions past the image", 20, u32::MAX),
            ("a frame of 4 GiB", -8, u32::MAX),
            ("3 lanes per step", -4, 3),
        ];
        for (what, at, value) in forgeries {
            forge(&files[0], |p| {
                let at = if at < 0 {
                    p.len() - at.unsigned_abs()
                } else {
                    at as usize
                };
                p[at..at + 4].copy_from_slice(&value.to_le_bytes());
            });
            // Refused, compiled again (right pixels), and replaced by a valid entry.
            assert_eq!(
                compile_and_check(&dir, SHADERS[0], engine),
                CacheUse::Miss,
                "{engine}: {what}"
            );
            assert_eq!(std::fs::read(&files[0]).unwrap(), whole, "{engine}: {what}");
            assert_eq!(compile_and_check(&dir, SHADERS[0], engine), CacheUse::Hit);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn damaged_or_forged_facts_of_a_function_cost_a_lift_never_a_wrong_run() {
    // A second start reads the function's facts (its texture operations, immediates, array
    // storage) instead of lifting the program; facts that do not read back, or that are not
    // those of the code's function, send it to the lifted path, whose facts replace them.
    for engine in engines() {
        let dir = folder(&format!("facts-{engine}"));
        assert_eq!(compile_and_check(&dir, SHADERS[0], engine), CacheUse::Miss);
        let facts = facts_entries(&dir);
        assert_eq!(facts.len(), 1, "{engine}");
        let whole = std::fs::read(&facts[0]).unwrap();
        for n in (0..whole.len()).step_by((whole.len() / 30).max(1)) {
            std::fs::write(&facts[0], &whole[..n]).unwrap();
            assert_eq!(compile_and_check(&dir, SHADERS[0], engine), CacheUse::Hit);
            assert_eq!(
                std::fs::read(&facts[0]).unwrap(),
                whole,
                "{engine}: {n} bytes"
            );
        }
        // Forged with a valid digest: an immediate changed, the array storage doubled.
        let p = payload(&facts[0]);
        let tex = u32::from_le_bytes(p[8..12].try_into().unwrap()) as usize;
        let imm_at = 8 + 4 + 16 * tex + 4 + 4;
        let forgeries: [(&str, usize, u32); 2] = [
            ("another immediate", imm_at, 0x3f80_0001),
            (
                "twice the array storage",
                p.len() - 4,
                2 * u32::from_le_bytes(p[p.len() - 4..].try_into().unwrap()),
            ),
        ];
        for (what, at, value) in forgeries {
            forge(&facts[0], |p| {
                p[at..at + 4].copy_from_slice(&value.to_le_bytes())
            });
            assert_eq!(
                compile_and_check(&dir, SHADERS[0], engine),
                CacheUse::Hit,
                "{engine}: {what}"
            );
            assert_eq!(std::fs::read(&facts[0]).unwrap(), whole, "{engine}: {what}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn runtimes_filling_one_folder_at_once_all_render_right() {
    let dir = folder("race");
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let dir = dir.clone();
            std::thread::spawn(move || {
                for round in 0..3 {
                    for (k, name) in SHADERS.iter().enumerate() {
                        let engines = engines();
                        let engine = engines[(t + k + round) % engines.len()];
                        compile_and_check(&dir, name, engine);
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("a runtime thread");
    }
    for engine in engines() {
        for name in SHADERS {
            assert_eq!(compile_and_check(&dir, name, engine), CacheUse::Hit);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_cache_can_be_off_and_a_bad_folder_is_an_error() {
    let rt = Runtime::new(RuntimeOptions {
        threads: 1,
        code_cache: CacheDir::Off,
        ..RuntimeOptions::default()
    })
    .unwrap();
    assert!(rt.code_cache_dir().is_none());
    let m = load(&rt, SHADERS[2]);
    let c = rt.compile(&m, &CompileOptions::default()).unwrap();
    assert_eq!(c.cache_use(), CacheUse::Off);
    // A folder where a file is.
    let file = folder("file");
    std::fs::write(&file, b"not a folder").unwrap();
    let e = Runtime::new(RuntimeOptions {
        code_cache: CacheDir::At(file.join("sub")),
        ..RuntimeOptions::default()
    })
    .unwrap_err();
    assert!(e.to_string().contains("code cache"), "{e}");
    let _ = std::fs::remove_file(&file);
}

/// A compute program's code read back from the cache dispatches as it did when compiled: its
/// memory operations are part of the stored form.
#[test]
fn compute_code_read_from_the_cache_dispatches_the_same() {
    use tgsic_runtime::host::Resources;
    let dir = folder("compute");
    let values: Vec<u32> = (0..512u32).map(|i| i * 3 % 101).collect();
    for engine in engines() {
        let mut runs = Vec::new();
        for _ in 0..2 {
            let rt = runtime(&dir);
            let m = load(&rt, "prefix_sum.comp.tgsi");
            let c = rt.compile(&m, &exact(engine)).expect("compiles");
            let mut bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            let mut res = Resources::new();
            res.bind_buffer(0, &mut bytes).expect("binds");
            res.set_shared_bytes(1024).expect("fits");
            c.dispatch(
                &rt,
                &Bindings::default(),
                &mut res,
                [2, 1, 1],
                &RunControl::default(),
            )
            .expect("dispatches");
            drop(res);
            runs.push((c.cache_use(), bytes));
        }
        assert_eq!(runs[0].0, CacheUse::Miss, "{engine}");
        assert_eq!(runs[1].0, CacheUse::Hit, "{engine}");
        assert_eq!(runs[0].1, runs[1].1, "{engine}");
        let last: u32 = values[256..].iter().sum();
        let got = u32::from_le_bytes([
            runs[1].1[2044],
            runs[1].1[2045],
            runs[1].1[2046],
            runs[1].1[2047],
        ]);
        assert_eq!(got, last, "{engine}: the second group's scan");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
