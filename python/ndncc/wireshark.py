"""ndncc's Wireshark dissector for the NDN frames of its traces (``ndncc/data/wireshark/ndncc.lua``).

Wireshark ships no NDN dissector. This one decodes what ndncc writes (docs/traces.md): the
NDNLPv2 LpPacket (HopCountTag, Nack and NackReason, CongestionMark, Ack, TxSequence, ndncc's
RateStamp and RouteLabel) around an Interest or Data with its name, segment number, nonce,
lifetime, freshness, content and signature::

    tshark -X lua_script:"$(python -m ndncc.wireshark)" -r runs/trace/trace.pcapng

``python -m ndncc.wireshark`` prints the dissector's path.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from .errors import MissingFile


def dissector_path() -> Path:
    """The installed ``ndncc.lua``."""
    path = Path(str(resources.files("ndncc") / "data" / "wireshark" / "ndncc.lua"))
    if not path.is_file():
        raise MissingFile(f"ndncc's Wireshark dissector is missing (looked for {path})")
    return path


if __name__ == "__main__":
    print(dissector_path())
