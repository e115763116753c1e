//! IR → Cranelift IR: the batch loop, values as groups of vectors, and structured control flow
//! under execution masks. Operations are in `ops.rs`, memory accesses in `mem.rs`.

mod mem;
mod ops;

use super::{BATCH_LANES, JitArgs, JitError, JitOptions, MathMode};
use crate::ir::{self, Def, Stmt};
use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::ir::{
    self as cl, AbiParam, ConstantData, Endianness, InstBuilder, MemFlagsData, StackSlotData,
    StackSlotKind, Value, types,
};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_jit::JITModule;
use cranelift_module::{Linkage, Module};
use std::collections::HashMap;
use std::mem::offset_of;

/// What the caller needs besides the code.
pub(super) struct Lowered {
    pub uniforms: Vec<(u32, u32, u8)>,
    pub textures: Vec<super::TextureCall>,
}

/// An IR value: one Cranelift vector per four lanes.
type L = Vec<Value>;

/// Pointers and scalars read from [`JitArgs`] once per call, and per group.
struct Ptrs {
    args: Value,
    inputs: Value,
    sv: Value,
    outputs: Value,
    arrays: Value,
    uniforms: Value,
    constants: Value,
    num_constants: Value,
    immediates: Value,
    zeros: Value,
    host: Value,
    texture: Value,
    emit: Value,
    /// The group's first lane (i64).
    lane0: Value,
}

struct IfFrame {
    /// The `If`'s result values and their variables.
    values: Vec<ir::Value>,
    results: Vec<Vec<Variable>>,
    /// Divergent `If`: the else branch blends into what the then branch yielded.
    divergent: bool,
    in_else: bool,
}

struct LoopFrame {
    /// The loop's parameter and result values.
    param_values: Vec<ir::Value>,
    result_values: Vec<ir::Value>,
    next: Vec<Vec<Variable>>,
    results: Vec<Vec<Variable>>,
    cont: Vec<Variable>,
    brk: Vec<Variable>,
}

pub(super) struct Lower<'a, 'f> {
    f: &'a ir::Function,
    b: FunctionBuilder<'f>,
    /// Vectors per value.
    k: usize,
    math: MathMode,
    arith: Vec<crate::back::nan::Class>,
    vals: Vec<Option<L>>,
    vars: HashMap<ir::Value, Vec<Variable>>,
    exec: Vec<Variable>,
    ifs: Vec<IfFrame>,
    loops: Vec<LoopFrame>,
    p: Ptrs,
    uniforms: Vec<(u32, u32, u8)>,
    uniform_slots: HashMap<(u32, u32, u8), u32>,
    textures: Vec<super::TextureCall>,
    host_op: cl::FuncRef,
    tex_sig: cl::SigRef,
    emit_sig: cl::SigRef,
    /// A stack area for host calls (operands and results, `lanes` words each).
    scratch: cl::StackSlot,
    /// Word offset of each array in the arrays buffer.
    array_base: Vec<u64>,
    /// The word after every array: where dropped stores go.
    trash: u64,
    /// Vector constants, in the entry block before `entry_jump`.
    consts: HashMap<(cl::Type, [u32; 4]), Value>,
    entry_jump: cl::Inst,
}

/// Memory flags of every access: the addresses are valid, alignment is not assumed.
fn flags() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

fn vty(t: ir::Type) -> cl::Type {
    match t {
        ir::Type::F32 => types::F32X4,
        _ => types::I32X4,
    }
}

/// Words the scratch area needs: the widest host call, texture call or EMIT.
fn scratch_words(f: &ir::Function, lanes: usize) -> usize {
    let mut words = 8 * lanes;
    f.for_each_inst(|i| {
        let d = &f.insts[i];
        let n = match &d.op {
            ir::Op::Texture(_) => d.args.len() + 4,
            ir::Op::Emit | ir::Op::EndPrim => d.args.len(),
            _ => 0,
        };
        words = words.max(n * lanes);
    });
    words
}

