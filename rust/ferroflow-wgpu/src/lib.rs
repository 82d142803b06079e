//! ferroflow's GPU device on wgpu (Vulkan, Metal): each adapter becomes
//! `/device:GPU:<n>`, with WGSL kernels registered into the core's kernel registry.
//! The core never depends on this crate; the Python module calls [`register`] once at
//! import.
//!
//! - [`gpu`]: one adapter's device and queue (buffer pool, batched command encoder,
//!   uploads and downloads, pipeline cache).
//! - [`memory`]: a tensor's elements in a GPU buffer (the core's `DeviceMemory`).
//! - [`expr`]: a symbolic `f32` that turns the core's element functions and optimizer
//!   rules into WGSL, so both devices compute one definition.
//! - [`kernels`]: the kernels, and the list registered.
//!
//! Which adapters: hardware GPUs by default, at a priority above the CPU's (as TF
//! places nodes on a GPU first). Software adapters (Mesa's lavapipe: `DeviceType::Cpu`)
//! only when `FERROFLOW_GPU=software` (or `all`), and then below the CPU, so only nodes
//! asked to go to `/gpu:0` do: that is how the GPU path is tested on machines without
//! one. `FERROFLOW_GPU=none` registers nothing.
//!
//! On Linux, a machine with no GPU device node (`/dev/dri/renderD*`, `/dev/nvidiactl`,
//! WSL2's `/dev/dxg`)
//! has no hardware adapter to find, so the Vulkan drivers are not loaded at all unless
//! software adapters are asked for: loading them costs import time, and Mesa's drivers
//! bring the system's libLLVM, whose symbols clash with the LLVM inside TensorFlow's
//! library when TensorFlow was imported first (glibc aborts with "free(): invalid
//! pointer" at exit).
pub mod expr;
pub mod gpu;
pub mod kernels;

use std::sync::{Arc, OnceLock};

use ferroflow_core::error::{Code, Error, Result};

pub use gpu::Gpu;

/// The device type this crate registers.
pub const DEVICE_TYPE: &str = "GPU";
/// Priority of hardware GPUs (the CPU's is 50).
const HARDWARE_PRIORITY: i32 = 100;
/// Priority of software adapters: below the CPU, so they run only what is placed there.
const SOFTWARE_PRIORITY: i32 = 10;

/// One adapter, its device opened at first use.
struct Slot {
    adapter: wgpu::Adapter,
    gpu: OnceLock<std::result::Result<Arc<Gpu>, String>>,
}

static ADAPTERS: OnceLock<Vec<Slot>> = OnceLock::new();

/// Which adapters to use, from `FERROFLOW_GPU`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Choice {
    None,
    Hardware,
    All,
}

fn choice() -> Choice {
    match std::env::var("FERROFLOW_GPU").unwrap_or_default().to_ascii_lowercase().as_str() {
        "none" | "0" | "off" => Choice::None,
        "software" | "all" => Choice::All,
        _ => Choice::Hardware,
    }
}

/// Whether this machine may have a hardware GPU a Vulkan or Metal driver could open.
/// On Linux every such driver opens a device node: a DRM render node, NVIDIA's
/// control device, or WSL2's paravirtual GPU (Mesa's Vulkan-on-D3D12 driver).
fn may_have_hardware_gpu() -> bool {
    if !cfg!(target_os = "linux") {
        return true;
    }
    let render_node = std::fs::read_dir("/dev/dri")
        .is_ok_and(|entries| entries.flatten().any(|e| e.file_name().to_string_lossy().starts_with("renderD")));
    render_node || ["/dev/nvidiactl", "/dev/dxg"].iter().any(|p| std::path::Path::new(p).exists())
}

fn adapters() -> &'static [Slot] {
    ADAPTERS.get_or_init(|| {
        let choice = choice();
        if choice == Choice::None || (choice == Choice::Hardware && !may_have_hardware_gpu()) {
            return Vec::new();
        }
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::VULKAN | wgpu::Backends::METAL);
        let mut found = pollster::block_on(instance.enumerate_adapters(backends));
        found.retain(|a| {
            let info = a.get_info();
            let software = info.device_type == wgpu::DeviceType::Cpu;
            (choice == Choice::All || !software)
                && a.get_downlevel_capabilities().flags.contains(wgpu::DownlevelFlags::COMPUTE_SHADERS)
        });
        // Hardware first, so /gpu:0 is a real GPU when there is one.
        found.sort_by_key(|a| a.get_info().device_type == wgpu::DeviceType::Cpu);
        found.into_iter().map(|adapter| Slot { adapter, gpu: OnceLock::new() }).collect()
    })
}

/// Finds the adapters and registers them as `GPU` devices with their kernels; once per
/// process (later calls do nothing). Returns how many devices there are.
pub fn register() -> usize {
    static REGISTERED: OnceLock<usize> = OnceLock::new();
    *REGISTERED.get_or_init(|| {
        let slots = adapters();
        if slots.is_empty() {
            return 0;
        }
        let hardware = slots.iter().any(|s| s.adapter.get_info().device_type != wgpu::DeviceType::Cpu);
        let priority = if hardware { HARDWARE_PRIORITY } else { SOFTWARE_PRIORITY };
        kernels::register_kernels();
        ferroflow_core::device::register_device_type(DEVICE_TYPE, priority, describe());
        slots.len()
    })
}

/// The device `/device:GPU:<index>`, opened at first use.
pub fn device(index: u32) -> Result<Arc<Gpu>> {
    let slot = adapters()
        .get(index as usize)
        .ok_or_else(|| Error::new(Code::InvalidArgument, format!("/device:GPU:{index} does not exist")))?;
    slot.gpu
        .get_or_init(|| Gpu::open(&slot.adapter, index).map(Arc::new).map_err(|e| e.message))
        .clone()
        .map_err(|e| Error::new(Code::Internal, e))
}

/// Each device's description (adapter name, backend, type), the largest buffer it
/// allocates and its PCI locality, by device index: what `device_lib.list_local_devices` shows.
fn describe() -> Vec<ferroflow_core::device::DeviceDescription> {
    adapters()
        .iter()
        .map(|s| {
            let info = s.adapter.get_info();
            let physical_device_desc = format!(
                "device: {}, name: {}, backend: {:?}, type: {:?}",
                info.device, info.name, info.backend, info.device_type
            );
            ferroflow_core::device::DeviceDescription {
                memory_limit: s.adapter.limits().max_buffer_size,
                physical_device_desc,
                locality: ferroflow_core::device::DeviceLocality::of_pci_device(&info.device_pci_bus_id),
            }
        })
        .collect()
}
