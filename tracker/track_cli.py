"""`tablesight track`, `record` and `replay`: the tracker from the command line.

Heavy imports (OpenCV, the detector) happen inside the handlers so `tablesight rules ...`
stays fast. Every user mistake is a TablesightError; a source that fails part-way is reported
with the frame it reached, after everything before it was printed or recorded.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

from calibration.seed_tables import LAYOUT_HELP
from hardware.cli import SIZE_HELP, camera_size
from rules_core.errors import TablesightError

FPS_HELP = "frames per second a folder of images was taken at (default 10; a folder has no clock)"


def register(subparsers: argparse._SubParsersAction) -> None:
    track = subparsers.add_parser(
        "track",
        help="track every model and vehicle through a video, a folder of images or a recording",
        description="Print each frame's tracks: ids that survive hands and lift-and-place moves.",
    )
    track.add_argument(
        "source", metavar="SOURCE", help="a video file, a folder of images (name order) or a .tsr"
    )
    track.add_argument("--layout", help=LAYOUT_HELP + "; a recording's own by default")
    track.add_argument("--intrinsics", help="lens calibration JSON (CAM.json); a recording's own by default")
    track.add_argument("--json", action="store_true", help="JSON lines, one object per frame (CONTRACTS.md)")
    track.add_argument("--fps", type=float, help=FPS_HELP)
    track.add_argument("--size", type=camera_size, metavar="WxH", help=SIZE_HELP)
    track.set_defaults(func=run_track)

    record = subparsers.add_parser(
        "record",
        help="record a game (frames, events, manifest) into one crash-safe file",
        description="Record frames and the game's events into GAME.tsr; a crash loses at most a second.",
    )
    record.add_argument("--source", required=True, help="picamera2, camera:N, a URL, a video or a folder")
    record.add_argument("--layout", required=True, help=LAYOUT_HELP)
    record.add_argument("--intrinsics", help="lens calibration JSON (CAM.json)")
    record.add_argument("-o", "--output", required=True, metavar="GAME.tsr", help="the recording to write")
    record.add_argument("--ruleset", default="world-at-fire", help="ruleset id (default world-at-fire)")
    mode = record.add_mutually_exclusive_group()
    mode.add_argument(
        "--stills", action="store_true", help="keep frames only when the scene changes (default)"
    )
    mode.add_argument("--every", type=int, metavar="N", help="keep every Nth frame instead")
    record.add_argument(
        "--quality", type=int, default=85, help="JPEG quality of recorded frames (default 85)"
    )
    record.add_argument("--fps", type=float, help=FPS_HELP)
    record.add_argument("--size", type=camera_size, metavar="WxH", help=SIZE_HELP)
    record.set_defaults(func=run_record)

    replay = subparsers.add_parser(
        "replay",
        help="rerun the pipeline on a recording and write the game report",
        description="Replay a recorded game through the same pipeline; check it gives the same events.",
    )
    replay.add_argument("recording", metavar="RECORDING", help="a .tsr file written by tablesight record")
    replay.add_argument(
        "--report",
        metavar="REPORT.json",
        help="write the game report (per-turn positions, moves, verdicts) as JSON",
    )
    replay.add_argument("--json", action="store_true", help="also print each frame's tracks as JSON lines")
    replay.set_defaults(func=run_replay)


def _open_frames(spec: str, fps: float | None, verb: str, size: tuple[int, int] | None = None):
    """The frames `spec` names; `fps` spaces a folder of images in time (it has no clock of its
    own, and the gate's hands-still and re-detection times are in seconds), `size` is a camera's
    resolution. A recording with no frame is refused here, as a folder with no image is: `verb`
    says what it had none for."""
    from hardware.sources import check_size_for, open_source
    from tracker.recording import Recording, RecordingSource, holding_frames, meant_as_recording

    if fps is not None and not _is_images(spec):
        raise TablesightError(
            f"--fps {fps:g}: {spec} is not a folder of images",
            "leave --fps out: a video or a recording carries its own clock",
        )
    if size is not None:
        check_size_for(spec, size)
    if meant_as_recording(spec):
        return RecordingSource(holding_frames(Recording(spec), verb))
    return open_source(spec, size=size) if fps is None else open_source(spec, fps=fps)


def _is_images(spec: str) -> bool:
    from hardware.folder import IMAGE_SUFFIXES

    path = Path(spec).expanduser()
    return path.is_dir() or path.suffix.lower() in IMAGE_SUFFIXES


def _frames(source, intrinsics=None):
    """Frames until the source ends; a failure part-way is raised with how far it got.

    A frame of another size than the lens calibration's ends the run there, before it is
    used: the pipeline, built to ride out a live camera's passing faults, would only report it
    as a failed calibration on every frame and go on tracking nothing. A folder's still of
    another size (a stray preview, a portrait shot) is passed over and named at the end, as an
    unreadable one is, unless none fits: then the lens calibration is what is wrong.
    """
    from calibration.imagefile import UnfitForLens
    from hardware.pixels import check_picture

    count, unfit = 0, None
    while True:
        try:
            frame = source.read()
            if frame is not None:  # a camera's raw buffer ended the run in OpenCV with a traceback
                check_picture(frame.image, source.description)
        except TablesightError as error:
            raise TablesightError(
                f"{source.description} failed after {count} frame{'' if count == 1 else 's'} "
                f"({error.problem})",
                error.fix or "check the source; everything before it was kept",
            ) from None
        if frame is None:
            if unfit is not None and not count:
                raise unfit
            _check_whole(source, count)
            return
        if intrinsics is not None:
            try:
                _check_lens_size(source, frame, intrinsics)
            except UnfitForLens as error:
                pass_over = getattr(source, "pass_over", None)
                if pass_over is None or not pass_over(frame, error):
                    raise
                unfit = unfit or error
                continue
        count += 1
        yield frame


def _check_lens_size(source, frame, intrinsics) -> None:
    """A still is named by its file: "frame 3 of images in FOLDER" read as the file frame_003."""
    from calibration.imagefile import check_size_for_lens
    from hardware.source import source_file

    path = source_file(source, frame)
    where = str(path) if path is not None else f"frame {frame.index} of {source.description}"
    check_size_for_lens(intrinsics, frame.image, path, where)


def _track_setup(args: argparse.Namespace, source) -> tuple:
    """The layout and lens calibration to track with: the options', else a recording's own.
    A --layout other than the one a game was recorded with is said, as its positions would be
    off by centimetres without any other sign."""
    from calibration.intrinsics import load_intrinsics
    from calibration.layout import load_layout
    from tracker.recording import recorded_layout, recorded_lens

    manifest = source.recording.manifest if hasattr(source, "recording") else {}
    recorded = manifest.get("layout")
    if args.layout is not None:
        layout = load_layout(args.layout)
        if recorded and json.dumps(layout.to_dict(), sort_keys=True) != json.dumps(recorded, sort_keys=True):
            print(
                f"tablesight track: --layout {args.layout} is not the layout {args.source} was recorded "
                "with; leave --layout out to use the recording's",
                file=sys.stderr,
            )
    elif recorded:
        layout = recorded_layout(manifest)
    else:
        raise TablesightError(
            f"track needs --layout for {args.source}: only a recording holds its own",
            "give --layout LAYOUT.json (from `tablesight markers`) or a table size such as 183x122",
        )
    if args.intrinsics:
        return layout, load_intrinsics(args.intrinsics)
    return layout, recorded_lens(manifest)


def _check_whole(source, count: int) -> None:
    """A video file cut off (a copy stopped early) ends like a whole one, a game shorter than it
    was. Its header's frame count tells them apart; only a large shortfall is taken for a cut, as
    the last frame or two of a whole file may not decode."""
    declared = source.declared_frames() if hasattr(source, "declared_frames") else None
    if declared and count < 0.9 * declared and declared - count >= 2:
        raise TablesightError(
            f"{source.description} ended after {count} of the {declared} frames its header declares, "
            "so the file looks cut off",
            "the frames before the cut were kept; copy the whole video again for the rest",
        )


def run_track(args: argparse.Namespace) -> int:
    from hardware.doctor import check_detail
    from hardware.source import hold_for_the_game, passed_over
    from tracker.pipeline import build_pipeline

    source = _open_frames(args.source, args.fps, "track", args.size)
    warned, calibrated, measured = "", None, False
    try:
        layout, intrinsics = _track_setup(args, source)
        pipeline = build_pipeline(layout, intrinsics)
        for frame in _frames(source, intrinsics):
            result = pipeline.process(frame)
            if pipeline.calibration is not None and hold_for_the_game(source):
                pipeline.request_recalibration()  # as `GameRunner.hold_camera`
            if pipeline.status.message and pipeline.status.message != warned:
                warned = pipeline.status.message
                print(f"tablesight track: frame {frame.index}: {warned}", file=sys.stderr)
            measured = measured or pipeline.calibration is not None
            if pipeline.calibration is not calibrated:
                calibrated = pipeline.calibration
                if getattr(calibrated, "warnings", None):
                    print(f"tablesight track: frame {frame.index}: calibration warnings: "
                          f"{' | '.join(calibrated.warnings)}", file=sys.stderr)
                if calibrated is not None and not (detail := check_detail(calibrated)).ok:  # as detect warns
                    print(f"tablesight track: frame {frame.index}: {detail.bases_missed()}", file=sys.stderr)
            if args.json:
                print(json.dumps(result.to_json()), flush=True)
            else:
                hidden = sum(not m["visible"] for m in result.models)
                print(
                    f"frame {result.frame} {result.source}: {'settled' if result.settled else 'hands'}, "
                    f"{len(result.models)} models ({hidden} hidden), {len(result.vehicles)} vehicles"
                )
    finally:
        source.close()
    if damage := passed_over(source):
        print(f"tablesight track: {damage}", file=sys.stderr)
    if warned and not measured:
        raise _never_calibrated(args.source, "no position above was measured")
    return 0


def _never_calibrated(source: str, kept: str) -> TablesightError:
    """No frame of the whole source calibrated (the markers out of view, or not where --layout
    says, as the line before it said): the command ran but measured nothing, which its exit
    status must say."""
    return TablesightError(
        f"no frame of {source} could be calibrated, so {kept}",
        "put the markers in view and give the --layout of this table, then run it again",
    )


def run_record(args: argparse.Namespace) -> int:
    from calibration.intrinsics import load_intrinsics
    from calibration.layout import load_layout
    from hardware.source import passed_over
    from rules_core import api as rules
    from tracker.game import Game
    from tracker.pipeline import build_pipeline
    from tracker.recording import RecordingWriter
    from tracker.runner import GameRunner, RecordPolicy

    if args.every is not None and args.every < 1:
        raise TablesightError(
            f"--every must be 1 or more, got {args.every}", "give how many frames to skip by"
        )
    if not 10 <= args.quality <= 100:
        raise TablesightError(
            f"--quality must be 10 to 100, got {args.quality}", "85 keeps files small and sharp"
        )
    layout = load_layout(args.layout)
    intrinsics = load_intrinsics(args.intrinsics) if args.intrinsics else None
    rules.load_ruleset(args.ruleset)
    policy = RecordPolicy(
        mode="every" if args.every else "stills", every=args.every or 1, jpeg_quality=args.quality
    )
    source = _open_frames(args.source, args.fps, "record", args.size)
    width, depth = layout.table_size_cm
    manifest = {
        "layout": layout.to_dict(),
        "intrinsics": intrinsics.to_dict() if intrinsics else None,
        "ruleset": args.ruleset,
        "table": {"width_cm": width, "depth_cm": depth},
        "source": args.source,
        "created_utc": datetime.datetime.now(datetime.UTC).isoformat(),
        "settings": {"mode": policy.mode, "every": policy.every, "jpeg_quality": policy.jpeg_quality},
    }
    writer = RecordingWriter(Path(args.output), manifest)
    runner = GameRunner(
        build_pipeline(layout, intrinsics),
        Game(args.ruleset, (width, depth), log=writer.add_event),
        writer=writer,
        policy=policy,
    )
    seen, calibrated, stopped_by = 0, False, None
    closing = None
    try:
        for frame in _frames(source, intrinsics):
            seen += 1  # read, so counted even when a full disk or a signal stops it in the middle
            runner.step(frame)
            runner.hold_camera(source)
            calibrated = calibrated or runner.pipeline.calibration is not None
    except KeyboardInterrupt as stop:
        # Ctrl-C, or SIGTERM / SIGHUP met the same way (tracker.cli.Stopped carries its signal).
        stopped_by = getattr(stop, "signum", None) or signal.SIGINT
        why = "by the user" if stopped_by == signal.SIGINT else f"({signal.Signals(stopped_by).name})"
        print(f"tablesight record: stopped {why}.", file=sys.stderr)
    finally:
        # The recording first: a second Ctrl-C in the camera's close (picamera2 stopping takes a
        # while) then loses nothing, and the camera can still be stopped by one.
        try:
            with _unstoppable():
                closing = _close_recording(writer, args.output, seen)
        finally:
            source.close()
        # With no frame used, the error raised says it (none fit the lens, none could be read).
        if seen and (damage := passed_over(source)):
            print(f"tablesight record: {damage}", file=sys.stderr)
    if closing is not None:
        raise closing
    # A stop may land after a frame's calibration and before the loop took note of it.
    calibrated = calibrated or runner.pipeline.calibration is not None
    # Stopped before any calibration was tried to the end (no frame is kept before one is), no
    # marker was missed: the stop's status stands and nothing is said of the markers.
    if seen and not calibrated and (stopped_by is None or runner.pipeline.status.message):
        print(f"tablesight record: {runner.pipeline.status.message or 'no markers found'}", file=sys.stderr)
        kept = f"the frames in {args.output} replay to no game"
        if not writer.frames_written:
            kept = "nothing was kept"
        raise _never_calibrated(args.source, kept)
    if stopped_by is not None:
        # The file is closed and whole, but the game did not end with its source: a script
        # tells a stop (Ctrl-C 130, SIGTERM 143) from a run to the end, as with track and replay.
        return 128 + stopped_by
    return 0


@contextlib.contextmanager
def _unstoppable() -> Iterator[None]:
    """Ctrl-C, SIGTERM and SIGHUP let be while the recording closes: players press Ctrl-C twice,
    and a second one that broke off the close's commit lost every frame since the last (up to a
    second of the game) and the summary of what the file holds. Only the main thread may."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    held = {signum: handler for signum, handler in held.items() if handler is not None}
    for signum in held:
        signal.signal(signum, signal.SIG_IGN)
    try:
        yield
    finally:
        for signum, handler in held.items():
            signal.signal(signum, handler)