pub(super) fn lower(
    f: &ir::Function,
    opts: &JitOptions,
    module: &mut JITModule,
    func: &mut cl::Function,
    fctx: &mut FunctionBuilderContext,
) -> Result<Lowered, JitError> {
    let ptr = module.target_config().pointer_type();
    // tgsic_lanes_op(code, a, b, c, d, out, n)
    let mut hs = module.make_signature();
    hs.params.push(AbiParam::new(types::I32));
    for _ in 0..5 {
        hs.params.push(AbiParam::new(ptr));
    }
    hs.params.push(AbiParam::new(types::I32));
    let host_id = module
        .declare_function("tgsic_lanes_op", Linkage::Import, &hs)
        .map_err(|e| JitError::Codegen(e.to_string()))?;
    let host_op = module.declare_func_in_func(host_id, func);
    let mut ts = module.make_signature();
    for t in [
        ptr,
        types::I32,
        ptr,
        ptr,
        types::I64,
        types::I32,
        types::I32,
    ] {
        ts.params.push(AbiParam::new(t));
    }
    let tex_sig = func.import_signature(ts);
    let mut es = module.make_signature();
    for t in [
        ptr,
        types::I32,
        ptr,
        types::I32,
        types::I64,
        types::I32,
        types::I32,
    ] {
        es.params.push(AbiParam::new(t));
    }
    let emit_sig = func.import_signature(es);

    let lanes = 4 * opts.vectors;
    let words = scratch_words(f, lanes);
    let mut b = FunctionBuilder::new(func, fctx);
    let scratch = b.create_sized_stack_slot(StackSlotData::new(
        StackSlotKind::ExplicitSlot,
        (words * 4) as u32,
        4,
    ));
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let args = b.block_params(entry)[0];
    let ld =
        |b: &mut FunctionBuilder, off: usize| b.ins().load(types::I64, flags(), args, off as i32);
    let p = Ptrs {
        args,
        inputs: ld(&mut b, offset_of!(JitArgs, inputs)),
        sv: ld(&mut b, offset_of!(JitArgs, sv)),
        outputs: ld(&mut b, offset_of!(JitArgs, outputs)),
        arrays: ld(&mut b, offset_of!(JitArgs, arrays)),
        uniforms: ld(&mut b, offset_of!(JitArgs, uniforms)),
        constants: ld(&mut b, offset_of!(JitArgs, constants)),
        num_constants: ld(&mut b, offset_of!(JitArgs, num_constants)),
        immediates: ld(&mut b, offset_of!(JitArgs, immediates)),
        zeros: ld(&mut b, offset_of!(JitArgs, zeros)),
        host: ld(&mut b, offset_of!(JitArgs, host)),
        texture: ld(&mut b, offset_of!(JitArgs, texture)),
        emit: ld(&mut b, offset_of!(JitArgs, emit)),
        lane0: args,
    };
    // The entry block ends with the jump to the batch loop; constants go before it.
    let header = b.create_block();
    b.append_block_param(header, types::I64);
    let zero = b.ins().iconst(types::I64, 0);
    let entry_jump_placeholder = b.ins().jump(header, &[cl::BlockArg::Value(zero)]);
    let mut array_base = Vec::new();
    let mut total = 0u64;
    for a in &f.arrays {
        array_base.push(total);
        total += a.len as u64 * 4 * BATCH_LANES as u64;
    }
    let mut lw = Lower {
        f,
        b,
        k: opts.vectors,
        math: opts.math,
        arith: crate::back::nan::classes(f, opts.math == MathMode::Fast),
        vals: vec![None; f.values.len()],
        vars: HashMap::new(),
        exec: Vec::new(),
        ifs: Vec::new(),
        loops: Vec::new(),
        p,
        uniforms: Vec::new(),
        uniform_slots: HashMap::new(),
        textures: Vec::new(),
        host_op,
        tex_sig,
        emit_sig,
        scratch,
        array_base,
        trash: total,
        consts: HashMap::new(),
        entry_jump: entry_jump_placeholder,
    };
    lw.exec = (0..lw.k).map(|_| lw.b.declare_var(types::I32X4)).collect();

    // for group in 0..BATCH_LANES / lanes
    let body = lw.b.create_block();
    let next = lw.b.create_block();
    let exit = lw.b.create_block();
    lw.b.switch_to_block(header);
    let group = lw.b.block_params(header)[0];
    let lane0 = lw.b.ins().imul_imm_s(group, lanes as i64);
    lw.p.lane0 = lane0;
    let alive =
        lw.b.ins()
            .load(types::I64, flags(), args, offset_of!(JitArgs, alive) as i32);
    let alive = lw.b.ins().ushr(alive, lane0);
    let alive = lw.b.ins().band_imm_u(
        alive,
        if lanes == 64 {
            -1i64
        } else {
            (1i64 << lanes) - 1
        },
    );
    lw.b.ins().brif(alive, body, &[], next, &[]);
    lw.b.switch_to_block(body);
    let mask = lw.mask_from_bits(alive);
    lw.set_exec(&mask);
    lw.block(&f.body)?;
    lw.b.ins().jump(next, &[]);
    lw.b.switch_to_block(next);
    let g1 = lw.b.ins().iadd_imm_s(group, 1);
    let more = lw.b.ins().icmp_imm_u(
        cl::condcodes::IntCC::UnsignedLessThan,
        g1,
        (BATCH_LANES / lanes) as i64,
    );
    lw.b.ins()
        .brif(more, header, &[cl::BlockArg::Value(g1)], exit, &[]);
    lw.b.switch_to_block(exit);
    lw.b.ins().return_(&[]);
    lw.b.seal_all_blocks();
    let Lower {
        b,
        uniforms,
        textures,
        ..
    } = lw;
    b.finalize(module.target_config());
    Ok(Lowered { uniforms, textures })
}

