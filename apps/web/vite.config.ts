import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { precompress } from './vite-plugins/precompress.ts';

// The API and the web app share one origin in production; in development Vite proxies /api.
export default defineConfig({
  plugins: [react(), precompress()],
  server: {
    port: 5173,
    proxy: { '/api': 'http://127.0.0.1:3000' },
  },
  build: {
    outDir: 'dist',
    sourcemap: true,
    chunkSizeWarningLimit: 1500,
    rolldownOptions: {
      output: {
        // Every page needs what main.tsx imports (React, the router, MUI's core, the shell): one file
        // compresses better than the dozen shared pieces the automatic split made of it, and costs one
        // request. Pages, the 3D viewer (three.js) and Stripe stay in their own lazily loaded chunks.
        codeSplitting: { groups: [{ name: 'shell', tags: ['$initial'] }] },
      },
    },
  },
});
