//! Memory: register files in structure-of-arrays form, arrays, constants, immediates. Every
//! address is computed from a clamped index (or a checked one, with a harmless fallback), so
//! generated code never touches memory outside its buffers.

use super::{BATCH_LANES, L, Lower, flags};
use crate::ir::{self, Op};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, Value, types};

const LANES: i64 = BATCH_LANES as i64;

/// The relative index range `[lo − offset, hi − offset]` of an access, as i32 bounds; `None`
/// when no 32-bit index reaches the range (the access always clamps to one end, or a store
/// never lands).
fn rel_bounds(offset: i32, lo: u32, hi: u32) -> Result<(i32, i32), bool> {
    let l = lo as i64 - offset as i64;
    let h = hi as i64 - offset as i64;
    if l > i32::MAX as i64 {
        return Err(false); // every index lands below lo
    }
    if h < i32::MIN as i64 {
        return Err(true); // every index lands above hi
    }
    Ok((l.max(i32::MIN as i64) as i32, h.min(i32::MAX as i64) as i32))
}

impl Lower<'_, '_> {
    /// Address of word `word` of a structure-of-arrays file at lane 0 of this group.
    fn soa(&mut self, base: Value, word: i64) -> Value {
        let lane = self.b.ins().iadd_imm_s(self.p.lane0, word);
        let bytes = self.b.ins().ishl_imm_u(lane, 2);
        self.b.ins().iadd(base, bytes)
    }

    fn load_vectors(&mut self, addr: Value) -> L {
        (0..self.k)
            .map(|k| {
                self.b
                    .ins()
                    .load(types::I32X4, flags(), addr, (16 * k) as i32)
            })
            .collect()
    }

    fn store_vectors(&mut self, addr: Value, v: &L) {
        for (k, &x) in v.iter().enumerate() {
            let x = self.bitcast(x, types::I32X4);
            self.b.ins().store(flags(), x, addr, (16 * k) as i32);
        }
    }

    /// `offset + clamp(d, lo − offset, hi − offset)`: register numbers in `lo..=hi`.
    fn clamp_index(&mut self, d: &L, offset: i32, lo: u32, hi: u32) -> L {
        match rel_bounds(offset, lo, hi) {
            Err(above) => {
                let r = if above { hi } else { lo };
                self.splat(types::I32X4, r)
            }
            Ok((l, h)) => {
                let vl = self.vconst(types::I32X4, [l as u32; 4]);
                let vh = self.vconst(types::I32X4, [h as u32; 4]);
                let vo = self.vconst(types::I32X4, [offset as u32; 4]);
                d.iter()
                    .map(|&x| {
                        let x = self.bitcast(x, types::I32X4);
                        let x = self.b.ins().smin(x, vh);
                        let x = self.b.ins().smax(x, vl);
                        self.b.ins().iadd(x, vo)
                    })
                    .collect()
            }
        }
    }

    /// Per-lane loads: lane j reads word `(reg_j·4 + comp)·BATCH_LANES + lane0 + j` of a file
    /// (`scale` registers of four components; `stride` adds `reg·stride` words instead).
    fn gather(&mut self, base: Value, regs: &L, word_of: impl Fn(&mut Self, Value) -> Value) -> L {
        let mut out = Vec::new();
        for (k, &rv) in regs.iter().enumerate() {
            let mut acc = self.vconst(types::I32X4, [0; 4]);
            for i in 0..4u8 {
                let r = self.b.ins().extractlane(rv, i);
                let word = word_of(self, r);
                let word = self.b.ins().iadd_imm_s(word, 4 * k as i64 + i as i64);
                let word = self.b.ins().iadd(word, self.p.lane0);
                let bytes = self.b.ins().ishl_imm_u(word, 2);
                let addr = self.b.ins().iadd(base, bytes);
                let x = self.b.ins().load(types::I32, flags(), addr, 0);
                acc = self.b.ins().insertlane(acc, x, i);
            }
            out.push(acc);
        }
        out
    }

