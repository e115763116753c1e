//! Parser and printer tests: the notation of every binary-only feature round-trips, Mesa's
//! quirks parse, and every grammar rule broken gives its position and what was expected.

use super::*;
use crate::front::binary;
use crate::tgsi::*;

/// Parses, prints, re-parses (equal), and goes through binary and back (equal, same text).
fn round_trip(src: &str) -> Program {
    let p = parse(src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let printed = print(&p);
    let again = parse(&printed).unwrap_or_else(|e| panic!("reparse: {e}\n{printed}"));
    assert_eq!(again, p, "printed:\n{printed}");
    let words = binary::encode(&p).expect("encodes");
    let back = binary::decode(&words).expect("decodes");
    assert_eq!(back.program, p);
    assert_eq!(print(&back.program), printed);
    p
}

fn err(src: &str) -> TextError {
    match parse(src) {
        Ok(p) => panic!("parsed: {p:?}"),
        Err(e) => e,
    }
}

#[test]
fn mesa_dump_forms() {
    let p = round_trip(
        "FRAG\nPROPERTY FS_COLOR0_WRITES_ALL_CBUFS 1\nDCL IN[0], COLOR, COLOR\nDCL IN[1].xyz, GENERIC[3], PERSPECTIVE, CENTROID\n\
         DCL OUT[0], COLOR\nDCL SAMP[0]\nDCL SVIEW[0], 2D, FLOAT\nDCL CONST[1][0..3]\nDCL CONST[0..5]\nDCL TEMP[0..4], LOCAL\n\
         DCL TEMP[5..8], ARRAY(1), LOCAL\nDCL ADDR[0]\n\
         IMM[0] FLT32 {    0.0005,     0.5000,     1.0000,     2.0000}\nIMM[1] UINT32 {0, 1065353216, 0x3f800000, 4294967295}\n\
         IMM[2] INT32 {-1, 0, 2, -2147483648}\n\
           0: MOV_SAT TEMP[0].xy, -|IN[1].yxzw|\n\
           1: MAD TEMP[1], CONST[1][2].wwww, IMM[0].xxxx, -TEMP[0]\n\
           2: ARL ADDR[0].x, TEMP[1].xxxx\n\
           3: MOV TEMP[2], CONST[ADDR[0].x+3]\n\
           4: MOV TEMP[3], CONST[ADDR[0].x - 2]\n\
           5: MOV TEMP[4], TEMP[ADDR[0].x+5](1)\n\
           6: IF TEMP[0].xxxx :0\n\
           7:   TEX TEMP[0], IN[1], SAMP[0], 2D\n\
           8: ELSE :0\n\
           9:   KILL_IF -TEMP[0].xyzz\n\
          10: ENDIF\n\
          11: SAMPLE OUT[0], TEMP[0], SVIEW[0], SAMP[0]\n\
          12: END\n",
    );
    assert_eq!(p.declarations[1].usage_mask, WriteMask(0b0111));
    assert_eq!(p.declarations[1].location, InterpLocation::Centroid);
    assert_eq!(p.declarations[5].dimension, Some(1));
    assert_eq!(p.immediates[0].values[0], 0.0005f32.to_bits());
    assert_eq!(p.immediates[2].values[3], 0x8000_0000);
    let mov = &p.instructions[0];
    assert_eq!(mov.saturate, Saturate::ZeroOne);
    assert!(mov.src[0].absolute && mov.src[0].negate_after && !mov.src[0].negate);
    assert_eq!(p.instructions[4].src[0].register.index.offset, -2);
    assert_eq!(p.instructions[5].src[0].register.array_id, Some(1));
    // Labels are recomputed: IF -> its ELSE (8), ELSE -> its ENDIF (10).
    let printed = print(&p);
    assert!(printed.contains("  6: IF TEMP[0].xxxx :8\n"), "{printed}");
    assert!(printed.contains("  8: ELSE :10\n"), "{printed}");
    assert!(
        printed.contains("  7:   TEX TEMP[0], IN[1], SAMP[0], 2D\n"),
        "{printed}"
    );
}

#[test]
fn legacy_names_and_the_2008_header() {
    let p = round_trip(
        "FRAG1.1\nDCL IN[0]\nDCL OUT[0]\nDCL TEMP[0..1]\nSUB TEMP[0], IN[0], IN[0]\nABS TEMP[1], TEMP[0]\n\
         KIL TEMP[0]\nKILP\nLERP TEMP[0], IN[0], IN[0], IN[0]\nXPD TEMP[1], TEMP[0], IN[0]\nDP2A TEMP[0], IN[0], IN[0], IN[0]\n\
         SHR TEMP[0], TEMP[0], TEMP[1]\nEND\n",
    );
    let ops: Vec<Opcode> = p.instructions.iter().map(|i| i.opcode).collect();
    assert_eq!(
        ops,
        [
            Opcode::Sub,
            Opcode::Abs,
            Opcode::KillIf,
            Opcode::Kill,
            Opcode::Lrp,
            Opcode::Xpd,
            Opcode::Dp2a,
            Opcode::Ishr,
            Opcode::End
        ]
    );
    assert!(print(&p).contains("KILL_IF TEMP[0]"));
}

#[test]
fn nv_loop_endloop_is_endfor() {
    let p = round_trip(
        "VERT\nDCL ADDR[0]\nDCL CONST[0]\nLOOP ADDR[0], CONST[0]\nBGNLOOP\nBRK\nENDLOOP\nENDLOOP ADDR[0]\nEND\n",
    );
    let ops: Vec<Opcode> = p.instructions.iter().map(|i| i.opcode).collect();
    assert_eq!(
        ops,
        [
            Opcode::BgnFor,
            Opcode::BgnLoop,
            Opcode::Brk,
            Opcode::EndLoop,
            Opcode::EndFor,
            Opcode::End
        ]
    );
}

#[test]
fn binary_only_features_have_a_text_notation() {
    let p = round_trip(
        "VERT\nDCL TEMP[0..15]\nDCL ADDR[0..1]\nDCL CONST[0..3]\nDCL OUT[0]\n\
         SWZ TEMP[0], TEMP[12].0-1x-w\n\
         MOV TEMP[1], 1-(TEMP[2]).xxxx\n\
         MOV TEMP[1], 2*((TEMP[2]-0.5))\n\
         MOV TEMP[1], -(-TEMP[2].wzyx)\n\
         MOV TEMP[1], |-TEMP[2]|\n\
         MOV TEMP[1], TEMP[2]/w\n\
         MOV_SATNV TEMP[3]_2X.xy (EQ1.xyww), TEMP[4]\n\
         MUL_FP16_CC1 (NE0.xxxx) TEMP[5]_D4, TEMP[6], TEMP[7]\n\
         MOV TEMP[0], TEMP[TEMP[TEMP[6].y+26].z]\n\
         MOV TEMP[0], CONST[TEMP[5].w+9][ADDR[0].x+2]\n\
         TXF_LZ TEMP[0], TEMP[1], TEMP[2], 2D\n\
         ADD_PRECISE OUT[0], TEMP[0], TEMP[1]\n\
         END\n",
    );
    let swz = &p.instructions[0].src[0];
    assert_eq!(
        swz.swizzle,
        [
            ExtSwizzle::Zero,
            ExtSwizzle::One,
            ExtSwizzle::X,
            ExtSwizzle::W
        ]
    );
    assert_eq!(swz.negate_components, 0b1010);
    assert!(p.instructions[1].src[0].complement);
    assert!(p.instructions[2].src[0].scale2x && p.instructions[2].src[0].bias);
    let neg = &p.instructions[3].src[0];
    assert!(neg.negate && neg.negate_after && !neg.absolute);
    let abs = &p.instructions[4].src[0];
    assert!(abs.negate && abs.absolute && !abs.negate_after);
    assert_eq!(p.instructions[5].src[0].divide, ExtSwizzle::W);
    let sat = &p.instructions[6];
    assert_eq!(sat.saturate, Saturate::MinusPlusOne);
    assert_eq!(sat.dst[0].modulate, Modulate::X2);
    assert_eq!(
        sat.dst[0].cond,
        Some(CondTest {
            mask: CondMask::Eq,
            swizzle: [Swizzle::X, Swizzle::Y, Swizzle::W, Swizzle::W],
            index: 1
        })
    );
    let nv = &p.instructions[7];
    assert_eq!(
        (nv.precision, nv.cond_update),
        (Precision::Float16, Some(1))
    );
    assert_eq!(nv.cond_test.map(|c| c.mask), Some(CondMask::Ne));
    assert_eq!(nv.dst[0].modulate, Modulate::Quarter);
    let two_d = &p.instructions[9].src[0].register;
    assert_eq!(two_d.index.offset, 2);
    assert_eq!(two_d.dimensions[0].offset, 9);
    assert!(p.instructions[11].precise);
}

#[test]
fn geometry_and_compute_forms() {
    let p = round_trip(
        "GEOM\nPROPERTY GS_INPUT_PRIMITIVE TRIANGLES\nPROPERTY GS_OUTPUT_PRIMITIVE LINE_STRIP\nPROPERTY GS_MAX_OUTPUT_VERTICES 4\n\
         DCL IN[][0], POSITION\nDCL OUT[0], POSITION, STREAM(1, 1, 1, 1)\nDCL SV[0], PRIM_ID\nIMM[0] UINT32 {0, 0, 0, 0}\n\
         MOV OUT[0], IN[2][0]\nEMIT IMM[0].xxxx\nEMIT\nENDPRIM\nEND\n",
    );
    assert!(print(&p).contains("DCL IN[][0], POSITION\n"));
    assert_eq!(p.instructions[1].src.len(), 1);
    assert_eq!(p.instructions[2].src.len(), 0);
    round_trip(
        "COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 8\nDCL SV[0], THREAD_ID\nDCL TEMP[0]\nUMAD TEMP[0], SV[0], SV[0], SV[0]\nEND\n",
    );
}

#[test]
fn float_immediates_are_lossless() {
    for bits in [
        0u32,
        0x8000_0000,
        1,
        0x007f_ffff,
        0x3dcc_cccd,
        0x7f7f_ffff,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0001,
        0x3eaa_aaab,
    ] {
        let src = format!(
            "FRAG\nIMM[0] FLT32 {{{}, 0.0, 0.0, 0.0}}\n",
            format_f32(bits)
        );
        let p = round_trip(&src);
        assert_eq!(p.immediates[0].values[0], bits, "{src}");
    }
    assert_eq!(format_f32(0.5f32.to_bits()), "0.5");
    assert_eq!(format_f32(f32::NAN.to_bits()), "0x7fc00000");
}

#[test]
fn sixty_four_bit_immediates_and_opcodes() {
    let p = round_trip(
        "FRAG\nDCL TEMP[0..1]\nIMM[0] FLT64 {0.1, -2.5e-310}\nIMM[1] UINT64 {18446744073709551615, 0x100000000}\nIMM[2] INT64 {-5, 9223372036854775807}\nIMM[3] FLT64 {0x7ff8000000000001, 1e300}\n  0: DADD TEMP[0], IMM[0], IMM[3].zwxy\n  1: DFRACEXP TEMP[1], TEMP[0].x, TEMP[0]\n  2: DLDEXP_SAT TEMP[1].xy, IMM[1], TEMP[0].xxxx\n  3: END\n",
    );
    assert_eq!(p.immediates[0].ty, ImmediateType::Float64);
    let w = &p.immediates[0].values;
    assert_eq!(w[0] as u64 | (w[1] as u64) << 32, 0.1f64.to_bits());
    assert_eq!(w[2] as u64 | (w[3] as u64) << 32, (-2.5e-310f64).to_bits());
    assert_eq!(p.immediates[1].values, vec![u32::MAX, u32::MAX, 0, 1]);
    assert_eq!(
        p.immediates[2].values,
        vec![(-5i32) as u32, u32::MAX, u32::MAX, 0x7FFF_FFFF]
    );
    // A NaN payload prints as its bits.
    assert!(print(&p).contains("IMM[3] FLT64 {0x7ff8000000000001, 1e300}"));
    assert_eq!(p.instructions[1].dst.len(), 2);
    assert_eq!(p.instructions[2].opcode, Opcode::Dldexp);
}

#[test]
fn crlf_and_blank_lines() {
    let p = parse("\r\nFRAG\r\n\r\nDCL TEMP[0]\r\n  0: MOV TEMP[0], TEMP[0]\r\n").unwrap();
    assert_eq!(p.instructions.len(), 1);
}

#[test]
fn source_positions_are_recorded() {
    let p = parse("FRAG\nDCL TEMP[0..1]\n  0: ADD TEMP[0], TEMP[1], -TEMP[0]\n").unwrap();
    let l = &p.source_map.instructions[0];
    assert_eq!(l.at, Location::Text { line: 3, column: 6 });
    assert_eq!(
        l.dst[0],
        Location::Text {
            line: 3,
            column: 10
        }
    );
    assert_eq!(
        l.src[1],
        Location::Text {
            line: 3,
            column: 28
        }
    );
}

/// Every grammar rule broken once: (text, line, column, words the message must contain).
#[test]
fn every_rule_broken_gives_position_and_expectation() {
    let cases: &[(&str, u32, u32, &str)] = &[
        ("", 1, 1, "expected a processor header"),
        ("FRAGMENT\n", 1, 1, "expected a processor header"),
        ("TESS_CTRL\n", 1, 1, "tessellation shaders are out of scope"),
        ("FRAG junk\n", 1, 6, "unknown opcode `junk`"),
        ("FRAGDCL\n", 1, 1, "expected a processor header"),
        (
            "FRAG\nMOV TEMP[0], TEMP[1]END\n",
            2,
            21,
            "expected white space or a new line after the statement, found `END`",
        ),
        ("FRAG2.0\n", 1, 1, "version 2.0 is not supported"),
        (
            "FRAG\n#x\n",
            2,
            1,
            "expected a declaration, immediate, property or instruction",
        ),
        ("FRAG\nPROPERTY NOPE 1\n", 2, 10, "unknown property `NOPE`"),
        (
            "FRAG\nPROPERTY FS_COORD_ORIGIN SIDEWAYS\n",
            2,
            26,
            "not a value of FS_COORD_ORIGIN",
        ),
        (
            "FRAG\nPROPERTY FS_COORD_ORIGIN\n",
            2,
            25,
            "expected a property value",
        ),
        ("FRAG\nDCL\n", 2, 4, "expected a register file"),
        (
            "FRAG\nDCL HWATOMIC[0]\n",
            2,
            5,
            "unsupported register file `HWATOMIC`",
        ),
        (
            "COMP\nDCL IMAGE[0], 2D\n",
            2,
            17,
            "expected `,` and the image format",
        ),
        (
            "COMP\nDCL IMAGE[0], 2D, PIPE_FORMAT_R99_UNORM\n",
            2,
            19,
            "unknown or unsupported image format `PIPE_FORMAT_R99_UNORM`",
        ),
        (
            "FRAG\nDCL TEMP\n",
            2,
            9,
            "expected `[` and the declared registers",
        ),
        ("FRAG\nDCL TEMP[x]\n", 2, 10, "expected a register index"),
        ("FRAG\nDCL TEMP[3..1]\n", 2, 10, "reversed"),
        (
            "FRAG\nDCL TEMP[0..]\n",
            2,
            13,
            "expected the last register index",
        ),
        ("FRAG\nDCL TEMP[0\n", 2, 11, "expected `]`"),
        ("FRAG\nDCL TEMP[0].q\n", 2, 13, "expected mask components"),
        ("FRAG\nDCL TEMP[0].yx\n", 2, 14, "xyzw order"),
        (
            "FRAG\nDCL TEMP[]\n",
            2,
            10,
            "only for geometry-shader inputs",
        ),
        ("FRAG\nDCL TEMP[0][1][2]\n", 2, 16, "at most two brackets"),
        (
            "FRAG\nDCL IN[0], SHINY\n",
            2,
            12,
            "unknown declaration attribute `SHINY`",
        ),
        (
            "FRAG\nDCL IN[0],\n",
            2,
            11,
            "expected a declaration attribute",
        ),
        (
            "FRAG\nDCL TEMP[0], ARRAY(0)\n",
            2,
            14,
            "array ids start at 1",
        ),
        ("FRAG\nDCL TEMP[0], ARRAY 1\n", 2, 20, "expected `(`"),
        (
            "FRAG\nDCL IN[0], COLOR, COLOR, COLOR\n",
            2,
            26,
            "the interpolation is given twice",
        ),
        (
            "FRAG\nDCL SVIEW[0], 2D\n",
            2,
            17,
            "expected `,` and the return type",
        ),
        (
            "FRAG\nDCL SVIEW[0], 2D, FLOAT, FLOAT\n",
            2,
            15,
            "1 or 4 return types",
        ),
        (
            "FRAG\nDCL OUT[0], STREAM(0, 0, 0, 0)\n",
            2,
            13,
            "STREAM must follow a semantic",
        ),
        ("FRAG\nIMM[1] FLT32 {1.0}\n", 2, 5, "numbered in order"),
        (
            "FRAG\nIMM FLT16 {1.0}\n",
            2,
            5,
            "expected an immediate type",
        ),
        (
            "FRAG\nIMM FLT64 {1.0.0}\n",
            2,
            12,
            "`1.0.0` is not a FLT64 value",
        ),
        (
            "FRAG\nIMM UINT64 {-1}\n",
            2,
            13,
            "`-1` is not a UINT64 value",
        ),
        ("FRAG\nIMM FLT32 1.0\n", 2, 11, "expected `{`"),
        ("FRAG\nIMM FLT32 {1.0 2.0}\n", 2, 16, "expected `,` or `}`"),
        ("FRAG\nIMM FLT32 {}\n", 2, 12, "expected an immediate value"),
        (
            "FRAG\nIMM FLT32 {abc}\n",
            2,
            12,
            "`abc` is not a FLT32 value",
        ),
        (
            "FRAG\nIMM UINT32 {-1}\n",
            2,
            13,
            "`-1` is not a UINT32 value",
        ),
        ("FRAG\nIMM INT32 {2147483648}\n", 2, 12, "not a INT32 value"),
        (
            "FRAG\n  0 MOV TEMP[0], TEMP[1]\n",
            2,
            5,
            "expected `:` after the instruction number",
        ),
        ("FRAG\nFROB TEMP[0]\n", 2, 1, "unknown opcode `FROB`"),
        (
            "FRAG\nBALLOT TEMP[0], TEMP[1]\n",
            2,
            1,
            "unsupported opcode `BALLOT`: subgroup operations are out of scope",
        ),
        (
            "FRAG\nMOV TEMP[0]\n",
            2,
            12,
            "expected `,` and source operand 0 of MOV",
        ),
        (
            "FRAG\nMOV TEMP[0], TEMP[1], TEMP[2]\n",
            2,
            21,
            "one too many",
        ),
        (
            "FRAG\nMOV TEMP[0] TEMP[1]\n",
            2,
            13,
            "expected `,` and source operand 0 of MOV",
        ),
        (
            "FRAG\nMOV TEMP[0], TEMP[1] junk\n",
            2,
            22,
            "unknown opcode `junk`",
        ),
        (
            "FRAG\nMOV FOO[0], TEMP[1]\n",
            2,
            5,
            "expected a register file",
        ),
        (
            "FRAG\nMOV TEMP, TEMP[1]\n",
            2,
            9,
            "expected `[` and a register index",
        ),
        ("FRAG\nMOV TEMP[99999], TEMP[1]\n", 2, 10, "exceeds 32767"),
        (
            "FRAG\nMOV TEMP[ADDR[0]], TEMP[1]\n",
            2,
            17,
            "expected `.` and the address component",
        ),
        (
            "FRAG\nMOV TEMP[ADDR[0].q], TEMP[1]\n",
            2,
            18,
            "expected an address component",
        ),
        (
            "FRAG\nMOV TEMP[ADDR[0].x+], TEMP[1]\n",
            2,
            20,
            "expected an offset",
        ),
        (
            "FRAG\nMOV TEMP[0](0), TEMP[1]\n",
            2,
            13,
            "array ids start at 1",
        ),
        ("FRAG\nMOV TEMP[0]_3X, TEMP[1]\n", 2, 12, "not a modulation"),
        (
            "FRAG\nMOV TEMP[0].xq, TEMP[1]\n",
            2,
            14,
            "expected `,` and source operand 0 of MOV, found `q`",
        ),
        (
            "FRAG\nMOV TEMP[0] (XX1.x), TEMP[1]\n",
            2,
            13,
            "expected `,` and source operand 0 of MOV",
        ),
        (
            "FRAG\nMOV TEMP[0] (EQ99), TEMP[1]\n",
            2,
            14,
            "condition registers are 0..15",
        ),
        (
            "FRAG\nMOV TEMP[0] (EQ1.xy), TEMP[1]\n",
            2,
            20,
            "expected four swizzle components",
        ),
        (
            "FRAG\nMOV TEMP[0], TEMP[1].xy\n",
            2,
            22,
            "a swizzle of exactly four components",
        ),
        ("FRAG\nMOV TEMP[0], TEMP[1].\n", 2, 22, "expected a swizzle"),
        (
            "FRAG\nMOV TEMP[0], |TEMP[1]\n",
            2,
            22,
            "expected `|` closing the absolute value",
        ),
        (
            "FRAG\nMOV TEMP[0], -(TEMP[1]\n",
            2,
            23,
            "expected `)` closing `-(`",
        ),
        (
            "FRAG\nMOV TEMP[0], 1-(TEMP[1]\n",
            2,
            24,
            "expected `)` closing `1-(`",
        ),
        (
            "FRAG\nMOV TEMP[0], 1+(TEMP[1])\n",
            2,
            14,
            "expected a register file",
        ),
        (
            "FRAG\nMOV TEMP[0], 2*(TEMP[1]\n",
            2,
            24,
            "expected `)` closing `2*(`",
        ),
        (
            "FRAG\nMOV TEMP[0], (TEMP[1]-0.25)\n",
            2,
            23,
            "the bias form is `(x-0.5)`",
        ),
        (
            "FRAG\nMOV TEMP[0], TEMP[1]/q\n",
            2,
            22,
            "expected a divide component",
        ),
        (
            "FRAG\nMOV_SAT_SAT TEMP[0], TEMP[1]\n",
            2,
            1,
            "unknown opcode `MOV_SAT_SAT`",
        ),
        (
            "FRAG\nTEX TEMP[0], TEMP[1], SAMP[0], 2D, TEMP[0]\n",
            2,
            43,
            "expected `.` and three offset components",
        ),
        (
            "FRAG\nTEX TEMP[0], TEMP[1], SAMP[0], 2D, IMM[0].xy\n",
            2,
            45,
            "three offset components",
        ),
        ("FRAG\nCAL :x\n", 2, 6, "expected a label"),
    ];
    let mut wrong = Vec::new();
    for &(src, line, column, words) in cases {
        let e = err(src);
        let msg = e.to_string();
        if !msg.contains(words) || (e.line, e.column) != (line, column) {
            wrong.push(format!(
                "{src:?}: got `{msg}`, want {line}:{column} with `{words}`"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Collapses every run of white space (newlines included) to one blank: the whole text on one
/// line, as virglrenderer's tests build shaders with a C stringify macro.
fn one_line(src: &str) -> String {
    src.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn statements_are_not_lines() {
    let p = parse("FRAG DCL IN[0], COLOR, COLOR DCL OUT[0], COLOR MOV OUT[0], IN[0] END").unwrap();
    assert_eq!(p.declarations.len(), 2);
    assert_eq!(p.declarations[0].interpolation, Some(Interpolation::Color));
    assert_eq!(
        p.instructions.iter().map(|i| i.opcode).collect::<Vec<_>>(),
        [Opcode::Mov, Opcode::End]
    );
    let lines = "FRAG\nDCL IN[0], COLOR, COLOR\nDCL OUT[0], COLOR\nMOV OUT[0], IN[0]\nEND\n";
    assert_eq!(p, parse(lines).unwrap());
    // Positions are those of the one line.
    assert_eq!(
        p.source_map.instructions[0].src[0],
        Location::Text {
            line: 1,
            column: 60
        }
    );
    // Operands and statements may also be split across lines, as in Mesa's parser.
    let split = parse(
        "FRAG\nDCL OUT[0],\n  COLOR\nMOV\n OUT[0],\n IMM[0]\nIMM FLT32 { 1.0,\n 2.0, 3.0, 4.0 }",
    )
    .unwrap();
    assert_eq!(
        split.declarations[0].semantic.unwrap().name,
        Semantic::Color
    );
    assert_eq!(split.instructions[0].src[0].register.file, File::Immediate);
}

#[test]
fn a_whole_shader_on_one_line_is_the_same_program() {
    let src = "FRAG\nPROPERTY FS_COLOR0_WRITES_ALL_CBUFS 1\nDCL IN[0], GENERIC[0], PERSPECTIVE\n\
               DCL OUT[0], COLOR\nDCL SAMP[0]\nDCL SVIEW[0], 2D, FLOAT\nDCL TEMP[0..1]\nDCL ADDR[0]\n\
               IMM[0] FLT32 {    0.5000,     1.0000,     2.0000,    -1.0000}\n\
                 0: ARL ADDR[0].x, IN[0].xxxx\n\
                 1: IF IN[0].xxxx :4\n\
                 2:   TEX TEMP[0], IN[0], SAMP[0], 2D\n\
                 3: ELSE :5\n\
                 4:   KILL\n\
                 5: ENDIF\n\
                 6: BGNLOOP :9\n\
                 7:   BRK\n\
                 8: ENDLOOP :6\n\
                 9: MOV_SAT OUT[0], -|TEMP[ADDR[0].x+1]|\n\
                10: RET\n\
                11: END\n";
    let p = round_trip(src);
    let flat = one_line(src);
    assert!(!flat.contains('\n'));
    assert_eq!(parse(&flat).unwrap(), p);
    // Without numbers, labels or any blank that Mesa does not need.
    let bare = "FRAG DCL IN[0],GENERIC[0],PERSPECTIVE DCL OUT[0],COLOR DCL TEMP[0] \
                IF IN[0].xxxx KILL ELSE MOV TEMP[0],IN[0] ENDIF MOV OUT[0],TEMP[0] END";
    let q = parse(bare).unwrap();
    assert_eq!(
        q.instructions.iter().map(|i| i.opcode).collect::<Vec<_>>(),
        [
            Opcode::If,
            Opcode::Kill,
            Opcode::Else,
            Opcode::Mov,
            Opcode::EndIf,
            Opcode::Mov,
            Opcode::End
        ]
    );
}

#[test]
fn optional_operands_end_where_the_next_statement_starts() {
    // EMIT and ENDPRIM take an optional stream operand.
    let p = parse(
        "GEOM PROPERTY GS_INPUT_PRIMITIVE TRIANGLES PROPERTY GS_OUTPUT_PRIMITIVE POINTS \
         PROPERTY GS_MAX_OUTPUT_VERTICES 2 DCL OUT[0], POSITION IMM[0] UINT32 {0, 0, 0, 0} \
         EMIT ENDPRIM EMIT IMM[0].xxxx ENDPRIM IMM[0].xxxx END",
    )
    .unwrap();
    let srcs: Vec<usize> = p.instructions.iter().map(|i| i.src.len()).collect();
    assert_eq!(srcs, [0, 0, 1, 1, 0]);
    // A condition test after an opcode is not a `(` source modifier.
    let q = parse("FRAG DCL TEMP[0] BGNLOOP BRK (GT0.xxxx) ENDLOOP END").unwrap();
    assert!(q.instructions[1].cond_test.is_some());
}

#[test]
fn errors_on_one_line_keep_their_columns() {
    // Validation errors name the operand's column on the one line.
    let p = parse("FRAG DCL OUT[0], COLOR MOV OUT[0], IN[1] END").unwrap();
    let e = crate::valid::validate(&p).unwrap_err();
    assert_eq!(e[0].to_string(), "1:36: IN[1] is used but not declared");
    // A missing token at the end of a line is reported there, not on the next line.
    let e = err("FRAG\nDCL TEMP[0\nMOV TEMP[0], TEMP[0]\n");
    assert_eq!((e.line, e.column), (2, 11));
    assert_eq!(e.kind.to_string(), "expected `]`, found end of line");
    let e = err("FRAG DCL TEMP[0 MOV TEMP[0], TEMP[0]");
    assert_eq!((e.line, e.column), (1, 17));
    assert_eq!(e.kind.to_string(), "expected `]`, found `MOV`");
    let e = err("FRAG DCL TEMP[0] MOV TEMP[0],");
    assert_eq!((e.line, e.column), (1, 30));
    assert!(e.kind.to_string().ends_with("found end of input"), "{e}");
    // Statements need white space between them, as in Mesa.
    let e = err("FRAG DCL TEMP[0] MOV TEMP[0], TEMP[0]END");
    assert_eq!((e.line, e.column), (1, 38));
}

#[test]
fn an_interpolation_mode_on_any_declaration_is_kept() {
    let p = round_trip(
        "VERT\nDCL IN[0]\nDCL OUT[0], POSITION, CONSTANT\nDCL OUT[1], GENERIC[0], PERSPECTIVE\n\
         MOV OUT[0], IN[0]\nMOV OUT[1], IN[0]\nEND\n",
    );
    assert_eq!(
        p.declarations[1].interpolation,
        Some(Interpolation::Constant)
    );
    crate::valid::validate(&p).unwrap();
    // Mesa's 2009 tests declare samplers so; a geometry shader's outputs too.
    let q = round_trip(
        "FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0], COLOR, CONSTANT\nDCL SAMP[0], CONSTANT\n\
                        TEX OUT[0], IN[0], SAMP[0], 2D\nEND\n",
    );
    assert_eq!(
        q.declarations[2].interpolation,
        Some(Interpolation::Constant)
    );
    crate::valid::validate(&q).unwrap();
    let g = round_trip(
        "GEOM\nPROPERTY GS_INPUT_PRIMITIVE TRIANGLES\nPROPERTY GS_OUTPUT_PRIMITIVE LINE_STRIP\n\
         PROPERTY GS_MAX_OUTPUT_VERTICES 3\nDCL IN[][0], POSITION, CONSTANT\nDCL OUT[0], POSITION, CONSTANT\n\
         MOV OUT[0], IN[1][0]\nEMIT\nENDPRIM\nEND\n",
    );
    crate::valid::validate(&g).unwrap();
}

#[test]
fn sfl_and_str_take_two_sources_as_in_mesa() {
    let p = round_trip(
        "FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL TEMP[0..1]\nSFL TEMP[0], IN[0], IN[0]\n\
         STR TEMP[1], TEMP[0], IN[0].xxxx\nEND\n",
    );
    assert_eq!(p.instructions[0].src.len(), 2);
    assert_eq!(p.instructions[1].src.len(), 2);
    crate::valid::validate(&p).unwrap();
    let e = err("FRAG\nDCL TEMP[0]\nSFL TEMP[0]\nEND\n");
    assert!(e.to_string().contains("source operand 0 of SFL"), "{e}");
}

#[test]
fn bra_may_carry_mesas_source_but_has_no_semantics_then() {
    let p = round_trip("FRAG\nDCL TEMP[0]\nBRA TEMP[0].xxxx :2\nNOP\nEND\n");
    assert_eq!(p.instructions[0].src.len(), 1);
    assert!(p.instructions[0].no_semantics().is_some());
    let q = parse("FRAG\nBRA :1\nEND\n").unwrap();
    assert_eq!(q.instructions[0].no_semantics(), None);
}

#[test]
fn removed_register_files_are_unsupported_not_unknown() {
    for (src, name, line) in [
        ("COMP\nDCL RES[0], 2D, RAW\nEND\n", "RES", 2),
        ("FRAG\nDCL IMMX[0..3]\nEND\n", "IMMX", 2),
        (
            "FRAG\nDCL TEMP[0]\nMOV TEMP[0], TEMPX[0]\nEND\n",
            "TEMPX",
            3,
        ),
    ] {
        let e = err(src);
        let msg = e.kind.to_string();
        assert!(
            msg.starts_with(&format!(
                "unsupported register file `{name}`: Mesa's former"
            )),
            "{msg}"
        );
        assert!(msg.ends_with("is not supported"), "{msg}");
        assert_eq!(e.line, line);
    }
}

#[test]
fn later_mesa_properties_and_semantics_read() {
    let p = round_trip(
        "FRAG\nPROPERTY LEGACY_MATH_RULES 1\nPROPERTY SEPARABLE_PROGRAM 1\nPROPERTY FS_POST_DEPTH_COVERAGE 0\n\
         DCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SV[0], VIEWPORT_MASK\nMOV OUT[0], IN[0]\nEND\n",
    );
    assert_eq!(p.properties[0].name, PropertyName::LegacyMathRules);
    assert_eq!(
        p.declarations[2].semantic.unwrap().name,
        Semantic::ViewportMask
    );
    crate::valid::validate(&p).unwrap();
}
