"""Card faces drawn with the machine's TrueType fonts (Pillow), for designs no card-art package has.

Training data for the index network (``train_net.py``): every installed font that has Latin capitals and digits
becomes a deck design, with a random index layout (suit pip below the rank, or beside it), index size (small to
jumbo), ink colours (two-colour or four-colour decks), paper tint, border, "10" set tight or loose, and jokers
that say JOKER down the corner, carry Chinese text (大王 / 小王) or show a picture; court cards carry the court
art of a Debian deck when one is given (``render(..., court_art=...)``). Fonts are split into training and
held-out designs by *family* (every weight and style of a typeface, and its metric clones, on one side), so a
figure on the held-out ones is a figure on unseen type, not on the bold of a font trained in italic.

Training only: needs Pillow (``pip install -e '.[train]'``) and Debian font packages (see ``vision/README.md``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from vision.render import draw_suit
from vision.types import BLACK_JOKER, CARD_CODES, JOKERS, RED_JOKER, RED_SUITS

FONT_DIRS = (Path("/usr/share/fonts"),)
SUIT_CHARS = {"S": "\u2660", "H": "\u2665", "C": "\u2663", "D": "\u2666"}
CJK_FONTS = ("wqy-microhei.ttc", "wqy-zenhei.ttc")
#: share of font families kept out of training (chosen by a hash of the family, the same on every machine)
HELD_OUT_SHARE = 0.15
#: families always held out: those of the simulated camera's held-out decks (``hardware/cameras/decks``), so
#: that the simulated table reads type the network never saw
HELD_FAMILIES = frozenset({"noto", "liberation", "lato", "roboto"})
#: families that are one design under several names (metric clones drawn from the same outlines)
FAMILY_ALIASES = {"arimo": "liberation", "tinos": "liberation", "cousine": "liberation", "freesans": "urw",
                  "freeserif": "urw", "freemono": "urw", "nimbus": "urw", "c059": "urw", "p052": "urw",
                  "z003": "urw", "d050000l": "urw", "standard": "urw"}
#: fonts whose letters are not letters (symbols, dingbats, keyboard keys, boxed OCR forms): a card drawn with
#: them would be labelled with a rank it does not show
NOT_LETTERS = frozenset({"D050000L", "StandardSymbolsPS", "LinBiolinum_K", "OCRBE", "OCRBX"})


@dataclass(frozen=True)
class Design:
    """One generated deck design: a font and the layout choices drawn for it."""

    font: Path
    seed: int
    beside: bool  # suit pip to the right of the rank instead of below it
    index_scale: float  # rank glyph height over card width
    four_colour: bool
    tight_ten: bool
    joker_style: str  # "letters" | "chinese" | "picture"
    suit_from_font: bool
    border: bool

    @property
    def jokers_alike(self) -> bool:
        """Both jokers carry the same colourful picture and ornaments, and only their index's ink tells the big
        joker (red) from the small one (black), as in many real decks; drawn from the design's own seed, so the
        other layout choices of every design stay as they were."""
        return np.random.default_rng([self.seed, 1]).random() < 0.4

    @property
    def joker_word(self) -> bool:
        """The joker's index is the word written across the corner ("Joker" or "JOKER"), not letters down it."""
        return self.joker_style == "letters" and np.random.default_rng([self.seed, 2]).random() < 0.4


def _has_latin(path: Path) -> bool:
    if path.stem in NOT_LETTERS:
        return False
    try:
        font = ImageFont.truetype(str(path), 40)
    except OSError:
        return False
    tofu = font.getmask("\ue000").getbbox()
    for ch in ("Q", "8", "K"):
        box = font.getmask(ch).getbbox()
        if box is None or box == tofu:
            return False
    # a symbol or picture font draws something for every code point: the letters must differ
    return bytes(font.getmask("Q")) != bytes(font.getmask("8"))


@lru_cache(maxsize=1)
def latin_fonts() -> tuple[Path, ...]:
    """Every installed font file that draws Latin capitals and digits, sorted."""
    files = sorted({p for d in FONT_DIRS if d.is_dir() for p in d.rglob("*") if p.suffix.lower() in (".ttf", ".otf")})
    return tuple(p for p in files if _has_latin(p))


