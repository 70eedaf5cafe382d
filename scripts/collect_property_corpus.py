"""Collect the DTMC and MDP properties of public benchmark sets: tests/logic/data/properties.json.

Reads git checkouts of the Quantitative Verification Benchmark Set
(github.com/ahartmanns/qcomp, ``benchmarks/{dtmc,mdp}/*/*.props``) and of the
PRISM benchmark suite (github.com/prismmodelchecker/prism-benchmarks,
``models/{dtmcs,mdps}/*/*.pctl``) at their HEAD commits and writes, per
property file, its source (repository, commit, path), every property's text,
and the type of every identifier the properties may use (the model's
variables, constants and formulas, read by stormpy from a PRISM model next
to the property file).  Only these are kept, not the models: the oracle test
(tests/logic/test_prism_oracle.py) declares each identifier as a constant of
its type, so that Storm's parser reads a property as it would with the model.

    python scripts/collect_property_corpus.py QCOMP_CHECKOUT PRISM_BENCHMARKS_CHECKOUT
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

OUTPUT = Path(__file__).resolve().parents[1] / "tests" / "logic" / "data" / "properties.json"
SOURCES = {
    "ahartmanns/qcomp": (
        r"^benchmarks/(dtmc|mdp)/[^/]+/[^/]+\.(props|prctl)$",
        r"\.(prism|pm|nm)$",
    ),
    "prismmodelchecker/prism-benchmarks": (
        r"^models/(dtmcs|mdps)/[^/]+/[^/]+\.(pctl|props)$",
        r"\.(pm|nm|prism)$",
    ),
}
FORMULA = re.compile(r"^\s*formula\s+([A-Za-z_][A-Za-z0-9_]*)\s*=", re.MULTILINE)


def git(checkout: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(checkout), *args], check=True, capture_output=True, text=True
    ).stdout


def split_properties(text: str) -> list[str]:
    """A property file's properties: comments dropped, split at ';' and at line ends."""
    lines = [re.sub(r"//.*", "", line).strip() for line in text.splitlines()]
    found: list[str] = []
    for chunk in ";".join(lines).split(";"):
        chunk = chunk.strip()
        if chunk and not chunk.startswith(("const ", "label ")):
            found.append(chunk)
    return found


def identifier_types(stormpy: Any, model_text: str) -> dict[str, str]:
    """Each identifier of a PRISM model with its type: int, bool or double."""
    with tempfile.NamedTemporaryFile("w", suffix=".prism", delete=False) as handle:
        handle.write(model_text)
    program = stormpy.parse_prism_program(handle.name)
    Path(handle.name).unlink()
    types: dict[str, str] = {}
    for constant in program.constants:
        kind = str(constant.type)
        types[constant.name] = "bool" if kind == "bool" else "int" if kind == "int" else "double"
    for variable in program.global_integer_variables:
        types[variable.name] = "int"
    for variable in program.global_boolean_variables:
        types[variable.name] = "bool"
    for module in program.modules:
        for variable in module.integer_variables:
            types[variable.name] = "int"
        for variable in module.boolean_variables:
            types[variable.name] = "bool"
    for name in FORMULA.findall(model_text):
        try:
            stormpy.parse_properties(f"P=? [F {name}]", program)
            types[name] = "bool"
        except RuntimeError:
            types[name] = "double"
    return dict(sorted(types.items()))


def collect(stormpy: Any, repo: str, checkout: Path) -> list[dict[str, Any]]:
    props_pattern, model_pattern = SOURCES[repo]
    commit = git(checkout, "rev-parse", "HEAD").strip()
    files = git(checkout, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
    groups = []
    for path in sorted(f for f in files if re.search(props_pattern, f)):
        folder = path.rsplit("/", 1)[0]
        models = sorted(
            f for f in files if f.startswith(folder + "/") and "/" not in f[len(folder) + 1 :]
        )
        models = [m for m in models if re.search(model_pattern, m)]
        stem = Path(path).name.rsplit(".", 1)[0]
        base = stem.split(".")[0]
        models.sort(
            key=lambda m: (
                not Path(m).name.startswith(stem + "."),
                not Path(m).name.startswith(base),
                m,
            )
        )
        if not models:
            continue
        model_text = git(checkout, "show", f"HEAD:{models[0]}")
        properties = split_properties(git(checkout, "show", f"HEAD:{path}"))
        words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", " ".join(properties)))
        types = identifier_types(stormpy, model_text)
        groups.append(
            {
                "repository": f"https://github.com/{repo}",
                "commit": commit,
                "path": path,
                "model": models[0],
                "identifiers": {name: kind for name, kind in types.items() if name in words},
                "properties": properties,
            }
        )
    return groups


def main() -> None:
    import stormpy

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("qcomp", type=Path)
    parser.add_argument("prism_benchmarks", type=Path)
    args = parser.parse_args()
    groups = collect(stormpy, "ahartmanns/qcomp", args.qcomp)
    groups += collect(stormpy, "prismmodelchecker/prism-benchmarks", args.prism_benchmarks)
    corpus = {
        "description": "DTMC and MDP properties of the QVBS and the PRISM benchmark suite, "
        "with the types of the identifiers they may use (scripts/collect_property_corpus.py)",
        "licences": {
            "https://github.com/ahartmanns/qcomp": "CC-BY 4.0 (QVBS, Hartmanns et al., TACAS 2019)",
            "https://github.com/prismmodelchecker/prism-benchmarks": "CC-BY 4.0 (Kwiatkowska, "
            "Norman, Parker: The PRISM Benchmark Suite, QEST 2012)",
        },
        "files": groups,
    }
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(json.dumps(corpus, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    count = sum(len(g["properties"]) for g in groups)
    print(f"{len(groups)} property files, {count} properties -> {OUTPUT}")


if __name__ == "__main__":
    main()
