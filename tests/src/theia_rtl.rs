//! The THEIA simulator against THEIA's own b1.2 RTL (`../shared/theia-rtl`) under Icarus Verilog.
//!
//! - [`Rtl::build`] copies the RTL folder into a work directory (its scripts write beside
//!   themselves) and builds the harness (`harness/build.sh`: the RTL's execution and memory
//!   units, a program image at 0x8000, initial registers, every register dumped at the end).
//! - [`Rtl::run`] runs one image through `vvp` on the two race-free variants of the RTL,
//!   `rtl_nba` and `rtl_fix`: the untouched RTL races under Icarus (clocked blocks assign with
//!   blocking `=` what other blocks read on the same edge), and the two variants settle those
//!   races in two orders.
//! - [`compare`] runs the same image in the simulator and walks the three logs of register
//!   writes (address and value, in execution order) side by side. While the two variants agree
//!   with each other, the simulator must write what they write. From the first write where the
//!   variants differ (or give X) on, the RTL does not define what happens, and the rest is
//!   counted as racy, not compared. (Comparing only the registers' final values where the
//!   variants agree is weaker: two different race outcomes can end in the same value, e.g.
//!   one variant drops a SETZ immediate and the other samples MOD's adder late, and both
//!   zeros reach a DOT; such coincidences are not RTL behaviour.)
//! - [`targeted`], [`random_arith`] and [`random_jumps`] generate programs, [`compiled`] turns
//!   corpus shaders compiled by the code generator into programs (one per pixel).

use crate::random::Source;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use tgsic_theia::isa::{Binary, Layout, assemble, register_address, write_mem};
use tgsic_theia::sim::{Entry, Machine, SimError, Source as Operand, Write};

/// One register: x, y, z as raw Q15.17 words.
pub type Vec3 = [u32; 3];

/// The RTL variants a difference must agree on.
pub const VARIANTS: [&str; 2] = ["rtl_nba", "rtl_fix"];

/// What the simulator must do with a program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// Run it and agree with the RTL.
    Agree,
    /// Refuse it with a trap (JMP in IMEM, MULP before a Type I word): the RTL runs it, but
    /// into the ROM or with timing-dependent values, as docs/theia.md says.
    Refused,
    /// Refuse it with a trap, and the RTL hangs on it (both variants time out).
    Hangs,
}

/// One program with its initial registers.
#[derive(Debug, Clone)]
pub struct Program {
    /// A name for reports (`arith_017`, `mesa/x.tgsi pixel 3`).
    pub name: String,
    /// The image (a `.mem` layout: entry table at 0x8000).
    pub binary: Binary,
    /// Registers set before USERCONSTANTS runs.
    pub inputs: Vec<(u16, Vec3)>,
    /// What the simulator must do.
    pub expect: Expect,
}

impl Program {
    /// Assembles `source` (`.shdr` syntax, `.mem` layout).
    ///
    /// # Panics
    /// When the source does not assemble (the generators' sources always do).
    pub fn asm(name: &str, source: &str, inputs: Vec<(u16, Vec3)>, expect: Expect) -> Program {
        let image = assemble(source, Layout::Mem)
            .unwrap_or_else(|e| panic!("{name} does not assemble: {e}\n{source}"));
        Program {
            name: name.into(),
            binary: image,
            inputs,
            expect,
        }
    }
}

/// One register write: the routine's entry slot (9 USERCONSTANTS, 10 PIXELSHADER), the
/// address, and the value (`None` for a component with X or Z bits).
pub type Logged = (u8, u16, [Option<u32>; 3]);

/// The end of one RTL run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RtlRun {
    /// Every register write, in order.
    pub writes: Vec<Logged>,
    /// Registers 0–255 at the end; `None` for a component with X or Z bits.
    pub regs: Vec<[Option<u32>; 3]>,
    /// PIXELSHADER's RETURN flag, when it returned.
    pub returned: Option<bool>,
    /// False when a routine did not finish within the cycle limit.
    pub finished: bool,
}

/// The harness, built.
#[derive(Debug)]
pub struct Rtl {
    dir: PathBuf,
}

/// Whether the tools the harness needs are installed (`iverilog`, `vvp`, `python3`, `bash`).
pub fn tools_present() -> Result<(), String> {
    for (tool, arg) in [
        ("iverilog", "-V"),
        ("vvp", "-V"),
        ("python3", "--version"),
        ("bash", "--version"),
    ] {
        let ok = Command::new(tool)
            .arg(arg)
            .output()
            .is_ok_and(|o| o.status.success() || !o.stdout.is_empty());
        if !ok {
            return Err(format!(
                "`{tool}` is not installed (apt-get install -y iverilog python3)"
            ));
        }
    }
    Ok(())
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let target = to.join(e.file_name());
        if e.file_type()?.is_dir() {
            copy_dir(&e.path(), &target)?;
        } else {
            std::fs::copy(e.path(), &target)?;
            let mut perm = std::fs::metadata(&target)?.permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perm.set_readonly(false);
            std::fs::set_permissions(&target, perm)?;
        }
    }
    Ok(())
}

