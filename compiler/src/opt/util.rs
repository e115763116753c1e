//! Rewriting utilities shared by the passes: use counts, value substitution, block walks and
//! the function's constant pool.

use crate::ir::*;
use crate::maps::FastMap;

/// Calls `f` on every value a statement list uses (instruction arguments, conditions, loop
/// initial values, terminator values), recursively.
pub fn for_each_use(func: &Function, b: &Block, f: &mut impl FnMut(Value)) {
    for s in &b.0 {
        for_each_stmt_use(func, s, f);
    }
}

/// [`for_each_use`] of one statement.
pub fn for_each_stmt_use(func: &Function, s: &Stmt, f: &mut impl FnMut(Value)) {
    match s {
        Stmt::Inst(i) => func.insts[*i].args.iter().for_each(|&a| f(a)),
        Stmt::If(x) => {
            f(x.cond);
            for_each_use(func, &x.then_, f);
            for_each_use(func, &x.else_, f);
        }
        Stmt::Loop(l) => {
            l.inits.iter().for_each(|&a| f(a));
            for_each_use(func, &l.body, f);
        }
        Stmt::Break(v) | Stmt::Continue(v) | Stmt::Yield(v) => v.iter().for_each(|&a| f(a)),
    }
}

/// How many times each value is used.
pub fn use_counts(func: &Function) -> Vec<u32> {
    let mut n = vec![0u32; func.values.len()];
    for_each_use(func, &func.body, &mut |v| n[v.index()] += 1);
    n
}

/// A value substitution: `map[v]` replaces `v` (chains are followed).
#[derive(Debug, Clone)]
pub struct Subst {
    map: Vec<Option<Value>>,
    /// Whether any replacement was recorded.
    pub changed: bool,
}

impl Subst {
    /// No replacements, for `func`'s values.
    pub fn new(func: &Function) -> Subst {
        Subst {
            map: vec![None; func.values.len()],
            changed: false,
        }
    }

    /// Replaces `from` by `to` from now on.
    pub fn replace(&mut self, from: Value, to: Value) {
        if from == to {
            return;
        }
        if from.index() >= self.map.len() || to.index() >= self.map.len() {
            let n = from.index().max(to.index()) + 1;
            self.map.resize(n, None);
        }
        self.map[from.index()] = Some(to);
        self.changed = true;
    }

    /// What `v` stands for now.
    pub fn get(&self, mut v: Value) -> Value {
        let mut steps = 0;
        while let Some(Some(w)) = self.map.get(v.index()) {
            v = *w;
            steps += 1;
            debug_assert!(steps < 1 << 20, "substitution cycle");
        }
        v
    }

    /// Rewrites every use in `func`.
    pub fn apply(&self, func: &mut Function) {
        if !self.changed {
            return;
        }
        let mut body = std::mem::take(&mut func.body);
        self.apply_block(func, &mut body);
        func.body = body;
    }

    fn apply_vec(&self, v: &mut [Value]) {
        for x in v {
            *x = self.get(*x);
        }
    }

    fn apply_block(&self, func: &mut Function, b: &mut Block) {
        for s in &mut b.0 {
            match s {
                Stmt::Inst(i) => {
                    let mut args = std::mem::take(&mut func.insts[*i].args);
                    self.apply_vec(&mut args);
                    func.insts[*i].args = args;
                }
                Stmt::If(x) => {
                    x.cond = self.get(x.cond);
                    self.apply_block(func, &mut x.then_);
                    self.apply_block(func, &mut x.else_);
                }
                Stmt::Loop(l) => {
                    self.apply_vec(&mut l.inits);
                    self.apply_block(func, &mut l.body);
                }
                Stmt::Break(v) | Stmt::Continue(v) | Stmt::Yield(v) => self.apply_vec(v),
            }
        }
    }
}

/// The function's constants: one instruction per (bits, type), at the top of the body.
pub struct ConstPool {
    map: FastMap<(u32, Type), Value>,
    new: Vec<Stmt>,
}

