//! Semantics of every arithmetic, logic, conversion and derivative opcode
//! (`docs/semantics.md`; numerics per `docs/semantics.md`).

use super::RunError;
use super::exec::Exec;
use super::num::{self, b, f, fmax, fmin};
use crate::engine::Internal;
use crate::engine::{BATCH_LANES, Chan, Mask, Reg};
use tgsic::tgsi::*;

const ONE: u32 = 0x3F80_0000;
const TRUE: u32 = u32::MAX;

fn map1(a: &Chan, op: impl Fn(u32) -> u32) -> Chan {
    std::array::from_fn(|l| op(a[l]))
}

fn map2(a: &Chan, x: &Chan, op: impl Fn(u32, u32) -> u32) -> Chan {
    std::array::from_fn(|l| op(a[l], x[l]))
}

fn map3(a: &Chan, x: &Chan, y: &Chan, op: impl Fn(u32, u32, u32) -> u32) -> Chan {
    std::array::from_fn(|l| op(a[l], x[l], y[l]))
}

/// Component-wise unary.
fn cw1(a: &Reg, op: impl Fn(u32) -> u32 + Copy) -> Reg {
    std::array::from_fn(|c| map1(&a[c], op))
}

fn cw2(a: &Reg, x: &Reg, op: impl Fn(u32, u32) -> u32 + Copy) -> Reg {
    std::array::from_fn(|c| map2(&a[c], &x[c], op))
}

fn cw3(a: &Reg, x: &Reg, y: &Reg, op: impl Fn(u32, u32, u32) -> u32 + Copy) -> Reg {
    std::array::from_fn(|c| map3(&a[c], &x[c], &y[c], op))
}

/// Replicates a scalar result to all four components.
fn rep(ch: Chan) -> Reg {
    [ch; 4]
}

/// Float unary on bits, denormals flushed in and out.
fn fl1(op: impl Fn(f32) -> f32 + Copy) -> impl Fn(u32) -> u32 + Copy {
    move |x| b(op(f(x)))
}

fn fl2(op: impl Fn(f32, f32) -> f32 + Copy) -> impl Fn(u32, u32) -> u32 + Copy {
    move |x, y| b(op(f(x), f(y)))
}

fn set(cond: bool, t: u32) -> u32 {
    if cond { t } else { 0 }
}

/// `a·b` then `+ c`, each rounded to f32 and flushed (nothing fused).
fn mad(a: u32, x: u32, y: u32) -> u32 {
    b(f(b(num::mul(f(a), f(x)))) + f(y))
}

/// Dot product of the first `n` components, accumulated left to right.
fn dot(a: &Reg, x: &Reg, n: usize) -> Chan {
    std::array::from_fn(|l| {
        let mut acc = b(num::mul(f(a[0][l]), f(x[0][l])));
        for c in 1..n {
            acc = b(f(acc) + f(b(num::mul(f(a[c][l]), f(x[c][l])))));
        }
        acc
    })
}

/// The source register `s` displaced by `k` registers (matrix rows of M4X3 and friends).
fn row(s: &Src, k: i32) -> Src {
    let mut r = s.clone();
    r.register.index.offset += k;
    r
}

/// Packs per NV_fragment_program: a value scaled, rounded and clamped into `bits`-wide fields.
fn pack(s: &Reg, n: usize, bits: u32, enc: impl Fn(f32) -> u32) -> Chan {
    std::array::from_fn(|l| {
        (0..n).fold(0u32, |acc, c| {
            acc | (enc(f(s[c][l])) & ((1u32 << bits) - 1)) << (bits * c as u32)
        })
    })
}

