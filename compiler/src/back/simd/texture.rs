//! Texture lookups: sampled in the generated code, a step of lanes at once, when the function
//! was compiled for that ([`TexPaths`](crate::back::abi::TexPaths)) and the operation allows
//! ([`vector_texture`]); through the host's callback otherwise.
//!
//! The code samples level 0 of a 2D or RECT texture exactly as the runtime's sampler does
//! (`texture::sample_2d`): nearest or bilinear, repeat, clamp to edge or mirrored repeat per
//! axis ([`TexDesc`] has the arithmetic), f32 or RGBA8 texels. Every texel address comes from
//! indices clamped into the texture, so no coordinate reads outside it.

use super::{Callee, FBin, IBin, Kind, Lower, R, Scalar, Shift, SimdBuilder};
use crate::back::abi::{TexDesc, TexFormat, TexPath, TextureCall, VectorTex, vector_texture};
use crate::back::nan::Class;
use crate::ir::{self, FCmp, ICmp};
use std::mem::{offset_of, size_of};

/// What the lookups of one texture descriptor derive from it ([`TexDesc`]): the texels, the
/// width (texels per row) and each axis's values.
pub(super) struct DescVals<B: SimdBuilder> {
    texels: B::S,
    width: B::V,
    axes: [Axis<B>; 2],
}

/// One axis of a descriptor, in every lane.
struct Axis<B: SimdBuilder> {
    /// The side in texels (I32).
    side: B::V,
    /// The side as a float, which scales a normalized coordinate (none for RECT).
    scale: Option<B::V>,
    /// The wrap mask.
    wrap: B::V,
    /// The last texel, `side − 1`.
    last: B::V,
    /// Where a linear lookup clamps the texel-space coordinate (linear lookups only).
    bounds: Option<(B::V, B::V)>,
}

impl<B: SimdBuilder> Clone for DescVals<B> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<B: SimdBuilder> Copy for DescVals<B> {}

impl<B: SimdBuilder> Clone for Axis<B> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<B: SimdBuilder> Copy for Axis<B> {}