impl Lower<'_, '_> {
    fn lanes(&self) -> usize {
        4 * self.k
    }

    // ------------------------------------------------------------------ vector helpers

    fn bitcast(&mut self, v: Value, ty: cl::Type) -> Value {
        if self.b.func.dfg.value_type(v) == ty {
            v
        } else {
            self.b.ins().bitcast(
                ty,
                MemFlagsData::new().with_endianness(Endianness::Little),
                v,
            )
        }
    }

    fn ints(&mut self, l: &L) -> L {
        l.iter().map(|&v| self.bitcast(v, types::I32X4)).collect()
    }

    /// A vector of four 32-bit words.
    /// A vector constant, defined once in the entry block (so it dominates every use and
    /// never sits inside a loop).
    fn vconst(&mut self, ty: cl::Type, words: [u32; 4]) -> Value {
        if let Some(&v) = self.consts.get(&(ty, words)) {
            return v;
        }
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let c = self.b.func.dfg.constants.insert(ConstantData::from(bytes));
        let mut cur = FuncCursor::new(self.b.func).at_inst(self.entry_jump);
        let v = cur.ins().vconst(ty, c);
        self.consts.insert((ty, words), v);
        v
    }

    fn splat(&mut self, ty: cl::Type, bits: u32) -> L {
        let v = self.vconst(ty, [bits; 4]);
        vec![v; self.k]
    }

    /// Lane masks (all ones where set) from the group's bits.
    fn mask_from_bits(&mut self, bits: Value) -> L {
        let bits32 = self.b.ins().ireduce(types::I32, bits);
        (0..self.k)
            .map(|k| {
                let part = self.b.ins().ushr_imm_u(bits32, 4 * k as i64);
                let s = self.b.ins().splat(types::I32X4, part);
                let sel = self.vconst(types::I32X4, [1, 2, 4, 8]);
                let and = self.b.ins().band(s, sel);
                let z = self.vconst(types::I32X4, [0; 4]);
                self.b.ins().icmp(cl::condcodes::IntCC::NotEqual, and, z)
            })
            .collect()
    }

