//! One IR instruction at a time: what each operation becomes (vector operations, the scalar
//! and transcendental sequences, the texture read, comparisons deferred to their `If`) and
//! what cannot be compiled, with the reason.

use super::math::Math;
use super::scalar::Scalar;
use super::sel::{Loc, MAX_ITERATIONS, Reg, Sel, VInst, VOp};
use crate::compile::types::TheiaError;
use crate::isa::Op as T;
use std::collections::HashSet;
use tgsic::ir::{Binary, Function, Inst, Nary, Op, Stmt, Type, Unary, Value};
use tgsic::tgsi::{Opcode, TextureTarget};

impl Sel<'_> {
    pub(super) fn inst(&mut self, i: Inst, rest: &[Stmt], color: u32) -> Result<(), TheiaError> {
        let d = &self.f.insts[i];
        self.origin = d.origin;
        let r0 = d.results.first().copied();
        match &d.op {
            // Located before selection starts.
            Op::Const(_) | Op::Input { .. } => {}
            Op::MaxIterations => {
                let v = r0.expect("result");
                self.loc[v.index()] = Some(Loc::Imm(MAX_ITERATIONS, Type::I32));
            }
            Op::Texture(t) => self.texture(i, t)?,
            Op::StoreOutput { slot, comp } => {
                if *slot != color || *comp >= 3 {
                    return Ok(());
                }
                if self.depth > 0 {
                    return Err(self.unsupported(
                        "a conditional output write",
                        "outputs are written once, at the end",
                    ));
                }
                self.outputs[*comp as usize] = Some(d.args[0]);
            }
            Op::Exhausted => {}
            Op::Discard => {
                if self.f.const_value(d.args[0]) != Some(0) {
                    // The IR discards once, at the end: name the shader's first KILL.
                    if self.origin.is_none() {
                        self.origin = self
                            .p
                            .instructions
                            .iter()
                            .position(|i| matches!(i.opcode, Opcode::Kill | Opcode::KillIf))
                            .map(|k| k as u32);
                    }
                    return Err(self.unsupported(
                        self.opname(),
                        "b1.2 cannot discard a pixel: the pixel shader always writes OREG_PIXEL_COLOR",
                    ));
                }
            }
            Op::Derivative { .. } => {
                return Err(self.unsupported(
                    self.opname(),
                    "THEIA shades one pixel at a time: there are no neighbouring pixels to differentiate against",
                ));
            }
            Op::ArrayLoad { .. } | Op::ArrayStore { .. } | Op::InputIndirect { .. } => {
                return Err(self.unsupported(
                    "indirect addressing",
                    "b1.2 registers cannot be indexed at run time",
                ));
            }
            Op::UniformIndirect { .. } | Op::ImmIndirect { .. } => {
                return Err(self.unsupported(
                    "an indirectly addressed constant",
                    "b1.2 registers cannot be indexed at run time",
                ));
            }
            Op::FCmp(_) | Op::ICmp(_) => {
                let v = r0.expect("compare result");
                if self.uses[v.index()] == 1 && used_by_if(rest, v) {
                    self.loc[v.index()] = Some(Loc::Deferred);
                    self.deferred.insert(v, i);
                } else {
                    self.compare_value(i)?;
                }
            }
            Op::Unary(u) => self.unary(i, *u, rest)?,
            Op::Binary(b) => self.binary(i, *b, rest)?,
            Op::Nary(Nary::Fma) => self.vector(i, VOp::Fma, rest)?,
            Op::Select => self.vector(i, VOp::Select, rest)?,
            _ => {
                return Err(self.unsupported(
                    self.opname(),
                    format!("THEIA b1.2 has no equivalent of {:?}", d.op),
                ));
            }
        }
        Ok(())
    }

    fn texture(&mut self, i: Inst, t: &tgsic::ir::TexOp) -> Result<(), TheiaError> {
        let d = &self.f.insts[i];
        let why_not = |s: &str| {
            Err(self.unsupported(
                format!("{} of texture unit {}", t.kind.name(), t.unit),
                s.to_string(),
            ))
        };
        if (t.kind, t.level, t.compare)
            != (
                tgsic::ir::TexKind::Sample,
                tgsic::ir::Level::Implicit,
                false,
            )
        {
            return why_not(
                "b1.2 user code cannot fetch texels: only a plain TEX of a texture coordinate maps to CREG_TEXTURE_COLOR",
            );
        }
        if t.target != TextureTarget::Tex2D || t.offsets != 0 {
            return why_not("THEIA samples one 2D texture without offsets");
        }
        let input = |v: Value| match self.f.def_inst(v).map(|k| &self.f.insts[k].op) {
            Some(Op::Input { reg, comp }) => Some((*reg, *comp)),
            _ => None,
        };
        let (Some((r0, 0)), Some((r1, 1))) = (input(d.args[0]), input(d.args[1])) else {
            return why_not(
                "the hardware samples at the hit's texture coordinate only: the coordinate must be an input's .xy, unchanged",
            );
        };
        if r0 != r1 {
            return why_not("the coordinate's x and y come from different inputs");
        }
        if t.projective {
            let w = d.args[3];
            if self.f.const_value(w) != Some(1.0f32.to_bits()) {
                return why_not("a projective divide by anything but the input's w (1.0)");
            }
        }
        match self.texture {
            Some((u, r)) if (u, r) != (t.unit, r0) => {
                return why_not(&format!(
                    "THEIA has one texture, sampled at one coordinate; this shader already samples unit {u} at IN[{r}]"
                ));
            }
            _ => self.texture = Some((t.unit, r0)),
        }
        let tex = Reg::Phys(crate::isa::register_address("CREG_TEXTURE_COLOR").expect("register"));
        for (c, &v) in d.results.iter().enumerate() {
            self.loc[v.index()] = Some(if c < 3 {
                Loc::Lane(tex, c as u8)
            } else {
                Loc::Imm(1.0f32.to_bits(), Type::F32)
            });
        }
        Ok(())
    }

    /// For `x·C` with C a finite constant outside Q15.17 of which only the fraction is used
    /// (TGSI's FRC of it, GLSL's `fract(sin(x) * 43758.5453)`, also after adding something): x
    /// and C's bits.
    fn fraction_of_big_product(&self, i: Inst) -> Option<(Value, u32)> {
        let d = &self.f.insts[i];
        let r = d.results[0];
        let big = |v: Value| {
            self.f.const_value(v).filter(|&bits| {
                let c = f32::from_bits(bits);
                c.is_finite() && crate::isa::f64_to_fixed(c as f64).is_none()
            })
        };
        let (x, c) = match (big(d.args[0]), big(d.args[1])) {
            (Some(c), None) if self.f.const_value(d.args[1]).is_none() => (d.args[1], c),
            (None, Some(c)) if self.f.const_value(d.args[0]).is_none() => (d.args[0], c),
            _ => return None,
        };
        self.only_fraction_used(r, 0).then_some((x, c))
    }

    /// Whether only the fraction of `v` is ever observed: each use is `floor(v)` read only by
    /// `v − floor(v)`, that subtraction, or a sum or difference whose result has the same
    /// property (fract(a + b) = fract(fract(a) + b), as a MAD's product feeding FRC is).
    fn only_fraction_used(&self, v: Value, depth: u32) -> bool {
        if depth > 4 {
            return false;
        }
        let users: Vec<Inst> = self
            .f
            .insts
            .iter()
            .filter(|(_, d)| d.args.contains(&v))
            .map(|(k, _)| k)
            .collect();
        // Every use is an instruction's single operand (not an If, a store, a loop value).
        if users.is_empty() || users.len() as u32 != self.uses[v.index()] {
            return false;
        }
        let floor_of_v = |w: Value| {
            self.f.def_inst(w).is_some_and(|k| {
                self.f.insts[k].op == Op::Unary(Unary::FFloor) && self.f.insts[k].args[0] == v
            })
        };
        users.iter().all(|&u| {
            let d = &self.f.insts[u];
            let (a, b) = (d.args.first().copied(), d.args.get(1).copied());
            match d.op {
                Op::Unary(Unary::FFloor) => {
                    let fl = d.results[0];
                    self.uses[fl.index()] == 1
                        && users.iter().any(|&s| {
                            self.f.insts[s].op == Op::Binary(Binary::FSub)
                                && self.f.insts[s].args == [v, fl]
                        })
                }
                Op::Binary(Binary::FSub) if a == Some(v) && b.is_some_and(floor_of_v) => true,
                Op::Binary(Binary::FAdd) | Op::Binary(Binary::FSub) => {
                    a != b && self.only_fraction_used(d.results[0], depth + 1)
                }
                _ => false,
            }
        })
    }

    fn unary(&mut self, i: Inst, u: Unary, rest: &[Stmt]) -> Result<(), TheiaError> {
        let d = &self.f.insts[i];
        let (a, r) = (d.args[0], d.results[0]);
        match u {
            Unary::FNeg | Unary::INeg => self.vector(i, VOp::Un(T::Neg), rest),
            Unary::FFloor => {
                // floor(x) read only by x − floor(x) (FRAC): nothing to compute.
                let frac_only = self.uses[r.index()] == 1
                    && rest.iter().any(|s| {
                        matches!(s, Stmt::Inst(j) if self.f.insts[*j].op == Op::Binary(Binary::FSub)
                            && self.f.insts[*j].args == [a, r])
                    });
                if frac_only {
                    self.loc[r.index()] = Some(Loc::Imm(0, Type::F32));
                    return Ok(());
                }
                self.vector(i, VOp::Floor, rest)
            }
            Unary::FCeil => self.vector(i, VOp::Ceil, rest),
            Unary::BNot => self.vector(i, VOp::BNot, rest),
            Unary::BoolToInt => self.vector(i, VOp::BoolToInt, rest),
            Unary::I2F | Unary::U2F => self.vector(i, VOp::I2F, rest),
            Unary::BoolToFloat => {
                self.loc[r.index()] = self.loc[a.index()];
                Ok(())
            }
            Unary::Bitcast => match self.loc[a.index()] {
                Some(Loc::Imm(bits, _)) => {
                    self.loc[r.index()] = Some(Loc::Imm(bits, self.f.ty(r)));
                    Ok(())
                }
                // Integer words that hold float bits (selects of float constants, TGSI's
                // `AND bool, 1.0`) are Q15.17 already: reading them as floats changes nothing.
                _ if self.float_bits.contains(&a) || self.float_bits.contains(&r) => {
                    self.loc[r.index()] = self.loc[a.index()];
                    Ok(())
                }
                _ => Err(self.unsupported(
                    self.opname(),
                    "it reinterprets float bits as an integer (or back), which has no meaning in Q15.17",
                )),
            },
            Unary::FAbs | Unary::IAbs => self.scalar(i, Scalar::Abs),
            Unary::FSat01 => self.scalar(i, Scalar::Sat(0)),
            Unary::FSat11 => self.scalar(i, Scalar::Sat(-1)),
            Unary::FSign | Unary::ISign => self.scalar(i, Scalar::Sign),
            Unary::FTrunc => self.scalar(i, Scalar::Trunc),
            Unary::FRound => self.scalar(i, Scalar::Round),
            Unary::F2I | Unary::F2U => self.scalar(i, Scalar::F2I),
            Unary::FloorToInt => self.scalar(i, Scalar::FloorToInt),
            Unary::FSqrt => {
                if self.uses[a.index()] == 1
                    && let Some(&line) = self.dots.get(&a)
                    && let VInst::Alu { op: T::Dot, dst, a: x, .. } = self.lines[line].inst
                {
                    // sqrt(dot(v, v)) = |v|: MAG takes the exact square root of the 64-bit sum.
                    self.lines[line].inst = VInst::Alu {
                        op: T::Mag,
                        dst,
                        a: x,
                        b: Reg::Void,
                    };
                    self.loc[r.index()] = self.loc[a.index()];
                    return Ok(());
                }
                // 1/√x: one sequence that keeps its precision for small x.
                if self.uses[r.index()] == 1 && self.rsq_of(r, rest) {
                    self.for_rsq.insert(r);
                    return Ok(());
                }
                self.scalar(i, Scalar::Sqrt)
            }
            Unary::FExp2 => self.math(i, Math::Exp2),
            Unary::FLg2 => self.math(i, Math::Log2),
            Unary::FSin => self.math(i, Math::Sin),
            Unary::FCos => self.math(i, Math::Cos),
            Unary::Not => self.scalar(i, Scalar::Not),
            Unary::BitRev
            | Unary::Popcount
            | Unary::FindLsb
            | Unary::FindMsbS
            | Unary::FindMsbU => Err(self.unsupported(
                self.opname(),
                "bit counting and reversal (THEIA has no bit operations besides masks by a constant)",
            )),
            Unary::FRoundF16 | Unary::FRoundFx12 => Err(self.unsupported(
                self.opname(),
                "rounding to NV half or fixed-12 precision",
            )),
        }
    }

    fn binary(&mut self, i: Inst, b: Binary, rest: &[Stmt]) -> Result<(), TheiaError> {
        let d = &self.f.insts[i];
        match b {
            Binary::FAdd | Binary::IAdd => self.vector(i, VOp::Bin(T::Add), rest),
            Binary::FSub | Binary::ISub => {
                // x·C − floor(x·C) when x·C was selected as its fraction.
                if b == Binary::FSub
                    && self.fract_done.contains(&d.args[0])
                    && let Some(k) = self.f.def_inst(d.args[1])
                    && self.f.insts[k].op == Op::Unary(Unary::FFloor)
                    && self.f.insts[k].args[0] == d.args[0]
                {
                    self.loc[d.results[0].index()] = self.loc[d.args[0].index()];
                    return Ok(());
                }
                // x − floor(x) is FRAC.
                if b == Binary::FSub
                    && let Some(k) = self.f.def_inst(d.args[1])
                    && self.f.insts[k].op == Op::Unary(Unary::FFloor)
                    && self.f.insts[k].args[0] == d.args[0]
                {
                    return self.vector(i, VOp::Frac, rest);
                }
                self.vector(i, VOp::Bin(T::Sub), rest)
            }
            Binary::FMul => {
                if let Some((x, c)) = self.fraction_of_big_product(i) {
                    let r = d.results[0];
                    let cf = f32::from_bits(c);
                    self.notes.push((
                        self.origin,
                        format!(
                            "fract(x × {cf}): the constant is outside Q15.17, so only the product's \
                             fraction is computed (exactly, by IMUL and FRAC); x's own fixed-point \
                             error is multiplied by {}, so the result is a hash of x, not the \
                             float value",
                            cf.abs()
                        ),
                    ));
                    self.scalar_of(i, &[x], c, Scalar::FracMul)?;
                    self.fract_done.insert(r);
                    return Ok(());
                }
                self.vector(i, VOp::Bin(T::Mul), rest)
            }
            Binary::IMul => self.vector(i, VOp::Bin(T::Imul), rest),
            Binary::FDiv => {
                if let Some(k) = self.f.def_inst(d.args[1])
                    && self.f.insts[k].op == Op::Unary(Unary::FSqrt)
                    && self.for_rsq.contains(&d.args[1])
                {
                    // The square root was left for this RSQ.
                    let x = self.f.insts[k].args[0];
                    return self.scalar_of(i, &[x], 0, Scalar::Rsq);
                }
                self.vector(i, VOp::Bin(T::Div), rest)
            }
            Binary::BAnd => self.vector(i, VOp::Bin(T::Mul), rest),
            Binary::BOr => self.vector(i, VOp::BOr, rest),
            // An integer AND with a constant mask is one MOD (A & (B − 1.0)).
            Binary::And if !self.float_bits.contains(&d.results[0]) => {
                let (x, y) = (d.args[0], d.args[1]);
                match (self.f.const_value(x), self.f.const_value(y)) {
                    (_, Some(k)) => self.scalar_of(i, &[x], k, Scalar::AndConst),
                    (Some(k), _) => self.scalar_of(i, &[y], k, Scalar::AndConst),
                    _ => Err(self.unsupported(
                        self.opname(),
                        "a bitwise AND of two computed values (only masks by a constant are one MOD)",
                    )),
                }
            }
            Binary::ShrU | Binary::ShrS if self.f.const_value(d.args[1]).is_some() => {
                let k = self.f.const_value(d.args[1]).unwrap_or(0) & 31;
                let s = if b == Binary::ShrU {
                    Scalar::ShrU
                } else {
                    Scalar::ShrS
                };
                self.scalar_of(i, &[d.args[0]], k, s)
            }
            Binary::IDivS => self.scalar(i, Scalar::IDiv),
            Binary::IRemS => self.scalar(i, Scalar::IRem),
            // Unsigned division by a power of two is a shift, the remainder a mask.
            Binary::IDivU | Binary::IRemU
                if self
                    .f
                    .const_value(d.args[1])
                    .is_some_and(|k| k.is_power_of_two()) =>
            {
                let k = self.f.const_value(d.args[1]).unwrap_or(1);
                if b == Binary::IDivU {
                    self.scalar_of(i, &[d.args[0]], k.trailing_zeros(), Scalar::ShrU)
                } else {
                    self.scalar_of(i, &[d.args[0]], k - 1, Scalar::AndConst)
                }
            }
            Binary::IDivU | Binary::IRemU => Err(self.unsupported(
                self.opname(),
                "unsigned division by anything but a constant power of two (THEIA's divider is signed)",
            )),
            Binary::ShrU | Binary::ShrS => Err(self.unsupported(
                self.opname(),
                "a shift by a computed amount (only constant shifts become multiplies)",
            )),
            Binary::Shl if self.f.const_value(d.args[1]).is_some() => self.scalar(i, Scalar::Shl),
            Binary::Shl => Err(self.unsupported(
                self.opname(),
                "a shift by a computed amount (only constant shifts become multiplies)",
            )),
            Binary::FPow => self.math(i, Math::Pow),
            Binary::FMin | Binary::IMinS => self.scalar(i, Scalar::Min),
            Binary::FMax | Binary::IMaxS => self.scalar(i, Scalar::Max),
            Binary::And | Binary::Or | Binary::Xor => Err(self.unsupported(
                self.opname(),
                "a bitwise operation on computed words (THEIA's only bit operation is MOD, a mask by a constant)",
            )),
            Binary::IMinU | Binary::IMaxU | Binary::UAbsDiff => Err(self.unsupported(
                self.opname(),
                "an unsigned comparison (Q15.17 words are signed)",
            )),
            Binary::IMulHiS | Binary::IMulHiU => Err(self.unsupported(
                self.opname(),
                "the high half of a 64-bit product (MUL and IMUL keep the low 32 bits)",
            )),
            _ => Err(self.unsupported(self.opname(), format!("{b:?} has no THEIA lowering"))),
        }
    }
}

