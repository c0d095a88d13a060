#!/usr/bin/env python3
"""mapgen.py - draws the Dervish hex map from the gazetteer.

This is the tool `scenarios/map.ron` was drawn with.  It holds the geographic
source data taken from `gazetteer.md` (places with latitude and longitude,
river lines, the Red Sea coast, cataracts, navigability, railway routes and
terrain regions) and turns it into the map file described in
`docs/map-format.md`:

    python3 tools/mapgen.py > scenarios/map.ron           # the map
    python3 tools/mapgen.py --check > /dev/null           # plus checks on stderr

The output is deterministic: running it again reproduces the file byte for
byte.  Game masters need not use it: `scenarios/map.ron` is plain data and may
be edited by hand (then run `dervish scenario check`).  If you regenerate the
map, hand edits are lost.

Grid (gazetteer section 6): equirectangular projection, x = (lon - 29.9) *
106.34 km east, y = (22.0 - lat) * 111.19 km south; flat-topped hexes 16.9 km
across the flats, columns 14.63 km apart, odd columns shifted half a hex south,
hex (0,0) centred on 22.0 N 29.9 E.  Hexes are written CCRR (column, row).

How the map is drawn:
  * terrain: sea seaward of the coast line, hills and mountains from the
    terrain regions, everything else clear;
  * places: each at the hex containing its position; when two settlements
    fall into one hex the less important one moves to the best neighbouring
    hex on its own bank;
  * rivers run along hexsides: the hex corners form a graph, and each river
    is the chain of edges found by shortest paths between its snapped
    polyline points, where an edge costs its length plus a penalty for the
    distance of its midpoint from the true river line.  Riverside places
    force one of their own sides (on their bank) into the chain;
  * reaches, cataracts and railways follow from the above.

Only the Python standard library is used.
"""

import heapq
import math
import sys

# ---------------------------------------------------------------------------
# Grid and projection (gazetteer section 6, docs/map-format.md)
# ---------------------------------------------------------------------------

COLUMNS = 60
ROWS = 63
COL_STEP = 14.63          # km between column centres
ROW_STEP = 16.9           # km between row centres (hex height, flat to flat)
KM_PER_DEG_LON = 106.34
KM_PER_DEG_LAT = 111.19
ORIGIN_LAT = 22.0
ORIGIN_LON = 29.9

DIRECTIONS = ["N", "NE", "SE", "S", "SW", "NW"]
OPPOSITE = {"N": "S", "NE": "SW", "SE": "NW", "S": "N", "SW": "NE", "NW": "SE"}

# ---------------------------------------------------------------------------
# Source data (gazetteer sections 1-5)
# ---------------------------------------------------------------------------

# Places: (name, lat, lon, kind, aliases).  Where two settlements fall into
# the same hex the more important keeps it: a town before a village before an
# oasis, and between two of a kind the one listed first here (see
# place_hexes).
PLACES = [
    # The Nile from Wady Halfa to Merowe
    ("Wady Halfa", 21.80, 31.35, "Town", ["Wadi Halfa", "Halfa"]),
    ("Sarras", 21.55, 31.02, "Village", ["Saras"]),
    ("Semna", 21.49, 30.96, "Village", ["Kumma", "Semneh"]),
    ("Ambigol Wells", 21.30, 30.86, "Oasis", ["Ambigol"]),
    ("Akasha", 21.07, 30.72, "Village", ["Akasheh", "Okasha"]),
    ("Dal", 20.95, 30.61, "Village", []),
    ("Firket", 20.84, 30.54, "Village", ["Kosha", "Ferket"]),
    ("Amara", 20.80, 30.38, "Village", ["Amarah"]),
    ("Kajbar", 20.00, 30.56, "Village", ["Kaibar"]),
    ("Hannek", 19.75, 30.38, "Village", ["Hannik"]),
    ("Kerma", 19.60, 30.41, "Village", []),
    ("Dongola", 19.17, 30.48, "Town", ["New Dongola", "El Ordi", "Dunqulah"]),
    ("Khandak", 18.60, 30.57, "Village", ["Khandaq", "El Khandaq"]),
    ("Old Dongola", 18.22, 30.74, "Village", ["Dongola el Aguz", "Old Dunqulah"]),
    ("Debbeh", 18.05, 30.95, "Village", ["Ed Debba", "Debba", "Ed Debbeh", "Al Dabbah"]),
    ("Korti", 18.12, 31.55, "Village", ["Kurti"]),
    ("Ambukol", 18.10, 31.49, "Village", ["Ambukkol"]),
    # Merowe (18.48, 31.82) and Jebel Barkal (18.54, 31.85) face each other
    # across the river; the map uses Merowe.
    ("Merowe", 18.48, 31.82, "Village", ["Merawi", "Jebel Barkal"]),
    ("Hamdab", 18.61, 31.97, "Village", []),
    ("Kirbekan", 18.90, 32.30, "Landmark", ["Kirkeban"]),
    ("Hebbeh", 19.15, 32.60, "Village", ["Hebba"]),
    # Abou Hamed to Khartoum
    ("Abou Hamed", 19.53, 33.32, "Village", ["Abu Hamed", "Abu Hamad"]),
    ("Murrat Wells", 20.90, 32.90, "Oasis", ["Murrat", "Bir Murrat"]),
    ("Berber", 18.02, 33.99, "Town", ["El Mekheirif"]),
    ("Ed Damer", 17.59, 33.96, "Village", ["El Damer", "Damer"]),
    ("Metammeh", 16.70, 33.37, "Town", ["Metameh", "Metemmeh", "Metemma", "Al Matammah"]),
    ("Abu Kru", 16.73, 33.35, "Landmark", ["Gubat"]),
    ("Shendi", 16.69, 33.43, "Town", ["Shendy", "Shandi"]),
    ("Gakdul", 17.63, 32.80, "Oasis", ["Jakdul", "Gakdul Wells"]),
    ("Abu Klea", 17.02, 33.17, "Oasis", ["Abu Klea Wells", "Abu Tulayh"]),
    ("Sabaloka", 16.28, 32.68, "Landmark", ["Sabaluka", "Shabluka"]),
    # Khartoum and the two Niles
    ("Khartoum", 15.60, 32.53, "Town", ["Khartum", "El Khartoum"]),
    ("Omdurman", 15.64, 32.48, "Town", ["Umm Durman"]),
    ("Halfaya", 15.70, 32.55, "Village", ["Halfaiyeh", "Halfaya el Muluk"]),
    ("Soba", 15.53, 32.68, "Landmark", []),
    ("Jebel Aulia", 15.24, 32.49, "Landmark", ["Jebel Auli", "Jabal Awliya"]),
    ("Geteina", 14.86, 32.37, "Village", ["El Geteina", "Al Getaina"]),
    ("Duem", 14.00, 32.31, "Town", ["Ed Dueim", "Dueim", "Ed Duem"]),
    ("Kawa", 13.73, 32.50, "Village", ["El Kawa"]),
    ("Aba Island", 13.35, 32.62, "Landmark", ["Aba", "Abba Island", "Gezira Aba"]),
    ("Jebelein", 12.58, 32.80, "Village", ["Jebelain", "Al Jabalayn"]),
    ("Kamlin", 15.07, 33.18, "Village", ["El Kamlin", "Al Kamlin"]),
    ("Rufa'a", 14.77, 33.35, "Village", ["Rufa"]),
    ("Mesalamieh", 14.57, 33.36, "Town", ["Masallamiya", "Mesalamia", "Messalamieh"]),
    ("Wad Medani", 14.40, 33.52, "Town", ["Wad Madani", "Medani"]),
    ("Abu Haraz", 14.45, 33.53, "Village", []),
    ("Sennar", 13.55, 33.62, "Town", ["Sannar"]),
    # The east: Atbara, Kassala, Gedaref
    ("Adarama", 17.08, 34.90, "Village", ["Ad Darama"]),
    ("Goz Regeb", 16.08, 35.57, "Village", ["Goz Rajab", "Goz Rejeb"]),
    ("Kassala", 15.45, 36.40, "Town", ["Kasala"]),
    ("Gedaref", 14.03, 35.39, "Town", ["Gedarif", "Al Qadarif"]),
    ("Gallabat", 12.96, 36.15, "Village", ["Galabat", "Qallabat"]),
    # Souakim and the Red Sea littoral
    ("Souakim", 19.105, 37.335, "Town", ["Suakin", "Suakim", "Sawakin"]),
    ("Handub", 19.21, 37.22, "Village", ["Handoub"]),
    ("Otao", 19.26, 37.10, "Oasis", ["Otau"]),
    ("Tambuk", 19.28, 37.03, "Oasis", ["Tambouk"]),
    ("Kokreb", 18.95, 36.45, "Oasis", ["Kokreb Pass"]),
    ("Ariab", 18.65, 35.65, "Oasis", ["Ariab Wells"]),
    ("Obak", 18.30, 34.85, "Oasis", ["Obak Wells"]),
    ("Sinkat", 18.83, 36.83, "Town", []),
    ("Erkowit", 18.77, 37.05, "Village", ["Arkawit"]),
    ("Hasheen", 19.10, 37.22, "Landmark", ["Hashin"]),
    ("Tofrek", 19.05, 37.26, "Landmark", ["McNeill's Zareba"]),
    ("Tamai", 18.95, 37.15, "Landmark", ["Tamaai"]),
    ("Trinkitat", 18.67, 37.74, "Village", []),
    ("El Teb", 18.59, 37.69, "Landmark", ["Teb"]),
    ("Tokar", 18.43, 37.73, "Town", ["Tawkar"]),
    # Aqiq (38.17 E) lies just east of the last column; it is put on the
    # nearest hex of the map.
    ("Aqiq", 18.22, 38.17, "Village", ["Agig", "Akik"]),
    # Kordofan
    ("El Obeid", 13.18, 30.22, "Town", ["Al Ubayyid", "Obeid"]),
    ("Bara", 13.70, 30.37, "Town", []),
    ("Er Rahad", 12.72, 30.65, "Oasis", ["Al Rahad"]),
    ("Shekan", 12.90, 30.40, "Landmark", ["Shaykan", "Kashgil"]),
]

