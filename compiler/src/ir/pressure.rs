//! Register pressure: how many values are live at once, at most, in the order the statements
//! run. Back ends use it to choose how many lanes a step holds: a step of `lanes` lanes keeps
//! each live value in `lanes / width` host registers, and values beyond the register file go
//! to the stack and back.
//!
//! It is an estimate over the structured IR, in program order: a value is live from its
//! definition to its last use; a value defined before a loop and used in it stays live to the
//! loop's end (the next iteration reads it again), and so do the loop's parameters. Constants
//! do not count (a target reads them from memory as operands or rebuilds them).

use super::*;

/// The most non-constant values live at once in `f` (see the module documentation).
pub fn max_live(f: &Function) -> usize {
    let mut w = Walk {
        f,
        pos: 0,
        def: vec![usize::MAX; f.values.len()],
        last: vec![0; f.values.len()],
        loops: Vec::new(),
        pending: Vec::new(),
    };
    w.block(&f.body);
    // Values read inside a loop but defined before it: live to the loop's end.
    for (v, start, end) in w.pending {
        if w.def[v.index()] < start {
            w.last[v.index()] = w.last[v.index()].max(end);
        }
    }
    let mut events: Vec<(usize, i32)> = Vec::new();
    for (k, (&d, &l)) in w.def.iter().zip(&w.last).enumerate() {
        let constant = matches!(f.values[Value::new(k)].def, Def::Inst(i, _) if matches!(f.insts[i].op, Op::Const(_)));
        if d != usize::MAX && l > d && !constant {
            events.push((d, 1));
            events.push((l, -1));
        }
    }
    // At one position, ends come before starts: a value last read by the instruction that
    // defines another can share its register.
    events.sort_unstable();
    let (mut live, mut most) = (0i32, 0i32);
    for (_, e) in events {
        live += e;
        most = most.max(live);
    }
    most as usize
}

struct Walk<'a> {
    f: &'a Function,
    pos: usize,
    def: Vec<usize>,
    last: Vec<usize>,
    /// The starts of the loops being walked, outermost first.
    loops: Vec<usize>,
    /// (value, loop start, loop end) for each use inside a loop.
    pending: Vec<(Value, usize, usize)>,
}

impl Walk<'_> {
    fn define(&mut self, v: Value) {
        self.def[v.index()] = self.pos;
    }

    fn read(&mut self, v: Value) {
        let k = v.index();
        self.last[k] = self.last[k].max(self.pos);
        for &start in &self.loops {
            // The end is filled in when the loop is left.
            self.pending.push((v, start, usize::MAX));
        }
    }

    fn block(&mut self, b: &Block) {
        for s in &b.0 {
            self.pos += 1;
            match s {
                Stmt::Inst(i) => {
                    let d = &self.f.insts[*i];
                    d.args.iter().for_each(|&a| self.read(a));
                    d.results.iter().for_each(|&r| self.define(r));
                }
                Stmt::If(x) => {
                    self.read(x.cond);
                    self.block(&x.then_);
                    self.block(&x.else_);
                    self.pos += 1;
                    x.results.iter().for_each(|&r| self.define(r));
                }
                Stmt::Loop(l) => {
                    l.inits.iter().for_each(|&a| self.read(a));
                    self.pos += 1;
                    let start = self.pos;
                    l.params.iter().for_each(|&p| self.define(p));
                    let first = self.pending.len();
                    self.loops.push(start);
                    self.block(&l.body);
                    self.loops.pop();
                    self.pos += 1;
                    let end = self.pos;
                    for p in &mut self.pending[first..] {
                        if p.1 == start {
                            p.2 = end;
                        }
                    }
                    for &p in &l.params {
                        self.last[p.index()] = self.last[p.index()].max(end);
                    }
                    l.results.iter().for_each(|&r| self.define(r));
                }
                Stmt::Break(v) | Stmt::Continue(v) | Stmt::Yield(v) => {
                    v.iter().for_each(|&a| self.read(a));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn straight_line_code_holds_what_it_still_reads() {
        // Four inputs read, then summed pairwise: at most the four and no more.
        let f = crate::opt::optimized_text(
            "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL TEMP[0]\n\
             ADD TEMP[0].x, IN[0].xxxx, IN[0].yyyy\nADD TEMP[0].y, IN[0].zzzz, IN[0].wwww\n\
             ADD OUT[0].x, TEMP[0].xxxx, TEMP[0].yyyy\nEND\n",
        );
        let n = max_live(&f);
        assert!((2..=4).contains(&n), "{n}");
    }

    #[test]
    fn a_value_read_in_a_loop_stays_live_through_it() {
        // IN[0].x..w are read at the loop's start only, yet live across the whole loop, where
        // the running sum and the loop's own values join them.
        let with_loop = crate::opt::optimized_text(
            "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL TEMP[0..1]\n\
             MOV TEMP[1], IN[0]\nBGNLOOP\nADD TEMP[0], TEMP[0], TEMP[1]\n\
             SGE TEMP[0].y, TEMP[0].xxxx, TEMP[1].wwww\nIF TEMP[0].yyyy\nBRK\nENDIF\nENDLOOP\n\
             MOV OUT[0], TEMP[0]\nEND\n",
        );
        assert!(max_live(&with_loop) >= 6, "{}", max_live(&with_loop));
    }
}
