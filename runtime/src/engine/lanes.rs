//! A batch's lanes: how many, and the register and mask types over them.

/// Invocations per batch (16 quads of fragments, or 64 vertices): the lanes of every engine's
/// batch and of one call of the generated code (defined once, in the compiler's calling
/// interface).
pub use tgsic::back::abi::BATCH_LANES;
/// One component of one register, across the lanes.
pub type Chan = [u32; BATCH_LANES];
/// A register: four components across the lanes.
pub type Reg = [Chan; 4];
/// One bit per lane.
pub type Mask = u64;

/// All lanes.
pub const ALL: Mask = u64::MAX;
