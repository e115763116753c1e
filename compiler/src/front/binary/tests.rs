//! The worked encodings of the token format's specification (its sections 5.5, 6.4 and 6.5:
//! instructions, source and destination registers) as bit-exact vectors, and malformed streams.

use super::*;
use crate::tgsi::*;

const INSTRUCTION: u32 = 2;
const EXT: u32 = 1 << 31;

/// A stream holding `body` as a fragment program.
fn stream(body: &[u32]) -> Vec<u32> {
    let mut w = vec![0x0000_0101, 2 | (body.len() as u32) << 8, 0];
    w.extend_from_slice(body);
    w
}

fn one_instruction(inst: Instruction) -> Program {
    let mut p = Program::new(Processor::Fragment);
    p.instructions.push(inst);
    p
}

/// Encodes `inst` alone, checks the body equals `expected`, and decodes it back to `inst`.
fn vector(inst: Instruction, expected: &[u32]) {
    let p = one_instruction(inst.clone());
    let words = encode(&p).expect("encodes");
    assert_eq!(&words[3..], expected, "encoding of {:?}", inst.opcode);
    let back = decode(&stream(expected)).expect("decodes");
    assert!(back.warnings.is_empty(), "{:?}", back.warnings);
    assert_eq!(back.program.instructions, vec![inst]);
}

fn temp(i: i32) -> Register {
    Register::new(File::Temporary, i)
}

fn inst_word(opcode: u32, size: u32, sat: u32, dst: u32, src: u32) -> u32 {
    INSTRUCTION | size << 4 | opcode << 12 | sat << 20 | dst << 22 | src << 24
}

/// DST_REGISTER TEMP[i], full mask.
fn dst_word(file: u32, mask: u32, index: u32) -> u32 {
    file | mask << 4 | index << 10
}

/// SRC_REGISTER with identity swizzle.
fn src_word(file: u32, index: u32) -> u32 {
    file | 0b1110_0100 << 4 | index << 15
}

#[test]
fn spec_5_5_1_add() {
    let i = Instruction::new(
        Opcode::Add,
        vec![Dst::new(temp(0))],
        vec![Src::new(temp(1)), Src::new(temp(2))],
    );
    vector(
        i,
        &[
            inst_word(8, 4, 0, 1, 2),
            dst_word(4, 0xF, 0),
            src_word(4, 1),
            src_word(4, 2),
        ],
    );
}

#[test]
fn spec_5_5_2_mov_sat() {
    let mut i = Instruction::new(
        Opcode::Mov,
        vec![Dst::new(temp(0))],
        vec![Src::new(temp(1))],
    );
    i.saturate = Saturate::ZeroOne;
    vector(
        i,
        &[
            inst_word(1, 3, 1, 1, 1),
            dst_word(4, 0xF, 0),
            src_word(4, 1),
        ],
    );
}

#[test]
fn spec_5_5_3_movc() {
    let mut i = Instruction::new(
        Opcode::Mov,
        vec![Dst::new(temp(0))],
        vec![Src::new(temp(1))],
    );
    i.cond_update = Some(0);
    // EXT_NV: Precision DEFAULT, CondDstIndex 0, CondFlowIndex 0, CondMask TR (7),
    // CondSwizzle XYZW, CondDstUpdate TRUE.
    let nv = 7 << 16 | 0b1110_0100 << 20 | 1 << 28;
    assert_eq!(nv, 0x1E47_0000);
    vector(
        i,
        &[
            inst_word(1, 4, 0, 1, 1) | EXT,
            nv,
            dst_word(4, 0xF, 0),
            src_word(4, 1),
        ],
    );
}

#[test]
fn spec_6_4_1_negated_swizzled_input() {
    let mut s = Src::new(Register::new(File::Input, 7));
    s.swizzle = [ExtSwizzle::X, ExtSwizzle::Y, ExtSwizzle::Y, ExtSwizzle::Z];
    s.negate = true;
    let i = Instruction::new(Opcode::Mov, vec![Dst::new(temp(0))], vec![s]);
    let src = 2 | 1 << 6 | 1 << 8 | 2 << 10 | 1 << 12 | 7 << 15;
    vector(i, &[inst_word(1, 3, 0, 1, 1), dst_word(4, 0xF, 0), src]);
}

