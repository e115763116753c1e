//! The JIT never leaves its buffers and never hangs: indirect addressing driven by extreme
//! address values, texture lookups at extreme coordinates on every target, a loop that never
//! ends; and two threads render what one does. Every result is also compared with the
//! interpreter.

use tgsic::back::compiled::CompiledShader;
use tgsic_runtime::host::{Bindings, CompileOptions, Compiled, HostError, Invocation, Lookups};
use tgsic_runtime::host::{Compare, Filter, MipFilter, Module, Picture, Sampler, Texture, Wrap};
use tgsic_tests::jit_backends;
use tgsic_tests::run::{compile, compile_for, interpreter};

/// Renders `s` over a `w × h` grid on the calling thread.
fn render(s: &Compiled, bind: &Bindings, w: u32, h: u32) -> Result<Picture, HostError> {
    tgsic_tests::run::render(s, bind, w, h, 0)
}

/// The interpreter's picture of `m`.
fn interpreted(m: &Module, bind: &Bindings, w: u32, h: u32) -> Result<Picture, HostError> {
    render(&interpreter(m), bind, w, h)
}

/// Runs `s` once per vertex on the calling thread.
fn run_vertices(
    s: &Compiled,
    bind: &Bindings,
    verts: &[Vec<[u32; 4]>],
) -> Result<Vec<Invocation>, HostError> {
    tgsic_tests::run::vertices(s, bind, verts)
}

/// Floats that make bad addresses and coordinates.
const EXTREMES: &[f32] = &[
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    3.0e9,
    -3.0e9,
    2_147_483_520.0,
    -2_147_483_648.0,
    1.0e38,
    -1.0e38,
    1.0e-40,
    -0.0,
    0.5,
    -1.5,
    7.0,
    11.0,
    1000.0,
];

fn vertices(n: usize) -> Vec<Vec<[u32; 4]>> {
    (0..n)
        .map(|k| {
            let v = |j: usize| EXTREMES[(k * 7 + j * 3) % EXTREMES.len()].to_bits();
            vec![[v(0), v(1), v(2), v(3)], [v(4), v(5), v(6), v(7)]]
        })
        .collect()
}

/// How [`matches_the_interpreter`] makes each JIT.
#[derive(Clone, Copy, PartialEq)]
enum Make {
    /// Compiled for the sampler callback at every step width the back end is tested at: the
    /// bindings' variant is chosen and compiled at the first batch.
    EveryWidth,
    /// Compiled for the bindings (`Runtime::compile_for`) at every tested step width.
    ForBindingsEveryWidth,
    /// Compiled for the bindings at the back end's own step width.
    ForBindings,
}

/// On every JIT back end, made as `make` says, `shader`'s code (the variant it was compiled
/// for) passes `check` and gives the interpreter's outputs for every vertex of `verts`.
fn matches_the_interpreter(
    shader: &Module,
    bind: &Bindings,
    verts: &[Vec<[u32; 4]>],
    make: Make,
    check: impl Fn(&CompiledShader),
) {
    let want = run_vertices(&interpreter(shader), bind, verts).unwrap();
    for (backend, widths) in jit_backends() {
        let widths = if make == Make::ForBindings {
            &[0][..]
        } else {
            widths
        };
        for &lanes in widths {
            let config = CompileOptions {
                engine: backend.into(),
                lanes,
                ..CompileOptions::default()
            };
            let lookups = match make {
                Make::EveryWidth => Lookups::Callback,
                _ => Lookups::For(bind),
            };
            let jit = compile_for(shader, &config, lookups).unwrap();
            check(&jit.code(lookups).unwrap());
            let got = run_vertices(&jit, bind, verts).unwrap();
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(
                    g, w,
                    "{backend:?}, {lanes} lanes, vertex {k}: {:?}",
                    verts[k]
                );
            }
        }
    }
}

fn both(text: &str, bind: &Bindings) {
    let shader = Module::new(tgsic::front::text::parse(text).unwrap()).unwrap();
    matches_the_interpreter(&shader, bind, &vertices(200), Make::EveryWidth, |_| {});
}

#[test]
fn indirect_addressing_with_extreme_addresses_stays_inside() {
    let bind = Bindings {
        constants: vec![(0..6u32).map(|k| [k, k + 100, k + 200, k + 300]).collect()],
        ..Bindings::default()
    };
    both(
        "VERT\nDCL IN[0..1]\nDCL OUT[0..3], GENERIC[0]\nDCL CONST[0..5]\nDCL TEMP[0..3], ARRAY(1)\n\
         DCL TEMP[4]\nDCL ADDR[0]\nIMM[0] FLT32 {1.0, 2.0, 3.0, 4.0}\nIMM[1] FLT32 {5.0, 6.0, 7.0, 8.0}\n\
         ARL ADDR[0].x, IN[0].xxxx\nMOV TEMP[ADDR[0].x+1](1), IN[1]\nMOV TEMP[ADDR[0].x-2](1).y, IN[0].wwww\n\
         MOV OUT[0], TEMP[ADDR[0].x](1)\nMOV OUT[1], CONST[ADDR[0].x-2]\nMOV OUT[2], IMM[ADDR[0].x+1]\n\
         ARL ADDR[0].x, IN[0].yyyy\nMOV OUT[ADDR[0].x+3], IN[ADDR[0].x]\nMOV TEMP[4], TEMP[ADDR[0].x+1](1)\n\
         ADD OUT[3].x, TEMP[4].xxxx, OUT[3].yyyy\nEND\n",
        &bind,
    );
}

fn texture(w: u32, h: u32, d: u32) -> Texture {
    let bytes: Vec<u8> = (0..w * h * d * 4)
        .map(|k| (k.wrapping_mul(37) % 251) as u8)
        .collect();
    let mut t = Texture::from_rgba8(w, h, d, &bytes).unwrap();
    t.generate_mipmaps(true);
    t
}

