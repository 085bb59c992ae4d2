"""`tablesight rules ...`: the rules core from a terminal, JSON on stdout.

Bad input (a missing file, invalid JSON, a scene that does not fit its ruleset) raises
TablesightError, which tracker/cli.py prints as one line on stderr with exit code 2.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from functools import partial
from typing import TYPE_CHECKING, Any, NoReturn

from rules_core.errors import SceneError

if TYPE_CHECKING:
    from rules_core.scene import Scene


class _OneLineParser(argparse.ArgumentParser):
    """A `rules` subcommand parser whose usage errors are one line on stderr (exit 2), like every
    other bad input, instead of argparse's usage block."""

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix("tablesight rules").strip() or "rules"
        self.exit(2, f"tablesight rules: {command}: {message}. See `{self.prog} --help`.\n")


def _finite(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def register(subparsers: argparse._SubParsersAction) -> None:
    rules = subparsers.add_parser(
        "rules",
        help="measure, check moves and ranges against a ruleset (JSON out)",
        description="Rules core commands: JSON on stdout; bad input exits 2 with one line on stderr.",
    )
    commands = rules.add_subparsers(
        dest="rules_command", metavar="RULES_COMMAND", required=True, parser_class=_OneLineParser
    )
    # Rules commands print JSON alone; a caller that adds --json to every command, as detect and
    # track take it, was refused on every one ("unrecognized arguments").
    json_out = argparse.ArgumentParser(add_help=False)
    json_out.add_argument("--json", action="store_true", help="accepted: the output is always JSON")
    command = partial(commands.add_parser, parents=[json_out])

    command("list", help="ruleset ids with title, source and unit of measure").set_defaults(
        func=_list
    )

    show = command("show", help="every parameter of one ruleset")
    show.add_argument("id", metavar="ID")
    show.set_defaults(func=_show)

    measure = command("measure", help="edge and centre distance between two models")
    measure.add_argument("scene", metavar="SCENE.json")
    measure.add_argument("a", metavar="A")
    measure.add_argument("b", metavar="B")
    measure.set_defaults(func=_measure)

    check = command(
        "check", help="coherency, objectives, deployment and the ruleset's other checks"
    )
    check.add_argument("scene", metavar="SCENE.json")
    check.set_defaults(func=_check)

    move = command("move", help="judge every model that moved between two scenes")
    move.add_argument("before", metavar="BEFORE.json")
    move.add_argument("after", metavar="AFTER.json")
    move.set_defaults(func=_move)

    ranges = command(
        "ranges", help="every enemy model's distance from a model or unit, and weapons in range"
    )
    ranges.add_argument("scene", metavar="SCENE.json")
    ranges.add_argument("from_id", metavar="FROM")
    ranges.set_defaults(func=_ranges)

    zones = command("zones", help="deployment zone polygons per side (table cm)")
    zones.add_argument("scene", metavar="SCENE.json")
    zones.set_defaults(func=_zones)

    template = command("template", help="models under a blast or smoke template")
    template.add_argument("scene", metavar="SCENE.json")
    template.add_argument("kind", metavar="KIND")
    template.add_argument("x_cm", metavar="X_CM", type=_finite)
    template.add_argument("y_cm", metavar="Y_CM", type=_finite)
    template.add_argument(
        "--radius", type=_finite, help="radius in ruleset units, when the ruleset gives none"
    )
    template.add_argument("--heading", type=_finite, default=0.0, help="strip heading in degrees")
    template.set_defaults(func=_template)

    scatter = command(
        "scatter", help="where a thrown grenade bursts for a die roll, and who it hits (bronepehota)"
    )
    scatter.add_argument("scene", metavar="SCENE.json")
    scatter.add_argument("thrower_id", metavar="THROWER")
    scatter.add_argument("target_id", metavar="TARGET")
    scatter.add_argument("roll", metavar="ROLL", type=int, help="the die's result")
    scatter.add_argument("--kind", default="grenade", help="the scattering template (default grenade)")
    scatter.set_defaults(func=_scatter)

    hexes = command(
        "hex", help="table cm of a tactical-map hex, counted from 0 at the top left (mobile-infantry)"
    )
    hexes.add_argument("id", metavar="ID")
    hexes.add_argument("col", metavar="COL", type=int)
    hexes.add_argument("row", metavar="ROW", type=int)
    hexes.set_defaults(func=_hex)


def _print(result: Any) -> int:
    json.dump(result, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


def _read_json(path: str, name: str) -> Any:
    """A scene (or move) file, or standard input for "-": read at most MAX_BYTES, and a named pipe
    only once something writes into it (`calibration.jsonfile.read_bounded`), since either hung or
    read a device until memory ran out."""
    from calibration.jsonfile import MAX_BYTES, UnreadFile, read_bounded

    try:
        text = sys.stdin.read(MAX_BYTES + 1) if path == "-" else read_bounded(path, name).decode("utf-8")
        if len(text) > MAX_BYTES:
            raise UnreadFile(f"{name} on standard input is over {MAX_BYTES // 2**20} MB: none is that large")
        # A byte order mark (Windows Notepad, PowerShell), from a file or a pipe alike, is no JSON.
        text = text.removeprefix("\ufeff")
    except UnreadFile as error:
        raise SceneError(str(error), "give the path of a scene JSON file") from None
    except FileNotFoundError:
        raise SceneError(f"{name} {path}: file not found", "give the path of a scene JSON file") from None
    except UnicodeDecodeError:
        raise SceneError(
            f"{name} {path}: cannot read (not UTF-8 text)", "give a readable UTF-8 JSON file"
        ) from None
    except OSError as error:  # the system's reason (a name too long, a folder, no permission)
        raise SceneError(
            f"{name} {path}: cannot read ({error.strerror or error.__class__.__name__})",
            "give the path of a readable scene JSON file",
        ) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise SceneError(
            f"{name} {path}: invalid JSON at line {error.lineno} column {error.colno} ({error.msg})",
            "fix the JSON syntax",
        ) from None
    except (ValueError, RecursionError):
        # a number longer than Python converts, or lists nested deeper than its stack
        raise SceneError(
            f"{name} {path}: unusable JSON (a number too long or lists nested too deep)",
            "write plain numbers and shallow lists",
        ) from None


def _scene(path: str, name: str = "SCENE", allow_off_table: bool = False) -> Scene:
    from rules_core import api

    data = _read_json(path, name)
    try:
        return api.parse_scene(data, allow_off_table=allow_off_table)
    except SceneError as error:
        raise SceneError(f"{name} {path}: {error.problem}", error.fix) from None


def _list(args: argparse.Namespace) -> int:
    from rules_core import api

    return _print(api.list_rulesets())


def _show(args: argparse.Namespace) -> int:
    from rules_core import api

    return _print(api.ruleset_dict(args.id))


def _measure(args: argparse.Namespace) -> int:
    from rules_core import api

    return _print(api.measure(_scene(args.scene), args.a, args.b))


def _check(args: argparse.Namespace) -> int:
    from rules_core import api

    # A model beside the table (in reserve, or flown off) stops no state report, as it stops no
    # move; the web UI's reports take it too.
    scene = _scene(args.scene, allow_off_table=True)
    result = api.check(scene)
    _say_off_table(scene)
    _say_no_deployment(scene)
    return _print(result)


def _say_off_table(scene: Scene) -> None:
    """Said, since each is judged where it stands: a unit's coherency counts a model waiting
    beside the table, and a model placed off it by a slip of the tracker or the file would
    otherwise pass unseen."""
    off = scene.off_table()
    if off:
        table, one = scene.table, len(off) == 1
        print(
            f"tablesight rules check: {', '.join(off)} {'is' if one else 'are'} off the "
            f"{table.width_cm:g}x{table.depth_cm:g} cm table, judged where "
            f"{'it stands' if one else 'they stand'} (a unit's coherency counts {'it' if one else 'them'}): "
            "leave a model waiting beside the table (in reserve) out of the scene",
            file=sys.stderr,
        )


def _say_no_deployment(scene: Scene) -> None:
    """In the deployment phase `in_deployment_zone` is null for every model without zones to judge
    by: said once, with what the scene lacks, rather than only in each model's `problems`."""
    from rules_core.deployment import no_zones

    if scene.phase != "deployment" or scene.spec.deployment is not None:
        return
    rules = scene.ruleset
    if rules.deployment is None:
        print(
            f"tablesight rules check: {no_zones(scene)}, so in_deployment_zone is null for every model",
            file=sys.stderr,
        )
        return
    sides = ", ".join(f'"{side}": PLACE' for side in dict.fromkeys(scene.sides.tolist()))
    kinds = rules.deployment.kinds
    places = "left, right, top or bottom"
    if any(kind.shape != "edge_strip" for kind in kinds.values()):
        places += ", or a quarter such as top-left for a corner kind"
    print(
        'tablesight rules check: phase is deployment but the scene has no "deployment", so '
        "in_deployment_zone is null for every model: add "
        f'"deployment": {{"kind": KIND, "sides": {{{sides}}}}} '
        f"(KIND one of {', '.join(kinds)}; PLACE {places})",
        file=sys.stderr,
    )


def _move(args: argparse.Namespace) -> int:
    from rules_core import api

    before = _scene(args.before, "BEFORE")
    after = _scene(args.after, "AFTER", allow_off_table=True)
    result = api.move(before, after)
    _say_unjudged(before, after, result)
    _say_new_units(before, after)
    return _print(result)


def _say_unjudged(before: Scene, after: Scene, result: dict) -> None:
    """Models only in AFTER that no rule brings on now are left out of the answer, as having no
    move; said, so a model missing from BEFORE by mistake is not taken for a legal arrival."""
    new = [m.id for m in after.models if m.id not in before.index and m.id not in result["models"]]
    if new:
        print(
            f"tablesight rules move: {', '.join(new)} {'is' if len(new) == 1 else 'are'} in AFTER only, "
            "with no rule to come on now, so not judged: give BEFORE every model on the table "
            "(a late arrival is judged by its deployment flag, e.g. from_the_skies; docs/rules.md)",
            file=sys.stderr,
        )


def _say_new_units(before: Scene, after: Scene) -> None:
    """A model may change unit during a move (a dismount, a crew abandoning its gun), and is
    judged with its AFTER unit; said, so a unit mistyped in one file is not taken silently."""
    changed = [
        f"{m.id} (unit {before.models[b].unit} in BEFORE, {m.unit} in AFTER)"
        for m in after.models
        if (b := before.index.get(m.id)) is not None and before.models[b].unit != m.unit
    ]
    if changed:
        print(
            f"tablesight rules move: {', '.join(changed)} changed unit, judged with the AFTER unit "
            "(a dismount or a crew abandoning its gun makes a new unit): if not, fix the unit in "
            "the file that is wrong",
            file=sys.stderr,
        )


def _ranges(args: argparse.Namespace) -> int:
    from rules_core import api

    return _print(api.ranges(_scene(args.scene), args.from_id))


def _zones(args: argparse.Namespace) -> int:
    from rules_core import api

    return _print(api.deployment_zones(_scene(args.scene)))


def _template(args: argparse.Namespace) -> int:
    from rules_core import api

    params: dict[str, float] = {"heading_deg": args.heading}
    if args.radius is not None:
        params["radius"] = args.radius
    return _print(api.under_template(_scene(args.scene), args.kind, args.x_cm, args.y_cm, **params))


def _scatter(args: argparse.Namespace) -> int:
    from rules_core import api

    scene = _scene(args.scene)
    return _print(api.grenade_scatter(scene, args.thrower_id, args.target_id, args.roll, args.kind))


def _hex(args: argparse.Namespace) -> int:
    from rules_core import api

    return _print(api.hex_centre(args.id, args.col, args.row))
