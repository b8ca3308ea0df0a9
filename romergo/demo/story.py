"""The demo story as data: chapters, scenes, lines and choices of "The Lighthouse Keeper's Secret".

Two problems are left in on purpose, so the story check and the demo agent have something real
to find: "The Forgotten Cellar" has no way in (`unreachable_scene`), and the beacon's "Signal the
ship" waits for `lens_mended`, which nothing ever sets (`never_true_condition`, `unset_variable`).

The story remembers: entering the smugglers' cave finds Old Tom's key (`has_key`),
which later opens a choice and a line on the pier.
"""

from __future__ import annotations

from romergo.demo.media import Backdrop, Tune

TITLE = "The Lighthouse Keeper's Secret"
DELIBERATE_PROBLEM_SCENE = "The Forgotten Cellar"
DELIBERATE_STATE_PROBLEM = ("The Beacon", "Signal the ship")

CHARACTERS = {"Mara": "#2980b9", "Old Tom": "#c0392b", "The Stranger": "#8e44ad"}

BACKGROUNDS = {
    "Harbor at Dawn": (
        Backdrop((250, 196, 150), (120, 170, 210), (255, 236, 170), (0.75, 0.35), (40, 70, 110), 0.02),
        ["harbor", "dawn", "sea"],
    ),
    "Stormy Lighthouse": (
        Backdrop((40, 44, 60), (90, 100, 120), (230, 230, 200), (0.3, 0.25), (50, 55, 50), 0.18),
        ["storm", "night", "lighthouse"],
    ),
    "Tavern Glow": (
        Backdrop((90, 50, 20), (200, 120, 50), (255, 210, 120), (0.5, 0.3), (70, 40, 25), 0.05),
        ["tavern", "interior", "warm"],
    ),
    "Cliff Path at Night": (
        Backdrop((10, 15, 40), (40, 60, 100), (240, 240, 255), (0.2, 0.2), (30, 40, 35), 0.28),
        ["cliff", "night", "moon"],
    ),
    "Smugglers' Cave": (
        Backdrop((20, 20, 20), (60, 70, 60), (110, 200, 180), (0.6, 0.6), (45, 40, 35), 0.35),
        ["cave", "dark"],
    ),
}

MUSIC = {
    "Harbor Theme": (Tune((0, 4, 7, 12, 7, 4, 2, 0), 220.0, 0.45, "sine"), ["calm", "theme"]),
    "Storm Tension": (Tune((0, 3, 6, 3, 0, 1, 0, -2), 146.8, 0.3, "square"), ["tension", "storm"]),
    "Dawn Fanfare": (Tune((0, 4, 7, 12, 12, 7, 12, 16), 261.6, 0.35, "triangle"), ["victory", "bright"]),
}

