//! The IR evaluator: executes a [`Function`] over a batch of [`BATCH_LANES`] invocations with lane
//! masks, so lifted and optimized IR can be checked against the interpreter (which stays the
//! reference). Small on purpose: pure operations are computed for every lane (values are
//! defined "as if active", `docs/ir.md`), effects only for the active lanes; the texture
//! semantics are the interpreter's own.
//!
//! Derivatives and implicit-LOD texture lookups executed while only part of a quad is active
//! are unspecified by the IR; the evaluator reports those quads
//! ([`BatchReport::unspecified`]) so comparisons can leave them out.
//!
//! It runs through the host API like every engine: [`crate::run::ir_evaluator`] wraps it in a
//! [`tgsic_runtime::host::Compiled`] shader (`Compiled::from_engine`, feature `test-support`).
//!
//! ```
//! use tgsic_runtime::host::{Bindings, Module};
//! use tgsic_tests::run::{interpreter, ir_evaluator, render};
//! let program = tgsic::front::text::parse(
//!     "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nMUL OUT[0], IN[0], IN[0]\nEND\n").unwrap();
//! let module = Module::new(program).unwrap();
//! let a = render(&ir_evaluator(&module).unwrap(), &Bindings::default(), 4, 4, 0).unwrap();
//! let b = render(&interpreter(&module), &Bindings::default(), 4, 4, 0).unwrap();
//! assert_eq!(a.pixels, b.pixels);
//! ```

// Lane and component indices address several parallel arrays at once.
#![allow(clippy::needless_range_loop)]

use tgsic::ir::lift::{LiftError, lift_valid};
use tgsic::ir::semantics as sem;
use tgsic::ir::{Axis, Block, Def, Function, Op, Stmt, Value};
use tgsic::numerics::{b, f};
use tgsic_runtime::host::{Bindings, Module, RunError};
use tgsic_runtime::testing::{
    Arrangement, BATCH_LANES, BatchIo, BatchReport, Chan, Emitted, Engine, Mask, Reg, TexRequest,
    sample,
};

/// A program and its IR, ready to evaluate.
#[derive(Debug, Clone)]
pub struct IrShader {
    /// The program (its declarations decide the inputs).
    pub prepared: Module,
    /// The IR evaluated.
    pub function: Function,
}

impl IrShader {
    /// Lifts `prepared`'s program.
    ///
    /// # Errors
    /// [`LiftError`] when the program cannot be lifted.
    pub fn lift(prepared: Module) -> Result<IrShader, LiftError> {
        let function = lift_valid(&prepared.program)?;
        Ok(IrShader { prepared, function })
    }
}

/// The evaluator's working memory: a lane vector per value, the arrays.
#[derive(Debug, Clone)]
pub struct EvalScratch {
    vals: Vec<Chan>,
    /// The high words of 64-bit values (F64, I64).
    hi: Vec<Chan>,
    arrays: Vec<Vec<Reg>>,
}

impl Engine for IrShader {
    type Scratch = EvalScratch;

    fn module(&self) -> &Module {
        &self.prepared
    }

    fn scratch(&self) -> EvalScratch {
        let f = &self.function;
        EvalScratch {
            vals: vec![[0; BATCH_LANES]; f.values.len()],
            hi: vec![[0; BATCH_LANES]; f.values.len()],
            arrays: f
                .arrays
                .iter()
                .map(|a| vec![[[0; BATCH_LANES]; 4]; a.len as usize])
                .collect(),
        }
    }

    fn run_batch(
        &self,
        bind: &Bindings,
        io: &mut BatchIo,
        scratch: &mut EvalScratch,
    ) -> Result<BatchReport, RunError> {
        let f = &self.function;
        for a in scratch.arrays.iter_mut() {
            a.fill([[0; BATCH_LANES]; 4]);
        }
        let mut ev = Eval {
            f,
            bind,
            vals: std::mem::take(&mut scratch.vals),
            hi: std::mem::take(&mut scratch.hi),
            arrays: std::mem::take(&mut scratch.arrays),
            report: BatchReport::default(),
            yields: Vec::new(),
            loops: Vec::new(),
            io,
        };
        for o in ev.io.outputs.iter_mut() {
            *o = [[0; BATCH_LANES]; 4];
        }
        let alive = ev.io.alive;
        let result = ev.block(&f.body, alive).map(|_| ());
        scratch.vals = std::mem::take(&mut ev.vals);
        scratch.hi = std::mem::take(&mut ev.hi);
        scratch.arrays = std::mem::take(&mut ev.arrays);
        result.map(|()| ev.report)
    }
}

