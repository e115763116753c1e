//! Runs that read and write the host's memory: compute dispatches and draws of fragment
//! shaders with buffers and images (`docs/semantics.md`, "Memory and work groups").

use super::compiled::Compiled;
use super::error::HostError;
use super::frames::Frame;
use super::runtime::Runtime;
use crate::dispatch::DrawReport;
use crate::dispatch::RunControl;
use crate::engine::{Bindings, Resources};

/// The fragments a draw shades: the pixels (i, j) of `frame`'s grid with
/// `rect[0] <= i < rect[2]` and `rect[1] <= j < rect[3]` (j = 0 the bottom row).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Draw {
    /// The grid (its size decides the inputs) and the `COLOR` output the colours are of.
    pub frame: Frame,
    /// `[x0, y0, x1, y1]`, clipped to the grid.
    pub rect: [u32; 4],
}

impl Draw {
    /// Every pixel of `frame`.
    pub fn all(frame: Frame) -> Draw {
        Draw {
            frame,
            rect: [0, 0, frame.width, frame.height],
        }
    }
}

impl Compiled {
    /// Runs a compute program over `grid` work groups (x, y, z) of its `CS_FIXED_BLOCK_*`
    /// invocations each, reading and writing the host's buffers and images in `res` in place
    /// (`docs/semantics.md`, "Memory and work groups"). The interpreter runs softpipe's order
    /// of invocations and atomics on the calling thread, shared memory of `res`'s size zeroed
    /// once and kept from group to group. The JITs split the groups (in their linear order,
    /// x fastest) into one contiguous run per thread of `rt`, each thread with shared memory
    /// of its own zeroed at its start: results that do not depend on the order of groups
    /// (nor on what a group finds in shared memory it did not write) are the same on any
    /// number of threads. Every access is checked against the bound sizes.
    ///
    /// # Errors
    /// [`HostError::Processor`] for a shader that is not a compute program; [`HostError::Run`]
    /// with a [`MemoryError`](crate::engine::MemoryError) for a grid outside 1..=65535 per
    /// axis, a missing work-group size, a BUFFER or IMAGE the program uses that `res` does
    /// not bind, or an image whose format does not fit the program's; the program's run
    /// errors; [`RunError::TimeLimit`](crate::engine::RunError::TimeLimit) past `control`'s deadline.
    pub fn dispatch(
        &self,
        rt: &Runtime,
        bind: &Bindings,
        res: &mut Resources<'_>,
        grid: [u32; 3],
        control: &RunControl<'_>,
    ) -> Result<(), HostError> {
        let got = self.reflection.processor;
        if got != tgsic::tgsi::Processor::Compute {
            return Err(HostError::Processor {
                call: "dispatch",
                needs: tgsic::tgsi::Processor::Compute,
                got,
            });
        }
        // The interpreter runs the groups in softpipe's order on the calling thread; the JITs
        // spread them over the runtime's threads.
        let workers = crate::batches::Workers::of(rt.pool());
        Ok(self.engine.dispatch(bind, res, grid, control, workers)?)
    }

    /// Draws a fragment shader that reads and writes the host's buffers and images in `res`
    /// over the pixels of `area` (its rectangle of its frame's grid), its inputs as
    /// [`Compiled::render`]'s: `color(i, j, rgba)` receives the frame's output colour of every fragment not discarded,
    /// in shading order (quad rows from the bottom, 2×2 quads left to right, lanes of a quad
    /// upper row first). Stores and atomics apply in that order, lane by lane; helper lanes
    /// (outside `rect`, computed for derivatives) store nothing.
    ///
    /// # Errors
    /// [`HostError::Processor`] for a shader that is not a fragment shader; as
    /// [`Compiled::dispatch`] for memory that does not fit; the program's run errors.
    pub fn draw(
        &self,
        rt: &Runtime,
        bind: &Bindings,
        res: &mut Resources<'_>,
        area: Draw,
        control: &RunControl<'_>,
        color: &mut dyn FnMut(u32, u32, [f32; 4]),
    ) -> Result<DrawReport, HostError> {
        let got = self.reflection.processor;
        if got != tgsic::tgsi::Processor::Fragment {
            return Err(HostError::Processor {
                call: "draw",
                needs: tgsic::tgsi::Processor::Fragment,
                got,
            });
        }
        let _ = rt;
        let f = (area.frame.width, area.frame.height, area.frame.output);
        Ok(self.engine.draw(bind, res, f, area.rect, control, color)?)
    }
}
