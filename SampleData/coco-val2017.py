#!/usr/bin/env python3
"""Writes coco-val2017.json from the COCO 2017 validation set's image records.

    python3 SampleData/coco-val2017.py ../shared/data/coco-val2017-images.json > SampleData/coco-val2017.json

The records, in capture order (ties by id), keep their ids, pixel sizes, image urls, file
names as titles and capture dates as `takenAt`. COCO's `date_captured` ("2013-11-14 17:02:52")
has no offset; it is read as UTC. The feed asks for sections by month in UTC (DESIGN section 17).
"""
import json
import sys

records = json.load(open(sys.argv[1]))["images"]
records.sort(key=lambda record: (record["date_captured"], record["id"]))
feed = {
    "feed": "coco-val2017",
    "source": "COCO 2017 validation set image records (annotations CC BY 4.0, cocodataset.org), with their capture dates, sectioned by month",
    "sectionBy": "month",
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
