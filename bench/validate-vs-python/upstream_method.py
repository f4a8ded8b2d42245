#!/usr/bin/env python3
"""Validates every graph under ROOT/examples/*/ the way upstream's validator does
(validator/validate.py): per file, load the JSON, load the schema, jsonschema.validate()."""
import glob, json, os, sys, time
from jsonschema import validate, ValidationError

root, schema_path = sys.argv[1], sys.argv[2]
files = sorted(glob.glob(os.path.join(root, "examples", "*", "*.json")))
ok = bad = 0
t0 = time.perf_counter()
for path in files:
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    try:
        validate(instance=data, schema=schema)
        ok += 1
    except ValidationError:
        bad += 1
dt = time.perf_counter() - t0
print(json.dumps({"files": len(files), "valid": ok, "invalid": bad, "seconds": dt}))
