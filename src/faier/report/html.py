"""One self-contained HTML page per result: verdict, claim, ε*, witness, figures, command.

No network: the style is inline and every figure is an inline SVG drawn by
matplotlib (the ``plots`` extra; without it the page says the figures are
missing).  :func:`page` is the whole document ``--report`` writes,
:func:`fragment` the part Jupyter shows (``_repr_html_`` on every result);
:func:`write` replaces the file atomically, so an error leaves nothing
half-written.  ``Extras`` carries what the CLI computes beside the result
(the witness pair's output distributions, the privacy profile δ(ε)).
"""

from __future__ import annotations

import html
import io
import math
import os
import re
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from faier.errors import InputError
from faier.results import Loss, Result, Witness, approximately
from faier.version import VERSION

MAX_BARS = 40

STYLE = """
.faier-report{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;color:#1b1f24;
max-width:62rem;line-height:1.45}
.faier-report h1{font-size:1.4rem;margin:.2rem 0 .8rem}
.faier-report h2{font-size:1.1rem;margin:1.4rem 0 .5rem;border-bottom:1px solid #d0d7de}
.faier-report table{border-collapse:collapse;margin:.3rem 0}
.faier-report td,.faier-report th{border:1px solid #d0d7de;padding:.25rem .6rem;
text-align:left;vertical-align:top}
.faier-report th{background:#f6f8fa}
.faier-report table.facts th{width:11rem}
.faier-report .verdict{display:inline-block;padding:.15rem .7rem;border-radius:1rem;
font-weight:600;color:#fff}
.faier-report .holds{background:#1a7f37}.faier-report .violated{background:#cf222e}
.faier-report .unknown{background:#9a6700}.faier-report .figure-only{background:#0969da}
.faier-report code,.faier-report pre{font-family:ui-monospace,monospace;font-size:.9em}
.faier-report pre{background:#f6f8fa;padding:.6rem;overflow-x:auto;white-space:pre-wrap}
.faier-report pre.rich{white-space:pre;line-height:1.25;background:#fff;padding:0}
.faier-report figure{margin:.5rem 0}.faier-report figcaption{color:#57606a;font-size:.9em}
.faier-report svg{max-width:100%;height:auto}
"""


@dataclass(frozen=True)
class Extras:
    """What the CLI computes beside a result for its page."""

    outputs: tuple[tuple[str, Fraction, Fraction], ...] = ()
    """The witness pair's output distributions: (output, P, Q) for every output."""
    profile: tuple[tuple[float, float], ...] = ()
    """The privacy profile (ε, δ(ε)): the largest over the comparisons named below."""
    profile_note: str = ""
    notes: tuple[str, ...] = ()


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _number(value: Fraction | float) -> str:
    if isinstance(value, float):  # an infinite expected reward
        return "∞"
    text = str(value)
    if len(text) > 40:
        return f"≈ {approximately(value, 8)}"
    return text if value.denominator == 1 else f"{text} ≈ {approximately(value)}"


def _value(value: Any) -> str:
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    return str(value)


def _facts(rows: Sequence[tuple[str, str]]) -> str:
    body = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in rows if v)
    return f'<table class="facts">{body}</table>'


def _verdict(verdict: Any, statistical: bool = False) -> str:
    if verdict is None:
        text = "evidence, not a verdict" if statistical else "computed"
        return f'<span class="verdict figure-only">{text}</span>'
    return f'<span class="verdict {_e(verdict.value)}">{_e(verdict.value)}</span>'


