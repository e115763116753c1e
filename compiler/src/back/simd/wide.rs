//! The IR's 64-bit operations (`Op::W64`) in 64-bit lanes ([`SimdBuilder::has_wide`]): the
//! interpreter's semantics (`ir::semantics::op64`). Double arithmetic runs under the
//! MXCSR's DAZ and FTZ in draws (as softpipe's), its NaN results made canonical where they
//! are made; what LLVM may fold as IEEE does (a constant operand) is flushed first; the
//! conversions keep their operands in range; integer division never sees a zero divisor.

use super::builder::{FUn, IBin, Kind, QBin, R, Shift, SimdBuilder};
use super::lower::Lower;
use crate::back::abi::Invariant;
use crate::ir::{self, Def, FCmp, ICmp, Op, Op64, Stmt};
use crate::maps::FastSet;
use crate::numerics::wide::CANONICAL_NAN64;

/// 2⁶³ as a double.
const P63: f64 = (1u64 << 63) as f64;
const SIGN: u64 = 1 << 63;

/// Per value, whether its NaN bits can be seen: a value some operation looks at the bits of
/// (integer operations, stores, a `pack` of the words of two doubles), or whose bits reach
/// such an operation through bit moves (`asi64`, `lo`, `hi`, DNEG, DABS, `select`, a `pack`
/// of both words of one double, loop and `If` edges). A double carried round a loop in its
/// registers and read only as a double again is not: a NaN's payload reaches only operations
/// that make their own NaNs canonical or do not look at it (arithmetic, comparisons,
/// conversions, saturation), so arithmetic makes its NaNs canonical only where seen.
pub(super) fn nan_bits_seen(f: &ir::Function, merges: &[Merge]) -> Vec<bool> {
    let n = f.values.len();
    // Both words of one double, low first.
    let same_double = |a: ir::Value, b: ir::Value| match (word_of(f, a), word_of(f, b)) {
        (Some((x, false)), Some((y, true))) => x == y,
        _ => false,
    };
    // Merged pairs that carry both words of one double on every edge.
    let paired = carried_pairs(f, merges, |_, _| true);
    // `edges[y]`: the values whose bits `y`'s bits show (seen[x] follows seen[y]); `roots`:
    // the values an operation looks at the bits of.
    let mut edges: Vec<Vec<ir::Value>> = vec![Vec::new(); n];
    let mut roots: Vec<ir::Value> = Vec::new();
    for m in merges {
        for e in &m.edges {
            for (&from, &to) in e.iter().zip(&m.targets) {
                edges[to.index()].push(from);
            }
        }
    }
    f.for_each_inst(|i| {
        let d = &f.insts[i];
        let r = d.results.first().copied();
        match (&d.op, r) {
            // Bit moves: the operand shows through the result. DNEG and DABS too: they flip
            // a NaN's sign and keep its payload, so a NaN they make shows the operand's bits,
            // and an operand made canonical where their result is seen gives the
            // interpreter's (a canonical NaN, its sign flipped).
            (
                Op::W64(Op64::AsI64 | Op64::AsF64 | Op64::Lo | Op64::Hi | Op64::DNeg | Op64::DAbs),
                Some(r),
            ) => {
                edges[r.index()].push(d.args[0]);
            }
            (Op::Select, Some(r)) => {
                edges[r.index()].extend([d.args[1], d.args[2]]);
            }
            (Op::W64(Op64::Pack), Some(r)) => {
                let (a, b) = (d.args[0], d.args[1]);
                if same_double(a, b) || paired.contains(&(a, b)) {
                    edges[r.index()].extend([a, b]);
                } else {
                    // Words of different doubles make a new value of both: every bit counts.
                    roots.extend([a, b]);
                }
            }
            // DLDEXP's exponent is an integer: every bit counts (a word of a NaN made by
            // arithmetic is the canonical NaN's, 0 or 0x7ff80000, in the interpreter).
            (Op::W64(Op64::DLdexp), _) => roots.push(d.args[1]),
            // Double operations that make their own NaNs canonical (where seen) or do not look
            // at a NaN's payload.
            (
                Op::W64(
                    Op64::DAdd
                    | Op64::DSub
                    | Op64::DMul
                    | Op64::DDiv
                    | Op64::DMin
                    | Op64::DMax
                    | Op64::DFma
                    | Op64::DSqrt
                    | Op64::DFloor
                    | Op64::DCeil
                    | Op64::DTrunc
                    | Op64::DRound
                    | Op64::DSign
                    | Op64::DSat01
                    | Op64::DFrexpMant
                    | Op64::DFrexpExp
                    | Op64::DCmp(_)
                    | Op64::F64ToF32
                    | Op64::F64ToI32
                    | Op64::F64ToU32
                    | Op64::F64ToI64
                    | Op64::F64ToU64,
                ),
                _,
            ) => {}
            // Everything else looks at its operands' bits.
            _ => roots.extend(d.args.iter().copied()),
        }
    });
    let mut seen = vec![false; n];
    let mut work = roots;
    while let Some(v) = work.pop() {
        if seen[v.index()] {
            continue;
        }
        seen[v.index()] = true;
        work.extend(edges[v.index()].iter().copied());
    }
    seen
}

