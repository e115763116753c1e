//! A generator of random valid TGSI programs, for the differential tests and the fuzzers:
//! arithmetic and integer opcodes, swizzles and source modifiers, saturation and write masks,
//! nested IF/UIF, loops with BRK/CONT, SWITCH, indirect TEMP arrays and CONST reads,
//! subroutines, KILL_IF, and the legacy (pre-2010) features.

use crate::random::{Rng, Source};
use tgsic::tgsi::*;

const TEMPS: u32 = 8;
/// TEMP[8..11] is ARRAY(1), addressed indirectly.
const ARRAY: (u32, u32) = (8, 11);
const CONSTS: u32 = 8;

const FLOAT_OPS: &[Opcode] = &[
    Opcode::Mov,
    Opcode::Add,
    Opcode::Mul,
    Opcode::Mad,
    Opcode::Dp3,
    Opcode::Dp4,
    Opcode::Dph,
    Opcode::Min,
    Opcode::Max,
    Opcode::Slt,
    Opcode::Sge,
    Opcode::Seq,
    Opcode::Sne,
    Opcode::Frc,
    Opcode::Flr,
    Opcode::Ceil,
    Opcode::Round,
    Opcode::Rcp,
    Opcode::Rsq,
    Opcode::Sqrt,
    Opcode::Ex2,
    Opcode::Lg2,
    Opcode::Pow,
    Opcode::Sin,
    Opcode::Cos,
    Opcode::Cmp,
    Opcode::Lrp,
    Opcode::Abs,
    Opcode::Xpd,
    Opcode::Lit,
    Opcode::Dst,
    Opcode::Ssg,
    Opcode::Div,
    Opcode::Exp,
    Opcode::Log,
    Opcode::Nrm,
    Opcode::Fslt,
    Opcode::Fsge,
    Opcode::Fseq,
    Opcode::Fsne,
    Opcode::F2i,
    Opcode::F2u,
];

const INT_OPS: &[Opcode] = &[
    Opcode::I2f,
    Opcode::U2f,
    Opcode::Uadd,
    Opcode::Umul,
    Opcode::Umad,
    Opcode::And,
    Opcode::Or,
    Opcode::Xor,
    Opcode::Not,
    Opcode::Shl,
    Opcode::Ishr,
    Opcode::Ushr,
    Opcode::Useq,
    Opcode::Usne,
    Opcode::Islt,
    Opcode::Isge,
    Opcode::Uslt,
    Opcode::Usge,
    Opcode::Ucmp,
    Opcode::Imax,
    Opcode::Imin,
    Opcode::Umax,
    Opcode::Umin,
    Opcode::Idiv,
    Opcode::Udiv,
    Opcode::Umod,
    Opcode::Mod,
    Opcode::Ineg,
    Opcode::Iabs,
    Opcode::Issg,
    Opcode::Ibfe,
    Opcode::Ubfe,
    Opcode::Bfi,
    Opcode::Brev,
    Opcode::Popc,
    Opcode::Lsb,
    Opcode::Imsb,
    Opcode::Umsb,
    Opcode::ImulHi,
    Opcode::UmulHi,
];

/// Legacy (pre-2010) opcodes the legacy programs add.
const LEGACY_OPS: &[Opcode] = &[
    Opcode::Sub,
    Opcode::Cnd,
    Opcode::Cnd0,
    Opcode::Clamp,
    Opcode::Dp2a,
    Opcode::Dp2,
    Opcode::X2d,
    Opcode::Rfl,
    Opcode::Scs,
    Opcode::Nrm4,
    Opcode::Sfl,
    Opcode::Str,
    Opcode::Sgt,
    Opcode::Sle,
    Opcode::Rcc,
    Opcode::Negate,
    Opcode::Swz,
    Opcode::Trunc,
    Opcode::Pk2h,
    Opcode::Pk2us,
    Opcode::Pk4b,
    Opcode::Pk4ub,
    Opcode::Up2h,
    Opcode::Up2us,
    Opcode::Up4b,
    Opcode::Up4ub,
    Opcode::M4x3,
    Opcode::M3x4,
    Opcode::M3x3,
    Opcode::M3x2,
];

