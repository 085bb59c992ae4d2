"""Rulesets are data: one validated file per game, so a club can add its house rules without code.

Every length in a ruleset file is in the ruleset's own unit of measure (`unit`: cm, mm, in or
step); base sizes are always in mm, as the bases are sold. The engine converts to table cm
once, through `Ruleset.cm_per_unit`, so no other module knows about inches or steps. Every
reading of an ambiguous seed sentence is a field here (documented by its `note`), not a
branch in the code.
"""

from __future__ import annotations

from functools import cached_property
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, model_validator

CM_PER_UNIT = {"cm": 1.0, "mm": 0.1, "in": 2.54}


class ModelLike(Protocol):
    """What a rule asks of a scene's model: its role and state flags (scene.ModelSpec.has)."""

    role: str | None

    def has(self, flag: str) -> bool: ...


# A game's phases, as scenes name them (`SceneSpec.phase`) and rulesets order them (`turn_phases`).
Phase = Literal["map", "deployment", "orders", "movement", "shooting", "assault", "end"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Threshold(_Strict):
    """'Within N': `inclusive` says whether exactly N counts (не более / до) or not (менее / ближе чем).

    `measured`: base or hull edge to edge, centre to centre, or (proximity rules only) from the
    rear edge of the nearby model's hull, as a HELIX platform touches what it repairs or tows.
    """

    value: float = Field(ge=0, allow_inf_nan=False)
    inclusive: bool
    measured: Literal["edge", "centre", "rear_edge"] = "edge"
    note: str = ""

    def holds(self, distance_cm: float, cm_per_unit: float, tolerance_cm: float = 1e-6) -> bool:
        limit = self.value * cm_per_unit
        return distance_cm <= limit + tolerance_cm if self.inclusive else distance_cm < limit - tolerance_cm


class FlagMove(_Strict):
    """A state that limits the move: a model with every one of `flags` and none of `not_flags`
    moves at most `move` (ruleset units), and dashes at most `dash_move` (None: its dice total).
    The seeds tie some moves to a state the camera cannot see (World at Fire: a cavalry unit formed
    this turn moves only with Experienced Riders, 15 cm, «и только в фазу движения»), so the scene
    names it."""

    flags: list[str] = Field(min_length=1)
    not_flags: list[str] = []
    # Roles the state does not hold (Bronepehota: a vehicle whose pilot repairs it «пропускает свой
    # ход», while the repair HELIX repairs «вместо действия «Стрельба»» and still moves).
    not_roles: list[str] = []
    move: float = Field(ge=0)
    dash_move: float | None = Field(default=None, ge=0)
    note: str = ""

    def binds(self, model: ModelLike) -> bool:
        return (
            all(model.has(f) for f in self.flags)
            and not any(model.has(f) for f in self.not_flags)
            and model.role not in self.not_roles
        )


class UnitType(_Strict):
    """How one kind of model moves and what it may do; lengths in ruleset units, null = not in the seed."""

    description: str = ""
    base_mm: float | None = Field(default=None, gt=0)
    movement: Literal["free", "vehicle", "aircraft"] = "free"
    move: float | None = Field(default=None, ge=0)
    move_per_action: float | None = Field(default=None, ge=0)
    actions: int | None = Field(default=None, ge=1)
    # Reversing at this share of the vehicle's own move (its card's `speed`, else the type's):
    # Tankomaster, «При движении задним ходом показатель скорости делится пополам».
    reverse_share: float | None = Field(default=None, gt=0, le=1)
    min_move: float | None = Field(default=None, ge=0)
    crew_move: float | None = Field(default=None, ge=0)
    min_crew_to_move: int | None = Field(default=None, ge=0)
    wounded_move: float | None = Field(default=None, ge=0)
    jump_move: float | None = Field(default=None, ge=0)
    map_move: float | None = Field(default=None, ge=0)
    half_from_limbs_lost_pct: float | None = Field(default=None, ge=0, le=100)
    immobile_from_limbs_lost_pct: float | None = Field(default=None, ge=0, le=100)
    bases_mm: list[float] | None = None
    hull: bool = False
    must_move: bool = False
    must_move_exempt_flags: list[str] = []
    flag_costs: dict[str, float] = {}
    # The flag_costs a dash pays too (World at Fire: a soldier mounts «в фазу движения или при рывке в
    # фазу стрельбы и затратить 5 сантиметров своего движения»); others are movement-phase acts.
    dash_flag_costs: list[str] = []
    flag_moves: list[FlagMove] = []
    max_barrier_level: int | None = Field(default=None, ge=0)
    jump_barrier_level: int | None = Field(default=None, ge=0)
    # Barriers of these storeys take two turns to walk across (Mobile Infantry: «одноэтажные -
    # преодолимые в 2 хода»): a walk crosses one only from where it stood against it last turn.
    two_turn_barrier_levels: list[int] = []
    unit_moves_at_slowest: bool = False
    # Tankomaster: the unit, not the model, crosses an obstacle, so one member's terrain cap binds all.
    terrain_caps_unit: bool = False
    coherency: bool = False
    flies: bool = False
    obstacle_move: float | None = Field(default=None, ge=0)
    obstacle_slows_above: float | None = Field(default=None, ge=0)
    obstacle_max_height: float | None = Field(default=None, ge=0)
    # The model's own height an obstacle it crosses may not exceed, where the scene gives it
    # (wheel_height_cm, hull_height_cm): World at Fire's wheeled vehicles cross nothing «выше высоты
    # колеса», half-tracks, tracked vehicles and guns nothing higher than their hull.
    obstacle_limit_from: Literal["wheel", "hull"] | None = None
    area_terrain_move: float | None = Field(default=None, ge=0)
    climb_counts_from: float | None = Field(default=None, ge=0)
    # Flags that let a model whose climb counts stop part-way up it; the others must end at the
    # foot (World at Fire: «Исключением из этого правила являются горные стрелки»).
    hangs_flags: list[str] = []
    # The most its height (z_cm) may change in one move, up or down: World at Fire's horses and
    # motorcycles climb no floor or wall over 5 cm or a wheel, guns never change floors.
    max_climb: float | None = Field(default=None, ge=0)
    # Terrain kinds whose slope that limit does not bind: a height change made on them (every
    # piece under either end is one, the rise no more than their height) is a walk up a slope
    # (World at Fire's guns:
    # «пушки между этажами зданий ... передвигать вообще нельзя» is about floors; a hill is no
    # obstacle there).
    max_climb_free_on: list[str] = []
    # Types whose hull (no base) this model may stand on, higher (z_cm) than they: World at Fire's
    # soldiers climb onto a tank («взобраться на танк или бункер, а так же спуститься с танка»).
    stands_on: list[str] = []
    # Whose own height sets that limit where the scene gives it (World at Fire: a motorcycle climbs
    # nothing «выше колеса мотоцикла», wheel_height_cm); max_climb stands in without it.
    max_climb_from: Literal["wheel", "hull"] | None = None
    max_turn_deg: float | None = Field(default=None, ge=0, le=180)
    heading_tolerance_deg: float = Field(default=5.0, ge=0)
    # A model with one of these flags turned about after its flight, so it ends facing back along
    # it (World at Fire: a fighter's «Мертвую Петлю», «разворот на 180 градусов» on a 5+).
    loop_flags: list[str] = []
    altitude_change_cost: float | None = Field(default=None, ge=0)
    dive_cost: float | None = Field(default=None, ge=0)
    # The heights a scene's `altitude` may name (World at Fire: «1- малые высоты, 2 – средние, 3 –
    # предельные»); empty: any.
    altitudes: list[int] = []
    separation: Threshold | None = None
    altitude_separation_bonus: float = Field(default=0.0, ge=0)
    weapons: list[str] = []
    chassis: dict[str, dict[str, float | str | bool | None]] = {}
    base_overrides: dict[str, dict[str, float | str | bool | None]] = {}
    note: str = ""


class Crossing(_Strict):
    """A piece a type may not enter that it may still cross where narrow enough: narrower than
    `narrower_than` (ruleset units) or than `narrower_than_length` times its hull length, both
    strict («ширина меньше ...»). `may_end_on`: a hull may stop across it (stuck on it)."""

    narrower_than: float | None = Field(default=None, gt=0)
    narrower_than_length: float | None = Field(default=None, gt=0)
    may_end_on: bool = False
    note: str = ""


class TerrainEffect(_Strict):
    """What one terrain kind does to movement; types named in `impassable_for` cannot enter it,
    unless `crossing` (keyed like impassable_for: "cavalry", "vehicle:tracked") lets them over a
    narrow piece."""

    impassable_for: list[str] = []
    crossing: dict[str, Crossing] = {}
    area: bool = False
    obstacle: bool = False
    rough: bool = False
    cover: str | None = None
    # The piece shelters a model just behind it as well as one in it (see Ruleset.cover): a fence
    # or a house stops what flies at the man behind it, a trench only covers those down in it.
    cover_behind: bool = False
    blocks_sight: bool = False
    # No weapon's fire crosses it, seen or not (Combined Arms' smoke screen: «Дымовая завеса
    # непростреливаема и непроходима для всех боевых единиц»).
    blocks_fire: bool = False
    barrier: bool = False
    # Storeys a barrier piece given no level counts as (Mobile Infantry: a sheer wall is overcome
    # only by a jet jump, like a 2-storey barrier: «преодолеть отвесную стену, 2-х уровневый барьер»).
    unlevelled_as: int | None = Field(default=None, ge=1)
    # A model standing in the piece is at its level when the scene gives it none of its own
    # (Mobile Infantry's hills are the relief's height levels: «Рельеф местности представлен
    # несколькими уровнями высоты»), so a shot down from it gains the per-level range.
    stands_at_level: bool = False
    # A model inside the piece stands on its top, `height_cm` up, where the scene gives it no z_cm
    # (Bronepehota's «верхняя площадка» a jump lands on: a building's roof, a hill); a wood's trees
    # or a ruin's walls are not stood on.
    platform: bool = False
    # A model inside the piece stands at its bottom, `height_cm` down, where the scene gives it no
    # z_cm (World at Fire: «до верха препятствия (или низа в случае со рвом или окопом)»,
    # «спуститься ... в окоп ... по такой же схеме»): stepping in or out climbs its depth.
    sunken: bool = False
    # The piece slows a move only over its outline, a hill's slope (Tankomaster: «Если в ходе движения
    # оно пересекает какие-либо препятствия», «склон холма»): a move that stays on it throughout,
    # along its top, crosses nothing.
    slope: bool = False
    # A piece of this kind laid across a barrier of up to this many storeys is a bridge over it
    # (Mobile Infantry: «Барьеры одноэтажные и двухэтажные могут быть соединены мостами (мосты не
    # дают штрафов при передвижении)»): a move whose path crosses the barrier's outline only on such
    # pieces is free of the barrier rule. None: not a bridge.
    bridges_up_to_level: int | None = Field(default=None, ge=1)
    note: str = ""


class Cover(_Strict):
    """Who takes cover from fire, and behind what. A target covers in a piece of terrain with a
    `cover` save, or behind one marked `cover_behind` or a hull of the `hulls` types (Tankomaster:
    «разбитые или целые единицы техники» 5+) when the line of fire from the shooter crosses it
    within `behind` of the target. Only `target_types` take cover (None: every model)."""

    behind: Threshold
    hulls: dict[str, str] = {}
    target_types: list[str] | None = None
    note: str = ""


class Beside(_Strict):
    """Models standing within `distance` of a terrain piece of these `kinds` (Tankomaster's ambush
    «за домом», behind a house)."""

    kinds: list[str]
    distance: Threshold
    note: str = ""


class DeploymentKind(_Strict):
    """One deployment: a strip along the side's edge or a corner of its quarter, `depth` deep.
    `rough_terrain_only`: in a rough piece, or `rough_beside` one of the kinds it names."""

    shape: Literal["edge_strip", "corner_square", "corner_l"]
    depth: float = Field(gt=0)
    edges: Literal["short", "long", "any"] = "any"
    rough_terrain_only: bool = False
    rough_beside: Beside | None = None
    enemy_keep_away: Threshold | None = None
    # Only some sides deploy this way (Tankomaster: «Правилами для засады пользуется только
    # обороняющийся»), so deployment.sides need not name every side; a side it leaves out has no zone,
    # nor has one it names beside the defender (deployment.deploying_sides).
    one_sided: bool = False
    # Units come on this way during the game, not before it (Tankomaster: «во время своего хода
    # использовать один приказ для размещения на поле одного подразделения в засаде»): a model new
    # to the table after deployment, of a side the deployment names, is judged where it appears.
    placed_in_play: bool = False
    note: str = ""


class Deployment(_Strict):
    """Deployment kinds, and whether the whole footprint or only the centre must be in the zone."""

    reference: Literal["footprint", "centre"] = "footprint"
    kinds: dict[str, DeploymentKind]
    # The sides face each other: opposite edges, or diagonally opposite quarters (World at Fire:
    # «всегда на противоположных краях поля», «по диагонали»); check warns of any other pair.
    opposite_sides: bool = False
    note: str = ""


class Objectives(_Strict):
    """Who may hold an objective marker, within what distance, and what blocks them."""

    marker_mm: float = Field(gt=0)
    radius: Threshold
    controller_types: list[str]
    # Whether a model controls only when every model of its unit is of a controller type: the seed
    # asks for an infantry unit («его отряд пехоты»), and a rider walking with his squadron is in a
    # cavalry unit (World at Fire: «спешенный наездник двигается в составе отряда пешком»).
    whole_unit: bool = False
    excluded_flags: list[str] = []
    blocked_by_any_enemy: bool = True
    no_end_on: bool = True
    note: str = ""


class Crew(_Strict):
    """Guns and their crews (`crew_of`): how near the crew must stand, and what each count allows.
    `leader_roles`: a gun works only with one of its crew in range holding such a role (Combined
    Arms: «Наличие 1-2 миномётчиков и командира расчёта является обязательным условием»)."""

    gun_types: list[str]
    # Guns with crew rules of their own (Combined Arms' heavy MG, by role or by `weapons`: proximity
    # rules), which this one does not judge.
    own_rules: Selector | None = None
    # The guns the rule binds by what they fire, where the scene names it (Combined Arms: its crew
    # rule is the mortar's, «Наличие 1-2 миномётчиков и командира расчёта является обязательным
    # условием для возможности действия миномёта»); a gun whose weapons go unnamed is taken for
    # one. Empty: every gun of `gun_types`.
    gun_weapons: list[str] = []
    distance: Threshold
    hits: dict[str, str | None] = {}
    leader_roles: list[str] = []
    # Crewmen in these states are in range but do not work the gun (Combined Arms: a fighter who
    # «не может проявлять боевую активность» this turn, or wounded, fires no mortar).
    not_flags: list[str] = []
    # A gun some model tows (`towing`) is hitched and does not fire (Combined Arms: «1 ход – прицепка
    # артиллерии (в этот ход артиллерия не ведёт огня)»).
    towed_holds_fire: bool = False
    # A crewman may stand on his gun's base (Combined Arms: the mortarman «может располагаться с ним
    # на одной подставке»), so ending on it is no overlap.
    shares_base: bool = False
    # Crewmen stand within `distance` of the gun the rule binds, so a move may not end apart
    # (Combined Arms: «Миномётчик. Располагается в пределах 1 дюйма от модели миномёта»): a crewman
    # walking off, or the gun leaving every crewman the scene gives it.
    binds_move: bool = False
    note: str = ""


class Command(_Strict):
    """Command distance from leaders (by role), with exempt roles and a radio relay.
    `subject_types`: the unit types bound by it (Combined Arms: «Любой пехотинец», infantry
    only); null binds every model."""

    distance: Threshold
    subject_types: list[str] | None = None
    leader_roles: list[str]
    exempt_roles: list[str] = []
    relay_roles: list[str] = []
    relay_distance: Threshold | None = None
    note: str = ""


class Selector(_Strict):
    """Which models a proximity rule looks at: by type, role and state flags (all optional): every
    one of `flags`, at least one of `any_flags` (Combined Arms' sapper has the order «залечь» либо
    «окопано»), none of `not_flags`."""

    types: list[str] | None = None
    roles: list[str] | None = None
    # Models carrying one of these weapons (their own `weapons`); with `roles` also set, a model
    # matching either is picked (Combined Arms' heavy MG: role `hmg` or weapons ["hmg"]).
    weapons: list[str] | None = None
    flags: list[str] = []
    any_flags: list[str] = []
    not_flags: list[str] = []


class Condition(Selector):
    """Models (enemy, friend, any) or terrain pieces (types = kinds) within a distance, at least N;
    a model that itself meets `free_of` (an enemy touching the repairer) does not count."""

    relation: Literal["enemy", "friend", "any", "terrain"]
    distance: Threshold
    at_least: int = Field(default=1, ge=1)
    free_of: Condition | None = None
    # With relation terrain, the scene's mines and charges (points) count as objects too (Combined
    # Arms: a sapper stops within 4" of the charge he places or removes).
    with_mines: bool = False
    # Only models the subject sees count (a straight line past no sight-blocking piece: Combined
    # Arms' scout observes, «дальность наблюдения всегда равна 24 дюймам»).
    needs_sight: bool = False
    # Only vehicles with a free seat count (Combined Arms: a fighter boards «согласно количеству
    # мест», so a full APC takes no one however close he stands).
    with_room: bool = False


class ProximityRule(_Strict):
    """A rule decided by who stands near whom: subject, what must be near it, what must not."""

    subject: Selector
    needs: list[Condition] = []
    # At least one of these must hold too, where the seed offers alternatives (World at Fire: a
    # soldier mounts a friendly horse or an abandoned one of the enemy's, «оседланы вашими
    # пехотинцами или вражескими»).
    needs_any: list[Condition] = []
    forbids: list[Condition] = []
    # The subject may come closer than the enemy buffer to the enemy models its enemy conditions
    # pick (World at Fire: mounting an enemy's abandoned horse means base contact with it).
    waives_enemy_buffer: bool = False
    # The subject moves only where the rule holds at the end of its move (Combined Arms: a wounded
    # fighter «можно перемещать ... рядом с другим бойцом», a heavy MG with two fighters).
    binds_move: bool = False
    # The subject fires no weapon where the rule does not hold (Combined Arms: a heavy MG «требует
    # наличия ... одного [бойца] для ведения огня»).
    holds_fire: bool = False
    note: str = ""


class MineDetection(_Strict):
    """Hidden mines and charges a detector (a sapper) must be told of once within a distance of them;
    with `trigger`, the distance within which an enemy sets a mine off (charges are blown by hand)."""

    detector_roles: list[str]
    distance: Threshold
    trigger: Threshold | None = None
    note: str = ""


class LeaderSight(_Strict):
    """Models in their unit leader's direct line of sight (sight-blocking terrain between breaks it)."""

    leader_roles: list[str]
    # Only models on the leader's own height level are in his sight (Mobile Infantry: the field of
    # view is a clear view «при условии нахождения на одинаковом уровне по высоте»).
    same_level: bool = False
    note: str = ""


class ObstacleThrow(_Strict):
    """Weapons lobbed over obstacles (terrain kinds, or barriers of at least `min_level`) that hit
    a target standing within `distance` of the obstacle for sure."""

    weapons: list[str]
    kinds: list[str] = []
    min_level: int | None = Field(default=None, ge=0)
    distance: Threshold
    note: str = ""


class Transport(_Strict):
    """Seats per vehicle chassis; a chassis in `seats_range` takes its count from the card (`seats`)."""

    vehicle_types: list[str]
    seats: dict[str, int] = {}
    seats_range: dict[str, tuple[int, int]] = {}
    # Chassis that carry no fighters at all (Combined Arms: a tractor tows guns, «Перевозка пехоты
    # ведётся автомобилями, БТР и на танках»).
    no_seats: list[str] = []
    note: str = ""


class Interception(_Strict):
    """A waiting order: enemies entering the front arc within weapon reach trigger it; an enemy
    within `contact` forbids giving it."""

    order: str
    front_arc_deg: float = Field(gt=0, le=360)
    contact: Threshold
    note: str = ""


class DeploymentOrder(_Strict):
    """Units are placed alternately; models with a `late_flags` rule arrive later, not at deployment,
    and with `late_arrive_in_enemy_zone` come on in an enemy's deployment zone (World at Fire: «они
    прибывают на второй ход в зону противника»)."""

    late_flags: list[str] = []
    late_arrive_in_enemy_zone: bool = False
    note: str = ""


class Band(_Strict):
    """A named effect up to a distance (ruleset units): killed within 1", wounded to 3"..."""

    name: str
    up_to: float | None = Field(ge=0)  # None: at any distance the weapon reaches

    def holds(self, distance_cm: float, cm_per_unit: float, tolerance_cm: float = 1e-6) -> bool:
        """Whether a model this far off is in the band (up to `up_to`, inclusive)."""
        return self.up_to is None or distance_cm <= self.up_to * cm_per_unit + tolerance_cm


class Tow(_Strict):
    """Towing, the tug naming what it tows (`towing`). World at Fire weighs the tug's wounds, plus a
    bonus by chassis, against the towed model's (`full_move`, `reduced_move`, `full_ratio`, all or
    none); in Bronepehota the towed object follows its tug as far as the tug went and no further
    (`towed_moves_as_tug`), the tug keeping its own speed."""

    chassis_bonus: dict[str, int] = {}
    full_move: float | None = Field(default=None, ge=0)
    reduced_move: float | None = Field(default=None, ge=0)
    full_ratio: float | None = Field(default=None, gt=0)
    towed_moves_as_tug: bool = False
    # How near a tug and what it tows end a move (World at Fire: they move on «вместе с техникой в
    # базовом контакте»); a moved one that ends farther is moved_unaccompanied. None: not judged.
    contact: Threshold | None = None
    # Who may tow, by role, and what may be towed, by type (empty: any). Bronepehota: only «боевая
    # машина HELIX, оборудованная ремонтно-транспортной платформой, может буксировать другие боевые
    # машины или мобильные орудия»; a scene's `towing` breaking them is refused.
    tug_roles: list[str] = []
    towed_types: list[str] = []
    # Who may tow by type, and the fewest seats a tug of a chassis has where the scene gives them
    # (Combined Arms: «Перевозка артиллерии ведётся на автомашинах, имеющих от 6 посадочных мест,
    # либо на гусеничных тягачах»: a vehicle, a car among them with 6 seats or more).
    tug_types: list[str] = []
    tug_min_seats: dict[str, int] = {}
    note: str = ""

    @model_validator(mode="after")
    def _weighed(self) -> Tow:
        given = [self.full_move is not None, self.reduced_move is not None, self.full_ratio is not None]
        if any(given) and not all(given):
            raise ValueError("a tow weighing wounds needs full_move, reduced_move and full_ratio")
        return self


class Weapon(_Strict):
    """A weapon's reach; range null = unlimited. Aliases are other names a scene may use for it.
    `automatic`: aimed fire adds the ruleset's aimed_range_bonus to automatic weapons only."""

    range: float | None = Field(ge=0)
    inclusive: bool = True
    automatic: bool = False
    sure_hit: float | None = Field(default=None, ge=0)
    aliases: list[str] = []
    requires_flags: list[str] = []
    # States that take the weapon out of the shooter's hands (Mobile Infantry: «Ранение в правую руку
    # лишает возможности для персонажа вести автоматический огонь»; Combined Arms: a sapper at his
    # task «не может атаковать стрелковым оружием либо гранатами», cold steel still his).
    not_flags: list[str] = []
    needs_sight: bool = False
    # Gains no range from the height levels the target stands below (`range_per_level_below`): a
    # thrown weapon is not small arms (Mobile Infantry: «каждый уровень высоты добавляет дальности
    # стрелковому оружию на +35 мм», and a grenade is thrown, «бросать»).
    no_height_bonus: bool = False
    # Fired by the men a vehicle carries (Combined Arms: «Бойцы танкового десанта могут вести огонь
    # с техники»), so not from one the scene says carries no one (`passengers` 0).
    by_passengers: bool = False
    # Fired only from these chassis, where the scene names one (Combined Arms: the riders of a
    # tank, «Бойцы танкового десанта»); None: any.
    from_chassis: list[str] | None = None
    target_types: list[str] | None = None
    bands: list[Band] = []
    # The unit types its bands are said of (Combined Arms: «в случае попадания убивает» is said of
    # fighters; the sniper rifle's hit on a vehicle is «1 повреждение»); a model of another type it
    # reaches gets no band. None: every model.
    harms: list[str] | None = None
    note: str = ""


class Template(_Strict):
    shape: Literal["circle", "strip"]
    radius: float | None = Field(default=None, ge=0)
    length: float | None = Field(default=None, gt=0)
    width: float | None = Field(default=None, gt=0)
    inclusive: bool = True
    bands: list[Band] = []
    # The unit types its bands are said of (Combined Arms: «пехотинцы противника гибнут»); any
    # other model under it is listed without a band. None: every model.
    harms: list[str] | None = None
    scatter_per_pip: float | None = Field(default=None, gt=0)
    scatter_die: int = Field(default=6, ge=2)  # the sides of the die it scatters on (Bronepehota: d6)
    # Other names it answers to: a weapon's aliases, or a weapon «с характеристиками гранаты».
    aliases: list[str] = []
    # Terrain pieces within it are listed too (Combined Arms' charge: «Заряд уничтожает БЕ и
    # объекты ландшафта в радиусе 4 Д»).
    reaches_terrain: bool = False
    note: str = ""

    @model_validator(mode="after")
    def _sized(self) -> Template:
        if self.shape == "strip" and (self.length is None or self.width is None):
            raise ValueError("a strip template needs length and width")
        return self


class Ruleset(_Strict):
    """One game's numbers; everything the engine measures against comes from here."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")
    title: str
    source: str
    unit: Literal["cm", "mm", "in", "step"]
    default_step_cm: float | None = Field(default=None, gt=0)
    table_sizes_cm: list[tuple[float, float]] = []
    contact_tolerance_cm: float = Field(default=0.1, ge=0)
    moved_threshold_cm: float = Field(default=0.01, ge=0)
    turned_threshold_deg: float = Field(default=1.0, ge=0)
    premeasure_allowed: bool = True
    # The turn's phases in order, as the live game steps through them (Next phase on the phones);
    # an order-based game gives every unit its order before any acts on it. A user's ruleset set
    # none of this before: the order-based games were two ids written into the tracker.
    turn_phases: list[Phase] = Field(default=["deployment", "movement", "shooting", "assault"], min_length=1)
    check_bases: bool = False
    base_tolerance_mm: float = Field(default=1.0, ge=0)
    dash_phases: list[str] = []
    panic_heading_tolerance_deg: float | None = Field(default=None, ge=0, le=180)
    field_of_view_deg: float | None = Field(default=None, gt=0, le=360)
    move_reference: Literal["centre"] = "centre"
    unit_types: dict[str, UnitType]
    coherency: Threshold | None = None
    # Phases in which a move may not leave its unit split (None: every phase). Tankomaster asks it only
    # of a unit being placed: «При расстановке части расстояние между солдатами не должно превышать
    # 5 см. Но в бою может случиться так, что группа бойцов ... продолжает двигаться вперед».
    coherency_move_phases: list[str] | None = None
    enemy_buffer: Threshold | None = None
    enemy_buffer_phases: list[str] = ["movement", "shooting"]
    deployment: Deployment | None = None
    objectives: Objectives | None = None
    crew: Crew | None = None
    command: Command | None = None
    melee: Threshold | None = None
    # Who may start a melee and against whom (None: any model); a pair needs one of each.
    melee_attackers: Selector | None = None
    melee_targets: Selector | None = None
    terrain: dict[str, TerrainEffect] = {}
    cover: Cover | None = None
    weapons: dict[str, Weapon] = {}
    # Weapons a seed names without giving their ranges (World at Fire, Tankomaster): a scene may list
    # them, they reach no one; any other name is an error. With neither, every name passes.
    weapon_names: list[str] = []
    range_tolerance: float = Field(default=0.0, ge=0)
    # How far past its allowance a move still passes (Mobile Infantry judges every distance by eye,
    # «Во всех случаях, когда игрок ошибается по глазомеру до 1 см, этот сантиметр идет в пользу игрока»).
    move_tolerance: float = Field(default=0.0, ge=0)
    range_per_level_below: float = Field(default=0.0, ge=0)
    aimed_range_bonus: float = Field(default=0.0, ge=0)
    # States in which a shooter cannot aim, so `aimed` adds nothing (Mobile Infantry: hit in the left
    # arm, «персонаж не может использовать прицельную стрельбу»).
    aimed_not_flags: list[str] = []
    # States in which a model fights with no weapon this turn (Combined Arms: infantry just dropped
    # off «не может проявлять боевую активность», nor the fighter «переносящий раненого»).
    hold_fire_flags: list[str] = []
    # Roles that fire at these target types only, whatever the weapon (Combined Arms: «Снайпер ведёт
    # огонь только по пехоте противника», though his rifle could hit a class-1 vehicle in other hands).
    role_target_types: dict[str, list[str]] = {}
    # Sight runs level or down, never up (Mobile Infantry: sight is «при условии нахождения на
    # одинаковом уровне по высоте», and only a target «ниже» is an exception): weapons that need
    # sight do not reach a target on a higher level; a grenade, thrown, still does.
    no_sight_upward: bool = False
    # A role's own weapons, in place of its type's, where the scene names none (Combined Arms:
    # «Огнемётчик. Вооружён огнемётом»).
    role_weapons: dict[str, list[str]] = {}
    hex_mm: float | None = Field(default=None, gt=0)
    templates: dict[str, Template] = {}
    proximity: dict[str, ProximityRule] = {}
    tow: Tow | None = None
    mine_detection: MineDetection | None = None
    leader_sight: LeaderSight | None = None
    throw_over_obstacle: ObstacleThrow | None = None
    transport: Transport | None = None
    interception: Interception | None = None
    deployment_order: DeploymentOrder | None = None
    # How many actions a model's order lets it spend moving (Mobile Infantry: a static order is
    # «2 любых ... действия, кроме перемещения», a dynamic one a move and another action, an
    # intensive one 2 action points of moving). An order not named here does not limit the move.
    order_move_actions: dict[str, int] = {}
    # Roles a model may hold that no rule here reads (a seed's specialists whose rules the table
    # does not measure); with those the rules name, the roles a scene may give (`known_roles`).
    roles: list[str] = []
    # The unit types whose models may hold a role (empty: any). Combined Arms gives roles to its
    # fighters and a gun's heavy MG (`hmg`); a vehicle given `sniper` or `flamethrower` took that
    # role's targets and weapons.
    role_types: list[str] = []
    notes: list[str] = []

    @model_validator(mode="after")
    def _consistent(self) -> Ruleset:
        if self.unit == "step" and self.default_step_cm is None:
            raise ValueError("a ruleset measured in steps needs default_step_cm")
        for name, unit_type in self.unit_types.items():
            for what, variants in (("chassis", unit_type.chassis), ("base", unit_type.base_overrides)):
                for variant, overrides in variants.items():
                    unknown = set(overrides) - set(UnitType.model_fields)
                    if unknown:
                        raise ValueError(
                            f"unit type {name} {what} {variant} sets unknown field {sorted(unknown)}"
                        )
                    if overrides.get("obstacle_limit_from") not in (None, "wheel", "hull"):
                        raise ValueError(
                            f"unit type {name} {what} {variant} obstacle_limit_from must be wheel or hull"
                        )
            for size in unit_type.base_overrides:
                try:
                    float(size)
                except ValueError:
                    raise ValueError(
                        f"unit type {name} base_overrides key {size!r} is not a size in mm"
                    ) from None
            unpriced = set(unit_type.dash_flag_costs) - set(unit_type.flag_costs)
            if unpriced:
                raise ValueError(f"unit type {name} dash_flag_costs names uncosted flags {sorted(unpriced)}")
            self._known_weapons(unit_type.weapons, f"unit type {name}")
        if len(set(self.turn_phases)) < len(self.turn_phases):
            raise ValueError(f"turn_phases names a phase twice: {self.turn_phases}")
        unknown_types = set(self.role_types) - set(self.unit_types)
        if unknown_types:
            raise ValueError(f"role_types names unknown unit types {sorted(unknown_types)}")
        if self.throw_over_obstacle is not None:
            self._known_weapons(self.throw_over_obstacle.weapons, "throw_over_obstacle")
        if self.crew is not None:
            self._known_weapons(self.crew.gun_weapons, "crew gun_weapons")
        for role, weapons in self.role_weapons.items():
            self._known_weapons(weapons, f"role_weapons {role}")
        return self

    def _known_weapons(self, names: list[str], what: str) -> None:
        for weapon in names:
            if self.weapon(weapon) is None:
                raise ValueError(f"{what} names unknown weapon {weapon!r}")

    @cached_property
    def known_roles(self) -> list[str]:
        """Every role a scene may give a model: `roles`, and each one a rule names (any list
        under a key ending in `roles`, the roles with their own weapons or targets), so a role
        misspelt in a scene is refused rather than read as no role at all. Read once: the walk
        over the whole ruleset took 0.3-0.6 ms, and every scene parsed asks."""
        named = set(self.role_weapons) | set(self.role_target_types)
        pending: list = [self.model_dump()]
        while pending:
            item = pending.pop()
            if isinstance(item, dict):
                for key, value in item.items():
                    if key.endswith("roles") and isinstance(value, list):
                        named.update(role for role in value if isinstance(role, str))
                    else:
                        pending.append(value)
            elif isinstance(item, list):
                pending.extend(item)
        return sorted(named)

    def weapon(self, name: str) -> Weapon | None:
        """The weapon a scene's name means (its own name or an alias); None when the table lacks it."""
        if name in self.weapons:
            return self.weapons[name]
        return next((w for w in self.weapons.values() if name in w.aliases), None)

    def template(self, name: str) -> Template | None:
        """The template a name means (its own kind or an alias); None when the ruleset lacks it."""
        if name in self.templates:
            return self.templates[name]
        return next((t for t in self.templates.values() if name in t.aliases), None)

    def cm_per_unit(self, step_cm: float | None = None) -> float:
        """Table cm in one ruleset unit; a scene may set its own step length."""
        if self.unit == "step":
            return float(step_cm if step_cm is not None else self.default_step_cm)
        return CM_PER_UNIT[self.unit]

    def unit_type(self, name: str, chassis: str | None = None, base_mm: float | None = None) -> UnitType:
        """The type as this model moves: its chassis's overrides, then its round base size's (World
        at Fire: a 65 mm infantry base is a 2-man heavy weapon team)."""
        unit_type = self.unit_types[name]
        if chassis is not None and chassis in unit_type.chassis:
            unit_type = unit_type.model_copy(update=unit_type.chassis[chassis])
        if base_mm is not None:
            tolerance = self.base_tolerance_mm
            size = next((k for k in unit_type.base_overrides if abs(float(k) - base_mm) <= tolerance), None)
            if size is not None:
                unit_type = unit_type.model_copy(update=unit_type.base_overrides[size])
        return unit_type
