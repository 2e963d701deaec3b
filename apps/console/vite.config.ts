import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    // Every browser the console supports preloads modules itself; the polyfill costs bytes.
    modulePreload: { polyfill: false },
    // The console's CSP allows no `data:` URL: every asset is a file of its own.
    assetsInlineLimit: 0,
    target: 'es2023',
  },
  server: {
    // `pnpm dev`: the page from Vite, the API from a server started with `pnpm start`.
    proxy: { '/v1': 'http://127.0.0.1:3000' },
  },
});
