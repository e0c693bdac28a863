"""The web board in a real browser: Debian's headless Chromium driven by Selenium.

Skipped, with the reason, where chromium, chromedriver or selenium is missing (CI installs
them: .ci/run). A server with the shipped levels runs in a thread on a free loopback port.
Screenshots go to ``$BGRL_SCREENSHOT_DIR`` (docs/img for the two shown in the docs) or a
temporary folder.
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
try:
    import selenium  # noqa: F401

    HAVE_SELENIUM = True
except ImportError:  # pragma: no cover - the test extra has it
    HAVE_SELENIUM = False

_REASON = ("no browser: " + ", ".join(n for n, ok in (("chromium", CHROMIUM), ("chromedriver", DRIVER), ("selenium", HAVE_SELENIUM)) if not ok)
           + " missing (apt-get install chromium chromium-driver; pip install selenium)")
pytestmark = [pytest.mark.browser, pytest.mark.timeout(240),
              pytest.mark.skipif(not (CHROMIUM and DRIVER and HAVE_SELENIUM), reason=_REASON)]

DESKTOP = (1280, 900)
PHONE = (375, 812)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    import uvicorn

    from bgrl.service.app import Settings, create_app

    port = _free_port()
    app = create_app(settings=Settings(pool_kind="thread", pool_workers=1, deadline_s=60))
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    th = threading.Thread(target=srv.run, daemon=True)
    th.start()
    url = f"http://127.0.0.1:{port}"
    t_end = time.monotonic() + 120
    while True:
        try:
            with urllib.request.urlopen(url + "/v1/health", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        if time.monotonic() > t_end or not th.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.2)
    yield url
    srv.should_exit = True
    th.join(timeout=10)


@pytest.fixture(scope="module")
def shots():
    d = os.environ.get("BGRL_SCREENSHOT_DIR")
    path = Path(d) if d else Path(tempfile.mkdtemp(prefix="bgrl-shots-"))
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="module")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="bgrl-chromium-")
    for a in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
              "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", f"--user-data-dir={profile}",
              f"--window-size={DESKTOP[0]},{DESKTOP[1]}"):
        opts.add_argument(a)
    drv = webdriver.Chrome(service=Service(executable_path=DRIVER), options=opts)
    drv.set_window_size(*DESKTOP)
    yield drv
    drv.quit()
    shutil.rmtree(profile, ignore_errors=True)


def _wait(drv, cond, timeout=60.0, what="condition"):
    t_end = time.monotonic() + timeout
    while time.monotonic() < t_end:
        v = cond()
        if v:
            return v
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _state(drv):
    return drv.execute_script("return window.bgrl && window.bgrl.state();")


def _settled(drv):
    """The page's state once the computer's play is no longer being stepped on the board."""
    from selenium.webdriver.common.by import By

    body = drv.find_element(By.TAG_NAME, "body")
    if body.get_attribute("data-animating"):
        return None
    return body.get_attribute("data-state")


def _open(drv, url, step_ms=0, fresh=False):
    """Load the page; ``step_ms``: the pause between the computer's checker steps (0: the
    steps are still drawn one by one, without waiting); ``fresh``: forget the game the page
    would continue (localStorage), as on a first visit."""
    from selenium.webdriver.common.by import By

    if fresh:  # a page of the same origin that runs no script of the board's: nothing writes the storage back
        drv.get(url + "/v1/health")
        drv.execute_script("localStorage.clear();")
    drv.get(url + "/")
    _wait(drv, lambda: len(drv.find_elements(By.CSS_SELECTOR, "#level option")) > 0, what="the levels")
    # the page continues the game this browser played last (localStorage): wait until it has
    _wait(drv, lambda: drv.find_element(By.TAG_NAME, "body").get_attribute("data-ready"), what="the page's start")
    if step_ms is not None:
        drv.execute_script(f"window.bgrlStepMs = {int(step_ms)};")


def _new_game(drv, url, level="beginner", colour="white", step_ms=0):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    _open(drv, url, step_ms)
    Select(drv.find_element(By.ID, "level")).select_by_value(level)
    Select(drv.find_element(By.ID, "colour")).select_by_value(colour)
    old = (_state(drv) or {}).get("id")  # the game continued on load, if any
    drv.find_element(By.ID, "new-game").click()
    _wait(drv, lambda: (_state(drv) or {}).get("id") != old and _settled(drv) in ("your-turn", "over"), what="the first turn")


def _click_point(drv, p):
    from selenium.webdriver.common.by import By

    drv.find_element(By.CSS_SELECTOR, f'#board [data-hit="{p}"]').click()


def _highlighted(drv) -> set[int]:
    from selenium.webdriver.common.by import By

    pts = {int(e.get_attribute("data-point")) for e in drv.find_elements(By.CSS_SELECTOR, "#board .tri.target")}
    if drv.find_elements(By.CSS_SELECTOR, "#board .tray-target"):
        pts.add(0)
    return pts


def _play_turn(drv, st):
    """Click the first legal play of the roll step by step, checking each landing point is
    highlighted before it is clicked, then confirm."""
    from selenium.webdriver.common.by import By

    steps = st["plays"][0]["orders"][0]
    for f, t, _hit in steps:
        _click_point(drv, f)
        assert t in _highlighted(drv), f"landing point {t} of {st['plays'][0]['play']} not highlighted"
        _click_point(drv, t)
    drv.find_element(By.ID, "confirm").click()


def test_whole_game_by_clicking_and_review(browser, server, shots):
    from selenium.webdriver.common.by import By

    drv = browser
    drv.set_window_size(*DESKTOP)
    _new_game(drv, server)
    turns = 0
    t_end = time.monotonic() + 150
    while True:
        assert time.monotonic() < t_end, "the game took too long"
        state = _wait(drv, lambda: _settled(drv) if _settled(drv) in ("your-turn", "over") else None, what="the player's turn")
        if state == "over":
            break
        st = _state(drv)
        n_before = st["turns"]
        _play_turn(drv, st)
        turns += 1
        _wait(drv, lambda: (_state(drv) or {}).get("turns", 0) > n_before, what="the computer's reply")
    st = _state(drv)
    assert st["over"] is not None and st["over"]["how"] == "bear-off"
    # The winner's pip count falls from 167 to 0 by at most 24 a roll, so it rolls at least
    # 7 times and the loser at least 6: 13 turns at least, the player's passes (a roll with
    # no legal play, played for them) included. The player clicked at least one of them.
    assert st["turns"] >= 13 and turns >= 1
    assert drv.find_element(By.ID, "message").text == st["over"]["text"]
    links = {e.get_attribute("id"): e.get_attribute("href") for e in drv.find_elements(By.CSS_SELECTOR, "#downloads a")}
    assert links["dl-mat"].endswith("format=mat") and links["dl-bgrl"].endswith("format=bgrl")
    # the review: one chart point per turn
    drv.find_element(By.ID, "review").click()
    _wait(drv, lambda: drv.find_elements(By.CSS_SELECTOR, "#chart circle.pt"), timeout=90, what="the review chart")
    pts = drv.find_elements(By.CSS_SELECTOR, "#chart circle.pt")
    assert len(pts) == st["turns"]
    assert [int(p.get_attribute("data-turn")) for p in pts] == list(range(1, st["turns"] + 1))
    rows = drv.find_elements(By.CSS_SELECTOR, "#review-summary tbody tr")
    assert {r.find_elements(By.TAG_NAME, "td")[0].text for r in rows} == {"you", "computer"}
    drv.execute_script("arguments[0].scrollIntoView()", drv.find_element(By.ID, "review-panel"))
    drv.find_element(By.ID, "review-panel").screenshot(str(shots / "review-chart.png"))
    drv.save_screenshot(str(shots / "review-desktop.png"))
    drv.set_window_size(*PHONE)
    drv.save_screenshot(str(shots / "review-375.png"))
    drv.set_window_size(*DESKTOP)


def test_illegal_landing_point_cannot_be_chosen(browser, server):
    from selenium.webdriver.common.by import By

    drv = browser
    _new_game(drv, server)
    st = _state(drv)
    src = st["plays"][0]["orders"][0][0][0]
    legal = set(drv.execute_script(f"return window.bgrl.targetsFrom({src});"))
    assert legal
    _click_point(drv, src)
    assert _highlighted(drv) == legal
    illegal = next(p for p in range(1, 25) if p not in legal and p != src and st["board"]["points"][p] <= 0)
    _click_point(drv, illegal)
    assert drv.execute_script("return window.bgrl.made();") == []
    assert "not a legal landing point" in drv.find_element(By.ID, "message").text
    assert drv.find_element(By.ID, "confirm").get_attribute("disabled") is not None


def test_hint_arrows_for_the_top_play(browser, server, shots):
    from selenium.webdriver.common.by import By

    drv = browser
    _new_game(drv, server)
    drv.find_element(By.ID, "hint").click()
    _wait(drv, lambda: drv.find_elements(By.CSS_SELECTOR, "#hint-table tbody tr"), timeout=60, what="the hint table")
    hint = drv.execute_script("return window.bgrl.lastHint();")
    assert hint["level"] == "world-class"
    assert "world-class" in drv.find_element(By.CSS_SELECTOR, "#hints h3").text
    top = hint["plays"][0]
    arrows = sorted((int(a.get_attribute("data-from")), int(a.get_attribute("data-to")))
                    for a in drv.find_elements(By.CSS_SELECTOR, "#arrows line.arrow"))
    assert arrows == sorted((f, t) for f, t, _ in top["steps"])
    rows = drv.find_elements(By.CSS_SELECTOR, "#hint-table tbody tr")
    assert rows[0].find_elements(By.TAG_NAME, "td")[1].text == top["play"]
    why = [li.text for li in drv.find_elements(By.CSS_SELECTOR, "#why li")]
    assert why == top["why"] and why[0].startswith(top["play"] + " leaves")
    drv.set_window_size(DESKTOP[0], 1250)  # the board and the hint table in one picture
    drv.find_element(By.TAG_NAME, "main").screenshot(str(shots / "hint-arrows.png"))
    drv.set_window_size(*DESKTOP)
    drv.save_screenshot(str(shots / "hint-desktop.png"))
    drv.set_window_size(*PHONE)
    drv.save_screenshot(str(shots / "hint-375.png"))
    drv.set_window_size(*DESKTOP)
    if len(rows) > 1:  # another row: its arrows
        rows[1].click()
        second = sorted((f, t) for f, t, _ in hint["plays"][1]["steps"])
        got = sorted((int(a.get_attribute("data-from")), int(a.get_attribute("data-to")))
                     for a in drv.find_elements(By.CSS_SELECTOR, "#arrows line.arrow"))
        assert got == second


def test_black_lets_the_computer_open_and_resign_needs_confirmation(browser, server):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    drv = browser
    _new_game(drv, server, colour="black")
    st = _state(drv)
    assert st["colour"] == "black" and st["events"][0]["who"] == "computer"
    assert "(in your numbering)" in drv.find_element(By.ID, "log").text
    Select(drv.find_element(By.ID, "resign-value")).select_by_value("backgammon")
    drv.find_element(By.ID, "resign").click()
    assert drv.find_element(By.ID, "ask").is_displayed()
    drv.find_element(By.ID, "ask-no").click()
    assert _state(drv)["over"] is None
    drv.find_element(By.ID, "resign").click()
    drv.find_element(By.ID, "ask-yes").click()
    _wait(drv, lambda: _state(drv)["over"] is not None, what="the resignation")
    assert "accepts your resignation of a backgammon" in drv.find_element(By.ID, "message").text


# ------------------------------------------------------------------ issue 17: position entry, upload review, steps, drag
SET_UP_XGID = "XGID=-a----E-C---dE-a-cAeA-a---:0:0:1:42:0:0:0:0:10"  # after 3-1, 6-4, 5-5 (last plays); 4-2 to play
DATA = Path(__file__).parents[1] / "data"


def test_position_entry_analyse_play_and_copy(browser, server, shots):
    from selenium.webdriver.common.by import By

    from bgrl.rules.notation import legal_plays
    from bgrl.rules.xgid import read_position

    drv = browser
    drv.set_window_size(*DESKTOP)
    _open(drv, server)
    pos, dice = read_position(SET_UP_XGID)
    box = drv.find_element(By.ID, "pos-input")
    box.clear()
    box.send_keys(SET_UP_XGID)
    drv.find_element(By.ID, "pos-analyse").click()
    _wait(drv, lambda: drv.find_elements(By.CSS_SELECTOR, "#hint-table tbody tr"), timeout=60, what="the analysis")
    st = _state(drv)
    assert st["set_up"] and st["position_id"] == pos.position_id and tuple(st["dice"]) == dice
    assert {p["position_id"] for p in st["plays"]} == {p.position_id for p in legal_plays(pos, dice)}
    # the board shows the pasted position: the player's checkers per point
    hint = drv.execute_script("return window.bgrl.lastHint();")
    arrows = sorted((int(a.get_attribute("data-from")), int(a.get_attribute("data-to")))
                    for a in drv.find_elements(By.CSS_SELECTOR, "#arrows line.arrow"))
    assert arrows == sorted((f, t) for f, t, _ in hint["plays"][0]["steps"])
    # both forms shown and copyable; the XGID reads back the same position and dice
    assert drv.find_element(By.ID, "pid").get_attribute("value") == pos.position_id
    xg = drv.find_element(By.ID, "xgid").get_attribute("value")
    back, back_dice = read_position(xg)
    assert back.position_id == pos.position_id and back_dice == dice
    drv.find_element(By.ID, "copy-xgid").click()
    _wait(drv, lambda: "XGID copied" in drv.find_element(By.ID, "message").text, what="the copy")
    drv.find_element(By.ID, "setup-position").screenshot(str(shots / "position-entry.png"))
    drv.save_screenshot(str(shots / "position-desktop.png"))
    drv.set_window_size(*PHONE)
    drv.save_screenshot(str(shots / "position-375.png"))
    width = drv.execute_script("return document.documentElement.scrollWidth;")
    assert width <= PHONE[0] + 1, f"the page is {width} px wide at a {PHONE[0]} px window"
    drv.set_window_size(*DESKTOP)
    # a Position ID with dice typed apart, played from
    box = drv.find_element(By.ID, "pos-input")
    box.clear()
    box.send_keys(pos.position_id)
    dbox = drv.find_element(By.ID, "pos-dice")
    dbox.clear()
    dbox.send_keys("61")
    drv.find_element(By.ID, "pos-play").click()
    _wait(drv, lambda: (_state(drv) or {}).get("dice") == [6, 1] and _settled(drv) == "your-turn", what="the set-up game")
    assert _state(drv)["position_id"] == pos.position_id
    # a bad paste: one clear message, no game change
    box.clear()
    box.send_keys("not a position")
    dbox.clear()
    drv.find_element(By.ID, "pos-play").click()
    _wait(drv, lambda: "expected a Position ID or an XGID" in drv.find_element(By.ID, "message").text, what="the error")


def test_review_of_an_uploaded_mat_file(browser, server, shots):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from bgrl.records.matfile import read_mat

    drv = browser
    drv.set_window_size(*DESKTOP)
    _open(drv, server)
    path = DATA / "gnubg_money_nocube.mat"
    games = read_mat(path)
    drv.find_element(By.ID, "upload-file").send_keys(str(path))
    _wait(drv, lambda: drv.find_elements(By.CSS_SELECTOR, "#chart circle.pt"), timeout=120, what="the upload review")
    up = drv.execute_script("return window.bgrl.lastUpload();")
    assert up["judge"] == "world-class" and len(up["games"]) == len(games)
    assert len(drv.find_elements(By.CSS_SELECTOR, "#chart circle.pt")) == len(games[0].record.turns)
    summary = drv.find_elements(By.CSS_SELECTOR, "#upload-summary tbody tr")
    assert {r.find_elements(By.TAG_NAME, "td")[0].text for r in summary} == set(up["summary"])
    # the .mat file's cube decisions: the close or wrong ones listed, each player's cube error rate
    listed = [c for c in up["games"][0]["cube"] if c["close"] or c["error"]]
    assert listed and len(drv.find_elements(By.CSS_SELECTOR, "#cube-review tbody tr")) == len(listed)
    assert len(drv.find_elements(By.CSS_SELECTOR, "#cube-review tbody tr.cube-error")) == sum(1 for c in listed if c["error"])
    assert len(drv.find_elements(By.CSS_SELECTOR, "#cube-summary tbody tr")) == 2
    drv.execute_script("document.getElementById('cube-review').scrollIntoView({block: 'start'});")
    drv.save_screenshot(str(shots / "upload-cube.png"))
    # a marked play (in the first game after the first that has one, else the first): the
    # position with both plays as arrows, and why the best is better
    has = [gi for gi, g in enumerate(up["games"]) if any(t["mark"] and t["why"] for t in g["turns"])]
    assert has, "no game of the file has a marked play with reasons"
    gi = next((i for i in has if i > 0), has[0])
    Select(drv.find_element(By.ID, "upload-game")).select_by_value(str(gi))
    _wait(drv, lambda: len(drv.find_elements(By.CSS_SELECTOR, "#chart circle.pt")) == len(games[gi].record.turns),
          what=f"game {gi + 1}")
    g = up["games"][gi]
    marked = next(t for t in g["turns"] if t["mark"] and t["why"])
    drv.execute_script("arguments[0].scrollIntoView({block: 'center'});",
                       drv.find_element(By.CSS_SELECTOR, f'#chart circle[data-turn="{marked["turn"]}"]'))
    drv.execute_script(f"document.querySelector('#chart circle[data-turn=\"{marked['turn']}\"]').dispatchEvent(new MouseEvent('click', {{bubbles: true}}));")
    why = [li.text for li in drv.find_elements(By.CSS_SELECTOR, "#turn-why li")]
    assert why == marked["why"]
    classes = {a.get_attribute("class") for a in drv.find_elements(By.CSS_SELECTOR, "#arrows line.arrow")}
    assert "arrow played" in classes and "arrow hint" in classes
    drv.find_element(By.ID, "review-panel").screenshot(str(shots / "upload-review.png"))
    drv.save_screenshot(str(shots / "upload-desktop.png"))
    drv.set_window_size(*PHONE)
    drv.save_screenshot(str(shots / "upload-375.png"))
    drv.set_window_size(*DESKTOP)


def test_computer_play_is_stepped_and_a_checker_can_be_dragged(browser, server):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    drv = browser
    drv.set_window_size(*DESKTOP)
    _open(drv, server, step_ms=300)
    from selenium.webdriver.support.ui import Select

    Select(drv.find_element(By.ID, "colour")).select_by_value("black")
    drv.find_element(By.ID, "new-game").click()
    _wait(drv, lambda: drv.find_element(By.TAG_NAME, "body").get_attribute("data-animating"), what="the steps to start")
    _wait(drv, lambda: _settled(drv) == "your-turn", what="the steps to end")
    st = _state(drv)
    anim = drv.execute_script("return window.bgrl.lastAnimation();")
    ev = st["last_computer"]
    assert anim["steps"] == ev["steps"] and len(anim["frames"]) == len(ev["steps"]) + 1
    assert anim["frames"][0] == ev["before"]
    # each frame moves one of the computer's checkers (negative in the player's view) by one step
    for k, (f, t, _h) in enumerate(ev["steps"]):
        a, b = anim["frames"][k], anim["frames"][k + 1]
        assert (f == 25 and b[0] == a[0] + 1) or (f != 25 and b[f] == a[f] + 1)
        assert t == 0 or b[t] < 0
    last = anim["frames"][-1]
    assert [x if x < 0 else 0 for x in last[1:25]] == [x if x < 0 else 0 for x in st["board"]["points"][1:25]]
    # drag the first step of a legal play from its point to its landing point
    src, dst, _ = st["plays"][0]["orders"][0][0]
    # the board is redrawn once the drag starts: move by offsets from the (kept) svg element
    centre = "const r = document.querySelector(arguments[0]).getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2];"
    sx, sy = drv.execute_script(centre, f'#board [data-hit="{src}"]')
    tx, ty = drv.execute_script(centre, f'#board [data-hit="{dst}"]')
    bx, by = drv.execute_script(centre, "#board")
    svg = drv.find_element(By.ID, "board")
    (ActionChains(drv).move_to_element_with_offset(svg, int(sx - bx), int(sy - by)).click_and_hold()
     .move_by_offset(0, 12).move_to_element_with_offset(svg, int(tx - bx), int(ty - by)).release().perform())
    assert drv.execute_script("return window.bgrl.made();") == [[src, dst]]


def test_board_editor_sets_up_a_position(browser, server, shots):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    drv = browser
    drv.set_window_size(*DESKTOP)
    _open(drv, server, fresh=True)  # before any game the editor starts from the start position
    drv.find_element(By.ID, "edit-board").click()
    start = [0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0]
    assert drv.execute_script("return window.bgrl.editing();") == start
    tool = Select(drv.find_element(By.ID, "edit-tool"))
    tool.select_by_value("remove")
    _click_point(drv, 24)
    _click_point(drv, 24)
    _click_point(drv, 12)  # one of the computer's checkers
    tool.select_by_value("you")
    _click_point(drv, 5)
    _click_point(drv, 12)  # refused: the computer's checkers are there
    assert "holds the computer's checkers" in drv.find_element(By.ID, "message").text
    tool.select_by_value("computer")
    _click_point(drv, 25)  # the computer's bar
    want = start.copy()
    want[24], want[12], want[5], want[0] = 0, -4, 1, -1
    assert drv.execute_script("return window.bgrl.editing();") == want
    assert drv.find_element(By.ID, "pip-you").text == str(sum(p * want[p] for p in range(1, 25) if want[p] > 0))
    drv.find_element(By.ID, "setup-position").screenshot(str(shots / "board-editor-bar.png"))
    drv.save_screenshot(str(shots / "board-editor.png"))
    dbox = drv.find_element(By.ID, "pos-dice")
    dbox.clear()
    dbox.send_keys("31")
    drv.find_element(By.ID, "pos-play").click()
    _wait(drv, lambda: _settled(drv) == "your-turn", what="the game from the edited board")
    st = _state(drv)
    assert st["set_up"] and st["board"]["points"] == want and st["dice"] == [3, 1]
    assert st["board"]["off"] == {"you": 1, "computer": 0} and drv.execute_script("return window.bgrl.editing();") is None


def test_cube_session_double_button_and_cube_on_the_board(browser, server):
    """A money session with the cube: the cube is drawn centred, Double is offered before the
    roll, and after the computer's answer the cube shows its new value and owner."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    drv = browser
    _open(drv, server)
    old = (_state(drv) or {}).get("id")
    Select(drv.find_element(By.ID, "level")).select_by_value("beginner")
    Select(drv.find_element(By.ID, "cube-mode")).select_by_value("money")
    drv.find_element(By.ID, "new-game").click()
    st = _wait(drv, lambda: (s := _state(drv)) and s["id"] != old and s.get("cube") and s["cube"]["awaiting"] == "cube" and s,
               what="the cube prompt")
    cube = drv.find_element(By.CSS_SELECTOR, "#board #cube")
    assert cube.get_attribute("data-owner") == "centre" and cube.get_attribute("data-value") == "1"
    assert drv.find_element(By.ID, "cube-double").is_enabled() and not drv.find_element(By.ID, "cube-take").is_enabled()
    drv.find_element(By.ID, "cube-double").click()
    st = _wait(drv, lambda: (s := _state(drv)) and (s["over"] or s["cube"]["value"] == 2) and s, what="the computer's answer")
    if st["over"]:
        assert st["over"]["how"] == "pass" and drv.find_element(By.ID, "next-game").is_enabled()
    else:
        cube = drv.find_element(By.CSS_SELECTOR, "#board #cube")
        assert cube.get_attribute("data-owner") == "computer" and cube.get_attribute("data-value") == "2"
        assert "Cube 2, owned by the computer" in drv.find_element(By.ID, "cube-text").text
        assert st["dice"] is not None and not drv.find_element(By.ID, "cube-double").is_enabled()
