//! The lifter's variables: what it tracks per register component and per invocation.

/// A lifter variable: a register component or an invocation flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Var {
    Temp(u32, u8),
    Out(u32, u8),
    Addr(u32, u8),
    Cc(u8, u8),
    /// Discarded (Bool).
    Killed,
    /// Ran out of loop iterations (Bool).
    Exhausted,
    /// Loop iterations left (I32, unsigned).
    Budget,
    /// PUSHA/POPA stack depth (I32).
    StackDepth,
    /// Returned from the routine at this call depth (Bool).
    Ret(u32),
    /// Selected in the SWITCH with this id (Bool).
    Switch(u32),
    /// REP counter of the loop opened at this instruction (I32).
    Counter(u32),
}
