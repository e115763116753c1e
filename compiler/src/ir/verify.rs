//! The IR verifier: types, dominance (every use is defined earlier in the same or an enclosing
//! block), and structure (terminators, yields and loop arities).

use super::*;
use crate::maps::FastSet;
use thiserror::Error;

/// A broken invariant.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{message}{}", .inst.map_or(String::new(), |i| format!(" (instruction #{})", i.index())))]
pub struct VerifyError {
    /// What is wrong.
    pub message: String,
    /// The instruction concerned, if any.
    pub inst: Option<Inst>,
}

/// A position in an operation's signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sig {
    /// Exactly this type.
    Is(Type),
    /// A raw 32-bit word: F32 or I32.
    Word,
    /// Any type, the same as the other `Same` positions (select, bitcast-free copies).
    Same,
}

impl Sig {
    fn accepts(self, t: Type, same: Option<Type>) -> bool {
        match self {
            Sig::Is(w) => w == t,
            Sig::Word => matches!(t, Type::F32 | Type::I32),
            Sig::Same => same.is_none_or(|s| s == t),
        }
    }
}

/// Argument and result signatures of an operation with `n` arguments (`None` when the argument
/// count is wrong).
pub fn signature(op: &Op, n: usize) -> Option<(Vec<Sig>, Vec<Sig>)> {
    use Sig::{Is, Same, Word};
    use Type::*;
    use Unary as U;
    let fixed =
        |args: &[Sig], res: &[Sig]| (args.len() == n).then(|| (args.to_vec(), res.to_vec()));
    match op {
        Op::Const(_) => fixed(&[], &[Same]),
        Op::Input { .. } | Op::SysVal { .. } | Op::Uniform { .. } | Op::ClearColor { .. } => {
            fixed(&[], &[Word])
        }
        Op::Helper => fixed(&[], &[Is(Bool)]),
        Op::MaxIterations => fixed(&[], &[Is(I32)]),
        Op::InputIndirect { .. } | Op::ImmIndirect { .. } | Op::ArrayLoad { .. } => {
            fixed(&[Is(I32)], &[Word])
        }
        Op::UniformIndirect { .. } | Op::GsInput { .. } => fixed(&[Is(I32), Is(I32)], &[Word]),
        Op::ArrayStore { .. } => fixed(&[Is(I32), Word], &[]),
        Op::StoreOutput { .. } => fixed(&[Word], &[]),
        Op::Discard | Op::Exhausted => fixed(&[Is(Bool)], &[]),
        Op::Emit => (n >= 1).then(|| (vec![Word; n], vec![])),
        Op::EndPrim => fixed(&[Word], &[]),
        Op::Unary(u) => match u {
            U::F2I | U::F2U | U::FloorToInt => fixed(&[Is(F32)], &[Is(I32)]),
            U::I2F | U::U2F => fixed(&[Is(I32)], &[Is(F32)]),
            U::INeg
            | U::IAbs
            | U::ISign
            | U::Not
            | U::BitRev
            | U::Popcount
            | U::FindLsb
            | U::FindMsbS
            | U::FindMsbU => fixed(&[Is(I32)], &[Is(I32)]),
            U::BNot => fixed(&[Is(Bool)], &[Is(Bool)]),
            U::BoolToInt => fixed(&[Is(Bool)], &[Is(I32)]),
            U::BoolToFloat => fixed(&[Is(Bool)], &[Is(F32)]),
            U::Bitcast => fixed(&[Word], &[Word]),
            _ => fixed(&[Is(F32)], &[Is(F32)]),
        },
        Op::Binary(b) => {
            use Binary as B;
            match b {
                B::FAdd | B::FSub | B::FMul | B::FDiv | B::FMin | B::FMax | B::FPow => {
                    fixed(&[Is(F32), Is(F32)], &[Is(F32)])
                }
                B::Ldexp => fixed(&[Is(F32), Is(I32)], &[Is(F32)]),
                B::BAnd | B::BOr => fixed(&[Is(Bool), Is(Bool)], &[Is(Bool)]),
                _ => fixed(&[Is(I32), Is(I32)], &[Is(I32)]),
            }
        }
        Op::Nary(Nary::Fma) => fixed(&[Is(F32), Is(F32), Is(F32)], &[Is(F32)]),
        Op::Nary(Nary::Ubfe | Nary::Ibfe) => fixed(&[Is(I32), Is(I32), Is(I32)], &[Is(I32)]),
        Op::Nary(Nary::Bfi) => fixed(&[Is(I32), Is(I32), Is(I32), Is(I32)], &[Is(I32)]),
        Op::FCmp(_) => fixed(&[Is(F32), Is(F32)], &[Is(Bool)]),
        Op::ICmp(_) => fixed(&[Is(I32), Is(I32)], &[Is(Bool)]),
        Op::Select => fixed(&[Is(Bool), Same, Same], &[Same]),
        Op::Derivative { .. } => fixed(&[Is(F32)], &[Is(F32)]),
        Op::Texture(_) => Some((vec![Word; n], vec![Word; 4])),
        Op::Memory(m) => {
            let mut args = vec![Is(I32); m.coords()];
            args.extend(std::iter::repeat_n(Word, m.values()));
            if m.indirect {
                args.push(Is(I32));
            }
            fixed(&args, &vec![Word; m.results()])
        }
        Op::Barrier => fixed(&[], &[]),
        Op::Pack(p) => {
            let k = if matches!(p, Pack::Half2x16 | Pack::Unorm2x16) {
                2
            } else {
                4
            };
            fixed(&vec![Is(F32); k], &[Is(I32)])
        }
        Op::Unpack(_) => fixed(&[Is(I32)], &[Is(F32); 4]),
        Op::W64(w) => {
            let (args, res) = signature64(*w);
            let args: Vec<Sig> = args.iter().map(|&t| Is(t)).collect();
            fixed(&args, &[Is(res)])
        }
    }
}

