"""Domain-randomised scenes: KenKen puzzles as apps, web sites, print, pens and cameras show them.

    scene(family, seed, heldout=False, **knobs) -> Scene

A Scene is one picture as a user's file holds it (PNG for screens, JPEG for
photos and print), with the truth: every KenKen in it, in reading order, with
its solution and its corners in the picture.  Keypads, toolbars, ads, sudokus
and crosswords are in the picture and are no puzzle.

Families (each draws its own puzzles, sizes 3..9, and randomises its layout,
sizes, lines, labels and furniture independently, deterministically per seed):
  app     phone (portrait, 320..1440 px wide), tablet and desktop screenshots:
          status bar, toolbar, the board (cage colours, a highlighted row and
          column, a selected cell, rounded frame, thick or outlined cages), a
          keypad (1..n or 1..9: a row, rows, a 3x3 pad, a strip of cells, bare
          digits) with tool buttons, banners and ads; light and dark themes
  web     a web page: header, title, text, the grid with bold labels 10..45% of
          the cell, thin or thick frame, minus as − - — –, times as × x * X,
          divide as ÷ /; buttons, sidebar ads, thumbnails of other puzzles
  print   a scanned book or newspaper page: one to four KenKens, each maybe in
          a ruled box (loose or tight), with a rule or text touching its frame,
          beside sudokus and crosswords; halftone, tint, show-through, scan
  colour  an app's screen whose cages are told by their fills alone (no cage
          line; neighbours' colours differ), in the themes that draw them so
  filled  any of those with answers in some or all cells: typed by an app,
          handwritten, drawn as kkvision draws them, and pencil marks; on a
          print theme a pen's ink is on paper (the print stays dark where
          it crosses), on an app's or a page's it covers what it crosses
  photo   a phone's photo of a page (curved, a crop with neighbours cut off)
          or of a screen (pixel grid moire, glare): perspective, shadow, blur
  turned  any of the above turned by 90, 180 or 270 degrees (no EXIF)
  dim     any of the above at a third of the brightness range, or under uneven light

Themes are named colour schemes with their fonts (THEMES); TRAIN_THEMES are
for developing against, HELDOUT_THEMES (heldout=True) use only held-out fonts
(synth.HELDOUT_FONTS and SCENE_HELDOUT_FONTS, handwriting too) and colour
schemes no train theme has: the unseen-style figure.  The label network was
trained on synth.TRAIN_FONTS only, so SCENE_TRAIN_FONTS are new to it as well.
The held-out themes have been looked at while mending the reader (tests name
their scenes), so they are development data too.  LOCKED_THEMES (locked=True:
the locked split, seeds from LOCKED_SEED in the benchmarks) are colour schemes
and layouts of their own in faces no model saw (LOCKED_LABEL_FONTS), with the
held-out hands and the 'locked' writers: no rule, constant or test is tuned on
them (tests/test_locked_split.py fails on a test that makes one but there),
and the benchmarks report them apart.

Knobs fix a choice the family would draw (tests use them): any family: theme
(a name in THEMES, of the split); app: device ('phone', 'small', 'tablet',
'desktop'), keypad (a style of scene_parts.KEYPADS or 'none'), ads (False:
none), cages (one of the theme's Theme.borders, or 'colour': the fills alone,
where Theme.by_colour); print: count (1..4), frame ('open', 'ruled', 'tight', 'rule',
'text'), neighbours (0..2); filled: mode ('typed', 'written', 'drawn',
'pencil', 'mixed', or a real hand's HAND_MODES 'hand', 'hand-big', 'hand-pencil'),
wrong (that many answers wrong), writer (the real hand), blank (nothing written:
the same picture blank), photo (photographed by a phone); turned: turn (1..3 quarter turns counterclockwise);
dim: dim ('dark', 'washed', 'uneven'); photo/turned/dim/filled: base (a family).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property

import cv2
import numpy as np
from PIL import Image, ImageDraw

from devtools import scene_parts as parts
from devtools.generate import random_puzzle
from devtools.scene_board import (
    DIVIDE,
    MINUS,
    RGB,
    TIMES,
    BoardStyle,
    Corners,
    Fill,
    draw_board,
    draw_crossword,
    draw_sudoku,
    font,
    solution_fill,
)
from devtools.synth import HELDOUT_FONTS, TRAIN_FONTS
from kkvision.puzzle import Grid, Puzzle
from kkvision.vocab import Cell

FAMILIES = ("app", "web", "print", "colour", "filled", "photo", "turned", "dim")
SCENE_TRAIN_FONTS = ("Inter-Bold.otf", "Inter-SemiBold.otf", "Manrope-Bold.ttf", "JetBrainsMono-Bold.ttf",
                     "Quicksand-Bold.ttf", "Cabin-Bold.otf", "Oxygen-Sans-Bold.ttf", "Inter-Regular.otf")
SCENE_HELDOUT_FONTS = ("LeagueSpartan-Bold.otf", "Dosis-SemiBold.otf", "Dosis-Bold.otf", "Comfortaa-Bold.ttf",
                       "B612-Regular.otf", "B612Mono-Bold.otf", "Karla-Bold.otf", "Karla-Regular.otf")
TRAIN_LABEL_FONTS = tuple(TRAIN_FONTS) + SCENE_TRAIN_FONTS  # what train themes may draw labels with
HELDOUT_LABEL_FONTS = tuple(HELDOUT_FONTS) + SCENE_HELDOUT_FONTS  # and held-out ones
HAND_TRAIN = ("Humor-Sans.ttf", "ComicNeue-Regular.otf", "ComicNeue-Bold.otf")
HAND_HELDOUT = ("dkg.ttf", "dkgBd.ttf", "Breip.ttf")
PENS = ((20, 30, 120), (15, 15, 15), (60, 60, 70), (120, 120, 125), (150, 20, 30), (20, 90, 40))


@dataclass(frozen=True)
class Theme:
    """A named look: colour scheme, fonts, the cage drawings it uses."""

    name: str
    kind: str  # 'app', 'web' or 'print'
    bg: RGB  # the screen's or page's background
    paper: RGB  # the grid's cells (print: white, the paper's tint is `bg`, laid on when printed)
    ink: RGB  # labels
    line: RGB  # cage borders and frame
    thin: RGB  # cell lines
    accent: RGB  # bars, buttons, links, rules
    text: RGB  # UI and body text
    answer: RGB  # typed answers
    fonts: tuple[str, ...]  # label fonts
    ui: tuple[str, ...]  # UI, title and body fonts
    dark: bool = False
    key_bg: RGB = (230, 230, 235)
    key_fg: RGB = (20, 20, 20)
    fills: tuple[RGB, ...] = ()  # cage backgrounds
    borders: tuple[str, ...] = ("thick",)  # cage drawings: thick, outline, dashed
    by_colour: bool = False  # its fills alone may draw the cages (border 'colour': the family 'colour' draws them)
    highlight: RGB = (225, 235, 250)
    selected: RGB = (255, 245, 150)
    given: str = ""  # printed after a single cell's digit: '+' where an app prints a given 7 as '7+'
    book: bool = False  # '-' and '/' over three cells, as puzzle books print them (_book_rules)
    halftone: float = 0.3  # print: how often the page is printed through a dot screen (newsprint: mostly)
    colour_screen: bool = False  # print: that screen in colour (a magazine's), else in grey


PASTELS = ((255, 228, 225), (225, 245, 225), (225, 235, 255), (255, 250, 210), (240, 225, 250), (220, 245, 245))
TRAIN_THEMES = (
    Theme("classic-light", "app", (245, 245, 245), (255, 255, 255), (0, 0, 0), (0, 0, 0), (170, 170, 170),
          (33, 150, 243), (33, 33, 33), (30, 80, 200), ("Roboto-Bold.ttf", "DejaVuSans-Bold.ttf", "Roboto-Regular.ttf"),
          ("Roboto-Regular.ttf", "Roboto-Bold.ttf")),
    Theme("mathdoku-teal", "app", (48, 72, 72), (255, 255, 255), (40, 40, 150), (0, 0, 0), (200, 200, 200),
          (40, 60, 60), (240, 240, 240), (30, 30, 30), ("DejaVuSans-Bold.ttf", "LiberationSans-Bold.ttf"),
          ("Roboto-Regular.ttf",), key_bg=(15, 50, 65), key_fg=(250, 220, 40), selected=(255, 255, 150)),
    Theme("material-dark", "app", (18, 18, 18), (30, 30, 30), (230, 230, 230), (220, 220, 220), (80, 80, 80),
          (187, 134, 252), (230, 230, 230), (130, 200, 255), ("Roboto-Bold.ttf", "Inter-Bold.otf"),
          ("Roboto-Regular.ttf", "Inter-Regular.otf"), dark=True, key_bg=(45, 45, 45), key_fg=(240, 240, 240),
          highlight=(45, 45, 60), selected=(70, 60, 100)),
    Theme("pastel-cages", "app", (250, 250, 250), (255, 255, 255), (40, 40, 40), (60, 60, 60), (190, 190, 190),
          (255, 140, 90), (40, 40, 40), (220, 90, 40), ("OpenSans-Bold.ttf", "Lato-Bold.ttf", "Manrope-Bold.ttf"),
          ("OpenSans-Regular.ttf", "Lato-Regular.ttf"), fills=PASTELS, borders=("thick", "outline"), by_colour=True),
    Theme("sepia", "app", (240, 230, 210), (250, 243, 228), (80, 50, 20), (70, 45, 20), (190, 170, 140),
          (150, 100, 50), (70, 45, 20), (40, 90, 140), ("DejaVuSerif-Bold.ttf", "LiberationSerif-Bold.ttf",
                                                        "Caladea-Bold.ttf"),
          ("DejaVuSerif.ttf", "Caladea-Regular.ttf"), key_bg=(225, 210, 185), key_fg=(70, 45, 20)),
    Theme("ios-light", "app", (242, 242, 247), (255, 255, 255), (0, 0, 0), (0, 0, 0), (200, 200, 205),
          (0, 122, 255), (0, 0, 0), (0, 122, 255), ("Inter-SemiBold.otf", "FreeSansBold.ttf", "Carlito-Regular.ttf"),
          ("Inter-Regular.otf", "Cantarell-Regular.otf"), key_bg=(255, 255, 255), key_fg=(0, 122, 255),
          borders=("thick", "thick", "outline"), given="+"),
    Theme("midnight-blue", "app", (15, 23, 42), (30, 41, 59), (226, 232, 240), (148, 163, 184), (51, 65, 85),
          (56, 189, 248), (226, 232, 240), (250, 204, 21), ("JetBrainsMono-Bold.ttf", "Quicksand-Bold.ttf"),
          ("Quicksand-Bold.ttf", "Cabin-Bold.otf"), dark=True, key_bg=(51, 65, 85), key_fg=(226, 232, 240),
          borders=("thick", "dashed"), highlight=(40, 55, 80), selected=(60, 80, 120)),
    Theme("newsroom", "web", (255, 255, 255), (255, 255, 255), (0, 0, 0), (0, 0, 0), (150, 150, 150),
          (20, 20, 20), (30, 30, 30), (30, 30, 30), ("LiberationSans-Bold.ttf", "DejaVuSans-Bold.ttf", "FreeSansBold.ttf"),
          ("LiberationSerif-Regular.ttf", "LiberationSans-Regular.ttf")),
    Theme("puzzle-portal", "web", (235, 240, 250), (255, 255, 255), (10, 40, 110), (10, 40, 110), (160, 170, 190),
          (25, 80, 180), (20, 30, 50), (25, 80, 180), ("OpenSans-Bold.ttf", "Roboto-Bold.ttf", "Lato-Bold.ttf"),
          ("OpenSans-Regular.ttf", "Roboto-Regular.ttf"), fills=PASTELS[:4]),
    Theme("blog-minimal", "web", (252, 252, 250), (255, 255, 255), (50, 50, 50), (40, 40, 40), (210, 210, 210),
          (200, 60, 60), (50, 50, 50), (200, 60, 60), ("Inter-Bold.otf", "Manrope-Bold.ttf", "Cabin-Bold.otf"),
          ("Inter-Regular.otf", "Lato-Regular.ttf")),
    Theme("dark-blog", "web", (24, 26, 27), (32, 34, 36), (232, 230, 227), (220, 220, 220), (90, 90, 90),
          (100, 170, 255), (220, 220, 220), (100, 170, 255), ("Oxygen-Sans-Bold.ttf", "DejaVuSans-Bold.ttf"),
          ("DejaVuSans.ttf", "Lato-Regular.ttf"), dark=True),
    Theme("newspaper", "print", (245, 240, 228), (255, 255, 255), (0, 0, 0), (0, 0, 0), (90, 90, 90),
          (0, 0, 0), (25, 25, 25), (25, 25, 25), ("LiberationSans-Bold.ttf", "FreeSansBold.ttf", "DejaVuSans-Bold.ttf"),
          ("LiberationSerif-Regular.ttf", "DejaVuSerif.ttf"), halftone=0.7),
    Theme("puzzle-book", "print", (255, 255, 252), (255, 255, 255), (0, 0, 0), (0, 0, 0), (110, 110, 110),
          (0, 0, 0), (20, 20, 20), (20, 20, 20), ("LiberationSerif-Bold.ttf", "DejaVuSerif-Bold.ttf",
                                                  "Caladea-Bold.ttf", "Roboto-Bold.ttf"),
          ("LiberationSerif-Regular.ttf", "Caladea-Regular.ttf"), book=True),
    Theme("magazine", "print", (255, 255, 255), (255, 255, 255), (30, 30, 60), (30, 30, 60), (140, 140, 160),
          (200, 30, 60), (30, 30, 60), (30, 30, 60), ("Lato-Bold.ttf", "OpenSans-Bold.ttf", "Carlito-Regular.ttf"),
          ("Lato-Regular.ttf", "OpenSans-Regular.ttf"), fills=((255, 240, 230), (235, 245, 255)), colour_screen=True),
)
HELDOUT_THEMES = (
    Theme("amoled-neon", "app", (0, 0, 0), (0, 0, 0), (255, 64, 200), (0, 230, 255), (40, 60, 70),
          (0, 230, 255), (230, 230, 230), (255, 255, 255), ("Dosis-Bold.otf", "LeagueSpartan-Bold.otf"),
          ("Dosis-SemiBold.otf",), dark=True, key_bg=(20, 20, 20), key_fg=(0, 230, 255), highlight=(10, 30, 40),
          selected=(50, 0, 60), borders=("thick", "dashed")),
    Theme("solarized-dark", "app", (0, 43, 54), (7, 54, 66), (238, 232, 213), (147, 161, 161), (88, 110, 117),
          (181, 137, 0), (238, 232, 213), (38, 139, 210), ("B612Mono-Bold.otf", "Karla-Bold.otf"),
          ("Karla-Regular.otf", "B612-Regular.otf"), dark=True, key_bg=(7, 54, 66), key_fg=(181, 137, 0),
          highlight=(20, 70, 85), selected=(60, 80, 40)),
    Theme("forest", "app", (232, 245, 233), (248, 255, 248), (27, 94, 32), (27, 94, 32), (165, 214, 167),
          (46, 125, 50), (27, 60, 30), (180, 60, 20), ("Karla-Bold.otf", "NimbusSans-Bold.otf"),
          ("Karla-Regular.otf", "NimbusSans-Regular.otf"), key_bg=(200, 230, 201), key_fg=(27, 94, 32),
          fills=((220, 240, 220), (240, 250, 225), (225, 240, 240)), given="+"),
    Theme("candy", "app", (255, 240, 246), (255, 255, 255), (136, 14, 79), (216, 27, 96), (248, 187, 208),
          (236, 64, 122), (136, 14, 79), (60, 60, 200), ("Comfortaa-Bold.ttf", "URWGothic-Book.otf"),
          ("Comfortaa-Bold.ttf",), key_bg=(248, 187, 208), key_fg=(136, 14, 79),
          fills=((255, 235, 238), (243, 229, 245), (232, 234, 246), (255, 248, 225)),
          borders=("outline", "dashed", "thick"), by_colour=True),
    Theme("retro-site", "web", (255, 250, 230), (255, 253, 240), (0, 0, 0), (0, 0, 0), (120, 120, 120),
          (128, 0, 0), (20, 20, 20), (0, 0, 160), ("NimbusMonoPS-Regular.otf", "NimbusSans-Bold.otf", "C059-Roman.otf"),
          ("NimbusRoman-Regular.otf", "NimbusMonoPS-Regular.otf")),
    Theme("kids-site", "web", (255, 245, 200), (255, 255, 255), (20, 80, 160), (230, 80, 30), (150, 200, 240),
          (230, 80, 30), (40, 40, 80), (230, 80, 30), ("Comfortaa-Bold.ttf", "LeagueSpartan-Bold.otf"),
          ("Comfortaa-Bold.ttf", "Dosis-SemiBold.otf"), fills=((255, 230, 200), (210, 240, 255), (230, 255, 210))),
    Theme("terminal-dark", "web", (12, 12, 12), (12, 12, 12), (80, 250, 123), (80, 250, 123), (30, 90, 45),
          (80, 250, 123), (200, 200, 200), (240, 240, 90), ("B612Mono-Bold.otf", "NimbusMonoPS-Regular.otf"),
          ("B612Mono-Bold.otf",), dark=True),
    Theme("workbook", "print", (252, 252, 248), (255, 255, 255), (20, 20, 20), (20, 20, 20), (100, 100, 100),
          (20, 20, 20), (20, 20, 20), (20, 20, 20), ("NimbusSans-Bold.otf", "NimbusRoman-Regular.otf",
                                                     "C059-Roman.otf", "P052-Roman.otf"),
          ("P052-Roman.otf", "NimbusSans-Regular.otf"), book=True),
    Theme("vintage-newsprint", "print", (238, 228, 200), (255, 255, 255), (40, 35, 30), (40, 35, 30),
          (110, 100, 90), (40, 35, 30), (40, 35, 30), (40, 35, 30), ("URWBookman-Light.otf", "NimbusSans-Regular.otf",
                                                                   "URWGothic-Book.otf"),
          ("C059-Roman.otf", "NimbusRoman-Regular.otf"), halftone=0.7),
)
# The locked split's label faces: weights of the held-out designs (devtools.train_labels.HELDOUT) that no
# other theme prints with, so no model saw them and no rule was mended on them.
LOCKED_LABEL_FONTS = ("URWGothic-Demi.otf", "C059-Bold.otf", "P052-Bold.otf", "URWBookman-Demi.otf",
                      "NimbusSansNarrow-Bold.otf", "NimbusRoman-Bold.otf", "NimbusMonoPS-Bold.otf", "B612-Bold.otf",
                      "ClearSans-Bold.ttf", "ClearSans-Medium.ttf", "FiraCode-Bold.ttf", "FiraCode-SemiBold.ttf")
LOCKED_THEMES = (
    Theme("lilac", "app", (246, 244, 252), (255, 255, 255), (60, 30, 110), (80, 50, 130), (205, 195, 225),
          (120, 80, 200), (50, 30, 90), (20, 110, 90), ("ClearSans-Bold.ttf", "URWGothic-Demi.otf"),
          ("ClearSans-Medium.ttf",), key_bg=(232, 226, 248), key_fg=(60, 30, 110),
          fills=((238, 230, 255), (255, 236, 246), (228, 246, 240), (252, 246, 226)),
          borders=("thick", "outline"), by_colour=True, highlight=(236, 232, 250), selected=(255, 236, 200)),
    Theme("harbour-night", "app", (8, 20, 32), (14, 32, 50), (190, 225, 250), (110, 180, 220), (36, 64, 88),
          (255, 170, 60), (200, 220, 235), (255, 190, 90), ("FiraCode-Bold.ttf", "NimbusSansNarrow-Bold.otf"),
          ("FiraCode-SemiBold.ttf",), dark=True, key_bg=(20, 44, 66), key_fg=(255, 190, 90),
          borders=("thick", "dashed"), highlight=(20, 46, 70), selected=(70, 60, 30), given="+"),
    Theme("almanac-site", "web", (246, 241, 232), (255, 253, 248), (90, 40, 20), (90, 40, 20), (185, 170, 155),
          (150, 70, 30), (60, 40, 30), (20, 70, 140), ("P052-Bold.otf", "B612-Bold.otf", "URWGothic-Demi.otf"),
          ("P052-Roman.otf", "Karla-Regular.otf"), fills=((250, 235, 215), (235, 240, 225))),
    Theme("slate-site", "web", (38, 42, 50), (48, 53, 62), (235, 235, 240), (210, 210, 220), (85, 90, 100),
          (240, 110, 110), (215, 215, 222), (255, 140, 140), ("ClearSans-Bold.ttf", "NimbusMonoPS-Bold.otf"),
          ("ClearSans-Medium.ttf",), dark=True),
    Theme("gazette", "print", (236, 231, 214), (255, 255, 255), (20, 20, 20), (20, 20, 20), (120, 115, 105),
          (20, 20, 20), (30, 30, 30), (30, 30, 30), ("C059-Bold.otf", "NimbusSansNarrow-Bold.otf",
                                                     "URWBookman-Demi.otf"),
          ("C059-Roman.otf", "NimbusSans-Regular.otf"), halftone=0.7),
    Theme("school-sheet", "print", (255, 255, 255), (255, 255, 255), (10, 40, 90), (10, 40, 90), (150, 160, 180),
          (10, 40, 90), (10, 40, 90), (10, 40, 90), ("NimbusRoman-Bold.otf", "B612-Bold.otf", "P052-Bold.otf"),
          ("NimbusRoman-Regular.otf", "B612-Regular.otf"), book=True, colour_screen=True),
)
THEMES = {t.name: t for t in TRAIN_THEMES + HELDOUT_THEMES + LOCKED_THEMES}
LOCKED_SEED = 50_000  # the benchmarks' locked split starts its seeds here (its themes are its own either way)


@dataclass(frozen=True)
class Truth:
    """One KenKen of a scene: the puzzle, its solution, its frame's outer corners (tl, tr, br, bl) in the picture."""

    puzzle: Puzzle
    solution: Grid
    corners: Corners
    fill: Fill | None = None  # the answers and pencil marks written in its cells (filled scenes)

    @property
    def box(self) -> tuple[int, int, int, int]:
        xs, ys = [x for x, _ in self.corners], [y for _, y in self.corners]
        return round(min(xs)), round(min(ys)), round(max(xs)), round(max(ys))


