//! The instruction set's definitions: Q15.17 fixed point, opcodes and their operand forms, registers, macros and entry slots.

/// A register value: x, y, z, each a Q15.17 word.
pub type Vec3 = [u32; 3];

/// Q15.17: 1.0 is `1 << 17`.
pub const SCALE: u32 = 17;
/// The raw value of 1.0.
pub const ONE: u32 = 1 << SCALE;

/// Converts a raw Q15.17 word to a float (exactly).
pub fn fixed_to_f64(raw: u32) -> f64 {
    raw as i32 as f64 / ONE as f64
}

/// Converts a number to Q15.17, rounding to nearest with ties away from zero; `None` when it is
/// outside the representable range [−16384, 16384 − 2⁻¹⁷].
pub fn f64_to_fixed(v: f64) -> Option<u32> {
    if !v.is_finite() {
        return None;
    }
    let scaled = (v * ONE as f64).round(); // f64::round: ties away from zero
    if scaled < i32::MIN as f64 || scaled > i32::MAX as f64 {
        return None;
    }
    Some(scaled as i32 as u32)
}

/// How an opcode uses the 48 operand bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// Type I: DST, SRC1, SRC2 register addresses.
    RegisterType,
    /// Type II: DST and a 32-bit immediate (opcode bit 6).
    ImmediateType,
}

/// Which component a conditional jump tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JumpComponent {
    /// x.
    X,
    /// y.
    Y,
    /// z.
    Z,
}

/// The condition of a conditional jump, as the RTL implements it (`docs/theia.md`): `L` tests
/// x ≤ y, and `EQ`/`NE`/`GE`/`LE` compare magnitudes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JumpCond {
    /// Signed x > y.
    G,
    /// Not G: x ≤ y (the manual says x < y).
    L,
    /// |x| = |y|.
    Eq,
    /// |x| ≠ |y|.
    Ne,
    /// G or |x| = |y|.
    Ge,
    /// Not G, or |x| = |y|.
    Le,
}

/// What the b1.2 core does with an opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Support {
    /// Executed by b1.2.
    B12,
    /// In the manual, but the b1.2 RTL never finishes it: the core hangs. DEBUG_PRINT too: it
    /// prints only in the RTL built with `DEBUG`, and hangs the core built without it.
    Hangs,
    /// Added after b1.2 (trunk or icarus): not in the b1.2 decoder.
    Later,
}

/// Static facts about a THEIA opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpInfo {
    /// Mnemonic (hardware spelling).
    pub name: &'static str,
    /// The 16-bit opcode field.
    pub code: u16,
    /// Cycles in the manual's latency table (DIV and MAG: see `docs/theia.md`).
    pub cycles: u32,
    /// What b1.2 does with it.
    pub support: Support,
}

macro_rules! theia_ops {
    ($( $var:ident = $code:literal, $name:literal, $cycles:literal, $sup:ident; )*) => {
        /// A THEIA opcode (hardware numbering, identical in b1.2, trunk and icarus).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Op { $( #[doc = concat!("`", $name, "` (", stringify!($code), ")")] $var ),* }

        static OPS: &[OpInfo] = &[ $( OpInfo { name: $name, code: $code, cycles: $cycles, support: Support::$sup } ),* ];

        impl Op {
            /// Every opcode, in numeric order.
            pub const ALL: &'static [Op] = &[ $(Op::$var),* ];
        }
    };
}

