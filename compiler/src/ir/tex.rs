//! The IR's texture operations: what a TGSI texture or sampling instruction computes, with its
//! operands in one canonical order whatever the opcode ([`TexOp::layout`]), so that engines and
//! code generators handle texture semantics without TGSI's opcode-specific operand positions.
//! [`TexOp::from_tgsi`] is the one translation from TGSI, used by the lifter and by the
//! interpreter alike.

use crate::tgsi::{Opcode, TextureBinding, TextureTarget};
use std::fmt;

/// What a texture operation computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TexKind {
    /// A filtered sample at a level of detail ([`Level`]).
    Sample,
    /// The level of detail a sample would use: (clamped, unclamped) in x and y (LODQ, LOD).
    QueryLod,
    /// One texel at integer coordinates (TXF, SAMPLE_I).
    Fetch,
    /// The four texels of the bilinear footprint, one component of each (TG4, GATHER4).
    Gather,
    /// The size of a level and the level count, as integers (TXQ, SVIEWINFO).
    Size,
    /// The sample count, as an integer: 1 (TXQS, SAMPLE_INFO).
    Samples,
    /// The position of a sample within the pixel: (0.5, 0.5) (SAMPLE_POS).
    SamplePos,
}

impl TexKind {
    /// Every kind.
    pub const ALL: [TexKind; 7] = [
        TexKind::Sample,
        TexKind::QueryLod,
        TexKind::Fetch,
        TexKind::Gather,
        TexKind::Size,
        TexKind::Samples,
        TexKind::SamplePos,
    ];
}

/// Where a sample's (or fetch's, or size query's) level of detail comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Level {
    /// The quad's derivatives of the coordinates (fragments; 0 elsewhere).
    Implicit,
    /// The implicit level plus a bias argument.
    Bias,
    /// An explicit level argument.
    Explicit,
    /// Level 0.
    Zero,
    /// Explicit gradients: six arguments, d/dx then d/dy of x, y, z.
    Grad,
}

impl Level {
    /// Every source of a level of detail.
    pub const ALL: [Level; 5] = [
        Level::Implicit,
        Level::Bias,
        Level::Explicit,
        Level::Zero,
        Level::Grad,
    ];
}

/// A texture operation of the IR. Its arguments, in order ([`TexOp::layout`]): the four
/// coordinate components; the level argument (one for [`Level::Bias`] and
/// [`Level::Explicit`], six for [`Level::Grad`]); the depth reference if `compare`; the
/// component if [`TexKind::Gather`]; three per texture offset.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TexOp {
    /// What it computes.
    pub kind: TexKind,
    /// Where the level of detail comes from.
    pub level: Level,
    /// The coordinates are divided by their w first (TXP).
    pub projective: bool,
    /// An explicit depth reference argument (otherwise a shadow target takes it from the
    /// coordinates).
    pub compare: bool,
    /// The resolved texture target.
    pub target: TextureTarget,
    /// Texture unit (`SAMP[n]` or `SVIEW[n]`).
    pub unit: u32,
    /// Sampler state unit, if the operation samples.
    pub sampler: Option<u32>,
    /// Number of texture offsets (0 or 1).
    pub offsets: u8,
}

/// Where each argument of a [`TexOp`] is in its argument list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TexLayout {
    /// The first level argument (its count is the level's).
    pub level: usize,
    /// The depth reference, if any.
    pub reference: Option<usize>,
    /// The gathered component, if any.
    pub component: Option<usize>,
    /// The first offset component, if any.
    pub offset: Option<usize>,
    /// The argument count.
    pub len: usize,
}

/// What a TGSI texture instruction passes as one argument of its [`TexOp`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TexArg {
    /// Component `comp` of source operand `src`.
    Src {
        /// Source operand index of the TGSI instruction.
        src: u8,
        /// Component.
        comp: u8,
    },
    /// Component `comp` of texture offset `offset`.
    Offset {
        /// Offset index.
        offset: u8,
        /// Component.
        comp: u8,
    },
    /// The constant 0.
    Zero,
}

impl TexKind {
    /// What it computes, in words (`"sample"`, `"texel fetch"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            TexKind::Sample => "sample",
            TexKind::QueryLod => "level-of-detail query",
            TexKind::Fetch => "texel fetch",
            TexKind::Gather => "gather",
            TexKind::Size => "size query",
            TexKind::Samples => "sample-count query",
            TexKind::SamplePos => "sample-position query",
        }
    }
}

