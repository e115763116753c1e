//! What a shader reads and writes, as a host needs it to feed and bind it.

use std::collections::BTreeSet;
use tgsic::tgsi::{
    File, Interpolation, Processor, Program, PropertyName, Register, ReturnType, Semantic,
    TextureTarget,
};

/// One declared input, output or system-value register.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Varying {
    /// Its index in its file (`IN[3]` is 3).
    pub register: u32,
    /// Its semantic and semantic index (`GENERIC[2]`), if declared with one.
    pub semantic: Option<(Semantic, u32)>,
    /// How a rasterizer interpolates it (fragment inputs), if declared.
    pub interpolation: Option<Interpolation>,
}

/// A constant buffer the shader reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConstantBuffer {
    /// The buffer (`CONST[1][..]` is buffer 1).
    pub buffer: u32,
    /// Registers it needs: one past the highest declared.
    pub registers: u32,
}

/// A sampler view the shader declares (`DCL SVIEW[n], 2D, FLOAT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SamplerView {
    /// The unit.
    pub unit: u32,
    /// The texture target.
    pub target: TextureTarget,
    /// The return type of each component.
    pub return_types: [ReturnType; 4],
}

/// A shader's interface. [`Reflection::input_registers`] and
/// [`Reflection::output_registers`] are the register counts of the host's buffers
/// ([`Layout`](crate::host::Layout)): inputs are the IN registers followed by the system-value registers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reflection {
    /// Fragment, vertex, geometry, ...
    pub processor: Processor,
    /// Declared IN registers, by register.
    pub inputs: Vec<Varying>,
    /// Declared system values (SV registers), by register.
    pub system_values: Vec<Varying>,
    /// Declared OUT registers, by register.
    pub outputs: Vec<Varying>,
    /// Registers per invocation in an input buffer: the IN file, then the SV file (one past the
    /// highest declared index of each).
    pub input_registers: usize,
    /// Where the SV registers start in an input buffer (the IN file's size); for a geometry
    /// shader, in each of a primitive's vertices ([`Reflection::primitive_input_registers`]).
    pub first_system_value: usize,
    /// Vertices per input primitive of a geometry shader (GS_INPUT_PRIMITIVE); 1 otherwise.
    pub vertices_per_primitive: usize,
    /// Vertices a geometry shader emits at most per primitive (GS_MAX_OUTPUT_VERTICES); 0
    /// otherwise.
    pub max_output_vertices: usize,
    /// Registers per invocation in an output buffer: the OUT file.
    pub output_registers: usize,
    /// Constant buffers declared, by buffer.
    pub constant_buffers: Vec<ConstantBuffer>,
    /// Constant buffers the instructions read (all declared ones for an indirectly addressed
    /// buffer): the ones a run needs bound.
    pub constant_buffers_read: Vec<u32>,
    /// Texture units the instructions sample: the ones a run needs bound.
    pub texture_units_read: Vec<u32>,
    /// Sampler units declared (`SAMP[n]`).
    pub samplers: Vec<u32>,
    /// Sampler views declared, by unit.
    pub views: Vec<SamplerView>,
    /// Properties (`PROPERTY FS_COORD_ORIGIN UPPER_LEFT`), as declared.
    pub properties: Vec<(PropertyName, u32)>,
}

fn varyings(p: &Program, file: File) -> Vec<Varying> {
    let mut v: Vec<Varying> = p
        .declarations_of(file)
        .flat_map(|d| {
            let semantic = d.semantic.map(|s| (s.name, s.index));
            let interpolation = d.interpolation;
            d.ranges
                .iter()
                .flat_map(|r| r.first..=r.last)
                .enumerate()
                .map(move |(k, register)| Varying {
                    register,
                    // A range of GENERIC[n] declares GENERIC[n], GENERIC[n + 1], ...
                    semantic: semantic.map(|(s, i)| (s, i + k as u32)),
                    interpolation,
                })
        })
        .collect();
    v.sort_by_key(|x| x.register);
    v
}

impl Reflection {
    /// The interface of `p`; `size` gives each register file's allocated size (one past the
    /// highest declared index).
    pub(super) fn of(p: &Program, size: impl Fn(File) -> usize) -> Reflection {
        Reflection::with_vertices(p, size, 1)
    }

