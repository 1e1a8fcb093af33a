"""Enrolling a deck for the learned reader: from one photo per card, the exemplars of ``vision.net.enrolled``.

For each photo (named by its card's code, ``vision.files.labelled_images``) the reader's own steps give the
windows it would read: card regions (``vision.card_regions``) and the whole photo, each rectified in its four
quarter turns, with the proposals of their index band (``vision.net.proposals``), and the whole-photo spotting
windows (``vision.net.spotting.spot_windows``), as ``vision/training/real_data.py`` collects them. Kept as the
card's windows, at most ``PER_PHOTO`` of them:

- *the index by its place*: in an upright card-shaped region, the proposal nearest the top-left corner, when the
  network says an index starts there (``P(none)`` under one half), whichever card it reads. These are the
  windows enrolment exists for: the network sees an index but may misread this deck's design;
- *the network's own reading*: any window the network reads as the labelled card, likeliest of all classes.
  These add the views the reader will meet at the table (other corner, spotted in other directions).

Other windows are not used: a pip or a picture read as some other card is no exemplar of anything (and the
enrolled reader leaves "not an index" to the network anyway). Each kept window gives ``AUGMENT`` exemplars more
by small changes of scale, rotation, shift, brightness and contrast, so that one photo gives several.

**The guard** (``guard``): enrolment never reads worse than no enrolment on views it was not given. Held-back
views of the enrolment photos (other, stronger random changes of each kept window, with noise and JPEG, never
stored) are read by the plain network and by the enrolled one, leaving out the exemplars made from the same
window (leave-one-view-out: a card is then recognised from its *other* views only). A blend passes when the
enrolled reader reads at least as many of them right above the accept threshold, with no more wrong above it
and no fewer best readings right, as the network alone (a blend that fails is tried again at half its weight,
a few times). The deck keeps the passing blend with the most right less ten times wrong readings; when none
passes, weight 0: the network alone. What it tried and decided is kept in the deck's report.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from ..card_regions import cards_on_surfaces, is_card_shaped
from ..files import ImageError, labelled_images, load_image
from ..geometry import CARD_H, Region, rectify, whole_image_region
from ..index import BAND, ink_mask
from ..polarity import lit, printed_views
from ..types import CARD_CODES
from .enrolled import DEFAULT_BLEND, Blend, EnrolledDeck, deck_reading, model_fingerprint
from .network import NONE, IndexNet
from .proposals import CROP, crops, propose
from .spotting import spot_windows

#: windows kept from one photo, and exemplars made from each by small changes (besides itself)
PER_PHOTO = 8
AUGMENT = 5
#: held-back views of each kept window for the guard
HELD_BACK = 3
#: how wide (card heights) an upright card-shaped region of an enrolment photo may be and still be taken as the one
#: card the photo holds, its top-left proposal the index by place. Not the readers' ``single_card_width`` (where a
#: region starts to be read as a fan, 0.80 for the learned reader since a tight pair at the table measured 0.83):
#: an enrolment photo holds one card by what it is, so a card seen a little aslant may be wider
ONE_CARD_PHOTO_WIDTH = 0.85
#: the corner where a card's top-left index starts, as a share of the upright card's width and height
CORNER_X, CORNER_Y = 0.3, 0.16
#: a region of a photo at least this share of it is taken as the card (smaller ones are printed on it)
MIN_CARD = 0.08
#: halvings of the weight the guard tries before the network alone
HALVINGS = 3
#: the blends the guard tries besides the default: other temperatures at the default's ``near`` (on
#: cardcounter's calibration photos a lower ``near`` added wrong readings, ``vision.net.enrolled.DEFAULT_BLEND``)
GUARD_BLENDS = tuple(Blend(t, 1.0, DEFAULT_BLEND.near) for t in (0.01, 0.02, 0.05))


@dataclass(frozen=True)
class PhotoWindows:
    """The windows of one enrolment photo kept as its card's, and why."""

    code: str
    name: str
    windows: np.ndarray  # (K, CROP, CROP, 3) uint8
    by_place: int  # of them, how many were the index by its place (the rest: the network's own reading)
    read_as: str  # the network's reading of the surest index-place window ("?" when none)
    read_p: float = 0.0  # the network's probability of that reading (calibrated; 0 when none)


