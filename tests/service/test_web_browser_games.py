"""The web board's games kept in the store, in headless Chromium (issue 41): a 3-point cube
match with a cube hint at Double/Roll and at Take/Pass, "My games" (resume, review with the
judged cube actions and the match points, downloads, delete), the statistics view, and a page
reload after a restart of the server that continues the game.

The server is a real ``bgrl serve --store sqlite:///...`` process (thread pool, one engine
worker) on a free loopback port; the restart kills its whole process group with SIGKILL and
starts it again on the same port and store, so the page keeps its origin (localStorage) and
its player cookie. Skipped, with the reason, where chromium, chromedriver or selenium is
missing (as tests/service/test_web_browser.py). Screenshots go to ``$BGRL_SCREENSHOT_DIR`` or a
folder under pytest's tmp dir.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.service.test_web_browser import (CHROMIUM, DESKTOP, DRIVER, HAVE_SELENIUM, PHONE, _REASON, _open, _play_turn, _settled, _state,
                              _wait)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300),
              pytest.mark.skipif(not (CHROMIUM and DRIVER and HAVE_SELENIUM), reason=_REASON)]

# a race, the player (on roll, 90 pips: three checkers on each of 8..4) far behind the
# computer (45 pips: three on each of its 5..1): the player should not double, and after the
# player's roll the computer (expert: 0-ply, no noise) doubles and the player should pass,
# whatever the roll (checked for every roll with the first legal play, as this test plays it)
RACE = [0] * 26
for _p in (4, 5, 6, 7, 8):
    RACE[_p] = 3
for _p in (20, 21, 22, 23, 24):
    RACE[_p] = -3
MINUS = "\u2212"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """A ``bgrl serve`` process on a fixed port and store, started again at will."""

    def __init__(self, store: Path):
        self.port = _free_port()
        self.store = f"sqlite:///{store}"
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bgrl.cli", "serve", "--port", str(self.port), "--store", self.store, "--pool", "thread",
             "--pool-workers", "1", "--deadline", "60"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
        t_end = time.monotonic() + 120
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"bgrl serve exited with {self.proc.returncode}: {self.proc.stderr.read()[-2000:]}")
            try:
                with urllib.request.urlopen(self.url + "/v1/health", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            if time.monotonic() > t_end:
                self.kill()
                raise RuntimeError("bgrl serve did not become healthy within 120 s")
            time.sleep(0.2)

    def kill(self) -> None:
        """SIGKILL to the server's whole process group (the process this test started)."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)
        self.proc = None


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    srv = Served(tmp_path_factory.mktemp("store") / "games.db")
    srv.start()
    yield srv
    srv.kill()


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    d = os.environ.get("BGRL_SCREENSHOT_DIR")
    path = Path(d) if d else tmp_path_factory.mktemp("shots")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    profile = tmp_path_factory.mktemp("chromium")
    for a in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
              "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", f"--user-data-dir={profile}",
              f"--window-size={DESKTOP[0]},{DESKTOP[1]}"):
        opts.add_argument(a)
    drv = webdriver.Chrome(service=Service(executable_path=DRIVER), options=opts)
    drv.set_window_size(*DESKTOP)
    yield drv
    drv.quit()


def _by_id(drv, name):
    from selenium.webdriver.common.by import By

    return drv.find_element(By.ID, name)


def _css(drv, sel):
    from selenium.webdriver.common.by import By

    return drv.find_elements(By.CSS_SELECTOR, sel)


def _enabled(drv, name) -> bool:
    e = _by_id(drv, name)
    return e.is_displayed() and e.is_enabled()


def _hint(drv, role):
    """Click Hint at a cube decision: the cube advice of ``role`` (double or answer)."""
    drv.execute_script("window.__hintBefore = window.bgrl.lastHint();")
    _by_id(drv, "hint").click()
    h = _wait(drv, lambda: drv.execute_script("const h = window.bgrl.lastHint(); return h !== window.__hintBefore && h;"),
              timeout=90, what="the cube hint")
    assert h["plays"] == [] and h["cube"]["role"] == role and h["level"] == "world-class"
    c = h["cube"]
    assert _by_id(drv, "cube-advice").text == c["text"]
    rows = _css(drv, "#cube-hint-table tbody tr")
    # in a match: the action, the player's equity and the player's match winning chance
    assert all(len(r.find_elements("tag name", "td")) == 3 for r in rows)
    return c, rows


