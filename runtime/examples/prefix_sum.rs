//! A compute workload through the host API: inclusive prefix sums of 65536 numbers, 256 per
//! work group, each group in shared memory with barriers between the steps of the scan
//! (Hillis and Steele), then the groups' sums carried across on the CPU. Checks every value
//! against a sum on the CPU.
//!
//! `cargo run --release -p tgsic-runtime --example prefix_sum [interp|cranelift|llvm]`

use tgsic_runtime::host::{
    Bindings, CompileOptions, EngineKind, HostError, Resources, RunControl, Runtime, RuntimeOptions,
};

const GROUP: usize = 256;
const GROUPS: usize = 256;

fn main() -> Result<(), HostError> {
    let rt = Runtime::new(RuntimeOptions::default())?;
    let module = rt.load(include_bytes!(
        "../../examples/shaders/prefix_sum.comp.tgsi"
    ))?;
    // The default engine (tiered: Cranelift's code at once, LLVM's when it is ready); the
    // first argument may name another: interp, cranelift, llvm.
    let engine = match std::env::args().nth(1).as_deref() {
        Some("interp") => EngineKind::Interpreter,
        Some("cranelift") => EngineKind::Cranelift,
        Some("llvm") => EngineKind::Llvm,
        _ => EngineKind::Auto,
    };
    let shader = rt.compile(&module, &CompileOptions::with_engine(engine))?;
    let values: Vec<u32> = (0..GROUP * GROUPS)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761) >> 24)
        .collect();
    let mut bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut res = Resources::new();
    res.bind_buffer(0, &mut bytes)?;
    res.set_shared_bytes((GROUP * 4) as u32)?;
    let start = std::time::Instant::now();
    shader.dispatch(
        &rt,
        &Bindings::default(),
        &mut res,
        [GROUPS as u32, 1, 1],
        &RunControl::default(),
    )?;
    let took = start.elapsed();
    drop(res);
    // Each group's scan, then the sums of the groups before it.
    let mut scanned: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut carry = 0u32;
    for group in scanned.chunks_mut(GROUP) {
        let total = group[GROUP - 1];
        for v in group.iter_mut() {
            *v = v.wrapping_add(carry);
        }
        carry = carry.wrapping_add(total);
    }
    let mut sum = 0u32;
    let wrong = values
        .iter()
        .zip(&scanned)
        .filter(|&(&v, &s)| {
            sum = sum.wrapping_add(v);
            s != sum
        })
        .count();
    println!(
        "prefix sums of {} numbers in {GROUPS} work groups of {GROUP} ({}): {:.1} ms, last {}, {} wrong",
        values.len(),
        shader.tier(),
        took.as_secs_f64() * 1e3,
        scanned[values.len() - 1],
        wrong
    );
    if wrong > 0 {
        std::process::exit(1);
    }
    Ok(())
}