SETTLEMENT_KINDS = ("Town", "Village", "Oasis")
KIND_RANK = {"Town": 3, "Village": 2, "Oasis": 1, "Landmark": 0}

# River lines, as listed in the gazetteer (section 2), i.e. UPSTREAM order for
# the Nile (Halfa first) and DOWNSTREAM order for the White and Blue Niles
# (Khartoum first) and the Atbara (its mouth first).  river_lines() puts them
# into flow order.
NILE_HALFA_TO_KHARTOUM = [
    # Halfa-Kerma
    (21.80, 31.35), (21.70, 31.22), (21.60, 31.08), (21.50, 30.97), (21.35, 30.88),
    (21.20, 30.80), (21.07, 30.72), (20.95, 30.62), (20.84, 30.55), (20.80, 30.40),
    (20.68, 30.33), (20.54, 30.30), (20.42, 30.35), (20.28, 30.48), (20.13, 30.59),
    (20.00, 30.56), (19.88, 30.45), (19.77, 30.38), (19.60, 30.41),
    # Kerma-Merowe
    (19.45, 30.42), (19.30, 30.45), (19.17, 30.48), (18.98, 30.50), (18.78, 30.53),
    (18.58, 30.57), (18.40, 30.65), (18.22, 30.74), (18.10, 30.85), (18.05, 30.96),
    (18.05, 31.12), (18.08, 31.30), (18.10, 31.45), (18.12, 31.55), (18.23, 31.63),
    (18.34, 31.70), (18.45, 31.78), (18.51, 31.84),
    # Merowe-Abou Hamed
    (18.60, 31.96), (18.68, 32.06), (18.79, 32.18), (18.91, 32.32), (19.02, 32.45),
    (19.13, 32.58), (19.25, 32.72), (19.35, 32.90), (19.45, 33.08), (19.53, 33.22),
    (19.55, 33.33),
    # Abou Hamed-Berber
    (19.42, 33.40), (19.28, 33.46), (19.14, 33.52), (19.00, 33.57), (18.85, 33.60),
    (18.68, 33.68), (18.52, 33.80), (18.37, 33.90), (18.22, 33.97), (18.02, 33.99),
    # Berber-Khartoum
    (17.85, 33.98), (17.68, 33.97), (17.59, 33.95), (17.42, 33.88), (17.25, 33.81),
    (17.08, 33.76), (16.93, 33.72), (16.80, 33.58), (16.70, 33.40), (16.60, 33.25),
    (16.50, 33.12), (16.40, 32.95), (16.33, 32.80), (16.25, 32.67), (16.12, 32.60),
    (15.95, 32.55), (15.78, 32.52), (15.68, 32.51), (15.62, 32.51),
]
# Below Wady Halfa the Nile runs on north-north-east off the map (the map's
# north edge is about 22.07 N).  Not in the gazetteer: a point beyond the edge.
NILE_BEYOND_NORTH_EDGE = [(22.20, 31.45)]

WHITE_NILE_FROM_KHARTOUM = [
    (15.62, 32.51), (15.45, 32.47), (15.24, 32.49), (15.05, 32.42), (14.86, 32.37),
    (14.65, 32.35), (14.42, 32.33), (14.20, 32.31), (14.00, 32.32), (13.85, 32.42),
    (13.73, 32.50), (13.55, 32.57), (13.38, 32.62), (13.17, 32.66), (12.95, 32.72),
    (12.75, 32.77), (12.58, 32.80),
]
# Above Jebelein the White Nile comes from the south (Renk): a point beyond
# the south edge (about 12.42 N).  Not in the gazetteer.
WHITE_NILE_BEYOND_SOUTH_EDGE = [(12.25, 32.83)]

BLUE_NILE_FROM_KHARTOUM = [
    (15.61, 32.53), (15.55, 32.62), (15.52, 32.70), (15.40, 32.80), (15.28, 32.92),
    (15.15, 33.05), (15.05, 33.17), (14.90, 33.25), (14.76, 33.32), (14.60, 33.38),
    (14.45, 33.50), (14.40, 33.52), (14.22, 33.58), (14.05, 33.60), (13.88, 33.62),
    (13.70, 33.62), (13.55, 33.62),
]
# Above Sennar the Blue Nile comes from Singa (13.15, 33.93) and Roseires in
# the south-east.  Not in the gazetteer: approximate points to the map edge.
BLUE_NILE_ABOVE_SENNAR = [(13.35, 33.78), (13.15, 33.93), (12.70, 34.10), (12.25, 34.25)]

ATBARA_FROM_MOUTH = [
    (17.68, 33.97), (17.62, 34.12), (17.55, 34.30), (17.45, 34.48), (17.30, 34.65),
    (17.12, 34.85), (16.95, 35.00), (16.75, 35.15), (16.55, 35.30), (16.32, 35.45),
    (16.08, 35.57), (15.85, 35.68), (15.60, 35.78), (15.35, 35.85), (15.10, 35.88),
    (14.93, 35.90),
]
ATBARA_CONFLUENCE = (17.68, 33.97)

# The Red Sea coast, north to south (gazetteer section 2), extended to the
# map edges.  The extensions are not in the gazetteer: north of 20 N the
# coast runs by Mohammed Qol and Dungonab to Ras Hadarba (22 N); south of
# 18 N it is east of the map anyway.
COAST_NORTH_EXTENSION = [(22.30, 36.65), (22.00, 36.88), (21.50, 37.00), (21.10, 37.12),
                         (20.60, 37.18)]
COAST = [
    (20.00, 37.21), (19.80, 37.22), (19.62, 37.23), (19.45, 37.28), (19.30, 37.32),
    (19.17, 37.34), (19.10, 37.35), (18.98, 37.42), (18.85, 37.52), (18.74, 37.65),
    (18.67, 37.75), (18.58, 37.85), (18.45, 37.95), (18.32, 38.05), (18.22, 38.17),
    (18.10, 38.35), (18.00, 38.55),
]
COAST_SOUTH_EXTENSION = [(17.60, 38.80)]

# Terrain regions (gazetteer section 5).  A hex takes the terrain of the
# region its centre lies in.
RED_SEA_HILLS = dict(lat_min=18.3, lat_max=20.0, lon_min=36.2, lon_max=37.3,
                     # the coastal plain: hex centres closer to the coast
                     # than this stay clear.  The gazetteer puts the foot of
                     # the hills 12-15 km inland of Souakim; a hex centred
                     # 18 km inland lies mostly beyond it.
                     plain_km=18.0)
