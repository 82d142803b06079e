//! One adapter's device and queue, as the kernels use it: buffers from a pool, uploads
//! and downloads, compute pipelines built once, and dispatches recorded into one
//! command encoder that is submitted in batches.
//!
//! Ordering is the queue's (TF's single compute stream): every operation on the device
//! is recorded, in the order kernels run, into the pending encoder, and submissions
//! keep that order. So a buffer can go back to the pool as soon as its last tensor
//! drops (later commands that reuse it run after the earlier ones that read it), and a
//! host read waits only for the commands recorded before it. Uploads go through fresh
//! staging buffers copied inside the encoder, never `Queue::write_buffer` (whose
//! writes would run before commands already recorded but not yet submitted).
pub mod memory;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::mpsc;

use ferroflow_core::buffer::AlignedBuf;
use ferroflow_core::error::{Code, Error, Result};
use parking_lot::Mutex;
use wgpu::util::DeviceExt;

pub use memory::GpuBuffer;

/// Threads per workgroup of the one-dimensional kernels.
pub const WORKGROUP: u32 = 256;
/// Workgroups per dispatch dimension that every adapter supports.
const MAX_GROUPS: u32 = 65535;
/// Commands recorded before the encoder is submitted without being asked.
const BATCH_COMMANDS: usize = 64;
/// Staged upload bytes after which the encoder is submitted (bounds staging memory).
const BATCH_UPLOAD_BYTES: usize = 64 << 20;
/// Idle pooled bytes kept per device.
const POOL_MAX_BYTES: u64 = 1 << 30;

/// The error for something the GPU refused.
pub fn gpu_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::new(Code::Internal, format!("GPU {what}: {e}"))
}

/// Commands recorded and not yet submitted.
#[derive(Default)]
struct Pending {
    encoder: Option<wgpu::CommandEncoder>,
    commands: usize,
    upload_bytes: usize,
}

/// Idle buffers by size.
#[derive(Default)]
struct Pool {
    idle: HashMap<u64, Vec<wgpu::Buffer>>,
    bytes: u64,
}

/// A device (`/device:GPU:<index>`) and everything its kernels share.
pub struct Gpu {
    /// Its name in messages, `/device:GPU:0`.
    pub name: String,
    /// What the adapter says it is.
    pub info: wgpu::AdapterInfo,
    device: wgpu::Device,
    queue: wgpu::Queue,
    limits: wgpu::Limits,
    pending: Mutex<Pending>,
    pool: Mutex<Pool>,
    pipelines: Mutex<HashMap<String, Arc<wgpu::ComputePipeline>>>,
    /// The first error the device reported outside an error scope.
    lost: Arc<Mutex<Option<String>>>,
}

/// A buffer's size for `len` bytes: a multiple of 4 (copies and bindings need it),
/// never zero (bindings need it), rounded up to a size class above 64 KiB so the pool
/// finds reusable buffers.
fn buffer_size(len: usize) -> u64 {
    let len = (len as u64).max(4);
    if len <= 1 << 16 { len.next_multiple_of(256) } else { len.next_multiple_of(1 << 16) }
}

