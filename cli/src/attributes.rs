//! Text files of vertex attributes and shader outputs for `tgsic run` (`docs/run.md`).
//!
//! Input: one vertex per line, four values per input register in register order
//! (`IN[0].x IN[0].y IN[0].z IN[0].w IN[1].x ...`); a value is a decimal number or a raw bit
//! pattern `0x3f800000`; `#` starts a comment. A primitives file groups the vertices of each
//! primitive, separated by blank lines.
//!
//! Output: the same layout over the OUT registers, values printed losslessly (the shortest
//! decimal that reads back to the same bits, hex for NaN); geometry output lists each input
//! primitive's emitted vertices, with `ENDPRIM` lines where the shader ended a primitive.

use std::fmt::Write;
use std::path::Path;
use tgsic::front::text::format_f32;
use tgsic::tgsi::{File, Program};
use tgsic_runtime::host::Invocation;
use thiserror::Error;

/// A malformed attribute file.
#[derive(Debug, Error)]
#[error("{path}:{line}:{column}: error: {message}")]
pub struct AttrError {
    /// The file.
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

/// One vertex: its input registers as bits.
pub type Vertex = Vec<[u32; 4]>;

fn parse_value(t: &str) -> Option<u32> {
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        return u32::from_str_radix(h, 16).ok();
    }
    t.parse::<f32>().ok().map(f32::to_bits)
}

/// Reads the vertex lines of `text`, grouped by blank lines.
fn groups(path: &Path, text: &str) -> Result<Vec<Vec<Vertex>>, AttrError> {
    let mut out: Vec<Vec<Vertex>> = vec![Vec::new()];
    for (n, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("");
        if line.trim().is_empty() {
            if raw.trim().is_empty() && out.last().is_some_and(|g| !g.is_empty()) {
                out.push(Vec::new());
            }
            continue;
        }
        let mut values = Vec::new();
        let mut col = 0;
        for tok in line.split_whitespace() {
            col = line[col..].find(tok).map_or(col, |k| col + k);
            let v = parse_value(tok).ok_or_else(|| AttrError {
                path: path.display().to_string(),
                line: n + 1,
                column: col + 1,
                message: format!("`{tok}` is not a number or a 0x bit pattern"),
            })?;
            values.push(v);
            col += tok.len();
        }
        if values.len() % 4 != 0 {
            return Err(AttrError {
                path: path.display().to_string(),
                line: n + 1,
                column: 1,
                message: format!("{} values: give four per input register", values.len()),
            });
        }
        let vertex = values
            .chunks_exact(4)
            .map(|c| [c[0], c[1], c[2], c[3]])
            .collect();
        if let Some(g) = out.last_mut() {
            g.push(vertex);
        }
    }
    out.retain(|g| !g.is_empty());
    Ok(out)
}

fn read(path: &Path) -> Result<String, AttrError> {
    std::fs::read_to_string(path).map_err(|e| AttrError {
        path: path.display().to_string(),
        line: 0,
        column: 0,
        message: e.to_string(),
    })
}

/// Reads a vertices file (blank lines are ignored).
///
/// # Errors
/// [`AttrError`] with the line and column of a malformed value.
pub fn read_vertices(path: &Path) -> Result<Vec<Vertex>, AttrError> {
    Ok(groups(path, &read(path)?)?.into_iter().flatten().collect())
}

/// Reads a primitives file: each group of `vertices` lines is one primitive.
///
/// # Errors
/// [`AttrError`] for malformed values or a group of the wrong size.
pub fn read_primitives(path: &Path, vertices: usize) -> Result<Vec<Vec<Vertex>>, AttrError> {
    let text = read(path)?;
    let gs = groups(path, &text)?;
    for (k, g) in gs.iter().enumerate() {
        if g.len() != vertices {
            return Err(AttrError {
                path: path.display().to_string(),
                line: 0,
                column: 0,
                message: format!(
                    "primitive {k} has {} vertices; the shader's input primitive has {vertices}",
                    g.len()
                ),
            });
        }
    }
    Ok(gs)
}

fn header(p: &Program) -> String {
    let mut s = String::from("# one vertex per line:");
    for d in p.declarations_of(File::Output) {
        for r in d.ranges.iter().flat_map(|r| r.first..=r.last) {
            let sem = d
                .semantic
                .map_or(String::new(), |s| format!(" {}[{}]", s.name, s.index));
            let _ = write!(s, " OUT[{r}]{sem}.xyzw");
        }
    }
    s.push('\n');
    s
}

fn line(outputs: &[[u32; 4]]) -> String {
    outputs
        .iter()
        .flatten()
        .map(|&v| format_f32(v))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Writes vertex shader outputs.
pub fn write_vertices(p: &Program, out: &[Invocation]) -> String {
    let mut s = header(p);
    for inv in out {
        s += &line(&inv.outputs);
        s.push('\n');
    }
    s
}

/// Writes geometry shader output: per input primitive, its emitted vertices and ENDPRIM lines.
pub fn write_emitted(p: &Program, out: &[Invocation]) -> String {
    let mut s = header(p);
    for (k, inv) in out.iter().enumerate() {
        let _ = writeln!(s, "# primitive {k}");
        for e in &inv.emitted {
            match e {
                Some(o) => s += &line(o),
                None => s += "ENDPRIM",
            }
            s.push('\n');
        }
        s.push('\n');
    }
    s
}
