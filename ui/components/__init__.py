"""Parts the pages share.

Editors of a scene (its lines, its choices, its background and music slots, uploads), the chapter
and scene tree, the player that both the author's play-through and published stories use, the
project bar, publishing, dialogs, named icon buttons, keyboard focus and the not-found page.
"""
