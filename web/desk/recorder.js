// Recording in the browser: the coach's reply, a spoken correction, a voice answer. One
// Recorder per take: it asks for the microphone, records with MediaRecorder in a format the
// server decodes, shows the level while recording, and hands back the take as a Blob with its
// length and type. The browser's own processing (echo cancellation, noise suppression, gain)
// is off: the server measures loudness and normalises every recording itself.
import { clock } from "./player.js";

/**
 * The type to record in: `audio/mp4` first (Safari records AAC in MP4 reliably), then WebM
 * with Opus (Chromium and Firefox). Safari 18.4 claims WebM/Opus but its recordings are
 * broken, so MP4 must win where both are offered. Null when the browser records neither.
 */
export function recordingType(isTypeSupported = (type) => globalThis.MediaRecorder?.isTypeSupported?.(type) ?? false) {
  for (const type of ["audio/mp4", "audio/webm;codecs=opus", "audio/webm"]) {
    if (isTypeSupported(type)) return type;
  }
  return null;
}

/** The Content-Type to send a take with: the recorder's type without its parameters. */
export function uploadType(blobType) {
  const bare = (blobType || "").split(";")[0].trim().toLowerCase();
  return bare.startsWith("audio/") ? bare : bare === "video/webm" ? "audio/webm" : bare === "video/mp4" ? "audio/mp4" : "application/octet-stream";
}

/** A sentence for a refused or missing microphone. */
function microphoneProblem(error) {
  switch (error?.name) {
    case "NotAllowedError":
    case "SecurityError":
      return "The browser was not allowed to use the microphone; allow it for this site and try again.";
    case "NotFoundError":
    case "OverconstrainedError":
      return "No microphone was found; connect one and try again.";
    case "NotReadableError":
      return "The microphone is in use by another program, or could not be opened.";
    default:
      return `The microphone could not be started${error?.message ? ` (${error.message})` : ""}.`;
  }
}

export class Recorder {
  #stream = null;
  #recorder = null;
  #chunks = [];
  #context = null;
  #analyser = null;
  #frame = 0;
  #startedAt = 0;
  #onLevel;
  #maxSeconds;
  #timer = 0;
  #stopped = null;

  /**
   * `onLevel(level, seconds)`: about 30 times a second while recording, the input's peak level
   * (0–1) and the time recorded. `maxSeconds`: the take stops by itself there.
   */
  constructor({ onLevel = () => {}, maxSeconds = 600 } = {}) {
    this.#onLevel = onLevel;
    this.#maxSeconds = maxSeconds;
  }

