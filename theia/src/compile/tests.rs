use super::*;
use tgsic::front::text::parse;

fn compile_text(src: &str, consts: &[[f32; 4]]) -> Result<TheiaProgram, TheiaError> {
    let p = parse(src).expect("test shader parses");
    let mut opts = TheiaOptions::default();
    opts.constants
        .insert(0, consts.iter().map(|r| r.map(f32::to_bits)).collect());
    compile(&p, &opts)
}

const PASS: &str = "FRAG
DCL IN[0], TEXCOORD[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL SAMP[0]
  0: TEX OUT[0], IN[0], SAMP[0], 2D
  1: END
";

#[test]
fn pass_through_is_one_copy() {
    let t = compile_text(PASS, &[]).unwrap();
    assert_eq!(t.stats.pixel_words, 2, "{}", t.assembly);
    assert!(
        t.assembly
            .contains("COPY OREG_PIXEL_COLOR CREG_TEXTURE_COLOR VOID"),
        "{}",
        t.assembly
    );
    assert_eq!(t.warnings.len(), 1, "alpha is dropped with a warning");
}

#[test]
fn the_word_count_matches_the_image() {
    let t = compile_text(
        "FRAG\nDCL IN[0], TEXCOORD[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\nDCL CONST[0]\nDCL TEMP[0]\n  0: TEX TEMP[0], IN[0], SAMP[0], 2D\n  1: MUL OUT[0], TEMP[0], CONST[0]\n  2: END\n",
        &[[0.5, 0.25, 0.75, 1.0]],
    )
    .unwrap();
    assert_eq!(
        11 + t.stats.constant_words + t.stats.pixel_words,
        t.binary.words.len(),
        "{}",
        t.assembly
    );
}