#[test]
fn texture_lookups_at_extreme_coordinates_on_every_target() {
    let targets = [
        "1D",
        "2D",
        "3D",
        "CUBE",
        "RECT",
        "1D_ARRAY",
        "2D_ARRAY",
        "SHADOW1D",
        "SHADOW2D",
        "SHADOWRECT",
        "SHADOWCUBE",
        "SHADOW1D_ARRAY",
        "SHADOW2D_ARRAY",
        "CUBEARRAY",
        "SHADOWCUBEARRAY",
    ];
    for (k, target) in targets.iter().enumerate() {
        let bind = Bindings {
            textures: vec![Some(texture(4, 4, 6))],
            samplers: vec![Sampler {
                min: if k % 2 == 0 {
                    Filter::Linear
                } else {
                    Filter::Nearest
                },
                mag: Filter::Linear,
                mip: MipFilter::Linear,
                wrap: [Wrap::Repeat, Wrap::Mirror, Wrap::Clamp],
                ..Sampler::default()
            }],
            ..Bindings::default()
        };
        both(
            &format!(
                "VERT\nDCL IN[0..1]\nDCL OUT[0..3], GENERIC[0]\nDCL SAMP[0]\nDCL TEMP[0]\n\
                 MOV TEMP[0], IN[0]\nMOV TEMP[0].w, IN[1].xxxx\nTXL OUT[0], TEMP[0], SAMP[0], {target}\n\
                 TXF OUT[1], IN[1], SAMP[0], {target}\nTXQ OUT[2], IN[1], SAMP[0], {target}\n\
                 TXD OUT[3], IN[0], IN[1], IN[0].wzyx, SAMP[0], {target}\nEND\n"
            ),
            &bind,
        );
    }
}

/// Vertices whose coordinates are the extreme floats, then fractions around and beyond the
/// texture (so that filter weights, wrap periods and mirrored periods all vary).
fn texture_vertices() -> Vec<Vec<[u32; 4]>> {
    let mut verts = vertices(200);
    let mut seed = 0x2545_F491_u32;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        (seed % 20_000) as f32 / 1000.0 - 10.0
    };
    for _ in 0..300 {
        let v: [u32; 8] = std::array::from_fn(|_| next().to_bits());
        verts.push(vec![[v[0], v[1], v[2], v[3]], [v[4], v[5], v[6], v[7]]]);
    }
    verts
}

/// Compiled for `bind` on every back end and step width, `shader`'s texture operations are
/// sampled in the code exactly when `vector` says, and every result is the interpreter's.
fn lookups_give_the_interpreters_results(text: &str, bind: &Bindings, vector: bool) {
    let shader = Module::new(tgsic::front::text::parse(text).unwrap()).unwrap();
    let verts = texture_vertices();
    matches_the_interpreter(&shader, bind, &verts, Make::ForBindingsEveryWidth, |code| {
        let ops = code.textures.len();
        assert!(
            (0..ops).all(|k| code.tex_paths.vector(k) == vector),
            "{:?}",
            code.tex_paths.get(0)
        );
    });
}

/// Every shadow comparison function.
const COMPARES: [Compare; 8] = [
    Compare::Never,
    Compare::Less,
    Compare::Equal,
    Compare::LEqual,
    Compare::Greater,
    Compare::NotEqual,
    Compare::GEqual,
    Compare::Always,
];

/// Lookups the generated code samples itself (level 0 of a 1D, 2D or RECT texture or an
/// array, of one layer or several, nearest or bilinear, each axis repeat, clamp or mirror over a
/// side that is a power of two or not; projected or not, with a texel offset or not; SHADOW2D
/// and SHADOWRECT with each compare function, their reference z projected and offset too (by
/// the offset's z over the texture's depth), SHADOW2D_ARRAY's w as it is; an array's layer r
/// projected and offset, rounded and clamped; 1D lookups read row 0, a 1D array's layer is
/// t, SHADOW1D's and SHADOW1D_ARRAY's reference z; 3D lookups wrap r over the depth, a power
/// of two or not, and interpolate two slices): extreme coordinates, NaN and infinite texels
/// included, give the interpreter's bits.
#[test]
fn vector_texture_lookups_at_extreme_coordinates() {
    let mut floats: Vec<f32> = (0..8 * 4 * 4).map(|k| k as f32 * 0.37 - 9.0).collect();
    floats[5] = f32::NAN;
    floats[6] = f32::from_bits(0x7F80_1234); // a signalling NaN
    floats[9] = 1e-40; // a denormal
    floats[10] = -1e-41;
    floats[40] = f32::INFINITY;
    floats[41] = f32::NEG_INFINITY;
    floats[44] = f32::INFINITY;
    floats[60] = f32::MAX;
    floats[64] = -f32::MAX;
    let float_texture = Texture::from_rgba32f(8, 4, 1, &floats).unwrap();
    let layered: Vec<f32> = floats.iter().chain(&floats).copied().rev().collect();
    let layered_float_texture = Texture::from_rgba32f(8, 4, 2, &layered).unwrap();
    use Wrap::{Clamp, Mirror, Repeat};
    for (t, (tex, wraps)) in [
        (texture(8, 4, 1), [Repeat, Clamp]),
        (texture(8, 4, 1), [Mirror, Repeat]),
        (texture(16, 16, 1), [Clamp, Mirror]),
        (texture(1, 2, 1), [Mirror, Mirror]),
        (texture(5, 3, 1), [Clamp, Clamp]),
        (texture(5, 3, 1), [Repeat, Clamp]),
        (texture(8, 3, 1), [Clamp, Mirror]),
        (texture(6, 3, 1), [Mirror, Repeat]),
        (texture(7, 5, 2), [Repeat, Mirror]),
        (float_texture.clone(), [Repeat, Clamp]),
        (float_texture, [Mirror, Mirror]),
        (texture(8, 4, 3), [Repeat, Mirror]),
        (layered_float_texture, [Clamp, Repeat]),
    ]
    .into_iter()
    .enumerate()
    {
        let mut tex = tex;
        tex.truncate_levels(1);
        let (w, h, _) = tex.size();
        let side = [w, h];
        let third = [Repeat, Clamp, Mirror]
            .into_iter()
            .find(|w| !wraps.contains(w))
            .unwrap_or(Repeat);
        for (f, filter) in [Filter::Nearest, Filter::Linear].into_iter().enumerate() {
            // Shadow lookups compare with each function in turn.
            let compare = COMPARES[(f + 2 * side[0] as usize) % COMPARES.len()];
            let bind = Bindings {
                textures: vec![Some(tex.clone())],
                samplers: vec![Sampler {
                    min: filter,
                    mag: filter,
                    // r (3D) wraps in a third way where there is one.
                    wrap: [wraps[0], wraps[1], third],
                    compare: Some(compare),
                    ..Sampler::default()
                }],
                ..Bindings::default()
            };
            let targets = [
                "2D",
                "RECT",
                "SHADOW2D",
                "SHADOWRECT",
                "2D_ARRAY",
                "SHADOW2D_ARRAY",
                "1D",
                "SHADOW1D",
                "1D_ARRAY",
                "SHADOW1D_ARRAY",
                "3D",
            ];
            // The 2D and RECT targets on every texture, the others on every other one (each
            // still on textures of one and of several layers, with both filters).
            for (i, target) in targets.into_iter().enumerate() {
                if i >= 4 && (t + i) % 2 == 0 {
                    continue;
                }
                // Projected (q the other input's extremes), and moved by a texel offset: an
                // immediate one, and one of each lane's own bits (huge offsets included).
                lookups_give_the_interpreters_results(
                    &format!(
                        "VERT\nDCL IN[0..1]\nDCL OUT[0..4], GENERIC[0]\nDCL SAMP[0]\n\
                         IMM[0] INT32 {{-1, 2, 1, 0}}\n\
                         TEX OUT[0], IN[0], SAMP[0], {target}\n\
                         TEX OUT[1], IN[1].yxzw, SAMP[0], {target}\n\
                         TXP OUT[2], IN[0], SAMP[0], {target}\n\
                         TEX OUT[3], IN[1], SAMP[0], {target}, IMM[0].xyz\n\
                         TXP OUT[4], IN[1], SAMP[0], {target}, IN[0].wzy\nEND\n"
                    ),
                    &bind,
                    true,
                );
            }
        }
    }
}

