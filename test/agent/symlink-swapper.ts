// Run as a child process by workspace-race.test.ts (issue 24): swaps a file and a folder of the
// workspace for symbolic links that lead outside it, and back, in a tight loop, until killed.
// Each swap is one rename(2), so a tool sees either the real entry or the link, at any moment.
// Usage: node symlink-swapper.ts ROOT OUTSIDE
import { existsSync, lstatSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const [root, outside] = process.argv.slice(2) as [string, string];
const file = path.join(root, 'file.txt');
const folder = path.join(root, 'dir');
const parked = path.join(root, '.parked-dir');
const linkTemp = path.join(root, '.link-tmp');
const fileTemp = path.join(root, '.file-tmp');

let swaps = 0;
process.on('SIGTERM', () => {
  process.stdout.write(`${swaps}\n`);
  process.exit(0);
});
process.stdout.write('ready\n');

for (;;) {
  try {
    // The file becomes a link to a secret outside, then a regular file again.
    rmSync(linkTemp, { force: true });
    symlinkSync(path.join(outside, 'secret.txt'), linkTemp);
    renameSync(linkTemp, file);
    writeFileSync(fileTemp, 'INSIDE\n');
    renameSync(fileTemp, file);
    // The folder is parked and a link to the outside folder takes its name, then it comes back.
    renameSync(folder, parked);
    symlinkSync(path.join(outside, 'dir'), folder);
    unlinkSync(folder);
    renameSync(parked, folder);
    swaps++;
  } catch {
    // A tool created an entry mid-swap (write_file makes dir/ when it is missing): drop it (never
    // following a link) and put the parked folder back.
    while (existsSync(parked)) {
      try {
        if (lstatSync(folder).isSymbolicLink()) unlinkSync(folder);
        else rmSync(folder, { recursive: true, force: true });
      } catch {}
      try {
        renameSync(parked, folder);
      } catch {}
    }
  }
  // Yield now and then so SIGTERM is delivered.
  if (swaps % 200 === 0) await new Promise((resolve) => setImmediate(resolve));
}
