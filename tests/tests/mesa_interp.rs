//! Mesa's own output: every shader of `corpus/mesa` rendered by the interpreter under the
//! folder's contract (index.json) and compared with `<name>.ref.f32`.

use std::path::Path;
use tgsic_runtime::compare::{compare, read_f32};
use tgsic_runtime::interp::{Bindings, Shader, render};
use tgsic_runtime::texture::Texture;
use tgsic_tests::shared_dir;

fn words(path: &Path) -> Vec<[u32; 4]> {
    tgsic_runtime::interp::constant_registers(&std::fs::read(path).expect("constant file"))
}

#[test]
fn the_interpreter_reproduces_mesas_output() {
    let Some(shared) = shared_dir() else { return };
    let dir = shared.join("corpus/mesa");
    let texture = Texture::from_png(&dir.join("texture32.png")).expect("texture32.png");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_suffix(".tgsi")
                .map(str::to_string)
        })
        .collect();
    names.sort();
    let mut lines = Vec::new();
    let (mut identical, mut failing) = (0, 0);
    for name in &names {
        let src = std::fs::read_to_string(dir.join(format!("{name}.tgsi"))).unwrap();
        let shader = match Shader::new(tgsic::front::text::parse(&src).unwrap()) {
            Ok(s) => s,
            Err(e) => {
                failing += 1;
                lines.push(format!("{name}: FAILING (load: {e})"));
                continue;
            }
        };
        let mut bind = Bindings {
            clear: [-7.0; 4],
            ..Bindings::default()
        };
        let const_file = dir.join(format!("{name}.const0.bin"));
        if const_file.exists() {
            bind.constants.push(words(&const_file));
        }
        // Every sampler of these shaders reads texture unit 0's texture (index.json).
        let samplers = shader
            .program
            .declarations_of(tgsic::tgsi::File::Sampler)
            .map(|d| d.span().last as usize + 1)
            .max()
            .unwrap_or(0);
        let views = shader
            .program
            .declarations_of(tgsic::tgsi::File::SamplerView)
            .map(|d| d.span().last as usize + 1)
            .max()
            .unwrap_or(0);
        bind.textures = vec![Some(texture.clone()); samplers.max(views)];
        let img = match render(&shader, &bind, 64, 64, 0) {
            Ok(i) => i,
            Err(e) => {
                failing += 1;
                lines.push(format!("{name}: FAILING ({e})"));
                continue;
            }
        };
        let ours: Vec<f32> = img.pixels.iter().flatten().copied().collect();
        let reference = read_f32(&dir.join(format!("{name}.ref.f32"))).unwrap();
        let c = compare(&ours, &reference);
        if c.identical == c.total {
            identical += 1;
            lines.push(format!("{name}: bit-identical"));
        } else {
            let worst = c.worst.map(|(k, a, b)| {
                format!(
                    " worst at pixel ({}, {}).{}: {a} vs {b}",
                    (k / 4) % 64,
                    k / 256,
                    ["r", "g", "b", "a"][k % 4]
                )
            });
            lines.push(format!(
                "{name}: max {} ulp, {} of {} identical, {} NaN / {} inf mismatches{}",
                c.max_ulp,
                c.identical,
                c.total,
                c.nan_mismatches,
                c.inf_mismatches,
                worst.unwrap_or_default()
            ));
        }
    }
    println!(
        "{}\n{identical} of {} bit-identical, {failing} failing",
        lines.join("\n"),
        names.len()
    );
    assert_eq!(failing, 0, "{}", lines.join("\n"));
    // The goal of the interpreter's issue: bit-identical everywhere. Keep it that way.
    assert_eq!(identical, names.len(), "{}", lines.join("\n"));
}
