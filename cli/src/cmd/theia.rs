//! `tgsic theia asm`, `tgsic theia dis`, `tgsic theia run`, `tgsic theia compile`.

use crate::report::display_name as name;
use crate::report::{Failure, read_input};
use clap::{Args, Subcommand, ValueEnum};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tgsic_theia::isa::{
    self, Binary, BinaryFormat, Layout, assemble, disassemble, f64_to_fixed, read_bin, read_mem,
    register_address,
};
use tgsic_theia::sim::{Entry, Machine, Outcome, address_name, format_value};

/// THEIA b1.2 toolchain commands.
#[derive(Debug, Subcommand)]
pub enum TheiaCommand {
    /// Assemble `.shdr` source into a program image (`.mem` or `.bin`, by OUT's extension).
    Asm(AsmArgs),
    /// Disassemble a program image into source the assembler reads back to the same words.
    Dis(DisArgs),
    /// Run a program image (or `.shdr` source) in the bit-exact b1.2 simulator.
    Run(RunArgs),
    /// Compile a TGSI fragment shader into a program image whose USERCONSTANTS routine sets
    /// C1..C7 and whose PIXELSHADER routine computes OREG_PIXEL_COLOR.
    Compile(CompileArgs),
}

/// Arguments of `tgsic theia compile`.
#[derive(Debug, Args)]
pub struct CompileArgs {
    /// TGSI fragment shader, text or binary (detected); `-` reads standard input.
    pub input: String,
    /// Output image: `.mem` (Instructions.mem: the entry table, then code from 0x800B). A
    /// compiled program is an IMEM image with an entry table, which `.bin` (raw words from
    /// address 0) cannot hold.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Write the annotated listing (address, words, instruction, the TGSI line it came from).
    #[arg(long)]
    pub listing: Option<PathBuf>,
    /// Write the generated assembly (`.shdr`, which `tgsic theia asm` reads back).
    #[arg(long)]
    pub shdr: Option<PathBuf>,
    /// Constant buffer N from FILE (raw little-endian 32-bit words, 4 per register).
    /// Repeatable.
    #[arg(long = "const", value_name = "N=FILE")]
    pub constants: Vec<String>,
    /// Bind an input to a THEIA register: `IN[2]=CREG_TRI_DIFFUSE_LAST` (a name or an address).
    /// Defaults: POSITION → CREG_PIXEL_2D_POSITION, `COLOR[0]` → CREG_COLOR_ACC, `COLOR[1]` →
    /// CREG_TRI_DIFFUSE_LAST; a TEX of a texture coordinate reads CREG_TEXTURE_COLOR. Repeatable.
    #[arg(long = "bind", value_name = "IN[n]=REGISTER")]
    pub bind: Vec<String>,
}

/// Binary formats for `--format`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum FormatArg {
    /// Instructions.mem text.
    Mem,
    /// Raw little-endian 64-bit words from address 0.
    Bin,
}

/// Arguments of `tgsic theia asm`.
#[derive(Debug, Args)]
pub struct AsmArgs {
    /// `.shdr` source; `-` reads standard input.
    pub input: String,
    /// Output image: `.mem` (entry table at 0x8000, code from 0x800B) or `.bin` (words from 0).
    #[arg(short, long)]
    pub output: PathBuf,
}

/// Arguments of `tgsic theia dis`.
#[derive(Debug, Args)]
pub struct DisArgs {
    /// Program image (`.mem` or `.bin`); `-` reads standard input (give `--format`).
    pub input: String,
    /// The image format, when the extension does not say it.
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,
    /// Output file; standard output when omitted.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

/// Arguments of `tgsic theia run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Program image (`.mem`, `.bin`) or `.shdr` source (assembled as `.mem`).
    pub input: String,
    /// The image format, when the extension does not say it.
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,
    /// Set a register before running: `REG=x,y,z` or `REG=v` (all three). REG is a name (`R1`,
    /// `CREG_TEXTURE_COLOR`) or an address; values are fixed-point numbers (`1.5`, `-2`) or raw
    /// words (`0x20000`, `32'h20000`). Repeatable.
    #[arg(long = "set", value_name = "REG=VALUES")]
    pub set: Vec<String>,
    /// Run only this routine: a slot name (`PIXELSHADER`), a slot number (`10`) or an address
    /// (`0x800B`). Default: USERCONSTANTS (when the image holds it), then PIXELSHADER; address 0
    /// for a `.bin` image.
    #[arg(long)]
    pub entry: Option<String>,
    /// Stop a routine after this many instructions.
    #[arg(long, default_value_t = 1_000_000)]
    pub max_steps: u64,
}

