//! The C functions called as C would call them: status codes and messages for a host's
//! mistakes, NULL accepted by the `*_free` functions, and a fragment run end to end.

use std::ffi::CStr;
use std::ptr::{null, null_mut};
use tgsic_c::run::*;
use tgsic_c::*;

fn last() -> String {
    // SAFETY: the message is a NUL-terminated string that lives until the next failing call
    // on this thread.
    unsafe { CStr::from_ptr(tgsic_last_error()) }
        .to_string_lossy()
        .into_owned()
}

#[test]
fn mistakes_are_statuses_with_messages() {
    // SAFETY: every pointer passed is NULL where the test says so, or a live handle or a
    // buffer of the length passed beside it, as the C API's contracts ask.
    unsafe {
        assert_eq!(tgsic_runtime_new(1, 0, null_mut()), TgsicStatus::Argument);
        assert!(last().contains("out is NULL"));
        let mut rt = null_mut();
        assert_eq!(tgsic_runtime_new(2, 4, &mut rt), TgsicStatus::Ok);
        let mut m = null_mut();
        assert_eq!(
            tgsic_module_load(rt, null(), 3, &mut m),
            TgsicStatus::Argument
        );
        let bad = b"FRAG\nMOV OUT[0], IN[1]\n";
        assert_eq!(
            tgsic_module_load(rt, bad.as_ptr(), bad.len(), &mut m),
            TgsicStatus::Invalid
        );
        assert!(last().contains("IN[1]"), "{}", last());
        let junk = [0xffu8, 0xfe, 0, 7];
        assert_eq!(
            tgsic_module_load(rt, junk.as_ptr(), junk.len(), &mut m),
            TgsicStatus::Read
        );
        let src = b"FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0], COLOR\nDCL CONST[0]\n  0: MUL OUT[0], IN[0], CONST[0]\n  1: KILL_IF IN[0].xxxx\n  2: END\n";
        assert_eq!(
            tgsic_module_load(rt, src.as_ptr(), src.len(), &mut m),
            TgsicStatus::Ok
        );
        assert_eq!(tgsic_module_input_registers(m), 1);
        assert_eq!(tgsic_module_input_register(m, c"GENERIC".as_ptr(), 0), 0);
        assert_eq!(tgsic_module_input_register(m, c"GENERIC".as_ptr(), 1), -1);
        assert_eq!(tgsic_module_output_register(m, c"COLOR".as_ptr(), 0), 0);
        assert_eq!(tgsic_module_output_register(m, null(), 0), -1);
        let mut s = null_mut();
        assert_eq!(
            tgsic_shader_compile(rt, m, TgsicEngine::Cranelift as u32, &mut s),
            TgsicStatus::Ok
        );
        // Four fragments: x = 0.5, 1, 1.5, -1 (the last is discarded); CONST[0] = 2.
        let xs = [0.5f32, 1.0, 1.5, -1.0];
        let inputs: Vec<u32> = xs
            .iter()
            .flat_map(|&x| [x, 0.25, 0.0, 1.0])
            .map(f32::to_bits)
            .collect();
        let mut out = vec![0u32; 16];
        let mut discarded = [9u8; 4];
        // Without the constant buffer: a run error naming it.
        assert_eq!(
            tgsic_shader_run_fragments(
                rt,
                s,
                null(),
                4,
                TgsicLayout::Aos as u32,
                inputs.as_ptr(),
                16,
                out.as_mut_ptr(),
                16,
                null_mut()
            ),
            TgsicStatus::Run
        );
        assert!(last().contains("constant buffer 0"), "{}", last());
        let mut b = null_mut();
        assert_eq!(tgsic_bindings_new(&mut b), TgsicStatus::Ok);
        let two = [2.0f32.to_bits(); 4];
        assert_eq!(
            tgsic_bindings_set_constants(b, 0, two.as_ptr(), 1),
            TgsicStatus::Ok
        );
        assert_eq!(
            tgsic_shader_run_fragments(
                rt,
                s,
                b,
                4,
                TgsicLayout::Aos as u32,
                inputs.as_ptr(),
                15,
                out.as_mut_ptr(),
                16,
                null_mut()
            ),
            TgsicStatus::Argument
        );
        assert!(last().contains("inputs buffer holds 15"), "{}", last());
        assert_eq!(
            tgsic_shader_run_fragments(
                rt,
                s,
                b,
                4,
                TgsicLayout::Aos as u32,
                inputs.as_ptr(),
                16,
                out.as_mut_ptr(),
                16,
                discarded.as_mut_ptr()
            ),
            TgsicStatus::Ok
        );
        assert_eq!(discarded, [0, 0, 0, 1]);
        let x: Vec<f32> = (0..3).map(|k| f32::from_bits(out[k * 4])).collect();
        assert_eq!(x, [1.0, 2.0, 3.0]);
        assert_eq!(
            tgsic_shader_run_vertices(
                rt,
                s,
                b,
                4,
                TgsicLayout::Aos as u32,
                inputs.as_ptr(),
                16,
                out.as_mut_ptr(),
                16
            ),
            TgsicStatus::Argument,
            "a fragment shader is not run over vertices"
        );
        tgsic_bindings_free(b);
        tgsic_shader_free(s);
        tgsic_module_free(m);
        tgsic_runtime_free(rt);
        tgsic_shader_free(null_mut());
        tgsic_module_free(null_mut());
        tgsic_runtime_free(null_mut());
        tgsic_bindings_free(null_mut());
    }
}

