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

/** A WebSocket class that counts its connections and records the frames they receive (parsed), and
 * the ones they send, in `log.received` and `log.sent`. */
function recordingWebSocket(log) {
  return class extends WebSocket {
    constructor(...args) {
      super(...args);
      log.sockets++;
      this.addEventListener("message", (event) => log.received.push(JSON.parse(event.data)));
    }

    send(data) {
      log.sent.push(JSON.parse(data));
      super.send(data);
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
 * refused token is not retried. An aggregated area of too many cells is a `bad_request`; the whole
 * world in fewer cells is not refused. */
async function refusals(result, { tokens }) {
  result.badToken = await refusal("not-a-token", { devices: ["tk-1"] });
  result.forbidden = await refusal(tokens.narrow, { devices: ["tk-1"] });
  result.badRequest = await refusal(tokens.long, { area: { bbox: [13, 52, 500, 53] } });
  // 3,600 × 1,800 cells of 0.1° are over --max-cells; the whole world in 72 × 36 cells of 5° is not.
  const world = { bbox: [-180, -90, 180, 90] };
  result.tooManyCells = await refusal(tokens.long, { area: world, aggregate: { cell_deg: 0.1 } });
  result.worldCells = await refusal(tokens.long, { area: world, aggregate: { cell_deg: 5 } });
  const expect = (name, code, failedOp) => {
    const got = result[name];
    if (got.code !== code || got.isLocstreamError !== (code !== "none")) result.failures.push(`${name}: ${JSON.stringify(got)}`);
    if (failedOp && got.failedOp !== failedOp) result.failures.push(`${name}: failed_op ${got.failedOp}`);
    if (got.sockets !== 1 || got.providerCalls !== 1) result.failures.push(`${name} retried: ${JSON.stringify(got)}`);
  };
  expect("badToken", "unauthorized", "auth");
  expect("forbidden", "forbidden", "subscribe");
  expect("badRequest", "bad_request", "subscribe");
  expect("tooManyCells", "bad_request", "subscribe");
  expect("worldCells", "none");
}

/** The devices of the aggregation cases: 10 in one 1° cell west of the antimeridian, 20 in one east
 * of it, all in an area that crosses it. */
const AGGREGATED = { area: { bbox: [170, -20, -170, 0] }, aggregate: { cell_deg: 1 } };
const aggregatedDevices = Array.from({ length: 30 }, (_, i) => "ag-" + i);
const aggregatedHome = (i) => (i < 10 ? { lat: -10.5 + i * 0.01, lon: 175.5 } : { lat: -5.5 + i * 0.01, lon: -175.5 });

/** The cell id of a point for cells of `cellDeg` degrees, as docs/protocol.md defines it. */
const cellOf = (lat, lon, cellDeg) => Math.floor((lat + 90) / cellDeg) + ":" + Math.floor((lon + 180) / cellDeg);

/** Applies a `cells` event to `held` (cell id → cell), as a consumer does. */
function applyCells(held, event) {
  if (event.full) held.clear();
  for (const cell of event.cells) {
    if (cell.count > 0) held.set(cell.cell, cell);
    else held.delete(cell.cell);
  }
}

/** Aggregation: the first `cells` event is the whole area (`full`, then `snapshotEnd`), later ones
 * only what changed; a device moved to another cell and one moved out show in the counts. Then a
 * switch to a plain area on the same connection: no `cells` frame of any sub after its `subscribed`. */
async function aggregating(result) {
  const log = { sockets: 0, received: [], sent: [] };
  const client = new LocstreamClient(url, { WebSocket: recordingWebSocket(log) });
  const publisher = new LocstreamClient(url);
  const now = Date.now();
  await publisher.publish(aggregatedDevices.map((device, i) => ({ device, ...aggregatedHome(i), ts: now })));
  const held = new Map();
  const events = [];
  const stop = new AbortController();
  const total = () => [...held.values()].reduce((sum, cell) => sum + cell.count, 0);
  const iteration = (async () => {
    for await (const event of client.locations(AGGREGATED, { signal: stop.signal, minIntervalMs: 100 })) {
      events.push(event.type === "cells" ? { type: "cells", full: event.full, cells: event.cells.length } : event);
      if (event.type === "cells") applyCells(held, event);
    }
  })();
  if (!(await until(() => events.some((event) => event.type === "snapshotEnd"), 5000))) {
    result.failures.push("no snapshotEnd: " + JSON.stringify(events));
  }
  result.first = events.slice(0, 2);
  if (events[0]?.type !== "cells" || events[0].full !== true || events[1]?.type !== "snapshotEnd") {
    result.failures.push("the first events are not cells (full) and snapshotEnd: " + JSON.stringify(events));
  }
  const west = cellOf(-10.5, 175.5, 1);
  const east = cellOf(-5.5, -175.5, 1);
  result.initial = Object.fromEntries([...held].map(([id, cell]) => [id, cell.count]));
  if (held.size !== 2 || held.get(west)?.count !== 10 || held.get(east)?.count !== 20) {
    result.failures.push(`initial cells ${JSON.stringify(result.initial)}, not ${west}: 10 and ${east}: 20`);
  }
  // ag-0 moves into the east cell, ag-29 out of the area.
  await publisher.publish([
    { device: "ag-0", lat: -5.4, lon: -175.4, ts: now + 1 },
    { device: "ag-29", lat: 10, lon: 0, ts: now + 1 },
  ]);
  if (!(await until(() => held.get(west)?.count === 9 && held.get(east)?.count === 20, 5000))) {
    result.failures.push("after the moves: " + JSON.stringify([...held]));
  }
  result.total = total();
  const later = events.filter((event) => event.type === "cells").slice(1);
  if (later.length === 0 || later.some((event) => event.full)) result.failures.push("later cells: " + JSON.stringify(later));

  // Switch to a plain area while the aggregated one keeps changing.
  const moving = new AbortController();
  (async () => {
    for (let step = 2; !moving.signal.aborted; step++) {
      await publisher.publish([{ device: "ag-1", lat: -10.5, lon: step % 2 ? 175.5 : 176.5, ts: now + step }]).catch(() => {});
      await sleep(30);
    }
  })();
  await sleep(300);
  stop.abort();
  await iteration;
  const plain = new AbortController();
  result.plainCells = 0;
  result.plainLocations = 0;
  const second = (async () => {
    for await (const event of client.locations({ area: { bbox: [175, -11, 176, -10] } }, { signal: plain.signal })) {
      if (event.type === "cells") result.plainCells++;
      if (event.type === "location") result.plainLocations++;
    }
  })();
  await sleep(1500);
  moving.abort();
  plain.abort();
  await second;
  const switched = log.received.findLastIndex((frame) => frame.op === "subscribed");
  result.cellsAfterSwitch = log.received.slice(switched + 1).filter((frame) => frame.op === "cells").length;
  result.sockets = log.sockets;
  if (result.plainCells > 0 || result.cellsAfterSwitch > 0) {
    result.failures.push(`cells after the switch: ${result.plainCells} events, ${result.cellsAfterSwitch} frames`);
  }
  if (result.plainLocations === 0) result.failures.push("no location in the plain area");
  if (log.sockets !== 1) result.failures.push(`${log.sockets} connections, not 1`);
  client.close();
  publisher.close();
}

/** An aggregated area across a server restart: at `phase` "live" the driver kills and restarts the
 * server; after `reconnecting`, the next `cells` event is the whole area again (`full`), `resumed`
 * follows it, and the resubscribe carried no `since`. */
async function aggregateResuming(result) {
  const log = { sockets: 0, received: [], sent: [] };
  const client = new LocstreamClient(url, { WebSocket: recordingWebSocket(log), reconnect: { initialMs: 100, capMs: 1000 } });
  const stop = new AbortController();
  const order = [];
  result.phase = "starting";
  try {
    for await (const event of client.locations(AGGREGATED, { signal: stop.signal })) {
      order.push(event.type === "cells" ? (event.full ? "cells(full)" : "cells") : event.type);
      if (event.type === "snapshotEnd") result.phase = "live";
      if (event.type === "resumed") break;
    }
  } catch (error) {
    result.failures.push("the iteration threw " + error);
  }
  stop.abort();
  result.order = order;
  const back = order.lastIndexOf("reconnecting");
  if (order[0] !== "cells(full)" || order[1] !== "snapshotEnd") result.failures.push("start: " + order.join(", "));
  if (back < 0 || order[back + 1] !== "cells(full)" || order[back + 2] !== "resumed") {
    result.failures.push("after reconnecting: " + order.join(", "));
  }
  const subscribes = log.sent.filter((message) => message.op === "subscribe");
  if (subscribes.length < 2 || subscribes.some((message) => "since" in message || !message.aggregate)) {
    result.failures.push("subscribes: " + JSON.stringify(subscribes));
  }
  client.close();
}

const runners = { switching, reconnecting, refreshing, refusals, aggregating, aggregateResuming };

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