/// Argument and result types of a 64-bit operation.
pub fn signature64(op: Op64) -> (&'static [Type], Type) {
    use Op64 as W;
    use Type::*;
    match op {
        W::Pack => (&[I32, I32], I64),
        W::Lo | W::Hi => (&[I64], I32),
        W::AsF64 => (&[I64], F64),
        W::AsI64 => (&[F64], I64),
        W::DAdd | W::DSub | W::DMul | W::DDiv | W::DMin | W::DMax => (&[F64, F64], F64),
        W::DFma => (&[F64, F64, F64], F64),
        W::DAbs
        | W::DNeg
        | W::DSqrt
        | W::DFloor
        | W::DCeil
        | W::DTrunc
        | W::DRound
        | W::DSign
        | W::DSat01
        | W::DFrexpMant => (&[F64], F64),
        W::DLdexp => (&[F64, I32], F64),
        W::DFrexpExp | W::F64ToI32 | W::F64ToU32 => (&[F64], I32),
        W::DCmp(_) => (&[F64, F64], Bool),
        W::F32ToF64 => (&[F32], F64),
        W::F64ToF32 => (&[F64], F32),
        W::I32ToF64 | W::U32ToF64 => (&[I32], F64),
        W::F64ToI64 | W::F64ToU64 => (&[F64], I64),
        W::I64ToF64 | W::U64ToF64 => (&[I64], F64),
        W::I64ToF32 | W::U64ToF32 => (&[I64], F32),
        W::SExt | W::ZExt => (&[I32], I64),
        W::QAdd
        | W::QMul
        | W::QDivS
        | W::QDivU
        | W::QRemS
        | W::QRemU
        | W::QMinS
        | W::QMaxS
        | W::QMinU
        | W::QMaxU => (&[I64, I64], I64),
        W::QShl | W::QShrS | W::QShrU => (&[I64, I32], I64),
        W::QNeg | W::QAbs | W::QSign => (&[I64], I64),
        W::QCmp(_) => (&[I64, I64], Bool),
    }
}

