"""``ndncc emulate`` with real NDN applications (python-ndn): files, consumers and producers
across simulated links, in real time.

Nothing here asserts on how busy the machine is: only on bounds that hold however late the
engine runs (a transfer is never faster than its bottleneck, a round trip never shorter than
its path) and on correctness (bytes, counts, a connection closed, a run that goes on). The
engine's lag is reported by ``ndncc emulate`` itself; see docs/emulation.md.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ndncc import cli

ROOT = Path(__file__).resolve().parents[2]
APPS = Path(__file__).with_name("ndn_apps.py")
NDNCC = [sys.executable, "-m", "ndncc"]

#: C - R1 ==10 Mbps, 20 ms== R2 - P; the access links are fast and short.
BOTTLENECK = """\
[simulation]
duration = "{duration}"

[nodes]
C = {{}}
R1 = {{}}
R2 = {{}}
P = {{}}

[links.C-R1]
bandwidth = "100Mbps"
delay = "1ms"

[links.R1-R2]
bandwidth = "10Mbps"
delay = "20ms"
queue = {{ type = "droptail", packets = 100 }}

[links.R2-P]
bandwidth = "100Mbps"
delay = "1ms"
{apps}
"""

#: Round trip of the path C to P and back, propagation alone [s].
PATH_RTT_S = 2 * (0.001 + 0.020 + 0.001)
BOTTLENECK_BPS = 10e6


def scenario(tmp_path: Path, duration: str, apps: str = "") -> Path:
    path = tmp_path / "bottleneck.toml"
    path.write_text(BOTTLENECK.format(duration=duration, apps=apps))
    return path


def client_env(tmp_path: Path, transport: str) -> dict:
    # A home of its own: python-ndn reads its client.conf and keychain from there.
    return {**os.environ, "HOME": str(tmp_path), "NDN_CLIENT_TRANSPORT": transport}


class Emulator:
    """``ndncc emulate`` in a process of its own, its stderr collected line by line."""

    def __init__(self, scenario: Path, faces: list[str], out: Path):
        args = [*NDNCC, "emulate", str(scenario), "-o", str(out)]
        for f in faces:
            args += ["--face", f]
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines: list[str] = []
        self.out = out
        ready = self.proc.stdout.readline()
        assert ready.startswith("ready "), ready + self.proc.stderr.read()
        self.faces = dict(f.split("=", 1) for f in ready.split()[1:])
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.proc.stderr:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, pattern: str, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in list(self.lines):
                if re.search(pattern, line):
                    return line
            time.sleep(0.02)
        raise AssertionError(f"no line matching {pattern!r} in {self.lines}")

    def stop(self) -> tuple[int, str]:
        """Ctrl-C, then the exit code and what it printed on stdout."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        out, _ = self.proc.communicate(timeout=60)
        self._reader.join(timeout=5)
        return self.proc.returncode, out

    def finish(self) -> tuple[int, str]:
        out, _ = self.proc.communicate(timeout=60)
        self._reader.join(timeout=5)
        return self.proc.returncode, out


def summary(folder: Path) -> dict:
    return {(r["flow"], r["metric"]): r["value"] for r in json.loads((folder / "summary.json").read_text())}


