"""The reproduction scoreboard: the seeds' claims with their verdicts, per experiment and for all.

An experiment's folder gets ``scoreboard.json`` (its claims, tests, verdicts and figures) and its
``report.md`` opens with the same as a table; a results folder's ``report.md`` opens with the
count of each verdict per experiment and the headline claims beside the seed's figures, and
``scoreboard.json`` there gathers every experiment's. The verdict rule is
:data:`ndncc.seedclaims.RULE`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional, Sequence

from . import output
from .report import table
from .seedclaims import RULE, VERDICTS, Judged, counts, judge, load

SCOREBOARD = "scoreboard.json"
#: An experiment's entry in the index's scoreboard.json when no claims were judged for it.
_NOT_JUDGED = {"counts": None, "claims": []}
REGISTRY_PATH = "ndncc/experiments/seed_claims/{}.toml"


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return " ".join(text.replace("|", "\\|").split())


def experiment_json(name: str, seed_file: str, judged: Sequence[Judged]) -> dict:
    return {
        "experiment": name,
        "seed_file": seed_file,
        "rule": RULE,
        "counts": counts(judged),
        "claims": [j.as_json() for j in judged],
    }


def write_experiment(folder: Path, name: str, rows: Sequence[dict]) -> Optional[dict]:
    """Judge ``name``'s registered claims on ``rows`` and write ``folder/scoreboard.json``;
    return what was written (``None`` for an experiment without a registry)."""
    registry = load(name)
    if registry is None:
        return None
    board = experiment_json(name, registry.seed_file, judge(registry, rows))
    output.write_text(folder / SCOREBOARD, json.dumps(board, indent=1) + "\n")
    return board


def _mark(holds: Optional[bool]) -> str:
    return {True: "✓", False: "✗", None: "?"}[holds]


def count_line(board: dict) -> str:
    return ", ".join(f"{board['counts'][v]} {v}" for v in VERDICTS)


def experiment_section(board: dict) -> str:
    """The claims table at the top of an experiment's page, with each claim's tests below it."""
    claims = board["claims"]
    head = [
        "## The seed's claims",
        "",
        f"{len(claims)} claims of seed `{board['seed_file']}` ({count_line(board)}), from "
        f"`{REGISTRY_PATH.format(board['experiment'])}`. {RULE}",
        "",
    ]
    rows = [
        [c["id"], _cell(c["where"]), f"“{_cell(c['quote'])}”", f"**{c['verdict']}**", c["ours"], c["seed"]]
        for c in claims
    ]
    parts = head + [table(["claim", "where", "the seed says", "verdict", "ours", "seed"], rows), ""]
    parts += ["Tests (✓ holds, ✗ fails, ? rows missing), and why a claim falls short:", ""]
    for c in claims:
        tests = "; ".join(f"{_mark(t['holds'])} {t['text']}" for t in c["tests"])
        tests = tests or ("declared not testable" if c["untestable"] else "no test")
        parts.append(f"- **{c['id']}**: {tests}.")
        if c["reading"]:
            parts.append(f"  Read as: {c['reading']}")
        if c["reason"]:
            parts.append(f"  {c['verdict'].capitalize()}: {c['reason']}")
    return "\n".join(parts + [""])


def read_experiment(folder: Path) -> Optional[dict]:
    path = folder / SCOREBOARD
    return json.loads(path.read_text()) if path.is_file() else None


def index_section(entries: Sequence[tuple[str, str, str, Optional[dict]]]) -> str:
    """The scoreboard that opens a results folder's page: ``(name, title, status, board)`` per
    experiment, ``board`` as :func:`read_experiment` gives it (``None``: no claims judged)."""
    counts_rows, headline_rows = [], []
    for name, title, status, board in entries:
        link = f"[{name}]({name}/{output.REPORT})" if board is not None or status == "ran" else name
        if board is None:
            cells = ["–"] * len(VERDICTS)
        else:
            cells = [str(board["counts"][v]) for v in VERDICTS]
        counts_rows.append([link, _cell(title), status, *cells])
        for c in (board or {}).get("claims", []):
            if c["headline"]:
                quote = c["quote"] if len(c["quote"]) <= 90 else c["quote"][:87] + "…"
                headline_rows.append(
                    [name, f"{_cell(c['where'])}: “{_cell(quote)}”", c["ours"], c["seed"], c["verdict"]]
                )
    parts = [
        "# Reproductions",
        "",
        "How far each experiment reproduces its seed. Every statement of a seed's evaluation is a "
        "claim in `ndncc/experiments/seed_claims/<experiment>.toml`, with the rows that test it and "
        f"the tolerance that counts as reproducing it; each is judged on this run's rows. {RULE} "
        "A run's status says only whether it ran.",
        "",
        table(["experiment", "title", "run", *VERDICTS], counts_rows),
        "",
    ]
    if headline_rows:
        parts += [
            "## Headline numbers",
            "",
            table(["experiment", "the seed says", "ours", "seed", "verdict"], headline_rows),
            "",
        ]
    parts += [
        f"Every claim, its tests and the cause of each shortfall: [`{SCOREBOARD}`]({SCOREBOARD}) and "
        "each experiment's page.",
        "",
    ]
    return "\n".join(parts)


def index_json(entries: Sequence[tuple[str, str, str, Optional[dict]]]) -> dict:
    return {
        "rule": RULE,
        "verdicts": list(VERDICTS),
        "experiments": [
            {"experiment": name, "title": title, "status": status, **(board or _NOT_JUDGED)}
            for name, title, status, board in entries
        ],
    }
