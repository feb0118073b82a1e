// The player: owns the page's one <audio> element. It chooses the variant the browser reads
// (Ogg Opus where it can, the MP4 variant on Safari — both through the submission's audio
// route, which answers Range requests), keeps the pitch when slowed down, and keeps the
// A–B loop. The loop's points live in the review's state (`playback`), handed in; the
// element itself is the truth for time, rate and paused.

export const SPEEDS = [0.5, 0.75, 1, 1.25, 1.5];
export const SKIP_SECONDS = 5;

/** "0:30", "2:00", "1:02:03": whole seconds, rounded down. */
export function clock(seconds) {
  const total = Number.isFinite(seconds) && seconds > 0 ? Math.floor(seconds) : 0;
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** The audio URL this browser should play: Ogg Opus where it can, else the MP4 variant. */
export function audioSource(audio, link) {
  return audio.canPlayType('audio/ogg; codecs="opus"') || audio.canPlayType("audio/ogg; codecs=opus") ? link : `${link}?format=mp4`;
}

export class Player {
  #audio;
  #playback;
  #frame = 0;
  #onFrame;

  /**
   * `audio`: the page's <audio> element; `playback`: the review's state object, where the
   * loop lives (`{loop: {a, b, on}}`); `onFrame(seconds)`: called on every animation frame
   * while playing (the waveform's playhead), and after every seek; `signal` ends its listeners
   * on the element (the element outlives a review).
   */
  constructor(audio, playback, onFrame, signal) {
    this.#audio = audio;
    this.#playback = playback;
    this.#onFrame = onFrame;
    audio.preservesPitch = true;
    audio.addEventListener("play", () => this.#tick(), { signal });
    audio.addEventListener("seeked", () => onFrame(audio.currentTime), { signal });
    // Without frames (a background tab) the loop still holds, at timeupdate's pace.
    audio.addEventListener("timeupdate", () => this.#keepLoop(), { signal });
    // Looping the whole recording: the end is reached before a frame sees it.
    audio.addEventListener("ended", () => {
      if (!this.#playback.loop.on) return;
      this.seek(this.loopSpan().a);
      audio.play().catch(() => {});
    }, { signal });
  }

  get audio() { return this.#audio; }
  get currentTime() { return this.#audio.currentTime; }
  get paused() { return this.#audio.paused; }
  get rate() { return this.#audio.playbackRate; }

  /** The duration once the browser knows it, else `fallback` (from the stored peaks). */
  duration(fallback = 0) {
    const known = this.#audio.duration;
    return Number.isFinite(known) && known > 0 ? known : fallback;
  }

  load(link) {
    this.#audio.src = audioSource(this.#audio, link);
    this.#audio.preload = "auto";
    this.#audio.preservesPitch = true;
  }

  unload() {
    this.#audio.pause();
    this.#audio.removeAttribute("src");
    this.#audio.load();
    cancelAnimationFrame(this.#frame);
  }

  /** Play or pause; the promise's refusal (autoplay rules, a broken file) is the caller's to show. */
  toggle() {
    return this.#audio.paused ? this.#audio.play() : Promise.resolve(this.#audio.pause());
  }

  seek(seconds) {
    const end = this.duration();
    const target = Math.max(0, end > 0 ? Math.min(seconds, end) : seconds);
    this.#audio.currentTime = target;
    this.#onFrame(target);
  }

  skip(seconds) { this.seek(this.#audio.currentTime + seconds); }

  setRate(rate) {
    const clamped = Math.min(SPEEDS.at(-1), Math.max(SPEEDS[0], rate));
    this.#audio.preservesPitch = true;
    this.#audio.webkitPreservesPitch = true; // Safari before 15
    this.#audio.playbackRate = clamped;
    this.#audio.defaultPlaybackRate = clamped;
  }

  /** One step along SPEEDS (`[` is -1, `]` is +1). */
  stepRate(direction) {
    const rate = this.#audio.playbackRate;
    const next = direction > 0 ? SPEEDS.find((speed) => speed > rate + 1e-6) : SPEEDS.findLast((speed) => speed < rate - 1e-6);
    if (next !== undefined) this.setRate(next);
  }

  /** The loop's span: A–B when both are set, else the whole recording. */
  loopSpan() {
    const { a, b } = this.#playback.loop;
    if (a !== null && b !== null) return { a: Math.min(a, b), b: Math.max(a, b) };
    return { a: 0, b: this.duration() };
  }

  #keepLoop() {
    const loop = this.#playback.loop;
    if (!loop.on || this.#audio.paused) return;
    const { a, b } = this.loopSpan();
    const t = this.#audio.currentTime;
    if (b > a && t >= b - 0.02) this.seek(a);
  }

  #tick() {
    cancelAnimationFrame(this.#frame);
    const step = () => {
      this.#keepLoop();
      this.#onFrame(this.#audio.currentTime);
      if (!this.#audio.paused && !this.#audio.ended) this.#frame = requestAnimationFrame(step);
    };
    this.#frame = requestAnimationFrame(step);
  }
}