@dataclass(frozen=True)
class Scene:
    family: str
    theme: str
    seed: int
    heldout: bool  # drawn in held-out faces and hands (the locked split's are too)
    data: bytes = field(repr=False)  # the file's bytes: PNG (screens) or JPEG (photos, print)
    ext: str  # '.png' or '.jpg'
    puzzles: tuple[Truth, ...]  # every KenKen in reading order (keypads, sudokus, crosswords are none)
    notes: tuple[str, ...] = ()  # the choices drawn: device, keypad, frame, base family...
    locked: bool = False  # of the locked split (LOCKED_THEMES): nothing is tuned on it

    @property
    def split(self) -> str:
        """'train', 'heldout' or 'locked': the benchmarks' rows."""
        return "locked" if self.locked else "heldout" if self.heldout else "train"

    @property
    def name(self) -> str:
        return f"{self.family}-{self.split}-{self.seed}-{self.theme}{self.ext}"

    @cached_property
    def image(self) -> np.ndarray:
        """The picture as kkvision decodes it: a BGR array."""
        picture = cv2.imdecode(np.frombuffer(self.data, np.uint8), cv2.IMREAD_COLOR)
        assert picture is not None, "scenes encode what OpenCV decodes"
        return picture

    @property
    def pil(self) -> Image.Image:
        return Image.fromarray(cv2.cvtColor(self.image, cv2.COLOR_BGR2RGB))