  get recording() { return this.#recorder?.state === "recording"; }

  /** Starts recording; throws an Error whose message is a sentence for the coach. */
  async start() {
    const type = recordingType();
    if (!type || !navigator.mediaDevices?.getUserMedia) {
      throw new Error("This browser cannot record audio here (the desk needs a secure connection, https, to use the microphone).");
    }
    try {
      this.#stream = await navigator.mediaDevices.getUserMedia({
        audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false, channelCount: 1 },
      });
    } catch (error) {
      throw new Error(microphoneProblem(error));
    }
    this.#chunks = [];
    this.#recorder = new MediaRecorder(this.#stream, { mimeType: type, audioBitsPerSecond: 64000 });
    this.#recorder.addEventListener("dataavailable", (event) => { if (event.data.size > 0) this.#chunks.push(event.data); });
    this.#stopped = new Promise((resolve) => this.#recorder.addEventListener("stop", resolve, { once: true }));
    this.#meter();
    this.#recorder.start(1000);
    this.#startedAt = performance.now();
    this.#timer = setTimeout(() => this.stop(), this.#maxSeconds * 1000);
  }

  /** Stops; the take `{blob, seconds, type}`, or null when nothing was recorded. */
  async stop() {
    clearTimeout(this.#timer);
    if (!this.#recorder) return null;
    const seconds = (performance.now() - this.#startedAt) / 1000;
    if (this.#recorder.state !== "inactive") this.#recorder.stop();
    await this.#stopped;
    const type = this.#recorder.mimeType || recordingType() || "application/octet-stream";
    this.#release();
    const blob = new Blob(this.#chunks, { type });
    this.#chunks = [];
    return blob.size > 0 ? { blob, seconds, type: uploadType(type) } : null;
  }

  /** Stops without a take (the review was left). */
  cancel() {
    clearTimeout(this.#timer);
    if (this.#recorder && this.#recorder.state !== "inactive") this.#recorder.stop();
    this.#release();
    this.#chunks = [];
  }

  #meter() {
    const AudioContextType = globalThis.AudioContext ?? globalThis.webkitAudioContext;
    if (!AudioContextType) return;
    this.#context = new AudioContextType();
    const source = this.#context.createMediaStreamSource(this.#stream);
    this.#analyser = this.#context.createAnalyser();
    this.#analyser.fftSize = 1024;
    source.connect(this.#analyser);
    const samples = new Float32Array(this.#analyser.fftSize);
    const step = () => {
      if (!this.#analyser) return;
      this.#analyser.getFloatTimeDomainData(samples);
      let peak = 0;
      for (const sample of samples) peak = Math.max(peak, Math.abs(sample));
      this.#onLevel(Math.min(1, peak), (performance.now() - this.#startedAt) / 1000);
      this.#frame = requestAnimationFrame(step);
    };
    this.#frame = requestAnimationFrame(step);
  }

  #release() {
    cancelAnimationFrame(this.#frame);
    this.#analyser = null;
    this.#context?.close().catch(() => {});
    this.#context = null;
    for (const track of this.#stream?.getTracks() ?? []) track.stop();
    this.#stream = null;
  }
}

/**
 * A short clip recorded in place beside a form (a spoken correction, a voice answer): one
 * button records, stops, and removes the take; `node` shows the take with a player to listen.
 * `take` is `{blob, seconds, type, url}` once recorded.
 */
export class ClipRecorder {
  take = null;
  #recorder = null;
  #options;

  /**
   * `button`, `node`: the page's; `name`: what the take is called ("correction"); `idle`:
   * the button's label with no take ("Record a correction"); `maxSeconds`; `onError(sentence)`;
   * `onShow(take)`, when given, after each change of what it shows.
   */
  constructor(options) {
    this.#options = options;
    this.show();
  }

  get recording() { return this.#recorder?.recording ?? false; }

  /** The button's press: record, stop, or remove the take. */
  async toggle(signal) {
    const { button, node, maxSeconds, onError } = this.#options;
    if (this.#recorder?.recording) {
      const take = await this.#recorder.stop();
      this.#recorder = null;
      if (signal?.aborted) return;
      if (take) this.take = { ...take, url: URL.createObjectURL(take.blob) };
      return this.show();
    }
    if (this.take) {
      this.discard();
      return this.show();
    }
    this.#recorder = new Recorder({ maxSeconds, onLevel: (_, seconds) => { node.textContent = `recording ${clock(seconds)} (at most ${clock(maxSeconds)})`; } });
    try {
      await this.#recorder.start();
      button.textContent = "Stop";
    } catch (error) {
      this.#recorder = null;
      onError(error.message);
    }
  }

  /**
   * What the button and the take are called from now on: `idle` with no take ("Record a new
   * correction" while a mark is edited), `name` for a take ("new correction").
   */
  relabel(idle, name = this.#options.name) {
    Object.assign(this.#options, { idle, name });
    if (!this.recording) this.show();
  }

  /** Forgets the take (after it is sent, or removed). */
  discard() {
    if (this.take?.url) URL.revokeObjectURL(this.take.url);
    this.take = null;
  }

  /** Stops without a take and forgets any (the review was left). */
  cancel() {
    this.#recorder?.cancel();
    this.#recorder = null;
    this.discard();
  }

  show() {
    const { button, node, name, idle } = this.#options;
    node.replaceChildren();
    if (this.take) {
      const audio = document.createElement("audio");
      audio.controls = true;
      audio.src = this.take.url;
      node.append(`${name} ${clock(this.take.seconds)} `, audio);
    }
    button.textContent = this.take ? `Remove the ${name}` : idle;
    this.#options.onShow?.(this.take);
  }
}
