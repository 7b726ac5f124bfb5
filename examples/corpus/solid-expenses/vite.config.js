import { defineConfig } from 'vite';
import solid from 'vite-plugin-solid';

// Relative asset paths so the built site/ can be served from any folder by a plain static
// file server.
export default defineConfig({
  base: './',
  plugins: [solid()],
  build: { outDir: 'site', emptyOutDir: true, sourcemap: false },
});
