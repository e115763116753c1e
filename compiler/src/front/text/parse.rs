//! The parser: Mesa's text dialect, the 2008 parser's extras and tgsic's documented notation.

mod operand;

use super::cursor::Cursor;
use crate::tgsi::*;
use thiserror::Error;

/// What went wrong while parsing text.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TextErrorKind {
    /// Something other than what the grammar allows here.
    #[error("expected {expected}, found {found}")]
    Expected {
        /// What the grammar allows.
        expected: String,
        /// What is there.
        found: String,
    },
    /// An opcode name that no table has.
    #[error("unknown opcode `{0}`")]
    UnknownOpcode(String),
    /// An out-of-scope opcode.
    #[error("unsupported opcode `{name}`: {reason} are out of scope")]
    UnsupportedOpcode {
        /// The name.
        name: String,
        /// Why it is out of scope.
        reason: &'static str,
    },
    /// A register file tgsic does not read.
    #[error("unsupported register file `{name}`: {why}")]
    UnsupportedFile {
        /// The name as written.
        name: String,
        /// What it is and why it is not read.
        why: &'static str,
    },
    /// A register file that Mesa's text once had and later removed.
    #[error("unsupported register file `{name}`: {why}")]
    RemovedFile {
        /// The name as written.
        name: String,
        /// What it was and when it went away.
        why: &'static str,
    },
    /// A processor tgsic does not handle (tessellation).
    #[error("unsupported processor `{0}` (tessellation shaders are out of scope)")]
    UnsupportedProcessor(String),
    /// A value outside its range, a duplicate, or another rule of the dialect.
    #[error("{0}")]
    Invalid(String),
}

/// A text error with its position.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{line}:{column}: {kind}")]
pub struct TextError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    /// What is wrong.
    pub kind: TextErrorKind,
}

type Result<T> = std::result::Result<T, TextError>;

/// Parses TGSI text into a program. Positions are recorded in the program's source map.
///
/// Everything tgsi_dump prints is accepted: numbered lines, labels (read; structured-control-flow
/// labels are not trusted), `IMM[n]` with decimal or hex values, 2D and indirect registers, the
/// legacy opcode names; plus the 2008 parser's modifiers and tgsic's notation for the binary-only
/// features (`docs/text-format.md`). The result is not validated: see [`crate::valid`].
///
/// # Errors
/// [`TextError`] with the line, column and what was expected.
pub fn parse(text: &str) -> Result<Program> {
    Parser {
        c: Cursor::new(text),
        blocks: Vec::new(),
        depth: 0,
    }
    .program()
}

struct Parser<'a> {
    c: Cursor<'a>,
    /// Open blocks, only to tell the NV `ENDLOOP` (ENDFOR) from the GLSL one.
    blocks: Vec<Opcode>,
    /// Nesting depth of indirect indices (bounded, so hostile input cannot exhaust the stack).
    depth: u32,
}

/// How deeply indirect indices may nest (`TEMP[TEMP[TEMP[0].x].y]` is 2).
const MAX_INDEX_DEPTH: u32 = 16;

const CC_NAMES: [&str; 9] = ["GT", "EQ", "LT", "UN", "GE", "LE", "NE", "TR", "FL"];