@dataclass
class Draft:
    """A scene being made: the RGB picture, the KenKens drawn so far (corners follow every warp)."""

    picture: np.ndarray
    puzzles: list[tuple[Puzzle, Grid, Fill | None]]  # each with what was written in its cells
    corners: list[Corners]
    ext: str
    quality: int = 92
    notes: list[str] = field(default_factory=list)
    label_frac: float = 1.0  # the smallest label drawn, a fraction of its cell (a photo keeps it legible)


class Knobs:
    """The choices a caller fixed; every other choice is drawn."""

    def __init__(self, given: dict[str, object]) -> None:
        self.given = dict(given)

    def take(self, name: str, draw: Callable[[], object]) -> object:
        return self.given.pop(name) if name in self.given else draw()


def scene(family: str, seed: int, heldout: bool = False, locked: bool = False, **knobs: object) -> Scene:
    """One scene of the family, the same for the same arguments.  `locked`: of the locked split (its own
    themes, in held-out faces and hands, the 'locked' writers; `heldout` then goes without saying)."""
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}: one of {', '.join(FAMILIES)}")
    rng = random.Random(f"kkvision-scene:{family}:{seed}:{'locked' if locked else int(heldout)}")
    heldout = heldout or locked
    themes = LOCKED_THEMES if locked else HELDOUT_THEMES if heldout else TRAIN_THEMES
    if family == "colour":  # an app's screen whose cages are told by their fills alone
        themes = tuple(t for t in themes if t.by_colour)
        knobs = {"cages": "colour", **knobs}
    k = Knobs(knobs)
    kind = (family if family in ("app", "web", "print") else "app" if family == "colour"
            else rng.choice(["app", "web", "print"]))
    theme = rng.choice([t for t in themes if t.kind == kind])
    if "theme" in knobs:
        theme = THEMES[str(k.take("theme", lambda: None))]
        if theme not in themes:
            raise ValueError(f"theme {theme.name!r} is not a {'locked' if locked else 'held-out' if heldout else 'train'}"
                             " theme")
    draft = BUILDERS[family](rng, theme, heldout, k)
    if k.given:
        raise TypeError(f"scene({family!r}): unknown knobs {', '.join(k.given)}")
    data = parts.encode(draft.picture, draft.ext, draft.quality)
    order = reading_order([_box(c) for c in draft.corners])
    truths = tuple(Truth(*draft.puzzles[i][:2], draft.corners[i], draft.puzzles[i][2]) for i in order)
    return Scene(family, theme.name, seed, heldout, data, draft.ext, truths, tuple(draft.notes), locked)