def _show_review_game(drv, index):
    from selenium.webdriver.support.ui import Select

    Select(_by_id(drv, "review-game")).select_by_value(str(index))
    _wait(drv, lambda: _by_id(drv, "review-game").get_attribute("value") == str(index), what="the game picker")


def _check_match_review(drv, rv):
    """The review of the match: the match points, each game's winner and points, and game 1's
    judged cube actions (the computer's double, the player's pass)."""
    assert rv["match"]["match_length"] == 3 and rv["match"]["score"] == {"you": 0, "computer": 3}
    assert _by_id(drv, "match-score").text == "3-point match: you 0, the computer 3 (match points)"
    games = [[td.text for td in r.find_elements("tag name", "td")] for r in _css(drv, "#match-review tbody tr")]
    assert games == [["1", "the computer", "double passed", "single", "1", "1"],
                     ["2", "the computer", "resignation", "backgammon", "1", "3"]]
    _show_review_game(drv, 0)
    cube = rv["games"][0]["cube"]
    assert [(c["player"], c["action"]) for c in cube] == [("computer", "double"), ("you", "pass")]
    rows = _css(drv, "#cube-review tbody tr")
    assert [(r.get_attribute("data-player"), r.get_attribute("data-action")) for r in rows] == [("computer", "double"), ("you", "pass")]
    cells = [[td.text for td in r.find_elements("tag name", "td")] for r in rows]
    assert cells[0][2] == "doubles to 2" and cells[1][2] == "passes"
    assert [c[3] for c in cells] == [c["right"] for c in cube]  # the right action, judged
    summary = {r.find_elements("tag name", "td")[0].text for r in _css(drv, "#cube-summary tbody tr")}
    assert summary == {"you", "computer"}


