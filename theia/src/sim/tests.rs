//! Every opcode's arithmetic with values worked out from `docs/theia.md`, the forwarding
//! rule, traps, and whole-image runs.

use super::alu::*;
use super::*;
use crate::isa::{JumpCond, Layout, assemble, f64_to_fixed};

const ONE: u32 = 0x20000;

fn fx(v: f64) -> u32 {
    f64_to_fixed(v).expect("in range")
}

#[test]
fn fix_wraps_the_magnitude_and_keeps_the_sign() {
    assert_eq!(add(0x7FFF_FFFF, 1), 0, "0x7FFFFFFF + 1 -> 0");
    assert_eq!(
        add(0x8000_0000, 0xFFFF_FFFF),
        0xFFFF_FFFF,
        "0x80000000 + (-1) -> 0xFFFFFFFF"
    );
    assert_eq!(add(fx(1.5), fx(2.25)), fx(3.75));
    assert_eq!(sub(fx(1.0), fx(3.0)), fx(-2.0));
    assert_eq!(fix(1 << 40), 0);
}

#[test]
fn mul_truncates_toward_zero() {
    assert_eq!(mul(fx(1.5), fx(1.5)), fx(2.25));
    assert_eq!(mul(fx(-1.5), fx(2.0)), fx(-3.0));
    // -3 raw units times 0.5 is -1.5 units: truncated toward zero to -1 (floor would be -2).
    assert_eq!(mul(0xFFFF_FFFD, fx(0.5)), 0xFFFF_FFFF);
    assert_eq!(mul(3, fx(0.5)), 1);
    // The overflow keeps the low 32 bits: 200 * 200 = 40000, outside Q15.17.
    assert_eq!(mul(fx(200.0), fx(200.0)), (40000u64 << 17) as u32);
}

#[test]
fn the_multipliers_three_times_partial_product_is_32_bits_wide() {
    // 0x60000000 * 1.5: the exact result would be 0x90000000; the RTL gives 0x10000000.
    assert_eq!(mul(0x6000_0000, fx(1.5)), 0x1000_0000);
    // Below 0x55555555 the triple fits and the product is exact.
    assert_eq!(mul(0x5555_5555, fx(3.0)), 0xFFFF_FFFF);
    // Digits 1 and 2 are exact whatever |SRC1| is.
    assert_eq!(mul(0x6000_0000, fx(0.5)), 0x3000_0000);
    // IMUL uses the same multiplier without the shift.
    assert_eq!(imul(3, 0x20000), 0x60000);
    assert_eq!(imul(0xFFFF_FFFE, 5), 0xFFFF_FFF6);
    assert_eq!(imul(0x6000_0000, 3), 0x2000_0000);
}

#[test]
fn div_as_the_b12_state_machine() {
    assert_eq!(div(fx(1.0), fx(3.0)), 0xAAAA);
    assert_eq!(div(fx(-1.0), fx(3.0)), 0xFFFF_5556);
    assert_eq!(div(fx(1.0), fx(-4.0)), fx(-0.25));
    assert_eq!(div(fx(7.5), fx(2.5)), fx(3.0));
    assert_eq!(div(fx(1.0), 0), 0x0FFF_FFFF, "x / 0 = +0x0FFFFFFF");
    assert_eq!(div(fx(-1.0), 0), 0xF000_0001, "-x / 0 = -0x0FFFFFFF");
    assert_eq!(div(0, 0), 0x0FFF_FFFF, "0 / 0 is positive");
    // The quotient is masked to 31 bits: 16000 / 0.001 overflows.
    assert_eq!(
        div(fx(16000.0), 131),
        ((((fx(16000.0) as u64) << 17) / 131) & 0x7FFF_FFFF) as u32
    );
}

