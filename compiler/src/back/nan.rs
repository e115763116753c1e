//! Where NaNs must be canonicalized.
//!
//! The interpreter returns the canonical NaN `0x7FC00000` from every float operation; SSE
//! returns an operand's NaN (quieted) or `0xFFC00000`. Canonicalizing after every operation
//! would cost two instructions each, so the back end tracks, per value, its [`Class`]:
//! whether it is *arithmetic* — its bits may differ from the interpreter's only in a NaN's
//! payload — and, if so, which NaN the interpreter would hold there (`-x` of an arithmetic x
//! holds `0xFFC00000`). Arithmetic consumers (arithmetic, comparisons, conversions, sign
//! operations) do not care. A consumer that exposes bits — a bitcast, a store, an EMIT, a host
//! call — canonicalizes an arithmetic operand first. A merge (`select`, `If` result, loop
//! parameter or result) keeps the class its inputs share (constants that are neither NaN nor
//! denormal fit every class: a float accumulator starting at 0 stays arithmetic); otherwise its
//! arithmetic inputs are canonicalized where they enter it, so that raw bits (a MOV of an
//! input NaN) keep their payload.

use crate::ir::*;

/// What is known of a value's NaN bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Exactly the interpreter's bits.
    Exact,
    /// The interpreter's bits, except that where it holds the NaN `0x7FC00000` this may hold
    /// another NaN.
    Arith,
    /// As `Arith`, with the interpreter's NaN `0xFFC00000` (a negated arithmetic value).
    ArithNeg,
}

impl Class {
    /// The NaN the interpreter holds where this class may differ.
    pub fn canonical_nan(self) -> u32 {
        match self {
            Class::ArithNeg => 0xFFC0_0000,
            _ => crate::numerics::CANONICAL_NAN,
        }
    }
}

/// Whether the operation's result comes from SSE arithmetic.
fn arithmetic(op: &Op) -> bool {
    use Binary as B;
    use Unary as U;
    matches!(
        op,
        Op::Unary(U::FFloor | U::FCeil | U::FTrunc | U::FRound | U::FSqrt)
            | Op::Binary(B::FAdd | B::FSub | B::FMul | B::FDiv | B::FMin | B::FMax)
            | Op::Nary(Nary::Fma)
            | Op::Derivative { .. }
    )
}

/// Per value, its class (see the module documentation).
pub fn classes(f: &Function) -> Vec<Class> {
    let mut cls = vec![Class::Exact; f.values.len()];
    // Merges start optimistic (the class of their first input) and settle to a fixpoint; sign
    // operations follow their operand. Each merge is visited in program order, so that the
    // fixpoint reached (and the code) is the same from run to run.
    let mut merges: Vec<(Value, Vec<Value>)> = Vec::new();
    let mut signs: Vec<(Value, Unary, Value)> = Vec::new();
    collect(f, &f.body, &mut cls, &mut merges, &mut signs);
    for &(v, _) in &merges {
        cls[v.index()] = if f.ty(v) == Type::F32 {
            Class::Arith
        } else {
            Class::Exact
        };
    }
    loop {
        let mut changed = false;
        for &(r, u, x) in &signs {
            let c = match (u, cls[x.index()]) {
                (_, Class::Exact) => Class::Exact,
                (Unary::FAbs, _) => Class::Arith,
                (_, Class::Arith) => Class::ArithNeg,
                (_, Class::ArithNeg) => Class::Arith,
            };
            if cls[r.index()] != c {
                cls[r.index()] = c;
                changed = true;
            }
        }
        for (v, inputs) in &merges {
            let v = *v;
            // A constant that is neither NaN nor denormal has the same bits in every class.
            let neutral = |i: &&Value| {
                f.const_value(**i).is_some_and(|c| {
                    let x = f32::from_bits(c);
                    !x.is_nan() && !x.is_subnormal()
                })
            };
            let mut real = inputs.iter().filter(|i| !neutral(i)).peekable();
            let first = real.peek().map_or(Class::Exact, |i| cls[i.index()]);
            let c = if real.all(|i| cls[i.index()] == first) {
                first
            } else {
                Class::Exact
            };
            // Demote only (optimistic start): Arith → ArithNeg/Exact, never back up.
            let cur = cls[v.index()];
            let next = if cur == Class::Exact { Class::Exact } else { c };
            if next != cur {
                cls[v.index()] = next;
                changed = true;
            }
        }
        if !changed {
            return cls;
        }
    }
}

fn jumps(b: &Block, conts: &mut Vec<Vec<Value>>, breaks: &mut Vec<Vec<Value>>) {
    for s in &b.0 {
        match s {
            Stmt::If(x) => {
                jumps(&x.then_, conts, breaks);
                jumps(&x.else_, conts, breaks);
            }
            Stmt::Continue(v) => conts.push(v.clone()),
            Stmt::Break(v) => breaks.push(v.clone()),
            _ => {}
        }
    }
}

fn collect(
    f: &Function,
    b: &Block,
    cls: &mut [Class],
    merges: &mut Vec<(Value, Vec<Value>)>,
    signs: &mut Vec<(Value, Unary, Value)>,
) {
    for s in &b.0 {
        match s {
            Stmt::Inst(i) => {
                let d = &f.insts[*i];
                match &d.op {
                    Op::Select => {
                        merges.push((d.results[0], vec![d.args[1], d.args[2]]));
                    }
                    Op::Unary(u @ (Unary::FNeg | Unary::FAbs)) => {
                        signs.push((d.results[0], *u, d.args[0]))
                    }
                    op if arithmetic(op) => {
                        for &r in &d.results {
                            if f.ty(r) == Type::F32 {
                                cls[r.index()] = Class::Arith;
                            }
                        }
                    }
                    _ => {}
                }
            }
            Stmt::If(x) => {
                collect(f, &x.then_, cls, merges, signs);
                collect(f, &x.else_, cls, merges, signs);
                for (k, &r) in x.results.iter().enumerate() {
                    let ys = [&x.then_, &x.else_]
                        .into_iter()
                        .filter_map(|b| match b.0.last() {
                            Some(Stmt::Yield(v)) => Some(v[k]),
                            _ => None,
                        })
                        .collect();
                    merges.push((r, ys));
                }
            }
            Stmt::Loop(l) => {
                collect(f, &l.body, cls, merges, signs);
                let (mut conts, mut breaks) = (Vec::new(), Vec::new());
                jumps(&l.body, &mut conts, &mut breaks);
                for (k, &p) in l.params.iter().enumerate() {
                    let mut v = vec![l.inits[k]];
                    v.extend(conts.iter().map(|c| c[k]));
                    merges.push((p, v));
                }
                for (k, &r) in l.results.iter().enumerate() {
                    merges.push((r, breaks.iter().map(|c| c[k]).collect()));
                }
            }
            _ => {}
        }
    }
}
