//! What the checks share: the back end under test, one-function shaders, and running
//! compiled code over a batch without the runtime.

use crate::back::abi::*;
use crate::back::compiled::CompiledShader;
use crate::ir::{Function, Op, OutputSlot, Stmt, Type, Unary};
use crate::tgsi::Processor;
use std::ffi::c_void;

/// A back end under test: compiles a function with the given math mode.
pub type Compiler<'a> = &'a dyn Fn(&Function, MathMode) -> Result<CompiledShader, JitError>;

unsafe extern "C" fn no_texture(
    _: *mut c_void,
    _: u32,
    _: *const u32,
    _: *mut u32,
    _: u64,
    _: u32,
    _: u32,
) {
}
unsafe extern "C" fn no_emit(
    _: *mut c_void,
    _: u32,
    _: *const u32,
    _: u32,
    _: u64,
    _: u32,
    _: u32,
) {
}

/// Runs a compiled function with one input and one output register over `xs` (component x),
/// returning component x of the output.
pub fn run_inputs(shader: &CompiledShader, xs: &[u32]) -> Vec<u32> {
    let mut out = Vec::new();
    for chunk in xs.chunks(BATCH_LANES) {
        let mut inputs = vec![0u32; 4 * BATCH_LANES];
        inputs[..chunk.len()].copy_from_slice(chunk);
        let alive = if chunk.len() == 64 {
            u64::MAX
        } else {
            (1u64 << chunk.len()) - 1
        };
        out.extend_from_slice(&run_batch(shader, &inputs, alive)[..chunk.len()]);
    }
    out
}

/// `OUT[0].x = op(IN[0].x)`.
pub fn unary_function(u: Unary) -> Function {
    let mut f = Function::new(Processor::Vertex);
    f.input_regs = 1;
    f.outputs = vec![OutputSlot {
        reg: 0,
        semantic: None,
    }];
    let x = f.new_inst(Op::Input { reg: 0, comp: 0 }, vec![], &[Type::F32], None);
    let xv = f.insts[x].results[0];
    let y = f.new_inst(Op::Unary(u), vec![xv], &[Type::F32], None);
    let yv = f.insts[y].results[0];
    let s = f.new_inst(Op::StoreOutput { slot: 0, comp: 0 }, vec![yv], &[], None);
    f.body.0 = vec![Stmt::Inst(x), Stmt::Inst(y), Stmt::Inst(s)];
    f
}

/// `a = first(IN[0].x); b = second(IN[0].x); OUT[0].x = out ? b : a`: SIN and COS of one
/// value, which the SIMD lowering computes together.
pub fn pair_function(first: Unary, second: Unary, out: bool) -> Function {
    let mut f = unary_function(first);
    let (Stmt::Inst(xi), Stmt::Inst(ai)) = (f.body.0[0].clone(), f.body.0[1].clone()) else {
        unreachable!("unary_function's body is three instructions")
    };
    let xv = f.insts[xi].results[0];
    let b = f.new_inst(Op::Unary(second), vec![xv], &[Type::F32], None);
    let y = if out { b } else { ai };
    let yv = f.insts[y].results[0];
    let s = f.new_inst(Op::StoreOutput { slot: 0, comp: 0 }, vec![yv], &[], None);
    f.body.0 = vec![Stmt::Inst(xi), Stmt::Inst(ai), Stmt::Inst(b), Stmt::Inst(s)];
    f
}

/// `OUT[0] = 1 + 1 + ...` in a loop without an exit: a small loop that stops at its budget.
pub fn endless_loop_function() -> Function {
    crate::opt::optimized_text(
        "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL TEMP[0]\nIMM[0] FLT32 {0.0, 10.0, 14.0, 1.0}\n\
         BGNLOOP\nADD TEMP[0].x, TEMP[0].xxxx, IMM[0].wwww\nENDLOOP\nMOV OUT[0], TEMP[0].xxxx\nEND\n",
    )
}

/// Builds `OUT[0].x = result` from straight-line code: `body` appends instructions through
/// `emit(op, args, result type)` (which returns the result) and returns the value to store.
pub(super) fn straight_line(
    body: impl FnOnce(
        &mut dyn FnMut(Op, Vec<crate::ir::Value>, Type) -> crate::ir::Value,
    ) -> crate::ir::Value,
) -> Function {
    let mut f = Function::new(Processor::Vertex);
    f.input_regs = 1;
    f.outputs = vec![OutputSlot {
        reg: 0,
        semantic: None,
    }];
    let mut stmts = Vec::new();
    let mut emit = |op: Op, args: Vec<crate::ir::Value>, ty: Type| {
        let i = f.new_inst(op, args, &[ty], None);
        stmts.push(Stmt::Inst(i));
        f.insts[i].results[0]
    };
    let mut r = body(&mut emit);
    if f.ty(r) == Type::Bool {
        let i = f.new_inst(Op::Unary(Unary::BoolToInt), vec![r], &[Type::I32], None);
        stmts.push(Stmt::Inst(i));
        r = f.insts[i].results[0];
    }
    let s = f.new_inst(Op::StoreOutput { slot: 0, comp: 0 }, vec![r], &[], None);
    stmts.push(Stmt::Inst(s));
    f.body.0 = stmts;
    f
}

/// A batch's inputs (`IN[0]`, four components of [`BATCH_LANES`] words) whose x component
/// repeats `words` lane after lane; the other components are 0.
pub(super) fn lanes_of(words: &[u32]) -> Vec<u32> {
    let mut inputs = vec![0u32; 4 * BATCH_LANES];
    for (l, x) in inputs[..BATCH_LANES].iter_mut().enumerate() {
        *x = words[l % words.len()];
    }
    inputs
}

/// Runs one batch with the given input register (4 components × 64 lanes) on the lanes of
/// `alive`; returns OUT[0].x.
pub(super) fn run_batch(shader: &CompiledShader, inputs: &[u32], alive: u64) -> Vec<u32> {
    let zeros = [0u32; 16];
    let empty = ConstBuffer {
        ptr: zeros.as_ptr(),
        len: 0,
    };
    let mut outputs = vec![0u32; 4 * BATCH_LANES];
    let mut arrays = vec![0u32; shader.array_words];
    let mut args = JitArgs {
        inputs: inputs.as_ptr(),
        inputs_x: inputs.as_ptr(),
        inputs_x_stride: 4 * BATCH_LANES as u64,
        sv: zeros.as_ptr(),
        outputs: outputs.as_mut_ptr(),
        arrays: arrays.as_mut_ptr(),
        uniforms: zeros.as_ptr(),
        constants: &empty,
        num_constants: 0,
        immediates: shader.immediates.as_ptr(),
        zeros: zeros.as_ptr(),
        alive,
        helpers: 0,
        killed: 0,
        exhausted: 0,
        max_iterations: 65536,
        inputs_per_vertex: 1,
        clear: [0; 4],
        callbacks: std::ptr::null_mut(),
        texture: no_texture,
        emit: no_emit,
        memory: no_texture,
        lane_op: crate::back::lane_ops::tgsic_lanes_op_entered,
        tex_descs: std::ptr::null(),
        mem_descs: std::ptr::null(),
    };
    // SAFETY: one input and one output register, as the test functions use.
    unsafe { shader.call(&mut args) }.expect("the code runs");
    outputs[..BATCH_LANES].to_vec()
}
