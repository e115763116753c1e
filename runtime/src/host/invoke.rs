//! Running a compiled shader over invocations the host provides, into buffers the host owns.

use super::compiled::Compiled;
use super::error::HostError;
use super::runtime::Runtime;
use crate::batches::{self, Workers};
use crate::engine::{Arrangement, BATCH_LANES, BatchIo, BatchReport, Bindings, Engine, Mask};
use std::sync::atomic::{AtomicU64, Ordering};
use tgsic::tgsi::Processor;

/// How a host buffer orders its values. Values are raw 32-bit register components (an f32's
/// bits, or an integer), four per register.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Layout {
    /// Array of structures: invocation-major, `[invocation][register][component]`: index
    /// `(i · registers + r) · 4 + c`.
    Aos,
    /// Structure of arrays: one plane per register component, `[register][component][invocation]`:
    /// index `(r · 4 + c) · count + i`.
    Soa,
}

impl Layout {
    fn index(self, count: usize, registers: usize, i: usize, r: usize, c: usize) -> usize {
        match self {
            Layout::Aos => (i * registers + r) * 4 + c,
            Layout::Soa => (r * 4 + c) * count + i,
        }
    }
}

/// The pixels (i, j) of a `width × height` grid (both even; j = 0 is the bottom row) in the
/// order [`Compiled::run_fragments`] takes fragments: 2×2 quads left to right, bottom to top,
/// each upper left, upper right, lower left, lower right.
pub fn quad_order(width: u32, height: u32) -> impl Iterator<Item = (u32, u32)> {
    (0..height / 2).flat_map(move |qy| {
        (0..width / 2).flat_map(move |qx| {
            [(0, 1), (1, 1), (0, 0), (1, 0)].map(|(dx, dy)| (2 * qx + dx, 2 * qy + dy))
        })
    })
}

/// What a run did besides writing the outputs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunReport {
    /// Invocations run.
    pub invocations: u64,
    /// Fragments discarded (KILL, KILL_IF, DEMOTE).
    pub discarded: u64,
    /// Invocations that ran out of loop iterations ([`Bindings::max_iterations`]).
    pub exhausted: u64,
}

/// The invocations of one run and the host's buffers: `count` invocations, their inputs (the
/// shader's [`super::Reflection::input_registers`] registers each: IN registers, then SV
/// registers) and outputs ([`super::Reflection::output_registers`] OUT registers each), both
/// in `layout`, and optionally where to say which fragments were discarded.
#[derive(Debug)]
pub struct Invocations<'a> {
    /// How many.
    pub count: usize,
    /// How both buffers are ordered.
    pub layout: Layout,
    /// Input values: `count × input_registers × 4`.
    pub inputs: &'a [u32],
    /// Output values, written: `count × output_registers × 4`.
    pub outputs: &'a mut [u32],
    /// Fragments only: per invocation, whether it was discarded (`count` entries).
    pub discarded: Option<&'a mut [bool]>,
}

impl<'a> Invocations<'a> {
    /// `count` invocations reading `inputs` and writing `outputs`, both in `layout`.
    pub fn new(count: usize, layout: Layout, inputs: &'a [u32], outputs: &'a mut [u32]) -> Self {
        Invocations {
            count,
            layout,
            inputs,
            outputs,
            discarded: None,
        }
    }

    /// Also report which fragments were discarded.
    pub fn with_discarded(mut self, discarded: &'a mut [bool]) -> Self {
        self.discarded = Some(discarded);
        self
    }
}

/// Where a geometry shader's emitted vertices go, in buffers the host owns: room for
/// [`super::Reflection::max_output_vertices`] vertices per primitive.
#[derive(Debug)]
pub struct Emission<'a> {
    /// The emitted vertices' OUT registers, vertex by vertex:
    /// `[primitive][vertex][register][component]`, `count × max_output_vertices ×
    /// output_registers × 4` values.
    pub vertices: &'a mut [u32],
    /// Per primitive, the vertices it emitted (at most `max_output_vertices`; more are
    /// dropped, as the hardware drops them).
    pub counts: &'a mut [u32],
    /// Per vertex slot (`count × max_output_vertices`), whether ENDPRIM ended a primitive
    /// (a strip) after that vertex.
    pub ends: &'a mut [bool],
}