    /// The group's bits (i64) of lane masks.
    fn bits_of(&mut self, m: &L) -> Value {
        let mut acc = self.b.ins().iconst(types::I64, 0);
        for (k, &v) in m.iter().enumerate() {
            let v = self.bitcast(v, types::I32X4);
            let hb = self.b.ins().vhigh_bits(types::I64, v);
            let hb = if k > 0 {
                self.b.ins().ishl_imm_u(hb, 4 * k as i64)
            } else {
                hb
            };
            acc = self.b.ins().bor(acc, hb);
        }
        acc
    }

    /// Whether any lane of a mask is set (i8).
    fn any(&mut self, m: &L) -> Value {
        let mut acc = m[0];
        for &v in &m[1..] {
            acc = self.b.ins().bor(acc, v);
        }
        self.b.ins().vany_true(acc)
    }

    fn band_l(&mut self, a: &L, c: &L) -> L {
        a.iter()
            .zip(c)
            .map(|(&x, &y)| self.b.ins().band(x, y))
            .collect()
    }

    fn bor_l(&mut self, a: &L, c: &L) -> L {
        a.iter()
            .zip(c)
            .map(|(&x, &y)| self.b.ins().bor(x, y))
            .collect()
    }

    /// `m ? x : y` per lane (`m` a lane mask, any vector types).
    fn blend(&mut self, m: &L, x: &L, y: &L) -> L {
        (0..self.k)
            .map(|k| {
                let ty = self.b.func.dfg.value_type(x[k]);
                let c = self.lane_mask(m[k]);
                let c = self.bitcast(c, ty);
                let yk = self.bitcast(y[k], ty);
                self.b.ins().bitselect(c, x[k], yk)
            })
            .collect()
    }

    /// A lane mask Cranelift knows to be all ones or all zeros per lane (a comparison's
    /// result), so `bitselect` becomes one blend instruction instead of and/andnot/or.
    fn lane_mask(&mut self, m: Value) -> Value {
        use cranelift_codegen::ir::{InstructionData, Opcode};
        let dfg = &self.b.func.dfg;
        let direct = match dfg.value_def(m).inst() {
            Some(i) => match dfg.insts[i] {
                InstructionData::IntCompare { .. } | InstructionData::FloatCompare { .. } => true,
                InstructionData::LoadNoOffset {
                    opcode: Opcode::Bitcast,
                    arg,
                    ..
                } => dfg
                    .value_def(arg)
                    .inst()
                    .is_some_and(|j| matches!(dfg.insts[j], InstructionData::FloatCompare { .. })),
                _ => false,
            },
            None => false,
        };
        if direct {
            return m;
        }
        let m = self.bitcast(m, types::I32X4);
        let z = self.vconst(types::I32X4, [0; 4]);
        self.b
            .ins()
            .icmp(cl::condcodes::IntCC::SignedLessThan, m, z)
    }

    /// The interpreter's bits of a value of class `class`: its NaNs replaced by the NaN the
    /// interpreter holds there.
    fn canonical(&mut self, l: &L, class: crate::back::nan::Class) -> L {
        l.iter()
            .map(|&v| {
                let v = self.bitcast(v, types::F32X4);
                let nan = self.b.ins().fcmp(cl::condcodes::FloatCC::Unordered, v, v);
                let nan = self.bitcast(nan, types::F32X4);
                let c = self.vconst(types::F32X4, [class.canonical_nan(); 4]);
                self.b.ins().bitselect(nan, c, v)
            })
            .collect()
    }

    fn exec(&mut self) -> L {
        self.exec
            .clone()
            .into_iter()
            .map(|v| self.b.use_var(v))
            .collect()
    }

