"""What the structural guards cost: the depth check on decoding, and opening a bundle again.

    python benchmarks/bench_structure.py [--messages 2000] [--repeat 5]

1. Decoding a long conversation written by SqliteSaver (``bench_redaction``'s), with the depth guard
   (``inspector.store.depth``) as shipped and with it turned off, in the same run: the guard walks each
   decoded value once in Python, without recursion, while msgpack decodes in C, so decoding alone costs
   about 1.5-1.8 times as much; next to what a page pays for the state (decoding, then masking every
   value), it is a few percent. A history stream decoded against each parent walks only the new items.
2. A value nested 900 levels deep next to the conversation costs no more than the conversation alone (it is
   stopped, not walked): the ratio is about 1.
3. A support bundle of that thread opened the first time (unpacked into the cache folder) and again (the
   copy reused, only its sha256 computed), and a zip bomb of the same size refused from the zip's directory.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from bench_redaction import write  # noqa: E402
from corpus.hostile_structure import deep_msgpack  # noqa: E402

from inspector.bundle import write_bundle  # noqa: E402
from inspector.safety.redaction import Redactor  # noqa: E402
from inspector.settings import Settings  # noqa: E402
from inspector.store import StoreError, carried, decode, open_store  # noqa: E402


def median_seconds(action, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def decode_state(db: Path) -> None:
    with open_store(str(db)) as store:
        store.state("long")


def plant_deep(db: Path, deep: Path) -> None:
    """A copy of ``db`` whose newest write holds a 900-deep map (raw SQL: the saver refuses it)."""
    deep.write_bytes(db.read_bytes())
    conn = sqlite3.connect(deep)
    conn.execute("UPDATE writes SET value = ? WHERE channel = 'title'", [deep_msgpack()])
    conn.commit()
    conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        db = folder / "long.db"
        write(db, args.messages)

        guarded = median_seconds(lambda: decode_state(db), args.repeat)
        real = decode.too_deep, carried.too_deep
        decode.too_deep = carried.too_deep = lambda *a, **k: False
        try:
            unguarded = median_seconds(lambda: decode_state(db), args.repeat)
        finally:
            decode.too_deep, carried.too_deep = real
        print(f"decode a {args.messages}-message state: {guarded * 1000:.1f} ms with the depth guard, "
              f"{unguarded * 1000:.1f} ms without: ratio {guarded / unguarded:.2f}")
        with open_store(str(db)) as store:
            values = store.state("long").values
        masking = median_seconds(lambda: Redactor()(values), args.repeat)
        print(f"decode and mask it (what a page pays): {(guarded + masking) * 1000:.1f} ms with the guard, "
              f"{(unguarded + masking) * 1000:.1f} ms without: ratio {(guarded + masking) / (unguarded + masking):.2f}")

        deep = folder / "deep.db"
        plant_deep(db, deep)
        hostile = median_seconds(lambda: decode_state(deep), args.repeat)
        print(f"the same state next to a 900-deep write: {hostile * 1000:.1f} ms: ratio {hostile / guarded:.2f}")

        with open_store(str(db)) as store:
            write_bundle(store, "long", folder / "long.zip", settings=Settings())
        cache = folder / "bundles"

        def open_bundle(path: Path) -> None:
            with open_store(str(path), bundle_cache_dir=cache) as bundle:
                bundle.threads()

        start = time.perf_counter()
        open_bundle(folder / "long.zip")
        first = time.perf_counter() - start
        again = median_seconds(lambda: open_bundle(folder / "long.zip"), args.repeat)
        print(f"open the bundle ({(folder / 'long.zip').stat().st_size:,} bytes): {first * 1000:.1f} ms unpacking, "
              f"{again * 1000:.1f} ms reusing the copy: ratio {again / first:.2f}")

        bomb = folder / "bomb.zip"
        with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("checkpoints.db", bytes(1_000_000_000))

        def refuse() -> None:
            try:
                open_bundle(bomb)
            except StoreError:
                return
            raise SystemExit("the zip bomb was opened")

        refused = median_seconds(refuse, args.repeat)
        print(f"a zip bomb ({bomb.stat().st_size:,} bytes, 1 GB unpacked) refused in {refused * 1000:.1f} ms: "
              f"ratio {refused / first:.2f} to unpacking the real bundle")


if __name__ == "__main__":
    main()
