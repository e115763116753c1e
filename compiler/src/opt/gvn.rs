//! Value numbering: a pure instruction that repeats one seen earlier in a dominating position
//! (the same block or an enclosing one) with the same operation and arguments is replaced by
//! the earlier result. Commutative operations match with their arguments in either order.
//!
//! Scoped: what is computed inside an `If` branch or a loop body is forgotten when the region
//! ends. Instructions that read array memory are not merged (a store may come between).
//! Invariant kept: the function verifies and computes the same bits.

use super::util::{Subst, is_pure};
use crate::ir::*;

type Key = (Op, Vec<Value>, Type);

type Table = crate::maps::FastMap<Key, (Inst, u32)>;

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
    /// Each computation seen, the instruction that made it and the scope it was made in.
    table: Table,
    /// Whether each scope (by number) is still open: an entry of a closed one is forgotten
    /// (the next instruction with its key takes its place).
    open: Vec<bool>,
    /// The innermost open scope.
    scope: u32,
    subst: Subst,
}

/// Runs the pass; returns whether anything was merged.
pub fn run(func: &mut Function) -> bool {
    let mut g = Gvn {
        table: Table::with_capacity_and_hasher(func.insts.len(), Default::default()),
        open: vec![true],
        scope: 0,
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
        let outer = self.scope;
        self.scope = self.open.len() as u32;
        self.open.push(true);
        self.block(func, b);
        self.open[self.scope as usize] = false;
        self.scope = outer;
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
                match self.table.entry(key) {
                    std::collections::hash_map::Entry::Occupied(mut e) => {
                        let (j, scope) = *e.get();
                        if self.open[scope as usize] {
                            for (r, e) in d.results.iter().zip(&func.insts[j].results) {
                                self.subst.replace(*r, *e);
                            }
                            return false;
                        }
                        e.insert((*i, self.scope));
                        true
                    }
                    std::collections::hash_map::Entry::Vacant(e) => {
                        e.insert((*i, self.scope));
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
