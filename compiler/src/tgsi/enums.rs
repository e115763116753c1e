//! Enumerations of the TGSI program model, each with its binary value (revision 1.1 plus the
//! documented extensions of `docs/binary-format.md`) and its text spelling (Mesa's dialect).

use std::fmt;

/// Declares a field enumeration with its binary value and its canonical text name.
///
/// Generated items: `ALL`, `bits()`, `from_bits()`, `name()`, `from_name()` (case-insensitive,
/// as Mesa's parser) and `Display` (the canonical name).
macro_rules! tgsi_enum {
    (
        $(#[$m:meta])*
        pub enum $name:ident { $( $(#[$vm:meta])* $var:ident = $num:literal => $text:literal ),* $(,)? }
    ) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $( $(#[$vm])* #[doc = concat!("Text `", $text, "`, binary value ", stringify!($num), ".")] $var ),* }

        impl $name {
            /// Every value, in binary order.
            pub const ALL: &'static [$name] = &[$($name::$var),*];

            /// The value of this enumerator in a binary token field.
            pub const fn bits(self) -> u32 {
                match self { $($name::$var => $num),* }
            }

            /// The enumerator a binary field value stands for, if any.
            pub fn from_bits(v: u32) -> Option<Self> {
                match v { $($num => Some($name::$var),)* _ => None }
            }

            /// The canonical text spelling.
            pub const fn name(self) -> &'static str {
                match self { $($name::$var => $text),* }
            }

            /// Looks a text spelling up, ignoring ASCII case.
            pub fn from_name(s: &str) -> Option<Self> {
                $( if s.eq_ignore_ascii_case($text) { return Some($name::$var); } )*
                None
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

tgsi_enum! {
    /// The processor a program targets (PROCESSOR token; `COMPUTE` is an extension).
    pub enum Processor {
        Fragment = 0 => "FRAG",
        Vertex = 1 => "VERT",
        Geometry = 2 => "GEOM",
        Compute = 3 => "COMP",
    }
}

tgsi_enum! {
    /// Register files. 0..=7 are the seed's; `SV` and `SVIEW` keep modern Mesa's numbers.
    pub enum File {
        Null = 0 => "NULL",
        Constant = 1 => "CONST",
        Input = 2 => "IN",
        Output = 3 => "OUT",
        Temporary = 4 => "TEMP",
        Sampler = 5 => "SAMP",
        Address = 6 => "ADDR",
        Immediate = 7 => "IMM",
        SystemValue = 8 => "SV",
        Image = 9 => "IMAGE",
        SamplerView = 10 => "SVIEW",
        Buffer = 11 => "BUFFER",
        Memory = 12 => "MEMORY",
    }
}

impl File {
    /// Whether instructions may write registers of this file as their destination (memory
    /// files are written by STORE alone, whose destination names the resource).
    pub fn is_writable(self) -> bool {
        matches!(
            self,
            File::Null | File::Output | File::Temporary | File::Address
        )
    }

    /// Whether registers of this file name memory (a storage buffer, an image or shared,
    /// global or private memory) that LOAD, STORE, RESQ and the atomics address.
    pub fn is_memory(self) -> bool {
        matches!(self, File::Buffer | File::Image | File::Memory)
    }
}

/// Modern register files that tgsic does not read, with their modern numbers: reading one is
/// an "unsupported register file" error. Each entry: name, number, what it was for.
pub const UNSUPPORTED_FILES: &[(&str, u32, &str)] = &[
    (
        "CONSTBUF",
        13,
        "constant buffers as memory (bindless constant buffers) are not supported",
    ),
    (
        "HWATOMIC",
        14,
        "hardware atomic counters are not supported (Mesa lowers atomic counters to BUFFER)",
    ),
];

/// Register files of Mesa's text form that Mesa later removed; they have no token value here.
/// Each entry: name, what it was. The text reader refuses them with this reason.
pub const REMOVED_FILES: &[(&str, &str)] = &[
    (
        "RES",
        "Mesa's former compute resource file (IMAGE and BUFFER replaced it) is not supported",
    ),
    (
        "IMMX",
        "Mesa's former immediate array file (immediates are indexed directly now) is not supported",
    ),
    (
        "TEMPX",
        "Mesa's former temporary array file (TEMP arrays with ARRAY ids replaced it) is not supported",
    ),
];

tgsi_enum! {
    /// The DECLARE field of a DECLARATION token.
    pub enum Declare {
        Range = 0 => "RANGE",
        Mask = 1 => "MASK",
    }
}

tgsi_enum! {
    /// Interpolation modes (`COLOR` is modern Mesa's value 3).
    pub enum Interpolation {
        Constant = 0 => "CONSTANT",
        Linear = 1 => "LINEAR",
        Perspective = 2 => "PERSPECTIVE",
        Color = 3 => "COLOR",
    }
}

tgsi_enum! {
    /// Interpolation locations (modern Mesa).
    pub enum InterpLocation {
        Center = 0 => "CENTER",
        Centroid = 1 => "CENTROID",
        Sample = 2 => "SAMPLE",
    }
}

tgsi_enum! {
    /// Semantic names of inputs, outputs and system values (modern Mesa's numbering; 0..=6 are
    /// the 2008 values).
    pub enum Semantic {
        Position = 0 => "POSITION",
        Color = 1 => "COLOR",
        BColor = 2 => "BCOLOR",
        Fog = 3 => "FOG",
        PSize = 4 => "PSIZE",
        Generic = 5 => "GENERIC",
        Normal = 6 => "NORMAL",
        Face = 7 => "FACE",
        EdgeFlag = 8 => "EDGEFLAG",
        PrimId = 9 => "PRIM_ID",
        InstanceId = 10 => "INSTANCEID",
        VertexId = 11 => "VERTEXID",
        Stencil = 12 => "STENCIL",
        ClipDist = 13 => "CLIPDIST",
        ClipVertex = 14 => "CLIPVERTEX",
        GridSize = 15 => "GRID_SIZE",
        BlockId = 16 => "BLOCK_ID",
        BlockSize = 17 => "BLOCK_SIZE",
        ThreadId = 18 => "THREAD_ID",
        TexCoord = 19 => "TEXCOORD",
        PCoord = 20 => "PCOORD",
        ViewportIndex = 21 => "VIEWPORT_INDEX",
        Layer = 22 => "LAYER",
        SampleId = 23 => "SAMPLEID",
        SamplePos = 24 => "SAMPLEPOS",
        SampleMask = 25 => "SAMPLEMASK",
        InvocationId = 26 => "INVOCATIONID",
        VertexIdNoBase = 27 => "VERTEXID_NOBASE",
        BaseVertex = 28 => "BASEVERTEX",
        Patch = 29 => "PATCH",
        TessCoord = 30 => "TESSCOORD",
        TessOuter = 31 => "TESSOUTER",
        TessInner = 32 => "TESSINNER",
        VerticesIn = 33 => "VERTICESIN",
        HelperInvocation = 34 => "HELPER_INVOCATION",
        BaseInstance = 35 => "BASEINSTANCE",
        DrawId = 36 => "DRAWID",
        WorkDim = 37 => "WORK_DIM",
        SubgroupSize = 38 => "SUBGROUP_SIZE",
        SubgroupInvocation = 39 => "SUBGROUP_INVOCATION",
        SubgroupEqMask = 40 => "SUBGROUP_EQ_MASK",
        SubgroupGeMask = 41 => "SUBGROUP_GE_MASK",
        SubgroupGtMask = 42 => "SUBGROUP_GT_MASK",
        SubgroupLeMask = 43 => "SUBGROUP_LE_MASK",
        SubgroupLtMask = 44 => "SUBGROUP_LT_MASK",
        CsUserDataAmd = 45 => "CS_USER_DATA_AMD",
        ViewportMask = 46 => "VIEWPORT_MASK",
        TessDefaultOuterLevel = 47 => "TESS_DEFAULT_OUTER_LEVEL",
        TessDefaultInnerLevel = 48 => "TESS_DEFAULT_INNER_LEVEL",
    }
}

impl Semantic {
    /// Whether the printer always writes the index (`GENERIC[0]`), as tgsi_dump does.
    pub fn always_indexed(self) -> bool {
        matches!(
            self,
            Semantic::Generic | Semantic::TexCoord | Semantic::Patch
        )
    }
}

tgsi_enum! {
    /// Texture targets. 0..=8 are the seed's table; 9..=17 keep modern Mesa's numbers;
    /// `BUFFER` (modern 0) is 18 here because 0 is the seed's `UNKNOWN`.
    pub enum TextureTarget {
        Unknown = 0 => "UNKNOWN",
        Tex1D = 1 => "1D",
        Tex2D = 2 => "2D",
        Tex3D = 3 => "3D",
        Cube = 4 => "CUBE",
        Rect = 5 => "RECT",
        Shadow1D = 6 => "SHADOW1D",
        Shadow2D = 7 => "SHADOW2D",
        ShadowRect = 8 => "SHADOWRECT",
        Array1D = 9 => "1D_ARRAY",
        Array2D = 10 => "2D_ARRAY",
        Shadow1DArray = 11 => "SHADOW1D_ARRAY",
        Shadow2DArray = 12 => "SHADOW2D_ARRAY",
        ShadowCube = 13 => "SHADOWCUBE",
        Msaa2D = 14 => "2D_MSAA",
        Msaa2DArray = 15 => "2D_ARRAY_MSAA",
        CubeArray = 16 => "CUBEARRAY",
        ShadowCubeArray = 17 => "SHADOWCUBEARRAY",
        Buffer = 18 => "BUFFER",
    }
}

impl TextureTarget {
    /// Whether coordinates address texels rather than [0, 1] (RECT and SHADOWRECT).
    pub fn is_rect(self) -> bool {
        matches!(self, TextureTarget::Rect | TextureTarget::ShadowRect)
    }

    /// Whether the target is one-dimensional (1D, SHADOW1D and their arrays).
    pub fn is_1d(self) -> bool {
        matches!(
            self,
            TextureTarget::Tex1D
                | TextureTarget::Shadow1D
                | TextureTarget::Array1D
                | TextureTarget::Shadow1DArray
        )
    }

    /// Whether the target is an array of 1D or 2D textures (not of cube maps).
    pub fn is_array(self) -> bool {
        matches!(
            self,
            TextureTarget::Array1D
                | TextureTarget::Shadow1DArray
                | TextureTarget::Array2D
                | TextureTarget::Shadow2DArray
        )
    }

    /// Whether the target is a cube map or an array of them.
    pub fn is_cube(self) -> bool {
        matches!(
            self,
            TextureTarget::Cube
                | TextureTarget::ShadowCube
                | TextureTarget::CubeArray
                | TextureTarget::ShadowCubeArray
        )
    }

    /// Whether the target compares against a reference value (shadow sampling).
    pub fn is_shadow(self) -> bool {
        matches!(
            self,
            TextureTarget::Shadow1D
                | TextureTarget::Shadow2D
                | TextureTarget::ShadowRect
                | TextureTarget::Shadow1DArray
                | TextureTarget::Shadow2DArray
                | TextureTarget::ShadowCube
                | TextureTarget::ShadowCubeArray
        )
    }
}

tgsi_enum! {
    /// The kind of memory a `DCL MEMORY[n]` declares (`GLOBAL` is the default and printed
    /// only when given, as tgsi_dump does).
    pub enum MemoryType {
        Global = 0 => "GLOBAL",
        Shared = 1 => "SHARED",
        Private = 2 => "PRIVATE",
        Input = 3 => "INPUT",
    }
}

/// Memory qualifiers of LOAD, STORE and the atomics (`COHERENT`, `RESTRICT`, `VOLATILE`):
/// bit 0, 1 and 2, as in Mesa's TGSI_MEMORY_* values. They order nothing in tgsic, whose
/// memory operations all take effect in program order; they are kept so that programs
/// round-trip.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct MemoryQualifiers(pub u8);

impl MemoryQualifiers {
    /// The qualifier names, by bit.
    pub const NAMES: [&'static str; 3] = ["COHERENT", "RESTRICT", "VOLATILE"];

    /// The bit of a qualifier name (any case).
    pub fn bit_of(name: &str) -> Option<u8> {
        Self::NAMES
            .iter()
            .position(|n| n.eq_ignore_ascii_case(name))
            .map(|b| 1 << b)
    }

    /// The names of the qualifiers set, in bit order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        Self::NAMES
            .into_iter()
            .enumerate()
            .filter(move |(b, _)| self.0 & (1 << b) != 0)
            .map(|(_, n)| n)
    }
}

tgsi_enum! {
    /// Return types of a sampler view (modern Mesa).
    pub enum ReturnType {
        Unorm = 0 => "UNORM",
        Snorm = 1 => "SNORM",
        Sint = 2 => "SINT",
        Uint = 3 => "UINT",
        Float = 4 => "FLOAT",
    }
}

tgsi_enum! {
    /// Data type of an IMMEDIATE (`UINT32`, `INT32` and the 64-bit types are the documented
    /// extension values). A 64-bit immediate holds two values, each two words, low word first.
    pub enum ImmediateType {
        Float32 = 0 => "FLT32",
        Uint32 = 1 => "UINT32",
        Int32 = 2 => "INT32",
        Float64 = 3 => "FLT64",
        Uint64 = 4 => "UINT64",
        Int64 = 5 => "INT64",
    }
}

impl ImmediateType {
    /// Whether each value takes two 32-bit words (FLT64, UINT64, INT64).
    pub fn is_64_bit(self) -> bool {
        matches!(
            self,
            ImmediateType::Float64 | ImmediateType::Uint64 | ImmediateType::Int64
        )
    }
}

tgsi_enum! {
    /// Saturation mode of an instruction.
    pub enum Saturate {
        None = 0 => "",
        ZeroOne = 1 => "_SAT",
        MinusPlusOne = 2 => "_SATNV",
    }
}

tgsi_enum! {
    /// A source or condition swizzle selector.
    pub enum Swizzle {
        X = 0 => "x",
        Y = 1 => "y",
        Z = 2 => "z",
        W = 3 => "w",
    }
}

impl Swizzle {
    /// The four selectors in order; also the identity swizzle.
    pub const XYZW: [Swizzle; 4] = [Swizzle::X, Swizzle::Y, Swizzle::Z, Swizzle::W];

    /// The component index 0..=3.
    pub fn index(self) -> usize {
        self.bits() as usize
    }

    /// The selector for a component letter (`x`, `y`, `z`, `w`, either case).
    pub fn from_char(c: char) -> Option<Swizzle> {
        match c.to_ascii_lowercase() {
            'x' => Some(Swizzle::X),
            'y' => Some(Swizzle::Y),
            'z' => Some(Swizzle::Z),
            'w' => Some(Swizzle::W),
            _ => None,
        }
    }
}

tgsi_enum! {
    /// An extended swizzle selector (SRC_REGISTER_EXT_SWZ): a component or a literal 0 or 1.
    pub enum ExtSwizzle {
        X = 0 => "x",
        Y = 1 => "y",
        Z = 2 => "z",
        W = 3 => "w",
        Zero = 4 => "0",
        One = 5 => "1",
    }
}

impl From<Swizzle> for ExtSwizzle {
    fn from(s: Swizzle) -> ExtSwizzle {
        match s {
            Swizzle::X => ExtSwizzle::X,
            Swizzle::Y => ExtSwizzle::Y,
            Swizzle::Z => ExtSwizzle::Z,
            Swizzle::W => ExtSwizzle::W,
        }
    }
}

impl ExtSwizzle {
    /// The component this selector reads, or `None` for the literals 0 and 1.
    pub fn component(self) -> Option<Swizzle> {
        Swizzle::from_bits(self.bits())
    }
}

tgsi_enum! {
    /// NV condition-code tests (July 2007 values, with `UN`).
    pub enum CondMask {
        Gt = 0 => "GT",
        Eq = 1 => "EQ",
        Lt = 2 => "LT",
        Un = 3 => "UN",
        Ge = 4 => "GE",
        Le = 5 => "LE",
        Ne = 6 => "NE",
        Tr = 7 => "TR",
        Fl = 8 => "FL",
    }
}

tgsi_enum! {
    /// NV instruction precision.
    pub enum Precision {
        Default = 0 => "",
        Float32 = 1 => "_FP32",
        Float16 = 2 => "_FP16",
        Fixed12 = 3 => "_FX12",
    }
}

tgsi_enum! {
    /// Destination modulation (DST_REGISTER_EXT_MODULATE): a scale applied to the result.
    pub enum Modulate {
        X1 = 0 => "_1X",
        X2 = 1 => "_2X",
        X4 = 2 => "_4X",
        X8 = 3 => "_8X",
        Half = 4 => "_D2",
        Quarter = 5 => "_D4",
        Eighth = 6 => "_D8",
    }
}

impl Modulate {
    /// The factor the result is multiplied by.
    pub fn factor(self) -> f32 {
        match self {
            Modulate::X1 => 1.0,
            Modulate::X2 => 2.0,
            Modulate::X4 => 4.0,
            Modulate::X8 => 8.0,
            Modulate::Half => 0.5,
            Modulate::Quarter => 0.25,
            Modulate::Eighth => 0.125,
        }
    }
}

tgsi_enum! {
    /// Primitive types (values of the GS_*_PRIMITIVE properties).
    pub enum Primitive {
        Points = 0 => "POINTS",
        Lines = 1 => "LINES",
        LineLoop = 2 => "LINE_LOOP",
        LineStrip = 3 => "LINE_STRIP",
        Triangles = 4 => "TRIANGLES",
        TriangleStrip = 5 => "TRIANGLE_STRIP",
        TriangleFan = 6 => "TRIANGLE_FAN",
        Quads = 7 => "QUADS",
        QuadStrip = 8 => "QUAD_STRIP",
        Polygon = 9 => "POLYGON",
        LinesAdjacency = 10 => "LINES_ADJACENCY",
        LineStripAdjacency = 11 => "LINE_STRIP_ADJACENCY",
        TrianglesAdjacency = 12 => "TRIANGLES_ADJACENCY",
        TriangleStripAdjacency = 13 => "TRIANGLE_STRIP_ADJACENCY",
        Patches = 14 => "PATCHES",
    }
}

impl Primitive {
    /// Vertices per input primitive of a geometry shader (`None` for types a GS cannot take).
    pub fn vertices_per_primitive(self) -> Option<u32> {
        match self {
            Primitive::Points => Some(1),
            Primitive::Lines | Primitive::LineStrip | Primitive::LineLoop => Some(2),
            Primitive::Triangles | Primitive::TriangleStrip | Primitive::TriangleFan => Some(3),
            Primitive::LinesAdjacency | Primitive::LineStripAdjacency => Some(4),
            Primitive::TrianglesAdjacency | Primitive::TriangleStripAdjacency => Some(6),
            _ => None,
        }
    }
}

tgsi_enum! {
    /// Values of FS_COORD_ORIGIN.
    pub enum CoordOrigin {
        UpperLeft = 0 => "UPPER_LEFT",
        LowerLeft = 1 => "LOWER_LEFT",
    }
}

tgsi_enum! {
    /// Values of FS_COORD_PIXEL_CENTER.
    pub enum PixelCenter {
        HalfInteger = 0 => "HALF_INTEGER",
        Integer = 1 => "INTEGER",
    }
}

tgsi_enum! {
    /// Values of FS_DEPTH_LAYOUT.
    pub enum DepthLayout {
        None = 0 => "NONE",
        Any = 1 => "ANY",
        Greater = 2 => "GREATER",
        Less = 3 => "LESS",
        Unchanged = 4 => "UNCHANGED",
    }
}

tgsi_enum! {
    /// Values of NEXT_SHADER (modern `PIPE_SHADER_*` numbering).
    pub enum ShaderStage {
        Vertex = 0 => "VERT",
        Fragment = 1 => "FRAG",
        Geometry = 2 => "GEOM",
        TessCtrl = 3 => "TESS_CTRL",
        TessEval = 4 => "TESS_EVAL",
        Compute = 5 => "COMP",
    }
}

/// How the value of a property is spelled in text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PropertyValueKind {
    /// A decimal unsigned integer.
    Uint,
    /// A [`Primitive`] name.
    Primitive,
    /// A [`CoordOrigin`] name.
    CoordOrigin,
    /// A [`PixelCenter`] name.
    PixelCenter,
    /// A [`DepthLayout`] name.
    DepthLayout,
    /// A [`ShaderStage`] name.
    ShaderStage,
}

tgsi_enum! {
    /// Property names (PROPERTY token, modern Mesa 22 numbering).
    pub enum PropertyName {
        GsInputPrimitive = 0 => "GS_INPUT_PRIMITIVE",
        GsOutputPrimitive = 1 => "GS_OUTPUT_PRIMITIVE",
        GsMaxOutputVertices = 2 => "GS_MAX_OUTPUT_VERTICES",
        FsCoordOrigin = 3 => "FS_COORD_ORIGIN",
        FsCoordPixelCenter = 4 => "FS_COORD_PIXEL_CENTER",
        FsColor0WritesAllCbufs = 5 => "FS_COLOR0_WRITES_ALL_CBUFS",
        FsDepthLayout = 6 => "FS_DEPTH_LAYOUT",
        VsProhibitUcps = 7 => "VS_PROHIBIT_UCPS",
        GsInvocations = 8 => "GS_INVOCATIONS",
        VsWindowSpacePosition = 9 => "VS_WINDOW_SPACE_POSITION",
        TcsVerticesOut = 10 => "TCS_VERTICES_OUT",
        TesPrimMode = 11 => "TES_PRIM_MODE",
        TesSpacing = 12 => "TES_SPACING",
        TesVertexOrderCw = 13 => "TES_VERTEX_ORDER_CW",
        TesPointMode = 14 => "TES_POINT_MODE",
        NumClipdistEnabled = 15 => "NUM_CLIPDIST_ENABLED",
        NumCulldistEnabled = 16 => "NUM_CULLDIST_ENABLED",
        FsEarlyDepthStencil = 17 => "FS_EARLY_DEPTH_STENCIL",
        NextShader = 18 => "NEXT_SHADER",
        CsFixedBlockWidth = 19 => "CS_FIXED_BLOCK_WIDTH",
        CsFixedBlockHeight = 20 => "CS_FIXED_BLOCK_HEIGHT",
        CsFixedBlockDepth = 21 => "CS_FIXED_BLOCK_DEPTH",
        MulZeroWins = 22 => "MUL_ZERO_WINS",
        // Later Mesa properties, numbered on from 23 here (Mesa's own numbers moved when
        // FS_POST_DEPTH_COVERAGE was inserted). LEGACY_MATH_RULES is MUL_ZERO_WINS's newer name
        // and a wider rule; both are kept as written and change nothing in tgsic.
        FsPostDepthCoverage = 23 => "FS_POST_DEPTH_COVERAGE",
        LegacyMathRules = 24 => "LEGACY_MATH_RULES",
        VsBlitSgprsAmd = 25 => "VS_BLIT_SGPRS_AMD",
        CsUserDataComponentsAmd = 26 => "CS_USER_DATA_COMPONENTS_AMD",
        LayerViewportRelative = 27 => "LAYER_VIEWPORT_RELATIVE",
        FsBlendEquationAdvanced = 28 => "FS_BLEND_EQUATION_ADVANCED",
        SeparableProgram = 29 => "SEPARABLE_PROGRAM",
    }
}

impl PropertyName {
    /// How this property's value is written in text.
    pub fn value_kind(self) -> PropertyValueKind {
        match self {
            PropertyName::GsInputPrimitive | PropertyName::GsOutputPrimitive => {
                PropertyValueKind::Primitive
            }
            PropertyName::TesPrimMode => PropertyValueKind::Primitive,
            PropertyName::FsCoordOrigin => PropertyValueKind::CoordOrigin,
            PropertyName::FsCoordPixelCenter => PropertyValueKind::PixelCenter,
            PropertyName::FsDepthLayout => PropertyValueKind::DepthLayout,
            PropertyName::NextShader => PropertyValueKind::ShaderStage,
            _ => PropertyValueKind::Uint,
        }
    }

    /// The text spelling of `value` for this property (a name where it has one).
    pub fn format_value(self, value: u32) -> String {
        let named = match self.value_kind() {
            PropertyValueKind::Uint => None,
            PropertyValueKind::Primitive => Primitive::from_bits(value).map(|v| v.name()),
            PropertyValueKind::CoordOrigin => CoordOrigin::from_bits(value).map(|v| v.name()),
            PropertyValueKind::PixelCenter => PixelCenter::from_bits(value).map(|v| v.name()),
            PropertyValueKind::DepthLayout => DepthLayout::from_bits(value).map(|v| v.name()),
            PropertyValueKind::ShaderStage => ShaderStage::from_bits(value).map(|v| v.name()),
        };
        named.map_or_else(|| value.to_string(), str::to_string)
    }

    /// Parses a text value for this property: its value name, or a decimal number.
    pub fn parse_value(self, text: &str) -> Option<u32> {
        let named = match self.value_kind() {
            PropertyValueKind::Uint => None,
            PropertyValueKind::Primitive => Primitive::from_name(text).map(Primitive::bits),
            PropertyValueKind::CoordOrigin => CoordOrigin::from_name(text).map(CoordOrigin::bits),
            PropertyValueKind::PixelCenter => PixelCenter::from_name(text).map(PixelCenter::bits),
            PropertyValueKind::DepthLayout => DepthLayout::from_name(text).map(DepthLayout::bits),
            PropertyValueKind::ShaderStage => ShaderStage::from_name(text).map(ShaderStage::bits),
        };
        named.or_else(|| text.parse().ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_and_names_round_trip() {
        for f in File::ALL {
            assert_eq!(File::from_bits(f.bits()), Some(*f));
            assert_eq!(File::from_name(f.name()), Some(*f));
        }
        assert_eq!(File::from_name("temp"), Some(File::Temporary));
        assert_eq!(File::from_name("BUFFER").map(File::bits), Some(11));
        assert!(File::Memory.is_memory() && !File::Memory.is_writable());
        assert_eq!(MemoryQualifiers::bit_of("volatile"), Some(4));
        let names: Vec<_> = MemoryQualifiers(5).names().collect();
        assert_eq!(names, ["COHERENT", "VOLATILE"]);
        assert_eq!(TextureTarget::from_bits(0), Some(TextureTarget::Unknown));
        assert_eq!(TextureTarget::Buffer.bits(), 18);
        assert_eq!(CondMask::Fl.bits(), 8);
        assert_eq!(Semantic::from_name("PRIM_ID"), Some(Semantic::PrimId));
    }

    #[test]
    fn property_values_use_names() {
        let p = PropertyName::GsInputPrimitive;
        assert_eq!(p.format_value(4), "TRIANGLES");
        assert_eq!(p.parse_value("TRIANGLES"), Some(4));
        assert_eq!(
            PropertyName::FsColor0WritesAllCbufs.parse_value("1"),
            Some(1)
        );
        assert_eq!(
            PropertyName::FsCoordOrigin.parse_value("LOWER_LEFT"),
            Some(1)
        );
    }
}
