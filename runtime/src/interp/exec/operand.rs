//! Operands: register reads with indirect addressing (clamped to the declared range, CONST past its
//! buffer reading 0), source fetches with swizzles and modifiers, stores under the write mask and
//! execution mask, NV condition codes, and writing an instruction's result (saturation,
//! precision, condition-code updates).

use super::*;

impl Exec<'_> {
    /// Per-lane values of an index (offset plus the indirect register component).
    pub(in crate::interp) fn index_lanes(&self, idx: &Index) -> [i64; BATCH_LANES] {
        let mut out = [idx.offset as i64; BATCH_LANES];
        if let Some(ind) = &idx.indirect {
            let v = self.read(&ind.register, ind.component.index());
            for l in 0..BATCH_LANES {
                out[l] += v[l] as i32 as i64;
            }
        }
        out
    }

    /// The storage of a per-lane file and its clamping range for indirect access.
    pub(super) fn storage(&self, file: File) -> Option<&Vec<Reg>> {
        match file {
            File::Temporary => Some(&self.regs.temps),
            File::Output => Some(&self.regs.outputs),
            File::Input => Some(&self.regs.inputs),
            File::Address => Some(&self.regs.addr),
            File::SystemValue => Some(&self.regs.sv),
            _ => None,
        }
    }

    pub(super) fn clamp_range(&self, r: &Register) -> RegRange {
        r.array_id
            .and_then(|id| self.p.arrays.get(&(r.file, id)).copied())
            .or_else(|| self.p.spans.get(&r.file).copied())
            .unwrap_or(RegRange { first: 0, last: 0 })
    }

    /// Reads component `c` of register `r` for every lane (`docs/semantics.md`: CONST reads beyond
    /// the bound buffer give 0; other indirect reads are clamped to the declared range).
    pub fn read(&self, r: &Register, c: usize) -> Chan {
        let direct = !r.is_indirect();
        match r.file {
            File::Constant => {
                let buf = r.dimensions.first();
                if direct {
                    let bi = buf.map_or(0, |d| d.offset as i64);
                    return [self.constant(bi, r.index.offset as i64, c); BATCH_LANES];
                }
                let idx = self.index_lanes(&r.index);
                let bufs = buf.map_or([0; BATCH_LANES], |d| self.index_lanes(d));
                std::array::from_fn(|l| self.constant(bufs[l], idx[l], c))
            }
            File::Immediate => {
                let imms = &self.p.program.immediates;
                let i = if direct {
                    r.index.offset as i64
                } else {
                    // Clamped per lane below.
                    -1
                };
                if i >= 0 {
                    return [imms
                        .get(i as usize)
                        .and_then(|v| v.values.get(c))
                        .copied()
                        .unwrap_or(0); BATCH_LANES];
                }
                let idx = self.index_lanes(&r.index);
                let last = imms.len().saturating_sub(1) as i64;
                std::array::from_fn(|l| {
                    let k = idx[l].clamp(0, last) as usize;
                    imms.get(k)
                        .and_then(|v| v.values.get(c))
                        .copied()
                        .unwrap_or(0)
                })
            }
            File::Input if self.p.program.processor == Processor::Geometry => {
                let per = self.p.size(File::Input);
                let verts = self.p.gs_vertices as i64;
                let range = self.clamp_range(r);
                let v = r
                    .dimensions
                    .first()
                    .map_or([0; BATCH_LANES], |d| self.index_lanes(d));
                let idx = self.index_lanes(&r.index);
                std::array::from_fn(|l| {
                    let vi = v[l].clamp(0, verts - 1) as usize;
                    let ri = idx[l].clamp(range.first as i64, range.last as i64) as usize;
                    self.regs
                        .inputs
                        .get(vi * per + ri)
                        .map_or(0, |reg| reg[c][l])
                })
            }
            file => {
                let Some(store) = self.storage(file) else {
                    return [0; BATCH_LANES];
                };
                if direct {
                    return store
                        .get(r.index.offset as usize)
                        .map_or([0; BATCH_LANES], |reg| reg[c]);
                }
                let range = self.clamp_range(r);
                let idx = self.index_lanes(&r.index);
                std::array::from_fn(|l| {
                    let k = idx[l].clamp(range.first as i64, range.last as i64) as usize;
                    store.get(k).map_or(0, |reg| reg[c][l])
                })
            }
        }
    }

    pub(super) fn constant(&self, buf: i64, idx: i64, c: usize) -> u32 {
        if buf < 0 || idx < 0 {
            return 0;
        }
        self.bind
            .constants
            .get(buf as usize)
            .and_then(|b| b.get(idx as usize))
            .map_or(0, |v| v[c])
    }

    /// Fetches a source operand's components `comps` (bit c = component c) with all modifiers
    /// applied (`docs/semantics.md`, "Source operands").
    pub fn fetch(&self, s: &Src, comps: u8) -> Reg {
        let mut out = [[0u32; BATCH_LANES]; 4];
        let sel = |x: ExtSwizzle| -> Chan {
            match x.component() {
                Some(k) => self.read(&s.register, k.index()),
                None if x == ExtSwizzle::Zero => [0; BATCH_LANES],
                None => [1f32.to_bits(); BATCH_LANES],
            }
        };
        let divisor = (s.divide != ExtSwizzle::One).then(|| sel(s.divide));
        for c in 0..4 {
            if comps & (1 << c) == 0 {
                continue;
            }
            let mut v = sel(s.swizzle[c]);
            if let Some(d) = &divisor {
                for l in 0..BATCH_LANES {
                    v[l] = b(crate::interp::num::div(f(v[l]), f(d[l])));
                }
            }
            let sign = if s.absolute {
                for x in v.iter_mut() {
                    *x &= 0x7FFF_FFFF;
                }
                s.negate_after
            } else {
                s.negate ^ (s.negate_components & (1 << c) != 0) ^ s.negate_after
            };
            if sign {
                for x in v.iter_mut() {
                    *x ^= 0x8000_0000;
                }
            }
            if s.complement {
                v = v.map(|x| b(1.0 - f(x)));
            }
            if s.bias {
                v = v.map(|x| b(f(x) - 0.5));
            }
            if s.scale2x {
                v = v.map(|x| b(crate::interp::num::mul(f(x), 2.0)));
            }
            out[c] = v;
        }
        out
    }

    /// Writes component `c` of destination register `r` for the lanes of `mask`; an indirect
    /// write outside the declared range is dropped for that lane.
    pub fn store(&mut self, r: &Register, c: usize, v: &Chan, mask: Mask) {
        if mask == 0 || r.file == File::Null {
            return;
        }
        let direct = !r.is_indirect();
        let range = self.clamp_range(r);
        let idx = if direct {
            [r.index.offset as i64; BATCH_LANES]
        } else {
            self.index_lanes(&r.index)
        };
        let store = match r.file {
            File::Temporary => &mut self.regs.temps,
            File::Output => &mut self.regs.outputs,
            File::Address => &mut self.regs.addr,
            _ => return,
        };
        for l in lanes(mask) {
            let k = idx[l];
            if !direct && (k < range.first as i64 || k > range.last as i64) {
                continue;
            }
            if let Some(reg) = store.get_mut(k as usize) {
                reg[c][l] = v[l];
            }
        }
    }

    /// Whether an NV condition test passes for component `c` of each lane.
    pub(super) fn cc_test(&self, t: &CondTest, c: usize) -> Mask {
        let Some(reg) = self.regs.cc.get(t.index as usize) else {
            return ALL;
        };
        let chan = &reg[t.swizzle[c].index()];
        mask_of(|l| {
            let v = f(chan[l]);
            match t.mask {
                CondMask::Gt => v > 0.0,
                CondMask::Eq => v == 0.0,
                CondMask::Lt => v < 0.0,
                CondMask::Un => v.is_nan(),
                CondMask::Ge => v >= 0.0,
                CondMask::Le => v <= 0.0,
                CondMask::Ne => v != 0.0,
                CondMask::Tr => true,
                CondMask::Fl => false,
            }
        })
    }

    /// Lanes for which the instruction-level condition (if any) holds, on component x.
    pub fn inst_cond(&self, inst: &Instruction) -> Mask {
        inst.cond_test.as_ref().map_or(ALL, |t| self.cc_test(t, 0))
    }

    /// Stores an instruction's result: modulate, saturate, precision, condition-code update,
    /// then the write of each enabled component for the lanes of `exec`.
    pub fn write_result(&mut self, inst: &Instruction, res: &Reg, exec: Mask) {
        let Some(d) = inst.dst.first() else { return };
        for c in 0..4 {
            if !d.write_mask.has(c) {
                continue;
            }
            let mut v = res[c];
            if d.modulate != Modulate::X1 {
                let k = d.modulate.factor();
                v = v.map(|x| b(crate::interp::num::mul(f(x), k)));
            }
            match inst.saturate {
                Saturate::None => {}
                Saturate::ZeroOne => v = v.map(|x| b(num::sat01(f(x)))),
                Saturate::MinusPlusOne => v = v.map(|x| b(num::sat11(f(x)))),
            }
            match inst.precision {
                Precision::Float16 => v = v.map(|x| b(num::f16_to_f32(num::f32_to_f16(f(x))))),
                Precision::Fixed12 => v = v.map(|x| b(num::fixed12(f(x)))),
                _ => {}
            }
            let mut m = exec & self.inst_cond_component(inst, c);
            if let Some(t) = &d.cond {
                m &= self.cc_test(t, c);
            }
            if let Some(n) = inst.cond_update
                && let Some(cc) = self.regs.cc.get_mut(n as usize)
            {
                for l in lanes(m) {
                    cc[c][l] = v[l];
                }
            }
            self.store(&d.register, c, &v, m);
        }
    }

    pub(super) fn inst_cond_component(&self, inst: &Instruction, c: usize) -> Mask {
        inst.cond_test.as_ref().map_or(ALL, |t| self.cc_test(t, c))
    }
}
