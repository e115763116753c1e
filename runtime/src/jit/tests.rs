//! The JIT executor against the interpreter, batch by batch.

use super::*;
use crate::engine::{ALL, Reg};

/// The back ends of this build.
fn backends() -> Vec<Backend> {
    Backend::ALL.into_iter().filter(|b| b.available()).collect()
}

/// The outputs of `engine` on a batch of every lane whose IN[0] component c of lane l is
/// l/64 + c, then (with `then`) on the same batch with only the lanes of `then` alive.
fn ramp_outputs(p: &Module, engine: &dyn Fn(&mut BatchIo), then: Option<u64>) -> Vec<Reg> {
    let mut io = BatchIo::new(p, Arrangement::Quads);
    for (c, chan) in io.inputs[0].iter_mut().enumerate() {
        for (l, x) in chan.iter_mut().enumerate() {
            *x = (l as f32 / 64.0 + c as f32).to_bits();
        }
    }
    io.alive = ALL;
    engine(&mut io);
    if let Some(alive) = then {
        io.alive = alive;
        engine(&mut io);
    }
    io.outputs
}

/// The interpreter's [`ramp_outputs`] with `bind`, and each back end's at three step widths
/// asserted equal to them (`what` names the case in a failure); returns the interpreter's, for
/// the caller's own checks.
fn assert_jits_match_interpreter(
    p: &Module,
    bind: &Bindings,
    then: Option<u64>,
    what: &str,
) -> Vec<Reg> {
    let want = ramp_outputs(
        p,
        &|io| {
            let mut s = p.scratch();
            p.run_batch(bind, io, &mut s).unwrap();
        },
        then,
    );
    for backend in backends() {
        for lanes in [0, 4, 16] {
            let config = CompileOptions {
                engine: backend.into(),
                lanes,
                ..CompileOptions::default()
            };
            let jit = JitShader::compile(JitSpec::new(p.clone(), &config)).unwrap();
            let got = ramp_outputs(
                p,
                &|io| {
                    let mut s = jit.scratch();
                    jit.run_batch(bind, io, &mut s).unwrap();
                },
                then,
            );
            assert_eq!(got, want, "{backend:?}, {lanes} lanes{what}");
        }
    }
    want
}

#[test]
fn outputs_of_lanes_that_do_not_run_are_zero_whatever_the_last_batch_left() {
    // OUT[0] is stored whole, OUT[1].x too (the IF's value is merged before the store),
    // OUT[1].yzw never: after a batch of every lane, one of lanes 0 and 2 alone (the other
    // lanes of their step skipped, the other steps idle) must leave 0 in every other lane
    // of every output, as the interpreter does, on both back ends.
    let p = Module::new(
        tgsic::front::text::parse(
            "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\n\
             DCL OUT[1], COLOR[1]\nDCL TEMP[0]\nIMM[0] FLT32 { 0.5, 7.0, 0.0, 0.0 }\n\
             MOV OUT[0], IN[0]\nSLT TEMP[0].x, IMM[0].xxxx, IN[0].xxxx\n\
             IF TEMP[0].xxxx\nMOV OUT[1].x, IMM[0].yyyy\nENDIF\nEND\n",
        )
        .unwrap(),
    )
    .unwrap();
    let bind = Bindings::default();
    let want = assert_jits_match_interpreter(&p, &bind, Some(0b101), "");
    assert_eq!(
        f32::from_bits(want[0][0][2]),
        2.0 / 64.0,
        "OUT[0].x of lane 2"
    );
    for (r, reg) in want.iter().enumerate() {
        for (k, comp) in reg.iter().enumerate() {
            for (l, &x) in comp.iter().enumerate() {
                if (l != 0 && l != 2) || (r == 1 && k > 0) {
                    assert_eq!(x, 0, "OUT[{r}] component {k} of lane {l}");
                }
            }
        }
    }
}

