//! The hash map of the compiler's own tables (the lifter's variables and constants, value
//! numbering, the SIMD lowering's values and constants): std's map with foldhash instead of
//! SipHash. Their keys are small (registers, values, operations), where foldhash is several
//! times faster; it is seeded per process, so a program cannot be written to make its keys
//! collide. Iteration order is unspecified, as with std's: no output may depend on it.

/// A hash map with foldhash.
pub(crate) type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// A hash set with foldhash.
pub(crate) type FastSet<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;