impl Parser<'_> {
    fn err_at<T>(&self, (line, column): (u32, u32), kind: TextErrorKind) -> Result<T> {
        Err(TextError { line, column, kind })
    }

    /// "expected WHAT, found ...", at the end of the line when the line ended before WHAT
    /// (see [`Cursor::error_point`]), otherwise at the token that is there instead.
    fn expected<T>(&mut self, what: &str) -> Result<T> {
        let (pos, found) = self.c.error_point();
        self.err_at(
            pos,
            TextErrorKind::Expected {
                expected: what.into(),
                found,
            },
        )
    }

    fn invalid<T>(&self, pos: (u32, u32), msg: impl Into<String>) -> Result<T> {
        self.err_at(pos, TextErrorKind::Invalid(msg.into()))
    }

    fn expect(&mut self, ch: u8, what: &str) -> Result<()> {
        if self.c.eat(ch) {
            Ok(())
        } else {
            self.expected(what)
        }
    }

    fn here(&mut self) -> Location {
        self.c.blanks();
        let (line, column) = self.c.position();
        Location::Text { line, column }
    }

    fn uint(&mut self, what: &str) -> Result<u32> {
        self.c.blanks();
        if !matches!(self.c.peek(), Some(b'0'..=b'9')) {
            return self.expected(what);
        }
        let pos = self.c.position();
        let t = self.c.integer_text();
        if t.len() > 1 && t.as_bytes()[1].eq_ignore_ascii_case(&b'x') {
            // Mesa's parse_uint reads decimal digits only: `0x10` would stop it at the `x`.
            return self.invalid(pos, format!("`{t}` is not {what}: write it in decimal"));
        }
        t.parse::<u32>()
            .map_or_else(|_| self.invalid(pos, format!("`{t}` is not {what}")), Ok)
    }

    fn program(mut self) -> Result<Program> {
        self.c.start_statement();
        let pos = self.c.position();
        let head = self.c.word();
        let (name, version) = match head.find(|c: char| c.is_ascii_digit()) {
            Some(k) if head[..k].chars().all(|c| c.is_ascii_alphabetic()) && k > 0 => {
                head.split_at(k)
            }
            _ => (head, ""),
        };
        let processor = match Processor::from_name(name) {
            Some(p) => p,
            None if matches!(
                name.to_ascii_uppercase().as_str(),
                "TESS_CTRL" | "TESS_EVAL"
            ) =>
            {
                return self.err_at(pos, TextErrorKind::UnsupportedProcessor(name.into()));
            }
            None => {
                if head.is_empty() {
                    return self.expected("a processor header (FRAG, VERT, GEOM or COMP)");
                }
                let found = format!("`{head}`");
                return self.err_at(
                    pos,
                    TextErrorKind::Expected {
                        expected: "a processor header (FRAG, VERT, GEOM or COMP)".into(),
                        found,
                    },
                );
            }
        };
        let mut program = Program::new(processor);
        if !version.is_empty() {
            // The 2008 header form: FRAG1.1.
            let major: u8 = version.parse().map_err(|_| TextError {
                line: pos.0,
                column: pos.1,
                kind: TextErrorKind::Invalid(format!("bad version in `{head}`")),
            })?;
            self.expect(b'.', "`.` and the minor version")?;
            let minor = self.uint("a minor version")?;
            if major != 1 || minor > 255 {
                return self.invalid(
                    pos,
                    format!("version {major}.{minor} is not supported (only 1.x)"),
                );
            }
            program.revision = Revision {
                major,
                minor: minor as u8,
            };
        }
        self.end_of_statement()?;
        loop {
            self.c.start_statement();
            if self.c.peek().is_none() {
                break;
            }
            self.statement(&mut program)?;
            self.end_of_statement()?;
        }
        Ok(program)
    }

    /// Statements are separated by white space (blanks or newlines), as in Mesa's parser: a
    /// whole shader may sit on one line.
    fn end_of_statement(&mut self) -> Result<()> {
        if self.c.token_separated() {
            Ok(())
        } else {
            self.expected("white space or a new line after the statement")
        }
    }

    fn statement(&mut self, p: &mut Program) -> Result<()> {
        // Optional instruction number: `  12:`.
        if matches!(self.c.peek(), Some(b'0'..=b'9')) {
            self.c.integer_text();
            self.expect(b':', "`:` after the instruction number")?;
        }
        let at = self.here();
        let pos = self.c.position();
        let word = self.c.peek_word();
        match word.to_ascii_uppercase().as_str() {
            "DCL" => {
                self.c.word();
                let d = self.declaration(p.processor)?;
                p.declarations.push(d);
                p.source_map.declarations.push(at);
            }
            "IMM" => {
                self.c.word();
                let imm = self.immediate(p.immediates.len())?;
                p.immediates.push(imm);
                p.source_map.immediates.push(at);
            }
            "PROPERTY" => {
                self.c.word();
                let prop = self.property()?;
                p.properties.push(prop);
                p.source_map.properties.push(at);
            }
            "" => return self.expected("a declaration, immediate, property or instruction"),
            _ => {
                let mut loc = InstLocation {
                    at,
                    ..Default::default()
                };
                let inst = self.instruction(pos, &mut loc)?;
                p.instructions.push(inst);
                p.source_map.instructions.push(loc);
            }
        }
        Ok(())
    }

    fn property(&mut self) -> Result<Property> {
        self.c.blanks();
        let pos = self.c.position();
        let w = self.c.word();
        let Some(name) = PropertyName::from_name(w) else {
            return if w.is_empty() {
                self.expected("a property name")
            } else {
                self.invalid(pos, format!("unknown property `{w}`"))
            };
        };
        self.c.blanks();
        let vpos = self.c.position();
        let v = self.c.word();
        match name.parse_value(v) {
            Some(value) => Ok(Property { name, value }),
            None if v.is_empty() => self.expected("a property value"),
            None => self.invalid(vpos, format!("`{v}` is not a value of {name}")),
        }
    }

    fn immediate(&mut self, count: usize) -> Result<Immediate> {
        if self.c.eat(b'[') {
            let pos = self.c.position();
            let n = self.uint("the immediate's index")?;
            if n as usize != count {
                return self.invalid(pos, format!("immediates must be numbered in order: expected IMM[{count}], found IMM[{n}]"));
            }
            self.expect(b']', "`]`")?;
        }
        self.c.blanks();
        self.c.blanks();
        let pos = self.c.position();
        let w = self.c.word();
        const TYPES: &str = "an immediate type (FLT32, UINT32, INT32, FLT64, UINT64 or INT64)";
        let ty = match ImmediateType::from_name(w) {
            Some(t) => t,
            None if w.is_empty() => {
                return self.expected(TYPES);
            }
            None => {
                return self.err_at(
                    pos,
                    TextErrorKind::Expected {
                        expected: TYPES.into(),
                        found: format!("`{w}`"),
                    },
                );
            }
        };
        self.expect(b'{', "`{`")?;
        let mut values = Vec::new();
        loop {
            self.c.blanks();
            let pos = self.c.position();
            let t = self.c.number_text();
            if t.is_empty() {
                return self.expected("an immediate value");
            }
            let v = match ty {
                ImmediateType::Float32 => parse_f32_bits(t).map(u64::from),
                ImmediateType::Uint32 => parse_u32(t).map(u64::from),
                ImmediateType::Int32 => parse_i32_bits(t).map(u64::from),
                ImmediateType::Float64 => parse_f64_bits(t),
                ImmediateType::Uint64 => parse_u64(t),
                ImmediateType::Int64 => parse_i64_bits(t),
            };
            match v {
                // A 64-bit value takes two words, low word first.
                Some(v) if ty.is_64_bit() => values.extend([v as u32, (v >> 32) as u32]),
                Some(v) => values.push(v as u32),
                None => return self.invalid(pos, format!("`{t}` is not a {ty} value")),
            }
            if self.c.eat(b'}') {
                break;
            }
            self.expect(b',', "`,` or `}`")?;
        }
        Ok(Immediate { ty, values })
    }

    fn declaration(&mut self, processor: Processor) -> Result<Declaration> {
        let file = self.file()?;
        let mut brackets: Vec<(Vec<RegRange>, (u32, u32))> = Vec::new();
        let mut empty_first = None;
        while self.c.eat(b'[') {
            let pos = self.c.position();
            if self.c.eat(b']') {
                if !brackets.is_empty() || empty_first.is_some() {
                    return self.invalid(
                        pos,
                        "only the first bracket of a declaration may be empty `[]`",
                    );
                }
                empty_first = Some(pos);
                continue;
            }
            let mut ranges = Vec::new();
            loop {
                let first = self.uint("a register index")?;
                let last = if self.c.eat(b'.') {
                    self.expect(b'.', "`..`")?;
                    self.uint("the last register index")?
                } else {
                    first
                };
                if last < first {
                    return self.invalid(pos, format!("range {first}..{last} is reversed"));
                }
                ranges.push(RegRange::new(first, last));
                if !self.c.eat(b',') {
                    break;
                }
            }
            self.expect(b']', "`]`")?;
            brackets.push((ranges, pos));
        }
        if let Some(pos) = empty_first
            && !(processor == Processor::Geometry && file == File::Input)
        {
            return self.invalid(pos, "`[]` is only for geometry-shader inputs");
        }
        let mut decl = Declaration::new(file, 0, 0);
        match brackets.len() {
            0 => return self.expected("`[` and the declared registers"),
            1 => decl.ranges = brackets.pop().map(|b| b.0).unwrap_or_default(),
            2 => {
                let (ranges, _) = brackets.pop().unwrap_or_default();
                let (dim, pos) = brackets.pop().unwrap_or_default();
                if dim.len() != 1 || dim[0].first != dim[0].last {
                    return self.invalid(pos, "the first bracket of a 2D declaration is one index");
                }
                decl.dimension = Some(dim[0].first);
                decl.ranges = ranges;
            }
            _ => {
                let pos = brackets[2].1;
                return self.invalid(pos, "a declaration has at most two brackets");
            }
        }
        if self.c.peek_blank() == Some(b'.') {
            self.c.bump();
            decl.usage_mask = self.mask()?;
        }
        while self.c.eat(b',') {
            self.c.blanks();
            let pos = self.c.position();
            let w = self.c.word();
            let up = w.to_ascii_uppercase();
            let dup = |name: &str| format!("{name} is given twice");
            match up.as_str() {
                "" => return self.expected("a declaration attribute"),
                "ARRAY" => {
                    if decl.array_id.is_some() {
                        return self.invalid(pos, dup("ARRAY"));
                    }
                    self.expect(b'(', "`(`")?;
                    let id = self.uint("an array id")?;
                    if id == 0 {
                        return self.invalid(pos, "array ids start at 1");
                    }
                    decl.array_id = Some(id);
                    self.expect(b')', "`)`")?;
                }
                "LOCAL" => decl.local = true,
                "INVARIANT" => decl.invariant = true,
                "ATOMIC" if file == File::Buffer => decl.atomic = true,
                "WR" | "RAW" if decl.image.is_some() => {
                    if let Some(img) = decl.image.as_mut() {
                        if up == "WR" {
                            img.writable = true;
                        } else {
                            img.raw = true;
                        }
                    }
                }
                _ if file == File::Memory && MemoryType::from_name(w).is_some() => {
                    if decl.memory.is_some() {
                        return self.invalid(pos, dup("the memory type"));
                    }
                    decl.memory = MemoryType::from_name(w);
                }
                _ if file == File::Image && TextureTarget::from_name(w).is_some() => {
                    if decl.image.is_some() {
                        return self.invalid(pos, dup("the image target"));
                    }
                    let target = TextureTarget::from_name(w).unwrap_or(TextureTarget::Tex2D);
                    self.expect(
                        b',',
                        "`,` and the image format (`PIPE_FORMAT_R8G8B8A8_UNORM`)",
                    )?;
                    let format = self.image_format()?;
                    decl.image = Some(ImageDecl {
                        target,
                        format,
                        writable: false,
                        raw: false,
                    });
                }
                "STREAM" => {
                    let Some(s) = decl.semantic.as_mut() else {
                        return self.invalid(pos, "STREAM must follow a semantic");
                    };
                    self.expect(b'(', "`(`")?;
                    for k in 0..4 {
                        if k > 0 {
                            self.expect(b',', "`,`")?;
                        }
                        let v = self.uint("a stream number")?;
                        if v > 3 {
                            return self.invalid(pos, "stream numbers are 0..3");
                        }
                        s.streams[k] = v as u8;
                    }
                    self.expect(b')', "`)`")?;
                }
                _ => {
                    let semantic = Semantic::from_name(w);
                    let interp = Interpolation::from_name(w);
                    if let Some(name) = semantic.filter(|_| decl.semantic.is_none()) {
                        let mut index = 0;
                        if self.c.eat(b'[') {
                            index = self.uint("a semantic index")?;
                            self.expect(b']', "`]`")?;
                        }
                        decl.semantic = Some(SemanticDecl {
                            name,
                            index,
                            streams: [0; 4],
                        });
                    } else if let Some(i) = interp {
                        if decl.interpolation.is_some() {
                            return self.invalid(pos, dup("the interpolation"));
                        }
                        decl.interpolation = Some(i);
                    } else if let Some(l) = InterpLocation::from_name(w) {
                        decl.location = l;
                    } else if let Some(t) = TextureTarget::from_name(w) {
                        if decl.sampler_view.is_some() {
                            return self.invalid(pos, dup("the resource target"));
                        }
                        self.expect(b',', "`,` and the return type")?;
                        let mut types = vec![self.return_type()?];
                        while types.len() < 4 && self.c.peek_blank() == Some(b',') {
                            // Another return type, or the next attribute?
                            let rest = self.peek_after_comma();
                            if ReturnType::from_name(&rest).is_none() {
                                break;
                            }
                            self.c.eat(b',');
                            types.push(self.return_type()?);
                        }
                        let rt = match types.len() {
                            1 => [types[0]; 4],
                            4 => [types[0], types[1], types[2], types[3]],
                            n => {
                                return self.invalid(
                                    pos,
                                    format!("a sampler view takes 1 or 4 return types, found {n}"),
                                );
                            }
                        };
                        decl.sampler_view = Some(SamplerViewDecl {
                            target: t,
                            return_types: rt,
                        });
                    } else if semantic.is_some() {
                        return self.invalid(pos, dup("the semantic"));
                    } else {
                        return self.invalid(pos, format!("unknown declaration attribute `{w}`"));
                    }
                }
            }
        }
        Ok(decl)
    }

    /// An image format name (`PIPE_FORMAT_R32_SINT`).
    fn image_format(&mut self) -> Result<ImageFormat> {
        self.c.blanks();
        let pos = self.c.position();
        let w = self.c.word();
        if w.is_empty() {
            return self.expected("an image format (`PIPE_FORMAT_R8G8B8A8_UNORM`)");
        }
        match ImageFormat::from_name(w) {
            Some(f) => Ok(f),
            None => self.invalid(pos, format!("unknown or unsupported image format `{w}`")),
        }
    }

    /// The word after the next comma, without consuming anything.
    fn peek_after_comma(&mut self) -> String {
        let mut copy = self.c.clone();
        copy.eat(b',');
        copy.word().to_string()
    }

    fn return_type(&mut self) -> Result<ReturnType> {
        self.c.blanks();
        self.c.blanks();
        let pos = self.c.position();
        let w = self.c.word();
        if w.is_empty() {
            return self.expected("a return type (UNORM, SNORM, SINT, UINT or FLOAT)");
        }
        ReturnType::from_name(w).map_or_else(
            || {
                self.err_at(
                    pos,
                    TextErrorKind::Expected {
                        expected: "a return type (UNORM, SNORM, SINT, UINT or FLOAT)".into(),
                        found: format!("`{w}`"),
                    },
                )
            },
            Ok,
        )
    }

    /// The opcode word with its suffixes.
    fn opcode(&mut self, pos: (u32, u32)) -> Result<Instruction> {
        let w = self.c.word();
        let parts: Vec<&str> = w.split('_').collect();
        for k in (1..=parts.len()).rev() {
            let name = parts[..k].join("_");
            let Some(op) = Opcode::from_name(&name) else {
                continue;
            };
            let mut inst = Instruction::new(op, Vec::new(), Vec::new());
            if self.suffixes(&mut inst, &parts[k..]) {
                return Ok(inst);
            }
        }
        for k in (1..=parts.len()).rev() {
            let name = parts[..k].join("_");
            if let Some(reason) = Opcode::out_of_scope_reason(&name) {
                return self.err_at(pos, TextErrorKind::UnsupportedOpcode { name, reason });
            }
        }
        self.err_at(pos, TextErrorKind::UnknownOpcode(w.into()))
    }

    /// Applies `_SAT`, `_SATNV`, `_PRECISE`, `_FP32`/`_FP16`/`_FX12` and `_CCn`; false if a part
    /// is not a suffix.
    fn suffixes(&self, inst: &mut Instruction, parts: &[&str]) -> bool {
        for p in parts {
            let up = p.to_ascii_uppercase();
            match up.as_str() {
                "SAT" if inst.saturate == Saturate::None => inst.saturate = Saturate::ZeroOne,
                "SATNV" if inst.saturate == Saturate::None => {
                    inst.saturate = Saturate::MinusPlusOne
                }
                "PRECISE" => inst.precise = true,
                "FP32" => inst.precision = Precision::Float32,
                "FP16" => inst.precision = Precision::Float16,
                "FX12" => inst.precision = Precision::Fixed12,
                _ => match up.strip_prefix("CC").map(str::parse::<u8>) {
                    Some(Ok(n)) if n <= 15 => inst.cond_update = Some(n),
                    _ => return false,
                },
            }
        }
        true
    }

    fn instruction(&mut self, pos: (u32, u32), loc: &mut InstLocation) -> Result<Instruction> {
        let mut inst = self.opcode(pos)?;
        // ENDLOOP closes an NV LOOP (BGNFOR) when that is the innermost open block.
        if inst.opcode == Opcode::EndLoop && self.blocks.last() == Some(&Opcode::BgnFor) {
            inst.opcode = Opcode::EndFor;
        }
        match inst.opcode.flow() {
            Some(FlowOp::If | FlowOp::BeginLoop(_) | FlowOp::Switch | FlowOp::BeginSub) => {
                self.blocks.push(inst.opcode);
            }
            Some(FlowOp::EndIf | FlowOp::EndLoop(_) | FlowOp::EndSwitch | FlowOp::EndSub) => {
                self.blocks.pop();
            }
            _ => {}
        }
        if self.at_cond() {
            inst.cond_test = Some(self.cond()?);
        }
        let info = inst.opcode.info();
        let mut first = true;
        for _ in 0..info.num_dst {
            if !first {
                self.expect(b',', "`,` and another operand")?;
            }
            first = false;
            loc.dst.push(self.here());
            inst.dst.push(self.dst()?);
        }
        let (min, max) = info.num_src;
        for k in 0..max {
            if k >= min {
                // An optional operand is present only if one follows.
                let more = if first {
                    let mut copy = self.c.clone();
                    operand_starts(&mut copy)
                } else {
                    self.operand_after_comma()
                };
                if !more {
                    break;
                }
            }
            if !first {
                self.expect(
                    b',',
                    &format!("`,` and source operand {k} of {}", info.name),
                )?;
            }
            first = false;
            loc.src.push(self.here());
            inst.src.push(self.src()?);
        }
        // Memory qualifiers, target and format.
        if inst.opcode.is_memory() {
            self.memory_trailer(&mut inst)?;
        }
        // Texture target and offsets.
        if self.c.peek_blank() == Some(b',') && !inst.opcode.is_memory() {
            let w = self.peek_after_comma();
            if let Some(t) = TextureTarget::from_name(&w) {
                self.c.eat(b',');
                self.c.word();
                inst.texture = Some(t);
                while self.c.peek_blank() == Some(b',') {
                    self.c.bump();
                    let file = self.file()?;
                    self.expect(b'[', "`[`")?;
                    self.c.blanks();
                    let ipos = self.c.position();
                    let t = self.c.number_text();
                    let index = match parse_i32_bits(t).map(|v| v as i32) {
                        Some(v) if (-32768..=32767).contains(&v) => v,
                        _ => return self.invalid(ipos, format!("`{t}` is not a register index")),
                    };
                    self.expect(b']', "`]`")?;
                    self.expect(b'.', "`.` and three offset components")?;
                    let mut swizzle = [Swizzle::X; 3];
                    for s in swizzle.iter_mut() {
                        match self.c.peek().and_then(|c| Swizzle::from_char(c as char)) {
                            Some(x) => {
                                *s = x;
                                self.c.bump();
                            }
                            None => return self.expected("three offset components"),
                        }
                    }
                    inst.tex_offsets.push(TexOffset {
                        file,
                        index,
                        swizzle,
                    });
                }
            } else if self.operand_after_comma() {
                let (lo, hi) = info.num_src;
                let n = if lo == hi {
                    format!("{lo}")
                } else {
                    format!("{lo} to {hi}")
                };
                let p = self.c.position();
                return self.invalid(p, format!(
                    "{} takes {} destination(s) and {n} source(s); this operand is one too many",
                    info.name, info.num_dst));
            }
        }
        // Label.
        if self.c.eat(b':') {
            let l = self.uint("a label (an instruction number)")?;
            if inst.opcode.has_target_label() {
                inst.label = Some(l);
            }
        }
        Ok(inst)
    }

    /// `, COHERENT, 2D, PIPE_FORMAT_R32_SINT` after a memory instruction's operands, each part
    /// optional, in tgsi_dump's order.
    fn memory_trailer(&mut self, inst: &mut Instruction) -> Result<()> {
        while self.c.peek_blank() == Some(b',') {
            let w = self.peek_after_comma();
            if let Some(bit) = MemoryQualifiers::bit_of(&w) {
                if inst.texture.is_some() || inst.format != ImageFormat::None {
                    break;
                }
                self.c.eat(b',');
                self.c.word();
                inst.qualifiers.0 |= bit;
            } else if let Some(t) = TextureTarget::from_name(&w) {
                if inst.texture.is_some() || inst.format != ImageFormat::None {
                    break;
                }
                self.c.eat(b',');
                self.c.word();
                inst.texture = Some(t);
            } else if ImageFormat::from_name(&w).is_some() && w.len() > 12 {
                if inst.format != ImageFormat::None {
                    break;
                }
                self.c.eat(b',');
                inst.format = self.image_format()?;
            } else {
                break;
            }
        }
        Ok(())
    }

    /// Is the next thing a comma followed by an operand (a register, or `-`, `|`, `(`, `1-(`,
    /// `2*(`), rather than a texture target or something else?
    fn operand_after_comma(&mut self) -> bool {
        let mut copy = self.c.clone();
        copy.eat(b',') && operand_starts(&mut copy)
    }
}

