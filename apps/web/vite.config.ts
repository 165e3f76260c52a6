import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The API and the web app share one origin in production; in development Vite proxies /api.
export default defineConfig({
  plugins: [react()],
  server: {
    port: 5173,
    proxy: { '/api': 'http://127.0.0.1:3000' },
  },
  build: {
    outDir: 'dist',
    sourcemap: true,
    chunkSizeWarningLimit: 1500,
  },
});
