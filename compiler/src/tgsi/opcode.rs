//! The opcode table: binary numbers, text names and aliases, operand counts and roles.
//!
//! Numbers 0..=118 are Mesa's March-2008 table (`docs/binary-format.md`); the modern opcodes that
//! fragment, vertex and geometry shaders use are numbered from 119 up. `docs/binary-format.md`
//! lists the whole table.

use std::fmt;

/// What an opcode does to control flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FlowOp {
    /// IF, UIF: opens a conditional block.
    If,
    /// ELSE.
    Else,
    /// ENDIF.
    EndIf,
    /// Opens a loop block of the given kind.
    BeginLoop(LoopKind),
    /// Closes a loop block of the given kind.
    EndLoop(LoopKind),
    /// BRK: leaves the innermost loop or switch.
    Break,
    /// BREAKC: conditional break (ps_2_x).
    BreakC,
    /// CONT: next iteration of the innermost loop.
    Continue,
    /// CAL: calls the subroutine its label names.
    Call,
    /// CALLNZ: calls the subroutine when src.x is not zero.
    CallNz,
    /// RET.
    Return,
    /// BGNSUB.
    BeginSub,
    /// ENDSUB.
    EndSub,
    /// SWITCH.
    Switch,
    /// CASE.
    Case,
    /// DEFAULT.
    Default,
    /// ENDSWITCH.
    EndSwitch,
    /// BRA: jump to the instruction its label names.
    Branch,
    /// END: end of the main program.
    End,
}

/// The kinds of loop blocks; each is closed by its own opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LoopKind {
    /// BGNLOOP ... ENDLOOP (GLSL loops, 99/101).
    Loop,
    /// BGNFOR ... ENDFOR (the NV LOOP ... ENDLOOP, 75/79).
    For,
    /// REP ... ENDREP.
    Rep,
}

/// Operand roles of a texture or sampling opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TexOperands {
    /// The instruction names its texture target (TEX style: `TEX ..., SAMP[0], 2D`).
    pub needs_target: bool,
    /// Index of the source operand that must be a SAMP register.
    pub sampler: Option<u8>,
    /// Index of the source operand that must be an SVIEW register.
    pub view: Option<u8>,
}

/// The broad role of an opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// Computes a destination from sources.
    Alu,
    /// Control flow.
    Flow(FlowOp),
    /// Texture sampling or query.
    Tex(TexOperands),
    /// KILL / KILL_IF / DEMOTE.
    Kill,
    /// EMIT / ENDPRIM (geometry shaders).
    Emit,
    /// LOAD, STORE, RESQ and the atomics: an access to a BUFFER, IMAGE or MEMORY register,
    /// source 0 (the destination of STORE).
    Memory,
    /// BARRIER and MEMBAR: where the invocations of a work group meet (`docs/semantics.md`).
    Barrier,
}

/// How a 64-bit opcode (a double or a 64-bit integer) reads and writes the channels of its
/// registers: a 64-bit value takes a pair of channels, `.xy` or `.zw`, low word first; the rules
/// are tgsi_exec's (`docs/semantics.md`, "Doubles and 64-bit integers").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Wide {
    /// One 64-bit source; a pair is written when the write mask has both of its channels
    /// (DABS, DSQRT, I64NEG, D2I64, U642D, ...).
    Unary,
    /// Two 64-bit sources; a pair is written, both channels, when the write mask has either
    /// (DADD, U64MUL, I64MIN, ...).
    Binary,
    /// Three 64-bit sources; a pair is written when the write mask has both of its channels
    /// (DMAD, DFMA).
    Ternary,
    /// Two 64-bit sources compared: a 32-bit result (all ones or 0) in the pair's first channel
    /// the write mask has (DSLT, U64SEQ, ...).
    Compare,
    /// A 64-bit source 0 and a 32-bit source 1 read in the pair's first channel (x or z); a pair
    /// is written when the write mask has either (DLDEXP, U64SHL, I64SHR, U64SHR).
    Shift,
    /// A 32-bit source (channel x for the pair `.xy`, channel y for `.zw`) made a 64-bit value;
    /// a pair is written when the write mask has both (F2D, I2D, U2I64, ...).
    From32,
    /// A 64-bit source made a 32-bit value: the first channel of the write mask takes pair
    /// `.xy`'s result, the second pair `.zw`'s (D2F, D2I, I642F, ...).
    To32,
    /// DFRACEXP: a 64-bit source split into a mantissa (destination 0, pairs as [`Wide::Unary`])
    /// and a 32-bit exponent (destination 1, every channel of its mask).
    FracExp,
}

