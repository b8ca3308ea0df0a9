"""What the search page says of texts a replace left alone because they changed since the search."""

from __future__ import annotations

from romergo.story.search import Hit, SceneHits, SearchResults, Target
from ui.pages.search import skipped_words

LINE = Hit("line", "line-1", "A lantern flickers.", ((2, 9),))
CHAPTER = Hit("chapter_title", "chapter-1", "Lantern Night", ((0, 7),))
SEEN = SearchResults(
    scenes=[SceneHits("scene-1", "The Cliff Path", "chapter-1", "Lantern Night", [LINE])],
    elsewhere=[CHAPTER],
    matches=2,
    texts=2,
)


def test_each_skipped_text_is_named_by_its_kind_and_scene():
    words = skipped_words([Target("line", "line-1"), Target("chapter_title", "chapter-1")], SEEN)
    assert words == (
        "Not replaced in 2 texts changed since your search: Line in “The Cliff Path”; "
        "Chapter title “Lantern Night”. The results show them as they are now."
    )


def test_a_text_the_search_did_not_show_is_counted_not_named():
    words = skipped_words([Target("line", "line-1"), Target("line", "line-9")], SEEN)
    assert "Line in “The Cliff Path”; 1 text not among the results." in words
    assert skipped_words([Target("line", "line-9")], None).startswith(
        "Not replaced in 1 text changed since your search: 1 text not among the results."
    )
