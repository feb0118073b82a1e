// The waveform: the recording's stored peaks (BBC audiowaveform JSON, version 2) drawn on two
// canvases over one player — an overview of the whole recording and a zoom view of a few
// seconds around the playhead — with segments (an A–B loop, aligned ayahs) and points
// (annotations) given as data, as BBC's peaks.js does. Its own code, not peaks.js.
//
// The overview's wrapper is the ARIA slider (role="slider" in the page): focusable, its value
// the position in whole seconds ("0:30 of 2:00"), ←/→ (and ↓/↑) 5 s, PageUp/PageDown 30 s,
// Home/End. Shift+arrows are left to the page (previous/next ayah). Click or drag to seek.
// A point given an `id` (a mark) is dragged by its marker along the top, in either view, as
// peaks.js's editable points are: `onPointMove(id, seconds)` once it is let go.
// Crisp on HiDPI screens (drawn in device pixels) and redrawn when the layout resizes it.
// The arithmetic is waveform-model.js's, the drawing waveform-draw.js's.
import { outlineWindow, paint, waveColors } from "./waveform-draw.js";
import { firstZoom, followWindow, parsePeaks, pointNear, sliderTarget, sliderValue, ZOOM_SECONDS } from "./waveform-model.js";

export class Waveform {
  #slider; #overview; #zoomview; #onSeek;
  #peaks = null;
  #duration = 0;
  #time = 0;
  #segments = [];
  #points = [];
  #zoom = 1;
  #windowStart = 0;
  #colors = {};
  #observer;
  #dragging = false;
  #pointDrag = null;
  #onPointMove;
  #shownValue = null;

