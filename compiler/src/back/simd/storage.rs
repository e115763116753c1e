//! Memory instructions (LOAD, STORE, RESQ, the atomics) on storage buffers, shared memory
//! and images, and barriers. The code applies an access itself, per lane and checked
//! against the memory's size, where it can ([`Inline`]): loads as gathers, stores as
//! scatters in lane order, atomics as real atomic read-modify-writes lane after lane, and
//! images of 32-bit channels and of RGBA8 UNORM with their conversions. A step whose lanes
//! it cannot serve (an offset that is not a whole word, a wide store whose lanes could meet
//! on part of a value, memory the runtime gave no descriptor for: `MemDesc::ptr` null)
//! calls the runtime's memory callback instead, which applies the same rules
//! (`engine::memory::apply`); so do the operations the code has no form for (float and
//! wrapping atomics, other image formats). `docs/jit.md`, "Compute programs".

use super::builder::{AtomicOp, Callee, FBin, IBin, Kind, R, SBin, Scalar, Shift, SimdBuilder};
use super::lower::Lower;
use crate::back::abi::{JitArgs, MemDesc};
use crate::ir::{self, FCmp, ICmp, MemAccess, MemFile};
use crate::tgsi::format::{Kind as Channel, Layout};
use crate::tgsi::{Opcode, Processor};
use std::mem::offset_of;

/// 1.0f32's bits.
const ONE: u32 = 0x3F80_0000;

/// How the code applies a memory operation itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Inline {
    /// LOAD, STORE or an atomic of a buffer or shared memory, at byte offsets.
    Words,
    /// RESQ: the size is in the descriptor.
    Size,
    /// An image whose texels are `channels` 32-bit words (`integer`: UINT or SINT).
    Words32 { channels: u8, integer: bool },
    /// An image of R8G8B8A8_UNORM texels.
    Rgba8,
}

impl Inline {
    /// The form of `m`, if the code has one.
    fn of(m: &MemAccess) -> Option<Inline> {
        // Which memory an indirect register names is known per step: the callback finds it.
        if m.indirect {
            return None;
        }
        if m.opcode.is_atomic() && atomic_op(m.opcode).is_none() && m.opcode != Opcode::AtomCas {
            return None;
        }
        if m.opcode == Opcode::Resq {
            return Some(Inline::Size);
        }
        if m.file != MemFile::Image {
            return Some(Inline::Words);
        }
        match m.format.layout() {
            Layout::Plain {
                channels,
                bits: 32,
                kind,
            } if !m.opcode.is_atomic() || channels == 1 => Some(Inline::Words32 {
                channels,
                integer: kind.is_integer(),
            }),
            Layout::Plain {
                channels: 4,
                bits: 8,
                kind: Channel::Unorm,
            } if !m.opcode.is_atomic() => Some(Inline::Rgba8),
            _ => None,
        }
    }
}

/// The read-modify-write of an atomic opcode (ATOMCAS has its own; the float and wrapping
/// ones have none).
fn atomic_op(op: Opcode) -> Option<AtomicOp> {
    Some(match op {
        Opcode::AtomUadd => AtomicOp::Add,
        Opcode::AtomXchg => AtomicOp::Xchg,
        Opcode::AtomAnd => AtomicOp::And,
        Opcode::AtomOr => AtomicOp::Or,
        Opcode::AtomXor => AtomicOp::Xor,
        Opcode::AtomUmin => AtomicOp::UMin,
        Opcode::AtomUmax => AtomicOp::UMax,
        Opcode::AtomImin => AtomicOp::SMin,
        Opcode::AtomImax => AtomicOp::SMax,
        _ => return None,
    })
}

/// A descriptor's fields, loaded for one operation.
struct Desc<S> {
    ptr: S,
    /// Buffers: the whole words (`bytes / 4`, at most 2³¹ − 1) as an I64.
    words: S,
}

