//! Merge retyping: a merge (an `If` result, a loop parameter or result) of one 32-bit type
//! whose every use reinterprets it as the other type, and whose every incoming value is a
//! reinterpretation of that type (or a constant, or another such merge), takes the other type.
//!
//! TGSI registers are untyped, so the lifter types a merge by whatever reaches it first: a
//! float accumulator initialized from an integer immediate (`MOV TEMP[1].x, IMM[0].yyyy` with
//! `IMM[0] UINT32 {0, ...}`) becomes an I32 loop parameter, bitcast to F32 for every `ADD` and
//! back for every iteration. Retyped, the loop carries the float itself: the bitcasts go, and
//! back ends no longer treat the value as raw bits (which they must keep exact, and so
//! canonicalize on every iteration).
//!
//! Invariant: bits are unchanged everywhere (`Bitcast` is free), so the function computes the
//! same words.

use super::util::{ConstPool, Subst, for_each_block_mut};
use crate::ir::*;
use crate::maps::FastMap;

/// The other 32-bit type.
fn other(t: Type) -> Option<Type> {
    match t {
        Type::I32 => Some(Type::F32),
        Type::F32 => Some(Type::I32),
        Type::Bool | Type::F64 | Type::I64 => None,
    }
}

/// How a value is used.
#[derive(Default)]
struct Uses {
    /// Bitcast instructions reading it (their results).
    bitcasts: Vec<Value>,
    /// Merges it flows into.
    merges: Vec<Value>,
    /// Any other use.
    other: bool,
}

/// The merges of a function and their incoming values.
struct Merges {
    inputs: FastMap<Value, Vec<Value>>,
}

fn collect(
    f: &Function,
    b: &Block,
    loops: &mut Vec<(Vec<Value>, Vec<Value>)>,
    m: &mut Merges,
    uses: &mut FastMap<Value, Uses>,
) {
    let flow = |v: Value, to: Value, uses: &mut FastMap<Value, Uses>, m: &mut Merges| {
        m.inputs.entry(to).or_default().push(v);
        uses.entry(v).or_default().merges.push(to);
    };
    for s in &b.0 {
        match s {
            Stmt::Inst(i) => {
                let d = &f.insts[*i];
                let bitcast = matches!(d.op, Op::Unary(Unary::Bitcast));
                for (k, &a) in d.args.iter().enumerate() {
                    let u = uses.entry(a).or_default();
                    if bitcast {
                        u.bitcasts.push(d.results[0]);
                    } else if !stores_bits(&d.op, k) {
                        u.other = true;
                    }
                }
            }
            Stmt::If(x) => {
                uses.entry(x.cond).or_default().other = true;
                for branch in [&x.then_, &x.else_] {
                    collect(f, branch, loops, m, uses);
                    if let Some(Stmt::Yield(vals)) = branch.0.last() {
                        for (&v, &r) in vals.iter().zip(&x.results) {
                            flow(v, r, uses, m);
                        }
                    }
                }
                for &r in &x.results {
                    m.inputs.entry(r).or_default();
                }
            }
            Stmt::Loop(l) => {
                for (&v, &p) in l.inits.iter().zip(&l.params) {
                    flow(v, p, uses, m);
                }
                for &r in &l.results {
                    m.inputs.entry(r).or_default();
                }
                loops.push((l.params.clone(), l.results.clone()));
                collect(f, &l.body, loops, m, uses);
                loops.pop();
            }
            Stmt::Break(vals) | Stmt::Continue(vals) => {
                let Some((params, results)) = loops.last().cloned() else {
                    continue;
                };
                let to = if matches!(s, Stmt::Break(_)) {
                    results
                } else {
                    params
                };
                for (&v, &t) in vals.iter().zip(&to) {
                    flow(v, t, uses, m);
                }
            }
            Stmt::Yield(_) => {} // handled with its If
        }
    }
}

/// Whether argument `k` of `op` only stores its bits (a word of either type).
fn stores_bits(op: &Op, k: usize) -> bool {
    match op {
        Op::StoreOutput { .. } | Op::Emit | Op::EndPrim => true,
        Op::ArrayStore { .. } => k == 1,
        _ => false,
    }
}

/// The source of `v` if it is `Bitcast(x)`.
fn bitcast_source(f: &Function, v: Value) -> Option<Value> {
    let Def::Inst(i, 0) = f.values[v].def else {
        return None;
    };
    match f.insts[i].op {
        Op::Unary(Unary::Bitcast) => Some(f.insts[i].args[0]),
        _ => None,
    }
}

