//! The checks of every operation, the loop budget, divergent loops, constant operands,
//! F2U, division by constants and negated FMA operands.

use super::common::*;
use crate::back::abi::*;
use crate::ir::{Function, Op, OutputSlot, Stmt, Type, Unary};
use crate::tgsi::Processor;

/// A loop without an exit stops after its budget (65536 iterations).
pub fn check_loop_budget(c: Compiler) {
    let f = endless_loop_function();
    let shader = c(&f, MathMode::Exact).unwrap();
    let out = run_inputs(&shader, &[0; 4]);
    assert_eq!(f32::from_bits(out[0]), 65537.0);
}

/// Loops whose lanes leave at different iterations: a loop-carried counter and sum that every
/// lane still in the loop shares (uniform, though the exit is not), then a loop without an
/// exit that stops at what each lane has left of its budget.
pub fn check_divergent_loops(c: Compiler) {
    let f = crate::opt::optimized_text(
        "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL TEMP[0..2]\n\
         IMM[0] FLT32 {0.0, 1.0, 0.5, 0.0}\n\
         MOV TEMP[0].x, IMM[0].xxxx\nMOV TEMP[1].x, IMM[0].xxxx\n\
         BGNLOOP\nSGE TEMP[2].x, TEMP[0].xxxx, IN[0].xxxx\nIF TEMP[2].xxxx\nBRK\nENDIF\n\
         ADD TEMP[0].x, TEMP[0].xxxx, IMM[0].yyyy\nADD TEMP[1].x, TEMP[1].xxxx, IMM[0].zzzz\n\
         ENDLOOP\nMOV TEMP[2].x, IMM[0].xxxx\n\
         BGNLOOP\nADD TEMP[2].x, TEMP[2].xxxx, IMM[0].yyyy\nENDLOOP\n\
         ADD OUT[0], TEMP[1].xxxx, TEMP[2].xxxx\nEND\n",
    );
    let shader = c(&f, MathMode::Exact).unwrap();
    // Trip counts differ in every lane of a step, and some exceed the budget.
    let budget = 65536.0f32;
    let ns: Vec<f32> = (0..40)
        .map(|k| match k % 10 {
            9 => 70000.0,
            8 => budget + 1.0,
            7 => budget,
            _ => ((k * 37) % 23) as f32,
        })
        .collect();
    let xs: Vec<u32> = ns.iter().map(|n| n.to_bits()).collect();
    let out = run_inputs(&shader, &xs);
    for (&n, &o) in ns.iter().zip(&out) {
        // The first loop runs min(n, budget + 1) iterations, adding 0.5 each; the second
        // runs one more iteration than the budget has left.
        let first = n.min(budget + 1.0);
        let left = (budget - n).max(0.0);
        assert_eq!(f32::from_bits(o), 0.5 * first + left + 1.0, "n = {n}");
    }
}

