//! Texel fetches (TXF) and size queries (TXQ) in the generated code, as the runtime answers
//! them (`texture::texel_fetch`, the interpreter's TXQ), for 2D and RECT textures: of one
//! level, or of their levels in one buffer with its level table
//! ([`TexMip`](crate::back::texpath::TexMip) other than `Level0`), where each lane's level
//! argument picks its level.

use super::vals::{DescVals, Lod};
use crate::back::simd::builder::{IBin, Kind, R, SimdBuilder};
use crate::back::simd::lower::Lower;
use crate::back::texpath::VectorTex;
use crate::ir::{self, ICmp};

impl<B: SimdBuilder> Lower<'_, B> {
    /// The level a fetch or query reads, per lane, and the lanes whose level exists (a
    /// mask): level 0 for TXF_LZ; otherwise the level argument's integer, which exists from
    /// 0 to the last level (a lane without one reads level 0, and its results are zeros).
    fn fetch_level(&mut self, d: DescVals<B>, rect: bool, lod: Lod<'_>) -> R<(DescVals<B>, B::V)> {
        if lod.level == ir::Level::Zero {
            return Ok((d, self.mask_const(true)?));
        }
        let k = self.get(lod.args[0])?;
        let k = self.b.cast(k, Kind::I32)?;
        let zero = self.iconst(0)?;
        let Some(m) = d.mip else {
            return Ok((d, self.b.icmp(ICmp::Eq, k, zero)?));
        };
        // Unsigned, so that a negative level is past the last too.
        let last = self.ik(IBin::Add, m.last, 1)?;
        let exists = self.b.icmp(ICmp::ULt, k, last)?;
        let k = self.b.select(exists, k, zero)?;
        Ok((self.level_vals(d, m, k, rect)?, exists))
    }

    /// A texel fetch as the sampler does it (`texture::texel_fetch`): the texel of the level
    /// at integer coordinates (plus the offset, wrapping), zero where they or the level fall
    /// outside the texture.
    pub(super) fn fetch(
        &mut self,
        slot: usize,
        rect: bool,
        v: VectorTex,
        args: &[ir::Value],
        offset: Option<usize>,
        lod: Lod<'_>,
    ) -> R<Vec<B::V>> {
        let d = self.desc_vals(slot, rect, v, false)?;
        let (d, mut inside) = self.fetch_level(d, rect, lod)?;
        let mut at = [d.width; 2];
        for (k, c) in at.iter_mut().enumerate() {
            let x = self.get(args[k])?;
            let mut x = self.b.cast(x, Kind::I32)?;
            if let Some(first) = offset {
                let o = self.get(args[first + k])?;
                let o = self.b.cast(o, Kind::I32)?;
                x = self.b.ibin(IBin::Add, x, o)?;
            }
            // Unsigned, so that a negative coordinate is past the side too.
            let ok = self.b.icmp(ICmp::ULt, x, d.axes[k].side)?;
            inside = self.b.ibin(IBin::And, inside, ok)?;
            *c = x;
        }
        let zero = self.iconst(0)?;
        let x = self.b.select(inside, at[0], zero)?;
        let y = self.b.select(inside, at[1], zero)?;
        let texel = self.texel(d, x, y, v.format)?;
        let zero = self.fconst(0.0)?;
        texel
            .into_iter()
            .map(|t| self.b.select(inside, t, zero))
            .collect()
    }

    /// A size query as the sampler answers it for a 2D or RECT texture: (width, height, 0,
    /// levels) of the level the argument names, (0, 0, 0, levels) where it names none.
    pub(super) fn size(
        &mut self,
        slot: usize,
        rect: bool,
        v: VectorTex,
        lod: Lod<'_>,
    ) -> R<Vec<B::V>> {
        let d = self.desc_vals(slot, rect, v, false)?;
        let (l, exists) = self.fetch_level(d, rect, lod)?;
        let zero = self.iconst(0)?;
        let w = self.b.select(exists, l.axes[0].side, zero)?;
        let h = self.b.select(exists, l.axes[1].side, zero)?;
        let levels = match d.mip {
            Some(m) => self.ik(IBin::Add, m.last, 1)?,
            None => self.iconst(1)?,
        };
        Ok(vec![w, h, zero, levels])
    }
}
