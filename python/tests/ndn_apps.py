"""Small real NDN applications (python-ndn) that the emulation tests attach to ndncc.

``python ndn_apps.py consume PREFIX COUNT``: fetch PREFIX/seg=0 … COUNT-1, one at a time, and
print one JSON line: each Data's content length and round-trip time [s].

``python ndn_apps.py produce PREFIX SIZE``: register PREFIX and answer every Interest under it
with SIZE bytes of content, until killed.

Both reach their forwarder through ``NDN_CLIENT_TRANSPORT``, as python-ndn's own tools do.
"""

import json
import sys
import time

from ndn.appv2 import NDNApp, pass_all
from ndn.encoding import Component, Name
from ndn.security import KeychainDigest


def consume(prefix: str, count: int) -> None:
    app = NDNApp()
    found = {"sizes": [], "rtts": [], "errors": []}

    async def fetch() -> None:
        try:
            for seg in range(count):
                name = Name.from_str(prefix) + [Component.from_segment(seg)]
                t0 = time.perf_counter()
                try:
                    _, content, _ = await app.express(name, validator=pass_all, lifetime=4000)
                except Exception as e:  # noqa: BLE001 - reported to the test
                    found["errors"].append(type(e).__name__)
                    continue
                found["rtts"].append(time.perf_counter() - t0)
                found["sizes"].append(len(bytes(content or b"")))
        finally:
            app.shutdown()

    app.run_forever(after_start=fetch())
    print(json.dumps(found), flush=True)


def produce(prefix: str, size: int) -> None:
    app = NDNApp()
    signer = KeychainDigest().get_signer({})
    content = bytes(range(256)) * (size // 256) + bytes(size % 256)

    @app.route(prefix)
    def on_interest(name, _param, reply, _context):
        reply(app.make_data(name, content, signer=signer, freshness_period=1000))

    app.run_forever()


if __name__ == "__main__":
    what, prefix, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    consume(prefix, n) if what == "consume" else produce(prefix, n)
