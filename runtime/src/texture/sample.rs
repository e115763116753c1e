//! Sampling arithmetic, after softpipe's `sp_tex_sample.c`.

use super::texels::{Level, Texture};
use tgsic::tgsi::TextureTarget;

/// Minification / magnification filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Filter {
    /// The nearest texel.
    #[default]
    Nearest,
    /// Bilinear (trilinear for 3D) interpolation of the neighbouring texels.
    Linear,
}

/// Mipmap filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MipFilter {
    /// Level 0 only.
    #[default]
    None,
    /// The nearest level.
    Nearest,
    /// Interpolation between the two nearest levels.
    Linear,
}

/// Coordinate wrapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Wrap {
    /// Repeat.
    #[default]
    Repeat,
    /// Clamp to edge.
    Clamp,
    /// Mirrored repeat.
    Mirror,
}

/// Depth comparison for shadow targets, `reference OP texel.r`: the compiler's
/// [`TexCompare`](tgsic::back::texpath::TexCompare), which the generated code applies too.
pub use tgsic::back::texpath::TexCompare as Compare;

/// Sampler state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sampler {
    /// Filter when minifying (LOD > 0).
    pub min: Filter,
    /// Filter when magnifying.
    pub mag: Filter,
    /// Mipmap selection.
    pub mip: MipFilter,
    /// Wrap for s, t, r.
    pub wrap: [Wrap; 3],
    /// Shadow comparison (used by shadow targets; `None` compares with LEQUAL).
    pub compare: Option<Compare>,
    /// Added to every LOD.
    pub lod_bias: f32,
    /// Smallest LOD.
    pub min_lod: f32,
    /// Largest LOD.
    pub max_lod: f32,
}

impl Default for Sampler {
    /// Nearest, no mipmaps, repeat (`docs/run.md`).
    fn default() -> Sampler {
        Sampler {
            min: Filter::Nearest,
            mag: Filter::Nearest,
            mip: MipFilter::None,
            wrap: [Wrap::Repeat; 3],
            compare: None,
            lod_bias: 0.0,
            min_lod: -1000.0,
            max_lod: 1000.0,
        }
    }
}

/// `floor(f)` as an integer, saturated (NaN gives 0): where the wrap clamps, a coordinate
/// beyond the texture's edge reads the edge.
fn ifloor(f: f32) -> i32 {
    tgsic::numerics::floor(f) as i32
}

/// `floor(f)` as an integer where the wrap repeats or mirrors: converted as F2I does, so that
/// NaN and values outside the i32 range give `i32::MIN`. A float beyond ±2³¹ is a multiple of
/// 2⁸, so this puts it where its true period does for every power-of-two side up to 256
/// (texel 0, an even period), as x86's conversion (llvmpipe's, and the generated code's)
/// does; saturation would give the period's last texel.
fn ifloor_periodic(f: f32) -> i32 {
    tgsic::numerics::f2i(tgsic::numerics::floor(f)) as i32
}

fn frac(f: f32) -> f32 {
    f - tgsic::numerics::floor(f)
}

/// `v0 + a·(v1 − v0)`, each step rounded to f32 under DAZ/FTZ (in software,
/// [`tgsic::numerics`]): texel values of float textures may be denormals.
fn lerp(a: f32, v0: f32, v1: f32) -> f32 {
    use tgsic::numerics::{add, ftz, mul, sub};
    let (v0, v1) = (ftz(v0), ftz(v1));
    add(v0, mul(ftz(a), sub(v1, v0)))
}

/// `i mod n` in `0..n` (`n > 0`): a mask for a power of two, which real textures' sides are,
/// instead of a division.
#[inline]
fn repeat(i: i32, n: i32) -> i32 {
    if n & (n - 1) == 0 {
        i & (n - 1)
    } else {
        i.rem_euclid(n)
    }
}