impl Rtl {
    /// Copies `rtl` (the `theia-rtl` folder) into `work` (emptied first) and builds the harness
    /// for both variants.
    ///
    /// # Errors
    /// A message when a tool is missing, the copy fails or the build does not produce the
    /// simulations.
    pub fn build(rtl: &Path, work: &Path) -> Result<Rtl, String> {
        tools_present()?;
        if work.exists() {
            std::fs::remove_dir_all(work).map_err(|e| format!("{}: {e}", work.display()))?;
        }
        copy_dir(rtl, work).map_err(|e| format!("copying {}: {e}", rtl.display()))?;
        let out = Command::new("bash")
            .arg("harness/build.sh")
            .current_dir(work)
            .output()
            .map_err(|e| format!("harness/build.sh: {e}"))?;
        for v in VARIANTS {
            let vvp = work.join(format!("harness/tb_{v}.vvp"));
            if !vvp.exists() {
                return Err(format!(
                    "harness/build.sh did not build {}:\n{}{}",
                    vvp.display(),
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
        std::fs::create_dir_all(work.join("progs")).map_err(|e| e.to_string())?;
        Ok(Rtl {
            dir: work.to_path_buf(),
        })
    }

    /// Runs `p` on `variant` (USERCONSTANTS, then PIXELSHADER, as the control unit does),
    /// each routine within `max_cycles`.
    ///
    /// # Errors
    /// A message when the files cannot be written or `vvp` cannot run or prints no dump.
    pub fn run(&self, p: &Program, variant: &str, max_cycles: u64) -> Result<RtlRun, String> {
        let stem: String = p
            .name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let mem = self.dir.join(format!("progs/{stem}.{variant}.mem"));
        let init = self.dir.join(format!("progs/{stem}.{variant}.init"));
        let text = write_mem(&p.binary).map_err(|e| format!("{}: {e}", p.name))?;
        std::fs::write(&mem, text).map_err(|e| e.to_string())?;
        let mut regs = String::new();
        for (a, v) in &p.inputs {
            let _ = writeln!(regs, "{a:x} {:08x} {:08x} {:08x}", v[0], v[1], v[2]);
        }
        std::fs::write(&init, regs).map_err(|e| e.to_string())?;
        let out = Command::new("vvp")
            .arg("-n")
            .arg(self.dir.join(format!("harness/tb_{variant}.vvp")))
            .arg(format!("+PROG={}", mem.display()))
            .arg(format!("+INIT={}", init.display()))
            .arg(format!("+MAXCYC={max_cycles}"))
            .output()
            .map_err(|e| format!("vvp: {e}"))?;
        // THEIA_RTL_KEEP=1 keeps each program's image and registers for a closer look.
        if std::env::var_os("THEIA_RTL_KEEP").is_none() {
            let _ = std::fs::remove_file(&mem);
            let _ = std::fs::remove_file(&init);
        }
        parse_rtl(&String::from_utf8_lossy(&out.stdout))
            .ok_or_else(|| format!("{} on {variant}: vvp printed no register dump", p.name))
    }
}

/// Reads the harness's output: `W slot address x y z` per register write, `R slot index cycles
/// flag done|TIMEOUT` per routine and `D address x y z` per register at the end.
fn parse_rtl(out: &str) -> Option<RtlRun> {
    let mut run = RtlRun {
        writes: Vec::new(),
        regs: vec![[None; 3]; 256],
        returned: None,
        finished: true,
    };
    let mut dumped = 0;
    for line in out.lines() {
        let t: Vec<&str> = line.split_whitespace().collect();
        match t.as_slice() {
            ["R", slot, _, _, flag, state] => {
                if *state != "done" {
                    run.finished = false;
                }
                if *slot == "10" {
                    run.returned = Some(*flag == "1");
                }
            }
            ["W", slot, a, x, y, z] => {
                let word = |s: &str| u32::from_str_radix(s, 16).ok();
                run.writes.push((
                    slot.parse().ok()?,
                    u16::from_str_radix(a, 16).ok()?,
                    [word(x), word(y), word(z)],
                ));
            }
            ["D", a, x, y, z] => {
                let a = usize::from_str_radix(a, 16).ok()?;
                let word = |s: &str| u32::from_str_radix(s, 16).ok();
                *run.regs.get_mut(a)? = [word(x), word(y), word(z)];
                dumped += 1;
            }
            _ => {}
        }
    }
    (dumped == 256).then_some(run)
}

/// The simulator's end of a program.
#[derive(Debug, Clone)]
pub enum SimRun {
    /// Every register write (dropped ones included, as the RTL logs them) with its routine's
    /// slot, PIXELSHADER's RETURN flag and the cycles of both routines by the manual's
    /// latencies.
    Done(Vec<(u8, Write)>, bool, u64),
    /// It stopped with an error.
    Stopped(SimError),
}

/// Runs `p` in the simulator as the harness runs the RTL: inputs set, USERCONSTANTS (when its
/// slot points into the image; the ROM's is `NOP`, `RETURN RT_TRUE` and leaves the machine as
/// it starts), then PIXELSHADER.
pub fn simulate(p: &Program, max_steps: u64) -> SimRun {
    let mut m = Machine::new(p.binary.clone());
    m.max_steps = max_steps;
    for &(a, v) in &p.inputs {
        m.set(a, v);
    }
    match run_routines(&mut m) {
        Ok((writes, returned)) => SimRun::Done(writes, returned, m.cycles),
        Err(e) => SimRun::Stopped(e),
    }
}

fn run_routines(m: &mut Machine) -> Result<(Vec<(u8, Write)>, bool), SimError> {
    let mut writes = Vec::new();
    let uc = m.resolve(Entry::Slot(9))?;
    if m.binary().fetch(uc).is_some() {
        let o = m.run(Entry::Address(uc))?;
        writes.extend(o.writes.iter().map(|&w| (9, w)));
    } else {
        // The ROM's USERCONSTANTS (NOP, RETURN RT_TRUE) writes (1, 1, 1) to VOID, and leaves
        // the machine as it starts.
        writes.push((
            9,
            Write {
                address: 0,
                value: [1, 1, 1],
                kept: false,
                step: 1,
                reads: [None, Some(Operand::Register(0))],
            },
        ));
    }
    let o = m.run(Entry::Slot(10))?;
    writes.extend(o.writes.iter().map(|&w| (10, w)));
    Ok((writes, o.returned))
}

/// What [`compare`] found for one program.
#[derive(Debug, Clone, Default)]
pub struct Verdict {
    /// Differences both variants agree on, and broken expectations.
    pub mismatches: Vec<String>,
    /// Register components written the same by both variants and compared.
    pub compared: usize,
    /// Writes not compared: the variants disagree (or give X) on them, they were computed from
    /// such a write, or they follow the point where the variants' paths part.
    pub racy: usize,
    /// The simulator refused the program (as expected).
    pub refused: bool,
    /// The first write not compared, and why (for `THEIA_RTL_ONLY` reports).
    pub first_racy: Option<String>,
    /// Whether the simulator wrote exactly what each variant wrote, from start to end.
    pub same_log: [bool; 2],
}

/// Compares the simulator with both RTL variants (`rtl[k]` ran on [`VARIANTS`]`[k]`).
pub fn compare(p: &Program, rtl: &[RtlRun; 2], sim: &SimRun) -> Verdict {
    let mut v = Verdict::default();
    let name = &p.name;
    let hung = [!rtl[0].finished, !rtl[1].finished];
    match (p.expect, sim) {
        (Expect::Refused | Expect::Hangs, SimRun::Stopped(SimError::Trap { .. })) => {
            v.refused = true;
            if p.expect == Expect::Hangs && hung != [true, true] {
                v.mismatches.push(format!(
                    "{name}: the simulator says the core hangs; the RTL finishes (rtl_nba {}, rtl_fix {})",
                    !hung[0], !hung[1]
                ));
            }
            return v;
        }
        (Expect::Refused | Expect::Hangs, _) => {
            v.mismatches.push(format!(
                "{name}: the simulator should refuse it, and did not"
            ));
            return v;
        }
        (Expect::Agree, SimRun::Stopped(SimError::StepLimit { .. })) if hung == [true, true] => {
            return v;
        }
        (Expect::Agree, SimRun::Stopped(e)) => {
            v.mismatches
                .push(format!("{name}: the simulator stopped: {e}"));
            return v;
        }
        (Expect::Agree, SimRun::Done(..)) => {}
    }
    let SimRun::Done(writes, returned, _) = sim else {
        return v;
    };
    if hung == [true, true] {
        v.mismatches
            .push(format!("{name}: the RTL hangs, the simulator returns"));
        return v;
    }
    let (a, b) = (&rtl[0].writes, &rtl[1].writes);
    // Whether the simulator's whole log is one variant's (for the report; not a criterion).
    for (k, log) in [a, b].into_iter().enumerate() {
        v.same_log[k] = log.len() == writes.len()
            && !rtl[k].regs.is_empty()
            && log.iter().zip(writes).all(|(&(slot, addr, val), &(s, w))| {
                (slot, addr) == (s, w.address) && val == w.value.map(Some)
            });
    }
    // Whether each register's last write is one the RTL defines (both variants wrote the same
    // value, computed from defined operands); registers start defined (the inputs).
    let mut defined = [true; 128];
    // Whether every write so far was defined and compared.
    let mut clean = true;
    // Whether the previous write was defined (what a forwarded operand reads).
    let mut last_ok = true;
    let mut k = 0;
    while let (Some(&(slot, addr, va)), Some(&(slot_b, addr_b, vb))) = (a.get(k), b.get(k)) {
        if (slot, addr) != (slot_b, addr_b) {
            // The variants took different paths: nothing after this is defined.
            break;
        }
        let Some(&(s, w)) = writes.get(k) else {
            if clean {
                v.mismatches.push(format!(
                    "{name}: the RTL writes {} in routine {slot} after the simulator's last write",
                    tgsic_theia::sim::address_name(addr)
                ));
            }
            return v;
        };
        if (s, w.address) != (slot, addr) {
            if clean {
                v.mismatches.push(format!(
                    "{name}: write {k}: the RTL writes {} in routine {slot}, the simulator {} in routine {s}",
                    tgsic_theia::sim::address_name(addr),
                    tgsic_theia::sim::address_name(w.address)
                ));
            }
            return v;
        }
        // The operands: a register's last write, or the previous instruction's result (its
        // write, or the 0 of a jump or NOP, which is defined).
        let forwarded = match k.checked_sub(1).and_then(|j| writes.get(j)) {
            Some(&(ps, pw)) if (ps == s && pw.step + 1 == w.step) || w.step == 0 => last_ok,
            _ => true,
        };
        let inputs = w.reads.iter().flatten().all(|r| match r {
            Operand::Register(x) => defined[*x as usize & 0x7F],
            Operand::Forwarded => forwarded,
        });
        let rtl_defined = va == vb && va.iter().all(Option::is_some);
        let ok = rtl_defined && inputs;
        if ok {
            let want = va.map(|c| c.unwrap_or(0));
            v.compared += 3;
            if want != w.value {
                v.mismatches.push(format!(
                    "{name}: write {k}: the RTL writes {} = {want:08x?} in routine {slot}, the simulator {:08x?}",
                    tgsic_theia::sim::address_name(addr),
                    w.value
                ));
                return v;
            }
        } else {
            v.racy += 1;
            if clean {
                v.first_racy = Some(format!(
                    "write {k} (step {} of routine {slot}) to {}: rtl_nba {va:08x?}, rtl_fix {vb:08x?}, simulator {:08x?}{}",
                    w.step,
                    tgsic_theia::sim::address_name(addr),
                    w.value,
                    if inputs { "" } else { " (operands undefined)" }
                ));
            }
            clean = false;
        }
        if (addr as usize) < 128 {
            defined[addr as usize] = ok;
        }
        last_ok = ok;
        k += 1;
    }
    let finished = k == a.len() && k == b.len() && !hung.contains(&true);
    if !finished {
        v.racy += a.len().max(b.len()) - k;
    } else if clean {
        // The RTL is defined to the end: the simulator writes nothing more, and returns the same.
        if writes.len() > k {
            v.mismatches.push(format!(
                "{name}: the simulator writes {} more registers than the RTL",
                writes.len() - k
            ));
        }
        if rtl[0].returned == rtl[1].returned && rtl[0].returned != Some(*returned) {
            v.mismatches.push(format!(
                "{name}: PIXELSHADER returned {:?} in the RTL, {returned} in the simulator",
                rtl[0].returned
            ));
        }
    }
    v
}

/// The sum of many [`Verdict`]s.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Programs run.
    pub programs: usize,
    /// Programs the simulator refused, as expected.
    pub refused: usize,
    /// Register components written and compared.
    pub compared: usize,
    /// Writes not compared (see [`Verdict::racy`]).
    pub racy: usize,
    /// Programs where the variants disagree.
    pub racy_programs: usize,
    /// Every mismatch.
    pub mismatches: Vec<String>,
    /// Per program with writes not compared, the first of them.
    pub first_racy: Vec<String>,
    /// Programs the simulator ran whose whole write log is `rtl_nba`'s, and `rtl_fix`'s.
    pub same_log: [usize; 2],
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} programs ({} refused as documented), {} written register components compared, \
             {} writes not compared (the two RTL variants disagree on them or on what they \
             read) in {} programs, {} mismatches; the whole write log is rtl_nba's in {} \
             programs and rtl_fix's in {}",
            self.programs,
            self.refused,
            self.compared,
            self.racy,
            self.racy_programs,
            self.mismatches.len(),
            self.same_log[0],
            self.same_log[1]
        )
    }
}

