"""Every page path comes from one builder: its shapes match the page router's patterns."""

from __future__ import annotations

import pytest

from romergo.common import urls


def test_paths_of_each_page() -> None:
    assert urls.project("prj_1") == "/projects/prj_1"
    assert urls.chapter("prj_1", "chp_2") == "/projects/prj_1/chapters/chp_2"
    assert urls.scene("prj_1", "scn_3") == "/projects/prj_1/scenes/scn_3"
    assert urls.check("prj_1") == "/projects/prj_1/check"
    assert urls.play("prj_1") == "/play/prj_1"
    assert urls.play("prj_1", "scn_3") == "/play/prj_1?scene=scn_3"
    assert urls.published_media("shr", "ast_1") == "/published/shr/media/ast_1"
    assert (
        urls.absolute("http://127.0.0.1:8080/", urls.published("shr"))
        == "http://127.0.0.1:8080/published/shr"
    )


def test_route_patterns_build_the_same_paths() -> None:
    assert urls.PROJECT_ROUTE.format(project_id="p") == urls.project("p")
    assert urls.SCENE_ROUTE.format(project_id="p", scene_id="s") == urls.scene("p", "s")
    assert urls.CHAPTER_ROUTE.format(project_id="p", chapter_id="c") == urls.chapter("p", "c")
    assert urls.CHARACTERS_ROUTE.format(project_id="p") == urls.characters("p")
    assert urls.ASSETS_ROUTE.format(project_id="p") == urls.assets("p")
    assert urls.CHECK_ROUTE.format(project_id="p") == urls.check("p")
    assert urls.HISTORY_ROUTE.format(project_id="p") == urls.history("p")
    assert urls.PLAY_ROUTE.format(project_id="p") == urls.play("p")
    assert urls.PUBLISHED_ROUTE.format(share_id="s") == urls.published("s")
    assert urls.PUBLISHED_MEDIA_ROUTE.format(share_id="s", asset_id="a") == urls.published_media("s", "a")
    assert urls.MEDIA_ROUTE.format(asset_id="a") == urls.media("a")


def test_sign_in_keeps_where_to_go_next() -> None:
    assert urls.login() == "/login"
    assert urls.login("/projects/p/scenes/s") == "/login?next=/projects/p/scenes/s"
    assert urls.login("/oauth/consent?request=r1") == "/login?next=/oauth/consent%3Frequest%3Dr1"


def test_an_id_cannot_change_the_path() -> None:
    assert urls.scene("p", "../../settings/agents") == "/projects/p/scenes/..%2F..%2Fsettings%2Fagents"


@pytest.mark.parametrize(
    ("entity_type", "expected"),
    [("scene", "/projects/p/scenes/e"), ("chapter", "/projects/p/chapters/e"), ("dialogue_line", None)],
)
def test_entity_pages(entity_type: str, expected: str | None) -> None:
    assert urls.entity("p", entity_type, "e") == expected


@pytest.mark.parametrize(
    ("url", "inside"),
    [
        ("/projects/p", True),
        ("//evil.example", False),
        ("https://evil.example", False),
        ("/\\evil", False),
        ("/\t/other-host:8129/x", False),  # the browser drops the tab: //other-host
        ("/\n/other-host/x", False),
        ("/\r\n//other-host", False),
        (" /projects/p", False),
        ("/\x00/x", False),
        (None, False),
    ],
)
def test_only_paths_inside_romergo_are_internal(url: object, inside: bool) -> None:
    assert urls.is_internal(url) is inside


@pytest.mark.parametrize(
    ("url", "page"),
    [
        ("/projects/prj_1", "/projects/prj_1"),
        ("/projects/prj_1/scenes/scn_2#lines", "/projects/prj_1/scenes/scn_2"),
        ("/projects/prj_1/check?x=<script>", "/projects/prj_1/check"),
        ("/play/prj_1?scene=scn_2", "/play/prj_1?scene=scn_2"),
        ("/projects/a%2Fb/history", "/projects/a%2Fb/history"),
        ("/settings/agents", "/settings/agents"),
        ("/projects/prj_1/../../logout", None),
        ("/oauth/consent?request=1", None),
        ("/\t/other-host:8129/projects/p", None),
        ("javascript:alert(1)", None),
        ({"url": "/projects/p"}, None),
    ],
)
def test_a_page_link_is_rebuilt_from_a_known_page_or_refused(url: object, page: str | None) -> None:
    assert urls.page_link(url) == page