impl Gpu {
    /// Opens `adapter`'s device, as `/device:GPU:<index>`.
    pub fn open(adapter: &wgpu::Adapter, index: u32) -> Result<Gpu> {
        let info = adapter.get_info();
        let limits = adapter.limits();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("ferroflow"),
            required_limits: limits.clone(),
            ..Default::default()
        }))
        .map_err(|e| gpu_error("device", e))?;
        // wgpu's default handler panics; a kernel reports the error instead.
        let lost = Arc::new(Mutex::new(None));
        let record = Arc::clone(&lost);
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            record.lock().get_or_insert_with(|| e.to_string());
        }));
        Ok(Gpu {
            name: format!("/device:GPU:{index}"),
            info,
            device,
            queue,
            limits,
            pending: Mutex::new(Pending::default()),
            pool: Mutex::new(Pool::default()),
            pipelines: Mutex::new(HashMap::new()),
            lost,
        })
    }

    /// The device's error, if it reported one (then nothing it computed is trusted).
    fn check(&self) -> Result<()> {
        match self.lost.lock().as_ref() {
            Some(e) => Err(gpu_error("error", e)),
            None => Ok(()),
        }
    }

    /// A buffer for `len` bytes (contents unspecified), from the pool when one fits;
    /// `ResourceExhausted` past the adapter's limits.
    pub fn alloc(self: &Arc<Self>, len: usize) -> Result<GpuBuffer> {
        let size = buffer_size(len);
        if size > self.limits.max_buffer_size || size > self.limits.max_storage_buffer_binding_size {
            return Err(Error::new(
                Code::ResourceExhausted,
                format!(
                    "OOM when allocating {len} bytes on {}: the adapter's largest storage buffer is {} bytes",
                    self.name,
                    self.limits.max_buffer_size.min(self.limits.max_storage_buffer_binding_size)
                ),
            ));
        }
        let reused = {
            let mut pool = self.pool.lock();
            let buf = pool.idle.get_mut(&size).and_then(Vec::pop);
            if buf.is_some() {
                pool.bytes -= size;
            }
            buf
        };
        let buffer = reused.unwrap_or_else(|| {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        });
        Ok(GpuBuffer::new(Arc::clone(self), buffer, len))
    }

    /// Takes back a buffer whose last tensor dropped.
    pub(crate) fn recycle(&self, buffer: wgpu::Buffer) {
        let size = buffer.size();
        let mut pool = self.pool.lock();
        if pool.bytes + size <= POOL_MAX_BYTES {
            pool.bytes += size;
            pool.idle.entry(size).or_default().push(buffer);
        }
    }

    /// Records commands into the pending encoder (in kernel order), submitting the
    /// batch when it is long enough.
    pub fn record(&self, upload_bytes: usize, f: impl FnOnce(&mut wgpu::CommandEncoder)) {
        let mut pending = self.pending.lock();
        let encoder = pending
            .encoder
            .get_or_insert_with(|| self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None }));
        f(encoder);
        pending.commands += 1;
        pending.upload_bytes += upload_bytes;
        if pending.commands >= BATCH_COMMANDS || pending.upload_bytes >= BATCH_UPLOAD_BYTES {
            self.submit(&mut pending);
        }
    }

    fn submit(&self, pending: &mut Pending) {
        if let Some(encoder) = pending.encoder.take() {
            self.queue.submit([encoder.finish()]);
        }
        pending.commands = 0;
        pending.upload_bytes = 0;
    }

    /// Submits everything recorded so far.
    pub fn flush(&self) {
        self.submit(&mut self.pending.lock());
    }

    /// A new buffer holding `bytes`.
    pub fn upload(self: &Arc<Self>, bytes: &[u8]) -> Result<GpuBuffer> {
        let out = self.alloc(bytes.len())?;
        if bytes.is_empty() {
            return Ok(out);
        }
        let size = (bytes.len() as u64).next_multiple_of(4);
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("upload"),
            size,
            usage: wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: true,
        });
        {
            let mut view = staging.slice(..).get_mapped_range_mut().map_err(|e| gpu_error("upload", e))?;
            view.slice(..bytes.len()).copy_from_slice(bytes);
        }
        staging.unmap();
        self.record(bytes.len(), |enc| enc.copy_buffer_to_buffer(&staging, 0, out.buffer(), 0, size));
        Ok(out)
    }

    /// The first `len` bytes of `buffer`, once every command recorded before has run.
    pub fn download(&self, buffer: &wgpu::Buffer, len: usize) -> Result<AlignedBuf> {
        let mut out = AlignedBuf::for_overwrite(len)?;
        if len == 0 {
            return Ok(out);
        }
        let size = (len as u64).next_multiple_of(4);
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("download"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        self.record(0, |enc| enc.copy_buffer_to_buffer(buffer, 0, &staging, 0, size));
        self.flush();
        let (tx, rx) = mpsc::channel();
        staging.slice(..).map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| gpu_error("poll", e))?;
        rx.recv().map_err(|e| gpu_error("download", e))?.map_err(|e| gpu_error("download", e))?;
        self.check()?;
        let view = staging.slice(..).get_mapped_range().map_err(|e| gpu_error("download", e))?;
        out.as_mut_bytes().copy_from_slice(&view[..len]);
        Ok(out)
    }

    /// The compute pipeline of WGSL `source` (entry point `main`), built once; `key`
    /// names it in the cache and in errors.
    pub fn pipeline(&self, key: &str, source: impl FnOnce() -> String) -> Result<Arc<wgpu::ComputePipeline>> {
        self.try_pipeline(key, || Ok(source()))
    }

    /// [`pipeline`](Self::pipeline) for a source whose generation may fail.
    pub fn try_pipeline(
        &self,
        key: &str,
        source: impl FnOnce() -> Result<String>,
    ) -> Result<Arc<wgpu::ComputePipeline>> {
        if let Some(p) = self.pipelines.lock().get(key) {
            return Ok(Arc::clone(p));
        }
        let source = source()?;
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(key),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        let pipeline = self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(key),
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            cache: None,
        });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(gpu_error(&format!("kernel {key}"), e));
        }
        let pipeline = Arc::new(pipeline);
        self.pipelines.lock().insert(key.to_string(), Arc::clone(&pipeline));
        Ok(pipeline)
    }

    /// Runs `pipeline` over `threads` invocations (a one-dimensional index, split over
    /// two dispatch dimensions past 65535 workgroups), with `buffers` bound at
    /// 0, 1, ... and `params` (32-bit words) bound last.
    pub fn dispatch(
        &self,
        pipeline: &wgpu::ComputePipeline,
        buffers: &[&wgpu::Buffer],
        params: &[u32],
        threads: usize,
    ) {
        self.dispatch_groups(pipeline, buffers, params, groups_for(threads, WORKGROUP));
    }

    /// Runs `pipeline` over `groups` workgroups (x, y, z).
    pub fn dispatch_groups(
        &self,
        pipeline: &wgpu::ComputePipeline,
        buffers: &[&wgpu::Buffer],
        params: &[u32],
        groups: (u32, u32, u32),
    ) {
        self.dispatch_patched(pipeline, buffers, params, &[], groups);
    }

    /// [`dispatch_groups`](Self::dispatch_groups) with some parameter words taken from
    /// device memory: each `(buffer, word)` copies the first 4 bytes of `buffer` over
    /// `params[word]` on the device, just before the dispatch, so a value a kernel
    /// computed on the GPU (a learning rate) becomes a parameter without a host read.
    pub fn dispatch_patched(
        &self,
        pipeline: &wgpu::ComputePipeline,
        buffers: &[&wgpu::Buffer],
        params: &[u32],
        patches: &[(&wgpu::Buffer, u32)],
        groups: (u32, u32, u32),
    ) {
        if groups.0 == 0 || groups.1 == 0 || groups.2 == 0 {
            return;
        }
        let words: &[u32] = if params.is_empty() { &[0] } else { params };
        let usage = if patches.is_empty() {
            wgpu::BufferUsages::STORAGE
        } else {
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST
        };
        let params = self.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("params"),
            contents: bytemuck::cast_slice(words),
            usage,
        });
        let mut entries: Vec<wgpu::BindGroupEntry<'_>> = buffers
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry { binding: i as u32, resource: b.as_entire_binding() })
            .collect();
        entries.push(wgpu::BindGroupEntry { binding: buffers.len() as u32, resource: params.as_entire_binding() });
        let bind = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(0),
            entries: &entries,
        });
        self.record(0, |enc| {
            for &(src, word) in patches {
                enc.copy_buffer_to_buffer(src, 0, &params, u64::from(word) * 4, 4);
            }
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, &bind, &[]);
            pass.dispatch_workgroups(groups.0, groups.1, groups.2);
        });
    }

    /// Copies `len` bytes from `src` to `dst` on the device.
    pub fn copy(&self, src: &wgpu::Buffer, dst: &wgpu::Buffer, len: usize) {
        if len > 0 {
            let size = (len as u64).next_multiple_of(4);
            self.record(0, |enc| enc.copy_buffer_to_buffer(src, 0, dst, 0, size));
        }
    }
}

/// Workgroups for `threads` one-dimensional invocations of `per_group` each: at most
/// 65535 along x, the rest along y (kernels index `x + y * 65535 * per_group`).
pub fn groups_for(threads: usize, per_group: u32) -> (u32, u32, u32) {
    let groups = threads.div_ceil(per_group as usize);
    if groups <= MAX_GROUPS as usize {
        (groups as u32, 1, 1)
    } else {
        (MAX_GROUPS, groups.div_ceil(MAX_GROUPS as usize).min(u32::MAX as usize) as u32, 1)
    }
}
