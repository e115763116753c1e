//! Lifting a validated TGSI program into the IR.
//!
//! - Every component of every directly addressed TEMP, OUT and ADDR register, every NV condition
//!   register, and the invocation's flags (discarded, out of iterations, loop budget, address
//!   stack depth, returned) is a *variable*: the lifter tracks its current SSA value, `If`
//!   statements yield the variables their branches change, loops carry the variables their
//!   bodies may write. Registers start at 0.
//! - Indirectly addressed TEMP and OUT ranges are arrays ([`ArrayDecl`]); the PUSHA/POPA stack
//!   is an array too.
//! - Control flow keeps its structure: IF/UIF → `If`; the three loop kinds → `Loop` with their
//!   counters, and the iteration budget checked at every back edge; BRK and CONT → `Break` and
//!   `Continue` (after the back-edge work); SWITCH → a chain of guarded `If`s with a "selected"
//!   flag (fall-through, DEFAULT anywhere, BRK clears the flag); RET → a flag that guards the
//!   rest of the routine (and leaves loops); CAL/CALLNZ are inlined.
//! - Modifiers, saturation, write masks, modulation, condition codes and predication become
//!   plain operations and selects; the legacy macro opcodes (LIT, DST, XPD, NRM, ...) expand to
//!   the scalar operations the interpreter performs, in the same order, so results are
//!   bit-identical.

mod alu;
mod env;
mod flow;
mod memory;
mod operand;
mod scan;
mod var;
mod wide;

use super::*;
use crate::maps::FastMap;
use crate::tgsi::{File, FlowOp, Location, LoopKind, Primitive, Program, PropertyName};
use crate::valid::{ValidationError, validate};
use scan::{Layout, Structure};
use std::collections::{BTreeMap, BTreeSet};
use thiserror::Error;
pub(crate) use var::Var;

/// Why a program cannot be lifted.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LiftError {
    /// The program does not validate.
    #[error("the program is invalid: {}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Invalid(Vec<ValidationError>),
    /// A token stream of a newer minor revision (reads, must not run).
    #[error("revision {0}.{1} is newer than 1.1: the program reads but must not be compiled")]
    NotExecutable(u8, u8),
    /// Something the IR cannot express.
    #[error("{location}: {what} cannot be compiled: {why}")]
    Unsupported {
        /// The construct (an opcode, an operand).
        what: String,
        /// Why.
        why: String,
        /// Where (the instruction).
        location: Location,
    },
}

impl LiftError {
    /// Where the error is, when it concerns one instruction.
    pub fn location(&self) -> Option<&Location> {
        match self {
            LiftError::Unsupported { location, .. } => Some(location),
            _ => None,
        }
    }

    /// The message without its location (for tools that print the location themselves).
    pub fn detail(&self) -> String {
        match self {
            LiftError::Unsupported { what, why, .. } => format!("{what} cannot be compiled: {why}"),
            other => other.to_string(),
        }
    }
}

/// Inlined subroutines may nest this deep (as the interpreter's call stack).
const MAX_CALL_DEPTH: u32 = 64;
/// IF, loop and SWITCH blocks and inlined subroutine calls may nest this deep, counted along
/// any path through the program after inlining (llvmpipe allows 80, tgsi_exec 32 per kind).
/// Every stage after the lifter walks the IR's block tree recursively, and compile time grows
/// with depth times size, so deeper programs are refused here with a located error instead of
/// exhausting the stack or the clock later (docs/ir.md, "Limits").
pub const MAX_NESTING: u32 = 64;
/// A lifted function may hold this many instructions (inlining can multiply code).
const MAX_INSTS: usize = 4 << 20;

/// How the end of a lifted statement sequence is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// Some lanes fall through.
    Live,
    /// Every lane that got here left the region through a flag (a switch BRK, a RET outside
    /// loops): the rest of the region is skipped, the block still ends normally.
    Skipped,
    /// The block ended with an IR terminator (`Break`, `Continue`).
    Terminated,
}