struct Gen<S: Source> {
    rng: S,
    frag: bool,
    /// Use the legacy features: condition codes, predication, modulation, precision, REP,
    /// BGNFOR, PUSHA/POPA, extended source modifiers, CALLNZ, RET in main.
    legacy: bool,
    insts: Vec<Instruction>,
    /// Open loops (for BRK/CONT) and switches (for BRK).
    loops: usize,
    switches: usize,
    /// Instruction budget left.
    left: i32,
    sub: Option<u32>,
    /// Add the 64-bit opcodes (doubles and 64-bit integers) to the arithmetic.
    wide: bool,
}

fn swz(k: u64) -> ExtSwizzle {
    [ExtSwizzle::X, ExtSwizzle::Y, ExtSwizzle::Z, ExtSwizzle::W][k as usize % 4]
}

fn indirect(file: File, offset: i32, array: Option<u32>) -> Register {
    let mut r = Register::new(file, offset);
    r.index.indirect = Some(Box::new(Indirect {
        register: Register::new(File::Address, 0),
        component: Swizzle::X,
    }));
    r.array_id = array;
    r
}

impl<S: Source> Gen<S> {
    fn chance(&mut self, n: u64) -> bool {
        self.rng.below(n) == 0
    }

    fn src_register(&mut self) -> Register {
        match self.rng.below(20) {
            0..=9 => Register::new(File::Temporary, self.rng.below(TEMPS as u64) as i32),
            10..=12 => Register::new(File::Input, self.rng.below(3) as i32),
            13..=14 => Register::new(File::Immediate, self.rng.below(4) as i32),
            15..=16 => {
                let mut r = Register::new(File::Constant, self.rng.below(CONSTS as u64) as i32);
                r.dimensions = vec![Index::direct(0)];
                r
            }
            17 => {
                let mut r = indirect(
                    File::Constant,
                    self.rng.below(CONSTS as u64) as i32 - 2,
                    None,
                );
                r.dimensions = vec![Index::direct(0)];
                r
            }
            _ => indirect(
                File::Temporary,
                ARRAY.0 as i32 + self.rng.below(4) as i32 - 1,
                Some(1),
            ),
        }
    }

    fn src(&mut self) -> Src {
        let mut s = Src::new(self.src_register());
        let rng = &mut self.rng;
        s.swizzle = std::array::from_fn(|_| {
            if rng.below(30) == 0 {
                ExtSwizzle::One
            } else {
                swz(rng.bits())
            }
        });
        s.negate = self.chance(5);
        s.absolute = self.chance(10);
        if self.legacy {
            s.negate_components = if self.chance(6) {
                self.rng.below(16) as u8
            } else {
                0
            };
            s.negate_after = self.chance(12);
            s.complement = self.chance(15);
            s.bias = self.chance(15);
            s.scale2x = self.chance(15);
            if self.chance(20) {
                s.divide = swz(self.rng.bits());
            }
        }
        s
    }

    /// A condition test on condition register 0 or 1.
    fn cond_test(&mut self) -> CondTest {
        let masks = [
            CondMask::Gt,
            CondMask::Eq,
            CondMask::Lt,
            CondMask::Un,
            CondMask::Ge,
            CondMask::Le,
            CondMask::Ne,
            CondMask::Tr,
            CondMask::Fl,
        ];
        let rng = &mut self.rng;
        CondTest {
            mask: masks[rng.below(9) as usize],
            swizzle: std::array::from_fn(|_| Swizzle::XYZW[rng.below(4) as usize]),
            index: rng.below(2) as u8,
        }
    }

    /// Legacy result modifiers on an instruction with a destination.
    fn decorate(&mut self, i: &mut Instruction) {
        if !self.legacy {
            return;
        }
        if self.chance(4) {
            i.cond_update = Some(self.rng.below(2) as u8);
        }
        if self.chance(6) {
            i.cond_test = Some(self.cond_test());
        }
        if !i.dst.is_empty() {
            if self.chance(6) {
                i.dst[0].cond = Some(self.cond_test());
            }
            if self.chance(8) {
                i.dst[0].modulate = [
                    Modulate::X2,
                    Modulate::X4,
                    Modulate::X8,
                    Modulate::Half,
                    Modulate::Quarter,
                    Modulate::Eighth,
                ][self.rng.below(6) as usize];
            }
        }
        match self.rng.below(12) {
            0 => i.precision = Precision::Float16,
            1 => i.precision = Precision::Fixed12,
            2 => i.saturate = Saturate::MinusPlusOne,
            _ => {}
        }
    }