/// After white space at `c`: is a condition test `(EQ1.xyzw)` next? Moves `c` over the white
/// space only.
fn at_cond(c: &mut Cursor<'_>) -> bool {
    if c.peek_blank() != Some(b'(') {
        return false;
    }
    let mut k = 1;
    while matches!(c.peek_at(k), Some(b' ' | b'\t')) {
        k += 1;
    }
    let a = c.peek_at(k).map(|x| x.to_ascii_uppercase());
    let b = c.peek_at(k + 1).map(|x| x.to_ascii_uppercase());
    CC_NAMES
        .iter()
        .any(|n| Some(n.as_bytes()[0]) == a && Some(n.as_bytes()[1]) == b)
}

/// Does an operand (a register, or `-`, `|`, `(`, `1-(`, `2*(`) start after the white space at
/// `c`? Moves `c`. Statements never start so, which is how an optional operand is told from
/// the next statement when both share a line.
fn operand_starts(c: &mut Cursor<'_>) -> bool {
    c.blanks();
    match (c.peek(), c.peek_at(1)) {
        (Some(b'-' | b'|'), _) | (Some(b'2'), Some(b'*')) | (Some(b'1'), Some(b'-')) => true,
        // `(` opens a source modifier, unless it is a condition test `(GT0.x)`.
        (Some(b'('), _) => !at_cond(c),
        _ => {
            let w = c.word();
            File::from_name(w).is_some()
                || UNSUPPORTED_FILES
                    .iter()
                    .any(|(n, _, _)| n.eq_ignore_ascii_case(w))
                || REMOVED_FILES.iter().any(|(n, _)| n.eq_ignore_ascii_case(w))
        }
    }
}