def reading_order(boxes: list[tuple[float, float, float, float]]) -> list[int]:
    """Rows of boxes (heights overlapping by half the shorter) top to bottom, left to right in a row."""
    rows: list[list[int]] = []
    for i in sorted(range(len(boxes)), key=lambda k: boxes[k][1]):
        for row in rows:
            a = boxes[row[0]]
            b = boxes[i]
            if min(a[3], b[3]) - max(a[1], b[1]) >= 0.5 * min(a[3] - a[1], b[3] - b[1]):
                row.append(i)
                break
        else:
            rows.append([i])
    return [i for row in rows for i in sorted(row, key=lambda k: boxes[k][0])]


def _box(corners: Corners) -> tuple[float, float, float, float]:
    xs, ys = [x for x, _ in corners], [y for _, y in corners]
    return min(xs), min(ys), max(xs), max(ys)


# ---------------------------------------------------------------- shared draws

def _book_rules(puzzle: Puzzle, grid: Grid) -> Puzzle:
    """The puzzle as a book that prints '-' and '/' over three cells prints it: each 3-cell cage whose
    digits make such a clue (the largest over the others' product, else the largest less the others)
    takes it, where the grid stays the puzzle's only solution.  No random draw: the scene is as before."""
    from kkvision.errors import KkvisionError
    from kkvision.puzzle import Cage, by_largest
    from kkvision.solver import solve

    cages = list(puzzle.cages)
    for i, cage in enumerate(cages):
        if len(cage.cells) != 3 or cage.op == "?":
            continue
        values = [grid[r][c] for r, c in cage.cells]
        quotient, difference = by_largest("/", values), by_largest("-", values)
        if quotient is not None:
            book = Cage("/", quotient, cage.cells)
        elif difference is not None and difference >= 1:
            book = Cage("-", difference, cage.cells)
        else:
            continue
        trial = Puzzle(puzzle.size, tuple(cages[:i] + [book] + cages[i + 1:]))
        try:
            if solve(trial, require_unique=True).grid == grid:
                cages[i] = book
        except KkvisionError:
            continue
    return Puzzle(puzzle.size, tuple(cages))


def _puzzle(rng: random.Random, sizes: tuple[int, ...] = (3, 4, 5, 6, 7, 8, 9),
            weights: tuple[int, ...] = (1, 3, 3, 4, 3, 3, 3), hidden: float = 0.0) -> tuple[Puzzle, Grid]:
    n = rng.choices(sizes, weights)[0]
    return random_puzzle(n, rng.randrange(2**31), hidden_ops=n <= 6 and rng.random() < hidden)


def _contrast(c: RGB) -> RGB:
    return (255, 255, 255) if sum(c) < 380 else (15, 15, 15)


def _style(rng: random.Random, theme: Theme, cell: float, *, labels: tuple[float, float] = (0.14, 0.28),
           frame: str = "thick", screen: bool = True, cages: object = None) -> BoardStyle:
    """The board's look: the theme's colours and fonts, everything else drawn for this scene.  Labels are
    `labels` of the cell high, but never under 8 px on a screen or 11 px on a page (print at 150..200 dpi).
    `cages`: the cage drawing (one of Theme.borders), when the caller fixed it."""
    j = parts.jitter
    border = rng.choice(theme.borders)  # drawn also when fixed: every other draw stays the scene's own
    if cages is not None:
        if cages not in theme.borders + (("colour",) if theme.by_colour else ()):
            raise ValueError(f"theme {theme.name!r} draws no cages as {cages!r}")
        border = str(cages)
    thick = max(2, round(cell * rng.uniform(0.035, 0.1)))
    thin = max(1, round(cell * rng.uniform(0.008, 0.025)))
    frames = {"thick": max(thick, round(cell * rng.uniform(0.05, 0.12))), "thin": thin + rng.randint(0, 2),
              "same": thick}
    colours: tuple[RGB, ...] = ()
    if border != "thick" and rng.random() < 0.4:
        colours = tuple(tuple(rng.randint(0, 200) for _ in range(3)) for _ in range(5))  # type: ignore[misc]
    return BoardStyle(
        cell=cell, paper=theme.paper, thin=thin, thin_colour=j(theme.thin, rng, 8),
        thin_style=rng.choices(["solid", "dashed", "none"], [20, 3, 1 if border == "thick" else 0])[0],
        border=border, thick=thick, line=j(theme.line, rng, 8), cage_colours=colours,
        fills=theme.fills if theme.fills and (rng.random() < 0.6 or border == "colour") else (),
        frame=frames[frame], frame_colour=j(theme.line, rng, 8),
        radius=rng.choice([0, 0, 0, 0.08, 0.2]) if screen else 0.0,
        label_font=rng.choice(theme.fonts), label_colour=j(theme.ink, rng, 8),
        label_frac=min(max(rng.uniform(*labels), (8 if screen else 11) / cell), max(0.35, labels[1])),
        margin=rng.uniform(0.03, 0.1),
        minus=rng.choices(MINUS, [4, 3, 2, 1])[0], times=rng.choices(TIMES, [4, 3, 2, 1])[0],
        divide=rng.choices(DIVIDE, [3, 2])[0],
        highlight_colour=theme.highlight, selected_colour=theme.selected, given=theme.given,
    )


def _fit(rng: random.Random, theme: Theme, side: float, n: int, **kw: object) -> BoardStyle:
    """A board style whose n cells and frame span `side` px."""
    st = _style(rng, theme, side / n, **kw)  # type: ignore[arg-type]
    return replace(st, cell=(side - st.frame) / n)


