//! Operands of an instruction: register indices (2D, indirect), sources with their swizzles and
//! modifiers, destinations with their write masks.

use super::*;

impl Decoder<'_> {
    /// The indirect register and DIMENSION chain that follow a register token.
    pub(super) fn indices(
        &mut self,
        cur: &mut Cursor,
        indirect: bool,
        dimension: bool,
        reg: &mut Register,
    ) -> Result<(), DecodeError> {
        if indirect {
            reg.index.indirect = Some(Box::new(self.indirect(cur)?));
        }
        let mut more = dimension;
        while more {
            let (i, d) = cur.next(self.words, "a DIMENSION token")?;
            let ind = field(d, 0, 0) != 0;
            more = field(d, 1, 1) != 0;
            padding(d, 2, 14, i)?;
            for (j, e) in self.ext_chain(d, cur, "a DIMENSION extension token")? {
                self.warn(
                    j,
                    format!(
                        "unknown DIMENSION extension type {} skipped",
                        field(e, 0, 3)
                    ),
                );
            }
            let mut index = Index::direct(sext16(field(d, 15, 30)));
            if ind {
                index.indirect = Some(Box::new(self.indirect(cur)?));
            }
            reg.dimensions.push(index);
        }
        Ok(())
    }

    /// An indirect SRC_REGISTER: only its file, index and SwizzleX matter.
    pub(super) fn indirect(&mut self, cur: &mut Cursor) -> Result<Indirect, DecodeError> {
        let at = cur.pos;
        let s = self.src(cur, "the indirect SRC_REGISTER token")?;
        if s.negate || s.has_ext_mod() || s.needs_ext_swizzle() {
            return err(
                at,
                "SRC_REGISTER",
                K::Unsupported(
                    "an indirect address register with a modifier or extended swizzle".into(),
                ),
            );
        }
        let component = s.swizzle[0].component().unwrap_or(Swizzle::X);
        Ok(Indirect {
            register: s.register,
            component,
        })
    }

    pub(super) fn src(&mut self, cur: &mut Cursor, what: &'static str) -> Result<Src, DecodeError> {
        let (pos, w) = cur.next(self.words, what)?;
        let file = file_value(field(w, 0, 3), pos)?;
        let base = [
            swizzle2(w, 4),
            swizzle2(w, 6),
            swizzle2(w, 8),
            swizzle2(w, 10),
        ];
        let mut src = Src::new(Register::new(file, sext16(field(w, 15, 30))));
        src.swizzle = base.map(ExtSwizzle::from);
        src.negate = field(w, 12, 12) != 0;
        let indirect = field(w, 13, 13) != 0;
        let dimension = field(w, 14, 14) != 0;
        for (i, e) in self.ext_chain(w, cur, "a SRC_REGISTER extension token")? {
            match field(e, 0, 3) {
                src_ext::SWZ => {
                    let mut sel = [ExtSwizzle::X; 4];
                    for (c, s) in sel.iter_mut().enumerate() {
                        let lo = 4 + 4 * c as u32;
                        let raw = field(e, lo, lo + 3);
                        let ext = enum_value(ExtSwizzle::from_bits(raw), raw, i, "ExtSwizzle")?;
                        // The extended swizzle selects from the base-swizzled register.
                        *s = match ext.component() {
                            Some(comp) => ExtSwizzle::from(base[comp.index()]),
                            None => ext,
                        };
                    }
                    src.swizzle = sel;
                    src.negate_components = field(e, 20, 23) as u8;
                    let div = field(e, 24, 27);
                    let div = enum_value(ExtSwizzle::from_bits(div), div, i, "ExtDivide")?;
                    src.divide = match div.component() {
                        Some(comp) => ExtSwizzle::from(base[comp.index()]),
                        None => div,
                    };
                    padding(e, 28, 30, i)?;
                }
                src_ext::MOD => {
                    src.complement = field(e, 4, 4) != 0;
                    src.bias = field(e, 5, 5) != 0;
                    src.scale2x = field(e, 6, 6) != 0;
                    src.absolute = field(e, 7, 7) != 0;
                    src.negate_after = field(e, 8, 8) != 0;
                    padding(e, 9, 30, i)?;
                }
                src_ext::ARRAY => {
                    let id = field(e, 4, 19);
                    src.register.array_id = (id != 0).then_some(id);
                    padding(e, 20, 30, i)?;
                }
                t => self.warn(
                    i,
                    format!("unknown SRC_REGISTER extension type {t} skipped"),
                ),
            }
        }
        self.indices(cur, indirect, dimension, &mut src.register)?;
        Ok(src)
    }

    pub(super) fn dst(&mut self, cur: &mut Cursor) -> Result<Dst, DecodeError> {
        let (pos, w) = cur.next(self.words, "a DST_REGISTER token")?;
        let file = file_value(field(w, 0, 3), pos)?;
        let mut dst = Dst::new(Register::new(file, sext16(field(w, 10, 25))));
        dst.write_mask = WriteMask(field(w, 4, 7) as u8);
        let indirect = field(w, 8, 8) != 0;
        let dimension = field(w, 9, 9) != 0;
        padding(w, 26, 30, pos)?;
        for (i, e) in self.ext_chain(w, cur, "a DST_REGISTER extension token")? {
            match field(e, 0, 3) {
                dst_ext::CONDCODE => {
                    let test = CondTest {
                        mask: enum_value(
                            CondMask::from_bits(field(e, 4, 7)),
                            field(e, 4, 7),
                            i,
                            "CondMask",
                        )?,
                        swizzle: [
                            swizzle2(e, 8),
                            swizzle2(e, 10),
                            swizzle2(e, 12),
                            swizzle2(e, 14),
                        ],
                        index: field(e, 16, 19) as u8,
                    };
                    padding(e, 20, 30, i)?;
                    dst.cond = (!test.is_default()).then_some(test);
                }
                dst_ext::MODULATE => {
                    let m = field(e, 4, 7);
                    dst.modulate = enum_value(Modulate::from_bits(m), m, i, "Modulate")?;
                    padding(e, 8, 30, i)?;
                }
                dst_ext::ARRAY => {
                    let id = field(e, 4, 19);
                    dst.register.array_id = (id != 0).then_some(id);
                    padding(e, 20, 30, i)?;
                }
                t => self.warn(
                    i,
                    format!("unknown DST_REGISTER extension type {t} skipped"),
                ),
            }
        }
        self.indices(cur, indirect, dimension, &mut dst.register)?;
        Ok(dst)
    }
}
