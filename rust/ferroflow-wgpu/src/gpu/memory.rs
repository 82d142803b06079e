//! A tensor's elements in a GPU buffer: the core's [`DeviceMemory`] for this backend.
use std::any::Any;
use std::sync::Arc;

use ferroflow_core::buffer::AlignedBuf;
use ferroflow_core::error::Result;
use ferroflow_core::tensor::DeviceMemory;

use super::Gpu;

/// A pooled buffer of one device holding `len` bytes of elements (the buffer may be
/// larger: sizes are rounded to classes). It goes back to the pool when dropped.
pub struct GpuBuffer {
    gpu: Arc<Gpu>,
    buffer: Option<wgpu::Buffer>,
    len: usize,
}

impl GpuBuffer {
    pub(crate) fn new(gpu: Arc<Gpu>, buffer: wgpu::Buffer, len: usize) -> Self {
        GpuBuffer { gpu, buffer: Some(buffer), len }
    }
    /// The wgpu buffer.
    pub fn buffer(&self) -> &wgpu::Buffer {
        // Taken only in `drop`.
        self.buffer.as_ref().expect("a live GpuBuffer holds its buffer")
    }
    /// The device it is on.
    pub fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }
}

impl Drop for GpuBuffer {
    fn drop(&mut self) {
        if let Some(b) = self.buffer.take() {
            self.gpu.recycle(b);
        }
    }
}

impl DeviceMemory for GpuBuffer {
    fn device(&self) -> &str {
        &self.gpu.name
    }
    fn byte_len(&self) -> usize {
        self.len
    }
    fn to_host(&self) -> Result<AlignedBuf> {
        self.gpu.download(self.buffer(), self.len)
    }
    fn duplicate(&self) -> Result<Arc<dyn DeviceMemory>> {
        let copy = self.gpu.alloc(self.len)?;
        self.gpu.copy(self.buffer(), copy.buffer(), self.len);
        Ok(Arc::new(copy))
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
