//! One SIMD lowering for every JIT back end: the optimized IR to vector code, written once
//! against [`SimdBuilder`], which Cranelift ([`cranelift`](super::cranelift)) and LLVM
//! (`llvm`, cargo feature) implement.
//!
//! - **Structure of arrays.** A batch holds [`BATCH_LANES`] invocations; the generated function
//!   loops over them a *step* of [`SimdBuilder::lanes`] lanes at a time, every IR value one
//!   vector of the step's lanes (a target may split it into several registers). Lanes without
//!   an invocation (`JitArgs::alive`) start inactive; a step with none is skipped.
//! - **Uniform values** (`ir::uniform`: computed from constants and constant buffers alone)
//!   that top-level statements compute are computed once per call, before the steps
//!   (`hoist.rs`), not in every step.
//! - **Control flow** runs under an execution mask: an `If` whose condition is uniform is a
//!   real branch; otherwise each branch runs under its mask, skipped when no lane takes it (a
//!   branch that only moves lanes, such as a loop's exit test, runs without a branch). A loop
//!   runs while any lane is in it; `break` and `continue` move lanes out, with their values,
//!   under masks.
//! - **Numerics** are the interpreter's, bit for bit: the code runs under DAZ/FTZ
//!   ([`fpenv`](super::fpenv)), so vector arithmetic flushes as the interpreter does; NaN
//!   results are canonicalized where their bits can be observed ([`nan`]); a target
//!   whose optimizer folds float operations as IEEE does ([`SimdBuilder::FOLDS_DENORMALS`])
//!   also flushes denormals there. Operations without a vector instruction on the target
//!   ([`Optional`]), and transcendental functions, call [`tgsic_lanes_op`](super::lane_ops), which
//!   evaluates them with the interpreter's own code. Fast math is not the back ends' business:
//!   [`crate::opt::math::for_math`] expands the approximations into IR first ([`crate::opt::fast_math`]).
//! - **Memory safety.** Inputs, outputs and arrays are addressed with clamped indices; an
//!   array store outside its range is dropped per lane; constant-buffer reads check the
//!   buffer and its length. Texture lookups and EMIT call back into the host.
//!
//! # Adding a SIMD target
//! Implement [`SimdBuilder`] for the target's code builder (vectors, masks, scalars,
//! variables, blocks, loads, gathers and calls: about 60 small methods, each documented with
//! what it must compute), create the function with one pointer parameter, call [`lower`], and
//! turn the result into a [`CompiledShader`](super::compiled::CompiledShader) with the
//! [`Lowered`] tables. Say in [`SimdBuilder::supports`] which [`Optional`] operations have
//! vector instructions; the rest are computed on the host. The tests in
//! `back/tests_support.rs` (every operation against the interpreter's numerics, the loop
//! budget, constant operands, the fast-math bounds) take a compile function, so a new target
//! runs them by adding one line per test.

mod accurate;
mod builder;
mod denormals;
mod hoist;
mod int_ops;
mod libm;
mod lower;
mod mem;
mod ops;
mod plan;
mod storage;
mod texture;
mod wide;

pub use builder::*;
pub use libm::{exact, exact_rarely, inline as inline_exact};
pub use plan::{
    LOOKUP_GAP, SPARSE_GAP, StraightLine, TRANSCENDENTAL_WORK, host_fma, step_lanes, work,
};

use super::abi::{BATCH_LANES, JitArgs, TextureCall};
use super::nan::{self, Class};
use super::texpath::TexPaths;
use crate::ir::{self, Def, FCmp, Stmt};
use crate::maps::{FastMap, FastSet};
use lower::{IfFrame, LoopFrame, Lower, Ptrs};
use plan::jumps_only;
use std::mem::offset_of;

/// What the caller of [`lower`] needs besides the code.
#[derive(Debug, Clone, Default)]
pub struct Lowered {
    /// The direct constant reads, in `JitArgs::uniforms` order.
    pub uniforms: Vec<(u32, u32, u8)>,
    /// The texture operations, by callback index.
    pub textures: Vec<TextureCall>,
    /// The memory operations, by callback index.
    pub memory: Vec<ir::MemAccess>,
    /// The texture operations sampled in the code: those of the `paths` [`lower`] was given
    /// that [`vector_texture`](super::texpath::vector_texture) accepts.
    pub tex_paths: TexPaths,
    /// The OUT components the code writes in every lane
    /// ([`CompiledShader::stored_outputs`](super::compiled::CompiledShader::stored_outputs)).
    pub stored_outputs: Vec<bool>,
}

