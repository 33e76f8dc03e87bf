#!/usr/bin/env python3
"""OpenRTB JSON bid responses (and bid requests) -> protobuf twins (IAB Tech Lab's OpenRTB 2.6 schema), and each twin
back to OpenRTB JSON.

protoc's JSON mapping is not OpenRTB JSON (0/1 flags are booleans there, `ext` a free-form object here, bidders send
numbers as strings), so this converter maps OpenRTB JSON to the schema's messages itself, field by field, from the
message descriptors of crates/bidscan-proto/proto/bidresponse.proto and bidrequest.proto (compiled at run time by
grpcio-tools' protoc; encoded by Google's Python protobuf runtime):

- a member the schema names is set; `adm` given as an object goes to `adm_native` (a NativeResponse);
- 0/1 flags become booleans; a flag of another value cannot be carried (the member is dropped, noted);
- what a lenient reader would coerce (a number as a string, an id as a number, a single value for an array,
  `null`) is converted and noted `lenient:KIND`: protobuf cannot carry the deviation itself;
- `ext` members with no declared field are dropped and noted `dropped:PATH`;
- an integer outside int32 for an int32 field (`w`, `h`, `dur`, ...) fails the body (`int32:PATH`): transcoding
  does not truncate silently;
- a body that is not JSON, or not a JSON object, is not converted;
- an object member becomes a present message even when none of its members has a field (`"app":{…}`, `"ext":{…}`).

For each converted body it writes NAME.pb (the twin) and NAME.json: the OpenRTB JSON rendered from the twin (parsed
back from its bytes), compact, declared fields in the schema's order, flags as 0/1, `adm_native` as an object `adm`.
The JSON rendered from the twin, not the original, is what the twin is compared with (same content). REPORT.tsv
lists every body: name, status (`ok`, `lenient`, `failed`), notes.

    python3 scripts/openrtb_protobuf.py corpus/real-fixtures corpus/real-fixtures-protobuf
    python3 scripts/openrtb_protobuf.py --requests corpus/validate-pairs corpus/validate-pairs-protobuf

With --requests, each file is a `/validate` envelope and its `request` is converted (NAME.pb, NAME.json).

Needs `pip install grpcio-tools` (protoc 27 or later, which also reads the published schema's editions).
"""
import importlib
import json
import math
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROTO_DIR = os.path.join(ROOT, "crates", "bidscan-proto", "proto")
INT32 = (-(2**31), 2**31 - 1)


def load_messages():
    """Compiles bidresponse.proto with grpcio-tools' protoc into a temporary module and imports it."""
    import grpc_tools
    from grpc_tools import protoc

    out = tempfile.mkdtemp(prefix="openrtb-pb-")
    include = os.path.join(os.path.dirname(grpc_tools.__file__), "_proto")
    rc = protoc.main(
        ["protoc", f"-I{PROTO_DIR}", f"-I{include}", f"--python_out={out}", "bidresponse.proto", "bidrequest.proto"]
    )
    if rc != 0:
        sys.exit(f"protoc failed ({rc})")
    sys.path.insert(0, out)
    return importlib.import_module("bidresponse_pb2"), importlib.import_module("bidrequest_pb2")


class Unconvertible(Exception):
    """The body cannot be carried by the schema without losing meaning."""


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v):
    return (is_int(v) or isinstance(v, float)) and not isinstance(v, bool)


