//! Memory accesses lane by lane: the JITs apply loads, stores and atomics in their own code
//! where every lane of a step allows it and call back otherwise (`back/simd/storage.rs`);
//! either way every engine leaves the memory exactly as the interpreter does. The offsets
//! come from a table, so that one program meets whole-word offsets, offsets within words,
//! wide stores of neighbouring lanes that share words, one offset for every lane, offsets
//! past the end and a buffer whose first byte is not word-aligned.

use tgsic_runtime::host::{
    Bindings, CompileOptions, Image, ImageFormat, Module, Resources, RunControl,
};
use tgsic_tests::run::{compile, every_engine_exact, runtime};

/// A program whose invocation `i` (64 a group, two groups) reads its offset `o` from
/// BUFFER[0][i] and makes one access `op` of BUFFER[1] or an image there, storing what the
/// access returns at byte 32·i of BUFFER[2]. One access a program: invocations then meet in
/// memory only within it, where every engine applies lanes in invocation order (across
/// instructions softpipe's 4-lane machines and a JIT's wider steps order them differently,
/// which GL leaves undefined). In `op`, `$O` is the offset, `$V` (`$F` as floats: ·1/16 − ¼) the vector (i + 4, i + 8,
/// i + 12, i + 16), `$N` the scalar i − 64, `$C` image coordinates from `o`'s bits.
fn program(op: &str) -> String {
    format!(
        "COMP
PROPERTY CS_FIXED_BLOCK_WIDTH 64
PROPERTY CS_FIXED_BLOCK_HEIGHT 1
PROPERTY CS_FIXED_BLOCK_DEPTH 1
DCL SV[0], THREAD_ID
DCL SV[1], BLOCK_ID
DCL BUFFER[0]
DCL BUFFER[1]
DCL BUFFER[2]
DCL IMAGE[0], 2D, PIPE_FORMAT_R32_UINT, WR
DCL IMAGE[1], 2D, PIPE_FORMAT_R8G8B8A8_UNORM, WR
DCL IMAGE[2], 2D, PIPE_FORMAT_R32G32B32A32_FLOAT, WR
DCL TEMP[0..6]
IMM[0] UINT32 {{2, 5, 64, 3}}
IMM[1] UINT32 {{4, 8, 12, 16}}
IMM[2] UINT32 {{15, 4294967232, 0, 0}}
IMM[3] FLT32 {{0.0625, -0.25, 0, 0}}
UMAD TEMP[6].x, SV[1].xxxx, IMM[0].zzzz, SV[0].xxxx
SHL TEMP[0].x, TEMP[6].xxxx, IMM[0].xxxx
LOAD TEMP[1].x, BUFFER[0], TEMP[0].xxxx
SHL TEMP[0].y, TEMP[6].xxxx, IMM[0].yyyy
UADD TEMP[2], TEMP[6].xxxx, IMM[1]
U2F TEMP[4], TEMP[2]
MAD TEMP[4], TEMP[4], IMM[3].xxxx, IMM[3].yyyy
UADD TEMP[3].w, TEMP[6].xxxx, IMM[2].yyyy
AND TEMP[3].x, TEMP[1].xxxx, IMM[2].xxxx
USHR TEMP[3].y, TEMP[1].xxxx, IMM[0].xxxx
AND TEMP[3].y, TEMP[3].yyyy, IMM[0].wwww
MOV TEMP[5], IMM[2].zzzz
{}
STORE BUFFER[2].xyzw, TEMP[0].yyyy, TEMP[5]
END
",
        op.replace("$O", "TEMP[1].xxxx")
            .replace("$V", "TEMP[2]")
            .replace("$F", "TEMP[4]")
            .replace("$N", "TEMP[3].wwww")
            .replace("$C", "TEMP[3].xyyy")
    )
}