def _witness_table(witness: Witness, title: str = "Counterexample", event: bool = False) -> str:
    left = _value(witness.left_value) if witness.left_value is not None else witness.left
    right = _value(witness.right_value) if witness.right_value is not None else witness.right
    label = "inputs" if witness.kind == "inputs" else "initial information"
    joiner = "; " if event else " · "
    output = joiner.join(witness.output) if witness.output else "(none)"
    what = "event S" if event else "output"
    ratio = witness.loss
    rows = [
        f"<tr><th></th><th>{_e(label)} π</th><th>{_e(label)} τ</th></tr>",
        f"<tr><th>{_e(label)}</th><td><code>{_e(left)}</code></td>"
        f"<td><code>{_e(right)}</code></td></tr>",
        f'<tr><th>{what}</th><td colspan="2"><code>{_e(output)}</code></td></tr>',
        f"<tr><th>Pr[{what} | ·]</th><td>{_e(_number(witness.p))}</td>"
        f"<td>{_e(_number(witness.q))}</td></tr>",
        f'<tr><th>ratio</th><td colspan="2">{_e(_ratio(ratio))}</td></tr>',
    ]
    return f'<h2>{_e(title)}</h2><table class="witness">{"".join(rows)}</table>'


def _ratio(loss: Loss) -> str:
    if loss.ratio is None:
        return "∞ (the output is impossible on the τ side)"
    return f"{_number(loss.ratio)} = e^{loss.value:.6g}"


# ---------------------------------------------------------------- figures


