//! IR → LLVM IR: the batch loop, one vector per value, and structured control flow under
//! execution masks. Operations are in `ops.rs`, memory accesses in `mem.rs`.
//!
//! Values defined by instructions are SSA values; the values a merge defines (`If` and loop
//! results, loop parameters) and the execution mask live in stack slots that LLVM's `mem2reg`
//! turns into phis.

mod mem;
mod ops;

use super::emit::{Emit, R, Types, V};
use super::{BATCH_LANES, HostCpu, JitArgs, JitError, LlvmOptions, MathMode};
use crate::back::abi::TextureCall;
use crate::back::nan::{self, Class};
use crate::ir::{self, Def, Stmt};
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::types::{FunctionType, VectorType};
use inkwell::values::{FunctionValue, IntValue, PointerValue};
use inkwell::{FloatPredicate, IntPredicate};
use std::collections::HashMap;
use std::mem::offset_of;
use std::ops::Deref;

/// What the caller needs besides the code.
pub(super) struct Lowered {
    pub uniforms: Vec<(u32, u32, u8)>,
    pub textures: Vec<TextureCall>,
}

/// A stack slot holding a vector (promoted to SSA by `mem2reg`).
#[derive(Clone, Copy)]
struct Var<'ctx> {
    p: PointerValue<'ctx>,
    ty: VectorType<'ctx>,
}

/// Pointers and scalars read from [`JitArgs`] once per call, and per step.
struct Ptrs<'ctx> {
    args: PointerValue<'ctx>,
    inputs: PointerValue<'ctx>,
    sv: PointerValue<'ctx>,
    outputs: PointerValue<'ctx>,
    arrays: PointerValue<'ctx>,
    uniforms: PointerValue<'ctx>,
    constants: PointerValue<'ctx>,
    num_constants: IntValue<'ctx>,
    immediates: PointerValue<'ctx>,
    zeros: PointerValue<'ctx>,
    host: PointerValue<'ctx>,
    texture: PointerValue<'ctx>,
    emit: PointerValue<'ctx>,
    /// The step's first lane (i64).
    lane0: IntValue<'ctx>,
}

struct IfFrame<'ctx> {
    values: Vec<ir::Value>,
    results: Vec<Var<'ctx>>,
    /// Divergent `If`: the else branch blends into what the then branch yielded.
    divergent: bool,
    in_else: bool,
}

struct LoopFrame<'ctx> {
    param_values: Vec<ir::Value>,
    result_values: Vec<ir::Value>,
    next: Vec<Var<'ctx>>,
    results: Vec<Var<'ctx>>,
    cont: Var<'ctx>,
    brk: Var<'ctx>,
}

pub(super) struct Lower<'a, 'ctx> {
    e: Emit<'a, 'ctx>,
    f: &'a ir::Function,
    func: FunctionValue<'ctx>,
    /// Builds the stack slots, at the end of the entry block.
    slots: Builder<'ctx>,
    entry: BasicBlock<'ctx>,
    math: MathMode,
    /// FMA in hardware (otherwise on the host).
    fma: bool,
    arith: Vec<Class>,
    vals: Vec<Option<V<'ctx>>>,
    vars: HashMap<ir::Value, Var<'ctx>>,
    exec: Var<'ctx>,
    ifs: Vec<IfFrame<'ctx>>,
    loops: Vec<LoopFrame<'ctx>>,
    p: Ptrs<'ctx>,
    uniforms: Vec<(u32, u32, u8)>,
    uniform_slots: HashMap<(u32, u32, u8), u32>,
    textures: Vec<TextureCall>,
    /// `tgsic_lanes_op`'s address and type.
    host_fn: PointerValue<'ctx>,
    host_ty: FunctionType<'ctx>,
    tex_ty: FunctionType<'ctx>,
    emit_ty: FunctionType<'ctx>,
    /// A stack area for host calls (operands and results, `lanes` words each).
    scratch: PointerValue<'ctx>,
    /// Word offset of each array in the arrays buffer.
    array_base: Vec<u64>,
}

impl<'a, 'ctx> Deref for Lower<'a, 'ctx> {
    type Target = Emit<'a, 'ctx>;
    fn deref(&self) -> &Emit<'a, 'ctx> {
        &self.e
    }
}

