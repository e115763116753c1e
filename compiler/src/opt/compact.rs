//! Compaction: rebuilds a function's arenas with only what its body reaches, numbered in
//! program order (passes leave removed instructions and values behind in the arenas).

use crate::ir::*;

struct Compact<'a> {
    old: &'a Function,
    new: Function,
    map: Vec<Option<Value>>,
}

/// A copy of `f` whose arenas hold only the reachable instructions and values, in order.
pub fn compact(f: &Function) -> Function {
    let mut new = Function::new(f.processor);
    new.arrays = f.arrays.clone();
    new.outputs = f.outputs.clone();
    new.immediates = f.immediates.clone();
    new.gs_vertices = f.gs_vertices;
    new.input_regs = f.input_regs;
    new.sysval_regs = f.sysval_regs;
    let mut c = Compact {
        old: f,
        new,
        map: vec![None; f.values.len()],
    };
    let body = c.block(&f.body);
    c.new.body = body;
    c.new
}

impl Compact<'_> {
    fn get(&self, v: Value) -> Value {
        self.map[v.index()].expect("a value used before its definition")
    }

    fn vals(&self, v: &[Value]) -> Vec<Value> {
        v.iter().map(|&x| self.get(x)).collect()
    }

    fn fresh(&mut self, old: Value, def: Def) -> Value {
        let v = self.new.new_value(self.old.ty(old), def);
        self.map[old.index()] = Some(v);
        v
    }

    fn block(&mut self, b: &Block) -> Block {
        let mut out = Vec::with_capacity(b.0.len());
        for s in &b.0 {
            out.push(match s {
                Stmt::Inst(i) => {
                    let d = &self.old.insts[*i];
                    let args = self.vals(&d.args);
                    let tys: Vec<Type> = d.results.iter().map(|&r| self.old.ty(r)).collect();
                    let ni = self.new.new_inst(d.op.clone(), args, &tys, d.origin);
                    for (k, &r) in d.results.iter().enumerate() {
                        self.map[r.index()] = Some(self.new.insts[ni].results[k]);
                    }
                    Stmt::Inst(ni)
                }
                Stmt::If(x) => {
                    let cond = self.get(x.cond);
                    let then_ = self.block(&x.then_);
                    let else_ = self.block(&x.else_);
                    let results = x
                        .results
                        .iter()
                        .map(|&r| self.fresh(r, Def::IfResult))
                        .collect();
                    Stmt::If(Box::new(IfStmt {
                        cond,
                        then_,
                        else_,
                        results,
                    }))
                }
                Stmt::Loop(l) => {
                    let inits = self.vals(&l.inits);
                    let params = l
                        .params
                        .iter()
                        .map(|&p| self.fresh(p, Def::Param))
                        .collect();
                    let body = self.block(&l.body);
                    let results = l
                        .results
                        .iter()
                        .map(|&r| self.fresh(r, Def::LoopResult))
                        .collect();
                    Stmt::Loop(Box::new(LoopStmt {
                        inits,
                        params,
                        body,
                        results,
                    }))
                }
                Stmt::Break(v) => Stmt::Break(self.vals(v)),
                Stmt::Continue(v) => Stmt::Continue(self.vals(v)),
                Stmt::Yield(v) => Stmt::Yield(self.vals(v)),
            });
        }
        Block(out)
    }
}
