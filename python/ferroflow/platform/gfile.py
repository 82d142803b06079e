"""`tf.gfile` and `tf.io.gfile`: file access with TF's names and errors.

Local files only (TF's other file systems, `gs://` and the like, are not available);
the functions behave as TF's do on local paths, errors included: a missing file is
`tf.errors.NotFoundError` ("<path>; No such file or directory"), an existing target of a
rename or copy without `overwrite` is `AlreadyExistsError`, removing a directory with
`Remove` is `FailedPreconditionError`.
"""

from __future__ import annotations

import errno as _errno
import glob as _glob
import os as _os
import shutil as _shutil
from typing import Any

from .. import errors as _errors

__all__ = [
    "Copy",
    "DeleteRecursively",
    "Exists",
    "FastGFile",
    "GFile",
    "Glob",
    "IsDirectory",
    "ListDirectory",
    "MakeDirs",
    "MkDir",
    "Open",
    "Remove",
    "Rename",
    "Stat",
    "Walk",
]

_CLASS_BY_ERRNO = {
    _errno.ENOENT: _errors.NotFoundError,
    _errno.EEXIST: _errors.AlreadyExistsError,
    _errno.EACCES: _errors.PermissionDeniedError,
    _errno.EPERM: _errors.PermissionDeniedError,
    _errno.EROFS: _errors.PermissionDeniedError,
    _errno.EISDIR: _errors.FailedPreconditionError,
    _errno.ENOTDIR: _errors.FailedPreconditionError,
    _errno.ENOTEMPTY: _errors.FailedPreconditionError,
    _errno.ENOSPC: _errors.ResourceExhaustedError,
}


def _error(e: OSError, path) -> _errors.OpError:
    """TF's error for an OS error on `path` (`<path>; <reason>`)."""
    cls = _CLASS_BY_ERRNO.get(e.errno or 0, _errors.UnknownError)
    return cls(None, None, f"{_os.fspath(path)}; {_os.strerror(e.errno) if e.errno else e}")


def _path(p) -> str:
    return _os.fsdecode(_os.fspath(p))


class FileStatistics:
    """What `Stat` reports: size in bytes, modification time (ns), whether a directory."""

    def __init__(self, length: int, mtime_nsec: int, is_directory: bool):
        self.length = length
        self.mtime_nsec = mtime_nsec
        self.is_directory = is_directory