impl TexOp {
    /// The operation as four words (what a code cache stores of it).
    pub fn to_words(&self) -> [u32; 4] {
        let kind = TexKind::ALL
            .iter()
            .position(|&k| k == self.kind)
            .unwrap_or(0) as u32;
        let level = Level::ALL
            .iter()
            .position(|&l| l == self.level)
            .unwrap_or(0) as u32;
        let flags = u32::from(self.projective) | u32::from(self.compare) << 1;
        [
            kind | level << 8 | flags << 16 | u32::from(self.offsets) << 24,
            self.target.bits(),
            self.unit,
            self.sampler.unwrap_or(u32::MAX),
        ]
    }

    /// The operation of [`TexOp::to_words`]'s words, if they are one.
    pub fn from_words(w: [u32; 4]) -> Option<TexOp> {
        Some(TexOp {
            kind: *TexKind::ALL.get((w[0] & 0xFF) as usize)?,
            level: *Level::ALL.get((w[0] >> 8 & 0xFF) as usize)?,
            projective: w[0] >> 16 & 1 != 0,
            compare: w[0] >> 17 & 1 != 0,
            offsets: u8::try_from(w[0] >> 24).ok().filter(|&o| o <= 1)?,
            target: TextureTarget::from_bits(w[1])?,
            unit: w[2],
            sampler: (w[3] != u32::MAX).then_some(w[3]),
        })
    }
}

impl TexOp {
    /// Where the arguments are.
    pub fn layout(&self) -> TexLayout {
        let level = 4;
        let mut at = level
            + match self.level {
                Level::Bias | Level::Explicit => 1,
                Level::Grad => 6,
                Level::Implicit | Level::Zero => 0,
            };
        let mut take = |cond: bool| {
            cond.then(|| {
                at += 1;
                at - 1
            })
        };
        let reference = take(self.compare);
        let component = take(self.kind == TexKind::Gather);
        let offset = (self.offsets > 0).then_some(at);
        TexLayout {
            level,
            reference,
            component,
            offset,
            len: at + 3 * self.offsets as usize,
        }
    }

    /// Whether the level of detail comes from the quad's derivatives (in fragment shaders).
    pub fn implicit_lod(&self) -> bool {
        matches!(self.kind, TexKind::Sample | TexKind::QueryLod)
            && matches!(self.level, Level::Implicit | Level::Bias)
    }

    /// Whether the results are integers (size and sample-count queries) rather than floats.
    pub fn integer_results(&self) -> bool {
        matches!(self.kind, TexKind::Size | TexKind::Samples)
    }

