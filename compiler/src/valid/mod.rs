//! Validation of a program after it was read: everything later stages rely on.
//!
//! [`validate`] reports every problem it finds, each with the location of the declaration,
//! instruction or operand concerned (line:column for text, token index for binary).

mod error;
mod flow;
mod memory;

pub use error::{ValidationError, ValidationErrorKind};
pub use memory::MAX_GROUP_INVOCATIONS;

use crate::tgsi::*;

/// A program that passed [`validate`]: what lifting ([`crate::ir::lift::lift_valid`]) and execution
/// take, so that a program is validated once however many times it is lifted or run. It
/// derefs to the [`Program`], which it never lets change.
#[derive(Debug, Clone, PartialEq)]
pub struct Valid(Program);

impl Valid {
    /// Validates `program`.
    ///
    /// # Errors
    /// As [`validate`].
    pub fn new(program: Program) -> Result<Valid, Vec<ValidationError>> {
        validate(&program)?;
        Ok(Valid(program))
    }

    /// The program.
    pub fn into_program(self) -> Program {
        self.0
    }
}

impl std::ops::Deref for Valid {
    type Target = Program;
    fn deref(&self) -> &Program {
        &self.0
    }
}

/// Validates `program`.
///
/// Checks: declarations (ranges, overlaps, attributes that fit the file), properties, that every
/// register used is declared (immediates exist and have the components read), writes to
/// read-only files, operand counts, balanced IF/ELSE/ENDIF, loops, subroutines and switches,
/// BRK/CONT/CASE placement, jump labels (CAL must reach a BGNSUB), texture targets and
/// sampler/sampler-view operands; and, when all that holds, that every value fits its field of
/// the binary token format, so that a valid program can always be written in both forms.
///
/// # Errors
/// Every problem found, in program order.
pub fn validate(program: &Program) -> Result<(), Vec<ValidationError>> {
    let mut v = Validator {
        p: program,
        errors: Vec::new(),
    };
    v.properties();
    v.declarations();
    v.immediates();
    for (i, inst) in program.instructions.iter().enumerate() {
        v.instruction(i, inst);
    }
    memory::check(program, &mut v.errors);
    flow::check(program, &mut v.errors);
    if v.errors.is_empty()
        && let Err(e) = crate::front::binary::encode(program)
    {
        v.error(e.location, ValidationErrorKind::Encoding(e.to_string()));
    }
    if v.errors.is_empty() {
        Ok(())
    } else {
        Err(v.errors)
    }
}

struct Validator<'a> {
    p: &'a Program,
    errors: Vec<ValidationError>,
}

/// Writes `FILE[a][b]` for messages.
fn reg_name(r: &Register) -> String {
    let mut s = String::from(r.file.name());
    for d in r.dimensions.iter().rev() {
        match &d.indirect {
            None => s += &format!("[{}]", d.offset),
            Some(_) => s += "[...]",
        }
    }
    match &r.index.indirect {
        None => s += &format!("[{}]", r.index.offset),
        Some(i) => {
            s += &format!(
                "[{}.{}{:+}]",
                reg_name(&i.register),
                i.component,
                r.index.offset
            )
        }
    }
    s
}