/// Runs every program on both variants and in the simulator, on all cores.
///
/// # Errors
/// The first harness failure (a file or `vvp` problem), not a mismatch.
pub fn check(rtl: &Rtl, programs: &[Program], max_cycles: u64) -> Result<Report, String> {
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let results: Vec<Result<Vec<(usize, Verdict)>, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        let Some(p) = programs.get(k) else {
                            return Ok(mine);
                        };
                        let sim = simulate(p, max_cycles);
                        // The RTL's cycles are within a small factor of the manual's latencies
                        // the simulator counts; a hang is found sooner with a tighter limit.
                        let cycles = match &sim {
                            SimRun::Done(_, _, c) => (4 * c + 5_000).min(max_cycles),
                            SimRun::Stopped(_) => 5_000,
                        };
                        let runs = [
                            rtl.run(p, VARIANTS[0], cycles)?,
                            rtl.run(p, VARIANTS[1], cycles)?,
                        ];
                        mine.push((k, compare(p, &runs, &sim)));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a worker panicked".into())))
            .collect()
    });
    let mut all = Vec::new();
    for r in results {
        all.extend(r?);
    }
    all.sort_by_key(|(k, _)| *k);
    let mut report = Report::default();
    for (_, v) in all {
        report.programs += 1;
        report.refused += v.refused as usize;
        report.compared += v.compared;
        report.racy += v.racy;
        report.racy_programs += (v.racy > 0) as usize;
        report.mismatches.extend(v.mismatches);
        report.same_log[0] += v.same_log[0] as usize;
        report.same_log[1] += v.same_log[1] as usize;
        if let Some(r) = v.first_racy {
            report
                .first_racy
                .push(format!("{}: {r}", programs[report.programs - 1].name));
        }
    }
    Ok(report)
}