def _close_recording(writer, output: str, seen: int) -> TablesightError | None:
    """Closes the recording and says what it holds, counted in the file (not the game in
    memory: a full disk keeps less). A file that holds nothing (the first frame did not fit the
    lens or the disk, or no frame came) is removed: kept, it would only make the same command,
    run again once fixed, refuse to record over it. Returns a failure to close (a full disk)."""
    failure = None
    try:
        writer.close()
    except TablesightError as error:
        failure = error
    if writer.holds_nothing:
        writer.discard()
        print(f"tablesight record: no frame recorded, so {output} was not kept", file=sys.stderr)
        return failure
    print(
        f"tablesight record: {writer.frames_written} of {seen} frames and "
        f"{writer.events_written} events in {writer.rescued or output}",
        file=sys.stderr,
    )
    if writer.rescued is not None:
        print(
            f"tablesight record: {output} was deleted or moved while recording; the game was written "
            f"again to {writer.rescued} from what the recorder held",
            file=sys.stderr,
        )
    if writer.log_left_beside:
        print(
            f"tablesight record: another program had {output} open as it closed, so part of the game "
            f"may still be in {output}-wal beside it: copy or move the two files together",
            file=sys.stderr,
        )
    return failure


def run_replay(args: argparse.Namespace) -> int:
    from tracker.replay import replay

    def show(result) -> None:
        if args.json:
            print(json.dumps(result.to_json()), flush=True)

    report = _report_path(args.report, args.recording) if args.report is not None else None
    outcome = replay(args.recording, on_result=show)
    if outcome.no_frame is not None:
        # It replayed its controls alone, to "0 frames", a report of no game (written over the
        # last one) and the detector blamed for the events they did not make.
        raise outcome.no_frame
    # Only a recording left in WAL mode ever had a -wal file to lose on the way.
    copy_again = (
        "nothing past that can be read; if the file was copied from another machine, copy it again"
        + (" with its -wal file beside it" if outcome.in_wal_mode else "")
    )
    if outcome.stopped and not outcome.results:
        # Nothing replayed is a replay that could not run at all (exit 2, as `track` of the same
        # file, and no report of 0 frames); one stopped part-way replayed its game up to the
        # damage and warns (exit 1).
        where = outcome.frames_stopped or f"{outcome.stopped}, and it holds no frame to replay"
        raise TablesightError(f"{args.recording}: {where}", copy_again)
    if report is not None and outcome.stopped and report.is_file():
        print(
            f"tablesight replay: {report} was kept: the replay stopped early, and its partial report "
            "would have written over it; give --report a new name to keep that too",
            file=sys.stderr,
        )
    elif report is not None:
        _write_report(report, outcome.report)
    count = len(outcome.results)
    frames = f"{count} frame{'' if count == 1 else 's'}" + (" before the damage" if outcome.stopped else "")
    print(f"tablesight replay: {frames}, {outcome.agreement()}", file=sys.stderr)
    if outcome.results and not outcome.calibrated:
        print(f"tablesight replay: {outcome.problems[0]}", file=sys.stderr)
        raise _never_calibrated(args.recording, "it replays to no game")
    if outcome.stopped:
        print(f"tablesight replay: {args.recording}: {outcome.stopped}. {copy_again}", file=sys.stderr)
        return 1
    if outcome.damage:
        print(f"tablesight replay: {outcome.damage}", file=sys.stderr)
    if not outcome.events_match:
        # Checking is the command's job: a difference must show in its status, not only in words.
        why = "the damaged frames above" if outcome.damage else "a tablesight of another version"
        because = f"; {why} would explain it"
        if missing := outcome.frames_missing():
            last, reached = missing
            because = (f": they go on past its last frame (frame {last}) to frame {reached}, so frames are "
                       f"missing from it (cut or edited); up to frame {last} they agree")
        print(f"tablesight replay: {args.recording} does not replay to the events it recorded{because}",
              file=sys.stderr)
        return 1
    return 0