def _svg(draw: Callable[[Any], None], size: tuple[float, float] = (6.4, 3.6)) -> str | None:
    """A matplotlib figure as inline SVG (fonts as paths: no network, no font files)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": "faier"}):
        figure, axes = plt.subplots(figsize=size)
        try:
            draw(axes)
            figure.tight_layout()
            buffer = io.StringIO()
            figure.savefig(buffer, format="svg", metadata={"Date": None})
        finally:
            plt.close(figure)
    text = buffer.getvalue()
    text = re.sub(r"<\?xml[^>]*\?>\s*", "", text)
    return re.sub(r"<!DOCTYPE[^>]*>\s*", "", text)


def _figure(svg: str | None, caption: str) -> str:
    if svg is None:
        return "<p><em>Figures need matplotlib: pip install 'faier[plots]'.</em></p>"
    return f"<figure>{svg}<figcaption>{_e(caption)}</figcaption></figure>"


def _horizon_figure(result: Result) -> str:
    rows = [h for h in result.horizons if not h.loss.infinite]

    def draw(axes: Any) -> None:
        ks = [h.k for h in rows]
        axes.plot(ks, [h.loss.value for h in rows], marker="o", linewidth=2, label="ε*(k)")
        lower = [h for h in rows if not h.exact]
        if lower:
            axes.plot([h.k for h in lower], [h.loss.value for h in lower], "v", label="lower bound")
        if result.epsilon is not None and _claim_value(result.epsilon) is not None:
            axes.axhline(
                _claim_value(result.epsilon), color="C3", linestyle="dashed", label="claimed ε"
            )
        axes.set_xlabel("horizon k (queries / observations)")
        axes.set_ylabel("ε*(k)")
        axes.legend(frameon=False)

    table = "".join(
        f"<tr><td>{h.k}</td><td>{_e(h.loss.show())}</td><td>{'exact' if h.exact else 'lower bound'}"
        "</td></tr>"
        for h in result.horizons
    )
    return (
        "<h2>ε* over the horizon</h2>"
        + _figure(_svg(draw), "ε*(k): the largest loss over runs of length k")
        + f"<table><tr><th>k</th><th>ε*(k)</th><th></th></tr>{table}</table>"
    )


def _claim_value(text: str) -> float | None:
    try:
        from faier.privacy.budget import Epsilon

        return Epsilon.parse(text).value
    except Exception:  # a claim that does not parse is shown as text only
        return None


def _outputs_figure(extras: Extras, witness: Witness | None) -> str:
    outputs = list(extras.outputs)
    if not outputs:
        return ""
    if len(outputs) > MAX_BARS:
        outputs.sort(key=lambda o: -max(o[1], o[2]))
        outputs = outputs[:MAX_BARS]
    marked = " · ".join(witness.output) if witness is not None else None
    left = witness.left if witness is not None else "π"
    right = witness.right if witness is not None else "τ"

    def draw(axes: Any) -> None:
        xs = range(len(outputs))
        axes.bar([x - 0.2 for x in xs], [float(p) for _, p, _ in outputs], 0.4, label=f"π: {left}")
        axes.bar([x + 0.2 for x in xs], [float(q) for _, _, q in outputs], 0.4, label=f"τ: {right}")
        axes.set_xticks(list(xs))
        axes.set_xticklabels([name for name, _, _ in outputs], rotation=45, ha="right")
        for x, (name, _, _) in enumerate(outputs):
            if name == marked:
                axes.axvspan(x - 0.5, x + 0.5, color="C3", alpha=0.12, label="counterexample")
        axes.set_ylabel("probability")
        axes.legend(frameon=False)

    return "<h2>Output distributions of the pair</h2>" + _figure(
        _svg(draw, (6.4, 3.8)), "exact output distributions on both inputs of the witness"
    )


def _profile_figure(extras: Extras, claim: tuple[float, float] | None) -> str:
    if not extras.profile:
        return ""

    def draw(axes: Any) -> None:
        axes.plot([e for e, _ in extras.profile], [d for _, d in extras.profile], linewidth=2)
        if claim is not None:
            axes.plot([claim[0]], [claim[1]], "o", color="C3", label="claimed (ε, δ)")
            axes.legend(frameon=False)
        axes.set_xlabel("ε")
        axes.set_ylabel("δ(ε)")

    return "<h2>Privacy profile δ(ε)</h2>" + _figure(
        _svg(draw), extras.profile_note or "the hockey-stick divergence δ(ε)"
    )


# ---------------------------------------------------------------- bodies


def _result_body(result: Result, extras: Extras) -> str:
    claim = ""
    if result.epsilon is not None:
        value = _claim_value(result.epsilon)
        shown = "" if value is None or str(result.epsilon) == f"{value:g}" else f" ≈ {value:.4f}"
        claim = f"ε = {result.epsilon}{shown}" + (f", δ = {result.delta}" if result.delta else "")
    elif result.delta is not None:
        claim = f"least ε with δ(ε) ≤ {result.delta}"
    star = result.epsilon_star.show() if result.epsilon_star is not None else ""
    interval = ""
    enclosure = getattr(result, "enclosure", None)  # certified results (continuous noise)
    if enclosure is not None:
        star = star or enclosure.show()
        interval = f"[{enclosure.lower:.12g}, {enclosure.upper:.12g}]"
    elif result.epsilon_star is None and result.lower_bound is not None:
        upper = result.parametric.upper if result.parametric is not None else None
        interval = f"[{result.lower_bound.show()}, {upper.show() if upper else '∞ (unknown)'}]"
    rows = [
        ("privacy", result.privacy),
        ("claim", claim),
        ("ε*", star),
        ("ε* lies in", interval),
        ("δ(ε) at the claim", "" if result.delta_star is None else _number(result.delta_star)),
        ("reason", result.reason or ""),
    ]
    if result.parametric is not None:
        rows.extend(result.parametric.lines())
    parts = [_facts(rows)]
    if result.witness is not None:
        event = result.delta is not None
        title = "Counterexample: the event where P − e^ε·Q is largest" if event else "Witness"
        if result.verdict is not None and result.verdict.value == "violated" and not event:
            title = "Counterexample"
        parts.append(_witness_table(result.witness, title, event))
    certified = getattr(result, "certified_witness", None)
    if certified is not None:
        lines = "".join(f"<li>{_e(line)}</li>" for line in certified.lines())
        parts.append(f"<h2>Counterexample (certified enclosures)</h2><ul>{lines}</ul>")
    if result.certificate is not None:
        lines = "".join(f"<li>{_e(line)}</li>" for line in result.certificate.lines())
        parts.append(f"<h2>No finite ε: unbounded loss</h2><ul>{lines}</ul>")
    proof = getattr(result, "proof", None)
    if proof is not None:
        lines = "".join(f"<li>{_e(line)}</li>" for line in proof.lines)
        parts.append(f"<h2>Proof for {_e(proof.scope)}</h2><ul>{lines}</ul>")
    parts.append(_outputs_figure(extras, result.witness))
    if result.horizons:
        parts.append(_horizon_figure(result))
    claim_point = None
    if result.delta is not None and result.epsilon is not None:
        value = _claim_value(result.epsilon)
        claim_point = None if value is None else (value, float(result.delta))
    parts.append(_profile_figure(extras, claim_point))
    return "".join(parts)


def _stat_body(report: Any) -> str:
    from faier.engines.statistical.reports import StatReport

    assert isinstance(report, StatReport)
    settings = report.settings
    rows = [
        ("privacy", report.privacy),
        ("claim", report.claim or ("" if report.claimed is None else f"ε₀ = {report.claimed}")),
        ("samples", f"{settings.samples} per test, {settings.selection_samples} for selection"),
        ("α", f"{settings.alpha}"),
        ("seed", f"{settings.seed}"),
        ("sampling", report.sampling),
    ]
    if report.interval is not None:
        interval = report.interval
        rows.append(
            (
                "ε* lies in",
                f"[{interval.low:.4g}, {interval.high:.4g}] with {interval.confidence:.0%} "
                "confidence (statistical)",
            )
        )
    rows.extend(("note", note) for note in report.notes)
    parts = [_facts(rows)]
    points = report.points

    def draw(axes: Any) -> None:
        axes.axhline(settings.alpha, color="black", linestyle="dashed", linewidth=1, label="α")
        axes.plot([p.epsilon for p in points], [p.p_value for p in points], marker="o")
        if report.claimed is not None:
            axes.axvline(report.claimed, color="C3", linestyle="dashed", label="claimed ε₀")
        axes.set_ylim(-0.02, 1.02)
        axes.set_xlabel("test ε")
        axes.set_ylabel("p-value")
        axes.legend(frameon=False)

    if points:
        parts.append(
            "<h2>p-values</h2>"
            + _figure(
                _svg(draw),
                "p-value of the test 'ε-private' at each ε (small: evidence "
                "against it; large: proves nothing)",
            )
        )
        best = min(points, key=lambda p: (p.p_value, -p.epsilon))
        candidate = best.candidate
        rows_html = (
            "<tr><th></th><th>D1</th><th>D2</th></tr>"
            f"<tr><th>inputs</th><td><code>{_e(_value(candidate.left.json_value))}</code></td>"
            f"<td><code>{_e(_value(candidate.right.json_value))}</code></td></tr>"
            f'<tr><th>event</th><td colspan="2"><code>{_e(candidate.event.describe())}</code>'
            "</td></tr>"
            f"<tr><th>samples in the event</th><td>{best.counts[0]}</td>"
            f"<td>{best.counts[1]}</td></tr>"
            f'<tr><th>p-value</th><td colspan="2">{best.p_value:.4g} at ε = {best.epsilon:g}'
            "</td></tr>"
        )
        parts.append(f"<h2>Candidate counterexample (statistical)</h2><table>{rows_html}</table>")
    return "".join(parts)


def _certify_body(report: Any) -> str:
    parts = [_stat_body(report.test)]
    rows = "".join(
        f"<tr><td>{row.point.epsilon:g}</td><td>{row.point.p_value:.4g}</td>"
        f"<td>{_e(_computed(row.exact, 'p'))}</td><td>{_e(_computed(row.exact, 'q'))}</td>"
        f"<td>{_e(row.exact.show_loss() if row.exact is not None else row.reason or '')}</td>"
        f"<td>{row.verdict}</td></tr>"
        for row in report.rows
    )
    if rows:
        parts.append(
            "<h2>Candidates computed exactly (or certified)</h2>"
            "<table><tr><th>ε</th><th>p-value</th>"
            f"<th>P(E | D1)</th><th>P(E | D2)</th><th>loss</th><th></th></tr>{rows}</table>"
        )
    parts.append(_result_body(report.result, Extras()))
    return "".join(parts)


def _computed(found: Any, side: str) -> str:
    """A certified row's probability: an exact rational, or its enclosure."""
    if found is None:
        return ""
    value = getattr(found, side)
    return _number(value) if isinstance(value, Fraction) else str(value.show())