fn reg(name: &str) -> u16 {
    register_address(name).unwrap_or_else(|| panic!("{name} is a register"))
}

/// Operand values: the edges of Q15.17 and of the multiplier, moderate values, small integers,
/// tiny values and raw words.
fn value(r: &mut impl Source) -> u32 {
    const EDGES: [u32; 24] = [
        0,
        0x0002_0000,
        0xFFFE_0000,
        0x7FFF_FFFF,
        0x8000_0000,
        0x8000_0001,
        0x5555_5555,
        0x5555_5556,
        0xAAAA_AAAB,
        0x2AAA_AAAA,
        1,
        0xFFFF_FFFF,
        2,
        0x0001_0000,
        0xFFFF_0000,
        0x0000_8000,
        0x0100_0000,
        0x0040_0000,
        0x7FFE_0000,
        0x0003_0000,
        0xFFFD_0000,
        0x0000_FFFF,
        0x4000_0000,
        0xC000_0000,
    ];
    match r.below(20) {
        0..=7 => EDGES[r.below(EDGES.len() as u64) as usize],
        8..=11 => (r.below(1 << 24) as i64 - (1 << 23)) as u32,
        12..=14 => ((r.below(81) as i32 - 40) << 17) as u32,
        15..=16 => (r.below(129) as i32 - 64) as u32,
        _ => r.bits() as u32,
    }
}