  /**
   * `slider`: the overview canvas's wrapper (role="slider", tabindex="0"); `overview`,
   * `zoomview`: the canvases; `onSeek(seconds)`: where a click, drag or key asks to go;
   * `signal`: ends its listeners (the elements outlive one review).
   */
  constructor({ slider, overview, zoomview, onSeek, onPointMove = () => {}, signal }) {
    this.#slider = slider;
    this.#overview = overview;
    this.#zoomview = zoomview;
    this.#onSeek = onSeek;
    this.#onPointMove = onPointMove;
    this.#observer = new ResizeObserver(() => this.#resize());
    this.#observer.observe(slider);
    this.#observer.observe(zoomview);
    const on = (target, type, handler) => target.addEventListener(type, handler, { signal });
    on(slider, "keydown", (event) => this.#key(event));
    on(overview, "pointerdown", (event) => this.#pressPoint(event, overview) || this.#press(event));
    on(overview, "pointermove", (event) => this.#dragPoint(event, overview) || this.#drag(event));
    on(overview, "pointerup", (event) => this.#releasePoint(event, overview) || this.#release(event));
    on(overview, "pointercancel", (event) => this.#releasePoint(event, overview, true) || this.#release(event));
    on(zoomview, "pointerdown", (event) => {
      if (this.#pressPoint(event, zoomview) || event.button !== 0 || !this.#duration) return;
      event.preventDefault();
      slider.focus();
      const span = this.zoomSeconds();
      this.#onSeek(this.#windowStart + this.#fraction(event, zoomview) * span);
    });
    on(zoomview, "pointermove", (event) => this.#dragPoint(event, zoomview));
    on(zoomview, "pointerup", (event) => this.#releasePoint(event, zoomview));
    on(zoomview, "pointercancel", (event) => this.#releasePoint(event, zoomview, true));
    signal?.addEventListener("abort", () => this.#observer.disconnect());
    this.#watchPixelRatio(signal);
  }

  destroy() { this.#observer.disconnect(); }

  setPeaks(json) {
    this.#peaks = parsePeaks(json);
    if (!this.#duration) this.#setDuration(this.#peaks.min.length * this.#peaks.secondsPerPeak);
    this.#announce();
    this.#draw();
  }

  setDuration(seconds) {
    if (!(seconds > 0) || Math.abs(seconds - this.#duration) < 1e-3) return;
    this.#setDuration(seconds);
    this.#announce();
    this.#draw();
  }

  get duration() { return this.#duration; }

  /** A first duration also picks the zoom: the widest span that still shows a third of the recording or less. */
  #setDuration(seconds) {
    const first = !this.#duration;
    this.#duration = seconds;
    if (first) {
      this.#zoom = firstZoom(seconds);
      this.#follow();
    }
  }

  setTime(seconds) {
    this.#time = seconds;
    this.#follow();
    this.#announce();
    this.#draw();
  }

  /** `[{startTime, endTime, labelText, kind}]` (peaks.js's segment fields): bands behind the waveform (`kind` "loop" or "ayah", styled apart). */
  setSegments(segments) { this.#segments = segments; this.#draw(); }

  /** `[{time, labelText, id?}]` (peaks.js's point fields): marks along the top (annotations); one with an `id` can be dragged. */
  setPoints(points) {
    if (this.#pointDrag) return; // the drag in progress is drawn; the new list comes with its end
    this.#points = points.map((point) => ({ ...point }));
    this.#draw();
  }

  /** The zoom view's span in seconds. */
  zoomSeconds() { return ZOOM_SECONDS[this.#zoom]; }

  /** Zoom in (-1: fewer seconds) or out (+1); returns the new span. */
  zoom(direction) {
    this.#zoom = Math.min(ZOOM_SECONDS.length - 1, Math.max(0, this.#zoom + direction));
    this.#windowStart = Math.max(0, this.#time - this.zoomSeconds() / 2);
    this.#follow();
    this.#draw();
    return this.zoomSeconds();
  }

  canZoom(direction) {
    const next = this.#zoom + direction;
    return next >= 0 && next < ZOOM_SECONDS.length;
  }

  /** A new devicePixelRatio (browser zoom, another screen) changes no CSS size: ResizeObserver misses it. */
  #watchPixelRatio(signal) {
    if (signal?.aborted) return;
    const query = window.matchMedia(`(resolution: ${window.devicePixelRatio || 1}dppx)`);
    query.addEventListener("change", () => {
      this.#resize();
      this.#watchPixelRatio(signal);
    }, { once: true, signal });
  }

  // MARK: Input

  #key(event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey || !this.#duration) return;
    const target = sliderTarget(event.key, this.#time, this.#duration);
    if (target === null) return;
    event.preventDefault();
    this.#onSeek(target);
  }

  #fraction(event, canvas) {
    const box = canvas.getBoundingClientRect();
    return box.width > 0 ? Math.max(0, Math.min(1, (event.clientX - box.left) / box.width)) : 0;
  }

  #press(event) {
    if (event.button !== 0 || !this.#duration) return;
    event.preventDefault();
    this.#slider.focus();
    this.#dragging = true;
    this.#overview.setPointerCapture(event.pointerId);
    this.#onSeek(this.#fraction(event, this.#overview) * this.#duration);
  }

  #drag(event) {
    if (this.#dragging) this.#onSeek(this.#fraction(event, this.#overview) * this.#duration);
  }

  #release(event) {
    if (!this.#dragging) return;
    this.#dragging = false;
    if (this.#overview.hasPointerCapture(event.pointerId)) this.#overview.releasePointerCapture(event.pointerId);
  }

  // MARK: Dragging a point

  /** The seconds `canvas` shows: the whole recording (the overview) or the zoom view's window. */
  #span(canvas) {
    return canvas === this.#overview ? { start: 0, span: this.#duration } : { start: this.#windowStart, span: this.zoomSeconds() };
  }

  /** The draggable point whose marker (the top 14 px, 8 px either side) is under the pointer. */
  #pointAt(event, canvas) {
    if (!this.#duration) return null;
    const box = canvas.getBoundingClientRect();
    if (box.width <= 0 || event.clientY - box.top > 14) return null;
    return pointNear(this.#points, event.clientX, { left: box.left, width: box.width, ...this.#span(canvas) });
  }

  #pressPoint(event, canvas) {
    if (event.button !== 0) return false;
    const point = this.#pointAt(event, canvas);
    if (!point) return false;
    event.preventDefault();
    this.#slider.focus();
    this.#pointDrag = { point, from: point.time, moved: false, canvas };
    canvas.setPointerCapture(event.pointerId);
    return true;
  }

  #dragPoint(event, canvas) {
    const drag = this.#pointDrag;
    if (!drag || drag.canvas !== canvas) {
      // A marker that can be dragged says so under the pointer.
      if (!this.#dragging) canvas.style.cursor = this.#pointAt(event, canvas) ? "ew-resize" : "";
      return false;
    }
    const { start, span } = this.#span(canvas);
    const seconds = Math.round(Math.max(0, Math.min(this.#duration, start + this.#fraction(event, canvas) * span)) * 100) / 100;
    drag.moved ||= seconds !== drag.from;
    drag.point.time = seconds;
    this.#draw();
    return true;
  }

  /** Let go: a moved point is reported; a marker clicked without moving seeks to it; cancelled, it goes back. */
  #releasePoint(event, canvas, cancelled = false) {
    const drag = this.#pointDrag;
    if (!drag || drag.canvas !== canvas) return false;
    this.#pointDrag = null;
    if (canvas.hasPointerCapture(event.pointerId)) canvas.releasePointerCapture(event.pointerId);
    if (cancelled) {
      drag.point.time = drag.from;
      this.#draw();
    } else if (drag.moved) {
      this.#onPointMove(drag.point.id, drag.point.time);
    } else {
      this.#onSeek(drag.point.time);
    }
    return true;
  }

  // MARK: The slider's value

  #announce() {
    const key = `${Math.floor(this.#time)}/${Math.floor(this.#duration)}`;
    if (key === this.#shownValue) return;
    this.#shownValue = key;
    const { max, now, text } = sliderValue(this.#time, this.#duration);
    this.#slider.setAttribute("aria-valuemin", "0");
    this.#slider.setAttribute("aria-valuemax", String(max));
    this.#slider.setAttribute("aria-valuenow", String(now));
    this.#slider.setAttribute("aria-valuetext", text);
  }

  // MARK: Drawing

  /** The zoom view turns the page when the playhead leaves it. */
  #follow() {
    this.#windowStart = followWindow(this.#windowStart, this.#time, this.zoomSeconds(), this.#duration);
  }

  #resize() {
    const ratio = window.devicePixelRatio || 1;
    for (const canvas of [this.#overview, this.#zoomview]) {
      const box = canvas.getBoundingClientRect();
      const width = Math.max(1, Math.round(box.width * ratio));
      const height = Math.max(1, Math.round(box.height * ratio));
      if (canvas.width !== width) canvas.width = width;
      if (canvas.height !== height) canvas.height = height;
    }
    this.#colors = waveColors(this.#slider);
    this.#draw();
  }

  #draw() {
    const span = this.zoomSeconds();
    const drawn = { segments: this.#segments, peaks: this.#peaks, points: this.#points, time: this.#time, colors: this.#colors };
    paint(this.#overview, { ...drawn, start: 0, span: this.#duration, labels: false });
    paint(this.#zoomview, { ...drawn, start: this.#windowStart, span: Math.max(span, 0.001), labels: true });
    // The overview outlines the zoom view's window.
    outlineWindow(this.#overview, { windowStart: this.#windowStart, span, duration: this.#duration, color: this.#colors.window });
  }
}
