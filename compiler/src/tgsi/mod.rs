//! The TGSI program model: everything the seed documents (token format revision 1.1) and
//! Mesa's modern text can express, in one structure that both readers produce and both writers
//! consume.
//!
//! Conventions (see `docs/text-format.md` and `docs/binary-format.md`):
//! - A source swizzle is stored as its *effective* selection: the base swizzle composed with the
//!   SRC_REGISTER_EXT_SWZ selection, so `x`/`y`/`z`/`w`/`0`/`1` per component.
//! - Extension tokens whose fields are all at their default values carry no information and are
//!   not represented.
//! - Labels of structured control flow (IF, ELSE, BGNLOOP, ...) are derived from nesting and not
//!   stored; jump labels (CAL, CALLNZ, BRA) are stored as the index of the target instruction.
//! - `F[a][b]` is dimension `a`, register `b` (modern Mesa: `CONST[1][6]` is buffer 1,
//!   register 6; the geometry input `IN[2][0]` is vertex 2, register 0).

pub mod enums;
pub mod format;
pub mod opcode;

pub use enums::*;
pub use format::ImageFormat;
pub use opcode::{FlowOp, LoopKind, OpInfo, OpKind, Opcode, TexOperands, Wide};

use std::fmt;

/// The token stream revision a program was read from. Only 1.1 and below are executable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Revision {
    /// MajorVersion (only 1 is accepted).
    pub major: u8,
    /// MinorVersion.
    pub minor: u8,
}

impl Revision {
    /// Revision 1.1, the one tgsic writes.
    pub const CURRENT: Revision = Revision { major: 1, minor: 1 };

    /// Whether a program of this revision may be executed (a higher minor version loads but
    /// must not run: token format §2).
    pub fn is_executable(self) -> bool {
        self.major == 1 && self.minor <= 1
    }
}

impl Default for Revision {
    fn default() -> Self {
        Revision::CURRENT
    }
}

/// Where an item came from, for diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Location {
    /// A position in text (1-based line and column).
    Text {
        /// 1-based line.
        line: u32,
        /// 1-based column.
        column: u32,
    },
    /// A token of a binary stream (0-based word index).
    Token {
        /// 0-based index of the 32-bit word.
        index: u32,
    },
    /// Built in memory.
    #[default]
    Unknown,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Text { line, column } => write!(f, "{line}:{column}"),
            Location::Token { index } => write!(f, "token {index}"),
            Location::Unknown => f.write_str("<unknown>"),
        }
    }
}

/// Locations of one instruction and its operands.
#[derive(Debug, Clone, Default)]
pub struct InstLocation {
    /// The instruction itself.
    pub at: Location,
    /// Each destination operand.
    pub dst: Vec<Location>,
    /// Each source operand.
    pub src: Vec<Location>,
}

/// Where each item of a program came from. Metadata only: it never takes part in program
/// equality (two programs that differ only in their source map compare equal).
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    /// One entry per property.
    pub properties: Vec<Location>,
    /// One entry per declaration.
    pub declarations: Vec<Location>,
    /// One entry per immediate.
    pub immediates: Vec<Location>,
    /// One entry per instruction.
    pub instructions: Vec<InstLocation>,
}

impl PartialEq for SourceMap {
    fn eq(&self, _: &SourceMap) -> bool {
        true
    }
}

impl SourceMap {
    /// Location of instruction `i` (Unknown if not recorded).
    pub fn instruction(&self, i: usize) -> Location {
        self.instructions.get(i).map_or(Location::Unknown, |l| l.at)
    }

    /// Location of source operand `s` of instruction `i`, falling back to the instruction.
    pub fn src(&self, i: usize, s: usize) -> Location {
        self.instructions
            .get(i)
            .and_then(|l| l.src.get(s).copied())
            .unwrap_or_else(|| self.instruction(i))
    }

    /// Location of destination operand `d` of instruction `i`, falling back to the instruction.
    pub fn dst(&self, i: usize, d: usize) -> Location {
        self.instructions
            .get(i)
            .and_then(|l| l.dst.get(d).copied())
            .unwrap_or_else(|| self.instruction(i))
    }

    /// Location of declaration `i`.
    pub fn declaration(&self, i: usize) -> Location {
        self.declarations.get(i).copied().unwrap_or_default()
    }
}

