"""Loading mechanisms from users' Python files: faier.mechanisms.loader.

Every failure is a MechanismError that names the file (and the line, when the
file itself raised) and says how to fix it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import faier
from faier.core.problem import Problem
from faier.errors import InputError, MechanismError
from faier.mechanisms import Interactive, Program, StepProgram
from faier.mechanisms.loader import (
    MECHANISM_TYPES,
    find_definitions,
    load_module,
    pick,
    place_in_file,
)

MECHANISM = '''
from fractions import Fraction

import faier


@faier.program(inputs=faier.scalars(2))
def half(x, ctx):
    """Truncated 1/2-geometric noise."""
    return ctx.draw(faier.truncated_geometric(Fraction(1, 2), 2, x))
'''


def write(tmp_path: Path, text: str, name: str = "mechanism.py") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --- load_module -----------------------------------------------------------------------


def test_load_module_runs_the_file_and_returns_its_definitions(tmp_path: Path) -> None:
    module = load_module(write(tmp_path, MECHANISM))
    assert isinstance(module.half, Program)
    assert module.half.name == "half"
    assert module.half.doc == "Truncated 1/2-geometric noise."


def test_load_module_leaves_no_trace_in_sys_modules(tmp_path: Path) -> None:
    before = set(sys.modules)
    module = load_module(write(tmp_path, MECHANISM))
    assert module.__name__ not in sys.modules
    assert {m for m in set(sys.modules) - before if m.startswith("faier_user_")} == set()


def test_load_module_executes_the_file_afresh_each_time(tmp_path: Path) -> None:
    path = write(tmp_path, "TOKEN = object()\n")
    assert load_module(path).TOKEN is not load_module(path).TOKEN
    path.write_text("VALUE = 2\n", encoding="utf-8")
    assert load_module(path).VALUE == 2


@pytest.mark.parametrize("name", ["missing.py", "folder.py"])
def test_load_module_of_something_that_is_not_a_file(tmp_path: Path, name: str) -> None:
    (tmp_path / "folder.py").mkdir()
    path = tmp_path / name
    with pytest.raises(MechanismError) as caught:
        load_module(path)
    error = caught.value
    assert error.message == "file not found"
    assert error.where == str(path)
    assert error.fix == "check the path"
    assert isinstance(error, InputError)


def test_a_crash_at_import_names_the_file_line_and_exception(tmp_path: Path) -> None:
    path = write(tmp_path, "import faier\n\nSETTINGS = {}\nALPHA = SETTINGS['alpha']\n")
    with pytest.raises(MechanismError) as caught:
        load_module(path)
    error = caught.value
    assert error.where == f"{path}:4"
    assert error.message == "raised KeyError while loading: 'alpha'"
    assert error.fix == "fix the error in the file"
    assert isinstance(error.__cause__, KeyError)
    assert (
        error.render()
        == f"{path}:4: raised KeyError while loading: 'alpha' (fix the error in the file)"
    )


def test_a_crash_inside_a_function_called_at_import_names_the_innermost_line(
    tmp_path: Path,
) -> None:
    text = "def setup():\n    return 1 / 0\n\n\nVALUE = setup()\n"
    with pytest.raises(MechanismError) as caught:
        load_module(write(tmp_path, text))
    assert caught.value.where is not None
    assert caught.value.where.endswith("mechanism.py:2")
    assert "ZeroDivisionError" in caught.value.message


def test_a_crash_in_a_module_it_imports_still_names_the_users_line(tmp_path: Path) -> None:
    path = write(tmp_path, "import json\n\njson.loads('{not json')\n")
    with pytest.raises(MechanismError) as caught:
        load_module(path)
    assert caught.value.where == f"{path}:3"
    assert "JSONDecodeError" in caught.value.message


def test_a_syntax_error_names_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, "x = 1\ndef broken(:\n    pass\n")
    with pytest.raises(MechanismError) as caught:
        load_module(path)
    assert caught.value.where == f"{path}:2"
    assert "SyntaxError" in caught.value.message


def test_a_relative_path_keeps_the_line_number(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python records the absolute path of a file loaded from a relative one."""
    write(tmp_path, "import faier\n\nraise RuntimeError('boom')\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(MechanismError) as caught:
        load_module(Path("mechanism.py"))
    assert caught.value.where == "mechanism.py:3"
    assert caught.value.message == "raised RuntimeError while loading: boom"


@pytest.mark.parametrize("code", ["raise SystemExit(5)", "import sys\nsys.exit(1)"])
def test_exiting_at_import_is_a_mechanism_error(tmp_path: Path, code: str) -> None:
    """A file's sys.exit(1) must not end faier with an exit code that reads as a verdict."""
    path = write(tmp_path, code + "\n")
    with pytest.raises(MechanismError) as caught:
        load_module(path)
    assert "raised SystemExit while loading" in caught.value.message
    assert caught.value.where == f"{path}:{len(code.splitlines())}"


# --- place_in_file -----------------------------------------------------------------------


def test_place_in_file_without_a_frame_in_the_file_is_the_path(tmp_path: Path) -> None:
    path = tmp_path / "mechanism.py"
    assert place_in_file(ValueError("never raised"), path) == str(path)


def test_place_in_file_of_a_raised_exception(tmp_path: Path) -> None:
    path = write(tmp_path, "def crash():\n    raise ValueError('x')\n")
    module = load_module(path)
    try:
        module.crash()
    except ValueError as exc:
        assert place_in_file(exc, path) == f"{path}:2"
    else:  # pragma: no cover
        pytest.fail("crash() did not raise")


# --- find_definitions ---------------------------------------------------------------------

EVERY_KIND = """
from fractions import Fraction

import faier
from faier import Program, StepProgram, Interactive, Done, grid, scalars
from faier.mechanisms.library.randomized_response import randomized_response


@faier.program(inputs=scalars(1))
def one_shot(x, ctx):
    return x


stepped = StepProgram("stepped", lambda x: x, lambda s, ctx: Done(s), grid(1, 1))
interactive = Interactive("interactive", (0, 1), {"start": 0}, lambda s, a, ctx: (s, a))
survey = randomized_response()
_private = randomized_response()
not_a_mechanism = "one_shot"
"""


def test_find_definitions_finds_every_kind_of_mechanism(tmp_path: Path) -> None:
    module = load_module(write(tmp_path, EVERY_KIND))
    found = find_definitions(module, MECHANISM_TYPES)
    assert set(found) == {"one_shot", "stepped", "interactive", "survey"}
    assert isinstance(found["stepped"], StepProgram)
    assert isinstance(found["interactive"], Interactive)
    # Classes imported from faier, private names and other values are not definitions.
    assert "Program" not in found and "_private" not in found


def test_find_definitions_by_kind(tmp_path: Path) -> None:
    module = load_module(write(tmp_path, EVERY_KIND))
    assert set(find_definitions(module, (Program,))) == {"one_shot", "survey"}
    assert find_definitions(module, (Problem,)) == {}


def test_mechanism_types() -> None:
    assert set(MECHANISM_TYPES) == {Program, StepProgram, Interactive}


# --- pick ---------------------------------------------------------------------------------


def test_pick_the_only_definition() -> None:
    assert pick({"a": 1}, Path("m.py"), None, "mechanism") == 1


def test_pick_by_name() -> None:
    found = {"a": 1, "b": 2}
    assert pick(found, Path("m.py"), "b", "mechanism") == 2


def test_pick_among_several_needs_a_name() -> None:
    with pytest.raises(MechanismError) as caught:
        pick({"a": 1, "b": 2}, Path("m.py"), None, "mechanism")
    error = caught.value
    assert error.where == "m.py"
    assert error.message == "defines 2 mechanisms (a, b)"
    assert error.fix == "choose one with --name NAME"


@pytest.mark.parametrize("what", ["mechanism", "problem"])
def test_pick_an_unknown_name(what: str) -> None:
    with pytest.raises(MechanismError) as caught:
        pick({"a": 1, "b": 2}, Path("m.py"), "c", what)
    error = caught.value
    assert error.where == "m.py"
    assert error.message == f"no {what} named 'c'"
    assert error.fix == "defined: a, b"


# --- through the API: problems before mechanisms --------------------------------------------

PROBLEMS = """
import faier
from faier.privacy.neighbours import EveryQuery, OneQuery
from faier.privacy.specs import DifferentialPrivacy
from faier.mechanisms.library.randomized_response import randomized_response

survey = randomized_response()
wide = faier.Problem("wide", survey, DifferentialPrivacy(EveryQuery(1)))
narrow = faier.Problem("narrow", survey, DifferentialPrivacy(OneQuery(1)))
"""


def test_a_file_with_problems_offers_the_problems(tmp_path: Path) -> None:
    path = write(tmp_path, PROBLEMS)
    with pytest.raises(MechanismError, match=r"defines 2 problems \(wide, narrow\)"):
        faier.load_problem(str(path))
    assert faier.load_problem(str(path), name="narrow").name == "narrow"
    with pytest.raises(MechanismError, match="no problem named 'survey'"):
        faier.load_problem(str(path), name="survey")


def test_a_file_without_mechanisms_through_the_api(tmp_path: Path) -> None:
    path = write(tmp_path, "VALUE = 1\n")
    with pytest.raises(MechanismError) as caught:
        faier.load_problem(str(path))
    assert caught.value.where == str(path)
    assert caught.value.message == "defines no mechanism"
    assert caught.value.fix is not None and "@faier.program" in caught.value.fix


def test_a_mechanism_that_crashes_while_running_names_the_file_and_line(tmp_path: Path) -> None:
    text = MECHANISM.replace("return ctx.draw(", "assert x != 1, 'no ones'\n    return ctx.draw(")
    path = write(tmp_path, text)
    with pytest.raises(MechanismError) as caught:
        faier.epsilon(str(path))
    error = caught.value
    line = text.splitlines().index("    assert x != 1, 'no ones'") + 1
    assert error.where == f"{path}:{line}"
    assert "mechanism 'half' raised AssertionError: no ones" in error.message
    assert isinstance(error.__cause__, AssertionError)