class Converter:
    def __init__(self, pb):
        from google.protobuf import json_format, struct_pb2

        self.pb = pb
        self.json_format = json_format
        self.struct_pb2 = struct_pb2
        self.notes = []

    def note(self, what):
        self.notes.append(what)

    # ---- JSON -> message

    def fill(self, msg, obj, path):
        if not isinstance(obj, dict):
            raise Unconvertible(f"not-an-object:{path or '/'}")
        desc = msg.DESCRIPTOR
        for key, value in obj.items():
            at = f"{path}/{key}"
            if value is None:
                self.note(f"lenient:null_value:{at}")
                continue
            if desc.name == "Bid" and key == "adm" and isinstance(value, dict):
                self.fill(msg.adm_native, value, at)
                continue
            fd = desc.fields_by_name.get(key)
            if fd is None or key == "adm_native":
                self.note(f"dropped:{at}")
                continue
            if fd.message_type is not None and fd.message_type.GetOptions().map_entry:
                self.fill_map(getattr(msg, key), fd, value, at)
            elif fd.is_repeated:
                if not isinstance(value, list):
                    self.note(f"lenient:single_value:{at}")
                    value = [value]
                target = getattr(msg, key)
                for i, item in enumerate(value):
                    if item is None:
                        self.note(f"lenient:null_value:{at}/{i}")
                        continue
                    if fd.message_type is not None:
                        self.fill(target.add(), item, f"{at}/{i}")
                    else:
                        v = self.scalar(fd, item, f"{at}/{i}")
                        if v is not None:
                            target.append(v)
            elif fd.message_type is not None:
                if fd.message_type.full_name == "google.protobuf.Value":
                    self.json_format.ParseDict(value, getattr(msg, key))
                else:
                    if isinstance(value, dict):
                        getattr(msg, key).SetInParent()
                    self.fill(getattr(msg, key), value, at)
            else:
                v = self.scalar(fd, value, at)
                if v is not None:
                    setattr(msg, key, v)

    def fill_map(self, target, fd, value, at):
        if not isinstance(value, dict):
            self.note(f"dropped:{at}")
            return
        vfd = fd.message_type.fields_by_name["value"]
        for k, v in value.items():
            v = self.scalar(vfd, v, f"{at}/{k}")
            if v is not None:
                target[k] = v

    def scalar(self, fd, v, at):
        t = fd.type
        if t == fd.TYPE_STRING:
            if isinstance(v, str):
                return v
            if is_int(v) or (isinstance(v, float) and v.is_integer() and abs(v) < 2**53):
                self.note(f"lenient:numeric_id:{at}")
                return str(int(v))
            self.note(f"dropped:invalid_type:{at}")
            return None
        if t == fd.TYPE_BOOL:
            if v in (0, 1) and not isinstance(v, float):
                if isinstance(v, bool):
                    self.note(f"lenient:bool_as_flag:{at}")
                return bool(v)
            self.note(f"dropped:flag_not_0_or_1:{at}")
            return None
        if t == fd.TYPE_INT32:
            n = self.number(v, at)
            if n is None:
                return None
            if isinstance(n, float):
                if not n.is_integer():
                    self.note(f"dropped:invalid_type:{at}")
                    return None
                self.note(f"lenient:float_as_integer:{at}")
                n = int(n)
            if not INT32[0] <= n <= INT32[1]:
                raise Unconvertible(f"int32:{at}")
            return n
        if t == fd.TYPE_DOUBLE:
            n = self.number(v, at)
            if n is None:
                return None
            n = float(n)
            if not math.isfinite(n):
                raise Unconvertible(f"not-finite:{at}")
            return n
        raise Unconvertible(f"type-{t}:{at}")

    def number(self, v, at):
        if is_num(v):
            return v
        if isinstance(v, str):
            try:
                n = json.loads(v)
            except ValueError:
                n = None
            if is_num(n):
                self.note(f"lenient:number_as_string:{at}")
                return n
        self.note(f"dropped:invalid_type:{at}")
        return None

    # ---- message -> OpenRTB JSON

    def render(self, msg):
        out = {}
        for fd in msg.DESCRIPTOR.fields:
            if fd.message_type is not None and fd.message_type.GetOptions().map_entry:
                m = getattr(msg, fd.name)
                if len(m):
                    out[fd.name] = {k: m[k] for k in sorted(m)}
                continue
            if fd.is_repeated:
                items = getattr(msg, fd.name)
                if len(items):
                    out[fd.name] = [self.value(fd, x) for x in items]
                continue
            if not msg.HasField(fd.name):
                continue
            out["adm" if fd.name == "adm_native" else fd.name] = self.value(fd, getattr(msg, fd.name))
        return out

    def value(self, fd, v):
        if fd.message_type is not None:
            if fd.message_type.full_name == "google.protobuf.Value":
                return self.json_format.MessageToDict(v)
            return self.render(v)
        if fd.type == fd.TYPE_BOOL:
            return 1 if v else 0
        return v


def main(src, dst, requests=False):
    pb, pbreq = load_messages()
    os.makedirs(dst, exist_ok=True)
    rows = []
    for name in sorted(os.listdir(src)):
        if not name.endswith(".json"):
            continue
        stem = name[:-5]
        raw = open(os.path.join(src, name), "rb").read()
        try:
            doc = json.loads(raw)
        except ValueError:
            rows.append((stem, "failed", "not-json"))
            continue
        conv = Converter(pb)
        kind = pbreq.BidRequest if requests else pb.BidResponse
        if requests:
            doc = doc.get("request") if isinstance(doc, dict) else None
        twin = kind()
        try:
            conv.fill(twin, doc, "")
        except Unconvertible as e:
            rows.append((stem, "failed", str(e)))
            continue
        data = twin.SerializeToString()
        back = kind()
        back.ParseFromString(data)
        rendered = json.dumps(conv.render(back), ensure_ascii=False, separators=(",", ":"))
        with open(os.path.join(dst, stem + ".pb"), "wb") as f:
            f.write(data)
        with open(os.path.join(dst, stem + ".json"), "w", encoding="utf-8") as f:
            f.write(rendered)
        lenient = any(n.startswith("lenient:") for n in conv.notes)
        rows.append((stem, "lenient" if lenient else "ok", " ".join(conv.notes)))
    with open(os.path.join(dst, "REPORT.tsv"), "w", encoding="utf-8") as f:
        f.write("name\tstatus\tnotes\n")
        for row in rows:
            f.write("\t".join(row) + "\n")
    counts = {}
    for _, status, _ in rows:
        counts[status] = counts.get(status, 0) + 1
    print(f"{len(rows)} bodies: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


if __name__ == "__main__":
    args = sys.argv[1:]
    requests = args[:1] == ["--requests"]
    if requests:
        args = args[1:]
    if len(args) != 2:
        sys.exit(__doc__)
    main(args[0], args[1], requests)
