"""One module per page path (CONTRACT.md §8).

The signed-in author's pages are sub pages of the shell (ui/shell.py routes them): the projects
list, the agent settings, and the project pages (story outline, chapter, scene editor, characters,
assets, check, history, play), each built in the frame of ui/frame.py. Sign-in, the OAuth consent
page, an invitation's link and published stories are pages of their own, open without the shell.
"""
