//! What the Cranelift back end's files share: a step's registers ([`Vx`], [`Dx`]), the
//! builder's state ([`ClBuilder`], which `builder.rs`, `doubles.rs` and `lanes.rs` extend) and
//! the functions its code calls ([`Callees`], exact mode's helpers by [`NAMESPACE`]).

use crate::back::code::Symbol;
use crate::back::simd::{Callee, ExactFn, Scalar};
use crate::maps::FastMap;
use cranelift_codegen::ir::{self as cl, AbiParam, Value, types};
use cranelift_frontend::FunctionBuilder;

/// Vectors per value at most (32 lanes).
pub(super) const MAX_K: usize = 8;

/// A step's lanes: `k` registers.
#[derive(Clone, Copy)]
pub struct Vx(pub(super) [Value; MAX_K]);

/// A step's lanes as f64: two F64X2 registers per 4-lane register, low pair first.
#[derive(Clone, Copy)]
pub struct Dx(pub(super) [Value; 2 * MAX_K]);

/// The imported functions and signatures the code calls.
pub(super) struct Callees {
    pub lane_op: cl::SigRef,
    pub texture: cl::SigRef,
    pub emit: cl::SigRef,
    /// The memory callback's.
    pub memory: cl::SigRef,
}

impl Callees {
    /// The signatures of the host functions a shader calls, declared in `func`.
    pub fn declare(isa: &dyn cranelift_codegen::isa::TargetIsa, func: &mut cl::Function) -> Self {
        let ptr = isa.pointer_type();
        let sig = |callee: Callee<()>| {
            let mut s = cl::Signature::new(isa.default_call_conv());
            s.params.extend(callee.params().iter().map(|t| {
                cl::AbiParam::new(match t {
                    Scalar::I32 => types::I32,
                    Scalar::F32 => types::F32,
                    Scalar::I64 => types::I64,
                    Scalar::Ptr => ptr,
                })
            }));
            s
        };
        Callees {
            lane_op: func.import_signature(sig(Callee::LaneOp(()))),
            texture: func.import_signature(sig(Callee::Texture(()))),
            emit: func.import_signature(sig(Callee::Emit(()))),
            memory: func.import_signature(sig(Callee::Memory(()))),
        }
    }
}

/// Cranelift's function builder with what the lowering needs.
pub(super) struct ClBuilder<'f> {
    pub b: FunctionBuilder<'f>,
    pub(super) k: usize,
    pub(super) args: Value,
    pub(super) callees: Callees,
    pub(super) consts: FastMap<(cl::Type, [u32; 4]), Value>,
    /// The entry block's final jump, once made: constants go before it.
    pub(super) entry_jump: Option<cl::Inst>,
    /// The addresses of the tables double-precision lookups read, by table (`doubles.rs`).
    pub(super) tables: FastMap<usize, Value>,
    /// Whether this is the function of an exact function itself (`helpers.rs`), which
    /// computes it in place and reads the tables where this process holds them, rather than
    /// a shader's, which calls it.
    pub(super) in_helper: bool,
    /// The exact functions the code calls, once declared.
    pub(super) helper_refs: FastMap<ExactFn, cl::FuncRef>,
}

impl<'f> ClBuilder<'f> {
    /// A builder in `b`'s current block (the entry block, whose parameter is `args`), for
    /// `k` registers per value.
    pub fn new(b: FunctionBuilder<'f>, k: usize, args: Value, callees: Callees) -> Self {
        ClBuilder {
            b,
            k,
            args,
            callees,
            consts: FastMap::default(),
            entry_jump: None,
            tables: FastMap::default(),
            in_helper: false,
            helper_refs: FastMap::default(),
        }
    }

    /// The out-of-line function computing `f` for one register of lanes, declared on first
    /// use: a call through an address the image's relocation gives
    /// ([`Symbol::Exact`](crate::back::code::Symbol)).
    pub(super) fn helper_ref(&mut self, f: ExactFn) -> cl::FuncRef {
        if let Some(&r) = self.helper_refs.get(&f) {
            return r;
        }
        let sig = self.b.import_signature(signature(f));
        let name = self
            .b
            .func
            .declare_imported_user_function(cl::UserExternalName::new(NAMESPACE, f as u32));
        let r = self.b.import_function(cl::ExtFuncData {
            name: cl::ExternalName::user(name),
            signature: sig,
            colocated: false,
            patchable: false,
        });
        self.helper_refs.insert(f, r);
        r
    }
}

/// The namespace of the functions' names in shader code (their index is `ExactFn as u32`).
pub(super) const NAMESPACE: u32 = 1;

/// The signature of `f`'s function: its operands' registers in, its results' out (F32X4).
pub(super) fn signature(f: ExactFn) -> cl::Signature {
    let conv = cranelift_codegen::isa::CallConv::SystemV;
    let mut s = cl::Signature::new(conv);
    s.params
        .extend((0..f.arity()).map(|_| AbiParam::new(types::F32X4)));
    s.returns
        .extend((0..f.results()).map(|_| AbiParam::new(types::F32X4)));
    s
}

/// The function a shader's name refers to: `ExactFn as u32` in [`NAMESPACE`].
pub(super) fn from_name(name: &cl::UserExternalName) -> Option<ExactFn> {
    if name.namespace != NAMESPACE {
        return None;
    }
    ExactFn::ALL.get(name.index as usize).copied()
}

/// The image symbol of exact mode's function `f`.
pub(super) fn symbol_of(f: ExactFn) -> Symbol {
    match f {
        ExactFn::Exp2 => Symbol::ExactExp2,
        ExactFn::Ln => Symbol::ExactLn,
        ExactFn::Pow => Symbol::ExactPow,
        ExactFn::SinCos => Symbol::ExactSinCos,
    }
}

/// The exact mode function a symbol names, if it names one.
pub(super) fn exact_of(s: Symbol) -> Option<ExactFn> {
    ExactFn::ALL.into_iter().find(|&f| symbol_of(f) == s)
}
