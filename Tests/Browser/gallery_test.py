#!/usr/bin/env python3
"""The web gallery (`GET /` of `waterfall serve`) in a real browser: headless Chromium driven by
chromedriver through Selenium.

Usage:
    gallery_test.py BASE_URL WATERFALL DATABASE [--feed F] [--big-feed F] [--screenshots DIR] [--only NAME]
    gallery_test.py --make-feed OUT.ndjson N

BASE_URL is a running `waterfall serve --db DATABASE`; WATERFALL is the binary, used for the
command-line side of the checks. --feed names a feed of a few thousand images whose first
section holds at least four images (default coco-val2017, from SampleData); --big-feed one of
1,000,000 images (default million; `--make-feed` writes one as NDJSON, sections of 5,000).
--only NAME runs the one check `check_NAME` (and the console's), while working on it.

Checks, each printed as `ok: …` (any failure prints `FAIL: …` and exits 1):
  a. every image box and section header on screen is where the viewport API says, within
     0.5 px, at the top, mid-feed with a pinned header, and deep in the 1M feed (where scroll
     positions map to content y non-linearly);
  b. scrolling to the end of the 1M feed shows its last image (index 999999) on screen;
  c. a pointer drag of the image at position 3 onto the image at position 0 persists exactly as
     `waterfall move ID3 --before ID0` would (checked with `waterfall images` and `changes`);
     a touch long press and drag moves an image, a touch swipe scrolls;
  d. a move made with the command line, and a drag in another tab, show in the open page
     within 2 s;
  e. the keyboard moves an image (Alt+ArrowLeft; Space, arrows, Space), and a move over a stale
     page is refused with 412, which the page answers by refreshing and saying so;
  and the cover flow snaps, with every cover where the coverflow API says;
  g. the kind switch shows justified rows where the inline justified viewport says;
  h. the section scrubber: a role="slider" whose value is the section (aria-valuetext its
     title) as the section index says; arrows, Page Up/Down, Home go to sections and End to
     the very end (the last images of the 1M feed on screen); a click on its track; it follows
     the scroll;
  i. deep in the 1M feed a wheel notch moves content y about 100 px, an arrow key 40, Page Down
     and Space about one window (not the spacer's scaled amounts), boxes still exact;
  j. the lightbox: Enter (or a click) on an image opens a role="dialog" aria-modal of it, the
     arrows show its neighbours, Escape closes and gives the focus back; a drag opens nothing;
  k. the live badge says "Connecting…" while the events stream is not open (held back), and
     "Offline — retrying" when it fails (blocked), "Live" only once it is open;
  l. the header fits at 1280 and 375 px wide (no element of it wider than its box, counts shown);
  m. the image at the top of the window stays there across a reload (to the pixel), a change
     of layout (the saved 2-column one and back), of kind (justified and back) and a resize
     (within a row's height); a deep link `#feed=F&id=ID` puts that image just under the pinned
     header, and an unknown id starts at the top;
  n. with dates, the scrubber labels years and months (the feed's, and a three-year feed by
     month in Europe/Paris that this check imports as "timeline"), and a click on a month or a
     year goes to the image `locate?date=` answers for its last minute; a feed without dates
     has no labels and the plain width;
  o. a saved view of the feed (added for this check) is in the view picker and drawn where its
     viewport says; the share action makes a link to it, listed by `share list`, whose gallery
     (`/s/{token}/gallery`) is read-only (no key button, no share button, no drag) and draws the
     view's boxes where the link's own viewport says; once the link is removed, the open page says
     within 5 s that it answers nothing (the link's event stream ends with `unshared`);
  f. no console errors (failed loads of the feed's own image urls, unreachable from a test
     machine, excepted; the 412 of check e excepted).
"""
import json
import re
import os
import subprocess
import sys
import time
import urllib.parse
import urllib.request

TOLERANCE = 0.5
LAST_INDEX = 999_999


