//! The SSA IR: scalar, typed values, one per channel; structured control flow; explicit effects.
//!
//! - A [`Function`] owns an arena of [`ValueData`] and an arena of [`InstData`]; [`Value`] and
//!   [`Inst`] are typed handles into them.
//! - Values are 32-bit lane values of type [`Type::F32`] or [`Type::I32`], or lane masks
//!   ([`Type::Bool`]). Float operations read denormals as zero and flush denormal results, exactly
//!   as the interpreter (`docs/semantics.md`); `Bitcast` reinterprets bits for free.
//! - Control flow is structured ([`Stmt`]): `If` yields result values from its branches; `Loop`
//!   carries parameters, `Continue` passes the next iteration's values and `Break` the loop's
//!   results, from any nesting depth inside the loop. A backend can execute these with lane masks
//!   (SIMD) or with branches (uniform conditions, one invocation at a time).
//! - A value defined inside a region is computed as if its invocation were active; lanes that do
//!   not execute the region never observe it, except through derivatives (cross-lane), which are
//!   unspecified in non-uniform control flow (`docs/ir.md`).
//! - Effects are explicit instructions: array stores, output stores, discard, EMIT.
//!
//! See `docs/ir.md` for the text form printed by [`mod@print`]. [`lift`] makes a function of a
//! valid program.

pub mod arena;
pub mod lift;
pub mod memory;
pub mod pressure;
pub mod print;
pub mod semantics;
pub mod tex;
pub mod uniform;
pub mod verify;

pub use arena::{Arena, Handle};

use crate::tgsi::{Processor, Semantic, Swizzle};
pub use memory::{MemAccess, MemFile};
pub use tex::{Level, TexArg, TexKind, TexLayout, TexOp};

/// A value: a handle into [`Function::values`].
pub type Value = Handle<ValueData>;
/// An instruction: a handle into [`Function::insts`].
pub type Inst = Handle<InstData>;

/// Value types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Type {
    /// IEEE single precision (denormals flushed by arithmetic).
    F32,
    /// 32-bit integer (signedness is in the operations).
    I32,
    /// A per-invocation boolean (a lane mask).
    Bool,
    /// IEEE double precision (denormals flushed by arithmetic where F32's are): the value of a
    /// 64-bit TGSI opcode, made of two channels by [`Op64::Pack`] and [`Op64::AsF64`].
    F64,
    /// 64-bit integer (signedness is in the operations).
    I64,
}

impl Type {
    /// Whether values of this type take 64 bits (F64, I64).
    pub fn is_64_bit(self) -> bool {
        matches!(self, Type::F64 | Type::I64)
    }
}

