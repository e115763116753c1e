//! Texel indices along one axis, a step at once, as the runtime's sampler computes them: texel
//! space, clamp to edge, repeat and mirror (over a power-of-two side by masking, over any side by
//! the Euclidean remainder), nearest and linear filtering with their weights.

use super::*;

impl<B: SimdBuilder> Lower<'_, B> {
    /// `s` in texel space: scaled by the side unless RECT.
    pub(super) fn texel_space(&mut self, s: B::V, a: Axis<B>) -> R<B::V> {
        if a.rect {
            Ok(s)
        } else {
            self.b.fbin(FBin::Mul, s, a.fside)
        }
    }

    /// `clamp(i, 0, last)`: a texel inside its row or column, a level inside the table.
    pub(super) fn clamp_to(&mut self, i: B::V, last: B::V) -> R<B::V> {
        let i = self.ik(IBin::SMax, i, 0)?;
        self.b.ibin(IBin::SMin, i, last)
    }

    /// `(floor(x), floor(x) as i32)` for a wrap that repeats or mirrors: the integer as F2I
    /// converts (NaN and values outside the i32 range give `i32::MIN`, texel 0 of a
    /// power-of-two period, an even one), as the sampler's `ifloor_periodic`.
    pub(super) fn floor_periodic(&mut self, x: B::V) -> R<(B::V, B::V)> {
        let fl = self.b.fun(FUn::Floor, x)?;
        Ok((fl, self.b.float_to_int(fl)?))
    }

    /// Texel `i` under mirrored repeat of a power-of-two side: `i & last` in even periods,
    /// `last − (i & last)` (the same as its complement in the mask, and inside any side) in
    /// odd ones.
    pub(super) fn mirror(&mut self, i: B::V, a: Axis<B>) -> R<B::V> {
        let r = self.b.ibin(IBin::And, i, a.last)?;
        let flipped = self.b.ibin(IBin::Sub, a.last, r)?;
        let period = self.b.ibin(IBin::And, i, a.side)?;
        let zero = self.iconst(0)?;
        let odd = self.b.icmp(ICmp::Ne, period, zero)?;
        self.b.select(odd, flipped, r)
    }

    /// `i mod n`, the Euclidean remainder (`n` positive), as the sampler's `rem_euclid`: a
    /// division per lane (the host's where the target has none).
    pub(super) fn rem_euclid(&mut self, i: B::V, n: B::V) -> R<B::V> {
        let div = Optional::Div {
            signed: true,
            rem: true,
        };
        let r = if self.b.supports(div) {
            self.b.optional(div, &[i, n])?
        } else {
            let op = LaneOp::Binary(ir::Binary::IRemS);
            self.lane_op(op, &[i, n], 1, Kind::I32)?.remove(0)
        };
        let zero = self.iconst(0)?;
        let negative = self.b.icmp(ICmp::SLt, r, zero)?;
        let up = self.b.ibin(IBin::Add, r, n)?;
        self.b.select(negative, up, r)
    }

    /// `(m + 1) mod n` for `m` in `[0, n)`.
    pub(super) fn next_mod(&mut self, m: B::V, n: B::V) -> R<B::V> {
        let m = self.ik(IBin::Add, m, 1)?;
        let wraps = self.b.icmp(ICmp::Eq, m, n)?;
        let zero = self.iconst(0)?;
        self.b.select(wraps, zero, m)
    }

    /// Texel `m mod 2·side` under mirrored repeat of any side: `m` below `side`,
    /// `2·side − 1 − m` from it.
    pub(super) fn mirror_any(&mut self, m: B::V, twice: B::V, a: Axis<B>) -> R<B::V> {
        let back = self.ik(IBin::Sub, twice, 1)?;
        let back = self.b.ibin(IBin::Sub, back, m)?;
        let low = self.b.icmp(ICmp::SLt, m, a.side)?;
        self.b.select(low, m, back)
    }

    /// The texel of a nearest lookup at `s` on axis `a`, wrapped by `wrap` (repeating any
    /// side with `any_side`).
    pub(super) fn nearest(
        &mut self,
        s: B::V,
        a: Axis<B>,
        wrap: TexWrap,
        any_side: bool,
    ) -> R<B::V> {
        match wrap {
            TexWrap::Repeat => {
                let x = self.texel_space(s, a)?;
                let (_, i) = self.floor_periodic(x)?;
                if any_side {
                    self.rem_euclid(i, a.side)
                } else {
                    self.b.ibin(IBin::And, i, a.last)
                }
            }
            TexWrap::Clamp => {
                // Saturated: a coordinate past 2³¹ texels reads the last one.
                let x = self.texel_space(s, a)?;
                let i = self.floor_to_int(x)?;
                self.clamp_to(i, a.last)
            }
            TexWrap::Mirror => {
                // The fraction of `s`, reflected in odd periods, then the texel under it,
                // clamped (exact for any side).
                let (fl, period) = self.floor_periodic(s)?;
                let u = self.b.fbin(FBin::Sub, s, fl)?;
                let one = self.fconst(1.0)?;
                let reflected = self.b.fbin(FBin::Sub, one, u)?;
                let odd = self.ik(IBin::And, period, 1)?;
                let zero = self.iconst(0)?;
                let odd = self.b.icmp(ICmp::Ne, odd, zero)?;
                let u = self.b.select(odd, reflected, u)?;
                let x = self.texel_space(u, a)?;
                let i = self.floor_to_int(x)?;
                self.clamp_to(i, a.last)
            }
        }
    }

    /// The two texels of a linear lookup at `s` on axis `a`, wrapped by `wrap` (repeating or
    /// mirroring any side with `any_side`), and the weight of the second.
    pub(super) fn linear(
        &mut self,
        s: B::V,
        a: Axis<B>,
        wrap: TexWrap,
        any_side: bool,
    ) -> R<(B::V, B::V, B::V)> {
        let mut x = self.texel_space(s, a)?;
        if wrap == TexWrap::Clamp {
            // To `[0, side]`, compare and select, so that NaN stays NaN as in `f32::clamp`.
            let side = a.fside;
            let zero = self.fconst(0.0)?;
            let below = self.b.fcmp(FCmp::Lt, x, zero)?;
            x = self.b.select(below, zero, x)?;
            let above = self.b.fcmp(FCmp::Gt, x, side)?;
            x = self.b.select(above, side, x)?;
        }
        let half = self.fconst(0.5)?;
        let x = self.b.fbin(FBin::Sub, x, half)?;
        // A clamped axis's `x` is NaN or inside `[−½, side − ½]`, where the saturating
        // conversion and F2I's agree, so every wrap takes F2I's.
        let (fl, i) = self.floor_periodic(x)?;
        let weight = self.b.fbin(FBin::Sub, x, fl)?;
        // No float below 2³¹ floors to i32::MAX, so `i + 1` does not wrap; NaN and values
        // out of range make `i` i32::MIN, the sampler's too, and a weight of NaN or 0.
        if any_side && wrap != TexWrap::Clamp {
            // One division: the second texel is the first's successor in the period.
            let period = if wrap == TexWrap::Repeat {
                a.side
            } else {
                self.b.ibin(IBin::Add, a.side, a.side)?
            };
            let m0 = self.rem_euclid(i, period)?;
            let m1 = self.next_mod(m0, period)?;
            return Ok(if wrap == TexWrap::Repeat {
                (m0, m1, weight)
            } else {
                (
                    self.mirror_any(m0, period, a)?,
                    self.mirror_any(m1, period, a)?,
                    weight,
                )
            });
        }
        let j = self.ik(IBin::Add, i, 1)?;
        Ok(match wrap {
            TexWrap::Repeat => (
                self.b.ibin(IBin::And, i, a.last)?,
                self.b.ibin(IBin::And, j, a.last)?,
                weight,
            ),
            TexWrap::Clamp => (self.clamp_to(i, a.last)?, self.clamp_to(j, a.last)?, weight),
            TexWrap::Mirror => (self.mirror(i, a)?, self.mirror(j, a)?, weight),
        })
    }

    /// `v0 + a·(v1 − v0)`, each step rounded, as the sampler interpolates.
    pub(super) fn lerp(&mut self, a: B::V, v0: B::V, v1: B::V) -> R<B::V> {
        let d = self.b.fbin(FBin::Sub, v1, v0)?;
        let d = self.b.fbin(FBin::Mul, a, d)?;
        self.b.fbin(FBin::Add, v0, d)
    }
}