/// CUBE and SHADOWCUBE lookups the generated code samples itself (level 0, nearest or
/// bilinear, projected or not, RGBA8 or f32 with NaN and infinite texels, each compare
/// function): directions of extreme components (NaN, infinities, denormals, −0, ties between
/// axes) pick the interpreter's face and texels, whatever wraps the sampler asks for (faces
/// clamp, and 2D lookups of the same unit and sampler still wrap); a texture of fewer than six
/// layers goes through the callback.
#[test]
fn vector_cube_lookups_at_extreme_directions() {
    let mut floats: Vec<f32> = (0..4 * 4 * 6 * 4).map(|k| k as f32 * 0.37 - 9.0).collect();
    floats[5] = f32::NAN;
    floats[40] = f32::INFINITY;
    floats[301] = f32::NEG_INFINITY;
    let float_cube = Texture::from_rgba32f(4, 4, 6, &floats).unwrap();
    for (t, (tex, vector)) in [
        (texture(8, 8, 6), true),
        (texture(4, 2, 7), true),
        (float_cube, true),
        (texture(8, 8, 1), false),
    ]
    .into_iter()
    .enumerate()
    {
        let mut tex = tex;
        tex.truncate_levels(1);
        for (f, filter) in [Filter::Nearest, Filter::Linear].into_iter().enumerate() {
            let bind = Bindings {
                textures: vec![Some(tex.clone())],
                samplers: vec![Sampler {
                    min: filter,
                    mag: filter,
                    wrap: [[Wrap::Mirror, Wrap::Repeat][f], Wrap::Repeat, Wrap::Repeat],
                    compare: Some(COMPARES[(2 * t + f) % COMPARES.len()]),
                    ..Sampler::default()
                }],
                ..Bindings::default()
            };
            for target in ["CUBE", "SHADOWCUBE"] {
                lookups_give_the_interpreters_results(
                    &format!(
                        "VERT\nDCL IN[0..1]\nDCL OUT[0..3], GENERIC[0]\nDCL SAMP[0]\n\
                         TEX OUT[0], IN[0], SAMP[0], {target}\n\
                         TEX OUT[1], IN[1].yxzw, SAMP[0], {target}\n\
                         TEX OUT[2], IN[1].zzxw, SAMP[0], {target}\n\
                         TXP OUT[3], IN[0], SAMP[0], {target}\nEND\n"
                    ),
                    &bind,
                    vector,
                );
            }
            if vector {
                // 2D, cube and shadow cube lookups of one unit and sampler each read their
                // own descriptor and wrap as their target says.
                lookups_give_the_interpreters_results(
                    "VERT\nDCL IN[0..1]\nDCL OUT[0..2], GENERIC[0]\nDCL SAMP[0]\n\
                     TEX OUT[0], IN[1], SAMP[0], 2D\nTEX OUT[1], IN[1], SAMP[0], CUBE\n\
                     TEX OUT[2], IN[1], SAMP[0], SHADOWCUBE\nEND\n",
                    &bind,
                    true,
                );
            }
        }
    }
}