/// Whether a block only passes values on (`break`, `continue`, `yield`), with no instruction.
fn jumps_only(b: &ir::Block) -> bool {
    b.0.iter()
        .all(|s| matches!(s, Stmt::Break(_) | Stmt::Continue(_) | Stmt::Yield(_)))
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

fn enum_attr(cx: &Context, name: &str) -> Attribute {
    cx.create_enum_attribute(Attribute::get_named_enum_kind_id(name), 0)
}

pub(super) fn lower<'ctx>(
    f: &ir::Function,
    opts: &LlvmOptions,
    lanes: usize,
    cpu: &HostCpu,
    cx: &'ctx Context,
    module: &Module<'ctx>,
) -> Result<Lowered, JitError> {
    let t = Types::new(cx, lanes as u32)?;
    let void = cx.void_type();
    let fty = void.fn_type(&[t.ptr.into()], false);
    let func = module.add_function("shade", fty, Some(Linkage::External));
    for (k, v) in [
        ("target-cpu", cpu.name.as_str()),
        ("target-features", cpu.features.as_str()),
        ("denormal-fp-math", "preserve-sign,preserve-sign"),
        ("denormal-fp-math-f32", "preserve-sign,preserve-sign"),
        ("min-legal-vector-width", &(32 * lanes).min(512).to_string()),
    ] {
        func.add_attribute(AttributeLoc::Function, cx.create_string_attribute(k, v));
    }
    func.add_attribute(AttributeLoc::Function, enum_attr(cx, "nounwind"));
    func.add_attribute(AttributeLoc::Param(0), enum_attr(cx, "noalias"));
    let p = t.ptr.into();
    let (i32t, i64t) = (t.i32.into(), t.i64.into());
    // tgsic_lanes_op(code, a, b, c, d, out, n); texture(host, index, args, out, mask, lane0,
    // lanes); emit(host, is_emit, values, count, mask, lane0, lanes).
    let host_ty = void.fn_type(&[i32t, p, p, p, p, p, i32t], false);
    let tex_ty = void.fn_type(&[p, i32t, p, p, i64t, i32t, i32t], false);
    let emit_ty = void.fn_type(&[p, i32t, p, i32t, i64t, i32t, i32t], false);

    let entry = cx.append_basic_block(func, "entry");
    let b = cx.create_builder();
    b.position_at_end(entry);
    let e = Emit {
        cx,
        m: module,
        b,
        t,
        lanes: lanes as u32,
    };
    let args = func
        .get_nth_param(0)
        .ok_or_else(|| JitError::Codegen("no parameter".into()))?
        .into_pointer_value();
    let ldp = |off: usize| -> R<PointerValue<'ctx>> {
        let a = e.byte_ptr(args, off as u64)?;
        Ok(e.b.build_load(t.ptr, a, "")?.into_pointer_value())
    };
    let host_fn = t
        .i64
        .const_int(
            crate::back::host::tgsic_lanes_op_entered as *const () as usize as u64,
            false,
        )
        .const_to_pointer(t.ptr);
    let num_constants = {
        let a = e.byte_ptr(args, offset_of!(JitArgs, num_constants) as u64)?;
        e.b.build_load(t.i64, a, "")?.into_int_value()
    };
    let ptrs = Ptrs {
        args,
        inputs: ldp(offset_of!(JitArgs, inputs))?,
        sv: ldp(offset_of!(JitArgs, sv))?,
        outputs: ldp(offset_of!(JitArgs, outputs))?,
        arrays: ldp(offset_of!(JitArgs, arrays))?,
        uniforms: ldp(offset_of!(JitArgs, uniforms))?,
        constants: ldp(offset_of!(JitArgs, constants))?,
        num_constants,
        immediates: ldp(offset_of!(JitArgs, immediates))?,
        zeros: ldp(offset_of!(JitArgs, zeros))?,
        host: ldp(offset_of!(JitArgs, host))?,
        texture: ldp(offset_of!(JitArgs, texture))?,
        emit: ldp(offset_of!(JitArgs, emit))?,
        lane0: t.i64.const_zero(),
    };
    let slots = cx.create_builder();
    slots.position_at_end(entry);
    let words = scratch_words(f, lanes);
    let scratch =
        slots.build_array_alloca(t.i32, t.i64.const_int(words as u64, false), "scratch")?;
    scratch
        .as_instruction()
        .ok_or_else(|| JitError::Codegen("scratch is not an instruction".into()))?
        .set_alignment(64)
        .map_err(|e| JitError::Codegen(e.to_string()))?;
    let mut array_base = Vec::new();
    let mut total = 0u64;
    for a in &f.arrays {
        array_base.push(total);
        total += a.len as u64 * 4 * BATCH_LANES as u64;
    }
    let exec_slot = slots.build_alloca(t.vb, "exec")?;
    let mut lw = Lower {
        e,
        f,
        func,
        slots,
        entry,
        math: opts.math,
        fma: cpu.fma,
        arith: nan::classes(f, opts.math == MathMode::Fast),
        vals: vec![None; f.values.len()],
        vars: HashMap::new(),
        exec: Var {
            p: exec_slot,
            ty: t.vb,
        },
        ifs: Vec::new(),
        loops: Vec::new(),
        p: ptrs,
        uniforms: Vec::new(),
        uniform_slots: HashMap::new(),
        textures: Vec::new(),
        host_fn,
        host_ty,
        tex_ty,
        emit_ty,
        scratch,
        array_base,
    };

    // for step in 0..BATCH_LANES / lanes
    let header = cx.append_basic_block(func, "step");
    let body = cx.append_basic_block(func, "body");
    let next = cx.append_basic_block(func, "next");
    let exit = cx.append_basic_block(func, "exit");
    lw.b.position_at_end(header);
    let step = lw.b.build_phi(t.i64, "step")?;
    let step_v = step.as_basic_value().into_int_value();
    let lane0 = lw.b.build_int_mul(step_v, lw.i64c(lanes as i64), "lane0")?;
    lw.p.lane0 = lane0;
    let alive_p = lw.byte_ptr(args, offset_of!(JitArgs, alive) as u64)?;
    let alive = lw.b.build_load(t.i64, alive_p, "")?.into_int_value();
    let alive = lw.b.build_right_shift(alive, lane0, false, "")?;
    let alive = if lanes == 64 {
        alive
    } else {
        lw.b.build_and(alive, lw.i64c((1i64 << lanes) - 1), "")?
    };
    let any =
        lw.b.build_int_compare(IntPredicate::NE, alive, t.i64.const_zero(), "")?;
    lw.b.build_conditional_branch(any, body, next)?;
    lw.b.position_at_end(body);
    let mask = lw.mask_from_bits(alive)?;
    lw.set_exec(mask)?;
    lw.block(&f.body)?;
    lw.b.build_unconditional_branch(next)?;
    lw.b.position_at_end(next);
    let s1 = lw.b.build_int_add(step_v, lw.i64c(1), "")?;
    let more = lw.b.build_int_compare(
        IntPredicate::ULT,
        s1,
        lw.i64c((BATCH_LANES / lanes) as i64),
        "",
    )?;
    lw.b.build_conditional_branch(more, header, exit)?;
    lw.b.position_at_end(exit);
    lw.b.build_return(None)?;
    step.add_incoming(&[(&t.i64.const_zero(), lw.entry), (&s1, next)]);
    // The entry block: the pointer loads, the stack slots, then the jump into the loop.
    lw.slots.position_at_end(lw.entry);
    lw.slots.build_unconditional_branch(header)?;
    let _ = lw.func;
    Ok(Lowered {
        uniforms: lw.uniforms,
        textures: lw.textures,
    })
}