impl Wide {
    /// The channels destination `k` writes when its write mask is `mask` (bit c = channel
    /// c): what the rule makes of the mask (a binary rule writes both channels of a pair the
    /// mask touches, a unary one only pairs it has whole, ...).
    pub fn written(self, k: usize, mask: u8) -> u8 {
        let mask = mask & 0xF;
        let pair = |p: u8| mask & p;
        let whole = |p: u8| if pair(p) == p { p } else { 0 };
        let touched = |p: u8| if pair(p) != 0 { p } else { 0 };
        let first = |p: u8| {
            let m = pair(p);
            m & m.wrapping_neg()
        };
        match (self, k) {
            (Wide::FracExp, 1) => mask,
            (Wide::Unary | Wide::Ternary | Wide::From32 | Wide::FracExp, _) => {
                whole(0b0011) | whole(0b1100)
            }
            (Wide::Binary | Wide::Shift, _) => touched(0b0011) | touched(0b1100),
            (Wide::Compare, _) => first(0b0011) | first(0b1100),
            (Wide::To32, _) => {
                // The mask's first two channels.
                let lowest = mask & mask.wrapping_neg();
                let rest = mask & !lowest;
                lowest | (rest & rest.wrapping_neg())
            }
        }
    }

    /// Whether source `k` holds 64-bit values (else 32-bit ones).
    pub fn wide_source(self, k: usize) -> bool {
        match self {
            Wide::From32 => false,
            Wide::Shift => k == 0,
            _ => true,
        }
    }
}

/// Static facts about an opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpInfo {
    /// Canonical text name (the printer's spelling).
    pub name: &'static str,
    /// Other accepted spellings (pure aliases of this opcode).
    pub aliases: &'static [&'static str],
    /// The opcode's number: the INSTRUCTION token's Opcode field (bits 12..19), with bit 28 as
    /// its ninth bit.
    pub number: u16,
    /// Number of destination operands.
    pub num_dst: u8,
    /// Smallest and largest number of source operands.
    pub num_src: (u8, u8),
    /// The opcode's role.
    pub kind: OpKind,
    /// `Some(reason)` when the opcode has no defined semantics: it reads and prints, but cannot
    /// be executed or compiled.
    pub no_semantics: Option<&'static str>,
}

const ALU: OpKind = OpKind::Alu;
const KILL: OpKind = OpKind::Kill;
const EMIT: OpKind = OpKind::Emit;
const MEM: OpKind = OpKind::Memory;
const BARRIER: OpKind = OpKind::Barrier;
const fn flow(f: FlowOp) -> OpKind {
    OpKind::Flow(f)
}
/// A TEX-style opcode: target required, sampler at source `s`.
const fn tex(s: u8) -> OpKind {
    OpKind::Tex(TexOperands {
        needs_target: true,
        sampler: Some(s),
        view: None,
    })
}
/// A SAMPLE-style opcode: sampler view at source `v`, sampler at `s` (if any).
const fn sample(v: u8, s: Option<u8>) -> OpKind {
    OpKind::Tex(TexOperands {
        needs_target: false,
        sampler: s,
        view: Some(v),
    })
}

const NO_SEM_REMOVAL: Option<&str> =
    Some("the specification gives it no semantics (\"considered for removal\")");
const NO_SEM_NOISE: Option<&str> = Some("noise has no defined result in TGSI");
const NO_SEM_PS2X: Option<&str> = Some("the ps_2_x comparison it needs cannot be encoded in TGSI");

macro_rules! opcodes {
    ($( $var:ident = $num:literal, $name:literal $([$($alias:literal),*])?, $dst:literal, $smin:literal..$smax:literal, $kind:expr $(, $nosem:expr)?; )*) => {
        /// A TGSI opcode. `Opcode::info` gives its number, names and operand counts.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[allow(missing_docs)]
        pub enum Opcode { $($var),* }

        static INFOS: &[OpInfo] = &[
            $(OpInfo {
                name: $name,
                aliases: &[$($($alias),*)?],
                number: $num,
                num_dst: $dst,
                num_src: ($smin, $smax),
                kind: $kind,
                no_semantics: opcodes!(@nosem $($nosem)?),
            }),*
        ];

        impl Opcode {
            /// Every opcode, in table order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$var),*];
        }
    };
    (@nosem) => { None };
    (@nosem $e:expr) => { $e };
}