/// Every pure operation, compiled alone, against `ir::semantics` on random and special words.
pub fn check_every_operation(c: Compiler) {
    use crate::back::lane_ops;
    use crate::ir::semantics as sem;
    use crate::ir::{Binary, FCmp, ICmp, Nary, Pack, verify::Sig, verify::signature};
    let mut seed = 0x1234_5678_9abc_def0u64;
    let mut next = move || {
        seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = seed;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let specials = [
        0u32,
        0x8000_0000,
        0x3F80_0000,
        0xBF80_0000,
        0x7F80_0000,
        0xFF80_0000,
        0x7FC0_0000,
        0xFFC0_0001,
        0x7F80_0001,
        1,
        0x8000_0001,
        0x007F_FFFF,
        0x0080_0000,
        0x4F00_0000,
        0xCF00_0000,
        0x5F00_0000,
        31,
        32,
        0xFFFF_FFFF,
        7,
    ];
    let word = |next: &mut dyn FnMut() -> u64| -> u32 {
        let r = next();
        match r % 6 {
            0 => specials[(r >> 8) as usize % specials.len()],
            1 => (((r >> 8) % 200) as f32 - 100.0).to_bits() ^ ((r >> 20) as u32 & 0x0000_00FF),
            2 => ((r >> 8) as u32) & 0x807F_FFFF,
            3 => ((r >> 8) % 64) as u32,
            _ => (r >> 16) as u32,
        }
    };
    let mut ops: Vec<Op> = Vec::new();
    // Every operation on words (the boolean ones are covered through comparisons and selects).
    let boolean = |op: &Op| {
        matches!(
            op,
            Op::Unary(Unary::BNot | Unary::BoolToInt | Unary::BoolToFloat | Unary::Bitcast)
                | Op::Binary(Binary::BAnd | Binary::BOr)
        )
    };
    ops.extend(
        (lane_ops::UNARY.iter().map(|&u| Op::Unary(u)))
            .chain(lane_ops::BINARY.iter().map(|&b| Op::Binary(b)))
            .chain(lane_ops::NARY.iter().map(|&n| Op::Nary(n)))
            .filter(|op| !boolean(op)),
    );
    for k in [FCmp::Lt, FCmp::Le, FCmp::Gt, FCmp::Ge, FCmp::Eq, FCmp::Ne] {
        ops.push(Op::FCmp(k));
    }
    for k in [
        ICmp::Eq,
        ICmp::Ne,
        ICmp::SLt,
        ICmp::SGe,
        ICmp::ULt,
        ICmp::UGe,
    ] {
        ops.push(Op::ICmp(k));
    }
    for p in [
        Pack::Half2x16,
        Pack::Unorm2x16,
        Pack::Snorm4x8,
        Pack::Unorm4x8,
    ] {
        ops.push(Op::Pack(p));
    }
    let mut failures = Vec::new();
    for op in &ops {
        let n = match op {
            Op::Unary(_) => 1,
            Op::Binary(_) | Op::FCmp(_) | Op::ICmp(_) => 2,
            Op::Nary(Nary::Bfi) => 4,
            Op::Nary(_) => 3,
            Op::Pack(Pack::Half2x16 | Pack::Unorm2x16) => 2,
            _ => 4,
        };
        let (sig_args, sig_res) = signature(op, n).unwrap();
        let mut f = Function::new(Processor::Vertex);
        f.input_regs = 1;
        f.outputs = vec![OutputSlot {
            reg: 0,
            semantic: None,
        }];
        let mut body = Vec::new();
        let mut args = Vec::new();
        for (k, s) in sig_args.iter().enumerate() {
            let i = f.new_inst(
                Op::Input {
                    reg: 0,
                    comp: k as u8,
                },
                vec![],
                &[Type::F32],
                None,
            );
            body.push(Stmt::Inst(i));
            let mut v = f.insts[i].results[0];
            if *s == Sig::Is(Type::I32) {
                let c = f.new_inst(Op::Unary(Unary::Bitcast), vec![v], &[Type::I32], None);
                body.push(Stmt::Inst(c));
                v = f.insts[c].results[0];
            }
            args.push(v);
        }
        let rty = match sig_res[0] {
            Sig::Is(t) => t,
            _ => Type::F32,
        };
        let r = f.new_inst(op.clone(), args, &[rty], None);
        body.push(Stmt::Inst(r));
        let mut v = f.insts[r].results[0];
        if rty == Type::Bool {
            let c = f.new_inst(Op::Unary(Unary::BoolToInt), vec![v], &[Type::I32], None);
            body.push(Stmt::Inst(c));
            v = f.insts[c].results[0];
        }
        let s = f.new_inst(Op::StoreOutput { slot: 0, comp: 0 }, vec![v], &[], None);
        body.push(Stmt::Inst(s));
        f.body.0 = body;
        let shader = c(&f, MathMode::Exact).unwrap();
        // One lane per 4-word input: component k is operand k.
        for _ in 0..64 {
            let mut inputs = vec![0u32; 4 * BATCH_LANES];
            let mut want = Vec::new();
            for l in 0..BATCH_LANES {
                let xs: Vec<u32> = (0..4).map(|_| word(&mut next)).collect();
                for c in 0..4 {
                    inputs[c * BATCH_LANES + l] = xs[c];
                }
                want.push(match op {
                    Op::Unary(u) => sem::unary(*u, xs[0]),
                    Op::Binary(b) => sem::binary(*b, xs[0], xs[1]),
                    Op::Nary(nn) => sem::nary(*nn, &xs),
                    Op::FCmp(k) => {
                        if sem::fcmp(*k, xs[0], xs[1]) {
                            u32::MAX
                        } else {
                            0
                        }
                    }
                    Op::ICmp(k) => {
                        if sem::icmp(*k, xs[0], xs[1]) {
                            u32::MAX
                        } else {
                            0
                        }
                    }
                    Op::Pack(p) => sem::pack(*p, &xs[..n]),
                    _ => unreachable!(),
                });
            }
            let got = run_batch(&shader, &inputs, u64::MAX);
            for l in 0..BATCH_LANES {
                if got[l] != want[l] {
                    let xs: Vec<String> = (0..n)
                        .map(|c| format!("{:#x}", inputs[c * BATCH_LANES + l]))
                        .collect();
                    failures.push(format!(
                        "{op:?}({}) = {:#x}, want {:#x}",
                        xs.join(", "),
                        got[l],
                        want[l]
                    ));
                    break;
                }
            }
        }
    }
    failures.dedup_by(|a, b| a.split('(').next() == b.split('(').next());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Comparisons and arithmetic whose other operand is a constant zero or denormal, directly or
/// through a select, on denormal inputs: the DAZ semantics must survive the back end's own
/// constant folding (LLVM folds some of these as IEEE would).
pub fn check_constant_operands(c: Compiler) {
    use crate::ir::semantics as sem;
    use crate::ir::{Binary, FCmp, ICmp};
    let words: Vec<u32> = vec![
        0,
        0x8000_0000,
        1,
        0x8000_0001,
        0x007F_FFFF,
        0x807F_FFFF,
        0x0080_0000,
        0x3F80_0000,
        0xBF80_0000,
        0x7FC0_0000,
        0x803F_FFFF,
        0x7F80_0000,
    ];
    let inputs = lanes_of(&words);
    let mut failures = Vec::new();
    let consts = [0u32, 0x8000_0000, 3, 0x8000_0003, 0x3F80_0000];
    for k in [FCmp::Lt, FCmp::Le, FCmp::Gt, FCmp::Ge, FCmp::Eq, FCmp::Ne] {
        for &k_bits in &consts {
            for swap in [false, true] {
                // Directly, and where the input is 0 (bits) a select replaces it by the
                // constant: LLVM then folds the comparison into the select's arms.
                for through_select in [false, true] {
                    let f = straight_line(|e| {
                        let x = e(Op::Input { reg: 0, comp: 0 }, vec![], Type::F32);
                        let kv = e(Op::Const(k_bits), vec![], Type::F32);
                        let x = if through_select {
                            let xi = e(Op::Unary(Unary::Bitcast), vec![x], Type::I32);
                            let z = e(Op::Const(0), vec![], Type::I32);
                            let c = e(Op::ICmp(ICmp::Eq), vec![xi, z], Type::Bool);
                            let d = e(Op::Const(0x8000_0005), vec![], Type::F32);
                            e(Op::Select, vec![c, d, x], Type::F32)
                        } else {
                            x
                        };
                        let args = if swap { vec![kv, x] } else { vec![x, kv] };
                        e(Op::FCmp(k), args, Type::Bool)
                    });
                    let got = run_batch(&c(&f, MathMode::Exact).unwrap(), &inputs, u64::MAX);
                    for l in 0..words.len() {
                        let x = if through_select && inputs[l] == 0 {
                            0x8000_0005
                        } else {
                            inputs[l]
                        };
                        let (a, b) = if swap { (k_bits, x) } else { (x, k_bits) };
                        let want = if sem::fcmp(k, a, b) { u32::MAX } else { 0 };
                        if got[l] != want {
                            failures.push(format!(
                                "{k:?}({a:#x}, {b:#x}) = {:#x}, want {want:#x} (select: {through_select})",
                                got[l]
                            ));
                        }
                    }
                }
            }
        }
    }
    // A denormal constant made by bit operations on the canonical NaN, selected, then used in
    // arithmetic: under DAZ it is zero.
    for op in [Binary::FMul, Binary::FAdd, Binary::FMin, Binary::FMax] {
        let f = straight_line(|e| {
            let x = e(Op::Input { reg: 0, comp: 0 }, vec![], Type::F32);
            let xi = e(Op::Unary(Unary::Bitcast), vec![x], Type::I32);
            let nan = e(Op::Const(0x7FC0_0000), vec![], Type::I32);
            let not = e(Op::Unary(Unary::Not), vec![nan], Type::I32);
            let notf = e(Op::Unary(Unary::Bitcast), vec![not], Type::F32);
            let z = e(Op::Const(0), vec![], Type::I32);
            let c = e(Op::ICmp(ICmp::Eq), vec![xi, z], Type::Bool);
            let sf = e(Op::Select, vec![c, notf, x], Type::F32);
            let four = e(Op::Const(4f32.to_bits()), vec![], Type::F32);
            e(Op::Binary(op), vec![sf, four], Type::F32)
        });
        let got = run_batch(&c(&f, MathMode::Exact).unwrap(), &inputs, u64::MAX);
        for l in 0..words.len() {
            let s = if inputs[l] == 0 {
                !0x7FC0_0000u32
            } else {
                inputs[l]
            };
            let want = sem::binary(op, s, 4f32.to_bits());
            if got[l] != want {
                failures.push(format!(
                    "{op:?}({s:#x}, 4.0) = {:#x}, want {want:#x}",
                    got[l]
                ));
            }
        }
    }
    // An integer select of constants seen as a float (Mesa's `AND` with 1.0 after a
    // comparison), compared and multiplied: the lowering flushes it only when an arm is a
    // denormal (LLVM 19 was not seen folding through this shape; the flush guards it), and
    // the results are the interpreter's either way.
    for arm in [0x803F_FFFFu32, 0x0000_0003, 0x3F80_0000, 0] {
        let f = straight_line(|e| {
            let x = e(Op::Input { reg: 0, comp: 0 }, vec![], Type::F32);
            let xi = e(Op::Unary(Unary::Bitcast), vec![x], Type::I32);
            let z = e(Op::Const(0), vec![], Type::I32);
            let c = e(Op::ICmp(ICmp::Eq), vec![xi, z], Type::Bool);
            let a = e(Op::Const(arm), vec![], Type::I32);
            let one = e(Op::Const(0x3F80_0000), vec![], Type::I32);
            let si = e(Op::Select, vec![c, a, one], Type::I32);
            let sf = e(Op::Unary(Unary::Bitcast), vec![si], Type::F32);
            let four = e(Op::Const(4f32.to_bits()), vec![], Type::F32);
            let zf = e(Op::Const(0), vec![], Type::F32);
            let lt = e(Op::FCmp(FCmp::Lt), vec![sf, zf], Type::Bool);
            let p = e(Op::Binary(Binary::FMul), vec![sf, four], Type::F32);
            e(Op::Select, vec![lt, four, p], Type::F32)
        });
        let got = run_batch(&c(&f, MathMode::Exact).unwrap(), &inputs, u64::MAX);
        for l in 0..words.len() {
            let s = if inputs[l] == 0 { arm } else { 0x3F80_0000 };
            let want = if sem::fcmp(FCmp::Lt, s, 0) {
                4f32.to_bits()
            } else {
                sem::binary(Binary::FMul, s, 4f32.to_bits())
            };
            if got[l] != want {
                failures.push(format!(
                    "FMul(select {s:#x}, 4.0) = {:#x}, want {want:#x}",
                    got[l]
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// F2U (truncation through i64, the low 32 bits) on both signs of every exponent, with
/// significands at and near its ends: the range boundaries of every way a target computes
/// it (the 32-bit conversion below 2³¹, the significand shifted left from 2³¹ to 2⁶³, 0
/// beyond, for infinities and for NaN): the interpreter's bits.
pub fn check_f2u_every_exponent(c: Compiler) {
    use crate::ir::semantics as sem;
    let mut xs = Vec::new();
    for sign in [0u32, 0x8000_0000] {
        for e in 0..=255u32 {
            for m in [0u32, 1, 0x2A_AAAB, 0x40_0000, 0x7F_FFFE, 0x7F_FFFF] {
                xs.push(sign | e << 23 | m);
            }
        }
    }
    let shader = c(&unary_function(Unary::F2U), MathMode::Exact).expect("compiles");
    let got = run_inputs(&shader, &xs);
    let bad: Vec<(u32, u32, u32)> = xs
        .iter()
        .zip(&got)
        .map(|(&x, &g)| (x, sem::unary(Unary::F2U, x), g))
        .filter(|&(_, want, g)| want != g)
        .collect();
    assert!(
        bad.is_empty(),
        "F2U: {} of {} inputs differ; first (x, interpreter, code): {:#010x?}",
        bad.len(),
        xs.len(),
        bad.first()
    );
}

/// Integer division and remainder, signed and unsigned, by constant divisors (powers of two,
/// divisors whose multiplier fits and ones that need the add-back step, the largest words,
/// −1 and 0): the interpreter's results on dividends at and next to multiples of the divisor
/// and at the ends of both ranges.
pub fn check_division_by_constants(c: Compiler) {
    use crate::ir::Binary;
    use crate::ir::semantics as sem;
    let divisors = [
        1u32,
        2,
        3,
        5,
        7,
        10,
        40,
        641,
        1000,
        1 << 31,
        (1 << 31) + 1,
        0x7FFF_FFFF,
        0xFFFF_FFFE,
        0xFFFF_FFFF,
        0xFFFF_FFF9,
        0xFFFF_FC18,
        0,
        6_700_417,
    ];
    for d in divisors {
        let mut xs = vec![
            0u32,
            1,
            2,
            0x7FFF_FFFF,
            0x8000_0000,
            0x8000_0001,
            0xFFFF_FFFF,
        ];
        for q in [
            1u64,
            2,
            3,
            1000,
            u64::from(u32::MAX / d.max(1)),
            u64::from(i32::MAX as u32 / d.max(1)),
        ] {
            for r in [-1i64, 0, 1] {
                let x = (q * u64::from(d)) as i64 + r;
                xs.push(x as u32);
                xs.push((x as u32).wrapping_neg());
            }
        }
        for op in [Binary::IDivU, Binary::IRemU, Binary::IDivS, Binary::IRemS] {
            let f = crate::opt::optimized_text(&format!(
                "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nIMM[0] UINT32 {{ {d}, 0, 0, 0 }}\n{} OUT[0].x, IN[0].xxxx, IMM[0].xxxx\nEND\n",
                match op {
                    Binary::IDivU => "UDIV",
                    Binary::IRemU => "UMOD",
                    Binary::IDivS => "IDIV",
                    _ => "MOD",
                }
            ));
            let shader = c(&f, MathMode::Exact).expect("compiles");
            let got = run_inputs(&shader, &xs);
            for (&x, &g) in xs.iter().zip(&got) {
                assert_eq!(g, sem::binary(op, x, d), "{op:?}({x:#x}, {d:#x})");
            }
        }
    }
}

/// Fused multiply-adds with negated operands, in every combination (a back end may fold a
/// negation into the instruction, as x86's `vfnmadd`/`vfmsub` do), on special and ordinary
/// words: the interpreter's bits.
pub fn check_negated_fma(c: Compiler) {
    use crate::ir::semantics as sem;
    use crate::ir::{Binary, Nary};
    let words: Vec<u32> = vec![
        0,
        0x8000_0000,
        1,
        0x8000_0001,
        0x3F80_0000,
        0xBF80_0000,
        0x7F80_0000,
        0xFF80_0000,
        0x7FC0_0000,
        0xFFC0_0001,
        0x7F7F_FFFF,
        0x4049_0FDB,
        0xC2F6_E979,
        0x3EAA_AAAB,
    ];
    let inputs = lanes_of(&words);
    let (k1, k2) = (0.75f32.to_bits(), (-1.5f32).to_bits());
    let mut failures = Vec::new();
    for negated in 0..8u32 {
        let neg = |k: u32| negated & (1 << k) != 0;
        // a = x, b = x · 0.75, c = x + −1.5: three values, each perhaps negated.
        let f = straight_line(|e| {
            let x = e(Op::Input { reg: 0, comp: 0 }, vec![], Type::F32);
            let k1 = e(Op::Const(k1), vec![], Type::F32);
            let k2 = e(Op::Const(k2), vec![], Type::F32);
            let b = e(Op::Binary(Binary::FMul), vec![x, k1], Type::F32);
            let c = e(Op::Binary(Binary::FAdd), vec![x, k2], Type::F32);
            let args: Vec<_> = [x, b, c]
                .into_iter()
                .enumerate()
                .map(|(k, v)| {
                    if neg(k as u32) {
                        e(Op::Unary(Unary::FNeg), vec![v], Type::F32)
                    } else {
                        v
                    }
                })
                .collect();
            e(Op::Nary(Nary::Fma), args, Type::F32)
        });
        for math in [MathMode::Exact, MathMode::Fast] {
            let got = run_batch(&c(&f, math).unwrap(), &inputs, u64::MAX);
            for l in 0..words.len() {
                let x = inputs[l];
                let ops = [
                    x,
                    sem::binary(Binary::FMul, x, k1),
                    sem::binary(Binary::FAdd, x, k2),
                ];
                let ops: Vec<u32> = (0..3)
                    .map(|k| {
                        if neg(k) {
                            sem::unary(Unary::FNeg, ops[k as usize])
                        } else {
                            ops[k as usize]
                        }
                    })
                    .collect();
                let want = sem::nary(Nary::Fma, &ops);
                if got[l] != want {
                    failures.push(format!(
                        "{math:?} fma{ops:x?} (negated {negated:03b}) = {:#x}, want {want:#x}",
                        got[l]
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