def _bound_body(report: Any) -> str:
    rows = [
        ("tester rejects up to", "" if report.rejected is None else f"ε = {report.rejected:g}"),
        ("next grid point", "" if report.next_grid is None else f"ε = {report.next_grid:g}"),
    ]
    rows.extend(("note", note) for note in report.notes)
    parts = [_facts(rows), _stat_body(report.test)]
    if report.exact is not None:
        heading = "Certified ε*" if report.exact.enclosure is not None else "Exact ε*"
        parts.append(f"<h2>{heading}</h2>" + _result_body(report.exact, Extras()))
    return "".join(parts)


def _check_body(result: Any) -> str:
    rows = [
        ("model", result.model),
        ("formula", result.formula),
        ("neighbours", result.neighbours),
        ("reason", result.reason or ""),
    ]
    rows.extend((f"value in {state}", _number(value)) for state, value in result.values)
    parts = [_facts(rows)]
    if result.states:
        body = "".join(
            f"<tr><td>{_e(state)}</td><td>{_verdict(verdict)}</td></tr>"
            for state, verdict in result.states
        )
        parts.append(f"<h2>States</h2><table><tr><th>state</th><th></th></tr>{body}</table>")
    witness = result.witness
    if witness is not None:
        path = getattr(witness, "word", None)
        body = (
            f"<tr><th>states</th><td><code>{_e(witness.left)}</code></td>"
            f"<td><code>{_e(witness.right)}</code></td></tr>"
            f"<tr><th>probability</th><td>{_e(_number(witness.p))}</td>"
            f"<td>{_e(_number(witness.q))}</td></tr>"
        )
        if path:
            shown = " · ".join("—" if a is None else str(a) for a in path)
            body += f'<tr><th>actions</th><td colspan="2"><code>{_e(shown)}</code></td></tr>'
        parts.append(f"<h2>Witness</h2><p>{_e(witness.show())}</p><table>{body}</table>")
    if result.operators:
        from faier.report.check import _operator_table

        tables = "".join(_rich(_operator_table(report)) for report in result.operators)
        parts.append(f"<h2>Operators</h2>{tables}")
    return "".join(parts)


