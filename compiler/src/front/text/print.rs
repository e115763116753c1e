//! The printer: Mesa's tgsi_dump layout, lossless.

use crate::tgsi::*;
use std::fmt::Write;

/// Prints `program` as text that [`parse`](super::parse) reads back to an equal program.
///
/// The layout is tgsi_dump's: header, properties, declarations, immediates, then numbered
/// instructions indented by nesting. FLT32 immediates are printed losslessly (the shortest
/// decimal that reads back to the same bits, or the bit pattern in hex for NaN). Labels of
/// IF/UIF/ELSE/BGNLOOP/ENDLOOP are recomputed from the nesting.
pub fn print(program: &Program) -> String {
    let mut out = String::new();
    out.push_str(program.processor.name());
    if program.revision != Revision::CURRENT {
        let _ = write!(out, "{}.{}", program.revision.major, program.revision.minor);
    }
    out.push('\n');
    for p in &program.properties {
        let _ = writeln!(out, "PROPERTY {} {}", p.name, p.name.format_value(p.value));
    }
    for d in &program.declarations {
        declaration(&mut out, d, program.processor);
    }
    for (i, imm) in program.immediates.iter().enumerate() {
        let values: Vec<String> = if imm.ty.is_64_bit() {
            // Two words a value, low word first (an odd last word is a value of its own).
            imm.values
                .chunks(2)
                .map(|w| {
                    let v = w[0] as u64 | (w.get(1).copied().unwrap_or(0) as u64) << 32;
                    match imm.ty {
                        ImmediateType::Float64 => format_f64(v),
                        ImmediateType::Int64 => (v as i64).to_string(),
                        _ => v.to_string(),
                    }
                })
                .collect()
        } else {
            imm.values
                .iter()
                .map(|&v| match imm.ty {
                    ImmediateType::Float32 => format_f32(v),
                    ImmediateType::Int32 => (v as i32).to_string(),
                    _ => v.to_string(),
                })
                .collect()
        };
        let _ = writeln!(out, "IMM[{i}] {} {{{}}}", imm.ty, values.join(", "));
    }
    let labels = structure_labels(&program.instructions);
    let mut indent = 0usize;
    for (i, inst) in program.instructions.iter().enumerate() {
        let flow = inst.opcode.flow();
        if matches!(
            flow,
            Some(FlowOp::Else | FlowOp::EndIf | FlowOp::EndLoop(_) | FlowOp::EndSwitch)
        ) {
            indent = indent.saturating_sub(1);
        }
        let _ = write!(out, "{i:>3}: {:width$}", "", width = 2 * indent);
        instruction(&mut out, inst, labels[i]);
        out.push('\n');
        if matches!(
            flow,
            Some(FlowOp::If | FlowOp::Else | FlowOp::BeginLoop(_) | FlowOp::Switch)
        ) {
            indent += 1;
        }
    }
    out
}

/// Prints an f32 bit pattern losslessly: the shortest decimal that reads back (through f64, as
/// Mesa's parser does) to the same bits, else the pattern as `0x%08x`.
pub fn format_f32(bits: u32) -> String {
    let f = f32::from_bits(bits);
    if f.is_finite() {
        let s = format!("{f:?}");
        if let Ok(back) = s.parse::<f64>()
            && (back as f32).to_bits() == bits
        {
            return s;
        }
    }
    format!("{bits:#010x}")
}

/// A double immediate losslessly: its shortest decimal form when that reads back to the same
/// bits, else its bit pattern in hex (NaN payloads, infinities).
pub fn format_f64(bits: u64) -> String {
    let d = f64::from_bits(bits);
    if d.is_finite() {
        let s = format!("{d:?}");
        if s.parse::<f64>().map(f64::to_bits) == Ok(bits) {
            return s;
        }
    }
    format!("{bits:#018x}")
}

