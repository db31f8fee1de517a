"""The replay viewer in a real headless Chromium, fed what an attacker would
put in a replay: player names that are markup, and drawing items no scene
builder makes (a card given as a list, markup in every attribute).  No
script from the data runs (``data-pwned`` never set, no ``<img>`` made)
and the viewer draws every step.  Skipped without chromium and chromedriver."""

from __future__ import annotations

from test_table_browser import browser, by_css, screenshot, wait  # noqa: F401  (browser: the fixture)
from test_viewer_escaping import NAMES, TAG, hostile_data, hostile_replay

from cardenvs.app.viewer import build_html, viewer_data
from cardenvs.app.web import script_json


def untouched(driver) -> None:
    assert driver.execute_script("return document.body.getAttribute('data-pwned')") is None
    assert driver.execute_script("return document.querySelectorAll('img, [onerror]').length") == 0


def step_through(driver) -> int:
    """Click forward to the last step, checking the page after each; returns the steps seen."""
    seen = 1
    while by_css(driver, "#next")[0].is_enabled():
        by_css(driver, "#next")[0].click()
        seen += 1
        untouched(driver)
    return seen


def test_viewer_with_hostile_names_runs_no_script(browser, tmp_path):  # noqa: F811
    replay = hostile_replay()
    page = tmp_path / "names.html"
    page.write_text(build_html(replay))
    browser.get(page.as_uri())
    wait(browser, lambda d: by_css(d, "#table svg g.card"))
    untouched(browser)
    log = by_css(browser, "#log")[0].text
    for i, name in enumerate(NAMES):
        assert f"player_{i}: {name}" in log
    assert step_through(browser) == len(replay.actions) + 1
    assert by_css(browser, "#caption")[0].text.startswith("player_")
    screenshot(browser, tmp_path / "viewer_hostile_names.png")


def test_viewer_draws_hand_built_markup_as_text(browser, tmp_path):  # noqa: F811
    replay = hostile_replay()
    data = hostile_data()
    html = build_html(replay).replace(script_json(viewer_data(replay)), script_json(data))
    page = tmp_path / "items.html"
    page.write_text(html)
    browser.get(page.as_uri())
    wait(browser, lambda d: by_css(d, "#table svg g.card"))
    untouched(browser)
    texts = [t.get_attribute("textContent") for t in by_css(browser, "#table svg text")]
    assert TAG in texts  # the label and the mark drawn as text
    cards = [g.get_attribute("data-card") for g in by_css(browser, "#table svg g.card[data-card]")]
    assert TAG in cards and any("onerror" in c for c in cards if c != TAG)
    by_css(browser, "#next")[0].click()
    assert by_css(browser, "#caption")[0].text == f"player_0: {TAG}"
    assert step_through(browser) == len(data["steps"]) - 1
    untouched(browser)
