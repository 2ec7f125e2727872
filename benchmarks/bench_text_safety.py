"""What the safety transforms of text cost per MB: plain prose, and every worst case of ``worst_text.py``,
as a ratio to plain prose of the same length, measured in the same run.

    python benchmarks/bench_text_safety.py [--mb 1] [--repeat 3] [--growth]

For each transform (``inert_markdown``, ``literal``, masking with the built-in rules (of a text, and of a name from
the data), ``links_in``, and DeerFlow's
message display: ``strip_human_blocks``, ``strip_marker_tags``, ``parse_upload_block``) it prints
the milliseconds per MB of plain text, then each worst case's milliseconds per MB and its ratio to plain.
A transform that skips plain text almost for free (DeerFlow's block stripping finds no ``<``) is compared
with ``inert_markdown`` over plain text instead, the cost a page pays for a message anyway. ``--growth`` also
prints each worst case at 10k, 100k and 1M characters: linear time grows about tenfold per
step (a quadratic pattern a hundredfold; the e-mail pattern the inert path used to have took 104 s over
120,000 letters). The first step is often more than tenfold for every input, plain included: 10k characters
fit in the CPU's caches.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.worst_text import WORST, plain  # noqa: E402
from inspector.profiles.deerflow.messages import parse_upload_block, strip_human_blocks, strip_marker_tags  # noqa: E402
from inspector.safety.inert_text import inert_markdown, links_in, literal  # noqa: E402
from inspector.safety.redaction import Redactor  # noqa: E402

TRANSFORMS = {"inert_markdown": inert_markdown, "literal": literal, "masking": Redactor().text,
              "masking a name": Redactor().name, "links_in": links_in,
              "strip_human_blocks": strip_human_blocks, "strip_marker_tags": strip_marker_tags,
              "parse_upload_block": parse_upload_block}


def best(fn, text: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(text)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=1.0, help="text length in millions of characters")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--growth", action="store_true", help="also time 10k/100k/1M characters of each case")
    args = parser.parse_args()
    n = int(args.mb * 1_000_000)
    floor = best(inert_markdown, plain(n), args.repeat)  # for transforms that skip plain text almost for free
    for name, fn in TRANSFORMS.items():
        own = best(fn, plain(n), args.repeat)
        skips = own < floor / 20
        base = floor if skips else own
        per_mb = own / args.mb * 1000
        against = "inert_markdown over plain (it skips plain text)" if skips else "plain"
        print(f"\n{name}: plain text {per_mb:.0f} ms per MB; ratios against {against}")
        worst_ratio = 0.0
        for case, make in WORST.items():
            spent = best(fn, make(n), args.repeat)
            ratio = spent / base
            worst_ratio = max(worst_ratio, ratio)
            print(f"  {case:18} {spent / args.mb * 1000:8.0f} ms per MB   x{ratio:5.2f}")
        print(f"  worst ratio: x{worst_ratio:.2f}")
        if args.growth:
            print("  growth (ms at 10k / 100k / 1M characters):")
            for case, make in {"plain": plain, **WORST}.items():
                row = [best(fn, make(size), args.repeat) * 1000 for size in (10_000, 100_000, 1_000_000)]
                print(f"    {case:18} " + " / ".join(f"{t:8.1f}" for t in row)
                      + f"   x{row[2] / max(row[1], 1e-6):.1f} from 100k to 1M")


if __name__ == "__main__":
    main()
