//! How the step's recipe (`mod.rs`) records a dispatch: counted, labelled, direct or gated by
//! the rebuild decision, in a compute pass timed by its stage group.

use super::{GpuBackend, collide, neighbours};

impl GpuBackend {
    /// Records a dispatch of `groups` work-groups and counts it.
    pub(super) fn dispatch_groups(
        &self,
        pass: &mut wgpu::ComputePass,
        pipeline: &wgpu::ComputePipeline,
        bg: &wgpu::BindGroup,
        groups: (u32, u32),
    ) {
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, bg, &[]);
        pass.dispatch_workgroups(groups.0, groups.1, 1);
        self.dispatches.set(self.dispatches.get() + 1);
        super::traffic::tally(pipeline, bg);
    }

    /// Records a per-sphere dispatch: a work-group per [`WORKGROUP_SIZE`] spheres.
    pub(super) fn dispatch_spheres(
        &self,
        pass: &mut wgpu::ComputePass,
        pipeline: &wgpu::ComputePipeline,
        bg: &wgpu::BindGroup,
    ) {
        self.dispatch_groups(pass, pipeline, bg, self.dims);
    }

    /// The contact passes: the counting ones while work is counted.
    pub(super) fn collide_passes(&self) -> &collide::CollidePipelines {
        self.counting
            .as_ref()
            .unwrap_or(&self.stages.collide.passes)
    }

    /// Begins a compute pass of stage group `stage` (an index into [`crate::setup::STAGES`]), with
    /// timestamp writes when profiling.
    pub(super) fn pass<'e>(
        &self,
        enc: &'e mut wgpu::CommandEncoder,
        label: &'static str,
        stage: usize,
    ) -> wgpu::ComputePass<'e> {
        enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(label),
            timestamp_writes: self.profiler.as_ref().and_then(|p| p.writes(stage, label)),
        })
    }

    /// Records the list's build on the current set (`neighbours::GpuList::record_build`), gated
    /// by the rebuild decision or not; a compute pass per entry point while profiling, so that
    /// each is timed apart. Returns the dispatches recorded.
    pub(super) fn record_build(&self, enc: &mut wgpu::CommandEncoder, gated: bool) -> u64 {
        self.record_build_phase(enc, gated, super::neighbours::BuildPhase::Whole)
    }

    /// [`GpuBackend::record_build`]'s `phase` of the build.
    pub(super) fn record_build_phase(
        &self,
        enc: &mut wgpu::CommandEncoder,
        gated: bool,
        phase: super::neighbours::BuildPhase,
    ) -> u64 {
        let mut begin = |label: &'static str| {
            self.pass(enc, label, super::profiler::stage::BINNING)
                .forget_lifetime()
        };
        let walks = self
            .counting_walks
            .as_ref()
            .unwrap_or(&self.stages.neighbours.walks);
        self.list.record_build(
            &mut begin,
            self.profiler.is_some(),
            &self.stages,
            walks,
            self.cur,
            &self.gate,
            gated,
            phase,
        )
    }

    /// A counted indirect dispatch, from slot `k` (`neighbours::slot`) of the gate's `args`.
    fn dispatch_indirect(
        &self,
        pass: &mut wgpu::ComputePass,
        (pipeline, bg): (&wgpu::ComputePipeline, &wgpu::BindGroup),
        args: &wgpu::Buffer,
        k: usize,
    ) {
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, bg, &[]);
        pass.dispatch_workgroups_indirect(args, neighbours::Gate::offset(k));
        self.dispatches.set(self.dispatches.get() + 1);
        super::traffic::tally(pipeline, bg);
    }

    /// A dispatch of the step's tail (contacts, direct gravity, end of step): indirect, from
    /// slot `k` of the gate's running counts, which a halting drift zeroes
    /// (`neighbours::slot`: `SPHERES`, `ROWS` or `ENTRIES`).
    pub(super) fn dispatch_tail(
        &self,
        pass: &mut wgpu::ComputePass,
        pipeline: &wgpu::ComputePipeline,
        bg: &wgpu::BindGroup,
        k: usize,
    ) {
        self.dispatch_indirect(pass, (pipeline, bg), &self.gate.running, k);
    }

    /// A dispatch gated by the list's rebuild decision: indirect, from slot `k` of the gate
    /// (`neighbours::slot`).
    pub(super) fn dispatch_gated(
        &self,
        pass: &mut wgpu::ComputePass,
        pipeline: &wgpu::ComputePipeline,
        bg: &wgpu::BindGroup,
        k: usize,
    ) {
        self.dispatch_indirect(pass, (pipeline, bg), &self.gate.gated, k);
        self.gated.set(self.gated.get() + 1);
    }
}
