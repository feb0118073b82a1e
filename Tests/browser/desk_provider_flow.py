#!/usr/bin/env python3
"""The coach's desk in a real browser: signing in with the organisation's identity provider.

Usage: desk_provider_flow.py BASE_URL SCREENSHOT_DIR PROVIDER_NAME

The daemon's `oidc.desk_client_id` is set and the test's provider signs in coach C01 at once.
Flow: the desk, signed out, offers "Sign in with PROVIDER_NAME" and (`desk.link_request`)
asking for a new link: C01 asks, and the page answers its one sentence (the link itself goes to
the webhook, never here); then pressing the provider's button goes to the provider and back,
and the queue shows, signed in as C01. Screenshots of the signed-out page at 1280x800 and
390x844.
"""
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC

from desk_common import browser, check, keys, report, screenshots, wait


def main(argv):
    base, shots, name = argv[1:4]
    driver = browser()
    try:
        driver.get(base + "/desk/")
        link = wait(driver, EC.visibility_of_element_located((By.ID, "signin-provider-link")), "the provider's sign-in button")
        if link:
            check(link.text == f"Sign in with {name}", f"the button says {link.text!r}")
            who = wait(driver, EC.visibility_of_element_located((By.ID, "link-request-who")), "the request for a new link")
            if who:
                who.send_keys("C01")
                who.send_keys(Keys.ENTER)
                answered = wait(driver, lambda d: "organisation has been asked" in d.find_element(By.ID, "link-request-status").text,
                                "the answer to the request for a new link")
                status = driver.find_element(By.ID, "link-request-status").text
                check(answered and "token" not in status and "/desk/login" not in status, f"the page's answer: {status!r}")
            screenshots(driver, shots, "signed-out-provider")
            # With the keyboard: to the button, Enter.
            driver.execute_script("arguments[0].focus()", link)
            keys(driver, Keys.ENTER)
        wait(driver, EC.visibility_of_element_located((By.ID, "queue")), "the queue after signing in with the provider")
        wait(driver, lambda d: "Signed in as" in d.find_element(By.ID, "who").text, "who is signed in")
        session = driver.execute_async_script("""const done = arguments[0];
            fetch('/desk/session', {credentials: 'same-origin'}).then((r) => r.json()).then(done).catch((e) => done({error: String(e)}));""")
        check(session.get("coach_id") == "C01", f"the session after the provider's sign-in: {session}")
    finally:
        driver.quit()
    return report("desk provider sign-in flow")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
