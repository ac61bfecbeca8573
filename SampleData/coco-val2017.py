#!/usr/bin/env python3
"""Writes coco-val2017.json from the COCO 2017 validation set's image records.

    python3 SampleData/coco-val2017.py ../shared/data/coco-val2017-images.json > SampleData/coco-val2017.json

The records, in capture order (ties by id), keep their ids, pixel sizes, image urls, file
names as titles and capture dates as `takenAt`. COCO's `date_captured` ("2013-11-14 17:02:52")
has no offset; it is read as UTC. The feed asks for sections by day in UTC (DESIGN section 17):
every COCO validation photo was captured in November 2013, so by month would be one section;
by day it is twelve, which the gallery's scrubber jumps between.

Each image also gets a `color` (DESIGN section 16) that the gallery paints before the photo
loads. It is NOT the photo's colour: the records carry no pixels, and this script reads no
image, so the colour is made from the id alone (a hue from the id, a soft fixed saturation and
lightness), the same on every run. A real feed would give each photo's average colour, or a
`placeholder` ThumbHash made from its pixels (docs/cli.md says how). No `renditions`: COCO
serves each image at one size only.
"""
import colorsys
import json
import sys


def pleasant_colour(image_id):
    """A stable soft colour from an id: the hue spread by a multiplicative hash, so that
    neighbouring ids differ; not the photo's colour."""
    hue = ((image_id * 2654435761) % 2**32) / 2**32
    red, green, blue = colorsys.hls_to_rgb(hue, 0.72, 0.45)
    return "#%02x%02x%02x" % (round(red * 255), round(green * 255), round(blue * 255))

records = json.load(open(sys.argv[1]))["images"]
records.sort(key=lambda record: (record["date_captured"], record["id"]))
feed = {
    "feed": "coco-val2017",
    "source": "COCO 2017 validation set image records (annotations CC BY 4.0, cocodataset.org), with their capture dates, sectioned by day",
    "sectionBy": "day",
    "timeZone": "UTC",
    "images": [
        {
            "id": record["id"],
            "width": record["width"],
            "height": record["height"],
            "url": record["coco_url"],
            "title": record["file_name"],
            "takenAt": record["date_captured"].replace(" ", "T") + "Z",
            "color": pleasant_colour(record["id"]),
        }
        for record in records
    ],
}
sys.stdout.write(json.dumps(feed, ensure_ascii=False, separators=(",", ":")))
