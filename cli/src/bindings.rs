//! The bindings a shader runs with, from the command line: constant buffers, textures (PNG
//! or `.f32` files, mipmapped where a sampler asks), samplers, the loop budget.

use crate::args::{BindArgs, input_error, unit_arg, usage};
use crate::compare::f32_from_le_bytes;
use crate::report::Failure;
use std::path::Path;
use tgsic::tgsi::*;
use tgsic_runtime::host::{self, Bindings};
use tgsic_runtime::host::{Compare, Filter, MipFilter, Sampler, Texture, Wrap};

fn parse_sampler(spec: &str) -> Result<Sampler, String> {
    let mut s = Sampler::default();
    let mut mipmap = false;
    for part in spec.split(',') {
        match part {
            "nearest" => (s.min, s.mag) = (Filter::Nearest, Filter::Nearest),
            "linear" => (s.min, s.mag) = (Filter::Linear, Filter::Linear),
            "mipmap" => mipmap = true,
            "repeat" => s.wrap = [Wrap::Repeat; 3],
            "clamp" => s.wrap = [Wrap::Clamp; 3],
            "mirror" => s.wrap = [Wrap::Mirror; 3],
            _ => match part.strip_prefix("compare=").map(Compare::from_name) {
                Some(Some(c)) => s.compare = Some(c),
                _ => return Err(format!("unknown sampler setting `{part}`")),
            },
        }
    }
    if mipmap {
        s.mip = if s.min == Filter::Linear {
            MipFilter::Linear
        } else {
            MipFilter::Nearest
        };
    }
    Ok(s)
}

/// The texture targets the shader uses with texture unit `n` (TEX-style targets and SVIEW
/// declarations).
fn targets_of_unit(p: &Program, n: usize) -> Vec<TextureTarget> {
    let mut v: Vec<TextureTarget> = p
        .declarations_of(File::SamplerView)
        .filter(|d| d.contains(n as i64))
        .filter_map(|d| d.sampler_view.map(|s| s.target))
        .collect();
    for inst in &p.instructions {
        let reads_unit = |tex: TexOperands| {
            tex.sampler
                .and_then(|k| inst.src.get(k as usize))
                .is_some_and(|s| s.register.index.offset == n as i32)
        };
        if let (Some(t), Some(tex)) = (inst.texture, inst.opcode.tex())
            && reads_unit(tex)
        {
            v.push(t);
        }
    }
    v
}

/// Builds the bindings from the options, checking that everything the shader reads is given.
pub fn bindings(p: &Program, a: &BindArgs, clear: [f32; 4]) -> Result<Bindings, Failure> {
    let bind = given_bindings(p, a, clear)?;
    let r = tgsic_runtime::host::Reflection::of_program(p);
    let (buffers, units) = (&r.constant_buffers_read, &r.texture_units_read);
    for &b in buffers {
        let b = b as usize;
        if bind.constants.get(b).is_none_or(Vec::is_empty)
            && !a.constants.iter().any(|c| c.starts_with(&format!("{b}=")))
        {
            return Err(input_error(format!(
                "error: the shader reads constant buffer {b}, but no --const {b}=FILE was given"
            )));
        }
    }
    for &u in units {
        let u = u as usize;
        if bind.textures.get(u).is_none_or(Option::is_none) {
            return Err(input_error(format!(
                "error: the shader samples texture unit {u}, but no --texture {u}=FILE was given"
            )));
        }
    }
    Ok(bind)
}

/// The bindings the options give, whether or not the shader reads more (read, sized and
/// mipmapped as [`bindings`] does).
pub fn given_bindings(p: &Program, a: &BindArgs, clear: [f32; 4]) -> Result<Bindings, Failure> {
    let mut bind = Bindings {
        max_iterations: a.max_iterations,
        clear,
        ..Bindings::default()
    };
    for spec in &a.constants {
        let (n, regs) = read_constants(spec)?;
        if bind.constants.len() <= n {
            bind.constants.resize(n + 1, Vec::new());
        }
        bind.constants[n] = regs;
    }
    let mut sizes = std::collections::HashMap::new();
    for spec in &a.texture_sizes {
        let (n, dims) = unit_arg(spec, "texture-size")?;
        let v: Vec<u32> = dims
            .split(['x', 'X'])
            .map(|d| {
                d.parse()
                    .map_err(|_| usage(format!("--texture-size {spec}: bad size")))
            })
            .collect::<Result<_, _>>()?;
        let d = match v[..] {
            [w, h] => (w, h, 1),
            [w, h, d] => (w, h, d),
            _ => {
                return Err(usage(format!(
                    "--texture-size {spec}: expected WxH or WxHxD"
                )));
            }
        };
        sizes.insert(n, d);
    }
    for spec in &a.textures {
        let (n, file) = unit_arg(spec, "texture")?;
        let path = Path::new(&file);
        let tex = if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("png"))
        {
            Texture::from_png(path).map_err(|e| match e {
                tgsic_runtime::host::TextureError::Png { path, message } => {
                    input_error(format!("{path}: error: {message}"))
                }
                other => input_error(format!("{file}: error: {other}")),
            })?
        } else {
            let (w, h, d) = *sizes.get(&n).ok_or_else(|| {
                usage(format!(
                    "--texture {spec}: a .f32 texture needs --texture-size {n}=WxH[xD]"
                ))
            })?;
            let bytes = crate::report::read_bounded(&file, crate::report::MAX_DATA_BYTES)?;
            let values = f32_from_le_bytes(&bytes)
                .map_err(|e| input_error(format!("{file}: error: {e}")))?;
            Texture::from_rgba32f(w, h, d, &values)
                .map_err(|e| input_error(format!("{file}: error: {e}")))?
        };
        if bind.textures.len() <= n {
            bind.textures.resize(n + 1, None);
        }
        bind.textures[n] = Some(tex);
    }
    for spec in &a.samplers {
        let (n, s) = unit_arg(spec, "sampler")?;
        let sampler = parse_sampler(&s).map_err(|e| usage(format!("--sampler {spec}: {e}")))?;
        if bind.samplers.len() <= n {
            bind.samplers.resize(n + 1, Sampler::default());
        }
        bind.samplers[n] = sampler;
    }
    // Mip chains for mipmapped samplers.
    for (n, s) in bind.samplers.iter().enumerate() {
        if s.mip == MipFilter::None {
            continue;
        }
        if let Some(Some(t)) = bind.textures.get_mut(n) {
            // Cube faces and array layers are filtered separately; a 3D texture's depth is
            // filtered with its width and height.
            let volume = targets_of_unit(p, n).contains(&TextureTarget::Tex3D);
            t.generate_mipmaps(!volume);
        }
    }
    Ok(bind)
}

/// Reads `--const N=FILE`: the unit and its registers (raw little-endian words, four per
/// register; a short last register reads 0 in its missing components).
pub fn read_constants(spec: &str) -> Result<(usize, Vec<[u32; 4]>), Failure> {
    let (n, file) = unit_arg(spec, "const")?;
    let bytes = crate::report::read_bounded(&file, crate::report::MAX_DATA_BYTES)?;
    if bytes.len() % 4 != 0 {
        return Err(input_error(format!(
            "{file}: error: {} bytes is not a whole number of 32-bit words",
            bytes.len()
        )));
    }
    let regs = host::constant_registers(&bytes);
    Ok((n, regs))
}
