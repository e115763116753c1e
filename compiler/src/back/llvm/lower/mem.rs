//! Memory: register files in structure-of-arrays form, arrays, constants, immediates. Every
//! address is computed from a clamped index (or a checked one, with a harmless fallback), so
//! the generated code never touches memory outside its buffers. Per-lane addresses become
//! `llvm.masked.gather`/`scatter` (one instruction with AVX2 and AVX-512); an index every lane
//! shares becomes one vector access.

use super::{Lower, R, V};
use crate::back::llvm::BATCH_LANES;
use crate::ir::{self, Op};
use inkwell::IntPredicate;
use inkwell::types::{BasicTypeEnum, VectorType};
use inkwell::values::{BasicValueEnum, InstructionOpcode, IntValue, PointerValue};

const LANES: i64 = BATCH_LANES as i64;

/// The relative index range `[lo − offset, hi − offset]` of an access, as i32 bounds; `Err`
/// when no 32-bit index reaches the range (`true`: every index lands above `hi`).
fn rel_bounds(offset: i32, lo: u32, hi: u32) -> Result<(i32, i32), bool> {
    let l = lo as i64 - offset as i64;
    let h = hi as i64 - offset as i64;
    if l > i32::MAX as i64 {
        return Err(false);
    }
    if h < i32::MIN as i64 {
        return Err(true);
    }
    Ok((l.max(i32::MIN as i64) as i32, h.min(i32::MAX as i64) as i32))
}