/// Executes `inst` (not flow, texture, kill or emit) for the lanes of `exec`; returns the result
/// for every component (the caller writes the enabled ones).
pub(super) fn execute(
    ex: &mut Exec<'_>,
    pc: usize,
    inst: &Instruction,
    exec: Mask,
) -> Result<Reg, RunError> {
    use Opcode as O;
    let src = |k: usize, comps: u8| ex.fetch(&inst.src[k], comps);
    let all = |k: usize| src(k, 0xF);
    let x = |k: usize| src(k, 1)[0];
    let res: Reg = match inst.opcode {
        O::Mov | O::Swz | O::Uarl => all(0),
        O::Abs => cw1(&all(0), |v| v & 0x7FFF_FFFF),
        O::Negate => cw1(&all(0), |v| v ^ 0x8000_0000),
        O::Arl => cw1(&all(0), |v| f(v).floor() as i32 as u32),
        O::Arr => cw1(&all(0), |v| (f(v) + 0.5).floor() as i32 as u32),
        O::Ara => {
            let s = all(0);
            let xz = map2(&s[0], &s[2], u32::wrapping_add);
            let yw = map2(&s[1], &s[3], u32::wrapping_add);
            [xz, yw, xz, yw]
        }
        O::Add => cw2(&all(0), &all(1), fl2(|a, c| a + c)),
        O::Sub => cw2(&all(0), &all(1), fl2(|a, c| a - c)),
        O::Mul => cw2(&all(0), &all(1), fl2(num::mul)),
        O::Div => cw2(&all(0), &all(1), fl2(num::div)),
        O::Mad => cw3(&all(0), &all(1), &all(2), mad),
        O::Fma => cw3(&all(0), &all(1), &all(2), |a, c, d| {
            b(num::fma(f(a), f(c), f(d)))
        }),
        O::Lrp => cw3(&all(0), &all(1), &all(2), |a, c, d| {
            let diff = b(f(c) - f(d));
            b(f(b(num::mul(f(a), f(diff)))) + f(d))
        }),
        O::Min => cw2(&all(0), &all(1), fl2(fmin)),
        O::Max => cw2(&all(0), &all(1), fl2(fmax)),
        O::Clamp => cw3(&all(0), &all(1), &all(2), |v, lo, hi| {
            b(fmin(fmax(f(v), f(lo)), f(hi)))
        }),
        O::Frc => cw1(&all(0), fl1(|v| v - v.floor())),
        O::Flr => cw1(&all(0), fl1(f32::floor)),
        O::Ceil => cw1(&all(0), fl1(f32::ceil)),
        O::Trunc => cw1(&all(0), fl1(f32::trunc)),
        O::Round => cw1(&all(0), fl1(f32::round_ties_even)),
        O::Ssg => cw1(&all(0), |v| {
            let v = f(v);
            if v > 0.0 {
                ONE
            } else if v < 0.0 {
                (-1.0f32).to_bits()
            } else {
                0
            }
        }),
        O::Rcp => rep(map1(&x(0), fl1(|v| num::div(1.0, v)))),
        O::Rsq => rep(map1(&x(0), fl1(|v| num::div(1.0, num::ftz(v.sqrt()))))),
        O::Sqrt => rep(map1(&x(0), fl1(f32::sqrt))),
        O::Ex2 => rep(map1(&x(0), fl1(num::libm::exp2))),
        O::Lg2 => rep(map1(&x(0), fl1(num::lg2))),
        O::Pow => rep(map2(&x(0), &x(1), fl2(num::libm::pow))),
        O::Sin => rep(map1(&x(0), fl1(num::libm::sin))),
        O::Cos => rep(map1(&x(0), fl1(num::libm::cos))),
        O::Rcc => rep(map1(&x(0), |v| {
            let r = num::div(1.0, f(v));
            b(if r > 0.0 {
                fmin(fmax(r, 5.42101e-20), 1.884467e19)
            } else {
                fmin(fmax(r, -1.884467e19), -5.42101e-20)
            })
        })),
        O::Scs => {
            let s = x(0);
            [
                map1(&s, fl1(num::libm::cos)),
                map1(&s, fl1(num::libm::sin)),
                [0; BATCH_LANES],
                [ONE; BATCH_LANES],
            ]
        }
        O::Exp => {
            let s = x(0);
            [
                map1(&s, fl1(|v| num::libm::exp2(v.floor()))),
                map1(&s, fl1(|v| v - v.floor())),
                map1(&s, fl1(num::libm::exp2)),
                [ONE; BATCH_LANES],
            ]
        }
        O::Log => {
            let s = x(0);
            let lg = map1(&s, |v| b(num::lg2(f(v).abs())));
            let fl = map1(&lg, fl1(f32::floor));
            [
                fl,
                map2(&s, &fl, |v, e| {
                    b(num::div(f(v).abs(), num::ftz(num::libm::exp2(f(e)))))
                }),
                lg,
                [ONE; BATCH_LANES],
            ]
        }
        O::Lit => {
            let s = all(0);
            let y = map1(&s[0], |v| b(fmax(f(v), 0.0)));
            let z = map3(&s[0], &s[1], &s[3], |sx, sy, sw| {
                if f(sx) > 0.0 {
                    b(num::libm::pow(
                        fmax(f(sy), 0.0),
                        fmin(fmax(f(sw), -128.0), 128.0),
                    ))
                } else {
                    0
                }
            });
            [[ONE; BATCH_LANES], y, z, [ONE; BATCH_LANES]]
        }
        O::Dp2 => rep(dot(&src(0, 3), &src(1, 3), 2)),
        O::Dp3 => rep(dot(&src(0, 7), &src(1, 7), 3)),
        O::Dp4 => rep(dot(&all(0), &all(1), 4)),
        O::Dph => {
            let d = dot(&src(0, 7), &all(1), 3);
            let w = all(1)[3];
            rep(map2(&d, &w, fl2(|a, c| a + c)))
        }
        O::Dp2a => {
            let d = dot(&src(0, 3), &src(1, 3), 2);
            rep(map2(&d, &x(2), fl2(|a, c| a + c)))
        }
        O::Dst => {
            let (s0, s1) = (all(0), all(1));
            [
                [ONE; BATCH_LANES],
                map2(&s0[1], &s1[1], fl2(num::mul)),
                s0[2],
                s1[3],
            ]
        }
        O::Xpd => {
            let (a, c) = (src(0, 7), src(1, 7));
            let cross = |i: usize, j: usize| {
                map2(
                    &map2(&a[i], &c[j], fl2(num::mul)),
                    &map2(&c[i], &a[j], fl2(num::mul)),
                    fl2(|p, q| p - q),
                )
            };
            [cross(1, 2), cross(2, 0), cross(0, 1), [ONE; BATCH_LANES]]
        }
        O::Nrm | O::Nrm4 => {
            let n = if inst.opcode == O::Nrm { 3 } else { 4 };
            let s = all(0);
            let len = dot(&s, &s, n);
            let r = map1(&len, fl1(|v| num::div(1.0, num::ftz(v.sqrt()))));
            let mut out = [[ONE; BATCH_LANES]; 4];
            for c in 0..n {
                out[c] = map2(&s[c], &r, fl2(num::mul));
            }
            out
        }
        O::Rfl => {
            let (a, c) = (src(0, 7), src(1, 7));
            let k = map2(
                &dot(&a, &c, 3),
                &dot(&a, &a, 3),
                fl2(|d, l| num::div(num::mul(2.0, d), l)),
            );
            let mut out = [[ONE; BATCH_LANES]; 4];
            for i in 0..3 {
                out[i] = map3(&k, &a[i], &c[i], |kk, p, q| {
                    b(f(b(num::mul(f(kk), f(p)))) - f(q))
                });
            }
            out
        }
        O::X2d => {
            let (s0, s1, s2) = (all(0), all(1), all(2));
            let row = |i: usize, u: usize, v: usize| {
                std::array::from_fn(|l| {
                    b(f(b(f(s0[i][l]) + f(b(num::mul(f(s1[0][l]), f(s2[u][l]))))))
                        + f(b(num::mul(f(s1[1][l]), f(s2[v][l])))))
                })
            };
            let (rx, ry): (Chan, Chan) = (row(0, 0, 1), row(1, 2, 3));
            [rx, ry, rx, ry]
        }
        O::M4x3 | O::M3x4 | O::M3x3 | O::M3x2 => {
            let (n, rows) = match inst.opcode {
                O::M4x3 => (4, 3),
                O::M3x4 => (3, 4),
                O::M3x3 => (3, 3),
                _ => (3, 2),
            };
            let v = all(0);
            let mut out = [[0u32; BATCH_LANES]; 4];
            for (k, o) in out.iter_mut().enumerate().take(rows) {
                let r = ex.fetch(&row(&inst.src[1], k as i32), 0xF);
                *o = dot(&v, &r, n);
            }
            out
        }
        O::Slt => cw2(&all(0), &all(1), |a, c| set(f(a) < f(c), ONE)),
        O::Sge => cw2(&all(0), &all(1), |a, c| set(f(a) >= f(c), ONE)),
        O::Sgt => cw2(&all(0), &all(1), |a, c| set(f(a) > f(c), ONE)),
        O::Sle => cw2(&all(0), &all(1), |a, c| set(f(a) <= f(c), ONE)),
        O::Seq => cw2(&all(0), &all(1), |a, c| set(f(a) == f(c), ONE)),
        O::Sne => cw2(&all(0), &all(1), |a, c| set(f(a) != f(c), ONE)),
        O::Sfl => [[0; BATCH_LANES]; 4],
        O::Str => [[ONE; BATCH_LANES]; 4],
        O::Fslt => cw2(&all(0), &all(1), |a, c| set(f(a) < f(c), TRUE)),
        O::Fsge => cw2(&all(0), &all(1), |a, c| set(f(a) >= f(c), TRUE)),
        O::Fseq => cw2(&all(0), &all(1), |a, c| set(f(a) == f(c), TRUE)),
        O::Fsne => cw2(&all(0), &all(1), |a, c| set(f(a) != f(c), TRUE)),
        O::Cmp => cw3(
            &all(0),
            &all(1),
            &all(2),
            |c, t, e| if f(c) < 0.0 { t } else { e },
        ),
        O::Cnd => cw3(
            &all(0),
            &all(1),
            &all(2),
            |t, e, c| if f(c) > 0.5 { t } else { e },
        ),
        O::Cnd0 => cw3(
            &all(0),
            &all(1),
            &all(2),
            |t, e, c| if f(c) >= 0.0 { t } else { e },
        ),
        O::Ucmp => cw3(
            &all(0),
            &all(1),
            &all(2),
            |c, t, e| if c != 0 { t } else { e },
        ),
        O::Ddx | O::DdxFine => {
            let s = all(0);
            std::array::from_fn(|c| ex.derivatives(&s[c], inst.opcode == O::DdxFine).0)
        }
        O::Ddy | O::DdyFine => {
            let s = all(0);
            std::array::from_fn(|c| ex.derivatives(&s[c], inst.opcode == O::DdyFine).1)
        }
        O::I2f => cw1(&all(0), |v| b(v as i32 as f32)),
        O::U2f => cw1(&all(0), |v| b(v as f32)),
        O::F2i => cw1(&all(0), |v| num::f2i(f(v))),
        O::F2u => cw1(&all(0), |v| num::f2u(f(v))),
        O::Ldexp => cw2(&all(0), &all(1), |v, e| {
            b(num::round_ftz(
                f(v) as f64 * 2f64.powi((e as i32).clamp(-300, 300)),
            ))
        }),
        O::Not => cw1(&all(0), |v| !v),
        O::And => cw2(&all(0), &all(1), |a, c| a & c),
        O::Or => cw2(&all(0), &all(1), |a, c| a | c),
        O::Xor => cw2(&all(0), &all(1), |a, c| a ^ c),
        O::Shl => cw2(&all(0), &all(1), |a, c| a << (c & 31)),
        O::Ishr => cw2(&all(0), &all(1), |a, c| ((a as i32) >> (c & 31)) as u32),
        O::Ushr => cw2(&all(0), &all(1), |a, c| a >> (c & 31)),
        O::Uadd => cw2(&all(0), &all(1), u32::wrapping_add),
        O::Umul => cw2(&all(0), &all(1), u32::wrapping_mul),
        O::Umad => cw3(&all(0), &all(1), &all(2), |a, c, d| {
            a.wrapping_mul(c).wrapping_add(d)
        }),
        O::ImulHi => cw2(&all(0), &all(1), |a, c| {
            ((a as i32 as i64 * c as i32 as i64) >> 32) as u32
        }),
        O::UmulHi => cw2(&all(0), &all(1), |a, c| {
            ((a as u64 * c as u64) >> 32) as u32
        }),
        O::Idiv => cw2(&all(0), &all(1), num::idiv),
        O::Udiv => cw2(&all(0), &all(1), num::udiv),
        O::Umod => cw2(&all(0), &all(1), num::umod),
        O::Mod => cw2(&all(0), &all(1), num::imod),
        O::Imax => cw2(&all(0), &all(1), |a, c| (a as i32).max(c as i32) as u32),
        O::Imin => cw2(&all(0), &all(1), |a, c| (a as i32).min(c as i32) as u32),
        O::Umax => cw2(&all(0), &all(1), u32::max),
        O::Umin => cw2(&all(0), &all(1), u32::min),
        O::Ineg => cw1(&all(0), u32::wrapping_neg),
        O::Iabs => cw1(&all(0), |v| (v as i32).wrapping_abs() as u32),
        O::Issg => cw1(&all(0), |v| (v as i32).signum() as u32),
        O::Islt => cw2(&all(0), &all(1), |a, c| set((a as i32) < (c as i32), TRUE)),
        O::Isge => cw2(&all(0), &all(1), |a, c| set((a as i32) >= (c as i32), TRUE)),
        O::Uslt => cw2(&all(0), &all(1), |a, c| set(a < c, TRUE)),
        O::Usge => cw2(&all(0), &all(1), |a, c| set(a >= c, TRUE)),
        O::Useq => cw2(&all(0), &all(1), |a, c| set(a == c, TRUE)),
        O::Usne => cw2(&all(0), &all(1), |a, c| set(a != c, TRUE)),
        O::Sad => cw3(&all(0), &all(1), &all(2), |a, c, d| {
            a.abs_diff(c).wrapping_add(d)
        }),
        O::Ibfe => cw3(&all(0), &all(1), &all(2), num::ibfe),
        O::Ubfe => cw3(&all(0), &all(1), &all(2), num::ubfe),
        O::Bfi => {
            let (a, c, d, e) = (all(0), all(1), all(2), all(3));
            std::array::from_fn(|k| {
                std::array::from_fn(|l| num::bfi(a[k][l], c[k][l], d[k][l], e[k][l]))
            })
        }
        O::Brev => cw1(&all(0), u32::reverse_bits),
        O::Popc => cw1(&all(0), u32::count_ones),
        O::Lsb => cw1(&all(0), num::lsb),
        O::Imsb => cw1(&all(0), num::imsb),
        O::Umsb => cw1(&all(0), num::umsb),
        O::Pk2h => rep(pack(&src(0, 3), 2, 16, |v| num::f32_to_f16(v) as u32)),
        O::Pk2us => rep(pack(&src(0, 3), 2, 16, |v| {
            (num::sat01(v) * 65535.0).round() as u32
        })),
        O::Pk4b => rep(pack(&all(0), 4, 8, |v| {
            (num::sat11(v) * 127.0).round() as i32 as u32
        })),
        O::Pk4ub => rep(pack(&all(0), 4, 8, |v| {
            (num::sat01(v) * 255.0).round() as u32
        })),
        O::Up2h => {
            let s = x(0);
            let lo = map1(&s, |v| b(num::f16_to_f32(v as u16)));
            let hi = map1(&s, |v| b(num::f16_to_f32((v >> 16) as u16)));
            [lo, hi, lo, hi]
        }
        O::Up2us => {
            let s = x(0);
            let lo = map1(&s, |v| b((v & 0xFFFF) as f32 / 65535.0));
            let hi = map1(&s, |v| b((v >> 16) as f32 / 65535.0));
            [lo, hi, lo, hi]
        }
        O::Up4b => {
            let s = x(0);
            std::array::from_fn(|c| {
                map1(&s, |v| {
                    b(((v >> (8 * c)) as u8 as i8 as f32 / 127.0).max(-1.0))
                })
            })
        }
        O::Up4ub => {
            let s = x(0);
            std::array::from_fn(|c| map1(&s, |v| b(((v >> (8 * c)) & 0xFF) as f32 / 255.0)))
        }
        O::Popa => ex.pop_addr(exec),
        O::ReadHelper => rep(std::array::from_fn(|l| {
            if ex.helpers & (1 << l) != 0 { TRUE } else { 0 }
        })),
        O::InterpCentroid | O::InterpSample => all(0),
        O::InterpOffset => {
            let (v, off) = (all(0), src(1, 3));
            std::array::from_fn(|c| {
                let (dx, dy) = (ex.derivatives(&v[c], true).0, ex.derivatives(&v[c], true).1);
                std::array::from_fn(|l| mad(dy[l], off[1][l], mad(dx[l], off[0][l], v[c][l])))
            })
        }
        O::FbFetch => {
            let clear = ex.bind.clear;
            std::array::from_fn(|c| [clear[c].to_bits(); BATCH_LANES])
        }
        other => {
            return Err(RunError::Internal(Internal::NoAlu { pc, opcode: other }));
        }
    };
    Ok(res)
}
