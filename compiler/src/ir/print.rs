//! The IR's text form (`tgsic ir`): one statement per line, regions indented.

use super::uniform::Uniformity;
use super::*;
use std::fmt::Write;

/// The name `tgsic ir` prints for a type (`f32`, `i32`, `bool`, `f64`, `i64`).
pub fn type_name(t: Type) -> &'static str {
    ty(t)
}

fn ty(t: Type) -> &'static str {
    match t {
        Type::F32 => "f32",
        Type::I32 => "i32",
        Type::Bool => "bool",
        Type::F64 => "f64",
        Type::I64 => "i64",
    }
}

fn vals(vs: &[Value]) -> String {
    vs.iter()
        .map(|v| format!("%{}", v.index()))
        .collect::<Vec<_>>()
        .join(", ")
}

fn defs(f: &Function, vs: &[Value]) -> String {
    vs.iter()
        .map(|&v| format!("%{}:{}", v.index(), ty(f.ty(v))))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The mnemonic and attributes of an operation.
pub fn op_name(op: &Op) -> String {
    let c = |k: &u8| comp_name(*k);
    match op {
        Op::Const(bits) => {
            let fl = f32::from_bits(*bits);
            if fl.is_finite() && fl != 0.0 && fl.abs() > 1e-30 && fl.abs() < 1e30 {
                format!("const {bits:#x} ({fl:?})")
            } else {
                format!("const {bits:#x}")
            }
        }
        Op::Input { reg, comp } => format!("input IN[{reg}].{}", c(comp)),
        Op::InputIndirect {
            offset,
            lo,
            hi,
            comp,
        } => format!("input_indirect IN[{offset}+i clamp {lo}..{hi}].{}", c(comp)),
        Op::GsInput {
            vertex,
            reg,
            lo,
            hi,
            comp,
        } => format!(
            "gs_input IN[{vertex}+v][{reg}+i clamp {lo}..{hi}].{}",
            c(comp)
        ),
        Op::SysVal { reg, comp } => format!("sysval SV[{reg}].{}", c(comp)),
        Op::Uniform { buffer, reg, comp } => format!("uniform CONST[{buffer}][{reg}].{}", c(comp)),
        Op::UniformIndirect {
            buffer,
            offset,
            comp,
        } => format!("uniform_indirect CONST[{buffer}+b][{offset}+i].{}", c(comp)),
        Op::ImmIndirect { offset, comp } => format!("imm_indirect IMM[{offset}+i].{}", c(comp)),
        Op::MaxIterations => "max_iterations".into(),
        Op::ClearColor { comp } => format!("clear_color .{}", c(comp)),
        Op::Helper => "helper".into(),
        Op::ArrayLoad {
            array,
            comp,
            offset,
            lo,
            hi,
        } => format!(
            "array_load a{array}[{offset}+i clamp {lo}..{hi}].{}",
            c(comp)
        ),
        Op::ArrayStore {
            array,
            comp,
            offset,
            lo,
            hi,
        } => format!(
            "array_store a{array}[{offset}+i within {lo}..{hi}].{}",
            c(comp)
        ),
        Op::StoreOutput { slot, comp } => format!("store_output o{slot}.{}", c(comp)),
        Op::Discard => "discard".into(),
        Op::Exhausted => "exhausted".into(),
        Op::Emit => "emit".into(),
        Op::EndPrim => "endprim".into(),
        Op::Unary(u) => format!("{u:?}").to_lowercase(),
        Op::Binary(b) => format!("{b:?}").to_lowercase(),
        Op::Nary(n) => format!("{n:?}").to_lowercase(),
        Op::FCmp(k) => format!("fcmp.{k:?}").to_lowercase(),
        Op::ICmp(k) => format!("icmp.{k:?}").to_lowercase(),
        Op::Select => "select".into(),
        Op::Derivative { axis, fine } => format!(
            "dd{}{}",
            if *axis == Axis::X { "x" } else { "y" },
            if *fine { "_fine" } else { "" }
        ),
        Op::Texture(t) => format!("texture.{t}"),
        Op::Memory(m) => {
            let res = match m.file {
                crate::ir::MemFile::Buffer => format!("BUFFER[{}]", m.index),
                crate::ir::MemFile::Shared => "MEMORY".to_string(),
                crate::ir::MemFile::Image => {
                    format!("IMAGE[{}] {} {}", m.index, m.target, m.format.name())
                }
            };
            let mask = crate::tgsi::WriteMask(m.mask);
            format!("{} {res}.{mask}", m.opcode.name().to_lowercase())
        }
        Op::Barrier => "barrier".into(),
        Op::Pack(p) => format!("pack.{p:?}").to_lowercase(),
        Op::Unpack(p) => format!("unpack.{p:?}").to_lowercase(),
        Op::W64(w) => format!("w64.{w:?}").to_lowercase(),
    }
}

fn inst(out: &mut String, f: &Function, u: &Uniformity, i: Inst, pad: &str) {
    let d = &f.insts[i];
    let _ = write!(out, "{pad}");
    if !d.results.is_empty() {
        let _ = write!(out, "{} = ", defs(f, &d.results));
    }
    let _ = write!(out, "{}", op_name(&d.op));
    if !d.args.is_empty() {
        let _ = write!(out, " {}", vals(&d.args));
    }
    if !d.results.is_empty()
        && d.results.iter().all(|&v| u.is_uniform(v))
        && !matches!(d.op, Op::Const(_))
    {
        out.push_str("  ; uniform");
    }
    out.push('\n');
}

fn block(out: &mut String, f: &Function, u: &Uniformity, b: &Block, depth: usize) {
    let pad = "  ".repeat(depth);
    for s in &b.0 {
        match s {
            Stmt::Inst(i) => inst(out, f, u, *i, &pad),
            Stmt::If(x) => {
                let lhs = if x.results.is_empty() {
                    String::new()
                } else {
                    format!("{} = ", defs(f, &x.results))
                };
                let _ = writeln!(out, "{pad}{lhs}if %{} {{", x.cond.index());
                block(out, f, u, &x.then_, depth + 1);
                let _ = writeln!(out, "{pad}}} else {{");
                block(out, f, u, &x.else_, depth + 1);
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::Loop(l) => {
                let lhs = if l.results.is_empty() {
                    String::new()
                } else {
                    format!("{} = ", defs(f, &l.results))
                };
                let params: Vec<String> = l
                    .params
                    .iter()
                    .zip(&l.inits)
                    .map(|(p, i)| format!("%{}:{} = %{}", p.index(), ty(f.ty(*p)), i.index()))
                    .collect();
                let _ = writeln!(out, "{pad}{lhs}loop ({}) {{", params.join(", "));
                block(out, f, u, &l.body, depth + 1);
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::Break(v) => {
                let _ = writeln!(out, "{pad}break {}", vals(v));
            }
            Stmt::Continue(v) => {
                let _ = writeln!(out, "{pad}continue {}", vals(v));
            }
            Stmt::Yield(v) => {
                let _ = writeln!(out, "{pad}yield {}", vals(v));
            }
        }
    }
}

/// Prints a function.
pub fn print(f: &Function) -> String {
    let mut out = format!("function {}\n", f.processor);
    for (k, a) in f.arrays.iter().enumerate() {
        let _ = writeln!(
            out,
            "  array a{k}: {:?} registers {}..{}",
            a.kind,
            a.first,
            a.first + a.len - 1
        );
    }
    for (k, o) in f.outputs.iter().enumerate() {
        let sem = o
            .semantic
            .map_or(String::new(), |(s, i)| format!(" {s}[{i}]"));
        let _ = writeln!(out, "  output o{k}: OUT[{}]{sem}", o.reg);
    }
    out.push_str("{\n");
    block(&mut out, f, &super::uniform::analyze(f), &f.body, 1);
    out.push_str("}\n");
    out
}
