//! Rewrites the lifted IR into what THEIA can run, before it is optimized:
//! - constant-buffer reads become the given values (so whatever depends only on constants is
//!   folded in f32, as the interpreter computes it, and lands in C1..C7);
//! - the w component of every input reads 1.0 (THEIA registers have three components);
//! - stores of alpha and of outputs other than COLOR[0] are dropped, each with a warning.

use super::types::{TheiaError, TheiaOptions, Warning, at};
use tgsic::ir::{Function, Op, Stmt};
use tgsic::opt::util::{ConstPool, Subst, for_each_block_mut};
use tgsic::tgsi::{Program, Semantic};

/// Returns the output slot that reaches OREG_PIXEL_COLOR.
pub(super) fn prepare(
    f: &mut Function,
    program: &Program,
    opts: &TheiaOptions,
    warnings: &mut Vec<Warning>,
) -> Result<u32, TheiaError> {
    let color = f
        .outputs
        .iter()
        .position(|o| matches!(o.semantic, Some((Semantic::Color, 0))))
        .ok_or(TheiaError::NoColor)? as u32;

    // Constants and input w become constants at the top of the body.
    let mut missing = None;
    let mut pool = ConstPool::new(f);
    let mut subst = Subst::new(f);
    let n = f.insts.len();
    for k in 0..n {
        let i = tgsic::ir::Inst::new(k);
        let Some(&v) = f.insts[i].results.first() else {
            continue;
        };
        let bits = match f.insts[i].op {
            Op::Uniform { buffer, reg, comp } => match opts.constants.get(&buffer) {
                Some(data) => data.get(reg as usize).map_or(0, |r| r[comp as usize]),
                None => {
                    missing = missing.or(Some(buffer));
                    continue;
                }
            },
            Op::Input { comp: 3, .. } => 1.0f32.to_bits(),
            _ => continue,
        };
        let ty = f.ty(v);
        let c = pool.get(f, bits, ty);
        subst.replace(v, c);
    }
    pool.finish(f);
    subst.apply(f);
    if let Some(b) = missing {
        return Err(TheiaError::MissingConstants(b));
    }

    // Output stores.
    let mut dropped = Vec::new();
    let insts = &f.insts;
    let outputs = &f.outputs;
    let mut body = std::mem::take(&mut f.body);
    for_each_block_mut(&mut body, &mut |b| {
        b.0.retain(|s| {
            let Stmt::Inst(i) = s else { return true };
            let Op::StoreOutput { slot, comp } = insts[*i].op else {
                return true;
            };
            if slot == color && comp < 3 {
                return true;
            }
            dropped.push((slot, comp, insts[*i].origin));
            false
        });
    });
    f.body = body;
    let mut said = std::collections::BTreeSet::new();
    for (slot, _comp, origin) in dropped {
        let key = if slot == color { u32::MAX } else { slot };
        if !said.insert(key) {
            continue;
        }
        let o = outputs[slot as usize];
        let message = if slot == color {
            format!(
                "alpha (OUT[{}].w) is dropped: OREG_PIXEL_COLOR holds red, green and blue only",
                o.reg
            )
        } else {
            let sem = o
                .semantic
                .map(|(s, i)| format!(" ({}[{i}])", s.name()))
                .unwrap_or_default();
            format!(
                "OUT[{}]{sem} is dropped: THEIA's pixel shader has one output, OREG_PIXEL_COLOR",
                o.reg
            )
        };
        warnings.push(Warning {
            location: at(program, origin),
            message,
        });
    }
    Ok(color)
}