impl<B: SimdBuilder> Lower<'_, B> {
    /// A memory instruction, for the step's executing lanes in lane order.
    pub(super) fn memory(
        &mut self,
        m: MemAccess,
        args: &[ir::Value],
        results: &[ir::Value],
    ) -> R<()> {
        let index = self.memory.len();
        self.memory.push(m.clone());
        let writers = self.writers(&m)?;
        let Some(form) = Inline::of(&m) else {
            let r = self.memory_call(index, &m, args, writers)?;
            return self.memory_results(&m, args, results, writers, r);
        };
        // The descriptor, then the tests that pick the code's own path.
        let at = self.sconst((index * size_of::<MemDesc>() / 4) as i64)?;
        let d = self.b.word_addr(self.p.mem_descs, at)?;
        let ptr_int = self
            .b
            .load(Scalar::I64, d, offset_of!(MemDesc, ptr) as i32)?;
        let kind = if m.integer_results() {
            Kind::I32
        } else {
            Kind::F32
        };
        let vars: Vec<B::Var> = (0..m.results())
            .map(|_| self.b.vector_var(kind))
            .collect::<R<_>>()?;
        let own = self.b.block()?;
        let check = self.b.block()?;
        let call = self.b.block()?;
        let join = self.b.block()?;
        let zero = self.b.sconst(Scalar::I64, 0)?;
        let present = self.b.scmp(false, ptr_int, zero)?;
        if form == Inline::Words {
            self.b.branch(present, check, call)?;
            self.b.switch_to(check)?;
            let lanes_fit = self.lanes_fit(&m, args)?;
            self.b.branch(lanes_fit, own, call)?;
        } else {
            self.b.branch(present, own, call)?;
            self.b.switch_to(check)?;
            self.b.jump(call)?;
        }

        self.b.switch_to(own)?;
        let ptr = self
            .b
            .load(Scalar::Ptr, d, offset_of!(MemDesc, ptr) as i32)?;
        let bytes = self
            .b
            .load(Scalar::I64, d, offset_of!(MemDesc, bytes) as i32)?;
        let words = self.sk(SBin::UShr, bytes, 2)?;
        let cap = self.sconst(i32::MAX as i64)?;
        let small = self.b.scmp(true, words, cap)?;
        let words = self.b.sselect(small, words, cap)?;
        let desc = Desc { ptr, words };
        let r = match form {
            Inline::Words => self.words_inline(&m, &desc, args, writers)?,
            Inline::Size => self.size_inline(&m, d, bytes)?,
            Inline::Words32 { .. } | Inline::Rgba8 => {
                self.image_inline(&m, form, &desc, d, args, writers)?
            }
        };
        for (&v, &x) in vars.iter().zip(&r) {
            let x = self.b.cast(x, kind)?;
            self.b.def_vector(v, x)?;
        }
        self.b.jump(join)?;

        self.b.switch_to(call)?;
        let r = self.memory_call(index, &m, args, writers)?;
        for (&v, &x) in vars.iter().zip(&r) {
            let x = self.b.cast(x, kind)?;
            self.b.def_vector(v, x)?;
        }
        self.b.jump(join)?;

        self.b.switch_to(join)?;
        let r: Vec<B::V> = vars
            .iter()
            .map(|&v| self.b.use_vector(v))
            .collect::<R<_>>()?;
        self.memory_results(&m, args, results, writers, r)
    }

    /// The lanes a STORE or an atomic changes memory for: the executing ones, but a fragment
    /// shader's helper invocations and discarded fragments (the code keeps both in its
    /// arguments' bits as it goes). Loads and RESQ: the executing lanes.
    fn writers(&mut self, m: &MemAccess) -> R<B::V> {
        let exec = self.exec()?;
        if !(m.writes() && self.f.processor == Processor::Fragment) {
            return Ok(exec);
        }
        let args = self.b.args();
        let killed = self
            .b
            .load(Scalar::I64, args, offset_of!(JitArgs, killed) as i32)?;
        let helpers = self
            .b
            .load(Scalar::I64, args, offset_of!(JitArgs, helpers) as i32)?;
        let out = self.b.sbin(SBin::Or, killed, helpers)?;
        let out = self.b.sbin(SBin::UShr, out, self.p.lane0)?;
        let out = self.b.mask_from_bits(out)?;
        self.b.ibin(IBin::AndNot, exec, out)
    }

    /// Sets the instruction's results from what the access gave: an atomic's lanes that
    /// change nothing keep the operand (tgsi_exec's register); the others as given.
    fn memory_results(
        &mut self,
        m: &MemAccess,
        args: &[ir::Value],
        results: &[ir::Value],
        writers: B::V,
        r: Vec<B::V>,
    ) -> R<()> {
        for (k, (&res, x)) in results.iter().zip(r).enumerate() {
            let x = if m.opcode.is_atomic() && k == 0 {
                let operand = self.get_bits(args[m.coords()])?;
                let x = self.b.cast(x, Kind::I32)?;
                let operand = self.b.cast(operand, Kind::I32)?;
                self.b.select(writers, x, operand)?
            } else {
                x
            };
            self.set(res, x)?;
        }
        Ok(())
    }

    /// Whether every lane of the step can take the code's own path (a condition): buffer
    /// and shared offsets whole words; for a STORE of more than one word, the executing
    /// lanes' offsets equal to lane 0's modulo the store's span (rounded up to a power of
    /// two words), so that two lanes write the same words or none of each other's and
    /// scatters channel by channel keep lane order.
    fn lanes_fit(&mut self, m: &MemAccess, args: &[ir::Value]) -> R<B::S> {
        let yes = self.b.sconst(Scalar::I64, 1)?;
        let no = self.b.sconst(Scalar::I64, 0)?;
        let o = self.get_bits(args[0])?;
        let o = self.b.cast(o, Kind::I32)?;
        let exec = self.exec()?;
        let mut bad = self.ik(IBin::And, o, 3)?;
        let mask = m.mask & 0xF;
        if m.opcode == Opcode::Store && mask.count_ones() > 1 {
            // Channels lo..hi: lanes whose offsets differ by a multiple of the aligned span
            // share all of their words or none.
            let span = (8 - mask.leading_zeros()) - mask.trailing_zeros();
            let align = 4 * span.next_power_of_two();
            let first = self.b.extract(o, 0)?;
            let first = self.b.splat(first)?;
            let diff = self.b.ibin(IBin::Xor, o, first)?;
            let diff = self.ik(IBin::And, diff, align - 1)?;
            bad = self.b.ibin(IBin::Or, bad, diff)?;
        }
        let z = self.iconst(0)?;
        let bad = self.b.icmp(ICmp::Ne, bad, z)?;
        let bad = self.b.ibin(IBin::And, bad, exec)?;
        let any = self.b.any(bad)?;
        // `any ? no : yes` as a condition.
        let fits = self.b.sselect(any, no, yes)?;
        self.b.scmp(false, fits, no)
    }

    /// LOAD, STORE or an atomic of a buffer or shared memory at whole-word offsets.
    fn words_inline(
        &mut self,
        m: &MemAccess,
        d: &Desc<B::S>,
        args: &[ir::Value],
        writers: B::V,
    ) -> R<Vec<B::V>> {
        let o = self.get_bits(args[0])?;
        let o = self.b.cast(o, Kind::I32)?;
        let i = self.b.shift_imm(Shift::ShrU, o, 2)?;
        // Lane `l` may touch words i..i+n when i + n ≤ words, that is i < words − n + 1.
        let below = |s: &mut Self, n: u32| -> R<B::V> {
            let t = s.sk(SBin::Add, d.words, 1 - n as i64)?;
            let t = s.b.sconvert(t, Scalar::I32, false)?;
            let t = s.b.splat(t)?;
            s.b.icmp(ICmp::SLt, i, t)
        };
        let z = self.iconst(0)?;
        match m.opcode {
            Opcode::Load => {
                let n = m.words() as u32;
                let ok = below(self, n)?;
                let exec = self.exec()?;
                let ok = self.b.ibin(IBin::And, ok, exec)?;
                // No lane reads past the words; with none that fit, none reads at all.
                let small = {
                    let n64 = self.sconst(n as i64)?;
                    self.b.scmp(true, d.words, n64)
                }?;
                let base = self.b.sselect(small, self.p.zeros, d.ptr)?;
                let at = self.b.select(ok, i, z)?;
                let mut out = Vec::with_capacity(4);
                for c in 0..4 {
                    if c < n {
                        let w = self.ik(IBin::Add, at, c)?;
                        let x = self.b.gather(Kind::I32, base, w)?;
                        out.push(self.b.select(ok, x, z)?);
                    } else {
                        out.push(z);
                    }
                }
                Ok(out)
            }
            Opcode::Store => {
                let spare = self.scratch(0)?;
                for c in 0..4u32 {
                    if m.mask & (1 << c) == 0 {
                        continue;
                    }
                    let ok = below(self, c + 1)?;
                    let ok = self.b.ibin(IBin::And, ok, writers)?;
                    let w = self.ik(IBin::Add, i, c)?;
                    let w = self.b.select(ok, w, z)?;
                    let v = self.get_bits(args[1 + c as usize])?;
                    let v = self.b.cast(v, Kind::I32)?;
                    self.b.scatter(d.ptr, w, v, ok, spare)?;
                }
                Ok(Vec::new())
            }
            _ => {
                let ok = below(self, 1)?;
                let ok = self.b.ibin(IBin::And, ok, writers)?;
                let same = self.is_uniform(args[0]);
                let old = self.atomics(m, (d.ptr, i, ok), same, args)?;
                Ok(vec![old])
            }
        }
    }

    /// The atomic `m` lane after lane on the words `w` after `ptr`, for the lanes of `ok`;
    /// the old values (0 in the other lanes). `same`: every lane names one word.
    fn atomics(
        &mut self,
        m: &MemAccess,
        (ptr, w, ok): (B::S, B::V, B::V),
        same: bool,
        args: &[ir::Value],
    ) -> R<B::V> {
        let c = m.coords();
        let a = self.get_bits(args[c])?;
        let a = self.b.cast(a, Kind::I32)?;
        let b = if m.opcode == Opcode::AtomCas {
            let b = self.get_bits(args[c + 1])?;
            Some(self.b.cast(b, Kind::I32)?)
        } else {
            None
        };
        let z = self.iconst(0)?;
        let spare = self.scratch(0)?;
        if same && m.opcode == Opcode::AtomUadd {
            return self.uniform_add((ptr, w, ok), a, spare);
        }
        let w = self.b.select(ok, w, z)?;
        let mut acc = z;
        for (l, wl) in self.b.lane_words(w)?.into_iter().enumerate() {
            let addr = self.b.word_addr(ptr, wl)?;
            let on = self.b.extract(ok, l)?;
            let addr = self.b.sselect(on, addr, spare)?;
            let al = self.b.extract(a, l)?;
            let old = match (atomic_op(m.opcode), b) {
                (Some(op), _) => self.b.atomic_rmw(op, addr, al)?,
                (None, Some(b)) => {
                    let bl = self.b.extract(b, l)?;
                    self.b.atomic_cas(addr, al, bl)?
                }
                (None, None) => {
                    return Err(
                        crate::back::abi::Invariant::NoLowering(format!("{:?}", m.opcode)).into(),
                    );
                }
            };
            acc = self.b.insert(acc, l, old)?;
        }
        self.b.select(ok, acc, z)
    }

    /// ATOMUADD of lanes that all name one word: one atomic addition of the executing lanes'
    /// sum, each lane's old value the word's plus the operands of the lanes before it, as
    /// adding lane after lane gives (a counter every invocation bumps: one locked
    /// instruction a step, not one a lane).
    fn uniform_add(&mut self, (ptr, w, ok): (B::S, B::V, B::V), a: B::V, spare: B::S) -> R<B::V> {
        let z = self.iconst(0)?;
        let zero = self.b.sconst(Scalar::I32, 0)?;
        let mut sum = zero;
        let mut before = z;
        for l in 0..self.b.lanes() {
            before = self.b.insert(before, l, sum)?;
            let on = self.b.extract(ok, l)?;
            let al = self.b.extract(a, l)?;
            let add = self.b.sselect(on, al, zero)?;
            sum = self.b.sbin(SBin::Add, sum, add)?;
        }
        let any = self.b.any(ok)?;
        let wl = self.b.extract(w, 0)?;
        let wl = self.b.sconvert(wl, Scalar::I64, false)?;
        let addr = self.b.word_addr(ptr, wl)?;
        let addr = self.b.sselect(any, addr, spare)?;
        let old = self.b.atomic_rmw(AtomicOp::Add, addr, sum)?;
        let old = self.b.splat(old)?;
        let r = self.b.ibin(IBin::Add, old, before)?;
        self.b.select(ok, r, z)
    }

    /// RESQ: a buffer's bytes (as a 32-bit word) in every component, an image's width,
    /// height, depth and 0.
    fn size_inline(&mut self, m: &MemAccess, d: B::S, bytes: B::S) -> R<Vec<B::V>> {
        if m.file != MemFile::Image {
            let b = self.b.sconvert(bytes, Scalar::I32, false)?;
            let v = self.b.splat(b)?;
            return Ok(vec![v; 4]);
        }
        let mut out = Vec::with_capacity(4);
        for a in 0..3 {
            let s = self
                .b
                .load(Scalar::I32, d, (offset_of!(MemDesc, size) + 4 * a) as i32)?;
            out.push(self.b.splat(s)?);
        }
        out.push(self.iconst(0)?);
        Ok(out)
    }

    /// LOAD, STORE or an atomic of an image: the texel index from the coordinates (those
    /// the target takes, each below its axis's size), then its words.
    fn image_inline(
        &mut self,
        m: &MemAccess,
        form: Inline,
        desc: &Desc<B::S>,
        d: B::S,
        args: &[ir::Value],
        writers: B::V,
    ) -> R<Vec<B::V>> {
        let mut inside: Option<B::V> = None;
        let mut index: Option<B::V> = None;
        let n = m.coords();
        // Texel `x + w·(y + h·z)`, built from the last axis down.
        for a in (0..n).rev() {
            let s = self
                .b
                .load(Scalar::I32, d, (offset_of!(MemDesc, size) + 4 * a) as i32)?;
            let s = self.b.splat(s)?;
            let c = self.get_bits(args[a])?;
            let c = self.b.cast(c, Kind::I32)?;
            let ok = self.b.icmp(ICmp::ULt, c, s)?;
            inside = Some(match inside {
                Some(m) => self.b.ibin(IBin::And, m, ok)?,
                None => ok,
            });
            index = Some(match index {
                Some(i) => {
                    let i = self.b.ibin(IBin::Mul, i, s)?;
                    self.b.ibin(IBin::Add, i, c)?
                }
                None => c,
            });
        }
        let (Some(inside), Some(index)) = (inside, index) else {
            return Err(crate::back::abi::Invariant::NoLowering(
                "an image without coordinates".into(),
            )
            .into());
        };
        let z = self.iconst(0)?;
        let tw = match form {
            Inline::Words32 { channels, .. } => channels as u32,
            _ => 1,
        };
        let w = self.ik(IBin::Mul, index, tw)?;
        let ptr = desc.ptr;
        match m.opcode {
            Opcode::Load => {
                let exec = self.exec()?;
                let ok = self.b.ibin(IBin::And, inside, exec)?;
                let w = self.b.select(ok, w, z)?;
                let mut out = Vec::with_capacity(4);
                match form {
                    Inline::Words32 { channels, integer } => {
                        for c in 0..4u32 {
                            if c < channels as u32 {
                                let wc = self.ik(IBin::Add, w, c)?;
                                let x = self.b.gather(Kind::I32, ptr, wc)?;
                                out.push(self.b.select(ok, x, z)?);
                            } else if c == 3 {
                                let one = self.iconst(if integer { 1 } else { ONE })?;
                                out.push(self.b.select(ok, one, z)?);
                            } else {
                                out.push(z);
                            }
                        }
                    }
                    _ => {
                        let x = self.b.gather(Kind::I32, ptr, w)?;
                        let scale = self.b.splat_const(Kind::F32, (1.0f32 / 255.0).to_bits())?;
                        for c in 0..4 {
                            let byte = self.b.shift_imm(Shift::ShrU, x, 8 * c)?;
                            let byte = self.ik(IBin::And, byte, 0xFF)?;
                            let f = self.b.int_to_float(byte, true)?;
                            let f = self.b.fbin(FBin::Mul, f, scale)?;
                            let f = self.b.cast(f, Kind::I32)?;
                            out.push(self.b.select(ok, f, z)?);
                        }
                    }
                }
                Ok(out)
            }
            Opcode::Store => {
                let ok = self.b.ibin(IBin::And, inside, writers)?;
                let w = self.b.select(ok, w, z)?;
                let spare = self.scratch(0)?;
                match form {
                    Inline::Words32 { channels, .. } => {
                        for c in 0..channels as u32 {
                            let wc = self.ik(IBin::Add, w, c)?;
                            let v = self.get_bits(args[n + c as usize])?;
                            let v = self.b.cast(v, Kind::I32)?;
                            self.b.scatter(ptr, wc, v, ok, spare)?;
                        }
                    }
                    _ => {
                        let mut word = z;
                        for c in 0..4 {
                            let v = self.get_bits(args[n + c])?;
                            let b = self.float_to_ubyte(v)?;
                            let b = self.b.shift_imm(Shift::Shl, b, 8 * c as u32)?;
                            word = self.b.ibin(IBin::Or, word, b)?;
                        }
                        self.b.scatter(ptr, w, word, ok, spare)?;
                    }
                }
                Ok(Vec::new())
            }
            _ => {
                let ok = self.b.ibin(IBin::And, inside, writers)?;
                let same = args[..n].iter().all(|&c| self.is_uniform(c));
                let old = self.atomics(m, (ptr, w, ok), same, args)?;
                Ok(vec![old])
            }
        }
    }

    /// util_format's `float_to_ubyte` per lane: 0 for NaN and up to 0, 255 from 1 up, else
    /// the low byte of `x · (255/256) + 32768` (two roundings, as Mesa computes it).
    fn float_to_ubyte(&mut self, v: B::V) -> R<B::V> {
        let x = self.b.cast(v, Kind::F32)?;
        let k = self
            .b
            .splat_const(Kind::F32, (255.0f32 / 256.0).to_bits())?;
        let big = self.b.splat_const(Kind::F32, 32768.0f32.to_bits())?;
        let t = self.b.fbin(FBin::Mul, x, k)?;
        let t = self.b.fbin(FBin::Add, t, big)?;
        let t = self.b.cast(t, Kind::I32)?;
        let t = self.ik(IBin::And, t, 0xFF)?;
        let zero = self.b.splat_const(Kind::F32, 0)?;
        let one = self.b.splat_const(Kind::F32, ONE)?;
        let full = self.iconst(0xFF)?;
        let z = self.iconst(0)?;
        let ge1 = self.b.fcmp(FCmp::Ge, x, one)?;
        let t = self.b.select(ge1, full, t)?;
        let pos = self.b.fcmp(FCmp::Gt, x, zero)?;
        self.b.select(pos, t, z)
    }

    /// A memory instruction through the host's callback, for the lanes of `writers` (loads:
    /// the executing lanes) in lane order: the arguments and results pass through the
    /// scratch area.
    fn memory_call(
        &mut self,
        index: usize,
        m: &MemAccess,
        args: &[ir::Value],
        writers: B::V,
    ) -> R<Vec<B::V>> {
        let kind = if m.integer_results() {
            Kind::I32
        } else {
            Kind::F32
        };
        let count = self.spill_args(args)?;
        let n = self.b.lanes() as i64;
        if m.indirect {
            // The register every lane addresses: the first executing lane's.
            let regs = self.get(args[count - 1])?;
            let exec = self.exec()?;
            let mut r = self.b.extract(regs, n as usize - 1)?;
            for l in (0..n as usize - 1).rev() {
                let on = self.b.extract(exec, l)?;
                let x = self.b.extract(regs, l)?;
                r = self.b.sselect(on, x, r)?;
            }
            let r = self.b.splat(r)?;
            let p = self.scratch((count as i64 - 1) * n)?;
            self.b.store_vector(p, r)?;
        }
        let idx = self.b.sconst(Scalar::I32, index as i64)?;
        let argp = self.scratch(0)?;
        let outp = self.scratch(count as i64 * n)?;
        let [_, lane0, lanes] = self.lane_args()?;
        let mask = self.b.mask_bits(writers)?;
        let callee = Callee::Memory(self.p.memory);
        self.b.call(
            callee,
            &[self.p.callbacks, idx, argp, outp, mask, lane0, lanes],
        )?;
        (0..m.results())
            .map(|k| {
                let p = self.scratch((count + k) as i64 * n)?;
                self.b.load_vector(kind, p)
            })
            .collect()
    }

    /// A barrier: the host's callback, which returns once every invocation of the work group
    /// has reached it (the lanes of the mask are this step's).
    pub(super) fn barrier(&mut self) -> R<()> {
        let idx = self
            .b
            .sconst(Scalar::I32, crate::back::abi::BARRIER_CALL as i64)?;
        let p = self.scratch(0)?;
        let [mask, lane0, lanes] = self.lane_args()?;
        let callee = Callee::Memory(self.p.memory);
        self.b
            .call(callee, &[self.p.callbacks, idx, p, p, mask, lane0, lanes])
    }
}
