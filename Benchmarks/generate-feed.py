#!/usr/bin/env python3
"""Writes a deterministic Waterfall feed of N images (default 1,000,000, about 100 MB).

Shape: sections of 5,000 images ("2020-01-01", "2020-01-02", …, all declared with a title),
varied aspect ratios drawn from the COCO 2017 validation sizes (plus panoramas and tall
screenshots), ids "img-<n>" and https urls. The same N always gives the same bytes. With
--dated, each image also has a `takenAt` on its section's day (UTC), at a random second. With
--tagged, every tenth image carries the tag "pick" and each a tag "tone-<0…9>" (DESIGN
section 20's views). --start K numbers the images from K (an append to a feed of K images).

Usage: generate-feed.py OUT.json [N] [--ndjson] [--dated] [--tagged] [--start=K]
"""
import datetime
import json
import random
import sys

def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    ndjson = "--ndjson" in sys.argv
    dated = "--dated" in sys.argv
    tagged = "--tagged" in sys.argv
    first = next((int(a.split("=")[1]) for a in sys.argv[1:] if a.startswith("--start=")), 0)
    out = args[0]
    count = int(args[1]) if len(args) > 1 else 1_000_000
    rng = random.Random(20261122)
    sizes = [(640, 427), (640, 480), (480, 640), (500, 375), (427, 640), (640, 360), (612, 612),
             (3000, 1000), (1170, 2532), (1600, 900), (800, 1200), (1024, 768)]
    per_section = 5000
    start = datetime.date(2020, 1, 1)
    sections = (count + per_section - 1) // per_section
    with open(out, "w") as f:
        if not ndjson:
            f.write('{"feed":"bench","sections":[')
            f.write(",".join(json.dumps({"id": str(start + datetime.timedelta(days=s)),
                                         "title": f"Day {s + 1}"})
                             for s in range(first // per_section, (first + count - 1) // per_section + 1)))
            f.write('],"images":[\n')
        for n in range(first, first + count):
            w, h = rng.choice(sizes)
            if rng.random() < 0.3:
                w, h = w + rng.randrange(-40, 41), h + rng.randrange(-40, 41)
            section = str(start + datetime.timedelta(days=n // per_section))
            record = {"id": f"img-{n}", "width": w, "height": h,
                      "url": f"https://img.example.com/{n}.jpg",
                      "section": section}
            if dated:
                second = rng.randrange(86_400)
                record["takenAt"] = f"{section}T{second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d}Z"
            if tagged:
                record["tags"] = (["pick"] if n % 10 == 0 else []) + [f"tone-{rng.randrange(10)}"]
            line = json.dumps(record, separators=(",", ":"))
            if ndjson:
                f.write(line + "\n")
            else:
                f.write(line + (",\n" if n + 1 < first + count else "\n"))
        if not ndjson:
            f.write("]}\n")

if __name__ == "__main__":
    main()
