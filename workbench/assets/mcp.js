// mcp.js: a small MCP client for the 2026-07-28 protocol over HTTP, as
// the workbench needs it: one JSON-RPC request per POST, the routing
// headers that repeat the body, the credential as a bearer token, and an
// answer that is either JSON or an SSE stream.

export const PROTOCOL_VERSION = "2026-07-28";

const CLIENT_INFO = { name: "ferry-workbench", version: "1.0.0" };

// The workbench answers simple form elicitations (see workbench.js), so it
// says so; it declares nothing else.
const CLIENT_CAPABILITIES = { elicitation: { form: {} } };

// CallError is a failed request: the HTTP status, the JSON-RPC error if the
// server sent one, and a sentence for the user.
export class CallError extends Error {
  constructor(kind, message, { status = 0, rpc = null, response = null } = {}) {
    super(message);
    this.kind = kind; // network | unauthorized | forbidden | rpc | http | protocol | aborted
    this.status = status;
    this.rpc = rpc;
    this.response = response;
  }
}

// headerValue returns v as an HTTP header carries it: plain when it is
// printable ASCII without surrounding spaces, else =?base64?...?= of its
// UTF-8 bytes, which the server decodes.
export function headerValue(v) {
  const s = String(v);
  if (/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(s)) {
    return s;
  }
  const bytes = new TextEncoder().encode(s);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return "=?base64?" + btoa(bin) + "?=";
}

// paramHeaders returns the Mcp-Param-* headers a tools/call carries for
// the tool's arguments that its input schema marks with x-mcp-header.
export function paramHeaders(tool, args) {
  const out = {};
  const props = tool && tool.inputSchema && tool.inputSchema.properties;
  if (!props || typeof props !== "object" || !args || typeof args !== "object") return out;
  for (const [name, prop] of Object.entries(props)) {
    if (!prop || typeof prop["x-mcp-header"] !== "string") continue;
    const v = args[name];
    if (v === undefined || v === null || typeof v === "object") continue;
    out["Mcp-Param-" + prop["x-mcp-header"]] = headerValue(typeof v === "string" ? v : JSON.stringify(v));
  }
  return out;
}

// nameOf is what Mcp-Name carries for a method, or undefined.
function nameOf(method, params) {
  switch (method) {
    case "tools/call":
    case "prompts/get":
      return params.name;
    case "resources/read":
      return params.uri;
  }
  return undefined;
}

// Client sends requests to one endpoint with one credential.
export class Client {
  constructor(endpoint, credential) {
    this.endpoint = endpoint;
    this.credential = credential;
    this.nextID = 1;
  }

  // request sends one JSON-RPC request and returns
  // {request, response, result, status, messages}: request and response
  // are the JSON as sent and received (for the raw view), messages the
  // notifications the server streamed before its answer. It throws a
  // CallError for anything but a result. onMessage, if given, sees each
  // streamed notification as it arrives.
  async request(method, params = {}, opts = {}) {
    const id = this.nextID++;
    const body = this.body(id, method, params);
    const sent = {}; // the headers as the raw view shows them
    try {
      const res = await this.send(body, opts, sent);
      res.headers = sent.headers;
      return res;
    } catch (err) {
      if (err instanceof CallError) {
        err.request = body;
        err.headers = sent.headers;
      }
      throw err;
    }
  }

  body(id, method, params) {
    return {
      jsonrpc: "2.0",
      id,
      method,
      params: {
        ...params,
        _meta: {
          ...(params._meta || {}),
          "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
          "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
          "io.modelcontextprotocol/clientCapabilities": CLIENT_CAPABILITIES,
        },
      },
    };
  }