/// The 64-bit value `v` is a word of, and whether the high one (`v` is `lo` or `hi` of it).
fn word_of(f: &ir::Function, v: ir::Value) -> Option<(ir::Value, bool)> {
    let i = f.def_inst(v)?;
    match f.insts[i].op {
        Op::W64(Op64::Lo) => Some((f.insts[i].args[0], false)),
        Op::W64(Op64::Hi) => Some((f.insts[i].args[0], true)),
        _ => None,
    }
}

/// A merge of values: a loop's parameters, a loop's results or an `If`'s results, and the
/// values each edge into it passes (a loop's initial values and `continue`s, its `break`s, the
/// `If`'s yields).
pub(super) struct Merge {
    targets: Vec<ir::Value>,
    edges: Vec<Vec<ir::Value>>,
    /// A loop's parameters or results (not an `If`'s).
    of_loop: bool,
}

/// Every merge of `f`.
pub(super) fn merges(f: &ir::Function) -> Vec<Merge> {
    #[derive(Default)]
    struct Walk {
        merges: Vec<Merge>,
        // The open loops (their parameter and result merges) and `If`s, innermost last.
        loops: Vec<(usize, usize)>,
        ifs: Vec<usize>,
    }
    fn open(w: &mut Walk, targets: &[ir::Value], edges: Vec<Vec<ir::Value>>, of_loop: bool) {
        w.merges.push(Merge {
            targets: targets.to_vec(),
            edges,
            of_loop,
        });
    }
    fn walk(b: &ir::Block, w: &mut Walk) {
        for st in &b.0 {
            match st {
                Stmt::Inst(_) => {}
                Stmt::If(x) => {
                    open(w, &x.results, Vec::new(), false);
                    w.ifs.push(w.merges.len() - 1);
                    walk(&x.then_, w);
                    walk(&x.else_, w);
                    w.ifs.pop();
                }
                Stmt::Loop(l) => {
                    open(w, &l.params, vec![l.inits.clone()], true);
                    open(w, &l.results, Vec::new(), true);
                    w.loops.push((w.merges.len() - 2, w.merges.len() - 1));
                    // A yield inside the body belongs to an `If` inside it.
                    let outer = std::mem::take(&mut w.ifs);
                    walk(&l.body, w);
                    w.ifs = outer;
                    w.loops.pop();
                }
                Stmt::Continue(vs) | Stmt::Break(vs) => {
                    if let Some(&(params, results)) = w.loops.last() {
                        let k = if matches!(st, Stmt::Continue(_)) {
                            params
                        } else {
                            results
                        };
                        w.merges[k].edges.push(vs.clone());
                    }
                }
                Stmt::Yield(vs) => {
                    if let Some(&k) = w.ifs.last() {
                        w.merges[k].edges.push(vs.clone());
                    }
                }
            }
        }
    }
    let mut w = Walk::default();
    walk(&f.body, &mut w);
    w.merges
}

/// The neighbouring targets `(first, second)` of merges, among those `candidate` accepts,
/// that receive the low and the high word of one 64-bit value on every edge: `lo` and `hi`
/// of one value, or a pair of the set itself (a fixpoint, optimistic: every candidate until an
/// edge shows otherwise; of two overlapping pairs the first).
fn carried_pairs(
    f: &ir::Function,
    merges: &[Merge],
    candidate: impl Fn(&Merge, ir::Value) -> bool,
) -> FastSet<(ir::Value, ir::Value)> {
    let mut set: FastSet<(ir::Value, ir::Value)> = FastSet::default();
    for m in merges {
        for t in m.targets.windows(2) {
            if candidate(m, t[0]) && candidate(m, t[1]) {
                set.insert((t[0], t[1]));
            }
        }
    }
    loop {
        let mut drop = Vec::new();
        for m in merges {
            for (j, t) in m.targets.windows(2).enumerate() {
                let carried = m.edges.iter().all(|e| {
                    e.len() > j + 1 && {
                        let (a, b) = (e[j], e[j + 1]);
                        set.contains(&(a, b))
                            || matches!((word_of(f, a), word_of(f, b)),
                                (Some((x, false)), Some((y, true))) if x == y)
                    }
                });
                if !carried && set.contains(&(t[0], t[1])) {
                    drop.push((t[0], t[1]));
                }
            }
        }
        if drop.is_empty() {
            for m in merges {
                let t = &m.targets;
                let mut j = 0;
                while j + 2 < t.len() {
                    if set.contains(&(t[j], t[j + 1])) {
                        if set.contains(&(t[j + 1], t[j + 2])) {
                            drop.push((t[j + 1], t[j + 2]));
                        }
                        j += 2;
                    } else {
                        j += 1;
                    }
                }
            }
        }
        if drop.is_empty() {
            return set;
        }
        for p in drop {
            set.remove(&p);
        }
    }
}