#[test]
fn mag_is_the_rtls_digit_by_digit_square_root() {
    assert_eq!(mag([fx(1.25), 0, 0]), fx(1.25));
    assert_eq!(mag([fx(3.0), fx(4.0), 0]), fx(5.0));
    assert_eq!(mag([fx(-3.0), 0, fx(-4.0)]), fx(5.0));
    assert_eq!(mag([fx(12.0), 0, 0]), fx(12.0));
    // Below a root of 2^28 (2048.0) the RTL's square root is the exact floor square root.
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..2000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let n = x >> (8 + x % 8);
        if isqrt(n) < 1 << 28 {
            assert_eq!(rtl_sqrt(n) as u64, isqrt(n), "{n:#x}");
        }
    }
    // Above, its 32-bit remainder overflows and the root comes out low. The RTL (b1.2 under
    // Icarus) gives 0x5555556E for this vector, whose exact root is 0x5555556F; the other
    // two are the harness's model of the RTL (../shared/theia-rtl/harness/rtlmodel.py).
    assert_eq!(mag([0x0003_0000, 0xFFFD_0000, 0x5555_5555]), 0x5555_556E);
    assert_eq!(rtl_sqrt(0x1555_5555_0000 << 17), 0x6882_F5BE);
    assert_eq!(rtl_sqrt(0x1D17_7A8A_F288 << 17), 0x7A0B_7E7E);
    // Beyond the range: |(10000, 10000, 10000)| = 17320.5 wraps into the sign bit.
    let c = fx(10000.0);
    assert!(
        fixed_to(mag([c, c, c])) < 0.0,
        "the magnitude wrapped into the sign bit"
    );
}

#[test]
fn the_multipliers_doubled_operand_is_32_bits_wide() {
    // |0x80000000| doubled overflows the RTL's 32-bit register: a radix-4 digit of 2 adds 0.
    // The RTL gives (0, 0, 0) for MUL of 0x80000000 by (0x2, 0x20000, 0x80000000).
    assert_eq!(mul(0x8000_0000, 0x2), 0);
    assert_eq!(mul(0x8000_0000, 0x2_0000), 0);
    assert_eq!(mul(0x8000_0000, 0x8000_0000), 0);
    // A digit of 1 still contributes: 0x80000000 · 0.5 (0x10000) = −8192.0; 1.0 (0x20000) is a
    // digit of 2.
    assert_eq!(mul(0x8000_0000, fx(0.5)), 0xC000_0000);
    assert_eq!(mul(0x8000_0000, fx(1.0)), 0);
}

fn fixed_to(v: u32) -> f64 {
    crate::isa::fixed_to_f64(v)
}

#[test]
fn dot_and_cross() {
    assert_eq!(
        dot([fx(1.0), fx(2.0), fx(3.0)], [fx(4.0), fx(5.0), fx(6.0)]),
        fx(32.0)
    );
    assert_eq!(dot([fx(0.5), 0, 0], [fx(-0.5), 0, 0]), fx(-0.25));
    // Wrap-around: 8192 * 8192 = 2^26, whose magnitude bits are all above bit 30.
    assert_eq!(dot([0x4000_0000, 0, 0], [0x4000_0000, 0, 0]), 0);
    assert_eq!(cross([fx(1.0), 0, 0], [0, fx(1.0), 0]), [0, 0, fx(1.0)]);
    assert_eq!(
        cross([fx(2.0), fx(3.0), fx(4.0)], [fx(5.0), fx(6.0), fx(7.0)]),
        [fx(-3.0), fx(6.0), fx(-3.0)]
    );
}

#[test]
fn mod_frac_neg_unscale() {
    assert_eq!(modulo(fx(-0.5), fx(4.0)), fx(3.0), "-0.5 mod 4 -> 3.0");
    assert_eq!(modulo(fx(9.75), fx(8.0)), fx(1.0), "floor(9.75) mod 8");
    assert_eq!(fx(-0.25) & 0x1FFFF, fx(0.75), "FRAC(-0.25) = 0.75");
    assert_eq!(
        0x8000_0000u32.wrapping_neg(),
        0x8000_0000,
        "NEG(0x80000000)"
    );
    assert_eq!(fx(-1.0) >> 17, 0x7FFF, "UNSCALE is a logical shift");
}

