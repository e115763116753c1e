//! A module: a validated program prepared once for running, with what every engine and host
//! needs of it (storage sizes, arrays, matching block ends, its token stream, its interface),
//! and the checks that make a program executable.

use super::reflect::Reflection;
use std::collections::HashMap;
use std::sync::Arc;
use tgsic::tgsi::*;
use tgsic::valid::{Valid, ValidationError};
use thiserror::Error;

/// Why a program cannot be loaded for execution.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LoadError {
    /// The program does not validate.
    #[error("the program is invalid: {}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Invalid(Vec<ValidationError>),
    /// A token stream of a newer minor revision (loads, must not run).
    #[error("revision {0}.{1} is newer than 1.1: the program reads but must not be executed")]
    NotExecutable(u8, u8),
    /// A program the binary token form cannot hold (the validator refuses those; a program
    /// built by hand may still be one).
    #[error("the program cannot be encoded as tokens: {0}")]
    Encode(String),
    /// An opcode without defined semantics.
    #[error("{location}: {opcode} cannot be executed: {reason}")]
    NoSemantics {
        /// The opcode.
        opcode: &'static str,
        /// Why.
        reason: &'static str,
        /// Where.
        location: Location,
    },
}

/// A shader read and validated once, prepared for every engine: what the interpreter runs,
/// what the JIT lifts, what a host compiles and binds.
#[derive(Debug, Clone)]
pub struct Module {
    /// The program, validated.
    pub program: Valid,
    /// Registers to allocate per file (one past the highest declared index).
    pub sizes: HashMap<File, usize>,
    /// The declared span of each file, for clamping indirect reads.
    pub spans: HashMap<File, RegRange>,
    /// The range of each declared array.
    pub arrays: HashMap<(File, u32), RegRange>,
    /// For block openers and middles, the matching next instruction (IF → ELSE or ENDIF,
    /// ELSE → ENDIF, loop begin → loop end, loop end → loop begin, SWITCH → ENDSWITCH,
    /// BGNSUB → ENDSUB).
    pub matching: Vec<u32>,
    /// The CASE instructions of each SWITCH (by the SWITCH's index).
    pub cases: HashMap<usize, Vec<usize>>,
    /// Whether any instruction reads or writes NV condition codes.
    pub uses_cc: bool,
    /// Vertices per input primitive of a geometry shader.
    pub gs_vertices: u32,
    /// `barriers[i]`: how many BARRIER and MEMBAR instructions come before instruction `i`
    /// (one entry more than instructions).
    barriers: Vec<u32>,
    /// The work-group size of a compute program (`CS_FIXED_BLOCK_*`; missing ones are 1).
    pub block: Option<[u32; 3]>,
    /// The program as revision 1.1 tokens: the key of compiled-code caches.
    tokens: Arc<[u32]>,
    /// Its interface.
    reflection: Arc<Reflection>,
}

impl Module {
    /// Validates and analyses `program`.
    ///
    /// # Errors
    /// [`LoadError`] when it is invalid, of a newer revision, or uses an opcode without
    /// defined semantics.
    pub fn new(program: Program) -> Result<Module, LoadError> {
        Module::from_valid(Valid::new(program).map_err(LoadError::Invalid)?)
    }

