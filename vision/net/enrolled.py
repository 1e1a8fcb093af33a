"""An enrolled deck for the learned reader, and the index network that reads with it (``EnrolledNet``).

An enrolled deck is a set of *exemplars*: embeddings (``IndexNet.run``'s second output, unit length) of windows
that show a known card's corner index in the event's deck (``vision.net.enrolment`` makes them from photos).
``EnrolledNet(net, deck)`` has ``IndexNet.predict``'s interface, so the readers (``vision.net.reader``,
``vision.net.spotting``) read with it unchanged. For each window:

- "not an index" stays the network's: ``P(none)`` is the network's own, so enrolment never turns a pip, a
  picture or the desk into a card, and a window is only taken as a card where the network itself is at least
  the accept threshold sure that an index starts there;
- among the cards, the network's distribution ``p`` is multiplied by the enrolment's evidence: ``q``, a softmax
  over each enrolled card's best cosine similarity with the window (temperature ``tau``), raised to ``weight``,
  and never less than ``1 / DECK_MOST`` of its favourite's (a product of experts: where both agree the reading
  gets surer, where they disagree it gets unsure, so the accept threshold sets it aside rather than take a wrong
  card);
- a window far from every exemplar (best similarity under ``near``) keeps the network's reading; between
  ``near`` and ``near + RAMP`` the enrolment's say grows from none to full; a card that was not enrolled
  counts as being as near as the nearest enrolled one (neither for nor against it: a deck enrolled in part
  only redistributes the network's belief among the enrolled cards).

The blend's values are chosen on photos that are not the test photos (``bench/enrolment.py --choose``: the
calibration part of cardcounter's split) and then checked, deck by deck, by the enrolment's guard, which lowers
``weight`` (to 0: the network alone) when the enrolled reader does not read the enrolment's held-back views at
least as well as the network alone. Deck files are small ``.npz`` files (``KIND``).
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from ..types import CARD_CODES
from .network import NONE, IndexNet

KIND = "guandan-net-deck-1"
#: the glyph reader's profile kind (``vision.deck``): named in the error when one is given to the net reader
GLYPH_KIND = "guandan-deck-profile-3"
#: similarity over ``near`` at which the enrolment has its full say
RAMP = 0.1
#: the most times less likely the deck's evidence makes a card than the card it favours. At the simulated table a
#: deck enrolled from its camera's photos (a held-out design, roboto-condensed) turned the network's sure and right
#: ace of spades (1.0) into a sure ace of clubs: at the blend's temperature (0.01) a similarity 0.1 apart is 22,000
#: times, which no reading of the network withstands. Bounded, a deck tips the readings the network is nearly
#: sure of and makes a disagreement unsure, as the module says, and never outvotes a sure network
DECK_MOST = 100.0


class EnrolledDeckError(ValueError):
    """A deck file that cannot be read, is not an enrolled deck, or was made with another network."""


def enrolled_for(path: Path) -> str:
    """Which reader the deck file ``path`` is for: "glyphs" for the glyph reader's profiles, else "net" (whose
    loader then says what is wrong with a file that is neither)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            return "glyphs" if "kind" in data and str(data["kind"]) == GLYPH_KIND else "net"
    except (OSError, ValueError, EOFError, zipfile.BadZipFile):
        return "net"


@dataclass(frozen=True)
class Blend:
    """How the enrolment's evidence is mixed with the network's reading (see the module's docstring)."""

    temperature: float = 0.02
    weight: float = 1.0
    near: float = 0.92


#: the blend chosen on cardcounter's calibration photos with a deck enrolled from its train photos
#: (``bench/enrolment.py --choose``): there no blend read more cards right than the network alone (40 of the
#: 70 photos' cards above the threshold, 17 wrong), and only those with ``near`` 0.92 added no wrong reading
#: (0.85: 18-19 wrong, 0.7: 23-28); each deck's guard chooses among a few blends on its own held-back views
DEFAULT_BLEND = Blend()


def model_fingerprint(net: IndexNet) -> str:
    """What the embeddings were made with: exemplars of one network mean nothing to another."""
    return hashlib.sha256(net.path.read_bytes()).hexdigest()[:16]