HILL_BOXES = [
    # name, lat_min, lat_max, lon_min, lon_max
    ("Bayuda central hills", 17.5, 17.9, 32.3, 32.9),
    ("Sabaloka hills", 16.15, 16.45, 32.5, 32.85),
    ("Kassala granite domes", 15.4, 16.4, 36.0, 36.4),
]
# Ground where an ambush may lie besides hills, mountains and named places
# (the optional ambush rule): gazetteer section 5, "Bayuda ... gravel plain
# and wadis".  name, lat_min, lat_max, lon_min, lon_max; written as the hex
# rectangle from the north-west corner to the south-east corner.
AMBUSH_BOXES = [
    ("Bayuda wadis", 16.4, 18.5, 31.5, 33.5),
]
# Jebel Kordofan: a small patch of hills east and north-east of El Obeid
# (El Obeid itself stays clear).  Centre and radius of the patch.
KORDOFAN_HILLS = (13.30, 30.45, 17.0)
# The Batn el Hajar: rocky belt along the Nile from Semna to Dal.  Hills on
# both banks: every hex with a Nile hexside between these two points.
BATN_EL_HAJAR = ((21.49, 30.96), (20.95, 30.61))
# Mountains on the highest ground of the Red Sea Hills: around Sinkat and
# Erkowit, and flanking the Kokreb pass.  Hexes whose centres lie within
# MOUNTAIN_RADIUS_KM of a peak become mountains unless they carry a place, the
# Souakim-Berber track or the Souakim-Sinkat road.
MOUNTAIN_PEAKS = [
    (18.68, 37.00),   # the Erkowit massif, south of the hill station
    (18.95, 36.93),   # the ridge north of Sinkat
    (18.70, 36.75),   # south-west of Sinkat
    (19.12, 36.55),   # north of the Kokreb pass
    (18.80, 36.42),   # south of the Kokreb pass
]
MOUNTAIN_RADIUS_KM = 10.0

# Banks of the riverside places: (place, river, bank).  Banks are "left" or
# "right" looking downstream (on the Nile flowing north, right = east).  Each
# place must have at least one side on that river, with its hex on that bank.
RIVERSIDE = [
    ("Wady Halfa", "Nile", "right"),
    ("Sarras", "Nile", "right"),
    ("Semna", "Nile", "right"),        # Kumma side; the railway runs on the east bank
    ("Akasha", "Nile", "right"),
    ("Dal", "Nile", "right"),
    ("Firket", "Nile", "right"),
    ("Kerma", "Nile", "right"),
    ("Dongola", "Nile", "left"),
    ("Khandak", "Nile", "left"),
    ("Old Dongola", "Nile", "right"),
    ("Debbeh", "Nile", "left"),
    ("Ambukol", "Nile", "left"),
    ("Korti", "Nile", "left"),
    ("Merowe", "Nile", "left"),        # Jebel Barkal is on the right bank
    ("Abou Hamed", "Nile", "right"),
    ("Berber", "Nile", "right"),
    ("Ed Damer", "Nile", "right"),
    ("Ed Damer", "Atbara", "left"),    # south of the confluence; Berber is north
    ("Shendi", "Nile", "right"),
    ("Metammeh", "Nile", "left"),
    ("Halfaya", "Nile", "right"),
    ("Omdurman", "Nile", "left"),
    ("Khartoum", "White Nile", "right"),
    ("Khartoum", "Blue Nile", "left"),
    ("Omdurman", "White Nile", "left"),
    ("Geteina", "White Nile", "right"),
    ("Duem", "White Nile", "left"),
    ("Kawa", "White Nile", "right"),
    ("Jebelein", "White Nile", "right"),
    ("Kamlin", "Blue Nile", "left"),
    ("Rufa'a", "Blue Nile", "right"),
    ("Mesalamieh", "Blue Nile", "left"),
    ("Abu Haraz", "Blue Nile", "right"),
    ("Wad Medani", "Blue Nile", "left"),
    ("Sennar", "Blue Nile", "left"),
    ("Adarama", "Atbara", "right"),
    ("Goz Regeb", "Atbara", "right"),
]

# Navigability of the Nile (gazetteer section 3), from Khartoum downstream.
# Each reach: its class, where it ends (a point on the river line; the last
# reach runs to the end of the river) and a note for the map file.
NILE_REACHES = [
    ("Navigable", (16.22, 32.66), "Khartoum to Sabaloka"),
    ("Unnavigable", (16.33, 32.80), "Sabaloka gorge (6th cataract), 16.22-16.33 N"),
    ("Navigable", (18.30, 33.93), "Sabaloka by Shendi and Berber to the Mograt rapids"),
    ("Unnavigable", (18.80, 33.62), "5th cataract and the Mograt rapids, 18.3-18.8 N"),
    ("Navigable", (19.55, 33.33), "up to Abou Hamed"),
    ("Unnavigable", (18.61, 31.97), "4th cataract and the rapids, Abou Hamed to Hamdab"),
    ("Navigable", (19.75, 30.38), "the Dongola reach, Hamdab by Merowe and Dongola to Hannek"),
    ("Unnavigable", (20.00, 30.56), "3rd cataract, Hannek to Kajbar"),
    ("Navigable", (20.95, 30.61), "Kajbar by Amara to Dal"),
    ("Unnavigable", (21.75, 31.27), "Batn el Hajar and the 2nd cataract, Dal to the foot"),
    ("Navigable", None, "the foot of the 2nd cataract by Wady Halfa to the map edge"),
]
OTHER_RIVER_CLASS = {"White Nile": "Navigable", "Blue Nile": "Seasonal", "Atbara": "Unnavigable"}

# Cataracts (gazetteer section 3): name and the spots it covers.  A spot is a
# position or a place, and how many river hexsides it takes: those nearest
# the position (for a place: its own river hexsides first).  Only hexsides of
# unnavigable reaches qualify.
CATARACTS = [
    ("Second Cataract", [((21.75, 31.27), 2), ("Semna", 1)]),
    ("Dal Cataract", [("Dal", 1)]),
    ("Third Cataract", [("Kajbar", 1), ("Hannek", 1)]),
    ("Fourth Cataract", [((18.92, 32.37), 2)]),
    ("Fifth Cataract", [((18.55, 33.75), 2)]),
    ("Sixth Cataract", [((16.28, 32.68), 2)]),
]

# Railways (gazetteer section 4; rules 3.4, 3.41).  Each: name, the places the
# track passes through in order, and how many of those stops are built (the
# track is built up to and including that stop).
RAILWAYS = [
    ("Nile Valley Railway",
     ["Wady Halfa", "Sarras", "Semna", "Ambigol Wells", "Akasha", "Dal", "Firket"],
     "Sarras"),
    ("Souakim - Berber",
     ["Souakim", "Handub", "Otao", "Tambuk", "Kokreb", "Ariab", "Obak", "Berber"],
     None),
]

SOUAKIM_EXTENSION = [("3100", "5940")]

# Distance checks (gazetteer section 6): place, place, grid hexes the
# gazetteer gives.
DISTANCE_CHECKS = [
    ("Khartoum", "Berber", 22),
    ("Korti", "Metammeh", 15),
    ("Souakim", "Berber", 24),
    ("Khartoum", "El Obeid", 24),
    ("Wady Halfa", "Dongola", 21),
]
SAMPLE_CELLS = {
    "Wady Halfa": "1101", "Dongola": "0419", "Korti": "1226", "Merowe": "1423",
    "Abou Hamed": "2516", "Berber": "3026", "Gakdul": "2128", "Metammeh": "2534",
    "Khartoum": "1942", "Omdurman": "1941", "Duem": "1752", "El Obeid": "0258",
    "Sennar": "2755", "Kassala": "4743", "Souakim": "5419", "Tokar": "5723",
}

# Shortest-path tuning for rivers: km of extra cost per km of an edge
# midpoint's distance from the true river line.
RIVER_PENALTY = 3.0
# Polyline points closer than this (km along the river) to a forced place
# side are not used as waypoints: the forced side takes their place.
WAYPOINT_CLEARANCE_KM = 14.0
# A polyline point snaps to its nearest corner or any corner at most this
# much farther away.
SNAP_SLACK_KM = 3.0


# ---------------------------------------------------------------------------
# Geometry
# ---------------------------------------------------------------------------

def project(lat, lon):
    """(lat, lon) -> (x km east, y km south) of hex 0000's centre."""
    return ((lon - ORIGIN_LON) * KM_PER_DEG_LON, (ORIGIN_LAT - lat) * KM_PER_DEG_LAT)


def unproject(x, y):
    return (ORIGIN_LAT - y / KM_PER_DEG_LAT, ORIGIN_LON + x / KM_PER_DEG_LON)