    /// `(reg·4 + comp)·BATCH_LANES` for a lane's register number (i32, non-negative).
    fn reg_word(&mut self, r: Value, comp: u8, first: i64, base_words: i64) -> Value {
        let r = self.b.ins().uextend(types::I64, r);
        let r = self.b.ins().iadd_imm_s(r, -first);
        let w = self.b.ins().imul_imm_s(r, 4 * LANES);
        self.b.ins().iadd_imm_s(w, comp as i64 * LANES + base_words)
    }

    pub(super) fn is_uniform(&self, v: ir::Value) -> bool {
        self.f.uniform.get(v.index()).copied().unwrap_or(false)
    }

    /// A read (inputs, system values, constants, immediates, arrays).
    pub(super) fn load(&mut self, op: &Op, args: &[ir::Value], result: ir::Value) -> L {
        match *op {
            Op::Input { reg, comp } => {
                let a = self.soa(self.p.inputs, (reg as i64 * 4 + comp as i64) * LANES);
                self.load_vectors(a)
            }
            Op::SysVal { reg, comp } => {
                let a = self.soa(self.p.sv, (reg as i64 * 4 + comp as i64) * LANES);
                self.load_vectors(a)
            }
            Op::InputIndirect {
                offset,
                lo,
                hi,
                comp,
            } => {
                if self.f.input_regs == 0 || hi >= self.f.input_regs {
                    return self.splat(types::I32X4, 0);
                }
                let d = self.get(args[0]);
                let regs = self.clamp_index(&d, offset, lo, hi);
                if self.is_uniform(args[0]) {
                    let r = self.b.ins().extractlane(regs[0], 0);
                    let w = self.reg_word(r, comp, 0, 0);
                    let w = self.b.ins().iadd(w, self.p.lane0);
                    let bytes = self.b.ins().ishl_imm_u(w, 2);
                    let a = self.b.ins().iadd(self.p.inputs, bytes);
                    return self.load_vectors(a);
                }
                let base = self.p.inputs;
                self.gather(base, &regs, |s, r| s.reg_word(r, comp, 0, 0))
            }
            Op::GsInput {
                vertex,
                reg,
                lo,
                hi,
                comp,
            } => {
                let per = self.f.input_regs as i64;
                let verts = self.f.gs_vertices.max(1);
                if per == 0 || hi as i64 >= per {
                    return self.splat(types::I32X4, 0);
                }
                let (dv, dr) = (self.get(args[0]), self.get(args[1]));
                let vs = self.clamp_index(&dv, vertex, 0, verts - 1);
                let rs = self.clamp_index(&dr, reg, lo, hi);
                // register = vertex·per + reg
                let vper = self.vconst(types::I32X4, [per as u32; 4]);
                let regs: L = vs
                    .iter()
                    .zip(&rs)
                    .map(|(&v, &r)| {
                        let m = self.b.ins().imul(v, vper);
                        self.b.ins().iadd(m, r)
                    })
                    .collect();
                let base = self.p.inputs;
                self.gather(base, &regs, |s, r| s.reg_word(r, comp, 0, 0))
            }
            Op::Uniform { buffer, reg, comp } => {
                let key = (buffer, reg, comp);
                let slot = match self.uniform_slots.get(&key) {
                    Some(&s) => s,
                    None => {
                        let s = self.uniforms.len() as u32;
                        self.uniforms.push(key);
                        self.uniform_slots.insert(key, s);
                        s
                    }
                };
                let x = self
                    .b
                    .ins()
                    .load(types::I32, flags(), self.p.uniforms, (4 * slot) as i32);
                let v = self.b.ins().splat(types::I32X4, x);
                vec![v; self.k]
            }
            Op::UniformIndirect {
                buffer,
                offset,
                comp,
            } => {
                let (db, di) = (self.get(args[0]), self.get(args[1]));
                let db = self.ints(&db);
                let di = self.ints(&di);
                if self.is_uniform(args[0]) && self.is_uniform(args[1]) {
                    // One address for every lane.
                    let bl = self.b.ins().extractlane(db[0], 0);
                    let il = self.b.ins().extractlane(di[0], 0);
                    let x = self.constant_read(bl, il, buffer, offset, comp);
                    let v = self.b.ins().splat(types::I32X4, x);
                    return vec![v; self.k];
                }
                let mut out = Vec::new();
                for k in 0..self.k {
                    let mut acc = self.vconst(types::I32X4, [0; 4]);
                    for i in 0..4u8 {
                        let bl = self.b.ins().extractlane(db[k], i);
                        let il = self.b.ins().extractlane(di[k], i);
                        let x = self.constant_read(bl, il, buffer, offset, comp);
                        acc = self.b.ins().insertlane(acc, x, i);
                    }
                    out.push(acc);
                }
                out
            }
            Op::ImmIndirect { offset, comp } => {
                let n = self.f.immediates.len() as u32;
                if n == 0 {
                    return self.splat(types::I32X4, 0);
                }
                let d = self.get(args[0]);
                let regs = self.clamp_index(&d, offset, 0, n - 1);
                let mut out = Vec::new();
                for &rv in &regs {
                    let mut acc = self.vconst(types::I32X4, [0; 4]);
                    for i in 0..4u8 {
                        let r = self.b.ins().extractlane(rv, i);
                        let r = self.b.ins().uextend(types::I64, r);
                        let w = self.b.ins().imul_imm_s(r, 16);
                        let a = self.b.ins().iadd(self.p.immediates, w);
                        let x = self.b.ins().load(types::I32, flags(), a, 4 * comp as i32);
                        acc = self.b.ins().insertlane(acc, x, i);
                    }
                    out.push(acc);
                }
                out
            }
            Op::ArrayLoad {
                array,
                comp,
                offset,
                lo,
                hi,
            } => {
                let d = self.get(args[0]);
                let regs = self.clamp_index(&d, offset, lo, hi);
                let first = self.f.arrays[array as usize].first as i64;
                let base_words = self.array_base[array as usize] as i64;
                if self.is_uniform(args[0]) {
                    let r = self.b.ins().extractlane(regs[0], 0);
                    let w = self.reg_word(r, comp, first, base_words);
                    let w = self.b.ins().iadd(w, self.p.lane0);
                    let bytes = self.b.ins().ishl_imm_u(w, 2);
                    let a = self.b.ins().iadd(self.p.arrays, bytes);
                    return self.load_vectors(a);
                }
                let base = self.p.arrays;
                self.gather(base, &regs, |s, r| s.reg_word(r, comp, first, base_words))
            }
            _ => {
                let _ = result;
                unreachable!("every operation with a result is lowered")
            }
        }
    }

