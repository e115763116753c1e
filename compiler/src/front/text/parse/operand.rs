//! Operands: write masks, register files, indices (direct, indirect, 2D), registers, NV
//! condition tests, destinations, swizzles and sources with their modifiers.

use super::*;

impl Parser<'_> {
    pub(super) fn mask(&mut self) -> Result<WriteMask> {
        let mut m = 0u8;
        let mut next = 0;
        while let Some(c) = self.c.peek() {
            let Some(s) = Swizzle::from_char(c as char) else {
                break;
            };
            if s.index() < next {
                let pos = self.c.position();
                return self.invalid(pos, "mask components must be in xyzw order");
            }
            next = s.index() + 1;
            m |= 1 << s.index();
            self.c.bump();
        }
        if m == 0 {
            return self.expected("mask components (x, y, z, w)");
        }
        Ok(WriteMask(m))
    }

    pub(super) fn file(&mut self) -> Result<File> {
        self.c.blanks();
        self.c.blanks();
        let pos = self.c.position();
        let w = self.c.word();
        if let Some(f) = File::from_name(w) {
            return Ok(f);
        }
        if let Some((_, _, why)) = UNSUPPORTED_FILES
            .iter()
            .find(|(n, _, _)| n.eq_ignore_ascii_case(w))
        {
            return self.err_at(
                pos,
                TextErrorKind::UnsupportedFile {
                    name: w.into(),
                    why,
                },
            );
        }
        const FILES: &str =
            "a register file (CONST, IN, OUT, TEMP, SAMP, ADDR, IMM, SV, SVIEW, NULL)";
        if w.is_empty() {
            return self.expected(FILES);
        }
        if let Some((_, why)) = REMOVED_FILES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(w))
        {
            return self.err_at(
                pos,
                TextErrorKind::RemovedFile {
                    name: w.into(),
                    why,
                },
            );
        }
        self.err_at(
            pos,
            TextErrorKind::Expected {
                expected: FILES.into(),
                found: format!("`{w}`"),
            },
        )
    }

    /// `[...]` index: a number, or `FILE[..].c` with an optional `+n` / `-n`.
    pub(super) fn index(&mut self) -> Result<Index> {
        self.c.blanks();
        let pos = self.c.position();
        if matches!(self.c.peek(), Some(b'0'..=b'9')) {
            let v = self.uint("a register index")?;
            if v > 32767 {
                return self.invalid(pos, format!("register index {v} exceeds 32767"));
            }
            self.expect(b']', "`]`")?;
            return Ok(Index::direct(v as i32));
        }
        if self.depth >= MAX_INDEX_DEPTH {
            return self.invalid(
                pos,
                format!("indirect indices nest deeper than {MAX_INDEX_DEPTH} levels"),
            );
        }
        self.depth += 1;
        let register = self.register();
        self.depth -= 1;
        let register = register?;
        self.expect(b'.', "`.` and the address component")?;
        let cpos = self.c.position();
        let component = match self.c.peek().and_then(|c| Swizzle::from_char(c as char)) {
            Some(s) => {
                self.c.bump();
                s
            }
            None => {
                let (_, found) = self.c.error_point();
                return self.err_at(
                    cpos,
                    TextErrorKind::Expected {
                        expected: "an address component (x, y, z or w)".into(),
                        found,
                    },
                );
            }
        };
        let mut offset = 0i64;
        match self.c.peek_blank() {
            Some(b'+') => {
                self.c.bump();
                offset = self.uint("an offset")? as i64;
            }
            Some(b'-') => {
                self.c.bump();
                offset = -(self.uint("an offset")? as i64);
            }
            _ => {}
        }
        if !(-32768..=32767).contains(&offset) {
            return self.invalid(pos, format!("offset {offset} does not fit in 16 bits"));
        }
        self.expect(b']', "`]`")?;
        Ok(Index {
            offset: offset as i32,
            indirect: Some(Box::new(Indirect {
                register,
                component,
            })),
        })
    }

    pub(super) fn register(&mut self) -> Result<Register> {
        let file = self.file()?;
        let mut indices = Vec::new();
        while self.c.peek() == Some(b'[') {
            self.c.bump();
            indices.push(self.index()?);
        }
        let Some(index) = indices.pop() else {
            return self.expected("`[` and a register index");
        };
        indices.reverse();
        let mut r = Register {
            file,
            index,
            dimensions: indices,
            array_id: None,
        };
        if self.c.peek() == Some(b'(') && matches!(self.c.peek_at(1), Some(b'0'..=b'9')) {
            self.c.bump();
            let pos = self.c.position();
            let id = self.uint("an array id")?;
            if id == 0 {
                return self.invalid(pos, "array ids start at 1");
            }
            r.array_id = Some(id);
            self.expect(b')', "`)`")?;
        }
        Ok(r)
    }

    /// At `(`: is this a condition test `(EQ1.xyzw)`?
    pub(super) fn at_cond(&mut self) -> bool {
        at_cond(&mut self.c)
    }

    pub(super) fn cond(&mut self) -> Result<CondTest> {
        self.expect(b'(', "`(`")?;
        self.c.blanks();
        self.c.blanks();
        let pos = self.c.position();
        let w = self.c.word();
        let up = w.to_ascii_uppercase();
        let Some(name) = CC_NAMES.iter().find(|n| up.starts_with(**n)) else {
            return self.invalid(
                pos,
                format!("`{w}` is not a condition (GT, EQ, LT, UN, GE, LE, NE, TR, FL)"),
            );
        };
        let mask = CondMask::from_name(name).unwrap_or(CondMask::Tr);
        let digits = &w[2..];
        let index: u32 = if digits.is_empty() {
            0
        } else {
            match digits.parse() {
                Ok(v) if v <= 15 => v,
                _ => return self.invalid(pos, format!("`{w}`: condition registers are 0..15")),
            }
        };
        let mut swizzle = Swizzle::XYZW;
        if self.c.eat(b'.') {
            for s in swizzle.iter_mut() {
                match self.c.peek().and_then(|c| Swizzle::from_char(c as char)) {
                    Some(x) => {
                        *s = x;
                        self.c.bump();
                    }
                    None => return self.expected("four swizzle components"),
                }
            }
        }
        self.expect(b')', "`)`")?;
        Ok(CondTest {
            mask,
            swizzle,
            index: index as u8,
        })
    }

    pub(super) fn dst(&mut self) -> Result<Dst> {
        let register = self.register()?;
        let mut d = Dst::new(register);
        if self.c.peek() == Some(b'_') {
            let pos = self.c.position();
            let w = self.c.word();
            d.modulate = Modulate::ALL
                .iter()
                .copied()
                .find(|m| m.name().eq_ignore_ascii_case(w))
                .map_or_else(
                    || {
                        self.invalid(
                            pos,
                            format!("`{w}` is not a modulation (_1X _2X _4X _8X _D2 _D4 _D8)"),
                        )
                    },
                    Ok,
                )?;
        }
        if self.c.peek() == Some(b'.') {
            self.c.bump();
            d.write_mask = self.mask()?;
        }
        if self.at_cond() {
            d.cond = Some(self.cond()?);
        }
        Ok(d)
    }

    pub(super) fn swizzle(&mut self, s: &mut Src) -> Result<()> {
        let pos = self.c.position();
        for c in 0..4 {
            if self.c.peek() == Some(b'-') {
                self.c.bump();
                s.negate_components |= 1 << c;
            }
            let sel = self
                .c
                .peek()
                .and_then(|ch| ExtSwizzle::from_name(&(ch as char).to_string()));
            match sel {
                Some(x) => {
                    s.swizzle[c] = x;
                    self.c.bump();
                }
                None if c == 0 => return self.expected("a swizzle (four of x, y, z, w, 0, 1)"),
                None => {
                    let (_, found) = self.c.error_point();
                    return self.err_at(
                        pos,
                        TextErrorKind::Expected {
                            expected: "a swizzle of exactly four components".into(),
                            found: format!("{c} component(s), then {found}"),
                        },
                    );
                }
            }
        }
        Ok(())
    }

    pub(super) fn src(&mut self) -> Result<Src> {
        let mut s = Src::new(Register::new(File::Null, 0));
        let mut wrap_neg = false;
        if self.c.peek_blank() == Some(b'-') {
            self.c.bump();
            match self.c.peek_blank() {
                Some(b'(') => {
                    self.c.bump();
                    wrap_neg = true;
                    s.negate_after = true;
                }
                Some(b'|') => {
                    self.c.bump();
                    s.absolute = true;
                    s.negate_after = true;
                }
                _ => s.negate = true,
            }
        }
        if !s.absolute && self.c.peek_blank() == Some(b'|') {
            self.c.bump();
            s.absolute = true;
        }
        if !s.negate && self.c.peek_blank() == Some(b'-') {
            self.c.bump();
            s.negate = true;
        }
        if self.c.peek_blank() == Some(b'2') && self.c.peek_at(1) == Some(b'*') {
            self.c.bump();
            self.c.bump();
            self.expect(b'(', "`(` after `2*`")?;
            s.scale2x = true;
        }
        if self.c.peek_blank() == Some(b'1') && matches!(self.c.peek_at(1), Some(b'-' | b' ')) {
            self.c.bump();
            self.expect(b'-', "`-` after `1`")?;
            self.expect(b'(', "`(` after `1-`")?;
            s.complement = true;
        }
        if self.c.peek_blank() == Some(b'(') {
            self.c.bump();
            s.bias = true;
        }
        s.register = self.register()?;
        let mut swizzled = false;
        if self.c.peek() == Some(b'.') {
            self.c.bump();
            self.swizzle(&mut s)?;
            swizzled = true;
        }
        if s.bias {
            self.expect(b'-', "`-0.5)` closing the bias")?;
            self.c.blanks();
            let pos = self.c.position();
            let t = self.c.number_text();
            if t != "0.5" {
                return self.invalid(pos, format!("the bias form is `(x-0.5)`, found `{t}`"));
            }
            self.expect(b')', "`)` closing the bias")?;
        }
        if s.complement {
            self.expect(b')', "`)` closing `1-(`")?;
        }
        if s.scale2x {
            self.expect(b')', "`)` closing `2*(`")?;
        }
        if !swizzled && self.c.peek() == Some(b'.') {
            self.c.bump();
            self.swizzle(&mut s)?;
        }
        if self.c.peek() == Some(b'/') {
            self.c.bump();
            match self
                .c
                .peek()
                .and_then(|ch| ExtSwizzle::from_name(&(ch as char).to_string()))
            {
                Some(x) => {
                    s.divide = x;
                    self.c.bump();
                }
                None => return self.expected("a divide component (x, y, z, w, 0, 1)"),
            }
        }
        if s.absolute {
            self.expect(b'|', "`|` closing the absolute value")?;
        }
        if wrap_neg {
            self.expect(b')', "`)` closing `-(`")?;
        }
        Ok(s)
    }
}