/// Words of the stack area calls use: the widest host call, texture call or EMIT.
fn scratch_words(f: &ir::Function, lanes: usize) -> usize {
    let mut words = 8 * lanes;
    f.for_each_inst(|i| {
        let d = &f.insts[i];
        let n = match &d.op {
            ir::Op::Texture(_) => d.args.len() + 4,
            ir::Op::Memory(_) => d.args.len() + d.results.len(),
            ir::Op::Emit | ir::Op::EndPrim => d.args.len(),
            _ => 0,
        };
        words = words.max(n * lanes);
    });
    words
}

/// Generates the code of `f` (exact numerics; see [`crate::opt::math::for_math`] for the other math modes) through `b`,
/// which starts in the entry block of a function whose one parameter is the
/// [`JitArgs`] pointer, and returns the builder with the function complete. The texture
/// operations of `tex_paths` that can be are sampled in the code, the others call back.
///
/// # Errors
/// What the builder reports ([`JitError::Invariant`](super::abi::JitError::Invariant) or [`JitError::Backend`](super::abi::JitError::Backend)).
pub fn lower<B: SimdBuilder>(
    f: &ir::Function,
    mut b: B,
    tex_paths: TexPaths,
    math: super::abi::MathMode,
) -> R<(B, Lowered)> {
    let lanes = b.lanes();
    let args = b.args();
    let ptr = |b: &mut B, off: usize| b.load(Scalar::Ptr, args, off as i32);
    let p = Ptrs {
        inputs: ptr(&mut b, offset_of!(JitArgs, inputs))?,
        inputs_x: ptr(&mut b, offset_of!(JitArgs, inputs_x))?,
        inputs_x_stride: b.load(
            Scalar::I64,
            args,
            offset_of!(JitArgs, inputs_x_stride) as i32,
        )?,
        sv: ptr(&mut b, offset_of!(JitArgs, sv))?,
        outputs: ptr(&mut b, offset_of!(JitArgs, outputs))?,
        arrays: ptr(&mut b, offset_of!(JitArgs, arrays))?,
        uniforms: ptr(&mut b, offset_of!(JitArgs, uniforms))?,
        constants: ptr(&mut b, offset_of!(JitArgs, constants))?,
        num_constants: b.load(Scalar::I64, args, offset_of!(JitArgs, num_constants) as i32)?,
        immediates: ptr(&mut b, offset_of!(JitArgs, immediates))?,
        zeros: ptr(&mut b, offset_of!(JitArgs, zeros))?,
        callbacks: ptr(&mut b, offset_of!(JitArgs, callbacks))?,
        texture: ptr(&mut b, offset_of!(JitArgs, texture))?,
        emit: ptr(&mut b, offset_of!(JitArgs, emit))?,
        memory: ptr(&mut b, offset_of!(JitArgs, memory))?,
        lane_op: ptr(&mut b, offset_of!(JitArgs, lane_op))?,
        tex_descs: ptr(&mut b, offset_of!(JitArgs, tex_descs))?,
        mem_descs: ptr(&mut b, offset_of!(JitArgs, mem_descs))?,
        scratch: b.stack_area(scratch_words(f, lanes))?,
        lane0: args,
    };
    let mut array_base = Vec::new();
    let mut total = 0u64;
    for a in &f.arrays {
        array_base.push(total);
        total += a.len as u64 * 4 * BATCH_LANES as u64;
    }
    let exec = b.vector_var(Kind::Mask)?;
    let (arith, uniform, merges) = (nan::classes(f), ir::uniform::analyze(f), wide::merges(f));
    let wide_pairs = if b.has_wide() {
        wide::wide_pairs(f, &merges, &uniform, &arith)
    } else {
        FastSet::default()
    };
    let mut lw = Lower {
        f,
        b,
        flushed: denormals::Flushed::analyze(f, &texels_normal(f, &tex_paths)),
        vals: vec![None; f.values.len()],
        dvals: vec![None; f.values.len()],
        nan_seen64: wide::nan_bits_seen(f, &merges),
        arith,
        uniform,
        wide_pairs,
        wide_words: FastMap::default(),
        vars: FastMap::default(),
        exec,
        ifs: Vec::new(),
        loops: Vec::new(),
        p,
        uniforms: Vec::new(),
        uniform_slots: FastMap::default(),
        textures: Vec::new(),
        memory: Vec::new(),
        tex_paths,
        tex_done: TexPaths::NONE,
        tex_descs: FastMap::default(),
        desc_vals: vec![FastMap::default()],
        array_base,
        trash: total,
        stores: Vec::new(),
        sincos_pairs: ops::sincos_pairs(f),
        sincos_ready: FastMap::default(),
        prehoisted: Default::default(),
        accurate_sincos: math == super::abi::MathMode::Accurate,
    };
    lw.steps()?;
    Ok((
        lw.b,
        Lowered {
            uniforms: lw.uniforms,
            textures: lw.textures,
            memory: lw.memory,
            tex_paths: lw.tex_done,
            stored_outputs: lw.stores.iter().map(|s| *s == Some(true)).collect(),
        },
    ))
}