#[test]
fn uniform_values_computed_once_a_call_are_what_each_step_computes() {
    // The code computes uniform values before its steps (`simd` hoisting): the product and
    // SIN of a constant, a uniform IF and its merge; not the loop, nor the product of its
    // result after it (a uniform value that only the step computes), which reads the loop
    // variable. Both back ends at three widths, both IF branches, against the interpreter.
    let p = Module::new(
        tgsic::front::text::parse(
            "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\n\
             DCL CONST[0][0]\nDCL TEMP[0..3]\nIMM[0] FLT32 { 1.0, 0.5, 3.0, 0.0 }\n\
             MUL TEMP[0].x, CONST[0][0].xxxx, IMM[0].zzzz\n\
             SIN TEMP[0].y, TEMP[0].xxxx\n\
             MOV TEMP[1].xy, IMM[0].wwww\n\
             BGNLOOP\n\
             SGE TEMP[2].x, TEMP[1].yyyy, CONST[0][0].yyyy\n\
             IF TEMP[2].xxxx\nBRK\nENDIF\n\
             ADD TEMP[1].x, TEMP[1].xxxx, TEMP[0].yyyy\n\
             ADD TEMP[1].y, TEMP[1].yyyy, IMM[0].xxxx\n\
             ENDLOOP\n\
             MUL TEMP[3].x, TEMP[1].xxxx, IMM[0].yyyy\n\
             SLT TEMP[3].y, CONST[0][0].xxxx, IMM[0].yyyy\n\
             IF TEMP[3].yyyy\nMUL TEMP[3].z, TEMP[0].xxxx, TEMP[0].xxxx\n\
             ELSE\nADD TEMP[3].z, TEMP[0].xxxx, IMM[0].xxxx\nENDIF\n\
             ADD OUT[0].x, TEMP[3].xxxx, IN[0].xxxx\n\
             MAD OUT[0].y, TEMP[3].zzzz, IN[0].yyyy, TEMP[0].yyyy\n\
             MOV OUT[0].zw, TEMP[3].zzzx\nEND\n",
        )
        .unwrap(),
    )
    .unwrap();
    for (c, n) in [(0.25f32, 5.0f32), (0.75, 3.0)] {
        let bind = Bindings {
            constants: vec![vec![[c.to_bits(), n.to_bits(), 0, 0]]],
            ..Bindings::default()
        };
        let want = assert_jits_match_interpreter(&p, &bind, None, &format!(", CONST {c}, {n}"));
        let sum = (0..n as usize).fold(0.0f32, |a, _| a + (3.0 * c).sin());
        assert_eq!(
            f32::from_bits(want[0][0][0]),
            sum * 0.5,
            "OUT[0].x of lane 0"
        );
    }
}

#[test]
fn uniform_values_inside_branches_and_loops_computed_once_a_call_are_right() {
    // Uniform instructions inside statements that stay in the steps move before them one by
    // one: the SIN/COS pair and the product of a constant read inside a branch on the pixel
    // (taken by some lanes), a uniform value inside a loop (loop-invariant), and EX2 inside a
    // uniform branch that also reads the pixel. Both back ends at three widths, both
    // directions of the uniform branch, against the interpreter.
    let p = Module::new(
        tgsic::front::text::parse(
            "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\n\
             DCL CONST[0][0..1]\nDCL TEMP[0..3]\nIMM[0] FLT32 { 1.0, 0.5, 300.0, 0.0 }\n\
             MOV TEMP[0], IMM[0].wwww\n\
             SLT TEMP[1].x, IN[0].xxxx, IMM[0].yyyy\n\
             IF TEMP[1].xxxx\n\
             MUL TEMP[2].x, CONST[0][1].xxxx, IMM[0].zzzz\n\
             SIN TEMP[0].x, TEMP[2].xxxx\n\
             COS TEMP[0].y, TEMP[2].xxxx\n\
             ELSE\nMOV TEMP[0].xy, IN[0].yxxx\nENDIF\n\
             MOV TEMP[3].xy, IMM[0].wwww\n\
             BGNLOOP\n\
             SGE TEMP[1].y, TEMP[3].yyyy, CONST[0][0].yyyy\n\
             IF TEMP[1].yyyy\nBRK\nENDIF\n\
             MUL TEMP[1].z, CONST[0][0].xxxx, IMM[0].yyyy\n\
             ADD TEMP[3].x, TEMP[3].xxxx, TEMP[1].zzzz\n\
             ADD TEMP[3].y, TEMP[3].yyyy, IMM[0].xxxx\n\
             ENDLOOP\n\
             SLT TEMP[1].w, CONST[0][0].xxxx, IMM[0].yyyy\n\
             IF TEMP[1].wwww\n\
             EX2 TEMP[2].y, CONST[0][0].xxxx\n\
             ADD TEMP[0].z, TEMP[2].yyyy, IN[0].yyyy\n\
             ELSE\nMOV TEMP[0].z, IMM[0].xxxx\nENDIF\n\
             ADD OUT[0].x, TEMP[0].xxxx, TEMP[3].xxxx\n\
             MOV OUT[0].yzw, TEMP[0].yyzz\nEND\n",
        )
        .unwrap(),
    )
    .unwrap();
    for (c, n, a) in [(0.25f32, 5.0f32, 0.3f32), (0.75, 3.0, 2.0)] {
        let bind = Bindings {
            constants: vec![vec![
                [c.to_bits(), n.to_bits(), 0, 0],
                [a.to_bits(), 0, 0, 0],
            ]],
            ..Bindings::default()
        };
        assert_jits_match_interpreter(&p, &bind, None, &format!(", CONST {c}, {n}, {a}"));
    }
}