/// A whole TGSI program.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Program {
    /// The processor it runs on.
    pub processor: Processor,
    /// The token stream revision it was read from (1.1 unless read from a stream of another
    /// minor version).
    pub revision: Revision,
    /// PROPERTY statements, in order.
    pub properties: Vec<Property>,
    /// Declarations, in order.
    pub declarations: Vec<Declaration>,
    /// Immediates; `IMM[n]` is `immediates[n]`.
    pub immediates: Vec<Immediate>,
    /// Instructions; labels and indices count these from 0.
    pub instructions: Vec<Instruction>,
    /// Where the items came from (not part of equality).
    pub source_map: SourceMap,
}

// `Processor` comes from `tgsi_enum!`, whose derive list is shared by every enumeration.
#[allow(clippy::derivable_impls)]
impl Default for Processor {
    fn default() -> Self {
        Processor::Fragment
    }
}

impl Program {
    /// An empty program for `processor`.
    pub fn new(processor: Processor) -> Program {
        Program {
            processor,
            ..Program::default()
        }
    }

    /// The value of a property, if the program sets it (the last setting wins).
    pub fn property(&self, name: PropertyName) -> Option<u32> {
        self.properties
            .iter()
            .rev()
            .find(|p| p.name == name)
            .map(|p| p.value)
    }

    /// Declarations of `file`.
    pub fn declarations_of(&self, file: File) -> impl Iterator<Item = &Declaration> {
        self.declarations.iter().filter(move |d| d.file == file)
    }
}

/// `PROPERTY NAME VALUE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Property {
    /// Which property.
    pub name: PropertyName,
    /// Its value (enumerated values are stored as their numbers).
    pub value: u32,
}

/// A component mask (write mask or usage mask): bit 0 = x, 1 = y, 2 = z, 3 = w.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WriteMask(pub u8);

impl WriteMask {
    /// All four components.
    pub const XYZW: WriteMask = WriteMask(0xF);

    /// Whether component `c` (0..=3) is in the mask.
    pub fn has(self, c: usize) -> bool {
        self.0 & (1 << c) != 0
    }

    /// Whether every component is in the mask.
    pub fn is_full(self) -> bool {
        self.0 & 0xF == 0xF
    }
}

impl Default for WriteMask {
    fn default() -> Self {
        WriteMask::XYZW
    }
}

impl fmt::Display for WriteMask {
    /// The component letters in order (`xyz`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (c, l) in ['x', 'y', 'z', 'w'].into_iter().enumerate() {
            if self.has(c) {
                write!(f, "{l}")?;
            }
        }
        Ok(())
    }
}

/// An inclusive range of register indices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RegRange {
    /// First register.
    pub first: u32,
    /// Last register (inclusive).
    pub last: u32,
}

impl RegRange {
    /// The range `first..=last`.
    pub fn new(first: u32, last: u32) -> RegRange {
        RegRange { first, last }
    }

    /// Whether `index` lies in the range.
    pub fn contains(self, index: i64) -> bool {
        index >= self.first as i64 && index <= self.last as i64
    }
}

/// Semantic of an input, output or system value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SemanticDecl {
    /// Semantic name.
    pub name: Semantic,
    /// Semantic index (`GENERIC[3]` has index 3).
    pub index: u32,
    /// Geometry output streams per component (all 0 unless `STREAM(...)` is given).
    pub streams: [u8; 4],
}

/// A sampler view's resource description (`DCL SVIEW[0], 2D, FLOAT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SamplerViewDecl {
    /// Texture target of the resource.
    pub target: TextureTarget,
    /// Return type of each component.
    pub return_types: [ReturnType; 4],
}

/// An image's description (`DCL IMAGE[0], 2D, PIPE_FORMAT_R8G8B8A8_UNORM, WR`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ImageDecl {
    /// Its target (1D, 2D, 3D, arrays, cube maps, BUFFER).
    pub target: TextureTarget,
    /// The format the program reads and writes it with (`None`: the bound image's own).
    pub format: ImageFormat,
    /// `WR`: the program may store into it.
    pub writable: bool,
    /// `RAW`: addressed by bytes, not texels (Mesa's flag; kept as written).
    pub raw: bool,
}

