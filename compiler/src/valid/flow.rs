//! Control-flow structure: balanced blocks, statements in the blocks they belong to, labels.

use super::error::{ValidationError, ValidationErrorKind};
use crate::tgsi::*;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Block {
    If { has_else: bool },
    Loop(LoopKind),
    Switch { has_default: bool },
    Sub,
}

/// Checks the block structure of `p`, appending what is wrong to `errors`.
pub(super) fn check(p: &Program, errors: &mut Vec<ValidationError>) {
    let insts = &p.instructions;
    let mut stack: Vec<(Block, usize)> = Vec::new();
    let mut after_end = false;
    let mut push_err = |i: usize, kind: ValidationErrorKind| {
        errors.push(ValidationError {
            location: p.source_map.instruction(i),
            kind,
        });
    };
    let cf = |s: String| ValidationErrorKind::ControlFlow(s);
    for (i, inst) in insts.iter().enumerate() {
        let name = inst.opcode.name();
        let top = stack.last().copied();
        let innermost = |stack: &[(Block, usize)]| match stack.last() {
            Some((_, at)) => format!(
                "the innermost open block is {} at instruction {at}",
                insts[*at].opcode
            ),
            None => "no block is open".to_string(),
        };
        let flow = inst.opcode.flow();
        if after_end && stack.is_empty() && flow != Some(FlowOp::BeginSub) {
            push_err(
                i,
                cf(format!(
                    "{name} follows END outside any subroutine (only BGNSUB ... ENDSUB may follow END)"
                )),
            );
        }
        match flow {
            Some(FlowOp::If) => stack.push((Block::If { has_else: false }, i)),
            Some(FlowOp::Else) => match top {
                Some((Block::If { has_else: false }, at)) => {
                    stack.pop();
                    stack.push((Block::If { has_else: true }, at));
                }
                Some((Block::If { has_else: true }, at)) => {
                    push_err(
                        i,
                        cf(format!("a second ELSE for the IF at instruction {at}")),
                    );
                }
                _ => push_err(
                    i,
                    cf(format!("ELSE without an open IF ({})", innermost(&stack))),
                ),
            },
            Some(FlowOp::EndIf) => match top {
                Some((Block::If { .. }, _)) => {
                    stack.pop();
                }
                _ => push_err(
                    i,
                    cf(format!("ENDIF without an open IF ({})", innermost(&stack))),
                ),
            },
            Some(FlowOp::BeginLoop(k)) => stack.push((Block::Loop(k), i)),
            Some(FlowOp::EndLoop(k)) => match top {
                Some((Block::Loop(open), _)) if open == k => {
                    stack.pop();
                }
                _ => push_err(
                    i,
                    cf(format!(
                        "{name} without its opening instruction ({})",
                        innermost(&stack)
                    )),
                ),
            },
            Some(FlowOp::Break | FlowOp::BreakC) => {
                let inside = stack
                    .iter()
                    .rev()
                    .take_while(|(b, _)| *b != Block::Sub)
                    .any(|(b, _)| matches!(b, Block::Loop(_) | Block::Switch { .. }));
                if !inside {
                    push_err(i, cf(format!("{name} outside any loop or switch")));
                }
            }
            Some(FlowOp::Continue) => {
                let inside = stack
                    .iter()
                    .rev()
                    .take_while(|(b, _)| *b != Block::Sub)
                    .any(|(b, _)| matches!(b, Block::Loop(_)));
                if !inside {
                    push_err(i, cf("CONT outside any loop".into()));
                }
            }
            Some(FlowOp::Switch) => stack.push((Block::Switch { has_default: false }, i)),
            Some(FlowOp::Case) => {
                if !matches!(top, Some((Block::Switch { .. }, _))) {
                    push_err(
                        i,
                        cf(format!("CASE outside a SWITCH ({})", innermost(&stack))),
                    );
                }
            }
            Some(FlowOp::Default) => match top {
                Some((Block::Switch { has_default: false }, at)) => {
                    stack.pop();
                    stack.push((Block::Switch { has_default: true }, at));
                }
                Some((Block::Switch { has_default: true }, at)) => {
                    push_err(
                        i,
                        cf(format!(
                            "a second DEFAULT in the SWITCH at instruction {at}"
                        )),
                    );
                }
                _ => push_err(
                    i,
                    cf(format!("DEFAULT outside a SWITCH ({})", innermost(&stack))),
                ),
            },
            Some(FlowOp::EndSwitch) => match top {
                Some((Block::Switch { .. }, _)) => {
                    stack.pop();
                }
                _ => push_err(
                    i,
                    cf(format!(
                        "ENDSWITCH without an open SWITCH ({})",
                        innermost(&stack)
                    )),
                ),
            },
            Some(FlowOp::BeginSub) => {
                if stack.is_empty() {
                    stack.push((Block::Sub, i));
                } else {
                    push_err(
                        i,
                        cf(format!(
                            "BGNSUB inside another block ({})",
                            innermost(&stack)
                        )),
                    );
                }
            }
            Some(FlowOp::EndSub) => match top {
                Some((Block::Sub, _)) => {
                    stack.pop();
                }
                _ => push_err(
                    i,
                    cf(format!(
                        "ENDSUB without an open BGNSUB ({})",
                        innermost(&stack)
                    )),
                ),
            },
            Some(FlowOp::End) => {
                if stack.is_empty() {
                    after_end = true;
                } else {
                    push_err(i, cf(format!("END inside a block ({})", innermost(&stack))));
                }
            }
            Some(FlowOp::Call | FlowOp::CallNz) => match inst.label {
                Some(t)
                    if (t as usize) < insts.len() && insts[t as usize].opcode == Opcode::BgnSub => {
                }
                Some(t) if (t as usize) < insts.len() => push_err(
                    i,
                    ValidationErrorKind::Label(format!(
                        "{name} :{t} names instruction {t}, a {}, not a BGNSUB",
                        insts[t as usize].opcode
                    )),
                ),
                Some(t) => push_err(
                    i,
                    ValidationErrorKind::Label(format!(
                        "{name} :{t} points past the last instruction ({})",
                        insts.len().saturating_sub(1)
                    )),
                ),
                None => push_err(
                    i,
                    ValidationErrorKind::Label(format!(
                        "{name} needs a target label (`{name} :N`)"
                    )),
                ),
            },
            Some(FlowOp::Branch) => match inst.label {
                Some(t) if (t as usize) < insts.len() => {}
                Some(t) => push_err(
                    i,
                    ValidationErrorKind::Label(format!(
                        "BRA :{t} points past the last instruction ({})",
                        insts.len().saturating_sub(1)
                    )),
                ),
                None => push_err(
                    i,
                    ValidationErrorKind::Label("BRA needs a target label (`BRA :N`)".into()),
                ),
            },
            Some(FlowOp::Return) | None => {}
        }
    }
    for (block, at) in stack {
        let closer = match block {
            Block::If { .. } => "ENDIF",
            Block::Loop(LoopKind::Loop) => "ENDLOOP",
            Block::Loop(LoopKind::For) => "ENDFOR",
            Block::Loop(LoopKind::Rep) => "ENDREP",
            Block::Switch { .. } => "ENDSWITCH",
            Block::Sub => "ENDSUB",
        };
        push_err(
            at,
            cf(format!(
                "{} is never closed ({closer} missing)",
                insts[at].opcode
            )),
        );
    }
}
