"""The play page and the replay viewer in a real headless Chromium (Debian's
chromium and chromium-driver, driven by selenium).  Screenshots are saved
under the test's tmp dir (and into $CARDENVS_ARTIFACTS when it is set)."""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from collections import Counter

import pytest

from cardenvs.app.replay import record_game
from cardenvs.app.serve import make_server
from cardenvs.app.viewer import write_html

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1000",
]


def _find(*names):
    for name in names:
        path = shutil.which(name) or (f"/usr/bin/{name}" if os.path.exists(f"/usr/bin/{name}") else None)
        if path:
            return path
    return None


@pytest.fixture(scope="module")
def browser():
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is missing: pip install -e '.[dev]'")
    chromium, driver_path = _find("chromium", "chromium-browser"), _find("chromedriver")
    if not chromium or not driver_path:
        pytest.skip(
            "no Chromium for the browser tests: install Debian's chromium and chromium-driver "
            "(`make test` does so with apt-get when it can)"
        )
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="cardenvs-chromium-")
    options = webdriver.ChromeOptions()
    for flag in [*FLAGS, f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    options.binary_location = chromium
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def server():
    srv = make_server("127.0.0.1", 0, tick=1.0)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield srv
    srv.shutdown()
    srv.server_close()


def screenshot(driver, path):
    driver.save_screenshot(str(path))
    assert path.stat().st_size > 5000
    target = os.environ.get("CARDENVS_ARTIFACTS")
    if target:
        os.makedirs(target, exist_ok=True)
        shutil.copy(path, target)
    print(f"screenshot: {path}")


def wait(driver, condition, timeout=15):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(lambda d: condition(d))


def by_css(driver, css):
    from selenium.webdriver.common.by import By

    return driver.find_elements(By.CSS_SELECTOR, css)


def test_play_page_plays_a_legal_move_by_clicking(browser, server, tmp_path):
    from selenium.webdriver.support.ui import Select

    browser.get(server.url)
    Select(by_css(browser, "#game")[0]).select_by_value("pepper_v0")
    by_css(browser, "#seed")[0].send_keys("5")
    by_css(browser, "#new")[0].click()
    wait(browser, lambda d: by_css(d, "#moves button.move"))
    status = by_css(browser, "#status")[0]
    steps_before = status.get_attribute("data-steps")
    table_before = by_css(browser, "#table")[0].get_attribute("innerHTML")
    assert "player_" in status.text and "Your turn" in status.text
    # our own hand is face up, the other three face down
    assert len(by_css(browser, "#table g.card.back")) == 18 and len(by_css(browser, "#table g.card[data-card]")) == 6
    buttons = by_css(browser, "#moves button.move")
    move = buttons[-1].text
    buttons[-1].click()
    wait(browser, lambda d: by_css(d, "#status")[0].get_attribute("data-steps") != steps_before)
    assert by_css(browser, "#table")[0].get_attribute("innerHTML") != table_before
    assert f"player_0: {move}" in by_css(browser, "#log")[0].text
    assert by_css(browser, "#error")[0].text == ""
    screenshot(browser, tmp_path / "play_page.png")


def test_play_page_runs_speed_in_real_time(browser, server, tmp_path):
    from selenium.webdriver.support.ui import Select

    browser.get(server.url)
    Select(by_css(browser, "#game")[0]).select_by_value("speed")
    tick = by_css(browser, "#tick")[0]
    tick.clear()
    tick.send_keys("0.1")
    by_css(browser, "#new")[0].click()
    wait(browser, lambda d: by_css(d, "#moves button.move"))
    # the clock runs: the agent plays while we wait
    wait(browser, lambda d: int(by_css(d, "#status")[0].get_attribute("data-steps") or 0) >= 3)
    # The page redraws its buttons every tick, so a button found may be gone
    # before a second round trip of the driver clicks it (on a slow machine,
    # every time): the first "play" button is found and clicked in the page,
    # in one script.  Its card may still be played by the time the server
    # sees it (a 400 in #error), and at some moments we have nothing to play
    # at all (only "wait"): keep trying while the clock plays on, until one
    # play goes through or the game ends.
    import time

    from selenium.common.exceptions import TimeoutException

    click_first_play = """
        const play = [...document.querySelectorAll('#moves button.move')]
            .find((b) => b.textContent.startsWith('play'));
        if (!play) return null;
        const text = play.textContent;
        play.click();
        return text;"""
    played, deadline = False, time.monotonic() + 60
    while not played and time.monotonic() < deadline:
        if by_css(browser, "#spectate")[0].is_enabled():
            break  # the game is over (Speed's agent can win it first)
        text = browser.execute_script(click_first_play)
        if text is None:
            time.sleep(0.05)
            continue
        try:
            wait(browser, lambda d, text=text: text in by_css(d, "#log")[0].text, timeout=3)
            played = True
        except TimeoutException:
            continue
    assert played or by_css(browser, "#spectate")[0].is_enabled(), "no play went through in 60 s of play"
    screenshot(browser, tmp_path / "speed_page.png")


def test_replay_viewer_steps_and_switches_viewpoint(browser, tmp_path):
    from selenium.webdriver.support.ui import Select

    replay = record_game("pepper_v0", "random", seed=2, config={"max_hands": 1})
    states = replay.states()
    page = write_html(replay, str(tmp_path / "replay.html"))
    browser.get("file://" + page)
    wait(browser, lambda d: by_css(d, "#table g.card"))
    assert by_css(browser, "#pos")[0].text.startswith("step 0 /")
    faces = Counter(e.get_attribute("data-card") for e in by_css(browser, "#table g.card[data-card]"))
    assert faces == Counter(c for hand in states[0]["hands"] for c in hand)  # the spectator sees every hand
    for _ in range(3):
        by_css(browser, "#next")[0].click()
    assert by_css(browser, "#pos")[0].text.startswith("step 3 /")
    caption = by_css(browser, "#caption")[0].text
    assert caption.startswith("player_") and replay.actions[2] in caption
    by_css(browser, "#prev")[0].click()
    assert by_css(browser, "#pos")[0].text.startswith("step 2 /")
    Select(by_css(browser, "#viewpoint")[0]).select_by_value("1")
    shown = Counter(e.get_attribute("data-card") for e in by_css(browser, "#table g.card[data-card]"))
    others = sum(len(h) for s, h in enumerate(states[2]["hands"]) if s != 1)
    assert len(by_css(browser, "#table g.card.back")) == others
    assert shown == Counter(states[2]["hands"][1]) + Counter(p["card"] for p in states[2]["trick"])
    by_css(browser, "#last")[0].click()
    assert by_css(browser, "#pos")[0].text.startswith(f"step {len(replay.actions)} /")
    screenshot(browser, tmp_path / "replay_viewer.png")