/// Parses `IN[2]=CREG_COLOR_ACC`.
fn parse_bind(spec: &str) -> Result<(u32, u16), Failure> {
    let bad = || {
        usage(format!(
            "--bind {spec}: expected IN[n]=REGISTER (a register name such as CREG_COLOR_ACC, or an address)"
        ))
    };
    let (lhs, rhs) = spec.split_once('=').ok_or_else(bad)?;
    let n = lhs
        .trim()
        .strip_prefix("IN[")
        .and_then(|r| r.strip_suffix(']'))
        .and_then(|r| r.parse::<u32>().ok())
        .ok_or_else(bad)?;
    let rhs = rhs.trim();
    let addr = register_address(rhs)
        .or_else(|| rhs.parse::<u16>().ok())
        .ok_or_else(|| usage(format!("--bind {spec}: `{rhs}` is not a THEIA register")))?;
    Ok((n, addr))
}

/// `tgsic theia compile`.
pub fn compile(a: &CompileArgs) -> Result<(), Failure> {
    use tgsic_theia::compile::{TheiaOptions, compile_valid};
    match BinaryFormat::from_path(&a.output) {
        Some(BinaryFormat::Mem) => {}
        Some(BinaryFormat::Bin) => {
            return Err(usage(format!(
                "{}: a compiled program is an IMEM image with an entry table, loaded at 0x8000: \
                 write it as .mem (.bin holds raw words from address 0, for `theia asm`)",
                a.output.display()
            )));
        }
        None => {
            return Err(usage(format!(
                "{}: the output must be a .mem image",
                a.output.display()
            )));
        }
    }
    let mut opts = TheiaOptions::default();
    for spec in &a.constants {
        let (n, regs) = crate::bindings::read_constants(spec)?;
        opts.constants.insert(n as u32, regs);
    }
    for spec in &a.bind {
        let (n, addr) = parse_bind(spec)?;
        opts.bindings.insert(n, addr);
    }
    let shader = crate::cmd::run::load_shader(&a.input)?;
    let n = name(&a.input);
    let out = compile_valid(&shader.program, &opts).map_err(|e| {
        Failure::input(vec![crate::report::located_error(
            n,
            e.location(),
            &e.detail(),
        )])
    })?;
    for w in &out.warnings {
        match w.location {
            tgsic::tgsi::Location::Unknown => eprintln!("{n}: warning: {}", w.message),
            _ => eprintln!("{n}:{w}"),
        }
    }
    let bytes = isa::write_mem(&out.binary)
        .map(String::into_bytes)
        .map_err(|e| Failure::input(vec![format!("{}: error: {e}", a.output.display())]))?;
    let write = |path: &Path, data: &[u8]| {
        std::fs::write(path, data).map_err(|e| {
            Failure::input(vec![format!(
                "{}: error: cannot write: {e}",
                path.display()
            )])
        })
    };
    write(&a.output, &bytes)?;
    if let Some(l) = &a.listing {
        write(l, out.listing.as_bytes())?;
    }
    if let Some(s) = &a.shdr {
        write(s, out.assembly.as_bytes())?;
    }
    let binds: Vec<String> = out
        .bindings
        .iter()
        .map(|(r, addr)| format!("IN[{r}]={}", address_name(*addr)))
        .collect();
    eprintln!(
        "{n}: PIXELSHADER {} instructions, USERCONSTANTS {}, registers R {} C {}{}",
        out.stats.pixel_words,
        out.stats.constant_words,
        out.stats.registers,
        out.stats.constant_registers,
        if binds.is_empty() {
            String::new()
        } else {
            format!(", inputs {}", binds.join(" "))
        }
    );
    Ok(())
}