    /// As [`Reflection::of`], with the vertices per input primitive of a geometry shader.
    pub(super) fn with_vertices(
        p: &Program,
        size: impl Fn(File) -> usize,
        vertices_per_primitive: usize,
    ) -> Reflection {
        let mut constant_buffers: Vec<ConstantBuffer> = Vec::new();
        for d in p.declarations_of(File::Constant) {
            let buffer = d.dimension.unwrap_or(0);
            let registers = d.ranges.iter().map(|r| r.last + 1).max().unwrap_or(0);
            match constant_buffers.iter_mut().find(|c| c.buffer == buffer) {
                Some(c) => c.registers = c.registers.max(registers),
                None => constant_buffers.push(ConstantBuffer { buffer, registers }),
            }
        }
        constant_buffers.sort_by_key(|c| c.buffer);
        let mut samplers: Vec<u32> = p
            .declarations_of(File::Sampler)
            .flat_map(|d| d.ranges.iter().flat_map(|r| r.first..=r.last))
            .collect();
        samplers.sort_unstable();
        let mut views: Vec<SamplerView> = p
            .declarations_of(File::SamplerView)
            .flat_map(|d| {
                let sv = d.sampler_view;
                d.ranges
                    .iter()
                    .flat_map(|r| r.first..=r.last)
                    .filter_map(move |unit| {
                        sv.map(|v| SamplerView {
                            unit,
                            target: v.target,
                            return_types: v.return_types,
                        })
                    })
            })
            .collect();
        views.sort_by_key(|v| v.unit);
        let first_system_value = size(File::Input);
        let (buffers_read, units_read) = resources_read(p);
        Reflection {
            processor: p.processor,
            inputs: varyings(p, File::Input),
            system_values: varyings(p, File::SystemValue),
            outputs: varyings(p, File::Output),
            input_registers: first_system_value + size(File::SystemValue),
            first_system_value,
            vertices_per_primitive: vertices_per_primitive.max(1),
            max_output_vertices: p
                .properties
                .iter()
                .find(|q| q.name == PropertyName::GsMaxOutputVertices)
                .map_or(0, |q| q.value as usize),
            output_registers: size(File::Output),
            constant_buffers,
            constant_buffers_read: buffers_read.into_iter().collect(),
            texture_units_read: units_read.into_iter().collect(),
            samplers,
            views,
            properties: p.properties.iter().map(|q| (q.name, q.value)).collect(),
        }
    }

    /// The interface of a program that has not been prepared (register files sized by their
    /// declarations).
    pub fn of_program(p: &Program) -> Reflection {
        Reflection::of(p, |f| {
            p.declarations_of(f)
                .flat_map(|d| d.ranges.iter().map(|r| r.last as usize + 1))
                .max()
                .unwrap_or(0)
        })
    }

    /// Registers per primitive in a geometry shader's input buffer: each vertex's IN registers,
    /// vertex after vertex, then the SV registers.
    pub fn primitive_input_registers(&self) -> usize {
        self.vertices_per_primitive * self.first_system_value
            + (self.input_registers - self.first_system_value)
    }

    /// The input register with `semantic` (and semantic index), if declared.
    pub fn input(&self, semantic: Semantic, index: u32) -> Option<u32> {
        self.inputs
            .iter()
            .find(|v| v.semantic == Some((semantic, index)))
            .map(|v| v.register)
    }

    /// The output register with `semantic` (and semantic index), if declared.
    pub fn output(&self, semantic: Semantic, index: u32) -> Option<u32> {
        self.outputs
            .iter()
            .find(|v| v.semantic == Some((semantic, index)))
            .map(|v| v.register)
    }
}

/// The constant buffers and texture units the instructions read.
fn resources_read(p: &Program) -> (BTreeSet<u32>, BTreeSet<u32>) {
    let mut buffers = BTreeSet::new();
    let mut units = BTreeSet::new();
    let declared: Vec<u32> = p
        .declarations_of(File::Constant)
        .map(|d| d.dimension.unwrap_or(0))
        .collect();
    fn visit(r: &Register, declared: &[u32], buffers: &mut BTreeSet<u32>) {
        if r.file == File::Constant {
            match r.dimensions.first() {
                None => {
                    buffers.insert(0);
                }
                Some(d) if d.indirect.is_none() => {
                    buffers.insert(d.offset.max(0) as u32);
                }
                Some(_) => buffers.extend(declared.iter().copied()),
            }
        }
        for i in std::iter::once(&r.index).chain(&r.dimensions) {
            if let Some(ind) = &i.indirect {
                visit(&ind.register, declared, buffers);
            }
        }
    }
    for inst in &p.instructions {
        for s in &inst.src {
            visit(&s.register, &declared, &mut buffers);
        }
        if let Some(t) = inst.opcode.tex() {
            let k = t.view.or(t.sampler);
            if let Some(s) = k.and_then(|k| inst.src.get(k as usize)) {
                units.insert(s.register.index.offset.max(0) as u32);
            }
        }
    }
    (buffers, units)
}