#[test]
fn spec_6_4_2_extended_swizzle() {
    let mut s = Src::new(temp(12));
    s.swizzle = [
        ExtSwizzle::Zero,
        ExtSwizzle::One,
        ExtSwizzle::X,
        ExtSwizzle::W,
    ];
    s.negate_components = 0b1010;
    let i = Instruction::new(Opcode::Swz, vec![Dst::new(temp(0))], vec![s]);
    let swz = 4 << 4 | 5 << 8 | 3 << 16 | 1 << 21 | 1 << 23 | 5 << 24;
    vector(
        i,
        &[
            inst_word(118, 4, 0, 1, 1),
            dst_word(4, 0xF, 0),
            src_word(4, 12) | EXT,
            swz,
        ],
    );
}

#[test]
fn spec_6_4_3_negated_absolute() {
    let mut s = Src::new(temp(11));
    s.absolute = true;
    s.negate_after = true;
    let i = Instruction::new(Opcode::Mov, vec![Dst::new(temp(0))], vec![s]);
    let md = 1 | 1 << 7 | 1 << 8;
    vector(
        i,
        &[
            inst_word(1, 4, 0, 1, 1),
            dst_word(4, 0xF, 0),
            src_word(4, 11) | EXT,
            md,
        ],
    );
}

#[test]
fn spec_6_4_4_indirect_constant() {
    let mut r = Register::new(File::Constant, 17);
    r.index.indirect = Some(Box::new(Indirect {
        register: Register::new(File::Address, 1),
        component: Swizzle::Y,
    }));
    let i = Instruction::new(Opcode::Mov, vec![Dst::new(temp(0))], vec![Src::new(r)]);
    let addr = 6 | 1 << 4 | 1 << 6 | 2 << 8 | 3 << 10 | 1 << 15;
    vector(
        i,
        &[
            inst_word(1, 4, 0, 1, 1),
            dst_word(4, 0xF, 0),
            src_word(1, 17) | 1 << 13,
            addr,
        ],
    );
}

#[test]
fn spec_6_4_5_two_dimensional_indirect() {
    // CONSTANT_ARRAY is not defined by the document; FILE_CONSTANT stands in for it.
    let mut r = Register::new(File::Constant, 2);
    r.index.indirect = Some(Box::new(Indirect {
        register: Register::new(File::Address, 0),
        component: Swizzle::X,
    }));
    r.dimensions.push(Index {
        offset: 9,
        indirect: Some(Box::new(Indirect {
            register: temp(5),
            component: Swizzle::W,
        })),
    });
    let mut s = Src::new(r);
    s.swizzle = [ExtSwizzle::X, ExtSwizzle::X, ExtSwizzle::X, ExtSwizzle::One];
    let i = Instruction::new(Opcode::Swz, vec![Dst::new(temp(0))], vec![s]);
    let head = src_word(1, 2) | 1 << 13 | 1 << 14 | EXT;
    let swz = 5 << 16 | 5 << 24;
    let a0 = src_word(6, 0);
    let dim = 1 | 9 << 15;
    let t5 = 4 | 3 << 4 | 1 << 6 | 2 << 8 | 3 << 10 | 5 << 15;
    vector(
        i,
        &[
            inst_word(118, 7, 0, 1, 1),
            dst_word(4, 0xF, 0),
            head,
            swz,
            a0,
            dim,
            t5,
        ],
    );
}

