// Jest transformer: TypeScript and ES modules to CommonJS with esbuild (type checking is `tsc --noEmit`).
const { createHash } = require('node:crypto');
const { readFileSync } = require('node:fs');
const { transformSync, version } = require('esbuild');

const OPTIONS = {
  format: 'cjs',
  target: 'node20',
  // jest runs CommonJS: import() becomes require(), so lazily loaded modules share jest's registry.
  supported: { 'dynamic-import': false },
  sourcemap: 'external',
};
const SELF = createHash('sha256').update(readFileSync(__filename)).update(version).digest('hex');

module.exports = {
  process(source, filename) {
    const { code, map } = transformSync(source, {
      ...OPTIONS,
      loader: /\.[cm]?ts$/.test(filename) ? 'ts' : 'js',
      sourcefile: filename,
    });
    return { code, map };
  },
  getCacheKey(source, filename) {
    return createHash('sha256').update(SELF).update(filename).update(source).digest('hex');
  },
};
