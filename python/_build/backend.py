"""A PEP 517 build backend in the standard library only, so that `pip install ./python` works offline
(pip's isolated build environment gets no setuptools without an index).

It builds one pure-Python wheel: the `attnlab` package plus the standalone build's files the notebook
output carries (`attnlab.js`, the `.wasm`, KaTeX's stylesheet and woff2 fonts), copied into
`attnlab/_static/` from the repository's `standalone/` folder (made by `npm run build`), or from
`$ATTNLAB_STANDALONE`. Without them the build stops and says how to make them.
"""
import base64
import csv
import hashlib
import io
import os
import re
import tarfile
import zipfile
from pathlib import Path

NAME = "attnlab"
ROOT = Path(__file__).resolve().parent.parent          # python/
PKG = ROOT / NAME


def _version():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    return re.search(r'^version\s*=\s*"([^"]+)"', text, re.M).group(1)


def _standalone_files():
    """(relative name in _static, source path) of the files the notebook needs."""
    sources = []
    if os.environ.get("ATTNLAB_STANDALONE"):
        sources.append(Path(os.environ["ATTNLAB_STANDALONE"]))
    sources += [ROOT.parent / "standalone", PKG / "_static"]
    for src in sources:
        js, assets = src / "attnlab.js", src / "assets"
        wasm = sorted(assets.glob("attnlab-core*.wasm")) if assets.is_dir() else []
        css = sorted(assets.glob("katex*.css")) if assets.is_dir() else []
        if js.is_file() and wasm and css:
            files = [("attnlab.js", js), ("assets/" + wasm[0].name, wasm[0]), ("assets/" + css[0].name, css[0])]
            files += [("assets/" + f.name, f) for f in sorted(assets.glob("KaTeX_*.woff2"))]
            # lazily imported chunks (KaTeX); not the workers nor GPT-2's vocabulary (python/attnlab/_static.py)
            files += [("assets/" + f.name, f) for f in sorted(assets.glob("*.js"))
                      if ".worker-" not in f.name and not f.name.startswith("r50k_base")]
            return files
    raise RuntimeError(
        "attnlab: the standalone build is missing (attnlab.js and assets/ with the .wasm and KaTeX's CSS). "
        "Run `npm run build` in the repository first (it writes standalone/), or set ATTNLAB_STANDALONE "
        "to such a folder.")


def _package_files():
    for p in sorted(PKG.rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts and "_static" not in p.relative_to(PKG).parts[:1]:
            yield p.relative_to(ROOT).as_posix(), p.read_bytes()
    for rel, src in _standalone_files():
        yield f"{NAME}/_static/{rel}", src.read_bytes()


def _metadata(version):
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {version}\n"
            "Summary: attnlab's widgets in Jupyter notebooks, fed with the notebook's own torch / numpy arrays\n"
            "License: MIT\nRequires-Python: >=3.8\nProvides-Extra: torch\nProvides-Extra: numpy\n")


def _record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _write_wheel(wheel_directory, files, version):
    dist_info = f"{NAME}-{version}.dist-info"
    name = f"{NAME}-{version}-py3-none-any.whl"
    meta = {
        f"{dist_info}/METADATA": _metadata(version).encode(),
        f"{dist_info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: attnlab-backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{dist_info}/top_level.txt": f"{NAME}\n".encode(),
    }
    records = []
    with zipfile.ZipFile(Path(wheel_directory) / name, "w", zipfile.ZIP_DEFLATED) as zf:
        for path, data in list(files) + list(meta.items()):
            zf.writestr(zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0)), data, zipfile.ZIP_DEFLATED)
            records.append((path, _record_hash(data), str(len(data))))
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerows(records + [(f"{dist_info}/RECORD", "", "")])
        zf.writestr(zipfile.ZipInfo(f"{dist_info}/RECORD", date_time=(2020, 1, 1, 0, 0, 0)), buf.getvalue())
    return name


# --- PEP 517 hooks ---
def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, _package_files(), _version())


def build_sdist(sdist_directory, config_settings=None):
    """The package, its backend and the copied standalone files (an sdist builds without the repository)."""
    version = _version()
    base = f"{NAME}-{version}"
    name = f"{base}.tar.gz"
    with tarfile.open(Path(sdist_directory) / name, "w:gz") as tf:
        def add(rel, data):
            info = tarfile.TarInfo(f"{base}/{rel}")
            info.size, info.mtime = len(data), 0
            tf.addfile(info, io.BytesIO(data))
        for rel in ("pyproject.toml", "_build/backend.py"):
            add(rel, (ROOT / rel).read_bytes())
        for rel, data in _package_files():
            add(rel, data)
        add("PKG-INFO", _metadata(version).encode())
    return name