#[test]
fn jumps_compare_as_the_rtl_does() {
    let (five, minus) = (fx(5.0), fx(-5.0));
    assert!(jump_taken(JumpCond::L, five, five), "JL is <=");
    assert!(!jump_taken(JumpCond::G, five, five));
    assert!(
        jump_taken(JumpCond::Eq, five, minus),
        "JEQ compares magnitudes"
    );
    assert!(!jump_taken(JumpCond::Ne, five, minus));
    assert!(jump_taken(JumpCond::Le, five, minus), "JLE(5, -5) is taken");
    assert!(jump_taken(JumpCond::Ge, minus, five), "JGE(-5, 5) is taken");
    assert!(jump_taken(JumpCond::G, five, minus));
    assert!(!jump_taken(JumpCond::L, five, minus));
}

#[test]
fn swizzles_the_hardware_lacks_give_zero() {
    let d = [1, 2, 3];
    assert_eq!(swizzle(d, 0), [1, 1, 1]);
    assert_eq!(swizzle(d, 1), [2, 2, 2]);
    assert_eq!(swizzle(d, 2), [3, 3, 3]);
    assert_eq!(swizzle(d, 21), [2, 1, 3]);
    for imm in (3..=20).chain([22, 0xFFFF]) {
        assert_eq!(swizzle(d, imm), [0, 0, 0], "SWIZZLE {imm}");
    }
}

/// Assembles `src` (IMEM layout), sets registers, runs from PIXELSHADER.
fn run(src: &str, set: &[(u16, Vec3)]) -> (Machine, Result<Outcome, SimError>) {
    let img = assemble(src, Layout::Mem).unwrap_or_else(|e| panic!("{e}"));
    let mut m = Machine::new(img);
    for &(a, v) in set {
        m.set(a, v);
    }
    let r = m.run(Entry::Slot(10));
    (m, r)
}

const R1: u16 = 71;
const R2: u16 = 72;
const R3: u16 = 73;

#[test]
fn every_executable_opcode_through_the_machine() {
    let src = "ENTRYPOINT_ADRR_PIXELSHADER:\n\
        COPY R4 R1\n INC R5 R1\n DEC R6 R1\n INCX R7 R1\n INCY R8 R1\n INCZ R9 R1\n\
        XCHANGEX R11 R1 R2\n ZERO R12\n MULP R10 R1\n SETX R12 2.5\n SETY R12 -1.0\n SETZ R12 0x7\n\
        NEG C1 R1\n FRAC C2 R2\n ADD C3 R1 R2\n SUB C4 R1 R2\n MUL C5 R1 R2\n DIV C6 R1 R2\n\
        MAG C7 R1\n DOT CREG_COLOR_ACC R1 R2\n CROSS CREG_E1 R1 R2\n IMUL CREG_E2 R3 R3\n UNSCALE CREG_DELTA R2\n\
        MOD CREG_H1 R2 R3\n SWIZZLE3D R1 SWIZZLE_YXZ\n NOP RT_FALSE\n RETURN RT_TRUE\n";
    let r1 = [fx(1.0), fx(2.0), fx(-3.0)];
    let r2 = [fx(0.5), fx(-2.25), fx(4.0)];
    let r3 = [fx(8.0), 3, fx(2.0)];
    let (m, out) = run(src, &[(R1, r1), (R2, r2), (R3, r3)]);
    let out = out.unwrap();
    assert!(out.returned);
    assert_eq!(out.steps, 27);
    assert_eq!(
        out.cycles,
        25 * 2 + 70 + 35,
        "DIV 70 and MAG 35 cycles, the rest 2"
    );
    let reg = |n: &str| m.get(crate::isa::register_address(n).unwrap());
    assert_eq!(reg("R4"), r1);
    assert_eq!(reg("R5"), [fx(2.0), fx(3.0), fx(-2.0)]);
    assert_eq!(reg("R6"), [0, fx(1.0), fx(-4.0)]);
    assert_eq!(reg("R7"), [fx(2.0), fx(2.0), fx(-3.0)]);
    assert_eq!(reg("R8"), [fx(1.0), fx(3.0), fx(-3.0)]);
    assert_eq!(reg("R9"), [fx(1.0), fx(2.0), fx(-2.0)]);
    assert_eq!(
        reg("R10"),
        [fx(2.5), 0, fx(2.0)],
        "MULP before a Type II word writes (its immediate, 0, S1.x*S1.y)"
    );
    assert_eq!(reg("R11"), [fx(0.5), fx(2.0), fx(-3.0)]);
    assert_eq!(
        reg("R12"),
        [fx(2.5), fx(-1.0), 7],
        "SET* merge into the old destination"
    );
    assert_eq!(reg("C1"), [fx(-1.0), fx(-2.0), fx(3.0)]);
    assert_eq!(reg("C2"), [fx(0.5), fx(0.75), 0]);
    assert_eq!(reg("C3"), [fx(1.5), fx(-0.25), fx(1.0)]);
    assert_eq!(reg("C4"), [fx(0.5), fx(4.25), fx(-7.0)]);
    assert_eq!(reg("C5"), [fx(0.5), fx(-4.5), fx(-12.0)]);
    assert_eq!(reg("C6"), [fx(2.0), div(fx(2.0), fx(-2.25)), fx(-0.75)]);
    assert_eq!(reg("C7"), [mag(r1); 3]);
    assert_eq!(reg("CREG_COLOR_ACC"), [fx(0.5 - 4.5 - 12.0); 3]);
    assert_eq!(reg("CREG_E1"), cross(r1, r2));
    assert_eq!(
        reg("CREG_E2"),
        [0, 9, 0],
        "IMUL keeps the low 32 bits of the integer product"
    );
    assert_eq!(reg("CREG_DELTA"), [0, 0x7FFD, 4]);
    assert_eq!(
        reg("CREG_H1"),
        [0, modulo(fx(-2.25), 3), modulo(fx(4.0), fx(2.0))]
    );
    assert_eq!(reg("R1"), [fx(2.0), fx(1.0), fx(-3.0)], "SWIZZLE_YXZ");
}

