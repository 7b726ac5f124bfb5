import { defineConfig } from 'vite';

// The built site goes to site/ (committed), with relative asset paths and no source maps.
export default defineConfig({
  base: './',
  build: {
    outDir: 'site',
    emptyOutDir: true,
    sourcemap: false,
  },
});
