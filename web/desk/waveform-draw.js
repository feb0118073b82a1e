// Drawing the waveform on a canvas, in device pixels (crisp on HiDPI screens): the segments as
// bands, the peaks (played and not), the points as markers along the top, the playhead. What
// to draw is handed in; waveform.js keeps it and decides when.

/** The colours the page's CSS gives the waveform (custom properties on `element`), with defaults. */
export function waveColors(element) {
  const style = getComputedStyle(element);
  const color = (name, fallback) => style.getPropertyValue(name).trim() || fallback;
  return {
    played: color("--wave-played", "#0b6e4f"),
    unplayed: color("--wave-unplayed", "#78858a"),
    playhead: color("--wave-playhead", "#1d2326"),
    loop: color("--wave-loop", "rgba(26, 95, 208, 0.16)"),
    ayah: color("--wave-ayah", "rgba(11, 110, 79, 0.08)"),
    point: color("--wave-point", "#a33b1f"),
    window: color("--wave-window", "rgba(29, 35, 38, 0.35)"),
  };
}

/**
 * Draws `[start, start + span)` seconds across the whole canvas: `segments`, `peaks` (from
 * parsePeaks, or null), `points`, the playhead at `time`; the ayahs' names when `labels`.
 */
export function paint(canvas, { start, span, labels, segments, peaks, points, time, colors }) {
  const ctx = canvas.getContext("2d");
  const width = canvas.width;
  const height = canvas.height;
  const ratio = window.devicePixelRatio || 1;
  ctx.clearRect(0, 0, width, height);
  if (!(span > 0) || width < 2) return;
  const x = (seconds) => ((seconds - start) / span) * width;

  for (const segment of segments) {
    const x0 = Math.max(0, x(segment.startTime));
    const x1 = Math.min(width, x(segment.endTime));
    if (x1 <= x0) continue;
    ctx.fillStyle = segment.kind === "loop" ? colors.loop : colors.ayah;
    ctx.fillRect(x0, 0, x1 - x0, height);
    if (segment.kind === "ayah") {
      ctx.fillStyle = colors.unplayed;
      ctx.fillRect(Math.round(x0), 0, ratio, height);
      if (labels && segment.labelText) {
        ctx.font = `${11 * ratio}px system-ui, sans-serif`;
        ctx.fillText(segment.labelText, x0 + 3 * ratio, height - 4 * ratio);
      }
    }
  }

  if (peaks) {
    const { secondsPerPeak, min, max } = peaks;
    const middle = height / 2;
    const reach = height / 2 - ratio;
    const playheadX = x(time);
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
      ctx.fillStyle = column < playheadX ? colors.played : colors.unplayed;
      ctx.fillRect(column, top, 1, Math.max(ratio, bottom - top));
    }
  }

  ctx.fillStyle = colors.point;
  for (const point of points) {
    const px = x(point.time);
    if (px < 0 || px > width) continue;
    ctx.beginPath();
    ctx.moveTo(px - 5 * ratio, 0);
    ctx.lineTo(px + 5 * ratio, 0);
    ctx.lineTo(px, 8 * ratio);
    ctx.fill();
  }

  const playhead = x(time);
  if (playhead >= 0 && playhead <= width) {
    // Kept whole inside the canvas at the very start and end.
    const thickness = Math.max(1, Math.round(2 * ratio));
    ctx.fillStyle = colors.playhead;
    ctx.fillRect(Math.min(width - thickness, Math.max(0, Math.round(playhead - ratio))), 0, thickness, height);
  }
}

/** Outlines on the overview (a recording of `duration` seconds) the zoom view's window of `span` seconds from `windowStart`. */
export function outlineWindow(canvas, { windowStart, span, duration, color }) {
  if (!(duration > 0) || canvas.width <= 1) return;
  const ctx = canvas.getContext("2d");
  const ratio = window.devicePixelRatio || 1;
  const x0 = (windowStart / duration) * canvas.width;
  const x1 = (Math.min(duration, windowStart + span) / duration) * canvas.width;
  ctx.strokeStyle = color;
  ctx.lineWidth = ratio;
  ctx.strokeRect(x0 + ratio / 2, ratio / 2, Math.max(ratio, x1 - x0 - ratio), canvas.height - ratio);
}
