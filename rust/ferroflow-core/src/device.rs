//! Devices: TF's device specifications (`/job:ps/task:1/device:GPU:0`, `/cpu:0`), the
//! device types a process has (the CPU, plus whatever a backend crate registers with
//! [`register_device_type`]) and a session's [`DeviceSet`]. Placement (the planner's
//! place pass) matches each node's requested specification against the set.
use std::collections::HashMap;
use std::fmt;
use std::sync::{OnceLock, RwLock};

use crate::error::{Code, Error, Result};

/// The most CPU devices `device_count` makes (TF has no limit; 64 is far beyond use).
const MAX_CPU_DEVICES: u32 = 64;

/// The CPU device type.
pub const CPU: &str = "CPU";
/// The job of a process that is not a task of a cluster (TF's
/// `/job:localhost/replica:0/task:0`).
pub const LOCAL_JOB: &str = "localhost";

/// A task of a cluster, `/job:<job>/replica:<r>/task:<t>`: whose devices a session
/// places nodes on. The default is TF's non-distributed `/job:localhost/replica:0/task:0`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TaskName {
    /// `job:<name>`.
    pub job: String,
    /// `replica:<n>`.
    pub replica: u32,
    /// `task:<n>`.
    pub task: u32,
}

impl Default for TaskName {
    fn default() -> Self {
        TaskName { job: LOCAL_JOB.to_string(), replica: 0, task: 0 }
    }
}

impl TaskName {
    /// The task `/job:<job>/replica:<replica>/task:<task>`.
    pub fn new(job: &str, replica: u32, task: u32) -> TaskName {
        TaskName { job: job.to_string(), replica, task }
    }

    /// The task a fully specified name (`/job:ps/replica:0/task:1`, with or without a
    /// device part) names; `InvalidArgument` when a part is missing.
    pub fn parse(name: &str) -> Result<TaskName> {
        let spec = DeviceSpec::parse(name)?;
        spec.task_name().ok_or_else(|| {
            Error::new(Code::InvalidArgument, format!("'{name}' does not name a task (/job:J/replica:R/task:T)"))
        })
    }

    /// The full name of its device `<device_type>:<id>`.
    pub fn device_name(&self, device_type: &str, id: u32) -> String {
        format!("{self}/device:{device_type}:{id}")
    }
}

impl fmt::Display for TaskName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "/job:{}/replica:{}/task:{}", self.job, self.replica, self.task)
    }
}

/// A parsed device specification (TF's `DeviceNameUtils::ParsedName`): every part is
/// optional, and an unset part matches anything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeviceSpec {
    /// `job:<name>`.
    pub job: Option<String>,
    /// `replica:<n>`.
    pub replica: Option<u32>,
    /// `task:<n>`.
    pub task: Option<u32>,
    /// The device type, upper case (`CPU`, `GPU`).
    pub device_type: Option<String>,
    /// The device index within its type (`None` for `*` or unset).
    pub id: Option<u32>,
}

fn bad_spec(spec: &str) -> Error {
    Error::new(Code::InvalidArgument, format!("Malformed device specification '{spec}'"))
}

/// `n` or `*` (any).
fn index(part: &str, spec: &str) -> Result<Option<u32>> {
    if part == "*" { Ok(None) } else { part.parse().map(Some).map_err(|_| bad_spec(spec)) }
}

impl DeviceSpec {
    /// Parses `spec` as TF does: `/`-separated `job:`, `replica:`, `task:` and a device,
    /// written `device:<TYPE>:<n|*>`, `<type>:<n|*>` (`/cpu:0`, `/gpu:1`) or
    /// `device:<TYPE>`. The empty string is the empty specification.
    pub fn parse(spec: &str) -> Result<DeviceSpec> {
        let mut out = DeviceSpec::default();
        for part in spec.split('/').filter(|p| !p.is_empty()) {
            let fields: Vec<&str> = part.split(':').collect();
            match fields.as_slice() {
                ["job", name] if !name.is_empty() => out.job = Some((*name).to_string()),
                ["replica", n] => out.replica = index(n, spec)?,
                ["task", n] => out.task = index(n, spec)?,
                ["device", kind] | ["device", kind, "*"] if *kind != "*" => out.device_type = Some(kind.to_uppercase()),
                ["device", kind, n] if *kind != "*" => {
                    out.device_type = Some(kind.to_uppercase());
                    out.id = index(n, spec)?;
                }
                ["device", "*", ..] => {}
                // Legacy names: `/cpu:0`, `/gpu:*`.
                [kind, n] if kind.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !kind.is_empty() => {
                    out.device_type = Some(kind.to_uppercase());
                    out.id = index(n, spec)?;
                }
                _ => return Err(bad_spec(spec)),
            }
        }
        Ok(out)
    }

