"""Checks of desk_flow.py's (its fixtures: the coach's queue holds the oldest recording, of
Aisha Rahman, received Sunday 22 November 2026 10:00 in New York and due 48 h later): the queue
row's times in their formats and exact values, and the sentences while the queue or a recording
loads."""
import re
from datetime import datetime
from zoneinfo import ZoneInfo

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from desk_common import check, click, failures, fetch, held, hold, release, screenshots, unhold, wait

# The programme's zone (config/program.yaml); a queue row's times are the browser's zone's (the coach's).
PROGRAMME_ZONE = "America/New_York"
WEEKDAY = "(Mon|Tue|Wed|Thu|Fri|Sat|Sun)"
ROW_TIMES = {
    "due": re.compile(rf"^due {WEEKDAY} \d\d:\d\d$"),
    "arrived": re.compile(rf"^arrived {WEEKDAY} \d{{1,2}} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d\d:\d\d$"),
    "length": re.compile(r"^· \d+:\d\d long$"),
}


def clock(seconds):
    """A length as the desk writes it (player.js's clock): m:ss, or h:mm:ss from an hour."""
    total = int(seconds) if seconds and seconds > 0 else 0
    hours, minutes, rest = total // 3600, total % 3600 // 60, total % 60
    return f"{hours}:{minutes:02d}:{rest:02d}" if hours else f"{minutes}:{rest:02d}"


def row_times(driver, oldest):
    """The oldest recording's row in a browser set to the programme's zone: its due time, its
    arrival and its length, each in its format and exactly the queue route's value."""
    driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": PROGRAMME_ZONE})
    try:
        driver.refresh()
        shown = wait(driver, lambda d: d.execute_script("""const row = document.querySelector(arguments[0]);
            return row && {due: row.querySelector('.due time').textContent, arrived: row.querySelector('.arrived time').textContent,
                           length: row.querySelector('.arrived').lastChild.textContent.trim()};""", f"#queue-list li[data-submission='{oldest}']"),
            "the oldest recording's row in the programme's zone")
        coach = (fetch(driver, "GET", "/desk/session")[1] or {}).get("coach_id", "")
        items = (fetch(driver, "GET", f"/v1/coaches/{coach}/queue")[1] or {}).get("items") or []
    finally:
        driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": ""})
    item = next((entry for entry in items if entry["submission"]["id"] == oldest), None)
    if not shown or item is None:
        failures.append(f"the oldest recording's row: {shown}; in the queue route: {item is not None}")
        return
    for name, pattern in ROW_TIMES.items():
        check(pattern.match(shown[name]), f"the row's {name} is not in its format: {shown[name]!r}")
    zone = ZoneInfo(PROGRAMME_ZONE)
    due = datetime.fromisoformat(item["due_at"]).astimezone(zone)
    arrived = datetime.fromisoformat(item["submission"]["received_at"]).astimezone(zone)
    expected = {"due": f"due {due:%a %H:%M}", "arrived": f"arrived {arrived:%a} {arrived.day} {arrived:%b %H:%M}",
                "length": f"· {clock(item['submission']['duration_seconds'])} long"}
    check(shown == expected, f"the row says {shown}, not {expected} (due {item['due_at']}, received {item['submission']['received_at']})")


def loading_flow(driver, shots, oldest):
    """While the queue or a recording loads, the page says so in a sentence, never a blank page or
    an error, and what loads takes its place. The server's answers are held in the page until the
    flow releases them (desk_common.hold): a server as slow as the flow needs, nothing to race."""
    def says(element, sentence, what):
        shown = wait(driver, lambda d: d.find_element(By.ID, element).is_displayed() and d.find_element(By.ID, element).text,
                     f"the sentence while {what} loads")
        check(shown == sentence, f"while {what} loads the page says {shown!r}, not {sentence!r}")

    queue = hold(driver, r"/v1/coaches/[^/]+/queue$", every_page=True)
    try:
        # The desk opened afresh: "Loading the queue…" until the queue is read, then its rows.
        driver.refresh()
        wait(driver, lambda d: held(d) >= 1, "the desk to ask for its queue")
        says("loading", "Loading the queue…", "the queue")
        check(not driver.find_element(By.ID, "queue").is_displayed(), "an empty queue is shown while it loads")
        screenshots(driver, shots, "queue-loading")
        release(driver)
        wait(driver, EC.visibility_of_element_located((By.CSS_SELECTOR, "#queue-list li")), "the queue's rows after it loads")
        check(not driver.find_element(By.ID, "loading").is_displayed(), "the loading sentence stays beside the queue")

        # A recording opened from the queue: the student at once, "Loading the recording…" until it is read.
        hold(driver, "/v1/submissions/" + re.escape(oldest) + "$")
        click(driver, f"#queue-list li[data-submission='{oldest}'] a.open")
        wait(driver, lambda d: held(d) >= 1, "the review to ask for the recording")
        says("review-loading", "Loading the recording…", "the recording")
        check(driver.find_element(By.ID, "review-title").text == "Aisha Rahman", "the review does not name the student while it loads")
        check(not driver.find_element(By.ID, "review-body").is_displayed() and not driver.find_element(By.ID, "review-error").is_displayed(),
              "the review shows its body or an error while the recording loads")
        screenshots(driver, shots, "review-loading")
        release(driver)
        wait(driver, EC.visibility_of_element_located((By.ID, "review-body")), "the review after the recording loads")
        check(not driver.find_element(By.ID, "review-loading").is_displayed(), "the loading sentence stays beside the review")

        # A review's address opened afresh reads the queue first (it names the student): the page says it loads the recording.
        driver.refresh()
        wait(driver, lambda d: held(d) >= 1, "the review's address to ask for the queue")
        says("loading", "Loading the recording…", "a review's address")
        release(driver)
        wait(driver, EC.visibility_of_element_located((By.ID, "review-body")), "the review opened afresh after it loads")
        check(not driver.find_element(By.ID, "loading").is_displayed(), "the loading sentence stays beside the review opened afresh")
    finally:
        unhold(driver, queue)