@cache
def family(font: Path) -> str:
    """The typeface a font file belongs to: the first word of its family name, lower case, metric clones
    merged ("Liberation Sans Narrow" and "Arimo" are "liberation"; "Noto Serif Display" is "noto")."""
    try:
        name = ImageFont.truetype(str(font), 20).getname()[0] or font.stem
    except OSError:
        name = font.stem
    first = name.replace("-", " ").replace("_", " ").split()[0].lower()
    return FAMILY_ALIASES.get(first, first)


def held_out(font: Path) -> bool:
    """True for the fonts never trained on: their whole family is held out."""
    key = family(font)
    return key in HELD_FAMILIES or hashlib.sha256(key.encode()).digest()[0] / 256.0 < HELD_OUT_SHARE


def designs(seed: int, *, held: bool) -> list[Design]:
    """One design per font of the training (``held=False``) or held-out set, its layout drawn from ``seed`` and
    the font's name (installing another font leaves every other design as it was)."""
    out = []
    for font in latin_fonts():
        if held_out(font) != held:
            continue
        rng = np.random.default_rng([seed, int.from_bytes(hashlib.sha256(font.name.encode()).digest()[:4], "big")])
        out.append(Design(font, int(rng.integers(1 << 30)), beside=bool(rng.random() < 0.2),
                          index_scale=float(rng.uniform(0.1, 0.2)), four_colour=bool(rng.random() < 0.15),
                          tight_ten=bool(rng.random() < 0.5),
                          joker_style=str(rng.choice(["letters", "chinese", "picture"], p=[0.5, 0.3, 0.2])),
                          suit_from_font=bool(rng.random() < 0.5), border=bool(rng.random() < 0.4)))
    return out


def _colour(code: str, design: Design, rng: np.random.Generator) -> tuple[int, int, int]:
    """Ink colour as RGB."""
    if code == RED_JOKER:
        return (int(rng.integers(170, 235)), int(rng.integers(0, 40)), int(rng.integers(0, 50)))
    if code == BLACK_JOKER:
        return (int(rng.integers(0, 60)),) * 3
    suit = code[0]
    if design.four_colour and suit == "C":
        return (0, int(rng.integers(110, 150)), int(rng.integers(20, 70)))
    if design.four_colour and suit == "D":
        return (int(rng.integers(0, 40)), int(rng.integers(60, 120)), int(rng.integers(170, 230)))
    if suit in RED_SUITS:
        return (int(rng.integers(170, 235)), int(rng.integers(0, 40)), int(rng.integers(0, 50)))
    return (int(rng.integers(0, 50)),) * 3


def _text(draw: ImageDraw.ImageDraw, font_path: Path, text: str, x: float, top: float, height: float,
          fill: tuple[int, int, int]) -> tuple[float, float]:
    """Draw ``text`` with its ink ``height`` pixels high and its ink's top-left at (x, top); returns (w, h)."""
    probe = ImageFont.truetype(str(font_path), 100)
    box = probe.getbbox(text)
    ink_h = max(box[3] - box[1], 1)
    font = ImageFont.truetype(str(font_path), max(6, round(100 * height / ink_h)))
    box = font.getbbox(text)
    draw.text((x - box[0], top - box[1]), text, font=font, fill=fill)
    return float(box[2] - box[0]), float(box[3] - box[1])


def _suit(img: np.ndarray, draw: ImageDraw.ImageDraw, design: Design, suit: str, cx: float, top: float,
          size: float, fill: tuple[int, int, int]) -> None:
    if design.suit_from_font:
        symbol_font = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
        if symbol_font.exists():
            probe = ImageFont.truetype(str(symbol_font), 100).getbbox(SUIT_CHARS[suit])
            width = (probe[2] - probe[0]) * size / max(probe[3] - probe[1], 1)
            _text(draw, symbol_font, SUIT_CHARS[suit], cx - width / 2, top, size, fill)
            return
    draw_suit(img, suit, cx, top + size / 2, size, fill)


def _cjk_font() -> Path | None:
    for d in FONT_DIRS:
        for name in CJK_FONTS:
            found = list(d.rglob(name))
            if found:
                return found[0]
    return None


