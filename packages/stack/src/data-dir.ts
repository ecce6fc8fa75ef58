// The data directory of `pnpm start` (DATA_DIR): empty means first start (the demo data is seeded);
// `--reset` deletes it.
import { readdirSync, rmSync } from 'node:fs';

/** True when the directory does not exist or holds nothing. */
export function dataDirIsEmpty(dir: string): boolean {
  try {
    return readdirSync(dir).length === 0;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw err;
  }
}

/** Deletes the directory and everything in it (`pnpm start --reset`). */
export function resetDataDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