/// The host's output buffer, shared by the workers, each of which writes only the values of
/// its own invocations.
struct Shared<'a> {
    ptr: *mut u32,
    len: usize,
    /// Discarded flags (fragments) or ENDPRIM flags (geometry).
    discarded: Option<(*mut bool, usize)>,
    /// Emitted vertex counts (geometry).
    counts: Option<(*mut u32, usize)>,
    _buffer: std::marker::PhantomData<&'a mut [u32]>,
}

// SAFETY: the workers write through `ptr` (and `discarded`) only at the indices of their own
// batch's invocations, which are disjoint between batches ([`Layout::index`] is injective for
// a fixed count and register count), and every index is checked against `len` first.
unsafe impl Sync for Shared<'_> {}

impl Shared<'_> {
    fn write(&self, k: usize, v: u32) {
        assert!(k < self.len, "output index {k} past {}", self.len);
        // SAFETY: in bounds (checked), and no other worker writes index k (see above).
        unsafe { self.ptr.add(k).write(v) }
    }

    fn count(&self, i: usize, n: u32) {
        if let Some((p, len)) = self.counts {
            assert!(i < len, "count index {i} past {len}");
            // SAFETY: as for `write`.
            unsafe { p.add(i).write(n) }
        }
    }

    fn discard(&self, i: usize, d: bool) {
        if let Some((p, n)) = self.discarded {
            assert!(i < n, "discard index {i} past {n}");
            // SAFETY: as for `write`.
            unsafe { p.add(i).write(d) }
        }
    }
}

/// The part of a run the engine-specific code needs.
struct Job<'a> {
    bind: &'a Bindings,
    count: usize,
    inputs: &'a [u32],
    layout: Layout,
    in_regs: usize,
    first_sv: usize,
    out_regs: usize,
    arrangement: Arrangement,
    /// Geometry: the vertex slots per primitive; the outputs are the emitted vertices.
    max_emit: Option<usize>,
}

impl Compiled {
    /// Runs `job`'s invocations through the batch driver on the runtime's threads, in runs of
    /// consecutive batches, writing their results to `out`.
    fn run_job(
        &self,
        rt: &Runtime,
        job: &Job<'_>,
        out: &Shared<'_>,
    ) -> Result<RunReport, HostError> {
        let batches = job.count.div_ceil(BATCH_LANES);
        let (discarded, exhausted) = (AtomicU64::new(0), AtomicU64::new(0));
        let workers = Workers::of(rt.pool());
        let (per_run, runs) = batches::runs(batches, workers);
        batches::run(
            self,
            job.arrangement,
            &self.slots,
            workers,
            (0..runs).collect(),
            |io, scratch, k| {
                let (first, end) = (k * per_run, ((k + 1) * per_run).min(batches));
                let mut next = first;
                self.run_batches(job.bind, io, scratch, &mut |io, report| {
                    if let Some(report) = report {
                        let (killed, ex) = take_batch(job, out, next - 1, io, report);
                        discarded.fetch_add(killed.count_ones() as u64, Ordering::Relaxed);
                        exhausted.fetch_add(ex.count_ones() as u64, Ordering::Relaxed);
                    }
                    if next == end {
                        return Ok(false);
                    }
                    fill_batch(job, next, io);
                    next += 1;
                    Ok(true)
                })
            },
        )?;
        Ok(RunReport {
            invocations: job.count as u64,
            discarded: discarded.into_inner(),
            exhausted: exhausted.into_inner(),
        })
    }
}

/// Fills `io` with batch `b`'s invocations: their inputs and system values, 0 in the lanes
/// past the last.
fn fill_batch(job: &Job<'_>, b: usize, io: &mut BatchIo) {
    let start = b * BATCH_LANES;
    let n = (job.count - start).min(BATCH_LANES);
    io.alive = if n == BATCH_LANES {
        !0
    } else {
        (1u64 << n) - 1
    };
    io.helpers = 0;
    let at = |i: usize, r: usize, c: usize| job.layout.index(job.count, job.in_regs, i, r, c);
    for r in 0..job.in_regs {
        let reg = if r < job.first_sv {
            &mut io.inputs[r]
        } else {
            &mut io.sv[r - job.first_sv]
        };
        for (c, chan) in reg.iter_mut().enumerate() {
            for (l, v) in chan.iter_mut().enumerate() {
                *v = if l < n {
                    job.inputs[at(start + l, r, c)]
                } else {
                    0
                };
            }
        }
    }
}