const RW: [&str; 24] = [
    "R1",
    "R2",
    "R3",
    "R4",
    "R5",
    "R6",
    "R7",
    "R8",
    "R9",
    "R10",
    "R11",
    "R12",
    "C1",
    "C2",
    "C3",
    "C4",
    "C5",
    "C6",
    "C7",
    "CREG_TEXTURE_COLOR",
    "CREG_V0",
    "CREG_E1",
    "CREG_UV1",
    "CREG_COLOR_ACC",
];
/// Configuration registers: readable, their writes dropped.
const CONFIG: [&str; 2] = ["CREG_CAMERA_POSITION", "CREG_RESOLUTION"];
const OUTPUTS: [&str; 2] = ["OREG_PIXEL_COLOR", "OREG_TEX_COORD1"];
const OPS3: [&str; 9] = [
    "ADD", "SUB", "MUL", "DIV", "CROSS", "DOT", "MOD", "XCHANGEX", "IMUL",
];
const OPS1: [&str; 10] = [
    "MAG", "COPY", "NEG", "INC", "DEC", "INCX", "INCY", "INCZ", "FRAC", "UNSCALE",
];
const SWIZZLES: [&str; 6] = [
    "SWIZZLE_XXX",
    "SWIZZLE_YYY",
    "SWIZZLE_ZZZ",
    "SWIZZLE_YXZ",
    "SWIZZLE_XYY",
    "SWIZZLE_ZXZ",
];
const CONDITIONS: [&str; 6] = ["JG", "JL", "JEQ", "JNE", "JGE", "JLE"];

fn pick<'a>(r: &mut impl Source, from: &[&'a str]) -> &'a str {
    from[r.below(from.len() as u64) as usize]
}

fn source(r: &mut impl Source) -> &'static str {
    if r.below(10) == 0 {
        pick(r, &CONFIG)
    } else {
        pick(r, &RW)
    }
}

fn destination(r: &mut impl Source) -> &'static str {
    if r.below(12) == 0 {
        pick(r, &OUTPUTS)
    } else {
        pick(r, &RW)
    }
}

/// One random straight-line instruction (MULP is always followed by a SET*, the only place
/// its X and Y are defined).
fn instruction(r: &mut impl Source) -> String {
    match r.below(40) {
        0..=17 => format!(
            "{} {} {} {}",
            pick(r, &OPS3),
            destination(r),
            source(r),
            source(r)
        ),
        18..=28 => format!("{} {} {} VOID", pick(r, &OPS1), destination(r), source(r)),
        29..=33 => format!(
            "{} {} 32'h{:08X}",
            pick(r, &["SETX", "SETY", "SETZ"]),
            pick(r, &RW),
            value(r)
        ),
        34..=36 => format!("SWIZZLE3D {} {}", pick(r, &RW), pick(r, &SWIZZLES)),
        37 => format!(
            "MULP {} {} VOID\n  SETX {} 32'h{:08X}",
            destination(r),
            source(r),
            pick(r, &RW),
            value(r)
        ),
        38 => format!("ZERO {} VOID VOID", destination(r)),
        _ => "NOP RT_FALSE".into(),
    }
}