opcodes! {
    Arl = 0, "ARL", 1, 1..1, ALU;
    Mov = 1, "MOV", 1, 1..1, ALU;
    Lit = 2, "LIT", 1, 1..1, ALU;
    Rcp = 3, "RCP" ["RECIP"], 1, 1..1, ALU;
    Rsq = 4, "RSQ" ["RECIPSQRT"], 1, 1..1, ALU;
    Exp = 5, "EXP", 1, 1..1, ALU;
    Log = 6, "LOG", 1, 1..1, ALU;
    Mul = 7, "MUL", 1, 2..2, ALU;
    Add = 8, "ADD", 1, 2..2, ALU;
    Dp3 = 9, "DP3" ["DOT3"], 1, 2..2, ALU;
    Dp4 = 10, "DP4" ["DOT4"], 1, 2..2, ALU;
    Dst = 11, "DST", 1, 2..2, ALU;
    Min = 12, "MIN", 1, 2..2, ALU;
    Max = 13, "MAX", 1, 2..2, ALU;
    Slt = 14, "SLT" ["SETLT"], 1, 2..2, ALU;
    Sge = 15, "SGE" ["SETGE"], 1, 2..2, ALU;
    Mad = 16, "MAD" ["MADD"], 1, 3..3, ALU;
    Sub = 17, "SUB", 1, 2..2, ALU;
    Lrp = 18, "LRP" ["LERP"], 1, 3..3, ALU;
    Cnd = 19, "CND", 1, 3..3, ALU;
    Cnd0 = 20, "CND0", 1, 3..3, ALU;
    Dp2a = 21, "DP2A" ["DOT2ADD"], 1, 3..3, ALU;
    Index = 22, "INDEX", 1, 2..2, ALU, NO_SEM_REMOVAL;
    Negate = 23, "NEGATE", 1, 1..1, ALU;
    Frc = 24, "FRC" ["FRAC"], 1, 1..1, ALU;
    Clamp = 25, "CLAMP", 1, 3..3, ALU;
    Flr = 26, "FLR" ["FLOOR"], 1, 1..1, ALU;
    Round = 27, "ROUND", 1, 1..1, ALU;
    Ex2 = 28, "EX2" ["EXPBASE2"], 1, 1..1, ALU;
    Lg2 = 29, "LG2" ["LOGBASE2"], 1, 1..1, ALU;
    Pow = 30, "POW" ["POWER"], 1, 2..2, ALU;
    Xpd = 31, "XPD" ["CROSSPRODUCT"], 1, 2..2, ALU;
    MultiplyMatrix = 32, "MULTIPLYMATRIX", 1, 2..2, ALU, NO_SEM_REMOVAL;
    Abs = 33, "ABS", 1, 1..1, ALU;
    Rcc = 34, "RCC", 1, 1..1, ALU;
    Dph = 35, "DPH", 1, 2..2, ALU;
    Cos = 36, "COS", 1, 1..1, ALU;
    Ddx = 37, "DDX", 1, 1..1, ALU;
    Ddy = 38, "DDY", 1, 1..1, ALU;
    Kill = 39, "KILL" ["KILP"], 0, 0..0, KILL;
    Pk2h = 40, "PK2H", 1, 1..1, ALU;
    Pk2us = 41, "PK2US", 1, 1..1, ALU;
    Pk4b = 42, "PK4B", 1, 1..1, ALU;
    Pk4ub = 43, "PK4UB", 1, 1..1, ALU;
    Rfl = 44, "RFL", 1, 2..2, ALU;
    Seq = 45, "SEQ", 1, 2..2, ALU;
    Sfl = 46, "SFL", 1, 2..2, ALU;
    Sgt = 47, "SGT", 1, 2..2, ALU;
    Sin = 48, "SIN", 1, 1..1, ALU;
    Sle = 49, "SLE", 1, 2..2, ALU;
    Sne = 50, "SNE", 1, 2..2, ALU;
    Str = 51, "STR", 1, 2..2, ALU;
    Tex = 52, "TEX", 1, 2..2, tex(1);
    Txd = 53, "TXD", 1, 4..4, tex(3);
    Txp = 54, "TXP", 1, 2..2, tex(1);
    Up2h = 55, "UP2H", 1, 1..1, ALU;
    Up2us = 56, "UP2US", 1, 1..1, ALU;
    Up4b = 57, "UP4B", 1, 1..1, ALU;
    Up4ub = 58, "UP4UB", 1, 1..1, ALU;
    X2d = 59, "X2D", 1, 3..3, ALU;
    Ara = 60, "ARA", 1, 1..1, ALU;
    Arr = 61, "ARR", 1, 1..1, ALU;
    Bra = 62, "BRA", 0, 0..1, flow(FlowOp::Branch);
    Cal = 63, "CAL", 0, 0..0, flow(FlowOp::Call);
    Ret = 64, "RET", 0, 0..0, flow(FlowOp::Return);
    Ssg = 65, "SSG", 1, 1..1, ALU;
    Cmp = 66, "CMP", 1, 3..3, ALU;
    Scs = 67, "SCS", 1, 1..1, ALU;
    Txb = 68, "TXB", 1, 2..2, tex(1);
    Nrm = 69, "NRM", 1, 1..1, ALU;
    Div = 70, "DIV", 1, 2..2, ALU;
    Dp2 = 71, "DP2", 1, 2..2, ALU;
    Txl = 72, "TXL", 1, 2..2, tex(1);
    Brk = 73, "BRK", 0, 0..0, flow(FlowOp::Break);
    If = 74, "IF", 0, 1..1, flow(FlowOp::If);
    BgnFor = 75, "BGNFOR" ["LOOP"], 1, 1..1, flow(FlowOp::BeginLoop(LoopKind::For));
    Rep = 76, "REP", 0, 1..1, flow(FlowOp::BeginLoop(LoopKind::Rep));
    Else = 77, "ELSE", 0, 0..0, flow(FlowOp::Else);
    EndIf = 78, "ENDIF", 0, 0..0, flow(FlowOp::EndIf);
    EndFor = 79, "ENDFOR", 1, 0..0, flow(FlowOp::EndLoop(LoopKind::For));
    EndRep = 80, "ENDREP", 0, 0..0, flow(FlowOp::EndLoop(LoopKind::Rep));
    Pusha = 81, "PUSHA", 0, 1..1, ALU;
    Popa = 82, "POPA", 1, 0..0, ALU;
    Ceil = 83, "CEIL", 1, 1..1, ALU;
    I2f = 84, "I2F", 1, 1..1, ALU;
    Not = 85, "NOT", 1, 1..1, ALU;
    Trunc = 86, "TRUNC", 1, 1..1, ALU;
    Shl = 87, "SHL", 1, 2..2, ALU;
    Ishr = 88, "ISHR" ["SHR"], 1, 2..2, ALU;
    And = 89, "AND", 1, 2..2, ALU;
    Or = 90, "OR", 1, 2..2, ALU;
    Mod = 91, "MOD", 1, 2..2, ALU;
    Xor = 92, "XOR", 1, 2..2, ALU;
    Sad = 93, "SAD", 1, 3..3, ALU;
    Txf = 94, "TXF", 1, 2..2, tex(1);
    Txq = 95, "TXQ", 1, 2..2, tex(1);
    Cont = 96, "CONT", 0, 0..0, flow(FlowOp::Continue);
    Emit = 97, "EMIT", 0, 0..1, EMIT;
    EndPrim = 98, "ENDPRIM", 0, 0..1, EMIT;
    BgnLoop = 99, "BGNLOOP" ["BGNLOOP2"], 0, 0..0, flow(FlowOp::BeginLoop(LoopKind::Loop));
    BgnSub = 100, "BGNSUB", 0, 0..0, flow(FlowOp::BeginSub);
    EndLoop = 101, "ENDLOOP" ["ENDLOOP2"], 0, 0..0, flow(FlowOp::EndLoop(LoopKind::Loop));
    EndSub = 102, "ENDSUB", 0, 0..0, flow(FlowOp::EndSub);
    Noise1 = 103, "NOISE1", 1, 1..1, ALU, NO_SEM_NOISE;
    Noise2 = 104, "NOISE2", 1, 1..1, ALU, NO_SEM_NOISE;
    Noise3 = 105, "NOISE3", 1, 1..1, ALU, NO_SEM_NOISE;
    Noise4 = 106, "NOISE4", 1, 1..1, ALU, NO_SEM_NOISE;
    Nop = 107, "NOP", 0, 0..0, ALU;
    M4x3 = 108, "M4X3", 1, 2..2, ALU;
    M3x4 = 109, "M3X4", 1, 2..2, ALU;
    M3x3 = 110, "M3X3", 1, 2..2, ALU;
    M3x2 = 111, "M3X2", 1, 2..2, ALU;
    Nrm4 = 112, "NRM4", 1, 1..1, ALU;
    CallNz = 113, "CALLNZ", 0, 1..1, flow(FlowOp::CallNz);
    Ifc = 114, "IFC", 0, 1..2, flow(FlowOp::If), NO_SEM_PS2X;
    BreakC = 115, "BREAKC", 0, 1..1, flow(FlowOp::BreakC), NO_SEM_PS2X;
    KillIf = 116, "KILL_IF" ["KIL"], 0, 1..1, KILL;
    End = 117, "END", 0, 0..0, flow(FlowOp::End);
    Swz = 118, "SWZ", 1, 1..1, ALU;
    // Modern opcodes, numbered from 119 (docs/binary-format.md).
    Sqrt = 119, "SQRT", 1, 1..1, ALU;
    Fma = 120, "FMA", 1, 3..3, ALU;
    Ldexp = 121, "LDEXP", 1, 2..2, ALU;
    DdxFine = 122, "DDX_FINE", 1, 1..1, ALU;
    DdyFine = 123, "DDY_FINE", 1, 1..1, ALU;
    Fseq = 124, "FSEQ", 1, 2..2, ALU;
    Fsge = 125, "FSGE", 1, 2..2, ALU;
    Fslt = 126, "FSLT", 1, 2..2, ALU;
    Fsne = 127, "FSNE", 1, 2..2, ALU;
    F2i = 128, "F2I", 1, 1..1, ALU;
    F2u = 129, "F2U", 1, 1..1, ALU;
    U2f = 130, "U2F", 1, 1..1, ALU;
    Uadd = 131, "UADD", 1, 2..2, ALU;
    Umad = 132, "UMAD", 1, 3..3, ALU;
    Umul = 133, "UMUL", 1, 2..2, ALU;
    ImulHi = 134, "IMUL_HI", 1, 2..2, ALU;
    UmulHi = 135, "UMUL_HI", 1, 2..2, ALU;
    Idiv = 136, "IDIV", 1, 2..2, ALU;
    Udiv = 137, "UDIV", 1, 2..2, ALU;
    Umod = 138, "UMOD", 1, 2..2, ALU;
    Imax = 139, "IMAX", 1, 2..2, ALU;
    Imin = 140, "IMIN", 1, 2..2, ALU;
    Umax = 141, "UMAX", 1, 2..2, ALU;
    Umin = 142, "UMIN", 1, 2..2, ALU;
    Ushr = 143, "USHR", 1, 2..2, ALU;
    Ucmp = 144, "UCMP", 1, 3..3, ALU;
    Issg = 145, "ISSG", 1, 1..1, ALU;
    Ineg = 146, "INEG", 1, 1..1, ALU;
    Iabs = 147, "IABS", 1, 1..1, ALU;
    Islt = 148, "ISLT", 1, 2..2, ALU;
    Isge = 149, "ISGE", 1, 2..2, ALU;
    Useq = 150, "USEQ", 1, 2..2, ALU;
    Usne = 151, "USNE", 1, 2..2, ALU;
    Uslt = 152, "USLT", 1, 2..2, ALU;
    Usge = 153, "USGE", 1, 2..2, ALU;
    Uarl = 154, "UARL", 1, 1..1, ALU;
    Ibfe = 155, "IBFE", 1, 3..3, ALU;
    Ubfe = 156, "UBFE", 1, 3..3, ALU;
    Bfi = 157, "BFI", 1, 4..4, ALU;
    Brev = 158, "BREV", 1, 1..1, ALU;
    Popc = 159, "POPC", 1, 1..1, ALU;
    Lsb = 160, "LSB", 1, 1..1, ALU;
    Imsb = 161, "IMSB", 1, 1..1, ALU;
    Umsb = 162, "UMSB", 1, 1..1, ALU;
    Uif = 163, "UIF", 0, 1..1, flow(FlowOp::If);
    Switch = 164, "SWITCH", 0, 1..1, flow(FlowOp::Switch);
    Case = 165, "CASE", 0, 1..1, flow(FlowOp::Case);
    Default = 166, "DEFAULT", 0, 0..0, flow(FlowOp::Default);
    EndSwitch = 167, "ENDSWITCH", 0, 0..0, flow(FlowOp::EndSwitch);
    Demote = 168, "DEMOTE", 0, 0..0, KILL;
    ReadHelper = 169, "READ_HELPER", 1, 0..0, ALU;
    InterpCentroid = 170, "INTERP_CENTROID", 1, 1..1, ALU;
    InterpSample = 171, "INTERP_SAMPLE", 1, 2..2, ALU;
    InterpOffset = 172, "INTERP_OFFSET", 1, 2..2, ALU;
    FbFetch = 173, "FBFETCH", 1, 1..1, ALU;
    Tex2 = 174, "TEX2", 1, 3..3, tex(2);
    Txb2 = 175, "TXB2", 1, 3..3, tex(2);
    Txl2 = 176, "TXL2", 1, 3..3, tex(2);
    TexLz = 177, "TEX_LZ", 1, 2..2, tex(1);
    TxfLz = 178, "TXF_LZ", 1, 2..2, tex(1);
    Txqs = 179, "TXQS", 1, 1..1, tex(0);
    Tg4 = 180, "TG4", 1, 3..3, tex(2);
    Lodq = 181, "LODQ", 1, 2..2, tex(1);
    Sample = 182, "SAMPLE", 1, 3..3, sample(1, Some(2));
    SampleI = 183, "SAMPLE_I", 1, 2..2, sample(1, None);
    SampleIMs = 184, "SAMPLE_I_MS", 1, 3..3, sample(1, None);
    SampleB = 185, "SAMPLE_B", 1, 4..4, sample(1, Some(2));
    SampleC = 186, "SAMPLE_C", 1, 4..4, sample(1, Some(2));
    SampleCLz = 187, "SAMPLE_C_LZ", 1, 4..4, sample(1, Some(2));
    SampleD = 188, "SAMPLE_D", 1, 5..5, sample(1, Some(2));
    SampleL = 189, "SAMPLE_L", 1, 4..4, sample(1, Some(2));
    Gather4 = 190, "GATHER4", 1, 3..3, sample(1, Some(2));
    SviewInfo = 191, "SVIEWINFO", 1, 2..2, sample(1, None);
    SamplePos = 192, "SAMPLE_POS", 1, 2..2, sample(0, None);
    SampleInfo = 193, "SAMPLE_INFO", 1, 1..2, sample(0, None);
    Lod = 194, "LOD", 1, 3..3, sample(1, Some(2));
    // Memory, atomics and work-group synchronisation (docs/binary-format.md).
    Load = 195, "LOAD", 1, 2..2, MEM;
    Store = 196, "STORE", 1, 2..2, MEM;
    Resq = 197, "RESQ", 1, 1..1, MEM;
    Barrier = 198, "BARRIER", 0, 0..0, BARRIER;
    Membar = 199, "MEMBAR", 0, 1..1, BARRIER;
    AtomUadd = 200, "ATOMUADD", 1, 3..3, MEM;
    AtomXchg = 201, "ATOMXCHG", 1, 3..3, MEM;
    AtomCas = 202, "ATOMCAS", 1, 4..4, MEM;
    AtomAnd = 203, "ATOMAND", 1, 3..3, MEM;
    AtomOr = 204, "ATOMOR", 1, 3..3, MEM;
    AtomXor = 205, "ATOMXOR", 1, 3..3, MEM;
    AtomUmin = 206, "ATOMUMIN", 1, 3..3, MEM;
    AtomUmax = 207, "ATOMUMAX", 1, 3..3, MEM;
    AtomImin = 208, "ATOMIMIN", 1, 3..3, MEM;
    AtomImax = 209, "ATOMIMAX", 1, 3..3, MEM;
    AtomFadd = 210, "ATOMFADD", 1, 3..3, MEM;
    AtomIncWrap = 211, "ATOMINC_WRAP", 1, 3..3, MEM;
    AtomDecWrap = 212, "ATOMDEC_WRAP", 1, 3..3, MEM;
    // Doubles and 64-bit integers, numbered from 256: bit 28 of the INSTRUCTION token is the
    // Opcode field's ninth bit (docs/binary-format.md).
    F2d = 256, "F2D", 1, 1..1, ALU;
    D2f = 257, "D2F", 1, 1..1, ALU;
    Dabs = 258, "DABS", 1, 1..1, ALU;
    Dneg = 259, "DNEG", 1, 1..1, ALU;
    Dadd = 260, "DADD", 1, 2..2, ALU;
    Dmul = 261, "DMUL", 1, 2..2, ALU;
    Dmax = 262, "DMAX", 1, 2..2, ALU;
    Dmin = 263, "DMIN", 1, 2..2, ALU;
    Dslt = 264, "DSLT", 1, 2..2, ALU;
    Dsge = 265, "DSGE", 1, 2..2, ALU;
    Dseq = 266, "DSEQ", 1, 2..2, ALU;
    Dsne = 267, "DSNE", 1, 2..2, ALU;
    Drcp = 268, "DRCP", 1, 1..1, ALU;
    Dsqrt = 269, "DSQRT", 1, 1..1, ALU;
    Dmad = 270, "DMAD", 1, 3..3, ALU;
    Dfrac = 271, "DFRAC", 1, 1..1, ALU;
    Dldexp = 272, "DLDEXP", 1, 2..2, ALU;
    Dfracexp = 273, "DFRACEXP", 2, 1..1, ALU;
    D2i = 274, "D2I", 1, 1..1, ALU;
    I2d = 275, "I2D", 1, 1..1, ALU;
    D2u = 276, "D2U", 1, 1..1, ALU;
    U2d = 277, "U2D", 1, 1..1, ALU;
    Drsq = 278, "DRSQ", 1, 1..1, ALU;
    Dtrunc = 279, "DTRUNC", 1, 1..1, ALU;
    Dceil = 280, "DCEIL", 1, 1..1, ALU;
    Dflr = 281, "DFLR", 1, 1..1, ALU;
    Dround = 282, "DROUND", 1, 1..1, ALU;
    Dssg = 283, "DSSG", 1, 1..1, ALU;
    Ddiv = 284, "DDIV", 1, 2..2, ALU;
    Dfma = 285, "DFMA", 1, 3..3, ALU;
    I64abs = 286, "I64ABS", 1, 1..1, ALU;
    I64neg = 287, "I64NEG", 1, 1..1, ALU;
    I64ssg = 288, "I64SSG", 1, 1..1, ALU;
    I64slt = 289, "I64SLT", 1, 2..2, ALU;
    I64sge = 290, "I64SGE", 1, 2..2, ALU;
    I64min = 291, "I64MIN", 1, 2..2, ALU;
    I64max = 292, "I64MAX", 1, 2..2, ALU;
    I64shr = 293, "I64SHR", 1, 2..2, ALU;
    I64div = 294, "I64DIV", 1, 2..2, ALU;
    I64mod = 295, "I64MOD", 1, 2..2, ALU;
    F2i64 = 296, "F2I64", 1, 1..1, ALU;
    U64seq = 297, "U64SEQ", 1, 2..2, ALU;
    U64sne = 298, "U64SNE", 1, 2..2, ALU;
    U64slt = 299, "U64SLT", 1, 2..2, ALU;
    U64sge = 300, "U64SGE", 1, 2..2, ALU;
    U64min = 301, "U64MIN", 1, 2..2, ALU;
    U64max = 302, "U64MAX", 1, 2..2, ALU;
    U64add = 303, "U64ADD", 1, 2..2, ALU;
    U64mul = 304, "U64MUL", 1, 2..2, ALU;
    U64shl = 305, "U64SHL", 1, 2..2, ALU;
    U64shr = 306, "U64SHR", 1, 2..2, ALU;
    U64div = 307, "U64DIV", 1, 2..2, ALU;
    U64mod = 308, "U64MOD", 1, 2..2, ALU;
    F2u64 = 309, "F2U64", 1, 1..1, ALU;
    D2i64 = 310, "D2I64", 1, 1..1, ALU;
    D2u64 = 311, "D2U64", 1, 1..1, ALU;
    U2i64 = 312, "U2I64", 1, 1..1, ALU;
    I2i64 = 313, "I2I64", 1, 1..1, ALU;
    I642f = 314, "I642F", 1, 1..1, ALU;
    U642f = 315, "U642F", 1, 1..1, ALU;
    I642d = 316, "I642D", 1, 1..1, ALU;
    U642d = 317, "U642D", 1, 1..1, ALU;
}