    /// CONST[buffer + b][offset + i].comp for one lane (0 outside the bound buffers).
    fn constant_read(&mut self, b: Value, i: Value, buffer: i32, offset: i32, comp: u8) -> Value {
        let b = self.b.ins().sextend(types::I64, b);
        let b = self.b.ins().iadd_imm_s(b, buffer as i64);
        let i = self.b.ins().sextend(types::I64, i);
        let i = self.b.ins().iadd_imm_s(i, offset as i64);
        let zero = self.b.ins().iconst(types::I64, 0);
        // The buffer exists?
        let b_ok = self
            .b
            .ins()
            .icmp(IntCC::UnsignedLessThan, b, self.p.num_constants);
        let b_safe = self.b.ins().select(b_ok, b, zero);
        let desc = self.b.ins().imul_imm_s(b_safe, 16);
        let desc = self.b.ins().iadd(self.p.constants, desc);
        // With no buffer at all, `constants` still points to one (empty) descriptor.
        let ptr = self.b.ins().load(types::I64, flags(), desc, 0);
        let len = self.b.ins().load(types::I64, flags(), desc, 8);
        let i_ok = self.b.ins().icmp(IntCC::UnsignedLessThan, i, len);
        let ok = self.b.ins().band(b_ok, i_ok);
        let w = self.b.ins().imul_imm_s(i, 16);
        let a = self.b.ins().iadd(ptr, w);
        let a = self.b.ins().select(ok, a, self.p.zeros);
        let x = self.b.ins().load(types::I32, flags(), a, 4 * comp as i32);
        let z32 = self.b.ins().iconst(types::I32, 0);
        self.b.ins().select(ok, x, z32)
    }

