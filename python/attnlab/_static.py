"""The standalone build's files, as the cell's HTML carries them.

``pip install ./python`` copies them from the repository's ``standalone/`` folder (``npm run build``) into
the package (``attnlab/_static/``, see ``python/_build/backend.py``). Imported from a checkout without
installing, the package reads ``standalone/`` itself. ``ATTNLAB_STANDALONE`` names another folder.

What is carried: ``attnlab.js`` (the ES module: every widget and the API), the chunks it imports lazily
(KaTeX), the ``.wasm`` core, KaTeX's stylesheet with the woff2 fonts formulas need most (Main, Math italic, Size1-4) as data: URLs. Each is
gzip-compressed and base64-encoded; the browser inflates them (``DecompressionStream``). Nothing else
from the build (training worker, snapshots, GPT-2 vocabulary) is needed by the notebook widgets.
"""
import base64
import functools
import gzip
import os
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent

# KaTeX fonts carried as data: URLs; the other faces are dropped from the stylesheet (their glyphs fall
# back to the page's serif font) so that no font is requested from anywhere.
SKIP_CHUNKS = ("r50k_base",)

KEEP_FONTS = ("KaTeX_Main-Regular", "KaTeX_Main-Bold", "KaTeX_Math-Italic", "KaTeX_Size1-Regular",
              "KaTeX_Size2-Regular", "KaTeX_Size3-Regular", "KaTeX_Size4-Regular", "KaTeX_AMS-Regular")


def candidates():
    env = os.environ.get("ATTNLAB_STANDALONE")
    if env:
        yield Path(env)
    yield HERE / "_static"
    yield HERE.parent.parent / "standalone"  # python/attnlab -> the repository's standalone/


def find_files(folder):
    """The files the notebook needs in a standalone folder, or None if it is not one."""
    folder = Path(folder)
    js = folder / "attnlab.js"
    if not js.is_file():
        return None
    assets = folder / "assets"
    wasm = sorted(assets.glob("attnlab-core*.wasm"))
    css = sorted(assets.glob("katex*.css"))
    if not wasm or not css:
        return None
    fonts = {p.name: p for p in assets.glob("KaTeX_*.woff2")}
    # Chunks attnlab.js imports lazily (import(`./assets/…`)), e.g. KaTeX: carried, except GPT-2's vocabulary
    # (two ~470 KB chunks only <attn-model> reads) and Node-only imports.
    names = re.findall(r"import\(`\./assets/([\w.-]+\.js)`\)", js.read_text(encoding="utf-8"))
    chunks = {n: assets / n for n in sorted(set(names)) if not n.startswith(SKIP_CHUNKS) and (assets / n).is_file()}
    return {"js": js, "wasm": wasm[0], "css": css[0], "fonts": fonts, "chunks": chunks}


def locate():
    for c in candidates():
        found = find_files(c)
        if found:
            return found
    raise FileNotFoundError(
        "attnlab: the standalone build (attnlab.js and its assets/) is neither in the package nor in the "
        "repository: run `npm run build` in the attnlab repository, then `pip install ./python` "
        "(or set ATTNLAB_STANDALONE to a standalone/ folder)")


def katex_css(files):
    """KaTeX's stylesheet with the kept fonts as woff2 data: URLs and every other @font-face removed."""
    css = files["css"].read_text(encoding="utf-8")

    def face(m):
        block = m.group(0)
        name = next((n for n in files["fonts"] if any(n.startswith(k + "-") for k in KEEP_FONTS) and n in block), None)
        if not name:
            return ""
        data = base64.b64encode(files["fonts"][name].read_bytes()).decode("ascii")
        return re.sub(r"src:[^;}]*", f"src:url(data:font/woff2;base64,{data}) format(\"woff2\")", block)

    return re.sub(r"@font-face\{[^}]*\}", face, css)


def _pack(data):
    return base64.b64encode(gzip.compress(data, compresslevel=9, mtime=0)).decode("ascii")


@functools.lru_cache(maxsize=2)
def _library(paths_key):
    files = locate()
    return {
        "js": _pack(files["js"].read_bytes()),
        "wasm": _pack(files["wasm"].read_bytes()),
        "css": _pack(katex_css(files).encode("utf-8")),
        "chunks": {"./assets/" + n: _pack(p.read_bytes()) for n, p in files["chunks"].items()},
        "source": str(files["js"].parent),
    }


def library():
    """{'js', 'wasm', 'css'}: gzip + base64 of each file (cached for the session)."""
    key = tuple(str(c) for c in candidates())
    return _library(key)
