//! Texture lookups: the semantics of every texture instruction on the textures and samplers
//! of [`Bindings`], for the lanes of a batch (`docs/semantics.md`, "Textures"). The
//! interpreter and the IR evaluator sample through it, and the JIT's generated code calls
//! back into it for the lookups it does not sample itself.

// Lane and component indices address several parallel arrays at once.
#![allow(clippy::needless_range_loop)]

use crate::engine::{BATCH_LANES, Bindings, Chan, Mask, Reg, RunError};
use crate::texture::{self, Sampler, Texture};
use tgsic::ir::{Level, TexKind, TexOp};
use tgsic::numerics::{b, f};
use tgsic::tgsi::*;

fn rho_lod(d: [[f32; 3]; 2], size: [f32; 3], dims: usize) -> f32 {
    let mut rho = 0.0f32;
    for k in 0..dims {
        rho = rho.max(d[0][k].abs().max(d[1][k].abs()) * size[k]);
    }
    tgsic::numerics::lod_log2(rho)
}

/// Texture coordinates a target's level of detail depends on, and how many of them.
fn lod_coords(target: TextureTarget, c: [f32; 4]) -> ([f32; 3], usize) {
    use TextureTarget as T;
    match target {
        T::Tex1D | T::Shadow1D | T::Array1D | T::Shadow1DArray => ([c[0], 0.0, 0.0], 1),
        T::Tex3D => ([c[0], c[1], c[2]], 3),
        T::Cube | T::ShadowCube | T::CubeArray | T::ShadowCubeArray => {
            let (_, s, t) = texture::cube_face(c[0], c[1], c[2]);
            ([s, t, 0.0], 2)
        }
        _ => ([c[0], c[1], 0.0], 2),
    }
}

/// The shadow reference component of a TEX-style coordinate for `target`.
fn shadow_ref(target: TextureTarget, c: [f32; 4]) -> Option<f32> {
    use TextureTarget as T;
    match target {
        T::Shadow1D | T::Shadow2D | T::ShadowRect | T::Shadow1DArray => Some(c[2]),
        T::Shadow2DArray | T::ShadowCube => Some(c[3]),
        _ => None,
    }
}

/// A texture operation and its arguments, already evaluated.
pub struct TexRequest<'a> {
    /// The operation, whose semantics apply.
    pub op: &'a TexOp,
    /// Its arguments in [`TexOp::layout`]'s order, one channel each.
    pub args: &'a [Chan],
    /// The lanes that execute it.
    pub exec: Mask,
    /// Whether lanes form 2×2 quads (fragments: implicit level of detail).
    pub quads: bool,
}

/// The set bits of a mask, lowest first (as lane indices).
fn bits(mut m: Mask) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            l
        })
    })
}

/// The semantics of every texture instruction (`docs/semantics.md`, "Textures"), shared by the
/// interpreter and the IR evaluator.
pub fn sample(bind: &Bindings, req: &TexRequest<'_>) -> Result<Reg, RunError> {
    let mut out = [[0u32; BATCH_LANES]; 4];
    sample_into(bind, req, &mut out)?;
    Ok(out)
}