/// Writes the results of batch `b` (its outputs in `io`, or its emitted vertices) to the
/// host's buffers; returns its discarded and exhausted invocations.
fn take_batch(
    job: &Job<'_>,
    out: &Shared<'_>,
    b: usize,
    io: &BatchIo,
    report: BatchReport,
) -> (Mask, Mask) {
    let start = b * BATCH_LANES;
    let n = (job.count - start).min(BATCH_LANES);
    if let Some(max) = job.max_emit {
        for l in 0..n {
            let prim = start + l;
            let mut k = 0;
            for e in report.emitted.iter().filter(|e| e.lane == l) {
                match &e.outputs {
                    Some(o) if k < max => {
                        for (r, reg) in o.iter().enumerate().take(job.out_regs) {
                            for (c, &v) in reg.iter().enumerate() {
                                out.write(((prim * max + k) * job.out_regs + r) * 4 + c, v);
                            }
                        }
                        out.discard(prim * max + k, false);
                        k += 1;
                    }
                    Some(_) => {}
                    None if k > 0 => out.discard(prim * max + k - 1, true),
                    None => {}
                }
            }
            out.count(prim, k as u32);
        }
        return (0, report.exhausted & io.alive);
    }
    for (r, reg) in io.outputs.iter().enumerate().take(job.out_regs) {
        for (c, chan) in reg.iter().enumerate() {
            for (l, &v) in chan.iter().enumerate().take(n) {
                out.write(
                    job.layout.index(job.count, job.out_regs, start + l, r, c),
                    v,
                );
            }
        }
    }
    for l in 0..n {
        out.discard(start + l, report.killed & (1 << l) != 0);
    }
    (report.killed & io.alive, report.exhausted & io.alive)
}

/// A buffer of `got` values where `want` are needed is [`HostError::Buffer`].
fn exact_len(
    what: &'static str,
    got: usize,
    want: usize,
    invocations: usize,
    registers: usize,
) -> Result<(), HostError> {
    if got == want {
        Ok(())
    } else {
        Err(HostError::Buffer {
            what,
            got,
            want,
            invocations,
            registers,
        })
    }
}

impl Compiled {
    /// `len` is `count × registers × 4` (an overflowing product matches nothing).
    fn check(
        &self,
        what: &'static str,
        len: usize,
        count: usize,
        registers: usize,
    ) -> Result<(), HostError> {
        let want = count
            .checked_mul(registers)
            .and_then(|x| x.checked_mul(4))
            .unwrap_or(usize::MAX);
        exact_len(what, len, want, count, registers)
    }

    fn run(
        &self,
        rt: &Runtime,
        bind: &Bindings,
        work: Invocations<'_>,
        arrangement: Arrangement,
    ) -> Result<RunReport, HostError> {
        self.check_bound(bind)?;
        let r = &self.reflection;
        let job = Job {
            bind,
            count: work.count,
            inputs: work.inputs,
            layout: work.layout,
            in_regs: r.input_registers,
            first_sv: r.first_system_value,
            out_regs: r.output_registers,
            arrangement,
            max_emit: None,
        };
        let (outputs, discarded) = (work.outputs, work.discarded);
        self.check("inputs", job.inputs.len(), job.count, job.in_regs)?;
        self.check("outputs", outputs.len(), job.count, job.out_regs)?;
        if let Some(d) = &discarded {
            exact_len("discarded", d.len(), job.count, job.count, 0)?;
        }
        let out = Shared {
            ptr: outputs.as_mut_ptr(),
            len: outputs.len(),
            discarded: discarded.map(|d| (d.as_mut_ptr(), d.len())),
            counts: None,
            _buffer: std::marker::PhantomData,
        };
        self.run_job(rt, &job, &out)
    }

    /// Every constant buffer and texture the shader reads is bound.
    fn check_bound(&self, bind: &Bindings) -> Result<(), HostError> {
        let r = &self.reflection;
        if let Some(&b) = r
            .constant_buffers_read
            .iter()
            .find(|&&b| b as usize >= bind.constants.len())
        {
            return Err(HostError::Unbound {
                what: "constant buffer",
                index: b,
            });
        }
        if let Some(&u) = r
            .texture_units_read
            .iter()
            .find(|&&u| bind.textures.get(u as usize).is_none_or(Option::is_none))
        {
            return Err(HostError::Unbound {
                what: "texture unit",
                index: u,
            });
        }
        Ok(())
    }

