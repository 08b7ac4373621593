#!/usr/bin/env python3
"""Writes src/server/domain/jobspec-blocks.ts: the HCL names of the reference's api structs (their `hcl:"..."` struct
tags, in the vendored client test/go-client/api/, MPL-2.0) that a jobspec decodes into, with each field's Go type.

    python3 scripts/jobspec-blocks.py

The table is data: src/server/domain/jobspec.ts reads it to map hcl2json's output onto api.Job.
"""
import glob
import json
import os
import re

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STRUCT = re.compile(r"^type (\w+) struct \{\n(.*?)^\}", re.S | re.M)
FIELD = re.compile(r"^\s*(\w+)\s+([^\s`]+)\s*`([^`]*)`", re.M)
TAG = re.compile(r'hcl:"([^"]*)"')
JSON_TAG = re.compile(r'json:"([^",]*)')

structs = {}
for path in sorted(glob.glob(os.path.join(root, "test/go-client/api/*.go"))):
    if path.endswith("_test.go"):
        continue
    text = open(path).read()
    for match in STRUCT.finditer(text):
        fields = []
        for field in FIELD.finditer(match.group(2)):
            tag = TAG.search(field.group(3))
            if tag is None:
                continue
            parts = tag.group(1).split(",")
            name, kind = parts[0], (parts[1] if len(parts) > 1 else "attr")
            if kind == "optional":
                kind = "attr"
            # The JSON name: the json tag's when it names one, the Go name otherwise.
            json_tag = JSON_TAG.search(field.group(3))
            go_name = json_tag.group(1) if json_tag is not None and json_tag.group(1) not in ("", "-") else field.group(1)
            fields.append([name, go_name, field.group(2), kind])
        if fields:
            structs[match.group(1)] = fields

# Only the structs a job reaches.
reach, todo = {}, ["Job"]
while todo:
    name = todo.pop()
    if name in reach or name not in structs:
        continue
    reach[name] = structs[name]
    for _, _, go_type, _ in structs[name]:
        todo.append(go_type.lstrip("[]*"))

lines = [
    "/**",
    " * The HCL names of the reference's api structs a jobspec decodes into (their `hcl` struct tags, read from",
    " * the vendored client, test/go-client/api/, MPL-2.0), with each field's Go type and its tag's kind. Written by",
    " * `scripts/jobspec-blocks.py`; do not edit by hand.",
    " *",
    " * @module",
    " */",
    "",
    "/** A field: its HCL name, its JSON name (the Go name unless a json tag renames it), its Go type, and whether HCL writes it as an argument, a block, a block's label or the remaining body. */",
    'export type HclField = readonly [hcl: string, json: string, type: string, kind: "attr" | "block" | "label" | "remain"];',
    "",
    "/** Each api struct a job reaches, by its Go name. */",
    "export const HCL_STRUCTS: Readonly<Record<string, readonly HclField[]>> = {",
]
for name in sorted(reach):
    lines.append(f"  {name}: [")
    for field in reach[name]:
        lines.append(f"    {json.dumps(field)},")
    lines.append("  ],")
lines.append("};")
lines.append("")
open(os.path.join(root, "src/server/domain/jobspec-blocks.ts"), "w").write("\n".join(lines))
print(len(reach), "structs")
