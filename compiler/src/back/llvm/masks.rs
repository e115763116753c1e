//! Lane masks as words on hosts without mask registers.
//!
//! The shared lowering's masks are `<lanes x i1>`, and LLVM's optimizer keeps them so (it folds
//! a phi of sign-extended masks back into a phi of masks, so the builder cannot simply store
//! words). AVX-512 holds such a vector in a mask register. AVX2 has none, and LLVM's
//! instruction selection carries an `i1` vector that is not a comparison's direct operand in
//! bytes: a mask that is combined (`and`, `or`, `xor`, `select` of masks) or that reaches
//! another block (a phi) is packed from the comparison's words (`vpackssdw`, `vpacksswb`,
//! `vpshufd`) and unpacked again for every blend (`vpmovzxbd`, `vpslld`). In a loop under a
//! mask that is most of an iteration: piglit_loop_300 spent 31 instructions an iteration at
//! 16 lanes, two thirds of them packing its mask phis and their `and`s.
//!
//! [`masks_as_words`] runs after the optimizer, when nothing folds the words back. Every
//! comparison's mask is also sign-extended to words (free: the comparison computed them);
//! every `and`, `or`, `xor`, mask `select` and phi of masks is rebuilt on the words; and a use
//! that needs a mask (a blend's selector, `movmsk`'s bits, a gather's lanes) reads the words'
//! sign bits (`icmp slt 0`), which x86's blend and `movmsk` take as they are. A comparison's
//! users in its own block keep the comparison itself. A set lane is all ones as a word, so
//! the function computes what it did.

use crate::back::abi::Invariant;
use crate::maps::FastMap;
use inkwell::IntPredicate;
use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::intrinsics::Intrinsic;
use inkwell::module::Module;
use inkwell::types::{AnyType, AnyTypeEnum, VectorType};
use inkwell::values::{
    AnyValue, AnyValueEnum, BasicValue, BasicValueEnum, InstructionOpcode, InstructionValue,
    PhiValue, ValueKind, VectorValue,
};

use crate::back::abi::JitError;

type R<T> = Result<T, JitError>;

fn codegen(what: &str) -> JitError {
    Invariant::MaskWords(what.to_string()).into()
}