/// Texel index for nearest filtering of normalized coordinate `s` over `size` texels.
#[inline]
fn wrap_nearest(wrap: Wrap, s: f32, size: u32) -> u32 {
    let n = size as i32;
    match wrap {
        Wrap::Repeat => repeat(ifloor_periodic(s * size as f32), n) as u32,
        Wrap::Clamp => {
            let u = s * size as f32;
            if u < 0.5 {
                0
            } else if u > size as f32 - 0.5 {
                size - 1
            } else {
                ifloor(u) as u32
            }
        }
        Wrap::Mirror => {
            let min = 1.0 / (2.0 * size as f32);
            let max = 1.0 - min;
            let flr = ifloor_periodic(s);
            let mut u = frac(s);
            if flr & 1 != 0 {
                u = 1.0 - u;
            }
            if u < min {
                0
            } else if u > max {
                size - 1
            } else {
                ifloor(u * size as f32).clamp(0, n - 1) as u32
            }
        }
    }
}

/// The two texel indices and the weight of the second for linear filtering.
#[inline]
fn wrap_linear(wrap: Wrap, s: f32, size: u32) -> (u32, u32, f32) {
    let n = size as i32;
    match wrap {
        Wrap::Repeat => {
            let u = s * size as f32 - 0.5;
            // Already inside the period, `i0 + 1` cannot overflow.
            let i0 = repeat(ifloor_periodic(u), n);
            (i0 as u32, repeat(i0 + 1, n) as u32, frac(u))
        }
        Wrap::Clamp => {
            let u = (s * size as f32).clamp(0.0, size as f32) - 0.5;
            let i0 = ifloor(u);
            (
                i0.max(0) as u32,
                ((i0 as i64 + 1).min(n as i64 - 1)) as u32,
                frac(u),
            )
        }
        Wrap::Mirror => {
            let u = s * size as f32 - 0.5;
            let i0 = ifloor_periodic(u);
            let n = n as i64;
            let mirror = |i: i64| {
                let m = i.rem_euclid(2 * n);
                (if m < n { m } else { 2 * n - 1 - m }) as u32
            };
            (mirror(i0 as i64), mirror(i0 as i64 + 1), frac(u))
        }
    }
}

/// Unnormalized (RECT) coordinates: clamp to edge in texel space.
fn rect_nearest(u: f32, size: u32) -> u32 {
    ifloor(u).clamp(0, size as i32 - 1) as u32
}

fn rect_linear(u: f32, size: u32) -> (u32, u32, f32) {
    let u = u.clamp(0.0, size as f32) - 0.5;
    let i0 = ifloor(u);
    (
        i0.max(0) as u32,
        (i0 + 1).min(size as i32 - 1) as u32,
        frac(u),
    )
}

/// Selects a cube face from a direction: (face, s, t) per the GL specification's table.
pub fn cube_face(x: f32, y: f32, z: f32) -> (u32, f32, f32) {
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let (face, sc, tc, ma) = if ax >= ay && ax >= az {
        if x >= 0.0 {
            (0, -z, -y, ax)
        } else {
            (1, z, -y, ax)
        }
    } else if ay >= az {
        if y >= 0.0 {
            (2, x, z, ay)
        } else {
            (3, x, -z, ay)
        }
    } else if z >= 0.0 {
        (4, x, -y, az)
    } else {
        (5, -x, -y, az)
    };
    // The quotient may be tiny: divide under DAZ/FTZ (in software).
    let q = |c: f32| (tgsic::numerics::div(c, ma) + 1.0) * 0.5;
    (face, q(sc), q(tc))
}

/// Where a lookup reads: normalized s, t (r for 3D), the layer or face, and what kind of
/// addressing applies.
struct Address {
    s: f32,
    t: f32,
    r: f32,
    layer: u32,
    dims: u32,
    rect: bool,
    cube: bool,
}