def consume(tmp_path: Path, transport: str, prefix: str, count: int) -> dict:
    done = subprocess.run(
        [sys.executable, str(APPS), "consume", prefix, str(count)],
        env=client_env(tmp_path, transport),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_putchunks_and_catchunks_move_2_mb_through_a_10_mbps_20_ms_bottleneck(tmp_path):
    data = os.urandom(2_000_000)
    (tmp_path / "file.bin").write_bytes(data)
    emu = Emulator(
        scenario(tmp_path, "60s"), ["P=tcp://127.0.0.1:0", "C=tcp://127.0.0.1:0"], tmp_path / "run"
    )
    put = subprocess.Popen(
        [sys.executable, "-m", "ndn.bin.tools", "putchunks", "/file", str(tmp_path / "file.bin")],
        env={**client_env(tmp_path, emu.faces["P"]), "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        # "Created 250 chunks under name prefix /file/v=…"
        version = put.stdout.readline().split()[-1]
        emu.wait_for(r"register /file on node P")
        t0 = time.perf_counter()
        got = subprocess.run(
            [sys.executable, "-m", "ndn.bin.tools", "catchunks", "/file", "-o", str(tmp_path / "got.bin")],
            env=client_env(tmp_path, emu.faces["C"]),
            capture_output=True,
            text=True,
            timeout=60,
        )
        elapsed = time.perf_counter() - t0
        assert "Content size: 2000000" in got.stdout, got.stdout + got.stderr
        # The same path, one Interest at a time, timed by a real consumer.
        ping = consume(tmp_path, emu.faces["C"], version, 5)
    finally:
        put.kill()
        put.wait()
    code, out = emu.stop()
    assert code == 0, "\n".join(emu.lines)
    assert (tmp_path / "got.bin").read_bytes() == data
    assert len(data) * 8 / elapsed <= BOTTLENECK_BPS, "faster than the bottleneck"
    assert ping["rtts"] and min(ping["rtts"]) >= PATH_RTT_S, ping
    assert "p99" in out and (tmp_path / "run" / "summary.json").is_file()
    rows = summary(tmp_path / "run")
    assert rows[("R1->R2", "data_sent")] == 0 and rows[("R2->R1", "data_sent")] >= 250
    assert ("run", "lag_p99_ms") in rows
    # What only an emulation reports is documented, with its kind and unit.
    page = (ROOT / "docs" / "metrics.md").read_text()
    for row in json.loads((tmp_path / "run" / "summary.json").read_text()):
        kind = "run" if row["flow"] == "run" else "real_app"
        if row["flow"].startswith("ext") or row["metric"].startswith("lag_"):
            assert f"| `{row['metric']}` | `{kind}` | {row['unit']} |" in page, row


def test_a_real_consumer_fetches_from_a_simulated_producer_over_a_unix_socket(tmp_path):
    apps = '\n[apps.sim]\ntype = "producer"\nnode = "P"\nprefix = "/sim"\npayload = "1000B"\n'
    sock = tmp_path / "c.sock"
    emu = Emulator(scenario(tmp_path, "3s", apps), [f"C=unix://{sock}"], tmp_path / "run")
    found = consume(tmp_path, emu.faces["C"], "/sim", 10)
    code, _ = emu.finish()
    assert code == 0, "\n".join(emu.lines)
    assert found["errors"] == [] and found["sizes"] == [1000] * 10
    assert min(found["rtts"]) >= PATH_RTT_S
    assert summary(tmp_path / "run")[("sim", "data_sent")] == 10
    assert not sock.exists(), "the socket file is removed at the end"


def test_a_simulated_consumer_fetches_from_a_real_producer_over_udp(tmp_path):
    # The consumer starts before the producer can have registered: its Interests wait on a route
    # to nowhere and are sent again every 300 ms at most until the registration routes them.
    apps = (
        '\n[apps.sim]\ntype = "consumer"\nnode = "C"\nprefix = "/real"\n'
        'window = { type = "fixed", window = 4 }\nrtt = { max_rto = "300ms" }\n'
    )
    emu = Emulator(scenario(tmp_path, "60s", apps), ["P=udp://127.0.0.1:0"], tmp_path / "run")
    prod = subprocess.Popen(
        [sys.executable, str(APPS), "produce", "/real", "1000"],
        env=client_env(tmp_path, emu.faces["P"]),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        emu.wait_for(r"register /real on node P", timeout=30)
        time.sleep(3)
        code, _ = emu.stop()
    finally:
        prod.kill()
        prod.wait()
    assert code == 0, "\n".join(emu.lines)
    rows = summary(tmp_path / "run")
    assert rows[("sim", "data_received")] > 10
    # Data the producer sent that had not reached the consumer when the run stopped.
    assert rows[("sim", "data_received")] <= rows[("ext0.0", "data_in")]
    assert rows[("run", "conservation_ok")] == 1


def test_a_malformed_packet_and_an_abrupt_disconnect_are_survived(tmp_path):
    apps = '\n[apps.sim]\ntype = "producer"\nnode = "P"\nprefix = "/sim"\npayload = "500B"\n'
    emu = Emulator(scenario(tmp_path, "4s", apps), ["C=tcp://127.0.0.1:0"], tmp_path / "run")
    host, port = emu.faces["C"].removeprefix("tcp://").rsplit(":", 1)
    # An Interest whose Nonce has 3 bytes: framed correctly, not a packet.
    bad = socket.create_connection((host, int(port)))
    bad.sendall(bytes([5, 10, 7, 3, 8, 1, ord("x"), 10, 3, 1, 2, 3]))
    bad.settimeout(10)
    assert bad.recv(100) == b"", "the emulator closes that connection"
    bad.close()
    emu.wait_for(r"malformed packet: a Nonce of 3 bytes")
    # A valid Interest, then the connection reset before its Data comes back.
    rude = socket.create_connection((host, int(port)))
    rude.sendall(bytes([5, 13, 7, 5, 8, 3, *b"sim", 10, 4, 1, 2, 3, 4]))
    rude.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, bytes(8))  # RST on close
    rude.close()
    found = consume(tmp_path, emu.faces["C"], "/sim", 3)
    code, _ = emu.finish()
    assert code == 0, "\n".join(emu.lines)
    assert found["sizes"] == [500] * 3
    assert sum("closed" in line for line in emu.lines) >= 2, emu.lines


@pytest.mark.parametrize(
    "face, says",
    [
        ("X=tcp://127.0.0.1:0", "'X' is not a node of the scenario"),
        ("C=tcp://localhost:0", "is not an IP address"),
        ("C=tcp://127.0.0.1:99999", "0 to 65535"),
        ("C", "expected NODE=URI"),
    ],
)
def test_a_bad_face_is_bad_input(capsys, tmp_path, face, says):
    code = cli.main(["emulate", str(scenario(tmp_path, "1s")), "--face", face, "-o", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and says in err and "Traceback" not in err, err
