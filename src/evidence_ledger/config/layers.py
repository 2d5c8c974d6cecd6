"""The run configuration, built from layers (docs: config/README.md "How a run's config is built").

In:  the repository root, the config files named on the command line (``--configfile``, in
     order) and the ``--config key=value`` entries, exactly as given to Snakemake.
Out: one mapping, the deep merge of

     1. ``config/defaults.yaml``: every setting of the method, at the paper's values, with its
        description beside it;
     2. ``config/demo.yaml`` when no ``--configfile`` is given (the embedded demo is the default
        run), otherwise the named files in order (``config/paper.yaml``; the CPU rehearsal adds
        ``config/rehearsal.yaml`` after it);
     3. the ``--config`` entries;

     and, with :func:`run_config`, where each value came from (:class:`RunConfig`: the file and
     line, or ``--config``), which error messages and path resolution use.

A run never sees a layer it did not name: the demo file is read only when no config file is
given, whatever other flags are used. Mappings merge key by key and lists are replaced whole,
as Snakemake merges config files; a layer therefore adds to a default mapping but cannot remove
its keys, which is why the defaults hold no dataset, model or file of any particular run.

Reading (:func:`read_layer`, :func:`parse_config_entries`): every file and every ``--config``
value is read by one YAML loader, so ``--config`` values are typed as in a file (``n=100`` an
integer, ``x=null`` None, ``x=true`` a boolean, ``'a={b: {c: 1}}'`` a nested mapping), not as
Snakemake's own parser leaves them (strings below the top level). A key repeated in one mapping
is refused naming the file and both lines (YAML would keep the second silently); an empty file
(or only comments) is an empty layer; anything but a mapping at the top level is refused naming
the file; a YAML alias (``*name``, which can make a small file expand without bound) is refused
naming the line. Every :class:`ConfigError` is one line naming the file and line, or the ``--config``
entry.

Paths (:func:`expand_user_paths`, :func:`resolve_path`): every key the schema marks ``x-path``
(``workflow/schemas/config.schema.yaml``) has ``~`` expanded when the config is built (an
unknown ``~user`` is refused), so every path key treats ``~`` alike. A relative path then
resolves by its mark: ``data_root`` inside ``data_root``; ``run`` against the run directory
(Snakemake's working directory, ``--directory``); ``input`` against the run directory, except a
value set by the workflow's own layers (``config/defaults.yaml``, ``config/demo.yaml``), which
names a file shipped with the workflow and resolves against the workflow's directory (the
Snakefile's). Nothing resolves against the installed package.
"""
from __future__ import annotations

import copy
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import yaml

from ..errors import ExpectedError

DEFAULTS_FILE = "config/defaults.yaml"
DEMO_FILE = "config/demo.yaml"
SCHEMA_FILE = "workflow/schemas/config.schema.yaml"
COMMAND_LINE = "--config"
# Snakemake's own rule for a --config key (snakemake.cli.parse_config): it refuses any other key
# before the workflow is read, so this parser takes exactly the same keys
SNAKEMAKE_CONFIG_KEY = re.compile(r"[a-zA-Z_][\w-]*\w$")
# how the schema marks a path key, and the directories a relative path of each kind resolves in
PATH_MARK = "x-path"
PATH_KINDS = ("run", "input", "data_root")


class ConfigError(ExpectedError, ValueError):
    """A config file or ``--config`` entry that cannot be read, or a value the run refuses;
    the message names the file and line, or the entry, or the key and where it came from."""


# --- reading one layer --------------------------------------------------------------------