/// A declaration: `DCL FILE[range], attributes`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Declaration {
    /// The register file.
    pub file: File,
    /// The declared registers: one or more ranges (a DECLARE_MASK reads as the equivalent
    /// ranges). Never empty.
    pub ranges: Vec<RegRange>,
    /// The second dimension (`CONST[1][0..3]` declares buffer 1). Geometry-shader inputs are
    /// implicitly two-dimensional and do not use this.
    pub dimension: Option<u32>,
    /// Components used (`DCL IN[1].xyz`).
    pub usage_mask: WriteMask,
    /// Semantic of an input, output or system value.
    pub semantic: Option<SemanticDecl>,
    /// Interpolation mode (a DECLARATION_INTERPOLATION token).
    pub interpolation: Option<Interpolation>,
    /// Interpolation location.
    pub location: InterpLocation,
    /// Array id (`ARRAY(1)`); arrays are addressed indirectly as a unit.
    pub array_id: Option<u32>,
    /// `LOCAL` temporaries.
    pub local: bool,
    /// `INVARIANT` outputs.
    pub invariant: bool,
    /// Resource of a sampler view.
    pub sampler_view: Option<SamplerViewDecl>,
    /// The description of an IMAGE.
    pub image: Option<ImageDecl>,
    /// The kind of a MEMORY declaration (`SHARED`; `None` for other files).
    pub memory: Option<MemoryType>,
    /// `ATOMIC`: a BUFFER of hardware atomic counters (Mesa's flag; tgsic treats it as any
    /// storage buffer).
    pub atomic: bool,
}

impl Declaration {
    /// A plain declaration of `file[first..=last]`.
    pub fn new(file: File, first: u32, last: u32) -> Declaration {
        Declaration {
            file,
            ranges: vec![RegRange::new(first, last)],
            dimension: None,
            usage_mask: WriteMask::XYZW,
            semantic: None,
            interpolation: None,
            location: InterpLocation::Center,
            array_id: None,
            local: false,
            invariant: false,
            sampler_view: None,
            image: None,
            memory: None,
            atomic: false,
        }
    }

    /// Whether the declaration covers register `index`.
    pub fn contains(&self, index: i64) -> bool {
        self.ranges.iter().any(|r| r.contains(index))
    }

    /// The smallest range covering every declared register.
    pub fn span(&self) -> RegRange {
        let first = self.ranges.iter().map(|r| r.first).min().unwrap_or(0);
        let last = self.ranges.iter().map(|r| r.last).max().unwrap_or(0);
        RegRange { first, last }
    }
}

/// An immediate: `IMM[n] FLT32 {...}`. Values are raw 32-bit patterns.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Immediate {
    /// How the values are typed.
    pub ty: ImmediateType,
    /// The values as bits (usually four).
    pub values: Vec<u32>,
}

impl Immediate {
    /// Four float values.
    pub fn float(v: [f32; 4]) -> Immediate {
        Immediate {
            ty: ImmediateType::Float32,
            values: v.iter().map(|f| f.to_bits()).collect(),
        }
    }
}

/// A register reference with its (possibly indirect) indices.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Register {
    /// Register file.
    pub file: File,
    /// Index within the file.
    pub index: Index,
    /// Outer indices: `dimensions[0]` is the DIMENSION token nearest the register (the buffer
    /// of `CONST[1][6]`), further entries are chained DIMENSION tokens.
    pub dimensions: Vec<Index>,
    /// Array id of an indirectly addressed array (`TEMP[ADDR[0].x+1](1)`).
    pub array_id: Option<u32>,
}

impl Register {
    /// `file[index]`, directly addressed.
    pub fn new(file: File, index: i32) -> Register {
        Register {
            file,
            index: Index::direct(index),
            dimensions: Vec::new(),
            array_id: None,
        }
    }

    /// Whether any index of this register is indirect.
    pub fn is_indirect(&self) -> bool {
        self.index.indirect.is_some() || self.dimensions.iter().any(|d| d.indirect.is_some())
    }
}

/// An index: a constant offset plus, optionally, a component of another register.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Index {
    /// The constant part (the whole index when direct).
    pub offset: i32,
    /// The register component added at run time.
    pub indirect: Option<Box<Indirect>>,
}