/// Rewrites the masks of every function of `module` as words (see the module documentation),
/// for a host whose widest vector has `width` 32-bit lanes (4 or 8).
///
/// # Errors
/// [`JitError::Backend`] or [`JitError::Invariant`] if LLVM's builder fails or the IR is not as the optimizer leaves it.
pub(super) fn masks_as_words<'ctx>(cx: &'ctx Context, module: &Module<'ctx>, width: u32) -> R<()> {
    for f in module.get_functions() {
        let mut w = Words {
            cx,
            m: module,
            width,
            b: cx.create_builder(),
            words: FastMap::default(),
        };
        let masks: Vec<InstructionValue> = f
            .get_basic_blocks()
            .into_iter()
            .flat_map(instructions)
            .filter(|i| mask_type(i.get_type()).is_some())
            .collect();
        if masks.is_empty() {
            continue;
        }
        // The builder has a place from the start: a constant mask's words are folded by it
        // (nothing is inserted), but LLVM's builder refuses to fold without a position.
        let entry = f
            .get_first_basic_block()
            .ok_or_else(|| codegen("a function with masks and no block"))?;
        match entry.get_first_instruction() {
            Some(first) => w.b.position_before(&first),
            None => w.b.position_at_end(entry),
        }
        // Phis first, empty, so that a cycle of them through the loop's back edge ends at one.
        for &i in &masks {
            if let Ok(p) = PhiValue::try_from(i) {
                w.b.position_before(&i);
                let ty = w.word_type(i)?;
                let np = w.b.build_phi(ty, "mask.words")?;
                w.words
                    .insert(p.as_basic_value(), np.as_basic_value().into_vector_value());
            }
        }
        for &i in &masks {
            w.word(i.as_any_value_enum())?;
        }
        for &i in &masks {
            let Ok(p) = PhiValue::try_from(i) else {
                continue;
            };
            let np = PhiValue::try_from(
                w.words[&p.as_basic_value()]
                    .as_instruction()
                    .ok_or_else(|| codegen("phi"))?,
            )
            .map_err(|_| codegen("phi"))?;
            for (v, from) in p.get_incomings() {
                let word = w.word(v.as_any_value_enum())?;
                np.add_incoming(&[(&word as &dyn BasicValue, from)]);
            }
        }
        // Users that stay read the words' sign bits, except a comparison's users in its block.
        for &i in &masks {
            let rebuilt = is_rebuilt(i);
            let word = w.words[&basic(i)?];
            for user in users(i) {
                if is_rebuilt(user) && mask_type(user.get_type()).is_some() {
                    continue;
                }
                if user.get_opcode() == InstructionOpcode::SExt
                    && word.as_instruction() != Some(user)
                    && user.get_type() == word.get_type().as_any_type_enum()
                {
                    // The mask as words: the words themselves.
                    let ext = basic(user)?.into_vector_value();
                    ext.replace_all_uses_with(word);
                    continue;
                }
                // A comparison tested in its own block is one `movmsk` of its words already.
                if !rebuilt && user.get_parent() == i.get_parent() {
                    continue;
                }
                if w.any_test(user, word)? {
                    continue;
                }
                w.b.position_before(&user);
                let zero = word.get_type().const_zero();
                let mask =
                    w.b.build_int_compare(IntPredicate::SLT, word, zero, "mask")?;
                for k in 0..user.get_num_operands() {
                    if user.get_operand(k).and_then(|o| o.value()) == Some(basic(i)?) {
                        user.set_operand(k, mask);
                    }
                }
            }
        }
        // The rebuilt masks have no users left but one another.
        let rebuilt: Vec<InstructionValue> = masks.into_iter().filter(|&i| is_rebuilt(i)).collect();
        for &i in &rebuilt {
            let v = basic(i)?.into_vector_value();
            v.replace_all_uses_with(v.get_type().get_poison());
        }
        for i in rebuilt {
            i.erase_from_basic_block();
        }
    }
    Ok(())
}

/// The words of each mask made so far, and the builder that makes them.
struct Words<'a, 'ctx> {
    cx: &'ctx Context,
    m: &'a Module<'ctx>,
    /// The host's widest vector of 32-bit lanes (8 with AVX2, 4 with SSE4.1).
    width: u32,
    b: Builder<'ctx>,
    words: FastMap<BasicValueEnum<'ctx>, VectorValue<'ctx>>,
}