theia_ops! {
    Nop = 0, "NOP", 2, B12;
    Add = 1, "ADD", 2, B12;
    Sub = 2, "SUB", 2, B12;
    Div = 3, "DIV", 70, B12;
    Mul = 4, "MUL", 2, B12;
    Mag = 5, "MAG", 35, B12;
    Copy = 7, "COPY", 2, B12;
    Jgx = 8, "JGX", 2, B12;
    Jlx = 9, "JLX", 2, B12;
    Jeqx = 10, "JEQX", 2, B12;
    Jnex = 11, "JNEX", 2, B12;
    Jgex = 12, "JGEX", 2, B12;
    Jlex = 13, "JLEX", 2, B12;
    Inc = 14, "INC", 2, B12;
    Zero = 15, "ZERO", 2, B12;
    Jgy = 16, "JGY", 2, B12;
    Jly = 17, "JLY", 2, B12;
    Jeqy = 18, "JEQY", 2, B12;
    Jney = 19, "JNEY", 2, B12;
    Jgey = 20, "JGEY", 2, B12;
    Jley = 21, "JLEY", 2, B12;
    Cross = 22, "CROSS", 2, B12;
    Dot = 23, "DOT", 2, B12;
    Jgz = 24, "JGZ", 2, B12;
    Jlz = 25, "JLZ", 2, B12;
    Jeqz = 26, "JEQZ", 2, B12;
    Jnez = 27, "JNEZ", 2, B12;
    Jgez = 28, "JGEZ", 2, B12;
    Jlez = 29, "JLEZ", 2, B12;
    DebugPrint = 30, "DEBUG_PRINT", 2, Hangs;
    Mulp = 31, "MULP", 2, B12;
    Mod = 32, "MOD", 2, B12;
    Frac = 33, "FRAC", 2, B12;
    Intp = 34, "INTP", 2, Hangs;
    Neg = 35, "NEG", 2, B12;
    Dec = 36, "DEC", 2, B12;
    XchangeX = 37, "XCHANGEX", 2, B12;
    XchangeY = 38, "XCHANGEY", 2, Hangs;
    XchangeZ = 39, "XCHANGEZ", 2, Hangs;
    Imul = 40, "IMUL", 2, B12;
    Unscale = 41, "UNSCALE", 2, B12;
    Rescale = 42, "RESCALE", 2, Hangs;
    IncX = 43, "INCX", 2, B12;
    IncY = 44, "INCY", 2, B12;
    IncZ = 45, "INCZ", 2, B12;
    OmWrite = 47, "OMWRITE", 3, Later;
    TmRead = 48, "TMREAD", 2, Later;
    Lea = 49, "LEA", 1, Later;
    Return = 64, "RETURN", 2, B12;
    SetX = 65, "SETX", 2, B12;
    SetY = 66, "SETY", 2, B12;
    SetZ = 67, "SETZ", 2, B12;
    Swizzle3D = 68, "SWIZZLE3D", 2, B12;
    Jmp = 88, "JMP", 2, B12;
    Call = 89, "CALL", 1, Later;
    Ret = 90, "RET", 1, Later;
}

impl Op {
    /// Static facts.
    pub fn info(self) -> &'static OpInfo {
        &OPS[self as usize]
    }

    /// The mnemonic.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The opcode field value.
    pub fn code(self) -> u16 {
        self.info().code
    }

    /// The opcode with this field value.
    pub fn from_code(code: u16) -> Option<Op> {
        Op::ALL.iter().copied().find(|o| o.code() == code)
    }

    /// The opcode with this mnemonic (exact spelling).
    pub fn from_name(name: &str) -> Option<Op> {
        Op::ALL.iter().copied().find(|o| o.name() == name)
    }

    /// Type I or Type II (opcode bit 6).
    pub fn form(self) -> Form {
        if self.code() & 0x40 != 0 {
            Form::ImmediateType
        } else {
            Form::RegisterType
        }
    }

    /// For conditional jumps: the component (opcode bits 4:3) and condition (bits 2:0).
    pub fn jump(self) -> Option<(JumpComponent, JumpCond)> {
        let c = self.code();
        // The jump rows are opcodes 8..=31 (bits 4:3 = 01, 10, 11; bit 5 and above clear).
        if c >= 32 {
            return None;
        }
        let comp = match (c >> 3) & 3 {
            1 => JumpComponent::X,
            2 => JumpComponent::Y,
            3 => JumpComponent::Z,
            _ => return None,
        };
        let cond = match c & 7 {
            0 => JumpCond::G,
            1 => JumpCond::L,
            2 => JumpCond::Eq,
            3 => JumpCond::Ne,
            4 => JumpCond::Ge,
            5 => JumpCond::Le,
            _ => return None,
        };
        Some((comp, cond))
    }

    /// Whether the DST field is a jump target (conditional jumps, JMP, CALL).
    pub fn dst_is_target(self) -> bool {
        self.jump().is_some() || matches!(self, Op::Jmp | Op::Call)
    }
}