#[test]
fn spec_6_4_6_nested_indirect() {
    let inner = Register::new(File::Temporary, 6);
    let mut mid = Register::new(File::Temporary, 26);
    mid.index.indirect = Some(Box::new(Indirect {
        register: inner,
        component: Swizzle::Y,
    }));
    let mut outer = Register::new(File::Temporary, 0);
    outer.index.indirect = Some(Box::new(Indirect {
        register: mid,
        component: Swizzle::Z,
    }));
    let i = Instruction::new(Opcode::Mov, vec![Dst::new(temp(1))], vec![Src::new(outer)]);
    let w0 = src_word(4, 0) | 1 << 13;
    let w1 = 4 | 2 << 4 | 1 << 6 | 2 << 8 | 3 << 10 | 1 << 13 | 26 << 15;
    let w2 = 4 | 1 << 4 | 1 << 6 | 2 << 8 | 3 << 10 | 6 << 15;
    vector(
        i,
        &[inst_word(1, 5, 0, 1, 1), dst_word(4, 0xF, 1), w0, w1, w2],
    );
}

#[test]
fn spec_6_5_1_write_mask() {
    let mut d = Dst::new(temp(3));
    d.write_mask = WriteMask(0b1010);
    let i = Instruction::new(Opcode::Mov, vec![d], vec![Src::new(temp(1))]);
    vector(
        i,
        &[
            inst_word(1, 3, 0, 1, 1),
            dst_word(4, 0b1010, 3),
            src_word(4, 1),
        ],
    );
}

#[test]
fn spec_6_5_2_condition_code_destination() {
    let mut d = Dst::new(temp(0));
    d.cond = Some(CondTest {
        mask: CondMask::Eq,
        swizzle: [Swizzle::X, Swizzle::Y, Swizzle::W, Swizzle::W],
        index: 1,
    });
    let i = Instruction::new(Opcode::Mov, vec![d], vec![Src::new(temp(1))]);
    let cc = 1 << 4 | 1 << 10 | 3 << 12 | 3 << 14 | 1 << 16;
    vector(
        i,
        &[
            inst_word(1, 4, 0, 1, 1),
            dst_word(4, 0xF, 0) | EXT,
            cc,
            src_word(4, 1),
        ],
    );
}

fn decode_err(words: &[u32]) -> DecodeError {
    match decode(words) {
        Ok(d) => panic!("decoded {:?}", d.program),
        Err(e) => e,
    }
}

#[test]
fn rejects_versions_and_truncation() {
    assert!(matches!(
        decode_err(&[]).kind,
        DecodeErrorKind::Truncated(_)
    ));
    let e = decode_err(&[0x0000_0102, 0x0000_0002, 0]);
    assert_eq!((e.token, e.field), (0, "MajorVersion"));
    let e = decode_err(&[0x0001_0101, 0x0000_0002, 0]);
    assert_eq!((e.token, e.field), (0, "Padding"));
    let e = decode_err(&[0x0000_0101]);
    assert_eq!(e.field, "HEADER");
    // BodySize says 4 words, only 3 follow.
    let mut s = stream(&[
        inst_word(1, 3, 0, 1, 1),
        dst_word(4, 0xF, 0),
        src_word(4, 1),
    ]);
    s[1] = 2 | 4 << 8;
    let e = decode_err(&s);
    assert_eq!((e.token, e.field), (1, "BodySize"));
    assert!(matches!(e.kind, DecodeErrorKind::OutOfStream(_)));
    // Instruction Size 5 points past the body.
    let e = decode_err(&stream(&[
        inst_word(1, 5, 0, 1, 1),
        dst_word(4, 0xF, 0),
        src_word(4, 1),
    ]));
    assert_eq!((e.token, e.field), (3, "Size"));
    // Size 2 cuts the source operand off.
    let e = decode_err(&stream(&[
        inst_word(1, 2, 0, 1, 1),
        dst_word(4, 0xF, 0),
        src_word(4, 1),
    ]));
    assert_eq!(e.token, 5);
    let e = decode_err(&[0x0000_0101, 0x0000_0009, 0]);
    assert_eq!(e.field, "HeaderSize");
    assert!(matches!(
        decode_bytes(&[1, 1, 0]).unwrap_err().kind,
        DecodeErrorKind::PartialWord(3)
    ));
}