class GFile:
    """A file with TF's interface: opened lazily, read and written as text or bytes.

    Args:
        name: The path.
        mode: One of `r`, `w`, `a`, `r+`, `w+`, `a+`, each optionally with `b` (bytes
            instead of text).
    """

    def __init__(self, name, mode="r"):
        self.__name = _path(name)
        self.__mode = mode
        self._binary = "b" in mode
        self._mode = mode.replace("b", "")
        if self._mode not in ("r", "w", "a", "r+", "w+", "a+"):
            raise _errors.InvalidArgumentError(
                None, None, "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'"
            )
        self._read_check_passed = self._mode in ("r", "r+", "a+", "w+")
        self._write_check_passed = self._mode in ("a", "w", "r+", "a+", "w+")
        self._file: Any = None

    @property
    def name(self) -> str:
        """The path."""
        return self.__name

    @property
    def mode(self) -> str:
        """The mode it was opened with."""
        return self.__mode

    def _opened(self):
        if self._file is None:
            try:
                self._file = open(self.__name, self._mode + "b")
            except OSError as e:
                raise _error(e, self.__name) from None
        return self._file

    def _readable(self):
        if not self._read_check_passed:
            raise _errors.PermissionDeniedError(None, None, "File isn't open for reading")
        return self._opened()

    def _writable(self):
        if not self._write_check_passed:
            raise _errors.PermissionDeniedError(None, None, "File isn't open for writing")
        return self._opened()

    def _out(self, data: bytes):
        return data if self._binary else data.decode("utf-8")

    def size(self) -> int:
        """The file's size in bytes."""
        return Stat(self.__name).length

    def write(self, file_content) -> None:
        """Writes `file_content` (str or bytes) at the end of what was written."""
        f = self._writable()
        data = file_content.encode("utf-8") if isinstance(file_content, str) else file_content
        try:
            f.write(bytes(data))
        except OSError as e:
            raise _error(e, self.__name) from None

    def read(self, n=-1):
        """Reads `n` bytes (all that is left when `n` is -1)."""
        f = self._readable()
        try:
            return self._out(f.read() if n is None or n < 0 else f.read(n))
        except OSError as e:
            raise _error(e, self.__name) from None

    def seek(self, offset=None, whence=0, position=None) -> None:
        """Moves to `offset` from the start (`whence` 0), here (1) or the end (2)."""
        if position is not None:
            offset = position
        self._opened().seek(offset or 0, whence)

    def readline(self):
        """The next line, with its newline (empty at the end)."""
        return self._out(self._readable().readline())

    def readlines(self) -> list:
        """Every line left."""
        return [self._out(line) for line in self._readable().readlines()]

    def tell(self) -> int:
        """The current position."""
        return self._opened().tell()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, tb):
        self.close()

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration()
        return line

    next = __next__

    def flush(self) -> None:
        """Writes what is buffered."""
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        """Flushes and closes the file."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def __del__(self):
        # TF's files close when dropped (`tf.gfile.GFile(p).read()` is idiomatic).
        file, self._file = getattr(self, "_file", None), None
        if file is not None:
            file.close()

    def seekable(self) -> bool:
        """Whether `seek` works (always)."""
        return True


Open = GFile
FastGFile = GFile


def Exists(filename) -> bool:
    """Whether a file or directory exists at `filename`."""
    return _os.path.exists(_path(filename))


def Remove(filename) -> None:
    """Deletes the file `filename` (not a directory)."""
    path = _path(filename)
    if _os.path.isdir(path):
        raise _errors.FailedPreconditionError(None, None, f"{path}; Is a directory")
    try:
        _os.remove(path)
    except OSError as e:
        raise _error(e, path) from None


def DeleteRecursively(dirname) -> None:
    """Deletes everything under `dirname`, and it."""
    path = _path(dirname)
    if not _os.path.exists(path):
        raise _errors.NotFoundError(None, None, f"{path} not found")
    try:
        if _os.path.isdir(path) and not _os.path.islink(path):
            _shutil.rmtree(path)
        else:
            _os.remove(path)
    except OSError as e:
        raise _error(e, e.filename or path) from None


def IsDirectory(dirname) -> bool:
    """Whether `dirname` is a directory."""
    return _os.path.isdir(_path(dirname))


def ListDirectory(dirname) -> list:
    """The names of the entries of `dirname` (not `.` and `..`), in no set order."""
    path = _path(dirname)
    if not _os.path.isdir(path):
        raise _errors.NotFoundError(None, None, f"Could not find directory {path}")
    try:
        return _os.listdir(path)
    except OSError as e:
        raise _error(e, path) from None


def MkDir(dirname) -> None:
    """Creates `dirname`; its parent must exist (an existing directory is fine)."""
    path = _path(dirname)
    try:
        _os.mkdir(path)
    except FileExistsError:
        if not _os.path.isdir(path):
            raise _errors.FailedPreconditionError(None, None, f"{path}; Not a directory") from None
    except OSError as e:
        raise _error(e, path) from None


def MakeDirs(dirname) -> None:
    """Creates `dirname` and any missing parents."""
    path = _path(dirname)
    try:
        _os.makedirs(path, exist_ok=True)
    except OSError as e:
        raise _error(e, path) from None


def Rename(oldname, newname, overwrite=False) -> None:
    """Renames `oldname` to `newname`; an existing `newname` needs `overwrite`."""
    old, new = _path(oldname), _path(newname)
    if not overwrite and _os.path.exists(new):
        raise _errors.AlreadyExistsError(None, None, "file already exists")
    try:
        _os.replace(old, new)
    except OSError as e:
        raise _error(e, old) from None


def Copy(oldpath, newpath, overwrite=False) -> None:
    """Copies the file `oldpath` to `newpath`; an existing one needs `overwrite`."""
    old, new = _path(oldpath), _path(newpath)
    if not overwrite and _os.path.exists(new):
        raise _errors.AlreadyExistsError(None, None, "file already exists")
    try:
        _shutil.copyfile(old, new)
    except OSError as e:
        raise _error(e, e.filename or old) from None


def Glob(filename) -> list:
    """The paths that match the pattern `filename` (`*`, `?`, `[...]`)."""
    if isinstance(filename, (str, bytes, _os.PathLike)):
        return _glob.glob(_path(filename))
    return [m for pattern in filename for m in _glob.glob(_path(pattern))]


def Stat(filename) -> FileStatistics:
    """The size, modification time (ns) and kind of `filename`."""
    path = _path(filename)
    try:
        st = _os.stat(path)
    except OSError as e:
        raise _error(e, path) from None
    return FileStatistics(st.st_size, st.st_mtime_ns, _os.path.isdir(path))


def Walk(top, in_order=True):
    """Yields `(dirname, subdirs, files)` for `top` and every directory under it.

    Args:
        top: The directory to start from (nothing is yielded if it does not exist).
        in_order: Parents before children (True), or children first.
    """
    top = _path(top)
    try:
        entries = _os.listdir(top)
    except OSError:
        return
    subdirs = [e for e in entries if _os.path.isdir(_os.path.join(top, e))]
    files = [e for e in entries if e not in subdirs]
    here = (top, subdirs, files)
    if in_order:
        yield here
    for sub in subdirs:
        yield from Walk(_os.path.join(top, sub), in_order)
    if not in_order:
        yield here