    /// Whether `device` satisfies every part this specification sets.
    pub fn matches(&self, device: &Device) -> bool {
        self.job.as_deref().is_none_or(|j| j == device.task.job)
            && self.replica.is_none_or(|r| r == device.task.replica)
            && self.task.is_none_or(|t| t == device.task.task)
            && self.device_type.as_ref().is_none_or(|t| *t == device.device_type)
            && self.id.is_none_or(|i| i == device.id)
    }

    /// The task it names, when job, replica and task are all set.
    pub fn task_name(&self) -> Option<TaskName> {
        Some(TaskName { job: self.job.clone()?, replica: self.replica?, task: self.task? })
    }

    /// The specification that satisfies both (colocated nodes' requests); `None` when
    /// they conflict.
    pub fn merged(&self, other: &DeviceSpec) -> Option<DeviceSpec> {
        fn pick<T: Clone + PartialEq>(a: &Option<T>, b: &Option<T>) -> Option<Option<T>> {
            match (a, b) {
                (Some(x), Some(y)) if x != y => None,
                (Some(x), _) | (None, Some(x)) => Some(Some(x.clone())),
                (None, None) => Some(None),
            }
        }
        Some(DeviceSpec {
            job: pick(&self.job, &other.job)?,
            replica: pick(&self.replica, &other.replica)?,
            task: pick(&self.task, &other.task)?,
            device_type: pick(&self.device_type, &other.device_type)?,
            id: pick(&self.id, &other.id)?,
        })
    }

    /// Whether no part is set.
    pub fn is_empty(&self) -> bool {
        *self == DeviceSpec::default()
    }
}

impl fmt::Display for DeviceSpec {
    /// The canonical form, `/job:x/replica:0/task:1/device:GPU:0`, unset parts left out.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(j) = &self.job {
            write!(f, "/job:{j}")?;
        }
        if let Some(r) = self.replica {
            write!(f, "/replica:{r}")?;
        }
        if let Some(t) = self.task {
            write!(f, "/task:{t}")?;
        }
        if let Some(d) = &self.device_type {
            match self.id {
                Some(i) => write!(f, "/device:{d}:{i}")?,
                None => write!(f, "/device:{d}:*")?,
            }
        }
        Ok(())
    }
}

/// One device of a task (this process's, or another task's when a master places a
/// cluster's graph).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Device {
    /// Its full name: `/job:localhost/replica:0/task:0/device:CPU:0`.
    pub name: String,
    /// Its type (`CPU`).
    pub device_type: String,
    /// Its index within its type.
    pub id: u32,
    /// The task it belongs to.
    pub task: TaskName,
}

impl Device {
    /// The device `<device_type>:<id>` of a process that is not a cluster task.
    pub fn local(device_type: &str, id: u32) -> Device {
        Device::on_task(&TaskName::default(), device_type, id)
    }

    /// The device `<device_type>:<id>` of `task`.
    pub fn on_task(task: &TaskName, device_type: &str, id: u32) -> Device {
        Device { name: task.device_name(device_type, id), device_type: device_type.to_string(), id, task: task.clone() }
    }

    /// The device a full name (`/job:ps/replica:0/task:0/device:CPU:0`, legacy
    /// `/job:ps/replica:0/task:0/cpu:0` too) names; `InvalidArgument` unless every part
    /// is given.
    pub fn from_full_name(name: &str) -> Result<Device> {
        let spec = DeviceSpec::parse(name)?;
        match (spec.task_name(), spec.device_type.as_deref(), spec.id) {
            (Some(task), Some(kind), Some(id)) => Ok(Device::on_task(&task, kind, id)),
            _ => Err(Error::new(Code::InvalidArgument, format!("'{name}' is not a full device name"))),
        }
    }
}

/// What a device says about itself (TF's `DeviceAttributes`): what
/// `device_lib.list_local_devices` and a session's device list report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceDescription {
    /// Bytes the device may allocate (`memory_limit`).
    pub memory_limit: u64,
    /// The hardware behind it (`physical_device_desc`); empty for the CPU.
    pub physical_device_desc: String,
    /// Where it sits in the machine (`locality`).
    pub locality: DeviceLocality,
}