#[test]
fn rejects_bad_fields() {
    // Unknown opcode 250.
    let e = decode_err(&stream(&[inst_word(250, 1, 0, 0, 0)]));
    assert_eq!((e.token, e.field), (3, "Opcode"));
    assert_eq!(e.kind, DecodeErrorKind::UnsupportedOpcode(250));
    // Unknown file 15 in the destination.
    let e = decode_err(&stream(&[
        inst_word(1, 3, 0, 1, 1),
        dst_word(15, 0xF, 0),
        src_word(4, 1),
    ]));
    assert_eq!((e.token, e.field), (4, "File"));
    // HW_ATOMIC is not read.
    let e = decode_err(&stream(&[
        inst_word(1, 3, 0, 1, 1),
        dst_word(4, 0xF, 0),
        src_word(14, 1),
    ]));
    assert!(matches!(
        e.kind,
        DecodeErrorKind::UnsupportedFile {
            name: "HWATOMIC",
            ..
        }
    ));
    // MOV with two sources.
    let e = decode_err(&stream(&[
        inst_word(1, 4, 0, 1, 2),
        dst_word(4, 0xF, 0),
        src_word(4, 1),
        src_word(4, 2),
    ]));
    assert!(matches!(e.kind, DecodeErrorKind::OperandCount { .. }));
    // Bit 28 is the Opcode's ninth bit: 1 + 256 is D2F, and 255 + 256 names no opcode.
    let d = decode(&stream(&[
        inst_word(1, 3, 0, 1, 1) | 1 << 28,
        dst_word(4, 0xF, 0),
        src_word(4, 1),
    ]))
    .expect("D2F decodes");
    assert_eq!(d.program.instructions[0].opcode, Opcode::D2f);
    let e = decode_err(&stream(&[
        inst_word(255, 3, 0, 1, 1) | 1 << 28,
        dst_word(4, 0xF, 0),
        src_word(4, 1),
    ]));
    assert_eq!((e.token, e.field), (3, "Opcode"));
    assert!(matches!(e.kind, DecodeErrorKind::UnsupportedOpcode(511)));
    // Padding bit 29 of the INSTRUCTION token.
    let e = decode_err(&stream(&[
        inst_word(1, 3, 0, 1, 1) | 1 << 29,
        dst_word(4, 0xF, 0),
        src_word(4, 1),
    ]));
    assert_eq!((e.token, e.field), (3, "Padding"));
    // Padding bit 26 of DST_REGISTER.
    let e = decode_err(&stream(&[
        inst_word(1, 3, 0, 1, 1),
        dst_word(4, 0xF, 0) | 1 << 26,
        src_word(4, 1),
    ]));
    assert_eq!((e.token, e.field), (4, "Padding"));
    // Saturate 3 is not in Table 19.
    let e = decode_err(&stream(&[
        inst_word(1, 3, 3, 1, 1),
        dst_word(4, 0xF, 0),
        src_word(4, 1),
    ]));
    assert_eq!(e.field, "Saturate");
}

#[test]
fn higher_minor_version_loads_but_is_not_executable() {
    let mut s = stream(&[inst_word(117, 1, 0, 0, 0)]);
    s[0] = 0x0000_0201;
    let d = decode(&s).unwrap();
    assert_eq!(d.program.revision, Revision { major: 1, minor: 2 });
    assert!(!d.program.revision.is_executable());
    assert_eq!(encode(&d.program).unwrap(), s);
}

#[test]
fn unknown_tokens_are_skipped() {
    // An unknown sized token (type 9, Size 2), then an instruction whose unknown extension
    // token (INSTRUCTION_EXT type 3, the later PREDICATE) chains to a TEXTURE extension.
    let body = [
        9 | 2 << 4,
        0xdead_beef,
        inst_word(52, 6, 0, 1, 2) | EXT,
        3 | EXT,
        2 | 2 << 4,
        dst_word(4, 0xF, 0),
        src_word(2, 0),
        src_word(5, 0),
    ];
    let d = decode(&stream(&body)).unwrap();
    assert_eq!(d.warnings.len(), 2, "{:?}", d.warnings);
    assert_eq!(d.warnings[0].token, 3);
    assert_eq!(d.warnings[1].token, 6);
    let inst = &d.program.instructions[0];
    assert_eq!(inst.opcode, Opcode::Tex);
    assert_eq!(inst.texture, Some(TextureTarget::Tex2D));
}