def candidate_windows(image: np.ndarray) -> tuple[np.ndarray, list[bool]]:
    """Every window the reader would read in ``image`` and, for each, whether it is an index by its place (the
    proposal nearest the top-left corner of an upright card-shaped region). Regions are shown as the reader shows
    them (``polarity.as_printed``: a card printed light on dark turned over, a dim one brightened), else a dark
    deck's cards gave no window at their index's place (its ink is lighter than its paper)."""
    total = float(image.shape[0] * image.shape[1])
    regions: list[Region] = [r for r in cards_on_surfaces(image)[:6]
                             if r.area >= MIN_CARD * total and is_card_shaped(r)]
    regions.append(whole_image_region(image))
    out: list[np.ndarray] = []
    place: list[bool] = []
    for region in regions:
        for turn in range(4):
            upright, _ = rectify(image, region, turn)
            for _, flat in printed_views(upright):  # a dark deck turned over, a dim one brightened
                mask, _ = ink_mask(flat[: int(BAND * CARD_H)])
                glyphs = propose(mask)
                if not glyphs:
                    continue
                upright_card = is_card_shaped(region) and flat.shape[1] <= ONE_CARD_PHOTO_WIDTH * CARD_H
                corner = [g for g in glyphs if g.x < CORNER_X * flat.shape[1] and g.y < CORNER_Y * CARD_H]
                first = min(corner, key=lambda g: g.x + g.y) if upright_card and corner else None
                out.append(crops(flat, glyphs))
                place += [g is first for g in glyphs]
    _, spotted, _, _ = spot_windows(lit(image))
    out.append(spotted)
    place += [False] * len(spotted)
    windows = np.concatenate(out) if out else np.empty((0, CROP, CROP, 3), np.uint8)
    return windows, place


def select_windows(net: IndexNet, code: str, name: str, windows: np.ndarray, place: list[bool]) -> PhotoWindows:
    """The windows of one photo kept as ``code``'s (see the module's docstring), surest first."""
    empty = PhotoWindows(code, name, np.empty((0, CROP, CROP, 3), np.uint8), 0, "?", 0.0)
    if len(windows) == 0:
        return empty
    probs = net.predict(windows)
    none = net.classes.index(NONE)
    want = net.classes.index(code)
    cards = probs.copy()
    cards[:, none] = -1.0
    reads = cards.argmax(axis=1)
    by_place = [i for i in range(len(windows)) if place[i] and probs[i, none] < 0.5]
    own = [i for i in range(len(windows)) if not (place[i] and probs[i, none] < 0.5) and reads[i] == want
           and probs[i, want] >= probs[i, none]]
    by_place.sort(key=lambda i: probs[i, none])
    own.sort(key=lambda i: -probs[i, want])
    kept = (by_place + own)[:PER_PHOTO]
    if not kept:
        return empty
    read_as = net.classes[int(reads[by_place[0]])] if by_place else "?"
    read_p = float(cards[by_place[0], reads[by_place[0]]]) if by_place else 0.0
    return PhotoWindows(code, name, windows[kept], min(len(by_place), PER_PHOTO), read_as, read_p)


def augment(window: np.ndarray, rng: np.random.Generator, strong: bool = False) -> np.ndarray:
    """``window`` a little scaled, turned, shifted, brighter or darker, more or less contrasted; ``strong``
    (the guard's held-back views): more so, with sensor noise and JPEG, as a camera at the table sees it."""
    k = 2.0 if strong else 1.0
    angle = float(rng.uniform(-8, 8)) * k
    scale = float(np.exp(rng.uniform(-0.1, 0.11) * k))
    matrix: np.ndarray = cv2.getRotationMatrix2D((CROP / 2, CROP / 2), angle, scale)
    matrix[:, 2] += rng.uniform(-1.5, 1.5, 2) * k
    out = cv2.warpAffine(window, matrix, (CROP, CROP), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    x = out.astype(np.float32) / 255.0
    x = np.clip((x - 0.5) * rng.uniform(0.75, 1.2) + 0.5, 0, 1) ** rng.uniform(0.8, 1.25) * rng.uniform(0.7, 1.1)
    if rng.random() < 0.3 * k:
        x = cv2.GaussianBlur(x, (3, 3), float(rng.uniform(0.4, 0.9)))
    if strong:
        x = x + rng.normal(0, rng.uniform(0.01, 0.03), x.shape).astype(np.float32)
    out = np.clip(x * 255.0 + 0.5, 0, 255).astype(np.uint8)
    if strong:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(50, 90))])
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else out
        if decoded is None:
            raise RuntimeError("a view did not decode from its own JPEG")
        out = decoded
    return out