impl DeviceDescription {
    /// TF's description of a CPU device: 256 MiB, no hardware named, no locality.
    pub fn cpu() -> Self {
        DeviceDescription {
            memory_limit: 256 << 20,
            physical_device_desc: String::new(),
            locality: DeviceLocality::default(),
        }
    }
}

/// Where a device sits in the machine (TF's `DeviceLocality`), for placing work near
/// the memory it uses. The default (bus 0) means no particular place: TF's CPU device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeviceLocality {
    /// The bus the device is on, counted from 1 (`bus_id`); 0 for none.
    pub bus_id: i32,
    /// The NUMA node its memory is closest to (`numa_node`).
    pub numa_node: i32,
}

impl DeviceLocality {
    /// The locality of the PCI device `pci_bus_id` (`0000:01:00.0`), as TF gives a GPU:
    /// the NUMA node Linux reports in `/sys/bus/pci/devices/<id>/numa_node` (node 0
    /// when the id is empty, unknown or not a PCI address, or the node is -1: a machine
    /// with one node) and bus `node + 1`.
    pub fn of_pci_device(pci_bus_id: &str) -> DeviceLocality {
        let numa_node = pci_numa_node(pci_bus_id).unwrap_or(0).max(0);
        DeviceLocality { bus_id: numa_node + 1, numa_node }
    }
}

fn pci_numa_node(pci_bus_id: &str) -> Option<i32> {
    use std::io::Read;
    // A driver-given string names a file: only a PCI address's characters may reach
    // the path, so it cannot leave the sysfs directory.
    let is_address = !pci_bus_id.is_empty()
        && pci_bus_id.len() <= 32
        && pci_bus_id.bytes().all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.');
    if !is_address {
        return None;
    }
    let path = format!("/sys/bus/pci/devices/{}/numa_node", pci_bus_id.to_ascii_lowercase());
    let mut text = String::new();
    std::fs::File::open(path).ok()?.take(32).read_to_string(&mut text).ok()?;
    text.trim().parse().ok()
}

/// A device type a backend provides: its devices, and its priority when a node could
/// run on several types (TF's device priorities: a GPU before the CPU).
#[derive(Clone, Debug)]
struct DeviceType {
    name: String,
    priority: i32,
    devices: Vec<DeviceDescription>,
}

fn device_types() -> &'static RwLock<Vec<DeviceType>> {
    static TYPES: OnceLock<RwLock<Vec<DeviceType>>> = OnceLock::new();
    TYPES.get_or_init(|| {
        RwLock::new(vec![DeviceType { name: CPU.to_string(), priority: 50, devices: vec![DeviceDescription::cpu()] }])
    })
}

/// Makes the devices of `device_type` (one per description) available to sessions
/// created from now on (a backend crate calls this once, with the kernels it
/// registers). A node that could run on several types goes to the highest `priority`
/// (the CPU has 50; TF gives GPUs more). Registering a type again replaces it.
pub fn register_device_type(device_type: &str, priority: i32, devices: Vec<DeviceDescription>) {
    let mut types = device_types().write().unwrap_or_else(std::sync::PoisonError::into_inner);
    types.retain(|t| t.name != device_type);
    types.push(DeviceType { name: device_type.to_string(), priority, devices });
}

/// How device `index` of `device_type` describes itself; the CPU's description for a
/// CPU device, or for a type this process has no such device of (a remote task's).
pub fn describe(device_type: &str, index: u32) -> DeviceDescription {
    let types = device_types().read().unwrap_or_else(std::sync::PoisonError::into_inner);
    let found = types.iter().find(|t| t.name == device_type && t.name != CPU);
    found.and_then(|t| t.devices.get(index as usize).cloned()).unwrap_or_else(DeviceDescription::cpu)
}

/// `(name, device_type, description)` of each device of this process, as
/// `device_lib.list_local_devices` lists them: the CPU, then each registered type's.
pub fn local_devices() -> Vec<(String, String, DeviceDescription)> {
    let types = device_types().read().unwrap_or_else(std::sync::PoisonError::into_inner);
    let cpu_first = types.iter().filter(|t| t.name == CPU).chain(types.iter().filter(|t| t.name != CPU));
    cpu_first
        .flat_map(|t| {
            t.devices.iter().enumerate().map(|(i, d)| (format!("/device:{}:{i}", t.name), t.name.clone(), d.clone()))
        })
        .collect()
}