/// [`sample`] into `out`: the lanes of `req.exec` are written, the others left alone.
pub fn sample_into(bind: &Bindings, req: &TexRequest<'_>, out: &mut Reg) -> Result<(), RunError> {
    let t = req.op;
    let (tex_unit, samp_unit, target) = (t.unit as usize, t.sampler.map(|s| s as usize), t.target);
    let tex: &Texture = bind
        .textures
        .get(tex_unit)
        .and_then(Option::as_ref)
        .ok_or_else(|| RunError::Unbound {
            unit: tex_unit as u32,
            lookup: t.to_string(),
        })?;
    let sampler: Sampler = samp_unit
        .and_then(|s| bind.samplers.get(s).copied())
        .unwrap_or_default();
    let layout = t.layout();
    static ZERO: Chan = [0; BATCH_LANES];
    let arg = |k: usize| req.args.get(k).unwrap_or(&ZERO);
    let coord = [arg(0), arg(1), arg(2), arg(3)];
    let level = arg(layout.level);
    let offset = layout.offset.map(|o| [arg(o), arg(o + 1), arg(o + 2)]);
    let exec = req.exec;
    let lanes = bits(exec);
    let base = tex.base();
    let size = |level: usize| {
        let l = &tex.levels[level.min(tex.levels.len() - 1)];
        [l.width, l.height, l.depth]
    };

    // Queries and fetches first.
    match t.kind {
        TexKind::Size => {
            for l in lanes {
                let level = level[l] as i32;
                let (w, h, d) = match usize::try_from(level)
                    .ok()
                    .filter(|&k| k < tex.levels.len())
                {
                    Some(k) => {
                        let s = size(k);
                        (s[0], s[1], s[2])
                    }
                    None => (0, 0, 0),
                };
                let dims = match target {
                    TextureTarget::Tex1D | TextureTarget::Shadow1D => [w, 0, 0],
                    TextureTarget::Array1D | TextureTarget::Shadow1DArray => [w, base.depth, 0],
                    TextureTarget::Cube | TextureTarget::ShadowCube => [w, h, 0],
                    TextureTarget::CubeArray | TextureTarget::ShadowCubeArray => [w, h, d / 6],
                    TextureTarget::Tex3D
                    | TextureTarget::Array2D
                    | TextureTarget::Shadow2DArray => [w, h, d],
                    _ => [w, h, 0],
                };
                for c in 0..3 {
                    out[c][l] = dims[c];
                }
                out[3][l] = tex.levels.len() as u32;
            }
            return Ok(());
        }
        TexKind::Samples => {
            for l in lanes {
                out[0][l] = 1;
            }
            return Ok(());
        }
        TexKind::SamplePos => {
            for l in lanes {
                out[0][l] = 0.5f32.to_bits();
                out[1][l] = 0.5f32.to_bits();
            }
            return Ok(());
        }
        TexKind::Fetch => {
            for l in lanes {
                let mut ic = [
                    coord[0][l] as i32,
                    coord[1][l] as i32,
                    coord[2][l] as i32,
                    0,
                ];
                if let Some(o) = &offset {
                    for k in 0..3 {
                        ic[k] = ic[k].wrapping_add(o[k][l] as i32);
                    }
                }
                let level = if t.level == Level::Zero {
                    0
                } else {
                    level[l] as i32
                };
                let t = texture::texel_fetch(tex, target, ic, level);
                for c in 0..4 {
                    out[c][l] = b(t[c]);
                }
            }
            return Ok(());
        }
        TexKind::Gather => {
            let comp = arg(layout.component.unwrap_or(usize::MAX));
            for l in lanes {
                let c = [
                    f(coord[0][l]),
                    f(coord[1][l]),
                    f(coord[2][l]),
                    f(coord[3][l]),
                ];
                let g = texture::gather(tex, &sampler, target, c, comp[l] as usize);
                for k in 0..4 {
                    out[k][l] = b(g[k]);
                }
            }
            return Ok(());
        }
        TexKind::Sample | TexKind::QueryLod => {}
    }

    // Sampling: coordinates (projected for TXP), reference, level of detail — computed only
    // for the lanes that execute, and the quad neighbours an implicit LOD reads; the level of
    // detail only where it can change the result.
    let lod_matters = t.kind == TexKind::QueryLod || texture::lod_matters(tex, &sampler);
    let implicit = matches!(t.level, Level::Implicit | Level::Bias);
    let quads = req.quads;
    let mut need = exec;
    if implicit && quads && lod_matters {
        for q in 0..BATCH_LANES / 4 {
            if exec & (0xF << (4 * q)) != 0 {
                need |= 0x7 << (4 * q);
            }
        }
    }
    let rect = target.is_rect();
    let sz_level0 = size(0);
    let coord_of = |l: usize| {
        let mut c = [
            f(coord[0][l]),
            f(coord[1][l]),
            f(coord[2][l]),
            f(coord[3][l]),
        ];
        if t.projective {
            let q = c[3];
            for k in 0..3 {
                c[k] = tgsic::numerics::div(c[k], q);
            }
        }
        if let Some(offs) = &offset {
            for k in 0..3 {
                let d = offs[k][l] as i32 as f32;
                c[k] = tgsic::numerics::add(c[k], if rect { d } else { d / sz_level0[k] as f32 });
            }
        }
        c
    };
    if !lod_matters && matches!(target, TextureTarget::Tex2D | TextureTarget::Rect) {
        // The common case, without the per-lane dispatch (a 2D target has no reference).
        let level0 = &tex.levels[0];
        for l in lanes {
            let [s, t, _, _] = coord_of(l);
            let v = texture::sample_2d(level0, &sampler, rect, s, t);
            for c in 0..4 {
                out[c][l] = b(v[c]);
            }
        }
        return Ok(());
    }
    let mut coords = [[0f32; 4]; BATCH_LANES];
    for l in bits(need) {
        coords[l] = coord_of(l);
    }
    let reference = |l: usize| -> Option<f32> {
        match layout.reference {
            Some(r) => Some(f(arg(r)[l])),
            None => shadow_ref(target, coords[l]),
        }
    };
    let sz0 = sz_level0.map(|v| if rect { 1.0 } else { v as f32 });
    let mut quad_lod: [Option<f32>; BATCH_LANES / 4] = [None; BATCH_LANES / 4];
    let mut lod_of = |l: usize| -> f32 {
        match t.level {
            Level::Explicit => f(level[l]),
            Level::Zero => 0.0,
            Level::Grad => {
                let g = |k: usize| f(arg(layout.level + k)[l]);
                let (_, dims) = lod_coords(target, coords[l]);
                let d = [[g(0), g(1), g(2)], [g(3), g(4), g(5)]];
                rho_lod(d, sz0, dims)
            }
            _ => {
                // From the quad's derivatives (computed once per quad), plus the bias.
                let base_lod = if quads {
                    let q = l / 4;
                    *quad_lod[q].get_or_insert_with(|| {
                        let b0 = 4 * q;
                        let (c0, dims) = lod_coords(target, coords[b0]);
                        let (c1, _) = lod_coords(target, coords[b0 + 1]);
                        let (c2, _) = lod_coords(target, coords[b0 + 2]);
                        let d = [
                            std::array::from_fn(|k| tgsic::numerics::sub(c1[k], c0[k])),
                            std::array::from_fn(|k| tgsic::numerics::sub(c0[k], c2[k])),
                        ];
                        rho_lod(d, sz0, dims)
                    })
                } else {
                    0.0
                };
                let bias = if t.level == Level::Bias {
                    f(level[l])
                } else {
                    0.0
                };
                base_lod + bias
            }
        }
    };
    if t.kind == TexKind::QueryLod {
        for l in lanes {
            let lod = lod_of(l);
            let clamped = (lod + sampler.lod_bias)
                .clamp(sampler.min_lod, sampler.max_lod)
                .clamp(0.0, (tex.levels.len() - 1) as f32);
            out[0][l] = b(clamped);
            out[1][l] = b(lod);
        }
        return Ok(());
    }
    for l in lanes {
        let lod = if lod_matters { lod_of(l) } else { 0.0 };
        let v = texture::sample(tex, &sampler, target, coords[l], lod, reference(l));
        for c in 0..4 {
            out[c][l] = b(v[c]);
        }
    }
    Ok(())
}
