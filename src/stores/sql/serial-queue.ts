/**
 * Runs async tasks one at a time, in call order. Single-connection drivers (node:sqlite,
 * PGlite) use it so one transaction never interleaves with another on the same connection.
 */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task, task);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}