def hex_centre(c, r):
    return (COL_STEP * c, ROW_STEP * r + (ROW_STEP / 2 if c % 2 else 0.0))


def on_map(c, r):
    return 0 <= c < COLUMNS and 0 <= r < ROWS


def label(c, r):
    return f"{c:02d}{r:02d}"


def to_cube(c, r):
    """Odd-q offset (odd columns shifted south) to cube coordinates."""
    q = c
    ra = r - (c - (c & 1)) // 2
    return q, ra, -q - ra


def hex_distance(a, b):
    qa, ra, sa = to_cube(*a)
    qb, rb, sb = to_cube(*b)
    return max(abs(qa - qb), abs(ra - rb), abs(sa - sb))


def hex_at(x, y):
    """The hex containing point (x, y): fractional axial coordinates, then
    cube rounding (the hexes are an affine image of regular hexes, so this is
    exact), then back to odd-q offset."""
    q = x / COL_STEP
    ra = y / ROW_STEP - q / 2
    s = -q - ra
    rq, rr, rs = round(q), round(ra), round(s)
    dq, dr, ds = abs(rq - q), abs(rr - ra), abs(rs - s)
    if dq > dr and dq > ds:
        rq = -rr - rs
    elif dr > ds:
        rr = -rq - rs
    c = rq
    return c, rr + (c - (c & 1)) // 2


def neighbour(c, r, d):
    odd = c & 1
    return {
        "N": (c, r - 1),
        "NE": (c + 1, r) if odd else (c + 1, r - 1),
        "SE": (c + 1, r + 1) if odd else (c + 1, r),
        "S": (c, r + 1),
        "SW": (c - 1, r + 1) if odd else (c - 1, r),
        "NW": (c - 1, r) if odd else (c - 1, r - 1),
    }[d]


def neighbours(c, r):
    return [neighbour(c, r, d) for d in DIRECTIONS]


# Hex corners live on an integer lattice: x in units of COL_STEP/3 (half the
# corner radius), y in units of ROW_STEP/2.  Hex (c, r) has its centre at
# (3c, 2r + c%2) in these units.
def corners(c, r):
    """The six corners of a hex: E, SE, SW, W, NW, NE."""
    cx, cy = 3 * c, 2 * r + (c & 1)
    return [(cx + 2, cy), (cx + 1, cy + 1), (cx - 1, cy + 1),
            (cx - 2, cy), (cx - 1, cy - 1), (cx + 1, cy - 1)]


def side_corners(c, r, d):
    """The two corners bounding side d of hex (c, r)."""
    e, se, sw, w, nw, ne = corners(c, r)
    return {"N": (nw, ne), "NE": (ne, e), "SE": (e, se),
            "S": (se, sw), "SW": (sw, w), "NW": (w, nw)}[d]


def vertex_xy(v):
    return (v[0] * COL_STEP / 3, v[1] * ROW_STEP / 2)


def edge_key(a, b):
    return (a, b) if a < b else (b, a)


def dist(p, q):
    return math.hypot(p[0] - q[0], p[1] - q[1])


def cross(o, a, b):
    """z of (a - o) x (b - o) in north-up axes: > 0 when b lies to the left of
    the direction o -> a."""
    ax, ay = a[0] - o[0], -(a[1] - o[1])
    bx, by = b[0] - o[0], -(b[1] - o[1])
    return ax * by - ay * bx


class Polyline:
    """A line in km with arc-length parameters."""

    def __init__(self, points_km):
        self.pts = points_km
        self.cum = [0.0]
        for a, b in zip(points_km, points_km[1:]):
            self.cum.append(self.cum[-1] + dist(a, b))

    def nearest(self, p):
        """(distance, segment index, fraction along it) of the point of the
        line nearest to p; the first segment wins ties."""
        best = None
        for i, (a, b) in enumerate(zip(self.pts, self.pts[1:])):
            dx, dy = b[0] - a[0], b[1] - a[1]
            seg = dx * dx + dy * dy
            t = 0.0
            if seg > 0:
                t = max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / seg))
            d = dist(p, (a[0] + t * dx, a[1] + t * dy))
            if best is None or d < best[0] - 1e-12:
                best = (d, i, t)
        return best

    def project(self, p):
        """(distance, arc-length parameter, unit tangent) of the nearest point."""
        d, i, t = self.nearest(p)
        a, b = self.pts[i], self.pts[i + 1]
        length = dist(a, b) or 1.0
        return d, self.cum[i] + t * dist(a, b), ((b[0] - a[0]) / length, (b[1] - a[1]) / length)

    def distance(self, p):
        return self.nearest(p)[0]

    def side(self, p):
        """'left' or 'right' of the line looking along it."""
        _, i, _ = self.nearest(p)
        return "left" if cross(self.pts[i], self.pts[i + 1], p) > 0 else "right"


def lon_on_line_at(line, lat):
    """Longitude of a north-to-south line (list of (lat, lon)) at lat."""
    for (la1, lo1), (la2, lo2) in zip(line, line[1:]):
        if la1 >= lat >= la2:
            t = 0.0 if la1 == la2 else (la1 - lat) / (la1 - la2)
            return lo1 + t * (lo2 - lo1)
    return line[0][1] if lat > line[0][0] else line[-1][1]


# ---------------------------------------------------------------------------
# The hex-corner graph
# ---------------------------------------------------------------------------

class CornerGraph:
    """Corners of the map's hexes and the hexsides between them.  Rivers may
    use only the hexsides between two hexes of the map (`adj`), so that none
    runs along the map's border; a river that leaves the map ends at a
    corner on the border."""

    def __init__(self):
        self.adj = {}        # corner -> sorted list of neighbouring corners
        self.sides = {}      # edge key -> [(hex, direction), ...]
        for c in range(COLUMNS):
            for r in range(ROWS):
                for d in DIRECTIONS:
                    a, b = side_corners(c, r, d)
                    n = neighbour(c, r, d)
                    self.sides.setdefault(edge_key(a, b), []).append(((c, r), d))
                    if not on_map(*n):
                        self.sides[edge_key(a, b)].append((n, OPPOSITE[d]))
                    elif (c, r) < n:
                        self.adj.setdefault(a, set()).add(b)
                        self.adj.setdefault(b, set()).add(a)
        self.adj = {v: sorted(ns) for v, ns in self.adj.items()}

    def hexes_of_edge(self, a, b):
        return [h for h, _ in self.sides[edge_key(a, b)]]

    def name(self, a, b):
        """Hexside name CCRR/D of edge a-b, written from an on-map hex; when
        both hexes are on the map, from the one whose side is N, NE or SE."""
        entries = [(h, d) for h, d in self.sides[edge_key(a, b)] if on_map(*h)]
        entries.sort(key=lambda e: (e[1] not in ("N", "NE", "SE"), e[0]))
        h, d = entries[0]
        return f"{label(*h)}/{d}"

    def hex_edges(self, c, r):
        return [(d,) + side_corners(c, r, d) for d in DIRECTIONS]

    def shortest_path(self, start, goals, cost, blocked):
        """Dijkstra from start to the nearest (by cost) of the corners in
        `goals`, over corners not in `blocked`.  Deterministic: ties break on
        the corner tuples."""
        best = {start: 0.0}
        prev = {}
        heap = [(0.0, start)]
        reached = None
        while heap:
            d, v = heapq.heappop(heap)
            if d > best[v]:
                continue
            if v in goals:
                reached = v
                break
            for w in self.adj[v]:
                if w in blocked:
                    continue
                nd = d + cost(v, w)
                if nd < best.get(w, math.inf) - 1e-9:
                    best[w] = nd
                    prev[w] = v
                    heapq.heappush(heap, (nd, w))
        if reached is None:
            return None
        path = [reached]
        while path[-1] != start:
            path.append(prev[path[-1]])
        return path[::-1]


def nearest_corner(graph, p):
    return min((dist(vertex_xy(v), p), v) for v in graph.adj)[1]


def snap_corners(graph, p):
    """The corners a polyline point may snap to: the nearest one and any
    other within SNAP_SLACK_KM as near (the path takes whichever is on its
    way, so that it does not spike out to reach one particular corner)."""
    ranked = sorted((dist(vertex_xy(v), p), v) for v in graph.adj)
    return {v for d, v in ranked if d <= ranked[0][0] + SNAP_SLACK_KM}


# ---------------------------------------------------------------------------
# Terrain
# ---------------------------------------------------------------------------