/// Modern opcodes that are out of scope (`docs/binary-format.md`): naming one in text, or a number
/// outside the table in binary, is an "unsupported opcode" error. Each entry: name, reason.
pub const OUT_OF_SCOPE: &[(&str, &str)] = &[
    ("IMG2HND", "bindless handles"),
    ("SAMP2HND", "bindless handles"),
    ("VOTE_ANY", "subgroup operations"),
    ("VOTE_ALL", "subgroup operations"),
    ("VOTE_EQ", "subgroup operations"),
    ("BALLOT", "subgroup operations"),
    ("READ_FIRST", "subgroup operations"),
    ("READ_INVOC", "subgroup operations"),
    ("CLOCK", "subgroup operations"),
];

impl Opcode {
    /// Static facts about this opcode.
    pub fn info(self) -> &'static OpInfo {
        &INFOS[self as usize]
    }

    /// Canonical text name.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The opcode's number (0..=511: the Opcode field and its ninth bit).
    pub fn number(self) -> u16 {
        self.info().number
    }

    /// The opcode with binary number `n`, if the table has one.
    pub fn from_number(n: u32) -> Option<Opcode> {
        static BY_NUMBER: std::sync::OnceLock<[Option<Opcode>; 512]> = std::sync::OnceLock::new();
        let table = BY_NUMBER.get_or_init(|| {
            let mut t = [None; 512];
            for &op in Opcode::ALL {
                t[op.number() as usize] = Some(op);
            }
            t
        });
        table.get(n as usize).copied().flatten()
    }

    /// The opcode a text name (canonical or alias, any case) stands for.
    pub fn from_name(s: &str) -> Option<Opcode> {
        Opcode::ALL.iter().copied().find(|op| {
            let i = op.info();
            i.name.eq_ignore_ascii_case(s) || i.aliases.iter().any(|a| a.eq_ignore_ascii_case(s))
        })
    }

    /// If `s` names an out-of-scope modern opcode, the reason it is out of scope.
    pub fn out_of_scope_reason(s: &str) -> Option<&'static str> {
        OUT_OF_SCOPE
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(s))
            .map(|(_, why)| *why)
    }

    /// The control-flow role, if any.
    pub fn flow(self) -> Option<FlowOp> {
        match self.info().kind {
            OpKind::Flow(f) => Some(f),
            _ => None,
        }
    }

    /// Whether this is LOAD, STORE, RESQ or an atomic (an access to a memory register).
    pub fn is_memory(self) -> bool {
        self.info().kind == OpKind::Memory
    }

    /// Whether this is an atomic read-modify-write (ATOM*).
    pub fn is_atomic(self) -> bool {
        self.is_memory() && !matches!(self, Opcode::Load | Opcode::Store | Opcode::Resq)
    }

    /// How this opcode reads and writes 64-bit values, if it is a double or 64-bit integer
    /// opcode.
    pub fn wide(self) -> Option<Wide> {
        use Opcode as O;
        Some(match self {
            O::Dabs
            | O::Dneg
            | O::Drcp
            | O::Dsqrt
            | O::Drsq
            | O::Dfrac
            | O::Dflr
            | O::Dtrunc
            | O::Dceil
            | O::Dround
            | O::Dssg
            | O::I64abs
            | O::I64neg
            | O::I64ssg
            | O::D2i64
            | O::D2u64
            | O::I642d
            | O::U642d => Wide::Unary,
            O::Dadd
            | O::Dmul
            | O::Ddiv
            | O::Dmin
            | O::Dmax
            | O::U64add
            | O::U64mul
            | O::U64div
            | O::I64div
            | O::U64mod
            | O::I64mod
            | O::I64min
            | O::I64max
            | O::U64min
            | O::U64max => Wide::Binary,
            O::Dmad | O::Dfma => Wide::Ternary,
            O::Dslt
            | O::Dsge
            | O::Dseq
            | O::Dsne
            | O::U64seq
            | O::U64sne
            | O::U64slt
            | O::U64sge
            | O::I64slt
            | O::I64sge => Wide::Compare,
            O::Dldexp | O::U64shl | O::I64shr | O::U64shr => Wide::Shift,
            O::F2d | O::I2d | O::U2d | O::F2i64 | O::F2u64 | O::I2i64 | O::U2i64 => Wide::From32,
            O::D2f | O::D2i | O::D2u | O::I642f | O::U642f => Wide::To32,
            O::Dfracexp => Wide::FracExp,
            _ => return None,
        })
    }

    /// Texture operand roles, if this is a texture or sampling opcode.
    pub fn tex(self) -> Option<TexOperands> {
        match self.info().kind {
            OpKind::Tex(t) => Some(t),
            _ => None,
        }
    }

    /// Whether instructions with this opcode carry a jump label that must resolve to an
    /// instruction (CAL, CALLNZ, BRA). Labels of structured control flow are derived, not stored.
    pub fn has_target_label(self) -> bool {
        matches!(
            self.flow(),
            Some(FlowOp::Call | FlowOp::CallNz | FlowOp::Branch)
        )
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_unique_and_match_decisions() {
        let mut seen = std::collections::HashSet::new();
        for &op in Opcode::ALL {
            assert!(seen.insert(op.number()), "duplicate number {}", op.number());
            assert_eq!(Opcode::from_number(op.number() as u32), Some(op));
        }
        // `docs/binary-format.md` anchors.
        assert_eq!(Opcode::Arl.number(), 0);
        assert_eq!(Opcode::Txp.number(), 54);
        assert_eq!(Opcode::EndPrim.number(), 98);
        assert_eq!(Opcode::BgnLoop.number(), 99);
        assert_eq!(Opcode::BgnSub.number(), 100);
        assert_eq!(Opcode::EndLoop.number(), 101);
        assert_eq!(Opcode::EndSub.number(), 102);
        assert_eq!(Opcode::Nop.number(), 107);
        assert_eq!(Opcode::KillIf.number(), 116);
        assert_eq!(Opcode::Kill.number(), 39);
        assert_eq!(Opcode::End.number(), 117);
        assert_eq!(Opcode::Swz.number(), 118);
        assert_eq!(Opcode::BgnFor.number(), 75);
        assert_eq!(Opcode::EndFor.number(), 79);
        assert_eq!(Opcode::If.number(), 74);
        assert_eq!(Opcode::Else.number(), 77);
        assert_eq!(Opcode::Ddx.number(), 37);
        assert!(Opcode::ALL.iter().all(|o| o.number() < 512));
        // Every 64-bit opcode, and only they, have a channel-pair rule.
        for &op in Opcode::ALL {
            assert_eq!(op.wide().is_some(), op.number() >= 256, "{op}");
        }
        assert_eq!(Wide::Binary.written(0, 0b0001), 0b0011);
        assert_eq!(Wide::Unary.written(0, 0b0111), 0b0011);
        assert_eq!(Wide::Compare.written(0, 0b0110), 0b0110);
        assert_eq!(Wide::Compare.written(0, 0b1111), 0b0101);
        assert_eq!(Wide::To32.written(0, 0b1110), 0b0110);
        assert_eq!(Wide::FracExp.written(1, 0b1000), 0b1000);
    }

    #[test]
    fn names_and_aliases() {
        for &op in Opcode::ALL {
            assert_eq!(Opcode::from_name(op.name()), Some(op));
        }
        assert_eq!(Opcode::from_name("KIL"), Some(Opcode::KillIf));
        assert_eq!(Opcode::from_name("kilp"), Some(Opcode::Kill));
        assert_eq!(Opcode::from_name("LERP"), Some(Opcode::Lrp));
        assert_eq!(Opcode::from_name("SHR"), Some(Opcode::Ishr));
        assert_eq!(Opcode::from_name("LOOP"), Some(Opcode::BgnFor));
        assert_eq!(Opcode::from_name("dadd"), Some(Opcode::Dadd));
        assert_eq!(Opcode::F2d.number(), 256);
        assert_eq!(Opcode::U642d.number(), 317);
        assert_eq!(
            Opcode::out_of_scope_reason("ballot"),
            Some("subgroup operations")
        );
        // No name is both in the table and out of scope.
        for (n, _) in OUT_OF_SCOPE {
            assert_eq!(Opcode::from_name(n), None, "{n}");
        }
    }
}

#[cfg(test)]
mod doc_tests {
    use super::*;

    /// `docs/binary-format.md` lists every opcode with its number and operand counts.
    #[test]
    fn the_binary_format_page_lists_every_opcode() {
        let page = include_str!("../../../docs/binary-format.md");
        for &op in Opcode::ALL {
            let i = op.info();
            let src = if i.num_src.0 == i.num_src.1 {
                format!("{}", i.num_src.0)
            } else {
                format!("{}–{}", i.num_src.0, i.num_src.1)
            };
            let row = format!(
                "| {} | {} | {} | {} | {} |",
                i.number,
                i.name,
                i.aliases.join(", "),
                i.num_dst,
                src
            );
            assert!(page.contains(&row), "docs/binary-format.md lacks `{row}`");
        }
    }
}