impl<'ctx> Lower<'_, 'ctx> {
    /// The address of word `word` of a structure-of-arrays file at this step's first lane.
    fn soa(&self, base: PointerValue<'ctx>, word: i64) -> R<PointerValue<'ctx>> {
        let w = self.b.build_int_add(self.p.lane0, self.i64c(word), "")?;
        self.word_ptr(base, w)
    }

    /// `offset + clamp(d, lo − offset, hi − offset)`: register numbers in `lo..=hi`.
    fn clamp_index(&self, d: V<'ctx>, offset: i32, lo: u32, hi: u32) -> R<V<'ctx>> {
        match rel_bounds(offset, lo, hi) {
            Err(above) => Ok(self.iconst(if above { hi } else { lo })),
            Ok((l, h)) => {
                let d = self.ints(d)?;
                let x = self.call2("llvm.smin", d, self.iconst(h as u32))?;
                let x = self.call2("llvm.smax", x, self.iconst(l as u32))?;
                self.add(x, self.iconst(offset as u32))
            }
        }
    }

    /// The lane type of an i32 or float vector.
    fn scalar(&self, ty: VectorType<'ctx>) -> BasicTypeEnum<'ctx> {
        if ty == self.t.vf {
            self.t.f32.into()
        } else {
            self.t.i32.into()
        }
    }

    /// The step's first lane in every lane (i32).
    fn lane0_splat(&self) -> R<V<'ctx>> {
        let l = self.b.build_int_truncate(self.p.lane0, self.t.i32, "")?;
        self.splat(l)
    }

    /// Per lane `l`, the word `(reg_l − first)·4·BATCH_LANES + comp·BATCH_LANES + base +
    /// lane0 + l` of a file (`regs` non-negative register numbers).
    fn lane_words(&self, regs: V<'ctx>, comp: u8, first: i64, base: i64) -> R<V<'ctx>> {
        let r = self.sub(regs, self.iconst(first as u32))?;
        let w = self.mul(r, self.iconst(4 * LANES as u32))?;
        let c = comp as i64 * LANES + base;
        let iota: Vec<u32> = (0..self.lanes).map(|l| (c + l as i64) as u32).collect();
        let w = self.add(w, self.iconsts(&iota))?;
        self.add(w, self.lane0_splat()?)
    }

    /// The same for one register number shared by every lane (i32): the word of lane 0.
    fn reg_word(&self, r: IntValue<'ctx>, comp: u8, first: i64, base: i64) -> R<IntValue<'ctx>> {
        let r = self.b.build_int_z_extend(r, self.t.i64, "")?;
        let r = self.b.build_int_sub(r, self.i64c(first), "")?;
        let w = self.b.build_int_mul(r, self.i64c(4 * LANES), "")?;
        let w = self
            .b
            .build_int_add(w, self.i64c(comp as i64 * LANES + base), "")?;
        Ok(self.b.build_int_add(w, self.p.lane0, "")?)
    }

    /// Reads a file at `regs` (a register per lane), by one vector load when `uniform`.
    #[allow(clippy::too_many_arguments)]
    fn read_file(
        &self,
        ty: VectorType<'ctx>,
        base: PointerValue<'ctx>,
        regs: V<'ctx>,
        uniform: bool,
        comp: u8,
        first: i64,
        base_words: i64,
    ) -> R<V<'ctx>> {
        if uniform {
            let r = self.extract_int(regs)?;
            let w = self.reg_word(r, comp, first, base_words)?;
            let p = self.word_ptr(base, w)?;
            return self.load_vec(ty, p);
        }
        let words = self.lane_words(regs, comp, first, base_words)?;
        let ptrs = self.lane_ptrs(base.into(), words)?;
        self.gather(ty, ptrs)
    }

    /// A read (inputs, system values, constants, immediates, arrays) defining `result`,
    /// loaded as its type.
    pub(super) fn read(&mut self, op: &Op, args: &[ir::Value], result: ir::Value) -> R<V<'ctx>> {
        let ty = self.load_ty(result);
        match *op {
            Op::Input { reg, comp } => {
                let p = self.soa(self.p.inputs, (reg as i64 * 4 + comp as i64) * LANES)?;
                self.load_vec(ty, p)
            }
            Op::SysVal { reg, comp } => {
                let p = self.soa(self.p.sv, (reg as i64 * 4 + comp as i64) * LANES)?;
                self.load_vec(ty, p)
            }
            Op::InputIndirect {
                offset,
                lo,
                hi,
                comp,
            } => {
                if self.f.input_regs == 0 || hi >= self.f.input_regs {
                    return Ok(self.iconst(0));
                }
                let d = self.get(args[0])?;
                let regs = self.clamp_index(d, offset, lo, hi)?;
                let uniform = self.is_uniform(args[0]);
                self.read_file(ty, self.p.inputs, regs, uniform, comp, 0, 0)
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
                    return Ok(self.iconst(0));
                }
                let (dv, dr) = (self.get(args[0])?, self.get(args[1])?);
                let vs = self.clamp_index(dv, vertex, 0, verts - 1)?;
                let rs = self.clamp_index(dr, reg, lo, hi)?;
                // register = vertex·per + reg
                let regs = self.add(self.mul(vs, self.iconst(per))?, rs)?;
                let uniform = self.is_uniform(args[0]) && self.is_uniform(args[1]);
                self.read_file(ty, self.p.inputs, regs, uniform, comp, 0, 0)
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
                let p = self.word_ptr(self.p.uniforms, self.i64c(slot as i64))?;
                let x = self.load(self.scalar(ty), p)?;
                self.splat(x)
            }
            Op::UniformIndirect {
                buffer,
                offset,
                comp,
            } => {
                let db = self.get_i(args[0])?;
                let di = self.get_i(args[1])?;
                if self.is_uniform(args[0]) && self.is_uniform(args[1]) {
                    // One address for every lane.
                    let bl = self.extract_int(db)?;
                    let il = self.extract_int(di)?;
                    let x = self.constant_read(ty, bl, il, buffer, offset, comp)?;
                    return self.splat(x);
                }
                self.constant_gather(ty, db, di, buffer, offset, comp)
            }
            Op::ImmIndirect { offset, comp } => {
                let n = self.f.immediates.len() as u32;
                if n == 0 {
                    return Ok(self.iconst(0));
                }
                let d = self.get(args[0])?;
                let regs = self.clamp_index(d, offset, 0, n - 1)?;
                let words = self.add(self.shl(regs, self.iconst(2))?, self.iconst(comp as u32))?;
                let ptrs = self.lane_ptrs(self.p.immediates.into(), words)?;
                self.gather(ty, ptrs)
            }
            Op::ArrayLoad {
                array,
                comp,
                offset,
                lo,
                hi,
            } => {
                let d = self.get(args[0])?;
                let regs = self.clamp_index(d, offset, lo, hi)?;
                let first = self.f.arrays[array as usize].first as i64;
                let base_words = self.array_base[array as usize] as i64;
                let uniform = self.is_uniform(args[0]);
                self.read_file(ty, self.p.arrays, regs, uniform, comp, first, base_words)
            }
            ref other => Err(crate::back::abi::JitError::Codegen(format!(
                "no lowering for {other:?}"
            ))),
        }
    }

    /// CONST[buffer + b][offset + i].comp for one address (0 outside the bound buffers).
    #[allow(clippy::too_many_arguments)]
    fn constant_read(
        &self,
        ty: VectorType<'ctx>,
        b: IntValue<'ctx>,
        i: IntValue<'ctx>,
        buffer: i32,
        offset: i32,
        comp: u8,
    ) -> R<BasicValueEnum<'ctx>> {
        let bd = &self.b;
        let elem = self.scalar(ty);
        let b = bd.build_int_s_extend(b, self.t.i64, "")?;
        let b = bd.build_int_add(b, self.i64c(buffer as i64), "")?;
        let i = bd.build_int_s_extend(i, self.t.i64, "")?;
        let i = bd.build_int_add(i, self.i64c(offset as i64), "")?;
        let b_ok = bd.build_int_compare(IntPredicate::ULT, b, self.p.num_constants, "")?;
        let b_safe = bd.build_select(b_ok, b, self.i64c(0), "")?.into_int_value();
        // With no buffer at all, `constants` still points to one (empty) descriptor.
        let desc = bd.build_int_mul(b_safe, self.i64c(4), "")?;
        let desc = self.word_ptr(self.p.constants, desc)?;
        let ptr = self.load(self.t.ptr.into(), desc)?.into_pointer_value();
        let len_p = self.byte_ptr(desc, 8)?;
        let len = self.load(self.t.i64.into(), len_p)?.into_int_value();
        let i_ok = bd.build_int_compare(IntPredicate::ULT, i, len, "")?;
        let ok = bd.build_and(b_ok, i_ok, "")?;
        let w = bd.build_int_mul(i, self.i64c(4), "")?;
        let w = bd.build_int_add(w, self.i64c(comp as i64), "")?;
        let a = self.word_ptr(ptr, w)?;
        let a = bd
            .build_select(ok, a, self.p.zeros, "")?
            .into_pointer_value();
        let x = self.load(elem, a)?;
        Ok(bd.build_select(ok, x, elem.const_zero(), "")?)
    }

    /// CONST[buffer + b][offset + i].comp per lane.
    fn constant_gather(
        &self,
        ty: VectorType<'ctx>,
        db: V<'ctx>,
        di: V<'ctx>,
        buffer: i32,
        offset: i32,
        comp: u8,
    ) -> R<V<'ctx>> {
        let wide = |v: V<'ctx>, k: i32| -> R<V<'ctx>> {
            let v = self.sext(v, self.t.vi64)?;
            let c = self.t.i64.const_int(k as i64 as u64, true);
            self.add(
                v,
                inkwell::types::VectorType::const_vector(&vec![c; self.lanes as usize]),
            )
        };
        let i64s = |x: i64| {
            let c = self.t.i64.const_int(x as u64, true);
            inkwell::types::VectorType::const_vector(&vec![c; self.lanes as usize])
        };
        let b = wide(db, buffer)?;
        let i = wide(di, offset)?;
        let n = self.b.build_insert_element(
            self.t.vi64.get_poison(),
            self.p.num_constants,
            self.i32c(0),
            "",
        )?;
        let n = self.shuffle(n, &vec![0; self.lanes as usize])?;
        let b_ok = self.icmp(IntPredicate::ULT, b, n)?;
        let b_safe = self.select(b_ok, b, i64s(0))?;
        // Descriptors are four words: the pointer, then the length.
        let desc = self.mul(b_safe, i64s(4))?;
        let ptrs = self.lane_ptrs(self.p.constants.into(), desc)?;
        let data = self.gather(self.t.vi64, ptrs)?;
        let desc_len = self.add(desc, i64s(2))?;
        let ptrs = self.lane_ptrs(self.p.constants.into(), desc_len)?;
        let len = self.gather(self.t.vi64, ptrs)?;
        let i_ok = self.icmp(IntPredicate::ULT, i, len)?;
        let ok = self.and(b_ok, i_ok)?;
        let data = self.b.build_cast(
            InstructionOpcode::IntToPtr,
            data,
            self.t.ptr.vec_type(self.lanes),
            "",
        )?;
        let w = self.add(self.mul(i, i64s(4))?, i64s(comp as i64))?;
        let addr = self.lane_ptrs(data, w)?;
        let safe = self.lane_ptrs(self.p.zeros.into(), self.iconst(comp as u32))?;
        let addr = self.select(ok, addr, safe)?;
        let x = self.gather(ty, addr)?;
        self.select(ok, x, ty.const_zero())
    }

    /// OUT[reg].comp for the active lanes.
    pub(super) fn store_output(&self, reg: u32, comp: u8, v: V<'ctx>) -> R<()> {
        let p = self.soa(self.p.outputs, (reg as i64 * 4 + comp as i64) * LANES)?;
        let old = self.load_vec(self.t.vi, p)?;
        let new = self.select(self.exec()?, self.words(v)?, old)?;
        self.store(p, new)
    }

    /// An array store: lanes whose register lands in `lo..=hi` (and are active) write.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn array_store(
        &self,
        array: u32,
        comp: u8,
        offset: i32,
        lo: u32,
        hi: u32,
        index: ir::Value,
        d: V<'ctx>,
        v: V<'ctx>,
    ) -> R<()> {
        let Ok((l, h)) = rel_bounds(offset, lo, hi) else {
            return Ok(());
        };
        let first = self.f.arrays[array as usize].first as i64;
        let base_words = self.array_base[array as usize] as i64;
        let ge = self.icmp(IntPredicate::SGE, d, self.iconst(l as u32))?;
        let le = self.icmp(IntPredicate::SLE, d, self.iconst(h as u32))?;
        let mask = self.and(self.and(ge, le)?, self.exec()?)?;
        // In range, offset + d is the register.
        let regs = self.clamp_index(d, offset, lo, hi)?;
        let v = self.words(v)?;
        if self.is_uniform(index) {
            // One register for every lane: a blended vector store.
            let r = self.extract_int(regs)?;
            let w = self.reg_word(r, comp, first, base_words)?;
            let p = self.word_ptr(self.p.arrays, w)?;
            let old = self.load_vec(self.t.vi, p)?;
            let new = self.select(mask, v, old)?;
            return self.store(p, new);
        }
        let words = self.lane_words(regs, comp, first, base_words)?;
        let ptrs = self.lane_ptrs(self.p.arrays.into(), words)?;
        self.scatter(v, ptrs, mask)
    }
}
