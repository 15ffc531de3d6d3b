"""engine/toml_tables.py: a rule table read through its cache is the table tomllib parses, and a
cache that is stale, broken or cannot be written is never trusted over the file."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

from engine import toml_tables

ROOT = Path(__file__).resolve().parents[2]
TABLE = 'name = "x"\nvalues = [1, 2.5, true]\n[nested]\nrows = [[1, 2], [3, 4]]\n'


@pytest.mark.parametrize("source", sorted(ROOT.glob("engine/*/data/*.toml")), ids=lambda p: p.name)
def test_every_engine_table_reads_back_as_tomllib_parses_it(source):
    expected = tomllib.loads(source.read_text("utf-8"))
    assert toml_tables.load(source) == expected
    assert toml_tables.load(source) == expected  # now from the cache, if it could be written


def test_the_second_load_comes_from_the_cache(tmp_path, monkeypatch):
    source = tmp_path / "t.toml"
    source.write_text(TABLE)
    first, expected = toml_tables.load(source), tomllib.loads(TABLE)
    assert toml_tables.cache_path(source).is_file()

    def no_parsing(text):
        raise AssertionError("parsed again")

    monkeypatch.setattr(tomllib, "loads", no_parsing)  # load imports it when it parses
    assert toml_tables.load(source) == first == expected


def test_an_edited_file_is_parsed_again(tmp_path):
    source = tmp_path / "t.toml"
    source.write_text(TABLE)
    toml_tables.load(source)
    stat = os.stat(source)
    source.write_text(TABLE.replace('"x"', '"yy"'))
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # the same time: the size says it changed
    assert toml_tables.load(source)["name"] == "yy"
    source.write_text(TABLE.replace('"x"', '"zz"'))
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1))  # the same size: the time says it
    assert toml_tables.load(source)["name"] == "zz"


def test_a_broken_cache_is_ignored_and_rewritten(tmp_path):
    source = tmp_path / "t.toml"
    source.write_text(TABLE)
    cached = toml_tables.cache_path(source)
    cached.parent.mkdir()
    cached.write_bytes(b"\x00not marshal")
    assert toml_tables.load(source) == tomllib.loads(TABLE)
    assert toml_tables.load(source) == tomllib.loads(TABLE)
    assert cached.read_bytes() != b"\x00not marshal"


def test_where_the_cache_cannot_be_written_the_file_is_parsed(tmp_path):
    source = tmp_path / "t.toml"
    source.write_text(TABLE)
    (tmp_path / "__pycache__").write_text("a file where the cache folder would be")
    assert toml_tables.load(source) == tomllib.loads(TABLE)
    dated = tmp_path / "d.toml"
    dated.write_text("day = 1979-05-27\n")  # a date: marshal cannot hold it
    assert toml_tables.load(dated) == tomllib.loads("day = 1979-05-27\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["__pycache__", "d.toml", "t.toml"]