impl Index {
    /// A direct index.
    pub fn direct(offset: i32) -> Index {
        Index {
            offset,
            indirect: None,
        }
    }
}

/// The run-time part of an indirect index: one component of a register.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Indirect {
    /// The address register (usually `ADDR[n]`; any file may be used).
    pub register: Register,
    /// Which component is read.
    pub component: Swizzle,
}

/// A source operand with its modifiers.
///
/// Evaluation order of the modifiers (see `docs/semantics.md`): select components by `swizzle`
/// (reading 0 or 1 for the literals), divide by the `divide` component, apply `negate` and the
/// per-component negations, then `absolute`, then `negate_after`, then `complement` (1 − x),
/// `bias` (x − 0.5) and `scale2x` (2x).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Src {
    /// The register read.
    pub register: Register,
    /// Effective selection per component.
    pub swizzle: [ExtSwizzle; 4],
    /// Per-component negation (bit c negates component c; SRC_REGISTER_EXT_SWZ).
    pub negate_components: u8,
    /// ExtDivide: the component the value is divided by (`One` = none).
    pub divide: ExtSwizzle,
    /// SRC_REGISTER Negate: applied before the absolute value.
    pub negate: bool,
    /// Absolute value (SRC_REGISTER_EXT_MOD).
    pub absolute: bool,
    /// Negation after the absolute value (SRC_REGISTER_EXT_MOD).
    pub negate_after: bool,
    /// 1 − x.
    pub complement: bool,
    /// x − 0.5.
    pub bias: bool,
    /// 2x.
    pub scale2x: bool,
}

impl Src {
    /// A plain, unmodified source reading `register.xyzw`.
    pub fn new(register: Register) -> Src {
        Src {
            register,
            swizzle: [ExtSwizzle::X, ExtSwizzle::Y, ExtSwizzle::Z, ExtSwizzle::W],
            negate_components: 0,
            divide: ExtSwizzle::One,
            negate: false,
            absolute: false,
            negate_after: false,
            complement: false,
            bias: false,
            scale2x: false,
        }
    }

    /// Whether the selection needs the extended swizzle token (a literal, a per-component
    /// negation or a divide).
    pub fn needs_ext_swizzle(&self) -> bool {
        self.swizzle.iter().any(|s| s.component().is_none())
            || self.negate_components != 0
            || self.divide != ExtSwizzle::One
    }

    /// Whether any modifier of SRC_REGISTER_EXT_MOD is set.
    pub fn has_ext_mod(&self) -> bool {
        self.absolute || self.negate_after || self.complement || self.bias || self.scale2x
    }
}

/// An NV condition-code test: `(EQ1.xyww)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CondTest {
    /// The comparison.
    pub mask: CondMask,
    /// The condition register components tested for each component.
    pub swizzle: [Swizzle; 4],
    /// Condition register index (0..=15).
    pub index: u8,
}

impl CondTest {
    /// Whether the test is the default (TR, identity swizzle, register 0): no test at all.
    pub fn is_default(&self) -> bool {
        self.mask == CondMask::Tr && self.swizzle == Swizzle::XYZW && self.index == 0
    }
}

/// A destination operand.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Dst {
    /// The register written.
    pub register: Register,
    /// Components written.
    pub write_mask: WriteMask,
    /// Result scale (DST_REGISTER_EXT_MODULATE).
    pub modulate: Modulate,
    /// Condition-code test gating the write (DST_REGISTER_EXT_CONDCODE).
    pub cond: Option<CondTest>,
}

impl Dst {
    /// A plain destination writing every component.
    pub fn new(register: Register) -> Dst {
        Dst {
            register,
            write_mask: WriteMask::XYZW,
            modulate: Modulate::X1,
            cond: None,
        }
    }
}

/// A texture offset operand (`, IMM[0].xyz` after the target).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TexOffset {
    /// Register file of the offset.
    pub file: File,
    /// Register index.
    pub index: i32,
    /// Components giving the x, y, z offsets.
    pub swizzle: [Swizzle; 3],
}

