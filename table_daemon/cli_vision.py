"""``guandan-table vision ...``: the card reader from the command line (contract: shared/spec/cli.md).

- ``classify IMAGE... [--deck PROFILE]``: one JSON line per image, cards left to right.
- ``enroll DIR --out PROFILE [--reader glyphs|net]``: learn a deck from one photo per card (progress on stderr);
  ``enroll --spread IMAGE... --out PROFILE``: from photos of the whole deck laid out in order (net reader);
  ``enroll --camera URL|--config TABLE.toml --views DIR --out PROFILE [--photos N]``: the same, photographed by the
  table's own camera, the empty table first, one photo each time Enter is pressed (kept in DIR).
- ``eval DIR [--deck PROFILE]``: accuracy on a folder of single-card photos named by card code.
- ``calibrate IMAGE --out FILE``: seat zones from the table's four corner markers.
- ``markers --out DIR [--mm 60]``: the four corner markers as printable PNGs (300 dpi, with their quiet zone).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from table_daemon.cli import UsageError
from table_daemon.cli_support import number

HELP = "读牌 card reader: classify photos, enrol a deck (登记牌面), measure accuracy"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("vision", help=HELP, description=HELP)
    sub = parser.add_subparsers(dest="vision_command", metavar="ACTION")
    sub.required = True
    classify = sub.add_parser("classify", help="读取照片中的牌 read the cards in images (JSON lines)")
    classify.add_argument("images", nargs="+", type=Path, metavar="IMAGE")
    classify.add_argument("--deck", type=Path, metavar="PROFILE", help="登记过的牌面 enrolled deck profile")
    classify.add_argument("--reader", choices=("glyphs", "net"), default=None,
                          help="net: the learned index network (default; the better reader of real photos, "
                               "bench/vision.py); glyphs: the glyph rules (the table's reader on the simulated "
                               "camera). With --deck, the reader the deck was enrolled for")
    classify.set_defaults(handler=_classify)
    enroll = sub.add_parser("enroll", help="登记一副牌 enrol a deck: one photo per card (SQ.jpg, HR.png ...), the deck "
                                           "laid out in order (--spread), or under the table camera (--camera)")
    enroll.add_argument("folder", type=Path, metavar="DIR", nargs="?")
    enroll.add_argument("--out", type=Path, required=True, metavar="PROFILE")
    enroll.add_argument("--reader", choices=("glyphs", "net"), default="net",
                        help="the reader the profile is for (as classify --reader; default net)")
    enroll.add_argument("--spread", type=Path, nargs="+", metavar="IMAGE",
                        help="摆牌登记 photos of the whole deck laid out apart in rows: spades, hearts, clubs, "
                             "diamonds, each A to K, then the jokers (small, big); the order runs on from photo to "
                             "photo (net reader)")
    enroll.add_argument("--empty", type=Path, metavar="IMAGE",
                        help="with --spread: the same table photographed empty by the same camera (the cards are then "
                             "found by what changed, on any cloth)")
    enroll.add_argument("--camera", metavar="URL",
                        help="摆牌登记，用牌桌摄像头拍照 photograph the spread with this camera (picamera://, usb://0, "
                             "replay:///path): the empty table first, then one photo each time Enter is pressed")
    enroll.add_argument("--config", type=Path, metavar="TABLE.toml",
                        help="photograph the spread with the table config's camera, with its Pi camera settings")
    enroll.add_argument("--views", type=Path, metavar="DIR", help="with --camera/--config: where the photos are kept")
    enroll.add_argument("--photos", type=int, default=1,
                        help="with --camera/--config: how many photos the spread takes (default 1)")
    enroll.set_defaults(handler=_enroll)
    evaluate = sub.add_parser("eval", help="准确率 accuracy on a folder of photos named by card code (10h.jpg ok)")
    evaluate.add_argument("folder", type=Path, metavar="DIR")
    evaluate.add_argument("--deck", type=Path, metavar="PROFILE")
    evaluate.add_argument("--reader", choices=("glyphs", "net"), default=None, help="as classify --reader")
    evaluate.add_argument("--verbose", action="store_true", help="print every wrong reading on stderr")
    evaluate.set_defaults(handler=_eval)
    calibrate = sub.add_parser("calibrate", help="标定牌桌 find the 4 corner markers (ArUco 4x4 ids 0-3) and "
                               "write the seat zones; with --camera or --config, guide mounting and focus live",
                               description="From IMAGE: write the seat zones. Live (--camera URL or --config "
                               "TABLE.toml): every --every seconds a view of the camera is measured (markers seen "
                               "and their distance from the edge, focus as the variance of the Laplacian, "
                               "exposure), saved annotated in --views DIR (latest.jpg and view-NNNN.jpg) and "
                               "printed as a JSON line with advice; the last view with all four markers gives "
                               "--out. Stop with Ctrl-C or --count.")
    calibrate.add_argument("image", type=Path, nargs="?", metavar="IMAGE", help="a camera frame of the empty table")
    calibrate.add_argument("--out", type=Path, metavar="FILE", help="calibration JSON to write")
    calibrate.add_argument("--camera", metavar="URL", help="live: picamera://, usb://0, replay:///path, sim://")
    calibrate.add_argument("--config", type=Path, metavar="TABLE.toml",
                           help="live: the table config's camera, with its Pi camera settings")
    calibrate.add_argument("--views", type=Path, metavar="DIR", help="live: folder for the annotated views")
    calibrate.add_argument("--count", type=int, default=0, help="live: stop after N views (default: Ctrl-C)")
    calibrate.add_argument("--every", type=number, default=1.0, help="live: seconds between views (default 1)")
    calibrate.set_defaults(handler=_calibrate)
    markers = sub.add_parser("markers", help="打印桌角标记 write the 4 corner markers as printable PNGs (300 dpi)")
    markers.add_argument("--out", type=Path, required=True, metavar="DIR")
    markers.add_argument("--mm", type=number, default=60.0, help="printed side in millimetres (default 60)")
    markers.set_defaults(handler=_markers)


def _reader(deck_path: Path | None) -> Any:
    """The glyph reader (with a glyph deck profile)."""
    return _reader_named("glyphs", deck_path)


def _index_net() -> Any:
    from vision.net.network import IndexNet
    from vision.net.network import ModelMissingError as NetModelMissing

    try:
        return IndexNet()
    except NetModelMissing as exc:
        raise UsageError(str(exc)) from exc


def _reader_named(name: str | None, deck_path: Path | None) -> Any:
    """The reader ``--reader`` names; unnamed, the one ``deck_path`` was enrolled for, else the learned one."""
    from vision.readers import ReaderError, make_card_reader

    try:
        return make_card_reader(name, deck_path)
    except ReaderError as exc:
        raise UsageError(str(exc)) from exc


def _classify(args: argparse.Namespace) -> int:
    from vision.files import ImageError, load_image

    reader = _reader_named(args.reader, args.deck)
    status = 0
    for path in args.images:
        try:
            image = load_image(path)
        except ImageError as exc:
            print(f"guandan-table: error: {exc}", file=sys.stderr)
            # cards is a list (cli.md's shape) even here; the "error" field says the image was never read, so
            # this [] is not the [] of "read, no card seen"
            print(json.dumps({"image": str(path), "cards": [], "error": str(exc)}, ensure_ascii=False), flush=True)
            status = 2
            continue
        readings = reader.read_image(image)
        line = {"image": str(path), "cards": [r.to_json() for r in readings]}
        print(json.dumps(line, ensure_ascii=False), flush=True)
    return status


def _enroll(args: argparse.Namespace) -> int:
    from vision.enrol import enrol_folder
    from vision.files import ImageError

    if args.camera or args.config:
        if args.spread or args.empty or args.folder is not None or args.reader == "glyphs":
            raise UsageError("--camera/--config photograph a spread for the net reader (no DIR, no --spread, no "
                             "--empty, no --reader glyphs) / 摄像头摆牌登记只用于网络读牌")
        args.empty, *args.spread = _spread_photos(args)
        return _enroll_net(args)
    if args.empty and not args.spread:
        raise UsageError("--empty goes with --spread (the empty table's photo for the spread photos)")
    if args.spread:
        if args.folder is not None or args.reader == "glyphs":
            raise UsageError("--spread enrols for the net reader from the spread photos alone (no DIR, no "
                             "--reader glyphs) / 摆牌登记只用于网络读牌")
        return _enroll_net(args)
    if args.folder is None or not args.folder.is_dir():
        raise UsageError(f"not a folder: {args.folder}")
    if args.reader == "net":
        return _enroll_net(args)
    reader = _reader(None)
    try:
        profile, problems = enrol_folder(args.folder, reader, lambda msg: print(msg, file=sys.stderr, flush=True))
    except ImageError as exc:
        raise UsageError(str(exc)) from exc
    _save(profile, problems, args.out)
    print(f"enrolled {len(set(profile.codes))} cards into {args.out}", file=sys.stderr)
    return 0


def _spread_photos(args: argparse.Namespace) -> list[Path]:
    """The empty table, then the spread, photographed by the table's camera: one photo each time Enter is
    pressed, kept in ``--views``, so that the deck is enrolled as the table sees it (its light, lens and height),
    its cards are found by what changed from the empty table (on any cloth), and it can be enrolled again from the
    files (``--spread ... --empty``). After each photo the cards found are counted and shown labelled
    (``spread-N-found.jpg``), and "r" then Enter takes that photo again."""
    import cv2

    from hardware.cameras import CameraError

    if args.photos < 1:
        raise UsageError("--photos must be 1 or more")
    _views_folder(args.views, "enrolling from the camera needs --views DIR (the spread photos are kept there)")

    def answer(number: int) -> str:
        line = sys.stdin.readline()
        if not line:
            raise UsageError(f"no Enter for photo {number} (input closed): nothing enrolled")
        return line.strip().lower()

    def write(path: Path, image: Any) -> None:
        if not cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 95]):
            raise UsageError(f"cannot write {path}")

    camera = _live_camera(args)
    paths: list[Path] = []
    found: list[int] = []  # cards found in each photo taken

    def take() -> Any:
        try:
            return camera.frame()
        except CameraError as exc:
            raise UsageError(f"摄像头没有画面 / no frame from the camera: {exc}") from exc

    try:
        print("先清空桌面（桌角标记留着），按回车拍空桌 / first clear the table (leave the corner markers), then "
              "press Enter: the empty table is photographed", file=sys.stderr, flush=True)
        answer(0)
        empty = take()
        paths.append(args.views / "empty.jpg")
        write(paths[0], empty)
        print(f"已拍 / photographed: {paths[0]}", file=sys.stderr, flush=True)
        number = 1
        print(f"第 1/{args.photos} 张：按 ♠ ♥ ♣ ♦ 各 A 到 K、再小王大王的顺序摆好，牌与牌隔开一指，按回车拍照 / photo 1 of "
              f"{args.photos}: lay out the cards a finger apart (rows ♠ ♥ ♣ ♦ from A to K, then the small and big "
              "jokers), then press Enter", file=sys.stderr, flush=True)
        answer(number)
        while True:
            frame = take()
            path = args.views / f"spread-{number}.jpg"
            write(path, frame)
            count = _show_found(frame, empty, path, sum(found[:number - 1]), write)
            paths[number:], found[number - 1:] = [path], [count]
            if number == args.photos:
                print(f"回车登记，输入 r 回车重拍第 {number} 张 / Enter: enrol; r then Enter: take photo {number} again",
                      file=sys.stderr, flush=True)
            else:
                print(f"第 {number + 1}/{args.photos} 张：接着摆好，按回车拍照（输入 r 回车重拍第 {number} 张）/ photo "
                      f"{number + 1} of {args.photos}: lay out the next cards, then press Enter (r then Enter: take "
                      f"photo {number} again)", file=sys.stderr, flush=True)
            if answer(number) == "r":
                print(f"重拍第 {number} 张：摆好后按回车 / photo {number} again: lay it out, then press Enter",
                      file=sys.stderr, flush=True)
                answer(number)
                continue
            if number == args.photos:
                break
            number += 1
    finally:
        camera.close()
    return paths


def _show_found(frame: Any, empty: Any, path: Path, first: int, write: Callable[[Path, Any], None]) -> int:
    """How many cards of the spread photo ``path`` (``frame``) are found, said on stderr with the places they take in
    the spread's order from ``first`` on, and drawn labelled beside it (``spread-N-found.jpg``): what the organiser
    looks at before going on or taking the photo again."""
    from vision.net.spread import ORDER, annotated, spread_rows

    try:
        rows = spread_rows(frame, empty)
    except ValueError as exc:  # the camera changed its picture's size since the empty table
        raise UsageError(f"{path}: {exc}") from exc
    count = sum(len(r) for r in rows)
    shown = path.with_name(f"{path.stem}-found.jpg")
    write(shown, annotated(frame, rows, first))
    names = f"{ORDER[first]} … {ORDER[min(first + count, len(ORDER)) - 1]}" if count and first < len(ORDER) else "-"
    print(f"已拍 / photographed: {path}; 找到 {count} 张 / found {count} cards "
          f"({' + '.join(str(len(r)) for r in rows) or '0'}), labelled {names}: see {shown}", file=sys.stderr,
          flush=True)
    return count


def _save(profile: Any, problems: list[str], out: Path) -> None:
    """Say what an enrolment could not use, then write its profile (either reader's)."""
    for problem in problems:
        print(f"warning: {problem}", file=sys.stderr)
    try:
        profile.save(out)
    except OSError as exc:
        raise UsageError(f"cannot write profile {out}: {exc}") from exc


def _enroll_net(args: argparse.Namespace) -> int:
    """``enroll --reader net``: exemplars of each card's index for the learned reader (``vision.net.enrolment``)."""
    from vision.files import ImageError
    from vision.net.enrolment import enrol_folder
    from vision.net.spread import SpreadError, enrol_spread

    def progress(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    try:
        if args.spread:
            deck, problems = enrol_spread(list(args.spread), _index_net(), progress, empty=args.empty)
        else:
            deck, problems = enrol_folder(args.folder, _index_net(), progress)
    except (ImageError, SpreadError) as exc:
        raise UsageError(str(exc)) from exc
    _save(deck, problems, args.out)
    used = ("登记的牌样与网络合用 / the deck's exemplars are read with the network (they read the photos' held-back "
            "views no worse than the network alone)" if deck.blend.weight > 0 else
            "登记的牌样未采用，只用网络读牌 / the network reads alone: the exemplars did not read the photos' held-back "
            "views as well")
    print(f"已登记 {len(set(deck.codes))} 张牌 / enrolled {len(set(deck.codes))} cards ({len(deck.codes)} exemplars) "
          f"into {args.out}; {used}", file=sys.stderr)
    return 0


def _eval(args: argparse.Namespace) -> int:
    from vision.files import ImageError, labelled_images, load_image

    if not args.folder.is_dir():
        raise UsageError(f"not a folder: {args.folder}")
    reader = _reader_named(args.reader, args.deck)
    total = correct = unread = 0
    for path, code in labelled_images(args.folder):
        total += 1
        try:
            readings = reader.read_image(load_image(path))
        except ImageError:
            readings = []
        best = max(readings, key=lambda r: r.confidence) if readings else None
        if best is None:
            unread += 1
        elif best.card == code:
            correct += 1
        if args.verbose and (best is None or best.card != code):
            print(f"{path.name}: want {code}, read {best.card if best else None}", file=sys.stderr)
    if total == 0:
        raise UsageError(f"no images named by card code in {args.folder}")
    print(json.dumps({"folder": str(args.folder), "images": total, "correct": correct, "unread": unread,
                      "accuracy": round(correct / total, 4)}))
    return 0


def _calibrate(args: argparse.Namespace) -> int:
    from vision.calibration import CalibrationError, TableCalibration
    from vision.files import ImageError, load_image
    from vision.mounting import view_report

    if args.camera or args.config:
        return _calibrate_live(args)
    if args.image is None or args.out is None:
        raise UsageError("vision calibrate needs IMAGE --out FILE, or --camera URL / --config FILE --views DIR")
    try:
        image = load_image(args.image)
        calibration = TableCalibration.from_markers(image)
        calibration.save(args.out)
    except (ImageError, CalibrationError) as exc:
        raise UsageError(str(exc)) from exc
    except OSError as exc:
        raise UsageError(f"cannot write {args.out}: {exc}") from exc
    _say_exposure(view_report(image).exposure_problem)
    print(json.dumps(calibration.to_json()))
    return 0


def _say_exposure(problem: str | None) -> None:
    """A calibration taken from a view the cards cannot be read in: written (the markers are where they are), and
    said, so that the exposure is set before play."""
    if problem is not None:
        print(f"guandan-table: 注意 / warning: 标定已写入，但这个画面 {problem}; 开赛前请调好曝光 / the calibration is "
              "written, but set the camera's exposure before play (vision calibrate --camera shows each view)",
              file=sys.stderr)


def _views_folder(views: Path | None, missing: str) -> None:
    """The folder a live camera command keeps its pictures in, made; ``missing``: what to say when none is given."""
    if views is None:
        raise UsageError(missing)
    try:
        views.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create {views}: {exc.strerror or exc}") from exc


def _live_camera(args: argparse.Namespace) -> Any:
    from hardware.cameras import CameraError, open_camera
    from table_daemon.adapters.camera import _camera_url, pi_camera_settings
    from table_daemon.config import CameraSection, ConfigError, load_config

    if args.camera and args.config:
        raise UsageError("give --camera or --config, not both")
    try:
        section = load_config(args.config).camera if args.config else CameraSection(source=args.camera)
        return open_camera(_camera_url(section), pi_camera_settings(section))
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    except CameraError as exc:
        raise UsageError(f"摄像头打不开 / cannot open the camera: {exc}") from None


def _calibrate_live(args: argparse.Namespace) -> int:
    """Views of the live camera, measured, annotated and saved, with advice, until Ctrl-C or ``--count``."""
    import time

    import cv2

    from hardware.cameras import CameraError
    from vision.calibration import TableCalibration
    from vision.mounting import annotate, view_report

    if args.count < 0 or args.every < 0:
        raise UsageError("--count and --every must be 0 or more")
    _views_folder(args.views, "live calibration needs --views DIR (the annotated views are saved there)")
    camera = _live_camera(args)
    print(f"摄像头已打开，每 {args.every:g} 秒保存一张到 {args.views}/latest.jpg / camera open: a view every "
          f"{args.every:g} s in {args.views}/latest.jpg; Ctrl-C to stop", file=sys.stderr, flush=True)
    best_focus, ready_frame, number = 0.0, None, 0
    ready_exposure: str | None = None
    try:
        while not args.count or number < args.count:
            if number:
                time.sleep(args.every)
            try:
                frame = camera.frame()
            except CameraError as exc:
                print(f"guandan-table: 没有画面 / no frame: {exc}", file=sys.stderr, flush=True)
                if args.count:
                    number += 1
                continue
            number += 1
            report = view_report(frame, best_focus)
            best_focus = report.best_focus
            picture = annotate(frame, report)
            path = args.views / f"view-{number:04d}.jpg"
            if not (cv2.imwrite(str(path), picture) and cv2.imwrite(str(args.views / "latest.jpg"), picture)):
                raise UsageError(f"cannot write {path}")
            if report.ready:
                ready_frame, ready_exposure = report.markers, report.exposure_problem
            line: dict[str, Any] = {"view": number, "file": str(path), **report.to_json()}
            metadata = getattr(camera, "metadata", None)
            if metadata is not None:  # a Pi camera: what it settled on (copy ColourGains into camera.colour_gains)
                line["camera"] = {k: v for k, v in metadata().items()
                                  if k in ("ExposureTime", "AnalogueGain", "ColourGains", "LensPosition", "Lux")}
            print(json.dumps(line, ensure_ascii=False), flush=True)
            for advice in report.advice:
                print(f"  {advice}", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        camera.close()
    written = None
    if ready_frame is not None and args.out is not None:
        try:
            TableCalibration.from_marker_centres(ready_frame).save(args.out)
        except OSError as exc:
            raise UsageError(f"cannot write {args.out}: {exc}") from exc
        written = str(args.out)
    print(json.dumps({"views": number, "best_focus": round(best_focus, 1), "ready": ready_frame is not None,
                      "calibration": written, "exposure_ok": ready_frame is not None and ready_exposure is None},
                     ensure_ascii=False))
    if written is not None:
        _say_exposure(ready_exposure)
    if args.out is not None and written is None:
        print("guandan-table: error: no view showed all four markers clear of the edge: no calibration written",
              file=sys.stderr)
        return 1
    return 0


def _markers(args: argparse.Namespace) -> int:
    import cv2

    from vision.calibration import MARKER_POSITIONS, marker_image

    if not 20 <= args.mm <= 300:
        raise UsageError("--mm must be between 20 and 300")
    side = int(round(args.mm / 25.4 * 300))
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create {args.out}: {exc.strerror or exc}") from exc
    corner = {0: "N/W", 1: "N/E", 2: "E/S", 3: "S/W"}
    for marker_id in sorted(MARKER_POSITIONS):
        path = args.out / f"table-marker-{marker_id}.png"
        if not cv2.imwrite(str(path), marker_image(marker_id, side)):
            raise UsageError(f"cannot write {path}")
        print(json.dumps({"marker": marker_id, "corner": corner[marker_id], "file": str(path), "mm": args.mm}))
    return 0