def test_cube_match_with_cube_hints_my_games_review_and_stats(browser, served, shots):
    from selenium.webdriver.support.ui import Select

    from bgrl.service.engine import parse_position

    drv = browser
    url = served.url
    drv.set_window_size(*DESKTOP)
    _open(drv, url, fresh=True)
    assert drv.execute_script("return window.bgrl.state();") is None
    pos, _ = parse_position(board=RACE)
    Select(_by_id(drv, "level")).select_by_value("expert")
    Select(_by_id(drv, "cube-mode")).select_by_value("match")
    box = _by_id(drv, "match-length")
    box.clear()
    box.send_keys("3")
    box = _by_id(drv, "pos-input")
    box.clear()
    box.send_keys(pos.position_id)
    _by_id(drv, "pos-play").click()
    st = _wait(drv, lambda: (s := _state(drv)) and s.get("cube") and s["cube"]["awaiting"] == "cube" and _settled(drv) and s,
               what="the player's cube decision")
    assert st["set_up"] and st["cube"]["match_length"] == 3 and st["may_draw"] is False
    # what applies at Double/Roll: Double, Roll and Hint; no Take/Pass; no draw in a match
    assert _enabled(drv, "cube-double") and _enabled(drv, "cube-roll") and _enabled(drv, "hint")
    assert not _enabled(drv, "cube-take") and not _enabled(drv, "cube-pass")
    assert not _by_id(drv, "draw").is_displayed() and not _by_id(drv, "cube-beaver").is_displayed()
    assert _by_id(drv, "score").text == "Score: you 0, the computer 0 (3-point match, game 1)."

    # the cube hint at Double/Roll: no double (far behind), with the equities and MWC behind it
    c, rows = _hint(drv, "double")
    assert c["advice"] == "no double" and c["decision"] == "no double" and set(c["mwc"]) == {"no_double", "double_take", "double_pass"}
    assert [r.get_attribute("data-key") for r in rows] == ["no_double", "double_take", "double_pass"]
    assert [r.get_attribute("data-key") for r in _css(drv, "#cube-hint-table tr.advised")] == ["no_double"]
    first = rows[0].find_elements("tag name", "td")
    assert first[2].text == f"{100 * c['mwc']['no_double']:.1f}%"
    assert float(first[1].text.replace(MINUS, "-")) == pytest.approx(c["equities"]["no_double"], abs=1e-3)
    drv.execute_script("document.getElementById('hints').scrollIntoView({block: 'end'});")
    drv.save_screenshot(str(shots / "cube-hint-double.png"))

    # roll, play, and the computer doubles: Take/Pass, and the cube hint there
    _by_id(drv, "cube-roll").click()
    st = _wait(drv, lambda: (s := _state(drv)) and s["dice"] and _settled(drv) == "your-turn" and s, what="the roll")
    assert not _enabled(drv, "cube-double") and _enabled(drv, "hint")
    _play_turn(drv, st)
    st = _wait(drv, lambda: (s := _state(drv)) and s["cube"]["may_answer"] and _settled(drv) and s, timeout=90,
               what="the computer's double")
    assert st["cube"]["offered_by"] == "computer" and "The computer doubles to 2" in _by_id(drv, "message").text
    assert _enabled(drv, "cube-take") and _enabled(drv, "cube-pass") and not _enabled(drv, "cube-roll")
    c, rows = _hint(drv, "answer")
    assert c["advice"] == "pass" and c["decision"] == "double, pass"
    assert [r.get_attribute("data-key") for r in rows] == ["take", "pass"]
    assert [r.get_attribute("data-key") for r in _css(drv, "#cube-hint-table tr.advised")] == ["pass"]
    take = rows[0].find_elements("tag name", "td")
    assert take[2].text == f"{100 * (1 - c['mwc']['double_take']):.1f}%"  # the player's MWC: the doubler's complement
    assert "The computer's side (the doubler)" in _by_id(drv, "cube-doubler").text
    drv.execute_script("document.getElementById('hints').scrollIntoView({block: 'end'});")
    drv.save_screenshot(str(shots / "cube-hint-take-pass.png"))
    drv.set_window_size(*PHONE)
    drv.save_screenshot(str(shots / "cube-hint-take-pass-375.png"))
    width = drv.execute_script("return document.documentElement.scrollWidth;")
    assert width <= PHONE[0] + 1, f"the page is {width} px wide at a {PHONE[0]} px window"
    drv.set_window_size(*DESKTOP)

    # pass: the game ends; Take/Pass and Hint no longer apply; the score in match points
    _by_id(drv, "cube-pass").click()
    st = _wait(drv, lambda: (s := _state(drv)) and s["over"] and s, what="the pass")
    assert st["over"]["how"] == "pass" and st["cube"]["score"] == {"you": 0, "computer": 1}
    assert not _enabled(drv, "cube-take") and not _enabled(drv, "cube-pass") and not _enabled(drv, "hint")
    assert _enabled(drv, "next-game")
    assert _by_id(drv, "score").text == "Score: you 0, the computer 1 (3-point match, game 1)."
    # game 2: resign a backgammon (3 points x cube 1), the match is over at 0-3
    _by_id(drv, "next-game").click()
    _wait(drv, lambda: (s := _state(drv)) and s["cube"]["game"] == 2 and _settled(drv) in ("waiting", "your-turn"), what="game 2")
    Select(_by_id(drv, "resign-value")).select_by_value("backgammon")
    _by_id(drv, "resign").click()
    assert _by_id(drv, "ask-text").text == "Resign a backgammon: 3 points?"
    _by_id(drv, "ask-yes").click()
    st = _wait(drv, lambda: (s := _state(drv)) and s["over"] and s, what="the resignation")
    assert st["cube"]["match_over"] and st["cube"]["score"] == {"you": 0, "computer": 3}
    assert _by_id(drv, "score").text == ("Score: you 0, the computer 3 (3-point match, game 2). "
                                         "The match is over: the computer wins.")
    assert not _enabled(drv, "next-game") and not _enabled(drv, "resign") and not _enabled(drv, "cube-take")
    drv.save_screenshot(str(shots / "match-over.png"))

    # the review: each game's turns, the judged cube actions, the match points
    _by_id(drv, "review").click()
    _wait(drv, lambda: _css(drv, "#match-review tbody tr"), timeout=120, what="the review")
    _check_match_review(drv, drv.execute_script("return window.bgrl.lastReview();"))
    drv.execute_script("document.getElementById('cube-review').scrollIntoView({block: 'start'});")
    drv.save_screenshot(str(shots / "match-review.png"))
    match_id = st["id"]

    # a second, cubeless game against another level: the computer opens, the player plays a
    # turn and resigns a single game
    Select(_by_id(drv, "level")).select_by_value("beginner")
    Select(_by_id(drv, "cube-mode")).select_by_value("")
    Select(_by_id(drv, "colour")).select_by_value("black")
    _by_id(drv, "new-game").click()
    st = _wait(drv, lambda: (s := _state(drv)) and s["id"] != match_id and _settled(drv) == "your-turn" and s, what="the second game")
    assert not _by_id(drv, "cube-buttons").is_displayed() and not _by_id(drv, "score").is_displayed()  # no cube: no cube buttons
    assert _enabled(drv, "draw")  # money play: a draw may be offered
    _play_turn(drv, st)
    _wait(drv, lambda: (s := _state(drv)) and s["turns"] > st["turns"] and _settled(drv) in ("your-turn", "over"), what="the reply")
    Select(_by_id(drv, "resign-value")).select_by_value("single")
    _by_id(drv, "resign").click()
    _by_id(drv, "ask-yes").click()
    st2 = _wait(drv, lambda: (s := _state(drv)) and s["over"] and s, what="the resignation")

    # My games: both, newest first, each with resume, review, downloads and delete
    _by_id(drv, "show-games").click()
    _wait(drv, lambda: len(_css(drv, "#games-table tbody tr")) == 2, what="My games")
    rows = _css(drv, "#games-table tbody tr")
    assert [r.get_attribute("data-id") for r in rows] == [st2["id"], match_id]
    cells = [td.text for td in rows[1].find_elements("tag name", "td")]
    listed = drv.execute_async_script("const done = arguments[0]; fetch('/v1/games').then((r) => r.json()).then(done);")["games"]
    assert [g["id"] for g in listed] == [st2["id"], match_id]
    assert cells[1:7] == ["expert", "3-point match", str(listed[1]["turns"]), "finished", f"{MINUS}3", "0\u20133"]
    for sel in ("button.resume", "button.review", "a.dl-mat", "a.dl-bgrl", "button.delete"):
        assert rows[1].find_elements("css selector", sel), sel
    assert "current" in rows[0].get_attribute("class")
    drv.find_element("id", "games-panel").screenshot(str(shots / "my-games.png"))
    # the bgrl record downloads; the .mat of a game from a set-up position is refused in one line on the page
    rec = drv.execute_async_script("const done = arguments[1]; fetch(arguments[0]).then(async (r) => done([r.status, await r.text()]));",
                                   rows[1].find_element("css selector", "a.dl-bgrl").get_attribute("href"))
    assert rec[0] == 200 and '"bgrl-game-1"' in rec[1].splitlines()[0]
    rows[1].find_element("css selector", "a.dl-mat").click()
    _wait(drv, lambda: _by_id(drv, "message").text.startswith("Download: a game from a set-up position cannot be written as .mat"),
          what="the .mat refusal")
    # its review from the list: the cube actions judged and the match points
    drv.execute_script("document.getElementById('review-panel').hidden = true; window.__rv = window.bgrl.lastReview();")
    rows[1].find_element("css selector", "button.review").click()
    _wait(drv, lambda: drv.execute_script("return window.bgrl.lastReview() !== window.__rv && !document.getElementById('review-panel').hidden;"),
          timeout=120, what="the review from My games")
    assert _state(drv)["id"] == match_id
    _check_match_review(drv, drv.execute_script("return window.bgrl.lastReview();"))

    # statistics: one point per finished game and figure, results per level
    _by_id(drv, "show-stats").click()
    stats = _wait(drv, lambda: drv.execute_script("return window.bgrl.lastStats();"), timeout=120, what="the statistics")
    assert [g["id"] for g in stats["games"]] == [match_id, st2["id"]]  # oldest first
    assert stats["games"][0]["error_rate"] is not None and stats["games"][0]["cube_error_rate"] is not None
    # a point per game with the figure (a game without a decision of the player has none), a line through them
    errors = sum(g["error_rate"] is not None for g in stats["games"])
    assert len(_css(drv, "#stats-chart circle.spt.error")) == errors
    assert len(_css(drv, "#stats-chart circle.spt.cube")) == sum(g["cube_error_rate"] is not None for g in stats["games"])
    assert len(_css(drv, "#stats-chart polyline.sline.error")) == (errors > 1)
    assert "2 finished games" in _by_id(drv, "stats-note").text
    levels = {r.get_attribute("data-level"): [td.text for td in r.find_elements("tag name", "td")] for r in _css(drv, "#stats-levels tbody tr")}
    assert levels == {"expert": ["expert", "1", "0", "1", f"{MINUS}3"], "beginner": ["beginner", "1", "0", "1", f"{MINUS}1"]}
    drv.set_window_size(DESKTOP[0], 1400)  # the whole panel in one picture
    drv.execute_script("document.getElementById('stats-panel').scrollIntoView({block: 'start'});")
    drv.find_element("id", "stats-panel").screenshot(str(shots / "statistics.png"))
    drv.set_window_size(*DESKTOP)
    drv.save_screenshot(str(shots / "statistics-desktop.png"))
    drv.set_window_size(*PHONE)
    drv.save_screenshot(str(shots / "statistics-375.png"))
    width = drv.execute_script("return document.documentElement.scrollWidth;")
    assert width <= PHONE[0] + 1, f"the page is {width} px wide at a {PHONE[0]} px window"
    drv.set_window_size(*DESKTOP)

    # delete the cubeless game: two clicks; the list keeps the match
    rows = _css(drv, "#games-table tbody tr")
    dele = rows[0].find_element("css selector", "button.delete")
    dele.click()
    assert dele.text == "Delete: sure?"
    dele.click()
    ids = "return [...document.querySelectorAll('#games-table tbody tr')].map((r) => r.dataset.id);"  # the list is redrawn meanwhile
    _wait(drv, lambda: drv.execute_script(ids) == [match_id], what="the deletion")