#[test]
fn labels_resolve_to_instruction_indices() {
    let mut p = Program::new(Processor::Vertex);
    let mut cal = Instruction::new(Opcode::Cal, vec![], vec![]);
    cal.label = Some(2);
    p.instructions = vec![
        cal,
        Instruction::new(Opcode::End, vec![], vec![]),
        Instruction::new(Opcode::BgnSub, vec![], vec![]),
        Instruction::new(Opcode::Ret, vec![], vec![]),
        Instruction::new(Opcode::EndSub, vec![], vec![]),
    ];
    let words = encode(&p).unwrap();
    // CAL jumps to label 3 (= instruction 2 + 1); BGNSUB declares it.
    assert_eq!(words[3], inst_word(63, 2, 0, 0, 0) | EXT);
    assert_eq!(words[4], 1 | 3 << 4);
    assert_eq!(words[6], inst_word(100, 2, 0, 0, 0) | EXT);
    assert_eq!(words[7], 1 | 3 << 4 | 1 << 28);
    assert_eq!(decode(&words).unwrap().program, p);
    // A jump to a label nobody declares.
    let e = decode_err(&stream(&[inst_word(63, 2, 0, 0, 0) | EXT, 1 | 7 << 4]));
    assert_eq!((e.token, e.field), (4, "Label"));
}

#[test]
fn declarations_round_trip_with_extensions() {
    let mut p = Program::new(Processor::Geometry);
    p.properties.push(Property {
        name: PropertyName::GsInputPrimitive,
        value: 4,
    });
    let mut d = Declaration::new(File::Input, 0, 2);
    d.semantic = Some(SemanticDecl {
        name: Semantic::Generic,
        index: 7,
        streams: [0; 4],
    });
    d.interpolation = Some(Interpolation::Perspective);
    d.usage_mask = WriteMask(0b0111);
    d.location = InterpLocation::Centroid;
    p.declarations.push(d);
    let mut c = Declaration::new(File::Constant, 0, 3);
    c.dimension = Some(1);
    p.declarations.push(c);
    let mut t = Declaration::new(File::Temporary, 0, 3);
    t.ranges.push(RegRange::new(7, 9));
    t.array_id = Some(2);
    t.local = true;
    p.declarations.push(t);
    let mut sv = Declaration::new(File::SamplerView, 0, 0);
    sv.sampler_view = Some(SamplerViewDecl {
        target: TextureTarget::Array2D,
        return_types: [
            ReturnType::Float,
            ReturnType::Float,
            ReturnType::Uint,
            ReturnType::Sint,
        ],
    });
    p.declarations.push(sv);
    p.immediates.push(Immediate {
        ty: ImmediateType::Int32,
        values: vec![1, (-2i32) as u32, 3, 4],
    });
    let words = encode(&p).unwrap();
    let back = decode(&words).unwrap();
    assert!(back.warnings.is_empty());
    assert_eq!(back.program, p);
    // The seed layout: the first declaration is a DECLARATION with Interpolate (bit 20) and
    // Semantic (bit 21), one MODIFIERS extension, a RANGE, the INTERPOLATION and the SEMANTIC.
    let decl = words[5];
    assert_eq!(decl & 0xF, 0);
    assert_eq!((decl >> 4) & 0xFF, 5);
    assert_eq!((decl >> 12) & 0xF, 2);
    assert_eq!((decl >> 20) & 3, 3);
    assert_eq!(words[7], 2 << 16);
    assert_eq!(words[8], 2);
    assert_eq!(words[9], 5 | 7 << 8);
}

#[test]
fn declaration_mask_reads_as_ranges() {
    // DECLARE_MASK for TEMP registers 0, 1, 2 and 5.
    let body = [4 << 12 | 1 << 16 | 2 << 4, 0b10_0111];
    let d = decode(&stream(&body)).unwrap();
    assert_eq!(
        d.program.declarations[0].ranges,
        vec![RegRange::new(0, 2), RegRange::new(5, 5)]
    );
}
