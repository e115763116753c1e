//! The level of detail of a lookup, a step at once, as the runtime's sampler computes it
//! (`texture::sample`): explicit, from gradients, or from the quad's differences, with the
//! sampler's bias and clamps, through tgsic's own `log2` ([`crate::numerics::lod_log2`]).

use super::vals::{Coordinates, DescVals, Lod, MipVals};
use crate::back::simd::builder::{FBin, FUn, IBin, Kind, R, Shift, SimdBuilder};
use crate::back::simd::lower::Lower;
use crate::ir::{self, FCmp, ICmp};
use crate::numerics::{LOD_LOG2_SERIES, LOD_LOG2_SPLIT};

impl<B: SimdBuilder> Lower<'_, B> {
    /// The level of detail of a lookup at `c` as the sampler computes it, with the sampler's
    /// bias and clamps: explicit, from gradients, or from the quad's differences (0 where
    /// lanes do not form quads) plus a bias argument; of s alone for a 1D texture.
    pub(super) fn level_of_detail(
        &mut self,
        d: DescVals<B>,
        m: MipVals<B>,
        c: Coordinates<B::V>,
        rect: bool,
        lod: Lod<'_>,
    ) -> R<B::V> {
        let (s, dims) = (c.st, if c.one_d { 1 } else { 2 });
        use ir::Level as L;
        let arg = |me: &mut Self, k: usize| me.float_operand(lod.args[k]);
        let base = match lod.level {
            L::Zero => self.fconst(0.0)?,
            L::Explicit => arg(self, 0)?,
            L::Grad => {
                let dx = [arg(self, 0)?, arg(self, 1)?];
                let dy = [arg(self, 3)?, arg(self, 4)?];
                self.rho_lod(d, &dx[..dims], &dy[..dims], rect)?
            }
            L::Implicit | L::Bias => {
                // Coarse differences: right − left and top − bottom of each quad.
                let mut dx = s;
                let mut dy = s;
                for k in 0..dims {
                    dx[k] = self.quad_diff(s[k], [1; 4], [0; 4])?;
                    dy[k] = self.quad_diff(s[k], [0; 4], [2; 4])?;
                }
                let l = self.rho_lod(d, &dx[..dims], &dy[..dims], rect)?;
                let zero = self.fconst(0.0)?;
                let l = self.b.select(m.quads, l, zero)?;
                if lod.level == L::Bias {
                    let bias = arg(self, 0)?;
                    self.b.fbin(FBin::Add, l, bias)?
                } else {
                    l
                }
            }
        };
        let x = self.b.fbin(FBin::Add, base, m.lod[0])?;
        // Compare and select, so that NaN stays NaN as in `f32::clamp`.
        let below = self.b.fcmp(FCmp::Lt, x, m.lod[1])?;
        let x = self.b.select(below, m.lod[1], x)?;
        let above = self.b.fcmp(FCmp::Gt, x, m.lod[2])?;
        self.b.select(above, m.lod[2], x)
    }

    /// `log2(ρ)`, ρ the largest of `max(|dx|, |dy|) · side` over the axes of `dx` and `dy`
    /// (the side 1 for RECT), each maximum ignoring NaN as Rust's `f32::max`; the logarithm
    /// is the sampler's ([`lod_log2`](crate::numerics::lod_log2)).
    fn rho_lod(&mut self, d: DescVals<B>, dx: &[B::V], dy: &[B::V], rect: bool) -> R<B::V> {
        let mut rho = self.fconst(0.0)?;
        for k in 0..dx.len() {
            let a = self.b.fun(FUn::Abs, dx[k])?;
            let b = self.b.fun(FUn::Abs, dy[k])?;
            let m = self.max_num(a, b)?;
            let m = if rect {
                m
            } else {
                self.b.fbin(FBin::Mul, m, d.axes[k].fside)?
            };
            rho = self.max_num(rho, m)?;
        }
        self.lod_log2(rho)
    }

    /// [`lod_log2`](crate::numerics::lod_log2), the same f32 operations in every lane:
    /// `x = 2ᵉ·m` with `m` in `[√½, √2)`, then the odd series of `s = (m − 1)/(m + 1)`; zero
    /// and denormals give −∞, infinities and NaN themselves (a finite negative `x`, never a
    /// ρ, −∞). No lookup can tell ∞ from the series' value for it (either selects the last
    /// level); it is passed through all the same, so that this is `lod_log2` exactly.
    fn lod_log2(&mut self, x: B::V) -> R<B::V> {
        let bits = self.b.cast(x, Kind::I32)?;
        let e = self.ik(IBin::Sub, bits, LOD_LOG2_SPLIT)?;
        let e = self.b.shift_imm(Shift::ShrS, e, 23)?;
        let e_bits = self.b.shift_imm(Shift::Shl, e, 23)?;
        let m = self.b.ibin(IBin::Sub, bits, e_bits)?;
        let m = self.b.cast(m, Kind::F32)?;
        let one = self.fconst(1.0)?;
        let num = self.b.fbin(FBin::Sub, m, one)?;
        let den = self.b.fbin(FBin::Add, m, one)?;
        let s = self.b.fbin(FBin::Div, num, den)?;
        let z = self.b.fbin(FBin::Mul, s, s)?;
        let mut p = self.fconst(LOD_LOG2_SERIES[0])?;
        for &c in &LOD_LOG2_SERIES[1..] {
            let pz = self.b.fbin(FBin::Mul, p, z)?;
            let c = self.fconst(c)?;
            p = self.b.fbin(FBin::Add, pz, c)?;
        }
        let sp = self.b.fbin(FBin::Mul, s, p)?;
        let e = self.b.int_to_float(e, true)?;
        let r = self.b.fbin(FBin::Add, sp, e)?;
        // Below the smallest normal as a signed integer: zero, a denormal or negative.
        let min_normal = self.iconst(0x0080_0000)?;
        let tiny = self.b.icmp(ICmp::SLt, bits, min_normal)?;
        let minus_inf = self.fconst(f32::NEG_INFINITY)?;
        let r = self.b.select(tiny, minus_inf, r)?;
        let exponent = self.ik(IBin::And, bits, 0x7F80_0000)?;
        let top = self.iconst(0x7F80_0000)?;
        let special = self.b.icmp(ICmp::Eq, exponent, top)?;
        self.b.select(special, x, r)
    }

    /// Rust's `f32::max`: the other operand where one is NaN.
    fn max_num(&mut self, a: B::V, b: B::V) -> R<B::V> {
        let b_nan = self.b.fcmp(FCmp::Ne, b, b)?;
        let b = self.b.select(b_nan, a, b)?;
        let ge = self.b.fcmp(FCmp::Ge, a, b)?;
        self.b.select(ge, a, b)
    }
}
