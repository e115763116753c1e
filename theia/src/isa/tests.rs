//! Encoding, assembler, disassembler and image tests.

use super::*;

/// Every opcode, every register and macro name of the manual and the hardware definitions.
fn everything() -> String {
    let mut s = String::from(
        "ENTRYPOINT_ADRR_USERCONSTANTS:\n    SETX C1 32'h06666 // 0.2\n    SETY C1 0.9\n    RETURN RT_TRUE\n",
    );
    s += "ENTRYPOINT_ADRR_PIXELSHADER:\nTOP:\n";
    for op in Op::ALL {
        let line = match op.form() {
            _ if op.dst_is_target() => format!("    {} TOP R1 R2\n", op.name()),
            Form::ImmediateType => format!("    {} R3 32'h1234\n", op.name()),
            Form::RegisterType => format!("    {} R4 R5 R6\n", op.name()),
        };
        s += &line;
    }
    for (name, _) in REGISTERS {
        s += &format!("    COPY {name} {name} VOID\n");
    }
    for (name, _) in MACROS_32 {
        s += &format!("    SETZ R7 {name}\n");
    }
    s += "    NOP RT_FALSE\n    RETURN RT_FALSE\n    JMP TOP VOID VOID\n    SETX R8 -1.5\n    SETX R8 0x7fffffff\n    SETY R8 -7\n";
    s += "    SWIZZLE3D R6 SWIZZLE_YXZ\n    ADD R1 R1 300\n    .word 0x00FFFFFFFFFFFFFF\n";
    s
}

#[test]
fn words_have_the_documented_layout() {
    let w = Word::reg(Op::Add.code(), 71, 72, 73);
    assert_eq!(w.0, 0x0001_0047_0048_0049);
    assert_eq!((w.opcode(), w.dst(), w.src1(), w.src2()), (1, 71, 72, 73));
    let r = Word::imm(Op::Return.code(), 0, 1);
    assert_eq!(r.0, 0x0040_0000_0000_0001, "RETURN RT_TRUE");
    assert_eq!(r.form(), Form::ImmediateType);
    assert_eq!(Op::Jmp.code(), 88);
    assert_eq!(Op::Jlex.jump(), Some((JumpComponent::X, JumpCond::Le)));
    assert_eq!(Op::Jgz.jump(), Some((JumpComponent::Z, JumpCond::G)));
    assert_eq!(Op::Inc.jump(), None);
    let jumps: Vec<&str> = Op::ALL
        .iter()
        .filter(|o| o.jump().is_some())
        .map(|o| o.name())
        .collect();
    assert_eq!(jumps.len(), 18, "{jumps:?}");
    assert!(jumps.iter().all(|n| n.starts_with('J')), "{jumps:?}");
    assert_eq!(register_address("CREG_T"), Some(88));
    assert_eq!(register_address("CREG_t"), Some(99));
    assert_eq!(register_address("creg_t"), None);
}

