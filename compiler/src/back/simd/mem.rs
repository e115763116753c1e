//! Memory and call-outs: register files in structure-of-arrays form, arrays, constants,
//! immediates and EMIT (texture lookups are in `texture/`). Every address is computed from a
//! clamped index (or a checked one, with a harmless fallback), so generated code never touches
//! memory outside its buffers. An index every lane shares is one vector access; per-lane
//! indices gather.

use super::builder::{Callee, IBin, Kind, R, SBin, Scalar, SimdBuilder, kind};
use super::lower::Lower;
use crate::back::abi::BATCH_LANES;
use crate::back::abi::Invariant;
use crate::ir::{self, ICmp, Op};

const LANES: i64 = BATCH_LANES as i64;

/// The scalar a lane of `kind` is loaded as: floats as floats, so that a target's optimizer
/// never sees them as integers reinterpreted (see `float_equal` in `ops.rs`).
pub(super) fn scalar(kind: Kind) -> Scalar {
    if kind == Kind::F32 {
        Scalar::F32
    } else {
        Scalar::I32
    }
}

/// An indirect access: register `offset + index`, which must land in `lo..=hi`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Range {
    pub offset: i32,
    pub lo: u32,
    pub hi: u32,
}

impl Range {
    pub fn new(offset: i32, lo: u32, hi: u32) -> Range {
        Range { offset, lo, hi }
    }

    /// The relative index range `[lo − offset, hi − offset]` as i32 bounds; `Err` when no
    /// 32-bit index reaches the range (`true`: every index lands above `hi`).
    fn relative(self) -> Result<(i32, i32), bool> {
        let l = self.lo as i64 - self.offset as i64;
        let h = self.hi as i64 - self.offset as i64;
        if l > i32::MAX as i64 {
            return Err(false);
        }
        if h < i32::MIN as i64 {
            return Err(true);
        }
        Ok((l.max(i32::MIN as i64) as i32, h.min(i32::MAX as i64) as i32))
    }
}

/// Where a register file's register `first` starts: `base` words into the buffer.
#[derive(Debug, Clone, Copy)]
struct File<S> {
    ptr: S,
    first: i64,
    base: i64,
}

