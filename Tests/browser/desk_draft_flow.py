#!/usr/bin/env python3
"""The coach's desk in a real browser: nothing of a coach's reply is lost.

Usage: desk_draft_flow.py BASE_URL LOGIN_LINK SECOND_LOGIN_LINK SCREENSHOT_DIR SUBMISSION_ID OTHER_SUBMISSION_ID MICROPHONE_WAV

Both links sign in the same coach, whose queue holds SUBMISSION_ID and OTHER_SUBMISSION_ID
(week recordings, no reply yet). Chromium's fake microphone hears MICROPHONE_WAV. Flows:
- a take recorded and notes typed: the browser's Back asks first (staying keeps the take);
  then "← Back to the queue": the page asks (the reply stays as a draft); the queue lists the recording as "draft reply"; opened again, the
  take and notes are back; a reload brings them back too;
- notes alone (no take) are a draft as well, and so is a mark's note being written (back in
  the mark form when the recording is opened again); emptied, the draft is gone;
- the session ends mid-review (signed out elsewhere): Send says so and keeps the draft;
  signed in again in another tab, Send in the first tab works without a reload (the page
  takes the new session's CSRF token): one reply with its notes, the draft removed;
- the answer to a send is lost and the page reloaded: the draft (with its Idempotency-Key)
  comes back or the reply is shown; either way one reply is stored, with its notes.
Screenshots of the queue with a draft and of the restored review at 1280x800 and 390x844.
"""
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from desk_common import browser, check, click, draft, failures, fetch, record, report, screenshots, sign_in, wait


def replies(driver, submission):
    return (fetch(driver, "GET", "/v1/submissions/" + submission)[1] or {}).get("feedback") or []


def open_review(driver, base, submission, leaving_take=False):
    """Opens `submission`'s review; `leaving_take`: the review open now has an unsent take, and
    the page asks before leaving it (it stays a draft): the question is answered yes."""
    driver.get(base + "/desk/#/review/" + submission)
    if leaving_take:
        question = wait(driver, EC.alert_is_present(), "the question before leaving a review with an unsent take")
        if question:
            check("draft" in question.text, f"the question before leaving: {question.text!r}")
            question.accept()
    wait(driver, lambda d: d.current_url.endswith("#/review/" + submission), f"the address of {submission}'s review")
    return wait(driver, lambda d: d.find_element(By.ID, "review-title").text and d.find_element(By.ID, "reply-record").is_displayed()
                and d.find_element(By.ID, "reply-record"), f"the review of {submission}")