#[test]
fn writes_follow_the_bank_rules() {
    let (m, out) = run(
        "ENTRYPOINT_ADRR_PIXELSHADER:\n COPY CREG_CAMERA_POSITION R1\n NOP RT_FALSE\n COPY CREG_V0 R1\n COPY OREG_PIXEL_COLOR R1\n RETURN RT_TRUE\n",
        &[(R1, [1, 2, 3])],
    );
    let out = out.unwrap();
    assert_eq!(
        m.get(1),
        [0, 0, 0],
        "configuration registers ignore the execution unit"
    );
    assert!(!out.writes[0].kept);
    assert_eq!(m.get(44), [1, 2, 3], "swap registers are written");
    assert_eq!(m.outputs.get(&128), Some(&[1, 2, 3]));
    assert_eq!(
        m.get(128),
        m.get(0),
        "OREGs are write-only: reading 128 reads address 0"
    );
}

#[test]
fn the_previous_result_is_forwarded_even_when_it_was_not_written() {
    // The ADD's write to a configuration register is dropped, but the next instruction that
    // names that register gets the ADD's result; the one after reads the register itself.
    let (m, out) = run(
        "ENTRYPOINT_ADRR_PIXELSHADER:\n ADD CREG_CAMERA_POSITION R1 R1\n COPY R2 CREG_CAMERA_POSITION\n COPY R3 CREG_CAMERA_POSITION\n RETURN RT_TRUE\n",
        &[(R1, [ONE, 2 * ONE, 3 * ONE])],
    );
    out.unwrap();
    assert_eq!(m.get(R2), [2 * ONE, 4 * ONE, 6 * ONE]);
    assert_eq!(m.get(R3), [0, 0, 0]);
    // A jump forwards (0, 0, 0) for its DST field; a NOP for its DST field too.
    let (m, out) = run(
        "ENTRYPOINT_ADRR_PIXELSHADER:\n NOP R1 VOID VOID\n COPY R2 R1\n COPY R3 R1\n RETURN RT_TRUE\n",
        &[(R1, [5, 6, 7])],
    );
    out.unwrap();
    assert_eq!(m.get(R2), [0, 0, 0]);
    assert_eq!(m.get(R3), [5, 6, 7]);
    // Type II: SET* and SWIZZLE3D read the old destination through forwarding.
    let (m, out) = run(
        "ENTRYPOINT_ADRR_PIXELSHADER:\n SETX R1 1.0\n SWIZZLE3D R1 SWIZZLE_XXX\n RETURN RT_TRUE\n",
        &[],
    );
    out.unwrap();
    assert_eq!(m.get(R1), [ONE; 3]);
}

