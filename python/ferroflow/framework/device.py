"""Device names: TF-1.x `DeviceSpec` parsing, canonical names and device-scope merging.

A device name is a `/`-separated list of `job:<name>`, `replica:<int>`,
`task:<int>` and a device, written `device:<TYPE>:<index|*>` (canonical) or
`<type>:<index|*>` / `<type>` for the known types (`cpu`, `gpu`, `tpu`, ...,
case-insensitive). The canonical form is
`/job:ps/replica:0/task:1/device:GPU:0`, with unset fields left out.

`merge_device(spec)` builds the function `Graph.device()` stacks: applied to an
op (anything with a `device` attribute), it returns the canonical device of
`spec` overridden by the fields the op's own device sets.
"""

from __future__ import annotations

__all__ = [
    "DeviceSpec",
    "DeviceSpecV1",
    "DeviceSpecV2",
    "MergeDevice",
    "canonical_name",
    "check_valid",
    "is_device_spec",
    "merge_device",
]

_VALID_DEVICE_TYPES = frozenset({"CPU", "GPU", "TPU", "CUSTOM", "EPU"})

_STRING_TO_COMPONENTS_CACHE: dict = {}
_COMPONENTS_TO_STRING_CACHE: dict = {}


def _as_str_or_none(inp):
    return None if inp is None else str(inp)


def _as_int_or_none(inp):
    return None if inp is None else int(inp)


def _as_device_str_or_none(device_type):
    # For backwards compatibility only: other device types keep their case.
    if device_type in ("cpu", "gpu"):
        return device_type.upper()
    return _as_str_or_none(device_type)