struct Verifier<'a> {
    f: &'a Function,
    defined: FastSet<Value>,
    errors: Vec<VerifyError>,
    loops: Vec<(Vec<Type>, Vec<Type>)>,
}

impl Verifier<'_> {
    fn err(&mut self, message: String, inst: Option<Inst>) {
        self.errors.push(VerifyError { message, inst });
    }

    fn use_value(&mut self, v: Value, what: &str, inst: Option<Inst>) {
        if v.index() >= self.f.values.len() {
            self.err(
                format!("{what} uses %{} which does not exist", v.index()),
                inst,
            );
        } else if !self.defined.contains(&v) {
            self.err(
                format!(
                    "{what} uses %{} before it is defined (or outside its region)",
                    v.index()
                ),
                inst,
            );
        }
    }

    fn define(&mut self, v: Value, inst: Option<Inst>) {
        if !self.defined.insert(v) {
            self.err(format!("%{} is defined twice", v.index()), inst);
        }
    }

    fn check_types(&mut self, what: &str, vs: &[Value], want: &[Type]) {
        if vs.len() != want.len() {
            self.err(
                format!("{what} passes {} values, {} expected", vs.len(), want.len()),
                None,
            );
            return;
        }
        for (v, t) in vs.iter().zip(want) {
            if v.index() < self.f.values.len() && self.f.ty(*v) != *t {
                self.err(
                    format!(
                        "{what}: %{} is {:?}, {:?} expected",
                        v.index(),
                        self.f.ty(*v),
                        t
                    ),
                    None,
                );
            }
        }
    }

    fn inst(&mut self, i: Inst) {
        let d = &self.f.insts[i];
        for &a in &d.args {
            self.use_value(a, "an instruction", Some(i));
        }
        match signature(&d.op, d.args.len()) {
            None => self.err(
                format!(
                    "{} does not take {} arguments",
                    super::print::op_name(&d.op),
                    d.args.len()
                ),
                Some(i),
            ),
            Some((args, results)) => {
                let mut same = None;
                for (k, (&a, &t)) in d.args.iter().zip(args.iter()).enumerate() {
                    if a.index() >= self.f.values.len() {
                        continue;
                    }
                    let have = self.f.ty(a);
                    if !t.accepts(have, same) {
                        self.err(
                            format!(
                                "argument {k} of {} is {have:?}, {t:?} expected",
                                super::print::op_name(&d.op)
                            ),
                            Some(i),
                        );
                    }
                    if t == Sig::Same {
                        same.get_or_insert(have);
                    }
                }
                if d.results.len() != results.len() {
                    self.err(
                        format!(
                            "{} has {} results, {} expected",
                            super::print::op_name(&d.op),
                            d.results.len(),
                            results.len()
                        ),
                        Some(i),
                    );
                }
                for (&r, &t) in d.results.iter().zip(results.iter()) {
                    let have = self.f.ty(r);
                    if !t.accepts(have, same) {
                        self.err(
                            format!(
                                "{} results {have:?}, {t:?} expected",
                                super::print::op_name(&d.op)
                            ),
                            Some(i),
                        );
                    }
                }
                if let Op::Const(c) = d.op
                    && d.results
                        .first()
                        .is_some_and(|&r| self.f.ty(r) == Type::Bool)
                    && c > 1
                {
                    self.err("a bool constant is 0 or 1".into(), Some(i));
                }
            }
        }
        for &r in &d.results {
            match self.f.values[r].def {
                Def::Inst(di, _) if di == i => {}
                _ => self.err(
                    format!("%{} is listed as a result but defined elsewhere", r.index()),
                    Some(i),
                ),
            }
            self.define(r, Some(i));
        }
    }

    /// Checks a block; `yields` are the result types of the enclosing `If`, if the block is a
    /// branch.
    fn block(&mut self, b: &Block, yields: Option<&[Type]>) {
        let saved = self.defined.clone();
        let n = b.0.len();
        for (k, s) in b.0.iter().enumerate() {
            let last = k + 1 == n;
            if s.is_terminator() && !last {
                self.err(
                    "a terminator (yield, break, continue) is not the last statement of its block"
                        .into(),
                    None,
                );
            }
            match s {
                Stmt::Inst(i) => self.inst(*i),
                Stmt::If(x) => {
                    self.use_value(x.cond, "an if", None);
                    if self.f.ty(x.cond) != Type::Bool {
                        self.err(
                            format!("an if condition %{} is not bool", x.cond.index()),
                            None,
                        );
                    }
                    let tys: Vec<Type> = x.results.iter().map(|&r| self.f.ty(r)).collect();
                    self.block(&x.then_, Some(&tys));
                    self.block(&x.else_, Some(&tys));
                    for &r in &x.results {
                        if self.f.values[r].def != Def::IfResult {
                            self.err(
                                format!("%{} is an if result but not defined as one", r.index()),
                                None,
                            );
                        }
                        self.define(r, None);
                    }
                }
                Stmt::Loop(l) => {
                    for &v in &l.inits {
                        self.use_value(v, "a loop's initial value", None);
                    }
                    let ptys: Vec<Type> = l.params.iter().map(|&p| self.f.ty(p)).collect();
                    self.check_types("a loop's initial values", &l.inits, &ptys);
                    let saved_loop = self.defined.clone();
                    for &p in &l.params {
                        if self.f.values[p].def != Def::Param {
                            self.err(
                                format!(
                                    "%{} is a loop parameter but not defined as one",
                                    p.index()
                                ),
                                None,
                            );
                        }
                        self.define(p, None);
                    }
                    let rtys: Vec<Type> = l.results.iter().map(|&r| self.f.ty(r)).collect();
                    self.loops.push((ptys, rtys));
                    self.block(&l.body, None);
                    self.loops.pop();
                    if !l
                        .body
                        .0
                        .last()
                        .is_some_and(|s| matches!(s, Stmt::Continue(_) | Stmt::Break(_)))
                    {
                        self.err(
                            "a loop body does not end with continue or break".into(),
                            None,
                        );
                    }
                    self.defined = saved_loop;
                    for &r in &l.results {
                        if self.f.values[r].def != Def::LoopResult {
                            self.err(
                                format!("%{} is a loop result but not defined as one", r.index()),
                                None,
                            );
                        }
                        self.define(r, None);
                    }
                }
                Stmt::Break(v) | Stmt::Continue(v) => {
                    for &x in v {
                        self.use_value(x, "a break or continue", None);
                    }
                    let Some((p, r)) = self.loops.last().cloned() else {
                        self.err("break or continue outside a loop".into(), None);
                        continue;
                    };
                    if matches!(s, Stmt::Break(_)) {
                        self.check_types("a break", v, &r);
                    } else {
                        self.check_types("a continue", v, &p);
                    }
                }
                Stmt::Yield(v) => {
                    for &x in v {
                        self.use_value(x, "a yield", None);
                    }
                    match yields {
                        Some(t) => self.check_types("a yield", v, t),
                        None => self.err("yield outside an if branch".into(), None),
                    }
                }
            }
        }
        if yields.is_some() && !b.0.last().is_some_and(Stmt::is_terminator) {
            self.err(
                "an if branch does not end with yield, break or continue".into(),
                None,
            );
        }
        self.defined = saved;
    }
}

/// Verifies `f`.
///
/// # Errors
/// Every broken invariant found.
pub fn verify(f: &Function) -> Result<(), Vec<VerifyError>> {
    let mut v = Verifier {
        f,
        defined: FastSet::default(),
        errors: Vec::new(),
        loops: Vec::new(),
    };
    v.block(&f.body, None);
    if f.body.0.last().is_some_and(Stmt::is_terminator) {
        v.err("the function body ends with a terminator".into(), None);
    }
    if v.errors.is_empty() {
        Ok(())
    } else {
        Err(v.errors)
    }
}
