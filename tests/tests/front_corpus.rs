//! Every corpus shader parses, validates, prints, re-parses to an equal program, and survives
//! text -> binary -> text unchanged.

use tgsic::front::{binary, text};
use tgsic_tests::{Corpus, all_shaders, corpus};

#[test]
fn corpora_have_the_expected_size() {
    let (Some(e), Some(m)) = (corpus(Corpus::Etnaviv), corpus(Corpus::Mesa)) else {
        return;
    };
    assert_eq!(e.len(), 707, "etnaviv corpus");
    assert_eq!(m.len(), 50, "mesa corpus");
}

#[test]
fn every_corpus_shader_round_trips() {
    let Some(files) = all_shaders() else { return };
    let mut failures = Vec::new();
    for path in &files {
        let name = path.display();
        let src = std::fs::read_to_string(path).expect("readable corpus file");
        let program = match text::parse(&src) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{name}:{e}"));
                continue;
            }
        };
        if let Err(errors) = tgsic::valid::validate(&program) {
            failures.push(format!("{name}: invalid: {}", errors[0]));
            continue;
        }
        let printed = text::print(&program);
        match text::parse(&printed) {
            Ok(again) if again == program => {}
            Ok(_) => {
                failures.push(format!(
                    "{name}: printed text parses to a different program"
                ));
                continue;
            }
            Err(e) => {
                failures.push(format!(
                    "{name}: printed text does not parse: {e}\n{printed}"
                ));
                continue;
            }
        }
        let words = match binary::encode(&program) {
            Ok(w) => w,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        match binary::decode(&words) {
            Ok(d) if d.program == program && d.warnings.is_empty() => {
                let reprinted = text::print(&d.program);
                if reprinted != printed {
                    failures.push(format!("{name}: text -> binary -> text changed the text"));
                }
            }
            Ok(_) => failures.push(format!("{name}: binary decodes to a different program")),
            Err(e) => failures.push(format!("{name}: encoded binary does not decode: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} shaders failed:\n{}",
        failures.len(),
        files.len(),
        failures
            .iter()
            .take(30)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Mesa's parser takes any white space between statements, and virglrenderer sends whole
/// shaders on one line: every corpus shader with its white space collapsed to single blanks
/// reads as the same program.
#[test]
fn every_corpus_shader_reads_the_same_on_one_line() {
    let Some(files) = all_shaders() else { return };
    let mut failures = Vec::new();
    for path in &files {
        let src = std::fs::read_to_string(path).expect("readable corpus file");
        let flat = src.split_whitespace().collect::<Vec<_>>().join(" ");
        let (Ok(lines), one) = (text::parse(&src), text::parse(&flat)) else {
            continue; // every_corpus_shader_round_trips reports it
        };
        match one {
            Ok(p) if p == lines => {}
            Ok(_) => failures.push(format!("{}: a different program", path.display())),
            Err(e) => failures.push(format!("{}:{e}", path.display())),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} shaders failed on one line:\n{}",
        failures.len(),
        files.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}