def test_reload_after_a_server_restart_continues_the_game(browser, served, shots):
    from selenium.webdriver.support.ui import Select

    drv = browser
    drv.set_window_size(*DESKTOP)
    _open(drv, served.url, fresh=True)
    Select(_by_id(drv, "level")).select_by_value("beginner")
    Select(_by_id(drv, "cube-mode")).select_by_value("")
    Select(_by_id(drv, "colour")).select_by_value("white")
    _by_id(drv, "new-game").click()
    st = _wait(drv, lambda: (s := _state(drv)) and _settled(drv) == "your-turn" and s, what="the first turn")
    _play_turn(drv, st)
    st = _wait(drv, lambda: (s := _state(drv)) and s["turns"] >= 2 and _settled(drv) in ("your-turn", "over") and s,
               what="the computer's reply")
    assert st["over"] is None
    assert drv.execute_script("return localStorage.getItem('bgrl.game');") == st["id"]

    served.kill()
    served.start()
    drv.refresh()
    _wait(drv, lambda: drv.find_element("tag name", "body").get_attribute("data-ready"), what="the page's start")
    back = _wait(drv, lambda: (s := _state(drv)) and _settled(drv) == "your-turn" and s, what="the game continued")
    for key in ("id", "board", "dice", "turns", "position_id", "colour", "level"):
        assert back[key] == st[key], key
    assert [p["position_id"] for p in back["plays"]] == [p["position_id"] for p in st["plays"]]
    assert f"Game {st['id']} continued." in _by_id(drv, "log").text
    assert not _by_id(drv, "cube-buttons").is_displayed()
    drv.save_screenshot(str(shots / "continued-after-restart.png"))
    # and it goes on: the next turn is played and answered
    _play_turn(drv, back)
    _wait(drv, lambda: (s := _state(drv)) and s["turns"] > back["turns"] and _settled(drv) in ("your-turn", "over"),
          what="the game going on")
