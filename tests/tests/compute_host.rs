//! Compute dispatches through the host API: softpipe's order of invocations and atomics,
//! shared memory kept from group to group, denormals kept, out-of-bounds accesses reading 0
//! and dropping stores whatever offset the program computes, and every binding that does not
//! fit refused before anything runs.

use tgsic_runtime::host::CompileOptions;
use tgsic_runtime::host::{
    Bindings, HostError, Image, ImageFormat, MemoryError, Module, Resources, RunControl, RunError,
};
use tgsic_tests::run::{compile, every_engine_exact, interpreter, runtime};

fn module(src: &str) -> Module {
    Module::new(tgsic::front::text::parse(src).expect("parses")).expect("loads")
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn dispatch(src: &str, res: &mut Resources<'_>, grid: [u32; 3]) -> Result<(), HostError> {
    interpreter(&module(src)).dispatch(
        runtime(),
        &Bindings::default(),
        res,
        grid,
        &RunControl::default(),
    )
}

/// `src` dispatched on the engine of `opts`.
fn dispatch_on(
    opts: &CompileOptions,
    src: &str,
    res: &mut Resources<'_>,
    grid: [u32; 3],
) -> Result<(), HostError> {
    let shader = compile(&module(src), opts)?;
    let run = shader.dispatch(
        runtime(),
        &Bindings::default(),
        res,
        grid,
        &RunControl::default(),
    );
    // A tiered shader's background compile ends before the process does.
    shader.wait_for_best();
    run
}

/// Each invocation adds 1 to a counter before and after a MEMBAR (a scheduling point in
/// tgsi_exec, as BARRIER) and stores both old values at its global index: every machine of a
/// group (4 lanes of consecutive x, in y then x order) runs to the MEMBAR before any goes on,
/// and groups run one after another, x first.
#[test]
fn atomics_apply_in_softpipes_order() {
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 6\nPROPERTY CS_FIXED_BLOCK_HEIGHT 2\n\
               PROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL SV[0], THREAD_ID\nDCL SV[1], BLOCK_ID\n\
               DCL BUFFER[0]\nDCL BUFFER[1]\nDCL TEMP[0..1]\nIMM[0] UINT32 {0, 1, 6, 12}\n\
               IMM[1] UINT32 {3, 0, 0, 0}\n\
               ATOMUADD TEMP[0].x, BUFFER[0], IMM[0].xxxx, IMM[0].yyyy\nMEMBAR IMM[0].xxxx\n\
               ATOMUADD TEMP[1].x, BUFFER[0], IMM[0].xxxx, IMM[0].yyyy\nMOV TEMP[0].y, TEMP[1].xxxx\n\
               UMAD TEMP[1].x, SV[0].yyyy, IMM[0].zzzz, SV[0].xxxx\n\
               UMAD TEMP[1].x, SV[1].xxxx, IMM[0].wwww, TEMP[1].xxxx\n\
               SHL TEMP[1].x, TEMP[1].xxxx, IMM[1].xxxx\n\
               STORE BUFFER[1].xy, TEMP[1].xxxx, TEMP[0].xyxx\nEND\n";
    let (mut counter, mut out) = (vec![0u8; 4], vec![0u8; 24 * 8]);
    let mut res = Resources::new();
    res.bind_buffer(0, &mut counter).unwrap();
    res.bind_buffer(1, &mut out).unwrap();
    dispatch(src, &mut res, [2, 1, 1]).expect("runs");
    drop(res);
    assert_eq!(words(&counter), [48]);
    // Group g's invocation i (of 12, y then x) gets 24g + i before the MEMBAR and
    // 24g + 12 + i after it.
    let want: Vec<u32> = (0..24u32)
        .flat_map(|k| {
            let (g, i) = (k / 12, k % 12);
            [24 * g + i, 24 * g + 12 + i]
        })
        .collect();
    assert_eq!(words(&out), want);
}

/// softpipe zeroes shared memory once per dispatch: a group sees what the one before left.
#[test]
fn shared_memory_persists_between_groups() {
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 1\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\n\
               PROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL SV[0], BLOCK_ID\nDCL BUFFER[0]\n\
               DCL MEMORY[1], SHARED\nDCL TEMP[0..1]\nIMM[0] UINT32 {0, 2, 100, 0}\n\
               LOAD TEMP[0].x, MEMORY[0], IMM[0].xxxx\nSHL TEMP[1].x, SV[0].xxxx, IMM[0].yyyy\n\
               STORE BUFFER[0].x, TEMP[1].xxxx, TEMP[0].xxxx\n\
               UADD TEMP[0].x, TEMP[0].xxxx, IMM[0].zzzz\nSTORE MEMORY[0].x, IMM[0].xxxx, TEMP[0].xxxx\nEND\n";
    for opts in every_engine_exact() {
        let mut out = vec![0u8; 16];
        let mut res = Resources::new();
        res.bind_buffer(0, &mut out).unwrap();
        res.set_shared_bytes(4).unwrap();
        dispatch_on(&opts, src, &mut res, [4, 1, 1]).expect("runs");
        drop(res);
        assert_eq!(words(&out), [0, 100, 200, 300], "{:?}", opts.engine);
    }
}

/// Compute programs keep denormals (softpipe runs them without FTZ).
#[test]
fn compute_keeps_denormals() {
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 1\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\n\
               PROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL BUFFER[0]\nDCL TEMP[0]\n\
               IMM[0] FLT32 {1e-20, 1e-40, 0.5, 0}\nIMM[1] UINT32 {0, 4, 0, 0}\n\
               MUL TEMP[0].x, IMM[0].xxxx, IMM[0].xxxx\nADD TEMP[0].y, IMM[0].yyyy, IMM[0].yyyy\n\
               STORE BUFFER[0].xy, IMM[1].xxxx, TEMP[0].xyxx\nEND\n";
    for opts in every_engine_exact() {
        let mut out = vec![0u8; 8];
        let mut res = Resources::new();
        res.bind_buffer(0, &mut out).unwrap();
        dispatch_on(&opts, src, &mut res, [1, 1, 1]).expect("runs");
        drop(res);
        let w = words(&out);
        let e = opts.engine;
        assert_eq!(f32::from_bits(w[0]), 1e-20f32 * 1e-20f32, "{e:?}");
        assert_eq!(f32::from_bits(w[1]), 1e-40f32 + 1e-40f32, "{e:?}");
        assert!(f32::from_bits(w[0]).is_subnormal(), "{e:?}");
    }
}

/// Whatever offsets a program computes, it reads 0 outside its buffers and images and its
/// stores there change nothing.
#[test]
fn out_of_bounds_accesses_read_zero_and_drop_stores() {
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 1\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\n\
               PROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL BUFFER[0]\nDCL IMAGE[0], 2D, PIPE_FORMAT_R32_UINT, WR\n\
               DCL MEMORY[1], SHARED\nDCL TEMP[0..2]\n\
               IMM[0] UINT32 {4294967292, 8, 12, 16}\nIMM[1] UINT32 {2, 0, 7, 4294967295}\n\
               STORE BUFFER[0].xyzw, IMM[0].yyyy, IMM[1].zzzz\n\
               STORE BUFFER[0].x, IMM[0].xxxx, IMM[1].zzzz\n\
               STORE MEMORY[0].x, IMM[0].xxxx, IMM[1].zzzz\n\
               LOAD TEMP[0].xy, BUFFER[0], IMM[0].zzzz\n\
               LOAD TEMP[1].x, BUFFER[0], IMM[0].xxxx\n\
               ATOMUADD TEMP[1].y, BUFFER[0], IMM[0].wwww, IMM[1].zzzz\n\
               STORE IMAGE[0], IMM[1].xyyy, IMM[1].zzzz, 2D\nSTORE IMAGE[0], IMM[1].wyyy, IMM[1].zzzz, 2D\n\
               LOAD TEMP[2].x, IMAGE[0], IMM[1].wwww, 2D\n\
               STORE BUFFER[0].x, IMM[1].yyyy, TEMP[0].yyyy\nSTORE BUFFER[0].y, IMM[1].yyyy, TEMP[1].xxxx\n\
               STORE BUFFER[0].z, IMM[1].yyyy, TEMP[2].xxxx\nEND\n";
    let mut buf = vec![0u8; 16];
    let mut tex = vec![0u8; 2 * 2 * 4];
    let mut res = Resources::new();
    res.bind_buffer(0, &mut buf).unwrap();
    res.bind_image(
        0,
        Image::new(&mut tex, [2, 2, 1], ImageFormat::R32Uint).unwrap(),
    )
    .unwrap();
    res.set_shared_bytes(4).unwrap();
    dispatch(src, &mut res, [1, 1, 1]).expect("runs");
    drop(res);
    // The STORE at 8 writes two words (x, y) of four; the one at -4 and past the end nothing.
    // The two-word LOAD at 12 does not fit: 0, 0. The last stores wrote 0 over words 0..2.
    assert_eq!(words(&buf), [0, 0, 0, 7]);
    assert_eq!(
        words(&tex),
        [0, 0, 0, 0],
        "x = 2 and x = -1 are outside a 2x2 image"
    );
}

#[test]
fn what_does_not_fit_is_refused_before_anything_runs() {
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 1\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\n\
               PROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL BUFFER[0]\nDCL IMAGE[0], 2D, PIPE_FORMAT_R32_SINT, WR\n\
               DCL TEMP[0]\nIMM[0] UINT32 {0, 1, 0, 0}\n\
               ATOMXCHG TEMP[0].x, IMAGE[0], IMM[0].xxxx, IMM[0].yyyy, 2D, PIPE_FORMAT_R32_SINT\n\
               STORE BUFFER[0].x, IMM[0].xxxx, IMM[0].yyyy\nEND\n";
    let memory = |e: HostError| match e {
        HostError::Run(RunError::Memory(m)) => m,
        other => panic!("{other}"),
    };
    let mut buf = vec![0u8; 4];
    let mut tex = vec![0u8; 4];
    let mut rgba = vec![0u8; 4];
    {
        let mut res = Resources::new();
        res.bind_buffer(0, &mut buf).unwrap();
        let e = dispatch(src, &mut res, [1, 1, 1]).unwrap_err();
        assert_eq!(memory(e), MemoryError::UnboundImage(0));
    }
    {
        let mut res = Resources::new();
        res.bind_image(
            0,
            Image::new(&mut rgba, [1, 1, 1], ImageFormat::R8G8B8A8Unorm).unwrap(),
        )
        .unwrap();
        res.bind_buffer(0, &mut buf).unwrap();
        let e = memory(dispatch(src, &mut res, [1, 1, 1]).unwrap_err());
        assert!(
            matches!(e, MemoryError::ImageAtomic { index: 0, .. }),
            "{e}"
        );
        for grid in [[0, 1, 1], [70000, 1, 1]] {
            let e = memory(dispatch(src, &mut res, grid).unwrap_err());
            assert!(matches!(e, MemoryError::Grid(..)), "{e}");
        }
    }
    assert_eq!(buf, [0; 4], "nothing ran");
    let mut res = Resources::new();
    assert!(matches!(
        res.set_shared_bytes(1 << 20),
        Err(MemoryError::SharedTooLarge(_))
    ));
    assert!(matches!(
        Image::new(&mut tex, [2, 1, 1], ImageFormat::R32Sint),
        Err(MemoryError::ImageBytes { .. })
    ));
    res.bind_buffer(0, &mut buf).unwrap();
    let mut other = vec![0u8; 4];
    assert!(matches!(
        res.bind_buffer(0, &mut other),
        Err(MemoryError::BoundTwice(_))
    ));
    // A fragment shader is not dispatched.
    let frag = interpreter(&module(
        "FRAG\nDCL OUT[0], COLOR\nMOV OUT[0], IMM[0]\nIMM[0] FLT32 {1, 1, 1, 1}\nEND\n",
    ));
    let mut res = Resources::new();
    assert!(matches!(
        frag.dispatch(
            runtime(),
            &Bindings::default(),
            &mut res,
            [1, 1, 1],
            &RunControl::default()
        ),
        Err(HostError::Processor { .. })
    ));
}

/// A dispatch is bounded in time like a render.
#[test]
fn a_dispatch_stops_at_its_deadline() {
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 64\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\n\
               PROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL TEMP[0]\nIMM[0] FLT32 {1, 0, 0, 0}\n\
               BGNLOOP\nADD TEMP[0].x, TEMP[0].xxxx, IMM[0].xxxx\nENDLOOP\nEND\n";
    let shader = interpreter(&module(src));
    let control = RunControl {
        deadline: Some(std::time::Instant::now()),
        ..RunControl::default()
    };
    let mut res = Resources::new();
    let e = shader
        .dispatch(
            runtime(),
            &Bindings::default(),
            &mut res,
            [1000, 1, 1],
            &control,
        )
        .unwrap_err();
    assert!(matches!(e, HostError::Run(RunError::TimeLimit)), "{e}");
}

/// An array of buffers addressed indirectly (`BUFFER[ADDR[0].x]`), on every engine: each
/// machine's (a JIT: each step's) first executing invocation names the buffer, as in
/// tgsi_exec; an index past the bound buffers reads 0 and stores nothing.
#[test]
fn indirectly_addressed_buffers() {
    let src = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 4\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\n\
               PROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL SV[0], THREAD_ID\nDCL SV[1], BLOCK_ID\n\
               DCL BUFFER[0..2]\nDCL ADDR[0]\nDCL TEMP[0]\nIMM[0] UINT32 {2, 16, 0, 0}\n\
               UARL ADDR[0].x, SV[1].xxxx\nSHL TEMP[0].x, SV[0].xxxx, IMM[0].xxxx\n\
               STORE BUFFER[ADDR[0].x].x, TEMP[0].xxxx, SV[1].xxxx\n\
               ATOMUADD TEMP[0].x, BUFFER[ADDR[0].x+1], IMM[0].yyyy, SV[0].xxxx\nEND\n";
    for opts in every_engine_exact() {
        let (mut a, mut b, mut c) = (vec![9u8; 20], vec![0u8; 20], vec![0u8; 20]);
        let mut res = Resources::new();
        res.bind_buffer(0, &mut a).unwrap();
        res.bind_buffer(1, &mut b).unwrap();
        res.bind_buffer(2, &mut c).unwrap();
        // Group g stores g into words 0..3 of BUFFER[g] and adds 0+1+2+3 to word 4 of
        // BUFFER[g + 1]; groups 2 and 3 reach BUFFER[3] and BUFFER[4], which are unbound.
        dispatch_on(&opts, src, &mut res, [4, 1, 1]).expect("runs");
        drop(res);
        let e = opts.engine;
        assert_eq!(words(&a), [0, 0, 0, 0, 0x0909_0909], "{e:?}");
        assert_eq!(words(&b), [1, 1, 1, 1, 6], "{e:?}");
        assert_eq!(words(&c), [2, 2, 2, 2, 6], "{e:?}");
    }
}

/// Work groups on several threads (the JITs split a dispatch's groups into one contiguous run
/// per thread, each with shared memory of its own) give what one thread gives wherever the
/// result does not depend on the order of groups: a per-group reduction in shared memory
/// between barriers, atomics on a global counter and maximum, a store per invocation.
#[test]
fn work_groups_on_several_threads_give_one_threads_results() {
    let with_barriers = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 32\nPROPERTY CS_FIXED_BLOCK_HEIGHT 2\n\
        PROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL SV[0], THREAD_ID\nDCL SV[1], BLOCK_ID\n\
        DCL BUFFER[0]\nDCL BUFFER[1]\nDCL MEMORY[1], SHARED\nDCL TEMP[0..2]\n\
        IMM[0] UINT32 {0, 2, 32, 4}\n\
        UMAD TEMP[0].x, SV[0].yyyy, IMM[0].zzzz, SV[0].xxxx\n\
        USEQ TEMP[0].y, TEMP[0].xxxx, IMM[0].xxxx\n\
        UIF TEMP[0].yyyy\nSTORE MEMORY[0].x, IMM[0].xxxx, IMM[0].xxxx\nENDIF\nBARRIER\n\
        UADD TEMP[1].x, TEMP[0].xxxx, SV[1].xxxx\n\
        ATOMUADD TEMP[2].x, MEMORY[0], IMM[0].xxxx, TEMP[1].xxxx\nBARRIER\n\
        UIF TEMP[0].yyyy\nLOAD TEMP[2].x, MEMORY[0], IMM[0].xxxx\n\
        SHL TEMP[1].y, SV[1].xxxx, IMM[0].yyyy\nSTORE BUFFER[0].x, TEMP[1].yyyy, TEMP[2].xxxx\n\
        ATOMUADD TEMP[1].x, BUFFER[1], IMM[0].xxxx, TEMP[2].xxxx\nENDIF\nEND\n";
    let without = "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 64\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\n\
        PROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL SV[0], THREAD_ID\nDCL SV[1], BLOCK_ID\n\
        DCL BUFFER[0]\nDCL BUFFER[1]\nDCL TEMP[0..2]\nIMM[0] UINT32 {0, 2, 64, 3}\n\
        IMM[1] UINT32 {1, 4, 0, 0}\n\
        UMAD TEMP[0].x, SV[1].xxxx, IMM[0].zzzz, SV[0].xxxx\n\
        SHL TEMP[0].y, TEMP[0].xxxx, IMM[0].yyyy\nUMUL TEMP[0].z, TEMP[0].xxxx, IMM[0].wwww\n\
        STORE BUFFER[0].x, TEMP[0].yyyy, TEMP[0].zzzz\n\
        ATOMUADD TEMP[1].x, BUFFER[1], IMM[0].xxxx, IMM[1].xxxx\n\
        ATOMUMAX TEMP[1].x, BUFFER[1], IMM[1].yyyy, TEMP[0].xxxx\nEND\n";
    let groups = 37u32;
    // Per group g: the sum of l + g over its 64 invocations; the counter sums those.
    let sums: Vec<u32> = (0..groups).map(|g| 2016 + 64 * g).collect();
    let cases: [(&str, usize, Vec<u32>, Vec<u32>); 2] = [
        (
            with_barriers,
            4 * groups as usize,
            sums.clone(),
            vec![sums.iter().sum()],
        ),
        (
            without,
            4 * 64 * groups as usize,
            (0..64 * groups).map(|i| 3 * i).collect(),
            vec![64 * groups, 64 * groups - 1],
        ),
    ];
    for (src, bytes, want_stores, want_counters) in cases {
        for opts in every_engine_exact() {
            for threads in [1, 2, 3] {
                let rt = tgsic_tests::run::runtime_with_threads(threads);
                let shader = compile(&module(src), &opts).expect("compiles");
                let (mut out, mut counters) = (vec![0u8; bytes], vec![0u8; 8]);
                // The progress reaches its total (its unit is the engine's: groups, or the
                // interpreter's machines).
                let (done, all) = (
                    std::sync::atomic::AtomicU64::new(0),
                    std::sync::atomic::AtomicU64::new(0),
                );
                let progress = |d: u64, total: u64| {
                    done.fetch_max(d, std::sync::atomic::Ordering::Relaxed);
                    all.store(total, std::sync::atomic::Ordering::Relaxed);
                };
                let control = RunControl {
                    progress: Some(&progress),
                    ..RunControl::default()
                };
                let mut res = Resources::new();
                res.bind_buffer(0, &mut out).unwrap();
                res.bind_buffer(1, &mut counters).unwrap();
                res.set_shared_bytes(4).unwrap();
                let run = shader.dispatch(
                    &rt,
                    &Bindings::default(),
                    &mut res,
                    [groups, 1, 1],
                    &control,
                );
                shader.wait_for_best();
                run.expect("runs");
                drop(res);
                let what = format!("{:?} on {threads} thread(s)", opts.engine);
                assert_eq!(words(&out), want_stores, "{what}");
                assert_eq!(
                    words(&counters)[..want_counters.len()],
                    want_counters,
                    "{what}"
                );
                let total = all.into_inner();
                assert!(total >= groups as u64, "{what}: progress of {total}");
                assert_eq!(done.into_inner(), total, "{what}: progress");
            }
        }
    }
}
