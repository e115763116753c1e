//! Validation unit tests: each rule broken once, with its location.

use super::*;
use crate::front::text::parse;

/// Validates `body` after a FRAG header with a few declarations; returns the errors.
fn errors(body: &str) -> Vec<ValidationError> {
    let src = format!(
        "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL TEMP[0..3]\nDCL SAMP[0]\n\
         DCL CONST[0..1]\nDCL ADDR[0]\nIMM[0] FLT32 {{1.0, 2.0, 3.0, 4.0}}\n{body}"
    );
    let p = parse(&src).unwrap_or_else(|e| panic!("parse: {e}\n{src}"));
    validate(&p).err().unwrap_or_default()
}

fn one(body: &str) -> ValidationError {
    let e = errors(body);
    assert_eq!(e.len(), 1, "{e:#?}");
    e.into_iter().next().unwrap_or_else(|| unreachable!())
}

#[test]
fn a_valid_program_passes() {
    assert!(errors("MOV TEMP[0], IN[0]\nTEX OUT[0], TEMP[0], SAMP[0], 2D\nEND\n").is_empty());
}

#[test]
fn undeclared_registers_are_reported_at_the_operand() {
    let e = one("MOV TEMP[0], IN[3]\n");
    assert_eq!(
        e.location,
        Location::Text {
            line: 9,
            column: 14
        }
    );
    assert_eq!(e.kind, ValidationErrorKind::Undeclared("IN[3]".into()));
    assert!(matches!(
        one("MOV TEMP[9].x, IN[0]\n").kind,
        ValidationErrorKind::Undeclared(_)
    ));
    assert!(matches!(
        one("MOV TEMP[0], IMM[1]\n").kind,
        ValidationErrorKind::Undeclared(_)
    ));
    assert!(matches!(
        one("MOV TEMP[0], CONST[1][0]\n").kind,
        ValidationErrorKind::Undeclared(_)
    ));
    assert!(matches!(
        one("MOV TEMP[0], TEMP[ADDR[1].x+2]\n").kind,
        ValidationErrorKind::Undeclared(_)
    ));
    assert!(
        errors("MOV TEMP[0], CONST[ADDR[0].x+7]\n").is_empty(),
        "indirect reads are clamped"
    );
}

#[test]
fn writes_to_read_only_files() {
    assert!(matches!(
        one("MOV IN[0], TEMP[0]\n").kind,
        ValidationErrorKind::ReadOnly(_)
    ));
    assert!(matches!(
        one("MOV CONST[0], TEMP[0]\n").kind,
        ValidationErrorKind::ReadOnly(_)
    ));
    assert!(matches!(
        one("MOV IMM[0], TEMP[0]\n").kind,
        ValidationErrorKind::ReadOnly(_)
    ));
}

#[test]
fn operand_counts() {
    let mut p = parse("FRAG\nDCL TEMP[0]\nMOV TEMP[0], TEMP[0]\n").unwrap();
    let extra = p.instructions[0].src[0].clone();
    p.instructions[0].src.push(extra);
    let e = validate(&p).unwrap_err();
    assert!(
        matches!(
            e[0].kind,
            ValidationErrorKind::OperandCount { dst: 1, src: 2, .. }
        ),
        "{e:?}"
    );
}

#[test]
fn unbalanced_blocks() {
    let cf = |body: &str| match one(body).kind {
        ValidationErrorKind::ControlFlow(m) => m,
        k => panic!("{k:?}"),
    };
    assert!(cf("IF TEMP[0].xxxx\n").contains("never closed (ENDIF missing)"));
    assert!(cf("ELSE\n").starts_with("ELSE without an open IF"));
    assert!(cf("ENDIF\n").starts_with("ENDIF without"));
    assert!(cf("IF TEMP[0].xxxx\nELSE\nELSE\nENDIF\n").contains("second ELSE"));
    assert!(cf("BGNLOOP\n").contains("ENDLOOP missing"));
    assert!(cf("ENDLOOP\n").contains("without its opening"));
    let nested = errors("BGNLOOP\nIF TEMP[0].xxxx\nENDLOOP\nENDIF\n");
    assert!(
        nested[0]
            .to_string()
            .contains("innermost open block is IF at instruction 1"),
        "{nested:?}"
    );
    assert!(cf("BRK\n").contains("outside any loop"));
    assert!(cf("CONT\n").contains("outside any loop"));
    assert!(cf("BGNSUB\n").contains("ENDSUB missing"));
    assert!(cf("ENDSUB\n").contains("without an open BGNSUB"));
    assert!(cf("SWITCH TEMP[0].xxxx\n").contains("ENDSWITCH missing"));
    assert!(cf("CASE TEMP[0].xxxx\n").contains("CASE outside a SWITCH"));
    assert!(cf("ENDSWITCH\n").contains("without an open SWITCH"));
    assert!(cf("IF TEMP[0].xxxx\nEND\nENDIF\n").contains("END inside a block"));
    assert!(cf("END\nMOV TEMP[0], TEMP[1]\n").contains("follows END"));
    assert!(
        errors("SWITCH TEMP[0].xxxx\nCASE IMM[0].xxxx\nBRK\nDEFAULT\nBRK\nENDSWITCH\nEND\n")
            .is_empty()
    );
}

#[test]
fn labels() {
    let label = |body: &str| match one(body).kind {
        ValidationErrorKind::Label(m) => m,
        k => panic!("{k:?}"),
    };
    assert!(label("CAL :7\nEND\n").contains("past the last instruction"));
    assert!(label("CAL :1\nEND\n").contains("not a BGNSUB"));
    assert!(label("CAL\nEND\n").contains("needs a target label"));
    assert!(label("BRA :5\n").contains("past the last"));
    assert!(errors("CAL :2\nEND\nBGNSUB\nRET\nENDSUB\n").is_empty());
}