    /// The operation of TGSI texture opcode `opcode` bound as `binding`, with `offsets`
    /// texture offsets, and where each of its arguments comes from; `None` for an opcode
    /// that is not a texture operation.
    pub fn from_tgsi(
        opcode: Opcode,
        binding: TextureBinding,
        offsets: u8,
    ) -> Option<(TexOp, Vec<TexArg>)> {
        use Opcode as O;
        use TexKind as K;
        let (kind, level, projective) = match opcode {
            O::Tex | O::Tex2 | O::Sample | O::SampleC => (K::Sample, Level::Implicit, false),
            O::Txp => (K::Sample, Level::Implicit, true),
            O::Txb | O::Txb2 | O::SampleB => (K::Sample, Level::Bias, false),
            O::Txl | O::Txl2 | O::SampleL => (K::Sample, Level::Explicit, false),
            O::TexLz | O::SampleCLz => (K::Sample, Level::Zero, false),
            O::Txd | O::SampleD => (K::Sample, Level::Grad, false),
            O::Lodq | O::Lod => (K::QueryLod, Level::Implicit, false),
            O::Txf | O::SampleI => (K::Fetch, Level::Explicit, false),
            O::TxfLz | O::SampleIMs => (K::Fetch, Level::Zero, false),
            O::Tg4 | O::Gather4 => (K::Gather, Level::Implicit, false),
            O::Txq | O::SviewInfo => (K::Size, Level::Explicit, false),
            O::Txqs | O::SampleInfo => (K::Samples, Level::Zero, false),
            O::SamplePos => (K::SamplePos, Level::Zero, false),
            _ => return None,
        };
        let src = |src: u8, comp: u8| TexArg::Src { src, comp };
        let mut args: Vec<TexArg> = (0..4).map(|c| src(0, c)).collect();
        // The level: in the coordinates' w (TXB, TXL, TXF, SAMPLE_I), x (TXQ), or a source of
        // its own (the second for the TEX2 family, the fourth for the SAMPLE family).
        let extra = match opcode {
            O::Tex2 | O::Txb2 | O::Txl2 | O::Txd => 1,
            _ => 3,
        };
        match (level, opcode) {
            (Level::Bias | Level::Explicit, O::Txb | O::Txl | O::Txf | O::SampleI) => {
                args.push(src(0, 3))
            }
            (Level::Explicit, O::Txq | O::SviewInfo) => args.push(src(0, 0)),
            (Level::Bias | Level::Explicit, _) => args.push(src(extra, 0)),
            (Level::Grad, _) => {
                for g in [extra, extra + 1] {
                    args.extend((0..3).map(|c| src(g, c)));
                }
            }
            _ => {}
        }
        let compare = matches!(opcode, O::Tex2 | O::SampleC | O::SampleCLz);
        if compare {
            args.push(src(extra, 0));
        }
        match opcode {
            O::Tg4 => args.push(src(1, 0)),
            O::Gather4 => args.push(TexArg::Zero),
            _ => {}
        }
        for o in 0..offsets {
            args.extend((0..3).map(|comp| TexArg::Offset { offset: o, comp }));
        }
        let op = TexOp {
            kind,
            level,
            projective,
            compare,
            target: binding.target,
            unit: binding.unit,
            sampler: binding.sampler,
            offsets,
        };
        debug_assert_eq!(op.layout().len, args.len());
        Some((op, args))
    }
}

impl fmt::Display for TexOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = format!("{:?}", self.kind).to_lowercase();
        let level = format!("{:?}", self.level).to_lowercase();
        write!(f, "{kind}.{level}")?;
        if self.projective {
            write!(f, ".proj")?;
        }
        if self.compare {
            write!(f, ".cmp")?;
        }
        write!(f, " {} unit {}", self.target, self.unit)?;
        if let Some(s) = self.sampler {
            write!(f, " sampler {s}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binding() -> TextureBinding {
        TextureBinding {
            unit: 0,
            sampler: Some(0),
            target: TextureTarget::Tex2D,
        }
    }

    #[test]
    fn arguments_follow_the_layout() {
        let src = |src, comp| TexArg::Src { src, comp };
        let (op, args) = TexOp::from_tgsi(Opcode::SampleD, binding(), 1).unwrap();
        assert_eq!((op.kind, op.level), (TexKind::Sample, Level::Grad));
        let l = op.layout();
        assert_eq!(
            (l.level, l.reference, l.offset, l.len),
            (4, None, Some(10), 13)
        );
        assert_eq!(
            args[4..10],
            [3, 4].map(|g| [0, 1, 2].map(|c| src(g, c))).concat()
        );
        let (op, args) = TexOp::from_tgsi(Opcode::Txb, binding(), 0).unwrap();
        assert_eq!(op.level, Level::Bias);
        assert_eq!(args[4], src(0, 3));
        let (op, args) = TexOp::from_tgsi(Opcode::SampleCLz, binding(), 0).unwrap();
        assert!(op.compare && op.level == Level::Zero);
        assert_eq!(args[op.layout().reference.unwrap()], src(3, 0));
        let (op, args) = TexOp::from_tgsi(Opcode::Tg4, binding(), 0).unwrap();
        assert_eq!(args[op.layout().component.unwrap()], src(1, 0));
        let (op, args) = TexOp::from_tgsi(Opcode::Txq, binding(), 0).unwrap();
        assert!(op.integer_results());
        assert_eq!(args[4], src(0, 0));
        assert!(TexOp::from_tgsi(Opcode::Add, binding(), 0).is_none());
    }

    #[test]
    fn implicit_lod_is_for_samples_from_derivatives() {
        let lod = |o| TexOp::from_tgsi(o, binding(), 0).unwrap().0.implicit_lod();
        assert!(lod(Opcode::Tex) && lod(Opcode::Txp) && lod(Opcode::Txb) && lod(Opcode::Lodq));
        assert!(!lod(Opcode::Txl) && !lod(Opcode::Txf) && !lod(Opcode::Txd));
    }
}
