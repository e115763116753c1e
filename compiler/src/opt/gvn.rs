//! Value numbering: a pure instruction that repeats one seen earlier in a dominating position
//! (the same block or an enclosing one) with the same operation and arguments is replaced by
//! the earlier result. Commutative operations match with their arguments in either order.
//!
//! Scoped: what is computed inside an `If` branch or a loop body is forgotten when the region
//! ends. Instructions that read array memory are not merged (a store may come between).
//! Invariant kept: the function verifies and computes the same bits.

use super::util::{Subst, is_pure};
use crate::ir::*;
use std::collections::HashMap;

type Key = (Op, Vec<Value>, Type);

fn commutative(op: &Op) -> bool {
    use Binary as B;
    match op {
        Op::Binary(b) => matches!(
            b,
            B::FAdd
                | B::FMul
                | B::IAdd
                | B::IMul
                | B::IMulHiS
                | B::IMulHiU
                | B::IMinS
                | B::IMaxS
                | B::IMinU
                | B::IMaxU
                | B::And
                | B::Or
                | B::Xor
                | B::UAbsDiff
                | B::BAnd
                | B::BOr
        ),
        Op::FCmp(k) => matches!(k, FCmp::Eq | FCmp::Ne),
        Op::ICmp(k) => matches!(k, ICmp::Eq | ICmp::Ne),
        _ => false,
    }
}

struct Gvn {
    table: HashMap<Key, Inst>,
    /// Keys added in each open scope, to forget them at its end.
    scopes: Vec<Vec<Key>>,
    subst: Subst,
}

/// Runs the pass; returns whether anything was merged.
pub fn run(func: &mut Function) -> bool {
    let mut g = Gvn {
        table: HashMap::new(),
        scopes: vec![Vec::new()],
        subst: Subst::new(func),
    };
    let mut body = std::mem::take(&mut func.body);
    g.block(func, &mut body);
    func.body = body;
    let changed = g.subst.changed;
    g.subst.apply(func);
    changed
}

impl Gvn {
    fn scoped(&mut self, func: &Function, b: &mut Block) {
        self.scopes.push(Vec::new());
        self.block(func, b);
        for k in self.scopes.pop().unwrap_or_default() {
            self.table.remove(&k);
        }
    }

    fn block(&mut self, func: &Function, b: &mut Block) {
        b.0.retain_mut(|s| match s {
            Stmt::Inst(i) => {
                let d = &func.insts[*i];
                if !is_pure(&d.op) || d.results.is_empty() {
                    return true;
                }
                let mut args: Vec<Value> = d.args.iter().map(|&a| self.subst.get(a)).collect();
                if commutative(&d.op) {
                    args.sort();
                }
                let key = (d.op.clone(), args, func.ty(d.results[0]));
                match self.table.get(&key) {
                    Some(&j) => {
                        for (r, e) in d.results.iter().zip(&func.insts[j].results) {
                            self.subst.replace(*r, *e);
                        }
                        false
                    }
                    None => {
                        self.table.insert(key.clone(), *i);
                        if let Some(s) = self.scopes.last_mut() {
                            s.push(key);
                        }
                        true
                    }
                }
            }
            Stmt::If(x) => {
                self.scoped(func, &mut x.then_);
                self.scoped(func, &mut x.else_);
                true
            }
            Stmt::Loop(l) => {
                self.scoped(func, &mut l.body);
                true
            }
            _ => true,
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{Binary, Op, lift, verify::verify};

    #[test]
    fn repeated_computations_merge_across_swapped_operands() {
        let mut f = lift::lift(
            &crate::front::text::parse(
                "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0..1]\n\
                 MUL TEMP[0], IN[0], IN[0].yxzw\nMUL TEMP[1], IN[0].yxzw, IN[0]\n\
                 ADD OUT[0], TEMP[0], TEMP[1]\nEND\n",
            )
            .unwrap(),
        )
        .unwrap();
        let count = |f: &crate::ir::Function| {
            let mut n = 0;
            f.for_each_inst(|i| n += matches!(f.insts[i].op, Op::Binary(Binary::FMul)) as usize);
            n
        };
        assert_eq!(count(&f), 8);
        assert!(super::run(&mut f));
        verify(&f).unwrap();
        // x·y and y·x are one product; z·z and w·w repeat: 3 distinct products remain.
        assert_eq!(count(&f), 3);
    }
}