#[test]
fn a_run_of_batches_computes_what_each_batch_alone_does() {
    // A mipmapped lookup (its level from derivatives: the descriptors depend on how lanes
    // are arranged) plus a constant, over batches whose inputs, lanes and arrangement
    // change: run_batches must give each batch's outputs and report as run_batch does
    // alone, choosing its code again when the arrangement changes, on both back ends.
    use crate::texture::{Filter, MipFilter, Sampler, Texture, Wrap};
    let p = Module::new(
        tgsic::front::text::parse(
            "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\n\
             DCL SVIEW[0], 2D, FLOAT\nDCL CONST[0][0]\nDCL TEMP[0]\n\
             IMM[0] FLT32 { 0.9, 0.0, 0.0, 0.0 }\n\
             TEX TEMP[0], IN[0], SAMP[0], 2D\nADD OUT[0], TEMP[0], CONST[0][0]\n\
             SLT TEMP[0].x, IMM[0].xxxx, IN[0].xxxx\nKILL_IF -TEMP[0].xxxx\nEND\n",
        )
        .unwrap(),
    )
    .unwrap();
    let bytes: Vec<u8> = (0..16 * 8 * 4).map(|k| (k * 37 % 251) as u8).collect();
    let mut tex = Texture::from_rgba8(16, 8, 1, &bytes).unwrap();
    tex.generate_mipmaps(false);
    let bind = Bindings {
        constants: vec![vec![[0.25f32.to_bits(), 0, 1.0f32.to_bits(), 0]]],
        textures: vec![Some(tex)],
        samplers: vec![Sampler {
            min: Filter::Linear,
            mag: Filter::Nearest,
            mip: MipFilter::Linear,
            wrap: [Wrap::Repeat; 3],
            ..Sampler::default()
        }],
        ..Bindings::default()
    };
    let arrangements = [
        Arrangement::Quads,
        Arrangement::Quads,
        Arrangement::Independent,
        Arrangement::Quads,
    ];
    // Batch k: its lanes, then its coordinates (spread more in later batches, so that
    // their levels differ, and past 0.9 in x for some lanes, which are discarded).
    let fill = |k: usize, io: &mut BatchIo| {
        io.arrangement = arrangements[k];
        io.alive = if k == 1 { 0xF0F0_0000_FFFF_000F } else { ALL };
        io.helpers = 0;
        for (c, chan) in io.inputs[0].iter_mut().enumerate() {
            for (l, x) in chan.iter_mut().enumerate() {
                let v = (l as f32 * (k + 1) as f32 / 61.0 + 0.1 * c as f32) % 1.0;
                *x = v.to_bits();
            }
        }
    };
    let mut engines: Vec<Box<dyn Fn() -> JitShader>> = Vec::new();
    for backend in [Backend::Cranelift, Backend::Llvm] {
        if backend.available() {
            let p = p.clone();
            engines.push(Box::new(move || {
                let config = CompileOptions {
                    engine: backend.into(),
                    ..CompileOptions::default()
                };
                JitShader::compile(JitSpec::new(p.clone(), &config)).unwrap()
            }));
        }
    }
    for make in engines {
        let jit = make();
        let mut want = Vec::new();
        for k in 0..arrangements.len() {
            let mut io = BatchIo::new(&p, arrangements[k]);
            fill(k, &mut io);
            let report = jit.run_batch(&bind, &mut io, &mut jit.scratch()).unwrap();
            want.push((io.outputs.clone(), report.killed));
        }
        assert_ne!(want[0].0, want[2].0, "the batches differ");
        assert!(want.iter().any(|w| w.1 != 0), "some lanes are discarded");
        let mut got = Vec::new();
        let mut io = BatchIo::new(&p, Arrangement::Quads);
        let mut scratch = jit.scratch();
        let mut k = 0;
        jit.run_batches(&bind, &mut io, &mut scratch, &mut |io, report| {
            if let Some(r) = report {
                got.push((io.outputs.clone(), r.killed));
            }
            if k == arrangements.len() {
                return Ok(false);
            }
            fill(k, io);
            k += 1;
            Ok(true)
        })
        .unwrap();
        assert_eq!(got, want, "{:?}", jit.backend());
        // An error from the feed stops the run: the batch it would have filled never runs.
        let mut runs = 0;
        let e = jit
            .run_batches(&bind, &mut io, &mut scratch, &mut |io, report| {
                if report.is_some() {
                    runs += 1;
                    return Err(RunError::TimeLimit);
                }
                fill(0, io);
                Ok(true)
            })
            .unwrap_err();
        assert!(matches!(e, RunError::TimeLimit) && runs == 1);
    }
}

