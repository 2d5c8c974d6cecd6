"""The one rule for files read from a model directory or written into an output directory.

In:  a directory (a model directory, a cache directory, a command's ``--out``) and a path in it:
     a file it holds, a name one of its files gives (a weight index's shard entry, a tokenizer
     file a config names), or a file about to be written.
Out: the path, once checked: resolved (symbolic links followed) and then required to lie inside
     the resolved directory; otherwise :class:`PathOutside`, naming the file, the entry and
     where it leads. Writes go to a temporary in the same directory and are renamed into place
     (:func:`write_bytes_atomic`, :func:`write_text_atomic`, :func:`atomic_directory`), so a
     reader never sees half a file, a killed writer leaves only a hidden temporary, and an
     existing file is replaced, never written through (a link at the target is replaced by the
     file, not followed).

Why both halves: a model directory is input someone else wrote (a Hub repository, a colleague's
conversion), and transformers, vLLM and this project's own identity hashing read every file a
weight index names with a plain path join, so ``"../outside.bin"`` or a link would read a file
the directory does not hold. An output directory may hold a user's own links, and a writer that
overwrites through one destroys a file outside the directory.
"""
from __future__ import annotations

import glob
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Iterator

from ..errors import ExpectedError


class PathOutside(ExpectedError, ValueError):
    """A path read from or written into a directory lies outside it (``..``, absolute, or a link)."""


class OutputRefused(ExpectedError, FileExistsError):
    """An output location that is not empty, or not a directory, where a new one is written."""


def is_inside(root: Path, path: Path) -> bool:
    """Whether ``path`` resolved (links followed) is ``root`` resolved or lies below it."""
    return Path(path).resolve().is_relative_to(Path(root).resolve())


def check_inside(root, path, *, what: str) -> Path:
    """``path``, once its resolved location is found inside ``root`` (links followed);
    :class:`PathOutside` naming ``what`` and where it leads otherwise."""
    root, path = Path(root), Path(path)
    if not is_inside(root, path):
        raise PathOutside(f"{what} leads to {path.resolve()}, outside {root}; "
                          f"files are read only from inside the directory (links out are refused)")
    return path


def named_path(root, name, *, what: str, base=None) -> Path:
    """The file ``base / name`` (``base`` defaults to ``root``) for a ``name`` that a file inside
    ``root`` gives (a shard entry, a tokenizer file): a non-empty relative path with no ``..``
    that stays inside ``root`` once resolved; :class:`PathOutside` naming ``what`` otherwise."""
    root = Path(root)
    base = root if base is None else Path(base)
    check_relative_name(base, name, what=what)
    return check_inside(root, base / name, what=what)


def check_relative_name(root: Path, name, *, what: str) -> None:
    """:class:`PathOutside` unless ``name`` is a non-empty relative path without ``..``."""
    if not isinstance(name, str) or not name:
        raise PathOutside(f"{what} is {name!r}, not a file name")
    posix, windows = PurePosixPath(name), PureWindowsPath(name)
    if posix.is_absolute() or windows.is_absolute() or windows.drive:
        raise PathOutside(f"{what} names the absolute path {name!r}; only files inside {root} are used")
    if ".." in posix.parts or ".." in windows.parts:
        raise PathOutside(f"{what} names {name!r}, which climbs out of {root}; only files inside it are used")


def links_leading_out(root, top=None) -> list[tuple[Path, Path]]:
    """``(link, resolved target)`` of every symbolic link below ``top`` (default ``root``; links to
    directories are not descended) whose target is outside ``root``, sorted by link path."""
    root = Path(root).resolve()
    found = []
    for dirpath, dirnames, filenames in os.walk(top if top is not None else root, followlinks=False):
        for name in [*dirnames, *filenames]:
            entry = Path(dirpath) / name
            if entry.is_symlink() and not entry.resolve().is_relative_to(root):
                found.append((entry, entry.resolve()))
    return sorted(found)


def check_no_links_out(root, top=None, *, what: str) -> None:
    """:class:`PathOutside` naming the first link below ``top`` (default ``root``) that leads out
    of ``root``; ``what`` says what the directory is (``model directory m``)."""
    found = links_leading_out(root, top)
    if found:
        link, target = found[0]
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        raise PathOutside(f"{link}: a link to {target}, outside the {what}{more}; copy the file into the "
                          f"directory instead of linking to it")


