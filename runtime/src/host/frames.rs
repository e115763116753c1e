//! Pictures, vertex lists and primitive lists through a compiled shader, on the runtime's worker
//! threads: what a tool that renders whole frames (the `tgsic` program) asks of the host API,
//! beside the host's own invocations ([`super::Compiled::run_fragments`]).

use super::compiled::Compiled;
use super::error::HostError;
use super::invoke::RunReport;
use super::runtime::Runtime;
use crate::dispatch::{self, Band, BandOrder, Invocation, Picture, RunControl, RunOptions};
use crate::engine::Bindings;

/// A fragment shader's image: its size, and which `COLOR[output]` it shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The `COLOR` output the image shows.
    pub output: u32,
}

impl Runtime {
    /// How the `dispatch` drivers run on this runtime's threads, watched by `control`.
    fn run_options<'a>(&'a self, control: &RunControl<'a>) -> RunOptions<'a> {
        RunOptions {
            threads: self.threads(),
            pool: self.pool(),
            control: *control,
        }
    }
}

impl Compiled {
    /// Renders a fragment shader over `frame`'s pixel grid (the inputs follow from each pixel:
    /// `docs/run.md`): discarded pixels keep `bind.clear`, a component never written is 0.
    /// The image is the same for any number of threads.
    ///
    /// # Errors
    /// [`HostError::Run`] when the shader is not a fragment shader, a bound resource is
    /// missing, or an instruction cannot be executed.
    pub fn render(
        &self,
        rt: &Runtime,
        bind: &Bindings,
        frame: Frame,
        control: &RunControl<'_>,
    ) -> Result<Picture, HostError> {
        let opts = rt.run_options(control);
        let (w, h) = (frame.width, frame.height);
        Ok(dispatch::render_with(
            self,
            bind,
            w,
            h,
            frame.output,
            &opts,
        )?)
    }

    /// As [`Compiled::render`], into `image` (its `width` and `height` say the grid, `frame`'s
    /// are not used), reusing its pixels' memory: a host that renders frame after frame into
    /// one image allocates nothing per frame.
    ///
    /// # Errors
    /// As [`Compiled::render`].
    pub fn render_into(
        &self,
        rt: &Runtime,
        bind: &Bindings,
        output: u32,
        control: &RunControl<'_>,
        image: &mut Picture,
    ) -> Result<(), HostError> {
        let opts = rt.run_options(control);
        Ok(dispatch::render_into(self, bind, output, &opts, image)?)
    }

    /// As [`Compiled::render`], band by band: `sink` receives each band of `bands.0` rows (a
    /// multiple of 8) in the order `bands.1` asks for, so that an image of any size is
    /// rendered in memory proportional to its width.
    ///
    /// # Errors
    /// As [`Compiled::render`], and what `sink` returns (which stops the render).
    pub fn render_bands(
        &self,
        rt: &Runtime,
        bind: &Bindings,
        frame: Frame,
        bands: (u32, BandOrder),
        control: &RunControl<'_>,
        sink: &mut dyn FnMut(Band) -> Result<(), crate::engine::RunError>,
    ) -> Result<RunReport, HostError> {
        let opts = rt.run_options(control);
        let size = (frame.width, frame.height);
        let r = dispatch::render_rows(self, bind, size, frame.output, &opts, bands, sink)?;
        Ok(RunReport {
            invocations: u64::from(frame.width) * u64::from(frame.height),
            discarded: r.discarded,
            exhausted: r.exhausted,
        })
    }

    /// Runs a vertex shader once per vertex: `vertices[v][r]` is input register r of vertex
    /// v; VERTEXID and VERTEXID_NOBASE are the vertex's index, INSTANCEID 0.
    ///
    /// # Errors
    /// As [`Compiled::render`], for a vertex shader.
    pub fn run_vertex_list(
        &self,
        rt: &Runtime,
        bind: &Bindings,
        vertices: &[Vec<[u32; 4]>],
        control: &RunControl<'_>,
    ) -> Result<Vec<Invocation>, HostError> {
        let opts = rt.run_options(control);
        Ok(dispatch::run_vertices(self, bind, vertices, &opts)?)
    }

    /// Runs a geometry shader once per primitive: `primitives[p][v][r]` is input register r
    /// of vertex v; PRIMID is the primitive's index, INVOCATIONID 0.
    ///
    /// # Errors
    /// As [`Compiled::render`], for a geometry shader.
    pub fn run_primitive_list(
        &self,
        rt: &Runtime,
        bind: &Bindings,
        primitives: &[Vec<Vec<[u32; 4]>>],
        control: &RunControl<'_>,
    ) -> Result<Vec<Invocation>, HostError> {
        let opts = rt.run_options(control);
        Ok(dispatch::run_geometry(self, bind, primitives, &opts)?)
    }
}
