#!/bin/sh
# contrib/container/build-oci.sh: the image of contrib/container/Dockerfile (FROM scratch, the
# static go-heap as /usr/bin/go-heap, ENTRYPOINT go-heap, CMD watch), written as an OCI image
# layout archive without a container engine or a base image (python3, stdlib only).
#
#   contrib/container/build-oci.sh BINARY [OUT.tar [NAME:TAG]]
#       BINARY    src/go-heap-static (x86-64, or the arm64 one of contrib/static/cross-arm64.sh;
#                 the image's architecture is read from its ELF header)
#       OUT.tar   default go-heap-oci.tar
#       NAME:TAG  default go-heap:<version printed by BINARY --version, if it runs here>
#
# Load or push it with any OCI tool:  podman load -i OUT.tar;  skopeo copy oci-archive:OUT.tar
# docker://registry.example.com/go-heap:0.1.0;  docker load -i OUT.tar (Docker 25+).
# Reproducible: the same binary gives the same digests (mtime 0, uid 0, sorted JSON).
exec python3 - "$@" <<'PY'
import gzip, hashlib, io, json, os, subprocess, sys, tarfile

if len(sys.argv) < 2:
    sys.exit("usage: build-oci.sh BINARY [OUT.tar [NAME:TAG]]")
binary = sys.argv[1]
out = sys.argv[2] if len(sys.argv) > 2 else "go-heap-oci.tar"
with open(binary, "rb") as f:
    exe = f.read()
if exe[:4] != b"\x7fELF":
    sys.exit("build-oci.sh: %s is not an ELF file" % binary)
machine = int.from_bytes(exe[18:20], "little")
arch = {62: "amd64", 183: "arm64"}.get(machine)
if arch is None:
    sys.exit("build-oci.sh: e_machine %d is neither x86-64 nor aarch64" % machine)
if len(sys.argv) > 3:
    ref = sys.argv[3]
else:
    try:
        v = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10).stdout.split()
        ref = "go-heap:" + (v[1] if len(v) > 1 else "latest")
    except OSError:
        ref = "go-heap:latest"   # another architecture's binary: it does not run here

def tarinfo(name, **kw):
    ti = tarfile.TarInfo(name)
    ti.uid = ti.gid = 0
    ti.uname = ti.gname = "root"
    ti.mtime = 0
    for k, v in kw.items():
        setattr(ti, k, v)
    return ti

# The one layer: usr/, usr/bin/, usr/bin/go-heap.
raw = io.BytesIO()
with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as t:
    t.addfile(tarinfo("usr", type=tarfile.DIRTYPE, mode=0o755))
    t.addfile(tarinfo("usr/bin", type=tarfile.DIRTYPE, mode=0o755))
    t.addfile(tarinfo("usr/bin/go-heap", size=len(exe), mode=0o755), io.BytesIO(exe))
layer_tar = raw.getvalue()
gz = io.BytesIO()
with gzip.GzipFile(fileobj=gz, mode="wb", mtime=0) as g:
    g.write(layer_tar)
layer = gz.getvalue()

def dig(b):
    return "sha256:" + hashlib.sha256(b).hexdigest()

def js(o):
    return json.dumps(o, sort_keys=True, separators=(",", ":")).encode()

config = js({
    "architecture": arch,
    "os": "linux",
    "config": {
        "Entrypoint": ["/usr/bin/go-heap"],
        "Cmd": ["watch", "--listen=0.0.0.0:9465"],
        "ExposedPorts": {"9465/tcp": {}},
        "Labels": {"org.opencontainers.image.title": "go-heap",
                   "org.opencontainers.image.description":
                       "go-heap watch: heap profiles of every Go process on the node"},
    },
    "rootfs": {"type": "layers", "diff_ids": [dig(layer_tar)]},
    "history": [{"created_by": "contrib/container/build-oci.sh (FROM scratch, COPY go-heap-static /usr/bin/go-heap)"}],
})
manifest = js({
    "schemaVersion": 2,
    "mediaType": "application/vnd.oci.image.manifest.v1+json",
    "config": {"mediaType": "application/vnd.oci.image.config.v1+json",
               "digest": dig(config), "size": len(config)},
    "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip",
                "digest": dig(layer), "size": len(layer)}],
})
index = js({
    "schemaVersion": 2,
    "mediaType": "application/vnd.oci.image.index.v1+json",
    "manifests": [{"mediaType": "application/vnd.oci.image.manifest.v1+json",
                   "digest": dig(manifest), "size": len(manifest),
                   "platform": {"architecture": arch, "os": "linux"},
                   "annotations": {"org.opencontainers.image.ref.name": ref.rsplit(":", 1)[-1],
                                   "io.containerd.image.name": ref}}],
})
tmp = out + ".tmp"
with tarfile.open(tmp, mode="w", format=tarfile.PAX_FORMAT) as t:
    def add(name, data):
        t.addfile(tarinfo(name, size=len(data), mode=0o644), io.BytesIO(data))
    t.addfile(tarinfo("blobs", type=tarfile.DIRTYPE, mode=0o755))
    t.addfile(tarinfo("blobs/sha256", type=tarfile.DIRTYPE, mode=0o755))
    for b in (layer, config, manifest):
        add("blobs/sha256/" + hashlib.sha256(b).hexdigest(), b)
    add("oci-layout", js({"imageLayoutVersion": "1.0.0"}))
    add("index.json", index)
os.replace(tmp, out)
print("build-oci.sh: %s: %s linux/%s, manifest %s, %d bytes" % (out, ref, arch, dig(manifest), os.path.getsize(out)))
PY
