"""The play-zone camera adapter: frames through the real card reader into controller inputs.

A thread takes frames (a USB/Pi camera, or :class:`hardware.cameras.simulated.SimulatedTableCamera` which
renders the simulated table), reads every seat's zone with :class:`vision.table.TableReader`, settles the
readings with :class:`vision.stabiliser.Stabiliser` (a set counts once it reads the same in ``stable_frames``
frames) and feeds the controller ``CardsSeen`` (a play laid, or cards in a zone not on turn) and
``ZoneCleared``. Cards found outside every zone come in as ``CardsSeen("outside", ...)`` (exposed cards).

A real camera runs at ``fps``. The simulated one renders only while its scene has changed and not yet
settled, so a simulation at full speed spends no time on frames that cannot change anything.

About once a second the frame is also searched for the four table markers
(:class:`vision.tracking.CalibrationTracker`): a table that started with its markers covered calibrates as soon
as they show, and a bumped camera or table moves the zones with the markers. A camera that stops delivering
frames is reopened every few seconds. Each of these is reported as a :class:`CameraNotice` (an alert for the
referee: ``camera_lost``, ``camera_restored``, ``camera_moved``, ``camera_uncalibrated``, ...).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from guandan import SEATS
from table_daemon.controller import CameraNotice, CardsSeen, Input, TurnChanged, ZoneCleared
from vision.types import UNREADABLE

log = logging.getLogger(__name__)
#: frames a simulated camera renders at most after its scene changed (a flickering misread stops there)
MAX_FRAMES_AFTER_CHANGE = 30
#: seconds without a frame before the camera counts as lost, and between attempts to reopen it
LOST_AFTER = 2.0
REOPEN_EVERY = 3.0
#: while frames keep failing, one summary line at most this often (seconds): the first failure is logged, then
#: how many failed since, so a camera missing all evening neither floods the SD card nor buries the log
SAY_FAILING_EVERY = 60.0
#: frames kept (downscaled to EVIDENCE_WIDTH px, as JPEG) as pictures for the referee's alerts, by frame number:
#: 960 px shows a laid card's index to a referee (at 480 the cards were about 70 px wide and unreadable), and
#: kept as JPEG the eight take well under a megabyte
EVIDENCE_FRAMES = 8
EVIDENCE_WIDTH = 960
EVIDENCE_QUALITY = 80


def unsure_below(configured: float, card_reader: Any) -> float:
    """The confidence under which a card is unsure: ``camera.min_confidence``, or with 0 the card reader's own
    threshold (``sure``)."""
    return configured or float(card_reader.sure)


class CameraZones:
    """Camera + reader + stabiliser. ``simulated``: the camera is the simulated table (``lay``/``clear``)."""

    def __init__(self, camera: Any, reader: Any, *, fps: float = 15.0, stable_frames: int = 2,
                 simulated: bool = False, outside: bool = False, tracker: Any = None,
                 make_reader: Callable[[Any], Any] | None = None,
                 clock: Callable[[], float] = time.monotonic, unsure_wait_frames: int = 8,
                 min_confidence: float = 0.6) -> None:
        """``reader`` may be None when the table is not calibrated yet: ``make_reader(calibration)`` makes one
        once ``tracker`` (a :class:`vision.tracking.CalibrationTracker`) has seen the markers. An unsure set
        (a card under ``min_confidence``: the table's ``camera.min_confidence``, else the card reader's own
        ``sure``; the controller judges plays by the same, :attr:`min_confidence`) waits up to
        ``unsure_wait_frames`` frames for a sure reading before it goes to the referee; meanwhile it is offered to
        the controller as provisional, which takes it at once if the seat's hand settles it."""
        from vision.stabiliser import Stabiliser

        self.camera = camera
        self.reader = reader
        self.tracker = tracker
        self.make_reader = make_reader
        self.clock = clock
        self.lost_since: float | None = None
        self.lost = False
        self._last_good = clock()
        self._last_reopen = 0.0
        self.min_confidence = min_confidence
        # holds numbered from the time in milliseconds: the controller's record of a play taken from a hold is not
        # matched by a hold of a camera restarted since
        self.stabiliser = Stabiliser(frames=stable_frames, patience=unsure_wait_frames, min_confidence=min_confidence,
                                     early=True, holds_from=time.time_ns() // 1_000_000)
        self.stable_frames = stable_frames
        self.period = 1.0 / fps if fps > 0 else 0.0
        self.simulated = simulated
        self.outside = outside
        self.feed: Callable[[Input], None] = lambda _e: None
        self.on_turn: str | None = None
        self.frames = 0
        self._evidence: OrderedDict[int, bytes] = OrderedDict()
        self.errors = 0
        # the run of failed frames now going on (_say_failed): since when, how many, how many not yet logged,
        # when it was last logged, and the reopen attempts that failed in it
        self._failing_since: float | None = None
        self._failed_run = 0
        self._failed_unsaid = 0
        self._failed_said_at = 0.0
        self._reopen_failures = 0
        self.last_confidence: float | None = None
        self._fps = 0.0
        self._pending = MAX_FRAMES_AFTER_CHANGE
        self._same = 0
        self._version = 0
        self._last: dict[str, tuple[str, ...]] | None = None
        self._wake = threading.Condition()
        self._camera_lock = threading.Lock()
        self._relaid: set[str] = set()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def simulated_table(cls, seed: int = 0, *, fps: float = 0.0, stable_frames: int = 2,
                        unsure_wait_frames: int = 8, min_confidence: float = 0.0, deck: str | None = None,
                        reader: str | None = None, runtime: str = "opencv") -> CameraZones:
        """The simulated table's camera (drawing ``deck``: by default a held-out design chosen by ``seed``) read
        by the card reader ``reader`` (by default the learned one, its network run by ``runtime``)."""
        from hardware.cameras.simulated import SimulatedTableCamera
        from vision.calibration import TableCalibration
        from vision.readers import make_card_reader
        from vision.table import TableReader
        from vision.tracking import CalibrationTracker

        camera = SimulatedTableCamera(seed=seed, deck=deck)
        card_reader = make_card_reader(reader or None, table=True, runtime=runtime)

        def make_reader(cal: TableCalibration) -> TableReader:
            return TableReader(cal, skip_still=True, card_reader=card_reader)

        return cls(camera, make_reader(camera.calibration), fps=fps, stable_frames=stable_frames, simulated=True,
                   tracker=CalibrationTracker(camera.calibration), make_reader=make_reader,
                   unsure_wait_frames=unsure_wait_frames, min_confidence=unsure_below(min_confidence, card_reader))

    @classmethod
    def from_config(cls, cam: Any) -> CameraZones:
        """From the ``[camera]`` config section: ``sim://`` (the simulated table; ``sim://?deck=...`` names its
        deck design), a camera URL of :func:`hardware.cameras.open_camera` (``picamera://``, ``usb://0``,
        ``replay:///path``) or a bare device (``/dev/video0``, ``0``) for OpenCV. The card reader is
        ``cam.reader`` (by default the one ``cam.deck`` was enrolled for, else the learned one)."""
        if cam.source.startswith("sim://"):
            from hardware.cameras.simulated import deck_in_url

            return cls.simulated_table(fps=cam.fps, stable_frames=cam.stable_frames,
                                       unsure_wait_frames=cam.unsure_wait_frames, min_confidence=cam.min_confidence,
                                       deck=deck_in_url(cam.source), reader=cam.reader, runtime=cam.runtime)
        from hardware.cameras import open_camera_or_wait
        from vision.calibration import TableCalibration
        from vision.readers import make_card_reader
        from vision.table import TableReader
        from vision.tracking import CalibrationTracker

        # a camera missing at start-up does not stop the table: it is reported lost and tried again
        camera = open_camera_or_wait(_camera_url(cam), pi_camera_settings(cam))
        card_reader = make_card_reader(cam.reader or None, Path(cam.deck) if cam.deck else None, table=True,
                                       runtime=cam.runtime)
        # a saved calibration (organiser-checked zones) or none: the markers calibrate as soon as they show
        calibration = TableCalibration.load(Path(cam.calibration)) if cam.calibration else None

        def make_reader(cal: TableCalibration) -> TableReader:
            return TableReader(cal, skip_still=True, card_reader=card_reader)

        return cls(camera, make_reader(calibration) if calibration else None, fps=cam.fps,
                   stable_frames=cam.stable_frames, outside=True, make_reader=make_reader,
                   tracker=CalibrationTracker(calibration, move_px=cam.move_px),
                   unsure_wait_frames=cam.unsure_wait_frames,
                   min_confidence=unsure_below(cam.min_confidence, card_reader))

    # -- life cycle ----------------------------------------------------------------------------------------
    def start(self, feed: Callable[[Input], None]) -> None:
        self.feed = feed
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        with self._wake:
            self._wake.notify_all()
        if self._thread is not None:
            self._thread.join(5)
        close = getattr(self.camera, "close", None)
        if close is not None:
            close()

    def turn_changed(self, ef: TurnChanged) -> None:
        """Listener for the app's turn effects: the stabiliser tells a play from an exposed card by it."""
        if ef.asked in ("play", "declare") or ef.seat is None:
            self.on_turn = ef.seat

    # -- the simulated table ----------------------------------------------------------------------------------
    def lay(self, seat: str, cards: Sequence[str]) -> None:
        with self._camera_lock:  # the simulated scene is not thread-safe: never change it mid-frame
            self.camera.lay(seat, list(cards))
            self._relaid.add(seat)  # a fresh set: reported anew even when it reads like the last one
        self._changed()

    def clear(self, seat: str) -> None:
        with self._camera_lock:
            self.camera.clear(seat)
        self._changed()

    def _changed(self) -> None:
        with self._wake:
            self._pending = MAX_FRAMES_AFTER_CHANGE
            self._same = 0
            self._version += 1
            self._wake.notify_all()

    # -- the frame loop -----------------------------------------------------------------------------------------
    def _run(self) -> None:
        started = time.monotonic()
        while not self._stop.is_set():
            if self.simulated:
                with self._wake:
                    while self._pending <= 0 and not self._stop.is_set():
                        self._wake.wait(0.5)
                    self._pending -= 1
            t0 = time.monotonic()
            if not self.take():
                time.sleep(0.2)
            self._fps = self.frames / max(1e-6, time.monotonic() - started)
            if self.period and not self.simulated:
                time.sleep(max(0.0, self.period - (time.monotonic() - t0)))

    def take(self) -> bool:
        """One frame through the reader (``step``); a failed frame is a camera fault, never the end of the table."""
        try:
            self.step()
        except Exception as exc:
            self.errors += 1
            self._say_failed(exc)
            self._frame_failed(exc)
            return False
        if self._failing_since is not None:
            self._say_back()
        return True

    def _say_failed(self, exc: Exception) -> None:
        """Log a failed frame without flooding: the first of a run, then at most one line every
        ``SAY_FAILING_EVERY`` seconds saying how many failed since (a missing camera fails ~5 times a second,
        all evening). Health and the ``camera_lost`` alert say the camera's state; this is only the log."""
        now = self.clock()
        self._failed_run += 1
        if self._failing_since is None:
            self._failing_since = self._failed_said_at = now
            self._failed_unsaid = 0
            log.warning("摄像头取帧失败 camera frame failed: %s (while it keeps failing, one line a minute)", exc)
            return
        self._failed_unsaid += 1
        if now - self._failed_said_at >= SAY_FAILING_EVERY:
            reopened = f", {self._reopen_failures} reopen attempts failed" if self._reopen_failures else ""
            log.warning("摄像头仍无画面 camera frame still failing: %d failures in the last %.0f s, %d since %.0f s "
                        "ago%s; last: %s", self._failed_unsaid, now - self._failed_said_at, self._failed_run,
                        now - self._failing_since, reopened, exc)
            self._failed_said_at = now
            self._failed_unsaid = 0

    def _say_back(self) -> None:
        """One line when frames come back after a run of failures (how many, for how long), and the run ends."""
        since = self._failing_since if self._failing_since is not None else self.clock()
        log.warning("摄像头恢复 camera frames back after %d failed frames over %.1f s", self._failed_run,
                    self.clock() - since)
        self._failing_since = None
        self._failed_run = self._failed_unsaid = self._reopen_failures = 0

    def _frame_failed(self, exc: Exception) -> None:
        """No frame: after ``LOST_AFTER`` seconds the camera is lost (said once) and reopened now and then."""
        now = self.clock()
        if not self.lost and now - self._last_good >= LOST_AFTER:
            self.lost = True
            self.lost_since = now
            self._notice("camera_lost", f"no frame for {now - self._last_good:.1f} s: {exc}")
        reopen = getattr(self.camera, "reopen", None)
        if self.lost and reopen is not None and now - self._last_reopen >= REOPEN_EVERY:
            self._last_reopen = now
            try:
                reopen()
            except Exception as again:
                # said once per run of failures; the minute's summary counts the rest (every 3 s is a flood too)
                self._reopen_failures += 1
                if self._reopen_failures == 1:
                    log.warning("reopening the camera failed: %s (tried again every %.0f s)", again, REOPEN_EVERY)

    def _notice(self, what: str, detail: str, **evidence: Any) -> None:
        log.warning("camera: %s (%s)", what, detail)
        self.feed(CameraNotice(what, detail, evidence))

    def _track(self, frame: Any) -> None:
        """Look for the table markers when it is time; follow a moved table, or calibrate a new one."""
        from vision.calibration import find_markers
        from vision.tracking import CALIBRATED, MOVED

        now = self.clock()
        if self.tracker is None or not (self.tracker.due(now) or self.tracker.glance(frame)):
            return
        news = self.tracker.update(find_markers(frame), now, (frame.shape[1], frame.shape[0]))
        self.tracker.remember(frame)
        if news is None:
            return
        if news.kind in (CALIBRATED, MOVED) and news.calibration is not None:
            if self.reader is not None and hasattr(self.reader, "recalibrate"):
                self.reader.recalibrate(news.calibration)
            elif self.make_reader is not None:
                self.reader = self.make_reader(news.calibration)
            # the stabiliser keeps what it reported: cards that read the same after the move are not new plays
        # the facts only: the words a referee reads are the controller's (controller/camera.py)
        detail = f"markers seen {list(news.seen)}" + (f", shift {news.shift_px:.0f} px" if news.shift_px else "")
        self._notice(f"camera_{news.kind}", detail, **news.to_json())

    def _zones_known(self) -> bool:
        """Whether the play areas are where the reader looks: a calibration, and no move waiting on a second look."""
        return self.reader is not None and (self.tracker is None or (
            not self.tracker.unsettled and self.tracker.calibration is not None))

    def step(self) -> None:
        """Take and read one frame; feed what it settles."""
        with self._camera_lock:
            frame = self.camera.frame()
            version = self._version
            relaid, self._relaid = self._relaid, set()
        self.frames += 1
        self._last_good = self.clock()
        if self.lost:
            self.lost = False
            lost_for = self._last_good - (self.lost_since or self._last_good)
            self._notice("camera_restored", f"after {lost_for:.1f} s", lost_seconds=round(lost_for, 1))
        for seat in sorted(relaid):
            self.stabiliser.reset(seat)
            self.feed(ZoneCleared(seat, self.frames))
        self._track(frame)
        if not self._zones_known():
            return  # no zones yet, the view moved out of them, or its new place is being confirmed
        readings = self.reader.read(frame, outside=self.outside) if self.outside else self.reader.read(frame)
        codes = {zone: tuple(r.card for r in rs) for zone, rs in readings.items()}
        observations = self.stabiliser.update(readings, self.on_turn)
        if self.simulated:  # the scene is still: stop rendering once every zone has read the same long enough
            with self._wake:
                if version == self._version:  # the scene did not change while this frame was read
                    self._same = self._same + 1 if codes == self._last else 0
                    if self._same >= self.stable_frames and not self.stabiliser.waiting:
                        self._pending = 0
            self._last = codes
        if any(obs.kind != "cleared" for obs in observations):
            self._keep_evidence(frame)
        for obs in observations:
            if obs.kind == "cleared":
                if obs.zone in SEATS:
                    self.feed(ZoneCleared(obs.zone, self.frames))
                continue
            confidence = min(obs.confidences) if obs.confidences else 1.0
            self.last_confidence = confidence
            read = [i for i, c in enumerate(obs.cards) if c != UNREADABLE]  # a card seen but not read
            cards = [obs.cards[i] for i in read]
            candidates = [[(code, round(float(p), 4)) for code, p in obs.candidates[i]] for i in read] \
                if len(obs.candidates) == len(obs.cards) else []
            self.feed(CardsSeen(obs.zone, cards, round(confidence, 4), self.frames,
                                unreadable=len(obs.cards) - len(cards), candidates=candidates,
                                provisional=obs.provisional, wait=obs.wait))

    def _keep_evidence(self, frame: Any) -> None:
        """Keep a small copy of a frame that settled a reading: an alert about it shows it to the referee."""
        try:
            import cv2

            h, w = frame.shape[:2]
            small = cv2.resize(frame, (EVIDENCE_WIDTH, max(1, h * EVIDENCE_WIDTH // w))) if w > EVIDENCE_WIDTH \
                else frame.copy()
            gain = float(getattr(self.reader, "exposure_gain", 1.0))
            if gain > 1.0:  # a dim hall: the referee sees the frame as brightened for reading (vision.table)
                small = cv2.convertScaleAbs(small, alpha=gain)
            ok, data = cv2.imencode(".jpg", small, [int(cv2.IMWRITE_JPEG_QUALITY), EVIDENCE_QUALITY])
            if not ok:
                return
        except Exception as exc:  # no picture is no reason to lose the reading
            log.debug("evidence frame not kept: %s", exc)
            return
        with self._camera_lock:
            self._evidence[self.frames] = bytes(data)
            while len(self._evidence) > EVIDENCE_FRAMES:
                self._evidence.popitem(last=False)

    def evidence_jpeg(self, frame_no: int) -> bytes | None:
        """Frame ``frame_no`` as a JPEG, if it is still kept (the frames that settled recent readings)."""
        with self._camera_lock:
            return self._evidence.get(frame_no)

    def health(self) -> dict[str, Any]:
        out = {"source": "simulated" if self.simulated else "camera", "frames": self.frames,
               "fps": round(self._fps, 2), "errors": self.errors, "confidence": self.last_confidence,
               "lost": self.lost,
               "calibrated": self.reader is not None and (self.tracker is None or self.tracker.calibration is not None),
               "moves": self.tracker.moves if self.tracker is not None else 0, "state": "ok"}
        # a camera never opened (unplugged at boot, wrong camera_num) is missing; one that stopped is lost
        if getattr(self.camera, "is_open", True) is False:
            out["state"], out["error"] = "missing", str(getattr(self.camera, "error", "not open"))
        elif self.lost:
            out["state"] = "lost"
        inner = self.camera if hasattr(self.camera, "notes") else getattr(self.camera, "_camera", None)
        notes = list(getattr(inner, "notes", None) or [])  # settings a Pi camera cannot apply (fixed-focus lens, ...)
        gain = getattr(self.reader, "exposure_gain", None)
        if gain is not None:  # the table brightens a frame darker than the camera was set for (vision.table)
            out["exposure_gain"] = round(float(gain), 2)
            out["dim"] = bool(getattr(self.reader, "too_dim", False))
            if out["dim"]:
                notes.append("摄像头过暗 the hall is darker than brightening the frames can make up for: set the "
                             "camera's exposure again (vision calibrate --camera)")
        if notes:
            out["notes"] = notes
        return out


def pi_camera_settings(cam: Any) -> Any:
    """The :class:`hardware.cameras.picamera.PiCameraSettings` of a ``[camera]`` section (0 / -1 / []: automatic)."""
    from hardware.cameras.picamera import PiCameraSettings

    gains = tuple(cam.colour_gains) if len(cam.colour_gains) == 2 else None
    return PiCameraSettings(camera_num=cam.camera_num,
                            lens_position=cam.lens_position if cam.lens_position >= 0 else None,
                            exposure_us=cam.exposure_us or None, analogue_gain=cam.analogue_gain or None,
                            colour_gains=gains, flicker_hz=cam.flicker_hz, fps=cam.fps)


def _camera_url(cam: Any) -> str:
    """The ``open_camera`` URL of a ``[camera]`` section: a bare device is a USB camera; the section's size is
    asked for unless the URL names one."""
    url = cam.source if "://" in cam.source else f"usb://{cam.source}"
    if "width=" in url:
        return url
    return f"{url}{'&' if '?' in url else '?'}width={cam.width}&height={cam.height}"