/// For each instruction, the label tgsi_dump would print for structured control flow:
/// IF/UIF → its ELSE or ENDIF, ELSE → its ENDIF, BGNLOOP ↔ ENDLOOP; jump labels as stored.
fn structure_labels(insts: &[Instruction]) -> Vec<Option<u32>> {
    let mut labels: Vec<Option<u32>> = insts.iter().map(|i| i.label).collect();
    let mut stack: Vec<usize> = Vec::new();
    for (i, inst) in insts.iter().enumerate() {
        match inst.opcode.flow() {
            Some(FlowOp::If | FlowOp::BeginLoop(_) | FlowOp::Switch) => stack.push(i),
            Some(FlowOp::Else) => {
                if let Some(open) = stack.last_mut() {
                    labels[*open] = Some(i as u32);
                    *open = i;
                }
            }
            Some(FlowOp::EndIf) => {
                if let Some(open) = stack.pop() {
                    labels[open] = Some(i as u32);
                }
            }
            Some(FlowOp::EndLoop(kind)) => {
                if let Some(open) = stack.pop()
                    && kind == LoopKind::Loop
                {
                    labels[open] = Some(i as u32);
                    labels[i] = Some(open as u32);
                }
            }
            Some(FlowOp::EndSwitch) => {
                stack.pop();
            }
            _ => {}
        }
    }
    // Only the opcodes tgsi_dump labels keep a derived label.
    for (i, inst) in insts.iter().enumerate() {
        let keep = inst.opcode.has_target_label()
            || matches!(
                inst.opcode,
                Opcode::If | Opcode::Uif | Opcode::Else | Opcode::BgnLoop | Opcode::EndLoop
            );
        if !keep {
            labels[i] = None;
        }
    }
    labels
}

fn declaration(out: &mut String, d: &Declaration, processor: Processor) {
    out.push_str("DCL ");
    out.push_str(d.file.name());
    if processor == Processor::Geometry && d.file == File::Input {
        out.push_str("[]");
    }
    if let Some(dim) = d.dimension {
        let _ = write!(out, "[{dim}]");
    }
    out.push('[');
    for (k, r) in d.ranges.iter().enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        if r.first == r.last {
            let _ = write!(out, "{}", r.first);
        } else {
            let _ = write!(out, "{}..{}", r.first, r.last);
        }
    }
    out.push(']');
    if !d.usage_mask.is_full() {
        let _ = write!(out, ".{}", d.usage_mask);
    }
    if let Some(id) = d.array_id {
        let _ = write!(out, ", ARRAY({id})");
    }
    if d.local {
        out.push_str(", LOCAL");
    }
    if let Some(s) = d.semantic {
        let _ = write!(out, ", {}", s.name);
        if s.index != 0 || s.name.always_indexed() {
            let _ = write!(out, "[{}]", s.index);
        }
        if s.streams != [0; 4] {
            let [a, b, c, e] = s.streams;
            let _ = write!(out, ", STREAM({a}, {b}, {c}, {e})");
        }
    }
    if let Some(sv) = d.sampler_view {
        let _ = write!(out, ", {}", sv.target);
        let rt = sv.return_types;
        if rt.iter().all(|&r| r == rt[0]) {
            let _ = write!(out, ", {}", rt[0]);
        } else {
            let _ = write!(out, ", {}, {}, {}, {}", rt[0], rt[1], rt[2], rt[3]);
        }
    }
    if let Some(img) = d.image {
        let _ = write!(out, ", {}, {}", img.target, img.format);
        if img.writable {
            out.push_str(", WR");
        }
        if img.raw {
            out.push_str(", RAW");
        }
    }
    if d.atomic {
        out.push_str(", ATOMIC");
    }
    if let Some(m) = d.memory {
        let _ = write!(out, ", {m}");
    }
    if let Some(i) = d.interpolation {
        let _ = write!(out, ", {i}");
    }
    if d.location != InterpLocation::Center {
        let _ = write!(out, ", {}", d.location);
    }
    if d.invariant {
        out.push_str(", INVARIANT");
    }
    out.push('\n');
}