/// Register names of the b1.2 hardware definitions (and the manual's spellings where they differ),
/// with their addresses. The first name of an address is the one the disassembler prints.
pub const REGISTERS: &[(&str, u16)] = &[
    ("VOID", 0),
    ("CREG_LIGHT_INFO", 0),
    ("CREG_CAMERA_POSITION", 1),
    ("CREG_PROJECTION_WINDOW_MIN", 2),
    ("CREG_PROJECTION_WINDOW_MAX", 3),
    ("CREG_RESOLUTION", 4),
    ("CREG_TEXTURE_SIZE", 5),
    ("CREG_PIXEL_2D_INITIAL_POSITION", 6),
    ("CREG_PIXEL_2D_FINAL_POSITION", 7),
    ("CREG_FIRST_LIGTH", 8),
    ("CREG_FIRST_LIGTH_DIFFUSE", 8),
    ("CREG_AABBMIN", 42),
    ("CREG_AABBMAX", 43),
    ("CREG_V0", 44),
    ("CREG_UV0", 45),
    ("CREG_V1", 46),
    ("CREG_UV1", 47),
    ("CREG_V2", 48),
    ("CREG_UV2", 49),
    ("CREG_TRI_DIFFUSE", 50),
    ("CREG_TEX_COLOR1", 53),
    ("CREG_TEX_COLOR2", 54),
    ("CREG_TEX_COLOR3", 55),
    ("CREG_TEX_COLOR4", 56),
    ("CREG_TEX_COLOR5", 57),
    ("CREG_TEX_COLOR6", 58),
    ("CREG_TEX_COLOR7", 59),
    ("C1", 64),
    ("C2", 65),
    ("C3", 66),
    ("C4", 67),
    ("C5", 68),
    ("C6", 69),
    ("C7", 70),
    ("R1", 71),
    ("R2", 72),
    ("R3", 73),
    ("R4", 74),
    ("R5", 75),
    ("R6", 76),
    ("R7", 77),
    ("R8", 78),
    ("R9", 79),
    ("R10", 80),
    ("R11", 81),
    ("R12", 82),
    ("CREG_PROJECTION_WINDOW_SCALE", 83),
    ("CREG_UNORMALIZED_DIRECTION", 84),
    ("CREG_UNNORMALIZED_DIRECTION", 84),
    ("CREG_RAY_DIRECTION", 85),
    ("CREG_E1_LAST", 86),
    ("CREG_E2_LAST", 87),
    ("CREG_T", 88),
    ("CREG_P", 89),
    ("CREG_Q", 90),
    ("CREG_UV0_LAST", 91),
    ("CREG_UV1_LAST", 92),
    ("CREG_UV2_LAST", 93),
    ("CREG_TRI_DIFFUSE_LAST", 94),
    ("CREG_LAST_t", 95),
    ("CREG_LAST_u", 96),
    ("CREG_LAST_v", 97),
    ("CREG_COLOR_ACC", 98),
    ("CREG_t", 99),
    ("CREG_E1", 100),
    ("CREG_E2", 101),
    ("CREG_DELTA", 102),
    ("CREG_u", 103),
    ("CREG_v", 104),
    ("CREG_H1", 105),
    ("CREG_H2", 106),
    ("CREG_H3", 107),
    ("CREG_PIXEL_PITCH", 108),
    ("CREG_LAST_COL", 109),
    ("CREG_TEXTURE_COLOR", 110),
    ("CREG_PIXEL_2D_POSITION", 111),
    ("CREG_TEXWEIGHT1", 112),
    ("CREG_TEXWEIGHT2", 113),
    ("CREG_TEXWEIGHT3", 114),
    ("CREG_TEXWEIGHT4", 115),
    // Later hardware definitions (trunk) name a few more R/W registers; they are plain
    // addresses in the same bank, so their names are accepted too.
    ("CREG_TEX_COORD1", 116),
    ("CREG_TEX_COORD2", 117),
    ("R99", 118),
    ("CREG_ZERO", 119),
    ("CREG_CURRENT_OUTPUT_PIXEL", 120),
    ("CREG_3", 121),
    ("CREG_012", 122),
    ("OREG_PIXEL_COLOR", 128),
    ("OREG_TEX_COORD1", 129),
    ("OREG_TEX_COORD2", 130),
    ("OREG_ADDR_O", 131),
];