impl Validator<'_> {
    fn error(&mut self, location: Location, kind: ValidationErrorKind) {
        self.errors.push(ValidationError { location, kind });
    }

    fn properties(&mut self) {
        for (i, prop) in self.p.properties.iter().enumerate() {
            let loc = self
                .p
                .source_map
                .properties
                .get(i)
                .copied()
                .unwrap_or_default();
            let formatted = prop.name.format_value(prop.value);
            if prop.name.value_kind() != PropertyValueKind::Uint
                && formatted == prop.value.to_string()
            {
                self.error(
                    loc,
                    ValidationErrorKind::Range(format!(
                        "{} has no value {}",
                        prop.name, prop.value
                    )),
                );
            }
            let name = prop.name.name();
            let stage = match name.split('_').next() {
                Some("GS") => Some(Processor::Geometry),
                Some("FS") => Some(Processor::Fragment),
                Some("CS") => Some(Processor::Compute),
                _ => None,
            };
            if let Some(stage) = stage
                && stage != self.p.processor
            {
                self.error(
                    loc,
                    ValidationErrorKind::Declaration(format!(
                        "property {name} is for {stage} shaders, this is a {} shader",
                        self.p.processor
                    )),
                );
            }
        }
    }

    fn declarations(&mut self) {
        let decls = &self.p.declarations;
        for (i, d) in decls.iter().enumerate() {
            let loc = self.p.source_map.declaration(i);
            let bad = |msg: String| ValidationErrorKind::Declaration(msg);
            if matches!(d.file, File::Null | File::Immediate) {
                self.error(
                    loc,
                    bad(format!("{} registers cannot be declared with DCL", d.file)),
                );
            }
            if d.ranges.is_empty() {
                self.error(loc, bad("the declaration covers no register".into()));
            }
            for r in &d.ranges {
                if r.first > r.last {
                    self.error(
                        loc,
                        ValidationErrorKind::Range(format!(
                            "range {}..{} is reversed",
                            r.first, r.last
                        )),
                    );
                }
                if r.last > 0xFFFF {
                    self.error(
                        loc,
                        ValidationErrorKind::Range(format!("register {} exceeds 65535", r.last)),
                    );
                }
            }
            if d.usage_mask.0 & 0xF == 0 {
                self.error(loc, bad("the usage mask is empty".into()));
            }
            if d.semantic.is_some()
                && !matches!(d.file, File::Input | File::Output | File::SystemValue)
            {
                self.error(loc, bad(format!("{} registers have no semantic", d.file)));
            }
            if d.file == File::SystemValue && d.semantic.is_none() {
                self.error(loc, bad("a system value needs a semantic".into()));
            }
            // An interpolation mode is kept on any declaration, as Mesa's parser reads it
            // after every one but vertex-shader inputs (`DCL OUT[0], POSITION, CONSTANT`,
            // `DCL SAMP[0], CONSTANT`): outside fragment-shader inputs it means nothing and is
            // ignored (docs/text-format.md).
            if (d.sampler_view.is_some()) != (d.file == File::SamplerView) {
                let msg = if d.file == File::SamplerView {
                    "a sampler view needs a resource target and return type (`DCL SVIEW[0], 2D, FLOAT`)".to_string()
                } else {
                    format!("{} registers take no resource target", d.file)
                };
                self.error(loc, bad(msg));
            }
            if d.dimension.is_some() && d.file != File::Constant {
                self.error(
                    loc,
                    bad(format!("{} registers are not two-dimensional", d.file)),
                );
            }
            if d.array_id.is_some()
                && !matches!(d.file, File::Temporary | File::Input | File::Output)
            {
                self.error(loc, bad(format!("{} registers cannot form arrays", d.file)));
            }
            // Overlaps with earlier declarations of the same file (and buffer).
            for (j, e) in decls[..i].iter().enumerate() {
                if e.file != d.file || e.dimension.unwrap_or(0) != d.dimension.unwrap_or(0) {
                    continue;
                }
                if let Some(r) = d.ranges.iter().find(|r| {
                    e.ranges
                        .iter()
                        .any(|q| r.first <= q.last && q.first <= r.last)
                }) {
                    self.error(
                        loc,
                        bad(format!(
                            "{}[{}..{}] overlaps declaration {j} of the same registers",
                            d.file, r.first, r.last
                        )),
                    );
                }
                if d.array_id.is_some() && d.array_id == e.array_id {
                    self.error(
                        loc,
                        bad(format!(
                            "array id {} is declared twice",
                            d.array_id.unwrap_or(0)
                        )),
                    );
                }
            }
        }
    }

    fn immediates(&mut self) {
        for (i, imm) in self.p.immediates.iter().enumerate() {
            if imm.values.is_empty() || imm.values.len() > 4 {
                let loc = self
                    .p
                    .source_map
                    .immediates
                    .get(i)
                    .copied()
                    .unwrap_or_default();
                self.error(
                    loc,
                    ValidationErrorKind::Range(format!(
                        "IMM[{i}] has {} values; an immediate holds 1 to 4",
                        imm.values.len()
                    )),
                );
            } else if imm.ty.is_64_bit() && imm.values.len() % 2 != 0 {
                let loc = self
                    .p
                    .source_map
                    .immediates
                    .get(i)
                    .copied()
                    .unwrap_or_default();
                self.error(
                    loc,
                    ValidationErrorKind::Range(format!(
                        "IMM[{i}] is {}: its {} words do not make whole 64-bit values",
                        imm.ty,
                        imm.values.len()
                    )),
                );
            }
        }
    }

    fn instruction(&mut self, i: usize, inst: &Instruction) {
        let info = inst.opcode.info();
        let map = &self.p.source_map;
        let (lo, hi) = info.num_src;
        if inst.dst.len() != info.num_dst as usize
            || inst.src.len() < lo as usize
            || inst.src.len() > hi as usize
        {
            let srcs = if lo == hi {
                format!("{lo} source(s)")
            } else {
                format!("{lo} to {hi} sources")
            };
            self.error(
                map.instruction(i),
                ValidationErrorKind::OperandCount {
                    opcode: info.name,
                    expected: format!("{} destination(s) and {srcs}", info.num_dst),
                    dst: inst.dst.len(),
                    src: inst.src.len(),
                },
            );
        }
        for (k, d) in inst.dst.iter().enumerate() {
            let loc = map.dst(i, k);
            if !d.register.file.is_writable() && !d.register.file.is_memory() {
                self.error(loc, ValidationErrorKind::ReadOnly(reg_name(&d.register)));
            }
            if d.write_mask.0 & 0xF == 0 {
                self.error(
                    loc,
                    ValidationErrorKind::Range(format!(
                        "{}: the write mask is empty",
                        reg_name(&d.register)
                    )),
                );
            }
            if d.register.file != File::Null {
                self.register(&d.register, loc, &[0, 1, 2, 3]);
            }
        }
        for (k, s) in inst.src.iter().enumerate() {
            let loc = map.src(i, k);
            if s.register.file == File::Null {
                self.error(
                    loc,
                    ValidationErrorKind::Undeclared("NULL (it cannot be read)".into()),
                );
                continue;
            }
            let mut read: Vec<usize> = s
                .swizzle
                .iter()
                .filter_map(|c| c.component().map(Swizzle::index))
                .collect();
            if let Some(c) = s.divide.component() {
                read.push(c.index());
            }
            self.register(&s.register, loc, &read);
        }
        if inst.texture.is_some() && inst.opcode.tex().is_none() && !inst.opcode.is_memory() {
            self.error(
                map.instruction(i),
                ValidationErrorKind::Texture(format!(
                    "{} takes no texture target",
                    inst.opcode.name()
                )),
            );
        }
        if !inst.tex_offsets.is_empty() && inst.texture.is_none() {
            // The text form writes offsets after the target, so they need one.
            self.error(
                map.instruction(i),
                ValidationErrorKind::Texture(format!(
                    "{}'s texture offsets need a texture target",
                    inst.opcode.name()
                )),
            );
        }
        for o in &inst.tex_offsets {
            if o.file == File::Null {
                self.error(
                    map.instruction(i),
                    ValidationErrorKind::Undeclared("NULL (it cannot be read)".into()),
                );
                continue;
            }
            let r = Register::new(o.file, o.index);
            let read: Vec<usize> = o.swizzle.iter().map(|c| c.index()).collect();
            self.register(&r, map.instruction(i), &read);
        }
        if let Some(t) = inst.opcode.tex() {
            self.texture(i, inst, t);
        }
        if let Some(w) = inst.opcode.wide() {
            self.wide(i, inst, w);
        }
    }

    /// A 64-bit instruction: no modifier on a 64-bit source (tgsi_exec ignores them, llvmpipe
    /// applies them), no NV condition codes, modulation or precision, and `_SAT` only where the
    /// result is a double or a float (`docs/semantics.md`, "Doubles and 64-bit integers").
    fn wide(&mut self, i: usize, inst: &Instruction, w: Wide) {
        let map = &self.p.source_map;
        let name = inst.opcode.name();
        for (k, s) in inst.src.iter().enumerate() {
            let literal = s.swizzle.iter().any(|c| c.component().is_none());
            if w.wide_source(k)
                && (s.negate || s.has_ext_mod() || s.negate_components != 0 || literal)
            {
                self.error(
                    map.src(i, k),
                    ValidationErrorKind::Wide(format!(
                        "source {k} of {name} holds 64-bit values: negation, absolute value and \
                         the other source modifiers are not defined on it (use DNEG, DABS, \
                         I64NEG or I64ABS)"
                    )),
                );
            }
        }
        let modulated = inst
            .dst
            .iter()
            .any(|d| d.modulate != Modulate::X1 || d.cond.is_some());
        if inst.cond_test.is_some()
            || inst.cond_update.is_some()
            || inst.precision != Precision::Default
            || modulated
        {
            self.error(
                map.instruction(i),
                ValidationErrorKind::Wide(format!(
                    "{name}: condition codes, modulation and precision are not defined on \
                     64-bit instructions"
                )),
            );
        }
        let float_result = matches!(
            inst.opcode,
            Opcode::F2d
                | Opcode::I2d
                | Opcode::U2d
                | Opcode::D2f
                | Opcode::Dabs
                | Opcode::Dneg
                | Opcode::Dadd
                | Opcode::Dmul
                | Opcode::Dmax
                | Opcode::Dmin
                | Opcode::Drcp
                | Opcode::Dsqrt
                | Opcode::Dmad
                | Opcode::Dfrac
                | Opcode::Dldexp
                | Opcode::Dfracexp
                | Opcode::Drsq
                | Opcode::Dtrunc
                | Opcode::Dceil
                | Opcode::Dflr
                | Opcode::Dround
                | Opcode::Dssg
                | Opcode::Ddiv
                | Opcode::Dfma
                | Opcode::I642f
                | Opcode::U642f
                | Opcode::I642d
                | Opcode::U642d
        );
        let sat_ok = match inst.saturate {
            Saturate::None => true,
            Saturate::ZeroOne => float_result,
            Saturate::MinusPlusOne => false,
        };
        if !sat_ok {
            self.error(
                map.instruction(i),
                ValidationErrorKind::Wide(format!(
                    "{name}{}: this saturation is not defined on its result (`_SAT` clamps \
                     double and float results to [0, 1])",
                    inst.saturate
                )),
            );
        }
    }

    fn texture(&mut self, i: usize, inst: &Instruction, t: TexOperands) {
        let map = &self.p.source_map;
        let name = inst.opcode.name();
        if t.needs_target && inst.texture.is_none_or(|t| t == TextureTarget::Unknown) {
            self.error(
                map.instruction(i),
                ValidationErrorKind::Texture(format!(
                    "{name} needs a texture target (`{name} ..., SAMP[0], 2D`)"
                )),
            );
        }
        for (role, idx, file) in [
            ("sampler", t.sampler, File::Sampler),
            ("sampler view", t.view, File::SamplerView),
        ] {
            let Some(idx) = idx else { continue };
            match inst.src.get(idx as usize) {
                Some(s) if s.register.file == file => {}
                Some(s) => self.error(
                    map.src(i, idx as usize),
                    ValidationErrorKind::Texture(format!(
                        "source {idx} of {name} must be a {role} ({file}), found {}",
                        reg_name(&s.register)
                    )),
                ),
                None => {}
            }
        }
    }

    /// Checks that `r` (and its address registers) is declared; `read` are the components read.
    fn register(&mut self, r: &Register, loc: Location, read: &[usize]) {
        for idx in std::iter::once(&r.index).chain(&r.dimensions) {
            if let Some(ind) = &idx.indirect {
                if ind.register.file == File::Null {
                    self.error(
                        loc,
                        ValidationErrorKind::Undeclared("NULL used as an address".into()),
                    );
                } else {
                    self.register(&ind.register, loc, &[ind.component.index()]);
                }
            }
        }
        if r.index.offset < 0 && r.index.indirect.is_none() {
            self.error(
                loc,
                ValidationErrorKind::Range(format!("{}: negative register index", reg_name(r))),
            );
            return;
        }
        match r.file {
            File::Null => {}
            File::Immediate => {
                if r.index.indirect.is_some() {
                    return; // Clamped to the immediates at run time.
                }
                match self.p.immediates.get(r.index.offset as usize) {
                    None => self.error(loc, ValidationErrorKind::Undeclared(reg_name(r))),
                    Some(imm) => {
                        if let Some(&c) = read.iter().find(|&&c| c >= imm.values.len()) {
                            self.error(
                                loc,
                                ValidationErrorKind::Range(format!(
                                    "{} has {} values; component {} is read",
                                    reg_name(r),
                                    imm.values.len(),
                                    ['x', 'y', 'z', 'w'][c]
                                )),
                            );
                        }
                    }
                }
            }
            _ => self.declared(r, loc),
        }
    }

    fn declared(&mut self, r: &Register, loc: Location) {
        let gs_input = self.p.processor == Processor::Geometry && r.file == File::Input;
        let dims = &r.dimensions;
        // The buffer of a constant (no dimension = buffer 0), or the vertex of a GS input.
        let (buffer, vertex) = match (r.file, dims.first()) {
            (File::Constant, Some(d)) if d.indirect.is_none() => (Some(d.offset as u32), None),
            (File::Constant, Some(_)) => (None, None),
            (File::Constant, None) => (Some(0), None),
            (_, d) if gs_input => (None, d),
            _ => (None, None),
        };
        let expected_dims = usize::from(r.file == File::Constant || gs_input);
        if dims.len() > expected_dims || (gs_input && dims.is_empty()) {
            let msg = if gs_input {
                format!(
                    "{}: a geometry-shader input takes exactly one vertex index (`IN[v][r]`)",
                    reg_name(r)
                )
            } else if r.file == File::Constant {
                format!(
                    "{}: a constant takes at most a buffer index and a register index",
                    reg_name(r)
                )
            } else {
                format!("{}: {} registers are one-dimensional", reg_name(r), r.file)
            };
            self.error(loc, ValidationErrorKind::Range(msg));
            return;
        }
        if let (Some(v), Some(verts)) = (vertex, self.gs_vertices())
            && v.indirect.is_none()
            && (v.offset < 0 || v.offset as u32 >= verts)
        {
            self.error(
                loc,
                ValidationErrorKind::Range(format!(
                    "{}: vertex {} of a primitive with {verts}",
                    reg_name(r),
                    v.offset
                )),
            );
        }
        // Mesa declares `MEMORY[1], SHARED` and addresses `MEMORY[0]`; tgsi_exec ignores the
        // index: any MEMORY declaration declares the shared memory every index names.
        if r.file == File::Memory && self.p.declarations_of(File::Memory).next().is_some() {
            return;
        }
        let matches_buffer = |d: &Declaration| buffer.is_none_or(|b| d.dimension.unwrap_or(0) == b);
        let mut decls = self
            .p
            .declarations_of(r.file)
            .filter(|d| matches_buffer(d))
            .peekable();
        if decls.peek().is_none() {
            self.error(loc, ValidationErrorKind::Undeclared(reg_name(r)));
            return;
        }
        if let Some(id) = r.array_id {
            if !self
                .p
                .declarations_of(r.file)
                .any(|d| d.array_id == Some(id))
            {
                self.error(
                    loc,
                    ValidationErrorKind::Undeclared(format!("{} (array {id})", reg_name(r))),
                );
            }
            return;
        }
        if r.index.indirect.is_some() {
            // The run-time index is clamped to the declared registers (`docs/semantics.md`).
            return;
        }
        let index = r.index.offset as i64;
        if !self
            .p
            .declarations_of(r.file)
            .filter(|d| matches_buffer(d))
            .any(|d| d.contains(index))
        {
            self.error(loc, ValidationErrorKind::Undeclared(reg_name(r)));
        }
    }

    fn gs_vertices(&self) -> Option<u32> {
        let prim = self.p.property(PropertyName::GsInputPrimitive)?;
        Primitive::from_bits(prim)?.vertices_per_primitive()
    }
}

#[cfg(test)]
mod tests;