/// The word pairs of `f` the SIMD code carries as 64-bit values (`(first, second)` of each):
/// the [`carried_pairs`] of its merges that are exact 32-bit words, and not uniform where they
/// are a loop's (its merges keep every lane equal, `Lower::leave`). A loop or `If` keeps such
/// a pair in a variable of 64-bit lanes instead of two word vectors, so that doubles going
/// round a loop, out of it or out of an `If` are neither split into words nor packed again;
/// the words are made where the merge is (the target drops those nothing reads).
pub(super) fn wide_pairs(
    f: &ir::Function,
    merges: &[Merge],
    uniform: &ir::uniform::Uniformity,
    arith: &[crate::back::nan::Class],
) -> FastSet<(ir::Value, ir::Value)> {
    carried_pairs(f, merges, |m, v| {
        f.ty(v) == ir::Type::I32
            && arith[v.index()] == crate::back::nan::Class::Exact
            && !(m.of_loop && uniform.is_uniform(v))
    })
}

impl<B: SimdBuilder> Lower<'_, B> {
    /// The indices `j` of the pairs `(values[j], values[j + 1])` carried as 64-bit values
    /// ([`wide_pairs`]).
    pub(super) fn wide_at(&self, values: &[ir::Value]) -> Vec<usize> {
        (0..values.len().saturating_sub(1))
            .filter(|&j| self.wide_pairs.contains(&(values[j], values[j + 1])))
            .collect()
    }

    /// The 64-bit value whose low and high words are `a` and `b`: `lo` and `hi` of one value,
    /// or a pair carried as a 64-bit value ([`wide_pairs`]) in scope.
    pub(super) fn words64(&self, a: ir::Value, b: ir::Value) -> R<B::D> {
        if let Some(&d) = self.wide_words.get(&(a, b)) {
            return Ok(d);
        }
        match (word_of(self.f, a), word_of(self.f, b)) {
            (Some((x, false)), Some((y, true))) if x == y => self.get64(x),
            _ => Err(
                Invariant::UseBeforeDef(format!("{a:?}, {b:?} (words of a 64-bit value)")).into(),
            ),
        }
    }

    /// Defines the word variables `vars[j]`, `vars[j + 1]` of a pair carried as the 64-bit
    /// value `d`, which a `pack` of `values[j]`, `values[j + 1]` is from now on.
    pub(super) fn def_words(
        &mut self,
        vars: &[B::Var],
        values: &[ir::Value],
        j: usize,
        d: B::D,
    ) -> R<()> {
        for (k, hi) in [(j, false), (j + 1, true)] {
            let w = self.b.q_word(d, hi)?;
            self.b.def_vector(vars[k], w)?;
        }
        self.wide_words.insert((values[j], values[j + 1]), d);
        Ok(())
    }

    /// `x`, the result `r` of double arithmetic, with a NaN made canonical where its bits can
    /// be seen ([`nan_bits_seen`]).
    fn canon_result(&mut self, r: ir::Value, x: B::D) -> R<B::D> {
        if self.nan_seen64[r.index()] {
            self.canon64(x)
        } else {
            Ok(x)
        }
    }

    pub(super) fn get64(&self, v: ir::Value) -> R<B::D> {
        self.dvals[v.index()]
            .ok_or_else(|| Invariant::UseBeforeDef(format!("{v:?} (64-bit)")).into())
    }

    fn set64(&mut self, v: ir::Value, x: B::D) {
        self.dvals[v.index()] = Some(x);
    }

    fn dconst(&mut self, x: f64) -> R<B::D> {
        self.b.q_const(x.to_bits())
    }

    /// Whether `v`'s value is made of constants alone (LLVM folds it as IEEE does, ignoring
    /// the draws' flush-to-zero).
    fn const_made(&self, v: ir::Value, depth: u32) -> bool {
        match self.f.values[v].def {
            Def::Inst(i, _) => {
                let d = &self.f.insts[i];
                match &d.op {
                    Op::Const(_) => true,
                    Op::W64(_) | Op::Unary(_) | Op::Binary(_) | Op::Select if depth > 0 => {
                        d.args.iter().all(|&a| self.const_made(a, depth - 1))
                    }
                    Op::W64(_) | Op::Unary(_) | Op::Binary(_) | Op::Select => true,
                    _ => false,
                }
            }
            _ => false,
        }
    }

    /// A denormal flushed to a zero of its sign (in software, so that folding keeps it).
    fn flush64(&mut self, x: B::D) -> R<B::D> {
        let a = self.b.d_un(FUn::Abs, x)?;
        let min = self.dconst(f64::MIN_POSITIVE)?;
        let tiny = self.b.d_cmp(FCmp::Lt, a, min)?;
        let sign = self.b.q_const(SIGN)?;
        let z = self.b.q_bin(QBin::And, x, sign)?;
        self.b.d_select(tiny, z, x)
    }

    /// A double operand of arithmetic: flushed in draws where LLVM may fold it as IEEE does.
    fn d_operand(&mut self, v: ir::Value) -> R<B::D> {
        self.d_operand_with(v, false)
    }

    /// [`Self::d_operand`], flushed also when `beside_constant`: an operand beside a constant
    /// one, which LLVM may fold away with it (`x · 1`, `x / 1`, `x + −0`, `x − 0`), leaving the
    /// operand's own bits where the CPU would have flushed them.
    fn d_operand_with(&mut self, v: ir::Value, beside_constant: bool) -> R<B::D> {
        let x = self.get64(v)?;
        let draws = self.f.processor != crate::tgsi::Processor::Compute;
        if draws && (beside_constant || self.const_made(v, 6)) {
            self.flush64(x)
        } else {
            Ok(x)
        }
    }

    /// The double constant `v` is, when it is one made of constant words.
    fn double_const(&self, v: ir::Value) -> Option<f64> {
        let pack = |v: ir::Value| match self.f.values[v].def {
            Def::Inst(i, _) => Some(&self.f.insts[i]),
            _ => None,
        };
        let d = pack(v)?;
        let q = match d.op {
            Op::W64(Op64::AsF64) => pack(d.args[0])?,
            _ => return None,
        };
        if q.op != Op::W64(Op64::Pack) {
            return None;
        }
        let (lo, hi) = (
            self.f.const_value(q.args[0])?,
            self.f.const_value(q.args[1])?,
        );
        Some(f64::from_bits(lo as u64 | (hi as u64) << 32))
    }

    /// Whether an operation beside constant operand `v` may fold away (`x · ±1`, `x / ±1`,
    /// `x ± 0`): `v` is ±1 or ±0 once flushed (a denormal constant is flushed in software
    /// first, [`Self::d_operand_with`], and LLVM folds `x + −0` to an unflushed `x`), or made
    /// of constants in a way not known.
    fn may_fold_beside(&self, v: ir::Value) -> bool {
        if !self.const_made(v, 6) {
            return false;
        }
        match self.double_const(v) {
            Some(c) => c == 0.0 || c.is_subnormal() || c.abs() == 1.0,
            None => true,
        }
    }

    /// The operands of double arithmetic on `args` ([`Self::d_operand_with`]).
    fn d_operands(&mut self, args: &[ir::Value]) -> R<Vec<B::D>> {
        let folds: Vec<bool> = args.iter().map(|&a| self.may_fold_beside(a)).collect();
        (0..args.len())
            .map(|k| {
                let beside = folds.iter().enumerate().any(|(j, &c)| j != k && c);
                self.d_operand_with(args[k], beside)
            })
            .collect()
    }

    /// `x` with a NaN made the canonical NaN.
    fn canon64(&mut self, x: B::D) -> R<B::D> {
        let nan = self.b.d_cmp(FCmp::Ne, x, x)?;
        let c = self.b.q_const(CANONICAL_NAN64)?;
        self.b.d_select(nan, c, x)
    }

    /// x86's `cvttsd2si` to 64 bits: truncation, `i64::MIN` for NaN and out of range.
    fn cvtt64(&mut self, x: B::D) -> R<B::D> {
        let lo = self.dconst(-P63)?;
        let hi = self.dconst(P63)?;
        let ge = self.b.d_cmp(FCmp::Ge, x, lo)?;
        let lt = self.b.d_cmp(FCmp::Lt, x, hi)?;
        let inside = self.b.ibin(IBin::And, ge, lt)?;
        let zero = self.dconst(0.0)?;
        let safe = self.b.d_select(inside, x, zero)?;
        let t = self.b.d_to_q(safe)?;
        let min = self.b.q_const(SIGN)?;
        self.b.d_select(inside, t, min)
    }

    /// A 64-bit mask: lanes where `a == k`.
    fn q_is(&mut self, a: B::D, k: u64) -> R<B::V> {
        let c = self.b.q_const(k)?;
        self.b.q_cmp(ICmp::Eq, a, c)
    }

    /// Lowers the 64-bit operation `op` of `args` into `result`.
    pub(super) fn w64(&mut self, op: Op64, args: &[ir::Value], result: ir::Value) -> R<()> {
        use Op64 as W;
        if !self.b.has_wide() {
            return Err(crate::back::abi::JitError::NotYet {
                what: format!("the 64-bit operation {op:?}"),
                why: "this back end has no 64-bit lanes; the interpreter runs it",
            });
        }
        // 32-bit results.
        match op {
            W::Lo | W::Hi => {
                let a = self.get64(args[0])?;
                let w = self.b.q_word(a, op == W::Hi)?;
                return self.set(result, w);
            }
            W::DCmp(k) => {
                let (a, c) = (self.d_operand(args[0])?, self.d_operand(args[1])?);
                let m = self.b.d_cmp(k, a, c)?;
                return self.set(result, m);
            }
            W::QCmp(k) => {
                let (a, c) = (self.get64(args[0])?, self.get64(args[1])?);
                let m = self.b.q_cmp(k, a, c)?;
                return self.set(result, m);
            }
            W::F64ToF32 => {
                let a = self.d_operand(args[0])?;
                let r = self.b.d_to_float(a)?;
                let nan = self.b.fcmp(FCmp::Ne, r, r)?;
                let c = self
                    .b
                    .splat_const(Kind::F32, crate::numerics::CANONICAL_NAN)?;
                let r = self.b.select(nan, c, r)?;
                return self.set(result, r);
            }
            W::I64ToF32 | W::U64ToF32 => {
                let a = self.get64(args[0])?;
                let r = self.b.q_to_float(a, op == W::I64ToF32)?;
                return self.set(result, r);
            }
            W::F64ToI32 => {
                // In range: (−2³¹ − 1, 2³¹); else 0x80000000.
                let x = self.d_operand(args[0])?;
                let lo = self.dconst(-2_147_483_649.0)?;
                let hi = self.dconst(2_147_483_648.0)?;
                let gt = self.b.d_cmp(FCmp::Gt, x, lo)?;
                let lt = self.b.d_cmp(FCmp::Lt, x, hi)?;
                let inside = self.b.ibin(IBin::And, gt, lt)?;
                let t = self.cvtt64(x)?;
                let w = self.b.q_word(t, false)?;
                let min = self.b.splat_const(Kind::I32, 0x8000_0000)?;
                let r = self.b.select(inside, w, min)?;
                return self.set(result, r);
            }
            W::F64ToU32 => {
                let x = self.d_operand(args[0])?;
                let t = self.cvtt64(x)?;
                let w = self.b.q_word(t, false)?;
                return self.set(result, w);
            }
            W::DFrexpExp => {
                let (_, e) = self.frexp(args[0])?;
                return self.set(result, e);
            }
            _ => {}
        }
        let r = match op {
            W::Pack => match self.wide_words.get(&(args[0], args[1])) {
                // The words of a pair carried as a 64-bit value.
                Some(&d) => d,
                None => {
                    let (lo, hi) = (self.get_bits(args[0])?, self.get_bits(args[1])?);
                    self.b.q_pack(lo, hi)?
                }
            },
            W::AsF64 | W::AsI64 => self.get64(args[0])?,
            W::DAdd | W::DSub | W::DMul | W::DDiv => {
                let ops = self.d_operands(args)?;
                let (a, c) = (ops[0], ops[1]);
                let f = match op {
                    W::DAdd => super::builder::FBin::Add,
                    W::DSub => super::builder::FBin::Sub,
                    W::DMul => super::builder::FBin::Mul,
                    _ => super::builder::FBin::Div,
                };
                let r = self.b.d_bin(f, a, c)?;
                self.canon_result(result, r)?
            }
            W::DMin | W::DMax => {
                // The non-NaN operand, the first when equal; then flushed as the interpreter
                // reads it.
                let (a, c) = (self.d_operand(args[0])?, self.d_operand(args[1])?);
                let cc = if op == W::DMin { FCmp::Le } else { FCmp::Ge };
                let first = self.b.d_cmp(cc, a, c)?;
                let cnan = self.b.d_cmp(FCmp::Ne, c, c)?;
                let pick = self.b.ibin(IBin::Or, first, cnan)?;
                let r = self.b.d_select(pick, a, c)?;
                let r = if self.f.processor != crate::tgsi::Processor::Compute {
                    self.flush64(r)?
                } else {
                    r
                };
                self.canon_result(result, r)?
            }
            W::DFma => {
                if !self.b.supports(super::builder::Optional::Fma) {
                    return Err(crate::back::abi::JitError::NotYet {
                        what: "DFMA".into(),
                        why: "a fused double multiply-add needs a CPU with FMA; the interpreter runs it",
                    });
                }
                let ops = self.d_operands(args)?;
                let r = self.b.d_fma(ops[0], ops[1], ops[2])?;
                self.canon_result(result, r)?
            }
            W::DAbs => {
                // `x >= 0 ? x : −x` on the bits (a NaN's sign flips, −0 stays).
                let x = self.get64(args[0])?;
                let xf = self.d_operand(args[0])?;
                let zero = self.dconst(0.0)?;
                let ge = self.b.d_cmp(FCmp::Ge, xf, zero)?;
                let n = self.b.d_un(FUn::Neg, x)?;
                self.b.d_select(ge, x, n)?
            }
            W::DNeg => {
                let x = self.get64(args[0])?;
                self.b.d_un(FUn::Neg, x)?
            }
            W::DSqrt | W::DFloor | W::DCeil | W::DTrunc | W::DRound => {
                let x = self.d_operand(args[0])?;
                let u = match op {
                    W::DSqrt => FUn::Sqrt,
                    W::DFloor => FUn::Floor,
                    W::DCeil => FUn::Ceil,
                    W::DTrunc => FUn::Trunc,
                    _ => FUn::Round,
                };
                let r = self.b.d_un(u, x)?;
                self.canon_result(result, r)?
            }
            W::DSign => {
                let x = self.d_operand(args[0])?;
                let zero = self.dconst(0.0)?;
                let one = self.dconst(1.0)?;
                let mone = self.dconst(-1.0)?;
                let gt = self.b.d_cmp(FCmp::Gt, x, zero)?;
                let lt = self.b.d_cmp(FCmp::Lt, x, zero)?;
                let r = self.b.d_select(lt, mone, zero)?;
                self.b.d_select(gt, one, r)?
            }
            W::DSat01 => {
                // Compared as the interpreter reads it, the bits kept in range.
                let x = self.get64(args[0])?;
                let xf = self.d_operand(args[0])?;
                let zero = self.dconst(0.0)?;
                let one = self.dconst(1.0)?;
                let lt = self.b.d_cmp(FCmp::Lt, xf, zero)?;
                let nan = self.b.d_cmp(FCmp::Ne, xf, xf)?;
                let low = self.b.ibin(IBin::Or, lt, nan)?;
                let gt = self.b.d_cmp(FCmp::Gt, xf, one)?;
                let r = self.b.d_select(gt, one, x)?;
                self.b.d_select(low, zero, r)?
            }
            W::DLdexp => self.ldexp(args[0], args[1])?,
            W::DFrexpMant => self.frexp(args[0])?.0,
            W::F32ToF64 => {
                let a = self.float_operand(args[0])?;
                let r = self.b.d_from_float(a)?;
                self.canon_result(result, r)?
            }
            W::I32ToF64 => {
                let a = self.get(args[0])?;
                self.b.d_from_int(a)?
            }
            W::U32ToF64 => {
                let a = self.get(args[0])?;
                self.b.d_from_uint(a)?
            }
            W::F64ToI64 => {
                let x = self.d_operand(args[0])?;
                self.cvtt64(x)?
            }
            W::F64ToU64 => {
                // Below 2⁶³ as F64ToI64; above, less 2⁶³ with the top bit flipped.
                let x = self.d_operand(args[0])?;
                let p = self.dconst(P63)?;
                let big = self.b.d_cmp(FCmp::Ge, x, p)?;
                let less = self.b.d_bin(super::builder::FBin::Sub, x, p)?;
                let y = self.b.d_select(big, less, x)?;
                let t = self.cvtt64(y)?;
                let sign = self.b.q_const(SIGN)?;
                let flipped = self.b.q_bin(QBin::Xor, t, sign)?;
                self.b.d_select(big, flipped, t)?
            }
            W::I64ToF64 | W::U64ToF64 => {
                let a = self.get64(args[0])?;
                self.b.q_to_d(a, op == W::I64ToF64)?
            }
            W::SExt | W::ZExt => {
                let a = self.get(args[0])?;
                self.b.q_from_int(a, op == W::SExt)?
            }
            W::QAdd | W::QMul => {
                let (a, c) = (self.get64(args[0])?, self.get64(args[1])?);
                let q = if op == W::QAdd { QBin::Add } else { QBin::Mul };
                self.b.q_bin(q, a, c)?
            }
            W::QDivS | W::QRemS | W::QDivU | W::QRemU => {
                let (a, c) = (self.get64(args[0])?, self.get64(args[1])?);
                let zero = self.q_is(c, 0)?;
                let signed = matches!(op, W::QDivS | W::QRemS);
                let bad = if signed {
                    let min = self.q_is(a, SIGN)?;
                    let m1 = self.q_is(c, u64::MAX)?;
                    let ovf = self.b.ibin(IBin::And, min, m1)?;
                    self.b.ibin(IBin::Or, zero, ovf)?
                } else {
                    zero
                };
                let one = self.b.q_const(1)?;
                let safe = self.b.d_select(bad, one, c)?;
                let (q, on_zero) = match op {
                    W::QDivS => (QBin::DivS, 0),
                    W::QRemS => (QBin::RemS, u64::MAX),
                    W::QDivU => (QBin::DivU, u64::MAX),
                    _ => (QBin::RemU, u64::MAX),
                };
                let r = self.b.q_bin(q, a, safe)?;
                let z = self.b.q_const(on_zero)?;
                self.b.d_select(zero, z, r)?
            }
            W::QMinS | W::QMaxS | W::QMinU | W::QMaxU => {
                let (a, c) = (self.get64(args[0])?, self.get64(args[1])?);
                let cc = if matches!(op, W::QMinS | W::QMaxS) {
                    ICmp::SLt
                } else {
                    ICmp::ULt
                };
                // a < c: the minimum is a; else c (the same bits when equal).
                let lt = self.b.q_cmp(cc, a, c)?;
                if matches!(op, W::QMinS | W::QMinU) {
                    self.b.d_select(lt, a, c)?
                } else {
                    self.b.d_select(lt, c, a)?
                }
            }
            W::QShl | W::QShrS | W::QShrU => {
                let a = self.get64(args[0])?;
                let n = self.get(args[1])?;
                let k = self.b.splat_const(Kind::I32, 63)?;
                let n = self.b.ibin(IBin::And, n, k)?;
                let n = self.b.q_from_int(n, false)?;
                let s = match op {
                    W::QShl => Shift::Shl,
                    W::QShrS => Shift::ShrS,
                    _ => Shift::ShrU,
                };
                self.b.q_shift(s, a, n)?
            }
            W::QNeg | W::QAbs => {
                let a = self.get64(args[0])?;
                let z = self.b.q_const(0)?;
                let n = self.b.q_bin(QBin::Sub, z, a)?;
                if op == W::QNeg {
                    n
                } else {
                    let neg = self.b.q_cmp(ICmp::SLt, a, z)?;
                    self.b.d_select(neg, n, a)?
                }
            }
            W::QSign => {
                let a = self.get64(args[0])?;
                let z = self.b.q_const(0)?;
                let one = self.b.q_const(1)?;
                let m1 = self.b.q_const(u64::MAX)?;
                let neg = self.b.q_cmp(ICmp::SLt, a, z)?;
                let pos = self.b.q_cmp(ICmp::SLt, z, a)?;
                let r = self.b.d_select(pos, one, z)?;
                self.b.d_select(neg, m1, r)?
            }
            W::Lo
            | W::Hi
            | W::DCmp(_)
            | W::QCmp(_)
            | W::F64ToF32
            | W::I64ToF32
            | W::U64ToF32
            | W::F64ToI32
            | W::F64ToU32
            | W::DFrexpExp => unreachable!("32-bit results are lowered above"),
        };
        self.set64(result, r);
        Ok(())
    }

    /// `x · 2ⁿ`, correctly rounded: musl's `scalbn` in lanes (two steps by 2¹⁰²³ or
    /// 2⁻⁹⁶⁹ toward the range, then the power of two itself).
    fn ldexp(&mut self, x: ir::Value, n: ir::Value) -> R<B::D> {
        // Flushed in draws whatever it is: with a constant exponent LLVM folds the products
        // by powers of two that would have flushed it.
        let mut y = self.d_operand_with(x, true)?;
        let mut n = self.get(n)?;
        let lim = |s: &mut Self, k: i32| s.b.splat_const(Kind::I32, k as u32);
        let (lo, hi) = (lim(self, -2200)?, lim(self, 2200)?);
        n = self.b.ibin(IBin::SMax, n, lo)?;
        n = self.b.ibin(IBin::SMin, n, hi)?;
        let up = self.dconst(f64::from_bits(0x7FE0_0000_0000_0000))?;
        let down = self.dconst(f64::MIN_POSITIVE * f64::from_bits(0x4340_0000_0000_0000))?;
        let one = self.dconst(1.0)?;
        let (k1024, km1022) = (lim(self, 1024)?, lim(self, -1022)?);
        let (s1023, s969, zero) = (lim(self, 1023)?, lim(self, -969)?, lim(self, 0)?);
        for _ in 0..2 {
            let big = self.b.icmp(ICmp::SGe, n, k1024)?;
            let small = self.b.icmp(ICmp::SLt, n, km1022)?;
            let f = self.b.d_select(small, down, one)?;
            let f = self.b.d_select(big, up, f)?;
            y = self.b.d_bin(super::builder::FBin::Mul, y, f)?;
            let step = self.b.select(small, s969, zero)?;
            let step = self.b.select(big, s1023, step)?;
            n = self.b.ibin(IBin::Sub, n, step)?;
        }
        n = self.b.ibin(IBin::SMax, n, km1022)?;
        n = self.b.ibin(IBin::SMin, n, s1023)?;
        let bias = lim(self, 1023)?;
        let e = self.b.ibin(IBin::Add, n, bias)?;
        let e = self.b.q_from_int(e, false)?;
        let k52 = self.b.q_const(52)?;
        let scale = self.b.q_shift(Shift::Shl, e, k52)?;
        let r = self.b.d_bin(super::builder::FBin::Mul, y, scale)?;
        self.canon64(r)
    }

    /// glibc's `frexp` in lanes: the mantissa (F64) and the exponent (i32 lanes).
    fn frexp(&mut self, x: ir::Value) -> R<(B::D, B::V)> {
        let x = self.d_operand(x)?;
        let zero = self.dconst(0.0)?;
        let inf = self.dconst(f64::INFINITY)?;
        let a = self.b.d_un(FUn::Abs, x)?;
        let is_zero = self.b.d_cmp(FCmp::Eq, x, zero)?;
        let finite = self.b.d_cmp(FCmp::Lt, a, inf)?;
        let all = self.b.splat_const(Kind::Mask, 1)?;
        let not_finite = self.b.ibin(IBin::Xor, finite, all)?;
        let special = self.b.ibin(IBin::Or, is_zero, not_finite)?;
        // A denormal is scaled into the normal range first (compute programs keep them).
        let min = self.dconst(f64::MIN_POSITIVE)?;
        let tiny = self.b.d_cmp(FCmp::Lt, a, min)?;
        let denormal = self.b.ibin(IBin::AndNot, tiny, special)?;
        let p54 = self.dconst(f64::from_bits(0x4350_0000_0000_0000))?;
        let scaled = self.b.d_bin(super::builder::FBin::Mul, x, p54)?;
        let xs = self.b.d_select(denormal, scaled, x)?;
        let k52 = self.b.q_const(52)?;
        let top = self.b.q_shift(Shift::ShrU, xs, k52)?;
        let top = self.b.q_word(top, false)?;
        let m = self.b.splat_const(Kind::I32, 0x7FF)?;
        let ex = self.b.ibin(IBin::And, top, m)?;
        let k1022 = self.b.splat_const(Kind::I32, 1022)?;
        let e = self.b.ibin(IBin::Sub, ex, k1022)?;
        let k54 = self.b.splat_const(Kind::I32, 54)?;
        let z32 = self.b.splat_const(Kind::I32, 0)?;
        let adj = self.b.select(denormal, k54, z32)?;
        let e = self.b.ibin(IBin::Sub, e, adj)?;
        let e = self.b.select(special, z32, e)?;
        let keep = self.b.q_const(0x800F_FFFF_FFFF_FFFF)?;
        let half = self.b.q_const(0x3FE0_0000_0000_0000)?;
        let mant = self.b.q_bin(QBin::And, xs, keep)?;
        let mant = self.b.q_bin(QBin::Or, mant, half)?;
        let twice = self.b.d_bin(super::builder::FBin::Add, x, x)?;
        let twice = self.canon64(twice)?;
        let mant = self.b.d_select(special, twice, mant)?;
        Ok((mant, e))
    }
}