    /// Runs a fragment shader over [`Invocations::count`] fragments whose inputs the host
    /// computed (a rasterizer's interpolated varyings, the window position, FACE, ...): the
    /// outputs receive every OUT register, and `discarded`, when given, whether each fragment
    /// was discarded (its outputs are then what the shader had written before).
    ///
    /// Fragments come in 2×2 quads, for derivatives: fragments 4q..4q+3 are the quad's upper
    /// left, upper right, lower left and lower right pixels (DDX is right minus left, DDY upper
    /// minus lower), so `count` is a multiple of 4.
    ///
    /// Nothing is allocated after the first run of this shader (registers and scratch are
    /// reused), and the runtime's worker threads run the batches.
    ///
    /// # Errors
    /// [`HostError::Processor`] for another kind of shader, [`HostError::Quads`],
    /// [`HostError::Buffer`] when a buffer's length does not match, [`HostError::Unbound`] for a
    /// constant buffer or texture the shader reads and the bindings lack, [`HostError::Run`] for
    /// an execution error.
    pub fn run_fragments(
        &self,
        rt: &Runtime,
        bind: &Bindings,
        work: Invocations<'_>,
    ) -> Result<RunReport, HostError> {
        self.expect(Processor::Fragment, "run_fragments")?;
        if !work.count.is_multiple_of(4) {
            return Err(HostError::Quads(work.count));
        }
        self.run(rt, bind, work, Arrangement::Quads)
    }

    /// Runs a vertex shader over [`Invocations::count`] vertices: the inputs are the vertex
    /// attributes (IN registers) and system values such as VERTEXID (SV registers), which the
    /// host sets; the outputs every OUT register. Allocation and threads as in
    /// [`Compiled::run_fragments`].
    ///
    /// # Errors
    /// As [`Compiled::run_fragments`]; [`HostError::DiscardedVertices`] when `discarded` is given
    /// (vertices are not discarded).
    pub fn run_vertices(
        &self,
        rt: &Runtime,
        bind: &Bindings,
        work: Invocations<'_>,
    ) -> Result<RunReport, HostError> {
        self.expect(Processor::Vertex, "run_vertices")?;
        if work.discarded.is_some() {
            return Err(HostError::DiscardedVertices);
        }
        self.run(rt, bind, work, Arrangement::Independent)
    }

    /// Runs a geometry shader over `count` primitives: `inputs` holds
    /// [`super::Reflection::primitive_input_registers`] registers per primitive (each vertex's
    /// IN registers, vertex after vertex, then the SV registers such as PRIMID, which the host
    /// sets) in `layout`; the emitted vertices go to `out`. Allocation and threads as in
    /// [`Compiled::run_fragments`].
    ///
    /// # Errors
    /// As [`Compiled::run_fragments`], with [`HostError::Buffer`] for `out`'s buffers, and
    /// [`HostError::NoMaxOutputVertices`] for a shader without GS_MAX_OUTPUT_VERTICES.
    pub fn run_primitives(
        &self,
        rt: &Runtime,
        bind: &Bindings,
        count: usize,
        layout: Layout,
        inputs: &[u32],
        out: Emission<'_>,
    ) -> Result<RunReport, HostError> {
        self.expect(Processor::Geometry, "run_primitives")?;
        let r = &self.reflection;
        let max = r.max_output_vertices;
        if max == 0 {
            return Err(HostError::NoMaxOutputVertices);
        }
        self.check_bound(bind)?;
        let job = Job {
            bind,
            count,
            inputs,
            layout,
            in_regs: r.primitive_input_registers(),
            first_sv: r.vertices_per_primitive * r.first_system_value,
            out_regs: r.output_registers,
            arrangement: Arrangement::Independent,
            max_emit: Some(max),
        };
        self.check("inputs", inputs.len(), count, job.in_regs)?;
        let slots = count.saturating_mul(max);
        self.check("vertices", out.vertices.len(), slots, job.out_regs)?;
        exact_len("counts", out.counts.len(), count, count, 0)?;
        exact_len("ends", out.ends.len(), slots, count, 0)?;
        out.ends.fill(false);
        let shared = Shared {
            ptr: out.vertices.as_mut_ptr(),
            len: out.vertices.len(),
            discarded: Some((out.ends.as_mut_ptr(), out.ends.len())),
            counts: Some((out.counts.as_mut_ptr(), out.counts.len())),
            _buffer: std::marker::PhantomData,
        };
        self.run_job(rt, &job, &shared)
    }

    fn expect(&self, kind: Processor, call: &'static str) -> Result<(), HostError> {
        if self.reflection.processor == kind {
            Ok(())
        } else {
            Err(HostError::Processor {
                call,
                needs: kind,
                got: self.reflection.processor,
            })
        }
    }
}
