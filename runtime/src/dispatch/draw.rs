//! Draws of fragment shaders that read and write memory, for any engine: the covered pixels of
//! a rectangle shaded in 2×2 quads, one batch of quads after another in a fixed order (quad
//! rows from the bottom, quads left to right), so that stores and atomics apply in one order
//! whatever the threads; lanes outside the rectangle are helpers, computed for derivatives,
//! which store nothing (as softpipe's). The engine runs each batch with the draw's memory.

use super::inputs::{color_register, fragment_inputs, registers};
use crate::engine::{Arrangement, BATCH_LANES, BatchIo, BatchReport, Module, RunError};
use tgsic::tgsi::*;

/// What a draw reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DrawReport {
    /// Fragments shaded (covered pixels).
    pub shaded: u64,
    /// Fragments discarded.
    pub discarded: u64,
    /// Fragments that ran out of loop iterations.
    pub exhausted: u64,
}

/// Shades the pixels (i, j) with `rect[0] <= i < rect[2]` and `rect[1] <= j < rect[3]` of a
/// `width` × `height` grid (j = 0 the bottom row), inputs as a render's (`docs/run.md`), each
/// batch by `run`; `color(i, j, rgba)` receives the `COLOR[output]` of every fragment not
/// discarded, in shading order.
///
/// # Errors
/// [`RunError::Processor`] for another kind of shader; what `run` returns;
/// [`RunError::TimeLimit`] past `deadline` (checked before every batch).
pub(crate) fn draw(
    m: &Module,
    (width, height, output): (u32, u32, u32),
    rect: [u32; 4],
    deadline: Option<std::time::Instant>,
    color: &mut dyn FnMut(u32, u32, [f32; 4]),
    run: &mut dyn FnMut(&mut BatchIo) -> Result<BatchReport, RunError>,
) -> Result<DrawReport, RunError> {
    let p = &m.program;
    if p.processor != Processor::Fragment {
        return Err(RunError::Processor {
            call: "draw",
            needs: Processor::Fragment,
            got: p.processor,
        });
    }
    let out_reg = color_register(p, output);
    let inputs = fragment_inputs(p);
    let [x0, y0, x1, y1] = [
        rect[0].min(width),
        rect[1].min(height),
        rect[2].min(width),
        rect[3].min(height),
    ];
    // Every quad that holds a covered pixel, bottom row first.
    let quads: Vec<(u32, u32)> = (y0 / 2..y1.div_ceil(2))
        .flat_map(|n| (x0 / 2..x1.div_ceil(2)).map(move |mq| (mq, n)))
        .collect();
    let covered = |i: u32, j: u32| i >= x0 && i < x1 && j >= y0 && j < y1;
    let mut io = BatchIo::new(m, Arrangement::Quads);
    let mut report = DrawReport::default();
    for batch in quads.chunks(BATCH_LANES / 4) {
        if let Some(d) = deadline
            && std::time::Instant::now() > d
        {
            return Err(RunError::TimeLimit);
        }
        let (mut alive, mut helpers) = (0u64, 0u64);
        let mut pos = [(0u32, 0u32); BATCH_LANES];
        for (q, &(mq, n)) in batch.iter().enumerate() {
            // Lanes 4q..4q+3: (2m, 2n+1), (2m+1, 2n+1), (2m, 2n), (2m+1, 2n).
            let at = [
                (2 * mq, 2 * n + 1),
                (2 * mq + 1, 2 * n + 1),
                (2 * mq, 2 * n),
                (2 * mq + 1, 2 * n),
            ];
            for (k, &(i, j)) in at.iter().enumerate() {
                let l = 4 * q + k;
                pos[l] = (i, j);
                alive |= 1 << l;
                if !covered(i, j) {
                    helpers |= 1 << l;
                }
                for (file, regs, input) in &inputs {
                    let v = input.at(i, j, width, height);
                    for &r in regs {
                        if let Some(reg) = registers(&mut io, *file).get_mut(r as usize) {
                            for c in 0..4 {
                                reg[c][l] = v[c];
                            }
                        }
                    }
                }
            }
        }
        io.alive = alive;
        io.helpers = helpers;
        let r = run(&mut io)?;
        let shaded = alive & !helpers;
        report.shaded += shaded.count_ones() as u64;
        report.discarded += (shaded & r.killed).count_ones() as u64;
        report.exhausted += (shaded & r.exhausted).count_ones() as u64;
        for l in 0..4 * batch.len() {
            let bit = 1u64 << l;
            if shaded & bit == 0 || r.killed & bit != 0 {
                continue;
            }
            let rgba = out_reg
                .and_then(|o| io.outputs.get(o))
                .map_or([0.0; 4], |reg| {
                    std::array::from_fn(|c| f32::from_bits(reg[c][l]))
                });
            color(pos[l].0, pos[l].1, rgba);
        }
    }
    Ok(report)
}