def main(argv):
    base, link, second_link, shots, submission, other, microphone = argv[1:8]
    driver = browser(microphone=microphone)
    try:
        if not sign_in(driver, link, base):
            return report("desk draft flows")
        coach = (fetch(driver, "GET", "/desk/session")[1] or {}).get("coach_id")

        # A take and notes, then back to the queue: asked first, kept as the recording's draft.
        open_review(driver, base, submission)
        record(driver, seconds=3)
        notes = "أحسنت — mind the madd in 1:2."
        driver.find_element(By.ID, "reply-notes").send_keys(notes)
        wait(driver, lambda d: (draft(d, coach, submission) or {}).get("notes") == notes, "the take and notes kept as a draft")
        kept = draft(driver, coach, submission) or {}
        check(kept.get("bytes", 0) > 1000 and kept.get("seconds", 0) >= 3, f"the draft's take: {kept}")
        # The browser's Back asks as well (history.back() as the Back button does, from a timer: the
        # question blocks the page); staying keeps the take and the review.
        driver.execute_script("setTimeout(() => history.back(), 0)")
        if wait(driver, EC.alert_is_present(), "the question before the browser's Back leaves an unsent reply"):
            question = driver.switch_to.alert
            check("not been sent" in question.text and "draft" in question.text, f"the question before Back: {question.text!r}")
            question.dismiss()
        wait(driver, lambda d: d.current_url.endswith("#/review/" + submission), "the review's address after staying on Back")
        check(driver.find_element(By.ID, "reply-preview").is_displayed(), "the take is gone after staying on the browser's Back")
        driver.find_element(By.ID, "back").click()
        if wait(driver, EC.alert_is_present(), "the question before leaving an unsent reply"):
            question = driver.switch_to.alert
            check("not been sent" in question.text and "draft" in question.text, f"the question before leaving: {question.text!r}")
            question.accept()
        # The queue shows its last rows at once and then the ones it reads again: wait for those.
        row_selector = f"#queue-list li[data-submission='{submission}']"
        if not wait(driver, lambda d: "draft reply" in d.find_element(By.CSS_SELECTOR, row_selector).text, "the draft listed in the queue"):
            failures.append("the queue row of the draft: " + driver.execute_script(
                "return document.querySelector(arguments[0])?.innerText ?? 'none'", row_selector))
        screenshots(driver, shots, "queue-draft")

        # Opened again (from its row), the take and the notes are back; after a reload as well.
        check(click(driver, f"#queue-list li[data-submission='{submission}'] a.open"), "the draft's row is gone from the queue")
        for when in ["opened again", "reloaded"]:
            wait(driver, EC.visibility_of_element_located((By.ID, "reply-preview")), f"the draft's take, {when}")
            check((driver.find_element(By.ID, "reply-preview").get_attribute("src") or "").startswith("blob:"), f"the take is not back, {when}")
            wait(driver, lambda d: d.find_element(By.ID, "reply-notes").get_attribute("value") == notes, f"the draft's notes, {when}")
            check("back" in driver.find_element(By.ID, "reply-status").text, f"the page does not say the draft is back, {when}")
            check(driver.find_element(By.ID, "reply-record").text == "Record again", f"the record button does not offer a new take, {when}")
            if when == "opened again":
                driver.execute_script("window.scrollTo(0, 0)")
                screenshots(driver, shots, "review-draft", show="reply")
                driver.refresh()
                check(not EC.alert_is_present()(driver), "a reload asks although the reply is kept")

        # Notes alone are a draft too; emptied, the draft is gone.
        open_review(driver, base, other, leaving_take=True)
        field = driver.find_element(By.ID, "reply-notes")
        field.send_keys("Start again from 1:4")
        wait(driver, lambda d: (draft(d, coach, other) or {}).get("notes") == "Start again from 1:4", "notes alone kept as a draft")
        # A mark's note being written is kept with it (J, Back or another row would lose it).
        mark_note = "قلقلة في يلد"
        driver.find_element(By.ID, "mark-text").send_keys(mark_note)
        wait(driver, lambda d: (draft(d, coach, other) or {}).get("mark") == mark_note, "a mark being written kept with the draft")
        driver.find_element(By.ID, "back").click()
        check(not EC.alert_is_present()(driver), "leaving with notes alone asks (nothing recorded is at stake)")
        if not wait(driver, lambda d: "draft reply" in d.find_element(By.CSS_SELECTOR, f"#queue-list li[data-submission='{other}']").text,
                    "the notes' draft in the queue"):
            rows = [(r.get_attribute("data-submission"), r.text) for r in driver.find_elements(By.CSS_SELECTOR, "#queue-list li")]
            failures.append(f"the queue's rows: {rows}; the draft: {draft(driver, coach, other)}")
        open_review(driver, base, other)
        field = wait(driver, lambda d: d.find_element(By.ID, "reply-notes") if d.find_element(By.ID, "reply-notes").get_attribute("value") else None,
                     "the notes' draft back")
        check(wait(driver, lambda d: d.find_element(By.ID, "mark-text").get_attribute("value") == mark_note, "the unfinished mark back"),
              "the mark being written is not back")
        check("unfinished mark" in driver.find_element(By.ID, "mark-status").text, "the page does not say the unfinished mark is back")
        if field:
            driver.execute_script("const f = arguments[0]; f.value = ''; f.dispatchEvent(new Event('input'))", field)
            wait(driver, lambda d: (draft(d, coach, other) or {}).get("notes") == "", "the emptied notes leave the mark's draft")
            driver.execute_script("const f = document.getElementById('mark-text'); f.value = ''; f.dispatchEvent(new Event('input'))")
            wait(driver, lambda d: draft(d, coach, other) is None, "the emptied draft removed")

        # The session ends mid-review: Send says so, the draft stays. Signed in again in another
        # tab, Send here works without a reload: one reply, with its notes; the draft is gone.
        open_review(driver, base, submission)
        wait(driver, EC.visibility_of_element_located((By.ID, "reply-preview")), "the draft's take before the session ends")
        csrf = (fetch(driver, "GET", "/desk/session")[1] or {}).get("csrf_token", "")
        ended = fetch(driver, "POST", "/desk/logout", {"X-CSRF-Token": csrf})
        check(ended[0] in (200, 204, 303), f"signing out elsewhere: {ended}")
        driver.find_element(By.ID, "reply-send").click()
        wait(driver, lambda d: "session has ended" in d.find_element(By.ID, "reply-status").text, "Send to say the session ended")
        check("draft" in driver.find_element(By.ID, "reply-status").text, "Send after the session ended does not say the reply is kept")
        check((draft(driver, coach, submission) or {}).get("notes") == notes, "the draft is gone after the session ended")
        check(replies(driver, submission) == [], "a reply was stored without a session")
        first = driver.current_window_handle
        driver.switch_to.new_window("tab")
        sign_in(driver, second_link, base)
        driver.switch_to.window(first)
        driver.find_element(By.ID, "reply-send").click()
        if not wait(driver, EC.visibility_of_element_located((By.ID, "reply-sent")), "the reply stored after signing in again", seconds=60):
            failures.append("the page said: " + driver.find_element(By.ID, "reply-status").text)
        stored = wait(driver, lambda d: replies(d, submission) or None, "the reply on its submission once encoded", seconds=120) or []
        check(len(stored) == 1 and stored[0].get("notes") == notes, f"the replies after signing in again: {stored}")
        check(draft(driver, coach, submission) is None, "the draft stays after its reply is stored")

        # A send whose answer is lost, then a reload: one reply, with its notes.
        open_review(driver, base, other)
        record(driver, seconds=3)
        driver.find_element(By.ID, "reply-notes").send_keys("Lost on the way back")
        driver.execute_script("""
            const open = XMLHttpRequest.prototype.open, send = XMLHttpRequest.prototype.send;
            XMLHttpRequest.prototype.open = function (method, url, ...rest) { this.lostUrl = url; return open.call(this, method, url, ...rest); };
            XMLHttpRequest.prototype.send = function (body) {
              if (String(this.lostUrl).includes('/feedback')) {
                Object.defineProperty(this, 'status', {get: () => 0});
                Object.defineProperty(this, 'responseText', {get: () => ''});
              }
              return send.call(this, body);
            };""")
        driver.find_element(By.ID, "reply-send").click()
        wait(driver, lambda d: "send again" in d.find_element(By.ID, "reply-status").text.lower(), "the desk to offer sending again")
        check((draft(driver, coach, other) or {}).get("keys") == 1, "the draft does not keep the send's Idempotency-Key")
        driver.refresh()
        back = wait(driver, lambda d: d.find_element(By.ID, "reply-sent").is_displayed() or d.find_element(By.ID, "reply-preview").is_displayed(),
                    "the stored reply or the draft after the reload")
        if back and driver.find_element(By.ID, "reply-preview").is_displayed():
            driver.find_element(By.ID, "reply-send").click()
            wait(driver, EC.visibility_of_element_located((By.ID, "reply-sent")), "the reply sent again after the reload", seconds=60)
        stored = wait(driver, lambda d: (lambda r: r if r and r[0].get("notes") else None)(replies(d, other)),
                      "the lost send's reply with its notes", seconds=120) or replies(driver, other)
        check(len(stored) == 1 and stored[0].get("notes") == "Lost on the way back", f"the replies after the lost answer: {stored}")
        wait(driver, lambda d: draft(d, coach, other) is None, "the draft removed once its reply is stored")
    finally:
        driver.quit()
    return report("desk draft flows")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
