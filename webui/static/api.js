// Talking to the rig: reads need nothing, control actions carry the table PIN.
// The PIN lives in sessionStorage: it survives a reload, not the closing of the tab.

const PIN_KEY = "tablesight.pin";

export class ApiError extends Error {
  // retryAfterS: the rig's Retry-After, where it says when to ask again (a busy replay, 503).
  constructor(status, message, retryAfterS = 0) {
    super(message);
    this.status = status;
    this.retryAfterS = retryAfterS;
  }
}

export function storedPin() {
  return sessionStorage.getItem(PIN_KEY);
}

export function storePin(pin) {
  if (pin) sessionStorage.setItem(PIN_KEY, pin);
  else sessionStorage.removeItem(PIN_KEY);
}

async function parse(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (!response.ok) {
    throw new ApiError(response.status, (body && body.message) || `The rig answered ${response.status}.`,
      Number(response.headers.get("Retry-After")) || 0);
  }
  return body;
}

// fetch() rejects with a bare "TypeError: Failed to fetch" when the rig is down or the Wi-Fi
// dropped: the player is told that in words instead, and a phone that knows it has no network
// says that nothing left it.
export const UNREACHABLE = "The rig is not answering; try again when it is back.";
export const NO_NETWORK = "This phone has no network: nothing was sent. Tap again when it is back.";
// Sent, and the answer never came (the network went, or 30 s passed): the rig may have done it.
// A template or a terrain piece tapped again would be laid twice.
const MAYBE_DONE = "the control may or may not have reached it. Look at the table before tapping again.";
export const LOST_ANSWER = `The network went before the rig answered: ${MAYBE_DONE}`;

// A control the rig never answers (a rig gone mid-tap, a socket stalled on weak Wi-Fi) kept its
// button off without a word for as long as the phone waited, which has no end of its own.
const ANSWER_MS = 30000;
export const NO_ANSWER = `No answer from the rig in 30 s: ${MAYBE_DONE}`;

// `control`: a request that changes the game, which is given up after ANSWER_MS and, once sent,
// may have been carried out though its answer was lost.
async function reach(url, options, control = false) {
  // Asked before sending: once sent, a network gone by the time it failed says nothing of
  // whether the request got there.
  if (!navigator.onLine) throw new ApiError(0, NO_NETWORK);
  const giveUp = new AbortController();
  const timer = control ? setTimeout(() => giveUp.abort(), ANSWER_MS) : null;
  try {
    return await fetch(url, { ...options, signal: giveUp.signal });
  } catch {
    const lost = control ? LOST_ANSWER : NO_NETWORK;
    throw new ApiError(0, giveUp.signal.aborted ? NO_ANSWER : navigator.onLine ? UNREACHABLE : lost);
  } finally {
    clearTimeout(timer);
  }
}

export async function getJson(url) {
  return parse(await reach(url, { cache: "no-store" }));
}

// askPin(reason) resolves to a PIN the player typed, or null when they cancel; the reason says
// why it is asked again (the last one was refused).
export async function action(name, payload, askPin) {
  let pin = storedPin();
  for (let attempt = 0; attempt < 2; attempt += 1) {
    if (!pin) {
      pin = await askPin(attempt ? "That PIN was wrong. Type the table PIN the rig printed when it started." : "");
      if (!pin) throw new ApiError(403, "No PIN given: nothing was changed.");
      storePin(pin);
    }
    const response = await reach(`/api/action/${name}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Table-Pin": pin },
      body: JSON.stringify(payload || {}),
    }, true);
    if (response.status !== 403) return parse(response);
    storePin(null);
    pin = null;
    if (attempt === 1) return parse(response);
  }
  return null;
}

// The rig says something at least every heartbeat (SSE_HEARTBEAT_S, 5 s), a state or a beat. A
// stream silent for 2.5 of them, and never less than 5 s (waitress may hold a small write for
// up to a second of its loop), has stalled without closing (a phone woken from sleep, Wi-Fi
// that dropped under an open socket): the page went on showing an old table with the pill at
// "ok". It is dropped and opened again, and said to be down meanwhile.
const STALL_MS = Math.max(2500 * (Number(document.body.dataset.heartbeatS) || 5), 5000);

// Calls onState(state) for every pushed state, and onConnection(connected, noNetwork) as the
// stream comes and goes. EventSource reconnects by itself after a dropped stream, but gives up
// for good on an error answer (a 503 when too many phones stream): then a new one is opened a few
// seconds later. The browser knows of a lost or returned network before the stream does: the
// stream is opened anew at once either way. Going offline, the old socket went on looking open
// (it stalls on real Wi-Fi; DevTools even keeps it flowing) and the page showed a live pill over
// a table no longer live; back online, the stream waited out EventSource's own retry.
export function subscribe(onState, onConnection) {
  let source = null;
  let watchdog = null;
  let retry = null;
  let wentOffline = false; // the stream was opened anew because the network went: its error says so
  const open = () => {
    clearTimeout(watchdog);
    clearTimeout(retry);
    if (source) source.close();
    const mine = new EventSource("/api/events");
    source = mine;
    const heard = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => {
        onConnection(false);
        open();
      }, STALL_MS);
    };
    mine.addEventListener("state", (event) => {
      heard();
      onState(JSON.parse(event.data));
    });
    mine.addEventListener("beat", heard);
    mine.addEventListener("open", () => {
      wentOffline = false;
      heard();
      onConnection(true);
    });
    mine.addEventListener("error", () => {
      onConnection(false, wentOffline && !navigator.onLine);
      wentOffline = false;
      if (mine.readyState === EventSource.CLOSED) {
        clearTimeout(watchdog);
        retry = setTimeout(open, 3000);
      }
    });
    heard();
  };
  window.addEventListener("offline", () => {
    wentOffline = true;
    open();
  });
  window.addEventListener("online", open);
  open();
}
