// locstream.js: the browser client library for locstream's wire protocol (docs/protocol.md).
// One ES module, no dependencies, no build step. The server serves it at /locstream.js.
// Types: locstream.d.ts beside this file. Usage: README.md beside this file.

const SUBPROTOCOL = "locstream.v1";
const MAX_BATCH = 1000;

/** A refusal from the server (its `code`, `message` and `failed_op`) or of the library. */
export class LocstreamError extends Error {
  constructor(code, message, failedOp) {
    super(code + ": " + message);
    this.name = "LocstreamError";
    this.code = code;
    this.detail = message;
    this.failedOp = failedOp;
  }
}

/** The wait before reconnect attempt `attempt` (from 1): random in the upper half of
 * initialMs × 2^(attempt-1), at most capMs. */
export function backoffDelay(attempt, { initialMs = 250, capMs = 30000 } = {}) {
  const ceiling = Math.min(capMs, initialMs * Math.pow(2, Math.max(0, attempt - 1)));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** One WebSocket: its welcome, its token, and the frames it hands to its owner. */
class Link {
  constructor(client) {
    this.client = client;
    this.owner = null;
    this.publishes = [];
    this.subscribes = [];
    this.closed = false;
    this.idleTimer = null;
    this.ready = this.open();
  }

  /** Connects, waits for `welcome`, then authenticates when the client has a token provider. */
  async open() {
    const client = this.client;
    const token = client.tokenProvider ? await client.tokenProvider() : undefined;
    const socket = new client.WebSocket(client.url, SUBPROTOCOL);
    this.socket = socket;
    const welcomed = new Promise((resolve, reject) => {
      this.settleOpen = { resolve, reject };
    });
    socket.onmessage = (event) => this.receive(event.data);
    socket.onclose = (event) => this.lost(event);
    socket.onerror = () => {};
    await welcomed;
    if (token !== undefined && token !== null) await this.authenticate(token);
    return this;
  }

  /** Sends `auth` and waits for `authed`; a refusal rejects with its LocstreamError. */
  authenticate(token) {
    return new Promise((resolve, reject) => {
      this.pendingAuth = { resolve, reject };
      this.send({ op: "auth", token });
    });
  }

  send(message) {
    if (this.closed || this.socket.readyState !== 1) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  receive(data) {
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    switch (message.op) {
      case "welcome":
        this.settleOpen?.resolve(message);
        this.settleOpen = null;
        return;
      case "authed":
        this.pendingAuth?.resolve(message);
        this.pendingAuth = null;
        return;
      case "subscribed":
        this.answered(message.sub);
        this.owner?.frame(message);
        return;
      case "published":
        this.publishes.shift()?.resolve(message);
        return;
      case "error":
        return this.refused(message);
      default:
        this.owner?.frame(message);
    }
  }

  /** Replies come in order: `subscribed` for `sub` answers every subscribe sent up to it. */
  answered(sub) {
    const index = this.subscribes.indexOf(sub);
    if (index >= 0) this.subscribes.splice(0, index + 1);
  }

  refused(message) {
    const error = new LocstreamError(message.code, message.message || "", message.failed_op);
    if (message.failed_op === "auth" && this.pendingAuth) {
      this.pendingAuth.reject(error);
      this.pendingAuth = null;
    } else if (message.code === "unauthorized" && message.message === "token expiring") {
      this.refresh();
    } else if (message.failed_op === "publish" && this.publishes.length > 0) {
      this.publishes.shift().reject(error);
    } else if (message.failed_op === "subscribe") {
      const sub = this.subscribes.shift();
      if (this.owner && sub === this.owner.sub) this.owner.refused(error);
    } else if (message.failed_op === undefined) {
      this.owner?.refused(error);
    }
  }

  /** The server warned `token expiring`: a fresh token from the provider goes out with `auth`. */
  async refresh() {
    const provider = this.client.tokenProvider;
    if (!provider) return;
    try {
      const token = await provider();
      await this.authenticate(token);
      this.client.tokenRefreshes++;
    } catch (error) {
      this.owner?.refused(error instanceof LocstreamError ? error : new LocstreamError("unauthorized", String(error)));
    }
  }

  lost(event) {
    if (this.closed) return;
    this.closed = true;
    const error = new LocstreamError("connection_lost", "closed with " + event.code + (event.reason ? " " + event.reason : ""));
    this.settleOpen?.reject(error);
    this.pendingAuth?.reject(error);
    for (const pending of this.publishes.splice(0)) pending.reject(error);
    this.client.forget(this);
    this.owner?.lost(this);
  }

  close() {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.idleTimer);
    this.client.forget(this);
    try {
      this.socket?.close(1000);
    } catch {
      // A socket that never opened has nothing to close.
    }
  }
}

/** One subscription's life: its link, its `sub` ids, reconnects with `since`, and its events. */
class Feed {
  constructor(client, target, options, push, fail) {
    this.client = client;
    this.target = target;
    this.options = options;
    this.push = push;
    this.fail = fail;
    this.seqs = new Map();
    this.link = null;
    this.sub = null;
    this.ended = false;
    this.attempt = 0;
    this.resuming = false;
    this.wholeArea = false;
    this.gaps = [];
  }

  async start() {
    while (!this.ended) {
      try {
        this.link = null;
        this.link = await this.client.acquire(this);
        if (this.ended) return this.client.release(this.link, this);
        this.subscribe();
        return;
      } catch (error) {
        if (this.ended) return;
        if (error instanceof LocstreamError && error.code !== "connection_lost") return this.end(error);
        await this.wait();
      }
    }
  }

  /** Sends `subscribe` with a new `sub` id (the server's switch when the link had another). */
  subscribe() {
    this.sub = this.client.nextSub();
    const message = { op: "subscribe", sub: this.sub, ...this.target };
    const { snapshot, minIntervalMs, minDistanceM } = this.options;
    if (snapshot === false) message.snapshot = false;
    if (minIntervalMs !== undefined) message.min_interval_ms = minIntervalMs;
    if (minDistanceM !== undefined) message.min_distance_m = minDistanceM;
    // Counts are a state, not a history: an aggregated area resubscribes without `since`.
    if (this.resuming && this.seqs.size > 0 && !this.target.aggregate) {
      message.since = Object.fromEntries([...this.seqs].slice(-MAX_BATCH));
    }
    this.link.subscribes.push(this.sub);
    this.link.send(message);
  }

  async wait() {
    this.attempt++;
    const delayMs = backoffDelay(this.attempt, this.client.reconnect);
    this.resuming = true;
    this.push({ type: "reconnecting", attempt: this.attempt, delayMs });
    await new Promise((resolve) => setTimeout(resolve, delayMs));
  }

  frame(message) {
    if (this.ended || message.sub !== this.sub) return;
    switch (message.op) {
      case "subscribed":
        this.remaining = message.snapshot;
        this.wholeArea = true;
        this.gaps = [];
        return this.countdown();
      case "loc":
        return this.location(message);
      case "leave":
        this.seqs.delete(message.device);
        return this.push({ type: "left", device: message.device });
      case "cells":
        return this.cells(message);
      case "presence":
        return this.push({ type: "presence", device: message.device, online: message.online, lastSeen: message.last_seen });
      case "unsubscribed":
        return this.end(new LocstreamError("ended_by_server", "the server ended the subscription"));
      default:
    }
  }

  /** A `loc`: delivered unless its seq was delivered before (then only counted in the snapshot). */
  location(message) {
    const last = this.seqs.get(message.device);
    if (last === undefined || message.seq > last) {
      if (this.remaining > 0 && this.resuming && last !== undefined && message.seq > last + 1) {
        this.gaps.push({ device: message.device, lastSeen: last, next: message.seq });
      }
      this.seqs.delete(message.device);
      this.seqs.set(message.device, message.seq);
      const { op: _op, sub: _sub, ...location } = message;
      this.push({ type: "location", location });
    }
    if (this.remaining > 0) {
      this.remaining--;
      this.countdown();
    }
  }

  /** A `cells` frame: the first after `subscribed` is the whole area (`full`, and the snapshot). */
  cells(message) {
    const full = this.wholeArea;
    this.wholeArea = false;
    this.push({ type: "cells", cells: message.cells, full });
    if (full && this.remaining > 0) {
      this.remaining--;
      this.countdown();
    }
  }

  /** Once the snapshot (or the replay after a reconnect) is through: `snapshotEnd` or `resumed`. */
  countdown() {
    if (this.remaining !== 0) return;
    this.remaining = -1;
    this.attempt = 0;
    this.push(this.resuming ? { type: "resumed", gaps: this.gaps } : { type: "snapshotEnd" });
    this.resuming = false;
  }

  refused(error) {
    if (!this.ended) this.end(error);
  }

  lost(link) {
    if (link !== this.link) return;
    this.link = null;
    if (!this.ended) this.start();
  }

  /** Ends the feed: by the consumer (no error) or by a refusal. Its link goes back to the pool. */
  end(error) {
    if (this.ended) return;
    this.ended = true;
    if (this.link) this.client.release(this.link, this);
    this.link = null;
    if (error) this.fail(error);
  }
}

/** A browser client of one locstream server: subscriptions as async iterables, and publishing. */
export class LocstreamClient {
  /**
   * @param url the stream endpoint, `ws(s)://host/v1/stream`
   * @param options `token` (an async provider, called before each connect and on `token expiring`),
   *   `reconnect` ({initialMs, capMs}), `switchWindowMs` (50), `idleTimeoutMs` (30000), `WebSocket`
   */
  constructor(url, options = {}) {
    this.url = url;
    this.tokenProvider = options.token;
    this.reconnect = options.reconnect ?? {};
    this.switchWindowMs = options.switchWindowMs ?? 50;
    this.idleTimeoutMs = options.idleTimeoutMs ?? 30000;
    this.WebSocket = options.WebSocket ?? globalThis.WebSocket;
    this.idle = [];
    this.links = new Set();
    this.subCounter = 0;
    this.tokenRefreshes = 0;
    this.publisher = null;
  }

  nextSub() {
    return "s" + ++this.subCounter;
  }

  /** A link for `feed`: one just freed (the switch), else a new connection. */
  async acquire(feed) {
    const freed = this.idle.pop();
    if (freed) {
      clearTimeout(freed.idleTimer);
      freed.owner = feed;
      return freed;
    }
    return this.connect(feed);
  }

  /** A new connection, welcomed and authenticated, for `owner`; closed again if that fails. */
  async connect(owner) {
    const link = new Link(this);
    this.links.add(link);
    link.owner = owner;
    try {
      return await link.ready;
    } catch (error) {
      link.close();
      throw error;
    }
  }

  /** `feed` is done with `link`: the next feed within `switchWindowMs` takes it, else `unsubscribe`. */
  release(link, feed) {
    if (link.owner !== feed || link.closed) return;
    link.owner = null;
    this.idle.push(link);
    link.idleTimer = setTimeout(() => {
      link.send({ op: "unsubscribe" });
      link.idleTimer = setTimeout(() => link.close(), this.idleTimeoutMs);
    }, this.switchWindowMs);
  }

  forget(link) {
    this.links.delete(link);
    this.idle = this.idle.filter((candidate) => candidate !== link);
    if (link.isPublisher) this.publisher = null;
  }

  /**
   * The updates of `target` ({devices: [...]}, {area: {...}}, or {area: {...}, aggregate: {cell_deg}} for
   * `cells` events, as the protocol's subscribe has them), as an async iterable of events. `options.signal` (an AbortSignal) ends it; a refusal throws.
   */
  locations(target, options = {}) {
    const client = this;
    return {
      [Symbol.asyncIterator]() {
        const queue = [];
        let waiting = null;
        let failure = null;
        let done = false;
        const wake = () => {
          if (!waiting) return;
          const { resolve, reject } = waiting;
          waiting = null;
          if (queue.length > 0) resolve({ value: queue.shift(), done: false });
          else if (failure) reject(failure);
          else resolve({ value: undefined, done: true });
        };
        const finish = () => {
          if (done) return;
          done = true;
          queue.length = 0;
          feed.end();
          options.signal?.removeEventListener("abort", finish);
          wake();
        };
        const feed = new Feed(
          client, target, options,
          (event) => {
            if (done) return;
            queue.push(event);
            wake();
          },
          (error) => {
            if (done) return;
            failure = error;
            done = true;
            wake();
          },
        );
        if (options.signal?.aborted) done = true;
        else {
          options.signal?.addEventListener("abort", finish);
          feed.start();
        }
        return {
          next() {
            if (queue.length > 0) return Promise.resolve({ value: queue.shift(), done: false });
            if (failure) {
              const error = failure;
              failure = null;
              return Promise.reject(error);
            }
            if (done) return Promise.resolve({ value: undefined, done: true });
            return new Promise((resolve, reject) => {
              waiting = { resolve, reject };
            });
          },
          return() {
            finish();
            return Promise.resolve({ value: undefined, done: true });
          },
        };
      },
    };
  }

  /**
   * The callback form of `locations`: `onEvent(event)` for each event, `onError(error)` once on a
   * refusal. Returns a function that ends the subscription.
   */
  subscribe(target, onEvent, onError = () => {}, options = {}) {
    const controller = new AbortController();
    (async () => {
      try {
        for await (const event of this.locations(target, { ...options, signal: controller.signal })) onEvent(event);
      } catch (error) {
        onError(error);
      }
    })();
    return () => controller.abort();
  }

  /** Publishes `locations` with acks, on a connection of its own; resolves to their seqs, in order. */
  async publish(locations) {
    if (!this.publisher) this.publisher = this.connect(null);
    let link;
    try {
      link = await this.publisher;
      link.isPublisher = true;
    } catch (error) {
      this.publisher = null;
      throw error;
    }
    const seqs = [];
    for (let start = 0; start < locations.length; start += MAX_BATCH) {
      const batch = locations.slice(start, start + MAX_BATCH);
      const answer = await new Promise((resolve, reject) => {
        link.publishes.push({ resolve, reject });
        if (!link.send({ op: "publish", locs: batch, ack: true })) {
          link.publishes.pop();
          reject(new LocstreamError("connection_lost", "the publishing connection is closed"));
        }
      });
      seqs.push(...(answer.seqs ?? []));
    }
    return seqs;
  }

  /** Closes every connection; running iterations see no more events. */
  close() {
    for (const link of [...this.links]) link.close();
  }
}
