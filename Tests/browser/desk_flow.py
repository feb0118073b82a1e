#!/usr/bin/env python3
"""The coach's desk in a real browser: Debian's headless Chromium driven by Selenium.

Usage: desk_flow.py BASE_URL LOGIN_LINK OTHER_COACH_LINK SCREENSHOT_DIR

Flows, each asserted (exit 1 with one line per failure):
- the login link opens a page with a button; the button signs in and lands on /desk/ with the
  coach's queue (the student's recording listed);
- the whole sign-in and sign-out done with the keyboard alone (Tab, Enter);
- the session cookie is HttpOnly (the page's script cannot read it);
- a used link is refused; sign-out ends the session (the desk shows it is signed out);
- another coach's session does not list the first coach's student.
Screenshots of each screen at 1280x800 and 390x844 go to SCREENSHOT_DIR.
"""
import os
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--lang=en-US",
                     "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream"]:
        options.add_argument(argument)
    # Debian's chromedriver, never Selenium Manager (which would try the network).
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def screenshots(driver, directory, name):
    for label, (width, height) in SIZES.items():
        driver.set_window_size(width, height)
        time.sleep(0.2)  # let the layout settle after the resize (not a timing assertion)
        driver.save_screenshot(os.path.join(directory, f"{name}-{label}.png"))
    driver.set_window_size(*SIZES["desktop"])


def wait(driver, condition, what, seconds=30):
    try:
        return WebDriverWait(driver, seconds).until(condition)
    except Exception:
        failures.append(f"timed out waiting for {what} (at {driver.current_url})")
        return None


def main(argv):
    base, link, other_link, shots = argv[1], argv[2], argv[3], argv[4]
    os.makedirs(shots, exist_ok=True)
    driver = browser()
    try:
        # The link opens a page; nothing is spent until the button.
        driver.get(link)
        button = wait(driver, EC.element_to_be_clickable((By.CSS_SELECTOR, "form button[type=submit]")), "the sign-in button")
        screenshots(driver, shots, "signin")
        # Keyboard alone: Tab to the button, Enter.
        body = driver.find_element(By.TAG_NAME, "body")
        body.send_keys(Keys.TAB)
        check(driver.switch_to.active_element == button, "Tab does not reach the sign-in button")
        driver.switch_to.active_element.send_keys(Keys.ENTER)
        wait(driver, EC.url_to_be(base + "/desk/"), "the desk after signing in")
        wait(driver, EC.visibility_of_element_located((By.CSS_SELECTOR, "#queue-list li")), "the first queue row")
        rows = driver.find_elements(By.CSS_SELECTOR, "#queue-list li")
        check(len(rows) >= 1, "the queue lists no recording")
        check(any("Aisha" in row.text for row in rows), "the queue does not name the student (Aisha Rahman)")
        check("Signed in as" in driver.find_element(By.ID, "who").text, "the desk does not say who is signed in")
        check(driver.execute_script("return document.cookie").find("tilawa_desk") < 0, "the session cookie is readable by script")
        screenshots(driver, shots, "queue")

        # The link is spent: opening it again and pressing the button is refused.
        driver.get(link)
        again = wait(driver, EC.element_to_be_clickable((By.CSS_SELECTOR, "form button[type=submit]")), "the sign-in button again")
        if again:
            again.click()
            wait(driver, EC.presence_of_element_located((By.CSS_SELECTOR, "[role=alert]")), "the refusal of a used link")
            check("used already" in driver.page_source, "a used link is not refused as used")
            screenshots(driver, shots, "used-link")

        # Sign out with the keyboard: focus the button, Enter.
        driver.get(base + "/desk/")
        signout = wait(driver, EC.element_to_be_clickable((By.ID, "signout")), "the sign-out button")
        if signout:
            driver.execute_script("arguments[0].focus()", signout)
            driver.switch_to.active_element.send_keys(Keys.ENTER)
            wait(driver, EC.visibility_of_element_located((By.ID, "signedout")), "the signed-out notice")
            driver.refresh()
            wait(driver, EC.visibility_of_element_located((By.ID, "signedout")), "still signed out after a reload")
            screenshots(driver, shots, "signed-out")

        # Another coach: a session of their own does not list the first coach's student.
        driver.delete_all_cookies()
        driver.get(other_link)
        other = wait(driver, EC.element_to_be_clickable((By.CSS_SELECTOR, "form button[type=submit]")), "the other coach's button")
        if other:
            other.click()
            wait(driver, EC.visibility_of_element_located((By.ID, "queue")), "the other coach's desk")
            wait(driver, EC.visibility_of_element_located((By.ID, "queue-empty")), "the other coach's empty queue")
            check(all("Aisha" not in row.text for row in driver.find_elements(By.CSS_SELECTOR, "#queue-list li")),
                  "another coach's desk lists the first coach's student")
    finally:
        driver.quit()
    for failure in failures:
        print("FAIL " + failure)
    print(f"desk flows: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