    fn dst(&mut self) -> Dst {
        let reg = match self.rng.below(10) {
            0..=6 => Register::new(File::Temporary, self.rng.below(TEMPS as u64) as i32),
            7 => indirect(
                File::Temporary,
                ARRAY.0 as i32 + self.rng.below(4) as i32 - 1,
                Some(1),
            ),
            _ => Register::new(File::Output, self.rng.below(2) as i32),
        };
        let mut d = Dst::new(reg);
        d.write_mask = WriteMask(1 + self.rng.below(15) as u8);
        d
    }

    fn push(&mut self, i: Instruction) {
        self.insts.push(i);
        self.left -= 1;
    }

    fn flow(&mut self, op: Opcode, src: Vec<Src>) {
        self.push(Instruction::new(op, vec![], src));
    }

    /// A 64-bit instruction: any 64-bit opcode, its 64-bit sources without modifiers (as
    /// validation requires) and with any swizzle, its 32-bit sources as any other's.
    fn wide_alu(&mut self) {
        let ops: Vec<Opcode> = Opcode::ALL
            .iter()
            .copied()
            .filter(|o| o.wide().is_some())
            .collect();
        let op = ops[self.rng.below(ops.len() as u64) as usize];
        let Some(rule) = op.wide() else { return };
        let n = op.info().num_src.0 as usize;
        let src: Vec<Src> = (0..n)
            .map(|k| {
                let mut s = self.src();
                if rule.wide_source(k) {
                    s.negate = false;
                    s.absolute = false;
                    s.negate_components = 0;
                    s.negate_after = false;
                    s.complement = false;
                    s.bias = false;
                    s.scale2x = false;
                    s.divide = ExtSwizzle::One;
                    for c in s.swizzle.iter_mut() {
                        if c.component().is_none() {
                            *c = ExtSwizzle::X;
                        }
                    }
                }
                s
            })
            .collect();
        let dsts = (0..op.info().num_dst).map(|_| self.dst()).collect();
        let mut i = Instruction::new(op, dsts, src);
        let double_result = matches!(
            op,
            Opcode::Dadd | Opcode::Dmul | Opcode::Dmad | Opcode::Dsqrt | Opcode::F2d | Opcode::D2f
        );
        if double_result && self.chance(6) {
            i.saturate = Saturate::ZeroOne;
        }
        self.push(i);
    }

    fn alu(&mut self) {
        if self.wide && self.chance(2) {
            self.wide_alu();
            return;
        }
        let op = if self.legacy && self.chance(3) {
            LEGACY_OPS[self.rng.below(LEGACY_OPS.len() as u64) as usize]
        } else if self.chance(3) {
            INT_OPS[self.rng.below(INT_OPS.len() as u64) as usize]
        } else {
            FLOAT_OPS[self.rng.below(FLOAT_OPS.len() as u64) as usize]
        };
        let n = op.info().num_src.0 as usize;
        let mut src: Vec<Src> = (0..n).map(|_| self.src()).collect();
        if matches!(
            op,
            Opcode::M4x3 | Opcode::M3x4 | Opcode::M3x3 | Opcode::M3x2
        ) {
            // Rows are consecutive registers: start low enough for four of them.
            src[1] = Src::new(Register::new(File::Temporary, self.rng.below(4) as i32));
        }
        let mut i = Instruction::new(op, vec![self.dst()], src);
        if FLOAT_OPS.contains(&op) && self.chance(8) {
            i.saturate = Saturate::ZeroOne;
        }
        self.decorate(&mut i);
        self.push(i);
    }

    fn cond_src(&mut self) -> Src {
        let mut s = self.src();
        s.swizzle[0] = swz(self.rng.bits());
        s
    }