/// Random values for every register a source names (outputs excluded).
fn inputs_for(r: &mut impl Source, source: &str) -> Vec<(u16, Vec3)> {
    let mut names: Vec<&str> = RW.iter().chain(&CONFIG).copied().collect();
    names.retain(|n| source.split(|c: char| c.is_whitespace()).any(|t| t == *n));
    names
        .into_iter()
        .map(|n| (reg(n), [value(r), value(r), value(r)]))
        .collect()
}

/// `n` random straight-line programs of 3 to 12 instructions; one in five does part of its
/// work in USERCONSTANTS.
pub fn random_arith(r: &mut impl Source, n: usize) -> Vec<Program> {
    (0..n)
        .map(|k| {
            let body: Vec<String> = (0..3 + r.below(10)).map(|_| instruction(r)).collect();
            let ret = if r.below(6) == 0 {
                "RETURN RT_FALSE"
            } else {
                "RETURN RT_TRUE"
            };
            let mut src = String::new();
            let split = if r.below(5) == 0 {
                1 + r.below(body.len() as u64 - 1) as usize
            } else {
                0
            };
            if split > 0 {
                src.push_str("ENTRYPOINT_ADRR_USERCONSTANTS:\n");
                for l in &body[..split] {
                    let _ = writeln!(src, "  {l}");
                }
                src.push_str("  RETURN RT_TRUE\n");
            }
            src.push_str("ENTRYPOINT_ADRR_PIXELSHADER:\n");
            for l in &body[split..] {
                let _ = writeln!(src, "  {l}");
            }
            let _ = writeln!(src, "  {ret}");
            let inputs = inputs_for(r, &src);
            Program::asm(&format!("arith_{k:03}"), &src, inputs, Expect::Agree)
        })
        .collect()
}

/// `n` random programs of forward conditional jumps (and the code generator's always-true
/// `JEQX L VOID VOID`) with marker writes between them, some ending in a bounded loop.
pub fn random_jumps(r: &mut impl Source, n: usize) -> Vec<Program> {
    const CMP: [&str; 6] = ["R1", "R2", "R3", "R4", "R5", "R6"];
    const CMP_VALUES: [u32; 12] = [
        0,
        0x20000,
        0xFFFE_0000,
        5,
        0xFFFF_FFFB,
        0x8000_0000,
        0x7FFF_FFFF,
        0x8000_0001,
        0x5555_5555,
        0x30000,
        1,
        0xFFFF_FFFF,
    ];
    (0..n)
        .map(|k| {
            let blocks = 2 + r.below(4);
            let mut src = String::from("ENTRYPOINT_ADRR_PIXELSHADER:\n");
            for b in 0..blocks {
                let target = b + 1 + r.below(blocks - b);
                if r.below(6) == 0 {
                    let _ = writeln!(src, "  JEQX L{target} VOID VOID");
                } else {
                    let a = pick(r, &CMP);
                    let c = if r.below(10) == 0 { a } else { pick(r, &CMP) };
                    let cond = pick(r, &CONDITIONS);
                    let lane = pick(r, &["X", "Y", "Z"]);
                    let _ = writeln!(src, "  {cond}{lane} L{target} {a} {c}");
                }
                let _ = writeln!(src, "  SETX R{} 32'h{:08X}", 7 + b % 5, (b + 1) << 17);
                if r.below(2) == 0 {
                    // Never the loop counter.
                    let _ = writeln!(src, "  {}", instruction(r).replace("R12", "R11"));
                }
                let _ = writeln!(src, "L{}:", b + 1);
            }
            // R12.x counts from 0 until it passes the bound in CREG_TEXTURE_SIZE.x (at most
            // 6, and a whole number when the loop ends on inequality), a configuration
            // register nothing writes.
            let looped = r.below(10) < 3;
            let bound = ((r.below(7) as u32) << 17) | [0, 0, 1, 0x1000][r.below(4) as usize];
            if looped {
                src.push_str("  SETX R12 32'h00000000\nLOOP:\n  INCX R12 R12 VOID\n");
                let test = if bound & 0x1FFFF == 0 {
                    pick(
                        r,
                        &[
                            "JLX LOOP R12 CREG_TEXTURE_SIZE",
                            "JGX LOOP CREG_TEXTURE_SIZE R12",
                            "JNEX LOOP R12 CREG_TEXTURE_SIZE",
                        ],
                    )
                } else {
                    pick(
                        r,
                        &[
                            "JLX LOOP R12 CREG_TEXTURE_SIZE",
                            "JGX LOOP CREG_TEXTURE_SIZE R12",
                        ],
                    )
                };
                let _ = writeln!(src, "  {test}");
            }
            src.push_str("  RETURN RT_TRUE\n");
            let mut inputs: Vec<(u16, Vec3)> = CMP
                .iter()
                .map(|n| {
                    let mut v = || {
                        if r.below(10) < 7 {
                            CMP_VALUES[r.below(CMP_VALUES.len() as u64) as usize]
                        } else {
                            value(r)
                        }
                    };
                    (reg(n), [v(), v(), v()])
                })
                .collect();
            if looped {
                inputs.push((reg("CREG_TEXTURE_SIZE"), [bound, value(r), value(r)]));
            }
            let extra = inputs_for(r, &src);
            for (a, v) in extra {
                if !inputs.iter().any(|(b, _)| *b == a) {
                    inputs.push((a, v));
                }
            }
            Program::asm(&format!("jump_{k:03}"), &src, inputs, Expect::Agree)
        })
        .collect()
}