def _report_path(name: str, recording: str) -> Path:
    """Checked before the replay, which reruns the whole pipeline: a --report that cannot be
    written is said at once, not after minutes of work that would then be lost; one naming the
    recording, or any file that holds no JSON, would be replaced by the report."""
    from calibration.output_file import check_folder_writable, check_output, is_stream

    fix = "give --report a new file name, e.g. report.json"
    kind = ("replay report", lambda data: isinstance(data, dict) and "events" in data and "recording" in data)
    path = check_output(
        name, "--report", fix, inputs=[recording], json_only=True, same_kind=kind, make_folders=True
    )
    # A report is written beside its name and renamed over it. A folder not made yet was tried
    # on the way (its nearest folder must take the new one); a stream is written into.
    if path.parent.is_dir() and not is_stream(path):
        check_folder_writable(path, "--report", "give --report a path in a folder you can write to")
    return path


def _write_report(path: Path, report: dict) -> None:
    """Written beside it and then renamed over it, so a failed write leaves an existing
    report as it was instead of half a file."""
    from calibration.output_file import replace_atomically

    try:
        replace_atomically(path, lambda partial: partial.write_text(json.dumps(report, indent=1)))
    except OSError as error:
        raise TablesightError(
            f"cannot write the report {path} ({error.strerror})",
            "give --report a path in a folder you can write to",
        ) from None