@dataclass(frozen=True)
class EnrolledDeck:
    """Exemplars: ``codes[i]`` is the card whose index window has embedding ``embeddings[i]``."""

    codes: tuple[str, ...]
    embeddings: np.ndarray  # (N, D) float32, unit rows
    model: str
    blend: Blend = DEFAULT_BLEND
    #: what the enrolment measured and decided (photos used, the guard's figures), kept with the deck
    report: dict[str, object] = field(default_factory=dict)

    def with_blend(self, blend: Blend) -> EnrolledDeck:
        return replace(self, blend=blend)

    def save(self, path: Path) -> None:
        with open(path, "wb") as fh:
            np.savez_compressed(fh, kind=np.array(KIND), codes=np.array(self.codes),
                                embeddings=self.embeddings.astype(np.float16), model=np.array(self.model),
                                blend=np.array(json.dumps(asdict(self.blend))),
                                report=np.array(json.dumps(self.report, ensure_ascii=False)))

    @classmethod
    def load(cls, path: Path) -> EnrolledDeck:
        """The deck in ``path``; ``EnrolledDeckError`` (Chinese and English, naming the file) when it is none."""
        bad = f"登记牌面文件无效 / not an enrolled deck file for the net reader: {path}"
        try:
            with open(path, "rb") as fh:
                if fh.read(4) != b"PK\x03\x04":
                    raise EnrolledDeckError(f"{bad} (not an .npz file: enrol again with vision enroll --reader net)")
            with np.load(path, allow_pickle=False) as data:
                kind = str(data["kind"]) if "kind" in data else ""
                if kind == GLYPH_KIND:
                    raise EnrolledDeckError(f"{path} 是字形读牌的登记文件，请用 --reader glyphs / was enrolled for the "
                                            "glyph reader: use it with --reader glyphs, or enrol again with "
                                            "--reader net")
                if kind != KIND:
                    raise EnrolledDeckError(f"{bad} (kind {kind!r}, want {KIND!r}: enrol again)")
                codes = tuple(str(c) for c in data["codes"])
                embeddings = np.asarray(data["embeddings"], np.float32)
                model = str(data["model"])
                blend = Blend(**{k: float(v) for k, v in json.loads(str(data["blend"])).items()})
                report = json.loads(str(data["report"]))
        except EnrolledDeckError:
            raise
        except FileNotFoundError as exc:
            raise EnrolledDeckError(f"登记牌面文件不存在 / no such deck file: {path}") from exc
        except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile) as exc:
            raise EnrolledDeckError(f"{bad} ({type(exc).__name__}: {str(exc)[:200]})") from exc
        if not codes or embeddings.ndim != 2 or embeddings.shape[0] != len(codes) \
                or any(c not in CARD_CODES for c in codes) or not np.isfinite(embeddings).all() \
                or not (blend.temperature > 0 and blend.weight >= 0 and -1 <= blend.near <= 1):
            raise EnrolledDeckError(f"{bad} (its contents do not fit together)")
        norms = np.linalg.norm(embeddings, axis=1, keepdims=True)
        return cls(codes, embeddings / np.maximum(norms, 1e-6), model, blend, report)


