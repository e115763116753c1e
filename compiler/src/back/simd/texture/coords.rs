//! Where a lookup samples: its coordinates projected and offset as the sampler's are, a
//! cube map's face and an array's layer.

use super::vals::{Coordinates, Coords, DescVals};
use crate::back::simd::builder::{FBin, FUn, IBin, Kind, R, SimdBuilder};
use crate::back::simd::lower::Lower;
use crate::ir::{self, FCmp};
use crate::tgsi::TextureTarget;

impl<B: SimdBuilder> Lower<'_, B> {
    /// The (s, t) a lookup samples at, a shadow lookup's reference r (a cube or array
    /// lookup's w, as it is), and a cube lookup's face or an array lookup's layer, as the
    /// sampler computes them: divided by q for TXP (DAZ/FTZ division, as the sampler's
    /// `numerics::div` of flushed coordinates), then moved by the texel offset, which is added
    /// as is to RECT's texel coordinates and as `offset / side` (of level 0; for r, `offset /
    /// depth`) to normalized ones; a cube's direction then picks the face and its (s, t)
    /// ([`Self::cube_face`]), an array's r its layer ([`Self::layer`]).
    pub(super) fn coordinates(
        &mut self,
        d: DescVals<B>,
        args: &[ir::Value],
        c: Coords,
    ) -> R<Coordinates<B::V>> {
        let t = c.target;
        let (cube, array, one_d) = (t.is_cube(), t.is_array(), t.is_1d());
        let volume = t == TextureTarget::Tex3D;
        // A 2D array's layer is r, a 1D array's t.
        let array_2d = array && !one_d;
        let axes = if t.is_shadow() || cube || array_2d || volume {
            3
        } else {
            2
        };
        let mut s = [
            self.float_operand(args[0])?,
            self.float_operand(args[1])?,
            d.width,
        ];
        if axes == 3 {
            s[2] = self.float_operand(args[2])?;
        }
        if c.projective {
            let q = self.float_operand(args[3])?;
            for x in &mut s[..axes] {
                *x = self.b.fbin(FBin::Div, *x, q)?;
            }
        }
        if let Some(first) = c.offset {
            for (k, x) in s[..axes].iter_mut().enumerate() {
                let o = self.get(args[first + k])?;
                let o = self.b.cast(o, Kind::I32)?;
                let mut o = self.b.int_to_float(o, true)?;
                // Both integers, so the quotient is never denormal unless zero: as exact
                // under DAZ/FTZ as the sampler's IEEE division.
                if k < 2 && !d.axes[k].rect {
                    o = self.b.fbin(FBin::Div, o, d.axes[k].fside)?;
                } else if k == 2 && !d.axes[0].rect {
                    let depth = self.b.int_to_float(d.layers()?, true)?;
                    o = self.b.fbin(FBin::Div, o, depth)?;
                }
                *x = self.b.fbin(FBin::Add, *x, o)?;
            }
        }
        // A cube's or a 2D array's reference is w.
        let reference = match t.is_shadow() {
            true if cube || array_2d => Some(self.float_operand(args[3])?),
            true => Some(s[2]),
            false => None,
        };
        let (st, layer) = if cube {
            let (face, st) = self.cube_face(s)?;
            (st, Some(face))
        } else if array {
            let r = if one_d { s[1] } else { s[2] };
            ([s[0], s[1]], Some(self.layer(d, r)?))
        } else {
            ([s[0], s[1]], None)
        };
        Ok(Coordinates {
            st,
            reference,
            layer,
            one_d,
            r: volume.then_some(s[2]),
        })
    }

    /// The layer an array lookup's r reads, as the sampler's `layer_of`: `floor(r + ½)`
    /// clamped to `[0, depth − 1]`, 0 for NaN (every level has the layers of level 0).
    fn layer(&mut self, d: DescVals<B>, r: B::V) -> R<B::V> {
        let half = self.fconst(0.5)?;
        let x = self.b.fbin(FBin::Add, r, half)?;
        let x = self.b.fun(FUn::Floor, x)?;
        let last = self.ik(IBin::Sub, d.layers()?, 1)?;
        let top = self.b.int_to_float(last, true)?;
        // NaN and values below 0 take 0, values above the last layer take it, and the rest
        // convert exactly.
        let i = self.b.float_to_int(x)?;
        let (fzero, zero) = (self.fconst(0.0)?, self.iconst(0)?);
        let inside = self.b.fcmp(FCmp::Ge, x, fzero)?;
        let i = self.b.select(inside, i, zero)?;
        let above = self.b.fcmp(FCmp::Gt, x, top)?;
        self.b.select(above, last, i)
    }

    /// The face a cube lookup's direction (x, y, z) points at, and the (s, t) on it, as the
    /// sampler's `cube_face` (the GL specification's table): the axis of the largest
    /// magnitude, x before y before z on ties (NaN loses every comparison, so a NaN direction
    /// takes face 4 or 5), its sign choosing between two faces; then `(sc/ma + 1) · ½` and
    /// `(tc/ma + 1) · ½`.
    fn cube_face(&mut self, [x, y, z]: [B::V; 3]) -> R<(B::V, [B::V; 2])> {
        let (ax, ay, az) = (
            self.b.fun(FUn::Abs, x)?,
            self.b.fun(FUn::Abs, y)?,
            self.b.fun(FUn::Abs, z)?,
        );
        let (nx, ny, nz) = (
            self.b.fun(FUn::Neg, x)?,
            self.b.fun(FUn::Neg, y)?,
            self.b.fun(FUn::Neg, z)?,
        );
        let zero = self.fconst(0.0)?;
        let (px, py, pz) = (
            self.b.fcmp(FCmp::Ge, x, zero)?,
            self.b.fcmp(FCmp::Ge, y, zero)?,
            self.b.fcmp(FCmp::Ge, z, zero)?,
        );
        // The x faces (0, 1), else the y faces (2, 3), else the z faces (4, 5).
        let xy = self.b.fcmp(FCmp::Ge, ax, ay)?;
        let xz = self.b.fcmp(FCmp::Ge, ax, az)?;
        let on_x = self.b.ibin(IBin::And, xy, xz)?;
        let on_y = self.b.fcmp(FCmp::Ge, ay, az)?;
        let pick = |me: &mut Self, xs: [B::V; 2], ys: [B::V; 2], zs: [B::V; 2]| {
            let xv = me.b.select(px, xs[0], xs[1])?;
            let yv = me.b.select(py, ys[0], ys[1])?;
            let zv = me.b.select(pz, zs[0], zs[1])?;
            let yz = me.b.select(on_y, yv, zv)?;
            me.b.select(on_x, xv, yz)
        };
        let faces = (0..6).map(|k| self.iconst(k)).collect::<R<Vec<_>>>()?;
        let face = pick(
            self,
            [faces[0], faces[1]],
            [faces[2], faces[3]],
            [faces[4], faces[5]],
        )?;
        let sc = pick(self, [nz, z], [x, x], [x, nx])?;
        let tc = pick(self, [ny, ny], [z, nz], [ny, ny])?;
        let yz = self.b.select(on_y, ay, az)?;
        let ma = self.b.select(on_x, ax, yz)?;
        let (one, half) = (self.fconst(1.0)?, self.fconst(0.5)?);
        let mut st = [sc, tc];
        for c in &mut st {
            let q = self.b.fbin(FBin::Div, *c, ma)?;
            let q = self.b.fbin(FBin::Add, q, one)?;
            *c = self.b.fbin(FBin::Mul, q, half)?;
        }
        Ok((face, st))
    }
}