    /// OUT[reg].comp for the active lanes.
    pub(super) fn store_output(&mut self, reg: u32, comp: u8, v: &L) {
        let a = self.soa(self.p.outputs, (reg as i64 * 4 + comp as i64) * LANES);
        let old = self.load_vectors(a);
        let exec = self.exec();
        let new = self.blend(&exec, v, &old);
        self.store_vectors(a, &new);
    }

    /// An array store: lanes whose register lands in `lo..=hi` (and are active) write.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn array_store(
        &mut self,
        array: u32,
        comp: u8,
        offset: i32,
        lo: u32,
        hi: u32,
        index: ir::Value,
        d: &L,
        v: &L,
    ) {
        let Ok((l, h)) = rel_bounds(offset, lo, hi) else {
            return;
        };
        let first = self.f.arrays[array as usize].first as i64;
        let base_words = self.array_base[array as usize] as i64;
        let vl = self.vconst(types::I32X4, [l as u32; 4]);
        let vh = self.vconst(types::I32X4, [h as u32; 4]);
        let vo = self.vconst(types::I32X4, [offset as u32; 4]);
        let exec = self.exec();
        let mut masks = Vec::new();
        let mut regs = Vec::new();
        for (k, &x) in d.iter().enumerate() {
            let x = self.bitcast(x, types::I32X4);
            let ge = self.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, x, vl);
            let le = self.b.ins().icmp(IntCC::SignedLessThanOrEqual, x, vh);
            let m = self.b.ins().band(ge, le);
            masks.push(self.b.ins().band(m, exec[k]));
            // In range, offset + x is the register.
            let c = self.b.ins().smin(x, vh);
            let c = self.b.ins().smax(c, vl);
            regs.push(self.b.ins().iadd(c, vo));
        }
        if self.is_uniform(index) {
            // One register for every lane: a masked vector store.
            let r = self.b.ins().extractlane(regs[0], 0);
            let w = self.reg_word(r, comp, first, base_words);
            let w = self.b.ins().iadd(w, self.p.lane0);
            let bytes = self.b.ins().ishl_imm_u(w, 2);
            let a = self.b.ins().iadd(self.p.arrays, bytes);
            let old = self.load_vectors(a);
            let new = self.blend(&masks, v, &old);
            self.store_vectors(a, &new);
            return;
        }
        let trash_bytes = self.b.ins().iconst(types::I64, (self.trash * 4) as i64);
        let trash = self.b.ins().iadd(self.p.arrays, trash_bytes);
        for k in 0..self.k {
            let vk = self.bitcast(v[k], types::I32X4);
            for i in 0..4u8 {
                let r = self.b.ins().extractlane(regs[k], i);
                let w = self.reg_word(r, comp, first, base_words);
                let w = self.b.ins().iadd_imm_s(w, 4 * k as i64 + i as i64);
                let w = self.b.ins().iadd(w, self.p.lane0);
                let bytes = self.b.ins().ishl_imm_u(w, 2);
                let a = self.b.ins().iadd(self.p.arrays, bytes);
                let m = self.b.ins().extractlane(masks[k], i);
                let a = self.b.ins().select(m, a, trash);
                let x = self.b.ins().extractlane(vk, i);
                self.b.ins().store(flags(), x, a, 0);
            }
        }
    }
}
