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
    let failures: Vec<String> = files.iter().filter_map(|p| round_trip(p).err()).collect();
    report(&failures, files.len());
}

/// Every compute-corpus text (compute, fragment and vertex shaders with buffers, images,
/// shared memory, atomics, doubles and 64-bit integers) and every double-precision shader of
/// `corpus/mesa-fp64` round-trips as the others do.
#[test]
fn every_compute_and_double_corpus_text_round_trips() {
    let (Some(compute), Some(fp64)) = (corpus(Corpus::Compute), corpus(Corpus::MesaFp64)) else {
        return;
    };
    // 94 entries and their 40 vertex shaders; 4 fractal shaders.
    assert_eq!((compute.len(), fp64.len()), (134, 4));
    let files: Vec<_> = compute.into_iter().chain(fp64).collect();
    let failures: Vec<String> = files.iter().filter_map(|p| round_trip(p).err()).collect();
    report(&failures, files.len());
}

fn report(failures: &[String], total: usize) {
    assert!(
        failures.is_empty(),
        "{} of {total} shaders failed:\n{}",
        failures.len(),
        failures
            .iter()
            .take(30)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Parses, validates, prints, re-parses and encodes `path`'s program; the first problem.
fn round_trip(path: &std::path::Path) -> Result<(), String> {
    let name = path.display();
    let src = std::fs::read_to_string(path).expect("readable corpus file");
    let program = text::parse(&src).map_err(|e| format!("{name}:{e}"))?;
    if let Err(errors) = tgsic::valid::validate(&program) {
        return Err(format!("{name}: invalid: {}", errors[0]));
    }
    let printed = text::print(&program);
    match text::parse(&printed) {
        Ok(again) if again == program => {}
        Ok(_) => {
            return Err(format!(
                "{name}: printed text parses to a different program"
            ));
        }
        Err(e) => {
            return Err(format!(
                "{name}: printed text does not parse: {e}\n{printed}"
            ));
        }
    }
    // Mesa's own dump of a memory program prints back as Mesa wrote it, but for the spelling
    // of float immediates (tgsic prints the shortest exact decimal).
    let words = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| !l.contains("FLT32"))
            .flat_map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
            .collect()
    };
    if src.contains("PIPE_FORMAT") && words(&printed) != words(&src) {
        return Err(format!(
            "{name}: printed text differs from Mesa's\n{printed}"
        ));
    }
    let words = binary::encode(&program).map_err(|e| format!("{name}: {e}"))?;
    match binary::decode(&words) {
        Ok(d) if d.program == program && d.warnings.is_empty() => {
            if text::print(&d.program) != printed {
                return Err(format!("{name}: text -> binary -> text changed the text"));
            }
            Ok(())
        }
        Ok(_) => Err(format!("{name}: binary decodes to a different program")),
        Err(e) => Err(format!("{name}: encoded binary does not decode: {e}")),
    }
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