/// The devices a session places nodes on, in priority order.
#[derive(Clone, Debug)]
pub struct DeviceSet {
    devices: Vec<Device>,
    priority: HashMap<String, i32>,
}

impl DeviceSet {
    /// The process's devices, at most `device_count[type]` of each type
    /// (`ConfigProto.device_count`; the CPU is always there).
    pub fn local(device_count: &HashMap<String, u32>) -> DeviceSet {
        DeviceSet::for_task(&TaskName::default(), device_count)
    }

    /// The process's devices named for `task` (`/job:ps/replica:0/task:1/device:CPU:0`),
    /// at most `device_count[type]` of each type.
    pub fn for_task(task: &TaskName, device_count: &HashMap<String, u32>) -> DeviceSet {
        let mut types = device_types().read().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
        types.sort_by_key(|t| std::cmp::Reverse(t.priority));
        let mut devices = Vec::new();
        let mut priority = HashMap::new();
        for t in types {
            let limit = device_count.get(&t.name).copied().unwrap_or(u32::MAX);
            // As TF's CPU device factory: `device_count={'CPU': n}` makes n CPU devices
            // (all in host memory, sharing the process's threads), one by default.
            let count = if t.name == CPU {
                device_count.get(CPU).map_or(1, |&n| n.clamp(1, MAX_CPU_DEVICES))
            } else {
                (t.devices.len() as u32).min(limit)
            };
            priority.insert(t.name.clone(), t.priority);
            devices.extend((0..count).map(|i| Device::on_task(task, &t.name, i)));
        }
        DeviceSet { devices, priority }
    }

    /// The devices an explicit list of full names gives (a master placing a graph over
    /// a cluster's devices, as its workers' `GetStatus` lists them), ordered by their
    /// types' priorities, then as listed. A device of a type registered in this
    /// process (the CPU) is assumed to run the kernels registered here for it; other
    /// types have priority 0 and no kernels. Names must be full and distinct.
    pub fn from_names<S: AsRef<str>>(names: &[S]) -> Result<DeviceSet> {
        let types = device_types().read().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
        let priority: HashMap<String, i32> = types.into_iter().map(|t| (t.name, t.priority)).collect();
        let mut devices: Vec<Device> = Vec::with_capacity(names.len());
        for n in names {
            let d = Device::from_full_name(n.as_ref())?;
            if devices.iter().any(|o| o.name == d.name) {
                return Err(Error::new(Code::InvalidArgument, format!("Device {} is listed twice", d.name)));
            }
            devices.push(d);
        }
        if devices.is_empty() {
            return Err(Error::new(Code::InvalidArgument, "No devices to place the graph on"));
        }
        devices.sort_by_key(|d| std::cmp::Reverse(priority.get(&d.device_type).copied().unwrap_or(0)));
        Ok(DeviceSet { devices, priority })
    }

    /// The device named `name` exactly; TF's `DeviceMgr::LookupDevice` error
    /// (`InvalidArgument` "<name> unknown device.") otherwise, which a worker gives for
    /// a registered graph node assigned to a device of another task.
    pub fn lookup(&self, name: &str) -> Result<&Device> {
        self.devices
            .iter()
            .find(|d| d.name == name)
            .ok_or_else(|| Error::new(Code::InvalidArgument, format!("{name} unknown device.")))
    }

    /// The devices, highest priority first.
    pub fn devices(&self) -> &[Device] {
        &self.devices
    }

    /// The CPU device.
    pub fn cpu(&self) -> &Device {
        self.devices.iter().find(|d| d.device_type == CPU).unwrap_or(&self.devices[0])
    }

    /// The CPU alone: where `tf.data` runs its functions, as TF places them.
    pub fn host_only(&self) -> DeviceSet {
        DeviceSet { devices: vec![self.cpu().clone()], priority: self.priority.clone() }
    }

    /// How much `d` is preferred: by type priority, then the lower index.
    pub(crate) fn rank(&self, d: &Device) -> (i32, std::cmp::Reverse<u32>) {
        (self.priority.get(&d.device_type).copied().unwrap_or(0), std::cmp::Reverse(d.id))
    }

