"""safe_files: a path read from or written into a directory is resolved and must stay inside it
(``..``, absolute names and links out refused, naming the entry); writes are atomic and replace
a link instead of writing through it; a new directory appears whole or not at all."""
import os

import pytest

from evidence_ledger.errors import ExpectedError
from evidence_ledger.files.safe_files import (OutputRefused, PathOutside, atomic_directory, atomic_file, check_inside,
                                        links_leading_out, named_path, output_path, remove_dead_temporaries,
                                        write_text_atomic)


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text("a")
    (tmp_path / "outside.txt").write_text("not yours")
    return root


@pytest.mark.parametrize("name, why", [
    ("../outside.txt", "climbs out"), ("sub/../../outside.txt", "climbs out"), ("/etc/passwd", "absolute path"),
    ("C:\\Windows\\x", "absolute path"), ("", "not a file name"), (3, "not a file name")])
def test_a_name_leaving_the_directory_is_refused_naming_the_entry(tree, name, why):
    with pytest.raises(PathOutside, match=rf"index\.json: entry 'w' .*{why}"):
        named_path(tree, name, what="index.json: entry 'w'")


def test_a_name_inside_is_accepted_and_a_link_leading_out_is_refused(tree):
    assert named_path(tree, "a.txt", what="x") == tree / "a.txt"
    (tree / "sub" / "in.txt").symlink_to(tree / "a.txt")
    assert named_path(tree, "sub/in.txt", what="x") == tree / "sub" / "in.txt"
    (tree / "sub" / "out.txt").symlink_to(tree.parent / "outside.txt")
    with pytest.raises(PathOutside, match=r"entry 'w' leads to .*outside\.txt, outside .*root"):
        named_path(tree, "sub/out.txt", what="entry 'w'")
    assert isinstance(PathOutside("x"), ExpectedError)


def test_links_leading_out_are_found_at_any_depth_without_following_linked_directories(tree):
    (tree / "sub" / "deep").mkdir()
    (tree / "sub" / "deep" / "out.txt").symlink_to(tree.parent / "outside.txt")
    (tree / "linked-dir").symlink_to(tree.parent)
    (tree / "in.txt").symlink_to("a.txt")
    assert [link.name for link, _ in links_leading_out(tree)] == ["linked-dir", "out.txt"]
    with pytest.raises(PathOutside):
        check_inside(tree, tree / "linked-dir" / "outside.txt", what="file")


def test_output_path_refuses_a_link_out_on_the_way_and_a_directory_or_file_in_the_way(tree):
    (tree / "linked").symlink_to(tree.parent)
    with pytest.raises(PathOutside, match=r"root/linked is a link to .*, outside the output directory"):
        output_path(tree, "linked/new.txt")
    (tree / "file-link.txt").symlink_to(tree.parent / "outside.txt")
    with pytest.raises(PathOutside, match="file-link.txt is a link to"):
        output_path(tree, "file-link.txt")
    with pytest.raises(OutputRefused, match="is a directory where a file is written"):
        output_path(tree, "sub")
    with pytest.raises(OutputRefused, match="a.txt is a file where a directory is written"):
        output_path(tree, "a.txt/b.txt")
    (tree / "inside-link.txt").symlink_to("a.txt")
    assert output_path(tree, "inside-link.txt") == tree / "inside-link.txt"


def test_an_atomic_write_replaces_a_link_at_its_path_and_leaves_no_temporary(tree):
    (tree / "x.txt").symlink_to(tree.parent / "outside.txt")
    write_text_atomic(tree / "x.txt", "new")
    assert (tree.parent / "outside.txt").read_text() == "not yours"
    assert not (tree / "x.txt").is_symlink() and (tree / "x.txt").read_text() == "new"
    with pytest.raises(RuntimeError):
        with atomic_file(tree / "a.txt") as tmp:
            tmp.write_text("half")
            raise RuntimeError("killed half way")
    assert (tree / "a.txt").read_text() == "a"
    assert sorted(p.name for p in tree.iterdir()) == ["a.txt", "sub", "x.txt"]


def test_a_dead_writers_temporary_is_removed_and_a_live_ones_kept(tree):
    import subprocess
    import sys

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tree / f".a.txt.{dead.pid}-abc.tmp"
    stale.write_text("half")
    live = tree / f".a.txt.{os.getppid()}-def.tmp"
    live.write_text("in progress")
    assert remove_dead_temporaries(tree / "a.txt") == [stale]
    assert live.exists()


def test_a_new_directory_appears_whole_or_not_at_all(tmp_path):
    out = tmp_path / "new" / "deeper" / "out"
    with pytest.raises(RuntimeError):
        with atomic_directory(out) as building:
            (building / "model.safetensors").write_text("half")
            raise RuntimeError("failed half way")
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no out, no parents it made, no temporary
    with atomic_directory(out) as building:
        (building / "model.safetensors").write_text("whole")
    assert [p.name for p in out.iterdir()] == ["model.safetensors"]
    assert sorted(p.name for p in out.parent.iterdir()) == ["out"]


def test_a_new_directory_refuses_a_non_empty_one_or_a_file_and_keeps_an_empty_one(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(RuntimeError):
        with atomic_directory(empty):
            raise RuntimeError("failed")
    assert empty.is_dir() and not any(empty.iterdir())
    with pytest.raises(OutputRefused, match="exists and is not empty"):
        with atomic_directory(tmp_path):
            pass
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputRefused, match="exists and is not a directory"):
        with atomic_directory(tmp_path / "file"):
            pass