class _StrictLoader(yaml.SafeLoader):
    """PyYAML's safe loader that refuses a key repeated in one mapping (YAML keeps the last)."""

    source = "<config>"
    one_line = False

    def compose_node(self, parent, index):
        # an alias repeats a whole subtree: a few nested ones make a small file expand without
        # bound when the config is merged and validated, so config files name each value in place
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            where = self.source if self.one_line else f"{self.source}:{event.start_mark.line + 1}"
            raise ConfigError(f"{where}: YAML alias *{event.anchor} is not read in a config; write the value "
                              f"where it applies")
        return super().compose_node(parent, index)

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            first: dict = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    seen = first.get(key)
                except TypeError:  # an unhashable key: PyYAML refuses it below
                    continue
                line = key_node.start_mark.line + 1
                if seen is not None:
                    where = self.source if self.one_line else f"{self.source}:{line}"
                    first_at = "" if self.one_line else f" (first at line {seen})"
                    raise ConfigError(f"{where}: key {key!r} is repeated{first_at}; a config names each key once "
                                      f"(YAML would keep only the second value)")
                first[key] = line
        return super().construct_mapping(node, deep=deep)


def _key_lines(node, prefix: tuple = ()) -> dict[tuple, int]:
    """``{key path: 1-based line}`` of every mapping key under ``node`` (scalar keys)."""
    lines: dict[tuple, int] = {}
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                path = prefix + (key_node.value,)
                lines[path] = key_node.start_mark.line + 1
                lines.update(_key_lines(value_node, path))
    return lines


def load_yaml(text: str, source: str, one_line: bool = False) -> tuple[Any, dict[tuple, int]]:
    """``(value, key lines)`` of a YAML text; ``source`` names it in errors (a file, or with
    ``one_line`` a ``--config`` entry, whose errors give a column, not a line). Raises
    :class:`ConfigError` for invalid YAML or a repeated key."""
    loader = _StrictLoader(text)
    loader.source, loader.one_line = source, one_line
    try:
        node = loader.get_single_node()
        if node is None:
            return None, {}
        return loader.construct_document(node), _key_lines(node)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        if mark is None:
            where = source
        elif one_line:
            where = f"{source} (column {mark.column + 1})"
        else:
            where = f"{source}:{mark.line + 1}:{mark.column + 1}"
        raise ConfigError(f"{where}: not valid YAML: {err.problem or err.context}") from None
    except yaml.YAMLError as err:
        raise ConfigError(f"{source}: not valid YAML: {err}") from None
    finally:
        loader.dispose()


def display_path(path: Path | str, base: Path | str | None = None) -> str:
    """A file as messages name it: relative to ``base`` (the workflow's directory: its own
    ``config/...`` files) when inside it, else absolute."""
    path = Path(path).absolute()
    if base is not None:
        try:
            return str(path.resolve().relative_to(Path(base).resolve()))
        except ValueError:
            pass
    return str(path)


def read_layer_lines(path: Path | str, base: Path | str | None = None) -> tuple[dict, dict[tuple, int]]:
    """One config file as ``(mapping, key lines)``; an empty file (or only comments) is an
    empty layer; anything but a mapping at the top level is a :class:`ConfigError` (messages
    name the file relative to ``base`` when inside it: :func:`display_path`)."""
    data, lines = read_layer_document(path, base)
    return ({}, {}) if data is None else (data, lines)


def read_layer_document(path: Path | str, base: Path | str | None = None) -> tuple[dict | None, dict[tuple, int]]:
    """:func:`read_layer_lines`, with None for a file that holds no YAML document (empty, or only
    comments), which Snakemake refuses as a ``--configfile``."""
    path = Path(path)
    name = display_path(path, base)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"config file {name} not found") from None
    except IsADirectoryError:
        raise ConfigError(f"config file {name} is a directory, not a YAML file") from None
    except UnicodeDecodeError as err:
        raise ConfigError(f"config file {name} is not UTF-8 text ({err.reason} at byte {err.start})") from None
    data, lines = load_yaml(text, name)
    if data is None:
        return None, {}
    if not isinstance(data, dict):
        raise ConfigError(f"{name}: a config file holds a mapping of keys at the top level, not a "
                          f"{_kind(data)}")
    return data, lines


