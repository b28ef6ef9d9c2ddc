/**
 * The dashboard's weight: every built file (dashboard/dist, rebuilt when stale) raw, gzipped and brotli-compressed,
 * and a first load's total: the page and every file it loads, compressed as API Gateway sends them (gzip,
 * `minimumCompressionSize: 1024`). Part of `npm run bench`; alone: `npm run bench:dashboard`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { DIST, ensureDashboardBuilt } from '../resources/dashboard-build.js';

export interface DashboardFile {
  file: string;
  bytes: number;
  gzipBytes: number;
  brotliBytes: number;
}

export interface DashboardSize {
  files: DashboardFile[];
  /** What a first load transfers for the page and its files: gzip above 1 KB, as API Gateway compresses. */
  firstLoadBytes: number;
  firstLoadKb: number;
}

const GATEWAY_MINIMUM_COMPRESSION = 1024;

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)) : [join(dir, name)]));
}

export function measureDashboard(): DashboardSize {
  ensureDashboardBuilt();
  const files = walk(DIST).map((path) => {
    const body = readFileSync(path);
    return {
      file: relative(DIST, path),
      bytes: body.length,
      gzipBytes: gzipSync(body, { level: 6 }).length,
      brotliBytes: brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
    };
  });
  // The page loads every file Vite emitted (one script, one stylesheet): a first load is all of them.
  const firstLoadBytes = files.reduce((sum, file) => sum + (file.bytes >= GATEWAY_MINIMUM_COMPRESSION ? file.gzipBytes : file.bytes), 0);
  return { files, firstLoadBytes, firstLoadKb: Math.round((firstLoadBytes / 1024) * 10) / 10 };
}

if (require.main === module) {
  const size = measureDashboard();
  for (const file of size.files)
    console.log(
      `${file.file.padEnd(36)} ${String(file.bytes).padStart(8)} B   gzip ${String(file.gzipBytes).padStart(7)} B   brotli ${String(file.brotliBytes).padStart(7)} B`,
    );
  console.log(`first load (page and files, gzip as API Gateway sends them): ${size.firstLoadKb} KB; target ≤ 200 KB`);
}