/// The operations on 64-bit values, the doubles and 64-bit integers of TGSI's 64-bit opcodes,
/// with [`crate::numerics::wide`]'s semantics (`docs/ir.md`). The `D` ones read F64 and
/// flush denormal operands and results as the F32 arithmetic does (not in compute programs),
/// NaN results canonical; the `Q` ones are on I64 and wrap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op64 {
    /// (lo: I32, hi: I32) → I64.
    Pack,
    /// The low word (I64 → I32).
    Lo,
    /// The high word (I64 → I32).
    Hi,
    /// Reinterpret the bits (I64 → F64).
    AsF64,
    /// Reinterpret the bits (F64 → I64).
    AsI64,
    /// F64 + F64.
    DAdd,
    /// F64 − F64.
    DSub,
    /// F64 · F64.
    DMul,
    /// F64 / F64.
    DDiv,
    /// The non-NaN operand, the first when equal.
    DMin,
    /// The non-NaN operand, the first when equal.
    DMax,
    /// Fused multiply-add (F64 × 3).
    DFma,
    /// `x >= 0 ? x : −x` on the bits (F64).
    DAbs,
    /// Flip the sign bit (F64).
    DNeg,
    /// sqrt (F64).
    DSqrt,
    /// floor (F64).
    DFloor,
    /// ceil (F64).
    DCeil,
    /// trunc (F64).
    DTrunc,
    /// Round half to even (F64).
    DRound,
    /// 1, −1 or 0 (F64; NaN → 0).
    DSign,
    /// Saturate to [0, 1], NaN → 0, −0 kept (F64).
    DSat01,
    /// x · 2ⁿ (F64, I32 → F64).
    DLdexp,
    /// frexp's mantissa (F64).
    DFrexpMant,
    /// frexp's exponent (F64 → I32).
    DFrexpExp,
    /// Float comparison (F64, F64 → Bool).
    DCmp(FCmp),
    /// F32 → F64 (exact; a denormal operand flushed where F32's are).
    F32ToF64,
    /// F64 → F32, rounded to nearest even.
    F64ToF32,
    /// Signed I32 → F64.
    I32ToF64,
    /// Unsigned I32 → F64.
    U32ToF64,
    /// D2I (F64 → I32).
    F64ToI32,
    /// D2U (F64 → I32).
    F64ToU32,
    /// D2I64 (F64 → I64).
    F64ToI64,
    /// D2U64 (F64 → I64).
    F64ToU64,
    /// Signed I64 → F64.
    I64ToF64,
    /// Unsigned I64 → F64.
    U64ToF64,
    /// Signed I64 → F32.
    I64ToF32,
    /// Unsigned I64 → F32.
    U64ToF32,
    /// Sign extension (I32 → I64).
    SExt,
    /// Zero extension (I32 → I64).
    ZExt,
    /// I64 + I64.
    QAdd,
    /// I64 · I64.
    QMul,
    /// Signed division: 0 for a zero divisor, MIN / −1 = MIN.
    QDivS,
    /// Unsigned division: all ones for a zero divisor.
    QDivU,
    /// Signed remainder: all ones for a zero divisor, MIN % −1 = 0.
    QRemS,
    /// Unsigned remainder: all ones for a zero divisor.
    QRemU,
    /// Signed minimum.
    QMinS,
    /// Signed maximum.
    QMaxS,
    /// Unsigned minimum.
    QMinU,
    /// Unsigned maximum.
    QMaxU,
    /// Shift left by the low 6 bits (I64, I32 → I64).
    QShl,
    /// Arithmetic shift right by the low 6 bits (I64, I32 → I64).
    QShrS,
    /// Logical shift right by the low 6 bits (I64, I32 → I64).
    QShrU,
    /// Two's complement negation (I64).
    QNeg,
    /// Wrapping absolute value (I64).
    QAbs,
    /// −1, 0 or 1 (I64).
    QSign,
    /// Integer comparison (I64, I64 → Bool).
    QCmp(ICmp),
}

/// Where a value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Def {
    /// Result `k` of an instruction.
    Inst(Inst, u8),
    /// A loop parameter (the value on entry to an iteration).
    Param,
    /// A result of an `If`.
    IfResult,
    /// A result of a `Loop`.
    LoopResult,
}

/// A value's type and definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValueData {
    /// Its type.
    pub ty: Type,
    /// Its definition.
    pub def: Def,
}

/// Float comparisons (false with NaN, except `Ne`, which is true).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum FCmp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

/// Integer comparisons.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum ICmp {
    Eq,
    Ne,
    SLt,
    SGe,
    ULt,
    UGe,
}

/// One-operand pure operations. The `F` ones read and flush denormals (except `FNeg` and
/// `FAbs`, which only touch the sign bit).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unary {
    /// Flip the sign bit (F32).
    FNeg,
    /// Clear the sign bit (F32).
    FAbs,
    /// floor (F32).
    FFloor,
    /// ceil (F32).
    FCeil,
    /// trunc (F32).
    FTrunc,
    /// round half to even (F32).
    FRound,
    /// sqrtf (F32).
    FSqrt,
    /// exp2f (F32).
    FExp2,
    /// logf(x) · 1.442695f (F32).
    FLg2,
    /// sinf (F32).
    FSin,
    /// cosf (F32).
    FCos,
    /// Saturate to [0, 1], NaN → 0 (F32).
    FSat01,
    /// Saturate to [−1, 1], NaN → 0 (F32).
    FSat11,
    /// SSG: 1, −1 or 0 (F32; NaN → 0).
    FSign,
    /// Round to half precision and back (NV FP16 precision).
    FRoundF16,
    /// Round to NV FIXED12.
    FRoundFx12,
    /// F2I: truncation, NaN and out of range → 0x80000000 (F32 → I32).
    F2I,
    /// F2U as [`crate::numerics::f2u`]: softpipe's conversion (F32 → I32).
    F2U,
    /// ARL: floor, then a saturating conversion (NaN → 0) (F32 → I32).
    FloorToInt,
    /// I2F (I32 → F32).
    I2F,
    /// U2F (I32 → F32).
    U2F,
    /// Two's complement negation (I32).
    INeg,
    /// Wrapping absolute value (I32).
    IAbs,
    /// Sign: −1, 0, 1 (I32).
    ISign,
    /// Bitwise not (I32).
    Not,
    /// Bit reversal (I32).
    BitRev,
    /// Population count (I32).
    Popcount,
    /// Lowest set bit, −1 for 0 (I32).
    FindLsb,
    /// Highest bit differing from the sign, −1 for 0 and −1 (I32).
    FindMsbS,
    /// Highest set bit, −1 for 0 (I32).
    FindMsbU,
    /// Logical not (Bool).
    BNot,
    /// ~0 / 0 (Bool → I32).
    BoolToInt,
    /// 1.0 / 0.0 (Bool → F32).
    BoolToFloat,
    /// Reinterpret the bits (F32 ↔ I32).
    Bitcast,
}

