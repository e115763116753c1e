//! The documented error of every lowered operation, in units of 2⁻¹⁷ (one Q15.17 step).
//!
//! Each bound holds for the generated sequence over its whole domain, measured against the
//! exact function of the Q15.17 input (not against f32): the sweeps in
//! `tests/tests/theia_functions.rs` run every sequence through the bit-exact simulator and fail
//! when a result leaves its bound. A shader's own products and quotients add their truncation on
//! top (at most one unit each).

/// |result − exact| ≤ `absolute` + (`relative` + `per_exponent`·|y|)·|exact| units of 2⁻¹⁷,
/// for inputs in `domain` (`y` is POW's exponent; 0 elsewhere).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ErrorBound {
    /// The TGSI opcode.
    pub opcode: &'static str,
    /// The error independent of the result's size.
    pub absolute: f64,
    /// The error per unit of the result (functions whose results reach past 1).
    pub relative: f64,
    /// POW: the error per unit of the result and of |y| (log2's error scaled by y).
    pub per_exponent: f64,
    /// The inputs the bound covers; outside it, what the sequence returns.
    pub domain: &'static str,
    /// How it is computed.
    pub method: &'static str,
}

impl ErrorBound {
    /// The bound in units of 2⁻¹⁷ for an exact result `exact` (and POW exponent `y`).
    pub fn at(&self, exact: f64, y: f64) -> f64 {
        self.absolute + (self.relative + self.per_exponent * y.abs()) * exact.abs()
    }
}

impl std::fmt::Display for ErrorBound {
    /// `1.75`, `1 + 2.5·|r|`, `1.5 + (3.3 + 1.2·|y|)·|r|` (r: the exact result).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.relative, self.per_exponent) {
            (0.0, 0.0) => write!(f, "{}", self.absolute),
            (r, 0.0) => write!(f, "{} + {}·|r|", self.absolute, r),
            (r, y) => write!(f, "{} + ({} + {}·|y|)·|r|", self.absolute, r, y),
        }
    }
}

const fn b(
    opcode: &'static str,
    absolute: f64,
    relative: f64,
    domain: &'static str,
    method: &'static str,
) -> ErrorBound {
    ErrorBound {
        opcode,
        absolute,
        relative,
        per_exponent: 0.0,
        domain,
        method,
    }
}

/// The lowered operations and their bounds (the table of docs/theia.md).
pub const ERROR_BOUNDS: &[ErrorBound] = &[
    b(
        "RCP",
        1.0,
        0.0,
        "|1/x| < 16384; 1/0 gives ±2048 (the divider's x/0)",
        "DIV 1.0, x (the quotient truncates)",
    ),
    b(
        "SQRT",
        2.0,
        0.0,
        "x ≥ 0; x < 0 gives 0",
        "Newton's iteration from (x + 1)/2 with DIV until it stops decreasing; MAG when x is a dot product of a register with itself (the floor square root, one unit lower for roots from 2048 up: the RTL keeps its remainder in 32 bits)",
    ),
    b(
        "RSQ",
        1.0,
        2.0,
        "x > 0 (|x| as TGSI specifies); 0 gives 2048 (the divider's 1/0)",
        "2^k / SQRT(4^k·x) with 4^k·x in [1, 4); DIV 1.0, MAG when x is a dot product of a register with itself",
    ),
    b("FLR", 0.0, 0.0, "all", "x − FRAC x"),
    b(
        "CEIL",
        0.0,
        0.0,
        "all",
        "floor, + 1 when a fraction remains",
    ),
    b("FRC", 0.0, 0.0, "all", "FRAC"),
    b(
        "TRUNC",
        0.0,
        0.0,
        "all",
        "floor, + 1 for negative x with a fraction",
    ),
    b(
        "ROUND",
        0.0,
        0.0,
        "|x| < 16383.5",
        "floor(x + 0.5), ties to even",
    ),
    b(
        "EX2",
        1.0,
        2.5,
        "x < 14 (2^14 is past Q15.17: x ≥ 14 gives 16383.91); below −18 the result is 0",
        "x = n + f; 2^f by a degree-5 polynomial; n doublings or halvings",
    ),
    b(
        "LG2",
        1.75,
        0.0,
        "x > 0; x ≤ 0 gives −16384 (−∞ and NaN are not representable)",
        "x = 2^e·m, m in [1/√2, √2), by doubling or halving a power of two; log2 m = odd degree-5 polynomial in 4(m − 1)/(m + 1)",
    ),
    ErrorBound {
        opcode: "POW",
        absolute: 1.5,
        relative: 3.3,
        per_exponent: 1.2,
        domain: "x > 0; x ≤ 0 is taken as 0 (0 for y > 0, 1 for y = 0, 16384 − 2⁻¹⁷ for y < 0); results past 16384 saturate to 16383.91",
        method: "EX2(y·LG2 x); |y·log2 x| ≥ 32 saturates the exponent to ±20",
    },
    b(
        "SIN",
        2.75,
        0.0,
        "all",
        "|x|·2/π exactly reduced to quarter turns (2/π split in two words); sin(πu/2) by an odd degree-7 polynomial",
    ),
    b("COS", 2.75, 0.0, "all", "SIN of x + one quarter turn"),
];

/// The bound of `opcode` (as TGSI spells it), if it is lowered.
pub fn error_bound(opcode: &str) -> Option<&'static ErrorBound> {
    ERROR_BOUNDS.iter().find(|b| b.opcode == opcode)
}