/// Every executable opcode with hard operands, every swizzle, the forwarding hazards, MULP
/// before Type II words, and the programs the simulator must refuse.
pub fn targeted() -> Vec<Program> {
    let mut out = Vec::new();
    let ps = |body: &str| format!("ENTRYPOINT_ADRR_PIXELSHADER:\n{body}  RETURN RT_TRUE\n");
    let operands: [(Vec3, Vec3); 4] = [
        (
            [0x30000, 0xFFFD_0000, 0x5555_5555],
            [0x20000, 0x18000, 0x7FFF_FFFF],
        ),
        ([0x7FFF_FFFF, 0x8000_0000, 0], [0x7FFF_FFFF, 0x8000_0000, 0]),
        (
            [0x5555_5556, 0xAAAA_AAAA, 0x1234_5678],
            [0x60000, 0xFFFA_0000, 3],
        ),
        (
            [0xFFFF_FFFF, 1, 0x20000],
            [0xFFFF_FFFF, 0xFFFF_FFFF, 0x8000_0001],
        ),
    ];
    let (r1, r2, r3) = (reg("R1"), reg("R2"), reg("R3"));
    for op in OPS3.iter().chain(&OPS1).chain(&["ZERO", "NOP"]) {
        for (k, (a, b)) in operands.iter().enumerate() {
            out.push(Program::asm(
                &format!("op_{op}_{k}"),
                &ps(&format!("  {op} R3 R1 R2\n")),
                vec![(r1, *a), (r2, *b), (r3, [0x11111, 0x22222, 0x33333])],
                Expect::Agree,
            ));
        }
    }
    out.push(Program::asm(
        "hangs_first_word_return",
        "ENTRYPOINT_ADRR_PIXELSHADER:\n  RETURN RT_TRUE\n",
        vec![],
        Expect::Hangs,
    ));
    out.push(Program::asm(
        "hangs_first_word_return_in_userconstants",
        "ENTRYPOINT_ADRR_USERCONSTANTS:\n  RETURN RT_TRUE\nENTRYPOINT_ADRR_PIXELSHADER:\n  ADD R1 R2 R2\n  RETURN RT_TRUE\n",
        vec![(r2, [1, 2, 3])],
        Expect::Hangs,
    ));
    for op in ["INTP", "XCHANGEY", "XCHANGEZ", "RESCALE", "DEBUG_PRINT"] {
        out.push(Program::asm(
            &format!("hangs_{op}"),
            &ps(&format!("  {op} R3 R1 R2\n")),
            vec![(r1, operands[0].0), (r2, operands[0].1)],
            Expect::Hangs,
        ));
    }
    for (k, s) in SWIZZLES.iter().enumerate() {
        out.push(Program::asm(
            &format!("swizzle_{k}"),
            &ps(&format!("  SWIZZLE3D R1 {s}\n")),
            vec![(r1, [0x10000, 0x20000, 0x30000])],
            Expect::Agree,
        ));
    }
    let light = reg("CREG_LIGHT_INFO");
    type Case = (&'static str, &'static str, Vec<(u16, Vec3)>);
    let cases: [Case; 10] = [
        (
            "div_by_zero",
            "  DIV R3 R1 R2\n",
            vec![(r1, [0x20000, 0xFFFE_0000, 0]), (r2, [0; 3])],
        ),
        (
            "first_reads_void",
            "  ADD R1 R2 VOID\n  ADD R3 R2 VOID\n",
            vec![
                (r2, [0x20000, 0x40000, 0x60000]),
                (light, [0x100, 0x200, 0x300]),
            ],
        ),
        (
            "nop_then_void",
            "  SETX R5 32'h00020000\n  NOP RT_FALSE\n  ADD R1 R2 VOID\n",
            vec![
                (r2, [0x20000, 0x40000, 0x60000]),
                (light, [0x100, 0x200, 0x300]),
            ],
        ),
        (
            "dropped_write_forwarded",
            "  COPY CREG_CAMERA_POSITION R2 VOID\n  ADD R1 CREG_CAMERA_POSITION R3\n  ADD R4 CREG_CAMERA_POSITION R3\n",
            vec![
                (r2, [0x20000, 0x40000, 0x60000]),
                (r3, [1, 2, 3]),
                (reg("CREG_CAMERA_POSITION"), [0x100, 0x200, 0x300]),
            ],
        ),
        (
            "set_chain",
            "  SETX R1 32'h00010000\n  SETY R1 32'h00020000\n  SETZ R1 32'h00030000\n  SWIZZLE3D R1 SWIZZLE_ZZZ\n  ADD R1 R1 R1\n",
            vec![(r1, [5, 6, 7])],
        ),
        (
            "mulp_before_setx",
            "  MULP R1 R2 VOID\n  SETX R4 32'h00030000\n",
            vec![(r2, [0x20000, 0x40000, 0x60000])],
        ),
        (
            "mulp_before_swizzle",
            "  MULP R1 R2 VOID\n  SWIZZLE3D R4 SWIZZLE_YXZ\n",
            vec![(r2, [0x30000, 0xFFFE_0000, 5]), (reg("R4"), [1, 2, 3])],
        ),
        (
            "mulp_before_return",
            "  MULP R1 R2 VOID\n",
            vec![(r2, [0x8000_0000, 0x5555_5556, 7])],
        ),
        (
            "always_true_jump",
            "  ADD R1 R2 R2\n  JEQX L1 VOID VOID\n  SETX R3 32'h00010000\nL1:\n  ADD R4 R1 R2\n  JEQX L2 VOID VOID\nL2:\n  JEQX L3 VOID VOID\n  SETX R5 32'h00010000\nL3:\n",
            vec![(r2, [0x20000, 0x40000, 0x60000])],
        ),
        (
            "loop",
            "  ZERO R1 VOID VOID\nL:\n  INCX R1 R1 VOID\n  JLX L R1 R2\n",
            vec![(r2, [0x60000, 0, 0])],
        ),
    ];
    for (name, body, inputs) in cases {
        out.push(Program::asm(name, &ps(body), inputs, Expect::Agree));
    }
    out.push(Program::asm(
        "constants_then_void",
        "ENTRYPOINT_ADRR_USERCONSTANTS:\n  SETX C1 32'h00020000\n  RETURN RT_FALSE\nENTRYPOINT_ADRR_PIXELSHADER:\n  ADD R1 C1 VOID\n  RETURN RT_TRUE\n",
        vec![(light, [0x100, 0x200, 0x300])],
        Expect::Agree,
    ));
    let refused: [(&str, &str); 4] = [
        (
            "jmp_forward",
            "  JMP L1 VOID VOID\n  SETX R7 32'h00020000\nL1:\n  SETX R8 32'h00020000\n",
        ),
        (
            "jmp_after_add",
            "  ADD R1 R2 R2\n  JMP L1 VOID VOID\n  SETX R7 32'h00020000\nL1:\n  ADD R8 R2 R2\n",
        ),
        ("mulp_before_add", "  MULP R1 R2 VOID\n  ADD R3 R4 R5\n"),
        ("mulp_before_copy", "  MULP R1 R2 VOID\n  COPY R3 R2 VOID\n"),
    ];
    for (name, body) in refused {
        out.push(Program::asm(
            name,
            &ps(body),
            vec![(r2, [1, 2, 3])],
            Expect::Refused,
        ));
    }
    out
}