/// Two-operand pure operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Binary {
    FAdd,
    FSub,
    FMul,
    FDiv,
    /// fminf: the non-NaN operand, the first when equal.
    FMin,
    /// fmaxf.
    FMax,
    /// powf.
    FPow,
    /// x · 2ⁿ (F32, I32 → F32).
    Ldexp,
    IAdd,
    ISub,
    IMul,
    IMulHiS,
    IMulHiU,
    /// Signed division, 0 for a zero divisor, INT_MIN / −1 = INT_MIN.
    IDivS,
    /// Unsigned division, 0xFFFFFFFF for a zero divisor.
    IDivU,
    /// Signed remainder, −1 for a zero divisor.
    IRemS,
    /// Unsigned remainder, 0xFFFFFFFF for a zero divisor.
    IRemU,
    IMinS,
    IMaxS,
    IMinU,
    IMaxU,
    /// Shift left by the low 5 bits.
    Shl,
    /// Arithmetic shift right by the low 5 bits.
    ShrS,
    /// Logical shift right by the low 5 bits.
    ShrU,
    And,
    Or,
    Xor,
    /// |a − b| unsigned.
    UAbsDiff,
    /// Logical and (Bool).
    BAnd,
    /// Logical or (Bool).
    BOr,
}

/// Three- and four-operand pure operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Nary {
    /// Fused multiply-add (F32).
    Fma,
    /// Unsigned bitfield extract (value, offset, bits).
    Ubfe,
    /// Signed bitfield extract.
    Ibfe,
    /// Bitfield insert (base, insert, offset, bits).
    Bfi,
}

/// Packing formats of PK*/UP*.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pack {
    /// Two halves (PK2H / UP2H).
    Half2x16,
    /// Two unsigned 16-bit normalized (PK2US / UP2US).
    Unorm2x16,
    /// Four signed bytes (PK4B / UP4B).
    Snorm4x8,
    /// Four unsigned bytes (PK4UB / UP4UB).
    Unorm4x8,
}

/// Derivative direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Axis {
    /// d/dx.
    X,
    /// d/dy.
    Y,
}