    fn set_exec(&mut self, m: &L) {
        for (v, &x) in self.exec.clone().into_iter().zip(m) {
            self.b.def_var(v, x);
        }
    }

    fn zero_mask(&mut self) -> L {
        self.splat(types::I32X4, 0)
    }

    // ------------------------------------------------------------------ values

    fn vars_for(&mut self, v: ir::Value) -> Vec<Variable> {
        if let Some(vs) = self.vars.get(&v) {
            return vs.clone();
        }
        let ty = vty(self.f.ty(v));
        let vs: Vec<Variable> = (0..self.k).map(|_| self.b.declare_var(ty)).collect();
        self.vars.insert(v, vs.clone());
        vs
    }

    fn def_vars(&mut self, vars: &[Variable], l: &L) {
        for (&v, &x) in vars.iter().zip(l) {
            let ty = self.b.func.dfg.value_type(x);
            let _ = ty;
            self.b.def_var(v, x);
        }
    }

    fn use_vars(&mut self, vars: &[Variable]) -> L {
        vars.iter().map(|&v| self.b.use_var(v)).collect()
    }

    /// An IR value's vectors (typed F32X4 or I32X4 by the IR type).
    fn get(&mut self, v: ir::Value) -> L {
        match self.f.values[v].def {
            Def::Inst(..) => self.vals[v.index()]
                .clone()
                .expect("values are defined before use"),
            _ => {
                let vars = self.vars_for(v);
                self.use_vars(&vars)
            }
        }
    }

    /// An IR value whose bits are observed: canonical NaN if it is arithmetic.
    fn get_bits(&mut self, v: ir::Value) -> L {
        let l = self.get(v);
        match self.arith[v.index()] {
            crate::back::nan::Class::Exact => l,
            c => self.canonical(&l, c),
        }
    }

    /// The value entering a merge whose result is `to`: canonicalized unless the merge is
    /// arithmetic itself.
    fn get_for(&mut self, v: ir::Value, to: ir::Value) -> L {
        let l = if self.arith[to.index()] != crate::back::nan::Class::Exact {
            self.get(v)
        } else {
            self.get_bits(v)
        };
        let ty = vty(self.f.ty(to));
        l.into_iter().map(|x| self.bitcast(x, ty)).collect()
    }

    fn set(&mut self, v: ir::Value, l: L) {
        let ty = vty(self.f.ty(v));
        let l = l.into_iter().map(|x| self.bitcast(x, ty)).collect();
        self.vals[v.index()] = Some(l);
    }

    // ------------------------------------------------------------------ control flow

    fn block(&mut self, blk: &ir::Block) -> Result<(), JitError> {
        for s in &blk.0 {
            match s {
                Stmt::Inst(i) => self.inst(*i)?,
                Stmt::If(x) => self.if_(x)?,
                Stmt::Loop(l) => self.loop_(l)?,
                Stmt::Break(v) => {
                    let fr = self.loops.len() - 1;
                    let results = self.loops[fr].results.clone();
                    let rvals = self.loops[fr].result_values.clone();
                    let exec = self.exec();
                    for ((vars, &val), &to) in results.iter().zip(v).zip(&rvals) {
                        let x = self.get_for(val, to);
                        let new = self.merge(to, &exec, x, vars);
                        self.def_vars(vars, &new);
                    }
                    let brk = self.loops[fr].brk.clone();
                    let old = self.use_vars(&brk);
                    let new = self.bor_l(&old, &exec);
                    self.def_vars(&brk, &new);
                    let z = self.zero_mask();
                    self.set_exec(&z);
                }
                Stmt::Continue(v) => {
                    let fr = self.loops.len() - 1;
                    let next = self.loops[fr].next.clone();
                    let pvals = self.loops[fr].param_values.clone();
                    let exec = self.exec();
                    for ((vars, &val), &to) in next.iter().zip(v).zip(&pvals) {
                        let x = self.get_for(val, to);
                        let new = self.merge(to, &exec, x, vars);
                        self.def_vars(vars, &new);
                    }
                    let cont = self.loops[fr].cont.clone();
                    let old = self.use_vars(&cont);
                    let new = self.bor_l(&old, &exec);
                    self.def_vars(&cont, &new);
                    let z = self.zero_mask();
                    self.set_exec(&z);
                }
                Stmt::Yield(v) => {
                    let fr = self.ifs.len() - 1;
                    let (results, divergent, in_else) = (
                        self.ifs[fr].results.clone(),
                        self.ifs[fr].divergent,
                        self.ifs[fr].in_else,
                    );
                    let tos = self.ifs[fr].values.clone();
                    let exec = if divergent && in_else {
                        Some(self.exec())
                    } else {
                        None
                    };
                    for ((vars, &val), &to) in results.iter().zip(v).zip(&tos) {
                        let x = self.get_for(val, to);
                        let x = match &exec {
                            Some(m) => {
                                let old = self.use_vars(vars);
                                self.blend(m, &x, &old)
                            }
                            None => x,
                        };
                        self.def_vars(vars, &x);
                    }
                }
            }
        }
        Ok(())
    }