def coast_line():
    return COAST_NORTH_EXTENSION + COAST + COAST_SOUTH_EXTENSION


def is_sea(c, r):
    lat, lon = unproject(*hex_centre(c, r))
    return lon > lon_on_line_at(coast_line(), lat)


def km_inland(c, r):
    lat, lon = unproject(*hex_centre(c, r))
    return (lon_on_line_at(coast_line(), lat) - lon) * KM_PER_DEG_LON


def batn_el_hajar(graph, lines, chains):
    """Hexes on either bank of the Nile between Semna and Dal."""
    nile = lines["Nile"]
    s0, s1 = sorted(nile.project(project(*p))[1] for p in BATN_EL_HAJAR)
    hexes = set()
    for e in chain_edges(chains["Nile"]):
        if s0 <= nile.project(midpoint(e))[1] <= s1:
            hexes |= {h for h in graph.hexes_of_edge(*e) if on_map(*h)}
    return hexes


def base_terrain(rocky):
    """Sea and hills; mountains are added once the routes are known.
    `rocky`: the hexes of the Batn el Hajar."""
    grid = [["." for _ in range(COLUMNS)] for _ in range(ROWS)]
    for r in range(ROWS):
        for c in range(COLUMNS):
            lat, lon = unproject(*hex_centre(c, r))
            if is_sea(c, r):
                grid[r][c] = "~"
                continue
            rsh = RED_SEA_HILLS
            if (rsh["lat_min"] <= lat <= rsh["lat_max"] and rsh["lon_min"] <= lon <= rsh["lon_max"]
                    and km_inland(c, r) >= rsh["plain_km"]):
                grid[r][c] = "h"
            for _, la0, la1, lo0, lo1 in HILL_BOXES:
                if la0 <= lat <= la1 and lo0 <= lon <= lo1:
                    grid[r][c] = "h"
            klat, klon, krad = KORDOFAN_HILLS
            if dist(hex_centre(c, r), project(klat, klon)) <= krad:
                grid[r][c] = "h"
            if (c, r) in rocky:
                grid[r][c] = "h"
    return grid


def souakim_sinkat_road(terrain, place_hex):
    """The hexes of the road from Souakim up to Sinkat (kept free of
    mountains): the shortest land path, nearest the straight line."""
    a, b = place_hex["Souakim"], place_hex["Sinkat"]
    return hex_path(a, b, passable=lambda h: terrain[h[1]][h[0]] != "~",
                    step_ok=lambda h, n: True,
                    line=Polyline([hex_centre(*a), hex_centre(*b)]))


def add_mountains(grid, protected):
    for r in range(ROWS):
        for c in range(COLUMNS):
            if grid[r][c] != "h" or (c, r) in protected:
                continue
            centre = hex_centre(c, r)
            if any(dist(centre, project(*p)) <= MOUNTAIN_RADIUS_KM for p in MOUNTAIN_PEAKS):
                grid[r][c] = "m"


# ---------------------------------------------------------------------------
# Places
# ---------------------------------------------------------------------------

def nearest_on_map_hex(x, y):
    c, r = hex_at(x, y)
    if on_map(c, r):
        return c, r
    cands = [(dist(hex_centre(cc, rr), (x, y)), (cc, rr))
             for cc in range(COLUMNS) for rr in range(ROWS)]
    return min(cands)[1]


def river_polylines():
    """Each river's line in flow order (km)."""
    def km(points):
        return [project(*p) for p in points]
    return {
        "Nile": Polyline(km(NILE_HALFA_TO_KHARTOUM[::-1] + NILE_BEYOND_NORTH_EDGE)),
        "White Nile": Polyline(km(WHITE_NILE_BEYOND_SOUTH_EDGE + WHITE_NILE_FROM_KHARTOUM[::-1])),
        "Blue Nile": Polyline(km(BLUE_NILE_ABOVE_SENNAR[::-1] + BLUE_NILE_FROM_KHARTOUM[::-1])),
        "Atbara": Polyline(km(ATBARA_FROM_MOUTH[::-1])),
    }


def place_hexes(lines, notes):
    """Hex of every place.  Places are settled in order of importance (towns,
    then villages, then oases, then landmarks; in PLACES order within a
    kind).  A settlement whose hex already holds a settlement moves to the
    neighbouring hex nearest its true position that is free of settlements,
    on land, and on the place's own bank of every river it is listed on in
    RIVERSIDE."""
    banks = {}
    for name, river, bank in RIVERSIDE:
        banks.setdefault(name, []).append((river, bank))
    hexes = {}
    settled = {}
    order = sorted(range(len(PLACES)), key=lambda i: (-KIND_RANK[PLACES[i][3]], i))
    for name, lat, lon, kind, _ in (PLACES[i] for i in order):
        p = project(lat, lon)
        h = nearest_on_map_hex(*p)
        if h != hex_at(*p):
            notes.append(f"{name}: position {lat} N {lon} E is off the map "
                         f"(hex {label(*hex_at(*p))}); put on {label(*h)}")
        if kind in SETTLEMENT_KINDS and h in settled:
            other = settled[h]
            cands = []
            for n in neighbours(*h):
                if not on_map(*n) or n in settled or is_sea(*n):
                    continue
                ok = all(lines[rv].side(hex_centre(*n)) == bk for rv, bk in banks.get(name, []))
                if ok:
                    cands.append((dist(hex_centre(*n), p), n))
            if not cands:
                raise SystemExit(f"no free neighbouring hex for {name}")
            n = min(cands)[1]
            notes.append(f"{name}: its hex {label(*h)} holds {other}; moved to {label(*n)}")
            h = n
        hexes[name] = h
        if kind in SETTLEMENT_KINDS:
            settled[h] = name
    return hexes


# ---------------------------------------------------------------------------
# Rivers
# ---------------------------------------------------------------------------