/// Parses a decimal or `0x` hexadecimal u32.
fn parse_u32(t: &str) -> Option<u32> {
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u32::from_str_radix(h, 16).ok()
    } else {
        t.parse().ok()
    }
}

/// Parses a decimal or `0x` hex u64.
fn parse_u64(t: &str) -> Option<u64> {
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()
    } else {
        t.parse().ok()
    }
}

/// Parses a decimal i64 (or a hex bit pattern) to its bits.
fn parse_i64_bits(t: &str) -> Option<u64> {
    if t.starts_with("0x") || t.starts_with("0X") {
        parse_u64(t)
    } else {
        t.parse::<i64>().ok().map(|v| v as u64)
    }
}

/// Parses a double as Mesa does (`strtod`), or a `0x` hex bit pattern.
fn parse_f64_bits(t: &str) -> Option<u64> {
    if t.starts_with("0x") || t.starts_with("0X") {
        return parse_u64(t);
    }
    let body = t.strip_prefix(['-', '+']).unwrap_or(t);
    if body.is_empty() || !body.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        return None;
    }
    t.parse::<f64>().ok().map(f64::to_bits)
}

/// Parses a decimal i32 (or a hex bit pattern) to its bits.
fn parse_i32_bits(t: &str) -> Option<u32> {
    if t.starts_with("0x") || t.starts_with("0X") {
        parse_u32(t)
    } else {
        t.parse::<i32>().ok().map(|v| v as u32)
    }
}

/// Parses a float as Mesa does (decimal through double, then rounded to float), or a hex bit
/// pattern.
fn parse_f32_bits(t: &str) -> Option<u32> {
    if t.starts_with("0x") || t.starts_with("0X") {
        return parse_u32(t);
    }
    let body = t.strip_prefix(['-', '+']).unwrap_or(t);
    if body.is_empty() || !body.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        return None;
    }
    t.parse::<f64>().ok().map(|v| (v as f32).to_bits())
}