def _corner(img: np.ndarray, design: Design, code: str, width: int, fill: tuple[int, int, int],
            rng: np.random.Generator) -> None:
    """The top-left index, drawn into ``img`` (RGB, the top half of the face)."""
    pil = Image.fromarray(img)
    draw = ImageDraw.Draw(pil)
    h = width * design.index_scale
    left = width * float(rng.uniform(0.035, 0.07))
    top = width * float(rng.uniform(0.04, 0.08))
    if code in JOKERS:
        if design.joker_style == "chinese" and (cjk_font := _cjk_font()) is not None:
            for i, ch in enumerate("大王" if code == RED_JOKER else "小王"):
                _text(draw, cjk_font, ch, left, top + i * h * 1.15, h * 0.95, fill)
        elif design.joker_style == "picture":
            cx, cy, r = left + 0.5 * h, top + 0.6 * h, 0.55 * h
            star = [(cx + r * np.sin(a) * (1 if k % 2 == 0 else 0.45), cy - r * np.cos(a) * (1 if k % 2 == 0 else 0.45))
                    for k, a in enumerate(np.linspace(0, 2 * np.pi, 11)[:-1])]
            draw.polygon([tuple(p) for p in star], fill=fill)
            _text(draw, design.font, "JOKER", left, top + 1.4 * h, 0.35 * h, fill)
        elif design.joker_word:
            word = "Joker" if np.random.default_rng([design.seed, 3]).random() < 0.5 else "JOKER"
            _text(draw, design.font, word, left, top, h * 0.7, fill)
        else:
            for i, letter in enumerate("JOKER"):
                _text(draw, design.font, letter, left, top + i * h * 0.78, h * 0.62, fill)
        if design.jokers_alike:
            _ornaments(draw, design, left, top, h)
        img[:] = np.asarray(pil)
        return
    rank = code[1]
    if rank == "T":
        if design.tight_ten:
            w, _ = _text(draw, design.font, "10", left, top, h, fill)
        else:
            w1, _ = _text(draw, design.font, "1", left, top, h, fill)
            w0, _ = _text(draw, design.font, "0", left + w1 + 0.12 * h, top, h, fill)
            w = w1 + 0.12 * h + w0
    else:
        w, _ = _text(draw, design.font, rank, left, top, h, fill)
    img[:] = np.asarray(pil)
    pil = Image.fromarray(img)
    draw = ImageDraw.Draw(pil)
    size = h * float(rng.uniform(0.7, 0.95))
    if design.beside:
        _suit(img, draw, design, code[0], left + w + 0.2 * h + size / 2, top + 0.05 * h, size, fill)
    else:
        _suit(img, draw, design, code[0], left + max(w, 0.7 * h) / 2, top + h * 1.18, size, fill)
    img[:] = np.maximum(0, np.minimum(img, np.asarray(pil)))


def _joker_colours(design: Design) -> list[tuple[int, int, int]]:
    """The picture colours both jokers of a ``jokers_alike`` design share."""
    rng = np.random.default_rng([design.seed, 4])
    return [(int(r), int(g), int(b)) for r, g, b in (rng.integers(0, 255, 3) for _ in range(3))]


def _ornaments(draw: ImageDraw.ImageDraw, design: Design, left: float, top: float, h: float) -> None:
    """Small coloured stars and moons about a joker's index (the same on both jokers of the design)."""
    rng = np.random.default_rng([design.seed, 5])
    colour = _joker_colours(design)[0]
    for _ in range(int(rng.integers(2, 5))):
        cx, cy = left + float(rng.uniform(-0.2, 2.5)) * h, top + float(rng.uniform(0.9, 2.2)) * h
        r = float(rng.uniform(0.12, 0.3)) * h
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=colour)


def court_picture(face: np.ndarray) -> np.ndarray:
    """The middle of a court card's face (BGR), inside its corner indices: the picture to lend another design."""
    h, w = face.shape[:2]
    return face[round(0.17 * h): round(0.83 * h), round(0.2 * w): round(0.8 * w)]


