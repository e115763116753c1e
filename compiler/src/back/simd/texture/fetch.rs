//! Texel fetches (TXF) and size queries (TXQ) in the generated code, as the runtime answers
//! them (`texture::texel_fetch`, the interpreter's TXQ), for 2D and RECT textures of one
//! level.

use super::Lod;
use crate::back::abi::VectorTex;
use crate::back::simd::{IBin, Kind, Lower, R, SimdBuilder};
use crate::ir::{self, ICmp};

impl<B: SimdBuilder> Lower<'_, B> {
    /// A texel fetch as the sampler does it (`texture::texel_fetch`): the texel at integer
    /// coordinates (plus the offset, wrapping), zero where they or the level fall outside
    /// the texture. The runtime fetches in the code only from textures of one level (a
    /// level other than 0 reads zero).
    pub(super) fn fetch(
        &mut self,
        slot: usize,
        rect: bool,
        v: VectorTex,
        args: &[ir::Value],
        offset: Option<usize>,
        lod: Lod<'_>,
    ) -> R<Vec<B::V>> {
        let d = self.desc_vals(slot, rect, v)?;
        let mut inside = match lod.level {
            ir::Level::Zero => self.mask_const(true)?,
            _ => {
                let level = self.get(lod.args[0])?;
                let level = self.b.cast(level, Kind::I32)?;
                let zero = self.iconst(0)?;
                self.b.icmp(ICmp::Eq, level, zero)?
            }
        };
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

    /// A size query as the sampler answers it for a 2D or RECT texture of one level (the
    /// only ones the runtime answers in the code): (width, height, 0, 1) at level 0, (0, 0,
    /// 0, 1) at any other.
    pub(super) fn size(
        &mut self,
        slot: usize,
        rect: bool,
        v: VectorTex,
        lod: Lod<'_>,
    ) -> R<Vec<B::V>> {
        let d = self.desc_vals(slot, rect, v)?;
        let level = self.get(lod.args[0])?;
        let level = self.b.cast(level, Kind::I32)?;
        let zero = self.iconst(0)?;
        let level0 = self.b.icmp(ICmp::Eq, level, zero)?;
        let w = self.b.select(level0, d.axes[0].side, zero)?;
        let h = self.b.select(level0, d.axes[1].side, zero)?;
        let one = self.iconst(1)?;
        Ok(vec![w, h, zero, one])
    }
}