def _rich(renderable: Any, width: int = 160) -> str:
    """A rich table as HTML (inline styles, in a <pre>): the terminal's own rendering."""
    from rich.console import Console

    console = Console(record=True, width=width, file=io.StringIO(), color_system="truecolor")
    console.print(renderable)
    return console.export_html(inline_styles=True, code_format='<pre class="rich">{code}</pre>')


def _pld_body(report: Any) -> str:
    from faier.accounting.pld import ln_value

    pld = report.distribution
    rows = [
        ("privacy", report.privacy),
        ("pair", f"{report.single.left} vs {report.single.right} ({report.pair_source})"),
        ("compositions", str(pld.compositions)),
        ("ε of the pair", report.epsilon_star.show()),
    ]
    for row in report.deltas:
        rows.append((f"δ(ε = {row.forward.epsilon})", row.worst.show()))
        if row.accountant is not None:
            rows.append(("dp_accounting δ", f"{row.accountant:.10g} (pessimistic)"))
    parts = [_facts(rows)]
    atoms = [a for a in pld.atoms if a.p > 0]
    finite = [a for a in atoms if a.ratio is not None]

    def draw(axes: Any) -> None:
        xs = [ln_value(a.ratio) for a in finite]
        axes.vlines(xs, 0, [float(a.p) for a in finite], linewidth=2)
        axes.plot(xs, [float(a.p) for a in finite], "o")
        axes.set_xlabel("privacy loss ln(P/Q)")
        axes.set_ylabel("probability under P")

    if finite:
        parts.append(
            "<h2>Privacy loss distribution</h2>"
            + _figure(_svg(draw), f"losses of {pld.left} vs {pld.right}, exact masses")
        )
    top = max((a.ratio for a in finite if a.ratio is not None), default=Fraction(1))
    reverse = pld.reversed()
    grid = [ln_value(max(top, Fraction(1))) * i / 60 for i in range(61)]

    def curve(axes: Any) -> None:
        axes.plot(grid, [_delta_at(pld, e) for e in grid], label=f"{pld.left} → {pld.right}")
        axes.plot(grid, [_delta_at(reverse, e) for e in grid], "--", label="other order")
        axes.set_xlabel("ε")
        axes.set_ylabel("δ(ε)")
        axes.legend(frameon=False)

    parts.append("<h2>δ(ε) of the pair</h2>" + _figure(_svg(curve), "hockey-stick divergence"))
    table = "".join(
        f"<tr><td>{_e('∞' if a.ratio is None else f'ln({a.ratio})')}</td>"
        f"<td>{_e(_number(a.p))}</td><td>{_e(_number(a.q))}</td>"
        f"<td>{_e(_outputs(a))}</td></tr>"
        for a in pld.atoms[-MAX_BARS:]
    )
    parts.append(
        "<h2>Loss values</h2><table><tr><th>loss</th><th>P</th><th>Q</th><th>outputs</th></tr>"
        f"{table}</table>"
    )
    return "".join(parts)


