// The desk's only way to the server: the same /v1 API the app uses, with the session's
// cookie and, on every change, its CSRF token. Errors surface as the problem's own sentence.

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail ?? `The server answered ${status}.`);
    this.status = status;
    this.code = problem?.code ?? "http_" + status;
    this.problem = problem;
  }
}

export class Api {
  #csrf = null;

  /** The signed-in session, or null when there is none. */
  async session() {
    const response = await fetch("/desk/session", { credentials: "same-origin", cache: "no-store" });
    if (response.status === 401) return null;
    const body = await this.#read(response);
    this.#csrf = body.csrf_token;
    return body;
  }

  async get(path, { headers = {} } = {}) {
    return this.#read(await fetch(path, { credentials: "same-origin", cache: "no-store", headers }));
  }

  async send(method, path, { json, body, headers = {} } = {}) {
    const init = { method, credentials: "same-origin", headers: { ...headers, "X-CSRF-Token": this.#csrf ?? "" } };
    if (json !== undefined) {
      init.body = JSON.stringify(json);
      init.headers["Content-Type"] = "application/json";
    } else if (body !== undefined) {
      init.body = body;
    }
    return this.#read(await fetch(path, init));
  }

  async signOut() {
    await fetch("/desk/logout", { method: "POST", credentials: "same-origin", headers: { "X-CSRF-Token": this.#csrf ?? "" } });
    this.#csrf = null;
  }

  async #read(response) {
    const type = response.headers.get("Content-Type") ?? "";
    const body = response.status === 204 ? null : type.includes("json") ? await response.json() : await response.text();
    if (!response.ok) throw new ApiError(response.status, typeof body === "object" ? body : null);
    return body;
  }
}
