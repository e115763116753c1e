//! Draws of fragment shaders that read and write memory, on the interpreter: the draw driver
//! (`dispatch::draw`) runs each batch here with the draw's memory.

use super::exec::{Exec, Regs};
use crate::dispatch::{DrawReport, RunControl, draw as draw_batches};
use crate::engine::{Bindings, Memory, Module, Resources, RunError, check_memory};

/// [`dispatch::draw`](crate::dispatch::draw) of `m` with `res`'s memory.
///
/// # Errors
/// The memory checks of a dispatch, the program's run errors, the draw's.
pub(crate) fn draw(
    m: &Module,
    bind: &Bindings,
    res: &mut Resources<'_>,
    frame: (u32, u32, u32),
    rect: [u32; 4],
    control: &RunControl<'_>,
    color: &mut dyn FnMut(u32, u32, [f32; 4]),
) -> Result<DrawReport, RunError> {
    check_memory(&m.program, res, None)?;
    let mut shared: Vec<u8> = Vec::new();
    let mut memory = Memory {
        resources: res,
        shared: &mut shared,
    };
    let mut regs = Regs::new(m);
    draw_batches(m, frame, rect, control.deadline, color, &mut |io| {
        regs.reset();
        std::mem::swap(&mut regs.inputs, &mut io.inputs);
        std::mem::swap(&mut regs.sv, &mut io.sv);
        let result = {
            let mut ex = Exec::new(m, bind, &mut regs, io.alive, io.arrangement);
            ex.helpers = io.helpers;
            ex.mem = Some(&mut memory);
            ex.run().map(|()| std::mem::take(&mut ex.report))
        };
        std::mem::swap(&mut regs.inputs, &mut io.inputs);
        std::mem::swap(&mut regs.sv, &mut io.sv);
        std::mem::swap(&mut regs.outputs, &mut io.outputs);
        result
    })
}
