//! JIT compile time over the whole etnaviv corpus: lift, -O2 and code generation per shader
//! through the compiler's one entry point (Cranelift, and LLVM when built with the feature
//! `llvm`), every shader compiled afresh (no cache). Per-shader median and p99: `tgsic bench --compile-only`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use tgsic::back::{Backend, CodegenOptions, compile};
use tgsic::opt::{OptLevel, optimize};
use tgsic_tests::{Corpus, corpus};

fn jit(c: &mut Criterion) {
    let Some(files) = corpus(Corpus::Etnaviv) else {
        return;
    };
    let programs: Vec<_> = files
        .iter()
        .map(|p| {
            tgsic::front::text::parse(&std::fs::read_to_string(p).expect("reads")).expect("parses")
        })
        .collect();
    let mut g = c.benchmark_group("jit_compile/etnaviv");
    g.sample_size(10);
    g.throughput(Throughput::Elements(programs.len() as u64));
    let mut backends = vec![("lift+O2+cranelift", Backend::Cranelift)];
    if Backend::Llvm.available() {
        backends.push(("lift+O2+llvm", Backend::Llvm));
    }
    for (label, backend) in backends {
        let opts = CodegenOptions::default();
        g.bench_function(label, |b| {
            b.iter(|| {
                programs
                    .iter()
                    .map(|p| {
                        let mut f = tgsic::ir::lift::lift(black_box(p)).expect("lifts");
                        optimize(&mut f, OptLevel::O2);
                        compile(&f, backend, &opts).expect("compiles").code_size
                    })
                    .sum::<usize>()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, jit);
criterion_main!(benches);
