"""Generated deck designs: held out by type family, each design fixed by its own font, court art lent."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

font_faces = pytest.importorskip("vision.training.font_faces")


def test_a_family_is_held_out_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every weight and style of a type face, and its metric clones, fall on one side of the split; the
    simulated camera's held-out families are always held out."""
    families = {"Lato-Italic.ttf": "lato", "Lato-Bold.ttf": "lato", "Arimo-Bold.ttf": "liberation",
                "LiberationSans-Regular.ttf": "liberation", "Foo-Regular.ttf": "foo", "Foo-Black.ttf": "foo"}
    monkeypatch.setattr(font_faces, "family", lambda font: families[font.name])
    assert font_faces.held_out(Path("Lato-Italic.ttf")) and font_faces.held_out(Path("Lato-Bold.ttf"))
    assert font_faces.held_out(Path("Arimo-Bold.ttf")) and font_faces.held_out(Path("LiberationSans-Regular.ttf"))
    assert font_faces.held_out(Path("Foo-Regular.ttf")) == font_faces.held_out(Path("Foo-Black.ttf"))


def test_family_names_merge_styles_and_clones(monkeypatch: pytest.MonkeyPatch) -> None:
    class FakeFont:
        def __init__(self, name: str) -> None:
            self.name = name

        def getname(self) -> tuple[str, str]:
            return self.name, "Regular"

    names = {"a.ttf": "Liberation Sans Narrow", "b.ttf": "Arimo", "c.ttf": "Noto Serif Display",
             "d.ttf": "Open Sans Condensed", "e.ttf": "Open Sans"}
    monkeypatch.setattr(font_faces.ImageFont, "truetype", lambda path, size: FakeFont(names[Path(path).name]))
    font_faces.family.cache_clear()
    try:
        keys = {name: font_faces.family(Path(name)) for name in names}
    finally:
        font_faces.family.cache_clear()
    assert keys == {"a.ttf": "liberation", "b.ttf": "liberation", "c.ttf": "noto", "d.ttf": "open", "e.ttf": "open"}


def test_a_design_depends_on_its_font_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Installing another font leaves every other design as it was (the layout is drawn from the seed and the
    font's own name, not from its place in the list)."""
    fonts = tuple(Path(f"/fonts/F{i}.ttf") for i in range(6))
    monkeypatch.setattr(font_faces, "held_out", lambda font: False)
    monkeypatch.setattr(font_faces, "latin_fonts", lambda: fonts)
    before = {d.font: d for d in font_faces.designs(1, held=False)}
    monkeypatch.setattr(font_faces, "latin_fonts", lambda: (Path("/fonts/A0.ttf"),) + fonts[::2])
    after = {d.font: d for d in font_faces.designs(1, held=False)}
    assert all(after[f] == before[f] for f in fonts[::2])
    assert len({d.seed for d in before.values()}) == len(fonts)
    assert font_faces.designs(2, held=False)[0] != font_faces.designs(1, held=False)[0]


def test_symbol_fonts_are_not_letters(tmp_path: Path) -> None:
    for stem in font_faces.NOT_LETTERS:
        assert not font_faces._has_latin(tmp_path / f"{stem}.ttf")


def test_court_art_is_drawn_on_court_cards_only() -> None:
    fonts = font_faces.latin_fonts()
    if not fonts:
        pytest.skip("no Latin font installed")
    design = font_faces.designs(1, held=False)[0] if font_faces.designs(1, held=False) \
        else font_faces.designs(1, held=True)[0]
    art = np.zeros((200, 140, 3), np.uint8)
    art[:, :, 1] = 200  # a green picture: no generated design has green court cards of its own
    king = font_faces.render(design, "SK", court_art=font_faces.court_picture(art))
    ten = font_faces.render(design, "ST", court_art=art)
    h, w = king.shape[:2]
    middle = king[h // 3: 2 * h // 3, w // 3: 2 * w // 3].astype(int)
    assert (middle[..., 1] - middle[..., 2] > 100).mean() > 0.5  # the lent picture fills the frame
    corner = king[: int(0.15 * h), : int(0.23 * w)].astype(int)
    assert not (corner[..., 1] - corner[..., 2] > 100).any()  # the index's corner keeps the design's own ink
    assert np.array_equal(ten, font_faces.render(design, "ST"))
