import type { RecordedRequest } from './server.ts';

/** Bounds of the fake server's request log. */
export interface RequestLogLimits {
  /** Most requests kept; older ones are dropped first. Default 1,000. */
  readonly maxRequests?: number;
  /** Most body bytes kept across the kept requests; older ones are dropped first. Default 64 MiB. */
  readonly maxBodyBytes?: number;
}

/** The defaults of {@link RequestLogLimits}. */
export const REQUEST_LOG_DEFAULTS = { maxRequests: 1000, maxBodyBytes: 64 * 2 ** 20 } as const;

/**
 * The most recent requests, oldest first, within a count and a byte budget — a long-running
 * `chatfold fake-provider` keeps its memory flat however much it is sent. The newest request
 * is always kept, whatever its size.
 */
export class RequestLog {
  /** The kept requests, oldest first; the same array for the log's whole life. */
  readonly entries: RecordedRequest[] = [];
  readonly #maxRequests: number;
  readonly #maxBodyBytes: number;
  #bodyBytes = 0;

  constructor({
    maxRequests = REQUEST_LOG_DEFAULTS.maxRequests,
    maxBodyBytes = REQUEST_LOG_DEFAULTS.maxBodyBytes,
  }: RequestLogLimits = {}) {
    this.#maxRequests = maxRequests;
    this.#maxBodyBytes = maxBodyBytes;
  }

  /** Adds a request, then drops the oldest ones past either bound. */
  add(request: RecordedRequest): void {
    this.entries.push(request);
    this.#bodyBytes += request.bodyBytes;
    while (
      this.entries.length > 1 &&
      (this.entries.length > this.#maxRequests || this.#bodyBytes > this.#maxBodyBytes)
    ) {
      const dropped = this.entries.shift();
      this.#bodyBytes -= dropped?.bodyBytes ?? 0;
    }
  }

  clear(): void {
    this.entries.length = 0;
    this.#bodyBytes = 0;
  }
}
