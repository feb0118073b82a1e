#!/usr/bin/env python3
"""The coach's desk on a laptop without an Arabic Quran font: the passage still reads.

Usage: desk_font_flow.py BASE_URL LOGIN_LINK SCREENSHOT_DIR SUBMISSION_ID OPENINGS_SUBMISSION_ID

Chromium runs with a fontconfig that knows only DejaVu (no Amiri, no Noto: DejaVu has basic
Arabic letters but not the Quran's marks). SUBMISSION_ID's week recites Al-Fatiha. Checked:
- the desk's own font (Amiri Quran, `/desk/assets/AmiriQuran.ttf`, under `font-src 'self'`)
  is fetched and loaded;
- every character of every ayah shown is drawn by it: none renders as the font's "missing
  glyph" box (each character's pixels compared with those of a private-use character);
- the control: with the system's fonts alone (`serif`), some of those characters are boxes
  (so the check above can fail on this machine).
OPENINGS_SUBMISSION_ID recites 112:1-4 after the isti'adha and the basmala (its markers say
so): the list names each opening ("Isti'adha before 112:1", "Basmala before 112:1"), shows
the basmala once (not again above 112:1), and the mark form offers the two apart. It ran 112:3
into 112:2 (no time of its own): 112:3 is listed in its place as not found, without a loop
(the help line says each ayah with a marker can be looped), and Shift+→ from 112:2 goes to 112:4.
Screenshots of both passages at 1280x800 and 390x844.
"""
import os
import sys
import tempfile

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from desk_common import browser, check, failures, report, screenshots, sign_in, wait

FONTS_CONF = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <dir>/usr/share/fonts/truetype/dejavu</dir>
  <cachedir>{cache}</cachedir>