/// What an instruction computes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Op {
    /// A constant (bits).
    Const(u32),
    /// `IN[reg].comp`.
    Input {
        /// Register.
        reg: u32,
        /// Component.
        comp: u8,
    },
    /// IN[offset + index].comp with the index clamped to `lo..=hi` (args: index, I32).
    InputIndirect {
        /// Constant part of the index.
        offset: i32,
        /// Clamp range.
        lo: u32,
        /// Clamp range.
        hi: u32,
        /// Component.
        comp: u8,
    },
    /// Geometry input IN[vertex + dv][reg + dr].comp (args: dv, dr); the vertex is clamped to
    /// the primitive's vertices, the register to `lo..=hi`.
    GsInput {
        /// Constant part of the vertex index.
        vertex: i32,
        /// Constant part of the register index.
        reg: i32,
        /// Register clamp range.
        lo: u32,
        /// Register clamp range.
        hi: u32,
        /// Component.
        comp: u8,
    },
    /// `SV[reg].comp`.
    SysVal {
        /// Register.
        reg: u32,
        /// Component.
        comp: u8,
    },
    /// `CONST[buffer][reg].comp` (uniform); registers outside the bound buffer read 0.
    Uniform {
        /// Buffer.
        buffer: u32,
        /// Register.
        reg: u32,
        /// Component.
        comp: u8,
    },
    /// CONST[buffer + db][offset + dr].comp (args: db, dr); outside the bound buffers it reads 0.
    UniformIndirect {
        /// Constant part of the buffer index.
        buffer: i32,
        /// Constant part of the register index.
        offset: i32,
        /// Component.
        comp: u8,
    },
    /// IMM[offset + index].comp (args: index), the index clamped to the immediates.
    ImmIndirect {
        /// Constant part of the index.
        offset: i32,
        /// Component.
        comp: u8,
    },
    /// The per-invocation loop-iteration budget (`Bindings::max_iterations`), I32.
    MaxIterations,
    /// The clear colour's component (what FBFETCH reads).
    ClearColor {
        /// Component.
        comp: u8,
    },
    /// Whether the invocation is a helper (Bool).
    Helper,
    /// Reads register `offset + index` (args: index) of array `array`, the register clamped to
    /// `lo..=hi` (absolute register numbers inside the array).
    ArrayLoad {
        /// Array.
        array: u32,
        /// Component.
        comp: u8,
        /// Constant part of the register.
        offset: i32,
        /// Clamp range.
        lo: u32,
        /// Clamp range.
        hi: u32,
    },
    /// Writes (args: index, value) register `offset + index` of array `array` when it lies in
    /// `lo..=hi`; otherwise nothing is written.
    ArrayStore {
        /// Array.
        array: u32,
        /// Component.
        comp: u8,
        /// Constant part of the register.
        offset: i32,
        /// Accepted range.
        lo: u32,
        /// Accepted range.
        hi: u32,
    },
    /// Writes output slot component (args: value). Every output component is 0 before the
    /// function runs (executors zero them), so a component no store writes is 0.
    StoreOutput {
        /// Slot (index into [`Function::outputs`]).
        slot: u32,
        /// Component.
        comp: u8,
    },
    /// Discards the invocation where the argument (Bool) is true.
    Discard,
    /// Marks the invocation as having run out of loop iterations (args: Bool).
    Exhausted,
    /// EMIT: records the given output values (args: every output component in slot order, then
    /// the stream).
    Emit,
    /// ENDPRIM (args: stream).
    EndPrim,
    /// One-operand operation.
    Unary(Unary),
    /// Two-operand operation.
    Binary(Binary),
    /// Three- or four-operand operation.
    Nary(Nary),
    /// Float comparison (Bool).
    FCmp(FCmp),
    /// Integer comparison (Bool).
    ICmp(ICmp),
    /// cond ? a : b (args: Bool, a, b), bits untouched.
    Select,
    /// A derivative across the 2×2 quad (args: value).
    Derivative {
        /// Direction.
        axis: Axis,
        /// Per row/column instead of per quad.
        fine: bool,
    },
    /// Texture sampling or query (four results).
    Texture(Box<TexOp>),
    /// A memory instruction ([`MemAccess`]: its arguments and results).
    Memory(Box<MemAccess>),
    /// BARRIER: every invocation of the work group reaches it before any goes on.
    Barrier,
    /// Packs 2 or 4 floats into one word.
    Pack(Pack),
    /// Unpacks a word into 4 floats (UP2H and UP2US repeat (lo, hi, lo, hi)).
    Unpack(Pack),
    /// An operation on 64-bit values.
    W64(Op64),
}

impl Op {
    /// Whether the instruction has effects beyond its results (it may not be removed, moved or
    /// merged).
    pub fn has_effects(&self) -> bool {
        matches!(
            self,
            Op::ArrayStore { .. }
                | Op::StoreOutput { .. }
                | Op::Discard
                | Op::Exhausted
                | Op::Emit
                | Op::EndPrim
                | Op::Barrier
        ) || matches!(self, Op::Memory(m) if m.writes())
    }

    /// Whether the result depends on memory that stores change (loads may not move across
    /// stores).
    pub fn reads_memory(&self) -> bool {
        matches!(self, Op::ArrayLoad { .. } | Op::Memory(_))
    }

    /// Whether the result depends on other invocations of the quad.
    pub fn is_cross_lane(&self) -> bool {
        matches!(self, Op::Derivative { .. } | Op::Texture(_))
    }
}

/// An instruction: an operation, its arguments and its results.
#[derive(Debug, Clone, PartialEq)]
pub struct InstData {
    /// The operation.
    pub op: Op,
    /// Arguments.
    pub args: Vec<Value>,
    /// Results (0, 1 or 4).
    pub results: Vec<Value>,
    /// The TGSI instruction it was lifted from.
    pub origin: Option<u32>,
}