fn usage(msg: String) -> Failure {
    Failure {
        messages: vec![format!("error: {msg}")],
        code: 2,
    }
}

fn format_of(input: &str, given: Option<FormatArg>) -> Result<BinaryFormat, Failure> {
    crate::report::check_readable(input)?;
    match (given, BinaryFormat::from_path(Path::new(input))) {
        (Some(FormatArg::Mem), _) => Ok(BinaryFormat::Mem),
        (Some(FormatArg::Bin), _) => Ok(BinaryFormat::Bin),
        (None, Some(f)) => Ok(f),
        (None, None) => Err(usage(format!(
            "{}: the image format comes from the extension (.mem or .bin); give --format",
            name(input)
        ))),
    }
}

fn load_binary(input: &str, format: BinaryFormat) -> Result<Binary, Failure> {
    let bytes = read_input(input)?;
    let n = name(input);
    match format {
        BinaryFormat::Bin => {
            read_bin(&bytes).map_err(|e| Failure::input(vec![format!("{n}: error: {e}")]))
        }
        BinaryFormat::Mem => {
            let text = String::from_utf8(bytes)
                .map_err(|_| Failure::input(vec![format!("{n}: error: a .mem file is text")]))?;
            read_mem(&text).map_err(|e| {
                Failure::input(vec![format!("{n}:{e}").replacen(": ", ": error: ", 1)])
            })
        }
    }
}

fn assemble_source(input: &str, layout: Layout) -> Result<Binary, Failure> {
    let bytes = read_input(input)?;
    let text = String::from_utf8(bytes).map_err(|_| {
        Failure::input(vec![format!(
            "{}: error: the source is not UTF-8",
            name(input)
        )])
    })?;
    assemble(&text, layout).map_err(|e| {
        Failure::input(vec![format!(
            "{}:{}:{}: error: {}",
            name(input),
            e.line,
            e.column,
            e.kind
        )])
    })
}

/// `tgsic theia asm`.
pub fn asm(a: &AsmArgs) -> Result<(), Failure> {
    let format = BinaryFormat::from_path(&a.output).ok_or_else(|| {
        usage(format!(
            "{}: the output extension must be .mem or .bin",
            a.output.display()
        ))
    })?;
    let layout = match format {
        BinaryFormat::Mem => Layout::Mem,
        BinaryFormat::Bin => Layout::Bin,
    };
    let image = assemble_source(&a.input, layout)?;
    let data = match format {
        BinaryFormat::Mem => isa::write_mem(&image).map(String::into_bytes),
        BinaryFormat::Bin => isa::write_bin(&image),
    }
    .map_err(|e| Failure::input(vec![format!("{}: error: {e}", a.output.display())]))?;
    std::fs::write(&a.output, data).map_err(|e| {
        Failure::input(vec![format!(
            "{}: error: cannot write: {e}",
            a.output.display()
        )])
    })
}

/// `tgsic theia dis`.
pub fn dis(a: &DisArgs) -> Result<(), Failure> {
    let image = load_binary(&a.input, format_of(&a.input, a.format)?)?;
    let text = disassemble(&image);
    match &a.output {
        Some(p) => std::fs::write(p, text).map_err(|e| {
            Failure::input(vec![format!("{}: error: cannot write: {e}", p.display())])
        }),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}

/// Parses one `--set` value: fixed-point (`1.5`) or raw (`0x20000`, `32'h20000`).
fn parse_value(s: &str) -> Option<u32> {
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        return u32::from_str_radix(h, 16).ok();
    }
    if let Some((w, rest)) = s.split_once('\'') {
        let bits: u32 = w.parse().ok()?;
        let (radix, digits) = match rest.split_at_checked(1)? {
            ("h" | "H", d) => (16, d),
            ("d" | "D", d) => (10, d),
            ("b" | "B", d) => (2, d),
            _ => return None,
        };
        let v = u64::from_str_radix(digits, radix).ok()?;
        return (bits <= 32 && v < 1u64 << bits).then_some(v as u32);
    }
    f64_to_fixed(s.parse().ok()?)
}