/// The address of a register name (exact spelling).
pub fn register_address(name: &str) -> Option<u16> {
    REGISTERS.iter().find(|(n, _)| *n == name).map(|&(_, a)| a)
}

/// The name the disassembler prints for a register address.
pub fn register_name(addr: u16) -> Option<&'static str> {
    REGISTERS.iter().find(|&&(_, a)| a == addr).map(|&(n, _)| n)
}

/// 32-bit macros of the hardware definitions: `TRUE`, `FALSE`, `ONE` and the swizzles.
pub const MACROS_32: &[(&str, u32)] = &[
    ("TRUE", 1),
    ("FALSE", 0),
    ("ONE", ONE),
    ("SWIZZLE_XXX", 0),
    ("SWIZZLE_YYY", 1),
    ("SWIZZLE_ZZZ", 2),
    ("SWIZZLE_XYY", 3),
    ("SWIZZLE_XXY", 4),
    ("SWIZZLE_XZZ", 5),
    ("SWIZZLE_XXZ", 6),
    ("SWIZZLE_YXX", 7),
    ("SWIZZLE_YYX", 8),
    ("SWIZZLE_YZZ", 9),
    ("SWIZZLE_YYZ", 10),
    ("SWIZZLE_ZXX", 11),
    ("SWIZZLE_ZZX", 12),
    ("SWIZZLE_ZYY", 13),
    ("SWIZZLE_ZZY", 14),
    ("SWIZZLE_XZX", 15),
    ("SWIZZLE_XYX", 16),
    ("SWIZZLE_YXY", 17),
    ("SWIZZLE_YZY", 18),
    ("SWIZZLE_ZXZ", 19),
    ("SWIZZLE_ZYZ", 20),
    ("SWIZZLE_YXZ", 21),
];

/// 48-bit macros that fill DST and the immediate together: `RT_TRUE` (1) and `RT_FALSE` (0).
pub const MACROS_48: &[(&str, u64)] = &[("RT_TRUE", 1), ("RT_FALSE", 0)];

/// The swizzle macro name for an immediate, if any.
pub fn swizzle_name(imm: u32) -> Option<&'static str> {
    MACROS_32[3..]
        .iter()
        .find(|&&(_, v)| v == imm)
        .map(|&(n, _)| n)
}

/// The b1.2 entry table: slot names in order (slot k is IMEM word k, address 0x8000 + k) and
/// the default ROM address of each routine.
pub const ENTRY_SLOTS: &[(&str, u16)] = &[
    ("INITIAL", 0),
    ("CPPU", 29),
    ("RGU", 32),
    ("AABBIU", 53),
    ("BIU", 141),
    ("PSU", 216),
    ("PSU2", 232),
    ("TCC", 174),
    ("NPG", 39),
    ("USERCONSTANTS", 241),
    ("PIXELSHADER", 243),
];

/// Address of IMEM word 0 (bit 15 selects IMEM).
pub const IMEM_BASE: u16 = 0x8000;

/// The slot number of an entry name (`PIXELSHADER` is 10).
pub fn entry_slot(name: &str) -> Option<usize> {
    ENTRY_SLOTS.iter().position(|(n, _)| *n == name)
}
