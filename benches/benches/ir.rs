//! Lifting and optimization over whole corpora (throughput in TGSI instructions): lift alone,
//! lift + -O1, lift + -O2. Per-shader median and maximum: `tgsic ir --stats FILES...`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use tgsic::opt::{OptLevel, optimize};
use tgsic_tests::{Corpus, corpus};

fn ir(c: &mut Criterion) {
    for (name, which) in [("etnaviv", Corpus::Etnaviv), ("mesa", Corpus::Mesa)] {
        let Some(files) = corpus(which) else {
            return;
        };
        let programs: Vec<_> = files
            .iter()
            .map(|p| {
                tgsic::front::text::parse(&std::fs::read_to_string(p).expect("reads"))
                    .expect("parses")
            })
            .collect();
        let instructions: u64 = programs.iter().map(|p| p.instructions.len() as u64).sum();
        let mut g = c.benchmark_group(format!("ir/{name}"));
        g.sample_size(20);
        g.throughput(Throughput::Elements(instructions));
        g.bench_function("lift", |b| {
            b.iter(|| {
                programs
                    .iter()
                    .map(|p| tgsic::ir::lift::lift(black_box(p)).map_or(0, |f| f.count()))
                    .sum::<usize>()
            })
        });
        for (label, level) in [("lift+O1", OptLevel::O1), ("lift+O2", OptLevel::O2)] {
            g.bench_function(label, |b| {
                b.iter(|| {
                    programs
                        .iter()
                        .map(|p| {
                            let mut f = tgsic::ir::lift::lift(black_box(p)).expect("lifts");
                            optimize(&mut f, level).after
                        })
                        .sum::<usize>()
                })
            });
        }
        g.finish();
    }
}

criterion_group!(benches, ir);
criterion_main!(benches);