impl ConstPool {
    /// The constants already at the top level of `func`'s body.
    pub fn new(func: &Function) -> ConstPool {
        let mut map = FastMap::default();
        for s in &func.body.0 {
            if let Stmt::Inst(i) = s
                && let Op::Const(c) = func.insts[*i].op
                && let Some(&r) = func.insts[*i].results.first()
            {
                map.entry((c, func.ty(r))).or_insert(r);
            }
        }
        ConstPool {
            map,
            new: Vec::new(),
        }
    }

    /// The constant `bits` of type `ty`.
    pub fn get(&mut self, func: &mut Function, bits: u32, ty: Type) -> Value {
        let bits = if ty == Type::Bool {
            (bits != 0) as u32
        } else {
            bits
        };
        if let Some(&v) = self.map.get(&(bits, ty)) {
            return v;
        }
        let i = func.new_inst(Op::Const(bits), vec![], &[ty], None);
        self.new.push(Stmt::Inst(i));
        let v = func.insts[i].results[0];
        self.map.insert((bits, ty), v);
        v
    }

    /// Puts the constants created into the body (first).
    pub fn finish(self, func: &mut Function) {
        if !self.new.is_empty() {
            let mut body = self.new;
            body.append(&mut func.body.0);
            func.body.0 = body;
        }
    }
}

/// Whether a value is a float whose bits a float operation could have produced: no denormal,
/// and a NaN only as the canonical NaN. Such a value passes through `x * 1`, `x + -0`,
/// `x - 0` and `x / 1` unchanged (`docs/ir.md`, "Algebraic simplification").
pub fn is_canonical_float(func: &Function, v: Value) -> bool {
    if func.ty(v) != Type::F32 {
        return false;
    }
    let Def::Inst(i, _) = func.values[v].def else {
        return false;
    };
    match &func.insts[i].op {
        Op::Const(c) => {
            let x = f32::from_bits(*c);
            !x.is_subnormal() && (!x.is_nan() || *c == crate::numerics::CANONICAL_NAN)
        }
        Op::Unary(u) => !matches!(u, Unary::FNeg | Unary::FAbs | Unary::Bitcast),
        Op::Binary(_) | Op::Nary(Nary::Fma) | Op::Unpack(_) | Op::Derivative { .. } => true,
        Op::Texture(t) => !t.integer_results(),
        _ => false,
    }
}

/// Whether an instruction may be removed when its results are unused, moved, or merged with
/// an identical one: it has no effects and does not read memory stores change.
pub fn is_pure(op: &Op) -> bool {
    !op.has_effects() && !op.reads_memory()
}

/// Applies `f` to every block of `b` (the block itself first, then nested ones).
pub fn for_each_block_mut(b: &mut Block, f: &mut impl FnMut(&mut Block)) {
    f(b);
    for s in &mut b.0 {
        match s {
            Stmt::If(x) => {
                for_each_block_mut(&mut x.then_, f);
                for_each_block_mut(&mut x.else_, f);
            }
            Stmt::Loop(l) => for_each_block_mut(&mut l.body, f),
            _ => {}
        }
    }
}

/// Calls `rewrite` on every instruction of `func`, block by block, as each block's statement
/// list is rebuilt: `rewrite` may change the instruction in place and push instructions that
/// must run before it onto the list it is given. Returns whether any call returned true.
pub fn rewrite_insts(
    func: &mut Function,
    rewrite: &mut impl FnMut(&mut Function, &mut Vec<Stmt>, Inst) -> bool,
) -> bool {
    let mut body = std::mem::take(&mut func.body);
    let mut changed = false;
    for_each_block_mut(&mut body, &mut |b| {
        let mut out = Vec::with_capacity(b.0.len());
        for s in std::mem::take(&mut b.0) {
            if let Stmt::Inst(i) = s {
                changed |= rewrite(func, &mut out, i);
            }
            out.push(s);
        }
        b.0 = out;
    });
    func.body = body;
    changed
}
