//! Vector instructions: grouping lanes, dot products, and the output.

use super::sel::{J, Loc, Reg, Sel, Src, VInst, VOp, jop};
use crate::compile::types::TheiaError;
use crate::isa::{ONE, Op as T};
use tgsic::ir::{Binary, Inst, Op, Stmt, Unary, Value};

/// One term of the colour's sum.
enum Term {
    /// A register holding every lane of the colour it provides.
    Whole(Reg),
    /// A register's lanes where the mask is 1.0, zero elsewhere.
    Masked(Reg, [Option<u32>; 3]),
    /// A constant vector.
    Const([Option<u32>; 3]),
}

/// One lane of a vector instruction: the IR instruction, its operands, its lane.
struct Member {
    inst: Inst,
    srcs: Vec<Src>,
    lane: Option<u8>,
}

/// The lane the register operands agree on: Ok(None) when none is in one lane only, Err
/// when two disagree.
fn common_lane(srcs: &[Src]) -> Result<Option<u8>, ()> {
    let mut lane = None;
    for s in srcs {
        if let Src::R(_, Some(l)) = s {
            match lane {
                None => lane = Some(*l),
                Some(x) if x == *l => {}
                Some(_) => return Err(()),
            }
        }
    }
    Ok(lane)
}

impl Sel<'_> {
    /// Where `v` is, without side effects (None: not available for grouping).
    fn peek(&self, v: Value) -> Option<Src> {
        match self.loc[v.index()]? {
            Loc::Lane(r, l) => Some(Src::R(r, Some(l))),
            Loc::All(r) => Some(Src::R(r, None)),
            Loc::Imm(bits, ty) => self.word(bits, ty).ok().map(Src::C),
            Loc::In(reg, comp) => self
                .bind
                .register(reg)
                .map(|a| Src::R(Reg::Phys(a), Some(comp))),
            Loc::Deferred => None,
        }
    }

    /// The operands of a vector operation (a select's condition apart).
    fn operands(&self, i: Inst, vop: VOp) -> Vec<Value> {
        let a = &self.f.insts[i].args;
        match vop {
            VOp::Select => a[1..].to_vec(),
            VOp::Frac => vec![a[0]],
            _ => a.clone(),
        }
    }

    /// Emits a vector operation for `i` and up to two more instructions of `rest` that compute
    /// the same operation on other lanes of the same registers.
    pub(super) fn vector(&mut self, i: Inst, vop: VOp, rest: &[Stmt]) -> Result<(), TheiaError> {
        let f = self.f;
        let d = &f.insts[i];
        let cond = (vop == VOp::Select).then(|| d.args[0]);
        let args = self.operands(i, vop);
        let srcs = args
            .iter()
            .map(|&a| self.src(a))
            .collect::<Result<Vec<_>, _>>()?;
        let Ok(lane) = common_lane(&srcs) else {
            return self.misaligned(i, vop, &args);
        };
        let mut members = vec![Member {
            inst: i,
            srcs,
            lane,
        }];
        for s in rest.iter().take(48) {
            if members.len() == 3 {
                break;
            }
            let Stmt::Inst(j) = s else { break };
            let dj = &f.insts[*j];
            if self.done.contains(j) || dj.op != d.op || dj.origin != d.origin {
                continue;
            }
            if vop == VOp::Select && dj.args[0] != d.args[0] {
                continue;
            }
            if self.classify_sub(*j) != self.classify_sub(i) {
                continue;
            }
            let a = self.operands(*j, vop);
            let Some(srcs) = a.iter().map(|&v| self.peek(v)).collect::<Option<Vec<_>>>() else {
                continue;
            };
            let Ok(lane) = common_lane(&srcs) else {
                continue;
            };
            let same = srcs
                .iter()
                .zip(&members[0].srcs)
                .all(|(x, y)| match (x, y) {
                    (Src::R(a, _), Src::R(b, _)) => a == b,
                    (Src::C(_), Src::C(_)) => true,
                    _ => false,
                });
            let taken = |l: u8| members.iter().any(|m| m.lane == Some(l));
            if !same || lane.is_some_and(taken) {
                continue;
            }
            members.push(Member {
                inst: *j,
                srcs,
                lane,
            });
        }
        if members.len() > 1 {
            for k in 0..members.len() {
                if members[k].lane.is_none() {
                    let free = (0..3u8)
                        .find(|&l| members.iter().all(|m| m.lane != Some(l)))
                        .expect("three lanes for three members");
                    members[k].lane = Some(free);
                }
            }
            // Inputs read by the partners.
            for m in &members[1..] {
                for v in self.operands(m.inst, vop) {
                    self.src(v)?;
                }
            }
        }
        // Operand registers: a shared register, or a constant vector of the members' lanes.
        let mut regs = Vec::new();
        for p in 0..args.len() {
            regs.push(match members[0].srcs[p] {
                Src::R(r, _) => r,
                Src::C(_) => self.konst_lanes(&members, |m| match m.srcs[p] {
                    Src::C(w) => w,
                    Src::R(..) => 0,
                }),
            });
        }
        if vop == VOp::Bin(T::Mul)
            && d.op == Op::Binary(Binary::FMul)
            && self.dot(&members, &regs, rest)?
        {
            return Ok(());
        }
        let dst = self.new_v();
        self.vop(vop, dst, &regs, &members, cond)?;
        for m in &members {
            let r = f.insts[m.inst].results[0];
            self.set(r, dst, m.lane);
            self.done.insert(m.inst);
        }
        Ok(())
    }

    /// Distinguishes `x − floor(x)` (FRAC) from other subtractions.
    fn classify_sub(&self, i: Inst) -> bool {
        let d = &self.f.insts[i];
        d.op == Op::Binary(Binary::FSub)
            && self.f.def_inst(d.args[1]).is_some_and(|k| {
                self.f.insts[k].op == Op::Unary(Unary::FFloor)
                    && self.f.insts[k].args[0] == d.args[0]
            })
    }

    /// A constant vector with each member's word in its lane (every lane for a lone member
    /// without one).
    fn konst_lanes(&mut self, members: &[Member], word: impl Fn(&Member) -> u32) -> Reg {
        if members.len() == 1 && members[0].lane.is_none() {
            let w = word(&members[0]);
            return self.konst([Some(w); 3]);
        }
        let mut lanes = [None; 3];
        for m in members {
            lanes[m.lane.expect("lane") as usize] = Some(word(m));
        }
        self.konst(lanes)
    }

    /// Operands in different lanes: a sum of two lanes of one register is a masked DOT;
    /// otherwise the operands are broadcast.
    fn misaligned(&mut self, i: Inst, vop: VOp, args: &[Value]) -> Result<(), TheiaError> {
        let r = self.f.insts[i].results[0];
        if vop == VOp::Bin(T::Add)
            && let (Some(Src::R(a, Some(la))), Some(Src::R(b, Some(lb)))) =
                (self.peek(args[0]), self.peek(args[1]))
            && a == b
        {
            let mut mask = [Some(0); 3];
            mask[la as usize] = Some(ONE);
            mask[lb as usize] = Some(ONE);
            let k = self.konst(mask);
            let dst = self.new_v();
            self.alu(T::Dot, dst, a, k);
            self.set(r, dst, None);
            return Ok(());
        }
        let (lane, regs) = self.align(args)?;
        let dst = self.new_v();
        let member = Member {
            inst: i,
            srcs: Vec::new(),
            lane,
        };
        let cond = (vop == VOp::Select).then(|| self.f.insts[i].args[0]);
        self.vop(vop, dst, &regs, std::slice::from_ref(&member), cond)?;
        self.set(r, dst, lane);
        Ok(())
    }

    /// `Σ a·b` over the lanes of a product group whose results only feed one sum: one DOT.
    fn dot(&mut self, members: &[Member], regs: &[Reg], rest: &[Stmt]) -> Result<bool, TheiaError> {
        let f = self.f;
        let results: Vec<Value> = members.iter().map(|m| f.insts[m.inst].results[0]).collect();
        if members.len() < 2 || results.iter().any(|&r| self.uses[r.index()] != 1) {
            return Ok(false);
        }
        let is_add = |j: &Inst, x: Value, y: Value| {
            let d = &f.insts[*j];
            d.op == Op::Binary(Binary::FAdd)
                && ((d.args[0] == x && d.args[1] == y) || (d.args[0] == y && d.args[1] == x))
        };
        let find = |x: Value, y: Value| {
            rest.iter().find_map(|s| match s {
                Stmt::Inst(j) if is_add(j, x, y) => Some(*j),
                _ => None,
            })
        };
        let mut first = None;
        'pairs: for a in 0..results.len() {
            for b in a + 1..results.len() {
                if let Some(j) = find(results[a], results[b]) {
                    first = Some((j, a, b));
                    break 'pairs;
                }
            }
        }
        let Some((a1, x, y)) = first else {
            return Ok(false);
        };
        let s1 = f.insts[a1].results[0];
        let (root, absorbed) = if members.len() == 3 {
            let z = 3 - x - y;
            if self.uses[s1.index()] != 1 {
                return Ok(false);
            }
            match find(s1, results[z]) {
                Some(a2) => (a2, vec![a1, a2]),
                None => return Ok(false),
            }
        } else {
            (a1, vec![a1])
        };
        let mut regs = regs.to_vec();
        if members.len() == 2 {
            // The third lane must contribute 0: zero it in a constant operand.
            let free = (0..3u8)
                .find(|&l| members.iter().all(|m| m.lane != Some(l)))
                .expect("a free lane");
            let Some(p) = (0..2).find(|&p| matches!(members[0].srcs[p], Src::C(_))) else {
                return Ok(false);
            };
            let mut lanes = [None; 3];
            for m in members {
                if let Src::C(w) = m.srcs[p] {
                    lanes[m.lane.expect("lane") as usize] = Some(w);
                }
            }
            lanes[free as usize] = Some(0);
            regs[p] = self.konst(lanes);
        }
        let dst = self.new_v();
        let line = self.alu(T::Dot, dst, regs[0], regs[1]);
        let sum = f.insts[root].results[0];
        self.set(sum, dst, None);
        let square = members
            .iter()
            .all(|m| f.insts[m.inst].args[0] == f.insts[m.inst].args[1]);
        if square && members.len() == 3 {
            self.dots.insert(sum, line);
        }
        for m in members {
            self.done.insert(m.inst);
        }
        for j in absorbed {
            self.done.insert(j);
        }
        Ok(true)
    }

    /// Whether every lane of constant vector `k` is within the multiplier's safe SRC1 range.
    fn small_constant(&self, k: u32) -> bool {
        self.consts[k as usize]
            .iter()
            .all(|w| w.is_none_or(|w| (w as i32).unsigned_abs() <= 0x5555_5555))
    }

    /// Emits one vector operation into `dst`.
    fn vop(
        &mut self,
        vop: VOp,
        dst: Reg,
        regs: &[Reg],
        members: &[Member],
        cond: Option<Value>,
    ) -> Result<(), TheiaError> {
        let a = regs[0];
        match vop {
            VOp::Bin(op @ (T::Mul | T::Imul)) => {
                // b1.2's multiplier is wrong when |SRC1| > 0x55555555 (and a digit of SRC2 is
                // 3): a constant operand within that bound goes first, so only the other
                // operand's size matters.
                let (x, y) = match (a, regs[1]) {
                    (x, Reg::K(k)) if !matches!(x, Reg::K(_)) && self.small_constant(k) => {
                        (Reg::K(k), x)
                    }
                    (x, y) => (x, y),
                };
                self.alu(op, dst, x, y);
            }
            VOp::Bin(op) => {
                self.alu(op, dst, a, regs[1]);
            }
            VOp::Un(op) => {
                self.alu(op, dst, a, Reg::Void);
            }
            VOp::Frac => {
                self.alu(T::Frac, dst, a, Reg::Void);
            }
            VOp::Floor => {
                let t = self.new_v();
                self.alu(T::Frac, t, a, Reg::Void);
                self.alu(T::Sub, dst, a, t);
            }
            VOp::Ceil => {
                let t = self.new_v();
                let u = self.new_v();
                self.alu(T::Neg, t, a, Reg::Void);
                self.alu(T::Frac, u, t, Reg::Void);
                self.alu(T::Sub, t, t, u);
                self.alu(T::Neg, dst, t, Reg::Void);
            }
            VOp::BNot => {
                let one = self.konst_lanes(members, |_| ONE);
                self.alu(T::Sub, dst, one, a);
            }
            VOp::BOr => {
                let t = self.new_v();
                let u = self.new_v();
                self.alu(T::Add, t, a, regs[1]);
                self.alu(T::Mul, u, a, regs[1]);
                self.alu(T::Sub, dst, t, u);
            }
            VOp::BoolToInt => {
                let t = self.new_v();
                self.alu(T::Unscale, t, a, Reg::Void);
                self.alu(T::Neg, dst, t, Reg::Void);
            }
            VOp::I2F => {
                let k = self.konst_lanes(members, |_| ONE);
                self.alu(T::Imul, dst, a, k);
            }
            VOp::Fma => {
                let t = self.new_v();
                self.alu(T::Mul, t, a, regs[1]);
                self.alu(T::Add, dst, t, regs[2]);
            }
            VOp::Select => {
                let c = cond.expect("select condition");
                let (cr, cl) = match self.src(c)? {
                    Src::R(r, l) => (r, l.unwrap_or(0)),
                    Src::C(w) => {
                        // A constant condition picks one operand.
                        let pick = if w != 0 { a } else { regs[1] };
                        self.alu(T::Copy, dst, pick, Reg::Void);
                        return Ok(());
                    }
                };
                let z = self.k_at(0, Some(cl));
                let skip = self.label();
                self.alu(T::Copy, dst, regs[1], Reg::Void);
                self.emit(VInst::Jump {
                    op: jop(J::Eq, cl),
                    target: skip,
                    a: cr,
                    b: z,
                });
                self.alu(T::Copy, dst, a, Reg::Void);
                self.emit(VInst::Label(skip));
                self.emit(VInst::Keep(vec![a, regs[1], cr]));
            }
        }
        Ok(())
    }

    /// Writes the colour (red, green, blue) of output register `color` to OREG_PIXEL_COLOR.
    pub(super) fn output(&mut self, color: u32) -> Result<(), TheiaError> {
        let oreg = Reg::Phys(128);
        let mut regs: Vec<(Reg, [bool; 3])> = Vec::new();
        let mut consts = [None; 3];
        for c in 0..3u8 {
            let Some(v) = self.outputs[c as usize] else {
                continue;
            };
            // Errors (a constant colour outside Q15.17) name the last write of the component.
            self.origin = self
                .p
                .instructions
                .iter()
                .rposition(|i| {
                    i.dst.iter().any(|d| {
                        d.register.file == tgsic::tgsi::File::Output
                            && d.register.index.offset == color as i32
                            && d.write_mask.has(c as usize)
                    })
                })
                .map(|k| k as u32);
            let r = match self.src(v)? {
                Src::C(0) => continue,
                Src::C(w) => {
                    consts[c as usize] = Some(w);
                    continue;
                }
                Src::R(r, None) => r,
                Src::R(r, Some(l)) if l == c => r,
                Src::R(..) => self.broadcast(v)?,
            };
            match regs.iter_mut().find(|(x, _)| *x == r) {
                Some((_, m)) => m[c as usize] = true,
                None => {
                    let mut m = [false; 3];
                    m[c as usize] = true;
                    regs.push((r, m));
                }
            }
        }
        let mut terms: Vec<Term> = regs
            .into_iter()
            .map(|(r, m)| {
                if m == [true; 3] || self.fold_mask(r, m) {
                    Term::Whole(r)
                } else {
                    Term::Masked(r, m.map(|b| Some(if b { ONE } else { 0 })))
                }
            })
            .collect();
        if consts.iter().any(Option::is_some) || terms.is_empty() {
            terms.push(Term::Const(consts.map(|c| Some(c.unwrap_or(0)))));
        }
        // Each term into a register, summed; the last instruction writes the colour.
        let n = terms.len();
        let mut acc: Option<Reg> = None;
        for (k, t) in terms.into_iter().enumerate() {
            let last = k + 1 == n;
            let d = match t {
                // A whole register is summed as it is (copied only when it is the colour).
                Term::Whole(r) if !(last && acc.is_none()) => r,
                _ if last && acc.is_none() => oreg,
                _ => self.new_v(),
            };
            match t {
                Term::Whole(r) => {
                    if d != r {
                        self.alu(T::Copy, d, r, Reg::Void);
                    }
                }
                Term::Masked(r, mask) => {
                    let k = self.konst(mask);
                    self.alu(T::Mul, d, r, k);
                }
                Term::Const(lanes) => {
                    let k = self.konst(lanes);
                    self.alu(T::Copy, d, k, Reg::Void);
                }
            }
            acc = Some(match acc {
                None => d,
                Some(x) => {
                    let sum = if last { oreg } else { self.new_v() };
                    self.alu(T::Add, sum, x, d);
                    sum
                }
            });
        }
        Ok(())
    }

    /// When `r` is written once, by a product with a constant vector, and read by nothing but
    /// the colour's lanes `mask`: the constant's other lanes become 0 (0·x is exactly 0 on
    /// THEIA), so `r` needs no mask. Returns whether it did.
    fn fold_mask(&mut self, r: Reg, mask: [bool; 3]) -> bool {
        let Reg::V(_) = r else { return false };
        let mut def = None;
        for (k, l) in self.lines.iter().enumerate() {
            let reads = match &l.inst {
                VInst::Alu { dst, a, b, .. } => {
                    if *dst == r {
                        if def.is_some() {
                            return false;
                        }
                        def = Some(k);
                    }
                    *a == r || *b == r
                }
                VInst::Imm { dst, .. } => *dst == r,
                VInst::Jump { a, b, .. } => *a == r || *b == r,
                VInst::Keep(regs) => regs.contains(&r),
                _ => false,
            };
            if reads {
                return false;
            }
        }
        let Some(k) = def else { return false };
        let VInst::Alu {
            op: T::Mul,
            dst,
            a,
            b,
        } = self.lines[k].inst.clone()
        else {
            return false;
        };
        let (kreg, other, k_first) = match (a, b) {
            (Reg::K(c), x) => (c, x, true),
            (x, Reg::K(c)) => (c, x, false),
            _ => return false,
        };
        let old = self.consts[kreg as usize];
        if (0..3).any(|c| mask[c] && old[c].is_none()) {
            return false;
        }
        let lanes: [Option<u32>; 3] =
            std::array::from_fn(|c| if mask[c] { old[c] } else { Some(0) });
        let Some(new) = self.konst_register(lanes) else {
            // No constant register left: keep the mask.
            return false;
        };
        let (a, b) = if k_first {
            (Reg::K(new), other)
        } else {
            (other, Reg::K(new))
        };
        self.lines[k].inst = VInst::Alu {
            op: T::Mul,
            dst,
            a,
            b,
        };
        true
    }

    /// When the colour is one register read by nothing but the final copy, every write of that
    /// register goes to OREG_PIXEL_COLOR instead and the copy disappears.
    pub(super) fn retarget_output(&mut self) {
        let Some(VInst::Alu {
            op: T::Copy,
            dst: Reg::Phys(128),
            a: Reg::V(v),
            ..
        }) = self.lines.last().map(|l| l.inst.clone())
        else {
            return;
        };
        let last = self.lines.len() - 1;
        let target = Reg::V(v);
        let mut defs = Vec::new();
        for (k, l) in self.lines[..last].iter().enumerate() {
            match &l.inst {
                VInst::Alu { dst, a, b, .. } => {
                    if *a == target || *b == target {
                        return;
                    }
                    if *dst == target {
                        defs.push(k);
                    }
                }
                VInst::Imm { dst, .. } if *dst == target => return,
                VInst::Jump { a, b, .. } if *a == target || *b == target => return,
                VInst::Keep(r) if r.contains(&target) => return,
                _ => {}
            }
        }
        for k in defs {
            if let VInst::Alu { dst, .. } = &mut self.lines[k].inst {
                *dst = Reg::Phys(128);
            }
        }
        self.lines.pop();
    }
}