#[test]
fn conditional_jumps_in_a_program() {
    // Count down from 3 with JGX: the loop body runs 3 times.
    let src = "ENTRYPOINT_ADRR_PIXELSHADER:\n SETX R1 3.0\n ZERO R2\nLOOP:\n INC R2 R2\n DEC R1 R1\n NOP RT_FALSE\n JGX LOOP R1 VOID\n RETURN RT_FALSE\n";
    let (m, out) = run(src, &[]);
    let out = out.unwrap();
    assert!(!out.returned);
    assert_eq!(m.get(R2)[0], fx(3.0));
    assert_eq!(out.steps, 2 + 3 * 4 + 1);
}

#[test]
fn opcodes_b12_lacks_stop_with_the_address() {
    for (line, why) in [
        ("INTP R1 R2 R3", "hangs"),
        ("XCHANGEY R1 R2 R3", "hangs"),
        ("XCHANGEZ R1 R2 R3", "hangs"),
        ("RESCALE R1 R2 R3", "hangs"),
        // The RTL built without DEBUG hangs on it.
        ("DEBUG_PRINT", "hangs"),
        ("CALL R1 R2 R3", "added after b1.2"),
        ("RET R1 R2 R3", "added after b1.2"),
        ("OMWRITE R1 R2 R3", "added after b1.2"),
        ("TMREAD R1 R2 R3", "added after b1.2"),
        ("LEA R1 R2 R3", "added after b1.2"),
        (".word 0x0006000000000000", "no such instruction"),
        (".word 0x00FFFFFFFFFFFFFF", "no such instruction"),
    ] {
        let (_, out) = run(
            &format!("ENTRYPOINT_ADRR_PIXELSHADER:\n NOP RT_FALSE\n {line}\n"),
            &[],
        );
        let e = out.unwrap_err();
        assert!(
            matches!(
                e,
                SimError::Trap {
                    address: 0x800C,
                    ..
                }
            ),
            "{line}: {e:?}"
        );
        assert!(
            e.to_string().starts_with("0x800c: ") && e.to_string().contains(why),
            "{e}"
        );
    }
}

#[test]
fn loops_that_never_return_are_reported() {
    let img = assemble(
        "ENTRYPOINT_ADRR_PIXELSHADER:\nL: JEQX L VOID VOID\n",
        Layout::Mem,
    )
    .unwrap();
    let mut m = Machine::new(img);
    m.max_steps = 1000;
    assert_eq!(
        m.run(Entry::Slot(10)).unwrap_err(),
        SimError::StepLimit {
            entry: 0x800B,
            steps: 1000
        }
    );
    // Jumping into the ROM, which the simulator does not hold.
    let img = assemble(
        "ENTRYPOINT_ADRR_PIXELSHADER:\n JEQX 0x10 VOID VOID\n",
        Layout::Mem,
    )
    .unwrap();
    let e = Machine::new(img).run(Entry::Slot(10)).unwrap_err();
    assert!(e.to_string().contains("in the ROM"), "{e}");
}

#[test]
fn the_tutorials_example3_classifies_texture_colours() {
    let src = "ENTRYPOINT_ADRR_USERCONSTANTS:\n SETX C1 32'h06666\n SETY C1 32'h1CCCC\n RETURN RT_TRUE\n\
               ENTRYPOINT_ADRR_PIXELSHADER:\n MAG R1 CREG_TEXTURE_COLOR\n JLX BLACK R1 C1\n JGEY BLACK R1 C1\nWHITE:\n\
               SETX OREG_PIXEL_COLOR 32'h20000\n SWIZZLE3D OREG_PIXEL_COLOR SWIZZLE_XXX\n RETURN RT_TRUE\nBLACK:\n\
               ZERO OREG_PIXEL_COLOR VOID VOID\n RETURN RT_TRUE\n";
    let mut m = Machine::new(assemble(src, Layout::Mem).unwrap());
    let pixel = |c: f64| vec![(110u16, [fx(c); 3])];
    let results = m.run_pixels(&[pixel(0.1), pixel(0.5), pixel(0.6)]).unwrap();
    let colour = |k: usize| results[k].1.get(&128).copied();
    assert_eq!(m.get(64), [0x6666, 0x1CCCC, 0], "USERCONSTANTS ran once");
    assert_eq!(
        colour(0),
        Some([0, 0, 0]),
        "|0.1,0.1,0.1| = 0.17 <= 0.2: black"
    );
    assert_eq!(
        colour(1),
        Some([ONE; 3]),
        "0.87: white (needs forwarding into SWIZZLE3D)"
    );
    assert_eq!(colour(2), Some([0, 0, 0]), "1.04 >= 0.9: black");
}