impl<'ctx> Words<'_, 'ctx> {
    fn word_type(&self, i: InstructionValue<'ctx>) -> R<VectorType<'ctx>> {
        let n = mask_type(i.get_type()).ok_or_else(|| codegen("not a mask"))?;
        Ok(self.cx.i32_type().vec_type(n))
    }

    /// The words of mask `v`, made where they dominate every use of `v`: after `v` (a
    /// comparison, or anything else that makes a mask), or rebuilt there from its operands'
    /// words (`and`, `or`, `xor`, `select`); a constant's are a constant.
    fn word(&mut self, v: AnyValueEnum<'ctx>) -> R<VectorValue<'ctx>> {
        let bv = BasicValueEnum::try_from(v).map_err(|_| codegen("not a value"))?;
        if let Some(&w) = self.words.get(&bv) {
            return Ok(w);
        }
        let vv = bv.into_vector_value();
        let n = vv.get_type().get_size();
        let ty = self.cx.i32_type().vec_type(n);
        let Some(i) = vv.as_instruction() else {
            // A constant (or poison): the builder folds its extension. (The lowering makes no
            // function that takes a mask as a parameter, whose extension would need a place.)
            if !vv.is_const() {
                return Err(codegen(
                    "a mask that is neither an instruction nor a constant",
                ));
            }
            let w = self.b.build_int_s_extend(vv, ty, "")?;
            self.words.insert(bv, w);
            return Ok(w);
        };
        let ops: Vec<BasicValueEnum> = (0..i.get_num_operands())
            .filter_map(|k| i.get_operand(k).and_then(|o| o.value()))
            .collect();
        let w = match i.get_opcode() {
            op @ (InstructionOpcode::And | InstructionOpcode::Or | InstructionOpcode::Xor) => {
                let (a, c) = (self.word_of(ops[0])?, self.word_of(ops[1])?);
                self.after(i)?;
                match op {
                    InstructionOpcode::And => self.b.build_and(a, c, "")?,
                    InstructionOpcode::Or => self.b.build_or(a, c, "")?,
                    _ => self.b.build_xor(a, c, "")?,
                }
            }
            InstructionOpcode::Select => {
                let (a, c) = (self.word_of(ops[1])?, self.word_of(ops[2])?);
                match ops[0] {
                    // Between a constant and another mask, bit operations (one `vpandn`
                    // or `vpor` when the constant is all clear or all set); otherwise a blend
                    // on the condition's sign bits.
                    BasicValueEnum::VectorValue(m) if a.is_const() || c.is_const() => {
                        let cw = self.word(m.as_any_value_enum())?;
                        self.after(i)?;
                        let then = self.b.build_and(cw, a, "")?;
                        let not = self.b.build_not(cw, "")?;
                        let otherwise = self.b.build_and(not, c, "")?;
                        self.b.build_or(then, otherwise, "")?
                    }
                    BasicValueEnum::VectorValue(m) => {
                        let cw = self.word(m.as_any_value_enum())?;
                        self.after(i)?;
                        let cond =
                            self.b
                                .build_int_compare(IntPredicate::SLT, cw, ty.const_zero(), "")?;
                        self.b.build_select(cond, a, c, "")?.into_vector_value()
                    }
                    s => {
                        self.after(i)?;
                        self.b
                            .build_select(s.into_int_value(), a, c, "")?
                            .into_vector_value()
                    }
                }
            }
            _ => {
                self.after(i)?;
                self.b.build_int_s_extend(vv, ty, "")?
            }
        };
        self.words.insert(bv, w);
        Ok(w)
    }

    /// If `user` takes a mask's bits only to test them against zero (`bitcast` to an integer
    /// of a bit a lane, then `icmp eq`/`ne 0`: how the optimizer leaves "any lane set"),
    /// tests the mask's `word`s instead and says so: the host's vectors of them ORed into one
    /// and `ptest`ed (at 16 lanes on AVX2 `vpor` and `vptest`, where the mask's bits took two
    /// sign comparisons, a pack and a `movmsk`). The bitcast is then left without users.
    fn any_test(&mut self, user: InstructionValue<'ctx>, word: VectorValue<'ctx>) -> R<bool> {
        if user.get_opcode() != InstructionOpcode::BitCast {
            return Ok(false);
        }
        let tests = users(user);
        let zero_test = |t: &InstructionValue| {
            t.get_opcode() == InstructionOpcode::ICmp
                && matches!(
                    t.get_icmp_predicate(),
                    Some(IntPredicate::EQ | IntPredicate::NE)
                )
                && t.get_operand(1).and_then(|o| o.value()).is_some_and(|c| {
                    c.is_int_value() && c.into_int_value().get_zero_extended_constant() == Some(0)
                })
        };
        if tests.is_empty() || !tests.iter().all(zero_test) {
            return Ok(false);
        }
        let n = word.get_type().get_size();
        // `ptest` of 256 bits with AVX (AVX2 hosts), else of 128 (SSE4.1).
        let (chunk, name) = if self.width >= 8 && n >= 8 {
            (8, "llvm.x86.avx.ptestz.256")
        } else {
            (4, "llvm.x86.sse41.ptestz")
        };
        let ptest = Intrinsic::find(name)
            .and_then(|f| f.get_declaration(self.m, &[]))
            .ok_or_else(|| codegen(name))?;
        let i32t = self.cx.i32_type();
        let q = self.cx.i64_type().vec_type(chunk / 2);
        for t in tests {
            let pred = t.get_icmp_predicate().ok_or_else(|| codegen("icmp"))?;
            self.b.position_before(&t);
            let mut or: Option<VectorValue> = None;
            for k in 0..n.div_ceil(chunk) {
                let lanes: Vec<_> = (0..chunk)
                    .map(|l| i32t.const_int(((k * chunk + l) % n) as u64, false))
                    .collect();
                let part = self.b.build_shuffle_vector(
                    word,
                    word.get_type().get_poison(),
                    VectorType::const_vector(&lanes),
                    "",
                )?;
                or = Some(match or {
                    None => part,
                    Some(o) => self.b.build_or(o, part, "")?,
                });
            }
            let or = or.ok_or_else(|| codegen("no lanes"))?;
            let x = self.b.build_bit_cast(or, q, "")?;
            let zero = match self
                .b
                .build_call(ptest, &[x.into(), x.into()], "")?
                .try_as_basic_value()
            {
                ValueKind::Basic(v) => v.into_int_value(),
                _ => return Err(codegen("ptest returns nothing")),
            };
            // `ptestz` is 1 when every bit is clear: the bits are 0 when it is not 0.
            let p = match pred {
                IntPredicate::EQ => IntPredicate::NE,
                _ => IntPredicate::EQ,
            };
            let test = self
                .b
                .build_int_compare(p, zero, i32t.const_zero(), "any")?;
            basic(t)?.into_int_value().replace_all_uses_with(test);
        }
        Ok(true)
    }

    fn word_of(&mut self, v: BasicValueEnum<'ctx>) -> R<VectorValue<'ctx>> {
        self.word(v.as_any_value_enum())
    }

    /// Positions the builder right after `i` (after the phis of its block if it is one).
    fn after(&mut self, i: InstructionValue<'ctx>) -> R<()> {
        let mut next = i.get_next_instruction();
        while let Some(n) = next.filter(|n| n.get_opcode() == InstructionOpcode::Phi) {
            next = n.get_next_instruction();
        }
        match next {
            Some(n) => self.b.position_before(&n),
            None => self
                .b
                .position_at_end(i.get_parent().ok_or_else(|| codegen("no block"))?),
        }
        Ok(())
    }
}

/// Whether mask instruction `i` is rebuilt on words (and then erased) rather than kept.
fn is_rebuilt(i: InstructionValue) -> bool {
    matches!(
        i.get_opcode(),
        InstructionOpcode::Phi
            | InstructionOpcode::And
            | InstructionOpcode::Or
            | InstructionOpcode::Xor
            | InstructionOpcode::Select
    )
}

fn basic(i: InstructionValue) -> R<BasicValueEnum> {
    BasicValueEnum::try_from(i.as_any_value_enum()).map_err(|_| codegen("not a value"))
}

/// The instructions of `blk`, in order.
fn instructions(blk: BasicBlock) -> Vec<InstructionValue> {
    let mut out = Vec::new();
    let mut i = blk.get_first_instruction();
    while let Some(inst) = i {
        out.push(inst);
        i = inst.get_next_instruction();
    }
    out
}

/// The instructions that use `i`, each once.
fn users(i: InstructionValue) -> Vec<InstructionValue> {
    let mut out: Vec<InstructionValue> = Vec::new();
    let mut u = i.get_first_use();
    while let Some(use_) = u {
        let user = match use_.get_user() {
            AnyValueEnum::InstructionValue(user) => Some(user),
            other => BasicValueEnum::try_from(other)
                .ok()
                .and_then(|v| v.as_instruction_value()),
        };
        if let Some(user) = user
            && !out.contains(&user)
        {
            out.push(user);
        }
        u = use_.get_next_use();
    }
    out
}

/// The lanes of a vector-of-`i1` type.
fn mask_type(t: AnyTypeEnum) -> Option<u32> {
    match t {
        AnyTypeEnum::VectorType(t) => {
            let e = t.get_element_type();
            (e.is_int_type() && e.into_int_type().get_bit_width() == 1).then(|| t.get_size())
        }
        _ => None,
    }
}