/// Something BRK can leave.
#[derive(Debug, Clone)]
enum Breakable {
    Loop(LoopCtx),
    Switch(u32),
}

/// An open loop.
#[derive(Debug, Clone)]
struct LoopCtx {
    kind: LoopKind,
    /// The loop's closing instruction.
    end: usize,
    /// Loop-carried variables, in parameter order.
    carried: Vec<Var>,
    /// Their types (of the parameters and results).
    tys: Vec<Type>,
}

/// One entry of the breakable stack, with the call depth it belongs to.
#[derive(Debug, Clone)]
struct Open {
    level: u32,
    what: Breakable,
}

pub(super) struct Lifter<'p> {
    p: &'p Program,
    layout: Layout,
    st: Structure,
    f: Function,
    /// The statements of the block being built.
    cur: Vec<Stmt>,
    /// Constants, emitted at the top of the body.
    consts: FastMap<(u32, Type), Value>,
    const_stmts: Vec<Stmt>,
    env: env::Env,
    origin: Option<u32>,
    open: Vec<Open>,
    level: u32,
    /// Nested constructs being lifted (bounded by [`MAX_NESTING`]).
    nesting: u32,
    next_switch: u32,
    inlining: Vec<usize>,
    /// Per-instruction cache of fetched source components.
    src_cache: FastMap<(usize, u8), Value>,
}

/// Lifts a TGSI program into the IR, validating it first ([`lift_valid`] lifts a program
/// validated before).
///
/// # Errors
/// As [`lift_valid`], and [`LiftError::Invalid`].
pub fn lift(p: &Program) -> Result<Function, LiftError> {
    validate(p).map_err(LiftError::Invalid)?;
    lift_checked(p)
}

/// Lifts a validated TGSI program into the IR.
///
/// The result verifies ([`super::verify::verify`]) and computes, for every invocation, the same
/// bits as the interpreter (`docs/ir.md` states the one exception: derivatives inside
/// non-uniform control flow).
///
/// # Errors
/// [`LiftError`] when the program is of a newer revision, or uses something the IR cannot
/// express (BRA, recursion, opcodes without semantics, indirect sampler indexing).
pub fn lift_valid(p: &crate::valid::Valid) -> Result<Function, LiftError> {
    lift_checked(p)
}

fn lift_checked(p: &Program) -> Result<Function, LiftError> {
    if !p.revision.is_executable() {
        return Err(LiftError::NotExecutable(p.revision.major, p.revision.minor));
    }
    for (i, inst) in p.instructions.iter().enumerate() {
        if let Some(reason) = inst.no_semantics() {
            return Err(LiftError::Unsupported {
                what: inst.opcode.name().into(),
                why: reason.into(),
                location: p.source_map.instruction(i),
            });
        }
    }
    let mut l = Lifter {
        p,
        layout: Layout::new(p),
        st: Structure::new(p),
        f: Function::new(p.processor),
        cur: Vec::new(),
        consts: FastMap::default(),
        const_stmts: Vec::new(),
        env: env::Env::default(),
        origin: None,
        open: Vec::new(),
        level: 0,
        nesting: 0,
        next_switch: 0,
        inlining: Vec::new(),
        src_cache: FastMap::default(),
    };
    l.prologue();
    let (_, _) = l.seq(0)?;
    l.origin = None;
    l.epilogue();
    let mut body = std::mem::take(&mut l.const_stmts);
    body.append(&mut l.cur);
    l.f.body = Block(body);
    Ok(l.f)
}

