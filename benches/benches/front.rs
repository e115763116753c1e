//! Front-end throughput over the whole etnaviv corpus: parse, validate, print, encode, decode.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use tgsic::front::{binary, text};
use tgsic_tests::{Corpus, corpus};

fn front(c: &mut Criterion) {
    let Some(files) = corpus(Corpus::Etnaviv) else {
        return;
    };
    let texts: Vec<String> = files
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect();
    let bytes: u64 = texts.iter().map(|t| t.len() as u64).sum();
    let programs: Vec<_> = texts
        .iter()
        .map(|t| text::parse(t).expect("corpus parses"))
        .collect();
    let words: Vec<Vec<u32>> = programs
        .iter()
        .map(|p| binary::encode(p).expect("encodes"))
        .collect();
    let instructions: u64 = programs.iter().map(|p| p.instructions.len() as u64).sum();

    let mut g = c.benchmark_group("front/etnaviv");
    g.throughput(Throughput::Bytes(bytes));
    g.bench_function("parse", |b| {
        b.iter(|| {
            texts
                .iter()
                .map(|t| text::parse(black_box(t)).is_ok() as usize)
                .sum::<usize>()
        })
    });
    g.bench_function("print", |b| {
        b.iter(|| {
            programs
                .iter()
                .map(|p| text::print(black_box(p)).len())
                .sum::<usize>()
        })
    });
    g.throughput(Throughput::Elements(instructions));
    g.bench_function("validate", |b| {
        b.iter(|| {
            programs
                .iter()
                .filter(|p| tgsic::valid::validate(black_box(p)).is_ok())
                .count()
        })
    });
    g.bench_function("encode", |b| {
        b.iter(|| {
            programs
                .iter()
                .map(|p| binary::encode(black_box(p)).map_or(0, |w| w.len()))
                .sum::<usize>()
        })
    });
    g.bench_function("decode", |b| {
        b.iter(|| {
            words
                .iter()
                .filter(|w| binary::decode(black_box(w)).is_ok())
                .count()
        })
    });
    g.finish();
}

criterion_group!(benches, front);
criterion_main!(benches);