class EnrolledNet:
    """``IndexNet`` with an enrolled deck: an ``IndexModel`` with the same ``predict(crops)``, ``classes``, thresholds
    and card calibration as the network alone."""

    def __init__(self, net: IndexNet, deck: EnrolledDeck) -> None:
        if deck.model != model_fingerprint(net):
            raise EnrolledDeckError("登记牌面是用另一个读牌网络做的，请重新登记 / the deck was enrolled with another "
                                    f"index network (model {deck.model}, this one {model_fingerprint(net)}): "
                                    "enrol again")
        if deck.embeddings.shape[1] != net.run(np.zeros((1, 32, 32, 3), np.uint8))[1].shape[1]:
            raise EnrolledDeckError("the deck's embeddings do not fit this index network: enrol again")
        self.net = net
        self.deck = deck
        self.classes = net.classes
        self.path = net.path
        self.temperature = net.temperature
        self.accept = net.accept
        self.spot_accept = net.spot_accept
        #: fitted for the network alone: an enrolled deck's readings are reported on the same curves
        self.card_calibration = net.card_calibration
        self._none = net.classes.index(NONE)
        # exemplars grouped by class column, so that each class's best similarity is one reduction
        columns = np.array([net.classes.index(c) for c in deck.codes])
        order = np.argsort(columns, kind="stable")
        self._grouped = np.ascontiguousarray(deck.embeddings[order].T, np.float32)
        self._groups, self._starts = np.unique(columns[order], return_index=True)

    def run(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.net.run(crops)

    def predict(self, crops: np.ndarray) -> np.ndarray:
        """Calibrated class probabilities (N, classes), the network's mixed with the enrolment's evidence."""
        return self.readings(crops)[0]

    def readings(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``predict``'s probabilities and the network's own, from one run: spotting keeps the deck's say out of
        a glyph whose pairings the network reads as different cards (``spotting.deck_kept_out``)."""
        logits, embeddings = self.net.run(crops)
        own = self.net.calibrated(logits)
        return deck_reading(own, self.similarities(embeddings), self.deck.blend, self._none,
                            (self.accept, self.spot_accept)), own

    def similarities(self, embeddings: np.ndarray) -> np.ndarray:
        """Each window's best cosine similarity with each class's exemplars (N, classes); NaN where none."""
        out = np.full((len(embeddings), len(self.classes)), np.nan, np.float32)
        if len(embeddings) == 0:
            return out
        # einsum, not @: a product this small costs more in the BLAS library's threads than it computes, and
        # their spinning slows the network's own run on the table's few cores (16 ms against 1 ms here)
        sims = np.einsum("nd,de->ne", embeddings.astype(np.float32), self._grouped)
        out[:, self._groups] = np.maximum.reduceat(sims, self._starts, axis=1)
        return out


def blend(probs: np.ndarray, similarities: np.ndarray, mix: Blend, none: int) -> np.ndarray:
    """The network's probabilities ``probs`` (N, classes) mixed with per-class best similarities (NaN: not
    enrolled) as the module's docstring says."""
    if len(probs) == 0 or mix.weight <= 0:
        return probs
    best = np.max(np.where(np.isnan(similarities), -np.inf, similarities), axis=1)
    # a card not enrolled is neither for nor against: as near as the nearest enrolled card
    sims = np.where(np.isnan(similarities), np.maximum(best, mix.near)[:, None], similarities)
    say = np.clip((best - mix.near) / RAMP, 0.0, 1.0)[:, None]
    evidence = say * mix.weight * (sims - sims.max(axis=1, keepdims=True)) / mix.temperature
    evidence = np.maximum(evidence, -np.log(DECK_MOST))  # a bounded expert: it leans a reading, it cannot overturn it
    cards = np.delete(np.arange(probs.shape[1]), none)
    mixed = probs[:, cards] * np.exp(evidence[:, cards])
    mass = 1.0 - probs[:, none]
    out = np.empty_like(probs)
    out[:, cards] = mixed / np.maximum(mixed.sum(axis=1, keepdims=True), 1e-30) * mass[:, None]
    out[:, none] = probs[:, none]
    return out


def deck_reading(own: np.ndarray, similarities: np.ndarray, mix: Blend, none: int,
                 bars: tuple[float, ...]) -> np.ndarray:
    """What the network's probabilities ``own`` become with a deck: blended with its similarities (``blend``),
    then kept to the network's own where the deck would carry a card over one of the thresholds ``bars`` without
    parting it from the runner-up (``sure_only_where_parted``). The reader and the enrolment's guard both read so."""
    return sure_only_where_parted(blend(own, similarities, mix, none), own, none, bars)


#: how many times likelier the deck must find a card than the network's own runner-up for it to carry the
#: network's reading over an accept threshold: a wrong card taken costs about ten laid again (the table's
#: ``seen_choice.SHARE``), so the deck's word must be worth that much
DECK_PARTS = 10.0


def sure_only_where_parted(blended: np.ndarray, own: np.ndarray, none: int, bars: tuple[float, ...]) -> np.ndarray:
    """``blended`` with the network's own reading ``own`` in each row where the deck carried the network's best card
    over one of the accept thresholds ``bars`` without parting it from the network's runner-up by ``DECK_PARTS``.

    At the simulated table (a held-out design with its suit beside its rank, enrolled from a spread) the network
    read a ten of clubs as the ten of spades at 0.9964, under the threshold, and the deck, whose two tens' indices
    are 0.93 alike, agreed by a little (2.4 times) and carried it to 0.9992: a sure card the seat did not hold. A
    deck that can hardly tell two cards apart may not decide between them."""
    if blended is own or len(blended) == 0:
        return blended
    cards = np.delete(np.arange(blended.shape[1]), none)
    rows = np.arange(len(blended))
    top = cards[blended[:, cards].argmax(axis=1)]
    crossed = np.zeros(len(blended), bool)
    for bar in bars:
        crossed |= (blended[rows, top] >= bar) & (own[rows, top] < bar)
    if not crossed.any():
        return blended
    rivals = own[:, cards].copy()
    rivals[rows, np.searchsorted(cards, top)] = -1.0
    runner = cards[rivals.argmax(axis=1)]
    tiny = 1e-12
    deck_says = (blended[rows, top] / np.maximum(blended[rows, runner], tiny)) \
        / (np.maximum(own[rows, top], tiny) / np.maximum(own[rows, runner], tiny))
    undecided = crossed & (deck_says < DECK_PARTS)
    if not undecided.any():
        return blended
    out = blended.copy()
    out[undecided] = own[undecided]
    return out
