#!/usr/bin/env python3
"""Validates an OpenAPI document with openapi-spec-validator (pip install openapi-spec-validator).

Usage: validate_openapi.py FILE. Exit 0 valid, 1 invalid, 3 the validator is not installed.
"""
import json
import sys

try:
    from openapi_spec_validator import validate
except ImportError:
    print("openapi-spec-validator is not installed (pip install openapi-spec-validator)", file=sys.stderr)
    sys.exit(3)

with open(sys.argv[1], encoding="utf-8") as f:
    doc = json.load(f)
try:
    validate(doc)
except Exception as e:  # the validator raises its own error types
    print(f"invalid OpenAPI document: {e}", file=sys.stderr)
    sys.exit(1)
print(f"valid OpenAPI {doc.get('openapi')} document: {len(doc.get('paths', {}))} paths")