fn address(target: TextureTarget, c: [f32; 4], layers: u32) -> Address {
    use TextureTarget as T;
    let layer_of = |v: f32| {
        (v + 0.5)
            .floor()
            .clamp(0.0, layers.saturating_sub(1) as f32) as u32
    };
    let mut a = Address {
        s: c[0],
        t: c[1],
        r: c[2],
        layer: 0,
        dims: 2,
        rect: false,
        cube: false,
    };
    match target {
        T::Tex1D | T::Shadow1D => {
            a.dims = 1;
            a.t = 0.0;
        }
        T::Array1D | T::Shadow1DArray => {
            a.dims = 1;
            a.layer = layer_of(c[1]);
            a.t = 0.0;
        }
        T::Array2D | T::Shadow2DArray => a.layer = layer_of(c[2]),
        T::Tex3D => a.dims = 3,
        T::Rect | T::ShadowRect => a.rect = true,
        T::Cube | T::ShadowCube | T::CubeArray | T::ShadowCubeArray => {
            let (face, s, t) = cube_face(c[0], c[1], c[2]);
            let base = if matches!(target, T::CubeArray | T::ShadowCubeArray) {
                6 * layer_of(c[3]).min(layers / 6 - (layers >= 6) as u32)
            } else {
                0
            };
            a = Address {
                s,
                t,
                r: 0.0,
                layer: base + face,
                dims: 2,
                rect: false,
                cube: true,
            };
        }
        _ => {}
    }
    a
}

/// Samples one level with one filter; `reference` applies the shadow comparison to each texel
/// before filtering.
fn sample_level(
    level: &Level,
    sampler: &Sampler,
    filter: Filter,
    a: &Address,
    reference: Option<(Compare, f32)>,
) -> [f32; 4] {
    let fetch = |x: u32, y: u32, z: u32| {
        let t = level.texel(x, y, z);
        match reference {
            Some((cmp, r)) => {
                // Compared as under DAZ: a denormal texel reads as zero.
                let v = if cmp.test(r, tgsic::numerics::ftz(t[0])) {
                    1.0
                } else {
                    0.0
                };
                [v, v, v, 1.0]
            }
            None => t,
        }
    };
    let wrap = |k: usize| if a.cube { Wrap::Clamp } else { sampler.wrap[k] };
    let (w, h, d) = (level.width, level.height, level.depth);
    match filter {
        Filter::Nearest => {
            let x = if a.rect {
                rect_nearest(a.s, w)
            } else {
                wrap_nearest(wrap(0), a.s, w)
            };
            let y = match (a.dims, a.rect) {
                (1, _) => 0,
                (_, true) => rect_nearest(a.t, h),
                _ => wrap_nearest(wrap(1), a.t, h),
            };
            let z = if a.dims == 3 {
                wrap_nearest(wrap(2), a.r, d)
            } else {
                a.layer.min(d - 1)
            };
            fetch(x, y, z)
        }
        Filter::Linear => {
            let (x0, x1, wx) = if a.rect {
                rect_linear(a.s, w)
            } else {
                wrap_linear(wrap(0), a.s, w)
            };
            let (y0, y1, wy) = match (a.dims, a.rect) {
                (1, _) => (0, 0, 0.0),
                (_, true) => rect_linear(a.t, h),
                _ => wrap_linear(wrap(1), a.t, h),
            };
            let layer = a.layer.min(d - 1);
            let plane = |z: u32| {
                let (t00, t10, t01, t11) = (
                    fetch(x0, y0, z),
                    fetch(x1, y0, z),
                    fetch(x0, y1, z),
                    fetch(x1, y1, z),
                );
                std::array::from_fn::<f32, 4, _>(|c| {
                    lerp(wy, lerp(wx, t00[c], t10[c]), lerp(wx, t01[c], t11[c]))
                })
            };
            if a.dims == 3 {
                let (z0, z1, wz) = wrap_linear(wrap(2), a.r, d);
                let (p0, p1) = (plane(z0), plane(z1));
                std::array::from_fn(|c| lerp(wz, p0[c], p1[c]))
            } else {
                plane(layer)
            }
        }
    }
}

