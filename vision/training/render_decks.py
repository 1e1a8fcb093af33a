"""Render the card faces of the Debian card-art packages to PNG files, one folder per deck.

Training data source for the corner-index classifier (``vision/training/train_index.py``). Needs the Debian
packages ``gnome-cards-data`` and ``kdegames-card-data-kf5`` (card artwork as SVG, many deck designs with
jokers) and ``librsvg2-bin`` (``rsvg-convert``). Only decks with French suits and A/K/Q/J indices are used:
German, Swiss, Russian and tarot patterns index their court cards with other letters.

Usage: ``python -m vision.training.render_decks OUT_DIR [--four-colour]`` (idempotent: existing PNGs are kept;
``--four-colour`` adds the two four-colour decks, for the index network).
"""

from __future__ import annotations

import gzip
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import cv2

from vision.types import BLACK_JOKER, RED_JOKER

AISLERIOT = Path("/usr/share/aisleriot/cards")
KDE = Path("/usr/share/carddecks")
#: Decks whose indices are not the French A 2..10 J Q K, or whose suits are not 4 standard shapes/colours.
EXCLUDED = {
    "atlasnye", "atlasnye_skat", "Атласные", "berlin", "rheinland", "swiss-xvii", "tarocco", "lattmann",
    "orell", "slavic_costumes", "svg-xskat-german",
    "svg-xskat-french", "ancient_french", "guyenne-classic", "bellot", "svg-ancient-egyptians",
}
#: four-colour decks: French indices, suits told by shape (and their own colours); the index network trains on
#: them, the glyph classifiers of train_index.py do not (their suit is shape x red/black ink)
FOUR_COLOUR = {"anglo_modern_4_color", "neoclassical_4_color"}
SUIT_NAMES = {"club": "C", "diamond": "D", "heart": "H", "spade": "S"}
RANK_NAMES = {"1": "A", "10": "T", "jack": "J", "queen": "Q", "king": "K"} | {str(i): str(i) for i in range(2, 10)}
WIDTH = 240


def deck_sources(four_colour: bool = False) -> list[tuple[str, Path, str]]:
    """(deck name, svg path, id style) for every usable installed deck (four-colour ones only if asked)."""
    out: list[tuple[str, Path, str]] = []
    if AISLERIOT.is_dir():
        for f in sorted(AISLERIOT.glob("*.svgz")):
            name = f.name.removesuffix(".svgz")
            if name not in EXCLUDED and (four_colour or name not in FOUR_COLOUR):
                out.append((name, f, "aisleriot"))
    if KDE.is_dir():
        for d in sorted(KDE.glob("svg-*")):
            files = sorted(d.glob("*.svg*"))
            if files and d.name not in EXCLUDED:
                out.append((d.name, files[0], "kde"))
    return out


def card_ids(svg_text: str, style: str) -> dict[str, str]:
    """Map our card code -> SVG element id, for the faces this file holds."""
    ids = set(re.findall(r'id="([^"]+)"', svg_text))
    found: dict[str, str] = {}
    for sname, s in SUIT_NAMES.items():
        for rname, r in RANK_NAMES.items():
            key = f"{sname}_{rname}" if style == "aisleriot" else f"{rname}_{sname}"
            if key in ids:
                found[s + r] = key
    for code, candidates in ((BLACK_JOKER, ("joker_black", "black_joker")), (RED_JOKER, ("joker_red", "red_joker"))):
        for c in candidates:
            if c in ids:
                found[code] = c
                break
    return found


def _sheet_cells(svg: Path, deck_dir: Path, tmp: Path) -> None:
    """Aisleriot sheets: 13 columns (A..K) x 5 rows (clubs, diamonds, hearts, spades; jokers + back)."""
    sheet = tmp / "sheet.png"
    subprocess.run(["rsvg-convert", "-u", "-w", str(13 * WIDTH), "-b", "white", str(svg), "-o", str(sheet)],
                   check=False, capture_output=True)
    image = cv2.imread(str(sheet))
    if image is None:
        return
    cell_w, cell_h = image.shape[1] / 13, image.shape[0] / 5
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"]
    layout = {(row, col): s + r for row, s in enumerate("CDHS") for col, r in enumerate(ranks)}
    layout |= {(4, 0): BLACK_JOKER, (4, 1): RED_JOKER}
    for (row, col), code in layout.items():
        x0, y0 = round(col * cell_w), round(row * cell_h)
        cell = image[y0:round(y0 + cell_h), x0:round(x0 + cell_w)]
        cv2.imwrite(str(deck_dir / f"{code}.png"), cell)


def _good_render(path: Path) -> bool:
    """rsvg-convert's ``--export-id`` box is wrong for some elements: keep only card-shaped, opaque renders."""
    image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if image is None or image.ndim != 3 or image.shape[2] != 4:
        return False
    ratio = image.shape[0] / image.shape[1]
    return 1.3 <= ratio <= 1.7 and float(image[..., 3].mean()) > 200


def render_deck(name: str, path: Path, style: str, out_dir: Path) -> int:
    deck_dir = out_dir / name
    deck_dir.mkdir(parents=True, exist_ok=True)
    text = gzip.decompress(path.read_bytes()).decode("utf-8", "replace") if path.suffix == ".svgz" \
        else path.read_text("utf-8", "replace")
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        svg = tmp / "deck.svg"
        svg.write_text(text, "utf-8")
        if style == "aisleriot":
            if not (deck_dir / "HR.png").exists():
                _sheet_cells(svg, deck_dir, tmp)
        else:
            for code, element in card_ids(text, style).items():
                target = deck_dir / f"{code}.png"
                if target.exists():
                    continue
                subprocess.run(["rsvg-convert", "-u", "-i", element, "-w", str(WIDTH), "-b", "none",
                                str(svg), "-o", str(target)], check=False, capture_output=True)
                if target.exists() and not _good_render(target):
                    target.unlink()
    return len(list(deck_dir.glob("*.png")))


def main(argv: list[str]) -> int:
    four_colour = "--four-colour" in argv
    argv = [a for a in argv if a != "--four-colour"]
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    out_dir = Path(argv[0])
    for name, path, style in deck_sources(four_colour):
        n = render_deck(name, path, style, out_dir)
        print(f"{name}: {n} faces", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
