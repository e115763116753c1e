//! Texture lookups: sampled in the generated code, a step of lanes at once, when the function
//! was compiled for that ([`TexPaths`](crate::back::texpath::TexPaths)) and the operation allows
//! ([`vector_texture`]); through the host's callback otherwise.
//!
//! The code samples a 2D or RECT texture exactly as the runtime's sampler does
//! (`texture::sample`): coordinates projected (TXP) and offset as it does, nearest or
//! bilinear, repeat, clamp to edge or mirrored repeat per axis ([`TexDesc`] has the
//! arithmetic), f32 or RGBA8 texels, level 0 alone or a level per lane chosen by the level of
//! detail (`lod.rs`: explicit, from gradients, or from the quad's differences, with the
//! sampler's bias and clamps), nearest or interpolated between two levels, and for SHADOW2D
//! and SHADOWRECT each texel compared with the reference before filtering. A 2D_ARRAY lookup
//! samples the layer its r picks, a CUBE lookup the face its direction picks, in the same way
//! (`coords.rs`; faces clamped to their edges), and their shadow forms compare with w; 1D
//! lookups (and 1D arrays, whose layer is t) read row 0, filtered along s alone; 3D lookups
//! (level 0) interpolate two slices along r. It
//! also fetches texels (TXF) and answers size queries (TXQ) of 2D and RECT textures, of any
//! level (`fetch.rs`). Every texel address comes from indices clamped into their level (a
//! face or layer inside those its level holds) and every level from one clamped into the
//! level table, so no coordinate reads outside the texture.

use super::builder::{
    Callee, FBin, FUn, IBin, Kind, Optional, R, SBin, Scalar, Shift, SimdBuilder,
};
use super::lower::Lower;
use crate::back::abi::{TexDesc, TextureCall};
use crate::back::lane_ops::LaneOp;
use crate::back::nan::Class;
use crate::back::texpath::{
    TexCompare, TexFormat, TexMip, TexPath, TexWrap, VectorTex, desc_group, vector_texture,
};
use crate::ir::{self, FCmp, ICmp};
use std::mem::{offset_of, size_of};

mod coords;
mod fetch;
mod lod;
pub(super) mod vals;
mod wrap;