impl Lifter<'_> {
    /// Lifts one nested construct opened at `pc`, within [`MAX_NESTING`].
    fn nest<T>(
        &mut self,
        pc: usize,
        lift: impl FnOnce(&mut Self) -> Result<T, LiftError>,
    ) -> Result<T, LiftError> {
        if self.nesting >= MAX_NESTING {
            return Err(self.unsupported(
                pc,
                self.p.instructions[pc].opcode.name(),
                format!(
                    "blocks are nested too deeply: IF, loop and SWITCH blocks and subroutine calls may nest at most {MAX_NESTING} levels"
                ),
            ));
        }
        self.nesting += 1;
        let r = lift(self);
        self.nesting -= 1;
        r
    }

    fn unsupported(&self, pc: usize, what: impl Into<String>, why: impl Into<String>) -> LiftError {
        LiftError::Unsupported {
            what: what.into(),
            why: why.into(),
            location: self.p.source_map.instruction(pc),
        }
    }

    // ------------------------------------------------------------------ emission

    /// Emits an instruction into the current block.
    fn emit(&mut self, op: Op, args: Vec<Value>, tys: &[Type]) -> Inst {
        let i = self.f.new_inst(op, args, tys, self.origin);
        self.cur.push(Stmt::Inst(i));
        i
    }

    /// Emits a one-result instruction.
    fn emit1(&mut self, op: Op, args: Vec<Value>, ty: Type) -> Value {
        let i = self.emit(op, args, &[ty]);
        self.f.insts[i].results[0]
    }

    /// A constant (emitted once, at the top of the function).
    fn cnst(&mut self, bits: u32, ty: Type) -> Value {
        if let Some(&v) = self.consts.get(&(bits, ty)) {
            return v;
        }
        let i = self.f.new_inst(Op::Const(bits), vec![], &[ty], None);
        self.const_stmts.push(Stmt::Inst(i));
        let v = self.f.insts[i].results[0];
        self.consts.insert((bits, ty), v);
        v
    }

    fn fconst(&mut self, x: f32) -> Value {
        self.cnst(x.to_bits(), Type::F32)
    }

    fn iconst(&mut self, x: u32) -> Value {
        self.cnst(x, Type::I32)
    }

    fn bconst(&mut self, x: bool) -> Value {
        self.cnst(x as u32, Type::Bool)
    }

    fn un(&mut self, u: Unary, a: Value) -> Value {
        let (_, res) = verify::signature(&Op::Unary(u), 1).unwrap_or_default();
        let ty = match res.first() {
            Some(verify::Sig::Is(t)) => *t,
            _ => self.f.ty(a),
        };
        self.emit1(Op::Unary(u), vec![a], ty)
    }

    fn bin(&mut self, b: Binary, a: Value, c: Value) -> Value {
        use Binary as B;
        let ty = match b {
            B::FAdd | B::FSub | B::FMul | B::FDiv | B::FMin | B::FMax | B::FPow | B::Ldexp => {
                Type::F32
            }
            B::BAnd | B::BOr => Type::Bool,
            _ => Type::I32,
        };
        self.emit1(Op::Binary(b), vec![a, c], ty)
    }

    fn fbin(&mut self, b: Binary, a: Value, c: Value) -> Value {
        let (a, c) = (self.as_f(a), self.as_f(c));
        self.bin(b, a, c)
    }

    fn ibin(&mut self, b: Binary, a: Value, c: Value) -> Value {
        let (a, c) = (self.as_i(a), self.as_i(c));
        self.bin(b, a, c)
    }

    fn fcmp(&mut self, k: FCmp, a: Value, c: Value) -> Value {
        let (a, c) = (self.as_f(a), self.as_f(c));
        self.emit1(Op::FCmp(k), vec![a, c], Type::Bool)
    }

    fn icmp(&mut self, k: ICmp, a: Value, c: Value) -> Value {
        let (a, c) = (self.as_i(a), self.as_i(c));
        self.emit1(Op::ICmp(k), vec![a, c], Type::Bool)
    }

    fn band(&mut self, a: Value, c: Value) -> Value {
        match (self.f.const_value(a), self.f.const_value(c)) {
            (Some(1), _) => c,
            (_, Some(1)) => a,
            _ => self.bin(Binary::BAnd, a, c),
        }
    }

    fn bor(&mut self, a: Value, c: Value) -> Value {
        match (self.f.const_value(a), self.f.const_value(c)) {
            (Some(0), _) => c,
            (_, Some(0)) => a,
            _ => self.bin(Binary::BOr, a, c),
        }
    }

    /// `cond ? a : b`; the result has `a`'s type (b is reinterpreted if needed).
    fn select(&mut self, cond: Value, a: Value, b: Value) -> Value {
        if a == b {
            return a;
        }
        let b = self.as_ty(b, self.f.ty(a));
        let ty = self.f.ty(a);
        self.emit1(Op::Select, vec![cond, a, b], ty)
    }

    /// `v` as F32 bits.
    fn as_f(&mut self, v: Value) -> Value {
        self.as_ty(v, Type::F32)
    }

    /// `v` as I32 bits.
    fn as_i(&mut self, v: Value) -> Value {
        self.as_ty(v, Type::I32)
    }

    fn as_ty(&mut self, v: Value, ty: Type) -> Value {
        let have = self.f.ty(v);
        if have == ty || ty == Type::Bool || have == Type::Bool {
            return v;
        }
        if let Some(c) = self.f.const_value(v) {
            return self.cnst(c, ty);
        }
        self.emit1(Op::Unary(Unary::Bitcast), vec![v], ty)
    }

    // ------------------------------------------------------------------ variables

    fn get(&self, v: Var) -> Value {
        match self.env.get(&v) {
            Some(&x) => x,
            None => unreachable!("the lifter reads {v:?} before it has a value"),
        }
    }

    fn set(&mut self, v: Var, x: Value) {
        self.env.insert(v, x);
    }

    fn prologue(&mut self) {
        let zero = self.cnst(0, Type::F32);
        let izero = self.iconst(0);
        let no = self.bconst(false);
        let l = &self.layout;
        let mut vars = Vec::new();
        for &(file, reg) in &l.referenced {
            if l.is_var(file, reg as i64) {
                vars.push((file, reg));
            }
        }
        for file in [File::Output, File::Address] {
            for reg in 0..l.size(file) {
                if l.is_var(file, reg as i64) {
                    vars.push((file, reg));
                }
            }
        }
        let ccs: Vec<u8> = l.cc_regs.iter().copied().filter(|&n| n < 16).collect();
        for (file, reg) in vars {
            for c in 0..4 {
                if let Some(v) = Layout::var(file, reg, c) {
                    self.env.insert(v, zero);
                }
            }
        }
        for n in ccs {
            for c in 0..4 {
                self.env.insert(Var::Cc(n, c), zero);
            }
        }
        self.env.insert(Var::Killed, no);
        self.env.insert(Var::Exhausted, no);
        self.env.insert(Var::Ret(0), no);
        self.env.insert(Var::StackDepth, izero);
        let budget = self
            .f
            .new_inst(Op::MaxIterations, vec![], &[Type::I32], None);
        self.const_stmts.push(Stmt::Inst(budget));
        let budget = self.f.insts[budget].results[0];
        self.env.insert(Var::Budget, budget);
        self.f.arrays = self.layout.arrays.clone();
        if self.layout.uses_stack {
            self.f.arrays.push(ArrayDecl {
                kind: ArrayKind::AddressStack,
                first: 0,
                len: STACK_DEPTH,
            });
        }
        self.f.immediates = self
            .p
            .immediates
            .iter()
            .map(|i| std::array::from_fn(|c| i.values.get(c).copied().unwrap_or(0)))
            .collect();
        self.f.gs_vertices = self
            .p
            .property(PropertyName::GsInputPrimitive)
            .and_then(Primitive::from_bits)
            .and_then(Primitive::vertices_per_primitive)
            .unwrap_or(1);
        self.f.input_regs = self.layout.size(File::Input);
        self.f.sysval_regs = self.layout.size(File::SystemValue);
        self.f.outputs = (0..self.layout.size(File::Output))
            .map(|reg| OutputSlot {
                reg,
                semantic: self
                    .p
                    .declarations_of(File::Output)
                    .find(|d| d.contains(reg as i64))
                    .and_then(|d| d.semantic)
                    .map(|s| (s.name, s.index + (reg - d_first(self.p, reg)))),
            })
            .collect();
    }

    /// The output values of every slot, in slot order (four per slot).
    fn output_values(&mut self) -> Vec<Value> {
        let mut out = Vec::new();
        for reg in 0..self.layout.size(File::Output) {
            for c in 0..4u8 {
                let v = self.read_reg_direct(File::Output, reg as i64, c);
                out.push(v);
            }
        }
        out
    }

    fn epilogue(&mut self) {
        let vals = self.output_values();
        for (k, v) in vals.into_iter().enumerate() {
            // Outputs start at 0 (`Op::StoreOutput`): a component that holds +0.0 needs no
            // store, so a declared output the shader never writes costs no code.
            if self.f.const_value(v) == Some(0) {
                continue;
            }
            self.emit(
                Op::StoreOutput {
                    slot: (k / 4) as u32,
                    comp: (k % 4) as u8,
                },
                vec![v],
                &[],
            );
        }
        let killed = self.get(Var::Killed);
        self.emit(Op::Discard, vec![killed], &[]);
        let ex = self.get(Var::Exhausted);
        self.emit(Op::Exhausted, vec![ex], &[]);
    }

    // ------------------------------------------------------------------ structure

    /// Skips from `pc` to the end of the current region (nested blocks skipped whole).
    fn skip(&self, mut pc: usize) -> usize {
        let insts = &self.p.instructions;
        while pc < insts.len() {
            let op = insts[pc].opcode;
            if scan::ends_region(op) {
                return pc;
            }
            match op.flow() {
                Some(FlowOp::If | FlowOp::BeginLoop(_) | FlowOp::Switch | FlowOp::BeginSub) => {
                    pc = self.st.end[pc] as usize + 1;
                }
                _ => pc += 1,
            }
        }
        pc
    }

    /// The guard flags in scope: the return flag of this routine and, directly inside a
    /// SWITCH, its selection flag. Each with the value that means "still running".
    fn flags(&self) -> Vec<(Var, bool)> {
        let mut f = vec![(Var::Ret(self.level), false)];
        if let Some(Open {
            level,
            what: Breakable::Switch(id),
        }) = self.open.last()
            && *level == self.level
        {
            f.push((Var::Switch(*id), true));
        }
        f
    }

    /// The innermost loop of the current routine.
    fn innermost_loop(&self) -> Option<LoopCtx> {
        self.open
            .iter()
            .rev()
            .take_while(|o| o.level == self.level)
            .find_map(|o| match &o.what {
                Breakable::Loop(l) => Some(l.clone()),
                _ => None,
            })
    }

    /// Lifts statements from `pc` to the end of the region; returns where the region ends and
    /// how its end is reached.
    fn seq(&mut self, mut pc: usize) -> Result<(usize, Reach), LiftError> {
        let n = self.p.instructions.len();
        loop {
            if pc >= n {
                return Ok((pc, Reach::Live));
            }
            if self.f.insts.len() > MAX_INSTS {
                return Err(self.unsupported(
                    pc,
                    "the program",
                    "inlining makes it larger than 4M IR instructions",
                ));
            }
            let inst = &self.p.instructions[pc];
            let op = inst.opcode;
            if scan::ends_region(op) {
                return Ok((pc, Reach::Live));
            }
            self.origin = Some(pc as u32);
            self.src_cache.clear();
            let flags_before: Vec<(Var, Option<Value>)> = self
                .flags()
                .into_iter()
                .map(|(v, _)| (v, self.env.get(&v).copied()))
                .collect();
            let (next, reach) = match op.flow() {
                None => {
                    self.instruction(pc)?;
                    (pc + 1, Reach::Live)
                }
                Some(FlowOp::BeginSub) => (self.st.end[pc] as usize + 1, Reach::Live),
                Some(FlowOp::If) => self.nest(pc, |s| s.lift_if(pc))?,
                Some(FlowOp::BeginLoop(kind)) => self.nest(pc, |s| s.lift_loop(pc, kind))?,
                Some(FlowOp::Switch) => self.nest(pc, |s| s.lift_switch(pc))?,
                Some(FlowOp::Break | FlowOp::BreakC) => {
                    let r = self.conditional(pc, |s| s.do_break(pc))?;
                    (pc + 1, r)
                }
                Some(FlowOp::Continue) => {
                    let r = self.conditional(pc, |s| s.do_continue(pc))?;
                    (pc + 1, r)
                }
                Some(FlowOp::Return) => {
                    let r = self.conditional(pc, |s| Ok(s.do_return()))?;
                    (pc + 1, r)
                }
                Some(FlowOp::Call | FlowOp::CallNz) => {
                    (pc + 1, self.nest(pc, |s| s.lift_call(pc))?)
                }
                Some(FlowOp::Branch) => {
                    return Err(self.unsupported(
                        pc,
                        "BRA",
                        "an unstructured jump has no structured form (use IF, loops and subroutines)",
                    ));
                }
                Some(
                    FlowOp::Else
                    | FlowOp::EndIf
                    | FlowOp::EndLoop(_)
                    | FlowOp::Case
                    | FlowOp::Default
                    | FlowOp::EndSwitch
                    | FlowOp::EndSub
                    | FlowOp::End,
                ) => unreachable!("region ends are handled above"),
            };
            match reach {
                Reach::Terminated => {
                    // An `If` whose branches both leave the loop ends the block: close it with
                    // a (never reached) break, so the block ends with a terminator.
                    if !self.cur.last().is_some_and(Stmt::is_terminator)
                        && let Some(l) = self.open.iter().rev().find_map(|o| match &o.what {
                            Breakable::Loop(l) => Some(l.clone()),
                            _ => None,
                        })
                    {
                        self.emit_break(&l);
                    }
                    return Ok((self.skip(next), reach));
                }
                Reach::Skipped => return Ok((self.skip(next), reach)),
                Reach::Live => {}
            }
            // A flag the statement may have set makes the rest of the region conditional.
            let changed: Vec<Var> = flags_before
                .into_iter()
                .filter(|(v, before)| self.env.get(v).copied() != *before)
                .map(|(v, _)| v)
                .collect();
            if changed.is_empty() {
                pc = next;
                continue;
            }
            let ret = Var::Ret(self.level);
            if changed.contains(&ret)
                && let Some(l) = self.innermost_loop()
            {
                // Returned lanes leave the loop.
                let r = self.get(ret);
                self.origin = Some(pc as u32);
                self.build_if(r, |s| Ok(s.emit_break(&l)), |_| Ok(Reach::Live))?;
                if changed.len() == 1 {
                    pc = next;
                    continue;
                }
            }
            let live = self.live_cond();
            let (end, reach) = match live {
                Some(c) => {
                    let mut end = next;
                    let r = self.build_if(
                        c,
                        |s| {
                            let (e, r) = s.seq(next)?;
                            end = e;
                            Ok(r)
                        },
                        |_| Ok(Reach::Live),
                    )?;
                    (end, r)
                }
                None => self.seq(next)?,
            };
            let _ = reach;
            return Ok((end, Reach::Live));
        }
    }
}

/// Levels of the PUSHA/POPA stack.
pub(crate) const STACK_DEPTH: u32 = 32;

/// The first register of the OUT declaration covering `reg`.
fn d_first(p: &Program, reg: u32) -> u32 {
    p.declarations_of(File::Output)
        .find(|d| d.contains(reg as i64))
        .map_or(reg, |d| {
            d.ranges
                .iter()
                .find(|r| r.contains(reg as i64))
                .map_or(reg, |r| r.first)
        })
}