@dataclass(frozen=True)
class Views:
    """Stored exemplar windows and held-back views, each tagged with its card and the window it came from."""

    stored: np.ndarray
    stored_codes: list[str]
    stored_source: np.ndarray
    held: np.ndarray
    held_codes: list[str]
    held_source: np.ndarray


def views_of(photos: list[PhotoWindows], seed: int = 11) -> Views:
    rng = np.random.default_rng(seed)
    stored: list[np.ndarray] = []
    held: list[np.ndarray] = []
    stored_codes: list[str] = []
    held_codes: list[str] = []
    stored_source: list[int] = []
    held_source: list[int] = []
    source = 0
    for photo in photos:
        for window in photo.windows:
            stored += [window] + [augment(window, rng) for _ in range(AUGMENT)]
            stored_codes += [photo.code] * (AUGMENT + 1)
            stored_source += [source] * (AUGMENT + 1)
            held += [augment(window, rng, strong=True) for _ in range(HELD_BACK)]
            held_codes += [photo.code] * HELD_BACK
            held_source += [source] * HELD_BACK
            source += 1
    empty = np.empty((0, CROP, CROP, 3), np.uint8)
    return Views(np.stack(stored) if stored else empty, stored_codes, np.array(stored_source, int),
                 np.stack(held) if held else empty, held_codes, np.array(held_source, int))


def guard(net: IndexNet, views: Views, stored_embeddings: np.ndarray, mix: Blend) -> tuple[Blend, dict[str, object]]:
    """The blend to keep and the figures it was decided on (see the module's docstring): of ``mix`` and the
    ``GUARD_BLENDS``, each with its weight halved up to ``HALVINGS`` times, those that read the held-back views
    no worse than the network alone; of them the one with the most right readings above the threshold less ten
    times the wrong ones (the first on a tie); none: weight 0, the network alone."""
    if len(views.held) == 0:
        return replace_weight(mix, 0.0), {"held_back_views": 0, "decided": "no views: network alone"}
    logits, embeddings = net.run(views.held)
    probs = net.calibrated(logits)
    none = net.classes.index(NONE)
    want = np.array([net.classes.index(c) for c in views.held_codes])
    columns = np.array([net.classes.index(c) for c in views.stored_codes])
    sims = embeddings @ stored_embeddings.T
    sims[views.held_source[:, None] == views.stored_source[None, :]] = -np.inf  # leave one view out
    per_class = np.full((len(embeddings), len(net.classes)), np.nan, np.float32)
    for column in np.unique(columns):
        best = sims[:, columns == column].max(axis=1)
        per_class[:, column] = np.where(np.isfinite(best), best, np.nan)

    def figures(p: np.ndarray) -> dict[str, int]:
        cards = p.copy()
        cards[:, none] = -1.0
        read = cards.argmax(axis=1)
        sure = cards.max(axis=1) >= net.accept
        return {"best_right": int((read == want).sum()), "right_above": int((sure & (read == want)).sum()),
                "wrong_above": int((sure & (read != want)).sum())}

    plain = figures(probs)
    tried: list[dict[str, object]] = []
    chosen: tuple[int, Blend] | None = None
    for candidate in dict.fromkeys((mix, *GUARD_BLENDS)):
        weight = candidate.weight
        for _ in range(HALVINGS + 1):
            blended = replace_weight(candidate, weight)
            got = figures(deck_reading(probs, per_class, blended, none, (net.accept, net.spot_accept)))
            tried.append({**asdict(blended), **got})
            if got["right_above"] >= plain["right_above"] and got["wrong_above"] <= plain["wrong_above"] \
                    and got["best_right"] >= plain["best_right"]:
                gain = got["right_above"] - 10 * got["wrong_above"]
                if chosen is None or gain > chosen[0]:
                    chosen = (gain, blended)
                break
            weight /= 2
    report: dict[str, object] = {"held_back_views": len(views.held), "network_alone": plain, "tried": tried}
    if chosen is None:
        return replace_weight(mix, 0.0), report | {"decided": "network alone (no blend read the held-back views "
                                                               "as well as the network alone)"}
    return chosen[1], report | {"decided": "the deck's exemplars with the network (they read the held-back views no "
                                           "worse than the network alone)", "blend": asdict(chosen[1])}