#[test]
fn example3_of_the_tutorial_assembles_as_the_original_tool_lays_it_out() {
    let src = "ENTRYPOINT_ADRR_USERCONSTANTS:\n\n       SETX C1 32'h06666   //0.2\n       SETY C1 32'h1CCCC   //0.9\n       RETURN RT_TRUE\n\n\
               ENTRYPOINT_ADRR_PIXELSHADER:\n       MAG  R1 CREG_TEXTURE_COLOR\n       JLX  BLACK R1 C1\n       JGEY BLACK R1 C1  \nWHITE:\n\
               SETX OREG_PIXEL_COLOR 32'h20000\n       SWIZZLE3D OREG_PIXEL_COLOR SWIZZLE_XXX\n       RETURN RT_TRUE\nBLACK:\n\
               ZERO OREG_PIXEL_COLOR VOID VOID\n       RETURN  RT_TRUE\n";
    let img = assemble(src, Layout::Mem).unwrap();
    assert_eq!(img.table_len, 11);
    assert_eq!(img.words.len(), 11 + 11);
    // USERCONSTANTS (slot 9) at 0x800B, PIXELSHADER (slot 10) at 0x800E; other slots keep the
    // b1.2 ROM defaults.
    assert_eq!(img.entry(9), Some(0x800B));
    assert_eq!(img.entry(10), Some(0x800E));
    assert_eq!(img.entry(1), Some(29));
    assert_eq!(img.words[11], 0x0041_0040_0000_6666);
    assert_eq!(
        img.words[14], 0x0005_0047_006E_0000,
        "MAG R1 CREG_TEXTURE_COLOR (SRC2 omitted = VOID)"
    );
    assert_eq!(
        img.words[15], 0x0009_8014_0047_0040,
        "JLX BLACK R1 C1: BLACK is 0x8014"
    );
    assert_eq!(img.words[18], 0x0044_0080_0000_0000);
    assert_eq!(img.words[20], 0x000F_0080_0000_0000);
    let mem = write_mem(&img).unwrap();
    assert!(
        mem.starts_with("44 //Number of ioctects in file\n"),
        "{mem}"
    );
    assert!(mem.contains("00000000 0000800E\t//ENTRYPOINT_ADRR_PIXELSHADER\n"));
    assert!(
        mem.contains("00098014 00470040\t\t//  IP 00800F (15): JLX 0x8014 R1 C1\n"),
        "{mem}"
    );
    assert_eq!(read_mem(&mem).unwrap(), img);
}

#[test]
fn assemble_disassemble_assemble_is_identical() {
    for layout in [Layout::Mem, Layout::Bin] {
        let img = assemble(&everything(), layout).unwrap_or_else(|e| panic!("{e}"));
        let text = disassemble(&img);
        let again = assemble(&text, layout).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(again, img, "{text}");
    }
}

#[test]
fn images_round_trip() {
    let img = assemble(&everything(), Layout::Mem).unwrap();
    let mem = write_mem(&img).unwrap();
    assert_eq!(read_mem(&mem).unwrap(), img);
    // The count line is ignored whether decimal or hex, or absent.
    let hex_count = mem.replacen(
        &format!("{} //", 2 * img.words.len()),
        &format!("{:X} //", 2 * img.words.len()),
        1,
    );
    assert_eq!(read_mem(&hex_count).unwrap(), img);
    let no_count: String = mem.lines().skip(1).map(|l| format!("{l}\n")).collect();
    assert_eq!(read_mem(&no_count).unwrap(), img);
    let bin = assemble(&everything(), Layout::Bin).unwrap();
    assert_eq!(bin.origin, 0);
    assert_eq!(read_bin(&write_bin(&bin).unwrap()).unwrap(), bin);
    assert!(write_bin(&img).is_err());
    assert!(write_mem(&bin).is_err());
    // The trunk example's 12-entry table reads; the 12th word is code to b1.2.
    let trunk = "28 //Number of ioctects in file\n00000000 00000000\n00000000 00000046\n00000000 0000004A\n00000000 00000062\n\
                 00000000 000000BA\n00000000 00000108\n00000000 00000118\n00000000 000000DE\n00000000 00000052\n00000000 00000134\n\
                 00000000 0000800C\n00000000 00000025\n002F0080 0078006E\n00400000 00000001\n";
    let t = read_mem(trunk).unwrap();
    assert_eq!(t.words.len(), 14);
    assert_eq!(assemble(&disassemble(&t), Layout::Mem).unwrap(), t);
}

#[test]
fn fixed_point_literals() {
    assert_eq!(f64_to_fixed(1.5), Some(0x30000));
    assert_eq!(f64_to_fixed(-1.0), Some(0xFFFE_0000));
    assert_eq!(f64_to_fixed(0.2), Some(0x6666));
    assert_eq!(
        f64_to_fixed(0.5 / 131072.0),
        Some(1),
        "a tie rounds away from zero"
    );
    assert_eq!(f64_to_fixed(-0.5 / 131072.0), Some(0xFFFF_FFFF));
    assert_eq!(f64_to_fixed(16384.0), None);
    assert_eq!(f64_to_fixed(-16384.0), Some(0x8000_0000));
    assert_eq!(fixed_to_f64(0x30000), 1.5);
}