def output_path(out_dir, relative: str, *, what: str = "output directory") -> Path:
    """Where a writer puts ``relative`` (a relative path) inside ``out_dir``, refused with
    :class:`PathOutside` when that place, or a directory on the way to it, is a link leading out
    of ``out_dir`` (resolved), and with :class:`OutputRefused` when the place is a directory or
    a directory on the way is a file. A link that stays inside is fine: the atomic writers
    replace it."""
    out_dir = Path(out_dir)
    check_relative_name(out_dir, relative, what=f"{out_dir / str(relative)}")
    target = out_dir / relative
    for part in [*reversed(Path(relative).parents[:-1]), Path(relative)]:
        place = out_dir / part
        if place.is_symlink() and not is_inside(out_dir, place):
            raise PathOutside(f"{place} is a link to {place.resolve()}, outside the {what} {out_dir}; nothing "
                              f"is written through it: remove the link or choose another directory")
        if place != target and place.exists() and not place.is_dir():
            raise OutputRefused(f"{place} is a file where a directory is written; remove it or choose another "
                                f"directory")
    if target.is_dir():
        raise OutputRefused(f"{target} is a directory where a file is written; remove it or choose another "
                            f"directory")
    return target


def process_alive(pid: int) -> bool:
    """Whether a process ``pid`` exists on this machine (signal 0 probes without signalling)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _temporary_prefix(path: Path) -> str:
    return f".{path.name}.{os.getpid()}-"


def remove_dead_temporaries(path) -> list[Path]:
    """Delete the hidden temporaries (``.{name}.{pid}-*.tmp*``, files or directories) that killed
    atomic writes of ``path`` left beside it, unless their writing process is still alive;
    returns those removed."""
    path = Path(path)
    removed = []
    for stale in sorted(path.parent.glob(f".{glob.escape(path.name)}.*-*.tmp*")):
        pid = stale.name[len(path.name) + 2:].partition("-")[0]
        if not pid.isdigit() or (int(pid) != os.getpid() and process_alive(int(pid))):
            continue
        if stale.is_dir() and not stale.is_symlink():
            shutil.rmtree(stale, ignore_errors=True)
        else:
            stale.unlink(missing_ok=True)
        removed.append(stale)
    return removed


def write_bytes_atomic(path, data: bytes) -> Path:
    """Write ``data`` to ``path`` through a hidden temporary in the same directory, then rename it
    into place: readers see the old file or the whole new one, and a link at ``path`` is
    replaced, not written through."""
    with atomic_file(path) as tmp:
        tmp.write_bytes(data)
    return Path(path)


def write_text_atomic(path, text: str) -> Path:
    """:func:`write_bytes_atomic` of ``text`` in UTF-8 (line endings as given)."""
    return write_bytes_atomic(path, text.encode("utf-8"))


@contextmanager
def atomic_file(path, suffix: str = "") -> Iterator[Path]:
    """A new temporary file beside ``path`` (created exclusively, so never an existing link) for a
    writer that writes by name (a figure, a CSV, a weights file); renamed to ``path`` when the
    block ends, removed when it raises. ``suffix`` keeps an extension a writer reads the format
    from. Temporaries of ``path`` that killed writers left are removed first."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_dead_temporaries(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=_temporary_prefix(path), suffix=f".tmp{suffix}")
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def new_directory_refusal(out: Path) -> OutputRefused | None:
    """Why ``out`` cannot become a new output directory (a file, a dangling link, or a non-empty
    directory), or None when it is absent or an empty directory."""
    if out.is_symlink() and not out.exists():
        return OutputRefused(f"{out} is a link to nothing; remove it or choose another directory")
    if out.exists() and not out.is_dir():
        return OutputRefused(f"{out} exists and is not a directory; choose a new directory")
    if out.is_dir() and any(out.iterdir()):
        return OutputRefused(f"{out} exists and is not empty; choose a new directory")
    return None


@contextmanager
def temporary_directory(path) -> Iterator[Path]:
    """A new hidden directory beside ``path`` (``.{name}.{pid}-*.tmp``, on the same file system, so
    what is built in it can be renamed into place), removed with what is left in it when the block
    ends. Temporaries of ``path`` that killed processes left are removed first."""
    path = Path(path)
    remove_dead_temporaries(path)
    tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=_temporary_prefix(path), suffix=".tmp"))
    try:
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@contextmanager
def atomic_directory(out) -> Iterator[Path]:
    """Build a new directory ``out`` all at once: the block writes into a hidden temporary
    directory beside it (:func:`temporary_directory`), renamed to ``out`` when the block ends.
    When the block raises, the temporary is removed, and so is every parent directory this call
    created: nothing is left behind (an empty ``out`` the caller made stays as it was). ``out``
    must be absent or an empty directory (:class:`OutputRefused`); a link to an empty directory
    is followed (the directory is the one the user named)."""
    out = Path(out)
    refusal = new_directory_refusal(out)
    if refusal is not None:
        raise refusal
    if out.is_symlink():
        out = out.resolve()
    created = [p for p in reversed(out.parents) if not p.exists()]
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        with temporary_directory(out) as tmp:
            yield tmp
            os.chmod(tmp, 0o755)
            os.replace(tmp, out)
    except BaseException:
        for parent in reversed(created):
            try:
                parent.rmdir()
            except OSError:
                break
        raise