# (chapter title, chapter music, [(scene title, background, is_ending, [(speaker or None, text)],
#   [(choice label, target scene title)])])
CHAPTERS: list[
    tuple[str, str, list[tuple[str, str, bool, list[tuple[str | None, str]], list[tuple[str, str]]]]]
] = [
    (
        "The Storm",
        "Harbor Theme",
        [
            (
                "Arrival at the Harbor",
                "Harbor at Dawn",
                False,
                [
                    (None, "The ferry bumps against the pier. Gulls scream over a grey, restless sea."),
                    ("Mara", "So this is Saltreach. Grandmother said the light here never goes out."),
                    ("Old Tom", "It went out three nights ago, miss. First time in forty years."),
                ],
                [("Climb to the lighthouse", "The Lighthouse Door"), ("Ask around the tavern", "The Tavern")],
            ),
            (
                "The Lighthouse Door",
                "Stormy Lighthouse",
                False,
                [
                    (None, "The door is unlocked. Salt has eaten the brass handle green."),
                    ("Mara", "Hello? Is anyone keeping this light?"),
                ],
                [("Go inside", "The Lamp Room")],
            ),
            (
                "The Tavern",
                "Tavern Glow",
                False,
                [
                    (None, "Warm air, wet coats, and a silence that falls the moment you enter."),
                    ("The Stranger", "Looking for the keeper? Nobody's seen him since the light died."),
                    ("Mara", "Then who has been rowing out to the cliffs every night?"),
                ],
                [
                    ("Follow the stranger", "The Cliff Path"),
                    ("Return to the harbor", "Arrival at the Harbor"),
                ],
            ),
        ],
    ),
    (
        "The Keeper",
        "Storm Tension",
        [
            (
                "The Lamp Room",
                "Stormy Lighthouse",
                False,
                [
                    (None, "Glass everywhere. The great lens is cracked, the logbook open on the desk."),
                    ("Mara", "Someone broke this on purpose."),
                ],
                [("Read the logbook", "The Logbook"), ("Light the lamp", "The Beacon")],
            ),
            (
                "The Cliff Path",
                "Cliff Path at Night",
                False,
                [
                    ("The Stranger", "Keep close to the rock. The path remembers who falls."),
                    (None, "Below, a lantern flickers where no lantern should be."),
                ],
                [("Hide in the cave", "The Smugglers' Cave"), ("Go to the lighthouse", "The Lamp Room")],
            ),
            (
                "The Logbook",
                "Stormy Lighthouse",
                False,
                [
                    (None, "The last entry is in Tom's hand: 'They pay well for a dark night.'"),
                    ("Mara", "Tom put out the light himself."),
                ],
                [("Confront Tom", "Confrontation on the Pier")],
            ),
            (
                "The Beacon",
                "Stormy Lighthouse",
                False,
                [
                    (None, "You strike a match. Through the cracked lens the beam still reaches the sea."),
                    ("Mara", "Let them see it, whoever they are."),
                ],
                [("Go down to the pier", "Confrontation on the Pier")],
            ),
            (
                "The Smugglers' Cave",
                "Smugglers' Cave",
                False,
                [
                    (None, "Crates stamped with foreign seals. Old Tom's coat hangs on a nail."),
                    ("The Stranger", "Now you know. The question is what you'll do with it."),
                ],
                [
                    ("Stand your ground", "A New Keeper"),
                    ("Slip away to the pier", "Confrontation on the Pier"),
                ],
            ),
            (
                DELIBERATE_PROBLEM_SCENE,
                "Smugglers' Cave",
                False,
                [
                    (None, "Beneath the lighthouse, a cellar nobody mentioned. Letters, dozens of them."),
                    ("Mara", "Grandmother's handwriting... she knew about all of this."),
                ],
                [("Take the letters to the logbook", "The Logbook")],
            ),
        ],
    ),
    (
        "Dawn",
        "Dawn Fanfare",
        [
            (
                "Confrontation on the Pier",
                "Harbor at Dawn",
                False,
                [
                    ("Old Tom", "I needed the money, Mara. The town forgot this light long ago."),
                    ("Mara", "Ships didn't forget it. Ships need it."),
                ],
                [("Forgive him", "A New Keeper"), ("Call the harbor guard", "The Ship Sails Away")],
            ),
            (
                "A New Keeper",
                "Harbor at Dawn",
                True,
                [
                    (None, "Weeks later, the light turns again, steady as a heartbeat."),
                    ("Mara", "Grandmother was right. It never goes out. Not while someone keeps it."),
                ],
                [],
            ),
            (
                "The Ship Sails Away",
                "Harbor at Dawn",
                True,
                [
                    (None, "The smugglers' ship slips over the horizon, lighter by one crew member."),
                    ("Old Tom", "Keep it burning, miss. I couldn't."),
                ],
                [],
            ),
        ],
    ),
]

# -- state: (name, type, starting value, description) -------------------------------------------
VARIABLES: list[tuple[str, str, bool | int | str, str]] = [
    ("has_key", "flag", False, "Mara has found Old Tom's key (in the smugglers' cave)."),
    ("lens_mended", "flag", False, "The lighthouse lens is mended. Nothing sets it yet."),
]
ENTRY_EFFECTS = {"The Smugglers' Cave": "set has_key = true"}
CONDITIONAL_LINES: dict[str, list[tuple[str | None, str, str]]] = {
    "Confrontation on the Pier": [
        ("Mara", "I found your key in the cave, Tom. I know everything.", "has_key")
    ],
}
"""Scene title → lines added after its others, each with the condition that shows it."""
CONDITIONAL_CHOICES: dict[str, list[tuple[str, str, str]]] = {
    "Confrontation on the Pier": [("Show Tom his key", "A New Keeper", "has_key")],
    "The Beacon": [("Signal the ship", "The Ship Sails Away", "lens_mended")],
}
"""Scene title → choices added after its others: (label, target scene title, condition)."""