def _fill(rng: random.Random, theme: Theme, heldout: bool, grid: Grid, mode: str,
          given: dict[str, object] | None = None) -> Fill:
    """Answers and pencil marks as a player leaves them: `mode` says how they were written.  The
    knobs `given` (read, not taken: every board of a page reads them): `wrong`, exactly that many
    answers wrong (else a few, in some fills); `writer`, the real hand of the HAND_MODES; `blank`,
    nothing written at all (the same scene otherwise: what its blank picture reads as)."""
    given = given or {}
    n = len(grid)
    kinds = {"typed": ("typed",), "written": ("written",), "drawn": ("drawn",), "pencil": ("typed",),
             "mixed": ("typed", "written", "drawn")}.get(mode, ("written",))
    share = rng.uniform(0.0, 0.3) if mode == "pencil" else rng.uniform(0.3, 1.0)
    answers = solution_fill(grid, rng, share, kinds, wrong=0.05 if rng.random() < 0.3 else 0.0)
    if given.get("wrong") is not None:
        answers = _exactly_wrong(answers, grid, int(given["wrong"]), kinds, rng)  # type: ignore[call-overload]
    pencil = {}
    if mode in ("pencil", "mixed", "hand-pencil") or rng.random() < 0.2:
        for r in range(n):
            for c in range(n):
                if (r, c) not in answers and rng.random() < (0.7 if mode in ("pencil", "hand-pencil") else 0.3):
                    marks = {grid[r][c]} | set(rng.sample(range(1, n + 1), rng.randint(1, min(5, n - 1))))
                    pencil[(r, c)] = tuple(sorted(marks))
    pens = PENS
    fill = Fill(answers=answers, pencil=pencil, typed_font=rng.choice(theme.ui + theme.fonts),
                typed_colour=parts.jitter(theme.answer, rng, 10), typed_size=rng.uniform(0.3, 0.5),
                hand_fonts=HAND_HELDOUT if heldout else HAND_TRAIN,
                pen=rng.choice(pens) if not theme.dark else (235, 235, 240),
                pencil_font=rng.choice(theme.ui + (HAND_HELDOUT if heldout else HAND_TRAIN)),
                pencil_colour=parts.mix(theme.text, theme.paper, rng.uniform(0.1, 0.45)),
                pencil_layout=rng.choice(["grid", "row"]), seed=rng.randrange(2**31),
                ink="paper" if theme.kind == "print" else "over")
    if mode in HAND_MODES:
        fill = replace(fill, writer=int(given["writer"]), hand_size=HAND_SIZES[mode],  # type: ignore[call-overload]
                       hand_style=str(given.get("hand_style", "mnist")))
    return replace(fill, answers={}, pencil={}) if given.get("blank") else fill


# ---------------------------------------------------------------- app

DEVICES = {"phone": ((720, 828, 1080, 1080, 1170, 1242, 1284, 1440), (1.95, 2.25), (360, 430)),
           "small": ((320, 640, 640, 750), (1.5, 1.78), (320, 375)),
           "tablet": ((1200, 1536, 1668, 2048), (0.7, 1.45), (768, 1024)),
           "desktop": ((1280, 1366, 1440, 1920), (0.55, 0.66), (1100, 1600))}



def _exactly_wrong(answers: dict[Cell, tuple[int, str]], grid: Grid, count: int, kinds: tuple[str, ...],
                   rng: random.Random) -> dict[Cell, tuple[int, str]]:
    """The answers with exactly `count` of them wrong (cells answered as needed)."""
    n = len(grid)
    out = {cell: (grid[cell[0]][cell[1]], how) for cell, (_, how) in answers.items()}
    empty = [(r, c) for r in range(n) for c in range(n) if (r, c) not in out]
    while len(out) < count and empty:
        cell = empty.pop(rng.randrange(len(empty)))
        out[cell] = (grid[cell[0]][cell[1]], rng.choice(kinds))
    for cell in rng.sample(sorted(out), min(count, len(out))):
        out[cell] = (rng.choice([d for d in range(1, n + 1) if d != grid[cell[0]][cell[1]]]), out[cell][1])
    return out

def _app(rng: random.Random, theme: Theme, heldout: bool, k: Knobs, fill_mode: str | None = None) -> Draft:
    """A game app's screenshot: bars, the board, a keypad, ads."""
    device = str(k.take("device", lambda: rng.choices(list(DEVICES), [6, 1, 2, 2])[0]))
    widths, aspect, dp = DEVICES[device]
    W = rng.choice(widths)
    H = int(W * rng.uniform(*aspect))
    u = W / rng.uniform(*dp)
    if device == "desktop":
        u = rng.choice([1.0, 1.25, 1.5])
    img = Image.new("RGB", (W, H), theme.bg)
    d = ImageDraw.Draw(img)
    ui = rng.choice(theme.ui)
    fg = theme.text
    bar = theme.accent if rng.random() < 0.5 else theme.bg
    y = 0.0
    if device == "desktop":
        y = 32 * u
        d.rectangle([0, 0, W, y], fill=parts.mix(theme.bg, (128, 128, 128), 0.3))
        for i in range(3):
            d.ellipse([10 * u + i * 20 * u, 10 * u, 22 * u + i * 20 * u, 22 * u],
                      fill=[(255, 95, 86), (255, 189, 46), (39, 201, 63)][i])
    else:
        sb = 24 * u * rng.uniform(0.9, 1.3)
        parts.status_bar(d, W, sb, u, bar if rng.random() < 0.5 else theme.bg, _contrast(bar) if bar != theme.bg
                         else fg, ui, rng)
        y = sb
    tb = 56 * u * rng.uniform(0.85, 1.2)
    title = rng.choice(parts.TITLES)
    parts.toolbar(d, (0, y, W, y + tb), u, bar, _contrast(bar) if bar != theme.bg else fg, ui, rng, title)
    y += tb
    notes = [device]
    ads = bool(k.take("ads", lambda: True))
    if ads and rng.random() < 0.15:
        parts.banner(img, (0, y, W, y + 50 * u), u, ui, rng)
        y += 50 * u
        notes.append("top-ad")
    if rng.random() < 0.4:
        d.text((16 * u, y + 14 * u), rng.choice(["Time", "Level", "Easy", "Hard", "Score"]) +
               f" {rng.randint(1, 99)}", font=font(ui, int(14 * u)), fill=fg, anchor="lm")
        y += 28 * u
    puzzle, grid = _puzzle(rng, sizes=(4, 5, 6, 7, 8, 9), weights=(3, 3, 4, 3, 2, 2))
    n = puzzle.size
    keypad = str(k.take("keypad", lambda: rng.choice(parts.KEYPADS) if rng.random() < 0.85 else "none"))
    nine = rng.random() < 0.3
    digits = [str(i) for i in range(1, (9 if nine else n) + 1)]
    tools = rng.sample(parts.TOOLS, rng.randint(0, 5)) if keypad != "none" else []
    bottom = 0.0
    if device != "desktop" and rng.random() < 0.6:
        bottom += 20 * u
        pill = (W / 2 - 60 * u, H - 12 * u, W / 2 + 60 * u, H - 8 * u)
        d.rounded_rectangle(pill, radius=2 * u, fill=fg)
    ad_h = 0.0
    if ads and rng.random() < 0.5:
        ad_h = rng.choice([50, 60, 90, 100]) * u
        parts.banner(img, (0, H - bottom - ad_h, W, H - bottom), u, ui, rng)
        notes.append("bottom-ad")
    free_top, free_bottom = y + 8 * u, H - bottom - ad_h - 8 * u
    landscape = W > H
    m = rng.uniform(0, 16) * u
    if not landscape:
        kp_h = 0.0 if keypad == "none" else min(rng.uniform(0.13, 0.28) * H, (free_bottom - free_top) * 0.45)
        side = min(W - 2 * m, free_bottom - free_top - kp_h - 16 * u)
        bx, by = (W - side) / 2, free_top + rng.uniform(0, 0.3) * max(0, free_bottom - free_top - kp_h - side - 16 * u)
        kp_box = (m + 4 * u, by + side + 12 * u, W - m - 4 * u, min(free_bottom, by + side + 12 * u + kp_h))
    else:
        side = min(free_bottom - free_top - 2 * m, W * rng.uniform(0.5, 0.65))
        bx, by = max(m, W * rng.uniform(0.03, 0.2)), free_top + m
        if device == "desktop" and rng.random() < 0.5:  # a menu down the left side
            for i in range(rng.randint(3, 8)):
                d.text((16 * u, free_top + (20 + 34 * i) * u), rng.choice(["New game", "Statistics", "Settings",
                                                                          "Help", "Daily", "Archive", "About"]),
                       font=font(ui, int(15 * u)), fill=fg)
            bx = max(bx, 180 * u)
        kw = min(W - (bx + side) - 40 * u, side * 0.8)
        kp_box = (bx + side + 24 * u, by + side * 0.15, bx + side + 24 * u + kw, by + side * 0.15 + min(kw, side * 0.7))
    st = replace(_fit(rng, theme, side, n, labels=(0.13, 0.3), frame=rng.choice(["thick", "thin", "same"]),
                      cages=k.take("cages", lambda: None)),
                 highlight=(rng.randrange(n), rng.randrange(n)) if rng.random() < 0.35 else None,
                 selected=(rng.randrange(n), rng.randrange(n)) if rng.random() < 0.5 else None)
    if st.border == "colour":
        notes.append("cages=colour")
    fill = _fill(rng, theme, heldout, grid, fill_mode, k.given) if fill_mode else None
    if fill is None and rng.random() < 0.15:  # a game just begun: a few pencil marks
        fill = replace(_fill(rng, theme, heldout, grid, "pencil"), answers={})
    corners = draw_board(img, bx + st.frame / 2, by + st.frame / 2, puzzle, st, rng, fill)
    if keypad != "none" and kp_box[3] - kp_box[1] > 20 * u and kp_box[2] - kp_box[0] > 40 * u:
        parts.keypad(d, kp_box, digits, tools, keypad, u, theme.key_bg, theme.key_fg,
                     theme.line if rng.random() < 0.5 else fg, ui, rng, captions=rng.random() < 0.4,
                     per=rng.choice([2, 3]) if landscape else None)
        notes.append(f"keypad={keypad}{'-1..9' if nine else ''}")
    ext = ".jpg" if rng.random() < 0.15 else ".png"  # a screenshot sent through a chat app is a JPEG
    return Draft(np.asarray(img), [(puzzle, grid, fill)], [corners], ext, rng.randint(75, 95), notes, st.label_frac)