#[test]
fn a_batch_refuses_registers_and_remakes_scratch_made_for_another_shader() {
    let shader = |src: &str| {
        let p = Module::new(tgsic::front::text::parse(src).unwrap()).unwrap();
        JitShader::compile(JitSpec::new(
            p,
            &CompileOptions::with_engine(EngineKind::Cranelift),
        ))
        .unwrap()
    };
    // `wide` reads IN[3] and a constant and indexes an array; `narrow` reads IN[0] alone.
    let wide = shader(
        "FRAG\nDCL IN[0..3], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL CONST[0][0]\n\
         DCL TEMP[0..7], ARRAY(1)\nDCL ADDR[0]\nIMM[0] FLT32 { 2.0, 0.0, 0.0, 0.0 }\n\
         MOV TEMP[5], IN[3]\nARL ADDR[0].x, IMM[0].xxxx\n\
         MAD OUT[0], TEMP[ADDR[0].x+3], CONST[0][0].xxxx, IN[0]\nEND\n",
    );
    let narrow = shader(
        "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nMOV OUT[0], IN[0]\nEND\n",
    );
    let bind = Bindings {
        constants: vec![vec![[3.0f32.to_bits(), 0, 0, 0]]],
        ..Bindings::default()
    };
    let mut io = BatchIo::new(&wide.prepared, Arrangement::Quads);
    io.alive = ALL;
    for (r, reg) in io.inputs.iter_mut().enumerate() {
        for (c, chan) in reg.iter_mut().enumerate() {
            *chan = [(10.0 * r as f32 + c as f32).to_bits(); BATCH_LANES];
        }
    }
    let mut own = wide.scratch();
    wide.run_batch(&bind, &mut io, &mut own).unwrap();
    let want = io.outputs[0];
    assert_eq!(
        f32::from_bits(want[1][0]),
        31.0 * 3.0 + 1.0,
        "IN[3].y · 3 + IN[0].y"
    );
    // Another shader's scratch is remade for this one: the same pixels.
    let mut other = narrow.scratch();
    io.outputs[0] = [[0; BATCH_LANES]; 4];
    wide.run_batch(&bind, &mut io, &mut other).unwrap();
    assert_eq!(io.outputs[0], want);
    // Another shader's registers (one input where four are read) are refused.
    let mut small = BatchIo::new(&narrow.prepared, Arrangement::Quads);
    small.alive = ALL;
    let e = wide.run_batch(&bind, &mut small, &mut own).unwrap_err();
    assert!(e.to_string().contains("another shader"), "{e}");
}