impl<B: SimdBuilder> Lower<'_, B> {
    /// The address of scratch word `at`.
    pub(super) fn scratch(&mut self, at: i64) -> R<B::S> {
        let w = self.sconst(at)?;
        self.b.word_addr(self.p.scratch, w)
    }

    /// The address of word `word` (plus this step's first lane) of a structure-of-arrays file.
    fn soa(&mut self, base: B::S, word: i64) -> R<B::S> {
        let w = self.sk(SBin::Add, self.p.lane0, word)?;
        self.b.word_addr(base, w)
    }

    /// `offset + clamp(d, lo − offset, hi − offset)`: register numbers in `lo..=hi`.
    fn clamp_index(&mut self, d: B::V, r: Range) -> R<B::V> {
        match r.relative() {
            Err(above) => self.iconst(if above { r.hi } else { r.lo }),
            Ok((l, h)) => {
                let x = self.ik(IBin::SMin, d, h as u32)?;
                let x = self.ik(IBin::SMax, x, l as u32)?;
                self.ik(IBin::Add, x, r.offset as u32)
            }
        }
    }

    /// Per lane `l`, the word `(reg_l − first)·4·BATCH_LANES + comp·BATCH_LANES + base +
    /// lane0 + l` of a file (`regs` register numbers from `first`).
    fn lane_words(&mut self, regs: B::V, comp: u8, file: File<B::S>) -> R<B::V> {
        let r = self.ik(IBin::Sub, regs, file.first as u32)?;
        let w = self.ik(IBin::Mul, r, 4 * LANES as u32)?;
        let w = self.ik(IBin::Add, w, (comp as i64 * LANES + file.base) as u32)?;
        let iota = self.b.iota()?;
        let w = self.b.ibin(IBin::Add, w, iota)?;
        let l0 = self.b.sconvert(self.p.lane0, Scalar::I32, false)?;
        let l0 = self.b.splat(l0)?;
        self.b.ibin(IBin::Add, w, l0)
    }

    /// The address of lane 0's word of register `r` (an I32 shared by every lane) of a file.
    fn reg_addr(&mut self, r: B::S, comp: u8, file: File<B::S>) -> R<B::S> {
        let r = self.b.sconvert(r, Scalar::I64, false)?;
        let r = self.sk(SBin::Add, r, -file.first)?;
        let w = self.sk(SBin::Mul, r, 4 * LANES)?;
        let w = self.sk(SBin::Add, w, comp as i64 * LANES + file.base)?;
        let w = self.b.sbin(SBin::Add, w, self.p.lane0)?;
        self.b.word_addr(file.ptr, w)
    }

    /// Reads component `comp` of a file at `regs` (a register per lane), by one vector load
    /// when `uniform`.
    fn read_file(
        &mut self,
        k: Kind,
        regs: B::V,
        uniform: bool,
        comp: u8,
        file: File<B::S>,
    ) -> R<B::V> {
        if uniform {
            let r = self.b.extract(regs, 0)?;
            let a = self.reg_addr(r, comp, file)?;
            return self.b.load_vector(k, a);
        }
        let words = self.lane_words(regs, comp, file)?;
        self.b.gather(k, file.ptr, words)
    }

    /// A read (inputs, system values, constants, immediates, arrays) defining `result`.
    pub(super) fn read(&mut self, op: &Op, args: &[ir::Value], result: ir::Value) -> R<B::V> {
        let k = kind(self.f.ty(result));
        let inputs = File {
            ptr: self.p.inputs,
            first: 0,
            base: 0,
        };
        match *op {
            Op::Input { reg, comp: 0 } => {
                // Component x has its own base and stride (`JitArgs::inputs_x`).
                let w = self.sk(SBin::Mul, self.p.inputs_x_stride, reg as i64)?;
                let w = self.b.sbin(SBin::Add, w, self.p.lane0)?;
                let a = self.b.word_addr(self.p.inputs_x, w)?;
                self.b.load_vector(k, a)
            }
            Op::Input { reg, comp } | Op::SysVal { reg, comp } => {
                let base = if matches!(op, Op::Input { .. }) {
                    self.p.inputs
                } else {
                    self.p.sv
                };
                let a = self.soa(base, (reg as i64 * 4 + comp as i64) * LANES)?;
                self.b.load_vector(k, a)
            }
            Op::InputIndirect {
                offset,
                lo,
                hi,
                comp,
            } => {
                if self.f.input_regs == 0 || hi >= self.f.input_regs {
                    return self.b.splat_const(k, 0);
                }
                let d = self.get(args[0])?;
                let regs = self.clamp_index(d, Range::new(offset, lo, hi))?;
                let uniform = self.is_uniform(args[0]);
                self.read_file(k, regs, uniform, comp, inputs)
            }
            Op::GsInput {
                vertex,
                reg,
                lo,
                hi,
                comp,
            } => {
                let per = self.f.input_regs;
                let verts = self.f.gs_vertices.max(1);
                if per == 0 || hi >= per {
                    return self.b.splat_const(k, 0);
                }
                let (dv, dr) = (self.get(args[0])?, self.get(args[1])?);
                let vs = self.clamp_index(dv, Range::new(vertex, 0, verts - 1))?;
                let rs = self.clamp_index(dr, Range::new(reg, lo, hi))?;
                // register = vertex·per + reg
                let regs = self.ik(IBin::Mul, vs, per)?;
                let regs = self.b.ibin(IBin::Add, regs, rs)?;
                let uniform = self.is_uniform(args[0]) && self.is_uniform(args[1]);
                self.read_file(k, regs, uniform, comp, inputs)
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
                let x = self.b.load(scalar(k), self.p.uniforms, 4 * slot as i32)?;
                self.b.splat(x)
            }
            Op::UniformIndirect {
                buffer,
                offset,
                comp,
            } => {
                let (db, di) = (self.get(args[0])?, self.get(args[1])?);
                let at = (buffer, offset, comp);
                if self.is_uniform(args[0]) && self.is_uniform(args[1]) {
                    // One address for every lane.
                    let (bl, il) = (self.b.extract(db, 0)?, self.b.extract(di, 0)?);
                    let x = self.constant_read(scalar(k), bl, il, at)?;
                    return self.b.splat(x);
                }
                if self.is_uniform(args[0]) {
                    // One buffer for every lane (the usual `CONST[ADDR[0].x + k]`).
                    let bl = self.b.extract(db, 0)?;
                    return self.constant_gather(k, bl, di, at);
                }
                let mut acc = self.b.splat_const(k, 0)?;
                for l in 0..self.b.lanes() {
                    let (bl, il) = (self.b.extract(db, l)?, self.b.extract(di, l)?);
                    let x = self.constant_read(scalar(k), bl, il, at)?;
                    acc = self.b.insert(acc, l, x)?;
                }
                Ok(acc)
            }
            Op::ImmIndirect { offset, comp } => {
                let n = self.f.immediates.len() as u32;
                if n == 0 {
                    return self.b.splat_const(k, 0);
                }
                let d = self.get(args[0])?;
                let regs = self.clamp_index(d, Range::new(offset, 0, n - 1))?;
                let words = self.b.shift_imm(super::builder::Shift::Shl, regs, 2)?;
                let words = self.ik(IBin::Add, words, comp as u32)?;
                self.b.gather(k, self.p.immediates, words)
            }
            Op::ArrayLoad {
                array,
                comp,
                offset,
                lo,
                hi,
            } => {
                let d = self.get(args[0])?;
                let regs = self.clamp_index(d, Range::new(offset, lo, hi))?;
                let file = self.array_file(array);
                let uniform = self.is_uniform(args[0]);
                self.read_file(k, regs, uniform, comp, file)
            }
            ref other => Err(Invariant::NoLowering(format!("{other:?}")).into()),
        }
    }

    fn array_file(&self, array: u32) -> File<B::S> {
        File {
            ptr: self.p.arrays,
            first: self.f.arrays[array as usize].first as i64,
            base: self.array_base[array as usize] as i64,
        }
    }

    /// Constant buffer `buffer + b` (`b` an I32 scalar): whether it exists, its registers'
    /// address and its length (I64). With no buffer at all, `constants` still points to one
    /// (empty) descriptor: a pointer and a length, four words.
    fn constant_buffer(&mut self, b: B::S, buffer: i32) -> R<(B::S, B::S, B::S)> {
        let b = self.b.sconvert(b, Scalar::I64, true)?;
        let b = self.sk(SBin::Add, b, buffer as i64)?;
        let b_ok = self.b.scmp(true, b, self.p.num_constants)?;
        let zero = self.sconst(0)?;
        let b_safe = self.b.sselect(b_ok, b, zero)?;
        let d = self.sk(SBin::Mul, b_safe, 4)?;
        let desc = self.b.word_addr(self.p.constants, d)?;
        let ptr = self.b.load(Scalar::Ptr, desc, 0)?;
        let len = self.b.load(Scalar::I64, desc, 8)?;
        Ok((b_ok, ptr, len))
    }

    /// `CONST[buffer + b][offset + i].comp` as a `ty` for one address (I32 scalars `b` and
    /// `i`): 0 outside the bound buffers.
    fn constant_read(
        &mut self,
        ty: Scalar,
        b: B::S,
        i: B::S,
        (buffer, offset, comp): (i32, i32, u8),
    ) -> R<B::S> {
        let (b_ok, ptr, len) = self.constant_buffer(b, buffer)?;
        let i = self.b.sconvert(i, Scalar::I64, true)?;
        let i = self.sk(SBin::Add, i, offset as i64)?;
        let i_ok = self.b.scmp(true, i, len)?;
        let ok = self.b.sbin(SBin::And, b_ok, i_ok)?;
        let w = self.sk(SBin::Mul, i, 4)?;
        let w = self.sk(SBin::Add, w, comp as i64)?;
        let a = self.b.word_addr(ptr, w)?;
        let a = self.b.sselect(ok, a, self.p.zeros)?;
        let x = self.b.load(ty, a, 0)?;
        let z = self.b.sconst(ty, 0)?;
        self.b.sselect(ok, x, z)
    }

    /// `CONST[buffer + b][offset + i].comp` as a vector of `kind`, `b` (an I32 scalar) the same
    /// for every lane and `i` a vector: the buffer's descriptor once, then one gather; lanes
    /// outside the buffer read 0, as [`Self::constant_read`].
    fn constant_gather(
        &mut self,
        kind: Kind,
        b: B::S,
        i: B::V,
        (buffer, offset, comp): (i32, i32, u8),
    ) -> R<B::V> {
        let (b_ok, ptr, len) = self.constant_buffer(b, buffer)?;
        let zero = self.sconst(0)?;
        // A missing buffer has no registers; word indices stay below 2^31
        // (`MAX_CONST_REGISTERS`); an empty buffer's lanes read the zero words.
        let len = self.b.sselect(b_ok, len, zero)?;
        let cap = self.sconst(crate::back::abi::MAX_CONST_REGISTERS as i64)?;
        let small = self.b.scmp(true, len, cap)?;
        let len = self.b.sselect(small, len, cap)?;
        let nonempty = self.b.scmp(false, len, zero)?;
        let base = self.b.sselect(nonempty, ptr, self.p.zeros)?;
        let len = self.b.sconvert(len, Scalar::I32, false)?;
        let len = self.b.splat(len)?;
        // The register is `i + offset` exactly (in i64): in range when the i32 sum does not
        // wrap and is below the length, compared unsigned (a negative one is huge).
        let r = self.ik(IBin::Add, i, offset as u32)?;
        let wrapped = if offset >= 0 {
            self.b.icmp(ICmp::SLt, r, i)?
        } else {
            self.b.icmp(ICmp::SLt, i, r)?
        };
        let below = self.b.icmp(ICmp::ULt, r, len)?;
        let ok = self.b.ibin(IBin::AndNot, below, wrapped)?;
        let words = self.b.shift_imm(super::builder::Shift::Shl, r, 2)?;
        let words = self.ik(IBin::Add, words, comp as u32)?;
        let at_comp = self.iconst(comp as u32)?;
        let words = self.b.select(ok, words, at_comp)?;
        let x = self.b.gather(kind, base, words)?;
        let z = self.b.splat_const(kind, 0)?;
        self.b.select(ok, x, z)
    }

    /// OUT[reg].comp for the active lanes. The component's first store, when no branch or
    /// loop holds it (the lifted IR stores every output once, at the end), writes 0 in the
    /// other lanes rather than keeping what the memory held: the caller then need not zero
    /// it for every batch, and lanes that do not run read 0 as before. A geometry shader's
    /// EMIT reads the outputs before their stores, so it keeps the zeroed memory.
    pub(super) fn store_output(&mut self, reg: u32, comp: u8, v: B::V) -> R<()> {
        let k = reg as usize * 4 + comp as usize;
        if self.stores.len() <= k {
            self.stores.resize(k + 1, None);
        }
        let first = self.stores[k].is_none();
        let whole = first
            && self.ifs.is_empty()
            && self.loops.is_empty()
            && self.f.processor != crate::tgsi::Processor::Geometry;
        if first {
            self.stores[k] = Some(whole);
        }
        let a = self.soa(self.p.outputs, (reg as i64 * 4 + comp as i64) * LANES)?;
        let old = if whole {
            self.b.splat_const(Kind::I32, 0)?
        } else {
            self.b.load_vector(Kind::I32, a)?
        };
        let exec = self.exec()?;
        let v = self.b.cast(v, Kind::I32)?;
        let new = self.b.select(exec, v, old)?;
        self.b.store_vector(a, new)
    }

    /// 0 in this step's lanes of every output component the body stores whole: the body
    /// did not run them.
    pub(super) fn zero_stored_outputs(&mut self) -> R<()> {
        let zero = self.b.splat_const(Kind::I32, 0)?;
        for k in 0..self.stores.len() {
            if self.stores[k] == Some(true) {
                let a = self.soa(self.p.outputs, k as i64 * LANES)?;
                self.b.store_vector(a, zero)?;
            }
        }
        Ok(())
    }

    /// An array store: lanes whose register lands in `lo..=hi` (and are active) write.
    pub(super) fn array_store(
        &mut self,
        array: u32,
        comp: u8,
        at: Range,
        index: ir::Value,
        d: B::V,
        v: B::V,
    ) -> R<()> {
        let Ok((l, h)) = at.relative() else {
            return Ok(());
        };
        let file = self.array_file(array);
        let (vl, vh) = (self.iconst(l as u32)?, self.iconst(h as u32)?);
        let ge = self.b.icmp(ICmp::SGe, d, vl)?;
        let le = self.b.icmp(ICmp::SGe, vh, d)?;
        let m = self.b.ibin(IBin::And, ge, le)?;
        let exec = self.exec()?;
        let mask = self.b.ibin(IBin::And, m, exec)?;
        // In range, offset + d is the register.
        let regs = self.clamp_index(d, at)?;
        let v = self.b.cast(v, Kind::I32)?;
        if self.is_uniform(index) {
            // One register for every lane: a blended vector store.
            let r = self.b.extract(regs, 0)?;
            let a = self.reg_addr(r, comp, file)?;
            let old = self.b.load_vector(Kind::I32, a)?;
            let new = self.b.select(mask, v, old)?;
            return self.b.store_vector(a, new);
        }
        let words = self.lane_words(regs, comp, file)?;
        let trash = self.sconst(self.trash as i64)?;
        let spare = self.b.word_addr(self.p.arrays, trash)?;
        self.b.scatter(self.p.arrays, words, v, mask, spare)
    }

    /// Stores the bits of `args` to the scratch area, `lanes` words each.
    pub(super) fn spill_args(&mut self, args: &[ir::Value]) -> R<usize> {
        let n = self.b.lanes() as i64;
        for (k, &x) in args.iter().enumerate() {
            let v = self.get_bits(x)?;
            let p = self.scratch(k as i64 * n)?;
            self.b.store_vector(p, v)?;
        }
        Ok(args.len())
    }

    /// The call-out arguments every callback ends with: the active lanes' bits, the step's
    /// first lane and the lane count.
    pub(super) fn lane_args(&mut self) -> R<[B::S; 3]> {
        let exec = self.exec()?;
        let mask = self.b.mask_bits(exec)?;
        let lane0 = self.b.sconvert(self.p.lane0, Scalar::I32, false)?;
        let n = self.b.sconst(Scalar::I32, self.b.lanes() as i64)?;
        Ok([mask, lane0, n])
    }

    /// EMIT (`emit`) or ENDPRIM through the host's callback.
    pub(super) fn emit(&mut self, emit: bool, args: &[ir::Value]) -> R<()> {
        let count = self.spill_args(args)?;
        let is_emit = self.b.sconst(Scalar::I32, emit as i64)?;
        let ptr = self.scratch(0)?;
        let count = self.b.sconst(Scalar::I32, count as i64)?;
        let [mask, lane0, lanes] = self.lane_args()?;
        let callee = Callee::Emit(self.p.emit);
        self.b.call(
            callee,
            &[self.p.callbacks, is_emit, ptr, count, mask, lane0, lanes],
        )
    }
}