def _centre(img: np.ndarray, design: Design, code: str, width: int, height: int, fill: tuple[int, int, int],
            rng: np.random.Generator, court_art: np.ndarray | None = None) -> None:
    """Pips, a court picture (``court_art``, BGR, when given) or a joker picture in the middle of the face."""
    pil = Image.fromarray(img)
    draw = ImageDraw.Draw(pil)
    x0, x1 = width * 0.24, width * 0.76
    y0, y1 = height * 0.16, height * 0.84
    if code in JOKERS:
        colours = _joker_colours(design) if design.jokers_alike \
            else [tuple(int(c) for c in rng.integers(0, 255, 3)) for _ in range(3)] if code == RED_JOKER \
            else [(40, 40, 40), (110, 110, 110), (0, 0, 0)]
        for i, c in enumerate(colours):
            r = (x1 - x0) * (0.5 - 0.13 * i)
            draw.ellipse((width / 2 - r, height / 2 - r, width / 2 + r, height / 2 + r), fill=c)
        if rng.random() < 0.5:
            _text(draw, design.font, "JOKER", x0, y0, (x1 - x0) * 0.22, fill)
        img[:] = np.asarray(pil)
        return
    rank = code[1]
    if rank in "JQK" and court_art is not None:
        box = (round(x0), round(y0), round(x1), round(y1))
        art = cv2.resize(court_art, (box[2] - box[0], box[3] - box[1]), interpolation=cv2.INTER_AREA)
        img[box[1]:box[3], box[0]:box[2]] = np.minimum(img[box[1]:box[3], box[0]:box[2]],
                                                       cv2.cvtColor(art, cv2.COLOR_BGR2RGB))
        if rng.random() < 0.6:
            cv2.rectangle(img, box[:2], (box[2] - 1, box[3] - 1), fill, max(1, width // 100), cv2.LINE_AA)
        return
    if rank in "JQK":
        draw.rectangle((x0, y0, x1, y1), outline=fill, width=max(1, width // 100))
        for _ in range(6):
            c = tuple(int(v) for v in rng.integers(0, 255, 3))
            bx, by = rng.uniform(x0, x1), rng.uniform(y0, y1)
            r = rng.uniform(0.05, 0.18) * width
            draw.ellipse((bx - r, by - r, bx + r, by + r), fill=c)
        _text(draw, design.font, rank, width * 0.4, height * 0.4, height * 0.18, fill)
        img[:] = np.asarray(pil)
        return
    img[:] = np.asarray(pil)
    n = {"A": 1, "T": 10}.get(rank) or int(rank)
    cols = 1 if n <= 3 else 2
    rows = (n + cols - 1) // cols
    size = width * (0.36 if n == 1 else 0.13)
    for i in range(n):
        col, row = i % cols, i // cols
        cx = width * (0.5 if cols == 1 else 0.37 + 0.26 * col)
        cy = height * (0.5 if rows == 1 else 0.26 + 0.48 * row / (rows - 1))
        draw_suit(img, code[0], cx, cy, size, fill)


def render(design: Design, code: str, width: int = 240, court_art: np.ndarray | None = None) -> np.ndarray:
    """The face of ``code`` in ``design`` as a BGR image; a court card shows ``court_art`` (BGR) when given."""
    rng = np.random.default_rng([design.seed, CARD_CODES.index(code)])
    layout_rng = np.random.default_rng(design.seed)  # the same corner placement on every card of the deck
    height = round(width * float(layout_rng.uniform(1.38, 1.56)))
    paper = np.array([255, 255, 255]) - layout_rng.integers(0, 25, 3) * np.array([0.3, 0.6, 1.0])
    img = np.empty((height, width, 3), np.uint8)
    img[:] = paper.astype(np.uint8)
    fill = _colour(code, design, rng)
    _centre(img, design, code, width, height, fill, rng, court_art)
    half = np.empty((height // 2, width, 3), np.uint8)
    half[:] = paper.astype(np.uint8)
    _corner(half, design, code, width, fill, np.random.default_rng(design.seed + 1))
    img[: height // 2] = np.minimum(img[: height // 2], half)
    img[height - height // 2:] = np.minimum(img[height - height // 2:], half[::-1, ::-1])
    if design.border:
        inset = round(width * 0.025)
        cv2.rectangle(img, (inset, inset), (width - 1 - inset, height - 1 - inset), fill, 1, cv2.LINE_AA)
    cv2.rectangle(img, (0, 0), (width - 1, height - 1), (170, 170, 170), 1)
    return cv2.cvtColor(img, cv2.COLOR_RGB2BGR)