#[test]
fn entries_parse_as_names_slots_or_addresses() {
    assert_eq!(Entry::parse("PIXELSHADER"), Some(Entry::Slot(10)));
    assert_eq!(Entry::parse("9"), Some(Entry::Slot(9)));
    assert_eq!(Entry::parse("0x800B"), Some(Entry::Address(0x800B)));
    assert_eq!(Entry::parse("11"), None);
    assert_eq!(Entry::parse("pixelshader"), None);
}

#[test]
fn range_faults_count_only_lanes_that_are_read() {
    // 12000 + 12000 wraps in both x and y; only x reaches the colour (the SETY rebuilds y).
    let src = "ENTRYPOINT_ADRR_PIXELSHADER:
 ADD R1 CREG_UV0_LAST CREG_UV0_LAST
 SETY R1 32'h00020000
 COPY OREG_PIXEL_COLOR R1 VOID
 RETURN RT_TRUE
";
    let image = assemble(src, Layout::Mem).unwrap();
    let uv = crate::isa::register_address("CREG_UV0_LAST").unwrap();
    let big = fx(12000.0);
    let run = |v: [u32; 3]| {
        let mut m = Machine::new(image.clone());
        m.run_pixels(&[vec![(uv, v)]]).unwrap()[0].0.range_faults
    };
    assert_eq!(run([fx(1.0), big, 0]), 0, "the wrapped y is never read");
    assert_eq!(
        run([big, fx(1.0), 0]),
        1,
        "the wrapped x reaches the output"
    );
    // A wrapped y multiplied by a zero mask is harmless; a jump on a wrapped x is a fault.
    let src = "ENTRYPOINT_ADRR_USERCONSTANTS:
 ZERO C1 VOID VOID
 SETX C1 32'h00020000
 RETURN RT_TRUE
ENTRYPOINT_ADRR_PIXELSHADER:
 ADD R1 CREG_UV0_LAST CREG_UV0_LAST
 MUL R2 R1 C1
 JGX SKIP R1 C1
 NOP VOID VOID VOID
SKIP:
 COPY OREG_PIXEL_COLOR R2 VOID
 RETURN RT_TRUE
";
    let masked = assemble(src, Layout::Mem).unwrap();
    let run = |v: [u32; 3]| {
        let mut m = Machine::new(masked.clone());
        m.run_pixels(&[vec![(uv, v)]]).unwrap()[0].0.range_faults
    };
    assert_eq!(run([fx(1.0), big, big]), 0, "y and z are multiplied by 0");
    assert_eq!(
        run([big, 0, 0]),
        2,
        "x decides the jump and reaches the output"
    );
    use super::taint::Lane::{Exact, Wrapped, Wrong};
    assert_eq!(
        range_fault(Op::Mul, [0x6000_0000, 1, 0], [fx(1.5), 0, 0]),
        [Wrong, Exact, Exact],
        "the multiplier's 3·|a| overflow"
    );
    assert_eq!(range_fault(Op::Div, [fx(1.0), 0, 0], [0, 0, 0]), [Exact; 3]);
    assert_eq!(
        range_fault(Op::Dot, [fx(50.0); 3], [fx(50.0); 3]),
        [Exact; 3]
    );
    assert_eq!(
        range_fault(Op::Dot, [fx(100.0); 3], [fx(60.0); 3]),
        [Wrapped; 3]
    );
    assert_eq!(
        range_fault(Op::Imul, [43758, 0, 0], [fx(3.25), 0, 0]),
        [Wrapped, Exact, Exact],
        "an integer product past 2^31"
    );
}

