"""A student's export, unzipped: index.html opened from the folder (file://, offline) in headless
Chromium plays its first recording. Usage: export_play.py FOLDER SCREENSHOTS"""
import os
import sys

from desk_common import browser, check, report, screenshots, wait


def main(folder, shots):
    driver = browser()
    try:
        driver.get("file://" + os.path.abspath(os.path.join(folder, "index.html")))
        check("recitations" in driver.title, f"the page's title names the recitations: {driver.title!r}")
        count = driver.execute_script("return document.querySelectorAll('audio').length")
        check(count >= 2, f"a player for the recording and one for the reply ({count})")
        driver.execute_script("window.playing = document.querySelector('audio'); window.playing.play().catch(e => window.failed = String(e));")
        wait(driver, lambda d: d.execute_script("return window.playing.currentTime > 0.5 || !!window.failed"), "the recording to play")
        failed = driver.execute_script("return window.failed || null")
        check(failed is None, f"play() refused: {failed}")
        check(driver.execute_script("return window.playing.currentTime") > 0.5, "the recording's time moves")
        check(driver.execute_script("return window.playing.currentSrc.endsWith('.ogg') || window.playing.currentSrc.endsWith('.m4a')"),
              "it plays a file from the archive")
        screenshots(driver, shots, "export")
    finally:
        driver.quit()
    return report("export_play")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
