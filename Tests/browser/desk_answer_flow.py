#!/usr/bin/env python3
"""The coach's desk in a real browser: an answer to a student's question is never lost.

Usage: desk_answer_flow.py BASE_URL LOGIN_LINK SCREENSHOT_DIR SUBMISSION_ID

SUBMISSION_ID has the coach's reply (encoded) and under it the student's open question, in
Arabic with Latin punctuation. Flows, each asserted:
- the queue lists the open question, its quote dir="auto" and read right to left; its row
  opens the recording's review, whose thread shows the question (dir="auto", right to left);
- an answer being typed is kept as the recording's draft in the browser (IndexedDB, with the
  reply's drafts); "← Back to the queue" leaves without asking (nothing recorded is at stake);
  opened again from the question's row, and after a reload, the answer is back in its field
  and the page says so;
- Send answer: the page says it is sent, the field is empty, the answer is in the thread
  (dir="auto", right to left) and on the reply, the question is no longer open, and the draft is gone.
Screenshots of the restored answer and of the answered thread at 1280x800 and 390x844.
"""
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from desk_common import browser, check, click, draft, failures, fetch, report, screenshots, sign_in, wait

ANSWER = "ست حركات: مد لازم (madd lazim, 6 counts)."


def right_to_left(driver, node):
    """Whether `node` is laid out right to left (its `dir`, or for dir="auto" its own text)."""
    return driver.execute_script("""const node = arguments[0];
        try { return node.matches(':dir(rtl)'); } catch { return getComputedStyle(node).direction === 'rtl'; }""", node)


def thread(driver, submission):
    """The comments under `submission`'s reply, as the API lists them."""
    replies = (fetch(driver, "GET", "/v1/submissions/" + submission)[1] or {}).get("feedback") or [{}]
    return replies[0].get("comments") or []


def main(argv):
    base, link, shots, submission = argv[1:5]
    driver = browser()
    try:
        if not sign_in(driver, link, base):
            return report("desk answer flows")
        coach = (fetch(driver, "GET", "/desk/session")[1] or {}).get("coach_id")
        asked = [c for c in thread(driver, submission) if c.get("author") == "student"]
        if not asked or not asked[0].get("text"):
            failures.append(f"the recording has no student's question to answer: {thread(driver, submission)}")
            return report("desk answer flows")
        question = asked[0]["text"]

        # The open question in the queue, quoted as typed and read right to left; its row opens the review.
        row = f"#question-list li[data-submission='{submission}']"
        quote = wait(driver, EC.visibility_of_element_located((By.CSS_SELECTOR, row + " .question-text")), "the open question in the queue")
        if quote:
            check(question in quote.text, f"the queue quotes {quote.text!r}, not the question")
            check(quote.get_attribute("dir") == "auto" and right_to_left(driver, quote), "the queue's quote of an Arabic question is not dir=auto, right to left")
        check(click(driver, row + " a.open"), "the open question's row has no link to its recording")
        wait(driver, lambda d: d.current_url.endswith("#/review/" + submission), "the review opened from the question's row")
        shown = wait(driver, EC.visibility_of_element_located((By.CSS_SELECTOR, "#thread li.question p")), "the question in the reply's thread")
        if shown:
            check(shown.text == question, f"the thread shows {shown.text!r}, not the question")
            check(shown.get_attribute("dir") == "auto" and right_to_left(driver, shown), "the question in the thread is not dir=auto, right to left")
        field = wait(driver, EC.visibility_of_element_located((By.ID, "answer-text")), "the answer field under the reply")
        if not field:
            return report("desk answer flows")

        # An answer typed and not sent is the recording's draft; leaving asks nothing.
        field.send_keys(ANSWER)
        wait(driver, lambda d: (draft(d, coach, submission) or {}).get("answer") == ANSWER, "the unsent answer kept as the recording's draft")
        driver.find_element(By.ID, "back").click()
        check(not EC.alert_is_present()(driver), "leaving an unsent answer asks (it is kept as a draft)")
        wait(driver, EC.visibility_of_element_located((By.CSS_SELECTOR, row + " a.open")), "the question's row after leaving the review")

        # Opened again from the question's row, then reloaded: the answer is back each time.
        check(click(driver, row + " a.open"), "the open question's row is gone from the queue")
        for when in ["opened again", "reloaded"]:
            wait(driver, lambda d: d.current_url.endswith("#/review/" + submission), f"the review's address, {when}")
            wait(driver, lambda d: d.find_element(By.ID, "answer-text").get_attribute("value") == ANSWER, f"the unsent answer back, {when}")
            # The sentence follows the field's value (the draft is read, then said): waited for, not read once.
            wait(driver, lambda d: "unsent answer is back" in d.find_element(By.ID, "answer-status").text,
                 f"the page saying the answer is back, {when}")
            if when == "opened again":
                driver.execute_script("window.scrollTo(0, 0)")
                screenshots(driver, shots, "review-answer-draft", show="reply")
                driver.refresh()
                check(not EC.alert_is_present()(driver), "a reload asks although the answer is kept")

        # Sent: in the thread and on the reply, the question answered, the draft gone.
        driver.find_element(By.CSS_SELECTOR, "#answer-form button[type=submit]").click()
        wait(driver, lambda d: "Answer sent" in d.find_element(By.ID, "answer-status").text, "the answer sent")
        check(driver.find_element(By.ID, "answer-text").get_attribute("value") == "", "the answer field still holds the sent answer")
        given = wait(driver, lambda d: next((p for p in d.find_elements(By.CSS_SELECTOR, "#thread li.answer p") if p.text == ANSWER), None),
                     "the answer in the thread")
        if given:
            check(given.get_attribute("dir") == "auto" and right_to_left(driver, given), "the answer in the thread is not dir=auto, right to left")
        check(not driver.find_elements(By.CSS_SELECTOR, "#thread li.question .tag"), "the question is still shown as open")
        answers = [c for c in thread(driver, submission) if c.get("author") == "coach"]
        check(len(answers) == 1 and answers[0].get("text") == ANSWER, f"the answers on the reply: {answers}")
        questions = (fetch(driver, "GET", f"/v1/coaches/{coach}/queue")[1] or {}).get("questions")
        check(questions == [], f"the coach's open questions after the answer: {questions}")
        wait(driver, lambda d: draft(d, coach, submission) is None, "the draft removed once the answer is sent")
        screenshots(driver, shots, "review-answered", show="reply")
    finally:
        driver.quit()
    return report("desk answer flows")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