/// Texel fetches (TXF) and size queries (TXQ) of a texture of one level or of several (its
/// layers too), RGBA8 or f32 with NaN and infinite texels, 2D and RECT, are answered in the
/// code: coordinates inside, outside and negative, offsets, levels inside and outside the
/// texture (negative ones too), and the raw bits of floats as coordinates give the
/// interpreter's bits.
#[test]
fn vector_texel_fetches_and_size_queries_give_the_interpreters_results() {
    let mut floats: Vec<f32> = (0..8 * 4 * 4).map(|k| k as f32 * 0.37 - 9.0).collect();
    floats[5] = f32::NAN;
    floats[40] = f32::INFINITY;
    let float_texture = Texture::from_rgba32f(8, 4, 1, &floats).unwrap();
    for (tex, one_level) in [
        (texture(8, 4, 1), true),
        (texture(5, 3, 1), true),
        (float_texture.clone(), true),
        (texture(8, 4, 1), false),
        (texture(7, 5, 2), false),
        (float_texture, false),
    ] {
        let mut tex = tex;
        if one_level {
            tex.truncate_levels(1);
        } else {
            tex.generate_mipmaps(true);
            assert!(tex.level_count() > 1);
        }
        let bind = Bindings {
            textures: vec![Some(tex)],
            ..Bindings::default()
        };
        for target in ["2D", "RECT"] {
            lookups_give_the_interpreters_results(
                &format!(
                    "VERT\nDCL IN[0..1]\nDCL OUT[0..5], GENERIC[0]\nDCL SAMP[0]\nDCL TEMP[0..1]\n\
                     IMM[0] INT32 {{-1, 2, 0, 0}}\n\
                     F2I TEMP[0], IN[0]\nF2I TEMP[1], IN[1]\n\
                     TXF OUT[0], TEMP[0], SAMP[0], {target}\n\
                     MOV TEMP[0].w, IMM[0].zzzz\n\
                     TXF OUT[1], TEMP[0], SAMP[0], {target}\n\
                     TXF OUT[2], TEMP[1], SAMP[0], {target}, IMM[0].xyz\n\
                     TXF OUT[3], IN[1], SAMP[0], {target}, TEMP[1].wzy\n\
                     TXQ OUT[4], TEMP[0].wzyx, SAMP[0], {target}\n\
                     TXQ OUT[5], TEMP[1], SAMP[0], {target}\nEND\n"
                ),
                &bind,
                true,
            );
        }
    }
}

