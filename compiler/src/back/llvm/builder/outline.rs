//! Exact functions compiled once per module ([`SimdBuilder::call_exact_rarely`]): a function
//! `exact.<name>` of f32 vectors of the host's width returning its two result vectors, built
//! by a second [`LlvmBuilder`] through the same shared lowering ([`inline_exact`]), and a call
//! to it for each piece of the host's width of the step where the shader needs it.
//!
//! The host's width, not the step's: a step of two or four vectors (interleaved steps,
//! `simd::step_lanes`) would compile the function two or four times as long (the exact SIN
//! and COS are some 550 instructions with AVX2, most of such a shader's compile time:
//! `results/history/math-2026-11-30.md`, "Accurate mode"). A step with such a lane (|x| ≥ 2³⁰, inf, NaN in accurate math, rare)
//! does the same work per lane either way; only the calls multiply. The mesa shaders that take
//! four steps never reach it, and their speed did not change.
//!
//! The function takes the shader's own function attributes (CPU, features, tuning, denormal
//! mode, vector width), so it computes what the inline form would, bit for bit: LLVM folds
//! nothing in float arithmetic that changes bits without fast-math flags, and there are none.
//! It is `noinline`: inlining it back is what it exists to avoid. (Marking it `cold` as well,
//! true of accurate math's fallback, measured no faster.)
//!
//! The call keeps the C convention, in which every vector register is the caller's to save.
//! `preserve_allcc` (the callee saves what it uses) was tried and gave wrong results: LLVM 19
//! ends such a function with `vzeroupper`, clearing the upper halves the caller was promised.

use super::*;
use crate::back::abi::Invariant;
use crate::back::simd::{ExactFn, inline_exact};
use inkwell::attributes::AttributeLoc;
use inkwell::module::Linkage;

impl<'ctx> LlvmBuilder<'_, 'ctx> {
    /// `f` of `args` through the module's one copy of it, built on first use.
    pub(super) fn call_outlined(&mut self, f: ExactFn, args: &[V<'ctx>]) -> R<[V<'ctx>; 2]> {
        f.check_arity(args.len())?;
        let func = match self.outlined.iter().find(|(g, _)| *g == f) {
            Some(&(_, func)) => func,
            None => {
                let func = self.build_outlined(f)?;
                self.outlined.push((f, func));
                func
            }
        };
        // The arguments cut into pieces of the function's width, one call a piece.
        let n = self.outlined_lanes();
        let mut pieces = Vec::with_capacity(args.len());
        for &a in args {
            let a = self.floats(a)?;
            pieces.push(self.pieces(a, n)?);
        }
        let mut outs: [Vec<V<'ctx>>; 2] = [Vec::new(), Vec::new()];
        for k in 0..self.lanes / n {
            let xs: Vec<BasicMetadataValueEnum> =
                pieces.iter().map(|p| p[k as usize].into()).collect();
            let call = self.b.build_call(func, &xs, "")?;
            let ValueKind::Basic(BasicValueEnum::StructValue(pair)) = call.try_as_basic_value()
            else {
                return Err(Invariant::ExactCall(format!("the call of exact {f:?}")).into());
            };
            for (i, o) in outs.iter_mut().enumerate() {
                o.push(vector(self.b.build_extract_value(pair, i as u32, "")?)?);
            }
        }
        let [a, b] = outs;
        Ok([self.joined(a)?, self.joined(b)?])
    }

    /// The lanes of the outlined functions: the host's widest vector, or the step's lanes
    /// where a step is narrower (a step is a power of two, as the width).
    fn outlined_lanes(&self) -> u32 {
        self.width.min(self.lanes)
    }

    /// Declares `exact.<f>` beside the shader and builds its body.
    fn build_outlined(&mut self, f: ExactFn) -> R<FunctionValue<'ctx>> {
        let n = self.outlined_lanes();
        let vf = self.cx.f32_type().vec_type(n);
        let params: Vec<inkwell::types::BasicMetadataTypeEnum> =
            (0..f.arity()).map(|_| vf.into()).collect();
        let pair = self.cx.struct_type(&[vf.into(), vf.into()], false);
        let func = self.m.add_function(
            &format!("exact.{f:?}"),
            pair.fn_type(&params, false),
            Some(Linkage::Private),
        );
        for a in self.func.attributes(AttributeLoc::Function) {
            func.add_attribute(AttributeLoc::Function, a);
        }
        func.add_attribute(
            AttributeLoc::Function,
            super::super::enum_attr(self.cx, "noinline"),
        );
        let mut sub = LlvmBuilder::new(
            self.cx,
            self.m,
            func,
            n,
            self.callees,
            (self.fma, self.width, self.hardware_gather),
        )?;
        // One constant per table in the module: the shader's and the function's shared.
        sub.tables = std::mem::take(&mut self.tables);
        sub.keep_denormals = self.keep_denormals;
        let body = sub.block()?;
        sub.end_entry(body)?;
        sub.switch_to(body)?;
        let xs: Vec<V<'ctx>> = func
            .get_param_iter()
            .map(|p| p.into_vector_value())
            .collect();
        let ys = inline_exact(&mut sub, f, &xs)?;
        let mut ret = pair.get_undef();
        for (i, &y) in ys.iter().enumerate() {
            let y = sub.floats(y)?;
            ret = sub
                .b
                .build_insert_value(ret, y, i as u32, "")?
                .into_struct_value();
        }
        sub.b.build_return(Some(&ret))?;
        self.tables = std::mem::take(&mut sub.tables);
        Ok(func)
    }
}
