//! Which THEIA register each TGSI input reads.
//!
//! Defaults (`docs/theia.md`): POSITION → CREG_PIXEL_2D_POSITION, COLOR[0] → CREG_COLOR_ACC
//! (the colour the lighting stage accumulates), COLOR[1] → CREG_TRI_DIFFUSE_LAST. Texture
//! coordinates (TEXCOORD, GENERIC) have no b1.2 register: a TEX of one reads
//! CREG_TEXTURE_COLOR (the hardware samples before the pixel shader runs), and any other read
//! needs a binding (`--bind IN[n]=REG`). The w component of every input reads 1.0.

use super::types::TheiaError;
use crate::isa::{register_address, register_name};
use std::collections::{BTreeMap, BTreeSet};
use tgsic::tgsi::{File, Location, Program, Semantic};

/// The default register of each declared input that has one (`IN[n]` → address).
pub fn default_bindings(program: &Program) -> BTreeMap<u32, u16> {
    let mut out = BTreeMap::new();
    for (reg, sem) in inputs(program) {
        let addr = match sem {
            Some((Semantic::Position, _)) => register_address("CREG_PIXEL_2D_POSITION"),
            Some((Semantic::Color, 0)) => register_address("CREG_COLOR_ACC"),
            Some((Semantic::Color, 1)) => register_address("CREG_TRI_DIFFUSE_LAST"),
            _ => None,
        };
        if let Some(a) = addr {
            out.insert(reg, a);
        }
    }
    out
}

/// Every declared input register with its semantic.
fn inputs(program: &Program) -> Vec<(u32, Option<(Semantic, u32)>)> {
    let mut out = Vec::new();
    for d in &program.declarations {
        if d.file != File::Input {
            continue;
        }
        for r in &d.ranges {
            for reg in r.first..=r.last {
                let sem = d.semantic.map(|s| (s.name, s.index + (reg - r.first)));
                out.push((reg, sem));
            }
        }
    }
    out
}

/// The resolved bindings of one shader.
#[derive(Debug, Clone)]
pub(super) struct Bindings {
    map: BTreeMap<u32, u16>,
    semantics: BTreeMap<u32, Option<(Semantic, u32)>>,
}

impl Bindings {
    /// The register IN[reg] reads, if bound.
    pub fn register(&self, reg: u32) -> Option<u16> {
        self.map.get(&reg).copied()
    }

    /// `IN[3] (GENERIC[0])`.
    pub fn describe(&self, reg: u32) -> String {
        match self.semantics.get(&reg).copied().flatten() {
            Some((s, i)) => format!("IN[{reg}] ({}[{i}])", s.name()),
            None => format!("IN[{reg}]"),
        }
    }

    /// The bindings of the inputs in `used`.
    pub fn used(&self, used: &BTreeSet<u32>) -> BTreeMap<u32, u16> {
        used.iter()
            .filter_map(|r| self.map.get(r).map(|&a| (*r, a)))
            .collect()
    }
}

/// Defaults plus `overrides`.
///
/// # Errors
/// An override of an input the shader does not declare, or to a register the pixel shader
/// cannot read (an output register or an address outside the register file).
pub(super) fn resolve(
    program: &Program,
    overrides: &BTreeMap<u32, u16>,
) -> Result<Bindings, TheiaError> {
    let mut map = default_bindings(program);
    let semantics: BTreeMap<_, _> = inputs(program).into_iter().collect();
    for (&reg, &addr) in overrides {
        if !semantics.contains_key(&reg) {
            return Err(TheiaError::Unsupported {
                location: Location::Unknown,
                what: format!("the binding of IN[{reg}]"),
                why: "the shader declares no such input".into(),
            });
        }
        if addr >= 128 {
            return Err(TheiaError::Unsupported {
                location: Location::Unknown,
                what: format!(
                    "the binding IN[{reg}]={}",
                    register_name(addr).map_or_else(|| addr.to_string(), str::to_string)
                ),
                why: "output registers (128 and above) cannot be read".into(),
            });
        }
        map.insert(reg, addr);
    }
    Ok(Bindings { map, semantics })
}
