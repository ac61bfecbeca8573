#!/usr/bin/env python3
"""Writes coco-val2017.json from the COCO 2017 validation set's image records.

    python3 SampleData/coco-val2017.py ../shared/data/coco-val2017-images.json > SampleData/coco-val2017.json

The records, in capture order (ties by id), keep their ids, pixel sizes, image urls, file
names as titles and capture dates as `takenAt`. COCO's `date_captured` ("2013-11-14 17:02:52")
has no offset; it is read as UTC. The feed asks for sections by day in UTC (DESIGN section 17):
every COCO validation photo was captured in November 2013, so by month would be one section;
by day it is twelve, which the gallery's scrubber jumps between.
"""
import json
import sys

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
        }
        for record in records
    ],
}
sys.stdout.write(json.dumps(feed, ensure_ascii=False, separators=(",", ":")))
