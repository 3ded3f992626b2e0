import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** `npm run build` → dashboard/dist, which the server serves at `/`. `npm run dev:dashboard` proxies /v1 to a running server. */
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 1000 },
  server: { proxy: { '/v1': 'http://127.0.0.1:8080' } },
});
