"""`ndncc validate` on bad scenario files: exit code 2, one message naming the file, the line and
the key, never a traceback. Each case edits one line of a valid scenario."""

from __future__ import annotations

import pytest

from ndncc import cli

BASE = """\
[simulation]
duration = "10s"
seed = 1

[defaults.link]
bandwidth = "10Mbps"
delay = "5ms"

[nodes]
C = {}
R = {}
P = {}

[links.C-R]
queue = { type = "droptail", packets = 50 }

[links.R-P]
loss = { type = "bernoulli", p = "1%" }

[apps.prod]
type = "producer"
node = "P"
prefix = "/p"

[apps.cons]
type = "consumer"
node = "C"
prefix = "/p"
window = { type = "aimd" }
"""


def _edit(line: int, text: str) -> str:
    lines = BASE.splitlines()
    lines[line - 1] = text
    return "\n".join(lines) + "\n"


# (line to replace, new text, line expected in the message, key expected in the message)
CASES = [
    (2, 'duration = "10"', 2, "simulation.duration"),
    (2, 'duration = "10 parsecs"', 2, "simulation.duration"),
    (3, "seed = -4", 3, "simulation.seed"),
    (3, "sede = 4", 3, "simulation.sede"),
    (6, 'bandwidth = "10MBps"', 6, "bandwidth"),
    (6, 'bandwidth = "fast"', 6, "bandwidth"),
    (7, "delay = 5", 7, "delay"),
    (11, 'R = { clock_tick = "-1ms" }', 11, "nodes.R.clock_tick"),
    (11, "R = { cache = 10 }", 11, "nodes.R.cache"),
    (14, "[links.C-X]", 14, "links.C-X"),
    (15, 'queue = { type = "codle" }', 15, "links.C-R.queue.type"),
    (15, 'queue = { type = "droptail", packts = 50 }', 15, "links.C-R.queue.packts"),
    (15, 'queue = { type = "droptail", packets = 0 }', 15, "links.C-R.queue"),
    (18, 'loss = { type = "bernoulli", p = "120%" }', 18, "links.R-P.loss"),
    (18, 'lost = { type = "bernoulli", p = "1%" }', 18, "links.R-P.lost"),
    (21, 'type = "prodcer"', 21, "apps.prod.type"),
    (22, 'node = "Q"', 22, "apps.prod.node"),
    (23, 'prefix = "/p"\npayload = "0B"', 24, "apps.prod.payload"),
    (29, 'window = { type = "aimd", beta = 2.0 }', 29, "apps.cons.window"),
    (29, 'window = { type = "aimd", betta = 0.5 }', 29, "apps.cons.window.betta"),
    (28, 'prefix = "/nothing"', 28, "apps.cons.prefix"),
]


def test_the_base_scenario_is_valid(tmp_path, capsys):
    path = tmp_path / "ok.toml"
    path.write_text(BASE)
    assert cli.main(["validate", str(path)]) == 0


@pytest.mark.parametrize("line,text,at,key", CASES, ids=[f"{c[0]}:{c[1]}" for c in CASES])
def test_a_bad_scenario_exits_2_naming_file_line_and_key(tmp_path, capsys, line, text, at, key):
    path = tmp_path / "bad.toml"
    path.write_text(_edit(line, text))
    code = cli.main(["validate", str(path)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    assert f"{path}:{at}:" in err, err
    assert key in err, err
