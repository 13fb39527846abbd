/** True when the first 8 KiB hold a NUL byte: what git and grep call a binary file. */
export function looksBinary(buffer: Uint8Array): boolean {
  const end = Math.min(buffer.length, 8192);
  for (let i = 0; i < end; i++) if (buffer[i] === 0) return true;
  return false;
}
