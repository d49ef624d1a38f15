"""A leaderboard dump as the tests write one: a JSON record a kernel, each
carrying its reference module (the map target reference_code), and the
map that ingests it (dataset/maps/README.md).  Used by
test_replay_planted.py and tests/gpu/kb_leaderboard.py."""
import json
import os

MAP = {"name": "records-with-references", "records": "jsonl", "fields": {
    "model": "model", "level": "level", "problem_name": "task", "sample_id": "sample",
    "code": "kernel", "compiled": "compiled", "correct": "correct",
    "reference_code": "reference"}}


def record(model, level, problem_file, sample, kernel, reference):
    """One record: problem_file is the reference's file name (its task)."""
    return {"model": model, "level": level, "task": os.path.basename(problem_file)[:-3],
            "sample": sample, "kernel": kernel, "compiled": True, "correct": True,
            "reference": reference}


def write(folder, records):
    """records as folder/dump.jsonl and the map as folder/map.json; both paths."""
    dump, mapping = os.path.join(folder, "dump.jsonl"), os.path.join(folder, "map.json")
    with open(dump, "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in records)
    with open(mapping, "w") as f:
        json.dump(MAP, f)
    return dump, mapping