impl<'ctx> Lower<'_, 'ctx> {
    // ------------------------------------------------------------------ slots

    fn var(&mut self, ty: VectorType<'ctx>) -> R<Var<'ctx>> {
        self.slots.position_at_end(self.entry);
        let p = self.slots.build_alloca(ty, "")?;
        Ok(Var { p, ty })
    }

    fn def_var(&self, v: Var<'ctx>, x: V<'ctx>) -> R<()> {
        let x = self.cast(x, v.ty)?;
        self.b.build_store(v.p, x)?;
        Ok(())
    }

    fn use_var(&self, v: Var<'ctx>) -> R<V<'ctx>> {
        Ok(self.b.build_load(v.ty, v.p, "")?.into_vector_value())
    }

    fn exec(&self) -> R<V<'ctx>> {
        self.use_var(self.exec)
    }

    fn set_exec(&self, m: V<'ctx>) -> R<()> {
        self.def_var(self.exec, m)
    }

    /// The vector type of an IR type.
    pub(super) fn vty(&self, t: ir::Type) -> VectorType<'ctx> {
        match t {
            ir::Type::F32 => self.t.vf,
            ir::Type::I32 => self.t.vi,
            ir::Type::Bool => self.t.vb,
        }
    }

    fn zero_of(&self, t: ir::Type) -> V<'ctx> {
        self.vty(t).const_zero()
    }

    // ------------------------------------------------------------------ values

    fn vars_for(&mut self, v: ir::Value) -> R<Var<'ctx>> {
        if let Some(&x) = self.vars.get(&v) {
            return Ok(x);
        }
        let x = self.var(self.vty(self.f.ty(v)))?;
        self.vars.insert(v, x);
        Ok(x)
    }

    /// An IR value's vector (typed by the IR type).
    pub(super) fn get(&mut self, v: ir::Value) -> R<V<'ctx>> {
        match self.f.values[v].def {
            Def::Inst(..) => self.vals[v.index()]
                .ok_or_else(|| JitError::Codegen(format!("{v:?} used before its definition"))),
            _ => {
                let x = self.vars_for(v)?;
                self.use_var(x)
            }
        }
    }

    /// An IR value as floats.
    pub(super) fn get_f(&mut self, v: ir::Value) -> R<V<'ctx>> {
        let x = self.get(v)?;
        self.floats(x)
    }

    /// An IR value as integers.
    pub(super) fn get_i(&mut self, v: ir::Value) -> R<V<'ctx>> {
        let x = self.get(v)?;
        self.ints(x)
    }

    /// An IR value whose bits are observed: if it is arithmetic, its NaNs canonical and its
    /// denormals flushed.
    pub(super) fn get_bits(&mut self, v: ir::Value) -> R<V<'ctx>> {
        let x = self.get(v)?;
        match self.arith[v.index()] {
            Class::Exact => Ok(x),
            c => self.canonical(x, c),
        }
    }

    /// The interpreter's bits of a value of class `class`: NaNs replaced by the NaN the
    /// interpreter holds there, denormals (which LLVM may leave where an operation it removed
    /// would have flushed them) by zeros of their sign.
    fn canonical(&self, x: V<'ctx>, class: Class) -> R<V<'ctx>> {
        let x = self.floats(x)?;
        let bits = self.ints(x)?;
        let exp = self.and(bits, self.iconst(0x7F80_0000))?;
        let tiny = self.icmp(IntPredicate::EQ, exp, self.iconst(0))?;
        let sign = self.and(bits, self.iconst(0x8000_0000))?;
        let flushed = self.select(tiny, sign, bits)?;
        let nan = self.fcmp(FloatPredicate::UNO, x, x)?;
        let r = self.select(nan, self.iconst(class.canonical_nan()), flushed)?;
        self.floats(r)
    }

    /// The value entering a merge whose result is `to`: canonicalized unless the merge is
    /// arithmetic itself.
    fn get_for(&mut self, v: ir::Value, to: ir::Value) -> R<V<'ctx>> {
        let x = if self.arith[to.index()] != Class::Exact {
            self.get(v)?
        } else {
            self.get_bits(v)?
        };
        self.cast(x, self.vty(self.f.ty(to)))
    }

    pub(super) fn set(&mut self, v: ir::Value, x: V<'ctx>) -> R<()> {
        let x = self.cast(x, self.vty(self.f.ty(v)))?;
        self.vals[v.index()] = Some(x);
        Ok(())
    }

    pub(super) fn is_uniform(&self, v: ir::Value) -> bool {
        self.f.uniform.get(v.index()).copied().unwrap_or(false)
    }

    // ------------------------------------------------------------------ control flow

    fn block(&mut self, blk: &ir::Block) -> R<()> {
        for s in &blk.0 {
            match s {
                Stmt::Inst(i) => self.inst(*i)?,
                Stmt::If(x) => self.if_(x)?,
                Stmt::Loop(l) => self.loop_(l)?,
                Stmt::Break(v) => {
                    let fr = self.loops.len() - 1;
                    let (results, rvals, brk) = {
                        let l = &self.loops[fr];
                        (l.results.clone(), l.result_values.clone(), l.brk)
                    };
                    self.leave(&results, v, &rvals, brk)?;
                }
                Stmt::Continue(v) => {
                    let fr = self.loops.len() - 1;
                    let (next, pvals, cont) = {
                        let l = &self.loops[fr];
                        (l.next.clone(), l.param_values.clone(), l.cont)
                    };
                    self.leave(&next, v, &pvals, cont)?;
                }
                Stmt::Yield(v) => {
                    let fr = self.ifs.len() - 1;
                    let (results, tos, divergent, in_else) = {
                        let i = &self.ifs[fr];
                        (i.results.clone(), i.values.clone(), i.divergent, i.in_else)
                    };
                    let exec = if divergent && in_else {
                        Some(self.exec()?)
                    } else {
                        None
                    };
                    for ((&var, &val), &to) in results.iter().zip(v).zip(&tos) {
                        let x = self.get_for(val, to)?;
                        let x = match exec {
                            Some(m) => {
                                let old = self.use_var(var)?;
                                self.select(m, x, old)?
                            }
                            None => x,
                        };
                        self.def_var(var, x)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// `break` or `continue`: the active lanes pass `vals` into `vars` (the values `tos`) and
    /// join the lanes of `lanes`; none stays active.
    fn leave(
        &mut self,
        vars: &[Var<'ctx>],
        vals: &[ir::Value],
        tos: &[ir::Value],
        lanes: Var<'ctx>,
    ) -> R<()> {
        let exec = self.exec()?;
        for ((&var, &val), &to) in vars.iter().zip(vals).zip(tos) {
            let x = self.get_for(val, to)?;
            let new = self.merge(to, exec, x, var)?;
            self.def_var(var, new)?;
        }
        let old = self.use_var(lanes)?;
        let new = self.or(old, exec)?;
        self.def_var(lanes, new)?;
        self.set_exec(self.bconst(false))
    }

    /// The new value of a merge's slot for the lanes of `exec`. A uniform merge reached by any
    /// lane takes the value in every lane, so uniform values stay equal in inactive lanes too
    /// and any lane can stand for all (uniform branches and addresses read lane 0).
    fn merge(&mut self, to: ir::Value, exec: V<'ctx>, x: V<'ctx>, var: Var<'ctx>) -> R<V<'ctx>> {
        let old = self.use_var(var)?;
        if self.is_uniform(to) {
            let any = self.any(exec)?;
            return self.select_all(any, x, old);
        }
        self.select(exec, x, old)
    }

    fn if_(&mut self, x: &ir::IfStmt) -> R<()> {
        let cond = self.get(x.cond)?;
        let uniform = self.is_uniform(x.cond);
        let results = x
            .results
            .iter()
            .map(|&r| self.vars_for(r))
            .collect::<R<Vec<_>>>()?;
        self.ifs.push(IfFrame {
            values: x.results.clone(),
            results: results.clone(),
            divergent: !uniform,
            in_else: false,
        });
        // Results start defined: lanes no branch yields for are never read, but the slots
        // must not be read uninitialized (both branches may leave the loop, and a value LLVM
        // sees as undefined may feed a branch, which it takes as undefined behaviour).
        for (&r, &var) in x.results.iter().zip(&results) {
            self.def_var(var, self.zero_of(self.f.ty(r)))?;
        }
        let cx = self.cx;
        let then_bb = cx.append_basic_block(self.func, "then");
        let else_bb = cx.append_basic_block(self.func, "else");
        let join = cx.append_basic_block(self.func, "endif");
        if uniform {
            // Every lane agrees: a real branch, the mask unchanged.
            let c0 = self.extract_int(cond)?;
            self.b.build_conditional_branch(c0, then_bb, else_bb)?;
            self.b.position_at_end(then_bb);
            self.block(&x.then_)?;
            self.b.build_unconditional_branch(join)?;
            self.b.position_at_end(else_bb);
            if let Some(fr) = self.ifs.last_mut() {
                fr.in_else = true;
            }
            self.block(&x.else_)?;
            self.b.build_unconditional_branch(join)?;
            self.b.position_at_end(join);
        } else if jumps_only(&x.then_) && jumps_only(&x.else_) {
            // Branches that only move lanes (a loop's exit test): both run under their masks,
            // without branching; a jump under an empty mask changes nothing.
            let exec0 = self.exec()?;
            let tmask = self.and(exec0, cond)?;
            let emask = self.and_not(exec0, cond)?;
            self.b.build_unconditional_branch(then_bb)?;
            self.b.position_at_end(then_bb);
            self.set_exec(tmask)?;
            self.block(&x.then_)?;
            let t = self.exec()?;
            self.b.build_unconditional_branch(else_bb)?;
            self.b.position_at_end(else_bb);
            if let Some(fr) = self.ifs.last_mut() {
                fr.in_else = true;
            }
            self.set_exec(emask)?;
            self.block(&x.else_)?;
            let e = self.exec()?;
            self.b.build_unconditional_branch(join)?;
            self.b.position_at_end(join);
            let m = self.or(t, e)?;
            self.set_exec(m)?;
        } else {
            let exec0 = self.exec()?;
            let tmask = self.and(exec0, cond)?;
            let emask = self.and_not(exec0, cond)?;
            let out_t = self.var(self.t.vb)?;
            let out_e = self.var(self.t.vb)?;
            self.def_var(out_t, self.bconst(false))?;
            self.def_var(out_e, self.bconst(false))?;
            let check_else = cx.append_basic_block(self.func, "check_else");
            let any_t = self.any(tmask)?;
            self.b
                .build_conditional_branch(any_t, then_bb, check_else)?;
            self.b.position_at_end(then_bb);
            self.set_exec(tmask)?;
            self.block(&x.then_)?;
            let e = self.exec()?;
            self.def_var(out_t, e)?;
            self.b.build_unconditional_branch(check_else)?;
            self.b.position_at_end(check_else);
            let any_e = self.any(emask)?;
            self.b.build_conditional_branch(any_e, else_bb, join)?;
            self.b.position_at_end(else_bb);
            if let Some(fr) = self.ifs.last_mut() {
                fr.in_else = true;
            }
            self.set_exec(emask)?;
            self.block(&x.else_)?;
            let e = self.exec()?;
            self.def_var(out_e, e)?;
            self.b.build_unconditional_branch(join)?;
            self.b.position_at_end(join);
            let t = self.use_var(out_t)?;
            let e = self.use_var(out_e)?;
            let m = self.or(t, e)?;
            self.set_exec(m)?;
        }
        self.ifs.pop();
        Ok(())
    }

    fn loop_(&mut self, l: &ir::LoopStmt) -> R<()> {
        let params = l
            .params
            .iter()
            .map(|&p| self.vars_for(p))
            .collect::<R<Vec<_>>>()?;
        let results = l
            .results
            .iter()
            .map(|&r| self.vars_for(r))
            .collect::<R<Vec<_>>>()?;
        let next = l
            .params
            .iter()
            .map(|&p| self.var(self.vty(self.f.ty(p))))
            .collect::<R<Vec<_>>>()?;
        let cont = self.var(self.t.vb)?;
        let brk = self.var(self.t.vb)?;
        let live = self.var(self.t.vb)?;
        for ((&var, &init), &p) in params.iter().zip(&l.inits).zip(&l.params) {
            let x = self.get_for(init, p)?;
            self.def_var(var, x)?;
        }
        for (&var, &r) in results.iter().zip(&l.results) {
            self.def_var(var, self.zero_of(self.f.ty(r)))?;
        }
        self.def_var(brk, self.bconst(false))?;
        let e = self.exec()?;
        self.def_var(live, e)?;
        let header = self.cx.append_basic_block(self.func, "loop");
        let exit = self.cx.append_basic_block(self.func, "endloop");
        self.b.build_unconditional_branch(header)?;
        self.b.position_at_end(header);
        let live_now = self.use_var(live)?;
        self.set_exec(live_now)?;
        self.def_var(cont, self.bconst(false))?;
        for (&nv, &pv) in next.iter().zip(&params) {
            let cur = self.use_var(pv)?;
            self.def_var(nv, cur)?;
        }
        self.loops.push(LoopFrame {
            param_values: l.params.clone(),
            result_values: l.results.clone(),
            next: next.clone(),
            results,
            cont,
            brk,
        });
        self.block(&l.body)?;
        self.loops.pop();
        let c = self.use_var(cont)?;
        self.def_var(live, c)?;
        for (&nv, &pv) in next.iter().zip(&params) {
            let n = self.use_var(nv)?;
            self.def_var(pv, n)?;
        }
        let again = self.any(c)?;
        self.b.build_conditional_branch(again, header, exit)?;
        self.b.position_at_end(exit);
        let out = self.use_var(brk)?;
        self.set_exec(out)
    }
}
