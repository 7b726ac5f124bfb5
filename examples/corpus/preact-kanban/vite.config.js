import { defineConfig } from 'vite';

// Preact's JSX through esbuild's automatic runtime; relative asset paths so the built site/
// can be served from any folder by a plain static file server.
export default defineConfig({
  base: './',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: { outDir: 'site', emptyOutDir: true, sourcemap: false },
});