# ---------------------------------------------------------------- web

def _web(rng: random.Random, theme: Theme, heldout: bool, k: Knobs, fill_mode: str | None = None) -> Draft:
    """A puzzle web page: header, title, text, the grid with big bold labels, buttons, sidebar ads."""
    mobile = rng.random() < 0.3
    if mobile:
        W, u = rng.choice([750, 1080, 1170]), 0.0
        u = W / rng.uniform(375, 430)
        H = int(W * rng.uniform(1.8, 2.2))
    else:
        W, u = rng.choice([1024, 1280, 1366, 1440, 1600, 1920]), rng.choice([1.0, 1.0, 1.25, 1.5, 2.0])
        H = int(W * rng.uniform(0.56, 1.3))
    img = Image.new("RGB", (W, H), theme.bg)
    d = ImageDraw.Draw(img)
    ui = rng.choice(theme.ui)
    head = 60 * u
    hb = theme.accent if rng.random() < 0.6 else theme.bg
    d.rectangle([0, 0, W, head], fill=hb)
    if hb == theme.bg:
        d.line([(0, head), (W, head)], fill=theme.thin, width=max(1, int(u)))
    hc = _contrast(hb) if hb != theme.bg else theme.text
    d.text((20 * u, head / 2), rng.choice(["Puzzle Daily", "BrainBox", "The Times Puzzles", "MathCages.net",
                                           "puzzles & games"]), font=font(ui, int(24 * u)), fill=hc, anchor="lm")
    if not mobile:
        x = W * 0.45
        for _ in range(rng.randint(2, 6)):
            w = rng.choice(["Sudoku", "KenKen", "Crossword", "Games", "News", "Shop", "Login"])
            d.text((x, head / 2), w, font=font(ui, int(15 * u)), fill=hc, anchor="lm")
            x += font(ui, int(15 * u)).getlength(w) + 24 * u
    side_w = 0.0 if mobile or rng.random() < 0.3 else min(320 * u, W * 0.28)
    col0, col1 = 24 * u, W - side_w - 24 * u
    y = head + 24 * u
    d.text((col0, y), f"{rng.choice(parts.TITLES)} #{rng.randint(1, 9999)} " + rng.choice(["—", "-", "·"]) + " "
           + rng.choice(["Easy", "Medium", "Hard", "Expert"]), font=font(ui, int(30 * u)), fill=theme.text)
    y += 50 * u
    y = parts.paragraph(d, (col0, y, col1, y + rng.uniform(20, 110) * u), rng, ui, 15 * u, theme.text) + 12 * u
    puzzle, grid = _puzzle(rng, hidden=0.05)
    n = puzzle.size
    below = rng.uniform(60, 200) * u
    side = min(col1 - col0, H - y - below, rng.uniform(280, 620) * u)
    if side < 40 * n:  # a short page: make room
        y = head + 12 * u
        side = min(col1 - col0, H - y - 20 * u)
    st = _fit(rng, theme, side, n, labels=(0.1, 0.45), frame=rng.choice(["thin", "thin", "same", "thick"]))
    bx = col0 if rng.random() < 0.5 else (col0 + col1 - side) / 2
    fill = _fill(rng, theme, heldout, grid, fill_mode, k.given) if fill_mode else None
    corners = draw_board(img, bx + st.frame / 2, y + st.frame / 2, puzzle, st, rng, fill)
    notes = ["mobile" if mobile else "desktop", f"labels={st.label_frac:.2f}", f"minus={st.minus}",
             f"times={st.times}"]
    y += side + 16 * u
    if rng.random() < 0.25:  # an on-page keypad under the grid
        kp_h = min(56 * u, H - y - 8 * u)
        if kp_h > 20 * u:
            parts.keypad(d, (bx, y, bx + side, y + kp_h), [str(i) for i in range(1, n + 1)], [],
                         rng.choice(["row", "strip", "outlined"]), u, theme.key_bg, theme.key_fg, theme.line, ui, rng,
                         captions=False)
            notes.append("keypad")
            y += kp_h + 12 * u
    x = bx
    bf = font(ui, int(15 * u))
    for label in rng.sample(["Check", "Reveal", "Reset", "Print", "New puzzle", "Undo", "Pause"], rng.randint(0, 4)):
        if y + 36 * u > H:
            break
        bw = bf.getlength(label) + 28 * u
        d.rounded_rectangle([x, y, x + bw, y + 36 * u], radius=rng.choice([0, 4, 18]) * u, fill=theme.accent)
        d.text((x + bw / 2, y + 18 * u), label, font=bf, fill=_contrast(theme.accent), anchor="mm")
        x += bw + 10 * u
    if y + 60 * u < H:
        parts.paragraph(d, (col0, y + 50 * u, col1, H - 10 * u), rng, ui, 15 * u, theme.text)
    if side_w:
        sx = W - side_w
        sy = head + 24 * u
        while sy + 120 * u < H:
            kind = rng.random()
            if kind < 0.4:
                bh = min(rng.uniform(90, 250) * u, H - sy)
                parts.banner(img, (sx, sy, W - 24 * u, sy + bh), u, ui, rng)
            elif kind < 0.7:  # thumbnails of other puzzles: sudokus, never KenKens
                bh = rng.uniform(70, 130) * u
                sudoku = rng.random() < 0.5
                (draw_sudoku if sudoku else draw_crossword)(img, sx, sy, bh, rng, theme.line, theme.paper, ui)
                d.text((sx + bh + 12 * u, sy + bh / 2), "Sudoku" if sudoku else "Crossword", font=bf,
                       fill=theme.text, anchor="lm")
                notes.append("thumbnail")
            else:
                bh = parts.paragraph(d, (sx, sy, W - 24 * u, sy + 120 * u), rng, ui, 13 * u, theme.text) - sy
            sy += bh + rng.uniform(16, 40) * u
    ch = 70 * u
    # a cookie banner over the page bottom, never over the puzzle (hidden, it is no scene to read: refused, exit 4)
    if rng.random() < 0.15 and H - ch >= max(y for _, y in corners):
        d.rectangle([0, H - ch, W, H], fill=(30, 30, 30))
        d.text((20 * u, H - ch / 2), "We use cookies to improve your experience.", font=bf, fill=(240, 240, 240),
               anchor="lm")
        d.rounded_rectangle([W - 140 * u, H - ch * 0.75, W - 20 * u, H - ch * 0.25], radius=6 * u,
                            fill=(80, 160, 255))
        notes.append("cookies")
    return Draft(np.asarray(img), [(puzzle, grid, fill)], [corners], ".png", 92, notes, st.label_frac)


# ---------------------------------------------------------------- print

FRAMES = ("open", "ruled", "tight", "rule", "text")
PAGE_INCHES = 8.4  # a print page's width on paper (A4 8.27, letter 8.5): its pixels per inch set the dot screen's