def _outputs(atom: Any) -> str:
    text = ", ".join(atom.outputs)
    if atom.count > len(atom.outputs):
        text += f" … ({atom.count} outputs)" if text else f"{atom.count} outputs"
    return text


def _json_figure(line: dict[str, Any]) -> str:
    """A batch job's answer: ε* (or its lower bound), the lowest p-value, or why it failed."""
    if line.get("status", "done") != "done":
        return str(line.get("error") or line.get("reason") or line.get("status") or "")
    star = line.get("epsilon_star") or (line.get("bounds") or {}).get("lower")
    if isinstance(star, dict):
        ratio, value = star.get("ratio"), star.get("value")
        if ratio in (None, "inf"):
            return "ε* = ∞" if value == "inf" else f"ε* ≈ {value}"
        shown = f"{value:.6g}" if isinstance(value, float) else str(value)
        prefix = "ε* ≥" if line.get("epsilon_star") is None else "ε* ="
        return f"{prefix} ln({ratio}) ≈ {shown}"
    points = line.get("points")
    if isinstance(points, list) and points:
        lowest = min(points, key=lambda p: p.get("p_value", 1.0))
        return f"min p = {lowest.get('p_value', 1.0):.3g} at ε = {lowest.get('epsilon')}"
    return str(line.get("reason") or "")


def _json_witness(line: dict[str, Any]) -> str:
    witness = line.get("witness")
    if not isinstance(witness, dict) or "p" not in witness:
        return ""
    sides = witness.get("inputs") or witness.get("initial") or [witness.get("left"), "?"]
    output = witness.get("output")
    shown = "; ".join(map(str, output)) if isinstance(output, list) else str(output)
    p, q = witness.get("p"), witness.get("q")
    return (
        f"<h3>{_e(line.get('job'))}</h3><table>"
        "<tr><th></th><th>π</th><th>τ</th></tr>"
        f"<tr><th>inputs</th><td><code>{_e(_value(sides[0]))}</code></td>"
        f"<td><code>{_e(_value(sides[1]))}</code></td></tr>"
        f'<tr><th>output</th><td colspan="2"><code>{_e(shown)}</code></td></tr>'
        f"<tr><th>Pr[output | ·]</th><td>{_e(p)}</td><td>{_e(q)}</td></tr></table>"
    )


