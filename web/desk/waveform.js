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
import { clock, SKIP_SECONDS } from "./player.js";

export const ZOOM_SECONDS = [5, 10, 20, 40, 80];

/** Peaks as numbers in [-1, 1]: `{secondsPerPeak, min: Float32Array, max: Float32Array}`. */
export function parsePeaks(json) {
  const channels = json.channels ?? 1;
  const scale = json.bits === 16 ? 32768 : 128;
  const length = json.length ?? Math.floor(json.data.length / (2 * channels));
  const min = new Float32Array(length);
  const max = new Float32Array(length);
  for (let i = 0; i < length; i++) {
    // Several channels: the widest of them (the desk's recordings are mono).
    let low = 0, high = 0;
    for (let c = 0; c < channels; c++) {
      const at = 2 * (i * channels + c);
      low = Math.min(low, json.data[at] / scale);
      high = Math.max(high, json.data[at + 1] / scale);
    }
    min[i] = low;
    max[i] = high;
  }
  return { secondsPerPeak: json.samples_per_pixel / json.sample_rate, min, max };
}

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
      const fits = ZOOM_SECONDS.findLastIndex((span) => span <= seconds / 3);
      this.#zoom = Math.max(0, Math.min(1, fits));
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
    const moves = {
      ArrowLeft: -SKIP_SECONDS, ArrowDown: -SKIP_SECONDS, ArrowRight: SKIP_SECONDS, ArrowUp: SKIP_SECONDS,
      PageDown: -30, PageUp: 30,
    };
    let target;
    if (event.key in moves) target = this.#time + moves[event.key];
    else if (event.key === "Home") target = 0;
    else if (event.key === "End") target = this.#duration;
    else return;
    event.preventDefault();
    this.#onSeek(Math.max(0, Math.min(this.#duration, target)));
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
    const { start, span } = this.#span(canvas);
    let found = null, nearest = 9;
    for (const point of this.#points) {
      if (point.id === undefined) continue;
      const distance = Math.abs(box.left + ((point.time - start) / span) * box.width - event.clientX);
      if (distance < nearest) { nearest = distance; found = point; }
    }
    return found;
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
    const now = Math.floor(this.#time);
    const max = Math.floor(this.#duration);
    const key = `${now}/${max}`;
    if (key === this.#shownValue) return;
    this.#shownValue = key;
    this.#slider.setAttribute("aria-valuemin", "0");
    this.#slider.setAttribute("aria-valuemax", String(max));
    this.#slider.setAttribute("aria-valuenow", String(Math.min(now, max)));
    this.#slider.setAttribute("aria-valuetext", `${clock(this.#time)} of ${clock(this.#duration)}`);
  }

  // MARK: Drawing

  /** The zoom view turns the page when the playhead leaves it. */
  #follow() {
    const span = this.zoomSeconds();
    if (this.#time < this.#windowStart || this.#time > this.#windowStart + span * 0.9) {
      this.#windowStart = Math.max(0, this.#time - span * 0.1);
    }
    if (this.#duration > span) this.#windowStart = Math.min(this.#windowStart, this.#duration - span);
    else this.#windowStart = 0;
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
    const style = getComputedStyle(this.#slider);
    const color = (name, fallback) => style.getPropertyValue(name).trim() || fallback;
    this.#colors = {
      played: color("--wave-played", "#0b6e4f"),
      unplayed: color("--wave-unplayed", "#78858a"),
      playhead: color("--wave-playhead", "#1d2326"),
      loop: color("--wave-loop", "rgba(26, 95, 208, 0.16)"),
      ayah: color("--wave-ayah", "rgba(11, 110, 79, 0.08)"),
      point: color("--wave-point", "#a33b1f"),
      window: color("--wave-window", "rgba(29, 35, 38, 0.35)"),
    };
    this.#draw();
  }

  #draw() {
    const span = this.zoomSeconds();
    this.#paint(this.#overview, 0, this.#duration, false);
    this.#paint(this.#zoomview, this.#windowStart, Math.max(span, 0.001), true);
    // The overview outlines the zoom view's window.
    if (this.#duration > 0 && this.#overview.width > 1) {
      const ctx = this.#overview.getContext("2d");
      const ratio = window.devicePixelRatio || 1;
      const x0 = (this.#windowStart / this.#duration) * this.#overview.width;
      const x1 = (Math.min(this.#duration, this.#windowStart + span) / this.#duration) * this.#overview.width;
      ctx.strokeStyle = this.#colors.window;
      ctx.lineWidth = ratio;
      ctx.strokeRect(x0 + ratio / 2, ratio / 2, Math.max(ratio, x1 - x0 - ratio), this.#overview.height - ratio);
    }
  }

  /** Draws `[start, start + span)` seconds of the peaks across the whole canvas, in device pixels. */
  #paint(canvas, start, span, labels) {
    const ctx = canvas.getContext("2d");
    const width = canvas.width;
    const height = canvas.height;
    const ratio = window.devicePixelRatio || 1;
    ctx.clearRect(0, 0, width, height);
    if (!(span > 0) || width < 2) return;
    const x = (seconds) => ((seconds - start) / span) * width;

    for (const segment of this.#segments) {
      const x0 = Math.max(0, x(segment.startTime));
      const x1 = Math.min(width, x(segment.endTime));
      if (x1 <= x0) continue;
      ctx.fillStyle = segment.kind === "loop" ? this.#colors.loop : this.#colors.ayah;
      ctx.fillRect(x0, 0, x1 - x0, height);
      if (segment.kind === "ayah") {
        ctx.fillStyle = this.#colors.unplayed;
        ctx.fillRect(Math.round(x0), 0, ratio, height);
        if (labels && segment.labelText) {
          ctx.font = `${11 * ratio}px system-ui, sans-serif`;
          ctx.fillText(segment.labelText, x0 + 3 * ratio, height - 4 * ratio);
        }
      }
    }

    if (this.#peaks) {
      const { secondsPerPeak, min, max } = this.#peaks;
      const middle = height / 2;
      const reach = height / 2 - ratio;
      const playheadX = x(this.#time);
      for (let column = 0; column < width; column++) {
        const t0 = start + (column / width) * span;
        const t1 = start + ((column + 1) / width) * span;
        let i0 = Math.floor(t0 / secondsPerPeak);
        const i1 = Math.max(i0 + 1, Math.ceil(t1 / secondsPerPeak));
        if (i0 >= min.length) break;
        if (i0 < 0) i0 = 0;
        let low = 0, high = 0;
        for (let i = i0; i < i1 && i < min.length; i++) {
          if (min[i] < low) low = min[i];
          if (max[i] > high) high = max[i];
        }
        const top = Math.floor(middle - high * reach);
        const bottom = Math.ceil(middle - low * reach);
        ctx.fillStyle = column < playheadX ? this.#colors.played : this.#colors.unplayed;
        ctx.fillRect(column, top, 1, Math.max(ratio, bottom - top));
      }
    }

    ctx.fillStyle = this.#colors.point;
    for (const point of this.#points) {
      const px = x(point.time);
      if (px < 0 || px > width) continue;
      ctx.beginPath();
      ctx.moveTo(px - 5 * ratio, 0);
      ctx.lineTo(px + 5 * ratio, 0);
      ctx.lineTo(px, 8 * ratio);
      ctx.fill();
    }

    const playhead = x(this.#time);
    if (playhead >= 0 && playhead <= width) {
      // Kept whole inside the canvas at the very start and end.
      const thickness = Math.max(1, Math.round(2 * ratio));
      ctx.fillStyle = this.#colors.playhead;
      ctx.fillRect(Math.min(width - thickness, Math.max(0, Math.round(playhead - ratio))), 0, thickness, height);
    }
  }
}
