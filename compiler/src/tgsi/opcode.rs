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

/// Static facts about an opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpInfo {
    /// Canonical text name (the printer's spelling).
    pub name: &'static str,
    /// Other accepted spellings (pure aliases of this opcode).
    pub aliases: &'static [&'static str],
    /// The value of the INSTRUCTION token's Opcode field.
    pub number: u8,
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
}

/// Modern opcodes that are out of scope (`docs/binary-format.md`): naming one in text, or a number
/// outside the table in binary, is an "unsupported opcode" error. Each entry: name, reason.
pub const OUT_OF_SCOPE: &[(&str, &str)] = &[
    ("F2D", "doubles"),
    ("D2F", "doubles"),
    ("I2D", "doubles"),
    ("D2I", "doubles"),
    ("U2D", "doubles"),
    ("D2U", "doubles"),
    ("DABS", "doubles"),
    ("DNEG", "doubles"),
    ("DADD", "doubles"),
    ("DMUL", "doubles"),
    ("DMAD", "doubles"),
    ("DFMA", "doubles"),
    ("DDIV", "doubles"),
    ("DMIN", "doubles"),
    ("DMAX", "doubles"),
    ("DSLT", "doubles"),
    ("DSGE", "doubles"),
    ("DSEQ", "doubles"),
    ("DSNE", "doubles"),
    ("DRCP", "doubles"),
    ("DSQRT", "doubles"),
    ("DRSQ", "doubles"),
    ("DFRAC", "doubles"),
    ("DLDEXP", "doubles"),
    ("DFRACEXP", "doubles"),
    ("DTRUNC", "doubles"),
    ("DCEIL", "doubles"),
    ("DFLR", "doubles"),
    ("DROUND", "doubles"),
    ("DSSG", "doubles"),
    ("F2I64", "64-bit integers"),
    ("F2U64", "64-bit integers"),
    ("I2I64", "64-bit integers"),
    ("U2I64", "64-bit integers"),
    ("D2I64", "64-bit integers"),
    ("D2U64", "64-bit integers"),
    ("I642F", "64-bit integers"),
    ("U642F", "64-bit integers"),
    ("I642D", "64-bit integers"),
    ("U642D", "64-bit integers"),
    ("I64ABS", "64-bit integers"),
    ("I64NEG", "64-bit integers"),
    ("I64SSG", "64-bit integers"),
    ("U64ADD", "64-bit integers"),
    ("U64MUL", "64-bit integers"),
    ("U64SHL", "64-bit integers"),
    ("I64SHR", "64-bit integers"),
    ("U64SHR", "64-bit integers"),
    ("I64DIV", "64-bit integers"),
    ("U64DIV", "64-bit integers"),
    ("I64MOD", "64-bit integers"),
    ("U64MOD", "64-bit integers"),
    ("I64MIN", "64-bit integers"),
    ("U64MIN", "64-bit integers"),
    ("I64MAX", "64-bit integers"),
    ("U64MAX", "64-bit integers"),
    ("U64SEQ", "64-bit integers"),
    ("U64SNE", "64-bit integers"),
    ("U64SLT", "64-bit integers"),
    ("U64SGE", "64-bit integers"),
    ("I64SLT", "64-bit integers"),
    ("I64SGE", "64-bit integers"),
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

    /// The binary Opcode field value.
    pub fn number(self) -> u8 {
        self.info().number
    }

    /// The opcode with binary number `n`, if the table has one.
    pub fn from_number(n: u32) -> Option<Opcode> {
        static BY_NUMBER: std::sync::OnceLock<[Option<Opcode>; 256]> = std::sync::OnceLock::new();
        let table = BY_NUMBER.get_or_init(|| {
            let mut t = [None; 256];
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
        assert!(
            Opcode::ALL
                .iter()
                .all(|o| o.number() <= 118 || o.number() >= 119)
        );
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
        assert_eq!(Opcode::from_name("DADD"), None);
        assert_eq!(Opcode::out_of_scope_reason("dadd"), Some("doubles"));
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