fn parse_set(s: &str) -> Result<(u16, [u32; 3]), Failure> {
    let bad = |why: &str| {
        usage(format!(
            "--set {s}: {why} (REG=x,y,z or REG=v; values 1.5, 0x20000 or 32'h20000)"
        ))
    };
    let (reg, values) = s.split_once('=').ok_or_else(|| bad("missing `=`"))?;
    let addr = register_address(reg)
        .or_else(|| {
            reg.strip_prefix("0x")
                .and_then(|h| u16::from_str_radix(h, 16).ok())
        })
        .or_else(|| reg.parse().ok())
        .ok_or_else(|| bad(&format!("`{reg}` is not a register name or address")))?;
    let vals: Vec<u32> = values
        .split(',')
        .map(|v| parse_value(v.trim()))
        .collect::<Option<_>>()
        .ok_or_else(|| bad("a value is not a number in range"))?;
    match vals[..] {
        [v] => Ok((addr, [v; 3])),
        [x, y, z] => Ok((addr, [x, y, z])),
        _ => Err(bad("give one value or three")),
    }
}

/// `tgsic theia run`.
pub fn run(a: &RunArgs) -> Result<(), Failure> {
    let n = name(&a.input);
    let is_source =
        a.format.is_none() && Path::new(&a.input).extension().is_some_and(|e| e == "shdr");
    let image = if is_source {
        assemble_source(&a.input, Layout::Mem)?
    } else {
        load_binary(&a.input, format_of(&a.input, a.format)?)?
    };
    let sets: Vec<(u16, [u32; 3])> = a
        .set
        .iter()
        .map(|s| parse_set(s))
        .collect::<Result<_, _>>()?;
    let entries: Vec<(String, Entry)> = match &a.entry {
        Some(e) => {
            let entry = Entry::parse(e).ok_or_else(|| usage(format!("--entry {e}: expected a slot name (PIXELSHADER), a slot number (0..10) or an address (0x800B)")))?;
            vec![(e.clone(), entry)]
        }
        None if image.table_len > 9 => {
            let mut v = Vec::new();
            if image.entry(9).is_some_and(|a| image.fetch(a).is_some()) {
                v.push(("USERCONSTANTS".to_string(), Entry::Slot(9)));
            }
            v.push(("PIXELSHADER".to_string(), Entry::Slot(10)));
            v
        }
        None => vec![("0x0000".to_string(), Entry::Address(0))],
    };
    let mut m = Machine::new(image);
    m.max_steps = a.max_steps;
    for &(addr, v) in &sets {
        m.set(addr, v);
    }
    let mut written: BTreeMap<u16, ([u32; 3], bool)> = BTreeMap::new();
    for (label, entry) in entries {
        let Outcome {
            returned,
            steps,
            cycles,
            writes,
            range_faults,
        } = m
            .run(entry)
            .map_err(|e| Failure::input(vec![format!("{n}: error: {label}: {e}")]))?;
        println!(
            "{label}: returned {} after {steps} instructions, {cycles} cycles",
            if returned { "RT_TRUE" } else { "RT_FALSE" }
        );
        if range_faults > 0 {
            println!(
                "{label}: warning: {range_faults} instructions left Q15.17's range (the hardware wrapped their results) or hit the multiplier's 3·|a| overflow"
            );
        }
        // A dropped write to VOID (address 0) is how RETURN and NOP-like code discard results.
        for w in writes.into_iter().filter(|w| w.kept || w.address != 0) {
            written.insert(w.address, (w.value, w.kept));
        }
    }
    let width = written
        .keys()
        .map(|&a| address_name(a).len())
        .max()
        .unwrap_or(0);
    for (addr, (value, kept)) in written {
        let note = if kept {
            ""
        } else {
            "  [dropped: configuration registers are read-only]"
        };
        println!(
            "{:<width$} = {}{note}",
            address_name(addr),
            format_value(value)
        );
    }
    Ok(())
}