fn asm_err(src: &str) -> AsmError {
    match assemble(src, Layout::Mem) {
        Ok(i) => panic!("assembled: {i:?}"),
        Err(e) => e,
    }
}

#[test]
fn bad_input_gives_typed_errors_with_positions() {
    let e = asm_err("  FROB R1 R2 R3\n");
    assert_eq!((e.line, e.column), (1, 3));
    assert!(matches!(e.kind, AsmErrorKind::UnknownMnemonic(_)));
    assert!(
        asm_err("add R1 R2 R3\n")
            .to_string()
            .contains("mnemonics are upper case: ADD")
    );
    let e = asm_err("ADD R1 R13 R2\n");
    assert_eq!((e.line, e.column), (1, 8));
    assert!(matches!(
        e.kind,
        AsmErrorKind::RegisterOutOfRange(_, "R1..R12")
    ));
    assert!(matches!(
        asm_err("ADD C8 R1 R2\n").kind,
        AsmErrorKind::RegisterOutOfRange(_, "C1..C7")
    ));
    assert!(matches!(
        asm_err("ADD R1 R2 70000\n").kind,
        AsmErrorKind::TooWide { bits: 16, .. }
    ));
    assert!(matches!(
        asm_err("SETX R1 32'h1FFFFFFFF\n").kind,
        AsmErrorKind::TooWide { .. }
    ));
    assert!(matches!(
        asm_err("SETX R1 0x100000000\n").kind,
        AsmErrorKind::TooWide { bits: 32, .. }
    ));
    assert!(matches!(
        asm_err("SETX R1 20000.0\n").kind,
        AsmErrorKind::FixedRange(_)
    ));
    let e = asm_err("NOP\nJMP NOWHERE VOID VOID\n");
    assert_eq!((e.line, e.column), (2, 5));
    assert_eq!(e.kind, AsmErrorKind::UndefinedLabel("NOWHERE".into()));
    assert_eq!(
        asm_err("A:\nA:\n").kind,
        AsmErrorKind::DuplicateLabel("A".into(), 1)
    );
    assert!(matches!(
        asm_err("ENTRYPOINT_ADRR_FOO:\n").kind,
        AsmErrorKind::UnknownEntry(..)
    ));
    assert!(matches!(
        asm_err("ADD R1 R2 R3 R4\n").kind,
        AsmErrorKind::TooManyOperands("ADD", 3)
    ));
    assert!(matches!(
        asm_err("ADD R1 RT_TRUE\n").kind,
        AsmErrorKind::Expected(_)
    ));
    assert!(matches!(
        asm_err("COPY R1 CREG_NOPE\n").kind,
        AsmErrorKind::UnknownName(_)
    ));
    assert!(matches!(
        asm_err("SETX R1 12'q3\n").kind,
        AsmErrorKind::Expected(_)
    ));
    let long = "NOP RT_FALSE\n".repeat(510);
    assert!(matches!(asm_err(&long).kind, AsmErrorKind::TooLong(521)));
}

#[test]
fn malformed_mem_files() {
    let e = read_mem("4\n00000000 00000000\n0000000 zz\n").unwrap_err();
    assert_eq!(
        e,
        BinaryError::Mem {
            line: 3,
            column: 9,
            message: "expected a 32-bit hex word (1 to 8 hex digits), found `zz`".into()
        }
    );
    let e = read_mem("00000000 00000000 00000000\n").unwrap_err();
    assert!(
        matches!(
            e,
            BinaryError::Mem {
                line: 1,
                column: 19,
                ..
            }
        ),
        "{e:?}"
    );
    let e = read_mem("4\n123456789 0\n").unwrap_err();
    assert!(
        matches!(
            e,
            BinaryError::Mem {
                line: 2,
                column: 1,
                ..
            }
        ),
        "{e:?}"
    );
    let e = read_mem("4\n00000000\n").unwrap_err();
    assert!(matches!(e, BinaryError::Mem { line: 2, .. }), "{e:?}");
    assert_eq!(
        read_bin(&[0; 12]).unwrap_err(),
        BinaryError::PartialWord(12)
    );
}