struct LoopFrame {
    params: Vec<Value>,
    results: Vec<Value>,
    /// Lanes that continued in this iteration.
    cont: Mask,
    /// Lanes that left the loop.
    brk: Mask,
}

struct Eval<'a> {
    f: &'a Function,
    bind: &'a Bindings,
    io: &'a mut BatchIo,
    vals: Vec<Chan>,
    /// The high words of 64-bit values.
    hi: Vec<Chan>,
    arrays: Vec<Vec<Reg>>,
    report: BatchReport,
    /// Result values of the enclosing `If`s.
    yields: Vec<Vec<Value>>,
    loops: Vec<LoopFrame>,
}

fn lanes(m: Mask) -> impl Iterator<Item = usize> {
    (0..BATCH_LANES).filter(move |&l| m & (1 << l) != 0)
}

fn quad_partial(m: Mask, alive: Mask) -> Mask {
    let mut out = 0;
    for q in 0..BATCH_LANES / 4 {
        let qm: Mask = 0xF << (4 * q);
        let a = m & qm;
        if a != 0 && a != alive & qm {
            out |= qm;
        }
    }
    out
}

impl Eval<'_> {
    fn v(&self, x: Value) -> &Chan {
        &self.vals[x.index()]
    }

    /// Copies `from[k]` into `to[k]` for the lanes of `m` (all sources read first).
    fn assign(&mut self, to: &[Value], from: &[Value], m: Mask) {
        let src: Vec<(Chan, Chan)> = from
            .iter()
            .map(|&v| (self.vals[v.index()], self.hi[v.index()]))
            .collect();
        for (t, (s, h)) in to.iter().zip(src) {
            for l in lanes(m) {
                self.vals[t.index()][l] = s[l];
                self.hi[t.index()][l] = h[l];
            }
        }
    }

    /// Runs a block for the lanes of `m`; returns the lanes that reach its end (or its
    /// `Yield`).
    fn block(&mut self, b: &Block, mut m: Mask) -> Result<Mask, RunError> {
        for s in &b.0 {
            if m == 0 {
                return Ok(0);
            }
            match s {
                Stmt::Inst(i) => self.inst(*i, m)?,
                Stmt::If(x) => {
                    let c = *self.v(x.cond);
                    let t = m & (0..BATCH_LANES).fold(0, |a, l| a | (((c[l] != 0) as Mask) << l));
                    let e = m & !t;
                    self.yields.push(x.results.clone());
                    let mut out = 0;
                    if t != 0 {
                        out |= self.block(&x.then_, t)?;
                    }
                    if e != 0 {
                        out |= self.block(&x.else_, e)?;
                    }
                    self.yields.pop();
                    m = out;
                }
                Stmt::Loop(l) => {
                    self.assign(&l.params, &l.inits, m);
                    self.loops.push(LoopFrame {
                        params: l.params.clone(),
                        results: l.results.clone(),
                        cont: 0,
                        brk: 0,
                    });
                    let mut active = m;
                    while active != 0 {
                        if let Some(fr) = self.loops.last_mut() {
                            fr.cont = 0;
                        }
                        self.block(&l.body, active)?;
                        active = self.loops.last().map_or(0, |fr| fr.cont);
                    }
                    m = self.loops.pop().map_or(0, |fr| fr.brk);
                }
                Stmt::Break(v) => {
                    let results = self
                        .loops
                        .last()
                        .map(|fr| fr.results.clone())
                        .unwrap_or_default();
                    self.assign(&results, v, m);
                    if let Some(fr) = self.loops.last_mut() {
                        fr.brk |= m;
                    }
                    return Ok(0);
                }
                Stmt::Continue(v) => {
                    let params = self
                        .loops
                        .last()
                        .map(|fr| fr.params.clone())
                        .unwrap_or_default();
                    self.assign(&params, v, m);
                    if let Some(fr) = self.loops.last_mut() {
                        fr.cont |= m;
                    }
                    return Ok(0);
                }
                Stmt::Yield(v) => {
                    let results = self.yields.last().cloned().unwrap_or_default();
                    self.assign(&results, v, m);
                    return Ok(m);
                }
            }
        }
        Ok(m)
    }

    fn set(&mut self, v: Value, c: Chan) {
        self.vals[v.index()] = c;
    }

    fn map1(&self, a: Value, op: impl Fn(u32) -> u32) -> Chan {
        let x = self.v(a);
        std::array::from_fn(|l| op(x[l]))
    }

    fn map2(&self, a: Value, c: Value, op: impl Fn(u32, u32) -> u32) -> Chan {
        let (x, y) = (self.v(a), self.v(c));
        std::array::from_fn(|l| op(x[l], y[l]))
    }

    fn inst(&mut self, i: tgsic::ir::Inst, m: Mask) -> Result<(), RunError> {
        let d = &self.f.insts[i];
        let args = &d.args;
        let r0 = d.results.first().copied();
        let out: Chan = match &d.op {
            Op::Const(c) => [*c; BATCH_LANES],
            Op::Input { reg, comp } => self
                .io
                .inputs
                .get(*reg as usize)
                .map_or([0; BATCH_LANES], |r| r[*comp as usize]),
            Op::InputIndirect {
                offset,
                lo,
                hi,
                comp,
            } => {
                let idx = *self.v(args[0]);
                std::array::from_fn(|l| {
                    let k = (*offset as i64 + idx[l] as i32 as i64).clamp(*lo as i64, *hi as i64);
                    self.io
                        .inputs
                        .get(k as usize)
                        .map_or(0, |r| r[*comp as usize][l])
                })
            }
            Op::GsInput {
                vertex,
                reg,
                lo,
                hi,
                comp,
            } => {
                let (dv, dr) = (*self.v(args[0]), *self.v(args[1]));
                let verts = self.f.gs_vertices.max(1) as i64;
                let per = self.io.inputs.len() / verts as usize;
                std::array::from_fn(|l| {
                    let vi = (*vertex as i64 + dv[l] as i32 as i64).clamp(0, verts - 1) as usize;
                    let ri =
                        (*reg as i64 + dr[l] as i32 as i64).clamp(*lo as i64, *hi as i64) as usize;
                    self.io
                        .inputs
                        .get(vi * per + ri)
                        .map_or(0, |r| r[*comp as usize][l])
                })
            }
            Op::SysVal { reg, comp } => self
                .io
                .sv
                .get(*reg as usize)
                .map_or([0; BATCH_LANES], |r| r[*comp as usize]),
            Op::Uniform { buffer, reg, comp } => {
                [self.constant(*buffer as i64, *reg as i64, *comp); BATCH_LANES]
            }
            Op::UniformIndirect {
                buffer,
                offset,
                comp,
            } => {
                let (db, di) = (*self.v(args[0]), *self.v(args[1]));
                std::array::from_fn(|l| {
                    self.constant(
                        *buffer as i64 + db[l] as i32 as i64,
                        *offset as i64 + di[l] as i32 as i64,
                        *comp,
                    )
                })
            }
            Op::ImmIndirect { offset, comp } => {
                let idx = *self.v(args[0]);
                let imms = &self.f.immediates;
                let last = imms.len().saturating_sub(1) as i64;
                std::array::from_fn(|l| {
                    let k = (*offset as i64 + idx[l] as i32 as i64).clamp(0, last) as usize;
                    imms.get(k).map_or(0, |v| v[*comp as usize])
                })
            }
            Op::MaxIterations => [self.bind.max_iterations; BATCH_LANES],
            Op::ClearColor { comp } => [self.bind.clear[*comp as usize].to_bits(); BATCH_LANES],
            Op::Helper => std::array::from_fn(|l| ((self.io.helpers >> l) & 1) as u32),
            Op::ArrayLoad {
                array,
                comp,
                offset,
                lo,
                hi,
            } => {
                let idx = *self.v(args[0]);
                let a = &self.arrays[*array as usize];
                let first = self.f.arrays[*array as usize].first as i64;
                std::array::from_fn(|l| {
                    let k = (*offset as i64 + idx[l] as i32 as i64).clamp(*lo as i64, *hi as i64);
                    a.get((k - first) as usize)
                        .map_or(0, |r| r[*comp as usize][l])
                })
            }
            Op::ArrayStore {
                array,
                comp,
                offset,
                lo,
                hi,
            } => {
                let (idx, v) = (*self.v(args[0]), *self.v(args[1]));
                let first = self.f.arrays[*array as usize].first as i64;
                let a = &mut self.arrays[*array as usize];
                for l in lanes(m) {
                    let k = *offset as i64 + idx[l] as i32 as i64;
                    if k >= *lo as i64
                        && k <= *hi as i64
                        && let Some(r) = a.get_mut((k - first) as usize)
                    {
                        r[*comp as usize][l] = v[l];
                    }
                }
                return Ok(());
            }
            Op::StoreOutput { slot, comp } => {
                let v = *self.v(args[0]);
                let reg = self.f.outputs[*slot as usize].reg as usize;
                if let Some(r) = self.io.outputs.get_mut(reg) {
                    for l in lanes(m) {
                        r[*comp as usize][l] = v[l];
                    }
                }
                return Ok(());
            }
            Op::Discard => {
                let v = self.v(args[0]);
                self.report.killed |=
                    m & (0..BATCH_LANES).fold(0, |a, l| a | (((v[l] != 0) as Mask) << l));
                return Ok(());
            }
            Op::Exhausted => {
                let v = self.v(args[0]);
                self.report.exhausted |=
                    m & (0..BATCH_LANES).fold(0, |a, l| a | (((v[l] != 0) as Mask) << l));
                return Ok(());
            }
            Op::Emit | Op::EndPrim => {
                let emit = matches!(d.op, Op::Emit);
                let n = args.len() - 1;
                let stream = *self.v(args[n]);
                for l in lanes(m) {
                    let outputs = emit.then(|| {
                        (0..n / 4)
                            .map(|s| std::array::from_fn(|c| self.vals[args[4 * s + c].index()][l]))
                            .collect()
                    });
                    self.report.emitted.push(Emitted {
                        lane: l,
                        outputs,
                        stream: stream[l],
                    });
                }
                return Ok(());
            }
            Op::Unary(u) => self.map1(args[0], |x| sem::unary(*u, x)),
            Op::Binary(op) => self.map2(args[0], args[1], |x, y| sem::binary(*op, x, y)),
            Op::Nary(op) => {
                let a: Vec<Chan> = args.iter().map(|&x| *self.v(x)).collect();
                std::array::from_fn(|l| {
                    let xs: Vec<u32> = a.iter().map(|c| c[l]).collect();
                    sem::nary(*op, &xs)
                })
            }
            Op::FCmp(k) => self.map2(args[0], args[1], |x, y| sem::fcmp(*k, x, y) as u32),
            Op::ICmp(k) => self.map2(args[0], args[1], |x, y| sem::icmp(*k, x, y) as u32),
            Op::Select => {
                let (c, a, e) = (*self.v(args[0]), *self.v(args[1]), *self.v(args[2]));
                let (ah, eh) = (self.hi[args[1].index()], self.hi[args[2].index()]);
                if let Some(r) = r0 {
                    self.hi[r.index()] =
                        std::array::from_fn(|l| if c[l] != 0 { ah[l] } else { eh[l] });
                }
                std::array::from_fn(|l| if c[l] != 0 { a[l] } else { e[l] })
            }
            Op::W64(w) => {
                let ftz = self.f.processor != tgsic::tgsi::Processor::Compute;
                let wide: Vec<[u64; BATCH_LANES]> = args
                    .iter()
                    .map(|&a| {
                        let (lo, hi) = (self.vals[a.index()], self.hi[a.index()]);
                        let is64 = self.f.ty(a).is_64_bit();
                        std::array::from_fn(|l| {
                            lo[l] as u64 | if is64 { (hi[l] as u64) << 32 } else { 0 }
                        })
                    })
                    .collect();
                let res: [u64; BATCH_LANES] = std::array::from_fn(|l| {
                    let xs: Vec<u64> = wide.iter().map(|c| c[l]).collect();
                    sem::op64(*w, &xs, ftz)
                });
                if let Some(r) = r0 {
                    self.hi[r.index()] = res.map(|x| (x >> 32) as u32);
                }
                res.map(|x| x as u32)
            }
            Op::Derivative { axis, fine } => {
                let v = *self.v(args[0]);
                if self.io.arrangement == Arrangement::Quads {
                    self.report.unspecified |= quad_partial(m, self.io.alive);
                }
                self.derivative(&v, *axis, *fine)
            }
            Op::Pack(k) => {
                let a: Vec<Chan> = args.iter().map(|&x| *self.v(x)).collect();
                std::array::from_fn(|l| {
                    let xs: Vec<u32> = a.iter().map(|c| c[l]).collect();
                    sem::pack(*k, &xs)
                })
            }
            Op::Unpack(k) => {
                let x = *self.v(args[0]);
                let res = d.results.clone();
                let mut outs = [[0u32; BATCH_LANES]; 4];
                for l in 0..BATCH_LANES {
                    let u = sem::unpack(*k, x[l]);
                    for c in 0..4 {
                        outs[c][l] = u[c];
                    }
                }
                for (r, o) in res.into_iter().zip(outs) {
                    self.set(r, o);
                }
                return Ok(());
            }
            // The evaluator runs batches without a dispatch's memory.
            Op::Memory(_) | Op::Barrier => {
                return Err(RunError::Memory(tgsic_runtime::host::MemoryError::NoMemory));
            }
            Op::Texture(t) => {
                let targs: Vec<[u32; BATCH_LANES]> = args.iter().map(|&a| *self.v(a)).collect();
                let quads = self.io.arrangement == Arrangement::Quads;
                if quads && t.implicit_lod() {
                    self.report.unspecified |= quad_partial(m, self.io.alive);
                }
                let req = TexRequest {
                    op: t,
                    args: &targs,
                    exec: m,
                    quads,
                };
                let res = sample(self.bind, &req)?;
                let rs = d.results.clone();
                for (r, o) in rs.into_iter().zip(res) {
                    self.set(r, o);
                }
                return Ok(());
            }
        };
        if let Some(r) = r0 {
            debug_assert!(matches!(self.f.values[r].def, Def::Inst(..)));
            self.set(r, out);
        }
        Ok(())
    }

    fn constant(&self, buf: i64, idx: i64, c: u8) -> u32 {
        if buf < 0 || idx < 0 {
            return 0;
        }
        self.bind
            .constants
            .get(buf as usize)
            .and_then(|b| b.get(idx as usize))
            .map_or(0, |v| v[c as usize])
    }

    /// Quad derivatives as the interpreter computes them (0 outside quads).
    fn derivative(&self, v: &Chan, axis: Axis, fine: bool) -> Chan {
        let mut out = [0u32; BATCH_LANES];
        if self.io.arrangement != Arrangement::Quads {
            return out;
        }
        for q in 0..BATCH_LANES / 4 {
            let l = 4 * q;
            let (tl, tr, bl, br) = (f(v[l]), f(v[l + 1]), f(v[l + 2]), f(v[l + 3]));
            let vals = match (axis, fine) {
                (Axis::X, false) => [b(tr - tl); 4],
                (Axis::Y, false) => [b(tl - bl); 4],
                (Axis::X, true) => {
                    let (top, bottom) = (b(tr - tl), b(br - bl));
                    [top, top, bottom, bottom]
                }
                (Axis::Y, true) => {
                    let (left, right) = (b(tl - bl), b(tr - br));
                    [left, right, left, right]
                }
            };
            out[l..l + 4].copy_from_slice(&vals);
        }
        out
    }
}