/// An instruction.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Instruction {
    /// The operation.
    pub opcode: Opcode,
    /// Result saturation.
    pub saturate: Saturate,
    /// Modern `_PRECISE` (no value-changing optimizations).
    pub precise: bool,
    /// NV precision.
    pub precision: Precision,
    /// NV: the condition register this instruction updates (`_CC1`).
    pub cond_update: Option<u8>,
    /// NV: condition under which the instruction executes.
    pub cond_test: Option<CondTest>,
    /// Jump target (CAL, CALLNZ, BRA): the index of the target instruction.
    pub label: Option<u32>,
    /// Texture target of texture instructions, and of memory instructions on images
    /// (`STORE IMAGE[0], TEMP[0], TEMP[1], 2D`).
    pub texture: Option<TextureTarget>,
    /// Texture offsets.
    pub tex_offsets: Vec<TexOffset>,
    /// Memory qualifiers of a memory instruction (`COHERENT`, `RESTRICT`, `VOLATILE`).
    pub qualifiers: MemoryQualifiers,
    /// The image format a memory instruction names (`None` when it names none).
    pub format: ImageFormat,
    /// Destination operands.
    pub dst: Vec<Dst>,
    /// Source operands.
    pub src: Vec<Src>,
}

impl Instruction {
    /// An instruction with default modifiers.
    pub fn new(opcode: Opcode, dst: Vec<Dst>, src: Vec<Src>) -> Instruction {
        Instruction {
            opcode,
            saturate: Saturate::None,
            precise: false,
            precision: Precision::Default,
            cond_update: None,
            cond_test: None,
            label: None,
            texture: None,
            tex_offsets: Vec::new(),
            qualifiers: MemoryQualifiers(0),
            format: ImageFormat::None,
            dst,
            src,
        }
    }

    /// `Some(reason)` when this instruction has no defined semantics, so it reads and prints
    /// but cannot be executed or compiled: its opcode has none, or it is Mesa's BRA with a
    /// source operand (Mesa's table gives BRA one source that no specification explains).
    pub fn no_semantics(&self) -> Option<&'static str> {
        if self.opcode == Opcode::Bra && !self.src.is_empty() {
            return Some("a BRA with a source operand (Mesa's form) has no defined semantics");
        }
        self.opcode.info().no_semantics
    }
}

/// What a texture instruction reads: the texture unit, the sampler state unit and the target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TextureBinding {
    /// Texture unit: `SAMP[n]` of TEX-style opcodes, `SVIEW[n]` of the SAMPLE family.
    pub unit: u32,
    /// Sampler state unit, when the instruction samples.
    pub sampler: Option<u32>,
    /// The target: the instruction's (TEX style) or the SVIEW declaration's (2D if absent).
    pub target: TextureTarget,
}

impl Program {
    /// Resolves the texture unit, sampler and target of texture instruction `inst`
    /// (`docs/semantics.md`, "Textures").
    ///
    /// # Errors
    /// A message naming the problem when `inst` is not a texture instruction or addresses its
    /// sampler or view indirectly.
    pub fn texture_binding(&self, inst: &Instruction) -> Result<TextureBinding, String> {
        let op = inst.opcode;
        let info = op
            .tex()
            .ok_or_else(|| format!("{op} is not a texture instruction"))?;
        let unit = |k: u8| -> Result<u32, String> {
            let s = inst
                .src
                .get(k as usize)
                .ok_or_else(|| format!("{op} has no source {k}"))?;
            if s.register.is_indirect() {
                return Err(format!("{op}: indirect sampler or view indexing"));
            }
            Ok(s.register.index.offset.max(0) as u32)
        };
        match info.view {
            Some(v) => {
                let n = unit(v)?;
                let target = self
                    .declarations_of(File::SamplerView)
                    .find(|d| d.contains(n as i64))
                    .and_then(|d| d.sampler_view)
                    .map_or(TextureTarget::Tex2D, |s| s.target);
                let sampler = info.sampler.map(unit).transpose()?;
                Ok(TextureBinding {
                    unit: n,
                    sampler,
                    target,
                })
            }
            None => {
                let n = unit(info.sampler.unwrap_or(0))?;
                Ok(TextureBinding {
                    unit: n,
                    sampler: Some(n),
                    target: inst.texture.unwrap_or(TextureTarget::Tex2D),
                })
            }
        }
    }
}