    /// The names of all devices, for error messages.
    pub fn names(&self) -> String {
        self.devices.iter().map(|d| d.name.as_str()).collect::<Vec<_>>().join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pci_locality_reads_the_node_linux_reports() {
        // Each PCI device of this machine: the node sysfs gives (-1, one node: 0).
        let devices = std::fs::read_dir("/sys/bus/pci/devices").into_iter().flatten().flatten();
        for entry in devices.take(8) {
            let id = entry.file_name().to_string_lossy().into_owned();
            let Ok(text) = std::fs::read_to_string(entry.path().join("numa_node")) else { continue };
            let node = text.trim().parse::<i32>().unwrap().max(0);
            assert_eq!(DeviceLocality::of_pci_device(&id), DeviceLocality { bus_id: node + 1, numa_node: node });
            assert_eq!(DeviceLocality::of_pci_device(&id.to_ascii_uppercase()).numa_node, node);
        }
        // No id (a software adapter), an unknown one, or one that is not an address.
        for id in ["", "ffff:ff:1f.7", "../../../../proc/self/stat", "0000:00:00.0/../x", &"0".repeat(40)] {
            assert_eq!(DeviceLocality::of_pci_device(id), DeviceLocality { bus_id: 1, numa_node: 0 });
        }
        assert_eq!(DeviceDescription::cpu().locality, DeviceLocality::default());
    }

    #[test]
    fn parses_canonical_legacy_and_partial_names() {
        let full = DeviceSpec::parse("/job:ps/replica:0/task:1/device:GPU:2").unwrap();
        assert_eq!(full.to_string(), "/job:ps/replica:0/task:1/device:GPU:2");
        assert_eq!(DeviceSpec::parse("/cpu:0").unwrap().to_string(), "/device:CPU:0");
        assert_eq!(DeviceSpec::parse("/gpu:*").unwrap().to_string(), "/device:GPU:*");
        assert_eq!(DeviceSpec::parse("/device:CPU").unwrap().device_type.as_deref(), Some("CPU"));
        assert!(DeviceSpec::parse("").unwrap().is_empty());
        assert!(DeviceSpec::parse("/job:").is_err());
        assert!(DeviceSpec::parse("/task:x").is_err());
        let cpu = Device::local("CPU", 0);
        assert!(DeviceSpec::parse("/job:localhost/device:CPU:0").unwrap().matches(&cpu));
        assert!(!DeviceSpec::parse("/job:ps").unwrap().matches(&cpu));
        assert!(!DeviceSpec::parse("/gpu:0").unwrap().matches(&cpu));
    }

    #[test]
    fn devices_named_for_a_task_and_from_full_names() {
        let task = TaskName::parse("/job:ps/replica:0/task:1").unwrap();
        assert_eq!(task.to_string(), "/job:ps/replica:0/task:1");
        assert!(TaskName::parse("/job:ps/task:1").is_err());
        let set = DeviceSet::for_task(&task, &HashMap::new());
        assert_eq!(set.cpu().name, "/job:ps/replica:0/task:1/device:CPU:0");
        assert!(DeviceSpec::parse("/job:ps/task:1").unwrap().matches(set.cpu()));
        assert!(!DeviceSpec::parse("/job:ps/task:0").unwrap().matches(set.cpu()));
        assert!(!DeviceSpec::parse("/job:localhost").unwrap().matches(set.cpu()));
        let e = set.lookup("/job:ps/replica:0/task:0").unwrap_err();
        assert_eq!((e.code, e.message.as_str()), (Code::InvalidArgument, "/job:ps/replica:0/task:0 unknown device."));
        let cluster =
            DeviceSet::from_names(&["/job:worker/replica:0/task:0/device:CPU:0", "/job:ps/replica:0/task:0/cpu:0"])
                .unwrap();
        let names: Vec<&str> = cluster.devices().iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["/job:worker/replica:0/task:0/device:CPU:0", "/job:ps/replica:0/task:0/device:CPU:0"]);
        assert!(DeviceSet::from_names(&["/job:ps/task:0/device:CPU:0"]).is_err());
        assert!(DeviceSet::from_names::<&str>(&[]).is_err());
    }

    #[test]
    fn merging_keeps_both_requests_or_finds_the_conflict() {
        let a = DeviceSpec::parse("/job:ps").unwrap();
        let b = DeviceSpec::parse("/device:CPU:0").unwrap();
        assert_eq!(a.merged(&b).unwrap().to_string(), "/job:ps/device:CPU:0");
        assert!(b.merged(&DeviceSpec::parse("/device:CPU:1").unwrap()).is_none());
    }
}