class RiverBuilder:
    """Draws the rivers one after another as chains of hex corners.  A river
    never touches a corner of a river drawn before it, except at its mouth."""

    def __init__(self, graph, lines, place_hex):
        self.g = graph
        self.lines = lines
        self.place_hex = place_hex
        self.used_vertices = set()     # corners on rivers already drawn
        self.chains = {}               # river -> list of corners in flow order

    def bank_side_of(self, river, place, bank):
        """The directed side (a, b) of the place's hex to force into the
        river: it has the hex on the required bank, runs with the current,
        and lies nearest the true river line.  A side shared with a place
        that must be on the other bank is preferred; one shared with a place
        that must be on the same bank is never taken."""
        line = self.lines[river]
        c, r = self.place_hex[place]
        centre = hex_centre(c, r)
        opposite = {self.place_hex[p] for p, rv, bk in RIVERSIDE
                    if rv == river and bk != bank and p != place}
        same = {self.place_hex[p] for p, rv, bk in RIVERSIDE
                if rv == river and bk == bank and p != place}
        best = None
        for d, a, b in self.g.hex_edges(c, r):
            pa, pb = vertex_xy(a), vertex_xy(b)
            if (cross(pa, pb, centre) > 0) != (bank == "left"):
                a, b, pa, pb = b, a, pb, pa
            dline, _, tangent = line.project(midpoint((a, b)))
            length = dist(pa, pb)
            along = ((pb[0] - pa[0]) * tangent[0] + (pb[1] - pa[1]) * tangent[1]) / length
            if along < -0.01:
                continue                  # would run against the current
            if neighbour(c, r, d) in same:
                continue                  # the neighbour must stay on this bank
            shared = neighbour(c, r, d) in opposite
            key = (not shared, round(dline, 6), d)
            if best is None or key < best[0]:
                best = (key, (a, b))
        return best[1]

    def side_on_bank(self, place, bank, edge):
        """Is directed edge `edge` a side of the place's hex, with the hex on
        `bank` of it?"""
        h = self.place_hex[place]
        a, b = edge
        if not {a, b} <= set(corners(*h)):
            return False
        on_left = cross(vertex_xy(a), vertex_xy(b), hex_centre(*h)) > 0
        return on_left == (bank == "left")

    def build(self, river, start, end, head_edges=(), tail_edges=(), mouth_vertex=None):
        """Draw `river` from corner `start` to corner `end` (flow order).
        head_edges: directed edges the chain must begin with (from start);
        tail_edges: directed edges it must end with (to end)."""
        line = self.lines[river]
        g = self.g
        fixed = list(head_edges) + list(tail_edges)
        forced = []                      # (arc parameter, (a, b), place)
        for place, rv, bank in RIVERSIDE:
            if rv != river or any(self.side_on_bank(place, bank, e) for e in fixed):
                continue
            e = self.bank_side_of(river, place, bank)
            if e not in [f[1] for f in forced]:
                forced.append((line.project(midpoint(e))[1], e, place))
        forced.sort()

        # Waypoints in flow order: (s, "point", corners it may snap to) for
        # the polyline points, (s, "edge", (a, b)) for the forced sides.
        waypoints = []
        for i, p in enumerate(line.pts):
            s = line.cum[i]
            if any(abs(s - fs) < WAYPOINT_CLEARANCE_KM for fs, _, _ in forced):
                continue
            if s < WAYPOINT_CLEARANCE_KM or s > line.cum[-1] - WAYPOINT_CLEARANCE_KM:
                continue
            waypoints.append((s, "point", snap_corners(g, p)))
        waypoints += [(s, "edge", e) for s, e, _ in forced]
        waypoints.sort(key=lambda w: (w[0], w[1]))

        def cost(v, w):
            length = dist(vertex_xy(v), vertex_xy(w))
            return length + RIVER_PENALTY * line.distance(midpoint((v, w)))

        chain = [start]
        for a, b in head_edges:
            assert chain[-1] == a, (river, a, chain[-1])
            chain.append(b)
        blocked = set(self.used_vertices) - {start, end}
        if mouth_vertex is not None:
            blocked.discard(mouth_vertex)

        def walk_to(targets, avoid=()):
            """Extend the chain to the cheapest of the target corners."""
            if chain[-1] in targets:
                return
            no_go = (blocked | set(chain) | {end} | set(avoid)) - set(targets)
            path = g.shortest_path(chain[-1], targets, cost, no_go)
            if path is None:
                raise SystemExit(f"{river}: no path from {chain[-1]} to {sorted(targets)}")
            chain.extend(path[1:])

        tail_start = tail_edges[0][0] if tail_edges else end
        for _, kind, data in waypoints:
            if kind == "point":
                targets = data - set(chain[:-1]) - blocked - {tail_start}
                if targets:
                    walk_to(targets)
            else:
                a, b = data
                if a in chain[:-1] or b in chain:
                    who = [p for _, e, p in forced if e == data]
                    raise SystemExit(f"{river}: forced side {a}-{b} of {who} comes too late")
                walk_to({a}, avoid=[b])
                chain.append(b)
        walk_to({tail_start}, avoid=[v for e in tail_edges for v in e])
        for a, b in tail_edges:
            assert chain[-1] == a
            chain.append(b)
        if len(set(chain)) != len(chain):
            raise SystemExit(f"{river}: chain crosses itself")
        self.chains[river] = chain
        self.used_vertices |= set(chain)
        return chain


def far_end_of_shared_side(hex_a, hex_b, vtx):
    """The other corner of the side shared by two neighbouring hexes, one of
    whose corners is vtx."""
    for d in DIRECTIONS:
        if neighbour(*hex_a, d) == hex_b:
            a, b = side_corners(*hex_a, d)
            assert vtx in (a, b)
            return b if a == vtx else a
    raise ValueError("hexes are not neighbours")


def build_rivers(graph, lines, place_hex):
    rb = RiverBuilder(graph, lines, place_hex)

    # The confluence: the eastern corner shared by Khartoum's and Omdurman's
    # hexes (the Blue Nile comes from the east).  The White Nile ends along
    # the side between Khartoum and Omdurman (after running down Khartoum's
    # west side), the Blue Nile along Khartoum's side facing the third hex at
    # that corner, and the Nile starts between Omdurman and that third hex.
    k, o = place_hex["Khartoum"], place_hex["Omdurman"]
    common = sorted(set(corners(*k)) & set(corners(*o)))
    assert len(common) == 2, "Khartoum and Omdurman must be neighbours"
    v = max(common, key=lambda c: (vertex_xy(c)[0], c))
    (h,) = [n for n in neighbours(*k) if n != o and v in corners(*n)]

    nile_first = far_end_of_shared_side(o, h, v)
    white_last = far_end_of_shared_side(k, o, v)
    blue_last = far_end_of_shared_side(k, h, v)
    # Khartoum's other side at white_last: the White Nile runs down it.
    (white_before,) = [x for x in graph.adj[white_last]
                       if x != v and x in corners(*k)]

    nile_end = nearest_corner(graph, lines["Nile"].pts[-1])
    rb.build("Nile", v, nile_end, head_edges=[(v, nile_first)])

    white_start = nearest_corner(graph, lines["White Nile"].pts[0])
    rb.build("White Nile", white_start, v,
             tail_edges=[(white_before, white_last), (white_last, v)])

    blue_start = nearest_corner(graph, lines["Blue Nile"].pts[0])
    rb.build("Blue Nile", blue_start, v, tail_edges=[(blue_last, v)])

    # The Atbara's mouth: the Nile corner nearest the confluence whose third
    # edge is free and leads off into the Nile's right (east) bank.
    nile = rb.chains["Nile"]
    conf = project(*ATBARA_CONFLUENCE)
    cands = []
    for before, m, after in zip(nile, nile[1:], nile[2:]):
        for third in graph.adj[m]:
            if third in (before, after) or third in rb.used_vertices:
                continue
            if cross(vertex_xy(before), vertex_xy(after), vertex_xy(third)) < 0:
                cands.append((dist(vertex_xy(m), conf), m, third))
    _, mouth, before_mouth = min(cands)
    atbara_start = nearest_corner(graph, lines["Atbara"].pts[0])
    rb.build("Atbara", atbara_start, mouth,
             tail_edges=[(before_mouth, mouth)], mouth_vertex=mouth)
    return rb.chains


def chain_edges(chain):
    return list(zip(chain, chain[1:]))


def split_reaches(graph, lines, chains):
    """river -> [(class, [edges], note)] in flow order."""
    out = {}
    for river, chain in chains.items():
        edges = chain_edges(chain)
        if river != "Nile":
            out[river] = [(OTHER_RIVER_CLASS[river], edges, None)]
            continue
        line = lines["Nile"]
        # arc parameter of each edge along the river, made non-decreasing
        params, run = [], -math.inf
        for e in edges:
            run = max(run, line.project(midpoint(e))[1])
            params.append(run)
        reaches, i = [], 0
        for cls, end, note in NILE_REACHES:
            if end is None:
                j = len(edges)
            else:
                s_end = line.project(project(*end))[1]
                j = i
                while j < len(edges) and params[j] < s_end:
                    j += 1
            if j > i:
                reaches.append((cls, edges[i:j], note))
            i = j
        out[river] = reaches
    return out


def find_cataracts(reaches, place_hex):
    unnav = [e for cls, edges, _ in reaches["Nile"] if cls == "Unnavigable" for e in edges]
    positions = {p[0]: (p[1], p[2]) for p in PLACES}
    result = []
    for name, spots in CATARACTS:
        chosen = []
        for spot, n in spots:
            if isinstance(spot, str):
                h = place_hex[spot]
                p = project(*positions[spot])

                def key(e, h=h, p=p):
                    return (not set(e) <= set(corners(*h)), dist(midpoint(e), p), e)
            else:
                p = project(*spot)

                def key(e, p=p):
                    return (dist(midpoint(e), p), e)
            chosen.extend([e for e in sorted(unnav, key=key) if e not in chosen][:n])
        result.append((name, chosen))
    return result