#[test]
fn frac_of_a_wrapped_value_is_exact() {
    // fract(3.25 * 43758) by IMUL and FRAC: the integer product wraps, its fraction does not.
    let src = "ENTRYPOINT_ADRR_USERCONSTANTS:
 ZERO C1 VOID VOID
 SETX C1 32'h0000AAEE
 RETURN RT_TRUE
ENTRYPOINT_ADRR_PIXELSHADER:
 IMUL R1 C1 CREG_UV0_LAST
 FRAC R2 R1 VOID
 COPY OREG_PIXEL_COLOR R2 VOID
 JGX SKIP R1 VOID
 NOP RT_FALSE
SKIP:
 RETURN RT_TRUE
";
    let uv = crate::isa::register_address("CREG_UV0_LAST").unwrap();
    let mut m = Machine::new(assemble(src, Layout::Mem).unwrap());
    let (o, regs) = m
        .run_pixels(&[vec![(uv, [fx(3.25), 0, 0])]])
        .unwrap()
        .remove(0);
    // 3.25 * 43758 = 142213.5: fraction 0.5.
    assert_eq!(regs[&128], [fx(0.5), 0, 0]);
    assert_eq!(
        o.range_faults, 1,
        "only the jump on the wrapped product counts"
    );
}

#[test]
fn the_first_read_of_void_gets_the_previous_return_forwarded() {
    // The ROM's INITIAL routine ends with RETURN RT_TRUE (DST VOID, result (1, 1, 1)); the
    // decoder forwards it to the next routine's first read of VOID. The RTL gives
    // R1 = R2 + (1, 1, 1) here, whatever register 0 holds; the second read is the register.
    let src = "ENTRYPOINT_ADRR_PIXELSHADER:\n ADD R1 R2 VOID\n ADD R3 R2 VOID\n RETURN RT_TRUE\n";
    let r2 = [0x2_0000, 0x4_0000, 0x6_0000];
    let (m, out) = run(src, &[(R2, r2), (0, [0x100, 0x200, 0x300])]);
    assert!(out.unwrap().returned);
    assert_eq!(m.get(R1), [0x2_0001, 0x4_0001, 0x6_0001]);
    assert_eq!(m.get(R3), [0x2_0100, 0x4_0200, 0x6_0300]);
}

#[test]
fn mulps_x_and_y_are_the_next_words_immediate() {
    // As the RTL: z = S1.x·S1.y; x is the next word's immediate when it is a Type II word
    // (SETY, SWIZZLE3D, RETURN) and y is 0. Before a register-reading word the RTL's x and y
    // depend on its timing; the simulator keeps S1.x and S1.y.
    let r1 = [fx(3.0), fx(-0.5), fx(7.0)];
    for (next, want_x) in [
        (" SETY R5 32'h00180000\n", 0x0018_0000),
        (" SWIZZLE3D R6 SWIZZLE_ZZZ\n", 2),
        ("", 1),
    ] {
        let src =
            format!("ENTRYPOINT_ADRR_PIXELSHADER:\n MULP R3 R1 VOID\n{next} RETURN RT_TRUE\n");
        let (m, out) = run(&src, &[(R1, r1)]);
        assert!(out.unwrap().returned);
        assert_eq!(m.get(R3), [want_x, 0, alu::mul(r1[0], r1[1])], "{next:?}");
    }
}