impl<B: SimdBuilder> Lower<'_, B> {
    /// A texture operation: sampled in the code when the function is compiled for that and it
    /// can be, through the host's callback otherwise.
    pub(super) fn texture(
        &mut self,
        op: ir::TexOp,
        args: &[ir::Value],
        results: &[ir::Value],
    ) -> R<()> {
        let index = self.textures.len();
        let path = if vector_texture(&op) {
            self.tex_paths.get(index)
        } else {
            TexPath::Call
        };
        let rect = op.target == crate::tgsi::TextureTarget::Rect;
        let key = (op.unit, op.sampler, rect, path);
        self.textures.push(TextureCall {
            op,
            args: args.len(),
        });
        let outs = match path {
            TexPath::Vector(v) => {
                self.tex_done.set(index, path);
                let slot = *self.tex_descs.entry(key).or_insert(index);
                self.sample(slot, rect, v, args)?
            }
            TexPath::Call => self.texture_call(index, args)?,
        };
        for (&r, v) in results.iter().zip(outs) {
            self.set(r, v)?;
        }
        Ok(())
    }

    /// The values of descriptor `slot`: those made where they dominate this lookup
    /// ([`Self::desc_vals`]), or made here and kept for the lookups this point dominates.
    fn desc_vals(&mut self, slot: usize, rect: bool, linear: bool) -> R<DescVals<B>> {
        if let Some(&d) = self.desc_vals.iter().rev().find_map(|m| m.get(&slot)) {
            return Ok(d);
        }
        let d = self.derive_desc_vals(slot, rect, linear)?;
        if let Some(m) = self.desc_vals.last_mut() {
            m.insert(slot, d);
        }
        Ok(d)
    }

    fn derive_desc_vals(&mut self, slot: usize, rect: bool, linear: bool) -> R<DescVals<B>> {
        let d = self.sconst((slot * size_of::<TexDesc>() / 4) as i64)?;
        let desc = self.b.word_addr(self.p.tex_descs, d)?;
        let texels = self
            .b
            .load(Scalar::Ptr, desc, offset_of!(TexDesc, texels) as i32)?;
        // A descriptor field of `axis`, in every lane.
        let field = |s: &mut Self, ty: Scalar, offset: usize, axis: usize| {
            let x = s.b.load(ty, desc, (offset + 4 * axis) as i32)?;
            s.b.splat(x)
        };
        let mut axes = Vec::with_capacity(2);
        for axis in 0..2 {
            let side = field(self, Scalar::I32, offset_of!(TexDesc, width), axis)?;
            let scale = if rect {
                None
            } else {
                Some(self.b.int_to_float(side, true)?)
            };
            let wrap = field(self, Scalar::I32, offset_of!(TexDesc, wrap), axis)?;
            let last = self.ik(IBin::Sub, side, 1)?;
            let bounds = if linear {
                let lo = field(self, Scalar::F32, offset_of!(TexDesc, lo), axis)?;
                let hi = field(self, Scalar::F32, offset_of!(TexDesc, hi), axis)?;
                Some((lo, hi))
            } else {
                None
            };
            axes.push(Axis {
                side,
                scale,
                wrap,
                last,
                bounds,
            });
        }
        Ok(DescVals {
            texels,
            width: axes[0].side,
            axes: [axes[0], axes[1]],
        })
    }

    /// Level 0 sampled as the runtime's sampler does it (`texture::sample_2d`), a step at
    /// once ([`TexDesc`] has the arithmetic).
    fn sample(
        &mut self,
        slot: usize,
        rect: bool,
        v: VectorTex,
        args: &[ir::Value],
    ) -> R<Vec<B::V>> {
        let d = self.desc_vals(slot, rect, v.linear)?;
        let s = [self.float_operand(args[0])?, self.float_operand(args[1])?];
        if !v.linear {
            let x = self.nearest(s[0], d.axes[0], v.mirror[0])?;
            let y = self.nearest(s[1], d.axes[1], v.mirror[1])?;
            return Ok(self.texel(d, x, y, v.format)?.to_vec());
        }
        let (x0, x1, wx) = self.linear(s[0], d.axes[0], v.mirror[0])?;
        let (y0, y1, wy) = self.linear(s[1], d.axes[1], v.mirror[1])?;
        let t00 = self.texel(d, x0, y0, v.format)?;
        let t10 = self.texel(d, x1, y0, v.format)?;
        let t01 = self.texel(d, x0, y1, v.format)?;
        let t11 = self.texel(d, x1, y1, v.format)?;
        (0..4)
            .map(|c| {
                let top = self.lerp(wx, t00[c], t10[c])?;
                let bottom = self.lerp(wx, t01[c], t11[c])?;
                let r = self.lerp(wy, top, bottom)?;
                // Infinite texels and infinite coordinates make NaNs: the sampler's are
                // canonical.
                self.canonical(r, Class::Arith)
            })
            .collect()
    }

    /// `s` in texel space: scaled by the side unless RECT.
    fn texel_space(&mut self, s: B::V, a: Axis<B>) -> R<B::V> {
        match a.scale {
            Some(k) => self.b.fbin(FBin::Mul, s, k),
            None => Ok(s),
        }
    }

    /// Texel `i` wrapped by the axis's mask and clamped into the texture.
    fn wrap(&mut self, i: B::V, a: Axis<B>) -> R<B::V> {
        let i = self.b.ibin(IBin::And, i, a.wrap)?;
        let i = self.ik(IBin::SMax, i, 0)?;
        self.b.ibin(IBin::SMin, i, a.last)
    }

    /// Texel `i` under mirrored repeat of a power-of-two side: `i & wrap` in even periods,
    /// `wrap − (i & wrap)` (its complement in the mask) in odd ones.
    fn mirror(&mut self, i: B::V, a: Axis<B>) -> R<B::V> {
        let r = self.b.ibin(IBin::And, i, a.wrap)?;
        let flipped = self.b.ibin(IBin::Xor, r, a.wrap)?;
        let period = self.b.ibin(IBin::And, i, a.side)?;
        let zero = self.iconst(0)?;
        let odd = self.b.icmp(ICmp::Ne, period, zero)?;
        self.b.select(odd, flipped, r)
    }

    /// The texel of a nearest lookup at `s` on axis `a`. NaN's integer `i32::MIN` wraps and
    /// clamps as the sampler's 0 does.
    fn nearest(&mut self, s: B::V, a: Axis<B>, mirror: bool) -> R<B::V> {
        if !mirror {
            let x = self.texel_space(s, a)?;
            let i = self.floor_to_int(x)?;
            return self.wrap(i, a);
        }
        // The fraction of `s`, reflected in odd periods (a saturated period count: odd for
        // `s ≥ 2³¹`, even for NaN, as the sampler's), then the texel under it, clamped.
        let (fl, period) = self.floor_split(s)?;
        let u = self.b.fbin(FBin::Sub, s, fl)?;
        let one = self.fconst(1.0)?;
        let reflected = self.b.fbin(FBin::Sub, one, u)?;
        let odd = self.ik(IBin::And, period, 1)?;
        let zero = self.iconst(0)?;
        let odd = self.b.icmp(ICmp::Ne, odd, zero)?;
        let u = self.b.select(odd, reflected, u)?;
        let x = self.texel_space(u, a)?;
        let i = self.floor_to_int(x)?;
        let i = self.ik(IBin::SMax, i, 0)?;
        self.b.ibin(IBin::SMin, i, a.last)
    }

    /// The two texels of a linear lookup at `s` on axis `a` and the weight of the second.
    fn linear(&mut self, s: B::V, a: Axis<B>, mirror: bool) -> R<(B::V, B::V, B::V)> {
        let mut x = self.texel_space(s, a)?;
        if let (Some((lo, hi)), false) = (a.bounds, mirror) {
            // Compare and select, so that NaN stays NaN as in `f32::clamp`.
            let below = self.b.fcmp(FCmp::Lt, x, lo)?;
            x = self.b.select(below, lo, x)?;
            let above = self.b.fcmp(FCmp::Gt, x, hi)?;
            x = self.b.select(above, hi, x)?;
        }
        let half = self.fconst(0.5)?;
        let x = self.b.fbin(FBin::Sub, x, half)?;
        let (fl, i) = self.floor_split(x)?;
        let weight = self.b.fbin(FBin::Sub, x, fl)?;
        // `i + 1` wraps past i32::MAX to i32::MIN, which a power-of-two period maps where the
        // sampler's 2³¹ goes (0); clamping needs no care there, the weight is NaN or 0.
        let j = self.ik(IBin::Add, i, 1)?;
        let (i, j) = if mirror {
            (self.mirror(i, a)?, self.mirror(j, a)?)
        } else {
            (self.wrap(i, a)?, self.wrap(j, a)?)
        };
        Ok((i, j, weight))
    }

    /// `v0 + a·(v1 − v0)`, each step rounded, as the sampler interpolates.
    fn lerp(&mut self, a: B::V, v0: B::V, v1: B::V) -> R<B::V> {
        let d = self.b.fbin(FBin::Sub, v1, v0)?;
        let d = self.b.fbin(FBin::Mul, a, d)?;
        self.b.fbin(FBin::Add, v0, d)
    }

    /// The texel at `(x, y)` (indices inside the texture): its four components. Stored f32
    /// texels are canonical, so their bits are the lookup's; an RGBA8 texel is one word,
    /// each byte then `b as f32 · (1/255 as f32)` as the sampler reads it.
    fn texel(&mut self, d: DescVals<B>, x: B::V, y: B::V, format: TexFormat) -> R<[B::V; 4]> {
        let row = self.b.ibin(IBin::Mul, y, d.width)?;
        let texel = self.b.ibin(IBin::Add, row, x)?;
        if format == TexFormat::F32 {
            let word = self.b.shift_imm(Shift::Shl, texel, 2)?;
            return self.b.gather4(d.texels, word);
        }
        let v = self.b.gather(Kind::I32, d.texels, texel)?;
        let scale = self.fconst((1.0f64 / 255.0) as f32)?;
        let mut out = [v; 4];
        for (c, o) in out.iter_mut().enumerate() {
            let c = c as u32;
            let byte = if c > 0 {
                self.b.shift_imm(Shift::ShrU, v, 8 * c)?
            } else {
                v
            };
            let byte = if c < 3 {
                self.ik(IBin::And, byte, 0xFF)?
            } else {
                byte
            };
            let f = self.b.int_to_float(byte, true)?;
            *o = self.b.fbin(FBin::Mul, f, scale)?;
        }
        Ok(out)
    }

    /// A texture operation through the host's callback: the arguments and the four results
    /// pass through the scratch area.
    fn texture_call(&mut self, index: usize, args: &[ir::Value]) -> R<Vec<B::V>> {
        let count = self.spill_args(args)?;
        let n = self.b.lanes() as i64;
        let idx = self.b.sconst(Scalar::I32, index as i64)?;
        let argp = self.scratch(0)?;
        let outp = self.scratch(count as i64 * n)?;
        let [mask, lane0, lanes] = self.lane_args()?;
        let callee = Callee::Texture(self.p.texture);
        self.b
            .call(callee, &[self.p.host, idx, argp, outp, mask, lane0, lanes])?;
        let kind = if self.textures[index].op.integer_results() {
            Kind::I32
        } else {
            Kind::F32
        };
        (0..4)
            .map(|c| {
                let p = self.scratch((count + c) as i64 * n)?;
                self.b.load_vector(kind, p)
            })
            .collect()
    }
}
