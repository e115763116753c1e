//! Every corpus shader lifts to IR the verifier accepts, and prints.

use tgsic::ir::{lift::lift, print::print, verify::verify};
use tgsic_tests::all_shaders;

#[test]
fn every_corpus_shader_lifts_and_verifies() {
    let Some(files) = all_shaders() else { return };
    let mut failures = Vec::new();
    let mut lifted = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let program =
            tgsic::front::text::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        match lift(&program) {
            Ok(f) => {
                lifted += 1;
                if let Err(e) = verify(&f) {
                    failures.push(format!("{}: {}", path.display(), e[0]));
                }
                assert!(print(&f).starts_with("function"));
            }
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} shaders fail:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    assert!(lifted > 700, "only {lifted} shaders lifted");
}