    /// The new value of a merge's variables for the lanes of `exec`. A uniform merge reached
    /// by any lane takes the value in every lane: uniform values then stay equal in inactive
    /// lanes too, so any lane can stand for all (uniform branches and addresses read lane 0).
    fn merge(&mut self, to: ir::Value, exec: &L, x: L, vars: &[Variable]) -> L {
        let old = self.use_vars(vars);
        if self.is_uniform(to) {
            // Uniform control: either every live lane gets here or none does.
            let any = self.any(exec);
            return x
                .iter()
                .zip(&old)
                .map(|(&n, &o)| self.b.ins().select(any, n, o))
                .collect();
        }
        self.blend(exec, &x, &old)
    }

    fn if_(&mut self, x: &ir::IfStmt) -> Result<(), JitError> {
        let cond = self.get(x.cond);
        let uniform = self.f.uniform.get(x.cond.index()).copied().unwrap_or(false);
        let results: Vec<Vec<Variable>> = x.results.iter().map(|&r| self.vars_for(r)).collect();
        self.ifs.push(IfFrame {
            values: x.results.clone(),
            results,
            divergent: !uniform,
            in_else: false,
        });
        if uniform {
            // Every lane agrees: a real branch, the mask unchanged.
            let then_bb = self.b.create_block();
            let else_bb = self.b.create_block();
            let join = self.b.create_block();
            let c0 = self.b.ins().extractlane(cond[0], 0);
            self.b.ins().brif(c0, then_bb, &[], else_bb, &[]);
            self.b.switch_to_block(then_bb);
            self.block(&x.then_)?;
            self.b.ins().jump(join, &[]);
            self.b.switch_to_block(else_bb);
            if let Some(fr) = self.ifs.last_mut() {
                fr.in_else = true;
            }
            self.block(&x.else_)?;
            self.b.ins().jump(join, &[]);
            self.b.switch_to_block(join);
        } else {
            let exec0 = self.exec();
            let cond = self.ints(&cond);
            let tmask = self.band_l(&exec0, &cond);
            let emask: L = exec0
                .iter()
                .zip(&cond)
                .map(|(&e, &c)| self.b.ins().band_not(e, c))
                .collect();
            let out_t: Vec<Variable> = (0..self.k)
                .map(|_| self.b.declare_var(types::I32X4))
                .collect();
            let out_e: Vec<Variable> = (0..self.k)
                .map(|_| self.b.declare_var(types::I32X4))
                .collect();
            let z = self.zero_mask();
            self.def_vars(&out_t, &z);
            self.def_vars(&out_e, &z);
            // Results start defined (lanes no branch yields for are never read).
            for (&r, vars) in x.results.iter().zip(
                self.ifs
                    .last()
                    .map(|f| f.results.clone())
                    .unwrap_or_default()
                    .iter(),
            ) {
                let zero = self.splat(vty(self.f.ty(r)), 0);
                self.def_vars(vars, &zero);
            }
            let then_bb = self.b.create_block();
            let check_else = self.b.create_block();
            let else_bb = self.b.create_block();
            let join = self.b.create_block();
            let any_t = self.any(&tmask);
            self.b.ins().brif(any_t, then_bb, &[], check_else, &[]);
            self.b.switch_to_block(then_bb);
            self.set_exec(&tmask);
            self.block(&x.then_)?;
            let e = self.exec();
            self.def_vars(&out_t, &e);
            self.b.ins().jump(check_else, &[]);
            self.b.switch_to_block(check_else);
            let any_e = self.any(&emask);
            self.b.ins().brif(any_e, else_bb, &[], join, &[]);
            self.b.switch_to_block(else_bb);
            if let Some(fr) = self.ifs.last_mut() {
                fr.in_else = true;
            }
            self.set_exec(&emask);
            self.block(&x.else_)?;
            let e = self.exec();
            self.def_vars(&out_e, &e);
            self.b.ins().jump(join, &[]);
            self.b.switch_to_block(join);
            let t = self.use_vars(&out_t);
            let e = self.use_vars(&out_e);
            let m = self.bor_l(&t, &e);
            self.set_exec(&m);
        }
        self.ifs.pop();
        Ok(())
    }