def _batch_body(report: Any) -> str:
    counts = ", ".join(f"{n} {what}" for what, n in report.counts().items() if n)
    rows = [
        ("suite", str(report.suite)),
        ("results", str(report.output)),
        ("jobs", f"{report.total}: {counts or 'none finished'}"),
        ("this run", f"{report.ran} run, {report.skipped} already on file"),
        ("workers", f"{report.workers}" + (f" on {report.cluster}" if report.cluster else "")),
    ]
    if report.missing:
        rows.append(("not run", f"{report.missing} (interrupted)"))
    table = "".join(
        f"<tr><td>{_e(line.get('job'))}</td><td>{_e(line.get('command'))}</td>"
        f"<td>{_e(line.get('target') or '')}</td><td>{_e(line.get('status'))}</td>"
        f"<td>{_verdict_text(line)}</td><td>{_e(_json_figure(line))}</td>"
        f"<td>{_e(line.get('exit_code'))}</td><td>{float(line.get('seconds') or 0):.2f} s</td></tr>"
        for line in report.lines
    )
    parts = [
        _facts(rows),
        "<h2>Jobs</h2><table><tr><th>job</th><th>command</th><th>target</th><th>status</th>"
        f"<th>verdict</th><th>result</th><th>exit</th><th>time</th></tr>{table}</table>",
    ]
    finite = [
        (str(line.get("job")), (line.get("epsilon_star") or {}).get("value"), line)
        for line in report.lines
    ]
    bars = [(job, value, line) for job, value, line in finite if isinstance(value, float)]

    def draw(axes: Any) -> None:
        ys = range(len(bars))
        colours = [
            {"violated": "C3", "holds": "C2"}.get(str(line.get("verdict")), "C0")
            for _, _, line in bars
        ]
        axes.barh(list(ys), [value for _, value, _ in bars], color=colours)
        claims = [
            (y, _claim_value(str(line["epsilon"])))
            for y, (_, _, line) in enumerate(bars)
            if line.get("epsilon")
        ]
        marked = [(y, c) for y, c in claims if c is not None]
        if marked:
            axes.plot(
                [c for _, c in marked],
                [y for y, _ in marked],
                "k|",
                markersize=18,
                label="claimed ε",
            )
            axes.legend(frameon=False)
        axes.set_yticks(list(ys))
        axes.set_yticklabels([job for job, _, _ in bars])
        axes.invert_yaxis()
        axes.set_xlabel("ε*")

    if bars:
        height = min(1.2 + 0.35 * len(bars), 14.0)
        parts.append(
            "<h2>ε* per job</h2>"
            + _figure(_svg(draw, (7.2, height)), "exact ε* of each job; the claim as a tick")
        )
    witnesses = "".join(
        _json_witness(line) for line in report.lines if line.get("verdict") == "violated"
    )
    if witnesses:
        parts.append(f"<h2>Counterexamples</h2>{witnesses}")
    failed = [line for line in report.lines if line.get("status", "done") != "done"]
    if failed:
        items = "".join(
            f"<li><code>{_e(line.get('job'))}</code>: {_e(line.get('status'))}: "
            f"{_e(line.get('error') or line.get('reason') or '')}</li>"
            for line in failed
        )
        parts.append(f"<h2>Jobs that did not finish</h2><ul>{items}</ul>")
    return "".join(parts)


def _verdict_text(line: dict[str, Any]) -> str:
    verdict = line.get("verdict")
    if verdict not in ("holds", "violated", "unknown"):
        return ""
    return f'<span class="verdict {_e(verdict)}">{_e(verdict)}</span>'


def _delta_at(pld: Any, eps: float) -> float:
    t = math.exp(eps)
    return sum(float(a.p) - t * float(a.q) for a in pld.atoms if a.ratio is None or a.ratio > t)


def _body(report: Any, extras: Extras) -> tuple[str, str]:
    """(title, body) for any result faier's commands return."""
    kind = type(report).__name__
    target = str(
        getattr(report, "target", None)
        or getattr(report, "model", None)
        or getattr(report, "suite", "")
    )
    if isinstance(report, Result):
        return target, _result_body(report, extras)
    bodies: dict[str, Callable[[Any], str]] = {
        "StatReport": _stat_body,
        "CertifyReport": _certify_body,
        "BoundReport": _bound_body,
        "CheckResult": _check_body,
        "PLDReport": _pld_body,
        "BatchReport": _batch_body,
        "AuditReport": _audit_body,
    }
    if kind == "CertifyReport" or kind == "BoundReport":
        target = str(report.test.target)
    if kind not in bodies:
        raise InputError(f"no HTML report for {kind}", where="--report")
    return target, bodies[kind](report)


BATCH_BADGES = {
    0: ("holds", "every job holds or computed"),
    1: ("violated", "a job is violated"),
    2: ("violated", "bad input in a job"),
    3: ("unknown", "a job is unknown"),
    4: ("violated", "a job crashed"),
    130: ("unknown", "interrupted"),
}


