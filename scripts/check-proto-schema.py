#!/usr/bin/env python3
"""Checks bidscan's proto2 statement of the OpenRTB schema (crates/bidscan-proto/proto/*.proto) against IAB Tech
Lab's published `openrtb.proto` (edition 2023): every message bidscan states exists there under the same full name,
and every field bidscan states has the same name, number, type, message or enum type, and repeatedness.

    python3 scripts/check-proto-schema.py PATH/TO/openrtb.proto

PATH is the published file (InteractiveAdvertisingBureau/openrtb2.x,
proto/src/main/com/iabtechlab/openrtb/v2/openrtb.proto). Needs grpcio-tools (`pip install grpcio-tools`: its
protoc reads editions). Exit 0 when every stated field agrees, 1 otherwise.
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import grpc_tools
from google.protobuf import descriptor_pb2

ROOT = Path(__file__).resolve().parent.parent
OURS = ROOT / "crates/bidscan-proto/proto"
INCLUDE = Path(grpc_tools.__file__).parent / "_proto"


def descriptors(include, files, out):
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", f"-I{include}", f"-I{INCLUDE}", "--include_imports",
                    f"--descriptor_set_out={out}", *files], check=True)
    fds = descriptor_pb2.FileDescriptorSet()
    fds.ParseFromString(Path(out).read_bytes())
    messages = {}

    def walk(prefix, message):
        name = f"{prefix}.{message.name}"
        messages[name] = message
        for nested in message.nested_type:
            walk(name, nested)

    for file in fds.file:
        if not file.package.startswith("google."):
            for message in file.message_type:
                walk("." + file.package, message)
    return messages


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    published = Path(sys.argv[1]).resolve()
    repeated = descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED
    with tempfile.TemporaryDirectory() as tmp:
        theirs = descriptors(published.parent, [published.name], os.path.join(tmp, "published.pb"))
        ours = descriptors(OURS, sorted(p.name for p in OURS.glob("*.proto")), os.path.join(tmp, "ours.pb"))
    differences, fields = [], 0
    for name, message in ours.items():
        if name not in theirs:
            differences.append(f"{name}: no such message in the published schema")
            continue
        by_number = {f.number: f for f in theirs[name].field}
        for field in message.field:
            fields += 1
            other = by_number.get(field.number)
            if other is None:
                differences.append(f"{name}.{field.name} = {field.number}: no field of that number there")
            elif (other.name, other.type, other.type_name, other.label == repeated) != (
                    field.name, field.type, field.type_name, field.label == repeated):
                differences.append(f"{name}.{field.name} = {field.number}: published as {other.name}, type "
                                   f"{other.type} {other.type_name}, repeated {other.label == repeated}")
    for line in differences:
        print("DIFF", line)
    print(f"{fields} fields in {len(ours)} messages compared: {len(differences)} differences")
    sys.exit(1 if differences else 0)


if __name__ == "__main__":
    main()
