"""The command line's own words: every argument of every command says what it is for, the README's CLI lines
name only commands and flags that exist (and every command), and bad numbers are refused in one line naming
the flag."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from inspector.cli import build_parser, main

README = Path(__file__).resolve().parent.parent / "README.md"


def commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices


def test_every_argument_of_every_command_has_help():
    missing = [(name, a.option_strings or a.dest) for name, p in commands().items() for a in p._actions
               if not isinstance(a, argparse._HelpAction) and not a.help]
    assert missing == []


def test_the_readme_names_real_commands_and_flags():
    found, wrong = set(), []
    for block in re.findall(r"```bash\n(.*?)```", README.read_text(), re.S):
        command = None
        for line in block.splitlines():
            if m := re.match(r"\s*python -m inspector (\S+)(.*)", line):
                command, rest = m.group(1), m.group(2)
            elif command and re.match(r"\s+\[", line):  # a continuation line of the command's flags
                rest = line
            else:
                command = None
                continue
            if command not in commands():
                wrong.append(command)
                continue
            found.add(command)
            flags = {o for a in commands()[command]._actions for o in a.option_strings}
            wrong += [f"{command} {f}" for f in re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", rest.split("#")[0])
                      if f not in flags]
    assert wrong == [] and found == set(commands())


@pytest.mark.parametrize(("argv", "said"), [
    (["threads", "--limit", "-1"], "--limit must be 0 or more"),
    (["health", "--store", "some-thread"], "name no thread"),
    (["growth", "--top", "-1"], "--top must be a whole number"),
    (["bundle", "demo-research", "--out", "/no-such-folder/case.zip"], "no folder '/no-such-folder'"),
    (["bundle", "demo-research", "--out", "/tmp"], "must name a .zip file"),
])
def test_bad_numbers_and_arguments_are_refused_in_one_line(demo_db, capsys, argv, said):
    assert main([*argv, "--db", str(demo_db)]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1


def test_a_bundle_is_not_written_over_a_folder_or_the_bundle_being_read(demo_db, tmp_path, capsys):
    (tmp_path / "folder.zip").mkdir()
    assert main(["bundle", "demo-research", "--db", str(demo_db), "--out", str(tmp_path / "folder.zip")]) == 2
    assert "names a folder" in capsys.readouterr().err
    case = tmp_path / "case.zip"
    assert main(["bundle", "demo-research", "--db", str(demo_db), "--out", str(case), "--quiet"]) == 0
    before = case.read_bytes()
    capsys.readouterr()
    assert main(["bundle", "demo-research", "--db", str(case), "--out", str(case)]) == 2
    assert "the store being read" in capsys.readouterr().err and case.read_bytes() == before