/// [`sample`] of a 2D or RECT (`rect`) texture at `(s, t)` where the level of detail does not
/// matter ([`lod_matters`] is false) and there is no shadow comparison: level 0 with the
/// sampler's filter, without the per-call dispatch on the target, the level and the reference.
#[inline]
pub fn sample_2d(level: &Level, sampler: &Sampler, rect: bool, s: f32, t: f32) -> [f32; 4] {
    let (w, h) = (level.width, level.height);
    let texel = |x: u32, y: u32| level.texel_at((y * w + x) as usize);
    match sampler.min {
        Filter::Nearest => {
            let (x, y) = if rect {
                (rect_nearest(s, w), rect_nearest(t, h))
            } else {
                (
                    wrap_nearest(sampler.wrap[0], s, w),
                    wrap_nearest(sampler.wrap[1], t, h),
                )
            };
            texel(x, y)
        }
        Filter::Linear => {
            let ((x0, x1, wx), (y0, y1, wy)) = if rect {
                (rect_linear(s, w), rect_linear(t, h))
            } else {
                (
                    wrap_linear(sampler.wrap[0], s, w),
                    wrap_linear(sampler.wrap[1], t, h),
                )
            };
            let (t00, t10, t01, t11) = (texel(x0, y0), texel(x1, y0), texel(x0, y1), texel(x1, y1));
            std::array::from_fn(|c| lerp(wy, lerp(wx, t00[c], t10[c]), lerp(wx, t01[c], t11[c])))
        }
    }
}

/// Whether [`sample`]'s result on `tex` with `sampler` depends on the level of detail: not when
/// minification and magnification filter alike from level 0 alone (one level, or no mipmap
/// filter), so that a caller may skip computing it.
pub fn lod_matters(tex: &Texture, sampler: &Sampler) -> bool {
    !(sampler.min == sampler.mag && (sampler.mip == MipFilter::None || tex.levels.len() == 1))
}

/// Samples `tex` at coordinates `c` (s, t, r, q as the target uses them) with level of detail
/// `lod` (already including any shader bias; the sampler's bias and clamps are applied here).
/// `reference` is the shadow comparison value for shadow targets.
pub fn sample(
    tex: &Texture,
    sampler: &Sampler,
    target: TextureTarget,
    c: [f32; 4],
    lod: f32,
    reference: Option<f32>,
) -> [f32; 4] {
    let a = address(target, c, tex.base().depth);
    let reference = if target.is_shadow() {
        Some((
            sampler.compare.unwrap_or(Compare::LEqual),
            reference.unwrap_or(0.0),
        ))
    } else {
        None
    };
    let lod = tgsic::numerics::add(
        tgsic::numerics::ftz(lod),
        tgsic::numerics::ftz(sampler.lod_bias),
    )
    .clamp(sampler.min_lod, sampler.max_lod);
    let last = tex.levels.len() - 1;
    // A NaN level of detail magnifies from level 0.
    let magnify = lod.is_nan() || lod <= 0.0;
    if magnify || sampler.mip == MipFilter::None && sampler.min == sampler.mag {
        let filter = if lod > 0.0 { sampler.min } else { sampler.mag };
        return sample_level(&tex.levels[0], sampler, filter, &a, reference);
    }
    match sampler.mip {
        MipFilter::None => sample_level(&tex.levels[0], sampler, sampler.min, &a, reference),
        MipFilter::Nearest => {
            let level = ((lod + 0.5).floor() as usize).min(last);
            sample_level(&tex.levels[level], sampler, sampler.min, &a, reference)
        }
        MipFilter::Linear => {
            let l0 = (lod.floor() as usize).min(last);
            let l1 = (l0 + 1).min(last);
            let v0 = sample_level(&tex.levels[l0], sampler, sampler.min, &a, reference);
            if l1 == l0 {
                return v0;
            }
            let v1 = sample_level(&tex.levels[l1], sampler, sampler.min, &a, reference);
            let f = frac(lod);
            std::array::from_fn(|k| lerp(f, v0[k], v1[k]))
        }
    }
}

/// TXF / SAMPLE_I: the texel at integer coordinates (x, y, z or layer) of `level`; outside the
/// texture (or past the last level) it reads (0, 0, 0, 0).
pub fn texel_fetch(tex: &Texture, target: TextureTarget, c: [i32; 4], level: i32) -> [f32; 4] {
    use TextureTarget as T;
    let Some(l) = usize::try_from(level).ok().and_then(|k| tex.levels.get(k)) else {
        return [0.0; 4];
    };
    let (x, y, z) = match target {
        T::Tex1D | T::Shadow1D => (c[0], 0, 0),
        T::Array1D | T::Shadow1DArray => (c[0], 0, c[1]),
        T::Array2D | T::Shadow2DArray | T::Tex3D => (c[0], c[1], c[2]),
        _ => (c[0], c[1], 0),
    };
    if x < 0 || y < 0 || z < 0 || x >= l.width as i32 || y >= l.height as i32 || z >= l.depth as i32
    {
        return [0.0; 4];
    }
    l.texel(x as u32, y as u32, z as u32)
}