/// Every access the programs make: buffers (loads of one, two and four words, stores of
/// one, two sparse and three words, every atomic), images (R32_UINT, RGBA8 UNORM, RGBA32
/// FLOAT loads and stores, R32 atomics), RESQ, and atomic additions to one word.
const OPS: &[&str] = &[
    "LOAD TEMP[5], BUFFER[1], $O",
    "LOAD TEMP[5].xy, BUFFER[1], $O",
    "LOAD TEMP[5].x, BUFFER[1], $O",
    "STORE BUFFER[1].xyz, $O, $V",
    "STORE BUFFER[1].xz, $O, $V",
    "STORE BUFFER[1].x, $O, $V",
    "STORE BUFFER[1].xyzw, $O, $F",
    "ATOMUADD TEMP[5].x, BUFFER[1], $O, $N",
    "ATOMXCHG TEMP[5].x, BUFFER[1], $O, $N",
    "ATOMCAS TEMP[5].x, BUFFER[1], $O, $N, $V",
    "ATOMAND TEMP[5].x, BUFFER[1], $O, $N",
    "ATOMOR TEMP[5].x, BUFFER[1], $O, $N",
    "ATOMXOR TEMP[5].x, BUFFER[1], $O, $N",
    "ATOMUMIN TEMP[5].x, BUFFER[1], $O, $N",
    "ATOMUMAX TEMP[5].x, BUFFER[1], $O, $N",
    "ATOMIMIN TEMP[5].x, BUFFER[1], $O, $N",
    "ATOMIMAX TEMP[5].x, BUFFER[1], $O, $N",
    "ATOMFADD TEMP[5].x, BUFFER[1], $O, $F",
    "ATOMUADD TEMP[5].y, BUFFER[1], $O, $N",
    "RESQ TEMP[5], BUFFER[1]",
    "LOAD TEMP[5], IMAGE[0], $C, 2D",
    "STORE IMAGE[0], $C, $V, 2D",
    "ATOMUADD TEMP[5].x, IMAGE[0], $C, $N, 2D",
    "ATOMCAS TEMP[5].x, IMAGE[0], $C, $N, $V, 2D",
    "LOAD TEMP[5], IMAGE[1], $C, 2D",
    "STORE IMAGE[1], $C, $F, 2D",
    "LOAD TEMP[5], IMAGE[2], $C, 2D",
    "STORE IMAGE[2], $C, $F, 2D",
    "RESQ TEMP[5], IMAGE[1]",
    // One word for every lane, known as such when compiled (the code adds once a step).
    "ATOMUADD TEMP[5].x, BUFFER[1], IMM[1].yyyy, $N",
    "ATOMUADD TEMP[5].x, IMAGE[0], IMM[2].zzzz, $N, 2D",
];

/// BUFFER[1]'s size: not a multiple of 16, so that wide accesses near the end half fit.
const TARGET_BYTES: usize = 64 * 16 + 12;

/// The offset tables: whole words 16 apart, 4 apart (wide stores meet), byte offsets, one
/// offset for all, and a mix with offsets near and past the end and far away.
fn tables() -> Vec<(&'static str, Vec<u32>)> {
    let n = 128u32;
    let mut mix = Vec::new();
    let mut x = 12345u32;
    for _ in 0..n {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let o = match x >> 29 {
            0 => x,
            1 => TARGET_BYTES as u32 - 4 * (x % 5),
            2 => (x >> 8) % (TARGET_BYTES as u32 + 8),
            _ => 4 * ((x >> 8) % (TARGET_BYTES as u32 / 4 + 2)),
        };
        mix.push(o);
    }
    vec![
        ("16 apart", (0..n).map(|i| 16 * (i % 64)).collect()),
        ("4 apart", (0..n).map(|i| 4 * i).collect()),
        ("bytes", (0..n).map(|i| 3 * i).collect()),
        ("one offset", vec![8; n as usize]),
        ("mixed", mix),
    ]
}