/// Mipmapped lookups the generated code samples itself: a level per lane from the quad's
/// differences (TEX, TXP, with offsets or not), plus a bias (TXB), explicit (TXL) or from
/// gradients (TXD), with every mipmap filter, minifying and magnifying filters alike or not,
/// the sampler's bias and clamps, and each wrap over sides that are powers of two or not; 1D,
/// 2D, RECT, shadow, cube and array lookups; fragments whose coordinates stretch from magnified to
/// past the last level give the interpreter's bits on every back end.
#[test]
fn mipmapped_vector_lookups_pick_the_interpreters_levels() {
    let mut floats: Vec<f32> = (0..16 * 8 * 4)
        .map(|k| (k % 29) as f32 * 0.37 - 3.0)
        .collect();
    floats[5] = f32::INFINITY;
    floats[70] = f32::NAN;
    let mut float_texture = Texture::from_rgba32f(16, 8, 1, &floats).unwrap();
    float_texture.generate_mipmaps(false);
    let lookups = [
        "TEX OUT[0], TEMP[0], SAMP[0], 2D",
        "TXB OUT[0], TEMP[0], SAMP[0], 2D",
        "TXL OUT[0], TEMP[0], SAMP[0], 2D",
        "TXD OUT[0], TEMP[0], TEMP[1], TEMP[1].wzyx, SAMP[0], 2D",
        "TEX OUT[0], TEMP[0], SAMP[0], RECT",
        // Projected (q from −2 to 6), and moved by offsets that differ within quads.
        "TXP OUT[0], TEMP[0], SAMP[0], 2D",
        "TXP OUT[0], TEMP[0], SAMP[0], RECT",
        // Shadow lookups (the reference z from 0 to 6), plain and projected.
        "TEX OUT[0], TEMP[0], SAMP[0], SHADOW2D",
        "TXP OUT[0], TEMP[0], SAMP[0], SHADOWRECT",
        "F2I TEMP[1], IN[0].yxyx\nTEX OUT[0], TEMP[0], SAMP[0], 2D, TEMP[1].xyz",
        "F2I TEMP[1], IN[0].yxyx\nTXB OUT[0], TEMP[0], SAMP[0], RECT, TEMP[1].yxz",
        // 1D lookups: the level of detail from s alone.
        "TEX OUT[0], TEMP[0], SAMP[0], 1D",
        "TXD OUT[0], TEMP[0], TEMP[1], TEMP[1].wzyx, SAMP[0], 1D",
        "TXB OUT[0], TEMP[0], SAMP[0], SHADOW1D",
        "TEX OUT[0], TEMP[0], SAMP[0], 1D_ARRAY",
        // Gradients raised to the 32nd power (zeros, denormals and tiny normals) and the
        // reciprocal of one of them (huge, or infinite): a ρ of 0, a denormal, huge or ∞.
        "MUL TEMP[1], TEMP[1], TEMP[1]\nMUL TEMP[1], TEMP[1], TEMP[1]\n\
         MUL TEMP[1], TEMP[1], TEMP[1]\nMUL TEMP[1], TEMP[1], TEMP[1]\n\
         MUL TEMP[1], TEMP[1], TEMP[1]\nRCP TEMP[1].w, TEMP[1].wwww\n\
         TXD OUT[0], TEMP[0], TEMP[1], TEMP[1].wzyx, SAMP[0], 2D",
        // The same coordinates in every lane (a ρ of 0, a level of detail of −∞) and a bias
        // of +∞: NaN, which magnifies.
        "MOV TEMP[0].xy, IMM[0].xyyy\nADD TEMP[1].x, IMM[0].wwww, -IMM[0].wwww\n\
         RCP TEMP[0].w, TEMP[1].xxxx\nTXB OUT[0], TEMP[0], SAMP[0], 2D",
    ];
    // Cube lookups, on a cube map's levels: directions whose x and y cross 0 and whose z stays
    // small, so that neighbouring fragments look at different faces (which the level of
    // detail's differences of face coordinates see).
    let to_cube = "MUL TEMP[0].z, TEMP[0].zzzz, IMM[0].xxxx\nADD TEMP[0].xy, TEMP[0], IMM[0].wwww";
    let cube_lookups = [
        "TEX OUT[0], TEMP[0], SAMP[0], CUBE",
        "TXB OUT[0], TEMP[0], SAMP[0], CUBE",
        "TXL OUT[0], TEMP[0], SAMP[0], CUBE",
        "TXD OUT[0], TEMP[0], TEMP[1], TEMP[1].wzyx, SAMP[0], CUBE",
        "TXP OUT[0], TEMP[0], SAMP[0], CUBE",
        "TEX OUT[0], TEMP[0], SAMP[0], SHADOWCUBE",
        "TXB OUT[0], TEMP[0], SAMP[0], SHADOWCUBE",
    ]
    .map(|l| format!("{to_cube}\n{l}"));
    // Array lookups on the same texture's six layers: r from −2 to 25, rounded and clamped.
    let to_layer = "MUL TEMP[0].z, TEMP[0].zzzz, IMM[0].zzzz\nADD TEMP[0].z, TEMP[0], IMM[0].wwww";
    let array_lookups = [
        "TEX OUT[0], TEMP[0], SAMP[0], 2D_ARRAY",
        "TXL OUT[0], TEMP[0], SAMP[0], 2D_ARRAY",
        "TXD OUT[0], TEMP[0], TEMP[1], TEMP[1].wzyx, SAMP[0], 2D_ARRAY",
        "TXP OUT[0], TEMP[0], SAMP[0], 2D_ARRAY",
        "TEX OUT[0], TEMP[0], SAMP[0], SHADOW2D_ARRAY",
        "F2I TEMP[1], IN[0].yxyx\nTEX OUT[0], TEMP[0], SAMP[0], 2D_ARRAY, TEMP[1].xyz",
    ]
    .map(|l| format!("{to_layer}\n{l}"));
    use Wrap::{Clamp, Mirror, Repeat};
    let samplers = [
        (
            Filter::Linear,
            Filter::Linear,
            MipFilter::Linear,
            [Repeat, Clamp],
            0.0,
        ),
        (
            Filter::Nearest,
            Filter::Linear,
            MipFilter::Linear,
            [Mirror, Repeat],
            0.5,
        ),
        (
            Filter::Linear,
            Filter::Nearest,
            MipFilter::Nearest,
            [Clamp, Mirror],
            -0.7,
        ),
        (
            Filter::Nearest,
            Filter::Nearest,
            MipFilter::Nearest,
            [Repeat, Repeat],
            1.5,
        ),
        (
            Filter::Linear,
            Filter::Nearest,
            MipFilter::None,
            [Repeat, Clamp],
            0.0,
        ),
    ];
    // The third's sides are not powers of two on most levels (24×10 to 1×1).
    let textures = [
        texture(32, 16, 1),
        float_texture,
        texture(24, 10, 1),
        texture(16, 16, 6),
    ];
    for (t, tex) in textures.into_iter().enumerate() {
        let lookups: Vec<&str> = if t == 3 {
            cube_lookups
                .iter()
                .chain(&array_lookups)
                .map(String::as_str)
                .collect()
        } else {
            lookups.to_vec()
        };
        for (k, &(min, mag, mip, wrap, lod_bias)) in samplers.iter().enumerate() {
            let bind = Bindings {
                textures: vec![Some(tex.clone())],
                samplers: vec![Sampler {
                    min,
                    mag,
                    mip,
                    wrap: [wrap[0], wrap[1], Repeat],
                    lod_bias,
                    min_lod: if k == 3 { 0.75 } else { -1000.0 },
                    max_lod: if k == 2 { 2.5 } else { 1000.0 },
                    ..Sampler::default()
                }],
                ..Bindings::default()
            };
            // Vertices do not form quads: the implicit level of detail is 0 (plus the bias).
            lookups_give_the_interpreters_results(
                "VERT\nDCL IN[0..1]\nDCL OUT[0..1], GENERIC[0]\nDCL SAMP[0]\n\
                 TEX OUT[0], IN[0], SAMP[0], 2D\nTXB OUT[1], IN[1], SAMP[0], 2D\nEND\n",
                &bind,
                true,
            );
            for &lookup in &lookups {
                // s and t grow with the square of x and y (a level of detail rising across
                // the image), w is a bias or level from −2 to 6, the gradients vary.
                let text = format!(
                    "FRAG\nDCL IN[0], POSITION, LINEAR\nDCL OUT[0], COLOR\nDCL SAMP[0]\n\
                     DCL TEMP[0..1]\nIMM[0] FLT32 {{0.0011, 0.0023, 0.11, -2.0}}\n\
                     MUL TEMP[0], IN[0].xyxy, IN[0].xyyx\nMUL TEMP[0], TEMP[0], IMM[0].xyzz\n\
                     ADD TEMP[0].w, TEMP[0].wwww, IMM[0].wwww\n\
                     MUL TEMP[1], IN[0].yxxy, IMM[0].yxyx\n{lookup}\nEND\n"
                );
                let shader = Module::new(tgsic::front::text::parse(&text).unwrap()).unwrap();
                let want = interpreted(&shader, &bind, 61, 37).unwrap();
                for (backend, _) in jit_backends() {
                    let config = CompileOptions::with_engine(backend);
                    let lookups = Lookups::For(&bind);
                    let jit = compile_for(&shader, &config, lookups).unwrap();
                    assert!(
                        jit.code(lookups).unwrap().tex_paths.vector(0),
                        "{backend:?}: {lookup}, sampler {k}"
                    );
                    let got = render(&jit, &bind, 61, 37).unwrap();
                    for (p, (g, w)) in got.pixels.iter().zip(&want.pixels).enumerate() {
                        assert_eq!(
                            g.map(f32::to_bits),
                            w.map(f32::to_bits),
                            "{backend:?}, texture {t}, sampler {k}, {lookup}: pixel {p}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn one_shader_follows_its_bindings_from_variant_to_variant() {
    // Compiled for nearest repeat, then run with bindings that need other code (linear, other
    // wraps on the same texture, whose code differs since a variant's axes each have their
    // own, a repeat that divides over 5 texels) or the sampler (no texture), and back: every
    // batch runs the variant its bindings call for, and every result is the interpreter's.
    let text = "VERT\nDCL IN[0]\nDCL OUT[0], GENERIC[0]\nDCL SAMP[0]\n\
                TEX OUT[0], IN[0], SAMP[0], 2D\nEND\n";
    let shader = Module::new(tgsic::front::text::parse(text).unwrap()).unwrap();
    let sampler = |min, mag| Sampler {
        min,
        mag,
        ..Sampler::default()
    };
    let bound = |tex: Option<Texture>, s: Sampler| Bindings {
        textures: vec![tex.map(|mut t| {
            t.truncate_levels(1);
            t
        })],
        samplers: vec![s],
        ..Bindings::default()
    };
    let nearest = bound(
        Some(texture(8, 4, 1)),
        sampler(Filter::Nearest, Filter::Nearest),
    );
    let states = [
        bound(
            Some(texture(8, 4, 1)),
            sampler(Filter::Linear, Filter::Linear),
        ),
        bound(
            Some(texture(8, 4, 1)),
            Sampler {
                wrap: [Wrap::Clamp, Wrap::Mirror, Wrap::Repeat],
                ..sampler(Filter::Nearest, Filter::Nearest)
            },
        ),
        bound(
            Some(texture(8, 4, 1)),
            Sampler {
                wrap: [Wrap::Mirror, Wrap::Clamp, Wrap::Repeat],
                ..sampler(Filter::Linear, Filter::Linear)
            },
        ),
        bound(
            Some(texture(5, 3, 1)),
            sampler(Filter::Nearest, Filter::Nearest),
        ),
        bound(None, sampler(Filter::Nearest, Filter::Nearest)),
        nearest.clone(),
    ];
    let verts = vertices(200);
    let interp = interpreter(&shader);
    for (backend, _) in jit_backends() {
        let config = CompileOptions::with_engine(backend);
        let jit = compile_for(&shader, &config, Lookups::For(&nearest)).unwrap();
        let code = jit.code(Lookups::For(&nearest)).unwrap();
        assert!(code.tex_paths.vector(0), "{backend:?}");
        let plain = compile(&shader, &config).unwrap();
        let code = plain.code(Lookups::Callback).unwrap();
        assert!(!code.tex_paths.vector(0), "{backend:?}");
        for bind in std::iter::once(&nearest).chain(&states) {
            let want = run_vertices(&interp, bind, &verts);
            for j in [&jit, &plain] {
                let got = run_vertices(j, bind, &verts);
                match (&got, &want) {
                    // No texture bound: both report it.
                    (Err(a), Err(b)) => {
                        assert!(b.to_string().ends_with(&a.to_string()), "{a} / {b}")
                    }
                    _ => assert_eq!(got.unwrap(), *want.as_ref().unwrap(), "{backend:?}"),
                }
            }
        }
    }
}

/// Compiled for `bind`, on every back end, the first `ops` texture operations of `shader` are
/// sampled in the generated code, and 300 vertices give the interpreter's results.
fn vector_lookups_give_the_interpreters_results(shader: &Module, bind: &Bindings, ops: usize) {
    matches_the_interpreter(shader, bind, &vertices(300), Make::ForBindings, |code| {
        assert!((0..ops).all(|k| code.tex_paths.vector(k)));
    });
}

/// Vertices in runs of 16 whose lanes read texels near the run's first (its lane 0 in every
/// step of 4, 8 or 16 lanes): all one texel, a spread that fits the window a step loads
/// whole (LLVM's RGBA8 lookups) or one that does not, around texels at both ends of
/// `level`'s `w × h` texels (where a window would start before the first texel or end after
/// the last). `w` and `h` are powers of two; IN[0] holds the coordinates and, in w, `level`.
fn coherent_vertices(w: u32, h: u32, level: u32) -> Vec<Vec<[u32; 4]>> {
    let (w, h) = (w >> level, h >> level);
    let texels = (w * h) as i64;
    let mut seed = 0x9E37_79B9u32;
    let mut next = |m: u32| {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed % m
    };
    let mut verts = Vec::new();
    // Lanes 5 and 13 just inside or just outside an 8-lane window ([−3, 4] around lane 0's
    // texel) and a 16-lane one ([−7, 8]), the other lanes on lane 0's texel; then random runs.
    let edges = [4, 5, -3, -4, 8, 9, -7, -8];
    for run in 0..edges.len() + 96 {
        let (base, spread) = match edges.get(run) {
            Some(_) => (texels / 2, 0),
            None => (
                match run % 4 {
                    0 => next(10) as i64,
                    1 => texels - 1 - next(10) as i64,
                    _ => next(texels as u32) as i64,
                },
                [0, 3, 4, 7, 8, 9][run % 6],
            ),
        };
        for lane in 0..16 {
            let off = match edges.get(run) {
                Some(&edge) if lane % 8 == 5 => edge,
                _ if lane == 0 || spread == 0 => 0,
                _ => next(2 * spread + 1) as i64 - spread as i64,
            };
            let i = (base + off).clamp(0, texels - 1) as u32;
            let (x, y) = (i % w, i / w);
            let s = (x as f32 + 0.5) / w as f32;
            let t = (y as f32 + 0.5) / h as f32;
            let input = [s, t, 0.0, level as f32].map(f32::to_bits);
            verts.push(vec![input, [0; 4]]);
        }
    }
    verts
}

#[test]
fn coherent_rgba8_lookups_at_the_window_edges() {
    // LLVM loads the texels of a step whose lanes read neighbouring RGBA8 texels as one
    // window and permutes it into the lanes (AVX2 at 8 lanes, AVX-512 at 16; other widths and
    // Cranelift gather): each step must read what the interpreter reads, whether it takes the
    // window or a gather, at the first and last texels too, of level 0 alone or of a level
    // inside a mip chain.
    let nearest = |mip| Sampler {
        min: Filter::Nearest,
        mag: Filter::Nearest,
        mip,
        ..Sampler::default()
    };
    let (w, h) = (32, 8);
    let mut level0 = texture(w, h, 1);
    level0.truncate_levels(1);
    for (text, tex, mip, levels) in [
        ("TEX", level0, MipFilter::None, 0..1),
        ("TXL", texture(w, h, 1), MipFilter::Nearest, 0..4),
    ] {
        let shader = format!(
            "VERT\nDCL IN[0..1]\nDCL OUT[0], GENERIC[0]\nDCL SAMP[0]\n\
             {text} OUT[0], IN[0], SAMP[0], 2D\nEND\n"
        );
        let shader = Module::new(tgsic::front::text::parse(&shader).unwrap()).unwrap();
        let bind = Bindings {
            textures: vec![Some(tex)],
            samplers: vec![nearest(mip)],
            ..Bindings::default()
        };
        for level in levels {
            let verts = coherent_vertices(w, h, level);
            matches_the_interpreter(&shader, &bind, &verts, Make::ForBindingsEveryWidth, |jit| {
                assert!(jit.tex_paths.vector(0));
            });
        }
    }
}

#[test]
fn lookups_sharing_a_texture_keep_their_own_sampler_and_target() {
    // One texture through two samplers (repeat and clamp) and as RECT: operations that share
    // a unit, a sampler and a target share a descriptor in the generated code; these three
    // must not, and each gives the interpreter's result.
    let text = "VERT\nDCL IN[0]\nDCL OUT[0], GENERIC[0]\nDCL OUT[1], GENERIC[1]\n\
                DCL OUT[2], GENERIC[2]\nDCL OUT[3], GENERIC[3]\nDCL SAMP[0]\nDCL SAMP[1]\n\
                DCL TEMP[0]\nIMM[0] FLT32 {8.0, 4.0, 0.0, 0.0}\n\
                TEX OUT[0], IN[0], SAMP[0], 2D\nTEX OUT[1], IN[0], SAMP[1], 2D\n\
                MUL TEMP[0], IN[0], IMM[0].xyzz\nTEX OUT[2], TEMP[0], SAMP[0], RECT\n\
                TEX OUT[3], IN[0].yxzw, SAMP[1], 2D\nEND\n";
    let shader = Module::new(tgsic::front::text::parse(text).unwrap()).unwrap();
    let sampler = |wrap| Sampler {
        min: Filter::Nearest,
        mag: Filter::Nearest,
        wrap: [wrap, wrap, Wrap::Repeat],
        ..Sampler::default()
    };
    let mut tex = texture(8, 4, 1);
    tex.truncate_levels(1);
    let bind = Bindings {
        textures: vec![Some(tex.clone()), Some(tex)],
        samplers: vec![sampler(Wrap::Repeat), sampler(Wrap::Clamp)],
        ..Bindings::default()
    };
    vector_lookups_give_the_interpreters_results(&shader, &bind, 4);
}

#[test]
fn lookups_in_and_after_divergent_branches_share_what_dominates_them() {
    // The first lookup of the texture is in a divergent branch, others in the other branch,
    // in a loop and after them: what the code derives from the descriptor once must not be
    // used where it was not made on every path (a code generator's verifier would reject it),
    // and every result is the interpreter's.
    let text = "VERT\nDCL IN[0]\nDCL OUT[0], GENERIC[0]\nDCL OUT[1], GENERIC[1]\n\
                DCL OUT[2], GENERIC[2]\nDCL SAMP[0]\nDCL TEMP[0..2]\n\
                IMM[0] FLT32 {0.5, 0.25, 0.0, 1.0}\nIMM[1] INT32 {3, 1, 0, 0}\n\
                SLT TEMP[0].x, IN[0].xxxx, IMM[0].xxxx\nIF TEMP[0].xxxx\n\
                TEX TEMP[1], IN[0], SAMP[0], 2D\nELSE\n\
                ADD TEMP[2], IN[0], IMM[0].yyyy\nTEX TEMP[1], TEMP[2], SAMP[0], 2D\nENDIF\n\
                MOV OUT[0], TEMP[1]\nMOV TEMP[2], IMM[0].zzzz\nMOV TEMP[0].y, IMM[1].zzzz\n\
                BGNLOOP\nISGE TEMP[0].z, TEMP[0].yyyy, IMM[1].xxxx\nIF TEMP[0].zzzz\nBRK\nENDIF\n\
                ADD TEMP[1], IN[0].yxzw, TEMP[2].xxxx\nTEX TEMP[1], TEMP[1], SAMP[0], 2D\n\
                ADD TEMP[2], TEMP[2], TEMP[1]\nUADD TEMP[0].y, TEMP[0].yyyy, IMM[1].yyyy\n\
                ENDLOOP\nMOV OUT[1], TEMP[2]\nTEX OUT[2], IN[0].yxzw, SAMP[0], 2D\nEND\n";
    let shader = Module::new(tgsic::front::text::parse(text).unwrap()).unwrap();
    let mut tex = texture(8, 4, 1);
    tex.truncate_levels(1);
    let bind = Bindings {
        textures: vec![Some(tex)],
        samplers: vec![Sampler {
            min: Filter::Nearest,
            mag: Filter::Nearest,
            ..Sampler::default()
        }],
        ..Bindings::default()
    };
    vector_lookups_give_the_interpreters_results(&shader, &bind, 4);
}

#[test]
fn a_loop_that_never_ends_returns_with_the_budget_report() {
    let text = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0]\n\
                IMM[0] FLT32 {1.0, 0.0, 0.0, 0.0}\nBGNLOOP\nADD TEMP[0].x, TEMP[0].xxxx, IMM[0].xxxx\n\
                ENDLOOP\nMOV OUT[0], TEMP[0].xxxx\nEND\n";
    let shader = Module::new(tgsic::front::text::parse(text).unwrap()).unwrap();
    let bind = Bindings {
        max_iterations: 1000,
        ..Bindings::default()
    };
    for (backend, _) in jit_backends() {
        let jit = compile(&shader, &CompileOptions::with_engine(backend)).unwrap();
        let img = render(&jit, &bind, 10, 6).unwrap();
        assert_eq!(img.exhausted, 60, "{backend:?}");
        // 1000 iterations charged, the 1001st stops: 1001 additions.
        assert_eq!(img.pixel(3, 2)[0], 1001.0, "{backend:?}");
        assert_eq!(
            img,
            interpreted(&shader, &bind, 10, 6).unwrap(),
            "{backend:?}"
        );
    }
}

#[test]
fn two_threads_render_what_one_renders() {
    let Some(cases) = tgsic_tests::mesa::cases() else {
        return;
    };
    for c in cases.iter().filter(|c| {
        [
            "npm_curl_noise",
            "gltr_tangentmotionblur",
            "piglit_loop_300",
        ]
        .contains(&c.name.as_str())
    }) {
        let two_threads = tgsic_tests::run::runtime_with_threads(2);
        for (backend, _) in jit_backends() {
            let exact = CompileOptions {
                math: tgsic::back::abi::MathMode::Exact,
                ..CompileOptions::with_engine(backend)
            };
            let jit = compile(&c.shader, &exact).unwrap();
            let one = render(&jit, &c.bind, 93, 71).unwrap();
            let frame = tgsic_runtime::host::Frame {
                width: 93,
                height: 71,
                output: 0,
            };
            let two = jit
                .render(&two_threads, &c.bind, frame, &Default::default())
                .unwrap();
            assert_eq!(one, two, "{backend:?} {}", c.name);
            assert_eq!(
                one,
                interpreted(&c.shader, &c.bind, 93, 71).unwrap(),
                "{backend:?} {}",
                c.name
            );
        }
    }
}

/// The deepest nesting the lifter accepts (`tgsic::ir::lift::MAX_NESTING` levels of IF, loop and
/// SWITCH blocks mixed) lifts, optimizes, compiles with every back end and matches the
/// interpreter on a test thread's ordinary 2 MiB stack: every recursive stage has room for it.
/// One level more is the located "nested too deeply" error.
#[test]
fn the_deepest_accepted_nesting_fits_an_ordinary_stack() {
    let shader = |depth: usize| {
        let mut text = String::from(
            "VERT\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], POSITION\nDCL TEMP[0..1]\n\
             IMM[0] FLT32 {1.0, 0.5, 0.0, 2.0}\nMOV TEMP[0], IN[0]\nF2I TEMP[1].x, IN[1].yyyy\n",
        );
        let mut closers = Vec::new();
        for k in 0..depth {
            match k % 3 {
                0 => {
                    text += "IF IN[1].xxxx\nADD TEMP[0], TEMP[0], IMM[0].yyyy\n";
                    closers.push("ENDIF\n");
                }
                1 => {
                    text +=
                        "BGNLOOP\nIF IN[1].zzzz\nBRK\nENDIF\nADD TEMP[0], TEMP[0], IMM[0].xxxx\n";
                    closers.push("BRK\nENDLOOP\n");
                }
                _ => {
                    text += "SWITCH TEMP[1].xxxx\nDEFAULT\nMUL TEMP[0], TEMP[0], IMM[0].wwww\n";
                    closers.push("BRK\nENDSWITCH\n");
                }
            }
        }
        for c in closers.iter().rev() {
            text += c;
        }
        text + "MOV OUT[0], TEMP[0]\nEND\n"
    };
    let depth = tgsic::ir::lift::MAX_NESTING as usize;
    both(&shader(depth), &Bindings::default());
    let too_deep = tgsic::front::text::parse(&shader(depth + 1)).unwrap();
    let e = tgsic::ir::lift::lift(&too_deep).unwrap_err();
    assert!(e.to_string().contains("nested too deeply"), "{e}");
}

#[test]
fn a_function_past_the_jit_size_limit_is_refused_and_one_below_it_agrees() {
    use tgsic::back::Backend;
    use tgsic::back::abi::{JitError, MAX_VECTOR_INSTS};
    // 9,000 dependent straight-line instructions: about 36,000 IR instructions.
    let mut text = String::from(
        "VERT\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], POSITION\nDCL TEMP[0..3]\n\
         MOV TEMP[0], IN[0]\nMOV TEMP[1], IN[1]\nADD TEMP[2], IN[0], IN[1]\nMUL TEMP[3], IN[0], IN[1]\n",
    );
    for k in 0..9_000usize {
        let (d, a, b) = (k % 4, (k * 7 + 1) % 4, (k * 5 + 2) % 4);
        let op = ["ADD", "MUL", "MIN", "MAX"][k % 4];
        text += &format!("{op} TEMP[{d}], TEMP[{a}], TEMP[{b}].yzwx\n");
    }
    text += "ADD TEMP[0], TEMP[0], TEMP[1]\nADD OUT[0], TEMP[0], TEMP[2]\nEND\n";
    let shader = Module::new(tgsic::front::text::parse(&text).unwrap()).unwrap();
    let config = |lanes| CompileOptions {
        engine: Backend::Cranelift.into(),
        lanes,
        ..CompileOptions::default()
    };
    // At 32 lanes (8 four-lane vectors per instruction) it is past the limit: a clear error.
    match compile(&shader, &config(32)) {
        Err(HostError::Codegen(JitError::TooLarge {
            insts,
            lanes: 32,
            limit,
        })) => {
            assert_eq!(limit, MAX_VECTOR_INSTS);
            assert!(insts * 8 > limit && insts > 30_000, "{insts}");
        }
        Err(e) => panic!("expected TooLarge, found {e}"),
        Ok(_) => panic!("expected TooLarge, the shader compiled"),
    }
    // At 4 lanes it compiles, with the single-pass register allocator (past
    // `SINGLE_PASS_INSTS`), into a frame deeper than a thread's stack may hold: the call runs
    // on a thread with room for it, and computes what the interpreter does.
    let jit = compile(&shader, &config(4)).unwrap();
    let code = jit.code(Lookups::Callback).unwrap();
    assert!(
        code.stack_bytes > tgsic::back::compiled::INLINE_STACK,
        "{} bytes of stack",
        code.stack_bytes
    );
    let verts = vertices(40);
    let want = run_vertices(&interpreter(&shader), &Bindings::default(), &verts).unwrap();
    let got = run_vertices(&jit, &Bindings::default(), &verts).unwrap();
    assert_eq!(got, want);
}

#[test]
fn loops_nested_past_the_single_pass_depth_compute_what_the_interpreter_does() {
    // Loops nested 20 deep (past `SINGLE_PASS_LOOP_DEPTH`), each level doing some work.
    let depth = 20;
    let mut text =
        String::from("VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL TEMP[0..1]\nMOV TEMP[0], IN[0]\n");
    for _ in 0..depth {
        text += "BGNLOOP\nADD TEMP[0], TEMP[0], IN[0].yzwx\n";
    }
    text += "MUL TEMP[1], TEMP[0], IN[0]\nBRK\n";
    for k in 0..depth {
        text += "ENDLOOP\nADD TEMP[0], TEMP[0], TEMP[1]\n";
        if k + 1 < depth {
            text += "BRK\n";
        }
    }
    text += "MOV OUT[0], TEMP[0]\nEND\n";
    both(&text, &Bindings::default());
}
