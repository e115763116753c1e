//! The SIMD execution engine: a batch of up to [`BATCH_LANES`] invocations in structure-of-arrays form,
//! with execution masks for divergent control flow (after tgsi_exec).

mod operand;

use super::num::{self, b, f};
use crate::engine::{
    ALL, Access, Arrangement, BATCH_LANES, BatchReport, Bindings, Chan, Mask, Module, Reg,
};
use tgsic::tgsi::*;

/// The per-batch register files (the interpreter's working memory).
#[derive(Debug, Clone)]
pub struct Regs {
    /// TEMP.
    pub temps: Vec<Reg>,
    /// OUT.
    pub outputs: Vec<Reg>,
    /// IN; for geometry shaders vertex-major (`vertex * inputs_per_vertex + register`).
    pub inputs: Vec<Reg>,
    /// ADDR (integers).
    pub addr: Vec<Reg>,
    /// SV.
    pub sv: Vec<Reg>,
    /// NV condition-code registers.
    pub cc: Vec<Reg>,
    /// The PUSHA/POPA address stack: levels, each a register across the lanes.
    pub addr_stack: Vec<Reg>,
    /// Each lane's PUSHA/POPA stack depth.
    pub addr_depth: [u8; BATCH_LANES],
}

/// How many entries each invocation's PUSHA/POPA stack holds (a push beyond is dropped, a pop
/// of an empty stack reads zeros).
pub const ADDR_STACK_DEPTH: usize = 32;

impl Regs {
    /// Zeroes the registers a shader writes (TEMP, OUT, ADDR, condition codes) and empties
    /// the address stacks; inputs and system values are the caller's to fill.
    pub fn reset(&mut self) {
        for file in [
            &mut self.temps,
            &mut self.outputs,
            &mut self.addr,
            &mut self.cc,
        ] {
            for r in file.iter_mut() {
                *r = [[0; BATCH_LANES]; 4];
            }
        }
        self.addr_stack.clear();
        self.addr_depth = [0; BATCH_LANES];
    }

    /// Zeroed storage for `p`.
    pub fn new(p: &Module) -> Regs {
        let z = |n: usize| vec![[[0u32; BATCH_LANES]; 4]; n];
        let inputs = p.size(File::Input)
            * if p.program.processor == Processor::Geometry {
                p.gs_vertices as usize
            } else {
                1
            };
        Regs {
            temps: z(p.size(File::Temporary)),
            outputs: z(p.size(File::Output)),
            inputs: z(inputs),
            addr: z(p.size(File::Address)),
            sv: z(p.size(File::SystemValue)),
            cc: if p.uses_cc { z(16) } else { Vec::new() },
            addr_stack: Vec::new(),
            addr_depth: [0; BATCH_LANES],
        }
    }
}

#[derive(Debug)]
pub(super) enum Frame {
    Loop {
        loop_mask: Mask,
        cont_mask: Mask,
        counter: Option<Box<[i64; BATCH_LANES]>>,
    },
    Switch {
        switch_mask: Mask,
        value: Box<[u32; BATCH_LANES]>,
        matched: Mask,
        active: Mask,
    },
}

#[derive(Debug)]
pub(super) struct Call {
    pub(super) ret: usize,
    pub(super) func_mask: Mask,
    pub(super) cond_mask: Mask,
    pub(super) loop_mask: Mask,
    pub(super) cont_mask: Mask,
    pub(super) switch_mask: Mask,
    pub(super) cond_depth: usize,
    pub(super) frame_depth: usize,
}

/// The interpreter state for one batch.
pub(super) struct Exec<'a> {
    pub p: &'a Module,
    pub bind: &'a Bindings,
    pub regs: &'a mut Regs,
    pub arrangement: Arrangement,
    pub(super) alive: Mask,
    pub(super) cond_mask: Mask,
    pub(super) loop_mask: Mask,
    pub(super) cont_mask: Mask,
    pub(super) switch_mask: Mask,
    pub(super) func_mask: Mask,
    pub(super) cond_stack: Vec<Mask>,
    pub(super) frames: Vec<Frame>,
    pub(super) calls: Vec<Call>,
    pub(super) budget: Box<[u32; BATCH_LANES]>,
    /// Lanes computed only for derivatives (the missing pixels of an edge quad).
    pub helpers: Mask,
    pub report: BatchReport,
    /// The buffers, images and shared memory memory instructions address (none: a memory
    /// instruction is an error).
    pub mem: Option<&'a mut (dyn Access + 'a)>,
}

/// Where a machine of a work group stopped, to be resumed after the group met at a barrier
/// (`docs/semantics.md`, "Memory and work groups"): its control state and the next
/// instruction. Its registers stay in its [`Regs`].
#[derive(Debug)]
pub(super) struct Suspended {
    pub(super) pc: usize,
    alive: Mask,
    cond_mask: Mask,
    loop_mask: Mask,
    cont_mask: Mask,
    switch_mask: Mask,
    func_mask: Mask,
    cond_stack: Vec<Mask>,
    frames: Vec<Frame>,
    calls: Vec<Call>,
    budget: Box<[u32; BATCH_LANES]>,
    report: BatchReport,
}