def make_feed(path, count):
    """A deterministic NDJSON feed: small records, varied aspect ratios, sections of 5,000."""
    sizes = [(640, 427), (640, 480), (480, 640), (500, 375), (427, 640), (612, 612), (1600, 900),
             (800, 1200), (3000, 1000), (1170, 2532)]
    with open(path, "w") as out:
        chunk = []
        for n in range(count):
            w, h = sizes[(n * 7 + n // 13) % len(sizes)]
            chunk.append('{"id":"m%d","width":%d,"height":%d,"section":"part-%03d"}\n' % (n, w, h, n // 5000))
            if len(chunk) == 50_000:
                out.write("".join(chunk))
                chunk = []
        out.write("".join(chunk))


def make_dated_feed(path):
    """A small feed sectioned by month in Europe/Paris, over three years (2021-2023), twelve
    images a month, newest first once imported; each month's first image is written in UTC on
    the month before's last evening, so that a month read in UTC instead of the feed's zone
    shows."""
    sizes = [(640, 427), (480, 640), (500, 375), (612, 612), (800, 1200), (1600, 900)]
    images = []
    for year in (2021, 2022, 2023):
        for month in range(1, 13):
            for n in range(12):
                w, h = sizes[(year + month * 5 + n) % len(sizes)]
                if n == 0:
                    taken = f"{year}-{month:02d}-01T00:20:00+01:00"
                else:
                    taken = f"{year}-{month:02d}-{1 + 2 * n:02d}T{(5 * n) % 24:02d}:15:00Z"
                images.append({"id": f"t{year}{month:02d}{n:02d}", "width": w, "height": h, "takenAt": taken})
    with open(path, "w") as out:
        json.dump({"feed": "timeline", "sectionBy": "month", "timeZone": "Europe/Paris", "images": images}, out)


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


class Run:
    def __init__(self, base, binary, database, feed, big_feed, screenshots):
        self.base = base.rstrip("/")
        self.binary = binary
        self.database = database
        self.feed = feed
        self.big_feed = big_feed
        self.screenshots = screenshots
        self.allowed_log = []  # predicates of log entries that a check expects
        self.driver = None

    # ------------------------------------------------------------------ plumbing

    def start_browser(self):
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        options = webdriver.ChromeOptions()
        binary = os.environ.get("CHROMIUM") or next(
            (p for p in ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome") if os.path.exists(p)), None)
        if binary:
            options.binary_location = binary
        for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--window-size=1280,800", "--no-first-run", "--disable-extensions",
                         "--disable-background-networking", "--disable-component-update"):
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver_path = os.environ.get("CHROMEDRIVER") or next(
            (p for p in ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver") if os.path.exists(p)), "chromedriver")
        self.driver = webdriver.Chrome(options=options, service=Service(driver_path))
        # Exactly 1280 × 800 CSS px, device pixel ratio 1 (CSS px = points).
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
        self.driver.set_script_timeout(20)

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def api(self, path, method="GET", body=None, headers=None):
        request = urllib.request.Request(self.base + path, method=method, data=body, headers=headers or {})
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read()), response.headers

    def cli(self, *arguments):
        result = subprocess.run([self.binary, "--db", self.database, *arguments], capture_output=True, text=True, timeout=60)
        check(result.returncode == 0, f"waterfall {' '.join(arguments)} exited {result.returncode}: {result.stderr.strip()}")
        return result.stdout

    def first_ids(self, feed, count):
        answer = json.loads(self.cli("images", "--feed", feed, "--limit", str(count), "--json"))
        return [image["id"] for image in answer["images"]], answer["revision"]

    def open(self, fragment):
        self.driver.get("about:blank")  # a new document each time, not a fragment change
        self.driver.get(f"{self.base}/#{fragment}")
        self.wait_idle()

    def wait_idle(self, timeout=20):
        """Until the page has drawn an answer and has nothing in flight or waiting."""
        deadline = time.time() + timeout
        settled_since = None
        while time.time() < deadline:
            idle = self.js("return !!(window.gallery && window.gallery.idle && window.gallery.feed && "
                           "(document.querySelector('#list .tile, #cf-list .cf-item') || document.querySelector('#empty:not([hidden])')))")
            if idle:
                settled_since = settled_since or time.time()
                if time.time() - settled_since > 0.45:  # also past FLIP transitions and a debounce
                    return
            else:
                settled_since = None
            time.sleep(0.05)
        state = self.js("return window.gallery ? {feed: gallery.feed, view: gallery.view, idle: gallery.idle, busy: document.documentElement.dataset.busy,"
                        " tiles: document.querySelectorAll('#list .tile, #cf-list .cf-item').length, notice: document.getElementById('notice').textContent} : null")
        raise Failure(f"the page did not settle within {timeout} s: {state}")

    def scroll_to_content(self, y):
        self.js("gallery.scrollToContentY(arguments[0])", y)
        time.sleep(0.1)
        self.wait_idle()

    def screenshot(self, name):
        if self.screenshots:
            os.makedirs(self.screenshots, exist_ok=True)
            path = os.path.join(self.screenshots, name)
            self.driver.save_screenshot(path)
            print(f"screenshot: {path}")

    # ------------------------------------------------------------------ (a) boxes equal frames

    SNAPSHOT = r"""
      const canvas = document.getElementById('canvas').getBoundingClientRect();
      const stage = document.getElementById('stage').getBoundingClientRect();
      const box = (e) => { const r = e.getBoundingClientRect(); return {x: r.left - canvas.left, y: r.top - canvas.top, width: r.width, height: r.height, top: r.top, bottom: r.bottom}; };
      return {
        mappedTop: gallery.mappedTop, height: gallery.viewportHeight, query: gallery.layoutQuery,
        revision: gallery.revision, contentHeight: gallery.contentHeight,
        stageTop: stage.top, stageBottom: stage.bottom,
        tiles: [...document.querySelectorAll('#list .tile')].map((e) => ({id: e.dataset.id, index: +e.dataset.index, transform: getComputedStyle(e).transform, ...box(e)})),
        headers: [...document.querySelectorAll('#headers .section-header')].map((e) => ({section: e.dataset.section, pinned: e.dataset.pinned === 'true', ...box(e)})),
      };
    """

    def viewport_of(self, snapshot, pin=True):
        query = snapshot["query"]
        path = (f"{query['base']}viewport?{query['params']}y={snapshot['mappedTop']!r}&height={snapshot['height']!r}"
                + ("&pinOffset=0" if pin else ""))
        answer, _ = self.api(path)
        return answer

    def expect_boxes_match(self, label):
        snapshot = self.js(self.SNAPSHOT)
        answer = self.viewport_of(snapshot)
        check(answer["revision"] == snapshot["revision"], f"{label}: page at revision {snapshot['revision']}, API at {answer['revision']}")
        top = snapshot["mappedTop"]
        tiles = {tile["id"]: tile for tile in snapshot["tiles"]}
        for item in answer["items"]:
            tile = tiles.get(item["id"])
            check(tile is not None, f"{label}: image {item['id']} (index {item['index']}) is in the viewport answer but not on the page")
            check(tile["transform"] in ("none", ""), f"{label}: image {item['id']} is still moving ({tile['transform']})")
            drawn = (tile["x"], tile["y"] + top, tile["width"], tile["height"])
            frame = (item["x"], item["y"], item["width"], item["height"])
            check(all(abs(a - b) <= TOLERANCE for a, b in zip(drawn, frame)),
                  f"{label}: image {item['id']} is drawn at {drawn}, the API says {frame}")
            check(tile["index"] == item["index"], f"{label}: image {item['id']} says index {tile['index']}, the API {item['index']}")
        answered = {item["id"] for item in answer["items"]}
        for tile in snapshot["tiles"]:
            on_screen = tile["bottom"] > snapshot["stageTop"] + 0.01 and tile["top"] < snapshot["stageBottom"] - 0.01
            check(not on_screen or tile["id"] in answered,
                  f"{label}: image {tile['id']} is on screen at y {tile['y'] + top} but not in the viewport answer")
        drawn_headers = {h["section"]: h for h in snapshot["headers"]
                         if h["bottom"] > snapshot["stageTop"] + 0.01 and h["top"] < snapshot["stageBottom"] - 0.01}
        for header in answer["headers"]:
            key = header["section"] if header["section"] is not None else ""
            drawn = drawn_headers.pop(key, None)
            check(drawn is not None, f"{label}: the header of section {header['section']} is in the answer but not on screen")
            position = (drawn["x"], drawn["y"] + top, drawn["width"], drawn["height"])
            frame = (header["x"], header["y"], header["width"], header["height"])
            check(all(abs(a - b) <= TOLERANCE for a, b in zip(position, frame)),
                  f"{label}: the header of {header['section']} is drawn at {position}, the API says {frame}")
            check(drawn["pinned"] == header["pinned"], f"{label}: header {header['section']} pinned {drawn['pinned']}, API {header['pinned']}")
        check(not drawn_headers, f"{label}: headers on screen that the API does not list: {sorted(drawn_headers)}")
        check(len(snapshot["tiles"]) < 400, f"{label}: {len(snapshot['tiles'])} image boxes in the page; only the visible ones should be")
        return snapshot, answer

    def expect_colours(self, answer, label):
        """Every box whose image has not loaded shows the image's `color` from the answer (DESIGN
        section 16): the test machine cannot reach COCO's urls, so the boxes keep their colour."""
        painted = {e["id"]: e for e in self.js("""
            return [...document.querySelectorAll('#list .tile')].map((e) => ({id: e.dataset.id,
              loaded: e.classList.contains('loaded'), background: getComputedStyle(e.querySelector('.ph')).backgroundColor}));""")}
        coloured = [item for item in answer["items"] if item.get("color")]
        check(coloured, f"{label}: no image of {self.feed} has a color")
        for item in coloured:
            box = painted.get(item["id"])
            check(box is not None, f"{label}: image {item['id']} has no box")
            if box["loaded"]:
                continue
            rgb = tuple(int(item["color"][i:i + 2], 16) for i in (1, 3, 5))
            check(box["background"] == "rgb(%d, %d, %d)" % rgb,
                  f"{label}: image {item['id']} shows {box['background']} before its picture arrives, the API says {item['color']}")

    def check_boxes(self):
        self.open(f"feed={urllib.parse.quote(self.feed)}")
        self.screenshot("gallery-waterfall.png")
        snapshot, answer = self.expect_boxes_match("top of the feed")
        check(len(answer["items"]) >= 4, f"only {len(answer['items'])} images at the top of {self.feed}")
        self.expect_colours(answer, "top of the feed")
        # Mid-feed, a header pinned: scroll into the middle of a section.
        content = snapshot["contentHeight"]
        for fraction in (0.013, 0.37):
            self.scroll_to_content(content * fraction)
            snapshot, answer = self.expect_boxes_match(f"{self.feed} at {fraction:.0%}")
        pinned = [h for h in answer["headers"] if h["pinned"]]
        check(pinned and any(abs(h["y"] - snapshot["mappedTop"]) < TOLERANCE for h in pinned),
              f"no header pinned at the top mid-feed: {answer['headers']}")
        # The screenshot: a header pinned at the top, the next section's header coming up.
        query = snapshot["query"]
        band, _ = self.api(f"{query['base']}viewport?{query['params']}y=0&height={min(content, 60000)!r}")
        following = [h for h in band["headers"] if h["y"] > snapshot["height"]]
        self.scroll_to_content(following[0]["y"] - snapshot["height"] * 0.7 if following else content * 0.013)
        self.expect_boxes_match(f"{self.feed} with the next header coming up")
        self.screenshot("gallery-pinned.png")
        # Scrolling by wheel-sized steps keeps every box in place (the answers in hand move with the scroll).
        self.js("window.scrollBy(0, 137)")
        time.sleep(0.02)
        self.wait_idle()
        self.expect_boxes_match(f"{self.feed} after a small scroll")
        print("ok: a. image boxes and headers are where the viewport API says (top, mid-feed, pinned header), in their colours")

    # ------------------------------------------------------------------ (b) the last image of 1M

    def check_million(self):
        if not self.big_feed:
            print("skip: b. no --big-feed")
            return
        self.open(f"feed={urllib.parse.quote(self.big_feed)}")
        snapshot = self.js(self.SNAPSHOT)
        check(snapshot["contentHeight"] > 16_777_216,
              f"{self.big_feed} is {snapshot['contentHeight']} px tall: not taller than a browser's element cap")
        spacer = self.js("return gallery.spacerHeight")
        check(spacer <= 8_000_000, f"the spacer is {spacer} px")
        # Deep in the feed, positions map non-linearly: the boxes must still be exact.
        self.scroll_to_content(snapshot["contentHeight"] * 0.61803)
        self.expect_boxes_match(f"{self.big_feed} at 61.8%")
        # To the end, as a user would: the scroll bar's end.
        self.js("window.scrollTo(0, document.documentElement.scrollHeight)")
        time.sleep(0.1)
        self.wait_idle()
        snapshot, answer = self.expect_boxes_match(f"{self.big_feed} at the end")
        check(abs(snapshot["mappedTop"] - (snapshot["contentHeight"] - snapshot["height"])) < 0.01,
              f"at the end, the mapped top is {snapshot['mappedTop']}, not contentHeight - height = {snapshot['contentHeight'] - snapshot['height']}")
        last = next((t for t in snapshot["tiles"] if t["index"] == LAST_INDEX), None)
        check(last is not None, f"image {LAST_INDEX} is not in the page at the end of {self.big_feed}")
        check(last["top"] >= snapshot["stageTop"] - 0.5 and last["bottom"] <= snapshot["stageBottom"] + 0.5,
              f"image {LAST_INDEX} is in the page but not fully on screen: {last}")
        visible = self.js("const e = document.querySelector('#list .tile[data-index=\"999999\"]'); const r = e.getBoundingClientRect();"
                          "const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2); return !!hit && e.contains(hit);")
        check(visible, f"image {LAST_INDEX} is covered by something else")
        print(f"ok: b. the end of the {snapshot['contentHeight']:,.0f}-point feed shows image {LAST_INDEX} (spacer {spacer:,.0f} px)")

    # ------------------------------------------------------------------ (c) a drag persists

    def check_drag(self):
        from selenium.webdriver.common.action_chains import ActionChains
        self.open(f"feed={urllib.parse.quote(self.feed)}")
        before, revision = self.first_ids(self.feed, 4)
        tiles = {i: self.driver.find_element("css selector", f'#list .tile[data-index="{i}"]') for i in (0, 3)}
        check(tiles[0].get_attribute("data-id") == before[0] and tiles[3].get_attribute("data-id") == before[3],
              "the page's positions 0 and 3 are not the command line's")
        actions = ActionChains(self.driver, duration=120)
        actions.click_and_hold(tiles[3]).move_by_offset(12, 8).move_to_element(tiles[0]).pause(0.15).release().perform()
        deadline = time.time() + 5
        after = before
        while time.time() < deadline:
            after, now = self.first_ids(self.feed, 4)
            if now != revision:
                break
            time.sleep(0.1)
        expected = [before[3], before[0], before[1], before[2]]
        check(after == expected, f"after dragging {before[3]} onto {before[0]}: {after}, expected {expected} (move --before)")
        check(now == revision + 1, f"the drag made revisions {revision} → {now}, not one move")
        changes = json.loads(self.cli("changes", "--feed", self.feed, "--since", str(revision), "--json"))["changes"]
        check([(c["kind"], c["id"]) for c in changes] == [("move", before[3])], f"the drag logged {changes}")
        self.wait_idle()
        snapshot = self.js(self.SNAPSHOT)
        shown = sorted((t for t in snapshot["tiles"] if t["index"] < 4), key=lambda t: t["index"])
        check([t["id"] for t in shown] == expected, f"the page shows {[t['id'] for t in shown]} after the drag")
        self.expect_boxes_match("after the drag")
        check(self.js("return document.getElementById('lightbox').hidden"), "the click that ended a drag opened the lightbox")
        print(f"ok: c. dragging position 3 ({before[3]}) onto position 0 persisted as move --before {before[0]}")

        # Touch: a long press picks an image up and a drag moves it; a plain swipe scrolls.
        from selenium.webdriver.common.actions import interaction
        from selenium.webdriver.common.actions.action_builder import ActionBuilder
        from selenium.webdriver.common.actions.pointer_input import PointerInput
        before, revision = self.first_ids(self.feed, 4)
        finger = PointerInput(interaction.POINTER_TOUCH, "finger")
        source = self.driver.find_element("css selector", '#list .tile[data-index="3"]')
        target = self.driver.find_element("css selector", '#list .tile[data-index="1"]')
        touch = ActionBuilder(self.driver, mouse=finger, duration=100)
        touch.pointer_action.move_to(source).pointer_down().pause(0.6).move_to(target).pause(0.1).pointer_up()
        touch.perform()
        deadline = time.time() + 5
        while time.time() < deadline:
            after, now = self.first_ids(self.feed, 4)
            if now != revision:
                break
            time.sleep(0.1)
        expected = [before[0], before[3], before[1], before[2]]
        check(after == expected, f"a touch drag of position 3 onto 1 gave {after}, expected {expected}")
        self.wait_idle()
        scrolled = self.js("return window.scrollY")
        swipe = ActionBuilder(self.driver, mouse=finger, duration=100)
        swipe.pointer_action.move_to(self.driver.find_element("css selector", '#list .tile[data-index="6"]')).pointer_down().move_by(0, -250).pointer_up()
        swipe.perform()
        time.sleep(0.4)
        self.wait_idle()
        _, still = self.first_ids(self.feed, 1)
        check(still == now, "a swipe over the images moved one")
        check(self.js("return window.scrollY") > scrolled + 50, "a swipe over the images did not scroll")
        self.expect_boxes_match("after a touch swipe")
        print("ok: c. a touch long-press drag moves an image; a swipe scrolls")

    # ------------------------------------------------------------------ (d) live updates

    def check_live(self):
        self.open(f"feed={urllib.parse.quote(self.feed)}")
        time.sleep(0.3)  # the event stream connects
        ids, _ = self.first_ids(self.feed, 3)
        started = time.time()
        self.cli("move", ids[2], "--before", ids[0], "--feed", self.feed)
        deadline = started + 2.0
        seen = False
        while time.time() < deadline:
            seen = self.js("const e = document.querySelector('#list .tile[data-id=\"' + CSS.escape(arguments[0]) + '\"]');"
                           "return !!e && e.dataset.index === '0';", ids[2])
            if seen:
                break
            time.sleep(0.02)
        elapsed = time.time() - started
        check(seen, f"the command line's move of {ids[2]} before {ids[0]} did not show within 2 s")
        self.wait_idle()
        self.expect_boxes_match("after a command-line move")
        print(f"ok: d. a command-line move showed in the open page after {elapsed:.2f} s")

        # Two tabs: a drag in one shows in the other (which reads no stream of its own: the
        # first tab's is shared with it).
        from selenium.webdriver.common.action_chains import ActionChains
        first = self.driver.current_window_handle
        self.driver.switch_to.new_window("tab")
        second = self.driver.current_window_handle
        self.driver.get(f"{self.base}/#feed={urllib.parse.quote(self.feed)}")
        self.wait_idle()
        self.driver.switch_to.window(first)
        ids, _ = self.first_ids(self.feed, 3)
        source = self.driver.find_element("css selector", '#list .tile[data-index="2"]')
        target = self.driver.find_element("css selector", '#list .tile[data-index="0"]')
        ActionChains(self.driver, duration=100).click_and_hold(source).move_by_offset(10, 10).move_to_element(target).release().perform()
        started = time.time()
        self.driver.switch_to.window(second)
        seen = False
        while time.time() < started + 2.5:
            seen = self.js("const e = document.querySelector('#list .tile[data-id=\"' + CSS.escape(arguments[0]) + '\"]');"
                           "return !!e && e.dataset.index === '0';", ids[2])
            if seen:
                break
            time.sleep(0.02)
        elapsed = time.time() - started
        check(seen, f"a drag in one tab did not show in the other within 2 s")
        after, _ = self.first_ids(self.feed, 3)
        check(after == [ids[2], ids[0], ids[1]], f"the drag in the first tab gave {after}")
        self.wait_idle()
        self.expect_boxes_match("in the second tab after the first tab's drag")
        self.driver.close()
        self.driver.switch_to.window(first)
        print(f"ok: d. a drag in another tab showed after {elapsed:.2f} s")

    # ------------------------------------------------------------------ (e) keyboard and 412

    def check_keyboard_and_conflict(self):
        from selenium.webdriver.common.keys import Keys
        self.open(f"feed={urllib.parse.quote(self.feed)}")
        ids, revision = self.first_ids(self.feed, 3)
        tile = self.driver.find_element("css selector", '#list .tile[data-index="1"]')
        self.js("arguments[0].focus()", tile)
        tile.send_keys(Keys.ALT, Keys.ARROW_LEFT)
        deadline = time.time() + 15
        while time.time() < deadline:
            after, now = self.first_ids(self.feed, 3)
            if now != revision:
                break
            time.sleep(0.1)
        check(after[:2] == [ids[1], ids[0]], f"Alt+ArrowLeft on position 1 gave {after}, expected {ids[1]} first")
        self.wait_idle()
        focused = self.js("return document.activeElement && document.activeElement.dataset.id")
        check(focused == ids[1], f"after the keyboard move the focus is on {focused}, not {ids[1]}")
        status = self.js("return document.getElementById('announcer').textContent")
        check(ids[1] in status, f"the status region says {status!r} after the keyboard move")

        # Space picks the image at position 3 up, two ArrowLefts move it two places, Space puts it down.
        from selenium.webdriver.common.action_chains import ActionChains
        ids, revision = self.first_ids(self.feed, 4)
        self.js("arguments[0].focus()", self.driver.find_element("css selector", '#list .tile[data-index="3"]'))
        for key in (Keys.SPACE, Keys.ARROW_LEFT, Keys.ARROW_LEFT, Keys.SPACE):
            ActionChains(self.driver).send_keys(key).perform()
            time.sleep(0.05)
        deadline = time.time() + 15  # two moves in turn, each answered and refetched: slow on a busy CI machine
        while time.time() < deadline:
            after, now = self.first_ids(self.feed, 4)
            if now >= revision + 2:
                break
            time.sleep(0.1)
        check(after == [ids[0], ids[3], ids[1], ids[2]], f"Space, ←, ←, Space on position 3 gave {after}")
        self.wait_idle()
        focused = self.js("return document.activeElement && document.activeElement.dataset.id")
        check(focused == ids[3], f"after moving with Space and arrows the focus is on {focused}, not {ids[3]}")

        # A page that misses a change (its event stream held back) and then moves: 412.
        script = self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
            const realFetch = window.fetch;
            window.fetch = (input, init) => String(input).includes('/events?')
                ? new Promise((_, reject) => init && init.signal && init.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))))
                : realFetch(input, init);
        """})
        try:
            self.open(f"feed={urllib.parse.quote(self.feed)}")
            ids, _ = self.first_ids(self.feed, 4)
            self.cli("move", ids[3], "--before", ids[0], "--feed", self.feed)
            _, revision = self.first_ids(self.feed, 1)
            self.allowed_log.append(lambda e: "/reorder" in e["message"] and "412" in e["message"])
            from selenium.webdriver.common.action_chains import ActionChains
            source = self.driver.find_element("css selector", '#list .tile[data-index="2"]')
            target = self.driver.find_element("css selector", '#list .tile[data-index="1"]')
            ActionChains(self.driver, duration=100).click_and_hold(source).move_by_offset(10, 10).move_to_element(target).release().perform()
            deadline = time.time() + 5
            notice = ""
            while time.time() < deadline and "someone else changed this feed" not in notice.lower():
                notice = self.js("const n = document.getElementById('notice'); return n.hidden ? '' : n.textContent")
                time.sleep(0.05)
            check("someone else changed this feed" in notice.lower(), f"no conflict notice after a stale move (notice {notice!r})")
            _, now = self.first_ids(self.feed, 1)
            check(now == revision, "the stale move changed the feed")
            self.wait_idle()
            first = self.js("return document.querySelector('#list .tile[data-index=\"0\"]').dataset.id")
            check(first == ids[3], f"after the 412 the page shows {first} first, not the newer order's {ids[3]}")
        finally:
            self.driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})
        print("ok: e. Alt+ArrowLeft and Space, arrows, Space move the focused image; a stale move is refused (412), refreshed and said")

    # ------------------------------------------------------------------ cover flow

    def check_cover_flow(self):
        self.open(f"feed={urllib.parse.quote(self.feed)}&view=coverflow")
        self.js("document.getElementById('cf-scroller').scrollLeft = 3000")
        time.sleep(0.2)
        deadline = time.time() + 6
        state = None
        while time.time() < deadline:
            state = self.js("""
                const items = [...document.querySelectorAll('#cf-list .cf-item')];
                const centre = document.querySelector('#cf-list .cf-item.centre');
                return {x: gallery.mappedLeft, idle: gallery.idle, count: items.length, centre: centre && centre.dataset.id,
                        width: document.getElementById('cf-scroller').clientWidth};""")
            if state["idle"] and state["centre"]:
                break
            time.sleep(0.1)
        check(state and state["centre"], f"the cover flow did not settle: {state}")
        time.sleep(0.8)
        x1 = self.js("return gallery.mappedLeft")
        time.sleep(0.3)
        x2 = self.js("return gallery.mappedLeft")
        check(abs(x1 - x2) < 0.01, f"the cover flow is still moving: {x1} → {x2}")
        # Every cover is where the coverflow API says (its scale applied about its centre).
        query = self.js("return gallery.coverQuery")
        answer, _ = self.api(f"/v1/feeds/{urllib.parse.quote(self.feed, safe='')}/coverflow?itemHeight={query['itemHeight']}"
                             f"&viewportWidth={query['viewportWidth']}&x={x2!r}&sectionInset={query['sectionInset']}&factor={query['factor']}")
        covers = {c["id"]: c for c in self.js("""
            const list = document.getElementById('cf-list').getBoundingClientRect();
            return [...document.querySelectorAll('#cf-list .cf-item')].map((e) => { const r = e.getBoundingClientRect();
              return {id: e.dataset.id, x: r.left - list.left, y: r.top - list.top, width: r.width, height: r.height}; });""")}
        for item in answer["items"]:
            cover = covers.get(item["id"])
            check(cover is not None, f"cover {item['id']} is in the coverflow answer but not on the page")
            s = item["scale"]
            expected = (item["x"] - x2 + item["width"] * (1 - s) / 2, item["y"] + item["height"] * (1 - s) / 2, item["width"] * s, item["height"] * s)
            drawn = (cover["x"], cover["y"], cover["width"], cover["height"])
            check(all(abs(a - b) <= TOLERANCE for a, b in zip(drawn, expected)),
                  f"cover {item['id']} is drawn at {drawn}; the API's frame scaled by {s} is {expected}")
        check(abs(answer["snapOffset"] - x2) < 0.01, f"the cover flow rests at {x2}, the API snaps it to {answer['snapOffset']}")
        centred = self.js("""
            const e = document.querySelector('#cf-list .cf-item.centre'); const r = e.getBoundingClientRect();
            const s = document.getElementById('cf-scroller').getBoundingClientRect();
            return Math.abs((r.left + r.width / 2) - (s.left + s.width / 2));""")
        check(centred < 1, f"after snapping the centre cover is {centred} px off the centre")
        self.screenshot("gallery-coverflow.png")
        print(f"ok: cover flow snapped to offset {x2} with {state['centre']} in the centre")

    # ------------------------------------------------------------------ justified rows

    def check_justified(self):
        """The kind switch shows justified rows: every box where the inline justified viewport
        says, rows of one height that end at the right inset, and the same mid-feed."""
        self.open(f"feed={urllib.parse.quote(self.feed)}&view=justified")
        snapshot = self.js(self.SNAPSHOT)
        check("kind=justified" in snapshot["query"]["params"],
              f"the justified view asks {snapshot['query']['params']!r}, not an inline justified layout")
        snapshot, answer = self.expect_boxes_match("justified rows at the top")
        rows = {}
        for item in answer["items"]:
            rows.setdefault(item["y"], []).append(item)
        check(len(rows) >= 2, f"only {len(rows)} rows of justified images at the top: {answer['items'][:4]}")
        width = float(re.search(r"width=([0-9.]+)", snapshot["query"]["params"]).group(1))
        full = [row for row in list(rows.values())[:-1] if len({i["height"] for i in row}) == 1]
        check(full and all(abs(max(i["x"] + i["width"] for i in row) - (width - 10)) < TOLERANCE for row in full),
              f"justified rows do not end at the right inset ({width - 10}): {[[(i['x'], i['width']) for i in row] for row in full][:3]}")
        self.scroll_to_content(snapshot["contentHeight"] * 0.4)
        self.expect_boxes_match("justified rows mid-feed")
        self.screenshot("gallery-justified.png")
        print(f"ok: g. justified rows are where the viewport API says ({len(rows)} rows at the top, mid-feed too)")

    # ------------------------------------------------------------------ (h) the scrubber

    SLIDER = r"""
      const s = document.querySelector('[role="slider"]');
      if (!s) return null;
      const r = s.getBoundingClientRect();
      return {now: +s.getAttribute('aria-valuenow'), min: +s.getAttribute('aria-valuemin'), max: +s.getAttribute('aria-valuemax'),
              text: s.getAttribute('aria-valuetext'), visible: r.width > 0 && r.height > 0 && !s.closest('[hidden]'),
              left: r.left, top: r.top, width: r.width, height: r.height, focused: document.activeElement === s,
              mappedTop: gallery.mappedTop, contentHeight: gallery.contentHeight, height_: gallery.viewportHeight};
    """

    def section_index(self):
        query = self.js("return gallery.layoutQuery")
        if query["params"]:
            feed = query["base"].split("/")[3]
            path = f"/v1/feeds/{feed}/section-index?{query['params'].rstrip('&')}"
        else:
            path = f"{query['base']}sections"
        answer, _ = self.api(path)
        return answer

    def scrubber_key(self, key, label):
        from selenium.webdriver.common.action_chains import ActionChains
        ActionChains(self.driver).send_keys(key).perform()
        time.sleep(0.05)
        self.wait_idle()
        return self.js(self.SLIDER)

    def expect_section(self, slider, index, ordinal, label, at_end=False):
        entry = index["sections"][ordinal - 1]
        title = entry["title"] if entry["title"] is not None else "No section"
        check(slider["now"] == ordinal, f"{label}: the scrubber says section {slider['now']}, expected {ordinal}")
        check(slider["text"] == title, f"{label}: aria-valuetext {slider['text']!r}, expected {title!r}")
        end = slider["contentHeight"] - slider["height_"]
        expected = end if at_end else min(entry["y"], end)
        check(abs(slider["mappedTop"] - expected) < 0.01,
              f"{label}: the feed's top is at {slider['mappedTop']}, expected {expected} (section {ordinal} begins at {entry['y']})")

    def check_scrubber(self):
        from selenium.webdriver.common.keys import Keys
        from selenium.webdriver.common.action_chains import ActionChains
        feeds = [(self.feed, None)] + ([(self.big_feed, LAST_INDEX)] if self.big_feed else [])
        for feed, last_index in feeds:
            self.open(f"feed={urllib.parse.quote(feed)}")
            index = self.section_index()
            sections = index["sections"]
            slider = self.js(self.SLIDER)
            check(slider and slider["visible"], f"{feed}: no visible role=slider scrubber: {slider}")
            check(slider["min"] == 1 and slider["max"] == len(sections),
                  f"{feed}: the scrubber runs {slider['min']}…{slider['max']}, the index has {len(sections)} sections")
            self.expect_section(slider, index, 1, f"{feed} at the top")
            self.js("document.querySelector('[role=\"slider\"]').focus()")
            slider = self.scrubber_key(Keys.ARROW_DOWN, "ArrowDown")
            self.expect_section(slider, index, 2, f"{feed}: ArrowDown on the scrubber")
            self.expect_boxes_match(f"{feed} after ArrowDown on the scrubber")
            slider = self.scrubber_key(Keys.PAGE_DOWN, "PageDown")
            self.expect_section(slider, index, min(12, len(sections)), f"{feed}: PageDown on the scrubber")
            slider = self.scrubber_key(Keys.ARROW_UP, "ArrowUp")
            self.expect_section(slider, index, min(12, len(sections)) - 1, f"{feed}: ArrowUp on the scrubber")
            slider = self.scrubber_key(Keys.HOME, "Home")
            self.expect_section(slider, index, 1, f"{feed}: Home on the scrubber")
            slider = self.scrubber_key(Keys.END, "End")
            self.expect_section(slider, index, len(sections), f"{feed}: End on the scrubber", at_end=True)
            snapshot, _ = self.expect_boxes_match(f"{feed} after End on the scrubber")
            last = last_index if last_index is not None else self.api(f"/v1/feeds/{urllib.parse.quote(feed, safe='')}")[0]["images"] - 1
            tile = next((t for t in snapshot["tiles"] if t["index"] == last), None)
            check(tile is not None and tile["top"] >= snapshot["stageTop"] - 0.5 and tile["bottom"] <= snapshot["stageBottom"] + 0.5,
                  f"{feed}: after End on the scrubber, image {last} is not on screen: {tile}")
            # It follows the scroll: the section under the top of the feed.
            middle = len(sections) // 2
            self.scroll_to_content(sections[middle]["y"] + 5)
            slider = self.js(self.SLIDER)
            check(slider["now"] == middle + 1 and slider["text"] == (sections[middle]["title"] or "No section"),
                  f"{feed}: scrolled into section {middle + 1}, the scrubber says {slider['now']} ({slider['text']!r})")
            # A click on the track goes to the section at that point.
            ActionChains(self.driver).move_to_element_with_offset(
                self.driver.find_element("css selector", '[role="slider"]'), 0, -int(slider["height"] * 0.25)).click().perform()
            time.sleep(0.05)
            self.wait_idle()
            slider = self.js(self.SLIDER)
            check(1 <= slider["now"] < middle + 1, f"{feed}: a click a quarter down the scrubber went to section {slider['now']}")
            self.expect_section(slider, index, slider["now"], f"{feed}: a click on the scrubber")
            self.expect_boxes_match(f"{feed} after a click on the scrubber")
        self.screenshot("gallery-scrubber.png")
        print(f"ok: h. the scrubber (role=slider, aria-valuetext the section's title) goes by arrows, Page Up/Down, Home, "
              f"a click, and End to the last images ({len(sections)} sections of {feeds[-1][0]}); it follows the scroll")

    # ------------------------------------------------------------------ (m) the place is kept

    TOP_IMAGE = r"""
      const stage = document.getElementById('stage').getBoundingClientRect();
      const line = stage.top + arguments[0];
      let first = null;
      for (const e of document.querySelectorAll('#list .tile')) {
        const r = e.getBoundingClientRect();
        if (r.bottom > line + 0.01 && r.top < stage.bottom && (!first || +e.dataset.index < first.index))
          first = {id: e.dataset.id, index: +e.dataset.index, top: r.top - stage.top, height: r.height};
      }
      return first;
    """

    def header_height(self):
        """The header height of the layout shown (inline: its parameter; saved: its configuration)."""
        query = self.js("return gallery.layoutQuery")
        found = re.search(r"headerHeight=([0-9.]+)", query["params"])
        if found:
            return float(found.group(1))
        configuration, _ = self.api(query["base"].rstrip("/"))
        return float(configuration.get("headerHeight", 0))

    def top_image(self):
        """The image at the top of the window: the first, in catalog order, showing below the
        pinned header (the image the position pill counts from)."""
        return self.js(self.TOP_IMAGE, self.header_height())

    def tile_top(self, image_id):
        return self.js("const e = document.querySelector('#list .tile[data-id=\"' + CSS.escape(arguments[0]) + '\"]');"
                       "if (!e) return null; const r = e.getBoundingClientRect();"
                       "return {top: r.top - document.getElementById('stage').getBoundingClientRect().top, height: r.height};", image_id)

    def expect_kept(self, before, label, exact):
        """The image that was at the top is still there: at the same distance below the stage's
        top (within 0.5 px when `exact`, else within a row's height: the image's own)."""
        after = self.tile_top(before["id"])
        check(after is not None, f"{label}: image {before['id']}, at the top before, is not in the page")
        moved = after["top"] - before["top"]
        allowed = TOLERANCE if exact else max(before["height"], after["height"])
        check(abs(moved) <= allowed, f"{label}: image {before['id']} moved {moved:.1f} px (from {before['top']:.1f} to {after['top']:.1f}); allowed {allowed:.1f}")
        self.expect_boxes_match(label)
        return moved

    def wait_hash_id(self, image_id, timeout=3):
        deadline = time.time() + timeout
        fragment = ""
        while time.time() < deadline:
            fragment = self.js("return location.hash")
            if dict(urllib.parse.parse_qsl(fragment[1:])).get("id") == image_id:
                return fragment
            time.sleep(0.05)
        raise Failure(f"the address is {fragment!r}, not naming the top image {image_id}")

    def set_width(self, width):
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": width, "height": 800, "deviceScaleFactor": 1, "mobile": False})
        time.sleep(0.3)  # the page lays out again 120 ms after a resize
        self.wait_idle()

    def check_place(self):
        from selenium.webdriver.support.ui import Select
        feed = urllib.parse.quote(self.feed)
        self.open(f"feed={feed}")
        self.scroll_to_content(self.js("return gallery.contentHeight") * 0.37 + 13.7)
        top = self.top_image()
        fragment = self.wait_hash_id(top["id"])
        moves = {}
        # A reload comes back to the very pixel (the address names the image, the history entry its offset).
        self.driver.refresh()
        self.wait_idle()
        moves["reload"] = self.expect_kept(top, "after a reload", exact=True)
        check(self.js("return location.hash") == fragment, f"after a reload the address is {self.js('return location.hash')!r}, not {fragment!r}")
        # Another column count: the saved 2-column layout and back to 5 columns.
        for layout, label in (("phone", "the 2-column layout"), ("fit", "back to fit the window")):
            Select(self.driver.find_element("css selector", "#layout")).select_by_value(layout)
            time.sleep(0.05)
            self.wait_idle()
            moves[layout] = self.expect_kept(top, f"after choosing {label}", exact=False)
        # The kind switch: justified rows and back.
        for view in ("justified", "waterfall"):
            self.driver.find_element("css selector", f'#view button[data-view="{view}"]').click()
            time.sleep(0.05)
            self.wait_idle()
            moves[view] = self.expect_kept(top, f"after switching to {view}", exact=False)
        # A narrower window (fewer columns) and back.
        try:
            self.set_width(1000)
            moves["1000 px"] = self.expect_kept(top, "after a resize to 1000 px", exact=False)
        finally:
            self.set_width(1280)
        moves["1280 px"] = self.expect_kept(top, "after a resize back to 1280 px", exact=False)
        print(f"ok: m. the image at the top ({top['id']}) stays there across a reload, a layout and kind change and a resize "
              f"(moved {', '.join(f'{k} {v:+.1f}' for k, v in moves.items())} px)")

        # A deep link: the image's top just under the pinned header.
        images, _ = self.api(f"/v1/feeds/{urllib.parse.quote(self.feed, safe='')}/images?offset=2345&limit=1")
        linked = images["images"][0]["id"]
        self.open(f"feed={feed}&id={urllib.parse.quote(str(linked))}")
        header = self.header_height()
        shown = self.tile_top(linked)
        check(shown is not None and abs(shown["top"] - header) <= TOLERANCE,
              f"the deep link #…&id={linked} shows the image at {shown} below the stage's top, not {header} (under the header)")
        check(self.top_image()["id"] == linked or abs(shown["top"] - header) <= TOLERANCE, "the deep-linked image is not at the top")
        self.expect_boxes_match(f"the deep link to {linked}")
        check(dict(urllib.parse.parse_qsl(self.js("return location.hash")[1:])).get("id") == linked, "the deep link's id left the address")
        # An unknown id: the top of the feed, a notice, no error (the locate's 404 is the answer, not a fault).
        self.allowed_log.append(lambda e: "anchor=no-such-image" in e["message"] and "404" in e["message"])
        self.open(f"feed={feed}&id=no-such-image")
        check(self.js("return gallery.mappedTop") == 0, f"an unknown id left the page at {self.js('return gallery.mappedTop')}, not the top")
        self.expect_boxes_match("after an unknown id")
        check("id=" not in self.js("return location.hash"), f"an unknown id stays in the address: {self.js('return location.hash')}")
        print(f"ok: m. a deep link (#feed=…&id={linked}) puts that image under the pinned header; an unknown id starts at the top")

    # ------------------------------------------------------------------ (n) the scrubber's dates

    DATES = r"""
      const labels = [...document.querySelectorAll('#scrubber .scrubber-date')].map((e) => { const r = e.getBoundingClientRect();
        return {text: e.textContent, kind: e.classList.contains('year') ? 'year' : 'month', date: e.dataset.date, label: e.dataset.label,
                visible: r.width > 0 && r.height > 0, top: r.top}; });
      return {labels, width: document.getElementById('scrubber').getBoundingClientRect().width,
              dated: document.body.classList.contains('has-dates')};
    """

    def click_date_label(self, text_label, index_feed):
        """Clicks the label of `text_label` ("November 2013"); the feed's top must be the image
        that `locate?date=` of that month's last minute answers, under the pinned header."""
        from selenium.webdriver.common.action_chains import ActionChains
        button = self.driver.find_element("css selector", f'#scrubber .scrubber-date[data-label="{text_label}"]')
        moment = button.get_attribute("data-date")
        ActionChains(self.driver).click(button).perform()
        time.sleep(0.05)
        self.wait_idle()
        query = self.js("return gallery.layoutQuery")
        located, _ = self.api(f"{query['base']}locate?{query['params']}date={urllib.parse.quote(moment)}")
        snapshot = self.js(self.SNAPSHOT)
        end = snapshot["contentHeight"] - snapshot["height"]
        expected = max(0, min(located["frame"]["y"] - self.header_height(), end))
        check(abs(snapshot["mappedTop"] - expected) < 0.01,
              f"{index_feed}: a click on {text_label!r} left the top at {snapshot['mappedTop']}, not {expected} "
              f"(locate?date={moment} answers {located['id']} at y {located['frame']['y']})")
        shown = self.tile_top(located["id"])
        check(shown is not None, f"after a click on {text_label!r}, image {located['id']} is not on the page")
        self.expect_boxes_match(f"after a click on {text_label!r}")
        return located, moment

    def check_dates(self):
        # COCO: every photo in November 2013, sections by day.
        self.open(f"feed={urllib.parse.quote(self.feed)}")
        dates = self.js(self.DATES)
        texts = [label["text"] for label in dates["labels"] if label["visible"]]
        check(dates["dated"] and "2013" in texts and "Nov" in texts, f"{self.feed}: the scrubber's labels are {texts}, not 2013 and Nov")
        slider = self.js(self.SLIDER)
        index = self.section_index()
        check(slider["min"] == 1 and slider["max"] == len(index["sections"]), f"{self.feed}: with dates the slider runs {slider['min']}…{slider['max']}")
        self.scroll_to_content(self.js("return gallery.contentHeight") * 0.6)
        located, moment = self.click_date_label("November 2013", self.feed)
        check(moment == "2013-11-30T23:59", f"the November label jumps to {moment}, not the month's last minute")
        coco = located["id"]

        # A feed of three years by month (Europe/Paris): every year and month labelled, a month jumps there.
        path = os.path.join(os.path.dirname(os.path.abspath(self.database)), "timeline.json")
        make_dated_feed(path)
        self.cli("import", path, "--feed", "timeline")
        self.open("feed=timeline")
        dates = self.js(self.DATES)
        years = [label["text"] for label in dates["labels"] if label["kind"] == "year" and label["visible"]]
        months = [label["label"] for label in dates["labels"] if label["kind"] == "month" and label["visible"]]
        check(years == ["2023", "2022", "2021"], f"timeline: the year labels are {years}")
        check(len(months) >= 30 and "June 2022" in months and months[0] == "December 2023",
              f"timeline: the month labels are {months}")
        tops = [label["top"] for label in dates["labels"]]
        check(tops == sorted(tops), "timeline: the labels are not in order down the track")
        located, moment = self.click_date_label("June 2022", "timeline")
        check(moment == "2022-06-30T23:59" and located["section"] == "2022-06",
              f"timeline: June 2022 jumps with {moment} to {located['id']} of section {located['section']}")
        june = located["id"]
        slider = self.js(self.SLIDER)
        check(slider["text"] == "June 2022", f"timeline: after the June label the slider says {slider['text']!r}")
        first, _ = self.api(f"/v1/feeds/timeline/images?offset={self.section_index()['sections'][slider['now'] - 1]['index']}&limit=1")
        check(first["images"][0]["id"] == located["id"], f"timeline: June's first image is {first['images'][0]['id']}, the jump went to {located['id']}")
        located, _ = self.click_date_label("2021", "timeline")
        check(located["section"] == "2021-12", f"timeline: the year 2021 jumps to section {located['section']}, not December")
        self.screenshot("gallery-dates.png")

        # A feed without dates: no labels, the plain width.
        if self.big_feed:
            self.open(f"feed={urllib.parse.quote(self.big_feed)}")
            dates = self.js(self.DATES)
            check(not dates["labels"] and not dates["dated"] and dates["width"] <= 30.5,
                  f"{self.big_feed} has no dates but the scrubber shows {dates}")
        print(f"ok: n. the scrubber labels years and months (2021-2023: {len(years)} years, {len(months)} months; {self.feed}: 2013, Nov) "
              f"and a click on a month or a year goes where locate?date= says (November 2013: {coco}; June 2022: {june})")

    # ------------------------------------------------------------------ (i) scroll amounts at depth

    def check_scroll_amounts(self):
        if not self.big_feed:
            print("skip: i. no --big-feed")
            return
        from selenium.webdriver.common.keys import Keys
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.actions.wheel_input import ScrollOrigin
        self.open(f"feed={urllib.parse.quote(self.big_feed)}")
        content = self.js("return gallery.contentHeight")
        window_height = self.js("return window.innerHeight")
        amounts = {}
        for fraction in (0.4, 0.9):
            self.scroll_to_content(content * fraction + 0.3)
            self.js("document.activeElement && document.activeElement.blur()")
            for name, act in (
                ("wheel", lambda: ActionChains(self.driver).scroll_from_origin(ScrollOrigin.from_viewport(500, 400), 0, 100).perform()),
                ("ArrowDown", lambda: ActionChains(self.driver).send_keys(Keys.ARROW_DOWN).perform()),
                ("PageDown", lambda: ActionChains(self.driver).send_keys(Keys.PAGE_DOWN).perform()),
                ("Space", lambda: ActionChains(self.driver).send_keys(Keys.SPACE).perform()),
                ("PageUp", lambda: ActionChains(self.driver).send_keys(Keys.PAGE_UP).perform()),
            ):
                before = self.js("return [gallery.mappedTop, window.scrollY]")
                act()
                time.sleep(0.1)
                self.wait_idle()
                after = self.js("return [gallery.mappedTop, window.scrollY]")
                amounts[(fraction, name)] = after[0] - before[0]
                check(after[1] != before[1] or abs(after[0] - before[0]) < 10,
                      f"{name} at {fraction:.0%}: the content moved {after[0] - before[0]} px but the scroll bar did not")
            self.expect_boxes_match(f"{self.big_feed} at {fraction:.0%} after the wheel and keys")
        for (fraction, name), moved in amounts.items():
            where = f"{name} at {fraction:.0%} of {self.big_feed}"
            if name == "wheel":
                check(abs(moved - 100) <= 2, f"{where} moved the content {moved} px, not a notch of about 100")
            elif name == "ArrowDown":
                check(20 <= moved <= 80, f"{where} moved the content {moved} px, not an arrow's 40")
            elif name == "PageUp":
                check(-window_height * 1.05 <= moved <= -window_height * 0.75, f"{where} moved the content {moved} px, not a window up")
            else:
                check(window_height * 0.75 <= moved <= window_height * 1.05, f"{where} moved the content {moved} px, not about one window ({window_height})")
        # And the scroll bar still reaches the very end (check b), the wheel there stays at the end.
        self.js("window.scrollTo(0, document.documentElement.scrollHeight)")
        time.sleep(0.1)
        self.wait_idle()
        ActionChains(self.driver).scroll_from_origin(ScrollOrigin.from_viewport(500, 400), 0, 100).perform()
        time.sleep(0.1)
        self.wait_idle()
        top = self.js("return gallery.mappedTop")
        check(abs(top - (content - self.js("return gallery.viewportHeight"))) < 0.01, f"a wheel notch at the end left the top at {top}")
        shown = {name: round(moved) for (fraction, name), moved in amounts.items() if fraction == 0.9}
        print(f"ok: i. deep in the {content:,.0f}-point feed a wheel notch, ArrowDown, Page Down, Space, Page Up move {shown} px of content")

    # ------------------------------------------------------------------ (j) the lightbox

    LIGHTBOX = r"""
      const d = document.getElementById('lightbox');
      const dialog = document.querySelector('[role="dialog"][aria-modal="true"]:not([hidden])');
      const a = document.activeElement;
      return {open: !!dialog && dialog === d, index: d.dataset.index, id: d.dataset.id || null, title: document.getElementById('lightbox-title').textContent,
              focusInside: !!dialog && dialog.contains(a), focusedId: a && a.dataset ? a.dataset.id || null : null};
    """

    def lightbox_state(self, want_open, want_id=None, timeout=5):
        deadline = time.time() + timeout
        state = None
        while time.time() < deadline:
            state = self.js(self.LIGHTBOX)
            if state["open"] == want_open and (want_id is None or state["id"] == want_id):
                return state
            time.sleep(0.05)
        raise Failure(f"the lightbox is not {'open' if want_open else 'closed'}{' on ' + want_id if want_id else ''}: {state}")

    def check_lightbox(self):
        from selenium.webdriver.common.keys import Keys
        from selenium.webdriver.common.action_chains import ActionChains
        self.open(f"feed={urllib.parse.quote(self.feed)}")
        ids, _ = self.first_ids(self.feed, 4)
        tile = self.driver.find_element("css selector", '#list .tile[data-index="1"]')
        self.js("arguments[0].focus()", tile)
        ActionChains(self.driver).send_keys(Keys.ENTER).perform()
        state = self.lightbox_state(True, ids[1])
        check(state["focusInside"], f"the lightbox opened without the focus: {state}")
        ActionChains(self.driver).send_keys(Keys.ARROW_RIGHT).perform()
        self.lightbox_state(True, ids[2])
        ActionChains(self.driver).send_keys(Keys.ARROW_RIGHT).perform()
        self.lightbox_state(True, ids[3])
        ActionChains(self.driver).send_keys(Keys.ARROW_LEFT).perform()
        self.lightbox_state(True, ids[2])
        ActionChains(self.driver).send_keys(Keys.ESCAPE).perform()
        state = self.lightbox_state(False)
        check(state["focusedId"] == ids[1], f"after Escape the focus is on {state['focusedId']}, not the image the lightbox came from ({ids[1]})")
        _, revision = self.first_ids(self.feed, 1)
        # A click opens it too; a click that was a drag does not (check c); no move was made.
        ActionChains(self.driver).click(self.driver.find_element("css selector", '#list .tile[data-index="0"]')).perform()
        self.lightbox_state(True, ids[0])
        self.screenshot("gallery-lightbox.png")
        ActionChains(self.driver).send_keys(Keys.ESCAPE).perform()
        state = self.lightbox_state(False)
        check(state["focusedId"] == ids[0], f"after a click and Escape the focus is on {state['focusedId']}, not {ids[0]}")
        _, now = self.first_ids(self.feed, 1)
        check(now == revision, "opening and closing the lightbox moved an image")
        # Deep in the 1M feed, the neighbours come from the images list.
        if self.big_feed:
            self.open(f"feed={urllib.parse.quote(self.big_feed)}")
            self.scroll_to_content(self.js("return gallery.contentHeight") * 0.77)
            tile = self.driver.find_element("css selector", "#list .tile")
            index = int(tile.get_attribute("data-index"))
            self.js("arguments[0].focus()", tile)
            ActionChains(self.driver).send_keys(Keys.ENTER).perform()
            self.lightbox_state(True, f"m{index}")
            ActionChains(self.driver).send_keys(Keys.ARROW_RIGHT).perform()
            self.lightbox_state(True, f"m{index + 1}")
            ActionChains(self.driver).send_keys(Keys.ESCAPE).perform()
            state = self.lightbox_state(False)
            check(state["focusedId"] == f"m{index}", f"deep in {self.big_feed}, after Escape the focus is on {state['focusedId']}, not m{index}")
        print("ok: j. Enter and a click open an image in a role=dialog, arrows show its neighbours, Escape closes and the focus returns")

    # ------------------------------------------------------------------ (k) the live badge

    def badge(self):
        return self.js("const b = document.getElementById('live'); return {state: b.dataset.state, text: b.textContent.trim()}")

    def check_badge(self):
        # The stream held back (its fetch never answers): connecting, not live.
        script = self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
            const realFetch = window.fetch;
            window.fetch = (input, init) => String(input).includes('/events?')
                ? new Promise((_, reject) => init && init.signal && init.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))))
                : realFetch(input, init);
        """})
        try:
            self.open(f"feed={urllib.parse.quote(self.feed)}")
            time.sleep(0.5)
            held = self.badge()
            check(held["state"] != "on" and "live" not in held["text"].lower() and "connecting" in held["text"].lower(),
                  f"with the events stream not open the badge says {held}")
        finally:
            self.driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})
        # The stream refused (blocked): offline and retrying, not live.
        self.driver.execute_cdp_cmd("Network.enable", {})
        self.driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/events?*"]})
        self.allowed_log.append(lambda e: "/events?" in e["message"] and "ERR_BLOCKED_BY_CLIENT" in e["message"])
        try:
            self.open(f"feed={urllib.parse.quote(self.feed)}")
            deadline = time.time() + 3
            blocked = self.badge()
            while time.time() < deadline and "retrying" not in blocked["text"].lower():
                time.sleep(0.05)
                blocked = self.badge()
            check(blocked["state"] != "on" and "offline" in blocked["text"].lower() and "retrying" in blocked["text"].lower(),
                  f"with the events stream blocked the badge says {blocked}")
        finally:
            self.driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
            self.driver.execute_cdp_cmd("Network.disable", {})
        # Open: live.
        self.open(f"feed={urllib.parse.quote(self.feed)}")
        deadline = time.time() + 3
        live = self.badge()
        while time.time() < deadline and live["state"] != "on":
            time.sleep(0.05)
            live = self.badge()
        check(live["state"] == "on" and live["text"] == "Live", f"with the events stream open the badge says {live}")
        print(f"ok: k. the live badge says {held['text']!r} while the stream is held, {blocked['text']!r} when it fails, {live['text']!r} once open")

    # ------------------------------------------------------------------ (l) the header fits

    HEADER_FIT = r"""
      const bar = document.getElementById('bar');
      const problems = [];
      const width = document.documentElement.clientWidth;
      for (const e of [bar, ...bar.querySelectorAll('*')]) {
        if (e.closest('[hidden]') || e.closest('svg') || e.closest('.sr-only')) continue;
        const style = getComputedStyle(e);
        if (style.display === 'none' || style.visibility === 'hidden') continue;
        const r = e.getBoundingClientRect();
        if (r.width <= 1 && r.height <= 1) continue;  // nothing, or visually hidden (a label for screen readers)
        const name = e.id || e.className || e.tagName;
        if (e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0) problems.push(`${name}: scrollWidth ${e.scrollWidth} > clientWidth ${e.clientWidth}`);
        if (r.right > width + 0.5 || r.left < -0.5) problems.push(`${name}: ${r.left}…${r.right} outside the ${width} px window`);
      }
      const meta = document.getElementById('meta');
      const shown = meta.getBoundingClientRect().width > 0 && getComputedStyle(meta).display !== 'none';
      const stage = document.getElementById('stage').getBoundingClientRect();
      return {problems, meta: meta.textContent, shown, barBottom: bar.getBoundingClientRect().bottom, stageTop: stage.top};
    """

    def check_header_fit(self):
        results = {}
        try:
            for width in (1280, 375):
                self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                            {"width": width, "height": 800, "deviceScaleFactor": 1, "mobile": False})
                feed = self.big_feed or self.feed
                self.open(f"feed={urllib.parse.quote(feed)}")
                fit = self.js(self.HEADER_FIT)
                check(not fit["problems"], f"at {width} px the header overflows: {fit['problems']}")
                check(fit["shown"] and "images" in fit["meta"] and "sections" in fit["meta"],
                      f"at {width} px the header's counts are not shown: {fit['meta']!r}")
                check(abs(fit["barBottom"] - fit["stageTop"]) < 1.5, f"at {width} px the feed starts at {fit['stageTop']}, the header ends at {fit['barBottom']}")
                results[width] = round(fit["barBottom"])
                if width == 375:
                    self.screenshot("gallery-375.png")
        finally:
            self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                        {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
        print(f"ok: l. the header fits at 1280 and 375 px wide, counts shown (header heights {results})")

    # ------------------------------------------------------------------ (o) views and share links

    def check_views_and_links(self):
        """A saved view in the view picker, drawn as its viewport answers; the share action's link
        opening the gallery read-only on the view (no key panel, no drag), boxes where the link's
        own viewport says; the link removed, the page says it answers nothing."""
        feed = self.feed
        self.cli("view", "add", "wide", "--feed", feed, "--min-aspect", "1.4")
        try:
            self.open(f"feed={urllib.parse.quote(feed)}&in=wide")
            picker = self.js("const s = document.getElementById('subset'); return {hidden: document.getElementById('subset-field').hidden,"
                             " value: s.value, options: [...s.options].map((o) => o.value)}")
            check(not picker["hidden"] and picker["value"] == "wide" and "wide" in picker["options"],
                  f"the view picker does not show the view: {picker}")
            check(self.js("return gallery.savedView") == "wide", "the page does not show the view asked for in its address")
            check(self.js("return gallery.path").endswith("/views/wide"), f"the page reads {self.js('return gallery.path')}")
            self.expect_boxes_match("a saved view")
            view_ids = [item["id"] for item in self.viewport_of(self.js(self.SNAPSHOT))["items"]]
            wide = json.loads(self.cli("images", "--feed", feed, "--view", "wide", "--limit", "5", "--json"))
            check(view_ids and wide["images"][0]["id"] in view_ids,
                  f"the view's first image {wide['images'][0]['id']} is not drawn: {view_ids[:5]}")

            # The share action makes a link and shows it
            self.driver.find_element("id", "share-button").click()
            self.driver.find_element("id", "share-make").click()
            deadline = time.time() + 10
            url = ""
            while time.time() < deadline and not url:
                url = self.js("return document.getElementById('share-result').hidden ? '' : document.getElementById('share-url').value")
                time.sleep(0.05)
            check(url.startswith(self.base + "/s/") and url.endswith("/gallery"), f"the share action shows {url!r}")
            shares = json.loads(self.cli("share", "list", "--json"))["shares"]
            made = [share for share in shares if share["feed"] == feed and share["view"] == "wide"]
            check(len(made) == 1 and made[0]["expires"], f"the link made is not listed as the view's, expiring: {shares}")

            # The link's gallery: read-only, no key, the view's boxes where the link's viewport says
            self.driver.get("about:blank")
            self.driver.get(url)
            self.wait_idle()
            page = self.js("return {path: gallery.path, readOnly: document.documentElement.dataset.readOnly,"
                           " key: document.getElementById('key-button').hidden, share: document.getElementById('share-button').hidden,"
                           " feed: document.getElementById('feed').disabled, name: gallery.feed}")
            check(page["path"] == url[len(self.base):-len("/gallery")] and page["readOnly"] == "true" and page["key"]
                  and page["share"] and page["feed"] and page["name"] == "wide", f"the link's gallery is not read-only on the view: {page}")
            snapshot, answer = self.expect_boxes_match("a share link's gallery")
            check(snapshot["query"]["base"].startswith(page["path"] + "/"), f"the link's gallery reads {snapshot['query']}")
            check([item["id"] for item in answer["items"]][:5] == view_ids[:5], "the link shows other images than the view")

            # Removed: the open page hears it from the link's event stream and says the link
            # answers nothing, within seconds, with no reload by hand
            self.allowed_log.append(lambda e: "/s/" in e["message"] and "404" in e["message"])
            self.cli("share", "remove", str(made[0]["id"]))
            deadline = time.time() + 5
            empty = ""
            while time.time() < deadline and "answers nothing" not in empty:
                empty = self.js("const e = document.getElementById('empty'); return e.hidden ? '' : e.textContent")
                time.sleep(0.05)
            check("answers nothing" in empty, f"5 s after its link was removed, the open gallery says {empty!r}")
        finally:
            self.cli("view", "remove", "wide", "--feed", feed)
        print("ok: o. a saved view in the picker; the share action's link opens it read-only, boxes as the link answers; removed, it says so")

    # ------------------------------------------------------------------ (f) the console

    def check_console(self):
        own = self.base
        problems = []
        for entry in self.driver.get_log("browser"):
            if entry["level"] not in ("SEVERE", "ERROR"):
                continue
            message = entry["message"]
            if entry.get("source") == "network" and not message.startswith(own) and "Failed to load resource: net::" in message:
                continue  # an image url of the feed that this machine cannot reach
            if any(allowed(entry) for allowed in self.allowed_log):
                continue
            problems.append(message)
        check(not problems, "console errors:\n  " + "\n  ".join(problems))
        print("ok: f. no console errors")

    def run(self, only=None):
        self.start_browser()
        try:
            if only:  # --only NAME: one check (check_NAME) and the console, while working on it
                getattr(self, f"check_{only}")()
                self.check_console()
                return
            self.check_boxes()
            self.check_justified()
            self.check_cover_flow()
            self.check_million()
            self.check_drag()
            self.check_live()
            self.check_keyboard_and_conflict()
            self.check_scrubber()
            self.check_place()
            self.check_dates()
            self.check_scroll_amounts()
            self.check_lightbox()
            self.check_badge()
            self.check_header_fit()
            self.check_views_and_links()
            self.check_console()
        finally:
            self.driver.quit()


def main(argv):
    if len(argv) == 4 and argv[1] == "--make-feed":
        make_feed(argv[2], int(argv[3]))
        return 0
    positional, options = [], {}
    it = iter(argv[1:])
    for argument in it:
        if argument.startswith("--"):
            options[argument[2:]] = next(it)
        else:
            positional.append(argument)
    if len(positional) != 3:
        print(__doc__, file=sys.stderr)
        return 64
    started = time.time()
    run = Run(*positional, feed=options.get("feed", "coco-val2017"), big_feed=options.get("big-feed", "million") or None,
              screenshots=options.get("screenshots"))
    try:
        run.run(only=options.get("only"))
    except Failure as failure:
        print(f"FAIL: {failure}")
        return 1
    print(f"all gallery checks passed in {time.time() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
