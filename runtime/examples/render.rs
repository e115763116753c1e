//! Loads a fragment shader, binds a constant buffer and a texture, renders it with the reference
//! interpreter and reads pixels back: the library API in a few lines.
//!
//! `cargo run -p tgsic-runtime --example render`

use tgsic_runtime::host::{Bindings, CompileOptions, EngineKind, Frame, RunControl, Runtime};
use tgsic_runtime::host::{Filter, Sampler, Texture, Wrap};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let text = "FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL SAMP[0]
DCL CONST[0]
DCL TEMP[0]
TEX TEMP[0], IN[0], SAMP[0], 2D
MUL OUT[0], TEMP[0], CONST[0]
END
";
    // A runtime (worker threads, caches), then the shader read (text or binary is detected),
    // validated and prepared, and compiled for the reference interpreter.
    let rt = Runtime::new(Default::default())?;
    let shader = rt.load(text.as_bytes())?;
    let interp = rt.compile(
        &shader,
        &CompileOptions::with_engine(EngineKind::Interpreter),
    )?;

    // A 2x2 texture: red, green / blue, white (row 0 first), sampled with bilinear filtering.
    let texels = [
        255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255,
    ];
    let texture = Texture::from_rgba8(2, 2, 1, &texels)?;
    let sampler = Sampler {
        min: Filter::Linear,
        mag: Filter::Linear,
        wrap: [Wrap::Clamp; 3],
        ..Sampler::default()
    };
    let half = 0.5f32.to_bits();
    let bindings = Bindings {
        constants: vec![vec![[half, half, half, 1f32.to_bits()]]],
        textures: vec![Some(texture)],
        samplers: vec![sampler],
        ..Bindings::default()
    };

    let frame = Frame {
        width: 8,
        height: 8,
        output: 0,
    };
    let image = interp.render(&rt, &bindings, frame, &RunControl::default())?;
    // Bottom-left pixel: mostly red, halved by the constant.
    let p = image.pixel(0, 0);
    println!("pixel (0, 0) = {p:?}");
    assert!((p[0] - 0.5).abs() < 1e-6 && p[3] == 1.0);
    println!("pixel (7, 7) = {:?}", image.pixel(7, 7));
    Ok(())
}