impl<B: SimdBuilder> Lower<'_, B> {
    /// The batch loop: `for step in 0..BATCH_LANES / lanes`, skipping steps without a live
    /// lane.
    fn steps(&mut self) -> R<()> {
        let lanes = self.b.lanes();
        let step = self.b.scalar_var()?;
        let zero = self.b.sconst(Scalar::I64, 0)?;
        self.b.def_scalar(step, zero)?;
        let header = self.b.block()?;
        let body = self.b.block()?;
        let idle = self.b.block()?;
        let next = self.b.block()?;
        let exit = self.b.block()?;
        let prologue = self.b.block()?;
        self.b.end_entry(prologue)?;

        // What every step would compute alike, once per call.
        self.b.switch_to(prologue)?;
        let hoisted = self.hoist()?;
        self.b.jump(header)?;

        self.b.switch_to(header)?;
        let s = self.b.use_scalar(step)?;
        let n = self.b.sconst(Scalar::I64, lanes as i64)?;
        self.p.lane0 = self.b.sbin(SBin::Mul, s, n)?;
        let alive = self.b.load(
            Scalar::I64,
            self.b.args(),
            offset_of!(JitArgs, alive) as i32,
        )?;
        let mut alive = self.b.sbin(SBin::UShr, alive, self.p.lane0)?;
        if lanes < 64 {
            let m = self.b.sconst(Scalar::I64, (1i64 << lanes) - 1)?;
            alive = self.b.sbin(SBin::And, alive, m)?;
        }
        let zero = self.b.sconst(Scalar::I64, 0)?;
        let any = self.b.scmp(false, alive, zero)?;
        self.b.branch(any, body, idle)?;

        self.b.switch_to(body)?;
        let mask = self.b.mask_from_bits(alive)?;
        self.set_exec(mask)?;
        let f = self.f;
        for (s, _) in f.body.0.iter().zip(&hoisted).filter(|(_, h)| !**h) {
            self.stmt(s)?;
        }
        self.b.jump(next)?;

        // A step without a live lane skips the body; the outputs the body writes whole are 0
        // in its lanes ([`Self::store_output`]).
        self.b.switch_to(idle)?;
        self.zero_stored_outputs()?;
        self.b.jump(next)?;

        self.b.switch_to(next)?;
        let one = self.b.sconst(Scalar::I64, 1)?;
        let s1 = self.b.sbin(SBin::Add, s, one)?;
        self.b.def_scalar(step, s1)?;
        let steps = self.b.sconst(Scalar::I64, (BATCH_LANES / lanes) as i64)?;
        let more = self.b.scmp(true, s1, steps)?;
        self.b.branch(more, header, exit)?;
        self.b.switch_to(exit)?;
        self.b.ret()
    }

    // ------------------------------------------------------------------ values

    fn exec(&mut self) -> R<B::V> {
        self.b.use_vector(self.exec)
    }

    fn set_exec(&mut self, m: B::V) -> R<()> {
        self.b.def_vector(self.exec, m)
    }

    fn mask_const(&mut self, set: bool) -> R<B::V> {
        self.b.splat_const(Kind::Mask, set as u32)
    }

    fn fconst(&mut self, x: f32) -> R<B::V> {
        self.b.splat_const(Kind::F32, x.to_bits())
    }

    fn iconst(&mut self, x: u32) -> R<B::V> {
        self.b.splat_const(Kind::I32, x)
    }

    fn sconst(&mut self, x: i64) -> R<B::S> {
        self.b.sconst(Scalar::I64, x)
    }

    /// `op(a, k)`, the constant `k` in every lane.
    fn ik(&mut self, op: IBin, a: B::V, k: u32) -> R<B::V> {
        let k = self.iconst(k)?;
        self.b.ibin(op, a, k)
    }

    /// `op(a, k)` of I64 scalars.
    fn sk(&mut self, op: SBin, a: B::S, k: i64) -> R<B::S> {
        let k = self.sconst(k)?;
        self.b.sbin(op, a, k)
    }

    fn var_of(&mut self, v: ir::Value) -> R<B::Var> {
        if let Some(&x) = self.vars.get(&v) {
            return Ok(x);
        }
        let x = self.b.vector_var(kind(self.f.ty(v)))?;
        self.vars.insert(v, x);
        Ok(x)
    }

    fn is_uniform(&self, v: ir::Value) -> bool {
        self.uniform.is_uniform(v)
    }

    /// An IR value's vector, of its IR type's kind.
    fn get(&mut self, v: ir::Value) -> R<B::V> {
        match self.f.values[v].def {
            Def::Inst(..) => self.vals[v.index()]
                .ok_or_else(|| super::abi::Invariant::UseBeforeDef(format!("{v:?}")).into()),
            _ => {
                let x = self.var_of(v)?;
                self.b.use_vector(x)
            }
        }
    }

    /// An IR value whose bits are observed: its NaNs canonical if it is arithmetic (and its
    /// denormals flushed, on a target that folds them).
    fn get_bits(&mut self, v: ir::Value) -> R<B::V> {
        let x = self.get(v)?;
        match self.arith[v.index()] {
            Class::Exact => Ok(x),
            c => {
                let flush = B::FOLDS_DENORMALS && !self.known_flushed(v);
                self.canonical_with(x, c, flush)
            }
        }
    }

    /// The interpreter's bits of a value of class `class`.
    fn canonical(&mut self, x: B::V, class: Class) -> R<B::V> {
        self.canonical_with(x, class, B::FOLDS_DENORMALS)
    }

    /// The interpreter's bits of a value of class `class`, flushed first when `flush` (a
    /// target that folds denormals, for a value not known to be flushed).
    fn canonical_with(&mut self, x: B::V, class: Class, flush: bool) -> R<B::V> {
        let x = if flush { self.b.flush(x)? } else { x };
        let nan = self.b.fcmp(FCmp::Ne, x, x)?;
        let c = self.b.splat_const(Kind::F32, class.canonical_nan())?;
        self.b.select(nan, c, x)
    }

    /// The value entering a merge whose result is `to`: canonicalized unless the merge is
    /// arithmetic itself.
    fn get_for(&mut self, v: ir::Value, to: ir::Value) -> R<B::V> {
        let x = if self.arith[to.index()] != Class::Exact {
            self.get(v)?
        } else {
            self.get_bits(v)?
        };
        self.b.cast(x, kind(self.f.ty(to)))
    }

    fn set(&mut self, v: ir::Value, x: B::V) -> R<()> {
        let x = self.b.cast(x, kind(self.f.ty(v)))?;
        self.vals[v.index()] = Some(x);
        Ok(())
    }

    // ------------------------------------------------------------------ control flow

    /// [`Self::block`] for the branch of an `If` or the body of a loop: what it caches for
    /// later lookups ([`Self::desc_vals`]) ends with it.
    fn scoped(&mut self, blk: &ir::Block) -> R<()> {
        self.desc_vals.push(FastMap::default());
        let r = self.block(blk);
        self.desc_vals.pop();
        r
    }

    fn block(&mut self, blk: &ir::Block) -> R<()> {
        for s in &blk.0 {
            self.stmt(s)?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt) -> R<()> {
        match s {
            Stmt::Inst(i) => self.inst(*i)?,
            Stmt::If(x) => self.if_(x)?,
            Stmt::Loop(l) => self.loop_(l)?,
            Stmt::Break(v) => {
                let l = self.loops.last().expect("break inside a loop");
                let (vars, tos, lanes) = (l.results.clone(), l.result_values.clone(), l.brk);
                let wide = l.wide_results.clone();
                self.leave(&vars, v, &tos, lanes, false, &wide)?;
            }
            Stmt::Continue(v) => {
                let l = self.loops.last().expect("continue inside a loop");
                let (vars, tos, lanes) = (l.next.clone(), l.param_values.clone(), l.cont);
                let every_lane = l.sole_continue;
                let wide = l.wide.clone();
                self.leave(&vars, v, &tos, lanes, every_lane, &wide)?;
            }
            Stmt::Yield(v) => {
                let i = self.ifs.last().expect("yield inside an if");
                let (vars, tos, wide) = (i.results.clone(), i.values.clone(), i.wide.clone());
                let exec = if i.divergent && i.in_else {
                    Some(self.exec()?)
                } else {
                    None
                };
                for &(j, var) in &wide {
                    let mut x = self.words64(v[j], v[j + 1])?;
                    if let Some(m) = exec {
                        let old = self.b.use_wide(var)?;
                        x = self.b.d_select(m, x, old)?;
                    }
                    self.b.def_wide(var, x)?;
                }
                for (k, ((&var, &val), &to)) in vars.iter().zip(v).zip(&tos).enumerate() {
                    if wide.iter().any(|&(j, _)| k == j || k == j + 1) {
                        continue;
                    }
                    let mut x = self.get_for(val, to)?;
                    if let Some(m) = exec {
                        let old = self.b.use_vector(var)?;
                        x = self.b.select(m, x, old)?;
                    }
                    self.b.def_vector(var, x)?;
                }
            }
        }
        Ok(())
    }

    /// `break` or `continue`: the active lanes pass `vals` into `vars` (the values `tos`) and
    /// join the lanes of `lanes`; none stays active. With `every_lane` (the `continue` of
    /// [`ir::LoopStmt::sole_final_continue`]) the values go to every lane and the active lanes
    /// are all of `lanes`: the lanes that do not reach it have left the loop (its parameters
    /// are never read again) or never entered it. Loop-carried values then do not depend on
    /// the execution mask, which leaves only the mask's own update on the loop's critical path.
    /// `wide`: the pairs carried as 64-bit values (`LoopFrame::wide`, `wide_results`), whose
    /// values go to their 64-bit variables instead of the word ones.
    fn leave(
        &mut self,
        vars: &[B::Var],
        vals: &[ir::Value],
        tos: &[ir::Value],
        lanes: B::Var,
        every_lane: bool,
        wide: &[(usize, B::Var)],
    ) -> R<()> {
        let exec = self.exec()?;
        for &(j, var) in wide {
            let x = self.words64(vals[j], vals[j + 1])?;
            let new = if every_lane {
                x
            } else {
                let old = self.b.use_wide(var)?;
                self.b.d_select(exec, x, old)?
            };
            self.b.def_wide(var, new)?;
        }
        for (k, ((&var, &val), &to)) in vars.iter().zip(vals).zip(tos).enumerate() {
            if wide.iter().any(|&(j, _)| k == j || k == j + 1) {
                continue;
            }
            let x = self.get_for(val, to)?;
            let new = if every_lane {
                x
            } else if self.is_uniform(to) {
                // A uniform merge reached by any lane takes the value in every lane, so
                // uniform values stay equal in inactive lanes too and any lane can stand for
                // all (uniform branches and addresses read lane 0).
                let old = self.b.use_vector(var)?;
                let any = self.b.any(exec)?;
                self.b.select_all(any, x, old)?
            } else {
                let old = self.b.use_vector(var)?;
                self.b.select(exec, x, old)?
            };
            self.b.def_vector(var, new)?;
        }
        let new = if every_lane {
            exec
        } else {
            let old = self.b.use_vector(lanes)?;
            self.b.ibin(IBin::Or, old, exec)?
        };
        self.b.def_vector(lanes, new)?;
        let none = self.mask_const(false)?;
        self.set_exec(none)
    }

    fn if_(&mut self, x: &ir::IfStmt) -> R<()> {
        let cond = self.get(x.cond)?;
        let uniform = self.is_uniform(x.cond);
        let results = x
            .results
            .iter()
            .map(|&r| self.var_of(r))
            .collect::<R<Vec<_>>>()?;
        // Results start defined: lanes no branch yields for are never read, but a variable
        // must not be read undefined (both branches may leave the loop).
        for (&r, &var) in x.results.iter().zip(&results) {
            let z = self.b.splat_const(kind(self.f.ty(r)), 0)?;
            self.b.def_vector(var, z)?;
        }
        let wide = self.wide_vars(&x.results)?;
        self.ifs.push(IfFrame {
            values: x.results.clone(),
            results: results.clone(),
            divergent: !uniform,
            in_else: false,
            wide: wide.clone(),
        });
        let then_bb = self.b.block()?;
        let else_bb = self.b.block()?;
        let join = self.b.block()?;
        let in_else = |s: &mut Self| {
            if let Some(fr) = s.ifs.last_mut() {
                fr.in_else = true;
            }
        };
        if uniform {
            // Every lane agrees: a real branch, the mask unchanged.
            let c0 = self.b.extract(cond, 0)?;
            self.b.branch(c0, then_bb, else_bb)?;
            self.b.switch_to(then_bb)?;
            self.scoped(&x.then_)?;
            self.b.jump(join)?;
            self.b.switch_to(else_bb)?;
            in_else(self);
            self.scoped(&x.else_)?;
            self.b.jump(join)?;
            self.b.switch_to(join)?;
        } else {
            let exec0 = self.exec()?;
            let tmask = self.b.ibin(IBin::And, exec0, cond)?;
            let emask = self.b.ibin(IBin::AndNot, exec0, cond)?;
            // A branch no lane takes is skipped; a target may run branches that only move lanes
            // without the test, since a jump under an empty mask changes nothing.
            let skip = !(B::BRANCHLESS_LANE_MOVES && jumps_only(&x.then_) && jumps_only(&x.else_));
            let (out_t, out_e) = (
                self.b.vector_var(Kind::Mask)?,
                self.b.vector_var(Kind::Mask)?,
            );
            let none = self.mask_const(false)?;
            self.b.def_vector(out_t, none)?;
            self.b.def_vector(out_e, none)?;
            let check_else = self.b.block()?;
            for (then, mask, bb, skip_to, out) in [
                (true, tmask, then_bb, check_else, out_t),
                (false, emask, else_bb, join, out_e),
            ] {
                if skip {
                    let any = self.b.any(mask)?;
                    self.b.branch(any, bb, skip_to)?;
                } else {
                    self.b.jump(bb)?;
                }
                self.b.switch_to(bb)?;
                self.set_exec(mask)?;
                if then {
                    self.scoped(&x.then_)?;
                } else {
                    in_else(self);
                    self.scoped(&x.else_)?;
                }
                let e = self.exec()?;
                self.b.def_vector(out, e)?;
                self.b.jump(skip_to)?;
                self.b.switch_to(skip_to)?;
            }
            let t = self.b.use_vector(out_t)?;
            let e = self.b.use_vector(out_e)?;
            let m = self.b.ibin(IBin::Or, t, e)?;
            self.set_exec(m)?;
        }
        self.ifs.pop();
        self.carried_out(&wide, &results, &x.results)
    }

    /// For the pairs of `values` carried as 64-bit values ([`wide::wide_pairs`]): their
    /// indices and new 64-bit variables, zero (as the word variables start).
    fn wide_vars(&mut self, values: &[ir::Value]) -> R<Vec<(usize, B::Var)>> {
        let mut out = Vec::new();
        for j in self.wide_at(values) {
            let var = self.b.wide_var()?;
            let z = self.b.q_const(0)?;
            self.b.def_wide(var, z)?;
            out.push((j, var));
        }
        Ok(out)
    }

    /// After a merge whose result pairs `wide` were carried as 64-bit values: their word
    /// variables (`vars`, of `values`) from those values.
    fn carried_out(
        &mut self,
        wide: &[(usize, B::Var)],
        vars: &[B::Var],
        values: &[ir::Value],
    ) -> R<()> {
        for &(j, var) in wide {
            let d = self.b.use_wide(var)?;
            self.def_words(vars, values, j, d)?;
        }
        Ok(())
    }

    fn loop_(&mut self, l: &ir::LoopStmt) -> R<()> {
        // Parameter pairs carried as 64-bit values ([`wide::wide_pairs`]): their word
        // variables are made from the 64-bit one at the top of every iteration and never
        // passed along.
        let wide: Vec<usize> = self.wide_at(&l.params);
        let paired: FastSet<usize> = wide.iter().flat_map(|&j| [j, j + 1]).collect();
        let params = l
            .params
            .iter()
            .map(|&p| self.var_of(p))
            .collect::<R<Vec<_>>>()?;
        let results = l
            .results
            .iter()
            .map(|&r| self.var_of(r))
            .collect::<R<Vec<_>>>()?;
        let next = l
            .params
            .iter()
            .map(|&p| self.b.vector_var(kind(self.f.ty(p))))
            .collect::<R<Vec<_>>>()?;
        let cont = self.b.vector_var(Kind::Mask)?;
        let brk = self.b.vector_var(Kind::Mask)?;
        let live = self.b.vector_var(Kind::Mask)?;
        for (k, ((&var, &init), &p)) in params.iter().zip(&l.inits).zip(&l.params).enumerate() {
            if !paired.contains(&k) {
                let x = self.get_for(init, p)?;
                self.b.def_vector(var, x)?;
            }
        }
        let mut wide_vars = Vec::new();
        for &j in &wide {
            let (pv, nv) = (self.b.wide_var()?, self.b.wide_var()?);
            let d = self.words64(l.inits[j], l.inits[j + 1])?;
            self.b.def_wide(pv, d)?;
            wide_vars.push((pv, nv));
        }
        for (&var, &r) in results.iter().zip(&l.results) {
            let z = self.b.splat_const(kind(self.f.ty(r)), 0)?;
            self.b.def_vector(var, z)?;
        }
        let wide_results = self.wide_vars(&l.results)?;
        let none = self.mask_const(false)?;
        self.b.def_vector(brk, none)?;
        let e = self.exec()?;
        self.b.def_vector(live, e)?;
        let header = self.b.block()?;
        let exit = self.b.block()?;
        self.b.jump(header)?;
        self.b.switch_to(header)?;
        let live_now = self.b.use_vector(live)?;
        self.set_exec(live_now)?;
        let none = self.mask_const(false)?;
        self.b.def_vector(cont, none)?;
        for (k, (&nv, &pv)) in next.iter().zip(&params).enumerate() {
            if !paired.contains(&k) {
                let cur = self.b.use_vector(pv)?;
                self.b.def_vector(nv, cur)?;
            }
        }
        for (&j, &(pv, nv)) in wide.iter().zip(&wide_vars) {
            let d = self.b.use_wide(pv)?;
            self.b.def_wide(nv, d)?;
            self.def_words(&params, &l.params, j, d)?;
        }
        self.loops.push(LoopFrame {
            param_values: l.params.clone(),
            result_values: l.results.clone(),
            next: next.clone(),
            results: results.clone(),
            cont,
            brk,
            sole_continue: l.sole_final_continue(),
            wide: wide
                .iter()
                .zip(&wide_vars)
                .map(|(&j, &(_, nv))| (j, nv))
                .collect(),
            wide_results: wide_results.clone(),
        });
        self.scoped(&l.body)?;
        self.loops.pop();
        let c = self.b.use_vector(cont)?;
        self.b.def_vector(live, c)?;
        for (k, (&nv, &pv)) in next.iter().zip(&params).enumerate() {
            if !paired.contains(&k) {
                let n = self.b.use_vector(nv)?;
                self.b.def_vector(pv, n)?;
            }
        }
        for &(pv, nv) in &wide_vars {
            let n = self.b.use_wide(nv)?;
            self.b.def_wide(pv, n)?;
        }
        let again = self.b.any(c)?;
        self.b.branch(again, header, exit)?;
        self.b.switch_to(exit)?;
        let out = self.b.use_vector(brk)?;
        self.set_exec(out)?;
        self.carried_out(&wide_results, &results, &l.results)
    }
}

/// Per texture operation of `f` (program order): whether the code samples it in vector code
/// from RGBA8 texels without filtering or blending levels (nearest texels, `b · (1/255)`, or
/// zeros and the comparison's 0 or 1), so that its float results are never denormals (a
/// weighted sum of texels may be: its weight can be tiny).
fn texels_normal(f: &ir::Function, paths: &TexPaths) -> Vec<bool> {
    use crate::back::texpath::{TexFormat, TexMip, TexPath, texture_ops, vector_texture};
    texture_ops(f)
        .iter()
        .enumerate()
        .map(|(k, op)| {
            let texels = matches!(
                op.kind,
                ir::TexKind::Sample | ir::TexKind::Fetch | ir::TexKind::Gather
            );
            texels
                && !op.integer_results()
                && vector_texture(op)
                && matches!(paths.get(k), TexPath::Vector(v)
                    if v.format == TexFormat::Unorm8
                        && !v.linear
                        && !v.mag_linear
                        && v.mip != TexMip::Linear)
        })
        .collect()
}

#[cfg(test)]
mod tests;
