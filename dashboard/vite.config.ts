// The dashboard's build (`vite build dashboard`): static files in dashboard/dist, served at / by the `dashboard` function (npm start and the
// deployed stage alike). Relative asset URLs, so the same build works at a stage's path (`/prod/`) and at a root.
import { defineConfig } from 'vite';

export default defineConfig({
  base: './',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // No inline module-preload polyfill: the page's Content-Security-Policy allows scripts from its own origin only.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
  // `npm run dashboard:dev`: Vite's dev server on :5173 with hot reload, the API calls passed to `npm start` on its
  // PORT (3000 unless set, as for every other command).
  server: {
    port: 5173,
    strictPort: true,
    host: '127.0.0.1',
    proxy: { '/api': { target: `http://127.0.0.1:${process.env.PORT ?? 3000}`, changeOrigin: true } },
  },
});