/// Corpus fragment shaders compiled by the code generator, `pixels` programs each (one per
/// pixel of a row across the image). Shaders that do not compile are skipped; `limit` caps
/// the number of shaders.
pub fn compiled(paths: &[PathBuf], pixels: u32, limit: usize) -> Vec<Program> {
    use tgsic::tgsi::{File, Semantic};
    let mut out = Vec::new();
    let mut shaders = 0;
    for (k, path) in paths.iter().enumerate() {
        if shaders >= limit {
            break;
        }
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        let Ok(read) = tgsic::front::read(&bytes) else {
            continue;
        };
        let p = read.program;
        if p.processor != tgsic::tgsi::Processor::Fragment {
            continue;
        }
        let Ok((t, _)) = crate::theia::compile_for_test(path, &p, k as u32) else {
            continue;
        };
        shaders += 1;
        let name = path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let sems: std::collections::BTreeMap<u32, Option<Semantic>> = p
            .declarations_of(File::Input)
            .flat_map(|d| {
                let s = d.semantic.map(|s| s.name);
                (d.span().first..=d.span().last).map(move |r| (r, s))
            })
            .collect();
        let fixed = |x: f64| tgsic_theia::isa::f64_to_fixed(x).unwrap_or(0);
        for i in 0..pixels {
            let u = (i as f64 + 0.5) / pixels as f64;
            let mut inputs: Vec<(u16, Vec3)> = t
                .bindings
                .iter()
                .map(|(r, &addr)| {
                    let v = match sems.get(r).copied().flatten() {
                        Some(Semantic::Position) => [fixed(i as f64 + 0.5), fixed(3.5), fixed(0.5)],
                        Some(Semantic::Face) => [fixed(1.0), 0, 0],
                        _ => [fixed(u), fixed(1.0 - u * 0.75), 0],
                    };
                    (addr, v)
                })
                .collect();
            inputs.push((
                reg("CREG_TEXTURE_COLOR"),
                [fixed(u), fixed(0.25 + u / 2.0), fixed(0.75)],
            ));
            out.push(Program {
                name: format!("{name} pixel {i}"),
                binary: t.binary.clone(),
                inputs,
                expect: Expect::Agree,
            });
        }
    }
    out
}