    /// A block of statements at nesting `depth`.
    fn block(&mut self, depth: u32) {
        let n = 1 + self.rng.below(6);
        for _ in 0..n {
            if self.left <= 0 {
                return;
            }
            match self.rng.below(24) {
                0 if depth < 3 => {
                    let op = if self.chance(2) {
                        Opcode::If
                    } else {
                        Opcode::Uif
                    };
                    let c = self.cond_src();
                    self.flow(op, vec![c]);
                    self.block(depth + 1);
                    if self.chance(2) {
                        self.flow(Opcode::Else, vec![]);
                        self.block(depth + 1);
                    }
                    self.flow(Opcode::EndIf, vec![]);
                }
                1 if depth < 3 => {
                    // A loop with a counter in TEMP[7].w that stops it (the budget stops the
                    // rest).
                    let counter = Register::new(File::Temporary, 7);
                    let mut zero = Src::new(Register::new(File::Immediate, 0));
                    zero.swizzle = [ExtSwizzle::Zero; 4];
                    let mut d = Dst::new(counter.clone());
                    d.write_mask = WriteMask(8);
                    self.push(Instruction::new(Opcode::Mov, vec![d.clone()], vec![zero]));
                    self.flow(Opcode::BgnLoop, vec![]);
                    self.loops += 1;
                    self.block(depth + 1);
                    let mut one = Src::new(Register::new(File::Immediate, 0));
                    one.swizzle = [ExtSwizzle::One; 4];
                    let mut cw = Src::new(counter.clone());
                    cw.swizzle = [ExtSwizzle::W; 4];
                    self.push(Instruction::new(
                        Opcode::Add,
                        vec![d.clone()],
                        vec![cw.clone(), one],
                    ));
                    let mut lim = Src::new(Register::new(File::Immediate, 2));
                    lim.swizzle = [swz(self.rng.bits()); 4];
                    let mut t = Dst::new(Register::new(File::Temporary, 6));
                    t.write_mask = WriteMask(8);
                    let mut u = Src::new(Register::new(File::Immediate, 2));
                    u.swizzle = [ExtSwizzle::X; 4];
                    // Stop after 2..=5 iterations: counter >= limit + 2 (limit is 0..=3).
                    self.push(Instruction::new(Opcode::Sge, vec![t], vec![cw, lim]));
                    let mut tw = Src::new(Register::new(File::Temporary, 6));
                    tw.swizzle = [ExtSwizzle::W; 4];
                    self.flow(Opcode::If, vec![tw]);
                    self.flow(Opcode::Brk, vec![]);
                    self.flow(Opcode::EndIf, vec![]);
                    self.flow(Opcode::EndLoop, vec![]);
                    self.loops -= 1;
                }
                2 if depth < 3 => {
                    let mut v = self.src();
                    v.negate = false;
                    v.absolute = false;
                    if self.chance(2) {
                        v = Src::new(Register::new(File::Immediate, 2));
                        v.swizzle = [swz(self.rng.bits()); 4];
                    }
                    self.flow(Opcode::Switch, vec![v]);
                    self.switches += 1;
                    let mut values: Vec<u64> = (0..4).collect();
                    let cases = 1 + self.rng.below(3) as usize;
                    let default_at = if self.chance(2) {
                        Some(self.rng.below(cases as u64 + 1) as usize)
                    } else {
                        None
                    };
                    for k in 0..=cases {
                        if default_at == Some(k) {
                            self.flow(Opcode::Default, vec![]);
                        } else if k < cases {
                            let pick = values.remove(self.rng.below(values.len() as u64) as usize);
                            let mut c = Src::new(Register::new(File::Immediate, 2));
                            c.swizzle = [swz(pick); 4];
                            self.flow(Opcode::Case, vec![c]);
                        } else {
                            continue;
                        }
                        self.block(depth + 1);
                        if self.chance(3) {
                            self.flow(Opcode::Brk, vec![]);
                        }
                    }
                    self.flow(Opcode::EndSwitch, vec![]);
                    self.switches -= 1;
                }
                3 if self.loops > 0 && self.switches == 0 => {
                    let c = self.cond_src();
                    self.flow(Opcode::If, vec![c]);
                    let op = if self.chance(2) {
                        Opcode::Brk
                    } else {
                        Opcode::Cont
                    };
                    self.flow(op, vec![]);
                    self.flow(Opcode::EndIf, vec![]);
                }
                4 => {
                    let mut d = Dst::new(Register::new(File::Address, 0));
                    d.write_mask = WriteMask(1);
                    let s = self.src();
                    self.push(Instruction::new(Opcode::Arl, vec![d], vec![s]));
                }
                5 if self.frag => {
                    let s = self.src();
                    self.push(Instruction::new(Opcode::KillIf, vec![], vec![s]));
                }
                6 if self.sub.is_some() => {
                    let op = if self.legacy && self.chance(2) {
                        Opcode::CallNz
                    } else {
                        Opcode::Cal
                    };
                    let src = if op == Opcode::CallNz {
                        vec![self.cond_src()]
                    } else {
                        vec![]
                    };
                    let mut i = Instruction::new(op, vec![], src);
                    i.label = self.sub;
                    self.push(i);
                }
                7 | 8 if self.legacy && depth < 3 => {
                    // REP n, or BGNFOR dst, (start, count, step): both bounded by small counts.
                    let mut count = Src::new(Register::new(File::Immediate, 2));
                    count.swizzle = [swz(self.rng.bits()); 4];
                    let mut as_float = Dst::new(Register::new(File::Temporary, 5));
                    as_float.write_mask = WriteMask(1);
                    self.push(Instruction::new(Opcode::U2f, vec![as_float], vec![count]));
                    let mut n = Src::new(Register::new(File::Temporary, 5));
                    n.swizzle = [ExtSwizzle::X; 4];
                    let (open, close) = if self.chance(2) {
                        (
                            Instruction::new(Opcode::Rep, vec![], vec![n]),
                            Instruction::new(Opcode::EndRep, vec![], vec![]),
                        )
                    } else {
                        let reg = if self.chance(2) {
                            Register::new(File::Address, 0)
                        } else {
                            Register::new(File::Temporary, 4)
                        };
                        let mut init = self.src();
                        init.swizzle[1] = ExtSwizzle::X;
                        init.register = Register::new(File::Temporary, 5);
                        init.absolute = false;
                        init.negate = false;
                        init.negate_components = 0;
                        init.divide = ExtSwizzle::One;
                        let d = Dst::new(reg);
                        (
                            Instruction::new(Opcode::BgnFor, vec![d.clone()], vec![init]),
                            Instruction::new(Opcode::EndFor, vec![d], vec![]),
                        )
                    };
                    self.push(open);
                    self.loops += 1;
                    self.block(depth + 1);
                    self.loops -= 1;
                    self.push(close);
                }
                9 if self.legacy => {
                    if self.chance(2) {
                        let s = self.src();
                        let mut i = Instruction::new(Opcode::Pusha, vec![], vec![s]);
                        if self.chance(4) {
                            i.cond_test = Some(self.cond_test());
                        }
                        self.push(i);
                    } else {
                        let mut d = Dst::new(Register::new(File::Address, 0));
                        d.write_mask = WriteMask(1 + self.rng.below(15) as u8);
                        let mut i = Instruction::new(Opcode::Popa, vec![d], vec![]);
                        self.decorate(&mut i);
                        self.push(i);
                    }
                }
                10 if self.legacy && depth > 0 && self.frag => {
                    self.push(Instruction::new(Opcode::Kill, vec![], vec![]));
                }
                11 if self.legacy && depth > 0 => {
                    let mut i = Instruction::new(Opcode::Ret, vec![], vec![]);
                    if self.chance(2) {
                        i.cond_test = Some(self.cond_test());
                    }
                    self.push(i);
                }
                12 if self.legacy => {
                    let mut d = Dst::new(Register::new(File::Address, 0));
                    d.write_mask = WriteMask(1 + self.rng.below(15) as u8);
                    let op = [Opcode::Arr, Opcode::Ara, Opcode::Arl][self.rng.below(3) as usize];
                    let s = self.src();
                    self.push(Instruction::new(op, vec![d], vec![s]));
                }
                _ => self.alu(),
            }
        }
    }
}

