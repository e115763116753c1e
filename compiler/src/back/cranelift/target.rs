//! What Cranelift's code is: its vectors, the lane counts it takes and its rule for
//! interleaving steps of straight-line code (the shared rule shapes are `simd::step_lanes`').

use crate::back::simd::StraightLine;

/// Lanes of one vector: Cranelift's code uses 128-bit registers of 32-bit lanes.
pub const WIDTH: usize = 4;

/// Vector registers (x86-64's 16 XMM registers).
pub const REGISTERS: usize = 16;

/// The lane counts a step may have (0: chosen per function by [`STEPS`]); every value is
/// `lanes / 4` registers.
pub const LANES: [usize; 5] = [0, 4, 8, 16, 32];

/// Cranelift's straight-line rule: it does not schedule instructions, so a second step pays
/// only where few values are live at once (else it spills) and the code is short or its
/// lookups sparse.
pub const STEPS: StraightLine = StraightLine::Light {
    insts: 250,
    live: 42,
    lookups: 16,
};