def midpoint(e):
    pa, pb = vertex_xy(e[0]), vertex_xy(e[1])
    return ((pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2)


# ---------------------------------------------------------------------------
# Railways
# ---------------------------------------------------------------------------

def river_between(graph, river_edges, h1, h2):
    for d in DIRECTIONS:
        if neighbour(*h1, d) == h2:
            return edge_key(*side_corners(*h1, d)) in river_edges
    raise ValueError("not adjacent")


def hex_path(start, goal, passable, step_ok, line):
    """Fewest-hex path (Dijkstra; ties go to hexes nearer `line`)."""
    best = {start: 0.0}
    prev = {}
    heap = [(0.0, start)]
    while heap:
        d, h = heapq.heappop(heap)
        if h == goal:
            break
        if d > best[h]:
            continue
        for n in neighbours(*h):
            if not on_map(*n) or not passable(n) or not step_ok(h, n):
                continue
            nd = d + 1.0 + 0.01 * line.distance(hex_centre(*n))
            if nd < best.get(n, math.inf) - 1e-9:
                best[n] = nd
                prev[n] = h
                heapq.heappush(heap, (nd, n))
    if goal not in best:
        return None
    path = [goal]
    while path[-1] != start:
        path.append(prev[path[-1]])
    return path[::-1]


def build_railways(graph, terrain, place_hex, river_edges):
    lines = []
    for name, stops, built_to in RAILWAYS:
        route = Polyline([hex_centre(*place_hex[s]) for s in stops])
        hexes = [place_hex[stops[0]]]
        built = 1 if built_to == stops[0] else 0
        for a, b in zip(stops, stops[1:]):
            seg = hex_path(place_hex[a], place_hex[b],
                           passable=lambda h: terrain[h[1]][h[0]] != "~" and h not in hexes,
                           step_ok=lambda h, n: not river_between(graph, river_edges, h, n),
                           line=route)
            if seg is None:
                raise SystemExit(f"{name}: no track from {a} to {b}")
            hexes.extend(seg[1:])
            if b == built_to:
                built = len(hexes)
        lines.append((name, hexes, built))
    return lines


# ---------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------

def ron_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def wrap_items(items, indent, width=96):
    """Items joined by ', ' on lines no wider than `width`."""
    lines, cur = [], ""
    for it in items:
        piece = it + ","
        if cur and len(indent) + len(cur) + 1 + len(piece) > width:
            lines.append(indent + cur)
            cur = piece
        else:
            cur = piece if not cur else cur + " " + piece
    if cur:
        lines.append(indent + cur)
    return lines


def render(terrain, place_hex, graph, reaches, cataracts, railways):
    out = []
    w = out.append
    w("// The Sudan, 1882-1885: the map of Dervish (see docs/map-format.md).")
    w("//")
    w("// Generated by tools/mapgen.py from the gazetteer (gazetteer.md: real")
    w("// positions, river lines, the Red Sea coast, cataracts, navigability,")
    w("// railways and terrain regions):")
    w("//     python3 tools/mapgen.py > scenarios/map.ron")
    w("// Game masters may instead edit this file by hand (regenerating it loses")
    w("// hand edits); `dervish scenario check` validates it.")
    w("//")
    w("// Projection: equirectangular, x = (lon - 29.9) * 106.34 km east,")
    w("// y = (22.0 - lat) * 111.19 km south.  Flat-topped hexes 16.9 km (10.5")
    w("// miles) across the flats, columns 14.63 km apart, odd columns shifted half")
    w("// a hex south; hex 0000 is centred on 22.0 N 29.9 E.  Hexes are CCRR,")
    w("// column then row, both zero-based.")
    w("Map(")
    w('    name: "The Sudan, 1882-1885",')
    w(f"    columns: {COLUMNS},")
    w(f"    rows: {ROWS},")
    w("    // One string per row, row 00 first, one character per column:")
    w("    //   '.' clear   'h' hills   'm' mountains   '~' sea")
    w("    terrain: [")
    for r in range(ROWS):
        w(f'        "{"".join(terrain[r])}",   // row {r:02d}')
    w("    ],")
    w("    // Rectangles (inclusive) of the Souakim map extension (rules 2.2, 2.3, 3.41).")
    ext = ", ".join(f'(from: "{a}", to: "{b}")' for a, b in SOUAKIM_EXTENSION)
    w(f"    souakim_extension: [ {ext} ],")
    w("    // Rectangles (inclusive) of ground where an ambush may lie (the optional")
    w("    // ambush rule), besides hills, mountains, villages, oases and landmarks:")
    for name, la0, la1, lo0, lo1 in AMBUSH_BOXES:
        w(f"    //   {name}: {la0}-{la1} N, {lo0}-{lo1} E")
    boxes = []
    for name, la0, la1, lo0, lo1 in AMBUSH_BOXES:
        a = hex_at(*project(la1, lo0))
        b = hex_at(*project(la0, lo1))
        boxes.append(f'(from: "{label(*a)}", to: "{label(*b)}")')
    w(f"    ambush_ground: [ {', '.join(boxes)} ],")
    w("    // Named places. kind: Town, Village, Oasis, or Landmark (a named hex with")
    w("    // no settlement: battlefields, passes, wells without a garrison).")
    w("    places: [")
    for name, _, _, kind, aliases in sorted(PLACES, key=lambda p: p[0]):
        al = ", ".join(ron_str(a) for a in aliases)
        hx = ron_str(label(*place_hex[name]))
        w(f"        (name: {ron_str(name)}, hex: {hx}, kind: {kind}, aliases: [{al}]),")
    w("    ],")
    w("    // Rivers run along hexsides (rule 8.21). `hexsides` are listed in the")
    w("    // order the water flows: from the source (upstream) to the mouth")
    w("    // (downstream). A river is cut into reaches; each reach has one class:")
    w("    //   Navigable, Unnavigable, Seasonal (navigable November to February, 8.23 III).")
    w("    // Consecutive hexsides must touch (share a corner), also across reaches.")
    w("    // `flows_into` names the river whose hexsides this one's mouth touches.")
    w("    rivers: [")
    notes = {
        "Nile": ["From Khartoum (the junction of the White and Blue Niles) north by",
                 "Sabaloka, Shendi, Berber, Abou Hamed, Merowe, Korti, Dongola and Wady",
                 "Halfa to the north edge of the map."],
        "White Nile": ["From the south edge of the map by Jebelein, Kawa and Duem to Khartoum."],
        "Blue Nile": ["From the south edge of the map by Sennar, Wad Medani and Kamlin to",
                      "Khartoum."],
        "Atbara": ["From above Goz Regeb to the Nile between Berber and Ed Damer."],
    }
    for river in ("Nile", "White Nile", "Blue Nile", "Atbara"):
        w("        (")
        for line in notes[river]:
            w(f"            // {line}")
        w(f"            name: {ron_str(river)},")
        w("            flows_into: " + ("None," if river == "Nile" else 'Some("Nile"),'))
        w("            reaches: [")
        for cls, edges, note in reaches[river]:
            if note:
                w(f"                // {note}")
            names = [ron_str(graph.name(a, b)) for a, b in edges]
            w(f"                (class: {cls}, hexsides: [")
            out.extend(wrap_items(names, " " * 20))
            w("                ]),")
        w("            ],")
        w("        ),")
    w("    ],")
    w("    // Cataracts (rule 8.23 IV) stand on river hexsides.")
    w("    cataracts: [")
    for name, edges in cataracts:
        hs = ", ".join(ron_str(graph.name(a, b)) for a, b in edges)
        w(f"        (name: {ron_str(name)}, hexsides: [{hs}]),")
    w("    ],")
    w("    // Railway lines: the hexes the track passes through, in order from its")
    w("    // start. The first `built` hexes are built at the start of both scenarios;")
    w("    // the rest is marked track that may be built (rules 3.4, 3.41).")
    w("    railways: [")
    rail_notes = {
        "Nile Valley Railway": ["Wady Halfa to Sarras built (1875-77); marked on by Semna,",
                                "Ambigol Wells and Akasha to Dal and Firket (1884-85)."],
        "Souakim - Berber": ["Marked along the caravan route: Handub, Otao, Tambuk, the",
                             "Kokreb pass, Ariab, Obak, Berber (rule 3.41)."],
    }
    for name, hexes, built in railways:
        for line in rail_notes[name]:
            w(f"        // {line}")
        w(f"        (name: {ron_str(name)}, hexes: [")
        out.extend(wrap_items([f'"{label(*h)}"' for h in hexes], " " * 12))
        w(f"        ], built: {built}),")
    w("    ],")
    w(")")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
# Checks (--check, on stderr)
# ---------------------------------------------------------------------------

def run_checks(terrain, place_hex, graph, lines, chains, reaches, cataracts, railways, road,
               notes):
    problems = []

    def say(s=""):
        print(s, file=sys.stderr)

    say("== Notes")
    for n in notes:
        say("  " + n)

    say("== Sample cells (gazetteer section 6)")
    for name, want in SAMPLE_CELLS.items():
        got = label(*place_hex[name])
        say(f"  {name:12s} {got}  gazetteer {want}  {'ok' if got == want else 'DIFFERENT'}")
        if got != want:
            problems.append(f"{name} is at {got}, gazetteer says {want}")

    say("== Hex distances vs straight-line miles / 10.5")
    pos = {p[0]: (p[1], p[2]) for p in PLACES}
    for a, b, want in DISTANCE_CHECKS:
        hexes = hex_distance(place_hex[a], place_hex[b])
        km = dist(project(*pos[a]), project(*pos[b]))
        say(f"  {a}-{b}: {hexes} hexes (gazetteer {want}); {km / 1.609344:.0f} miles "
            f"straight = {km / 1.609344 / 10.5:.1f} hexes")
        if hexes != want:
            problems.append(f"{a}-{b} is {hexes} hexes, gazetteer says {want}")

    say("== Rivers")
    river_of_edge = {}
    for river, chain in chains.items():
        edges = chain_edges(chain)
        for a, b in edges:
            k = edge_key(a, b)
            if k in river_of_edge:
                problems.append(f"hexside {graph.name(a, b)} on {river} and {river_of_edge[k]}")
            river_of_edge[k] = river
        connected = all(e1[1] == e2[0] for e1, e2 in zip(edges, edges[1:]))
        simple = len(set(chain)) == len(chain)
        flat = [e for _, es, _ in reaches[river] for e in es]
        classes = ", ".join(f"{cls} {len(es)}" for cls, es, _ in reaches[river])
        say(f"  {river}: {len(edges)} hexsides, connected={connected}, simple={simple}; {classes}")
        say(f"    first {graph.name(*edges[0])}, last {graph.name(*edges[-1])}")
        if not connected or not simple or flat != edges:
            problems.append(f"{river}: chain broken")
    nile_vertices = set(chains["Nile"])
    for river in ("White Nile", "Blue Nile", "Atbara"):
        mouth = chains[river][-1]
        ok = mouth in nile_vertices
        say(f"  {river} mouth touches the Nile: {ok}")
        if not ok:
            problems.append(f"{river} mouth does not touch the Nile")

    edge_class = {}
    for river, rs in reaches.items():
        for cls, edges, _ in rs:
            for a, b in edges:
                edge_class[edge_key(a, b)] = (river, cls, (a, b))

    def river_sides(h):
        """(direction, hexside, river, class, bank the hex is on) for each
        river hexside of hex h."""
        out = []
        for d, a, b in graph.hex_edges(*h):
            if edge_key(a, b) in edge_class:
                river, cls, (v, wv) = edge_class[edge_key(a, b)]
                on = "left" if cross(vertex_xy(v), vertex_xy(wv), hex_centre(*h)) > 0 else "right"
                out.append((d, graph.name(a, b), river, cls, on))
        return out

    say("== Riverside places: required bank; the river hexsides of the place's hex")
    for place, river, bank in RIVERSIDE:
        h = place_hex[place]
        sides = [x for x in river_sides(h) if x[2] == river]
        good = bool(sides) and all(x[4] == bank for x in sides)
        desc = ", ".join(f"{d} {n} {cls} ({on})" for d, n, _, cls, on in sides) or "none"
        say(f"  {place:12s} {label(*h)} {river:10s} {bank:5s}: {desc}  {'ok' if good else 'WRONG'}")
        if not good:
            problems.append(f"{place} not on the {bank} bank of the {river}")

    say("== Other places with river hexsides (bank of the hex; bank of the true position)")
    listed = {(p, rv) for p, rv, _ in RIVERSIDE}
    for name, lat, lon, kind, _ in PLACES:
        h = place_hex[name]
        sides = [x for x in river_sides(h) if (name, x[2]) not in listed]
        if not sides:
            continue
        true_side = {x[2]: lines[x[2]].side(project(lat, lon)) for x in sides}
        desc = ", ".join(f"{d} {n} {river} {cls} ({on})" for d, n, river, cls, on in sides)
        truth = ", ".join(f"{rv} {sd}" for rv, sd in sorted(true_side.items()))
        say(f"  {name:12s} {label(*h)}: {desc}; true position: {truth}")

    say("== Cataracts")
    unnav = {edge_key(*e) for cls, es, _ in reaches["Nile"] if cls == "Unnavigable" for e in es}
    for name, edges in cataracts:
        ok = all(edge_key(*e) in unnav for e in edges) and 1 <= len(edges) <= 3
        say(f"  {name}: {', '.join(graph.name(*e) for e in edges)}  {'ok' if ok else 'WRONG'}")
        if not ok:
            problems.append(f"{name} not on unnavigable hexsides")

    say("== Places on land; settlements per hex")
    per_hex = {}
    for name, _, _, kind, _ in PLACES:
        c, r = place_hex[name]
        if terrain[r][c] == "~":
            problems.append(f"{name} in the sea")
        if kind in SETTLEMENT_KINDS:
            per_hex.setdefault((c, r), []).append(name)
    for h, names in sorted(per_hex.items()):
        if len(names) > 1:
            problems.append(f"settlements {names} share {label(*h)}")
    for name in ("Souakim", "Trinkitat"):
        c, r = place_hex[name]
        sea = [label(*n) for n in neighbours(c, r) if on_map(*n) and terrain[n[1]][n[0]] == "~"]
        say(f"  {name} {label(c, r)}: sea neighbours {sea}")
        if not sea:
            problems.append(f"{name} is not on the coast")
    in_sea = [n for n, *_ in PLACES if terrain[place_hex[n][1]][place_hex[n][0]] == "~"]
    say(f"  places in the sea: {len(in_sea)}")

    say("== Railways")
    river_edges = set(river_of_edge)
    for name, hexes, built in railways:
        contiguous = all(hex_distance(a, b) == 1 for a, b in zip(hexes, hexes[1:]))
        land = all(terrain[r][c] != "~" for c, r in hexes)
        unique = len(set(hexes)) == len(hexes)
        dry = all(not river_between(graph, river_edges, a, b) for a, b in zip(hexes, hexes[1:]))
        say(f"  {name}: {len(hexes)} hexes, built {built}, contiguous={contiguous}, land={land}, "
            f"no repeats={unique}, never crosses a river={dry}")
        say(f"    {' '.join(label(*h) for h in hexes)}")
        mountains = [label(c, r) for c, r in hexes if terrain[r][c] == "m"]
        if mountains:
            problems.append(f"{name} crosses mountains {mountains}")
        if not (contiguous and land and unique and dry and built <= len(hexes)):
            problems.append(f"{name} is broken")

    say("== Red Sea Hills")
    say("  Souakim-Sinkat road: " + " ".join(f"{label(c, r)}{terrain[r][c]}" for c, r in road))
    say("  mountain hexes: " + " ".join(label(c, r) for r in range(ROWS) for c in range(COLUMNS)
                                        if terrain[r][c] == "m"))
    for name, hexes, _ in railways:
        say(f"  {name} terrain: " + "".join(terrain[r][c] for c, r in hexes))
    if any(terrain[r][c] == "m" for c, r in road):
        problems.append("mountains on the Souakim-Sinkat road")

    say("== Terrain counts")
    counts = {}
    for row in terrain:
        for ch in row:
            counts[ch] = counts.get(ch, 0) + 1
    say("  " + ", ".join(f"'{k}' {v}" for k, v in sorted(counts.items())))

    say("== Result: " + ("all checks passed" if not problems else f"{len(problems)} problem(s)"))
    for p in problems:
        say("  PROBLEM: " + p)
    return not problems


# ---------------------------------------------------------------------------

def main(argv):
    notes = []
    lines = river_polylines()
    place_hex = place_hexes(lines, notes)
    graph = CornerGraph()
    chains = build_rivers(graph, lines, place_hex)
    reaches = split_reaches(graph, lines, chains)
    cataracts = find_cataracts(reaches, place_hex)
    river_edges = {edge_key(a, b) for ch in chains.values() for a, b in chain_edges(ch)}

    terrain = base_terrain(batn_el_hajar(graph, lines, chains))
    # Settlements on hexes whose centre is just seaward of the coast line.
    for name, _, _, kind, _ in PLACES:
        c, r = place_hex[name]
        if terrain[r][c] == "~":
            terrain[r][c] = "."
            notes.append(f"{name}: hex {label(c, r)} made land "
                         "(its centre is seaward of the coast)")
    railways = build_railways(graph, terrain, place_hex, river_edges)
    protected = set(place_hex.values())
    for _, hexes, _ in railways:
        protected |= set(hexes)
    road = souakim_sinkat_road(terrain, place_hex)
    protected |= set(road)
    add_mountains(terrain, protected)

    sys.stdout.write(render(terrain, place_hex, graph, reaches, cataracts, railways))
    if "--check" in argv:
        ok = run_checks(terrain, place_hex, graph, lines, chains, reaches, cataracts, railways,
                        road, notes)
        return 0 if ok else 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