#[test]
fn geometry_runs_from_c() {
    let src = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/shaders/explode.geom.tgsi"
    ))
    .unwrap();
    // SAFETY: every pointer passed is a live handle or a buffer of the length passed beside
    // it, as the C API's contracts ask.
    unsafe {
        let mut rt = null_mut();
        assert_eq!(tgsic_runtime_new(1, 0, &mut rt), TgsicStatus::Ok);
        let mut m = null_mut();
        assert_eq!(
            tgsic_module_load(rt, src.as_ptr(), src.len(), &mut m),
            TgsicStatus::Ok
        );
        let per = tgsic_module_primitive_input_registers(m);
        let max = tgsic_module_max_output_vertices(m);
        let outs = tgsic_module_output_registers(m);
        assert_eq!((per, max, outs), (6, 3, 2));
        let mut s = null_mut();
        assert_eq!(
            tgsic_shader_compile(rt, m, TgsicEngine::Interpreter as u32, &mut s),
            TgsicStatus::Ok
        );
        // One triangle in z = 0 with white vertices: it moves a quarter up z.
        let tri = [
            [0.0f32, 0.0, 0.0, 1.0],
            [1.0, 0.0, 0.0, 1.0],
            [0.0, 1.0, 0.0, 1.0],
        ];
        let inputs: Vec<u32> = tri
            .iter()
            .flat_map(|p| [*p, [1.0; 4]])
            .flatten()
            .map(f32::to_bits)
            .collect();
        let mut vertices = vec![0u32; max * outs * 4];
        let mut counts = [0u32; 1];
        let mut ends = [7u8; 3];
        let mut run = |ends: *mut u8| {
            tgsic_shader_run_primitives(
                rt,
                s,
                null(),
                1,
                TgsicLayout::Aos as u32,
                inputs.as_ptr(),
                inputs.len(),
                vertices.as_mut_ptr(),
                vertices.len(),
                counts.as_mut_ptr(),
                1,
                ends,
                3,
            )
        };
        assert_eq!(run(ends.as_mut_ptr()), TgsicStatus::Ok, "{}", last());
        assert_eq!(run(null_mut()), TgsicStatus::Argument, "ends is NULL");
        assert_eq!(counts, [3]);
        assert_eq!(ends, [0, 0, 1]);
        for k in 0..3 {
            let z = f32::from_bits(vertices[k * outs * 4 + 2]);
            assert_eq!(z, 0.25, "vertex {k}");
        }
        tgsic_shader_free(s);
        tgsic_module_free(m);
        tgsic_runtime_free(rt);
    }
}