def replace_weight(mix: Blend, weight: float) -> Blend:
    return Blend(mix.temperature, weight, mix.near)


def enrol_windows(net: IndexNet, photos: list[PhotoWindows], mix: Blend = DEFAULT_BLEND,
                  use_guard: bool = True) -> EnrolledDeck:
    """The enrolled deck of ``photos``' kept windows, its blend checked by the guard."""
    views = views_of(photos)
    if len(views.stored) == 0:
        raise ImageError("没有找到可登记的牌角 / no card index found in any enrolment photo")
    _, embeddings = net.run(views.stored)
    chosen, decision = guard(net, views, embeddings, mix) if use_guard else (mix, {"decided": "no guard"})
    missing = sorted(set(CARD_CODES) - {p.code for p in photos})
    report: dict[str, object] = {"photos": len(photos), "windows": int(sum(len(p.windows) for p in photos)),
                                 "exemplars": len(views.stored), "missing": missing, "guard": decision,
                                 "misread_by_place": {p.name: p.read_as for p in photos
                                                      if p.by_place and p.read_as != p.code},
                                 "surely_misread": surely_misread(net, photos)}
    return EnrolledDeck(tuple(views.stored_codes), embeddings, model_fingerprint(net), chosen, report)


def surely_misread(net: IndexNet, photos: Iterable[PhotoWindows]) -> dict[str, str]:
    """Photo (or place) name -> the card the network reads its index as, where it reads another card than the
    photo is named (or laid) as, and is sure of it (at the reader's accept threshold). The network is rarely
    sure and wrong, so these are mostly photos misnamed or cards laid out of order: said, never enrolled
    silently under a name the photo contradicts."""
    return {p.name: p.read_as for p in photos
            if p.by_place and p.read_as not in (p.code, "?") and p.read_p >= net.accept}


def photo_windows(net: IndexNet, code: str, name: str, image: np.ndarray) -> PhotoWindows:
    windows, place = candidate_windows(image)
    return select_windows(net, code, name, windows, place)


def enrol_images(net: IndexNet, images: Iterable[tuple[str, str, np.ndarray]], total: int,
                 progress: Callable[[str], None] = lambda _: None, mix: Blend = DEFAULT_BLEND,
                 use_guard: bool = True) -> tuple[EnrolledDeck, list[str]]:
    """Enrol (code, name, image) triples; returns the deck and the problems (photos without an index)."""
    photos: list[PhotoWindows] = []
    problems: list[str] = []
    for i, (code, name, image) in enumerate(images, 1):
        photo = photo_windows(net, code, name, image)
        if len(photo.windows):
            photos.append(photo)
            progress(f"[{i}/{total}] {name}: {code}, {len(photo.windows)} windows "
                     f"({photo.by_place} by place; the network reads {photo.read_as})")
        else:
            problems.append(f"{name}: 找不到牌角 / no index of {code} found")
            progress(f"[{i}/{total}] {name}: {code}, no index found")
    deck = enrol_windows(net, photos, mix, use_guard)
    for name, read in surely_misread(net, photos).items():
        code = next(p.code for p in photos if p.name == name)
        problems.append(f"{name}: 牌角清楚地读作 {read}，而不是 {code}，请核对照片的牌名 / the network reads it surely as "
                        f"{read}, not {code}: check that the photo is of {code}")
    if deck.report["missing"]:
        missing = deck.report["missing"]
        assert isinstance(missing, list)
        problems.append(f"缺少 {len(missing)} 张牌 / no photo for {len(missing)} card(s): {' '.join(missing)}")
    return deck, problems


def enrol_folder(folder: Path, net: IndexNet, progress: Callable[[str], None] = lambda _: None,
                 mix: Blend = DEFAULT_BLEND) -> tuple[EnrolledDeck, list[str]]:
    """Enrol one photo per card from ``folder`` (files named by card code); unreadable files are problems."""
    files = list(labelled_images(folder))
    if not files:
        raise ImageError(f"文件夹里没有以牌名命名的照片 / no photos named by card code in {folder}")
    problems: list[str] = []

    def images() -> Iterable[tuple[str, str, np.ndarray]]:
        for path, code in files:
            try:
                yield code, path.name, load_image(path)
            except ImageError as exc:
                problems.append(str(exc))

    deck, more = enrol_images(net, images(), len(files), progress, mix)
    return deck, problems + more
