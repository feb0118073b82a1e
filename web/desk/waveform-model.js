// The waveform's arithmetic, apart from any canvas: the stored peaks (BBC audiowaveform JSON,
// version 2) as numbers, the zoom view's spans and the window it shows, the slider's keys and
// value, and which draggable point is under the pointer. waveform.js draws and listens.
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

/** The zoom (an index of ZOOM_SECONDS) a first duration picks: the widest span that still shows a third of the recording or less. */
export function firstZoom(seconds) {
  const fits = ZOOM_SECONDS.findLastIndex((span) => span <= seconds / 3);
  return Math.max(0, Math.min(1, fits));
}

/** Where the zoom view's window of `span` seconds starts with the playhead at `time`: it turns the page when the playhead leaves it. */
export function followWindow(windowStart, time, span, duration) {
  let start = windowStart;
  if (time < start || time > start + span * 0.9) start = Math.max(0, time - span * 0.1);
  return duration > span ? Math.min(start, duration - span) : 0;
}

/** The slider's keys: how far each moves (Home and End go to the ends). */
const MOVES = {
  ArrowLeft: -SKIP_SECONDS, ArrowDown: -SKIP_SECONDS, ArrowRight: SKIP_SECONDS, ArrowUp: SKIP_SECONDS,
  PageDown: -30, PageUp: 30,
};

/** Where the slider's `key` goes from `time` in a recording of `duration` seconds, or null when the key is not the slider's. */
export function sliderTarget(key, time, duration) {
  let target;
  if (key in MOVES) target = time + MOVES[key];
  else if (key === "Home") target = 0;
  else if (key === "End") target = duration;
  else return null;
  return Math.max(0, Math.min(duration, target));
}

/** The slider's ARIA value: whole seconds, and the time in words ("0:30 of 2:00"). */
export function sliderValue(time, duration) {
  const now = Math.floor(time);
  const max = Math.floor(duration);
  return { max, now: Math.min(now, max), text: `${clock(time)} of ${clock(duration)}` };
}

/**
 * The draggable point (one with an `id`) whose marker is nearest `x` and less than 9 px from
 * it, on a view `width` px wide from `left` showing `span` seconds from `start`; else null.
 */
export function pointNear(points, x, { left, width, start, span }) {
  let found = null, nearest = 9;
  for (const point of points) {
    if (point.id === undefined) continue;
    const distance = Math.abs(left + ((point.time - start) / span) * width - x);
    if (distance < nearest) { nearest = distance; found = point; }
  }
  return found;
}