class DeviceSpecV2:
    """An immutable (partial) device specification: job, replica, task, device type and index.

    Any field may be None (unspecified). `to_string()` gives the canonical
    form, e.g. `/job:ps/replica:0/task:1/device:GPU:0`.
    """

    __slots__ = (
        "_as_string",
        "_device_index",
        "_device_type",
        "_hash",
        "_job",
        "_replica",
        "_task",
    )

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        """Create a device specification.

        Args:
            job: The job name, or None.
            replica: The replica index (anything `int()` accepts), or None.
            task: The task index (anything `int()` accepts), or None.
            device_type: The device type, e.g. `"CPU"` or `"GPU"` (`"cpu"` and
                `"gpu"` are upper-cased), or None.
            device_index: The device index (anything `int()` accepts), or None
                for any device of the type.
        """
        self._job = _as_str_or_none(job)
        self._replica = _as_int_or_none(replica)
        self._task = _as_int_or_none(task)
        self._device_type = _as_device_str_or_none(device_type)
        self._device_index = _as_int_or_none(device_index)
        # Both cached; None once a `DeviceSpecV1` field is assigned (computed again).
        self._as_string: str | None = self._components_to_string(
            job=self._job,
            replica=self._replica,
            task=self._task,
            device_type=self._device_type,
            device_index=self._device_index,
        )
        self._hash: int | None = hash(self._as_string)

    def to_string(self) -> str:
        """Return the canonical string form of this specification (`""` if nothing is set)."""
        if self._as_string is None:
            self._as_string = self._components_to_string(
                job=self._job,
                replica=self._replica,
                task=self._task,
                device_type=self._device_type,
                device_index=self._device_index,
            )
        return self._as_string

    @classmethod
    def from_string(cls, spec):
        """Parse a device name into a new specification.

        Args:
            spec: A device name such as `"/job:ps/task:0/device:CPU:0"` or
                `"/gpu:1"`; None or `""` for an empty specification.

        Returns:
            A new specification of this class.

        Raises:
            ValueError: If `spec` is not a valid device name.
        """
        return cls(*cls._string_to_components(spec))

    def parse_from_string(self, spec):
        """Parse a device name into a new specification (see `from_string`).

        Args:
            spec: A device name.

        Returns:
            A new specification of this class.
        """
        return self.from_string(spec)

    def make_merged_spec(self, dev):
        """Return a new specification with `dev`'s set fields overriding this one's.

        Args:
            dev: A device specification.

        Returns:
            A new specification of this class.
        """
        return self.__class__(*self._get_combined_properties(dev))

    def replace(self, **kwargs):
        """Return a copy of this specification with the given fields replaced.

        Args:
            **kwargs: Any of `job`, `replica`, `task`, `device_type`, `device_index`.

        Returns:
            A new specification of this class.
        """
        init_kwargs = {
            "job": self.job,
            "replica": self.replica,
            "task": self.task,
            "device_type": self.device_type,
            "device_index": self.device_index,
        }
        init_kwargs.update(kwargs)
        return self.__class__(**init_kwargs)

    @property
    def job(self):
        """The job name, or None."""
        return self._job

    @property
    def replica(self):
        """The replica index, or None."""
        return self._replica

    @property
    def task(self):
        """The task index, or None."""
        return self._task

    @property
    def device_type(self):
        """The device type (e.g. `"CPU"`), or None."""
        return self._device_type

    @property
    def device_index(self):
        """The device index, or None (any device of the type)."""
        return self._device_index

    def _get_combined_properties(self, dev):
        return (
            dev.job if dev.job is not None else self.job,
            dev.replica if dev.replica is not None else self.replica,
            dev.task if dev.task is not None else self.task,
            dev.device_type if dev.device_type is not None else self.device_type,
            dev.device_index if dev.device_index is not None else self.device_index,
        )

    @staticmethod
    def _string_to_components(spec=None):
        cached = _STRING_TO_COMPONENTS_CACHE.get(spec)
        if cached is not None:
            return cached
        raw_spec = spec
        job = replica = task = device_type = device_index = None
        spec = spec or ""
        for y in (x.split(":") for x in spec.split("/")):
            ly = len(y)
            if ly == 2 and y[0] == "job":
                job = y[1]
            elif ly == 2 and y[0] == "replica":
                replica = y[1]
            elif ly == 2 and y[0] == "task":
                task = y[1]
            elif ly in (1, 2) and y[0].upper() in _VALID_DEVICE_TYPES:
                if device_type is not None:
                    raise ValueError(
                        "Multiple device types are not allowed while parsing the "
                        f"device spec: {spec}."
                    )
                device_type = y[0].upper()
                if ly == 2 and y[1] != "*":
                    device_index = int(y[1])
            elif ly == 3 and y[0] == "device":
                if device_type is not None:
                    raise ValueError(
                        "Multiple device types are not allowed while parsing the "
                        f"device spec: {spec}."
                    )
                device_type = y[1]
                if y[2] != "*":
                    device_index = int(y[2])
            elif ly and y[0] != "":
                raise ValueError(
                    f"Unknown attribute '{y[0]}' is encountered while parsing the "
                    f"device spec: '{spec}'."
                )
        output = (job, replica, task, device_type, device_index)
        _STRING_TO_COMPONENTS_CACHE[raw_spec] = output
        return output

    @staticmethod
    def _components_to_string(job, replica, task, device_type, device_index):
        key = (job, replica, task, device_type, device_index)
        cached = _COMPONENTS_TO_STRING_CACHE.get(key)
        if cached is not None:
            return cached
        output = []
        if job is not None:
            output.append("/job:" + job)
        if replica is not None:
            output.append("/replica:" + str(replica))
        if task is not None:
            output.append("/task:" + str(task))
        if device_type is not None:
            index = "*" if device_index is None else str(device_index)
            output.append(f"/device:{device_type}:{index}")
        result = "".join(output)
        _COMPONENTS_TO_STRING_CACHE[key] = result
        return result

    def __eq__(self, other):
        """Whether `other` is a specification of this class with the same canonical string."""
        return isinstance(other, self.__class__) and self.to_string() == other.to_string()

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(self.to_string())
        return self._hash

    def __repr__(self) -> str:
        return (
            f"<DeviceSpec(job={self.job}, replica={self.replica}, task={self.task}, "
            f"device_type={self.device_type}, device_index={self.device_index})>"
        )