/// Rewrites the incoming values of retyped merges, walking as [`collect`] does.
fn rewrite(
    b: &mut Block,
    loops: &mut Vec<(Vec<Value>, Vec<Value>)>,
    map: &mut impl FnMut(Value, Value) -> Value,
) {
    for s in &mut b.0 {
        match s {
            Stmt::If(x) => {
                let results = x.results.clone();
                for branch in [&mut x.then_, &mut x.else_] {
                    rewrite(branch, loops, map);
                    if let Some(Stmt::Yield(vals)) = branch.0.last_mut() {
                        for (v, &r) in vals.iter_mut().zip(&results) {
                            *v = map(*v, r);
                        }
                    }
                }
            }
            Stmt::Loop(l) => {
                for (v, &p) in l.inits.iter_mut().zip(&l.params) {
                    *v = map(*v, p);
                }
                loops.push((l.params.clone(), l.results.clone()));
                rewrite(&mut l.body, loops, map);
                loops.pop();
            }
            Stmt::Break(vals) => {
                if let Some((_, results)) = loops.last() {
                    for (v, &t) in vals.iter_mut().zip(results) {
                        *v = map(*v, t);
                    }
                }
            }
            Stmt::Continue(vals) => {
                if let Some((params, _)) = loops.last() {
                    for (v, &t) in vals.iter_mut().zip(params) {
                        *v = map(*v, t);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Runs the pass; whether anything changed.
pub fn run(f: &mut Function) -> bool {
    let mut merges = Merges {
        inputs: FastMap::default(),
    };
    let mut uses: FastMap<Value, Uses> = FastMap::default();
    collect(f, &f.body, &mut Vec::new(), &mut merges, &mut uses);
    // Candidates: 32-bit merges; drop those whose uses or inputs do not qualify, to a fixpoint.
    let mut cand: FastMap<Value, Type> = merges
        .inputs
        .keys()
        .filter_map(|&m| other(f.ty(m)).map(|t| (m, t)))
        .collect();
    loop {
        let drop: Vec<Value> = cand
            .iter()
            .filter(|&(&m, &to)| {
                let from = f.ty(m);
                let u = uses.get(&m);
                let uses_ok = u.is_none_or(|u| {
                    !u.other
                        && u.bitcasts.iter().all(|&r| f.ty(r) == to)
                        && u.merges
                            .iter()
                            .all(|t| cand.contains_key(t) && f.ty(*t) == from)
                });
                let inputs_ok = merges.inputs[&m].iter().all(|&v| {
                    f.const_value(v).is_some()
                        || bitcast_source(f, v)
                            .is_some_and(|x| f.ty(x) == to && !cand.contains_key(&x))
                        || (cand.contains_key(&v) && f.ty(v) == from)
                });
                !(uses_ok && inputs_ok)
            })
            .map(|(&m, _)| m)
            .collect();
        if drop.is_empty() {
            break;
        }
        for m in drop {
            cand.remove(&m);
        }
    }
    // A group of merges passing values only among themselves gains nothing unless one of them
    // is read as the other type.
    if !cand
        .keys()
        .any(|m| uses.get(m).is_some_and(|u| !u.bitcasts.is_empty()))
    {
        return false;
    }
    // Incoming values: the bitcast's source, the constant of the other type, or the merge.
    let mut pool = ConstPool::new(f);
    let mut consts: FastMap<(u32, Type), Value> = FastMap::default();
    let mut need = Vec::new();
    for (&m, &to) in &cand {
        for &v in &merges.inputs[&m] {
            if let Some(c) = f.const_value(v) {
                need.push((c, to));
            }
        }
    }
    for (c, to) in need {
        let v = pool.get(f, c, to);
        consts.insert((c, to), v);
    }
    pool.finish(f);
    let snapshot = f.clone();
    let mut body = std::mem::take(&mut f.body);
    rewrite(&mut body, &mut Vec::new(), &mut |v, to_merge| {
        let Some(&to) = cand.get(&to_merge) else {
            return v;
        };
        if cand.contains_key(&v) {
            return v;
        }
        if let Some(c) = snapshot.const_value(v) {
            return consts[&(c, to)];
        }
        bitcast_source(&snapshot, v).unwrap_or(v)
    });
    f.body = body;
    // Retype, then read the merges directly where they were bitcast.
    let mut subst = Subst::new(f);
    let mut dead = Vec::new();
    for (&m, &to) in &cand {
        f.values[m].ty = to;
        if let Some(u) = uses.get(&m) {
            for &r in &u.bitcasts {
                subst.replace(r, m);
                if let Def::Inst(i, _) = f.values[r].def {
                    dead.push(i);
                }
            }
        }
    }
    subst.apply(f);
    for_each_block_mut(&mut f.body, &mut |b| {
        b.0.retain(|s| !matches!(s, Stmt::Inst(i) if dead.contains(i)));
    });
    true
}