    /// Analyses `program`, validated before.
    ///
    /// # Errors
    /// [`LoadError`] when it is of a newer revision, uses an opcode without defined
    /// semantics, or cannot be encoded as tokens.
    pub fn from_valid(program: Valid) -> Result<Module, LoadError> {
        if !program.revision.is_executable() {
            return Err(LoadError::NotExecutable(
                program.revision.major,
                program.revision.minor,
            ));
        }
        for (i, inst) in program.instructions.iter().enumerate() {
            if let Some(reason) = inst.no_semantics() {
                return Err(LoadError::NoSemantics {
                    opcode: inst.opcode.name(),
                    reason,
                    location: program.source_map.instruction(i),
                });
            }
        }
        let mut sizes: HashMap<File, usize> = HashMap::new();
        let mut spans: HashMap<File, RegRange> = HashMap::new();
        let mut arrays = HashMap::new();
        for d in &program.declarations {
            let span = d.span();
            let e = sizes.entry(d.file).or_default();
            *e = (*e).max(span.last as usize + 1);
            spans
                .entry(d.file)
                .and_modify(|r| {
                    r.first = r.first.min(span.first);
                    r.last = r.last.max(span.last);
                })
                .or_insert(span);
            if let Some(id) = d.array_id {
                arrays.insert((d.file, id), span);
            }
        }
        let insts = &program.instructions;
        let mut matching = vec![u32::MAX; insts.len()];
        let mut cases: HashMap<usize, Vec<usize>> = HashMap::new();
        let mut stack: Vec<usize> = Vec::new();
        for (i, inst) in insts.iter().enumerate() {
            match inst.opcode.flow() {
                Some(FlowOp::If | FlowOp::BeginLoop(_) | FlowOp::Switch | FlowOp::BeginSub) => {
                    stack.push(i)
                }
                Some(FlowOp::Else) => {
                    if let Some(open) = stack.last_mut() {
                        matching[*open] = i as u32;
                        *open = i;
                    }
                }
                Some(FlowOp::Case | FlowOp::Default) => {
                    if let Some(&open) = stack.last() {
                        cases.entry(open).or_default().push(i);
                    }
                }
                Some(FlowOp::EndIf | FlowOp::EndSwitch | FlowOp::EndSub) => {
                    if let Some(open) = stack.pop() {
                        matching[open] = i as u32;
                    }
                }
                Some(FlowOp::EndLoop(_)) => {
                    if let Some(open) = stack.pop() {
                        matching[open] = i as u32;
                        matching[i] = open as u32;
                    }
                }
                _ => {}
            }
        }
        let uses_cc = insts.iter().any(|i| {
            i.cond_update.is_some()
                || i.cond_test.is_some()
                || i.dst.iter().any(|d| d.cond.is_some())
        });
        let gs_vertices = program
            .property(PropertyName::GsInputPrimitive)
            .and_then(Primitive::from_bits)
            .and_then(Primitive::vertices_per_primitive)
            .unwrap_or(1);
        let mut barriers = Vec::with_capacity(insts.len() + 1);
        barriers.push(0u32);
        for inst in insts {
            let meet = matches!(inst.opcode, Opcode::Barrier | Opcode::Membar);
            barriers.push(barriers.last().copied().unwrap_or(0) + meet as u32);
        }
        let block_props = [
            PropertyName::CsFixedBlockWidth,
            PropertyName::CsFixedBlockHeight,
            PropertyName::CsFixedBlockDepth,
        ];
        let block = block_props
            .iter()
            .any(|&n| program.property(n).is_some())
            .then(|| block_props.map(|n| program.property(n).unwrap_or(1)));
        let tokens: Arc<[u32]> = tgsic::front::binary::encode(&program)
            .map_err(|e| LoadError::Encode(e.to_string()))?
            .into();
        let size = |f: File| sizes.get(&f).copied().unwrap_or(0);
        let reflection = Arc::new(Reflection::with_vertices(
            &program,
            size,
            gs_vertices as usize,
        ));
        Ok(Module {
            program,
            sizes,
            spans,
            arrays,
            matching,
            cases,
            uses_cc,
            gs_vertices,
            barriers,
            block,
            tokens,
            reflection,
        })
    }

    /// The program as revision 1.1 tokens, whole: what caches of compiled code key on (two
    /// programs share an entry only when they are the same program).
    pub(crate) fn tokens(&self) -> &Arc<[u32]> {
        &self.tokens
    }

    /// Its interface: inputs, outputs, constant buffers, samplers, properties.
    pub fn reflection(&self) -> &Reflection {
        &self.reflection
    }

    /// Its interface, shared.
    pub fn reflection_arc(&self) -> &Arc<Reflection> {
        &self.reflection
    }

    /// Each SV register with its semantic, in declaration order.
    pub(crate) fn system_values(&self) -> Vec<(usize, Semantic)> {
        self.program
            .declarations_of(File::SystemValue)
            .filter_map(|d| d.semantic.map(|s| (d, s.name)))
            .flat_map(|(d, s)| {
                d.ranges
                    .iter()
                    .flat_map(|r| r.first..=r.last)
                    .map(move |r| (r as usize, s))
            })
            .collect()
    }

    /// Whether a BARRIER or MEMBAR lies among instructions `first..=last`.
    pub fn barrier_between(&self, first: usize, last: usize) -> bool {
        let at = |i: usize| self.barriers.get(i).copied().unwrap_or(0);
        at(last.saturating_add(1).min(self.barriers.len() - 1)) > at(first)
    }

    /// Registers allocated for `file`.
    pub fn size(&self, file: File) -> usize {
        self.sizes.get(&file).copied().unwrap_or(0)
    }

    /// The registers a batch of this program holds: inputs (for every vertex of a geometry
    /// shader's primitive), system values and outputs.
    pub(crate) fn io_sizes(&self) -> [usize; 3] {
        let per_vertex = if self.program.processor == Processor::Geometry {
            self.gs_vertices as usize
        } else {
            1
        };
        [
            self.size(File::Input) * per_vertex,
            self.size(File::SystemValue),
            self.size(File::Output),
        ]
    }
}