/// A random valid program for `seed`, of about 48 instructions (`TGSIC_RANDOM_SIZE`
/// overrides).
pub fn program(seed: u64) -> Program {
    let size = std::env::var("TGSIC_RANDOM_SIZE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(48);
    program_from(Rng(seed), size)
}

/// A random valid program whose every choice comes from `rng`, with about `size` instructions
/// in main: a fragment or vertex shader whose data flows from its inputs and constants through
/// arithmetic, integer, legacy and control-flow instructions to its outputs.
pub fn program_from<S: Source>(rng: S, size: i32) -> Program {
    generate(rng, size, false)
}

/// A random valid program for `seed` as [`program`], with 64-bit instructions (doubles and
/// 64-bit integers, every opcode, any write mask and swizzle) in about half its arithmetic.
pub fn wide_program(seed: u64) -> Program {
    generate(Rng(seed), 48, true)
}

/// A random valid program with 64-bit instructions as [`wide_program`], whose every choice
/// comes from `rng` (a fuzzer's bytes through [`crate::random::Bytes`]), with about `size`
/// instructions in main.
pub fn wide_program_from<S: Source>(rng: S, size: i32) -> Program {
    generate(rng, size, true)
}

fn generate<S: Source>(mut rng: S, size: i32, wide: bool) -> Program {
    let frag = rng.below(2) == 0;
    let mut p = Program::new(if frag {
        Processor::Fragment
    } else {
        Processor::Vertex
    });
    let mut input = Declaration::new(File::Input, 0, 2);
    if frag {
        input.semantic = Some(SemanticDecl {
            name: Semantic::Generic,
            index: 0,
            streams: [0; 4],
        });
        input.interpolation = Some(Interpolation::Perspective);
    }
    p.declarations.push(input);
    let mut out = Declaration::new(File::Output, 0, 1);
    out.semantic = Some(SemanticDecl {
        name: if frag {
            Semantic::Color
        } else {
            Semantic::Generic
        },
        index: 0,
        streams: [0; 4],
    });
    p.declarations.push(out);
    p.declarations
        .push(Declaration::new(File::Constant, 0, CONSTS - 1));
    p.declarations
        .push(Declaration::new(File::Temporary, 0, TEMPS - 1));
    let mut arr = Declaration::new(File::Temporary, ARRAY.0, ARRAY.1);
    arr.array_id = Some(1);
    p.declarations.push(arr);
    p.declarations.push(Declaration::new(File::Address, 0, 0));
    for k in 0..2 {
        let _ = k;
        p.immediates.push(Immediate::float(std::array::from_fn(|_| {
            rng.float(-3.0, 3.0)
        })));
    }
    p.immediates.push(Immediate {
        ty: ImmediateType::Uint32,
        values: vec![0, 1, 2, 3],
    });
    p.immediates.push(Immediate {
        ty: ImmediateType::Int32,
        values: (0..4).map(|_| rng.word()).collect(),
    });
    let with_sub = rng.below(3) == 0;
    let legacy = rng.below(2) == 0;
    let mut g = Gen {
        rng,
        frag,
        legacy,
        insts: Vec::new(),
        loops: 0,
        switches: 0,
        left: size,
        sub: None,
        wide,
    };
    // The subroutine goes after END; its label is known once main is generated, so generate
    // main with a placeholder and patch the CAL labels.
    if with_sub {
        g.sub = Some(u32::MAX);
    }
    // Temporaries start from inputs and constants, so data flows through the program.
    for t in 0..TEMPS + 4 {
        let from = if g.chance(2) {
            Register::new(File::Input, g.rng.below(3) as i32)
        } else {
            let mut r = Register::new(File::Constant, g.rng.below(CONSTS as u64) as i32);
            r.dimensions = vec![Index::direct(0)];
            r
        };
        let mut s = Src::new(from);
        let rng = &mut g.rng;
        s.swizzle = std::array::from_fn(|_| swz(rng.bits()));
        let mut d = Dst::new(Register::new(File::Temporary, t as i32));
        if t >= ARRAY.0 {
            d.register = Register::new(File::Temporary, t as i32);
        }
        g.insts
            .push(Instruction::new(Opcode::Mov, vec![d], vec![s]));
    }
    while g.left > 0 {
        g.block(0);
    }
    g.flow(Opcode::End, vec![]);
    if with_sub {
        let at = g.insts.len() as u32;
        for i in &mut g.insts {
            if matches!(i.opcode, Opcode::Cal | Opcode::CallNz) {
                i.label = Some(at);
            }
        }
        g.sub = None;
        g.flow(Opcode::BgnSub, vec![]);
        g.left = 12;
        g.block(2);
        let c = g.cond_src();
        g.flow(Opcode::If, vec![c]);
        g.flow(Opcode::Ret, vec![]);
        g.flow(Opcode::EndIf, vec![]);
        g.alu();
        g.flow(Opcode::EndSub, vec![]);
    }
    p.instructions = g.insts;
    p
}