  async send(body, { signal, extraHeaders = {}, onMessage } = {}, sent = {}) {
    const { id, method, params } = body;
    const headers = {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": PROTOCOL_VERSION,
      "Mcp-Method": method,
      ...extraHeaders,
    };
    const name = nameOf(method, params);
    if (name !== undefined) headers["Mcp-Name"] = headerValue(name);
    if (this.credential) headers.Authorization = "Bearer " + this.credential;
    // What the raw view shows of the headers: the credential masked.
    sent.headers = { ...headers, ...(this.credential ? { Authorization: "Bearer •••" } : {}) };

    let res;
    try {
      res = await fetch(this.endpoint, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
        credentials: "omit",
        cache: "no-store",
        redirect: "error",
        signal,
      });
    } catch (err) {
      if ((err && err.name === "AbortError") || (signal && signal.aborted)) {
        throw new CallError("aborted", "The request was cancelled.");
      }
      throw new CallError("network", "The server could not be reached (" + (err && err.message ? err.message : "network error") + ").");
    }
    const messages = [];
    let response = null;
    try {
      response = await readAnswer(res, id, (m) => {
        messages.push(m);
        if (onMessage) onMessage(m);
      });
    } catch (err) {
      if ((err && err.name === "AbortError") || (signal && signal.aborted)) {
        throw new CallError("aborted", "The request was cancelled.");
      }
      if (err instanceof CallError) throw err;
      throw new CallError("protocol", "The answer could not be read: " + (err && err.message ? err.message : String(err)), { status: res.status });
    }
    const rpc = response && response.error ? response.error : null;
    const rpcText = rpc ? " The server said: " + rpc.message + " (" + rpc.code + ")." : "";
    if (res.status === 401) {
      throw new CallError("unauthorized", "The server refused the credential (HTTP 401): it is missing or wrong." + rpcText, { status: 401, rpc, response });
    }
    if (res.status === 403) {
      const scope = scopeOf(res.headers.get("WWW-Authenticate"));
      const need = scope ? " It needs the scope " + scope + "." : "";
      throw new CallError("forbidden", "The credential is not allowed to do this (HTTP 403)." + need + rpcText, { status: 403, rpc, response });
    }
    if (rpc) {
      throw new CallError("rpc", rpc.message, { status: res.status, rpc, response });
    }
    if (!res.ok) {
      throw new CallError("http", "The server answered HTTP " + res.status + " " + res.statusText + ".", { status: res.status, response });
    }
    if (!response || typeof response !== "object" || !("result" in response)) {
      throw new CallError("protocol", "The server's answer holds no result.", { status: res.status, response });
    }
    return { request: body, response, result: response.result, status: res.status, messages };
  }
}

// scopeOf returns the scope parameter of a WWW-Authenticate header.
function scopeOf(h) {
  if (!h) return "";
  const m = /scope="([^"]*)"/.exec(h);
  return m ? m[1] : "";
}

// readAnswer reads a response body: JSON, or SSE events whose data are
// JSON-RPC messages; it returns the response with the request's id (or,
// for an error body without one, whatever JSON came) and passes every
// other message to onMessage.
async function readAnswer(res, id, onMessage) {
  const type = (res.headers.get("Content-Type") || "").toLowerCase();
  if (type.startsWith("text/event-stream")) {
    return readSSE(res, id, onMessage);
  }
  const text = await res.text();
  if (text.trim() === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    if (res.ok) throw new Error("the body is not JSON");
    return null; // a plain-text error page: the status says it
  }
}

async function readSSE(res, id, onMessage) {
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  let data = [];
  let answer = null;
  const dispatch = () => {
    if (data.length === 0) return;
    const text = data.join("\n");
    data = [];
    let msg;
    try {
      msg = JSON.parse(text);
    } catch {
      return; // not a message: priming events carry no data worth reading
    }
    if (msg && (msg.id === id || (msg.id === null && msg.error)) && ("result" in msg || "error" in msg)) {
      answer = msg;
    } else {
      onMessage(msg);
    }
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += decoder.decode(value, { stream: true });
    let nl;
    while ((nl = buf.search(/\r\n|\r|\n/)) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + (buf[nl] === "\r" && buf[nl + 1] === "\n" ? 2 : 1));
      if (line === "") {
        dispatch();
        if (answer) {
          reader.cancel().catch(() => {});
          return answer;
        }
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value2 = colon < 0 ? "" : line.slice(colon + 1);
      if (value2.startsWith(" ")) value2 = value2.slice(1);
      if (field === "data") data.push(value2);
    }
  }
  dispatch();
  if (!answer) throw new Error("the event stream ended without an answer");
  return answer;
}