/// GATHER4 / TG4: component `comp` of the four texels a bilinear lookup at level 0 would use,
/// in the order (i0, j1), (i1, j1), (i1, j0), (i0, j0).
pub fn gather(
    tex: &Texture,
    sampler: &Sampler,
    target: TextureTarget,
    c: [f32; 4],
    comp: usize,
) -> [f32; 4] {
    let level = tex.base();
    let a = address(target, c, level.depth);
    let wrap = |k: usize| if a.cube { Wrap::Clamp } else { sampler.wrap[k] };
    let (x0, x1, _) = if a.rect {
        rect_linear(a.s, level.width)
    } else {
        wrap_linear(wrap(0), a.s, level.width)
    };
    let (y0, y1, _) = if a.dims == 1 {
        (0, 0, 0.0)
    } else if a.rect {
        rect_linear(a.t, level.height)
    } else {
        wrap_linear(wrap(1), a.t, level.height)
    };
    let z = a.layer.min(level.depth - 1);
    let t = |x, y| level.texel(x, y, z)[comp.min(3)];
    [t(x0, y1), t(x1, y1), t(x1, y0), t(x0, y0)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checker() -> Texture {
        // 4x2: texel (x, y) = (x, y, x + 10y, 1).
        let mut v = Vec::new();
        for y in 0..2 {
            for x in 0..4 {
                v.extend([x as f32, y as f32, (x + 10 * y) as f32, 1.0]);
            }
        }
        Texture::from_rgba32f(4, 2, 1, &v).unwrap()
    }

    #[test]
    fn repeat_is_the_euclidean_remainder() {
        for n in [1, 2, 3, 4, 5, 8, 32, 1000, 1024, 16384] {
            for i in (-3000..3000).chain([i32::MIN, i32::MIN + 1, i32::MAX, i32::MAX - 1]) {
                assert_eq!(repeat(i, n), i.rem_euclid(n), "{i} mod {n}");
            }
        }
    }

    #[test]
    fn the_2d_path_samples_as_the_general_one() {
        // Sizes a power of two (the masked repeat) and not, every wrap and filter, 2D and RECT,
        // coordinates around the edges, huge, infinite and NaN.
        let mut seed = 7u64;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as u32
        };
        let specials = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            1e9,
            -3e9,
            f32::INFINITY,
            f32::NAN,
            1e-40,
        ];
        for (w, h) in [(8, 4), (5, 3), (1, 1), (32, 32)] {
            let texels = (0..w * h)
                .map(|_| [0; 4].map(|_: u8| (next() % 1000) as f32 / 7.0))
                .collect();
            let tex = Texture {
                levels: vec![Level::new(w, h, 1, texels).unwrap()],
                format: super::super::texels::TexelFormat::Rgba32F,
                chain: Default::default(),
            };
            for filter in [Filter::Nearest, Filter::Linear] {
                for wrap in [Wrap::Repeat, Wrap::Clamp, Wrap::Mirror] {
                    let sampler = Sampler {
                        min: filter,
                        mag: filter,
                        wrap: [wrap, Wrap::Repeat, wrap],
                        ..Sampler::default()
                    };
                    assert!(!lod_matters(&tex, &sampler));
                    for k in 0..400 {
                        let mut coord = |i: u32| {
                            if k % 5 == 0 {
                                specials[(next() as usize + i as usize) % specials.len()]
                            } else {
                                (next() % 4000) as f32 / 1000.0 - 2.0
                            }
                        };
                        let (s, t) = (coord(0), coord(1));
                        for (target, rect) in
                            [(TextureTarget::Tex2D, false), (TextureTarget::Rect, true)]
                        {
                            let (s, t) = if rect {
                                (s * w as f32, t * h as f32)
                            } else {
                                (s, t)
                            };
                            let want = sample(&tex, &sampler, target, [s, t, 0.0, 1.0], 0.0, None);
                            let got = sample_2d(&tex.levels[0], &sampler, rect, s, t);
                            assert_eq!(
                                got.map(f32::to_bits),
                                want.map(f32::to_bits),
                                "{w}x{h} {filter:?} {wrap:?} {target:?} at ({s}, {t})"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn nearest_wraps() {
        let t = checker();
        let s = Sampler::default();
        let at = |u: f32, v: f32, w: Wrap| {
            let s = Sampler { wrap: [w; 3], ..s };
            sample(&t, &s, TextureTarget::Tex2D, [u, v, 0.0, 0.0], 0.0, None)[2]
        };
        assert_eq!(at(0.1, 0.1, Wrap::Repeat), 0.0);
        assert_eq!(at(0.9, 0.9, Wrap::Repeat), 13.0);
        assert_eq!(at(1.1, 0.1, Wrap::Repeat), 0.0, "1.1 repeats to 0.1");
        assert_eq!(at(-0.1, 0.1, Wrap::Repeat), 3.0);
        assert_eq!(at(1.1, 0.1, Wrap::Clamp), 3.0);
        assert_eq!(at(-5.0, -5.0, Wrap::Clamp), 0.0);
        assert_eq!(at(1.1, 0.1, Wrap::Mirror), 3.0, "1.1 mirrors to 0.9");
        assert_eq!(at(-0.1, 0.1, Wrap::Mirror), 0.0, "-0.1 mirrors to 0.1");
    }

    #[test]
    fn coordinates_past_two_to_the_31_texels_wrap_into_their_period_and_clamp_to_the_edge() {
        // The checker is 4 texels wide: s = 2³¹/4 is texel 2³¹, a multiple of every
        // power-of-two side up to 2⁸, so texel 0 of an even period; saturating to i32::MAX
        // would read texel 3. A coordinate past the edge clamps to the last texel.
        let t = checker();
        let at = |u: f32, w: Wrap, filter: Filter| {
            let s = Sampler {
                wrap: [w; 3],
                min: filter,
                mag: filter,
                ..Sampler::default()
            };
            sample(&t, &s, TextureTarget::Tex2D, [u, 0.1, 0.0, 0.0], 0.0, None)[0]
        };
        let huge = [536_870_912.0, 3.0e9, 1.0e20, 1.0e37];
        for u in huge {
            for filter in [Filter::Nearest, Filter::Linear] {
                assert_eq!(at(u, Wrap::Repeat, filter), 0.0, "repeat {u} {filter:?}");
                assert_eq!(at(-u, Wrap::Repeat, filter), 0.0, "repeat -{u} {filter:?}");
                assert_eq!(at(u, Wrap::Mirror, filter), 0.0, "mirror {u} {filter:?}");
                assert_eq!(at(u, Wrap::Clamp, filter), 3.0, "clamp {u} {filter:?}");
                assert_eq!(at(-u, Wrap::Clamp, filter), 0.0, "clamp -{u} {filter:?}");
            }
        }
        // The texel just below the period's end still reads its own texel.
        assert_eq!(at(536_870_880.0, Wrap::Repeat, Filter::Nearest), 0.0);
        assert_eq!(at(0.99, Wrap::Repeat, Filter::Nearest), 3.0);
        assert_eq!(ifloor_periodic(f32::NAN), i32::MIN);
        assert_eq!(ifloor_periodic(2_147_483_520.0), 2_147_483_520);
        assert_eq!(ifloor_periodic(-2_147_483_648.0), i32::MIN);
        assert_eq!(ifloor_periodic(2_147_483_648.0), i32::MIN);
        assert_eq!(ifloor(2_147_483_648.0), i32::MAX);
    }

    #[test]
    fn linear_interpolates_like_softpipe() {
        let t = checker();
        let s = Sampler {
            min: Filter::Linear,
            mag: Filter::Linear,
            wrap: [Wrap::Clamp; 3],
            ..Sampler::default()
        };
        // u = 0.25*4 - 0.5 = 0.5 between x=0 and x=1; v at a texel centre.
        let v = sample(
            &t,
            &s,
            TextureTarget::Tex2D,
            [0.25, 0.25, 0.0, 0.0],
            0.0,
            None,
        );
        assert_eq!(v[0], 0.5);
        assert_eq!(v[1], 0.0);
        let v = sample(
            &t,
            &s,
            TextureTarget::Tex2D,
            [0.375, 0.5, 0.0, 0.0],
            0.0,
            None,
        );
        assert_eq!(
            v[2], 6.0,
            "halfway between rows 0 and 1 at x = 1: (1 + 11) / 2"
        );
    }

    #[test]
    fn rect_uses_texel_coordinates_and_shadow_compares() {
        let t = checker();
        let s = Sampler::default();
        assert_eq!(
            sample(&t, &s, TextureTarget::Rect, [2.5, 1.5, 0.0, 0.0], 0.0, None)[2],
            12.0
        );
        // Shadow: ref 0.5 <= texel.r (x) passes for x >= 1.
        assert_eq!(
            sample(
                &t,
                &s,
                TextureTarget::Shadow2D,
                [0.1, 0.1, 0.5, 0.0],
                0.0,
                Some(0.5)
            ),
            [0.0, 0.0, 0.0, 1.0]
        );
        assert_eq!(
            sample(
                &t,
                &s,
                TextureTarget::Shadow2D,
                [0.6, 0.1, 0.5, 0.0],
                0.0,
                Some(0.5)
            ),
            [1.0, 1.0, 1.0, 1.0]
        );
    }

    #[test]
    fn cube_faces() {
        assert_eq!(cube_face(1.0, 0.0, 0.0), (0, 0.5, 0.5));
        assert_eq!(cube_face(-1.0, 0.5, 0.0).0, 1);
        assert_eq!(cube_face(0.0, 1.0, 0.0).0, 2);
        assert_eq!(cube_face(0.0, -1.0, 0.0).0, 3);
        assert_eq!(cube_face(0.0, 0.0, 1.0), (4, 0.5, 0.5));
        assert_eq!(cube_face(0.0, 0.0, -1.0).0, 5);
    }

    #[test]
    fn mipmaps_and_fetch() {
        let mut t = Texture::from_rgba32f(4, 4, 1, &[1.0; 64]).unwrap();
        let mut first = true;
        t.levels[0].update(|x| {
            if std::mem::take(&mut first) {
                *x = [5.0; 4];
            }
        });
        t.generate_mipmaps(false);
        assert_eq!(t.levels.len(), 3);
        assert_eq!(t.levels[1].texel(0, 0, 0), [2.0; 4], "(5 + 1 + 1 + 1) / 4");
        let s = Sampler {
            mip: MipFilter::Nearest,
            ..Sampler::default()
        };
        assert_eq!(
            sample(
                &t,
                &s,
                TextureTarget::Tex2D,
                [0.1, 0.1, 0.0, 0.0],
                1.2,
                None
            ),
            [2.0; 4]
        );
        let s = Sampler {
            mip: MipFilter::Linear,
            ..Sampler::default()
        };
        assert_eq!(
            sample(
                &t,
                &s,
                TextureTarget::Tex2D,
                [0.1, 0.1, 0.0, 0.0],
                0.5,
                None
            ),
            [3.5; 4]
        );
        assert_eq!(
            texel_fetch(&t, TextureTarget::Tex2D, [0, 0, 0, 0], 0),
            [5.0; 4]
        );
        assert_eq!(
            texel_fetch(&t, TextureTarget::Tex2D, [4, 0, 0, 0], 0),
            [0.0; 4]
        );
        assert_eq!(
            texel_fetch(&t, TextureTarget::Tex2D, [0, 0, 0, 0], 9),
            [0.0; 4]
        );
    }

    #[test]
    fn rgba8_unpacks_with_the_rounded_reciprocal() {
        let t = Texture::from_rgba8(1, 1, 1, &[255, 128, 1, 0]).unwrap();
        let r = (1.0f64 / 255.0) as f32;
        assert_eq!(t.base().texel(0, 0, 0), [255.0 * r, 128.0 * r, r, 0.0]);
    }
}
