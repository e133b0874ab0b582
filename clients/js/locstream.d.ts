// Type declarations of locstream.js (the browser client library of locstream).

/** A location as the server sends it (docs/protocol.md, "Locations"). */
export interface Location {
  device: string;
  lat: number;
  lon: number;
  ts: number;
  seq: number;
  speed?: number;
  heading?: number;
  acc?: number;
  attrs?: Record<string, unknown>;
  online?: boolean;
}

/** A location to publish: the server assigns `seq`. */
export type NewLocation = Omit<Location, "seq" | "online">;

/** An area: a bounding box `[west, south, east, north]` (west > east crosses the antimeridian), or a circle. */
export type Area =
  | { bbox: [number, number, number, number] }
  | { center: [number, number]; radius_m: number };

/** What a subscription watches: the protocol's `subscribe` targets. With `aggregate` (protocol v1.1)
 * an area yields `cells` events (device counts per cell of `cell_deg` degrees) instead of locations. */
export type Target =
  | { devices: string[] }
  | { area: Area; aggregate?: { cell_deg: number } };

/** One cell of an aggregated area (`cells` frames, protocol v1.1). */
export interface Cell {
  /** `"row:col"`: row = floor((lat + 90) / cell_deg), col = floor((lon + 180) / cell_deg). */
  cell: string;
  /** The mean position of the cell's devices (its centre when `count` is 0). */
  lat: number;
  lon: number;
  /** Devices in the cell; 0 when it has just emptied (drop it). */
  count: number;
}

/** A device whose replay after a reconnect skipped seqs: the last one seen, and the next one received. */
export interface SeqGap {
  device: string;
  lastSeen: number;
  next: number;
}

/** What a subscription reports. */
export type LocationEvent =
  | { type: "location"; location: Location }
  | { type: "left"; device: string }
  | { type: "snapshotEnd" }
  | { type: "reconnecting"; attempt: number; delayMs: number }
  | { type: "resumed"; gaps: SeqGap[] }
  /** Apply `cells` over the previous ones; when `full` (the first after each subscribe, also after a
   * reconnect) they are the whole area: drop every cell held before. `snapshotEnd`/`resumed` follows it. */
  | { type: "cells"; cells: Cell[]; full: boolean }
  | { type: "presence"; device: string; online: boolean; lastSeen?: number };

export interface SubscriptionOptions {
  /** Ends the subscription; the connection goes to the next one within `switchWindowMs`. */
  signal?: AbortSignal;
  /** Send the last known positions first (default true). */
  snapshot?: boolean;
  /** At most one location per device per interval (`min_interval_ms`); with `aggregate`, one `cells` event. */
  minIntervalMs?: number;
  /** Skip moves shorter than this (`min_distance_m`); not with `aggregate` (`bad_request`). */
  minDistanceM?: number;
}

export interface ReconnectPolicy {
  /** The first wait's ceiling (default 250). */
  initialMs?: number;
  /** The longest wait (default 30000). */
  capMs?: number;
}

export interface ClientOptions {
  /** Called before each connect and on `token expiring`; the token goes out with `auth`. */
  token?: () => Promise<string> | string;
  reconnect?: ReconnectPolicy;
  /** How long a freed connection waits for the next subscription before `unsubscribe` (default 50). */
  switchWindowMs?: number;
  /** How long an unused connection stays open (default 30000). */
  idleTimeoutMs?: number;
  /** A WebSocket class other than the browser's. */
  WebSocket?: typeof WebSocket;
}

/**
 * A refusal: `code` is the protocol's (`unauthorized`, `forbidden`, `bad_request`, `too_large`…),
 * or the library's `connection_lost` (a publish whose answer never came) and `ended_by_server`.
 */
export class LocstreamError extends Error {
  readonly code: string;
  readonly detail: string;
  readonly failedOp?: string;
}

/** The wait before reconnect attempt `attempt` (from 1), in milliseconds. */
export function backoffDelay(attempt: number, policy?: ReconnectPolicy): number;

export class LocstreamClient {
  /** @param url the stream endpoint, `ws(s)://host/v1/stream` */
  constructor(url: string, options?: ClientOptions);
  /** Successful `auth` refreshes so far. */
  readonly tokenRefreshes: number;
  /** The updates of `target`; ended by `options.signal` or `break`; a refusal throws a LocstreamError. */
  locations(target: Target, options?: SubscriptionOptions): AsyncIterable<LocationEvent>;
  /** The callback form of `locations`; returns a function that ends the subscription. */
  subscribe(
    target: Target,
    onEvent: (event: LocationEvent) => void,
    onError?: (error: LocstreamError) => void,
    options?: Omit<SubscriptionOptions, "signal">,
  ): () => void;
  /** Publishes with acks; resolves to the seqs the server assigned, in order. */
  publish(locations: NewLocation[]): Promise<number[]>;
  /** Closes every connection. */
  close(): void;
}
