// The cases of locstream.js, run in a real browser against a real server. A test driver (the
// Swift suite `LocstreamJSTests`, over WebDriver) loads this module into a page of the server,
// starts a case with `window.locstreamTests.start(name, options)`, moves the server where a case
// needs it (kill, restart), and reads `window.locstreamTests.cases[name]`:
// {done, failures: [...], ...figures}. A case never throws; what went wrong is in `failures`.
import { LocstreamClient, LocstreamError } from "/locstream.js";

const url = "ws://" + location.host + "/v1/stream";
const cases = {};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A WebSocket class that counts the connections made through it. */
function countingWebSocket(counter) {
  return class extends WebSocket {
    constructor(...args) {
      super(...args);
      counter.sockets++;
    }
  };
}

/** Waits until `condition()` holds, for at most `ms`; returns whether it did. */
async function until(condition, ms) {
  const deadline = performance.now() + ms;
  while (!condition()) {
    if (performance.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

/** Publishes one location of each of `devices` every `everyMs` until `signal` aborts; errors (a server
 * being restarted) wait and retry. */
async function keepPublishing(client, devices, everyMs, signal, report = {}) {
  report.published = 0;
  while (!signal.aborted) {
    try {
      const now = Date.now();
      await client.publish(devices.map((device, i) => ({ device, lat: 52.5 + i * 0.001, lon: 13.4, ts: now })));
      report.published++;
    } catch (error) {
      report.lastError = String(error);
    }
    await sleep(everyMs);
  }
}

/** Switch: each new iteration takes the connection the aborted one freed (one socket in all), and
 * no event of an aborted iteration is seen once the next has started. */
async function switching(result) {
  const counter = { sockets: 0 };
  const client = new LocstreamClient(url, { WebSocket: countingWebSocket(counter) });
  const publisher = new LocstreamClient(url);
  const stop = new AbortController();
  const devices = ["sw-a", "sw-b"];
  keepPublishing(publisher, devices, 10, stop.signal);
  result.switches = 0;
  result.lateEvents = 0;
  result.foreign = 0;
  for (let round = 0; round < 8; round++) {
    const device = devices[round % 2];
    const own = new AbortController();
    let seen = 0;
    let aborted = false;
    const iteration = (async () => {
      for await (const event of client.locations({ devices: [device] }, { signal: own.signal })) {
        if (aborted) result.lateEvents++;
        if (event.type === "location") {
          seen++;
          if (event.location.device !== device) result.foreign++;
        }
      }
    })();
    if (!(await until(() => seen >= 3, 5000))) result.failures.push(`round ${round}: ${seen} locations of ${device}`);
    own.abort();
    aborted = true;
    await iteration;
    result.switches++;
  }
  await sleep(200);
  stop.abort();
  result.sockets = counter.sockets;
  if (result.lateEvents > 0) result.failures.push(`${result.lateEvents} events after abort`);
  if (result.foreign > 0) result.failures.push(`${result.foreign} locations of the other iteration's device`);
  if (counter.sockets !== 1) result.failures.push(`${counter.sockets} connections for 8 iterations, not 1`);
  client.close();
  publisher.close();
}

/** Reconnect: publishing stops, and at `phase` "quiet" the driver kills the server and restarts
 * it (a store keeps the last positions). The iteration goes on with `since`: the snapshot does not
 * send again what was seen, publishing resumes, and there is no duplicate; seqs increase per device. */
async function reconnecting(result) {
  const client = new LocstreamClient(url, { reconnect: { initialMs: 100, capMs: 1000 } });
  const publisher = new LocstreamClient(url, { reconnect: { initialMs: 100, capMs: 1000 } });
  const stop = new AbortController();
  let publishing = new AbortController();
  keepPublishing(publisher, ["rc-1", "rc-2"], 50, publishing.signal);
  const seen = new Map();
  result.locations = 0;
  result.afterResume = 0;
  result.duplicates = 0;
  result.reconnecting = 0;
  result.resumed = 0;
  result.phase = "starting";
  try {
    for await (const event of client.locations({ devices: ["rc-1", "rc-2"] }, { signal: stop.signal })) {
      if (event.type === "reconnecting") result.reconnecting++;
      if (event.type === "resumed" && result.resumed++ === 0) {
        publishing = new AbortController();
        keepPublishing(publisher, ["rc-1", "rc-2"], 50, publishing.signal);
      }
      if (event.type !== "location") continue;
      const { device, seq } = event.location;
      const key = device + "#" + seq;
      if (seen.has(key)) result.duplicates++;
      if (seq <= (seen.get(device) ?? -1)) result.failures.push(`${device} seq ${seq} after ${seen.get(device)}`);
      seen.set(key, true);
      seen.set(device, seq);
      result.locations++;
      if (result.resumed > 0) result.afterResume++;
      if (result.locations >= 10 && result.phase === "starting") {
        result.phase = "stopping";
        publishing.abort();
        setTimeout(() => (result.phase = "quiet"), 300);
      }
      if (result.afterResume >= 10) break;
    }
  } catch (error) {
    result.failures.push("the iteration threw " + error);
  }
  stop.abort();
  publishing.abort();
  if (result.duplicates > 0) result.failures.push(`${result.duplicates} duplicates`);
  if (result.reconnecting === 0 || result.resumed === 0) result.failures.push("no reconnecting/resumed events");
  client.close();
  publisher.close();
}

/** Token refresh: the first token expires soon; on `token expiring` the provider's next one goes
 * out with `auth`, and the subscription goes on on the same connection. */
async function refreshing(result, { tokens }) {
  const counter = { sockets: 0 };
  let calls = 0;
  const provider = async () => tokens.short[Math.min(calls++, tokens.short.length - 1)];
  const client = new LocstreamClient(url, { token: provider, WebSocket: countingWebSocket(counter) });
  const publisher = new LocstreamClient(url, { token: async () => tokens.long });
  const stop = new AbortController();
  keepPublishing(publisher, ["tk-1"], 100, stop.signal);
  result.afterRefresh = 0;
  result.reconnecting = 0;
  try {
    for await (const event of client.locations({ devices: ["tk-1"] }, { signal: stop.signal })) {
      if (event.type === "reconnecting") result.reconnecting++;
      if (event.type === "location" && client.tokenRefreshes > 0) result.afterRefresh++;
      if (result.afterRefresh >= 20) break;
    }
  } catch (error) {
    result.failures.push("the iteration threw " + error);
  }
  stop.abort();
  result.providerCalls = calls;
  result.refreshes = client.tokenRefreshes;
  result.sockets = counter.sockets;
  if (client.tokenRefreshes < 1) result.failures.push("no token refresh");
  if (counter.sockets !== 1 || result.reconnecting > 0) result.failures.push(`${counter.sockets} connections`);
  client.close();
  publisher.close();
}

/** The error an iteration of `target` with `token` ends with (or "none"), and the sockets it took. */
async function refusal(token, target, waitMs = 1500) {
  const counter = { sockets: 0 };
  let calls = 0;
  const client = new LocstreamClient(url, {
    token: async () => {
      calls++;
      return token;
    },
    WebSocket: countingWebSocket(counter),
    reconnect: { initialMs: 50, capMs: 100 },
  });
  const stop = new AbortController();
  setTimeout(() => stop.abort(), waitMs);
  let error = null;
  try {
    for await (const _ of client.locations(target, { signal: stop.signal }));
  } catch (caught) {
    error = caught;
  }
  await sleep(300);
  client.close();
  return {
    code: error?.code ?? "none", failedOp: error?.failedOp, isLocstreamError: error instanceof LocstreamError,
    sockets: counter.sockets, providerCalls: calls,
  };
}

/** Error codes: refusals end the iteration with a LocstreamError carrying the server's code, and a
 * refused token is not retried. */
async function refusals(result, { tokens }) {
  result.badToken = await refusal("not-a-token", { devices: ["tk-1"] });
  result.forbidden = await refusal(tokens.narrow, { devices: ["tk-1"] });
  result.badRequest = await refusal(tokens.long, { area: { bbox: [13, 52, 500, 53] } });
  const expect = (name, code, failedOp) => {
    const got = result[name];
    if (got.code !== code || !got.isLocstreamError) result.failures.push(`${name}: ${JSON.stringify(got)}`);
    if (failedOp && got.failedOp !== failedOp) result.failures.push(`${name}: failed_op ${got.failedOp}`);
    if (got.sockets !== 1 || got.providerCalls !== 1) result.failures.push(`${name} retried: ${JSON.stringify(got)}`);
  };
  expect("badToken", "unauthorized", "auth");
  expect("forbidden", "forbidden", "subscribe");
  expect("badRequest", "bad_request", "subscribe");
}

const runners = { switching, reconnecting, refreshing, refusals };

window.locstreamTests = {
  cases,
  /** Starts case `name`; its result fills in `cases[name]`. */
  start(name, options = {}) {
    const result = { done: false, failures: [] };
    cases[name] = result;
    runners[name](result, options)
      .catch((error) => result.failures.push("threw " + error + " " + error.stack))
      .finally(() => {
        result.done = true;
      });
  },
};