def _audit_body(report: Any) -> str:
    """The audit's outcome, the witness (or largest) pair and its terms."""
    rows = [
        ("outcome", report.outcome),
        ("claim", f"ε = {report.claim.epsilon}, δ = {report.claim.delta}"),
        ("neighbours", f"{report.relation}; records in {report.bounds}"),
    ]
    shown = report.witness or report.largest
    if shown is not None:
        rows += [("pair", shown.change), ("D", shown.left.show()), ("D′", shown.right.show())]
        if shown.loss is not None:
            rows.append(("ε* of the pair", shown.loss.show()))
            for t in shown.loss.terms:
                if t.line:
                    why = f" ({t.infinite})" if t.infinite else ""
                    rows.append((f"line {t.line}", f"{t.family}: shift/scale {t.ratio:.6g}{why}"))
    rows += [("unrecognised", u) for u in report.unrecognised]
    rows += [("undecided", f"{p.change}: {p.undecided}") for p in report.undecided[:3]]
    return _facts(rows)


def _badge(report: Any) -> str:
    kind = type(report).__name__
    if kind == "AuditReport" and report.verdict is None:
        return f'<span class="verdict holds">{_e(report.outcome)}</span>'

    if kind == "BatchReport":
        css, text = BATCH_BADGES.get(int(report.exit_code), ("unknown", "see the jobs"))
        return f'<span class="verdict {css}">{_e(text)}</span>'
    return _verdict(report.verdict, kind == "StatReport")


def fragment(
    report: Any, *, command: str = "", extras: Extras | None = None, command_line: str = ""
) -> str:
    """The report as one ``<div>`` (with its style): Jupyter's ``_repr_html_``."""
    title, body = _body(report, extras or Extras())
    heading = f"faier {command} · {title}" if command else f"faier · {title}"
    seconds = getattr(report, "seconds", 0.0)
    footer = [
        ("method", getattr(report, "method", "")),
        ("time", f"{seconds:.3f} s"),
        ("faier", VERSION),
    ]
    notes = "".join(f"<p>{_e(n)}</p>" for n in (extras.notes if extras else ()))
    reproduce = (
        f"<h2>Reproduce</h2><pre><code>{_e(command_line)}</code></pre>" if command_line else ""
    )
    return (
        f'<div class="faier-report"><style>{STYLE}</style>'
        f"<h1>{_e(heading)} {_badge(report)}"
        f"</h1>{body}{notes}"
        f"<h2>Run</h2>{_facts(footer)}{reproduce}</div>"
    )


def page(report: Any, *, command: str, extras: Extras | None = None, command_line: str = "") -> str:
    """The whole self-contained document ``--report FILE.html`` writes."""
    title, _ = _body(report, Extras())
    inner = fragment(report, command=command, extras=extras, command_line=command_line)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>faier {_e(command)}: {_e(title)}</title></head>"
        f'<body style="margin:1.5rem">{inner}</body></html>\n'
    )


def check_path(path: Path) -> None:
    """Refuse a report path before any work: wrong suffix or a folder that is not there."""
    if path.suffix.lower() not in (".html", ".htm"):
        raise InputError(
            f"cannot write an HTML report to {path.name!r}",
            where="--report",
            fix="name the file with .html, e.g. --report report.html",
        )
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(
            f"the folder {folder} does not exist",
            where=f"--report {path}",
            fix="create the folder first, or give a path in an existing one",
        )
    if path.is_dir():
        raise InputError(f"{path} is a folder", where="--report", fix="give a file name")


def write(path: Path, text: str) -> None:
    """Write the page atomically: a temporary file in the same folder, then a rename."""
    check_path(path)
    folder = path.parent if str(path.parent) else Path(".")
    try:
        handle, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise InputError(
            f"cannot write in {folder}: {exc.strerror}",
            where=f"--report {path}",
            fix="give a path in a folder you can write to",
        ) from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(name, 0o644)
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