</fontconfig>
"""

# For each distinct character of the ayahs: its pixels in `family` at 40 px, compared with the
# pixels of U+E000 (a private-use character no font here draws: the missing-glyph box).
BOXES = """const [family, done] = arguments;
  document.fonts.load(`40px ${family}`).then(() => {
    const text = [...document.querySelectorAll('#ayah-list .verse, #ayah-list .basmala')].map((n) => n.textContent).join('');
    const chars = [...new Set([...text])].filter((c) => c.trim() && c !== '\\u200f');
    const canvas = document.createElement('canvas');
    canvas.width = 80; canvas.height = 80;
    const ctx = canvas.getContext('2d', {willReadFrequently: true});
    const pixels = (c) => {
      ctx.clearRect(0, 0, 80, 80);
      ctx.font = `40px ${family}`;
      ctx.fillStyle = '#000';
      ctx.fillText(c, 20, 55);
      return Array.from(ctx.getImageData(0, 0, 80, 80).data).join(',');
    };
    const box = pixels('\\ue000');
    done({count: chars.length, boxes: chars.filter((c) => pixels(c) === box).map((c) => 'U+' + c.codePointAt(0).toString(16).toUpperCase())});
  });"""


def main(argv):
    base, link, shots, submission, openings = argv[1:6]
    with tempfile.TemporaryDirectory() as folder:
        conf = os.path.join(folder, "fonts.conf")
        with open(conf, "w") as file:
            file.write(FONTS_CONF.format(cache=os.path.join(folder, "cache")))
        driver = browser(env={**os.environ, "FONTCONFIG_FILE": conf})
        try:
            if not sign_in(driver, link, base):
                return report("desk font flow")
            driver.get(base + "/desk/#/review/" + submission)
            wait(driver, EC.visibility_of_element_located((By.CSS_SELECTOR, "#ayah-list .verse")), "the passage's ayahs")
            loaded = wait(driver, lambda d: d.execute_script(
                "return [...document.fonts].some((f) => f.family.replace(/[\"']/g, '') === 'Tilawa Quran' && f.status === 'loaded')"),
                "the desk's Quran font loaded")
            check(loaded, "the desk's Quran font never loads")
            fetched = driver.execute_script(
                "return performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.endsWith('/desk/assets/AmiriQuran.ttf'))")
            check(len(fetched) == 1, f"the font was not fetched from the desk (fetched: {fetched})")
            ours = driver.execute_async_script(BOXES, '"Tilawa Quran"')
            check(ours["count"] > 20 and not ours["boxes"], f"characters drawn as boxes with the desk's font: {ours}")
            system = driver.execute_async_script(BOXES, "serif")
            check(system["boxes"], f"the control: the system's fonts alone draw every character ({system}); this check could not fail here")
            print(f"{ours['count']} characters; with the system's fonts alone {len(system['boxes'])} are boxes: {' '.join(system['boxes'])}")
            driver.execute_script("document.getElementById('ayahs-section').scrollIntoView()")
            screenshots(driver, shots, "passage-bundled-font", show="ayahs-section")

            # The openings of 112, recited before its first ayah: each named, the basmala once.
            driver.get(base + "/desk/#/review/" + openings)
            wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#ayah-list li")) == 6, "the isti'adha, the basmala and 112:1-4 listed")
            names = [item.find_element(By.CSS_SELECTOR, ".ref").text for item in driver.find_elements(By.CSS_SELECTOR, "#ayah-list li")]
            check(names == ["Isti'adha before 112:1", "Basmala before 112:1", "112:1", "112:2", "112:3", "112:4"], f"the openings' names: {names}")
            shown = driver.find_element(By.ID, "ayah-list").text
            check(shown.count("بِسْمِ") == 1, f"the basmala is shown {shown.count('بِسْمِ')} times")
            options = {option.text: option.get_attribute("value") for option in driver.find_elements(By.CSS_SELECTOR, "#mark-ayah option")}
            check("Isti'adha before 112:1" in options and "Basmala before 112:1" in options
                  and options["Isti'adha before 112:1"] != options["Basmala before 112:1"], f"the mark form's ayahs: {options}")
            check(driver.find_element(By.CSS_SELECTOR, "#ayah-list li .ayah-loop").get_attribute("aria-label") == "Loop ayah Isti'adha before 112:1",
                  "the first loop button does not name what it loops")
            rows = driver.find_elements(By.CSS_SELECTOR, "#ayah-list li")
            check(rows[4].find_elements(By.CSS_SELECTOR, ".not-found") and not rows[4].find_elements(By.CSS_SELECTOR, ".ayah-loop"),
                  "112:3, run into 112:2, is not listed as not found (or is offered a loop)")
            check(len(driver.find_elements(By.CSS_SELECTOR, "#ayah-list .ayah-loop")) == 5, "a loop for each ayah with times")
            help_line = driver.find_element(By.ID, "ayah-times").text
            check("each ayah with a marker can be looped" in help_line, f"the help line promises a loop for the ayah not found: {help_line!r}")
            step = driver.execute_async_script("""const done = arguments[arguments.length - 1];
                Promise.all([import('/desk/assets/ayahs.js'), fetch('/v1/submissions/' + arguments[0], {credentials: 'same-origin'}).then((r) => r.json())])
                  .then(([m, s]) => done([m.ayahStep(s.ayahs, 7.0, 1), m.ayahStep(s.ayahs, 9.8, -1), m.ayahAt(s.ayahs, 9.0)]))
                  .catch((e) => done(String(e)));""", openings)
            check(step == [9.7, 6.8, 3], f"Shift+→ from 112:2 and Shift+← from 112:4 over the ayah without times, and the ayah at 9.0 s: {step}")
            ours = driver.execute_async_script(BOXES, '"Tilawa Quran"')
            check(not ours["boxes"], f"characters of 112 and its openings drawn as boxes: {ours}")
            driver.execute_script("document.getElementById('ayahs-section').scrollIntoView()")
            screenshots(driver, shots, "passage-openings", show="ayahs-section")
        finally:
            driver.quit()
    return report("desk font flow")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