#[test]
fn jmp_in_imem_is_refused_and_works_at_rom_addresses() {
    // From IMEM the RTL takes JMP twice and continues in the ROM after the target word.
    let img = assemble(
        "ENTRYPOINT_ADRR_PIXELSHADER:\n ADD R1 R2 R3\n JMP L VOID VOID\n ADD R4 R2 R2\nL: ADD R5 R3 R3\n RETURN RT_TRUE\n",
        Layout::Mem,
    )
    .unwrap();
    let e = Machine::new(img).run(Entry::Slot(10)).unwrap_err();
    assert!(
        matches!(&e, SimError::Trap { address: 0x800C, what, .. } if what == "JMP"),
        "{e:?}"
    );
    assert!(e.to_string().contains("JEQX L VOID VOID"), "{e}");
    // The always-true conditional jump skips the word, whatever VOID holds (here the
    // forwarded (1, 1, 1) of the ROM's last RETURN, then a forwarded result).
    for first in ["", " ADD VOID R3 R3\n"] {
        let src = format!(
            "ENTRYPOINT_ADRR_PIXELSHADER:\n{first} JEQX L VOID VOID\n SETX R4 32'h20000\nL: SETX R5 32'h20000\n RETURN RT_TRUE\n"
        );
        let mut m = Machine::new(assemble(&src, Layout::Mem).unwrap());
        m.set(reg("R3"), [0x20000, 0x50000, 7]);
        let o = m.run(Entry::Slot(10)).unwrap();
        assert_eq!(m.get(reg("R4")), [0; 3], "{src}");
        assert_eq!(m.get(reg("R5")), [0x20000, 0, 0], "{src}");
        assert!(o.returned);
    }
    // A .bin image runs from address 0, where the ROM's JMPs live: allowed.
    let img = assemble(
        "JMP L VOID VOID\n SETX R4 32'h20000\nL: SETX R5 32'h20000\n RETURN RT_TRUE\n",
        Layout::Bin,
    )
    .unwrap();
    let mut m = Machine::new(img);
    m.run(Entry::Address(0)).unwrap();
    assert_eq!(m.get(reg("R4")), [0; 3]);
    assert_eq!(m.get(reg("R5")), [0x20000, 0, 0]);
}

#[test]
fn mulp_before_a_register_reading_word_is_refused() {
    let run = |next: &str| {
        let src =
            format!("ENTRYPOINT_ADRR_PIXELSHADER:\n MULP R1 R2 VOID\n {next}\n RETURN RT_TRUE\n");
        let mut m = Machine::new(assemble(&src, Layout::Mem).unwrap());
        m.set(reg("R2"), [0x20000, 0x40000, 0x60000]);
        m.run(Entry::Slot(10)).map(|_| m.get(reg("R1")))
    };
    for next in [
        "ADD R3 R4 R5",
        "COPY R3 R4 VOID",
        "JGX L R4 R5\nL:",
        "NOP RT_FALSE",
    ] {
        let e = run(next).unwrap_err();
        assert!(
            matches!(&e, SimError::Trap { address: 0x800B, what, .. } if what.starts_with("MULP")),
            "{next}: {e:?}"
        );
    }
    // Before a Type II word X is that word's immediate and Y is 0, as in the RTL.
    assert_eq!(run("SETX R6 32'h30000").unwrap(), [0x30000, 0, 0x40000]);
}

fn reg(name: &str) -> u16 {
    crate::isa::register_address(name).expect("a register name")
}

#[test]
fn a_routine_that_starts_with_return_hangs() {
    let img = assemble(
        "ENTRYPOINT_ADRR_PIXELSHADER:\n RETURN RT_TRUE\n",
        Layout::Mem,
    )
    .unwrap();
    let e = Machine::new(img).run(Entry::Slot(10)).unwrap_err();
    assert!(
        matches!(&e, SimError::Trap { address: 0x800B, what, .. } if what.starts_with("RETURN")),
        "{e:?}"
    );
    // After another word, and reached by a jump, RETURN ends the routine.
    let img = assemble(
        "ENTRYPOINT_ADRR_PIXELSHADER:\n NOP RT_FALSE\n RETURN RT_TRUE\n",
        Layout::Mem,
    )
    .unwrap();
    assert!(Machine::new(img).run(Entry::Slot(10)).unwrap().returned);
    let img = assemble(
        "ENTRYPOINT_ADRR_PIXELSHADER:\n JEQX L VOID VOID\n NOP RT_FALSE\nL: RETURN RT_FALSE\n",
        Layout::Mem,
    )
    .unwrap();
    assert!(!Machine::new(img).run(Entry::Slot(10)).unwrap().returned);
}