/// A statement of a structured block.
#[derive(Debug, Clone, PartialEq)]
pub enum Stmt {
    /// An instruction.
    Inst(Inst),
    /// A conditional.
    If(Box<IfStmt>),
    /// A loop.
    Loop(Box<LoopStmt>),
    /// Leaves the innermost loop; its values become the loop's results.
    Break(Vec<Value>),
    /// Starts the next iteration of the innermost loop with these parameter values.
    Continue(Vec<Value>),
    /// Ends an `If` branch with the values of the `If`'s results.
    Yield(Vec<Value>),
}

impl Stmt {
    /// Whether it ends its block.
    pub fn is_terminator(&self) -> bool {
        matches!(self, Stmt::Break(_) | Stmt::Continue(_) | Stmt::Yield(_))
    }
}

/// `results = if cond { then } else { otherwise }`. Each branch ends with `Yield`, `Break` or
/// `Continue`.
#[derive(Debug, Clone, PartialEq)]
pub struct IfStmt {
    /// The condition (Bool).
    pub cond: Value,
    /// Taken where the condition is true.
    pub then_: Block,
    /// Taken where it is false.
    pub else_: Block,
    /// Values yielded by the branches.
    pub results: Vec<Value>,
}

/// `results = loop (params = inits) { body }`. The body ends with `Continue` or `Break`.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopStmt {
    /// Initial parameter values.
    pub inits: Vec<Value>,
    /// Parameters (defined on every iteration).
    pub params: Vec<Value>,
    /// The body.
    pub body: Block,
    /// Values passed by `Break`.
    pub results: Vec<Value>,
}

impl LoopStmt {
    /// Whether the body's only `Continue` is its last statement, at its top level (a
    /// `Continue` inside a nested loop belongs to that loop). Then every invocation still in
    /// the loop at the end of an iteration continues from the same place, whatever the
    /// `Break`s before it did.
    pub fn sole_final_continue(&self) -> bool {
        fn continues(b: &Block) -> usize {
            b.0.iter()
                .map(|s| match s {
                    Stmt::Continue(_) => 1,
                    Stmt::If(x) => continues(&x.then_) + continues(&x.else_),
                    _ => 0,
                })
                .sum()
        }
        matches!(self.body.0.last(), Some(Stmt::Continue(_))) && continues(&self.body) == 1
    }
}

/// A sequence of statements.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Block(pub Vec<Stmt>);

impl Block {
    /// How many instructions this block holds, counting those nested in it (each once,
    /// wherever it is nested): the measure of a function's size for the back ends' limits.
    pub fn inst_count(&self) -> usize {
        self.0
            .iter()
            .map(|st| match st {
                Stmt::Inst(_) => 1,
                Stmt::If(i) => i.then_.inst_count() + i.else_.inst_count(),
                Stmt::Loop(l) => l.body.inst_count(),
                Stmt::Break(_) | Stmt::Continue(_) | Stmt::Yield(_) => 0,
            })
            .sum()
    }

    /// How deeply loops nest in this block (0: no loop).
    pub fn loop_depth(&self) -> u32 {
        self.0
            .iter()
            .map(|st| match st {
                Stmt::If(i) => i.then_.loop_depth().max(i.else_.loop_depth()),
                Stmt::Loop(l) => l.body.loop_depth() + 1,
                Stmt::Inst(_) | Stmt::Break(_) | Stmt::Continue(_) | Stmt::Yield(_) => 0,
            })
            .max()
            .unwrap_or(0)
    }
}

/// An output slot: a TGSI OUT register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutputSlot {
    /// OUT register index.
    pub reg: u32,
    /// Its semantic, if declared.
    pub semantic: Option<(Semantic, u32)>,
}

/// What an array holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArrayKind {
    /// Indirectly addressed TEMP registers.
    Temp,
    /// Indirectly addressed OUT registers.
    Output,
    /// The PUSHA/POPA address stack (one entry per level).
    AddressStack,
}

/// A per-invocation array of four-component registers, zero at the start of an invocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArrayDecl {
    /// What it holds.
    pub kind: ArrayKind,
    /// First register number it holds (accesses name absolute register numbers).
    pub first: u32,
    /// Registers it holds.
    pub len: u32,
}

