//! The lifter's variables: the SSA value each TGSI register component and invocation flag holds
//! at the point being lifted, with an undo journal.
//!
//! A branch or a loop body is lifted, then undone: [`Env::checkpoint`] marks the journal and
//! [`Env::rollback`] restores every variable written since, returning what the branch left in
//! them. Both cost time proportional to what the branch wrote, not to how many variables exist,
//! so a program with thousands of declared registers and thousands of IFs lifts in linear time.

use super::var::Var;
use crate::ir::Value;
use crate::maps::FastMap;
use std::collections::BTreeMap;

/// Variables with their current values and the journal of changes made since the oldest open
/// checkpoint.
#[derive(Debug, Default)]
pub(super) struct Env {
    map: FastMap<Var, Value>,
    /// Each change as (variable, value before); kept only while a checkpoint is open.
    journal: Vec<(Var, Option<Value>)>,
    /// Checkpoints not yet rolled back.
    open: usize,
}

/// A point in the journal to roll back to.
#[must_use = "a checkpoint must be rolled back"]
pub(super) struct Checkpoint(usize);

impl Env {
    /// The value of `v`, if it has one.
    pub fn get(&self, v: &Var) -> Option<&Value> {
        self.map.get(v)
    }

    /// Whether `v` has a value.
    pub fn contains_key(&self, v: &Var) -> bool {
        self.map.contains_key(v)
    }

    /// Sets `v` to `x`.
    pub fn insert(&mut self, v: Var, x: Value) {
        let old = self.map.insert(v, x);
        if self.open > 0 && old != Some(x) {
            self.journal.push((v, old));
        }
    }

    /// Removes `v`.
    pub fn remove(&mut self, v: &Var) {
        let old = self.map.remove(v);
        if self.open > 0 && old.is_some() {
            self.journal.push((*v, old));
        }
    }

    /// Marks the current state, to come back to with [`Env::rollback`].
    pub fn checkpoint(&mut self) -> Checkpoint {
        self.open += 1;
        Checkpoint(self.journal.len())
    }

    /// Restores every variable changed since `cp` to its value at `cp`; returns the changed
    /// variables, in order, with the values they had just before (`None`: removed).
    pub fn rollback(&mut self, cp: Checkpoint) -> BTreeMap<Var, Option<Value>> {
        let changes = self.journal.split_off(cp.0);
        let mut last = BTreeMap::new();
        for &(v, _) in &changes {
            last.entry(v).or_insert_with(|| self.map.get(&v).copied());
        }
        for (v, old) in changes.into_iter().rev() {
            match old {
                Some(x) => {
                    self.map.insert(v, x);
                }
                None => {
                    self.map.remove(&v);
                }
            }
        }
        self.open -= 1;
        last
    }
}