def read_layer(path: Path | str) -> dict:
    """One config file as a mapping (:func:`read_layer_lines` without the lines)."""
    return read_layer_lines(path)[0]


def _kind(value: Any) -> str:
    return {list: "list", str: "string", int: "number", float: "number", bool: "boolean"}.get(
        type(value), type(value).__name__)


def parse_config_entries(entries: Sequence[str] | None) -> dict:
    """``--config`` entries (``key=value``, as given to Snakemake) as one typed mapping: each
    value read as YAML, as in a config file; an empty value is null; later entries merge into
    earlier ones as Snakemake merges them."""
    out: dict = {}
    for entry in entries or ():
        key, sep, text = str(entry).partition("=")
        if not sep:
            raise ConfigError(f"--config {entry!r}: expected KEY=VALUE")
        if not SNAKEMAKE_CONFIG_KEY.match(key):
            raise ConfigError(f"--config {entry!r}: {key!r} is not a top-level key Snakemake accepts (letters, "
                              f"digits, _ and -, starting with a letter or _); nested keys are written as a "
                              f"mapping, e.g. --config 'sampling={{fever: {{n: 100}}}}'")
        value = None if text == "" else load_yaml(text, f"--config {entry!r}", one_line=True)[0]
        merge_layer(out, {key: value})
    return out


# --- merging, with where each value came from ----------------------------------------------


def merge_layer(base: dict, layer: Mapping) -> dict:
    """Deep-merge ``layer`` into ``base`` in place (mappings key by key, other values replaced)
    and return ``base``: the merge Snakemake applies to config files."""
    for key, value in layer.items():
        if isinstance(value, Mapping) and isinstance(base.get(key), dict):
            merge_layer(base[key], value)
        else:
            base[key] = copy.deepcopy(value)
    return base


@dataclass
class RunConfig:
    """A merged run config and where each of its values came from.

    ``origins`` maps a key path (tuple of key names, as strings) to the layer that set it:
    ``"FILE:LINE"`` or ``"--config"``; :meth:`origin` finds the layer of any key, nested or not.
    ``workflow_layers`` are the labels of the workflow's own files (defaults, demo);
    ``empty_layers`` the config files that hold no document (empty, or only comments)."""

    config: dict
    origins: dict[tuple, str] = field(default_factory=dict)
    layers: list[str] = field(default_factory=list)
    workflow_layers: set[str] = field(default_factory=set)
    empty_layers: list[str] = field(default_factory=list)

    def origin(self, key: str | Sequence[str]) -> str:
        """Where ``key`` (dotted, or a path) was set: ``FILE:LINE`` or ``--config`` (the nearest
        enclosing key that a layer set; ``?`` when none did)."""
        path = tuple(str(p) for p in (key.split(".") if isinstance(key, str) else key))
        for n in range(len(path), 0, -1):
            if path[:n] in self.origins:
                return self.origins[path[:n]]
        return "?"

    def from_workflow(self, key: str | Sequence[str]) -> bool:
        """Whether ``key``'s value comes from one of the workflow's own layers (defaults, demo)."""
        return self.origin(key).rsplit(":", 1)[0] in self.workflow_layers

    def merge(self, layer: Mapping, label: str, lines: Mapping[tuple, int] | None = None,
              workflow: bool = False) -> None:
        """Merge ``layer`` (read from ``label``, its keys on ``lines``) over the config."""
        self.layers.append(label)
        if workflow:
            self.workflow_layers.add(label)
        self._merge(self.config, layer, (), label, lines or {})

    def _merge(self, base: dict, layer: Mapping, prefix: tuple, label: str, lines: Mapping) -> None:
        for key, value in layer.items():
            path = prefix + (str(key),)
            if isinstance(value, Mapping) and isinstance(base.get(key), dict):
                self._merge(base[key], value, path, label, lines)
                continue
            base[key] = copy.deepcopy(value)
            for old in [p for p in self.origins if p[:len(path)] == path]:
                del self.origins[old]
            for sub in _leaf_paths(value, path):
                self.origins[sub] = f"{label}:{lines[sub]}" if sub in lines else label


