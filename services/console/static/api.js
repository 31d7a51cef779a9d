// The API the page calls: the server's HTTP/JSON gateway on this origin (POST /v1/...), the
// arbiter's token in the Authorization header (sessionStorage: this tab only, never a cookie).

const TOKEN = "arbiter.token";
const EVENT = "arbiter.event";

export function session() {
  return { token: sessionStorage.getItem(TOKEN) || "", event: sessionStorage.getItem(EVENT) || "" };
}

export function signIn(event, token) {
  sessionStorage.setItem(TOKEN, token);
  sessionStorage.setItem(EVENT, event);
}

export function signOut() {
  sessionStorage.removeItem(TOKEN);
  sessionStorage.removeItem(EVENT);
}

// An error the server answered: its HTTP status, the google.rpc.Status and its stable code.
export class ApiError extends Error {
  constructor(httpStatus, status) {
    const info = (status.details || []).find((d) => d.reason) || {};
    super(status.message || `HTTP ${httpStatus}`);
    this.httpStatus = httpStatus;
    this.code = info.reason || "";
    this.grpcCode = status.code || 0;
  }
}

let sequence = 0;
// A command id unique to this tab, so that a retried click is applied once.
export function commandId() {
  sequence += 1;
  return `console-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}-${sequence}`;
}

export async function call(method, body) {
  const response = await fetch(`/v1/arbiter.v1.Arbitration/${method}`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Authorization: `Bearer ${session().token}`,
    },
    body: JSON.stringify(body),
    credentials: "omit",
    cache: "no-store",
  });
  const text = await response.text();
  let json = {};
  try {
    json = text ? JSON.parse(text) : {};
  } catch (e) {
    json = { message: text };
  }
  if (!response.ok) throw new ApiError(response.status, json);
  return json;
}