def _print_page(rng: random.Random, theme: Theme, heldout: bool, k: Knobs, fill_mode: str | None = None
                ) -> Draft:
    """A book or newspaper page, not yet printed or scanned: KenKens in slots, neighbours, text."""
    W = rng.choice([1240, 1275, 1654, 1700])
    H = int(W * rng.uniform(1.29, 1.42))
    img = Image.new("RGB", (W, H), (255, 255, 255))
    d = ImageDraw.Draw(img)
    body = rng.choice(theme.ui)
    ink = theme.text
    mx = W * rng.uniform(0.05, 0.09)
    y = H * rng.uniform(0.03, 0.06)
    if rng.random() < 0.6:  # a masthead and its rules
        d.text((W / 2, y), rng.choice(["THE DAILY PUZZLER", "Weekend Puzzles", "BRAIN TRAINER", "Puzzle Book"]),
               font=font(body, int(W * 0.04)), fill=ink, anchor="mt")
        y += W * 0.055
        d.line([(mx, y), (W - mx, y)], fill=theme.accent, width=max(2, int(W * 0.002)))
        if rng.random() < 0.5:
            d.line([(mx, y + W * 0.005), (W - mx, y + W * 0.005)], fill=theme.accent, width=1)
        y += W * 0.02
    count = int(k.take("count", lambda: rng.choices([1, 2, 3, 4], [3, 3, 1, 3])[0]))
    neighbours = int(k.take("neighbours", lambda: rng.choices([0, 1, 2], [5, 3, 1])[0] if count < 4 else 0))
    frame_kind = k.take("frame", lambda: None)
    slots = count + neighbours
    cols = 1 if slots == 1 else 2 if slots in (2, 4) else rng.choice([2, 3]) if slots == 3 else 3
    rows = -(-slots // cols)
    area = (mx, y, W - mx, H - H * 0.04)
    sw = (area[2] - area[0]) / cols
    sh = min((area[3] - area[1]) / rows, sw * rng.uniform(1.0, 1.3))
    kinds = ["kenken"] * count + [rng.choice(["sudoku", "crossword"]) for _ in range(neighbours)]
    rng.shuffle(kinds)
    puzzles, corners, notes = [], [], [f"count={count}", f"neighbours={neighbours}"]
    label_frac = 1.0
    tf = font(body, int(W * 0.018))
    for i, kind in enumerate(kinds):
        r, c = divmod(i, cols)
        x0, y0 = area[0] + c * sw, area[1] + r * sh
        side = min(sw, sh) * rng.uniform(0.62, 0.8)
        gx, gy = x0 + (sw - side) / 2 + rng.uniform(-0.05, 0.05) * (sw - side), y0 + sh * 0.12
        if kind != "kenken":
            draw = draw_sudoku if kind == "sudoku" else draw_crossword
            d.text((gx, gy - W * 0.008), kind.upper(), font=tf, fill=ink, anchor="ls")
            draw(img, gx, gy, side, rng, theme.line, theme.paper, rng.choice(theme.fonts))
            notes.append(kind)
            continue
        puzzle, grid = _puzzle(rng, sizes=(4, 5, 6, 7, 8, 9), weights=(2, 3, 4, 3, 3, 3), hidden=0.05)
        if theme.book:
            puzzle = _book_rules(puzzle, grid)
        n = puzzle.size
        st = _fit(rng, theme, side, n, labels=(0.13, 0.3), frame=rng.choice(["thick", "same"]), screen=False)
        fk = frame_kind or rng.choices(FRAMES, [3, 3, 2, 2, 2])[0]
        lw = max(1, int(W * rng.uniform(0.0008, 0.0025)))
        title = f"{rng.choice(['KENKEN', 'KenKen', 'Calcudoku', 'No.'])} {rng.randint(1, 999)}"
        if fk in ("ruled", "tight"):  # the box's inner edge `pad` px off the frame (0: touching it)
            pad = side * rng.uniform(0.03, 0.1) if fk == "ruled" else rng.uniform(0, 4)
            top = W * 0.03 if fk == "ruled" else 0
            bot = W * 0.03 if fk == "ruled" and rng.random() < 0.5 else 0
            box = (gx - pad - lw, gy - pad - lw - top, gx + side + pad + lw, gy + side + pad + lw + bot)
            if fk == "ruled" and rng.random() < 0.3:
                d.rectangle(box, fill=parts.mix(theme.paper, theme.accent, 0.08))
            d.rectangle(box, outline=theme.accent, width=lw)
            if fk == "ruled" and rng.random() < 0.3:  # a double rule
                d.rectangle((box[0] - 3 * lw, box[1] - 3 * lw, box[2] + 3 * lw, box[3] + 3 * lw), outline=theme.accent,
                            width=lw)
            if top:
                d.text((gx, gy - pad - top * 0.3), title, font=tf, fill=ink, anchor="ls")
            if bot:
                d.text((gx, gy + side + pad + bot * 0.7), "Fill the grid with 1-" + str(n), font=tf, fill=ink,
                       anchor="ls")
        else:
            d.text((gx, gy - W * 0.01), title, font=tf, fill=ink, anchor="ls")
        if fk == "rule":  # a rule beside one edge, a few px off, longer than the grid
            gap = rng.uniform(0, 8)
            edge = rng.choice(["top", "bottom", "left", "right"])
            ext = side * rng.uniform(0.1, 0.6)
            line = {"top": [(gx - ext, gy - gap - lw), (gx + side + ext, gy - gap - lw)],
                    "bottom": [(gx - ext, gy + side + gap + lw), (gx + side + ext, gy + side + gap + lw)],
                    "left": [(gx - gap - lw, gy - ext), (gx - gap - lw, gy + side + ext)],
                    "right": [(gx + side + gap + lw, gy - ext), (gx + side + gap + lw, gy + side + ext)]}[edge]
            d.line(line, fill=theme.accent, width=lw + rng.randint(0, 2))
            fk = f"rule-{edge}"
        fill = _fill(rng, theme, heldout, grid, fill_mode, k.given) if fill_mode else None
        cs = draw_board(img, gx + st.frame / 2, gy + st.frame / 2, puzzle, st, rng, fill)
        if fk == "text":  # a caption right under the frame
            d.text((gx, gy + side + rng.uniform(0, 3)), "Solution on page " + str(rng.randint(2, 40)) + ". "
                   + parts.words(rng, 3), font=tf, fill=ink, anchor="lt")
        notes.append(f"frame={fk}")
        puzzles.append((puzzle, grid, fill))
        corners.append(cs)
        label_frac = min(label_frac, st.label_frac)
    for i in range(len(kinds), rows * cols):  # an empty slot: text
        r, c = divmod(i, cols)
        parts.columns(d, (area[0] + c * sw, area[1] + r * sh + sh * 0.1, area[0] + (c + 1) * sw - W * 0.02,
                          area[1] + (r + 1) * sh), rng, body, W * 0.013, ink, theme.accent)
    last = area[1] + rows * sh  # text in the space left under the puzzles
    if last + W * 0.05 < area[3]:
        parts.columns(d, (mx, last, W - mx, area[3]), rng, body, W * 0.013, ink, theme.accent)
    return Draft(np.asarray(img), puzzles, corners, ".jpg", 90, notes, label_frac)


def _printed(draft: Draft, rng: random.Random, theme: Theme) -> Draft:
    """The page printed (tint, halftone, show-through) and scanned (askew, blur, noise) as a JPEG."""
    a = draft.picture
    if rng.random() < theme.halftone:
        a = parts.halftone(a, rng, colour=theme.colour_screen, ppi=a.shape[1] / PAGE_INCHES)
        draft.notes.append("halftone")
    a = parts.paper(a, rng, parts.jitter(theme.bg, rng, 6), rng.uniform(2, 8))
    if rng.random() < 0.3:
        a = parts.show_through(a, rng)
    a, corners = parts.scan(a, rng, draft.corners, parts.jitter((235, 235, 230), rng, 15))
    return replace(draft, picture=a, corners=corners, ext=".jpg", quality=rng.randint(55, 92))


def _print(rng: random.Random, theme: Theme, heldout: bool, k: Knobs, fill_mode: str | None = None) -> Draft:
    return _printed(_print_page(rng, theme, heldout, k, fill_mode), rng, theme)


# ---------------------------------------------------------------- filled, photo, turned, dim

FILL_MODES = ("typed", "written", "drawn", "pencil", "mixed")


def _base(rng: random.Random, theme: Theme, heldout: bool, k: Knobs, fill_mode: str | None = None,
          allow: tuple[str, ...] = ("app", "web", "print", "filled", "photo")) -> tuple[str, Draft]:
    """A scene of another family in the theme's kind, to be filled, photographed, turned or dimmed."""
    own = {"app": "app", "web": "web", "print": "print"}[theme.kind]
    base = str(k.take("base", lambda: rng.choice([f for f in allow if f in (own, "filled", "photo")])))
    if base == "filled":
        return base, _filled(rng, theme, heldout, k)
    if base == "photo":
        return base, _photo(rng, theme, heldout, k)
    if base != own:
        raise ValueError(f"base {base!r}: a {theme.kind} theme's scenes are based on {own}, filled or photo")
    return base, BUILDERS[own](rng, theme, heldout, k, fill_mode)


# Real hands (devtools/hands.py: one writer a picture, of the split 'dev', or 'locked' in held-out
# themes), only when a caller asks (bench/check.py): the digit's height / cell of each mode, as people
# write answers: most in the lower middle, some as big as the cell, over the label's corner
HAND_MODES = ("hand", "hand-big", "hand-pencil")
HAND_SIZES = {"hand": (0.35, 0.65), "hand-big": (0.62, 0.95), "hand-pencil": (0.35, 0.7)}


def _filled(rng: random.Random, theme: Theme, heldout: bool, k: Knobs) -> Draft:
    """Knobs: mode (FILL_MODES, or HAND_MODES), wrong, writer and blank (see _fill), photo (the page
    photographed by a phone, as _photo does)."""
    from devtools import hands

    mode = str(k.take("mode", lambda: rng.choice(FILL_MODES)))
    if mode in HAND_MODES:  # drawn whether given or not, so the scene is the same otherwise
        # the locked writers write in the locked split's scenes alone; every other scene, the dev writers
        k.given.setdefault("writer", rng.choice(hands.complete_writers("locked" if theme in LOCKED_THEMES else "dev")))
    _, draft = _base(rng, theme, heldout, k, mode, allow=("app", "web", "print"))
    wrong = k.take("wrong", lambda: None)  # read by every _fill of the page; taken here, as used
    writer, blank = k.take("writer", lambda: None), k.take("blank", lambda: False)
    style = k.take("hand_style", lambda: "mnist")  # how the real hand looks (devtools/hands.HAND_STYLES)
    draft.notes.append(f"fill={mode}" + (f" wrong={wrong}" if wrong is not None else "")
                       + (f" writer={writer}" if writer is not None else "") + (" blank" if blank else "")
                       + (f" hand_style={style}" if style != "mnist" else ""))
    if k.take("photo", lambda: False):
        draft = _photographed(draft, rng, screen=theme.kind != "print")
    return draft


# A person photographs a puzzle to read it: labels smaller than this (px, in the photo) are too far away to
# read, so the camera comes closer (frames the puzzle alone).  The same floor as a screen's smallest label
# at its source (_style: 8 px); without it the camera shrank a desktop's small labels to 6 px and blurred them.
LEGIBLE_PX = 8.0
FARTHEST = 0.65  # parts.camera fills 0.65..1 of the frame with a whole page or screen


def _photo(rng: random.Random, theme: Theme, heldout: bool, k: Knobs) -> Draft:
    """A phone camera's picture of the page (maybe a crop of it: neighbours cut off) or of the screen."""
    screen = theme.kind != "print"
    if screen:
        draft = (_app if theme.kind == "app" else _web)(rng, theme, heldout, k)
        if rng.random() < 0.5:  # the camera framed the puzzle: a part of the screen
            draft = _crop(draft, rng)
    else:
        draft = _print_page(rng, theme, heldout, k, rng.choice([None, None, None, "written"]))
        a = parts.paper(draft.picture, rng, parts.jitter(theme.bg, rng, 6), rng.uniform(2, 6))
        draft = replace(draft, picture=a)
        if len(draft.corners) > 0 and rng.random() < 0.75:
            draft = _crop(draft, rng)
    return _photographed(draft, rng, screen)


def _photographed(draft: Draft, rng: random.Random, screen: bool) -> Draft:
    """The page or screen as a phone's camera takes it."""
    size = rng.choice([(1200, 1600), (1536, 2048), (1500, 2000), (1600, 1200), (2000, 1500), (1080, 1440)])
    if not screen and "crop" not in draft.notes:  # a whole page: the camera's full resolution
        size = rng.choice([(2250, 3000), (2448, 3264)])
    h, w = draft.picture.shape[:2]
    if (w > h) != (size[0] > size[1]) and rng.random() < 0.7:
        size = (size[1], size[0])
    if "crop" not in draft.notes and _label_px(draft, size) < LEGIBLE_PX:  # too far to read: come closer
        draft = _crop(draft, rng)
    a, corners = parts.camera(draft.picture, rng, draft.corners, screen, size, whole="crop" not in draft.notes)
    seen = _label_px(replace(draft, picture=a, corners=corners), (a.shape[1], a.shape[0]), 1.0)
    draft.notes += ["screen-photo" if screen else "paper-photo", f"label={seen:.0f}px"]
    return replace(draft, picture=a, corners=corners, ext=".jpg", quality=rng.randint(45, 92))


def _label_px(draft: Draft, size: tuple[int, int], fill: float = FARTHEST) -> float:
    """The smallest label's height in px in a photo of `size` that the picture fills `fill` of."""
    h, w = draft.picture.shape[:2]
    cells = [(_box(cs)[2] - _box(cs)[0]) / puzzle.size for cs, (puzzle, _, _) in zip(draft.corners, draft.puzzles)]
    return draft.label_frac * min(cells, default=0.0) * min(size[0] / w, size[1] / h) * fill


def _crop(draft: Draft, rng: random.Random) -> Draft:
    """The page cut round one KenKen with a margin: whatever else is whole stays, a neighbour cut off is none."""
    h, w = draft.picture.shape[:2]
    i = rng.randrange(len(draft.corners))
    x0, y0, x1, y1 = _box(draft.corners[i])
    m = (x1 - x0) * rng.uniform(0.1, 0.6)
    cx0, cy0 = int(max(0, x0 - m * rng.uniform(0.3, 1.5))), int(max(0, y0 - m * rng.uniform(0.3, 1.5)))
    cx1, cy1 = int(min(w, x1 + m * rng.uniform(0.3, 1.5))), int(min(h, y1 + m * rng.uniform(0.3, 1.5)))
    keep = [j for j, cs in enumerate(draft.corners)
            if all(cx0 <= x <= cx1 and cy0 <= y <= cy1 for x, y in cs)]
    corners = [tuple((x - cx0, y - cy0) for x, y in draft.corners[j]) for j in keep]
    draft.notes.append("crop")
    return replace(draft, picture=np.ascontiguousarray(draft.picture[cy0:cy1, cx0:cx1]),
                   puzzles=[draft.puzzles[j] for j in keep], corners=corners)


def _turned(rng: random.Random, theme: Theme, heldout: bool, k: Knobs) -> Draft:
    base, draft = _base(rng, theme, heldout, k)
    turn = int(k.take("turn", lambda: rng.choice([1, 2, 3])))
    a, corners = parts.quarter_turn(draft.picture, turn, draft.corners)
    draft.notes += [f"base={base}", f"turn={90 * turn}"]
    return replace(draft, picture=a, corners=corners)


def _dim(rng: random.Random, theme: Theme, heldout: bool, k: Knobs) -> Draft:
    base, draft = _base(rng, theme, heldout, k)
    screen = draft.ext == ".png"  # a screenshot: a dim or washed-out theme; under uneven light only if photographed
    how = str(k.take("dim", lambda: rng.choice(["dark", "washed"] if screen else ["dark", "washed", "uneven"])))
    draft.notes += [f"base={base}", f"dim={how}"]
    return replace(draft, picture=parts.dim(draft.picture, rng, how, grain=not screen))


BUILDERS: dict[str, Callable[..., Draft]] = {
    "app": _app, "web": _web, "print": _print, "colour": _app, "filled": _filled, "photo": _photo, "turned": _turned,
    "dim": _dim,
}