/// Integer-typed values whose bits are read as floats: stored to the colour, or moved there by
/// selects.
pub(super) fn float_bits(f: &Function) -> HashSet<Value> {
    let mut out = HashSet::new();
    let mut work = Vec::new();
    f.for_each_inst(|i| {
        let d = &f.insts[i];
        match d.op {
            Op::StoreOutput { .. } => work.push(d.args[0]),
            Op::Unary(Unary::Bitcast) if f.ty(d.results[0]) == Type::F32 => work.push(d.args[0]),
            _ => {}
        }
    });
    while let Some(v) = work.pop() {
        if f.ty(v) != Type::I32 || !out.insert(v) {
            continue;
        }
        if let Some(i) = f.def_inst(v)
            && f.insts[i].op == Op::Select
        {
            work.push(f.insts[i].args[1]);
            work.push(f.insts[i].args[2]);
        }
    }
    out
}

impl Sel<'_> {
    /// Whether `1.0 / r` is among `rest` (the same block).
    fn rsq_of(&self, r: Value, rest: &[Stmt]) -> bool {
        rest.iter().any(|s| {
            matches!(s, Stmt::Inst(j)
                if self.f.insts[*j].op == Op::Binary(Binary::FDiv)
                    && self.f.insts[*j].args[1] == r
                    && self.f.const_value(self.f.insts[*j].args[0]) == Some(1.0f32.to_bits()))
        })
    }
}

/// Whether `v` is the condition of an `If` among `rest` (same block).
fn used_by_if(rest: &[Stmt], v: Value) -> bool {
    rest.iter().any(|s| matches!(s, Stmt::If(x) if x.cond == v))
}