#[test]
fn texture_instructions() {
    let tex = |body: &str| match one(body).kind {
        ValidationErrorKind::Texture(m) => m,
        k => panic!("{k:?}"),
    };
    assert!(tex("TEX TEMP[0], IN[0], SAMP[0]\n").contains("needs a texture target"));
    assert!(tex("TEX TEMP[0], IN[0], TEMP[1], 2D\n").contains("must be a sampler"));
}

#[test]
fn index_ranges_and_declarations() {
    assert!(matches!(
        one("MOV TEMP[0], IMM[0].xyzw\nDCL TEMP[2..5]\n").kind,
        ValidationErrorKind::Declaration(_)
    ));
    let p =
        parse("FRAG\nIMM[0] FLT32 {1.0, 2.0}\nDCL TEMP[0]\nMOV TEMP[0], IMM[0].xyzz\n").unwrap();
    let e = validate(&p).unwrap_err();
    assert!(
        matches!(&e[0].kind, ValidationErrorKind::Range(m) if m.contains("component z")),
        "{e:?}"
    );
    let p = parse("GEOM\nPROPERTY GS_INPUT_PRIMITIVE TRIANGLES\nDCL IN[][0]\nDCL OUT[0]\nMOV OUT[0], IN[3][0]\n").unwrap();
    let e = validate(&p).unwrap_err();
    assert!(
        matches!(&e[0].kind, ValidationErrorKind::Range(m) if m.contains("vertex 3")),
        "{e:?}"
    );
    let p = parse("VERT\nPROPERTY FS_COORD_ORIGIN UPPER_LEFT\n").unwrap();
    assert!(validate(&p).is_err());
    let p = parse("FRAG\nDCL SVIEW[0]\n").unwrap();
    assert!(validate(&p).is_err());
}

/// Validates a compute program with a buffer, an image and shared memory.
fn compute_errors(props: &str, body: &str) -> Vec<String> {
    let src = format!(
        "COMP\n{props}DCL SV[0], THREAD_ID\nDCL BUFFER[0]\nDCL IMAGE[0], 2D, PIPE_FORMAT_R32_SINT, WR\n\
         DCL IMAGE[1], 2D, PIPE_FORMAT_R8G8B8A8_UNORM\nDCL MEMORY[1], SHARED\nDCL TEMP[0..1]\n\
         IMM[0] UINT32 {{0, 4, 1, 0}}\n{body}END\n"
    );
    let p = parse(&src).unwrap_or_else(|e| panic!("parse: {e}\n{src}"));
    validate(&p)
        .err()
        .unwrap_or_default()
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn memory_instructions_validate() {
    let ok = "LOAD TEMP[0].x, BUFFER[0], IMM[0].xxxx\nSTORE MEMORY[0].x, IMM[0].yyyy, TEMP[0].xxxx\n\
              ATOMUADD TEMP[0].x, BUFFER[0], IMM[0].xxxx, IMM[0].zzzz\n\
              ATOMXCHG TEMP[1].x, IMAGE[0], TEMP[0], IMM[0].zzzz, COHERENT, 2D, PIPE_FORMAT_R32_SINT\n\
              LOAD TEMP[1], IMAGE[1], TEMP[0], 2D, PIPE_FORMAT_R8G8B8A8_UNORM\nMEMBAR IMM[0].xxxx\nBARRIER\n\
              RESQ TEMP[0].x, BUFFER[0]\n";
    let props = "PROPERTY CS_FIXED_BLOCK_WIDTH 64\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\n\
                 PROPERTY CS_FIXED_BLOCK_DEPTH 1\n";
    assert_eq!(compute_errors(props, ok), Vec::<String>::new());
    // MEMORY[0] is what Mesa addresses when it declares MEMORY[1].
    for (body, want) in [
        (
            "ADD TEMP[0], BUFFER[0], TEMP[0]\n",
            "only LOAD, RESQ and the atomics read it",
        ),
        ("MOV BUFFER[0], TEMP[0]\n", "only STORE writes it"),
        (
            "LOAD TEMP[0], TEMP[1], IMM[0].xxxx\n",
            "accesses a BUFFER, IMAGE or MEMORY register, found TEMP",
        ),
        ("LOAD TEMP[0], IMAGE[1], TEMP[0]\n", "needs its target"),
        (
            "STORE IMAGE[1], TEMP[0], TEMP[1], 2D\n",
            "not declared writable",
        ),
        (
            "LOAD TEMP[0], IMAGE[1], TEMP[0], 3D\n",
            "names target 3D, IMAGE[1] is declared 2D",
        ),
        (
            "LOAD TEMP[0].x, BUFFER[0], IMM[0].xxxx, 2D\n",
            "only images take a target and a format",
        ),
        (
            "LOAD TEMP[0].x, BUFFER[1], IMM[0].xxxx\n",
            "BUFFER[1] is used but not declared",
        ),
    ] {
        let e = compute_errors(props, body);
        assert!(
            e.len() == 1 && e[0].contains(want),
            "{body}: {e:?}, want `{want}`"
        );
    }
    let e = compute_errors(
        "PROPERTY CS_FIXED_BLOCK_WIDTH 1024\nPROPERTY CS_FIXED_BLOCK_HEIGHT 2\n",
        "",
    );
    assert!(
        e.len() == 1 && e[0].contains("at most 1024 invocations"),
        "{e:?}"
    );
    // A fragment shader may use buffers but not barriers or shared memory.
    let e = errors("BARRIER\n");
    assert!(matches!(e[0].kind, ValidationErrorKind::Memory(_)), "{e:?}");
}