def _leaf_paths(value: Any, path: tuple) -> Iterator[tuple]:
    yield path
    if isinstance(value, Mapping):
        for key, sub in value.items():
            yield from _leaf_paths(sub, path + (str(key),))


def repo_root() -> Path:
    """The repository whose config/ a command outside Snakemake reads: the current directory when
    it holds ``config/defaults.yaml``, else the checkout this package is installed from."""
    for candidate in (Path.cwd(), Path(__file__).resolve().parents[3]):
        if (candidate / DEFAULTS_FILE).is_file():
            return candidate
    raise ConfigError(f"{DEFAULTS_FILE} not found in {Path.cwd()} nor in the package's checkout; "
                      f"run from the repository root")


def layer_files(repo: Path, configfiles: Sequence[str | Path]) -> list[Path]:
    """The files a run is built from, in merge order: the defaults, then the named files (the demo
    when none is named)."""
    repo = Path(repo)
    named = [Path(f) if Path(f).is_absolute() else Path.cwd() / f for f in configfiles]
    return [repo / DEFAULTS_FILE, *(named or [repo / DEMO_FILE])]


def run_config(repo: Path, configfiles: Sequence[str | Path] = (), entries: Sequence[str] | None = None,
               overrides: Mapping[str, Any] | None = None, schema: Mapping | None = None) -> RunConfig:
    """The run config of ``repo``'s workflow from a command line: the defaults, then
    ``configfiles`` (or the demo), then the ``--config`` ``entries`` (strings, typed by
    :func:`parse_config_entries`) or ready ``overrides``; ``~`` expanded in every path key of
    ``schema`` (default: the repository's schema)."""
    repo = Path(repo)
    out = RunConfig({})
    files = layer_files(repo, configfiles)
    own = {(repo / DEFAULTS_FILE).resolve(), (repo / DEMO_FILE).resolve()}
    for path in files:
        data, lines = read_layer_document(path, repo)
        if data is None:
            out.empty_layers.append(display_path(path, repo))
        out.merge(data or {}, display_path(path, repo), lines, workflow=path.resolve() in own)
    command_line = parse_config_entries(entries) if entries else {}
    merge_layer(command_line, overrides or {})
    if command_line:
        out.merge(command_line, COMMAND_LINE)
    if schema is None:
        schema = load_schema(repo)
    expand_user_paths(out, schema)
    return out


def layered_config(repo: Path, configfiles: Sequence[str | Path] = (),
                   overrides: Mapping[str, Any] | None = None) -> dict:
    """The merged config of a run: defaults, then ``configfiles`` (or the demo), then
    ``overrides`` (the ``--config`` values, already typed)."""
    config: dict = {}
    for path in layer_files(repo, configfiles):
        merge_layer(config, read_layer(path))
    return merge_layer(config, overrides or {})


def snakemake_run_config(repo: Path, cli_configfiles: Sequence[str | Path], config_args: Sequence[str] | None,
                         ) -> RunConfig:
    """The config of a Snakemake run from its command line: the ``--configfile`` files (as
    Snakemake lists them, ``workflow.overwrite_configfiles``), read again here with this module's
    loader, and the raw ``--config`` entries (``workflow.config_settings.config_args``), typed
    here; Snakemake's own merge (whose nested values are untyped strings) is not used."""
    return run_config(repo, list(cli_configfiles or ()), list(config_args or ()))


# --- path keys ------------------------------------------------------------------------------


def load_schema(repo: Path) -> dict:
    """The config schema of ``repo`` (plain YAML, the repository's own file)."""
    return yaml.safe_load((Path(repo) / SCHEMA_FILE).read_text(encoding="utf-8"))