/// The final BUFFER[1], BUFFER[2] and images after a dispatch of two groups on `opts`'s
/// engine, BUFFER[1] starting `skew` bytes into its allocation.
fn run(opts: &CompileOptions, op: &str, table: &[u32], skew: usize) -> [Vec<u8>; 5] {
    let src = program(op);
    let text = tgsic::front::text::parse(&src).unwrap_or_else(|e| panic!("{op}: {e}"));
    let module = Module::new(text).expect("loads");
    let shader = compile(&module, opts).expect("compiles");
    let mut offsets: Vec<u8> = table.iter().flat_map(|o| o.to_le_bytes()).collect();
    let mut target: Vec<u8> = (0..TARGET_BYTES + skew)
        .map(|b| (b * 7 + 3) as u8)
        .collect();
    let mut out = vec![0u8; 128 * 32];
    let mut r32: Vec<u8> = (0..64u32).flat_map(|i| (i * 3).to_le_bytes()).collect();
    let mut rgba8: Vec<u8> = (0..256u32).map(|i| (i * 37 + 11) as u8).collect();
    let mut rgba32: Vec<u8> = (0..256u32)
        .flat_map(|i| (i as f32 * 0.375 - 20.0).to_le_bytes())
        .collect();
    {
        let mut res = Resources::new();
        res.bind_buffer(0, &mut offsets).unwrap();
        res.bind_buffer(1, &mut target[skew..]).unwrap();
        res.bind_buffer(2, &mut out).unwrap();
        let img = Image::new(&mut r32, [8, 8, 1], ImageFormat::R32Uint).unwrap();
        res.bind_image(0, img).unwrap();
        let img = Image::new(&mut rgba8, [8, 8, 1], ImageFormat::R8G8B8A8Unorm).unwrap();
        res.bind_image(1, img).unwrap();
        let img = Image::new(&mut rgba32, [8, 8, 1], ImageFormat::R32G32B32A32Float).unwrap();
        res.bind_image(2, img).unwrap();
        let r = shader.dispatch(
            runtime(),
            &Bindings::default(),
            &mut res,
            [2, 1, 1],
            &RunControl::default(),
        );
        shader.wait_for_best();
        r.unwrap_or_else(|e| panic!("{op}: {e}"));
    }
    [target[skew..].to_vec(), out, r32, rgba8, rgba32]
}

#[test]
fn every_engine_leaves_memory_as_the_interpreter_does() {
    let engines = every_engine_exact();
    let names = ["BUFFER[1]", "BUFFER[2]", "IMAGE[0]", "IMAGE[1]", "IMAGE[2]"];
    for op in OPS {
        for (name, table) in tables() {
            for skew in [0, 1] {
                let want = run(&engines[0], op, &table, skew);
                for opts in &engines[1..] {
                    let got = run(opts, op, &table, skew);
                    for k in 0..want.len() {
                        let at = got[k].iter().zip(&want[k]).position(|(a, b)| a != b);
                        assert!(
                            at.is_none(),
                            "{op}, {:?}, offsets {name}, skew {skew}: {} differs from the \
                             interpreter's from byte {at:?}",
                            opts.engine,
                            names[k],
                        );
                    }
                }
            }
        }
    }
}

/// The programs are not vacuous: the interpreter's results are the values a reader of them
/// expects.
#[test]
fn the_programs_do_what_they_say() {
    let interp = &every_engine_exact()[0];
    let table: Vec<u32> = (0..128).map(|i| 16 * (i % 64)).collect();
    let word = |b: &[u8], k: usize| u32::from_le_bytes(b[4 * k..4 * k + 4].try_into().unwrap());
    let initial =
        |k: usize| u32::from_le_bytes(std::array::from_fn(|j| ((4 * k + j) * 7 + 3) as u8));
    // A four-word load at 16·(i mod 64).
    let [_, out, ..] = run(interp, OPS[0], &table, 0);
    assert_eq!(word(&out, 8 * 65 + 2), initial(4 + 2));
    // Invocations i and i + 64 store at one offset: the later one's (i + 68, ...) stays.
    let [target, ..] = run(interp, OPS[3], &table, 0);
    assert_eq!(
        [word(&target, 4), word(&target, 5), word(&target, 6)],
        [69, 73, 77]
    );
    assert_eq!(
        word(&target, 7),
        initial(7),
        "the fourth word is not written"
    );
    // Invocation i + 64 sees invocation i's addition of i − 64.
    let [target, out, ..] = run(interp, OPS[7], &table, 0);
    let n = |i: u32| i.wrapping_sub(64);
    assert_eq!(word(&out, 8 * 65), initial(4).wrapping_add(n(1)));
    assert_eq!(
        word(&target, 4),
        initial(4).wrapping_add(n(1)).wrapping_add(n(65))
    );
    // An atomic whose destination does not write x changes nothing.
    let [target, ..] = run(interp, OPS[18], &table, 0);
    assert_eq!(word(&target, 4), initial(4));
    // RESQ of BUFFER[1]: its size in bytes.
    let [_, out, ..] = run(interp, OPS[19], &table, 0);
    assert_eq!(word(&out, 8 * 3), TARGET_BYTES as u32);
    // Every invocation adds i − 64 to word 2: invocation j sees the sum of those before it.
    let [target, out, ..] = run(interp, OPS[29], &table, 0);
    let before = |j: u32| (0..j).fold(initial(2), |s, i| s.wrapping_add(n(i)));
    assert_eq!(word(&out, 8 * 100), before(100));
    assert_eq!(word(&target, 2), before(128));
}
