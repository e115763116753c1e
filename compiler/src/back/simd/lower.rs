//! The lowering's state: one function lowered through a builder ([`Lower`]), which
//! `mod.rs` (statements and control flow) and `ops.rs`, `mem.rs`, `hoist.rs` and `texture/`
//! (operations, memory, the uniform prologue, sampling) extend.

use super::builder::SimdBuilder;
use super::denormals;
use crate::back::abi::TextureCall;
use crate::back::nan::Class;
use crate::back::texpath::TexPaths;
use crate::ir;
use crate::maps::{FastMap, FastSet};

/// Pointers and scalars read from [`JitArgs`](crate::back::abi::JitArgs) once per call, and the step's first lane.
pub(super) struct Ptrs<S> {
    pub(super) inputs: S,
    /// [`JitArgs::inputs_x`] and its stride in words.
    pub(super) inputs_x: S,
    pub(super) inputs_x_stride: S,
    pub(super) sv: S,
    pub(super) outputs: S,
    pub(super) arrays: S,
    pub(super) uniforms: S,
    pub(super) constants: S,
    pub(super) num_constants: S,
    pub(super) immediates: S,
    pub(super) zeros: S,
    pub(super) callbacks: S,
    pub(super) texture: S,
    pub(super) emit: S,
    pub(super) memory: S,
    pub(super) lane_op: S,
    pub(super) tex_descs: S,
    /// [`JitArgs::mem_descs`](crate::back::abi::JitArgs::mem_descs).
    pub(super) mem_descs: S,
    pub(super) scratch: S,
    /// The step's first lane (I64).
    pub(super) lane0: S,
}

pub(super) struct IfFrame<Var> {
    /// The `If`'s result values and their variables.
    pub(super) values: Vec<ir::Value>,
    pub(super) results: Vec<Var>,
    /// Divergent `If`: the else branch blends into what the then branch yielded.
    pub(super) divergent: bool,
    pub(super) in_else: bool,
    /// The result pairs carried as 64-bit values (`wide::wide_pairs`): the first one's index
    /// and the variable of the value.
    pub(super) wide: Vec<(usize, Var)>,
}

pub(super) struct LoopFrame<Var> {
    pub(super) param_values: Vec<ir::Value>,
    pub(super) result_values: Vec<ir::Value>,
    pub(super) next: Vec<Var>,
    pub(super) results: Vec<Var>,
    pub(super) cont: Var,
    pub(super) brk: Var,
    /// The body's one `continue` is its last statement, outside any `If`: every lane still in
    /// the loop reaches it, so it assigns the next values without blending
    /// ([`ir::LoopStmt::sole_final_continue`]).
    pub(super) sole_continue: bool,
    /// The parameter pairs carried as 64-bit values (`wide::wide_pairs`): the first one's
    /// index and the variable of the next iteration's 64-bit value.
    pub(super) wide: Vec<(usize, Var)>,
    /// The result pairs carried so: the first one's index and the variable of the value.
    pub(super) wide_results: Vec<(usize, Var)>,
}

/// The lowering of one function through a builder.
pub(super) struct Lower<'a, B: SimdBuilder> {
    pub(super) f: &'a ir::Function,
    pub(super) b: B,
    pub(super) arith: Vec<Class>,
    /// Values never denormal, values only known at run time ([`denormals::Flushed`]).
    pub(super) flushed: denormals::Flushed,
    pub(super) uniform: ir::uniform::Uniformity,
    pub(super) vals: Vec<Option<B::V>>,
    /// The 64-bit values (`f64`, `i64`) in 64-bit lanes ([`SimdBuilder::has_wide`]).
    pub(super) dvals: Vec<Option<B::D>>,
    /// Per value, whether a double's NaN bits can be seen (`wide::nan_bits_seen`).
    pub(super) nan_seen64: Vec<bool>,
    /// The word pairs carried as 64-bit values (`wide::wide_pairs`).
    pub(super) wide_pairs: FastSet<(ir::Value, ir::Value)>,
    /// The 64-bit values of the carried pairs lowered so far, by their words: a `pack` of them
    /// is the value.
    pub(super) wide_words: FastMap<(ir::Value, ir::Value), B::D>,
    pub(super) vars: FastMap<ir::Value, B::Var>,
    pub(super) exec: B::Var,
    pub(super) ifs: Vec<IfFrame<B::Var>>,
    pub(super) loops: Vec<LoopFrame<B::Var>>,
    pub(super) p: Ptrs<B::S>,
    pub(super) uniforms: Vec<(u32, u32, u8)>,
    pub(super) uniform_slots: FastMap<(u32, u32, u8), u32>,
    pub(super) textures: Vec<TextureCall>,
    /// The memory operations, by callback index.
    pub(super) memory: Vec<ir::MemAccess>,
    /// Which texture operations to sample in the code (asked), and which are (done).
    pub(super) tex_paths: TexPaths,
    pub(super) tex_done: TexPaths,
    /// Per descriptor group ([`desc_group`](crate::back::texpath::desc_group)) and path: the first
    /// operation sampled with them, whose descriptor every later one reads too (the runtime
    /// writes the same descriptor for all: it follows from these alone), so that a step loads
    /// each once.
    pub(super) tex_descs: FastMap<
        (
            crate::back::texpath::DescGroup,
            crate::back::texpath::TexPath,
        ),
        usize,
    >,
    /// What each descriptor's lookups derive from it (`texture::DescVals`), by descriptor and
    /// whether they read its depth, in scopes that follow the structured control flow: a value made before an `If` or a loop
    /// serves inside it; one made inside is dropped when it ends (it would not dominate).
    pub(super) desc_vals: Vec<FastMap<(usize, bool), super::texture::vals::DescVals<B>>>,
    /// Word offset of each array in the arrays buffer.
    pub(super) array_base: Vec<u64>,
    /// The word after every array: where dropped stores may go.
    pub(super) trash: u64,
    /// By OUT component: whether the code has stored it yet (in program order), and whether
    /// its first store wrote every lane ([`Self::store_output`]).
    pub(super) stores: Vec<Option<bool>>,
    /// SIN and COS of one value computed together ([`ops::sincos_pairs`]): by the first
    /// instruction of a pair, the second; by the second, its result once the first made it.
    pub(super) sincos_pairs: FastMap<ir::Inst, ir::Inst>,
    pub(super) sincos_ready: FastMap<ir::Inst, B::V>,
    /// The instructions inside statements of the steps that [`Self::hoist`] lowered before
    /// them: the steps skip them.
    pub(super) prehoisted: FastSet<ir::Inst>,
    /// SIN and COS as accurate math computes them (`accurate::sincos_accurate`), not exactly.
    pub(super) accurate_sincos: bool,
}