class DeviceSpecV1(DeviceSpecV2):
    """A mutable (partial) device specification, TF-1.x's `tf.DeviceSpec`.

    Like `DeviceSpecV2`, but the fields can be assigned, and `parse_from_string`
    and `merge_from` update the specification in place.
    """

    __slots__ = ()

    # Getter and setter together: a type checker cannot follow `@Base.job.setter`.
    @property
    def job(self):
        """The job name, or None."""
        return self._job

    @job.setter
    def job(self, job):
        """Set the job name (None to unset)."""
        self._job = _as_str_or_none(job)
        self._as_string, self._hash = None, None

    @property
    def replica(self):
        """The replica index, or None."""
        return self._replica

    @replica.setter
    def replica(self, replica):
        """Set the replica index (None to unset)."""
        self._replica = _as_int_or_none(replica)
        self._as_string, self._hash = None, None

    @property
    def task(self):
        """The task index, or None."""
        return self._task

    @task.setter
    def task(self, task):
        """Set the task index (None to unset)."""
        self._task = _as_int_or_none(task)
        self._as_string, self._hash = None, None

    @property
    def device_type(self):
        """The device type (e.g. `"CPU"`), or None."""
        return self._device_type

    @device_type.setter
    def device_type(self, device_type):
        """Set the device type (None to unset; `"cpu"` and `"gpu"` are upper-cased)."""
        self._device_type = _as_device_str_or_none(device_type)
        self._as_string, self._hash = None, None

    @property
    def device_index(self):
        """The device index, or None (any device of the type)."""
        return self._device_index

    @device_index.setter
    def device_index(self, device_index):
        """Set the device index (None for any device of the type)."""
        self._device_index = _as_int_or_none(device_index)
        self._as_string, self._hash = None, None

    def parse_from_string(self, spec):
        """Replace every field of this specification with those parsed from `spec`.

        Args:
            spec: A device name; None or `""` clears every field.

        Returns:
            This specification.

        Raises:
            ValueError: If `spec` is not a valid device name.
        """
        (self.job, self.replica, self.task, self.device_type, self.device_index) = (
            self._string_to_components(spec)
        )
        return self

    def merge_from(self, dev) -> None:
        """Override this specification's fields with the fields `dev` sets.

        Args:
            dev: A device specification.
        """
        (self.job, self.replica, self.task, self.device_type, self.device_index) = (
            self._get_combined_properties(dev)
        )


DeviceSpec = DeviceSpecV1


def check_valid(spec) -> None:
    """Check that `spec` is a valid device name.

    Args:
        spec: A device name.

    Raises:
        ValueError: If it is not valid.
    """
    DeviceSpec.from_string(spec)


def is_device_spec(obj) -> bool:
    """Whether `obj` is a device specification (either version)."""
    return isinstance(obj, DeviceSpecV2)


def canonical_name(device) -> str:
    """Return the canonical name of a device.

    Args:
        device: A device name, a device specification, or None.

    Returns:
        The canonical device string, `""` for None or `""`.

    Raises:
        ValueError: If `device` is not a valid device name.
    """
    if device is None:
        return ""
    if is_device_spec(device):
        return device.to_string()
    return DeviceSpec.from_string(device).to_string()


class MergeDevice:
    """A device function that merges an op's own device into a fixed device spec.

    Calling it on an op (anything with a `device` attribute, a string or None)
    returns the canonical device string of the spec, with every field the op's
    device sets taking precedence. This is how nested `Graph.device()` scopes
    combine: an inner device string overrides only the fields it sets.
    """

    __slots__ = ("_spec",)

    def __init__(self, spec):
        """Create a merger for `spec`.

        Args:
            spec: A device name, a device specification, or None.

        Raises:
            ValueError: If `spec` is not a valid device name.
        """
        if isinstance(spec, DeviceSpecV1):
            # Snapshot a mutable spec so later changes to it do not leak in.
            self._spec = DeviceSpecV2.from_string(spec.to_string())
        elif isinstance(spec, DeviceSpecV2):
            self._spec = spec
        else:
            self._spec = DeviceSpecV2.from_string(spec)

    def __call__(self, node_def) -> str:
        """Return the merged canonical device string for `node_def` (an op or `NodeDef`)."""
        current = DeviceSpecV2.from_string(node_def.device or "")
        return self._spec.make_merged_spec(current).to_string()

    def shortcut_string_merge(self, node_def) -> str:
        """Return the merged canonical device string for `node_def` (same as calling)."""
        return self(node_def)

    def __repr__(self) -> str:
        return f"{super().__repr__()} (spec: {self._spec.to_string()})"

    @property
    def is_null_merge(self) -> bool:
        """Whether the spec is empty, so merging leaves every device unchanged."""
        return not self._spec.to_string()


_cached_mergers: dict = {}


def merge_device(spec) -> MergeDevice:
    """Return a device function that merges an op's device into `spec`.

    Args:
        spec: A device name, a device specification, None, or a `MergeDevice`
            (returned unchanged).

    Returns:
        A `MergeDevice`; calling it on an op returns a canonical device string.

    Raises:
        ValueError: If `spec` is not a valid device name.
    """
    if isinstance(spec, MergeDevice):
        return spec
    if isinstance(spec, DeviceSpecV1):
        return MergeDevice(spec)
    merger = _cached_mergers.get(spec)
    if merger is None:
        merger = MergeDevice(spec)
        _cached_mergers[spec] = merger
    return merger