def _schema_node(schema: Mapping, node: Mapping) -> Mapping:
    ref = node.get("$ref") if isinstance(node, Mapping) else None
    if ref and ref.startswith("#/"):
        target: Any = schema
        for part in ref[2:].split("/"):
            target = target[part]
        return target
    return node


def path_keys(config: Mapping, schema: Mapping) -> Iterator[tuple[tuple, str]]:
    """``(key path, kind)`` of every string value of ``config`` at a key the schema marks
    ``x-path`` (``kind`` one of :data:`PATH_KINDS`); list items' paths hold their index."""

    def walk(value, node, path):
        node = _schema_node(schema, node or {})
        kind = node.get(PATH_MARK)
        if kind is not None:
            if isinstance(value, str):
                yield path, kind
            return
        for alternative in node.get("oneOf", []) + node.get("anyOf", []):
            yield from walk(value, alternative, path)
        if isinstance(value, Mapping):
            props = node.get("properties") or {}
            extra = node.get("additionalProperties")
            for key, sub in value.items():
                if key in props:
                    yield from walk(sub, props[key], path + (str(key),))
                elif isinstance(extra, Mapping):
                    yield from walk(sub, extra, path + (str(key),))
        elif isinstance(value, list) and isinstance(node.get("items"), Mapping):
            for i, sub in enumerate(value):
                yield from walk(sub, node["items"], path + (str(i),))

    seen = set()
    for path, kind in walk(config, schema, ()):
        if path not in seen:
            seen.add(path)
            yield path, kind


def _set_path(config: Any, path: Sequence[str], value: Any) -> None:
    parent = config_value(config, path[:-1])
    if isinstance(parent, list):
        parent[int(path[-1])] = value
    else:
        parent[path[-1]] = value


def expand_user_paths(run: RunConfig, schema: Mapping) -> None:
    """``~`` and ``~user`` expanded in every path key of ``run.config`` (in place); a ``~user``
    that names no user, or a NUL character, is a :class:`ConfigError` naming the key and its origin."""
    for path, _ in list(path_keys(run.config, schema)):
        value = config_value(run.config, path)
        if "\x00" in value:
            raise ConfigError(f"{'.'.join(path)} = {value!r} ({run.origin(path)}): a path holds no NUL character")
        if not value.startswith("~"):
            continue
        expanded = os.path.expanduser(value)
        if expanded.startswith("~"):
            raise ConfigError(f"{'.'.join(path)} = {value!r} ({run.origin(path)}): "
                              f"{value.split('/', 1)[0]!r} names no user of this machine; give the path in full")
        _set_path(run.config, path, expanded)


def resolve_path(run: RunConfig, key: str, run_dir: Path | str, workflow_dir: Path | str,
                 kind: str = "run") -> Path | None:
    """The absolute path of path key ``key`` (dotted) of ``run``: an absolute value as it is; a
    relative one against the run directory, or for an ``input`` key set by the workflow's own
    layers, against the workflow's directory (module docstring). None when the key is unset."""
    value = config_value(run.config, key)
    if not value:
        return None
    path = Path(value)
    if path.is_absolute():
        return path
    base = Path(workflow_dir) if kind == "input" and run.from_workflow(key) else Path(run_dir)
    return (base.absolute() / path)


def config_value(config: Any, key: str | Sequence[Any], default: Any = None) -> Any:
    """The value at ``key`` of ``config``, dotted (``"generation.models"``,
    ``"diffgr.reader_run_files.0.hybrid"``: a whole number indexes a list) or a path of parts;
    ``default`` where any part of the path is missing. The one reader of a config key by name."""
    node: Any = config
    for part in (key.split(".") if isinstance(key, str) else key):
        if isinstance(node, list) and str(part).isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, Mapping) and part in node:
            node = node[part]
        else:
            return default
    return node