    fn loop_(&mut self, l: &ir::LoopStmt) -> Result<(), JitError> {
        let params: Vec<Vec<Variable>> = l.params.iter().map(|&p| self.vars_for(p)).collect();
        let results: Vec<Vec<Variable>> = l.results.iter().map(|&r| self.vars_for(r)).collect();
        let next: Vec<Vec<Variable>> = l
            .params
            .iter()
            .map(|&p| {
                let ty = vty(self.f.ty(p));
                (0..self.k).map(|_| self.b.declare_var(ty)).collect()
            })
            .collect();
        let mk = |s: &mut Self| -> Vec<Variable> {
            (0..s.k).map(|_| s.b.declare_var(types::I32X4)).collect()
        };
        let cont = mk(self);
        let brk = mk(self);
        let live = mk(self);
        for ((vars, &init), &p) in params.iter().zip(&l.inits).zip(&l.params) {
            let x = self.get_for(init, p);
            self.def_vars(vars, &x);
        }
        for (vars, &r) in results.iter().zip(&l.results) {
            let z = self.splat(vty(self.f.ty(r)), 0);
            self.def_vars(vars, &z);
        }
        let z = self.zero_mask();
        self.def_vars(&brk, &z);
        let e = self.exec();
        self.def_vars(&live, &e);
        let header = self.b.create_block();
        let exit = self.b.create_block();
        self.b.ins().jump(header, &[]);
        self.b.switch_to_block(header);
        let live_now = self.use_vars(&live);
        self.set_exec(&live_now);
        let z = self.zero_mask();
        self.def_vars(&cont, &z);
        for (nv, pv) in next.iter().zip(&params) {
            let cur = self.use_vars(pv);
            self.def_vars(nv, &cur);
        }
        self.loops.push(LoopFrame {
            param_values: l.params.clone(),
            result_values: l.results.clone(),
            next: next.clone(),
            results,
            cont: cont.clone(),
            brk: brk.clone(),
        });
        self.block(&l.body)?;
        self.loops.pop();
        let c = self.use_vars(&cont);
        self.def_vars(&live, &c);
        for (nv, pv) in next.iter().zip(&params) {
            let n = self.use_vars(nv);
            self.def_vars(pv, &n);
        }
        let again = self.any(&c);
        self.b.ins().brif(again, header, &[], exit, &[]);
        self.b.switch_to_block(exit);
        let out = self.use_vars(&brk);
        self.set_exec(&out);
        Ok(())
    }
}