#[test]
fn the_code_cache_is_chosen_and_reported_from_c() {
    let dir = std::env::temp_dir().join(format!("tgsic-capi-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let dir_c = std::ffi::CString::new(dir.to_str().unwrap()).unwrap();
    let off = c"off";
    let src =
        b"FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0], COLOR\nMUL OUT[0], IN[0], IN[0]\nEND\n";
    // SAFETY: every pointer passed is NULL where the test says so, a NUL-terminated string,
    // a live handle or a buffer of the length passed beside it, as the C API's contracts ask.
    unsafe {
        let compile = |cache: *const std::ffi::c_char| {
            let mut rt = null_mut();
            assert_eq!(
                tgsic_runtime_new_with_cache(1, 0, cache, &mut rt),
                TgsicStatus::Ok
            );
            let mut m = null_mut();
            assert_eq!(
                tgsic_module_load(rt, src.as_ptr(), src.len(), &mut m),
                TgsicStatus::Ok
            );
            let mut s = null_mut();
            assert_eq!(
                tgsic_shader_compile(rt, m, TgsicEngine::Cranelift as u32, &mut s),
                TgsicStatus::Ok
            );
            let got = (tgsic_shader_engine(s), tgsic_shader_cache_hit(s));
            tgsic_shader_free(s);
            tgsic_module_free(m);
            tgsic_runtime_free(rt);
            got
        };
        assert_eq!(compile(dir_c.as_ptr()), (TgsicEngine::Cranelift, 0));
        assert_eq!(compile(dir_c.as_ptr()), (TgsicEngine::Cranelift, 1));
        assert_eq!(compile(off.as_ptr()), (TgsicEngine::Cranelift, -1));
        assert_eq!(tgsic_shader_cache_hit(null()), -1);
        assert_eq!(tgsic_shader_engine(null()), TgsicEngine::Interpreter);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_math_mode_is_chosen_per_compile() {
    // SAFETY: every pointer is a live handle or a buffer of the length passed beside it.
    unsafe {
        let mut rt = null_mut();
        assert_eq!(tgsic_runtime_new(1, 0, &mut rt), TgsicStatus::Ok);
        let src = b"FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0], COLOR\n  0: SIN OUT[0], IN[0].xxxx\n  1: END\n";
        let mut m = null_mut();
        assert_eq!(
            tgsic_module_load(rt, src.as_ptr(), src.len(), &mut m),
            TgsicStatus::Ok
        );
        let xs: Vec<f32> = (0..256).map(|i| i as f32 * 37.3 + 0.1).collect();
        let inputs: Vec<u32> = xs
            .iter()
            .flat_map(|&x| [x, 0.0, 0.0, 1.0])
            .map(f32::to_bits)
            .collect();
        let run = |engine: TgsicEngine, math: Option<TgsicMath>| -> Vec<f32> {
            let mut s = null_mut();
            let status = match math {
                Some(math) => {
                    tgsic_shader_compile_with_math(rt, m, engine as u32, math as u32, &mut s)
                }
                None => tgsic_shader_compile(rt, m, engine as u32, &mut s),
            };
            assert_eq!(status, TgsicStatus::Ok, "{}", last());
            let mut out = vec![0u32; inputs.len()];
            assert_eq!(
                tgsic_shader_run_fragments(
                    rt,
                    s,
                    null(),
                    xs.len(),
                    TgsicLayout::Aos as u32,
                    inputs.as_ptr(),
                    inputs.len(),
                    out.as_mut_ptr(),
                    out.len(),
                    null_mut()
                ),
                TgsicStatus::Ok,
                "{}",
                last()
            );
            tgsic_shader_free(s);
            out.chunks(4).map(|c| f32::from_bits(c[0])).collect()
        };
        let interp = run(TgsicEngine::Interpreter, None);
        let exact = run(TgsicEngine::Cranelift, Some(TgsicMath::Exact));
        let default = run(TgsicEngine::Cranelift, None);
        let accurate = run(TgsicEngine::Cranelift, Some(TgsicMath::Accurate));
        assert_eq!(exact, interp, "exact: the interpreter's bits");
        assert_eq!(default, accurate, "the default is accurate");
        assert_ne!(accurate, interp, "accurate is not bit-exact here");
        for (k, &x) in xs.iter().enumerate() {
            let t = f64::from(x).sin();
            let ulp = 2f64.powi((t.abs() as f32).log2().floor() as i32 - 23);
            assert!(
                (f64::from(accurate[k]) - t).abs() <= 2.0 * ulp.max(2f64.powi(-28)),
                "sin {x}: {} against {t}",
                accurate[k]
            );
        }
        tgsic_module_free(m);
        tgsic_runtime_free(rt);
    }
}

/// A compute dispatch through the C API: an atomic counter and an image of the host's
/// memory, changed in place; overlapping memory and a bad image size are refused.
#[test]
fn a_compute_dispatch_changes_the_hosts_memory() {
    use tgsic_c::memory::*;
    // SAFETY: every pointer passed is a live handle or a buffer of the length passed beside
    // it, alive until the calls that use it return.
    unsafe {
        let mut rt = null_mut();
        assert_eq!(tgsic_runtime_new(1, 0, &mut rt), TgsicStatus::Ok);
        let src = b"COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 4\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\n\
PROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL SV[0], THREAD_ID\nDCL BUFFER[0]\n\
DCL IMAGE[0], 2D, PIPE_FORMAT_R32_UINT, WR\nDCL TEMP[0]\nIMM[0] UINT32 {0, 1, 0, 0}\n\
ATOMUADD TEMP[0].x, BUFFER[0], IMM[0].xxxx, IMM[0].yyyy\n\
STORE IMAGE[0], SV[0].xyyy, TEMP[0].xxxx, 2D\nEND\n";
        let mut m = null_mut();
        assert_eq!(
            tgsic_module_load(rt, src.as_ptr(), src.len(), &mut m),
            TgsicStatus::Ok,
            "{}",
            last()
        );
        let mut s = null_mut();
        assert_eq!(
            tgsic_shader_compile(rt, m, TgsicEngine::Interpreter as u32, &mut s),
            TgsicStatus::Ok
        );
        let mut counter = [10u8, 0, 0, 0];
        let mut texels = [0u8; 4 * 4];
        let mut r = null_mut();
        assert_eq!(tgsic_resources_new(&mut r), TgsicStatus::Ok);
        assert_eq!(
            tgsic_resources_bind_buffer(r, 0, counter.as_mut_ptr(), 4),
            TgsicStatus::Ok
        );
        assert_eq!(
            tgsic_resources_bind_image(
                r,
                0,
                texels.as_mut_ptr(),
                15,
                4,
                1,
                1,
                c"R32_UINT".as_ptr()
            ),
            TgsicStatus::Argument
        );
        assert!(last().contains("is not 15 bytes"), "{}", last());
        assert_eq!(
            tgsic_resources_bind_image(
                r,
                0,
                texels.as_mut_ptr(),
                16,
                4,
                1,
                1,
                c"R32_UINT".as_ptr()
            ),
            TgsicStatus::Ok
        );
        assert_eq!(
            tgsic_shader_dispatch(rt, s, null(), r, 2, 1, 1),
            TgsicStatus::Ok,
            "{}",
            last()
        );
        assert_eq!(u32::from_le_bytes(counter), 18);
        let t: Vec<u32> = texels
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        assert_eq!(t, [14, 15, 16, 17], "the second group overwrote the first");
        // The counter's bytes lent again, overlapping, as a second buffer: refused.
        assert_eq!(
            tgsic_resources_bind_buffer(r, 1, counter.as_mut_ptr().add(2), 2),
            TgsicStatus::Ok
        );
        assert_eq!(
            tgsic_shader_dispatch(rt, s, null(), r, 1, 1, 1),
            TgsicStatus::Argument
        );
        assert!(last().contains("overlap"), "{}", last());
        assert_eq!(u32::from_le_bytes(counter), 18, "nothing ran");
        tgsic_resources_free(r);
        tgsic_shader_free(s);
        tgsic_module_free(m);
        tgsic_runtime_free(rt);
    }
}