#[test]
fn code_from_the_cache_runs_without_lifting_and_lifts_for_another_variant() {
    let dir = std::env::temp_dir().join(format!("tgsic-jit-facts-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let disk = Arc::new(DiskCache::open(&dir, 1 << 30).unwrap());
    let module =
        |src: &str| Arc::new(Module::new(tgsic::front::text::parse(src).unwrap()).unwrap());
    // Immediates and arithmetic; a lookup whose code variants the bindings choose.
    let alu = module(
        "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
         IMM[0] FLT32 { 0.25, 3.0, -1.5, 8.0 }\n\
         MAD TEMP[0], IN[0], IMM[0], IMM[0].wzyx\nMOV OUT[0], TEMP[0]\nEND\n",
    );
    let tex = module(
        "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\n\
         DCL SVIEW[0], 2D, FLOAT\nTEX OUT[0], IN[0], SAMP[0], 2D\nEND\n",
    );
    let lifted = |j: &JitShader| j.variants.ir.function.get().is_some();
    for backend in backends() {
        let opts = CompileOptions::with_engine(backend);
        let spec = |p: &Arc<Module>, lookups| JitSpec {
            module: p.clone(),
            opts,
            lookups,
            disk: Some(disk.clone()),
            function: None,
        };
        let run = |j: &JitShader| {
            ramp_outputs(
                &alu,
                &|io| {
                    let mut s = j.scratch();
                    j.run_batch(&Bindings::default(), io, &mut s).unwrap();
                },
                None,
            )
        };
        let first = JitShader::compile(spec(&alu, Lookups::Callback)).unwrap();
        assert_eq!(first.cache, CacheUse::Miss, "{backend:?}");
        assert!(lifted(&first));
        // A second start: the code and the function's facts from the cache, no IR.
        let second = JitShader::compile(spec(&alu, Lookups::Callback)).unwrap();
        assert_eq!(second.cache, CacheUse::Hit, "{backend:?}");
        assert!(!lifted(&second), "{backend:?}: lifted on a hit");
        assert_eq!(second.facts(), first.facts());
        assert_eq!(
            second.facts().immediates,
            [0.25f32, 3.0, -1.5, 8.0].map(f32::to_bits)
        );
        let (want, got) = (run(&first), run(&second));
        assert_eq!(got, want, "{backend:?}");
        // OUT[0].y of lane 5 = (5/64 + 1)·3 + (-1.5).
        assert_eq!(f32::from_bits(got[0][1][5]), (5.0 / 64.0 + 1.0) * 3.0 - 1.5);

        let t1 = JitShader::compile(spec(&tex, Lookups::Callback)).unwrap();
        let t2 = JitShader::compile(spec(&tex, Lookups::Callback)).unwrap();
        assert_eq!((t1.cache, t2.cache), (CacheUse::Miss, CacheUse::Hit));
        assert!(!lifted(&t2));
        assert_eq!(
            t2.facts().tex_ops,
            tgsic::back::texpath::texture_ops(t1.function().unwrap())
        );
        // Another variant (every lookup sampled in the code): the IR is lifted for it now,
        // and the variant stored: a third start reads it without lifting.
        let every = t2.code(Lookups::Every).unwrap();
        assert!(lifted(&t2), "{backend:?}");
        assert_ne!(every.tex_paths, t2.compiled.tex_paths);
        let t3 = JitShader::compile(spec(&tex, Lookups::Every)).unwrap();
        assert_eq!(t3.cache, CacheUse::Hit, "{backend:?}");
        assert!(!lifted(&t3));
        assert_eq!(t3.compiled.to_bytes(), every.to_bytes());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