/// A lifted shader.
#[derive(Debug, Clone)]
pub struct Function {
    /// The processor.
    pub processor: Processor,
    /// Values.
    pub values: Arena<ValueData>,
    /// Instructions.
    pub insts: Arena<InstData>,
    /// The body.
    pub body: Block,
    /// Per-invocation arrays.
    pub arrays: Vec<ArrayDecl>,
    /// Output slots.
    pub outputs: Vec<OutputSlot>,
    /// Immediates (for `ImmIndirect`).
    pub immediates: Vec<[u32; 4]>,
    /// Vertices per input primitive (geometry shaders).
    pub gs_vertices: u32,
    /// IN registers (per vertex for geometry shaders) the host provides: every input read
    /// addresses a register below this.
    pub input_regs: u32,
    /// SV registers the host provides.
    pub sysval_regs: u32,
}

impl Function {
    /// An empty function.
    pub fn new(processor: Processor) -> Function {
        Function {
            processor,
            values: Arena::default(),
            insts: Arena::default(),
            body: Block::default(),
            arrays: Vec::new(),
            outputs: Vec::new(),
            immediates: Vec::new(),
            gs_vertices: 1,
            input_regs: 0,
            sysval_regs: 0,
        }
    }

    /// The type of a value.
    pub fn ty(&self, v: Value) -> Type {
        self.values[v].ty
    }

    /// A new value of type `ty` defined as `def`.
    pub fn new_value(&mut self, ty: Type, def: Def) -> Value {
        self.values.push(ValueData { ty, def })
    }

    /// A new instruction with results of the given types.
    pub fn new_inst(
        &mut self,
        op: Op,
        args: Vec<Value>,
        result_types: &[Type],
        origin: Option<u32>,
    ) -> Inst {
        let inst = self.insts.push(InstData {
            op,
            args,
            results: Vec::new(),
            origin,
        });
        let results = result_types
            .iter()
            .enumerate()
            .map(|(k, &t)| self.new_value(t, Def::Inst(inst, k as u8)))
            .collect();
        self.insts[inst].results = results;
        inst
    }

    /// The constant bits of `v`, if it is a constant.
    pub fn const_value(&self, v: Value) -> Option<u32> {
        match self.values[v].def {
            Def::Inst(i, 0) => match self.insts[i].op {
                Op::Const(c) => Some(c),
                _ => None,
            },
            _ => None,
        }
    }

    /// The instruction defining `v`, if any.
    pub fn def_inst(&self, v: Value) -> Option<Inst> {
        match self.values[v].def {
            Def::Inst(i, _) => Some(i),
            _ => None,
        }
    }

    /// Calls `f` on every instruction reachable from the body, in program order.
    pub fn for_each_inst(&self, mut f: impl FnMut(Inst)) {
        fn walk(b: &Block, f: &mut impl FnMut(Inst)) {
            for s in &b.0 {
                match s {
                    Stmt::Inst(i) => f(*i),
                    Stmt::If(x) => {
                        walk(&x.then_, f);
                        walk(&x.else_, f);
                    }
                    Stmt::Loop(l) => walk(&l.body, f),
                    _ => {}
                }
            }
        }
        walk(&self.body, &mut f);
    }

    /// The input components (register, component) the function may read: what a host must
    /// provide (or interpolate). Indirect reads count their whole clamp range.
    pub fn inputs_read(&self) -> std::collections::BTreeSet<(u32, u8)> {
        let mut out = std::collections::BTreeSet::new();
        self.for_each_inst(|i| match self.insts[i].op {
            Op::Input { reg, comp } => {
                out.insert((reg, comp));
            }
            Op::InputIndirect { lo, hi, comp, .. } | Op::GsInput { lo, hi, comp, .. } => {
                out.extend((lo..=hi).map(|r| (r, comp)));
            }
            _ => {}
        });
        out
    }

    /// Counts the instructions reachable from the body (statements included as one each).
    pub fn count(&self) -> usize {
        fn walk(b: &Block) -> usize {
            b.0.iter()
                .map(|s| match s {
                    Stmt::Inst(_) => 1,
                    Stmt::If(i) => 1 + walk(&i.then_) + walk(&i.else_),
                    Stmt::Loop(l) => 1 + walk(&l.body),
                    _ => 0,
                })
                .sum()
        }
        walk(&self.body)
    }
}

/// The component letter of `c`.
pub fn comp_name(c: u8) -> char {
    Swizzle::from_bits(c as u32).map_or('?', |s| s.name().chars().next().unwrap_or('?'))
}