pub(super) use vals::DescVals;
use vals::{Axis, Coordinates, Coords, Lod, MipVals};
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
        let (rect, kind) = (op.target.is_rect(), op.kind);
        let key = (desc_group(&op), path);
        let (level, first) = (op.level, op.layout().level);
        let coords = Coords {
            projective: op.projective,
            offset: op.layout().offset,
            target: op.target,
        };
        self.textures.push(TextureCall {
            op,
            args: args.len(),
        });
        let outs = match path {
            TexPath::Vector(v) => {
                self.tex_done.set(index, path);
                let slot = *self.tex_descs.entry(key).or_insert(index);
                let lod = Lod {
                    level,
                    args: &args[first..],
                };
                match kind {
                    ir::TexKind::Fetch => self.fetch(slot, rect, v, args, coords.offset, lod)?,
                    ir::TexKind::Size => self.size(slot, rect, v, lod)?,
                    _ => self.sample(slot, rect, v, args, coords, lod)?,
                }
            }
            TexPath::Call => self.texture_call(index, args)?,
        };
        for (&r, v) in results.iter().zip(outs) {
            self.set(r, v)?;
        }
        Ok(())
    }

    /// The values of descriptor `slot` (with level 0's depth where `layered`, kept apart from
    /// those without): those made where they dominate this lookup ([`Self::desc_vals`]), or
    /// made here and kept for the lookups this point dominates.
    fn desc_vals(
        &mut self,
        slot: usize,
        rect: bool,
        v: VectorTex,
        layered: bool,
    ) -> R<DescVals<B>> {
        if let Some(&d) = self
            .desc_vals
            .iter()
            .rev()
            .find_map(|m| m.get(&(slot, layered)))
        {
            return Ok(d);
        }
        let d = self.derive_desc_vals(slot, rect, v, layered)?;
        if let Some(m) = self.desc_vals.last_mut() {
            m.insert((slot, layered), d);
        }
        Ok(d)
    }

    fn derive_desc_vals(
        &mut self,
        slot: usize,
        rect: bool,
        v: VectorTex,
        layered: bool,
    ) -> R<DescVals<B>> {
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
            axes.push(Axis {
                side,
                fside: self.b.int_to_float(side, true)?,
                rect,
                last: self.ik(IBin::Sub, side, 1)?,
            });
        }
        let words = if v.format == TexFormat::Unorm8 && self.b.supports(Optional::Permute) {
            let w = self
                .b
                .load(Scalar::I32, desc, offset_of!(TexDesc, words) as i32)?;
            Some(self.b.sconvert(w, Scalar::I64, false)?)
        } else {
            None
        };
        let mip = if v.mip == TexMip::Level0 {
            None
        } else {
            let levels = self
                .b
                .load(Scalar::Ptr, desc, offset_of!(TexDesc, levels) as i32)?;
            let last = field(self, Scalar::I32, offset_of!(TexDesc, last_level), 0)?;
            let mut lod = Vec::with_capacity(3);
            for k in 0..3 {
                lod.push(field(self, Scalar::F32, offset_of!(TexDesc, lod), k)?);
            }
            let quads = field(self, Scalar::I32, offset_of!(TexDesc, quads), 0)?;
            let zero = self.iconst(0)?;
            Some(MipVals {
                levels,
                last,
                lod: [lod[0], lod[1], lod[2]],
                quads: self.b.icmp(ICmp::Ne, quads, zero)?,
            })
        };
        let depth = if layered {
            Some(field(self, Scalar::I32, offset_of!(TexDesc, depth), 0)?)
        } else {
            None
        };
        Ok(DescVals {
            texels,
            depth,
            words,
            offset: None,
            width: axes[0].side,
            axes: [axes[0], axes[1]],
            mip,
        })
    }

    /// The values of level `k` (per lane, inside the table) of a mipmapped descriptor `d`.
    fn level_vals(&mut self, d: DescVals<B>, m: MipVals<B>, k: B::V, rect: bool) -> R<DescVals<B>> {
        let row = self.ik(IBin::Mul, k, 3)?;
        let word = |s: &mut Self, j: u32| {
            let at = s.ik(IBin::Add, row, j)?;
            s.b.gather(Kind::I32, m.levels, at)
        };
        let offset = word(self, 0)?;
        let sides = [word(self, 1)?, word(self, 2)?];
        let mut axes = d.axes;
        for (axis, a) in axes.iter_mut().enumerate() {
            let side = sides[axis];
            let size = self.b.int_to_float(side, true)?;
            *a = Axis {
                side,
                fside: size,
                rect,
                last: self.ik(IBin::Sub, side, 1)?,
            };
        }
        Ok(DescVals {
            texels: d.texels,
            depth: d.depth,
            words: d.words,
            offset: Some(offset),
            width: sides[0],
            axes,
            mip: None,
        })
    }

    /// The lookup as the runtime's sampler does it (`texture::sample`), a step at once
    /// ([`TexDesc`] has the arithmetic).
    fn sample(
        &mut self,
        slot: usize,
        rect: bool,
        v: VectorTex,
        args: &[ir::Value],
        coords: Coords,
        lod: Lod<'_>,
    ) -> R<Vec<B::V>> {
        let d = self.desc_vals(slot, rect, v, coords.layered())?;
        let c = self.coordinates(d, args, coords)?;
        let Some(m) = d.mip else {
            return self.filter(d, c, v.linear, v);
        };
        let lod = self.level_of_detail(d, m, c, rect, lod)?;
        let zero = self.fconst(0.0)?;
        // NaN magnifies.
        let minify = self.b.fcmp(FCmp::Gt, lod, zero)?;
        // When both filters are one, magnified lanes read level 0 with it.
        let one_filter = v.linear == v.mag_linear;
        let level = |s: &mut Self, k: B::V| {
            let k = s.clamp_to(k, m.last)?;
            if one_filter {
                let zero = s.iconst(0)?;
                s.b.select(minify, k, zero)
            } else {
                Ok(k)
            }
        };
        let minified = match v.mip {
            TexMip::Level0 | TexMip::Single => self.filter(d, c, v.linear, v)?,
            TexMip::Nearest => {
                let half = self.fconst(0.5)?;
                let x = self.b.fbin(FBin::Add, lod, half)?;
                let k = self.floor_to_int(x)?;
                let k = level(self, k)?;
                let l = self.level_vals(d, m, k, rect)?;
                self.filter(l, c, v.linear, v)?
            }
            TexMip::Linear => {
                let (fl, k) = self.floor_split(lod)?;
                let weight = self.b.fbin(FBin::Sub, lod, fl)?;
                let k0 = level(self, k)?;
                let k1 = self.ik(IBin::Add, k0, 1)?;
                let k1 = level(self, k1)?;
                let l0 = self.level_vals(d, m, k0, rect)?;
                let l1 = self.level_vals(d, m, k1, rect)?;
                let v0 = self.filter(l0, c, v.linear, v)?;
                let v1 = self.filter(l1, c, v.linear, v)?;
                // The last level (or level 0 when magnified) alone, not interpolated with
                // itself (infinite texels would give NaN).
                let same = self.b.icmp(ICmp::Eq, k0, k1)?;
                let mut out = Vec::with_capacity(4);
                for (a, b) in v0.into_iter().zip(v1) {
                    let r = self.lerp(weight, a, b)?;
                    let r = self.canonical(r, Class::Arith)?;
                    out.push(self.b.select(same, a, r)?);
                }
                out
            }
        };
        if one_filter {
            return Ok(minified);
        }
        let magnified = self.filter(d, c, v.mag_linear, v)?;
        minified
            .into_iter()
            .zip(magnified)
            .map(|(a, b)| self.b.select(minify, a, b))
            .collect()
    }

    /// The texel at (x, y) of `d`; for a shadow lookup (`r` its reference), its red compared
    /// with `r` as (v, v, v, 1), v 1.0 where the comparison passes and 0.0 where it fails (texels
    /// are stored flushed, so the comparison reads them as the sampler's DAZ one does).
    fn compared_texel(
        &mut self,
        d: DescVals<B>,
        x: B::V,
        y: B::V,
        v: VectorTex,
        r: Option<B::V>,
    ) -> R<[B::V; 4]> {
        let t = self.texel(d, x, y, v.format)?;
        let (Some(cmp), Some(r)) = (v.compare, r) else {
            return Ok(t);
        };
        let (one, zero) = (self.fconst(1.0)?, self.fconst(0.0)?);
        let pass = match cmp {
            TexCompare::Never => return Ok([zero, zero, zero, one]),
            TexCompare::Always => return Ok([one, one, one, one]),
            TexCompare::Less => self.b.fcmp(FCmp::Lt, r, t[0])?,
            TexCompare::Equal => self.b.fcmp(FCmp::Eq, r, t[0])?,
            TexCompare::LEqual => self.b.fcmp(FCmp::Le, r, t[0])?,
            TexCompare::Greater => self.b.fcmp(FCmp::Gt, r, t[0])?,
            TexCompare::NotEqual => self.b.fcmp(FCmp::Ne, r, t[0])?,
            TexCompare::GEqual => self.b.fcmp(FCmp::Ge, r, t[0])?,
        };
        let v = self.b.select(pass, one, zero)?;
        Ok([v, v, v, one])
    }

    /// Level `d` sampled at `c` with one filter (`linear` or nearest): a 3D texture's two
    /// slices around r interpolated along it, as the sampler's.
    fn filter(
        &mut self,
        d: DescVals<B>,
        c: Coordinates<B::V>,
        linear: bool,
        v: VectorTex,
    ) -> R<Vec<B::V>> {
        let Some(r) = c.r else {
            // A cube face's or an array layer's rows follow those of the ones before it.
            let rows = match c.layer {
                Some(f) => Some(self.b.ibin(IBin::Mul, f, d.axes[1].side)?),
                None => None,
            };
            return self.plane(d, c, linear, v, rows, true);
        };
        let depth = d.layers()?;
        let z = Axis {
            side: depth,
            fside: self.b.int_to_float(depth, true)?,
            rect: false,
            last: self.ik(IBin::Sub, depth, 1)?,
        };
        let rows = |me: &mut Self, slice: B::V| me.b.ibin(IBin::Mul, slice, d.axes[1].side);
        if !linear {
            let slice = self.nearest(r, z, v.wrap[2], v.any_side)?;
            let rows = rows(self, slice)?;
            return self.plane(d, c, false, v, Some(rows), true);
        }
        let (z0, z1, wz) = self.linear(r, z, v.wrap[2], v.any_side)?;
        let rows0 = rows(self, z0)?;
        let rows1 = rows(self, z1)?;
        // The slices' NaNs are made canonical once, after the last interpolation.
        let p0 = self.plane(d, c, true, v, Some(rows0), false)?;
        let p1 = self.plane(d, c, true, v, Some(rows1), false)?;
        p0.into_iter()
            .zip(p1)
            .map(|(a, b)| {
                let x = self.lerp(wz, a, b)?;
                self.canonical(x, Class::Arith)
            })
            .collect()
    }

    /// One plane of level `d` (its rows from `rows` on) sampled at `c` with one filter; a
    /// bilinear result's NaNs made `canonical` where asked.
    fn plane(
        &mut self,
        d: DescVals<B>,
        c: Coordinates<B::V>,
        linear: bool,
        v: VectorTex,
        rows: Option<B::V>,
        canonical: bool,
    ) -> R<Vec<B::V>> {
        let (s, r) = (c.st, c.reference);
        let row = |me: &mut Self, y: B::V| match rows {
            Some(r) => me.b.ibin(IBin::Add, y, r),
            None => Ok(y),
        };
        if !linear {
            let x = self.nearest(s[0], d.axes[0], v.wrap[0], v.any_side)?;
            let y = if c.one_d {
                self.iconst(0)?
            } else {
                self.nearest(s[1], d.axes[1], v.wrap[1], v.any_side)?
            };
            let y = row(self, y)?;
            return Ok(self.compared_texel(d, x, y, v, r)?.to_vec());
        }
        let (x0, x1, wx) = self.linear(s[0], d.axes[0], v.wrap[0], v.any_side)?;
        // A 1D texture's row is 0, interpolated with itself at weight 0 as the sampler does.
        let (y0, y1, wy) = if c.one_d {
            let (zero, fzero) = (self.iconst(0)?, self.fconst(0.0)?);
            (zero, zero, fzero)
        } else {
            self.linear(s[1], d.axes[1], v.wrap[1], v.any_side)?
        };
        let (y0, y1) = (row(self, y0)?, row(self, y1)?);
        let t00 = self.compared_texel(d, x0, y0, v, r)?;
        let t10 = self.compared_texel(d, x1, y0, v, r)?;
        let t01 = self.compared_texel(d, x0, y1, v, r)?;
        let t11 = self.compared_texel(d, x1, y1, v, r)?;
        (0..4)
            .map(|c| {
                let top = self.lerp(wx, t00[c], t10[c])?;
                let bottom = self.lerp(wx, t01[c], t11[c])?;
                let r = self.lerp(wy, top, bottom)?;
                // Infinite texels and infinite coordinates make NaNs: the sampler's are
                // canonical.
                if canonical {
                    self.canonical(r, Class::Arith)
                } else {
                    Ok(r)
                }
            })
            .collect()
    }

    /// The texel at `(x, y)` (indices inside the texture): its four components. Stored f32
    /// texels are canonical, so their bits are the lookup's; an RGBA8 texel is one word,
    /// each byte then `b as f32 · (1/255 as f32)` as the sampler reads it.
    fn texel(&mut self, d: DescVals<B>, x: B::V, y: B::V, format: TexFormat) -> R<[B::V; 4]> {
        let row = self.b.ibin(IBin::Mul, y, d.width)?;
        let mut texel = self.b.ibin(IBin::Add, row, x)?;
        if let Some(first) = d.offset {
            texel = self.b.ibin(IBin::Add, texel, first)?;
        }
        if format == TexFormat::F32 {
            let word = self.b.shift_imm(Shift::Shl, texel, 2)?;
            return self.b.gather4(d.texels, word);
        }
        let v = self.texel_words(d, texel)?;
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

    /// The RGBA8 words `texels` (one index a lane) of `d`: when the lanes read neighbouring
    /// texels, as those of a magnified texture do, one load of the `lanes()` words around lane
    /// 0's and a permute (a gather lane by lane costs an extraction, a load and an insertion
    /// a lane); a gather otherwise. The window starts `lanes()/2 − 1` words before lane 0's
    /// and lies inside the texels' `words`, so its load reads no memory the gather would not
    /// be allowed to.
    ///
    /// A step whose lanes span two texel rows misses the window, and its branch is then
    /// mostly mispredicted: shaders that mostly hit (the blurs) gain, one that hits in half
    /// its steps loses. A second window a row below would hit more often, but its
    /// instructions (a horizontal minimum, a second load, permute and blend) measured costlier
    /// than the gathers they replace (`results/history/jit-2026-11-30.md`, "Textures").
    fn texel_words(&mut self, d: DescVals<B>, texels: B::V) -> R<B::V> {
        let Some(words) = d.words else {
            return self.b.gather(Kind::I32, d.texels, texels);
        };
        let n = self.b.lanes() as i64;
        let first = self.b.extract(texels, 0)?;
        let back = self.b.sconst(Scalar::I32, -(n / 2 - 1))?;
        let start = self.b.sbin(SBin::Add, first, back)?;
        // Each lane's place in the window; one outside it (below its start too: unsigned)
        // takes the gather.
        let at = self.b.splat(start)?;
        let place = self.b.ibin(IBin::Sub, texels, at)?;
        let span = self.iconst(n as u32)?;
        let outside = self.b.icmp(ICmp::UGe, place, span)?;
        let outside = self.b.mask_bits(outside)?;
        let one = self.b.sconst(Scalar::I64, 1)?;
        let inside = self.b.scmp(true, outside, one)?;
        // A start below 0 is 2³² or more as unsigned, past any `words`.
        let start = self.b.sconvert(start, Scalar::I64, false)?;
        let last = self.b.sconst(Scalar::I64, n - 1)?;
        let last = self.b.sbin(SBin::Add, start, last)?;
        let within = self.b.scmp(true, last, words)?;
        let window = self.b.sbin(SBin::And, inside, within)?;
        let (load, gather, join) = (self.b.block()?, self.b.block()?, self.b.block()?);
        let out = self.b.vector_var(Kind::I32)?;
        self.b.branch(window, load, gather)?;
        self.b.switch_to(load)?;
        let addr = self.b.word_addr(d.texels, start)?;
        let run = self.b.load_vector(Kind::I32, addr)?;
        let v = self.b.optional(Optional::Permute, &[run, place])?;
        self.b.def_vector(out, v)?;
        self.b.jump(join)?;
        self.b.switch_to(gather)?;
        let v = self.b.gather(Kind::I32, d.texels, texels)?;
        self.b.def_vector(out, v)?;
        self.b.jump(join)?;
        self.b.switch_to(join)?;
        self.b.use_vector(out)
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
        self.b.call(
            callee,
            &[self.p.callbacks, idx, argp, outp, mask, lane0, lanes],
        )?;
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