pub(super) fn bit(l: usize) -> Mask {
    1 << l
}

pub(super) fn lanes(m: Mask) -> impl Iterator<Item = usize> {
    (0..BATCH_LANES).filter(move |&l| m & bit(l) != 0)
}

/// Lanes where `pred` holds.
pub(super) fn mask_of(pred: impl Fn(usize) -> bool) -> Mask {
    (0..BATCH_LANES).fold(0, |m, l| if pred(l) { m | bit(l) } else { m })
}

impl<'a> Exec<'a> {
    pub fn new(
        p: &'a Module,
        bind: &'a Bindings,
        regs: &'a mut Regs,
        alive: Mask,
        arrangement: Arrangement,
    ) -> Exec<'a> {
        Exec {
            p,
            bind,
            regs,
            arrangement,
            alive,
            cond_mask: ALL,
            loop_mask: ALL,
            cont_mask: ALL,
            switch_mask: ALL,
            func_mask: ALL,
            cond_stack: Vec::new(),
            frames: Vec::new(),
            calls: Vec::new(),
            budget: Box::new([bind.max_iterations; BATCH_LANES]),
            helpers: 0,
            report: BatchReport::default(),
            mem: None,
        }
    }

    /// The control state to resume from `pc` later.
    pub(super) fn suspend(self, pc: usize) -> Suspended {
        Suspended {
            pc,
            alive: self.alive,
            cond_mask: self.cond_mask,
            loop_mask: self.loop_mask,
            cont_mask: self.cont_mask,
            switch_mask: self.switch_mask,
            func_mask: self.func_mask,
            cond_stack: self.cond_stack,
            frames: self.frames,
            calls: self.calls,
            budget: self.budget,
            report: self.report,
        }
    }

    /// Takes up the control state `s` left; returns the instruction to go on from.
    pub(super) fn resume(&mut self, s: Suspended) -> usize {
        self.alive = s.alive;
        self.cond_mask = s.cond_mask;
        self.loop_mask = s.loop_mask;
        self.cont_mask = s.cont_mask;
        self.switch_mask = s.switch_mask;
        self.func_mask = s.func_mask;
        self.cond_stack = s.cond_stack;
        self.frames = s.frames;
        self.calls = s.calls;
        self.budget = s.budget;
        self.report = s.report;
        s.pc
    }

    /// Whether a compute machine stops at BARRIER and MEMBAR (tgsi_exec does only there) and,
    /// like tgsi_exec, walks blocks no lane executes when they hold one.
    pub(super) fn meets_at_barriers(&self) -> bool {
        self.p.program.processor == Processor::Compute
    }

    /// The lanes that execute the current instruction.
    pub fn exec_mask(&self) -> Mask {
        self.alive
            & self.cond_mask
            & self.loop_mask
            & self.cont_mask
            & self.switch_mask
            & self.func_mask
    }

    /// The value of `v` per quad for derivatives: (DDX, DDY) coarse, the same for the quad.
    pub fn derivatives(&self, v: &Chan, fine: bool) -> (Chan, Chan) {
        let mut dx = [0u32; BATCH_LANES];
        let mut dy = [0u32; BATCH_LANES];
        if self.arrangement != Arrangement::Quads {
            return ([0; BATCH_LANES], [0; BATCH_LANES]);
        }
        for q in 0..BATCH_LANES / 4 {
            let l = 4 * q;
            let (tl, tr, bl, br) = (f(v[l]), f(v[l + 1]), f(v[l + 2]), f(v[l + 3]));
            if fine {
                let (top, bottom) = (b(tr - tl), b(br - bl));
                let (left, right) = (b(tl - bl), b(tr - br));
                dx[l..l + 4].copy_from_slice(&[top, top, bottom, bottom]);
                dy[l..l + 4].copy_from_slice(&[left, right, left, right]);
            } else {
                dx[l..l + 4].fill(b(tr - tl));
                dy[l..l + 4].fill(b(tl - bl));
            }
        }
        (dx, dy)
    }

    /// Pops each executing lane's PUSHA stack for POPA (an empty stack reads zeros).
    pub fn pop_addr(&mut self, exec: Mask) -> Reg {
        let mut out = [[0; BATCH_LANES]; 4];
        for l in lanes(exec) {
            if self.regs.addr_depth[l] == 0 {
                continue;
            }
            self.regs.addr_depth[l] -= 1;
            let d = self.regs.addr_depth[l] as usize;
            for c in 0..4 {
                out[c][l] = self.regs.addr_stack[d][c][l];
            }
        }
        out
    }
}