fn cond(out: &mut String, c: &CondTest) {
    let _ = write!(out, "({}{}.", c.mask, c.index);
    for s in c.swizzle {
        out.push_str(s.name());
    }
    out.push(')');
}

fn instruction(out: &mut String, inst: &Instruction, label: Option<u32>) {
    out.push_str(inst.opcode.name());
    out.push_str(inst.saturate.name());
    if inst.precise {
        out.push_str("_PRECISE");
    }
    out.push_str(inst.precision.name());
    if let Some(n) = inst.cond_update {
        let _ = write!(out, "_CC{n}");
    }
    if let Some(c) = &inst.cond_test {
        out.push(' ');
        cond(out, c);
    }
    let mut first = true;
    let mut sep = |out: &mut String| {
        out.push_str(if first { " " } else { ", " });
        first = false;
    };
    for d in &inst.dst {
        sep(out);
        register(out, &d.register);
        if d.modulate != Modulate::X1 {
            out.push_str(d.modulate.name());
        }
        if !d.write_mask.is_full() {
            let _ = write!(out, ".{}", d.write_mask);
        }
        if let Some(c) = &d.cond {
            out.push(' ');
            cond(out, c);
        }
    }
    for s in &inst.src {
        sep(out);
        src(out, s);
    }
    for q in inst.qualifiers.names() {
        sep(out);
        out.push_str(q);
    }
    if let Some(t) = inst.texture {
        sep(out);
        out.push_str(t.name());
    }
    if inst.format != ImageFormat::None {
        sep(out);
        let _ = write!(out, "{}", inst.format);
    }
    for o in &inst.tex_offsets {
        sep(out);
        let _ = write!(
            out,
            "{}[{}].{}{}{}",
            o.file, o.index, o.swizzle[0], o.swizzle[1], o.swizzle[2]
        );
    }
    if let Some(l) = label {
        let _ = write!(out, " :{l}");
    }
}

fn src(out: &mut String, s: &Src) {
    let wrap_neg = s.negate_after && !s.absolute;
    if wrap_neg {
        out.push_str("-(");
    }
    if s.absolute {
        out.push_str(if s.negate_after { "-|" } else { "|" });
    }
    if s.negate {
        out.push('-');
    }
    if s.scale2x {
        out.push_str("2*(");
    }
    if s.complement {
        out.push_str("1-(");
    }
    if s.bias {
        out.push('(');
    }
    register(out, &s.register);
    if s.bias {
        out.push_str("-0.5)");
    }
    if s.complement {
        out.push(')');
    }
    if s.scale2x {
        out.push(')');
    }
    let identity = s.swizzle == [ExtSwizzle::X, ExtSwizzle::Y, ExtSwizzle::Z, ExtSwizzle::W];
    if !identity || s.negate_components != 0 {
        out.push('.');
        for (c, sel) in s.swizzle.iter().enumerate() {
            if s.negate_components & (1 << c) != 0 {
                out.push('-');
            }
            out.push_str(sel.name());
        }
    }
    if s.divide != ExtSwizzle::One {
        let _ = write!(out, "/{}", s.divide);
    }
    if s.absolute {
        out.push('|');
    }
    if wrap_neg {
        out.push(')');
    }
}

fn index(out: &mut String, i: &Index) {
    out.push('[');
    match &i.indirect {
        None => {
            let _ = write!(out, "{}", i.offset);
        }
        Some(ind) => {
            register(out, &ind.register);
            let _ = write!(out, ".{}", ind.component);
            if i.offset > 0 {
                let _ = write!(out, "+{}", i.offset);
            } else if i.offset < 0 {
                let _ = write!(out, "{}", i.offset);
            }
        }
    }
    out.push(']');
}

fn register(out: &mut String, r: &Register) {
    out.push_str(r.file.name());
    for d in r.dimensions.iter().rev() {
        index(out, d);
    }
    index(out, &r.index);
    if let Some(id) = r.array_id {
        let _ = write!(out, "({id})");
    }
}
