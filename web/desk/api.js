// The desk's only way to the server: the same /v1 API the app uses, with the session's
// cookie and, on every change, its CSRF token. Errors surface as the problem's own sentence.
// A session signed in anew (in another tab, after this one's ended) is picked up without a
// reload: a change refused for its CSRF token reads the session again and is sent once more —
// only when the new session is the same coach's (never this page's work under another name).

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail ?? `The server answered ${status}.`);
    this.status = status;
    this.code = problem?.code ?? "http_" + status;
    this.problem = problem;
  }
}

const CSRF_REFUSALS = new Set(["csrf_token_invalid", "csrf_token_missing"]);

/** fetch, with a lost connection as a sentence (ApiError of status 0), never the browser's "Failed to fetch". */
async function reach(path, init) {
  try {
    return await fetch(path, init);
  } catch (error) {
    if (error?.name === "AbortError") throw error;
    throw new ApiError(0, { code: "unreachable", detail: "The desk could not reach the server: check the connection, then try again." });
  }
}

export class Api {
  #csrf = null;
  #coach = null;

  /** The signed-in session, or null when there is none. */
  async session() {
    const response = await reach("/desk/session", { credentials: "same-origin", cache: "no-store" });
    if (response.status === 401) return null;
    const body = await this.#read(response);
    this.#csrf = body.csrf_token;
    this.#coach = body.coach_id;
    return body;
  }

  /**
   * After a change refused for its CSRF token: the browser's session now, adopted when it is
   * the same coach's; an ApiError saying so when this browser signed in as someone else.
   */
  async #renew(refusal) {
    let body = null;
    try {
      const response = await fetch("/desk/session", { credentials: "same-origin", cache: "no-store" });
      if (response.ok) body = await response.json();
    } catch {
      body = null;
    }
    if (!body?.csrf_token) return false;
    if (this.#coach && body.coach_id !== this.#coach) {
      throw new ApiError(refusal.status, {
        code: "desk_signed_in_as_another",
        detail: `This browser is now signed in as ${body.coach_name ?? body.coach_id} (in another tab), so this page cannot send as you. Sign in again as yourself, then send again.`,
      });
    }
    this.#csrf = body.csrf_token;
    return true;
  }

  /** `attempt()`, and once more with the session's new CSRF token when it was refused for its token. */
  async #withSession(attempt) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 403 || !CSRF_REFUSALS.has(error.code) || !(await this.#renew(error))) throw error;
      return attempt();
    }
  }

  async get(path, { headers = {} } = {}) {
    return this.#read(await reach(path, { credentials: "same-origin", cache: "no-store", headers }));
  }

  async send(method, path, { json, body, headers = {}, keepalive = false } = {}) {
    return this.#withSession(async () => {
      const init = { method, keepalive, credentials: "same-origin", headers: { ...headers, "X-CSRF-Token": this.#csrf ?? "" } };
      if (json !== undefined) {
        init.body = JSON.stringify(json);
        init.headers["Content-Type"] = "application/json";
      } else if (body !== undefined) {
        init.body = body;
      }
      return this.#read(await reach(path, init));
    });
  }

  /**
   * Sends a recording (a Blob) as the request's body, reporting `onProgress(sent, total)` as
   * it goes (fetch cannot report an upload's progress; XMLHttpRequest can). Resolves with the
   * JSON answer and its headers; a refusal is an ApiError with the problem's sentence, a lost
   * connection an ApiError of status 0 (the caller may retry with the same Idempotency-Key).
   */
  upload(path, blob, options = {}) {
    return this.#withSession(() => this.#upload(path, blob, options));
  }

  #upload(path, blob, { headers = {}, onProgress = () => {} } = {}) {
    return new Promise((resolve, reject) => {
      const request = new XMLHttpRequest();
      request.open("POST", path);
      request.withCredentials = true;
      request.responseType = "text";
      for (const [name, value] of Object.entries({ ...headers, "X-CSRF-Token": this.#csrf ?? "" })) request.setRequestHeader(name, value);
      request.upload.addEventListener("progress", (event) => onProgress(event.loaded, event.lengthComputable ? event.total : blob.size));
      request.addEventListener("load", () => {
        let body = null;
        try { body = request.responseText ? JSON.parse(request.responseText) : null; } catch { body = null; }
        if (request.status >= 200 && request.status < 300) {
          resolve({ body, replayed: request.getResponseHeader("Idempotent-Replayed") === "true" });
        } else {
          reject(new ApiError(request.status, body));
        }
      });
      const lost = () => reject(new ApiError(0, { detail: "The connection was lost before the server answered; send again — it will not be sent twice." }));
      request.addEventListener("error", lost);
      request.addEventListener("timeout", lost);
      request.send(blob);
    });
  }

  async signOut() {
    await reach("/desk/logout", { method: "POST", credentials: "same-origin", headers: { "X-CSRF-Token": this.#csrf ?? "" } });
    this.#csrf = null;
  }

  async #read(response) {
    const type = response.headers.get("Content-Type") ?? "";
    const body = response.status === 204 ? null : type.includes("json") ? await response.json() : await response.text();
    if (!response.ok) throw new ApiError(response.status, typeof body === "object" ? body : null);
    return body;
  }
}

/**
 * A new Idempotency-Key: 128 random bits. (crypto.randomUUID exists only on secure origins;
 * getRandomValues everywhere.)
 */
export function newIdempotencyKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return "desk-" + Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
